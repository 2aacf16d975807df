/* SPDX-License-Identifier: BSD-3-Clause */
/* The one's complement sum (sb_csum.h): plain C, and AVX2 where the CPU has it. */
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>

#include "sb_csum.h"

#if defined(RTE_ARCH_X86)
#include <immintrin.h>
#endif

uint64_t
sb_csum_raw_scalar(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, w[4], tail = 0;

	/* Four accumulators of the 32-bit halves of native 64-bit words, 32 bytes a step. */
	for (; len >= 32; len -= 32, p += 32) {
		memcpy(w, p, 32);
		s0 += (w[0] & 0xffffffff) + (w[0] >> 32);
		s1 += (w[1] & 0xffffffff) + (w[1] >> 32);
		s2 += (w[2] & 0xffffffff) + (w[2] >> 32);
		s3 += (w[3] & 0xffffffff) + (w[3] >> 32);
	}
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(w, p, 8);
		s0 += (w[0] & 0xffffffff) + (w[0] >> 32);
	}
	/* Up to 7 bytes keep their place in a zeroed word. */
	memcpy(&tail, p, len);
	s1 += (tail & 0xffffffff) + (tail >> 32);
	return s0 + s1 + s2 + s3;
}

#if defined(RTE_ARCH_X86)
/* Each 32-bit word, zero-extended into a 64-bit lane (unpack with zero), is added to one of
 * two accumulators of four lanes: the same words the scalar loop adds, 64 bytes a step. */
__attribute__((target("avx2"))) uint64_t
sb_csum_raw_avx2(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	__m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
	const __m256i zero = _mm256_setzero_si256();
	uint64_t lane[4];

	for (; len >= 64; len -= 64, p += 64) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)p);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));

		a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(v0, zero));
		a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(v0, zero));
		a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(v1, zero));
		a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(v1, zero));
	}
	_mm256_storeu_si256((__m256i *)lane, _mm256_add_epi64(a0, a1));
	/* The rest starts 64-byte aligned relative to buf: its words keep their place. */
	return lane[0] + lane[1] + lane[2] + lane[3] + sb_csum_raw_scalar(p, len);
}

int
sb_csum_has_avx2(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;
}
#else
uint64_t
sb_csum_raw_avx2(const void *buf, size_t len)
{
	return sb_csum_raw_scalar(buf, len);
}

int
sb_csum_has_avx2(void)
{
	return 0;
}
#endif

static uint64_t (*csum_raw)(const void *, size_t) = sb_csum_raw_scalar;

RTE_INIT(sb_csum_init)
{
	if (sb_csum_has_avx2())
		csum_raw = sb_csum_raw_avx2;
}

uint64_t
sb_csum_raw(const void *buf, size_t len)
{
	return csum_raw(buf, len);
}
