/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster authentication (lib/auth): libsodium's primitives against published vectors, our
 * constructions against direct libsodium calls and frozen vectors (a change of either breaks
 * interworking between versions), tamper detection byte by byte, keys and key ids, a whole
 * rollover between two hosts, the replay check across restarts and clock steps, direction
 * keys per direction, nonce and cluster key, the window of packet numbers against a model,
 * the budget of hello checks, and the hex parser's errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <rte_common.h>
#include <sodium.h>

#include "sb_auth.h"
#include "sb_wire.h"
#include "sb_test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* sb_auth_dir_derive() and sb_auth_data_mac() of test_constructions()'s inputs, frozen: a
 * change breaks interworking between versions. */
#define DIR_KEY_HEX "5d72d6c2c65743f9d418a74b4a610fb07a69f103c4ef73f05f47b009777b6f11"
#define DATA_TAG_HEX "5ecb1f94b1c465cb666653a614501cf3"

static const char key_a_hex[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
/* sb_auth_key_fingerprint() of key_a_hex, frozen. */
#define FP_A_HEX "26abb573792c1729"
static const char key_b_hex[] =
	"F0E1D2C3B4A5968778695A4B3C2D1E0FFFEEDDCCBBAA99887766554433221100";

static void
to_hex(char *out, const uint8_t *b, size_t n)
{
	sodium_bin2hex(out, 2 * n + 1, b, n);
}

static bool
hex_is(const uint8_t *b, size_t n, const char *want)
{
	char got[2 * 64 + 1];

	to_hex(got, b, n);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "  got  %s\n  want %s\n", got, want);
		return false;
	}
	return true;
}

static struct sb_auth_key
key_of(const char *hex, uint8_t id)
{
	struct sb_auth_key k;
	char err[128];
	int rc = sb_auth_key_parse(hex, id, &k, err, sizeof(err));

	SB_CHECK(rc == 0, "parse %s: %s", hex, err);
	return k;
}

/* A hello followed by a model of an authentication trailer (key id, 8-byte crypto sequence,
 * tag) to exercise sb_auth_hello_mac()'s "bytes before the tag" contract; the wire's own
 * trailer (sb_wire_hello_auth_put(), inside a probe's padding) is test_hello_frame()'s.
 * Returns the bytes covered. */
static size_t
make_hello(uint8_t *buf, size_t room, uint8_t key_id, uint64_t seq, size_t pad_to)
{
	static const uint8_t dst[] = SB_HELLO_MAC;
	static const uint8_t src[] = { 0x02, 0xaa, 0xaa, 0xaa, 0xaa, 0x03 };
	struct sb_hello h = {
		.host_id = 7, .instance = 0x1234abcd,
		.agg_mac = { 0x02, 0xaa, 0xaa, 0xaa, 0xaa, 0x00 },
		.port_index = 3, .n_ports = 4, .rate_kbps = 1000000, .interval_ms = 10,
		.mtu = 1500, .multiplier = 3, .probe_interval_ms = 200, .hello_seq = 99,
		.tx_time_us = 123456, .n_entries = 3,
	};
	struct sb_hello_entry e[3] = {
		{ .host_id = 1, .port = 0, .flags = SB_ENTRY_F_MTU_OK, .rx_frames = 10 },
		{ .host_id = 2, .port = 1, .flags = SB_ENTRY_F_TX, .lost_frames = 3 },
		{ .host_id = 3, .port = 2, .owd_us = 250 },
	};
	size_t len, i;

	if (pad_to != 0)
		h.flags |= SB_HELLO_F_PROBE;
	len = sb_wire_put_hello(buf, room, dst, src, 3, &h, e, pad_to);
	SB_CHECK(len > 0 && len + 9 + SB_AUTH_HELLO_TAG_LEN <= room, "hello fits: %zu", len);
	buf[len++] = key_id;
	for (i = 0; i < 8; i++)
		buf[len++] = (uint8_t)(seq >> (56 - 8 * i));
	return len;
}

/* The libraries' own primitives, against the vectors their designers published. */
static void
test_primitives(void)
{
	uint8_t k[32] = { 0 }, iv[12] = { 0 }, out[64];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	/* McGrew and Viega, "The Galois/Counter Mode of Operation" (2005), test case 13:
	 * AES-256, key and IV all zero, nothing to encrypt or authenticate. */
	SB_CHECK(c != NULL && EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, k, iv) == 1 &&
		EVP_EncryptFinal_ex(c, out, &n) == 1 &&
		EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out) == 1, "AES-256-GCM runs");
	SB_CHECK(hex_is(out, 16, "530f8afbc74536b9a963b4f1c4cb738b"),
		"AES-256-GCM test case 13");
	EVP_CIPHER_CTX_free(c);

	/* RFC 7693 appendix A: BLAKE2b-512("abc"). */
	crypto_generichash_blake2b(out, 64, (const uint8_t *)"abc", 3, NULL, 0);
	SB_CHECK(hex_is(out, 64,
		"ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
		"7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"),
		"BLAKE2b-512 RFC 7693 vector");
}

