/* SPDX-License-Identifier: BSD-3-Clause */
/* The console on a unix socket: one listener thread, one thread per client session. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "sb_cli.h"
#include "sb_cli_server.h"

RTE_LOG_REGISTER_SUFFIX(sb_cli_logtype, console, INFO);
#define CLI_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_cli_logtype, "seqbond.console: " fmt "\n", ##__VA_ARGS__)

#define GREETING_PREFIX "seqbond-console 1 "
#define GREETING_MAX 64
/* A client has this long to say which mode it wants, and a session this long to hand one
 * write to a client that does not read, before the session gives up on it. */
#define GREETING_TIMEOUT_S 10
#define SEND_TIMEOUT_S 10
#define BATCH_BUF 4096

struct sb_cli_server;

struct session_slot {
	struct sb_cli_server *srv;
	pthread_t thread;
	int fd;			/* -1: slot free; closed only by the listener or stop, after join */
	bool running;		/* cleared (release) by the session thread as its last act */
	unsigned int id;
	pid_t pid;		/* the client's, for the log */
};

struct sb_cli_server {
	struct sb_ctl *ctl;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;		/* of our socket file: stop removes only that one */
	ino_t ino;
	int listen_fd;
	int wake[2];		/* 'r': a session ended, reap it; 's': stop (ends the poll) */
	pthread_t listener;
	unsigned int next_id;
	struct session_slot slot[SB_CLI_MAX_SESSIONS];	/* the listener's; stop's after it ends */
};

/*
 * Set-up of every console thread: leave SIGINT/SIGTERM to the main thread (its -i console
 * read must see them), and yield the CPU to everything else. Control threads share a core
 * with an lcore when there is no spare one (EAL puts them on the main lcore's), and a
 * script flooding the console must not delay the datapath there by a hello interval.
 */
static void
console_thread_init(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	setpriority(PRIO_PROCESS, gettid(), 19);	/* this thread only, on Linux */
}

