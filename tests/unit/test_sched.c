/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TX scheduler unit tests: registry, queue model arithmetic, eligibility, and each policy's
 * shares over 10^5 frames of random sizes (fixed seed, so a failure reproduces).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sb_sched.h"
#include "sb_test.h"

#define N_FRAMES 100000
#define MBPS UINT64_C(1000000)

/* The tests' xorshift64* (sb_test_rand()): the sequence is the same under every libc. */
static uint64_t rng_state;

static void
rng_seed(uint64_t seed)
{
	rng_state = seed != 0 ? seed : 1;
}

static uint32_t
rng_next(void)
{
	return sb_test_rand(&rng_state);
}

/* Ethernet frame between minimum and full size. */
static uint32_t
rng_len(void)
{
	return 64 + rng_next() % (1514 - 64 + 1);
}

static void
view_setup(struct sb_sched_view *v, const uint64_t *rate, unsigned int n, uint64_t max_backlog)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	v->n_paths = n;
	v->max_backlog_ns = max_backlog;
	v->now_ns = 1000;
	for (i = 0; i < n; i++) {
		v->path[i].rate_bps = rate[i];
		v->path[i].usable = 1;
	}
}

/* What a run sent on each path. */
struct tally {
	uint64_t bytes[SB_SCHED_MAX_PATHS];
	uint64_t frames[SB_SCHED_MAX_PATHS];
	uint64_t again;	/* picks that found no eligible path */
	uint64_t bad;	/* picks that returned a path not eligible */
};

/* A scheduler under test, its view of the paths and what it sent. */
struct bench {
	struct sb_sched_view v;
	struct sb_sched s;
	struct tally t;
};

/*
 * Set up @p b: @p n paths at @p rate (view_setup()), an empty tally, the generator seeded
 * with @p seed and @p ops started over the view (the start is checked).
 */
static void
bench_start(struct bench *b, const struct sb_sched_ops *ops, const uint64_t *rate, unsigned int n,
	uint64_t max_backlog, uint64_t seed)
{
	view_setup(&b->v, rate, n, max_backlog);
	memset(&b->t, 0, sizeof(b->t));
	rng_seed(seed);
	SB_CHECK(sb_sched_init(&b->s, ops, &b->v) == 0, "%s init", ops->name);
}

/*
 * Send @p n_frames frames through @p b's scheduler, counted in its tally. When @p pace is
 * set, time advances by each frame's length at @p pace bit/s (an offered load of @p pace),
 * and a frame that finds every path full waits for the next drain instead of being lost.
 */
static void
run(struct bench *b, unsigned int n_frames, uint32_t fixed_len, uint64_t pace)
{
	struct sb_sched *s = &b->s;
	struct sb_sched_view *v = &b->v;
	struct tally *t = &b->t;
	unsigned int f, tries;

	for (f = 0; f < n_frames; f++) {
		uint32_t len = fixed_len != 0 ? fixed_len : rng_len();
		uint32_t eligible = sb_sched_eligible(v);
		int p = sb_sched_pick(s, v, len);

		/* Bounded: one drain always frees some usable path. */
		for (tries = 0; p == -EAGAIN && pace != 0 && tries < 1000; tries++) {
			t->again++;
			v->now_ns += 1000;
			eligible = sb_sched_eligible(v);
			p = sb_sched_pick(s, v, len);
		}
		if (p < 0) {
			t->again++;
			continue;
		}
		if (!(eligible & (UINT32_C(1) << p)))
			t->bad++;
		sb_sched_charge(v, (unsigned int)p, len);
		t->bytes[p] += len;
		t->frames[p]++;
		if (pace != 0)
			v->now_ns += sb_sched_tx_ns(len, pace);
	}
}

/*
 * Check that the byte shares of paths 0..n-1 are within @p tol (relative) of the weights;
 * prints the measured shares for the report.
 */
static void
check_shares(const char *what, const struct tally *t, const uint64_t *weight, unsigned int n,
	double tol)
{
	uint64_t total = 0, wsum = 0;
	double worst = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		total += t->bytes[i];
		wsum += weight[i];
	}
	printf("%-34s shares", what);
	for (i = 0; i < n; i++) {
		double share = total != 0 ? (double)t->bytes[i] / (double)total : 0;
		double want = (double)weight[i] / (double)wsum;
		double diff = share > want ? share - want : want - share;
		double err = want != 0 ? diff / want : share;

		printf(" %.4f/%.4f", share, want);
		if (err > worst)
			worst = err;
		SB_CHECK(err <= tol, "%s: path %u byte share %.5f, want %.5f (error %.3f%%)",
			what, i, share, want, err * 100);
	}
	printf("  worst %.3f%%\n", worst * 100);
}

