/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_WIRE_H
#define SB_WIRE_H

/**
 * @file
 * seqbond wire format, version 4 (docs/wire-format.md has the byte-by-byte description).
 *
 * Every seqbond frame is an ordinary Ethernet frame with EtherType SB_ETHER_TYPE followed by
 * an 8-byte shim:
 *
 *   byte 0   version (high nibble, SB_WIRE_VERSION) | frame type (low nibble)
 *   byte 1   flags (SB_WIRE_F_*)
 *   byte 2   path id: the sender's port index
 *   byte 3   path sequence number: DATA frames only, +1 per DATA frame the sender puts on
 *            this path (mod 256), so the receiver sees which path lost a frame; 0 otherwise
 *   bytes 4-7  sequence number, network order (DATA only; 0 otherwise)
 *
 * DATA frames carry the inner Ethernet frame after the shim. When the inner frame goes from
 * the sender's aggregate MAC to the receiver's aggregate MAC, its 12 address bytes are elided
 * (flag SB_WIRE_F_ELIDED) and only its 2-byte EtherType follows the shim: the receiver
 * rebuilds the addresses from the peer table. Otherwise (broadcast, multicast, unknown
 * unicast, a foreign source) the whole inner header is carried. HELLO frames carry struct
 * sb_wire_hello, then n_entries struct sb_wire_hello_entry (what the sender hears on the
 * port the hello left from), then padding up to the frame length when the hello is a
 * full-size probe (SB_HELLO_F_PROBE).
 *
 * Cluster authentication (lib/auth): a host with a cluster key sets SB_WIRE_F_AUTH in every
 * frame it sends. A DATA frame then carries struct sb_wire_data_auth right after the shim
 * (its exact length, key id, the high half of its 64-bit packet number and a 16-byte tag over
 * the whole frame), before the inner EtherType or frame; a hello carries struct
 * sb_wire_hello_auth (key id, crypto sequence, session nonce, tag) right after its entries,
 * before any probe padding. A host without a key sends neither and refuses frames that
 * carry them; a host with one refuses frames without them (the datapath counts both).
 *
 * The parser works on a flat buffer (the first segment of an mbuf) so it can be unit tested
 * and fuzzed without ports.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** IEEE Std 802 Local Experimental EtherType 1. */
#define SB_ETHER_TYPE 0x88B5
#define SB_WIRE_VERSION 4

#define SB_ETH_HLEN 14			/**< Ethernet header, no VLAN tag. */
#define SB_ETH_ALEN 6
#define SB_SHIM_LEN 8			/**< Shim alone. */
#define SB_HDR_LEN (SB_ETH_HLEN + SB_SHIM_LEN)	/**< Outer Ethernet + shim. */
/** Bytes seqbond adds to an inner frame whose addresses are elided: outer header + shim +
 *  inner EtherType - inner Ethernet header. This is what the exception MTU gives up
 *  without a cluster key (sb_wire_overhead()). */
#define SB_WIRE_OVERHEAD (SB_HDR_LEN + 2 - SB_ETH_HLEN)

/**
 * Authentication header of a DATA frame flagged SB_WIRE_F_AUTH, right after the shim (offset
 * SB_HDR_LEN). 24 bytes, network order. The tag covers the frame's bytes before it (outer
 * MACs, EtherType, shim, this header's first 8 bytes) and every byte after it up to len.
 */
struct sb_wire_data_auth {
	uint16_t len;		/**< The frame's length from its first byte to the last of the
				 *   inner frame, tag included: Ethernet pads short frames, and
				 *   the receiver must know which bytes were sent. */
	uint8_t key_id;		/**< Id of the cluster key the direction key comes from. */
	uint8_t gen;		/**< The receiver's key generation the direction key comes from
				 *   (its hellos announce it: struct sb_wire_hello_auth gen). */
	uint32_t pn_hi;		/**< Bits 63..32 of the packet number; bits 31..0 are the
				 *   shim's sequence number. */
	uint8_t tag[16];	/**< AES-256-GCM tag (lib/auth, sb_auth_data_mac()). */
} __attribute__((packed));

#define SB_WIRE_DATA_AUTH_LEN ((unsigned int)sizeof(struct sb_wire_data_auth))
/** Offset of the tag in a DATA frame; bytes before it are covered, as is all after it. */
#define SB_WIRE_DATA_TAG_OFF (SB_HDR_LEN + 8)
/** Offset of the inner EtherType (elided) or frame after the authentication header. */
#define SB_WIRE_DATA_AUTH_INNER (SB_HDR_LEN + SB_WIRE_DATA_AUTH_LEN)

