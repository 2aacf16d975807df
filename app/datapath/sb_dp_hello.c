/* SPDX-License-Identifier: BSD-3-Clause */
/* Hellos in and out, carrier, and what follows from them: peers found, paths up and down. */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_random.h>

#include "sb_dp_int.h"
#include "sb_port.h"

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
		DP_LOG(INFO, "peer %u (%s) discovered", peer->host_id, mac);
		dpeer->tx_seq = dp->conf.initial_seq_set ? dp->conf.initial_seq :
			(uint32_t)rte_rand();
		dpeer->ready = true;
		break;
	case SB_PEER_EV_RESTART:
		/* Its sequence numbers start afresh: forget what we held for it. */
		DP_LOG(NOTICE, "peer %u (%s) restarted: reorder window reset", peer->host_id, mac);
		sb_reorder_reset(dpeer->reorder, sb_dp_free_mbuf, NULL);
		for (j = 0; j < SB_PEER_MAX_PATHS; j++)
			sb_reorder_path_set_active(dpeer->reorder, j, false);
		break;
	case SB_PEER_EV_PATH_UP:
		sb_reorder_path_set_active(dpeer->reorder, ev->path, true);
		DP_LOG(INFO, "peer %u path %u up (port %u <-> peer port %u, %u kbit/s)",
			peer->host_id, ev->path, path->local_port, path->remote_port,
			path->remote_rate_kbps);
		break;
	case SB_PEER_EV_PATH_DOWN:
		sb_reorder_path_set_active(dpeer->reorder, ev->path, false);
		DP_LOG(NOTICE, "peer %u path %u down (port %u <-> peer port %u)",
			peer->host_id, ev->path, path->local_port, path->remote_port);
		break;
	case SB_PEER_EV_AGG_MAC:
		DP_LOG(NOTICE, "peer %u now has aggregate MAC %s", peer->host_id, mac);
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
		.host_id = dp->conf.host_id,
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
	memcpy(h.agg_mac, dp->conf.mac, SB_ETH_ALEN);
	buf = (uint8_t *)rte_pktmbuf_append(m, SB_HDR_LEN + SB_HELLO_LEN);
	sb_wire_put_hello(buf, p->mac, p->index, &h);
	if (sb_txq_put(&p->txq, m, &dp->stats.tx_queue_drop))
		dp->stats.tx_hello++;
}

/* Every path over a port that lost carrier or was stopped goes down now, not after the
 * peer's dead interval. The table reports them in batches of RTE_DIM(ev). */
static void
paths_down_over(struct sb_dp *dp, unsigned int port_index)
{
	struct sb_peer_event ev[16];
	unsigned int n, i;

	do {
		n = sb_peer_port_down(&dp->peers, port_index, ev, RTE_DIM(ev));
		for (i = 0; i < n; i++)
			peer_event(dp, &ev[i]);
	} while (n == RTE_DIM(ev));
}

void
sb_dp_hello_tick(struct sb_dp *dp, uint64_t now)
{
	static const uint64_t link_poll_ms = 10;
	bool poll = now - dp->last_link_poll >= link_poll_ms * dp->hz / 1000;
	struct sb_peer_event ev[16];
	unsigned int i, n;

	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &dp->port[i];
		bool up;

		if (!p->admin_up)
			continue;

		/* Carrier loss is the fastest failure signal we get; hellos cover the rest. */
		if (poll) {
			up = sb_port_link_up(p->port_id);
			if (up != (bool)p->link_up) {
				p->link_up = up;
				DP_LOG(NOTICE, "port %u link %s", p->index, up ? "up" : "down");
				if (!up)
					paths_down_over(dp, p->index);
			}
		}
		if (now >= dp->next_hello && p->link_up)
			hello_send(dp, p);
	}
	if (poll)
		dp->last_link_poll = now;
	if (now >= dp->next_hello) {
		/* Keep the cadence (peers judge loss by it); re-anchor after a stall. */
		dp->next_hello += dp->hello_period;
		if (dp->next_hello <= now)
			dp->next_hello = now + dp->hello_period;
	}

	do {
		n = sb_peer_tick(&dp->peers, now, ev, RTE_DIM(ev));
		for (i = 0; i < n; i++)
			peer_event(dp, &ev[i]);
	} while (n == RTE_DIM(ev));
}

void
sb_dp_port_down(struct sb_dp *dp, struct sb_dp_port *p)
{
	rte_pktmbuf_free_bulk(p->txq.m, p->txq.n);
	dp->stats.tx_queue_drop += p->txq.n;
	p->txq.n = 0;
	paths_down_over(dp, p->index);
}
