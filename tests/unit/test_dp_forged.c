/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Issue 33's forgeries against a host that holds the cluster key, on ring ports: the per-frame
 * half of test_neighbours with SEQBOND_TEST_KEY=on, in about a second.
 *
 * Two datapaths, a (host 1) and b (host 2), one lcore each, both played by this thread with a
 * TSC it moves itself (100 us a step, housekeeping every 1 ms: no machine stall ever reaches
 * the hosts, nothing sleeps), both holding the same cluster key, 4 ring links
 * (tests/common/sb_dp_pair.h). Once every path is up, a steady stream of numbered frames goes
 * a -> b through the exception ports; every frame b hands its kernel must be a's next.
 *
 * The forger is one more host on switch 0 (link 0; its own MAC): it listens to what hellos
 * flood there (host ids, instances, port MACs and indexes, key ids, crypto sequences and
 * session nonces of a and b) and, for the jump, reads one DATA frame of a's towards b, as
 * tests/integration/sb_forge.py does. It then puts on b's port 0 each attack of issue 33, with
 * a in the victim's part (b's peer is a): for each kind several hundred frames, first without
 * a tag (no AUTH flag: what a keyless forger makes from scratch), then with AUTH and a wrong
 * tag: a hello carries the authentication trailer of a's hellos as heard (the real key id and
 * every other field) with a crypto sequence a minute ahead of a's and a random tag; a DATA
 * frame the authentication header of a's DATA frame as read, with its own length and packet
 * number and a random tag:
 *   jump        DATA 2^29 past a's sequence, a's port MAC and path id
 *   restart     a's hello with a new instance each time
 *   ports       a's hello from port indexes 4..15 (16 ports), listing b's port, MTU good
 *   slow        a new peer announcing a 1 kbit/s port, hearing a and b
 *   fill        80 made-up host ids
 *   loss-hello  a's own hello (its port MAC) with its sequence 99000 ahead each time
 *   loss-data   DATA from a's port with random path sequences and sequence numbers ahead
 *   replay      DATA frames of a's copied off b's port ring and put there again
 * and checks, for each: the refusal counter of its reason rose by exactly what was injected
 * (rx_auth_no_tag, rx_auth_bad_tag, rx_auth_data_replay; for hellos of no known path the
 * check budget's rx_auth_limited_new with rx_auth_bad_tag, the latter within the budget) and
 * no other refusal, table or window counter moved; b's peer table is as before (a alone, its
 * instance, every path up and in the stripe, no restart or claim of one, no new peer or path,
 * no path loss counted, no duplicate report); b's reorder window took nothing forged (no
 * stray, out of range, refused jump, late, duplicate or lost frame); and the stream arrives
 * complete and in order. The duplicate host id case is a key holder's, the same logic with or
 * without a key: test_neighbours keeps it.
 *
 * Usage: test_dp_forged [EAL options] (e.g. --no-huge -m 256 --no-pci --no-shconf)
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "sb_dp_pair.h"
#include "sb_test.h"

#define LINKS 4
#define SW 0			/* the forger's switch: link 0, b's port 0 */
#define N_FORGED 300		/* frames of each attack */
#define N_FILL_IDS 80
#define POOL_SIZE 16384
#define STEP_US 100		/* the TSC moves this much per step */
#define STREAM_PER_STEP 2	/* a -> b frames put on a's exception port each step */
#define INJECT_PER_STEP 16	/* forged frames put on b's port each step (a burst) */
#define PACE_STEPS 40		/* ... or one every 4 ms (loss-hello with a tag, below) */
#define SETTLE_MS 20		/* after an attack, before its counters are read */
#define FRAME_LEN 128		/* the stream's frames */
#define CNT_OFF (RTE_ETHER_HDR_LEN + 20)	/* where a frame's number sits */
/* The budget of hello checks of a port for hellos of no known path (sb_dp_int.h): checks a
 * second, and at once. */
#define BUDGET_NEW_PER_S SB_DP_HELLO_BUDGET_NEW
#define BUDGET_NEW_BURST SB_DP_HELLO_BUDGET_NEW_BURST

typedef uint32_t cnt_t __attribute__((aligned(1)));

static const uint8_t hello_group[SB_ETH_ALEN] = SB_HELLO_MAC;
static const uint8_t forger_mac[SB_ETH_ALEN] = { 0x02, 'f', 'o', 'r', 'g', 'e' };

static struct sb_pair_host a, b;
static struct rte_ring *a2b[LINKS], *b2a[LINKS];
static struct rte_mempool *mp;
static bool stop;
static uint64_t hz, now, next_hk, hk_period, steps;
static uint64_t rnd = UINT64_C(0x5eb0d33);

/* The stream: numbers put on a's exception port, and the next b must deliver. */
static bool streaming;
static uint32_t next_in, next_out, out_of_order;

