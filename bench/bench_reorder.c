/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro benchmark: seqbond's reorder window (lib/reorder) against DPDK's rte_reorder on the
 * same deterministic arrival traces.
 *
 * A trace is what a receiver sees when frames 0..N-1 are striped round robin over P FIFO
 * paths whose delays wander: frame i goes on path i % P and arrives at key i + off(p), where
 * off(p) is a random walk in [0, D] that moves by less than P per frame of that path, so every
 * path stays FIFO (the assumption of RFC 1990's rule) and no frame is displaced by much more
 * than D positions. Traces: in order (D = 0), D = 8, 64, 512, and 1 % loss with D = 8.
 *
 * Both engines get every arrival, one insert each, and are drained after every burst of 32
 * arrivals, as a receive loop would; the clock stops after the last arrival's drain. Then each
 * is flushed (seqbond: a drain far past its timeout; rte_reorder, which has no timeout: a
 * window's worth of sentinel frames after the last one, which pushes every held frame out).
 * Each run checks that the engine released exactly the frames that were not lost, each once, in
 * increasing order; a failed check exits non-zero. Output: one CSV line per (engine, trace)
 * with the median over the runs of cycles and ns per frame.
 *
 * Usage: bench_reorder [EAL options] -- [--frames N] [--runs R] [--window W]
 *                      [--trace NAME] [--engine sb|rte] [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_reorder.h>

#include "sb_reorder.h"

#define N_PATHS 4
#define BURST 32
#define POOL_MBUFS 8192		/* recycled; a frame is never held this many arrivals */
#define SENTINEL_PORT UINT16_MAX
#define MAX_RUNS 31

struct trace_spec {
	const char *name;
	unsigned int disp;	/* D: largest path delay, in frame positions */
	unsigned int loss_ppm;	/* frames dropped, per million */
};

static const struct trace_spec traces[] = {
	{ "inorder", 0, 0 },
	{ "disp8", 8, 0 },
	{ "disp64", 64, 0 },
	{ "disp512", 512, 0 },
	{ "loss1pct_disp8", 8, 10000 },
};

struct arrival {
	uint32_t seq;
	uint8_t path;
};

struct trace {
	const struct trace_spec *spec;
	struct arrival *a;
	uint32_t n;		/* arrivals */
	uint32_t n_frames;	/* sequence numbers 0..n_frames-1 were sent */
};

/* Deterministic generator (xorshift64*), so every run and both engines see one trace. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

struct keyed {
	uint64_t key;
	uint32_t seq;
};

static int
cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

static int
trace_make(struct trace *t, const struct trace_spec *spec, uint32_t n_frames)
{
	struct keyed *k = malloc(sizeof(*k) * n_frames);
	int64_t off[N_PATHS] = { 0 };
	uint64_t s = 0x5eb0d5eed ^ ((uint64_t)spec->disp << 32) ^ spec->loss_ppm;
	uint32_t i, n = 0;

	t->a = malloc(sizeof(*t->a) * n_frames);
	if (k == NULL || t->a == NULL) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < n_frames; i++) {
		unsigned int p = i % N_PATHS;

		if (spec->disp > 0 && i >= N_PATHS) {
			/* step in -(P-1)..P-1 keeps the path FIFO */
			off[p] += (int64_t)(rnd(&s) % (2 * N_PATHS - 1)) - (N_PATHS - 1);
			if (off[p] < 0)
				off[p] = 0;
			if (off[p] > spec->disp)
				off[p] = spec->disp;
		}
		k[i].key = (uint64_t)i + (uint64_t)off[p];
		k[i].seq = i;
	}
	qsort(k, n_frames, sizeof(*k), cmp_keyed);
	for (i = 0; i < n_frames; i++) {
		/* never lose the very first frame: both engines start from the first one seen */
		if (spec->loss_ppm && k[i].seq != 0 && rnd(&s) % 1000000 < spec->loss_ppm)
			continue;
		t->a[n].seq = k[i].seq;
		t->a[n].path = k[i].seq % N_PATHS;
		n++;
	}
	free(k);
	t->spec = spec;
	t->n = n;
	t->n_frames = n_frames;
	return 0;
}

/* What one run released, checked after the clock stopped. */
struct check {
	uint32_t released;
	uint32_t last;
	uint32_t bad_order;
	uint8_t *held;		/* per pool slot: handed to the engine and not back yet */
	uint32_t reused_held;
};

static struct rte_mbuf *pool_m[POOL_MBUFS];

static inline void
release(struct check *c, struct rte_mbuf *m)
{
	uint32_t seq = *rte_reorder_seqn(m);

	if (c->released != 0 && (int32_t)(seq - c->last) <= 0)
		c->bad_order++;
	c->last = seq;
	c->released++;
	c->held[m->port] = 0;	/* slot index kept in m->port */
}

