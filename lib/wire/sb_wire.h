/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_WIRE_H
#define SB_WIRE_H

/**
 * @file
 * seqbond wire format (docs/wire-format.md has the byte-by-byte description).
 *
 * Every seqbond frame is an ordinary Ethernet frame with EtherType SB_ETHER_TYPE followed by
 * an 8-byte shim:
 *
 *   byte 0   version (high nibble, SB_WIRE_VERSION) | frame type (low nibble)
 *   byte 1   flags
 *   byte 2   path id: the sender's port index
 *   byte 3   reserved, sent as 0, ignored on receive
 *   bytes 4-7  sequence number, network order (DATA only; 0 otherwise)
 *
 * DATA and UNSEQ frames carry the inner Ethernet frame after the shim. When the inner frame
 * goes from the sender's aggregate MAC to the receiver's aggregate MAC, its 12 address bytes
 * are elided (flag SB_WIRE_F_ELIDED) and only its 2-byte EtherType follows the shim: the
 * receiver rebuilds the addresses from the peer table. Otherwise the whole inner header is
 * carried. HELLO frames carry struct sb_wire_hello after the shim.
 *
 * The parser works on a flat buffer (the first segment of an mbuf) so it can be unit tested
 * and fuzzed without ports.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** IEEE Std 802 Local Experimental EtherType 1. */
#define SB_ETHER_TYPE 0x88B5
#define SB_WIRE_VERSION 1

#define SB_ETH_HLEN 14			/**< Ethernet header, no VLAN tag. */
#define SB_ETH_ALEN 6
#define SB_SHIM_LEN 8			/**< Shim alone. */
#define SB_HDR_LEN (SB_ETH_HLEN + SB_SHIM_LEN)	/**< Outer Ethernet + shim. */
/** Bytes seqbond adds to an inner frame whose addresses are elided: outer header + shim +
 *  inner EtherType - inner Ethernet header. This is what the exception MTU gives up. */
#define SB_WIRE_OVERHEAD (SB_HDR_LEN + 2 - SB_ETH_HLEN)

/** Frame types (low nibble of byte 0). */
enum sb_wire_type {
	SB_WIRE_DATA = 0,	/**< Sequenced unicast data for one peer. */
	SB_WIRE_UNSEQ = 1,	/**< Unsequenced data (broadcast/multicast inner frame). */
	SB_WIRE_HELLO = 2,	/**< Peer discovery and path liveness. */
	SB_WIRE_TYPE_MAX
};

/** Shim flags (byte 1). */
#define SB_WIRE_F_ELIDED 0x01	/**< Inner MAC addresses elided; only EtherType follows. */
#define SB_WIRE_F_MASK 0x01	/**< Flags this version understands. */

/** Group address hellos are sent to: multicast, locally administered, flooded by bridges. */
#define SB_HELLO_MAC { 0x03, 0x53, 0x42, 0x00, 0x00, 0x01 }

/** Decoded shim. */
struct sb_shim {
	uint8_t type;		/**< enum sb_wire_type */
	uint8_t flags;
	uint8_t path;		/**< Sender's port index. */
	uint32_t seq;		/**< Host order. */
};

/** Hello body, after the shim; all multi-byte fields in network order. 28 bytes. */
struct sb_wire_hello {
	uint32_t host_id;	/**< Sender's host id, non-zero. */
	uint32_t instance;	/**< Random per process start: a change means the peer restarted. */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< Sender's aggregate (exception interface) MAC. */
	uint8_t port_index;	/**< Sender's port this hello left from. */
	uint8_t n_ports;	/**< Sender's number of ports. */
	uint32_t rate_kbps;	/**< That port's rate, kbit/s (0 = unknown). */
	uint16_t interval_ms;	/**< Sender's hello interval. */
	uint16_t mtu;		/**< That port's MTU, bytes. */
	uint32_t reserved;	/**< Sent as 0. */
} __attribute__((packed));

#define SB_HELLO_LEN ((unsigned int)sizeof(struct sb_wire_hello))

/** Decoded hello, host order. */
struct sb_hello {
	uint32_t host_id;
	uint32_t instance;
	uint8_t agg_mac[SB_ETH_ALEN];
	uint8_t port_index;
	uint8_t n_ports;
	uint32_t rate_kbps;
	uint16_t interval_ms;
	uint16_t mtu;
};

/** Why sb_wire_parse() rejected a frame; indexes the per-reason drop counters. */
enum sb_wire_err {
	SB_WIRE_OK = 0,
	SB_WIRE_E_FOREIGN,	/**< Not seqbond's EtherType: raw traffic, not an error. */
	SB_WIRE_E_TRUNCATED,	/**< Shorter than the headers its type needs. */
	SB_WIRE_E_VERSION,	/**< Unknown version. */
	SB_WIRE_E_TYPE,		/**< Unknown frame type. */
	SB_WIRE_E_FLAGS,	/**< Flags this version does not define. */
	SB_WIRE_E_HELLO,	/**< Hello with absurd fields (zero host id, port >= n_ports...). */
	SB_WIRE_E_OVERSIZE,	/**< Longer than the receiving port's MTU allows. Set by the
				 *   caller, which knows the MTU; sb_wire_parse() never returns it. */
	SB_WIRE_E_MAX
};

/** @return a short name for a parse result, for logs and counters ("truncated"...). */
const char *sb_wire_err_str(enum sb_wire_err e);

/**
 * Parse the outer header and shim of a received frame.
 *
 * @param buf   First byte of the frame (outer Ethernet header).
 * @param len   Bytes available in @p buf (contiguous).
 * @param shim  Filled on success.
 * @param inner_off  On success for DATA/UNSEQ: offset of the inner payload: for elided
 *   frames, of the inner EtherType; otherwise of the inner Ethernet header.
 * @return SB_WIRE_OK or the reason the frame is not a valid seqbond frame.
 */
enum sb_wire_err sb_wire_parse(const uint8_t *buf, size_t len, struct sb_shim *shim,
	size_t *inner_off);

/**
 * Decode and validate a hello body.
 * @param body  Bytes after the shim; @param len their number.
 * @return SB_WIRE_OK, SB_WIRE_E_TRUNCATED or SB_WIRE_E_HELLO.
 */
enum sb_wire_err sb_wire_hello_decode(const uint8_t *body, size_t len, struct sb_hello *h);

/**
 * Write the outer Ethernet header and shim at @p buf (SB_HDR_LEN bytes).
 * @param dst, src  Outer MAC addresses (6 bytes each).
 */
void sb_wire_put_hdr(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
	const struct sb_shim *shim);

/**
 * Write a complete hello frame (outer header, shim, body) at @p buf, which must hold
 * SB_HDR_LEN + SB_HELLO_LEN bytes.
 * @param src  Sending port's MAC.
 * @return frame length in bytes.
 */
size_t sb_wire_put_hello(uint8_t *buf, const uint8_t *src, uint8_t path,
	const struct sb_hello *h);

#endif /* SB_WIRE_H */