static void
test_registry(void)
{
	static const char *const names[] = { "rr", "drr", "edpf" };
	const struct sb_sched_ops *ops;
	unsigned int i, j, n = 0;

	for (i = 0; i < 3; i++) {
		ops = sb_sched_find(names[i]);
		SB_CHECK(ops != NULL && strcmp(ops->name, names[i]) == 0, "find %s", names[i]);
	}
	SB_CHECK(sb_sched_find("wrr") == NULL, "unknown name");
	SB_CHECK(sb_sched_find("") == NULL, "empty name");
	SB_CHECK(sb_sched_find(NULL) == NULL, "NULL name");
	SB_CHECK(sb_sched_find("RR") == NULL, "names are case sensitive");

	for (i = 0; (ops = sb_sched_get(i)) != NULL; i++) {
		n++;
		SB_CHECK(ops->name != NULL && ops->help != NULL && ops->pick != NULL,
			"policy %u incomplete", i);
		SB_CHECK(sb_sched_find(ops->name) == ops, "get(%u) not findable", i);
		for (j = 0; j < i; j++)
			SB_CHECK(sb_sched_get(j) != ops, "get(%u) repeats get(%u)", i, j);
	}
	SB_CHECK(n == 3, "%u policies enumerated, want 3", n);
	SB_CHECK(sb_sched_get(3) == NULL && sb_sched_get(UINT32_MAX) == NULL, "past the end");
}

static void
test_charge(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 50 * MBPS, 0 };
	static const uint64_t unknown[] = { 0, 0 };
	uint64_t r[SB_SCHED_MAX_PATHS];
	struct sb_sched_view v;

	SB_CHECK(sb_sched_tx_ns(1500, 100 * MBPS) == 120000, "1500 B at 100 Mbit/s: %" PRIu64,
		sb_sched_tx_ns(1500, 100 * MBPS));
	SB_CHECK(sb_sched_tx_ns(64, 10000 * MBPS) == 51, "64 B at 10G rounds down");
	SB_CHECK(sb_sched_tx_ns(1500, 0) == 12000, "rate 0 taken as 1G");
	SB_CHECK(sb_sched_tx_ns(UINT32_MAX, 100 * MBPS) == UINT64_C(343597383600),
		"4 GB at 100M, no overflow");
	SB_CHECK(sb_sched_tx_ns(UINT32_MAX, 3) == UINT64_C(11453246120000000000),
		"4 GB at 3 bit/s, exact");
	SB_CHECK(sb_sched_tx_ns(UINT32_MAX, 1) == UINT64_MAX, "saturates");

	view_setup(&v, rates, 3, 0);
	v.now_ns = 1000;
	sb_sched_charge(&v, 0, 1500);
	SB_CHECK(v.path[0].busy_until_ns == 1000 + 120000, "idle path starts now: %" PRIu64,
		v.path[0].busy_until_ns);
	sb_sched_charge(&v, 0, 1500);
	SB_CHECK(v.path[0].busy_until_ns == 1000 + 240000, "busy path queues behind");
	v.now_ns = 1000000;
	sb_sched_charge(&v, 0, 1500);
	SB_CHECK(v.path[0].busy_until_ns == 1000000 + 120000, "drained path restarts at now");

	/* Unknown rate: the slowest known one (50M), so 1500 B take 240 us. */
	sb_sched_charge(&v, 2, 1500);
	SB_CHECK(v.path[2].busy_until_ns == 1000000 + 240000, "unknown rate is slowest known: %"
		PRIu64, v.path[2].busy_until_ns);
	sb_sched_rates(&v, r);
	SB_CHECK(r[0] == 100 * MBPS && r[1] == 50 * MBPS && r[2] == 50 * MBPS, "rates resolved");
	sb_sched_charge(&v, 3, 1500);	/* beyond n_paths: ignored */
	SB_CHECK(v.path[3].busy_until_ns == 0, "charge past n_paths ignored");

	view_setup(&v, unknown, 2, 0);
	v.now_ns = 0;
	sb_sched_charge(&v, 1, 1500);
	SB_CHECK(v.path[1].busy_until_ns == 12000, "no rate known: 1 Gbit/s");
	sb_sched_rates(&v, r);
	SB_CHECK(r[0] == SB_SCHED_DEFAULT_RATE_BPS && r[1] == SB_SCHED_DEFAULT_RATE_BPS,
		"default rates");
}

