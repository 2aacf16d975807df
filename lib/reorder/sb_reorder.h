/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_REORDER_H
#define SB_REORDER_H

/**
 * @file
 * Per-peer receive reorder window.
 *
 * Frames from one peer arrive over several paths, each path FIFO. The window holds frames
 * that arrived ahead of a gap and releases them in sequence. A gap is declared lost, and
 * skipped at once, when every active path has already delivered a newer sequence number
 * (the Multilink PPP rule, RFC 1990 s.4.1: since each path is FIFO, the missing frame can
 * no longer arrive). A timeout bounds how long any frame is held behind a gap: once the
 * frame held longest has waited @c timeout, every gap before it is skipped. It is evaluated
 * by sb_reorder_drain() even when nothing arrives, so an idle peer never strands frames.
 *
 * The window stores opaque object pointers (mbufs in the application) so the algorithm can
 * be tested and fuzzed without DPDK ports. One window is owned by exactly one lcore; no call
 * here is thread safe.
 */

#include <stdbool.h>
#include <stdint.h>

/** Largest number of paths one window tracks (path ids are 0..SB_REORDER_MAX_PATHS-1). */
#define SB_REORDER_MAX_PATHS 32

/** What to do with a frame whose sequence number was already released or skipped. */
enum sb_reorder_late_policy {
	SB_REORDER_LATE_DROP = 0,	/**< Hand it back to the caller to free (default). */
	SB_REORDER_LATE_DELIVER,	/**< Hand it back to the caller to deliver as is. */
	SB_REORDER_LATE_FILL,	/**< Deliver it only when the window skipped its number
				 *   (as lost: timeout, RFC 1990 rule or slide) and has not
				 *   delivered that number since: the frame fills the hole
				 *   the skip left, at most once. Drop the rest (copies of
				 *   released frames). The window remembers one skipped
				 *   number per slot (seq modulo window): a skipped number
				 *   is forgotten once a later one of its slot is skipped. */
};

/** Result of sb_reorder_insert(): who owns the object afterwards. */
enum sb_reorder_verdict {
	SB_REORDER_HELD = 0,	/**< The window owns the object until drain releases it. */
	SB_REORDER_LATE_DROPPED,	/**< Late (seq already released); caller frees it. */
	SB_REORDER_LATE_DELIVERED,	/**< Late, policy deliver (or fill, and its number was
				 *   skipped); caller delivers it now. */
	SB_REORDER_DUPLICATE,	/**< Same seq already held; caller frees it. */
	SB_REORDER_OUT_OF_RANGE,	/**< Seq absurdly far ahead (>= max_jump) or exactly
				 *   2^31 away; or >= window ahead while the frames a
				 *   slide would release might not fit the release queue
				 *   (one window; drain() not called since an earlier
				 *   slide); or a confirmed jump larger than the caller's
				 *   bound (jump_bound, counted in jump_refused: the jump
				 *   is forgotten). Caller frees it, window state
				 *   unchanged. */
	SB_REORDER_BAD_PATH,	/**< Path id >= SB_REORDER_MAX_PATHS; caller frees it. */
	SB_REORDER_STRAY,	/**< At least a window ahead and not (yet) confirmed: a jump
				 *   is taken only when the next arrival is also a window ahead
				 *   and within a window of this one (with jump_confirm, only
				 *   when that arrival is on another path, or the path's own
				 *   frames confirm it), so one stray or corrupt frame cannot
				 *   throw the window forward. Caller frees it, window state
				 *   unchanged. */
};

