/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster authentication in the datapath (docs/wire-format.md, "Cluster key"; the
 * cryptography is lib/auth's): DATA frames tagged on their way out and checked on their way
 * in, with their packet numbers; hellos signed and checked, within a budget of checks per
 * port; session nonces; the keys changed by command (a rollover); the refusal alarm.
 *
 * Who holds what: the TX worker owns the hello side (its keyring copy, our session nonce and
 * key generation, the crypto sequence of every sending port, the replay marks of every stream
 * heard, each peer's nonce and generation) and the key that tags our DATA frames to each
 * peer. The RX worker that owns a peer's window holds the keys that peer's DATA frames verify
 * with (of our generation, and of the one before for a grace period) and the packet numbers
 * it took, derived from what the TX worker's messages carry. The RX worker that polls a port
 * spends its budget of hello checks. Keyrings live in secret memory (sb_keymem.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_malloc.h>

#include "sb_dp_int.h"
#include "sb_keymem.h"

/* How long the keys of our previous generation still verify: peers re-key at our next hello
 * (at most the idle pace, 200 ms in a cluster of 16), and frames already on the wire follow. */
#define PREV_GEN_GRACE_MS 2000

/* Most segments of a DATA frame the tag covers (a jumbo frame in 2 KiB mbufs: 5). */
#define DATA_MAX_SEGS 16

/* Say why a frame was refused, at most every SB_DP_LOG_EVERY_S per reason and worker. */
static void
refused(struct sb_dp_worker *w, enum sb_dp_log_what what, unsigned int index,
	const uint8_t *frame, const char *kind, uint64_t now, const char *why)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (!sb_dp_log_allowed(w, what, now))
		return;
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)(frame +
		SB_ETH_ALEN));
	DP_LOG(WARNING, "port %u: %s from %s refused: %s (at most one such line every %u s)",
		index, kind, mac, why, SB_DP_LOG_EVERY_S);
}

/* Copy @p ring into a worker's secret copy @p *dst (allocated on first use). */
static int
keyring_copy(struct sb_auth_keyring **dst, const struct sb_auth_keyring *ring)
{
	if (*dst == NULL) {
		*dst = sb_keymem_zalloc(sizeof(**dst));
		if (*dst == NULL)
			return -ENOMEM;
	}
	**dst = *ring;
	return 0;
}

/* --- TX worker: our DATA keys, hellos out and in ---------------------------------------- */

void
sb_dp_auth_peer_tx(struct sb_dp *dp, unsigned int pi)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_tx_peer *tp = &tx->peer[pi];
	const struct sb_auth_key *k;
	struct sb_auth_dir_ids ids = {
		.tx_host = dp->conf.host_id, .rx_host = tx->peers.peer[pi].host_id,
	};

	if (!dp->auth)
		return;
	k = sb_auth_ring_send_key(tx->keyring);
	if (!tp->nonce_set || k == NULL) {
		sb_auth_data_key_clear(&tp->tx_key);
		return;
	}
	memcpy(ids.tx_nonce, tx->nonce, SB_AUTH_NONCE_LEN);
	memcpy(ids.rx_nonce, tp->nonce, SB_AUTH_NONCE_LEN);
	ids.rx_gen = tp->gen;
	/* The peer table never holds our own host id or 0; a failure leaves the key unset
	 * and the peer's frames are dropped (tx_no_path), which is what it would deserve. */
	if (sb_auth_data_key_set(&tp->tx_key, k, &ids) != 0)
		DP_LOG(ERR, "peer %u: its DATA key cannot be set up: frames to it are dropped",
			ids.rx_host);
}

void
sb_dp_auth_peer_new(struct sb_dp *dp, unsigned int pi)
{
	struct sb_dp_tx_peer *tp = &dp->tx->peer[pi];

	if (!dp->auth)
		return;
	/* Its nonce comes with the hello being taken (sb_dp_auth_hello_taken()). */
	tp->nonce_set = 0;
	tp->key_sends = SB_DP_KEY_NONE;
	tp->key_acked = SB_DP_KEY_NONE;
	sb_auth_data_key_clear(&tp->tx_key);
}

/* Tell every RX worker peer @p pi's nonce (SB_DP_MSG_PEER_KEY). */
static void
nonce_msg(struct sb_dp *dp, unsigned int pi, const uint8_t *nonce)
{
	struct sb_dp_msg msg = { .type = SB_DP_MSG_PEER_KEY, .peer = (uint8_t)pi,
		.host_id = dp->tx->peers.peer[pi].host_id };

	memcpy(msg.nonce, nonce, SB_AUTH_NONCE_LEN);
	sb_dp_msg_all(dp, &msg);
}

