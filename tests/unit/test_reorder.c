/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the receive reorder window (lib/reorder). No EAL: the window runs on the C
 * heap and objects are plain pointers into arrays.
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

/* Tokens for the hand-written tests: tok[i] stands for the frame with seq base + i. */
#define NTOK 256
static int tok[NTOK];

static void
count_free(void *obj, void *arg)
{
	RTE_SET_USED(obj);
	(*(unsigned int *)arg)++;
}

/*
 * sb_reorder_create(@p conf); a failure is checked, "create WHAT WINDOW[TAIL]: ERRNO", and
 * ends the test.
 */
static struct sb_reorder *
create(const struct sb_reorder_conf *conf, const char *what, const char *tail)
{
	struct sb_reorder *r = sb_reorder_create(conf);

	SB_CHECK(r != NULL, "create %s %u%s: %d", what, conf->window, tail, rte_errno);
	if (r == NULL)
		exit(1);
	return r;
}

static struct sb_reorder *
mk(uint32_t window, uint64_t timeout, uint32_t max_jump, enum sb_reorder_late_policy pol)
{
	struct sb_reorder_conf conf = {
		.window = window,
		.timeout = timeout,
		.max_jump = max_jump,
		.late_policy = pol,
	};

	return create(&conf, "window", " failed");
}

/* Insert tok[seq] (seq < NTOK) and check it is held. */
static void
put(struct sb_reorder *r, unsigned int path, uint32_t seq, uint64_t now)
{
	enum sb_reorder_verdict v = sb_reorder_insert(r, path, seq, &tok[seq % NTOK], now);

	SB_CHECK(v == SB_REORDER_HELD, "seq %u path %u: verdict %d", seq, path, v);
}

/*
 * Insert @p obj as @p seq on @p path at @p now and check the verdict is @p want (a verdict
 * constant); the message is printf's format and arguments, the verdict added last.
 */
#define VERDICT(r, path, seq, obj, now, want, ...) do { \
	enum sb_reorder_verdict v = sb_reorder_insert(r, path, seq, obj, now); \
	SB_CHECK(v == want, __VA_ARGS__, v); \
} while (0)

/*
 * A confirmed jump to @p seq (a window or more ahead): the first arrival is a stray, the
 * next one a window ahead within a window of it (here the same number again) slides the
 * window and is held.
 */
static void
jump(struct sb_reorder *r, unsigned int path, uint32_t seq, uint64_t now)
{
	enum sb_reorder_verdict v = sb_reorder_insert(r, path, seq, &tok[seq % NTOK], now);

	SB_CHECK(v == SB_REORDER_STRAY, "seq %u path %u: first arrival verdict %d", seq, path,
		v);
	put(r, path, seq, now);
}

/*
 * Drain and compare with the expected sequence numbers (tokens). @p n caps the output.
 */
static void
expect_drain(struct sb_reorder *r, uint64_t now, unsigned int n, const uint32_t *want,
	unsigned int nwant, int line)
{
	void *objs[64];
	unsigned int got, i;

	got = sb_reorder_drain(r, objs, n, now);
	SB_CHECK(got == nwant, "line %d: drained %u, want %u", line, got, nwant);
	for (i = 0; i < got && i < nwant; i++)
		SB_CHECK(objs[i] == &tok[want[i] % NTOK], "line %d: obj %u is tok %td, want %u",
			line, i, (int *)objs[i] - tok, want[i]);
}

#define EXPECT(r, now, ...) do { \
	const uint32_t w_[] = { __VA_ARGS__ }; \
	expect_drain((r), (now), 64, w_, sizeof(w_) / sizeof(w_[0]), __LINE__); \
} while (0)
#define EXPECT_NONE(r, now) expect_drain((r), (now), 64, NULL, 0, __LINE__)

static void
test_create(void)
{
	static const uint32_t bad_windows[] = { 0, 1, 3, 1000, UINT32_C(1) << 21 };
	struct sb_reorder_conf conf = { .window = 64, .timeout = 10 };
	struct sb_reorder *r;
	unsigned int i;

	rte_errno = 0;
	SB_CHECK(sb_reorder_create(NULL) == NULL && rte_errno == EINVAL, "NULL conf");
	for (i = 0; i < RTE_DIM(bad_windows); i++) {
		conf.window = bad_windows[i];
		rte_errno = 0;
		r = sb_reorder_create(&conf);
		SB_CHECK(r == NULL && rte_errno == EINVAL, "window %u accepted", conf.window);
		sb_reorder_free(r, NULL, NULL);
	}
	conf.window = 64;
	conf.max_jump = 32;	/* below window */
	rte_errno = 0;
	r = sb_reorder_create(&conf);
	SB_CHECK(r == NULL && rte_errno == EINVAL, "max_jump < window accepted");
	conf.max_jump = 0;
	conf.window = 2;
	r = sb_reorder_create(&conf);
	SB_CHECK(r != NULL, "window 2 refused");
	sb_reorder_free(r, NULL, NULL);
	conf.window = UINT32_C(1) << 20;
	r = sb_reorder_create(&conf);
	SB_CHECK(r != NULL, "window 2^20 refused");
	sb_reorder_free(r, NULL, NULL);
	sb_reorder_free(NULL, NULL, NULL);
}

