/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro benchmark: how the datapath scales with its lcores, on ring ports (no root, no NICs).
 *
 * One seqbond host (host 1) and an emulated peer (host 2), traffic both ways at once, as a
 * TCP stream in each direction gives it:
 *  - kernel -> peer: frames from the host's "kernel" (its exception port's rx rings) are
 *    shimmed and striped onto the member ports' tx rings; a harness step turns each one
 *    back into a kernel frame (strip the shim, restore the addresses) and puts it on the
 *    exception rx ring again;
 *  - peer -> kernel: a harness step gives the frames the host delivered to its "kernel" (the
 *    exception port's tx ring) the peer's shim, with the peer's next sequence number and
 *    path sequence, and puts them on the member ports' rx rings in turn; the host reorders
 *    them and delivers them again.
 * Each harness step runs on the lcore that last touched the frames (with one worker, that
 * worker; with a TX and an RX worker, each next to its own half), so no frame moves between
 * cores for the harness's sake and both configurations do the same work per frame. The main
 * lcore only sends the peer's hellos every 10 ms.
 *
 * Checked: the frames delivered to the kernel carry the peer's sequence numbers consecutively
 * (order, nothing lost or twice), the reorder window counts nothing late, lost, duplicate or
 * out of range, no drops anywhere, and every mbuf is back once the datapath is freed.
 *
 * Output: CSV "seqbond_scale,<workers>,<links>,<seconds>,<Mpps kernel->peer>,
 * <Mpps peer->kernel>,<Mpps total>". Exit 1 on a failed check.
 *
 * Usage: bench_scale [EAL options: the lcores, e.g. --lcores 0@0,1@1 or 0@0,1@0,2@1] --
 *                    [--links N] [--inflight N] [--seconds S] [--csv FILE] [--wire-batch N]
 *
 * --wire-batch N: frames the emulated peer puts on the links per harness step and exception
 * queue (default 64). With --inflight 2048 --wire-batch 2048 an RX worker finds thousands of
 * frames in its ports' rings at once, more than its exception queue holds (512): the check
 * that nothing is dropped then holds seqbond to taking no more per loop than that queue has
 * room for (tests/unit/meson.build, test_dp_exc_room).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_config.h"
#include "sb_dp_int.h"
#include "sb_port.h"

#define MAX_LINKS 8
#define RING_SIZE 4096
#define FRAME_LEN 64
#define CNT_OFF (RTE_ETHER_HDR_LEN + 20)	/* the peer's sequence number, in the payload */
/* The counter sits 2 bytes off a 4-byte boundary (after a 14-byte Ethernet header). */
typedef uint32_t cnt_t __attribute__((aligned(1)));
#define NEW_OFF (CNT_OFF + 4)			/* non-zero: injected, not numbered yet */

static const uint8_t our_agg[6] = { 0x02, 0x53, 0x42, 0, 0, 1 };
static const uint8_t peer_agg[6] = { 0x02, 0x53, 0x42, 0, 0, 2 };

static bool stop;
static struct sb_dp *dp;
static unsigned int links;
static struct rte_ring *wire_in[MAX_LINKS], *wire_out[MAX_LINKS];
static struct rte_ring *kernel_in[SB_DP_MAX_WORKERS], *kernel_out[SB_DP_MAX_WORKERS];
static uint16_t n_exc_queues;
static unsigned int wire_batch = 64;	/* frames the peer puts on the wire per step, per queue */

/* The emulated peer's side of the peer -> kernel direction (run by the RX side's lcore). */
static struct {
	uint32_t seq;			/* its next sequence number to us */
	uint8_t path_seq[MAX_LINKS];
	unsigned int next_link;
	uint32_t expect;		/* next sequence number we should see delivered */
	bool started;
	uint64_t bad;			/* delivered out of order or damaged */
	uint64_t frames;		/* delivered */
} peer_rx;

static uint64_t kernel_tx_frames;	/* kernel -> peer frames through the host */

static void
peer_port_mac(uint8_t *mac, unsigned int i)
{
	const uint8_t m[6] = { 0x02, 0x50, 0, 0, 0, (uint8_t)i };

	memcpy(mac, m, 6);
}

/* Kernel -> peer: the host's wire frames become kernel frames again. */
static unsigned int
recycle_kernel_to_peer(void)
{
	struct rte_mbuf *m[64];
	unsigned int i, j, n, total = 0;

	for (i = 0; i < links; i++) {
		n = rte_ring_dequeue_burst(wire_out[i], (void **)m, RTE_DIM(m), NULL);
		for (j = 0; j < n; j++) {
			uint8_t *b = rte_pktmbuf_mtod(m[j], uint8_t *);

			if (b[14] != (SB_WIRE_VERSION << 4 | SB_WIRE_DATA)) {
				rte_pktmbuf_free(m[j]);	/* the host's hellos */
				m[j] = NULL;
				continue;
			}
			rte_pktmbuf_adj(m[j], SB_WIRE_OVERHEAD);
			b = rte_pktmbuf_mtod(m[j], uint8_t *);
			memcpy(b, peer_agg, 6);
			memcpy(b + 6, our_agg, 6);
		}
		for (j = 0; j < n; j++) {
			if (m[j] == NULL)
				continue;
			if (rte_ring_enqueue(kernel_in[total % n_exc_queues], m[j]) != 0)
				rte_pktmbuf_free(m[j]);
			total++;
		}
	}
	kernel_tx_frames += total;
	return total;
}

/* Peer -> kernel: a frame the host delivered, checked, goes back on the wire from the peer. */
static void
peer_resend(struct rte_mbuf *m)
{
	cnt_t *cnt = rte_pktmbuf_mtod_offset(m, cnt_t *, CNT_OFF);
	uint8_t *fresh = rte_pktmbuf_mtod_offset(m, uint8_t *, NEW_OFF);
	unsigned int l = peer_rx.next_link;
	struct sb_shim shim = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED,
		.path = l, .path_seq = peer_rx.path_seq[l]++ };
	static const uint8_t zero[6];
	uint8_t src[6], *hdr;

	/* Injected frames come in once unnumbered, mixed with numbered ones (main injects
	 * while the workers run); only numbered ones count. */
	if (*fresh) {
		*fresh = 0;
	} else {
		if (peer_rx.started && (*cnt != peer_rx.expect ||
				rte_pktmbuf_pkt_len(m) != FRAME_LEN))
			peer_rx.bad++;
		peer_rx.expect = *cnt + 1;
		peer_rx.started = true;
	}
	peer_rx.frames++;
	shim.seq = peer_rx.seq++;
	*cnt = shim.seq;
	hdr = (uint8_t *)rte_pktmbuf_prepend(m, SB_WIRE_OVERHEAD);
	peer_port_mac(src, l);
	sb_wire_put_hdr(hdr, zero, src, &shim);
	peer_rx.next_link = (l + 1) % links;
	if (rte_ring_enqueue(wire_in[l], m) != 0)
		rte_pktmbuf_free(m);
}

