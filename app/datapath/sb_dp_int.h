/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_DP_INT_H
#define SB_DP_INT_H

/**
 * @file
 * Inside the datapath: the state of its lcores (workers) and the stages of their loops. Only
 * app/datapath/ (and harnesses that play an lcore, such as bench_dp and the fuzzer) include
 * this. docs/design.md ("lcores") has the picture.
 *
 * Roles. One worker does everything (SB_DP_ROLE_ALL), or the work is split:
 *  - the TX worker owns the peer table (hellos in and out, liveness, probes), every peer's
 *    TX sequence and scheduler, the queue models and transmit side of every member port,
 *    and reads the exception path (kernel -> peers) and the passthrough interfaces;
 *  - each RX worker polls its share of the member ports (port i: RX worker i % n_rx), owns
 *    the reorder window and data counts of its share of the peers (peer p: RX worker
 *    p % n_rx) and writes to its own exception queue (peers -> kernel).
 * Frames cross between workers on rte_rings only: hellos RX -> TX (hello_ring), data frames
 * RX -> owning RX worker (its data_ring), and the table's events TX -> every RX worker
 * (their msg_ring: peers, paths, a path going idle or down), which keep a replica of the
 * table's lookup map. With one worker the same rings loop back to it, so there is one code
 * path. A worker writes only its own state; the one exception is the per-path data counts
 * the TX worker reads (relaxed loads) to report them in hellos.
 *
 * Files and who calls whom (no cycles):
 *   sb_dp.c        create/free and the loops  -> rx, tx, hello, cmd
 *   sb_dp_rx.c     ports -> reorder -> kernel, messages from the TX worker
 *   sb_dp_tx.c     kernel -> shim -> ports, passthrough
 *   sb_dp_hello.c  hellos in/out, carrier, peer and path events -> messages
 *   sb_dp_cmd.c    commands from the rings, snapshots -> hello (port down), auth (keys)
 *   sb_dp_auth.c   cluster keys: DATA tags, packet numbers, hellos signed and checked on a
 *                  budget, key generations (lib/auth)
 *   sb_dp_stats.c  the counter tables
 * (sb_dp_hello.c -> auth as well; rx and tx tag DATA frames with lib/auth directly.)
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "sb_dp.h"

extern int sb_dp_logtype;
#define DP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_dp_logtype, "seqbond.peer: " fmt "\n", ##__VA_ARGS__)

#define SB_TXQ_CAP 512		/**< Frames a port's software tx queue holds before dropping. */
#define SB_CTLQ_CAP 16		/**< Hellos a port's control queue holds. */

/** Frames waiting for a port (or the exception port) to accept them. */
struct sb_txq {
	uint16_t n;
	struct rte_mbuf *m[SB_TXQ_CAP];
};

/** Hellos waiting for a port: flushed before its data, so they leave on time whatever the
 *  load (a saturated path must not look dead). */
struct sb_ctlq {
	uint16_t n;
	struct rte_mbuf *m[SB_CTLQ_CAP];
};

/** Where a path's rate estimate starts on a port of unknown rate (a virtual device). */
#define SB_DP_RATE_START_BPS UINT64_C(100000000)
/** The smallest a path's estimate goes: it keeps a trickle to measure with. */
#define SB_DP_RATE_FLOOR_BPS UINT64_C(1000000)

/** A member port as the TX worker sees it. */
struct sb_dp_port {
	uint16_t port_id;		/**< ethdev port. */
	uint8_t index;			/**< Index in the config ([portN]). */
	uint8_t link_up;
	uint8_t admin_up;		/**< Operator's port start/stop. */
	uint8_t mac[SB_ETH_ALEN];
	uint16_t mtu;
	uint64_t rate_bps;		/**< Configured rate, else the link speed: what the
					 *   port stage of the model drains at, and every
					 *   path estimate's cap. */
	uint64_t rate_start_bps;	/**< Where a path's estimate starts (sb_path_est). */
	uint8_t rate_configured;	/**< rate_bps came from rate_mbit. */
	uint64_t busy_until_ns;		/**< Queue model shared by every path over this port. */
	uint64_t tx_frames, tx_bytes;	/**< Accepted by the port (seqbond frames + hellos). */
	uint32_t hello_seq;		/**< Next hello's sequence number on this port. */
	unsigned int entry_cursor;	/**< Rotation of entries too many for one hello. */
	uint64_t next_probe;		/**< TSC of the next full-size probe (unicast ones
					 *   while ucast). */
	uint8_t ucast;			/**< Fast hellos go unicast to the peers in use; the
					 *   group ones at the idle pace (sb_dp_hello.c,
					 *   "Unicast hellos"). */
	uint64_t next_group;		/**< While ucast: TSC of the next group hello ... */
	uint64_t next_group_probe;	/**< ... and of the next group probe. */
	uint16_t pt_port;		/**< Passthrough interface, RTE_MAX_ETHPORTS: none. */
	uint8_t tx_blocked;		/**< The last flush left frames: the port is full. */
	unsigned int probe_cursor;	/**< Peer its next round of unicast probes starts at:
					 *   those a round defers go first in the next. */
	struct sb_ctlq ctlq;
	struct sb_txq txq;
} __rte_cache_aligned;

/*
 * Frames one peer may have set aside while its paths are full and frames for other peers
 * wait behind them in the burst read from the kernel (sb_dp_tx_exception()): enough for a
 * burst or two, so that a peer briefly out of room loses nothing; a peer that stays out of
 * room loses what does not fit (tx_peer_drop), as at a switch port's output queue, rather
 * than stalling every other peer's traffic behind it.
 */
