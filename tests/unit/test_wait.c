/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wait set (drivers_glue/sb_wait.c) with pipes standing for the sources: every source
 * ends a sleep at once and is reported by its class; a source left unread keeps ending
 * sleeps (level-triggered); the timeout ends a sleep with nothing to read; a kick from
 * another thread ends a sleep, and a kick outside prepare..sleep costs the next sleep
 * nothing, while one between prepare and sleep is not lost. No EAL, no ports.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "sb_test.h"
#include "sb_wait.h"

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Sleep up to @p timeout_ms; @return the classes that ended it, *@p took_us how long. */
static int
timed_sleep(struct sb_wait *ws, unsigned int timeout_ms, uint64_t *took_us)
{
	uint64_t t0 = now_us();
	int woke;

	sb_wait_prepare(ws);
	woke = sb_wait_sleep(ws, (uint64_t)timeout_ms * 1000000);
	*took_us = now_us() - t0;
	return woke;
}

struct kicker {
	struct sb_wait *ws;
	unsigned int delay_us;
};

static void *
kick_later(void *arg)
{
	struct kicker *k = arg;

	usleep(k->delay_us);
	sb_wait_kick(k->ws);
	return NULL;
}

int
main(void)
{
	struct sb_wait *ws = sb_wait_create();
	int port[2], kern[2];
	uint64_t took;
	char c = 'x';
	int woke;

	SB_CHECK(ws != NULL, "sb_wait_create");
	if (ws == NULL)
		return sb_test_summary("test_wait");
	SB_CHECK(pipe(port) == 0 && pipe(kern) == 0, "pipes");
	SB_CHECK(sb_wait_add_fd(ws, port[0], SB_WAIT_PORT) == 0, "add port");
	SB_CHECK(sb_wait_add_fd(ws, kern[0], SB_WAIT_KERNEL) == 0, "add kernel");
	SB_CHECK(sb_wait_add_fd(ws, kern[0], SB_WAIT_KERNEL) < 0, "a descriptor added twice");
	SB_CHECK(sb_wait_sources(ws) == 2, "%u sources", sb_wait_sources(ws));

	/* Nothing to read: the timer ends it, not much early. */
	woke = timed_sleep(ws, 20, &took);
	SB_CHECK(woke == 0, "timer: woke by %d", woke);
	SB_CHECK(took >= 19000, "timer: slept %llu us of 20 000", (unsigned long long)took);

	/* Each source ends a sleep at once and names its class. */
	SB_CHECK(write(port[1], &c, 1) == 1, "write port");
	woke = timed_sleep(ws, 2000, &took);
	SB_CHECK(woke == SB_WAIT_PORT, "port: woke by %d", woke);
	SB_CHECK(took < 500000, "port: took %llu us", (unsigned long long)took);
	/* Unread, it ends the next sleep too (level-triggered: nothing is lost). */
	woke = timed_sleep(ws, 2000, &took);
	SB_CHECK(woke == SB_WAIT_PORT, "port again: woke by %d", woke);
	SB_CHECK(read(port[0], &c, 1) == 1, "read port");

	SB_CHECK(write(kern[1], &c, 1) == 1, "write kernel");
	woke = timed_sleep(ws, 2000, &took);
	SB_CHECK(woke == SB_WAIT_KERNEL, "kernel: woke by %d", woke);
	SB_CHECK(read(kern[0], &c, 1) == 1, "read kernel");

	/* A kick from another thread while asleep. */
	{
		struct kicker k = { .ws = ws, .delay_us = 20000 };
		pthread_t t;

		SB_CHECK(pthread_create(&t, NULL, kick_later, &k) == 0, "thread");
		woke = timed_sleep(ws, 5000, &took);
		pthread_join(t, NULL);
		SB_CHECK(woke == SB_WAIT_KICK, "kick: woke by %d", woke);
		SB_CHECK(took < 2000000, "kick: took %llu us", (unsigned long long)took);
	}

	/* A kick while the owner is awake writes nothing: the next sleep runs its course. */
	sb_wait_kick(ws);
	woke = timed_sleep(ws, 20, &took);
	SB_CHECK(woke == 0, "kick while awake: next sleep woke by %d", woke);

	/* A kick between prepare and sleep (the owner found its rings empty, then a producer
	 * enqueued) is not lost: the sleep ends at once. */
	sb_wait_prepare(ws);
	sb_wait_kick(ws);
	took = now_us();
	woke = sb_wait_sleep(ws, 2000000000ULL);
	took = now_us() - took;
	SB_CHECK(woke == SB_WAIT_KICK, "kick before sleep: woke by %d", woke);
	SB_CHECK(took < 500000, "kick before sleep: took %llu us", (unsigned long long)took);

	/* Cancelled: a later kick does not end the next sleep. */
	sb_wait_prepare(ws);
	sb_wait_cancel(ws);
	sb_wait_kick(ws);
	woke = timed_sleep(ws, 20, &took);
	SB_CHECK(woke == 0, "after cancel: woke by %d", woke);

	sb_wait_free(ws);
	close(port[0]);
	close(port[1]);
	close(kern[0]);
	close(kern[1]);
	return sb_test_summary("test_wait");
}
