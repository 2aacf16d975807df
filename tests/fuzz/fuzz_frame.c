/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: what the datapath does with each frame read from a member port, without
 * ports: parse (lib/wire), hellos into the peer table (lib/peer), data frames looked up to
 * their (peer, path) and offered to that peer's reorder window (lib/reorder), peer events
 * applied to the windows as app/sb_dp_ctl.c does, periodic ticks and port failures.
 *
 * Input: a sequence of records
 *   ctl   bits 0-3: local port the frame arrives on (0..15; the table sizes for 16)
 *         bits 4-6: clock advance in ms (x 3)
 *         bit 7: special record: low bits 0-3 name a port whose carrier drops; no frame
 *   len   two bytes, little endian, masked to 0..2047
 *   frame len bytes (fewer if the input ends)
 *
 * Checked: the parser never reads past the frame (ASan) and its result is consistent
 * (offsets inside the frame, minimum lengths per type); decoded hellos satisfy the
 * validity rules; the peer table stays consistent (path_of <-> paths, n_up, never our own
 * host id); a lookup only names a path heard on that port with that source MAC and port
 * index; every frame object ends exactly once delivered, freed by the caller or freed by a
 * window.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "sb_peer.h"
#include "sb_reorder.h"
#include "sb_wire.h"

#define OUR_HOST_ID 7
#define HZ 1000			/* clock units: ms */
#define WINDOW 64
#define MAX_FRAMES 4096

#define CHECK(c, ...) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_frame: invariant failed: %s: ", #c); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

enum owner { O_NONE = 0, O_WINDOW, O_DONE };

static struct sb_peer_table T;
static struct sb_reorder *win[SB_MAX_PEERS];
static uint8_t owner[MAX_FRAMES];
static unsigned int n_frames, n_owned;

static void
free_cb(void *obj, void *arg)
{
	uint8_t *o = obj;

	(void)arg;
	CHECK(*o == O_WINDOW, "window freed an object it did not own");
	*o = O_DONE;
	n_owned--;
}

static void
check_table(void)
{
	unsigned int i, j, lp, rp, up;

	CHECK(T.n_peers <= SB_MAX_PEERS, "n_peers %u", T.n_peers);
	for (i = 0; i < T.n_peers; i++) {
		const struct sb_peer *p = &T.peer[i];

		CHECK(p->host_id != 0 && p->host_id != OUR_HOST_ID, "peer host id %u",
			p->host_id);
		CHECK((p->agg_mac[0] & 1) == 0, "group aggregate MAC");
		CHECK(p->n_paths <= SB_PEER_MAX_PATHS, "n_paths %u", p->n_paths);
		for (j = i + 1; j < T.n_peers; j++)
			CHECK(T.peer[j].host_id != p->host_id, "host id %u twice", p->host_id);
		for (up = 0, j = 0; j < p->n_paths; j++) {
			const struct sb_path *path = &p->path[j];

			CHECK(path->local_port < SB_MAX_PORTS && path->remote_port < SB_MAX_PORTS,
				"path ports %u %u", path->local_port, path->remote_port);
			CHECK(p->path_of[path->remote_port][path->local_port] == (int8_t)j,
				"path_of does not point back to path %u", j);
			up += path->state == SB_PATH_UP;
		}
		CHECK(up == p->n_up, "n_up %u, %u paths up", p->n_up, up);
		for (rp = 0; rp < SB_MAX_PORTS; rp++)
			for (lp = 0; lp < SB_MAX_PORTS; lp++)
				CHECK(p->path_of[rp][lp] < (int)p->n_paths,
					"path_of[%u][%u] = %d", rp, lp, p->path_of[rp][lp]);
	}
}

static void
apply_event(const struct sb_peer_event *ev, uint64_t now)
{
	unsigned int j;

	(void)now;
	CHECK(ev->peer < T.n_peers, "event for peer %u of %u", ev->peer, T.n_peers);
	switch (ev->type) {
	case SB_PEER_EV_RESTART:
		sb_reorder_reset(win[ev->peer], free_cb, NULL);
		for (j = 0; j < SB_PEER_MAX_PATHS; j++)
			sb_reorder_path_set_active(win[ev->peer], j, false);
		break;
	case SB_PEER_EV_PATH_UP:
	case SB_PEER_EV_PATH_DOWN:
		CHECK(ev->path < T.peer[ev->peer].n_paths, "event for path %u", ev->path);
		CHECK(sb_reorder_path_set_active(win[ev->peer], ev->path,
			ev->type == SB_PEER_EV_PATH_UP) == 0, "set_active");
		break;
	default:
		break;
	}
}

static void
drain_all(uint64_t now)
{
	void *objs[32];
	unsigned int i, j, n;
	uint64_t done = 0;

	for (i = 0; i < T.n_peers; i++) {
		do {
			n = sb_reorder_drain(win[i], objs, 32, now);
			for (j = 0; j < n; j++) {
				uint8_t *o = objs[j];

				CHECK(*o == O_WINDOW, "drained an object the window did not own");
				*o = O_DONE;
				n_owned--;
				done++;
			}
		} while (n == 32);
	}
	(void)done;
}

