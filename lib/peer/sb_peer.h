/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_PEER_H
#define SB_PEER_H

/**
 * @file
 * Peers and paths, learnt from hellos.
 *
 * A peer is another seqbond host, named by its host id. A path is one (local port, peer
 * port) pair over which that peer's hellos are heard: each path is a FIFO channel, which is
 * what the reorder window's loss rule relies on. A path is up while hellos keep arriving on
 * it; it goes down after dead_mult of the peer's hello intervals without one.
 *
 * The table is sized for many peers (a 16-host cluster behind one switch per port) and is
 * owned by one lcore; lookups are linear scans over a few dozen entries, cheaper than a hash
 * at this size.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sb_wire.h"

#define SB_MAX_PORTS 16		/**< Local ports, and port indexes a peer may announce. */
#define SB_MAX_PEERS 64		/**< Peers one host tracks. */
#define SB_PEER_MAX_PATHS 32	/**< Paths to one peer (== SB_REORDER_MAX_PATHS). */

enum sb_path_state {
	SB_PATH_DOWN = 0,
	SB_PATH_UP,
};

/** One path to a peer. */
struct sb_path {
	uint8_t local_port;		/**< Our port index. */
	uint8_t remote_port;		/**< The peer's port index (the shim's path id). */
	uint8_t remote_mac[SB_ETH_ALEN];	/**< The peer port's MAC: outer destination. */
	uint8_t state;			/**< enum sb_path_state */
	uint16_t remote_mtu;		/**< Bytes, from the peer's hello. */
	uint32_t remote_rate_kbps;	/**< From the peer's hello; 0 unknown. */
	uint64_t first_hello;		/**< Clock units of the first hello heard (loss rate). */
	uint64_t last_hello;		/**< Clock units; 0 never. */
	uint64_t hellos_rx;		/**< Hellos heard on this path. */
	uint64_t up_since;		/**< Clock units when it last came up. */
	uint32_t transitions;		/**< Up/down changes. */
};

/** One peer. */
struct sb_peer {
	uint32_t host_id;
	uint32_t instance;		/**< Changes when the peer restarts. */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< Its exception interface MAC. */
	uint16_t interval_ms;		/**< Its hello interval. */
	uint8_t n_paths;
	uint8_t n_up;			/**< Paths up now. */
	struct sb_path path[SB_PEER_MAX_PATHS];
	/** Path index for (peer port, our port), -1 when none: maps a received frame to the
	 *  FIFO it came through. */
	int8_t path_of[SB_MAX_PORTS][SB_MAX_PORTS];
};

/** What changed; the caller logs and updates scheduler and reorder state. */
enum sb_peer_event_type {
	SB_PEER_EV_NEW,		/**< First hello from this peer. */
	SB_PEER_EV_RESTART,	/**< Instance changed: peer restarted, reset its sequence state. */
	SB_PEER_EV_PATH_UP,
	SB_PEER_EV_PATH_DOWN,
	SB_PEER_EV_AGG_MAC,	/**< The peer's aggregate MAC changed. */
};

struct sb_peer_event {
	uint8_t type;	/**< enum sb_peer_event_type */
	uint8_t peer;	/**< Peer index in the table. */
	uint8_t path;	/**< Path index within the peer (path events). */
};

/** Why a hello was ignored (counters). */
enum sb_peer_reject {
	SB_PEER_REJ_SELF = 0,	/**< Carries our own host id (a loop, or a spoof). */
	SB_PEER_REJ_BAD_PORT,	/**< Local port or announced port index out of range. */
	SB_PEER_REJ_TABLE_FULL,	/**< No room for another peer or path. */
	SB_PEER_REJ_MAX
};

struct sb_peer_table {
	uint32_t host_id;		/**< Ours. */
	uint32_t dead_mult;		/**< Hello intervals without a hello before a path is down. */
	uint64_t hz;			/**< Clock units per second (rte_get_tsc_hz() in the app). */
	unsigned int n_peers;
	uint64_t rejects[SB_PEER_REJ_MAX];
	struct sb_peer peer[SB_MAX_PEERS];
};

/**
 * Effective rate of a path: the smaller of our port's rate and the rate the peer announces
 * for its end (0 there means unknown: ours alone). The one definition the scheduler, the
 * console, telemetry and the exit report use.
 * @param local_rate_bps  Our port's rate, bit/s.
 * @return bit/s.
 */
static inline uint64_t
sb_path_rate_bps(const struct sb_path *path, uint64_t local_rate_bps)
{
	uint64_t remote = (uint64_t)path->remote_rate_kbps * 1000;

	return remote != 0 && remote < local_rate_bps ? remote : local_rate_bps;
}

/**
 * Initialise an empty table.
 * @param host_id   Our host id (non-zero).
 * @param dead_mult Missed hello intervals before a path goes down (>= 2).
 * @param hz        Clock units per second of every @p now passed later.
 * @return 0 or -EINVAL.
 */
int sb_peer_table_init(struct sb_peer_table *t, uint32_t host_id, uint32_t dead_mult, uint64_t hz);

/**
 * Account a valid hello (already decoded by sb_wire_hello_decode()).
 *
 * @param local_port  Our port it arrived on.
 * @param src_mac     Outer source MAC (the peer port's MAC).
 * @param h           The hello.
 * @param now         Arrival time, clock units.
 * @param ev          Output events (room for at least 3).
 * @param n_ev        Set to the number of events written.
 * @return the peer index (>= 0), or -EINVAL (rejected; counted in rejects[]) or -ENOSPC.
 */
int sb_peer_hello_rx(struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	const struct sb_hello *h, uint64_t now, struct sb_peer_event *ev, unsigned int *n_ev);

/**
 * Expire paths whose peer went silent. Call every few ms.
 * @param ev    Output events; @param max room in @p ev.
 * @return number of events written (paths that went down).
 */
unsigned int sb_peer_tick(struct sb_peer_table *t, uint64_t now, struct sb_peer_event *ev,
	unsigned int max);

/**
 * Find the path a data frame came through.
 * @param local_port  Port it arrived on.
 * @param src_mac     Outer source MAC.
 * @param shim_path   The shim's path id (the sender's port index).
 * @param path        Set to the path index within the peer.
 * @return peer index, or -ENOENT for a sender we have no path to (no hello heard).
 */
int sb_peer_lookup_rx(const struct sb_peer_table *t, unsigned int local_port,
	const uint8_t *src_mac, unsigned int shim_path, unsigned int *path);

/**
 * Find the peer owning an aggregate MAC (destination of a frame from the kernel).
 * @return peer index or -ENOENT.
 */
int sb_peer_lookup_mac(const struct sb_peer_table *t, const uint8_t *agg_mac);

/** Force every path over @p local_port down (our port stopped or lost carrier).
 *  @return number of events written to @p ev (at most @p max). */
unsigned int sb_peer_port_down(struct sb_peer_table *t, unsigned int local_port,
	struct sb_peer_event *ev, unsigned int max);

#endif /* SB_PEER_H */
