/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Per-peer receive reorder window (see sb_reorder.h for the contract).
 *
 * Layout: a ring of `window` slots indexed by seq & (window - 1). Every held frame has a
 * sequence number in [next, next + window), so a non-empty slot always holds the one number
 * of that range that maps to it, and the slot at `next` is the head.
 *
 * Beside the ring the window keeps three small structures, each O(1) amortised per frame:
 *  - run_end: first number at or after `next` whose slot is empty. Slots [next, run_end) are
 *    all held, so a frame inserted at run_end has nothing missing before it and counts as
 *    in order; any frame inserted beyond run_end waits behind a gap and counts as reordered.
 *    Tracking the run (rather than comparing with `next`) keeps a burst of in-order frames,
 *    inserted before the drain that advances `next`, counted as in order.
 *  - age: sequence numbers of frames held behind a gap, in arrival order (frames that join
 *    the run from next at insert are released by the next drain and never enter it; a
 *    FIFO of 2 * window entries, entries of released frames dropped lazily from its front).
 *    Arrival times are monotonic, so its front is the frame held longest; the timeout is
 *    applied to that frame, which bounds the hold of every frame (not only of the first one
 *    after a gap).
 *  - pend: frames released by a slide (a frame arriving >= window ahead) that insert cannot
 *    hand back; drain() returns them before anything in the ring.
 *  - ready: the in-order fast path. A frame carrying exactly `next` while nothing is held
 *    or pending has nothing to wait for: insert moves `next` past it and parks it here,
 *    without touching the ring, and drain() returns it first. It is older than anything
 *    pend or the ring can receive after it (both only take numbers >= the new next), so
 *    drain order stays ready, pend, ring. Most frames of a peer whose paths are not
 *    reordering take this path: it is what keeps the window's cost per frame at or below
 *    rte_reorder's (bench/micro.sh, callgrind).
 *  - skipped: one entry per slot, the last number of that slot the window skipped as lost
 *    and has not delivered since (or a value that cannot be a number of that slot: slot + 1,
 *    or a filled number + 1). Written only where numbers are skipped, read only for late
 *    frames, so the in-order paths never touch it. Policy fill delivers a late frame whose
 *    number it finds there, once. Numbers wrap every 2^32: a copy of a released frame 2^32
 *    numbers after its slot was last skipped would be taken for the skipped one.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>

#include "sb_reorder.h"
#include "sb_seq.h"

#define SB_REORDER_WINDOW_MAX (UINT32_C(1) << 20)
#define SB_REORDER_MAX_JUMP_DEFAULT (UINT32_C(1) << 30)
#define SB_REORDER_MAX_JUMP_MAX (UINT32_C(1) << 31)
#define SB_REORDER_READY 64	/* Fast-path frames between two drains, at most. */

/** One ring slot. */
struct sb_reorder_slot {
	void *obj;		/* NULL when empty. */
	uint64_t arrival;	/* Insert time, clock units (set only when waited). */
	uint32_t seq;
	uint32_t waited;	/* Non-zero when it arrived behind a gap. */
};

struct sb_reorder {
	/* Per-frame state first: one or two cache lines touched by insert and drain. */
	struct sb_reorder_slot *ring;
	uint32_t mask;		/* window - 1 */
	uint32_t next;		/* Next sequence number to release. */
	uint32_t run_end;	/* See the file comment. */
	uint32_t held;		/* Frames in the ring. */
	bool started;		/* next is defined (first frame seen or set_next). */
	enum sb_reorder_late_policy late_policy;
	uint32_t max_jump;
	uint64_t timeout;

	uint32_t *age;		/* Arrival-order FIFO of held sequence numbers. */
	uint32_t age_mask;	/* 2 * window - 1 */
	uint32_t age_head;	/* Free-running indexes. */
	uint32_t age_tail;

	void **pend;		/* Release queue filled by slides, window entries. */
	uint32_t *skipped;	/* Per slot: the number skipped last, not delivered since. */
	uint32_t pend_head;	/* Free-running indexes. */
	uint32_t pend_tail;

