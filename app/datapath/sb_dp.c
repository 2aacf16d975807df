/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath lcores: create and free their state, and their loops with the load-based
 * nap. sb_dp_int.h describes the roles. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <time.h>
#include <sched.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "sb_dp_int.h"
#include "sb_port.h"
#include "sb_wait.h"

RTE_LOG_REGISTER_SUFFIX(sb_dp_logtype, peer, INFO);

void
sb_dp_free_mbuf(void *obj, void *arg __rte_unused)
{
	rte_pktmbuf_free(obj);
}

/*
 * Sleeping when idle (lcore_mode = shared, the default). A worker that finds nothing to do
 * sleeps on its wait set (sb_wait.h): its member ports' rx queues, the exception path's and
 * passthrough interfaces' queues (the worker that reads the kernel), and a kick that other
 * workers and the console write when they put work on its rings. The first frame from any
 * of them ends the sleep, so a frame waits for a wake-up, not for a nap to run out. The
 * sleep's timeout is the worker's next timed duty:
 *  - the worker that owns the peer table: its housekeeping tick (hellos, carrier, path
 *    expiry, commands), every millisecond while the hellos are at the fast pace, every
 *    SB_DP_SLOW_TICK_US at the idle pace, where the shortest thing it times is the carrier
 *    poll (50 ms) and detection takes 400 ms and more;
 *  - a worker with frames held behind a gap in a reorder window: the first hold to end;
 *  - otherwise SB_DP_SLEEP_MAX_US (the kick covers commands and the stop).
 * A source with no descriptor to wait on (a PCI port without vfio-pci's MSI-X, the ring and
 * null drivers, the TAP PMD's exception queue without one) caps the sleep instead: at
 * SB_DP_POLL_SLEEP_US while the hellos are at the fast pace (traffic in the last second),
 * at SB_DP_POLL_SLOW_US at the idle pace, so its first frame after a quiet spell waits at
 * most that long.
 * A poll that found a queue at least half a burst deep is followed by another at once, as
 * Open vSwitch's PMD load-based sleep does: under load the worker never sleeps. A worker
 * whose output is full (the paths' queue models, a port or the kernel refusing frames)
 * leaves input unread on purpose; the wait set would report that input at once, so it naps
 * on the timer instead, SB_DP_NAP_MIN_US growing by a microsecond a nap to SB_DP_NAP_MAX_US.
 *
 * lcore_mode = dedicated: the worker never sleeps (busy polling, for a core of its own).
 */
#define SB_DP_SLEEP_MAX_US 100000
#define SB_DP_NAP_MIN_US 1
#define SB_DP_NAP_MAX_US 100
#define SB_DP_POLL_SLEEP_US 100
#define SB_DP_POLL_SLOW_US 5000

/*
 * Timer slack of the sleeps at the idle pace: a quarter of the tick (SB_DP_SLOW_SLACK_US).
 * Every instance on a core ticks at its own phase, so with a 1 us slack each of their
 * wake-ups can be a wake-up of the CPU. With slack the kernel ends the sleeps whose time has
 * come together; a timed duty runs up to a quarter of a tick late, a frame not at all (it
 * ends the sleep itself).
 */

/* Set the thread's timer slack for long sleeps (@p wide) or the others (1 us: the default
 * 50 us would stretch a short timeout). */
static void
sleep_slack(struct sb_dp_worker *w, bool wide)
{
	if (wide == w->slack_wide)
		return;
	w->slack_wide = wide;
	prctl(PR_SET_TIMERSLACK, wide ? SB_DP_SLOW_SLACK_US * 1000UL : 1000UL);
}

/* TSC cycles until the first frame held behind a gap in one of @p rx's windows times out;
 * UINT64_MAX when none waits. */
static uint64_t
rx_hold_due(const struct sb_dp *dp, const struct sb_dp_rx *rx, uint64_t now)
{
	uint64_t busy = rx->busy_peers, due = UINT64_MAX;

	while (busy != 0) {
		unsigned int i = (unsigned int)__builtin_ctzll(busy);
		const struct sb_dp_rx_peer *rp = &dp->rx_peer[i];
		uint64_t waited;

		busy &= busy - 1;
		if (rp->reorder == NULL || sb_reorder_owned(rp->reorder) == 0)
			continue;
		waited = sb_reorder_hold_now(rp->reorder, now);
		due = RTE_MIN(due, waited < rp->timeout_set ? rp->timeout_set - waited : 0);
	}
	return due;
}

