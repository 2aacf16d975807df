/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer table: two (or more) tables exchange real hellos (built by sb_peer_hello_entries(),
 * encoded and decoded by lib/wire) over an emulated network whose faults the test sets:
 * three-way liveness, one-way failures seen at both ends, path MTU probes, per-path loss,
 * restarts, carrier loss, partial hellos, lookups, refusals.
 */
#include <errno.h>
#include <string.h>

#include "sb_peer.h"
#include "sb_test.h"

#define HZ 1000000ULL		/* clock units: microseconds */
#define MS 1000ULL
#define INTERVAL 10		/* hello interval, ms */
#define MULT 4
#define PROBE_MS 200
#define MTU 1500
#define N_PORTS 2

struct host {
	uint32_t id;
	uint32_t instance;
	struct sb_peer_table t;
	uint32_t hello_seq[N_PORTS];
	unsigned int cursor[N_PORTS];
	unsigned int max_entries;	/* per hello; small to force partial hellos */
	bool brief;			/* hellos other than probes carry brief entries */
	/* DATA counts, kept as the datapath keeps them (resynced when a path goes down) */
	struct sb_path_data data[SB_MAX_PEERS][SB_PEER_MAX_PATHS];
	/* DATA frames sent, per peer and path (sb_peer_conf.frames_tx, when set) */
	uint32_t sent[SB_MAX_PEERS][SB_PEER_MAX_PATHS];
	/* event log */
	struct sb_peer_event ev[4096];
	uint64_t ev_time[4096];
	unsigned int n_ev;
	uint64_t now;
};

/* Emulated faults, per direction and port: drop everything, or frames above a size. */
struct net {
	bool drop[3][3][N_PORTS];	/* [from host][to host][port] */
	uint32_t max_len[3][3][N_PORTS];	/* 0: no limit */
};

static struct host hosts[3];
static struct net net;

static void
on_event(void *arg, const struct sb_peer_event *ev)
{
	struct host *h = arg;

	if (ev->type == SB_PEER_EV_PATH_DOWN)
		sb_path_data_resync(&h->data[ev->peer][ev->path]);
	if (ev->type == SB_PEER_EV_RESTART)
		memset(h->data[ev->peer], 0, sizeof(h->data[ev->peer]));

	if (h->n_ev < sizeof(h->ev) / sizeof(h->ev[0])) {
		h->ev[h->n_ev] = *ev;
		h->ev_time[h->n_ev] = h->now;
		h->n_ev++;
	}
}

static void
data_rx(void *arg, unsigned int peer, unsigned int path, struct sb_path_data *out)
{
	const struct host *h = arg;

	*out = h->data[peer][path];
}

static uint32_t
frames_tx(void *arg, unsigned int peer, unsigned int path)
{
	const struct host *h = arg;

	/* DATA, and the group hellos of the path's port, as the peer counts both. */
	return h->sent[peer][path] + h->hello_seq[h->t.peer[peer].path[path].local_port];
}

static void
host_init(struct host *h, uint32_t id)
{
	struct sb_peer_conf c = {
		.host_id = id, .hz = HZ, .loss_max_ppm = 50000, .loss_window_ms = 1000,
		.loss_min_frames = 50, .probe_dead_mult = 3, .probes_sent = true,
		.on_event = on_event, .event_arg = h, .data_rx = data_rx,
	};

	memset(h, 0, sizeof(*h));
	h->id = id;
	h->instance = 100 + id;
	h->max_entries = 32;
	SB_CHECK(sb_peer_table_init(&h->t, &c) == 0, "init host %u", id);
}

static void
port_mac(uint8_t *mac, uint32_t host, unsigned int port)
{
	const uint8_t m[6] = { 0x02, 0xaa, 0, 0, (uint8_t)host, (uint8_t)port };

	memcpy(mac, m, 6);
}

/* Host @p from sends one hello on @p port (a probe when @p probe), heard by every other
 * host's same port unless the network drops it. */
static void
send_hello(unsigned int from, unsigned int port, bool probe)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	struct host *s = &hosts[from];
	struct sb_hello_entry entries[64];
	struct sb_hello h = {
		.host_id = s->id, .instance = s->instance,
		.agg_mac = { 0x02, 0x53, 0x42, 0, 0, (uint8_t)s->id },
		.port_index = port, .n_ports = N_PORTS, .rate_kbps = 100000,
		.interval_ms = INTERVAL, .mtu = MTU, .multiplier = MULT,
		.probe_interval_ms = PROBE_MS, .hello_seq = s->hello_seq[port]++,
		.tx_time_us = sb_peer_clock_us(&s->t, s->now),
	};
	uint8_t buf[2048], mac[6];
	struct sb_hello d;
	bool partial;
	size_t len;
	unsigned int to;

	h.n_entries = sb_peer_hello_entries(&s->t, port, s->now, false, entries, s->max_entries,
		&s->cursor[port], &partial, s->brief && !probe);
	if (s->brief && !probe)
		h.flags |= SB_HELLO_F_BRIEF;
	if (partial)
		h.flags |= SB_HELLO_F_PARTIAL;
	if (probe)
		h.flags |= SB_HELLO_F_PROBE;
	port_mac(mac, s->id, port);
	len = sb_wire_put_hello(buf, sizeof(buf), group, mac, port, &h, entries,
		probe ? MTU + SB_ETH_HLEN : 0);
	SB_CHECK(len > 0, "hello encodes");
	SB_CHECK(sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &d) == SB_WIRE_OK,
		"hello decodes");
	for (to = 0; to < 3; to++) {
		if (to == from || hosts[to].id == 0 || net.drop[from][to][port] ||
				(net.max_len[from][to][port] != 0 &&
				 len > net.max_len[from][to][port]))
			continue;
		hosts[to].now = s->now;
		sb_peer_hello_rx(&hosts[to].t, port, mac, &d, len, MTU, s->now);
	}
}

/* Run every host for @p ms: hellos each INTERVAL, probes each PROBE_MS, ticks each ms. */
static uint64_t clock_now = 1000 * MS;	/* the clock never reads 0 in real life */

static void
run(unsigned int ms)
{
	uint64_t end = clock_now + ms * MS;
	unsigned int k, port;

	for (; clock_now < end; clock_now += MS) {
		for (k = 0; k < 3; k++) {
			if (hosts[k].id == 0)
				continue;
			hosts[k].now = clock_now;
			if ((clock_now / MS) % INTERVAL == k)
				for (port = 0; port < N_PORTS; port++)
					send_hello(k, port, (clock_now / MS) % PROBE_MS == k);
		}
		for (k = 0; k < 3; k++) {
			if (hosts[k].id == 0)
				continue;
			hosts[k].now = clock_now;
			sb_peer_tick(&hosts[k].t, clock_now);
		}
	}
}

/* Run until the millisecond after host a's hellos (a sends at 0 mod INTERVAL, b at 1):
 * the start of most timed cases. @return the clock then. */
static uint64_t
run_to_slot_1(void)
{
	while ((clock_now / MS) % INTERVAL != 1)
		run(1);
	return clock_now;
}

/* Time of the first event of @p type on path @p path of peer 0 at or after @p since, or 0. */
static uint64_t
event_at(const struct host *h, uint8_t type, uint8_t path, uint64_t since)
{
	unsigned int i;

	for (i = 0; i < h->n_ev; i++)
		if (h->ev[i].type == type && h->ev[i].path == path && h->ev_time[i] >= since)
			return h->ev_time[i];
	return 0;
}

static const struct sb_path *
path_of(const struct host *h, unsigned int local_port)
{
	const struct sb_peer *p = &h->t.peer[0];
	int pi = h->t.map.peer[0].path_of[local_port][local_port];

	return pi >= 0 ? &p->path[pi] : NULL;
}

/* Host a's lcore stalls for 38 ms just before b's hello: a neither ticks nor reads (b's
 * hellos wait in a's rings: here, dropped until a runs again, then the next ones arrive),
 * and it sent its own last hello just before. On its first tick after the stall a has heard nothing
 * for 48 ms, more than the detection time: without stall handling it declares both paths
 * silent; with it (conf.tick_stall) they stay up and the stall is counted. b hears a's
 * hellos 40 ms apart at worst, the detection time: it keeps its paths unless a tells it
 * otherwise. */
static uint64_t
stall_a(uint64_t tick_stall)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	uint64_t t0, end;
	unsigned int port;

	a->t.conf.tick_stall = tick_stall;
	run(200);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "stall: 2 paths up before");
	/* Align: a sends at ms = 0 (mod 10), b at 1: the stall starts at 1, b's hello then
	 * and the next three wait (dropped here); a's first tick after is at 39. */
	t0 = run_to_slot_1();
	for (port = 0; port < N_PORTS; port++)
		net.drop[1][0][port] = true;
	for (end = clock_now + 38 * MS; clock_now < end; clock_now += MS) {
		b->now = clock_now;
		if ((clock_now / MS) % INTERVAL == 1)
			for (port = 0; port < N_PORTS; port++)
				send_hello(1, port, false);
		sb_peer_tick(&b->t, clock_now);
	}
	for (port = 0; port < N_PORTS; port++)
		net.drop[1][0][port] = false;
	a->now = clock_now;
	sb_peer_tick(&a->t, clock_now);	/* a runs again: its tick before its rings are read */
	run(100);
	/* (Without stall handling b follows a's verdict: a's hellos stop listing it.) */
	if (tick_stall != 0)
		SB_CHECK(event_at(b, SB_PEER_EV_PATH_DOWN, 0, t0) == 0 &&
			event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0) == 0,
			"stall, handled: b keeps its paths");
	return event_at(a, SB_PEER_EV_PATH_DOWN, 0, t0);
}

static void
test_tick_stall(void)
{
	struct host *a = &hosts[0];
	uint64_t stalls = a->t.tick_stalls;

	/* The failure it prevents: without stall handling, a drops a path it has no news of. */
	SB_CHECK(stall_a(0) != 0, "stall, not handled: a declares path 0 down");
	SB_CHECK(a->t.tick_stalls == stalls, "stall, not handled: not counted");
	SB_CHECK(stall_a(5 * MS) == 0, "stall, handled: a keeps path 0 up");
	SB_CHECK(a->t.peer[0].n_up == 2, "stall, handled: 2 paths up after");
	SB_CHECK(a->t.tick_stalls == stalls + 1, "stall counted once: %llu",
		(unsigned long long)(a->t.tick_stalls - stalls));
	SB_CHECK(a->t.tick_stall_last >= 38 * MS && a->t.tick_stall_last <= 40 * MS,
		"stall length %llu us", (unsigned long long)a->t.tick_stall_last);
	a->t.conf.tick_stall = 0;
}

