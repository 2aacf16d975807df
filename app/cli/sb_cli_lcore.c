/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: the datapath lcores (show lcores). */
#include <inttypes.h>
#include <stdio.h>

#include <cmdline_parse_string.h>
#include <rte_lcore.h>

#include "sb_cli.h"

/* show lcores */
struct cmd_show_lcores_result {
	cmdline_fixed_string_t show, lcores;
};

static void
cmd_show_lcores_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	const struct sb_snapshot *s = sb_cli_snapshot(cl);
	unsigned int k, i;

	if (s == NULL)
		return;
	cmdline_printf(cl, "%-6s %-6s %-5s %-16s %-11s %-8s %s\n", "worker", "lcore", "role",
		"rx ports", "peers (rx)", "busy", "loops");
	for (k = 0; k < s->n_workers; k++) {
		const struct sb_snap_worker *w = &s->worker[k];
		char ports[64] = "-", peers[16] = "-";
		size_t len = 0;

		for (i = 0; i < w->n_ports && len < sizeof(ports); i++)
			len += snprintf(ports + len, sizeof(ports) - len, "%s%u", i ? "," : "",
				w->ports[i]);
		if (w->role != SB_DP_ROLE_TX)
			snprintf(peers, sizeof(peers), "%u", w->n_peers);
		cmdline_printf(cl, "%-6u %-6u %-5s %-16s %-11s %-7.1f%% %" PRIu64 "\n", k,
			w->lcore, sb_dp_role_str(w->role), ports, peers,
			sb_snap_worker_busy_pct(w), w->loops);
	}
}

static cmdline_parse_token_string_t cmd_show_lcores_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_lcores_result, show, "show");
static cmdline_parse_token_string_t cmd_show_lcores_lcores =
	TOKEN_STRING_INITIALIZER(struct cmd_show_lcores_result, lcores, "lcores");

static cmdline_parse_inst_t cmd_show_lcores = {
	.f = cmd_show_lcores_parsed,
	.help_str = "show lcores: each datapath lcore, its role (all, tx, rx), the ports it "
		"receives on, the peers whose reorder window it owns, its busy share",
	.tokens = { (void *)&cmd_show_lcores_show, (void *)&cmd_show_lcores_lcores, NULL },
};

cmdline_parse_inst_t *sb_cli_lcore_cmds[] = {
	&cmd_show_lcores,
	NULL,
};
