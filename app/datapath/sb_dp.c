/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath lcores: create and free their state, and their loops with the load-based
 * nap. sb_dp_int.h describes the roles. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "sb_dp_int.h"
#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_dp_logtype, peer, INFO);

void
sb_dp_free_mbuf(void *obj, void *arg __rte_unused)
{
	rte_pktmbuf_free(obj);
}

/* Frames this worker moved that were not hellos: what says the host is in use. */
static uint64_t
worker_activity(const struct sb_dp_stats *st)
{
	return st->exc_rx + st->rx_data + st->rx_foreign + st->tx_passthrough + st->rx_forwarded;
}

/*
 * Nap between polls unless the last poll found a queue at least half a burst deep: an idle
 * or lightly loaded datapath then gives its core back (the machines seqbond runs on also
 * run the TCP stacks it serves), and each poll finds bigger batches. The nap grows by 1 us
 * per light poll up to idle_sleep_max_us and drops to zero at the first deep queue, as
 * Open vSwitch's PMD load-based sleep does.
 *
 * Contended CPU: a nap ends when the scheduler runs us again, and while other tasks hold the
 * cores that is long after the nap asked for; the short naps then buy no latency, only
 * context switches (17 instances on 2 cores spent a fifth of the machine switching in and out
 * of naps, docs/benchmarks.md). So the worker measures how much longer than asked its light
 * naps take (a moving mean of the excess, 1/8 per nap); while that exceeds idle_sleep_max_us
 * itself, the ceiling for light naps is idle_sleep_contended_us and the nap grows by an
 * eighth per light poll towards it; below half of idle_sleep_max_us the ceiling is back.
 * Such naps wait in ppoll() on the exception path like deep ones, so the host's own frames
 * still leave at once.
 *
 * Deep idle: once the worker has moved nothing but hellos for idle_deep_after_ms, it naps
 * idle_deep_sleep_us instead (1 ms by default), so that an idle appliance wakes about a
 * thousand times a second rather than ten thousand; a cluster's hellos (every port hears
 * every host's, hello_interval_ms apart) are then read in small batches. The first frame
 * that is not a hello ends deep idle; it waits at most one deep nap.
 *
 * Deeper still once the host has carried nothing for SB_DP_HELLO_IDLE_AFTER_MS and its
 * hellos are at the idle pace (sb_dp_hello.c): naps of idle_slow_sleep_us. The worker that
 * reads the kernel sleeps in poll() on the exception path's descriptors, so the host's own
 * first frame leaves at once; a frame from a peer waits at most one such nap. Waking on the
 * member ports too was not tried: every port hears every host's hellos, about a thousand a
 * second per instance in a 17-host cluster, so they would wake it as often as now.
 */
/*
 * Timer slack of the naps at the idle pace: a quarter of the nap. Every instance on a core
 * naps idle_slow_sleep_us at its own phase, so with the 1 us slack of the other naps each of
 * their wake-ups can be a wake-up of the CPU (17 instances on 2 cores: up to about 1 700 a
 * second per core, computed). With slack the kernel ends the naps whose time has come together, when the first of
 * them must end, and the core leaves its idle state fewer times; a frame from a peer waits
 * up to a quarter of a nap longer (docs/design.md, "Deep idle").
 */
#define SB_DP_SLOW_NAP_SLACK_DIV 4

/* Set the thread's timer slack for slow naps (@p wide) or for the others (1 us: the default
 * 50 us would stretch every short nap). */
static void
nap_slack(struct sb_dp_worker *w, bool wide)
{
	unsigned long ns = wide ?
		(unsigned long)w->dp->conf.idle_slow_sleep_us * 1000 / SB_DP_SLOW_NAP_SLACK_DIV :
		1000UL;

	if (wide == w->slack_wide)
		return;
	w->slack_wide = wide;
	prctl(PR_SET_TIMERSLACK, ns);
}

