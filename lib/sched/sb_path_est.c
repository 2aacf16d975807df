/* SPDX-License-Identifier: BSD-3-Clause */
#include "sb_path_est.h"

#define NS_PER_S UINT64_C(1000000000)
#define MAX_BUCKET_NS NS_PER_S		/* delivered-rate maximum: two buckets of 1 s */
#define LIMITED_PCT 80			/* sent >= 80 % of the estimate: limited by it */
#define DECREASE_PCT 95			/* on a standing queue: 95 % of what was delivered */
#define QMIN_BUCKET_NS NS_PER_S		/* queue floor: two buckets of 1 s */
#define BUSY_PCT 10			/* sent < 10 % of the estimate: idle, no decrease */
#define OVERDRIVE_PCT 110		/* sent > 110 % of delivered: the queue is ours */
#define INCREASE_PERMILLE 10		/* additive step: 1 % of the recent maximum */
#define STEP_MAX_PCT 5			/* ... never above 5 % of the rate it adds to */

static uint64_t
clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v > hi)
		v = hi;
	return v < lo ? lo : v;
}

void
sb_path_est_init(struct sb_path_est *e, const struct sb_path_est_conf *c, uint64_t cap_bps,
	uint64_t start_bps, bool configured, uint64_t now_ns)
{
	*e = (struct sb_path_est){ 0 };
	e->cap_bps = cap_bps > c->floor_bps ? cap_bps : c->floor_bps;
	e->step_bps = configured ? e->cap_bps * INCREASE_PERMILLE / 1000 : 0;
	e->rate_bps = clamp(start_bps, c->floor_bps, e->cap_bps);
	e->phase = e->rate_bps >= e->cap_bps ? SB_PATH_EST_STEADY : SB_PATH_EST_STARTUP;
	e->max_epoch_ns = now_ns;
	e->qmin_us[0] = e->qmin_us[1] = UINT32_MAX;
	e->qmin_epoch_ns = now_ns;
}

void
sb_path_est_set_cap(struct sb_path_est *e, const struct sb_path_est_conf *c, uint64_t cap_bps)
{
	bool at_cap = e->rate_bps >= e->cap_bps;

	e->cap_bps = cap_bps > c->floor_bps ? cap_bps : c->floor_bps;
	if (e->step_bps != 0)
		e->step_bps = e->cap_bps * INCREASE_PERMILLE / 1000;
	if (at_cap || e->rate_bps > e->cap_bps)
		e->rate_bps = e->cap_bps;
}

static uint64_t
recent_max(const struct sb_path_est *e)
{
	return e->max_bps[0] > e->max_bps[1] ? e->max_bps[0] : e->max_bps[1];
}