/** Window parameters. */
struct sb_reorder_conf {
	uint32_t window;	/**< Slots, a power of two, 2..2^20 (frames held behind gaps
				 *   at most; with frames a slide released and in-order frames
				 *   not yet drained, a window owns at most 2 x window + 64). */
	uint64_t timeout;	/**< Longest hold of any frame behind a gap, in the same clock
				 *   units as the @p now arguments (TSC cycles in the app). */
	uint32_t max_jump;	/**< Frames at least this far ahead of the next expected seq
				 *   are rejected as out of range; 0 selects 2^30, else
				 *   window..2^31. Frames between window and max_jump ahead are
				 *   strays until a second one confirms the jump (two arrivals in
				 *   a row, both a window ahead, within a window of each other,
				 *   as RFC 5961 accepts an out-of-window segment only once it is
				 *   confirmed); the confirming frame slides the window forward,
				 *   counting the skipped numbers as lost; held frames it passes
				 *   are released by the next drain. */
	enum sb_reorder_late_policy late_policy;
	/**
	 * Confirmation of a jump (frames a window or more ahead) where forged frames can
	 * reach the window (no cluster key). 0: the next arrival confirms it, as above. N > 0:
	 * only an arrival on another path confirms it (a window ahead, within a window of the
	 * first frame of the jump) or, while fewer than two paths are active, N further
	 * frames on the jump's own path, each after the one before and within a window of the
	 * first. One forger reaches one path (one switch per link), and the paths of a peer
	 * that stripes are active (sb_reorder_path_set_active()), so it cannot confirm a jump
	 * alone; two forged frames in a row no longer move the window. A confirmed jump's
	 * followers ride on it as above. An honest jump costs its first frame, and on a
	 * single path N + 1 frames.
	 */
	uint32_t jump_confirm;
	/**
	 * The most frames the peer could have numbered in @p elapsed clock units: called
	 * when a confirmed jump is about to be taken, with the time since the window last
	 * released a frame in order (or took a jump). A jump of more frames than that is
	 * refused (SB_REORDER_OUT_OF_RANGE, jump_refused). The caller computes it from its
	 * paths' rates (sb_path_frames_bound() summed over the peer's paths, lib/peer). While
	 * traffic flows the bound stays far below a window, so no jump can be forged then;
	 * after an idle spell it allows what the paths could have carried. NULL: no bound.
	 */
	uint32_t (*jump_bound)(void *arg, uint64_t elapsed);
	void *jump_bound_arg;	/**< Passed to jump_bound. */
};

/** Counters, all in frames except hold times. Monotonic until sb_reorder_reset(). */
struct sb_reorder_stats {
	uint64_t in_order;	/**< Released without having waited behind a gap: when it
				 *   was inserted, every earlier number from the next expected
				 *   one on was held (so a burst of in-order frames inserted
				 *   before one drain all count here). */
	uint64_t reordered;	/**< Released after waiting behind a gap (some earlier
				 *   number was missing when it was inserted). */
	uint64_t late;		/**< Arrived after its seq was released or skipped (whatever
				 *   the policy did with it: late_filled counts the frames
				 *   policy fill delivered). Frames
				 *   a slide or the in-order fast path released count as
				 *   released before drain returns them: a copy of one is late
				 *   (with late_policy deliver it may reach the caller first). */
	uint64_t late_filled;	/**< Late frames policy fill delivered: their number had
				 *   been skipped and not delivered. */
	uint64_t duplicate;	/**< Arrived while the same seq was held. */
	uint64_t out_of_range;	/**< Rejected: too far ahead (see max_jump). */
	uint64_t stray;		/**< Rejected: a window ahead, unconfirmed (SB_REORDER_STRAY). */
	uint64_t jump_refused;	/**< Rejected: a confirmed jump beyond conf.jump_bound. */
	uint64_t bad_path;	/**< Rejected: path id out of range. */
	uint64_t lost_rule;	/**< Seq numbers skipped by the RFC 1990 rule. */
	uint64_t lost_timeout;	/**< Seq numbers skipped because the hold timed out. */
	uint64_t lost_slide;	/**< Seq numbers skipped because a frame came >= window ahead. */
	uint32_t occupancy;	/**< Frames held now, including frames a slide or the
				 *   in-order fast path released that drain has not returned
				 *   yet. */
	uint32_t occupancy_hwm;	/**< Largest number of frames held at once. */
	uint64_t hold_max;	/**< Longest time a released frame waited behind a gap, clock units. */
};

struct sb_reorder;

/**
 * Create a window. Memory comes from the C heap (cache-line aligned), so the window works
 * without EAL in unit tests and fuzzers; it is created at configuration time, never in the
 * datapath.
 *
 * @param conf  Parameters, copied.
 * @return the window, or NULL with rte_errno set: EINVAL (NULL conf, bad window size,
 *   max_jump or late_policy), ENOMEM.
 */
struct sb_reorder *sb_reorder_create(const struct sb_reorder_conf *conf);

/**
 * Free a window. Objects still held are passed to @p free_obj (may be NULL if the window is
 * known to be empty), so no mbuf is leaked.
 */