/* Our constructions equal the libsodium calls the header names, and frozen outputs. */
static void
test_constructions(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1);
	struct sb_auth_dir_ids ids = { .tx_host = 0x01020304, .rx_host = 0x05060708,
		.rx_gen = 0xa5 };
	struct sb_auth_data_key dk;
	struct sb_auth_seg seg[2];
	uint8_t personal[crypto_generichash_blake2b_PERSONALBYTES] = { 0 };
	uint8_t msg[256], tag[SB_AUTH_HELLO_TAG_LEN], want[SB_AUTH_HELLO_TAG_LEN];
	uint8_t frame[100], dtag[SB_AUTH_DATA_TAG_LEN], pmsg[8 + 2 * SB_AUTH_NONCE_LEN + 1];
	uint8_t dkey[SB_AUTH_DIR_KEY_LEN], want32[SB_AUTH_DIR_KEY_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	SB_CHECK(sb_auth_hello_mac(&a, msg, sizeof(msg), tag) == 0, "hello mac");
	memcpy(personal, SB_AUTH_HELLO_PERSONAL, sizeof(SB_AUTH_HELLO_PERSONAL));
	crypto_generichash_blake2b_salt_personal(want, sizeof(want), msg, sizeof(msg), a.secret,
		sizeof(a.secret), NULL, personal);
	SB_CHECK(memcmp(tag, want, sizeof(tag)) == 0, "hello mac = keyed BLAKE2b-128");
	SB_CHECK(hex_is(tag, sizeof(tag), "36b240b4b43d3f80565612ce8df9b146"),
		"hello mac frozen vector");
	SB_CHECK(sb_auth_hello_mac(NULL, msg, sizeof(msg), tag) == -EINVAL, "NULL key");

	/* The direction key: keyed BLAKE2b-256 over hosts and nonces. */
	for (i = 0; i < SB_AUTH_NONCE_LEN; i++) {
		ids.tx_nonce[i] = (uint8_t)(0x10 + i);
		ids.rx_nonce[i] = (uint8_t)(0x80 + i);
	}
	SB_CHECK(sb_auth_dir_derive(&a, &ids, dkey) == 0, "direction key derives");
	memset(personal, 0, sizeof(personal));
	memcpy(personal, SB_AUTH_DIR_PERSONAL, sizeof(SB_AUTH_DIR_PERSONAL));
	memcpy(pmsg, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	memcpy(pmsg + 8, ids.tx_nonce, SB_AUTH_NONCE_LEN);
	memcpy(pmsg + 8 + SB_AUTH_NONCE_LEN, ids.rx_nonce, SB_AUTH_NONCE_LEN);
	pmsg[8 + 2 * SB_AUTH_NONCE_LEN] = ids.rx_gen;
	crypto_generichash_blake2b_salt_personal(want32, sizeof(want32), pmsg, sizeof(pmsg),
		a.secret, sizeof(a.secret), NULL, personal);
	SB_CHECK(memcmp(dkey, want32, sizeof(dkey)) == 0, "direction key = keyed BLAKE2b-256");
	SB_CHECK(hex_is(dkey, sizeof(dkey), DIR_KEY_HEX), "direction key frozen vector");

	/* The DATA tag: AES-256-GCM, IV = packet number and 4 zero bytes, the segments as
	 * additional data, no plaintext. */
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(0xa0 + i);
	SB_CHECK(sb_auth_data_key_init(&dk) == 0, "data key context");
	SB_CHECK(sb_auth_data_mac(&dk, 1, seg, 2, dtag) == -EINVAL, "no key loaded: refused");
	SB_CHECK(sb_auth_data_key_set(&dk, &a, &ids) == 0 && dk.set && dk.key_id == 1,
		"data key set");
	seg[0] = (struct sb_auth_seg){ frame, 30 };
	seg[1] = (struct sb_auth_seg){ frame + 46, sizeof(frame) - 46 };
	SB_CHECK(sb_auth_data_mac(&dk, UINT64_C(0x0000000100000002), seg, 2, dtag) == 0, "tag");
	{
		EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
		uint8_t iv[12] = { 0, 0, 0, 1, 0, 0, 0, 2 }, w[16];
		int n;

		SB_CHECK(EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, dkey, iv) == 1 &&
			EVP_EncryptUpdate(c, NULL, &n, frame, 30) == 1 &&
			EVP_EncryptUpdate(c, NULL, &n, frame + 46, sizeof(frame) - 46) == 1 &&
			EVP_EncryptFinal_ex(c, w, &n) == 1 &&
			EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, w) == 1, "EVP directly");
		SB_CHECK(memcmp(w, dtag, 16) == 0, "DATA tag = AES-256-GCM (GMAC) of the segments");
		EVP_CIPHER_CTX_free(c);
	}
	SB_CHECK(hex_is(dtag, sizeof(dtag), DATA_TAG_HEX), "DATA tag frozen vector");
	sb_auth_data_key_clear(&dk);
	SB_CHECK(!dk.set && sb_auth_data_verify(&dk, UINT64_C(0x0000000100000002), seg, 2,
		dtag) == -EINVAL, "cleared key verifies nothing");
	sb_auth_data_key_free(&dk);
	sb_auth_wipe(dkey, sizeof(dkey));
}

/* Every byte of a hello (and of a full-size probe) is covered; the tag is checked whole. */
static void
test_hello_tamper(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1);
	struct sb_auth_keyring r;
	static uint8_t buf[1600];
	uint8_t tag[SB_AUTH_HELLO_TAG_LEN];
	size_t pads[] = { 0, 1514 };
	unsigned int p, bad, bad_tag;
	size_t len, i;

	sb_auth_ring_init(&r);
	SB_CHECK(sb_auth_ring_add(&r, &a) == 0, "add");
	for (p = 0; p < ARRAY_LEN(pads); p++) {
		len = make_hello(buf, sizeof(buf), a.id, 1700000000000001ull, pads[p]);
		SB_CHECK(sb_auth_hello_mac(sb_auth_ring_send_key(&r), buf, len, tag) == 0, "mac");
		SB_CHECK(sb_auth_hello_verify(&r, a.id, buf, len, tag) == 0, "intact verifies");
		bad = 0;
		for (i = 0; i < len; i++) {
			buf[i] ^= 0x01;
			bad += sb_auth_hello_verify(&r, a.id, buf, len, tag) == -EBADMSG;
			buf[i] ^= 0x81;
			bad += sb_auth_hello_verify(&r, a.id, buf, len, tag) == -EBADMSG;
			buf[i] ^= 0x80;
		}
		SB_CHECK(bad == 2 * len, "%u of %zu flips refused (hello of %zu bytes)", bad,
			2 * len, len);
		bad_tag = 0;
		for (i = 0; i < sizeof(tag); i++) {
			tag[i] ^= 0x40;
			bad_tag += sb_auth_hello_verify(&r, a.id, buf, len, tag) == -EBADMSG;
			tag[i] ^= 0x40;
		}
		SB_CHECK(bad_tag == sizeof(tag), "every tag byte checked (%u)", bad_tag);
		SB_CHECK(sb_auth_hello_verify(&r, a.id, buf, len - 1, tag) == -EBADMSG,
			"truncated refused");
		SB_CHECK(sb_auth_hello_verify(&r, a.id, buf, len + 1, tag) == -EBADMSG,
			"extended refused");
		SB_CHECK(sb_auth_hello_verify(&r, a.id, buf, len, tag) == 0, "restored verifies");
	}
}

/* A DATA frame of @p len bytes in @p buf as the datapath builds it, tagged with @p k under
 * packet number @p pn; its segments (the bytes the tag covers) in @p seg, split into @p parts
 * pieces after the header. @return segments. */