#define SB_DP_PEER_HELD 64

/** Per-peer TX state, owned by the TX worker; index = peer table index. */
struct sb_dp_tx_peer {
	uint32_t tx_seq;		/**< Next sequence number to send. */
	uint8_t path_seq[SB_PEER_MAX_PATHS];	/**< Next shim path sequence per path. */
	uint64_t rbusy_ns[SB_MAX_PORTS];	/**< Queue model of each of the peer's ports. */
	uint64_t pbusy_ns[SB_PEER_MAX_PATHS];	/**< Queue model of each path's own stage. */
	struct sb_path_est est[SB_PEER_MAX_PATHS];	/**< What each path carries. */
	struct sb_sched sched;
	struct sb_sched_view view;
	uint64_t view_gen;		/**< The view is current while this equals the TX
					 *   worker's view_gen (sb_dp_tx.c, view_get()). */
	uint64_t path_tx[SB_PEER_MAX_PATHS];	/**< Frames sent per path. */
	uint32_t path_sent[SB_PEER_MAX_PATHS];	/**< The same, never cleared by a command:
						 *   the loss clamp (sb_dp_data_sent()). */
	uint64_t path_tx_bytes[SB_PEER_MAX_PATHS];
	/* Whether we exchange traffic with the peer (unicast hellos, sb_dp_hello.c): data
	 * frames both ways counted since a mark (TSC), and when SB_DP_PEER_USE_FRAMES of
	 * them last came within one SB_DP_HELLO_IDLE_AFTER_MS. */
	uint64_t use_mark, use_mark_t, use_last;
	uint8_t in_use;			/**< use_last within SB_DP_HELLO_IDLE_AFTER_MS. */
	uint8_t use_new;		/**< Just came into use: probe its paths now. */
	uint8_t use_ended;		/**< Just went out of use: a last unicast round
					 *   announces the idle pace. */
	uint32_t uc_seq[SB_PEER_MAX_PATHS];	/**< Next unicast hello's number per path. */
	/** DATA frames sent per path at the peer port's full MTU (they prove the path MTU
	 *  as a probe does), and their count at the path's last unicast probe round. */
	uint32_t full_tx[SB_PEER_MAX_PATHS], full_tx_probed[SB_PEER_MAX_PATHS];
	uint64_t lat[SB_DP_LAT_BUCKETS];	/**< sb0 -> wire latency. */
	/* With a cluster key (sb_dp_auth.c). */
	struct sb_auth_data_key tx_key;	/**< Tags our DATA frames to it: loaded once its
					 *   session nonce is known, again when a nonce or the
					 *   keys change. */
	uint32_t pn_hi;			/**< Bits 63..32 of the next packet number to it: +1
					 *   as tx_seq wraps. */
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/**< Its session nonce (its hellos) ... */
	uint8_t nonce_set;		/**< ... known for its instance now ... */
	uint8_t gen;			/**< ... and its key generation, of its latest hello. */
	uint16_t key_sends;		/**< Key id of its last hello we took (SB_DP_KEY_NONE). */
	uint16_t key_acked;		/**< Key id it last took from us (its entries). */
	/* Frames from the kernel for this peer, set aside while every path to it was full
	 * so that frames for other peers behind them could go (sb_dp_tx_exception()); a FIFO,
	 * sent before anything newer for this peer. */
	struct rte_mbuf *held[SB_DP_PEER_HELD];
	uint16_t held_head, held_n;
};

/** Per-peer RX state, owned by the peer's RX worker; index = peer table index. */
struct sb_dp_rx_peer {
	struct sb_reorder *reorder;	/**< Created when the peer is first heard. */
	uint64_t path_rx[SB_PEER_MAX_PATHS];	/**< Data frames received per path. */
	uint64_t path_rx_bytes[SB_PEER_MAX_PATHS];
	/** Data counts per path, read by the TX worker for its hello entries. */
	struct sb_path_data data[SB_PEER_MAX_PATHS];
	/** The peer's delay spread (sb_peer_delay_spread_us()), us: written by the TX
	 *  worker as hellos come, read by the window's owner. */
	uint32_t delay_spread_us;
	/** Each path's rate, kbit/s (sb_path_rate_bps(), 0 while down): written by the TX
	 *  worker as hellos come, read by the window's owner to bound what the path could have
	 *  carried (a sequence gap, a window jump: sb_dp_rx.c). */
	uint32_t path_rate_kbps[SB_PEER_MAX_PATHS];
	uint64_t path_last[SB_PEER_MAX_PATHS];	/**< TSC of the poll that read the path's
						 *   last DATA frame (owner); 0: none yet ... */
	uint64_t path_from[SB_PEER_MAX_PATHS];	/**< ... and of the poll before that one
						 *   which read some (sb_dp_rx.c,
						 *   data_account()). */
	uint64_t hz;			/**< TSC cycles per second (the window's jump bound). */
	uint64_t timeout_set;		/**< The hold the window has now, TSC cycles (owner). */
	uint64_t lat[SB_DP_LAT_BUCKETS];	/**< Wire -> sb0 latency (owner). */
	/* With a cluster key (owner; sb_dp_auth.c): the keys its DATA frames' tags verify
	 * with, one per cluster key held (by key id), and the packet numbers taken. */
	struct sb_auth_data_key rx_key[SB_AUTH_RING_MAX];
	/** The same of our previous key generation, while prev_until (TSC) has not passed:
	 *  frames the peer made before it took our new generation. */
	struct sb_auth_data_key rx_key_prev[SB_AUTH_RING_MAX];
	uint64_t prev_until;
	uint8_t prev_gen;
	uint8_t cur_seen;		/**< A frame verified under our current generation
					 *   since it began. */
	struct sb_auth_pn_window pn;	/**< Words allocated with the window. */
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/**< The peer's session nonce ... */
	uint8_t nonce_set;		/**< ... known (SB_DP_MSG_PEER_KEY). */
} __rte_cache_aligned;

