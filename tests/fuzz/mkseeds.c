/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the seed corpora of the fuzz targets with seqbond's own encoder (lib/wire), so that
 * the seeds are the frames a real peer sends: tests/fuzz/run builds and runs it when
 * tests/fuzz/corpus/ lacks a target's seeds; the committed seeds came from it.
 *
 * Usage: mkseeds DIR   (writes seeds into DIR/frame, DIR/frame-keyed and DIR/reorder)
 *
 * frame-keyed: the same stories as a cluster holding fuzz_frame's key sends them (wire
 * version 4; lib/auth, fuzz_auth.h): every hello from a peer carries its trailer (key id, the
 * peer's key generation, a crypto sequence rising through the seed, the peer's session
 * nonce) and its tag, every DATA frame its authentication header (exact length, key id, our
 * key generation, PN high: the packet number carries on across the sequence number's wrap)
 * and the tag of the peer -> us direction key, made from the peer's nonce, ours and our
 * generation (fuzz_frame's random source is deterministic: our nonce is known here; our
 * generation is 0 until a peer leaves the table). So each frame passes the receiver's checks
 * as it is. The first story and the keyed ones go on record ports 0..3, as they are; the
 * second and the third on 4..7, where the harness signs them again (keeping their nonces,
 * generations and packet numbers) so that what the fuzzer changes in them still passes. The
 * malformed ones stay as they are. Two stories are keyed only:
 *  - keyed-replay-refusals: a replayed DATA frame and hello, an unknown key id, a bad tag, a
 *    frame with Ethernet padding after its length; the peer announces a new key generation
 *    (our frames to it follow: fuzz_frame checks their generation and tag) and sends a frame
 *    made for a generation of ours that does not exist (refused);
 *  - keyed-generation: one of two peers goes silent and leaves the table (fuzz_frame's peers
 *    leave after 1 s), so our generation moves on: the peer that stayed is taken under the
 *    previous generation (its grace) and the new one, refused under one we never had and
 *    when it plays back a packet number; the peer that left comes back under the same
 *    session nonces, and its frame recorded before is refused while its new ones are taken.
 * tests/fuzz/run checks what each story gets past.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_auth.h"
#include "sb_wire.h"

static uint8_t out[16384];
static size_t out_len;
static bool keyed;	/* writing frame-keyed seeds */
static struct sb_auth_key key;	/* fuzz_auth.h's */
static struct sb_auth_data_key dk;
static uint8_t our_nonce[SB_AUTH_NONCE_LEN];
static uint8_t host_nonce[256][SB_AUTH_NONCE_LEN];	/* each peer's, by host id */
static uint8_t host_gen[256];	/* each peer's key generation, in its hellos */
static uint8_t our_gen;		/* ours, which DATA frames to us are made for */
static uint64_t cseq;		/* crypto sequence of the seed's hellos */
static bool resign;		/* keyed: peers' frames go on record ports 4..7 */
/* The next DATA frame: made with another key id, its tag spoilt, Ethernet padded to this. */
static bool next_bad_key, next_bad_tag;
static size_t next_pad_to;
static uint16_t hello_interval = 10;	/* the peers' hellos announce this, ms */

static void
rec(unsigned int ctl, const uint8_t *frame, size_t len)
{
	out[out_len++] = ctl;
	out[out_len++] = len & 0xff;
	out[out_len++] = len >> 8;
	memcpy(out + out_len, frame, len);
	out_len += len;
}

static void
save(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(out, 1, out_len, f) != out_len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	out_len = 0;
}

/* Port p of host id h: MAC 02:53:42:00:<h>:<p>. */
static void
port_mac(uint8_t *mac, unsigned int h, unsigned int p)
{
	const uint8_t m[6] = { 0x02, 0x53, 0x42, 0x00, (uint8_t)h, (uint8_t)(0x10 + p) };

	memcpy(mac, m, 6);
}

/* The session nonce of @p host's instance @p instance. */
static void
peer_nonce(unsigned int host, uint32_t instance)
{
	fuzz_peer_nonce(host ^ instance << 8, host_nonce[host & 0xff]);
}

/* Record port @p ctl of a frame from a peer: 4..7 when the harness signs them again. */
static unsigned int
peer_ctl(unsigned int ctl)
{
	return keyed && resign ? ctl | 4 : ctl;
}

/* Write the record at @p start of the output, @p end its end, once more: a replay. */
static void
again(size_t start, size_t end)
{
	memmove(out + out_len, out + start, end - start);
	out_len += end - start;
}

/* Let @p ms of the clock pass (rounded up to 6 ms steps): carrier-loss records of port 3,
 * on which no peer is (1 byte each). Longer steps would be the lcore stalling
 * (SB_DP_TICK_STALL_MS), which holds the peer table's timers: no path or peer would age. */
static void
wait_ms(unsigned int ms)
{
	for (; ms > 0; ms -= ms < 6 ? ms : 6)
		out[out_len++] = 0x80 | 2 << 4 | 3;
}

/* A hello from @p host's port @p port; it lists our host (7) on that port, as a peer that
 * hears us does, so the path comes up; @p probe pads it to a full-size probe. Keyed: signed
 * with the host's key generation and the session nonce of that instance. */
static void
hello(unsigned int ctl, unsigned int host, unsigned int port, unsigned int n_ports,
	uint32_t instance, bool probe)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	static uint32_t hello_seq;
	uint32_t hseq = hello_seq++;
	struct sb_hello h = {
		.host_id = host, .instance = instance, .port_index = port, .n_ports = n_ports,
		.rate_kbps = 100000, .interval_ms = hello_interval, .mtu = 1500, .multiplier = 4,
		.probe_interval_ms = 50, .hello_seq = hseq, .tx_time_us = 1000 * hseq,
		.flags = probe ? SB_HELLO_F_PROBE : 0, .n_entries = 1,
		.agg_mac = { 0x02, 0x53, 0x42, 0x00, 0x00, (uint8_t)host },
	};
	const struct sb_hello_entry e = {
		.host_id = 7, .port = ctl & 0x0f, .flags = SB_ENTRY_F_MTU_OK | SB_ENTRY_F_TX,
		.rx_frames = 10 * hseq, .rate_kbps = 1000,
	};
	uint8_t f[1600], src[6];
	size_t len;

	port_mac(src, host, port);
	len = sb_wire_put_hello(f, sizeof(f), group, src, port, &h, &e, probe ? 1514 : 0);
	if (keyed) {
		peer_nonce(host, instance);
		len = fuzz_sign_hello(&key, f, sizeof(f), len, host_gen[host & 0xff], ++cseq,
			host_nonce[host & 0xff]);
	}
	if (len == 0) {
		fprintf(stderr, "mkseeds: a hello does not fit\n");
		exit(1);
	}
	rec(peer_ctl(ctl), f, len);
}

