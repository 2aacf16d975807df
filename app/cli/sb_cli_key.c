/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: the cluster key (show key, key reload). Keys are shown by id and fingerprint
 * only, never their secrets. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_string.h>

#include "sb_cli.h"
#include "sb_keyfile.h"

/* The refusal counters, by name (sb_dp_stats_foreach(): the names of telemetry and the
 * exit report). */
static void
print_auth_counter(const char *name, uint64_t v, void *arg)
{
	if (strncmp(name, "rx_auth_", 8) == 0)
		cmdline_printf(arg, "  %-22s %" PRIu64 "\n", name, v);
}

static void
show_key(struct cmdline *cl, const struct sb_snapshot *s)
{
	struct sb_config *cfg = malloc(sizeof(*cfg));
	char hex[2 * SB_AUTH_FP_LEN + 1];
	unsigned int i;

	if (cfg == NULL) {
		sb_cli_error(cl, "out of memory");
		return;
	}
	sb_ctl_config(sb_cli_ctl, cfg);
	if (!s->auth) {
		cmdline_printf(cl, "no cluster key: frames go without tags, and tagged ones are "
			"refused (set cluster_key_file and restart)\n");
	} else {
		cmdline_printf(cl, "cluster key file %s\n", cfg->cluster_key_file);
		for (i = 0; i < s->n_keys; i++)
			cmdline_printf(cl, "  key id %-3u fingerprint %s  %s\n", s->key[i].id,
				sb_keyfile_fp_hex(s->key[i].fp, hex), s->key[i].send ?
				"sends and accepts" : "accepted too (rollover)");
		cmdline_printf(cl, "  hello streams with a replay mark %" PRIu64 " (given up "
			"for room %" PRIu64 ")\n", s->replay_streams, s->replay_replaced);
	}
	free(cfg);
	cmdline_printf(cl, "refused:\n");
	sb_dp_stats_foreach(&s->stats, print_auth_counter, cl);
}

/* show key */
struct cmd_show_key_result {
	cmdline_fixed_string_t show, key;
};

static void
cmd_show_key_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	const struct sb_snapshot *s = sb_cli_snapshot(cl);

	if (s != NULL)
		show_key(cl, s);
}

static cmdline_parse_token_string_t cmd_show_key_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_key_result, show, "show");
static cmdline_parse_token_string_t cmd_show_key_key =
	TOKEN_STRING_INITIALIZER(struct cmd_show_key_result, key, "key");

static cmdline_parse_inst_t cmd_show_key = {
	.f = cmd_show_key_parsed,
	.help_str = "show key: cluster keys held (id, fingerprint, which one sends) and frames "
		"refused for their tags",
	.tokens = { (void *)&cmd_show_key_show, (void *)&cmd_show_key_key, NULL },
};

/* key reload [force] */
struct cmd_key_reload_result {
	cmdline_fixed_string_t key, reload, force;
};

static void
cmd_key_reload_parsed(void *res __rte_unused, struct cmdline *cl, void *data)
{
	const struct sb_snapshot *s;
	char err[512];

	if (sb_ctl_key_reload(sb_cli_ctl, data != NULL, err, sizeof(err)) != 0) {
		sb_cli_error(cl, "%s", err);
		return;
	}
	s = sb_cli_snapshot(cl);
	if (s != NULL)
		show_key(cl, s);
}

static cmdline_parse_token_string_t cmd_key_reload_key =
	TOKEN_STRING_INITIALIZER(struct cmd_key_reload_result, key, "key");
static cmdline_parse_token_string_t cmd_key_reload_reload =
	TOKEN_STRING_INITIALIZER(struct cmd_key_reload_result, reload, "reload");

static cmdline_parse_token_string_t cmd_key_reload_force =
	TOKEN_STRING_INITIALIZER(struct cmd_key_reload_result, force, "force");

static cmdline_parse_inst_t cmd_key_reload = {
	.f = cmd_key_reload_parsed,
	.help_str = "key reload: read cluster_key_file again and switch to its keys without "
		"an outage (line 1 sends, line 2 is accepted too); refused when it drops the key "
		"a live peer sends with",
	.tokens = { (void *)&cmd_key_reload_key, (void *)&cmd_key_reload_reload, NULL },
};

static cmdline_parse_inst_t cmd_key_reload_forced = {
	.f = cmd_key_reload_parsed,
	.data = (void *)1,
	.help_str = "key reload force: the same, even when it drops the key a live peer still "
		"sends with (that peer is cut off until it holds the new key)",
	.tokens = { (void *)&cmd_key_reload_key, (void *)&cmd_key_reload_reload,
		(void *)&cmd_key_reload_force, NULL },
};

cmdline_parse_inst_t *sb_cli_key_cmds[] = {
	&cmd_show_key,
	&cmd_key_reload,
	&cmd_key_reload_forced,
	NULL,
};
