/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_PEER_H
#define SB_PEER_H

/**
 * @file
 * Peers and paths: three-way liveness, path MTU, per-path loss and receiver feedback, all
 * learnt from hellos.
 *
 * A peer is another seqbond host, named by its host id. A path is one (local port, peer
 * port) pair over which that peer's hellos are heard: each path is a FIFO channel, which is
 * what the reorder window's loss rule relies on.
 *
 * Liveness follows the ideas of BFD (RFC 5880 s.6.2, s.6.8.6): every hello lists what its
 * sender hears on the port it left from, so each end knows whether it is heard. Per path:
 *
 *   DOWN --hello heard--> INIT --hello that lists us--> UP
 *   UP --complete hello that does not list us--> INIT       (one-way failure, us -> peer)
 *   INIT/UP --no hello for interval x multiplier--> DOWN    (the peer's own values)
 *   any --our port loses carrier or is stopped--> DOWN
 *
 * So a failure in one direction takes the path down at both ends: the end that stops
 * hearing drops it after the detection time, and stops listing the peer, which the other end
 * sees in the next hello.
 *
 * A path carries data (is "usable") only when it is UP, the peer reports that our full-size
 * probes arrive (SB_ENTRY_F_MTU_OK; hellos padded to the path MTU, the way IS-IS pads hellos
 * and draft-ietf-bfd-large-packets checks a path's MTU) and the peer's counters show less
 * loss than the configured share over the loss window. Loss is per path: data frames carry
 * a per-path sequence number and hellos a per-port one, so the receiver counts exactly what
 * each path lost (the per-peer sequence number cannot tell which path lost a frame).
 *
 * The table is owned by one lcore; lookups are linear scans over a few dozen entries,
 * cheaper than a hash at this size. Nothing here calls DPDK: the clock is a parameter.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb_wire.h"

#define SB_MAX_PORTS 16		/**< Local ports, and port indexes a peer may announce. */
#define SB_MAX_PEERS 64		/**< Peers one host tracks. */
#define SB_PEER_MAX_PATHS 32	/**< Paths to one peer (== SB_REORDER_MAX_PATHS). */
#define SB_PEER_LOSS_SAMPLES 11	/**< Loss window: a sample every tenth of the window. */
#define SB_PEER_PENDING 4	/**< Paths of one peer heard once, waiting to be confirmed. */
#define SB_PEER_MTU_FLOOR 576	/**< Smallest MTU a peer port may announce, bytes (the IPv4
				 *   datagram every host must take, RFC 791), or ours if
				 *   smaller. */
#define SB_PEER_RATE_FLOOR_KBPS 1000	/**< Smallest port rate a peer may announce, kbit/s:
					 *   a claim below it is taken as this (a 1 kbit/s port
					 *   is no Ethernet port). */
#define SB_PEER_EVICT_DEFAULT_S 60	/**< conf.peer_evict when 0, seconds. */
#define SB_PEER_RESTART_HOLDDOWN_DEFAULT_S 5	/**< conf.restart_holddown when 0, seconds. */
#define SB_PEER_RECLAIM_MS 1000	/**< A full table gives a peer unheard this long the slot
				 *   of a newcomer even if its paths are held UP. */
#define SB_PEER_DUP_HELLOS 3	/**< Hellos of a claim heard on one port that name it a
				 *   duplicate while the known instance is heard on others. */
#define SB_PEER_DUP_FORGET_S 10	/**< A refused duplicate unheard this long is forgotten. */

enum sb_path_state {
	SB_PATH_DOWN = 0,	/**< Nothing heard within the detection time. */
	SB_PATH_INIT,		/**< We hear the peer; it does not (yet) hear us. */
	SB_PATH_UP,		/**< Both ends hear each other. */
};

/** Why a path is down or out of the stripe (the last reason found), for logs and the
 *  console. */
enum sb_path_fault {
	SB_FAULT_NONE = 0,
	SB_FAULT_SILENT,	/**< No hello for the detection time. */
	SB_FAULT_ONE_WAY,	/**< The peer does not hear us. */
	SB_FAULT_PORT,		/**< Our port lost carrier or was stopped. */
	SB_FAULT_MTU,		/**< Our full-size probes do not arrive. */
	SB_FAULT_LOSS,		/**< The peer counts too much loss of our frames. */
	SB_FAULT_MAX
};

/**
 * A numbered stream of one path (its DATA frames' path sequence numbers, its group or its
 * unicast hellos), whose gaps are counted as that path's loss. Each path is FIFO, so an
 * honest gap is followed by numbers that go on from the frame after it; a number that
 * jumps and is not followed that way was not the sender's (a corrupt or forged frame on
 * the wire). So a gap counts only once the next number confirms it, and never for more
 * numbers than the path could have carried since the previous frame (@p max_gap of
 * sb_seq_track_rx()): a larger confirmed jump renumbers the stream from its successor
 * without loss (a resync), and a forged number that nothing follows counts as no loss. An
 * honest loss is counted when the number after the gap arrives, one frame after the gap
 * (docs/decisions/2026-12-05-defence-in-depth-wiring.md).
 */
struct sb_seq_track {
	uint32_t next;		/**< Expected number (within the stream's width). */
	uint32_t pend;		/**< A number that jumped, waiting for its successor ... */
	uint32_t pend_gap;	/**< ... the numbers it skipped ... */
	uint8_t valid;		/**< next is meaningful. */
	uint8_t pending;	/**< pend is meaningful ... */
	uint8_t pend_far;	/**< ... and it jumped beyond the bound (or behind): a resync
				 *   if confirmed, never loss. */
	uint32_t strays;	/**< Jumps their successor did not confirm (left uncounted). */
	uint32_t resyncs;	/**< Confirmed jumps beyond the bound, counted as no loss. */
};

