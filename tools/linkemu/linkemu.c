/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linkemu: a delay line for one direction of an emulated link (propagation delay, jitter and
 * random loss), for tools/seqbond-testbed's `shape`. This kernel has tbf and htb but no netem,
 * so the testbed redirects the frames of a shaped link direction (tc mirred) through a veth
 * into this program and back out of another veth; see docs/testing.md for the plumbing.
 *
 *   linkemu --in IFACE --out IFACE [--delay-us N] [--jitter-us N] [--loss PCT] [--seed N]
 *           [--config FILE] [--limit-bytes N] [--slack-us N] [--rt PRIO]
 *
 * Every frame read on --in (AF_PACKET, incoming frames only) is dropped with probability
 * PCT/100, otherwise held until its arrival time (the kernel's receive timestamp) plus
 * delay + U(-jitter, +jitter) and written to --out. Order is kept: a frame never leaves before
 * the frame ahead of it (the link stays FIFO, which seqbond's loss rule relies on), so a jitter
 * draw that would overtake waits for its predecessor instead. --config names a file of
 * `key = value` lines (delay_us, jitter_us, loss_pct) read at start and again on SIGHUP;
 * frames already held keep their departure time. SIGUSR1 prints one statistics line on
 * stdout, SIGUSR2 starts the statistics again from zero; SIGTERM and SIGINT print them and
 * exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#define BURST 64			/* frames per recvmmsg/sendmmsg */
#define RX_BUF_SIZE 16384		/* bytes per receive buffer: MTU 9600 frames fit */
#define VNET_HDR_LEN ((uint32_t)sizeof(struct virtio_net_hdr))
#define RX_SOCKBUF (8 << 20)		/* bytes: a few ms of backlog at 10 Gbit/s */
#define ERR_BIN_NS 10000		/* departure error histogram: 10 us bins ... */
#define ERR_BINS 1000			/* ... up to 10 ms, then one overflow bin */
#define WAKE_AHEAD_MAX_NS 300000ULL	/* bound on the timer latency compensation */
#define NS_PER_S 1000000000ULL
#define READ_INTERVAL_NS 1000000ULL	/* read arrivals at least every 1 ms while holding */

/* What the link does to each frame; replaced as a whole on SIGHUP. */
struct emu_params {
	uint64_t delay_ns;
	uint64_t jitter_ns;
	double loss_pct;
	uint64_t loss_threshold;	/* a frame is lost when a 64-bit draw is below this */
};

/* One held frame. The queue is a singly linked FIFO: memory follows what is in flight. */
struct held_frame {
	struct held_frame *next;
	uint64_t arrival_ns;		/* CLOCK_MONOTONIC */
	uint64_t due_ns;		/* CLOCK_MONOTONIC */
	uint32_t len;			/* bytes, the virtio_net_hdr in front included */
	uint8_t data[];
};

struct emu_stats {
	uint64_t rx, rx_bytes, tx, tx_bytes;
	uint64_t lost;			/* emulated random loss */
	uint64_t queue_drop;		/* queue over --limit-bytes */
	uint64_t truncated;		/* frames larger than RX_BUF_SIZE */
	uint64_t tx_err;
	uint64_t queue_max_bytes;
	uint64_t held_sum_ns, held_min_ns, held_max_ns;	/* departure - arrival */
	int64_t err_sum_ns;		/* departure - due, signed */
	uint64_t err[ERR_BINS + 1];	/* |departure - due| */
	uint64_t err_max_ns;
};

struct emu {
	const char *in_name, *out_name, *config_path;
	int rx_fd, tx_fd, sig_fd;
	struct emu_params p;
	uint64_t slack_ns;		/* frames due this soon leave with the current batch */
	uint64_t wake_ahead_ns;		/* mean timer latency: wake-ups are asked this early */
	uint64_t limit_bytes;
	uint64_t rng[4];		/* xoshiro256** state */
	struct held_frame *head, *tail;
	uint64_t queued_bytes, queued;
	uint64_t last_due_ns;
	struct emu_stats st;
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t
real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number generators", 2018),
 * seeded with splitmix64 as its authors recommend. */
static uint64_t
rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(uint64_t s[4])
{
	uint64_t r = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return r;
}

static void
rng_seed(uint64_t s[4], uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		s[i] = z ^ (z >> 31);
	}
}

/* A uniform draw in [0, n) for n > 0 (Lemire's multiply-shift; the bias is below 2^-32 for
 * the microsecond ranges used here). */
static uint64_t
rng_below(uint64_t s[4], uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static int
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_pct(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0.0 && v <= 100.0))
		return -EINVAL;
	*out = v;
	return 0;
}

static void
params_finish(struct emu_params *p)
{
	if (p->loss_pct >= 100.0)
		p->loss_threshold = UINT64_MAX;
	else
		p->loss_threshold = (uint64_t)(p->loss_pct / 100.0 * 18446744073709551616.0);
}

/* Read `key = value` lines into *p (keys not given keep their value). Blank lines and lines
 * starting with '#' or ';' are ignored. Returns 0, or -errno with one line on stderr naming
 * the file, line and value. */
static int
params_load(const char *path, struct emu_params *p)
{
	struct emu_params n = *p;
	char line[256];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (f == NULL) {
		rc = -errno;
		fprintf(stderr, "linkemu: %s: %s\n", path, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *key = line, *val, *e;
		uint64_t us;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		while (*key == ' ' || *key == '\t')
			key++;
		if (*key == '\0' || *key == '#' || *key == ';')
			continue;
		val = strchr(key, '=');
		if (val == NULL) {
			fprintf(stderr, "linkemu: %s:%u: expected 'key = value'\n", path, lineno);
			rc = -EINVAL;
			break;
		}
		for (e = val; e > key && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		for (val++; *val == ' ' || *val == '\t'; val++)
			;
		for (e = val + strlen(val); e > val && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		if (strcmp(key, "delay_us") == 0 && parse_u64(val, 60000000, &us) == 0) {
			n.delay_ns = us * 1000;
		} else if (strcmp(key, "jitter_us") == 0 && parse_u64(val, 60000000, &us) == 0) {
			n.jitter_ns = us * 1000;
		} else if (strcmp(key, "loss_pct") == 0 && parse_pct(val, &n.loss_pct) == 0) {
			;
		} else {
			fprintf(stderr, "linkemu: %s:%u: bad %s '%s' (delay_us and jitter_us: "
				"whole microseconds up to 60 s; loss_pct: 0..100)\n",
				path, lineno, key, val);
			rc = -EINVAL;
			break;
		}
	}
	fclose(f);
	if (rc == 0) {
		params_finish(&n);
		*p = n;
	}
	return rc;
}

static int
open_port(const char *name, bool rx)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	unsigned int ifindex = if_nametoindex(name);
	int fd, one = 1;

	if (ifindex == 0) {
		fprintf(stderr, "linkemu: no interface '%s': %s\n", name, strerror(errno));
		return -1;
	}
	/* Protocol 0 until bound, so that nothing from other interfaces is queued first. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "linkemu: AF_PACKET socket: %s\n", strerror(errno));
		return -1;
	}
	sll.sll_ifindex = (int)ifindex;
	/*
	 * Both sockets carry a virtio_net_hdr in front of each frame, passed through unchanged:
	 * a frame whose checksum the sending kernel left to offload (CHECKSUM_PARTIAL, e.g. TCP
	 * from a veth's own stack) leaves the delay line in the same state, as it would have
	 * crossed the veth pair directly, instead of with a checksum nobody completes.
	 */
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
		fprintf(stderr, "linkemu: %s: PACKET_VNET_HDR: %s\n", name, strerror(errno));
		goto fail;
	}
	if (rx) {
		int sz = RX_SOCKBUF;

		sll.sll_protocol = htons(ETH_P_ALL);
		/* Kernel receive timestamps: the delay counts from the frame's arrival, not from
		 * when this process got round to reading it. */
		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
		    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0) {
			fprintf(stderr, "linkemu: %s: socket options: %s\n", name, strerror(errno));
			goto fail;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	} else {
		/* Straight to the veth: the shaper sits before the delay line, not after. */
		if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
			fprintf(stderr, "linkemu: %s: PACKET_QDISC_BYPASS: %s\n", name,
				strerror(errno));
			goto fail;
		}
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "linkemu: bind to %s: %s\n", name, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

static void
stats_print(const struct emu *e, FILE *f)
{
	const struct emu_stats *s = &e->st;
	uint64_t n = 0, p50 = 0, p99 = 0, seen = 0;
	bool have50 = false, have99 = false;

	for (int i = 0; i <= ERR_BINS; i++)
		n += s->err[i];
	for (int i = 0; i <= ERR_BINS && n > 0; i++) {
		seen += s->err[i];
		if (!have50 && seen * 2 >= n) {
			p50 = (uint64_t)(i + 1) * ERR_BIN_NS;
			have50 = true;
		}
		if (!have99 && seen * 100 >= n * 99) {
			p99 = (uint64_t)(i + 1) * ERR_BIN_NS;
			have99 = true;
		}
	}
	fprintf(f, "linkemu %s->%s: rx %" PRIu64 " (%" PRIu64 " bytes) tx %" PRIu64 " (%" PRIu64
		" bytes) lost %" PRIu64 " queue_drop %" PRIu64 " truncated %" PRIu64 " tx_err %"
		PRIu64 " queued %" PRIu64 " queue_max_bytes %" PRIu64 "; set delay_us %" PRIu64
		" jitter_us %" PRIu64 " loss_pct %g; held_us mean %.1f min %.1f max %.1f;"
		" departure_error_us mean %+.1f |p50|<=%" PRIu64 " |p99|<=%" PRIu64 " |max| %.1f;"
		" wake_ahead_us %.1f\n",
		e->in_name, e->out_name, s->rx, s->rx_bytes, s->tx, s->tx_bytes, s->lost,
		s->queue_drop, s->truncated, s->tx_err, e->queued, s->queue_max_bytes,
		e->p.delay_ns / 1000, e->p.jitter_ns / 1000, e->p.loss_pct,
		s->tx ? (double)s->held_sum_ns / (double)s->tx / 1e3 : 0.0,
		s->tx ? (double)s->held_min_ns / 1e3 : 0.0, (double)s->held_max_ns / 1e3,
		s->tx ? (double)s->err_sum_ns / (double)s->tx / 1e3 : 0.0, p50 / 1000, p99 / 1000,
		(double)s->err_max_ns / 1e3, (double)e->wake_ahead_ns / 1e3);
	fflush(f);
}

/* Departure time of a frame that arrived at @p arrival_ns (CLOCK_MONOTONIC). */
static uint64_t
due_time(struct emu *e, uint64_t arrival_ns)
{
	uint64_t due = arrival_ns + e->p.delay_ns;

	if (e->p.jitter_ns > 0) {
		uint64_t draw = rng_below(e->rng, 2 * e->p.jitter_ns + 1);

		if (draw >= e->p.jitter_ns)
			due += draw - e->p.jitter_ns;
		else if (e->p.jitter_ns - draw < e->p.delay_ns)
			due -= e->p.jitter_ns - draw;
		else
			due = arrival_ns;
	}
	/* FIFO: never ahead of the frame in front. */
	if (due < e->last_due_ns)
		due = e->last_due_ns;
	e->last_due_ns = due;
	return due;
}

static void
enqueue(struct emu *e, const uint8_t *data, uint32_t len, uint64_t arrival_ns)
{
	struct held_frame *h;

	e->st.rx++;
	e->st.rx_bytes += len - VNET_HDR_LEN;
	if (e->p.loss_threshold != 0 && rng_next(e->rng) < e->p.loss_threshold) {
		e->st.lost++;
		return;
	}
	if (e->queued_bytes + len > e->limit_bytes) {
		e->st.queue_drop++;
		return;
	}
	h = malloc(sizeof(*h) + len);
	if (h == NULL) {
		e->st.queue_drop++;
		return;
	}
	memcpy(h->data, data, len);
	h->len = len;
	h->arrival_ns = arrival_ns;
	h->due_ns = due_time(e, arrival_ns);
	h->next = NULL;
	if (e->tail != NULL)
		e->tail->next = h;
	else
		e->head = h;
	e->tail = h;
	e->queued++;
	e->queued_bytes += len;
	if (e->queued_bytes > e->st.queue_max_bytes)
		e->st.queue_max_bytes = e->queued_bytes;
}

/* Read everything waiting on the input socket. Returns 0 or -errno. */
static int
receive(struct emu *e, uint8_t (*buf)[RX_BUF_SIZE])
{
	static union {
		char b[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl[BURST];
	struct mmsghdr msg[BURST];
	struct iovec iov[BURST];

	for (;;) {
		uint64_t mono, off;
		int n;

		for (int i = 0; i < BURST; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = RX_BUF_SIZE;
			memset(&msg[i], 0, sizeof(msg[i]));
			msg[i].msg_hdr.msg_iov = &iov[i];
			msg[i].msg_hdr.msg_iovlen = 1;
			msg[i].msg_hdr.msg_control = ctl[i].b;
			msg[i].msg_hdr.msg_controllen = sizeof(ctl[i].b);
		}
		n = recvmmsg(e->rx_fd, msg, BURST, MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -errno;
		}
		/* Kernel stamps are CLOCK_REALTIME; the queue runs on CLOCK_MONOTONIC. */
		mono = mono_ns();
		off = real_ns() - mono;
		for (int i = 0; i < n; i++) {
			struct msghdr *h = &msg[i].msg_hdr;
			uint64_t arrival = mono;
			struct cmsghdr *c;

			for (c = CMSG_FIRSTHDR(h); c != NULL; c = CMSG_NXTHDR(h, c)) {
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
					struct timespec ts;
					uint64_t real;

					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
					real = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
					if (real > off && real - off <= mono)
						arrival = real - off;
				}
			}
			if (msg[i].msg_len > RX_BUF_SIZE || msg[i].msg_len < VNET_HDR_LEN ||
			    (h->msg_flags & MSG_TRUNC)) {
				e->st.truncated++;
				continue;
			}
			enqueue(e, buf[i], msg[i].msg_len, arrival);
		}
		if (n < BURST)
			return 0;
	}
}

static void
account_departure(struct emu *e, const struct held_frame *h, uint64_t now)
{
	uint64_t held = now - h->arrival_ns;
	uint64_t err = now > h->due_ns ? now - h->due_ns : h->due_ns - now;
	uint64_t bin = err / ERR_BIN_NS;

	e->st.held_sum_ns += held;
	if (e->st.tx == 1 || held < e->st.held_min_ns)
		e->st.held_min_ns = held;
	if (held > e->st.held_max_ns)
		e->st.held_max_ns = held;
	e->st.err_sum_ns += (int64_t)now - (int64_t)h->due_ns;
	e->st.err[bin < ERR_BINS ? bin : ERR_BINS]++;
	if (err > e->st.err_max_ns)
		e->st.err_max_ns = err;
}

/*
 * Send every frame due by @p now + window, oldest first. The window is the larger of the slack
 * and the timer latency compensation: a wake-up asked wake_ahead early that came on time
 * sends the head at its due time, one that came early sends it that much early, so the
 * departure error is centred on zero instead of trailing by the timer latency.
 */
static void
transmit_due(struct emu *e, uint64_t now)
{
	uint64_t window = e->slack_ns > e->wake_ahead_ns ? e->slack_ns : e->wake_ahead_ns;
	struct mmsghdr msg[BURST];
	struct iovec iov[BURST];
	struct held_frame *batch[BURST];

	while (e->head != NULL && e->head->due_ns <= now + window) {
		int n = 0, sent;

		for (struct held_frame *h = e->head;
		     h != NULL && n < BURST && h->due_ns <= now + window; h = h->next) {
			iov[n].iov_base = h->data;
			iov[n].iov_len = h->len;
			memset(&msg[n], 0, sizeof(msg[n]));
			msg[n].msg_hdr.msg_iov = &iov[n];
			msg[n].msg_hdr.msg_iovlen = 1;
			batch[n++] = h;
		}
		/* The departure time is when the frame is handed to the kernel: a send can also
		 * run the receiving side's softirq work before it returns. */
		now = mono_ns();
		sent = sendmmsg(e->tx_fd, msg, (unsigned int)n, 0);
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent <= 0) {
			/* The frame at the head cannot be sent (too big for the veth, no
			 * buffer): drop it rather than stall the link. */
			sent = 0;
			e->st.tx_err++;
			n = 1;
		}
		for (int i = 0; i < n; i++) {
			struct held_frame *h = batch[i];

			if (i < sent) {
				e->st.tx++;
				e->st.tx_bytes += h->len - VNET_HDR_LEN;
				account_departure(e, h, now);
			} else if (sent > 0) {
				break;	/* partial batch: the rest stays queued, retried next round */
			}
			e->head = h->next;
			if (e->head == NULL)
				e->tail = NULL;
			e->queued--;
			e->queued_bytes -= h->len;
			free(h);
		}
		now = mono_ns();
	}
}

/* Returns true to keep running. */
static bool
handle_signals(struct emu *e)
{
	struct signalfd_siginfo si;
	bool run = true;

	while (read(e->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			if (e->config_path != NULL && params_load(e->config_path, &e->p) == 0)
				fprintf(stdout, "linkemu %s->%s: reloaded %s\n", e->in_name,
					e->out_name, e->config_path);
			fflush(stdout);
			break;
		case SIGUSR1:
			stats_print(e, stdout);
			break;
		case SIGUSR2:
			/* A fresh measurement window: counters and histograms from zero. */
			memset(&e->st, 0, sizeof(e->st));
			e->st.queue_max_bytes = e->queued_bytes;
			fprintf(stdout, "linkemu %s->%s: statistics reset\n", e->in_name,
				e->out_name);
			fflush(stdout);
			break;
		default:
			run = false;
			break;
		}
	}
	return run;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: linkemu --in IFACE --out IFACE [--delay-us N] [--jitter-us N] "
		"[--loss PCT]\n"
		"               [--seed N] [--config FILE] [--limit-bytes N] [--slack-us N] "
		"[--rt PRIO]\n"
		"Holds each frame read on IFACE --in for delay +- jitter (FIFO kept), drops PCT %%\n"
		"at random, writes the rest to --out. SIGHUP re-reads --config (delay_us, "
		"jitter_us,\nloss_pct), SIGUSR1 prints statistics, SIGUSR2 resets them, SIGTERM exits.\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "jitter-us", required_argument, NULL, 'j' },
		{ "loss", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "limit-bytes", required_argument, NULL, 'b' },
		{ "slack-us", required_argument, NULL, 'k' },
		{ "rt", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint8_t rxbuf[BURST][RX_BUF_SIZE];
	struct emu e = {
		.rx_fd = -1, .tx_fd = -1, .sig_fd = -1,
		.slack_ns = 20000,
		.limit_bytes = 64ULL << 20,
	};
	uint64_t seed = 0, v, rt_prio = 0;
	bool have_seed = false;
	sigset_t sigs;
	int opt, err, rc = 1;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			e.in_name = optarg;
			break;
		case 'o':
			e.out_name = optarg;
			break;
		case 'd':
		case 'j':
			if (parse_u64(optarg, 60000000, &v) < 0) {
				fprintf(stderr, "linkemu: bad --%s '%s' (whole microseconds, "
					"at most 60 s)\n", opt == 'd' ? "delay-us" : "jitter-us",
					optarg);
				return 2;
			}
			*(opt == 'd' ? &e.p.delay_ns : &e.p.jitter_ns) = v * 1000;
			break;
		case 'l':
			if (parse_pct(optarg, &e.p.loss_pct) < 0) {
				fprintf(stderr, "linkemu: bad --loss '%s' (percent, 0..100)\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_u64(optarg, UINT64_MAX, &seed) < 0) {
				fprintf(stderr, "linkemu: bad --seed '%s'\n", optarg);
				return 2;
			}
			have_seed = true;
			break;
		case 'c':
			e.config_path = optarg;
			break;
		case 'b':
			if (parse_u64(optarg, UINT64_MAX, &e.limit_bytes) < 0 ||
			    e.limit_bytes < RX_BUF_SIZE) {
				fprintf(stderr, "linkemu: bad --limit-bytes '%s' (at least %d)\n",
					optarg, RX_BUF_SIZE);
				return 2;
			}
			break;
		case 'k':
			if (parse_u64(optarg, 1000, &v) < 0) {
				fprintf(stderr, "linkemu: bad --slack-us '%s' (0..1000)\n", optarg);
				return 2;
			}
			e.slack_ns = v * 1000;
			break;
		case 'r':
			if (parse_u64(optarg, 99, &rt_prio) < 0 || rt_prio == 0) {
				fprintf(stderr, "linkemu: bad --rt '%s' (SCHED_FIFO priority "
					"1..99)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || e.in_name == NULL || e.out_name == NULL) {
		usage(stderr);
		return 2;
	}
	params_finish(&e.p);
	if (e.config_path != NULL && params_load(e.config_path, &e.p) < 0)
		return 2;
	if (!have_seed && getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = mono_ns();
	rng_seed(e.rng, seed);

	/* Wake-ups on time: no timer slack, and above the busy processes of the testbed
	 * (seqbond's lcores, iperf3) when asked. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (rt_prio > 0) {
		struct sched_param sp = { .sched_priority = (int)rt_prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "linkemu: warning: SCHED_FIFO %" PRIu64 ": %s\n", rt_prio,
				strerror(errno));
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0 ||
	    (e.sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		fprintf(stderr, "linkemu: signalfd: %s\n", strerror(errno));
		return 1;
	}
	e.rx_fd = open_port(e.in_name, true);
	e.tx_fd = open_port(e.out_name, false);
	if (e.rx_fd < 0 || e.tx_fd < 0)
		goto out;
	fprintf(stdout, "linkemu %s->%s: running, delay_us %" PRIu64 " jitter_us %" PRIu64
		" loss_pct %g\n", e.in_name, e.out_name, e.p.delay_ns / 1000,
		e.p.jitter_ns / 1000, e.p.loss_pct);
	fflush(stdout);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = e.sig_fd, .events = POLLIN },
			{ .fd = e.rx_fd, .events = POLLIN },
		};
		struct timespec ts, *tmo = NULL;
		nfds_t nfds = 2;
		uint64_t now, woke, wait = 0;
		int ready;

		transmit_due(&e, mono_ns());
		now = mono_ns();
		/*
		 * With frames held, nothing that arrives now can leave before the head (FIFO),
		 * so sleep until the head is due and read the arrivals then, with their kernel
		 * timestamps: one wake-up per departure instead of one per arrival as well.
		 * Read at least every READ_INTERVAL_NS so that a long delay does not leave the
		 * arrivals piling up in the socket. With the queue empty, wake on the next
		 * arrival.
		 */
		if (e.head != NULL) {
			uint64_t wake = e.head->due_ns - e.wake_ahead_ns;

			wait = wake > now ? wake - now : 0;
			if (wait > READ_INTERVAL_NS)
				wait = READ_INTERVAL_NS;
			ts.tv_sec = (time_t)(wait / NS_PER_S);
			ts.tv_nsec = (long)(wait % NS_PER_S);
			tmo = &ts;
			nfds = 1;
		}
		ready = ppoll(pfd, nfds, tmo, NULL);
		if (ready < 0 && errno != EINTR) {
			fprintf(stderr, "linkemu: ppoll: %s\n", strerror(errno));
			goto out;
		}
		woke = mono_ns();
		if (ready == 0 && wait > 0) {
			/* Timer latency: how much later than asked the wake-up came (EWMA, 1/16). */
			uint64_t late = woke - now > wait ? woke - now - wait : 0;

			if (late > WAKE_AHEAD_MAX_NS)
				late = WAKE_AHEAD_MAX_NS;
			e.wake_ahead_ns = (e.wake_ahead_ns * 15 + late) / 16;
		}
		if ((pfd[0].revents & POLLIN) && !handle_signals(&e)) {
			rc = 0;
			goto out;
		}
		/* Departures first: new arrivals cannot be due before the frames held. */
		transmit_due(&e, woke);
		err = receive(&e, rxbuf);
		if (err < 0) {
			fprintf(stderr, "linkemu: receive on %s: %s\n", e.in_name, strerror(-err));
			goto out;
		}
	}
out:
	stats_print(&e, stdout);
	while (e.head != NULL) {
		struct held_frame *h = e.head;

		e.head = h->next;
		free(h);
	}
	if (e.rx_fd >= 0)
		close(e.rx_fd);
	if (e.tx_fd >= 0)
		close(e.tx_fd);
	close(e.sig_fd);
	return rc;
}
