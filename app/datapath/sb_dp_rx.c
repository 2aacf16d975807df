/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive side of the datapath (RX workers): member ports -> parse -> reorder -> exception
 * path; raw frames to the passthrough interfaces; the TX worker's messages. */
#include <limits.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "sb_dp_int.h"

/* Turn a received DATA frame back into the inner Ethernet frame, in place. @p off: where
 * sb_wire_parse() found the inner payload (past the authentication header of an
 * authenticated frame). */
static inline void
decap(struct sb_dp *dp, struct rte_mbuf *m, const struct sb_shim *shim, size_t off,
	const uint8_t *peer_mac)
{
	uint8_t *b;

	if (shim->flags & SB_WIRE_F_ELIDED) {
		/* The inner EtherType sits at @p off (22, or 46 after an authentication
		 * header): drop what is in front of its place in an Ethernet header and rebuild
		 * the addresses there (receiver = us, sender = the peer). */
		off -= 2 * SB_ETH_ALEN;
		b = rte_pktmbuf_mtod(m, uint8_t *) + off;
		rte_memcpy(b, dp->conf.mac, SB_ETH_ALEN);
		rte_memcpy(b + SB_ETH_ALEN, peer_mac, SB_ETH_ALEN);
	}
	rte_pktmbuf_adj(m, (uint16_t)off);
}

/* A frame of another wire version (a host not upgraded yet): said once in a while, since
 * every such frame is refused and the paths to that host never come up. */
static void
version_refused(struct sb_dp_rx *rx, unsigned int index, const uint8_t *buf, uint64_t now)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (!sb_dp_log_allowed(rx->w, SB_DP_LOG_VERSION, now))
		return;
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)(buf +
		SB_ETH_ALEN));
	DP_LOG(WARNING, "port %u: frame of wire version %u from %s refused: this host speaks "
		"version %u, and every host of a cluster must speak the same (rx_err_bad_version; "
		"at most one such line every %u s)", index, buf[SB_ETH_HLEN] >> 4, mac,
		SB_WIRE_VERSION, SB_DP_LOG_EVERY_S);
}

/* A DATA frame whose tag is missing, unexpected or wrong: counted, said once in a while. */
static void
data_refused(struct sb_dp_rx *rx, enum sb_dp_log_what what, unsigned int index,
	const uint8_t *buf, uint64_t now, const char *why)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (!sb_dp_log_allowed(rx->w, what, now))
		return;
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)(buf +
		SB_ETH_ALEN));
	DP_LOG(WARNING, "port %u: DATA frame from %s refused: %s (at most one such line every "
		"%u s)", index, mac, why, SB_DP_LOG_EVERY_S);
}

/* Hand a frame that arrived on member port @p index to another worker's ring, or count the
 * loss. The mbuf carries the port's ethdev id (not every driver sets it: the ring PMD
 * does not). */
static inline void
pass_on(struct sb_dp *dp, struct sb_dp_rx *rx, struct rte_ring *r, struct sb_dp_worker *to,
	unsigned int index, struct rte_mbuf *m)
{
	m->port = dp->conf.port[index].port_id;
	if (unlikely(rte_ring_enqueue(r, m) != 0)) {
		rx->stats->ring_full++;
		rte_pktmbuf_free(m);
		return;
	}
	sb_dp_kick_later(rx->w, to);
}

/*
 * Count a DATA frame of path @p path: a gap in its path sequence numbers counts as loss only
 * up to what the path could have carried (its published rate, sb_path_frames_bound();
 * struct sb_seq_track) since the poll before the one that read this frame: every frame one
 * poll reads arrived after that, whatever their order in the burst. So forged numbers cannot
 * push a path out of the stripe for loss. Before the path's first two polls with data (or
 * after it came back) only the 8-bit number bounds a gap.
 */