/**
 * The out-of-line part of sb_seq_track_rx(): a gap, a pending jump or a first number.
 * @return numbers to count as lost now.
 */
uint32_t sb_seq_track_slow(struct sb_seq_track *s, uint32_t seq, uint32_t max_gap,
	unsigned int bits);

/**
 * Number @p seq of a stream @p bits wide (8 for DATA path sequence numbers, 32 for hellos)
 * arrived. A number right after the expected one moves it on; a number ahead of it waits
 * for the next arrival: when that one goes on from it (at most @p max_gap further), the gap
 * is counted (or, when it was beyond @p max_gap, the stream resyncs without loss); when it
 * goes on from the old position instead, the jump was a stray and is forgotten. A number
 * behind the expected one by at most @p max_gap (a repeated or reordered one) changes
 * nothing; further behind, it is a jump as well (it resyncs, without loss, if its successor
 * follows it).
 * @param max_gap  The most numbers the path could have carried since the previous arrival
 *   (sb_path_frames_bound() for DATA), < 2^(bits-1).
 * @return numbers to count as lost now.
 */
static inline uint32_t
sb_seq_track_rx(struct sb_seq_track *s, uint32_t seq, uint32_t max_gap, unsigned int bits)
{
	const uint32_t mask = bits >= 32 ? UINT32_MAX : (UINT32_C(1) << bits) - 1;

	if (s->valid && !s->pending && seq == s->next) {
		s->next = (seq + 1) & mask;
		return 0;
	}
	return sb_seq_track_slow(s, seq, max_gap, bits);
}

/** The stream starts afresh: its next number is taken as it comes, no gap counted. */
static inline void
sb_seq_track_resync(struct sb_seq_track *s)
{
	s->valid = 0;
	s->pending = 0;
}

/**
 * The most frames a path of @p rate_bps could carry in @p elapsed clock units (@p hz per
 * second), at the smallest Ethernet frame (84 bytes on the wire with preamble and gap), plus
 * one: the bound of a sequence jump that can be honest (sb_seq_track_rx(), and summed over
 * a peer's paths, a reorder window's jump bound). Saturates at UINT32_MAX.
 */
