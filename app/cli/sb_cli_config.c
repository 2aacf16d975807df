/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: show config, save config FILE, quit (and help, defined in sb_cli.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline_parse_string.h>

#include "sb_cli.h"

/* Write the running configuration to @p file: a copy, since another console may change it
 * meanwhile. @return 0 or -errno. */
static int
save_running(const char *file)
{
	struct sb_config *c = malloc(sizeof(*c));
	int ret;

	if (c == NULL)
		return -ENOMEM;
	sb_ctl_config(sb_cli_ctl, c);
	ret = sb_config_save(c, file);
	free(c);
	return ret;
}

/* show config */
struct cmd_show_config_result {
	cmdline_fixed_string_t show, config;
};

static void
cmd_show_config_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	char tmp[] = "/tmp/seqbond-config.XXXXXX";
	char line[512];
	FILE *f;
	int fd = mkstemp(tmp), ret;

	/* rte_cfgfile writes files; render to a temporary one and page it to the console. */
	if (fd < 0) {
		sb_cli_error(cl, "cannot render the config: %s", strerror(errno));
		return;
	}
	close(fd);
	ret = save_running(tmp);
	f = ret == 0 ? fopen(tmp, "r") : NULL;
	if (f == NULL) {
		sb_cli_error(cl, "cannot render the config");
	} else {
		while (fgets(line, sizeof(line), f) != NULL)
			cmdline_printf(cl, "%s", line);
		fclose(f);
	}
	unlink(tmp);
}

static cmdline_parse_token_string_t cmd_show_config_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_config_result, show, "show");
static cmdline_parse_token_string_t cmd_show_config_config =
	TOKEN_STRING_INITIALIZER(struct cmd_show_config_result, config, "config");

static cmdline_parse_inst_t cmd_show_config = {
	.f = cmd_show_config_parsed,
	.help_str = "show config: the running configuration in INI form",
	.tokens = { (void *)&cmd_show_config_show, (void *)&cmd_show_config_config, NULL },
};

/* save config FILE */
struct cmd_save_config_result {
	cmdline_fixed_string_t save, config, file;
};

static void
cmd_save_config_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_save_config_result *r = res;
	int ret = save_running(r->file);

	if (ret != 0)
		sb_cli_error(cl, "cannot write '%s': %s", r->file,
			strerror(ret < 0 ? -ret : EIO));
	else
		cmdline_printf(cl, "saved to %s\n", r->file);
}

static cmdline_parse_token_string_t cmd_save_config_save =
	TOKEN_STRING_INITIALIZER(struct cmd_save_config_result, save, "save");
static cmdline_parse_token_string_t cmd_save_config_config =
	TOKEN_STRING_INITIALIZER(struct cmd_save_config_result, config, "config");
static cmdline_parse_token_string_t cmd_save_config_file =
	TOKEN_STRING_INITIALIZER(struct cmd_save_config_result, file, NULL);

static cmdline_parse_inst_t cmd_save_config = {
	.f = cmd_save_config_parsed,
	.help_str = "save config <FILE>: write the running configuration as INI",
	.tokens = { (void *)&cmd_save_config_save, (void *)&cmd_save_config_config,
		(void *)&cmd_save_config_file, NULL },
};

/* quit */
struct cmd_quit_result {
	cmdline_fixed_string_t quit;
};

static void
cmd_quit_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	/* The -i console's quit stops the appliance (as always); a seqbond-console client's
	 * ends that client's session only: stopping seqbond is the service manager's job. */
	sb_cli_session()->quit = true;
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t cmd_quit_quit =
	TOKEN_STRING_INITIALIZER(struct cmd_quit_result, quit, "quit");

static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.help_str = "quit: leave the console; from -i or --cmdline-file also stop seqbond "
		"(counters are printed, every mbuf accounted for)",
	.tokens = { (void *)&cmd_quit_quit, NULL },
};

cmdline_parse_inst_t *sb_cli_config_cmds[] = {
	&cmd_show_config,
	&cmd_save_config,
	&cmd_quit,
	&sb_cli_cmd_help,
	NULL,
};
