/* SPDX-License-Identifier: BSD-3-Clause */
/* Hellos in and out (probes included), carrier, and what follows from them: peers found,
 * paths up and down, paths in and out of the stripe. */
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_random.h>

#include "sb_dp_int.h"
#include "sb_port.h"

/* Hellos are kept small so they pass where big frames do not (that is what probes are
 * for); entries beyond this go to the next hellos (SB_HELLO_F_PARTIAL). */
#define HELLO_MAX_LEN 1024

/* Wall-clock time for path event lines: tests and operators line them up with the moment a
 * fault was made (and with the other hosts' logs). Events are rare; the call is cheap. */
static double
wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
sb_dp_msg_all(struct sb_dp *dp, const struct sb_dp_msg *msg)
{
	unsigned int i;

	for (i = 0; i < dp->n_rx; i++) {
		if (rte_ring_enqueue_elem(dp->rx[i]->msg_ring, (void *)(uintptr_t)msg,
				sizeof(*msg)) != 0)
			/* Sized for far more than a burst of events between two polls. */
			DP_LOG(ERR, "RX worker %u: message ring full: a peer or path event "
				"is lost", i);
		sb_dp_kick_later(dp->tx->w, dp->rx[i]->w);
	}
}

void
sb_dp_data_counts(void *arg, unsigned int peer, unsigned int path, struct sb_path_data *out)
{
	const struct sb_dp *dp = arg;
	const struct sb_path_data *d = &dp->rx_peer[peer].data[path];

	/* Written by the peer's RX worker: relaxed loads of counters it only ever raises. */
	out->frames = __atomic_load_n(&d->frames, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&d->lost, __ATOMIC_RELAXED);
	out->bytes = __atomic_load_n(&d->bytes, __ATOMIC_RELAXED);
	out->full = __atomic_load_n(&d->full, __ATOMIC_RELAXED);
}

uint32_t
sb_dp_data_sent(void *arg, unsigned int peer, unsigned int path)
{
	const struct sb_dp *dp = arg;
	const struct sb_dp_tx_peer *tp = &dp->tx->peer[peer];
	const struct sb_path *pa = &dp->tx->peers.peer[peer].path[path];

	/* The table runs on the TX worker, which alone writes these. A group hello numbered
	 * on the port reaches every path from it; the peer counts hellos with its data. */
	return tp->path_sent[path] + tp->uc_seq[path] + dp->tx->port[pa->local_port].hello_seq;
}

/* The queue edpf builds on purpose on path @p j (sb_sched_eligible()'s arrival horizon): up
 * to the delay difference between the slowest usable path and this one, us. */
static uint32_t
queue_allowance_us(const struct sb_peer *peer, unsigned int j)
{
	uint32_t spread = 0;
	unsigned int k;

	for (k = 0; k < peer->n_paths; k++)
		if (peer->path[k].usable && peer->path[k].fb.owd_min_us > spread)
			spread = peer->path[k].fb.owd_min_us;
	return spread > peer->path[j].fb.owd_min_us ? spread - peer->path[j].fb.owd_min_us : 0;
}

/* Start peer @p pi (host @p host_id) where it left off when it left the table (struct
 * sb_dp_seq_memory; the entry is taken), else at the configured or a random sequence number
 * and, with a key, above the packet numbers of every peer forgotten (sb_dp_auth.c). */
static void
seq_start(struct sb_dp *dp, unsigned int pi, uint32_t host_id)
{
	struct sb_dp_seq_memory *m = dp->tx->seq_memory;
	struct sb_dp_tx_peer *tp = &dp->tx->peer[pi];
	unsigned int k;

	for (k = 0; k < SB_DP_SEQ_MEMORY; k++)
		if (m[k].host_id == host_id) {
			m[k].host_id = 0;
			tp->tx_seq = m[k].tx_seq;
			tp->pn_hi = m[k].pn_hi;
			return;
		}
	tp->tx_seq = dp->conf.initial_seq_set ? dp->conf.initial_seq : (uint32_t)rte_rand();
	tp->pn_hi = dp->tx->pn_fresh;
}

/* Peer @p host_id leaves the table with @p tx_seq next (and @p pn_hi): remember it in a free
 * entry, else in the oldest. */
static void
seq_remember(struct sb_dp *dp, uint32_t host_id, uint32_t tx_seq, uint32_t pn_hi)
{
	struct sb_dp_seq_memory *m = dp->tx->seq_memory;
	unsigned int k, pick = 0;

	for (k = 0; k < SB_DP_SEQ_MEMORY; k++) {
		if (m[k].host_id == 0 || m[k].host_id == host_id) {
			pick = k;
			break;
		}
		if (m[k].gone < m[pick].gone)
			pick = k;
	}
	if (m[pick].host_id != 0 && m[pick].host_id != host_id)
		sb_dp_auth_seq_forgotten(dp, m[pick].pn_hi);
	m[pick] = (struct sb_dp_seq_memory){ host_id, tx_seq, pn_hi, rte_rdtsc() };
}

/*
 * Peer @p pi left the table: everything the TX worker keeps under its index starts afresh,
 * as for a peer never heard (the index comes back as the next new peer). Frames set aside
 * for it are dropped (tx_no_path: it has no path now); its scheduler starts over. Its
 * sequence number is remembered by host id (seq_remember()).
 */
static void
tx_peer_forget(struct sb_dp *dp, unsigned int pi, uint32_t host_id)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_tx_peer *tp = &tx->peer[pi];
	struct sb_sched_view empty = { .n_paths = 0 };
	uint64_t max_backlog_ns = tp->view.max_backlog_ns;

	seq_remember(dp, host_id, tp->tx_seq, tp->pn_hi);
	for (; tp->held_n > 0; tp->held_n--) {
		rte_pktmbuf_free(tp->held[tp->held_head]);
		tp->held_head = (tp->held_head + 1) % SB_DP_PEER_HELD;
		tx->n_held--;
		tx->stats->tx_no_path++;
	}
	sb_sched_fini(&tp->sched);
	{
		/* The cipher context stays with the slot (sb_dp_auth_create()), keyless. */
		struct sb_auth_data_key key = tp->tx_key;

		memset(tp, 0, sizeof(*tp));
		tp->tx_key = key;
		sb_dp_auth_peer_new(dp, pi);
	}
	tp->view.max_backlog_ns = max_backlog_ns;
	/* Its policy's init with no path cannot fail but for memory; the peer then has no
	 * scheduler state, which sb_sched_pick() of ops without state tolerates. */
	if (sb_sched_init(&tp->sched, tx->sched_ops, &empty) != 0)
		DP_LOG(ERR, "peer slot %u: scheduler %s: cannot start it afresh", pi,
			tx->sched_ops->name);
	__atomic_store_n(&dp->rx_peer[pi].delay_spread_us, 0, __ATOMIC_RELAXED);
	memset(dp->rx_peer[pi].path_rate_kbps, 0, sizeof(dp->rx_peer[pi].path_rate_kbps));
}