/* Tell every RX worker our key generation and nonce (SB_DP_MSG_SELF_KEY). */
static void
self_key_msg(struct sb_dp *dp)
{
	struct sb_dp_msg msg = { .type = SB_DP_MSG_SELF_KEY, .gen = dp->tx->gen };

	memcpy(msg.nonce, dp->tx->nonce, SB_AUTH_NONCE_LEN);
	sb_dp_msg_all(dp, &msg);
}

void
sb_dp_auth_rekey(struct sb_dp *dp, const char *why, bool pn_restart)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int i;

	if (!dp->auth)
		return;
	/* A new nonce: every key changes both ways. Each peer empties its window of our
	 * numbers when it takes the new nonce (nothing under the old keys verifies), so our
	 * numbers may start again. Frames in flight until then are refused. */
	sb_auth_nonce_new(tx->nonce);
	if (pn_restart) {
		tx->pn_fresh = 0;
		for (i = 0; i < SB_DP_SEQ_MEMORY; i++)
			tx->seq_memory[i].pn_hi = 0;
		for (i = 0; i < SB_MAX_PEERS; i++)
			tx->peer[i].pn_hi = 0;
	}
	for (i = 0; i < tx->peers.n_peers; i++)
		sb_dp_auth_peer_tx(dp, i);
	self_key_msg(dp);
	tx->stats->auth_rekeys++;
	tx->next_hello = 0;
	DP_LOG(NOTICE, "new session nonce (%s): every DATA key changes with our next hello; "
		"frames in flight until each peer takes it are refused", why);
}

void
sb_dp_auth_peer_gone(struct sb_dp *dp, uint32_t host_id)
{
	struct sb_dp_tx *tx = dp->tx;

	if (!dp->auth)
		return;
	/* That peer may come back under the keys it had, and its receive window starts afresh:
	 * a new generation makes every key into us new, so nothing recorded before verifies.
	 * The peers still here keep their windows (their numbers go on) and the old keys
	 * verify for a grace period, until they take our next hello. */
	tx->gen++;
	if (tx->gen == 0) {
		/* 256 generations: the first would come back. */
		sb_dp_auth_rekey(dp, "key generations used up", false);
		return;
	}
	self_key_msg(dp);
	tx->stats->auth_rekeys++;
	tx->next_hello = 0;
	DP_LOG(INFO, "key generation %u: peer %u left the table, so the keys of frames to us "
		"change with our next hello", tx->gen, host_id);
}

void
sb_dp_auth_seq_forgotten(struct sb_dp *dp, uint32_t pn_hi)
{
	struct sb_dp_tx *tx = dp->tx;

	/* That peer may come back under the same keys: start it, and anyone new, above every
	 * number it was sent (its receiver takes any number above what it took). */
	if (pn_hi >= tx->pn_fresh)
		tx->pn_fresh = pn_hi + 1;
}

size_t
sb_dp_auth_hello_tx(struct sb_dp *dp, unsigned int port, uint8_t *frame, size_t len,
	size_t room)
{
	struct sb_dp_tx *tx = dp->tx;
	const struct sb_auth_key *k;
	size_t off;

	if (!dp->auth)
		return len;
	k = sb_auth_ring_send_key(tx->keyring);
	if (k == NULL)
		return 0;
	len = sb_wire_hello_auth_put(frame, room, len, k->id, tx->gen,
		sb_auth_seq_next(&tx->hello_cseq[port], sb_auth_clock_us()), tx->nonce, &off);
	if (len == 0 || sb_auth_hello_sign(k, frame, len, off + SB_HELLO_AUTH_TAG_OFF) != 0)
		return 0;
	return len;
}

void
sb_dp_auth_entries(const struct sb_dp *dp, struct sb_hello_entry *e, unsigned int n)
{
	const struct sb_dp_tx *tx = dp->tx;
	unsigned int i, k;

	if (!dp->auth)
		return;
	for (i = 0; i < n; i++) {
		for (k = 0; k < tx->peers.n_peers; k++)
			if (tx->peers.peer[k].host_id == e[i].host_id)
				break;
		if (k < tx->peers.n_peers && tx->peer[k].key_sends != SB_DP_KEY_NONE) {
			e[i].flags |= SB_ENTRY_F_KEY;
			e[i].key_id = (uint8_t)tx->peer[k].key_sends;
		}
	}
}

