/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the reorder window (lib/reorder) driven by an arbitrary stream of
 * operations, with its contract checked after every call.
 *
 * Input: 4 header bytes, then operations.
 *   header[0]  bits 0-3: log2(window) - 1 (window 2..1024); bit 4: late policy deliver;
 *              bits 5-6: max_jump choice (default, window, 2^31, window * 3); bit 7: late
 *              policy fill (over bit 4)
 *   header[1]  timeout in clock units (0..255)
 *   header[2..3] when header[2] is odd, set_next(header[3] << 24 | 0xffff00): starts close
 *              to a 2^32 wrap half the time; header[2] bit 1: jump_confirm 1 + bits 2-3;
 *              bits 4-5: jump_bound none, the time since the last release in order (a
 *              frame per clock unit), 0, or two windows
 *   op byte: bits 0-2 select:
 *     0-3  insert: path = next byte (values >= 32 are invalid paths on purpose), then a
 *          sequence: op bit 3 set: 4 raw bytes; otherwise one signed byte added to the
 *          window's next expected number; op bits 4-7: clock advance
 *     4    drain: capacity 1 + next byte % 64, clock advance op bits 4-7
 *     5    path_set_active(next byte % 40, op bit 3)
 *     6    reset (op bit 3 clear) or set_next (op bit 3 set, 4 raw bytes)
 *     7    clock advance by next byte * 16
 *
 * Model: every object is a token with an owner (window, caller, delivered, freed). Checked:
 *   - a verdict other than HELD leaves the token with the caller; HELD gives it to the window
 *   - drain returns only tokens the window holds, each once, in strictly increasing sequence
 *     order (64-bit unwrapped numbering, per epoch between resets)
 *   - policy fill delivers a late number only if it was neither drained nor filled before
 *     in its epoch: no number reaches the caller twice
 *   - a late verdict is only given to a number before the expected one, a duplicate only when
 *     that number is held, out of range only when 2^31 away or at least window ahead
 *   - occupancy equals the tokens the window owns; after a drain that was not cut short by
 *     its capacity, no held frame has waited the timeout (gaps are released without arrivals)
 *   - free() hands back exactly the tokens still owned; every token ends in one place
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_reorder.h"
#include "sb_seq.h"

#define MAX_TOKENS 4096

enum owner { O_NONE = 0, O_WINDOW, O_CALLER, O_DELIVERED, O_FREED };

struct token {
	uint8_t owner;
	uint8_t filled;		/* delivered late by policy fill */
	uint32_t epoch;
	int64_t seq64;		/* unwrapped number within its epoch */
	uint64_t arrival;
};

struct model {
	struct sb_reorder *r;
	uint32_t window;
	uint32_t max_jump;
	uint64_t timeout;
	uint64_t now;
	bool fill;		/* late policy fill */
	/* Unwrapped view of the window's next expected number, per epoch. */
	uint32_t epoch;
	bool started;
	uint32_t next32;
	int64_t next64;
	bool have_last;
	int64_t last64;		/* last drained number of this epoch */
	unsigned int n_tokens;
	unsigned int owned;	/* tokens with owner O_WINDOW */
	struct token tok[MAX_TOKENS];
};

static struct model M;

/* The jump bounds header[2] bits 4-5 choose (none is NULL). */
static uint32_t
bound_elapsed(void *arg, uint64_t elapsed)
{
	(void)arg;
	return elapsed > UINT32_MAX ? UINT32_MAX : (uint32_t)elapsed;
}

static uint32_t
bound_zero(void *arg, uint64_t elapsed)
{
	(void)arg;
	(void)elapsed;
	return 0;
}

static uint32_t
bound_two_windows(void *arg, uint64_t elapsed)
{
	(void)elapsed;
	return 2 * *(const uint32_t *)arg;
}

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_reorder: invariant failed: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* Track how far the window's next moved: every call moves it forward by less than 2^31. */
static void
sync_next(struct model *m)
{
	uint32_t n = sb_reorder_next_seq(m->r);

	if (!m->started)
		return;
	CHECK(sb_seq_diff(n, m->next32) >= 0, "next went back from %u to %u", m->next32, n);
	m->next64 += (uint32_t)(n - m->next32);
	m->next32 = n;
}

static void
free_cb(void *obj, void *arg)
{
	struct token *t = obj;

	(void)arg;
	CHECK(t->owner == O_WINDOW, "freed token %td not owned by the window (owner %u)",
		t - M.tok, t->owner);
	t->owner = O_FREED;
	M.owned--;
}

static void
check_occupancy(struct model *m)
{
	struct sb_reorder_stats st;

	sb_reorder_stats_get(m->r, &st);
	CHECK(st.occupancy == m->owned, "occupancy %u, model %u", st.occupancy, m->owned);
	/* ring + slide queue + the in-order list (SB_REORDER_READY, 64) */
	CHECK(st.occupancy <= 2 * m->window + 64, "occupancy %u > 2 windows + 64",
		st.occupancy);
}

