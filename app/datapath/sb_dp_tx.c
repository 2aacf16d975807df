/* SPDX-License-Identifier: BSD-3-Clause */
/* Transmit side of the datapath: exception port -> shim -> stripe -> member ports. */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "sb_dp_int.h"

/* Refresh a peer's scheduler view from the peer table and the queue models: our port's
 * and, where a switch queues in front of it, the peer port's. Called through view_get(),
 * at most once per burst and peer (it was once per frame: 265 instructions a frame on 4
 * paths under callgrind). */
static void
view_refresh(struct sb_dp *dp, unsigned int pi, uint64_t now_ns)
{
	struct sb_dp_tx *tx = dp->tx;
	const struct sb_peer *peer = &tx->peers.peer[pi];
	struct sb_dp_tx_peer *dpeer = &tx->peer[pi];
	struct sb_sched_view *v = &dpeer->view;
	const struct sb_dp_port *ports = tx->port;
	const struct sb_path *path = peer->path;
	struct sb_sched_path *sp = v->path;
	const unsigned int n = peer->n_paths;
	const bool adaptive = tx->adaptive_rate;
	unsigned int j;

	v->n_paths = n;
	v->now_ns = now_ns;
	for (j = 0; j < n; j++, path++, sp++) {
		const struct sb_dp_port *p = &ports[path->local_port];
		const uint64_t rate = p->rate_bps;
		const uint64_t remote = (uint64_t)path->remote_rate_kbps * 1000;
		/* A port that refused frames at the last flush (its ring is full) is full:
		 * that is the "skip paths whose TX queue is full" rule, on real NICs and on
		 * veths. Frames queued since then go out at the next flush. */
		const bool usable = path->usable && p->link_up && p->admin_up && !p->tx_blocked &&
			p->txq.n < SB_TXQ_CAP;
		uint64_t path_rate = 0, pbusy = 0, delay = 0;

		/* What the path itself carries, when that is less than our port, and how much
		 * later than the peer's fastest path its frames arrive (sb_path_est.h). */
		if (adaptive) {
			const uint64_t est = dpeer->est[j].rate_bps;

			path_rate = est != 0 && est < rate ? est : 0;
			pbusy = dpeer->pbusy_ns[j];
			delay = (uint64_t)path->fb.owd_min_us * 1000;
		}
		sp->rate_bps = rate;
		sp->busy_until_ns = p->busy_until_ns;
		/* The peer's port is a second queue when it is slower than ours or fed by
		 * several of our ports; otherwise it never holds anything back. */
		sp->remote_rate_bps = remote != 0 && (remote < rate || path->remote_fanin > 1) ?
			remote : 0;
		sp->rbusy_until_ns = dpeer->rbusy_ns[path->remote_port];
		if (adaptive) {
			sp->path_rate_bps = path_rate;
			sp->pbusy_until_ns = pbusy;
			sp->delay_ns = delay;
		}
		sp->usable = usable;
	}
}

/* Peer @p pi's scheduler view, rebuilt only when stale. Between two reads of the kernel's
 * queue only send_data() changes what a view holds, and it keeps the sending peer's view
 * current itself (view_charged()); everything else (flushes, hellos, the peer table, the
 * rate estimates, console commands) runs between bursts, and sb_dp_tx_exception() makes
 * every view stale at the start of each. */
static inline struct sb_sched_view *
view_get(struct sb_dp *dp, unsigned int pi, uint64_t now_ns)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_tx_peer *dpeer = &tx->peer[pi];

	if (dpeer->view_gen != tx->view_gen) {
		view_refresh(dp, pi, now_ns);
		dpeer->view_gen = tx->view_gen;
	}
	return &dpeer->view;
}

/* After a frame went on path @p j of peer @p pi (port @p p): the path's own entry was
 * charged; other paths of the view over the same port, or into the same peer port, share
 * those queue models, and a port whose queue just filled is full for all of them. Every
 * other peer's view is stale from now on (the port's model moved under it). */
