/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_SEQ_H
#define SB_SEQ_H

/**
 * @file
 * Wrap-safe comparison of 32-bit sequence numbers.
 *
 * Serial number arithmetic as defined by RFC 1982 (SERIAL_BITS = 32): a is "before" b when
 * the forward distance from a to b is in (0, 2^31). Two numbers exactly 2^31 apart are not
 * comparable; these helpers treat that case as "not before" in both directions, and callers
 * that accept wire input reject such distances explicitly (see sb_seq_diff()).
 */

#include <stdbool.h>
#include <stdint.h>

/**
 * Signed forward distance from @p from to @p to, in sequence numbers.
 *
 * @return to - from interpreted modulo 2^32 into [-2^31, 2^31 - 1]. INT32_MIN means the two
 *   numbers are exactly half the space apart, which RFC 1982 leaves undefined.
 */
static inline int32_t
sb_seq_diff(uint32_t to, uint32_t from)
{
	return (int32_t)(to - from);
}

/** @return true when @p a comes strictly before @p b (RFC 1982 s.3.2). */
static inline bool
sb_seq_lt(uint32_t a, uint32_t b)
{
	int32_t d = sb_seq_diff(b, a);

	return d > 0;
}

/** @return true when @p a comes before or equals @p b. */
static inline bool
sb_seq_le(uint32_t a, uint32_t b)
{
	return a == b || sb_seq_lt(a, b);
}

/** @return the later of @p a and @p b (either when incomparable). */
static inline uint32_t
sb_seq_max(uint32_t a, uint32_t b)
{
	return sb_seq_lt(a, b) ? b : a;
}

/** @return the earlier of @p a and @p b (either when incomparable). */
static inline uint32_t
sb_seq_min(uint32_t a, uint32_t b)
{
	return sb_seq_lt(b, a) ? b : a;
}

#endif /* SB_SEQ_H */
