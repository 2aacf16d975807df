/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_DP_H
#define SB_DP_H

/**
 * @file
 * The datapath as control sees it: settings handed over at create, the commands the lcore
 * accepts on its ring, the snapshot it copies for readers, and the one table of its counters.
 *
 * Ownership: everything inside struct sb_dp belongs to the datapath lcore. Control threads
 * (main, console, telemetry) never read or write it while the lcore runs: they post a struct
 * sb_cmd on sb_dp_cmd_ring() and wait for it to be marked done; reads are snapshots the lcore
 * copies in answer to SB_CMD_SNAPSHOT (Gatekeeper's mailbox, testpmd's config/fwd split).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "sb_auth.h"
#include "sb_exception.h"
#include "sb_path_est.h"
#include "sb_peer.h"
#include "sb_reorder.h"
#include "sb_sched.h"
#include "sb_wire.h"

struct sb_dp;

/** Settings of one member port, as the datapath needs them. */
struct sb_dp_port_conf {
	uint16_t port_id;	/**< ethdev port, set up and started. */
	uint16_t mtu;		/**< Link MTU, bytes (L2 payload). */
	uint32_t rate_kbps;	/**< Configured rate, kbit/s; 0 = auto: the driver's link speed. */
	bool link_speed_real;	/**< The driver's link speed is the wire's (a PCI NIC), not a
				 *   figure a virtual device makes up (af_packet says 10G). */
	uint16_t pt_port;	/**< ethdev port of its passthrough interface (raw frames to and
				 *   from the kernel), RTE_MAX_ETHPORTS for none. */
};

/**
 * Everything the datapath reads, copied into lcore state by sb_dp_create(). Later changes go
 * through commands only, so the control plane can rewrite its own configuration freely.
 */
struct sb_dp_conf {
	uint32_t host_id;		/**< Ours, non-zero. */
	uint8_t mac[SB_ETH_ALEN];	/**< Aggregate MAC (the exception interface's). */
	char scheduler[16];		/**< Policy name (sb_sched_find()). */
	uint32_t hello_interval_ms;
	uint32_t hello_multiplier;	/**< Missed hellos before a path is down. */
	uint32_t peer_silence_hold_ms;	/**< A peer silent on every path at once keeps its
					 *   paths this much longer, ms (sb_peer_tick()). */
	uint32_t peer_evict_s;		/**< A peer unheard on every path this long leaves the
					 *   table, seconds (sb_peer_conf peer_evict; 0: the
					 *   library's default). */
	uint32_t hello_idle_interval_ms;	/**< Hello interval once the host has carried
						 *   nothing for SB_DP_HELLO_IDLE_AFTER_MS; 0
						 *   or <= hello_interval_ms: never slower. */
	uint32_t hello_idle_rx_max;	/**< Hellos a second a port may hear from idle
					 *   peers: with more peers than this x the idle
					 *   interval / 1000, the idle interval grows in
					 *   proportion (0: it stays fixed). */
	bool hello_unicast;		/**< While the host is at the fast pace, a port whose
					 *   peers in use are few hellos them unicast at the
					 *   fast pace and everyone else at the idle pace
					 *   (sb_dp_hello.c, "Unicast hellos"). */
	bool hello_brief;		/**< Group hellos at the idle pace (probes aside)
					 *   carry brief entries (SB_HELLO_F_BRIEF). */
	uint32_t reorder_window;	/**< Frames, power of two. */
	uint32_t reorder_timeout_us;	/**< Hold behind a gap when the paths' delays agree. */
	uint32_t reorder_timeout_max_us;	/**< Longest hold the paths' delay spread may
						 *   add up to (sb_dp_rx.c); <=
						 *   reorder_timeout_us: the hold stays fixed. */
	enum sb_reorder_late_policy late_policy;
	uint32_t max_backlog_us;	/**< Per-path queue model limit (sb_sched.h). */
	uint16_t burst;			/**< Frames per rx/tx burst, <= SB_BURST_MAX. */
	bool initial_seq_set;		/**< Tests start sequence numbers at initial_seq. */
	uint32_t initial_seq;
	bool lcore_dedicated;		/**< Busy-poll: never sleep (lcore_mode = dedicated);
					 *   otherwise an idle lcore sleeps on its wait set
					 *   (sb_wait.h) until a frame or a timer. */
	uint32_t mtu_probe_interval_ms;	/**< Full-size probe per port this often; 0: none. */
	uint32_t path_loss_max_pct;	/**< A path losing more of our frames leaves the stripe
					 *   (0: never). */
	uint32_t path_loss_window_ms;	/**< ... over this span. */
	bool adaptive_rate;		/**< Learn path rates from feedback (sb_path_est.h). */
	uint32_t queue_target_us;	/**< Its standing-queue threshold. */
	unsigned int n_ports;
	struct sb_dp_port_conf port[SB_MAX_PORTS];
	struct sb_exc *exc;		/**< The exception path (sb_exception.h), created. */
	uint16_t exc_mtu;		/**< Its MTU, bytes. */
	uint16_t n_exc_queues;		/**< Its queues: sb_dp_exc_queues(n_workers). */
	unsigned int n_workers;		/**< Datapath lcores, 1..SB_DP_MAX_WORKERS. */
	struct rte_mempool *mp;		/**< Pool for frames the datapath builds (hellos). */
	/** The cluster keys (docs/wire-format.md, "Cluster key"); NULL or none (n_keys 0):
	 *  frames go without tags and tagged ones are refused. Fixed at create, since the
	 *  exception MTU depends on it (sb_wire_overhead()); the keys themselves change by
	 *  SB_CMD_SET_KEYRING. Each worker copies it into its own secret memory
	 *  (sb_keymem.h); the caller keeps and wipes this one. */
	const struct sb_auth_keyring *keyring;
};