/* An in-order stream in bursts is released at once, all in order, nothing held back. */
static void
test_in_order(void)
{
	const unsigned int nframes = 320 * 32, burst = 32;
	struct sb_reorder *r = mk(256, 100, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	unsigned int i, j, bad = 0, out = 0;
	uint32_t seq0 = UINT32_MAX - 5000;	/* crosses the wrap too */
	void *objs[64];

	sb_reorder_path_set_active(r, 0, true);
	for (i = 0; i < nframes; i += burst) {
		for (j = 0; j < burst; j++) {
			if (sb_reorder_insert(r, 0, seq0 + i + j, &tok[(i + j) % NTOK], i) !=
					SB_REORDER_HELD)
				bad++;
		}
		if (i == 0)
			SB_CHECK(sb_reorder_next_seq(r) == seq0, "first frame sets next");
		if (sb_reorder_drain(r, objs, 64, i) != burst)
			bad++;
		for (j = 0; j < burst; j++, out++)
			if (objs[j] != &tok[out % NTOK])
				bad++;
	}
	st = stats(r);
	SB_CHECK(bad == 0, "%u bad verdicts, drain counts or orders", bad);
	SB_CHECK(st.in_order == nframes && st.reordered == 0, "in_order %" PRIu64
		" reordered %" PRIu64, st.in_order, st.reordered);
	SB_CHECK(st.hold_max == 0, "hold_max %" PRIu64, st.hold_max);
	SB_CHECK(st.lost_rule + st.lost_timeout + st.lost_slide + st.late + st.duplicate == 0,
		"losses or rejects in an in-order stream");
	SB_CHECK(st.occupancy == 0 && st.occupancy_hwm == burst, "occupancy %u hwm %u",
		st.occupancy, st.occupancy_hwm);
	SB_CHECK(sb_reorder_next_seq(r) == seq0 + nframes, "next %u", sb_reorder_next_seq(r));
	SB_CHECK(sb_reorder_drain(r, objs, 0, 0) == 0, "n = 0 drains nothing");
	sb_reorder_free(r, NULL, NULL);
}

/* Small output arrays: releasable frames stay for the next call, order kept. */
static void
test_small_drain(void)
{
	struct sb_reorder *r = mk(64, 100, 0, SB_REORDER_LATE_DROP);
	void *objs[7];
	unsigned int i, got, out = 0, bad = 0;

	sb_reorder_set_next(r, 0);
	for (i = 0; i < 50; i++)
		put(r, 0, 49 - i, 0);	/* 49 down to 0: all held until 0 comes */
	SB_CHECK(stats(r).occupancy == 50, "occupancy %u", stats(r).occupancy);
	while ((got = sb_reorder_drain(r, objs, RTE_DIM(objs), 0)) != 0) {
		SB_CHECK(got == RTE_DIM(objs) || out + got == 50, "short drain %u at %u", got, out);
		for (i = 0; i < got; i++, out++)
			if (objs[i] != &tok[out])
				bad++;
	}
	SB_CHECK(out == 50 && bad == 0, "released %u, %u out of order", out, bad);
	SB_CHECK(stats(r).in_order == 1 && stats(r).reordered == 49, "only 0 came in order");
	sb_reorder_free(r, NULL, NULL);
}

/* With no active path only the timeout releases a gap; drain alone drives it. */
static void
test_timeout(void)
{
	struct sb_reorder *r = mk(64, 100, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	uint64_t now;
	unsigned int early = 0;

	put(r, 0, 0, 0);
	EXPECT(r, 0, 0);
	put(r, 0, 3, 10);	/* 1 and 2 missing... */
	put(r, 1, 2, 50);	/* ...then 2 arrives: only 1 missing */
	for (now = 10; now < 110; now++) {
		void *objs[4];

		early += sb_reorder_drain(r, objs, 4, now);
	}
	SB_CHECK(early == 0, "released %u frames before the timeout", early);
	SB_CHECK(stats(r).lost_timeout == 0, "gap skipped early");
	/* The frame held longest (3, since t=10) sets the deadline, not the first after the
	 * gap (2, since t=50): no frame waits more than the timeout. */
	EXPECT(r, 110, 2, 3);
	st = stats(r);
	SB_CHECK(st.lost_timeout == 1 && st.lost_rule == 0, "lost_timeout %" PRIu64,
		st.lost_timeout);
	SB_CHECK(st.hold_max == 100, "hold_max %" PRIu64, st.hold_max);
	SB_CHECK(st.reordered == 2 && st.in_order == 1, "reordered %" PRIu64 " in_order %"
		PRIu64, st.reordered, st.in_order);
	for (now = 110; now < 400; now += 7)
		EXPECT_NONE(r, now);
	SB_CHECK(stats(r).lost_timeout == 1, "gap counted twice");

	/* Two gaps (4 and 6): both go when the oldest frame (7) times out. */
	put(r, 0, 7, 400);
	put(r, 1, 5, 450);
	EXPECT_NONE(r, 499);
	EXPECT(r, 500, 5, 7);
	SB_CHECK(stats(r).lost_timeout == 3, "lost_timeout %" PRIu64, stats(r).lost_timeout);
	SB_CHECK(sb_reorder_next_seq(r) == 8, "next %u", sb_reorder_next_seq(r));

	/* An active path that never delivered keeps the rule off: the timeout still works. */
	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 5, true);
	put(r, 0, 9, 600);
	EXPECT_NONE(r, 699);
	EXPECT(r, 700, 9);
	st = stats(r);
	SB_CHECK(st.lost_timeout == 4 && st.lost_rule == 0, "lost_timeout %" PRIu64
		" lost_rule %" PRIu64, st.lost_timeout, st.lost_rule);
	sb_reorder_free(r, NULL, NULL);
}

/* RFC 1990 s.4.1: a gap goes at once when every active path has passed it. */
static void
test_rule(void)
{
	struct sb_reorder *r = mk(64, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	const uint64_t t = 5;	/* the same instant throughout: only the rule can release */
	struct sb_reorder_stats st;

	SB_CHECK(sb_reorder_path_set_active(r, SB_REORDER_MAX_PATHS, true) == -EINVAL,
		"path 32 accepted");
	SB_CHECK(sb_reorder_path_set_active(r, 0, true) == 0, "path 0");
	sb_reorder_path_set_active(r, 1, true);
	sb_reorder_path_set_active(r, 2, true);

	put(r, 0, 0, t);
	EXPECT(r, t, 0);
	put(r, 1, 2, t);	/* 1 missing; path 2 not heard yet */
	EXPECT_NONE(r, t);
	put(r, 2, 3, t);	/* path 0 still at 0: 1 may come on it */
	EXPECT_NONE(r, t);
	put(r, 3, 4, t);	/* inactive path 3 does not count either way */
	EXPECT_NONE(r, t);
	put(r, 0, 5, t);	/* all active paths past 1 */
	EXPECT(r, t, 2, 3, 4, 5);
	st = stats(r);
	SB_CHECK(st.lost_rule == 1 && st.lost_timeout == 0, "lost_rule %" PRIu64,
		st.lost_rule);

	/* Path 2 idles at 3: gaps 6 and 7 stay until it goes inactive. */
	put(r, 0, 8, t);
	put(r, 1, 9, t);
	EXPECT_NONE(r, t);
	EXPECT_NONE(r, t + 1000);
	SB_CHECK(sb_reorder_path_set_active(r, 2, false) == 0, "deactivate");
	EXPECT(r, t, 8, 9);
	SB_CHECK(stats(r).lost_rule == 3, "lost_rule %" PRIu64, stats(r).lost_rule);

	/* The bound is the smallest high: with path 0 at 14 and path 1 at 13, gaps 10 and 12
	 * go; then 15 stays missing until path 0 passes it too. */
	put(r, 0, 11, t);
	put(r, 1, 13, t);
	put(r, 0, 14, t);
	EXPECT(r, t, 11, 13, 14);
	put(r, 1, 16, t);
	EXPECT_NONE(r, t);
	put(r, 0, 18, t);	/* bound 16: 15 lost, 17 not (< 16 fails) */
	EXPECT(r, t, 16);
	SB_CHECK(sb_reorder_next_seq(r) == 17, "next %u", sb_reorder_next_seq(r));
	st = stats(r);
	SB_CHECK(st.lost_rule == 6 && st.lost_timeout == 0, "lost_rule %" PRIu64
		" lost_timeout %" PRIu64, st.lost_rule, st.lost_timeout);
	SB_CHECK(st.occupancy == 1, "occupancy %u", st.occupancy);
	put(r, 1, 19, t);
	EXPECT(r, t, 18, 19);
	SB_CHECK(stats(r).lost_rule == 7, "lost_rule %" PRIu64, stats(r).lost_rule);
	sb_reorder_free(r, NULL, NULL);
}

/* An idle active path keeps holding the rule back even after next has moved on by more
 * than half the sequence space since its last frame (serial arithmetic alone would then see
 * that old frame as ahead). */
static void
test_rule_idle_wrap(void)
{
	struct sb_reorder *r = mk(16, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	uint32_t seq = 0;
	void *objs[4];
	unsigned int k;

	sb_reorder_path_set_active(r, 0, true);
	put(r, 1, 0, 0);	/* path 1 delivers 0, then idles */
	EXPECT(r, 0, 0);
	for (k = 0; k < 3; k++) {
		/* Path 1 inactive: the rule (path 0 alone) skips each slide's gap. */
		seq += (UINT32_C(1) << 30) - 1;
		jump(r, 0, seq, k);
		SB_CHECK(sb_reorder_drain(r, objs, 4, k) == 1, "slide %u not released", k);
	}
	SB_CHECK(sb_reorder_next_seq(r) == seq + 1, "next %u", sb_reorder_next_seq(r));
	sb_reorder_path_set_active(r, 1, true);
	put(r, 0, seq + 2, 10);
	put(r, 0, seq + 3, 10);
	SB_CHECK(sb_reorder_drain(r, objs, 4, 10) == 0, "idle path 1 did not hold the gap");
	sb_reorder_path_set_active(r, 1, false);
	SB_CHECK(sb_reorder_drain(r, objs, 4, 10) == 2, "gap kept with path 1 inactive");
	sb_reorder_free(r, NULL, NULL);
}

static void
test_late_dup_range(void)
{
	struct sb_reorder *r = mk(16, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats before, after;

	put(r, 0, 0, 0);
	put(r, 0, 1, 0);
	EXPECT(r, 0, 0, 1);
	VERDICT(r, 0, 1, &tok[1], 0, SB_REORDER_LATE_DROPPED, "late verdict %d");
	put(r, 0, 3, 0);
	VERDICT(r, 1, 3, &tok[3], 0, SB_REORDER_DUPLICATE, "duplicate verdict %d");
	after = stats(r);
	SB_CHECK(after.late == 1 && after.duplicate == 1, "late %" PRIu64 " dup %" PRIu64,
		after.late, after.duplicate);

	/* Out of range: state unchanged. */
	before = stats(r);
	VERDICT(r, 0, 2 + (UINT32_C(1) << 30), &tok[9], 0, SB_REORDER_OUT_OF_RANGE,
		"max_jump ahead: verdict %d");
	VERDICT(r, 0, 2 + (UINT32_C(1) << 31) - 1, &tok[9], 0, SB_REORDER_OUT_OF_RANGE,
		"half space ahead: verdict %d");
	VERDICT(r, 0, 2 + (UINT32_C(1) << 31), &tok[9], 0, SB_REORDER_OUT_OF_RANGE,
		"exactly half space: verdict %d");
	after = stats(r);
	SB_CHECK(after.out_of_range == before.out_of_range + 3, "out_of_range %" PRIu64,
		after.out_of_range);
	after.out_of_range = before.out_of_range;
	SB_CHECK(memcmp(&after, &before, sizeof(after)) == 0, "stats moved on out of range");
	SB_CHECK(sb_reorder_next_seq(r) == 2, "next moved: %u", sb_reorder_next_seq(r));
	/* Just under half space behind is late, not out of range. */
	VERDICT(r, 0, 2 + (UINT32_C(1) << 31) + 1, &tok[9], 0, SB_REORDER_LATE_DROPPED,
		"far behind: verdict %d");

	VERDICT(r, SB_REORDER_MAX_PATHS, 2, &tok[2], 0, SB_REORDER_BAD_PATH, "path 32: verdict %d");
	VERDICT(r, 1000, 2, &tok[2], 0, SB_REORDER_BAD_PATH, "path 1000: verdict %d");
	SB_CHECK(stats(r).bad_path == 2, "bad_path %" PRIu64, stats(r).bad_path);

	/* The window still works: 2 fills the gap. */
	put(r, 0, 2, 0);
	EXPECT(r, 0, 2, 3);
	sb_reorder_free(r, NULL, NULL);

	/* Deliver policy. */
	r = mk(16, BIG_TIMEOUT, 0, SB_REORDER_LATE_DELIVER);
	put(r, 0, 5, 0);
	EXPECT(r, 0, 5);
	VERDICT(r, 0, 4, &tok[4], 0, SB_REORDER_LATE_DELIVERED, "late deliver verdict %d");
	VERDICT(r, 0, 5, &tok[5], 0, SB_REORDER_LATE_DELIVERED, "late deliver verdict %d");
	SB_CHECK(stats(r).late == 2, "late %" PRIu64, stats(r).late);
	sb_reorder_free(r, NULL, NULL);

	/* A configured max_jump: 99 ahead slides, 100 ahead is rejected. */
	r = mk(16, BIG_TIMEOUT, 100, SB_REORDER_LATE_DROP);
	put(r, 0, 0, 0);
	EXPECT(r, 0, 0);
	VERDICT(r, 0, 101, &tok[101], 0, SB_REORDER_OUT_OF_RANGE, "100 ahead: verdict %d");
	jump(r, 0, 100, 0);
	/* next 1 -> 85 (100 - window + 1): 1..84 lost. */
	SB_CHECK(stats(r).lost_slide == 84, "lost_slide %" PRIu64, stats(r).lost_slide);
	SB_CHECK(sb_reorder_next_seq(r) == 85, "next %u", sb_reorder_next_seq(r));
	sb_reorder_free(r, NULL, NULL);
}

/*
 * Policy fill: a late frame is delivered when the window skipped its number and has not
 * delivered it since (timeout, RFC 1990 rule or slide), once; a copy of a released frame,
 * or a second copy of a filled one, is dropped. Reset forgets the skipped numbers.
 */
/* Offer tok[seq] late and check the verdict @p want (policy fill's deliver or drop). */
static void
late_verdict(struct sb_reorder *r, unsigned int path, uint32_t seq, uint64_t now,
	enum sb_reorder_verdict want, int line)
{
	enum sb_reorder_verdict v = sb_reorder_insert(r, path, seq, &tok[seq % NTOK], now);

	SB_CHECK(v == want, "line %d: late seq %u: verdict %d, want %d", line, seq, v, want);
}

static void
test_late_fill(void)
{
	struct sb_reorder *r = mk(8, 100, 0, SB_REORDER_LATE_FILL);
	unsigned int s;

	put(r, 0, 0, 0);
	EXPECT(r, 0, 0);
	/* Timeout: 1 is skipped after 3 waited 100. */
	put(r, 0, 2, 10);
	EXPECT_NONE(r, 109);
	EXPECT(r, 110, 2);
	late_verdict(r, 1, 0, 111, SB_REORDER_LATE_DROPPED, __LINE__);
	late_verdict(r, 1, 2, 111, SB_REORDER_LATE_DROPPED, __LINE__);
	late_verdict(r, 1, 1, 112, SB_REORDER_LATE_DELIVERED, __LINE__);
	late_verdict(r, 1, 1, 113, SB_REORDER_LATE_DROPPED, __LINE__);
	SB_CHECK(stats(r).late == 4 && stats(r).late_filled == 1, "late %" PRIu64
		" late_filled %" PRIu64, stats(r).late, stats(r).late_filled);

	/* RFC 1990 rule: paths 0 and 1 both passed 4, so 3 and 4 are skipped at once. */
	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	put(r, 0, 5, 200);
	put(r, 1, 6, 200);
	EXPECT(r, 200, 5, 6);
	SB_CHECK(stats(r).lost_rule == 2, "lost_rule %" PRIu64, stats(r).lost_rule);
	late_verdict(r, 0, 4, 201, SB_REORDER_LATE_DELIVERED, __LINE__);
	late_verdict(r, 0, 3, 201, SB_REORDER_LATE_DELIVERED, __LINE__);

	/* Slide: 30 is 23 ahead of 7 in a window of 8 (next -> 23). 7..22 are skipped, but
	 * each slot remembers only its last one: 15..22 fill, 7..14 are dropped. */
	jump(r, 0, 30, 300);
	for (s = 7; s < 23; s++) {
		late_verdict(r, 1, s, 301, s >= 15 ? SB_REORDER_LATE_DELIVERED :
			SB_REORDER_LATE_DROPPED, __LINE__);
	}
	SB_CHECK(stats(r).late_filled == 11, "late_filled %" PRIu64, stats(r).late_filled);

	/* A reset peer numbers afresh: nothing of the old numbering fills. */
	put(r, 0, 23, 400);
	sb_reorder_reset(r, NULL, NULL);
	put(r, 0, 40, 500);
	EXPECT(r, 500, 40);
	late_verdict(r, 0, 20, 501, SB_REORDER_LATE_DROPPED, __LINE__);
	sb_reorder_free(r, NULL, NULL);

	/* Policy drop delivers nothing late, skipped or not. */
	r = mk(8, 100, 0, SB_REORDER_LATE_DROP);
	put(r, 0, 0, 0);
	put(r, 0, 2, 0);
	EXPECT(r, 100, 0, 2);
	late_verdict(r, 0, 1, 101, SB_REORDER_LATE_DROPPED, __LINE__);
	SB_CHECK(stats(r).late_filled == 0, "late_filled %" PRIu64, stats(r).late_filled);
	sb_reorder_free(r, NULL, NULL);
}

static void
test_slide(void)
{
	struct sb_reorder *r = mk(8, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	unsigned int freed = 0;

	put(r, 0, 0, 0);
	EXPECT(r, 0, 0);
	put(r, 0, 2, 1);
	put(r, 0, 3, 2);
	put(r, 0, 5, 3);
	/* 12 is 11 ahead of 1 in a window of 8: next becomes 5; 2 and 3 leave, 1 and 4 lost. */
	jump(r, 0, 12, 7);
	st = stats(r);
	SB_CHECK(sb_reorder_next_seq(r) == 5, "next %u", sb_reorder_next_seq(r));
	SB_CHECK(st.lost_slide == 2, "lost_slide %" PRIu64, st.lost_slide);
	SB_CHECK(st.occupancy == 4, "occupancy %u", st.occupancy);
	SB_CHECK(st.hold_max == 6, "hold_max %" PRIu64, st.hold_max);
	expect_drain(r, 7, 1, (const uint32_t[]){ 2 }, 1, __LINE__);
	EXPECT(r, 7, 3, 5);
	VERDICT(r, 0, 4, &tok[4], 8, SB_REORDER_LATE_DROPPED, "slid-over seq: verdict %d");
	/* Far slide: 112 from next 6 moves next to 105; 12 leaves; 6..104 except 12 lost. */
	VERDICT(r, 0, 112, &tok[112], 9, SB_REORDER_STRAY, "far slide, unconfirmed: verdict %d");
	VERDICT(r, 0, 112, &tok[112], 9, SB_REORDER_HELD, "far slide confirmed: verdict %d");
	SB_CHECK(stats(r).lost_slide == 2 + 98, "lost_slide %" PRIu64, stats(r).lost_slide);
	SB_CHECK(sb_reorder_next_seq(r) == 105, "next %u", sb_reorder_next_seq(r));
	EXPECT(r, 9, 12);
	put(r, 0, 105, 9);
	EXPECT(r, 9, 105);
	st = stats(r);
	SB_CHECK(st.reordered == 4 && st.in_order == 2, "reordered %" PRIu64 " in_order %"
		PRIu64, st.reordered, st.in_order);
	sb_reorder_free(r, count_free, &freed);
	SB_CHECK(freed == 1, "freed %u", freed);

	/* The release queue holds one window: a second slide before drain that might not fit
	 * is refused with the state unchanged. */
	r = mk(4, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	SB_CHECK(sb_reorder_set_next(r, 0) == 0, "set_next");
	put(r, 0, 1, 0);
	put(r, 0, 2, 0);
	put(r, 0, 3, 0);
	SB_CHECK(sb_reorder_set_next(r, 0) == -EBUSY, "set_next while holding");
	jump(r, 0, 7, 0);	/* next 4; 1, 2, 3 queued; 0 lost */
	put(r, 0, 5, 0);
	put(r, 0, 6, 0);
	VERDICT(r, 0, 11, &tok[11], 0, SB_REORDER_STRAY, "11 unconfirmed: verdict %d");
	VERDICT(r, 0, 11, &tok[11], 0, SB_REORDER_OUT_OF_RANGE,
		"slide over a full queue: verdict %d");
	st = stats(r);
	SB_CHECK(st.lost_slide == 1 && st.occupancy == 6 && sb_reorder_next_seq(r) == 4,
		"state changed: lost_slide %" PRIu64 " occupancy %u next %u", st.lost_slide,
		st.occupancy, sb_reorder_next_seq(r));
	EXPECT(r, 0, 1, 2, 3);
	jump(r, 0, 11, 0);	/* fits now: 5, 6, 7 queued, 4 lost, next 8 */
	EXPECT(r, 0, 5, 6, 7);
	st = stats(r);
	SB_CHECK(st.lost_slide == 2 && st.occupancy == 1, "lost_slide %" PRIu64
		" occupancy %u", st.lost_slide, st.occupancy);
	freed = 0;
	sb_reorder_free(r, count_free, &freed);
	SB_CHECK(freed == 1, "freed %u", freed);
}

/* One stray frame a window or more ahead (a corrupt or injected sequence number) costs only
 * itself: it is dropped and counted, the window does not move, and traffic goes on. A real
 * jump is taken at its second frame. (RFC 5961 accepts an out-of-window segment only once
 * confirmed, for the same reason.) */
static void
test_stray(void)
{
	struct sb_reorder *r = mk(64, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	uint32_t i;

	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	for (i = 0; i < 10; i++)
		put(r, i & 1, i, 0);
	EXPECT(r, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
	/* A stray 100000 ahead, then the stream goes on: nothing moves. */
	VERDICT(r, 0, 100010, &tok[0], 1, SB_REORDER_STRAY, "stray verdict %d");
	for (i = 10; i < 20; i++)
		put(r, i & 1, i, 1);
	EXPECT(r, 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
	st = stats(r);
	SB_CHECK(st.stray == 1 && st.lost_slide == 0 && st.late == 0 && st.out_of_range == 0,
		"stray %" PRIu64 " slide %" PRIu64 " late %" PRIu64, st.stray, st.lost_slide,
		st.late);
	/* Two strays in a row but far apart (two unrelated bad frames): still nothing. */
	VERDICT(r, 1, 5000, &tok[0], 2, SB_REORDER_STRAY, "stray 1 verdict %d");
	VERDICT(r, 0, 900000, &tok[0], 2, SB_REORDER_STRAY, "stray 2 verdict %d");
	put(r, 0, 20, 2);
	EXPECT(r, 2, 20);
	SB_CHECK(sb_reorder_next_seq(r) == 21 && stats(r).lost_slide == 0, "window unmoved");
	/* A real jump (the sender's numbers moved on by more than the window): its first
	 * frame is dropped, the second (here on the other path) confirms, and the frames
	 * that follow ride on it. */
	VERDICT(r, 0, 1000, &tok[1000 % NTOK], 3, SB_REORDER_STRAY,
		"jump, first frame: verdict %d");
	for (i = 1001; i < 1010; i++)
		put(r, i & 1, i, 3);
	SB_CHECK(sb_reorder_next_seq(r) == 1009 - 63, "window follows the jump: next %u",
		sb_reorder_next_seq(r));
	/* The gap before the first frame after the jump goes by the rule once both paths
	 * have delivered past it. */
	EXPECT(r, 3, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009);
	st = stats(r);
	SB_CHECK(st.stray == 4 && st.lost_slide + st.lost_rule == 1001 - 21, "stray %" PRIu64
		" lost %" PRIu64, st.stray, st.lost_slide + st.lost_rule);
	sb_reorder_free(r, NULL, NULL);
}

/* free() and reset() hand back every object, in the ring and in the release queue. */
static void
test_free_reset(void)
{
	struct sb_reorder *r = mk(16, BIG_TIMEOUT, 0, SB_REORDER_LATE_DROP);
	struct sb_reorder_stats st;
	unsigned int freed = 0, i;

	sb_reorder_set_next(r, 0);
	for (i = 1; i < 16; i += 2)
		put(r, 0, i, 0);	/* 8 held, 0 missing */
	jump(r, 0, 40, 0);	/* slide to 25: 1, 3, ..., 15 queued, 40 held */
	put(r, 0, 30, 0);
	put(r, 0, 31, 0);
	st = stats(r);
	SB_CHECK(st.occupancy == 11 && st.occupancy_hwm == 11, "occupancy %u hwm %u",
		st.occupancy, st.occupancy_hwm);
	sb_reorder_reset(r, count_free, &freed);
	SB_CHECK(freed == 11, "reset freed %u of 11", freed);
	st = stats(r);
	SB_CHECK(st.occupancy == 0 && st.lost_slide != 0, "reset: occupancy %u, counters kept",
		st.occupancy);
	/* The next frame sets next, whatever it is. */
	put(r, 0, 200, 0);
	SB_CHECK(sb_reorder_next_seq(r) == 200, "next after reset %u", sb_reorder_next_seq(r));
	EXPECT(r, 0, 200);
	for (i = 202; i < 216; i++)
		put(r, 1, i, 0);
	jump(r, 1, 230, 0);	/* slide: 202..214 queued */
	freed = 0;
	sb_reorder_free(r, count_free, &freed);
	SB_CHECK(freed == 15, "free returned %u of 15", freed);
}

/* ---- Forged jumps (defence in depth, no cluster key) ---- */

static int forged_tok[8];

static struct sb_reorder *
mk_guarded(uint32_t window, uint32_t confirm, uint32_t (*bound)(void *, uint64_t), void *arg)
{
	struct sb_reorder_conf conf = {
		.window = window, .timeout = BIG_TIMEOUT, .late_policy = SB_REORDER_LATE_DROP,
		.jump_confirm = confirm, .jump_bound = bound, .jump_bound_arg = arg,
	};

	return create(&conf, "guarded window", "");
}

/*
 * The case: a peer pinged once per 1000 clock units over two paths; after its 10th
 * frame, two forged DATA frames far ahead arrive in a row on path 0 (its port MAC and path
 * id as learnt). @return honest frames of 30 delivered. With jump_confirm 0 (as before) the
 * second confirms the jump and every later frame is late; with jump_confirm set, one path
 * cannot confirm a jump while two carry the peer's frames.
 */
static unsigned int
ping_through_forgery(uint32_t confirm)
{
	struct sb_reorder *r = mk_guarded(64, confirm, NULL, NULL);
	void *objs[8];
	unsigned int s, got = 0, n;
	uint64_t now = 1000;

	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	for (s = 0; s < 30; s++, now += 1000) {
		if (s == 10) {
			sb_reorder_insert(r, 0, 100000, &forged_tok[0], now);
			sb_reorder_insert(r, 0, 100001, &forged_tok[1], now);
		}
		sb_reorder_insert(r, s & 1, s, &tok[s], now);
		n = sb_reorder_drain(r, objs, RTE_DIM(objs), now);
		got += n >= 1 && objs[n - 1] == &tok[s];
	}
	sb_reorder_free(r, NULL, NULL);
	return got;
}

static void
test_forged_jump(void)
{
	struct sb_reorder *r;
	struct sb_reorder_stats st;
	unsigned int got, i;

	got = ping_through_forgery(0);
	SB_CHECK(got == 10, "unguarded: the forged pair moves the window, %u of 30 delivered",
		got);
	got = ping_through_forgery(3);
	SB_CHECK(got == 30, "guarded: every honest frame delivered, %u of 30", got);

	/* Two paths active: ten forged frames in order on path 0 stay strays; an honest jump
	 * (its frames arriving on both paths) is taken at its second frame. */
	r = mk_guarded(64, 3, NULL, NULL);
	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	for (i = 0; i < 4; i++)
		put(r, i & 1, i, 0);
	EXPECT(r, 0, 0, 1, 2, 3);
	for (i = 0; i < 10; i++) {
		VERDICT(r, 0, 5000 + i, &forged_tok[0], 1, SB_REORDER_STRAY,
			"forged frame %u on one path: verdict %d", i);
	}
	SB_CHECK(sb_reorder_next_seq(r) == 4 && stats(r).lost_slide == 0, "window unmoved");
	put(r, 0, 4, 2);
	EXPECT(r, 2, 4);
	VERDICT(r, 0, 200, &tok[200], 3, SB_REORDER_STRAY, "honest jump, first frame: verdict %d");
	VERDICT(r, 0, 201, &tok[201], 3, SB_REORDER_STRAY, "honest jump, same path: verdict %d");
	put(r, 1, 202, 3);	/* the other path confirms */
	put(r, 0, 203, 3);	/* and the followers ride on it */
	SB_CHECK(sb_reorder_next_seq(r) == 203 - 63, "window follows the jump: next %u",
		sb_reorder_next_seq(r));
	sb_reorder_path_set_active(r, 1, false);
	EXPECT(r, 3, 202, 203);
	st = stats(r);
	SB_CHECK(st.stray == 12 && st.jump_refused == 0, "strays %" PRIu64, st.stray);
	sb_reorder_free(r, NULL, NULL);

	/* One path active: the jump's own frames confirm it, 3 after the first, each after
	 * the one before (a repeated number does not count). */
	r = mk_guarded(64, 3, NULL, NULL);
	sb_reorder_path_set_active(r, 0, true);
	put(r, 0, 0, 0);
	EXPECT(r, 0, 0);
	for (i = 0; i < 3; i++) {
		VERDICT(r, 0, 100 + i, &tok[100 + i], 1, SB_REORDER_STRAY,
			"single path, frame %u: verdict %d", i);
	}
	VERDICT(r, 0, 102, &tok[102], 1, SB_REORDER_STRAY, "a repeated number: verdict %d");
	put(r, 0, 103, 1);
	EXPECT(r, 1, 103);
	put(r, 0, 104, 1);
	EXPECT(r, 1, 104);
	sb_reorder_free(r, NULL, NULL);
}

/* A jump bound of 10 frames per clock unit since the last release in order. */
static uint64_t bound_elapsed;

static uint32_t
bound_10_per_unit(void *arg, uint64_t elapsed)
{
	RTE_SET_USED(arg);
	bound_elapsed = elapsed;
	return elapsed > UINT32_MAX / 10 ? UINT32_MAX : (uint32_t)elapsed * 10;
}

/* Counters of windows add up (the datapath sums the windows of peers that left): frames
 * add, the high-water mark and the longest hold keep the larger. */
static void
test_stats_add(void)
{
	struct sb_reorder_stats sum = { .in_order = 5, .late = 1, .jump_refused = 2,
		.occupancy_hwm = 9, .hold_max = 100 };
	const struct sb_reorder_stats st = { .in_order = 7, .reordered = 3, .late = 4,
		.late_filled = 1, .duplicate = 2, .out_of_range = 6, .stray = 8, .jump_refused = 1,
		.bad_path = 1, .lost_rule = 2, .lost_timeout = 3, .lost_slide = 4, .occupancy = 5,
		.occupancy_hwm = 4, .hold_max = 300 };

	sb_reorder_stats_add(&sum, &st);
	SB_CHECK(sum.in_order == 12 && sum.reordered == 3 && sum.late == 5 &&
		sum.late_filled == 1 && sum.duplicate == 2 && sum.out_of_range == 6 &&
		sum.stray == 8 && sum.jump_refused == 3 && sum.bad_path == 1 &&
		sum.lost_rule == 2 && sum.lost_timeout == 3 && sum.lost_slide == 4 &&
		sum.occupancy == 5, "stats add: frame counts add up");
	SB_CHECK(sum.occupancy_hwm == 9 && sum.hold_max == 300,
		"stats add: high-water mark and longest hold keep the larger");
}

/*
 * A confirmed jump is taken only when no larger than the caller's bound: 1000 frames 1
 * clock unit after the last release in order (bound 10) is refused, the window unchanged
 * and traffic goes on; the same jump 200 units after (bound 2000) is taken.
 */
static void
test_jump_bound(void)
{
	struct sb_reorder *r = mk_guarded(64, 3, bound_10_per_unit, NULL);
	enum sb_reorder_verdict v;

	sb_reorder_path_set_active(r, 0, true);
	sb_reorder_path_set_active(r, 1, true);
	put(r, 0, 0, 100);
	put(r, 1, 1, 100);
	EXPECT(r, 100, 0, 1);
	VERDICT(r, 0, 1000, &forged_tok[0], 101, SB_REORDER_STRAY, "jump, first: verdict %d");
	v = sb_reorder_insert(r, 1, 1001, &forged_tok[1], 101);
	SB_CHECK(v == SB_REORDER_OUT_OF_RANGE && bound_elapsed == 1,
		"jump of 1000 one unit after the last in order: refused (%d, elapsed %" PRIu64
		")", v, bound_elapsed);
	SB_CHECK(stats(r).jump_refused == 1 && sb_reorder_next_seq(r) == 2 &&
		stats(r).lost_slide == 0, "refused: counted, window unchanged");
	put(r, 0, 2, 102);
	EXPECT(r, 102, 2);
	VERDICT(r, 0, 1000, &tok[1000 % NTOK], 302, SB_REORDER_STRAY,
		"later jump, first: verdict %d");
	v = sb_reorder_insert(r, 1, 1001, &tok[1001 % NTOK], 302);
	SB_CHECK(v == SB_REORDER_HELD && bound_elapsed == 200,
		"jump of 1000 200 units after: taken (%d, elapsed %" PRIu64 ")", v, bound_elapsed);
	SB_CHECK(sb_reorder_next_seq(r) == 1001 - 63, "next %u", sb_reorder_next_seq(r));
	sb_reorder_free(r, NULL, NULL);
}

/* ---- Randomised: per-path FIFO paths, random interleaving, random losses. ---- */

static uint64_t rng;

/* Reproducible per seed, no libc state (sb_test_rand()). */
static uint32_t
rnd(void)
{
	return sb_test_rand(&rng);
}

enum mode { MODE_RULE, MODE_TIMEOUT, MODE_BOTH };
static const char *const mode_name[] = { "rule", "timeout", "both" };

#define RP 4		/* paths */
#define RD 200		/* most a frame may be sent ahead of the earliest unsent */

struct rstate {
	struct sb_reorder *r;
	uint32_t *frames;	/* frames[i] = i, the object for seq base + i */
	uint8_t *delivered;
	int64_t last;		/* index last released */
	unsigned int errors;
	unsigned int ndelivered;
};

static void
rdrain(struct rstate *s, uint64_t now)
{
	void *objs[64];
	unsigned int n, got, i;

	do {
		n = 1 + rnd() % 64;
		got = sb_reorder_drain(s->r, objs, n, now);
		for (i = 0; i < got; i++) {
			int64_t idx = (uint32_t *)objs[i] - s->frames;

			if (idx <= s->last || s->delivered[idx]) {
				if (s->errors++ < 5)
					fprintf(stderr, "released %" PRId64 " after %" PRId64 "\n",
						idx, s->last);
			}
			s->delivered[idx]++;
			s->last = idx;
			s->ndelivered++;
		}
	} while (got == n);
}

static void
run_random(uint64_t seed, uint32_t base, enum mode mode, unsigned int nframes)
{
	const uint64_t timeout = mode == MODE_RULE ? BIG_TIMEOUT : 10 * RD;
	uint32_t *q[RP], qh[RP] = { 0 }, qt[RP] = { 0 };
	uint8_t *lost = calloc(nframes, 1);
	struct rstate s = { .last = -1 };
	struct sb_reorder_stats st;
	unsigned int i, p, sent = 0, ndropped = 0, nkept = 0, bad_verdict = 0, burst = 0;
	unsigned int expect_lost = 0, last_kept = 0, missing = 0;
	uint64_t now = 0;

	rng = seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
	s.frames = malloc(nframes * sizeof(*s.frames));
	s.delivered = calloc(nframes, 1);
	for (p = 0; p < RP; p++)
		q[p] = malloc(nframes * sizeof(uint32_t));
	if (lost == NULL || s.frames == NULL || s.delivered == NULL)
		exit(1);

	/* Assign each seq to a path or to loss; each path is a FIFO queue. */
	for (i = 0; i < nframes; i++) {
		s.frames[i] = i;
		if (rnd() % 1000 < 30) {
			lost[i] = 1;
			ndropped++;
			continue;
		}
		/* In "both" mode path RP - 1 is nearly idle (one frame in 3000), so it often holds
		 * the rule back and the timeout has to act too. */
		if (mode == MODE_BOTH && rnd() % 3000 != 0)
			p = rnd() % (RP - 1);
		else
			p = rnd() % RP;
		q[p][qt[p]++] = i;
		nkept++;
		last_kept = i;
	}
	for (i = 0; i < last_kept; i++)
		expect_lost += lost[i];

	/* Room for everything that arrives while a gap waits for its timeout: no slides. */
	s.r = mk(4096, timeout, 0, SB_REORDER_LATE_DROP);
	sb_reorder_set_next(s.r, base);
	if (mode != MODE_TIMEOUT)
		for (p = 0; p < RP; p++)
			sb_reorder_path_set_active(s.r, p, true);

	/* Interleave the queues at random among those whose next frame is at most RD after the
	 * earliest frame not yet sent: bounded displacement, like paths of bounded delay skew. */
	while (sent < nkept) {
		uint32_t lo = UINT32_MAX;
		unsigned int pick;

		for (p = 0; p < RP; p++)
			if (qh[p] != qt[p] && q[p][qh[p]] < lo)
				lo = q[p][qh[p]];
		do
			pick = rnd() % RP;
		while (qh[pick] == qt[pick] || q[pick][qh[pick]] > lo + RD);
		i = q[pick][qh[pick]++];
		if (sb_reorder_insert(s.r, pick, base + i, &s.frames[i], now) != SB_REORDER_HELD)
			bad_verdict++;
		sent++;
		now++;
		if (++burst >= 1 + rnd() % 32) {
			rdrain(&s, now);
			burst = 0;
		}
	}
	rdrain(&s, now);
	st = stats(s.r);
	if (getenv("SB_TEST_VERBOSE") != NULL)
		printf("%s seed %" PRIu64 " base %u: in_order %" PRIu64 " reordered %" PRIu64
			" lost_rule %" PRIu64 " lost_timeout %" PRIu64 " hold_max %" PRIu64
			" hwm %u\n", mode_name[mode], seed, base, st.in_order, st.reordered,
			st.lost_rule, st.lost_timeout, st.hold_max, st.occupancy_hwm);
	if (mode == MODE_RULE)
		SB_CHECK(st.lost_timeout == 0, "%s seed %" PRIu64 ": lost_timeout %" PRIu64
			" with an infinite timeout", mode_name[mode], seed, st.lost_timeout);
	if (mode != MODE_RULE)
		SB_CHECK(st.hold_max <= timeout + 32, "%s seed %" PRIu64 ": hold_max %" PRIu64,
			mode_name[mode], seed, st.hold_max);
	/* Traffic over: the timeout releases what the rule cannot (gaps near the end). */
	rdrain(&s, now + timeout);
	st = stats(s.r);

	for (i = 0; i < nframes; i++)
		if (!lost[i] && s.delivered[i] != 1)
			missing++;
	SB_CHECK(s.errors == 0, "%s seed %" PRIu64 " base %u: %u order/duplicate errors",
		mode_name[mode], seed, base, s.errors);
	SB_CHECK(bad_verdict == 0 && missing == 0 && s.ndelivered == nkept,
		"%s seed %" PRIu64 " base %u: %u bad verdicts, %u not delivered once, %u of %u out",
		mode_name[mode], seed, base, bad_verdict, missing, s.ndelivered, nkept);
	SB_CHECK(st.lost_rule + st.lost_timeout == expect_lost && st.lost_slide == 0,
		"%s seed %" PRIu64 " base %u: lost rule %" PRIu64 " + timeout %" PRIu64
		" != %u dropped (slide %" PRIu64 ")", mode_name[mode], seed, base, st.lost_rule,
		st.lost_timeout, expect_lost, st.lost_slide);
	SB_CHECK(mode != MODE_TIMEOUT || st.lost_rule == 0, "rule used with no active path");
	SB_CHECK(mode != MODE_RULE || st.lost_rule > expect_lost * 9 / 10,
		"%s: rule found only %" PRIu64 " of %u", mode_name[mode], st.lost_rule,
		expect_lost);
	SB_CHECK(mode != MODE_BOTH || (st.lost_rule > expect_lost / 20 &&
		st.lost_timeout > expect_lost / 20), "both: lost_rule %" PRIu64 " lost_timeout %"
		PRIu64, st.lost_rule, st.lost_timeout);
	/* Sanity of the generator: real reordering, and with the rule some frames in order. */
	SB_CHECK(st.in_order + st.reordered == nkept && st.reordered > nkept / 4 &&
		(mode != MODE_RULE || st.in_order > nkept / 100),
		"%s: in_order %" PRIu64 " reordered %" PRIu64, mode_name[mode], st.in_order,
		st.reordered);
	SB_CHECK(st.late == 0 && st.duplicate == 0 && st.out_of_range == 0 &&
		st.occupancy == 0, "%s: late %" PRIu64 " dup %" PRIu64 " occupancy %u",
		mode_name[mode], st.late, st.duplicate, st.occupancy);
	SB_CHECK(sb_reorder_next_seq(s.r) == base + last_kept + 1, "%s: next %u",
		mode_name[mode], sb_reorder_next_seq(s.r));

	sb_reorder_free(s.r, NULL, NULL);
	for (p = 0; p < RP; p++)
		free(q[p]);
	free(lost);
	free(s.frames);
	free(s.delivered);
}

static void
test_random(unsigned int nframes)
{
	static const uint32_t bases[] = { 0, UINT32_C(0xFFFFFFFF) - 5000 + 1 };
	unsigned int b, m;
	uint64_t seed;

	for (b = 0; b < RTE_DIM(bases); b++)
		for (m = MODE_RULE; m <= MODE_BOTH; m++)
			for (seed = 1; seed <= 3; seed++)
				run_random(seed + 10 * m + 100 * b, bases[b], m, nframes);
}

int
main(int argc, char **argv)
{
	unsigned int nframes = 100000;

	/* An optional argument shortens the random runs (e.g. under valgrind). */
	if (argc > 1)
		nframes = (unsigned int)strtoul(argv[1], NULL, 0);
	test_create();
	test_in_order();
	test_small_drain();
	test_timeout();
	test_rule();
	test_rule_idle_wrap();
	test_late_dup_range();
	test_slide();
	test_late_fill();
	test_stray();
	test_free_reset();
	test_forged_jump();
	test_jump_bound();
	test_stats_add();
	test_random(nframes);
	return sb_test_summary("test_reorder");
}
