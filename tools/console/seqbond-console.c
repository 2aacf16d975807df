/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seqbond-console: attach to a running seqbond's console, as vppctl or birdc do.
 *
 *   seqbond-console [NAME | -s SOCKET] [COMMAND...]
 *
 * The daemon serves its console on /run/seqbond/NAME.sock (NAME: its config file's base name
 * without .ini, the instance of seqbond@NAME). Interactive on a terminal: the daemon's own
 * line editor runs on the socket (TAB completion, '?', history) and this program relays the
 * terminal in raw mode. With COMMAND, or with commands on a non-terminal stdin, each line is
 * one command and the exit status says whether all of them worked. Protocol:
 * app/cli/sb_cli_server.h and docs/console.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#define SOCKET_DIR "/run/seqbond"
#define GREETING "seqbond-console 1 "

/* Exit statuses (docs/console.md). */
#define EXIT_OK 0
#define EXIT_COMMAND_FAILED 1
#define EXIT_TROUBLE 2

static const char *prog = "seqbond-console";
static struct termios saved_term;
static bool term_saved;

static void
usage(FILE *f)
{
	fprintf(f, "Usage: %s [NAME | -s SOCKET] [COMMAND...]\n"
		"Attach to the console of the running seqbond NAME (socket %s/NAME.sock; NAME is\n"
		"its config file's base name without .ini, as in seqbond@NAME). NAME may be left\n"
		"out when one seqbond runs; a NAME with a '/' is a socket path.\n"
		"  COMMAND     run one command, e.g. 'show paths', and exit\n"
		"  (none)      interactive when stdin is a terminal (TAB completes, ? lists the\n"
		"              choices, quit or Ctrl-D leaves; seqbond keeps running), else one\n"
		"              command per line from stdin\n"
		"  -s, --socket SOCKET  the socket path instead of NAME (seqbond --console-socket)\n"
		"  -h, --help  this text\n"
		"Exit status: 0 every command worked, 1 a command failed, 2 no session (seqbond\n"
		"not reachable, refused, or gone before answering).\n", prog, SOCKET_DIR);
}

static void
restore_terminal(void)
{
	if (term_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_term);
	term_saved = false;
}

static void
on_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The socket of the only seqbond running, when NAME is left out. */
static int
only_instance(char *path, size_t len)
{
	DIR *d = opendir(SOCKET_DIR);
	struct dirent *e;
	char names[512] = "";
	int n = 0;

	if (d == NULL) {
		fprintf(stderr, "%s: no seqbond console in %s (is seqbond running?)\n", prog,
			SOCKET_DIR);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l <= 5 || strcmp(e->d_name + l - 5, ".sock") != 0)
			continue;
		if (n++ == 0)
			snprintf(path, len, "%s/%s", SOCKET_DIR, e->d_name);
		if (strlen(names) + l < sizeof(names) - 2) {
			strncat(names, " ", sizeof(names) - strlen(names) - 1);
			strncat(names, e->d_name, l - 5);
		}
	}
	closedir(d);
	if (n == 1)
		return 0;
	if (n == 0)
		fprintf(stderr, "%s: no seqbond console in %s (is seqbond running?)\n", prog,
			SOCKET_DIR);
	else
		fprintf(stderr, "%s: %d seqbond instances run; name one of:%s\n", prog, n, names);
	return -1;
}

static int
connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: %s: socket path too long\n", prog, path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	if (errno == ENOENT)
		fprintf(stderr, "%s: no seqbond console at %s (is seqbond running? see "
			"seqbond --help, --console-socket)\n", prog, path);
	else if (errno == ECONNREFUSED)
		fprintf(stderr, "%s: %s: nothing answers (seqbond stopped without removing "
			"it?)\n", prog, path);
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "%s: %s: permission denied (the console is root's)\n", prog,
			path);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	close(fd);
	return -1;
}

static bool
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/* Relay the terminal in raw mode; the daemon echoes, edits and completes. */
static int
interactive(int fd)
{
	struct termios raw;
	char buf[4096];

	if (!write_all(fd, GREETING "interactive\n", strlen(GREETING "interactive\n")))
		return EXIT_TROUBLE;
	if (tcgetattr(STDIN_FILENO, &saved_term) == 0) {
		term_saved = true;
		atexit(restore_terminal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		signal(SIGINT, on_signal);
		raw = saved_term;
		/* What cmdline_stdin_new() does for seqbond -i: keys reach the editor as typed,
		 * Ctrl-C clears the line there. Output processing stays (\n -> \r\n). */
		raw.c_lflag &= ~(ICANON | ECHO | ISIG);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		ssize_t n;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents != 0) {
			n = read(fd, buf, sizeof(buf));
			if (n <= 0)
				break;		/* quit, Ctrl-D, or seqbond stopped */
			if (!write_all(STDOUT_FILENO, buf, n))
				break;
		}
		if (pfd[0].revents != 0) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n <= 0)
				break;
			if (!write_all(fd, buf, n))
				break;
		}
	}
	restore_terminal();
	printf("\n");
	return EXIT_OK;
}

/* Batch: send lines, print output, count the daemon's status markers (NUL, then "ok",
 * "error" or "bye", newline). Reads and writes are interleaved so that neither side can
 * block the other with a full socket buffer. */