static void
test_eligible(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS, 100 * MBPS, 100 * MBPS };
	struct sb_sched_view v;

	view_setup(&v, rates, 3, 0);
	v.path[3].usable = 1;	/* beyond n_paths: never eligible */
	SB_CHECK(sb_sched_eligible(&v) == 0x7, "all usable: %#x", sb_sched_eligible(&v));
	v.path[1].usable = 0;
	SB_CHECK(sb_sched_eligible(&v) == 0x5, "path 1 unusable: %#x", sb_sched_eligible(&v));
	v.path[1].usable = 1;

	v.path[0].busy_until_ns = v.now_ns + 5000000;
	SB_CHECK(sb_sched_eligible(&v) == 0x7, "no backlog limit: backlog ignored");
	v.max_backlog_ns = 100000;
	v.path[0].busy_until_ns = v.now_ns + 100000;
	SB_CHECK(sb_sched_eligible(&v) == 0x7, "backlog == limit is eligible");
	v.path[0].busy_until_ns = v.now_ns + 100001;
	SB_CHECK(sb_sched_eligible(&v) == 0x6, "backlog > limit is full");
	v.max_backlog_ns = UINT64_MAX;
	v.path[0].busy_until_ns = UINT64_MAX;
	SB_CHECK(sb_sched_eligible(&v) == 0x7, "huge limit does not wrap");

	view_setup(&v, rates, 0, 0);
	SB_CHECK(sb_sched_eligible(&v) == 0, "no paths");
}

static void
test_init_errors(void)
{
	static const uint64_t rates[] = { 100 * MBPS };
	struct sb_sched_view v;
	struct sb_sched s;
	unsigned int i;

	view_setup(&v, rates, 1, 0);
	memset(&s, 0, sizeof(s));
	SB_CHECK(sb_sched_init(&s, NULL, &v) == -EINVAL, "NULL ops");
	SB_CHECK(sb_sched_init(NULL, &sb_sched_rr_ops, &v) == -EINVAL, "NULL sched");
	SB_CHECK(sb_sched_init(&s, &sb_sched_rr_ops, NULL) == -EINVAL, "NULL view");
	v.n_paths = SB_SCHED_MAX_PATHS + 1;
	SB_CHECK(sb_sched_init(&s, &sb_sched_rr_ops, &v) == -EINVAL, "too many paths");
	sb_sched_fini(&s);	/* never initialised: harmless */

	for (i = 0; sb_sched_get(i) != NULL; i++) {
		const struct sb_sched_ops *ops = sb_sched_get(i);

		/* No paths at all: init works, pick finds nothing. */
		view_setup(&v, rates, 0, 0);
		SB_CHECK(sb_sched_init(&s, ops, &v) == 0, "%s init with 0 paths", ops->name);
		SB_CHECK(sb_sched_pick(&s, &v, 100) == -EAGAIN, "%s pick with 0 paths", ops->name);
		sb_sched_fini(&s);
		sb_sched_fini(&s);
		SB_CHECK(s.priv == NULL && s.ops == NULL, "%s fini clears", ops->name);
	}
}

