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
	if (*end == '\0' && end != arg && id != 0)
		for (i = 0; i < s->peers.n_peers; i++)
			if (s->peers.peer[i].host_id == id)
				return i;
	sb_cli_error(cl, "no peer with host id '%s' (see show peers)", arg);
	return -2;
}

/* Age of the last hello as text ("never" after a port stop or before the first). */
static void
hello_age(char *buf, size_t len, const struct sb_path_info *pi)
{
	if (pi->last_hello_age_us == UINT64_MAX)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%.1f ms ago", pi->last_hello_age_us / 1000.0);
}

/* The second host found with peer @p p's host id (struct sb_peer_dup), under its row. */
static void
show_dup(struct cmdline *cl, const struct sb_snapshot *s, const struct sb_peer *p)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE], port[RTE_ETHER_ADDR_FMT_SIZE];

	if (!p->dup.active)
		return;
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)p->dup.agg_mac);
	rte_ether_format_addr(port, sizeof(port),
		(const struct rte_ether_addr *)p->dup.port_mac);
	cmdline_printf(cl, "  DUPLICATE HOST ID: host %s instance %08x (port MAC %s, our port "
		"%u) uses it too, refused for %.1f s (%" PRIu64 " hellos)\n", mac,
		p->dup.instance, port, p->dup.local_port,
		s->tsc > p->dup.since ? (double)(s->tsc - p->dup.since) / s->hz : 0.0,
		p->dup.hellos);
}

/* Key id @p id as text: the number, or "none yet". */
static const char *
key_id_str(uint16_t id, char *buf, size_t len)
{
	if (id == SB_DP_KEY_NONE)
		snprintf(buf, len, "none yet");
	else
		snprintf(buf, len, "%u", id);
	return buf;
}

/* With a cluster key, under a peer's row: the key it sends with and the one it took from
 * us last (a rollover is done once every peer shows the new key both ways). */
static void
show_keys(struct cmdline *cl, const struct sb_snapshot *s, unsigned int i)
{
	char a[16], b[16];

	cmdline_printf(cl, "  key id: it sends with %s, took ours %s\n",
		key_id_str(s->peer[i].key_sends, a, sizeof(a)),
		key_id_str(s->peer[i].key_acked, b, sizeof(b)));
}

/* With a cluster key: ports whose frames are refused (tags, keys, check budget), the alarm
 * at SB_DP_AUTH_ALARM_PER_S a second. */
static void
show_alarms(struct cmdline *cl, const struct sb_snapshot *s)
{
	unsigned int i;

	for (i = 0; i < s->n_ports; i++)
		if (s->port[i].auth_alarm || s->port[i].auth_refused_per_s != 0)
			cmdline_printf(cl, "port %u: %u frames a second refused for their tag, key "
				"or check budget%s\n", i, s->port[i].auth_refused_per_s,
				s->port[i].auth_alarm ? ": ALARM (a forger on its switch, or a "
				"host with another key: the log says more)" : "");
}

static void
show_peers(struct cmdline *cl, const struct sb_snapshot *s)
{
	const struct sb_dp_stats *st = &s->stats;
	unsigned int i;

	if (sb_snap_n_peers(s) == 0) {
		cmdline_printf(cl, "no peer heard yet\n");
	} else {
		cmdline_printf(cl, "%-10s %-17s %-10s %-9s %-9s %-8s %-12s %s\n", "host_id",
			"aggregate MAC", "instance", "paths up", "in stripe", "hello ms",
			"tx seq next", "rx seq next");
	}
	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!sb_snap_peer_used(s, i))
			continue;
		rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)p->agg_mac);
		cmdline_printf(cl, "%-10u %-17s %08x   %u/%-7u %-9u %-8u %-12u %u\n", p->host_id,
			mac, p->instance, p->n_up, p->n_paths, p->n_usable, p->interval_ms,
			s->peer[i].tx_seq, s->peer[i].rx_next_seq);
		show_dup(cl, s, p);
		if (s->auth)
			show_keys(cl, s, i);
	}
	/* What the table refused or let go (docs/design.md, "Forged and mistaken hellos"). */
	cmdline_printf(cl, "peer table: %u of %u slots, evicted %" PRIu64 ", displaced %" PRIu64
		", restarts %" PRIu64 " (claims refused %" PRIu64 "), duplicate host ids %"
		PRIu64 " (of ours %" PRIu64 "), hellos refused %" PRIu64 "\n", sb_snap_n_peers(s),
		SB_MAX_PEERS, st->peers_evicted, st->peers_displaced, st->peer_restarts,
		st->restarts_refused, st->dup_host_ids, st->dup_host_id_self,
		st->rx_hello_rejected);
	if (s->auth)
		show_alarms(cl, s);
}