bool
sb_dp_auth_hello_rx(struct sb_dp *dp, unsigned int index, const uint8_t *frame, uint32_t len,
	const struct sb_hello *h, const struct sb_hello_auth *a, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_stats *st = tx->stats;
	const struct sb_auth_replay *mark;
	struct sb_auth_stream stream;
	char why[256];
	int rc;

	if (!dp->auth) {
		if (a == NULL)
			return true;
		st->rx_auth_unexpected++;
		refused(tx->w, SB_DP_LOG_AUTH_UNEXPECTED, index, frame, "hello", now,
			"it carries a cluster key tag and this host has no cluster_key_file "
			"(rx_auth_unexpected)");
		return false;
	}
	tx->hello_refused[index]++;	/* taken back below when it passes */
	if (a == NULL) {
		st->rx_auth_no_tag++;
		refused(tx->w, SB_DP_LOG_AUTH_NO_TAG, index, frame, "hello", now,
			"no cluster key tag; every host of the cluster needs the key "
			"(rx_auth_no_tag)");
		return false;
	}
	rc = sb_auth_hello_check(tx->keyring, a->key_id, frame, len,
		a->off + SB_HELLO_AUTH_TAG_OFF);
	if (rc == -ENOKEY) {
		st->rx_auth_unknown_key++;
		snprintf(why, sizeof(why), "made with key id %u, which this host does not hold "
			"(a key rollover not done on every host?) (rx_auth_unknown_key)", a->key_id);
		refused(tx->w, SB_DP_LOG_AUTH_UNKNOWN_KEY, index, frame, "hello", now, why);
		return false;
	}
	if (rc != 0) {
		st->rx_auth_bad_tag++;
		snprintf(why, sizeof(why), "its tag under key id %u does not verify: forged, "
			"altered, or another secret under that id (rx_auth_bad_tag)", a->key_id);
		refused(tx->w, SB_DP_LOG_AUTH_BAD_TAG, index, frame, "hello", now, why);
		return false;
	}
	/* Authentic: now its sequence, on its own stream (lib/auth, struct sb_auth_replay). */
	stream = (struct sb_auth_stream){
		.host_id = h->host_id, .port = h->port_index, .local_port = (uint8_t)index,
		.unicast = (h->flags & SB_HELLO_F_UNICAST) != 0,
	};
	if (sb_auth_replay_table_check(&tx->replay, &stream, a->seq, &mark) != 0) {
		st->rx_auth_replay++;
		snprintf(why, sizeof(why), "a replay: its crypto sequence is %.3f s behind the "
			"last taken from that port, %u refused in a row (its clock stepped back? "
			"taken again once past it) (rx_auth_replay)",
			(double)(mark->last_seq - a->seq) / 1e6, mark->rejected_run);
		refused(tx->w, SB_DP_LOG_AUTH_REPLAY, index, frame, "hello", now, why);
		return false;
	}
	tx->hello_refused[index]--;
	return true;
}

void
sb_dp_auth_hello_taken(struct sb_dp *dp, unsigned int pi, const struct sb_hello *h,
	const struct sb_hello_auth *a)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_tx_peer *tp = &tx->peer[pi];
	const struct sb_peer *peer = &tx->peers.peer[pi];
	struct sb_hello_entry e;
	unsigned int i;

	if (!dp->auth || a == NULL)
		return;
	/* A hello of a restart not yet believed is not the peer's instance yet. */
	if (h->instance != peer->instance)
		return;
	tp->key_sends = a->key_id;
	if (!tp->nonce_set || memcmp(tp->nonce, a->nonce, SB_AUTH_NONCE_LEN) != 0) {
		/* Found or restarted (an instance has one nonce): new keys both ways. */
		memcpy(tp->nonce, a->nonce, SB_AUTH_NONCE_LEN);
		tp->nonce_set = 1;
		tp->gen = a->gen;
		sb_dp_auth_peer_tx(dp, pi);
		nonce_msg(dp, pi, tp->nonce);
	} else if ((int8_t)(a->gen - tp->gen) > 0) {
		/* It forgot a peer: our frames to it take its new generation's key. (A hello
		 * older than the change, late on a slow path, does not take us back.) */
		tp->gen = a->gen;
		sb_dp_auth_peer_tx(dp, pi);
	}
	/* Which of our keys it took last: its entries for any of our ports say so. */
	for (i = 0; i < h->n_entries; i++)
		if (sb_wire_hello_entry_get(h, i, &e) == SB_WIRE_OK &&
				e.host_id == dp->conf.host_id && (e.flags & SB_ENTRY_F_KEY))
			tp->key_acked = e.key_id;
}

/* Hellos a second of one stream at the fast pace: the faster of our interval and the
 * smallest any peer announces. */
