/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_PATH_EST_H
#define SB_PATH_EST_H

/**
 * @file
 * Path capacity estimator: what one path (our port -> the peer's port) really carries, learnt
 * from the receiver's feedback, so that the scheduler's queue model (sb_sched.h) paces each
 * path at its true rate even when the configured rate is wrong, the link is shared with other
 * senders or its capacity changes.
 *
 * Input, once per feedback report of the peer (every hello interval, docs/wire-format.md):
 * the rate the peer received our frames at, the path's queueing delay (its latest one-way
 * delay above its own windowed minimum: no clock synchronisation needed, the clock offset
 * cancels), and how many bytes we sent on the path since the last report.
 *
 * The rules (docs/design.md, "Adaptive striping"; the measurements behind them are in
 * docs/decisions/2026-11-30-path-estimator-guards.md and
 * docs/decisions/2026-12-04-path-estimator-receiver-stall.md):
 *  - a standing queue (the smaller of the last two queueing delays above target_us, so that
 *    jitter does not look like a queue, as BBR min-filters its RTT) means we send faster than
 *    the path carries: the estimate drops to 95 % of the delivered rate, which is the
 *    bottleneck's rate while a queue stands (BBR's delivery-rate sample, Cardwell et al.,
 *    "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016), then further
 *    decreases are held off while that queue drains. The delivered rate taken is the largest
 *    of the last three reports', and one report at most halves the estimate: a receiver that
 *    did not run for part of a report interval (a nap, a frozen virtual CPU) reports a queue
 *    and too little delivered at once;
 *  - the queue counts only above the smallest one of the last 1-2 s, unless we send more than
 *    110 % of what arrives (then all of it is ours): a route that became longer looks like a
 *    standing queue until the peer's windowed minimum forgets the old delay (10-20 s), while a
 *    queue we build is drained by the decrease within that time;
 *  - a report teaches nothing when we sent less than 10 % of the estimate since the last one:
 *    an idle path's delay samples wander when a virtual CPU stalls, and its hellos are no
 *    measure of the path;
 *  - loss alone lowers nothing: random loss (a radio link) does not go away at a lower rate,
 *    and a drop-tail bottleneck shows a queue before it drops. A path that drops without
 *    queueing first (a policer) is left to the loss rule of lib/peer, which takes it out of
 *    the stripe above path_loss_max_pct;
 *  - otherwise, when our sending was limited by the estimate (we sent at least 80 % of it),
 *    the estimate grows: doubling in the start-up phase (BBR's STARTUP), then additively per
 *    report by 1 % of the configured rate, or, for a port of unknown rate, of the largest
 *    delivered rate of the last two seconds. Additive increase with the multiplicative
 *    decrease above makes senders sharing a bottleneck converge to equal shares (Chiu & Jain,
 *    "Analysis of the increase and decrease algorithms for congestion avoidance in computer
 *    networks", 1989) when their steps are equal: the same configured rate gives the same
 *    step; steps from the delivered rate are proportional to each sender's share and keep
 *    the shares where they are. A step is at most 5 % of the rate it adds to, so that a cap
 *    far above the path does not overshoot it several times over in one report;
 *  - when we sent less than that, nothing is learnt (application limited) and nothing moves;
 *  - the estimate stays within [floor, cap]: cap is the configured rate_mbit or the port's
 *    link speed, never exceeded.
 *
 * One estimator per (peer, path), owned by the lcore that schedules that peer; not thread
 * safe. Times in ns, rates in bit/s.
 */

#include <stdbool.h>
#include <stdint.h>

/** Phases. */
enum sb_path_est_phase {
	SB_PATH_EST_STARTUP = 0,	/**< Doubling until a queue forms or the cap is reached. */
	SB_PATH_EST_STEADY,		/**< Additive increase, decrease on a standing queue. */
};