/**
 * @return the exception queue pairs a datapath of @p n_workers lcores uses: one per RX
 *   worker (they write to it; the TX worker reads them all).
 */
static inline uint16_t
sb_dp_exc_queues(unsigned int n_workers)
{
	return n_workers <= 1 ? 1 : (uint16_t)(n_workers - 1);
}

#define SB_BURST_MAX 256	/**< Largest burst the datapath uses. */
#define SB_DP_TICK_STALL_MS 5	/**< Housekeeping runs every 1 ms (every 25 at the idle
				 *   pace): a gap this much longer than that is a stall
				 *   of the lcore (descheduled), not the peers' silence. */
#define SB_DP_HELLO_IDLE_AFTER_MS 1000	/**< No traffic this long: hellos at the idle pace. */
#define SB_DP_MAX_WORKERS 16	/**< Datapath lcores at most. */
#define SB_DP_RING_FRAMES 4096	/**< Frames an RX worker's input ring holds. */

/** What a datapath lcore does (docs/design.md, lcores). */
enum sb_dp_role {
	SB_DP_ROLE_ALL = 0,	/**< Everything (the only worker). */
	SB_DP_ROLE_TX,		/**< Peer table, hellos, kernel -> peers, port transmit. */
	SB_DP_ROLE_RX,		/**< Its ports' receive, its peers' windows, peers -> kernel. */
};

