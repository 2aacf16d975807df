/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_AUTH_H
#define SB_AUTH_H

/**
 * @file
 * Cluster authentication: the cryptographic building blocks that let a host tell its
 * cluster's frames from a neighbour's forgeries. Every primitive comes from libsodium; this
 * file only says which one is used, over which bytes, with which key.
 *
 * Threat: a host on the same switch that is not in the cluster (it does not hold the cluster
 * key). It hears every group hello and may send anything. Without authentication it could
 * take paths down (a hello from a peer's host id that does not list us), attract data (a
 * hello announcing a peer's host id from its own MAC) or stall a reorder window (DATA frames
 * with sequence numbers far ahead). With it:
 *
 *  - An authenticated hello carries a key id, a 64-bit crypto sequence and a 16-byte tag
 *    over the whole frame (sb_auth_hello_mac()), as BFD's keyed authentication (RFC 5880
 *    s.6.7) and OSPFv2's HMAC-SHA authentication (RFC 5709) do; a receiver takes only a
 *    hello whose tag verifies and whose sequence is above the last one it took from that
 *    stream (struct sb_auth_replay). A recorded hello cannot be played back later (except
 *    into a receiver that restarted since: sb_auth_replay_check()).
 *  - DATA frames carry a short tag (SB_AUTH_DATA_TAG_LEN bytes) over the outer MAC addresses
 *    and the shim, keyed by a key of the (sender, receiver) pair and of both ends' instances
 *    (sb_auth_pair_derive()). A forgery is refused except with probability
 *    2^-(8 * SB_AUTH_DATA_TAG_LEN) per frame (times the keys tried, during a rollover), and
 *    tags from before either end restarted never verify after it. The tag covers the
 *    headers, not the payload: it keeps forged sequence numbers out of the reorder window.
 *    A host that sees the pair's unicast frames can still replay or alter their payloads
 *    (the sequence number repeats every 2^32 frames); protecting payloads is the job of the
 *    traffic's own protocols.
 *
 * Algorithms (libsodium 1.0.18 documentation, "Generic hashing", "Short-input hashing",
 * "Helpers"):
 *  - Hello tag: keyed BLAKE2b (crypto_generichash_blake2b_salt_personal; RFC 7693) with a
 *    16-byte output and the personalisation SB_AUTH_HELLO_PERSONAL. Chosen over
 *    HMAC-SHA-512-256 truncated to 16 bytes: BLAKE2b is a MAC when keyed (one pass over the
 *    message, where HMAC hashes twice and spends two more compressions on the padded key,
 *    a fixed cost that dominates for hellos of a few hundred bytes), its output length is a
 *    parameter rather than a truncation, and the personalisation keeps the hello tag and
 *    the pair-key derivation apart although both use the cluster key.
 *  - Pair key: keyed BLAKE2b again, personalisation SB_AUTH_PAIR_PERSONAL, 16-byte output,
 *    over the two host ids and instances: the derivation libsodium's documentation gives for
 *    subkeys from more context than crypto_kdf's 64-bit subkey id holds.
 *  - DATA tag: SipHash-2-4 (crypto_shorthash; Aumasson and Bernstein, "SipHash: a fast
 *    short-input PRF", 2012), its 8-byte output truncated to SB_AUTH_DATA_TAG_LEN: a PRF
 *    built for inputs as short as the 20 bytes of a DATA frame.
 *  - Tags are compared in constant time (sodium_memcmp), so timing tells an attacker
 *    nothing about how much of a forged tag was right.
 *
 * Key rollover (the keyring holds SB_AUTH_RING_MAX keys: the send key and one more):
 *  1. On every host, add the new key, with an id not in use, as the second key
 *     (sb_auth_ring_add()). Hosts still send with the old one and accept both.
 *  2. Once every host holds it, make it the send key on every host, in any order
 *     (sb_auth_ring_set_send()): every receiver already accepts it.
 *  3. Once every host sends with it, remove the old key everywhere (sb_auth_ring_remove()).
 * Hellos name the key they were made with (key id), so a receiver tries only that key. DATA
 * frames carry no key id: a receiver keeps one pair key per ring key and tries each
 * (sb_auth_data_verify()). After every change of the ring the owner derives the pair keys
 * again (sb_auth_pair_derive_ring()).
 *
 * Nothing here allocates, logs or calls DPDK; the clock is a parameter except in
 * sb_auth_clock_us(). The structs are plain data owned by one thread: a control thread
 * changes the keyring of a running lcore by command, never in place. Secrets are wiped with
 * sb_auth_wipe() when dropped. Call sb_auth_init() once before anything else.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb_wire.h"

#define SB_AUTH_KEY_LEN 32		/**< Cluster key secret, bytes. */
#define SB_AUTH_KEY_HEX_LEN (2 * SB_AUTH_KEY_LEN)	/**< The same, as hex characters. */
#define SB_AUTH_RING_MAX 2		/**< Keys in a keyring: the send key and one more. */
#define SB_AUTH_HELLO_TAG_LEN 16	/**< Hello tag, bytes. */
#define SB_AUTH_PAIR_KEY_LEN 16		/**< Pair key (a SipHash key), bytes. */
/** DATA tag, bytes: the first bytes of SipHash-2-4's 8-byte output (1 to 8). */
#define SB_AUTH_DATA_TAG_LEN 4
/** Bytes a DATA tag covers: outer destination and source MACs, then the shim. */
#define SB_AUTH_DATA_MSG_LEN (2 * SB_ETH_ALEN + SB_SHIM_LEN)