/* Run every host but @p k for @p ms: k neither sends, reads nor ticks (a frozen process;
 * what is sent to it meanwhile is dropped here), then k ticks once as it wakes. */
static void
run_frozen(unsigned int k, unsigned int ms)
{
	uint64_t end = clock_now + ms * MS;
	unsigned int j, port;

	for (j = 0; j < 3; j++)
		for (port = 0; port < N_PORTS; port++)
			net.drop[j][k][port] = true;
	for (; clock_now < end; clock_now += MS) {
		for (j = 0; j < 3; j++) {
			if (j == k || hosts[j].id == 0)
				continue;
			hosts[j].now = clock_now;
			if ((clock_now / MS) % INTERVAL == j)
				for (port = 0; port < N_PORTS; port++)
					send_hello(j, port, false);
			sb_peer_tick(&hosts[j].t, clock_now);
		}
	}
	for (j = 0; j < 3; j++)
		for (port = 0; port < N_PORTS; port++)
			net.drop[j][k][port] = false;
	hosts[k].now = clock_now;
	sb_peer_tick(&hosts[k].t, clock_now);
}

/* Count events of @p type at @p h since @p since. */
static unsigned int
events_since(const struct host *h, uint8_t type, uint64_t since)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->n_ev; i++)
		if (h->ev[i].type == type && h->ev_time[i] >= since)
			n++;
	return n;
}

/* A peer silent on every path at once (frozen) keeps its paths for conf.silence_hold; one
 * silent path among others heard is still down after the detection time. */
static void
test_silence_hold(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	uint64_t t0, tsil, tdown;
	const uint64_t hold = 200 * MS, dead = INTERVAL * MULT * MS;

	a->t.conf.tick_stall = 5 * MS;	/* a's own side of a freeze (test_tick_stall) */
	b->t.conf.silence_hold = hold;
	run(300);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "hold: 2 paths up before");

	/* a frozen 150 ms: b finds it silent on both paths after the detection time, keeps
	 * both paths, and hears it again with nothing lost. */
	t0 = run_to_slot_1();	/* just after a's hellos */
	run_frozen(0, 150);
	tsil = 0;
	if (events_since(b, SB_PEER_EV_SILENT, t0) == 1) {
		unsigned int i;

		for (i = 0; i < b->n_ev; i++)
			if (b->ev[i].type == SB_PEER_EV_SILENT && b->ev_time[i] >= t0)
				tsil = b->ev_time[i];
	}
	SB_CHECK(tsil != 0 && tsil - t0 <= dead + 2 * MS,
		"hold: b finds a silent once, %llu us after a's last hellos",
		(unsigned long long)(tsil - t0));
	SB_CHECK(b->t.peer[0].silent && b->t.peer[0].n_up == 2,
		"hold: both paths still up at b while a is frozen");
	run(50);
	SB_CHECK(events_since(b, SB_PEER_EV_PATH_DOWN, t0) == 0 &&
		events_since(a, SB_PEER_EV_PATH_DOWN, t0) == 0,
		"hold: a 150 ms freeze takes no path down at either end");
	SB_CHECK(events_since(b, SB_PEER_EV_HEARD, t0) == 1 && !b->t.peer[0].silent &&
		b->t.silence_heard == 1 && b->t.silence_holds == 1,
		"hold: a heard again within the hold, counted");

	/* Frozen 400 ms: longer than detection + hold, so its paths go down then, not before;
	 * back up once it runs again. */
	t0 = run_to_slot_1();
	run_frozen(0, 400);
	tdown = event_at(b, SB_PEER_EV_PATH_DOWN, 0, t0);
	/* a's last hellos went out 1 ms before t0. */
	SB_CHECK(tdown != 0 && tdown - (t0 - MS) > dead + hold &&
		tdown - (t0 - MS) <= dead + hold + 2 * MS,
		"hold: a frozen 400 ms: path 0 down at b %llu us after a's last hellos",
		(unsigned long long)(tdown - (t0 - MS)));
	SB_CHECK(event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0) == tdown, "hold: path 1 down with it");
	run(100);
	SB_CHECK(events_since(b, SB_PEER_EV_HEARD, t0) == 1 && b->t.silence_heard == 1 &&
		b->t.silence_holds == 2, "hold: heard again after the hold: not counted as ridden");
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "hold: both paths up again");

	/* One path silent while the other is heard: a path fault, down after the detection
	 * time as without a hold. */
	t0 = clock_now;
	net.drop[0][1][1] = true;
	run(100);
	tdown = event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0);
	SB_CHECK(tdown != 0 && tdown - t0 <= dead + INTERVAL * MS,
		"hold: one silent path down in %llu us", (unsigned long long)(tdown - t0));
	SB_CHECK(events_since(b, SB_PEER_EV_SILENT, t0) == 0, "hold: no peer silence then");
	net.drop[0][1][1] = false;
	run(100);

	/* Without a hold, the 150 ms freeze takes both paths down at b. */
	b->t.conf.silence_hold = 0;
	t0 = run_to_slot_1();
	run_frozen(0, 150);
	tdown = event_at(b, SB_PEER_EV_PATH_DOWN, 0, t0);
	SB_CHECK(tdown != 0 && tdown - t0 <= dead + 2 * MS,
		"no hold: path 0 down at b in %llu us", (unsigned long long)(tdown - t0));
	run(100);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "no hold: paths back up");
	a->t.conf.tick_stall = 0;
}

/* A peer that wakes from a freeze sends on every port at once, but its hellos reach us
 * spread out: a path whose hello comes a little later is held, not declared down; a path
 * that stays silent while the peer is heard again on the others goes down a detection time
 * after the peer was heard again. */
static void
test_resume_skew(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const uint64_t hold = 200 * MS, dead = INTERVAL * MULT * MS;
	uint64_t t0, twake, tdown;

	a->t.conf.tick_stall = 5 * MS;
	b->t.conf.silence_hold = hold;
	run(300);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "resume: 2 paths up before");

	/* a frozen 60 ms; once awake, its hellos on port 1 reach b 25 ms after those on port 0
	 * (more than an interval, less than the detection time). */
	t0 = run_to_slot_1();
	run_frozen(0, 60);
	net.drop[0][1][1] = true;
	run(25);
	net.drop[0][1][1] = false;
	run(100);
	SB_CHECK(events_since(b, SB_PEER_EV_PATH_DOWN, t0) == 0 &&
		events_since(a, SB_PEER_EV_PATH_DOWN, t0) == 0,
		"resume: a late path after a freeze stays up at both ends");
	SB_CHECK(b->t.peer[0].resumed > t0 && b->t.peer[0].resumed <= t0 + (60 + INTERVAL) * MS,
		"resume: b saw a heard again %llu us after the freeze began",
		(unsigned long long)(b->t.peer[0].resumed - t0));

	/* a's last hellos before a freeze reach b an interval apart (port 1's last round
	 * lost): still a silence of the whole peer, held, not a failed path. */
	t0 = run_to_slot_1();
	net.drop[0][1][1] = true;
	run(INTERVAL);
	net.drop[0][1][1] = false;
	run_frozen(0, 60);
	run(100);
	SB_CHECK(events_since(b, SB_PEER_EV_PATH_DOWN, t0) == 0 &&
		events_since(b, SB_PEER_EV_SILENT, t0) == 1,
		"resume: last hellos an interval apart, then a freeze: held as a silence (%u downs)",
		events_since(b, SB_PEER_EV_PATH_DOWN, t0));

	/* The same, but port 1 stays silent: down a detection time after a was heard again
	 * (not at once, and not never). */
	t0 = run_to_slot_1();
	run_frozen(0, 60);
	twake = clock_now;
	net.drop[0][1][1] = true;
	run(200);
	tdown = event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0);
	SB_CHECK(tdown > twake + dead - 2 * MS && tdown <= twake + dead + INTERVAL * MS,
		"resume: a path still silent after the wake down %llu us after it",
		(unsigned long long)(tdown - twake));
	SB_CHECK(event_at(b, SB_PEER_EV_PATH_DOWN, 0, t0) == 0, "resume: path 0 kept");
	net.drop[0][1][1] = false;
	run(100);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "resume: both paths up again");
	b->t.conf.silence_hold = 0;
	a->t.conf.tick_stall = 0;
}

/*
 * Cut a's port 1 -> b's port 1 (b -> a stays fine) for 100 ms (@p what names the case): b
 * stops hearing a and takes the path down after interval x multiplier; b's next hello no
 * longer lists a, and a takes it out too (init, one-way: it still hears b). The cut stays.
 */
static void
one_way_cut(const char *what)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pa = path_of(a, 1), *pb = path_of(b, 1);
	uint64_t t0 = clock_now, ta, tb;

	net.drop[0][1][1] = true;
	run(100);
	tb = event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0);
	ta = event_at(a, SB_PEER_EV_PATH_DOWN, 1, t0);
	SB_CHECK(tb != 0 && tb - t0 <= (INTERVAL * MULT + INTERVAL) * MS,
		"%s: receiving end down in %llu us", what, (unsigned long long)(tb - t0));
	SB_CHECK(ta != 0 && ta - t0 <= (INTERVAL * MULT + 2 * INTERVAL) * MS,
		"%s: sending end down in %llu us", what, (unsigned long long)(ta - t0));
	SB_CHECK(pb->state == SB_PATH_DOWN && pb->fault == SB_FAULT_SILENT,
		"%s: b down, silent", what);
	SB_CHECK(pa->state == SB_PATH_INIT && pa->fault == SB_FAULT_ONE_WAY,
		"%s: a init, one-way (it still hears b)", what);
	SB_CHECK(!pa->usable && !pb->usable, "%s: out of the stripe at both ends", what);
}

