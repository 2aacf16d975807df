/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration's key table (app/control/sb_config.c), without EAL.
 *
 *   test_config FILE...           every key's default and the values its range names are
 *                                 accepted, the bounds' neighbours refused; each FILE (the
 *                                 sample configurations) survives load, save, load unchanged
 *   test_config --docs CONFIG_MD  docs/config.md has one row per key, with the table's
 *                                 default and range, and no row for a key the table lacks
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_config.h"
#include "sb_test.h"

#define MAX_KEYS 64

static struct sb_config base, scratch;

/* The section name sb_config_set() takes for a key of section @p s. */
static const char *
set_section(enum sb_config_section s)
{
	return s == SB_CONFIG_PORT ? "port0" : sb_config_section_name(s);
}

/* Set [section] key = value on a copy of the base configuration; check the outcome. */
static void
expect_set(const struct sb_config_key_info *k, const char *value, bool accepted)
{
	char err[512] = "";
	int ret;

	scratch = base;
	ret = sb_config_set(&scratch, set_section(k->section), k->name, value, err, sizeof(err));
	SB_CHECK((ret == 0) == accepted, "[%s] %s = '%.40s': %s, want %s (%s)",
		sb_config_section_name(k->section), k->name, value, ret == 0 ? "accepted" :
		"refused", accepted ? "accepted" : "refused", err);
	if (ret != 0)
		SB_CHECK(strstr(err, k->name) != NULL, "the message names the key: %s", err);
}

/* Check the values key @p k's range names: each `word`, and "A..B" (numbers, or characters
 * with "A..B characters") with its neighbours outside. */
static void
check_range(const struct sb_config_key_info *k)
{
	char word[64], lo_s[32], hi_s[32], *end;
	const char *p, *q, *lo;
	unsigned long long hi;
	size_t n;

	for (p = strchr(k->range, '`'); p != NULL; p = strchr(q + 1, '`')) {
		q = strchr(p + 1, '`');
		SB_CHECK(q != NULL, "[%s] %s: unbalanced ` in range '%s'",
			sb_config_section_name(k->section), k->name, k->range);
		if (q == NULL)
			return;
		snprintf(word, sizeof(word), "%.*s", (int)(q - p - 1), p + 1);
		expect_set(k, word, true);
	}
	p = strstr(k->range, "..");
	if (p == NULL)
		return;
	for (lo = p; lo > k->range && (isdigit((unsigned char)lo[-1]) || lo[-1] == '.'); lo--)
		;
	snprintf(lo_s, sizeof(lo_s), "%.*s", (int)(p - lo), lo);
	for (q = p + 2, n = 0; (isdigit((unsigned char)q[n]) || q[n] == '.'); n++)
		;
	snprintf(hi_s, sizeof(hi_s), "%.*s", (int)n, q);
	hi = strtoull(hi_s, &end, 10);
	if (strstr(q + n, "characters") != NULL) {
		char s[300];

		memset(s, 'a', sizeof(s));
		s[strtoull(lo_s, NULL, 10)] = '\0';
		expect_set(k, s, true);
		s[strlen(s)] = 'a';
		s[hi] = '\0';
		expect_set(k, s, true);
		s[hi] = 'a';
		s[hi + 1] = '\0';
		expect_set(k, s, false);
		return;
	}
	expect_set(k, lo_s, true);
	expect_set(k, hi_s, true);
	if (*end == '\0') {
		snprintf(word, sizeof(word), "%llu", hi + 1);
		expect_set(k, word, false);
	}
	if (strchr(lo_s, '.') == NULL && strtoull(lo_s, NULL, 10) > 0) {
		snprintf(word, sizeof(word), "%llu", strtoull(lo_s, NULL, 10) - 1);
		expect_set(k, word, false);
	}
}

/* Write @p text to a new temporary file; @return its name (static) or NULL. */
static const char *
temp_file(const char *text)
{
	static char name[64];
	int fd;
	FILE *f;

	snprintf(name, sizeof(name), "/tmp/sb-test-config.XXXXXX");
	fd = mkstemp(name);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		return NULL;
	}
	fputs(text, f);
	fclose(f);
	return name;
}