/** Counters of one datapath lcore, in frames unless named _bytes. */
struct sb_dp_stats {
	/* from the kernel (exception path) towards the ports */
	uint64_t exc_rx;		/**< Frames read from the exception port. */
	uint64_t tx_data;		/**< Sequenced frames sent to peers (flood copies too). */
	uint64_t tx_data_bytes;
	uint64_t tx_flood;		/**< Broadcast, multicast and unknown-unicast frames from
					 *   the kernel, each sent once to every peer with a path
					 *   in the stripe. */
	uint64_t tx_flood_copies;	/**< The copies those made (included in tx_data). */
	uint64_t tx_flood_slow_drop;	/**< Copies not made for a peer far slower than the
					 *   fastest (SB_DP_FLOOD_SLOW_SHIFT) whose paths were
					 *   full: a flood never waits for such a peer. */
	uint64_t tx_hello;		/**< Hellos sent (probes included). */
	uint64_t hello_slow;		/**< Times the host went idle and slowed its hellos. */
	uint64_t tx_probe;		/**< Full-size probes among them. */
	uint64_t tx_probe_elided;	/**< Unicast probes not sent: full-size DATA on the
					 *   path since the last proved its MTU. */
	uint64_t tx_hello_unicast;	/**< Hellos among them sent to one peer port at the
					 *   fast pace, the port's group hellos being at the
					 *   idle pace (hello_unicast). */
	uint64_t tx_hello_brief;	/**< Group hellos among them at the idle pace with
					 *   brief entries (SB_HELLO_F_BRIEF). */
	uint64_t tx_hello_triggered;	/**< Hellos among them sent early: a path of the port
					 *   entered or left UP (struct sb_peer_table hello_due). */
	uint64_t tx_hello_drop;		/**< Hellos the port's control queue could not take. */
	uint64_t tx_probe_deferred;	/**< Unicast probes to peer ports of a smaller MTU left
					 *   for the next probe round: half the control queue
					 *   stays for hellos, however many such paths there
					 *   are. */
	uint64_t tick_stalls;		/**< Times the TX lcore found it had not run for
					 *   SB_DP_TICK_STALL_MS more than its tick: path
					 *   timers held for it
					 *   (sb_peer_tick()); those of 20 ms or more are logged. */
	uint64_t silence_holds;		/**< Peers found silent on every path at once, their
					 *   paths held (peer_silence_hold_ms)... */
	uint64_t silence_heard;		/**< ... and of those, heard again within the hold. */
	/* The peer table's own counters (struct sb_peer_table), copied by the TX worker. */
	uint64_t peers_evicted;		/**< Peers unheard for peer_evict_s: left the table. */
	uint64_t peers_displaced;	/**< Silent peers whose slot a new peer took (full). */
	uint64_t peer_restarts;		/**< Restarts of peers believed (window reset) ... */
	uint64_t restarts_refused;	/**< ... claims of one that ended unbelieved ... */
	uint64_t restarts_limited;	/**< ... of those, held back by the rate limit. */
	uint64_t dup_host_ids;		/**< Second hosts found using a peer's host id (a
					 *   cloned image, a copied config): logged at ERR. */
	uint64_t dup_host_id_self;	/**< Other instances heard using our own host id (a
					 *   clone of this host, a copied config): logged at
					 *   ERR, at most once a second. */
	uint64_t rate_clamped;		/**< Hellos whose port rate was raised to the floor
					 *   (SB_PEER_RATE_FLOOR_KBPS). */
	uint64_t tx_no_path;		/**< No peer, or no path in the stripe: dropped. */
	uint64_t tx_too_big;		/**< Larger than the path MTU after encapsulation: dropped. */
	uint64_t tx_backpressure;	/**< Times every path was full and frames waited. */
	uint64_t tx_peer_held;		/**< Frames set aside for a peer whose paths were full,
					 *   so that frames for other peers behind could go. */
	uint64_t tx_peer_drop;		/**< ... that found that peer's SB_DP_PEER_HELD frames
					 *   already set aside: dropped. */
	uint64_t tx_queue_drop;		/**< Port software queue overflowed: dropped. */
	uint64_t tx_nombuf;		/**< No mbuf for a hello or a flood copy. */
	uint64_t tx_passthrough;	/**< Raw frames from passthrough interfaces queued for
					 *   their port. */
	uint64_t tx_passthrough_drop;	/**< ... dropped: port down, too big, or seqbond's
					 *   EtherType (the kernel cannot speak for seqbond). */
	/* from the ports towards the kernel */
	uint64_t rx;			/**< Frames read from member ports. */
	uint64_t rx_data;
	uint64_t rx_hello;		/**< Hellos that decoded (refused ones included). */
	uint64_t rx_foreign;		/**< Not seqbond's EtherType (raw traffic): to the
					 *   port's passthrough interface, else dropped. */
	uint64_t rx_passthrough;	/**< Raw frames queued for a passthrough interface. */
	uint64_t rx_passthrough_drop;	/**< ... that found its queue full: dropped. */
	uint64_t rx_err[SB_WIRE_E_MAX];	/**< Malformed, by reason: dropped. */
	uint64_t rx_unknown_peer;	/**< Data from a sender we have no path to: dropped. */
	uint64_t rx_port_stopped_drop;	/**< What a port's ring held when the operator started it
					 *   again (`port start`): stale, dropped. */
	/* Cluster authentication (docs/wire-format.md): refused, by reason, hellos and DATA
	 * alike; a refused hello is not counted in rx_hello. */
	uint64_t rx_auth_no_tag;	/**< No tag, and we hold a cluster key. */
	uint64_t rx_auth_bad_tag;	/**< The tag does not verify: forged, altered, from
					 *   before a peer restarted, or another secret. */
	uint64_t rx_auth_replay;	/**< Hello whose crypto sequence is not newer than the
					 *   last taken on its stream: played back, or a sender
					 *   whose clock went back. */
	uint64_t rx_auth_unknown_key;	/**< Hello or DATA made with a key id we do not hold. */
	uint64_t rx_auth_unexpected;	/**< A tag, and we hold no cluster key. */
	uint64_t rx_auth_data_replay;	/**< DATA whose packet number was taken before, or is
					 *   below the replay window: played back (or a frame
					 *   later than the window is wide). */
	uint64_t rx_auth_limited;	/**< Authenticated hellos of a known path over their
					 *   port's budget of MAC checks: refused unchecked. */
	uint64_t rx_auth_limited_new;	/**< ... of no known path (a new peer or port, or a
					 *   forger) over the port's budget for those. */
	uint64_t auth_rekeys;		/**< Our key generation moved on: a peer left the table
					 *   (docs/wire-format.md, "Keys and packet numbers"). */
	uint64_t rx_hello_rejected;	/**< Hellos the peer table refused. */
	uint64_t rx_hello_not_ours;	/**< Unicast hellos to another port (flooded by a
					 *   switch): ignored. */
	uint64_t rx_late_dropped;
	uint64_t rx_late_delivered;
	uint64_t rx_duplicate;
	uint64_t rx_out_of_range;
	uint64_t rx_stray;		/**< A window ahead, unconfirmed: dropped. */
	uint64_t rx_peer_gone_drop;	/**< Held in the window of a peer that left the table
					 *   (SB_DP_MSG_PEER_GONE): dropped. */
	uint64_t exc_tx;		/**< Frames handed to the kernel. */
	uint64_t exc_tx_drop;		/**< The exception path refused frames for a while (sb0
					 *   down) and the worker's queue overflowed: dropped. */
	uint64_t exc_too_big;		/**< Inner frame larger than the exception MTU: dropped. */
	/* loop */
	uint64_t loops;
	uint64_t idle_sleeps;		/**< Sleeps on the wait set (nothing to do) ... */
	uint64_t idle_port_wakeups;	/**< ... ended by a member port's frames ... */
	uint64_t idle_kernel_wakeups;	/**< ... by the kernel's (sb0, passthrough) ... */
	uint64_t idle_kick_wakeups;	/**< ... by another lcore's or the console's work ... */
	uint64_t idle_timer_wakeups;	/**< ... or by the timer (its own duties). */
	uint64_t answer_polls;		/**< Polls waiting for the kernel's answer ... */
	uint64_t answer_misses;		/**< ... and waits for one that ran out. */
	uint64_t idle_naps;		/**< Timed naps while output was full (the sources
					 *   not watched: they hold frames on purpose). */
	uint64_t rx_forwarded;		/**< Frames passed to the RX worker owning their peer. */
	uint64_t ring_full;		/**< ... or hellos to the TX worker, dropped: ring full. */
};