void sb_reorder_free(struct sb_reorder *r, void (*free_obj)(void *obj, void *arg), void *arg);

/**
 * Forget all sequence state (peer restarted). Held objects are passed to @p free_obj.
 * Counters and path activity are kept; each path's newest seq is forgotten. The next
 * inserted frame sets the expected sequence number.
 */
void sb_reorder_reset(struct sb_reorder *r, void (*free_obj)(void *obj, void *arg), void *arg);

/**
 * Change the hold timeout (operator command). Takes effect at the next drain; frames held
 * longer than the new value are released then.
 * @param timeout  Clock units, as in struct sb_reorder_conf.
 */
void sb_reorder_set_timeout(struct sb_reorder *r, uint64_t timeout);

/**
 * Start the window at a given expected sequence number (empty window only, e.g. right
 * after create or reset). Without this the first inserted frame sets it. Each path's newest
 * seq is forgotten, as it was measured against the old numbering.
 * @return 0, or -EBUSY when frames are held (or released by a slide and not yet drained).
 */
int sb_reorder_set_next(struct sb_reorder *r, uint32_t next_seq);

/**
 * Mark a path active or inactive. Only active paths take part in the RFC 1990 loss rule;
 * a path that goes down stops holding back the rule, which may release frames at the next
 * drain. While an active path has delivered no frame (since create, reset or set_next) the
 * rule does not apply and only the timeout releases gaps. Paths start inactive; inserting a
 * frame on a path does not activate it.
 * @return 0, or -EINVAL for a path id out of range.
 */
int sb_reorder_path_set_active(struct sb_reorder *r, unsigned int path, bool active);

/**
 * Offer one received frame.
 *
 * @param path  Path id it arrived on (0..SB_REORDER_MAX_PATHS-1).
 * @param seq   Its sequence number.
 * @param obj   Opaque object (non-NULL); owned by the window only on SB_REORDER_HELD.
 * @param now   Arrival time, clock units (monotonic).
 * @return a verdict saying who owns @p obj now.
 */
enum sb_reorder_verdict sb_reorder_insert(struct sb_reorder *r, unsigned int path, uint32_t seq,
	void *obj, uint64_t now);

/**
 * Release frames that may leave: the in-sequence run at the head of the window, after
 * skipping gaps that the RFC 1990 rule proves lost or whose hold exceeded the timeout.
 * Call it after each burst of inserts and periodically when idle.
 *
 * @param objs  Output array; released objects in increasing sequence order, now owned by
 *   the caller.
 * @param n     Capacity of @p objs.
 * @param now   Current time, clock units.
 * @return number of objects written (frames left releasable remain for the next call).
 */
unsigned int sb_reorder_drain(struct sb_reorder *r, void **objs, unsigned int n, uint64_t now);

/** Copy the counters. */
void sb_reorder_stats_get(const struct sb_reorder *r, struct sb_reorder_stats *st);

/**
 * Add the counters of @p st to @p sum (windows that are gone, or one report over many
 * windows): frame counts add up, occupancy too; occupancy_hwm and hold_max keep the larger.
 */
void sb_reorder_stats_add(struct sb_reorder_stats *sum, const struct sb_reorder_stats *st);

/**
 * Call @p fn with the name and value of every counter in @p st, in a fixed order: the one
 * list the exit report, the console and telemetry print. hold_max is given in microseconds
 * (as "hold_max_us").
 * @param hz  Clock units per second of the window's clock (to convert hold_max).
 */
void sb_reorder_stats_foreach(const struct sb_reorder_stats *st, uint64_t hz,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg);

/**
 * @return how long the frame held longest has waited at @p now (clock units), 0 when the
 *   window holds nothing. Does not change the window.
 */
uint64_t sb_reorder_hold_now(const struct sb_reorder *r, uint64_t now);

/**
 * @return frames the window owns: held behind a gap or ready for the next drain. While it
 *   is 0 a drain has nothing to release and no gap to time out, so a caller with many idle
 *   windows may skip them until it inserts again.
 */
unsigned int sb_reorder_owned(const struct sb_reorder *r);

/** @return the next sequence number the window expects (undefined before the first frame). */
uint32_t sb_reorder_next_seq(const struct sb_reorder *r);

#endif /* SB_REORDER_H */