static char *
slurp(const char *file)
{
	static char buf[2][65536];
	static int which;
	FILE *f = fopen(file, "r");
	size_t n = 0;

	which ^= 1;
	if (f != NULL) {
		n = fread(buf[which], 1, sizeof(buf[which]) - 1, f);
		fclose(f);
	}
	buf[which][n] = '\0';
	return buf[which];
}

/* Every key: a name unique in its section, help, a default and a range; its default and
 * the values of its range as sb_config_set() sees them. */
static void
test_table(void)
{
	struct sb_config_key_info k, other;
	char err[512], def[64];
	const char *file;
	unsigned int i, j, n = 0;

	file = temp_file("[seqbond]\nhost_id = 1\nmac = 02:53:42:00:00:01\n[port0]\n"
		"device = net_null0\nmtu = 9600\n");
	SB_CHECK(file != NULL, "temporary file: %s", strerror(errno));
	if (file == NULL)
		return;
	SB_CHECK(sb_config_load(&base, file, err, sizeof(err)) == 0, "base config: %s", err);
	unlink(file);
	for (i = 0; sb_config_key(i, &k) == 0; i++, n++) {
		for (j = 0; j < i; j++) {
			sb_config_key(j, &other);
			SB_CHECK(other.section != k.section || strcmp(other.name, k.name) != 0,
				"key %s twice in one section", k.name);
		}
		SB_CHECK(k.help != NULL && k.help[0] != '\0' && strlen(k.help) <= 80,
			"[%s] %s: help of 1..80 characters", sb_config_section_name(k.section),
			k.name);
		SB_CHECK(k.def[0] != '\0' && k.range[0] != '\0', "[%s] %s: default and range",
			sb_config_section_name(k.section), k.name);
		SB_CHECK(!k.runtime || k.cmd != SB_CMD_SNAPSHOT, "%s: a run-time key's command",
			k.name);
		SB_CHECK(sb_config_key_find(set_section(k.section), k.name, &other) == 0 &&
			strcmp(other.name, k.name) == 0, "find %s", k.name);
		/* A number or a `word` is a value; "(required)" and the like are not. */
		if (isdigit((unsigned char)k.def[0])) {
			expect_set(&k, k.def, true);
		} else if (k.def[0] == '`') {
			snprintf(def, sizeof(def), "%.*s", (int)strlen(k.def) - 2, k.def + 1);
			expect_set(&k, def, true);
		}
		check_range(&k);
	}
	SB_CHECK(n > 0 && n < MAX_KEYS, "%u keys", n);
	SB_CHECK(sb_config_key(n, &k) == -ENOENT, "past the last key");
	SB_CHECK(sb_config_key_find("seqbond", "idle_sleep_max_us", &k) == -ENOENT &&
		sb_config_key_find("port16", "mtu", &k) == -ENOENT &&
		sb_config_key_find("ports", "mtu", &k) == -ENOENT, "find refuses the unknown");
}

/* Each file: load, save, load the saved file and save again: the same settings and text. */
static void
test_round_trip(const char *file)
{
	static struct sb_config a, b;
	static struct sb_dp_conf da, db;
	char err[512], t1[] = "/tmp/sb-test-config1.XXXXXX", t2[] = "/tmp/sb-test-config2.XXXXXX";
	int fd1 = mkstemp(t1), fd2 = mkstemp(t2);

	SB_CHECK(fd1 >= 0 && fd2 >= 0, "temporary files");
	if (fd1 < 0 || fd2 < 0)
		return;
	close(fd1);
	close(fd2);
	SB_CHECK(sb_config_load(&a, file, err, sizeof(err)) == 0, "%s: %s", file, err);
	SB_CHECK(sb_config_save(&a, t1) == 0, "save %s", file);
	SB_CHECK(sb_config_load(&b, t1, err, sizeof(err)) == 0, "saved %s: %s", file, err);
	SB_CHECK(sb_config_save(&b, t2) == 0, "save again %s", file);
	SB_CHECK(strcmp(slurp(t1), slurp(t2)) == 0, "%s: saved twice, two texts", file);
	sb_config_dp_conf(&a, &da);
	sb_config_dp_conf(&b, &db);
	SB_CHECK(memcmp(&da, &db, sizeof(da)) == 0, "%s: the datapath settings changed", file);
	unlink(t1);
	unlink(t2);
}