struct batch {
	char *out;		/* to send */
	size_t out_len, out_cap;
	unsigned long sent, answered, failed;
	bool in_marker, bye, input_done, last_newline;
	char marker[16];
	size_t marker_len;
};

static bool
queue(struct batch *b, const char *data, size_t len)
{
	size_t i;

	if (b->out_len + len > b->out_cap) {
		size_t cap = (b->out_len + len) * 2;
		char *p = realloc(b->out, cap);

		if (p == NULL)
			return false;
		b->out = p;
		b->out_cap = cap;
	}
	memcpy(b->out + b->out_len, data, len);
	b->out_len += len;
	for (i = 0; i < len; i++)
		if (data[i] == '\n')
			b->sent++;
	if (len > 0)
		b->last_newline = data[len - 1] == '\n';
	return true;
}

static void
take_output(struct batch *b, const char *buf, size_t len)
{
	size_t i, start = 0;

	for (i = 0; i < len; i++) {
		if (b->in_marker) {
			if (buf[i] != '\n') {
				if (b->marker_len < sizeof(b->marker) - 1)
					b->marker[b->marker_len++] = buf[i];
				continue;
			}
			b->marker[b->marker_len] = '\0';
			b->in_marker = false;
			b->answered++;
			if (strcmp(b->marker, "ok") != 0)
				b->failed += strcmp(b->marker, "bye") != 0;
			if (strcmp(b->marker, "bye") == 0)
				b->bye = true;
			start = i + 1;
		} else if (buf[i] == '\0') {
			fwrite(buf + start, 1, i - start, stdout);
			b->in_marker = true;
			b->marker_len = 0;
		}
	}
	if (!b->in_marker && start < len)
		fwrite(buf + start, 1, len - start, stdout);
	fflush(stdout);
}

static int
batch(int fd, int argc, char **argv)
{
	struct batch b = { .last_newline = true };
	char buf[8192];
	bool shut = false;
	int i, status;

	if (!queue(&b, GREETING "batch\n", strlen(GREETING "batch\n")))
		return EXIT_TROUBLE;
	b.sent = 0;
	if (argc > 0) {
		for (i = 0; i < argc; i++)
			if (!queue(&b, argv[i], strlen(argv[i])) || !queue(&b, i + 1 < argc ?
					" " : "\n", 1))
				return EXIT_TROUBLE;
		b.input_done = true;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (!b.bye) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		int nfds = 1;
		ssize_t n;

		if (b.out_len > 0)
			pfd[0].events |= POLLOUT;
		else if (b.input_done && !shut) {
			/* Everything sent: the daemon answers the rest, then closes. */
			shutdown(fd, SHUT_WR);
			shut = true;
		}
		if (!b.input_done && b.out_len < sizeof(buf))
			nfds = 2;
		if (poll(pfd, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(fd, buf, sizeof(buf));
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			take_output(&b, buf, n);
		}
		if ((pfd[0].revents & POLLOUT) && b.out_len > 0) {
			n = write(fd, b.out, b.out_len);
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				/* Closed by seqbond (refused, or going away): stop sending
				 * and read what it said before it closed. */
				b.out_len = 0;
				b.input_done = true;
				shut = true;
				continue;
			}
			if (n > 0) {
				memmove(b.out, b.out + n, b.out_len - n);
				b.out_len -= n;
			}
		}
		if (nfds == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				b.input_done = true;
				/* A last line without its newline is still a command. */
				if (!b.last_newline && !queue(&b, "\n", 1))
					break;
			} else if (!queue(&b, buf, n)) {
				break;
			}
		}
	}
	free(b.out);
	if (b.bye)
		status = b.failed ? EXIT_COMMAND_FAILED : EXIT_OK;
	else if (b.answered < b.sent || !b.input_done) {
		fprintf(stderr, "%s: seqbond ended the session with %lu of %lu commands "
			"unanswered\n", prog, b.sent - b.answered, b.sent);
		status = EXIT_TROUBLE;
	} else {
		status = b.failed ? EXIT_COMMAND_FAILED : EXIT_OK;
	}
	return status;
}

int
main(int argc, char **argv)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
	const char *sock = NULL;
	int opt, fd, status;

	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	/* '+': options only before NAME, so that a COMMAND may contain anything. */
	while ((opt = getopt_long(argc, argv, "+s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sock = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}
	if (sock == NULL && optind < argc) {
		const char *name = argv[optind++];

		if (strchr(name, '/') != NULL)
			snprintf(path, sizeof(path), "%s", name);
		else if (name[0] == '\0' || strlen(name) > 80) {
			fprintf(stderr, "%s: '%s': not an instance name\n", prog, name);
			return EXIT_TROUBLE;
		} else {
			snprintf(path, sizeof(path), "%s/%s.sock", SOCKET_DIR, name);
		}
		sock = path;
	} else if (sock == NULL) {
		if (only_instance(path, sizeof(path)) != 0)
			return EXIT_TROUBLE;
		sock = path;
	}
	/* seqbond may close the session while we write (a 17th client is refused, a daemon
	 * stops): a write then fails with EPIPE, handled, instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
	fd = connect_to(sock);
	if (fd < 0)
		return EXIT_TROUBLE;
	if (optind == argc && isatty(STDIN_FILENO))
		status = interactive(fd);
	else
		status = batch(fd, argc - optind, argv + optind);
	close(fd);
	return status;
}