/* The timed loops are not inlined so callgrind can collect exactly them. */
static __rte_noinline uint64_t
run_sb(const struct trace *t, uint32_t window, struct check *c)
{
	struct sb_reorder_conf conf = {
		.window = window,
		.timeout = (uint64_t)4 * window,	/* clock = arrival index */
		.max_jump = 0,
	};
	struct sb_reorder *r = sb_reorder_create(&conf);
	void *out[BURST * 4];
	uint64_t t0, t1;
	uint32_t i, j, n;

	if (r == NULL)
		return 0;
	for (i = 0; i < N_PATHS; i++)
		sb_reorder_path_set_active(r, i, true);
	t0 = rte_rdtsc_precise();
	for (i = 0; i < t->n; i++) {
		struct rte_mbuf *m = pool_m[i % POOL_MBUFS];

		if (c->held[i % POOL_MBUFS])
			c->reused_held++;
		c->held[i % POOL_MBUFS] = 1;
		*rte_reorder_seqn(m) = t->a[i].seq;
		if (sb_reorder_insert(r, t->a[i].path, t->a[i].seq, m, i) != SB_REORDER_HELD)
			c->held[i % POOL_MBUFS] = 0;
		if ((i + 1) % BURST == 0) {
			while ((n = sb_reorder_drain(r, out, RTE_DIM(out), i)) > 0)
				for (j = 0; j < n; j++)
					release(c, out[j]);
		}
	}
	t1 = rte_rdtsc_precise();
	/* flush: far past the timeout */
	while ((n = sb_reorder_drain(r, out, RTE_DIM(out), (uint64_t)t->n + 64 * window)) > 0)
		for (j = 0; j < n; j++)
			release(c, out[j]);
	sb_reorder_free(r, NULL, NULL);
	return t1 - t0;
}

/* Drain everything releasable; sentinels (flush only) are not counted. */
static void
rte_reorder_drain_release(struct rte_reorder_buffer *b, struct check *c)
{
	struct rte_mbuf *out[BURST * 4];
	unsigned int j, n;

	while ((n = rte_reorder_drain(b, out, RTE_DIM(out))) > 0)
		for (j = 0; j < n; j++)
			if (out[j]->port != SENTINEL_PORT)
				release(c, out[j]);
}