/** BLAKE2b personalisations, zero padded to 16 bytes: one per use of the cluster key. */
#define SB_AUTH_HELLO_PERSONAL "seqbond hello 1"
#define SB_AUTH_PAIR_PERSONAL "seqbond pair 1"
#define SB_AUTH_FP_PERSONAL "seqbond keyid 1"

/** Key fingerprint, bytes (sb_auth_key_fingerprint()). */
#define SB_AUTH_FP_LEN 8

/** A cluster key: shared by every host of the cluster. */
struct sb_auth_key {
	uint8_t id;			/**< Carried in hellos; tells keys apart in a rollover. */
	uint8_t secret[SB_AUTH_KEY_LEN];
};

/**
 * The keys a host holds: key[send] makes everything it sends; every key is accepted.
 * Ids are unique within a ring. Plain data: copy it, zero-initialise it or use
 * sb_auth_ring_init().
 */
struct sb_auth_keyring {
	struct sb_auth_key key[SB_AUTH_RING_MAX];
	uint8_t n_keys;			/**< Keys held, key[0..n_keys-1]. */
	uint8_t send;			/**< Index of the send key (when n_keys > 0). */
};

/** Who a pair key is for: the direction and both ends' current instances (host order). */
struct sb_auth_pair_ids {
	uint32_t tx_host;		/**< Sender's host id, non-zero. */
	uint32_t rx_host;		/**< Receiver's host id, non-zero, not tx_host. */
	uint32_t tx_instance;		/**< Sender's instance (from its hellos). */
	uint32_t rx_instance;		/**< Receiver's instance. */
};

/** Key of DATA tags in one direction between two host instances. */
struct sb_auth_pair_key {
	uint8_t key_id;			/**< Id of the cluster key it comes from. */
	uint8_t key[SB_AUTH_PAIR_KEY_LEN];
};

/**
 * Sender side of the hello crypto sequence, one per sending port (its group and unicast
 * hellos share it). Zero-initialise.
 */
struct sb_auth_seq {
	uint64_t last;			/**< Last sequence handed out; 0: none yet. */
};

/**
 * Receiver side of the replay check for one stream of hellos: one sender port (host id,
 * port index) as heard on one of our ports, its group hellos and its SB_HELLO_F_UNICAST
 * ones apart (as their hello sequences are: a switch may not keep the two in order).
 * Zero-initialise, or sb_auth_replay_init().
 *
 * One per path rather than per sender port: a host with two ports on one switch (the
 * gateway of docs/design.md has two ports on each of two switches) hears every group hello
 * of a peer port twice, and with one mark per sender port the copy that arrives second
 * would be taken for a replay. A hello played back on another of our ports, on a switch its
 * sender is not on, makes a path heard at most: its entries list what the sender hears,
 * which is not that port of ours, so the path never comes UP (three-way liveness).
 *
 * Keyed by host id, not instance: keep it when the peer restarts (a new instance). A
 * restarted sender's sequence continues above its old one (sb_auth_seq_next()), so it is
 * taken at once; clearing the mark on a new instance would let a recorded hello of the
 * old instance in, and with it a restart back to that instance.
 */
struct sb_auth_replay {
	uint64_t last_seq;		/**< Highest sequence accepted; 0: none yet. */
	uint64_t accepted;		/**< Hellos accepted, cumulative. */
	uint64_t rejected;		/**< Hellos refused as not newer, cumulative. */
	uint32_t rejected_run;		/**< Refused since the last accepted one. */
};

/**
 * Initialise libsodium (picks the fastest implementations for this CPU). Call once at
 * start-up, before any other function here; further calls do nothing. Thread-safe.
 * @return 0, or -EIO when libsodium cannot start (no usable random source).
 */
