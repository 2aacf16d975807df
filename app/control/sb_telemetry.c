/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-only DPDK telemetry endpoints (/seqbond/info, /seqbond/peers, /seqbond/paths,
 * /seqbond/reorder), next to DPDK's own /ethdev/... ones. They run in the telemetry thread
 * and read through the control back end's snapshot, like the console.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_telemetry.h>

#include "sb_ctl.h"
#include "sb_telemetry.h"

static struct sb_ctl *tel_ctl;
/* Callbacks between take() and give_back(): unregister waits for them, so the back end is
 * never freed under a telemetry call (DPDK 22.11 cannot unregister commands). */
static unsigned int tel_inflight;

void
sb_telemetry_unregister(void)
{
	__atomic_store_n(&tel_ctl, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&tel_inflight, __ATOMIC_SEQ_CST) != 0)
		usleep(1000);
}

static void
give_back(struct sb_snapshot *s)
{
	free(s);
	__atomic_sub_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
}

/* Snapshot through the back end; *ctlp gets the back end it came from. Every non-NULL
 * return is paired with give_back(). The in-flight count goes up before the back end is
 * read, so unregister either sees the call or the call sees NULL. */
static struct sb_snapshot *
take(struct sb_ctl **ctlp)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s;

	__atomic_add_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	ctl = __atomic_load_n(&tel_ctl, __ATOMIC_SEQ_CST);
	s = ctl != NULL ? malloc(sizeof(*s)) : NULL;
	if (s != NULL && sb_ctl_snapshot(ctl, s) != 0) {
		free(s);
		s = NULL;
	}
	if (s == NULL) {
		__atomic_sub_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	*ctlp = ctl;
	return s;
}

/* Optional parameter: a peer's host id. @return peer index, -1 for all, -2 for no match. */
static int
peer_param(const struct sb_snapshot *s, const char *params)
{
	unsigned long id;
	char *end;
	unsigned int i;

	if (params == NULL || *params == '\0')
		return -1;
	id = strtoul(params, &end, 0);
	if (*end != '\0')
		return -2;
	for (i = 0; i < s->peers.n_peers; i++)
		if (s->peers.peer[i].host_id == id)
			return i;
	return -2;
}

static void
add_u64(const char *name, uint64_t v, void *arg)
{
	rte_tel_data_add_dict_u64(arg, name, v);
}

static int
tel_info(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	struct sb_config *cfg;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (s == NULL)
		return -1;
	/* Telemetry serves each client on its own thread: no static buffers here. */
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL) {
		give_back(s);
		return -ENOMEM;
	}
	sb_ctl_config(ctl, cfg);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "host_id", cfg->host_id);
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)cfg->mac);
	rte_tel_data_add_dict_string(d, "mac", mac);
	rte_tel_data_add_dict_string(d, "exception", cfg->exc_name);
	rte_tel_data_add_dict_string(d, "scheduler", s->scheduler);
	rte_tel_data_add_dict_u64(d, "ports", s->n_ports);
	rte_tel_data_add_dict_u64(d, "peers", s->peers.n_peers);
	rte_tel_data_add_dict_u64(d, "reorder_timeout_us", s->reorder_timeout_us);
	rte_tel_data_add_dict_u64(d, "hello_interval_ms", s->hello_interval_ms);
	sb_dp_stats_foreach(&s->stats, add_u64, d);
	free(cfg);
	give_back(s);
	return 0;
}

static int
tel_peers(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	int only;
	unsigned int i;

	if (s == NULL)
		return -1;
	only = peer_param(s, params);
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		struct rte_tel_data *c;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], name[16];

		if (only != -1 && only != (int)i)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)p->agg_mac);
		rte_tel_data_add_dict_string(c, "mac", mac);
		rte_tel_data_add_dict_u64(c, "instance", p->instance);
		rte_tel_data_add_dict_u64(c, "paths", p->n_paths);
		rte_tel_data_add_dict_u64(c, "paths_up", p->n_up);
		rte_tel_data_add_dict_u64(c, "hello_interval_ms", p->interval_ms);
		rte_tel_data_add_dict_u64(c, "tx_seq_next", s->peer[i].tx_seq);
		rte_tel_data_add_dict_u64(c, "rx_seq_next", s->peer[i].rx_next_seq);
		snprintf(name, sizeof(name), "%u", p->host_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	give_back(s);
	return 0;
}

static int
tel_paths(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	int only;
	unsigned int i, j;

	if (s == NULL)
		return -1;
	only = peer_param(s, params);
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		const struct sb_snap_peer *sp = &s->peer[i];

		if (only != -1 && only != (int)i)
			continue;
		for (j = 0; j < p->n_paths; j++) {
			const struct sb_path *path = &p->path[j];
			struct rte_tel_data *c = rte_tel_data_alloc();
			char name[32];

			if (c == NULL)
				break;
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_u64(c, "peer", p->host_id);
			rte_tel_data_add_dict_u64(c, "port", path->local_port);
			rte_tel_data_add_dict_u64(c, "peer_port", path->remote_port);
			rte_tel_data_add_dict_string(c, "state",
				path->state == SB_PATH_UP ? "up" : "down");
			rte_tel_data_add_dict_u64(c, "rate_bps", sp->path_rate_bps[j]);
			rte_tel_data_add_dict_u64(c, "tx_frames", sp->path_tx[j]);
			rte_tel_data_add_dict_u64(c, "tx_bytes", sp->path_tx_bytes[j]);
			rte_tel_data_add_dict_u64(c, "rx_frames", sp->path_rx[j]);
			rte_tel_data_add_dict_u64(c, "rx_bytes", sp->path_rx_bytes[j]);
			rte_tel_data_add_dict_u64(c, "hellos_rx", path->hellos_rx);
			rte_tel_data_add_dict_u64(c, "transitions", path->transitions);
			rte_tel_data_add_dict_u64(c, "last_hello_age_us",
				path->last_hello == 0 ? UINT64_MAX :
				(s->tsc - path->last_hello) * 1000000 / s->hz);
			snprintf(name, sizeof(name), "peer%u_path%u", p->host_id, j);
			rte_tel_data_add_dict_container(d, name, c, 0);
		}
	}
	give_back(s);
	return 0;
}

static int
tel_reorder(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	int only;
	unsigned int i;

	if (s == NULL)
		return -1;
	only = peer_param(s, params);
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_reorder_stats *r = &s->peer[i].reorder;
		struct rte_tel_data *c;
		char name[16];

		if (only != -1 && only != (int)i)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		sb_reorder_stats_foreach(r, s->hz, add_u64, c);
		rte_tel_data_add_dict_u64(c, "hold_now_us", s->peer[i].hold_now * 1000000 / s->hz);
		snprintf(name, sizeof(name), "%u", s->peers.peer[i].host_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	give_back(s);
	return 0;
}

int
sb_telemetry_register(struct sb_ctl *ctl)
{
	int ret = 0;

	tel_ctl = ctl;
	ret |= rte_telemetry_register_cmd("/seqbond/info", tel_info,
		"seqbond host settings and datapath counters. No parameters");
	ret |= rte_telemetry_register_cmd("/seqbond/peers", tel_peers,
		"seqbond peers. Parameter: optional peer host id");
	ret |= rte_telemetry_register_cmd("/seqbond/paths", tel_paths,
		"seqbond paths: state, rate, frames and bytes each way. Parameter: optional peer "
		"host id");
	ret |= rte_telemetry_register_cmd("/seqbond/reorder", tel_reorder,
		"seqbond reorder windows. Parameter: optional peer host id");
	return ret == 0 ? 0 : -EINVAL;
}