/* Trim @p s in place: blanks at both ends. */
static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* docs/config.md: the rows "| `key` | default | range | meaning |" of the tables under the
 * headings "## `[seqbond]`", "## `[exception]`" and "## `[portN]`" against the table. */
static void
test_docs(const char *md)
{
	struct sb_config_key_info k;
	bool documented[MAX_KEYS] = { false };
	char *line = NULL, section[32] = "", *cell[3], *p, *name, *save;
	size_t cap = 0;
	unsigned int i, rows = 0, lineno = 0;
	FILE *f = fopen(md, "r");

	SB_CHECK(f != NULL, "%s: %s", md, strerror(errno));
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (strncmp(line, "## ", 3) == 0) {
			section[0] = '\0';
			if (strncmp(line, "## `[", 5) == 0 && (p = strchr(line + 5, ']')) != NULL)
				snprintf(section, sizeof(section), "%.*s", (int)(p - line - 5),
					line + 5);
			continue;
		}
		if (section[0] == '\0' || strncmp(line, "| `", 3) != 0)
			continue;
		/* The first three cells: key(s), default, range. */
		p = line + 1;
		for (i = 0; i < 3; i++) {
			cell[i] = p;
			p = strstr(p, " | ");
			if (p == NULL)
				break;
			*p = '\0';
			p += 3;
		}
		SB_CHECK(i == 3, "%s:%u: a key row with fewer than 4 cells", md, lineno);
		if (i < 3)
			continue;
		for (name = strtok_r(cell[0], ",", &save); name != NULL;
				name = strtok_r(NULL, ",", &save)) {
			name = trim(name);
			if (name[0] == '`')
				name++;
			name[strcspn(name, "`")] = '\0';
			rows++;
			if (sb_config_key_find(strcmp(section, "portN") == 0 ? "port0" : section,
					name, &k) != 0) {
				SB_CHECK(false, "%s:%u: [%s] %s is documented but not in the key "
					"table", md, lineno, section, name);
				continue;
			}
			SB_CHECK(strcmp(trim(cell[1]), k.def) == 0, "%s:%u: [%s] %s: default "
				"'%s' in the docs, '%s' in the table", md, lineno, section, name,
				trim(cell[1]), k.def);
			SB_CHECK(strcmp(trim(cell[2]), k.range) == 0, "%s:%u: [%s] %s: range "
				"'%s' in the docs, '%s' in the table", md, lineno, section, name,
				trim(cell[2]), k.range);
			for (i = 0; sb_config_key(i, &k) == 0 && i < MAX_KEYS; i++)
				if (strcmp(sb_config_section_name(k.section), section) == 0 &&
						strcmp(k.name, name) == 0) {
					SB_CHECK(!documented[i], "%s:%u: [%s] %s has a second row",
						md, lineno, section, name);
					documented[i] = true;
				}
		}
	}
	free(line);
	fclose(f);
	for (i = 0; sb_config_key(i, &k) == 0 && i < MAX_KEYS; i++)
		SB_CHECK(documented[i], "[%s] %s has no row in %s",
			sb_config_section_name(k.section), k.name, md);
	printf("%s: %u key rows checked against the key table\n", md, rows);
}

int
main(int argc, char **argv)
{
	int i;

	if (argc == 3 && strcmp(argv[1], "--docs") == 0) {
		test_docs(argv[2]);
		return sb_test_summary("test_config_docs");
	}
	test_table();
	for (i = 1; i < argc; i++)
		test_round_trip(argv[i]);
	return sb_test_summary("test_config");
}
