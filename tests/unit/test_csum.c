/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one's complement sum (lib/csum) against the tests' own RFC 1071 code (sb_csum_ref.h):
 * the plain C sum, the AVX2 sum where this CPU has AVX2, and the one sb_csum_raw() chose, over
 * every length up to 300 bytes and random ones up to 64 KiB, at every start offset of a
 * 64-byte line, on random bytes and on all-ones bytes (the largest carries).
 */
#include <string.h>

#include <rte_byteorder.h>

#include "sb_csum.h"
#include "sb_csum_ref.h"
#include "sb_test.h"

#define BUF_LEN (65536 + 128)

static uint8_t buf[BUF_LEN];

/* The reference sums big-endian words; a sum of native (little-endian) words folds to its
 * byte swap (RFC 1071 s.2(B)). */
static uint16_t
ref_native(const uint8_t *p, size_t len)
{
	/* swapped on a little-endian CPU, as it is on the wire on a big-endian one */
	return rte_cpu_to_be_16(fold(sum16(p, len, 0)));
}

static void
check(size_t off, size_t len, const char *what)
{
	uint16_t want = ref_native(buf + off, len);

	SB_CHECK(sb_csum_fold(sb_csum_raw_scalar(buf + off, len)) == want,
		"scalar, %s, offset %zu, %zu bytes", what, off, len);
	if (sb_csum_has_avx2())
		SB_CHECK(sb_csum_fold(sb_csum_raw_avx2(buf + off, len)) == want,
			"avx2, %s, offset %zu, %zu bytes", what, off, len);
	SB_CHECK(sb_csum_fold(sb_csum_raw(buf + off, len)) == want,
		"chosen, %s, offset %zu, %zu bytes", what, off, len);
}

int
main(void)
{
	uint64_t rng = 0x5eed;
	size_t i, off, len;
	int fill;

	printf("test_csum: AVX2 %s\n", sb_csum_has_avx2() ? "present: both sums checked" :
		"absent: the plain C sum only");
	for (fill = 0; fill < 2; fill++) {
		const char *what = fill == 0 ? "random bytes" : "all ones";

		for (i = 0; i < BUF_LEN; i++)
			buf[i] = fill == 0 ? (uint8_t)sb_test_rand(&rng) : 0xff;
		for (off = 0; off < 64; off++)
			for (len = 0; len <= 300; len++)
				check(off, len, what);
		for (i = 0; i < 2000; i++) {
			off = sb_test_rand(&rng) % 64;
			len = sb_test_rand(&rng) % 65537;
			check(off, len, what);
		}
		check(0, 65536, what);
	}
	/* Sums of pieces at even offsets add up to the sum of the whole. */
	for (i = 0; i < 1000; i++) {
		size_t a = (sb_test_rand(&rng) % 32768) & ~(size_t)1, b = sb_test_rand(&rng) % 32768;

		SB_CHECK(sb_csum_fold(sb_csum_raw(buf, a) + sb_csum_raw(buf + a, b)) ==
			sb_csum_fold(sb_csum_raw(buf, a + b)), "pieces %zu + %zu", a, b);
	}
	return sb_test_summary("test_csum");
}
