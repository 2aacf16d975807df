/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

/**
 * @file
 * seqbond's command line: `seqbond [EAL options] -- --config FILE [options]`. Parsed before
 * EAL starts, so that --help, a missing or misplaced option and (in main) a bad configuration
 * file are reported without DPDK's start-up (no EAL log, no /var/run/dpdk/<prefix>).
 */

#include <limits.h>
#include <stdbool.h>

struct sb_options {
	const char *config_file;	/**< --config FILE (required). */
	const char *cmdline_file;	/**< --cmdline-file FILE, or NULL. */
	bool interactive;		/**< -i: console on stdin. */
	/** Console socket path (default from the config file's name), or NULL when
	 * --no-console-socket was given. */
	const char *console_socket;
	char console_socket_buf[PATH_MAX];
};

/** Print the usage text (seqbond's options, how EAL options are placed) on stdout. */
void sb_options_usage(const char *prog);

/**
 * The console name of a configuration file: its base name without ".ini"
 * (/etc/seqbond/gw.ini -> gw), so that the unit instance seqbond@gw, its file
 * /etc/seqbond/gw.ini and `seqbond-console gw` agree.
 * @return 0, or -EINVAL when the name would be empty.
 */
int sb_options_console_name(const char *config_file, char *name, size_t len);

/**
 * Parse @p argv: seqbond's options are those after the first "--"; -h/--help anywhere (also
 * before "--", where EAL would take it) prints seqbond's usage. Does not start EAL and does
 * not modify @p argv. Messages go to stderr, one line each.
 *
 * @return 0 (go on; @p o is filled), 1 (usage printed: exit with success), 2 (--eal-help:
 *   the caller lets EAL print its options) or -EINVAL (bad command line, message printed).
 */
int sb_options_parse(int argc, char **argv, struct sb_options *o);

#endif /* SB_OPTIONS_H */