/* The worker's output is full: it left input unread on purpose (sb_wait.h). */
static bool
output_full(const struct sb_dp *dp, const struct sb_dp_worker *w)
{
	unsigned int i;

	if (w->more)
		return true;
	if (w->tx != NULL) {
		const struct sb_dp_tx *tx = w->tx;

		if (tx->n_pending != 0 || tx->n_held != 0)
			return true;
		for (i = 0; i < dp->n_ports; i++)
			if (tx->port[i].txq.n != 0 || tx->port[i].ctlq.n != 0)
				return true;
	}
	if (w->rx != NULL) {
		const struct sb_dp_rx *rx = w->rx;

		if (rx->exc_txq.n != 0 || sb_exc_tx_held(dp->exc, rx->id) != 0)
			return true;
		for (i = 0; i < rx->n_ports; i++)
			if (rx->pt_txq[rx->ports[i]].n != 0)
				return true;
	}
	return false;
}

/*
 * Answers. A frame just handed to the kernel is often a request whose answer the kernel
 * gives back within tens of microseconds (a ping, an NFS call, a DRBD write's ack), and a
 * sleeping worker would pay a wake-up for it, on a virtual machine the largest part of a
 * round trip. So after a poll that delivered frames to the kernel the worker that reads the
 * kernel keeps polling for up to SB_DP_ANSWER_US, yielding the CPU between polls (on a shared
 * core the task that answers runs first), and sleeps only then. In split roles the RX worker
 * that delivered kicks the TX worker at once, so its wake-up overlaps the kernel's work.
 *
 * It only pays where answers come: a score (0..SB_DP_ANSWER_SCORE_MAX) rises by 2 for each
 * window an answer came in and falls by 1 for each that ran out; at 0 a window opens for
 * every SB_DP_ANSWER_PROBE-th delivery only, so one-way traffic soon stops it.
 */
#define SB_DP_ANSWER_US 100
#define SB_DP_ANSWER_SCORE_MAX 8
#define SB_DP_ANSWER_PROBE 16

/* RX side of @p rx: frames went to the kernel at @p now. */
static void
answer_expect(struct sb_dp *dp, struct sb_dp_rx *rx, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;

	if (__atomic_load_n(&tx->answer_score, __ATOMIC_RELAXED) == 0 &&
			++rx->answer_probe % SB_DP_ANSWER_PROBE != 0)
		return;
	__atomic_store_n(&tx->answer_from, now | 1, __ATOMIC_RELAXED);
	sb_dp_kick_later(rx->w, tx->w);
}

/* TX side: @return true to poll again at once (an answer is expected, none came yet). */
static bool
answer_wait(struct sb_dp_tx *tx, uint64_t now)
{
	uint64_t from = __atomic_load_n(&tx->answer_from, __ATOMIC_RELAXED);
	int score = tx->answer_score;

	if (from == tx->answer_done)
		return false;
	if (from != tx->answer_open) {
		/* A new window: what the kernel gave so far is no answer. */
		tx->answer_open = from;
		tx->answer_exc_rx = tx->stats->exc_rx;
	}
	if (tx->stats->exc_rx != tx->answer_exc_rx) {
		score = RTE_MIN(score + 2, SB_DP_ANSWER_SCORE_MAX);
	} else if (now - from < tx->answer_window) {
		return true;
	} else {
		score = RTE_MAX(score - 1, 0);
		tx->stats->answer_misses++;
	}
	tx->answer_done = from;
	__atomic_store_n(&tx->answer_score, score, __ATOMIC_RELAXED);
	return false;
}

/* Work other threads left on the worker's rings since its last poll. */
static bool
rings_hold_work(const struct sb_dp *dp, const struct sb_dp_worker *w)
{
	if (!rte_ring_empty(w->cmd_ring))
		return true;
	if (w->tx != NULL && !rte_ring_empty(dp->hello_ring))
		return true;
	return w->rx != NULL &&
		(!rte_ring_empty(w->rx->msg_ring) || !rte_ring_empty(w->rx->data_ring));
}

/* After a poll at @p now: sleep, nap or go on (see above). @p next_hk: TSC of the worker's
 * next housekeeping. */