static bool
held_seq(const struct model *m, int64_t s64)
{
	unsigned int i;

	for (i = 0; i < m->n_tokens; i++)
		if (m->tok[i].owner == O_WINDOW && m->tok[i].epoch == m->epoch &&
				m->tok[i].seq64 == s64)
			return true;
	return false;
}

static void
do_insert(struct model *m, unsigned int path, uint32_t seq)
{
	struct token *t;
	enum sb_reorder_verdict v;
	int32_t d;
	int64_t s64;

	if (m->n_tokens == MAX_TOKENS)
		return;
	t = &m->tok[m->n_tokens++];
	if (!m->started && path < SB_REORDER_MAX_PATHS) {
		/* The first frame on a valid path sets the expected number. */
		m->started = true;
		m->next32 = seq;
		m->next64 = (int64_t)1 << 40;
	}
	d = m->started ? sb_seq_diff(seq, m->next32) : 0;
	s64 = m->next64 + d;
	v = sb_reorder_insert(m->r, path, seq, t, m->now);
	switch (v) {
	case SB_REORDER_HELD:
		CHECK(path < SB_REORDER_MAX_PATHS, "bad path %u held", path);
		CHECK(d >= 0 && (uint32_t)d < m->max_jump, "seq %u held at distance %d", seq, d);
		CHECK(!held_seq(m, s64), "seq %u held twice", seq);
		t->owner = O_WINDOW;
		t->epoch = m->epoch;
		t->seq64 = s64;
		t->arrival = m->now;
		m->owned++;
		break;
	case SB_REORDER_LATE_DROPPED:
	case SB_REORDER_LATE_DELIVERED:
		CHECK(path < SB_REORDER_MAX_PATHS, "bad path %u late", path);
		CHECK(d < 0 && d != INT32_MIN, "seq %u late at distance %d", seq, d);
		t->owner = O_CALLER;
		if (m->fill && v == SB_REORDER_LATE_DELIVERED) {
			unsigned int i;

			for (i = 0; i + 1 < m->n_tokens; i++)
				CHECK(m->tok[i].epoch != m->epoch || m->tok[i].seq64 != s64 ||
					(m->tok[i].owner != O_DELIVERED && !m->tok[i].filled),
					"fill delivered seq %u a second time", seq);
			t->epoch = m->epoch;
			t->seq64 = s64;
			t->filled = 1;
		}
		break;
	case SB_REORDER_DUPLICATE:
		CHECK(d >= 0 && held_seq(m, s64), "duplicate seq %u not held (distance %d)",
			seq, d);
		t->owner = O_CALLER;
		break;
	case SB_REORDER_OUT_OF_RANGE:
		CHECK(d == INT32_MIN || (d > 0 && (uint32_t)d >= m->window),
			"seq %u out of range at distance %d", seq, d);
		t->owner = O_CALLER;
		break;
	case SB_REORDER_BAD_PATH:
		CHECK(path >= SB_REORDER_MAX_PATHS, "path %u called bad", path);
		t->owner = O_CALLER;
		break;
	case SB_REORDER_STRAY:
		/* A window ahead, unconfirmed: refused with the window unchanged (sync_next
		 * checks next did not move). */
		CHECK(d > 0 && (uint32_t)d >= m->window && (uint32_t)d < m->max_jump,
			"seq %u stray at distance %d", seq, d);
		t->owner = O_CALLER;
		break;
	default:
		CHECK(0, "unknown verdict %d", v);
	}
	sync_next(m);
	check_occupancy(m);
}

static void
do_drain(struct model *m, unsigned int cap)
{
	void *objs[64];
	unsigned int got, i;

	got = sb_reorder_drain(m->r, objs, cap, m->now);
	CHECK(got <= cap, "drained %u > %u", got, cap);
	for (i = 0; i < got; i++) {
		struct token *t = objs[i];

		CHECK(t >= m->tok && t < m->tok + m->n_tokens, "drained a foreign object");
		CHECK(t->owner == O_WINDOW, "drained token %td owned by %u", t - m->tok, t->owner);
		CHECK(t->epoch == m->epoch, "drained a token of an older epoch");
		CHECK(!m->have_last || t->seq64 > m->last64,
			"drained %" PRId64 " after %" PRId64, t->seq64, m->last64);
		m->have_last = true;
		m->last64 = t->seq64;
		t->owner = O_DELIVERED;
		m->owned--;
	}
	sync_next(m);
	check_occupancy(m);
	if (got < cap) {
		/* Nothing releasable is left: every held frame waits less than the timeout. */
		for (i = 0; i < m->n_tokens; i++) {
			const struct token *t = &m->tok[i];

			if (t->owner == O_WINDOW)
				CHECK(m->now - t->arrival < m->timeout,
					"token %u (seq64 %" PRId64 ") held %" PRIu64 " >= timeout %"
					PRIu64, i, t->seq64, m->now - t->arrival, m->timeout);
		}
	}
}

static void
new_epoch(struct model *m, bool started, uint32_t next)
{
	m->epoch++;
	m->started = started;
	m->next32 = next;
	m->next64 = (int64_t)1 << 40;
	m->have_last = false;
}

