/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands from the control plane, applied by the lcore between bursts, and the snapshots it
 * copies for readers. */
#include <errno.h>
#include <string.h>

#include "sb_dp_int.h"
#include "sb_port.h"

void
sb_dp_snapshot(struct sb_dp *dp, struct sb_snapshot *snap, uint64_t now)
{
	uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);
	unsigned int i, j;

	snap->hz = dp->hz;
	snap->tsc = now;
	snap->host_id = dp->conf.host_id;
	strlcpy(snap->scheduler, dp->sched_ops->name, sizeof(snap->scheduler));
	snap->reorder_timeout_us = dp->reorder_timeout * 1000000 / dp->hz;
	snap->hello_interval_ms = dp->hello_interval_ms;
	snap->stats = dp->stats;
	snap->exc_pending = dp->n_pending - dp->pending_head;
	snap->exc_queued = dp->exc_txq.n;
	snap->n_ports = dp->n_ports;
	for (i = 0; i < dp->n_ports; i++) {
		const struct sb_dp_port *p = &dp->port[i];

		snap->port[i] = (struct sb_snap_port){
			.port_id = p->port_id, .link_up = p->link_up, .admin_up = p->admin_up,
			.mtu = p->mtu, .rate_bps = p->rate_bps, .tx_frames = p->tx_frames, .tx_bytes = p->tx_bytes,
			.busy_ns = p->busy_until_ns > now_ns ? p->busy_until_ns - now_ns : 0,
		};
	}
	snap->peers = dp->peers;
	for (i = 0; i < dp->peers.n_peers; i++) {
		const struct sb_peer *peer = &dp->peers.peer[i];
		const struct sb_dp_peer *dpeer = &dp->dpeer[i];
		struct sb_snap_peer *sp = &snap->peer[i];

		sp->tx_seq = dpeer->tx_seq;
		sp->rx_next_seq = sb_reorder_next_seq(dpeer->reorder);
		for (j = 0; j < peer->n_paths; j++)
			sp->path_rate_bps[j] = sb_path_rate_bps(&peer->path[j],
				dp->port[peer->path[j].local_port].rate_bps);
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
	strlcpy(dp->conf.scheduler, ops->name, sizeof(dp->conf.scheduler));
	return 0;
}

static int
port_admin(struct sb_dp *dp, struct sb_dp_port *p, bool up, uint64_t now)
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
clear_port_stats(struct sb_dp *dp, uint32_t port)
{
	unsigned int i, j, k;

	for (i = 0; i < dp->n_ports; i++) {
		if (port != UINT32_MAX && port != i)
			continue;
		dp->port[i].tx_frames = 0;
		dp->port[i].tx_bytes = 0;
		for (j = 0; j < dp->peers.n_peers; j++) {
			const struct sb_peer *peer = &dp->peers.peer[j];
			struct sb_dp_peer *dpeer = &dp->dpeer[j];

			for (k = 0; k < peer->n_paths; k++) {
				if (peer->path[k].local_port != i)
					continue;
				dpeer->path_tx[k] = dpeer->path_tx_bytes[k] = 0;
				dpeer->path_rx[k] = dpeer->path_rx_bytes[k] = 0;
			}
		}
	}
}

static void
cmd_apply(struct sb_dp *dp, struct sb_cmd *cmd, uint64_t now)
{
	struct sb_dp_port *p = cmd->port < dp->n_ports ? &dp->port[cmd->port] : NULL;
	unsigned int i;
	int ret = 0;

	switch (cmd->type) {
	case SB_CMD_SNAPSHOT:
		sb_dp_snapshot(dp, cmd->snap, now);
		break;
	case SB_CMD_SET_SCHED:
		ret = cmd->ops != NULL ? set_scheduler(dp, cmd->ops) : -EINVAL;
		break;
	case SB_CMD_SET_PORT_RATE:
		if (p == NULL || cmd->value == 0)
			ret = -EINVAL;
		else
			p->rate_bps = cmd->value;
		break;
	case SB_CMD_PORT_ADMIN:
		ret = p != NULL ? port_admin(dp, p, cmd->value != 0, now) : -EINVAL;
		break;
	case SB_CMD_SET_REORDER_TIMEOUT:
		if (cmd->value == 0) {
			ret = -EINVAL;
			break;
		}
		dp->conf.reorder_timeout_us = cmd->value;
		dp->reorder_timeout = cmd->value * dp->hz / 1000000;
		for (i = 0; i < SB_MAX_PEERS; i++)
			sb_reorder_set_timeout(dp->dpeer[i].reorder, dp->reorder_timeout);
		break;
	case SB_CMD_SET_HELLO_INTERVAL:
		if (cmd->value == 0 || cmd->value > UINT16_MAX) {
			ret = -EINVAL;
			break;
		}
		dp->conf.hello_interval_ms = cmd->value;
		dp->hello_interval_ms = cmd->value;
		dp->hello_period = cmd->value * dp->hz / 1000;
		dp->next_hello = now;
		break;
	case SB_CMD_CLEAR_PORT_STATS:
		if (cmd->port != UINT32_MAX && p == NULL)
			ret = -EINVAL;
		else
			clear_port_stats(dp, cmd->port);
		break;
	default:
		ret = -ENOTSUP;
		break;
	}
	cmd->result = ret;
	__atomic_store_n(&cmd->done, true, __ATOMIC_RELEASE);
}

void
sb_dp_cmd_drain(struct sb_dp *dp, uint64_t now)
{
	struct sb_cmd *cmd;

	while (rte_ring_sc_dequeue(dp->cmd_ring, (void **)&cmd) == 0)
		cmd_apply(dp, cmd, now);
}

struct rte_ring *
sb_dp_cmd_ring(struct sb_dp *dp)
{
	return dp->cmd_ring;
}