/** Messages the TX worker sends every RX worker (their msg_ring). */
enum sb_dp_msg_type {
	SB_DP_MSG_PEER,		/**< Peer known (new, or its aggregate MAC changed). */
	SB_DP_MSG_PEER_RESET,	/**< Peer restarted: its paths, window and counts start afresh. */
	SB_DP_MSG_PATH,		/**< Path known (new, or its peer port's MAC changed). */
	SB_DP_MSG_PATH_DOWN,	/**< Path down: its data count resyncs. */
	SB_DP_MSG_RX_IDLE,	/**< The peer stopped sending on the path: out of the loss rule. */
	SB_DP_MSG_RX_ACTIVE,	/**< The peer sends on the path: in the loss rule. */
	SB_DP_MSG_PEER_GONE,	/**< The peer left the table (SB_PEER_EV_PEER_GONE): its map
				 *   entry, window and counts go; the index may come back as
				 *   another peer (SB_DP_MSG_PEER). */
	SB_DP_MSG_PEER_KEY,	/**< With a cluster key: the peer's session nonce (nonce), of a
				 *   new peer or a restarted one: its DATA keys are derived. */
	SB_DP_MSG_SELF_KEY,	/**< With a cluster key: our key generation moved on (gen):
				 *   every peer's DATA keys are derived again, the old ones
				 *   kept for a grace period. */
};

/** One message, an element of the msg_ring (a multiple of 4 bytes). */
struct sb_dp_msg {
	uint8_t type;		/**< enum sb_dp_msg_type */
	uint8_t peer;
	uint8_t path;
	uint8_t local_port;
	uint8_t remote_port;
	uint8_t pad;
	uint8_t mac[SB_ETH_ALEN];
	uint32_t host_id;
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/**< PEER_KEY: the peer's; SELF_KEY: ours. */
	uint8_t gen;		/**< SELF_KEY. */
	uint8_t pad2[3];
};

/** An RX worker. */
struct sb_dp_rx {
	unsigned int id;		/**< 0..n_rx-1: also its exception queue. */
	unsigned int n_ports;		/**< Member ports it polls ... */
	uint8_t ports[SB_MAX_PORTS];	/**< ... by index. */
	uint8_t port_admin[SB_MAX_PORTS];	/**< Started by the operator (by index). */
	struct sb_peer_map map;		/**< Replica of the table's lookup map. */
	struct rte_ring *msg_ring;	/**< struct sb_dp_msg from the TX worker (SP/SC). */
	struct rte_ring *data_ring;	/**< Frames for its peers from other RX workers (MP/SC). */
	struct sb_txq exc_txq;		/**< Released frames waiting for the kernel. */
	unsigned int port_next;		/**< Of its ports, the one read first: 0, or the first
					 *   one a budget-limited round left unread. */
	struct sb_txq pt_txq[SB_MAX_PORTS];	/**< Raw frames for passthrough (by index). */
	uint64_t reorder_timeout;	/**< TSC cycles: the hold when the paths' delays
					 *   agree (reorder_timeout_us, or the console's). */
	uint64_t reorder_timeout_max;	/**< TSC cycles: the most the spread may raise it to. */
	uint64_t busy_peers;		/**< Bit per peer (index) whose window may own frames:
					 *   set by an insert, cleared by a drain that empties it. */
	struct sb_reorder_stats reorder_gone;	/**< Counters of the windows of peers that
						 *   left the table, summed (the exit report
						 *   balances frames with them). */
	uint64_t answer_delivered;	/**< exc_tx when answers were last expected. */
	uint32_t answer_probe;		/**< Deliveries while answers did not come. */
	struct sb_dp_worker *w;		/**< Its worker (counters, burst depth). */
	struct sb_dp_stats *stats;	/**< &w->stats */
	/* With a cluster key (sb_dp_auth.c). */
	struct sb_auth_keyring *keyring;	/**< Its copy of the cluster keys, in secret
						 *   memory (sb_keymem.h). */
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/**< Our session nonce (the TX worker's). */
	uint8_t gen;			/**< Our key generation (SB_DP_MSG_SELF_KEY). */
	uint32_t pn_bits;		/**< Bits of each peer's window of packet numbers. */
	/* The budget of hello MAC checks of each of its ports (sb_dp_auth.c): paths known to
	 * the lookup map, then everything else. */
	struct sb_auth_bucket hello_known[SB_MAX_PORTS], hello_new[SB_MAX_PORTS];
	uint16_t known_paths[SB_MAX_PORTS];	/**< Paths of its map on each port. */
	uint64_t port_refused[SB_MAX_PORTS];	/**< Refused for tag, key or budget (relaxed
						 *   loads by the TX worker, for the alarm). */
};


/*
 * Sequence numbers of peers that left the table, by host id: a peer evicted while it was cut
 * off (a switch down for a minute) may come back with its reorder window still expecting
 * our next number. A fresh random start would be behind it half the time, and every frame
 * late (dropped) for up to 2^31 frames; ahead, it is a jump larger than the paths could
 * have carried (refused). So a returning host id continues where it left off. Host ids
 * heard once (forged) take the oldest entry: a real peer is forgotten only after this
 * many others left since it did.
 */
#define SB_DP_SEQ_MEMORY SB_MAX_PEERS