/**
 * Latency added inside seqbond, per peer and direction, as a histogram: wire -> sb0 from the
 * poll that read a DATA frame off a member port to its release from the reorder window into
 * the exception queue; sb0 -> wire from the poll that read a frame from the kernel to its
 * frame's place in a member port's queue. Bucket 0 counts less than 1 us, bucket k (1..14)
 * 2^(k-1) up to 2^k us, the last 16 384 us and more.
 */
#define SB_DP_LAT_BUCKETS 16

/** @return the bucket of a latency of @p us microseconds (SB_DP_LAT_BUCKETS). */
static inline unsigned int
sb_dp_lat_bucket(uint64_t us)
{
	unsigned int k = us == 0 ? 0 : 64 - (unsigned int)__builtin_clzll(us);

	return k < SB_DP_LAT_BUCKETS ? k : SB_DP_LAT_BUCKETS - 1;
}

/**
 * The latency below which @p pct percent of the frames counted in histogram @p h
 * (SB_DP_LAT_BUCKETS buckets) fell, as the upper bound of its bucket, us; 0 when empty.
 * The last bucket has no bound: UINT32_MAX.
 */
static inline uint32_t
sb_dp_lat_pct_us(const uint64_t *h, double pct)
{
	uint64_t total = 0, run = 0;
	unsigned int k;

	for (k = 0; k < SB_DP_LAT_BUCKETS; k++)
		total += h[k];
	if (total == 0)
		return 0;
	for (k = 0; k < SB_DP_LAT_BUCKETS; k++) {
		run += h[k];
		if ((double)run * 100.0 >= pct * (double)total)
			break;
	}
	return k >= SB_DP_LAT_BUCKETS - 1 ? UINT32_MAX : UINT32_C(1) << k;
}

