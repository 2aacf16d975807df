/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_WAIT_H
#define SB_WAIT_H

/**
 * @file
 * A wait set: what a datapath lcore sleeps on when it has nothing to do, so that the first
 * frame from any of its sources wakes it at once instead of waiting out a nap.
 *
 * Sources are descriptors that poll readable (POLLIN, level-triggered) while a source holds
 * input: an af_packet or AF_XDP socket, a TUN/TAP queue, a TAP PMD queue; an ethdev rx queue
 * with DPDK rx interrupts (rte_eth_dev_rx_intr_enable(), as l3fwd-power uses them), armed
 * just before the sleep and disarmed after it; and a kick (an eventfd) that other threads
 * write when they put work on one of the owner's rings. A timeout bounds every sleep.
 *
 * One thread owns a set and sleeps on it; any thread may kick it. The kick is only written
 * while the owner is inside sb_wait_prepare() ... sb_wait_sleep()/sb_wait_cancel(), so a
 * producer pays a fence and a load per burst, and a system call only when it ends a sleep:
 *
 *   owner:    sb_wait_prepare(); if (rings empty) sb_wait_sleep(); else sb_wait_cancel();
 *   producer: enqueue; sb_wait_kick();
 *
 * Level-triggered: the owner must not sleep on a source it leaves unread on purpose (a
 * queue it holds back from while its output is full), or the sleep ends at once; it naps
 * on a timer instead (sb_wait_nap()).
 */

#include <stdbool.h>
#include <stdint.h>

struct sb_wait;

/** Source classes: sb_wait_sleep() reports which of them ended a sleep, as a bit mask. */
enum sb_wait_src {
	SB_WAIT_PORT = 1u << 0,		/**< A member port's rx queue. */
	SB_WAIT_KERNEL = 1u << 1,	/**< The exception path or a passthrough interface. */
	SB_WAIT_KICK = 1u << 2,		/**< Another thread (sb_wait_kick()). */
};

/**
 * Create an empty set (its epoll instance and kick eventfd).
 * @return the set, or NULL with errno set.
 */
struct sb_wait *sb_wait_create(void);

/** Close a set's descriptors and free it; NULL is ignored. The sources' own descriptors
 *  are their owners'. */
void sb_wait_free(struct sb_wait *ws);

/**
 * Add a descriptor that polls readable while its source holds input.
 * @param src  One enum sb_wait_src class, reported when it ends a sleep.
 * @return 0, or a negative errno from epoll_ctl() (-EEXIST: added twice).
 */
int sb_wait_add_fd(struct sb_wait *ws, int fd, uint32_t src);

/**
 * Add rx queue @p queue of ethdev port @p port_id: the descriptor sb_port_rx_wake() finds
 * for it (a socket or queue descriptor, or the queue's DPDK rx interrupt).
 * @return 0; -ENOTSUP when the driver offers no way to wait (the owner then finds the
 *   port's frames only when something else wakes it or the timeout ends); another
 *   negative errno on failure.
 */
int sb_wait_add_rx_queue(struct sb_wait *ws, uint16_t port_id, uint16_t queue, uint32_t src);

/** Sources added (sb_wait_add_fd(), sb_wait_add_rx_queue()), the kick not counted. */
unsigned int sb_wait_sources(const struct sb_wait *ws);

/**
 * Owner: announce a sleep. From here on kicks are written; the owner then checks the rings
 * others fill and calls sb_wait_sleep(), or sb_wait_cancel() if they hold work.
 */
void sb_wait_prepare(struct sb_wait *ws);

/** Owner: no sleep after sb_wait_prepare() after all. */
void sb_wait_cancel(struct sb_wait *ws);

/**
 * Owner, after sb_wait_prepare(): sleep until a source holds input, a kick, or
 * @p timeout_ns pass (0: poll the sources once, no sleep). Arms the rx interrupts of queues
 * that have them and disarms them after. A signal ends the sleep early (reported as a
 * timeout).
 * @return the enum sb_wait_src classes that ended it (0: the timeout), or a negative errno
 *   from epoll.
 */
int sb_wait_sleep(struct sb_wait *ws, uint64_t timeout_ns);

/** Owner: sleep @p ns on the timer alone (the sources are not watched). */
void sb_wait_nap(uint64_t ns);

/**
 * Any thread: end the owner's sleep if it is in one (or about to enter one). Cheap when it
 * is not: one atomic exchange.
 */
void sb_wait_kick(struct sb_wait *ws);

#endif /* SB_WAIT_H */
