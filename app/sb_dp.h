/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_DP_H
#define SB_DP_H

/**
 * @file
 * Datapath state of one lcore and the calls its loop makes.
 *
 * Everything here is owned and written by the datapath lcore only; the main lcore reads the
 * counters after the lcore stopped (and, in later versions, through published snapshots).
 * This version runs one datapath lcore that polls every member port and the exception port:
 * at gigabit rates one core is plenty, and it keeps each peer's sequence space and reorder
 * window on a single core without locks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_config.h"
#include "sb_exception.h"
#include "sb_peer.h"
#include "sb_reorder.h"
#include "sb_sched.h"
#include "sb_wire.h"

#define SB_TXQ_CAP 512		/**< Frames a port's software tx queue holds before dropping. */
#define SB_BURST_MAX 256

/** Frames waiting for a port (or the exception port) to accept them. */
struct sb_txq {
	uint16_t n;
	struct rte_mbuf *m[SB_TXQ_CAP];
};

/** Counters of one datapath lcore, in frames unless named _bytes. */
struct sb_dp_stats {
	/* from the kernel (exception path) towards the ports */
	uint64_t exc_rx;		/**< Frames read from the exception port. */
	uint64_t tx_data;		/**< Sequenced frames sent to peers. */
	uint64_t tx_data_bytes;
	uint64_t tx_unseq;		/**< Broadcast/multicast frames sent unsequenced. */
	uint64_t tx_hello;
	uint64_t tx_no_peer;		/**< Unicast to a MAC that is no peer's: dropped. */
	uint64_t tx_no_path;		/**< Peer known but no path up: dropped. */
	uint64_t tx_too_big;		/**< Larger than the path MTU after encapsulation: dropped. */
	uint64_t tx_backpressure;	/**< Times every path was full and frames waited. */
	uint64_t tx_queue_drop;		/**< Port software queue overflowed: dropped. */
	uint64_t tx_nombuf;		/**< No mbuf for a hello. */
	/* from the ports towards the kernel */
	uint64_t rx;			/**< Frames read from member ports. */
	uint64_t rx_data;
	uint64_t rx_unseq;
	uint64_t rx_hello;
	uint64_t rx_foreign;		/**< Not seqbond's EtherType (raw traffic): dropped. */
	uint64_t rx_err[SB_WIRE_E_MAX];	/**< Malformed, by reason: dropped. */
	uint64_t rx_unknown_peer;	/**< Data from a sender we have no path to: dropped. */
	uint64_t rx_hello_rejected;	/**< Hellos the peer table refused. */
	uint64_t rx_late_dropped;
	uint64_t rx_late_delivered;
	uint64_t rx_duplicate;
	uint64_t rx_out_of_range;
	uint64_t exc_tx;		/**< Frames handed to the kernel. */
	uint64_t exc_tx_drop;		/**< Exception port refused them and its queue overflowed. */
	uint64_t exc_too_big;		/**< Inner frame larger than the exception MTU: dropped. */
	/* loop */
	uint64_t loops;
	uint64_t idle_sleeps;
} __rte_cache_aligned;

struct sb_dp_port {
	uint16_t port_id;		/**< ethdev port. */
	uint8_t index;			/**< Index in the config ([portN]). */
	uint8_t link_up;
	uint8_t admin_up;		/**< Operator's port start/stop. */
	uint8_t mac[SB_ETH_ALEN];
	uint16_t mtu;
	uint64_t rate_bps;
	uint64_t busy_until_ns;		/**< Queue model shared by every path over this port. */
	uint64_t tx_frames, tx_bytes;	/**< Accepted by the port (seqbond frames + hellos). */
	struct sb_txq txq;
} __rte_cache_aligned;

/** Per-peer datapath state; index = peer table index. */
struct sb_dp_peer {
	uint32_t tx_seq;		/**< Next sequence number to send. */
	bool ready;
	struct sb_sched sched;
	struct sb_sched_view view;
	struct sb_reorder *reorder;
	uint64_t path_tx[SB_PEER_MAX_PATHS];	/**< Frames sent per path. */
	uint64_t path_tx_bytes[SB_PEER_MAX_PATHS];
	uint64_t path_rx[SB_PEER_MAX_PATHS];	/**< Data frames received per path. */
	uint64_t path_rx_bytes[SB_PEER_MAX_PATHS];
};

