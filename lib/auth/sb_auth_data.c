/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DATA tag (sb_auth.h): direction keys, AES-256-GCM over the whole frame through OpenSSL's
 * EVP interface, the receiver's window of packet numbers, and the budget of hello checks.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "sb_auth.h"

_Static_assert(SB_AUTH_DIR_KEY_LEN <= crypto_generichash_blake2b_BYTES_MAX &&
	SB_AUTH_DIR_KEY_LEN >= crypto_generichash_blake2b_BYTES_MIN, "direction key length");
_Static_assert(sizeof(SB_AUTH_DIR_PERSONAL) <= crypto_generichash_blake2b_PERSONALBYTES,
	"personalisation length");
_Static_assert(SB_AUTH_DATA_TAG_LEN == sizeof(((struct sb_wire_data_auth *)0)->tag),
	"DATA tag on the wire");
_Static_assert(SB_AUTH_NONCE_LEN == sizeof(((struct sb_wire_hello_auth *)0)->nonce),
	"session nonce on the wire");

/* Zero padded to the 16 bytes BLAKE2b takes. */
static const uint8_t dir_personal[crypto_generichash_blake2b_PERSONALBYTES] =
	SB_AUTH_DIR_PERSONAL;

/* GCM's IV: the packet number, then 32 zero bits (sb_auth.h). */
#define IV_LEN 12

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void
sb_auth_nonce_new(uint8_t *nonce)
{
	randombytes_buf(nonce, SB_AUTH_NONCE_LEN);
}

int
sb_auth_dir_derive(const struct sb_auth_key *ck, const struct sb_auth_dir_ids *ids,
	uint8_t *key)
{
	uint8_t msg[8 + 2 * SB_AUTH_NONCE_LEN + 1];

	if (ck == NULL || ids == NULL || key == NULL || ids->tx_host == 0 || ids->rx_host == 0 ||
			ids->tx_host == ids->rx_host)
		return -EINVAL;
	put_be32(msg, ids->tx_host);
	put_be32(msg + 4, ids->rx_host);
	memcpy(msg + 8, ids->tx_nonce, SB_AUTH_NONCE_LEN);
	memcpy(msg + 8 + SB_AUTH_NONCE_LEN, ids->rx_nonce, SB_AUTH_NONCE_LEN);
	msg[8 + 2 * SB_AUTH_NONCE_LEN] = ids->rx_gen;
	if (crypto_generichash_blake2b_salt_personal(key, SB_AUTH_DIR_KEY_LEN, msg, sizeof(msg),
			ck->secret, sizeof(ck->secret), NULL, dir_personal) != 0)
		return -EINVAL;
	return 0;
}

int
sb_auth_data_key_init(struct sb_auth_data_key *k)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	k->set = false;
	k->key_id = 0;
	k->ctx = NULL;
	if (c == NULL)
		return -ENOMEM;
	/* The cipher now, the key later: re-keying then reuses the context. */
	if (EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
			EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, IV_LEN, NULL) != 1) {
		EVP_CIPHER_CTX_free(c);
		return -EIO;
	}
	k->ctx = c;
	sb_auth_data_key_clear(k);
	return 0;
}

void
sb_auth_data_key_free(struct sb_auth_data_key *k)
{
	if (k->ctx != NULL)
		EVP_CIPHER_CTX_free(k->ctx);
	k->ctx = NULL;
	k->set = false;
}

/* Load @p key (SB_AUTH_DIR_KEY_LEN bytes). @return 0 or -EIO. */
static int
load_key(struct sb_auth_data_key *k, const uint8_t *key)
{
	return EVP_EncryptInit_ex(k->ctx, NULL, NULL, key, NULL) == 1 ? 0 : -EIO;
}

int
sb_auth_data_key_set(struct sb_auth_data_key *k, const struct sb_auth_key *ck,
	const struct sb_auth_dir_ids *ids)
{
	uint8_t key[SB_AUTH_DIR_KEY_LEN];
	int rc;

	k->set = false;
	if (k->ctx == NULL)
		return -EINVAL;
	rc = sb_auth_dir_derive(ck, ids, key);
	if (rc == 0)
		rc = load_key(k, key);
	sodium_memzero(key, sizeof(key));
	if (rc != 0) {
		sb_auth_data_key_clear(k);
		return rc;
	}
	k->key_id = ck->id;
	k->set = true;
	return 0;
}

void
sb_auth_data_key_clear(struct sb_auth_data_key *k)
{
	uint8_t key[SB_AUTH_DIR_KEY_LEN];

	k->set = false;
	if (k->ctx == NULL)
		return;
	/* Nobody knows this one: the old key is gone from the context. */
	randombytes_buf(key, sizeof(key));
	load_key(k, key);
	sodium_memzero(key, sizeof(key));
}