int sb_auth_init(void);

/** Zero @p len bytes at @p p in a way the compiler does not remove (sodium_memzero):
 *  for keys, keyrings and pair keys being dropped. */
void sb_auth_wipe(void *p, size_t len);

/**
 * Parse a cluster key given as SB_AUTH_KEY_HEX_LEN hex characters (upper or lower case, no
 * prefix, no separators; the config loader trims white space around it).
 *
 * @param hex      NUL-terminated text; not kept.
 * @param id       Key id to give the key.
 * @param key      Filled on success; untouched on failure.
 * @param err      On failure, a one-line message naming what is wrong (a character that is
 *   not hex, by position counting from 1; the length; an all-zero key), without any of the
 *   key's characters; may be NULL.
 * @param err_len  Room at @p err, bytes.
 * @return 0, or -EINVAL (message in @p err).
 */
int sb_auth_key_parse(const char *hex, uint8_t id, struct sb_auth_key *key, char *err,
	size_t err_len);

/**
 * Fingerprint of a cluster key: the first SB_AUTH_FP_LEN bytes of the 16-byte keyed BLAKE2b
 * of the empty message, personalisation SB_AUTH_FP_PERSONAL. The same on every host that holds the key, and
 * a PRF output, so it tells nothing about the secret: operators compare fingerprints to
 * check that hosts hold the same key, and its first byte serves as the key's id, so a key
 * file needs no ids of its own (two keys whose first bytes agree cannot share a ring: a
 * rollover then needs another new key, a 1 in 256 chance).
 * @param secret  SB_AUTH_KEY_LEN bytes.
 * @param fp  SB_AUTH_FP_LEN bytes, written.
 */
void sb_auth_key_fingerprint(const uint8_t *secret, uint8_t *fp);

/** Empty ring. */
void sb_auth_ring_init(struct sb_auth_keyring *r);

/**
 * Add a copy of @p key to the ring; the first key added becomes the send key.
 * @return 0, -ENOSPC (SB_AUTH_RING_MAX keys held: remove one first) or -EEXIST (a key with
 *   that id is held: a new key needs a new id).
 */
int sb_auth_ring_add(struct sb_auth_keyring *r, const struct sb_auth_key *key);

/**
 * Send with key @p id from now on (step 2 of a rollover).
 * @return 0 or -ENOENT (no such key).
 */
int sb_auth_ring_set_send(struct sb_auth_keyring *r, uint8_t id);

/**
 * Remove key @p id and wipe its slot (step 3 of a rollover).
 * @return 0, -ENOENT (no such key) or -EBUSY (it is the send key: switch first).
 */
int sb_auth_ring_remove(struct sb_auth_keyring *r, uint8_t id);

/** @return the send key, or NULL when the ring is empty. Points into @p r. */
const struct sb_auth_key *sb_auth_ring_send_key(const struct sb_auth_keyring *r);

/**
 * Current CLOCK_REALTIME in microseconds since the epoch: the clock the hello crypto
 * sequence is read from (it survives restarts, unlike a counter or a monotonic clock).
 * @return microseconds; 0 if the clock cannot be read.
 */
uint64_t sb_auth_clock_us(void);

/**
 * Crypto sequence for the next hello from one port: @p now_us, or one more than the last
 * one when the clock has not moved past it (several hellos in one microsecond, or the clock
 * stepped back while we run). Strictly increasing for the life of @p s, and across a
 * restart as long as the clock is ahead of where it was; never 0.
 * @param now_us  sb_auth_clock_us().
 */
uint64_t sb_auth_seq_next(struct sb_auth_seq *s, uint64_t now_us);

/**
 * Tag of a hello (RFC 5880 s.6.7, RFC 5709: a keyed MAC over the whole message, sequence
 * and key id included). Contract, the same at both ends: @p msg is the frame from its first
 * byte (outer destination MAC) to the byte before the tag, which follows it; or the whole
 * frame with the tag's bytes zeroed. Either way the bytes must hold the key id and the
 * crypto sequence (so both are authenticated), the outer source MAC (peers learn port MACs
 * from hellos) and a probe's padding (a probe proves the path MTU by its length).
 *
 * @param key  The send key (sb_auth_ring_send_key()), whose id the hello carries.
 * @param msg  The bytes covered; @param len their number.
 * @param tag  SB_AUTH_HELLO_TAG_LEN bytes, written.
 * @return 0, or -EINVAL (NULL key).
 */