/* DRR byte shares follow the rates, without a pacing model. */
static void
test_drr_shares(void)
{
	static const uint64_t w1[] = { 100, 100, 50, 25 };
	static const uint64_t w2[] = { 100, 80, 60, 40, 20, 10 };
	static const uint64_t w3[] = { 1, 1, 1, 1 };
	static const uint64_t w4[] = { 1000, 1 };	/* ratio > 64: capped quanta */
	static const struct {
		const char *name;
		const uint64_t *w;
		unsigned int n;
		uint64_t unit;
		uint32_t fixed_len;
		double tol;
	} cases[] = {
		{ "drr {100,100,50,25}", w1, 4, MBPS, 0, 0.01 },
		{ "drr {100,80,60,40,20,10}", w2, 6, MBPS, 0, 0.01 },
		{ "drr {1,1,1,1} Gbit/s", w3, 4, 1000 * MBPS, 0, 0.01 },
		/* One slow-path frame per round of ~97 KB: a frame of slack is ~2% here. */
		{ "drr {1000,1} Mbit/s", w4, 2, MBPS, 0, 0.03 },
		/* Jumbo frames larger than the slow quantum: several visits per frame. */
		{ "drr {1000,1} Mbit/s 9000 B", w4, 2, MBPS, 9000, 0.05 },
	};
	uint64_t rate[SB_SCHED_MAX_PATHS];
	struct bench b;
	unsigned int c, i;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (i = 0; i < cases[c].n; i++)
			rate[i] = cases[c].w[i] * cases[c].unit;
		bench_start(&b, &sb_sched_drr_ops, rate, cases[c].n, 0, 42 + c);
		run(&b, N_FRAMES, cases[c].fixed_len, 0);
		SB_CHECK(b.t.again == 0 && b.t.bad == 0, "%s: %" PRIu64 " EAGAIN, %" PRIu64
			" not eligible", cases[c].name, b.t.again, b.t.bad);
		check_shares(cases[c].name, &b.t, cases[c].w, cases[c].n, cases[c].tol);
		sb_sched_fini(&b.s);
	}
}

/*
 * DRR when every eligible quantum is smaller than the frame: rates {1000,1,2} cap the quanta
 * at about 97 and 194 bytes for paths 1 and 2, and with the fast path down each frame takes
 * several rounds, which pick folds into one pass. Shares must still follow the rates.
 */
static void
test_drr_small_quanta(void)
{
	static const uint64_t rates[] = { 1000 * MBPS, 1 * MBPS, 2 * MBPS };
	static const uint64_t w[] = { 0, 1, 2 };
	struct bench b;
	unsigned int f;

	bench_start(&b, &sb_sched_drr_ops, rates, 3, 0, 5);
	/* DRR's quanta come from the rates alone: the path may go down after the start. */
	b.v.path[0].usable = 0;
	for (f = 0; f < N_FRAMES; f++) {
		uint32_t len = 64 + rng_next() % (9018 - 64 + 1);	/* up to jumbo */
		int p = sb_sched_pick(&b.s, &b.v, len);

		if (p < 0 || p > 2) {
			b.t.again++;
			continue;
		}
		b.t.bytes[p] += len;
		b.t.frames[p]++;
	}
	SB_CHECK(b.t.again == 0 && b.t.frames[0] == 0, "small quanta: %" PRIu64 " failed picks",
		b.t.again);
	check_shares("drr {-,1,2} Mbit/s, 64..9018 B", &b.t, w, 3, 0.01);
	sb_sched_fini(&b.s);
}

/*
 * DRR credit of a path out of the round is capped at one quantum: back in the round, path 1
 * sends at most its capped credit plus one quantum in a row (2 x 1514 bytes at equal rates),
 * and is not skipped either.
 */
static void
test_drr_return(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS };
	struct bench b;
	uint64_t burst = 0, longest = 0;
	unsigned int f, on1 = 0;
	int p;

	bench_start(&b, &sb_sched_drr_ops, rates, 2, 0, 9);
	for (f = 0; f < 1001; f++)	/* odd count: path 1 is likely holding credit */
		sb_sched_pick(&b.s, &b.v, rng_len());
	b.v.path[1].usable = 0;
	for (f = 0; f < 1000; f++)
		sb_sched_pick(&b.s, &b.v, rng_len());
	b.v.path[1].usable = 1;
	for (f = 0; f < 1000; f++) {
		uint32_t len = rng_len();

		p = sb_sched_pick(&b.s, &b.v, len);
		if (p == 1) {
			on1++;
			burst += len;
			longest = burst > longest ? burst : longest;
		} else {
			burst = 0;
		}
	}
	SB_CHECK(longest <= 2 * 1514, "path 1 burst of %" PRIu64 " bytes after return", longest);
	SB_CHECK(on1 > 400 && on1 < 600, "path 1 got %u of 1000 frames after return", on1);
	sb_sched_fini(&b.s);
}

