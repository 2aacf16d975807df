/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath counters by name: one list for every front end (exit report, console, telemetry). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "sb_dp.h"

#define FIELD(f) { #f, offsetof(struct sb_dp_stats, f) }

struct stat_field {
	const char *name;
	size_t off;
};

/* In datapath order: kernel -> ports, then ports -> kernel. */
static const struct stat_field tx_fields[] = {
	FIELD(exc_rx), FIELD(tx_data), FIELD(tx_data_bytes), FIELD(tx_flood),
	FIELD(tx_flood_copies), FIELD(tx_flood_slow_drop), FIELD(tx_hello), FIELD(hello_slow), FIELD(tx_probe),
	FIELD(tx_probe_elided), FIELD(tx_hello_unicast), FIELD(tx_hello_brief),
	FIELD(tx_hello_triggered), FIELD(tx_hello_drop), FIELD(tx_probe_deferred),
	FIELD(tick_stalls), FIELD(silence_holds), FIELD(silence_heard),
	FIELD(peers_evicted), FIELD(peers_displaced), FIELD(peer_restarts),
	FIELD(restarts_refused), FIELD(restarts_limited), FIELD(dup_host_ids),
	FIELD(dup_host_id_self),
	FIELD(rate_clamped), FIELD(tx_no_path),
	FIELD(tx_too_big), FIELD(tx_backpressure), FIELD(tx_peer_held), FIELD(tx_peer_drop),
	FIELD(tx_queue_drop), FIELD(tx_nombuf),
	FIELD(tx_passthrough), FIELD(tx_passthrough_drop),
	FIELD(rx), FIELD(rx_data), FIELD(rx_hello), FIELD(rx_foreign), FIELD(rx_passthrough),
	FIELD(rx_passthrough_drop),
};

static const struct stat_field rx_fields[] = {
	FIELD(rx_unknown_peer), FIELD(rx_port_stopped_drop), FIELD(rx_auth_no_tag), FIELD(rx_auth_bad_tag),
	FIELD(rx_auth_replay), FIELD(rx_auth_unknown_key), FIELD(rx_auth_unexpected),
	FIELD(rx_auth_data_replay), FIELD(rx_auth_limited), FIELD(rx_auth_limited_new),
	FIELD(auth_rekeys),
	FIELD(rx_hello_rejected), FIELD(rx_hello_not_ours),
	FIELD(rx_late_dropped), FIELD(rx_late_delivered), FIELD(rx_duplicate),
	FIELD(rx_out_of_range), FIELD(rx_stray), FIELD(rx_peer_gone_drop), FIELD(rx_forwarded),
	FIELD(ring_full), FIELD(exc_tx), FIELD(exc_tx_drop), FIELD(exc_too_big),
	FIELD(loops), FIELD(idle_sleeps), FIELD(idle_port_wakeups), FIELD(idle_kernel_wakeups),
	FIELD(idle_kick_wakeups), FIELD(idle_timer_wakeups), FIELD(idle_naps),
	FIELD(answer_polls), FIELD(answer_misses),
};

static uint64_t
value(const struct sb_dp_stats *st, const struct stat_field *f)
{
	return *(const uint64_t *)((const char *)st + f->off);
}

void
sb_dp_stats_foreach(const struct sb_dp_stats *st,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(tx_fields); i++)
		fn(tx_fields[i].name, value(st, &tx_fields[i]), arg);
	for (i = SB_WIRE_E_TRUNCATED; i < SB_WIRE_E_MAX; i++) {
		char name[40];

		snprintf(name, sizeof(name), "rx_err_%s", sb_wire_err_str(i));
		fn(name, st->rx_err[i], arg);
	}
	for (i = 0; i < RTE_DIM(rx_fields); i++)
		fn(rx_fields[i].name, value(st, &rx_fields[i]), arg);
}

int
sb_dp_path_info(const struct sb_snapshot *s, unsigned int peer, unsigned int path,
	struct sb_path_info *pi)
{
	const struct sb_peer *p;
	const struct sb_path *pa;
	const struct sb_snap_peer *sp;
	uint64_t all, lost;

