/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CSUM_REF_H
#define SB_CSUM_REF_H

/*
 * The tests' own RFC 1071 checksum arithmetic, written apart from the code under test (not
 * rte_raw_cksum(), not drivers_glue/sb_vnet.c), so that a checksum bug there cannot hide
 * itself. Used by tests/unit/test_vnet.c and tests/integration/exc_fwd.c over linear copies
 * of frames.
 */

#include <stddef.h>
#include <stdint.h>

/* RFC 1071 sum of big-endian 16-bit words, folded. */
static inline uint32_t
sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

#endif /* SB_CSUM_REF_H */
