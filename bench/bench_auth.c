/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro benchmark: what cluster authentication (lib/auth) costs per frame, and what the
 * candidates for the DATA tag that run on every CPU would cost instead.
 *
 * A DATA frame of wire version 4 is tagged over two pieces, as on the wire: its first
 * SB_WIRE_DATA_TAG_OFF bytes (outer MACs, EtherType, shim, the authentication header up to
 * the tag) and the bytes after the tag, SB_WIRE_DATA_AUTH_INNER .. len - 1 (the inner frame).
 * Each call tags a frame with a new packet number (written into the frame's sequence and
 * pn_hi bytes, and used as the nonce where the algorithm takes one), per --sizes byte length
 * (default 64, 1500 and 9000):
 *
 *   data_gcm                  sb_auth_data_mac(): AES-256-GCM with no plaintext (GMAC)
 *                             through OpenSSL's EVP, the shipped DATA tag (a sender's cost).
 *   data_verify               sb_auth_data_verify() of a good tag (a receiver's cost).
 *   chacha20poly1305_sodium   libsodium's crypto_aead_chacha20poly1305_ietf_encrypt_detached()
 *                             with no plaintext, the frame as additional data. It takes that
 *                             as one buffer, so each call first copies the two pieces into a
 *                             scratch buffer (memcpy); the copy is in the timing.
 *   blake2b128_sodium         keyed BLAKE2b with a 16-byte output, libsodium's
 *                             crypto_generichash_blake2b init/update/final, one update per
 *                             piece. The key is a 128-byte block of its own (RFC 7693 s.3.3),
 *                             compressed once per frame.
 *   chacha20poly1305_openssl  ChaCha20-Poly1305 through OpenSSL's EVP as data_gcm does it:
 *                             IV, one additional-data update per piece, final, get tag.
 *
 * Then, per hello:
 *   hello_mac    sb_auth_hello_mac(): keyed BLAKE2b over --hello-len bytes (default 538, a
 *                hello listing 17 paths), once per hello sent and per hello received.
 * With --more, also:
 *   hmac512_256  HMAC-SHA-512-256 over the same --hello-len bytes (the alternative sb_auth.h
 *                names). A full-size probe is --hello-len 1514.
 *
 * The two ChaCha20-Poly1305 lines compute the same tag (RFC 8439's AEAD): checked before
 * timing, as is each tag's verification.
 *
 * OpenSSL picks AES-NI and PCLMULQDQ code when the CPU has them; OPENSSL_ia32cap
 * (OPENSSL_ia32cap(3)) set to SOFTWARE_AES masks both, so the same binary shows what a CPU
 * without them pays (constant-time AES without AES-NI, GHASH from tables). --software-aes runs
 * the benchmark again under that setting: it sets the variable and executes
 * /proc/self/exe with the same arguments less --software-aes. The ":~0" matters: OpenSSL 3.0
 * zeroes its second capability vector (CPUID leaf 7: AVX2, AVX-512, VAES...) when the
 * variable has no ':' part, which takes OpenSSL's ChaCha20-Poly1305 off its AVX2 and AVX-512
 * code and would be charged to AES-NI; with it, only AES-NI and PCLMULQDQ go. libsodium does
 * not read the variable (and its ChaCha20 and BLAKE2b use no AES-NI). The first line of
 * output says whether the CPU has both (/proc/cpuinfo's flags) and what is masked.
 *
 * Each run times a batch of calls back to back, in nanoseconds (CLOCK_MONOTONIC) and TSC
 * cycles (rte_rdtsc); the batch is as many calls as take about --run-us microseconds
 * (default 500), found while warming up. Each line gets --runs runs (default 31), taken in
 * turns (run 1 of every line, then run 2...), so that a busy spell of the machine slows every
 * line alike; a line prints the median run and the fastest. Short runs let most of them fall
 * between two preemptions on a busy machine, and the median leaves out those that do not. No
 * EAL, no hugepages.
 *
 * Output, one line per (operation, bytes), after the "cpu:" line and a "note:" line:
 *   NAME BYTES B: NS ns CYCLES cycles FPS frames/s per frame (median of R runs of N;
 *   fastest NS ns CYCLES cycles FPS frames/s)
 * on one line, where frames/s is 1e9 / ns (one core doing nothing else).
 *
 * Usage: bench_auth [--runs R] [--run-us US] [--sizes B,B,...] [--hello-len BYTES] [--more]
 *                   [--software-aes]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <rte_cycles.h>
#include <sodium.h>

#include "sb_auth.h"
#include "sb_wire.h"

#define MAX_RUNS 101
#define MAX_SIZES 8
#define MAX_FRAME 16384
#define MAX_HELLO 9018
#define MAX_BATCH 10000000u
#define N_DATA_OPS 5
#define MAX_JOBS (MAX_SIZES * N_DATA_OPS + 2)
#define DEFAULT_SIZES "64,1500,9000"

/* OPENSSL_ia32cap's first word is CPUID.1 EDX:ECX: bit 57 is ECX bit 25 (AES-NI), bit 33
 * ECX bit 1 (PCLMULQDQ); "~" clears the bits that follow. After ':', the second word (CPUID
 * leaf 7), "~0": clear nothing (with no ':' part, OpenSSL 3.0 would clear all of it). */
#define SOFTWARE_AES "~0x200000200000000:~0"
#define CAP_AESNI (UINT64_C(1) << 57)
#define CAP_PCLMUL (UINT64_C(1) << 33)

/* The two pieces a DATA tag covers (sb_wire.h): before the tag, and after it. */
#define HEAD_LEN SB_WIRE_DATA_TAG_OFF
#define INNER_OFF SB_WIRE_DATA_AUTH_INNER

enum op {
	OP_DATA_GCM,
	OP_DATA_VERIFY,
	OP_CHACHA_SODIUM,
	OP_BLAKE2B,
	OP_CHACHA_OPENSSL,
	OP_HELLO_MAC,
	OP_HMAC,
};

static const char *const op_name[] = {
	[OP_DATA_GCM] = "data_gcm",
	[OP_DATA_VERIFY] = "data_verify",
	[OP_CHACHA_SODIUM] = "chacha20poly1305_sodium",
	[OP_BLAKE2B] = "blake2b128_sodium",
	[OP_CHACHA_OPENSSL] = "chacha20poly1305_openssl",
	[OP_HELLO_MAC] = "hello_mac",
	[OP_HMAC] = "hmac512_256",
};

struct ctx {
	struct sb_auth_key key;			/* cluster key: hello MAC, direction key */
	struct sb_auth_data_key dk;		/* data_gcm, data_verify */
	uint8_t cand_key[32];			/* the candidates' key */
	EVP_CIPHER_CTX *chacha;			/* chacha20poly1305_openssl, key loaded */
	uint64_t pn;				/* next packet number */
	size_t len;				/* DATA frame length */
	struct sb_auth_seg seg[2];		/* its covered pieces */
	uint64_t good_pn;			/* data_verify: good_tag is the tag at this pn */
	uint8_t good_tag[SB_AUTH_DATA_TAG_LEN];
	uint8_t frame[MAX_FRAME];
	uint8_t scratch[MAX_FRAME];		/* chacha20poly1305_sodium's contiguous copy */
	uint8_t hello[MAX_HELLO];
	size_t hello_len;
};

/* Results folded in, so that no call is optimised away. */
static volatile uint64_t sink;

struct sample {
	double ns;
	double cycles;
};

/* One line of output: an operation over one length, its batch size and its runs. */
struct job {
	enum op op;
	size_t bytes;
	unsigned int iters;		/* calls per run */
	unsigned int bad;		/* calls that failed */
	double ns[MAX_RUNS];		/* per call, each run */
	double cyc[MAX_RUNS];
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Number the frame @p pn as a sender does: low half in the shim's sequence number, high half
 * in the authentication header's pn_hi. Both are in the first piece, so covered. */
static void
put_pn(uint8_t *frame, uint64_t pn)
{
	put_be32(frame + SB_HDR_LEN - 4, (uint32_t)pn);
	put_be32(frame + SB_HDR_LEN + 4, (uint32_t)(pn >> 32));
}

/* The candidates' 96-bit nonce: as data_gcm's IV, @p pn then 32 zero bits. */
static void
put_nonce(uint8_t *nonce, uint64_t pn)
{
	put_be32(nonce, (uint32_t)(pn >> 32));
	put_be32(nonce + 4, (uint32_t)pn);
	put_be32(nonce + 8, 0);
}

/* One tag of @p op over the current frame at the next packet number. @return 0 or not. */
static int
data_op(struct ctx *c, enum op op, uint8_t *tag)
{
	uint8_t nonce[12], none[1] = { 0 };	/* no plaintext: libsodium wants a pointer still */
	unsigned long long tlen;
	crypto_generichash_blake2b_state st;
	uint64_t pn = c->pn++;
	int n, rc = 0;

	put_pn(c->frame, pn);
	switch (op) {
	case OP_DATA_GCM:
		return sb_auth_data_mac(&c->dk, pn, c->seg, 2, tag);
	case OP_CHACHA_SODIUM:
		memcpy(c->scratch, c->seg[0].p, c->seg[0].len);
		memcpy(c->scratch + c->seg[0].len, c->seg[1].p, c->seg[1].len);
		put_nonce(nonce, pn);
		return crypto_aead_chacha20poly1305_ietf_encrypt_detached(none, tag, &tlen, none, 0,
			c->scratch, c->seg[0].len + c->seg[1].len, NULL, nonce, c->cand_key);
	case OP_BLAKE2B:
		rc |= crypto_generichash_blake2b_init(&st, c->cand_key, sizeof(c->cand_key),
			SB_AUTH_DATA_TAG_LEN);
		rc |= crypto_generichash_blake2b_update(&st, c->seg[0].p, c->seg[0].len);
		rc |= crypto_generichash_blake2b_update(&st, c->seg[1].p, c->seg[1].len);
		rc |= crypto_generichash_blake2b_final(&st, tag, SB_AUTH_DATA_TAG_LEN);
		return rc;
	case OP_CHACHA_OPENSSL:
		put_nonce(nonce, pn);
		if (EVP_EncryptInit_ex(c->chacha, NULL, NULL, NULL, nonce) != 1 ||
				EVP_EncryptUpdate(c->chacha, NULL, &n, c->seg[0].p,
					(int)c->seg[0].len) != 1 ||
				EVP_EncryptUpdate(c->chacha, NULL, &n, c->seg[1].p,
					(int)c->seg[1].len) != 1 ||
				EVP_EncryptFinal_ex(c->chacha, NULL, &n) != 1 ||
				EVP_CIPHER_CTX_ctrl(c->chacha, EVP_CTRL_AEAD_GET_TAG,
					SB_AUTH_DATA_TAG_LEN, tag) != 1)
			return -1;
		return 0;
	default:
		return -1;
	}
}

/* One timed run of @p iters calls of @p op; *bad counts calls that failed. */
static struct sample
run_once(struct ctx *c, enum op op, unsigned int iters, unsigned int *bad)
{
	uint8_t tag[crypto_auth_hmacsha512256_BYTES];
	uint64_t t0, t1, c0, c1;
	unsigned int i;

	if (op == OP_DATA_VERIFY)
		put_pn(c->frame, c->good_pn);	/* the other lines number the frame anew */
	t0 = now_ns();
	c0 = rte_rdtsc_precise();
	switch (op) {
	case OP_DATA_VERIFY:
		/* The same good tag each time: verifying repeats no nonce. */
		for (i = 0; i < iters; i++) {
			int rc = sb_auth_data_verify(&c->dk, c->good_pn, c->seg, 2, c->good_tag);

			*bad += rc != 0;
			sink += (uint64_t)rc;
		}
		break;
	case OP_HELLO_MAC:
		for (i = 0; i < iters; i++) {
			c->hello[c->hello_len - 1] = (uint8_t)i;
			*bad += sb_auth_hello_mac(&c->key, c->hello, c->hello_len, tag) != 0;
			sink += tag[0];
		}
		break;
	case OP_HMAC:
		for (i = 0; i < iters; i++) {
			c->hello[c->hello_len - 1] = (uint8_t)i;
			crypto_auth_hmacsha512256(tag, c->hello, c->hello_len, c->key.secret);
			sink += tag[0];
		}
		break;
	default:
		for (i = 0; i < iters; i++) {
			*bad += data_op(c, op, tag) != 0;
			sink += tag[0];
		}
		break;
	}
	c1 = rte_rdtsc_precise();
	t1 = now_ns();
	return (struct sample){ (double)(t1 - t0) / iters, (double)(c1 - c0) / iters };
}

/* Warm caches and branch predictors with batches that double until one takes a quarter of
 * @p run_ns, then size the batch from the fastest of three more (a preemption only ever makes
 * a batch slower). @return the calls a run of about @p run_ns holds. */
static unsigned int
batch_for(struct ctx *c, enum op op, double run_ns, unsigned int *bad)
{
	unsigned int n = 1, i;
	double best, want;

	for (;;) {
		struct sample s = run_once(c, op, n, bad);

		if (s.ns * n >= run_ns / 4 || n >= MAX_BATCH / 2)
			break;
		n *= 2;
	}
	best = run_once(c, op, n, bad).ns;
	for (i = 0; i < 2; i++) {
		double ns = run_once(c, op, n, bad).ns;

		best = ns < best ? ns : best;
	}
	want = run_ns / (best > 0 ? best : 1);
	return want < 1 ? 1 : want > MAX_BATCH ? MAX_BATCH : (unsigned int)want;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Print @p j's line. @return 0, or -1 when a call failed. */
static int
report(struct job *j, unsigned int runs)
{
	if (j->bad != 0) {
		fprintf(stderr, "bench_auth: %s over %zu bytes: %u calls failed\n", op_name[j->op],
			j->bytes, j->bad);
		return -1;
	}
	qsort(j->ns, runs, sizeof(j->ns[0]), cmp_double);
	qsort(j->cyc, runs, sizeof(j->cyc[0]), cmp_double);
	printf("%s %zu B: %.1f ns %.0f cycles %.0f frames/s per frame (median of %u runs of %u; "
		"fastest %.1f ns %.0f cycles %.0f frames/s)\n", op_name[j->op], j->bytes,
		j->ns[runs / 2], j->cyc[runs / 2], 1e9 / j->ns[runs / 2], runs, j->iters, j->ns[0],
		j->cyc[0], 1e9 / j->ns[0]);
	return 0;
}

/* Whether /proc/cpuinfo's first "flags" line lists @p flag. */
static bool
cpu_has(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p;

	for (p = flags; (p = strstr(p, flag)) != NULL; p += n)
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
				(p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* Whether OPENSSL_ia32cap @p env takes capability bit @p bit away: "~X" clears X's bits, a
 * plain number replaces the first word, ":..." leaves it alone (OPENSSL_ia32cap(3)). */
static bool
cap_masked(const char *env, uint64_t bit)
{
	if (env == NULL || env[0] == ':' || env[0] == '\0')
		return false;
	if (env[0] == '~')
		return (strtoull(env + 1, NULL, 0) & bit) != 0;
	return (strtoull(env, NULL, 0) & bit) == 0;
}

/* Whether OPENSSL_ia32cap @p env zeroes the CPUID leaf 7 word: OpenSSL 3.0 does when there is
 * no ':' part, or when that part is a plain 0. */
static bool
leaf7_cleared(const char *env)
{
	const char *p = env != NULL ? strchr(env, ':') : NULL;

	if (env == NULL)
		return false;
	return p == NULL || (p[1] != '~' && strtoull(p + 1, NULL, 0) == 0);
}

/* The "cpu:" line: what the CPU has, and what OpenSSL is told to leave alone. */
static void
print_cpu(void)
{
	const char *env = getenv("OPENSSL_ia32cap");
	char line[8192] = "";
	bool aes, pcl, m_aes, m_pcl;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "flags", 5) == 0)
			break;
	if (f != NULL)
		fclose(f);
	aes = strncmp(line, "flags", 5) == 0 && cpu_has(line, "aes");
	pcl = strncmp(line, "flags", 5) == 0 && cpu_has(line, "pclmulqdq");
	m_aes = cap_masked(env, CAP_AESNI);
	m_pcl = cap_masked(env, CAP_PCLMUL);
	printf("cpu: aes-ni %s, pclmulqdq %s (/proc/cpuinfo); masked for OpenSSL: %s%s",
		aes ? "yes" : "no", pcl ? "yes" : "no",
		m_aes && m_pcl ? "aes-ni, pclmulqdq" : m_aes ? "aes-ni" : m_pcl ? "pclmulqdq" : "no",
		leaf7_cleared(env) ? ", and CPUID leaf 7 (AVX2, AVX-512...)" : "");
	if (env != NULL)
		printf(" (OPENSSL_ia32cap=%s)", env);
	printf("\n");
}

/* Run this binary again with OPENSSL_ia32cap=SOFTWARE_AES and @p argv less --software-aes
 * (or an abbreviation of it). @return only on failure. */
static void
reexec_software_aes(int argc, char **argv)
{
	static const char flag[] = "--software-aes";
	char **nargv = calloc((size_t)argc + 1, sizeof(*nargv));
	int i, n = 0;

	if (nargv == NULL)
		return;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (i > 0 && l > 2 && l < sizeof(flag) && strncmp(argv[i], flag, l) == 0)
			continue;
		nargv[n++] = argv[i];
	}
	nargv[n] = NULL;
	if (setenv("OPENSSL_ia32cap", SOFTWARE_AES, 1) != 0)
		return;
	fflush(NULL);
	execv("/proc/self/exe", nargv);
	perror("bench_auth: execv /proc/self/exe");
	free(nargv);
}

/* Parse --sizes' comma-separated list into @p sizes. @return how many, or 0 if bad. */
static unsigned int
parse_sizes(const char *s, size_t *sizes)
{
	unsigned int n = 0;
	char *end;

	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s || v < INNER_OFF || v > MAX_FRAME || n == MAX_SIZES)
			return 0;
		sizes[n++] = (size_t)v;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return 0;
		s = end + 1;
	}
}

/* Point the frame's pieces at its first @p len bytes, write the length into its header and
 * make data_verify's good tag. @return 0 or -1. */
static int
frame_use(struct ctx *c, size_t len)
{
	if (c->len == len)
		return 0;
	c->len = len;
	c->seg[0] = (struct sb_auth_seg){ c->frame, HEAD_LEN };
	c->seg[1] = (struct sb_auth_seg){ c->frame + INNER_OFF, len - INNER_OFF };
	c->frame[SB_HDR_LEN] = (uint8_t)(len >> 8);
	c->frame[SB_HDR_LEN + 1] = (uint8_t)len;
	c->good_pn = c->pn;
	if (data_op(c, OP_DATA_GCM, c->good_tag) != 0 ||
			sb_auth_data_verify(&c->dk, c->good_pn, c->seg, 2, c->good_tag) != 0) {
		fprintf(stderr, "bench_auth: sb_auth_data_mac() or its check fails\n");
		return -1;
	}
	return 0;
}

/* Check that the two ChaCha20-Poly1305 lines make the same tag over @p len bytes.
 * @return 0 or -1. */
static int
frame_check(struct ctx *c, size_t len)
{
	uint8_t t1[SB_AUTH_DATA_TAG_LEN], t2[SB_AUTH_DATA_TAG_LEN];
	uint64_t pn;

	if (frame_use(c, len) != 0)
		return -1;
	pn = c->pn;
	if (data_op(c, OP_CHACHA_SODIUM, t1) != 0)
		return -1;
	c->pn = pn;
	if (data_op(c, OP_CHACHA_OPENSSL, t2) != 0 || memcmp(t1, t2, sizeof(t1)) != 0) {
		fprintf(stderr, "bench_auth: libsodium's and OpenSSL's ChaCha20-Poly1305 tags "
			"differ over %zu bytes\n", len);
		return -1;
	}
	return 0;
}

/* One timed run of @p j, after one untimed call (the other lines ran since its last run).
 * @return 0 or -1 (no frame). */
static int
run_job(struct ctx *c, struct job *j, unsigned int r)
{
	struct sample s;

	if (j->op < OP_HELLO_MAC && frame_use(c, j->bytes) != 0)
		return -1;
	run_once(c, j->op, 1, &j->bad);
	s = run_once(c, j->op, j->iters, &j->bad);
	j->ns[r] = s.ns;
	j->cyc[r] = s.cycles;
	return 0;
}

/* Keys for every operation. @return 0 or -1. */
static int
keys_setup(struct ctx *c)
{
	struct sb_auth_dir_ids ids = { .tx_host = 1, .rx_host = 2 };

	c->key.id = 1;
	randombytes_buf(c->key.secret, sizeof(c->key.secret));
	sb_auth_nonce_new(ids.tx_nonce);
	sb_auth_nonce_new(ids.rx_nonce);
	if (sb_auth_data_key_init(&c->dk) != 0 || sb_auth_data_key_set(&c->dk, &c->key,
			&ids) != 0) {
		fprintf(stderr, "bench_auth: no AES-256-GCM direction key\n");
		return -1;
	}
	randombytes_buf(c->cand_key, sizeof(c->cand_key));
	c->chacha = EVP_CIPHER_CTX_new();
	if (c->chacha == NULL || EVP_EncryptInit_ex(c->chacha, EVP_chacha20_poly1305(), NULL,
			c->cand_key, NULL) != 1) {
		fprintf(stderr, "bench_auth: OpenSSL has no ChaCha20-Poly1305\n");
		return -1;
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench_auth [--runs R (1-%d)] [--run-us US (10-1000000)] "
		"[--sizes B,B,... (%d-%d, at most %d; default " DEFAULT_SIZES ")] "
		"[--hello-len BYTES (1-%d)] [--more] [--software-aes]\n", MAX_RUNS, INNER_OFF,
		MAX_FRAME, MAX_SIZES, MAX_HELLO);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "run-us", required_argument, NULL, 'u' },
		{ "sizes", required_argument, NULL, 's' },
		{ "hello-len", required_argument, NULL, 'l' },
		{ "more", no_argument, NULL, 'm' },
		{ "software-aes", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	static const enum op data_ops[N_DATA_OPS] = { OP_DATA_GCM, OP_DATA_VERIFY,
		OP_CHACHA_SODIUM, OP_BLAKE2B, OP_CHACHA_OPENSSL };
	static struct job jobs[MAX_JOBS];
	static struct ctx c;
	char **orig = calloc((size_t)argc + 1, sizeof(*orig));
	size_t sizes[MAX_SIZES];
	unsigned int runs = 31, n_sizes, n_jobs = 0, i, k, r;
	double run_ns = 500e3;
	bool more = false, software_aes = false;
	const char *env;
	int o, rc = 0;
	long v;

	/* getopt_long permutes argv: keep it as given for --software-aes. */
	if (orig == NULL)
		return 1;
	memcpy(orig, argv, (size_t)argc * sizeof(*orig));
	n_sizes = parse_sizes(DEFAULT_SIZES, sizes);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			v = strtol(optarg, NULL, 10);
			if (v < 1 || v > MAX_RUNS)
				usage();
			runs = (unsigned int)v;
			break;
		case 'u':
			v = strtol(optarg, NULL, 10);
			if (v < 10 || v > 1000000)
				usage();
			run_ns = (double)v * 1e3;
			break;
		case 's':
			n_sizes = parse_sizes(optarg, sizes);
			if (n_sizes == 0)
				usage();
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
		case 'a':
			software_aes = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	/* Already under the mask (a re-executed run, or set by hand): go on as is. */
	env = getenv("OPENSSL_ia32cap");
	if (software_aes && (env == NULL || strcmp(env, SOFTWARE_AES) != 0)) {
		reexec_software_aes(argc, orig);
		return 1;
	}
	free(orig);
	if (c.hello_len == 0)
		c.hello_len = SB_HDR_LEN + SB_HELLO_LEN + 17 * SB_HELLO_ENTRY_LEN;
	if (sb_auth_init() != 0) {
		fprintf(stderr, "bench_auth: libsodium does not start\n");
		return 1;
	}
	if (keys_setup(&c) != 0)
		return 1;
	for (i = 0; i < MAX_FRAME; i++)
		c.frame[i] = (uint8_t)(0x40 + i);
	for (i = 0; i < MAX_HELLO; i++)
		c.hello[i] = (uint8_t)(i * 13);

	print_cpu();
	printf("note: chacha20poly1305_sodium copies the frame's covered bytes contiguous "
		"(memcpy of both pieces into one buffer) before each tag; the copy is timed\n");
	for (k = 0; k < n_sizes; k++) {
		if (frame_check(&c, sizes[k]) != 0)
			return 1;
		for (i = 0; i < N_DATA_OPS; i++)
			jobs[n_jobs++] = (struct job){ .op = data_ops[i], .bytes = sizes[k] };
	}
	jobs[n_jobs++] = (struct job){ .op = OP_HELLO_MAC, .bytes = c.hello_len };
	if (more)
		jobs[n_jobs++] = (struct job){ .op = OP_HMAC, .bytes = c.hello_len };
	for (i = 0; i < n_jobs && rc == 0; i++) {
		rc = jobs[i].op < OP_HELLO_MAC ? frame_use(&c, jobs[i].bytes) : 0;
		jobs[i].iters = batch_for(&c, jobs[i].op, run_ns, &jobs[i].bad);
	}
	/* Run r of every line, then run r + 1: a busy spell slows every line alike. */
	for (r = 0; r < runs && rc == 0; r++)
		for (i = 0; i < n_jobs && rc == 0; i++)
			rc = run_job(&c, &jobs[i], r);
	for (i = 0; i < n_jobs && rc == 0; i++)
		rc = report(&jobs[i], runs);
	EVP_CIPHER_CTX_free(c.chacha);
	sb_auth_data_key_free(&c.dk);
	sb_auth_wipe(&c.key, sizeof(c.key));
	sb_auth_wipe(c.cand_key, sizeof(c.cand_key));
	return rc == 0 ? 0 : 1;
}
