/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CLI_H
#define SB_CLI_H

/**
 * @file
 * The operator console, built on DPDK's cmdline library like testpmd's. Each command group
 * lives in its own file and exports a NULL-terminated list; sb_cli_init() merges them. Every
 * command calls the control back end (sb_ctl.h), the same functions telemetry uses.
 *
 * Several consoles run at once (the -i console on stdin, --cmdline-file, and one thread per
 * seqbond-console client, sb_cli_server.h). What belongs to one of them (its snapshot
 * buffer, whether `quit` was entered, whether its last command failed) lives in a struct
 * sb_cli_session; the command callbacks find the session of the thread they run on with
 * sb_cli_session(). Each session runs on exactly one thread from start to end.
 */

#include <stdbool.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <rte_common.h>

#include "sb_ctl.h"

extern cmdline_parse_inst_t *sb_cli_port_cmds[];
extern cmdline_parse_inst_t *sb_cli_peer_cmds[];
extern cmdline_parse_inst_t *sb_cli_set_cmds[];
extern cmdline_parse_inst_t *sb_cli_config_cmds[];
extern cmdline_parse_inst_t *sb_cli_lcore_cmds[];
extern cmdline_parse_inst_t *sb_cli_key_cmds[];

/** Longest command line: what the interactive line editor holds (RDLINE_BUF_SIZE, 512, in
 * DPDK's private cmdline_private.h, less the terminating NUL). Longer lines are refused. */
#define SB_CLI_LINE_MAX 511

/** The back end every command uses (set once by sb_cli_init(), before any session). */
extern struct sb_ctl *sb_cli_ctl;
/** `help`, generated from the merged commands' help strings. */
extern cmdline_parse_inst_t sb_cli_cmd_help;

/** Where a session's commands come from; decides what `quit` means. */
enum sb_cli_origin {
	SB_CLI_LOCAL,	/**< -i or --cmdline-file: `quit` stops seqbond. */
	SB_CLI_SOCKET,	/**< a seqbond-console client: `quit` ends the session only. */
};

/** One console session's state. */
struct sb_cli_session {
	enum sb_cli_origin origin;
	struct sb_snapshot *snap;	/**< Buffer of the show commands (allocated on use). */
	bool quit;			/**< `quit` was entered. */
	bool failed;			/**< A command since the last sb_cli_exec() failed. */
};

/**
 * Merge the command groups and remember the back end. Call once from the main thread before
 * any session starts (sb_cli_run() and sb_cli_server_start() do).
 * @return 0 or -ENOMEM.
 */
int sb_cli_init(struct sb_ctl *ctl);

/**
 * Complete `set KEY VALUE` from the key table: its choice of keys (portN.NAME for ports
 * 0..@p n_ports - 1) and its help string. sb_cli_init() calls it once.
 * @return 0 or -ENOMEM.
 */
int sb_cli_set_init(unsigned int n_ports);

/** @return the merged command list (after sb_cli_init()). */
cmdline_parse_ctx_t *sb_cli_commands(void);

/**
 * Make @p s the session of the calling thread (NULL: none) and reset its flags. Its
 * snapshot buffer is freed by sb_cli_session_end().
 */
void sb_cli_session_begin(struct sb_cli_session *s, enum sb_cli_origin origin);

/** Free what @p s holds and detach it from the calling thread. */
void sb_cli_session_end(struct sb_cli_session *s);

/** @return the calling thread's session (never NULL inside a command callback). */
struct sb_cli_session *sb_cli_session(void);

/**
 * Print "error: MESSAGE" on the console and mark the current command as failed (the exit
 * status of `seqbond-console NAME COMMAND`). Every command reports errors through here.
 */
void sb_cli_error(struct cmdline *cl, const char *fmt, ...) __rte_format_printf(2, 3);

/**
 * Run one command line (without the newline) in session @p s on @p cl, the way the
 * interactive console does when Return is pressed, printing the cmdline library's own
 * messages ("Command not found", "Bad arguments", "Ambiguous command").
 * @return 0 when the command ran and reported no error, -EINVAL otherwise.
 */
int sb_cli_exec(struct cmdline *cl, const char *line);

/**
 * Take a snapshot for a show command into the session's buffer, printing an error on the
 * console on failure.
 * @return the snapshot (session-owned buffer, valid until the next call) or NULL.
 */
const struct sb_snapshot *sb_cli_snapshot(struct cmdline *cl);

/**
 * Run a local console session (origin SB_CLI_LOCAL): commands from @p file when non-NULL
 * (like testpmd's --cmdline-file), else interactively on stdin/stdout with the prompt
 * "seqbond> ". Returns when the input ends, on `quit`, or when a signal interrupts the read.
 * @return 0, 1 when `quit` was entered, or -errno (file cannot be opened, -ENOMEM).
 */
int sb_cli_run(struct sb_ctl *ctl, const char *file);

#endif /* SB_CLI_H */
