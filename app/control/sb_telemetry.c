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
#include "sb_keyfile.h"
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

/* The back end, held until unpin(), or NULL once unregister has begun. The in-flight count
 * goes up before the back end is read, so unregister either sees the call or the call sees
 * NULL. */
static struct sb_ctl *
pin(void)
{
	struct sb_ctl *ctl;

	__atomic_add_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	ctl = __atomic_load_n(&tel_ctl, __ATOMIC_SEQ_CST);
	if (ctl == NULL)
		__atomic_sub_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	return ctl;
}

static void
unpin(void)
{
	__atomic_sub_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
}

static void
give_back(struct sb_snapshot *s)
{
	free(s);
	unpin();
}

/* Snapshot through the back end; *ctlp gets the back end it came from. Every non-NULL
 * return is paired with give_back(). */
static struct sb_snapshot *
take(struct sb_ctl **ctlp)
{
	struct sb_ctl *ctl = pin();
	struct sb_snapshot *s;

	if (ctl == NULL)
		return NULL;
	s = malloc(sizeof(*s));
	if (s != NULL && sb_ctl_snapshot(ctl, s) != 0) {
		free(s);
		s = NULL;
	}
	if (s == NULL) {
		unpin();
		return NULL;
	}
	*ctlp = ctl;
	return s;
}

/*
 * DPDK telemetry caps a reply at 16 KiB and a dictionary at 256 entries, and a reply that
 * overflows is not valid JSON: every list endpoint answers in pages small enough to fit
 * whatever the number of peers and paths. Parameters: [PEER][,PAGE], PEER a host id or
 * "all" (default), PAGE from 0 (default). Every reply carries "page", "pages" and "items".
 */
#define PAGE_PEERS 24	/* ~300 bytes each */
#define PAGE_LATENCY 8	/* ~1 100 bytes each */
#define PAGE_PATHS 12	/* ~650 bytes each */

struct list_params {
	int peer;		/* peer index, -1 for all */
	unsigned int page;
};

/* @return 0, or -EINVAL (malformed, or no such peer). */
static int
list_params(const struct sb_snapshot *s, const char *params, struct list_params *lp)
{
	char buf[64], *comma, *end;
	unsigned long v;
	unsigned int i;

	lp->peer = -1;
	lp->page = 0;
	if (params == NULL || *params == '\0')
		return 0;
	if (strlen(params) >= sizeof(buf))
		return -EINVAL;
	strlcpy(buf, params, sizeof(buf));
	comma = strchr(buf, ',');
	if (comma != NULL) {
		*comma = '\0';
		errno = 0;
		v = strtoul(comma + 1, &end, 10);
		if (comma[1] == '\0' || *end != '\0' || errno != 0 || v > 100000)
			return -EINVAL;
		lp->page = v;
	}
	if (buf[0] == '\0' || strcmp(buf, "all") == 0)
		return 0;
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (*end != '\0' || errno != 0 || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < s->peers.n_peers; i++)
		if (sb_snap_peer_used(s, i) && s->peers.peer[i].host_id == v) {
			lp->peer = i;
			return 0;
		}
	return -EINVAL;
}

/* Page bookkeeping: "items" listed in all pages, "pages", this "page"; @return true when
 * item number @p k (0-based over the whole list) is on the requested page. */
static bool
on_page(const struct list_params *lp, unsigned int k, unsigned int per_page)
{
	return k / per_page == lp->page;
}

