/* SPDX-License-Identifier: BSD-3-Clause */
/* Human-readable counters from a snapshot: the exit report. */
#include <inttypes.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_report.h"

#define ROW(f, name, v) fprintf(f, "  %-28s %" PRIu64 "\n", name, (uint64_t)(v))

static void
print_row(const char *name, uint64_t v, void *arg)
{
	ROW((FILE *)arg, name, v);
}

static void
print_inline(const char *name, uint64_t v, void *arg)
{
	fprintf((FILE *)arg, " %s %" PRIu64, name, v);
}

static void
print_inline_str(const char *name, const char *v, void *arg)
{
	fprintf((FILE *)arg, " %s %s", name, v);
}

void
sb_report_print(FILE *f, const struct sb_snapshot *s)
{
	struct rte_eth_stats es;
	unsigned int i, j;

	fprintf(f, "seqbond counters (host %u)\n", s->host_id);
	sb_dp_stats_foreach(&s->stats, print_row, f);
	/* Frames still waiting at exit (freed by sb_dp_free()): read from the kernel with
	 * no path free, and released to the exception path but not yet accepted by it. */
	ROW(f, "exc_pending", s->exc_pending);
	ROW(f, "exc_queued", s->exc_queued);
	/* The exception path's own counters (large segments cut and merged, checksums). */
	sb_exc_stats_foreach(&s->exc, print_row, f);

	for (i = 0; i < s->n_ports; i++) {
		const struct sb_snap_port *p = &s->port[i];

		if (rte_eth_stats_get(p->port_id, &es) != 0)
			continue;
		fprintf(f, " port %u (ethdev %u): rx %" PRIu64 " frames %" PRIu64 " bytes, "
			"tx %" PRIu64 " frames %" PRIu64 " bytes, missed %" PRIu64 ", "
			"rx errors %" PRIu64 ", tx errors %" PRIu64 "\n", i, p->port_id,
			es.ipackets, es.ibytes, es.opackets, es.obytes, es.imissed, es.ierrors,
			es.oerrors);
	}
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *peer = &s->peers.peer[i];
		const struct sb_snap_peer *sp = &s->peer[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!sb_snap_peer_used(s, i))
			continue;
		rte_ether_format_addr(mac, sizeof(mac),
			(const struct rte_ether_addr *)peer->agg_mac);
		fprintf(f, " peer %u (%s): %u of %u paths up\n", peer->host_id, mac, peer->n_up,
			peer->n_paths);
		for (j = 0; j < peer->n_paths; j++) {
			struct sb_path_info pi;

			if (sb_dp_path_info(s, i, j, &pi) != 0)
				continue;
			fprintf(f, "  path %u:", j);
			sb_dp_path_info_foreach(&pi, print_inline, print_inline_str, f);
			fprintf(f, "\n");
		}
		fprintf(f, "  reorder:");
		sb_reorder_stats_foreach(&sp->reorder, s->hz, print_inline, f);
		fprintf(f, "\n");
	}
	if (s->stats.peers_evicted + s->stats.peers_displaced != 0) {
		/* Their windows are gone, not their frames: the sums still balance. */
		fprintf(f, " peers that left the table (%" PRIu64 " evicted, %" PRIu64
			" displaced):\n", s->stats.peers_evicted, s->stats.peers_displaced);
		fprintf(f, "  reorder:");
		sb_reorder_stats_foreach(&s->reorder_gone, s->hz, print_inline, f);
		fprintf(f, "\n");
	}
	fflush(f);
}
