/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CSUM_H
#define SB_CSUM_H

/**
 * @file
 * The Internet checksum's one's complement sum (RFC 1071) over a buffer, for the tap-vnet
 * exception path, which sums every byte it cuts into frames or checks before handing frames
 * to the kernel (drivers_glue/sb_vnet.c). DPDK's rte_raw_cksum() adds 2 bytes a step; here
 * the buffer's 32-bit words are added into 64-bit accumulators, which loses no carry below
 * 2^32 words and folds to the same 16-bit sum as adding its 16-bit words (RFC 1071 s.2(B):
 * the sum depends neither on byte order nor on the width of the words added). On x86 CPUs
 * with AVX2, sb_csum_raw() adds 64 bytes a step in vector registers (chosen once, at start).
 */

#include <stddef.h>
#include <stdint.h>

/**
 * Unfolded one's complement sum of @p len bytes at @p buf (any alignment, any length; the
 * bytes of an odd-length tail keep their place in a zero-padded word). Sums of pieces that
 * start at even offsets of a packet add up; a piece at an odd offset must be byte-swapped
 * after folding (RFC 1071 s.2(B)).
 * @return the sum, to be folded with sb_csum_fold().
 */
uint64_t sb_csum_raw(const void *buf, size_t len);

/** sb_csum_raw() in plain C, on every CPU (for tests and benchmarks). */
uint64_t sb_csum_raw_scalar(const void *buf, size_t len);

/** sb_csum_raw() with AVX2 (for tests and benchmarks): only where sb_csum_has_avx2(). */
uint64_t sb_csum_raw_avx2(const void *buf, size_t len);

/** Whether this CPU runs sb_csum_raw_avx2() (and so sb_csum_raw() uses it). */
int sb_csum_has_avx2(void);

/** Fold an unfolded sum to 16 bits (not complemented). */
static inline uint16_t
sb_csum_fold(uint64_t s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

#endif /* SB_CSUM_H */