/** No key id (struct sb_snap_peer key_sends, key_acked). */
#define SB_DP_KEY_NONE 0xffff

/** Frames a second refused on one port for their tag, key or check budget at which the port
 *  is under alarm (logged, `show peers`, telemetry): far above what a key rollover's
 *  stragglers or a restart cause, far below a flood. */
#define SB_DP_AUTH_ALARM_PER_S 100

/** What the lcore copies for readers (console, telemetry, exit report). */
struct sb_snapshot {
	uint64_t hz;			/**< TSC cycles per second. */
	uint64_t tsc;			/**< When it was taken. */
	uint32_t host_id;
	char scheduler[16];
	bool adaptive_rate;		/**< Path rates are estimates (sb_path_est). */
	uint32_t reorder_timeout_us;
	uint32_t hello_interval_ms;
	bool auth;			/**< Frames are authenticated (a cluster key). */
	uint8_t n_keys;			/**< Keys held (SB_AUTH_RING_MAX at most) ... */
	struct sb_snap_key {
		uint8_t id;
		bool send;		/**< The key we send with. */
		uint8_t fp[SB_AUTH_FP_LEN];	/**< sb_auth_key_fingerprint() */
	} key[SB_AUTH_RING_MAX];
	uint64_t replay_streams;	/**< Hello streams with a replay mark ... */
	uint64_t replay_replaced;	/**< ... and marks given up for room. */
	struct sb_dp_stats stats;
	uint32_t exc_pending;		/**< Read from the kernel, waiting for a path (those
					 *   set aside for a peer, tx_peer_held, included). */
	uint32_t exc_queued;		/**< Released to the exception path, not yet accepted. */
	uint8_t exc_type;		/**< enum sb_exc_type the exception path runs (resolved). */
	struct sb_exc_stats exc;	/**< The exception path's own counters (exc_rx_gso, ...:
					 *   sb_exc_stats_foreach()). */
	unsigned int n_ports;
	struct sb_snap_port {
		uint16_t port_id;
		uint8_t link_up;
		uint8_t admin_up;
		uint16_t mtu;
		uint64_t rate_bps;
		uint64_t tx_frames, tx_bytes;
		uint64_t busy_ns;	/**< Modelled backlog now. */
		uint32_t auth_refused_per_s;	/**< Frames refused for their tag, key or
						 *   check budget on this port, a second, over
						 *   the last whole second. */
		uint8_t auth_alarm;	/**< That rate is at or above SB_DP_AUTH_ALARM_PER_S. */
	} port[SB_MAX_PORTS];
	struct sb_peer_table peers;	/**< Slots with host_id 0 are free (a peer left the
					 *   table): sb_snap_peer_used(). */
	struct sb_reorder_stats reorder_gone;	/**< Counters of the windows of peers that
						 *   left the table, summed (occupancy 0). */
	unsigned int n_workers;
	struct sb_snap_worker {
		unsigned int lcore;
		uint8_t role;			/**< enum sb_dp_role */
		uint8_t n_ports;		/**< Member ports it receives on ... */
		uint8_t ports[SB_MAX_PORTS];	/**< ... by index. */
		uint16_t n_peers;		/**< Peers whose window it owns (RX). */
		uint64_t busy_cycles, total_cycles;	/**< Busy share = busy / total. */
		uint64_t loops;
	} worker[SB_DP_MAX_WORKERS];
	struct sb_snap_peer {
		uint32_t tx_seq;
		uint32_t rx_next_seq;
		uint64_t path_rate_bps[SB_PEER_MAX_PATHS];	/**< sb_dp_path_rate_bps(). */
		struct sb_path_est est[SB_PEER_MAX_PATHS];	/**< Rate estimators. */
		uint64_t path_tx[SB_PEER_MAX_PATHS], path_tx_bytes[SB_PEER_MAX_PATHS];
		uint64_t path_rx[SB_PEER_MAX_PATHS], path_rx_bytes[SB_PEER_MAX_PATHS];
		struct sb_path_data path_data[SB_PEER_MAX_PATHS];	/**< Data counts. */
		struct sb_reorder_stats reorder;
		uint64_t hold_now;	/**< TSC cycles the oldest held frame has waited. */
		uint64_t timeout;	/**< The window's hold now, TSC cycles. */
		uint32_t delay_spread_us;	/**< The peer's paths' delay spread. */
		uint16_t key_sends;	/**< Key id of its last authenticated hello we took:
					 *   the key it sends with (SB_DP_KEY_NONE: none yet). */
		uint16_t key_acked;	/**< Key id it last took from us, as its hellos say
					 *   (SB_DP_KEY_NONE: not said yet). */
		uint64_t lat_wire_sb0[SB_DP_LAT_BUCKETS];	/**< sb_dp_lat_bucket() */
		uint64_t lat_sb0_wire[SB_DP_LAT_BUCKETS];
	} peer[SB_MAX_PEERS];
};

