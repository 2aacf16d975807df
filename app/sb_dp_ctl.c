/* SPDX-License-Identifier: BSD-3-Clause */
/* Datapath housekeeping on the lcore: hellos in and out, path liveness, peer events, and
 * the lcore loop itself with its idle backoff. */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "sb_ctl.h"
#include "sb_dp.h"
#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_peer_logtype, peer, INFO);
#define PEER_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_peer_logtype, "seqbond.peer: " fmt "\n", ##__VA_ARGS__)

void sb_dp_hello_input(struct sb_dp *dp, struct sb_dp_port *p, struct rte_mbuf *m,
	uint64_t now);

static void
free_mbuf(void *obj, void *arg __rte_unused)
{
	rte_pktmbuf_free(obj);
}

static void
peer_event(struct sb_dp *dp, const struct sb_peer_event *ev)
{
	const struct sb_peer *peer = &dp->peers.peer[ev->peer];
	struct sb_dp_peer *dpeer = &dp->dpeer[ev->peer];
	const struct sb_path *path = &peer->path[ev->path];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int j;

	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)peer->agg_mac);
	switch (ev->type) {
	case SB_PEER_EV_NEW:
		PEER_LOG(INFO, "peer %u (%s) discovered", peer->host_id, mac);
		dpeer->tx_seq = dp->cfg->initial_seq_set ? dp->cfg->initial_seq :
			(uint32_t)rte_rand();
		dpeer->ready = true;
		break;
	case SB_PEER_EV_RESTART:
		/* Its sequence numbers start afresh: forget what we held for it. */
		PEER_LOG(NOTICE, "peer %u (%s) restarted: reorder window reset", peer->host_id,
			mac);
		sb_reorder_reset(dpeer->reorder, free_mbuf, NULL);
		for (j = 0; j < SB_PEER_MAX_PATHS; j++)
			sb_reorder_path_set_active(dpeer->reorder, j, false);
		break;
	case SB_PEER_EV_PATH_UP:
		sb_reorder_path_set_active(dpeer->reorder, ev->path, true);
		PEER_LOG(INFO, "peer %u path %u up (port %u <-> peer port %u, %u kbit/s)",
			peer->host_id, ev->path, path->local_port, path->remote_port,
			path->remote_rate_kbps);
		break;
	case SB_PEER_EV_PATH_DOWN:
		sb_reorder_path_set_active(dpeer->reorder, ev->path, false);
		PEER_LOG(NOTICE, "peer %u path %u down (port %u <-> peer port %u)",
			peer->host_id, ev->path, path->local_port, path->remote_port);
		break;
	case SB_PEER_EV_AGG_MAC:
		PEER_LOG(NOTICE, "peer %u now has aggregate MAC %s", peer->host_id, mac);
		break;
	default:
		break;
	}
}

void
sb_dp_hello_input(struct sb_dp *dp, struct sb_dp_port *p, struct rte_mbuf *m, uint64_t now)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	struct sb_peer_event ev[4];
	struct sb_hello h;
	unsigned int i, n_ev;

	if (sb_wire_hello_decode(buf + SB_HDR_LEN, rte_pktmbuf_data_len(m) - SB_HDR_LEN, &h) !=
			SB_WIRE_OK) {
		dp->stats.rx_err[SB_WIRE_E_HELLO]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (sb_peer_hello_rx(&dp->peers, p->index, buf + SB_ETH_ALEN, &h, now, ev, &n_ev) < 0)
		dp->stats.rx_hello_rejected++;
	for (i = 0; i < n_ev; i++)
		peer_event(dp, &ev[i]);
	rte_pktmbuf_free(m);
}

