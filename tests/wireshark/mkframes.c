/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Valid frames for the dissector test, made as the datapath makes them: lib/wire's encoder
 * (sb_wire_put_hello(), sb_wire_hello_auth_put(), sb_wire_put_hdr(), sb_wire_put_data_auth())
 * and lib/auth's tags (sb_auth_hello_sign(); sb_auth_data_mac() under a direction key over
 * the frame's first 30 bytes, then bytes 46..length-1), and what tshark must show of each.
 *
 * Usage: mkframes OUT.pcap EXPECT.json
 *
 * EXPECT.json: {"frames": [{"n": N, "what": TEXT, "info": TEXT, "fields": {FIELD: [VALUE...]}}]}:
 * for each frame, every occurrence of each listed field in order (an empty list: the field
 * must not be there), numbers as numbers and bytes as lower-case hex; "info" must appear in
 * the Info column. test_dissector.sh compares them with `tshark -T fields`.
 *
 * The first hello and the first DATA frame are malformed_pcap.py's hello_auth() and
 * data_elided(flags=3) with their defaults, tags apart: that script checks that its encoder
 * still makes these bytes, then cuts and mutates every frame of this pcap.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_auth.h"
#include "sb_wire.h"

#define KEY_ID 0x26
/* Key generations, not 0 (a host's first): the sender's in hellos, the receiver's in DATA. */
#define HELLO_GEN 3
#define DATA_GEN 0xc1
/* Not a real cluster's: the test's own. */
static const char key_hex[] =
	"7365717a626f6e64206469737365637420746573742c206e6f742061206b6579";

static const uint8_t port_mac[6] = { 0x02, 0x53, 0x42, 0xaa, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x53, 0x42, 0xbb, 0x00, 0x01 };
static const uint8_t group_mac[6] = SB_HELLO_MAC;
static const uint8_t agg_mac[6] = { 0x02, 0x53, 0x42, 0x00, 0x00, 0x01 };

static struct sb_auth_key key;
static FILE *pcap, *json;
static unsigned int n_frames;
static bool first_field;

static void
die(const char *what)
{
	fprintf(stderr, "mkframes: %s\n", what);
	exit(1);
}

/* Start frame @p f (@p len bytes) in the pcap and its entry in the JSON; @p info (printf
 * format) is what its Info column must contain. */
static void __attribute__((format(printf, 4, 5)))
frame(const uint8_t *f, size_t len, const char *what, const char *info, ...)
{
	uint32_t rec[4] = { 1700000000u + n_frames, 0, (uint32_t)len, (uint32_t)len };
	char s[160];
	va_list ap;

	va_start(ap, info);
	vsnprintf(s, sizeof(s), info, ap);
	va_end(ap);
	if (fwrite(rec, sizeof(rec), 1, pcap) != 1 || fwrite(f, 1, len, pcap) != len)
		die("cannot write the pcap");
	fprintf(json, "%s\n  {\"n\": %u, \"what\": \"%s\", \"info\": \"%s\", \"fields\": {",
		n_frames ? "," : "", n_frames + 1, what, s);
	n_frames++;
	first_field = true;
}

static void
frame_end(void)
{
	fprintf(json, "}}");
}

/* One field: @p n numbers. */
static void
nums(const char *name, unsigned int n, ...)
{
	va_list ap;
	unsigned int i;

	va_start(ap, n);
	fprintf(json, "%s\"%s\": [", first_field ? "" : ", ", name);
	for (i = 0; i < n; i++)
		fprintf(json, "%s%llu", i ? ", " : "", (unsigned long long)va_arg(ap, uint64_t));
	fprintf(json, "]");
	va_end(ap);
	first_field = false;
}

/* One field: one byte string. */
static void
bytes(const char *name, const uint8_t *p, size_t len)
{
	size_t i;

	fprintf(json, "%s\"%s\": [\"", first_field ? "" : ", ", name);
	for (i = 0; i < len; i++)
		fprintf(json, "%02x", p[i]);
	fprintf(json, "\"]");
	first_field = false;
}

/* One field: one string (an address, as tshark prints it). */
static void
text(const char *name, const char *s)
{
	fprintf(json, "%s\"%s\": [\"%s\"]", first_field ? "" : ", ", name, s);
	first_field = false;
}

static void
absent(const char *name)
{
	fprintf(json, "%s\"%s\": []", first_field ? "" : ", ", name);
	first_field = false;
}

