/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_AUTH_H
#define SB_AUTH_H

/**
 * @file
 * Cluster authentication: the cryptographic building blocks that let a host tell its
 * cluster's frames from a neighbour's forgeries. Every primitive comes from libsodium or
 * OpenSSL's libcrypto; this file only says which one is used, over which bytes, with which
 * key.
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
 *  - DATA frames carry a 16-byte tag over the whole frame: the outer MAC addresses, the shim,
 *    the rest of the header (its exact length, key id and the high half of its 64-bit packet
 *    number) and the inner frame (sb_auth_data_mac()). Its key is the direction's
 *    (sb_auth_dir_derive()): of the cluster key and of both ends' 128-bit session nonces,
 *    fresh at each start, so no tag made before either end restarted verifies after it. Its
 *    nonce is the packet number, which never repeats under a key, and a receiver takes each
 *    number once (struct sb_auth_pn_window), across the 32-bit sequence's wrap included.
 *
 * Algorithms (libsodium 1.0.18 documentation, "Generic hashing", "Helpers"; OpenSSL 3.0's
 * EVP_EncryptInit(3), "AEAD Interface"):
 *  - Hello tag: keyed BLAKE2b (crypto_generichash_blake2b_salt_personal; RFC 7693) with a
 *    16-byte output and the personalisation SB_AUTH_HELLO_PERSONAL. Chosen over
 *    HMAC-SHA-512-256 truncated to 16 bytes: BLAKE2b is a MAC when keyed (one pass over the
 *    message, where HMAC hashes twice and spends two more compressions on the padded key,
 *    a fixed cost that dominates for hellos of a few hundred bytes), its output length is a
 *    parameter rather than a truncation, and the personalisation keeps the hello tag and
 *    the direction-key derivation apart although both use the cluster key.
 *  - Direction key: keyed BLAKE2b again, personalisation SB_AUTH_DIR_PERSONAL, 32-byte
 *    output, over the two host ids and session nonces: the derivation libsodium's
 *    documentation gives for subkeys from more context than crypto_kdf's 64-bit subkey id
 *    holds.
 *  - DATA tag: AES-256-GCM from OpenSSL's libcrypto (EVP), the frame as additional data and
 *    no plaintext (GMAC: NIST SP 800-38D), as MACsec's integrity-only mode does with
 *    GCM-AES-XPN-256 (IEEE 802.1AEbw): a 96-bit IV of the 64-bit packet number and 32 zero
 *    bits. One algorithm for the whole cluster, fixed by the wire version: chosen over
 *    ChaCha20-Poly1305 and keyed BLAKE2b by bench_auth's figures (docs/benchmarks.md).
 *  - Tags are compared in constant time (sodium_memcmp), so timing tells an attacker
 *    nothing about how much of a forged tag was right.
 *
 * Key rollover (the keyring holds SB_AUTH_RING_MAX keys: the send key and one more):
 *  1. On every host, add the new key, with an id not in use, as the second key
 *     (sb_auth_ring_add()). Hosts still send with the old one and accept both.
 *  2. Once every host holds it, make it the send key on every host, in any order
 *     (sb_auth_ring_set_send()): every receiver already accepts it.
 *  3. Once every host sends with it, remove the old key everywhere (sb_auth_ring_remove()).
 * Hellos and DATA frames name the key they were made with (key id), so a receiver tries only
 * that key. After every change of the ring the owner derives the direction keys again.
 *
 * Nothing here logs or calls DPDK, and only sb_auth_data_key_init() allocates (OpenSSL's
 * cipher context); the clock is a parameter except in sb_auth_clock_us(). The structs are plain data owned by one thread: a control thread
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
#define SB_AUTH_DIR_KEY_LEN 32		/**< Direction key (an AES-256 key), bytes. */
#define SB_AUTH_DATA_TAG_LEN 16		/**< DATA tag (GCM's full tag), bytes. */
#define SB_AUTH_NONCE_LEN 16		/**< Session nonce, bytes (struct sb_auth_dir_ids). */

/** BLAKE2b personalisations, zero padded to 16 bytes: one per use of the cluster key. */
#define SB_AUTH_HELLO_PERSONAL "seqbond hello 1"
#define SB_AUTH_DIR_PERSONAL "seqbond data 4"
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

/**
 * Who a direction key is for: the sender and the receiver, each by host id and by the
 * session nonce it announces in its authenticated hellos (random, drawn at start: a restart
 * gives a new one, and so new keys both ways), and the receiver's key generation (it moves
 * on when the receiver forgets a peer: every key into it changes, so no frame recorded
 * before verifies, while its peers' packet numbers go on).
 */
