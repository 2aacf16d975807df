/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_EXCEPTION_H
#define SB_EXCEPTION_H

/**
 * @file
 * The exception path: the kernel interface (sb0) through which the host's own traffic enters
 * and leaves seqbond, behind one interface with several back ends.
 *
 * Contract with the datapath, whatever the back end:
 * - sb_exc_rx_burst() returns ordinary Ethernet frames of at most MTU + 14 bytes (+ 4 with a
 *   VLAN tag) whose IPv4 header and TCP/UDP checksums are complete: nothing on the wire
 *   depends on an offload, so a peer with any back end can take them. The frames may be
 *   multi-segment (a header mbuf and indirect payload mbufs from segmentation) unless
 *   SB_EXC_F_LINEAR was given.
 * - sb_exc_tx_burst() takes ordinary frames, in order, and hands them to the kernel (the
 *   tap-vnet back end coalesces consecutive TCP segments into large ones first).
 * - Queues are independent; within a queue, rx_burst has one caller at a time and so has
 *   tx_burst, and the two may be different lcores running at once (as ethdev rx and tx
 *   queues): one lcore reading every queue and one lcore per queue writing is fine.
 *
 * Back ends (enum sb_exc_type, docs/design.md "Exception path"):
 * - tap-vnet: Linux TUN/TAP opened directly with IFF_VNET_HDR; the kernel hands over TCP
 *   segments of up to 64 KiB (TSO, checksum offload) which are cut with DPDK's gso library,
 *   and frames towards the kernel are merged with DPDK's gro library. MTU up to 9600.
 * - tap: DPDK's TAP PMD (net_tap), one frame per system call, MTU at most 1500.
 * - virtio-user: DPDK's virtio-user PMD over /dev/vhost-net (kernels with vhost-net).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/** Exception path back ends; values of `[exception] type`. */
enum sb_exc_type {
	SB_EXC_AUTO = 0,	/**< tap-vnet where the kernel offers it, else tap. */
	SB_EXC_TAP,		/**< DPDK TAP PMD (net_tap): works on every kernel with TUN. */
	SB_EXC_VIRTIO_USER,	/**< DPDK virtio-user over /dev/vhost-net. */
	SB_EXC_TAP_VNET,	/**< TUN/TAP with the virtio-net header: large segments. */
	SB_EXC_TYPE_MAX,
};

/** rx_burst() returns single-segment frames (for ports without multi-segment transmit). */
#define SB_EXC_F_LINEAR (1u << 0)

/** Arguments of sb_exc_create(). */
struct sb_exc_args {
	enum sb_exc_type type;		/**< Not SB_EXC_AUTO: see sb_exc_type_resolve(). */
	const char *name;		/**< Kernel interface name (1..15 characters). */
	const uint8_t *mac;		/**< Its MAC address, 6 bytes (the aggregate MAC). */
	uint16_t mtu;			/**< Its MTU, bytes of L3 payload. */
	uint16_t n_queues;		/**< Queues, 1..SB_EXC_MAX_QUEUES. */
	/**
	 * Mbufs for frames from the kernel: ethdev rx queues, and tap-vnet's reads (a large
	 * segment is read into a chain of these, so any data room works; frames towards the
	 * member ports then stay as small as the data room allows).
	 */
	struct rte_mempool *mp;
	uint16_t nb_rxd, nb_txd;	/**< ethdev back ends: descriptors per queue. */
	/**
	 * Frames from rx_burst() the caller may hold at once, all queues together (its
	 * queues to the member ports and their tx rings). tap-vnet sizes the pools of its
	 * segment headers by it; when they run dry, reading stops until frames come back.
	 */
	uint32_t max_held;
	uint32_t flags;			/**< SB_EXC_F_*. */
};

#define SB_EXC_MAX_QUEUES 16