/* What the forger heard on its switch: a port's latest group hello. */
struct heard {
	bool valid;
	uint8_t mac[SB_ETH_ALEN];	/* its source MAC */
	struct sb_hello h;		/* entries not kept */
	bool tagged;
	uint8_t trailer[SB_HELLO_AUTH_LEN];	/* its authentication trailer as sent ... */
	uint8_t key_id;			/* ... and in it: the key id, */
	uint64_t cseq;			/* the crypto sequence, */
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/* the session nonce */
};
static struct heard heard_a, heard_b;
/* A DATA frame of a's towards b read there: its path, path sequence, packet number and
 * authentication header. */
static bool stolen;
static uint8_t stolen_path, stolen_pseq;
static uint64_t stolen_pn;
static uint8_t stolen_auth[SB_WIRE_DATA_AUTH_LEN];
/* Copies of a's DATA frames on the switch, to be played back. */
static struct rte_mbuf *captured[N_FORGED];
static unsigned int n_captured, capture_until;
static bool learning;

/* The attack being injected. */
static struct rte_mbuf *forged[N_FORGED + N_FILL_IDS];
static unsigned int n_forged, forged_next, inject_every = 1, inject_per = INJECT_PER_STEP;

/* ---- the stream ------------------------------------------------------------------------ */

static void
feed(void)
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
		memcpy(eh->dst_addr.addr_bytes, b.cfg.mac, RTE_ETHER_ADDR_LEN);
		memcpy(eh->src_addr.addr_bytes, a.cfg.mac, RTE_ETHER_ADDR_LEN);
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		*rte_pktmbuf_mtod_offset(m[i], cnt_t *, CNT_OFF) = next_in++;
	}
	if (rte_ring_enqueue_burst(a.exc_in, (void **)m, STREAM_PER_STEP, NULL) !=
			STREAM_PER_STEP)
		rte_exit(EXIT_FAILURE, "a's exception port does not keep up\n");
}

/* Take what b handed its kernel: each must be a's next frame, whole. */
static void
drain(void)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(b.exc_out, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(m[i]);
			uint32_t c = len == FRAME_LEN ?
				*rte_pktmbuf_mtod_offset(m[i], cnt_t *, CNT_OFF) : UINT32_MAX;

			if (c != next_out) {
				if (out_of_order++ < 5)
					fprintf(stderr, "b delivered a frame of %u bytes numbered "
						"%" PRIu32 " where a's %" PRIu32 " was due\n", len,
						c, next_out);
				if (len != FRAME_LEN)
					continue;	/* not a's: the next is still due */
			}
			next_out = c + 1;
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

/* ---- what the forger hears on switch SW ------------------------------------------------- */

static void
hear(const struct rte_mbuf *m, bool from_a)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct sb_shim shim;
	size_t off;

	if (sb_wire_parse(buf, len, &shim, &off) != SB_WIRE_OK)
		return;
	if (shim.type == SB_WIRE_HELLO && learning) {
		struct heard *p = from_a ? &heard_a : &heard_b;
		struct sb_hello h;
		struct sb_hello_auth au;

		/* Group hellos, as sb_forge.py learns: what every port of the switch gets. */
		if (memcmp(buf, hello_group, SB_ETH_ALEN) != 0 ||
				sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h) !=
				SB_WIRE_OK || (h.flags & SB_HELLO_F_UNICAST))
			return;
		p->valid = true;
		memcpy(p->mac, buf + SB_ETH_ALEN, SB_ETH_ALEN);
		p->h = h;
		p->h.entries = NULL;
		p->h.n_entries = 0;
		p->tagged = (shim.flags & SB_WIRE_F_AUTH) &&
			sb_wire_hello_auth_get(buf, len, &h, &au) == SB_WIRE_OK;
		if (p->tagged) {
			memcpy(p->trailer, buf + au.off, SB_HELLO_AUTH_LEN);
			p->key_id = au.key_id;
			p->cseq = au.seq;
			memcpy(p->nonce, au.nonce, SB_AUTH_NONCE_LEN);
		}
	} else if (shim.type == SB_WIRE_DATA && from_a) {
		struct sb_data_auth da;

		if (learning && (shim.flags & SB_WIRE_F_AUTH) &&
				sb_wire_data_auth_get(buf, rte_pktmbuf_pkt_len(m), &shim, &da) ==
				SB_WIRE_OK) {
			stolen = true;
			stolen_path = shim.path;
			stolen_pseq = shim.path_seq;
			stolen_pn = (uint64_t)da.pn_hi << 32 | shim.seq;
			memcpy(stolen_auth, buf + SB_HDR_LEN, SB_WIRE_DATA_AUTH_LEN);
		}
		if (n_captured < capture_until) {
			captured[n_captured] = rte_pktmbuf_copy(m, mp, 0, UINT32_MAX);
			if (captured[n_captured] == NULL)
				rte_exit(EXIT_FAILURE, "no mbuf for a copy\n");
			n_captured++;
		}
	}
}

