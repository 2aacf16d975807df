/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TX scheduler registry and the parts every policy shares: eligibility, the per-path queue
 * model (charge), and rate resolution. The policies live one per file (sb_sched_*.c).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sb_sched.h"

/* In the order documentation and console help list them: baseline first. */
static const struct sb_sched_ops *const sb_sched_policies[] = {
	&sb_sched_rr_ops,
	&sb_sched_drr_ops,
	&sb_sched_edpf_ops,
};

#define SB_SCHED_N_POLICIES (sizeof(sb_sched_policies) / sizeof(sb_sched_policies[0]))

const struct sb_sched_ops *
sb_sched_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < SB_SCHED_N_POLICIES; i++)
		if (strcmp(sb_sched_policies[i]->name, name) == 0)
			return sb_sched_policies[i];
	return NULL;
}

const struct sb_sched_ops *
sb_sched_get(unsigned int i)
{
	return i < SB_SCHED_N_POLICIES ? sb_sched_policies[i] : NULL;
}

int
sb_sched_init(struct sb_sched *s, const struct sb_sched_ops *ops, const struct sb_sched_view *v)
{
	void *priv;
	int ret;

	if (s == NULL || ops == NULL || ops->pick == NULL || v == NULL ||
			v->n_paths > SB_SCHED_MAX_PATHS)
		return -EINVAL;
	/* calloc(1, 0) may return NULL; always allocate so NULL means out of memory. */
	priv = calloc(1, ops->priv_size != 0 ? ops->priv_size : 1);
	if (priv == NULL)
		return -ENOMEM;
	if (ops->init != NULL) {
		ret = ops->init(priv, v);
		if (ret < 0) {
			free(priv);
			return ret;
		}
	}
	s->ops = ops;
	s->priv = priv;
	return 0;
}

void
sb_sched_fini(struct sb_sched *s)
{
	if (s == NULL || s->ops == NULL)
		return;
	if (s->ops->fini != NULL)
		s->ops->fini(s->priv);
	free(s->priv);
	s->ops = NULL;
	s->priv = NULL;
}

/* Is a queue that drains at @p until more than @p limit ns ahead of @p now? */
static inline bool
backlog_over(uint64_t until, uint64_t now, uint64_t limit)
{
	/* Compare the backlog rather than now + limit so a huge limit cannot wrap. */
	return until > now && until - now > limit;
}

uint32_t
sb_sched_eligible(const struct sb_sched_view *v)
{
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	uint64_t spread = 0, limit;
	uint32_t mask = 0;
	unsigned int i;

	/* Every path may hold frames up to one common arrival horizon, now + max_backlog +
	 * the largest delay among the usable paths: the fastest path queues that much longer
	 * (else a path 5 ms longer would never be worth a frame under a 2 ms limit), a
	 * delayed one that much less, and frames chosen at the limit still arrive in order. */
	for (i = 0; i < n; i++)
		if (v->path[i].usable && v->path[i].delay_ns > spread)
			spread = v->path[i].delay_ns;
	for (i = 0; i < n; i++) {
		const struct sb_sched_path *p = &v->path[i];

		if (!p->usable)
			continue;
		if (v->max_backlog_ns != 0) {
			limit = v->max_backlog_ns + spread - p->delay_ns;
			if (backlog_over(p->busy_until_ns, v->now_ns, limit))
				continue;
			if (p->path_rate_bps != 0 &&
					backlog_over(p->pbusy_until_ns, v->now_ns, limit))
				continue;
			if (p->remote_rate_bps != 0 &&
					backlog_over(p->rbusy_until_ns, v->now_ns, limit))
				continue;
		}
		mask |= UINT32_C(1) << i;
	}
	return mask;
}

int
sb_sched_pick(struct sb_sched *s, const struct sb_sched_view *v, uint32_t len)
{
	uint32_t eligible = sb_sched_eligible(v);

	if (eligible == 0)
		return -EAGAIN;
	return s->ops->pick(s->priv, v, eligible, len);
}

