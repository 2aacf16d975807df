/* SPDX-License-Identifier: BSD-3-Clause */
/* Shim encode/decode round trips and rejection of malformed frames. */
#include <stdlib.h>
#include <string.h>

#include "sb_test.h"
#include "sb_wire.h"

static const uint8_t dst[6] = { 0x02, 0x53, 0x42, 0, 0, 2 };
static const uint8_t src[6] = { 0x02, 0x53, 0x42, 0, 0, 1 };

static void
test_data_round_trip(void)
{
	static const uint32_t seqs[] = { 0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
	uint8_t buf[64];
	unsigned int i, flags;

	for (flags = 0; flags <= SB_WIRE_F_MASK; flags++) {
		for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
			struct sb_shim in = { .type = SB_WIRE_DATA, .flags = flags, .path = i,
				.path_seq = (uint8_t)(250 + i), .seq = seqs[i] }, out;
			size_t off = 0;

			memset(buf, 0xee, sizeof(buf));
			sb_wire_put_hdr(buf, dst, src, &in);
			SB_CHECK(buf[12] == 0x88 && buf[13] == 0xb5, "ethertype %02x%02x", buf[12],
				buf[13]);
			SB_CHECK(buf[14] == 0x40, "version/type byte %02x", buf[14]);
			SB_CHECK(buf[17] == (uint8_t)(250 + i), "path sequence byte %02x", buf[17]);
			SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_OK,
				"parse seq %u", seqs[i]);
			SB_CHECK(out.type == in.type && out.flags == in.flags &&
				out.path == in.path && out.path_seq == in.path_seq &&
				out.seq == in.seq, "fields seq %u", seqs[i]);
			SB_CHECK(off == ((flags & SB_WIRE_F_AUTH) ? (size_t)
				SB_WIRE_DATA_AUTH_INNER : SB_HDR_LEN), "inner offset %zu", off);
			SB_CHECK(memcmp(buf, dst, 6) == 0 && memcmp(buf + 6, src, 6) == 0,
				"addresses");
		}
	}
	/* Sequence number is network order on the wire. */
	{
		struct sb_shim in = { .type = SB_WIRE_DATA, .seq = 0x01020304 };

		sb_wire_put_hdr(buf, dst, src, &in);
		SB_CHECK(buf[18] == 1 && buf[19] == 2 && buf[20] == 3 && buf[21] == 4,
			"seq byte order");
	}
}

static const uint8_t group[6] = SB_HELLO_MAC;