/* malformed_pcap.py's hello_body() defaults; @p n entries of @p e. */
static struct sb_hello
hello_defaults(uint8_t flags, uint16_t n)
{
	struct sb_hello h = {
		.host_id = 1, .instance = 0x6B2CFC73, .port_index = 0, .n_ports = 4,
		.rate_kbps = 100000, .interval_ms = 10, .mtu = 1500, .multiplier = 4,
		.flags = flags, .probe_interval_ms = 200, .hello_seq = 9, .tx_time_us = 123456,
		.n_entries = n,
	};

	memcpy(h.agg_mac, agg_mac, 6);
	return h;
}

/* malformed_pcap.py's entry(): host 2, port @p port, flags @p flags (+ key id). */
static struct sb_hello_entry
entry(uint8_t port, uint8_t flags, uint8_t key_id)
{
	return (struct sb_hello_entry){ .host_id = 2, .port = port, .flags = flags,
		.key_id = key_id, .rx_frames = 1000, .lost_frames = 0, .rate_kbps = 99000,
		.owd_min_us = 120, .owd_us = 150 };
}

/* An authenticated hello of key generation @p gen: encoder, trailer, tag. @return its
 * length. */
static size_t
hello_auth(uint8_t *f, size_t room, const struct sb_hello *h, const struct sb_hello_entry *e,
	size_t pad_to, uint8_t gen, uint64_t cseq, const uint8_t *nonce, size_t *toff)
{
	size_t len = sb_wire_put_hello(f, room, group_mac, port_mac, 0, h, e, pad_to);

	if (len == 0)
		die("hello does not fit");
	len = sb_wire_hello_auth_put(f, room, len, KEY_ID, gen, cseq, nonce, toff);
	if (len == 0 || sb_auth_hello_sign(&key, f, len, *toff + SB_HELLO_AUTH_TAG_OFF) != 0)
		die("hello trailer");
	return len;
}