static void
set_timeout(int fd, int opt, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* Write all of @p buf; false when the client is gone or stuck. */
static bool
send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

static bool
send_str(int fd, const char *s)
{
	return send_all(fd, s, strlen(s));
}

/* Read the greeting byte by byte: in interactive mode the line editor reads the rest of the
 * stream from the socket itself, so nothing after the newline may be consumed here.
 * @return 0 with the mode word in @p mode, or -1. */
static int
read_greeting(int fd, char *line, size_t len)
{
	size_t n = 0;
	char c;

	set_timeout(fd, SO_RCVTIMEO, GREETING_TIMEOUT_S);
	while (n + 1 < len) {
		ssize_t r = recv(fd, &c, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (c == '\n')
			break;
		line[n++] = c;
	}
	line[n] = '\0';
	if (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	set_timeout(fd, SO_RCVTIMEO, 0);
	return c == '\n' ? 0 : -1;
}

static void
run_interactive(int fd)
{
	struct sb_config *cfg = malloc(sizeof(*cfg));
	struct cmdline *cl;
	char banner[PATH_MAX + 160];
	int d;

	if (cfg == NULL)
		return;
	sb_ctl_config(sb_cli_ctl, cfg);
	snprintf(banner, sizeof(banner), "seqbond host %u (%s): 'help' lists the commands, "
		"'quit' leaves the console (seqbond keeps running)\n", cfg->host_id, cfg->file);
	free(cfg);
	if (!send_str(fd, banner))
		return;
	/* cmdline_free() closes the descriptors it was given: give it its own. */
	d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (d < 0)
		return;
	cl = cmdline_new(sb_cli_commands(), "seqbond> ", d, d);
	if (cl == NULL) {
		close(d);
		return;
	}
	cmdline_interact(cl);
	cmdline_free(cl);
}

/* One batch line: check it, run it, send the status marker. @return false to end. */
static bool
batch_line(int fd, struct cmdline *cl, char *line, size_t len, bool too_long)
{
	struct sb_cli_session *s = sb_cli_session();
	const char *marker = "ok\n";
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		line[--len] = '\0';
	s->failed = false;
	if (too_long) {
		sb_cli_error(cl, "command longer than %d characters", SB_CLI_LINE_MAX);
	} else {
		for (i = 0; i < len; i++)
			if (((unsigned char)line[i] < ' ' && line[i] != '\t') || line[i] == 0x7f)
				break;
		if (i < len)
			sb_cli_error(cl, "control character 0x%02x in the command",
				(unsigned char)line[i]);
		else
			sb_cli_exec(cl, line);
	}
	if (s->failed)
		marker = "error\n";
	else if (s->quit)
		marker = "bye\n";
	return send_all(fd, "", 1) && send_str(fd, marker) && !s->quit;
}

static void
run_batch(int fd)
{
	char buf[BATCH_BUF];
	struct cmdline *cl;
	size_t have = 0;
	bool skipping = false, go = true;
	int d;

	d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (d < 0)
		return;
	/* An empty prompt: cmdline_new() writes nothing; commands print through cl. */
	cl = cmdline_new(sb_cli_commands(), "", d, d);
	if (cl == NULL) {
		close(d);
		return;
	}
	while (go) {
		ssize_t r = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
		char *start = buf, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* End of input: a last line without its newline still counts. */
			if (have > 0 || skipping) {
				buf[have] = '\0';
				batch_line(fd, cl, buf, have, skipping);
			}
			break;
		}
		have += r;
		buf[have] = '\0';
		while (go && (nl = memchr(start, '\n', buf + have - start)) != NULL) {
			*nl = '\0';
			go = batch_line(fd, cl, start, nl - start, skipping);
			skipping = false;
			start = nl + 1;
		}
		have -= start - buf;
		memmove(buf, start, have);
		if (have == sizeof(buf) - 1) {
			/* No newline in a full buffer: drop the line, report it at its end. */
			skipping = true;
			have = 0;
		}
	}
	cmdline_free(cl);
}

static void *
session_main(void *arg)
{
	struct session_slot *slot = arg;
	struct sb_cli_session session;
	char greeting[GREETING_MAX];
	const char *mode;

	console_thread_init();
	if (read_greeting(slot->fd, greeting, sizeof(greeting)) != 0 ||
			strncmp(greeting, GREETING_PREFIX, strlen(GREETING_PREFIX)) != 0) {
		CLI_LOG(WARNING, "session %u (pid %d): no 'seqbond-console 1 MODE' greeting; "
			"closed", slot->id, (int)slot->pid);
		send_str(slot->fd, "error: expected the line 'seqbond-console 1 interactive' or "
			"'seqbond-console 1 batch' (use seqbond-console)\n");
		goto out;
	}
	mode = greeting + strlen(GREETING_PREFIX);
	if (strcmp(mode, "interactive") != 0 && strcmp(mode, "batch") != 0) {
		CLI_LOG(WARNING, "session %u (pid %d): unknown mode '%s'; closed", slot->id,
			(int)slot->pid, mode);
		send_str(slot->fd, "error: unknown mode (interactive or batch)\n");
		goto out;
	}
	set_timeout(slot->fd, SO_SNDTIMEO, SEND_TIMEOUT_S);
	CLI_LOG(DEBUG, "session %u (pid %d): %s", slot->id, (int)slot->pid, mode);
	sb_cli_session_begin(&session, SB_CLI_SOCKET);
	if (mode[0] == 'i')
		run_interactive(slot->fd);
	else
		run_batch(slot->fd);
	sb_cli_session_end(&session);
	CLI_LOG(DEBUG, "session %u (pid %d): closed", slot->id, (int)slot->pid);
out:
	/* The client sees the end at once; the descriptor is closed after the join, which the
	 * listener does as soon as it reads our 'r' (nothing lingers between sessions). */
	shutdown(slot->fd, SHUT_RDWR);
	__atomic_store_n(&slot->running, false, __ATOMIC_RELEASE);
	if (write(slot->srv->wake[1], "r", 1) != 1)
		CLI_LOG(DEBUG, "session %u: cannot wake the listener: %s", slot->id,
			strerror(errno));
	return NULL;
}

/* Join the sessions that ended and free their slots (listener thread). */
static void
reap(struct sb_cli_server *srv)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(srv->slot); i++) {
		struct session_slot *slot = &srv->slot[i];

		if (slot->fd < 0 || __atomic_load_n(&slot->running, __ATOMIC_ACQUIRE))
			continue;
		pthread_join(slot->thread, NULL);
		close(slot->fd);
		slot->fd = -1;
	}
}

