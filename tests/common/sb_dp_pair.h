/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_DP_PAIR_H
#define SB_DP_PAIR_H

/*
 * Two hosts of the whole datapath (app/datapath/, one datapath lcore each) back to back on
 * ring ports, both played by the caller's thread: the harness of bench/bench_dp.c (which
 * includes this file by its path) and tests/unit/test_dp_forged.c. Build with the
 * application's datapath, config and glue sources and the ring PMD, as bench_dp is.
 *
 * Link i is two rte_rings, one per direction: host a's port i transmits into a2b[i], which
 * host b's port i reads, and b2a[i] the other way. Each host's exception port is a ring port
 * too: the caller puts frames "from the kernel" on exc_in and takes what the host releases
 * to its kernel from exc_out. A caller may read, take or add frames on any of these rings
 * between two steps (the rings are single-producer, single-consumer: one thread only).
 *
 * Usage: sb_pair_ring() the links, sb_pair_host_config() each host, change its h->cfg as
 * needed, sb_pair_host_start() it; then sb_pair_step() at the caller's clock. Errors end the
 * process (rte_exit) with a line naming what failed.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_config.h"
#include "sb_dp_int.h"
#include "sb_port.h"

#define SB_PAIR_MAX_LINKS 8
#define SB_PAIR_RING_SIZE 1024
#define SB_PAIR_MTU 1500		/* every link's */
#define SB_PAIR_EXC_MTU 1490		/* the exception ports' */

struct sb_pair_host {
	struct sb_config cfg;
	struct sb_dp *dp;
	uint16_t port[SB_PAIR_MAX_LINKS];
	uint16_t exc;
	struct sb_exc *exc_path;	/* the ring port behind the exception path interface */
	struct rte_ring *exc_in;	/* harness -> exception port rx */
	struct rte_ring *exc_out;	/* exception port tx -> harness */
};

/* The cluster key both hosts hold when started with a key: any 32 bytes will do. */
static const char sb_pair_key_hex[] =
	"736571626f6e642062656e63685f6470206b6579206f66203332206279746573";

/** A ring named @p fmt with @p i, SP/SC, SB_PAIR_RING_SIZE frames. */
static inline struct rte_ring *
sb_pair_ring(const char *fmt, unsigned int i)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), fmt, i);
	r = rte_ring_create(name, SB_PAIR_RING_SIZE, rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		rte_exit(EXIT_FAILURE, "ring %s: %s\n", name, rte_strerror(rte_errno));
	return r;
}

/** A ring port that reads @p rx and writes @p tx, set up as seqbond sets up its ports. */
static inline uint16_t
sb_pair_ring_port(const char *fmt, unsigned int i, struct rte_ring *rx, struct rte_ring *tx,
	struct rte_mempool *mp, uint16_t mtu, const uint8_t *mac)
{
	char name[32];
	struct rte_ether_addr ea;
	int id, ret;

	snprintf(name, sizeof(name), fmt, i);
	id = rte_eth_from_rings(name, &rx, 1, &tx, 1, rte_socket_id());
	if (id < 0)
		rte_exit(EXIT_FAILURE, "port %s: %s\n", name, rte_strerror(rte_errno));
	memcpy(ea.addr_bytes, mac, RTE_ETHER_ADDR_LEN);
	ret = sb_port_setup(id, mtu, mp, 512, 512, 1, true);
	/* The ring PMD of 22.11 cannot change its (all-zero) MAC; seqbond does not need
	 * distinct port MACs on point-to-point links, so carry on with it. */
	if (ret == 0 && rte_eth_dev_default_mac_addr_set(id, &ea) == -ENOTSUP)
		ret = 0;
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %s: setup: %s\n", name, rte_strerror(-ret));
	return id;
}

/**
 * Host @p k's configuration (1: a, 2: b): host id k, aggregate MAC 02:53:42:00:00:k,
 * scheduler @p sched, @p links ports of 1500 bytes and 100 Gbit/s (the scheduler's queue
 * model never limits a CPU test), busy polling, and a detection time of 100 hello intervals:
 * one thread steps both hosts, and if it is descheduled for tens of ms on a loaded machine
 * neither hears a hello meanwhile. A caller that wants other values changes h->cfg before
 * sb_pair_host_start().
 */
static inline void
sb_pair_host_config(struct sb_pair_host *h, unsigned int k, unsigned int links,
	const char *sched)
{
	unsigned int i;

	sb_config_defaults(&h->cfg);
	snprintf(h->cfg.file, sizeof(h->cfg.file), "bench_dp host %u", k);
	h->cfg.host_id = k;
	h->cfg.mac[0] = 0x02;
	h->cfg.mac[1] = 0x53;
	h->cfg.mac[2] = 0x42;
	h->cfg.mac[5] = k;
	strlcpy(h->cfg.scheduler, sched, sizeof(h->cfg.scheduler));
	h->cfg.n_ports = links;
	h->cfg.lcore_dedicated = true;
	h->cfg.hello_multiplier = 100;
	for (i = 0; i < links; i++) {
		h->cfg.port[i].rate_kbps = 100000000;
		h->cfg.port[i].mtu = SB_PAIR_MTU;
	}
}

