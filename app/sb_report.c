/* SPDX-License-Identifier: BSD-3-Clause */
/* Human-readable counters: printed at exit (and later by the console). */
#include <inttypes.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_dp.h"
#include "sb_report.h"

#define ROW(f, name, v) fprintf(f, "  %-28s %" PRIu64 "\n", name, (uint64_t)(v))

void
sb_report_print(FILE *f, const struct sb_dp *dp)
{
	const struct sb_dp_stats *st = &dp->stats;
	struct rte_eth_stats es;
	unsigned int i, j;

	fprintf(f, "seqbond counters (host %u)\n", dp->cfg->host_id);
	fprintf(f, " exception -> ports\n");
	ROW(f, "exc_rx", st->exc_rx);
	ROW(f, "tx_data", st->tx_data);
	ROW(f, "tx_data_bytes", st->tx_data_bytes);
	ROW(f, "tx_unseq", st->tx_unseq);
	ROW(f, "tx_hello", st->tx_hello);
	ROW(f, "tx_no_peer", st->tx_no_peer);
	ROW(f, "tx_no_path", st->tx_no_path);
	ROW(f, "tx_too_big", st->tx_too_big);
	ROW(f, "tx_backpressure", st->tx_backpressure);
	ROW(f, "tx_queue_drop", st->tx_queue_drop);
	ROW(f, "tx_nombuf", st->tx_nombuf);
	/* Read from the kernel, waiting for a path at exit (freed by sb_dp_free()). */
	ROW(f, "exc_pending", dp->n_pending - dp->pending_head);
	fprintf(f, " ports -> exception\n");
	ROW(f, "rx", st->rx);
	ROW(f, "rx_data", st->rx_data);
	ROW(f, "rx_unseq", st->rx_unseq);
	ROW(f, "rx_hello", st->rx_hello);
	ROW(f, "rx_foreign", st->rx_foreign);
	for (i = SB_WIRE_E_TRUNCATED; i < SB_WIRE_E_MAX; i++) {
		char name[40];

		snprintf(name, sizeof(name), "rx_err_%s", sb_wire_err_str(i));
		ROW(f, name, st->rx_err[i]);
	}
	ROW(f, "rx_unknown_peer", st->rx_unknown_peer);
	ROW(f, "rx_hello_rejected", st->rx_hello_rejected);
	ROW(f, "rx_late_dropped", st->rx_late_dropped);
	ROW(f, "rx_late_delivered", st->rx_late_delivered);
	ROW(f, "rx_duplicate", st->rx_duplicate);
	ROW(f, "rx_out_of_range", st->rx_out_of_range);
	ROW(f, "exc_tx", st->exc_tx);
	ROW(f, "exc_tx_drop", st->exc_tx_drop);
	ROW(f, "exc_too_big", st->exc_too_big);
	/* Released to the exception port's queue, not yet accepted by it at exit. */
	ROW(f, "exc_queued", dp->exc_txq.n);
	ROW(f, "loops", st->loops);
	ROW(f, "idle_sleeps", st->idle_sleeps);

	for (i = 0; i < dp->n_ports; i++) {
		const struct sb_dp_port *p = &dp->port[i];

		if (rte_eth_stats_get(p->port_id, &es) != 0)
			continue;
		fprintf(f, " port %u (ethdev %u): rx %" PRIu64 " frames %" PRIu64 " bytes, "
			"tx %" PRIu64 " frames %" PRIu64 " bytes, missed %" PRIu64 ", "
			"rx errors %" PRIu64 ", tx errors %" PRIu64 "\n", i, p->port_id,
			es.ipackets, es.ibytes, es.opackets, es.obytes, es.imissed, es.ierrors,
			es.oerrors);
	}
	for (i = 0; i < dp->peers.n_peers; i++) {
		const struct sb_peer *peer = &dp->peers.peer[i];
		const struct sb_dp_peer *dpeer = &dp->dpeer[i];
		struct sb_reorder_stats rs;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(mac, sizeof(mac),
			(const struct rte_ether_addr *)peer->agg_mac);
		fprintf(f, " peer %u (%s): %u of %u paths up\n", peer->host_id, mac, peer->n_up,
			peer->n_paths);
		for (j = 0; j < peer->n_paths; j++) {
			const struct sb_path *path = &peer->path[j];

			fprintf(f, "  path %u: port %u <-> peer port %u %s, tx %" PRIu64
				" rx %" PRIu64 " hellos %" PRIu64 "\n", j, path->local_port,
				path->remote_port, path->state == SB_PATH_UP ? "up" : "down",
				dpeer->path_tx[j], dpeer->path_rx[j], path->hellos_rx);
		}
		sb_reorder_stats_get(dpeer->reorder, &rs);
		fprintf(f, "  reorder: in_order %" PRIu64 " reordered %" PRIu64 " late %" PRIu64
			" duplicate %" PRIu64 " out_of_range %" PRIu64 " lost_rule %" PRIu64
			" lost_timeout %" PRIu64 " lost_slide %" PRIu64 " held %u hwm %u"
			" hold_max_us %" PRIu64 "\n", rs.in_order, rs.reordered, rs.late,
			rs.duplicate, rs.out_of_range, rs.lost_rule, rs.lost_timeout,
			rs.lost_slide, rs.occupancy, rs.occupancy_hwm,
			rs.hold_max * 1000000 / dp->hz);
	}
	fflush(f);
}