static inline uint32_t
sb_path_frames_bound(uint64_t rate_bps, uint64_t elapsed, uint64_t hz)
{
	const uint64_t bits_per_frame = 84 * 8;
	uint64_t secs = elapsed / hz, rem = elapsed % hz;
	uint64_t per_s = rate_bps / bits_per_frame;
	uint64_t n;

	if (per_s != 0 && secs > (UINT32_MAX - 1) / per_s)
		return UINT32_MAX;
	n = per_s * secs + (per_s * rem) / hz + 1;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/** What we measure of the peer's hellos on a path; reported back in our hellos with the
 *  data counts (struct sb_path_data). */
struct sb_path_rx {
	uint64_t first_hello;		/**< Clock units of the first hello heard. */
	uint64_t last_hello;		/**< Clock units; 0 never (or forgotten). */
	uint64_t hellos_rx;
	uint64_t last_probe;		/**< Last full-size probe heard; 0 never. */
	uint64_t hello_bytes;		/**< Wire bytes of hellos received. */
	uint32_t hello_lost;		/**< Hellos missing by their sequence number (wraps). */
	struct sb_seq_track hseq;	/**< Numbering of the group hellos ... */
	uint64_t last_group;		/**< ... and when the last one came (clock units). */
	uint16_t uc_interval_ms;	/**< Interval the last SB_HELLO_F_UNICAST hello
					 *   announced, its probe interval ... */
	uint16_t uc_probe_ms;
	uint64_t last_uc;		/**< ... and when it came (clock units; 0 never). */
	struct sb_seq_track useq;	/**< Numbering of the SB_HELLO_F_UNICAST hellos (the
					 *   sender numbers those per path). */
	uint8_t owd_valid;		/**< owd_* are meaningful. */
	uint32_t owd_raw_min;		/**< Smallest (receive us - send us) this epoch. */
	uint32_t owd_raw_min_prev;	/**< ... and the epoch before (windowed minimum). */
	uint32_t owd_raw_last;		/**< Latest sample. */
	uint32_t full_seen;		/**< sb_path_data.full at the last entry written. */
	uint32_t owd_raw_avg;		/**< Moving mean of the samples (1/8 each), same scale:
					 *   one late sample (a stalled lcore) moves it an eighth. */
	uint64_t rate_mark_time;	/**< Delivered-rate measurement start, clock units. */
	uint64_t rate_mark_bytes;
	uint32_t rate_kbps;		/**< Delivered rate over the last report interval. */
};

/**
 * What a receiver counts of one path's DATA frames. The lcore that receives the peer's data
 * keeps it (sb_path_data_account()) and the table reads it through sb_peer_conf.data_rx when
 * it writes its hello entries, so data and hellos can be handled on different lcores.
 */
struct sb_path_data {
	uint64_t bytes;			/**< Wire bytes received. */
	uint32_t frames;		/**< Frames received (wraps). */
	uint32_t lost;			/**< Missing by the shim's path sequence number (wraps). */
	uint32_t full;			/**< Frames at least @p full_len long (wraps): at the
					 *   receiving port's MTU, they prove the path MTU as a
					 *   probe does. */
	struct sb_seq_track pseq;	/**< The path sequence numbers (8 bits). */
};

/** The largest gap of an 8-bit path sequence number that can be told from one behind. */
#define SB_PATH_SEQ_MAX_GAP 127u

/**
 * Count one DATA frame of a path: it and the frames its path sequence number shows missing
 * before it (each path is FIFO, so a number skipped is a frame lost on that path), once the
 * next frame confirms the gap (struct sb_seq_track: a forged or corrupt number alone counts
 * no loss). A gap of more than @p max_gap numbers is a resync, not loss; a number behind the
 * expected one (a duplicate, or a frame from before a resync) counts, nothing else changes.
 * @param path_seq  The shim's path sequence number.
 * @param wire_len  Bytes on the wire.
 * @param full_len  The receiving port's MTU + 14: a frame this long proves the path's MTU
 *   (the table takes it as a full-size probe from the peer; sb_peer_hello_entries()).
 * @param max_gap   Frames the path could have carried since its previous DATA frame
 *   (sb_path_frames_bound() of the path's rate and the time between the two), at most
 *   SB_PATH_SEQ_MAX_GAP (larger values are taken as that).
 */
static inline void
sb_path_data_account_bounded(struct sb_path_data *d, uint8_t path_seq, uint32_t wire_len,
	uint32_t full_len, uint32_t max_gap)
{
	d->frames++;
	d->bytes += wire_len;
	if (wire_len >= full_len)
		d->full++;
	d->lost += sb_seq_track_rx(&d->pseq, path_seq,
		max_gap < SB_PATH_SEQ_MAX_GAP ? max_gap : SB_PATH_SEQ_MAX_GAP, 8);
}

/**
 * sb_path_data_account_bounded() without a bound from the path's rate: any gap the 8-bit
 * number can tell (up to SB_PATH_SEQ_MAX_GAP) may be loss, once confirmed.
 */
static inline void
sb_path_data_account(struct sb_path_data *d, uint8_t path_seq, uint32_t wire_len,
	uint32_t full_len)
{
	sb_path_data_account_bounded(d, path_seq, wire_len, full_len, SB_PATH_SEQ_MAX_GAP);
}

/** After the path was down: the next frame's number starts afresh, no gap counted. */
static inline void
sb_path_data_resync(struct sb_path_data *d)
{
	sb_seq_track_resync(&d->pseq);
}

/** What the peer reports about our frames on the path, us -> peer, and what we decide from
 *  it. */
struct sb_path_fb {
	uint64_t last_report;		/**< Last hello of the peer that reported on this
					 *   path (a full entry, not a brief one). */
	uint64_t last_echo;		/**< Same (kept apart for partial hellos). */
	uint32_t rx_frames, lost_frames;	/**< Latest cumulative values from the peer. */
	uint32_t rate_kbps;		/**< The peer's delivered rate of our frames. */
	uint32_t owd_min_us, owd_us;	/**< One-way delay above the peer's fastest path. */
	uint8_t mtu_ok;			/**< The peer hears our full-size probes. */
	uint8_t remote_tx;		/**< The peer sends data on this path (to us). */
	uint8_t lossy;			/**< Out of the stripe for loss. */
	uint8_t n_samples;		/**< Loss window samples held. */
	uint8_t sample_head;		/**< Oldest sample. */
	uint32_t loss_ppm;		/**< Share lost over the window, parts per million. */
	struct {
		uint64_t t;
		uint32_t rx, lost;
		uint32_t tx;		/**< Our frames sent on it by then (frames_tx). */
	} sample[SB_PEER_LOSS_SAMPLES];
};

/** One path to a peer. */
struct sb_path {
	uint8_t local_port;		/**< Our port index. */
	uint8_t remote_port;		/**< The peer's port index (the shim's path id). */
	uint8_t remote_mac[SB_ETH_ALEN];	/**< The peer port's MAC: outer destination. */
	uint8_t state;			/**< enum sb_path_state */
	uint8_t fault;			/**< enum sb_path_fault: why not usable (or last why). */
	uint8_t usable;			/**< In the stripe: UP, MTU checked, loss below limit. */
	uint8_t remote_mult;		/**< The peer's detect multiplier. */
	uint8_t remote_fanin;		/**< Paths we have into the same peer port (a switch
					 *   queues there when several of our ports feed it). */
	uint16_t remote_mtu;		/**< Bytes, from the peer's hello. */
	uint16_t remote_interval_ms;	/**< The peer's hello interval on this port. */
	uint16_t remote_probe_ms;	/**< The peer's probe interval; 0: no probes. */
	uint32_t remote_rate_kbps;	/**< From the peer's hello; 0 unknown. */
	uint64_t up_since;		/**< Clock units when it last came up. */
	uint64_t down_since;		/**< Clock units when it last left UP; 0 never. */
	uint32_t transitions;		/**< Changes of state into or out of UP. */
	uint32_t stripe_exits;		/**< Times it left the stripe while UP (MTU, loss). */
	struct sb_path_rx rx;
	struct sb_path_fb fb;
};

/** A path heard once, not yet confirmed (sb_peer_hello_rx()). */
struct sb_path_pending {
	uint64_t first;			/**< Clock units of its first hello; 0: free slot. */
	uint64_t probe;			/**< The same when that hello was a full-size probe,
					 *   else 0. */
	uint8_t local_port;
	uint8_t remote_port;
	uint8_t mac[SB_ETH_ALEN];	/**< Source MAC of its hellos. */
};

/** Hellos of another instance of a known host id: a restart, until shown otherwise. */
struct sb_peer_claim {
	uint64_t first;			/**< Clock units of its first hello; 0: no claim. */
	uint64_t last;			/**< ... and of its latest. */
	uint32_t instance;		/**< The instance claimed. */
	uint32_t local_ports;		/**< Bit per local port it was heard on. */
	uint16_t hellos;		/**< Its hellos heard on the peer's only local port. */
	uint16_t hellos_any;		/**< Its hellos heard anywhere. */
	uint8_t one_port;		/**< The local port of the peer's only live path, or
					 *   UINT8_MAX when it has none or several. */
	uint8_t old_heard;		/**< The known instance was heard meanwhile. */
	uint8_t confirmed;		/**< Heard where one forger could not make it heard:
					 *   it lasts while heard within the window. */
	uint8_t limited;		/**< It waited for the rate limit (counted once). */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< What it announced (for the report of a
					 *   duplicate) ... */
	uint8_t port_mac[SB_ETH_ALEN];	/**< ... and the source MAC of its first hello ... */
	uint8_t local_port;		/**< ... which came in on this port of ours. */
};

/** A second host with the peer's host id, refused (sb_peer_hello_rx()). */
struct sb_peer_dup {
	uint8_t active;			/**< Reported and refused now. */
	uint8_t local_port;		/**< Our port its first hello came in on. */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< Its aggregate MAC ... */
	uint8_t port_mac[SB_ETH_ALEN];	/**< ... and the MAC of one of its ports. */
	uint32_t instance;
	uint64_t since;			/**< Clock units when it was found ... */
	uint64_t last;			/**< ... and last heard. */
	uint64_t hellos;		/**< Its hellos refused since it was found. */
};

/** One peer. A slot with host_id 0 is free (its peer was evicted, sb_peer_tick()). */
struct sb_peer {
	uint32_t host_id;
	uint32_t instance;		/**< Changes when the peer restarts. */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< Its exception interface MAC. */
	uint8_t n_ports;		/**< Ports it announced at first contact (or at its
					 *   restart): its port indexes are below. */
	uint32_t port_known;		/**< Bit per port index of the peer whose MAC is bound
					 *   (port_mac): set when its first path is made. */
	uint8_t port_mac[SB_MAX_PORTS][SB_ETH_ALEN];
	uint64_t last_heard;		/**< Its newest hello taken (clock units): eviction. */
	uint64_t last_reset;		/**< When a restart of it was last believed; 0 never. */
	uint32_t restarts;		/**< Restarts believed ... */
	uint32_t claims_refused;	/**< ... and claims of one refused (struct
					 *   sb_peer_claim). */
	struct sb_peer_claim claim;
	struct sb_peer_dup dup;
	struct sb_path_pending pending[SB_PEER_PENDING];
	uint16_t interval_ms;		/**< Its hello interval (latest hello). */
	uint8_t n_paths;
	uint8_t n_up;			/**< Paths UP now. */
	uint8_t n_usable;		/**< Paths in the stripe now. */
	uint64_t owd_epoch;		/**< Start of the current windowed-minimum epoch. */
	uint8_t silent;			/**< Silent on every path at once: its paths are held
					 *   (conf.silence_hold, sb_peer_tick()) until it is heard
					 *   again or the hold ends. */
	uint8_t silence_expired;	/**< The hold ended before it was heard again. */
	uint64_t silent_from;		/**< Its newest hello when the silence was found. */
	uint64_t resumed;		/**< When it was last heard again after more than two of
					 *   its hello intervals without a hello on any path;
					 *   0 never (sb_peer_tick()). */
	uint64_t spread_epoch;		/**< Start of the current delay-spread bucket. */
	uint32_t spread_us[2];		/**< Largest delay spread seen this second and the
					 *   one before (sb_peer_delay_spread_us()). */
	struct sb_path path[SB_PEER_MAX_PATHS];
};

/**
 * What a receiving lcore needs to name the (peer, path) of a DATA frame and rebuild its
 * inner header: per peer its aggregate MAC and, per path, the peer port's MAC. The table
 * keeps one (sb_peer_lookup_rx() reads it); lcores that receive data keep replicas, updated
 * from the table's events with the same calls.
 */
struct sb_peer_map {
	unsigned int n_peers;
	struct sb_peer_map_peer {
		uint32_t host_id;
		uint8_t agg_mac[SB_ETH_ALEN];
		uint8_t n_paths;
		/** Path index for (peer port, our port), -1 when none. */
		int8_t path_of[SB_MAX_PORTS][SB_MAX_PORTS];
		uint8_t remote_mac[SB_PEER_MAX_PATHS][SB_ETH_ALEN];
	} peer[SB_MAX_PEERS];
};

/** What changed; the table calls the owner's handler for each. */
enum sb_peer_event_type {
	SB_PEER_EV_NEW,		/**< First hello from this peer. */
	SB_PEER_EV_RESTART,	/**< Instance changed: peer restarted, reset its sequence state. */
	SB_PEER_EV_AGG_MAC,	/**< The peer's aggregate MAC changed. */
	SB_PEER_EV_PATH_UP,	/**< Path entered UP. */
	SB_PEER_EV_PATH_DOWN,	/**< Path left UP (to INIT or DOWN; fault says why). */
	SB_PEER_EV_STRIPE_IN,	/**< Path joined the stripe (usable). */
	SB_PEER_EV_STRIPE_OUT,	/**< Path left the stripe (fault says why). */
	SB_PEER_EV_RX_IDLE,	/**< The peer no longer sends data on the path: the path stops
				 *   counting in the receiver's loss rule. */
	SB_PEER_EV_RX_ACTIVE,	/**< The peer says it sends data on the path (its hello entry's
				 *   TX flag): the receiver's loss rule waits for the path from
				 *   now on, even before its first data frame arrives (a path
				 *   of longer delay is often first used mid-stream). */
	SB_PEER_EV_PATH_NEW,	/**< A path appeared, or its peer port's MAC changed: map
				 *   replicas take it (sb_peer_map_set_path()). */
	SB_PEER_EV_FEEDBACK,	/**< A hello of the peer reported on our frames on the path:
				 *   path->fb holds the new figures (rate, delay, loss). Once per
				 *   hello interval per path; the rate estimator takes it. */
	SB_PEER_EV_SILENT,	/**< The peer fell silent on every path at once: its paths are
				 *   held (conf.silence_hold). */
	SB_PEER_EV_HEARD,	/**< A silent peer was heard again (peer->silence_expired says
				 *   whether its paths had gone down meanwhile). */
	SB_PEER_EV_PEER_GONE,	/**< The peer leaves the table (unheard for conf.peer_evict, or
				 *   its slot given to a new peer when the table was full): the
				 *   owner forgets everything it keeps under this index. The
				 *   entry is still readable during the call and free after;
				 *   its paths went down first, with their events. The index
				 *   is reused by the next new peer (SB_PEER_EV_NEW). */
	SB_PEER_EV_DUP_HOST_ID,	/**< A second host uses this peer's host id (a cloned image, a
				 *   copied config): peer->dup names it (aggregate MAC, a port
				 *   MAC, our port). The first one stays; the other's hellos are
				 *   refused (rejects[SB_PEER_REJ_DUP]) until it has been unheard
				 *   for SB_PEER_DUP_FORGET_S, or the first falls silent. Log it
				 *   loudly. */
};

struct sb_peer_event {
	uint8_t type;	/**< enum sb_peer_event_type */
	uint8_t peer;	/**< Peer index in the table. */
	uint8_t path;	/**< Path index within the peer (path events). */
	uint8_t fault;	/**< enum sb_path_fault (PATH_DOWN, STRIPE_OUT). */
};

/** Why a hello was ignored (counters). */
enum sb_peer_reject {
	SB_PEER_REJ_SELF = 0,	/**< Carries our own host id (a loop, or a spoof). */
	SB_PEER_REJ_BAD_PORT,	/**< Local port or announced port index out of range. */
	SB_PEER_REJ_TABLE_FULL,	/**< No room for another peer or path. */
	SB_PEER_REJ_BAD_ENTRY,	/**< An entry with absurd fields (the hello is still used). */
	SB_PEER_REJ_CLAIM,	/**< Another instance of a known peer, not (yet) believed to be
				 *   its restart (sb_peer_hello_rx()). */
	SB_PEER_REJ_DUP,	/**< From a second host with a known host id (dup). */
	SB_PEER_REJ_IDENTITY,	/**< Aggregate MAC or port count unlike the instance's. */
	SB_PEER_REJ_PORT_MAC,	/**< A port's MAC unlike the one learnt for it, or the MAC of
				 *   another port of the peer heard on the same port of ours. */
	SB_PEER_REJ_MTU,	/**< An MTU below SB_PEER_MTU_FLOOR (or ours). */
	SB_PEER_REJ_MAX
};

/** Settings of the table. */
struct sb_peer_conf {
	uint32_t host_id;		/**< Ours, non-zero. */
	uint64_t hz;			/**< Clock units per second of every @p now passed later. */
	uint32_t loss_max_ppm;		/**< Path leaves the stripe above this share lost
					 *   (parts per million); 0 disables the check. */
	uint32_t loss_window_ms;	/**< Span the share is measured over, >= 10. */
	uint32_t loss_min_frames;	/**< Frames (received + lost) the window needs before it
					 *   judges; below that nothing changes. */
	uint32_t probe_dead_mult;	/**< Probe intervals without a full-size probe before the
					 *   MTU is reported broken, >= 2. */
	bool probes_sent;		/**< We send full-size probes (else our paths are taken
					 *   as MTU-checked). */
	uint64_t tick_stall;		/**< Clock units between two sb_peer_tick() calls
					 *   beyond which the owner's lcore is taken to have
					 *   stalled (sb_peer_tick()); 0: never. */
	uint64_t silence_hold;		/**< Clock units a peer silent on every path at once
					 *   keeps its paths beyond the detection time
					 *   (sb_peer_tick()); 0: no hold. */
	uint64_t peer_evict;		/**< Clock units a peer unheard on every path stays in
					 *   the table (sb_peer_tick()); 0 selects
					 *   SB_PEER_EVICT_DEFAULT_S. */
	uint64_t restart_holddown;	/**< Clock units after a believed restart of a peer
					 *   before another is believed (sb_peer_hello_rx());
					 *   0 selects SB_PEER_RESTART_HOLDDOWN_DEFAULT_S. */
	/** Called for every event, in order, from inside the table's calls. */
	void (*on_event)(void *arg, const struct sb_peer_event *ev);
	void *event_arg;
	/** Copies the DATA counts of (peer, path) into @p out for the hello entries; NULL:
	 *  nobody counts data (hellos alone are reported). Called with event_arg. */
	void (*data_rx)(void *arg, unsigned int peer, unsigned int path,
		struct sb_path_data *out);
	/** @return the frames we sent on (peer, path) that the peer's reports count: DATA,
	 *  our group hellos on the path's port and our unicast hellos on the path (cumulative,
	 *  wraps; never cleared while the path exists). The loss the peer reports over the
	 *  window is clamped to what we sent less what it received: frames forged on the
	 *  peer's side of the path cannot make it lose more than we sent. NULL: no clamp.
	 *  Called with event_arg. */
	uint32_t (*frames_tx)(void *arg, unsigned int peer, unsigned int path);
};

struct sb_peer_table {
	struct sb_peer_conf conf;
	uint64_t loss_sample_period;	/**< Clock units between loss samples. */
	uint64_t owd_epoch_len;		/**< Clock units of a windowed-minimum epoch. */
	unsigned int n_peers;		/**< Slots used so far, free ones (host id 0, after an
					 *   eviction) included: loops over peers skip those. */
	struct sb_peer_map map;		/**< Lookups of received frames. */
	uint32_t probe_due;		/**< Bit per local port where a path (re)appeared: the
					 *   owner sends a full-size probe there soon and clears
					 *   the bit. */
	uint32_t hello_due;		/**< Bit per local port where a path entered or left UP:
					 *   the owner sends a hello there at its next tick (a
					 *   triggered hello, as OSPF's triggered updates) and
					 *   clears the bit, so the peer learns the change in one
					 *   delay instead of up to one hello interval later. */
	uint64_t rejects[SB_PEER_REJ_MAX];
	uint64_t last_tick;		/**< @p now of the last sb_peer_tick(); 0 none yet. */
	uint64_t tick_stalls;		/**< Ticks that found a stall (conf.tick_stall)... */
	uint64_t tick_stall_last;	/**< ... the last one's length, clock units ... */
	uint64_t tick_stall_max;	/**< ... and the longest. */
	uint64_t silence_holds;		/**< Peers found silent on every path (all peers)... */
	uint64_t silence_heard;		/**< ... of those heard again within the hold. */
	uint64_t evicted;		/**< Peers evicted after conf.peer_evict unheard. */
	uint64_t displaced;		/**< Silent peers whose slot a new peer took (full). */
	uint64_t restarts;		/**< Restarts believed (all peers) ... */
	uint64_t restarts_refused;	/**< ... claims of one that ended unbelieved ... */
	uint64_t restarts_limited;	/**< ... of those, held back by the rate limit. */
	uint64_t dup_host_ids;		/**< Second hosts found with a peer's host id. */
	uint64_t rate_clamped;		/**< Hellos whose rate claim was raised to the floor. */
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

/** @return the path MTU: the smaller of our port's and the peer port's, bytes. */
static inline uint16_t
sb_path_mtu(const struct sb_path *path, uint16_t local_mtu)
{
	return path->remote_mtu != 0 && path->remote_mtu < local_mtu ? path->remote_mtu :
		local_mtu;
}

/**
 * The table's clock in microseconds, mod 2^32 (hellos' tx_time_us, one-way delays): @p now
 * converted without overflow at large clock values.
 */
uint32_t sb_peer_clock_us(const struct sb_peer_table *t, uint64_t now);

/**
 * A host id for a host that has none configured: FNV-1a, 32 bits (offset basis 2166136261,
 * prime 16777619), over the @p len bytes of @p machine_id (the text of /etc/machine-id,
 * without its newline) followed by the 6 bytes of the aggregate MAC @p mac; 0 becomes 1.
 * Each machine-id is random (machine-id(5)), so hosts collide only by chance (about n^2 /
 * 2^33 for n hosts); the MAC keeps several instances on one machine (a testbed) apart.
 * A cloned image with the same machine-id and configuration still collides, which the
 * peers report (SB_PEER_EV_DUP_HOST_ID). Pure: the caller reads the file.
 * @return the host id, non-zero.
 */
uint32_t sb_peer_host_id_derive(const void *machine_id, size_t len, const uint8_t *mac);

/** @return a short name of a state ("down", "init", "up"). */
const char *sb_path_state_str(unsigned int state);

/** @return a short name of a fault ("none", "silent", "one-way", "port", "mtu", "loss"). */
const char *sb_path_fault_str(unsigned int fault);

/**
 * Initialise an empty table.
 * @return 0, or -EINVAL (host id 0, hz 0, loss window below 10 ms, probe_dead_mult < 2,
 *   no event handler).
 */
int sb_peer_table_init(struct sb_peer_table *t, const struct sb_peer_conf *conf);

/**
 * Account a valid hello (decoded by sb_wire_hello_decode()): peer and path discovery,
 * liveness, the peer's reports on our frames (its entries that name us), our measurements of
 * its frames (hello sequence, full-size probe, one-way delay). An entry of a brief hello
 * (SB_HELLO_F_BRIEF) counts for liveness, MTU_OK and TX; the measurements of the last full
 * one stay (no SB_PEER_EV_FEEDBACK, no loss sample).
 *
 * Without a cluster key anyone on a switch can send hellos, so what a hello may change is
 * bounded (defence in depth; docs/design.md, "Forged and mistaken hellos"):
 *
 * - Identity, bound at first contact: host id, instance, aggregate MAC, port count, and per
 *   port index the MAC its first path was learnt from. A hello of that instance with
 *   another aggregate MAC or port count is refused (SB_PEER_REJ_IDENTITY); so is one whose
 *   source MAC differs from its port's learnt MAC, or is the MAC of another port of the
 *   peer already heard on the same port of ours (SB_PEER_REJ_PORT_MAC). Port indexes are
 *   below the count announced, so a peer never gains paths to ports it did not announce.
 * - New paths of a known peer: taken at the second hello from the same (our port, its
 *   port, source MAC) within two detection times of the first (at most 2 s), or at once
 *   when its port's MAC is already learnt and matches. A first hello is otherwise ignored
 *   (the call returns the peer index; up to SB_PEER_PENDING such paths wait per peer).
 * - Restart: a hello of another instance is a claim (struct sb_peer_claim; ignored,
 *   SB_PEER_REJ_CLAIM, -EAGAIN). It is believed, with SB_PEER_EV_RESTART, when (1) the
 *   claimed instance was heard on two ports of ours within two detection times (at most
 *   2 s), or twice when the peer has a live path on one port of ours only (the claim then
 *   on that port), or twice when none of its paths is live; (2) the known instance has not
 *   been heard for two of its hello intervals; and (3) no restart of the peer was believed
 *   within conf.restart_holddown (restarts_limited). A forger on one switch reaches one port
 *   of ours, and an honest restart silences the old instance for a whole start-up, so one
 *   forger can neither confirm a claim nor, while the peer lives, get one believed; a
 *   forger changing instance every hello starts a new claim each time. Claims that end
 *   unbelieved are counted (restarts_refused, the peer's claims_refused).
 * - Duplicate host id: a claim confirmed as in (1) while the known instance is still heard
 *   is a second host with the same host id (a cloned image): SB_PEER_EV_DUP_HOST_ID,
 *   dup_host_ids, and peer->dup names it. The first host stays; the second's hellos are
 *   refused (SB_PEER_REJ_DUP), so the two never reset each other, until it is unheard for
 *   SB_PEER_DUP_FORGET_S or the first has no live path left (then it may take over as a
 *   restart). A claim heard on one port of ours only, SB_PEER_DUP_HELLOS times, while
 *   the known instance is heard on two or more is reported the same way: a clone cabled
 *   to one switch cannot confirm a restart, but it is a second host all the same. One
 *   forger can raise this report (never a reset): against a peer heard on one port of
 *   ours only, or by repeating one made-up instance; one that changes instance every
 *   hello never reaches it.
 * - Claims clamped: an MTU below SB_PEER_MTU_FLOOR (or our port's MTU, when smaller) is
 *   refused (SB_PEER_REJ_MTU); one above ours needs no clamp (sb_path_mtu() takes the
 *   smaller). A rate below SB_PEER_RATE_FLOOR_KBPS is taken as that (rate_clamped); above
 *   ours, sb_path_rate_bps() takes ours. A hello sequence jump counts as loss only once the
 *   next hello confirms it and for no more hellos than the stream could have carried since
 *   its previous one (elapsed time / the smaller announced interval, + 2); a larger one
 *   resyncs (struct sb_seq_track).
 * - Table: a new peer takes a free slot, else the slot of the peer unheard longest among
 *   those with no path UP and unheard for two of their hello intervals, or of any peer
 *   unheard for SB_PEER_RECLAIM_MS (displaced; SB_PEER_EV_PEER_GONE for it first), else it
 *   is refused (SB_PEER_REJ_TABLE_FULL, -ENOSPC): a peer with live paths is never refused
 *   in favour of silent ones.
 *
 * @param local_port  Our port it arrived on.
 * @param src_mac     Outer source MAC (the peer port's MAC).
 * @param frame_len   Its length on the wire, bytes (probes are recognised by it).
 * @param local_mtu   Our port's MTU, bytes.
 * @param now         Arrival time, clock units.
 * @return the peer index (>= 0; also for a first hello of a path waiting for confirmation),
 *   or -EINVAL (rejected; counted in rejects[]), -EAGAIN (a restart claim not believed
 *   yet; counted in rejects[SB_PEER_REJ_CLAIM]) or -ENOSPC.
 */
int sb_peer_hello_rx(struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	const struct sb_hello *h, uint32_t frame_len, uint16_t local_mtu, uint64_t now);

/**
 * Time-driven work; call every millisecond or so: paths whose peer went silent go DOWN, loss
 * windows advance, usability is re-evaluated.
 *
 * A stall of the caller's own lcore (more than conf.tick_stall since the previous tick: the
 * process was descheduled on a busy host, or stopped) is not silence of the peers: their
 * hellos wait in the ports' rings meanwhile and are read after this tick. So the time since
 * the previous tick is not counted against any path: each path's hello, echo and probe
 * timers move forward by it (never past @p now), counted in tick_stalls and
 * tick_stall_last/max. A peer that really went silent during the stall is declared down that
 * much later. (A peer stalled longer than the detection time still looks silent to us: it
 * sent nothing; that is what BFD's detection time means, RFC 5880 s.6.8.4.)
 *
 * Such a peer is handled apart from a failed path. A path is declared down (silent) after
 * the detection time when the peer was heard on another path at least two of its hello
 * intervals after this path's last hello (one round can reach us an interval apart over
 * different ports). When instead the peer fell silent on every path at once (its newest
 * hello on any path is less than two intervals younger than this path's last), the peer is
 * frozen or gone, not a path: there is no path of it left to fail over
 * to, and a frozen host (descheduled, stopped) reads whatever was sent to it once it runs
 * again. So its paths stay as they are for conf.silence_hold more (SB_PEER_EV_SILENT,
 * counted in silence_holds), and go down only if it is still silent then. Heard again
 * within the hold (SB_PEER_EV_HEARD, silence_heard), it loses nothing: no path went down,
 * no sequence state was reset, and neither end has to bring paths back up. A peer is also
 * silent as a whole while no path of it has been heard for the detection time.
 *
 * With a hold, a peer heard again after a silence on every path (more than two of its hello
 * intervals; peer->resumed) is judged as a whole for one more detection time: a path not
 * yet heard then is held, not declared down. A host that wakes sends its hellos on every
 * port at once, but they reach us spread out: queued behind data on some ports, read in
 * different bursts, or one triggered hello well ahead of the next round. Without this, the
 * first hello to arrive would make every other path look failed
 * (docs/decisions/2026-12-02-host-that-wakes.md). A path that fails while its peer is heard
 * steadily on others is still declared down after the detection time.
 *
 * A peer unheard on every path for conf.peer_evict is evicted (evicted): its paths go down
 * (with their events), then SB_PEER_EV_PEER_GONE, and its slot is free for the next new
 * peer. Whatever it announced as its detection time, so forged peers never fill the table
 * for good. A refused duplicate of a peer (struct sb_peer_dup) unheard for
 * SB_PEER_DUP_FORGET_S is forgotten.
 */
void sb_peer_tick(struct sb_peer_table *t, uint64_t now);

/**
 * Fill the entries of our next hello on @p local_port: every path over that port in INIT or
 * UP, with our measurements of the peer's frames (and the delivered rate since the previous
 * call for that port). When more than @p max would be listed, lists @p max of them starting
 * at @p *cursor (advanced, so successive hellos cover all) and sets *partial.
 *
 * SB_ENTRY_F_TX is set for paths in the stripe and, while @p port_busy, for every listed
 * path: frames queued before a path left the stripe may still be on their way, and the
 * peer's loss rule must keep waiting for them until a hello (which follows them on the
 * FIFO path) says we stopped.
 *
 * @param port_busy  Our software queue on that port still holds frames.
 * @param brief  For a hello flagged SB_HELLO_F_BRIEF (group hellos at the idle pace, which
 *   every host on the switch hears though only paths that carry data need measurements;
 *   docs/design.md, "Brief hellos"): host id, port and flags only, the measurements left 0,
 *   and the delivered-rate windows left running, so the next full entry of a path reports
 *   the rate since the previous full one.
 * @return entries written.
 */
unsigned int sb_peer_hello_entries(struct sb_peer_table *t, unsigned int local_port,
	uint64_t now, bool port_busy, struct sb_hello_entry *entries, unsigned int max,
	unsigned int *cursor, bool *partial, bool brief);

/**
 * Fill the entry of path @p path of peer @p peer for a hello sent to that path's peer port
 * alone (a unicast hello, docs/wire-format.md): the same entry sb_peer_hello_entries() would
 * list, and the path's delivered-rate window restarts as it does there. A unicast hello
 * lists only its own path, so its receiver's report comes from a window of one hello
 * interval, not one cut short by a hello to another port in the same round.
 *
 * @param port_busy  Our software queue on the path's port still holds frames.
 * @return 1 when written, 0 when the path is down or does not exist (nothing to list).
 */
unsigned int sb_peer_hello_entry_path(struct sb_peer_table *t, unsigned int peer,
	unsigned int path, uint64_t now, bool port_busy, struct sb_hello_entry *e);

/**
 * How much later the peer's frames arrive on its slowest path than on its fastest, as its
 * hellos measure it: over the paths the peer sends data on (UP, and its hellos say TX), the
 * largest minus the smallest moving mean of the one-way delay (queueing included), the
 * largest such spread of the last 1-2 s. A frame sent on the slow path arrives that much
 * after frames sent after it on the fast one, so a reorder window must hold a gap at least
 * that long or give the frame up as late (docs/design.md, "Reorder timeout").
 *
 * @param peer  Peer index (< n_peers).
 * @return the spread in microseconds; 0 when fewer than two such paths have samples.
 */
uint32_t sb_peer_delay_spread_us(const struct sb_peer_table *t, unsigned int peer);

/** Empty map. */
void sb_peer_map_init(struct sb_peer_map *m);

/**
 * Peer @p idx is @p host_id with aggregate MAC @p agg_mac (new, or its MAC changed). Peers
 * are numbered from 0 in the order the table found them; an index freed by an eviction
 * (sb_peer_map_clear_peer()) is reused by a later peer.
 * @return 0, or -EINVAL for an index beyond the next free one or SB_MAX_PEERS.
 */
int sb_peer_map_set_peer(struct sb_peer_map *m, unsigned int idx, uint32_t host_id,
	const uint8_t *agg_mac);

/** Forget every path of peer @p idx (it restarted). */
void sb_peer_map_reset_peer(struct sb_peer_map *m, unsigned int idx);

/** Peer @p idx left the table (SB_PEER_EV_PEER_GONE): its slot matches no frame any more
 *  (host id 0, no paths, aggregate MAC zero). */
void sb_peer_map_clear_peer(struct sb_peer_map *m, unsigned int idx);

/**
 * Path @p path of peer @p idx runs from the peer's port @p remote_port, whose MAC is
 * @p remote_mac, to our port @p local_port.
 * @return 0, or -EINVAL for an index or port out of range.
 */
int sb_peer_map_set_path(struct sb_peer_map *m, unsigned int idx, unsigned int path,
	unsigned int local_port, unsigned int remote_port, const uint8_t *remote_mac);

/**
 * Find the (peer, path) a received frame came through.
 * @param local_port  Port it arrived on.
 * @param src_mac     Outer source MAC.
 * @param shim_path   The shim's path id (the sender's port index).
 * @param path        Set to the path index within the peer.
 * @return peer index, or -ENOENT for a sender we have no path to.
 */
int sb_peer_map_lookup(const struct sb_peer_map *m, unsigned int local_port,
	const uint8_t *src_mac, unsigned int shim_path, unsigned int *path);

/**
 * Find the path a data frame came through (the table's own map).
 * @param local_port  Port it arrived on.
 * @param src_mac     Outer source MAC.
 * @param shim_path   The shim's path id (the sender's port index).
 * @param path        Set to the path index within the peer.
 * @return peer index, or -ENOENT for a sender we have no path to (no hello heard).
 */
int sb_peer_lookup_rx(const struct sb_peer_table *t, unsigned int local_port,
	const uint8_t *src_mac, unsigned int shim_path, unsigned int *path);

/**
 * Find the peer owning an aggregate MAC (destination of a frame from the kernel). Free
 * slots own none.
 * @return peer index or -ENOENT.
 */
int sb_peer_lookup_mac(const struct sb_peer_table *t, const uint8_t *agg_mac);

/** Every path over @p local_port goes DOWN now (our port stopped or lost carrier), with
 *  events; they come back with the next hellos. */
void sb_peer_port_down(struct sb_peer_table *t, unsigned int local_port, uint64_t now);

#endif /* SB_PEER_H */