int
sb_auth_data_mac(struct sb_auth_data_key *k, uint64_t pn, const struct sb_auth_seg *seg,
	unsigned int n_seg, uint8_t *tag)
{
	EVP_CIPHER_CTX *c = k->ctx;
	uint8_t iv[IV_LEN] = { 0 };
	unsigned int i;
	int n;

	if (!k->set || c == NULL)
		return -EINVAL;
	put_be32(iv, (uint32_t)(pn >> 32));
	put_be32(iv + 4, (uint32_t)pn);
	if (EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv) != 1)
		return -EIO;
	for (i = 0; i < n_seg; i++) {
		if (seg[i].len > INT_MAX)
			return -EINVAL;
		if (seg[i].len != 0 && EVP_EncryptUpdate(c, NULL, &n, seg[i].p,
				(int)seg[i].len) != 1)
			return -EIO;
	}
	if (EVP_EncryptFinal_ex(c, NULL, &n) != 1 ||
			EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, SB_AUTH_DATA_TAG_LEN,
				tag) != 1)
		return -EIO;
	return 0;
}

int
sb_auth_data_verify(struct sb_auth_data_key *k, uint64_t pn, const struct sb_auth_seg *seg,
	unsigned int n_seg, const uint8_t *tag)
{
	uint8_t want[SB_AUTH_DATA_TAG_LEN];
	int rc = sb_auth_data_mac(k, pn, seg, n_seg, want);

	if (rc != 0)
		return rc;
	return sodium_memcmp(want, tag, SB_AUTH_DATA_TAG_LEN) == 0 ? 0 : -EBADMSG;
}

int
sb_auth_pn_window_init(struct sb_auth_pn_window *w, uint64_t *words, uint32_t n_bits)
{
	if (words == NULL || n_bits < 64 || (n_bits & (n_bits - 1)) != 0)
		return -EINVAL;
	w->bits = words;
	w->n_bits = n_bits;
	sb_auth_pn_window_reset(w);
	return 0;
}

void
sb_auth_pn_window_reset(struct sb_auth_pn_window *w)
{
	memset(w->bits, 0, w->n_bits / 8);
	w->top = 0;
	w->any = false;
}

void
sb_auth_pn_window_floor(struct sb_auth_pn_window *w, uint64_t floor)
{
	memset(w->bits, 0xff, w->n_bits / 8);
	w->top = floor;
	w->any = true;
}

int
sb_auth_pn_check(const struct sb_auth_pn_window *w, uint64_t pn)
{
	uint64_t bit;

	if (!w->any || pn > w->top)
		return 0;
	if (w->top - pn >= w->n_bits)
		return -ESTALE;
	bit = pn & (w->n_bits - 1);
	return (w->bits[bit / 64] >> (bit % 64)) & 1 ? -EALREADY : 0;
}

void
sb_auth_pn_accept(struct sb_auth_pn_window *w, uint64_t pn)
{
	uint64_t bit = pn & (w->n_bits - 1);

	if (!w->any) {
		memset(w->bits, 0, w->n_bits / 8);
		w->top = pn;
		w->any = true;
	} else if (pn > w->top) {
		/* Clear the bits the window slides over: numbers never seen. */
		uint64_t gap = pn - w->top, from;

		if (gap >= w->n_bits) {
			memset(w->bits, 0, w->n_bits / 8);
		} else {
			/* Word by word where whole words pass, else bit by bit. */
			for (from = w->top + 1; from <= pn; ) {
				uint64_t b = from & (w->n_bits - 1);

				if (b % 64 == 0 && pn - from >= 63) {
					w->bits[b / 64] = 0;
					from += 64;
				} else {
					w->bits[b / 64] &= ~(UINT64_C(1) << (b % 64));
					from++;
				}
			}
		}
		w->top = pn;
	}
	w->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
}

void
sb_auth_bucket_set(struct sb_auth_bucket *b, uint32_t rate, uint32_t burst)
{
	uint64_t cap = (uint64_t)burst * 1000000000u;

	b->rate = rate;
	b->burst = burst;
	if (b->tokens_ns > cap)
		b->tokens_ns = cap;
}

bool
sb_auth_bucket_take(struct sb_auth_bucket *b, uint64_t now_ns)
{
	uint64_t cap = (uint64_t)b->burst * 1000000000u;

	if (b->last_ns == 0) {
		b->tokens_ns = cap;
	} else if (now_ns > b->last_ns) {
		uint64_t add = (now_ns - b->last_ns) * b->rate;

		/* ns x tokens/s = tokens x 1e9: no overflow before 584 years x rate. */
		b->tokens_ns = add >= cap || cap - add < b->tokens_ns ? cap : b->tokens_ns + add;
	}
	b->last_ns = now_ns;
	if (b->tokens_ns < 1000000000u)
		return false;
	b->tokens_ns -= 1000000000u;
	return true;
}