/* A DATA frame carrying a small IPv4 packet (elided) or a broadcast ARP (full header), with
 * packet number @p pn (the shim's sequence number is its low half). Keyed: its
 * authentication header and the tag of @p host's nonce, ours and our generation. */
static void
data(unsigned int ctl, unsigned int host, unsigned int port, uint64_t pn, unsigned int type,
	unsigned int flags)
{
	static uint8_t path_seq[16];
	struct sb_shim s = { .type = type, .flags = flags, .path = port,
		.path_seq = path_seq[port & 15]++, .seq = (uint32_t)pn };
	uint8_t f[128] = { 0 }, src[6], dst[6];
	size_t len = 64, o = SB_HDR_LEN;

	if (keyed && type == SB_WIRE_DATA) {
		s.flags |= SB_WIRE_F_AUTH;
		o += SB_WIRE_DATA_AUTH_LEN;
		len += SB_WIRE_DATA_AUTH_LEN;
	}
	port_mac(src, host, port);
	port_mac(dst, 7, ctl & 0x03);
	sb_wire_put_hdr(f, dst, src, &s);
	if (flags & SB_WIRE_F_ELIDED) {
		f[o] = 0x08;		/* IPv4 */
		f[o + 2] = 0x45;
	} else {
		memcpy(f + o, "\xff\xff\xff\xff\xff\xff\x02\x53\x42\x00\x00\x01\x08\x06", 14);
	}
	if (s.flags & SB_WIRE_F_AUTH) {
		sb_wire_put_data_auth(f, (uint16_t)len, key.id, our_gen, (uint32_t)(pn >> 32));
		/* A frame of unknown flags keeps a zero tag: nothing would check it. */
		if ((s.flags & ~SB_WIRE_F_MASK) == 0 && fuzz_tag_data(&key, &dk, f, len, host,
				host_nonce[host & 0xff], FUZZ_OUR_HOST_ID, our_nonce, our_gen) != 0) {
			fprintf(stderr, "mkseeds: a DATA frame cannot be tagged\n");
			exit(1);
		}
		if (next_bad_key)
			f[SB_HDR_LEN + 2] ^= 0xff;
		if (next_bad_tag)
			f[SB_WIRE_DATA_TAG_OFF + 5] ^= 0x20;
		if (next_pad_to > len)
			len = next_pad_to;	/* zeros: f was */
		next_bad_key = next_bad_tag = false;
		next_pad_to = 0;
	}
	rec(peer_ctl(ctl), f, len);
}