/**
 * @return whether peer slot @p i of snapshot @p s holds a peer: a slot whose peer left the
 *   table (host id 0) is free, and every report, console command and telemetry endpoint
 *   skips it.
 */
static inline bool
sb_snap_peer_used(const struct sb_snapshot *s, unsigned int i)
{
	return i < s->peers.n_peers && s->peers.peer[i].host_id != 0;
}

/** @return the peers in snapshot @p s (its used slots). */
static inline unsigned int
sb_snap_n_peers(const struct sb_snapshot *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->peers.n_peers; i++)
		n += s->peers.peer[i].host_id != 0;
	return n;
}

/** One path as every front end shows it (sb_dp_path_info()): one definition of each
 *  derived figure. "tx" is our frames towards the peer (as the peer reports them), "rx"
 *  the peer's frames towards us (as we measure them). */
struct sb_path_info {
	uint32_t peer;			/**< The peer's host id. */
	uint8_t port, peer_port;
	const char *state;		/**< "up", "init", "down" */
	const char *fault;		/**< Why not in the stripe ("none" when it is). */
	uint8_t in_stripe;
	uint8_t mtu_ok;			/**< The peer hears our full-size probes. */
	uint16_t mtu;			/**< Path MTU, bytes. */
	uint64_t rate_bps;		/**< What the scheduler paces it at: the estimate, or
					 *   sb_path_rate_bps() without adaptive_rate. */
	uint64_t rate_cap_bps;		/**< The estimate's ceiling. */
	const char *rate_phase;		/**< "startup", "steady", or "fixed" (not adaptive). */
	uint64_t rate_decreases;	/**< Times a standing queue or shortfall lowered it. */
	uint32_t tx_queue_us;		/**< Our frames' queueing delay on it (the peer's
					 *   latest one-way delay above the path's minimum). */
	uint64_t tx_frames, tx_bytes;	/**< Data we sent on it. */
	uint64_t rx_frames, rx_bytes;	/**< Data we received on it. */
	uint64_t hellos_rx;
	uint64_t last_hello_age_us;	/**< UINT64_MAX: never (or forgotten). */
	uint32_t transitions;		/**< Into or out of UP. */
	uint32_t stripe_exits;		/**< Left the stripe while UP (MTU, loss). */
	uint32_t tx_loss_ppm;		/**< Share of our frames lost, over the loss window. */
	uint32_t tx_lost;		/**< Our frames the peer found missing, cumulative. */
	uint32_t rx_lost;		/**< The peer's frames we found missing, cumulative. */
	uint32_t rx_loss_ppm;		/**< rx_lost against all the peer's frames, cumulative. */
	uint32_t tx_rate_kbps;		/**< Delivered rate of our frames, as the peer measures. */
	uint32_t rx_rate_kbps;		/**< Delivered rate of the peer's frames, as we measure. */
	uint32_t tx_owd_us;		/**< Our frames' one-way delay above the peer's fastest
					 *   path (latest, as the peer measures). */
	uint32_t tx_owd_min_us;		/**< ... its windowed minimum. */
};