static uint32_t
stream_hello_rate(const struct sb_dp_tx *tx)
{
	unsigned int ms = RTE_MAX(tx->hello_active_ms, (uint16_t)1), i, j;

	for (i = 0; i < tx->peers.n_peers; i++) {
		const struct sb_peer *peer = &tx->peers.peer[i];

		for (j = 0; j < peer->n_paths; j++)
			if (peer->path[j].remote_interval_ms != 0)
				ms = RTE_MIN(ms, (unsigned int)peer->path[j].remote_interval_ms);
	}
	return (1000u + ms - 1) / ms;
}

void
sb_dp_auth_tick(struct sb_dp *dp, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int i, k;

	if (!dp->auth || now < tx->alarm_next)
		return;
	tx->alarm_next = now + dp->hz;
	__atomic_store_n(&tx->stream_hello_rate, stream_hello_rate(tx), __ATOMIC_RELAXED);
	for (i = 0; i < dp->n_ports; i++) {
		uint64_t refused_all = tx->hello_refused[i];
		uint32_t rate;

		for (k = 0; k < dp->n_rx; k++)
			refused_all += __atomic_load_n(&dp->rx[k]->port_refused[i],
				__ATOMIC_RELAXED);
		rate = (uint32_t)RTE_MIN(refused_all - tx->refused_mark[i], (uint64_t)UINT32_MAX);
		tx->refused_mark[i] = refused_all;
		tx->refused_per_s[i] = rate;
		if (!tx->alarm[i] && rate >= SB_DP_AUTH_ALARM_PER_S) {
			tx->alarm[i] = 1;
			DP_LOG(WARNING, "port %u: alarm: %u frames a second refused for their tag, "
				"key or check budget (rx_auth_*): a forger on this port's switch, "
				"or a host with another key", i, rate);
		} else if (tx->alarm[i] && rate < SB_DP_AUTH_ALARM_PER_S / 2) {
			tx->alarm[i] = 0;
			DP_LOG(NOTICE, "port %u: alarm cleared: %u frames a second refused", i,
				rate);
		}
	}
}

/* --- RX worker: hello budget, DATA frames, packet numbers, keys ------------------------- */

bool
sb_dp_auth_hello_admit(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int index,
	const struct rte_mbuf *m, const struct sb_shim *shim, uint64_t now)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct sb_dp_stats *st = rx->stats;
	struct sb_auth_bucket *b;
	struct sb_hello_auth a;
	struct sb_hello h;
	enum sb_wire_err e;
	uint32_t rate;
	bool known;
	int pi;
	unsigned int path, i;

	if (!dp->auth)
		return true;
	/* Whatever is refused without a MAC is refused here, so that only hellos within the
	 * budget reach the hello ring (a flood must not fill it: honest hellos share it). */
	e = sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h);
	if (e == SB_WIRE_OK && (shim->flags & SB_WIRE_F_AUTH))
		e = sb_wire_hello_auth_get(buf, len, &h, &a);
	if (e == SB_WIRE_OK && len != rte_pktmbuf_pkt_len(m))
		e = SB_WIRE_E_TRUNCATED;	/* the tag covers one segment, all of it */
	if (unlikely(e != SB_WIRE_OK)) {
		st->rx_err[e]++;
		goto refused_quietly;
	}
	if ((h.flags & SB_HELLO_F_UNICAST) &&
			memcmp(buf, dp->tx->port[index].mac, SB_ETH_ALEN) != 0) {
		/* Another port's (a switch floods it until it learns that MAC): ignored, as
		 * the TX worker would, without a check. (The port's MAC is set at create and
		 * never changes: read here without the TX worker.) */
		st->rx_hello++;
		st->rx_hello_not_ours++;
		return false;
	}
	if (!(shim->flags & SB_WIRE_F_AUTH)) {
		st->rx_auth_no_tag++;
		refused(rx->w, SB_DP_LOG_AUTH_NO_TAG, index, buf, "hello", now,
			"no cluster key tag; every host of the cluster needs the key "
			"(rx_auth_no_tag)");
		goto refused_quietly;
	}
	for (i = 0; i < rx->keyring->n_keys; i++)
		if (rx->keyring->key[i].id == a.key_id)
			break;
	if (i == rx->keyring->n_keys) {
		st->rx_auth_unknown_key++;
		refused(rx->w, SB_DP_LOG_AUTH_UNKNOWN_KEY, index, buf, "hello", now,
			"made with a key id this host does not hold (a key rollover not done on "
			"every host?) (rx_auth_unknown_key)");
		goto refused_quietly;
	}
	/* A path the map knows: the source MAC and port index are those of a peer's port we
	 * already took authentic hellos from, and the host id is that peer's. */
	pi = sb_peer_map_lookup(&rx->map, index, buf + SB_ETH_ALEN, shim->path, &path);
	known = pi >= 0 && rx->map.peer[pi].host_id == h.host_id;
	b = known ? &rx->hello_known[index] : &rx->hello_new[index];
	if (known) {
		rate = __atomic_load_n(&dp->tx->stream_hello_rate, __ATOMIC_RELAXED);
		rate = rx->known_paths[index] * rate * SB_DP_HELLO_BUDGET_MULT +
			SB_DP_HELLO_BUDGET_FLOOR;
		if (b->rate != rate)
			sb_auth_bucket_set(b, rate, rate / 4 + 32);
	} else if (b->rate == 0) {
		sb_auth_bucket_set(b, SB_DP_HELLO_BUDGET_NEW, SB_DP_HELLO_BUDGET_NEW_BURST);
	}
	if (likely(sb_auth_bucket_take(b, sb_tsc_to_ns(now, dp->hz))))
		return true;
	if (known) {
		st->rx_auth_limited++;
		refused(rx->w, SB_DP_LOG_AUTH_LIMITED, index, buf, "hello", now,
			"its path's hellos exceed the port's budget of checks: a flood with "
			"that port's MAC address (rx_auth_limited)");
	} else {
		st->rx_auth_limited_new++;
		refused(rx->w, SB_DP_LOG_AUTH_LIMITED, index, buf, "hello", now,
			"hellos of no known path exceed the port's budget of checks: a flood of "
			"forgeries? (rx_auth_limited_new)");
	}