static void
test_three_way(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pa, *pb;
	uint64_t t0 = clock_now, ta, tb;

	run(100);
	SB_CHECK(a->t.n_peers == 1 && b->t.n_peers == 1, "each hears the other");
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "2 paths up at both ends");
	SB_CHECK(a->t.peer[0].n_usable == 2 && b->t.peer[0].n_usable == 2,
		"2 paths in the stripe (probes arrived)");
	ta = event_at(a, SB_PEER_EV_PATH_UP, 0, 0);
	SB_CHECK(ta != 0 && ta - t0 <= 2 * INTERVAL * MS, "path up within 2 intervals: %llu us",
		(unsigned long long)(ta - t0));

	/* One-way failure: a's port 1 -> b's port 1 dropped, b -> a fine. */
	a->t.hello_due = b->t.hello_due = 0;	/* the datapath clears them, this harness does not */
	one_way_cut("three-way");
	/* b tells a at once (the datapath sends a triggered hello on the bit's port). */
	SB_CHECK(b->t.hello_due == UINT32_C(1) << 1, "b: a hello due on port 1 only: %#x",
		b->t.hello_due);
	SB_CHECK(path_of(a, 0)->usable && path_of(b, 0)->usable, "path 0 unaffected");
	pa = path_of(a, 1);
	pb = path_of(b, 1);

	/* Heal: back within 3 hellos. */
	t0 = clock_now;
	net.drop[0][1][1] = false;
	run(60);
	ta = event_at(a, SB_PEER_EV_PATH_UP, 1, t0);
	tb = event_at(b, SB_PEER_EV_PATH_UP, 1, t0);
	SB_CHECK(ta != 0 && ta - t0 <= 3 * INTERVAL * MS, "a: up again in %llu us",
		(unsigned long long)(ta - t0));
	SB_CHECK(tb != 0 && tb - t0 <= 3 * INTERVAL * MS, "b: up again in %llu us",
		(unsigned long long)(tb - t0));
	SB_CHECK(pa->usable && pb->usable, "back in the stripe");
}

static void
test_mtu(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pa = path_of(a, 0), *pb = path_of(b, 0);
	uint64_t t0 = clock_now, ta, tb;

	/* A switch port with a small MTU: hellos pass, full-size probes do not. */
	net.max_len[0][1][0] = net.max_len[1][0][0] = 600;
	run(1000);
	ta = event_at(a, SB_PEER_EV_STRIPE_OUT, 0, t0);
	tb = event_at(b, SB_PEER_EV_STRIPE_OUT, 0, t0);
	SB_CHECK(ta != 0 && ta - t0 < 1000 * MS, "a: out of the stripe in %llu us",
		(unsigned long long)(ta - t0));
	SB_CHECK(tb != 0 && tb - t0 < 1000 * MS, "b: out of the stripe in %llu us",
		(unsigned long long)(tb - t0));
	SB_CHECK(pa->state == SB_PATH_UP && !pa->usable && pa->fault == SB_FAULT_MTU,
		"a: up, out of the stripe, MTU fault");
	SB_CHECK(pb->state == SB_PATH_UP && !pb->usable && pb->fault == SB_FAULT_MTU,
		"b: up, out of the stripe, MTU fault");
	SB_CHECK(event_at(a, SB_PEER_EV_PATH_DOWN, 0, t0) == 0, "no path down for the MTU");

	t0 = clock_now;
	net.max_len[0][1][0] = net.max_len[1][0][0] = 0;
	run(PROBE_MS + 3 * INTERVAL);
	SB_CHECK(pa->usable && pb->usable, "back when probes return");
	SB_CHECK(event_at(a, SB_PEER_EV_STRIPE_IN, 0, t0) != 0, "a: stripe-in event");

	/* DATA at b's full MTU proves the path as probes do: a's probes to b dropped, a frame
	 * of 14 + MTU bytes every interval keeps the path in a's stripe for 1 s; frames one
	 * byte short do not, and it leaves within 1 s. */
	{
		unsigned int pj = (unsigned int)(pb - b->t.peer[0].path), k;
		uint8_t seq = 0;

		net.max_len[0][1][0] = 600;
		t0 = clock_now;
		for (k = 0; k < 100; k++) {
			sb_path_data_account(&b->data[0][pj], seq++, MTU + SB_ETH_HLEN,
				MTU + SB_ETH_HLEN);
			run(INTERVAL);
		}
		SB_CHECK(pa->usable && event_at(a, SB_PEER_EV_STRIPE_OUT, 0, t0) == 0,
			"full-size data, no probe: a keeps the path in the stripe 1 s");
		t0 = clock_now;
		for (k = 0; k < 100; k++) {
			sb_path_data_account(&b->data[0][pj], seq++, MTU + SB_ETH_HLEN - 1,
				MTU + SB_ETH_HLEN);
			run(INTERVAL);
		}
		ta = event_at(a, SB_PEER_EV_STRIPE_OUT, 0, t0);
		SB_CHECK(ta != 0 && ta - t0 < 1000 * MS && pa->fault == SB_FAULT_MTU,
			"shorter data proves nothing: out of the stripe in %llu us",
			(unsigned long long)(ta - t0));
		net.max_len[0][1][0] = 0;
		run(PROBE_MS + 3 * INTERVAL);
		SB_CHECK(pa->usable && pb->usable, "back when probes return (2)");
	}
}

/* Data a -> b on paths 1 and, when @p loss0_pct >= 0, 0 too, for @p ms; @p loss_pct of it
 * (@p loss0_pct on path 0) lost, in a deterministic pattern. */
static void
data_run2(unsigned int ms, unsigned int loss_pct, int loss0_pct, uint8_t *pseq)
{
	struct host *b = &hosts[1];
	static uint8_t pseq0;
	unsigned int i, k;
	unsigned int path = b->t.map.peer[0].path_of[1][1];
	unsigned int path0 = b->t.map.peer[0].path_of[0][0];
	struct host *a = &hosts[0];

	for (i = 0; i < ms; i++) {
		for (k = 0; k < 20; k++) {	/* 20 frames per ms */
			uint8_t s = (*pseq)++, s0 = pseq0++;

			a->sent[0][a->t.map.peer[0].path_of[1][1]]++;
			if (loss0_pct >= 0)
				a->sent[0][a->t.map.peer[0].path_of[0][0]]++;

			if ((i * 20 + k) % 100 >= loss_pct)
				sb_path_data_account(&b->data[0][path], s, 1500, MTU + SB_ETH_HLEN);
			if (loss0_pct >= 0 && (int)((i * 20 + k) % 100) >= loss0_pct)
				sb_path_data_account(&b->data[0][path0], s0, 1500, MTU + SB_ETH_HLEN);
		}
		run(1);
	}
}

static void
data_run(unsigned int ms, unsigned int loss_pct, uint8_t *pseq)
{
	data_run2(ms, loss_pct, -1, pseq);
}

static void
test_loss(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pa = path_of(a, 1), *pb = path_of(b, 1);
	uint8_t pseq = 0;
	uint64_t t0, ta;
	const struct sb_path_data *db = &b->data[0][b->t.map.peer[0].path_of[1][1]];
	uint32_t lost0 = db->lost;

	data_run(500, 0, &pseq);
	SB_CHECK(db->lost == lost0, "no loss counted on a clean path");
	SB_CHECK(pa->usable && pa->fb.loss_ppm == 0, "clean path stays in");
	SB_CHECK(pa->fb.rate_kbps > 200000 && pa->fb.rate_kbps < 300000,
		"delivered rate reported: %u kbit/s (20 x 1500 B per ms = 240 Mbit/s)",
		pa->fb.rate_kbps);

	t0 = clock_now;
	data_run(1200, 10, &pseq);
	ta = event_at(a, SB_PEER_EV_STRIPE_OUT, 1, t0);
	SB_CHECK(ta != 0 && ta - t0 <= 1000 * MS, "10 %% loss: out in %llu us",
		(unsigned long long)(ta - t0));
	SB_CHECK(pa->state == SB_PATH_UP && pa->fault == SB_FAULT_LOSS, "loss fault, still up");
	SB_CHECK(pa->fb.loss_ppm > 50000 && pa->fb.loss_ppm < 150000, "loss share %u ppm",
		pa->fb.loss_ppm);
	SB_CHECK(db->lost - lost0 >= 2000 && pb->rx.hello_lost == 0, "b counted %u lost",
		db->lost - lost0);

	/* Clean again (only hellos now, as a real sender would send while the path is out):
	 * back once a whole window is clean. */
	t0 = clock_now;
	run(2500);
	ta = event_at(a, SB_PEER_EV_STRIPE_IN, 1, t0);
	SB_CHECK(ta != 0 && ta - t0 <= 2200 * MS, "rejoined %llu us after the loss stopped",
		(unsigned long long)(ta - t0));
	SB_CHECK(pa->usable, "in the stripe again");

	/* Loss on every path (a bottleneck every path shares, TCP's bursts): loss alone is no
	 * reason to leave a peer with no path, so both stay in; once path 0 is clean again,
	 * the lossy path 1 leaves. */
	t0 = clock_now;
	data_run2(1200, 10, 10, &pseq);
	SB_CHECK(path_of(a, 0)->fb.loss_ppm > 50000 && pa->fb.loss_ppm > 50000,
		"both lose: %u %u ppm", path_of(a, 0)->fb.loss_ppm, pa->fb.loss_ppm);
	SB_CHECK(path_of(a, 0)->fb.lossy && pa->fb.lossy, "both over the limit");
	SB_CHECK(a->t.peer[0].n_usable == 2 && path_of(a, 0)->usable && pa->usable,
		"both stay in the stripe when every path loses");
	t0 = clock_now;
	data_run2(2500, 10, 0, &pseq);
	SB_CHECK(path_of(a, 0)->usable && !path_of(a, 0)->fb.lossy, "path 0 clean again");
	SB_CHECK(!pa->usable && pa->fault == SB_FAULT_LOSS, "lossy path 1 out once 0 is clean");
	run(2500);
	SB_CHECK(pa->usable, "path 1 back after a clean window");
}

static void fresh_pair(void);

/*
 * Loss reports clamped by what we sent (sb_peer_conf.frames_tx): an honest 10 % still takes
 * a path out; pairs of forged DATA frames on b's switch (a gap and its confirmation, 60
 * ahead of b's count, 10 a second) beside 200 honest frames a second take it out without
 * the clamp and not with it.
 */