/* Read every frame on @p r without taking it: the switch floods them to the forger too. */
static void
tap(struct rte_ring *r, bool from_a)
{
	struct rte_mbuf *m[SB_PAIR_RING_SIZE];
	unsigned int n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL), i;

	for (i = 0; i < n; i++)
		hear(m[i], from_a);
	if (rte_ring_enqueue_burst(r, (void **)m, n, NULL) != n)
		rte_exit(EXIT_FAILURE, "a tapped ring took its frames back short\n");
}

/* ---- the hosts' clock ------------------------------------------------------------------- */

/*
 * One iteration of both lcore loops: a, then b, as sb_pair_step() does, with the forger's
 * ear and hand on switch SW in between (b reads in this step what a sent in it, and a what
 * b sent in the one before).
 */
static void
step(void)
{
	bool hk = now >= next_hk, tapping = learning || n_captured < capture_until;

	if (hk)
		next_hk = now + hk_period;
	if (streaming)
		feed();
	if (tapping)
		tap(b2a[SW], false);
	sb_dp_worker_poll(&a.dp->worker[0], now, hk);
	if (tapping)
		tap(a2b[SW], true);
	if (forged_next < n_forged && steps % inject_every == 0) {
		unsigned int n = RTE_MIN(inject_per, n_forged - forged_next);

		if (rte_ring_enqueue_burst(a2b[SW], (void **)&forged[forged_next], n, NULL) != n)
			rte_exit(EXIT_FAILURE, "b's port %u ring full\n", SW);
		forged_next += n;
	}
	sb_dp_worker_poll(&b.dp->worker[0], now, hk);
	drain();
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

/* ---- the forger's frames ---------------------------------------------------------------- */

static void
random_bytes(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)sb_test_rand(&rnd);
}

static struct rte_mbuf *
frame_alloc(uint8_t **buf, size_t *room)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	if (m == NULL)
		rte_exit(EXIT_FAILURE, "no mbuf for a forged frame\n");
	*buf = rte_pktmbuf_mtod(m, uint8_t *);
	*room = rte_pktmbuf_tailroom(m);
	return m;
}

/*
 * A group hello from @p src with shim path @p path, body @p h listing @p e. @p tagged: with
 * AUTH and the trailer of a's hellos as heard (key id and all), crypto sequence @p cseq,
 * nonce @p nonce and a random tag; otherwise untagged, as made from scratch without the key.
 */
static struct rte_mbuf *
forge_hello(const uint8_t *src, uint8_t path, const struct sb_hello *h,
	const struct sb_hello_entry *e, bool tagged, uint64_t cseq, const uint8_t *nonce)
{
	uint64_t seq_be = rte_cpu_to_be_64(cseq);
	uint8_t *buf, *t;
	size_t room, len;
	struct rte_mbuf *m = frame_alloc(&buf, &room);

	len = sb_wire_put_hello(buf, room, hello_group, src, path, h, e, 0);
	if (len != 0 && tagged) {
		if (len + SB_HELLO_AUTH_LEN > room)
			rte_exit(EXIT_FAILURE, "no room for a hello's trailer\n");
		buf[SB_ETH_HLEN + 1] |= SB_WIRE_F_AUTH;
		t = buf + len;		/* right after the entries */
		memcpy(t, heard_a.trailer, SB_HELLO_AUTH_LEN);
		memcpy(t + offsetof(struct sb_wire_hello_auth, seq), &seq_be, sizeof(seq_be));
		memcpy(t + SB_HELLO_AUTH_NONCE_OFF, nonce, SB_AUTH_NONCE_LEN);
		random_bytes(t + SB_HELLO_AUTH_TAG_OFF, SB_HELLO_AUTH_LEN - SB_HELLO_AUTH_TAG_OFF);
		len += SB_HELLO_AUTH_LEN;
	}
	if (len == 0 || rte_pktmbuf_append(m, (uint16_t)len) == NULL)
		rte_exit(EXIT_FAILURE, "cannot forge a hello\n");
	return m;
}

/*
 * An elided DATA frame from a's port on the switch to b's, path @p path, path sequence
 * @p pseq, packet number @p pn (its low half is the shim's sequence number), carrying
 * nobody's EtherType. @p tagged: with the authentication header of a's DATA frame as read
 * (key id and all), this frame's length and pn's high half, and a random tag.
 */
