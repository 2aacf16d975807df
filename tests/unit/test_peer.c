/* SPDX-License-Identifier: BSD-3-Clause */
/* Peer discovery from hellos: paths up on hello, down after missed hellos, restarts,
 * lookups, and refusal of hellos from ourselves. */
#include <errno.h>
#include <string.h>

#include "sb_peer.h"
#include "sb_test.h"

#define HZ 1000000ULL	/* clock units: microseconds */

static struct sb_peer_table t;

static struct sb_hello
hello(uint32_t host, uint8_t port)
{
	struct sb_hello h = {
		.host_id = host, .instance = 1, .agg_mac = { 0x02, 0x53, 0x42, 0, 0, host },
		.port_index = port, .n_ports = 4, .rate_kbps = 100000, .interval_ms = 10,
		.mtu = 1500,
	};
	return h;
}

static void
port_mac(uint8_t *mac, uint32_t host, uint8_t port)
{
	const uint8_t m[6] = { 0x02, 0xaa, 0, 0, host, port };

	memcpy(mac, m, 6);
}

int
main(void)
{
	struct sb_peer_event ev[8];
	struct sb_hello h;
	uint8_t mac[6];
	unsigned int n, path, k;
	int pi;

	SB_CHECK(sb_peer_table_init(&t, 0, 3, HZ) == -EINVAL, "host id 0 refused");
	SB_CHECK(sb_peer_table_init(&t, 1, 1, HZ) == -EINVAL, "multiplier 1 refused");
	SB_CHECK(sb_peer_table_init(&t, 1, 3, HZ) == 0, "init");

	/* Our own hello (a loop through a switch) never creates a peer. */
	h = hello(1, 0);
	port_mac(mac, 1, 0);
	SB_CHECK(sb_peer_hello_rx(&t, 0, mac, &h, 100, ev, &n) == -EINVAL && n == 0, "self");
	SB_CHECK(t.rejects[SB_PEER_REJ_SELF] == 1 && t.n_peers == 0, "self counted");

	/* Peer 2 on 4 point-to-point links: one path per link. */
	for (k = 0; k < 4; k++) {
		h = hello(2, k);
		port_mac(mac, 2, k);
		pi = sb_peer_hello_rx(&t, k, mac, &h, 1000, ev, &n);
		SB_CHECK(pi == 0, "peer index %d", pi);
		if (k == 0)
			SB_CHECK(n == 2 && ev[0].type == SB_PEER_EV_NEW &&
				ev[1].type == SB_PEER_EV_PATH_UP, "new peer + path up, n=%u", n);
		else
			SB_CHECK(n == 1 && ev[0].type == SB_PEER_EV_PATH_UP && ev[0].path == k,
				"path %u up", k);
	}
	SB_CHECK(t.peer[0].n_paths == 4 && t.peer[0].n_up == 4, "4 paths up");
	SB_CHECK(sb_peer_lookup_mac(&t, h.agg_mac) == 0, "lookup by aggregate MAC");
	port_mac(mac, 2, 2);
	SB_CHECK(sb_peer_lookup_rx(&t, 2, mac, 2, &path) == 0 && path == 2, "lookup rx");
	SB_CHECK(sb_peer_lookup_rx(&t, 1, mac, 2, &path) == -ENOENT, "wrong port");
	mac[5] = 9;
	SB_CHECK(sb_peer_lookup_rx(&t, 2, mac, 2, &path) == -ENOENT, "wrong source MAC");

	/* Hellos on 0..2 keep coming, port 3 goes silent: down after 3 x 10 ms. */
	for (k = 0; k < 3; k++) {
		h = hello(2, k);
		port_mac(mac, 2, k);
		sb_peer_hello_rx(&t, k, mac, &h, 25000, ev, &n);
		SB_CHECK(n == 0, "refresh makes no event");
	}
	SB_CHECK(sb_peer_tick(&t, 1000 + 30000, ev, 8) == 0, "not yet down at 30 ms");
	n = sb_peer_tick(&t, 1000 + 30001, ev, 8);
	SB_CHECK(n == 1 && ev[0].type == SB_PEER_EV_PATH_DOWN && ev[0].path == 3,
		"path 3 down after 3 missed hellos");
	SB_CHECK(t.peer[0].n_up == 3, "3 up");
	h = hello(2, 3);
	port_mac(mac, 2, 3);
	sb_peer_hello_rx(&t, 3, mac, &h, 40000, ev, &n);
	SB_CHECK(n == 1 && ev[0].type == SB_PEER_EV_PATH_UP && t.peer[0].n_up == 4,
		"path 3 back");

	/* Carrier loss on port 1 takes its path down at once. */
	n = sb_peer_port_down(&t, 1, ev, 8);
	SB_CHECK(n == 1 && ev[0].path == 1 && t.peer[0].path[1].state == SB_PATH_DOWN,
		"port down");

	/* Restart: new instance resets the paths. */
	h = hello(2, 0);
	h.instance = 2;
	port_mac(mac, 2, 0);
	sb_peer_hello_rx(&t, 0, mac, &h, 50000, ev, &n);
	SB_CHECK(n == 2 && ev[0].type == SB_PEER_EV_RESTART && ev[1].type == SB_PEER_EV_PATH_UP,
		"restart then path up");
	SB_CHECK(t.peer[0].n_paths == 1 && t.peer[0].n_up == 1, "paths relearnt");

	/* A second peer behind the same ports (a switch per port). */
	h = hello(3, 0);
	port_mac(mac, 3, 0);
	SB_CHECK(sb_peer_hello_rx(&t, 0, mac, &h, 50000, ev, &n) == 1, "second peer");
	SB_CHECK(sb_peer_lookup_rx(&t, 0, mac, 0, &path) == 1 && path == 0, "second peer rx");

	/* Announced port index out of range is refused. */
	h = hello(4, 0);
	h.port_index = SB_MAX_PORTS;
	SB_CHECK(sb_peer_hello_rx(&t, 0, mac, &h, 50000, ev, &n) == -EINVAL, "bad port idx");

	/* Table full. */
	for (k = 10; k < 10 + SB_MAX_PEERS; k++) {
		h = hello(k, 0);
		port_mac(mac, k, 0);
		sb_peer_hello_rx(&t, 0, mac, &h, 60000, ev, &n);
	}
	SB_CHECK(t.n_peers == SB_MAX_PEERS && t.rejects[SB_PEER_REJ_TABLE_FULL] > 0,
		"table full counted");
	return sb_test_summary("test_peer");
}
