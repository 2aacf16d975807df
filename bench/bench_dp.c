/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro benchmark: the whole seqbond datapath of two hosts, back to back on ring ports, in
 * one thread.
 *
 * Host A's exception port reads frames the harness puts on a ring (the "kernel" side); A adds
 * the shim and stripes them over N ring links to host B; B reorders them and writes them to
 * its exception port's ring, where the harness takes them, checks their order and puts the
 * same mbufs back in front of A. So a fixed number of frames circulates, as with testpmd's
 * io forwarding and --tx-first, and no mbuf is allocated or copied in the timed loop. Each
 * loop iteration runs both hosts' stages exactly as the datapath lcore does (rx ports, tx
 * exception, flush, housekeeping every ms).
 *
 * One delivered frame has passed two forwarding stages (A: exception -> port, B: port ->
 * exception), each a burst read, processing and a burst write, like one testpmd io forward.
 *
 * Output: CSV "seqbond_dp,<scheduler>,<frame bytes>,<links>,<runs>,<ns per frame>,
 * <ns per stage>,<Mpps>" with medians over the runs, and ",key" with --key. Exit 1 when a
 * frame is lost, duplicated or out of order.
 *
 * --key: both hosts hold the same cluster key (a fixed one), so every DATA frame is tagged
 * by A and verified by B and every hello signed and checked: the cost of authentication
 * against a run without it (docs/benchmarks.md).
 *
 * Usage: bench_dp [EAL options] -- [--size BYTES] [--links N] [--seconds S] [--runs R]
 *                 [--inflight N] [--scheduler rr|drr|edpf] [--key] [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_config.h"
#include "sb_dp_int.h"
#include "sb_port.h"

#define MAX_LINKS 8
#define RING_SIZE 1024
#define MAX_RUNS 15
#define CNT_OFF (RTE_ETHER_HDR_LEN + 20)	/* where the frame counter sits */
/* The counter sits 2 bytes off a 4-byte boundary (after a 14-byte Ethernet header). */
typedef uint32_t cnt_t __attribute__((aligned(1)));

struct host {
	struct sb_config cfg;
	struct sb_dp *dp;
	uint16_t port[MAX_LINKS];
	uint16_t exc;
	struct sb_exc *exc_path;	/* the ring port behind the exception path interface */
	struct rte_ring *exc_in;	/* harness -> exception port rx */
	struct rte_ring *exc_out;	/* exception port tx -> harness */
};

static bool stop;

static struct rte_ring *
ring(const char *fmt, unsigned int i)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), fmt, i);
	r = rte_ring_create(name, RING_SIZE, rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		rte_exit(EXIT_FAILURE, "ring %s: %s\n", name, rte_strerror(rte_errno));
	return r;
}

static uint16_t
ring_port(const char *fmt, unsigned int i, struct rte_ring *rx, struct rte_ring *tx,
	struct rte_mempool *mp, uint16_t mtu, const uint8_t *mac)
{
	char name[32];
	struct rte_ether_addr ea;
	int id, ret;

	snprintf(name, sizeof(name), fmt, i);
	id = rte_eth_from_rings(name, &rx, 1, &tx, 1, rte_socket_id());
	if (id < 0)
		rte_exit(EXIT_FAILURE, "port %s: %s\n", name, rte_strerror(rte_errno));
	memcpy(ea.addr_bytes, mac, RTE_ETHER_ADDR_LEN);
	ret = sb_port_setup(id, mtu, mp, 512, 512, 1, true);
	/* The ring PMD of 22.11 cannot change its (all-zero) MAC; seqbond does not need
	 * distinct port MACs on point-to-point links, so carry on with it. */
	if (ret == 0 && rte_eth_dev_default_mac_addr_set(id, &ea) == -ENOTSUP)
		ret = 0;
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %s: setup: %s\n", name, rte_strerror(-ret));
	return id;
}

/* The key of --key: any 32 bytes will do for a measurement. */
static const char bench_key_hex[] =
	"736571626f6e642062656e63685f6470206b6579206f66203332206279746573";

static void
host_init(struct host *h, unsigned int k, unsigned int links, const char *sched,
	struct rte_ring **tx, struct rte_ring **rx, struct rte_mempool *mp, bool key)
{
	uint8_t mac[RTE_ETHER_ADDR_LEN] = { 0x02, 0x53, 0x42, 0, 0, 0 };
	struct sb_dp_conf dc;
	unsigned int i;