/* Say loudly that a second host uses peer @p peer's host id (struct sb_peer_dup): at most one
 * line a second (a forger repeating made-up instances must not flood the log; the counter
 * dup_host_ids counts them all). */
static void
dup_report(struct sb_dp *dp, const struct sb_peer *peer)
{
	char mac1[RTE_ETHER_ADDR_FMT_SIZE], mac2[RTE_ETHER_ADDR_FMT_SIZE],
		port2[RTE_ETHER_ADDR_FMT_SIZE];
	uint64_t now = rte_rdtsc();

	dp->tx->stats->dup_host_ids = dp->tx->peers.dup_host_ids;
	if (dp->tx->dup_logged != 0 && now - dp->tx->dup_logged < dp->hz)
		return;
	dp->tx->dup_logged = now;
	rte_ether_format_addr(mac1, sizeof(mac1), (const struct rte_ether_addr *)peer->agg_mac);
	rte_ether_format_addr(mac2, sizeof(mac2),
		(const struct rte_ether_addr *)peer->dup.agg_mac);
	rte_ether_format_addr(port2, sizeof(port2),
		(const struct rte_ether_addr *)peer->dup.port_mac);
	DP_LOG(ERR, "duplicate host id %u: host %s instance %08x and host %s instance %08x "
		"(port MAC %s, heard on our port %u) both use it; %s is kept, %s is refused: "
		"give each host its own host_id at %.6f", peer->host_id, mac1, peer->instance,
		mac2, peer->dup.instance, port2, peer->dup.local_port, mac1, mac2, wall_clock());
}

void
sb_dp_peer_event(void *arg, const struct sb_peer_event *ev)
{
	struct sb_dp *dp = arg;
	struct sb_dp_tx *tx = dp->tx;
	const struct sb_peer *peer = &tx->peers.peer[ev->peer];
	struct sb_dp_tx_peer *tp = &tx->peer[ev->peer];
	const struct sb_path *path = &peer->path[ev->path];
	struct sb_dp_msg msg = { .peer = ev->peer, .path = ev->path, .host_id = peer->host_id };
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	/* For the log lines of the rare events; feedback comes with every hello. */
	if (ev->type == SB_PEER_EV_NEW || ev->type == SB_PEER_EV_RESTART ||
			ev->type == SB_PEER_EV_AGG_MAC)
		rte_ether_format_addr(mac, sizeof(mac),
			(const struct rte_ether_addr *)peer->agg_mac);
	switch (ev->type) {
	case SB_PEER_EV_NEW:
		DP_LOG(INFO, "peer %u (%s) discovered", peer->host_id, mac);
		seq_start(dp, ev->peer, peer->host_id);
		sb_dp_auth_peer_new(dp, ev->peer);
		msg.type = SB_DP_MSG_PEER;
		memcpy(msg.mac, peer->agg_mac, SB_ETH_ALEN);
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_RESTART:
		/* Its sequence numbers start afresh and its paths are learnt again (perhaps
		 * numbered otherwise): forget what we counted for it; its RX worker resets
		 * its window. */
		DP_LOG(NOTICE, "peer %u (%s) restarted: reorder window reset at %.6f",
			peer->host_id, mac, wall_clock());
		memset(tp->path_seq, 0, sizeof(tp->path_seq));
		memset(tp->rbusy_ns, 0, sizeof(tp->rbusy_ns));
		memset(tp->path_tx, 0, sizeof(tp->path_tx));
		memset(tp->path_sent, 0, sizeof(tp->path_sent));
		memset(tp->path_tx_bytes, 0, sizeof(tp->path_tx_bytes));
		memset(tp->pbusy_ns, 0, sizeof(tp->pbusy_ns));
		memset(tp->est, 0, sizeof(tp->est));
		sb_dp_auth_peer_new(dp, ev->peer);	/* its new instance: a new nonce */
		msg.type = SB_DP_MSG_PEER_RESET;
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_AGG_MAC:
		DP_LOG(NOTICE, "peer %u now has aggregate MAC %s", peer->host_id, mac);
		msg.type = SB_DP_MSG_PEER;
		memcpy(msg.mac, peer->agg_mac, SB_ETH_ALEN);
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_PATH_NEW:
		msg.type = SB_DP_MSG_PATH;
		msg.local_port = path->local_port;
		msg.remote_port = path->remote_port;
		memcpy(msg.mac, path->remote_mac, SB_ETH_ALEN);
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_PATH_UP: {
		const struct sb_dp_port *p = &tx->port[path->local_port];

		/* Learnt afresh each time: what the path carries may have changed while it was
		 * down. The peer port's announced rate caps it too (sb_path_rate_bps()). */
		sb_path_est_init(&tp->est[ev->path], &tx->est_conf,
			sb_path_rate_bps(path, p->rate_bps),
			RTE_MIN(p->rate_start_bps, sb_path_rate_bps(path, p->rate_bps)),
			p->rate_configured, sb_tsc_to_ns(rte_rdtsc(), dp->hz));
		tp->pbusy_ns[ev->path] = 0;
		DP_LOG(INFO, "peer %u path %u up (port %u <-> peer port %u, %u kbit/s) at %.6f",
			peer->host_id, ev->path, path->local_port, path->remote_port,
			path->remote_rate_kbps, wall_clock());
		break;
	}
	case SB_PEER_EV_FEEDBACK:
		if (tx->adaptive_rate && tp->est[ev->path].cap_bps != 0)
			sb_path_est_report(&tp->est[ev->path], &tx->est_conf,
				sb_tsc_to_ns(rte_rdtsc(), dp->hz),
				(uint64_t)path->fb.rate_kbps * 1000,
				path->fb.owd_us > path->fb.owd_min_us ?
					path->fb.owd_us - path->fb.owd_min_us : 0,
				queue_allowance_us(peer, ev->path),
				tp->path_tx_bytes[ev->path]);
		break;
	case SB_PEER_EV_PATH_DOWN:
		DP_LOG(NOTICE, "peer %u path %u down (port %u <-> peer port %u): %s at %.6f",
			peer->host_id, ev->path, path->local_port, path->remote_port,
			sb_path_fault_str(ev->fault), wall_clock());
		if (path->state == SB_PATH_DOWN) {
			msg.type = SB_DP_MSG_PATH_DOWN;
			sb_dp_msg_all(dp, &msg);
		}
		break;
	case SB_PEER_EV_STRIPE_IN:
		DP_LOG(INFO, "peer %u path %u in the stripe at %.6f", peer->host_id, ev->path,
			wall_clock());
		break;
	case SB_PEER_EV_STRIPE_OUT:
		/* A path leaving UP says so above; this is for faults that keep it UP. */
		if (path->state == SB_PATH_UP)
			DP_LOG(NOTICE, "peer %u path %u out of the stripe: %s fault at %.6f",
				peer->host_id, ev->path, sb_path_fault_str(ev->fault),
				wall_clock());
		break;
	case SB_PEER_EV_RX_IDLE:
		msg.type = SB_DP_MSG_RX_IDLE;
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_RX_ACTIVE:
		msg.type = SB_DP_MSG_RX_ACTIVE;
		sb_dp_msg_all(dp, &msg);
		break;
	case SB_PEER_EV_SILENT:
		DP_LOG(NOTICE, "peer %u silent on every path: a frozen or gone host, paths held "
			"%u ms at %.6f", peer->host_id, dp->conf.peer_silence_hold_ms,
			wall_clock());
		break;
	case SB_PEER_EV_PEER_GONE:
		/* Its paths went down first (their events and messages); now its slot. */
		DP_LOG(NOTICE, "peer %u left the table: unheard on every path for %.1f s at "
			"%.6f", peer->host_id, (double)(rte_rdtsc() - peer->last_heard) / dp->hz,
			wall_clock());
		tx_peer_forget(dp, ev->peer, peer->host_id);
		msg.type = SB_DP_MSG_PEER_GONE;
		sb_dp_msg_all(dp, &msg);
		sb_dp_auth_peer_gone(dp, peer->host_id);
		break;
	case SB_PEER_EV_DUP_HOST_ID:
		dup_report(dp, peer);
		break;
	case SB_PEER_EV_HEARD:
		DP_LOG(NOTICE, "peer %u heard again after %.1f ms silent on every path (%s) "
			"at %.6f", peer->host_id,
			(double)(rte_rdtsc() - peer->silent_from) * 1000.0 / dp->hz,
			peer->silence_expired ? "its paths went down meanwhile" :
			"no path went down", wall_clock());
		break;
	default:
		break;
	}
}

