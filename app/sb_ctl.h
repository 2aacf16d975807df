/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CTL_H
#define SB_CTL_H

/**
 * @file
 * Control plane back end: one function per operation, shared by the console, the telemetry
 * endpoints and start-up.
 *
 * The control plane never touches datapath state. Every operation is posted as a command on
 * a single-producer/single-consumer rte_ring that the datapath lcore drains in its
 * housekeeping step; the lcore applies it between bursts and marks it done. Reads work the
 * same way: the lcore copies its counters and tables into a snapshot. Control threads (the
 * console and the telemetry thread) serialise among themselves with a mutex that the
 * datapath never takes.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sb_config.h"
#include "sb_dp.h"

/** What the lcore copies for readers. */
struct sb_snapshot {
	uint64_t hz;			/**< TSC cycles per second. */
	uint64_t tsc;			/**< When it was taken. */
	char scheduler[16];
	uint32_t reorder_timeout_us;
	uint32_t hello_interval_ms;
	struct sb_dp_stats stats;
	unsigned int n_ports;
	struct sb_snap_port {
		uint16_t port_id;
		uint8_t link_up;
		uint8_t admin_up;
		uint64_t rate_bps;
		uint64_t tx_frames, tx_bytes;
		uint64_t busy_ns;	/**< Modelled backlog now. */
	} port[SB_MAX_PORTS];
	struct sb_peer_table peers;
	struct sb_snap_peer {
		uint32_t tx_seq;
		uint32_t rx_next_seq;
		uint64_t path_tx[SB_PEER_MAX_PATHS], path_tx_bytes[SB_PEER_MAX_PATHS];
		uint64_t path_rx[SB_PEER_MAX_PATHS], path_rx_bytes[SB_PEER_MAX_PATHS];
		struct sb_reorder_stats reorder;
		uint64_t hold_now;	/**< TSC cycles the oldest held frame has waited. */
	} peer[SB_MAX_PEERS];
};

struct sb_ctl;

/**
 * Create the control back end for a running datapath.
 * @param cfg  The running configuration; the back end owns updates to it from now on.
 * @return the back end or NULL with rte_errno set (ENOMEM, EEXIST for the ring).
 */
struct sb_ctl *sb_ctl_create(struct sb_config *cfg, struct sb_dp *dp, const uint16_t *port_ids,
	uint16_t exc_port);

/** Free the back end (after the datapath stopped). */
void sb_ctl_free(struct sb_ctl *ctl);

/** @return the running configuration (read-only for callers). */
const struct sb_config *sb_ctl_config(const struct sb_ctl *ctl);

/**
 * Copy the running configuration while no console changes it (sb_ctl_set() replaces it
 * under the same lock), for readers that print all of it: show config, save config.
 * @param out  Caller's buffer.
 */
void sb_ctl_config_copy(struct sb_ctl *ctl, struct sb_config *out);

/** @return ethdev port id of member port @p index, or -EINVAL. */
int sb_ctl_port_id(const struct sb_ctl *ctl, unsigned int index);

/** @return the exception port's ethdev id. */
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
 * configuration. Keys that can change at run time: [seqbond] scheduler, reorder_timeout_us,
 * hello_interval_ms; [portN] rate_mbit (the port's scheduling weight).
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
 * Reset the counters of member port @p index (-1: all): ethdev stats and seqbond's per-port
 * counters. @return 0, -EINVAL or -ETIMEDOUT.
 */
int sb_ctl_clear_port_stats(struct sb_ctl *ctl, int index);

/** Commands the lcore executes (sb_dp_ctl.c). */
enum sb_cmd_type {
	SB_CMD_SNAPSHOT,
	SB_CMD_SET_SCHED,		/**< ops */
	SB_CMD_SET_PORT_RATE,		/**< port, value = bits/s */
	SB_CMD_PORT_ADMIN,		/**< port, value = 1 up / 0 down */
	SB_CMD_SET_REORDER_TIMEOUT,	/**< value = TSC cycles */
	SB_CMD_SET_HELLO_INTERVAL,	/**< value = ms */
	SB_CMD_CLEAR_PORT_STATS,	/**< port, or UINT32_MAX for all */
};

struct sb_cmd {
	enum sb_cmd_type type;
	uint32_t port;
	uint64_t value;
	const struct sb_sched_ops *ops;
	struct sb_snapshot *snap;
	int result;			/**< Set by the lcore before done. */
	bool done;			/**< Stored with release by the lcore. */
};

/** Lcore side: apply one command (called from housekeeping). */
void sb_dp_cmd_apply(struct sb_dp *dp, struct sb_cmd *cmd, uint64_t now);

#endif /* SB_CTL_H */
