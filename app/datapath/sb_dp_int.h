/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_DP_INT_H
#define SB_DP_INT_H

/**
 * @file
 * Inside the datapath: the state of one lcore and the stages of its loop. Only app/datapath/
 * (and harnesses that play the lcore, such as bench_dp) include this.
 *
 * Files and who calls whom (no cycles):
 *   sb_dp.c        create/free and the loop   -> rx, tx, hello, cmd
 *   sb_dp_rx.c     ports -> reorder -> kernel  -> hello (hello input)
 *   sb_dp_tx.c     kernel -> shim -> ports
 *   sb_dp_hello.c  hellos in/out, carrier, peer and path events
 *   sb_dp_cmd.c    commands from the ring, snapshots -> hello (port down)
 *   sb_dp_stats.c  the counter table
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sb_dp.h"

extern int sb_dp_logtype;
#define DP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_dp_logtype, "seqbond.peer: " fmt "\n", ##__VA_ARGS__)

#define SB_TXQ_CAP 512		/**< Frames a port's software tx queue holds before dropping. */
#define SB_CTLQ_CAP 16		/**< Hellos a port's control queue holds. */

/** Frames waiting for a port (or the exception port) to accept them. */
struct sb_txq {
	uint16_t n;
	struct rte_mbuf *m[SB_TXQ_CAP];
};

/** Hellos waiting for a port: flushed before its data, so they leave on time whatever the
 *  load (a saturated path must not look dead). */
struct sb_ctlq {
	uint16_t n;
	struct rte_mbuf *m[SB_CTLQ_CAP];
};

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
	uint32_t hello_seq;		/**< Next hello's sequence number on this port. */
	unsigned int entry_cursor;	/**< Rotation of entries too many for one hello. */
	uint64_t next_probe;		/**< TSC of the next full-size probe. */
	struct sb_ctlq ctlq;
	struct sb_txq txq;
} __rte_cache_aligned;

/** Per-peer datapath state; index = peer table index. */
struct sb_dp_peer {
	uint32_t tx_seq;		/**< Next sequence number to send. */
	bool ready;
	uint8_t path_seq[SB_PEER_MAX_PATHS];	/**< Next shim path sequence per path. */
	uint64_t rbusy_ns[SB_MAX_PORTS];	/**< Queue model of each of the peer's ports. */
	struct sb_sched sched;
	struct sb_sched_view view;
	struct sb_reorder *reorder;
	uint64_t path_tx[SB_PEER_MAX_PATHS];	/**< Frames sent per path. */
	uint64_t path_tx_bytes[SB_PEER_MAX_PATHS];
	uint64_t path_rx[SB_PEER_MAX_PATHS];	/**< Data frames received per path. */
	uint64_t path_rx_bytes[SB_PEER_MAX_PATHS];
};

struct sb_dp {
	struct sb_dp_conf conf;		/**< Copied at create; changed only by commands. */
	struct rte_mempool *mp;
	uint64_t hz;			/**< TSC cycles per second. */
	uint64_t reorder_timeout;	/**< TSC cycles. */
	uint64_t hello_period;		/**< TSC cycles. */
	uint16_t hello_interval_ms;	/**< Announced in hellos. */
	struct rte_ring *cmd_ring;	/**< Commands from control, drained by the lcore. */
	unsigned int n_ports;
	uint16_t exc_port;
	uint16_t exc_mtu;
	uint32_t instance;
	const struct sb_sched_ops *sched_ops;
	bool *stop;			/**< Set by the main lcore; read with __atomic_load_n. */
	uint16_t max_batch;		/**< Deepest rx burst of this loop iteration. */
	uint64_t next_hello;		/**< TSC of the next round of hellos. */
	uint64_t probe_period;		/**< TSC cycles between full-size probes; 0 none. */
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

/* Stages of one loop iteration. Each returns the number of frames it handled (harnesses
 * use it); the loop's nap decision uses max_batch. */

/** Read every started member port, parse, reorder, release in order (sb_dp_rx.c). */
unsigned int sb_dp_rx_ports(struct sb_dp *dp, uint64_t now);
/** Read the exception port, add shims, stripe onto port queues (sb_dp_tx.c). */
unsigned int sb_dp_tx_exception(struct sb_dp *dp, uint64_t now);
/** Hand the software queues to the ports and the exception port (sb_dp_tx.c). */
unsigned int sb_dp_flush(struct sb_dp *dp);
/** Commands, carrier, hellos out, path expiry; every millisecond (sb_dp.c). */
void sb_dp_housekeeping(struct sb_dp *dp, uint64_t now);

/* sb_dp_hello.c */

/** A hello arrived on @p p: decode it, update the peer table, act on its events. Consumes
 *  @p m. */
void sb_dp_hello_input(struct sb_dp *dp, struct sb_dp_port *p, struct rte_mbuf *m,
	uint64_t now);
/** Poll carriers, send the round of hellos when due, expire silent paths. */
void sb_dp_hello_tick(struct sb_dp *dp, uint64_t now);
/** Take port @p p out of service: drop its queues, every path over it down. */
void sb_dp_port_down(struct sb_dp *dp, struct sb_dp_port *p, uint64_t now);
/** The peer table's event handler (struct sb_peer_conf on_event; @p arg is the sb_dp). */
void sb_dp_peer_event(void *arg, const struct sb_peer_event *ev);

/* sb_dp_cmd.c */

/** Apply every command waiting on the ring. */
void sb_dp_cmd_drain(struct sb_dp *dp, uint64_t now);

/** mbuf destructor for the reorder window's opaque objects. */
void sb_dp_free_mbuf(void *obj, void *arg);

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

#endif /* SB_DP_INT_H */