bool
sb_path_est_report(struct sb_path_est *e, const struct sb_path_est_conf *c, uint64_t now_ns,
	uint64_t delivered_bps, uint32_t queue_us, uint32_t allow_us, uint64_t sent_bytes)
{
	uint64_t old = e->rate_bps, sent_bps, dt, step, dlv_bps;
	uint32_t qfloor;
	bool limited, busy, overdriven;
	uint32_t q;

	e->reports++;
	if (now_ns - e->max_epoch_ns >= MAX_BUCKET_NS) {
		e->max_bps[1] = e->max_bps[0];
		e->max_bps[0] = 0;
		e->max_epoch_ns = now_ns;
	}
	if (delivered_bps > e->max_bps[0])
		e->max_bps[0] = delivered_bps;
	/* What the path delivers, robust to one short sample: max of the last three. */
	dlv_bps = delivered_bps;
	if (e->dlv_prev_bps[0] > dlv_bps)
		dlv_bps = e->dlv_prev_bps[0];
	if (e->dlv_prev_bps[1] > dlv_bps)
		dlv_bps = e->dlv_prev_bps[1];
	e->dlv_prev_bps[1] = e->dlv_prev_bps[0];
	e->dlv_prev_bps[0] = delivered_bps;
	if (!e->have_sample) {
		/* The first report only sets the marks: there is no interval to rate yet. */
		e->have_sample = 1;
		e->last_ns = now_ns;
		e->last_sent = sent_bytes;
		e->q_prev_us = queue_us;
		return false;
	}
	dt = now_ns - e->last_ns;
	sent_bps = dt != 0 ? (sent_bytes - e->last_sent) * 8 * NS_PER_S / dt : 0;
	e->last_ns = now_ns;
	e->last_sent = sent_bytes;
	/* A queue that stood through two reports, not one delayed sample (jitter). */
	q = queue_us < e->q_prev_us ? queue_us : e->q_prev_us;
	e->q_prev_us = queue_us;
	/* ... above the smallest of the last 1-2 s: a queue we build is drained by the
	 * decrease within that, while a longer route stays (the peer's minimum would take
	 * 10-20 s to forget the shorter one). */
	if (now_ns - e->qmin_epoch_ns >= QMIN_BUCKET_NS) {
		e->qmin_us[1] = e->qmin_us[0];
		e->qmin_us[0] = UINT32_MAX;
		e->qmin_epoch_ns = now_ns;
	}
	if (queue_us < e->qmin_us[0])
		e->qmin_us[0] = queue_us;
	qfloor = e->qmin_us[0] < e->qmin_us[1] ? e->qmin_us[0] : e->qmin_us[1];
	q = q > allow_us ? q - allow_us : 0;	/* what we queue on purpose is no signal */
	/* While we send clearly more than arrives the queue is ours whatever its floor (a
	 * link far slower than its estimate from the start); otherwise only what stands above
	 * the floor counts. */
	overdriven = sent_bps * 100 > dlv_bps * OVERDRIVE_PCT;
	if (!overdriven)
		q = q > qfloor ? q - qfloor : 0;

	limited = sent_bps * 100 >= e->rate_bps * LIMITED_PCT;
	/* An idle path (hellos only) learns nothing: its delay samples wander when a virtual
	 * CPU stalls, and what arrives is our demand, not what the path carries. A path that
	 * carries less than its estimate but more than that (one slow path holds the whole
	 * stream back) may well be the one to slow down. */
	busy = sent_bps * 100 >= e->rate_bps * BUSY_PCT;
	if (q > c->target_us && busy) {
		if (now_ns >= e->hold_until_ns && dlv_bps != 0) {
			uint64_t r = dlv_bps * DECREASE_PCT / 100;

			/* One report never takes more than half: a wrong sample costs little. */
			if (r < e->rate_bps / 2)
				r = e->rate_bps / 2;

			if (r < e->rate_bps) {
				e->rate_bps = clamp(r, c->floor_bps, e->cap_bps);
				e->decreases++;
			}
			e->phase = SB_PATH_EST_STEADY;
			/* The queue we built drains at (rate - new estimate): give it the time
			 * it stood for, and at least two reports, before judging again. */
			e->hold_until_ns = now_ns + 2 * dt + (uint64_t)q * 1000;
		}
	} else if (limited && e->rate_bps < e->cap_bps) {
		if (e->phase == SB_PATH_EST_STARTUP) {
			e->rate_bps = clamp(e->rate_bps * 2, c->floor_bps, e->cap_bps);
		} else {
			uint64_t base = recent_max(e) > e->rate_bps ? recent_max(e) : e->rate_bps;

			step = e->step_bps != 0 ? e->step_bps :
				recent_max(e) * INCREASE_PERMILLE / 1000;
			/* A cap far above the path (1 Gbit/s configured, 5 carried) must not
			 * step past it in one report. */
			if (step > base * STEP_MAX_PCT / 100)
				step = base * STEP_MAX_PCT / 100;
			if (step < c->floor_bps / 8)
				step = c->floor_bps / 8;	/* still moves when nothing arrived */
			e->rate_bps = clamp(e->rate_bps + step, c->floor_bps, e->cap_bps);
		}
		if (e->rate_bps >= e->cap_bps)
			e->phase = SB_PATH_EST_STEADY;
		e->increases++;
	}
	return e->rate_bps != old;
}

const char *
sb_path_est_phase_str(unsigned int phase)
{
	return phase == SB_PATH_EST_STARTUP ? "startup" : "steady";
}
