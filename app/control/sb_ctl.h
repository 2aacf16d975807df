/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CTL_H
#define SB_CTL_H

/**
 * @file
 * Control plane back end: one function per operation, shared by the console, the telemetry
 * endpoints and start-up.
 *
 * The control plane never touches datapath state. Every operation is posted as a command
 * (sb_dp.h) on the datapath's single-producer/single-consumer rte_ring, which the lcore
 * drains in its housekeeping step; the lcore applies it between bursts and marks it done.
 * Reads work the same way: the lcore copies its counters and tables into a snapshot. Control
 * threads (the console and the telemetry thread) serialise among themselves with a mutex
 * that the datapath never takes. The running configuration belongs to the back end; the
 * datapath has its own copy of what it reads (struct sb_dp_conf).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sb_config.h"
#include "sb_dp.h"

struct sb_ctl;

/**
 * Create the control back end for a datapath (running or about to run).
 * @param cfg  The running configuration; the back end owns updates to it from now on.
 * @param exc_port  The exception path's ethdev port (sb_exc_info), or RTE_MAX_ETHPORTS.
 * @return the back end or NULL with rte_errno set (ENOMEM).
 */
struct sb_ctl *sb_ctl_create(struct sb_config *cfg, struct sb_dp *dp, const uint16_t *port_ids,
	uint16_t exc_port);

/** Free the back end (after the datapath stopped). */
void sb_ctl_free(struct sb_ctl *ctl);

/**
 * Copy the running configuration (taken under the back end's lock, so a concurrent
 * sb_ctl_set() is never seen half done).
 * @param buf  Caller's buffer.
 * @return @p buf.
 */
const struct sb_config *sb_ctl_config(struct sb_ctl *ctl, struct sb_config *buf);

/** @return the number of member ports (fixed at start). */
unsigned int sb_ctl_n_ports(const struct sb_ctl *ctl);

/** @return ethdev port id of member port @p index, or -EINVAL. */
int sb_ctl_port_id(const struct sb_ctl *ctl, unsigned int index);

/** @return the exception path's ethdev port id, RTE_MAX_ETHPORTS when its back end is not
 *  an ethdev port (tap-vnet). */
uint16_t sb_ctl_exc_port(const struct sb_ctl *ctl);

/**
 * Copy the datapath's counters and tables.
 * @param snap  Caller's buffer (large: allocate it, do not put it on a small stack).
 * @return 0, or -ETIMEDOUT when the datapath did not answer within a second.
 */
int sb_ctl_snapshot(struct sb_ctl *ctl, struct sb_snapshot *snap);

/**
 * Set a configuration key on the running appliance: validated exactly as in the INI file
 * (sb_config_set()), then applied by the datapath, then recorded in the running
 * configuration. The keys that can change at run time are those the key table marks so
 * (sb_config_key_info runtime): [seqbond] scheduler, reorder_timeout_us, hello_interval_ms;
 * [portN] rate_mbit (the port's scheduling weight).
 *
 * @param err  One-line message naming what was wrong.
 * @return 0; -EINVAL (bad value or key, nothing changed), -ENOTSUP (key fixed at start),
 *   -ETIMEDOUT (datapath did not answer; nothing changed).
 */
int sb_ctl_set(struct sb_ctl *ctl, const char *section, const char *key, const char *value,
	char *err, size_t err_len);

/**
 * Administratively stop or start member port @p index without stopping the appliance: a
 * stopped port carries nothing, its paths go down at once (and on the peer after its dead
 * interval, since it hears no more hellos), and the ethdev port is stopped.
 * @return 0, -EINVAL (no such port), -EALREADY, -ETIMEDOUT, or the ethdev error.
 */
int sb_ctl_port_admin(struct sb_ctl *ctl, unsigned int index, bool up, char *err, size_t err_len);

/**
 * Read the cluster key file again (`[seqbond] cluster_key_file`, sb_keyfile.h) and hand its
 * keys to every datapath worker, which switches between bursts: a key rollover without an
 * outage (docs/config.md, "Cluster key"). Nothing changes unless the file is valid, keeps
 * the key every live peer sends with (unless @p force), and every worker took it.
 * @param force  Apply a file that drops a key a live peer (a path up) still sends with.
 * @param err  One-line message on failure (the first such peer, by host id and key id).
 * @return 0; -ENOTSUP (seqbond started without a cluster key: turning authentication on or
 *   off changes the exception MTU and needs a restart), the errors of sb_keyfile_load(),
 *   -EBUSY (a live peer still sends with a key the file drops), -EAGAIN (the peers' keys
 *   could not be read), -ETIMEDOUT (a worker did not answer: workers before it may have
 *   taken the keys).
 */
int sb_ctl_key_reload(struct sb_ctl *ctl, bool force, char *err, size_t err_len);

/**
 * Reset the counters of member port @p index (-1: all): ethdev stats and seqbond's per-port
 * counters. @return 0, -EINVAL or -ETIMEDOUT.
 */
int sb_ctl_clear_port_stats(struct sb_ctl *ctl, int index);

#endif /* SB_CTL_H */
