/* SPDX-License-Identifier: BSD-3-Clause */
/* Cluster authentication: which libsodium primitive over which bytes (sb_auth.h); the DATA
 * tag and its packet numbers are in sb_auth_data.c. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "sb_auth.h"

_Static_assert(SB_AUTH_HELLO_TAG_LEN >= crypto_generichash_blake2b_BYTES_MIN &&
	SB_AUTH_HELLO_TAG_LEN <= crypto_generichash_blake2b_BYTES_MAX, "hello tag length");
_Static_assert(SB_AUTH_KEY_LEN >= crypto_generichash_blake2b_KEYBYTES_MIN &&
	SB_AUTH_KEY_LEN <= crypto_generichash_blake2b_KEYBYTES_MAX, "cluster key length");
_Static_assert(sizeof(SB_AUTH_HELLO_PERSONAL) <= crypto_generichash_blake2b_PERSONALBYTES,
	"personalisation length");
_Static_assert(SB_AUTH_RING_MAX <= UINT8_MAX, "ring size");
_Static_assert(sizeof(SB_AUTH_FP_PERSONAL) <= crypto_generichash_blake2b_PERSONALBYTES &&
	SB_AUTH_FP_LEN <= crypto_generichash_blake2b_BYTES_MIN, "fingerprint");
_Static_assert(SB_AUTH_HELLO_TAG_LEN == sizeof(((struct sb_wire_hello_auth *)0)->tag) &&
	SB_HELLO_AUTH_TAG_OFF == offsetof(struct sb_wire_hello_auth, tag),
	"hello trailer layout");
_Static_assert((SB_AUTH_REPLAY_SLOTS & (SB_AUTH_REPLAY_SLOTS - 1)) == 0, "replay slots");

/* Zero padded to the 16 bytes BLAKE2b takes. */
static const uint8_t hello_personal[crypto_generichash_blake2b_PERSONALBYTES] =
	SB_AUTH_HELLO_PERSONAL;
static const uint8_t fp_personal[crypto_generichash_blake2b_PERSONALBYTES] =
	SB_AUTH_FP_PERSONAL;

