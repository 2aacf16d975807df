/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FUZZ_AUTH_H
#define FUZZ_AUTH_H

/*
 * What fuzz_frame's keyed mode (frame-keyed) and mkseeds share: the cluster key, the session
 * nonces, and how a host holding the key signs a hello and tags a DATA frame (lib/wire and
 * lib/auth, as app/datapath/sb_dp_auth.c does; docs/wire-format.md, "Cluster key").
 *
 * Key generations. A hello's trailer carries its sender's; a DATA frame carries its
 * receiver's, the one its direction key was made for (struct sb_auth_dir_ids rx_gen). Ours
 * starts at 0 in every input and moves on when a peer leaves the table.
 *
 * Session nonces. A peer's is whatever its hello trailer carries; a hello the harness signs
 * without one gets fuzz_peer_nonce() of its host id. Ours is drawn by the datapath from
 * libsodium's random source (sb_auth_nonce_new()), which the fuzzer replaces with a
 * deterministic one restarted for every input (fuzz_rand_install(), fuzz_rand_restart()):
 * the datapath's first draw is our nonce (sb_dp_auth_create() draws it before anything else),
 * so mkseeds can write DATA frames whose tags verify as they are, and every input runs the
 * same way twice.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "sb_auth.h"
#include "sb_wire.h"

#define FUZZ_OUR_HOST_ID 7

/* The cluster key of keyed mode: its id is the first byte of its fingerprint, as a key file's. */
static const char fuzz_key_hex[] =
	"66757a7a5f6672616d65206b657965642d6d6f6465206b657920283332206229";

static inline int
fuzz_key_load(struct sb_auth_key *k)
{
	uint8_t fp[SB_AUTH_FP_LEN];
	char err[128];

	if (sb_auth_init() != 0 || sb_auth_key_parse(fuzz_key_hex, 0, k, err, sizeof(err)) != 0)
		return -1;
	sb_auth_key_fingerprint(k->secret, fp);
	k->id = fp[0];
	return 0;
}

/* Draw @p n (from 0) of the deterministic random source: @p size bytes. */
static inline void
fuzz_rand_draw(uint64_t n, void *buf, size_t size)
{
	uint8_t seed[randombytes_SEEDBYTES] = "seqbond fuzz_frame random draw";

	memcpy(seed + sizeof(seed) - sizeof(n), &n, sizeof(n));
	randombytes_buf_deterministic(buf, size, seed);
}

/* Our session nonce in every input (the datapath's first draw). */
static inline void
fuzz_our_nonce(uint8_t *nonce)
{
	fuzz_rand_draw(0, nonce, SB_AUTH_NONCE_LEN);
}

/* The session nonce of host @p host_id when its hello carries none. */
static inline void
fuzz_peer_nonce(uint32_t host_id, uint8_t *nonce)
{
	unsigned int i;

	for (i = 0; i < SB_AUTH_NONCE_LEN; i++)
		nonce[i] = (uint8_t)(host_id >> (8 * (i % 4))) ^ (uint8_t)(0x5a + i);
}

/*
 * Make hello @p f (@p len bytes, @p room available; it decodes) an authenticated one:
 * trailer with key @p k's id, the sender's key generation @p gen, crypto sequence @p cseq
 * and @p nonce, then its tag.
 * @return its length now, or 0 (the trailer does not fit).
 */
static inline size_t
fuzz_sign_hello(const struct sb_auth_key *k, uint8_t *f, size_t room, size_t len, uint8_t gen,
	uint64_t cseq, const uint8_t *nonce)
{
	size_t off;

	len = sb_wire_hello_auth_put(f, room, len, k->id, gen, cseq, nonce, &off);
	if (len == 0 || sb_auth_hello_sign(k, f, len, off + SB_HELLO_AUTH_TAG_OFF) != 0)
		return 0;
	return len;
}

/*
 * Tag DATA frame @p f, its authentication header in place (length, PN high; the key id is
 * set to @p k's and the generation to @p rx_gen), as host @p tx_host (session nonce
 * @p tx_nonce) sends it to @p rx_host (@p rx_nonce, key generation @p rx_gen): AES-256-GCM
 * under their direction key over bytes 0..29 and 46..length-1, packet number
 * PN high << 32 | the shim's sequence number.
 * @param dk   A cipher context (sb_auth_data_key_init()), loaded here with that key.
 * @param len  The bytes at @p f: the header's length must be within them.
 * @return 0, or -1 (the header does not decode: left as it is).
 */
static inline int
fuzz_tag_data(const struct sb_auth_key *k, struct sb_auth_data_key *dk, uint8_t *f, size_t len,
	uint32_t tx_host, const uint8_t *tx_nonce, uint32_t rx_host, const uint8_t *rx_nonce,
	uint8_t rx_gen)
{
	struct sb_auth_dir_ids ids = { .tx_host = tx_host, .rx_host = rx_host, .rx_gen = rx_gen };
	struct sb_data_auth da;
	struct sb_auth_seg seg[2];
	struct sb_shim shim;
	size_t off;
	int rc;

	if (sb_wire_parse(f, len, &shim, &off) != SB_WIRE_OK || shim.type != SB_WIRE_DATA ||
			!(shim.flags & SB_WIRE_F_AUTH) ||
			sb_wire_data_auth_get(f, len, &shim, &da) != SB_WIRE_OK)
		return -1;
	memcpy(ids.tx_nonce, tx_nonce, SB_AUTH_NONCE_LEN);
	memcpy(ids.rx_nonce, rx_nonce, SB_AUTH_NONCE_LEN);
	if (sb_auth_data_key_set(dk, k, &ids) != 0)
		return -1;
	f[SB_HDR_LEN + 2] = k->id;
	f[SB_HDR_LEN + 3] = rx_gen;
	seg[0] = (struct sb_auth_seg){ f, SB_WIRE_DATA_TAG_OFF };
	seg[1] = (struct sb_auth_seg){ f + SB_WIRE_DATA_AUTH_INNER,
		da.len - SB_WIRE_DATA_AUTH_INNER };
	rc = sb_auth_data_mac(dk, (uint64_t)da.pn_hi << 32 | shim.seq, seg, 2,
		f + SB_WIRE_DATA_TAG_OFF);
	return rc == 0 ? 0 : -1;
}

/*
 * Whether DATA frame @p f (@p len bytes) carries the key id, generation and tag
 * @p tx_host (@p tx_nonce) makes for @p rx_host (@p rx_nonce, generation @p rx_gen) under
 * key @p k: what the receiver checks, done apart.
 */
static inline bool
fuzz_data_tag_ok(const struct sb_auth_key *k, struct sb_auth_data_key *dk, const uint8_t *f,
	size_t len, uint32_t tx_host, const uint8_t *tx_nonce, uint32_t rx_host,
	const uint8_t *rx_nonce, uint8_t rx_gen)
{
	uint8_t copy[SB_WIRE_DATA_AUTH_INNER + 2048];

	if (len > sizeof(copy) || len < SB_WIRE_DATA_AUTH_INNER)
		return false;
	memcpy(copy, f, len);
	return fuzz_tag_data(k, dk, copy, len, tx_host, tx_nonce, rx_host, rx_nonce,
			rx_gen) == 0 && f[SB_HDR_LEN + 2] == k->id && f[SB_HDR_LEN + 3] == rx_gen &&
		memcmp(copy + SB_WIRE_DATA_TAG_OFF, f + SB_WIRE_DATA_TAG_OFF,
			SB_AUTH_DATA_TAG_LEN) == 0;
}

#endif /* FUZZ_AUTH_H */