static inline void
view_charged(struct sb_dp *dp, unsigned int pi, unsigned int j, const struct sb_dp_port *p)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_tx_peer *dpeer = &tx->peer[pi];
	const struct sb_peer *peer = &tx->peers.peer[pi];
	struct sb_sched_path *sp = dpeer->view.path;
	const uint8_t lp = peer->path[j].local_port, rp = peer->path[j].remote_port;
	const uint64_t busy = p->busy_until_ns, rbusy = dpeer->rbusy_ns[rp];
	const bool full = p->txq.n >= SB_TXQ_CAP;
	const unsigned int n = dpeer->view.n_paths;
	unsigned int k;

	for (k = 0; k < n; k++) {
		if (peer->path[k].local_port == lp) {
			sp[k].busy_until_ns = busy;
			if (full)
				sp[k].usable = 0;
		}
		if (peer->path[k].remote_port == rp)
			sp[k].rbusy_until_ns = rbusy;
	}
	dpeer->view_gen = ++tx->view_gen;
}

/*
 * Encapsulate and queue one frame for peer @p pi.
 * @param elide  The inner frame goes between the two aggregate MACs: leave them out.
 * @return 0 when the frame was consumed (sent or dropped), -EAGAIN when every path is full
 *   and the frame must wait (still owned by the caller, unmodified).
 */
