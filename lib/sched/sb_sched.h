/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_SCHED_H
#define SB_SCHED_H

/**
 * @file
 * TX scheduler: picks the path for each frame sent to one peer.
 *
 * Policies are pluggable (struct sb_sched_ops, one per file, like testpmd's forwarding
 * engines). Every policy sees the same view of the peer's paths: rate, whether the path is
 * usable (up, and its port TX queue accepted the last burst), and a model of when the
 * path's queue drains. The model (sb_sched_charge()) charges each frame's length at the
 * path's rate; a path whose modelled backlog exceeds max_backlog_ns is full and skipped,
 * which paces seqbond to each link so the link's own queue never overflows, and leaves
 * frames in the exception path (backpressure to the kernel) when every path is full.
 *
 * One scheduler instance belongs to one peer on one lcore; nothing here is thread safe.
 */

#include <stddef.h>
#include <stdint.h>

/** Largest number of paths to one peer (paths are bits of a uint32_t eligible mask). */
#define SB_SCHED_MAX_PATHS 32

/** Rate assumed for a path of unknown rate when no other path's rate is known, bit/s. */
#define SB_SCHED_DEFAULT_RATE_BPS UINT64_C(1000000000)

/**
 * What the scheduler knows of one path. A path is modelled as up to three queues in tandem:
 * our port (rate_bps, busy_until_ns), shared by every path over that port; the path itself
 * (path_rate_bps, pbusy_until_ns: what the path really carries, as the estimator of
 * sb_path_est.h measures it, when that is less than our port's rate: a slower link further
 * on, a switch port shared with other senders); then the peer's port (remote_rate_bps,
 * rbusy_until_ns), shared by every path we have into that peer port (a switch queues there
 * when two of our ports feed one of the peer's: an 8-port gateway sending to a 6-port
 * blade). A rate of 0 leaves that stage out. delay_ns is the path's one-way delay above the
 * peer's fastest path: a frame arrives that much after it leaves the last queue.
 */
struct sb_sched_path {
	uint64_t rate_bps;	/**< Our port's rate, bits per second; 0 means unknown (treated
				 *   as the slowest known rate among the other paths, or
				 *   SB_SCHED_DEFAULT_RATE_BPS; see sb_sched_rates()). */
	uint64_t busy_until_ns;	/**< Modelled time our port's queue drains, ns; kept by
				 *   sb_sched_charge(). */
	uint64_t path_rate_bps;	/**< The path's own rate, bit/s; 0: not modelled. */
	uint64_t pbusy_until_ns;	/**< Modelled time the path's own queue drains, ns. */
	uint64_t delay_ns;	/**< One-way delay above the peer's fastest path, ns. */
	uint64_t remote_rate_bps;	/**< The peer port's rate, bit/s; 0: not modelled. */
	uint64_t rbusy_until_ns;	/**< Modelled time the peer port's queue drains, ns. */
	uint8_t usable;		/**< Non-zero: path up and its TX queue has room. */
};

/** The peer's paths as one lcore sees them. */
struct sb_sched_view {
	struct sb_sched_path path[SB_SCHED_MAX_PATHS];
	unsigned int n_paths;	/**< Paths 0..n_paths-1 exist. */
	uint64_t now_ns;	/**< Current time, ns (monotonic). */
	uint64_t max_backlog_ns;	/**< Path full when busy_until_ns - now_ns exceeds this;
				 *   0 disables the check. Keep it at least one full
				 *   frame's time on the slowest path, or that path is
				 *   full after every frame and edpf sends frames it
				 *   would deliver first elsewhere, out of order. */
};

/** A policy: name plus callbacks over a private state of priv_size bytes. */
struct sb_sched_ops {
	const char *name;	/**< As used in config and console: "rr", "drr", "edpf". */
	const char *help;	/**< One line for documentation and console help. */
	size_t priv_size;	/**< Bytes of private state the policy needs. */
	/** Prepare private state (zeroed before the call). @return 0 or -errno. */
	int (*init)(void *priv, const struct sb_sched_view *v);
	/**
	 * Pick a path for a frame of @p len bytes among paths with @p eligible bit set
	 * (usable and not full; sb_sched_pick() calls this only with a non-zero mask).
	 * Must run in O(n_paths), without allocating or logging. The view is read only: the
	 * caller charges the chosen path with sb_sched_charge() once the frame is queued.
	 * @return a path index whose bit is set in @p eligible, or -EAGAIN if none fits.
	 */
	int (*pick)(void *priv, const struct sb_sched_view *v, uint32_t eligible, uint32_t len);
	/** Release private resources (may be NULL). */
	void (*fini)(void *priv);
};

/** Per-packet round robin over eligible paths, ignoring rates (the balance-rr baseline). */
extern const struct sb_sched_ops sb_sched_rr_ops;
/** Deficit round robin by bytes, quantum proportional to rate (Shreedhar & Varghese,
 *  "Efficient fair queuing using deficit round robin", SIGCOMM 1995). */
extern const struct sb_sched_ops sb_sched_drr_ops;
/** Earliest delivery path first: the path whose modelled queue lets the frame arrive first
 *  (Chebrolu & Rao, "Bandwidth aggregation for real-time applications in heterogeneous
 *  wireless networks", IEEE TMC 2006). Keeps arrivals nearly in order on unequal links. */
extern const struct sb_sched_ops sb_sched_edpf_ops;