static void
accept_one(struct sb_cli_server *srv)
{
	struct session_slot *slot = NULL;
	struct ucred cred = { .pid = 0, .uid = (uid_t)-1 };
	socklen_t len = sizeof(cred);
	char name[RTE_MAX_THREAD_NAME_LEN];
	unsigned int i;
	int fd, ret;

	fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		/* Out of descriptors or memory: the client stays queued and the socket readable;
		 * pause rather than spin on it. */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			CLI_LOG(WARNING, "cannot accept a console client: %s", strerror(errno));
			usleep(100 * 1000);
		}
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
			cred.uid != geteuid()) {
		CLI_LOG(WARNING, "refused a console client of uid %d (pid %d)", (int)cred.uid,
			(int)cred.pid);
		close(fd);
		return;
	}
	for (i = 0; i < RTE_DIM(srv->slot) && slot == NULL; i++)
		if (srv->slot[i].fd < 0)
			slot = &srv->slot[i];
	if (slot == NULL) {
		CLI_LOG(WARNING, "refused console client pid %d: %d sessions open", (int)cred.pid,
			SB_CLI_MAX_SESSIONS);
		set_timeout(fd, SO_SNDTIMEO, 1);
		send_str(fd, "error: too many console sessions open (" RTE_STR(SB_CLI_MAX_SESSIONS)
			"); try again later\n");
		close(fd);
		return;
	}
	slot->srv = srv;
	slot->fd = fd;
	slot->id = ++srv->next_id;
	slot->pid = cred.pid;
	__atomic_store_n(&slot->running, true, __ATOMIC_RELEASE);
	snprintf(name, sizeof(name), "sb-console-%u", slot->id % 1000);
	ret = rte_ctrl_thread_create(&slot->thread, name, NULL, session_main, slot);
	if (ret != 0) {
		CLI_LOG(ERR, "console client pid %d: cannot start a session thread: %s",
			(int)cred.pid, strerror(ret < 0 ? -ret : ret));
		send_str(fd, "error: seqbond cannot start a console session\n");
		close(fd);
		slot->fd = -1;
	}
}

static void *
listener_main(void *arg)
{
	struct sb_cli_server *srv = arg;

	console_thread_init();
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = srv->listen_fd, .events = POLLIN },
			{ .fd = srv->wake[0], .events = POLLIN },
		};
		char cmd[SB_CLI_MAX_SESSIONS + 1];
		ssize_t n = poll(pfd, 2, -1);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[1].revents != 0) {
			n = read(srv->wake[0], cmd, sizeof(cmd));
			if (n <= 0 || memchr(cmd, 's', n) != NULL)
				break;
		}
		reap(srv);
		if (pfd[0].revents & POLLIN)
			accept_one(srv);
	}
	return NULL;
}

/* Is something accepting connections on @p path? */
static bool
socket_answers(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool answers;

	if (fd < 0)
		return false;
	answers = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return answers;
}

static struct sb_cli_server *
fail(struct sb_cli_server *srv, int errnum, char *err, size_t err_len, const char *fmt, ...)
	__rte_format_printf(5, 6);

static struct sb_cli_server *
fail(struct sb_cli_server *srv, int errnum, char *err, size_t err_len, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, err_len, "console socket %s: %s", srv->path, why);
	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	if (srv->wake[0] >= 0) {
		close(srv->wake[0]);
		close(srv->wake[1]);
	}
	free(srv);
	rte_errno = errnum;
	return NULL;
}