static int
send_data(struct sb_dp *dp, unsigned int pi, struct rte_mbuf *m, bool elide, uint64_t now_ns)
{
	struct sb_dp_stats *st = dp->tx->stats;
	struct sb_dp_tx_peer *dpeer = &dp->tx->peer[pi];
	const struct sb_peer *peer = &dp->tx->peers.peer[pi];
	struct sb_shim shim = { .type = SB_WIRE_DATA };
	const struct sb_path *path;
	struct sb_dp_port *p;
	uint32_t wire_len, add;
	uint8_t *hdr;
	int j;

	if (peer->n_usable == 0) {
		st->tx_no_path++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (elide) {
		shim.flags = SB_WIRE_F_ELIDED;
		add = SB_WIRE_OVERHEAD;
	} else {
		add = SB_HDR_LEN;
	}
	if (dp->auth) {
		/* The authentication header goes between the shim and the inner frame. */
		shim.flags |= SB_WIRE_F_AUTH;
		add += SB_WIRE_DATA_AUTH_LEN;
		if (unlikely(!dpeer->tx_key.set)) {
			st->tx_no_path++;	/* its nonce not heard yet */
			rte_pktmbuf_free(m);
			return 0;
		}
		if (unlikely(sb_auth_pn_exhausted(dpeer->pn_hi)))
			sb_dp_auth_rekey(dp, "packet numbers used up", true);
	}
	wire_len = rte_pktmbuf_pkt_len(m) + add;

	j = sb_sched_pick(&dpeer->sched, view_get(dp, pi, now_ns), wire_len);
	if (j < 0) {
		st->tx_backpressure++;
		return -EAGAIN;
	}
	path = &peer->path[j];
	p = &dp->tx->port[path->local_port];
	if (unlikely(wire_len - SB_ETH_HLEN > sb_path_mtu(path, p->mtu))) {
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
	shim.path_seq = dpeer->path_seq[j]++;
	shim.seq = dpeer->tx_seq++;
	/* For elided frames the inner EtherType is already in place at offset 22 (46 after an
	 * authentication header). */
	sb_wire_put_hdr(hdr, path->remote_mac, p->mac, &shim);
	if (dp->auth) {
		uint64_t pn = (uint64_t)dpeer->pn_hi << 32 | shim.seq;

		/* The high half moves on as the sequence number wraps, whatever happens to
		 * this frame: no packet number is used twice. */
		if (unlikely(dpeer->tx_seq == 0))
			dpeer->pn_hi++;
		if (unlikely(sb_dp_auth_data_tx(dp, dpeer, m, pn) != 0)) {
			st->tx_too_big++;	/* too long or in too many segments to tag */
			rte_pktmbuf_free(m);
			return 0;
		}
	}
	sb_sched_charge(&dpeer->view, j, wire_len);
	p->busy_until_ns = dpeer->view.path[j].busy_until_ns;
	if (dpeer->view.path[j].path_rate_bps != 0)
		dpeer->pbusy_ns[j] = dpeer->view.path[j].pbusy_until_ns;
	if (dpeer->view.path[j].remote_rate_bps != 0)
		dpeer->rbusy_ns[path->remote_port] = dpeer->view.path[j].rbusy_until_ns;
	dpeer->path_tx[j]++;
	dpeer->path_sent[j]++;
	dpeer->path_tx_bytes[j] += wire_len;
	/* At the peer port's MTU: the peer counts it as proof of the path MTU
	 * (sb_dp_hello.c, port_hellos_unicast()). */
	if (wire_len >= (uint32_t)path->remote_mtu + SB_ETH_HLEN)
		dpeer->full_tx[j]++;
	sb_dp_lat_count(dp, dpeer->lat, m, rte_rdtsc());
	if (sb_txq_put(&p->txq, m, &st->tx_queue_drop)) {
		st->tx_data++;
		st->tx_data_bytes += wire_len;
	}
	view_charged(dp, pi, (unsigned int)j, p);
	return 0;
}

/* What peer @p pi's paths in the stripe carry together now, bit/s (sb_dp_path_rate_bps()). */
static uint64_t
peer_rate_bps(const struct sb_dp_tx *tx, unsigned int pi)
{
	const struct sb_peer *peer = &tx->peers.peer[pi];
	uint64_t r = 0;
	unsigned int j;

	for (j = 0; j < peer->n_paths; j++)
		if (peer->path[j].usable)
			r += sb_dp_path_rate_bps(tx, pi, j);
	return r;
}

/*
 * Broadcast, multicast and unicast to a MAC that is no peer's: one sequenced copy to every
 * peer with a path in the stripe, so each peer's kernel gets it exactly once, in order with
 * the rest of that peer's traffic, and it never comes back to us (no group address on the
 * wire). It waits (-EAGAIN, frame untouched) until every such peer has a path with room, so
 * nobody's copy is dropped for backpressure; except a peer whose paths carry less than the
 * fastest peer's >> SB_DP_FLOOD_SLOW_SHIFT: a flood never waits for it, its copy is dropped
 * when its paths are full (tx_flood_slow_drop). Waiting for such a peer held every frame
 * behind the flood in sb0's queue: a forged peer announcing 1 kbit/s took sb0 from 376 to
 * 2.9 Mbit/s (issue 33). Broadcasts are ARP, neighbour discovery and DHCP, which retry.
 * @return 0 when consumed, -EAGAIN to retry later.
 */
static int
send_flood(struct sb_dp *dp, struct rte_mbuf *m, uint64_t now_ns)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_stats *st = tx->stats;
	uint64_t rate[SB_MAX_PEERS], fastest = 0;
	uint64_t skip = 0;	/* bit per slow peer whose copy is dropped */
	unsigned int i, n = 0, last = 0;

	RTE_BUILD_BUG_ON(SB_MAX_PEERS > 64);	/* skip has a bit per peer */
	for (i = 0; i < tx->peers.n_peers; i++) {
		rate[i] = tx->peers.peer[i].n_usable != 0 ? peer_rate_bps(tx, i) : 0;
		fastest = RTE_MAX(fastest, rate[i]);
	}
	for (i = 0; i < tx->peers.n_peers; i++) {
		if (tx->peers.peer[i].n_usable == 0)
			continue;
		if (sb_sched_eligible(view_get(dp, i, now_ns)) == 0) {
			if (rate[i] < fastest >> SB_DP_FLOOD_SLOW_SHIFT) {
				skip |= UINT64_C(1) << i;
				continue;
			}
			st->tx_backpressure++;
			return -EAGAIN;
		}
		n++;
		last = i;
	}
	if (n == 0) {
		/* Nobody to send to, or only slow peers out of room. */
		if (skip != 0) {
			st->tx_flood++;
			st->tx_flood_slow_drop += (uint64_t)__builtin_popcountll(skip);
		} else {
			st->tx_no_path++;
		}
		rte_pktmbuf_free(m);
		return 0;
	}
	st->tx_flood++;
	st->tx_flood_slow_drop += (uint64_t)__builtin_popcountll(skip);
	for (i = 0; i < tx->peers.n_peers; i++) {
		struct rte_mbuf *c;

		if (tx->peers.peer[i].n_usable == 0 || (skip & (UINT64_C(1) << i)))
			continue;
		if (i == last) {
			c = m;
		} else {
			c = rte_pktmbuf_copy(m, dp->mp, 0, UINT32_MAX);
			if (c == NULL) {
				st->tx_nombuf++;
				continue;
			}
		}
		st->tx_flood_copies++;
		/* Eligible just above and nothing sent since to this peer: cannot wait. */
		send_data(dp, i, c, false, now_ns);
	}
	return 0;
}

/* The peer a frame from the kernel is for: its index, or -1 to flood (broadcast, multicast,
 * unknown unicast). */
static inline int
frame_peer(const struct sb_dp *dp, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (rte_is_multicast_ether_addr(&eth->dst_addr))
		return -1;
	return sb_peer_lookup_mac(&dp->tx->peers, eth->dst_addr.addr_bytes);
}

/* Send frame @p m to peer @p pi (the aggregate MACs are elided when the kernel sent it from
 * ours). @return as send_data(). */
static inline int
send_unicast(struct sb_dp *dp, int pi, struct rte_mbuf *m, uint64_t now_ns)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return send_data(dp, pi, m, memcmp(eth->src_addr.addr_bytes, dp->conf.mac,
		SB_ETH_ALEN) == 0, now_ns);
}