static unsigned int
data_frame(struct sb_auth_data_key *k, uint8_t *buf, size_t len, uint64_t pn,
	struct sb_auth_seg *seg, unsigned int parts)
{
	static const uint8_t dst[] = { 0x02, 0xbb, 0xbb, 0xbb, 0xbb, 0x02 };
	static const uint8_t src[] = { 0x02, 0xaa, 0xaa, 0xaa, 0xaa, 0x02 };
	struct sb_shim shim = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED | SB_WIRE_F_AUTH,
		.path = 2, .path_seq = 5, .seq = (uint32_t)pn };
	size_t off = SB_WIRE_DATA_AUTH_INNER, left = len - off, i;
	unsigned int n = 0;

	sb_wire_put_hdr(buf, dst, src, &shim);
	sb_wire_put_data_auth(buf, (uint16_t)len, k->key_id, 0, (uint32_t)(pn >> 32));
	for (i = off; i < len; i++)
		buf[i] = (uint8_t)(i * 11);
	seg[n++] = (struct sb_auth_seg){ buf, SB_WIRE_DATA_TAG_OFF };
	for (i = 0; i < parts; i++) {
		size_t take = i + 1 == parts ? left : left / parts;

		seg[n++] = (struct sb_auth_seg){ buf + off, take };
		off += take;
		left -= take;
	}
	SB_CHECK(sb_auth_data_mac(k, pn, seg, n, buf + SB_WIRE_DATA_TAG_OFF) == 0, "tag made");
	return n;
}

/* Every byte of a DATA frame is covered (MACs, EtherType, shim, length, key id, packet number,
 * the inner frame), every tag byte checked, however the frame is split into segments. */
static void
test_data_tamper(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1);
	struct sb_auth_dir_ids ids = { .tx_host = 7, .rx_host = 9 };
	struct sb_auth_data_key k;
	struct sb_auth_seg seg[8], seg2[8];
	uint8_t frame[200], copy[200], tag[SB_AUTH_DATA_TAG_LEN];
	unsigned int bad = 0, covered = 0, bit, n, n2;
	uint64_t pn = UINT64_C(0x00000003fffffff0);
	size_t i;

	SB_CHECK(sb_auth_data_key_init(&k) == 0 && sb_auth_data_key_set(&k, &a, &ids) == 0,
		"key");
	n = data_frame(&k, frame, sizeof(frame), pn, seg, 1);
	memcpy(tag, frame + SB_WIRE_DATA_TAG_OFF, sizeof(tag));
	SB_CHECK(sb_auth_data_verify(&k, pn, seg, n, tag) == 0, "intact verifies");
	for (i = 0; i < sizeof(frame); i++) {
		if (i >= SB_WIRE_DATA_TAG_OFF && i < SB_WIRE_DATA_AUTH_INNER)
			continue;	/* the tag itself */
		covered++;
		for (bit = 0; bit < 8; bit++) {
			frame[i] ^= (uint8_t)(1u << bit);
			bad += sb_auth_data_verify(&k, pn, seg, n, tag) == -EBADMSG;
			frame[i] ^= (uint8_t)(1u << bit);
		}
	}
	SB_CHECK(covered == sizeof(frame) - SB_AUTH_DATA_TAG_LEN && bad == 8 * covered,
		"%u of %u bit flips anywhere in the frame refused", bad, 8 * covered);
	bad = 0;
	for (i = 0; i < sizeof(tag); i++) {
		tag[i] ^= 0x01;
		bad += sb_auth_data_verify(&k, pn, seg, n, tag) == -EBADMSG;
		tag[i] ^= 0x01;
	}
	SB_CHECK(bad == sizeof(tag), "every tag byte checked");
	/* The length is covered: a frame cut short, or padded and taken whole, fails. */
	seg[n - 1].len--;
	SB_CHECK(sb_auth_data_verify(&k, pn, seg, n, tag) == -EBADMSG, "one byte short");
	seg[n - 1].len += 2;
	SB_CHECK(sb_auth_data_verify(&k, pn, seg, n, tag) == -EBADMSG, "one byte padded");
	seg[n - 1].len--;
	/* The packet number is the nonce: the same bytes under another number fail. */
	SB_CHECK(sb_auth_data_verify(&k, pn + 1, seg, n, tag) == -EBADMSG, "another number");
	SB_CHECK(sb_auth_data_verify(&k, pn + (UINT64_C(1) << 32), seg, n, tag) == -EBADMSG,
		"the same sequence number one wrap later");
	/* Split into 2..5 segments (a chained mbuf): the same tag. */
	for (i = 2; i <= 5; i++) {
		n2 = data_frame(&k, copy, sizeof(copy), pn, seg2, (unsigned int)i);
		SB_CHECK(memcmp(copy + SB_WIRE_DATA_TAG_OFF, tag, sizeof(tag)) == 0 &&
			sb_auth_data_verify(&k, pn, seg2, n2, tag) == 0,
			"%zu segments: the same tag", i);
	}
	/* Each packet number its own tag. */
	bad = 0;
	for (i = 1; i <= 1000; i++) {
		n2 = data_frame(&k, copy, sizeof(copy), pn + i, seg2, 1);
		bad += sb_auth_data_verify(&k, pn + i, seg2, n2, tag) == -EBADMSG;
		bad += sb_auth_data_verify(&k, pn + i, seg2, n2,
			copy + SB_WIRE_DATA_TAG_OFF) == 0;
	}
	SB_CHECK(bad == 2000, "old tag refused and own tag taken for 1000 numbers (%u)", bad);
	sb_auth_data_key_free(&k);
}