/* DRR follows a rate change: the second half's shares match the new rates. */
static void
test_drr_rate_change(void)
{
	static const uint64_t before[] = { 100 * MBPS, 100 * MBPS, 100 * MBPS };
	static const uint64_t after[] = { 10, 30, 60 };
	struct bench b;
	unsigned int i;

	bench_start(&b, &sb_sched_drr_ops, before, 3, 0, 7);
	run(&b, N_FRAMES / 2, 0, 0);
	for (i = 0; i < 3; i++)
		b.v.path[i].rate_bps = after[i] * MBPS;
	memset(&b.t, 0, sizeof(b.t));
	run(&b, N_FRAMES, 0, 0);
	check_shares("drr rates changed to {10,30,60}", &b.t, after, 3, 0.01);
	sb_sched_fini(&b.s);
}

/* EDPF under an offered load equal to the sum of the rates, paced by the backlog limit. */
static void
test_edpf_shares(void)
{
	static const uint64_t w1[] = { 100, 100, 50, 25 };
	static const uint64_t w2[] = { 100, 80, 60, 40, 20, 10 };
	static const uint64_t w3[] = { 1, 1, 1, 1 };
	static const struct {
		const char *name;
		const uint64_t *w;
		unsigned int n;
		uint64_t unit;
	} cases[] = {
		{ "edpf {100,100,50,25}", w1, 4, MBPS },
		{ "edpf {100,80,60,40,20,10}", w2, 6, MBPS },
		{ "edpf {1,1,1,1} Gbit/s", w3, 4, 1000 * MBPS },
	};
	uint64_t rate[SB_SCHED_MAX_PATHS];
	struct bench b;
	unsigned int c, i;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t sum = 0;

		for (i = 0; i < cases[c].n; i++) {
			rate[i] = cases[c].w[i] * cases[c].unit;
			sum += rate[i];
		}
		/* A limit of 2 ms: a few full frames on the slowest path. */
		bench_start(&b, &sb_sched_edpf_ops, rate, cases[c].n, 2000000, 1000 + c);
		run(&b, N_FRAMES, 0, sum);
		SB_CHECK(b.t.bad == 0, "%s: %" PRIu64 " picks not eligible", cases[c].name,
			b.t.bad);
		check_shares(cases[c].name, &b.t, cases[c].w, cases[c].n, 0.01);
		printf("%-34s %" PRIu64 " waits for a drain\n", cases[c].name, b.t.again);
		sb_sched_fini(&b.s);
	}
}

/*
 * EDPF keeps the modelled delivery order: with equal sizes, the busy_until of the chosen path
 * after each charge (the frame's modelled arrival) never decreases in send order. That holds
 * while the backlog limit is at least one frame's time on the slowest path (here 1000 B at
 * 10 Mbit/s = 800 us); below it the slow path is full after every frame and frames it would
 * deliver first go elsewhere (at 500 us, 27% of frames arrive before their predecessor),
 * hence the advice on max_backlog_ns in sb_sched.h.
 */
static void
test_edpf_order(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 80 * MBPS, 60 * MBPS, 40 * MBPS,
		20 * MBPS, 10 * MBPS };
	static const uint64_t backlogs[] = { 0, 800000, 2000000 };
	struct sb_sched_view v;
	struct sb_sched s;
	unsigned int b, f;

	for (b = 0; b < 3; b++) {
		uint64_t last = 0, inversions = 0, again = 0;

		view_setup(&v, rates, 6, backlogs[b]);
		SB_CHECK(sb_sched_init(&s, &sb_sched_edpf_ops, &v) == 0, "edpf init");
		for (f = 0; f < N_FRAMES; f++) {
			int p = sb_sched_pick(&s, &v, 1000);

			while (p == -EAGAIN && again < N_FRAMES) {
				again++;
				v.now_ns += 1000;
				p = sb_sched_pick(&s, &v, 1000);
			}
			if (p < 0)
				break;
			sb_sched_charge(&v, (unsigned int)p, 1000);
			if (v.path[p].busy_until_ns < last)
				inversions++;
			last = v.path[p].busy_until_ns;
			v.now_ns += sb_sched_tx_ns(1000, 310 * MBPS);
		}
		printf("edpf order, backlog limit %7" PRIu64 " ns: %" PRIu64 " inversions in %u "
			"frames\n", backlogs[b], inversions, f);
		SB_CHECK(f == N_FRAMES && inversions == 0,
			"backlog %" PRIu64 ": %" PRIu64 " delivery inversions", backlogs[b],
			inversions);
		sb_sched_fini(&s);
	}
}