	uint32_t ready_head;	/* ready[ready_head..ready_tail) wait for drain. */
	uint32_t ready_tail;

	bool jump_pending;	/* The previous arrival was a stray at jump_seq. */
	bool jump_taken;	/* ... confirmed: arrivals near it ride on it (jump_confirm). */
	uint32_t jump_seq;
	uint32_t jump_last;	/* Newest frame of the jump on its own path ... */
	uint32_t jump_count;	/* ... and how many followed the first there. */
	uint8_t jump_path;	/* Path of the jump's first frame. */
	uint32_t jump_confirm;	/* conf.jump_confirm */
	uint32_t (*jump_bound)(void *arg, uint64_t elapsed);
	void *jump_bound_arg;
	uint64_t progress;	/* Last release in order (or jump taken), clock units. */

	uint32_t active;	/* Bit per path: takes part in the RFC 1990 rule. */
	uint32_t valid;		/* Bit per path: high[] is meaningful. */
	uint32_t high[SB_REORDER_MAX_PATHS];	/* Newest seq seen per path. */

	struct sb_reorder_stats st;	/* occupancy is computed in stats_get(). */

	void *ready[SB_REORDER_READY];	/* The in-order fast path (file comment); last, so
					 * that it does not push the per-frame fields apart. */
} __rte_cache_aligned;

static inline uint32_t
pend_count(const struct sb_reorder *r)
{
	return r->pend_tail - r->pend_head;
}

static inline struct sb_reorder_slot *
slot_of(const struct sb_reorder *r, uint32_t seq)
{
	return &r->ring[seq & r->mask];
}

/* Time a frame has been held; a clock that went backwards counts as no wait rather than as
 * a huge one, so a caller's clock glitch cannot flush the window. */
static inline uint64_t
waited_for(uint64_t now, uint64_t arrival)
{
	return now > arrival ? now - arrival : 0;
}

/* Forget every skipped number: a slot's entry slot + 1 can never equal a number of the slot
 * (the window is at least 2 slots), so no late frame finds it. */
static void
skipped_clear(struct sb_reorder *r)
{
	uint32_t i;

	for (i = 0; i <= r->mask; i++)
		r->skipped[i] = i + 1;
}

/* @p seq was skipped as lost: a late frame carrying it may still fill the hole (policy
 * fill). */
static inline void
skipped_note(struct sb_reorder *r, uint32_t seq)
{
	r->skipped[seq & r->mask] = seq;
}

/* Record that @p path delivered @p seq. Only ever called with seq within the window span of
 * next, so the serial comparison with the stored value is well defined. */
static inline void
path_saw(struct sb_reorder *r, unsigned int path, uint32_t seq)
{
	uint32_t bit = UINT32_C(1) << path;

	if (unlikely((r->valid & bit) == 0) || sb_seq_lt(r->high[path], seq)) {
		r->high[path] = seq;
		r->valid |= bit;
	}
}

/*
 * Raise every path high that fell behind next to next - 1. For the loss rule this changes
 * nothing (only missing numbers >= next matter, and a high below next proves none of them
 * lost), but it keeps highs of idle paths within comparable distance of next, so serial
 * arithmetic cannot see them as ahead once next has moved 2^31 on.
 */
static void
paths_clamp(struct sb_reorder *r)
{
	uint32_t m = r->valid;

	while (m != 0) {
		unsigned int p = __builtin_ctz(m);

		m &= m - 1;
		if (sb_seq_diff(r->high[p], r->next) < 0)
			r->high[p] = r->next - 1;
	}
}

/*
 * RFC 1990 s.4.1: each path is FIFO, so once path p has delivered high[p], every missing
 * number before high[p] can no longer arrive on p. When every active path has done so, a
 * missing number before the smallest such high is lost. Paths never seen give no bound (they
 * may carry the missing frame), nor does an empty active set.
 * @return true and the bound in *bound when the rule applies.
 */