struct sb_dp_seq_memory {
	uint32_t host_id;		/**< 0: free. */
	uint32_t tx_seq;		/**< Its next sequence number when it left ... */
	uint32_t pn_hi;			/**< ... and the high half of its packet number. */
	uint64_t gone;			/**< TSC when it left (the oldest goes first). */
};

/*
 * The budget of hello MAC checks on a port (struct sb_auth_bucket, sb_dp_auth.c): for each
 * path the map knows on it, SB_DP_HELLO_BUDGET_MULT times the hellos a second of one stream
 * at the fast pace (the faster of ours and the smallest any peer announces: a peer leaving
 * the idle pace is not throttled while the budget catches up), which covers its group and
 * unicast streams, probes and triggered hellos twice over, plus a floor; burst a quarter of
 * that + 32. Hellos of no known path (new peers, forgers) share SB_DP_HELLO_BUDGET_NEW a
 * second, burst SB_DP_HELLO_BUDGET_NEW_BURST. A check costs about 1.3 us (a 538-byte hello):
 * a 10 ms pace gives 400 checks a second per path, half a millisecond of CPU.
 */
#define SB_DP_HELLO_BUDGET_MULT 4
#define SB_DP_HELLO_BUDGET_FLOOR 200
#define SB_DP_HELLO_BUDGET_NEW 200
#define SB_DP_HELLO_BUDGET_NEW_BURST 64

/** A flood copy to a peer whose paths carry less than the fastest peer's >> this (1/16)
 *  never makes the flood wait: when its paths are full the copy is dropped
 *  (tx_flood_slow_drop). A forged peer announcing 1 Mbit/s stalled sb0's transmit. */
#define SB_DP_FLOOD_SLOW_SHIFT 4

/** Frames on a window jump's own path that confirm it while the peer sends on one path only
 *  (struct sb_reorder_conf jump_confirm): a jump costs 4 frames there, 1 on two paths. */
#define SB_DP_JUMP_CONFIRM 3

/** The TX worker's state. */
struct sb_dp_tx {
	struct sb_dp_port port[SB_MAX_PORTS];
	struct sb_peer_table peers;
	struct sb_dp_tx_peer peer[SB_MAX_PEERS];
	/* Scheduler views are rebuilt at most once per burst read from the kernel and peer:
	 * a new burst, or a frame sent to another peer (it moved a shared port's queue model),
	 * moves this on and every view is stale (sb_dp_tx.c, view_get()). */
	uint64_t view_gen;
	uint64_t hello_period;		/**< TSC cycles. */
	uint16_t hello_interval_ms;	/**< Announced in hellos (the pace now). */
	uint64_t probe_period;		/**< TSC cycles between full-size probes; 0 none. */
	uint16_t probe_interval_ms;	/**< Announced in hellos (the pace now). */
	/* Hello pace (sb_dp_hello.c, hello_pace()): fast while the host carries traffic,
	 * slow once it has carried none for SB_DP_HELLO_IDLE_AFTER_MS. */
	uint16_t hello_active_ms;	/**< The configured (or console-set) interval. */
	uint16_t hello_idle_ms;		/**< The idle one now (for the peers heard);
					 *   0: no slow pace. */
	bool hello_slow;		/**< At the idle pace now (other lcores read it:
					 *   __atomic loads and stores). */
	uint64_t pace_activity;		/**< Frames other than hellos, every worker, ... */
	uint64_t pace_last;		/**< ... and when that count last changed (TSC). */
	uint64_t next_hello;		/**< TSC of the next round of hellos. */
	uint64_t last_link_poll;	/**< TSC of the last carrier check. */
	uint32_t instance;
	const struct sb_sched_ops *sched_ops;
	bool adaptive_rate;		/**< Paths paced at their estimates (sb_path_est). */
	struct sb_path_est_conf est_conf;
	unsigned int exc_next_queue;	/**< Exception queue to read first (round robin). */
	/* frames read from the kernel that waited for a path with room (backpressure) */
	uint16_t n_pending, pending_head;
	struct rte_mbuf *pending[SB_BURST_MAX];
	uint16_t pending_go;		/**< pending[] index of a frame known to be able to go
					 *   past a blocked peer's (0: none known). */
	uint32_t n_held;		/**< Frames in every peer's held FIFO. */
	struct sb_dp_seq_memory seq_memory[SB_DP_SEQ_MEMORY];
	uint32_t self_dup_instance;	/**< Last other instance heard with our host id ... */
	uint64_t self_dup_logged;	/**< ... and when one was last logged (TSC; 0 never). */
	uint64_t self_dup_quiet;	/**< Such instances since then, not logged. */
	uint64_t dup_logged;		/**< When a peer's duplicate was last logged (TSC). */
	/* Answers from the kernel (sb_dp.c): a window opens when an RX worker delivers. */
	uint64_t answer_from;		/**< TSC | 1 of the last delivery (RX workers write,
					 *   __atomic relaxed). */
	uint64_t answer_open, answer_done;	/**< Windows opened and closed (TX). */
	uint64_t answer_exc_rx;		/**< exc_rx when the open one opened. */
	uint64_t answer_window;		/**< SB_DP_ANSWER_US in TSC cycles. */
	int answer_score;		/**< Whether answers come (RX workers read it). */
	struct sb_dp_worker *w;		/**< Its worker (counters, burst depth). */
	struct sb_dp_stats *stats;	/**< &w->stats */
	/* Cluster authentication (dp->auth; sb_dp_auth.c). */
	struct sb_auth_keyring *keyring;	/**< Its copy of the cluster keys, in secret
						 *   memory (sb_keymem.h) ... */
	uint8_t key_fp[SB_AUTH_RING_MAX][SB_AUTH_FP_LEN];	/**< ... their fingerprints. */
	uint8_t nonce[SB_AUTH_NONCE_LEN];	/**< Our session nonce: in every hello ... */
	uint8_t gen;			/**< ... and our key generation: +1 when a peer
					 *   leaves the table (sb_dp_auth_peer_gone()). */
	uint32_t pn_fresh;		/**< pn_hi a peer without remembered numbers starts at:
					 *   above every forgotten entry's (seq_memory). */
	const uint8_t *hello_nonce;	/**< The nonce of the hello being taken (events). */
	uint32_t stream_hello_rate;	/**< Hellos a second of one stream at the fast pace
					 *   (the RX workers' check budgets; relaxed stores). */
	uint64_t refused_mark[SB_MAX_PORTS];	/**< port_refused at the last alarm check ... */
	uint32_t refused_per_s[SB_MAX_PORTS];	/**< ... and the rate it gave. */
	uint64_t hello_refused[SB_MAX_PORTS];	/**< Hellos it refused per port (tag, key,
						 *   sequence: the alarm). */
	uint64_t alarm_next;		/**< TSC of the next alarm check (every second). */
	uint8_t alarm[SB_MAX_PORTS];	/**< Port under alarm (logged when raised, cleared). */
	struct sb_auth_seq hello_cseq[SB_MAX_PORTS];	/**< Crypto sequence per sending port. */
	struct sb_auth_replay_table replay;	/**< Replay marks of the hello streams. */
};