struct sb_cli_server *
sb_cli_server_start(struct sb_ctl *ctl, const char *path, char *err, size_t err_len)
{
	struct sb_cli_server *srv;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[PATH_MAX];
	struct stat st;
	unsigned int i;
	int ret;

	srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		snprintf(err, err_len, "console socket %s: out of memory", path);
		rte_errno = ENOMEM;
		return NULL;
	}
	srv->ctl = ctl;
	srv->listen_fd = -1;
	srv->wake[0] = srv->wake[1] = -1;
	for (i = 0; i < RTE_DIM(srv->slot); i++)
		srv->slot[i].fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "console socket %s: longer than %zu characters", path,
			sizeof(sa.sun_path) - 1);
		free(srv);
		rte_errno = ENAMETOOLONG;
		return NULL;
	}
	strlcpy(srv->path, path, sizeof(srv->path));
	strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
	if (sb_cli_init(ctl) != 0)
		return fail(srv, ENOMEM, err, err_len, "out of memory");

	strlcpy(dir, path, sizeof(dir));
	if (mkdir(dirname(dir), 0755) != 0 && errno != EEXIST)
		return fail(srv, errno, err, err_len, "cannot create its directory: %s",
			strerror(errno));
	/* Whoever may write the directory may replace the socket with one of their own and
	 * read what operators type, or remove it: only root (or our own uid) may. */
	strlcpy(dir, path, sizeof(dir));
	if (stat(dirname(dir), &st) != 0)
		return fail(srv, errno, err, err_len, "its directory %s: %s", dir,
			strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(srv, ENOTDIR, err, err_len, "%s is not a directory", dir);
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		char who[48] = "root";

		if (geteuid() != 0)
			snprintf(who, sizeof(who), "root or uid %u", (unsigned int)geteuid());
		return fail(srv, EPERM, err, err_len, "its directory %s belongs to uid %u with "
			"mode %04o: it must belong to %s and be writable by no one else; choose "
			"another with --console-socket", dir, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777), who);
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return fail(srv, ENOTSOCK, err, err_len, "exists and is not a socket");
		if (socket_answers(&sa))
			return fail(srv, EADDRINUSE, err, err_len, "another seqbond serves its "
				"console there (a second instance with the same name?); choose "
				"another with --console-socket");
		unlink(path);	/* left by a seqbond that is gone */
	}

	/* A client that vanishes mid-output must cost a failed write, not the daemon. */
	signal(SIGPIPE, SIG_IGN);
	srv->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv->listen_fd < 0)
		return fail(srv, errno, err, err_len, "socket: %s", strerror(errno));
	/* Root only from the first moment: Linux gives the socket file the mode of the
	 * unbound socket (less the umask); chmod after bind covers other kernels. */
	if (fchmod(srv->listen_fd, 0600) != 0 ||
			bind(srv->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return fail(srv, errno, err, err_len, "%s", strerror(errno));
	if (chmod(path, 0600) != 0 || stat(path, &st) != 0 ||
			listen(srv->listen_fd, SB_CLI_MAX_SESSIONS) != 0) {
		ret = errno;
		unlink(path);
		return fail(srv, ret, err, err_len, "%s", strerror(ret));
	}
	srv->dev = st.st_dev;
	srv->ino = st.st_ino;
	if (pipe2(srv->wake, O_CLOEXEC) != 0) {
		unlink(path);
		return fail(srv, errno, err, err_len, "pipe: %s", strerror(errno));
	}
	ret = rte_ctrl_thread_create(&srv->listener, "sb-console", NULL, listener_main, srv);
	if (ret != 0) {
		unlink(path);
		ret = ret < 0 ? -ret : ret;
		return fail(srv, ret, err, err_len, "cannot start its thread: %s", strerror(ret));
	}
	CLI_LOG(INFO, "console on %s (seqbond-console)", path);
	return srv;
}

void
sb_cli_server_stop(struct sb_cli_server *srv)
{
	struct stat st;
	unsigned int i;

	if (srv == NULL)
		return;
	if (write(srv->wake[1], "s", 1) != 1)
		CLI_LOG(ERR, "cannot wake the console listener: %s", strerror(errno));
	pthread_join(srv->listener, NULL);
	/* The listener is gone: the slots are ours. Shut every session's socket down, so that
	 * a session waiting for its client (or on a client that does not read) returns. */
	for (i = 0; i < RTE_DIM(srv->slot); i++)
		if (srv->slot[i].fd >= 0)
			shutdown(srv->slot[i].fd, SHUT_RDWR);
	for (i = 0; i < RTE_DIM(srv->slot); i++) {
		if (srv->slot[i].fd < 0)
			continue;
		pthread_join(srv->slot[i].thread, NULL);
		close(srv->slot[i].fd);
	}
	close(srv->listen_fd);
	if (stat(srv->path, &st) == 0 && st.st_dev == srv->dev && st.st_ino == srv->ino)
		unlink(srv->path);
	close(srv->wake[0]);
	close(srv->wake[1]);
	free(srv);
}