	sb_config_defaults(&h->cfg);
	snprintf(h->cfg.file, sizeof(h->cfg.file), "bench_dp host %u", k);
	h->cfg.host_id = k;
	h->cfg.mac[0] = 0x02;
	h->cfg.mac[1] = 0x53;
	h->cfg.mac[2] = 0x42;
	h->cfg.mac[5] = k;
	strlcpy(h->cfg.scheduler, sched, sizeof(h->cfg.scheduler));
	h->cfg.n_ports = links;
	h->cfg.lcore_dedicated = true;
	/* One thread steps both hosts: if it is descheduled for tens of ms on a loaded machine,
	 * neither hears a hello meanwhile. A detection time of 1 s keeps the paths up through
	 * that; this measures forwarding, not failure detection. */
	h->cfg.hello_multiplier = 100;
	for (i = 0; i < links; i++) {
		/* 100 Gbit/s: the scheduler's queue model must never be what limits a CPU test */
		h->cfg.port[i].rate_kbps = 100000000;
		h->cfg.port[i].mtu = 1500;
		mac[4] = k;
		mac[5] = i;
		h->port[i] = ring_port(k == 1 ? "bn_a_link%u" : "bn_b_link%u", i, rx[i], tx[i], mp,
			1500, mac);
	}
	h->exc_in = ring(k == 1 ? "bn_a_exc_in" : "bn_b_exc_in", 0);
	h->exc_out = ring(k == 1 ? "bn_a_exc_out" : "bn_b_exc_out", 0);
	h->exc = ring_port(k == 1 ? "bn_a_exc%u" : "bn_b_exc%u", 0, h->exc_in, h->exc_out, mp,
		1490, h->cfg.mac);
	sb_config_dp_conf(&h->cfg, &dc);
	for (i = 0; i < links; i++)
		dc.port[i].port_id = h->port[i];
	h->exc_path = sb_exc_from_port(h->exc, 1490, 1);
	if (h->exc_path == NULL)
		rte_exit(EXIT_FAILURE, "sb_exc_from_port: %s\n", rte_strerror(rte_errno));
	dc.exc = h->exc_path;
	dc.exc_mtu = 1490;
	dc.n_workers = 1;
	dc.n_exc_queues = 1;
	dc.mp = mp;
	if (key) {
		struct sb_auth_key ck;
		char err[128];

		if (sb_auth_init() != 0 || sb_auth_key_parse(bench_key_hex, 1, &ck, err,
				sizeof(err)) != 0 || sb_auth_ring_add(&dc.keyring, &ck) != 0)
			rte_exit(EXIT_FAILURE, "bench key\n");
		sb_auth_wipe(&ck, sizeof(ck));
	}
	h->dp = sb_dp_create(&dc, &stop);
	if (h->dp == NULL)
		rte_exit(EXIT_FAILURE, "sb_dp_create: %s\n", rte_strerror(rte_errno));
}

/* One iteration of both hosts' lcore loops (one datapath lcore each). */
static inline void
step(struct host *a, struct host *b, uint64_t now, uint64_t *next_hk, uint64_t hk_period)
{
	bool hk = now >= *next_hk;

	if (hk)
		*next_hk = now + hk_period;
	sb_dp_worker_poll(&a->dp->worker[0], now, hk);
	sb_dp_worker_poll(&b->dp->worker[0], now, hk);
}

static uint32_t
peer_paths_up(const struct host *h)
{
	return h->dp->tx->peers.n_peers == 1 ? h->dp->tx->peers.peer[0].n_usable : 0;
}

