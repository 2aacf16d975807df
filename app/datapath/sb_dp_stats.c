/* SPDX-License-Identifier: BSD-3-Clause */
/* The datapath counters by name: one list for every front end (exit report, console, telemetry). */
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
	FIELD(exc_rx), FIELD(tx_data), FIELD(tx_data_bytes), FIELD(tx_unseq), FIELD(tx_hello),
	FIELD(tx_no_peer), FIELD(tx_no_path), FIELD(tx_too_big), FIELD(tx_backpressure),
	FIELD(tx_queue_drop), FIELD(tx_nombuf),
	FIELD(rx), FIELD(rx_data), FIELD(rx_unseq), FIELD(rx_hello), FIELD(rx_foreign),
};

static const struct stat_field rx_fields[] = {
	FIELD(rx_unknown_peer), FIELD(rx_hello_rejected), FIELD(rx_late_dropped),
	FIELD(rx_late_delivered), FIELD(rx_duplicate), FIELD(rx_out_of_range), FIELD(exc_tx),
	FIELD(exc_tx_drop), FIELD(exc_too_big), FIELD(loops), FIELD(idle_sleeps),
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