static void
test_hello_round_trip(void)
{
	struct sb_hello in = {
		.host_id = 0xdeadbeef, .instance = 77, .agg_mac = { 0x02, 1, 2, 3, 4, 5 },
		.port_index = 3, .n_ports = 6, .rate_kbps = 100000, .interval_ms = 100,
		.mtu = 9000, .multiplier = 4, .flags = SB_HELLO_F_PARTIAL,
		.probe_interval_ms = 200, .hello_seq = 0xfffffffe, .tx_time_us = 0x12345678,
		.n_entries = 3,
	}, out;
	struct sb_hello_entry ein[3] = {
		{ .host_id = 1, .port = 0, .flags = SB_ENTRY_F_MTU_OK, .rx_frames = 10,
		  .lost_frames = 1, .rate_kbps = 99000, .owd_min_us = 0, .owd_us = 5 },
		{ .host_id = 2, .port = 15, .flags = SB_ENTRY_F_TX, .rx_frames = 0xffffffff,
		  .lost_frames = 0, .rate_kbps = 1, .owd_min_us = 5000, .owd_us = 7000 },
		{ .host_id = 0xffffffff, .port = 7, .flags = SB_ENTRY_F_MASK, .key_id = 0x9c },
	}, eout;
	uint8_t buf[2048];
	struct sb_shim shim;
	size_t off, len;
	unsigned int i;

	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 3, &in, ein, 0);
	SB_CHECK(len == SB_HDR_LEN + 40 + 3 * 28, "hello length %zu", len);
	SB_CHECK(buf[0] == 0x03 && buf[1] == 0x53, "hello group address");
	SB_CHECK(sb_wire_parse(buf, len, &shim, &off) == SB_WIRE_OK, "hello parses");
	SB_CHECK(shim.type == SB_WIRE_HELLO && shim.path == 3 && shim.path_seq == 0,
		"hello shim");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) == SB_WIRE_OK,
		"hello decodes");
	SB_CHECK(out.host_id == in.host_id && out.instance == in.instance &&
		memcmp(out.agg_mac, in.agg_mac, 6) == 0 && out.port_index == in.port_index &&
		out.n_ports == in.n_ports && out.rate_kbps == in.rate_kbps &&
		out.interval_ms == in.interval_ms && out.mtu == in.mtu &&
		out.multiplier == in.multiplier && out.flags == in.flags &&
		out.probe_interval_ms == in.probe_interval_ms && out.hello_seq == in.hello_seq &&
		out.tx_time_us == in.tx_time_us && out.n_entries == 3, "hello fields round trip");
	for (i = 0; i < 3; i++) {
		SB_CHECK(sb_wire_hello_entry_get(&out, i, &eout) == SB_WIRE_OK, "entry %u", i);
		SB_CHECK(memcmp(&eout, &ein[i], sizeof(eout)) == 0, "entry %u round trip", i);
	}
	SB_CHECK(sb_wire_hello_entry_get(&out, 3, &eout) == SB_WIRE_E_HELLO, "entry 3 of 3");
	SB_CHECK(sb_wire_parse(buf, len - 1, &shim, &off) == SB_WIRE_OK,
		"the shim alone does not know the entries");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN - 1, &out) ==
		SB_WIRE_E_TRUNCATED, "hello shorter than its entries");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, SB_HELLO_LEN - 1, &out) ==
		SB_WIRE_E_TRUNCATED, "short hello body");

	/* A probe: padded with zeros to the requested size; entries intact. */
	in.flags = SB_HELLO_F_PROBE;
	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 3, &in, ein, 1514);
	SB_CHECK(len == 1514, "probe length %zu", len);
	SB_CHECK(buf[1513] == 0 && buf[SB_HDR_LEN + 40 + 3 * 28] == 0, "zero padding");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) == SB_WIRE_OK &&
		(out.flags & SB_HELLO_F_PROBE) && out.n_entries == 3, "probe decodes");
	SB_CHECK(sb_wire_put_hello(buf, 1000, group, src, 3, &in, ein, 1514) == 0,
		"probe larger than the buffer refused");
	SB_CHECK(sb_wire_hello_max_entries(1514) == (1514 - 22 - 40) / 28, "max entries %u",
		sb_wire_hello_max_entries(1514));
	SB_CHECK(sb_wire_hello_max_entries(60) == 0, "no room for entries");

	/* An entry with unknown flags or host id 0 is refused on its own. */
	ein[0].flags = 0x80;
	ein[1].host_id = 0;
	in.flags = 0;
	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 3, &in, ein, 0);
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) == SB_WIRE_OK,
		"hello with bad entries still decodes");
	SB_CHECK(sb_wire_hello_entry_get(&out, 0, &eout) == SB_WIRE_E_HELLO, "bad entry flags");
	SB_CHECK(sb_wire_hello_entry_get(&out, 1, &eout) == SB_WIRE_E_HELLO, "entry host 0");
	SB_CHECK(sb_wire_hello_entry_get(&out, 2, &eout) == SB_WIRE_OK, "good entry after");
}

/* A brief hello (docs/wire-format.md): 8-byte entries with who is heard and the flags;
 * the measurements are neither sent nor decoded. */