static void
page_footer(struct rte_tel_data *d, const struct list_params *lp, unsigned int items,
	unsigned int per_page)
{
	rte_tel_data_add_dict_u64(d, "items", items);
	rte_tel_data_add_dict_u64(d, "page", lp->page);
	rte_tel_data_add_dict_u64(d, "pages", items == 0 ? 1 : (items + per_page - 1) / per_page);
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
	char mac[RTE_ETHER_ADDR_FMT_SIZE], fp[2 * SB_AUTH_FP_LEN + 1];
	unsigned int i;

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
	rte_tel_data_add_dict_string(d, "exception_type", sb_exc_type_name(s->exc_type));
	rte_tel_data_add_dict_string(d, "scheduler", s->scheduler);
	rte_tel_data_add_dict_u64(d, "ports", s->n_ports);
	rte_tel_data_add_dict_u64(d, "peers", sb_snap_n_peers(s));
	rte_tel_data_add_dict_u64(d, "reorder_timeout_us", s->reorder_timeout_us);
	rte_tel_data_add_dict_u64(d, "hello_interval_ms", s->hello_interval_ms);
	rte_tel_data_add_dict_u64(d, "auth", s->auth);
	for (i = 0; i < s->n_keys; i++)
		if (s->key[i].send)
			rte_tel_data_add_dict_string(d, "key_send_fp",
				sb_keyfile_fp_hex(s->key[i].fp, fp));
	if (s->auth) {
		/* Refused frames a second per port, and the ports under alarm (a bit each). */
		uint64_t alarm = 0;

		for (i = 0; i < s->n_ports; i++) {
			char name[40];

			snprintf(name, sizeof(name), "port%u_auth_refused_per_s", i);
			rte_tel_data_add_dict_u64(d, name, s->port[i].auth_refused_per_s);
			if (s->port[i].auth_alarm)
				alarm |= UINT64_C(1) << i;
		}
		rte_tel_data_add_dict_u64(d, "auth_alarm_ports", alarm);
	}
	sb_dp_stats_foreach(&s->stats, add_u64, d);
	rte_tel_data_add_dict_u64(d, "exc_pending", s->exc_pending);
	rte_tel_data_add_dict_u64(d, "exc_queued", s->exc_queued);
	sb_exc_stats_foreach(&s->exc, add_u64, d);
	free(cfg);
	give_back(s);
	return 0;
}

/* /seqbond/config: every key of the key table with its value, "SECTION/KEY" ("portN/KEY"
 * for each port), as `show config` prints them. */
static int
tel_config(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct sb_config_key_info k;
	struct sb_ctl *ctl = pin();	/* the configuration only: no datapath snapshot */
	struct sb_config *cfg;
	char name[64], *val;
	unsigned int i, port;

	if (ctl == NULL)
		return -1;
	cfg = malloc(sizeof(*cfg));
	val = malloc(SB_DEVARGS_LEN);
	if (cfg == NULL || val == NULL) {
		free(cfg);
		free(val);
		unpin();
		return -ENOMEM;
	}
	sb_ctl_config(ctl, cfg);
	rte_tel_data_start_dict(d);
	for (i = 0; sb_config_key(i, &k) == 0; i++) {
		if (k.section != SB_CONFIG_PORT) {
			sb_config_value(cfg, i, 0, val, SB_DEVARGS_LEN);
			snprintf(name, sizeof(name), "%s/%s", sb_config_section_name(k.section),
				k.name);
			rte_tel_data_add_dict_string(d, name, val);
			continue;
		}
		for (port = 0; sb_config_value(cfg, i, port, val, SB_DEVARGS_LEN) == 0; port++) {
			snprintf(name, sizeof(name), "port%u/%s", port, k.name);
			rte_tel_data_add_dict_string(d, name, val);
		}
	}
	free(val);
	free(cfg);
	unpin();
	return 0;
}