/* Keys, key ids and the ring's rules. */
static void
test_keys(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1), b = key_of(key_b_hex, 2);
	struct sb_auth_key b_as_1 = b, c = a;
	struct sb_auth_keyring r, wrong;
	uint8_t msg[100], tag[SB_AUTH_HELLO_TAG_LEN];

	memset(msg, 0x5a, sizeof(msg));
	b_as_1.id = 1;
	c.id = 3;
	sb_auth_ring_init(&r);
	SB_CHECK(sb_auth_ring_send_key(&r) == NULL, "empty ring sends with nothing");
	SB_CHECK(sb_auth_hello_verify(&r, 1, msg, sizeof(msg), tag) == -ENOKEY, "empty: ENOKEY");
	SB_CHECK(sb_auth_ring_add(&r, &a) == 0, "add a");
	SB_CHECK(sb_auth_ring_send_key(&r)->id == 1, "first key sends");
	SB_CHECK(sb_auth_ring_add(&r, &b_as_1) == -EEXIST, "duplicate id refused");
	SB_CHECK(sb_auth_ring_add(&r, &b) == 0, "add b");
	SB_CHECK(sb_auth_ring_add(&r, &c) == -ENOSPC, "third key refused");
	SB_CHECK(sb_auth_ring_send_key(&r)->id == 1, "adding does not switch");

	/* Second key of the ring verifies; the key id picks it. */
	sb_auth_hello_mac(&b, msg, sizeof(msg), tag);
	SB_CHECK(sb_auth_hello_verify(&r, 2, msg, sizeof(msg), tag) == 0, "second key verifies");
	SB_CHECK(sb_auth_hello_verify(&r, 1, msg, sizeof(msg), tag) == -EBADMSG,
		"key id mismatch (made with 2, says 1) refused");
	SB_CHECK(sb_auth_hello_verify(&r, 9, msg, sizeof(msg), tag) == -ENOKEY, "unknown id");
	sb_auth_hello_mac(&a, msg, sizeof(msg), tag);
	SB_CHECK(sb_auth_hello_verify(&r, 1, msg, sizeof(msg), tag) == 0, "first key verifies");
	SB_CHECK(sb_auth_hello_verify(&r, 2, msg, sizeof(msg), tag) == -EBADMSG,
		"key id mismatch (made with 1, says 2) refused");

	/* Wrong key under the right id. */
	sb_auth_ring_init(&wrong);
	sb_auth_ring_add(&wrong, &b_as_1);
	SB_CHECK(sb_auth_hello_verify(&wrong, 1, msg, sizeof(msg), tag) == -EBADMSG,
		"wrong secret under the same id refused");

	SB_CHECK(sb_auth_ring_set_send(&r, 7) == -ENOENT, "switch to unknown id");
	SB_CHECK(sb_auth_ring_remove(&r, 7) == -ENOENT, "remove unknown id");
	SB_CHECK(sb_auth_ring_remove(&r, 1) == -EBUSY, "send key cannot be removed");
	SB_CHECK(sb_auth_ring_set_send(&r, 2) == 0 && sb_auth_ring_send_key(&r)->id == 2,
		"switch to 2");
	SB_CHECK(sb_auth_ring_remove(&r, 1) == 0 && r.n_keys == 1, "remove 1");
	SB_CHECK(sb_auth_ring_send_key(&r)->id == 2 &&
		memcmp(sb_auth_ring_send_key(&r)->secret, b.secret, sizeof(b.secret)) == 0,
		"send key kept across the removal");
	SB_CHECK(sodium_is_zero(r.key[1].secret, sizeof(r.key[1].secret)), "slot wiped");
	SB_CHECK(sb_auth_hello_verify(&r, 1, msg, sizeof(msg), tag) == -ENOKEY,
		"removed key refused");
	SB_CHECK(sb_auth_ring_add(&r, &a) == 0 && sb_auth_ring_send_key(&r)->id == 2,
		"re-add does not switch");
}

/* The receiver's key for key id @p id from ring @p r, loaded for @p ids (NULL: not held). */
static struct sb_auth_data_key *
rx_key_for(const struct sb_auth_keyring *r, uint8_t id, const struct sb_auth_dir_ids *ids,
	struct sb_auth_data_key *k)
{
	unsigned int i;

	for (i = 0; i < r->n_keys; i++)
		if (r->key[i].id == id)
			return sb_auth_data_key_set(k, &r->key[i], ids) == 0 ? k : NULL;
	return NULL;
}

/* Two hosts X and Y through the three steps of a rollover: at every point each one's
 * hellos and DATA verify at the other, the DATA frame naming its key id. */
static bool
hosts_agree(const struct sb_auth_keyring *x, const struct sb_auth_keyring *y)
{
	const struct sb_auth_keyring *ring[2] = { x, y };
	uint8_t msg[64], tag[SB_AUTH_HELLO_TAG_LEN], frame[80];
	struct sb_auth_data_key tx, rx, *rk;
	struct sb_auth_seg seg[4];
	unsigned int s, n;
	bool ok = true;

	sb_auth_data_key_init(&tx);
	sb_auth_data_key_init(&rx);
	for (s = 0; s < 2; s++) {
		const struct sb_auth_keyring *snd = ring[s], *rcv = ring[1 - s];
		const struct sb_auth_key *k = sb_auth_ring_send_key(snd);
		struct sb_auth_dir_ids ids = { .tx_host = 10 + s, .rx_host = 11 - s };

		memset(ids.tx_nonce, 0x50 + s, SB_AUTH_NONCE_LEN);
		memset(ids.rx_nonce, 0x51 - s, SB_AUTH_NONCE_LEN);
		memset(msg, 0x11, sizeof(msg));
		msg[0] = k->id;		/* the hello names its key */
		sb_auth_hello_mac(k, msg, sizeof(msg), tag);
		ok = ok && sb_auth_hello_verify(rcv, msg[0], msg, sizeof(msg), tag) == 0;
		ok = sb_auth_data_key_set(&tx, k, &ids) == 0 && ok;
		n = data_frame(&tx, frame, sizeof(frame), 77, seg, 1);
		rk = rx_key_for(rcv, frame[24], &ids, &rx);
		ok = ok && rk != NULL && sb_auth_data_verify(rk, 77, seg, n,
			frame + SB_WIRE_DATA_TAG_OFF) == 0;
	}
	sb_auth_data_key_free(&tx);
	sb_auth_data_key_free(&rx);
	return ok;
}

static void
test_rollover(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1), b = key_of(key_b_hex, 2);
	struct sb_auth_keyring x, y;

	sb_auth_ring_init(&x);
	sb_auth_ring_init(&y);
	sb_auth_ring_add(&x, &a);
	sb_auth_ring_add(&y, &a);
	SB_CHECK(hosts_agree(&x, &y), "before");
	sb_auth_ring_add(&x, &b);
	SB_CHECK(hosts_agree(&x, &y), "step 1 on X only");
	sb_auth_ring_add(&y, &b);
	SB_CHECK(hosts_agree(&x, &y), "step 1 everywhere");
	sb_auth_ring_set_send(&y, 2);
	SB_CHECK(hosts_agree(&x, &y), "step 2 on Y only");
	sb_auth_ring_set_send(&x, 2);
	SB_CHECK(hosts_agree(&x, &y), "step 2 everywhere");
	sb_auth_ring_remove(&x, 1);
	SB_CHECK(hosts_agree(&x, &y), "step 3 on X only");
	sb_auth_ring_remove(&y, 1);
	SB_CHECK(hosts_agree(&x, &y), "step 3 everywhere");
	/* Switching before the other host holds the key breaks: the procedure's order matters. */
	sb_auth_ring_init(&x);
	sb_auth_ring_init(&y);
	sb_auth_ring_add(&x, &a);
	sb_auth_ring_add(&y, &a);
	sb_auth_ring_add(&x, &b);
	sb_auth_ring_set_send(&x, 2);
	SB_CHECK(!hosts_agree(&x, &y), "switching before everyone holds the key fails");
}