static void
forged_gap_run(unsigned int ms)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	unsigned int pb = b->t.map.peer[0].path_of[1][1], pa = a->t.map.peer[0].path_of[1][1];
	struct sb_path_data *d = &b->data[0][pb];
	static uint8_t s;
	unsigned int i, k;
	uint8_t x;

	for (i = 0; i < ms / 100; i++) {
		for (k = 0; k < 20; k++) {
			a->sent[0][pa]++;
			sb_path_data_account(d, s++, 1500, MTU + SB_ETH_HLEN);
		}
		x = (uint8_t)(d->pseq.next + 60);
		sb_path_data_account(d, x, 64, MTU + SB_ETH_HLEN);
		sb_path_data_account(d, (uint8_t)(x + 1), 64, MTU + SB_ETH_HLEN);
		s = (uint8_t)d->pseq.next;	/* a's numbering as b now expects it */
		run(100);
	}
}

static void
test_loss_clamp(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pa;
	uint8_t pseq = 0;
	uint32_t lost0;

	fresh_pair();
	pa = path_of(a, 1);
	lost0 = b->data[0][b->t.map.peer[0].path_of[1][1]].lost;
	forged_gap_run(2000);
	SB_CHECK(b->data[0][b->t.map.peer[0].path_of[1][1]].lost - lost0 >= 1000,
		"forged pairs: b counts %u lost",
		b->data[0][b->t.map.peer[0].path_of[1][1]].lost - lost0);
	SB_CHECK(!pa->usable && pa->fault == SB_FAULT_LOSS,
		"without the clamp the forged gaps take the path out (%u ppm)", pa->fb.loss_ppm);

	fresh_pair();
	a->t.conf.frames_tx = frames_tx;
	pa = path_of(a, 1);
	forged_gap_run(3000);
	SB_CHECK(pa->usable && pa->fb.loss_ppm == 0,
		"clamped by frames sent: the path stays in (%u ppm)", pa->fb.loss_ppm);
	data_run(1200, 10, &pseq);
	SB_CHECK(!pa->usable && pa->fault == SB_FAULT_LOSS && pa->fb.loss_ppm > 50000,
		"clamped: honest 10 %% loss still takes it out (%u ppm)", pa->fb.loss_ppm);
	a->t.conf.frames_tx = NULL;
}

static void
test_port_restart(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	unsigned int n_ev;
	uint64_t t0 = clock_now;

	/* Carrier loss: every path over the port down at once, back with hellos. */
	n_ev = a->n_ev;
	a->now = clock_now;
	sb_peer_port_down(&a->t, 0, clock_now);
	SB_CHECK(a->n_ev > n_ev && path_of(a, 0)->state == SB_PATH_DOWN &&
		path_of(a, 0)->fault == SB_FAULT_PORT, "port down: path down, port fault");
	run(50);
	SB_CHECK(path_of(a, 0)->state == SB_PATH_UP, "back after the port returns");

	/* b restarts: new instance; a forgets b's paths and relearns them. */
	b->instance++;
	t0 = clock_now;
	run(60);
	SB_CHECK(event_at(a, SB_PEER_EV_RESTART, 0, t0) != 0, "restart seen");
	SB_CHECK(a->t.peer[0].n_up == 2 && a->t.peer[0].n_usable == 2, "paths relearnt");
}

static void
test_partial_and_refusals(void)
{
	struct host *a = &hosts[0], *c = &hosts[2];
	struct sb_hello_entry e[8];
	struct sb_hello h;
	unsigned int cursor = 0, i, seen_b = 0, seen_c = 0, n;
	bool partial;
	uint8_t mac[6];

	/* A third host on the same switches: a hears two peers per port. */
	host_init(c, 3);
	run(100);
	SB_CHECK(a->t.n_peers == 2 && a->t.peer[1].n_up == 2, "third host: paths up");

	/* Room for one entry: hellos list one path each, in turn, flagged partial. */
	for (i = 0; i < 4; i++) {
		n = sb_peer_hello_entries(&a->t, 0, clock_now, false, e, 1, &cursor, &partial,
			false);
		SB_CHECK(n == 1 && partial, "one entry, partial");
		seen_b += e[0].host_id == 2;
		seen_c += e[0].host_id == 3;
	}
	SB_CHECK(seen_b == 2 && seen_c == 2, "rotation covers both peers: %u %u", seen_b,
		seen_c);
	/* A unicast hello lists its own path alone: c's path, not b's beside it. */
	for (i = 0; i < a->t.peer[1].n_paths; i++) {
		const struct sb_path *pa = &a->t.peer[1].path[i];

		n = sb_peer_hello_entry_path(&a->t, 1, i, clock_now, false, &e[0]);
		SB_CHECK(n == 1 && e[0].host_id == 3 && e[0].port == pa->remote_port,
			"unicast entry of path %u: %u entries, host %u port %u", i, n,
			e[0].host_id, e[0].port);
	}
	SB_CHECK(sb_peer_hello_entry_path(&a->t, 1, a->t.peer[1].n_paths, clock_now, false,
		&e[0]) == 0 && sb_peer_hello_entry_path(&a->t, 2, 0, clock_now, false,
		&e[0]) == 0, "no entry for a path or peer that does not exist");
	/* Partial hellos from a keep c's paths up (absence means nothing). */
	a->max_entries = 1;
	run(200);
	SB_CHECK(c->t.peer[0].n_up == 2, "partial hellos keep paths up at c");
	a->max_entries = 32;

	/* Our own hello (a loop through a switch) never creates a peer. */
	h = (struct sb_hello){ .host_id = 1, .instance = 1, .port_index = 0, .n_ports = 1,
		.interval_ms = 10, .mtu = 1500, .multiplier = 3 };
	port_mac(mac, 1, 0);
	SB_CHECK(sb_peer_hello_rx(&a->t, 0, mac, &h, 100, MTU, clock_now) == -EINVAL, "self");
	SB_CHECK(a->t.rejects[SB_PEER_REJ_SELF] == 1, "self counted");
	h.host_id = 9;
	h.port_index = SB_MAX_PORTS;
	SB_CHECK(sb_peer_hello_rx(&a->t, 0, mac, &h, 100, MTU, clock_now) == -EINVAL,
		"bad port index");

	/* Lookups. */
	port_mac(mac, 2, 1);
	SB_CHECK(sb_peer_lookup_rx(&a->t, 1, mac, 1, &i) == 0 && i == (unsigned int)
		a->t.map.peer[0].path_of[1][1], "lookup rx");
	SB_CHECK(sb_peer_lookup_rx(&a->t, 0, mac, 1, &i) == -ENOENT, "wrong port");
	mac[5] = 9;
	SB_CHECK(sb_peer_lookup_rx(&a->t, 1, mac, 1, &i) == -ENOENT, "wrong source MAC");

	/* Table full. */
	for (i = 10; i < 10 + SB_MAX_PEERS; i++) {
		h.host_id = i;
		h.port_index = 0;
		port_mac(mac, i, 0);
		sb_peer_hello_rx(&a->t, 0, mac, &h, 100, MTU, clock_now);
	}
	SB_CHECK(a->t.n_peers == SB_MAX_PEERS && a->t.rejects[SB_PEER_REJ_TABLE_FULL] > 0,
		"table full counted");
}

/*
 * Group and unicast hellos on one path are two numbered streams (SB_HELLO_F_UNICAST): a gap
 * in either is loss, and a unicast hello never fills in a lost group one (the first version
 * of unicast hellos repeated the group number: a lost group hello then went uncounted).
 */
static void
test_unicast_seq(void)
{
	static struct host h;
	struct sb_hello g = { .host_id = 9, .instance = 1, .port_index = 0, .n_ports = 1,
		.interval_ms = 100, .probe_interval_ms = 1000, .mtu = 1500, .multiplier = 4 };
	struct sb_hello u = g;
	static const uint32_t gs[] = { 1, 3, 4, 5 }, us[] = { 100, 101, 102, 104, 105 };
	const struct sb_path *path;
	uint8_t mac[6];
	unsigned int i;
	uint64_t now = HZ;

	host_init(&h, 1);
	port_mac(mac, 9, 0);
	u.flags = SB_HELLO_F_UNICAST;
	u.interval_ms = 10;
	u.probe_interval_ms = 100;
	/* Interleaved: group 1, unicast 100..102, group 3 (2 lost), unicast 104 (103 lost),
	 * group 4, 5, unicast 105. */
	for (i = 0; i < 5; i++) {
		if (i < 4) {
			g.hello_seq = gs[i];
			SB_CHECK(sb_peer_hello_rx(&h.t, 0, mac, &g, 100, MTU, now) == 0,
				"group hello %u", gs[i]);
		}
		u.hello_seq = us[i];
		SB_CHECK(sb_peer_hello_rx(&h.t, 0, mac, &u, 100, MTU, now + HZ / 1000) == 0,
			"unicast hello %u", us[i]);
		now += HZ / 100;
	}
	path = &h.t.peer[0].path[0];
	SB_CHECK(path->rx.hello_lost == 2, "one group and one unicast hello lost: %u counted",
		path->rx.hello_lost);
	SB_CHECK(path->rx.hellos_rx == 9, "9 hellos heard: %llu",
		(unsigned long long)path->rx.hellos_rx);
	/* The path's detection time follows the unicast stream while it lasts: a group hello at
	 * the idle pace 1 ms after a unicast one leaves it at 10 ms (a cut right then must be
	 * found in 40 ms, not 400: no unicast hello comes after it); once unicast hellos
	 * stopped (the peer stopped using us) more than 4 x 10 ms ago, the group's pace
	 * governs. The same for the probe interval: with the group's, full-size probes lost
	 * since the last unicast one would be reported as arriving (MTU fine) for 3 s. */
	SB_CHECK(path->remote_interval_ms == 10 && path->remote_probe_ms == 100,
		"intervals of the unicast hello");
	for (i = 0; i < 2; i++) {
		static const uint64_t after[] = { HZ / 1000, HZ / 10 };
		static const uint16_t want[] = { 10, 100 }, want_probe[] = { 100, 1000 };

		g.hello_seq = 6 + i;
		now += after[i];
		sb_peer_hello_rx(&h.t, 0, mac, &g, 100, MTU, now);
		SB_CHECK(path->remote_interval_ms == want[i],
			"group hello %u: interval %u, expected %u", i, path->remote_interval_ms,
			want[i]);
		SB_CHECK(path->remote_probe_ms == want_probe[i],
			"group hello %u: probe interval %u, expected %u", i, path->remote_probe_ms,
			want_probe[i]);
	}
}

