/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Sequence-number edge cases of the reorder window (lib/reorder), beyond test_reorder.c:
 * deep reordering starting just below 2^32, stragglers held across the wrap, frames half the
 * space ahead or behind while frames are held, duplicates on both sides of the wrap, a window
 * filled behind a path that then dies, and gaps released by the timeout when traffic stops.
 * Objects are indexes into frames[]: frame k stands for sequence number base + k.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "sb_reorder.h"
#include "sb_reorder_test.h"
#include "sb_seq.h"
#include "sb_test.h"

#define BIG_TIMEOUT UINT64_C(1000000000000)
#define NFRAMES 20000

static uint32_t frames[NFRAMES];
static uint32_t base;		/* sequence number of frames[0] */

static struct sb_reorder *
mk(uint32_t window, uint64_t timeout, enum sb_reorder_late_policy pol)
{
	struct sb_reorder_conf conf = { .window = window, .timeout = timeout, .late_policy = pol };
	struct sb_reorder *r = sb_reorder_create(&conf);

	if (r == NULL) {
		fprintf(stderr, "create window %u: %d\n", window, rte_errno);
		exit(1);
	}
	return r;
}

static void *
obj(uint32_t seq)
{
	return &frames[(uint32_t)(seq - base) % NFRAMES];
}

static uint32_t
seq_of(void *o)
{
	return base + (uint32_t)((uint32_t *)o - frames);
}

static enum sb_reorder_verdict
ins(struct sb_reorder *r, unsigned int path, uint32_t seq, uint64_t now)
{
	return sb_reorder_insert(r, path, seq, obj(seq), now);
}

/* Drain at @p now and compare with the expected sequence numbers. */
static void
expect(struct sb_reorder *r, uint64_t now, const uint32_t *want, unsigned int nwant, int line)
{
	void *objs[64];
	unsigned int got = sb_reorder_drain(r, objs, RTE_DIM(objs), now), i;

	SB_CHECK(got == nwant, "line %d: drained %u, want %u", line, got, nwant);
	for (i = 0; i < got && i < nwant; i++)
		SB_CHECK(seq_of(objs[i]) == want[i], "line %d: #%u is %u, want %u", line, i,
			seq_of(objs[i]), want[i]);
}

#define EXPECT(r, now, ...) expect(r, now, (const uint32_t[]){ __VA_ARGS__ }, \
	RTE_DIM(((const uint32_t[]){ __VA_ARGS__ })), __LINE__)
#define EXPECT_NONE(r, now) expect(r, now, NULL, 0, __LINE__)

static uint64_t rng;

static uint32_t
rnd(void)
{
	return sb_test_rand(&rng);
}

struct arrival {
	uint32_t key;
	uint32_t k;
};

