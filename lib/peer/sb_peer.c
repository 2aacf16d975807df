/* SPDX-License-Identifier: BSD-3-Clause */
/* Peer table: discovery, three-way path liveness, MTU probes, per-path loss and feedback
 * (sb_peer.h has the state machine and the rules). */
#include <errno.h>
#include <string.h>

#include "sb_peer.h"

/* A windowed minimum of the one-way delay, BBR-style: the minimum of the current and the
 * previous epoch, so a path whose delay grows for good is re-measured within two epochs. */
#define OWD_EPOCH_S 10
/* A hello sequence jump larger than this is a resynchronisation, not loss. */
#define MAX_COUNTED_GAP 100000u
/* The longest detection time (interval x multiplier, ms) a confirmation window is made of:
 * announced values are the sender's word, and up to 60 s x 255 are valid. */
#define CONFIRM_DETECT_MAX_MS 1000u

/* a - b in a serial space @p bits wide (RFC 1982), as a signed number. */
static inline int32_t
seq_sdiff(uint32_t a, uint32_t b, unsigned int bits)
{
	const unsigned int shift = 32 - bits;

	return (int32_t)((a - b) << shift) >> shift;
}

uint32_t
sb_seq_track_slow(struct sb_seq_track *s, uint32_t seq, uint32_t max_gap, unsigned int bits)
{
	const uint32_t mask = bits >= 32 ? UINT32_MAX : (UINT32_C(1) << bits) - 1;
	uint32_t lost = 0;
	int32_t d;

	seq &= mask;
	if (!s->valid) {
		s->next = (seq + 1) & mask;
		s->valid = 1;
		s->pending = 0;
		return 0;
	}
	if (s->pending) {
		int32_t dp = seq_sdiff(seq, (s->pend + 1) & mask, bits);

		s->pending = 0;
		if (dp >= 0 && (uint32_t)dp <= max_gap) {
			/* Its successor goes on from the jump: the sender's own numbering. */
			if (s->pend_far) {
				/* Renumbered from the successor itself: a gap between the two
				 * would be measured from a number nobody vouched for (a forged
				 * one just far enough behind made the honest next frame a
				 * confirmed gap of up to max_gap). */
				s->resyncs++;
				s->next = (seq + 1) & mask;
				return 0;
			}
			lost = s->pend_gap;
			s->next = (s->pend + 1) & mask;
		} else {
			s->strays++;	/* the stream went on from before it */
		}
	}
	d = seq_sdiff(seq, s->next, bits);
	if (d == 0) {
		s->next = (seq + 1) & mask;
	} else if (d > 0 || (uint64_t)-(int64_t)d > max_gap) {
		/* Ahead, or far behind: the next arrival decides. */
		s->pending = 1;
		s->pend = seq;
		s->pend_gap = d > 0 ? (uint32_t)d : 0;
		s->pend_far = d < 0 || (uint32_t)d > max_gap;
	}
	/* A little behind: a repeated number (unicast probes) or a reordered one. */
	return lost;
}

static const char *const state_names[] = { "down", "init", "up" };
static const char *const fault_names[SB_FAULT_MAX] = {
	[SB_FAULT_NONE] = "none", [SB_FAULT_SILENT] = "silent", [SB_FAULT_ONE_WAY] = "one-way",
	[SB_FAULT_PORT] = "port", [SB_FAULT_MTU] = "mtu", [SB_FAULT_LOSS] = "loss",
};

const char *
sb_path_state_str(unsigned int state)
{
	return state < sizeof(state_names) / sizeof(state_names[0]) ? state_names[state] : "?";
}

const char *
sb_path_fault_str(unsigned int fault)
{
	return fault < SB_FAULT_MAX ? fault_names[fault] : "?";
}

int
sb_peer_table_init(struct sb_peer_table *t, const struct sb_peer_conf *conf)
{
	if (conf == NULL || conf->host_id == 0 || conf->hz == 0 || conf->loss_window_ms < 10 ||
			conf->probe_dead_mult < 2 || conf->on_event == NULL)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->conf = *conf;
	sb_peer_map_init(&t->map);
	t->loss_sample_period = (uint64_t)conf->loss_window_ms * conf->hz / 1000 /
		(SB_PEER_LOSS_SAMPLES - 1);
	t->owd_epoch_len = OWD_EPOCH_S * conf->hz;
	return 0;
}

static void
emit(struct sb_peer_table *t, uint8_t type, unsigned int peer, unsigned int path,
	uint8_t fault)
{
	const struct sb_peer_event ev = {
		.type = type, .peer = (uint8_t)peer, .path = (uint8_t)path, .fault = fault,
	};

	t->conf.on_event(t->conf.event_arg, &ev);
}

uint32_t
sb_peer_clock_us(const struct sb_peer_table *t, uint64_t now)
{
	uint64_t hz = t->conf.hz;

	return (uint32_t)((now / hz) * 1000000 + (now % hz) * 1000000 / hz);
}

static uint64_t
detect_time(const struct sb_peer_table *t, const struct sb_path *path)
{
	return (uint64_t)path->remote_interval_ms * path->remote_mult * t->conf.hz / 1000;
}

static int
peer_find(const struct sb_peer_table *t, uint32_t host_id)
{
	unsigned int i;

	if (host_id == 0)
		return -ENOENT;	/* free slots */
	for (i = 0; i < t->n_peers; i++)
		if (t->peer[i].host_id == host_id)
			return i;
	return -ENOENT;
}

static void
peer_reset_paths(struct sb_peer_table *t, unsigned int idx)
{
	struct sb_peer *p = &t->peer[idx];

	p->n_paths = 0;
	p->n_up = 0;
	p->n_usable = 0;
	memset(p->path, 0, sizeof(p->path));
	sb_peer_map_reset_peer(&t->map, idx);
}

/* Up, and our full-size probes arrive (or we send none). */
static bool
path_sound(const struct sb_peer_table *t, const struct sb_path *path)
{
	return path->state == SB_PATH_UP && (!t->conf.probes_sent || path->fb.mtu_ok);
}

/*
 * Usable = in the stripe: UP, our full-size probes arrive (or we send none) and, unless every
 * such path of the peer loses as much, loss below the limit. Loss is relative on purpose: a
 * path that loses where its siblings do not is a gray failure and leaves the stripe, but when
 * every path loses (the peer's receiver or a shared bottleneck drops what TCP sends in a
 * burst) leaving them all out would turn loss into an outage. Emits STRIPE_IN/STRIPE_OUT on
 * change.
 */
static void
path_eval(struct sb_peer_table *t, unsigned int pi, unsigned int j, bool clean_sibling)
{
	struct sb_peer *p = &t->peer[pi];
	struct sb_path *path = &p->path[j];
	bool mtu_ok = !t->conf.probes_sent || path->fb.mtu_ok;
	bool usable = path->state == SB_PATH_UP && mtu_ok &&
		!(path->fb.lossy && clean_sibling);

	if (path->state == SB_PATH_UP && !usable)
		path->fault = !mtu_ok ? SB_FAULT_MTU : SB_FAULT_LOSS;
	if (usable == (bool)path->usable)
		return;
	path->usable = usable;
	if (usable) {
		p->n_usable++;
		path->fault = SB_FAULT_NONE;
		emit(t, SB_PEER_EV_STRIPE_IN, pi, j, SB_FAULT_NONE);
	} else {
		p->n_usable--;
		if (path->state == SB_PATH_UP)
			path->stripe_exits++;
		emit(t, SB_PEER_EV_STRIPE_OUT, pi, j, path->fault);
	}
}