/* The hello frames. */
static void
hellos(void)
{
	static const uint8_t nonce[SB_AUTH_NONCE_LEN] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
		0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf };
	const uint64_t cseq = UINT64_C(1796490793120969);
	struct sb_hello_entry e[2] = { entry(0, 3, 0), entry(1, 7, 0x26) };
	struct sb_hello h = hello_defaults(0, 2);
	uint8_t f[1600];
	size_t len, toff;

	/* 1. malformed_pcap.py's hello_auth(): entries without and with the key id. */
	len = hello_auth(f, sizeof(f), &h, e, 0, HELLO_GEN, cseq, nonce, &toff);
	frame(f, len, "hello, authenticated, entry key id", "seqbond HELLO host 1 port 0/4, "
		"2 heard, authenticated");
	nums("seqbond.version", 1, (uint64_t)4);
	nums("seqbond.flags.auth", 1, (uint64_t)1);
	nums("seqbond.hello.n_entries", 1, (uint64_t)2);
	nums("seqbond.entry.flags", 2, (uint64_t)3, (uint64_t)7);
	nums("seqbond.entry.key", 2, (uint64_t)0, (uint64_t)1);
	nums("seqbond.entry.key_id", 1, (uint64_t)0x26);
	nums("seqbond.auth.key_id", 1, (uint64_t)KEY_ID);
	nums("seqbond.auth.gen", 1, (uint64_t)HELLO_GEN);
	nums("seqbond.auth.trailer_reserved", 1, (uint64_t)0);
	nums("seqbond.auth.seq", 1, cseq);
	bytes("seqbond.auth.nonce", nonce, sizeof(nonce));
	bytes("seqbond.auth.tag", f + toff + SB_HELLO_AUTH_TAG_OFF, SB_AUTH_HELLO_TAG_LEN);
	absent("seqbond.tag");
	absent("seqbond.auth.pn");
	frame_end();

	/* 2. Brief entries, both with a key id (the second of another key, mid-rollover). */
	e[0] = entry(0, SB_ENTRY_F_MTU_OK | SB_ENTRY_F_KEY, 0x26);
	e[1] = entry(1, SB_ENTRY_F_KEY, 0x9c);
	h = hello_defaults(SB_HELLO_F_BRIEF, 2);
	len = hello_auth(f, sizeof(f), &h, e, 0, HELLO_GEN, cseq + 1, nonce, &toff);
	if (len != SB_HDR_LEN + SB_HELLO_LEN + 2 * SB_HELLO_BRIEF_LEN + SB_HELLO_AUTH_LEN)
		die("brief hello length");
	frame(f, len, "brief hello, authenticated, entry key ids", "2 heard, authenticated");
	nums("seqbond.hello.flags.brief", 1, (uint64_t)1);
	nums("seqbond.entry.key", 2, (uint64_t)1, (uint64_t)1);
	nums("seqbond.entry.key_id", 2, (uint64_t)0x26, (uint64_t)0x9c);
	nums("seqbond.entry.rx_frames", 0);
	nums("seqbond.auth.gen", 1, (uint64_t)HELLO_GEN);
	nums("seqbond.auth.seq", 1, cseq + 1);
	bytes("seqbond.auth.nonce", nonce, sizeof(nonce));
	bytes("seqbond.auth.tag", f + toff + SB_HELLO_AUTH_TAG_OFF, SB_AUTH_HELLO_TAG_LEN);
	frame_end();

	/* 3. A probe: the trailer takes the first 44 bytes of its padding; the highest
	 * generation (255: the next is 0). */
	h = hello_defaults(SB_HELLO_F_PROBE, 1);
	len = hello_auth(f, sizeof(f), &h, e, 300, 255, cseq + 2, nonce, &toff);
	if (len != 300 || toff != SB_HDR_LEN + SB_HELLO_LEN + SB_HELLO_ENTRY_LEN)
		die("probe length");
	frame(f, len, "probe, authenticated", "seqbond HELLO (probe) host 1 port 0/4, 1 heard, "
		"authenticated");
	nums("seqbond.entry.key_id", 1, (uint64_t)0x26);
	nums("seqbond.auth.gen", 1, (uint64_t)255);
	nums("seqbond.auth.trailer_reserved", 1, (uint64_t)0);
	nums("seqbond.auth.seq", 1, cseq + 2);
	bytes("seqbond.auth.tag", f + toff + SB_HELLO_AUTH_TAG_OFF, SB_AUTH_HELLO_TAG_LEN);
	frame_end();

	/* 4. No key: no trailer, and entries without key ids. */
	e[0] = entry(0, 3, 0);
	h = hello_defaults(0, 1);
	len = sb_wire_put_hello(f, sizeof(f), group_mac, port_mac, 0, &h, e, 0);
	frame(f, len, "hello, no key", "seqbond HELLO host 1 port 0/4, 1 heard");
	nums("seqbond.flags.auth", 1, (uint64_t)0);
	nums("seqbond.entry.key", 1, (uint64_t)0);
	absent("seqbond.entry.key_id");
	absent("seqbond.auth.nonce");
	absent("seqbond.auth.key_id");
	absent("seqbond.auth.gen");
	frame_end();
}

/* malformed_pcap.py's ipv4_tcp(): 10.99.0.1:40000 -> 10.99.0.2:5201, SYN. */
static size_t
ipv4_tcp(uint8_t *p)
{
	static const uint8_t pkt[40] = {
		0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 99, 0, 1, 10, 99, 0, 2,
		0x9c, 0x40, 0x14, 0x51, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xfa, 0xf0, 0, 0, 0, 0,
	};

	memcpy(p, pkt, sizeof(pkt));
	return sizeof(pkt);
}

/* An ARP request from 10.99.0.1 for 10.99.0.2 (28 bytes). */
static size_t
arp(uint8_t *p)
{
	static const uint8_t pkt[28] = {
		0, 1, 8, 0, 6, 4, 0, 1, 0x02, 0x53, 0x42, 0xaa, 0x00, 0x01, 10, 99, 0, 1,
		0, 0, 0, 0, 0, 0, 10, 99, 0, 2,
	};

	memcpy(p, pkt, sizeof(pkt));
	return sizeof(pkt);
}

/*
 * A DATA frame as sb_dp_tx.c sends it with a key: inner frame at SB_WIRE_DATA_AUTH_INNER,
 * outer header and shim, then the authentication header (its length = @p len, the
 * receiver's generation DATA_GEN, which @p k was made for) and the tag under @p k over bytes
 * 0..29 and 46..len-1, packet number pn_hi << 32 | seq.
 */