static void
test_hello_brief(void)
{
	struct sb_hello in = {
		.host_id = 9, .instance = 3, .agg_mac = { 0x02, 0, 0, 0, 0, 9 },
		.port_index = 1, .n_ports = 6, .interval_ms = 100, .mtu = 1500, .multiplier = 4,
		.flags = SB_HELLO_F_BRIEF, .probe_interval_ms = 2000, .n_entries = 17,
	}, out;
	struct sb_hello_entry ein[17], eout;
	uint8_t buf[2048];
	struct sb_shim shim;
	size_t off, len;
	unsigned int i;
	bool same = true;

	for (i = 0; i < 17; i++)
		ein[i] = (struct sb_hello_entry){ .host_id = 100 + i, .port = i % 16,
			.flags = i % 4, .rx_frames = 1000 + i, .lost_frames = i,
			.rate_kbps = 5, .owd_min_us = 6, .owd_us = 7 };
	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 1, &in, ein, 0);
	/* 17 full entries would be 538 bytes. */
	SB_CHECK(len == SB_HDR_LEN + 40 + 17 * 8 && len == 198, "brief hello length %zu", len);
	SB_CHECK(sb_wire_parse(buf, len, &shim, &off) == SB_WIRE_OK, "brief hello parses");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) == SB_WIRE_OK &&
		out.flags == SB_HELLO_F_BRIEF && out.n_entries == 17, "brief hello decodes");
	for (i = 0; i < 17; i++) {
		SB_CHECK(sb_wire_hello_entry_get(&out, i, &eout) == SB_WIRE_OK, "brief entry %u",
			i);
		same = same && eout.host_id == ein[i].host_id && eout.port == ein[i].port &&
			eout.flags == ein[i].flags && eout.rx_frames == 0 &&
			eout.lost_frames == 0 && eout.rate_kbps == 0 && eout.owd_min_us == 0 &&
			eout.owd_us == 0;
	}
	SB_CHECK(same, "brief entries: host, port and flags round trip, no measurements");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN - 1, &out) ==
		SB_WIRE_E_TRUNCATED, "brief hello shorter than its entries");
	/* The same bytes read as full entries would not fit: the flag decides the length. */
	buf[SB_HDR_LEN + 25] = 0;
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) ==
		SB_WIRE_E_TRUNCATED, "brief entries read as full ones do not fit");
	/* A bad brief entry is refused on its own, as a full one. */
	in.flags = SB_HELLO_F_BRIEF;
	ein[2].flags = 0x80;
	ein[3].host_id = 0;
	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 1, &in, ein, 0);
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &out) == SB_WIRE_OK,
		"brief hello with bad entries decodes");
	SB_CHECK(sb_wire_hello_entry_get(&out, 2, &eout) == SB_WIRE_E_HELLO &&
		sb_wire_hello_entry_get(&out, 3, &eout) == SB_WIRE_E_HELLO &&
		sb_wire_hello_entry_get(&out, 4, &eout) == SB_WIRE_OK, "bad brief entries");
}

static void
hello_mutation(const char *what, void (*mutate)(struct sb_hello *h))
{
	struct sb_hello h = {
		.host_id = 5, .instance = 1, .agg_mac = { 0x02, 0, 0, 0, 0, 5 },
		.port_index = 0, .n_ports = 2, .rate_kbps = 1000, .interval_ms = 100, .mtu = 1500,
		.multiplier = 3,
	}, out;
	uint8_t buf[SB_HDR_LEN + SB_HELLO_LEN];

	mutate(&h);
	sb_wire_put_hello(buf, sizeof(buf), group, src, 0, &h, NULL, 0);
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, SB_HELLO_LEN, &out) == SB_WIRE_E_HELLO,
		"absurd hello accepted: %s", what);
}

static void m_host0(struct sb_hello *h) { h->host_id = 0; }
static void m_port(struct sb_hello *h) { h->port_index = h->n_ports; }
static void m_nports(struct sb_hello *h) { h->n_ports = 0; }
static void m_interval(struct sb_hello *h) { h->interval_ms = 0; }
static void m_mcast_mac(struct sb_hello *h) { h->agg_mac[0] = 0x01; }
static void m_mtu(struct sb_hello *h) { h->mtu = 10; }
static void m_mult(struct sb_hello *h) { h->multiplier = 0; }
static void m_flags(struct sb_hello *h) { h->flags = 0x80; }

