/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands from the control plane, applied by each worker between bursts, and the snapshots
 * the workers copy for readers. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ethdev.h>

#include "sb_dp_int.h"
#include "sb_port.h"

static void
stats_add(struct sb_dp_stats *sum, const struct sb_dp_stats *st)
{
	uint64_t *d = (uint64_t *)sum;
	const uint64_t *s = (const uint64_t *)st;
	unsigned int i;

	/* Every field is a uint64_t counter (sb_dp.h). */
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* A port back in service: what its ring held while it was out (hellos and DATA of seconds
 * ago) is stale, and in one burst would look like a flood to the hello check budget and
 * like replays to the window of packet numbers. Dropped and counted. */
static void
stale_drop(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int index)
{
	struct rte_mbuf *m[SB_BURST_MAX];
	uint64_t total = 0;
	uint16_t n;

	while ((n = rte_eth_rx_burst(dp->conf.port[index].port_id, 0, m, RTE_DIM(m))) > 0) {
		rte_pktmbuf_free_bulk(m, n);
		total += n;
	}
	rx->stats->rx += total;
	rx->stats->rx_port_stopped_drop += total;
	if (total != 0)
		DP_LOG(INFO, "port %u: %" PRIu64 " frames received while it was stopped "
			"discarded", index, total);
}

static void
snapshot_tx(struct sb_dp *dp, struct sb_snapshot *snap, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);
	struct sb_exc_info ei;
	unsigned int i, j;

	strlcpy(snap->scheduler, tx->sched_ops->name, sizeof(snap->scheduler));
	snap->auth = dp->auth;
	snap->n_keys = dp->auth ? tx->keyring->n_keys : 0;
	for (i = 0; i < snap->n_keys; i++) {
		snap->key[i].id = tx->keyring->key[i].id;
		snap->key[i].send = i == tx->keyring->send;
		memcpy(snap->key[i].fp, tx->key_fp[i], SB_AUTH_FP_LEN);
	}
	snap->replay_streams = 0;
	for (i = 0; dp->auth && i < SB_AUTH_REPLAY_SLOTS; i++)
		snap->replay_streams += tx->replay.slot[i].s.host_id != 0;
	snap->replay_replaced = tx->replay.replaced;
	snap->adaptive_rate = tx->adaptive_rate;
	snap->hello_interval_ms = tx->hello_interval_ms;
	snap->exc_pending = tx->n_pending - tx->pending_head + tx->n_held;
	/* The exception path's counters: its own, read with relaxed loads (sb_exception.h). */
	sb_exc_info_get(dp->exc, &ei);
	snap->exc_type = ei.type;
	sb_exc_stats_get(dp->exc, &snap->exc);
	for (i = 0; i < dp->n_ports; i++) {
		const struct sb_dp_port *p = &tx->port[i];

		snap->port[i] = (struct sb_snap_port){
			.port_id = p->port_id, .link_up = p->link_up, .admin_up = p->admin_up,
			.mtu = p->mtu, .rate_bps = p->rate_bps, .tx_frames = p->tx_frames,
			.tx_bytes = p->tx_bytes,
			.busy_ns = p->busy_until_ns > now_ns ? p->busy_until_ns - now_ns : 0,
			.auth_refused_per_s = tx->refused_per_s[i],
			.auth_alarm = tx->alarm[i],
		};
	}
	snap->peers = tx->peers;
	for (i = 0; i < tx->peers.n_peers; i++) {
		const struct sb_peer *peer = &tx->peers.peer[i];
		const struct sb_dp_tx_peer *tp = &tx->peer[i];
		struct sb_snap_peer *sp = &snap->peer[i];

		sp->tx_seq = tp->tx_seq;
		sp->key_sends = dp->auth ? tp->key_sends : SB_DP_KEY_NONE;
		sp->key_acked = dp->auth ? tp->key_acked : SB_DP_KEY_NONE;
		for (j = 0; j < peer->n_paths; j++)
			sp->path_rate_bps[j] = sb_dp_path_rate_bps(tx, i, j);
		memcpy(sp->est, tp->est, sizeof(sp->est));
		memcpy(sp->path_tx, tp->path_tx, sizeof(sp->path_tx));
		memcpy(sp->path_tx_bytes, tp->path_tx_bytes, sizeof(sp->path_tx_bytes));
		memcpy(sp->lat_sb0_wire, tp->lat, sizeof(sp->lat_sb0_wire));
	}
}