static void
data_tag(struct sb_auth_data_key *k, uint8_t *f, size_t len, const struct sb_shim *s,
	uint32_t pn_hi)
{
	struct sb_auth_seg seg[2] = {
		{ f, SB_WIRE_DATA_TAG_OFF },
		{ f + SB_WIRE_DATA_AUTH_INNER, len - SB_WIRE_DATA_AUTH_INNER },
	};

	sb_wire_put_hdr(f, peer_mac, port_mac, s);
	sb_wire_put_data_auth(f, (uint16_t)len, k->key_id, DATA_GEN, pn_hi);
	if (sb_auth_data_mac(k, (uint64_t)pn_hi << 32 | s->seq, seg, 2,
			f + SB_WIRE_DATA_TAG_OFF) != 0)
		die("DATA tag");
}

/* The authentication header's fields of frame @p f (length @p len). */
static void
data_auth_fields(const uint8_t *f, size_t len, uint32_t pn_hi, uint32_t seq)
{
	nums("seqbond.auth.len", 1, (uint64_t)len);
	nums("seqbond.auth.key_id", 1, (uint64_t)KEY_ID);
	nums("seqbond.auth.gen", 1, (uint64_t)DATA_GEN);
	nums("seqbond.auth.pn_hi", 1, (uint64_t)pn_hi);
	nums("seqbond.auth.pn", 1, (uint64_t)pn_hi << 32 | seq);
	nums("seqbond.seq", 1, (uint64_t)seq);
	bytes("seqbond.tag", f + SB_WIRE_DATA_TAG_OFF, SB_AUTH_DATA_TAG_LEN);
}

static void
datas(void)
{
	struct sb_auth_dir_ids ids = { .tx_host = 1, .rx_host = 2, .rx_gen = DATA_GEN };
	struct sb_auth_data_key k;
	struct sb_shim s = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED | SB_WIRE_F_AUTH,
		.path = 2, .path_seq = 0, .seq = 3112703338u };
	uint8_t f[256] = { 0 };
	size_t len, o = SB_WIRE_DATA_AUTH_INNER;

	memset(ids.tx_nonce, 0xa5, sizeof(ids.tx_nonce));
	memset(ids.rx_nonce, 0x5a, sizeof(ids.rx_nonce));
	if (sb_auth_data_key_init(&k) != 0 || sb_auth_data_key_set(&k, &key, &ids) != 0)
		die("direction key");

	/* 5. malformed_pcap.py's data_elided(flags=3): IPv4/TCP, packet number 7:seq. */
	f[o] = 0x08;
	f[o + 1] = 0x00;
	len = o + 2 + ipv4_tcp(f + o + 2);
	data_tag(&k, f, len, &s, 7);
	frame(f, len, "DATA, elided, authenticated", "[seqbond DATA path 2 seq %u pn %llu]",
		s.seq, (unsigned long long)(UINT64_C(7) << 32 | s.seq));
	nums("seqbond.flags.elided", 1, (uint64_t)1);
	nums("seqbond.flags.auth", 1, (uint64_t)1);
	data_auth_fields(f, len, 7, s.seq);
	nums("seqbond.inner_type", 1, (uint64_t)0x0800);
	text("ip.src", "10.99.0.1");
	nums("tcp.dstport", 1, (uint64_t)5201);
	absent("seqbond.padding");
	frame_end();

	/* 6. Across the 2^32 wrap: PN high 1 and the sequence number 0xfffffffe... */
	s.seq = 0xfffffffeu;
	s.path_seq = 1;
	data_tag(&k, f, len, &s, 1);
	frame(f, len, "DATA, packet number above 2^32", "seq %u pn %llu]", s.seq,
		(unsigned long long)(UINT64_C(1) << 32 | s.seq));
	data_auth_fields(f, len, 1, s.seq);
	frame_end();
	/* ... and a PN high of 2^32 - 1, which prints above 2^63. */
	s.seq = 5;
	data_tag(&k, f, len, &s, UINT32_MAX);
	frame(f, len, "DATA, highest PN high", "seq 5 pn %llu]",
		(unsigned long long)((uint64_t)UINT32_MAX << 32 | 5));
	data_auth_fields(f, len, UINT32_MAX, s.seq);
	frame_end();

	/* 8. A short frame Ethernet padded to 60 bytes: an elided ARP reply (76 bytes) fits,
	 * so take an elided 2-byte payload: the length stops before the padding. */
	memset(f, 0, sizeof(f));
	s.seq = 41;
	f[o] = 0x88;		/* an EtherType no dissector claims: its payload, 2 bytes */
	f[o + 1] = 0xb6;
	f[o + 2] = 0xde;
	f[o + 3] = 0xad;
	len = o + 4;
	data_tag(&k, f, len, &s, 0);
	if (len >= 60)
		die("padded frame");
	frame(f, 60, "DATA, authenticated, Ethernet padding after the length",
		"seqbond DATA path 2 seq 41 pn 41");
	data_auth_fields(f, len, 0, 41);
	nums("seqbond.inner_type", 1, (uint64_t)0x88b6);
	nums("data.len", 1, (uint64_t)2);	/* the padding is not the inner frame's */
	{
		static const uint8_t zeros[16];

		bytes("seqbond.padding", zeros, 60 - len);
	}
	frame_end();

	/* 9. The whole inner frame (a broadcast ARP, flooded): not elided. */
	memset(f, 0, sizeof(f));
	s.flags = SB_WIRE_F_AUTH;
	s.seq = 77;
	memset(f + o, 0xff, 6);
	memcpy(f + o + 6, port_mac, 6);
	f[o + 12] = 0x08;
	f[o + 13] = 0x06;
	len = o + 14 + arp(f + o + 14);
	data_tag(&k, f, len, &s, 3);
	frame(f, len, "DATA, whole inner frame, authenticated",
		"[seqbond DATA path 2 seq 77 pn %llu]", (unsigned long long)(UINT64_C(3) << 32 | 77));
	nums("seqbond.flags.elided", 1, (uint64_t)0);
	data_auth_fields(f, len, 3, 77);
	absent("seqbond.inner_type");
	nums("arp.opcode", 1, (uint64_t)1);
	text("arp.dst.proto_ipv4", "10.99.0.2");
	frame_end();

	/* 10. No key: the inner EtherType right after the shim (offset 22). */
	memset(f, 0, sizeof(f));
	s.flags = SB_WIRE_F_ELIDED;
	s.path_seq = 0;
	s.seq = 1;
	sb_wire_put_hdr(f, peer_mac, port_mac, &s);
	f[SB_HDR_LEN] = 0x08;
	len = SB_HDR_LEN + 2 + ipv4_tcp(f + SB_HDR_LEN + 2);
	frame(f, len, "DATA, no key", "[seqbond DATA path 2 seq 1]");
	nums("seqbond.flags.auth", 1, (uint64_t)0);
	nums("seqbond.inner_type", 1, (uint64_t)0x0800);
	text("ip.dst", "10.99.0.2");
	absent("seqbond.auth.len");
	absent("seqbond.auth.gen");
	absent("seqbond.auth.pn");
	absent("seqbond.tag");
	frame_end();

	sb_auth_data_key_free(&k);
}

