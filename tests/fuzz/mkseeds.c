/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the seed corpora of the fuzz targets with seqbond's own encoder (lib/wire), so that
 * the seeds are the frames a real peer sends: tests/fuzz/run builds and runs it when
 * tests/fuzz/corpus/ lacks a target's seeds; the committed seeds came from it.
 *
 * Usage: mkseeds DIR   (writes seeds into DIR/frame, DIR/frame-keyed and DIR/reorder)
 *
 * frame-keyed: the same stories for fuzz_frame's keyed mode: frames from peers go on record
 * ports 4..7 (the harness signs them: fuzz_frame.c), DATA frames flagged AUTH with room for
 * their tag; the malformed ones stay unsigned.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_wire.h"

static uint8_t out[16384];
static size_t out_len;
static bool keyed;	/* writing frame-keyed seeds */

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

/* A hello from @p host's port @p port; it lists our host (7) on that port, as a peer that
 * hears us does, so the path comes up; @p probe pads it to a full-size probe. */
static void
hello(unsigned int ctl, unsigned int host, unsigned int port, unsigned int n_ports,
	uint32_t instance, bool probe)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	static uint32_t hello_seq;
	uint32_t hseq = hello_seq++;
	struct sb_hello h = {
		.host_id = host, .instance = instance, .port_index = port, .n_ports = n_ports,
		.rate_kbps = 100000, .interval_ms = 10, .mtu = 1500, .multiplier = 4,
		.probe_interval_ms = 50, .hello_seq = hseq, .tx_time_us = 1000 * hseq,
		.flags = probe ? SB_HELLO_F_PROBE : 0, .n_entries = 1,
		.agg_mac = { 0x02, 0x53, 0x42, 0x00, 0x00, (uint8_t)host },
	};
	const struct sb_hello_entry e = {
		.host_id = 7, .port = ctl & 0x0f, .flags = SB_ENTRY_F_MTU_OK | SB_ENTRY_F_TX,
		.rx_frames = 10 * hseq, .rate_kbps = 1000,
	};
	uint8_t f[1600], src[6];

	port_mac(src, host, port);
	/* keyed: the harness adds the trailer and tag (ctl port | 4: sign) */
	rec(keyed ? ctl | 4 : ctl, f, sb_wire_put_hello(f, sizeof(f), group, src, port, &h, &e,
		probe ? 1514 : 0));
}

/* A DATA frame carrying a small IPv4 packet (elided) or a broadcast ARP (full header). */
static void
data(unsigned int ctl, unsigned int host, unsigned int port, uint32_t seq, unsigned int type,
	unsigned int flags)
{
	static uint8_t path_seq[16];
	struct sb_shim s = { .type = type, .flags = flags, .path = port,
		.path_seq = path_seq[port & 15]++, .seq = seq };
	uint8_t f[80] = { 0 }, src[6], dst[6];
	size_t len = 64, o = SB_HDR_LEN;

	/* keyed: a zero tag the harness fills in (ctl port | 4: sign) */
	if (keyed && type == SB_WIRE_DATA) {
		s.flags |= SB_WIRE_F_AUTH;
		o += SB_WIRE_DATA_TAG_LEN;
		ctl |= 4;
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
	rec(ctl, f, len);
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

/* The seeds of fuzz_frame (keyed mode when @p with_key) into @p dir. */
static void
frame_seeds(const char *dir, bool with_key)
{
	uint8_t f[64];
	unsigned int p, i;
	uint32_t seq;

	keyed = with_key;
	/* 1. Peer 1 with 4 ports: hellos and probes on every port, in-order data striped, then
	 * the kernel sends to it and broadcasts (striped and flooded back out). */
	for (p = 0; p < 4; p++)
		hello(p, 1, p, 4, 0x1234567, true);
	for (p = 0; p < 4; p++)
		hello(0x10 | p, 1, p, 4, 0x1234567, false);
	for (seq = 100, i = 0; i < 24; i++, seq++)
		data(0x10 | (i % 4), 1, i % 4, seq, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	for (i = 0; i < 8; i++)
		kernel(i & 1, i == 5 ? -1 : 1);
	save(dir, "hellos-data-in-order");
	/* 2. Reordered across the 2^32 wrap, a loss, a duplicate, a flooded broadcast. */
	for (p = 0; p < 2; p++)
		hello(p, 2, p, 2, 99, true);
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
	data(0x10, 3, 0, 5, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 3, 1, 7, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 3, 1, 100007, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	data(0x10, 3, 0, 6, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	out[out_len++] = 0x80 | 1;	/* port 1 carrier lost */
	hello(0, 3, 0, 2, 2, false);
	data(0x10, 3, 0, 1000, SB_WIRE_DATA, SB_WIRE_F_ELIDED);
	save(dir, "restart-port-down-stray");
	/* 4. Raw traffic and malformed shims. */
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
