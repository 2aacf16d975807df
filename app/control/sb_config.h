/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

/**
 * @file
 * The INI configuration, parsed with rte_cfgfile. One table in sb_config.c describes every
 * key (section, name, type, range, default, field, one-line help); parsing, the defaults,
 * `show config` and `save config`, the console's `set` and the copy into struct sb_dp_conf
 * all come from it, and the unit test test_config_docs checks that docs/config.md has a row
 * for each key with the same default and range.
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "sb_dp.h"
#include "sb_exception.h"
#include "sb_peer.h"
#include "sb_reorder.h"

#define SB_DEVARGS_LEN 256
/*
 * What were keys and are fixed or derived (docs/config.md, "Removed keys"): frames per burst
 * (a TSO segment cuts into up to 44 frames; docs/design.md, "Burst size"); descriptors per
 * port queue, before the driver's limits; data queued in front of a path before it is full,
 * us; the queueing delay that says a path is sent too fast, us; the span the loss share is
 * measured over, ms; full-size probes every this many hello intervals.
 */
#define SB_CONFIG_BURST 128
#define SB_CONFIG_PORT_DESC 1024
#define SB_CONFIG_MAX_BACKLOG_US 2000
#define SB_CONFIG_QUEUE_TARGET_US 3000
#define SB_CONFIG_PATH_LOSS_WINDOW_MS 1000
#define SB_CONFIG_MTU_PROBE_HELLOS 20
#define SB_IFNAME_LEN 16
#define SB_KEYFILE_PATH_LEN 256	/**< A value's room in rte_cfgfile (CFG_VALUE_LEN). */

/** [portN] passthrough: raw frames to and from a per-port kernel interface. */
enum sb_passthrough {
	SB_PASSTHROUGH_AUTO = 0,	/**< On for PCI devices, off for vdevs. */
	SB_PASSTHROUGH_ON,
	SB_PASSTHROUGH_OFF,
};

struct sb_port_config {
	char devargs[SB_DEVARGS_LEN];	/**< PCI address or vdev string. */
	uint8_t passthrough;		/**< enum sb_passthrough */
	uint32_t rate_kbps;		/**< Link rate, kbit/s. */
	uint16_t mtu;			/**< Link MTU, bytes (L2 payload). */
};

/** Where the default host id comes from. */
#define SB_MACHINE_ID_FILE "/etc/machine-id"

/** Where host_id came from. */
enum sb_host_id_source {
	SB_HOST_ID_CONFIG = 0,	/**< The file's host_id. */
	SB_HOST_ID_MACHINE,	/**< SB_MACHINE_ID_FILE and mac (sb_peer_host_id_derive()). */
	SB_HOST_ID_MAC,		/**< mac's low four bytes: SB_MACHINE_ID_FILE unreadable
				 *   (host_id_errno says why). */
};

struct sb_config {
	char file[PATH_MAX];		/**< Where it was read from (for messages and save). */
	uint32_t host_id;		/**< Non-zero; default derived from SB_MACHINE_ID_FILE
					 *   and mac (host_id_source). */
	uint8_t host_id_source;		/**< enum sb_host_id_source */
	int host_id_errno;		/**< Why SB_MACHINE_ID_FILE was not used (errno). */
	uint8_t mac[SB_ETH_ALEN];	/**< Aggregate MAC: the exception interface's. */
	char scheduler[16];		/**< Scheduler policy name (sb_sched_find). */
	uint32_t hello_interval_ms;
	uint32_t hello_multiplier;	/**< Missed hellos before a path is down. */
	uint32_t peer_silence_hold_ms;	/**< Hold of a peer silent on every path, ms. */
	uint32_t reorder_window;	/**< Frames, power of two. */
	uint32_t reorder_timeout_us;
	uint32_t reorder_timeout_max_us;	/**< The hold may grow to this with the
						 *   paths' delay spread; <= reorder_timeout_us:
						 *   fixed. */
	enum sb_reorder_late_policy late_policy;
	bool initial_seq_set;		/**< Tests start sequence numbers at a chosen value. */
	uint32_t initial_seq;
	bool lcore_dedicated;		/**< lcore_mode = dedicated: the datapath lcores
					 *   busy-poll instead of sleeping when idle. */
	uint32_t hello_idle_interval_ms;	/**< Hello interval while the host carries no
						 *   traffic (0: always hello_interval_ms). */
	uint32_t hello_idle_rx_max;	/**< Idle hellos a port may hear a second: the idle
					 *   interval grows with the peers (0: fixed). */
	uint32_t path_loss_max_pct;	/**< A path losing more leaves the stripe; 0: never. */
	bool adaptive_rate;		/**< Learn each path's rate from the peer's feedback. */
	char cluster_key_file[SB_KEYFILE_PATH_LEN];	/**< Absolute path of the cluster key
							 *   file (sb_keyfile.h); "": no key,
							 *   frames unauthenticated. The keys
							 *   themselves are never in here. */