/**
 * What the scheduler paces path @p j of peer @p pi at, bit/s: the smaller of our port's rate
 * and the peer port's (sb_path_rate_bps()) and, with adaptive_rate, the path's estimate.
 * The one figure the console, telemetry and the exit report show as the path's rate.
 */
static inline uint64_t
sb_dp_path_rate_bps(const struct sb_dp_tx *tx, unsigned int pi, unsigned int j)
{
	const struct sb_path *path = &tx->peers.peer[pi].path[j];
	uint64_t r = sb_path_rate_bps(path, tx->port[path->local_port].rate_bps);

	if (tx->adaptive_rate && tx->peer[pi].est[j].rate_bps != 0 &&
			tx->peer[pi].est[j].rate_bps < r)
		r = tx->peer[pi].est[j].rate_bps;
	return r;
}

/** What a worker logs at most once every SB_DP_LOG_EVERY_S (sb_dp_log_allowed()): messages
 *  about frames from the wire, which anyone on a switch can send at any rate. */
enum sb_dp_log_what {
	SB_DP_LOG_VERSION,		/**< A frame of another wire version. */
	SB_DP_LOG_AUTH_NO_TAG,
	SB_DP_LOG_AUTH_BAD_TAG,
	SB_DP_LOG_AUTH_REPLAY,
	SB_DP_LOG_AUTH_UNKNOWN_KEY,
	SB_DP_LOG_AUTH_UNEXPECTED,
	SB_DP_LOG_AUTH_DATA_REPLAY,
	SB_DP_LOG_AUTH_LIMITED,
	SB_DP_LOG_MAX
};
#define SB_DP_LOG_EVERY_S 10

/** One lcore of the datapath. */
struct sb_dp_worker {
	enum sb_dp_role role;
	unsigned int lcore;		/**< EAL lcore it runs on (set at launch). */
	struct sb_dp *dp;
	struct sb_dp_tx *tx;		/**< TX side, or NULL. */
	struct sb_dp_rx *rx;		/**< RX side, or NULL. */
	struct rte_ring *cmd_ring;	/**< Commands from control (SP/SC). */
	uint16_t max_batch;		/**< Deepest burst of this loop iteration. */
	uint64_t busy_cycles;		/**< TSC cycles of iterations that moved frames. */
	uint64_t total_cycles;		/**< TSC cycles in the loop, naps included. */
	bool more;			/**< This iteration left input unread on purpose
					 *   (its output was full): no sleep on the wait set. */
	unsigned int nap_us;		/**< Next timed nap while output is full, us. */
	bool slack_wide;		/**< The thread's timer slack is the idle pace's
					 *   (sb_dp.c), not 1 us. */
	uint32_t kick_mask;		/**< Workers this iteration gave work: kicked at its
					 *   end (bit = worker index). */
	struct sb_wait *wait;		/**< What it sleeps on (sb_wait.h). */
	unsigned int n_polled;		/**< Sources it reads that have no descriptor to
					 *   wait on: they cap its sleep (sb_dp.c). */
	uint64_t log_next[SB_DP_LOG_MAX];	/**< TSC before which it says nothing more of
						 *   each (sb_dp_log_allowed()). */
	struct sb_dp_stats stats;	/**< Written by this worker only. */
} __rte_cache_aligned;

struct sb_dp {
	struct sb_dp_conf conf;		/**< Copied at create; changed only by commands. */
	struct rte_mempool *mp;
	uint64_t hz;			/**< TSC cycles per second. */
	unsigned int n_ports;
	struct sb_exc *exc;		/**< The exception path: queue k is RX worker k's. */
	uint16_t exc_mtu;
	uint16_t n_exc_queues;		/**< One per RX worker. */
	bool *stop;			/**< Set by the main lcore; read with __atomic_load_n. */
	uint8_t port_index[RTE_MAX_ETHPORTS];	/**< ethdev port -> member index, 0xff. */