/**
 * Start host @p k (1: a, 2: b) as h->cfg says: its ring ports (port i transmits into
 * @p tx[i] and reads @p rx[i]), its exception port, its datapath (one lcore), with the
 * cluster key sb_pair_key_hex when @p key. @p stop is the datapath's stop flag.
 */
static inline void
sb_pair_host_start(struct sb_pair_host *h, unsigned int k, struct rte_ring **tx,
	struct rte_ring **rx, struct rte_mempool *mp, bool key, bool *stop)
{
	uint8_t mac[RTE_ETHER_ADDR_LEN] = { 0x02, 0x53, 0x42, 0, 0, 0 };
	unsigned int links = h->cfg.n_ports, i;
	struct sb_dp_conf dc;

	for (i = 0; i < links; i++) {
		mac[4] = k;
		mac[5] = i;
		h->port[i] = sb_pair_ring_port(k == 1 ? "bn_a_link%u" : "bn_b_link%u", i, rx[i],
			tx[i], mp, SB_PAIR_MTU, mac);
	}
	h->exc_in = sb_pair_ring(k == 1 ? "bn_a_exc_in" : "bn_b_exc_in", 0);
	h->exc_out = sb_pair_ring(k == 1 ? "bn_a_exc_out" : "bn_b_exc_out", 0);
	h->exc = sb_pair_ring_port(k == 1 ? "bn_a_exc%u" : "bn_b_exc%u", 0, h->exc_in,
		h->exc_out, mp, SB_PAIR_EXC_MTU, h->cfg.mac);
	sb_config_dp_conf(&h->cfg, &dc);
	for (i = 0; i < links; i++)
		dc.port[i].port_id = h->port[i];
	h->exc_path = sb_exc_from_port(h->exc, SB_PAIR_EXC_MTU, 1);
	if (h->exc_path == NULL)
		rte_exit(EXIT_FAILURE, "sb_exc_from_port: %s\n", rte_strerror(rte_errno));
	dc.exc = h->exc_path;
	dc.exc_mtu = SB_PAIR_EXC_MTU;
	dc.n_workers = 1;
	dc.n_exc_queues = 1;
	dc.mp = mp;
	if (key) {
		static struct sb_auth_keyring ring;
		struct sb_auth_key ck;
		char err[128];

		sb_auth_ring_init(&ring);
		if (sb_auth_init() != 0 || sb_auth_key_parse(sb_pair_key_hex, 1, &ck, err,
				sizeof(err)) != 0 || sb_auth_ring_add(&ring, &ck) != 0)
			rte_exit(EXIT_FAILURE, "bench key\n");
		sb_auth_wipe(&ck, sizeof(ck));
		dc.keyring = &ring;
	}
	h->dp = sb_dp_create(&dc, stop);
	if (h->dp == NULL)
		rte_exit(EXIT_FAILURE, "sb_dp_create: %s\n", rte_strerror(rte_errno));
}

/** One iteration of both hosts' lcore loops at TSC @p now, with housekeeping every
 *  @p hk_period cycles (the datapath lcore's 1 ms). */
static inline void
sb_pair_step(struct sb_pair_host *a, struct sb_pair_host *b, uint64_t now, uint64_t *next_hk,
	uint64_t hk_period)
{
	bool hk = now >= *next_hk;

	if (hk)
		*next_hk = now + hk_period;
	sb_dp_worker_poll(&a->dp->worker[0], now, hk);
	sb_dp_worker_poll(&b->dp->worker[0], now, hk);
}

/** @return the paths in the stripe of @p h's only peer (0 when it has none, or several). */
static inline uint32_t
sb_pair_paths_up(const struct sb_pair_host *h)
{
	return h->dp->tx->peers.n_peers == 1 ? h->dp->tx->peers.peer[0].n_usable : 0;
}

/*
 * Take both hosts down (their datapaths, exception paths) and free every frame left on
 * their rings and the @p links links between them, so that the caller can check that every
 * mbuf is back in its pool.
 */
static inline void
sb_pair_free(struct sb_pair_host *a, struct sb_pair_host *b, struct rte_ring **a2b,
	struct rte_ring **b2a, unsigned int links)
{
	struct rte_ring *rings[4 + 2 * SB_PAIR_MAX_LINKS] = {
		a->exc_in, a->exc_out, b->exc_in, b->exc_out,
	};
	unsigned int i;

	sb_dp_free(a->dp);
	sb_dp_free(b->dp);
	sb_exc_close(a->exc_path);
	sb_exc_close(b->exc_path);
	for (i = 0; i < links; i++) {
		rings[4 + 2 * i] = a2b[i];
		rings[5 + 2 * i] = b2a[i];
	}
	for (i = 0; i < 4 + 2 * links; i++) {
		struct rte_mbuf *m[SB_PAIR_RING_SIZE];

		rte_pktmbuf_free_bulk(m, rte_ring_dequeue_burst(rings[i], (void **)m,
			RTE_DIM(m), NULL));
	}
}

#endif /* SB_DP_PAIR_H */
