/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_CLI_SERVER_H
#define SB_CLI_SERVER_H

/**
 * @file
 * The console on a unix stream socket, for `seqbond-console` (tools/console/), the way
 * vppctl and birdc reach their daemons. Every client gets its own session
 * (struct sb_cli_session) on its own control thread, with the same commands as the -i
 * console; `quit` there ends that session only.
 *
 * Protocol (docs/console.md): the client sends one line, "seqbond-console 1 interactive" or
 * "seqbond-console 1 batch".
 *  - interactive: the daemon runs DPDK's line editor on the socket (prompt, TAB completion,
 *    `?`, history); the client relays its terminal in raw mode, like cmdline_stdin_new().
 *  - batch: every line the client sends is one command; after its output the daemon sends
 *    a NUL byte and "ok\n" or "error\n" (a NUL never occurs in command output), or "bye\n"
 *    after `quit`, then closes.
 *
 * A client that disappears costs nothing but its session: SIGPIPE is ignored, writes to it
 * fail, its thread ends; a client that stops reading blocks only its own session thread,
 * and only for the send timeout. No lock is held while a session writes.
 */

#include <stddef.h>

#include "sb_ctl.h"

/** Default directory of console sockets: /run/seqbond/NAME.sock. */
#define SB_CLI_SOCKET_DIR "/run/seqbond"
/** Clients served at once; more are refused with an error line. */
#define SB_CLI_MAX_SESSIONS 16

struct sb_cli_server;

/**
 * Listen on @p path (mode 0600, only clients with the daemon's own uid are served) and
 * serve console sessions on control threads until sb_cli_server_stop(). Creates the
 * directory of @p path (mode 0755) when it is missing. That directory must belong to root
 * or to the daemon's effective uid and be writable by neither group nor others (whoever
 * may write it could put a socket of their own in place of ours); else nothing is created
 * and @p err names the directory, its owner and its mode. A socket file left by a seqbond
 * that is gone (nothing accepts on it) is replaced; one that answers is not.
 *
 * @param ctl   The control back end (must outlive the server).
 * @param err   Receives a one-line message naming the path on failure.
 * @return the server, or NULL with rte_errno set: EPERM (the directory's owner or mode),
 *   ENOTDIR, EADDRINUSE (another process serves that path), ENOTSOCK (the path exists and
 *   is not a socket), ENAMETOOLONG, ENOMEM, or the errno of mkdir/stat/socket/bind/listen or
 *   of the thread creation.
 */
struct sb_cli_server *sb_cli_server_start(struct sb_ctl *ctl, const char *path, char *err,
	size_t err_len);

/**
 * Stop accepting, end every session (their sockets are shut down, so a session blocked on
 * a client returns at once; a command in progress finishes first), join the threads and
 * remove the socket file. NULL is a no-op.
 */
void sb_cli_server_stop(struct sb_cli_server *srv);

#endif /* SB_CLI_SERVER_H */