/** Decoded DATA authentication header (sb_wire_data_auth_get()), host order. */
struct sb_data_auth {
	uint16_t len;
	uint8_t key_id;
	uint8_t gen;
	uint32_t pn_hi;
	const uint8_t *tag;	/**< In the frame. */
};

/** Frame types (low nibble of byte 0). Type 1 (version 1's UNSEQ) is not used any more. */
enum sb_wire_type {
	SB_WIRE_DATA = 0,	/**< Sequenced data for one peer (unicast outer destination). */
	SB_WIRE_HELLO = 2,	/**< Peer discovery, path liveness and path feedback. */
	SB_WIRE_TYPE_MAX
};

/** Shim flags (byte 1). */
#define SB_WIRE_F_ELIDED 0x01	/**< Inner MAC addresses elided; only EtherType follows. */
#define SB_WIRE_F_AUTH 0x02	/**< Authenticated: struct sb_wire_data_auth follows the
				 *   shim, or a hello carries struct sb_wire_hello_auth after
				 *   its entries. */
#define SB_WIRE_F_MASK 0x03	/**< Flags this version understands. */
#define SB_WIRE_F_HELLO_MASK SB_WIRE_F_AUTH	/**< Of those, the ones a hello may carry. */

/**
 * Bytes seqbond adds to an inner frame whose addresses are elided, with (@p auth) or without
 * a cluster key: what the exception MTU gives up (10 or 34).
 */
static inline unsigned int
sb_wire_overhead(bool auth)
{
	return SB_WIRE_OVERHEAD + (auth ? SB_WIRE_DATA_AUTH_LEN : 0);
}

/** Group address hellos are sent to: multicast, locally administered, flooded by bridges. */
#define SB_HELLO_MAC { 0x03, 0x53, 0x42, 0x00, 0x00, 0x01 }

/** Decoded shim. */
struct sb_shim {
	uint8_t type;		/**< enum sb_wire_type */
	uint8_t flags;
	uint8_t path;		/**< Sender's port index. */
	uint8_t path_seq;	/**< DATA: per-path sequence number, mod 256. */
	uint32_t seq;		/**< Host order. */
};

/** Hello flags. */
#define SB_HELLO_F_PROBE 0x01	/**< Padded to the full path MTU: an MTU probe. */
#define SB_HELLO_F_PARTIAL 0x02	/**< Lists only part of what the sender hears on this port
				 *   (more entries than fit): absence means nothing. */
#define SB_HELLO_F_UNICAST 0x04	/**< Sent to one peer port, numbered in that path's own
				 *   sequence of unicast hellos, not the port's. */
#define SB_HELLO_F_BRIEF 0x08	/**< Brief entries (struct sb_wire_hello_brief): who is
				 *   heard, no measurements. Group hellos at the idle pace. */
#define SB_HELLO_F_MASK 0x0f

/** Hello body, after the shim; all multi-byte fields in network order. 40 bytes. */
struct sb_wire_hello {
	uint32_t host_id;	/**< Sender's host id, non-zero. */
	uint32_t instance;	/**< Random per process start: a change means the peer restarted. */
	uint8_t agg_mac[SB_ETH_ALEN];	/**< Sender's aggregate (exception interface) MAC. */
	uint8_t port_index;	/**< Sender's port this hello left from. */
	uint8_t n_ports;	/**< Sender's number of ports. */
	uint32_t rate_kbps;	/**< That port's rate, kbit/s (0 = unknown). */
	uint16_t interval_ms;	/**< Sender's hello interval. */
	uint16_t mtu;		/**< That port's MTU, bytes. */
	uint8_t multiplier;	/**< Hello intervals without a hello before the receiver
				 *   declares the path down (RFC 5880's Detect Mult). */
	uint8_t flags;		/**< SB_HELLO_F_* */
	uint16_t probe_interval_ms;	/**< How often the sender sends full-size probes on
				 *   this port; 0 = never (MTU not checked). */
	uint32_t hello_seq;	/**< +1 per hello on this port (per path for UNICAST ones): the
				 *   receiver counts losses. */
	uint32_t tx_time_us;	/**< Sender's clock when sent, us mod 2^32 (one-way delay). */
	uint16_t n_entries;	/**< struct sb_wire_hello_entry that follow. */
	uint16_t reserved;	/**< Sent as 0. */
} __attribute__((packed));