static unsigned int
light_nap_ceiling(const struct sb_dp_worker *w)
{
	const struct sb_dp_conf *c = &w->dp->conf;

	return w->contended && c->idle_sleep_contended_us > c->idle_sleep_max_us ?
		c->idle_sleep_contended_us : c->idle_sleep_max_us;
}

/* A light nap of @p asked_us took @p took cycles: update the contention estimate. */
static void
nap_excess_update(struct sb_dp_worker *w, unsigned int asked_us, uint64_t took)
{
	const struct sb_dp_conf *c = &w->dp->conf;
	uint64_t took_us = took * 1000000 / w->dp->hz;
	int64_t excess = took_us > asked_us ? (int64_t)(took_us - asked_us) : 0;

	if (excess > 100000)
		excess = 100000;	/* one stop of the process must not weigh for long */
	w->nap_excess_us += (excess - w->nap_excess_us) / 8;
	if (!w->contended && w->nap_excess_us > (int64_t)c->idle_sleep_max_us)
		w->contended = true;
	else if (w->contended && w->nap_excess_us < (int64_t)c->idle_sleep_max_us / 2)
		w->contended = false;
}

static void
load_based_sleep(struct sb_dp_worker *w, uint64_t now, unsigned int *nap_us)
{
	const struct sb_dp_conf *c = &w->dp->conf;
	uint64_t act = worker_activity(&w->stats);
	unsigned int ceiling = light_nap_ceiling(w);
	bool light = false, woken = false;
	struct timespec ts;
	uint64_t t0;

	if (act != w->idle_activity) {
		w->idle_activity = act;
		w->idle_since = now;
		if (*nap_us > ceiling)
			*nap_us = 0;
	}
	if (w->max_batch >= c->burst / 2 || c->idle_sleep_max_us == 0) {
		*nap_us = 0;
		return;
	}
	if (c->idle_deep_sleep_us > c->idle_sleep_max_us &&
	    now - w->idle_since >= w->idle_deep_after) {
		if (c->idle_slow_sleep_us > c->idle_deep_sleep_us &&
		    __atomic_load_n(&w->dp->tx->hello_slow, __ATOMIC_RELAXED)) {
			*nap_us = c->idle_slow_sleep_us;
			w->stats.idle_slow_sleeps++;
		} else {
			*nap_us = c->idle_deep_sleep_us;
			w->stats.idle_deep_sleeps++;
		}
	} else {
		light = true;
		if (*nap_us < c->idle_sleep_max_us)
			(*nap_us)++;
		else if (*nap_us < ceiling)
			*nap_us = RTE_MIN(ceiling, *nap_us + *nap_us / 8);
		else
			*nap_us = ceiling;	/* the ceiling came down, or is reached */
		if (*nap_us > c->idle_sleep_max_us)
			w->stats.idle_contended_sleeps++;
	}
	nap_slack(w, *nap_us == c->idle_slow_sleep_us && !light);
	ts.tv_sec = *nap_us / 1000000;
	ts.tv_nsec = (*nap_us % 1000000) * 1000L;
	t0 = rte_rdtsc();
	if (w->n_wait != 0 && *nap_us > c->idle_sleep_max_us) {
		if (ppoll(w->wait, w->n_wait, &ts, NULL) > 0) {
			w->stats.idle_kernel_wakeups++;
			woken = true;
		}
	} else {
		nanosleep(&ts, NULL);
	}
	/* Naps of half the ceiling and more: a nap of a few us is mostly system call. */
	if (light && !woken && *nap_us >= c->idle_sleep_max_us / 2 &&
	    c->idle_sleep_contended_us > c->idle_sleep_max_us)
		nap_excess_update(w, *nap_us, rte_rdtsc() - t0);
	w->stats.idle_sleeps++;
}