static bool
rule_bound(const struct sb_reorder *r, uint32_t *bound)
{
	uint32_t m = r->active;
	uint32_t b;

	if (m == 0 || (m & ~r->valid) != 0)
		return false;
	b = r->high[__builtin_ctz(m)];
	m &= m - 1;
	while (m != 0) {
		b = sb_seq_min(b, r->high[__builtin_ctz(m)]);
		m &= m - 1;
	}
	*bound = b;
	return true;
}

/* Extend run_end over held slots, never beyond the window. */
static inline void
run_extend(struct sb_reorder *r)
{
	/* Locals: the loop would otherwise reload every field after each slot read. */
	uint32_t e = r->run_end, lim = r->next + r->mask + 1;

	while (e != lim && slot_of(r, e)->obj != NULL)
		e++;
	r->run_end = e;
}

/* next moved forward past empty slots: the run restarts at next. */
static inline void
run_restart(struct sb_reorder *r)
{
	if (sb_seq_lt(r->run_end, r->next))
		r->run_end = r->next;
	run_extend(r);
}

/* Count one frame leaving the window. Only a frame that waited behind a gap can set
 * hold_max: one released in the run it arrived in waits at most until the next drain. */
static inline void
account_release(struct sb_reorder *r, const struct sb_reorder_slot *s, uint64_t now)
{
	if (s->waited) {
		uint64_t w = waited_for(now, s->arrival);

		r->st.reordered++;
		if (w > r->st.hold_max)
			r->st.hold_max = w;
	} else {
		r->st.in_order++;
	}
}

/* Frames owned (held and queued for release) can only grow in insert and only shrink in
 * drain, reset and free, so their high-water mark is sampled there rather than per frame. */
static inline void
occupancy_sample(struct sb_reorder *r)
{
	uint32_t owned = r->held + pend_count(r) + (r->ready_tail - r->ready_head);

	if (owned > r->st.occupancy_hwm)
		r->st.occupancy_hwm = owned;
}

/* A FIFO entry is stale once its frame left the ring. Sequence numbers are never held twice
 * between two clears of the FIFO (a released number is late from then on), so seq equality
 * identifies the frame. */
static inline bool
age_stale(const struct sb_reorder *r, uint32_t seq)
{
	const struct sb_reorder_slot *s = slot_of(r, seq);

	return s->obj == NULL || s->seq != seq;
}

static inline void
age_pop_stale(struct sb_reorder *r)
{
	while (r->age_head != r->age_tail && age_stale(r, r->age[r->age_head & r->age_mask]))
		r->age_head++;
}

/*
 * Append a newly held frame. Capacity 2 * window is enough: after age_pop_stale() the front F
 * is held, and every frame held since F's arrival has a distinct number in
 * (F - window, F + window), because next never passed F and numbers are never held twice.
 */
static inline void
age_push(struct sb_reorder *r, uint32_t seq)
{
	age_pop_stale(r);
	RTE_ASSERT(r->age_tail - r->age_head <= r->age_mask);
	r->age[r->age_tail++ & r->age_mask] = seq;
}

static inline void
age_clear(struct sb_reorder *r)
{
	r->age_head = r->age_tail;
}

/*
 * Move next to new_next for a frame that arrived >= window ahead: held frames in
 * [next, new_next) go to the release queue in order, empty numbers count as lost_slide.
 * @return 0, or -ENOSPC when the release queue might not take the held frames (drain() has
 *   not been called since earlier slides); nothing changed then.
 */