/* Slowest known rate among paths 0..n-1, or the default when none is known. */
static uint64_t
sb_sched_unknown_rate(const struct sb_sched_view *v, unsigned int n)
{
	uint64_t slowest = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t r = v->path[i].rate_bps;

		if (r != 0 && (slowest == 0 || r < slowest))
			slowest = r;
	}
	return slowest != 0 ? slowest : SB_SCHED_DEFAULT_RATE_BPS;
}

void
sb_sched_rates(const struct sb_sched_view *v, uint64_t rate[SB_SCHED_MAX_PATHS])
{
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	uint64_t unknown = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rate[i] = v->path[i].rate_bps;
		if (rate[i] != 0)
			continue;
		/* Resolved once, and only when some rate is unknown. */
		if (unknown == 0)
			unknown = sb_sched_unknown_rate(v, n);
		rate[i] = unknown;
	}
}

void
sb_sched_path_rates(const struct sb_sched_view *v, uint64_t rate[SB_SCHED_MAX_PATHS])
{
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	unsigned int i;

	sb_sched_rates(v, rate);
	for (i = 0; i < n; i++) {
		const struct sb_sched_path *p = &v->path[i];

		if (p->path_rate_bps != 0 && p->path_rate_bps < rate[i])
			rate[i] = p->path_rate_bps;
		if (p->remote_rate_bps != 0 && p->remote_rate_bps < rate[i])
			rate[i] = p->remote_rate_bps;
	}
}

static inline uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t
sb_sched_finish_ns(const struct sb_sched_view *v, unsigned int path, uint32_t len,
	uint64_t rate)
{
	const struct sb_sched_path *p = &v->path[path];
	uint64_t start = p->busy_until_ns > v->now_ns ? p->busy_until_ns : v->now_ns;
	uint64_t finish = sat_add(start, sb_sched_tx_ns(len, rate));

	if (p->path_rate_bps != 0) {
		start = p->pbusy_until_ns > finish ? p->pbusy_until_ns : finish;
		finish = sat_add(start, sb_sched_tx_ns(len, p->path_rate_bps));
	}
	if (p->remote_rate_bps != 0) {
		/* Store and forward at the peer's port: it starts sending the frame once it
		 * has it all and its queue has drained. */
		start = p->rbusy_until_ns > finish ? p->rbusy_until_ns : finish;
		finish = sat_add(start, sb_sched_tx_ns(len, p->remote_rate_bps));
	}
	return finish;
}

void
sb_sched_charge(struct sb_sched_view *v, unsigned int path, uint32_t len)
{
	unsigned int n = v->n_paths < SB_SCHED_MAX_PATHS ? v->n_paths : SB_SCHED_MAX_PATHS;
	struct sb_sched_path *p;
	uint64_t rate, start, last;

	if (path >= n)
		return;
	p = &v->path[path];
	rate = p->rate_bps != 0 ? p->rate_bps : sb_sched_unknown_rate(v, n);
	/* An idle queue starts draining now, not when it last went idle. */
	start = p->busy_until_ns > v->now_ns ? p->busy_until_ns : v->now_ns;
	p->busy_until_ns = sat_add(start, sb_sched_tx_ns(len, rate));
	last = p->busy_until_ns;
	if (p->path_rate_bps != 0) {
		start = p->pbusy_until_ns > last ? p->pbusy_until_ns : last;
		p->pbusy_until_ns = sat_add(start, sb_sched_tx_ns(len, p->path_rate_bps));
		last = p->pbusy_until_ns;
	}
	if (p->remote_rate_bps != 0) {
		start = p->rbusy_until_ns > last ? p->rbusy_until_ns : last;
		p->rbusy_until_ns = sat_add(start, sb_sched_tx_ns(len, p->remote_rate_bps));
	}
}