/* One hello from host 7's port @p port to @p r, sent @p delay_us before now, listing r's
 * same port with @p flags (SB_ENTRY_F_TX: host 7 sends data there). */
static void
spread_hello(struct host *r, unsigned int port, uint32_t delay_us, uint8_t flags)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	static uint32_t seq[N_PORTS];
	struct sb_hello_entry e = { .host_id = r->id, .port = (uint8_t)port, .flags = flags };
	struct sb_hello h = {
		.host_id = 7, .instance = 77, .agg_mac = { 0x02, 0x53, 0x42, 0, 0, 7 },
		.port_index = (uint8_t)port, .n_ports = N_PORTS, .rate_kbps = 100000,
		.interval_ms = INTERVAL, .mtu = MTU, .multiplier = MULT,
		.hello_seq = seq[port]++, .n_entries = 1,
		.tx_time_us = sb_peer_clock_us(&r->t, r->now) - delay_us,
	};
	uint8_t buf[256], mac[6];
	struct sb_hello d;
	size_t len;

	port_mac(mac, 7, port);
	len = sb_wire_put_hello(buf, sizeof(buf), group, mac, port, &h, &e, 0);
	SB_CHECK(len > 0 && sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &d) ==
		SB_WIRE_OK, "spread hello encodes");
	SB_CHECK(sb_peer_hello_rx(&r->t, port, mac, &d, len, MTU, r->now) == 0,
		"spread hello taken");
}

/* @p ms of hellos on both ports, the given one-way delays and entry flags. */
static void
spread_run(struct host *r, unsigned int ms, uint32_t d0, uint32_t d1, uint8_t f1)
{
	unsigned int t;

	for (t = 0; t < ms; t += INTERVAL) {
		r->now += INTERVAL * MS;
		spread_hello(r, 0, d0, SB_ENTRY_F_TX | SB_ENTRY_F_MTU_OK);
		spread_hello(r, 1, d1, f1);
		sb_peer_tick(&r->t, r->now);
	}
}

/*
 * The delay spread that lengthens a reorder window's hold (sb_peer_delay_spread_us()):
 * paths of 1 and 21 ms give 20 ms; one hello held 40 ms longer (a stalled lcore) moves it by
 * an eighth of that, not all of it; it falls back within 2 s once the delays agree; a path
 * the peer sends no data on does not count.
 */
static void
test_delay_spread(void)
{
	static struct host r;
	const uint8_t tx = SB_ENTRY_F_TX | SB_ENTRY_F_MTU_OK;
	uint32_t s;

	host_init(&r, 5);
	r.now = 1000 * MS;
	spread_run(&r, 300, 1000, 21000, tx);
	SB_CHECK(r.t.n_peers == 1 && r.t.peer[0].n_up == 2, "spread: both paths up");
	s = sb_peer_delay_spread_us(&r.t, 0);
	SB_CHECK(s >= 19500 && s <= 20500, "paths of 1 and 21 ms: spread %u us", s);
	r.now += INTERVAL * MS;
	spread_hello(&r, 1, 61000, tx);
	s = sb_peer_delay_spread_us(&r.t, 0);
	SB_CHECK(s >= 24000 && s <= 25500, "one hello 40 ms late moves it an eighth: %u us", s);
	spread_run(&r, 2500, 1000, 1000, tx);
	s = sb_peer_delay_spread_us(&r.t, 0);
	SB_CHECK(s < 1000, "delays agree again: spread %u us after 2.5 s", s);
	spread_run(&r, 2500, 1000, 21000, SB_ENTRY_F_MTU_OK);
	s = sb_peer_delay_spread_us(&r.t, 0);
	SB_CHECK(s == 0 && r.t.peer[0].n_up == 2,
		"a path the peer sends no data on does not count: %u us", s);
}

/* FEEDBACK events (a full report on our frames) host @p h logged at or after @p since, and
 * how many of them fell on host @p from's probe slot (ms = from mod PROBE_MS). */
static unsigned int
feedback_count(const struct host *h, uint64_t since, unsigned int from, unsigned int *on_probe)
{
	unsigned int i, n = 0;

	*on_probe = 0;
	for (i = 0; i < h->n_ev; i++)
		if (h->ev[i].type == SB_PEER_EV_FEEDBACK && h->ev_time[i] >= since) {
			n++;
			*on_probe += (h->ev_time[i] / MS) % PROBE_MS == from;
		}
	return n;
}

/*
 * Brief hellos (SB_HELLO_F_BRIEF, group hellos at the idle pace): their entries keep three-way
 * liveness and the stripe as full ones do, a one-way failure is still told to the far end,
 * the measurements come only with the full hellos (the probes here) and a brief list leaves
 * the delivered-rate window running.
 */
static void
test_brief(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	struct sb_hello_entry e[8];
	unsigned int n, on_probe, cursor = 0;
	uint64_t t0, mark;
	bool partial;

	/* Two fresh hosts, nothing else on the network. */
	memset(&net, 0, sizeof(net));
	memset(&hosts[2], 0, sizeof(hosts[2]));
	host_init(a, 1);
	host_init(b, 2);
	run(300);
	SB_CHECK(a->t.n_peers == 1 && a->t.peer[0].n_usable == 2 &&
		b->t.peer[0].n_usable == 2, "brief: 2 paths in the stripe before");
	a->brief = b->brief = true;
	t0 = clock_now;
	run(1000);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_usable == 2 &&
		a->t.peer[0].n_usable == 2 && event_at(a, SB_PEER_EV_PATH_DOWN, 0, t0) == 0 &&
		event_at(a, SB_PEER_EV_PATH_DOWN, 1, t0) == 0 &&
		event_at(b, SB_PEER_EV_PATH_DOWN, 0, t0) == 0 &&
		event_at(b, SB_PEER_EV_PATH_DOWN, 1, t0) == 0,
		"brief: 1 s of brief hellos, both paths stay up and in the stripe");
	n = feedback_count(b, t0, 0, &on_probe);
	SB_CHECK(n == 10 && on_probe == n,
		"brief: b got a's reports only with its 5 probes per path: %u (%u on probes)",
		n, on_probe);

	/* A one-way failure while brief: b stops hearing a on port 1, its complete brief list
	 * no longer names a's port 1, and a takes the path out as well. */
	one_way_cut("brief");
	net.drop[0][1][1] = false;
	run(60);
	SB_CHECK(a->t.peer[0].n_up == 2 && b->t.peer[0].n_up == 2, "brief: healed");

	/* The rate window: a brief list leaves it, a full one restarts it. */
	mark = path_of(a, 0)->rx.rate_mark_time;
	n = sb_peer_hello_entries(&a->t, 0, clock_now + 5 * MS, false, e, 8, &cursor, &partial,
		true);
	SB_CHECK(n == 1 && e[0].host_id == b->id && e[0].rx_frames == 0 &&
		path_of(a, 0)->rx.rate_mark_time == mark, "brief: entry without measurements, "
		"rate window left running");
	n = sb_peer_hello_entries(&a->t, 0, clock_now + 5 * MS, false, e, 8, &cursor, &partial,
		false);
	SB_CHECK(n == 1 && e[0].rx_frames != 0 &&
		path_of(a, 0)->rx.rate_mark_time == clock_now + 5 * MS,
		"brief: a full entry restarts it");
	a->brief = b->brief = false;
}

/* ---- Forged and mistaken hellos (defence in depth, no cluster key) ---- */

/* What a forger (or a second host) puts in a hello. */
struct forge {
	uint32_t host_id, instance;
	uint8_t agg_mac[6], src_mac[6];
	uint8_t port_index, n_ports;
	uint16_t mtu;
	uint32_t rate_kbps, hello_seq;
	uint8_t flags;
	uint32_t entry_host;	/* the one (brief) entry it lists; 0: none */
	uint8_t entry_port;
};

/* A forge of host @p k's hello on @p port as the harness sends it (same MACs, instance,
 * counts): the forger copies what the real host's hellos show on the wire. */
static struct forge
forge_of(unsigned int k, unsigned int port)
{
	struct forge f = {
		.host_id = hosts[k].id, .instance = hosts[k].instance,
		.agg_mac = { 0x02, 0x53, 0x42, 0, 0, (uint8_t)hosts[k].id },
		.port_index = (uint8_t)port, .n_ports = N_PORTS, .mtu = MTU, .rate_kbps = 100000,
	};

	port_mac(f.src_mac, hosts[k].id, port);
	return f;
}

/* Deliver forged hello @p f to host @p to's port @p local_port, now. @return the table's
 * verdict. */
static int
forge_rx(struct host *to, unsigned int local_port, const struct forge *f)
{
	static const uint8_t group[6] = SB_HELLO_MAC;
	struct sb_hello_entry e = { .host_id = f->entry_host, .port = f->entry_port,
		.flags = SB_ENTRY_F_MTU_OK | SB_ENTRY_F_TX };
	struct sb_hello h = {
		.host_id = f->host_id, .instance = f->instance, .port_index = f->port_index,
		.n_ports = f->n_ports, .rate_kbps = f->rate_kbps, .interval_ms = INTERVAL,
		.mtu = f->mtu, .multiplier = MULT, .hello_seq = f->hello_seq,
		.flags = f->flags | (f->entry_host != 0 ? SB_HELLO_F_BRIEF : 0),
		.n_entries = f->entry_host != 0,
		.tx_time_us = sb_peer_clock_us(&to->t, clock_now),
	};
	uint8_t buf[512];
	struct sb_hello d;
	size_t len;

	memcpy(h.agg_mac, f->agg_mac, 6);
	len = sb_wire_put_hello(buf, sizeof(buf), group, f->src_mac, f->port_index, &h, &e, 0);
	SB_CHECK(len > 0 && sb_wire_hello_decode(buf + SB_HDR_LEN, len - SB_HDR_LEN, &d) ==
		SB_WIRE_OK, "forged hello encodes");
	to->now = clock_now;
	return sb_peer_hello_rx(&to->t, local_port, f->src_mac, &d, len, MTU, clock_now);
}