/** Counters of an exception path, frames unless said otherwise; summed over its queues. */
struct sb_exc_stats {
	uint64_t rx_frames;	/**< Frames returned by rx_burst. */
	uint64_t rx_kernel;	/**< Packets read from the kernel (tap-vnet). */
	uint64_t rx_gso;	/**< Of those, large TCP segments (TSO) ... */
	uint64_t rx_gso_frames;	/**< ... and the frames cut from them. */
	uint64_t rx_csum;	/**< Checksums left open by the kernel and completed here. */
	uint64_t rx_bad_hdr;	/**< Invalid virtio-net header: dropped. */
	uint64_t rx_oversize;	/**< Above the MTU without TSO: dropped. */
	uint64_t rx_gso_fail;	/**< Could not be cut (unsupported headers): dropped. */
	uint64_t rx_nombuf;	/**< Reads put off for want of mbufs (the kernel queues). */
	uint64_t rx_errors;	/**< Failed reads (truncated, I/O errors). */
	uint64_t tx_frames;	/**< Frames accepted by tx_burst. */
	uint64_t tx_kernel;	/**< Packets written to the kernel (tap-vnet). */
	uint64_t tx_gro;	/**< Of those, made of two frames or more ... */
	uint64_t tx_gro_frames;	/**< ... and the frames merged into them. */
	uint64_t tx_csum_ok;	/**< TCP/UDP checksum verified here: the kernel skips it. */
	uint64_t tx_csum_bad;	/**< Wrong checksum: passed on as is, the kernel drops it. */
	uint64_t tx_errors;	/**< Frames lost to write errors (e.g. sb0 down). */
	uint64_t tx_deferred;	/**< Writes the kernel refused for now (EAGAIN); retried. */
};

/** What an exception path is and carries. */
struct sb_exc_info {
	enum sb_exc_type type;
	char name[16];		/**< Kernel interface name. */
	uint16_t mtu;
	uint16_t n_queues;
	uint16_t port_id;	/**< ethdev port of ethdev back ends, else RTE_MAX_ETHPORTS. */
	bool large_segments;	/**< TSO from and GRO towards the kernel (tap-vnet). */
};

struct sb_exc;

/**
 * Parse a back-end name as written in `[exception] type`.
 * @return 0, or -EINVAL for an unknown name (*type unchanged).
 */
int sb_exc_type_parse(const char *name, enum sb_exc_type *type);

/** Name of a back end ("auto", "tap-vnet", "tap", "virtio-user"). */
const char *sb_exc_type_name(enum sb_exc_type type);

/** Every accepted name, for messages: "auto, tap-vnet, tap or virtio-user". */
const char *sb_exc_type_names(void);

/**
 * Pick the back end for SB_EXC_AUTO: tap-vnet when /dev/net/tun offers IFF_TAP, IFF_NO_PI,
 * IFF_VNET_HDR and IFF_MULTI_QUEUE (TUNGETFEATURES), else the TAP PMD. Other types are
 * returned unchanged. The choice is logged.
 */
enum sb_exc_type sb_exc_type_resolve(enum sb_exc_type type);

/**
 * Largest MTU a back end carries: 1500 for the TAP PMD of DPDK 22.11 (it refuses larger
 * frames), 9600 for tap-vnet and virtio-user.
 * @param type Not SB_EXC_AUTO.
 */
uint16_t sb_exc_max_mtu(enum sb_exc_type type);

/**
 * Mbufs of the pool args->mp the exception path may hold itself (its rx rings, tap-vnet's
 * read buffers and frames cut but not yet returned), beyond one per frame the caller holds:
 * add this to the pool size. Called before the pool exists (args->mp is not read).
 * @param data_room  The pool's data room (rte_pktmbuf_pool_create()), bytes.
 */
unsigned int sb_exc_mempool_need(const struct sb_exc_args *args, uint16_t data_room);