/* Re-judge every path of peer @p pi: one path's change can move the others (loss is judged
 * against the clean paths). O(n_paths). */
static void
peer_eval(struct sb_peer_table *t, unsigned int pi)
{
	struct sb_peer *p = &t->peer[pi];
	unsigned int j, n_clean = 0;

	for (j = 0; j < p->n_paths; j++)
		if (path_sound(t, &p->path[j]) && !p->path[j].fb.lossy)
			n_clean++;
	for (j = 0; j < p->n_paths; j++)
		path_eval(t, pi, j, n_clean > 0);
}

static void
remote_tx_set(struct sb_peer_table *t, unsigned int pi, unsigned int j, bool on)
{
	struct sb_path *path = &t->peer[pi].path[j];

	if (on == (bool)path->fb.remote_tx)
		return;
	path->fb.remote_tx = on;
	emit(t, on ? SB_PEER_EV_RX_ACTIVE : SB_PEER_EV_RX_IDLE, pi, j, SB_FAULT_NONE);
}

static void
path_set_state(struct sb_peer_table *t, unsigned int pi, unsigned int j,
	enum sb_path_state st, enum sb_path_fault fault, uint64_t now)
{
	struct sb_peer *p = &t->peer[pi];
	struct sb_path *path = &p->path[j];
	enum sb_path_state old = path->state;

	if (old == st)
		return;
	path->state = st;
	if (st == SB_PATH_UP || old == SB_PATH_UP)
		/* Tell the peer at once: after a one-way fault it keeps striping frames into
		 * the fault until a hello of ours no longer lists it; after a heal it waits
		 * for one that does. */
		t->hello_due |= UINT32_C(1) << path->local_port;
	if (st == SB_PATH_UP) {
		path->up_since = now;
		path->transitions++;
		path->fault = SB_FAULT_NONE;
		p->n_up++;
		emit(t, SB_PEER_EV_PATH_UP, pi, j, SB_FAULT_NONE);
	} else {
		path->fault = fault;
		if (old == SB_PATH_UP) {
			path->down_since = now;
			path->transitions++;
			p->n_up--;
			emit(t, SB_PEER_EV_PATH_DOWN, pi, j, fault);
		}
	}
	if (st == SB_PATH_DOWN) {
		/* Nothing arrives any more: the peer's frames stop counting in our loss rule;
		 * sequence gaps across the outage are not loss (the data owner resyncs on
		 * PATH_DOWN too); the loss window restarts. */
		remote_tx_set(t, pi, j, false);
		sb_seq_track_resync(&path->rx.hseq);
		sb_seq_track_resync(&path->rx.useq);
		path->rx.last_uc = 0;
		path->fb.last_echo = 0;
		path->fb.mtu_ok = 0;
		path->fb.lossy = 0;
		path->fb.n_samples = 0;
		path->fb.loss_ppm = 0;
	}
	peer_eval(t, pi);
}

/* @p v clock units in milliseconds, without overflow at large clock values. */
static uint64_t
clock_ms(const struct sb_peer_table *t, uint64_t v)
{
	return v / t->conf.hz * 1000 + v % t->conf.hz * 1000 / t->conf.hz;
}

/* @p ms milliseconds in clock units. */
static uint64_t
ms_clock(const struct sb_peer_table *t, uint64_t ms)
{
	return ms * t->conf.hz / 1000;
}

/* Add the peer's latest report on path @p j of peer @p pi to the loss window and judge the
 * path. */
static void
loss_update(struct sb_peer_table *t, unsigned int pi, unsigned int j, uint64_t now)
{
	const struct sb_peer_conf *c = &t->conf;
	struct sb_path_fb *fb = &t->peer[pi].path[j].fb;
	const uint32_t tx = c->frames_tx != NULL ? c->frames_tx(c->event_arg, pi, j) : 0;
	unsigned int newest, oldest;
	uint32_t drx, dlost, dtx, missing;
	uint64_t total;

	newest = (fb->sample_head + fb->n_samples + SB_PEER_LOSS_SAMPLES - 1) %
		SB_PEER_LOSS_SAMPLES;
	if (fb->n_samples == 0 || now - fb->sample[newest].t >= t->loss_sample_period) {
		if (fb->n_samples == SB_PEER_LOSS_SAMPLES) {
			fb->sample_head = (fb->sample_head + 1) % SB_PEER_LOSS_SAMPLES;
			fb->n_samples--;
		}
		newest = (fb->sample_head + fb->n_samples) % SB_PEER_LOSS_SAMPLES;
		fb->sample[newest].t = now;
		fb->sample[newest].rx = fb->rx_frames;
		fb->sample[newest].lost = fb->lost_frames;
		fb->sample[newest].tx = tx;
		fb->n_samples++;
	}
	oldest = fb->sample_head;
	drx = fb->rx_frames - fb->sample[oldest].rx;
	dlost = fb->lost_frames - fb->sample[oldest].lost;
	/* No more lost than we sent and it did not receive: its count of gaps can be fooled by
	 * frames forged on its switch (struct sb_seq_track), our count of frames sent cannot.
	 * What we sent after its report only loosens the bound. */
	if (c->frames_tx != NULL) {
		dtx = tx - fb->sample[oldest].tx;
		missing = dtx > drx ? dtx - drx : 0;
		if (dlost > missing)
			dlost = missing;
	}
	total = (uint64_t)drx + dlost;
	if (c->loss_max_ppm == 0 || total < c->loss_min_frames || total == 0)
		return;
	fb->loss_ppm = (uint32_t)((uint64_t)dlost * 1000000 / total);
	if (!fb->lossy && fb->loss_ppm > c->loss_max_ppm)
		fb->lossy = 1;
	else if (fb->lossy && fb->loss_ppm <= c->loss_max_ppm / 2 &&
			fb->n_samples == SB_PEER_LOSS_SAMPLES)
		fb->lossy = 0;	/* clean over a whole window: back in */
}

/* One-way delay sample from a hello: receive time minus send time, both in us mod 2^32.
 * The hosts' clocks are not synchronised, but the offset is the same for every path from
 * one peer, so differences between paths and over time are true delays. */
static void
owd_sample(struct sb_path_rx *rx, uint32_t raw)
{
	if (!rx->owd_valid) {
		rx->owd_raw_min = rx->owd_raw_min_prev = rx->owd_raw_last = raw;
		rx->owd_raw_avg = raw;
		rx->owd_valid = 1;
		return;
	}
	rx->owd_raw_last = raw;
	/* Differences mod 2^32: the scale has an arbitrary offset and wraps. */
	rx->owd_raw_avg += (uint32_t)((int32_t)(raw - rx->owd_raw_avg) / 8);
	if ((int32_t)(raw - rx->owd_raw_min) < 0)
		rx->owd_raw_min = raw;
}