/* A frame from the kernel (record port 15): to @p dst_host's aggregate MAC, or broadcast. */
static void
kernel(unsigned int adv, int dst_host)
{
	uint8_t f[64] = { 0 };

	if (dst_host < 0)
		memset(f, 0xff, 6);
	else
		memcpy(f, (const uint8_t[]){ 0x02, 0x53, 0x42, 0x00, 0x00, (uint8_t)dst_host }, 6);
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0x53, 0x42, 0x00, 0x00, 7 }, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	rec(adv << 4 | 15, f, sizeof(f));
}

/* 5. Keyed refusals, every frame as it is (record ports 0..3): peer 4's DATA across the wrap,
 * a packet number played back, a hello played back, a frame of an unknown key id, a spoilt
 * tag, Ethernet padding after the length; then peer 4 announces its key generation 1: the
 * kernel's frames to it before and after (fuzz_frame checks that they follow), its frame made
 * for our generation 1, which does not exist (refused), and two under ours, taken. */
static void
keyed_refusals(const char *dir)
{
	size_t hello_at, hello_end, data_at;

	resign = false;
	cseq = 0;
	hello(0, 4, 0, 2, 0x44, true);
	hello(1, 4, 1, 2, 0x44, true);
	hello_at = out_len;
	hello(0x11, 4, 1, 2, 0x44, false);	/* confirms the new path */
	hello_end = out_len;
	data(0x10, 4, 0, UINT64_C(0xfffffffe), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x11, 4, 1, UINT64_C(0xffffffff), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data_at = out_len;
	data(0x10, 4, 0, UINT64_C(0x100000000), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	again(data_at, out_len);		/* its packet number again */
	again(hello_at, hello_end);		/* a hello not newer than the last */
	next_bad_key = true;
	data(0x10, 4, 0, UINT64_C(0x100000001), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	next_bad_tag = true;
	data(0x11, 4, 1, UINT64_C(0x100000002), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	next_pad_to = 120;
	data(0x10, 4, 0, UINT64_C(0x100000003), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	kernel(1, 4);
	host_gen[4] = 1;			/* it forgot a peer: keys into it change */
	hello(0x10, 4, 0, 2, 0x44, false);
	hello(0x11, 4, 1, 2, 0x44, false);
	kernel(1, 4);
	our_gen = 1;				/* we have none but 0 */
	data(0x10, 4, 0, UINT64_C(0x100000004), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	our_gen = 0;
	data(0x11, 4, 1, UINT64_C(0x100000005), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 4, 0, UINT64_C(0x100000006), SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	save(dir, "keyed-replay-refusals");
}

/* 6. Our key generation moves on, every frame as it is: peers 5 (our ports 0, 1; hellos
 * every 100 ms) and 6 (port 2) come up and send DATA under generation 0; the kernel sends
 * to both; peer 6 goes silent and leaves the table after 1 s (fuzz_frame's peer_evict_s), so
 * our generation is 1 and our next hellos say so. Peer 5: a frame made for generation 0
 * (within its grace: taken), one for 1 (taken), one for 2 (never ours: refused), its first
 * frame again (its window stayed: refused as a replay). Peer 6 comes back under the same
 * instance and nonce: its frame recorded before is refused (its keys are new), its next
 * frame, made for generation 1, is taken; the kernel sends to both again. */
static void
keyed_generation(const char *dir)
{
	size_t p5_at, p5_end, p6_at, p6_end;
	unsigned int i;

	resign = false;
	cseq = 0;
	our_gen = 0;
	hello_interval = 100;
	hello(0, 5, 0, 2, 0x55, false);		/* no probes: the seed stays short */
	hello(1, 5, 1, 2, 0x55, false);
	hello(2, 6, 0, 1, 0x66, false);
	hello(0x10, 5, 0, 2, 0x55, false);	/* confirm the new paths */
	hello(0x11, 5, 1, 2, 0x55, false);
	hello(0x12, 6, 0, 1, 0x66, false);
	p5_at = out_len;
	data(0x10, 5, 0, 10, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	p5_end = out_len;
	data(0x11, 5, 1, 11, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	p6_at = out_len;
	data(0x12, 6, 0, 20, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	p6_end = out_len;
	data(0x12, 6, 0, 21, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	kernel(1, 5);
	kernel(1, 6);
	/* 1.2 s: peer 5 keeps its paths (a hello every 90 ms on each), peer 6 is unheard. */
	for (i = 0; i < 14; i++) {
		hello(0x10, 5, 0, 2, 0x55, false);
		hello(0x11, 5, 1, 2, 0x55, false);
		wait_ms(84);
	}
	our_gen = 0;			/* made before peer 5 took our new generation */
	data(0x10, 5, 0, 12, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	our_gen = 1;
	data(0x11, 5, 1, 13, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	our_gen = 2;			/* never ours */
	data(0x10, 5, 0, 14, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	our_gen = 1;
	again(p5_at, p5_end);		/* packet number 10 again, generation 0 */
	hello(0x12, 6, 0, 1, 0x66, false);	/* back, the same instance and nonce */
	hello(0x12, 6, 0, 1, 0x66, false);
	again(p6_at, p6_end);		/* recorded before it left: generation 0 */
	data(0x12, 6, 0, 22, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	kernel(1, 5);
	kernel(1, 6);
	hello_interval = 10;
	save(dir, "keyed-generation");
}

/* The seeds of fuzz_frame (keyed mode when @p with_key) into @p dir. */
static void
frame_seeds(const char *dir, bool with_key)
{
	uint8_t f[64];
	unsigned int p, i;
	uint64_t seq;

	keyed = with_key;
	resign = false;
	cseq = 0;
	our_gen = 0;
	memset(host_gen, 0, sizeof(host_gen));
	/* 1. Peer 1 with 4 ports: hellos and probes on every port, in-order data striped, then
	 * the kernel sends to it and broadcasts (striped and flooded back out). */
	for (p = 0; p < 4; p++)
		hello(p, 1, p, 4, 0x1234567, true);
	for (p = 0; p < 4; p++)
		hello(0x10 | p, 1, p, 4, 0x1234567, false);
	for (seq = 100, i = 0; i < 24; i++, seq++)
		data(0x10 | (i % 4), 1, i % 4, seq, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	for (p = 0; p < 4; p++)		/* the paths stay up (40 ms without a hello) */
		hello(p, 1, p, 4, 0x1234567, false);
	for (i = 0; i < 8; i++)
		kernel(i & 1, i == 5 ? -1 : 1);
	save(dir, "hellos-data-in-order");
	/* Keyed, the harness signs the next stories again. */
	resign = true;
	cseq = 0;
	/* 2. Reordered across the 2^32 wrap (keyed: PN high 0, then 1), a loss, a duplicate
	 * (keyed: a packet number taken twice), a flooded broadcast. */
	for (p = 0; p < 4; p++)		/* a second hello confirms a new path */
		hello(p & 1, 2, p & 1, 2, 99, p < 2);
	seq = UINT32_C(0xfffffffc);
	data(0x10, 2, 0, seq, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x11, 2, 1, seq + 2, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 2, 0, seq + 1, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x11, 2, 1, seq + 5, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 2, 0, seq + 4, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 2, 0, seq + 4, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x30, 2, 0, seq + 7, SB_WIRE_DATA, 0);
	data(0x70, 2, 0, seq + 6, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	save(dir, "wrap-reorder-loss-dup");
	/* 3. A peer restarts (new instance), a port fails, a stray far ahead. */
	hello(0, 3, 0, 2, 1, true);
	hello(1, 3, 1, 2, 1, true);
	hello(1, 3, 1, 2, 1, false);
	data(0x10, 3, 0, 5, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x11, 3, 1, 7, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x11, 3, 1, 100007, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 3, 0, 6, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	out[out_len++] = 0x80 | 1;	/* port 1 carrier lost */
	hello(0, 3, 0, 2, 2, false);
	data(0x10, 3, 0, 1000, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	save(dir, "restart-port-down-stray");
	/* 4. Raw traffic and malformed shims (as they are). */
	resign = false;
	memset(f, 0, sizeof(f));
	memcpy(f, "\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x09\x08\x06", 14);
	rec(0, f, 42);				/* ARP: foreign */
	hello(0, 7, 0, 1, 5, false);		/* our own host id */
	data(0, 9, 0, 1, SB_WIRE_DATA, SB_WIRE_F_ELIDED);	/* unknown peer */
	data(0, 9, 0, 1, 5, 0);			/* unknown type */
	data(0, 9, 0, 1, 1, 0);			/* version 1's UNSEQ, retired */
	data(0, 9, 0, 1, SB_WIRE_DATA, 0x80);	/* unknown flag */
	sb_wire_put_hdr(f, f, f, &(struct sb_shim){ .type = SB_WIRE_DATA });
	f[14] = 0x10;				/* version 1 */
	rec(0, f, 30);
	rec(0, f, 20);				/* truncated */
	save(dir, "foreign-malformed");
	if (keyed) {
		keyed_refusals(dir);
		keyed_generation(dir);
	}
	keyed = false;
}

int
main(int argc, char **argv)
{
	char dir[400];
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}

	if (fuzz_key_load(&key) != 0 || sb_auth_data_key_init(&dk) != 0) {
		fprintf(stderr, "mkseeds: the cluster key cannot be set up\n");
		return 1;
	}
	fuzz_our_nonce(our_nonce);
	snprintf(dir, sizeof(dir), "%s/frame", argv[1]);
	frame_seeds(dir, false);
	snprintf(dir, sizeof(dir), "%s/frame-keyed", argv[1]);
	frame_seeds(dir, true);

	snprintf(dir, sizeof(dir), "%s/reorder", argv[1]);
	/* window 16 (0x03), timeout 20, set_next near the wrap; paths 0, 1 active; a stream
	 * over two paths with a gap, drains, and a silence longer than the timeout. */
	{
		static const uint8_t ops[] = {
			0x03, 20, 1, 0xff,
			0x0d, 0, 0x0d, 1,
			0x10, 0, 0, 0x10, 1, 1, 0x10, 0, 2, 0x10, 1, 4, 0x10, 0, 5,
			0x14, 64, 0x10, 1, 3, 0x14, 64,
			0x10, 0, 2, 0x10, 1, 9, 0x07, 3, 0x14, 64,
			0x05, 1, 0x10, 0, 1, 0x14, 8,
			0x18, 2, 0x80, 0, 0, 0, 0x04, 64,
			0x06, 0x10, 0, 0x40, 0x04, 64,
		};

		memcpy(out, ops, sizeof(ops));
		out_len = sizeof(ops);
		save(dir, "two-paths-gap-timeout");
	}
	{
		/* window 8, deliver late: in-order run, duplicates, late frames, slides. */
		uint8_t *o = out;

		*o++ = 0x12; *o++ = 5; *o++ = 0; *o++ = 0;
		for (i = 0; i < 40; i++) {
			*o++ = 0x10 | (i % 4);
			*o++ = i % 3;
			*o++ = (uint8_t)((i * 7) % 11 - 3);
			if (i % 5 == 4) {
				*o++ = 0x14;
				*o++ = 4;
			}
		}
		out_len = o - out;
		save(dir, "mixed-late-dup");
	}
	return 0;
}
