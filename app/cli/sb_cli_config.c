/* SPDX-License-Identifier: BSD-3-Clause */
/* Console: show config, show config keys, save config FILE, quit (and help, defined in
 * sb_cli.c). */
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

/* @p s without docs/config.md's backticks, into @p buf of @p len bytes. */
static const char *
plain(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s != '\0' && n + 1 < len; s++)
		if (*s != '`')
			buf[n++] = *s;
	buf[n] = '\0';
	return buf;
}

/* show config keys */
struct cmd_show_keys_result {
	cmdline_fixed_string_t show, config, keys;
};

static void
cmd_show_keys_parsed(void *res __rte_unused, struct cmdline *cl, void *data __rte_unused)
{
	struct sb_config_key_info k;
	char def[64], range[64];
	int last = -1;
	unsigned int i;

	for (i = 0; sb_config_key(i, &k) == 0; i++) {
		if ((int)k.section != last) {
			snprintf(def, sizeof(def), "[%s]", sb_config_section_name(k.section));
			cmdline_printf(cl, "%s%-26s %-24s values\n", last < 0 ? "" : "\n", def,
				"default");
		}
		last = k.section;
		plain(def, sizeof(def), k.def);
		plain(range, sizeof(range), k.range);
		/* A default wider than its column (host_id's) takes a line of its own. */
		if (strlen(def) > 24)
			cmdline_printf(cl, "  %-24s %s\n  %-24s %-24s %s\n      %s%s\n", k.name, def,
				"", "", range, k.help,
				k.runtime ? " (set KEY VALUE changes it at run time)" : "");
		else
			cmdline_printf(cl, "  %-24s %-24s %s\n      %s%s\n", k.name, def, range,
				k.help, k.runtime ? " (set KEY VALUE changes it at run time)" : "");
	}
}

static cmdline_parse_token_string_t cmd_show_keys_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_keys_result, show, "show");
static cmdline_parse_token_string_t cmd_show_keys_config =
	TOKEN_STRING_INITIALIZER(struct cmd_show_keys_result, config, "config");
static cmdline_parse_token_string_t cmd_show_keys_keys =
	TOKEN_STRING_INITIALIZER(struct cmd_show_keys_result, keys, "keys");

static cmdline_parse_inst_t cmd_show_keys = {
	.f = cmd_show_keys_parsed,
	.help_str = "show config keys: every key of the configuration file with its default, "
		"values and help, and which change at run time",
	.tokens = { (void *)&cmd_show_keys_show, (void *)&cmd_show_keys_config,
		(void *)&cmd_show_keys_keys, NULL },
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
	&cmd_show_keys,
	&cmd_save_config,
	&cmd_quit,
	&sb_cli_cmd_help,
	NULL,
};
