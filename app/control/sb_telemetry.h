/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_TELEMETRY_H
#define SB_TELEMETRY_H

struct sb_ctl;

/**
 * Register /seqbond/info, /seqbond/peers, /seqbond/paths and /seqbond/reorder with DPDK
 * telemetry (read with dpdk-telemetry.py). Call once, after sb_ctl_create().
 * @return 0 or -EINVAL (a name was refused).
 */
int sb_telemetry_register(struct sb_ctl *ctl);

/** Make the endpoints answer with an error from now on (before the back end is freed;
 *  DPDK 22.11 cannot unregister telemetry commands). */
void sb_telemetry_unregister(void);

#endif /* SB_TELEMETRY_H */
