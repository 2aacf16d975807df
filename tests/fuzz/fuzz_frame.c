/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the real datapath (app/datapath) on ring ports, fed arbitrary frames.
 *
 * One datapath instance per input (host id 7, 4 member ports and an exception port, all
 * DPDK ring ports). Each record of the input is a frame put on a member port's rx ring (what
 * a peer or anything on the wire sends) or on the exception port's rx ring (what the kernel
 * sends), or a carrier loss; then the lcore's stages run as the loop runs them: rx ports
 * (parse, hellos into the peer table and its events, data into the reorder windows), tx
 * exception (shim, stripe, flood), flush, and housekeeping (commands, hellos, probes, path
 * expiry) whenever the clock moved. What the datapath transmits is taken off the tx rings
 * and freed.
 *
 * With FUZZ_FRAME_REPORT set in the environment, each input ends with a line of the
 * datapath's counters that are not 0 (tests/fuzz/run checks the keyed seeds with it).
 *
 * Input: a sequence of records
 *   ctl   bits 0-3: 0..3 member port the frame arrives on; 15: from the kernel (exception);
 *         other values: member port (value % 4)
 *         bits 4-6: clock advance in ms (x 3)
 *         bit 7: special record: member port (bits 0-1) loses carrier; no frame follows
 *   len   two bytes, little endian, masked to 0..2047
 *   frame len bytes (fewer if the input ends)
 *
 * Keyed mode (built with -DSB_FUZZ_KEYED=1, target frame-keyed): the datapath holds a
 * cluster key (fuzz_auth.h), and record values 4..7 of bits 0-3 put the frame on member port
 * (value & 3) signed by the harness as a host holding the key would (wire version 4):
 *  - a hello that decodes gets its authentication trailer (the key's id, a crypto sequence
 *    that rises with every signed hello, the key generation and session nonce its own
 *    trailer carried, else generation 0 and the host id's fuzz_peer_nonce()) and its tag;
 *  - a DATA frame flagged AUTH from a known path whose session nonce we heard gets the key's
 *    id, our key generation (dp->tx->gen; or the one before it, when the frame names that
 *    one and its grace has not passed) and the tag of the peer -> us direction key of that
 *    generation (the peer's nonce and ours, which the harness reads from dp->tx), over the
 *    length and packet number its header carries.
 * So the fuzzer reaches the hello parser, the peer table, the packet number window, the
 * reorder window and decapsulation behind the tag checks. Records on ports 0..3 go as they
 * are: the seeds' frames, which mkseeds signed and tagged (libsodium's random source is
 * deterministic here, restarted for every input, so our nonce is known in advance:
 * fuzz_auth.h), pass the checks as they are, and what the fuzzer changes in them exercises
 * the refusals (no tag, bad tag, unknown key or generation, replayed hello or packet
 * number, budget). A peer unheard for 1 s leaves the table (conf.peer_evict_s; 60 s in the
 * appliance), and our key generation moves on with it: 167 records that move the clock 6 ms
 * get there (a step above 6 ms counts as the lcore stalling, and holds the table's timers).
 *
 * Checked: no crash or sanitizer report in the real receive, hello, peer-event and transmit
 * code; the peer table stays consistent after every record (path_of <-> paths, n_up and
 * n_usable match the paths, never our own host id); frames handed to the kernel are no
 * larger than the exception MTU allows and frames put on the wire parse as seqbond frames;
 * keyed, they carry the key's tags: every hello's verifies and announces our key generation,
 * and every DATA frame's authentication header is exact (its length the frame's, the key's
 * id, the peer's generation) and its tag is the one its peer verifies (our nonce, the peer's
 * nonce and generation, as they were before or after the poll that sent it); and after the
 * datapath is freed every mbuf is back in the pool.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_dp_int.h"
#include "sb_port.h"

#ifndef SB_FUZZ_KEYED
#define SB_FUZZ_KEYED 0
#endif
#if SB_FUZZ_KEYED
#include "fuzz_auth.h"
#endif

#define OUR_HOST_ID 7
#define N_PORTS 4
#define EXC_MTU 1490
#define RING_SIZE 1024

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_frame: invariant failed: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

static struct rte_mempool *mp;
static struct rte_ring *rx_ring[N_PORTS + 1], *tx_ring[N_PORTS + 1];	/* [N_PORTS]: exc */
static uint16_t port_id[N_PORTS + 1];
static struct sb_exc *exc;	/* port_id[N_PORTS] as the exception path */
static bool stop;
static bool report;		/* FUZZ_FRAME_REPORT set: counters after each input */

#if SB_FUZZ_KEYED
_Static_assert(OUR_HOST_ID == FUZZ_OUR_HOST_ID, "mkseeds writes for this host id");

static struct sb_auth_key fuzz_key;
static struct sb_auth_keyring fuzz_ring;	/* fuzz_key alone: checks our hellos */
static struct sb_auth_data_key fuzz_dk;	/* the harness's DATA tags and checks */
static uint64_t fuzz_cseq;	/* crypto sequence of the hellos the harness signs */
static uint64_t rand_draws;	/* draws from the random source since the input began */
/* Each peer's session nonce and key generation, and our generation, as they were before the
 * poll: what a poll sent was made under these or under those after it (a hello taken changes
 * a peer's; a peer leaving the table, ours). Our nonce is drawn once, at create. */
static uint8_t pre_peer_nonce[SB_MAX_PEERS][SB_AUTH_NONCE_LEN];
static uint8_t pre_peer_gen[SB_MAX_PEERS];
static uint8_t pre_our_gen;

/* libsodium's random source, deterministic (fuzz_auth.h): draw n is fuzz_rand_draw(n). */
static const char *
rand_name(void)
{
	return "fuzz_frame";
}

static void
rand_buf(void *const buf, const size_t size)
{
	fuzz_rand_draw(rand_draws++, buf, size);
}

static uint32_t
rand_u32(void)
{
	uint32_t v;

	rand_buf(&v, sizeof(v));
	return v;
}

static randombytes_implementation rand_impl = {
	.implementation_name = rand_name, .random = rand_u32, .buf = rand_buf,
};

/* Sign frame @p m, arriving on member port @p port at @p now, as a host holding the key would
 * (see the top). Frames that are no hello or DATA frame the datapath could take stay as they
 * are. */
static void
sign(struct sb_dp *dp, struct rte_mbuf *m, unsigned int port, uint64_t now)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	size_t len = rte_pktmbuf_data_len(m), off, n;
	uint8_t nonce[SB_AUTH_NONCE_LEN], gen;
	struct sb_hello_auth a;
	struct sb_shim shim;
	struct sb_hello h;

	if (sb_wire_parse(b, len, &shim, &off) != SB_WIRE_OK)
		return;
	if (shim.type == SB_WIRE_HELLO) {
		if (sb_wire_hello_decode(b + SB_HDR_LEN, len - SB_HDR_LEN, &h) != SB_WIRE_OK)
			return;
		/* Its own generation and nonce when it carries a trailer (the fuzzer changes
		 * them: a peer's new generation, a restart), and its own crypto sequence when
		 * that is above the last one signed (the seeds' rise, and mix hellos signed
		 * here with hellos signed by mkseeds). */
		if ((shim.flags & SB_WIRE_F_AUTH) && sb_wire_hello_auth_get(b, len, &h, &a) ==
				SB_WIRE_OK) {
			gen = a.gen;
			memcpy(nonce, a.nonce, sizeof(nonce));
			fuzz_cseq = a.seq > fuzz_cseq ? a.seq : fuzz_cseq + 1;
		} else {
			gen = 0;
			fuzz_peer_nonce(h.host_id, nonce);
			fuzz_cseq++;
		}
		n = fuzz_sign_hello(&fuzz_key, b, len + rte_pktmbuf_tailroom(m), len, gen,
			fuzz_cseq, nonce);
		if (n > len)
			rte_pktmbuf_append(m, (uint16_t)(n - len));
	} else if (shim.flags & SB_WIRE_F_AUTH) {
		const struct sb_dp_tx_peer *tp;
		const struct sb_dp_rx_peer *rp;
		unsigned int path;
		int pi = sb_peer_lookup_rx(&dp->tx->peers, port, b + SB_ETH_ALEN, shim.path,
			&path);

		if (pi < 0 || !dp->tx->peer[pi].nonce_set)
			return;
		tp = &dp->tx->peer[pi];
		rp = &dp->rx_peer[pi];
		/* Our generation, which the RX worker holds when it reads the frame (it takes
		 * a new one before its ports); or the one before, within its grace
		 * (sb_dp_auth.c, rx_key()), when the frame names it: made before the peer
		 * took our hello of the new one. */
		gen = dp->tx->gen;
		if (len > SB_HDR_LEN + 3 && b[SB_HDR_LEN + 3] == rp->prev_gen &&
				now < rp->prev_until)
			gen = rp->prev_gen;
		fuzz_tag_data(&fuzz_key, &fuzz_dk, b, len, dp->tx->peers.peer[pi].host_id,
			tp->nonce, OUR_HOST_ID, dp->tx->nonce, gen);
	}
}