/**
 * Fill @p pi with path @p path of peer @p peer (indexes into the snapshot's table).
 * @return 0, or -EINVAL for indexes out of range or a free peer slot.
 */
int sb_dp_path_info(const struct sb_snapshot *s, unsigned int peer, unsigned int path,
	struct sb_path_info *pi);

/**
 * Call @p num for every numeric field of @p pi and @p str for its text fields, with their
 * names (telemetry keys, exit report), in a fixed order.
 */
void sb_dp_path_info_foreach(const struct sb_path_info *pi,
	void (*num)(const char *name, uint64_t value, void *arg),
	void (*str)(const char *name, const char *value, void *arg), void *arg);

/** @return a worker role's name ("all", "tx", "rx"). */
const char *sb_dp_role_str(unsigned int role);

/** @return worker @p w's busy share: cycles of loop iterations that moved frames against
 *  all its cycles (naps included), in percent; 0 before it ran. */
static inline double
sb_snap_worker_busy_pct(const struct sb_snap_worker *w)
{
	return w->total_cycles != 0 ? 100.0 * (double)w->busy_cycles / (double)w->total_cycles :
		0.0;
}

/** Commands the lcore executes between bursts (sb_dp_cmd.c). */
enum sb_cmd_type {
	SB_CMD_SNAPSHOT,		/**< snap */
	SB_CMD_SET_SCHED,		/**< ops */
	SB_CMD_SET_PORT_RATE,		/**< port, value = bits/s */
	SB_CMD_PORT_ADMIN,		/**< port, value = 1 up / 0 down */
	SB_CMD_SET_REORDER_TIMEOUT,	/**< value = us */
	SB_CMD_SET_HELLO_INTERVAL,	/**< value = ms */
	SB_CMD_CLEAR_PORT_STATS,	/**< port, or UINT32_MAX for all */
	SB_CMD_SET_KEYRING,		/**< keyring: the cluster keys from now on (key
					 *   rollover); -ENOTSUP when the datapath started
					 *   without a key, -EINVAL for an empty ring */
};

/** One command. The poster owns it; it must stay valid until done is set. */
struct sb_cmd {
	enum sb_cmd_type type;
	uint32_t port;
	uint64_t value;
	const struct sb_sched_ops *ops;
	struct sb_snapshot *snap;
	const struct sb_auth_keyring *keyring;	/**< Copied by each worker; the poster wipes
						 *   it once done (leaks it on a timeout). */
	int result;			/**< 0 or -errno, set by the lcore before done. */
	bool done;			/**< Stored with release by the lcore. */
};