struct sb_auth_dir_ids {
	uint32_t tx_host;		/**< Sender's host id, non-zero. */
	uint32_t rx_host;		/**< Receiver's host id, non-zero, not tx_host. */
	uint8_t tx_nonce[SB_AUTH_NONCE_LEN];	/**< Sender's session nonce. */
	uint8_t rx_nonce[SB_AUTH_NONCE_LEN];	/**< Receiver's session nonce. */
	uint8_t rx_gen;			/**< Receiver's key generation. */
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

/**
 * Memory for a secret before the application's own secret memory exists (a key file read
 * at start): libsodium's sodium_malloc(), locked, out of core dumps, between guard pages.
 * @return the memory (not zeroed), or NULL.
 */
void *sb_auth_secret_alloc(size_t len);

/** Wipe and free memory of sb_auth_secret_alloc() (sodium_free()); NULL: nothing. */
void sb_auth_secret_free(void *p);

/** Zero @p len bytes at @p p in a way the compiler does not remove (sodium_memzero):
 *  for keys and keyrings being dropped. */
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

/** Draw a session nonce (SB_AUTH_NONCE_LEN random bytes, randombytes_buf()). */
void sb_auth_nonce_new(uint8_t *nonce);

/**
 * Derive the key of one direction from a cluster key: keyed BLAKE2b (personalisation
 * SB_AUTH_DIR_PERSONAL, SB_AUTH_DIR_KEY_LEN bytes out) over tx host, rx host (4 bytes each,
 * network order), tx nonce, rx nonce and rx generation (1 byte).
 * @param ck   Cluster key.
 * @param key  SB_AUTH_DIR_KEY_LEN bytes, written; the caller wipes it when done.
 * @return 0, or -EINVAL (NULL argument, a host id 0, or the same host at both ends).
 */
int sb_auth_dir_derive(const struct sb_auth_key *ck, const struct sb_auth_dir_ids *ids,
	uint8_t *key);

/**
 * The tag state of one direction under one cluster key: OpenSSL's AES-256-GCM context with
 * the direction key loaded (its key schedule and GHASH table are the secret now). Owned by
 * one thread. Zero-initialise, then sb_auth_data_key_init().
 */
struct sb_auth_data_key {
	void *ctx;			/**< EVP_CIPHER_CTX (opaque here). */
	uint8_t key_id;			/**< Id of the cluster key it is derived from. */
	bool set;			/**< A direction key is loaded: tags are made or
					 *   checked only then. */
};

/**
 * Allocate @p k's cipher context (with no key: not set). OpenSSL allocates it through its
 * memory functions, which the application may point at locked memory.
 * @return 0, -ENOMEM, or -EIO (OpenSSL has no AES-256-GCM).
 */
int sb_auth_data_key_init(struct sb_auth_data_key *k);

/** Free @p k's context (OpenSSL wipes its key schedule on free). NULL ctx: nothing. */
void sb_auth_data_key_free(struct sb_auth_data_key *k);

/**
 * Load the key of direction @p ids under cluster key @p ck (sb_auth_dir_derive()).
 * @return 0; -EINVAL (as sb_auth_dir_derive(), or no context) or -EIO (OpenSSL refused).
 *   On failure @p k is not set.
 */
int sb_auth_data_key_set(struct sb_auth_data_key *k, const struct sb_auth_key *ck,
	const struct sb_auth_dir_ids *ids);

/** Forget @p k's key: it is no longer set, and a random key replaces it in the context. */
void sb_auth_data_key_clear(struct sb_auth_data_key *k);

/** A stretch of bytes a DATA tag covers (a frame's header, then each mbuf segment). */
struct sb_auth_seg {
	const uint8_t *p;
	size_t len;
};

/**
 * Tag of a DATA frame: AES-256-GCM under @p k with IV (@p pn in network order, 4 zero
 * bytes), the segments as additional data in order, no plaintext (GMAC). The caller passes
 * what docs/wire-format.md says the tag covers: the frame's first 30 bytes (MACs, EtherType,
 * shim, length, key id, packet number), then every byte after the tag up to the length.
 * @param pn   The frame's 64-bit packet number: never twice under one key.
 * @param tag  SB_AUTH_DATA_TAG_LEN bytes, written.
 * @return 0, -EINVAL (key not set, a segment over INT_MAX bytes) or -EIO (OpenSSL failed).
 */
int sb_auth_data_mac(struct sb_auth_data_key *k, uint64_t pn, const struct sb_auth_seg *seg,
	unsigned int n_seg, uint8_t *tag);

/**
 * Check a received DATA frame's tag: sb_auth_data_mac() over the same segments, compared in
 * constant time. Check the packet number's freshness first (sb_auth_pn_check(): cheaper, and
 * a replay must not cost a MAC), take it after (sb_auth_pn_accept()).
 * @return 0 (authentic), -EBADMSG (wrong tag), or as sb_auth_data_mac().
 */
int sb_auth_data_verify(struct sb_auth_data_key *k, uint64_t pn, const struct sb_auth_seg *seg,
	unsigned int n_seg, const uint8_t *tag);

/**
 * Packet numbers a receiver has taken from one direction, for the replay check: the highest
 * one and a bitmap of the @p n_bits numbers at and below it (RFC 4303 s.3.4.3's sliding
 * window, 64 bits a word as in RFC 6479). A number above the top moves the window; one
 * within it is taken once; one below it is refused as too old, whether or not it was seen:
 * size the window above the frames a reorder window may see out of order. Plain data over
 * memory the caller gives (sb_auth_pn_window_init()).
 */
struct sb_auth_pn_window {
	uint64_t top;			/**< Highest number taken (valid when any). */
	uint64_t *bits;			/**< n_bits / 64 words: bit (pn % n_bits) of a taken
					 *   number within the window. */
	uint32_t n_bits;		/**< A power of two, at least 64. */
	bool any;			/**< A number was taken (or a floor set). */
};

/**
 * Start a window over @p words (n_bits / 64 of them, zeroed here), empty.
 * @return 0, or -EINVAL (@p n_bits not a power of two of at least 64).
 */
int sb_auth_pn_window_init(struct sb_auth_pn_window *w, uint64_t *words, uint32_t n_bits);

/** Empty the window: the next number is taken whatever it is (a new key: nothing under the
 *  old one verifies any more). */
void sb_auth_pn_window_reset(struct sb_auth_pn_window *w);

/** Refuse every number up to @p floor from now on, as if all had been taken (a peer back in
 *  the table under the same key: what it sent before must not be taken again). */
void sb_auth_pn_window_floor(struct sb_auth_pn_window *w, uint64_t floor);

/**
 * Whether @p pn may be taken: no MAC is spent on a number already refused.
 * @return 0 (fresh), -EALREADY (taken before: a replay or a duplicate) or -ESTALE (below the
 *   window: too old to tell; a replay, or a frame later than the window is wide).
 */
int sb_auth_pn_check(const struct sb_auth_pn_window *w, uint64_t pn);

/** Take @p pn, which sb_auth_pn_check() found fresh and whose tag verified. */
void sb_auth_pn_accept(struct sb_auth_pn_window *w, uint64_t pn);

/**
 * The highest high half of a packet number a sender uses under one key (2^63 numbers per
 * direction: 19 000 years at 15 M frames a second), far below where the 64-bit number would
 * wrap. Before it goes past, the sender draws new keys (a new session nonce) and starts its
 * numbers again (sb_auth_pn_exhausted()).
 */
#define SB_AUTH_PN_HI_MAX ((UINT32_C(1) << 31) - 1)

/** @return whether a sender whose next packet number's high half is @p pn_hi must re-key. */
static inline bool
sb_auth_pn_exhausted(uint32_t pn_hi)
{
	return pn_hi > SB_AUTH_PN_HI_MAX;
}

/**
 * A token bucket that bounds the MAC checks of authenticated hellos on one port (refused
 * frames cost about what junk costs: no MAC past the budget). @p rate tokens a second up
 * to @p burst; plain data.
 */
struct sb_auth_bucket {
	uint64_t tokens_ns;		/**< Tokens held, times 1e9 (so refills are exact). */
	uint64_t last_ns;		/**< Clock of the last refill; 0: full at first use. */
	uint32_t rate;			/**< Tokens a second. */
	uint32_t burst;			/**< Most tokens held. */
};

/** Set a bucket's rate and burst (tokens held are capped at the new burst). */
void sb_auth_bucket_set(struct sb_auth_bucket *b, uint32_t rate, uint32_t burst);

/**
 * Take a token at @p now_ns (any monotonic clock in ns).
 * @return true (a check may be spent) or false (over budget: refuse unchecked).
 */
bool sb_auth_bucket_take(struct sb_auth_bucket *b, uint64_t now_ns);

#endif /* SB_AUTH_H */