/* Replay check: per stream, strictly newer only; restarts and clock steps. */
static void
test_replay(void)
{
	struct sb_auth_replay s[2];
	struct sb_auth_seq tx = { 0 }, tx2 = { 0 };
	uint64_t t0 = 1700000000000000ull, q, prev;
	unsigned int i, up = 0;

	sb_auth_replay_init(&s[0]);
	sb_auth_replay_init(&s[1]);
	SB_CHECK(sb_auth_replay_check(&s[0], 0) == -EINVAL, "sequence 0 invalid");
	SB_CHECK(sb_auth_replay_check(&s[0], 1000) == 0, "first taken");
	SB_CHECK(sb_auth_replay_check(&s[0], 1000) == -ESTALE, "equal refused");
	SB_CHECK(sb_auth_replay_check(&s[0], 999) == -ESTALE, "older refused");
	SB_CHECK(sb_auth_replay_check(&s[0], 1) == -ESTALE, "much older refused");
	SB_CHECK(s[0].rejected == 3 && s[0].rejected_run == 3 && s[0].last_seq == 1000,
		"refusals counted, mark kept");
	SB_CHECK(sb_auth_replay_check(&s[0], 1001) == 0, "newer taken");
	SB_CHECK(s[0].rejected_run == 0 && s[0].rejected == 3 && s[0].accepted == 2,
		"run cleared, total kept");
	/* Streams are independent: another port's older sequence is its own business. */
	SB_CHECK(sb_auth_replay_check(&s[1], 500) == 0, "other port: first taken");
	SB_CHECK(sb_auth_replay_check(&s[1], 501) == 0 && s[0].last_seq == 1001,
		"other port: own mark");
	SB_CHECK(sb_auth_replay_check(&s[0], 1001) == -ESTALE && s[1].rejected == 0,
		"a refusal on one port leaves the other alone");
	SB_CHECK(sb_auth_replay_check(&s[0], UINT64_MAX) == 0 &&
		sb_auth_replay_check(&s[0], UINT64_MAX) == -ESTALE, "top of the range");

	/* Sender: strictly increasing whatever the clock does while it runs. */
	prev = 0;
	for (i = 0; i < 100; i++) {
		uint64_t now = t0 + (i < 50 ? i * 10 : (i - 50) * 10 - 60000000ull);

		q = sb_auth_seq_next(&tx, now);
		up += q > prev;
		prev = q;
	}
	SB_CHECK(up == 100, "strictly increasing across a 60 s step back while running");
	SB_CHECK(sb_auth_seq_next(&tx2, 0) == 1 && sb_auth_seq_next(&tx2, 0) == 2,
		"never 0, +1 when the clock stands");

	/* Receiver across sender restarts. */
	sb_auth_replay_init(&s[0]);
	tx = (struct sb_auth_seq){ 0 };
	SB_CHECK(sb_auth_replay_check(&s[0], sb_auth_seq_next(&tx, t0)) == 0, "run 1 taken");
	SB_CHECK(sb_auth_replay_check(&s[0], sb_auth_seq_next(&tx, t0 + 10000)) == 0,
		"run 1 again");
	tx = (struct sb_auth_seq){ 0 };	/* restart, clock moved on */
	SB_CHECK(sb_auth_replay_check(&s[0], sb_auth_seq_next(&tx, t0 + 2000000)) == 0,
		"restarted sender taken at once");
	tx = (struct sb_auth_seq){ 0 };	/* restart with its clock 5 s behind the last run */
	for (i = 0; i < 10; i++)
		SB_CHECK(sb_auth_replay_check(&s[0],
			sb_auth_seq_next(&tx, t0 - 3000000 + i * 100000ull)) == -ESTALE,
			"clock behind its old run: refused (%u)", i);
	SB_CHECK(s[0].rejected_run == 10, "refusals in a row counted (%u)", s[0].rejected_run);
	SB_CHECK(s[0].last_seq - (t0 - 3000000 + 9 * 100000ull) == 4100000,
		"how far behind: 4.1 s");
	SB_CHECK(sb_auth_replay_check(&s[0], sb_auth_seq_next(&tx, t0 + 2000001)) == 0 &&
		s[0].rejected_run == 0, "taken once past the old mark");
	/* An operator's reset takes a sender whose clock went far back. */
	SB_CHECK(sb_auth_replay_check(&s[0], t0 - 86400000000ull) == -ESTALE, "a day back");
	sb_auth_replay_init(&s[0]);
	SB_CHECK(sb_auth_replay_check(&s[0], t0 - 86400000000ull) == 0, "taken after reset");

	q = sb_auth_clock_us();
	SB_CHECK(q > 1577836800000000ull && q < 4102444800000000ull,
		"realtime clock in us since the epoch: %llu", (unsigned long long)q);
}

