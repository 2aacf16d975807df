/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_VNET_H
#define SB_VNET_H

/**
 * @file
 * The virtio-net header of a TUN/TAP interface opened with IFF_VNET_HDR, and what it takes to
 * turn the kernel's offloaded packets into ordinary frames and back (the tap-vnet exception
 * path, sb_exception_tap_vnet.c). No file descriptors here, so every step is unit tested.
 *
 * From the kernel (rx): a packet is a TCP segment of up to 64 KiB (gso_type TCPV4/TCPV6,
 * gso_size = MSS) and/or carries a checksum the kernel left open (NEEDS_CSUM: the pseudo-
 * header sum sits in the field, csum_start/csum_offset say where). sb_vnet_rx_decode() checks
 * the header against the frame; sb_vnet_rx_finish() cuts TCP/IPv4 with DPDK's gso library
 * (TCP/IPv6 alike with indirect mbufs, which the gso library of DPDK 22.11 lacks) and fills in
 * every IPv4 header and TCP/UDP checksum in software.
 *
 * To the kernel (tx): sb_vnet_tx_coalesce() verifies each frame's checksums and merges runs of
 * consecutive TCP/IPv4 segments with DPDK's gro library without changing the order of any
 * flow; sb_vnet_tx_header() writes the header that lets the kernel take the merged packet as
 * one (gso_type, gso_size) and the verified checksums as good (NEEDS_CSUM, see there).
 *
 * References: include/uapi/linux/virtio_net.h and the kernel's virtio_net_hdr_to_skb() /
 * virtio_net_hdr_from_skb() for the header's meaning; the virtio 1.x specification, 5.1.6.
 */

#include <stdint.h>

#include <linux/virtio_net.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/** Size of the header seqbond asks for (TUNSETVNETHDRSZ): virtio 1.x, little endian. */
#define SB_VNET_HDR_LEN ((int)sizeof(struct virtio_net_hdr_v1))

/** Headers (L2 to L4) of a segment must fit this; data room of the segment-header pool. */
#define SB_VNET_MAX_HDRS 256

/** Largest packet the kernel hands over: 64 KiB of GSO plus room for L2 headers. */
#define SB_VNET_MAX_PKT (65536 + 64)

/** What a packet read from the kernel needs, from its virtio-net header. */
struct sb_vnet_rx {
	uint8_t gso_type;	/**< VIRTIO_NET_HDR_GSO_NONE, _TCPV4 or _TCPV6. */
	uint8_t need_csum;	/**< The kernel left the L4 checksum open. */
	uint16_t csum_start;	/**< Bytes from the frame start where checksumming starts. */
	uint16_t csum_offset;	/**< Bytes from csum_start to the checksum field. */
	uint16_t gso_size;	/**< MSS: TCP payload bytes per segment. */
};

/**
 * Check a virtio-net header against the frame it came with and parse the frame's headers
 * (m->packet_type, l2_len, l3_len, l4_len are set).
 *
 * @param h  The header as read (little endian, TUNSETVNETLE).
 * @param m  The frame (may be a chain; L2-L4 headers must be in its first segment).
 * @param rx Receives what the frame needs.
 * @return 0; -EINVAL when the header contradicts itself or the frame (checksum field outside
 *   the first segment, gso_type TCPV4 on a frame that is not TCP/IPv4, gso_size 0, unknown
 *   flags); -ENOTSUP for GSO types seqbond never negotiates (UDP, ECN).
 */
int sb_vnet_rx_decode(const struct virtio_net_hdr_v1 *h, struct rte_mbuf *m,
	struct sb_vnet_rx *rx);

/** Pools and limits for sb_vnet_rx_finish(). */
struct sb_vnet_seg_ctx {
	struct rte_mempool *hdr_pool;	/**< Segment headers: data room >= headroom + 256. */
	struct rte_mempool *indirect_pool; /**< Indirect mbufs pointing at payload (room 0). */
	struct rte_mempool *linear_pool;/**< Non-NULL: copy every segment into one mbuf. */
	uint16_t mtu;			/**< Frames leave with at most mtu + l2_len bytes. */
};

/**
 * Turn a decoded packet from the kernel into ordinary frames: complete the checksum the
 * kernel left open, or cut a large TCP segment into MSS-sized frames (IPv4 with
 * rte_gso_segment(), IPv6 alike) and set each one's IPv4 header and TCP checksum.
 *
 * @param m    Decoded by sb_vnet_rx_decode().
 * @param out  Receives the frames; @param n_out its size.
 * @return frames in @p out (>= 1): @p m now belongs to them (it is out[0], or freed with the
 *   segments holding references to its data). On error @p m is still the caller's: -EMSGSIZE
 *   (larger than the MTU and not a TCP segment to cut: drop it), -EINVAL (headers that cannot
 *   be cut: IPv6 extension headers, headers beyond 256 bytes, an MSS that leaves no payload:
 *   drop it), -ENOSPC (more frames than @p n_out: retry with room) or -ENOMEM (a pool ran
 *   dry: retry later).
 */
int sb_vnet_rx_finish(struct rte_mbuf *m, const struct sb_vnet_rx *rx,
	const struct sb_vnet_seg_ctx *ctx, struct rte_mbuf **out, uint16_t n_out);

/** Frames sb_vnet_rx_finish() can make of a packet of @p pkt_len bytes at @p mtu, at most. */
unsigned int sb_vnet_max_segments(uint32_t pkt_len, uint16_t mtu);

/** Counters of sb_vnet_tx_coalesce(), added to. */
struct sb_vnet_tx_stats {
	uint64_t csum_ok;	/**< Frames whose TCP/UDP checksum (and IPv4 header) verified. */
	uint64_t csum_bad;	/**< Frames with a wrong one: left for the kernel to drop. */
	uint64_t gro;		/**< Packets made of two frames or more. */
	uint64_t gro_frames;	/**< Frames in those. */
};

/** Frames sb_vnet_tx_coalesce() hands to rte_gro_reassemble_burst() at once. */
#define SB_VNET_GRO_RUN_MAX 128

/**
 * Prepare frames for the kernel, in place: verify each frame's IPv4 header and TCP/UDP
 * checksum, then merge each run of consecutive mergeable TCP/IPv4 segments (only the ACK
 * flag, payload, good checksums, no IP options) with rte_gro_reassemble_burst(). Frames that
 * cannot be merged split the runs, so no TCP connection sees its segments (or its pure ACKs)
 * reordered; the gro library may only interleave different connections.
 *
 * @param pkts In: @p n frames, owned by the caller. Out: the packets to write, in order.
 * @return packets in pkts[0..k); the caller owns them (merged frames are chained into them).
 */
uint16_t sb_vnet_tx_coalesce(struct rte_mbuf **pkts, uint16_t n, struct sb_vnet_tx_stats *st);

/**
 * Write the virtio-net header for a packet prepared by sb_vnet_tx_coalesce(), adjusting the
 * packet. A packet whose checksums verified is handed over as CHECKSUM_PARTIAL: NEEDS_CSUM
 * with csum_start/csum_offset, and the pseudo-header sum in its TCP/UDP checksum field, so
 * the kernel takes it as verified (and completes it, should it forward the packet). A merged
 * TCP packet also gets gso_type, gso_size (its largest frame's payload) and hdr_len, and its
 * IPv4 header checksum recomputed for the new length. (DATA_VALID, the device-to-driver
 * flag, is ignored by tun on writes.) Frames not verified go with an empty header.
 */
void sb_vnet_tx_header(struct rte_mbuf *m, struct virtio_net_hdr_v1 *h);

#endif /* SB_VNET_H */
