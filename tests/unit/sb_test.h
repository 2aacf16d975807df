/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_TEST_H
#define SB_TEST_H

/* Minimal check macros for the unit tests: count, report the failing expression, and let
 * main() return sb_test_summary(), which prints "N passed, N failed". */

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

#endif /* SB_TEST_H */
