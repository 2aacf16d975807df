/* SPDX-License-Identifier: BSD-3-Clause */
/* Transmit side of the datapath: exception port -> shim -> stripe -> member ports. */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "sb_dp.h"

/* Refresh a peer's scheduler view from the peer table and the ports' queue models. */
static void
view_refresh(struct sb_dp *dp, unsigned int pi, uint64_t now_ns)
{
	const struct sb_peer *peer = &dp->peers.peer[pi];
	struct sb_sched_view *v = &dp->dpeer[pi].view;
	unsigned int j;

	v->n_paths = peer->n_paths;
	v->now_ns = now_ns;
	for (j = 0; j < peer->n_paths; j++) {
		const struct sb_path *path = &peer->path[j];
		const struct sb_dp_port *p = &dp->port[path->local_port];
		uint64_t rate = p->rate_bps;

		if (path->remote_rate_kbps != 0)
			rate = RTE_MIN(rate, (uint64_t)path->remote_rate_kbps * 1000);
		v->path[j].rate_bps = rate;
		v->path[j].busy_until_ns = p->busy_until_ns;
		/* A port whose software queue still holds frames is full: that is the
		 * "skip paths whose TX queue is full" rule, on real NICs and on veths. */
		v->path[j].usable = path->state == SB_PATH_UP && p->link_up && p->admin_up &&
			p->txq.n == 0;
	}
}

/* First port with a path up to any peer: where broadcasts go (each port's switch reaches
 * every peer on it, so one copy suffices). @return port index or -1. */
static int
flood_port(const struct sb_dp *dp)
{
	unsigned int i, j;
	int best = -1;

	for (i = 0; i < dp->peers.n_peers; i++) {
		const struct sb_peer *peer = &dp->peers.peer[i];

		for (j = 0; j < peer->n_paths; j++) {
			const struct sb_path *path = &peer->path[j];

			if (path->state == SB_PATH_UP && dp->port[path->local_port].link_up &&
					dp->port[path->local_port].admin_up &&
					(best < 0 || path->local_port < best))
				best = path->local_port;
		}
	}
	return best;
}