static int
slide(struct sb_reorder *r, uint32_t new_next, uint64_t now)
{
	uint32_t window = r->mask + 1;
	uint32_t skip = new_next - r->next;
	uint32_t scan = RTE_MIN(skip, window);
	uint32_t i;

	/* Conservative test (every held frame might be in the skipped range) so that a refusal
	 * leaves the state untouched without a second scan. */
	if (window - pend_count(r) < r->held)
		return -ENOSPC;

	for (i = 0; i < scan && r->held != 0; i++) {
		struct sb_reorder_slot *s = slot_of(r, r->next + i);

		if (s->obj == NULL) {
			r->st.lost_slide++;
			skipped_note(r, r->next + i);
			continue;
		}
		account_release(r, s, now);
		r->pend[r->pend_tail++ & r->mask] = s->obj;
		s->obj = NULL;
		r->held--;
	}
	/* Numbers not scanned (beyond the ring, or after the last held frame) were all empty.
	 * Only the last window of them can have an entry (one per slot). */
	r->st.lost_slide += skip - i;
	for (i = RTE_MAX(i, skip - RTE_MIN(skip, window)); i < skip; i++)
		skipped_note(r, r->next + i);

	r->next = new_next;
	if (r->held == 0)
		age_clear(r);
	run_restart(r);
	paths_clamp(r);
	return 0;
}

