/* SPDX-License-Identifier: BSD-3-Clause */
/* Console set-up: merge the command groups, run stdin or a command file. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline_parse_string.h>
#include <cmdline_socket.h>
#include <rte_common.h>

#include "sb_cli.h"

struct sb_ctl *sb_cli_ctl;
static cmdline_parse_ctx_t *merged;
bool sb_cli_quit_requested;

const struct sb_snapshot *
sb_cli_snapshot(struct cmdline *cl)
{
	static struct sb_snapshot *snap;
	int ret;

	if (snap == NULL)
		snap = malloc(sizeof(*snap));
	if (snap == NULL) {
		cmdline_printf(cl, "error: out of memory\n");
		return NULL;
	}
	ret = sb_ctl_snapshot(sb_cli_ctl, snap);
	if (ret != 0) {
		cmdline_printf(cl, "error: cannot read the datapath: %s\n", strerror(-ret));
		return NULL;
	}
	return snap;
}

static int
merge(void)
{
	cmdline_parse_inst_t **groups[] = {
		sb_cli_port_cmds, sb_cli_peer_cmds, sb_cli_set_cmds, sb_cli_config_cmds,
		sb_cli_lcore_cmds,
	};
	unsigned int g, i, n = 0;

	if (merged != NULL)
		return 0;
	for (g = 0; g < RTE_DIM(groups); g++)
		for (i = 0; groups[g][i] != NULL; i++)
			n++;
	merged = calloc(n + 1, sizeof(*merged));
	if (merged == NULL)
		return -ENOMEM;
	n = 0;
	for (g = 0; g < RTE_DIM(groups); g++)
		for (i = 0; groups[g][i] != NULL; i++)
			merged[n++] = groups[g][i];
	return 0;
}

/* `help` lists every command with its own help string: nothing to keep in sync. */
struct cmd_help_result {
	cmdline_fixed_string_t help;
};

static void
cmd_help_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	unsigned int i;

	cmdline_printf(cl, "Commands (TAB completes, ? shows the choices at any point):\n");
	for (i = 0; merged[i] != NULL; i++)
		cmdline_printf(cl, "  %s\n", merged[i]->help_str);
}

static cmdline_parse_token_string_t cmd_help_help =
	TOKEN_STRING_INITIALIZER(struct cmd_help_result, help, "help");

cmdline_parse_inst_t sb_cli_cmd_help = {
	.f = cmd_help_parsed,
	.help_str = "help: list the commands",
	.tokens = { (void *)&cmd_help_help, NULL },
};

int
sb_cli_run(struct sb_ctl *ctl, const char *file)
{
	struct cmdline *cl;
	int ret;

	sb_cli_ctl = ctl;
	ret = merge();
	if (ret != 0)
		return ret;
	sb_cli_quit_requested = false;
	if (file != NULL) {
		/* Not cmdline_file_new(): it discards output; echo the session to stdout. */
		int fd = open(file, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		cl = cmdline_new(merged, "seqbond> ", fd, STDOUT_FILENO);
		if (cl == NULL) {
			close(fd);
			return -ENOMEM;
		}
		cmdline_interact(cl);
		cmdline_printf(cl, "\n");
		cmdline_free(cl);
		close(fd);
	} else {
		cl = cmdline_stdin_new(merged, "seqbond> ");
		if (cl == NULL)
			return -ENOMEM;
		cmdline_interact(cl);
		cmdline_stdin_exit(cl);
	}
	return sb_cli_quit_requested ? 1 : 0;
}