static void
test_malformed(void)
{
	uint8_t buf[64];
	struct sb_shim in = { .type = SB_WIRE_DATA, .seq = 9 }, out;
	size_t off, len;

	memset(buf, 0, sizeof(buf));
	SB_CHECK(sb_wire_parse(buf, 0, &out, &off) == SB_WIRE_E_TRUNCATED, "empty frame");
	SB_CHECK(sb_wire_parse(buf, 13, &out, &off) == SB_WIRE_E_TRUNCATED, "13 bytes");
	buf[12] = 0x08;	/* IPv4: raw traffic, not ours */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_FOREIGN, "foreign");

	sb_wire_put_hdr(buf, dst, src, &in);
	for (len = SB_ETH_HLEN; len < SB_HDR_LEN + SB_ETH_HLEN; len++)
		SB_CHECK(sb_wire_parse(buf, len, &out, &off) == SB_WIRE_E_TRUNCATED,
			"full-header data frame of %zu bytes", len);
	in.flags = SB_WIRE_F_ELIDED;
	sb_wire_put_hdr(buf, dst, src, &in);
	SB_CHECK(sb_wire_parse(buf, SB_HDR_LEN + 1, &out, &off) == SB_WIRE_E_TRUNCATED,
		"elided frame without EtherType");
	SB_CHECK(sb_wire_parse(buf, SB_HDR_LEN + 2, &out, &off) == SB_WIRE_OK,
		"elided frame with EtherType only");

	/* An authenticated frame needs its authentication header before the inner EtherType. */
	in.flags = SB_WIRE_F_ELIDED | SB_WIRE_F_AUTH;
	sb_wire_put_hdr(buf, dst, src, &in);
	SB_CHECK(sb_wire_parse(buf, SB_WIRE_DATA_AUTH_INNER + 1, &out, &off) ==
		SB_WIRE_E_TRUNCATED, "tagged elided frame without EtherType");
	SB_CHECK(sb_wire_parse(buf, SB_WIRE_DATA_AUTH_INNER + 2, &out, &off) ==
		SB_WIRE_OK && off == SB_WIRE_DATA_AUTH_INNER,
		"tagged elided frame with EtherType only");
	SB_CHECK(sb_wire_parse(buf, SB_HDR_LEN + 4 + 2, &out, &off) == SB_WIRE_E_TRUNCATED,
		"version 3's 4-byte tag is not enough");

	buf[14] = 0x10;	/* version 1: not understood any more */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_VERSION, "version");
	buf[14] = 0x20;	/* version 2 (before cluster keys): refused too */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_VERSION, "version 2");
	buf[14] = 0x30;	/* version 3 (a 4-byte tag over the headers): refused too */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_VERSION, "version 3");
	buf[14] = 0x4f;	/* type 15 */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_TYPE, "type");
	buf[14] = 0x41;	/* type 1: version 1's UNSEQ, retired */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_TYPE, "type 1");
	buf[14] = 0x40;
	buf[15] = 0x80;	/* undefined flag */
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_FLAGS, "flags");
	buf[14] = 0x42;	/* hello with a data flag */
	buf[15] = SB_WIRE_F_ELIDED;
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_E_FLAGS, "hello flags");
	buf[15] = SB_WIRE_F_AUTH;	/* the one a hello may carry */
	SB_CHECK(sb_wire_parse(buf, SB_HDR_LEN + SB_HELLO_LEN, &out, &off) == SB_WIRE_OK,
		"authenticated hello");

	hello_mutation("host id 0", m_host0);
	hello_mutation("port index >= n_ports", m_port);
	hello_mutation("no ports", m_nports);
	hello_mutation("interval 0", m_interval);
	hello_mutation("multicast aggregate MAC", m_mcast_mac);
	hello_mutation("mtu 10", m_mtu);
	hello_mutation("multiplier 0", m_mult);
	hello_mutation("unknown hello flags", m_flags);
	SB_CHECK(strcmp(sb_wire_err_str(SB_WIRE_E_TRUNCATED), "truncated") == 0, "err names");
	SB_CHECK(strcmp(sb_wire_err_str(SB_WIRE_E_MAX), "unknown") == 0, "err name bound");
}