static void
worker_idle(struct sb_dp_worker *w, uint64_t now, uint64_t next_hk)
{
	struct sb_dp *dp = w->dp;
	uint64_t due = (uint64_t)SB_DP_SLEEP_MAX_US * dp->hz / 1000000, ns;
	bool slow = false;
	int woke;

	if (dp->conf.lcore_dedicated || w->max_batch >= dp->conf.burst / 2) {
		w->nap_us = SB_DP_NAP_MIN_US;
		return;
	}
	if (output_full(dp, w)) {
		sleep_slack(w, false);
		sb_wait_nap((uint64_t)w->nap_us * 1000);
		if (w->nap_us < SB_DP_NAP_MAX_US)
			w->nap_us++;
		w->stats.idle_naps++;
		return;
	}
	w->nap_us = SB_DP_NAP_MIN_US;
	if (w->rx != NULL && w->stats.exc_tx != w->rx->answer_delivered) {
		w->rx->answer_delivered = w->stats.exc_tx;
		answer_expect(dp, w->rx, now);
	}
	if (w->tx != NULL && answer_wait(w->tx, now)) {
		w->stats.answer_polls++;
		sched_yield();
		return;
	}
	if (w->tx != NULL) {
		slow = __atomic_load_n(&w->tx->hello_slow, __ATOMIC_RELAXED);
		due = slow ? (uint64_t)SB_DP_SLOW_TICK_US * dp->hz / 1000000 :
			(next_hk > now ? next_hk - now : 0);
	}
	if (w->rx != NULL)
		due = RTE_MIN(due, rx_hold_due(dp, w->rx, now));
	if (w->n_polled != 0)
		due = RTE_MIN(due, (uint64_t)(__atomic_load_n(&dp->tx->hello_slow,
			__ATOMIC_RELAXED) ? SB_DP_POLL_SLOW_US : SB_DP_POLL_SLEEP_US) *
			dp->hz / 1000000);
	if (due == 0)
		return;
	ns = sb_tsc_to_ns(due, dp->hz);
	sleep_slack(w, slow && due >= (uint64_t)SB_DP_SLOW_TICK_US * dp->hz / 1000000);
	sb_wait_prepare(w->wait);
	if (rings_hold_work(dp, w)) {
		sb_wait_cancel(w->wait);
		return;
	}
	woke = sb_wait_sleep(w->wait, ns);
	w->stats.idle_sleeps++;
	if (woke <= 0)
		w->stats.idle_timer_wakeups++;
	if (woke > 0 && (woke & SB_WAIT_PORT))
		w->stats.idle_port_wakeups++;
	if (woke > 0 && (woke & SB_WAIT_KERNEL))
		w->stats.idle_kernel_wakeups++;
	if (woke > 0 && (woke & SB_WAIT_KICK))
		w->stats.idle_kick_wakeups++;
}

/* Build worker @p w's wait set: what it reads. A source whose driver offers no way to wait
 * (the null and ring drivers) caps the worker's sleep (n_polled); said once. */
static int
wait_set_init(struct sb_dp *dp, struct sb_dp_worker *w)
{
	unsigned int i, q;
	int fd, ret;

	w->wait = sb_wait_create();
	if (w->wait == NULL)
		return -errno;
	if (w->rx != NULL)
		for (i = 0; i < w->rx->n_ports; i++) {
			const struct sb_dp_port_conf *pc = &dp->conf.port[w->rx->ports[i]];

			ret = sb_wait_add_rx_queue(w->wait, pc->port_id, 0, SB_WAIT_PORT);
			w->n_polled += ret != 0;
			if (ret != 0)
				DP_LOG(INFO, "port %u: no descriptor to sleep on (%s): its "
					"frames are polled every %u us when idle (%u us at the idle pace)",
					w->rx->ports[i], rte_strerror(-ret), SB_DP_POLL_SLEEP_US,
					SB_DP_POLL_SLOW_US);
		}
	if (w->tx == NULL)
		return 0;
	for (q = 0; q < dp->n_exc_queues; q++) {
		fd = sb_exc_wait_fd(dp->exc, q);
		ret = fd < 0 ? fd : sb_wait_add_fd(w->wait, fd, SB_WAIT_KERNEL);
		w->n_polled += ret != 0;
		if (ret != 0)
			DP_LOG(INFO, "exception queue %u: no descriptor to sleep on (%s): its "
				"frames are polled every %u us when idle (%u us at the idle pace)", q,
				rte_strerror(-ret), SB_DP_POLL_SLEEP_US, SB_DP_POLL_SLOW_US);
	}
	for (i = 0; i < dp->n_ports; i++) {
		uint16_t pt = dp->conf.port[i].pt_port;

		if (pt == RTE_MAX_ETHPORTS)
			continue;
		ret = sb_wait_add_rx_queue(w->wait, pt, 0, SB_WAIT_KERNEL);
		w->n_polled += ret != 0;
		if (ret != 0)
			DP_LOG(INFO, "port %u passthrough: no descriptor to sleep on (%s): its "
				"frames are polled every %u us when idle (%u us at the idle pace)", i,
				rte_strerror(-ret), SB_DP_POLL_SLEEP_US, SB_DP_POLL_SLOW_US);
	}
	return 0;
}