static inline void
data_account(const struct sb_dp *dp, struct sb_dp_rx_peer *rp, unsigned int path,
	uint8_t path_seq, uint32_t wire_len, uint32_t full_len, uint64_t now)
{
	uint32_t max_gap = SB_PATH_SEQ_MAX_GAP;

	if (rp->path_last[path] != now) {
		rp->path_from[path] = rp->path_last[path];
		rp->path_last[path] = now;
	}
	if (rp->path_from[path] != 0 && now > rp->path_from[path])
		max_gap = sb_path_frames_bound((uint64_t)__atomic_load_n(&rp->path_rate_kbps[path],
			__ATOMIC_RELAXED) * 1000, now - rp->path_from[path], dp->hz);
	sb_path_data_account_bounded(&rp->data[path], path_seq, wire_len, full_len, max_gap);
}

/* One frame from member port @p index (read by this worker, or passed on by the RX worker
 * polling that port). */
static void
rx_one(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int index, struct rte_mbuf *m,
	uint64_t now)
{
	struct sb_dp_stats *st = rx->stats;
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t wire_len = rte_pktmbuf_pkt_len(m);
	struct sb_dp_rx_peer *rp;
	struct sb_shim shim;
	unsigned int path, owner;
	uint64_t pn = 0;
	size_t off;
	enum sb_wire_err e;
	int pi;

	e = sb_wire_parse(buf, rte_pktmbuf_data_len(m), &shim, &off);
	if (unlikely(e != SB_WIRE_OK)) {
		if (e == SB_WIRE_E_FOREIGN) {
			/* Raw traffic (DHCP, PXE, LLDP, management): the port's kernel
			 * interface gets it as it came, when the port has one. */
			st->rx_foreign++;
			if (dp->conf.port[index].pt_port != RTE_MAX_ETHPORTS) {
				if (sb_txq_put(&rx->pt_txq[index], m, &st->rx_passthrough_drop))
					st->rx_passthrough++;
				return;
			}
		} else {
			st->rx_err[e]++;
			if (e == SB_WIRE_E_VERSION)
				version_refused(rx, index, buf, now);
		}
		rte_pktmbuf_free(m);
		return;
	}
	/* No peer sends more than our MTU (hellos told it); a longer frame is not a peer's. */
	if (unlikely(wire_len > (uint32_t)dp->conf.port[index].mtu + SB_ETH_HLEN +
			RTE_VLAN_HLEN)) {
		st->rx_err[SB_WIRE_E_OVERSIZE]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (shim.type == SB_WIRE_HELLO) {
		/* The peer table lives with the TX worker (which checks the hello's tag),
		 * within the port's budget of checks. */
		if (!sb_dp_auth_hello_admit(dp, rx, index, m, &shim, now)) {
			rte_pktmbuf_free(m);
			return;
		}
		pass_on(dp, rx, dp->hello_ring, dp->tx->w, index, m);
		return;
	}
	/* A tag exactly when we hold a cluster key (docs/wire-format.md). */
	if (unlikely(((shim.flags & SB_WIRE_F_AUTH) != 0) != dp->auth)) {
		if (dp->auth) {
			st->rx_auth_no_tag++;
			data_refused(rx, SB_DP_LOG_AUTH_NO_TAG, index, buf, now,
				"no cluster key tag (rx_auth_no_tag)");
		} else {
			st->rx_auth_unexpected++;
			data_refused(rx, SB_DP_LOG_AUTH_UNEXPECTED, index, buf, now,
				"it carries a cluster key tag and this host has no "
				"cluster_key_file (rx_auth_unexpected)");
		}
		rte_pktmbuf_free(m);
		return;
	}

	/* The outer source MAC and the shim's path id name the FIFO this frame came through. */
	pi = sb_peer_map_lookup(&rx->map, index, buf + SB_ETH_ALEN, shim.path, &path);
	if (unlikely(pi < 0)) {
		st->rx_unknown_peer++;
		rte_pktmbuf_free(m);
		return;
	}
	owner = sb_dp_peer_rx(dp, pi);
	if (owner != rx->id) {
		/* Another worker owns this peer's window: it reads the frame again. */
		st->rx_forwarded++;
		pass_on(dp, rx, dp->rx[owner]->data_ring, dp->rx[owner]->w, index, m);
		return;
	}
	rp = &dp->rx_peer[pi];
	if (unlikely(rp->reorder == NULL)) {
		st->rx_out_of_range++;	/* no window: it could not be created */
		rte_pktmbuf_free(m);
		return;
	}
	/* Before the window: nothing forged, altered or played back moves it or reaches the
	 * kernel. */
	if (dp->auth && unlikely(!sb_dp_auth_data_rx(dp, rx, rp, index, path, m, &shim, now,
			&pn))) {
		rte_pktmbuf_free(m);
		return;
	}
	decap(dp, m, &shim, off, rx->map.peer[pi].agg_mac);

	st->rx_data++;
	rp->path_rx[path]++;
	rp->path_rx_bytes[path] += wire_len;
	data_account(dp, rp, path, shim.path_seq, wire_len,
		(uint32_t)dp->conf.port[index].mtu + SB_ETH_HLEN, now);
	/* Data on a path makes it count in the loss rule until the peer says it stopped
	 * (SB_DP_MSG_RX_IDLE): activated before the frame goes in, so no gap this path
	 * could still fill is declared lost meanwhile. */
	sb_reorder_path_set_active(rp->reorder, path, true);
	rx->busy_peers |= UINT64_C(1) << pi;	/* its window owns frames: drained */
	switch (sb_reorder_insert(rp->reorder, path, shim.seq, m, now)) {
	case SB_REORDER_HELD:
		if (dp->auth)
			sb_dp_auth_pn_take(rp, pn);
		break;
	case SB_REORDER_LATE_DELIVERED:
		if (dp->auth)
			sb_dp_auth_pn_take(rp, pn);
		st->rx_late_delivered++;
		sb_dp_exc_put(dp, rx, m);
		break;
	case SB_REORDER_LATE_DROPPED:
		if (dp->auth)
			sb_dp_auth_pn_take(rp, pn);
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

/*
 * The hold of a peer's window: the configured timeout, which covers jitter and stalls,
 * plus how much later the peer's slowest path delivers than its fastest (the TX worker
 * publishes it from the hellos: sb_peer_delay_spread_us()), at most reorder_timeout_max.
 * A frame on the slow path arrives that much after later frames on the fast one; a fixed
 * hold shorter than that gives it up (it arrives late: out of order, or dropped), and a fixed hold long enough for the worst
 * spread makes every loss the RFC 1990 rule cannot resolve wait that long.
 */
uint64_t
sb_dp_rx_hold(const struct sb_dp *dp, const struct sb_dp_rx *rx, const struct sb_dp_rx_peer *rp)
{
	uint64_t to = rx->reorder_timeout;

	if (rx->reorder_timeout_max > to)
		to = RTE_MIN(to + (uint64_t)__atomic_load_n(&rp->delay_spread_us,
			__ATOMIC_RELAXED) * dp->hz / 1000000, rx->reorder_timeout_max);
	return to;
}

/* The window takes the hold before it drains (an empty window is not drained: it has no
 * gap to time out, and takes the hold with its next frame). */
static inline void
timeout_follow(struct sb_dp *dp, struct sb_dp_rx *rx, struct sb_dp_rx_peer *rp)
{
	uint64_t to = sb_dp_rx_hold(dp, rx, rp);

	if (to != rp->timeout_set) {
		sb_reorder_set_timeout(rp->reorder, to);
		rp->timeout_set = to;
	}
}

/*
 * Move what this worker's windows can release to its exception queue: at most @p room frames
 * (the rest stays in the windows, in order, for the next iteration), or everything when
 * @p room is UINT_MAX.
 */
static void
release_in_order(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now, unsigned int room)
{
	struct rte_mbuf *out[SB_BURST_MAX];
	unsigned int i, j, n, want;
	uint64_t busy = rx->busy_peers, t = 0;

	RTE_BUILD_BUG_ON(SB_MAX_PEERS > 64);	/* busy_peers has a bit per peer */

	/* Only windows that own frames: an idle appliance has a window per peer (16 in the
	 * bladecentre) and polls 200 times a second, and touching every one was the largest
	 * user-space cost of an idle instance (sb_reorder_drain, perf). */
	while (busy != 0 && room > 0) {
		struct sb_reorder *r;

		i = (unsigned int)__builtin_ctzll(busy);
		busy &= busy - 1;
		r = dp->rx_peer[i].reorder;
		if (r == NULL) {
			rx->busy_peers &= ~(UINT64_C(1) << i);
			continue;
		}
		timeout_follow(dp, rx, &dp->rx_peer[i]);
		do {
			want = RTE_MIN(room, (unsigned int)RTE_DIM(out));
			n = sb_reorder_drain(r, (void **)out, want, now);
			if (n != 0 && t == 0)
				t = rte_rdtsc();
			for (j = 0; j < n; j++) {
				sb_dp_lat_count(dp, dp->rx_peer[i].lat, out[j], t);
				sb_dp_exc_put(dp, rx, out[j]);
			}
			if (room != UINT_MAX)
				room -= n;
		} while (n == want && room > 0);
		if (sb_reorder_owned(r) == 0)
			rx->busy_peers &= ~(UINT64_C(1) << i);
	}
	if (busy != 0)
		rx->w->more = true;	/* windows left unread for want of room */
}

/* Read one burst from every started port of this worker and its input ring, at most *budget
 * frames in all (*budget is lowered by what was read). A round the budget cuts short starts
 * the next one at the first port it left unread. @return frames read; *full set when a burst
 * came back full (more may be waiting). */
static unsigned int
rx_round(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now, bool *full,
	uint16_t *max_batch, unsigned int *budget)
{
	struct rte_mbuf *pkts[SB_BURST_MAX];
	unsigned int i, j, n, total = 0;
	uint16_t burst = dp->conf.burst, want;
	uint64_t t;

	for (i = 0; i < rx->n_ports; i++) {
		unsigned int index = rx->ports[(rx->port_next + i) % rx->n_ports];

		if (*budget == 0) {
			rx->port_next = (rx->port_next + i) % rx->n_ports;
			return total;
		}
		if (unlikely(!rx->port_admin[index]))
			continue;
		want = RTE_MIN(burst, *budget);
		n = rte_eth_rx_burst(dp->conf.port[index].port_id, 0, pkts, want);
		if (n == 0)
			continue;
		*budget -= n;
		if (n == burst)
			*full = true;
		*max_batch = RTE_MAX(*max_batch, n);
		total += n;
		rx->stats->rx += n;
		t = rte_rdtsc();	/* when read: the poll may be old by now */
		for (j = 0; j < n; j++)
			sb_dp_stamp(dp, pkts[j], t);
		for (j = 0; j < n && j < 4; j++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[j], void *));
		for (j = 0; j < n; j++) {
			if (j + 4 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[j + 4], void *));
			rx_one(dp, rx, index, pkts[j], now);
		}
	}
	/* Every port had its turn: the next round starts at the first again. */
	rx->port_next = 0;
	/* Frames of our peers that arrived on other workers' ports. */
	if (*budget == 0)
		return total;
	n = rte_ring_dequeue_burst(rx->data_ring, (void **)pkts, RTE_MIN(burst, *budget), NULL);
	*budget -= n;
	if (n == burst)
		*full = true;
	*max_batch = RTE_MAX(*max_batch, n);
	for (j = 0; j < n; j++) {
		uint16_t pid = pkts[j]->port;
		unsigned int index = pid < RTE_MAX_ETHPORTS ? dp->port_index[pid] : UINT8_MAX;

		if (unlikely(index >= dp->n_ports)) {
			rte_pktmbuf_free(pkts[j]);
			continue;
		}
		rx_one(dp, rx, index, pkts[j], now);
	}
	return total + n;
}

void
sb_dp_rx_settle(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now)
{
	struct rte_mbuf *pkts[64];
	unsigned int j, n;

	while ((n = rte_ring_dequeue_burst(rx->data_ring, (void **)pkts, RTE_DIM(pkts),
			NULL)) > 0) {
		for (j = 0; j < n; j++) {
			uint16_t pid = pkts[j]->port;
			unsigned int index = pid < RTE_MAX_ETHPORTS ? dp->port_index[pid] :
				UINT8_MAX;

			if (unlikely(index >= dp->n_ports)) {
				rte_pktmbuf_free(pkts[j]);
				continue;
			}
			rx_one(dp, rx, index, pkts[j], now);
		}
	}
}

unsigned int
sb_dp_rx_ports(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now)
{
	/* Enough rounds to empty rings of a few thousand frames. */
	static const unsigned int max_rounds = 64;
	unsigned int rounds = 0, total = 0, room = SB_TXQ_CAP - rx->exc_txq.n, budget;
	bool full, stuck;

	/*
	 * One iteration takes no more frames than the exception queue has room for (each frame
	 * read gives the kernel at most one), and releases no more from the windows: the rest
	 * waits in the ports' rings and the windows, where it is safe, instead of overflowing
	 * the queue before the flush at the end of the iteration (exc_tx_drop; seen with
	 * lcore_mode = dedicated, when one iteration read thousands of frames). Hellos share
	 * those rings, so when the kernel side refuses frames for good (the queue stays full:
	 * sb0 down) one burst per port still comes in and the paths stay up; frames for the
	 * kernel that then find no room are dropped and counted, as they must be.
	 */
	stuck = room < dp->conf.burst;
	budget = stuck ? dp->conf.burst * (rx->n_ports + 1) : room;
	/*
	 * Empty the rings before the windows judge gaps: after a stall (the lcore preempted,
	 * a burst of arrivals) the frame that fills a gap may still sit in another port's
	 * ring, and declaring the gap lost by timeout first would make it late.
	 */
	do {
		full = false;
		total += rx_round(dp, rx, now, &full, &rx->w->max_batch, &budget);
	} while (full && budget > 0 && ++rounds < max_rounds);
	/* Frames may wait in the ports' rings: read them before any sleep. */
	if (full || budget == 0)
		rx->w->more = true;
	/* Drained every iteration, not only after arrivals: the gap timeout must fire even
	 * when nothing comes in. */
	release_in_order(dp, rx, now, stuck ? UINT_MAX : SB_TXQ_CAP - (unsigned int)rx->exc_txq.n);
	return total;
}

/*
 * The most frames peer @p arg (its struct sb_dp_rx_peer) could have numbered in @p elapsed
 * TSC cycles: what each of its paths could carry meanwhile at its published rate, summed
 * (struct sb_reorder_conf jump_bound). A window jump larger than that is not the peer's.
 */
static uint32_t
jump_bound(void *arg, uint64_t elapsed)
{
	const struct sb_dp_rx_peer *rp = arg;
	uint64_t sum = 0;
	unsigned int j;

	for (j = 0; j < SB_PEER_MAX_PATHS; j++) {
		uint32_t kbps = __atomic_load_n(&rp->path_rate_kbps[j], __ATOMIC_RELAXED);

		if (kbps != 0)
			sum += sb_path_frames_bound((uint64_t)kbps * 1000, elapsed, rp->hz);
	}
	return sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

/* A peer this worker owns was heard for the first time: its window. Created here, by its
 * owner, once per peer (rare), so memory follows the peers actually seen: at most
 * SB_MAX_PEERS windows, as many as the table holds; a peer that leaves the table takes its
 * window with it (SB_DP_MSG_PEER_GONE). A jump of the window needs confirmation on another
 * path and stays within what the peer's paths could have carried (docs/design.md, "Stray
 * frames"), so frames forged on one switch cannot throw it forward. */
static void
window_create(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int peer)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[peer];
	struct sb_reorder_conf rc = {
		.window = dp->conf.reorder_window,
		.late_policy = dp->conf.late_policy,
		.timeout = rx->reorder_timeout,
		.jump_confirm = SB_DP_JUMP_CONFIRM,
		.jump_bound = jump_bound,
		.jump_bound_arg = rp,
	};

	if (rp->reorder != NULL)
		return;
	rp->hz = dp->hz;
	if (sb_dp_auth_window_new(dp, rx, peer) != 0) {
		DP_LOG(ERR, "peer %u: no memory for its window of packet numbers: its data is "
			"dropped", rx->map.peer[peer].host_id);
		return;
	}
	rp->reorder = sb_reorder_create(&rc);
	rp->timeout_set = rc.timeout;
	if (rp->reorder == NULL)
		DP_LOG(ERR, "peer %u: no memory for its reorder window: its data is dropped",
			rx->map.peer[peer].host_id);
}

/* Count a frame a gone peer's window held as dropped (sb_reorder_free()'s free_obj). */
static void
free_gone(void *obj, void *arg)
{
	struct sb_dp_rx *rx = arg;

	rte_pktmbuf_free(obj);
	rx->stats->rx_peer_gone_drop++;
}

/* Peer @p peer left the table: forget its paths, free its window (what it held is dropped
 * and counted; its counters join reorder_gone), clear its counts. */
static void
peer_gone(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int peer, bool mine)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[peer];
	struct sb_reorder_stats st;

	if (mine)
		sb_dp_auth_peer_reset_rx(dp, rx, peer);
	sb_peer_map_clear_peer(&rx->map, peer);
	if (!mine)
		return;
	if (rp->reorder != NULL) {
		sb_reorder_stats_get(rp->reorder, &st);
		st.occupancy = 0;	/* what it holds is dropped below: rx_peer_gone_drop */
		sb_reorder_stats_add(&rx->reorder_gone, &st);
		sb_reorder_free(rp->reorder, free_gone, rx);
		rp->reorder = NULL;
	}
	rx->busy_peers &= ~(UINT64_C(1) << peer);
	/* The TX worker cleared what it writes here (delay spread, rates) before it sent
	 * the message; the rest is the owner's. */
	memset(rp->path_rx, 0, sizeof(rp->path_rx));
	memset(rp->path_rx_bytes, 0, sizeof(rp->path_rx_bytes));
	memset(rp->data, 0, sizeof(rp->data));
	memset(rp->path_last, 0, sizeof(rp->path_last));
	memset(rp->path_from, 0, sizeof(rp->path_from));
	memset(rp->lat, 0, sizeof(rp->lat));
	rp->timeout_set = 0;
}