/*
 * A raw sequence number: the 4 bytes at data[*pos], big-endian, *pos moved past them.
 * @return false, with *pos moved to the end, when fewer than 4 are left.
 */
static bool
take_seq(const uint8_t *data, size_t size, size_t *pos, uint32_t *seq)
{
	if (size - *pos < 4) {
		*pos = size;
		return false;
	}
	*seq = (uint32_t)data[*pos] << 24 | (uint32_t)data[*pos + 1] << 16 |
		(uint32_t)data[*pos + 2] << 8 | data[*pos + 3];
	*pos += 4;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t jumps[4] = { 0, 0, UINT32_C(1) << 31, 0 };
	static uint32_t (*const bounds[4])(void *, uint64_t) = {
		NULL, bound_elapsed, bound_zero, bound_two_windows,
	};
	struct sb_reorder_conf conf;
	struct model *m = &M;
	size_t pos = 4;
	unsigned int i, delivered = 0, caller = 0, freed = 0;

	if (size < 4)
		return 0;
	memset(m, 0, sizeof(*m));
	memset(&conf, 0, sizeof(conf));
	m->window = UINT32_C(2) << (data[0] & 0x0f) % 10;
	conf.window = m->window;
	conf.timeout = data[1];
	conf.late_policy = (data[0] & 0x10) ? SB_REORDER_LATE_DELIVER : SB_REORDER_LATE_DROP;
	m->fill = (data[0] & 0x80) != 0;
	if (m->fill)
		conf.late_policy = SB_REORDER_LATE_FILL;
	conf.max_jump = jumps[(data[0] >> 5) & 3];
	if (((data[0] >> 5) & 3) == 1)
		conf.max_jump = m->window;
	else if (((data[0] >> 5) & 3) == 3)
		conf.max_jump = m->window * 3;
	m->max_jump = conf.max_jump != 0 ? conf.max_jump : UINT32_C(1) << 30;
	m->timeout = conf.timeout;
	if (data[2] & 2)
		conf.jump_confirm = 1 + ((data[2] >> 2) & 3);
	conf.jump_bound = bounds[(data[2] >> 4) & 3];
	conf.jump_bound_arg = &m->window;
	m->r = sb_reorder_create(&conf);
	CHECK(m->r != NULL, "create failed for window %u", m->window);
	if (data[2] & 1) {
		uint32_t n = (uint32_t)data[3] << 24 | UINT32_C(0xffff00);

		CHECK(sb_reorder_set_next(m->r, n) == 0, "set_next on an empty window");
		new_epoch(m, true, n);
	}

	while (pos < size) {
		uint8_t op = data[pos++];
		unsigned int path;
		uint32_t seq;

		switch (op & 7) {
		case 0: case 1: case 2: case 3:
			if (pos >= size)
				break;
			path = data[pos++];
			if (op & 8) {
				if (!take_seq(data, size, &pos, &seq))
					break;
			} else {
				if (pos >= size)
					break;
				seq = sb_reorder_next_seq(m->r) + (int8_t)data[pos++];
			}
			m->now += op >> 4;
			do_insert(m, path, seq);
			break;
		case 4:
			if (pos >= size)
				break;
			m->now += op >> 4;
			do_drain(m, 1 + data[pos++] % 64);
			break;
		case 5:
			if (pos >= size)
				break;
			path = data[pos++] % 40;
			CHECK(sb_reorder_path_set_active(m->r, path, op & 8) ==
				(path < SB_REORDER_MAX_PATHS ? 0 : -EINVAL), "set_active %u", path);
			break;
		case 6:
			if (op & 8) {
				int ret;

				if (!take_seq(data, size, &pos, &seq))
					break;
				ret = sb_reorder_set_next(m->r, seq);
				CHECK(ret == (m->owned != 0 ? -EBUSY : 0),
					"set_next returned %d with %u owned", ret, m->owned);
				if (ret == 0)
					new_epoch(m, true, seq);
			} else {
				sb_reorder_reset(m->r, free_cb, NULL);
				CHECK(m->owned == 0, "reset kept %u tokens", m->owned);
				new_epoch(m, false, 0);
			}
			check_occupancy(m);
			break;
		default:
			if (pos >= size)
				break;
			m->now += (uint64_t)data[pos++] * 16;
			break;
		}
	}
	/* Traffic stops: one drain after the timeout releases everything held. */
	m->now += m->timeout + 1;
	do {
		i = m->owned;
		do_drain(m, 64);
	} while (m->owned != 0 && m->owned != i);
	CHECK(m->owned == 0, "%u frames still held after the timeout with no arrivals",
		m->owned);
	sb_reorder_free(m->r, free_cb, NULL);
	for (i = 0; i < m->n_tokens; i++) {
		switch (m->tok[i].owner) {
		case O_DELIVERED: delivered++; break;
		case O_CALLER: caller++; break;
		case O_FREED: freed++; break;
		default: CHECK(0, "token %u left with owner %u", i, m->tok[i].owner);
		}
	}
	CHECK(delivered + caller + freed == m->n_tokens, "token accounting");
	return 0;
}