refused_quietly:
	__atomic_store_n(&rx->port_refused[index], rx->port_refused[index] + 1,
		__ATOMIC_RELAXED);
	return false;
}

void
sb_dp_auth_paths_changed(struct sb_dp *dp, struct sb_dp_rx *rx)
{
	unsigned int i, r, l;

	if (!dp->auth)
		return;
	memset(rx->known_paths, 0, sizeof(rx->known_paths));
	for (i = 0; i < rx->map.n_peers; i++)
		for (r = 0; r < SB_MAX_PORTS; r++)
			for (l = 0; l < SB_MAX_PORTS; l++)
				if (rx->map.peer[i].path_of[r][l] >= 0)
					rx->known_paths[l]++;
}

/* The key of peer @p rp for cluster key @p key_id and our generation @p gen (ours now, or
 * the one before within its grace period, on the TSC's clock as set), or NULL. */
static inline struct sb_auth_data_key *
rx_key(const struct sb_dp_rx *rx, struct sb_dp_rx_peer *rp, uint8_t key_id, uint8_t gen)
{
	struct sb_auth_data_key *k;
	unsigned int i;

	if (likely(gen == rx->gen))
		k = rp->rx_key;
	else if (gen == rp->prev_gen && rp->prev_until != 0 && rte_rdtsc() < rp->prev_until)
		k = rp->rx_key_prev;
	else
		return NULL;
	for (i = 0; i < SB_AUTH_RING_MAX; i++)
		if (k[i].set && k[i].key_id == key_id)
			return &k[i];
	return NULL;
}

/* What a DATA tag covers in @p m (@p len bytes of it): the first SB_WIRE_DATA_TAG_OFF bytes,
 * then everything from SB_WIRE_DATA_AUTH_INNER to @p len, segment by segment.
 * @return segments, or 0 when there are more than @p max. */
static unsigned int
data_segs(const struct rte_mbuf *m, uint32_t len, struct sb_auth_seg *seg, unsigned int max)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = SB_WIRE_DATA_AUTH_INNER, left = len - off, take;
	unsigned int n = 0;

	seg[n++] = (struct sb_auth_seg){ p, SB_WIRE_DATA_TAG_OFF };
	take = RTE_MIN((uint32_t)rte_pktmbuf_data_len(m) - off, left);
	if (take != 0)
		seg[n++] = (struct sb_auth_seg){ p + off, take };
	left -= take;
	for (m = m->next; m != NULL && left != 0; m = m->next) {
		if (n == max)
			return 0;
		take = RTE_MIN((uint32_t)m->data_len, left);
		seg[n++] = (struct sb_auth_seg){ rte_pktmbuf_mtod(m, const uint8_t *), take };
		left -= take;
	}
	return left == 0 ? n : 0;
}

