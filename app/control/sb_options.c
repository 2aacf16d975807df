/* SPDX-License-Identifier: BSD-3-Clause */
/* seqbond's command line, parsed before EAL starts (sb_options.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <rte_string_fns.h>

#include "cli/sb_cli_server.h"
#include "sb_options.h"

enum {
	OPT_CONFIG = 256,
	OPT_CMDLINE_FILE,
	OPT_CONSOLE_SOCKET,
	OPT_NO_CONSOLE_SOCKET,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "interactive", no_argument, NULL, 'i' },
	{ "cmdline-file", required_argument, NULL, OPT_CMDLINE_FILE },
	{ "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
	{ "no-console-socket", no_argument, NULL, OPT_NO_CONSOLE_SOCKET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
sb_options_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- --config FILE [options]\n"
		"\n"
		"seqbond stripes the frames of sb0 over every member port and restores their order\n"
		"at the peer. EAL options are DPDK's and come before --, for example:\n"
		"  -l 0,1                 lcores: the first for control, the next for the datapath\n"
		"  --no-huge -m 512       no hugepages (enough for af_packet and TAP ports)\n"
		"  --no-pci               no PCI probing (when no NIC is bound to DPDK)\n"
		"  --file-prefix NAME     runtime files of this instance (one per instance)\n"
		"  (%s --eal-help lists them all)\n"
		"\n"
		"seqbond options, after --:\n"
		"  --config FILE          INI configuration, required (docs/config.md)\n"
		"  -i, --interactive      console on stdin, prompt 'seqbond> '; quit stops seqbond\n"
		"  --cmdline-file FILE    run console commands from FILE at start\n"
		"  --console-socket PATH  serve the console to seqbond-console on PATH; default\n"
		"                         " SB_CLI_SOCKET_DIR "/NAME.sock, NAME = FILE's base name "
		"without .ini\n"
		"  --no-console-socket    no console socket\n"
		"  -h, --help             this text\n"
		"\n"
		"Without -i seqbond runs until SIGINT or SIGTERM; `seqbond-console NAME` attaches to\n"
		"its console (docs/console.md). Example, with the sample file that needs no NIC:\n"
		"  %s -l 0,1 --no-huge -m 512 --no-pci -- --config config/first-run.ini\n",
		prog, prog, prog);
}

int
sb_options_console_name(const char *config_file, char *name, size_t len)
{
	const char *base = strrchr(config_file, '/');
	size_t n;

	base = base != NULL ? base + 1 : config_file;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(name, base, n);
	name[n] = '\0';
	return 0;
}

/* seqbond's long options given before "--", where EAL would refuse them. */
static const char *
misplaced(int argc, char **argv, int end)
{
	const struct option *lo;
	int i;

	for (i = 1; i < end && i < argc; i++) {
		if (strcmp(argv[i], "-i") == 0)
			return argv[i];
		for (lo = long_opts; lo->name != NULL; lo++)
			if (strncmp(argv[i], "--", 2) == 0 &&
					strncmp(argv[i] + 2, lo->name, strlen(lo->name)) == 0 &&
					(argv[i][2 + strlen(lo->name)] == '\0' ||
					argv[i][2 + strlen(lo->name)] == '='))
				return argv[i];
	}
	return NULL;
}

int
sb_options_parse(int argc, char **argv, struct sb_options *o)
{
	char name[NAME_MAX + 1];
	const char *bad;
	int i, dd, opt, n;
	bool no_socket = false;

	memset(o, 0, sizeof(*o));
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	/* Before "--" -h/--help is seqbond's too: EAL would print only its own options. */
	for (i = 1; i < dd; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			sb_options_usage(argv[0]);
			return 1;
		}
		if (strcmp(argv[i], "--eal-help") == 0)
			return 2;
	}
	bad = misplaced(argc, argv, dd);
	if (bad != NULL) {
		fprintf(stderr, "seqbond: %s is a seqbond option: it goes after -- "
			"(seqbond [EAL options] -- --config FILE; see seqbond --help)\n", bad);
		return -EINVAL;
	}
	if (dd < argc) {
		/* getopt_long over seqbond's part: argv[dd] ("--") stands in for the program
		 * name. Copy the pointers: GNU getopt permutes the array it is given. */
		char *sub[argc - dd + 1];

		n = argc - dd;
		memcpy(sub, argv + dd, sizeof(sub[0]) * n);
		sub[n] = NULL;
		opterr = 0;
		optind = 1;
		while ((opt = getopt_long(n, sub, ":hi", long_opts, NULL)) != -1) {
			switch (opt) {
			case OPT_CONFIG:
				o->config_file = optarg;
				break;
			case 'i':
				o->interactive = true;
				break;
			case OPT_CMDLINE_FILE:
				o->cmdline_file = optarg;
				break;
			/* The last of --console-socket and --no-console-socket wins. */
			case OPT_CONSOLE_SOCKET:
				o->console_socket = optarg;
				no_socket = false;
				break;
			case OPT_NO_CONSOLE_SOCKET:
				o->console_socket = NULL;
				no_socket = true;
				break;
			case 'h':
				sb_options_usage(argv[0]);
				return 1;
			case ':':
				fprintf(stderr, "seqbond: option %s needs a value (see seqbond "
					"--help)\n", sub[optind - 1]);
				return -EINVAL;
			default:
				fprintf(stderr, "seqbond: unknown option '%s' (see seqbond --help)\n",
					sub[optind - 1]);
				return -EINVAL;
			}
		}
		if (optind < n) {
			fprintf(stderr, "seqbond: unexpected argument '%s' (see seqbond --help)\n",
				sub[optind]);
			return -EINVAL;
		}
		optind = 1;
	}
	if (o->config_file == NULL) {
		fprintf(stderr, "seqbond: --config FILE is required, after -- "
			"(seqbond [EAL options] -- --config FILE; see seqbond --help)\n");
		return -EINVAL;
	}
	if (no_socket)
		return 0;
	if (o->console_socket == NULL) {
		if (sb_options_console_name(o->config_file, name, sizeof(name)) != 0) {
			fprintf(stderr, "seqbond: --config %s: no console name in the file name; "
				"give --console-socket PATH\n", o->config_file);
			return -EINVAL;
		}
		snprintf(o->console_socket_buf, sizeof(o->console_socket_buf), "%s/%s.sock",
			SB_CLI_SOCKET_DIR, name);
		o->console_socket = o->console_socket_buf;
	}
	if (o->console_socket[0] == '\0') {
		fprintf(stderr, "seqbond: --console-socket: empty path (--no-console-socket "
			"turns it off)\n");
		return -EINVAL;
	}
	return 0;
}