static int
tel_peers(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	struct list_params lp;
	unsigned int i, k = 0;

	if (s == NULL)
		return -1;
	if (list_params(s, params, &lp) != 0) {
		give_back(s);
		return -EINVAL;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		struct rte_tel_data *c;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], name[16];

		if ((lp.peer != -1 && lp.peer != (int)i) || !sb_snap_peer_used(s, i))
			continue;
		if (!on_page(&lp, k++, PAGE_PEERS))
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
		rte_tel_data_add_dict_u64(c, "paths_in_stripe", p->n_usable);
		rte_tel_data_add_dict_u64(c, "hello_interval_ms", p->interval_ms);
		rte_tel_data_add_dict_u64(c, "tx_seq_next", s->peer[i].tx_seq);
		rte_tel_data_add_dict_u64(c, "rx_seq_next", s->peer[i].rx_next_seq);
		rte_tel_data_add_dict_u64(c, "restarts", p->restarts);
		rte_tel_data_add_dict_u64(c, "claims_refused", p->claims_refused);
		/* With a cluster key: the key id it sends with and the one it took from us
		 * last (-1: none yet). A rollover is done when these agree everywhere. */
		if (s->auth) {
			rte_tel_data_add_dict_int(c, "key_sends", s->peer[i].key_sends ==
				SB_DP_KEY_NONE ? -1 : (int)s->peer[i].key_sends);
			rte_tel_data_add_dict_int(c, "key_acked", s->peer[i].key_acked ==
				SB_DP_KEY_NONE ? -1 : (int)s->peer[i].key_acked);
		}
		/* A second host with this host id (struct sb_peer_dup), refused. */
		rte_tel_data_add_dict_u64(c, "dup_host_id", p->dup.active);
		if (p->dup.active) {
			rte_ether_format_addr(mac, sizeof(mac),
				(const struct rte_ether_addr *)p->dup.agg_mac);
			rte_tel_data_add_dict_string(c, "dup_mac", mac);
			rte_ether_format_addr(mac, sizeof(mac),
				(const struct rte_ether_addr *)p->dup.port_mac);
			rte_tel_data_add_dict_string(c, "dup_port_mac", mac);
			rte_tel_data_add_dict_u64(c, "dup_port", p->dup.local_port);
			rte_tel_data_add_dict_u64(c, "dup_instance", p->dup.instance);
			rte_tel_data_add_dict_u64(c, "dup_hellos", p->dup.hellos);
		}
		snprintf(name, sizeof(name), "%u", p->host_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	page_footer(d, &lp, k, PAGE_PEERS);
	give_back(s);
	return 0;
}

static void
add_str(const char *name, const char *v, void *arg)
{
	rte_tel_data_add_dict_string(arg, name, v);
}

static int
tel_paths(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	struct list_params lp;
	unsigned int i, j, k = 0;

	if (s == NULL)
		return -1;
	if (list_params(s, params, &lp) != 0) {
		give_back(s);
		return -EINVAL;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];

		if ((lp.peer != -1 && lp.peer != (int)i) || !sb_snap_peer_used(s, i))
			continue;
		for (j = 0; j < p->n_paths; j++) {
			struct sb_path_info pi;
			struct rte_tel_data *c;
			char name[32];

			if (!on_page(&lp, k++, PAGE_PATHS) || sb_dp_path_info(s, i, j, &pi) != 0)
				continue;
			c = rte_tel_data_alloc();
			if (c == NULL)
				break;
			rte_tel_data_start_dict(c);
			sb_dp_path_info_foreach(&pi, add_u64, add_str, c);
			snprintf(name, sizeof(name), "peer%u_path%u", p->host_id, j);
			rte_tel_data_add_dict_container(d, name, c, 0);
		}
	}
	page_footer(d, &lp, k, PAGE_PATHS);
	give_back(s);
	return 0;
}

/* One direction's histogram into dict @p c: DIR_us_lt_N per bucket (DIR_us_ge_N the last),
 * DIR_p50_us and DIR_p99_us (bucket bounds; UINT32_MAX: beyond the last). Telemetry nests
 * one level only, so the buckets are keys, not an array. */
static void
lat_add(struct rte_tel_data *c, const char *dir, const uint64_t *h)
{
	char name[48];
	unsigned int k;

	for (k = 0; k < SB_DP_LAT_BUCKETS; k++) {
		if (k + 1 < SB_DP_LAT_BUCKETS)
			snprintf(name, sizeof(name), "%s_us_lt_%u", dir, 1u << k);
		else
			snprintf(name, sizeof(name), "%s_us_ge_%u", dir, 1u << (k - 1));
		rte_tel_data_add_dict_u64(c, name, h[k]);
	}
	snprintf(name, sizeof(name), "%s_p50_us", dir);
	rte_tel_data_add_dict_u64(c, name, sb_dp_lat_pct_us(h, 50));
	snprintf(name, sizeof(name), "%s_p99_us", dir);
	rte_tel_data_add_dict_u64(c, name, sb_dp_lat_pct_us(h, 99));
}