static int
cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : (a > b);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "links", required_argument, NULL, 'l' },
		{ "seconds", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'r' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "scheduler", required_argument, NULL, 'S' },
		{ "key", no_argument, NULL, 'k' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static struct host a, b;
	struct rte_ring *a2b[MAX_LINKS], *b2a[MAX_LINKS];
	unsigned int size = 64, links = 4, runs = 5, inflight = 64, i, r;
	double seconds = 1.0, ns[MAX_RUNS];
	const char *sched = "edpf", *csv = NULL;
	uint32_t next_in = 0, next_out = 0, bad = 0;
	uint64_t hz, now, deadline, next_hk = 0, hk_period, delivered_total = 0;
	struct rte_mempool *mp;
	struct rte_mbuf *m[SB_BURST_MAX];
	FILE *out = stdout;
	bool key = false;
	int ret, opt;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'l': links = strtoul(optarg, NULL, 0); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'r': runs = strtoul(optarg, NULL, 0); break;
		case 'i': inflight = strtoul(optarg, NULL, 0); break;
		case 'S': sched = optarg; break;
		case 'k': key = true; break;
		case 'c': csv = optarg; break;
		default: rte_exit(EXIT_FAILURE, "bad option (see the header of bench_dp.c)\n");
		}
	}
	if (size < 64 || size > 1500 || links < 1 || links > MAX_LINKS || runs < 1 ||
			runs > MAX_RUNS || inflight < 1 || inflight > SB_BURST_MAX || seconds <= 0)
		rte_exit(EXIT_FAILURE, "bad arguments (see the header of bench_dp.c)\n");

	mp = rte_pktmbuf_pool_create("bench_dp", 32768, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n", rte_strerror(rte_errno));
	for (i = 0; i < links; i++) {
		a2b[i] = ring("bn_a2b%u", i);
		b2a[i] = ring("bn_b2a%u", i);
	}
	host_init(&a, 1, links, sched, a2b, b2a, mp, key);
	host_init(&b, 2, links, sched, b2a, a2b, mp, key);
	hz = rte_get_tsc_hz();
	hk_period = hz / 1000;

	/* Hellos until both hosts see every path (a few hello intervals). */
	deadline = rte_rdtsc() + 5 * hz;
	while (peer_paths_up(&a) < links || peer_paths_up(&b) < links) {
		now = rte_rdtsc();
		if (now > deadline) {
			const struct sb_peer_table *t = &a.dp->tx->peers;

			for (i = 0; t->n_peers == 1 && i < t->peer[0].n_paths; i++)
				fprintf(stderr, "a: path %u: %s, %s, mtu_ok %u, lossy %u\n", i,
					sb_path_state_str(t->peer[0].path[i].state),
					sb_path_fault_str(t->peer[0].path[i].fault),
					t->peer[0].path[i].fb.mtu_ok, t->peer[0].path[i].fb.lossy);
			rte_exit(EXIT_FAILURE, "paths did not come up: a %u, b %u of %u\n",
				peer_paths_up(&a), peer_paths_up(&b), links);
		}
		step(&a, &b, now, &next_hk, hk_period);
	}

	/* The circulating frames: A's MAC -> B's aggregate MAC, IPv4 EtherType, a counter. */
	for (i = 0; i < inflight; i++) {
		struct rte_mbuf *f = rte_pktmbuf_alloc(mp);
		struct rte_ether_hdr *eh;

		if (f == NULL || rte_pktmbuf_append(f, size) == NULL)
			rte_exit(EXIT_FAILURE, "cannot build frames\n");
		eh = rte_pktmbuf_mtod(f, struct rte_ether_hdr *);
		memset(eh, 0, size);
		memcpy(eh->dst_addr.addr_bytes, b.cfg.mac, RTE_ETHER_ADDR_LEN);
		memcpy(eh->src_addr.addr_bytes, a.cfg.mac, RTE_ETHER_ADDR_LEN);
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		*rte_pktmbuf_mtod_offset(f, cnt_t *, CNT_OFF) = next_in++;
		m[i] = f;
	}
	if (rte_ring_enqueue_burst(a.exc_in, (void **)m, inflight, NULL) != inflight)
		rte_exit(EXIT_FAILURE, "cannot inject frames\n");

	for (r = 0; r <= runs; r++) {	/* run 0 warms up and is not counted */
		uint64_t t0 = rte_rdtsc(), end = t0 + (uint64_t)(seconds * hz), delivered = 0;
		unsigned int n, j;

		do {
			now = rte_rdtsc();
			n = rte_ring_dequeue_burst(b.exc_out, (void **)m, RTE_DIM(m), NULL);
			for (j = 0; j < n; j++) {
				cnt_t *cnt = rte_pktmbuf_mtod_offset(m[j], cnt_t *, CNT_OFF);

				if (rte_pktmbuf_pkt_len(m[j]) != size || *cnt != next_out)
					bad++;
				next_out = *cnt + 1;
				*cnt = next_in++;
			}
			delivered += n;
			if (n > 0 && rte_ring_enqueue_burst(a.exc_in, (void **)m, n, NULL) != n)
				rte_exit(EXIT_FAILURE, "exception ring full\n");
			step(&a, &b, now, &next_hk, hk_period);
		} while (now < end);
		if (r > 0) {
			ns[r - 1] = (double)(now - t0) * 1e9 / hz / delivered;
			delivered_total += delivered;
		}
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_dbl);

	if (csv != NULL && (out = fopen(csv, "a")) == NULL)
		rte_exit(EXIT_FAILURE, "%s: %s\n", csv, strerror(errno));
	fprintf(out, "seqbond_dp,%s,%u,%u,%u,%.1f,%.1f,%.3f%s\n", sched, size, links, runs,
		ns[runs / 2], ns[runs / 2] / 2, 1e3 / ns[runs / 2], key ? ",key" : "");
	if (out != stdout)
		fclose(out);
	fprintf(stderr, "bench_dp: %" PRIu64 " frames delivered in the timed runs, %u out of "
		"order or damaged; A dropped: no path %" PRIu64 ", queue %" PRIu64
		"; B reorder late %" PRIu64 " dup %" PRIu64 ", refused tags %" PRIu64 "\n",
		delivered_total, bad, a.dp->worker[0].stats.tx_no_path,
		a.dp->worker[0].stats.tx_queue_drop,
		b.dp->worker[0].stats.rx_late_dropped + b.dp->worker[0].stats.rx_late_delivered,
		b.dp->worker[0].stats.rx_duplicate, b.dp->worker[0].stats.rx_auth_no_tag +
		b.dp->worker[0].stats.rx_auth_bad_tag + b.dp->worker[0].stats.rx_auth_replay +
		b.dp->worker[0].stats.rx_auth_unknown_key);

	stop = true;
	sb_dp_free(a.dp);
	sb_dp_free(b.dp);
	sb_exc_close(a.exc_path);
	sb_exc_close(b.exc_path);
	/* frames still circulating: rings of the harness and the links */
	while ((i = rte_ring_dequeue_burst(a.exc_in, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, i);
	while ((i = rte_ring_dequeue_burst(b.exc_out, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, i);
	rte_eal_cleanup();
	return bad != 0 || delivered_total == 0 ? 1 : 0;
}
