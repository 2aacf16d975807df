/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Console: run-time settings. `set KEY VALUE` names any key of the configuration file (NAME
 * of [seqbond], exception.NAME, portN.NAME); the keys the key table marks as run-time ones
 * change, the others are refused with a message saying so. `set reorder timeout US` and `set
 * hello interval MS` are the older spellings of two of them. Each goes through sb_ctl_set(),
 * i.e. the config file's own validation.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse_string.h>

#include "sb_cli.h"

static void
apply(struct cmdline *cl, const char *section, const char *key, const char *value)
{
	char err[256];

	if (sb_ctl_set(sb_cli_ctl, section, key, value, err, sizeof(err)) != 0)
		sb_cli_error(cl, "%s", err);
}

/* set KEY VALUE */
struct cmd_set_key_result {
	cmdline_fixed_string_t set, key, value;
};

static void
cmd_set_key_parsed(void *res, struct cmdline *cl, void *data __rte_unused)
{
	struct cmd_set_key_result *r = res;
	const char *dot = strchr(r->key, '.');
	char section[16] = "seqbond";

	if (dot == NULL) {
		apply(cl, section, r->key, r->value);
		return;
	}
	snprintf(section, sizeof(section), "%.*s", (int)(dot - r->key), r->key);
	apply(cl, section, dot + 1, r->value);
}

static cmdline_parse_token_string_t cmd_set_key_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_key_result, set, "set");
/* The keys, '#' between them: sb_cli_set_init() lists them from the key table. */
static cmdline_parse_token_string_t cmd_set_key_key =
	TOKEN_STRING_INITIALIZER(struct cmd_set_key_result, key, NULL);
/* Any word: the key's own check names what it takes. */
static cmdline_parse_token_string_t cmd_set_key_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_key_result, value, NULL);

static cmdline_parse_inst_t cmd_set_key = {
	.f = cmd_set_key_parsed,
	.help_str = "set KEY VALUE",	/* completed by sb_cli_set_init() */
	.tokens = { (void *)&cmd_set_key_set, (void *)&cmd_set_key_key,
		(void *)&cmd_set_key_value, NULL },
};

/* set WORD WORD VALUE: the older spellings of two [seqbond] keys (inst->data). */
struct cmd_set_alias_result {
	cmdline_fixed_string_t set, word1, word2, value;
};

static void
cmd_set_alias_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_alias_result *r = res;

	apply(cl, "seqbond", data, r->value);
}

static cmdline_parse_token_string_t cmd_set_alias_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_alias_result, set, "set");
static cmdline_parse_token_string_t cmd_set_alias_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_alias_result, value, NULL);

#define SET_ALIAS(id, w1, w2, key, help) \
	static cmdline_parse_token_string_t id##_word1 = \
		TOKEN_STRING_INITIALIZER(struct cmd_set_alias_result, word1, w1); \
	static cmdline_parse_token_string_t id##_word2 = \
		TOKEN_STRING_INITIALIZER(struct cmd_set_alias_result, word2, w2); \
	static cmdline_parse_inst_t id = { \
		.f = cmd_set_alias_parsed, \
		.data = (void *)(uintptr_t)(key), \
		.help_str = help, \
		.tokens = { (void *)&cmd_set_alias_set, (void *)&id##_word1, \
			(void *)&id##_word2, (void *)&cmd_set_alias_value, NULL }, \
	}

SET_ALIAS(cmd_set_timeout, "reorder", "timeout", "reorder_timeout_us",
	"set reorder timeout <US>: longest hold behind a gap, microseconds");
SET_ALIAS(cmd_set_hello, "hello", "interval", "hello_interval_ms",
	"set hello interval <MS>: hello period on every port, milliseconds");

/* Append @p s to the growing string *@p buf of capacity *@p cap. @return 0 or -ENOMEM. */
static int
append(char **buf, size_t *cap, const char *s)
{
	size_t used = *buf != NULL ? strlen(*buf) : 0, need = used + strlen(s) + 1;
	char *b;

	if (need > *cap) {
		b = realloc(*buf, need * 2);
		if (b == NULL)
			return -ENOMEM;
		b[used] = '\0';
		*buf = b;
		*cap = need * 2;
	}
	strlcat(*buf, s, *cap);
	return 0;
}

int
sb_cli_set_init(unsigned int n_ports)
{
	static char *keys, *help;
	size_t keys_cap = 0, help_cap = 0;
	struct sb_config_key_info k;
	char name[64];
	unsigned int i, p, n_runtime = 0;
	int ret = append(&help, &help_cap, "set KEY VALUE: a key of the configuration file, "
		"KEY being NAME of [seqbond], exception.NAME or portN.NAME (show config keys); "
		"these change while seqbond runs:");

	for (i = 0; ret == 0 && sb_config_key(i, &k) == 0; i++) {
		for (p = 0; ret == 0 && p < (k.section == SB_CONFIG_PORT ? n_ports : 1); p++) {
			if (k.section == SB_CONFIG_SEQBOND)
				strlcpy(name, k.name, sizeof(name));
			else if (k.section == SB_CONFIG_EXCEPTION)
				snprintf(name, sizeof(name), "exception.%s", k.name);
			else
				snprintf(name, sizeof(name), "port%u.%s", p, k.name);
			if (keys != NULL)
				ret = append(&keys, &keys_cap, "#");
			if (ret == 0)
				ret = append(&keys, &keys_cap, name);
		}
		if (ret == 0 && k.runtime) {
			snprintf(name, sizeof(name), "%s %s%s%s", n_runtime++ ? "," : "",
				k.section == SB_CONFIG_SEQBOND ? "" :
				sb_config_section_name(k.section),
				k.section == SB_CONFIG_SEQBOND ? "" : ".", k.name);
			ret = append(&help, &help_cap, name);
		}
	}
	if (ret != 0)
		return ret;
	cmd_set_key_key.string_data.str = keys;
	cmd_set_key.help_str = help;
	return 0;
}

cmdline_parse_inst_t *sb_cli_set_cmds[] = {
	&cmd_set_key,
	&cmd_set_timeout,
	&cmd_set_hello,
	NULL,
};