static void
snapshot_rx(struct sb_dp *dp, struct sb_dp_rx *rx, struct sb_snapshot *snap, uint64_t now,
	struct sb_snap_worker *sw)
{
	unsigned int i;

	snap->reorder_timeout_us = rx->reorder_timeout * 1000000 / dp->hz;
	snap->exc_queued += rx->exc_txq.n;
	sw->n_ports = rx->n_ports;
	memcpy(sw->ports, rx->ports, sizeof(sw->ports));
	/* Summed over RX workers as the counters are (sb_dp_snapshot() adds). */
	sb_reorder_stats_add(&snap->reorder_gone, &rx->reorder_gone);
	for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx) {
		const struct sb_dp_rx_peer *rp = &dp->rx_peer[i];
		struct sb_snap_peer *sp = &snap->peer[i];

		if (rx->map.peer[i].host_id == 0)
			continue;	/* a free slot: its peer left the table */
		sw->n_peers++;
		memcpy(sp->path_rx, rp->path_rx, sizeof(sp->path_rx));
		memcpy(sp->path_rx_bytes, rp->path_rx_bytes, sizeof(sp->path_rx_bytes));
		memcpy(sp->path_data, rp->data, sizeof(sp->path_data));
		memcpy(sp->lat_wire_sb0, rp->lat, sizeof(sp->lat_wire_sb0));
		if (rp->reorder == NULL)
			continue;
		sp->rx_next_seq = sb_reorder_next_seq(rp->reorder);
		sb_reorder_stats_get(rp->reorder, &sp->reorder);
		sp->hold_now = sb_reorder_hold_now(rp->reorder, now);
		sp->timeout = sb_dp_rx_hold(dp, rx, rp);
		sp->delay_spread_us = __atomic_load_n(&rp->delay_spread_us, __ATOMIC_RELAXED);
	}
}

void
sb_dp_snapshot(struct sb_dp *dp, unsigned int k, struct sb_snapshot *snap, uint64_t now)
{
	struct sb_dp_worker *w = &dp->worker[k];
	struct sb_snap_worker *sw = &snap->worker[k];

	snap->hz = dp->hz;
	snap->tsc = now;
	snap->host_id = dp->conf.host_id;
	snap->n_ports = dp->n_ports;
	snap->n_workers = dp->n_workers;
	stats_add(&snap->stats, &w->stats);
	*sw = (struct sb_snap_worker){
		.lcore = w->lcore, .role = w->role, .busy_cycles = w->busy_cycles,
		.total_cycles = w->total_cycles, .loops = w->stats.loops,
	};
	if (w->tx != NULL)
		snapshot_tx(dp, snap, now);
	if (w->rx != NULL)
		snapshot_rx(dp, w->rx, snap, now, sw);
}

static int
set_scheduler(struct sb_dp_tx *tx, const struct sb_sched_ops *ops)
{
	struct sb_sched_view empty = { .n_paths = 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < SB_MAX_PEERS; i++) {
		struct sb_dp_tx_peer *tp = &tx->peer[i];

		sb_sched_fini(&tp->sched);
		ret = sb_sched_init(&tp->sched, ops, &empty);
		if (ret != 0) {
			/* Fall back to the previous policy so every peer keeps one. */
			while (i-- > 0) {
				sb_sched_fini(&tx->peer[i].sched);
				sb_sched_init(&tx->peer[i].sched, tx->sched_ops, &empty);
			}
			sb_sched_init(&tp->sched, tx->sched_ops, &empty);
			return ret;
		}
	}
	tx->sched_ops = ops;
	return 0;
}