static int
cmp_arrival(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * Start just below 2^32; frame k arrives in the order of k + rand() % (window - 1), so a frame
 * overtakes at most window - 2 others and never lands beyond the window (no slide). Paths are
 * not FIFO here, so they stay out of the RFC 1990 rule; with no loss nothing may be skipped.
 */
static void
test_deep_reorder_at_wrap(uint32_t window, uint64_t seed)
{
	static struct arrival order[NFRAMES];
	struct sb_reorder *r = mk(window, BIG_TIMEOUT, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	unsigned int i, out = 0, errors = 0, bad = 0;
	uint32_t expect_next;
	void *objs[64];

	rng = seed;
	base = UINT32_MAX - window * 3;
	SB_CHECK(sb_reorder_set_next(r, base) == 0, "set_next");
	for (i = 0; i < NFRAMES; i++) {
		order[i].k = i;
		order[i].key = i + rnd() % (window - 1);
	}
	qsort(order, NFRAMES, sizeof(order[0]), cmp_arrival);
	expect_next = base;
	for (i = 0; i < NFRAMES; i++) {
		unsigned int got, j;

		if (ins(r, rnd() % 4, base + order[i].k, i) != SB_REORDER_HELD)
			bad++;
		/* Drained after every insert (in random slices): a window that lagged behind
		 * would see frames >= window ahead and slide. */
		do {
			got = sb_reorder_drain(r, objs, 1 + rnd() % 64, i);
			for (j = 0; j < got; j++, out++)
				if (seq_of(objs[j]) != expect_next++)
					errors++;
		} while (got != 0);
	}
	st = stats(r);
	SB_CHECK(bad == 0 && errors == 0, "window %u: %u not held, %u out of order", window, bad,
		errors);
	SB_CHECK(out == NFRAMES && st.occupancy == 0, "window %u: %u of %u out, %u held",
		window, out, NFRAMES, st.occupancy);
	SB_CHECK(st.lost_rule + st.lost_timeout + st.lost_slide + st.late + st.duplicate +
		st.out_of_range == 0, "window %u: something skipped or rejected", window);
	SB_CHECK(st.occupancy_hwm >= window / 4 && st.occupancy_hwm < window,
		"window %u: depth reached %u", window, st.occupancy_hwm);
	SB_CHECK(sb_reorder_next_seq(r) == base + NFRAMES, "next %u", sb_reorder_next_seq(r));
	sb_reorder_free(r, NULL, NULL);
}

/* A straggler from before the wrap is waited for while frames after it are held. */
static void
test_straggler_across_wrap(void)
{
	struct sb_reorder *r = mk(16, 100, SB_REORDER_LATE_DROP);

	base = UINT32_MAX - 1;	/* 0xfffffffe */
	sb_reorder_set_next(r, base);
	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	/* Path 1 carries 0xfffffffe and 0; path 0 carries the rest and is ahead. */
	SB_CHECK(ins(r, 0, UINT32_MAX, 0) == SB_REORDER_HELD, "0xffffffff");
	SB_CHECK(ins(r, 0, 1, 1) == SB_REORDER_HELD, "1");
	SB_CHECK(ins(r, 0, 2, 2) == SB_REORDER_HELD, "2");
	EXPECT_NONE(r, 50);	/* path 1 has said nothing: the rule cannot apply */
	SB_CHECK(ins(r, 1, UINT32_MAX - 1, 60) == SB_REORDER_HELD, "straggler");
	EXPECT(r, 60, UINT32_MAX - 1, UINT32_MAX);	/* stops at the gap at 0 */
	SB_CHECK(ins(r, 1, 0, 70) == SB_REORDER_HELD, "second straggler, after the wrap");
	EXPECT(r, 70, 0, 1, 2);
	SB_CHECK(stats(r).reordered == 3 && stats(r).lost_rule + stats(r).lost_timeout == 0,
		"reordered %" PRIu64, stats(r).reordered);
	SB_CHECK(sb_reorder_next_seq(r) == 3, "next %u", sb_reorder_next_seq(r));

	/* The same straggler lost: path 1 then delivers 4 past the wrap, so the rule (every
	 * active path beyond the gap) skips it at once. */
	base = UINT32_MAX - 2;
	sb_reorder_reset(r, NULL, NULL);
	sb_reorder_set_next(r, base);
	ins(r, 0, UINT32_MAX - 2, 0);
	ins(r, 0, UINT32_MAX, 0);	/* 0xfffffffe missing (lost on path 1) */
	ins(r, 0, 0, 0);
	EXPECT(r, 1, UINT32_MAX - 2);
	ins(r, 1, 1, 2);
	EXPECT(r, 2, UINT32_MAX, 0, 1);
	SB_CHECK(stats(r).lost_rule == 1, "lost_rule %" PRIu64, stats(r).lost_rule);
	sb_reorder_free(r, NULL, NULL);
}

/* Half the space ahead or behind, while frames are held across the wrap: ahead is rejected,
 * behind is late; either way nothing in the window changes and what is held still leaves. */
static void
test_half_space(void)
{
	static const enum sb_reorder_late_policy pols[] = { SB_REORDER_LATE_DROP,
		SB_REORDER_LATE_DELIVER, SB_REORDER_LATE_FILL };
	unsigned int p;

	for (p = 0; p < RTE_DIM(pols); p++) {
		struct sb_reorder *r = mk(64, BIG_TIMEOUT, pols[p]);
		struct sb_reorder_stats before, after;
		const uint32_t n = UINT32_MAX - 3;	/* next expected */
		const uint32_t half = UINT32_C(1) << 31;
		/* Fill delivers only numbers the window skipped: none was here. */
		enum sb_reorder_verdict late = pols[p] == SB_REORDER_LATE_DELIVER ?
			SB_REORDER_LATE_DELIVERED : SB_REORDER_LATE_DROPPED;

		base = n;
		sb_reorder_set_next(r, n);
		ins(r, 0, n + 2, 0);	/* held behind a gap at n, n + 1 */
		ins(r, 0, n + 5, 0);	/* after the wrap: 1 */
		before = stats(r);
		SB_CHECK(sb_reorder_insert(r, 0, n + half, &frames[0], 1) ==
			SB_REORDER_OUT_OF_RANGE, "exactly half ahead");
		SB_CHECK(sb_reorder_insert(r, 0, n + half - 1, &frames[0], 1) ==
			SB_REORDER_OUT_OF_RANGE, "half - 1 ahead");
		SB_CHECK(sb_reorder_insert(r, 0, n - half, &frames[0], 1) ==
			SB_REORDER_OUT_OF_RANGE, "exactly half behind");
		SB_CHECK(sb_reorder_insert(r, 1, n - half + 1, &frames[0], 1) == late,
			"half - 1 behind");
		SB_CHECK(sb_reorder_insert(r, 1, n - 1, &frames[0], 1) == late, "1 behind");
		after = stats(r);
		SB_CHECK(after.out_of_range == before.out_of_range + 3 &&
			after.late == before.late + 2, "out_of_range %" PRIu64 " late %" PRIu64,
			after.out_of_range, after.late);
		after.out_of_range = before.out_of_range;
		after.late = before.late;
		SB_CHECK(memcmp(&after, &before, sizeof(after)) == 0, "counters moved");
		SB_CHECK(sb_reorder_next_seq(r) == n, "next moved to %u", sb_reorder_next_seq(r));
		EXPECT_NONE(r, 2);
		ins(r, 0, n, 3);
		ins(r, 0, n + 1, 3);
		EXPECT(r, 3, n, n + 1, n + 2);
		ins(r, 0, n + 3, 4);
		ins(r, 0, n + 4, 4);
		EXPECT(r, 4, n + 3, n + 4, n + 5);
		sb_reorder_free(r, NULL, NULL);
	}
}

/* Duplicates of held frames (either side of the wrap) are refused and the first copy is the
 * one delivered; a duplicate of a released frame is late. */
static void
test_duplicates_at_wrap(void)
{
	struct sb_reorder *r = mk(16, BIG_TIMEOUT, SB_REORDER_LATE_DROP);
	static uint32_t copy;
	void *objs[8];

	base = UINT32_MAX - 1;
	sb_reorder_set_next(r, base);
	ins(r, 0, UINT32_MAX, 0);
	ins(r, 0, 0, 0);
	SB_CHECK(sb_reorder_insert(r, 1, UINT32_MAX, &copy, 0) == SB_REORDER_DUPLICATE,
		"duplicate before the wrap");
	SB_CHECK(sb_reorder_insert(r, 1, 0, &copy, 0) == SB_REORDER_DUPLICATE,
		"duplicate after the wrap");
	ins(r, 0, UINT32_MAX - 1, 0);
	SB_CHECK(sb_reorder_drain(r, objs, RTE_DIM(objs), 0) == 3 && objs[1] == obj(UINT32_MAX)
		&& objs[2] == obj(0), "the first copies leave, in order");
	SB_CHECK(sb_reorder_insert(r, 1, 0, &copy, 0) == SB_REORDER_LATE_DROPPED,
		"copy of a released frame");
	SB_CHECK(stats(r).duplicate == 2 && stats(r).late == 1, "duplicate %" PRIu64
		" late %" PRIu64, stats(r).duplicate, stats(r).late);
	sb_reorder_free(r, NULL, NULL);
}

/*
 * Path 1 carried 0 and then the frame at 1, and died with it; path 0 filled the window behind
 * the gap. (a) Path 1 declared down: the rule alone (path 0 beyond the gap) releases at once.
 * (b) Path 1 never declared down, path 0 keeps sending: the frame one window ahead, once the
 * next arrival confirms it, slides the window. (c) Nothing more arrives and path 1 stays up: the timeout releases.
 */
static void
test_window_filled_then_path_dies(void)
{
	const uint32_t w = 16;
	unsigned int c;

	base = UINT32_MAX - 7;
	for (c = 0; c < 3; c++) {
		struct sb_reorder *r = mk(w, c == 2 ? 1000 : BIG_TIMEOUT, SB_REORDER_LATE_DROP);
		struct sb_reorder_stats st;
		void *objs[64];
		uint32_t s;
		unsigned int got, i, ok = 1;

		sb_reorder_set_next(r, base);
		sb_reorder_path_set_active(r, 0, true);
		sb_reorder_path_set_active(r, 1, true);
		ins(r, 1, base, 0);
		EXPECT(r, 0, base);
		/* 1 is lost with path 1; path 0 fills every other slot: base + 2 .. base + 16. */
		for (s = base + 2; s != base + 1 + w; s++)
			SB_CHECK(ins(r, 0, s, 10) == SB_REORDER_HELD, "fill %u", s);
		EXPECT_NONE(r, 20);
		SB_CHECK(stats(r).occupancy == w - 1, "occupancy %u", stats(r).occupancy);
		if (c == 0) {
			sb_reorder_path_set_active(r, 1, false);
			got = sb_reorder_drain(r, objs, RTE_DIM(objs), 20);
		} else if (c == 1) {
			/* A window ahead: a stray until the next arrival confirms it. */
			SB_CHECK(ins(r, 0, base + 1 + w, 20) == SB_REORDER_STRAY, "stray");
			SB_CHECK(ins(r, 0, base + 1 + w, 20) == SB_REORDER_HELD, "slide");
			got = sb_reorder_drain(r, objs, RTE_DIM(objs), 20);
		} else {
			EXPECT_NONE(r, 1009);
			got = sb_reorder_drain(r, objs, RTE_DIM(objs), 1010);
		}
		for (i = 0; i < got; i++)
			ok &= seq_of(objs[i]) == base + 2 + i;
		st = stats(r);
		SB_CHECK(got == w - 1 + (c == 1) && ok, "case %u: released %u, in order %u", c,
			got, ok);
		SB_CHECK(st.lost_rule == (c == 0) && st.lost_slide == (c == 1) &&
			st.lost_timeout == (c == 2), "case %u: lost rule %" PRIu64 " slide %" PRIu64
			" timeout %" PRIu64, c, st.lost_rule, st.lost_slide, st.lost_timeout);
		/* The dead path's frame turning up late is refused. */
		SB_CHECK(ins(r, 1, base + 1, 30) == SB_REORDER_LATE_DROPPED, "case %u: late", c);
		sb_reorder_free(r, NULL, NULL);
	}
}

/* Traffic stops with several gaps held across the wrap: drains with only the clock moving
 * release everything, each gap once its oldest frame has waited the timeout. */
static void
test_stop_with_gaps(void)
{
	struct sb_reorder *r = mk(32, 100, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;

	base = UINT32_MAX - 4;
	sb_reorder_set_next(r, base);
	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);	/* never heard from: the rule cannot apply */
	ins(r, 0, base + 1, 0);		/* gap at base */
	ins(r, 0, base + 4, 10);	/* gaps at base + 2, base + 3 */
	ins(r, 0, base + 8, 50);	/* after the wrap: 3; gaps at 0, 1, 2 */
	EXPECT_NONE(r, 99);
	EXPECT(r, 100, base + 1);	/* its frame waited 100; base + 4 only 90 */
	EXPECT_NONE(r, 109);
	EXPECT(r, 110, base + 4);
	EXPECT_NONE(r, 149);
	EXPECT(r, 150, base + 8);
	st = stats(r);
	SB_CHECK(st.lost_timeout == 6 && st.occupancy == 0, "lost_timeout %" PRIu64
		" occupancy %u", st.lost_timeout, st.occupancy);
	SB_CHECK(sb_reorder_next_seq(r) == 4, "next %u", sb_reorder_next_seq(r));
	sb_reorder_free(r, NULL, NULL);
}

int
main(void)
{
	test_deep_reorder_at_wrap(64, 1);
	test_deep_reorder_at_wrap(1024, 2);
	test_deep_reorder_at_wrap(4096, 3);
	test_straggler_across_wrap();
	test_half_space();
	test_duplicates_at_wrap();
	test_window_filled_then_path_dies();
	test_stop_with_gaps();
	return sb_test_summary("test_seq_edges");
}