int
sb_dp_auth_data_tx(struct sb_dp *dp, struct sb_dp_tx_peer *tp, struct rte_mbuf *m,
	uint64_t pn)
{
	uint8_t *hdr = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct sb_auth_seg seg[DATA_MAX_SEGS];
	unsigned int n;

	RTE_SET_USED(dp);
	if (unlikely(!tp->tx_key.set || len > UINT16_MAX))
		return -EINVAL;
	sb_wire_put_data_auth(hdr, (uint16_t)len, tp->tx_key.key_id, tp->gen,
		(uint32_t)(pn >> 32));
	n = data_segs(m, len, seg, RTE_DIM(seg));
	if (unlikely(n == 0))
		return -EINVAL;
	return sb_auth_data_mac(&tp->tx_key, pn, seg, n, hdr + SB_WIRE_DATA_TAG_OFF);
}

bool
sb_dp_auth_data_rx(struct sb_dp *dp, struct sb_dp_rx *rx, struct sb_dp_rx_peer *rp,
	unsigned int index, unsigned int path, struct rte_mbuf *m, const struct sb_shim *shim,
	uint64_t now, uint64_t *pn_out)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	struct sb_dp_stats *st = rx->stats;
	struct sb_auth_seg seg[DATA_MAX_SEGS];
	struct sb_auth_data_key *k;
	struct sb_data_auth da;
	enum sb_wire_err e;
	unsigned int n;
	uint64_t pn;
	int rc;

	e = sb_wire_data_auth_get(buf, pkt_len, shim, &da);
	if (unlikely(e != SB_WIRE_OK)) {
		st->rx_err[e]++;
		goto refused_quietly;
	}
	k = rx_key(rx, rp, da.key_id, da.gen);
	if (unlikely(k == NULL)) {
		st->rx_auth_unknown_key++;
		refused(rx->w, SB_DP_LOG_AUTH_UNKNOWN_KEY, index, buf, "DATA frame", now,
			"made with a key id this host does not hold, a key generation of ours "
			"gone, or before the peer's keys were known (rx_auth_unknown_key)");
		goto refused_quietly;
	}
	pn = (uint64_t)da.pn_hi << 32 | shim->seq;
	/* The number first: a replay costs no MAC. */
	rc = sb_auth_pn_check(&rp->pn, pn);
	if (unlikely(rc != 0)) {
		st->rx_auth_data_replay++;
		refused(rx->w, SB_DP_LOG_AUTH_DATA_REPLAY, index, buf, "DATA frame", now,
			rc == -EALREADY ? "its packet number was taken before: played back "
			"(rx_auth_data_replay)" : "its packet number is below the replay window: "
			"played back, or later than the window is wide (rx_auth_data_replay)");
		goto refused_quietly;
	}
	n = data_segs(m, da.len, seg, RTE_DIM(seg));
	if (unlikely(n == 0 || sb_auth_data_verify(k, pn, seg, n, da.tag) != 0)) {
		st->rx_auth_bad_tag++;
		/* Lost on this path as surely as if it never came: a switch that alters what
		 * crosses it must take the path out of the stripe (the loss rule), or the
		 * sender keeps feeding it. (The sender clamps what we report to what it sent
		 * that we did not receive, so a frame also counted by a sequence gap later is
		 * not counted twice there.) */
		rp->data[path].lost++;
		refused(rx->w, SB_DP_LOG_AUTH_BAD_TAG, index, buf, "DATA frame", now,
			"its tag does not verify: forged, altered on the way, or sent before "
			"the peer or we restarted (rx_auth_bad_tag)");
		goto refused_quietly;
	}
	*pn_out = pn;
	if (unlikely(!rp->cur_seen) && k >= rp->rx_key && k < rp->rx_key + SB_AUTH_RING_MAX)
		rp->cur_seen = 1;	/* it took our generation now */
	/* What Ethernet padded is not the sender's: the kernel gets what was tagged. */
	if (pkt_len > da.len && rte_pktmbuf_trim(m, (uint16_t)(pkt_len - da.len)) != 0) {
		st->rx_err[SB_WIRE_E_TRUNCATED]++;
		goto refused_quietly;
	}
	return true;
refused_quietly:
	__atomic_store_n(&rx->port_refused[index], rx->port_refused[index] + 1,
		__ATOMIC_RELAXED);
	return false;
}

/* Load peer @p pi's receive keys @p k (one per ring key) for its nonce, ours and our
 * generation @p gen. */
