/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster authentication (lib/auth): libsodium's primitives against published vectors, our
 * constructions against direct libsodium calls and frozen vectors (a change of either breaks
 * interworking between versions), tamper detection byte by byte, keys and key ids, a whole
 * rollover between two hosts, the replay check across restarts and clock steps, pair keys
 * per direction and instance, and the hex parser's errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "sb_auth.h"
#include "sb_wire.h"
#include "sb_test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

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
	uint8_t k[crypto_shorthash_siphash24_KEYBYTES], m[15], out[64];
	unsigned int i;

	/* SipHash paper (Aumasson, Bernstein 2012), appendix A: key 00..0f, message 00..0e,
	 * SipHash-2-4 = 0xa129ca6149be45e5, written little-endian. */
	for (i = 0; i < sizeof(k); i++)
		k[i] = (uint8_t)i;
	for (i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)i;
	crypto_shorthash_siphash24(out, m, sizeof(m), k);
	SB_CHECK(hex_is(out, 8, "e545be4961ca29a1"), "SipHash-2-4 paper vector");

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
	struct sb_auth_pair_ids ids = { 0x01020304, 0x05060708, 0x11111111, 0x22222222 };
	struct sb_auth_pair_key pk;
	uint8_t personal[crypto_generichash_blake2b_PERSONALBYTES] = { 0 };
	uint8_t msg[256], tag[SB_AUTH_HELLO_TAG_LEN], want[SB_AUTH_HELLO_TAG_LEN];
	uint8_t frame[SB_HDR_LEN], dtag[SB_AUTH_DATA_TAG_LEN], h[8], m20[20], pmsg[16];
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

	SB_CHECK(sb_auth_pair_derive(&a, &ids, &pk) == 0 && pk.key_id == 1, "pair derive");
	memset(personal, 0, sizeof(personal));
	memcpy(personal, SB_AUTH_PAIR_PERSONAL, sizeof(SB_AUTH_PAIR_PERSONAL));
	memcpy(pmsg, "\x01\x02\x03\x04\x05\x06\x07\x08\x11\x11\x11\x11\x22\x22\x22\x22", 16);
	crypto_generichash_blake2b_salt_personal(want, sizeof(want), pmsg, sizeof(pmsg),
		a.secret, sizeof(a.secret), NULL, personal);
	SB_CHECK(memcmp(pk.key, want, sizeof(pk.key)) == 0, "pair key = keyed BLAKE2b-128");
	SB_CHECK(hex_is(pk.key, sizeof(pk.key), "673174b0af10f110c6f9ba859cbadd06"),
		"pair key frozen vector");

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(0xa0 + i);
	sb_auth_data_tag(&pk, frame, dtag);
	memcpy(m20, frame, 12);
	memcpy(m20 + 12, frame + 14, 8);
	crypto_shorthash_siphash24(h, m20, sizeof(m20), pk.key);
	SB_CHECK(memcmp(dtag, h, SB_AUTH_DATA_TAG_LEN) == 0, "DATA tag = SipHash-2-4 prefix");
	SB_CHECK(hex_is(dtag, sizeof(dtag), "6c664dbd"), "DATA tag frozen vector");
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

