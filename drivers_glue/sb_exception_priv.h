/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_EXCEPTION_PRIV_H
#define SB_EXCEPTION_PRIV_H

/* Inside the exception path: the table of functions each back end fills (STYLE.md 4). */

#include <rte_common.h>
#include <rte_log.h>

#include "sb_exception.h"

extern int sb_exc_logtype;
#define EXC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_exc_logtype, "seqbond.exception: " fmt "\n", ##__VA_ARGS__)

struct sb_exc_ops {
	const char *name;
	/** Fill exc->priv and exc->info from @p args. @return 0 or a negative errno. */
	int (*create)(struct sb_exc *exc, const struct sb_exc_args *args);
	uint16_t (*rx_burst)(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
	uint16_t (*tx_burst)(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
	/** Free every held mbuf and the interface. @return 0 or -EBUSY (mbufs still out). */
	int (*close)(struct sb_exc *exc);
	/** Frames queue @p q holds that the kernel refused (sb_exc_tx_held()); NULL: none. */
	unsigned int (*tx_held)(const struct sb_exc *exc, uint16_t q);
	/** Queue @p q's wake-up descriptor (sb_exc_wait_fd()); NULL: none. */
	int (*wait_fd)(const struct sb_exc *exc, uint16_t q);
	/** Mbufs of the caller's pool the back end may hold (sb_exc_mempool_need()). */
	unsigned int (*mempool_need)(const struct sb_exc_args *args, uint16_t data_room);
};

/**
 * One queue's counters. rx_burst and tx_burst of a queue may run on two lcores at once, so
 * each has its own copy on its own cache lines and writes only its rx_* or tx_* fields
 * (one writer per counter); readers add both.
 */
struct sb_exc_queue_stats {
	struct sb_exc_stats rx __rte_cache_aligned;
	struct sb_exc_stats tx __rte_cache_aligned;
};

struct sb_exc {
	const struct sb_exc_ops *ops;
	struct sb_exc_info info;
	void *priv;			/**< Back end's state. */
	struct sb_exc_queue_stats qstats[SB_EXC_MAX_QUEUES];
};

extern const struct sb_exc_ops sb_exc_tap_ops;
extern const struct sb_exc_ops sb_exc_virtio_user_ops;
extern const struct sb_exc_ops sb_exc_port_ops;
extern const struct sb_exc_ops sb_exc_tap_vnet_ops;

#endif /* SB_EXCEPTION_PRIV_H */
