/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: run-time settings (set scheduler, set reorder timeout, set hello interval). Each
 * goes through sb_ctl_set(), i.e. the config file's own validation. */
#include <stdio.h>
#include <string.h>

#include <cmdline_parse_string.h>

#include "sb_cli.h"
#include "sb_sched.h"

static void
apply(struct cmdline *cl, const char *key, const char *value)
{
	char err[256];

	if (sb_ctl_set(sb_cli_ctl, "seqbond", key, value, err, sizeof(err)) != 0)
		sb_cli_error(cl, "%s", err);
}

/* set scheduler NAME */
struct cmd_set_sched_result {
	cmdline_fixed_string_t set, scheduler, name;
};

static void
cmd_set_sched_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_set_sched_result *r = res;

	apply(cl, "scheduler", r->name);
}

static cmdline_parse_token_string_t cmd_set_sched_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_sched_result, set, "set");
static cmdline_parse_token_string_t cmd_set_sched_scheduler =
	TOKEN_STRING_INITIALIZER(struct cmd_set_sched_result, scheduler, "scheduler");
/* Any word: the back end names the valid policies when it is not one of them. */
static cmdline_parse_token_string_t cmd_set_sched_name =
	TOKEN_STRING_INITIALIZER(struct cmd_set_sched_result, name, NULL);

static cmdline_parse_inst_t cmd_set_sched = {
	.f = cmd_set_sched_parsed,
	.help_str = "set scheduler rr|drr|edpf: the TX scheduling policy (docs/design.md)",
	.tokens = { (void *)&cmd_set_sched_set, (void *)&cmd_set_sched_scheduler,
		(void *)&cmd_set_sched_name, NULL },
};

/* set reorder timeout US */
struct cmd_set_timeout_result {
	cmdline_fixed_string_t set, reorder, timeout, value;
};

static void
cmd_set_timeout_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_set_timeout_result *r = res;

	apply(cl, "reorder_timeout_us", r->value);
}

static cmdline_parse_token_string_t cmd_set_timeout_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_timeout_result, set, "set");
static cmdline_parse_token_string_t cmd_set_timeout_reorder =
	TOKEN_STRING_INITIALIZER(struct cmd_set_timeout_result, reorder, "reorder");
static cmdline_parse_token_string_t cmd_set_timeout_timeout =
	TOKEN_STRING_INITIALIZER(struct cmd_set_timeout_result, timeout, "timeout");
static cmdline_parse_token_string_t cmd_set_timeout_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_timeout_result, value, NULL);

static cmdline_parse_inst_t cmd_set_timeout = {
	.f = cmd_set_timeout_parsed,
	.help_str = "set reorder timeout <US>: longest hold behind a gap, microseconds",
	.tokens = { (void *)&cmd_set_timeout_set, (void *)&cmd_set_timeout_reorder,
		(void *)&cmd_set_timeout_timeout, (void *)&cmd_set_timeout_value, NULL },
};

/* set hello interval MS */
struct cmd_set_hello_result {
	cmdline_fixed_string_t set, hello, interval, value;
};

static void
cmd_set_hello_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_set_hello_result *r = res;

	apply(cl, "hello_interval_ms", r->value);
}

static cmdline_parse_token_string_t cmd_set_hello_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_hello_result, set, "set");
static cmdline_parse_token_string_t cmd_set_hello_hello =
	TOKEN_STRING_INITIALIZER(struct cmd_set_hello_result, hello, "hello");
static cmdline_parse_token_string_t cmd_set_hello_interval =
	TOKEN_STRING_INITIALIZER(struct cmd_set_hello_result, interval, "interval");
static cmdline_parse_token_string_t cmd_set_hello_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_hello_result, value, NULL);

static cmdline_parse_inst_t cmd_set_hello = {
	.f = cmd_set_hello_parsed,
	.help_str = "set hello interval <MS>: hello period on every port, milliseconds",
	.tokens = { (void *)&cmd_set_hello_set, (void *)&cmd_set_hello_hello,
		(void *)&cmd_set_hello_interval, (void *)&cmd_set_hello_value, NULL },
};

cmdline_parse_inst_t *sb_cli_set_cmds[] = {
	&cmd_set_sched,
	&cmd_set_timeout,
	&cmd_set_hello,
	NULL,
};