/* Random bytes never crash the parser and never yield an impossible result. */
static void
test_random_bytes(void)
{
	uint8_t buf[80];
	unsigned int i, j, ok = 0, bad = 0;

	srand(1);
	for (i = 0; i < 200000; i++) {
		struct sb_shim out;
		size_t off = 0, len = rand() % sizeof(buf);
		enum sb_wire_err e;

		for (j = 0; j < sizeof(buf); j++)
			buf[j] = rand();
		if (i & 1) {
			buf[12] = 0x88;
			buf[13] = 0xb5;
			buf[14] = SB_WIRE_VERSION << 4 | (buf[14] & 3);
			buf[15] &= SB_WIRE_F_MASK;
		}
		e = sb_wire_parse(buf, len, &out, &off);
		if (e == SB_WIRE_OK) {
			ok++;
			if (off > len || (out.type != SB_WIRE_DATA && out.type != SB_WIRE_HELLO))
				bad++;
		}
	}
	SB_CHECK(ok > 1000, "random frames parsed ok: %u", ok);
	SB_CHECK(bad == 0, "%u impossible parse results", bad);
}

/* The authentication trailer of a hello: after the entries, inside a probe's padding, and
 * what a receiver refuses. */
static void
test_hello_auth(void)
{
	struct sb_hello in = {
		.host_id = 9, .instance = 1, .agg_mac = { 0x02, 1, 2, 3, 4, 5 },
		.port_index = 1, .n_ports = 2, .interval_ms = 10, .mtu = 1500, .multiplier = 4,
		.n_entries = 2,
	}, out;
	struct sb_hello_entry ein[2] = { { .host_id = 1, .port = 0 }, { .host_id = 2 } };
	struct sb_hello_auth a;
	uint8_t buf[1600], nonce[16];
	size_t len, alen, off;
	unsigned int brief;

	for (brief = 0; brief < sizeof(nonce); brief++)
		nonce[brief] = (uint8_t)(0xa0 + brief);

	for (brief = 0; brief <= 1; brief++) {
		in.flags = brief ? SB_HELLO_F_BRIEF : 0;
		len = sb_wire_put_hello(buf, sizeof(buf), group, src, 1, &in, ein, 0);
		alen = sb_wire_hello_auth_put(buf, sizeof(buf), len, 0xab, 0x5c,
			UINT64_C(0x0102030405060708), nonce, &off);
		SB_CHECK(alen == len + SB_HELLO_AUTH_LEN && off == len,
			"trailer after the entries (brief %u): %zu %zu", brief, alen, off);
		SB_CHECK(buf[15] == SB_WIRE_F_AUTH, "shim flag AUTH");
		SB_CHECK(buf[off] == 0xab && buf[off + 1] == 0x5c && buf[off + 4] == 1 &&
			buf[off + 11] == 8, "key id, generation, sequence in network order");
		SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, alen - SB_HDR_LEN, &out) ==
			SB_WIRE_OK, "decodes");
		SB_CHECK(sb_wire_hello_auth_get(buf, alen, &out, &a) == SB_WIRE_OK &&
			a.key_id == 0xab && a.gen == 0x5c && a.seq == UINT64_C(0x0102030405060708) &&
			a.off == off &&
			a.nonce == buf + off + SB_HELLO_AUTH_NONCE_OFF &&
			memcmp(a.nonce, nonce, sizeof(nonce)) == 0, "trailer decodes");
		SB_CHECK(sb_wire_hello_auth_get(buf, alen - 1, &out, &a) == SB_WIRE_E_TRUNCATED,
			"trailer cut short");
		buf[off + 2] = 1;
		SB_CHECK(sb_wire_hello_auth_get(buf, alen, &out, &a) == SB_WIRE_E_HELLO,
			"reserved byte set");
		buf[off + 2] = 0;
		buf[off + 3] = 1;
		SB_CHECK(sb_wire_hello_auth_get(buf, alen, &out, &a) == SB_WIRE_E_HELLO,
			"second reserved byte set");
		buf[off + 3] = 0;
		memset(buf + off + 4, 0, 8);
		SB_CHECK(sb_wire_hello_auth_get(buf, alen, &out, &a) == SB_WIRE_E_HELLO,
			"sequence 0");
		SB_CHECK(sb_wire_hello_auth_put(buf, alen - 1, len, 1, 0, 1, nonce, NULL) == 0,
			"no room: refused");
	}
	/* A probe keeps its length: the trailer sits in its padding. */
	in.flags = SB_HELLO_F_PROBE;
	len = sb_wire_put_hello(buf, sizeof(buf), group, src, 1, &in, ein, 1514);
	alen = sb_wire_hello_auth_put(buf, sizeof(buf), len, 1, 0, 7, nonce, &off);
	SB_CHECK(len == 1514 && alen == 1514 && off == SB_HDR_LEN + SB_HELLO_LEN +
		2 * SB_HELLO_ENTRY_LEN, "probe: %zu bytes, trailer at %zu", alen, off);
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, alen - SB_HDR_LEN, &out) == SB_WIRE_OK &&
		sb_wire_hello_auth_get(buf, alen, &out, &a) == SB_WIRE_OK && a.seq == 7,
		"probe trailer decodes");
	/* Not a hello: nothing written. */
	SB_CHECK(sb_wire_hello_auth_put(buf, sizeof(buf), 10, 1, 0, 1, nonce, NULL) == 0,
		"too short");
	SB_CHECK(sb_wire_overhead(false) == 10 && sb_wire_overhead(true) == 34, "overheads");
}

