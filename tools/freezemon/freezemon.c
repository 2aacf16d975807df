/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * freezemon: logs the moments this machine did not run one of its CPUs, for the test runner
 * (tools/run-tests) and the timing-sensitive integration tests (docs/testing.md, "Machine
 * freezes").
 *
 *   freezemon [--out FILE] [--period-us N] [--min-ms N] [--prio N]
 *
 * One thread per online CPU, pinned to it and run SCHED_FIFO at --prio (default 90: above
 * every other thread the tests start, linkemu's included), sleeps --period-us (default 2000)
 * on an absolute CLOCK_MONOTONIC deadline. A real-time thread that is due preempts whatever
 * runs on its CPU within microseconds, so a wake-up late by --min-ms (default 20) or more
 * means the CPU ran nothing of this machine's for that long: the hypervisor descheduled the
 * virtual CPU (on the shared test VM: about 100 ms, every task on that CPU waiting at once,
 * seen with perf sched). Each such wake-up appends one line to FILE (default stdout):
 *
 *   freeze cpu <N> start <wall-clock s> ms <length>
 *
 * start is the wall-clock time (CLOCK_REALTIME, seconds) the thread was due, length how late
 * it woke, in ms. Lines are written with one write(2) each to a file opened O_APPEND, so the
 * threads' lines never interleave. SIGTERM and SIGINT end it (exit 0).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CPU_SET, pthread_setaffinity_np */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL

static int out_fd = STDOUT_FILENO;
static long period_ns = 2000000;	/* ns between wake-ups */
static long min_late_ns = 20000000;	/* ns late that counts as a freeze */
static int rt_prio = 90;

static int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void *
watch_cpu(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	struct sched_param sp = { .sched_priority = rt_prio };
	cpu_set_t set;
	int64_t due, now, late;
	struct timespec ts;
	char line[128];
	int n, rc;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc != 0)
		fprintf(stderr, "freezemon: cpu %d: cannot pin: %s\n", cpu, strerror(rc));
	/* Without real-time priority a late wake-up may only mean a busy CPU: say so. */
	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (rc != 0)
		fprintf(stderr, "freezemon: cpu %d: no SCHED_FIFO %d (%s): busy CPUs will look "
			"frozen\n", cpu, rt_prio, strerror(rc));

	due = clock_ns(CLOCK_MONOTONIC) + period_ns;
	for (;;) {
		ts.tv_sec = due / NS_PER_S;
		ts.tv_nsec = due % NS_PER_S;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = clock_ns(CLOCK_MONOTONIC);
		late = now - due;
		if (late >= min_late_ns) {
			/* wall-clock time it was due: now (real time) minus how late */
			int64_t start = clock_ns(CLOCK_REALTIME) - late;

			n = snprintf(line, sizeof(line), "freeze cpu %d start %lld.%06lld ms %.1f\n",
				     cpu, (long long)(start / NS_PER_S),
				     (long long)(start % NS_PER_S / 1000), late / 1e6);
			if (write(out_fd, line, (size_t)n) != n)
				fprintf(stderr, "freezemon: write: %s\n", strerror(errno));
		}
		due = now + period_ns;
	}
	return NULL;
}

static void
usage(void)
{
	fprintf(stderr, "usage: freezemon [--out FILE] [--period-us N] [--min-ms N] [--prio N]\n");
	exit(2);
}

static long
parse_num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "freezemon: %s: '%s' is not a number from %ld to %ld\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "period-us", required_argument, NULL, 'p' },
		{ "min-ms", required_argument, NULL, 'm' },
		{ "prio", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu;
	sigset_t sigs;
	int c, sig;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_fd = open(optarg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (out_fd < 0) {
				fprintf(stderr, "freezemon: %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		case 'p':
			period_ns = parse_num("--period-us", optarg, 100, 1000000) * 1000;
			break;
		case 'm':
			min_late_ns = parse_num("--min-ms", optarg, 1, 10000) * 1000000;
			break;
		case 'r':
			rt_prio = (int)parse_num("--prio", optarg, 1, 99);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	/* Only the main thread takes the signals that end the program. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	for (long i = 0; i < ncpu; i++) {
		pthread_t t;
		int rc = pthread_create(&t, NULL, watch_cpu, (void *)(intptr_t)i);

		if (rc != 0) {
			fprintf(stderr, "freezemon: thread for cpu %ld: %s\n", i, strerror(rc));
			return 1;
		}
		pthread_detach(t);
	}
	sigwait(&sigs, &sig);
	return 0;
}