/* Remember the peers' nonces and generations before a poll (see pre_peer_nonce). */
static void
keys_before(const struct sb_dp *dp)
{
	unsigned int i;

	pre_our_gen = dp->tx->gen;
	for (i = 0; i < SB_MAX_PEERS; i++) {
		memcpy(pre_peer_nonce[i], dp->tx->peer[i].nonce, SB_AUTH_NONCE_LEN);
		pre_peer_gen[i] = dp->tx->peer[i].gen;
	}
}

/* A hello we sent, keyed: its trailer decodes, announces our nonce and generation (as it was
 * before the poll or after it; @p dp NULL: the datapath is gone, not checked), and its tag
 * verifies under the key. */
static void
check_hello_out(const struct sb_dp *dp, const uint8_t *b, size_t len)
{
	struct sb_hello_auth a;
	struct sb_hello h;

	CHECK(sb_wire_hello_decode(b + SB_HDR_LEN, len - SB_HDR_LEN, &h) == SB_WIRE_OK &&
		sb_wire_hello_auth_get(b, len, &h, &a) == SB_WIRE_OK, "we sent a hello whose "
		"trailer does not decode");
	CHECK(a.key_id == fuzz_key.id && sb_auth_hello_check(&fuzz_ring, a.key_id, b, len,
		a.off + SB_HELLO_AUTH_TAG_OFF) == 0, "we sent a hello whose tag does not verify");
	if (dp == NULL)
		return;
	CHECK(a.gen == dp->tx->gen || a.gen == pre_our_gen, "we sent a hello of key generation "
		"%u, ours is %u (%u before the poll)", a.gen, dp->tx->gen, pre_our_gen);
	CHECK(memcmp(a.nonce, dp->tx->nonce, SB_AUTH_NONCE_LEN) == 0, "we sent a hello with "
		"another session nonce than ours");
}

