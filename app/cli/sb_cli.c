/* SPDX-License-Identifier: BSD-3-Clause */
/* Console set-up: merge the command groups, sessions, run stdin or a command file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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

/* The session of this thread: each console runs on one thread from start to end. */
static _Thread_local struct sb_cli_session *current;

void
sb_cli_session_begin(struct sb_cli_session *s, enum sb_cli_origin origin)
{
	memset(s, 0, sizeof(*s));
	s->origin = origin;
	current = s;
}

void
sb_cli_session_end(struct sb_cli_session *s)
{
	free(s->snap);
	s->snap = NULL;
	if (current == s)
		current = NULL;
}

struct sb_cli_session *
sb_cli_session(void)
{
	return current;
}

void
sb_cli_error(struct cmdline *cl, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cmdline_printf(cl, "error: %s\n", msg);
	if (current != NULL)
		current->failed = true;
}

int
sb_cli_exec(struct cmdline *cl, const char *line)
{
	char buf[SB_CLI_LINE_MAX + 2];
	size_t n = strlen(line);
	int ret;

	current->failed = false;
	if (n > SB_CLI_LINE_MAX) {
		sb_cli_error(cl, "command longer than %d characters", SB_CLI_LINE_MAX);
		return -EINVAL;
	}
	/* cmdline_parse() wants the end of line, as rdline hands it over. */
	memcpy(buf, line, n);
	buf[n] = '\n';
	buf[n + 1] = '\0';
	ret = cmdline_parse(cl, buf);
	if (ret == CMDLINE_PARSE_AMBIGUOUS)
		cmdline_printf(cl, "Ambiguous command\n");
	else if (ret == CMDLINE_PARSE_NOMATCH)
		cmdline_printf(cl, "Command not found\n");
	else if (ret == CMDLINE_PARSE_BAD_ARGS)
		cmdline_printf(cl, "Bad arguments\n");
	if (ret < 0)
		current->failed = true;
	return current->failed ? -EINVAL : 0;
}

const struct sb_snapshot *
sb_cli_snapshot(struct cmdline *cl)
{
	struct sb_cli_session *s = current;
	int ret;

	if (s->snap == NULL)
		s->snap = malloc(sizeof(*s->snap));
	if (s->snap == NULL) {
		sb_cli_error(cl, "out of memory");
		return NULL;
	}
	ret = sb_ctl_snapshot(sb_cli_ctl, s->snap);
	if (ret != 0) {
		sb_cli_error(cl, "cannot read the datapath: %s", strerror(-ret));
		return NULL;
	}
	return s->snap;
}

int
sb_cli_init(struct sb_ctl *ctl)
{
	cmdline_parse_inst_t **groups[] = {
		sb_cli_port_cmds, sb_cli_peer_cmds, sb_cli_set_cmds, sb_cli_config_cmds,
		sb_cli_lcore_cmds, sb_cli_key_cmds,
	};
	unsigned int g, i, n = 0;

	/* Once only: later calls (the -i console after the socket's sessions started) must not
	 * write what session threads read. There is one back end per process. */
	if (merged != NULL)
		return 0;
	sb_cli_ctl = ctl;
	if (sb_cli_set_init(sb_ctl_n_ports(ctl)) != 0)
		return -ENOMEM;
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

cmdline_parse_ctx_t *
sb_cli_commands(void)
{
	return merged;
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
	struct sb_cli_session session;
	struct cmdline *cl;
	int ret;

	ret = sb_cli_init(ctl);
	if (ret != 0)
		return ret;
	sb_cli_session_begin(&session, SB_CLI_LOCAL);
	if (file != NULL) {
		/* Not cmdline_file_new(): it discards output; echo the session to stdout.
		 * cmdline_free() closes the file. */
		int fd = open(file, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			ret = -errno;
			goto out;
		}
		cl = cmdline_new(merged, "seqbond> ", fd, STDOUT_FILENO);
		if (cl == NULL) {
			close(fd);
			ret = -ENOMEM;
			goto out;
		}
		cmdline_interact(cl);
		cmdline_printf(cl, "\n");
		cmdline_free(cl);
	} else {
		cl = cmdline_stdin_new(merged, "seqbond> ");
		if (cl == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		cmdline_interact(cl);
		cmdline_stdin_exit(cl);
	}
	ret = session.quit ? 1 : 0;
out:
	sb_cli_session_end(&session);
	return ret;
}