void
sb_dp_wake(struct sb_dp *dp, unsigned int k)
{
	if (k < dp->n_workers && dp->worker[k].wait != NULL)
		sb_wait_kick(dp->worker[k].wait);
}

/* Wake the workers that another worker's poll gave work (kick_mask). */
static void
kick_others(struct sb_dp_worker *w)
{
	while (w->kick_mask != 0) {
		unsigned int k = (unsigned int)__builtin_ctz(w->kick_mask);

		w->kick_mask &= w->kick_mask - 1;
		sb_dp_wake(w->dp, k);
	}
}

unsigned int
sb_dp_worker_poll(struct sb_dp_worker *w, uint64_t now, bool housekeeping)
{
	struct sb_dp *dp = w->dp;
	unsigned int done = 0;

	w->max_batch = 0;
	w->more = false;
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
		if (w->tx != NULL) {
			sb_dp_hello_tick(dp, now);
			/* The hellos it queued leave now, not after the next wake-up. */
			done += sb_dp_tx_flush(dp);
		}
	}
	kick_others(w);
	w->stats.loops++;
	return done;
}

int
sb_dp_lcore_main(void *arg)
{
	struct sb_dp_worker *w = arg;
	struct sb_dp *dp = w->dp;
	uint64_t now, next_hk = 0, hk_period = dp->hz / 1000, last;

	/* Default timer slack (50 us) would stretch every short sleep. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	w->lcore = rte_lcore_id();
	w->nap_us = SB_DP_NAP_MIN_US;
	last = rte_rdtsc();
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
		worker_idle(w, rte_rdtsc(), next_hk);
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
	tx->probe_period = (uint64_t)conf->mtu_probe_interval_ms * dp->hz / 1000;
	tx->probe_interval_ms = conf->mtu_probe_interval_ms;
	/* Start at the fast pace: paths come up within a few hellos. */
	tx->pace_last = rte_rdtsc();
	tx->instance = (uint32_t)rte_rand() | 1;
	tx->answer_score = SB_DP_ANSWER_SCORE_MAX / 2;
	tx->answer_window = (uint64_t)SB_DP_ANSWER_US * dp->hz / 1000000;
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
		.tick_stall = sb_dp_tick_stall(dp, false),
		.silence_hold = (uint64_t)conf->peer_silence_hold_ms * dp->hz / 1000,
		.peer_evict = (uint64_t)conf->peer_evict_s * dp->hz,
		.on_event = sb_dp_peer_event,
		.event_arg = dp,
		.data_rx = sb_dp_data_counts,
		.frames_tx = sb_dp_data_sent,
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
			conf->mtu_probe_interval_ms > UINT16_MAX ||
			(conf->keyring != NULL && (conf->keyring->n_keys > SB_AUTH_RING_MAX ||
			(conf->keyring->n_keys > 0 &&
			conf->keyring->send >= conf->keyring->n_keys)))) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->keyring != NULL && conf->keyring->n_keys > 0 && sb_auth_init() != 0) {
		rte_errno = EIO;
		return NULL;
	}
	dp = rte_zmalloc("seqbond_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (dp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dp->conf = *conf;
	dp->auth = conf->keyring != NULL && conf->keyring->n_keys > 0;
	dp->mp = conf->mp;
	dp->hz = rte_get_tsc_hz();
	dp->n_ports = conf->n_ports;
	dp->exc = conf->exc;
	dp->exc_mtu = conf->exc_mtu;
	dp->n_exc_queues = conf->n_exc_queues;
	dp->stop = stop;
	dp->n_workers = conf->n_workers;
	/* DPDK's own rx timestamp field: a driver that fills it is not among ours (we never
	 * ask for RTE_ETH_RX_OFFLOAD_TIMESTAMP), so the datapath writes it itself. */
	if (rte_mbuf_dyn_rx_timestamp_register(&dp->ts_off, NULL) != 0)
		dp->ts_off = -1;
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
	for (i = 0; i < dp->n_workers; i++) {
		ret = wait_set_init(dp, &dp->worker[i]);
		if (ret != 0)
			goto fail;
	}
	ret = sb_dp_auth_create(dp);
	if (ret != 0)
		goto fail;
	/* Each worker has its copy of the keys: the caller's is not ours to keep. */
	dp->conf.keyring = NULL;
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
	}
	sb_dp_auth_free(dp);	/* keys and their copies, wiped */
	if (tx != NULL)
		rte_free(tx);
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
	for (i = 0; i < SB_DP_MAX_WORKERS; i++) {
		rte_ring_free(dp->worker[i].cmd_ring);
		sb_wait_free(dp->worker[i].wait);
	}
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
