/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: member port commands (show/clear port ..., port start|stop, set port weight), and
 * the exception path's counters with the ports'. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_string.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_cli.h"

/*
 * Ports are named by seqbond's index (the N of [portN]), not the ethdev id. The index is a
 * word, not a cmdline number token, so that every wrong one (16, 65536, -1, 0x1, 2^32) gets
 * the same error naming it, where a number token would only say "Bad arguments".
 * @return the index, or -1 with the error printed.
 */
static int
parse_port(struct cmdline *cl, const char *word)
{
	unsigned int n = sb_ctl_n_ports(sb_cli_ctl);
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(word, &end, 10);
	if (!isdigit((unsigned char)word[0]) || *end != '\0' || errno != 0 || v >= n) {
		sb_cli_error(cl, "no port %s (ports 0..%u)", word, n - 1);
		return -1;
	}
	return (int)v;
}

static void
port_info(struct cmdline *cl, const struct sb_snapshot *s, unsigned int i)
{
	const struct sb_snap_port *p = &s->port[i];
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	char macs[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t mtu = 0;

	/* Sessions run at once: a copy of our own, on the heap (the config is large). */
	struct sb_config *cfg = malloc(sizeof(*cfg));

	if (cfg == NULL) {
		sb_cli_error(cl, "out of memory");
		return;
	}
	sb_ctl_config(sb_cli_ctl, cfg);
	rte_eth_macaddr_get(p->port_id, &mac);
	rte_ether_format_addr(macs, sizeof(macs), &mac);
	rte_eth_dev_get_mtu(p->port_id, &mtu);
	if (rte_eth_dev_info_get(p->port_id, &info) != 0)
		memset(&info, 0, sizeof(info));
	cmdline_printf(cl, "port %u (ethdev %u, driver %s)\n", i, p->port_id,
		info.driver_name != NULL ? info.driver_name : "?");
	cmdline_printf(cl, "  device      %s\n", cfg->port[i].devargs);
	cmdline_printf(cl, "  MAC         %s\n", macs);
	cmdline_printf(cl, "  state       %s, link %s\n", p->admin_up ? "started" : "stopped",
		p->link_up ? "up" : "down");
	cmdline_printf(cl, "  rate        %.3f Mbit/s (scheduling weight)\n",
		p->rate_bps / 1e6);
	cmdline_printf(cl, "  MTU         %u (config), %u (ethdev)\n", cfg->port[i].mtu, mtu);
	cmdline_printf(cl, "  backlog     %" PRIu64 " us modelled\n", p->busy_ns / 1000);
	free(cfg);
}

static void
port_stats(struct cmdline *cl, const struct sb_snapshot *s, unsigned int i)
{
	const struct sb_snap_port *p = &s->port[i];
	struct rte_eth_stats es;

	if (rte_eth_stats_get(p->port_id, &es) != 0)
		memset(&es, 0, sizeof(es));
	cmdline_printf(cl, "port %u: RX %" PRIu64 " frames %" PRIu64 " bytes, missed %" PRIu64
		", errors %" PRIu64 ", no mbuf %" PRIu64 "\n", i, es.ipackets, es.ibytes,
		es.imissed, es.ierrors, es.rx_nombuf);
	cmdline_printf(cl, "        TX %" PRIu64 " frames %" PRIu64 " bytes, errors %" PRIu64
		" (seqbond queued %" PRIu64 " frames %" PRIu64 " bytes)\n", es.opackets, es.obytes,
		es.oerrors, p->tx_frames, p->tx_bytes);
}

/* Three counters a line, as "name value". */
struct col_printer {
	struct cmdline *cl;
	unsigned int col;
	const char *prefix;	/* only counters whose name starts with it; NULL: all */
	const char *skip;	/* leave out counters whose name starts with it; NULL: none */
};

static void
print_col(const char *name, uint64_t v, void *arg)
{
	struct col_printer *cp = arg;

	if (cp->prefix != NULL && strncmp(name, cp->prefix, strlen(cp->prefix)) != 0)
		return;
	if (cp->skip != NULL && strncmp(name, cp->skip, strlen(cp->skip)) == 0)
		return;
	cmdline_printf(cp->cl, "%s%-20s %-12" PRIu64, cp->col == 0 ? "  " : " ", name, v);
	if (++cp->col == 3) {
		cmdline_printf(cp->cl, "\n");
		cp->col = 0;
	}
}

/* The exception path (sb0) after the member ports: the datapath's exc_* counters, the frames
 * waiting on either side, and the exception path's own counters, under the names telemetry
 * and the exit report use. */
static void
exception_stats(struct cmdline *cl, const struct sb_snapshot *s)
{
	struct col_printer cp = { .cl = cl, .prefix = "exc_" };
	struct sb_config *cfg = malloc(sizeof(*cfg));

	if (cfg == NULL) {
		sb_cli_error(cl, "out of memory");
		return;
	}
	sb_ctl_config(sb_cli_ctl, cfg);
	cmdline_printf(cl, "exception %s (%s):\n", cfg->exc_name, sb_exc_type_name(s->exc_type));
	free(cfg);
	sb_dp_stats_foreach(&s->stats, print_col, &cp);
	print_col("exc_pending", s->exc_pending, &cp);
	print_col("exc_queued", s->exc_queued, &cp);
	sb_exc_stats_foreach(&s->exc, print_col, &cp);
	if (cp.col != 0)
		cmdline_printf(cl, "\n");
}

/* Then the datapath's own counters (drops by cause: tx_no_path, tx_too_big, ...), under the
 * names of /seqbond/info and the exit report. */
static void
datapath_stats(struct cmdline *cl, const struct sb_snapshot *s)
{
	struct col_printer cp = { .cl = cl, .skip = "exc_" };

	cmdline_printf(cl, "datapath:\n");
	sb_dp_stats_foreach(&s->stats, print_col, &cp);
	if (cp.col != 0)
		cmdline_printf(cl, "\n");
}

/* show port info|stats all|N */
struct cmd_show_port_result {
	cmdline_fixed_string_t show, port, what, which;
};

static void
cmd_show_port_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_show_port_result *r = res;
	const struct sb_snapshot *s;
	unsigned int i, first = 0, last;
	int idx = -1;

	if (strcmp(r->which, "all") != 0 && (idx = parse_port(cl, r->which)) < 0)
		return;
	s = sb_cli_snapshot(cl);
	if (s == NULL)
		return;
	last = s->n_ports;
	if (idx >= 0) {
		first = idx;
		last = idx + 1;
	}
	for (i = first; i < last; i++) {
		if (strcmp(r->what, "info") == 0)
			port_info(cl, s, i);
		else
			port_stats(cl, s, i);
	}
	if (idx < 0 && strcmp(r->what, "stats") == 0) {
		exception_stats(cl, s);
		datapath_stats(cl, s);
	}
}