/* The exception path's descriptors, for the idle naps of the worker that reads it. */
static void
wait_fds_init(struct sb_dp_worker *w)
{
	struct sb_dp *dp = w->dp;
	unsigned int q;
	int fd;

	w->n_wait = 0;
	if (w->tx == NULL)
		return;
	for (q = 0; q < dp->n_exc_queues && q < RTE_DIM(w->wait); q++) {
		fd = sb_exc_wait_fd(dp->exc, q);
		if (fd < 0) {
			/* Not this back end: plain naps; the kernel's frames wait one. */
			w->n_wait = 0;
			return;
		}
		w->wait[w->n_wait++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
}

unsigned int
sb_dp_worker_poll(struct sb_dp_worker *w, uint64_t now, bool housekeeping)
{
	struct sb_dp *dp = w->dp;
	unsigned int done = 0;

	w->max_batch = 0;
	if (w->rx != NULL) {
		sb_dp_rx_msgs(dp, w->rx);
		done += sb_dp_rx_ports(dp, w->rx, now);
	}
	if (w->tx != NULL) {
		done += sb_dp_hello_input(dp, now);
		done += sb_dp_tx_exception(dp, now);
		done += sb_dp_tx_passthrough(dp, now);
		done += sb_dp_tx_flush(dp);
	}
	if (w->rx != NULL)
		done += sb_dp_rx_flush(dp, w->rx);
	if (housekeeping) {
		sb_dp_cmd_drain(w, now);
		if (w->tx != NULL)
			sb_dp_hello_tick(dp, now);
	}
	w->stats.loops++;
	return done;
}

int
sb_dp_lcore_main(void *arg)
{
	struct sb_dp_worker *w = arg;
	struct sb_dp *dp = w->dp;
	unsigned int nap_us = 0;
	uint64_t now, next_hk = 0, hk_period = dp->hz / 1000, last;

	/* Default timer slack (50 us) would stretch every short nap. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	w->lcore = rte_lcore_id();
	w->idle_deep_after = (uint64_t)dp->conf.idle_deep_after_ms * dp->hz / 1000;
	wait_fds_init(w);
	last = rte_rdtsc();
	w->idle_since = last;
	w->idle_activity = worker_activity(&w->stats);
	while (!__atomic_load_n(dp->stop, __ATOMIC_RELAXED)) {
		bool hk;
		unsigned int done;

		now = rte_rdtsc();
		hk = now >= next_hk;
		if (hk)
			next_hk = now + hk_period;
		done = sb_dp_worker_poll(w, now, hk);
		/* Busy share as testpmd and VPP count it: iterations that moved frames. */
		if (done != 0)
			w->busy_cycles += rte_rdtsc() - now;
		load_based_sleep(w, now, &nap_us);
		now = rte_rdtsc();
		w->total_cycles += now - last;
		last = now;
	}
	return 0;
}

static struct rte_ring *
ring_create(const char *what, unsigned int i, unsigned int esize, unsigned int count,
	unsigned int flags)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	/* One datapath per process; the address keeps names unique across create/free. */
	snprintf(name, sizeof(name), "sb_%s%u_%x", what, i, (unsigned int)rte_rand());
	r = rte_ring_create_elem(name, esize, count, SOCKET_ID_ANY, flags);
	return r;
}