	if (!sb_snap_peer_used(s, peer) || path >= s->peers.peer[peer].n_paths)
		return -EINVAL;
	p = &s->peers.peer[peer];
	pa = &p->path[path];
	sp = &s->peer[peer];
	lost = (uint64_t)pa->rx.hello_lost + sp->path_data[path].lost;
	all = pa->rx.hellos_rx + sp->path_data[path].frames + lost;
	*pi = (struct sb_path_info){
		.peer = p->host_id,
		.port = pa->local_port,
		.peer_port = pa->remote_port,
		.state = sb_path_state_str(pa->state),
		.fault = sb_path_fault_str(pa->usable ? SB_FAULT_NONE : pa->fault),
		.in_stripe = pa->usable,
		.mtu_ok = pa->fb.mtu_ok,
		.mtu = sb_path_mtu(pa, s->port[pa->local_port].mtu),
		.rate_bps = sp->path_rate_bps[path],
		.rate_cap_bps = s->adaptive_rate ? sp->est[path].cap_bps : sp->path_rate_bps[path],
		.rate_phase = s->adaptive_rate ? sb_path_est_phase_str(sp->est[path].phase) :
			"fixed",
		.rate_decreases = sp->est[path].decreases,
		.tx_queue_us = pa->fb.owd_us > pa->fb.owd_min_us ?
			pa->fb.owd_us - pa->fb.owd_min_us : 0,
		.tx_frames = sp->path_tx[path],
		.tx_bytes = sp->path_tx_bytes[path],
		.rx_frames = sp->path_rx[path],
		.rx_bytes = sp->path_rx_bytes[path],
		.hellos_rx = pa->rx.hellos_rx,
		.last_hello_age_us = pa->rx.last_hello == 0 || pa->rx.last_hello > s->tsc ?
			UINT64_MAX : (s->tsc - pa->rx.last_hello) * 1000000 / s->hz,
		.transitions = pa->transitions,
		.stripe_exits = pa->stripe_exits,
		.tx_loss_ppm = pa->fb.loss_ppm,
		.tx_lost = pa->fb.lost_frames,
		.rx_lost = (uint32_t)lost,
		.rx_loss_ppm = all != 0 ? (uint32_t)(lost * UINT64_C(1000000) / all) : 0,
		.tx_rate_kbps = pa->fb.rate_kbps,
		.rx_rate_kbps = pa->rx.rate_kbps,
		.tx_owd_us = pa->fb.owd_us,
		.tx_owd_min_us = pa->fb.owd_min_us,
	};
	return 0;
}

void
sb_dp_path_info_foreach(const struct sb_path_info *pi,
	void (*num)(const char *name, uint64_t value, void *arg),
	void (*str)(const char *name, const char *value, void *arg), void *arg)
{
	num("peer", pi->peer, arg);
	num("port", pi->port, arg);
	num("peer_port", pi->peer_port, arg);
	str("state", pi->state, arg);
	num("in_stripe", pi->in_stripe, arg);
	str("fault", pi->fault, arg);
	num("mtu", pi->mtu, arg);
	num("mtu_ok", pi->mtu_ok, arg);
	num("rate_bps", pi->rate_bps, arg);
	num("rate_cap_bps", pi->rate_cap_bps, arg);
	str("rate_phase", pi->rate_phase, arg);
	num("rate_decreases", pi->rate_decreases, arg);
	num("tx_queue_us", pi->tx_queue_us, arg);
	num("tx_frames", pi->tx_frames, arg);
	num("tx_bytes", pi->tx_bytes, arg);
	num("rx_frames", pi->rx_frames, arg);
	num("rx_bytes", pi->rx_bytes, arg);
	num("hellos_rx", pi->hellos_rx, arg);
	num("last_hello_age_us", pi->last_hello_age_us, arg);
	num("transitions", pi->transitions, arg);
	num("stripe_exits", pi->stripe_exits, arg);
	num("tx_loss_ppm", pi->tx_loss_ppm, arg);
	num("tx_lost", pi->tx_lost, arg);
	num("rx_lost", pi->rx_lost, arg);
	num("rx_loss_ppm", pi->rx_loss_ppm, arg);
	num("tx_rate_kbps", pi->tx_rate_kbps, arg);
	num("rx_rate_kbps", pi->rx_rate_kbps, arg);
	num("tx_owd_us", pi->tx_owd_us, arg);
	num("tx_owd_min_us", pi->tx_owd_min_us, arg);
}

const char *
sb_dp_role_str(unsigned int role)
{
	switch (role) {
	case SB_DP_ROLE_ALL:
		return "all";
	case SB_DP_ROLE_TX:
		return "tx";
	case SB_DP_ROLE_RX:
		return "rx";
	default:
		return "?";
	}
}