static cmdline_parse_token_string_t cmd_show_port_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, show, "show");
static cmdline_parse_token_string_t cmd_show_port_port =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, port, "port");
static cmdline_parse_token_string_t cmd_show_port_what =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, what, "info#stats");
static cmdline_parse_token_string_t cmd_show_port_which =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, which, NULL);

static cmdline_parse_inst_t cmd_show_port = {
	.f = cmd_show_port_parsed,
	.help_str = "show port info|stats all|<N>: member ports' settings or counters (stats "
		"all: the exception path's and the datapath's too)",
	.tokens = { (void *)&cmd_show_port_show, (void *)&cmd_show_port_port,
		(void *)&cmd_show_port_what, (void *)&cmd_show_port_which, NULL },
};

/* show port xstats N */
struct cmd_show_xstats_result {
	cmdline_fixed_string_t show, port, xstats, index;
};

static void
cmd_show_xstats_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_show_xstats_result *r = res;
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	int n, i, port_id, idx = parse_port(cl, r->index);

	if (idx < 0)
		return;
	port_id = sb_ctl_port_id(sb_cli_ctl, idx);
	n = rte_eth_xstats_get_names(port_id, NULL, 0);
	if (n <= 0) {
		cmdline_printf(cl, "port %d: no extended statistics\n", idx);
		return;
	}
	names = calloc(n, sizeof(*names));
	vals = calloc(n, sizeof(*vals));
	if (names == NULL || vals == NULL ||
			rte_eth_xstats_get_names(port_id, names, n) != n ||
			rte_eth_xstats_get(port_id, vals, n) != n) {
		sb_cli_error(cl, "cannot read extended statistics of port %d", idx);
	} else {
		for (i = 0; i < n; i++)
			cmdline_printf(cl, "%-32s %" PRIu64 "\n", names[vals[i].id].name,
				vals[i].value);
	}
	free(names);
	free(vals);
}

static cmdline_parse_token_string_t cmd_show_xstats_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_xstats_result, show, "show");
static cmdline_parse_token_string_t cmd_show_xstats_port =
	TOKEN_STRING_INITIALIZER(struct cmd_show_xstats_result, port, "port");
static cmdline_parse_token_string_t cmd_show_xstats_xstats =
	TOKEN_STRING_INITIALIZER(struct cmd_show_xstats_result, xstats, "xstats");
static cmdline_parse_token_string_t cmd_show_xstats_index =
	TOKEN_STRING_INITIALIZER(struct cmd_show_xstats_result, index, NULL);

static cmdline_parse_inst_t cmd_show_xstats = {
	.f = cmd_show_xstats_parsed,
	.help_str = "show port xstats <N>: the driver's extended counters of port N",
	.tokens = { (void *)&cmd_show_xstats_show, (void *)&cmd_show_xstats_port,
		(void *)&cmd_show_xstats_xstats, (void *)&cmd_show_xstats_index, NULL },
};