/* RR: frame counts equal within one, whatever the rates and sizes. */
static void
test_rr_counts(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 10 * MBPS, 1000 * MBPS, 0, 50 * MBPS };
	uint64_t lo = UINT64_MAX, hi = 0;
	struct bench b;
	unsigned int i;

	bench_start(&b, &sb_sched_rr_ops, rates, 5, 0, 3);
	run(&b, N_FRAMES + 3, 0, 0);
	printf("%-34s frames", "rr 5 paths");
	for (i = 0; i < 5; i++) {
		printf(" %" PRIu64, b.t.frames[i]);
		lo = b.t.frames[i] < lo ? b.t.frames[i] : lo;
		hi = b.t.frames[i] > hi ? b.t.frames[i] : hi;
	}
	printf("\n");
	SB_CHECK(hi - lo <= 1 && b.t.bad == 0, "rr frame counts %" PRIu64 "..%" PRIu64, lo, hi);
	sb_sched_fini(&b.s);
}

/*
 * Every policy: an unusable path gets nothing; losing a path mid-run moves its load to the
 * others (DRR by rate); every path full gives -EAGAIN until time drains a queue.
 */
static void
test_usability(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS, 50 * MBPS, 25 * MBPS };
	static const uint64_t w_left[] = { 100, 0, 50, 25 };
	uint64_t sum = 100 * MBPS + 100 * MBPS + 50 * MBPS + 25 * MBPS;
	const struct sb_sched_ops *ops;
	struct bench bn;
	unsigned int i, p;

	for (i = 0; (ops = sb_sched_get(i)) != NULL; i++) {
		char what[64];
		int a, b;

		/* Path 2 down from the start. */
		view_setup(&bn.v, rates, 4, 0);
		bn.v.path[2].usable = 0;
		memset(&bn.t, 0, sizeof(bn.t));
		rng_seed(11);
		SB_CHECK(sb_sched_init(&bn.s, ops, &bn.v) == 0, "%s init", ops->name);
		run(&bn, 10000, 0, 0);
		SB_CHECK(bn.t.frames[2] == 0 && bn.t.bad == 0, "%s: unusable path got %" PRIu64
			" frames", ops->name, bn.t.frames[2]);
		for (p = 0; p < 4; p++)
			SB_CHECK(p == 2 || bn.t.frames[p] > 0, "%s: path %u idle", ops->name, p);
		sb_sched_fini(&bn.s);

		/* Path 1 lost half way: from then on it gets nothing and the rest carry all. */
		bench_start(&bn, ops, rates, 4, 2000000, 12);
		run(&bn, N_FRAMES / 2, 0, sum);
		SB_CHECK(bn.t.frames[1] > 0, "%s: path 1 idle before loss", ops->name);
		bn.v.path[1].usable = 0;
		memset(&bn.t, 0, sizeof(bn.t));
		run(&bn, N_FRAMES / 2, 0, sum - rates[1]);
		SB_CHECK(bn.t.frames[1] == 0 && bn.t.bad == 0, "%s: lost path got %" PRIu64
			" frames", ops->name, bn.t.frames[1]);
		SB_CHECK(bn.t.frames[0] + bn.t.frames[2] + bn.t.frames[3] == N_FRAMES / 2,
			"%s: frames lost after the path went down", ops->name);
		if (ops != &sb_sched_rr_ops) {
			snprintf(what, sizeof(what), "%s after path 1 lost", ops->name);
			check_shares(what, &bn.t, w_left, 4, 0.01);
		}
		sb_sched_fini(&bn.s);

		/* All full: 1500 B take 120 us at 100M, over a 100 us limit after one frame. */
		view_setup(&bn.v, rates, 2, 100000);
		SB_CHECK(sb_sched_init(&bn.s, ops, &bn.v) == 0, "%s init", ops->name);
		a = sb_sched_pick(&bn.s, &bn.v, 1500);
		if (a >= 0)
			sb_sched_charge(&bn.v, (unsigned int)a, 1500);
		b = sb_sched_pick(&bn.s, &bn.v, 1500);
		if (b >= 0)
			sb_sched_charge(&bn.v, (unsigned int)b, 1500);
		SB_CHECK(a >= 0 && b >= 0 && a != b, "%s: one frame per path (%d, %d)", ops->name,
			a, b);
		SB_CHECK(sb_sched_eligible(&bn.v) == 0, "%s: all full", ops->name);
		SB_CHECK(sb_sched_pick(&bn.s, &bn.v, 64) == -EAGAIN, "%s: full gives EAGAIN",
			ops->name);
		bn.v.now_ns += 19999;	/* backlog 100001 ns on both queues: still full */
		SB_CHECK(sb_sched_pick(&bn.s, &bn.v, 64) == -EAGAIN, "%s: still full", ops->name);
		bn.v.now_ns += 1;
		SB_CHECK(sb_sched_pick(&bn.s, &bn.v, 64) >= 0, "%s: eligible once drained",
			ops->name);
		bn.v.now_ns += 120000;
		SB_CHECK(sb_sched_eligible(&bn.v) == 0x3, "%s: both eligible after drain",
			ops->name);
		sb_sched_fini(&bn.s);
	}
}

