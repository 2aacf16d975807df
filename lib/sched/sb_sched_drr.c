/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deficit round robin by bytes (Shreedhar & Varghese, "Efficient fair queuing using deficit
 * round robin", SIGCOMM 1995), turned around: the paper shares one link among queues, here
 * one always-backlogged stream is shared among paths. Each path has a quantum of bytes
 * proportional to its rate and a deficit counter. The current path keeps sending while its
 * deficit covers the frame; otherwise the round moves to the next eligible path, which adds
 * its quantum. Over a round each path sends its quantum give or take one frame, so byte
 * shares follow the rates whatever the frame sizes.
 *
 * Quanta: the slowest path gets one full Ethernet frame, so with rate ratios up to
 * SB_DRR_MAX_RATIO every visit sends at least one frame (the paper's O(1) condition). Wider
 * ratios cap the fastest quantum instead of letting rounds grow without bound; slow paths
 * then need several visits per frame, which pick computes in closed form, not by looping.
 *
 * Paths out of the round (unusable or full) are skipped without quantum and keep at most one
 * quantum of credit: a path that was full is not starved when it comes back, nor does it
 * burst with credit saved while it was away.
 */

#include <errno.h>

#include "sb_sched.h"

/** Quantum of the slowest path, bytes: one full Ethernet frame (1500 + 14). */
#define SB_DRR_BASE_QUANTUM 1514
/** Fastest to slowest rate ratio the quanta follow with at least one frame per visit. */
#define SB_DRR_MAX_RATIO 64
/** Largest quantum, bytes: bounds the burst on one path and the round length. */
#define SB_DRR_MAX_QUANTUM ((uint64_t)SB_DRR_BASE_QUANTUM * SB_DRR_MAX_RATIO)

struct sb_sched_drr {
	uint64_t quantum[SB_SCHED_MAX_PATHS];	/* bytes added per visit, >= 1 */
	uint64_t deficit[SB_SCHED_MAX_PATHS];	/* bytes the path may still send */
	uint64_t rate_seen[SB_SCHED_MAX_PATHS];	/* rate_bps the quanta were computed from */
	uint64_t path_rate_seen[SB_SCHED_MAX_PATHS];	/* ... path_rate_bps */
	uint64_t remote_rate_seen[SB_SCHED_MAX_PATHS];	/* ... remote_rate_bps */
	unsigned int n_seen;	/* n_paths the quanta were computed for */
	unsigned int cur;	/* path of the current visit */
};

/* Recompute the quanta from the view's rates; O(n_paths), only when a rate changed. */
static void
sb_sched_drr_setup(struct sb_sched_drr *d, const struct sb_sched_view *v, unsigned int n)
{
	uint64_t rate[SB_SCHED_MAX_PATHS];
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int i, shift = 0;

	sb_sched_path_rates(v, rate);
	for (i = 0; i < n; i++) {
		d->rate_seen[i] = v->path[i].rate_bps;
		d->path_rate_seen[i] = v->path[i].path_rate_bps;
		d->remote_rate_seen[i] = v->path[i].remote_rate_bps;
		if (rate[i] < lo)
			lo = rate[i];
		if (rate[i] > hi)
			hi = rate[i];
	}
	d->n_seen = n;
	if (n == 0)
		return;
	/* Scale rates below 2^40 (1 Tbit/s) so rate * quantum fits in 64 bits. */
	while ((hi >> shift) >= (UINT64_C(1) << 40))
		shift++;
	hi >>= shift;
	lo >>= shift;
	if (lo == 0)
		lo = 1;
	for (i = 0; i < n; i++) {
		uint64_t r = rate[i] >> shift;
		uint64_t q;

		/* Rounded to nearest, so off by at most half a byte. */
		if (hi <= lo * SB_DRR_MAX_RATIO)
			q = (r * SB_DRR_BASE_QUANTUM + lo / 2) / lo;
		else
			q = (r * SB_DRR_MAX_QUANTUM + hi / 2) / hi;
		d->quantum[i] = q != 0 ? q : 1;
		if (d->deficit[i] > d->quantum[i])
			d->deficit[i] = d->quantum[i];
	}
}

static int
sb_sched_drr_init(void *priv, const struct sb_sched_view *v)
{
	struct sb_sched_drr *d = priv;
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;

	sb_sched_drr_setup(d, v, n);
	/* The first move lands on path 0. */
	d->cur = n != 0 ? n - 1 : 0;
	return 0;
}

/* True when the view's rates or path count differ from those the quanta came from. */
static int
sb_sched_drr_rates_changed(const struct sb_sched_drr *d, const struct sb_sched_view *v,
	unsigned int n)
{
	unsigned int i;

	if (n != d->n_seen)
		return 1;
	for (i = 0; i < n; i++)
		if (v->path[i].rate_bps != d->rate_seen[i] ||
				v->path[i].path_rate_bps != d->path_rate_seen[i] ||
				v->path[i].remote_rate_bps != d->remote_rate_seen[i])
			return 1;
	return 0;
}

static int
sb_sched_drr_pick(void *priv, const struct sb_sched_view *v, uint32_t eligible, uint32_t len)
{
	struct sb_sched_drr *d = priv;
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	uint64_t best_t = UINT64_MAX, t;
	unsigned int m, k, i, pos;
	int best = -1;

	if (sb_sched_drr_rates_changed(d, v, n))
		sb_sched_drr_setup(d, v, n);
	eligible &= n < 32 ? (UINT32_C(1) << n) - 1 : UINT32_MAX;
	if (eligible == 0)
		return -EAGAIN;

	/* DRR's inner loop: stay on the current path while its deficit lasts. */
	if (d->cur < n && (eligible & (UINT32_C(1) << d->cur)) && d->deficit[d->cur] >= len) {
		d->deficit[d->cur] -= len;
		return (int)d->cur;
	}

	/*
	 * Move on. Number the m eligible paths 1..m in round order from the one after cur; the
	 * k-th visit to position p is visit (k - 1) * m + p, and adds one quantum. The winner is
	 * the path whose deficit covers len at the earliest visit. Usually that is position 1
	 * after one visit; when a quantum is smaller than the frame, several rounds are folded
	 * into this one pass instead of being looped through.
	 */
	m = (unsigned int)__builtin_popcount(eligible);
	pos = 0;
	for (k = 1; k <= n; k++) {
		uint64_t need, visits;

		i = (d->cur + k) % n;
		if (!(eligible & (UINT32_C(1) << i))) {
			if (d->deficit[i] > d->quantum[i])
				d->deficit[i] = d->quantum[i];
			continue;
		}
		pos++;
		need = d->deficit[i] >= len ? 0 : len - d->deficit[i];
		visits = need <= d->quantum[i] ? 1 : (need + d->quantum[i] - 1) / d->quantum[i];
		t = (visits - 1) * m + pos;
		if (t < best_t) {
			best_t = t;
			best = (int)i;
		}
	}

	/* Credit every path with the visits it had before the winner's, in the same order. */
	pos = 0;
	for (k = 1; k <= n; k++) {
		i = (d->cur + k) % n;
		if (!(eligible & (UINT32_C(1) << i)))
			continue;
		pos++;
		if (pos > best_t)
			break;
		d->deficit[i] += ((best_t - pos) / m + 1) * d->quantum[i];
	}
	d->cur = (unsigned int)best;
	d->deficit[d->cur] -= len;
	return best;
}

const struct sb_sched_ops sb_sched_drr_ops = {
	.name = "drr",
	.help = "deficit round robin by bytes, quantum proportional to path rate",
	.priv_size = sizeof(struct sb_sched_drr),
	.init = sb_sched_drr_init,
	.pick = sb_sched_drr_pick,
	.fini = NULL,
};
