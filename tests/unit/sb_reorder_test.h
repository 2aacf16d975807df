/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_REORDER_TEST_H
#define SB_REORDER_TEST_H

/* Helpers shared by the reorder window's unit tests (test_reorder.c, test_seq_edges.c). */

#include "sb_reorder.h"

/* The window's counters, by value, for use inside a check. */
static inline struct sb_reorder_stats
stats(const struct sb_reorder *r)
{
	struct sb_reorder_stats st;

	sb_reorder_stats_get(r, &st);
	return st;
}

#endif /* SB_REORDER_TEST_H */