/* Two fresh hosts a and b, nothing else on the network, both paths up. */
static void
fresh_pair(void)
{
	memset(&net, 0, sizeof(net));
	memset(&hosts[2], 0, sizeof(hosts[2]));
	host_init(&hosts[0], 1);
	host_init(&hosts[1], 2);
	run(300);
	SB_CHECK(hosts[0].t.n_peers == 1 && hosts[0].t.peer[0].n_usable == 2 &&
		hosts[1].t.peer[0].n_usable == 2, "fresh pair: 2 paths in the stripe");
}

/*
 * Restart claims: hellos with b's host id and a new instance, 100 a second from one switch
 * port (here a's port 0), a new instance each time or the same one: a never believes b
 * restarted, b's paths stay in the stripe, the claims are counted. The same claim heard
 * on both of a's ports while b speaks is a duplicate host id, reported, not a reset.
 */
static void
test_forged_restart(void)
{
	struct host *a = &hosts[0];
	struct forge f;
	unsigned int k;
	int ret, again = 0;

	fresh_pair();
	f = forge_of(1, 0);	/* b's port 0 MAC and all, spoofed */
	for (k = 0; k < 200; k++) {
		f.instance = 5000 + k;	/* a new instance each time */
		ret = forge_rx(a, 0, &f);
		again += ret == -EAGAIN;
		run(INTERVAL);
	}
	SB_CHECK(again == 200, "storm: every claim waits (%d of 200)", again);
	SB_CHECK(a->t.restarts == 0 && events_since(a, SB_PEER_EV_RESTART, 0) == 0,
		"storm of 200 instances on one port: no restart believed");
	SB_CHECK(a->t.restarts_refused >= 199 && a->t.peer[0].claims_refused >= 199 &&
		a->t.rejects[SB_PEER_REJ_CLAIM] == 200, "storm: claims refused %llu, hellos %llu",
		(unsigned long long)a->t.restarts_refused,
		(unsigned long long)a->t.rejects[SB_PEER_REJ_CLAIM]);
	SB_CHECK(a->t.peer[0].n_usable == 2 && a->t.peer[0].instance == hosts[1].instance,
		"storm: b keeps its instance and both paths");

	/* One instance, repeated, on one port while b speaks on both: never a restart, but a
	 * second host (a clone cabled to one switch), reported at its SB_PEER_DUP_HELLOS-th
	 * hello. */
	f.instance = 7777;
	for (k = 0; k < 100; k++) {
		ret = forge_rx(a, 0, &f);
		if (k == SB_PEER_DUP_HELLOS - 2)
			SB_CHECK(ret == -EAGAIN && a->t.dup_host_ids == 0,
				"one port: no report before %d hellos", SB_PEER_DUP_HELLOS);
		run(INTERVAL);
	}
	SB_CHECK(a->t.restarts == 0 && a->t.dup_host_ids == 1 && a->t.peer[0].dup.active &&
		a->t.peer[0].dup.instance == 7777 && a->t.peer[0].n_usable == 2,
		"one instance from one port 100 times: no restart, one duplicate report");

	/* The same forger reaching both of a's ports (one switch for all) while b speaks:
	 * still that one report, never a reset. */
	for (k = 0; k < 50; k++) {
		forge_rx(a, 0, &f);
		forge_rx(a, 1, &f);
		run(INTERVAL);
	}
	SB_CHECK(a->t.restarts == 0 && a->t.dup_host_ids == 1 && a->t.peer[0].dup.active &&
		a->t.peer[0].dup.instance == 7777 && events_since(a, SB_PEER_EV_DUP_HOST_ID, 0) == 1,
		"claim on two ports while b speaks: one duplicate report, no restart");
	SB_CHECK(a->t.peer[0].n_usable == 2 && a->t.rejects[SB_PEER_REJ_DUP] >= 98 + 97,
		"duplicate refused (%llu hellos), b keeps both paths",
		(unsigned long long)a->t.rejects[SB_PEER_REJ_DUP]);
}

/*
 * Believed restarts are rate-limited: b restarts, then again 100 ms later; the second is
 * believed only once conf.restart_holddown has passed since the first.
 */
static void
test_restart_limit(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	uint64_t t0;

	fresh_pair();
	a->t.conf.restart_holddown = 1000 * MS;
	b->instance += 10;
	t0 = clock_now;
	run(60);
	SB_CHECK(a->t.restarts == 1 && a->t.peer[0].n_usable == 2 &&
		a->t.peer[0].last_reset >= t0, "first restart believed, paths back");
	b->instance += 10;
	run(500);
	SB_CHECK(a->t.restarts == 1 && a->t.restarts_limited == 1 &&
		a->t.peer[0].instance != b->instance,
		"second restart within the hold-down: held back (%llu limited)",
		(unsigned long long)a->t.restarts_limited);
	run(600);
	SB_CHECK(a->t.restarts == 2 && a->t.peer[0].instance == b->instance &&
		a->t.peer[0].n_usable == 2 && clock_now - a->t.peer[0].last_reset < 200 * MS,
		"second restart believed once the hold-down ended, paths back");
	SB_CHECK(a->t.dup_host_ids == 0, "an honest restart is no duplicate");
}

/* Host @p k's clone: another host with the same host id, its own instance and MACs, sends
 * its hellos on both ports to host @p to (listing it, as a running host does). */
static void
clone_hellos(struct host *to, uint32_t host_id, uint32_t seq)
{
	unsigned int port;

	for (port = 0; port < N_PORTS; port++) {
		struct forge f = {
			.host_id = host_id, .instance = 424242,
			.agg_mac = { 0x02, 0x53, 0x42, 0, 9, 9 },
			.src_mac = { 0x02, 0xcc, 0, 0, 9, (uint8_t)port },
			.port_index = (uint8_t)port, .n_ports = N_PORTS, .mtu = MTU,
			.rate_kbps = 100000, .hello_seq = seq,
			.entry_host = to->id, .entry_port = (uint8_t)port,
		};

		forge_rx(to, port, &f);
	}
}

/*
 * Two hosts with one host id (a cloned image): b and its clone both speak on both of a's
 * ports. a reports it once (event, counter, the clone's MACs), keeps b, refuses the clone,
 * and neither resets the other; the report is forgotten once the clone is gone; when b
 * stops, the clone takes its place as a restart.
 */
static void
test_dup_host_id(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const uint8_t clone_agg[6] = { 0x02, 0x53, 0x42, 0, 9, 9 };
	uint64_t t0;
	unsigned int k, seq = 0;

	fresh_pair();
	t0 = clock_now;
	for (k = 0; k < 200; k++) {	/* 2 s of both */
		clone_hellos(a, b->id, seq++);
		run(INTERVAL);
	}
	SB_CHECK(a->t.dup_host_ids == 1 && events_since(a, SB_PEER_EV_DUP_HOST_ID, t0) == 1,
		"clone: reported once in 2 s");
	SB_CHECK(event_at(a, SB_PEER_EV_DUP_HOST_ID, 0, t0) - t0 <= 1000 * MS,
		"clone: reported within 1 s (%llu us)",
		(unsigned long long)(event_at(a, SB_PEER_EV_DUP_HOST_ID, 0, t0) - t0));
	SB_CHECK(a->t.restarts == 0 && a->t.peer[0].instance == b->instance &&
		a->t.peer[0].n_usable == 2, "clone: b kept, no reset, both paths");
	SB_CHECK(a->t.peer[0].dup.active && memcmp(a->t.peer[0].dup.agg_mac, clone_agg, 6) == 0 &&
		a->t.peer[0].dup.port_mac[1] == 0xcc && a->t.peer[0].dup.instance == 424242,
		"clone: its aggregate MAC, port MAC and instance reported");
	SB_CHECK(a->t.rejects[SB_PEER_REJ_DUP] >= 390, "clone: its hellos refused: %llu",
		(unsigned long long)a->t.rejects[SB_PEER_REJ_DUP]);

	/* The clone goes away: forgotten after SB_PEER_DUP_FORGET_S. */
	run(SB_PEER_DUP_FORGET_S * 1000 + 100);
	SB_CHECK(!a->t.peer[0].dup.active && a->t.peer[0].n_usable == 2, "clone gone: forgotten");

	/* It comes back (reported again), then b stops: the clone takes b's place. */
	for (k = 0; k < 20; k++) {
		clone_hellos(a, b->id, seq++);
		run(INTERVAL);
	}
	SB_CHECK(a->t.dup_host_ids == 2, "clone back: reported again");
	b->id = 0;	/* b stops */
	for (k = 0; k < 30; k++) {
		clone_hellos(a, 2, seq++);
		run(INTERVAL);
	}
	SB_CHECK(a->t.restarts == 1 && a->t.peer[0].instance == 424242 &&
		!a->t.peer[0].dup.active && memcmp(a->t.peer[0].agg_mac, clone_agg, 6) == 0,
		"b gone: the clone took over as a restart");
	SB_CHECK(a->t.peer[0].n_paths == 2, "the clone's paths: %u", a->t.peer[0].n_paths);
	b->id = 2;
}

/*
 * A known peer gains no port it did not announce and no path from a MAC not its own: a
 * hello with more ports (an unannounced index), one from a new MAC for a known port, one
 * from another port's MAC on the same port of ours: refused and counted, nothing changes.
 * A new path of a known peer is taken at its second hello (or at once when its port's MAC
 * is already known).
 */
