/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath lcore: create and free its state, and its loop with the load-based nap. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "sb_dp_int.h"
#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_dp_logtype, peer, INFO);

void
sb_dp_free_mbuf(void *obj, void *arg __rte_unused)
{
	rte_pktmbuf_free(obj);
}

void
sb_dp_housekeeping(struct sb_dp *dp, uint64_t now)
{
	sb_dp_cmd_drain(dp, now);
	sb_dp_hello_tick(dp, now);
}

/*
 * Nap between polls unless the last poll found a queue at least half a burst deep: an idle
 * or lightly loaded datapath then gives its core back (the machines seqbond runs on also
 * run the TCP stacks it serves), and each poll finds bigger batches. The nap grows by 1 us
 * per light poll up to idle_sleep_max_us and drops to zero at the first deep queue, as
 * Open vSwitch's PMD load-based sleep does.
 */
static void
load_based_sleep(struct sb_dp *dp, unsigned int *nap_us)
{
	struct timespec ts;

	if (dp->max_batch >= dp->conf.burst / 2 || dp->conf.idle_sleep_max_us == 0) {
		*nap_us = 0;
		return;
	}
	if (*nap_us < dp->conf.idle_sleep_max_us)
		(*nap_us)++;
	ts.tv_sec = 0;
	ts.tv_nsec = *nap_us * 1000L;
	nanosleep(&ts, NULL);
	dp->stats.idle_sleeps++;
}