/* Frames of other versions: the version alone, nothing mis-decoded. */
static void
versions(void)
{
	struct sb_shim s = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED | SB_WIRE_F_AUTH,
		.path = 2, .path_seq = 5, .seq = 0x01020304 };
	uint8_t f[80] = { 0 };
	unsigned int v;

	/* Version 3's DATA frame with its 4-byte tag; version 5 (unknown). */
	for (v = 3; v <= 5; v += 2) {
		sb_wire_put_hdr(f, peer_mac, port_mac, &s);
		f[SB_ETH_HLEN] = (uint8_t)(v << 4 | SB_WIRE_DATA);
		frame(f, 64, v == 3 ? "version 3 DATA" : "version 5",
			"seqbond version %u (this dissector decodes version %u)", v, SB_WIRE_VERSION);
		nums("seqbond.version", 1, (uint64_t)v);
		absent("seqbond.type");
		absent("seqbond.seq");
		absent("seqbond.path");
		absent("seqbond.auth.len");
		absent("seqbond.inner_type");
		frame_end();
	}
}

int
main(int argc, char **argv)
{
	static const uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	char err[128];

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUT.pcap EXPECT.json\n", argv[0]);
		return 2;
	}
	if (sb_auth_init() != 0 || sb_auth_key_parse(key_hex, KEY_ID, &key, err,
			sizeof(err)) != 0)
		die("cluster key");
	pcap = fopen(argv[1], "wb");
	json = fopen(argv[2], "w");
	if (pcap == NULL || json == NULL)
		die("cannot open the outputs");
	if (fwrite(hdr, sizeof(hdr), 1, pcap) != 1)
		die("cannot write the pcap");
	fprintf(json, "{\"frames\": [");
	hellos();
	datas();
	versions();
	fprintf(json, "\n]}\n");
	if (fclose(pcap) != 0 || fclose(json) != 0)
		die("cannot write the outputs");
	return 0;
}
