/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive side of the datapath: member ports -> parse -> reorder -> exception port. */
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "sb_dp_int.h"

/* Turn a received DATA frame back into the inner Ethernet frame, in place. */
static inline void
decap(struct sb_dp *dp, struct rte_mbuf *m, const struct sb_shim *shim, const struct sb_peer *peer)
{
	uint8_t *b;

	if (shim->flags & SB_WIRE_F_ELIDED) {
		/* The inner EtherType sits at offset 22: drop 10 bytes and rebuild the
		 * addresses in front of it (receiver = us, sender = the peer). */
		b = rte_pktmbuf_mtod(m, uint8_t *) + SB_WIRE_OVERHEAD;
		rte_memcpy(b, dp->conf.mac, SB_ETH_ALEN);
		rte_memcpy(b + SB_ETH_ALEN, peer->agg_mac, SB_ETH_ALEN);
		rte_pktmbuf_adj(m, SB_WIRE_OVERHEAD);
	} else {
		rte_pktmbuf_adj(m, SB_HDR_LEN);
	}
}

static void
rx_one(struct sb_dp *dp, struct sb_dp_port *p, struct rte_mbuf *m, uint64_t now)
{
	struct sb_dp_stats *st = &dp->stats;
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t wire_len = rte_pktmbuf_pkt_len(m);
	struct sb_dp_peer *dpeer;
	struct sb_shim shim;
	unsigned int path;
	size_t off;
	enum sb_wire_err e;
	int pi;

	e = sb_wire_parse(buf, rte_pktmbuf_data_len(m), &shim, &off);
	if (unlikely(e != SB_WIRE_OK)) {
		if (e == SB_WIRE_E_FOREIGN)
			st->rx_foreign++;
		else
			st->rx_err[e]++;
		rte_pktmbuf_free(m);
		return;
	}
	/* No peer sends more than our MTU (hellos told it); a longer frame is not a peer's. */
	if (unlikely(wire_len > (uint32_t)p->mtu + SB_ETH_HLEN + RTE_VLAN_HLEN)) {
		st->rx_err[SB_WIRE_E_OVERSIZE]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (shim.type == SB_WIRE_HELLO) {
		sb_dp_hello_input(dp, p, m, now);
		return;
	}

	/* The outer source MAC and the shim's path id name the FIFO this frame came through. */
	pi = sb_peer_lookup_rx(&dp->peers, p->index, buf + SB_ETH_ALEN, shim.path, &path);
	if (unlikely(pi < 0)) {
		st->rx_unknown_peer++;
		rte_pktmbuf_free(m);
		return;
	}
	dpeer = &dp->dpeer[pi];
	decap(dp, m, &shim, &dp->peers.peer[pi]);

	st->rx_data++;
	dpeer->path_rx[path]++;
	dpeer->path_rx_bytes[path] += wire_len;
	sb_peer_data_rx(&dp->peers, pi, path, shim.path_seq, wire_len);
	/* Data on a path makes it count in the loss rule until the peer says it stopped
	 * (SB_PEER_EV_RX_IDLE): activated before the frame goes in, so no gap this path
	 * could still fill is declared lost meanwhile. */
	sb_reorder_path_set_active(dpeer->reorder, path, true);
	switch (sb_reorder_insert(dpeer->reorder, path, shim.seq, m, now)) {
	case SB_REORDER_HELD:
		break;
	case SB_REORDER_LATE_DELIVERED:
		st->rx_late_delivered++;
		sb_dp_exc_put(dp, m);
		break;
	case SB_REORDER_LATE_DROPPED:
		st->rx_late_dropped++;
		rte_pktmbuf_free(m);
		break;
	case SB_REORDER_DUPLICATE:
		st->rx_duplicate++;
		rte_pktmbuf_free(m);
		break;
	case SB_REORDER_STRAY:
		st->rx_stray++;
		rte_pktmbuf_free(m);
		break;
	case SB_REORDER_OUT_OF_RANGE:
	case SB_REORDER_BAD_PATH:
	default:
		st->rx_out_of_range++;
		rte_pktmbuf_free(m);
		break;
	}
}

/* Move every frame the reorder windows can release to the exception queue. */
static void
release_in_order(struct sb_dp *dp, uint64_t now)
{
	struct rte_mbuf *out[SB_BURST_MAX];
	unsigned int i, j, n;

	for (i = 0; i < dp->peers.n_peers; i++) {
		struct sb_dp_peer *dpeer = &dp->dpeer[i];

		if (!dpeer->ready)
			continue;
		do {
			n = sb_reorder_drain(dpeer->reorder, (void **)out, RTE_DIM(out), now);
			for (j = 0; j < n; j++)
				sb_dp_exc_put(dp, out[j]);
		} while (n == RTE_DIM(out));
	}
}

/* Read one burst from every started port. @return frames read; *full set when some port
 * filled the burst (more may be waiting in its ring). */
static unsigned int
rx_round(struct sb_dp *dp, uint64_t now, bool *full)
{
	struct rte_mbuf *pkts[SB_BURST_MAX];
	unsigned int i, j, n, total = 0;

	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &dp->port[i];

		if (unlikely(!p->admin_up))
			continue;
		n = rte_eth_rx_burst(p->port_id, 0, pkts, dp->conf.burst);
		if (n == 0)
			continue;
		if (n == dp->conf.burst)
			*full = true;
		dp->max_batch = RTE_MAX(dp->max_batch, n);
		total += n;
		dp->stats.rx += n;
		for (j = 0; j < n && j < 4; j++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[j], void *));
		for (j = 0; j < n; j++) {
			if (j + 4 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[j + 4], void *));
			rx_one(dp, p, pkts[j], now);
		}
	}
	return total;
}

unsigned int
sb_dp_rx_ports(struct sb_dp *dp, uint64_t now)
{
	/* Enough rounds to empty rings of a few thousand frames. */
	static const unsigned int max_rounds = 64;
	unsigned int rounds = 0, total = 0;
	bool full;

	/*
	 * Empty the rings before the windows judge gaps: after a stall (the lcore preempted,
	 * a burst of arrivals) the frame that fills a gap may still sit in another port's
	 * ring, and declaring the gap lost by timeout first would make it late.
	 */
	do {
		full = false;
		total += rx_round(dp, now, &full);
	} while (full && ++rounds < max_rounds);
	/* Drained every iteration, not only after arrivals: the gap timeout must fire even
	 * when nothing comes in. */
	release_in_order(dp, now);
	return total;
}