int
sb_dp_lcore_main(void *arg)
{
	struct sb_dp *dp = arg;
	unsigned int nap_us = 0;
	uint64_t now, next_hk = 0, hk_period = dp->hz / 1000;

	/* Default timer slack (50 us) would stretch every short nap. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	while (!__atomic_load_n(dp->stop, __ATOMIC_RELAXED)) {
		now = rte_rdtsc();
		dp->max_batch = 0;
		sb_dp_rx_ports(dp, now);
		sb_dp_tx_exception(dp, now);
		sb_dp_flush(dp);
		if (now >= next_hk) {
			sb_dp_housekeeping(dp, now);
			next_hk = now + hk_period;
		}
		dp->stats.loops++;
		load_based_sleep(dp, &nap_us);
	}
	return 0;
}

struct sb_dp *
sb_dp_create(const struct sb_dp_conf *conf, bool *stop)
{
	struct sb_reorder_conf rc = {
		.window = conf->reorder_window,
		.late_policy = conf->late_policy,
	};
	struct sb_sched_view empty = { .n_paths = 0 };
	char name[RTE_RING_NAMESIZE];
	struct sb_peer_conf pc;
	struct sb_dp *dp;
	unsigned int i;
	int ret;

	if (conf->n_ports == 0 || conf->n_ports > SB_MAX_PORTS || conf->burst == 0 ||
			conf->burst > SB_BURST_MAX || conf->mp == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	dp = rte_zmalloc("seqbond_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dp->conf = *conf;
	dp->mp = conf->mp;
	dp->hz = rte_get_tsc_hz();
	dp->reorder_timeout = (uint64_t)conf->reorder_timeout_us * dp->hz / 1000000;
	dp->hello_period = (uint64_t)conf->hello_interval_ms * dp->hz / 1000;
	dp->hello_interval_ms = conf->hello_interval_ms;
	dp->n_ports = conf->n_ports;
	dp->exc_port = conf->exc_port;
	dp->exc_mtu = conf->exc_mtu;
	dp->instance = (uint32_t)rte_rand() | 1;
	dp->stop = stop;
	dp->sched_ops = sb_sched_find(conf->scheduler);
	dp->probe_period = (uint64_t)conf->mtu_probe_interval_ms * dp->hz / 1000;
	pc = (struct sb_peer_conf){
		.host_id = conf->host_id,
		.hz = dp->hz,
		.loss_max_ppm = conf->path_loss_max_pct * 10000,
		.loss_window_ms = conf->path_loss_window_ms,
		/* A share of fewer frames says nothing: half a window of hellos at least. */
		.loss_min_frames = RTE_MAX(20u, conf->path_loss_window_ms /
			RTE_MAX(conf->hello_interval_ms, 1u) / 2),
		.probe_dead_mult = 3,
		.probes_sent = conf->mtu_probe_interval_ms != 0,
		.on_event = sb_dp_peer_event,
		.event_arg = dp,
	};
	if (conf->hello_multiplier == 0 || conf->hello_multiplier > UINT8_MAX ||
			conf->hello_interval_ms == 0 || conf->hello_interval_ms > UINT16_MAX ||
			conf->mtu_probe_interval_ms > UINT16_MAX)
		goto fail_inval;
	ret = sb_peer_table_init(&dp->peers, &pc);
	if (ret != 0 || dp->sched_ops == NULL)
		goto fail_inval;
	/* One datapath per process today; the name only has to be unique in it. */
	snprintf(name, sizeof(name), "sb_dp_cmd_%u", conf->exc_port);
	dp->cmd_ring = rte_ring_create(name, 16, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (dp->cmd_ring == NULL)
		goto fail;

	for (i = 0; i < conf->n_ports; i++) {
		struct sb_dp_port *p = &dp->port[i];
		struct rte_ether_addr ea;
		struct rte_eth_link link;

		p->port_id = conf->port[i].port_id;
		p->index = i;
		p->mtu = conf->port[i].mtu;
		rte_eth_macaddr_get(p->port_id, &ea);
		memcpy(p->mac, ea.addr_bytes, SB_ETH_ALEN);
		p->rate_bps = (uint64_t)conf->port[i].rate_kbps * 1000;
		if (p->rate_bps == 0) {
			/* No rate configured: trust the driver's link speed, else 1 Gbit/s. */
			if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
					link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
					link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
				p->rate_bps = (uint64_t)link.link_speed * 1000000;
			else
				p->rate_bps = 1000000000ULL;
		}
		p->link_up = sb_port_link_up(p->port_id);
		p->admin_up = 1;
	}

	rc.timeout = dp->reorder_timeout;
	for (i = 0; i < SB_MAX_PEERS; i++) {
		struct sb_dp_peer *dpeer = &dp->dpeer[i];

		dpeer->reorder = sb_reorder_create(&rc);
		if (dpeer->reorder == NULL)
			goto fail;
		dpeer->view.max_backlog_ns = (uint64_t)conf->max_backlog_us * 1000;
		ret = sb_sched_init(&dpeer->sched, dp->sched_ops, &empty);
		if (ret != 0) {
			rte_errno = -ret;
			goto fail;
		}
	}
	return dp;

fail_inval:
	rte_errno = EINVAL;
fail:
	ret = rte_errno;
	sb_dp_free(dp);
	rte_errno = ret;
	return NULL;
}

static void
queue_drop_all(struct rte_mbuf **m, uint16_t *n)
{
	rte_pktmbuf_free_bulk(m, *n);
	*n = 0;
}

void
sb_dp_free(struct sb_dp *dp)
{
	unsigned int i;

	if (dp == NULL)
		return;
	for (i = dp->pending_head; i < dp->n_pending; i++)
		rte_pktmbuf_free(dp->pending[i]);
	dp->n_pending = 0;
	for (i = 0; i < dp->n_ports; i++) {
		queue_drop_all(dp->port[i].txq.m, &dp->port[i].txq.n);
		queue_drop_all(dp->port[i].ctlq.m, &dp->port[i].ctlq.n);
	}
	queue_drop_all(dp->exc_txq.m, &dp->exc_txq.n);
	for (i = 0; i < SB_MAX_PEERS; i++) {
		if (dp->dpeer[i].reorder != NULL)
			sb_reorder_free(dp->dpeer[i].reorder, sb_dp_free_mbuf, NULL);
		if (dp->dpeer[i].sched.ops != NULL)
			sb_sched_fini(&dp->dpeer[i].sched);
	}
	rte_ring_free(dp->cmd_ring);
	rte_free(dp);
}