/* Peer @p pi's delay spread for the owner of its window (sb_dp_rx.c, timeout_follow()),
 * in steps of 250 us: the owner's cache line is written when it moves, not at every hello. */
static inline void
spread_publish(struct sb_dp *dp, unsigned int pi)
{
	uint32_t v = (sb_peer_delay_spread_us(&dp->tx->peers, pi) + 249) / 250 * 250;

	if (v != __atomic_load_n(&dp->rx_peer[pi].delay_spread_us, __ATOMIC_RELAXED))
		__atomic_store_n(&dp->rx_peer[pi].delay_spread_us, v, __ATOMIC_RELAXED);
}

/*
 * Peer @p pi's path rates for the owner of its window: what each path could carry (the
 * smaller of our port's rate and the peer port's announced one, sb_path_rate_bps(); not the
 * estimate, which may sit below what arrives), 0 for a path that is down. The owner bounds
 * sequence gaps and window jumps by them (sb_dp_rx.c). Written only when one changes.
 */
static inline void
rates_publish(struct sb_dp *dp, unsigned int pi)
{
	const struct sb_peer *peer = &dp->tx->peers.peer[pi];
	uint32_t *out = dp->rx_peer[pi].path_rate_kbps;
	unsigned int j;

	for (j = 0; j < peer->n_paths; j++) {
		const struct sb_path *path = &peer->path[j];
		uint32_t v = path->state == SB_PATH_DOWN ? 0 : (uint32_t)RTE_MIN(
			sb_path_rate_bps(path, dp->tx->port[path->local_port].rate_bps) / 1000,
			(uint64_t)UINT32_MAX);

		if (v != __atomic_load_n(&out[j], __ATOMIC_RELAXED))
			__atomic_store_n(&out[j], v, __ATOMIC_RELAXED);
	}
}

/* The peer table's counters into the TX worker's (the one counter list every front end
 * prints). */
static void
table_counters_copy(struct sb_dp_tx *tx)
{
	const struct sb_peer_table *t = &tx->peers;
	struct sb_dp_stats *st = tx->stats;

	st->silence_holds = t->silence_holds;
	st->silence_heard = t->silence_heard;
	st->peers_evicted = t->evicted;
	st->peers_displaced = t->displaced;
	st->peer_restarts = t->restarts;
	st->restarts_refused = t->restarts_refused;
	st->restarts_limited = t->restarts_limited;
	st->dup_host_ids = t->dup_host_ids;
	st->rate_clamped = t->rate_clamped;
}

/*
 * A hello with our own host id from another instance: another host uses our host id (a clone
 * of this machine, a copied config), or a forger does. The peer table refuses it
 * (SB_PEER_REJ_SELF), and the hosts that hear both of us report the pair
 * (SB_PEER_EV_DUP_HOST_ID); we say it too, since we are the one an operator looks at. Each
 * new instance counts (dup_host_id_self); the log says so at most once a second. Our own
 * hellos looped back (two of our ports on one switch) carry our instance and are not this.
 */
