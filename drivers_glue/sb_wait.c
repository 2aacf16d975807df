/* SPDX-License-Identifier: BSD-3-Clause */
/* The wait set of a datapath lcore (sb_wait.h): epoll over its sources, a kick eventfd,
 * and a nested epoll instance for DPDK rx interrupts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <rte_common.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>

#include "sb_port.h"
#include "sb_wait.h"

#define SB_WAIT_MAX_INTR 16	/* rx queues with DPDK interrupts per set */
#define SB_WAIT_EVENTS 32	/* epoll events taken per sleep */

/* epoll_event.data: the source class, or one of these. */
#define TAG_KICK UINT64_C(0x100)
#define TAG_INTR UINT64_C(0x200)

struct sb_wait {
	int epfd;
	int kick_fd;
	int intr_epfd;			/* DPDK rx interrupts (rte_epoll), nested in epfd */
	unsigned int n_intr;
	struct {
		uint16_t port_id;
		uint16_t queue;
	} intr[SB_WAIT_MAX_INTR];
	uint32_t intr_src;		/* class the interrupts report */
	unsigned int n_sources;
	int sleeping;			/* 1 between prepare and sleep/cancel; kickers clear it */
};

struct sb_wait *
sb_wait_create(void)
{
	struct sb_wait *ws = calloc(1, sizeof(*ws));
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_KICK };

	if (ws == NULL)
		return NULL;
	ws->intr_epfd = -1;
	ws->epfd = epoll_create1(EPOLL_CLOEXEC);
	ws->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ws->epfd < 0 || ws->kick_fd < 0 ||
			epoll_ctl(ws->epfd, EPOLL_CTL_ADD, ws->kick_fd, &ev) != 0) {
		int err = errno;

		sb_wait_free(ws);
		errno = err;
		return NULL;
	}
	return ws;
}

void
sb_wait_free(struct sb_wait *ws)
{
	unsigned int i;

	if (ws == NULL)
		return;
	for (i = 0; i < ws->n_intr; i++)
		rte_eth_dev_rx_intr_ctl_q(ws->intr[i].port_id, ws->intr[i].queue, ws->intr_epfd,
			RTE_INTR_EVENT_DEL, NULL);
	if (ws->intr_epfd >= 0)
		close(ws->intr_epfd);
	if (ws->kick_fd >= 0)
		close(ws->kick_fd);
	if (ws->epfd >= 0)
		close(ws->epfd);
	free(ws);
}

int
sb_wait_add_fd(struct sb_wait *ws, int fd, uint32_t src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = src };

	if (epoll_ctl(ws->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return -errno;
	ws->n_sources++;
	return 0;
}

/* A queue whose DPDK rx interrupt must be armed: into the nested rte_epoll instance, whose
 * callbacks acknowledge each interrupt (reading its counter, as the handle type needs). */
static int
add_intr(struct sb_wait *ws, uint16_t port_id, uint16_t queue, uint32_t src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_INTR };
	int ret;

	if (ws->n_intr == SB_WAIT_MAX_INTR)
		return -ENOSPC;
	if (ws->intr_epfd < 0) {
		ws->intr_epfd = epoll_create1(EPOLL_CLOEXEC);
		if (ws->intr_epfd < 0)
			return -errno;
		if (epoll_ctl(ws->epfd, EPOLL_CTL_ADD, ws->intr_epfd, &ev) != 0) {
			ret = -errno;
			close(ws->intr_epfd);
			ws->intr_epfd = -1;
			return ret;
		}
	}
	ret = rte_eth_dev_rx_intr_ctl_q(port_id, queue, ws->intr_epfd, RTE_INTR_EVENT_ADD,
		NULL);
	if (ret != 0)
		return ret;
	ws->intr[ws->n_intr].port_id = port_id;
	ws->intr[ws->n_intr].queue = queue;
	ws->n_intr++;
	ws->intr_src |= src;
	ws->n_sources++;
	return 0;
}

int
sb_wait_add_rx_queue(struct sb_wait *ws, uint16_t port_id, uint16_t queue, uint32_t src)
{
	bool intr;
	int fd = sb_port_rx_wake(port_id, queue, &intr);

	if (fd < 0)
		return fd;
	return intr ? add_intr(ws, port_id, queue, src) : sb_wait_add_fd(ws, fd, src);
}

unsigned int
sb_wait_sources(const struct sb_wait *ws)
{
	return ws->n_sources;
}

void
sb_wait_prepare(struct sb_wait *ws)
{
	/* Seq-cst: the owner's later loads of its rings must not pass this store (a kicker
	 * enqueues, then reads the flag: one of the two sees the other). */
	__atomic_store_n(&ws->sleeping, 1, __ATOMIC_SEQ_CST);
}

void
sb_wait_cancel(struct sb_wait *ws)
{
	__atomic_store_n(&ws->sleeping, 0, __ATOMIC_RELAXED);
}

static void
kick_drain(struct sb_wait *ws)
{
	uint64_t v;

	if (read(ws->kick_fd, &v, sizeof(v)) != sizeof(v)) {
		/* Nothing to read (EAGAIN): another wake-up took it. */
	}
}

static void
intr_arm(struct sb_wait *ws, bool on)
{
	unsigned int i;

	for (i = 0; i < ws->n_intr; i++) {
		if (on)
			rte_eth_dev_rx_intr_enable(ws->intr[i].port_id, ws->intr[i].queue);
		else
			rte_eth_dev_rx_intr_disable(ws->intr[i].port_id, ws->intr[i].queue);
	}
}

int
sb_wait_sleep(struct sb_wait *ws, uint64_t timeout_ns)
{
	struct epoll_event ev[SB_WAIT_EVENTS];
	struct timespec ts = {
		.tv_sec = timeout_ns / 1000000000,
		.tv_nsec = timeout_ns % 1000000000,
	};
	uint32_t woke = 0;
	int n, i;

	intr_arm(ws, true);
	n = epoll_pwait2(ws->epfd, ev, RTE_DIM(ev), &ts, NULL);
	intr_arm(ws, false);
	__atomic_store_n(&ws->sleeping, 0, __ATOMIC_RELAXED);
	if (n < 0) {
		if (errno == EINTR)
			n = 0;
		else
			return -errno;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].data.u64 == TAG_KICK) {
			kick_drain(ws);
			woke |= SB_WAIT_KICK;
		} else if (ev[i].data.u64 == TAG_INTR) {
			struct rte_epoll_event rev[SB_WAIT_MAX_INTR];

			/* Runs DPDK's acknowledgement of each interrupt that fired. */
			rte_epoll_wait(ws->intr_epfd, rev, RTE_DIM(rev), 0);
			woke |= ws->intr_src;
		} else {
			woke |= (uint32_t)ev[i].data.u64;
		}
	}
	return (int)woke;
}

void
sb_wait_nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	nanosleep(&ts, NULL);
}

void
sb_wait_kick(struct sb_wait *ws)
{
	static const uint64_t one = 1;

	/* Full barrier: the caller's enqueue is visible before the flag is read. */
	if (__atomic_exchange_n(&ws->sleeping, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	if (write(ws->kick_fd, &one, sizeof(one)) != sizeof(one)) {
		/* The counter is full (2^64 - 2 kicks unread): the owner wakes anyway. */
	}
}