/** Settings shared by every path of a host. */
struct sb_path_est_conf {
	uint32_t target_us;	/**< Queueing delay above which a standing queue is declared, us
				 *   (> 0). It must exceed the links' jitter. */
	uint64_t floor_bps;	/**< Smallest estimate, bit/s (> 0): a path is never starved
				 *   completely, so it keeps reporting. */
};

/** One path's estimator. Fields are read only outside sb_path_est_*(). */
struct sb_path_est {
	uint64_t rate_bps;	/**< Current estimate, bit/s: what the scheduler paces at. */
	uint64_t cap_bps;	/**< Ceiling: configured rate or link speed, bit/s. */
	uint64_t step_bps;	/**< Additive step when the rate is configured; 0: from the
				 *   delivered rate. */
	uint8_t phase;		/**< enum sb_path_est_phase */
	uint8_t have_sample;	/**< A report has been taken (last_ns, last_sent valid). */
	uint32_t q_prev_us;	/**< Previous report's queueing delay, us. */
	uint64_t last_ns;	/**< Time of the previous report, ns. */
	uint64_t last_sent;	/**< Bytes we had sent at the previous report. */
	uint64_t hold_until_ns;	/**< No decrease before this (the last one still drains). */
	uint64_t max_bps[2];	/**< Largest delivered rate: this 1 s bucket and the last one. */
	uint64_t dlv_prev_bps[2];	/**< Delivered rates of the last two reports, bit/s
					 *   (newest first). */
	uint64_t max_epoch_ns;	/**< Start of the current bucket. */
	uint32_t qmin_us[2];	/**< Smallest queueing delay: this 500 ms bucket and the last
				 *   (UINT32_MAX: none yet). */
	uint64_t qmin_epoch_ns;	/**< Start of the current bucket. */
	/* Counters (console, telemetry). */
	uint64_t reports;	/**< Reports taken. */
	uint64_t decreases;	/**< Times a standing queue lowered the estimate. */
	uint64_t increases;	/**< Times the estimate grew. */
};

/**
 * Start an estimator.
 * @param cap_bps    Ceiling, bit/s (> 0): the configured rate, or the port's link speed.
 * @param start_bps  First estimate, bit/s: the cap when the rate is configured (trusted until
 *                   a queue says otherwise), lower for an unknown link (start-up doubles it).
 *                   Clamped to [floor_bps, cap_bps].
 * @param configured The cap is the link's configured rate (rate_mbit), not a link speed
 *                   that may be far above what the path carries: it sets the additive step.
 * @param now_ns     Current time, ns.
 */
void sb_path_est_init(struct sb_path_est *e, const struct sb_path_est_conf *c, uint64_t cap_bps,
	uint64_t start_bps, bool configured, uint64_t now_ns);

/**
 * Change the ceiling (set port N rate ..., a link speed change): the estimate is clamped to it
 * and, when it was at the old cap, follows the new one.
 */
void sb_path_est_set_cap(struct sb_path_est *e, const struct sb_path_est_conf *c,
	uint64_t cap_bps);

/**
 * Take one feedback report of the peer on this path.
 * @param now_ns         Arrival of the report, ns.
 * @param delivered_bps  The peer's received rate of our frames over its last report interval,
 *                       bit/s.
 * @param queue_us       The path's latest one-way delay above its windowed minimum, us.
 * @param allow_us       Queueing we build on purpose, us: the scheduler lets the fastest
 *                       paths queue up to the delay difference to the slowest (sb_sched.h,
 *                       arrival horizon); only a queue beyond allow_us + target_us counts.
 * @param sent_bytes     Bytes we have sent on the path so far (a running counter).
 * @return true when the estimate changed.
 */
bool sb_path_est_report(struct sb_path_est *e, const struct sb_path_est_conf *c, uint64_t now_ns,
	uint64_t delivered_bps, uint32_t queue_us, uint32_t allow_us, uint64_t sent_bytes);

/** @return "startup" or "steady". */
const char *sb_path_est_phase_str(unsigned int phase);

#endif /* SB_PATH_EST_H */