#define SB_HELLO_LEN ((unsigned int)sizeof(struct sb_wire_hello))

/** Entry flags. */
#define SB_ENTRY_F_MTU_OK 0x01	/**< Full-size probes from the listed host arrive here. */
#define SB_ENTRY_F_TX 0x02	/**< The hello's sender puts DATA on this path (towards the
				 *   listed host's port): the receiver's loss rule waits for it. */
#define SB_ENTRY_F_KEY 0x04	/**< key_id holds the id of the cluster key of the last
				 *   authenticated hello the sender took from that host (a
				 *   rollover's progress, per peer). */
#define SB_ENTRY_F_MASK 0x07

/**
 * What the sender hears on the port the hello left from, one path: a hello from (host_id,
 * port) arrived there recently. 28 bytes, network order. Counters are cumulative since the
 * receiver first heard the path and wrap at 2^32.
 */
struct sb_wire_hello_entry {
	uint32_t host_id;	/**< The host heard. */
	uint8_t port;		/**< Its port index heard. */
	uint8_t flags;		/**< SB_ENTRY_F_* */
	uint8_t key_id;		/**< With SB_ENTRY_F_KEY: the key id last taken from it. */
	uint8_t reserved;	/**< Sent as 0. */
	uint32_t rx_frames;	/**< Frames received on the path (DATA and hellos). */
	uint32_t lost_frames;	/**< Frames missing by the path and hello sequence numbers. */
	uint32_t rate_kbps;	/**< Delivered rate over the last hello interval, kbit/s. */
	uint32_t owd_min_us;	/**< The path's smallest one-way delay above the smallest of
				 *   all paths from that host, us. */
	uint32_t owd_us;	/**< The path's latest one-way delay on the same scale, us. */
} __attribute__((packed));

#define SB_HELLO_ENTRY_LEN ((unsigned int)sizeof(struct sb_wire_hello_entry))

/**
 * The first 8 bytes of an entry alone: a hello flagged SB_HELLO_F_BRIEF carries these. A
 * group hello at the idle pace reaches every host on the switch 10 times a second, and its
 * measurements serve only paths that carry data (those get them in unicast hellos, probes or
 * fast-pace hellos): with 17 entries a hello is 198 bytes on the wire instead of 538
 * (docs/design.md, "Brief hellos").
 */
struct sb_wire_hello_brief {
	uint32_t host_id;	/**< The host heard. */
	uint8_t port;		/**< Its port index heard. */
	uint8_t flags;		/**< SB_ENTRY_F_* */
	uint8_t key_id;		/**< With SB_ENTRY_F_KEY: the key id last taken from it. */
	uint8_t reserved;	/**< Sent as 0. */
} __attribute__((packed));

#define SB_HELLO_BRIEF_LEN ((unsigned int)sizeof(struct sb_wire_hello_brief))

/** @return the length of one entry in a hello with flags @p hello_flags, bytes. */
static inline unsigned int
sb_wire_hello_entry_len(uint8_t hello_flags)
{
	return (hello_flags & SB_HELLO_F_BRIEF) ? SB_HELLO_BRIEF_LEN : SB_HELLO_ENTRY_LEN;
}

/**
 * Authentication trailer of a hello flagged SB_WIRE_F_AUTH, right after its entries (before
 * any probe padding). 44 bytes, network order. The tag covers the whole frame from its first
 * byte to its last (padding included), with the tag's own bytes taken as zeros (lib/auth,
 * sb_auth_hello_sign()).
 */
struct sb_wire_hello_auth {
	uint8_t key_id;		/**< Id of the cluster key the tag was made with. */
	uint8_t gen;		/**< The sender's key generation: +1 (mod 256) each time it
				 *   renews the keys frames to it are made with (it forgot a
				 *   peer); part of those keys (lib/auth, struct sb_auth_dir_ids). */
	uint8_t reserved[2];	/**< Sent as 0. */
	uint64_t seq;		/**< Crypto sequence: increasing per sending port (replay check). */
	uint8_t nonce[16];	/**< The sender's session nonce: its DATA keys both ways come
				 *   from it (lib/auth, struct sb_auth_dir_ids). */
	uint8_t tag[16];	/**< Keyed MAC (SB_AUTH_HELLO_TAG_LEN). */
} __attribute__((packed));

#define SB_HELLO_AUTH_LEN ((unsigned int)sizeof(struct sb_wire_hello_auth))
/** Offset of the nonce inside struct sb_wire_hello_auth. */
#define SB_HELLO_AUTH_NONCE_OFF 12
/** Offset of the tag inside struct sb_wire_hello_auth. */
#define SB_HELLO_AUTH_TAG_OFF 28

/** Decoded authentication trailer (sb_wire_hello_auth_get()). */
struct sb_hello_auth {
	uint8_t key_id;
	uint8_t gen;
	uint64_t seq;		/**< Host order. */
	const uint8_t *nonce;	/**< The session nonce, 16 bytes, in the frame. */
	size_t off;		/**< Offset of the trailer in the frame (from its first byte). */
};

/** Decoded hello, host order. The entries stay in the frame: sb_wire_hello_entry_get(). */
struct sb_hello {
	uint32_t host_id;
	uint32_t instance;
	uint8_t agg_mac[SB_ETH_ALEN];
	uint8_t port_index;
	uint8_t n_ports;
	uint32_t rate_kbps;
	uint16_t interval_ms;
	uint16_t mtu;
	uint8_t multiplier;
	uint8_t flags;
	uint16_t probe_interval_ms;
	uint32_t hello_seq;
	uint32_t tx_time_us;
	uint16_t n_entries;
	const uint8_t *entries;	/**< First entry in the frame (decode only). */
};

/** Decoded entry, host order. From a brief hello (SB_HELLO_F_BRIEF) only host_id, port and
 *  flags are carried; the measurements decode as 0 and mean nothing. */
struct sb_hello_entry {
	uint32_t host_id;
	uint8_t port;
	uint8_t flags;
	uint8_t key_id;		/**< Meaningful with SB_ENTRY_F_KEY. */
	uint32_t rx_frames;
	uint32_t lost_frames;
	uint32_t rate_kbps;
	uint32_t owd_min_us;
	uint32_t owd_us;
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
 * @param inner_off  On success for DATA: offset of the inner payload: for elided frames, of
 *   the inner EtherType; otherwise of the inner Ethernet header. Past the authentication
 *   header when the frame is flagged SB_WIRE_F_AUTH (sb_wire_data_auth_get() decodes it).
 * @return SB_WIRE_OK or the reason the frame is not a valid seqbond frame: SB_WIRE_E_VERSION
 *   for any version but SB_WIRE_VERSION (a host of version 2 included), SB_WIRE_E_FLAGS for
 *   flags the type does not define (a hello may carry SB_WIRE_F_AUTH only).
 */
enum sb_wire_err sb_wire_parse(const uint8_t *buf, size_t len, struct sb_shim *shim,
	size_t *inner_off);

/**
 * Decode the authentication header of a DATA frame flagged SB_WIRE_F_AUTH (sb_wire_parse()
 * checked that it is there).
 * @param buf  The frame's first byte; its first SB_WIRE_DATA_AUTH_INNER bytes are read.
 * @param frame_len  The frame's whole length as received (every segment; padding included).
 * @param shim  The frame's shim (its ELIDED flag sets the shortest inner frame).
 * @param a    Filled on success.
 * @return SB_WIRE_OK, or SB_WIRE_E_TRUNCATED (the length it carries is beyond the frame, or
 *   leaves no room for the inner frame).
 */
enum sb_wire_err sb_wire_data_auth_get(const uint8_t *buf, size_t frame_len,
	const struct sb_shim *shim, struct sb_data_auth *a);

/**
 * Write a DATA frame's authentication header at offset SB_HDR_LEN of @p buf, its tag zero
 * (lib/auth fills it in: sb_auth_data_mac()).
 * @param len     The frame's length, tag and inner frame included (<= 65535).
 * @param key_id  The cluster key of the direction key.
 * @param gen     The receiver's key generation of the direction key.
 * @param pn_hi   Bits 63..32 of the frame's packet number.
 */
void sb_wire_put_data_auth(uint8_t *buf, uint16_t len, uint8_t key_id, uint8_t gen,
	uint32_t pn_hi);

/**
 * Decode and validate a hello body (fixed part; the entries, brief or full by its flags, are
 * checked to fit in @p len).
 * @param body  Bytes after the shim; @param len their number.
 * @return SB_WIRE_OK, SB_WIRE_E_TRUNCATED (shorter than the fixed part plus its entries) or
 *   SB_WIRE_E_HELLO (absurd fields: zero host id, interval or multiplier, port >= n_ports,
 *   group aggregate MAC, MTU below 68, unknown flags).
 */
enum sb_wire_err sb_wire_hello_decode(const uint8_t *body, size_t len, struct sb_hello *h);

/**
 * Decode entry @p i of a hello decoded by sb_wire_hello_decode() (i < h->n_entries).
 * @return SB_WIRE_OK, or SB_WIRE_E_HELLO for an entry with unknown flags or host id 0.
 */
enum sb_wire_err sb_wire_hello_entry_get(const struct sb_hello *h, unsigned int i,
	struct sb_hello_entry *e);

/**
 * Offset of a hello's authentication trailer in its frame: right after its entries (full or
 * brief by h->flags).
 * @param h  Decoded by sb_wire_hello_decode() from the bytes after the frame's shim.
 * @return bytes from the frame's first byte.
 */
static inline size_t
sb_wire_hello_auth_off(const struct sb_hello *h)
{
	return SB_HDR_LEN + SB_HELLO_LEN + (size_t)h->n_entries * sb_wire_hello_entry_len(h->flags);
}

/**
 * Decode the authentication trailer of a hello whose shim has SB_WIRE_F_AUTH.
 * @param frame  The frame's first byte; @param len its length in bytes.
 * @param h  The hello, decoded from the same frame by sb_wire_hello_decode().
 * @param a  Filled on success.
 * @return SB_WIRE_OK, SB_WIRE_E_TRUNCATED (the trailer does not fit after the entries) or
 *   SB_WIRE_E_HELLO (reserved bytes not 0, or crypto sequence 0: no sender makes those).
 */
enum sb_wire_err sb_wire_hello_auth_get(const uint8_t *frame, size_t len,
	const struct sb_hello *h, struct sb_hello_auth *a);

/**
 * Make a hello written by sb_wire_put_hello() an authenticated one: set SB_WIRE_F_AUTH in its
 * shim and write the trailer (key id, crypto sequence, a zero tag) after its entries. A probe
 * keeps its length (the trailer takes the first bytes of its padding); a hello without
 * padding grows by SB_HELLO_AUTH_LEN. The tag is lib/auth's to fill (sb_auth_hello_sign()).
 *
 * @param frame      The hello frame; @param buf_len room at @p frame, bytes.
 * @param frame_len  Its length now, bytes (what sb_wire_put_hello() returned).
 * @param key_id, seq  The send key's id and the port's next crypto sequence.
 * @param gen        The sender's key generation.
 * @param nonce      The sender's session nonce, 16 bytes.
 * @param trailer_off  Set to the offset of the trailer (the tag is SB_HELLO_AUTH_TAG_OFF
 *   further); may be NULL.
 * @return the new frame length, or 0 when the trailer does not fit in @p buf_len (nothing
 *   changed), or the frame is not a hello this library wrote.
 */
size_t sb_wire_hello_auth_put(uint8_t *frame, size_t buf_len, size_t frame_len, uint8_t key_id,
	uint8_t gen, uint64_t seq, const uint8_t *nonce, size_t *trailer_off);

/**
 * Write the outer Ethernet header and shim at @p buf (SB_HDR_LEN bytes).
 * @param dst, src  Outer MAC addresses (6 bytes each).
 */
void sb_wire_put_hdr(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
	const struct sb_shim *shim);

/** @return how many (full) entries fit in a hello of at most @p frame_len bytes on the
 *  wire; an authenticated one: pass @p frame_len less SB_HELLO_AUTH_LEN. */
unsigned int sb_wire_hello_max_entries(unsigned int frame_len);

/**
 * Write a complete hello frame at @p buf: outer header (destination @p dst, usually the
 * hello group address), shim, body with h->n_entries entries from @p entries (brief ones,
 * their measurements left out, when h->flags has SB_HELLO_F_BRIEF), and, when
 * @p pad_to is larger, zero padding up to @p pad_to bytes (a full-size probe; the caller
 * sets SB_HELLO_F_PROBE in h->flags).
 *
 * @param buf_len  Room at @p buf; must hold the frame.
 * @param path     Shim path id (the sending port's index).
 * @return frame length in bytes, or 0 when it does not fit in @p buf_len.
 */
size_t sb_wire_put_hello(uint8_t *buf, size_t buf_len, const uint8_t *dst, const uint8_t *src,
	uint8_t path, const struct sb_hello *h, const struct sb_hello_entry *entries,
	size_t pad_to);

#endif /* SB_WIRE_H */