static struct rte_mbuf *
forge_data(uint8_t path, uint8_t pseq, uint64_t pn, bool tagged)
{
	struct sb_shim shim = {
		.type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED | (tagged ? SB_WIRE_F_AUTH : 0),
		.path = path, .path_seq = pseq, .seq = (uint32_t)pn,
	};
	size_t room, inner = tagged ? SB_WIRE_DATA_AUTH_INNER : SB_HDR_LEN;
	uint16_t len = (uint16_t)(inner + 2 + 46), len_be = rte_cpu_to_be_16(len);
	uint32_t hi_be = rte_cpu_to_be_32((uint32_t)(pn >> 32));
	uint8_t *buf, *t;
	struct rte_mbuf *m = frame_alloc(&buf, &room);

	memset(buf, 0, len);
	sb_wire_put_hdr(buf, heard_b.mac, heard_a.mac, &shim);
	if (tagged) {
		t = buf + SB_HDR_LEN;
		memcpy(t, stolen_auth, SB_WIRE_DATA_AUTH_LEN);
		memcpy(t + offsetof(struct sb_wire_data_auth, len), &len_be, sizeof(len_be));
		memcpy(t + offsetof(struct sb_wire_data_auth, pn_hi), &hi_be, sizeof(hi_be));
		random_bytes(buf + SB_WIRE_DATA_TAG_OFF,
			SB_WIRE_DATA_AUTH_INNER - SB_WIRE_DATA_TAG_OFF);
	}
	buf[inner] = 0x88;	/* 0x88B6: IEEE local experimental 2, nobody's */
	buf[inner + 1] = 0xB6;
	if (rte_pktmbuf_append(m, len) == NULL)
		rte_exit(EXIT_FAILURE, "cannot forge a DATA frame\n");
	return m;
}

/* The entry saying the sender hears @p p's port, its probes arriving, data going there. */
static struct sb_hello_entry
hears(const struct heard *p)
{
	return (struct sb_hello_entry){
		.host_id = p->h.host_id, .port = p->h.port_index,
		.flags = SB_ENTRY_F_MTU_OK | SB_ENTRY_F_TX, .rx_frames = 100,
	};
}

enum attack { JUMP, RESTART, PORTS, SLOW, FILL, LOSS_HELLO, LOSS_DATA, N_ATTACKS };
static const char *const attack_name[N_ATTACKS] = {
	"jump", "restart", "ports", "slow", "fill", "loss-hello", "loss-data",
};

/* Build attack @p k's frames into forged[]; @return how many. */
static unsigned int
build(enum attack k, bool tagged)
{
	struct sb_hello_entry e[2] = { hears(&heard_b), hears(&heard_a) };
	uint8_t nonce[SB_AUTH_NONCE_LEN];
	unsigned int i, n = k == FILL ? N_FILL_IDS * 4 : N_FORGED;

	for (i = 0; i < n; i++) {
		struct sb_hello h = heard_a.h;	/* a's hello as heard, entries apart */
		/* A crypto sequence a minute ahead of a's: past every replay mark, so that
		 * only the tag stands between these hellos and the peer table. */
		uint64_t cseq = heard_a.cseq + UINT64_C(60000000) + i;

		h.n_entries = 1;		/* b's port here */
		random_bytes(nonce, sizeof(nonce));
		switch (k) {
		case JUMP:
			forged[i] = forge_data(stolen_path, (uint8_t)(stolen_pseq + 1 + i),
				stolen_pn + (UINT64_C(1) << 29) + i, tagged);
			break;
		case RESTART:
			/* a restarted: a new instance (and session nonce) each time */
			h.instance = sb_test_rand(&rnd) | 1;
			h.hello_seq = heard_a.h.hello_seq + i;
			forged[i] = forge_hello(forger_mac, h.port_index, &h, e, tagged, cseq,
				nonce);
			break;
		case PORTS:
			/* a's ports 4..15 of 16, our port's path's MTU good */
			h.port_index = (uint8_t)(LINKS + i % (16 - LINKS));
			h.n_ports = 16;
			h.hello_seq = i / (16 - LINKS);
			forged[i] = forge_hello(forger_mac, h.port_index, &h, e, tagged, cseq,
				heard_a.nonce);
			break;
		case SLOW:
		case FILL: {
			/* a new peer (900; or one of 80 from 1000) with one port, hearing a and b;
			 * the slow one at 1 kbit/s */
			uint32_t id = k == SLOW ? 900 : 1000 + i % N_FILL_IDS;
			struct sb_hello nh = {
				.host_id = id, .instance = (id * 2654435761u) | 1,
				.agg_mac = { 0x02, 0x5f, 0, 0, (uint8_t)(id >> 8), (uint8_t)id },
				.port_index = 0, .n_ports = 1,
				.rate_kbps = k == SLOW ? 1 : heard_a.h.rate_kbps,
				.interval_ms = 100, .mtu = heard_a.h.mtu, .multiplier = 4,
				.hello_seq = k == SLOW ? i : i / N_FILL_IDS, .n_entries = 2,
			};

			forged[i] = forge_hello(forger_mac, 0, &nh, e, tagged, cseq, nonce);
			break;
		}
		case LOSS_HELLO:
			/* a's own hello from its port, its sequence 99000 ahead of the last */
			h.hello_seq = heard_a.h.hello_seq + 99000 * (i + 1);
			forged[i] = forge_hello(heard_a.mac, h.port_index, &h, e, tagged, cseq,
				heard_a.nonce);
			break;
		case LOSS_DATA:
			/* a random path sequence, a random number ahead of a's */
			forged[i] = forge_data(stolen_path, (uint8_t)sb_test_rand(&rnd),
				stolen_pn + (UINT64_C(1) << 20) + (sb_test_rand(&rnd) >> 2),
				tagged);
			break;
		default:
			break;
		}
	}
	return n;
}