/* DATA keys: per direction, per nonce, per cluster key; invalid ids refused. */
static void
test_dir_keys(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1), b = key_of(key_b_hex, 2);
	struct sb_auth_dir_ids base = { .tx_host = 7, .rx_host = 9 }, v[8], bad_ids;
	uint8_t k[9][SB_AUTH_DIR_KEY_LEN], tmp[SB_AUTH_DIR_KEY_LEN], frame[100];
	struct sb_auth_data_key dk[9];
	struct sb_auth_seg seg[2];
	unsigned int i, j, differ = 0, pairs = 0, refused = 0, n;

	memset(base.tx_nonce, 0x11, SB_AUTH_NONCE_LEN);
	memset(base.rx_nonce, 0x22, SB_AUTH_NONCE_LEN);
	for (i = 0; i < ARRAY_LEN(v); i++)
		v[i] = base;
	v[1].tx_host = 9;	/* the other direction */
	v[1].rx_host = 7;
	memcpy(v[1].tx_nonce, base.rx_nonce, SB_AUTH_NONCE_LEN);
	memcpy(v[1].rx_nonce, base.tx_nonce, SB_AUTH_NONCE_LEN);
	v[2].tx_host = 9;	/* hosts swapped alone */
	v[2].rx_host = 7;
	v[3].tx_nonce[15] ^= 1;	/* sender restarted: one bit of its nonce */
	v[4].rx_nonce[0] ^= 0x80;	/* receiver restarted */
	memcpy(v[5].tx_nonce, base.rx_nonce, SB_AUTH_NONCE_LEN);	/* nonces swapped */
	memcpy(v[5].rx_nonce, base.tx_nonce, SB_AUTH_NONCE_LEN);
	v[6].rx_host = 8;	/* another receiver */
	v[7].rx_gen = 1;	/* the receiver forgot a peer: its next generation */
	for (i = 0; i < ARRAY_LEN(v); i++)
		SB_CHECK(sb_auth_dir_derive(&a, &v[i], k[i]) == 0, "derive %u", i);
	SB_CHECK(sb_auth_dir_derive(&b, &base, k[8]) == 0, "derive with b");
	for (i = 0; i < 9; i++)
		for (j = i + 1; j < 9; j++) {
			pairs++;
			differ += memcmp(k[i], k[j], SB_AUTH_DIR_KEY_LEN) != 0;
		}
	SB_CHECK(differ == pairs, "all %u direction keys differ (%u)", pairs, differ);
	SB_CHECK(sb_auth_dir_derive(&a, &base, tmp) == 0 &&
		memcmp(tmp, k[0], sizeof(tmp)) == 0, "deterministic");

	/* A tag from before a restart (or of another direction, or key) does not verify. */
	for (i = 0; i < 9; i++) {
		SB_CHECK(sb_auth_data_key_init(&dk[i]) == 0, "context %u", i);
		SB_CHECK(sb_auth_data_key_set(&dk[i], i == 8 ? &b : &a, i == 8 ? &base : &v[i])
			== 0, "set %u", i);
	}
	n = data_frame(&dk[0], frame, sizeof(frame), 1000, seg, 1);
	for (i = 1; i < 9; i++)
		refused += sb_auth_data_verify(&dk[i], 1000, seg, n,
			frame + SB_WIRE_DATA_TAG_OFF) == -EBADMSG;
	SB_CHECK(refused == 8, "tag refused under every other direction key (%u)", refused);
	for (i = 0; i < 9; i++)
		sb_auth_data_key_free(&dk[i]);

	bad_ids = base;
	bad_ids.tx_host = 0;
	SB_CHECK(sb_auth_dir_derive(&a, &bad_ids, tmp) == -EINVAL, "tx host 0");
	bad_ids = base;
	bad_ids.rx_host = 0;
	SB_CHECK(sb_auth_dir_derive(&a, &bad_ids, tmp) == -EINVAL, "rx host 0");
	bad_ids = base;
	bad_ids.rx_host = 7;
	SB_CHECK(sb_auth_dir_derive(&a, &bad_ids, tmp) == -EINVAL, "same host at both ends");
	SB_CHECK(sb_auth_dir_derive(NULL, &base, tmp) == -EINVAL, "NULL key");
	{
		struct sb_auth_data_key x;

		SB_CHECK(sb_auth_data_key_init(&x) == 0, "context");
		SB_CHECK(sb_auth_data_key_set(&x, &a, &bad_ids) == -EINVAL && !x.set,
			"a refused derivation leaves the key unset");
		sb_auth_data_key_free(&x);
	}
}

/* The window of packet numbers against a model that remembers every number taken: the
 * window refuses what the model says was taken, and what is below it; takes the rest. */
static void
test_pn_window(void)
{
	static uint64_t words[4096 / 64];
	static uint8_t taken[1u << 20];	/* model: offsets from base */
	struct sb_auth_pn_window w;
	uint64_t base = UINT64_C(0xfffc0000), top = 0, pn;
	unsigned int i, wrong = 0, refused_old = 0, dups = 0, fresh = 0;
	bool any = false;
	int rc;

	SB_CHECK(sb_auth_pn_window_init(&w, words, 100) == -EINVAL, "not a power of two");
	SB_CHECK(sb_auth_pn_window_init(&w, words, 32) == -EINVAL, "too small");
	SB_CHECK(sb_auth_pn_window_init(&w, words, 4096) == 0, "4096-number window");
	SB_CHECK(sb_auth_pn_check(&w, 0) == 0 && sb_auth_pn_check(&w, UINT64_MAX) == 0,
		"empty: anything is fresh");
	/* Mostly forwards, reordered within a few hundred, with duplicates and numbers older
	 * than the window, across the 2^32 wrap of the sequence number (base sits below it). */
	srand(7);
	for (i = 0; i < 2000000; i++) {
		uint64_t t = any ? top - base : 0;
		int r = rand() % 16;
		uint64_t off;

		if (r < 10)
			off = t + 1 + (uint64_t)(rand() % 4);		/* ahead */
		else if (r < 13)
			off = t - RTE_MIN(t, (uint64_t)(rand() % 300));	/* reordered, or a copy */
		else if (r < 15)
			off = t - RTE_MIN(t, (uint64_t)(rand() % 4096));	/* late */
		else
			off = t - RTE_MIN(t, 4096 + (uint64_t)(rand() % 5000));	/* too old */
		if (off >= sizeof(taken))
			break;
		pn = base + off;
		rc = sb_auth_pn_check(&w, pn);
		if (taken[off]) {
			wrong += rc == 0;	/* a replay must never pass */
			dups += rc == -EALREADY;
			refused_old += rc == -ESTALE;
		} else if (any && pn < top && top - pn >= 4096) {
			wrong += rc != -ESTALE;	/* below the window: refused */
			refused_old++;
		} else {
			wrong += rc != 0;	/* fresh: taken */
			fresh++;
		}
		if (rc == 0) {
			sb_auth_pn_accept(&w, pn);
			taken[off] = 1;
			if (!any || pn > top)
				top = pn;
			any = true;
		}
	}
	SB_CHECK(wrong == 0, "%u verdicts against the model (fresh %u, duplicates %u, too old "
		"%u)", wrong, fresh, dups, refused_old);
	SB_CHECK(fresh > 10000 && dups > 1000 && refused_old > 1000 && top > (UINT64_C(1) << 32),
		"the run crossed the wrap and saw every case: fresh %u dups %u old %u top %" PRIx64,
		fresh, dups, refused_old, top);
	/* A jump far ahead clears the window; what was below it is too old. */
	pn = top + 100000;
	sb_auth_pn_accept(&w, pn);
	SB_CHECK(sb_auth_pn_check(&w, pn) == -EALREADY && sb_auth_pn_check(&w, pn - 1) == 0 &&
		sb_auth_pn_check(&w, pn - 4095) == 0 && sb_auth_pn_check(&w, pn - 4096) == -ESTALE &&
		sb_auth_pn_check(&w, top) == -ESTALE, "after a jump");
	/* A floor: everything up to it refused, above taken. */
	sb_auth_pn_window_floor(&w, 5000);
	SB_CHECK(sb_auth_pn_check(&w, 5000) == -EALREADY && sb_auth_pn_check(&w, 4000) ==
		-EALREADY && sb_auth_pn_check(&w, 1) == -ESTALE && sb_auth_pn_check(&w, 5001) == 0,
		"floor");
	sb_auth_pn_accept(&w, 5003);
	SB_CHECK(sb_auth_pn_check(&w, 5001) == 0 && sb_auth_pn_check(&w, 5002) == 0 &&
		sb_auth_pn_check(&w, 5003) == -EALREADY && sb_auth_pn_check(&w, 5000) == -EALREADY,
		"floor, then sliding");
	sb_auth_pn_window_reset(&w);
	SB_CHECK(sb_auth_pn_check(&w, 1) == 0, "reset: anything again");
	SB_CHECK(!sb_auth_pn_exhausted(SB_AUTH_PN_HI_MAX) &&
		sb_auth_pn_exhausted(SB_AUTH_PN_HI_MAX + 1), "a sender re-keys at 2^63");
}