static void
send_unseq(struct sb_dp *dp, struct rte_mbuf *m)
{
	struct sb_dp_stats *st = &dp->stats;
	const struct sb_shim shim = { .type = SB_WIRE_UNSEQ };
	struct sb_dp_port *p;
	uint8_t dst[SB_ETH_ALEN];
	uint8_t *hdr;
	int port = flood_port(dp);

	if (port < 0) {
		st->tx_no_path++;
		rte_pktmbuf_free(m);
		return;
	}
	p = &dp->port[port];
	if (rte_pktmbuf_pkt_len(m) + SB_SHIM_LEN > p->mtu) {
		st->tx_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(dst, rte_pktmbuf_mtod(m, uint8_t *), SB_ETH_ALEN);
	hdr = (uint8_t *)rte_pktmbuf_prepend(m, SB_HDR_LEN);
	if (hdr == NULL) {
		st->tx_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	/* Same group destination outside as inside, so switches flood it like the original. */
	sb_wire_put_hdr(hdr, dst, p->mac, &shim);
	if (sb_txq_put(&p->txq, m, &st->tx_queue_drop))
		st->tx_unseq++;
}

/*
 * Encapsulate and queue one unicast frame for peer @p pi.
 * @return 0 when the frame was consumed (sent or dropped), -EAGAIN when every path is full
 *   and the frame must wait (still owned by the caller, unmodified).
 */
static int
send_data(struct sb_dp *dp, unsigned int pi, struct rte_mbuf *m, uint64_t now_ns)
{
	struct sb_dp_stats *st = &dp->stats;
	struct sb_dp_peer *dpeer = &dp->dpeer[pi];
	const struct sb_peer *peer = &dp->peers.peer[pi];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct sb_shim shim = { .type = SB_WIRE_DATA };
	const struct sb_path *path;
	struct sb_dp_port *p;
	uint32_t wire_len, add;
	uint8_t *hdr;
	int j;

	if (peer->n_up == 0) {
		st->tx_no_path++;
		rte_pktmbuf_free(m);
		return 0;
	}
	/* Frames between the two aggregate MACs (all of them unless sb0 is bridged) travel
	 * with their addresses elided; the receiver knows both. */
	if (memcmp(eth->src_addr.addr_bytes, dp->cfg->mac, SB_ETH_ALEN) == 0) {
		shim.flags = SB_WIRE_F_ELIDED;
		add = SB_WIRE_OVERHEAD;
	} else {
		add = SB_HDR_LEN;
	}
	wire_len = rte_pktmbuf_pkt_len(m) + add;

	view_refresh(dp, pi, now_ns);
	j = sb_sched_pick(&dpeer->sched, &dpeer->view, wire_len);
	if (j < 0) {
		st->tx_backpressure++;
		return -EAGAIN;
	}
	path = &peer->path[j];
	p = &dp->port[path->local_port];
	if (unlikely(wire_len - SB_ETH_HLEN > RTE_MIN(p->mtu, path->remote_mtu))) {
		st->tx_too_big++;
		rte_pktmbuf_free(m);
		return 0;
	}
	hdr = (uint8_t *)rte_pktmbuf_prepend(m, add);
	if (unlikely(hdr == NULL)) {
		st->tx_too_big++;
		rte_pktmbuf_free(m);
		return 0;
	}
	shim.path = p->index;
	shim.seq = dpeer->tx_seq++;
	/* For elided frames the inner EtherType is already in place at offset 22. */
	sb_wire_put_hdr(hdr, path->remote_mac, p->mac, &shim);
	sb_sched_charge(&dpeer->view, j, wire_len);
	p->busy_until_ns = dpeer->view.path[j].busy_until_ns;
	dpeer->path_tx[j]++;
	dpeer->path_tx_bytes[j] += wire_len;
	if (sb_txq_put(&p->txq, m, &st->tx_queue_drop)) {
		st->tx_data++;
		st->tx_data_bytes += wire_len;
	}
	return 0;
}

unsigned int
sb_dp_tx_exception(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_stats *st = &dp->stats;
	uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);
	unsigned int done = 0;

	/* Read from the kernel only when nothing is waiting: while every path is full the
	 * frames stay in the TAP queue and the kernel sees backpressure, not loss. */
	if (dp->n_pending == 0) {
		dp->n_pending = sb_exc_rx_burst(dp->exc, 0, dp->pending, dp->cfg->burst);
		dp->pending_head = 0;
		st->exc_rx += dp->n_pending;
		dp->max_batch = RTE_MAX(dp->max_batch, dp->n_pending);
	}
	while (dp->pending_head < dp->n_pending) {
		struct rte_mbuf *m = dp->pending[dp->pending_head];
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		int pi;

		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
			st->tx_too_big++;
			rte_pktmbuf_free(m);
		} else if (rte_is_multicast_ether_addr(&eth->dst_addr)) {
			send_unseq(dp, m);
		} else if ((pi = sb_peer_lookup_mac(&dp->peers, eth->dst_addr.addr_bytes)) < 0) {
			st->tx_no_peer++;
			rte_pktmbuf_free(m);
		} else if (send_data(dp, pi, m, now_ns) == -EAGAIN) {
			break;
		}
		dp->pending_head++;
		done++;
	}
	if (dp->pending_head == dp->n_pending)
		dp->n_pending = 0;
	return done;
}

static void
txq_flush(uint16_t port_id, struct sb_exc *exc, struct sb_txq *q, uint64_t *frames,
	uint64_t *bytes)
{
	uint16_t sent, i;

	if (q->n == 0)
		return;
	if (bytes != NULL)
		for (i = 0; i < q->n; i++)
			*bytes += rte_pktmbuf_pkt_len(q->m[i]);
	if (exc != NULL)
		sent = sb_exc_tx_burst(exc, 0, q->m, q->n);
	else
		sent = rte_eth_tx_burst(port_id, 0, q->m, q->n);
	*frames += sent;
	if (sent < q->n) {
		/* The rest waits for the next flush; the port counts as full meanwhile. */
		if (bytes != NULL)
			for (i = sent; i < q->n; i++)
				*bytes -= rte_pktmbuf_pkt_len(q->m[i]);
		memmove(q->m, q->m + sent, (q->n - sent) * sizeof(q->m[0]));
	}
	q->n -= sent;
}

unsigned int
sb_dp_flush(struct sb_dp *dp)
{
	unsigned int i;
	uint64_t before = dp->stats.exc_tx;

	for (i = 0; i < dp->n_ports; i++)
		if (dp->port[i].admin_up)
			txq_flush(dp->port[i].port_id, NULL, &dp->port[i].txq,
				&dp->port[i].tx_frames, &dp->port[i].tx_bytes);
	txq_flush(RTE_MAX_ETHPORTS, dp->exc, &dp->exc_txq, &dp->stats.exc_tx, NULL);
	return dp->stats.exc_tx - before;
}
