/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: peers, paths and reorder windows (show peers|paths|reorder). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_ether.h>

#include "sb_cli.h"

/* Peers are named by host id. @return peer index, -1 for all, -2 when not found. */
static int
find_peer(struct cmdline *cl, const struct sb_snapshot *s, const char *arg)
{
	unsigned long id;
	char *end;
	unsigned int i;

	if (arg == NULL)
		return -1;
	id = strtoul(arg, &end, 0);
	if (*end == '\0' && end != arg)
		for (i = 0; i < s->peers.n_peers; i++)
			if (s->peers.peer[i].host_id == id)
				return i;
	sb_cli_error(cl, "no peer with host id '%s' (see show peers)", arg);
	return -2;
}

/* Hellos heard against those the peer sent since the path was first heard, as text ("-"
 * before there is enough to say). */
static void
hello_loss(char *buf, size_t len, const struct sb_snapshot *s, const struct sb_peer *peer,
	const struct sb_path *path)
{
	double span_ms, expected;

	if (path->first_hello == 0 || path->last_hello <= path->first_hello ||
			peer->interval_ms == 0) {
		snprintf(buf, len, "-");
		return;
	}
	span_ms = (double)(path->last_hello - path->first_hello) * 1000 / s->hz;
	expected = span_ms / peer->interval_ms + 1;
	if (expected < 10)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", path->hellos_rx >= expected ? 0.0 :
			100.0 * (expected - path->hellos_rx) / expected);
}

/* Age of the last hello as text ("never" after a port stop or before the first). */
static void
hello_age(char *buf, size_t len, const struct sb_snapshot *s, const struct sb_path *path)
{
	if (path->last_hello == 0 || path->last_hello > s->tsc)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%.1f ms ago",
			(double)(s->tsc - path->last_hello) * 1000 / s->hz);
}

static void
show_peers(struct cmdline *cl, const struct sb_snapshot *s)
{
	unsigned int i;

	if (s->peers.n_peers == 0) {
		cmdline_printf(cl, "no peer heard yet\n");
		return;
	}
	cmdline_printf(cl, "%-10s %-17s %-10s %-9s %-8s %-12s %s\n", "host_id", "aggregate MAC",
		"instance", "paths up", "hello ms", "tx seq next", "rx seq next");
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)p->agg_mac);
		cmdline_printf(cl, "%-10u %-17s %08x   %u/%-7u %-8u %-12u %u\n", p->host_id, mac,
			p->instance, p->n_up, p->n_paths, p->interval_ms, s->peer[i].tx_seq,
			s->peer[i].rx_next_seq);
	}
}

static void
show_paths(struct cmdline *cl, const struct sb_snapshot *s, int only)
{
	unsigned int i, j;

	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		const struct sb_snap_peer *sp = &s->peer[i];

		if (only >= 0 && (unsigned int)only != i)
			continue;
		cmdline_printf(cl, "peer %u: %u of %u paths up\n", p->host_id, p->n_up,
			p->n_paths);
		cmdline_printf(cl, "  %-4s %-5s %-6s %-5s %-9s %-12s %-14s %-12s %-14s %-10s %s\n",
			"path", "port", "peer", "state", "rate Mb/s", "tx frames", "tx bytes",
			"rx frames", "rx bytes", "hello loss", "last hello");
		for (j = 0; j < p->n_paths; j++) {
			const struct sb_path *path = &p->path[j];
			const struct sb_snap_port *port = &s->port[path->local_port];
			uint64_t rate = port->rate_bps;
			char loss[16], age[32];

			if (path->remote_rate_kbps != 0 &&
					(uint64_t)path->remote_rate_kbps * 1000 < rate)
				rate = (uint64_t)path->remote_rate_kbps * 1000;
			hello_loss(loss, sizeof(loss), s, p, path);
			hello_age(age, sizeof(age), s, path);
			cmdline_printf(cl, "  %-4u %-5u %-6u %-5s %-9.3f %-12" PRIu64 " %-14" PRIu64
				" %-12" PRIu64 " %-14" PRIu64 " %-10s %s\n", j,
				path->local_port, path->remote_port,
				path->state == SB_PATH_UP ? "up" : "down", rate / 1e6,
				sp->path_tx[j], sp->path_tx_bytes[j], sp->path_rx[j],
				sp->path_rx_bytes[j], loss, age);
		}
	}
}

