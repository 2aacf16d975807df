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
 * Input: a sequence of records
 *   ctl   bits 0-3: 0..3 member port the frame arrives on; 15: from the kernel (exception);
 *         other values: member port (value % 4)
 *         bits 4-6: clock advance in ms (x 3)
 *         bit 7: special record: member port (bits 0-1) loses carrier; no frame follows
 *   len   two bytes, little endian, masked to 0..2047
 *   frame len bytes (fewer if the input ends)
 *
 * Keyed mode (built with -DSB_FUZZ_KEYED=1, target frame-keyed): the datapath holds a
 * cluster key, and record values 4..7 of bits 0-3 put the frame on member port (value & 3)
 * signed by the harness as a host holding the key would: a hello that parses gets its
 * authentication trailer (a crypto sequence that rises with every signed hello) and tag, a
 * DATA frame flagged AUTH from a known path gets the tag of its peer's pair key. So the
 * fuzzer reaches the hello parser and the peer table behind the tag checks, and every other
 * record exercises the refusals (no tag, bad tag, unknown key, replay).
 *
 * Checked: no crash or sanitizer report in the real receive, hello, peer-event and transmit
 * code; the peer table stays consistent after every record (path_of <-> paths, n_up and
 * n_usable match the paths, never our own host id); frames handed to the kernel are no
 * larger than the exception MTU allows and frames put on the wire parse as seqbond frames;
 * and after the datapath is freed every mbuf is back in the pool.
 */
#include <errno.h>
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

#if SB_FUZZ_KEYED
/* The cluster key of keyed mode (tests/fuzz/mkseeds.c writes seeds for it). */
static const char fuzz_key_hex[] =
	"66757a7a5f6672616d65206b657965642d6d6f6465206b657920283332206229";
static struct sb_auth_key fuzz_key;
static uint64_t fuzz_cseq;	/* crypto sequence of the hellos the harness signs */

/* Sign frame @p m, arriving on member port @p port, as a host holding the key would (see
 * the top). Frames that are no hello or DATA frame the datapath could take stay as they are. */
static void
sign(struct sb_dp *dp, struct rte_mbuf *m, unsigned int port)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	size_t len = rte_pktmbuf_data_len(m), off, n;
	struct sb_shim shim;
	struct sb_hello h;

	if (sb_wire_parse(b, len, &shim, &off) != SB_WIRE_OK)
		return;
	if (shim.type == SB_WIRE_HELLO) {
		if (sb_wire_hello_decode(b + SB_HDR_LEN, len - SB_HDR_LEN, &h) != SB_WIRE_OK)
			return;
		n = sb_wire_hello_auth_put(b, len + rte_pktmbuf_tailroom(m), len, fuzz_key.id,
			++fuzz_cseq, &off);
		if (n == 0)
			return;
		if (n > len)
			rte_pktmbuf_append(m, (uint16_t)(n - len));
		sb_auth_hello_sign(&fuzz_key, b, n, off + SB_HELLO_AUTH_TAG_OFF);
	} else if (shim.flags & SB_WIRE_F_AUTH) {
		struct sb_auth_pair_key k;
		unsigned int path;
		int pi = sb_peer_lookup_rx(&dp->tx->peers, port, b + SB_ETH_ALEN, shim.path,
			&path);
		struct sb_auth_pair_ids ids;

		if (pi < 0)
			return;
		ids = (struct sb_auth_pair_ids){ .tx_host = dp->tx->peers.peer[pi].host_id,
			.rx_host = OUR_HOST_ID, .tx_instance = dp->tx->peers.peer[pi].instance,
			.rx_instance = dp->tx->instance };
		if (sb_auth_pair_derive(&fuzz_key, &ids, &k) == 0)
			sb_auth_data_tag(&k, b, b + SB_HDR_LEN);
	}
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
#if SB_FUZZ_KEYED
	{
		char err[128];
		uint8_t fp[SB_AUTH_FP_LEN];

		CHECK(sb_auth_init() == 0, "libsodium");
		CHECK(sb_auth_key_parse(fuzz_key_hex, 0, &fuzz_key, err, sizeof(err)) == 0,
			"key: %s", err);
		sb_auth_key_fingerprint(fuzz_key.secret, fp);
		fuzz_key.id = fp[0];
	}
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
 * frames to the wire are seqbond frames. */
static void
collect(void)
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
				}
			}
			rte_pktmbuf_free_bulk(m, n);
		}
	}
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
	CHECK(sb_auth_ring_add(&conf.keyring, &fuzz_key) == 0, "keyring");
	conf.exc_mtu = 1500 - sb_wire_overhead(true);
	fuzz_cseq = 0;
#endif
	dp = sb_dp_create(&conf, &stop);
	CHECK(dp != NULL, "sb_dp_create: %s", rte_strerror(rte_errno));
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
				sign(dp, m, port);
#else
			(void)signed_rec;
#endif
			if (rte_ring_enqueue(rx_ring[port], m) != 0)
				rte_pktmbuf_free(m);
		}
		/* One pass of the single worker's loop: RX, hellos, exception, flushes; the
		 * housekeeping (commands, hello timers) only when the clock moved. */
		sb_dp_worker_poll(&dp->worker[0], now, adv != 0 || (ctl & 0x80));
		check_table(&dp->tx->peers);
		collect();
	}

	sb_dp_free(dp);
	collect();
	flush_rx();
	CHECK(rte_mempool_avail_count(mp) == mp->size, "%u of %u mbufs back",
		rte_mempool_avail_count(mp), mp->size);
	return 0;
}