/* The budget of hello checks: a burst, then the rate. */
static void
test_bucket(void)
{
	struct sb_auth_bucket b = { 0 };
	uint64_t t = 1000000000, ns;
	unsigned int i, took = 0;

	sb_auth_bucket_set(&b, 200, 64);
	for (i = 0; i < 100; i++)
		took += sb_auth_bucket_take(&b, t);
	SB_CHECK(took == 64, "a full bucket gives its burst: %u", took);
	/* 100 000 tries a second for 10 s: 200 a second pass. */
	took = 0;
	for (ns = 0; ns < UINT64_C(10000000000); ns += 10000)
		took += sb_auth_bucket_take(&b, t + ns);
	SB_CHECK(took >= 1995 && took <= 2001, "10 s at 200/s: %u", took);
	/* Idle a minute: the burst again, not a minute's worth. */
	took = 0;
	for (i = 0; i < 1000; i++)
		took += sb_auth_bucket_take(&b, t + UINT64_C(70000000000));
	SB_CHECK(took == 64, "after a long idle: the burst (%u)", took);
	sb_auth_bucket_set(&b, 200, 10);
	SB_CHECK(b.tokens_ns <= UINT64_C(10) * 1000000000u, "a smaller burst caps what is held");
	/* The clock going back takes nothing and adds nothing. */
	SB_CHECK(!sb_auth_bucket_take(&b, t), "clock back: nothing added");
}

/* Hex parser: what it takes and what it says when it refuses. */
static void
expect_parse_error(const char *hex, const char *needle, const char *what)
{
	struct sb_auth_key k;
	char err[160] = "";
	int rc;

	memset(&k, 0xee, sizeof(k));
	rc = sb_auth_key_parse(hex, 5, &k, err, sizeof(err));
	SB_CHECK(rc == -EINVAL, "%s: rc %d", what, rc);
	SB_CHECK(strstr(err, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, err, needle);
	SB_CHECK(k.id == 0xee && k.secret[0] == 0xee, "%s: key untouched", what);
	if (hex != NULL && strlen(hex) >= 8)
		SB_CHECK(strstr(err, "000102") == NULL && strstr(err, "f0e1") == NULL,
			"%s: no key material in the message", what);
}

static void
test_parse(void)
{
	char s[80];
	struct sb_auth_key k;
	unsigned int i;

	k = key_of(key_a_hex, 4);
	SB_CHECK(k.id == 4, "id kept");
	for (i = 0; i < SB_AUTH_KEY_LEN; i++)
		if (k.secret[i] != i)
			break;
	SB_CHECK(i == SB_AUTH_KEY_LEN, "lower-case bytes decoded");
	k = key_of(key_b_hex, 4);
	SB_CHECK(k.secret[0] == 0xf0 && k.secret[31] == 0x00 && k.secret[8] == 0x78,
		"upper-case bytes decoded");

	snprintf(s, sizeof(s), "%.63s", key_a_hex);
	expect_parse_error(s, "63 hex characters (an odd number)", "63 characters");
	snprintf(s, sizeof(s), "%sa", key_a_hex);
	expect_parse_error(s, "65 hex characters (an odd number)", "65 characters");
	snprintf(s, sizeof(s), "%.62s", key_a_hex);
	expect_parse_error(s, "62 hex characters; it needs exactly 64", "62 characters");
	snprintf(s, sizeof(s), "%s00", key_a_hex);
	expect_parse_error(s, "66 hex characters", "66 characters");
	expect_parse_error("abc", "3 hex characters (an odd number)", "odd length");
	expect_parse_error("", "0 hex characters", "empty");
	expect_parse_error(NULL, "no key given", "NULL");

	snprintf(s, sizeof(s), "%s", key_a_hex);
	s[16] = 'g';
	expect_parse_error(s, "character 17 of the key is not a hex digit", "bad char");
	snprintf(s, sizeof(s), "%s", key_a_hex);
	s[0] = ' ';
	expect_parse_error(s, "character 1 ", "leading space");
	snprintf(s, sizeof(s), "0x%.62s", key_a_hex);
	expect_parse_error(s, "character 2 ", "0x prefix");
	snprintf(s, sizeof(s), "%s", key_a_hex);
	s[63] = '\n';
	expect_parse_error(s, "character 64 ", "trailing newline");
	snprintf(s, sizeof(s), "%.31s %.33s", key_a_hex, key_a_hex + 31);
	expect_parse_error(s, "character 32 ", "space inside (65 characters)");
	memset(s, '0', 64);
	s[64] = '\0';
	expect_parse_error(s, "all zeros", "all zeros");

	SB_CHECK(sb_auth_key_parse("zz", 1, &k, NULL, 0) == -EINVAL, "NULL err buffer");
}

/* A hello signed on the wire (sb_wire_hello_auth_put() + sb_auth_hello_sign()): it checks, a
 * flip of any bit (padding included) does not, and the MAC is the one over the frame with the
 * tag zeroed. */
static void
test_hello_frame(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 7), b = key_of(key_b_hex, 9);
	struct sb_auth_keyring r;
	uint8_t buf[1600], copy[1600], tag[SB_AUTH_HELLO_TAG_LEN], nonce[SB_AUTH_NONCE_LEN];
	size_t len = 0, off = 0, i, bad = 0;
	unsigned int bit, probe;
	struct sb_hello h;
	struct sb_hello_auth t;

	sb_auth_nonce_new(nonce);
	sb_auth_ring_init(&r);
	SB_CHECK(sb_auth_ring_add(&r, &a) == 0, "ring");
	for (probe = 0; probe < 2; probe++) {
		/* make_hello() appends its own model of a trailer: left out here */
		len = make_hello(buf, sizeof(buf), 0, 0, probe ? 1514 : 0) - 9;
		len = sb_wire_hello_auth_put(buf, sizeof(buf), len, a.id, 3, 1000 + probe, nonce,
			&off);
		SB_CHECK(len > 0, "trailer fits");
		SB_CHECK(sb_auth_hello_sign(&a, buf, len, off + SB_HELLO_AUTH_TAG_OFF) == 0,
			"sign");
		SB_CHECK(sb_auth_hello_check(&r, a.id, buf, len, off + SB_HELLO_AUTH_TAG_OFF) ==
			0, "checks");
		SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h) ==
			SB_WIRE_OK && sb_wire_hello_auth_get(buf, len, &h, &t) == SB_WIRE_OK &&
			t.seq == 1000 + probe && t.key_id == a.id &&
			memcmp(t.nonce, nonce, sizeof(nonce)) == 0, "trailer reads back");
		/* The same as sb_auth_hello_mac() over the frame with the tag zeroed. */
		memcpy(copy, buf, len);
		memset(copy + off + SB_HELLO_AUTH_TAG_OFF, 0, SB_AUTH_HELLO_TAG_LEN);
		SB_CHECK(sb_auth_hello_mac(&a, copy, len, tag) == 0 &&
			memcmp(tag, buf + off + SB_HELLO_AUTH_TAG_OFF, sizeof(tag)) == 0,
			"tag = MAC of the frame with the tag zeroed");
		for (i = 0; i < len; i += 7) {
			for (bit = 0; bit < 8; bit += 3) {
				buf[i] ^= (uint8_t)(1u << bit);
				bad += sb_auth_hello_check(&r, a.id, buf, len,
					off + SB_HELLO_AUTH_TAG_OFF) == 0;
				buf[i] ^= (uint8_t)(1u << bit);
			}
		}
		SB_CHECK(bad == 0, "%zu flipped bits went unnoticed", bad);
		/* A probe's padding is covered; a plain hello ends with its tag. */
		SB_CHECK(sb_auth_hello_check(&r, a.id, buf, len - 1, off +
			SB_HELLO_AUTH_TAG_OFF) == (probe ? -EBADMSG : -EINVAL), "cut by one byte");
		SB_CHECK(sb_auth_hello_check(&r, b.id, buf, len, off + SB_HELLO_AUTH_TAG_OFF) ==
			-ENOKEY, "key id not held");
		SB_CHECK(sb_auth_hello_check(&r, a.id, buf, len, len) == -EINVAL,
			"tag outside the frame");
	}
	/* Same id, other secret: a bad tag, not an unknown key. */
	b.id = a.id;
	SB_CHECK(sb_auth_hello_sign(&b, buf, len, off + SB_HELLO_AUTH_TAG_OFF) == 0 &&
		sb_auth_hello_check(&r, a.id, buf, len, off + SB_HELLO_AUTH_TAG_OFF) == -EBADMSG,
		"another secret under the same id");
	sb_auth_wipe(&r, sizeof(r));
}