	bool auth;			/**< Frames carry tags (a cluster key): fixed at create. */
	unsigned int n_workers;
	unsigned int n_rx;		/**< RX sides (the ALL worker has one). */
	struct sb_dp_worker worker[SB_DP_MAX_WORKERS];
	struct sb_dp_tx *tx;		/**< The TX side. */
	struct sb_dp_rx *rx[SB_DP_MAX_WORKERS];	/**< RX sides, by RX id. */
	struct rte_ring *hello_ring;	/**< Hellos from RX workers to the TX worker (MP/SC). */
	int ts_off;			/**< mbuf dynfield: TSC of the poll that read the
					 *   frame (DPDK's rx timestamp field), for the
					 *   latency histograms; -1: not stamped. */
	struct sb_dp_rx_peer rx_peer[SB_MAX_PEERS];	/**< Each owned by one RX worker. */
};

/** Whether worker @p w may log another message of kind @p what at TSC @p now: once every
 *  SB_DP_LOG_EVERY_S per worker and kind (its own state: no lock). */
static inline bool
sb_dp_log_allowed(struct sb_dp_worker *w, enum sb_dp_log_what what, uint64_t now)
{
	if (now < w->log_next[what])
		return false;
	w->log_next[what] = now + (uint64_t)SB_DP_LOG_EVERY_S * w->dp->hz;
	return true;
}

/** @return the RX worker id owning member port @p index. */
static inline unsigned int
sb_dp_port_rx(const struct sb_dp *dp, unsigned int index)
{
	return index % dp->n_rx;
}

/** @return the RX worker id owning peer @p peer (its window and data counts). */
static inline unsigned int
sb_dp_peer_rx(const struct sb_dp *dp, unsigned int peer)
{
	return peer % dp->n_rx;
}

/* Stages. Each returns the number of frames it handled. */

/** RX worker: read its ports (and frames other RX workers passed it), parse, forward
 *  hellos, reorder, release in order to its exception queue (sb_dp_rx.c). */
unsigned int sb_dp_rx_ports(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now);
/** RX worker, after the lcores stopped: handle what other RX workers left on its input
 *  ring (sb_dp_settle()). */
void sb_dp_rx_settle(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now);
/** RX worker: apply the TX worker's messages to its replica and windows (sb_dp_rx.c). */
void sb_dp_rx_msgs(struct sb_dp *dp, struct sb_dp_rx *rx);
/** RX worker: hand its exception and passthrough queues to the kernel (sb_dp_rx.c). */
unsigned int sb_dp_rx_flush(struct sb_dp *dp, struct sb_dp_rx *rx);
/**
 * The hold of a peer's reorder window now, TSC cycles: the RX worker's reorder_timeout plus
 * the peer's delay spread (rp->delay_spread_us), at most reorder_timeout_max
 * (docs/design.md, "Reorder timeout"). The window takes it before its next drain.
 */
uint64_t sb_dp_rx_hold(const struct sb_dp *dp, const struct sb_dp_rx *rx,
	const struct sb_dp_rx_peer *rp);

/** TX worker: read the exception path, add shims, stripe onto port queues (sb_dp_tx.c). */
unsigned int sb_dp_tx_exception(struct sb_dp *dp, uint64_t now);
/** TX worker: raw frames from the passthrough interfaces onto their ports (sb_dp_tx.c). */
unsigned int sb_dp_tx_passthrough(struct sb_dp *dp, uint64_t now);
/** TX worker: hand the ports' hello and data queues to the ports (sb_dp_tx.c). */
unsigned int sb_dp_tx_flush(struct sb_dp *dp);

/**
 * One iteration of worker @p w's loop: its stages, then (when @p housekeeping) its commands
 * and, for the TX side, carrier, hellos and expiry. The lcore loop calls it; harnesses that
 * play the lcore (bench_dp, fuzz_frame) call it directly.
 * @return frames handled.
 */
unsigned int sb_dp_worker_poll(struct sb_dp_worker *w, uint64_t now, bool housekeeping);

/* sb_dp_hello.c (TX worker) */

/** Hellos the RX workers passed on: decode, update the peer table, act on its events. */
unsigned int sb_dp_hello_input(struct sb_dp *dp, uint64_t now);
/** Poll carriers, send the round of hellos when due, expire silent paths. */
void sb_dp_hello_tick(struct sb_dp *dp, uint64_t now);
/** Take port @p p out of service: drop its queues, every path over it down. */
void sb_dp_port_down(struct sb_dp *dp, struct sb_dp_port *p, uint64_t now);
/** The peer table's event handler (struct sb_peer_conf on_event; @p arg is the sb_dp). */
void sb_dp_peer_event(void *arg, const struct sb_peer_event *ev);
/** The peer table's source of data counts (struct sb_peer_conf data_rx). */
void sb_dp_data_counts(void *arg, unsigned int peer, unsigned int path,
	struct sb_path_data *out);
/** sb_peer_conf.frames_tx: our frames on (@p peer, @p path) the peer counts: DATA
 * (path_sent), group hellos on its port, unicast hellos on it. */
uint32_t sb_dp_data_sent(void *arg, unsigned int peer, unsigned int path);
/** Stamp @p m with the TSC @p now of the poll that read it (latency histograms). */
static inline void
sb_dp_stamp(const struct sb_dp *dp, struct rte_mbuf *m, uint64_t now)
{
	if (likely(dp->ts_off >= 0))
		*RTE_MBUF_DYNFIELD(m, dp->ts_off, uint64_t *) = now;
}