struct sb_reorder *
sb_reorder_create(const struct sb_reorder_conf *conf)
{
	struct sb_reorder *r;
	size_t sz_hdr, sz_ring, sz_age, sz_pend, sz_skip;
	uint32_t max_jump;
	void *mem;
	int ret;

	if (conf == NULL || conf->window < 2 || conf->window > SB_REORDER_WINDOW_MAX ||
			!rte_is_power_of_2(conf->window)) {
		rte_errno = EINVAL;
		return NULL;
	}
	max_jump = conf->max_jump != 0 ? conf->max_jump : SB_REORDER_MAX_JUMP_DEFAULT;
	/* Below window a frame inside the window would be rejected; above 2^31 the distance is
	 * no longer comparable (RFC 1982). */
	if (max_jump < conf->window || max_jump > SB_REORDER_MAX_JUMP_MAX ||
			(conf->late_policy != SB_REORDER_LATE_DROP &&
			 conf->late_policy != SB_REORDER_LATE_DELIVER &&
			 conf->late_policy != SB_REORDER_LATE_FILL)) {
		rte_errno = EINVAL;
		return NULL;
	}

	/* One allocation, each part on its own cache lines. */
	sz_hdr = RTE_ALIGN_CEIL(sizeof(*r), RTE_CACHE_LINE_SIZE);
	sz_ring = RTE_ALIGN_CEIL((size_t)conf->window * sizeof(struct sb_reorder_slot),
		RTE_CACHE_LINE_SIZE);
	sz_age = RTE_ALIGN_CEIL((size_t)conf->window * 2 * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	sz_pend = RTE_ALIGN_CEIL((size_t)conf->window * sizeof(void *), RTE_CACHE_LINE_SIZE);
	sz_skip = RTE_ALIGN_CEIL((size_t)conf->window * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	ret = posix_memalign(&mem, RTE_CACHE_LINE_SIZE,
		sz_hdr + sz_ring + sz_age + sz_pend + sz_skip);
	if (ret != 0) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* Zero everything: empty slots are NULL objects, counters start at zero. */
	memset(mem, 0, sz_hdr + sz_ring + sz_age + sz_pend + sz_skip);

	r = mem;
	r->ring = (struct sb_reorder_slot *)((char *)mem + sz_hdr);
	r->age = (uint32_t *)((char *)mem + sz_hdr + sz_ring);
	r->pend = (void **)((char *)mem + sz_hdr + sz_ring + sz_age);
	r->skipped = (uint32_t *)((char *)mem + sz_hdr + sz_ring + sz_age + sz_pend);
	r->mask = conf->window - 1;
	r->age_mask = conf->window * 2 - 1;
	r->max_jump = max_jump;
	r->timeout = conf->timeout;
	r->late_policy = conf->late_policy;
	r->jump_confirm = conf->jump_confirm;
	r->jump_bound = conf->jump_bound;
	r->jump_bound_arg = conf->jump_bound_arg;
	skipped_clear(r);
	return r;
}

/* Hand every owned object (release queue first, then ring in sequence order) to free_obj
 * and leave the window empty. */
static void
flush_all(struct sb_reorder *r, void (*free_obj)(void *obj, void *arg), void *arg)
{
	uint32_t i;

	occupancy_sample(r);
	while (r->ready_head != r->ready_tail) {
		void *obj = r->ready[r->ready_head++];

		if (free_obj != NULL)
			free_obj(obj, arg);
	}
	r->ready_head = r->ready_tail = 0;
	while (pend_count(r) != 0) {
		void *obj = r->pend[r->pend_head++ & r->mask];

		if (free_obj != NULL)
			free_obj(obj, arg);
	}
	for (i = 0; i <= r->mask && r->held != 0; i++) {
		struct sb_reorder_slot *s = slot_of(r, r->next + i);

		if (s->obj == NULL)
			continue;
		if (free_obj != NULL)
			free_obj(s->obj, arg);
		s->obj = NULL;
		r->held--;
	}
	age_clear(r);
}

void
sb_reorder_free(struct sb_reorder *r, void (*free_obj)(void *obj, void *arg), void *arg)
{
	if (r == NULL)
		return;
	flush_all(r, free_obj, arg);
	free(r);
}

void
sb_reorder_reset(struct sb_reorder *r, void (*free_obj)(void *obj, void *arg), void *arg)
{
	flush_all(r, free_obj, arg);
	r->started = false;
	r->jump_pending = false;
	/* Highs and skipped numbers refer to the old numbering; path activity is link state
	 * and stays. */
	r->valid = 0;
	skipped_clear(r);
}

void
sb_reorder_set_timeout(struct sb_reorder *r, uint64_t timeout)
{
	r->timeout = timeout;
}

int
sb_reorder_set_next(struct sb_reorder *r, uint32_t next_seq)
{
	/* Queued releases count too: moving next backwards under them would break the
	 * increasing order of what drain() returns. */
	if (r->held != 0 || pend_count(r) != 0 || r->ready_tail != r->ready_head)
		return -EBUSY;
	r->next = next_seq;
	r->run_end = next_seq;
	r->started = true;
	r->jump_pending = false;
	r->progress = 0;	/* no time known: the first jump bound counts from 0 */
	/* Highs seen against another next could claim paths passed numbers they never sent;
	 * numbers skipped in another numbering are not holes of this one. */
	r->valid = 0;
	skipped_clear(r);
	age_clear(r);
	return 0;
}

int
sb_reorder_path_set_active(struct sb_reorder *r, unsigned int path, bool active)
{
	if (path >= SB_REORDER_MAX_PATHS)
		return -EINVAL;
	if (active)
		r->active |= UINT32_C(1) << path;
	else
		r->active &= ~(UINT32_C(1) << path);
	return 0;
}

/* Store @p obj in its free slot @p s: the common end of both insert paths. */
static inline enum sb_reorder_verdict
hold(struct sb_reorder *r, struct sb_reorder_slot *s, unsigned int path, uint32_t seq,
	void *obj, uint64_t now)
{
	s->obj = obj;
	s->seq = seq;
	if (seq == r->run_end) {
		/* In the run from next: the next drain releases it before judging any gap, so it
		 * never waits behind one, needs no place in the age FIFO and no arrival time. */
		s->waited = 0;
		r->run_end++;
		run_extend(r);
	} else {
		s->waited = 1;
		s->arrival = now;
		age_push(r, seq);
	}
	r->held++;
	path_saw(r, path, seq);
	return SB_REORDER_HELD;
}

/*
 * Frame @p seq on @p path is a window or more ahead; @p near: within a window of the
 * pending jump's first frame. Is the jump confirmed (sb_reorder_conf.jump_confirm)? When
 * not, the frame is remembered as (or counted towards) the pending jump.
 */
static bool
jump_confirmed(struct sb_reorder *r, unsigned int path, uint32_t seq, bool near)
{
	if (!near) {
		/* Unconfirmed: remember it; the next arrivals decide. */
		r->jump_pending = true;
		r->jump_taken = false;
		r->jump_seq = seq;
		r->jump_last = seq;
		r->jump_count = 0;
		r->jump_path = (uint8_t)path;
		return false;
	}
	if (r->jump_confirm == 0 || r->jump_taken || path != r->jump_path)
		return true;
	/* The jump's own path: one forger can make it say anything. It confirms only when
	 * no other path carries the peer's frames, after jump_confirm frames in order. */
	if (__builtin_popcount(r->active) >= 2 || !sb_seq_lt(r->jump_last, seq))
		return false;
	r->jump_last = seq;
	return ++r->jump_count >= r->jump_confirm;
}

/* Everything but a frame inside the window for a free slot: first frame, late, beyond the
 * window (stray, jump, out of range), duplicate, bad path. */
static enum sb_reorder_verdict __rte_noinline
insert_slow(struct sb_reorder *r, unsigned int path, uint32_t seq, void *obj, uint64_t now)
{
	struct sb_reorder_slot *s;
	int32_t d;

	if (unlikely(path >= SB_REORDER_MAX_PATHS)) {
		r->st.bad_path++;
		return SB_REORDER_BAD_PATH;
	}
	if (unlikely(!r->started)) {
		r->next = seq;
		r->run_end = seq;
		r->started = true;
		r->progress = now;
	}

	d = sb_seq_diff(seq, r->next);
	if (unlikely(d < 0)) {
		/* Exactly half the space away is neither ahead nor behind (RFC 1982). */
		if (d == INT32_MIN) {
			r->st.out_of_range++;
			return SB_REORDER_OUT_OF_RANGE;
		}
		r->st.late++;
		r->jump_pending = false;
		/* The path is alive but its position is only known to be before next: a high of
		 * next - 1 lets the rule wait for it without claiming anything. */
		if ((r->valid & (UINT32_C(1) << path)) == 0)
			path_saw(r, path, r->next - 1);
		switch (r->late_policy) {
		case SB_REORDER_LATE_DELIVER:
			return SB_REORDER_LATE_DELIVERED;
		case SB_REORDER_LATE_FILL:
			/* The hole its skip left is still open at the receiver: fill it, once. */
			if (r->skipped[seq & r->mask] == seq) {
				r->skipped[seq & r->mask] = seq + 1;
				r->st.late_filled++;
				return SB_REORDER_LATE_DELIVERED;
			}
			return SB_REORDER_LATE_DROPPED;
		default:
			return SB_REORDER_LATE_DROPPED;
		}
	}
	if (unlikely((uint32_t)d > r->mask)) {
		int32_t from_cand = (int32_t)(seq - r->jump_seq);
		bool near = r->jump_pending && from_cand > -(int32_t)(r->mask + 1) &&
			from_cand <= (int32_t)r->mask;

		if ((uint32_t)d >= r->max_jump) {
			r->jump_pending = false;
			r->st.out_of_range++;
			return SB_REORDER_OUT_OF_RANGE;
		}
		if (!jump_confirmed(r, path, seq, near)) {
			r->st.stray++;
			return SB_REORDER_STRAY;
		}
		if (!r->jump_taken && r->jump_bound != NULL &&
				(uint32_t)d > r->jump_bound(r->jump_bound_arg,
					waited_for(now, r->progress))) {
			/* More than the paths could have carried since the last frame in
			 * order: not the peer's numbering. */
			r->jump_pending = false;
			r->st.jump_refused++;
			return SB_REORDER_OUT_OF_RANGE;
		}
		if (slide(r, seq - r->mask, now) != 0) {
			r->jump_pending = false;
			r->st.out_of_range++;
			return SB_REORDER_OUT_OF_RANGE;
		}
		/* Confirmed: the frames that follow the jump ride on it while they keep
		 * arriving a window ahead. */
		r->jump_seq = seq;
		r->jump_taken = true;
		r->progress = now;
	} else {
		r->jump_pending = false;
	}

	/* A NULL object would read back as an empty slot and be lost. */
	RTE_ASSERT(obj != NULL);
	s = slot_of(r, seq);
	if (unlikely(s->obj != NULL)) {
		/* In range and slot busy: it holds this very number. */
		r->st.duplicate++;
		path_saw(r, path, seq);
		return SB_REORDER_DUPLICATE;
	}
	return hold(r, s, path, seq, obj, now);
}

enum sb_reorder_verdict
sb_reorder_insert(struct sb_reorder *r, unsigned int path, uint32_t seq, void *obj,
	uint64_t now)
{
	struct sb_reorder_slot *s;

	/* In order with nothing held or pending: straight to the ready list. */
	if (likely(seq == r->next && (r->held | pend_count(r)) == 0 &&
			r->ready_tail < SB_REORDER_READY && r->started &&
			path < SB_REORDER_MAX_PATHS)) {
		RTE_ASSERT(obj != NULL);
		r->ready[r->ready_tail++] = obj;
		/* Nothing held: the run from next is empty before and after. */
		r->next = seq + 1;
		r->run_end = seq + 1;
		r->jump_pending = false;
		path_saw(r, path, seq);
		return SB_REORDER_HELD;
	}
	/* Inside the window (seq - next <= mask also rules out late frames, which wrap to
	 * huge distances) for a free slot: held in the ring. */
	s = slot_of(r, seq);
	if (likely((uint32_t)(seq - r->next) <= r->mask && r->started &&
			path < SB_REORDER_MAX_PATHS && s->obj == NULL)) {
		RTE_ASSERT(obj != NULL);
		r->jump_pending = false;
		return hold(r, s, path, seq, obj, now);
	}
	return insert_slow(r, path, seq, obj, now);
}

/* Release the in-sequence run at the head into objs[cnt..n). @return the new count. */
static unsigned int
release_run(struct sb_reorder *r, void **objs, unsigned int cnt, unsigned int n, uint64_t now)
{
	/* Locals: stores to objs[] could alias the window as far as the compiler knows. */
	uint32_t next = r->next, first = next;

	while (cnt < n) {
		struct sb_reorder_slot *s = slot_of(r, next);
		void *obj = s->obj;

		if (obj == NULL)
			break;
		account_release(r, s, now);
		objs[cnt++] = obj;
		s->obj = NULL;
		next++;
	}
	r->held -= next - first;
	r->next = next;
	if (r->held == 0)
		age_clear(r);
	return cnt;
}

/*
 * Head empty and frames held: skip the gap at the head if the RFC 1990 rule proves it lost
 * or the frame held longest has waited @c timeout. Scans only the skipped numbers.
 * @return true when next moved (the head now holds a frame).
 */
static bool
skip_gap(struct sb_reorder *r, uint64_t now)
{
	const struct sb_reorder_slot *oldest;
	uint32_t bound;

	if (rule_bound(r, &bound) && sb_seq_lt(r->next, bound)) {
		/* A number >= next equal to a path high was held when seen and is still held
		 * (next has not passed it), so this stops at a frame at the latest at bound. */
		do {
			skipped_note(r, r->next++);
			r->st.lost_rule++;
		} while (r->next != bound && slot_of(r, r->next)->obj == NULL);
		run_restart(r);
		return true;
	}

	age_pop_stale(r);
	if (unlikely(r->age_head == r->age_tail)) {
		/* Cannot happen: frames left behind a gap arrived out of the run, so they are in
		 * the FIFO. Skip the gap rather than strand them if it ever does. */
		RTE_ASSERT(0);
		oldest = NULL;
	} else {
		oldest = slot_of(r, r->age[r->age_head & r->age_mask]);
	}
	if (oldest == NULL || waited_for(now, oldest->arrival) >= r->timeout) {
		/* Skip only this gap; the loop in drain() comes back for later gaps while the
		 * oldest frame (at or after the first held one) is still held. */
		do {
			skipped_note(r, r->next++);
			r->st.lost_timeout++;
		} while (slot_of(r, r->next)->obj == NULL);
		run_restart(r);
		return true;
	}
	return false;
}

unsigned int
sb_reorder_drain(struct sb_reorder *r, void **objs, unsigned int n, uint64_t now)
{
	unsigned int cnt = 0;

	occupancy_sample(r);
	if (r->ready_tail != r->ready_head) {
		unsigned int k = RTE_MIN(n, r->ready_tail - r->ready_head);

		memcpy(objs, &r->ready[r->ready_head], k * sizeof(objs[0]));
		cnt = k;
		r->st.in_order += k;
		r->ready_head += k;
		r->progress = now;	/* the jump bound counts from here */
		if (r->ready_head == r->ready_tail)
			r->ready_head = r->ready_tail = 0;
		else
			return cnt;
	}
	while (cnt < n && pend_count(r) != 0)
		objs[cnt++] = r->pend[r->pend_head++ & r->mask];
	if (!r->started)
		return cnt;

	/* Once per call keeps idle paths' highs comparable; a call advances next by at most a
	 * few windows, far from 2^31. */
	paths_clamp(r);
	while (cnt < n && r->held != 0) {
		cnt = release_run(r, objs, cnt, n, now);
		if (cnt == n || r->held == 0 || !skip_gap(r, now))
			break;
	}
	if (cnt != 0)
		r->progress = now;	/* the jump bound counts from here */
	return cnt;
}

unsigned int
sb_reorder_owned(const struct sb_reorder *r)
{
	return r->held + pend_count(r) + (r->ready_tail - r->ready_head);
}

void
sb_reorder_stats_get(const struct sb_reorder *r, struct sb_reorder_stats *st)
{
	*st = r->st;
	st->occupancy = r->held + pend_count(r) + (r->ready_tail - r->ready_head);
	if (st->occupancy > st->occupancy_hwm)
		st->occupancy_hwm = st->occupancy;
}

void
sb_reorder_stats_add(struct sb_reorder_stats *sum, const struct sb_reorder_stats *st)
{
	sum->in_order += st->in_order;
	sum->reordered += st->reordered;
	sum->late += st->late;
	sum->late_filled += st->late_filled;
	sum->duplicate += st->duplicate;
	sum->out_of_range += st->out_of_range;
	sum->stray += st->stray;
	sum->jump_refused += st->jump_refused;
	sum->bad_path += st->bad_path;
	sum->lost_rule += st->lost_rule;
	sum->lost_timeout += st->lost_timeout;
	sum->lost_slide += st->lost_slide;
	sum->occupancy += st->occupancy;
	if (st->occupancy_hwm > sum->occupancy_hwm)
		sum->occupancy_hwm = st->occupancy_hwm;
	if (st->hold_max > sum->hold_max)
		sum->hold_max = st->hold_max;
}

void
sb_reorder_stats_foreach(const struct sb_reorder_stats *st, uint64_t hz,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg)
{
	fn("in_order", st->in_order, arg);
	fn("reordered", st->reordered, arg);
	fn("late", st->late, arg);
	fn("late_filled", st->late_filled, arg);
	fn("duplicate", st->duplicate, arg);
	fn("out_of_range", st->out_of_range, arg);
	fn("stray", st->stray, arg);
	fn("jump_refused", st->jump_refused, arg);
	fn("bad_path", st->bad_path, arg);
	fn("lost_rule", st->lost_rule, arg);
	fn("lost_timeout", st->lost_timeout, arg);
	fn("lost_slide", st->lost_slide, arg);
	fn("occupancy", st->occupancy, arg);
	fn("occupancy_hwm", st->occupancy_hwm, arg);
	fn("hold_max_us", hz != 0 ? st->hold_max * 1000000 / hz : 0, arg);
}

uint64_t
sb_reorder_hold_now(const struct sb_reorder *r, uint64_t now)
{
	uint32_t h;

	if (r->held == 0)
		return 0;
	/* Skip stale entries without popping them: the datapath owns the FIFO. */
	for (h = r->age_head; h != r->age_tail; h++) {
		uint32_t seq = r->age[h & r->age_mask];

		if (!age_stale(r, seq))
			return waited_for(now, slot_of(r, seq)->arrival);
	}
	return 0;
}

uint32_t
sb_reorder_next_seq(const struct sb_reorder *r)
{
	return r->next;
}