/* MACs and shim covered byte by byte; the EtherType, which the parser pins, is not. */
static void
test_data_tamper(void)
{
	static const uint8_t dst[] = { 0x02, 0xbb, 0xbb, 0xbb, 0xbb, 0x02 };
	static const uint8_t src[] = { 0x02, 0xaa, 0xaa, 0xaa, 0xaa, 0x02 };
	struct sb_shim shim = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED, .path = 2,
		.path_seq = 5, .seq = 0x01020304 };
	struct sb_auth_key a = key_of(key_a_hex, 1);
	struct sb_auth_pair_ids ids = { 7, 9, 100, 200 };
	struct sb_auth_pair_key pk;
	uint8_t frame[SB_HDR_LEN], tag[SB_AUTH_DATA_TAG_LEN];
	unsigned int bad = 0, covered = 0, bit;
	size_t i;

	SB_CHECK(sb_auth_pair_derive(&a, &ids, &pk) == 0, "derive");
	sb_wire_put_hdr(frame, dst, src, &shim);
	sb_auth_data_tag(&pk, frame, tag);
	SB_CHECK(sb_auth_data_verify(&pk, 1, frame, tag) == 0, "intact verifies");
	for (i = 0; i < sizeof(frame); i++) {
		if (i == 12 || i == 13)
			continue;
		covered++;
		for (bit = 0; bit < 8; bit++) {
			frame[i] ^= (uint8_t)(1u << bit);
			bad += sb_auth_data_verify(&pk, 1, frame, tag) == -EBADMSG;
			frame[i] ^= (uint8_t)(1u << bit);
		}
	}
	SB_CHECK(covered == SB_AUTH_DATA_MSG_LEN && bad == 8 * covered,
		"%u of %u bit flips in MACs and shim refused", bad, 8 * covered);
	frame[12] ^= 0xff;
	SB_CHECK(sb_auth_data_verify(&pk, 1, frame, tag) == 0, "EtherType not covered");
	frame[12] ^= 0xff;
	bad = 0;
	for (i = 0; i < sizeof(tag); i++) {
		tag[i] ^= 0x01;
		bad += sb_auth_data_verify(&pk, 1, frame, tag) == -EBADMSG;
		tag[i] ^= 0x01;
	}
	SB_CHECK(bad == sizeof(tag), "every tag byte checked");
	SB_CHECK(sb_auth_data_verify(&pk, 0, frame, tag) == -EBADMSG, "no keys: refused");
	/* Each sequence number gets its own tag. */
	bad = 0;
	for (i = 1; i <= 1000; i++) {
		uint8_t t2[SB_AUTH_DATA_TAG_LEN];

		shim.seq = 0x01020304 + (uint32_t)i;
		sb_wire_put_hdr(frame, dst, src, &shim);
		sb_auth_data_tag(&pk, frame, t2);
		bad += sb_auth_data_verify(&pk, 1, frame, tag) == -EBADMSG;
		bad += sb_auth_data_verify(&pk, 1, frame, t2) == 0;
	}
	SB_CHECK(bad == 2000, "old tag refused and own tag taken for 1000 sequences (%u)", bad);
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

/* Two hosts X and Y through the three steps of a rollover: at every point each one's
 * hellos and DATA verify at the other. */
static bool
hosts_agree(const struct sb_auth_keyring *x, const struct sb_auth_keyring *y)
{
	const struct sb_auth_keyring *ring[2] = { x, y };
	uint8_t msg[64], tag[SB_AUTH_HELLO_TAG_LEN], frame[SB_HDR_LEN];
	uint8_t dtag[SB_AUTH_DATA_TAG_LEN];
	struct sb_auth_pair_key tx[SB_AUTH_RING_MAX], rx[SB_AUTH_RING_MAX];
	unsigned int s;
	bool ok = true;

	memset(frame, 0x33, sizeof(frame));
	for (s = 0; s < 2; s++) {
		const struct sb_auth_keyring *snd = ring[s], *rcv = ring[1 - s];
		const struct sb_auth_key *k = sb_auth_ring_send_key(snd);
		struct sb_auth_pair_ids ids = { 10 + s, 11 - s, 500 + s, 501 - s };
		int n_tx = sb_auth_pair_derive_ring(snd, &ids, tx);
		int n_rx = sb_auth_pair_derive_ring(rcv, &ids, rx);

		memset(msg, 0x11, sizeof(msg));
		msg[0] = k->id;		/* the hello names its key */
		sb_auth_hello_mac(k, msg, sizeof(msg), tag);
		ok = ok && sb_auth_hello_verify(rcv, msg[0], msg, sizeof(msg), tag) == 0;
		ok = ok && n_tx >= 1 && n_rx >= 1 && tx[0].key_id == k->id;
		sb_auth_data_tag(&tx[0], frame, dtag);
		ok = ok && sb_auth_data_verify(rx, (unsigned int)n_rx, frame, dtag) >= 0;
	}
	return ok;
}

static void
test_rollover(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1), b = key_of(key_b_hex, 2);
	struct sb_auth_keyring x, y;
	struct sb_auth_pair_ids ids = { 1, 2, 3, 4 };
	struct sb_auth_pair_key pk[SB_AUTH_RING_MAX];
	uint8_t frame[SB_HDR_LEN] = { 0 }, dtag[SB_AUTH_DATA_TAG_LEN];

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

	/* The send key's pair key comes first; the other ring key's second. */
	SB_CHECK(sb_auth_pair_derive_ring(&x, &ids, pk) == 2 && pk[0].key_id == 2 &&
		pk[1].key_id == 1, "derive_ring: send key first");
	sb_auth_data_tag(&pk[1], frame, dtag);
	SB_CHECK(sb_auth_data_verify(pk, 2, frame, dtag) == 1, "old key's DATA tag: index 1");
	sb_auth_ring_init(&y);
	SB_CHECK(sb_auth_pair_derive_ring(&y, &ids, pk) == 0, "empty ring derives nothing");
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