/* Send what each peer has set aside, oldest first, until its paths are full again. */
static void
drain_held(struct sb_dp *dp, uint64_t now_ns)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int i;

	for (i = 0; i < tx->peers.n_peers && tx->n_held > 0; i++) {
		struct sb_dp_tx_peer *tp = &tx->peer[i];

		while (tp->held_n > 0 && send_unicast(dp, i, tp->held[tp->held_head],
				now_ns) != -EAGAIN) {
			tp->held_head = (tp->held_head + 1) % SB_DP_PEER_HELD;
			tp->held_n--;
			tx->n_held--;
		}
	}
}

/* Can a frame behind pending[@p from - 1], for blocked peer @p pi, go now? True at the
 * first frame for another peer that has nothing set aside and a path with room (or no
 * path: it is dropped at once), which is remembered in pending_go. A flood frame needs
 * every peer, the blocked one too, so it never counts. */
static bool
other_peer_can_go(struct sb_dp *dp, unsigned int from, int pi, uint64_t now_ns)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int k;

	if (tx->pending_go >= from)
		return true;
	for (k = from; k < tx->n_pending; k++) {
		const struct rte_mbuf *m = tx->pending[k];
		int q;

		if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
			continue;
		q = frame_peer(dp, m);
		if (q < 0 || q == pi || tx->peer[q].held_n > 0)
			continue;
		if (tx->peers.peer[q].n_usable > 0) {
			if (sb_sched_eligible(view_get(dp, q, now_ns)) == 0)
				continue;
		}
		tx->pending_go = k;
		return true;
	}
	return false;
}

/* Set @p m aside for peer @p pi, or drop it when the peer's FIFO is full. */
static void
hold(struct sb_dp *dp, int pi, struct rte_mbuf *m)
{
	struct sb_dp_tx_peer *tp = &dp->tx->peer[pi];

	if (tp->held_n == SB_DP_PEER_HELD) {
		dp->tx->stats->tx_peer_drop++;
		rte_pktmbuf_free(m);
		return;
	}
	tp->held[(tp->held_head + tp->held_n) % SB_DP_PEER_HELD] = m;
	tp->held_n++;
	dp->tx->n_held++;
	dp->tx->stats->tx_peer_held++;
}

unsigned int
sb_dp_tx_exception(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_stats *st = tx->stats;
	uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);
	unsigned int done = 0;

	/* A new burst: time moved, and queues, flushes and the peer table may have too. */
	tx->view_gen++;
	if (unlikely(tx->n_held > 0))
		drain_held(dp, now_ns);
	/* Read from the kernel only when nothing is waiting: while every path is full the
	 * frames stay in the TAP queue and the kernel sees backpressure, not loss. */
	if (tx->n_pending == 0) {
		unsigned int q;

		/* Every exception queue (one per RX worker) in turn, from a rotating start. */
		for (q = 0; q < dp->n_exc_queues && tx->n_pending == 0; q++)
			tx->n_pending = sb_exc_rx_burst(dp->exc,
				(tx->exc_next_queue + q) % dp->n_exc_queues, tx->pending,
				dp->conf.burst);
		tx->exc_next_queue = (tx->exc_next_queue + 1) % dp->n_exc_queues;
		if (tx->n_pending != 0) {
			uint64_t t = rte_rdtsc();	/* when read: the poll may be old */

			for (q = 0; q < tx->n_pending; q++)
				sb_dp_stamp(dp, tx->pending[q], t);
		}
		tx->pending_head = 0;
		tx->pending_go = 0;
		st->exc_rx += tx->n_pending;
		tx->w->max_batch = RTE_MAX(tx->w->max_batch, tx->n_pending);
	}
	while (tx->pending_head < tx->n_pending) {
		struct rte_mbuf *m = tx->pending[tx->pending_head];
		int pi;

		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
			st->tx_too_big++;
			rte_pktmbuf_free(m);
		} else if ((pi = frame_peer(dp, m)) < 0) {
			if (send_flood(dp, m, now_ns) == -EAGAIN)
				break;
		} else if (tx->peer[pi].held_n > 0 || send_unicast(dp, pi, m, now_ns) == -EAGAIN) {
			/* This peer is out of room (or has frames set aside, which go first).
			 * Waiting would hold up every peer behind it in the burst: when one of
			 * them can go, this frame is set aside instead (the kernel's single
			 * queue cannot be read past it otherwise); when none can, it waits. */
			if (!other_peer_can_go(dp, tx->pending_head + 1U, pi, now_ns))
				break;
			hold(dp, pi, m);
		}
		tx->pending_head++;
		done++;
	}
	/* Both back to 0: a snapshot taken later in this poll counts n_pending - pending_head
	 * frames as waiting (a stale head made that -1 in an exit report). */
	if (tx->pending_head == tx->n_pending)
		tx->n_pending = tx->pending_head = 0;
	return done;
}