static void
show_paths(struct cmdline *cl, const struct sb_snapshot *s, int only)
{
	unsigned int i, j;

	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];

		if ((only >= 0 && (unsigned int)only != i) || !sb_snap_peer_used(s, i))
			continue;
		cmdline_printf(cl, "peer %u: %u of %u paths up, %u in the stripe\n", p->host_id,
			p->n_up, p->n_paths, p->n_usable);
		cmdline_printf(cl, "  %-4s %-5s %-6s %-5s %-7s %-9s %-12s %-12s %-8s %-8s %-8s "
			"%s\n", "path", "port", "peer", "state", "stripe", "rate Mb/s",
			"tx frames", "rx frames", "tx loss", "rx loss", "delay us", "last hello");
		for (j = 0; j < p->n_paths; j++) {
			struct sb_path_info pi;
			char age[32], stripe[16];

			if (sb_dp_path_info(s, i, j, &pi) != 0)
				continue;
			hello_age(age, sizeof(age), &pi);
			/* "yes", or the fault that keeps it out ("mtu", "loss", ...). */
			snprintf(stripe, sizeof(stripe), "%s", pi.in_stripe ? "yes" : pi.fault);
			cmdline_printf(cl, "  %-4u %-5u %-6u %-5s %-7s %-9.3f %-12" PRIu64 " %-12"
				PRIu64 " %-7.2f%% %-7.2f%% %-8u %s\n", j, pi.port, pi.peer_port,
				pi.state, stripe, pi.rate_bps / 1e6, pi.tx_frames, pi.rx_frames,
				pi.tx_loss_ppm / 1e4, pi.rx_loss_ppm / 1e4, pi.tx_owd_us, age);
		}
	}
}

static void
print_counter(const char *name, uint64_t value, void *arg)
{
	cmdline_printf(arg, "  %-16s %" PRIu64 "\n", name, value);
}

static void
show_reorder(struct cmdline *cl, const struct sb_snapshot *s, int only)
{
	unsigned int i;

	for (i = 0; i < s->peers.n_peers; i++) {
		if ((only >= 0 && (unsigned int)only != i) || !sb_snap_peer_used(s, i))
			continue;
		cmdline_printf(cl, "peer %u reorder window (timeout %u us)\n",
			s->peers.peer[i].host_id, s->reorder_timeout_us);
		sb_reorder_stats_foreach(&s->peer[i].reorder, s->hz, print_counter, cl);
		cmdline_printf(cl, "  %-16s %" PRIu64 "\n", "hold_now_us",
			s->peer[i].hold_now * 1000000 / s->hz);
		/* The hold now: the timeout above plus the paths' delay spread, capped. */
		cmdline_printf(cl, "  %-16s %" PRIu64 "\n", "timeout_us",
			s->peer[i].timeout * 1000000 / s->hz);
		cmdline_printf(cl, "  %-16s %u\n", "delay_spread_us",
			s->peer[i].delay_spread_us);
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
	if (sb_snap_n_peers(s) == 0)
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
	.help_str = "show peers|paths|reorder: peers, every path (state, in the stripe or the "
		"fault that keeps it out, rate, frames each way, loss each way, delay, last "
		"hello), reorder window counters",
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