static void
test_forged_paths(void)
{
	struct host *a = &hosts[0];
	struct forge f;
	unsigned int n_ev, k;

	fresh_pair();
	n_ev = events_since(a, SB_PEER_EV_PATH_NEW, 0);

	f = forge_of(1, 0);
	f.n_ports = 16;
	f.port_index = 5;	/* a port b never announced */
	SB_CHECK(forge_rx(a, 0, &f) == -EINVAL && a->t.rejects[SB_PEER_REJ_IDENTITY] == 1,
		"unannounced port index (16 ports claimed): refused");
	f = forge_of(1, 0);
	memcpy(f.agg_mac, (const uint8_t[]){ 0x02, 0x66, 0, 0, 0, 1 }, 6);
	SB_CHECK(forge_rx(a, 0, &f) == -EINVAL && a->t.rejects[SB_PEER_REJ_IDENTITY] == 2 &&
		a->t.peer[0].agg_mac[1] == 0x53, "another aggregate MAC, same instance: refused");
	f = forge_of(1, 1);
	f.src_mac[0] = 0x06;	/* the forger's own MAC, claiming b's port 1 on a's port 0 */
	for (k = 0; k < 3; k++)
		SB_CHECK(forge_rx(a, 0, &f) == -EINVAL, "port 1 from a new MAC: refused");
	f = forge_of(1, 0);
	f.port_index = 1;	/* b's port 0 MAC, claiming port 1, on a's port 0 */
	for (k = 0; k < 3; k++)
		SB_CHECK(forge_rx(a, 0, &f) == -EINVAL, "port 0's MAC as port 1: refused");
	SB_CHECK(a->t.rejects[SB_PEER_REJ_PORT_MAC] == 6, "port MAC refusals counted: %llu",
		(unsigned long long)a->t.rejects[SB_PEER_REJ_PORT_MAC]);
	run(50);
	SB_CHECK(a->t.peer[0].n_paths == 2 && a->t.peer[0].n_usable == 2 &&
		events_since(a, SB_PEER_EV_PATH_NEW, 0) == n_ev, "b still has its 2 paths");

	/* A peer of 3 ports: its second port is taken at its second hello, a third hello of
	 * port 0 from the same MAC on our other port at once (that port's MAC is known). */
	f = (struct forge){ .host_id = 9, .instance = 9, .agg_mac = { 0x02, 0x53, 0x42, 0, 0, 9 },
		.port_index = 0, .n_ports = 3, .mtu = MTU, .rate_kbps = 100000 };
	port_mac(f.src_mac, 9, 0);
	SB_CHECK(forge_rx(a, 0, &f) == 1 && a->t.peer[1].n_paths == 1, "new peer: first path");
	f.port_index = 1;
	port_mac(f.src_mac, 9, 1);
	SB_CHECK(forge_rx(a, 1, &f) == 1 && a->t.peer[1].n_paths == 1,
		"second port heard once: waits");
	SB_CHECK(forge_rx(a, 1, &f) == 1 && a->t.peer[1].n_paths == 2,
		"second port heard twice: taken");
	f.port_index = 0;
	port_mac(f.src_mac, 9, 0);
	SB_CHECK(forge_rx(a, 1, &f) == 1 && a->t.peer[1].n_paths == 3,
		"known port on another port of ours: taken at once");
	f.port_index = 3;
	f.n_ports = 4;
	SB_CHECK(forge_rx(a, 1, &f) == -EINVAL && a->t.peer[1].n_paths == 3,
		"a fourth port it did not announce: refused");
}

/* Claims clamped: an MTU of 68 refused, a rate of 1 kbit/s raised to the floor. */
static void
test_forged_claims(void)
{
	struct host *a = &hosts[0];
	const struct sb_path *p0;
	struct forge f;

	fresh_pair();
	p0 = path_of(a, 0);
	f = forge_of(1, 0);
	f.mtu = 68;
	f.hello_seq = hosts[1].hello_seq[0];
	SB_CHECK(forge_rx(a, 0, &f) == -EINVAL && a->t.rejects[SB_PEER_REJ_MTU] == 1 &&
		p0->remote_mtu == MTU, "MTU 68 refused, the path keeps 1500");
	f = (struct forge){ .host_id = 10, .instance = 1, .agg_mac = { 0x02, 0x53, 0, 0, 0, 10 },
		.n_ports = 1, .mtu = MTU, .rate_kbps = 1 };
	port_mac(f.src_mac, 10, 0);
	SB_CHECK(forge_rx(a, 0, &f) == 1 && a->t.peer[1].path[0].remote_rate_kbps ==
		SB_PEER_RATE_FLOOR_KBPS && a->t.rate_clamped == 1,
		"a 1 kbit/s claim taken as %u kbit/s", a->t.peer[1].path[0].remote_rate_kbps);
}

/*
 * Forged hello sequence jumps: three hellos a second in a's name (a's port MAC and all,
 * listing b) with a number 50 ahead make b count no loss on that path, so a's path stays in
 * the stripe for 3 s (it left within a second before: 150 lost against 100 received). A
 * forged pair (a jump and its successor) far ahead is a resync, not loss.
 */
static void
test_forged_seq(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	const struct sb_path *pb;
	uint32_t lost0, strays0;
	uint64_t t0;
	struct forge f;
	unsigned int k;

	fresh_pair();
	pb = path_of(b, 0);
	lost0 = pb->rx.hello_lost;
	strays0 = pb->rx.hseq.strays;
	t0 = clock_now;
	for (k = 0; k < 9; k++) {
		f = forge_of(0, 0);
		f.hello_seq = a->hello_seq[0] + 50;
		f.entry_host = b->id;
		f.entry_port = 0;
		forge_rx(b, 0, &f);
		run(333);
	}
	SB_CHECK(pb->rx.hello_lost == lost0 && pb->rx.hseq.strays == strays0 + 9,
		"forged jumps: no hello counted lost (%u), 9 strays (%u)",
		pb->rx.hello_lost - lost0, pb->rx.hseq.strays - strays0);
	SB_CHECK(event_at(a, SB_PEER_EV_STRIPE_OUT, 0, t0) == 0 && path_of(a, 0)->usable,
		"forged jumps, 3 a second for 3 s: a's path stays in the stripe");

	f = forge_of(0, 0);
	f.hello_seq = a->hello_seq[0] + 1000000;
	f.entry_host = b->id;
	forge_rx(b, 0, &f);
	f.hello_seq++;
	forge_rx(b, 0, &f);
	run(100);
	SB_CHECK(pb->rx.hello_lost == lost0 && pb->rx.hseq.resyncs >= 1,
		"a forged pair a million ahead: resync (%u), no loss", pb->rx.hseq.resyncs);
	SB_CHECK(path_of(a, 0)->usable && pb->state == SB_PATH_UP, "path unharmed");
}

/* The numbered streams themselves (struct sb_seq_track): honest gaps counted once the next
 * number confirms them; a stray alone, far or near, counts nothing; a confirmed jump beyond
 * the bound resyncs; DATA path numbers wrap at 256. */
static void
test_seq_track(void)
{
	struct sb_path_data d = { 0 };
	struct sb_seq_track s = { 0 };
	uint32_t lost = 0;
	unsigned int i;
	uint8_t ps = 250;

	lost += sb_seq_track_rx(&s, 10, 10, 32);
	lost += sb_seq_track_rx(&s, 11, 10, 32);
	lost += sb_seq_track_rx(&s, 13, 10, 32);	/* 12 lost: waits */
	SB_CHECK(lost == 0 && s.pending, "gap pending");
	lost += sb_seq_track_rx(&s, 15, 10, 32);	/* confirms 12; 14 lost: waits */
	lost += sb_seq_track_rx(&s, 16, 10, 32);
	SB_CHECK(lost == 2 && !s.pending && s.next == 17, "two honest gaps: %u lost", lost);
	lost += sb_seq_track_rx(&s, 16, 10, 32);	/* a repeat */
	lost += sb_seq_track_rx(&s, 20, 10, 32);	/* forged: 3 ahead */
	lost += sb_seq_track_rx(&s, 17, 10, 32);	/* the stream goes on */
	SB_CHECK(lost == 2 && s.strays == 1 && s.next == 18, "a near stray: nothing counted");
	lost += sb_seq_track_rx(&s, 500, 10, 32);
	lost += sb_seq_track_rx(&s, 501, 10, 32);	/* a jump confirmed, beyond 10 */
	SB_CHECK(lost == 2 && s.resyncs == 1 && s.next == 502, "far jump: resync, no loss");
	lost += sb_seq_track_rx(&s, 18, 10, 32);	/* the old stream, far behind */
	lost += sb_seq_track_rx(&s, 19, 10, 32);
	SB_CHECK(lost == 2 && s.resyncs == 2 && s.next == 20, "far behind, confirmed: resync");

	/* DATA: 8-bit numbers across the wrap, a gap of 3 counted; single forged jumps of 100
	 * (within 127) count nothing; with a bound of 4 frames a confirmed jump of 50 is no
	 * loss. */
	for (i = 0; i < 6; i++)
		sb_path_data_account(&d, ps++, 100, 1514);
	ps += 3;
	for (i = 0; i < 3; i++)
		sb_path_data_account(&d, ps++, 100, 1514);
	SB_CHECK(d.lost == 3 && d.frames == 9, "data: 3 lost across the wrap: %u", d.lost);
	for (i = 0; i < 3; i++) {
		sb_path_data_account(&d, (uint8_t)(ps + 100), 100, 1514);
		sb_path_data_account(&d, ps++, 100, 1514);
	}
	SB_CHECK(d.lost == 3 && d.pseq.strays == 3, "data: forged jumps alone: no loss");
	sb_path_data_account_bounded(&d, (uint8_t)(ps + 50), 100, 1514, 4);
	sb_path_data_account_bounded(&d, (uint8_t)(ps + 51), 100, 1514, 4);
	SB_CHECK(d.lost == 3 && d.pseq.resyncs == 1, "data: a jump beyond the bound: resync");
	/* One forged frame of every number between honest ones, with the widest bound and a
	 * narrow one: none counts a loss (one just far enough behind used to make the honest
	 * frames after it a confirmed gap of up to the bound). */
	ps += 52;
	for (i = 0; i < 2 * 256; i++) {
		uint32_t bound = i < 256 ? SB_PATH_SEQ_MAX_GAP : 8;

		sb_path_data_account_bounded(&d, (uint8_t)(ps + i), 100, 1514, bound);
		sb_path_data_account_bounded(&d, ps++, 100, 1514, bound);
		sb_path_data_account_bounded(&d, ps++, 100, 1514, bound);
	}
	SB_CHECK(d.lost == 3, "data: one forged frame of any number: no loss (%u)", d.lost);
	SB_CHECK(sb_path_frames_bound(100000000, HZ / 1000, HZ) == 148 + 1 &&
		sb_path_frames_bound(0, HZ, HZ) == 1 &&
		sb_path_frames_bound(UINT64_C(400000000000), 1000000 * HZ, HZ) == UINT32_MAX,
		"frames bound: 100 Mbit/s for 1 ms %u", sb_path_frames_bound(100000000,
		HZ / 1000, HZ));
}

