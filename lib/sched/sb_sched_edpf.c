/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Earliest delivery path first (Chebrolu & Rao, "Bandwidth aggregation for real-time
 * applications in heterogeneous wireless networks", IEEE TMC 5(4), 2006): send each
 * frame on the path where, by the queue model, it would finish first:
 *
 *	finish_i = max(now, busy_until_i) + len * 8e9 / rate_i
 *
 * or, where the peer's port is modelled too (sb_sched.h), the time the frame would leave
 * that second queue (sb_sched_finish_ns()).
 *
 * plus, as in the paper, the path's one-way delay above the peer's fastest path (delay_ns,
 * measured by the receiver): the time the frame would arrive.
 *
 * Because the chosen finish time becomes that path's busy_until, successive arrival times
 * never decrease, so frames of equal size arrive in send order and the receiver's reorder
 * window stays small even on links of unequal rate and delay.
 */

#include <errno.h>

#include "sb_sched.h"

struct sb_sched_edpf {
	unsigned int next;	/* Scan start, just after the last pick: rotates ties. */
};

static int
sb_sched_edpf_init(void *priv, const struct sb_sched_view *v)
{
	(void)priv;
	(void)v;
	return 0;
}

static int
sb_sched_edpf_pick(void *priv, const struct sb_sched_view *v, uint32_t eligible, uint32_t len)
{
	struct sb_sched_edpf *e = priv;
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	uint64_t rate[SB_SCHED_MAX_PATHS];
	uint64_t best_finish = UINT64_MAX;
	int best = -EAGAIN;
	unsigned int k, i;

	if (n == 0)
		return -EAGAIN;
	sb_sched_rates(v, rate);
	/* Strict < keeps the first in scan order on a tie, and the scan starts after the last
	 * pick, so idle equal paths take turns instead of path 0 taking everything. The index
	 * wraps by comparison, not by %: this runs for every frame, and a division per path
	 * scanned cost more than the rest of the scan. */
	i = e->next < n ? e->next : e->next % n;
	for (k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
		uint64_t finish;

		if (!(eligible & (UINT32_C(1) << i)))
			continue;
		finish = sb_sched_finish_ns(v, i, len, rate[i]) + v->path[i].delay_ns;
		if (best < 0 || finish < best_finish) {
			best_finish = finish;
			best = (int)i;
		}
	}
	if (best >= 0)
		e->next = (unsigned int)best + 1 == n ? 0 : (unsigned int)best + 1;
	return best;
}

const struct sb_sched_ops sb_sched_edpf_ops = {
	.name = "edpf",
	.help = "earliest delivery path first: path where the frame would finish first, "
		"keeps arrivals in order on unequal links",
	.priv_size = sizeof(struct sb_sched_edpf),
	.init = sb_sched_edpf_init,
	.pick = sb_sched_edpf_pick,
	.fini = NULL,
};