unsigned int
sb_dp_tx_passthrough(struct sb_dp *dp, uint64_t now)
{
	struct rte_mbuf *pkts[SB_BURST_MAX];
	uint64_t now_ns = sb_tsc_to_ns(now, dp->hz);
	unsigned int i, j, n, total = 0;

	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &dp->tx->port[i];
		uint16_t room;

		if (p->pt_port == RTE_MAX_ETHPORTS)
			continue;
		/* Read no more than the port's queue takes: the rest waits in the kernel. */
		room = SB_TXQ_CAP - p->txq.n;
		n = rte_eth_rx_burst(p->pt_port, 0, pkts, RTE_MIN(room, dp->conf.burst));
		for (j = 0; j < n; j++) {
			struct rte_mbuf *m = pkts[j];
			uint32_t len = rte_pktmbuf_pkt_len(m);
			const struct rte_ether_hdr *eth =
				rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

			if (!p->admin_up || !p->link_up || len < RTE_ETHER_HDR_LEN ||
					rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN ||
					len > (uint32_t)p->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN ||
					eth->ether_type == rte_cpu_to_be_16(SB_ETHER_TYPE)) {
				dp->tx->stats->tx_passthrough_drop++;
				rte_pktmbuf_free(m);
				continue;
			}
			/* It shares the link with the stripe: the queue model counts it. */
			p->busy_until_ns = RTE_MAX(p->busy_until_ns, now_ns) +
				sb_sched_tx_ns(len, p->rate_bps);
			if (sb_txq_put(&p->txq, m, &dp->tx->stats->tx_passthrough_drop))
				dp->tx->stats->tx_passthrough++;
		}
		total += n;
		dp->tx->w->max_batch = RTE_MAX(dp->tx->w->max_batch, n);
	}
	return total;
}

void
sb_dp_queue_flush(uint16_t port_id, uint16_t queue, struct rte_mbuf **m, uint16_t *n,
	uint64_t *frames, uint64_t *bytes)
{
	uint16_t sent, i;

	if (*n == 0)
		return;
	if (bytes != NULL)
		for (i = 0; i < *n; i++)
			*bytes += rte_pktmbuf_pkt_len(m[i]);
	sent = rte_eth_tx_burst(port_id, queue, m, *n);
	*frames += sent;
	if (sent < *n) {
		/* The rest waits for the next flush; the port counts as full meanwhile. */
		if (bytes != NULL)
			for (i = sent; i < *n; i++)
				*bytes -= rte_pktmbuf_pkt_len(m[i]);
		memmove(m, m + sent, (*n - sent) * sizeof(m[0]));
	}
	*n -= sent;
}

unsigned int
sb_dp_tx_flush(struct sb_dp *dp)
{
	uint64_t before = 0, after = 0;
	unsigned int i;

	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &dp->tx->port[i];

		if (!p->admin_up)
			continue;
		before += p->tx_frames;
		/* Hellos first: they must not wait behind a saturated path's data. */
		sb_dp_queue_flush(p->port_id, 0, p->ctlq.m, &p->ctlq.n, &p->tx_frames,
			&p->tx_bytes);
		if (p->ctlq.n == 0)
			sb_dp_queue_flush(p->port_id, 0, p->txq.m, &p->txq.n, &p->tx_frames,
				&p->tx_bytes);
		p->tx_blocked = p->txq.n != 0 || p->ctlq.n != 0;
		after += p->tx_frames;
	}
	return (unsigned int)(after - before);
}