static void
hello_send(struct sb_dp *dp, struct sb_dp_port *p)
{
	struct sb_hello h = {
		.host_id = dp->cfg->host_id,
		.instance = dp->instance,
		.port_index = p->index,
		.n_ports = dp->n_ports,
		.rate_kbps = (uint32_t)(p->rate_bps / 1000),
		.interval_ms = dp->hello_interval_ms,
		.mtu = p->mtu,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp->mp);
	uint8_t *buf;

	if (m == NULL) {
		dp->stats.tx_nombuf++;
		return;
	}
	memcpy(h.agg_mac, dp->cfg->mac, SB_ETH_ALEN);
	buf = (uint8_t *)rte_pktmbuf_append(m, SB_HDR_LEN + SB_HELLO_LEN);
	sb_wire_put_hello(buf, p->mac, p->index, &h);
	if (sb_txq_put(&p->txq, m, &dp->stats.tx_queue_drop))
		dp->stats.tx_hello++;
}

void
sb_dp_housekeeping(struct sb_dp *dp, uint64_t now)
{
	static const uint64_t link_poll_ms = 10;
	struct sb_peer_event ev[16];
	unsigned int i, n;

	if (dp->cmd_ring != NULL) {
		struct sb_cmd *cmd;

		while (rte_ring_sc_dequeue(dp->cmd_ring, (void **)&cmd) == 0)
			sb_dp_cmd_apply(dp, cmd, now);
	}
	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &dp->port[i];
		bool up;

		if (!p->admin_up)
			continue;

		/* Carrier loss is the fastest failure signal we get; hellos cover the rest. */
		if (now - dp->last_link_poll >= link_poll_ms * dp->hz / 1000) {
			up = sb_port_link_up(p->port_id);
			if (up != (bool)p->link_up) {
				p->link_up = up;
				PEER_LOG(NOTICE, "port %u link %s", p->index, up ? "up" : "down");
				if (!up) {
					n = sb_peer_port_down(&dp->peers, p->index, ev,
						RTE_DIM(ev));
					while (n > 0)
						peer_event(dp, &ev[--n]);
				}
			}
		}
		if (now >= dp->next_hello && p->link_up)
			hello_send(dp, p);
	}
	if (now - dp->last_link_poll >= link_poll_ms * dp->hz / 1000)
		dp->last_link_poll = now;
	if (now >= dp->next_hello) {
		/* Keep the cadence (peers judge loss by it); re-anchor after a stall. */
		dp->next_hello += dp->hello_period;
		if (dp->next_hello <= now)
			dp->next_hello = now + dp->hello_period;
	}

	n = sb_peer_tick(&dp->peers, now, ev, RTE_DIM(ev));
	for (i = 0; i < n; i++)
		peer_event(dp, &ev[i]);
}

static void
port_down(struct sb_dp *dp, struct sb_dp_port *p)
{
	struct sb_peer_event ev[SB_MAX_PEERS];
	unsigned int n;

	rte_pktmbuf_free_bulk(p->txq.m, p->txq.n);
	dp->stats.tx_queue_drop += p->txq.n;
	p->txq.n = 0;
	n = sb_peer_port_down(&dp->peers, p->index, ev, RTE_DIM(ev));
	while (n > 0)
		peer_event(dp, &ev[--n]);
}