static void
self_dup(struct sb_dp *dp, unsigned int index, const uint8_t *src_mac, const struct sb_hello *h,
	uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	char agg[RTE_ETHER_ADDR_FMT_SIZE], port[RTE_ETHER_ADDR_FMT_SIZE];

	if (h->instance == tx->instance || h->instance == tx->self_dup_instance)
		return;
	tx->self_dup_instance = h->instance;
	tx->stats->dup_host_id_self++;
	if (tx->self_dup_logged != 0 && now - tx->self_dup_logged < dp->hz) {
		tx->self_dup_quiet++;
		return;
	}
	rte_ether_format_addr(agg, sizeof(agg), (const struct rte_ether_addr *)h->agg_mac);
	rte_ether_format_addr(port, sizeof(port), (const struct rte_ether_addr *)src_mac);
	DP_LOG(ERR, "duplicate host id %u: host %s instance %08x (port MAC %s, heard on our "
		"port %u) uses our host id%s: give each host its own host_id at %.6f",
		h->host_id, agg, h->instance, port, index,
		tx->self_dup_quiet != 0 ? " (and other instances since the last such line)" : "",
		wall_clock());
	tx->self_dup_logged = now;
	tx->self_dup_quiet = 0;
}

unsigned int
sb_dp_hello_input(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	struct rte_mbuf *m[32];
	unsigned int i, n, total = 0;

	while ((n = rte_ring_dequeue_burst(dp->hello_ring, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *buf = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint16_t pid = m[i]->port;
			unsigned int index = pid < RTE_MAX_ETHPORTS ? dp->port_index[pid] :
				UINT8_MAX;
			uint32_t len = rte_pktmbuf_data_len(m[i]);
			bool tagged = (buf[15] & SB_WIRE_F_AUTH) != 0;
			struct sb_hello_auth a;
			struct sb_hello h;
			enum sb_wire_err e;

			e = index < dp->n_ports ? sb_wire_hello_decode(buf + SB_HDR_LEN,
				len - SB_HDR_LEN, &h) : SB_WIRE_E_HELLO;
			/* The trailer is part of the hello, key or no key; its tag covers the
			 * whole frame: one segment, all of it. */
			if (e == SB_WIRE_OK && tagged) {
				e = sb_wire_hello_auth_get(buf, len, &h, &a);
				if (e == SB_WIRE_OK && len != rte_pktmbuf_pkt_len(m[i]))
					e = SB_WIRE_E_TRUNCATED;
			}
			if (e != SB_WIRE_OK) {
				tx->stats->rx_err[e]++;	/* absurd, or shorter than its entries */
			} else if ((h.flags & SB_HELLO_F_UNICAST) &&
					memcmp(buf, tx->port[index].mac, SB_ETH_ALEN) != 0) {
				/* Another port's: a switch that had not learnt that port's MAC
				 * flooded it. Its list and numbering are that path's. */
				tx->stats->rx_hello++;
				tx->stats->rx_hello_not_ours++;
			} else if (!sb_dp_auth_hello_rx(dp, index, buf, len, &h, tagged ? &a : NULL,
					now)) {
				/* counted by reason (rx_auth_*) */
			} else {
				tx->stats->rx_hello++;
				int pi = sb_peer_hello_rx(&tx->peers, index, buf + SB_ETH_ALEN,
					&h, rte_pktmbuf_pkt_len(m[i]), tx->port[index].mtu, now);

				if (pi < 0) {
					tx->stats->rx_hello_rejected++;
					if (h.host_id == dp->conf.host_id)
						self_dup(dp, index, buf + SB_ETH_ALEN, &h, now);
				} else {
					sb_dp_auth_hello_taken(dp, (unsigned int)pi, &h,
						tagged ? &a : NULL);
					spread_publish(dp, (unsigned int)pi);
					rates_publish(dp, (unsigned int)pi);
				}
			}
			rte_pktmbuf_free(m[i]);
		}
		total += n;
	}
	return total;
}

/* Queue a hello ahead of the port's data. */
static void
ctlq_put(struct sb_dp *dp, struct sb_dp_port *p, struct rte_mbuf *m, bool probe)
{
	struct sb_dp_stats *st = dp->tx->stats;

	if (p->ctlq.n == SB_CTLQ_CAP) {
		rte_pktmbuf_free(m);
		st->tx_hello_drop++;
		return;
	}
	p->ctlq.m[p->ctlq.n++] = m;
	st->tx_hello++;
	if (probe)
		st->tx_probe++;
}

/* What a hello announces: the gap its receiver may expect until our next one, and the
 * period of our full-size probes (RFC 5880 s.6.8.4: the receiver's detection follows). */
struct hello_pace {
	uint16_t interval_ms;
	uint16_t probe_ms;
};

/* The pace of the host now (fast, or the idle pace once the host carries nothing). */
static struct hello_pace
pace_now(const struct sb_dp *dp)
{
	return (struct hello_pace){ dp->tx->hello_interval_ms, dp->tx->probe_interval_ms };
}


/* The path a unicast hello (SB_HELLO_F_UNICAST) is sent on, and its hello counter. */
struct hello_path {
	unsigned int peer;
	unsigned int path;
	uint32_t *uc_seq;
};

/*
 * One hello on port @p p to @p dst, announcing @p pace; padded to @p pad_to bytes when it
 * is a full-size probe (0: not a probe). @p uc: the path when it is a unicast hello, which
 * lists that path alone; NULL: a hello that lists everything we hear on the port.
 */
static void
hello_send(struct sb_dp *dp, struct sb_dp_port *p, const uint8_t *dst, uint16_t pad_to,
	struct hello_pace pace, const struct hello_path *uc, uint64_t now)
{
	struct sb_hello_entry entries[(HELLO_MAX_LEN - SB_HDR_LEN - SB_HELLO_LEN) /
		SB_HELLO_ENTRY_LEN];
	/* An authenticated hello's trailer comes out of the same room. */
	unsigned int max = sb_wire_hello_max_entries(RTE_MIN((unsigned int)HELLO_MAX_LEN,
		(unsigned int)p->mtu + SB_ETH_HLEN) - (dp->auth ? SB_HELLO_AUTH_LEN : 0));
	struct sb_hello h = {
		.host_id = dp->conf.host_id,
		.instance = dp->tx->instance,
		.port_index = p->index,
		.n_ports = dp->n_ports,
		.rate_kbps = (uint32_t)(p->rate_bps / 1000),
		.interval_ms = pace.interval_ms,
		.mtu = p->mtu,
		.multiplier = dp->conf.hello_multiplier,
		.probe_interval_ms = pace.probe_ms,
		/* A unicast probe reaches one peer port: it repeats the last number rather
		 * than leave a gap (counted as loss) at every other port on the switch. */
		.hello_seq = dst[0] & 0x01 ? p->hello_seq : p->hello_seq - 1,
		.tx_time_us = sb_peer_clock_us(&dp->tx->peers, now),
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp->mp);
	bool partial;
	size_t len, room;
	uint8_t *buf;

	if (m == NULL) {
		dp->tx->stats->tx_nombuf++;
		return;
	}
	if (uc != NULL) {
		/* Only its receiver's entry: the whole list made a blade's unicast hellos 510
		 * bytes, a quarter of a 25 Mbit/s gateway port under 16 -> 1 (docs/design.md,
		 * "Unicast hellos"), and each filled every path's entry, so the second hello of
		 * a round reported a rate window of microseconds. */
		h.n_entries = sb_peer_hello_entry_path(&dp->tx->peers, uc->peer, uc->path, now,
			p->txq.n != 0, entries);
		h.flags |= SB_HELLO_F_UNICAST;
		h.hello_seq = (*uc->uc_seq)++;
	} else {
		/* A group hello at the idle pace is brief: every host on the switch hears it,
		 * and only paths that carry data need measurements, which they get in unicast
		 * hellos, fast-pace hellos and the probes (full entries, in what is padding
		 * anyway). 17 entries are then 198 bytes instead of 538 (docs/design.md, "Brief
		 * hellos"). Not without probes: the counters would never be sent. */
		bool brief = dp->conf.hello_brief && pad_to == 0 &&
			pace.interval_ms > dp->tx->hello_active_ms && pace.probe_ms != 0;

		h.n_entries = sb_peer_hello_entries(&dp->tx->peers, p->index, now,
			p->txq.n != 0, entries, RTE_MIN(max, (unsigned int)RTE_DIM(entries)),
			&p->entry_cursor, &partial, brief);
		if (partial)
			h.flags |= SB_HELLO_F_PARTIAL;
		if (brief) {
			h.flags |= SB_HELLO_F_BRIEF;
			dp->tx->stats->tx_hello_brief++;
		}
	}
	if (pad_to != 0)
		h.flags |= SB_HELLO_F_PROBE;
	sb_dp_auth_entries(dp, entries, h.n_entries);
	memcpy(h.agg_mac, dp->conf.mac, SB_ETH_ALEN);
	room = rte_pktmbuf_tailroom(m);
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	len = sb_wire_put_hello(buf, room, dst, p->mac, p->index, &h, entries, pad_to);
	if (len != 0)
		len = sb_dp_auth_hello_tx(dp, p->index, buf, len, room);
	if (len == 0) {
		/* The pool's buffers are sized for the largest port MTU: cannot happen. */
		rte_pktmbuf_free(m);
		dp->tx->stats->tx_nombuf++;
		return;
	}
	rte_pktmbuf_append(m, len);
	if ((dst[0] & 0x01) && uc == NULL)
		p->hello_seq++;
	ctlq_put(dp, p, m, pad_to != 0);
}

/*
 * Full-size probes on port @p p: one to the hello group, padded to the port's MTU, and one
 * unicast to each peer port whose MTU is smaller (it could not receive the first). Those
 * take at most half the port's control queue: peers announcing small MTUs (forged ones, by
 * the dozen) must not crowd out the hellos that keep real paths up. What does not fit goes
 * first in the next probe round (tx_probe_deferred), so every such path is probed in turn.
 */
static void
probes_send(struct sb_dp *dp, struct sb_dp_port *p, struct hello_pace pace, uint64_t now)
{
	static const uint8_t hello_mac[SB_ETH_ALEN] = SB_HELLO_MAC;
	const struct sb_peer_table *t = &dp->tx->peers;
	unsigned int k, i, j, start = p->probe_cursor, next = 0;
	bool full = false;

	hello_send(dp, p, hello_mac, p->mtu + SB_ETH_HLEN, pace, NULL, now);
	for (k = 0; k < t->n_peers; k++) {
		const struct sb_peer *peer;

		i = (start + k) % t->n_peers;
		peer = &t->peer[i];
		for (j = 0; j < peer->n_paths; j++) {
			const struct sb_path *path = &peer->path[j];

			if (path->local_port != p->index || path->state == SB_PATH_DOWN ||
					path->remote_mtu >= p->mtu)
				continue;
			if (p->ctlq.n >= SB_CTLQ_CAP / 2) {
				if (!full)
					next = i;	/* the first left out starts next time */
				full = true;
				dp->tx->stats->tx_probe_deferred++;
				continue;
			}
			hello_send(dp, p, path->remote_mac, path->remote_mtu + SB_ETH_HLEN, pace,
				NULL, now);
		}
	}
	p->probe_cursor = full ? next : 0;
}

/* Frames other than hellos that any worker moved: the host is in use. Other lcores'
 * counters are read as they are (aligned 64-bit words): a stale value delays a change of
 * pace by one tick at most. */
static uint64_t
pace_activity(const struct sb_dp *dp)
{
	uint64_t a = 0;
	unsigned int k;

	for (k = 0; k < dp->n_workers; k++) {
		const struct sb_dp_stats *st = &dp->worker[k].stats;

		a += __atomic_load_n(&st->exc_rx, __ATOMIC_RELAXED) +
			__atomic_load_n(&st->rx_data, __ATOMIC_RELAXED) +
			__atomic_load_n(&st->tx_passthrough, __ATOMIC_RELAXED);
	}
	return a;
}

/* The probe interval that goes with hellos every @p hello_ms, ms: probes slow down in
 * proportion, so a port hears as many hellos per probe. */
static uint16_t
probe_ms_at(const struct sb_dp *dp, uint16_t hello_ms)
{
	uint64_t probe_ms = dp->conf.mtu_probe_interval_ms;

	if (hello_ms != dp->tx->hello_active_ms)
		probe_ms = RTE_MIN(probe_ms * hello_ms / dp->tx->hello_active_ms, (uint64_t)60000);
	return (uint16_t)probe_ms;
}

/* Set the pace hellos and probes announce and keep. */
static void
pace_set(struct sb_dp *dp, uint16_t hello_ms)
{
	struct sb_dp_tx *tx = dp->tx;
	uint64_t probe_ms = probe_ms_at(dp, hello_ms);

	tx->hello_interval_ms = hello_ms;
	tx->hello_period = (uint64_t)hello_ms * dp->hz / 1000;
	tx->probe_interval_ms = (uint16_t)probe_ms;
	tx->probe_period = probe_ms * dp->hz / 1000;
}

/* Enter or leave the idle pace. The lcore's timer then ticks every SB_DP_SLOW_TICK_US or
 * every millisecond (sb_dp.c), and a gap between two ticks is a stall of the lcore only
 * beyond that tick (sb_peer_tick()). */
static void
slow_set(struct sb_dp *dp, bool slow)
{
	struct sb_dp_tx *tx = dp->tx;

	__atomic_store_n(&tx->hello_slow, slow, __ATOMIC_RELAXED);
	tx->peers.conf.tick_stall = sb_dp_tick_stall(dp, slow);
	if (!slow)
		tx->peers.last_tick = 0;	/* the gap since the last slow tick is no stall */
}

/* The idle pace: hellos at hello_idle_interval_ms, probes slowed in proportion. */
static struct hello_pace
pace_idle(const struct sb_dp *dp)
{
	uint16_t hello_ms = dp->tx->hello_idle_ms;

	return (struct hello_pace){ hello_ms, probe_ms_at(dp, hello_ms) };
}

/*
 * The idle interval for the peers heard now: hello_idle_interval_ms, lengthened so that a port
 * hears at most about hello_idle_rx_max group hellos a second from idle hosts. A switch
 * floods every group hello to every host on it, so at a fixed interval each instance's idle
 * cost grows with the cluster: 17 idle hosts at 100 ms took 1.2 % of a core per instance, two
 * thirds of it the kernel delivering hellos (docs/design.md, "Idle hellos that scale"). Here a
 * port's idle hello load stays flat as hosts are added, and the idle detection time (interval
 * x multiplier) grows instead. Peers count while any path to them is up, so hosts that left
 * stop counting once their paths are down.
 */
static uint16_t
idle_ms_for_peers(const struct sb_dp *dp)
{
	const struct sb_dp_tx *tx = dp->tx;
	uint64_t ms = RTE_MIN(dp->conf.hello_idle_interval_ms, (uint32_t)UINT16_MAX);
	uint64_t rx_max = dp->conf.hello_idle_rx_max, need;
	unsigned int i, j, n = 0;

	if (rx_max == 0 || ms <= tx->hello_active_ms)
		return (uint16_t)ms;
	for (i = 0; i < tx->peers.n_peers; i++) {
		const struct sb_peer *peer = &tx->peers.peer[i];

		for (j = 0; j < peer->n_paths; j++) {
			if (peer->path[j].state != SB_PATH_DOWN) {
				n++;
				break;
			}
		}
	}
	need = ((uint64_t)n * 1000 + rx_max - 1) / rx_max;
	return (uint16_t)RTE_MIN(RTE_MAX(ms, need), (uint64_t)60000);
}

/*
 * Hellos towards a cluster that is idle: every port hears every host's hellos, so 17 hosts at
 * 100 hellos a second per port keep every instance busy doing nothing (docs/design.md, "Deep
 * idle"). A host that has carried no traffic for SB_DP_HELLO_IDLE_AFTER_MS announces and
 * keeps hello_idle_interval_ms instead (and probes in proportion), as BFD's slow timers do;
 * its peers take the interval from each hello (RFC 5880 s.6.8.4), so their detection time
 * follows. The first frame of traffic brings the fast pace back at once: a hello (a probe,
 * so that peers' probe timers follow too) leaves every port in the same tick. The cost: a
 * path that fails while both ends are idle is noticed after up to idle interval x multiplier.
 */
static void
hello_pace(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	uint64_t a;
	unsigned int i;

	if (now >= tx->next_hello) {
		/* Once a round: the peers heard change slowly. The hello due announces the new
		 * interval, the one after keeps it. */
		uint16_t idle_ms = idle_ms_for_peers(dp);

		if (idle_ms != tx->hello_idle_ms) {
			tx->hello_idle_ms = idle_ms;
			if (tx->hello_slow)
				pace_set(dp, idle_ms);
		}
	}
	if (tx->hello_idle_ms <= tx->hello_active_ms) {
		if (tx->hello_slow) {
			slow_set(dp, false);
			pace_set(dp, tx->hello_active_ms);
			tx->next_hello = now;
		}
		return;
	}
	a = pace_activity(dp);
	if (a != tx->pace_activity) {
		tx->pace_activity = a;
		tx->pace_last = now;
		if (tx->hello_slow) {
			slow_set(dp, false);
			pace_set(dp, tx->hello_active_ms);
			tx->next_hello = now;
			for (i = 0; i < dp->n_ports; i++)
				tx->port[i].next_probe = now;
		}
	} else if (!tx->hello_slow &&
			now - tx->pace_last >= (uint64_t)SB_DP_HELLO_IDLE_AFTER_MS * dp->hz / 1000) {
		/* The hello already due announces the slow pace; the one after keeps it. */
		slow_set(dp, true);
		tx->stats->hello_slow++;
		pace_set(dp, tx->hello_idle_ms);
	}
}

/*
 * Unicast hellos. Hellos go to a group address, and a switch floods each to every host on
 * it: in a cluster of 17 hosts on 6 switches every port hears 16 hosts' hellos, about
 * 100 000 received a second in all under 16 -> 1 (bench/results/notes/cluster.md, "Unicast
 * hellos"), though a host mostly
 * exchanges traffic with one or two peers (16 blades -> one gateway). Liveness
 * needs the fast pace only on the paths that carry traffic: elsewhere a failure costs
 * nothing until traffic starts, and the idle pace (as between idle hosts) suffices. So while
 * the host is at the fast pace, a port where that is cheaper sends its fast hellos unicast,
 * one to each path of the peers in use (SB_DP_PEER_USE_FRAMES data frames either way within
 * SB_DP_HELLO_IDLE_AFTER_MS), and its group hellos at the idle pace, announcing it. Each
 * hello announces the pace of the stream it belongs to; a peer's detection time follows the
 * unicast stream while it lasts (a group hello does not lengthen it: lib/peer,
 * hello_pace_rx()), then the group's. A peer coming into use gets a full-size probe at
 * once (its probe timer follows the fast pace from then on); one going out of use gets a
 * last unicast hello announcing the idle pace before they stop. Unicast hellos are
 * numbered per path (SB_HELLO_F_UNICAST), apart from the port's group hellos, so the
 * receiver counts the losses of each stream. The cost this saves: in the bladecentre under
 * 16 -> 1, the 17 hosts receive about 27 000 hellos a second instead of 100 000.
 */

/* Data frames both ways with peer @p i: the count moves while the peer is in use. */
static uint64_t
peer_traffic(const struct sb_dp *dp, unsigned int i)
{
	const struct sb_dp_tx_peer *tp = &dp->tx->peer[i];
	const struct sb_dp_rx_peer *rp = &dp->rx_peer[i];
	unsigned int j, n = dp->tx->peers.peer[i].n_paths;
	uint64_t c = 0;

	for (j = 0; j < n; j++)
		c += tp->path_tx[j] + __atomic_load_n(&rp->data[j].frames, __ATOMIC_RELAXED);
	return c;
}

/*
 * Data frames with a peer within one SB_DP_HELLO_IDLE_AFTER_MS that put it in use. The
 * kernels' own chatter (ARP, IPv6 neighbour and router solicitations, MLD reports) is
 * flooded to every peer, a frame every second or two: it must not put every peer in use.
 * A ping every 100 ms does, and any TCP connection that moves data.
 */
#define SB_DP_PEER_USE_FRAMES 8

/* Once per round of hellos: which peers are in use, which came into or went out of use. */
static void
peers_in_use(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	uint64_t after = (uint64_t)SB_DP_HELLO_IDLE_AFTER_MS * dp->hz / 1000;
	unsigned int i;

	for (i = 0; i < tx->peers.n_peers; i++) {
		struct sb_dp_tx_peer *tp = &tx->peer[i];
		uint64_t c = peer_traffic(dp, i);

		tp->use_new = 0;
		tp->use_ended = 0;
		if (c < tp->use_mark)
			tp->use_mark = c;	/* the peer restarted: its counts start afresh */
		if (c - tp->use_mark >= SB_DP_PEER_USE_FRAMES) {
			tp->use_mark = c;
			tp->use_mark_t = now;
			tp->use_last = now;
			if (!tp->in_use)
				tp->in_use = tp->use_new = 1;
			continue;
		}
		if (now - tp->use_mark_t >= after) {
			/* Fewer than that in a whole span: start counting afresh. */
			tp->use_mark = c;
			tp->use_mark_t = now;
		}
		if (tp->in_use && now - tp->use_last >= after) {
			tp->in_use = 0;
			tp->use_ended = 1;
		}
	}
}

/*
 * Whether port @p p should hello unicast this round: a group hello costs a send and a copy
 * to each of the N peers on the switch, unicast ones a send and a delivery each, one per
 * path in use; unicast while 2 x paths < N + 1, and while they fit the control queue.
 */
static bool
port_unicast_cheaper(const struct sb_dp *dp, const struct sb_dp_port *p)
{
	const struct sb_dp_tx *tx = dp->tx;
	unsigned int i, j, n = 0, used = 0;

	for (i = 0; i < tx->peers.n_peers; i++) {
		const struct sb_peer *peer = &tx->peers.peer[i];
		bool here = false;

		for (j = 0; j < peer->n_paths; j++) {
			if (peer->path[j].local_port != p->index)
				continue;
			here = true;
			if (tx->peer[i].in_use || tx->peer[i].use_ended)
				used++;
		}
		n += here;
	}
	return 2 * used < n + 1 && used + 2 <= SB_CTLQ_CAP / 2;
}

/*
 * A round on port @p p while it hellos unicast (@p bit: its bit in the table's masks; @p
 * round: the fast pace's round is due): the group stream at the idle pace, then one hello
 * (or probe) to each path of the peers in use on the port.
 */
static void
port_hellos_unicast(struct sb_dp *dp, struct sb_dp_port *p, uint32_t bit, bool round,
	uint64_t now)
{
	static const uint8_t hello_mac[SB_ETH_ALEN] = SB_HELLO_MAC;
	struct sb_dp_tx *tx = dp->tx;
	struct hello_pace idle = pace_idle(dp), fast = pace_now(dp);
	bool triggered = (tx->peers.hello_due & bit) != 0;
	bool probe = false;
	unsigned int i, j;

	if (idle.probe_ms != 0 && tx->probe_period != 0 &&
			(now >= p->next_group_probe || (tx->peers.probe_due & bit))) {
		p->next_group_probe = now + (uint64_t)idle.probe_ms * dp->hz / 1000;
		p->next_group = now + (uint64_t)idle.interval_ms * dp->hz / 1000;
		probes_send(dp, p, idle, now);
	} else if (now >= p->next_group || triggered) {
		p->next_group = now + (uint64_t)idle.interval_ms * dp->hz / 1000;
		hello_send(dp, p, hello_mac, 0, idle, NULL, now);
		if (triggered && !round)
			tx->stats->tx_hello_triggered++;
	}
	if (!round && !triggered && !(tx->peers.probe_due & bit))
		return;
	if (tx->probe_period != 0 && (now >= p->next_probe || (tx->peers.probe_due & bit))) {
		p->next_probe = now + tx->probe_period;
		probe = true;
	}
	for (i = 0; i < tx->peers.n_peers; i++) {
		struct sb_dp_tx_peer *tp = &tx->peer[i];
		const struct sb_peer *peer = &tx->peers.peer[i];

		if (!tp->in_use && !tp->use_ended)
			continue;
		for (j = 0; j < peer->n_paths; j++) {
			const struct sb_path *path = &peer->path[j];
			uint16_t pad = 0;

			if (path->local_port != p->index)
				continue;
			if ((probe || tp->use_new) && tx->probe_period != 0)
				pad = RTE_MIN(path->remote_mtu, p->mtu) + SB_ETH_HLEN;
			/* A path that carried DATA at the peer port's full MTU since its last
			 * probe round needs no probe: the peer counts such frames as one (a
			 * blade's probes were a third of the hello bytes into a gateway port
			 * under 16 -> 1; docs/design.md, "Unicast hellos"). Only where our MTU
			 * reaches the peer's: our frames could not reach its threshold else. */
			if (pad != 0 && !tp->use_new && p->mtu >= path->remote_mtu &&
					tp->full_tx[j] != tp->full_tx_probed[j]) {
				pad = 0;
				tx->stats->tx_probe_elided++;
			}
			if (probe || tp->use_new)
				tp->full_tx_probed[j] = tp->full_tx[j];
			hello_send(dp, p, path->remote_mac, pad, tp->use_ended ? idle : fast,
				&(struct hello_path){ i, j, &tp->uc_seq[j] }, now);
			tx->stats->tx_hello_unicast++;
		}
	}
}

/* Port @p p starts or stops sending unicast hellos. */
static void
port_unicast_set(struct sb_dp *dp, struct sb_dp_port *p, bool on, uint64_t now)
{
	if (on == (bool)p->ucast)
		return;
	p->ucast = on;
	if (on) {
		/* Group hellos announce the idle pace from now on, starting with this round's;
		 * the peers in use get a probe at the unicast pace at once. */
		struct hello_pace idle = pace_idle(dp);

		p->next_group = now;
		p->next_group_probe = now + (uint64_t)idle.probe_ms * dp->hz / 1000;
	}
	/* Either way a probe at the new pace leaves this round: a peer that heard only the
	 * idle group stream expects probes at the fast pace from the next hello on. */
	p->next_probe = now;
}

void
sb_dp_hello_tick(struct sb_dp *dp, uint64_t now)
{
	static const uint8_t hello_mac[SB_ETH_ALEN] = SB_HELLO_MAC;
	struct sb_dp_tx *tx = dp->tx;
	uint64_t link_poll_ms;
	bool poll, hello_due, unicast;
	unsigned int i;

	hello_pace(dp, now);
	sb_dp_auth_tick(dp, now);
	/* Carrier every 10 ms; every 50 at the idle pace, where an idle cluster's instances
	 * spent about 5 % of their time in these system calls (one per port), and hellos
	 * take 400 ms to tell a failure anyway. */
	link_poll_ms = tx->hello_slow ? 50 : 10;
	poll = now - tx->last_link_poll >= link_poll_ms * dp->hz / 1000;
	hello_due = now >= tx->next_hello;
	/* At the idle pace every hello is a group one already. */
	unicast = dp->conf.hello_unicast && !tx->hello_slow &&
		tx->hello_idle_ms > tx->hello_active_ms;
	if (dp->conf.hello_unicast && hello_due)
		peers_in_use(dp, now);

	for (i = 0; i < dp->n_ports; i++) {
		struct sb_dp_port *p = &tx->port[i];
		uint32_t bit = UINT32_C(1) << i;
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
					sb_peer_port_down(&tx->peers, p->index, now);
			}
		}
		if (!p->link_up)
			continue;
		if (hello_due || !unicast)
			port_unicast_set(dp, p, unicast && port_unicast_cheaper(dp, p), now);
		if (p->ucast) {
			port_hellos_unicast(dp, p, bit, hello_due, now);
			tx->peers.probe_due &= ~bit;
		} else if (tx->probe_period != 0 &&
				(now >= p->next_probe || (tx->peers.probe_due & bit))) {
			/* A probe is a hello too: it replaces this round's plain one. */
			tx->peers.probe_due &= ~bit;
			p->next_probe = now + tx->probe_period;
			probes_send(dp, p, pace_now(dp), now);
		} else if (hello_due) {
			hello_send(dp, p, hello_mac, 0, pace_now(dp), NULL, now);
		} else if (tx->peers.hello_due & bit) {
			hello_send(dp, p, hello_mac, 0, pace_now(dp), NULL, now);
			tx->stats->tx_hello_triggered++;
		}
	}
	/* Served above, or moot (port down); the tick below may set bits for the next round. */
	tx->peers.hello_due = 0;
	if (poll)
		tx->last_link_poll = now;
	if (hello_due) {
		/* Keep the cadence (peers judge loss by it); re-anchor after a stall. */
		tx->next_hello += tx->hello_period;
		if (tx->next_hello <= now)
			tx->next_hello = now + tx->hello_period;
	}
	sb_peer_tick(&tx->peers, now);
	table_counters_copy(tx);
	if (tx->peers.tick_stalls != tx->stats->tick_stalls) {
		uint64_t us = tx->peers.tick_stall_last * 1000000 / dp->hz;

		tx->stats->tick_stalls = tx->peers.tick_stalls;
		/* Long enough to matter next to a detection time: say so, with the time, so a
		 * peer's path-down at that moment can be told from a fault. */
		if (us >= 20000)
			DP_LOG(NOTICE, "TX lcore stalled %.1f ms (path timers held) at %.6f",
				us / 1000.0, wall_clock());
	}
}

void
sb_dp_port_down(struct sb_dp *dp, struct sb_dp_port *p, uint64_t now)
{
	rte_pktmbuf_free_bulk(p->txq.m, p->txq.n);
	dp->tx->stats->tx_queue_drop += p->txq.n;
	p->txq.n = 0;
	rte_pktmbuf_free_bulk(p->ctlq.m, p->ctlq.n);
	dp->tx->stats->tx_hello_drop += p->ctlq.n;
	p->ctlq.n = 0;
	sb_peer_port_down(&dp->tx->peers, p->index, now);
}
