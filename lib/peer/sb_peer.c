/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "sb_peer.h"

int
sb_peer_table_init(struct sb_peer_table *t, uint32_t host_id, uint32_t dead_mult, uint64_t hz)
{
	if (host_id == 0 || dead_mult < 2 || hz == 0)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->host_id = host_id;
	t->dead_mult = dead_mult;
	t->hz = hz;
	return 0;
}

static int
peer_find(const struct sb_peer_table *t, uint32_t host_id)
{
	unsigned int i;

	for (i = 0; i < t->n_peers; i++)
		if (t->peer[i].host_id == host_id)
			return i;
	return -ENOENT;
}

static void
peer_reset_paths(struct sb_peer *p)
{
	p->n_paths = 0;
	p->n_up = 0;
	memset(p->path, 0, sizeof(p->path));
	memset(p->path_of, -1, sizeof(p->path_of));
}

static void
path_set_state(struct sb_peer *p, unsigned int pi, enum sb_path_state st, uint64_t now)
{
	struct sb_path *path = &p->path[pi];

	if (path->state == st)
		return;
	path->state = st;
	path->transitions++;
	if (st == SB_PATH_UP) {
		path->up_since = now;
		p->n_up++;
	} else {
		p->n_up--;
	}
}

int
sb_peer_hello_rx(struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	const struct sb_hello *h, uint64_t now, struct sb_peer_event *ev, unsigned int *n_ev)
{
	struct sb_peer *p;
	struct sb_path *path;
	int pi, idx;

	*n_ev = 0;
	if (h->host_id == t->host_id) {
		t->rejects[SB_PEER_REJ_SELF]++;
		return -EINVAL;
	}
	if (local_port >= SB_MAX_PORTS || h->port_index >= SB_MAX_PORTS) {
		t->rejects[SB_PEER_REJ_BAD_PORT]++;
		return -EINVAL;
	}

	idx = peer_find(t, h->host_id);
	if (idx < 0) {
		if (t->n_peers == SB_MAX_PEERS) {
			t->rejects[SB_PEER_REJ_TABLE_FULL]++;
			return -ENOSPC;
		}
		idx = t->n_peers++;
		p = &t->peer[idx];
		memset(p, 0, sizeof(*p));
		p->host_id = h->host_id;
		p->instance = h->instance;
		memcpy(p->agg_mac, h->agg_mac, SB_ETH_ALEN);
		peer_reset_paths(p);
		ev[(*n_ev)++] = (struct sb_peer_event){ SB_PEER_EV_NEW, idx, 0 };
	} else {
		p = &t->peer[idx];
		if (p->instance != h->instance) {
			/* A restarted peer numbers its frames afresh and may have renumbered
			 * its ports: forget its paths; they come back with its hellos. */
			p->instance = h->instance;
			peer_reset_paths(p);
			ev[(*n_ev)++] = (struct sb_peer_event){ SB_PEER_EV_RESTART, idx, 0 };
		}
		if (memcmp(p->agg_mac, h->agg_mac, SB_ETH_ALEN) != 0) {
			memcpy(p->agg_mac, h->agg_mac, SB_ETH_ALEN);
			ev[(*n_ev)++] = (struct sb_peer_event){ SB_PEER_EV_AGG_MAC, idx, 0 };
		}
	}
	p->interval_ms = h->interval_ms;

	pi = p->path_of[h->port_index][local_port];
	if (pi < 0) {
		if (p->n_paths == SB_PEER_MAX_PATHS) {
			t->rejects[SB_PEER_REJ_TABLE_FULL]++;
			return -ENOSPC;
		}
		pi = p->n_paths++;
		p->path_of[h->port_index][local_port] = pi;
		path = &p->path[pi];
		path->local_port = local_port;
		path->remote_port = h->port_index;
	}
	path = &p->path[pi];
	if (path->hellos_rx == 0)
		path->first_hello = now;
	memcpy(path->remote_mac, src_mac, SB_ETH_ALEN);
	path->remote_mtu = h->mtu;
	path->remote_rate_kbps = h->rate_kbps;
	path->last_hello = now;
	path->hellos_rx++;
	if (path->state != SB_PATH_UP) {
		path_set_state(p, pi, SB_PATH_UP, now);
		ev[(*n_ev)++] = (struct sb_peer_event){ SB_PEER_EV_PATH_UP, idx, pi };
	}
	return idx;
}

unsigned int
sb_peer_tick(struct sb_peer_table *t, uint64_t now, struct sb_peer_event *ev, unsigned int max)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < t->n_peers; i++) {
		struct sb_peer *p = &t->peer[i];
		uint64_t dead = (uint64_t)p->interval_ms * t->dead_mult * t->hz / 1000;

		for (j = 0; j < p->n_paths && n < max; j++) {
			struct sb_path *path = &p->path[j];

			if (path->state == SB_PATH_UP && now - path->last_hello > dead) {
				path_set_state(p, j, SB_PATH_DOWN, now);
				ev[n++] = (struct sb_peer_event){ SB_PEER_EV_PATH_DOWN, i, j };
			}
		}
	}
	return n;
}

int
sb_peer_lookup_rx(const struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	unsigned int shim_path, unsigned int *path)
{
	unsigned int i;

	if (local_port >= SB_MAX_PORTS || shim_path >= SB_MAX_PORTS)
		return -ENOENT;
	for (i = 0; i < t->n_peers; i++) {
		const struct sb_peer *p = &t->peer[i];
		int pi = p->path_of[shim_path][local_port];

		if (pi >= 0 && memcmp(p->path[pi].remote_mac, src_mac, SB_ETH_ALEN) == 0) {
			*path = pi;
			return i;
		}
	}
	return -ENOENT;
}

int
sb_peer_lookup_mac(const struct sb_peer_table *t, const uint8_t *agg_mac)
{
	unsigned int i;

	for (i = 0; i < t->n_peers; i++)
		if (memcmp(t->peer[i].agg_mac, agg_mac, SB_ETH_ALEN) == 0)
			return i;
	return -ENOENT;
}

unsigned int
sb_peer_port_down(struct sb_peer_table *t, unsigned int local_port, struct sb_peer_event *ev,
	unsigned int max)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < t->n_peers; i++) {
		struct sb_peer *p = &t->peer[i];

		for (j = 0; j < p->n_paths && n < max; j++) {
			if (p->path[j].local_port == local_port && p->path[j].state == SB_PATH_UP) {
				/* The path comes back with the next hello it hears. */
				path_set_state(p, j, SB_PATH_DOWN, 0);
				p->path[j].last_hello = 0;
				ev[n++] = (struct sb_peer_event){ SB_PEER_EV_PATH_DOWN, i, j };
			}
		}
	}
	return n;
}