static void
snapshot(struct sb_dp *dp, struct sb_snapshot *snap, uint64_t now)
{
	unsigned int i;

	snap->hz = dp->hz;
	snap->tsc = now;
	strlcpy(snap->scheduler, dp->sched_ops->name, sizeof(snap->scheduler));
	snap->reorder_timeout_us = dp->reorder_timeout * 1000000 / dp->hz;
	snap->hello_interval_ms = dp->hello_interval_ms;
	snap->stats = dp->stats;
	snap->n_ports = dp->n_ports;
	for (i = 0; i < dp->n_ports; i++) {
		const struct sb_dp_port *p = &dp->port[i];
		uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);

		snap->port[i] = (struct sb_snap_port){
			.port_id = p->port_id, .link_up = p->link_up, .admin_up = p->admin_up,
			.rate_bps = p->rate_bps, .tx_frames = p->tx_frames, .tx_bytes = p->tx_bytes,
			.busy_ns = p->busy_until_ns > now_ns ? p->busy_until_ns - now_ns : 0,
		};
	}
	snap->peers = dp->peers;
	for (i = 0; i < dp->peers.n_peers; i++) {
		const struct sb_dp_peer *dpeer = &dp->dpeer[i];
		struct sb_snap_peer *sp = &snap->peer[i];

		sp->tx_seq = dpeer->tx_seq;
		sp->rx_next_seq = sb_reorder_next_seq(dpeer->reorder);
		memcpy(sp->path_tx, dpeer->path_tx, sizeof(sp->path_tx));
		memcpy(sp->path_tx_bytes, dpeer->path_tx_bytes, sizeof(sp->path_tx_bytes));
		memcpy(sp->path_rx, dpeer->path_rx, sizeof(sp->path_rx));
		memcpy(sp->path_rx_bytes, dpeer->path_rx_bytes, sizeof(sp->path_rx_bytes));
		sb_reorder_stats_get(dpeer->reorder, &sp->reorder);
		sp->hold_now = sb_reorder_hold_now(dpeer->reorder, now);
	}
}

static int
set_scheduler(struct sb_dp *dp, const struct sb_sched_ops *ops)
{
	struct sb_sched_view empty = { .n_paths = 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < SB_MAX_PEERS; i++) {
		struct sb_dp_peer *dpeer = &dp->dpeer[i];

		sb_sched_fini(&dpeer->sched);
		ret = sb_sched_init(&dpeer->sched, ops, &empty);
		if (ret != 0) {
			/* Fall back to the previous policy so every peer keeps one. */
			while (i-- > 0) {
				sb_sched_fini(&dp->dpeer[i].sched);
				sb_sched_init(&dp->dpeer[i].sched, dp->sched_ops, &empty);
			}
			sb_sched_init(&dpeer->sched, dp->sched_ops, &empty);
			return ret;
		}
	}
	dp->sched_ops = ops;
	return 0;
}

