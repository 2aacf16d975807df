/* SPDX-License-Identifier: BSD-3-Clause */
/* RFC 1982 serial number arithmetic across the 2^32 wrap. */
#include <stdlib.h>

#include "sb_seq.h"
#include "sb_test.h"

int
main(void)
{
	static const uint32_t bases[] = { 0, 1, 0x7ffffffe, 0x7fffffff, 0x80000000, 0xfffffff0,
		0xffffffff };
	unsigned int i, k;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		uint32_t a = bases[i];
		static const uint32_t deltas[] = { 1, 2, 1000, 0x7ffffffe, 0x7fffffff };

		SB_CHECK(!sb_seq_lt(a, a) && sb_seq_le(a, a), "a vs a at %u", a);
		for (k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++) {
			uint32_t b = a + deltas[k];	/* wraps on purpose */

			SB_CHECK(sb_seq_lt(a, b), "%u before %u (+%u)", a, b, deltas[k]);
			SB_CHECK(!sb_seq_lt(b, a), "%u not before %u", b, a);
			SB_CHECK(sb_seq_diff(b, a) == (int32_t)deltas[k], "diff +%u", deltas[k]);
			SB_CHECK(sb_seq_diff(a, b) == -(int32_t)deltas[k], "diff -%u", deltas[k]);
			SB_CHECK(sb_seq_max(a, b) == b && sb_seq_min(a, b) == a, "min/max");
		}
		/* Exactly half the space apart: undefined by RFC 1982, neither is before. */
		SB_CHECK(!sb_seq_lt(a, a + 0x80000000u) && !sb_seq_lt(a + 0x80000000u, a),
			"half space at %u", a);
		SB_CHECK(sb_seq_diff(a + 0x80000000u, a) == INT32_MIN, "half space diff");
	}
	/* Random pairs agree with 64-bit arithmetic on an unwrapped counter. */
	srand(7);
	for (i = 0; i < 1000000; i++) {
		uint64_t x = ((uint64_t)rand() << 31 | rand()) & 0xffffffffffULL;
		int64_t d = (int64_t)(rand() % 0x7fffffff) - 0x3fffffff;
		uint64_t y = x + d;
		int ok = sb_seq_lt((uint32_t)x, (uint32_t)y) == (d > 0) &&
			sb_seq_diff((uint32_t)y, (uint32_t)x) == d;

		if (!ok) {
			SB_CHECK(ok, "x=%llu d=%lld", (unsigned long long)x, (long long)d);
			break;
		}
	}
	SB_CHECK(i == 1000000, "random pairs all agreed");
	return sb_test_summary("test_seq");
}
