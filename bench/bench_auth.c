/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro benchmark: what cluster authentication (lib/auth) costs per frame.
 *
 *   data_tag    sb_auth_data_tag(): SipHash-2-4 over the 20 bytes of a DATA frame's MACs and
 *               shim, a new sequence number each time (what a sender adds per frame).
 *   hello_mac   sb_auth_hello_mac(): keyed BLAKE2b over --hello-len bytes (default 538, a
 *               hello listing 17 paths), once per hello sent and per hello received.
 * With --more, also: data_verify2, sb_auth_data_verify() with two pair keys and a tag made
 * with the second (a receiver's worst case during a key rollover), and hmac512_256,
 * HMAC-SHA-512-256 over the same --hello-len bytes (the alternative sb_auth.h names). A
 * full-size probe is --hello-len 1514.
 *
 * Each run times a batch of calls back to back (--iters for the DATA operations, a
 * hundredth of it for the hello ones: about a millisecond each), in nanoseconds
 * (CLOCK_MONOTONIC) and TSC cycles (rte_rdtsc); one line per operation gives the median of
 * --runs runs per call, and the fastest run. Short runs let most of them fall between two
 * preemptions on a busy machine, and the median leaves out those that do not. No EAL, no
 * hugepages.
 *
 * Usage: bench_auth [--runs R] [--iters N] [--hello-len BYTES] [--more]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <sodium.h>

#include "sb_auth.h"
#include "sb_wire.h"

#define MAX_RUNS 101
#define MAX_HELLO 9018

enum op { OP_DATA_TAG, OP_DATA_VERIFY, OP_HELLO_MAC, OP_HMAC };

struct ctx {
	struct sb_auth_key key;
	struct sb_auth_pair_key pair[2];
	uint8_t frame[SB_HDR_LEN];
	uint8_t hello[MAX_HELLO];
	size_t hello_len;
};

/* Results folded in, so that no call is optimised away. */
static volatile uint64_t sink;

struct sample {
	double ns;
	double cycles;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
put_seq(uint8_t *frame, uint32_t seq)
{
	frame[18] = seq >> 24;
	frame[19] = seq >> 16;
	frame[20] = seq >> 8;
	frame[21] = seq;
}

/* One timed run of @p iters calls of @p op. */
static struct sample
run_once(struct ctx *c, enum op op, unsigned int iters)
{
	uint8_t tag[SB_AUTH_HELLO_TAG_LEN], full[crypto_auth_hmacsha512256_BYTES];
	uint64_t t0, t1, c0, c1;
	unsigned int i;

	sb_auth_data_tag(&c->pair[1], c->frame, tag);
	t0 = now_ns();
	c0 = rte_rdtsc_precise();
	switch (op) {
	case OP_DATA_TAG:
		for (i = 0; i < iters; i++) {
			put_seq(c->frame, i);
			sb_auth_data_tag(&c->pair[0], c->frame, tag);
			sink += tag[0];
		}
		break;
	case OP_DATA_VERIFY:
		/* The tag fits the frame only under the second key: both keys are tried. */
		for (i = 0; i < iters; i++)
			sink += (uint64_t)sb_auth_data_verify(c->pair, 2, c->frame, tag);
		break;
	case OP_HELLO_MAC:
		for (i = 0; i < iters; i++) {
			c->hello[c->hello_len - 1] = (uint8_t)i;
			sb_auth_hello_mac(&c->key, c->hello, c->hello_len, tag);
			sink += tag[0];
		}
		break;
	case OP_HMAC:
		for (i = 0; i < iters; i++) {
			c->hello[c->hello_len - 1] = (uint8_t)i;
			crypto_auth_hmacsha512256(full, c->hello, c->hello_len, c->key.secret);
			sink += full[0];
		}
		break;
	}
	c1 = rte_rdtsc_precise();
	t1 = now_ns();
	return (struct sample){ (double)(t1 - t0) / iters, (double)(c1 - c0) / iters };
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
bench(struct ctx *c, enum op op, const char *name, size_t bytes, unsigned int runs,
	unsigned int iters)
{
	double ns[MAX_RUNS], cyc[MAX_RUNS];
	unsigned int r;

	run_once(c, op, iters / 10 + 1);	/* warm caches and branch predictors */
	for (r = 0; r < runs; r++) {
		struct sample s = run_once(c, op, iters);

		ns[r] = s.ns;
		cyc[r] = s.cycles;
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_double);
	qsort(cyc, runs, sizeof(cyc[0]), cmp_double);
	printf("%-12s %5zu B: %8.1f ns %8.0f TSC cycles per call (median of %u runs of %u; "
		"fastest %.1f ns %.0f cycles)\n", name, bytes, ns[runs / 2], cyc[runs / 2], runs,
		iters, ns[0], cyc[0]);
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench_auth [--runs R (1-%d)] [--iters N] "
		"[--hello-len BYTES (1-%d)] [--more]\n", MAX_RUNS, MAX_HELLO);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ "hello-len", required_argument, NULL, 'l' },
		{ "more", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct sb_auth_pair_ids ids = { 1, 2, 0x1111, 0x2222 };
	static struct ctx c;
	unsigned int runs = 31, iters = 20000, hello_iters, i;
	bool more = false;
	long v;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			v = strtol(optarg, NULL, 10);
			if (v < 1 || v > MAX_RUNS)
				usage();
			runs = (unsigned int)v;
			break;
		case 'n':
			v = strtol(optarg, NULL, 10);
			if (v < 10 || v > 100000000)
				usage();
			iters = (unsigned int)v;
			break;
		case 'l':
			v = strtol(optarg, NULL, 10);
			if (v < 1 || v > MAX_HELLO)
				usage();
			c.hello_len = (size_t)v;
			break;
		case 'm':
			more = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (c.hello_len == 0)
		c.hello_len = SB_HDR_LEN + SB_HELLO_LEN + 17 * SB_HELLO_ENTRY_LEN;
	if (sb_auth_init() != 0) {
		fprintf(stderr, "bench_auth: libsodium does not start\n");
		return 1;
	}
	c.key.id = 1;
	randombytes_buf(c.key.secret, sizeof(c.key.secret));
	for (i = 0; i < SB_HDR_LEN; i++)
		c.frame[i] = (uint8_t)(0x40 + i);
	for (i = 0; i < MAX_HELLO; i++)
		c.hello[i] = (uint8_t)(i * 13);
	if (sb_auth_pair_derive(&c.key, &ids, &c.pair[0]) != 0) {
		fprintf(stderr, "bench_auth: pair key derivation failed\n");
		return 1;
	}
	ids.tx_instance++;
	sb_auth_pair_derive(&c.key, &ids, &c.pair[1]);

	/* A hello costs tens of DATA tags: fewer calls keep each run short. */
	hello_iters = iters / 100 > 10 ? iters / 100 : 10;
	bench(&c, OP_DATA_TAG, "data_tag", SB_AUTH_DATA_MSG_LEN, runs, iters);
	bench(&c, OP_HELLO_MAC, "hello_mac", c.hello_len, runs, hello_iters);
	if (more) {
		bench(&c, OP_DATA_VERIFY, "data_verify2", SB_AUTH_DATA_MSG_LEN, runs, iters);
		bench(&c, OP_HMAC, "hmac512_256", c.hello_len, runs, hello_iters);
	}
	sb_auth_wipe(&c.key, sizeof(c.key));
	sb_auth_wipe(c.pair, sizeof(c.pair));
	return 0;
}