void
sb_dp_cmd_apply(struct sb_dp *dp, struct sb_cmd *cmd, uint64_t now)
{
	struct sb_dp_port *p = cmd->port < dp->n_ports ? &dp->port[cmd->port] : NULL;
	unsigned int i, j;
	int ret = 0;

	switch (cmd->type) {
	case SB_CMD_SNAPSHOT:
		snapshot(dp, cmd->snap, now);
		break;
	case SB_CMD_SET_SCHED:
		ret = set_scheduler(dp, cmd->ops);
		break;
	case SB_CMD_SET_PORT_RATE:
		if (p == NULL || cmd->value == 0)
			ret = -EINVAL;
		else
			p->rate_bps = cmd->value;
		break;
	case SB_CMD_PORT_ADMIN:
		if (p == NULL) {
			ret = -EINVAL;
		} else if (!!cmd->value == p->admin_up) {
			ret = -EALREADY;
		} else if (cmd->value) {
			p->admin_up = 1;
			p->link_up = sb_port_link_up(p->port_id);
			PEER_LOG(NOTICE, "port %u started by the operator", p->index);
		} else {
			p->admin_up = 0;
			port_down(dp, p);
			PEER_LOG(NOTICE, "port %u stopped by the operator", p->index);
		}
		break;
	case SB_CMD_SET_REORDER_TIMEOUT:
		dp->reorder_timeout = cmd->value;
		for (i = 0; i < SB_MAX_PEERS; i++)
			sb_reorder_set_timeout(dp->dpeer[i].reorder, cmd->value);
		break;
	case SB_CMD_SET_HELLO_INTERVAL:
		dp->hello_interval_ms = cmd->value;
		dp->hello_period = cmd->value * dp->hz / 1000;
		dp->next_hello = now;
		break;
	case SB_CMD_CLEAR_PORT_STATS:
		for (i = 0; i < dp->n_ports; i++) {
			if (cmd->port != UINT32_MAX && cmd->port != i)
				continue;
			dp->port[i].tx_frames = 0;
			dp->port[i].tx_bytes = 0;
			for (j = 0; j < dp->peers.n_peers; j++) {
				const struct sb_peer *peer = &dp->peers.peer[j];
				struct sb_dp_peer *dpeer = &dp->dpeer[j];
				unsigned int k;

				for (k = 0; k < peer->n_paths; k++) {
					if (peer->path[k].local_port != i)
						continue;
					dpeer->path_tx[k] = dpeer->path_tx_bytes[k] = 0;
					dpeer->path_rx[k] = dpeer->path_rx_bytes[k] = 0;
				}
			}
		}
		break;
	default:
		ret = -ENOTSUP;
		break;
	}
	cmd->result = ret;
	__atomic_store_n(&cmd->done, true, __ATOMIC_RELEASE);
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

	if (dp->max_batch >= dp->cfg->burst / 2 || dp->cfg->idle_sleep_max_us == 0) {
		*nap_us = 0;
		return;
	}
	if (*nap_us < dp->cfg->idle_sleep_max_us)
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
sb_dp_create(const struct sb_config *cfg, struct rte_mempool *mp, const uint16_t *port_ids,
	struct sb_exc *exc, uint16_t exc_mtu, bool *stop)
{
	struct sb_reorder_conf rc = {
		.window = cfg->reorder_window,
		.late_policy = cfg->late_policy,
	};
	struct sb_sched_view empty = { .n_paths = 0 };
	struct sb_dp *dp;
	unsigned int i;
	int ret;

	dp = rte_zmalloc("seqbond_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dp->cfg = cfg;
	dp->mp = mp;
	dp->hz = rte_get_tsc_hz();
	dp->reorder_timeout = (uint64_t)cfg->reorder_timeout_us * dp->hz / 1000000;
	dp->hello_period = (uint64_t)cfg->hello_interval_ms * dp->hz / 1000;
	dp->hello_interval_ms = cfg->hello_interval_ms;
	dp->n_ports = cfg->n_ports;
	dp->exc = exc;
	dp->exc_mtu = exc_mtu;
	dp->instance = (uint32_t)rte_rand() | 1;
	dp->stop = stop;
	dp->sched_ops = sb_sched_find(cfg->scheduler);
	ret = sb_peer_table_init(&dp->peers, cfg->host_id, cfg->hello_multiplier, dp->hz);
	if (ret != 0 || dp->sched_ops == NULL)
		goto fail_inval;

	for (i = 0; i < cfg->n_ports; i++) {
		struct sb_dp_port *p = &dp->port[i];
		struct rte_ether_addr ea;
		struct rte_eth_link link;

		p->port_id = port_ids[i];
		p->index = i;
		p->mtu = cfg->port[i].mtu;
		rte_eth_macaddr_get(p->port_id, &ea);
		memcpy(p->mac, ea.addr_bytes, SB_ETH_ALEN);
		p->rate_bps = (uint64_t)cfg->port[i].rate_kbps * 1000;
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
		dpeer->view.max_backlog_ns = (uint64_t)cfg->max_backlog_us * 1000;
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
txq_drop_all(struct sb_txq *q)
{
	rte_pktmbuf_free_bulk(q->m, q->n);
	q->n = 0;
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
	for (i = 0; i < dp->n_ports; i++)
		txq_drop_all(&dp->port[i].txq);
	txq_drop_all(&dp->exc_txq);
	for (i = 0; i < SB_MAX_PEERS; i++) {
		if (dp->dpeer[i].reorder != NULL)
			sb_reorder_free(dp->dpeer[i].reorder, free_mbuf, NULL);
		if (dp->dpeer[i].sched.ops != NULL)
			sb_sched_fini(&dp->dpeer[i].sched);
	}
	rte_free(dp);
}