/* Peer -> kernel: what the host delivered goes back on the wire, up to wire_batch frames per
 * exception queue at a time (the peer's burst onto the links). */
static unsigned int
recycle_peer_to_kernel(void)
{
	struct rte_mbuf *m[64];
	unsigned int q, j, n, left, total = 0;

	for (q = 0; q < n_exc_queues; q++) {
		for (left = wire_batch; left > 0; left -= n) {
			n = rte_ring_dequeue_burst(kernel_out[q], (void **)m,
				RTE_MIN(left, (unsigned int)RTE_DIM(m)), NULL);
			if (n == 0)
				break;
			for (j = 0; j < n; j++)
				peer_resend(m[j]);
			total += n;
		}
	}
	return total;
}

/* A worker's lcore: its datapath loop with its half of the harness next to it. */
static int
worker_main(void *arg)
{
	struct sb_dp_worker *w = arg;
	uint64_t now, next_hk = 0, hk_period = dp->hz / 1000;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		bool hk;

		now = rte_rdtsc();
		hk = now >= next_hk;
		if (hk)
			next_hk = now + hk_period;
		sb_dp_worker_poll(w, now, hk);
		if (w->tx != NULL)
			recycle_kernel_to_peer();
		if (w->rx != NULL)
			recycle_peer_to_kernel();
	}
	return 0;
}