/* The DATA authentication header: written, read, and what a receiver refuses. */
static void
test_data_auth(void)
{
	struct sb_shim in = { .type = SB_WIRE_DATA, .flags = SB_WIRE_F_ELIDED | SB_WIRE_F_AUTH,
		.path = 1, .seq = 0xfffffffe }, out;
	struct sb_data_auth a;
	uint8_t buf[128];
	size_t off;

	memset(buf, 0x5a, sizeof(buf));
	sb_wire_put_hdr(buf, dst, src, &in);
	sb_wire_put_data_auth(buf, 100, 0xc3, 0x7e, 0x01020304);
	SB_CHECK(buf[22] == 0 && buf[23] == 100 && buf[24] == 0xc3 && buf[25] == 0x7e &&
		buf[26] == 1 && buf[29] == 4, "header bytes in network order");
	SB_CHECK(buf[30] == 0 && buf[45] == 0 && buf[46] == 0x5a, "tag zeroed, inner kept");
	SB_CHECK(sb_wire_parse(buf, sizeof(buf), &out, &off) == SB_WIRE_OK && off == 46,
		"parses, inner at 46");
	SB_CHECK(sb_wire_data_auth_get(buf, 100, &out, &a) == SB_WIRE_OK && a.len == 100 &&
		a.key_id == 0xc3 && a.gen == 0x7e && a.pn_hi == 0x01020304 && a.tag == buf + 30,
		"decodes");
	/* Ethernet padding after the length is not the frame's. */
	SB_CHECK(sb_wire_data_auth_get(buf, 128, &out, &a) == SB_WIRE_OK && a.len == 100,
		"padded frame");
	SB_CHECK(sb_wire_data_auth_get(buf, 99, &out, &a) == SB_WIRE_E_TRUNCATED,
		"length beyond the frame");
	sb_wire_put_data_auth(buf, 47, 1, 0, 0);
	SB_CHECK(sb_wire_data_auth_get(buf, 100, &out, &a) == SB_WIRE_E_TRUNCATED,
		"no room for the inner EtherType");
	sb_wire_put_data_auth(buf, 48, 1, 0, 0);
	SB_CHECK(sb_wire_data_auth_get(buf, 100, &out, &a) == SB_WIRE_OK, "EtherType only");
	out.flags = SB_WIRE_F_AUTH;	/* a whole inner header is needed without ELIDED */
	SB_CHECK(sb_wire_data_auth_get(buf, 100, &out, &a) == SB_WIRE_E_TRUNCATED,
		"no room for the inner header");
}

int
main(void)
{
	test_data_round_trip();
	test_hello_round_trip();
	test_hello_brief();
	test_malformed();
	test_hello_auth();
	test_data_auth();
	test_random_bytes();
	return sb_test_summary("test_wire");
}
