/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>

struct sb_dp;

/** Print every datapath, port, peer, path and reorder counter to @p f. */
void sb_report_print(FILE *f, const struct sb_dp *dp);

#endif /* SB_REPORT_H */