struct sb_dp {
	const struct sb_config *cfg;
	struct rte_mempool *mp;
	uint64_t hz;			/**< TSC cycles per second. */
	uint64_t reorder_timeout;	/**< TSC cycles. */
	uint64_t hello_period;		/**< TSC cycles. */
	uint16_t hello_interval_ms;	/**< Announced in hellos. */
	struct rte_ring *cmd_ring;	/**< Control commands (sb_ctl.h), drained by the lcore. */
	unsigned int n_ports;
	struct sb_exc *exc;		/**< Exception path; this lcore polls its queue 0. */
	uint16_t exc_mtu;
	uint32_t instance;
	const struct sb_sched_ops *sched_ops;
	bool *stop;			/**< Set by the main lcore; read with __atomic_load_n. */
	uint16_t max_batch;		/**< Deepest rx burst of this loop iteration. */
	uint64_t next_hello;		/**< TSC of the next round of hellos. */
	uint64_t last_link_poll;	/**< TSC of the last carrier check. */

	struct sb_dp_stats stats;
	struct sb_dp_port port[SB_MAX_PORTS];
	struct sb_txq exc_txq;
	/* frames read from the kernel that waited for a path with room (backpressure) */
	uint16_t n_pending, pending_head;
	struct rte_mbuf *pending[SB_BURST_MAX];

	struct sb_peer_table peers;
	struct sb_dp_peer dpeer[SB_MAX_PEERS];
};

/**
 * Allocate and initialise the datapath state once ports and the exception port exist.
 * @return the state or NULL with rte_errno set (ENOMEM, EINVAL).
 */
struct sb_dp *sb_dp_create(const struct sb_config *cfg, struct rte_mempool *mp,
	const uint16_t *port_ids, struct sb_exc *exc, uint16_t exc_mtu, bool *stop);

/** Free every mbuf the datapath still holds (queues, reorder windows) and the state. */
void sb_dp_free(struct sb_dp *dp);

/** The lcore entry point (rte_eal_remote_launch): loops until *dp->stop. */
int sb_dp_lcore_main(void *arg);

/* Stages of one loop iteration (sb_dp_rx.c, sb_dp_tx.c, sb_dp_ctl.c). Each returns the
 * number of frames it handled (for harnesses); the loop's nap decision uses max_batch. */
unsigned int sb_dp_rx_ports(struct sb_dp *dp, uint64_t now);
unsigned int sb_dp_tx_exception(struct sb_dp *dp, uint64_t now);
unsigned int sb_dp_flush(struct sb_dp *dp);
void sb_dp_housekeeping(struct sb_dp *dp, uint64_t now);

/**
 * Call @p fn with the name and value of every counter in @p st (rx_err_<reason> included),
 * in datapath order. The exit report and telemetry both list counters through this, so a
 * new counter shows up in both.
 */
void sb_dp_stats_foreach(const struct sb_dp_stats *st,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg);

/** Queue @p m on @p q, or free it and count a drop. @return true if queued. */
static inline bool
sb_txq_put(struct sb_txq *q, struct rte_mbuf *m, uint64_t *drops)
{
	if (unlikely(q->n == SB_TXQ_CAP)) {
		rte_pktmbuf_free(m);
		(*drops)++;
		return false;
	}
	q->m[q->n++] = m;
	return true;
}

/**
 * Queue an inner frame for the kernel. A frame above the exception MTU (a peer whose links
 * have a larger MTU) is dropped and counted: the TAP PMD would refuse it for ever and
 * block the queue behind it.
 */
static inline void
sb_dp_exc_put(struct sb_dp *dp, struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_pkt_len(m) > (uint32_t)dp->exc_mtu + RTE_ETHER_HDR_LEN +
			RTE_VLAN_HLEN)) {
		dp->stats.exc_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	sb_txq_put(&dp->exc_txq, m, &dp->stats.exc_tx_drop);
}

/** TSC cycles to ns without overflow. */
static inline uint64_t
sb_tsc_to_ns(uint64_t tsc, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)tsc * 1000000000u / hz);
}

#endif /* SB_DP_H */
