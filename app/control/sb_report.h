/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>

#include "sb_dp.h"

/**
 * Print every datapath, port, peer, path and reorder counter of @p s to @p f (the exit
 * report; tests/integration/sb_counters.py parses it). Reads ethdev stats of the ports named
 * in the snapshot.
 */
void sb_report_print(FILE *f, const struct sb_snapshot *s);

#endif /* SB_REPORT_H */