/*
 * Two queues per path: an 8-port gateway feeding a 6-port blade has two of its ports on one
 * switch, both ending on one blade port. Here paths 0 and 1 (our ports 0 and 1, 100 Mbit/s
 * each) end on the peer's port 0 (100 Mbit/s), path 2 (our port 2) on its port 1. Offered
 * 300 Mbit/s, the peer can take 200: edpf with the peer ports modelled gives each peer port
 * half (paths 0 and 1 share theirs in any proportion) and sends at the peer's 200 Mbit/s;
 * without them it would give each path a third and overfill the peer's port 0 by a third.
 */
static void
test_two_stage(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS, 100 * MBPS };
	static const unsigned int remote_port[] = { 0, 0, 1 };
	uint64_t rbusy[2] = { 0, 0 }, start, total;
	double share0, mbit;
	struct sb_sched_view v;
	struct sb_sched s;
	struct tally t;
	unsigned int f, j;

	view_setup(&v, rates, 3, 2000000);
	for (j = 0; j < 3; j++)
		v.path[j].remote_rate_bps = 100 * MBPS;
	memset(&t, 0, sizeof(t));
	rng_seed(77);
	SB_CHECK(sb_sched_init(&s, &sb_sched_edpf_ops, &v) == 0, "edpf init");
	start = v.now_ns;
	for (f = 0; f < N_FRAMES; f++) {
		uint32_t len = rng_len();
		int p;

		/* The peer port's queue is shared by the paths into it (the datapath keeps
		 * it per peer port and copies it into every path's view). */
		for (j = 0; j < 3; j++)
			v.path[j].rbusy_until_ns = rbusy[remote_port[j]];
		p = sb_sched_pick(&s, &v, len);
		while (p == -EAGAIN) {
			t.again++;
			v.now_ns += 1000;
			p = sb_sched_pick(&s, &v, len);
		}
		sb_sched_charge(&v, (unsigned int)p, len);
		rbusy[remote_port[p]] = v.path[p].rbusy_until_ns;
		t.bytes[p] += len;
		v.now_ns += sb_sched_tx_ns(len, 300 * MBPS);
	}
	total = t.bytes[0] + t.bytes[1] + t.bytes[2];
	share0 = (double)(t.bytes[0] + t.bytes[1]) / (double)total;
	mbit = (double)total * 8 * 1000 / (double)(v.now_ns - start);
	printf("%-34s peer port 0 %.4f (paths 0, 1: %.4f %.4f), peer port 1 %.4f, %.1f Mbit/s\n",
		"edpf two stages", share0, (double)t.bytes[0] / (double)total,
		(double)t.bytes[1] / (double)total, (double)t.bytes[2] / (double)total, mbit);
	SB_CHECK(share0 > 0.49 && share0 < 0.51, "peer port 0 got %.4f of the bytes", share0);
	SB_CHECK(mbit > 196 && mbit < 202, "sent at %.1f Mbit/s, the peer takes 200", mbit);
	/* The peer ports never fall more than the backlog limit behind. */
	SB_CHECK(rbusy[0] <= v.now_ns + 2000000 + 200000 &&
		rbusy[1] <= v.now_ns + 2000000 + 200000, "peer port backlog bounded");
	sb_sched_fini(&s);
}

/*
 * The path stage: ports of 100 Mbit/s, but path 1 carries only 25 (the estimator's figure):
 * edpf sends it a fifth of the bytes, and its own queue, not the port's, fills and bounds it.
 */