int sb_auth_hello_mac(const struct sb_auth_key *key, const uint8_t *msg, size_t len,
	uint8_t *tag);

/**
 * Check the tag of a received hello against every key of the ring whose id is @p key_id
 * (ids are unique in a ring, so one at most). Check it before the replay check: a hello
 * that fails here must not move the replay mark.
 *
 * @param key_id  The key id the hello carries.
 * @param msg, len  The bytes covered, as for sb_auth_hello_mac().
 * @param tag  The hello's SB_AUTH_HELLO_TAG_LEN-byte tag.
 * @return 0 (authentic), -ENOKEY (no key with that id: the sender uses a key we do not
 *   hold, or is not of the cluster) or -EBADMSG (wrong tag: forged, altered or made with
 *   another secret under the same id).
 */
int sb_auth_hello_verify(const struct sb_auth_keyring *r, uint8_t key_id, const uint8_t *msg,
	size_t len, const uint8_t *tag);

/**
 * Tag an authenticated hello in place: the keyed MAC of sb_auth_hello_mac() over the whole
 * frame, from its first byte to its last (probe padding included), with the tag's own
 * SB_AUTH_HELLO_TAG_LEN bytes taken as zeros, written into those bytes. The trailer (key id,
 * crypto sequence) must already be in place (sb_wire_hello_auth_put()), so both are
 * covered.
 * @param key  The send key; its id is the one in the trailer.
 * @param frame, len  The whole hello frame.
 * @param tag_off  Offset of the tag in @p frame (trailer offset + SB_HELLO_AUTH_TAG_OFF);
 *   tag_off + SB_AUTH_HELLO_TAG_LEN <= @p len.
 * @return 0, or -EINVAL (NULL key, tag outside the frame).
 */
int sb_auth_hello_sign(const struct sb_auth_key *key, uint8_t *frame, size_t len,
	size_t tag_off);

/**
 * Check the tag of a received authenticated hello (made by sb_auth_hello_sign()) with the
 * ring's key of id @p key_id. The frame is not changed. Check before the replay check: a
 * hello that fails here must not move a replay mark.
 * @return 0 (authentic), -ENOKEY (no key of that id held), -EBADMSG (wrong tag) or -EINVAL
 *   (tag outside the frame).
 */
int sb_auth_hello_check(const struct sb_auth_keyring *r, uint8_t key_id, const uint8_t *frame,
	size_t len, size_t tag_off);

/** Forget a stream: the next hello is taken whatever its sequence. For an operator's "trust
 *  this host's clock again" after its clock stepped far back; counters restart too. */
void sb_auth_replay_init(struct sb_auth_replay *r);

/**
 * Replay check of an authentic hello (after sb_auth_hello_verify()): take it only if its
 * crypto sequence is above the highest taken so far on this stream: bfd.RcvAuthSeq of
 * BFD's meticulous keyed authentication (RFC 5880 s.6.7.3, s.6.7.4) without its upper
 * bound (3 x Detect Mult above the last), as the sequence here is a clock, which jumps.
 *
 * Across a sender restart: its sequence is the time, so the new instance's hellos are above
 * the old one's and are taken at once. A sender whose clock went back (a step of its time
 * source, a wrong clock at boot) and restarted is refused until its sequence passes the last
 * one taken, however long that is; rejected_run grows meanwhile and last_seq - @p seq says
 * how far behind it is: worth a rate-limited log line and a counter. (A sender whose clock
 * steps back while it runs is not refused: sb_auth_seq_next() runs ahead of the clock.) The
 * remedy for a long step is sb_auth_replay_init() on the receiver. A receiver that restarts
 * knows no sequence, so a hello recorded earlier is taken once if it arrives before the
 * sender's next one; the next one, newer, takes over.
 *
 * @param seq  The hello's crypto sequence.
 * @return 0 (taken; last_seq = @p seq), -ESTALE (equal to or below last_seq: a replay or a
 *   sender behind its old clock; counted) or -EINVAL (@p seq 0, never sent).
 */
int sb_auth_replay_check(struct sb_auth_replay *r, uint64_t seq);

/** Streams a replay table holds (a power of two): every path of 64 peers of 32 paths, group
 *  and unicast hellos apart. */
#define SB_AUTH_REPLAY_SLOTS 4096
/** Slots a stream may sit in from its hash on (linear probing). */
#define SB_AUTH_REPLAY_PROBE 8

/** One stream of hellos (struct sb_auth_replay): a sender port heard on one of our ports. */
struct sb_auth_stream {
	uint32_t host_id;	/**< The sender's host id (0: slot free). */
	uint8_t port;		/**< The sender's port index. */
	uint8_t local_port;	/**< Our port it is heard on. */
	uint8_t unicast;	/**< Its SB_HELLO_F_UNICAST hellos (1) or the others (0). */
	uint8_t reserved;
};