/* ---- what must not change --------------------------------------------------------------- */

#define MAX_COUNTERS 160
struct counters {
	unsigned int n;
	char name[MAX_COUNTERS][40];
	uint64_t v[MAX_COUNTERS];
};

static void
counter_take(const char *name, uint64_t value, void *arg)
{
	struct counters *c = arg;

	if (c->n == MAX_COUNTERS)
		rte_exit(EXIT_FAILURE, "more than %u counters\n", MAX_COUNTERS);
	strlcpy(c->name[c->n], name, sizeof(c->name[0]));
	c->v[c->n++] = value;
}

static void
counters_get(struct counters *c)
{
	c->n = 0;
	sb_dp_stats_foreach(&b.dp->worker[0].stats, counter_take, c);
}

/* Counters a forged frame must not move unless it is the attack's refusal: every refusal
 * (rx_auth_*, rx_err_*), the peer table's events, the window's verdicts, drops. */
static bool
watched(const char *name)
{
	static const char *const names[] = {
		"rx_unknown_peer", "rx_hello_rejected", "rx_hello_not_ours", "rx_late_dropped",
		"rx_late_delivered", "rx_duplicate", "rx_out_of_range", "rx_stray",
		"rx_peer_gone_drop", "ring_full", "rx_foreign", "peer_restarts",
		"restarts_refused", "restarts_limited", "dup_host_ids", "dup_host_id_self",
		"peers_evicted", "peers_displaced", "rate_clamped", "tick_stalls",
		"silence_holds", "tx_no_path", "tx_queue_drop", "tx_peer_drop", "exc_tx_drop",
		"exc_too_big", "auth_rekeys",
	};
	unsigned int i;

	if (strncmp(name, "rx_auth_", 8) == 0 || strncmp(name, "rx_err_", 7) == 0)
		return true;
	for (i = 0; i < RTE_DIM(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* b's view of a before an attack (base), and before the first (base0). */
struct view {
	uint32_t transitions[LINKS], stripe_exits[LINKS], hello_lost[LINKS], data_lost[LINKS];
	unsigned int pending;
	struct sb_reorder_stats rs;
	uint32_t out_of_order;
	uint64_t bad_tag;		/* b's rx_auth_bad_tag */
	uint32_t a_stripe_exits[LINKS];	/* a's paths to b: the sender's decision */
};
static struct view base, base0;

/* b's table slot of a, or -1; @p used: slots in use. */
static int
b_slot_of_a(unsigned int *used)
{
	const struct sb_peer_table *t = &b.dp->tx->peers;
	unsigned int i;
	int pi = -1;

	*used = 0;
	for (i = 0; i < t->n_peers; i++) {
		if (t->peer[i].host_id == 0)
			continue;
		(*used)++;
		if (t->peer[i].host_id == a.cfg.host_id)
			pi = (int)i;
	}
	return pi;
}

static unsigned int
pending_paths(const struct sb_peer *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < SB_PEER_PENDING; i++)
		n += p->pending[i].first != 0;
	return n;
}

static void
base_take(void)
{
	unsigned int used, j;
	int pi = b_slot_of_a(&used);
	const struct sb_peer *p;

	base.out_of_order = out_of_order;
	base.bad_tag = b.dp->worker[0].stats.rx_auth_bad_tag;
	for (j = 0; j < a.dp->tx->peers.peer[0].n_paths && j < LINKS; j++)
		base.a_stripe_exits[j] = a.dp->tx->peers.peer[0].path[j].stripe_exits;
	if (pi < 0)
		return;
	p = &b.dp->tx->peers.peer[pi];
	for (j = 0; j < p->n_paths && j < LINKS; j++) {
		base.transitions[j] = p->path[j].transitions;
		base.stripe_exits[j] = p->path[j].stripe_exits;
		base.hello_lost[j] = p->path[j].rx.hello_lost;
		base.data_lost[j] = b.dp->rx_peer[pi].data[j].lost;
	}
	base.pending = pending_paths(p);
	sb_reorder_stats_get(b.dp->rx_peer[pi].reorder, &base.rs);
}

/* b's table and window as they were, a -> b in order so far. */
static void
check_intact(const char *what)
{
	const struct sb_peer_table *t = &b.dp->tx->peers;
	const struct sb_peer *p;
	struct sb_reorder_stats rs;
	unsigned int used, j;
	int pi = b_slot_of_a(&used);

	SB_CHECK(t->n_peers == 1 && used == 1 && pi >= 0, "%s: b's table has held %u peers, "
		"holds %u, a %s: expected a alone", what, t->n_peers, used,
		pi >= 0 ? "among them" : "not among them");
	SB_CHECK(b.dp->rx[0]->map.n_peers == t->n_peers, "%s: b's RX map has %u peer slots, "
		"its table %u", what, b.dp->rx[0]->map.n_peers, t->n_peers);
	if (pi < 0)
		return;
	p = &t->peer[pi];
	SB_CHECK(p->instance == a.dp->tx->instance, "%s: b has a at instance %08x, a runs "
		"%08x", what, p->instance, a.dp->tx->instance);
	SB_CHECK(p->n_paths == LINKS && p->n_up == LINKS && p->n_usable == LINKS,
		"%s: b has %u paths to a, %u up, %u in the stripe; expected %u each", what,
		p->n_paths, p->n_up, p->n_usable, LINKS);
	for (j = 0; j < p->n_paths && j < LINKS; j++) {
		const struct sb_path *pa = &p->path[j];

		SB_CHECK(pa->state == SB_PATH_UP && pa->usable, "%s: b's path %u to a: %s, %s",
			what, j, sb_path_state_str(pa->state),
			pa->usable ? "in the stripe" : sb_path_fault_str(pa->fault));
		SB_CHECK(pa->transitions == base.transitions[j] &&
			pa->stripe_exits == base.stripe_exits[j], "%s: b's path %u to a changed "
			"state %u times, left the stripe %u times", what, j,
			pa->transitions - base.transitions[j],
			pa->stripe_exits - base.stripe_exits[j]);
		/* A DATA frame refused for its tag counts as lost on its path (a switch that
		 * alters frames must take the path out of the stripe): b's count may rise by
		 * those, but a, which clamps what b reports to what it sent and b did not
		 * receive, must not take its path out (below). */
		SB_CHECK(pa->rx.hello_lost == base.hello_lost[j] &&
			b.dp->rx_peer[pi].data[j].lost - base.data_lost[j] <=
			b.dp->worker[0].stats.rx_auth_bad_tag - base.bad_tag, "%s: b counts loss "
			"on its path %u from a: %u hellos, %u DATA frames (%" PRIu64 " refused for "
			"their tags)", what, j, pa->rx.hello_lost - base.hello_lost[j],
			b.dp->rx_peer[pi].data[j].lost - base.data_lost[j],
			b.dp->worker[0].stats.rx_auth_bad_tag - base.bad_tag);
	}
	for (j = 0; j < a.dp->tx->peers.peer[0].n_paths && j < LINKS; j++) {
		const struct sb_path *pa = &a.dp->tx->peers.peer[0].path[j];

		SB_CHECK(pa->state == SB_PATH_UP && pa->usable &&
			pa->stripe_exits == base.a_stripe_exits[j], "%s: a's path %u to b: %s, %s, "
			"left the stripe %u times", what, j, sb_path_state_str(pa->state),
			pa->usable ? "in the stripe" : sb_path_fault_str(pa->fault),
			pa->stripe_exits - base.a_stripe_exits[j]);
	}
	SB_CHECK(pending_paths(p) == base.pending, "%s: b has %u paths of a pending, %u before",
		what, pending_paths(p), base.pending);
	SB_CHECK(p->restarts == 0 && p->claim.first == 0 && p->claims_refused == 0 &&
		t->restarts == 0 && t->restarts_refused == 0, "%s: b believed %u restarts of a, "
		"has a claim of one: %s, refused %u", what, p->restarts,
		p->claim.first != 0 ? "yes" : "no", p->claims_refused);
	SB_CHECK(p->dup.active == 0 && t->dup_host_ids == 0, "%s: b reports a duplicate of a's "
		"host id (%" PRIu64 ")", what, t->dup_host_ids);
	SB_CHECK(t->evicted == 0 && t->displaced == 0, "%s: b evicted %" PRIu64 " peers, "
		"displaced %" PRIu64, what, t->evicted, t->displaced);
	sb_reorder_stats_get(b.dp->rx_peer[pi].reorder, &rs);
	SB_CHECK(rs.stray == base.rs.stray && rs.out_of_range == base.rs.out_of_range &&
		rs.jump_refused == base.rs.jump_refused && rs.bad_path == base.rs.bad_path,
		"%s: b's window took forged numbers: stray %" PRIu64 ", out of range %" PRIu64
		", jumps refused %" PRIu64 ", bad path %" PRIu64, what, rs.stray - base.rs.stray,
		rs.out_of_range - base.rs.out_of_range, rs.jump_refused - base.rs.jump_refused,
		rs.bad_path - base.rs.bad_path);
	SB_CHECK(rs.late == base.rs.late && rs.duplicate == base.rs.duplicate &&
		rs.lost_rule == base.rs.lost_rule && rs.lost_timeout == base.rs.lost_timeout &&
		rs.lost_slide == base.rs.lost_slide, "%s: b's window: late %" PRIu64 ", duplicate %"
		PRIu64 ", lost (rule, timeout, slide) %" PRIu64 " %" PRIu64 " %" PRIu64, what,
		rs.late - base.rs.late, rs.duplicate - base.rs.duplicate,
		rs.lost_rule - base.rs.lost_rule, rs.lost_timeout - base.rs.lost_timeout,
		rs.lost_slide - base.rs.lost_slide);
	SB_CHECK(out_of_order == base.out_of_order, "%s: %u frames b delivered were not a's "
		"next in order", what, out_of_order - base.out_of_order);
}

/*
 * Put forged[0..n-1] on b's port SW (@p per every @p every steps), let b settle, then check
 * that counter @p reason (plus @p reason2 when not NULL) rose by exactly @p n, nothing else a
 * forged frame may move did, b's table and window are as they were. @p new_budget: hellos of
 * no known path, whose MAC checks (rx_auth_bad_tag) the budget bounds.
 */
static void
attack(const char *what, unsigned int n, unsigned int per, unsigned int every,
	const char *reason, const char *reason2, bool new_budget)
{
	struct counters before, after;
	uint64_t t0 = now, sum = 0, bad_tag = 0, bound = 0, d;
	unsigned int i, fails = sb_test_fail;
	char line[256];
	size_t len = 0;

	counters_get(&before);
	n_forged = n;
	forged_next = 0;
	inject_per = per;
	inject_every = every;
	while (forged_next < n_forged)
		step();
	run_ms(SETTLE_MS);
	counters_get(&after);
	for (i = 0; i < after.n; i++) {
		d = after.v[i] - before.v[i];
		if (strcmp(after.name[i], reason) == 0 ||
				(reason2 != NULL && strcmp(after.name[i], reason2) == 0)) {
			sum += d;
			len += snprintf(line + len, sizeof(line) - len, "%s +%" PRIu64 " ",
				after.name[i], d);
		} else {
			SB_CHECK(!watched(after.name[i]) || d == 0, "%s: %s rose by %" PRIu64
				" (expected no change)", what, after.name[i], d);
		}
		if (strcmp(after.name[i], "rx_auth_bad_tag") == 0)
			bad_tag = d;
	}
	SB_CHECK(sum == n, "%s: %u frames injected, %s%s%s rose by %" PRIu64, what, n, reason,
		reason2 != NULL ? " + " : "", reason2 != NULL ? reason2 : "", sum);
	if (new_budget) {
		bound = BUDGET_NEW_BURST + (now - t0) * BUDGET_NEW_PER_S / hz + 1;
		SB_CHECK(bad_tag <= bound, "%s: %" PRIu64 " MAC checks of hellos of no known path "
			"in %.1f ms, budget %" PRIu64, what, bad_tag,
			(double)(now - t0) * 1e3 / hz, bound);
	}
	check_intact(what);
	base_take();	/* the next attack's changes are its own */
	if (new_budget)
		len += snprintf(line + len, sizeof(line) - len, "(MAC checks at most %" PRIu64
			") ", bound);
	printf("%-36s %3u frames in %6.1f ms: %s%s\n", what, n, (double)(now - t0) * 1e3 / hz,
		line, sb_test_fail == fails ? "ok" : "FAILED");
}

int
main(int argc, char **argv)
{
	uint64_t t_start = rte_rdtsc(), deadline;
	unsigned int i, k, used, n;
	int ret, pi;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n", rte_strerror(rte_errno));
	mp = rte_pktmbuf_pool_create("forged", POOL_SIZE, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n", rte_strerror(rte_errno));
	for (i = 0; i < LINKS; i++) {
		a2b[i] = sb_pair_ring("bn_a2b%u", i);
		b2a[i] = sb_pair_ring("bn_b2a%u", i);
	}
	/* The default detection time, not the bench's 100 intervals: a path whose hellos stop
	 * for 4 intervals goes down, and the check below sees it (this clock never stalls). */
	sb_pair_host_config(&a, 1, LINKS, "edpf");
	sb_pair_host_config(&b, 2, LINKS, "edpf");
	a.cfg.hello_multiplier = b.cfg.hello_multiplier = 4;
	sb_pair_host_start(&a, 1, a2b, b2a, mp, true, &stop);
	sb_pair_host_start(&b, 2, b2a, a2b, mp, true, &stop);
	hz = rte_get_tsc_hz();
	hk_period = hz / 1000;
	now = rte_rdtsc();

	/* Paths up, then the stream and the forger listening on switch SW. */
	deadline = now + 2 * hz;
	while (sb_pair_paths_up(&a) < LINKS || sb_pair_paths_up(&b) < LINKS) {
		if (now > deadline)
			rte_exit(EXIT_FAILURE, "paths did not come up in 2 s: a %u, b %u of %u\n",
				sb_pair_paths_up(&a), sb_pair_paths_up(&b), LINKS);
		step();
	}
	streaming = true;
	learning = true;
	capture_until = N_FORGED / 2;	/* played back long after: below b's replay window */
	run_ms(300);
	learning = false;
	SB_CHECK(heard_a.valid && heard_b.valid && heard_a.tagged && heard_b.tagged,
		"the forger heard authenticated group hellos of a: %s, of b: %s",
		heard_a.valid ? (heard_a.tagged ? "yes" : "untagged") : "no",
		heard_b.valid ? (heard_b.tagged ? "yes" : "untagged") : "no");
	SB_CHECK(stolen && n_captured == capture_until, "the forger read %u DATA frames of a's "
		"towards b", n_captured);
	if (!heard_a.valid || !heard_b.valid || !stolen)
		return sb_test_summary("test_dp_forged");
	/* What it heard is what a runs: the forgeries below know all a hello tells. */
	SB_CHECK(heard_a.h.host_id == a.cfg.host_id && heard_a.h.instance ==
		a.dp->tx->instance && memcmp(heard_a.nonce, a.dp->tx->nonce,
		SB_AUTH_NONCE_LEN) == 0 && heard_a.h.port_index == SW, "the forger heard a's "
		"host id %u, instance %08x, port %u", heard_a.h.host_id, heard_a.h.instance,
		heard_a.h.port_index);
	SB_CHECK(memcmp(heard_a.mac, forger_mac, SB_ETH_ALEN) != 0 &&
		memcmp(heard_b.mac, forger_mac, SB_ETH_ALEN) != 0, "the forger's MAC is a port's");
	printf("forger on switch %u heard a (host %u, instance %08x, key id %u, crypto "
		"sequence %" PRIu64 ") and b (host %u), a's DATA at packet number %" PRIu64 "\n",
		SW, heard_a.h.host_id, heard_a.h.instance, heard_a.key_id, heard_a.cseq,
		heard_b.h.host_id, stolen_pn);
	base_take();
	base0 = base;
	check_intact("before the attacks");

	for (k = 0; k < N_ATTACKS; k++) {
		bool data = k == JUMP || k == LOSS_DATA;
		char what[64];

		snprintf(what, sizeof(what), "%s, no tag", attack_name[k]);
		n = build(k, false);
		attack(what, n, INJECT_PER_STEP, 1, "rx_auth_no_tag", NULL, false);

		snprintf(what, sizeof(what), "%s, AUTH and a wrong tag", attack_name[k]);
		n = build(k, true);
		if (data)
			attack(what, n, INJECT_PER_STEP, 1, "rx_auth_bad_tag", NULL, false);
		else if (k == LOSS_HELLO)
			/* From a's own port MAC: the budget of checks of a's path, which a's
			 * real hellos share; the attack's pace (3 a second in test_neighbours)
			 * is far below it, and so is one every 4 ms: each is checked. */
			attack(what, n, 1, PACE_STEPS, "rx_auth_bad_tag", NULL, false);
		else
			attack(what, n, INJECT_PER_STEP, 1, "rx_auth_bad_tag",
				"rx_auth_limited_new", true);
	}

	/* a's own DATA frames played back: some copied long ago (below b's window of packet
	 * numbers), the rest just now (in it, taken). */
	capture_until = N_FORGED;
	while (n_captured < capture_until)
		step();
	memcpy(forged, captured, sizeof(captured));
	attack("replay of a's DATA", N_FORGED, INJECT_PER_STEP, 1, "rx_auth_data_replay", NULL,
		false);

	/* The stream ends: everything a sent reaches b, in order. */
	streaming = false;
	deadline = now + hz;
	while (next_out != next_in && now < deadline)
		step();
	SB_CHECK(next_out == next_in && out_of_order == 0, "b delivered %" PRIu32 " of the %"
		PRIu32 " frames a sent, %u out of order or not a's", next_out, next_in,
		out_of_order);
	pi = b_slot_of_a(&used);
	if (pi >= 0) {
		struct sb_reorder_stats rs;

		sb_reorder_stats_get(b.dp->rx_peer[pi].reorder, &rs);
		SB_CHECK(rs.lost_rule + rs.lost_timeout + rs.lost_slide == 0 && rs.late == 0,
			"b's window lost %" PRIu64 " of a's numbers, %" PRIu64 " late",
			rs.lost_rule + rs.lost_timeout + rs.lost_slide, rs.late);
	}
	base = base0;
	check_intact("after the attacks, since before them");
	SB_CHECK(sb_pair_paths_up(&a) == LINKS, "a has %u paths to b in the stripe",
		sb_pair_paths_up(&a));
	printf("stream a -> b: %" PRIu32 " frames, all delivered in order; %.1f s of the hosts' "
		"clock in %.2f s\n", next_in, (double)steps * STEP_US / 1e6,
		(double)(rte_rdtsc() - t_start) / hz);

	/* Every mbuf back: what b refused was freed. */
	stop = true;
	sb_pair_free(&a, &b, a2b, b2a, LINKS);
	SB_CHECK(rte_mempool_avail_count(mp) == POOL_SIZE, "%u of %u mbufs back in the pool",
		rte_mempool_avail_count(mp), POOL_SIZE);
	rte_eal_cleanup();
	return sb_test_summary("test_dp_forged");
}