static void
rx_keys_load(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi,
	struct sb_auth_data_key *k, uint8_t gen)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[pi];
	struct sb_auth_dir_ids ids = {
		.tx_host = rx->map.peer[pi].host_id, .rx_host = dp->conf.host_id, .rx_gen = gen,
	};
	unsigned int i;

	for (i = 0; i < SB_AUTH_RING_MAX; i++)
		sb_auth_data_key_clear(&k[i]);
	if (!rp->nonce_set)
		return;
	memcpy(ids.tx_nonce, rp->nonce, SB_AUTH_NONCE_LEN);
	memcpy(ids.rx_nonce, rx->nonce, SB_AUTH_NONCE_LEN);
	for (i = 0; i < rx->keyring->n_keys; i++)
		if (sb_auth_data_key_set(&k[i], &rx->keyring->key[i], &ids) != 0)
			DP_LOG(ERR, "peer %u: a DATA key cannot be set up: its frames under key "
				"id %u are refused", ids.tx_host, rx->keyring->key[i].id);
}

/* Forget peer @p rp's keys of our previous generation. */
static void
prev_clear(struct sb_dp_rx_peer *rp)
{
	unsigned int i;

	for (i = 0; i < SB_AUTH_RING_MAX; i++)
		sb_auth_data_key_clear(&rp->rx_key_prev[i]);
	rp->prev_until = 0;
}

void
sb_dp_auth_peer_key_rx(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi,
	const uint8_t *nonce)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[pi];

	if (!dp->auth)
		return;
	if (rp->nonce_set && memcmp(rp->nonce, nonce, SB_AUTH_NONCE_LEN) == 0)
		return;		/* the same keys */
	/* A new peer, or a restarted one (SB_DP_MSG_PEER_RESET emptied its window), or one that
	 * drew a new nonce (sb_dp_auth_rekey()): nothing under its old keys verifies any more,
	 * and its numbers may start again. */
	if (rp->nonce_set)
		sb_auth_pn_window_reset(&rp->pn);
	memcpy(rp->nonce, nonce, SB_AUTH_NONCE_LEN);
	rp->nonce_set = 1;
	prev_clear(rp);
	rx_keys_load(dp, rx, pi, rp->rx_key, rx->gen);
}

void
sb_dp_auth_self_key_rx(struct sb_dp *dp, struct sb_dp_rx *rx, uint8_t gen, const uint8_t *nonce)
{
	uint64_t until = rte_rdtsc() + (uint64_t)PREV_GEN_GRACE_MS * dp->hz / 1000;
	unsigned int i, k;

	if (!dp->auth)
		return;
	/* Each peer's keys of the generation now ending verify a while longer; windows stay:
	 * a peer's numbers go on under its new key. */
	for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx) {
		struct sb_dp_rx_peer *rp = &dp->rx_peer[i];

		if (!rp->nonce_set)
			continue;
		/* Two departures before this peer took our generation in between (both in one
		 * tick): what it still sends is of the older one, so that one stays the
		 * previous, for longer. */
		if (!(rp->prev_until != 0 && rte_rdtsc() < rp->prev_until && !rp->cur_seen)) {
			for (k = 0; k < SB_AUTH_RING_MAX; k++) {
				struct sb_auth_data_key t = rp->rx_key_prev[k];

				rp->rx_key_prev[k] = rp->rx_key[k];
				rp->rx_key[k] = t;	/* its context is reused below */
			}
			rp->prev_gen = rx->gen;
		}
		rp->prev_until = until;
		rp->cur_seen = 0;
	}
	rx->gen = gen;
	/* A new nonce with it (generations used up): the old keys' generation comes back
	 * as the new one's, so keep none. */
	if (memcmp(rx->nonce, nonce, SB_AUTH_NONCE_LEN) != 0) {
		memcpy(rx->nonce, nonce, SB_AUTH_NONCE_LEN);
		for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx)
			prev_clear(&dp->rx_peer[i]);
	}
	for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx)
		if (dp->rx_peer[i].nonce_set)
			rx_keys_load(dp, rx, i, dp->rx_peer[i].rx_key, gen);
}

void
sb_dp_auth_peer_reset_rx(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[pi];
	unsigned int k;

	if (!dp->auth)
		return;
	rp->nonce_set = 0;
	sb_auth_pn_window_reset(&rp->pn);
	for (k = 0; k < SB_AUTH_RING_MAX; k++)
		sb_auth_data_key_clear(&rp->rx_key[k]);
	prev_clear(rp);
}

void
sb_dp_auth_pn_take(struct sb_dp_rx_peer *rp, uint64_t pn)
{
	sb_auth_pn_accept(&rp->pn, pn);
}

/* --- Both: the keys change (SB_CMD_SET_KEYRING) ------------------------------------------ */

