/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CLI_H
#define SB_CLI_H

/**
 * @file
 * The operator console, built on DPDK's cmdline library like testpmd's. Each command group
 * lives in its own file and exports a NULL-terminated list; sb_cli_run() merges them. Every
 * command calls the control back end (sb_ctl.h), the same functions telemetry uses.
 */

#include <stdbool.h>

#include <cmdline.h>
#include <cmdline_parse.h>

#include "sb_ctl.h"

extern cmdline_parse_inst_t *sb_cli_port_cmds[];
extern cmdline_parse_inst_t *sb_cli_peer_cmds[];
extern cmdline_parse_inst_t *sb_cli_set_cmds[];
extern cmdline_parse_inst_t *sb_cli_config_cmds[];
extern cmdline_parse_inst_t *sb_cli_lcore_cmds[];

/** The back end every command uses (set by sb_cli_run()). */
extern struct sb_ctl *sb_cli_ctl;
/** Set by `quit`: the appliance stops after the console returns. */
extern bool sb_cli_quit_requested;
/** `help`, generated from the merged commands' help strings. */
extern cmdline_parse_inst_t sb_cli_cmd_help;

/**
 * Take a snapshot for a show command, printing an error on the console on failure.
 * @return the snapshot (console-owned buffer) or NULL.
 */
const struct sb_snapshot *sb_cli_snapshot(struct cmdline *cl);

/**
 * Run console commands: from @p file when non-NULL (like testpmd's --cmdline-file), else
 * interactively on stdin/stdout with the prompt "seqbond> ". Returns when the input ends,
 * on `quit`, or when a signal interrupts the read.
 * @return 0, 1 when `quit` was entered, or -errno (file cannot be opened).
 */
int sb_cli_run(struct sb_ctl *ctl, const char *file);

#endif /* SB_CLI_H */