static int
port_admin_tx(struct sb_dp *dp, struct sb_dp_port *p, bool up, uint64_t now)
{
	if (up == (bool)p->admin_up)
		return -EALREADY;
	if (up) {
		p->admin_up = 1;
		p->link_up = sb_port_link_up(p->port_id);
		DP_LOG(NOTICE, "port %u started by the operator", p->index);
	} else {
		p->admin_up = 0;
		sb_dp_port_down(dp, p, now);
		DP_LOG(NOTICE, "port %u stopped by the operator", p->index);
	}
	return 0;
}

static void
clear_port_stats_tx(struct sb_dp *dp, uint32_t port)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int i, j, k;

	for (i = 0; i < dp->n_ports; i++) {
		if (port != UINT32_MAX && port != i)
			continue;
		tx->port[i].tx_frames = 0;
		tx->port[i].tx_bytes = 0;
		for (j = 0; j < tx->peers.n_peers; j++) {
			const struct sb_peer *peer = &tx->peers.peer[j];

			for (k = 0; k < peer->n_paths; k++)
				if (peer->path[k].local_port == i)
					tx->peer[j].path_tx[k] = tx->peer[j].path_tx_bytes[k] = 0;
		}
	}
}

/* The paths over @p port of the peers this worker owns (all ports: UINT32_MAX). */
static void
clear_port_stats_rx(struct sb_dp *dp, struct sb_dp_rx *rx, uint32_t port)
{
	unsigned int i, k, lp, rp;

	for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx) {
		const struct sb_peer_map_peer *mp = &rx->map.peer[i];

		for (rp = 0; rp < SB_MAX_PORTS; rp++)
			for (lp = 0; lp < SB_MAX_PORTS; lp++) {
				k = (unsigned int)mp->path_of[rp][lp];
				if (mp->path_of[rp][lp] < 0 || (port != UINT32_MAX && port != lp))
					continue;
				dp->rx_peer[i].path_rx[k] = dp->rx_peer[i].path_rx_bytes[k] = 0;
			}
	}
}

/* set port N rate: the port stage's rate, and the cap of every path estimate over the port
 * (an estimate at its old cap follows the new one). */
static void
set_port_rate(struct sb_dp_tx *tx, unsigned int port, uint64_t rate_bps)
{
	struct sb_dp_port *p = &tx->port[port];
	unsigned int i, j;

	p->rate_bps = rate_bps;
	p->rate_start_bps = rate_bps;
	p->rate_configured = 1;
	for (i = 0; i < tx->peers.n_peers; i++)
		for (j = 0; j < tx->peers.peer[i].n_paths; j++)
			if (tx->peers.peer[i].path[j].local_port == port &&
					tx->peer[i].est[j].cap_bps != 0)
				sb_path_est_set_cap(&tx->peer[i].est[j], &tx->est_conf,
					sb_path_rate_bps(&tx->peers.peer[i].path[j], rate_bps));
}