/* clear port stats all|N */
struct cmd_clear_stats_result {
	cmdline_fixed_string_t clear, port, stats, which;
};

static void
cmd_clear_stats_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_clear_stats_result *r = res;
	int idx = -1, ret;

	if (strcmp(r->which, "all") != 0 && (idx = parse_port(cl, r->which)) < 0)
		return;
	ret = sb_ctl_clear_port_stats(sb_cli_ctl, idx);
	if (ret != 0)
		sb_cli_error(cl, "%s", strerror(-ret));
}

static cmdline_parse_token_string_t cmd_clear_stats_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_stats_result, clear, "clear");
static cmdline_parse_token_string_t cmd_clear_stats_port =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_stats_result, port, "port");
static cmdline_parse_token_string_t cmd_clear_stats_stats =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_stats_result, stats, "stats");
static cmdline_parse_token_string_t cmd_clear_stats_which =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_stats_result, which, NULL);

static cmdline_parse_inst_t cmd_clear_stats = {
	.f = cmd_clear_stats_parsed,
	.help_str = "clear port stats all|<N>: reset ethdev and seqbond counters of ports",
	.tokens = { (void *)&cmd_clear_stats_clear, (void *)&cmd_clear_stats_port,
		(void *)&cmd_clear_stats_stats, (void *)&cmd_clear_stats_which, NULL },
};

/* port stop|start N */
struct cmd_port_admin_result {
	cmdline_fixed_string_t port, action, index;
};

static void
cmd_port_admin_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_port_admin_result *r = res;
	char err[256];
	int idx = parse_port(cl, r->index);

	if (idx < 0)
		return;
	if (sb_ctl_port_admin(sb_cli_ctl, idx, strcmp(r->action, "start") == 0, err,
			sizeof(err)) != 0)
		sb_cli_error(cl, "%s", err);
}

static cmdline_parse_token_string_t cmd_port_admin_port =
	TOKEN_STRING_INITIALIZER(struct cmd_port_admin_result, port, "port");
static cmdline_parse_token_string_t cmd_port_admin_action =
	TOKEN_STRING_INITIALIZER(struct cmd_port_admin_result, action, "stop#start");
static cmdline_parse_token_string_t cmd_port_admin_index =
	TOKEN_STRING_INITIALIZER(struct cmd_port_admin_result, index, NULL);

static cmdline_parse_inst_t cmd_port_admin = {
	.f = cmd_port_admin_parsed,
	.help_str = "port stop|start <N>: take member port N out of service or back, "
		"the appliance keeps running",
	.tokens = { (void *)&cmd_port_admin_port, (void *)&cmd_port_admin_action,
		(void *)&cmd_port_admin_index, NULL },
};

/* set port N weight W */
struct cmd_set_weight_result {
	cmdline_fixed_string_t set, port, index, weight, value;
};

static void
cmd_set_weight_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_set_weight_result *r = res;
	char section[16], err[256];
	int idx = parse_port(cl, r->index);

	if (idx < 0)
		return;
	snprintf(section, sizeof(section), "port%d", idx);
	if (sb_ctl_set(sb_cli_ctl, section, "rate_mbit", r->value, err, sizeof(err)) != 0)
		sb_cli_error(cl, "%s", err);
}

static cmdline_parse_token_string_t cmd_set_weight_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_weight_result, set, "set");
static cmdline_parse_token_string_t cmd_set_weight_port =
	TOKEN_STRING_INITIALIZER(struct cmd_set_weight_result, port, "port");
static cmdline_parse_token_string_t cmd_set_weight_index =
	TOKEN_STRING_INITIALIZER(struct cmd_set_weight_result, index, NULL);
static cmdline_parse_token_string_t cmd_set_weight_weight =
	TOKEN_STRING_INITIALIZER(struct cmd_set_weight_result, weight, "weight");
static cmdline_parse_token_string_t cmd_set_weight_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_weight_result, value, NULL);

static cmdline_parse_inst_t cmd_set_weight = {
	.f = cmd_set_weight_parsed,
	.help_str = "set port <N> weight <MBIT>: port N's scheduling weight, its rate in "
		"Mbit/s ([portN] rate_mbit)",
	.tokens = { (void *)&cmd_set_weight_set, (void *)&cmd_set_weight_port,
		(void *)&cmd_set_weight_index, (void *)&cmd_set_weight_weight,
		(void *)&cmd_set_weight_value, NULL },
};

cmdline_parse_inst_t *sb_cli_port_cmds[] = {
	&cmd_show_port,
	&cmd_show_xstats,
	&cmd_clear_stats,
	&cmd_port_admin,
	&cmd_set_weight,
	NULL,
};
