/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire version 4's key lifecycle in the datapath (app/datapath/sb_dp_auth.c;
 * docs/wire-format.md, "Keys and packet numbers"), on ring ports: code a namespace test
 * rarely or never reaches (a peer leaving the table, 256 of them, 2^63 packet numbers).
 *
 * Two datapaths, a (host 1) and b (host 2), one lcore each, both played by this thread with
 * a TSC it moves itself (100 us a step, housekeeping every 1 ms), both holding the same
 * cluster key, 4 ring links (tests/common/sb_dp_pair.h, as test_dp_forged). A steady stream
 * of numbered frames goes each way through the exception ports; every frame a host hands its
 * kernel must be the other's next, or a later one when frames were refused (each number
 * skipped is a loss; the losses of each phase must equal the refusals it allows).
 *
 * A tap on the links reads every DATA frame each host puts there and checks its tag with the
 * direction keys the test derives itself (lib/auth) from what the hosts announce: each frame
 * must verify under exactly the key of (sender, receiver, the two session nonces, the
 * receiver's generation in its byte 25), its packet number's high half must stay below 2^31,
 * and no packet number is used twice under one key (checked over the whole run).
 *
 *   packet numbers used up  a starts its numbers to b at PN high SB_AUTH_PN_HI_MAX and its
 *       sequence 2000 short of 2^32: after the wrap a re-keys (new nonce, auth_rekeys + 1,
 *       its next frame's packet number is 0), b takes a's nonce from its next hello, empties
 *       its window of a's numbers and takes a's low numbers; frames in flight meanwhile
 *       (both ways: the nonce is in both directions' keys) may be refused, as many as are
 *       lost, no more; the streams go on in order.
 *   key generation moves on  sb_dp_auth_peer_gone() on b between two polls (as b's lcore
 *       does on SB_PEER_EV_PEER_GONE): b's auth_rekeys and generation + 1, the grace of b's
 *       previous generation is 2 s of TSC; a's frames made for the old generation that reach
 *       b before a takes b's next hello are taken (nothing refused, nothing lost, in order);
 *       then a's frames carry the new one (byte 25); a frame of a's b took before the change,
 *       played back after it, is refused as a replay (b's window of a's numbers stays). The
 *       grace is then ended by setting prev_until to a past TSC (not by waiting 2 s): a frame
 *       of a's for the old generation that b never received, and one it took, are refused as
 *       rx_auth_unknown_key (the generation is checked before the packet number).
 *   generations come round  254 more departures, one at a time, a following each (no frame
 *       refused or lost), to generation 255; one more: b draws a new nonce (its hellos carry
 *       it, auth_rekeys counts it, the log says "key generations used up", no keys of the
 *       old generation kept), a re-keys both ways when it takes b's next hello and empties
 *       its window of b's numbers (a frame of b's it took before is refused for its tag, not
 *       as a replay); the frames in flight may be refused, as many as are lost; then both
 *       streams go on in order with nothing more refused.
 *
 * Usage: test_dp_keys [EAL options] (e.g. --no-huge -m 256 --no-pci --no-shconf)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "sb_dp_pair.h"
#include "sb_test.h"

#define LINKS 4
#define POOL_SIZE 16384
#define STEP_US 100		/* the TSC moves this much per step */
#define STREAM_PER_STEP 2	/* frames put on each host's exception port each step */
#define FRAME_LEN 128		/* the streams' frames */
#define CNT_OFF (RTE_ETHER_HDR_LEN + 20)	/* where a frame's number sits */
#define WRAP_AHEAD 2000		/* a's frames to b before its sequence number wraps */
#define IN_FLIGHT_MAX 100	/* frames a re-key may cost each way (about 1 ms of a stream) */
#define GEN_SPACING_STEPS 40	/* steps between two departures (the hello check budget) */
#define KEYS_TRIED 8		/* newest keys of a direction a frame is checked against */

typedef uint32_t cnt_t __attribute__((aligned(1)));

static struct sb_pair_host a, b;
static struct rte_ring *a2b[LINKS], *b2a[LINKS];
static struct rte_mempool *mp;
static bool stop;
static uint64_t hz, now, next_hk, hk_period, steps;
static struct sb_auth_key cluster_key;

/* The log, kept to look for what the datapath says (and shown when a check failed). */
static char *log_buf;
static size_t log_len;
static FILE *log_f;

/* A direction key as the test derives it, and the frames it tagged. */
struct book_key {
	uint8_t tx_nonce[SB_AUTH_NONCE_LEN], rx_nonce[SB_AUTH_NONCE_LEN], gen;
	struct sb_auth_data_key k;
	uint64_t frames;
	uint64_t first_pn;
	uint32_t pn_hi_min, pn_hi_max;
};

/* A packet number used under a key (book index). */
struct used_pn {
	uint32_t key;
	uint64_t pn;
};

/* One direction: sender tx -> receiver rx, its stream and the tap on its links. */
struct dir {
	const char *name;
	struct sb_pair_host *tx, *rx;
	struct rte_ring **ring;		/* tx's ports write, rx's read */
	int pi;				/* the receiver's slot in the sender's table */
	int rpi;			/* the sender's slot in the receiver's table */
	/* the stream */
	uint32_t next_in, next_out;
	uint64_t delivered, lost, bad;
	/* the keys and what the tap read */
	struct book_key *key;
	unsigned int n_key, cap_key;
	struct used_pn *used;
	size_t n_used, cap_used;
	uint64_t frames, unverified, pn_hi_over, multi_seg;
	uint64_t by_gen[256];		/* frames since the last mark, by byte 25 */
	unsigned int last_key;		/* book index of the last frame read */
	/* frames the tap copies or takes off the link (b never gets those), on request */
	unsigned int copy_req, take_req, n_copied, n_taken;
	struct rte_mbuf *copied[4], *taken[4];
	unsigned int copied_link[4], taken_link[4];	/* where they were read */
	unsigned int skip[LINKS];	/* frames the test put on a link: not the sender's */
	/* the sender's latest group or unicast hello seen on the links */
	bool hello_seen;
	uint8_t hello_nonce[SB_AUTH_NONCE_LEN], hello_gen;
};

static struct dir ab = { .name = "a -> b", .tx = &a, .rx = &b, .ring = a2b };
static struct dir ba = { .name = "b -> a", .tx = &b, .rx = &a, .ring = b2a };

static bool streaming;

/* ---- the log ------------------------------------------------------------------------ */

static size_t
log_mark(void)
{
	fflush(log_f);
	return log_len;
}

/* @return how often @p what occurs in the log since @p from. */
static unsigned int
log_count(size_t from, const char *what)
{
	unsigned int n = 0;
	const char *p;

	fflush(log_f);
	for (p = log_buf + from; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* ---- counters ------------------------------------------------------------------------ */

struct counter_find {
	const char *name;
	uint64_t v;
	bool found;
};

static void
counter_match(const char *name, uint64_t value, void *arg)
{
	struct counter_find *f = arg;

	if (strcmp(name, f->name) == 0) {
		f->v = value;
		f->found = true;
	}
}

static uint64_t
cnt(const struct sb_pair_host *h, const char *name)
{
	struct counter_find f = { .name = name };

	sb_dp_stats_foreach(&h->dp->worker[0].stats, counter_match, &f);
	if (!f.found)
		rte_exit(EXIT_FAILURE, "no counter %s\n", name);
	return f.v;
}

/* Counters that must not move in this test unless a check says so: every refusal, the
 * windows' verdicts, the tables' events, drops. */
static const char *const watched[] = {
	"rx_auth_no_tag", "rx_auth_bad_tag", "rx_auth_replay", "rx_auth_unknown_key",
	"rx_auth_unexpected", "rx_auth_data_replay", "rx_auth_limited", "rx_auth_limited_new",
	"rx_unknown_peer", "rx_hello_rejected", "rx_late_dropped", "rx_late_delivered",
	"rx_duplicate", "rx_out_of_range", "rx_stray", "rx_peer_gone_drop", "peer_restarts",
	"peers_evicted", "peers_displaced", "tx_no_path", "tx_too_big", "tx_queue_drop",
	"tx_peer_drop", "exc_tx_drop", "exc_too_big", "auth_rekeys",
};
#define N_WATCHED RTE_DIM(watched)

struct snap {
	uint64_t v[2][N_WATCHED];	/* a's, b's */
	uint64_t lost_ab, lost_ba, bad_ab, bad_ba;
};

static void
snap_take(struct snap *s)
{
	unsigned int i;

	for (i = 0; i < N_WATCHED; i++) {
		s->v[0][i] = cnt(&a, watched[i]);
		s->v[1][i] = cnt(&b, watched[i]);
	}
	s->lost_ab = ab.lost;
	s->lost_ba = ba.lost;
	s->bad_ab = ab.bad;
	s->bad_ba = ba.bad;
}

/* What counter @p name of host @p h rose by since @p s. */
static uint64_t
snap_d(const struct snap *s, const struct sb_pair_host *h, const char *name)
{
	unsigned int i;

	for (i = 0; i < N_WATCHED; i++)
		if (strcmp(watched[i], name) == 0)
			return cnt(h, name) - s->v[h == &a ? 0 : 1][i];
	rte_exit(EXIT_FAILURE, "%s is not watched\n", name);
}

/* DATA frames of the other host's that host @p h refused since @p s. */
static uint64_t
refused_data(const struct snap *s, const struct sb_pair_host *h)
{
	return snap_d(s, h, "rx_auth_bad_tag") + snap_d(s, h, "rx_auth_unknown_key") +
		snap_d(s, h, "rx_auth_data_replay");
}

/* A watched counter of host h that may rise by d (-1: by any amount, which the caller
 * checks itself). */
struct allow {
	const struct sb_pair_host *h;
	const char *name;
	int64_t d;
};

/* Every watched counter of both hosts is where @p s left it, but those @p allowed name. */

static void
snap_check(const char *what, const struct snap *s, const struct allow *allowed,
	unsigned int n_allowed)
{
	unsigned int i, k, w;

	for (w = 0; w < 2; w++) {
		const struct sb_pair_host *h = w == 0 ? &a : &b;

		for (i = 0; i < N_WATCHED; i++) {
			uint64_t d = cnt(h, watched[i]) - s->v[w][i];
			int64_t want = 0;

			for (k = 0; k < n_allowed; k++)
				if (allowed[k].h == h && strcmp(allowed[k].name, watched[i]) == 0)
					want = allowed[k].d;
			if (want < 0)
				continue;
			SB_CHECK(d == (uint64_t)want, "%s: %s's %s rose by %" PRIu64 ", expected "
				"%" PRId64, what, w == 0 ? "a" : "b", watched[i], d, want);
		}
	}
}

/* ---- the streams --------------------------------------------------------------------- */

static void
feed(struct dir *d)
{
	struct rte_mbuf *m[STREAM_PER_STEP];
	unsigned int i;

	for (i = 0; i < STREAM_PER_STEP; i++) {
		struct rte_ether_hdr *eh;

		m[i] = rte_pktmbuf_alloc(mp);
		if (m[i] == NULL || rte_pktmbuf_append(m[i], FRAME_LEN) == NULL)
			rte_exit(EXIT_FAILURE, "no mbuf for the stream\n");
		eh = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
		memset(eh, 0, FRAME_LEN);
		memcpy(eh->dst_addr.addr_bytes, d->rx->cfg.mac, RTE_ETHER_ADDR_LEN);
		memcpy(eh->src_addr.addr_bytes, d->tx->cfg.mac, RTE_ETHER_ADDR_LEN);
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		*rte_pktmbuf_mtod_offset(m[i], cnt_t *, CNT_OFF) = d->next_in++;
	}
	if (rte_ring_enqueue_burst(d->tx->exc_in, (void **)m, STREAM_PER_STEP, NULL) !=
			STREAM_PER_STEP)
		rte_exit(EXIT_FAILURE, "%s: the sender's exception port does not keep up\n",
			d->name);
}

/* Take what the receiver handed its kernel: each must be the sender's next frame, or a later
 * one (the numbers skipped are lost); anything else is bad. */
static void
drain(struct dir *d)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(d->rx->exc_out, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(m[i]), c;

			if (len != FRAME_LEN) {
				if (d->bad++ < 5)
					fprintf(stderr, "%s: a frame of %u bytes delivered\n",
						d->name, len);
				continue;
			}
			c = *rte_pktmbuf_mtod_offset(m[i], cnt_t *, CNT_OFF);
			if ((int32_t)(c - d->next_out) < 0) {
				if (d->bad++ < 5)
					fprintf(stderr, "%s: frame %" PRIu32 " delivered where %"
						PRIu32 " or later was due\n", d->name, c,
						d->next_out);
				continue;
			}
			d->lost += c - d->next_out;
			d->delivered++;
			d->next_out = c + 1;
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

/* ---- the keys of a direction, as the test derives them -------------------------------- */

/* The key of the sender's state now (its nonce, the receiver's as it knows it, the
 * receiver's generation it makes frames for) is in the book. */
static void
book_note(struct dir *d)
{
	const struct sb_dp_tx *tx = d->tx->dp->tx;
	const struct sb_dp_tx_peer *tp = &tx->peer[d->pi];
	struct sb_auth_dir_ids ids = {
		.tx_host = d->tx->cfg.host_id, .rx_host = d->rx->cfg.host_id, .rx_gen = tp->gen,
	};
	struct book_key *k;
	unsigned int i;

	if (!tp->nonce_set)
		return;
	for (i = d->n_key; i-- > 0 && i + KEYS_TRIED >= d->n_key;) {
		k = &d->key[i];
		if (k->gen == tp->gen && memcmp(k->tx_nonce, tx->nonce, SB_AUTH_NONCE_LEN) == 0 &&
				memcmp(k->rx_nonce, tp->nonce, SB_AUTH_NONCE_LEN) == 0)
			return;
	}
	if (d->n_key == d->cap_key) {
		d->cap_key = d->cap_key == 0 ? 64 : 2 * d->cap_key;
		d->key = realloc(d->key, d->cap_key * sizeof(d->key[0]));
		if (d->key == NULL)
			rte_exit(EXIT_FAILURE, "no memory for keys\n");
	}
	k = &d->key[d->n_key];
	memset(k, 0, sizeof(*k));
	memcpy(k->tx_nonce, tx->nonce, SB_AUTH_NONCE_LEN);
	memcpy(k->rx_nonce, tp->nonce, SB_AUTH_NONCE_LEN);
	k->gen = tp->gen;
	k->pn_hi_min = UINT32_MAX;
	memcpy(ids.tx_nonce, tx->nonce, SB_AUTH_NONCE_LEN);
	memcpy(ids.rx_nonce, tp->nonce, SB_AUTH_NONCE_LEN);
	if (sb_auth_data_key_init(&k->k) != 0 || sb_auth_data_key_set(&k->k, &cluster_key,
			&ids) != 0)
		rte_exit(EXIT_FAILURE, "cannot derive a direction key\n");
	d->n_key++;
}

/* @return the book index of the newest key @p nonce_tx / @p nonce_rx / @p gen, or -1. */
static int
book_find(const struct dir *d, const uint8_t *tx_nonce, const uint8_t *rx_nonce, uint8_t gen)
{
	unsigned int i;

	for (i = d->n_key; i-- > 0;)
		if (d->key[i].gen == gen &&
				memcmp(d->key[i].tx_nonce, tx_nonce, SB_AUTH_NONCE_LEN) == 0 &&
				memcmp(d->key[i].rx_nonce, rx_nonce, SB_AUTH_NONCE_LEN) == 0)
			return (int)i;
	return -1;
}

/* A DATA frame the sender put on a link: which of the keys it could have been made with
 * verifies its tag; its packet number is used under that key. */
static void
inspect_data(struct dir *d, const struct rte_mbuf *m, const struct sb_shim *shim)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	struct sb_auth_seg seg[2];
	struct sb_data_auth da;
	struct book_key *k;
	unsigned int i;
	uint64_t pn;

	d->frames++;
	if (!(shim->flags & SB_WIRE_F_AUTH) || sb_wire_data_auth_get(buf,
			rte_pktmbuf_pkt_len(m), shim, &da) != SB_WIRE_OK) {
		d->unverified++;
		return;
	}
	if (m->nb_segs != 1 || rte_pktmbuf_data_len(m) < da.len) {
		d->multi_seg++;
		return;
	}
	d->by_gen[da.gen]++;
	pn = (uint64_t)da.pn_hi << 32 | shim->seq;
	if (da.pn_hi > SB_AUTH_PN_HI_MAX && d->pn_hi_over++ < 5)
		fprintf(stderr, "%s: a frame with PN high %" PRIu32 " (2^63 passed)\n", d->name,
			da.pn_hi);
	seg[0] = (struct sb_auth_seg){ buf, SB_WIRE_DATA_TAG_OFF };
	seg[1] = (struct sb_auth_seg){ buf + SB_WIRE_DATA_AUTH_INNER,
		da.len - SB_WIRE_DATA_AUTH_INNER };
	for (i = d->n_key, k = NULL; i-- > 0 && i + KEYS_TRIED >= d->n_key;) {
		if (d->key[i].gen == da.gen && d->key[i].k.key_id == da.key_id &&
				sb_auth_data_verify(&d->key[i].k, pn, seg, 2, da.tag) == 0) {
			k = &d->key[i];
			break;
		}
	}
	if (k == NULL) {
		if (d->unverified++ < 5)
			fprintf(stderr, "%s: a DATA frame (gen %u, PN %#" PRIx64 ") verifies under "
				"none of the keys its sender could have made it with\n", d->name,
				da.gen, pn);
		return;
	}
	if (k->frames++ == 0)
		k->first_pn = pn;
	k->pn_hi_min = RTE_MIN(k->pn_hi_min, da.pn_hi);
	k->pn_hi_max = RTE_MAX(k->pn_hi_max, da.pn_hi);
	d->last_key = i;
	if (d->n_used == d->cap_used) {
		d->cap_used = d->cap_used == 0 ? 65536 : 2 * d->cap_used;
		d->used = realloc(d->used, d->cap_used * sizeof(d->used[0]));
		if (d->used == NULL)
			rte_exit(EXIT_FAILURE, "no memory for packet numbers\n");
	}
	d->used[d->n_used++] = (struct used_pn){ i, pn };
}

/* A hello of the sender: the nonce and generation its trailer announces. */
static void
inspect_hello(struct dir *d, const struct rte_mbuf *m)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct sb_hello_auth au;
	struct sb_hello h;

	if (sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h) != SB_WIRE_OK ||
			sb_wire_hello_auth_get(buf, len, &h, &au) != SB_WIRE_OK ||
			h.host_id != d->tx->cfg.host_id)
		return;
	d->hello_seen = true;
	memcpy(d->hello_nonce, au.nonce, SB_AUTH_NONCE_LEN);
	d->hello_gen = au.gen;
}

/* Read what the sender put on its links (after its poll, before the receiver's): copy or
 * take DATA frames when asked; the rest goes on as it was. */
static void
tap(struct dir *d)
{
	struct rte_mbuf *m[SB_PAIR_RING_SIZE], *keep[SB_PAIR_RING_SIZE];
	unsigned int l, n, i, k;

	for (l = 0; l < LINKS; l++) {
		n = rte_ring_dequeue_burst(d->ring[l], (void **)m, RTE_DIM(m), NULL);
		for (i = k = 0; i < n; i++) {
			const uint8_t *buf = rte_pktmbuf_mtod(m[i], const uint8_t *);
			struct sb_shim shim;
			size_t off;

			if (d->skip[l] > 0) {
				d->skip[l]--;
				keep[k++] = m[i];
				continue;
			}
			if (sb_wire_parse(buf, rte_pktmbuf_data_len(m[i]), &shim, &off) !=
					SB_WIRE_OK) {
				keep[k++] = m[i];
				continue;
			}
			if (shim.type == SB_WIRE_HELLO) {
				inspect_hello(d, m[i]);
				keep[k++] = m[i];
				continue;
			}
			inspect_data(d, m[i], &shim);
			if (d->copy_req > 0 && d->n_copied < RTE_DIM(d->copied)) {
				d->copied[d->n_copied] = rte_pktmbuf_copy(m[i], mp, 0, UINT32_MAX);
				d->copied_link[d->n_copied] = l;
				if (d->copied[d->n_copied++] == NULL)
					rte_exit(EXIT_FAILURE, "no mbuf for a copy\n");
				d->copy_req--;
			} else if (d->take_req > 0 && d->n_taken < RTE_DIM(d->taken)) {
				d->taken_link[d->n_taken] = l;
				d->taken[d->n_taken++] = m[i];
				d->take_req--;
				continue;
			}
			keep[k++] = m[i];
		}
		if (rte_ring_enqueue_burst(d->ring[l], (void **)keep, k, NULL) != k)
			rte_exit(EXIT_FAILURE, "a tapped ring took its frames back short\n");
	}
}

/* Put @p m on link @p l (the one it was read on: its MACs and path id are that path's)
 * towards @p d's receiver, ahead of what its sender puts there next: b reads it in the next
 * step after the tap (which must not take it for a's), a before. */
static void
inject(struct dir *d, struct rte_mbuf *m, unsigned int l)
{
	if (rte_ring_enqueue(d->ring[l], m) != 0)
		rte_exit(EXIT_FAILURE, "%s: link %u full\n", d->name, l);
	if (d == &ab)
		d->skip[l]++;
}


/* ---- the hosts' clock ----------------------------------------------------------------- */

/* One iteration of both lcore loops, a then b (as sb_pair_step()), with the tap on the links
 * after each sender. */
static void
step(void)
{
	bool hk = now >= next_hk;

	if (hk)
		next_hk = now + hk_period;
	if (streaming) {
		feed(&ab);
		feed(&ba);
	}
	book_note(&ab);
	sb_dp_worker_poll(&a.dp->worker[0], now, hk);
	book_note(&ab);
	tap(&ab);
	book_note(&ba);
	sb_dp_worker_poll(&b.dp->worker[0], now, hk);
	book_note(&ba);
	tap(&ba);
	drain(&ab);
	drain(&ba);
	now += STEP_US * hz / 1000000;
	steps++;
}

static void
run_ms(unsigned int ms)
{
	uint64_t end = now + (uint64_t)ms * hz / 1000;

	while (now < end)
		step();
}

/* Step until @p done() or @p ms have passed. @return done(). */
static bool
run_until(bool (*done)(void), unsigned int ms)
{
	uint64_t end = now + (uint64_t)ms * hz / 1000;

	while (!done() && now < end)
		step();
	return done();
}

/* Step until @p d's tap copied @p n frames (asked for), at most 10 ms. */
static void
copy_frames(struct dir *d, unsigned int n)
{
	uint64_t end = now + hz / 100;

	d->copy_req = n;
	while (d->copy_req > 0 && now < end)
		step();
}

static int
slot_of(const struct sb_pair_host *h, uint32_t host_id)
{
	const struct sb_peer_table *t = &h->dp->tx->peers;
	unsigned int i;

	for (i = 0; i < t->n_peers; i++)
		if (t->peer[i].host_id == host_id)
			return (int)i;
	return -1;
}

static bool
same_nonce(const uint8_t *x, const uint8_t *y)
{
	return memcmp(x, y, SB_AUTH_NONCE_LEN) == 0;
}

/* ---- 3. packet numbers used up -------------------------------------------------------- */

static uint8_t a_nonce_old[SB_AUTH_NONCE_LEN];
static uint64_t a_rekeys0;

static bool
a_rekeyed(void)
{
	return cnt(&a, "auth_rekeys") != a_rekeys0;
}

static bool
b_took_a_nonce(void)
{
	return same_nonce(b.dp->tx->peer[ab.rpi].nonce, a.dp->tx->nonce) &&
		same_nonce(b.dp->rx_peer[ab.rpi].nonce, a.dp->tx->nonce);
}

static void
pn_used_up(void)
{
	struct sb_dp_tx_peer *tp = &a.dp->tx->peer[ab.pi];
	unsigned int fails = sb_test_fail, lost_ab, lost_ba;
	uint64_t ref_b, ref_a, t0 = now;
	int ko, kn;
	struct snap s;
	size_t lm;

	snap_take(&s);
	lm = log_mark();
	memcpy(a_nonce_old, a.dp->tx->nonce, SB_AUTH_NONCE_LEN);
	a_rekeys0 = cnt(&a, "auth_rekeys");
	/* The streams run from the start with a's numbers to b this close to 2^63. */
	SB_CHECK(run_until(a_rekeyed, WRAP_AHEAD / (10 * STREAM_PER_STEP) + 100),
		"packet numbers: a did not re-key within 100 ms of its wrap (tx_seq %#x, PN high "
		"%#x)", tp->tx_seq, tp->pn_hi);
	SB_CHECK(cnt(&a, "auth_rekeys") == a_rekeys0 + 1 && !same_nonce(a.dp->tx->nonce,
		a_nonce_old) && tp->pn_hi == 0, "packet numbers: a's re-key: auth_rekeys +%" PRIu64
		", nonce %s, PN high now %" PRIu32 " (expected +1, new, 0)",
		cnt(&a, "auth_rekeys") - a_rekeys0, same_nonce(a.dp->tx->nonce, a_nonce_old) ?
		"the same" : "new", tp->pn_hi);
	SB_CHECK(log_count(lm, "new session nonce (packet numbers used up)") == 1,
		"packet numbers: the log does not say \"new session nonce (packet numbers used "
		"up)\"");
	/* What a put on the links: under its old nonce PN high SB_AUTH_PN_HI_MAX only, up to
	 * the last number below 2^63; under its new one from packet number 0. */
	ko = book_find(&ab, a_nonce_old, tp->nonce, tp->gen);
	SB_CHECK(ko >= 0 && ab.key[ko].frames == WRAP_AHEAD && ab.key[ko].pn_hi_min ==
		SB_AUTH_PN_HI_MAX && ab.key[ko].pn_hi_max == SB_AUTH_PN_HI_MAX,
		"packet numbers: a's frames under its old nonce: %" PRIu64 " with PN high %#x..%#x "
		"(expected %u, all %#x)", ko >= 0 ? ab.key[ko].frames : 0,
		ko >= 0 ? ab.key[ko].pn_hi_min : 0, ko >= 0 ? ab.key[ko].pn_hi_max : 0,
		WRAP_AHEAD, SB_AUTH_PN_HI_MAX);

	SB_CHECK(run_until(b_took_a_nonce, 50), "packet numbers: b did not take a's new nonce "
		"in 50 ms");
	SB_CHECK(ab.hello_seen && same_nonce(ab.hello_nonce, a.dp->tx->nonce),
		"packet numbers: a's hellos do not carry its new nonce");
	/* b emptied its window of a's numbers and took a's low ones. */
	SB_CHECK(b.dp->rx_peer[ab.rpi].pn.any && b.dp->rx_peer[ab.rpi].pn.top >> 32 == 0,
		"packet numbers: b's window of a's numbers has its top at PN high %#" PRIx64
		" (expected 0: a's new numbers)", b.dp->rx_peer[ab.rpi].pn.top >> 32);
	run_ms(100);
	kn = book_find(&ab, a.dp->tx->nonce, tp->nonce, tp->gen);
	SB_CHECK(kn >= 0 && ab.key[kn].frames > 0 && ab.key[kn].first_pn == 0 &&
		ab.key[kn].pn_hi_max == 0, "packet numbers: a's frames under its new nonce: %"
		PRIu64 ", the first at packet number %#" PRIx64 ", PN high up to %#x (expected "
		"from 0, PN high 0)", kn >= 0 ? ab.key[kn].frames : 0,
		kn >= 0 ? ab.key[kn].first_pn : 0, kn >= 0 ? ab.key[kn].pn_hi_max : 0);
	/* In flight: a's frames made under its new nonce before b took it (b refuses them by
	 * their packet number, below b's window of a's old ones, or their tag), and b's made
	 * under a's old nonce (a has new keys for them). Each refused frame is a loss, and no
	 * frame is lost for anything else. */
	ref_b = refused_data(&s, &b);
	ref_a = refused_data(&s, &a);
	lost_ab = (unsigned int)(ab.lost - s.lost_ab);
	lost_ba = (unsigned int)(ba.lost - s.lost_ba);
	SB_CHECK(lost_ab == ref_b && ref_b <= IN_FLIGHT_MAX, "packet numbers: a -> b lost %u, "
		"b refused %" PRIu64 " of a's frames (expected the same, at most %u)", lost_ab,
		ref_b, IN_FLIGHT_MAX);
	SB_CHECK(lost_ba == ref_a && ref_a <= IN_FLIGHT_MAX, "packet numbers: b -> a lost %u, "
		"a refused %" PRIu64 " of b's frames (expected the same, at most %u)", lost_ba,
		ref_a, IN_FLIGHT_MAX);
	SB_CHECK(ab.bad == s.bad_ab && ba.bad == s.bad_ba, "packet numbers: frames delivered "
		"out of order: a -> b %" PRIu64 ", b -> a %" PRIu64, ab.bad - s.bad_ab,
		ba.bad - s.bad_ba);
	{
		const struct allow ok[] = {
			{ &a, "auth_rekeys", 1 },
			{ &b, "rx_auth_bad_tag", -1 }, { &b, "rx_auth_unknown_key", -1 },
			{ &b, "rx_auth_data_replay", -1 },
			{ &a, "rx_auth_bad_tag", -1 }, { &a, "rx_auth_unknown_key", -1 },
			{ &a, "rx_auth_data_replay", -1 },
		};

		snap_check("packet numbers", &s, ok, RTE_DIM(ok));
	}
	printf("%-26s a re-keyed after its wrap; in flight refused: by b %" PRIu64 " "
		"(replay %" PRIu64 ", tag %" PRIu64 "), by a %" PRIu64 " (tag %" PRIu64 "); "
		"%.1f ms: %s\n", "packet numbers used up", ref_b,
		snap_d(&s, &b, "rx_auth_data_replay"), snap_d(&s, &b, "rx_auth_bad_tag"), ref_a,
		snap_d(&s, &a, "rx_auth_bad_tag"), (double)(now - t0) * 1e3 / hz,
		sb_test_fail == fails ? "ok" : "FAILED");
}

/* ---- 1. the key generation moves on --------------------------------------------------- */

static uint8_t gen_new;

static bool
a_took_gen(void)
{
	return a.dp->tx->peer[ab.pi].gen == gen_new;
}

static void
generation_moves_on(void)
{
	struct sb_dp_rx_peer *rp = &b.dp->rx_peer[ab.rpi];
	unsigned int fails = sb_test_fail, taken_old;
	struct rte_mbuf *w1, *c1, *c2;
	uint64_t rekeys, t0, t1, t_start = now;
	uint8_t gen_old;
	size_t lm;
	struct snap s;

	/* A frame of a's b never gets (its number is lost at b, before this scenario). */
	snap_take(&s);
	ab.take_req = 1;
	run_ms(20);
	SB_CHECK(ab.n_taken == 1 && ab.lost == s.lost_ab + 1 && ab.bad == s.bad_ab,
		"generation: one frame of a's taken off the link: %u taken, a -> b lost %" PRIu64
		" (expected 1)", ab.n_taken, ab.lost - s.lost_ab);
	w1 = ab.taken[0];

	snap_take(&s);
	gen_old = b.dp->tx->gen;
	gen_new = (uint8_t)(gen_old + 1);
	rekeys = cnt(&b, "auth_rekeys");
	SB_CHECK(a.dp->tx->peer[ab.pi].gen == gen_old && b.dp->rx[0]->gen == gen_old,
		"generation: a makes its frames for b's generation %u, b's RX side is at %u; b "
		"is at %u", a.dp->tx->peer[ab.pi].gen, b.dp->rx[0]->gen, gen_old);
	/* Two frames b takes before the change, copied. */
	copy_frames(&ab, 2);
	SB_CHECK(ab.n_copied == 2, "generation: %u frames of a's copied", ab.n_copied);
	c1 = ab.copied[0];
	c2 = ab.copied[1];

	/* A peer left b's table: b's lcore calls this on SB_PEER_EV_PEER_GONE. */
	lm = log_mark();
	sb_dp_auth_peer_gone(b.dp, 77);
	SB_CHECK(b.dp->tx->gen == gen_new && cnt(&b, "auth_rekeys") == rekeys + 1 &&
		b.dp->tx->next_hello == 0, "generation: after peer_gone b is at generation %u, "
		"auth_rekeys +%" PRIu64 ", next hello at %" PRIu64 " (expected %u, +1, at once)",
		b.dp->tx->gen, cnt(&b, "auth_rekeys") - rekeys, b.dp->tx->next_hello, gen_new);
	SB_CHECK(log_count(lm, "key generation ") == 1, "generation: the log says nothing of "
		"the new generation");
	/* b's RX side takes it at its next poll: the keys of the old generation are kept for
	 * 2 s of TSC. The frames a put on the links in that step were made for the old one. */
	memset(ab.by_gen, 0, sizeof(ab.by_gen));
	t0 = rte_rdtsc();
	step();
	t1 = rte_rdtsc();
	SB_CHECK(b.dp->rx[0]->gen == gen_new && rp->prev_gen == gen_old &&
		rp->prev_until >= t0 + 2 * hz && rp->prev_until <= t1 + 2 * hz,
		"generation: b's RX side at %u, the keys of %u kept until %+.3f s (expected %u, "
		"%u, 2 s)", b.dp->rx[0]->gen, rp->prev_gen,
		((double)rp->prev_until - (double)t1) / hz, gen_new, gen_old);
	/* b's window of a's numbers stays: a frame it took, played back now, is a replay. */
	inject(&ab, c1, ab.copied_link[0]);
	SB_CHECK(run_until(a_took_gen, 50), "generation: a did not take b's generation %u "
		"in 50 ms", gen_new);
	taken_old = (unsigned int)ab.by_gen[gen_old];
	SB_CHECK(ba.hello_seen && ba.hello_gen == gen_new, "generation: b's hellos announce "
		"generation %u, expected %u", ba.hello_gen, gen_new);
	/* From then on a's frames are made for the new generation (byte 25). */
	memset(ab.by_gen, 0, sizeof(ab.by_gen));
	run_ms(30);
	SB_CHECK(ab.by_gen[gen_old] == 0 && ab.by_gen[gen_new] > 0, "generation: after a took "
		"b's hello it sent %" PRIu64 " frames for generation %u, %" PRIu64 " for %u "
		"(expected none, some)", ab.by_gen[gen_old], gen_old, ab.by_gen[gen_new],
		gen_new);
	/* In the grace, a's frames for the old generation were taken: nothing refused but the
	 * replay, nothing lost, in order. */
	SB_CHECK(taken_old > 0, "generation: no frame of a's for the old generation reached b "
		"after the change: the grace was not tested");
	SB_CHECK(ab.lost == s.lost_ab && ba.lost == s.lost_ba && ab.bad == s.bad_ab &&
		ba.bad == s.bad_ba, "generation: in the grace a -> b lost %" PRIu64 ", %" PRIu64
		" out of order; b -> a lost %" PRIu64 ", %" PRIu64 " out of order",
		ab.lost - s.lost_ab, ab.bad - s.bad_ab, ba.lost - s.lost_ba, ba.bad - s.bad_ba);
	{
		const struct allow ok[] = {
			{ &b, "auth_rekeys", 1 }, { &b, "rx_auth_data_replay", 1 },
		};

		snap_check("generation, in the grace", &s, ok, RTE_DIM(ok));
	}

	/* The grace ends: prev_until is set to a past TSC (rather than waiting 2 s). A frame of
	 * a's for the old generation is refused for its key, whether b took its number (c2) or
	 * never got it (w1): the generation is checked before the packet number. */
	snap_take(&s);
	rp->prev_until = 1;
	inject(&ab, w1, ab.taken_link[0]);
	inject(&ab, c2, ab.copied_link[1]);
	run_ms(10);
	SB_CHECK(ab.lost == s.lost_ab && ab.bad == s.bad_ab, "generation: after the grace a "
		"-> b lost %" PRIu64 ", %" PRIu64 " out of order", ab.lost - s.lost_ab,
		ab.bad - s.bad_ab);
	{
		const struct allow ok[] = {
			{ &b, "rx_auth_unknown_key", 2 },
		};

		snap_check("generation, after the grace", &s, ok, RTE_DIM(ok));
	}
	printf("%-26s b at generation %u; %u frames of a's for %u taken in the grace, then "
		"none sent; a replay refused; after the grace 2 refused (unknown key); %.1f ms: "
		"%s\n", "key generation moves on", gen_new, taken_old, gen_old,
		(double)(now - t_start) * 1e3 / hz, sb_test_fail == fails ? "ok" : "FAILED");
}

/* ---- 2. generations come round -------------------------------------------------------- */

static uint8_t b_nonce_new[SB_AUTH_NONCE_LEN];

static bool
a_took_b_nonce(void)
{
	return same_nonce(a.dp->tx->peer[ab.pi].nonce, b_nonce_new) &&
		same_nonce(a.dp->rx_peer[ba.rpi].nonce, b_nonce_new);
}

static void
generations_come_round(void)
{
	unsigned int fails = sb_test_fail, n_gone = 0, not_followed = 0, lost_ab, lost_ba;
	uint8_t b_nonce_old[SB_AUTH_NONCE_LEN];
	uint64_t rekeys, ref_a, ref_b, uk, t_start = now;
	struct rte_mbuf *d1;
	size_t lm;
	struct snap s;

	/* One departure at a time up to generation 255, a following each: with the grace,
	 * nothing is refused or lost. */
	snap_take(&s);
	rekeys = cnt(&b, "auth_rekeys");
	lm = log_mark();
	while (b.dp->tx->gen != 255) {
		uint64_t s0 = steps;

		sb_dp_auth_peer_gone(b.dp, 1000 + n_gone++);
		gen_new = b.dp->tx->gen;
		if (!run_until(a_took_gen, 20) && not_followed++ < 5)
			fprintf(stderr, "a did not take b's generation %u\n", gen_new);
		while (steps - s0 < GEN_SPACING_STEPS)
			step();
	}
	SB_CHECK(not_followed == 0, "generations: a did not follow %u of b's %u generations",
		not_followed, n_gone);
	SB_CHECK(cnt(&b, "auth_rekeys") == rekeys + n_gone && log_count(lm, "key generation ")
		== n_gone, "generations: %u departures, auth_rekeys +%" PRIu64 ", %u log lines",
		n_gone, cnt(&b, "auth_rekeys") - rekeys, log_count(lm, "key generation "));
	SB_CHECK(ab.lost == s.lost_ab && ba.lost == s.lost_ba && ab.bad == s.bad_ab &&
		ba.bad == s.bad_ba, "generations: up to 255 a -> b lost %" PRIu64 ", %" PRIu64
		" out of order; b -> a lost %" PRIu64 ", %" PRIu64 " out of order",
		ab.lost - s.lost_ab, ab.bad - s.bad_ab, ba.lost - s.lost_ba, ba.bad - s.bad_ba);
	{
		const struct allow ok[] = {
			{ &b, "auth_rekeys", n_gone },
		};

		snap_check("generations, up to 255", &s, ok, RTE_DIM(ok));
	}
	printf("%-26s %u departures, a followed each; nothing refused or lost: %s\n",
		"generations up to 255", n_gone, sb_test_fail == fails ? "ok" : "FAILED");

	/* A frame of b's that a takes, copied: played back once a took b's new nonce. */
	copy_frames(&ba, 1);
	SB_CHECK(ba.n_copied == 1, "generations: %u frames of b's copied", ba.n_copied);
	d1 = ba.copied[0];

	/* One more: generation 0 would come back; a new nonce instead. */
	snap_take(&s);
	memcpy(b_nonce_old, b.dp->tx->nonce, SB_AUTH_NONCE_LEN);
	rekeys = cnt(&b, "auth_rekeys");
	lm = log_mark();
	sb_dp_auth_peer_gone(b.dp, 999);
	memcpy(b_nonce_new, b.dp->tx->nonce, SB_AUTH_NONCE_LEN);
	SB_CHECK(b.dp->tx->gen == 0 && !same_nonce(b_nonce_new, b_nonce_old) &&
		cnt(&b, "auth_rekeys") == rekeys + 1 && b.dp->tx->next_hello == 0,
		"generations: after the 256th b is at generation %u, nonce %s, auth_rekeys +%"
		PRIu64 " (expected 0, new, +1)", b.dp->tx->gen, same_nonce(b_nonce_new,
		b_nonce_old) ? "the same" : "new", cnt(&b, "auth_rekeys") - rekeys);
	SB_CHECK(log_count(lm, "key generations used up") == 1, "generations: the log does not "
		"say \"key generations used up\"");
	step();
	SB_CHECK(b.dp->rx[0]->gen == 0 && same_nonce(b.dp->rx[0]->nonce, b_nonce_new) &&
		b.dp->rx_peer[ab.rpi].prev_until == 0, "generations: b's RX side at generation "
		"%u, nonce %s, old keys kept: %s (expected 0, new, none)", b.dp->rx[0]->gen,
		same_nonce(b.dp->rx[0]->nonce, b_nonce_new) ? "new" : "old",
		b.dp->rx_peer[ab.rpi].prev_until != 0 ? "yes" : "no");
	SB_CHECK(run_until(a_took_b_nonce, 50), "generations: a did not take b's new nonce in "
		"50 ms");
	SB_CHECK(a.dp->tx->peer[ab.pi].gen == 0, "generations: a makes its frames for b's "
		"generation %u, expected 0", a.dp->tx->peer[ab.pi].gen);
	SB_CHECK(ba.hello_seen && same_nonce(ba.hello_nonce, b_nonce_new) && ba.hello_gen == 0,
		"generations: b's hellos announce generation %u and %s nonce", ba.hello_gen,
		same_nonce(ba.hello_nonce, b_nonce_new) ? "the new" : "an old");
	/* a emptied its window of b's numbers when it took the nonce: a frame of b's it took
	 * before is refused for its tag (old keys), not as a replay. */
	inject(&ba, d1, ba.copied_link[0]);
	run_ms(50);
	ref_b = refused_data(&s, &b);
	ref_a = refused_data(&s, &a);
	lost_ab = (unsigned int)(ab.lost - s.lost_ab);
	lost_ba = (unsigned int)(ba.lost - s.lost_ba);
	SB_CHECK(snap_d(&s, &a, "rx_auth_data_replay") == 0, "generations: a refused %" PRIu64
		" frames of b's as replays: its window of b's numbers was not emptied",
		snap_d(&s, &a, "rx_auth_data_replay"));
	/* In flight: a's frames for generation 255 (b keeps no old keys after a new nonce) and
	 * b's under its new nonce before a took it. */
	SB_CHECK(lost_ab == ref_b && ref_b <= IN_FLIGHT_MAX, "generations: a -> b lost %u, b "
		"refused %" PRIu64 " of a's frames (expected the same, at most %u)", lost_ab,
		ref_b, IN_FLIGHT_MAX);
	SB_CHECK(lost_ba + 1 == ref_a && ref_a <= IN_FLIGHT_MAX + 1, "generations: b -> a lost "
		"%u, a refused %" PRIu64 " of b's frames, one of them played back (expected "
		"lost + 1, at most %u)", lost_ba, ref_a, IN_FLIGHT_MAX + 1);
	SB_CHECK(ab.bad == s.bad_ab && ba.bad == s.bad_ba, "generations: out of order: a -> b "
		"%" PRIu64 ", b -> a %" PRIu64, ab.bad - s.bad_ab, ba.bad - s.bad_ba);
	{
		const struct allow ok[] = {
			{ &b, "auth_rekeys", 1 },
			{ &b, "rx_auth_bad_tag", -1 }, { &b, "rx_auth_unknown_key", -1 },
			{ &b, "rx_auth_data_replay", -1 },
			{ &a, "rx_auth_bad_tag", -1 }, { &a, "rx_auth_unknown_key", -1 },
		};

		snap_check("generations, the 256th", &s, ok, RTE_DIM(ok));
	}
	uk = snap_d(&s, &b, "rx_auth_unknown_key");
	/* Then both streams go on, nothing more refused. */
	snap_take(&s);
	run_ms(30);
	SB_CHECK(ab.lost == s.lost_ab && ba.lost == s.lost_ba && ab.bad == s.bad_ab &&
		ba.bad == s.bad_ba, "generations: after the new nonce a -> b lost %" PRIu64 ", b "
		"-> a %" PRIu64, ab.lost - s.lost_ab, ba.lost - s.lost_ba);
	snap_check("generations, after the new nonce", &s, NULL, 0);
	printf("%-26s b drew a new nonce; in flight refused: by b %" PRIu64 " (unknown key "
		"%" PRIu64 "), by a %" PRIu64 " (tag); a frame played back refused for its tag; "
		"%.1f ms: %s\n", "generations come round", ref_b, uk, ref_a - 1,
		(double)(now - t_start) * 1e3 / hz, sb_test_fail == fails ? "ok" : "FAILED");
}

/* ---- the whole run -------------------------------------------------------------------- */

static int
used_cmp(const void *x, const void *y)
{
	const struct used_pn *p = x, *q = y;

	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->pn < q->pn ? -1 : p->pn > q->pn;
}

/* No packet number twice under one key; every frame verified under a key its sender could
 * have made it with, below 2^63. */
static void
dir_check(struct dir *d)
{
	size_t i, dup = 0;

	qsort(d->used, d->n_used, sizeof(d->used[0]), used_cmp);
	for (i = 1; i < d->n_used; i++)
		if (d->used[i].key == d->used[i - 1].key && d->used[i].pn == d->used[i - 1].pn &&
				dup++ < 5)
			fprintf(stderr, "%s: packet number %#" PRIx64 " used twice under key %u\n",
				d->name, d->used[i].pn, d->used[i].key);
	SB_CHECK(d->unverified == 0 && d->multi_seg == 0 && d->pn_hi_over == 0 &&
		d->n_used == d->frames, "%s: %" PRIu64 " DATA frames on the links, %" PRIu64
		" verifying under no key its sender could have made, %" PRIu64 " past 2^63, %"
		PRIu64 " not checked", d->name, d->frames, d->unverified, d->pn_hi_over,
		d->multi_seg);
	SB_CHECK(dup == 0, "%s: %zu packet numbers used twice under one key", d->name, dup);
	printf("%s: %" PRIu64 " frames under %u keys, each verified, no packet number twice; "
		"stream %" PRIu32 " frames, %" PRIu64 " delivered in order, %" PRIu64 " lost\n",
		d->name, d->frames, d->n_key, d->next_in, d->delivered, d->lost);
}

static void
dir_free(struct dir *d)
{
	unsigned int i;

	for (i = 0; i < d->n_key; i++)
		sb_auth_data_key_free(&d->key[i].k);
	free(d->key);
	free(d->used);
}

int
main(int argc, char **argv)
{
	uint64_t t_start = rte_rdtsc(), deadline;
	unsigned int i;
	char err[128];
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n", rte_strerror(rte_errno));
	log_f = open_memstream(&log_buf, &log_len);
	if (log_f == NULL || rte_openlog_stream(log_f) != 0)
		rte_exit(EXIT_FAILURE, "cannot keep the log\n");
	mp = rte_pktmbuf_pool_create("keys", POOL_SIZE, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n", rte_strerror(rte_errno));
	for (i = 0; i < LINKS; i++) {
		a2b[i] = sb_pair_ring("bn_a2b%u", i);
		b2a[i] = sb_pair_ring("bn_b2a%u", i);
	}
	sb_pair_host_config(&a, 1, LINKS, "edpf");
	sb_pair_host_config(&b, 2, LINKS, "edpf");
	/* The default detection time: this clock never stalls. */
	a.cfg.hello_multiplier = b.cfg.hello_multiplier = 4;
	sb_pair_host_start(&a, 1, a2b, b2a, mp, true, &stop);
	sb_pair_host_start(&b, 2, b2a, a2b, mp, true, &stop);
	if (sb_auth_key_parse(sb_pair_key_hex, 1, &cluster_key, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "the cluster key: %s\n", err);
	hz = rte_get_tsc_hz();
	hk_period = hz / 1000;
	now = rte_rdtsc();

	deadline = now + 2 * hz;
	while (sb_pair_paths_up(&a) < LINKS || sb_pair_paths_up(&b) < LINKS) {
		if (now > deadline)
			rte_exit(EXIT_FAILURE, "paths did not come up in 2 s: a %u, b %u of %u\n",
				sb_pair_paths_up(&a), sb_pair_paths_up(&b), LINKS);
		step();
	}
	ab.pi = ba.rpi = slot_of(&a, b.cfg.host_id);
	ba.pi = ab.rpi = slot_of(&b, a.cfg.host_id);
	if (ab.pi < 0 || ba.pi < 0 || !a.dp->tx->peer[ab.pi].nonce_set ||
			!b.dp->tx->peer[ba.pi].nonce_set)
		rte_exit(EXIT_FAILURE, "the hosts do not know each other's nonce\n");
	SB_CHECK(cnt(&a, "tx_data") == 0 && cnt(&b, "tx_data") == 0, "DATA sent before the "
		"streams: a %" PRIu64 ", b %" PRIu64, cnt(&a, "tx_data"), cnt(&b, "tx_data"));

	/* a's numbers to b start close to 2^63 (scenario "packet numbers used up"): the first
	 * frame of the stream sets b's reorder window, so nothing else needs to know. */
	a.dp->tx->peer[ab.pi].tx_seq = (uint32_t)(UINT64_C(1) << 32) - WRAP_AHEAD;
	a.dp->tx->peer[ab.pi].pn_hi = SB_AUTH_PN_HI_MAX;
	streaming = true;
	pn_used_up();
	run_ms(50);
	generation_moves_on();
	run_ms(20);
	generations_come_round();

	/* The streams end: every frame sent reached the other host or was counted lost. */
	streaming = false;
	deadline = now + hz;
	while ((ab.next_out != ab.next_in || ba.next_out != ba.next_in) && now < deadline)
		step();
	SB_CHECK(ab.next_out == ab.next_in && ba.next_out == ba.next_in && ab.bad == 0 &&
		ba.bad == 0, "the streams end: a -> b %" PRIu32 " of %" PRIu32 ", b -> a %" PRIu32
		" of %" PRIu32 " accounted for, %" PRIu64 " and %" PRIu64 " out of order",
		ab.next_out, ab.next_in, ba.next_out, ba.next_in, ab.bad, ba.bad);
	dir_check(&ab);
	dir_check(&ba);
	printf("%.1f s of the hosts' clock in %.2f s\n", (double)steps * STEP_US / 1e6,
		(double)(rte_rdtsc() - t_start) / hz);

	/* Every mbuf back. */
	stop = true;
	sb_pair_free(&a, &b, a2b, b2a, LINKS);
	SB_CHECK(rte_mempool_avail_count(mp) == POOL_SIZE, "%u of %u mbufs back in the pool",
		rte_mempool_avail_count(mp), POOL_SIZE);
	dir_free(&ab);
	dir_free(&ba);
	sb_auth_wipe(&cluster_key, sizeof(cluster_key));
	if (sb_test_fail != 0)
		fprintf(stderr, "the log:\n%.*s", (int)log_mark(), log_buf);
	rte_eal_cleanup();
	return sb_test_summary("test_dp_keys");
}