int
sb_auth_init(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

void *
sb_auth_secret_alloc(size_t len)
{
	return sodium_malloc(len);
}

void
sb_auth_secret_free(void *p)
{
	sodium_free(p);
}

void
sb_auth_wipe(void *p, size_t len)
{
	sodium_memzero(p, len);
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Write the parser's message, if there is room for one. */
static int __attribute__((format(printf, 3, 4)))
key_err(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && err_len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
sb_auth_key_parse(const char *hex, uint8_t id, struct sb_auth_key *key, char *err,
	size_t err_len)
{
	struct sb_auth_key k = { .id = id };
	size_t len, bin_len, i;
	uint8_t any = 0;

	if (hex == NULL || key == NULL)
		return key_err(err, err_len, "no key given: need %d hex characters",
			SB_AUTH_KEY_HEX_LEN);
	/* Characters first: a key pasted with a space in it is better told by position than
	 * by its length. */
	len = strlen(hex);
	for (i = 0; i < len; i++)
		if (!is_hex(hex[i]))
			return key_err(err, err_len,
				"character %zu of the key is not a hex digit (0-9, a-f, A-F)",
				i + 1);
	if (len != SB_AUTH_KEY_HEX_LEN)
		return key_err(err, err_len,
			"the key has %zu hex characters%s; it needs exactly %d (%d bytes)", len,
			len % 2 != 0 ? " (an odd number)" : "", SB_AUTH_KEY_HEX_LEN,
			SB_AUTH_KEY_LEN);
	if (sodium_hex2bin(k.secret, sizeof(k.secret), hex, len, NULL, &bin_len, NULL) != 0 ||
			bin_len != sizeof(k.secret)) {
		sb_auth_wipe(&k, sizeof(k));
		return key_err(err, err_len, "the key cannot be decoded as hex");
	}
	for (i = 0; i < sizeof(k.secret); i++)
		any |= k.secret[i];
	if (any == 0)
		return key_err(err, err_len,
			"the key is all zeros (a placeholder?): use %d random bytes",
			SB_AUTH_KEY_LEN);
	*key = k;
	sb_auth_wipe(&k, sizeof(k));
	return 0;
}

void
sb_auth_key_fingerprint(const uint8_t *secret, uint8_t *fp)
{
	/* BLAKE2b's shortest output, cut: its first bytes are as good as a shorter output. */
	uint8_t h[crypto_generichash_blake2b_BYTES_MIN];

	crypto_generichash_blake2b_salt_personal(h, sizeof(h), NULL, 0, secret, SB_AUTH_KEY_LEN,
		NULL, fp_personal);
	memcpy(fp, h, SB_AUTH_FP_LEN);
}

void
sb_auth_ring_init(struct sb_auth_keyring *r)
{
	sb_auth_wipe(r, sizeof(*r));
}

static int
ring_find(const struct sb_auth_keyring *r, uint8_t id)
{
	unsigned int i;

	for (i = 0; i < r->n_keys; i++)
		if (r->key[i].id == id)
			return (int)i;
	return -ENOENT;
}

int
sb_auth_ring_add(struct sb_auth_keyring *r, const struct sb_auth_key *key)
{
	if (ring_find(r, key->id) >= 0)
		return -EEXIST;
	if (r->n_keys >= SB_AUTH_RING_MAX)
		return -ENOSPC;
	r->key[r->n_keys] = *key;
	if (r->n_keys == 0)
		r->send = 0;
	r->n_keys++;
	return 0;
}

int
sb_auth_ring_set_send(struct sb_auth_keyring *r, uint8_t id)
{
	int i = ring_find(r, id);

	if (i < 0)
		return i;
	r->send = (uint8_t)i;
	return 0;
}

int
sb_auth_ring_remove(struct sb_auth_keyring *r, uint8_t id)
{
	int i = ring_find(r, id);
	unsigned int last;

	if (i < 0)
		return i;
	if ((unsigned int)i == r->send)
		return -EBUSY;
	last = r->n_keys - 1u;
	if ((unsigned int)i != last) {
		r->key[i] = r->key[last];
		if (r->send == last)
			r->send = (uint8_t)i;
	}
	sb_auth_wipe(&r->key[last], sizeof(r->key[last]));
	r->n_keys--;
	return 0;
}

const struct sb_auth_key *
sb_auth_ring_send_key(const struct sb_auth_keyring *r)
{
	return r->n_keys == 0 ? NULL : &r->key[r->send];
}

uint64_t
sb_auth_clock_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t
sb_auth_seq_next(struct sb_auth_seq *s, uint64_t now_us)
{
	s->last = now_us > s->last ? now_us : s->last + 1;
	return s->last;
}

int
sb_auth_hello_mac(const struct sb_auth_key *key, const uint8_t *msg, size_t len, uint8_t *tag)
{
	if (key == NULL)
		return -EINVAL;
	if (crypto_generichash_blake2b_salt_personal(tag, SB_AUTH_HELLO_TAG_LEN, msg, len,
			key->secret, sizeof(key->secret), NULL, hello_personal) != 0)
		return -EINVAL;
	return 0;
}

int
sb_auth_hello_verify(const struct sb_auth_keyring *r, uint8_t key_id, const uint8_t *msg,
	size_t len, const uint8_t *tag)
{
	uint8_t want[SB_AUTH_HELLO_TAG_LEN];
	int rc = -ENOKEY;
	unsigned int i;

	for (i = 0; i < r->n_keys; i++) {
		if (r->key[i].id != key_id)
			continue;
		if (sb_auth_hello_mac(&r->key[i], msg, len, want) == 0 &&
				sodium_memcmp(want, tag, sizeof(want)) == 0) {
			rc = 0;
			break;
		}
		rc = -EBADMSG;
	}
	return rc;
}

/* The hello MAC over @p frame with its tag's bytes taken as zeros. */
static int
hello_mac_frame(const struct sb_auth_key *key, const uint8_t *frame, size_t len,
	size_t tag_off, uint8_t *tag)
{
	static const uint8_t zeros[SB_AUTH_HELLO_TAG_LEN];
	crypto_generichash_blake2b_state st;
	int rc;

	if (key == NULL || tag_off > len || len - tag_off < SB_AUTH_HELLO_TAG_LEN)
		return -EINVAL;
	rc = crypto_generichash_blake2b_init_salt_personal(&st, key->secret,
		sizeof(key->secret), SB_AUTH_HELLO_TAG_LEN, NULL, hello_personal);
	rc |= crypto_generichash_blake2b_update(&st, frame, tag_off);
	rc |= crypto_generichash_blake2b_update(&st, zeros, sizeof(zeros));
	rc |= crypto_generichash_blake2b_update(&st, frame + tag_off + SB_AUTH_HELLO_TAG_LEN,
		len - tag_off - SB_AUTH_HELLO_TAG_LEN);
	rc |= crypto_generichash_blake2b_final(&st, tag, SB_AUTH_HELLO_TAG_LEN);
	sb_auth_wipe(&st, sizeof(st));
	return rc != 0 ? -EINVAL : 0;
}

int
sb_auth_hello_sign(const struct sb_auth_key *key, uint8_t *frame, size_t len, size_t tag_off)
{
	uint8_t tag[SB_AUTH_HELLO_TAG_LEN];
	int rc = hello_mac_frame(key, frame, len, tag_off, tag);

	if (rc == 0)
		memcpy(frame + tag_off, tag, sizeof(tag));
	return rc;
}

int
sb_auth_hello_check(const struct sb_auth_keyring *r, uint8_t key_id, const uint8_t *frame,
	size_t len, size_t tag_off)
{
	uint8_t want[SB_AUTH_HELLO_TAG_LEN];
	int i = ring_find(r, key_id);

	if (tag_off > len || len - tag_off < SB_AUTH_HELLO_TAG_LEN)
		return -EINVAL;
	if (i < 0)
		return -ENOKEY;
	if (hello_mac_frame(&r->key[i], frame, len, tag_off, want) != 0)
		return -EINVAL;
	return sodium_memcmp(want, frame + tag_off, sizeof(want)) == 0 ? 0 : -EBADMSG;
}

void
sb_auth_replay_init(struct sb_auth_replay *r)
{
	memset(r, 0, sizeof(*r));
}

int
sb_auth_replay_check(struct sb_auth_replay *r, uint64_t seq)
{
	if (seq == 0)
		return -EINVAL;
	if (seq <= r->last_seq) {
		r->rejected++;
		r->rejected_run++;
		return -ESTALE;
	}
	r->last_seq = seq;
	r->accepted++;
	r->rejected_run = 0;
	return 0;
}

static bool
stream_eq(const struct sb_auth_stream *a, const struct sb_auth_stream *b)
{
	return a->host_id == b->host_id && a->port == b->port &&
		a->local_port == b->local_port && a->unicast == b->unicast;
}

int
sb_auth_replay_table_check(struct sb_auth_replay_table *t, const struct sb_auth_stream *s,
	uint64_t seq, const struct sb_auth_replay **out)
{
	/* Fibonacci hashing of the stream's fields: host ids are small consecutive numbers
	 * on most clusters, and these spread them over the table. */
	uint32_t h = (s->host_id * UINT32_C(0x9e3779b1)) ^
		((uint32_t)s->port << 16 | (uint32_t)s->local_port << 8 | s->unicast);
	unsigned int i, idx, victim = 0;
	struct sb_auth_replay_slot *slot = NULL;
	uint64_t oldest = UINT64_MAX;
	int rc;

	if (s->host_id == 0)
		return -EINVAL;
	h *= UINT32_C(0x85ebca6b);
	h ^= h >> 15;
	for (i = 0; i < SB_AUTH_REPLAY_PROBE; i++) {
		idx = (h + i) & (SB_AUTH_REPLAY_SLOTS - 1);
		if (t->slot[idx].s.host_id == 0 || stream_eq(&t->slot[idx].s, s)) {
			slot = &t->slot[idx];
			break;
		}
		if (t->slot[idx].used < oldest) {
			oldest = t->slot[idx].used;
			victim = idx;
		}
	}
	if (slot == NULL) {
		/* Every slot of the window holds another stream: the least recent goes. Slots
		 * are never emptied, so a lookup may stop at the first empty one. */
		slot = &t->slot[victim];
		slot->s.host_id = 0;
		t->replaced++;
	}
	if (slot->s.host_id == 0) {
		slot->s = *s;
		slot->s.reserved = 0;
		sb_auth_replay_init(&slot->r);
	}
	slot->used = ++t->clock;
	rc = sb_auth_replay_check(&slot->r, seq);
	if (out != NULL)
		*out = &slot->r;
	return rc;
}