static void
test_path_stage(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS };
	struct sb_sched_view v;
	struct sb_sched s;
	uint64_t bytes[2] = { 0, 0 };
	unsigned int f;
	double share1;

	view_setup(&v, rates, 2, 2000000);
	v.path[1].path_rate_bps = 25 * MBPS;
	SB_CHECK(sb_sched_init(&s, &sb_sched_edpf_ops, &v) == 0, "edpf init");
	for (f = 0; f < N_FRAMES; f++) {
		int p = sb_sched_pick(&s, &v, 1500);

		while (p == -EAGAIN) {
			v.now_ns += 1000;
			p = sb_sched_pick(&s, &v, 1500);
		}
		sb_sched_charge(&v, (unsigned int)p, 1500);
		bytes[p] += 1500;
		v.now_ns += sb_sched_tx_ns(1500, 125 * MBPS);
	}
	share1 = (double)bytes[1] / (double)(bytes[0] + bytes[1]);
	printf("%-34s path 1 (25 of 100 Mbit/s) %.4f of the bytes\n", "edpf path stage", share1);
	SB_CHECK(share1 > 0.19 && share1 < 0.21, "path 1 got %.4f", share1);
	SB_CHECK(v.path[1].pbusy_until_ns <= v.now_ns + 2000000 + 480000, "path backlog bounded");
	/* A full path stage makes the path ineligible, whatever its port's queue. */
	v.path[1].busy_until_ns = v.now_ns;
	v.path[1].pbusy_until_ns = v.now_ns + 2000001;
	SB_CHECK((sb_sched_eligible(&v) & 0x2) == 0, "path stage full: not eligible");
	sb_sched_fini(&s);
}

/*
 * Paths of equal rate and unequal delay (0 and 5 ms), the default 2 ms backlog limit: edpf
 * adds the delay to the finish time, so the slower path is used only once the fast one's
 * queue is 5 ms long (the common arrival horizon of sb_sched_eligible() lets it grow that
 * long), both carry their share, and every frame arrives (finish + delay) no earlier than the
 * one sent before it: in order.
 */
static void
test_edpf_delay(void)
{
	static const uint64_t rates[] = { 100 * MBPS, 100 * MBPS };
	struct sb_sched_view v;
	struct sb_sched s;
	uint64_t last_arrival = 0, arrival;
	unsigned int f, late = 0, n1 = 0, first1 = 0;

	view_setup(&v, rates, 2, 2000000);
	v.path[1].delay_ns = 5000000;
	SB_CHECK(sb_sched_init(&s, &sb_sched_edpf_ops, &v) == 0, "edpf init");
	for (f = 0; f < 2000; f++) {
		int p = sb_sched_pick(&s, &v, 1500);

		while (p == -EAGAIN) {
			v.now_ns += 1000;
			p = sb_sched_pick(&s, &v, 1500);
		}
		sb_sched_charge(&v, (unsigned int)p, 1500);
		arrival = v.path[p].busy_until_ns + v.path[p].delay_ns;
		if (arrival < last_arrival)
			late++;
		last_arrival = arrival;
		if (p == 1 && n1++ == 0)
			first1 = f;
		v.now_ns += sb_sched_tx_ns(1500, 400 * MBPS);
	}
	printf("%-34s first frame on the 5 ms path: %u, %u of 2000 there, %u out of order\n",
		"edpf delay 0/5 ms", first1, n1, late);
	SB_CHECK(late == 0, "%u frames would arrive before one sent earlier", late);
	/* 5 ms at 100 Mbit/s is ~41 frames of queue before the delayed path pays. */
	SB_CHECK(first1 >= 40, "delayed path used from frame %u", first1);
	SB_CHECK(n1 > 800, "the delayed path carries its share once busy: %u", n1);
	sb_sched_fini(&s);
}

int
main(void)
{
	test_registry();
	test_charge();
	test_eligible();
	test_init_errors();
	test_drr_shares();
	test_drr_small_quanta();
	test_drr_return();
	test_drr_rate_change();
	test_edpf_shares();
	test_edpf_order();
	test_two_stage();
	test_path_stage();
	test_edpf_delay();
	test_rr_counts();
	test_usability();
	return sb_test_summary("test_sched");
}