/** A scheduler instance: policy plus its private state. */
struct sb_sched {
	const struct sb_sched_ops *ops;
	void *priv;
};

/**
 * Find a policy by name.
 * @return the ops, or NULL if @p name is unknown.
 */
const struct sb_sched_ops *sb_sched_find(const char *name);

/**
 * Enumerate policies: @return the i-th policy, or NULL past the last one.
 */
const struct sb_sched_ops *sb_sched_get(unsigned int i);

/**
 * Initialise @p s with policy @p ops for the paths in @p v. Allocates the policy's private
 * state with calloc(), so it works before (or without) the EAL.
 * @return 0; -EINVAL if an argument is NULL or v->n_paths > SB_SCHED_MAX_PATHS; -ENOMEM;
 *   or the policy's init error. On error @p s holds nothing to free.
 */
int sb_sched_init(struct sb_sched *s, const struct sb_sched_ops *ops,
	const struct sb_sched_view *v);

/** Free the private state of @p s; @p s may then be initialised again. Idempotent. */
void sb_sched_fini(struct sb_sched *s);

/**
 * @return the bit mask of eligible paths in @p v: bit i is set iff i < n_paths, path i is
 *   usable and, when max_backlog_ns is non-zero, busy_until_ns and (when modelled)
 *   pbusy_until_ns and rbusy_until_ns are at most now_ns + max_backlog_ns + D - delay_ns,
 *   D being the largest delay_ns among the usable paths (one arrival horizon for all).
 */
uint32_t sb_sched_eligible(const struct sb_sched_view *v);

/**
 * Pick the path for one frame.
 * @param len  Frame length as it goes on the wire (bytes, outer header included).
 * @return path index, or -EAGAIN when no path is eligible (caller keeps the frame or drops
 *   it and counts it).
 */
int sb_sched_pick(struct sb_sched *s, const struct sb_sched_view *v, uint32_t len);

/**
 * Account a frame of @p len bytes sent on @p path in the queue model:
 * busy_until = max(now, busy_until) + sb_sched_tx_ns(len, rate), with the effective rate of
 * sb_sched_rates(); then, stage by stage where modelled (store and forward),
 * pbusy_until = max(busy_until, pbusy_until) + sb_sched_tx_ns(len, path_rate) and
 * rbusy_until = max(<previous stage>, rbusy_until) + sb_sched_tx_ns(len, remote_rate).
 * A @p path >= n_paths is ignored.
 */
void sb_sched_charge(struct sb_sched_view *v, unsigned int path, uint32_t len);

/**
 * When a frame of @p len bytes sent now on @p path would leave the last modelled queue, ns:
 * what sb_sched_charge() would set. edpf adds delay_ns to it: the arrival it compares.
 * @param rate  The path's effective first-stage rate (from sb_sched_rates()).
 */
uint64_t sb_sched_finish_ns(const struct sb_sched_view *v, unsigned int path, uint32_t len,
	uint64_t rate);

/**
 * Effective rate of each path, resolving unknown rates (rate_bps 0) to the slowest known
 * rate among the peer's paths, or SB_SCHED_DEFAULT_RATE_BPS when none is known; assuming the
 * slowest keeps the queue model from overfilling a link we know nothing about. O(n_paths).
 * @param rate  Filled for paths 0..n_paths-1, bit/s (never 0).
 */
void sb_sched_rates(const struct sb_sched_view *v, uint64_t rate[SB_SCHED_MAX_PATHS]);

/**
 * The rate each path carries end to end: the smallest of its modelled stages (our port's
 * effective rate from sb_sched_rates(), path_rate_bps, remote_rate_bps), for policies that
 * share by rate (drr).
 * @param rate  Filled for paths 0..n_paths-1, bit/s (never 0).
 */
void sb_sched_path_rates(const struct sb_sched_view *v, uint64_t rate[SB_SCHED_MAX_PATHS]);

/**
 * Time to serialise @p len bytes at @p rate_bps: floor(len * 8e9 / rate_bps) ns in integer
 * arithmetic, exact for any frame (1500 bytes at 100 Mbit/s is 120000 ns).
 * @param rate_bps  Bit/s; 0 is taken as SB_SCHED_DEFAULT_RATE_BPS rather than dividing by 0.
 * @return ns, saturated at UINT64_MAX.
 */
static inline uint64_t
sb_sched_tx_ns(uint32_t len, uint64_t rate_bps)
{
	uint64_t bits = (uint64_t)len * 8;
	uint64_t x, q;

	if (rate_bps == 0)
		rate_bps = SB_SCHED_DEFAULT_RATE_BPS;
	/* Any real frame: bits * 1e9 < 2^34 * 2^30 fits, one division. */
	if (len < (UINT32_C(1) << 31))
		return bits * UINT64_C(1000000000) / rate_bps;
	/* Absurd lengths, never a real frame: split 1e9 = 1e5 * 1e4 so no product overflows
	 * (bits * 1e5 < 2^52; remainder * 1e4 < 2^64 below 1.8 Pbit/s, else approximate). */
	if (rate_bps > UINT64_MAX / 10000)
		return bits / (rate_bps / UINT64_C(1000000000));
	x = bits * UINT64_C(100000);
	q = x / rate_bps;
	if (q > UINT64_MAX / 10000 - 1)
		return UINT64_MAX;
	return q * 10000 + (x % rate_bps) * 10000 / rate_bps;
}

#endif /* SB_SCHED_H */