static void
owd_epoch(struct sb_peer_table *t, struct sb_peer *p, uint64_t now)
{
	unsigned int j;

	if (now - p->owd_epoch < t->owd_epoch_len)
		return;
	p->owd_epoch = now;
	for (j = 0; j < p->n_paths; j++) {
		struct sb_path_rx *rx = &p->path[j].rx;

		rx->owd_raw_min_prev = rx->owd_raw_min;
		rx->owd_raw_min = rx->owd_raw_last;
	}
}

/* The spread of peer @p p's delays now (see sb_peer_delay_spread_us()), into its buckets. */
static void
spread_update(struct sb_peer_table *t, struct sb_peer *p, uint64_t now)
{
	int32_t lo = 0, hi = 0;
	uint32_t base = 0;
	bool have = false;
	unsigned int j;

	if (now - p->spread_epoch >= t->conf.hz) {
		p->spread_epoch = now;
		p->spread_us[1] = p->spread_us[0];
		p->spread_us[0] = 0;
	}
	for (j = 0; j < p->n_paths; j++) {
		const struct sb_path *path = &p->path[j];
		int32_t d;

		if (path->state != SB_PATH_UP || !path->fb.remote_tx || !path->rx.owd_valid)
			continue;
		if (!have) {
			base = path->rx.owd_raw_avg;
			have = true;
		}
		d = (int32_t)(path->rx.owd_raw_avg - base);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	if ((uint32_t)(hi - lo) > p->spread_us[0])
		p->spread_us[0] = (uint32_t)(hi - lo);
}

uint32_t
sb_peer_delay_spread_us(const struct sb_peer_table *t, unsigned int peer)
{
	const struct sb_peer *p = &t->peer[peer];

	return p->spread_us[0] > p->spread_us[1] ? p->spread_us[0] : p->spread_us[1];
}

static uint32_t
owd_windowed_min(const struct sb_path_rx *rx)
{
	return (int32_t)(rx->owd_raw_min_prev - rx->owd_raw_min) < 0 ? rx->owd_raw_min_prev :
		rx->owd_raw_min;
}

/* The newest hello from peer @p p on any of its paths, clock units. */
static uint64_t
peer_last_heard(const struct sb_peer *p)
{
	uint64_t newest = 0;
	unsigned int j;

	for (j = 0; j < p->n_paths; j++)
		if (p->path[j].rx.last_hello > newest)
			newest = p->path[j].rx.last_hello;
	return newest;
}

/*
 * Hello number @p seq heard in stream @p st, whose previous hello came at @p last (0: none)
 * announcing @p prev_ms: gaps are lost hellos once the next hello confirms them, up to the
 * hellos the stream could have carried meanwhile (one per interval, the smaller of the two
 * announced, + 2 for triggered hellos and probes); a larger jump resyncs (struct
 * sb_seq_track). A number behind it (a reordered or repeated one) is not loss.
 */
static void
hello_seq_rx(const struct sb_peer_table *t, struct sb_path_rx *rx, struct sb_seq_track *st,
	const struct sb_hello *h, uint64_t last, uint16_t prev_ms, uint64_t now)
{
	uint32_t max_gap = MAX_COUNTED_GAP - 1;
	uint16_t ival = prev_ms != 0 && prev_ms < h->interval_ms ? prev_ms : h->interval_ms;

	if (last != 0 && now >= last) {
		uint64_t n = clock_ms(t, now - last) / (ival != 0 ? ival : 1) + 2;

		if (n < max_gap)
			max_gap = (uint32_t)n;
	}
	rx->hello_lost += sb_seq_track_rx(st, h->hello_seq, max_gap, 32);
}

/*
 * The hello and probe intervals that set @p path's detection times after hello @p h: its
 * own, unless the peer also sends this path unicast hellos at a faster pace (docs/design.md,
 * "Unicast hellos") and the last of them is still within its detection time. A group hello
 * at the idle pace must not lengthen either time until the next unicast one: if the path
 * fails in between, that next one never comes (a cut then took 336 ms to detect instead of
 * 40 in test_cluster_faults), and if only its large frames fail, the group hello's long
 * probe interval reported the MTU as fine again until the next unicast hello (the path
 * flapped in and out of the stripe every 100-200 ms under an oversize cut).
 */
static void
hello_pace_rx(const struct sb_peer_table *t, struct sb_path *path, const struct sb_hello *h,
	uint64_t now)
{
	struct sb_path_rx *rx = &path->rx;
	bool uc_recent;

	path->remote_interval_ms = h->interval_ms;
	path->remote_probe_ms = h->probe_interval_ms;
	if (h->flags & SB_HELLO_F_UNICAST) {
		rx->uc_interval_ms = h->interval_ms;
		rx->uc_probe_ms = h->probe_interval_ms;
		rx->last_uc = now;
		return;
	}
	uc_recent = rx->last_uc != 0 && now >= rx->last_uc &&
		now - rx->last_uc <= (uint64_t)rx->uc_interval_ms * h->multiplier *
		t->conf.hz / 1000;
	if (!uc_recent)
		return;
	if (rx->uc_interval_ms < h->interval_ms)
		path->remote_interval_ms = rx->uc_interval_ms;
	if (rx->uc_probe_ms != 0 && rx->uc_probe_ms < h->probe_interval_ms)
		path->remote_probe_ms = rx->uc_probe_ms;
}

/* Two detection times of hello @p h, counting at most CONFIRM_DETECT_MAX_MS for one: the
 * window within which a claim or a new path must be heard again to be confirmed. */
static uint64_t
confirm_window(const struct sb_peer_table *t, const struct sb_hello *h)
{
	uint64_t ms = (uint64_t)h->interval_ms * h->multiplier;

	return 2 * ms_clock(t, ms < CONFIRM_DETECT_MAX_MS ? ms : CONFIRM_DETECT_MAX_MS);
}

static uint64_t
evict_after(const struct sb_peer_table *t)
{
	return t->conf.peer_evict != 0 ? t->conf.peer_evict : SB_PEER_EVICT_DEFAULT_S * t->conf.hz;
}

static uint64_t
restart_holddown(const struct sb_peer_table *t)
{
	return t->conf.restart_holddown != 0 ? t->conf.restart_holddown :
		SB_PEER_RESTART_HOLDDOWN_DEFAULT_S * t->conf.hz;
}

static unsigned int
popcount32(uint32_t v)
{
	return (unsigned int)__builtin_popcount(v);
}

/* Our ports with a path of peer @p p that is not down (bit per port). */
static uint32_t
live_ports(const struct sb_peer *p)
{
	uint32_t m = 0;
	unsigned int j;

	for (j = 0; j < p->n_paths; j++)
		if (p->path[j].state != SB_PATH_DOWN)
			m |= UINT32_C(1) << p->path[j].local_port;
	return m;
}

/* Our ports on which peer @p p's known instance was heard since @p since (bit per port). */
static uint32_t
heard_ports(const struct sb_peer *p, uint64_t since)
{
	uint32_t m = 0;
	unsigned int j;

	for (j = 0; j < p->n_paths; j++)
		if (p->path[j].rx.last_hello != 0 && p->path[j].rx.last_hello >= since)
			m |= UINT32_C(1) << p->path[j].local_port;
	return m;
}

/* Peer @p idx leaves the table: its paths go down (their events), SB_PEER_EV_PEER_GONE,
 * then its slot is free. */
static void
peer_evict(struct sb_peer_table *t, unsigned int idx, uint64_t now)
{
	struct sb_peer *p = &t->peer[idx];
	unsigned int j;

	for (j = 0; j < p->n_paths; j++)
		path_set_state(t, idx, j, SB_PATH_DOWN, SB_FAULT_SILENT, now);
	emit(t, SB_PEER_EV_PEER_GONE, idx, 0, SB_FAULT_NONE);
	memset(p, 0, sizeof(*p));
	sb_peer_map_clear_peer(&t->map, idx);
}

/* May a new peer take peer @p p's slot when the table is full? Not while it has a path UP
 * and was heard lately: a peer with live paths is never refused in favour of silent ones. */
static bool
displaceable(const struct sb_peer_table *t, const struct sb_peer *p, uint64_t now)
{
	uint64_t quiet = now > p->last_heard ? now - p->last_heard : 0;
	uint64_t grace = ms_clock(t, 2 * (uint64_t)p->interval_ms);

	if (quiet >= ms_clock(t, SB_PEER_RECLAIM_MS))
		return true;
	return p->n_up == 0 && quiet >= grace;
}

/* A slot for a new peer: a free one, a new one, or the one of the peer unheard longest
 * that may give it up (displaceable()). @return its index, or -ENOSPC. */
static int
peer_slot(struct sb_peer_table *t, uint64_t now)
{
	int victim = -1;
	unsigned int i;

	for (i = 0; i < t->n_peers; i++)
		if (t->peer[i].host_id == 0)
			return i;
	if (t->n_peers < SB_MAX_PEERS)
		return t->n_peers++;
	for (i = 0; i < t->n_peers; i++)
		if (displaceable(t, &t->peer[i], now) &&
				(victim < 0 || t->peer[i].last_heard < t->peer[victim].last_heard))
			victim = i;
	if (victim < 0)
		return -ENOSPC;
	peer_evict(t, victim, now);
	t->displaced++;
	return victim;
}

/* Bind the identity of peer @p p's instance to hello @p h: port count, no port MAC yet, no
 * path waiting, no claim. */
static void
identity_bind(struct sb_peer *p, const struct sb_hello *h)
{
	p->instance = h->instance;
	p->n_ports = h->n_ports;
	p->port_known = 0;
	memset(p->port_mac, 0, sizeof(p->port_mac));
	memset(p->pending, 0, sizeof(p->pending));
	memset(&p->claim, 0, sizeof(p->claim));
}

/* First hello of host id h->host_id. @return its index, or -ENOSPC (counted). */
static int
peer_new(struct sb_peer_table *t, const struct sb_hello *h, uint64_t now)
{
	struct sb_peer *p;
	int idx = peer_slot(t, now);

	if (idx < 0) {
		t->rejects[SB_PEER_REJ_TABLE_FULL]++;
		return -ENOSPC;
	}
	p = &t->peer[idx];
	memset(p, 0, sizeof(*p));
	p->host_id = h->host_id;
	identity_bind(p, h);
	p->owd_epoch = now;
	p->last_heard = now;
	memcpy(p->agg_mac, h->agg_mac, SB_ETH_ALEN);
	sb_peer_map_set_peer(&t->map, idx, h->host_id, h->agg_mac);
	peer_reset_paths(t, idx);
	emit(t, SB_PEER_EV_NEW, idx, 0, SB_FAULT_NONE);
	return idx;
}

/* The claim of peer @p p ends unbelieved. */
static void
claim_refused(struct sb_peer_table *t, struct sb_peer *p)
{
	if (p->claim.first == 0)
		return;
	p->claims_refused++;
	t->restarts_refused++;
	memset(&p->claim, 0, sizeof(p->claim));
}

/* A confirmed claim while the known instance is heard: a second host with the host id. */
static void
dup_found(struct sb_peer_table *t, unsigned int idx, uint64_t now)
{
	struct sb_peer *p = &t->peer[idx];
	struct sb_peer_claim *c = &p->claim;

	p->dup = (struct sb_peer_dup){
		.active = 1, .local_port = c->local_port, .instance = c->instance,
		.since = now, .last = now,
	};
	memcpy(p->dup.agg_mac, c->agg_mac, SB_ETH_ALEN);
	memcpy(p->dup.port_mac, c->port_mac, SB_ETH_ALEN);
	t->dup_host_ids++;
	claim_refused(t, p);
	emit(t, SB_PEER_EV_DUP_HOST_ID, idx, 0, SB_FAULT_NONE);
}

/* The restart of peer @p idx is believed: forget its paths and bind the new identity. */
static void
restart_believe(struct sb_peer_table *t, unsigned int idx, const struct sb_hello *h,
	uint64_t now)
{
	struct sb_peer *p = &t->peer[idx];

	/* A restarted peer numbers its frames afresh and may have renumbered its ports:
	 * forget its paths; they come back with its hellos. */
	identity_bind(p, h);
	if (p->dup.active && p->dup.instance == h->instance)
		p->dup.active = 0;	/* the duplicate took over from a host now gone */
	p->last_reset = now;
	p->restarts++;
	t->restarts++;
	peer_reset_paths(t, idx);
	emit(t, SB_PEER_EV_RESTART, idx, 0, SB_FAULT_NONE);
}

/*
 * Hello @p h of another instance of known peer @p idx (sb_peer_hello_rx() in sb_peer.h has
 * the rules). @return 0 when the restart was believed now (the hello is the new instance's
 * first contact), -EAGAIN while the claim waits, -EINVAL when refused.
 */
static int
claim_rx(struct sb_peer_table *t, unsigned int idx, unsigned int local_port,
	const uint8_t *src_mac, const struct sb_hello *h, uint64_t now)
{
	struct sb_peer *p = &t->peer[idx];
	struct sb_peer_claim *c = &p->claim;
	const uint32_t live = live_ports(p);
	const unsigned int n_live = popcount32(live);
	const uint64_t span = ms_clock(t, 2 * (uint64_t)(p->interval_ms != 0 ? p->interval_ms : 1));
	unsigned int need;
	bool confirmed;

	if (p->dup.active && h->instance == p->dup.instance) {
		if (n_live != 0) {
			p->dup.last = now;
			p->dup.hellos++;
			t->rejects[SB_PEER_REJ_DUP]++;
			return -EINVAL;
		}
		/* The first host has no live path left: the other may take its place. */
	}
	if (c->first == 0 || c->instance != h->instance ||
			now - (c->confirmed ? c->last : c->first) > confirm_window(t, h)) {
		claim_refused(t, p);
		c->first = now;
		c->instance = h->instance;
		c->local_port = (uint8_t)local_port;
		memcpy(c->agg_mac, h->agg_mac, SB_ETH_ALEN);
		memcpy(c->port_mac, src_mac, SB_ETH_ALEN);
	}
	c->local_ports |= UINT32_C(1) << local_port;
	/* Peer heard on one port of ours (or none): the claim counts there (anywhere). */
	if (n_live == 0 || (n_live == 1 && (live & (UINT32_C(1) << local_port))))
		c->hellos++;
	if (c->hellos_any < UINT16_MAX)
		c->hellos_any++;
	c->last = now;
	confirmed = popcount32(c->local_ports) >= 2 || (n_live <= 1 && c->hellos >= 2);
	c->confirmed |= confirmed;
	need = n_live >= 2 ? 2 : 1;
	if (!confirmed) {
		/* Heard on one port only, again and again, while the known instance speaks on
		 * others: not a restart (it never silenced them), a second host. */
		if (n_live >= 2 && c->hellos_any >= SB_PEER_DUP_HELLOS &&
				popcount32(heard_ports(p, c->first)) >= need) {
			dup_found(t, idx, now);
			t->rejects[SB_PEER_REJ_DUP]++;
			return -EINVAL;
		}
		t->rejects[SB_PEER_REJ_CLAIM]++;
		return -EAGAIN;
	}
	/* The known instance spoke since the claim began, where one forger could not make it
	 * speak: two hosts. */
	if (popcount32(heard_ports(p, c->first)) >= need) {
		dup_found(t, idx, now);
		t->rejects[SB_PEER_REJ_DUP]++;
		return -EINVAL;
	}
	/* An honest restart silences the old instance for a whole start-up: wait until it has
	 * been quiet for two of its intervals. */
	if (popcount32(heard_ports(p, now >= span ? now - span + 1 : 0)) >= need) {
		t->rejects[SB_PEER_REJ_CLAIM]++;
		return -EAGAIN;
	}
	if (p->last_reset != 0 && now - p->last_reset < restart_holddown(t)) {
		if (!c->limited)
			t->restarts_limited++;
		c->limited = 1;
		t->rejects[SB_PEER_REJ_CLAIM]++;
		return -EAGAIN;
	}
	restart_believe(t, idx, h, now);
	return 0;
}

/*
 * Hello @p h of the known instance of peer @p idx from source @p src_mac on our
 * @p local_port: is it the peer's identity as bound? @return 0, or -EINVAL (counted).
 */
static int
identity_check(struct sb_peer_table *t, unsigned int idx, unsigned int local_port,
	const uint8_t *src_mac, const struct sb_hello *h)
{
	const struct sb_peer *p = &t->peer[idx];
	unsigned int j;

	if (h->n_ports != p->n_ports || memcmp(h->agg_mac, p->agg_mac, SB_ETH_ALEN) != 0) {
		t->rejects[SB_PEER_REJ_IDENTITY]++;
		return -EINVAL;
	}
	if ((p->port_known & (UINT32_C(1) << h->port_index)) &&
			memcmp(p->port_mac[h->port_index], src_mac, SB_ETH_ALEN) != 0) {
		t->rejects[SB_PEER_REJ_PORT_MAC]++;
		return -EINVAL;
	}
	/* Another port's MAC on the same port of ours: a path to a port that is not there.
	 * (Ports of one host may share a MAC on point-to-point links: ring ports do.) */
	for (j = 0; j < p->n_paths; j++)
		if (p->path[j].local_port == local_port &&
				p->path[j].remote_port != h->port_index &&
				memcmp(p->path[j].remote_mac, src_mac, SB_ETH_ALEN) == 0) {
			t->rejects[SB_PEER_REJ_PORT_MAC]++;
			return -EINVAL;
		}
	return 0;
}

/*
 * A first hello on (our @p local_port, its port h->port_index) from @p src_mac: does it
 * confirm a path heard once before, within the confirmation window? Otherwise it is kept
 * (in a free or expired slot, else in place of the oldest) for the next hello to confirm,
 * with @p probe: when it was a full-size probe, the time it came (0 when not). On
 * confirmation, *probe is set to the first hello's (a probe then proves the MTU as it
 * would have, had the path been made at once).
 */
static bool
path_confirmed(struct sb_peer_table *t, struct sb_peer *p, unsigned int local_port,
	const uint8_t *src_mac, const struct sb_hello *h, uint64_t now, uint64_t *probe)
{
	const uint64_t win = confirm_window(t, h);
	struct sb_path_pending *slot = NULL;
	bool slot_live = true;
	unsigned int k;

	for (k = 0; k < SB_PEER_PENDING; k++) {
		struct sb_path_pending *q = &p->pending[k];
		bool live = q->first != 0 && now - q->first <= win;

		if (live && q->local_port == local_port && q->remote_port == h->port_index &&
				memcmp(q->mac, src_mac, SB_ETH_ALEN) == 0) {
			q->first = 0;
			*probe = q->probe;
			return true;
		}
		/* Room: a free or expired slot first, else the oldest. */
		if (!live && slot_live) {
			slot = q;
			slot_live = false;
		} else if (live && slot_live && (slot == NULL || q->first < slot->first)) {
			slot = q;
		}
	}
	slot->first = now;
	slot->probe = *probe;
	slot->local_port = (uint8_t)local_port;
	slot->remote_port = h->port_index;
	memcpy(slot->mac, src_mac, SB_ETH_ALEN);
	return false;
}

/*
 * The path hello @p h came through, made when new (at once on first contact or when its
 * port's MAC is learnt, else once confirmed). @return its index, -EAGAIN (a first hello of
 * a path, kept for confirmation) or -ENOSPC (counted).
 */
static int
path_admit(struct sb_peer_table *t, unsigned int idx, unsigned int local_port,
	const uint8_t *src_mac, const struct sb_hello *h, bool first_contact, bool probe,
	uint64_t now)
{
	struct sb_peer *p = &t->peer[idx];
	struct sb_path *path;
	uint64_t probe_t = probe ? now : 0;
	unsigned int i;
	int pi = t->map.peer[idx].path_of[h->port_index][local_port];

	if (pi >= 0)
		return pi;
	if (!first_contact && !(p->port_known & (UINT32_C(1) << h->port_index)) &&
			!path_confirmed(t, p, local_port, src_mac, h, now, &probe_t))
		return -EAGAIN;
	if (p->n_paths == SB_PEER_MAX_PATHS) {
		t->rejects[SB_PEER_REJ_TABLE_FULL]++;
		return -ENOSPC;
	}
	pi = p->n_paths++;
	path = &p->path[pi];
	path->local_port = local_port;
	path->remote_port = h->port_index;
	path->remote_fanin = 1;
	path->rx.last_probe = probe_t;
	for (i = 0; i < (unsigned int)pi; i++)
		if (p->path[i].remote_port == h->port_index) {
			p->path[i].remote_fanin++;
			path->remote_fanin++;
		}
	if (!(p->port_known & (UINT32_C(1) << h->port_index))) {
		p->port_known |= UINT32_C(1) << h->port_index;
		memcpy(p->port_mac[h->port_index], src_mac, SB_ETH_ALEN);
	}
	return pi;
}

/*
 * Which peer hello @p h speaks for, after the identity rules (sb_peer_hello_rx() in
 * sb_peer.h). @return its index, -EAGAIN (a restart claim waiting) or -EINVAL/-ENOSPC;
 * *first_contact tells whether the hello is the first of its instance.
 */
static int
peer_admit(struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	const struct sb_hello *h, uint64_t now, bool *first_contact)
{
	struct sb_peer *p;
	int idx = peer_find(t, h->host_id), ret;

	*first_contact = false;
	if (idx < 0) {
		*first_contact = true;
		return peer_new(t, h, now);
	}
	p = &t->peer[idx];
	if (p->instance != h->instance) {
		ret = claim_rx(t, idx, local_port, src_mac, h, now);
		if (ret < 0)
			return ret;
		*first_contact = true;
		if (memcmp(p->agg_mac, h->agg_mac, SB_ETH_ALEN) != 0) {
			memcpy(p->agg_mac, h->agg_mac, SB_ETH_ALEN);
			sb_peer_map_set_peer(&t->map, idx, h->host_id, h->agg_mac);
			emit(t, SB_PEER_EV_AGG_MAC, idx, 0, SB_FAULT_NONE);
		}
		return idx;
	}
	ret = identity_check(t, idx, local_port, src_mac, h);
	return ret < 0 ? ret : idx;
}

int
sb_peer_hello_rx(struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	const struct sb_hello *h, uint32_t frame_len, uint16_t local_mtu, uint64_t now)
{
	struct sb_hello_entry e;
	struct sb_peer *p;
	struct sb_path *path;
	uint64_t last, grp_last, uc_last;
	uint16_t grp_ms, uc_ms;
	bool listed = false, first_contact;
	unsigned int i;
	int pi, idx;

	if (h->host_id == t->conf.host_id) {
		t->rejects[SB_PEER_REJ_SELF]++;
		return -EINVAL;
	}
	if (local_port >= SB_MAX_PORTS || h->port_index >= SB_MAX_PORTS) {
		t->rejects[SB_PEER_REJ_BAD_PORT]++;
		return -EINVAL;
	}
	if (h->mtu < (local_mtu < SB_PEER_MTU_FLOOR ? local_mtu : SB_PEER_MTU_FLOOR)) {
		t->rejects[SB_PEER_REJ_MTU]++;
		return -EINVAL;
	}

	idx = peer_admit(t, local_port, src_mac, h, now, &first_contact);
	if (idx < 0)
		return idx;
	p = &t->peer[idx];
	pi = path_admit(t, idx, local_port, src_mac, h, first_contact,
		(h->flags & SB_HELLO_F_PROBE) && frame_len >= (uint32_t)(h->mtu < local_mtu ?
			h->mtu : local_mtu) + SB_ETH_HLEN, now);
	if (pi == -EAGAIN)
		return idx;	/* a new path heard once: the next hello confirms it */
	if (pi < 0)
		return pi;

	p->interval_ms = h->interval_ms;
	last = peer_last_heard(p);
	if (last != 0 && now > last && now - last > 2 * (uint64_t)h->interval_ms * t->conf.hz / 1000)
		p->resumed = now;	/* heard again after a silence on every path: sb_peer_tick() */
	p->last_heard = now;
	if (p->silent) {
		/* Before any path moves, so that the owner sees what the silence cost. */
		if (!p->silence_expired)
			t->silence_heard++;
		emit(t, SB_PEER_EV_HEARD, idx, 0, SB_FAULT_NONE);
		p->silent = 0;
		p->silence_expired = 0;
	}

	if (p->path[pi].state == SB_PATH_DOWN)
		/* A path (re)appears: probe its MTU now, not at the next probe interval. */
		t->probe_due |= UINT32_C(1) << local_port;
	path = &p->path[pi];
	if (path->rx.hellos_rx == 0 || memcmp(path->remote_mac, src_mac, SB_ETH_ALEN) != 0) {
		memcpy(path->remote_mac, src_mac, SB_ETH_ALEN);
		sb_peer_map_set_path(&t->map, idx, pi, local_port, h->port_index, src_mac);
		emit(t, SB_PEER_EV_PATH_NEW, idx, pi, SB_FAULT_NONE);
	}
	path->remote_mtu = h->mtu;
	path->remote_rate_kbps = h->rate_kbps;
	if (h->rate_kbps != 0 && h->rate_kbps < SB_PEER_RATE_FLOOR_KBPS) {
		path->remote_rate_kbps = SB_PEER_RATE_FLOOR_KBPS;
		t->rate_clamped++;
	}
	/* What each numbered stream last announced and when, before this hello moves them. */
	grp_last = path->rx.last_group;
	grp_ms = path->remote_interval_ms;
	uc_last = path->rx.last_uc;
	uc_ms = path->rx.uc_interval_ms;
	hello_pace_rx(t, path, h, now);
	path->remote_mult = h->multiplier;

	/* Our measurements of the peer's frames on this path. */
	if (path->rx.hellos_rx == 0)
		path->rx.first_hello = now;
	path->rx.last_hello = now;
	path->rx.hellos_rx++;
	path->rx.hello_bytes += frame_len;
	if (h->flags & SB_HELLO_F_UNICAST) {
		hello_seq_rx(t, &path->rx, &path->rx.useq, h, uc_last, uc_ms, now);
	} else {
		hello_seq_rx(t, &path->rx, &path->rx.hseq, h, grp_last, grp_ms, now);
		path->rx.last_group = now;
	}
	if ((h->flags & SB_HELLO_F_PROBE) &&
			frame_len >= (uint32_t)sb_path_mtu(path, local_mtu) + SB_ETH_HLEN)
		path->rx.last_probe = now;
	owd_epoch(t, p, now);
	owd_sample(&path->rx, sb_peer_clock_us(t, now) - h->tx_time_us);
	spread_update(t, &t->peer[idx], now);

	/* The peer's report on our frames: the entry naming us and this port. */
	for (i = 0; i < h->n_entries; i++) {
		if (sb_wire_hello_entry_get(h, i, &e) != SB_WIRE_OK) {
			t->rejects[SB_PEER_REJ_BAD_ENTRY]++;
			continue;
		}
		if (e.host_id != t->conf.host_id || e.port != local_port)
			continue;
		listed = true;
		path->fb.last_echo = now;
		path->fb.mtu_ok = (e.flags & SB_ENTRY_F_MTU_OK) != 0;
		remote_tx_set(t, idx, pi, (e.flags & SB_ENTRY_F_TX) != 0);
		if (h->flags & SB_HELLO_F_BRIEF)
			break;	/* who hears whom, no measurements: keep the last report's */
		path->fb.last_report = now;
		path->fb.rx_frames = e.rx_frames;
		path->fb.lost_frames = e.lost_frames;
		path->fb.rate_kbps = e.rate_kbps;
		path->fb.owd_min_us = e.owd_min_us;
		path->fb.owd_us = e.owd_us;
		loss_update(t, idx, pi, now);
		emit(t, SB_PEER_EV_FEEDBACK, idx, pi, SB_FAULT_NONE);
		break;
	}

	if (listed)
		path_set_state(t, idx, pi, SB_PATH_UP, SB_FAULT_NONE, now);
	else if (path->state == SB_PATH_DOWN)
		path_set_state(t, idx, pi, SB_PATH_INIT, SB_FAULT_ONE_WAY, now);
	else if (path->state == SB_PATH_UP && !(h->flags & SB_HELLO_F_PARTIAL))
		/* A complete list without us: the peer no longer hears us. */
		path_set_state(t, idx, pi, SB_PATH_INIT, SB_FAULT_ONE_WAY, now);
	if (!listed && !(h->flags & SB_HELLO_F_PARTIAL))
		remote_tx_set(t, idx, pi, false);
	peer_eval(t, idx);
	return idx;
}

/* Move @p v forward by @p gap, not past @p now; 0 (never) stays 0. */
static inline uint64_t
timer_defer(uint64_t v, uint64_t gap, uint64_t now)
{
	if (v == 0)
		return 0;
	return v + gap < now ? v + gap : now;
}

/* The owner's lcore did not run for @p gap: see sb_peer_tick(). */
static void
tick_stall(struct sb_peer_table *t, uint64_t gap, uint64_t now)
{
	unsigned int i, j;

	for (i = 0; i < t->n_peers; i++) {
		struct sb_peer *p = &t->peer[i];

		p->resumed = timer_defer(p->resumed, gap, now);
		p->last_heard = timer_defer(p->last_heard, gap, now);
		p->dup.last = timer_defer(p->dup.last, gap, now);
		for (j = 0; j < p->n_paths; j++) {
			struct sb_path *path = &p->path[j];

			path->rx.last_hello = timer_defer(path->rx.last_hello, gap, now);
			path->rx.last_probe = timer_defer(path->rx.last_probe, gap, now);
			path->fb.last_echo = timer_defer(path->fb.last_echo, gap, now);
		}
	}
	t->tick_stalls++;
	t->tick_stall_last = gap;
	if (gap > t->tick_stall_max)
		t->tick_stall_max = gap;
}

/*
 * Path @p j of peer @p pi has been silent for its detection time @p dead: true while it is
 * to be held because the whole peer fell silent at once (sb_peer_tick() in sb_peer.h),
 * @p newest being the peer's newest hello on any path.
 */
static bool
silence_held(struct sb_peer_table *t, unsigned int pi, unsigned int j, uint64_t newest,
	uint64_t dead, uint64_t now)
{
	struct sb_peer *p = &t->peer[pi];
	const struct sb_path *path = &p->path[j];
	uint64_t interval = (uint64_t)path->remote_interval_ms * t->conf.hz / 1000;

	if (t->conf.silence_hold == 0)
		return false;
	if (newest - path->rx.last_hello >= 2 * interval && now - newest <= dead) {
		/* Heard since on another path, two rounds later, and lately: this path failed,
		 * unless the peer has only just been heard again after a silence and this
		 * path's hellos of that moment are still on their way (sb_peer_tick() in
		 * sb_peer.h). */
		return p->resumed != 0 && now - p->resumed <= dead &&
			now - path->rx.last_hello <= dead + t->conf.silence_hold;
	}
	if (now - newest > dead + t->conf.silence_hold) {
		p->silence_expired = p->silent;
		return false;	/* silent longer than the hold: down after all */
	}
	if (!p->silent) {
		p->silent = 1;
		p->silence_expired = 0;
		p->silent_from = newest;
		t->silence_holds++;
		emit(t, SB_PEER_EV_SILENT, pi, j, SB_FAULT_SILENT);
	}
	return true;
}

void
sb_peer_tick(struct sb_peer_table *t, uint64_t now)
{
	unsigned int i, j;

	if (t->conf.tick_stall != 0 && t->last_tick != 0 && now > t->last_tick &&
			now - t->last_tick > t->conf.tick_stall)
		tick_stall(t, now - t->last_tick, now);
	t->last_tick = now;
	for (i = 0; i < t->n_peers; i++) {
		struct sb_peer *p = &t->peer[i];
		uint64_t newest = peer_last_heard(p);

		if (p->host_id == 0)
			continue;	/* a free slot */
		if (now > p->last_heard && now - p->last_heard >= evict_after(t)) {
			peer_evict(t, i, now);
			t->evicted++;
			continue;
		}
		if (p->dup.active && now > p->dup.last &&
				now - p->dup.last >= SB_PEER_DUP_FORGET_S * t->conf.hz)
			p->dup.active = 0;
		for (j = 0; j < p->n_paths; j++) {
			struct sb_path *path = &p->path[j];
			uint64_t dead = detect_time(t, path);

			if (path->state != SB_PATH_DOWN && now - path->rx.last_hello > dead) {
				if (silence_held(t, i, j, newest, dead, now))
					continue;	/* nor judged one-way: it sent nothing */
				path_set_state(t, i, j, SB_PATH_DOWN, SB_FAULT_SILENT, now);
			} else if (path->state == SB_PATH_UP && now - path->fb.last_echo > dead) {
				/* Only partial hellos lately, none listing us. */
				path_set_state(t, i, j, SB_PATH_INIT, SB_FAULT_ONE_WAY, now);
			}
		}
	}
}

/* Our report on the peer's full-size probes over @p path. */
static bool
probes_arrive(const struct sb_peer_table *t, const struct sb_path *path, uint64_t now)
{
	uint64_t dead;

	if (path->remote_probe_ms == 0)
		return true;	/* the peer checks nothing: nothing to report missing */
	dead = (uint64_t)path->remote_probe_ms * t->conf.probe_dead_mult * t->conf.hz / 1000;
	return path->rx.last_probe != 0 && now - path->rx.last_probe <= dead;
}

/*
 * Our entry for path @p j of peer @p pi. A @p brief one (a group hello at the idle pace)
 * carries who is heard and the flags only: it leaves the delivered-rate window running, so
 * the next full entry (a unicast hello or a probe) reports the rate since the last full one.
 */
static void
entry_fill(struct sb_peer_table *t, unsigned int pi, unsigned int j, uint64_t now,
	bool port_busy, bool brief, struct sb_hello_entry *e)
{
	const struct sb_peer *p = &t->peer[pi];
	struct sb_path *path = &t->peer[pi].path[j];
	struct sb_path_rx *rx = &path->rx;
	struct sb_path_data d = { 0 };
	uint64_t bytes;
	uint32_t base = 0;
	bool have_base = false;
	unsigned int k;

	if (t->conf.data_rx != NULL)
		t->conf.data_rx(t->conf.event_arg, pi, j, &d);
	/* DATA at our port's full MTU arrived since the last entry: the path MTU holds, as a
	 * probe would have shown (the sender then leaves its probe out). */
	if (d.full != rx->full_seen) {
		rx->full_seen = d.full;
		rx->last_probe = now;
	}
	*e = (struct sb_hello_entry){
		.host_id = p->host_id,
		.port = path->remote_port,
		.flags = (probes_arrive(t, path, now) ? SB_ENTRY_F_MTU_OK : 0) |
			(path->usable || port_busy ? SB_ENTRY_F_TX : 0),
	};
	if (brief)
		return;
	bytes = rx->hello_bytes + d.bytes;
	if (rx->rate_mark_time != 0 && now > rx->rate_mark_time && bytes >= rx->rate_mark_bytes)
		rx->rate_kbps = (uint32_t)((bytes - rx->rate_mark_bytes) * 8 * t->conf.hz /
			(now - rx->rate_mark_time) / 1000);
	rx->rate_mark_time = now;
	rx->rate_mark_bytes = bytes;

	/* Delays are given above the smallest windowed minimum among the peer's paths. */
	for (k = 0; k < p->n_paths; k++) {
		const struct sb_path_rx *o = &p->path[k].rx;
		uint32_t m;

		if (!o->owd_valid || p->path[k].state == SB_PATH_DOWN)
			continue;
		m = owd_windowed_min(o);
		if (!have_base || (int32_t)(m - base) < 0)
			base = m;
		have_base = true;
	}
	e->rx_frames = (uint32_t)rx->hellos_rx + d.frames;
	e->lost_frames = rx->hello_lost + d.lost;
	e->rate_kbps = rx->rate_kbps;
	if (rx->owd_valid && have_base) {
		int32_t dmin = (int32_t)(owd_windowed_min(rx) - base);
		int32_t dcur = (int32_t)(rx->owd_raw_last - base);

		e->owd_min_us = dmin > 0 ? (uint32_t)dmin : 0;
		e->owd_us = dcur > 0 ? (uint32_t)dcur : 0;
	}
}

unsigned int
sb_peer_hello_entries(struct sb_peer_table *t, unsigned int local_port, uint64_t now,
	bool port_busy, struct sb_hello_entry *entries, unsigned int max, unsigned int *cursor,
	bool *partial, bool brief)
{
	struct { uint8_t peer, path; } cand[SB_MAX_PEERS * SB_PEER_MAX_PATHS];
	unsigned int i, j, n = 0, total = 0, start;

	for (i = 0; i < t->n_peers; i++)
		for (j = 0; j < t->peer[i].n_paths; j++)
			if (t->peer[i].path[j].local_port == local_port &&
					t->peer[i].path[j].state != SB_PATH_DOWN) {
				cand[total].peer = i;
				cand[total].path = j;
				total++;
			}
	/* A list too long for one hello rotates, so successive hellos cover every path. */
	*partial = total > max;
	start = *partial ? *cursor % total : 0;
	for (n = 0; n < total && n < max; n++) {
		unsigned int k = (start + n) % total;

		entry_fill(t, cand[k].peer, cand[k].path, now, port_busy, brief,
			&entries[n]);
	}
	if (*partial)
		*cursor = (start + n) % total;
	return n;
}

unsigned int
sb_peer_hello_entry_path(struct sb_peer_table *t, unsigned int peer, unsigned int path,
	uint64_t now, bool port_busy, struct sb_hello_entry *e)
{
	if (peer >= t->n_peers || path >= t->peer[peer].n_paths ||
			t->peer[peer].path[path].state == SB_PATH_DOWN)
		return 0;
	entry_fill(t, peer, path, now, port_busy, false, e);
	return 1;
}

uint32_t
sb_peer_host_id_derive(const void *machine_id, size_t len, const uint8_t *mac)
{
	const uint8_t *b = machine_id;
	uint32_t h = UINT32_C(2166136261);
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * UINT32_C(16777619);
	for (i = 0; i < SB_ETH_ALEN; i++)
		h = (h ^ mac[i]) * UINT32_C(16777619);
	return h != 0 ? h : 1;
}

void
sb_peer_map_init(struct sb_peer_map *m)
{
	memset(m, 0, sizeof(*m));
}

int
sb_peer_map_set_peer(struct sb_peer_map *m, unsigned int idx, uint32_t host_id,
	const uint8_t *agg_mac)
{
	if (idx >= SB_MAX_PEERS || idx > m->n_peers)
		return -EINVAL;
	if (idx == m->n_peers) {
		m->n_peers++;
		sb_peer_map_reset_peer(m, idx);
	}
	m->peer[idx].host_id = host_id;
	memcpy(m->peer[idx].agg_mac, agg_mac, SB_ETH_ALEN);
	return 0;
}

void
sb_peer_map_clear_peer(struct sb_peer_map *m, unsigned int idx)
{
	if (idx >= SB_MAX_PEERS)
		return;
	m->peer[idx].host_id = 0;
	memset(m->peer[idx].agg_mac, 0, SB_ETH_ALEN);
	memset(m->peer[idx].remote_mac, 0, sizeof(m->peer[idx].remote_mac));
	sb_peer_map_reset_peer(m, idx);
}

void
sb_peer_map_reset_peer(struct sb_peer_map *m, unsigned int idx)
{
	if (idx >= SB_MAX_PEERS)
		return;
	m->peer[idx].n_paths = 0;
	memset(m->peer[idx].path_of, -1, sizeof(m->peer[idx].path_of));
}

int
sb_peer_map_set_path(struct sb_peer_map *m, unsigned int idx, unsigned int path,
	unsigned int local_port, unsigned int remote_port, const uint8_t *remote_mac)
{
	struct sb_peer_map_peer *p;

	if (idx >= m->n_peers || path >= SB_PEER_MAX_PATHS || local_port >= SB_MAX_PORTS ||
			remote_port >= SB_MAX_PORTS)
		return -EINVAL;
	p = &m->peer[idx];
	p->path_of[remote_port][local_port] = (int8_t)path;
	memcpy(p->remote_mac[path], remote_mac, SB_ETH_ALEN);
	if (path >= p->n_paths)
		p->n_paths = path + 1;
	return 0;
}

int
sb_peer_map_lookup(const struct sb_peer_map *m, unsigned int local_port, const uint8_t *src_mac,
	unsigned int shim_path, unsigned int *path)
{
	unsigned int i;

	if (local_port >= SB_MAX_PORTS || shim_path >= SB_MAX_PORTS)
		return -ENOENT;
	for (i = 0; i < m->n_peers; i++) {
		const struct sb_peer_map_peer *p = &m->peer[i];
		int pi = p->path_of[shim_path][local_port];

		if (pi >= 0 && memcmp(p->remote_mac[pi], src_mac, SB_ETH_ALEN) == 0) {
			*path = pi;
			return i;
		}
	}
	return -ENOENT;
}

int
sb_peer_lookup_rx(const struct sb_peer_table *t, unsigned int local_port, const uint8_t *src_mac,
	unsigned int shim_path, unsigned int *path)
{
	return sb_peer_map_lookup(&t->map, local_port, src_mac, shim_path, path);
}

int
sb_peer_lookup_mac(const struct sb_peer_table *t, const uint8_t *agg_mac)
{
	unsigned int i;

	for (i = 0; i < t->n_peers; i++)
		if (t->peer[i].host_id != 0 &&
				memcmp(t->peer[i].agg_mac, agg_mac, SB_ETH_ALEN) == 0)
			return i;
	return -ENOENT;
}

void
sb_peer_port_down(struct sb_peer_table *t, unsigned int local_port, uint64_t now)
{
	unsigned int i, j;

	for (i = 0; i < t->n_peers; i++) {
		struct sb_peer *p = &t->peer[i];

		for (j = 0; j < p->n_paths; j++) {
			if (p->path[j].local_port != local_port)
				continue;
			/* The path comes back with the next hello it hears. */
			path_set_state(t, i, j, SB_PATH_DOWN, SB_FAULT_PORT, now);
			p->path[j].rx.last_hello = 0;
		}
	}
}