static void
cmd_apply(struct sb_dp_worker *w, struct sb_cmd *cmd, uint64_t now)
{
	struct sb_dp *dp = w->dp;
	struct sb_dp_tx *tx = w->tx;
	struct sb_dp_rx *rx = w->rx;
	bool port_ok = cmd->port < dp->n_ports;
	unsigned int i;
	int ret = 0;

	switch (cmd->type) {
	case SB_CMD_SNAPSHOT:
		sb_dp_snapshot(dp, (unsigned int)(w - dp->worker), cmd->snap, now);
		break;
	case SB_CMD_SET_SCHED:
		if (tx != NULL)
			ret = cmd->ops != NULL ? set_scheduler(tx, cmd->ops) : -EINVAL;
		break;
	case SB_CMD_SET_PORT_RATE:
		if (!port_ok || cmd->value == 0)
			ret = -EINVAL;
		else if (tx != NULL)
			set_port_rate(tx, cmd->port, cmd->value);
		break;
	case SB_CMD_PORT_ADMIN:
		if (!port_ok) {
			ret = -EINVAL;
			break;
		}
		/* The TX side first (it answers -EALREADY), then the port's RX worker stops
		 * or resumes polling it. */
		if (tx != NULL)
			ret = port_admin_tx(dp, &tx->port[cmd->port], cmd->value != 0, now);
		if (rx != NULL && ret == 0) {
			if (cmd->value != 0 && !rx->port_admin[cmd->port])
				stale_drop(dp, rx, cmd->port);
			rx->port_admin[cmd->port] = cmd->value != 0;
			if (cmd->value == 0) {
				rte_pktmbuf_free_bulk(rx->pt_txq[cmd->port].m,
					rx->pt_txq[cmd->port].n);
				rx->pt_txq[cmd->port].n = 0;
			}
		}
		break;
	case SB_CMD_SET_REORDER_TIMEOUT:
		if (cmd->value == 0) {
			ret = -EINVAL;
			break;
		}
		if (rx == NULL)
			break;
		rx->reorder_timeout = cmd->value * dp->hz / 1000000;
		/* The new floor; the delay spread is added back at the next drain. */
		for (i = rx->id; i < SB_MAX_PEERS; i += dp->n_rx)
			if (dp->rx_peer[i].reorder != NULL) {
				sb_reorder_set_timeout(dp->rx_peer[i].reorder,
					rx->reorder_timeout);
				dp->rx_peer[i].timeout_set = rx->reorder_timeout;
			}
		break;
	case SB_CMD_SET_HELLO_INTERVAL:
		if (cmd->value == 0 || cmd->value > UINT16_MAX) {
			ret = -EINVAL;
			break;
		}
		if (tx == NULL)
			break;
		tx->hello_active_ms = cmd->value;
		if (!tx->hello_slow) {
			tx->hello_interval_ms = cmd->value;
			tx->hello_period = cmd->value * dp->hz / 1000;
			tx->next_hello = now;
		}
		break;
	case SB_CMD_SET_KEYRING:
		ret = sb_dp_auth_set_keyring(w, cmd->keyring);
		break;
	case SB_CMD_CLEAR_PORT_STATS:
		if (cmd->port != UINT32_MAX && !port_ok) {
			ret = -EINVAL;
			break;
		}
		if (tx != NULL)
			clear_port_stats_tx(dp, cmd->port);
		if (rx != NULL)
			clear_port_stats_rx(dp, rx, cmd->port);
		break;
	default:
		ret = -ENOTSUP;
		break;
	}
	cmd->result = ret;
	__atomic_store_n(&cmd->done, true, __ATOMIC_RELEASE);
}

void
sb_dp_cmd_drain(struct sb_dp_worker *w, uint64_t now)
{
	struct sb_cmd *cmd;

	while (rte_ring_sc_dequeue(w->cmd_ring, (void **)&cmd) == 0)
		cmd_apply(w, cmd, now);
}

struct rte_ring *
sb_dp_cmd_ring(struct sb_dp *dp, unsigned int k)
{
	return k < dp->n_workers ? dp->worker[k].cmd_ring : NULL;
}

unsigned int
sb_dp_cmd_workers(const struct sb_dp *dp, const struct sb_cmd *cmd, unsigned int *out)
{
	unsigned int i, n = 0;

	if (dp->n_workers == 1) {
		out[0] = 0;
		return 1;
	}
	switch (cmd->type) {
	case SB_CMD_SNAPSHOT:
	case SB_CMD_CLEAR_PORT_STATS:
	case SB_CMD_SET_KEYRING:
		for (i = 0; i < dp->n_workers; i++)
			out[n++] = i;
		break;
	case SB_CMD_PORT_ADMIN:
		out[n++] = 0;
		if (cmd->port < dp->n_ports)
			out[n++] = 1 + sb_dp_port_rx(dp, cmd->port);
		break;
	case SB_CMD_SET_REORDER_TIMEOUT:
		for (i = 1; i < dp->n_workers; i++)
			out[n++] = i;
		break;
	default:
		out[n++] = 0;	/* the TX worker */
		break;
	}
	return n;
}
