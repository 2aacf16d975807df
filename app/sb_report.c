/* SPDX-License-Identifier: BSD-3-Clause */
/* Human-readable counters: printed at exit (and later by the console). */
#include <inttypes.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_dp.h"
#include "sb_report.h"

#define ROW(f, name, v) fprintf(f, "  %-28s %" PRIu64 "\n", name, (uint64_t)(v))

static void
print_row(const char *name, uint64_t v, void *arg)
{
	ROW((FILE *)arg, name, v);
}

void
sb_report_print(FILE *f, const struct sb_dp *dp)
{
	const struct sb_dp_stats *st = &dp->stats;
	struct sb_exc_stats xs;
	struct rte_eth_stats es;
	unsigned int i, j;

	fprintf(f, "seqbond counters (host %u)\n", dp->cfg->host_id);
	sb_dp_stats_foreach(st, print_row, f);
	/* Frames still waiting at exit (freed by sb_dp_free()): read from the kernel with
	 * no path free, and released to the exception port but not yet accepted by it. */
	ROW(f, "exc_pending", dp->n_pending - dp->pending_head);
	ROW(f, "exc_queued", dp->exc_txq.n);
	/* The exception path's own counters (large segments cut and merged, checksums). */
	sb_exc_stats_get(dp->exc, &xs);
	sb_exc_stats_foreach(&xs, print_row, f);

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