/* The peer's hellos, one per port, listing us as heard. Main sends them every 10 ms with
 * usleep(); on a loaded machine one may come tens of ms late, so the peer announces a
 * detection time of 1 s (multiplier 100): a late hello must not take paths down, this
 * measures forwarding, not failure detection. */
static void
peer_hellos(struct rte_mempool *mp, uint32_t *seq)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	unsigned int i;

	for (i = 0; i < links; i++) {
		struct sb_hello h = {
			.host_id = 2, .instance = 7, .port_index = i, .n_ports = links,
			.rate_kbps = 100000000, .interval_ms = 10, .mtu = 1500, .multiplier = 100,
			.hello_seq = seq[i]++, .n_entries = 1,
		};
		const struct sb_hello_entry e = {
			.host_id = 1, .port = i, .flags = SB_ENTRY_F_MTU_OK | SB_ENTRY_F_TX,
		};
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint8_t src[6];
		size_t len;

		if (m == NULL)
			continue;
		memcpy(h.agg_mac, peer_agg, 6);
		peer_port_mac(src, i);
		len = sb_wire_put_hello(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_tailroom(m),
			group, src, i, &h, &e, 0);
		rte_pktmbuf_append(m, len);
		if (rte_ring_enqueue(wire_in[i], m) != 0)
			rte_pktmbuf_free(m);
	}
}

static uint16_t
ring_port(const char *what, unsigned int i, unsigned int n_queues, struct rte_mempool *mp,
	uint16_t mtu, struct rte_ring **rx, struct rte_ring **tx)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int q;
	int id, ret;

	for (q = 0; q < n_queues; q++) {
		snprintf(name, sizeof(name), "bs_%s%u_rx%u", what, i, q);
		rx[q] = rte_ring_create(name, RING_SIZE, rte_socket_id(), RING_F_SC_DEQ);
		/* Multi-producer: main puts the first frames on the exception tx rings while
		 * the datapath may already write to them. */
		snprintf(name, sizeof(name), "bs_%s%u_tx%u", what, i, q);
		tx[q] = rte_ring_create(name, RING_SIZE, rte_socket_id(), RING_F_SC_DEQ);
		if (rx[q] == NULL || tx[q] == NULL)
			rte_exit(EXIT_FAILURE, "ring %s: %s\n", name, rte_strerror(rte_errno));
	}
	snprintf(name, sizeof(name), "bs_%s%u", what, i);
	id = rte_eth_from_rings(name, rx, n_queues, tx, n_queues, rte_socket_id());
	if (id < 0)
		rte_exit(EXIT_FAILURE, "port %s: %s\n", name, rte_strerror(rte_errno));
	ret = sb_port_setup(id, mtu, mp, 512, 512, n_queues, true);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %s: setup: %s\n", name, rte_strerror(-ret));
	return id;
}

static struct rte_mbuf *
frame(struct rte_mempool *mp, const uint8_t *dst, const uint8_t *src)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;

	if (m == NULL || rte_pktmbuf_append(m, FRAME_LEN) == NULL)
		rte_exit(EXIT_FAILURE, "cannot build frames\n");
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eh, 0, FRAME_LEN);
	memcpy(eh->dst_addr.addr_bytes, dst, 6);
	memcpy(eh->src_addr.addr_bytes, src, 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	return m;
}

