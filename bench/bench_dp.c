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
 * --initial-seq N: both hosts start their sequence numbers at N (the config key initial_seq):
 * near 2^32, the streams cross the wrap at once (test_dp_ring_wrap).
 *
 * Usage: bench_dp [EAL options] -- [--size BYTES] [--links N] [--seconds S] [--runs R]
 *                 [--inflight N] [--scheduler rr|drr|edpf] [--key] [--initial-seq N]
 *                 [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

/* The two hosts on ring ports, shared with tests/unit/test_dp_forged.c. */
#include "../tests/common/sb_dp_pair.h"

#define MAX_LINKS SB_PAIR_MAX_LINKS
#define MAX_RUNS 15
#define CNT_OFF (RTE_ETHER_HDR_LEN + 20)	/* where the frame counter sits */
/* The counter sits 2 bytes off a 4-byte boundary (after a 14-byte Ethernet header). */
typedef uint32_t cnt_t __attribute__((aligned(1)));

static bool stop;

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
		{ "initial-seq", required_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sb_pair_host a, b;
	struct rte_ring *a2b[MAX_LINKS], *b2a[MAX_LINKS];
	unsigned int size = 64, links = 4, runs = 5, inflight = 64, i, r;
	double seconds = 1.0, ns[MAX_RUNS];
	const char *sched = "edpf", *csv = NULL;
	uint32_t next_in = 0, next_out = 0, bad = 0;
	uint64_t hz, now, deadline, next_hk = 0, hk_period, delivered_total = 0;
	struct rte_mempool *mp;
	struct rte_mbuf *m[SB_BURST_MAX];
	FILE *out = stdout;
	bool key = false, seq_set = false;
	uint32_t seq0 = 0;
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
		case 'q': seq0 = strtoul(optarg, NULL, 0); seq_set = true; break;
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
		a2b[i] = sb_pair_ring("bn_a2b%u", i);
		b2a[i] = sb_pair_ring("bn_b2a%u", i);
	}
	sb_pair_host_config(&a, 1, links, sched);
	a.cfg.initial_seq_set = seq_set;
	a.cfg.initial_seq = seq0;
	sb_pair_host_start(&a, 1, a2b, b2a, mp, key, &stop);
	sb_pair_host_config(&b, 2, links, sched);
	b.cfg.initial_seq_set = seq_set;
	b.cfg.initial_seq = seq0;
	sb_pair_host_start(&b, 2, b2a, a2b, mp, key, &stop);
	hz = rte_get_tsc_hz();
	hk_period = hz / 1000;

	/* Hellos until both hosts see every path (a few hello intervals). */
	deadline = rte_rdtsc() + 5 * hz;
	while (sb_pair_paths_up(&a) < links || sb_pair_paths_up(&b) < links) {
		now = rte_rdtsc();
		if (now > deadline) {
			const struct sb_peer_table *t = &a.dp->tx->peers;

			for (i = 0; t->n_peers == 1 && i < t->peer[0].n_paths; i++)
				fprintf(stderr, "a: path %u: %s, %s, mtu_ok %u, lossy %u\n", i,
					sb_path_state_str(t->peer[0].path[i].state),
					sb_path_fault_str(t->peer[0].path[i].fault),
					t->peer[0].path[i].fb.mtu_ok, t->peer[0].path[i].fb.lossy);
			rte_exit(EXIT_FAILURE, "paths did not come up: a %u, b %u of %u\n",
				sb_pair_paths_up(&a), sb_pair_paths_up(&b), links);
		}
		sb_pair_step(&a, &b, now, &next_hk, hk_period);
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
			sb_pair_step(&a, &b, now, &next_hk, hk_period);
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