/**
 * Create the datapath state for ports that are set up and started and an exception path
 * that is created (with conf->n_exc_queues queues). Copies @p conf. Worker 0 is
 * the ALL worker when conf->n_workers is 1, else the TX worker, and workers 1.. are RX
 * workers. Creates each worker's command ring and the rings between workers.
 * @param stop  Flag the main lcore sets to end the workers' loops; read atomically.
 * @return the state, or NULL with rte_errno set: EINVAL (bad settings, unknown scheduler),
 *   ENOMEM, or a ring's error.
 */
struct sb_dp *sb_dp_create(const struct sb_dp_conf *conf, bool *stop);

/**
 * Finish what was in flight between the lcores when they stopped: frames an RX worker had
 * passed to another RX worker (their peer's window) and hellos passed to the TX worker go
 * through the code that would have handled them, so that the exit report's counters add up
 * (a frame counted as read is counted once as what became of it). Only once the lcores have
 * returned, before the final snapshot; called from the main lcore.
 * @param now  TSC cycles.
 */
void sb_dp_settle(struct sb_dp *dp, uint64_t now);

/** Free every mbuf the datapath still holds (queues, rings, reorder windows), its rings and
 *  state. Only once its lcores have returned. */
void sb_dp_free(struct sb_dp *dp);

/** @return the number of workers (datapath lcores). */
unsigned int sb_dp_n_workers(const struct sb_dp *dp);

/** @return worker @p k's role. */
enum sb_dp_role sb_dp_worker_role(const struct sb_dp *dp, unsigned int k);

/** @return the argument of sb_dp_lcore_main() for worker @p k. */
void *sb_dp_worker_arg(struct sb_dp *dp, unsigned int k);

/** An lcore entry point (rte_eal_remote_launch()) for the worker sb_dp_worker_arg() gave:
 *  loops until *stop. @return 0. */
int sb_dp_lcore_main(void *arg);

/**
 * End worker @p k's sleep, if it is in one: call after posting on its command ring, and after
 * setting the stop flag (for every worker), so neither waits for the worker's timer. Any
 * thread; cheap when the worker is awake.
 */
void sb_dp_wake(struct sb_dp *dp, unsigned int k);

/** @return the ring control posts struct sb_cmd pointers on for worker @p k (one producer
 *  at a time; sb_dp_wake() after posting). */
struct rte_ring *sb_dp_cmd_ring(struct sb_dp *dp, unsigned int k);

/**
 * Which workers must apply @p cmd (each gets its own copy, one after the other): all of them
 * for snapshots and cluster keys, the TX side for transmit settings, the TX side and the port's RX worker for
 * a port's start and stop, the RX sides for reorder settings.
 * @param out  Worker indexes, room for SB_DP_MAX_WORKERS.
 * @return how many.
 */
unsigned int sb_dp_cmd_workers(const struct sb_dp *dp, const struct sb_cmd *cmd,
	unsigned int *out);

/**
 * Add worker @p k's part to @p snap (zeroed by the caller before the first worker; counters
 * are summed, tables filled by their owner). The worker calls this for SB_CMD_SNAPSHOT; main
 * calls it directly for every worker only after they returned (the exit report).
 * @param now  TSC cycles.
 */
void sb_dp_snapshot(struct sb_dp *dp, unsigned int k, struct sb_snapshot *snap, uint64_t now);

/**
 * Call @p fn with the name and value of every counter in @p st (rx_err_<reason> included),
 * in datapath order. The exit report, the console and telemetry all list counters through
 * this, so a new counter shows up in all three.
 */
void sb_dp_stats_foreach(const struct sb_dp_stats *st,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg);

/** TSC cycles to ns without overflow. */
static inline uint64_t
sb_tsc_to_ns(uint64_t tsc, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)tsc * 1000000000u / hz);
}

#endif /* SB_DP_H */