/* Events of @p type at host @p h since @p since, for peer index @p peer. */
static unsigned int
peer_events(const struct host *h, uint8_t type, unsigned int peer, uint64_t since)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->n_ev; i++)
		if (h->ev[i].type == type && h->ev[i].peer == peer && h->ev_time[i] >= since)
			n++;
	return n;
}

/* A forged peer, host id @p id, one hello on a's port 0 (not listing a: never UP). */
static int
forge_peer(uint32_t id)
{
	struct forge f = { .host_id = id, .instance = id, .n_ports = 1, .mtu = MTU,
		.rate_kbps = 100000, .agg_mac = { 0x02, 0x77, 0, 0, (uint8_t)(id >> 8),
		(uint8_t)id } };

	f.src_mac[0] = 0x02;
	f.src_mac[1] = 0x77;
	f.src_mac[4] = (uint8_t)(id >> 8);
	f.src_mac[5] = (uint8_t)id;
	return forge_rx(&hosts[0], 0, &f);
}

/*
 * Table hygiene: 80 forged host ids fill a's table but never keep out a real peer: a third
 * host c, arriving when the table is full of silent forged peers, takes the slot of the one
 * unheard longest; b and c, live, are never displaced by a stream of new forged ids; with
 * every slot live a newcomer is refused; peers unheard for conf.peer_evict are evicted
 * (their paths down first, then SB_PEER_EV_PEER_GONE) and their slots reused.
 */
static void
test_table_hygiene(void)
{
	struct host *a = &hosts[0], *c = &hosts[2];
	uint8_t mac[6];
	uint64_t t0;
	unsigned int i, k, n_c;
	int ci, bi;

	fresh_pair();
	a->t.conf.peer_evict = 2000 * MS;
	for (i = 0; i < 80; i++)
		forge_peer(1000 + i);
	SB_CHECK(a->t.n_peers == SB_MAX_PEERS && a->t.rejects[SB_PEER_REJ_TABLE_FULL] == 17,
		"80 forged ids: table full, 17 refused (%llu)",
		(unsigned long long)a->t.rejects[SB_PEER_REJ_TABLE_FULL]);
	run(50);	/* they fall silent (b speaks) */
	t0 = clock_now;
	host_init(c, 3);
	c->now = clock_now;
	run(300);	/* a probe round: c reports a's MTU good */
	ci = -1;
	for (i = 0; i < a->t.n_peers; i++)
		if (a->t.peer[i].host_id == 3)
			ci = (int)i;
	SB_CHECK(ci >= 0 && a->t.peer[ci].n_usable == 2 && a->t.displaced == 1,
		"c takes a silent forged peer's slot: index %d, %u paths, displaced %llu", ci,
		ci >= 0 ? a->t.peer[ci].n_usable : 0, (unsigned long long)a->t.displaced);
	SB_CHECK(ci >= 0 && peer_events(a, SB_PEER_EV_PEER_GONE, (unsigned int)ci, t0) == 1,
		"the forged peer's slot: PEER_GONE before c's NEW");
	/* A stream of new forged ids (one a millisecond) while b and c speak: they take each
	 * other's slots, never b's or c's. */
	for (k = 0; k < 300; k++) {
		forge_peer(2000 + k);
		run(1);
	}
	bi = 0;
	SB_CHECK(a->t.peer[bi].host_id == 2 && a->t.peer[bi].n_usable == 2 &&
		a->t.peer[ci].host_id == 3 && a->t.peer[ci].n_usable == 2,
		"300 forged ids later: b and c still in the table, paths in the stripe");
	SB_CHECK(a->t.displaced >= 250, "forged ids displaced each other: %llu",
		(unsigned long long)a->t.displaced);
	/* Every slot heard within two intervals: a newcomer is refused. */
	for (k = 0; k < 5; k++) {
		for (i = 0; i < a->t.n_peers; i++)
			if (a->t.peer[i].host_id >= 2000)
				forge_peer(a->t.peer[i].host_id);
		run(1);
	}
	n_c = (unsigned int)a->t.rejects[SB_PEER_REJ_TABLE_FULL];
	SB_CHECK(forge_peer(9999) == -ENOSPC &&
		a->t.rejects[SB_PEER_REJ_TABLE_FULL] == n_c + 1, "every peer live: newcomer refused");

	/* Forgers stop: 2 s later their entries are evicted, b and c stay. */
	t0 = clock_now;
	run(2100);
	SB_CHECK(a->t.evicted == SB_MAX_PEERS - 2, "forged peers evicted: %llu",
		(unsigned long long)a->t.evicted);
	for (i = 0, k = 0; i < a->t.n_peers; i++)
		k += a->t.peer[i].host_id != 0;
	SB_CHECK(k == 2 && a->t.peer[0].n_usable == 2 && a->t.peer[ci].n_usable == 2,
		"b and c remain (%u peers)", k);
	memcpy(mac, (const uint8_t[]){ 0x02, 0x77, 0, 0, 0x07, 0xd0 }, 6);
	SB_CHECK(sb_peer_lookup_mac(&a->t, mac) == -ENOENT &&
		sb_peer_lookup_mac(&a->t, (const uint8_t[]){ 0, 0, 0, 0, 0, 0 }) == -ENOENT,
		"evicted peers' MACs and free slots match nothing");
	port_mac(mac, 2, 0);
	SB_CHECK(sb_peer_lookup_rx(&a->t, 0, mac, 0, &i) == 0, "b still looked up");
	for (k = 0; k < a->t.n_peers && a->t.peer[k].host_id != 0; k++)
		;
	SB_CHECK(forge_peer(4242) == (int)k && a->t.peer[k].host_id == 4242,
		"a free slot is reused, lowest first (%u)", k);
	c->id = 0;
	memset(c, 0, sizeof(*c));
}

/* An evicted peer's paths go down with their events before PEER_GONE. */
static void
test_evict_order(void)
{
	struct host *a = &hosts[0], *b = &hosts[1];
	unsigned int i, down = 0, gone = 0, down_before = 0;
	uint64_t t0;

	fresh_pair();
	a->t.conf.peer_evict = 500 * MS;
	t0 = clock_now;
	b->id = 0;	/* b goes away */
	run(600);
	for (i = 0; i < a->n_ev; i++) {
		if (a->ev_time[i] < t0)
			continue;
		if (a->ev[i].type == SB_PEER_EV_PATH_DOWN) {
			down++;
			down_before += gone == 0;
		}
		gone += a->ev[i].type == SB_PEER_EV_PEER_GONE;
	}
	SB_CHECK(gone == 1 && down == 2 && down_before == 2 && a->t.evicted == 1 &&
		a->t.peer[0].host_id == 0, "b silent 500 ms: paths down, then gone (%u %u %u)",
		down, down_before, gone);
	b->id = 2;
	run(100);
	SB_CHECK(a->t.peer[0].host_id == 2 && a->t.peer[0].n_usable == 2 && a->t.n_peers == 1,
		"b back: same slot, paths up");
}

/* Default host ids: FNV-1a over machine-id and MAC, as documented, never 0, apart for two
 * instances on one machine (the testbed) and for two machines with one MAC. */
static void
test_host_id_derive(void)
{
	static const char id1[] = "0123456789abcdef0123456789abcdef";
	static const char id2[] = "fedcba9876543210fedcba9876543210";
	const uint8_t mac_a[SB_ETH_ALEN] = { 0x02, 0x53, 0x42, 0, 0, 1 };
	const uint8_t mac_b[SB_ETH_ALEN] = { 0x02, 0x53, 0x42, 0, 0, 2 };
	uint32_t h = UINT32_C(2166136261), a1;
	unsigned int i;

	/* The same arithmetic written out: the documented formula, not a copy of the code's
	 * loop structure, so a change of either shows. */
	for (i = 0; i < sizeof(id1) - 1; i++) {
		h ^= (uint8_t)id1[i];
		h *= UINT32_C(16777619);
	}
	for (i = 0; i < SB_ETH_ALEN; i++) {
		h ^= mac_a[i];
		h *= UINT32_C(16777619);
	}
	a1 = sb_peer_host_id_derive(id1, sizeof(id1) - 1, mac_a);
	SB_CHECK(a1 == h && a1 != 0, "host id: FNV-1a of machine-id then MAC (%08x)", a1);
	SB_CHECK(sb_peer_host_id_derive(id1, sizeof(id1) - 1, mac_a) == a1, "host id: stable");
	SB_CHECK(sb_peer_host_id_derive(id1, sizeof(id1) - 1, mac_b) != a1,
		"host id: two instances on one machine differ");
	SB_CHECK(sb_peer_host_id_derive(id2, sizeof(id2) - 1, mac_a) != a1,
		"host id: two machines with one MAC differ");
	SB_CHECK(sb_peer_host_id_derive("", 0, mac_a) != 0, "host id: never 0");
}

int
main(void)
{
	struct sb_peer_table t;
	struct sb_peer_conf bad = { .host_id = 0, .hz = HZ, .loss_window_ms = 1000,
		.probe_dead_mult = 3, .on_event = on_event };

	SB_CHECK(sb_peer_table_init(&t, &bad) == -EINVAL, "host id 0 refused");
	bad.host_id = 1;
	bad.probe_dead_mult = 1;
	SB_CHECK(sb_peer_table_init(&t, &bad) == -EINVAL, "probe multiplier 1 refused");

	host_init(&hosts[0], 1);
	host_init(&hosts[1], 2);
	test_three_way();
	test_mtu();
	test_loss();
	test_loss_clamp();
	test_port_restart();
	test_tick_stall();
	test_silence_hold();
	test_resume_skew();
	test_partial_and_refusals();
	test_unicast_seq();
	test_delay_spread();
	test_brief();
	test_seq_track();
	test_forged_restart();
	test_restart_limit();
	test_dup_host_id();
	test_forged_paths();
	test_forged_claims();
	test_forged_seq();
	test_table_hygiene();
	test_evict_order();
	test_host_id_derive();
	return sb_test_summary("test_peer");
}