/** Count in histogram @p h the time since @p m was read, at TSC @p now. */
static inline void
sb_dp_lat_count(const struct sb_dp *dp, uint64_t *h, const struct rte_mbuf *m, uint64_t now)
{
	uint64_t t;

	if (unlikely(dp->ts_off < 0))
		return;
	t = *RTE_MBUF_DYNFIELD(m, dp->ts_off, const uint64_t *);
	h[sb_dp_lat_bucket(now > t ? (now - t) * 1000000 / dp->hz : 0)]++;
}

/** Mark worker @p k (by index) to be kicked at the end of @p w's iteration: @p w put work
 *  on one of its rings. */
static inline void
sb_dp_kick_later(struct sb_dp_worker *w, const struct sb_dp_worker *k)
{
	if (k != w)
		w->kick_mask |= UINT32_C(1) << (k - w->dp->worker);
}

/** The tick of the lcore that owns the peer table while the hellos are at the idle pace
 *  (sb_dp.c, "Sleeping when idle"); 1 ms at the fast pace. */
#define SB_DP_SLOW_TICK_US 25000

/** The timer slack of the sleeps at the idle pace: a quarter of the tick (sb_dp.c). */
#define SB_DP_SLOW_SLACK_US (SB_DP_SLOW_TICK_US / 4)

/** TSC cycles between two ticks beyond which the lcore stalled (struct sb_peer_conf
 *  tick_stall): SB_DP_TICK_STALL_MS more than its tick and the tick's timer slack, at the
 *  idle pace (@p slow) or the fast one. */
static inline uint64_t
sb_dp_tick_stall(const struct sb_dp *dp, bool slow)
{
	uint64_t tick_us = slow ? SB_DP_SLOW_TICK_US + SB_DP_SLOW_SLACK_US : 1000;

	return ((uint64_t)SB_DP_TICK_STALL_MS * 1000 + tick_us) * dp->hz / 1000000;
}

/** Send @p msg to every RX worker. */
void sb_dp_msg_all(struct sb_dp *dp, const struct sb_dp_msg *msg);

/* sb_dp_auth.c (with a cluster key, dp->auth; each does nothing without one) */

/** Set up what authentication needs: our nonce, each worker's keyring copy, the cipher
 *  contexts of every peer slot. @return 0 or -errno. */
int sb_dp_auth_create(struct sb_dp *dp);
/** Free and wipe what sb_dp_auth_create() set up (any part of it). */
void sb_dp_auth_free(struct sb_dp *dp);

/* TX worker */

/** Peer @p pi was found or restarted: its nonce and key ids are unknown until the hello
 *  being taken is (sb_dp_auth_hello_taken()). */
void sb_dp_auth_peer_new(struct sb_dp *dp, unsigned int pi);
/** Load the key that tags our DATA frames to peer @p pi (its nonce known), or clear it. */
void sb_dp_auth_peer_tx(struct sb_dp *dp, unsigned int pi);
/**
 * A received hello that decoded: the tag checks of docs/wire-format.md in order (a tag
 * present exactly when we hold a key; the key id held; the tag; its crypto sequence newer
 * than the last taken on its stream), counted and logged (rate-limited) when refused.
 * @param index  Our port it arrived on.
 * @param len    The frame's bytes in its (single) segment.
 * @param a      Its trailer, decoded (sb_wire_hello_auth_get()), when its shim says
 *   SB_WIRE_F_AUTH; NULL otherwise.
 * @return true when the hello may go on to the peer table.
 */
bool sb_dp_auth_hello_rx(struct sb_dp *dp, unsigned int index, const uint8_t *frame,
	uint32_t len, const struct sb_hello *h, const struct sb_hello_auth *a, uint64_t now);
/**
 * The peer table took hello @p h (trailer @p a, NULL without a key) as peer @p pi's: the
 * key id it sends with; its session nonce when new (its DATA keys both ways are derived
 * again and the RX workers told: SB_DP_MSG_PEER_KEY); its key generation when it moved on
 * (our key to it is derived again); which of our keys it took.
 */
void sb_dp_auth_hello_taken(struct sb_dp *dp, unsigned int pi, const struct sb_hello *h,
	const struct sb_hello_auth *a);
/** Mark each of @p n entries of a hello we send with the key id we last took from the host
 *  it names (SB_ENTRY_F_KEY). */
void sb_dp_auth_entries(const struct sb_dp *dp, struct sb_hello_entry *e, unsigned int n);
/**
 * A hello just written by sb_wire_put_hello() at @p frame (@p len bytes, @p room available):
 * with a cluster key, add its trailer (port @p port's next crypto sequence, our nonce) and
 * sign it.
 * @return the frame's length now, or 0 when the trailer does not fit (the hello is dropped).
 */
size_t sb_dp_auth_hello_tx(struct sb_dp *dp, unsigned int port, uint8_t *frame, size_t len,
	size_t room);
/** Once a second: the hello rate the RX workers' check budgets follow, the refusal alarm. */
void sb_dp_auth_tick(struct sb_dp *dp, uint64_t now);
/** Peer @p host_id left the table: our key generation moves on (every key into us changes;
 *  the RX workers keep the old ones for a grace period), announced in our next hellos; when
 *  the generations come round, a new nonce instead (sb_dp_auth_rekey()). */
void sb_dp_auth_peer_gone(struct sb_dp *dp, uint32_t host_id);
/** Draw a new session nonce (@p why for the log): every DATA key changes both ways; with
 *  @p pn_restart our packet numbers start again from 0 (each peer empties its window of
 *  them when it takes the new nonce). */