/* DATA keys: per direction, per instance, per cluster key; invalid ids refused. */
static void
test_pair_keys(void)
{
	struct sb_auth_key a = key_of(key_a_hex, 1), b = key_of(key_b_hex, 2);
	struct sb_auth_pair_ids base = { 7, 9, 100, 200 };
	struct sb_auth_pair_ids v[] = {
		base,
		{ 9, 7, 200, 100 },	/* the other direction */
		{ 9, 7, 100, 200 },	/* hosts swapped alone */
		{ 7, 9, 101, 200 },	/* sender restarted */
		{ 7, 9, 100, 201 },	/* receiver restarted */
		{ 7, 9, 200, 100 },	/* instances swapped */
		{ 7, 8, 100, 200 },	/* another receiver */
	};
	struct sb_auth_pair_key k[ARRAY_LEN(v) + 1], tmp;
	uint8_t frame[SB_HDR_LEN], tag[SB_AUTH_DATA_TAG_LEN];
	unsigned int i, j, differ = 0, pairs = 0, refused = 0;

	for (i = 0; i < ARRAY_LEN(v); i++)
		SB_CHECK(sb_auth_pair_derive(&a, &v[i], &k[i]) == 0, "derive %u", i);
	SB_CHECK(sb_auth_pair_derive(&b, &base, &k[ARRAY_LEN(v)]) == 0, "derive with b");
	for (i = 0; i < ARRAY_LEN(k); i++)
		for (j = i + 1; j < ARRAY_LEN(k); j++) {
			pairs++;
			differ += memcmp(k[i].key, k[j].key, sizeof(k[i].key)) != 0;
		}
	SB_CHECK(differ == pairs, "all %u pair keys differ (%u)", pairs, differ);
	SB_CHECK(sb_auth_pair_derive(&a, &base, &tmp) == 0 &&
		memcmp(tmp.key, k[0].key, sizeof(tmp.key)) == 0, "deterministic");

	/* A tag from before a restart does not verify after it. */
	memset(frame, 0x42, sizeof(frame));
	sb_auth_data_tag(&k[0], frame, tag);
	for (i = 1; i < ARRAY_LEN(k); i++)
		refused += sb_auth_data_verify(&k[i], 1, frame, tag) == -EBADMSG;
	SB_CHECK(refused == ARRAY_LEN(k) - 1, "tag refused under every other pair key");

	SB_CHECK(sb_auth_pair_derive(&a, &(struct sb_auth_pair_ids){ 0, 9, 1, 2 }, &tmp) ==
		-EINVAL, "tx host 0");
	SB_CHECK(sb_auth_pair_derive(&a, &(struct sb_auth_pair_ids){ 7, 0, 1, 2 }, &tmp) ==
		-EINVAL, "rx host 0");
	SB_CHECK(sb_auth_pair_derive(&a, &(struct sb_auth_pair_ids){ 7, 7, 1, 2 }, &tmp) ==
		-EINVAL, "same host at both ends");
	SB_CHECK(sb_auth_pair_derive(NULL, &base, &tmp) == -EINVAL, "NULL key");
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
	uint8_t buf[1600], copy[1600], tag[SB_AUTH_HELLO_TAG_LEN];
	size_t len = 0, off = 0, i, bad = 0;
	unsigned int bit, probe;
	struct sb_hello h;
	struct sb_hello_auth t;

	sb_auth_ring_init(&r);
	SB_CHECK(sb_auth_ring_add(&r, &a) == 0, "ring");
	for (probe = 0; probe < 2; probe++) {
		/* make_hello() appends its own model of a trailer: left out here */
		len = make_hello(buf, sizeof(buf), 0, 0, probe ? 1514 : 0) - 9;
		len = sb_wire_hello_auth_put(buf, sizeof(buf), len, a.id, 1000 + probe, &off);
		SB_CHECK(len > 0, "trailer fits");
		SB_CHECK(sb_auth_hello_sign(&a, buf, len, off + SB_HELLO_AUTH_TAG_OFF) == 0,
			"sign");
		SB_CHECK(sb_auth_hello_check(&r, a.id, buf, len, off + SB_HELLO_AUTH_TAG_OFF) ==
			0, "checks");
		SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h) ==
			SB_WIRE_OK && sb_wire_hello_auth_get(buf, len, &h, &t) == SB_WIRE_OK &&
			t.seq == 1000 + probe && t.key_id == a.id, "trailer reads back");
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
	test_pair_keys();
	test_parse();
	test_hello_frame();
	test_fingerprint();
	test_replay_table();
	return sb_test_summary("test_auth");
}