static void
drain(struct rte_ring *r)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "links", required_argument, NULL, 'l' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 't' },
		{ "csv", required_argument, NULL, 'c' },
		{ "wire-batch", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int inflight = 256, n_workers, i, k, lcore = -1;
	uint32_t hello_seq[MAX_LINKS] = { 0 };
	uint64_t hz, t0, t1, tx0, tx1, rx0, rx1, end;
	double seconds = 2.0, secs, mpps_tx, mpps_rx;
	const char *csv = NULL;
	struct sb_config cfg;
	struct sb_dp_conf dc;
	struct rte_mempool *mp;
	struct sb_reorder_stats rs;
	struct sb_dp_stats sum = { 0 };
	FILE *out = stdout;
	int ret, opt, bad = 0;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	links = 4;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': links = strtoul(optarg, NULL, 0); break;
		case 'i': inflight = strtoul(optarg, NULL, 0); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'c': csv = optarg; break;
		case 'w': wire_batch = strtoul(optarg, NULL, 0); break;
		default: rte_exit(EXIT_FAILURE, "bad option (see the header of bench_scale.c)\n");
		}
	}
	n_workers = rte_lcore_count() - 1;
	if (links < 1 || links > MAX_LINKS || inflight < 1 || inflight > 2048 || seconds <= 0 ||
			wire_batch < 1 || wire_batch > RING_SIZE ||
			n_workers < 1 || n_workers > 2)
		rte_exit(EXIT_FAILURE, "bad arguments; 1 or 2 worker lcores (bench_scale.c)\n");

	mp = rte_pktmbuf_pool_create("bs_mbufs", 32767, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n", rte_strerror(rte_errno));
	sb_config_defaults(&cfg);
	cfg.host_id = 1;
	memcpy(cfg.mac, our_agg, 6);
	cfg.n_ports = links;
	cfg.lcore_dedicated = true;	/* busy polling: a CPU benchmark */
	for (i = 0; i < links; i++) {
		cfg.port[i].rate_kbps = 100000000;	/* never the limit */
		cfg.port[i].mtu = 1500;
	}
	sb_config_dp_conf(&cfg, &dc);
	dc.mtu_probe_interval_ms = 0;	/* the emulated peer answers no probes */
	for (i = 0; i < links; i++) {
		dc.port[i].port_id = ring_port("link", i, 1, mp, 1500, &wire_in[i], &wire_out[i]);
		dc.port[i].pt_port = RTE_MAX_ETHPORTS;
	}
	dc.n_workers = n_workers;
	n_exc_queues = dc.n_exc_queues = sb_dp_exc_queues(n_workers);
	dc.exc = sb_exc_from_port(ring_port("exc", 0, n_exc_queues, mp, 1490, kernel_in,
		kernel_out), 1490, n_exc_queues);
	if (dc.exc == NULL)
		rte_exit(EXIT_FAILURE, "sb_exc_from_port: %s\n", rte_strerror(rte_errno));
	dc.exc_mtu = 1490;
	dc.mp = mp;
	dp = sb_dp_create(&dc, &stop);
	if (dp == NULL)
		rte_exit(EXIT_FAILURE, "sb_dp_create: %s\n", rte_strerror(rte_errno));
	for (k = 0; k < n_workers; k++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		if (rte_eal_remote_launch(worker_main, sb_dp_worker_arg(dp, k), lcore) != 0)
			rte_exit(EXIT_FAILURE, "cannot launch worker %u\n", k);
	}

	/* Paths up (the TX side's table: main only reads a count it raises). */
	hz = rte_get_tsc_hz();
	end = rte_rdtsc() + 5 * hz;
	while (__atomic_load_n(&dp->tx->peers.n_peers, __ATOMIC_RELAXED) == 0 ||
			__atomic_load_n(&dp->tx->peers.peer[0].n_usable, __ATOMIC_RELAXED) <
			links) {
		if (rte_rdtsc() > end)
			rte_exit(EXIT_FAILURE, "paths did not come up\n");
		peer_hellos(mp, hello_seq);
		usleep(10000);
	}
	/* Both populations: kernel -> peer and peer -> kernel (the latter enters as frames
	 * the host delivered, so the peer's side numbers them). */
	for (i = 0; i < inflight; i++) {
		struct rte_mbuf *in = frame(mp, our_agg, peer_agg);

		*rte_pktmbuf_mtod_offset(in, uint8_t *, NEW_OFF) = 1;
		if (rte_ring_enqueue(kernel_in[i % n_exc_queues], frame(mp, peer_agg, our_agg)) ||
				rte_ring_enqueue(kernel_out[i % n_exc_queues], in))
			rte_exit(EXIT_FAILURE, "cannot inject frames\n");
	}
	for (i = 0; i < 30; i++) {	/* warm up */
		peer_hellos(mp, hello_seq);
		usleep(10000);
	}
	t0 = rte_rdtsc();
	tx0 = __atomic_load_n(&kernel_tx_frames, __ATOMIC_RELAXED);
	rx0 = __atomic_load_n(&peer_rx.frames, __ATOMIC_RELAXED);
	end = t0 + (uint64_t)(seconds * hz);
	while (rte_rdtsc() < end) {
		peer_hellos(mp, hello_seq);
		usleep(10000);
	}
	t1 = rte_rdtsc();
	tx1 = __atomic_load_n(&kernel_tx_frames, __ATOMIC_RELAXED);
	rx1 = __atomic_load_n(&peer_rx.frames, __ATOMIC_RELAXED);
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();

	secs = (double)(t1 - t0) / hz;
	mpps_tx = (double)(tx1 - tx0) / secs / 1e6;
	mpps_rx = (double)(rx1 - rx0) / secs / 1e6;
	sb_reorder_stats_get(dp->rx_peer[0].reorder, &rs);
	for (k = 0; k < n_workers; k++) {
		const struct sb_dp_stats *st = &dp->worker[k].stats;

		sum.tx_no_path += st->tx_no_path;
		sum.tx_queue_drop += st->tx_queue_drop;
		sum.ring_full += st->ring_full;
		sum.exc_tx_drop += st->exc_tx_drop;
		sum.rx_unknown_peer += st->rx_unknown_peer;
	}
	fprintf(stderr, "bench_scale: %u worker(s), %.2f s: kernel -> peer %.3f Mpps, peer -> "
		"kernel %.3f Mpps; delivered out of order or damaged %" PRIu64 "; window: late %"
		PRIu64 ", lost %" PRIu64 ", duplicate %" PRIu64 ", out of range %" PRIu64
		"; drops: no path %" PRIu64 ", queue %" PRIu64 ", ring %" PRIu64 ", exception %"
		PRIu64 ", unknown peer %" PRIu64 "\n", n_workers, secs, mpps_tx, mpps_rx,
		peer_rx.bad, rs.late, rs.lost_rule + rs.lost_timeout + rs.lost_slide, rs.duplicate,
		rs.out_of_range, sum.tx_no_path, sum.tx_queue_drop, sum.ring_full, sum.exc_tx_drop,
		sum.rx_unknown_peer);
	for (k = 0; k < n_workers; k++) {
		const struct sb_dp_stats *st = &dp->worker[k].stats;

		fprintf(stderr, "bench_scale: worker %u: rx %" PRIu64 " rx_data %" PRIu64
			" exc_tx %" PRIu64 " exc_rx %" PRIu64 " tx_data %" PRIu64 " flood %" PRIu64
			" in_order %" PRIu64 " reordered %" PRIu64 "\n", k, st->rx, st->rx_data,
			st->exc_tx, st->exc_rx, st->tx_data, st->tx_flood, rs.in_order, rs.reordered);
	}
	if (peer_rx.bad != 0 || rs.late != 0 || rs.lost_rule + rs.lost_timeout +
			rs.lost_slide != 0 || rs.duplicate != 0 || rs.out_of_range != 0 ||
			sum.tx_no_path != 0 || sum.tx_queue_drop != 0 || sum.ring_full != 0 ||
			sum.exc_tx_drop != 0 || tx1 == tx0 || rx1 == rx0)
		bad = 1;

	sb_dp_free(dp);
	sb_exc_close(dc.exc);
	for (i = 0; i < links; i++) {
		drain(wire_in[i]);
		drain(wire_out[i]);
	}
	for (k = 0; k < n_exc_queues; k++) {
		drain(kernel_in[k]);
		drain(kernel_out[k]);
	}
	if (rte_mempool_avail_count(mp) != mp->size) {
		fprintf(stderr, "bench_scale: %u of %u mbufs back\n", rte_mempool_avail_count(mp),
			mp->size);
		bad = 1;
	}
	if (csv != NULL && (out = fopen(csv, "a")) == NULL)
		rte_exit(EXIT_FAILURE, "%s: %s\n", csv, strerror(errno));
	fprintf(out, "seqbond_scale,%u,%u,%.2f,%.3f,%.3f,%.3f\n", n_workers, links, secs, mpps_tx,
		mpps_rx, mpps_tx + mpps_rx);
	if (out != stdout)
		fclose(out);
	rte_eal_cleanup();
	return bad;
}