/**
 * The replay marks of every stream heard, kept apart from the peer table: a peer that leaves
 * the table (or restarts) keeps its marks, so hellos recorded before cannot bring it back
 * later. Only authentic hellos make a stream, so a forger cannot fill it; when the slots of
 * a stream's probe window are all taken, the stream used least recently gives its slot up.
 * Plain data (about 200 KiB): zero-initialise it.
 */
struct sb_auth_replay_table {
	struct sb_auth_replay_slot {
		struct sb_auth_stream s;
		struct sb_auth_replay r;
		uint64_t used;		/**< Table clock at its last check (LRU). */
	} slot[SB_AUTH_REPLAY_SLOTS];
	uint64_t clock;			/**< Checks made, the LRU clock. */
	uint64_t replaced;		/**< Streams that gave their slot up to another. */
};

/**
 * The replay check (sb_auth_replay_check()) of an authentic hello on its stream, whose
 * slot is found or made.
 * @param s    The stream (host id non-zero).
 * @param seq  The hello's crypto sequence.
 * @param out  Set to the stream's mark (for a log line: rejected_run, last_seq); may be NULL.
 * @return as sb_auth_replay_check(): 0, -ESTALE or -EINVAL (also for host id 0).
 */
int sb_auth_replay_table_check(struct sb_auth_replay_table *t, const struct sb_auth_stream *s,
	uint64_t seq, const struct sb_auth_replay **out);

/**
 * Derive the DATA key for one direction between two host instances from a cluster key
 * (keyed BLAKE2b, personalisation SB_AUTH_PAIR_PERSONAL, over tx host, rx host, tx instance,
 * rx instance, 4 bytes each in network order). Each direction has its own key, and a new
 * instance at either end (a restart) a new one, so no tag from before a restart verifies
 * after it (except with the 2^-32 chance that a restart draws the same instance).
 *
 * @param ck   Cluster key; @p out->key_id becomes its id.
 * @return 0, or -EINVAL (NULL argument, a host id 0, or the same host at both ends).
 */
int sb_auth_pair_derive(const struct sb_auth_key *ck, const struct sb_auth_pair_ids *ids,
	struct sb_auth_pair_key *out);

/**
 * Derive the pair key of @p ids from every key of a ring, the send key's first: out[0] tags
 * what we send (when we are ids->tx_host), out[0..n-1] are what sb_auth_data_verify() tries
 * for what we receive (when we are ids->rx_host).
 * @param out  Room for SB_AUTH_RING_MAX keys.
 * @return the number derived (0 for an empty ring), or -EINVAL as sb_auth_pair_derive().
 */
int sb_auth_pair_derive_ring(const struct sb_auth_keyring *r, const struct sb_auth_pair_ids *ids,
	struct sb_auth_pair_key *out);

/**
 * Tag of a DATA frame: SipHash-2-4 keyed by the pair key over the outer destination and
 * source MACs and the shim (SB_AUTH_DATA_MSG_LEN bytes), truncated to SB_AUTH_DATA_TAG_LEN.
 * The EtherType is not covered (the parser refuses any other); the tag must be placed
 * outside the bytes covered.
 *
 * @param k      Pair key of this direction (ours -> the receiver's).
 * @param frame  The frame's first byte (outer Ethernet header); SB_HDR_LEN bytes are read:
 *   0-11 and 14-21.
 * @param tag    SB_AUTH_DATA_TAG_LEN bytes, written.
 */
void sb_auth_data_tag(const struct sb_auth_pair_key *k, const uint8_t *frame, uint8_t *tag);

/**
 * Check the tag of a received DATA frame against each pair key in turn (constant-time
 * compare per key). A key that fails costs a whole hash: put first the pair key of the
 * cluster key the sender's latest hello names, so that a frame costs one hash during a
 * rollover too.
 * @param keys    Pair keys of the sender -> us direction (sb_auth_pair_derive_ring()).
 * @param n_keys  Their number.
 * @param frame   As for sb_auth_data_tag().
 * @param tag     The frame's SB_AUTH_DATA_TAG_LEN-byte tag.
 * @return the index of the key that verifies (>= 0), or -EBADMSG (none does).
 */
int sb_auth_data_verify(const struct sb_auth_pair_key *keys, unsigned int n_keys,
	const uint8_t *frame, const uint8_t *tag);

#endif /* SB_AUTH_H */