void sb_dp_auth_rekey(struct sb_dp *dp, const char *why, bool pn_restart);
/** The sequence memory forgot a peer whose packet numbers had reached @p pn_hi. */
void sb_dp_auth_seq_forgotten(struct sb_dp *dp, uint32_t pn_hi);
/**
 * Write the authentication header and tag of DATA frame @p m to peer @p tp (its outer
 * header and shim in place; pkt_len final) with packet number @p pn (its low half is the
 * shim's sequence number).
 * @return 0, or -EINVAL (no key for the peer yet, a frame too long or in too many
 *   segments) or -EIO: the caller drops the frame.
 */
int sb_dp_auth_data_tx(struct sb_dp *dp, struct sb_dp_tx_peer *tp, struct rte_mbuf *m,
	uint64_t pn);

/* RX workers */

/**
 * A hello read from port @p index (decoded shim @p shim), before it goes to the TX worker:
 * with a cluster key, refuse here what needs no MAC to refuse (malformed, another port's
 * unicast hello, no tag, a key id not held) and what exceeds its port's budget of checks
 * (paths the map knows, then the others), so that only hellos within the budget reach the
 * hello ring; counted and logged (rate-limited). Without a key, everything goes on.
 * @return true to pass it on.
 */
bool sb_dp_auth_hello_admit(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int index,
	const struct rte_mbuf *m, const struct sb_shim *shim, uint64_t now);
/**
 * Check DATA frame @p m of peer @p rp (arrived on port @p index, on the peer's path @p path):
 * its authentication header, the key (id and our generation), the packet number's freshness,
 * then the tag; trim what Ethernet padded. Counted by reason and logged (rate-limited) when
 * refused; a wrong tag also counts as a frame lost on the path (the loss rule takes a path
 * that alters frames out of the stripe).
 * @param pn_out  Its packet number, set when it passes: the caller takes it
 *   (sb_dp_auth_pn_take()) once the reorder window took the frame.
 * @return true when it may go on to the window (the caller frees it otherwise).
 */
bool sb_dp_auth_data_rx(struct sb_dp *dp, struct sb_dp_rx *rx, struct sb_dp_rx_peer *rp,
	unsigned int index, unsigned int path, struct rte_mbuf *m, const struct sb_shim *shim,
	uint64_t now, uint64_t *pn_out);
/** Packet number @p pn of peer @p rp's authentic frame is taken: never again. Not for a
 *  frame the window refused (a stray): the number stays free for the frame's real turn. */
void sb_dp_auth_pn_take(struct sb_dp_rx_peer *rp, uint64_t pn);
/** The map's paths changed (SB_DP_MSG_PATH, _PEER_RESET, _PEER_GONE): count them per port
 *  (the check budgets). */
void sb_dp_auth_paths_changed(struct sb_dp *dp, struct sb_dp_rx *rx);
/** Allocate peer @p pi's window of packet numbers (with its reorder window). */
int sb_dp_auth_window_new(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi);
/** Peer @p pi's nonce (SB_DP_MSG_PEER_KEY), of a new or restarted peer (or one whose key
 *  generations were used up): its receive keys. */
void sb_dp_auth_peer_key_rx(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi,
	const uint8_t *nonce);
/** Our key generation moved on to @p gen, with our nonce @p nonce (a new one when the
 *  generations were used up) (SB_DP_MSG_SELF_KEY): every owned peer's keys are derived
 *  again, the old ones verify for a grace period (not after a new nonce); windows stay. */
void sb_dp_auth_self_key_rx(struct sb_dp *dp, struct sb_dp_rx *rx, uint8_t gen,
	const uint8_t *nonce);
/** Peer @p pi restarted or left the table: its keys and packet numbers go. */
void sb_dp_auth_peer_reset_rx(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi);

/**
 * Worker @p w takes the cluster keys @p ring (SB_CMD_SET_KEYRING): copies them and derives
 * the DATA keys of the peers it serves again.
 * @return 0, -ENOTSUP (the datapath started without a key), -EINVAL (empty ring) or -ENOMEM.
 */
int sb_dp_auth_set_keyring(struct sb_dp_worker *w, const struct sb_auth_keyring *ring);

/* sb_dp_cmd.c */

/** Apply every command waiting on @p w's ring. */
void sb_dp_cmd_drain(struct sb_dp_worker *w, uint64_t now);

/** mbuf destructor for the reorder window's opaque objects. */
void sb_dp_free_mbuf(void *obj, void *arg);

/** Queue @p m on @p q, or free it and count a drop. @return true if queued. */
static inline bool
sb_txq_put(struct sb_txq *q, struct rte_mbuf *m, uint64_t *drops)
{
	if (unlikely(q->n == SB_TXQ_CAP)) {
		rte_pktmbuf_free(m);
		(*drops)++;
		return false;
	}
	q->m[q->n++] = m;
	return true;
}

/**
 * Queue an inner frame for the kernel on RX worker @p rx's exception queue. A frame above
 * the exception MTU (a peer whose links have a larger MTU) is dropped and counted: the
 * kernel side would refuse it for ever and block the queue behind it.
 */
static inline void
sb_dp_exc_put(struct sb_dp *dp, struct sb_dp_rx *rx, struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_pkt_len(m) > (uint32_t)dp->exc_mtu + RTE_ETHER_HDR_LEN +
			RTE_VLAN_HLEN)) {
		rx->stats->exc_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	sb_txq_put(&rx->exc_txq, m, &rx->stats->exc_tx_drop);
}

/** Hand a queue's frames to an ethdev queue; what it refuses waits at the front.
 *  @param frames, bytes  Counters of what was accepted (@p bytes may be NULL). */
void sb_dp_queue_flush(uint16_t port_id, uint16_t queue, struct rte_mbuf **m, uint16_t *n,
	uint64_t *frames, uint64_t *bytes);

#endif /* SB_DP_INT_H */