/**
 * Create the exception path: the kernel interface appears, up, with the MAC and MTU given.
 *
 * @return the exception path, or NULL with rte_errno set: EINVAL (bad arguments), ENOTSUP
 *   (the kernel lacks what the back end needs: /dev/vhost-net, IFF_VNET_HDR, TSO offloads;
 *   the log line says what and suggests another type), EBUSY (an interface of that name
 *   exists and is not ours to attach to), ENOMEM, or the errno of the failing system call.
 */
struct sb_exc *sb_exc_create(const struct sb_exc_args *args);

/**
 * Wrap an ethdev port that the caller probed and set up (harnesses that play the kernel
 * with a ring port). sb_exc_close() leaves the port to the caller.
 * @return the exception path or NULL with rte_errno set (ENOMEM, EINVAL).
 */
struct sb_exc *sb_exc_from_port(uint16_t port_id, uint16_t mtu, uint16_t n_queues);

/**
 * Receive frames from the kernel.
 *
 * @param queue  0..n_queues-1; one rx_burst caller at a time per queue.
 * @param pkts   Receives up to @p n frames; the caller owns them.
 * @return frames received (0 when the kernel has nothing).
 */
uint16_t sb_exc_rx_burst(struct sb_exc *exc, uint16_t queue, struct rte_mbuf **pkts,
	uint16_t n);

/**
 * Send frames to the kernel, in the order given.
 *
 * @param queue 0..n_queues-1; one tx_burst caller at a time per queue (it may run while
 *   another lcore calls rx_burst on the same queue).
 * @param pkts  Frames; the first k (the return value) now belong to the exception path
 *   (written, or dropped and counted); pkts[k..n-1] still belong to the caller, untouched,
 *   to offer again later (the kernel or the back end's queue was full).
 * @return k, frames taken.
 */
uint16_t sb_exc_tx_burst(struct sb_exc *exc, uint16_t queue, struct rte_mbuf **pkts,
	uint16_t n);

/**
 * A file descriptor that polls readable (POLLIN) when the kernel has handed queue @p queue a
 * frame, so that an idle lcore can sleep in poll() and still wake at once for the host's own
 * traffic. Frames the back end already read and holds do not show on it: call rx_burst until
 * it returns 0 first, and bound the wait (the caller's nap).
 *
 * @return the descriptor (owned by the exception path: do not close or read it), or
 *   -ENOTSUP for back ends without one (the ethdev ones: tap, virtio-user), -EINVAL for a
 *   queue out of range.
 */
int sb_exc_wait_fd(const struct sb_exc *exc, uint16_t queue);

/**
 * Frames queue @p queue accepted from sb_exc_tx_burst() that the kernel refused so far and the
 * back end holds (tap-vnet: writes that failed with EAGAIN): the caller retries a tx burst on a
 * timer while this is not 0, since no descriptor tells when the kernel takes them.
 * @return the count, 0 for back ends that hold nothing.
 */
unsigned int sb_exc_tx_held(const struct sb_exc *exc, uint16_t queue);

/** Counters summed over the queues (read while the lcores run: each value may lag). */
void sb_exc_stats_get(const struct sb_exc *exc, struct sb_exc_stats *st);

/**
 * Call @p fn with the name ("exc_rx_gso", ...) and value of every counter in @p st. The
 * exit report and any other front end list counters through this.
 */
void sb_exc_stats_foreach(const struct sb_exc_stats *st,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg);

void sb_exc_info_get(const struct sb_exc *exc, struct sb_exc_info *info);

/**
 * Remove the kernel interface and free everything the exception path holds (mbufs it read
 * and kept, frames waiting for the kernel). Call it after the caller freed every frame it
 * got from rx_burst (stop the lcores first).
 * @return 0, or -EBUSY when mbufs of the exception path's own pools are still out (a frame
 *   from rx_burst was not freed: a leak, logged); the pools are then left allocated.
 */
int sb_exc_close(struct sb_exc *exc);

#endif /* SB_EXCEPTION_H */