int
sb_dp_auth_set_keyring(struct sb_dp_worker *w, const struct sb_auth_keyring *ring)
{
	struct sb_dp *dp = w->dp;
	unsigned int i;

	if (!dp->auth)
		return -ENOTSUP;
	if (ring == NULL || ring->n_keys == 0 || ring->n_keys > SB_AUTH_RING_MAX ||
			ring->send >= ring->n_keys)
		return -EINVAL;
	if (w->tx != NULL) {
		struct sb_dp_tx *tx = w->tx;

		if (keyring_copy(&tx->keyring, ring) != 0)
			return -ENOMEM;
		for (i = 0; i < ring->n_keys; i++)
			sb_auth_key_fingerprint(ring->key[i].secret, tx->key_fp[i]);
		for (i = 0; i < tx->peers.n_peers; i++)
			sb_dp_auth_peer_tx(dp, i);
	}
	if (w->rx != NULL) {
		struct sb_dp_rx *rx = w->rx;

		if (keyring_copy(&rx->keyring, ring) != 0)
			return -ENOMEM;
		/* Packet numbers stay: under a key both rings hold, the direction key is the
		 * same, and what was taken must not be taken again. */
		for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx) {
			struct sb_dp_rx_peer *rp = &dp->rx_peer[i];

			rx_keys_load(dp, rx, i, rp->rx_key, rx->gen);
			if (rp->prev_until != 0)
				rx_keys_load(dp, rx, i, rp->rx_key_prev, rp->prev_gen);
		}
	}
	return 0;
}

int
sb_dp_auth_create(struct sb_dp *dp)
{
	unsigned int i, k;
	int rc;

	if (!dp->auth)
		return 0;
	sb_auth_nonce_new(dp->tx->nonce);
	rc = keyring_copy(&dp->tx->keyring, dp->conf.keyring);
	if (rc != 0)
		return rc;
	for (i = 0; i < dp->conf.keyring->n_keys; i++)
		sb_auth_key_fingerprint(dp->conf.keyring->key[i].secret, dp->tx->key_fp[i]);
	dp->tx->stream_hello_rate = stream_hello_rate(dp->tx);
	for (i = 0; i < SB_MAX_PEERS; i++) {
		rc = sb_auth_data_key_init(&dp->tx->peer[i].tx_key);
		for (k = 0; rc == 0 && k < SB_AUTH_RING_MAX; k++) {
			rc = sb_auth_data_key_init(&dp->rx_peer[i].rx_key[k]);
			if (rc == 0)
				rc = sb_auth_data_key_init(&dp->rx_peer[i].rx_key_prev[k]);
		}
		if (rc != 0)
			return rc;
		dp->tx->peer[i].key_sends = SB_DP_KEY_NONE;
		dp->tx->peer[i].key_acked = SB_DP_KEY_NONE;
	}
	for (i = 0; i < dp->n_rx; i++) {
		struct sb_dp_rx *rx = dp->rx[i];

		rc = keyring_copy(&rx->keyring, dp->conf.keyring);
		if (rc != 0)
			return rc;
		memcpy(rx->nonce, dp->tx->nonce, SB_AUTH_NONCE_LEN);
		/* Wide enough for anything a reorder window sees out of order, twice. */
		rx->pn_bits = RTE_MAX(64u, rte_align32pow2(2 * dp->conf.reorder_window));
	}
	return 0;
}

void
sb_dp_auth_free(struct sb_dp *dp)
{
	unsigned int i, k;

	if (dp->tx != NULL) {
		for (i = 0; i < SB_MAX_PEERS; i++)
			sb_auth_data_key_free(&dp->tx->peer[i].tx_key);
		sb_keymem_free(dp->tx->keyring, sizeof(*dp->tx->keyring));
		dp->tx->keyring = NULL;
	}
	for (i = 0; i < SB_MAX_PEERS; i++) {
		for (k = 0; k < SB_AUTH_RING_MAX; k++) {
			sb_auth_data_key_free(&dp->rx_peer[i].rx_key[k]);
			sb_auth_data_key_free(&dp->rx_peer[i].rx_key_prev[k]);
		}
		rte_free(dp->rx_peer[i].pn.bits);
		dp->rx_peer[i].pn.bits = NULL;
	}
	for (i = 0; i < SB_DP_MAX_WORKERS; i++) {
		struct sb_dp_rx *rx = dp->rx[i];

		if (rx == NULL)
			continue;
		sb_keymem_free(rx->keyring, sizeof(*rx->keyring));
		rx->keyring = NULL;
	}
}

int
sb_dp_auth_window_new(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[pi];
	uint64_t *words;

	if (!dp->auth || rp->pn.bits != NULL)
		return 0;
	words = rte_zmalloc(NULL, rx->pn_bits / 8, RTE_CACHE_LINE_SIZE);
	if (words == NULL)
		return -ENOMEM;
	return sb_auth_pn_window_init(&rp->pn, words, rx->pn_bits);
}