/* A DATA frame we sent on port @p port, keyed: its header is exact and its tag is the one
 * the peer it went to verifies, for the peer's generation. A peer that left the table during
 * the poll is not checked. */
static void
check_data_out(const struct sb_dp *dp, unsigned int port, const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t len = rte_pktmbuf_data_len(m), off;
	const struct sb_peer_table *t = &dp->tx->peers;
	struct sb_data_auth da;
	struct sb_shim shim;
	unsigned int i, j, c;

	CHECK(rte_pktmbuf_pkt_len(m) == len, "we sent a DATA frame in %u segments", m->nb_segs);
	CHECK(sb_wire_parse(b, len, &shim, &off) == SB_WIRE_OK &&
		sb_wire_data_auth_get(b, len, &shim, &da) == SB_WIRE_OK && da.len == len &&
		da.key_id == fuzz_key.id, "we sent a DATA frame whose authentication header is "
		"not exact (length %u of %zu, key id %u)", da.len, len, da.key_id);
	for (i = 0; i < t->n_peers; i++) {
		for (j = 0; j < t->peer[i].n_paths; j++)
			if (t->peer[i].path[j].local_port == port &&
					memcmp(t->peer[i].path[j].remote_mac, b, SB_ETH_ALEN) == 0)
				break;
		if (j == t->peer[i].n_paths)
			continue;
		/* The peer's nonce and generation after the poll or before it (a hello of
		 * its taken during the poll changes either). */
		for (c = 0; c < 4; c++) {
			const uint8_t *nonce = c & 1 ? pre_peer_nonce[i] : dp->tx->peer[i].nonce;
			uint8_t gen = c & 2 ? pre_peer_gen[i] : dp->tx->peer[i].gen;

			if (fuzz_data_tag_ok(&fuzz_key, &fuzz_dk, b, len, OUR_HOST_ID,
					dp->tx->nonce, t->peer[i].host_id, nonce, gen))
				return;
		}
	}
	for (i = 0; i < t->n_peers; i++)
		for (j = 0; j < t->peer[i].n_paths; j++)
			CHECK(t->peer[i].path[j].local_port != port ||
				memcmp(t->peer[i].path[j].remote_mac, b, SB_ETH_ALEN) != 0,
				"we sent a DATA frame (seq %u, generation %u) whose tag peer %u "
				"(generation %u) does not verify", shim.seq, da.gen,
				t->peer[i].host_id, dp->tx->peer[i].gen);
}
#endif