/* Fingerprints: stable, per key, and frozen (hosts of two versions must agree on key ids). */
static void
test_fingerprint(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 0), b = key_of(key_b_hex, 0);
	uint8_t fa[SB_AUTH_FP_LEN], fa2[SB_AUTH_FP_LEN], fb[SB_AUTH_FP_LEN];
	uint8_t h[16], personal[crypto_generichash_blake2b_PERSONALBYTES] = { 0 };

	sb_auth_key_fingerprint(a.secret, fa);
	sb_auth_key_fingerprint(a.secret, fa2);
	sb_auth_key_fingerprint(b.secret, fb);
	SB_CHECK(memcmp(fa, fa2, sizeof(fa)) == 0, "stable");
	SB_CHECK(memcmp(fa, fb, sizeof(fa)) != 0, "per key");
	memcpy(personal, SB_AUTH_FP_PERSONAL, sizeof(SB_AUTH_FP_PERSONAL));
	crypto_generichash_blake2b_salt_personal(h, sizeof(h), NULL, 0, a.secret,
		sizeof(a.secret), NULL, personal);
	SB_CHECK(memcmp(h, fa, sizeof(fa)) == 0, "the libsodium call the header names");
	SB_CHECK(hex_is(fa, sizeof(fa), FP_A_HEX), "frozen fingerprint of key a");
}

/* The replay table: streams apart, marks kept, a full probe window gives up the least recent. */
static void
test_replay_table(void)
{
	static struct sb_auth_replay_table t;
	struct sb_auth_stream s = { .host_id = 5, .port = 1, .local_port = 2 };
	const struct sb_auth_replay *m;
	unsigned int i, taken = 0;

	memset(&t, 0, sizeof(t));
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 100, &m) == 0 && m->last_seq == 100, "first");
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 100, &m) == -ESTALE && m->rejected_run == 1,
		"same again: a replay");
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 99, NULL) == -ESTALE, "older");
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 101, &m) == 0 && m->rejected_run == 0,
		"newer");
	s.unicast = 1;
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 50, NULL) == 0, "its unicast stream apart");
	s.unicast = 0;
	s.local_port = 3;
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 50, NULL) == 0, "heard on another port apart");
	s.host_id = 0;
	SB_CHECK(sb_auth_replay_table_check(&t, &s, 50, NULL) == -EINVAL, "host id 0");
	/* Every stream of 64 hosts x 16 ports x 2 local ports fits; marks stay. */
	for (i = 0; i < 64 * 16 * 2; i++) {
		s = (struct sb_auth_stream){ .host_id = 1000 + i / 32, .port = i % 16,
			.local_port = (i / 16) % 2 };
		taken += sb_auth_replay_table_check(&t, &s, 10, NULL) == 0;
	}
	SB_CHECK(taken == 64 * 16 * 2, "%u of %u streams taken", taken, 64 * 16 * 2);
	for (i = 0, taken = 0; i < 64 * 16 * 2; i++) {
		s = (struct sb_auth_stream){ .host_id = 1000 + i / 32, .port = i % 16,
			.local_port = (i / 16) % 2 };
		taken += sb_auth_replay_table_check(&t, &s, 10, NULL) == -ESTALE;
	}
	SB_CHECK(taken + t.replaced >= 64 * 16 * 2, "replays refused: %u (%" PRIu64
		" marks given up)", taken, t.replaced);
	SB_CHECK(t.replaced < 64, "few marks given up: %" PRIu64, t.replaced);
}

int
main(void)
{
	SB_CHECK(sb_auth_init() == 0, "libsodium starts");
	SB_CHECK(sb_auth_init() == 0, "second init harmless");
	test_primitives();
	test_constructions();
	test_hello_tamper();
	test_data_tamper();
	test_keys();
	test_rollover();
	test_replay();
	test_dir_keys();
	test_pn_window();
	test_bucket();
	test_parse();
	test_hello_frame();
	test_fingerprint();
	test_replay_table();
	return sb_test_summary("test_auth");
}