static __rte_noinline uint64_t
run_rte(const struct trace *t, uint32_t window, struct rte_mempool *mp, struct check *c)
{
	static unsigned int instance;
	struct rte_reorder_buffer *b;
	struct rte_mbuf *out[BURST * 4], **sentinel;
	char name[32];
	uint64_t t0, t1;
	uint32_t i, j, n;
	int tries;

	snprintf(name, sizeof(name), "bench%u", instance++);
	b = rte_reorder_create(name, rte_socket_id(), window);
	sentinel = calloc(window + 1, sizeof(*sentinel));
	if (b == NULL || sentinel == NULL ||
			rte_pktmbuf_alloc_bulk(mp, sentinel, window + 1) != 0) {
		free(sentinel);
		return 0;
	}
	t0 = rte_rdtsc_precise();
	for (i = 0; i < t->n; i++) {
		struct rte_mbuf *m = pool_m[i % POOL_MBUFS];

		if (c->held[i % POOL_MBUFS])
			c->reused_held++;
		c->held[i % POOL_MBUFS] = 1;
		*rte_reorder_seqn(m) = t->a[i].seq;
		if (rte_reorder_insert(b, m) != 0)
			c->held[i % POOL_MBUFS] = 0;	/* refused: counted as not released */
		if ((i + 1) % BURST == 0) {
			while ((n = rte_reorder_drain(b, out, RTE_DIM(out))) > 0)
				for (j = 0; j < n; j++)
					release(c, out[j]);
		}
	}
	t1 = rte_rdtsc_precise();
	/* flush: sentinels numbered on from the last frame; once one is a window past the
	 * oldest held gap, every real frame has been pushed to the ready queue */
	for (i = 0; i <= window; i++) {
		sentinel[i]->port = SENTINEL_PORT;
		*rte_reorder_seqn(sentinel[i]) = t->n_frames + i;
		/* drain before each insert: a ready queue that fills inside an overflow loses
		 * one frame in 22.11 (see the bench's notes), which the flush must not cause */
		rte_reorder_drain_release(b, c);
		for (tries = 0; tries < 64 && rte_reorder_insert(b, sentinel[i]) != 0; tries++)
			rte_reorder_drain_release(b, c);
		if (tries == 64)
			break;
	}
	rte_reorder_drain_release(b, c);
	/*
	 * The buffer is left allocated, never used again. DPDK 22.11's rte_reorder_free() (and
	 * rte_reorder_reset()) free every pointer left in the ready queue, including frames
	 * drain() already handed back (fixed upstream after 22.11 by "reorder: invalidate
	 * buffer from ready queue in drain"): it would free our recycled frames. The sentinels
	 * it still holds are freed here, once.
	 */
	rte_pktmbuf_free_bulk(sentinel, window + 1);
	free(sentinel);
	if (i <= window)
		return 0;
	return t1 - t0;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : (a > b);
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench_reorder [EAL options] -- [--frames N] [--runs R] "
		"[--window W] [--trace NAME] [--engine sb|rte] [--csv FILE]\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "trace", required_argument, NULL, 't' },
		{ "engine", required_argument, NULL, 'e' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t n_frames = 1 << 20, window = 1024;
	unsigned int runs = 5, ti, ri, ei, failures = 0;
	const char *only_trace = NULL, *only_engine = NULL, *csv = NULL;
	struct rte_mempool *mp;
	FILE *out = stdout;
	uint64_t hz;
	int ret, opt;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "bench_reorder: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': n_frames = strtoul(optarg, NULL, 0); break;
		case 'r': runs = strtoul(optarg, NULL, 0); break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		case 't': only_trace = optarg; break;
		case 'e': only_engine = optarg; break;
		case 'c': csv = optarg; break;
		default: usage(); return 2;
		}
	}
	if (runs == 0 || runs > MAX_RUNS || n_frames < 1024 || !rte_is_power_of_2(window)) {
		usage();
		return 2;
	}
	if (csv != NULL) {
		out = fopen(csv, "a");
		if (out == NULL) {
			perror(csv);
			return 1;
		}
	}
	/* Tiny mbufs: only the header and the dynamic seqn field are used. */
	mp = rte_pktmbuf_pool_create("bench_reorder", POOL_MBUFS + 2 * window + 64, 0, 0, 0, rte_socket_id());
	if (mp == NULL || rte_reorder_seqn_dynfield_offset < 0) {
		/* rte_reorder registers its seqn field on the first create */
		struct rte_reorder_buffer *b = rte_reorder_create("probe", rte_socket_id(), 2);

		if (mp == NULL || b == NULL) {
			fprintf(stderr, "bench_reorder: setup failed: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		rte_reorder_free(b);
	}
	if (rte_pktmbuf_alloc_bulk(mp, pool_m, POOL_MBUFS) != 0) {
		fprintf(stderr, "bench_reorder: cannot allocate mbufs\n");
		return 1;
	}
	for (ri = 0; ri < POOL_MBUFS; ri++)
		pool_m[ri]->port = ri;	/* slot index, read by release() */
	hz = rte_get_tsc_hz();

	for (ti = 0; ti < RTE_DIM(traces); ti++) {
		struct trace t;

		if (only_trace != NULL && strcmp(only_trace, traces[ti].name) != 0)
			continue;
		if (trace_make(&t, &traces[ti], n_frames) != 0) {
			fprintf(stderr, "bench_reorder: out of memory\n");
			return 1;
		}
		for (ei = 0; ei < 2; ei++) {
			const char *engine = ei == 0 ? "sb_reorder" : "rte_reorder";
			uint64_t cyc[MAX_RUNS], med;
			struct check c = { 0 };

			if (only_engine != NULL && strcmp(only_engine, ei == 0 ? "sb" : "rte") != 0)
				continue;
			c.held = calloc(POOL_MBUFS, 1);
			for (ri = 0; ri < runs; ri++) {
				memset(c.held, 0, POOL_MBUFS);
				c.released = c.last = c.bad_order = c.reused_held = 0;
				cyc[ri] = ei == 0 ? run_sb(&t, window, &c) :
					run_rte(&t, window, mp, &c);
				if (cyc[ri] == 0 || c.released != t.n || c.bad_order != 0 ||
						c.reused_held != 0) {
					fprintf(stderr, "bench_reorder: %s on %s FAILED: released %u of %u "
						"frames, %u out of order, %u pool slots reused while "
						"held%s\n", engine, t.spec->name, c.released, t.n,
						c.bad_order, c.reused_held,
						cyc[ri] == 0 ? ", create failed" : "");
					failures++;
					break;
				}
			}
			free(c.held);
			if (ri < runs)
				continue;
			qsort(cyc, runs, sizeof(cyc[0]), cmp_u64);
			med = cyc[runs / 2];
			fprintf(out, "%s,%s,%u,%u,%u,%u,%.2f,%.2f,%.2f\n", engine, t.spec->name,
				t.n_frames, t.n, t.n_frames - t.n, runs, (double)med / t.n,
				(double)med * 1e9 / hz / t.n, (double)t.n * hz / med / 1e6);
			fflush(out);
		}
		free(t.a);
	}
	if (out != stdout)
		fclose(out);
	rte_pktmbuf_free_bulk(pool_m, POOL_MBUFS);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