static void
show_reorder(struct cmdline *cl, const struct sb_snapshot *s, int only)
{
	unsigned int i;

	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_reorder_stats *r = &s->peer[i].reorder;

		if (only >= 0 && (unsigned int)only != i)
			continue;
		cmdline_printf(cl, "peer %u reorder window (timeout %u us)\n",
			s->peers.peer[i].host_id, s->reorder_timeout_us);
		cmdline_printf(cl, "  in order          %" PRIu64 "\n", r->in_order);
		cmdline_printf(cl, "  reordered         %" PRIu64 "\n", r->reordered);
		cmdline_printf(cl, "  late              %" PRIu64 "\n", r->late);
		cmdline_printf(cl, "  duplicate         %" PRIu64 "\n", r->duplicate);
		cmdline_printf(cl, "  out of range      %" PRIu64 "\n", r->out_of_range);
		cmdline_printf(cl, "  lost by rule      %" PRIu64 "\n", r->lost_rule);
		cmdline_printf(cl, "  lost by timeout   %" PRIu64 "\n", r->lost_timeout);
		cmdline_printf(cl, "  lost by slide     %" PRIu64 "\n", r->lost_slide);
		cmdline_printf(cl, "  held now          %u (high-water mark %u)\n", r->occupancy,
			r->occupancy_hwm);
		cmdline_printf(cl, "  hold now          %.1f us (longest ever %.1f us)\n",
			(double)s->peer[i].hold_now * 1e6 / s->hz, (double)r->hold_max * 1e6 / s->hz);
	}
}

static void
show(struct cmdline *cl, const char *what, const char *peer_arg)
{
	const struct sb_snapshot *s = sb_cli_snapshot(cl);
	int only;

	if (s == NULL)
		return;
	if (strcmp(what, "peers") == 0) {
		show_peers(cl, s);
		return;
	}
	only = find_peer(cl, s, peer_arg);
	if (only == -2)
		return;
	if (s->peers.n_peers == 0)
		cmdline_printf(cl, "no peer heard yet\n");
	else if (strcmp(what, "paths") == 0)
		show_paths(cl, s, only);
	else
		show_reorder(cl, s, only);
}

/* show peers|paths|reorder */
struct cmd_show_peer_all_result {
	cmdline_fixed_string_t show, what;
};

static void
cmd_show_peer_all_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_show_peer_all_result *r = res;

	show(cl, r->what, NULL);
}

static cmdline_parse_token_string_t cmd_show_peer_all_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_peer_all_result, show, "show");
static cmdline_parse_token_string_t cmd_show_peer_all_what =
	TOKEN_STRING_INITIALIZER(struct cmd_show_peer_all_result, what, "peers#paths#reorder");

static cmdline_parse_inst_t cmd_show_peer_all = {
	.f = cmd_show_peer_all_parsed,
	.help_str = "show peers|paths|reorder: peers, every path (state, rate, frames and bytes "
		"each way, hello loss, last hello age), reorder window counters",
	.tokens = { (void *)&cmd_show_peer_all_show, (void *)&cmd_show_peer_all_what, NULL },
};

/* show paths|reorder PEER */
struct cmd_show_peer_one_result {
	cmdline_fixed_string_t show, what, peer;
};

static void
cmd_show_peer_one_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_show_peer_one_result *r = res;

	show(cl, r->what, r->peer);
}

static cmdline_parse_token_string_t cmd_show_peer_one_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_peer_one_result, show, "show");
static cmdline_parse_token_string_t cmd_show_peer_one_what =
	TOKEN_STRING_INITIALIZER(struct cmd_show_peer_one_result, what, "paths#reorder");
static cmdline_parse_token_string_t cmd_show_peer_one_peer =
	TOKEN_STRING_INITIALIZER(struct cmd_show_peer_one_result, peer, NULL);

static cmdline_parse_inst_t cmd_show_peer_one = {
	.f = cmd_show_peer_one_parsed,
	.help_str = "show paths|reorder <PEER>: the same for the peer with host id PEER",
	.tokens = { (void *)&cmd_show_peer_one_show, (void *)&cmd_show_peer_one_what,
		(void *)&cmd_show_peer_one_peer, NULL },
};

cmdline_parse_inst_t *sb_cli_peer_cmds[] = {
	&cmd_show_peer_all,
	&cmd_show_peer_one,
	NULL,
};