static void
hello_in(unsigned int port, const uint8_t *buf, size_t len, uint64_t now)
{
	struct sb_peer_event ev[4];
	struct sb_hello h;
	unsigned int n_ev = 0, i;
	enum sb_wire_err e;
	int idx;

	e = sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &h);
	if (e != SB_WIRE_OK) {
		CHECK(e == SB_WIRE_E_HELLO || e == SB_WIRE_E_TRUNCATED, "hello error %d", e);
		return;
	}
	CHECK(h.host_id != 0 && h.n_ports != 0 && h.port_index < h.n_ports &&
		h.interval_ms != 0 && (h.agg_mac[0] & 1) == 0 && h.mtu >= 68,
		"absurd hello accepted");
	idx = sb_peer_hello_rx(&T, port, buf + SB_ETH_ALEN, &h, now, ev, &n_ev);
	CHECK(n_ev <= 3, "%u events", n_ev);
	if (idx >= 0) {
		CHECK(h.host_id != OUR_HOST_ID, "our own hello accepted");
		CHECK((unsigned int)idx < T.n_peers && T.peer[idx].host_id == h.host_id,
			"hello_rx returned peer %d", idx);
	} else {
		CHECK(idx == -EINVAL || idx == -ENOSPC, "hello_rx returned %d", idx);
	}
	for (i = 0; i < n_ev; i++)
		apply_event(&ev[i], now);
}

static void
data_in(unsigned int port, const uint8_t *buf, const struct sb_shim *shim, uint64_t now)
{
	unsigned int path = 0;
	uint8_t *obj;
	int pi;

	pi = sb_peer_lookup_rx(&T, port, buf + SB_ETH_ALEN, shim->path, &path);
	if (pi < 0) {
		CHECK(pi == -ENOENT, "lookup returned %d", pi);
		return;
	}
	CHECK((unsigned int)pi < T.n_peers && path < T.peer[pi].n_paths, "lookup %d/%u", pi,
		path);
	CHECK(T.peer[pi].path[path].local_port == port &&
		T.peer[pi].path[path].remote_port == shim->path &&
		memcmp(T.peer[pi].path[path].remote_mac, buf + SB_ETH_ALEN, SB_ETH_ALEN) == 0,
		"lookup names a path this frame did not come through");
	if (shim->type != SB_WIRE_DATA || n_frames == MAX_FRAMES)
		return;
	obj = &owner[n_frames++];
	if (sb_reorder_insert(win[pi], path, shim->seq, obj, now) == SB_REORDER_HELD) {
		*obj = O_WINDOW;
		n_owned++;
	} else {
		*obj = O_DONE;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sb_reorder_conf rc = { .window = WINDOW, .timeout = 30 };
	struct sb_peer_event ev[SB_MAX_PEERS * SB_PEER_MAX_PATHS];
	size_t pos = 0;
	uint64_t now = 1;
	unsigned int i, n;

	if (win[0] == NULL)
		for (i = 0; i < SB_MAX_PEERS; i++) {
			win[i] = sb_reorder_create(&rc);
			CHECK(win[i] != NULL, "create window");
		}
	CHECK(sb_peer_table_init(&T, OUR_HOST_ID, 4, HZ) == 0, "table init");
	memset(owner, 0, sizeof(owner));
	n_frames = 0;
	n_owned = 0;

	while (pos < size) {
		uint8_t ctl = data[pos++];
		unsigned int port = ctl & 0x0f;
		struct sb_shim shim;
		size_t len, off = 0;
		const uint8_t *buf;
		uint8_t *copy;
		enum sb_wire_err e;

		now += ((ctl >> 4) & 7) * 3;
		if (ctl & 0x80) {
			n = sb_peer_port_down(&T, port, ev, RTE_DIM(ev));
			for (i = 0; i < n; i++)
				apply_event(&ev[i], now);
			check_table();
			continue;
		}
		if (size - pos < 2)
			break;
		len = (data[pos] | (size_t)data[pos + 1] << 8) & 2047;
		pos += 2;
		if (len > size - pos)
			len = size - pos;
		/* An exact-size heap copy so that ASan sees any read past the frame. */
		copy = malloc(len ? len : 1);
		CHECK(copy != NULL, "malloc");
		memcpy(copy, data + pos, len);
		buf = copy;
		pos += len;

		e = sb_wire_parse(buf, len, &shim, &off);
		CHECK((unsigned int)e < SB_WIRE_E_MAX, "parse result %d", e);
		if (e == SB_WIRE_OK) {
			CHECK(shim.type < SB_WIRE_TYPE_MAX && (shim.flags & ~SB_WIRE_F_MASK) == 0,
				"type %u flags %#x accepted", shim.type, shim.flags);
			if (shim.type == SB_WIRE_HELLO) {
				CHECK(len >= SB_HDR_LEN + SB_HELLO_LEN, "short hello accepted");
				hello_in(port, buf, len, now);
			} else {
				CHECK(off == SB_HDR_LEN && len >= off + ((shim.flags &
					SB_WIRE_F_ELIDED) ? 2 : SB_ETH_HLEN),
					"inner offset %zu of %zu", off, len);
				data_in(port, buf, &shim, now);
			}
		} else if (e != SB_WIRE_E_FOREIGN) {
			CHECK(len < SB_ETH_HLEN || (buf[12] == 0x88 && buf[13] == 0xb5),
				"error %d for a foreign frame", e);
		}
		free(copy);

		n = sb_peer_tick(&T, now, ev, RTE_DIM(ev));
		for (i = 0; i < n; i++)
			apply_event(&ev[i], now);
		drain_all(now);
		check_table();
	}

	/* Clean shutdown as sb_dp_free() does it: every window hands back what it holds. */
	for (i = 0; i < SB_MAX_PEERS; i++) {
		sb_reorder_reset(win[i], free_cb, NULL);
		for (n = 0; n < SB_REORDER_MAX_PATHS; n++)
			sb_reorder_path_set_active(win[i], n, false);
	}
	CHECK(n_owned == 0, "%u objects leaked", n_owned);
	for (i = 0; i < n_frames; i++)
		CHECK(owner[i] == O_DONE, "object %u never released", i);
	return 0;
}
