/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_TEST_H
#define SB_TEST_H

/* Minimal check macros for the unit tests: count, report the failing expression, and let
 * main() return sb_test_summary(), which prints "N passed, N failed". */

#include <stdint.h>
#include <stdio.h>

static unsigned int sb_test_pass, sb_test_fail;

#define SB_CHECK(cond, ...) do { \
	if (cond) { \
		sb_test_pass++; \
	} else { \
		sb_test_fail++; \
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

static inline int
sb_test_summary(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, sb_test_pass, sb_test_fail);
	return sb_test_fail == 0 ? 0 : 1;
}

/*
 * xorshift64*: a generator of the tests' own, so that a seed gives the same sequence under
 * every libc. @p state holds the generator (a state of 0 stays 0); @return the next 32 bits.
 */
static inline uint32_t
sb_test_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (uint32_t)((*state * UINT64_C(2685821657736338717)) >> 32);
}

#endif /* SB_TEST_H */