static uint16_t
ring_port(unsigned int i)
{
	char name[RTE_RING_NAMESIZE];
	int id, ret;

	snprintf(name, sizeof(name), "fz_rx%u", i);
	rx_ring[i] = rte_ring_create(name, RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "fz_tx%u", i);
	tx_ring[i] = rte_ring_create(name, RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	CHECK(rx_ring[i] != NULL && tx_ring[i] != NULL, "rings: %s", rte_strerror(rte_errno));
	snprintf(name, sizeof(name), "fz_port%u", i);
	id = rte_eth_from_rings(name, &rx_ring[i], 1, &tx_ring[i], 1, 0);
	CHECK(id >= 0, "ring port: %s", rte_strerror(rte_errno));
	ret = sb_port_setup(id, i < N_PORTS ? 1500 : EXC_MTU, mp, 512, 512, 1, i < N_PORTS);
	CHECK(ret == 0, "port setup: %s", rte_strerror(-ret));
	return id;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *eal_argv[] = { (*argv)[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=*:crit", NULL };
	unsigned int i;

	(void)argc;
	CHECK(rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) >= 0, "EAL: %s",
		rte_strerror(rte_errno));
	rte_log_set_global_level(RTE_LOG_CRIT);
	mp = rte_pktmbuf_pool_create("fz_mbufs", 8192, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(mp != NULL, "mempool: %s", rte_strerror(rte_errno));
	for (i = 0; i <= N_PORTS; i++)
		port_id[i] = ring_port(i);
	exc = sb_exc_from_port(port_id[N_PORTS], EXC_MTU, 1);
	CHECK(exc != NULL, "exception path: %s", rte_strerror(rte_errno));
	report = getenv("FUZZ_FRAME_REPORT") != NULL;
#if SB_FUZZ_KEYED
	/* Before libsodium starts (sb_auth_init()): it takes its random source then. */
	CHECK(randombytes_set_implementation(&rand_impl) == 0, "random source");
	CHECK(fuzz_key_load(&fuzz_key) == 0, "cluster key");
	sb_auth_ring_init(&fuzz_ring);
	CHECK(sb_auth_ring_add(&fuzz_ring, &fuzz_key) == 0, "keyring");
	CHECK(sb_auth_data_key_init(&fuzz_dk) == 0, "cipher context");
#endif
	return 0;
}

static void
check_table(const struct sb_peer_table *t)
{
	unsigned int i, j, lp, rp, up, usable;

	CHECK(t->n_peers <= SB_MAX_PEERS, "n_peers %u", t->n_peers);
	for (i = 0; i < t->n_peers; i++) {
		const struct sb_peer *p = &t->peer[i];
		const struct sb_peer_map_peer *mp = &t->map.peer[i];

		if (p->host_id == 0) {
			/* A slot an eviction freed: empty, and matching no frame. */
			CHECK(p->n_paths == 0 && mp->n_paths == 0 && mp->host_id == 0,
				"free slot %u with paths", i);
			continue;
		}
		CHECK(p->host_id != OUR_HOST_ID, "peer host id %u", p->host_id);
		CHECK((p->agg_mac[0] & 1) == 0, "group aggregate MAC");
		CHECK(p->n_paths <= SB_PEER_MAX_PATHS, "n_paths %u", p->n_paths);
		for (j = i + 1; j < t->n_peers; j++)
			CHECK(t->peer[j].host_id != p->host_id, "host id %u twice", p->host_id);
		for (up = 0, usable = 0, j = 0; j < p->n_paths; j++) {
			const struct sb_path *path = &p->path[j];

			CHECK(path->local_port < N_PORTS && path->remote_port < SB_MAX_PORTS,
				"path ports %u %u", path->local_port, path->remote_port);
			CHECK(mp->path_of[path->remote_port][path->local_port] == (int8_t)j,
				"path_of does not point back to path %u", j);
			CHECK(path->state <= SB_PATH_UP, "state %u", path->state);
			CHECK(!path->usable || path->state == SB_PATH_UP, "usable but not up");
			up += path->state == SB_PATH_UP;
			usable += path->usable;
		}
		CHECK(up == p->n_up, "n_up %u, %u paths up", p->n_up, up);
		CHECK(usable == p->n_usable, "n_usable %u, %u usable", p->n_usable, usable);
		for (rp = 0; rp < SB_MAX_PORTS; rp++)
			for (lp = 0; lp < SB_MAX_PORTS; lp++)
				CHECK(mp->path_of[rp][lp] < (int)p->n_paths,
					"path_of[%u][%u] = %d", rp, lp, mp->path_of[rp][lp]);
	}
}

/* Take what the datapath transmitted off the tx rings: frames to the kernel fit its MTU,
 * frames to the wire are seqbond frames (keyed: with good tags). */
static void
collect(const struct sb_dp *dp)
{
	struct rte_mbuf *m[64];
	unsigned int i, j, n;

	for (i = 0; i <= N_PORTS; i++) {
		while ((n = rte_ring_dequeue_burst(tx_ring[i], (void **)m, RTE_DIM(m), NULL)) > 0) {
			for (j = 0; j < n; j++) {
				struct sb_shim shim;
				size_t off;

				if (i == N_PORTS) {
					CHECK(rte_pktmbuf_pkt_len(m[j]) <= EXC_MTU + 18,
						"%u bytes to the kernel", rte_pktmbuf_pkt_len(m[j]));
				} else {
					CHECK(sb_wire_parse(rte_pktmbuf_mtod(m[j], uint8_t *),
						rte_pktmbuf_data_len(m[j]), &shim, &off) ==
						SB_WIRE_OK, "we sent a frame that does not parse");
					CHECK(((shim.flags & SB_WIRE_F_AUTH) != 0) == SB_FUZZ_KEYED,
						"we sent a frame %s a tag", SB_FUZZ_KEYED ?
						"without" : "with");
#if SB_FUZZ_KEYED
					if (shim.type == SB_WIRE_HELLO)
						check_hello_out(dp, rte_pktmbuf_mtod(m[j],
							uint8_t *), rte_pktmbuf_data_len(m[j]));
					else if (dp != NULL)
						check_data_out(dp, i, m[j]);
#else
					(void)dp;
#endif
				}
			}
			rte_pktmbuf_free_bulk(m, n);
		}
	}
}

/* One counter of the FUZZ_FRAME_REPORT line, when not 0. */
static void
report_counter(const char *name, uint64_t value, void *arg)
{
	(void)arg;
	if (value != 0)
		fprintf(stderr, " %s %" PRIu64, name, value);
}

/* What is left on the rx rings (a datapath freed before reading them) goes back too. */
static void
flush_rx(void)
{
	struct rte_mbuf *m[64];
	unsigned int i, n;

	for (i = 0; i <= N_PORTS; i++)
		while ((n = rte_ring_dequeue_burst(rx_ring[i], (void **)m, RTE_DIM(m), NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_dp_conf conf = {
		.host_id = OUR_HOST_ID,
		.mac = { 0x02, 0x53, 0x42, 0x00, 0x00, OUR_HOST_ID },
		.scheduler = "edpf",
		.hello_interval_ms = 10,
		.hello_multiplier = 4,
		.peer_evict_s = 1,	/* a peer can leave the table in one input (the top) */
		.reorder_window = 64,
		.reorder_timeout_us = 10000,
		.late_policy = SB_REORDER_LATE_DROP,
		.max_backlog_us = 2000,
		.burst = 32,
		.mtu_probe_interval_ms = 50,
		.path_loss_max_pct = 5,
		.path_loss_window_ms = 200,
		.n_ports = N_PORTS,
		.exc = exc,
		.exc_mtu = EXC_MTU,
		.n_exc_queues = 1,
		.n_workers = 1,
		.mp = mp,
	};
	uint64_t hz = rte_get_tsc_hz(), now = hz;	/* a clock that never reads 0 */
	struct sb_dp *dp;
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < N_PORTS; i++)
		conf.port[i] = (struct sb_dp_port_conf){ .port_id = port_id[i], .mtu = 1500,
			.rate_kbps = 100000, .pt_port = RTE_MAX_ETHPORTS };
#if SB_FUZZ_KEYED
	conf.keyring = &fuzz_ring;
	conf.exc_mtu = 1500 - sb_wire_overhead(true);
	fuzz_cseq = 0;
	rand_draws = 0;		/* every input draws the same */
#endif
	dp = sb_dp_create(&conf, &stop);
	CHECK(dp != NULL, "sb_dp_create: %s", rte_strerror(rte_errno));
#if SB_FUZZ_KEYED
	{
		uint8_t nonce[SB_AUTH_NONCE_LEN];

		fuzz_our_nonce(nonce);
		CHECK(memcmp(dp->tx->nonce, nonce, sizeof(nonce)) == 0, "our session nonce is "
			"not the random source's first draw: mkseeds' DATA frames would not verify "
			"(fuzz_auth.h)");
		keys_before(dp);
	}
#endif
	sb_dp_worker_poll(&dp->worker[0], now, true);

	while (pos < size) {
		uint8_t ctl = data[pos++];
		unsigned int port = ctl & 0x0f, adv = ((ctl >> 4) & 7) * 3;
		struct rte_mbuf *m;
		bool signed_rec = SB_FUZZ_KEYED && port >= 4 && port <= 7;
		size_t len;

		now += adv * hz / 1000;
		if (ctl & 0x80) {
			sb_dp_port_down(dp, &dp->tx->port[port % N_PORTS], now);
		} else {
			if (size - pos < 2)
				break;
			len = (data[pos] | (size_t)data[pos + 1] << 8) & 2047;
			pos += 2;
			if (len > size - pos)
				len = size - pos;
			port = port == 15 ? N_PORTS : port % N_PORTS;
			m = rte_pktmbuf_alloc(mp);
			CHECK(m != NULL, "mbuf");
			/* Frames longer than a buffer arrive cut, as a NIC would deliver them. */
			len = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(m));
			memcpy(rte_pktmbuf_append(m, len), data + pos, len);
			pos += len;
#if SB_FUZZ_KEYED
			if (signed_rec)
				sign(dp, m, port, now);
#else
			(void)signed_rec;
#endif
			if (rte_ring_enqueue(rx_ring[port], m) != 0)
				rte_pktmbuf_free(m);
		}
		/* One pass of the single worker's loop: RX, hellos, exception, flushes; the
		 * housekeeping (commands, hello timers) only when the clock moved. */
#if SB_FUZZ_KEYED
		keys_before(dp);
#endif
		sb_dp_worker_poll(&dp->worker[0], now, adv != 0 || (ctl & 0x80));
		check_table(&dp->tx->peers);
		collect(dp);
	}

	if (report) {
		fprintf(stderr, "fuzz_frame: report:");
		sb_dp_stats_foreach(&dp->worker[0].stats, report_counter, NULL);
		fputc('\n', stderr);
	}
	sb_dp_free(dp);
	collect(NULL);
	flush_rx();
	CHECK(rte_mempool_avail_count(mp) == mp->size, "%u of %u mbufs back",
		rte_mempool_avail_count(mp), mp->size);
	return 0;
}