static int
tel_latency(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	struct list_params lp;
	unsigned int i, k = 0;

	if (s == NULL)
		return -1;
	if (list_params(s, params, &lp) != 0) {
		give_back(s);
		return -EINVAL;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		struct rte_tel_data *c;
		char name[24];

		if ((lp.peer != -1 && lp.peer != (int)i) || !sb_snap_peer_used(s, i))
			continue;
		if (!on_page(&lp, k++, PAGE_LATENCY))
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		lat_add(c, "wire_to_sb0", s->peer[i].lat_wire_sb0);
		lat_add(c, "sb0_to_wire", s->peer[i].lat_sb0_wire);
		snprintf(name, sizeof(name), "%u", s->peers.peer[i].host_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	page_footer(d, &lp, k, PAGE_LATENCY);
	give_back(s);
	return 0;
}

static int
tel_reorder(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	struct list_params lp;
	unsigned int i, k = 0;

	if (s == NULL)
		return -1;
	if (list_params(s, params, &lp) != 0) {
		give_back(s);
		return -EINVAL;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->peers.n_peers; i++) {
		struct rte_tel_data *c;
		char name[24];

		if ((lp.peer != -1 && lp.peer != (int)i) || !sb_snap_peer_used(s, i))
			continue;
		if (!on_page(&lp, k++, PAGE_PEERS))
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		sb_reorder_stats_foreach(&s->peer[i].reorder, s->hz, add_u64, c);
		rte_tel_data_add_dict_u64(c, "hold_now_us", s->peer[i].hold_now * 1000000 / s->hz);
		rte_tel_data_add_dict_u64(c, "timeout_us", s->peer[i].timeout * 1000000 / s->hz);
		rte_tel_data_add_dict_u64(c, "delay_spread_us", s->peer[i].delay_spread_us);
		snprintf(name, sizeof(name), "%u", s->peers.peer[i].host_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	page_footer(d, &lp, k, PAGE_PEERS);
	give_back(s);
	return 0;
}

static int
tel_lcores(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct sb_ctl *ctl;
	struct sb_snapshot *s = take(&ctl);
	unsigned int k, i;

	if (s == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	for (k = 0; k < s->n_workers; k++) {
		const struct sb_snap_worker *w = &s->worker[k];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[24], ports[64] = "";
		size_t len;

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "lcore", w->lcore);
		rte_tel_data_add_dict_string(c, "role", sb_dp_role_str(w->role));
		/* DPDK 22.11 nests containers one level only: the ports as text. */
		for (i = 0, len = 0; i < w->n_ports && len < sizeof(ports); i++)
			len += snprintf(ports + len, sizeof(ports) - len, "%s%u", i ? "," : "",
				w->ports[i]);
		rte_tel_data_add_dict_string(c, "rx_ports", ports);
		rte_tel_data_add_dict_u64(c, "rx_peers", w->n_peers);
		rte_tel_data_add_dict_u64(c, "busy_permille",
			(uint64_t)(sb_snap_worker_busy_pct(w) * 10));
		rte_tel_data_add_dict_u64(c, "loops", w->loops);
		snprintf(name, sizeof(name), "worker%u", k);
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
		"seqbond host settings, datapath and exception path counters. No parameters");
	ret |= rte_telemetry_register_cmd("/seqbond/config", tel_config,
		"seqbond configuration: every key with its value, as show config. No parameters");
	ret |= rte_telemetry_register_cmd("/seqbond/peers", tel_peers,
		"seqbond peers. Params: [PEER|all][,PAGE]");
	ret |= rte_telemetry_register_cmd("/seqbond/paths", tel_paths,
		"seqbond paths: state, stripe, loss, delay. Params: [PEER|all][,PAGE]");
	ret |= rte_telemetry_register_cmd("/seqbond/lcores", tel_lcores,
		"seqbond datapath lcores: role, rx ports, peers, busy share. No parameters");
	ret |= rte_telemetry_register_cmd("/seqbond/latency", tel_latency,
		"seqbond's added latency per peer: frames per bucket, p50/p99 (us), "
		"wire_to_sb0 and sb0_to_wire. Params: [PEER|all][,PAGE]");
	ret |= rte_telemetry_register_cmd("/seqbond/reorder", tel_reorder,
		"seqbond reorder windows. Params: [PEER|all][,PAGE]");
	return ret == 0 ? 0 : -EINVAL;
}