static int
tx_create(struct sb_dp *dp, struct sb_dp_tx *tx)
{
	const struct sb_dp_conf *conf = &dp->conf;
	struct sb_sched_view empty = { .n_paths = 0 };
	struct sb_peer_conf pc;
	unsigned int i;
	int ret;

	tx->hello_period = (uint64_t)conf->hello_interval_ms * dp->hz / 1000;
	tx->hello_interval_ms = conf->hello_interval_ms;
	tx->hello_active_ms = conf->hello_interval_ms;
	tx->hello_idle_ms = conf->hello_idle_interval_ms <= UINT16_MAX ?
		conf->hello_idle_interval_ms : UINT16_MAX;
	tx->hello_idle_base_ms = tx->hello_idle_ms;
	tx->probe_period = (uint64_t)conf->mtu_probe_interval_ms * dp->hz / 1000;
	tx->probe_interval_ms = conf->mtu_probe_interval_ms;
	/* Start at the fast pace: paths come up within a few hellos. */
	tx->pace_last = rte_rdtsc();
	tx->instance = (uint32_t)rte_rand() | 1;
	tx->sched_ops = sb_sched_find(conf->scheduler);
	tx->adaptive_rate = conf->adaptive_rate;
	tx->est_conf = (struct sb_path_est_conf){
		.target_us = conf->queue_target_us != 0 ? conf->queue_target_us : 3000,
		.floor_bps = SB_DP_RATE_FLOOR_BPS,
	};
	if (tx->sched_ops == NULL)
		return -EINVAL;
	pc = (struct sb_peer_conf){
		.host_id = conf->host_id,
		.hz = dp->hz,
		.loss_max_ppm = conf->path_loss_max_pct * 10000,
		.loss_window_ms = conf->path_loss_window_ms,
		/* A share of fewer frames says nothing: half a window of hellos at least. */
		.loss_min_frames = RTE_MAX(20u, conf->path_loss_window_ms /
			RTE_MAX(conf->hello_interval_ms, 1u) / 2),
		.probe_dead_mult = 3,
		.probes_sent = conf->mtu_probe_interval_ms != 0,
		/* A deliberate nap is no stall: the hellos it left in the rings are read
		 * next; only a gap beyond the longest nap holds the timers. */
		.tick_stall = ((uint64_t)SB_DP_TICK_STALL_MS * 1000 + RTE_MAX(RTE_MAX(
			RTE_MAX(conf->idle_sleep_max_us, conf->idle_sleep_contended_us),
			conf->idle_deep_sleep_us), conf->idle_slow_sleep_us)) * dp->hz / 1000000,
		.silence_hold = (uint64_t)conf->peer_silence_hold_ms * dp->hz / 1000,
		.on_event = sb_dp_peer_event,
		.event_arg = dp,
		.data_rx = sb_dp_data_counts,
	};
	ret = sb_peer_table_init(&tx->peers, &pc);
	if (ret != 0)
		return ret;

	for (i = 0; i < conf->n_ports; i++) {
		struct sb_dp_port *p = &tx->port[i];
		struct rte_ether_addr ea;
		struct rte_eth_link link;

		p->port_id = conf->port[i].port_id;
		p->pt_port = conf->port[i].pt_port;
		p->index = i;
		p->mtu = conf->port[i].mtu;
		rte_eth_macaddr_get(p->port_id, &ea);
		memcpy(p->mac, ea.addr_bytes, SB_ETH_ALEN);
		p->rate_bps = (uint64_t)conf->port[i].rate_kbps * 1000;
		p->rate_configured = p->rate_bps != 0;
		p->rate_start_bps = p->rate_bps;
		if (p->rate_bps == 0) {
			/* rate_mbit = auto: the driver's link speed, else 1 Gbit/s, as the cap.
			 * A PCI NIC's speed is the wire's, so the estimate starts there; a
			 * virtual device's (af_packet says 10G) may be far above what its link
			 * carries, so the estimate starts low and start-up doubles it. */
			if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
					link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
					link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
				p->rate_bps = (uint64_t)link.link_speed * 1000000;
			else
				p->rate_bps = 1000000000ULL;
			p->rate_start_bps = conf->port[i].link_speed_real ? p->rate_bps :
				RTE_MIN(p->rate_bps, SB_DP_RATE_START_BPS);
		}
		p->link_up = sb_port_link_up(p->port_id);
		p->admin_up = 1;
	}
	for (i = 0; i < SB_MAX_PEERS; i++) {
		struct sb_dp_tx_peer *tp = &tx->peer[i];

		tp->view.max_backlog_ns = (uint64_t)conf->max_backlog_us * 1000;
		ret = sb_sched_init(&tp->sched, tx->sched_ops, &empty);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
rx_create(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int id)
{
	unsigned int i;

	rx->id = id;
	sb_peer_map_init(&rx->map);
	rx->reorder_timeout = (uint64_t)dp->conf.reorder_timeout_us * dp->hz / 1000000;
	rx->reorder_timeout_max = (uint64_t)dp->conf.reorder_timeout_max_us * dp->hz / 1000000;
	for (i = 0; i < dp->n_ports; i++) {
		rx->port_admin[i] = 1;
		if (i % dp->n_rx == id)
			rx->ports[rx->n_ports++] = i;
	}
	rx->msg_ring = ring_create("msg", id, sizeof(struct sb_dp_msg), 1024,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	rx->data_ring = ring_create("data", id, sizeof(void *), SB_DP_RING_FRAMES, RING_F_SC_DEQ);
	return rx->msg_ring != NULL && rx->data_ring != NULL ? 0 : -rte_errno;
}

struct sb_dp *
sb_dp_create(const struct sb_dp_conf *conf, bool *stop)
{
	struct sb_dp *dp;
	unsigned int i, n_rx;
	int ret = -EINVAL;

	if (conf->n_ports == 0 || conf->n_ports > SB_MAX_PORTS || conf->burst == 0 ||
			conf->burst > SB_BURST_MAX || conf->mp == NULL || conf->n_workers == 0 ||
			conf->n_workers > SB_DP_MAX_WORKERS || conf->exc == NULL ||
			conf->n_exc_queues != sb_dp_exc_queues(conf->n_workers) ||
			conf->hello_multiplier == 0 || conf->hello_multiplier > UINT8_MAX ||
			conf->hello_interval_ms == 0 || conf->hello_interval_ms > UINT16_MAX ||
			conf->mtu_probe_interval_ms > UINT16_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	dp = rte_zmalloc("seqbond_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dp->conf = *conf;
	dp->mp = conf->mp;
	dp->hz = rte_get_tsc_hz();
	dp->n_ports = conf->n_ports;
	dp->exc = conf->exc;
	dp->exc_mtu = conf->exc_mtu;
	dp->n_exc_queues = conf->n_exc_queues;
	dp->stop = stop;
	dp->n_workers = conf->n_workers;
	n_rx = sb_dp_exc_queues(conf->n_workers);
	dp->n_rx = n_rx;
	memset(dp->port_index, 0xff, sizeof(dp->port_index));
	for (i = 0; i < conf->n_ports; i++)
		dp->port_index[conf->port[i].port_id] = i;

	dp->tx = rte_zmalloc("seqbond_dp_tx", sizeof(*dp->tx), RTE_CACHE_LINE_SIZE);
	if (dp->tx == NULL)
		goto nomem;
	for (i = 0; i < n_rx; i++) {
		dp->rx[i] = rte_zmalloc("seqbond_dp_rx", sizeof(*dp->rx[i]), RTE_CACHE_LINE_SIZE);
		if (dp->rx[i] == NULL)
			goto nomem;
	}
	for (i = 0; i < dp->n_workers; i++) {
		struct sb_dp_worker *w = &dp->worker[i];

		w->dp = dp;
		w->lcore = RTE_MAX_LCORE;
		if (dp->n_workers == 1) {
			w->role = SB_DP_ROLE_ALL;
			w->tx = dp->tx;
			w->rx = dp->rx[0];
		} else if (i == 0) {
			w->role = SB_DP_ROLE_TX;
			w->tx = dp->tx;
		} else {
			w->role = SB_DP_ROLE_RX;
			w->rx = dp->rx[i - 1];
		}
		if (w->tx != NULL) {
			w->tx->w = w;
			w->tx->stats = &w->stats;
		}
		if (w->rx != NULL) {
			w->rx->w = w;
			w->rx->stats = &w->stats;
		}
		w->cmd_ring = ring_create("cmd", i, sizeof(void *), 16,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->cmd_ring == NULL)
			goto fail_errno;
	}
	dp->hello_ring = ring_create("hello", 0, sizeof(void *), 1024, RING_F_SC_DEQ);
	if (dp->hello_ring == NULL)
		goto fail_errno;
	ret = tx_create(dp, dp->tx);
	if (ret != 0)
		goto fail;
	for (i = 0; i < n_rx; i++) {
		ret = rx_create(dp, dp->rx[i], i);
		if (ret != 0)
			goto fail;
	}
	return dp;

nomem:
	ret = -ENOMEM;
	goto fail;
fail_errno:
	ret = -rte_errno;
fail:
	sb_dp_free(dp);
	rte_errno = -ret;
	return NULL;
}

static void
queue_drop_all(struct rte_mbuf **m, uint16_t *n)
{
	rte_pktmbuf_free_bulk(m, *n);
	*n = 0;
}

static void
ring_drop_all(struct rte_ring *r)
{
	void *m[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
	rte_ring_free(r);
}

void
sb_dp_settle(struct sb_dp *dp, uint64_t now)
{
	unsigned int i;

	/* RX first: a forwarded frame never becomes a hello, a hello never a forwarded frame. */
	for (i = 0; i < SB_DP_MAX_WORKERS; i++)
		if (dp->rx[i] != NULL)
			sb_dp_rx_settle(dp, dp->rx[i], now);
	if (dp->tx != NULL)
		sb_dp_hello_input(dp, now);
}

void
sb_dp_free(struct sb_dp *dp)
{
	struct sb_dp_tx *tx;
	unsigned int i;

	if (dp == NULL)
		return;
	tx = dp->tx;
	if (tx != NULL) {
		for (i = tx->pending_head; i < tx->n_pending; i++)
			rte_pktmbuf_free(tx->pending[i]);
		tx->n_pending = tx->pending_head = 0;
		for (i = 0; i < SB_MAX_PEERS; i++) {
			struct sb_dp_tx_peer *tp = &tx->peer[i];

			for (; tp->held_n > 0; tp->held_n--) {
				rte_pktmbuf_free(tp->held[tp->held_head]);
				tp->held_head = (tp->held_head + 1) % SB_DP_PEER_HELD;
			}
		}
		tx->n_held = 0;
		for (i = 0; i < dp->n_ports; i++) {
			queue_drop_all(tx->port[i].txq.m, &tx->port[i].txq.n);
			queue_drop_all(tx->port[i].ctlq.m, &tx->port[i].ctlq.n);
		}
		for (i = 0; i < SB_MAX_PEERS; i++)
			sb_sched_fini(&tx->peer[i].sched);
		rte_free(tx);
	}
	for (i = 0; i < SB_DP_MAX_WORKERS; i++) {
		struct sb_dp_rx *rx = dp->rx[i];
		unsigned int j;

		if (rx == NULL)
			continue;
		queue_drop_all(rx->exc_txq.m, &rx->exc_txq.n);
		for (j = 0; j < SB_MAX_PORTS; j++)
			queue_drop_all(rx->pt_txq[j].m, &rx->pt_txq[j].n);
		rte_ring_free(rx->msg_ring);
		ring_drop_all(rx->data_ring);
		rte_free(rx);
	}
	ring_drop_all(dp->hello_ring);
	for (i = 0; i < SB_MAX_PEERS; i++)
		if (dp->rx_peer[i].reorder != NULL)
			sb_reorder_free(dp->rx_peer[i].reorder, sb_dp_free_mbuf, NULL);
	for (i = 0; i < SB_DP_MAX_WORKERS; i++)
		rte_ring_free(dp->worker[i].cmd_ring);
	rte_free(dp);
}

unsigned int
sb_dp_n_workers(const struct sb_dp *dp)
{
	return dp->n_workers;
}

enum sb_dp_role
sb_dp_worker_role(const struct sb_dp *dp, unsigned int k)
{
	return dp->worker[k].role;
}

void *
sb_dp_worker_arg(struct sb_dp *dp, unsigned int k)
{
	return k < dp->n_workers ? &dp->worker[k] : NULL;
}