	enum sb_exc_type exc_type;	/**< Default SB_EXC_AUTO (sb_exception.h). */
	char exc_name[SB_IFNAME_LEN];	/**< Kernel interface name, default "sb0". */
	uint16_t exc_mtu;		/**< 0: smallest port MTU minus sb_config_overhead(). */

	unsigned int n_ports;
	struct sb_port_config port[SB_MAX_PORTS];
};

/** @return the bytes the wire adds to an elided inner frame with this configuration: 10, or
 *  34 with a cluster key (sb_wire_overhead()). */
static inline unsigned int
sb_config_overhead(const struct sb_config *c)
{
	return sb_wire_overhead(c->cluster_key_file[0] != '\0');
}

/** The sections of the file. */
enum sb_config_section {
	SB_CONFIG_SEQBOND,	/**< [seqbond]: fields of struct sb_config. */
	SB_CONFIG_EXCEPTION,	/**< [exception]: fields of struct sb_config. */
	SB_CONFIG_PORT,		/**< [port0]..[port15]: fields of struct sb_port_config. */
};

/** One key as docs/config.md and the console describe it (sb_config_key()). */
struct sb_config_key_info {
	enum sb_config_section section;
	const char *name;
	const char *help;	/**< One line, no final period. */
	char def[64];		/**< The default as docs/config.md writes it: a number, a
				 *   `word`, or a phrase such as "(required)". */
	char range[64];		/**< The values accepted, as docs/config.md writes them. */
	bool runtime;		/**< Changes while seqbond runs (sb_ctl_set()). */
	enum sb_cmd_type cmd;	/**< When runtime: the datapath command that applies it. */
};

/**
 * Describe key @p i of the table, in the order `save config` writes them.
 * @return 0, or -ENOENT when @p i is past the last key.
 */
int sb_config_key(unsigned int i, struct sb_config_key_info *info);

/**
 * Write the value of key @p i of the table in @p c as a file says it: "random" for an unset
 * initial_seq, "" for an unset text key such as cluster_key_file.
 * @param port  For a [portN] key, the port (< c->n_ports); ignored otherwise.
 * @param buf   Room for the value; @param len its size (64 holds any but a path or devargs).
 * @return 0, or -ENOENT when @p i is past the last key or @p port past the last port.
 */
int sb_config_value(const struct sb_config *c, unsigned int i, unsigned int port, char *buf,
	size_t len);

/**
 * Describe the key @p name of @p section ("seqbond", "exception" or "portN").
 * @return 0, or -ENOENT for no such section or key.
 */
int sb_config_key_find(const char *section, const char *name, struct sb_config_key_info *info);

/** @return the section's name: "seqbond", "exception" or "portN". */
const char *sb_config_section_name(enum sb_config_section s);

/** Fill @p c with the table's defaults (no ports; every port's keys at their defaults). */
void sb_config_defaults(struct sb_config *c);

/**
 * Load and validate an INI file into @p c (defaults first, then the file).
 *
 * @param err     Receives a one-line message naming the file, section, key and value at
 *   fault; @param err_len its size.
 * @return 0, or -EINVAL (bad content), -ENOENT/-EACCES (cannot read the file).
 */
int sb_config_load(struct sb_config *c, const char *file, char *err, size_t err_len);

/**
 * Set one key of a loaded configuration, with the same validation as the file loader. The
 * console's set commands go through here, so a value is checked in exactly one place.
 *
 * @param section  "seqbond", "exception" or "portN" (an existing port).
 * @param err      Receives a message naming section, key and value on error.
 * @return 0, or -EINVAL with @p c unchanged except possibly the key itself (callers work on
 *   a copy and publish it only on success).
 */
int sb_config_set(struct sb_config *c, const char *section, const char *key, const char *value,
	char *err, size_t err_len);

/**
 * @return whether port @p p gets a passthrough interface: as configured, or for `auto` when
 *   its device is a PCI address (a NIC bound to DPDK; a vdev such as af_packet leaves the
 *   kernel interface in place).
 */
bool sb_config_port_passthrough(const struct sb_port_config *p);

/** @return whether port @p p's device is a PCI address (a NIC bound to DPDK). */
bool sb_config_port_is_pci(const struct sb_port_config *p);

/**
 * Fill the datapath's settings from a configuration: everything but what start-up creates
 * (port_id of each port, exc_port, exc_mtu, mp), which the caller sets.
 */
void sb_config_dp_conf(const struct sb_config *c, struct sb_dp_conf *dc);

/**
 * Write @p c as INI (the running configuration) to @p file ("-" for stdout).
 * @return 0 or -errno.
 */
int sb_config_save(const struct sb_config *c, const char *file);

#endif /* SB_CONFIG_H */
