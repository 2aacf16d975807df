/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet round robin over the eligible paths, blind to rates and lengths: the
 * balance-rr baseline the other policies are measured against.
 */

#include <errno.h>

#include "sb_sched.h"

struct sb_sched_rr {
	unsigned int last;	/* Path picked last; the next pick starts after it. */
};

static int
sb_sched_rr_init(void *priv, const struct sb_sched_view *v)
{
	struct sb_sched_rr *rr = priv;

	/* Start just before path 0 so the first frame goes to the lowest eligible path. */
	rr->last = v->n_paths != 0 ? v->n_paths - 1 : 0;
	return 0;
}

static int
sb_sched_rr_pick(void *priv, const struct sb_sched_view *v, uint32_t eligible, uint32_t len)
{
	struct sb_sched_rr *rr = priv;
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	unsigned int k, i;

	(void)len;
	/* Visits every index once, ending on last, even if n_paths shrank below it. */
	for (k = 1; k <= n; k++) {
		i = (rr->last + k) % n;
		if (eligible & (UINT32_C(1) << i)) {
			rr->last = i;
			return (int)i;
		}
	}
	return -EAGAIN;
}

const struct sb_sched_ops sb_sched_rr_ops = {
	.name = "rr",
	.help = "per-packet round robin over usable paths, ignoring rates (balance-rr baseline)",
	.priv_size = sizeof(struct sb_sched_rr),
	.init = sb_sched_rr_init,
	.pick = sb_sched_rr_pick,
	.fini = NULL,
};