void
sb_dp_rx_msgs(struct sb_dp *dp, struct sb_dp_rx *rx)
{
	struct sb_dp_msg msg[32];
	unsigned int i, n;

	while ((n = rte_ring_dequeue_burst_elem(rx->msg_ring, msg, sizeof(msg[0]),
			RTE_DIM(msg), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			const struct sb_dp_msg *g = &msg[i];
			bool mine = sb_dp_peer_rx(dp, g->peer) == rx->id;
			struct sb_dp_rx_peer *rp = &dp->rx_peer[g->peer];

			switch (g->type) {
			case SB_DP_MSG_PEER:
				sb_peer_map_set_peer(&rx->map, g->peer, g->host_id, g->mac);
				if (mine)
					window_create(dp, rx, g->peer);
				break;
			case SB_DP_MSG_PEER_RESET:
				sb_peer_map_reset_peer(&rx->map, g->peer);
				sb_dp_auth_paths_changed(dp, rx);
				/* A new instance: its keys come with its nonce (PEER_KEY). */
				if (mine)
					sb_dp_auth_peer_reset_rx(dp, rx, g->peer);
				if (!mine || rp->reorder == NULL)
					break;
				/* Its sequence numbers start afresh and its paths are learnt
				 * again: forget what we held and counted for it. */
				sb_reorder_reset(rp->reorder, sb_dp_free_mbuf, NULL);
				for (unsigned int j = 0; j < SB_PEER_MAX_PATHS; j++)
					sb_reorder_path_set_active(rp->reorder, j, false);
				memset(rp->path_rx, 0, sizeof(rp->path_rx));
				memset(rp->path_rx_bytes, 0, sizeof(rp->path_rx_bytes));
				memset(rp->data, 0, sizeof(rp->data));
				memset(rp->path_last, 0, sizeof(rp->path_last));
				memset(rp->path_from, 0, sizeof(rp->path_from));
				break;
			case SB_DP_MSG_PEER_GONE:
				peer_gone(dp, rx, g->peer, mine);
				sb_dp_auth_paths_changed(dp, rx);
				break;
			case SB_DP_MSG_PEER_KEY:
				if (mine)
					sb_dp_auth_peer_key_rx(dp, rx, g->peer, g->nonce);
				break;
			case SB_DP_MSG_SELF_KEY:
				sb_dp_auth_self_key_rx(dp, rx, g->gen, g->nonce);
				break;
			case SB_DP_MSG_PATH:
				sb_peer_map_set_path(&rx->map, g->peer, g->path, g->local_port,
					g->remote_port, g->mac);
				sb_dp_auth_paths_changed(dp, rx);
				break;
			case SB_DP_MSG_PATH_DOWN:
				if (mine) {
					sb_path_data_resync(&rp->data[g->path]);
					rp->path_last[g->path] = 0;
					rp->path_from[g->path] = 0;
				}
				break;
			case SB_DP_MSG_RX_IDLE:
				/* The peer stopped sending on it (it said so in a hello that
				 * followed its last data on this FIFO path): the loss rule must
				 * not wait for it. */
				if (mine && rp->reorder != NULL)
					sb_reorder_path_set_active(rp->reorder, g->path, false);
				break;
			case SB_DP_MSG_RX_ACTIVE:
				/* The peer put the path in its stripe: wait for it in the loss
				 * rule before its first frame arrives, or a frame on a slower
				 * path would be declared lost by the faster ones. */
				if (mine && rp->reorder != NULL)
					sb_reorder_path_set_active(rp->reorder, g->path, true);
				break;
			default:
				break;
			}
		}
	}
}

/* Hand the exception queue to the worker's exception path queue (sb_dp_queue_flush() for
 * sb_exc_tx_burst()): what it refuses waits at the front. */
static void
exc_flush(struct sb_dp *dp, struct sb_dp_rx *rx)
{
	struct sb_txq *q = &rx->exc_txq;
	uint16_t sent;

	if (q->n == 0)
		return;
	sent = sb_exc_tx_burst(dp->exc, rx->id, q->m, q->n);
	rx->stats->exc_tx += sent;
	if (sent < q->n)
		memmove(q->m, q->m + sent, (q->n - sent) * sizeof(q->m[0]));
	q->n -= sent;
}

unsigned int
sb_dp_rx_flush(struct sb_dp *dp, struct sb_dp_rx *rx)
{
	uint64_t before = rx->stats->exc_tx, sent = 0;
	unsigned int i;

	exc_flush(dp, rx);
	for (i = 0; i < rx->n_ports; i++) {
		unsigned int index = rx->ports[i];
		uint16_t pt = dp->conf.port[index].pt_port;

		if (pt != RTE_MAX_ETHPORTS)
			sb_dp_queue_flush(pt, 0, rx->pt_txq[index].m, &rx->pt_txq[index].n, &sent,
				NULL);
	}
	return rx->stats->exc_tx - before + sent;
}
