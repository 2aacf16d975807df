/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration file. One table, cfg_keys[] below, describes every key; parsing, the
 * defaults, saving, the console's `set` (through sb_config_set()) and the copy into struct
 * sb_dp_conf walk it. A new key takes:
 *   - its field in struct sb_config (struct sb_port_config for [portN]);
 *   - its row in cfg_keys[], in the order `save config` writes it;
 *   - when the datapath reads it, the same field in struct sb_dp_conf and TO_DP() in the row;
 *     when it may change at run time, RUNTIME() and the command in sb_ctl_set();
 *   - its row in docs/config.md, with the default and range the table gives (the unit test
 *     test_config_docs compares them).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_config.h"
#include "sb_sched.h"
#include "sb_wire.h"

/* Parsing state shared by the key handlers: where we are, for the error message. */
struct cfg_ctx {
	struct sb_config *c;
	const char *section;
	const char *key;
	const char *value;
	struct sb_port_config *port;	/* the [portN] being parsed */
	char value_buf[16];		/* for values the checks compute */
	char *err;
	size_t err_len;
};

static int __rte_format_printf(2, 3)
cfg_fail(struct cfg_ctx *x, const char *fmt, ...)
{
	char why[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (x->key != NULL)
		snprintf(x->err, x->err_len, "%s: [%s] %s = '%s': %s", x->c->file, x->section,
			x->key, x->value, why);
	else
		snprintf(x->err, x->err_len, "%s: [%s]: %s", x->c->file, x->section, why);
	return -EINVAL;
}

static int
parse_u64(struct cfg_ctx *x, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* Decimal, or hexadecimal with 0x; never octal (strtoull's base 0 reads "010" as 8). */
	bool hex = x->value[0] == '0' && (x->value[1] == 'x' || x->value[1] == 'X');

	errno = 0;
	if (!isdigit((unsigned char)x->value[0]) || (hex && !isxdigit((unsigned char)x->value[2])))
		return cfg_fail(x, "expected an integer in %" PRIu64 "..%" PRIu64, min, max);
	v = strtoull(x->value, &end, hex ? 16 : 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return cfg_fail(x, "expected an integer in %" PRIu64 "..%" PRIu64, min, max);
	*out = v;
	return 0;
}

/* How a key's value is written, and so how it is parsed, printed and documented. */
enum cfg_type {
	CFG_UINT,	/* an integer in min..max, decimal or 0x hexadecimal; zero_word, when
			 * set, is a word standing for 0 */
	CFG_WORD,	/* one of words[], each standing for a number */
	CFG_TEXT,	/* text shorter than the field, which parse() may refuse first */
	CFG_OTHER,	/* parse() and format() of its own */
};

/* A word a CFG_WORD key accepts, and the number its field holds for it. */
struct cfg_word {
	const char *name;
	int value;
};

/*
 * CFG_OTHER: parse x->value into @p field (in x->c, or x->port for [portN]). CFG_TEXT: check
 * x->value before it is copied. @return 0, or -EINVAL from cfg_fail().
 */
typedef int (*cfg_parse_t)(struct cfg_ctx *x, void *field);

/*
 * CFG_OTHER: write @p field (of @p c, or of one of its ports) as a file would say it into
 * @p buf of @p len bytes. @return 0, or 1 to leave the key out of a saved file.
 */
typedef int (*cfg_format_t)(const struct sb_config *c, const void *field, char *buf,
	size_t len);

/* Write, as docs/config.md does, the values of a key that only code can list. */
typedef void (*cfg_range_t)(char *buf, size_t len);

/* One key: where it lives, what it accepts, its default, and how the datapath gets it. */
struct cfg_key {
	const char *name;
	enum sb_config_section section;
	enum cfg_type type;
	uint16_t offset;		/* of the field in struct sb_config or sb_port_config */
	uint16_t size;			/* of the field, bytes */
	bool pow2;			/* CFG_UINT: only powers of two */
	bool to_dp;			/* sb_config_dp_conf() copies the field to dp_offset */
	uint16_t dp_offset;		/* in struct sb_dp_conf or sb_dp_port_conf */
	bool runtime;			/* changes while seqbond runs, by command cmd */
	enum sb_cmd_type cmd;
	uint64_t min, max;		/* CFG_UINT */
	const char *zero_word;		/* CFG_UINT */
	const struct cfg_word *words;	/* CFG_WORD, up to a NULL name */
	cfg_parse_t parse;		/* CFG_OTHER; CFG_TEXT: a check, or NULL */
	cfg_format_t format;		/* CFG_OTHER */
	const char *def;		/* the default as a file says it; NULL: none (0, "") */
	const char *doc_def;		/* docs/config.md's default when def is NULL */
	const char *doc_range;		/* docs/config.md's range of CFG_TEXT and CFG_OTHER */
	cfg_range_t range;		/* ... or this */
	const char *help;		/* one line */
};

#define CFG_FIELD(type, f) .offset = offsetof(type, f), .size = RTE_SIZEOF_FIELD(type, f)
#define SEQBOND(k, f) .name = k, .section = SB_CONFIG_SEQBOND, CFG_FIELD(struct sb_config, f)
#define EXCEPTION(k, f) .name = k, .section = SB_CONFIG_EXCEPTION, CFG_FIELD(struct sb_config, f)
#define PORT(k, f) .name = k, .section = SB_CONFIG_PORT, CFG_FIELD(struct sb_port_config, f)
/* 0, or a compile error when field f is not the same size in both structures. */
#define SAME_SIZE(a, b, f) \
	(0 * sizeof(char[RTE_SIZEOF_FIELD(a, f) == RTE_SIZEOF_FIELD(b, f) ? 1 : -1]))
#define TO_DP(f) .to_dp = true, .dp_offset = offsetof(struct sb_dp_conf, f) + \
	SAME_SIZE(struct sb_config, struct sb_dp_conf, f)
#define TO_DP_PORT(f) .to_dp = true, .dp_offset = offsetof(struct sb_dp_port_conf, f) + \
	SAME_SIZE(struct sb_port_config, struct sb_dp_port_conf, f)
#define RUNTIME(c) .runtime = true, .cmd = c
#define UINT(lo, hi) .type = CFG_UINT, .min = lo, .max = hi
#define WORDS(w) .type = CFG_WORD, .words = w
#define TEXT(check) .type = CFG_TEXT, .parse = check
#define OTHER(p, f) .type = CFG_OTHER, .parse = p, .format = f

static const struct cfg_word on_off[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };
static const struct cfg_word lcore_modes[] = {
	{ "shared", 0 }, { "dedicated", 1 }, { NULL, 0 },
};
static const struct cfg_word late_policies[] = {
	{ "drop", SB_REORDER_LATE_DROP }, { "deliver", SB_REORDER_LATE_DELIVER },
	{ "fill", SB_REORDER_LATE_FILL }, { NULL, 0 },
};
static const struct cfg_word passthrough_modes[] = {
	{ "on", SB_PASSTHROUGH_ON }, { "off", SB_PASSTHROUGH_OFF },
	{ "auto", SB_PASSTHROUGH_AUTO }, { NULL, 0 },
};

static int
parse_mac(struct cfg_ctx *x, void *field)
{
	struct rte_ether_addr ea;

	if (rte_ether_unformat_addr(x->value, &ea) != 0)
		return cfg_fail(x, "expected a MAC address like 02:53:42:00:00:01");
	if (!rte_is_unicast_ether_addr(&ea) || rte_is_zero_ether_addr(&ea))
		return cfg_fail(x, "the aggregate MAC must be a non-zero unicast address");
	memcpy(field, ea.addr_bytes, SB_ETH_ALEN);
	return 0;
}

static int
format_mac(const struct sb_config *c __rte_unused, const void *field, char *buf, size_t len)
{
	rte_ether_format_addr(buf, len, field);
	return 0;
}

static int
check_scheduler(struct cfg_ctx *x, void *field __rte_unused)
{
	char names[64] = "";
	const struct sb_sched_ops *ops;
	unsigned int i;

	if (sb_sched_find(x->value) != NULL)
		return 0;
	for (i = 0; (ops = sb_sched_get(i)) != NULL; i++) {
		strlcat(names, i ? "|" : "", sizeof(names));
		strlcat(names, ops->name, sizeof(names));
	}
	return cfg_fail(x, "unknown scheduler (one of %s)", names);
}

/* "`a`, `b`, `c`": docs/config.md's way of listing words. */
static void
range_add_word(char *buf, size_t len, const char *word)
{
	if (buf[0] != '\0')
		strlcat(buf, ", ", len);
	strlcat(buf, "`", len);
	strlcat(buf, word, len);
	strlcat(buf, "`", len);
}

static void
range_scheduler(char *buf, size_t len)
{
	const struct sb_sched_ops *ops;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; (ops = sb_sched_get(i)) != NULL; i++)
		range_add_word(buf, len, ops->name);
}

/* initial_seq: "random", or the first sequence number (initial_seq_set says which). */
static int
parse_initial_seq(struct cfg_ctx *x, void *field)
{
	uint64_t v;

	if (strcmp(x->value, "random") == 0) {
		x->c->initial_seq_set = false;
		return 0;
	}
	x->c->initial_seq_set = true;
	if (parse_u64(x, 0, UINT32_MAX, &v) != 0)
		return cfg_fail(x, "expected random or an integer in 0..%" PRIu32, UINT32_MAX);
	*(uint32_t *)field = (uint32_t)v;
	return 0;
}

static int
format_initial_seq(const struct sb_config *c, const void *field, char *buf, size_t len)
{
	if (!c->initial_seq_set)
		return 1;
	snprintf(buf, len, "%" PRIu32, *(const uint32_t *)field);
	return 0;
}

static int
check_key_file(struct cfg_ctx *x, void *field __rte_unused)
{
	/* A daemon's working directory says nothing: the path must stand on its own. The
	 * file itself is read at start (sb_keyfile_load()), before EAL. */
	if (x->value[0] != '/')
		return cfg_fail(x, "expected an absolute path to a key file (docs/config.md)");
	return 0;
}

static int
parse_exc_type(struct cfg_ctx *x, void *field)
{
	if (sb_exc_type_parse(x->value, field) != 0)
		return cfg_fail(x, "expected %s", sb_exc_type_names());
	return 0;
}

static int
format_exc_type(const struct sb_config *c __rte_unused, const void *field, char *buf,
	size_t len)
{
	strlcpy(buf, sb_exc_type_name(*(const enum sb_exc_type *)field), len);
	return 0;
}

/* The types in the order of the error message ("auto, tap-vnet, tap or virtio-user"). */
static void
range_exc_type(char *buf, size_t len)
{
	char names[128], *w, *save = NULL;

	strlcpy(names, sb_exc_type_names(), sizeof(names));
	buf[0] = '\0';
	for (w = strtok_r(names, ", ", &save); w != NULL; w = strtok_r(NULL, ", ", &save))
		if (strcmp(w, "or") != 0)
			range_add_word(buf, len, w);
}

static int
check_ifname(struct cfg_ctx *x, void *field __rte_unused)
{
	size_t i, n = strlen(x->value);

	if (n == 0 || n >= SB_IFNAME_LEN)
		return cfg_fail(x, "interface names have 1..%d characters", SB_IFNAME_LEN - 1);
	for (i = 0; i < n; i++)
		if (x->value[i] == '/' || x->value[i] == ',' || x->value[i] == '=' ||
				x->value[i] <= ' ')
			return cfg_fail(x, "character '%c' not allowed in an interface name",
				x->value[i]);
	return 0;
}

static void
range_ifname(char *buf, size_t len)
{
	snprintf(buf, len, "1..%d characters", SB_IFNAME_LEN - 1);
}

/* rate_mbit: "auto" (0: the link speed, learnt down to what the path carries) or Mbit/s,
 * kept in kbit/s. */
static int
parse_rate(struct cfg_ctx *x, void *field)
{
	char *end;
	double v;

	if (strcmp(x->value, "auto") == 0) {
		*(uint32_t *)field = 0;
		return 0;
	}
	errno = 0;
	v = strtod(x->value, &end);
	if (errno != 0 || *end != '\0' || end == x->value || !(v >= 0.064 && v <= 400000))
		return cfg_fail(x, "expected auto or a rate in Mbit/s, 0.064..400000");
	*(uint32_t *)field = (uint32_t)(v * 1000 + 0.5);
	return 0;
}

static int
format_rate(const struct sb_config *c __rte_unused, const void *field, char *buf, size_t len)
{
	uint32_t kbps = *(const uint32_t *)field;

	if (kbps == 0)
		strlcpy(buf, "auto", len);
	else
		snprintf(buf, len, "%.3f", kbps / 1000.0);
	return 0;
}

/* Every key, section by section in the order a saved file has them. */
static const struct cfg_key cfg_keys[] = {
	{ SEQBOND("host_id", host_id), TO_DP(host_id), UINT(1, UINT32_MAX),
		.doc_def = "from `/etc/machine-id` and `mac`",
		.help = "this host's id in hellos, unique in the cluster" },
	{ SEQBOND("mac", mac), TO_DP(mac), OTHER(parse_mac, format_mac),
		.doc_def = "(required)", .doc_range = "unicast MAC",
		.help = "the aggregate MAC: sb0's, and where peers send" },
	{ SEQBOND("scheduler", scheduler), TO_DP(scheduler), TEXT(check_scheduler),
		RUNTIME(SB_CMD_SET_SCHED), .def = "edpf", .range = range_scheduler,
		.help = "TX scheduler policy" },
	{ SEQBOND("hello_interval_ms", hello_interval_ms), TO_DP(hello_interval_ms),
		UINT(1, 60000), RUNTIME(SB_CMD_SET_HELLO_INTERVAL), .def = "10",
		.help = "hello period on every port, ms" },
	{ SEQBOND("hello_multiplier", hello_multiplier), TO_DP(hello_multiplier),
		UINT(2, 255), .def = "4",
		.help = "hello intervals without a hello before a peer declares a path down" },
	{ SEQBOND("peer_silence_hold_ms", peer_silence_hold_ms), TO_DP(peer_silence_hold_ms),
		UINT(0, 60000), .def = "200",
		.help = "longer hold of a peer silent on every path, ms; 0: none" },
	{ SEQBOND("hello_idle_interval_ms", hello_idle_interval_ms),
		TO_DP(hello_idle_interval_ms), UINT(0, 60000), .def = "100",
		.help = "hello period while the host carries no traffic, ms; 0: always fast" },
	{ SEQBOND("hello_idle_rx_max", hello_idle_rx_max), TO_DP(hello_idle_rx_max),
		UINT(0, 100000), .def = "80",
		.help = "group hellos a second a port should hear from idle hosts; 0: no limit" },
	{ SEQBOND("reorder_window", reorder_window), TO_DP(reorder_window),
		UINT(2, 1u << 20), .pow2 = true, .def = "4096",
		.help = "frames one peer's reorder window holds" },
	{ SEQBOND("reorder_timeout_us", reorder_timeout_us), TO_DP(reorder_timeout_us),
		UINT(1, 10000000), RUNTIME(SB_CMD_SET_REORDER_TIMEOUT), .def = "10000",
		.help = "longest hold behind a gap when the paths' delays agree, us" },
	{ SEQBOND("reorder_timeout_max_us", reorder_timeout_max_us),
		TO_DP(reorder_timeout_max_us), UINT(0, 10000000), .def = "50000",
		.help = "the most the paths' delay spread may raise the hold to, us" },
	{ SEQBOND("late_policy", late_policy), TO_DP(late_policy), WORDS(late_policies),
		.def = "fill",
		.help = "what becomes of a frame whose number was released or skipped" },
	{ SEQBOND("initial_seq", initial_seq), TO_DP(initial_seq),
		OTHER(parse_initial_seq, format_initial_seq), .def = "random",
		.doc_range = "`random` or 0..4294967295",
		.help = "first sequence number towards each peer (tests start next to the wrap)" },
	{ SEQBOND("lcore_mode", lcore_dedicated), TO_DP(lcore_dedicated), WORDS(lcore_modes),
		.def = "shared", .help = "idle datapath lcores sleep (shared) or busy-poll" },
	{ SEQBOND("path_loss_max_pct", path_loss_max_pct), TO_DP(path_loss_max_pct),
		UINT(0, 100), .def = "5",
		.help = "loss share that takes a path out of the stripe, %; 0: never" },
	{ SEQBOND("adaptive_rate", adaptive_rate), TO_DP(adaptive_rate), WORDS(on_off),
		.def = "on", .help = "learn each path's rate from the peer's reports" },
	{ SEQBOND("cluster_key_file", cluster_key_file), TEXT(check_key_file),
		.doc_def = "(none)", .doc_range = "absolute path",
		.help = "the cluster key file; none: frames go without tags" },

	{ EXCEPTION("type", exc_type), OTHER(parse_exc_type, format_exc_type), .def = "auto",
		.range = range_exc_type, .help = "the exception path's back end" },
	{ EXCEPTION("name", exc_name), TEXT(check_ifname), .def = "sb0",
		.range = range_ifname,
		.help = "the exception path's kernel interface" },
	{ EXCEPTION("mtu", exc_mtu), UINT(68, 9600), .zero_word = "auto", .def = "auto",
		.help = "sb0's MTU; auto: the smallest port MTU minus the overhead" },

	{ PORT("device", devargs), TEXT(NULL), .doc_def = "(required)", .doc_range = "devargs",
		.help = "a PCI address bound to DPDK, or a vdev string" },
	{ PORT("rate_mbit", rate_kbps), TO_DP_PORT(rate_kbps), OTHER(parse_rate, format_rate),
		RUNTIME(SB_CMD_SET_PORT_RATE), .def = "auto",
		.doc_range = "`auto` or 0.064..400000",
		.help = "the link's rate, Mbit/s; auto: the driver's link speed" },
	{ PORT("mtu", mtu), TO_DP_PORT(mtu), UINT(128, 9600), .def = "1500",
		.help = "the link MTU (L2 payload), bytes" },
	{ PORT("passthrough", passthrough), WORDS(passthrough_modes), .def = "auto",
		.help = "raw frames to and from a kernel interface sb0pN; auto: on for PCI" },
};

/* Keys that are gone, and what replaced them: a file that still sets one is refused with
 * this message rather than left to behave differently than its author meant. */
static const struct {
	const char *name;
	const char *instead;
} retired_keys[] = {
	{ "idle_sleep_max_us", "removed: idle lcores sleep until a frame or a timer wakes "
		"them; for busy polling set lcore_mode = dedicated" },
	{ "idle_sleep_contended_us", "removed: idle lcores sleep until a frame or a timer "
		"wakes them; see lcore_mode" },
	{ "idle_deep_sleep_us", "removed: idle lcores sleep until a frame or a timer wakes "
		"them; see lcore_mode" },
	{ "idle_deep_after_ms", "removed: idle lcores sleep until a frame or a timer wakes "
		"them; see lcore_mode" },
	{ "idle_slow_sleep_us", "removed: idle lcores sleep until a frame or a timer wakes "
		"them; see lcore_mode" },
	{ "burst", "removed: bursts are " RTE_STR(SB_CONFIG_BURST) " frames (docs/design.md, "
		"\"Burst size\")" },
	{ "rx_desc", "removed: each port queue has " RTE_STR(SB_CONFIG_PORT_DESC)
		" descriptors, adjusted to the driver's limits" },
	{ "tx_desc", "removed: each port queue has " RTE_STR(SB_CONFIG_PORT_DESC)
		" descriptors, adjusted to the driver's limits" },
	{ "peer_evict_s", "removed: a peer unheard for " RTE_STR(SB_PEER_EVICT_DEFAULT_S)
		" s leaves the peer table" },
	{ "hello_unicast", "removed: fast hellos go unicast where that is cheaper, always" },
	{ "hello_brief", "removed: group hellos at the idle pace are brief, always" },
	{ "max_backlog_us", "removed: a path is full at " RTE_STR(SB_CONFIG_MAX_BACKLOG_US)
		" us of queued data" },
	{ "queue_target_us", "removed: adaptive striping's queue target is "
		RTE_STR(SB_CONFIG_QUEUE_TARGET_US) " us; adaptive_rate = off paces at rate_mbit" },
	{ "path_loss_window_ms", "removed: loss is measured over "
		RTE_STR(SB_CONFIG_PATH_LOSS_WINDOW_MS) " ms; path_loss_max_pct sets the limit" },
	{ "mtu_probe_interval_ms", "removed: full-size probes go every "
		RTE_STR(SB_CONFIG_MTU_PROBE_HELLOS) " hello intervals (hello_interval_ms)" },
};

/* The message for a key of [seqbond] that is gone, or NULL. */
static const char *
retired_key(const char *section, const char *key)
{
	unsigned int i;

	if (strcmp(section, "seqbond") != 0)
		return NULL;
	for (i = 0; i < RTE_DIM(retired_keys); i++)
		if (strcmp(retired_keys[i].name, key) == 0)
			return retired_keys[i].instead;
	return NULL;
}

/*
 * Which section @p name is.
 * @return 0 with *s set (and *port, for [portN]); -1 for an unknown section, -2 for a
 *   port section beyond port(SB_MAX_PORTS - 1).
 */
static int
section_of(const char *name, enum sb_config_section *s, unsigned int *port)
{
	char *end;
	long v;

	if (strcmp(name, "seqbond") == 0) {
		*s = SB_CONFIG_SEQBOND;
		return 0;
	}
	if (strcmp(name, "exception") == 0) {
		*s = SB_CONFIG_EXCEPTION;
		return 0;
	}
	if (strncmp(name, "port", 4) != 0 || name[4] < '0' || name[4] > '9')
		return -1;
	v = strtol(name + 4, &end, 10);
	if (*end != '\0' || v < 0 || v >= SB_MAX_PORTS)
		return -2;
	*s = SB_CONFIG_PORT;
	*port = (unsigned int)v;
	return 0;
}

/* @return the row of key @p name in section @p s, or NULL. */
static const struct cfg_key *
key_lookup(enum sb_config_section s, const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(cfg_keys); i++)
		if (cfg_keys[i].section == s && strcmp(cfg_keys[i].name, name) == 0)
			return &cfg_keys[i];
	return NULL;
}

/* @return key @p k's field in @p c, or in @p port for [portN]. */
static void *
key_field(const struct cfg_key *k, struct sb_config *c, struct sb_port_config *port)
{
	return (char *)(k->section == SB_CONFIG_PORT ? (void *)port : (void *)c) + k->offset;
}

/* Store @p v in an unsigned field (or enum, or bool) of @p size bytes. */
static void
field_put(void *field, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)field = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
		break;
	}
}

static uint64_t
field_get(const void *field, size_t size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)field;
	case 2:
		return *(const uint16_t *)field;
	case 4:
		return *(const uint32_t *)field;
	default:
		return *(const uint64_t *)field;
	}
}

/* "on or off", "drop, deliver or fill": the words of @p k for a message. */
static const char *
words_text(const struct cfg_key *k, char *buf, size_t len)
{
	const struct cfg_word *w;

	buf[0] = '\0';
	for (w = k->words; w->name != NULL; w++) {
		if (w != k->words)
			strlcat(buf, w[1].name == NULL ? " or " : ", ", len);
		strlcat(buf, w->name, len);
	}
	return buf;
}

/*
 * Parse x->value as key @p k into x->c (or x->port for [portN]) with the key's checks.
 * @return 0, or -EINVAL with the message in x->err; the field may have changed then.
 */
static int
key_parse(struct cfg_ctx *x, const struct cfg_key *k)
{
	void *field = key_field(k, x->c, x->port);
	const struct cfg_word *w;
	char buf[128];
	uint64_t v;
	int ret;

	switch (k->type) {
	case CFG_UINT:
		if (k->zero_word != NULL && strcmp(x->value, k->zero_word) == 0) {
			field_put(field, k->size, 0);
			return 0;
		}
		ret = parse_u64(x, k->min, k->max, &v);
		if (ret == 0 && k->pow2 && !rte_is_power_of_2((uint32_t)v))
			ret = cfg_fail(x, "must be a power of two");
		if (ret == 0)
			field_put(field, k->size, v);
		return ret;
	case CFG_WORD:
		for (w = k->words; w->name != NULL; w++)
			if (strcmp(x->value, w->name) == 0) {
				field_put(field, k->size, (uint64_t)w->value);
				return 0;
			}
		return cfg_fail(x, "expected %s", words_text(k, buf, sizeof(buf)));
	case CFG_TEXT:
		if (k->parse != NULL && (ret = k->parse(x, field)) != 0)
			return ret;
		if (strlen(x->value) >= k->size)
			return cfg_fail(x, "longer than %u characters", k->size - 1u);
		strlcpy(field, x->value, k->size);
		return 0;
	case CFG_OTHER:
		return k->parse(x, field);
	}
	return cfg_fail(x, "bad key table");
}

/*
 * Write key @p k's value from @p c (@p port for [portN]) as a file says it.
 * @return 0, or 1 when a saved file leaves the key out (not set: no cluster key file, a
 *   random initial_seq).
 */
static int
key_format(const struct cfg_key *k, const struct sb_config *c,
	const struct sb_port_config *port, char *buf, size_t len)
{
	const void *field = (const char *)(k->section == SB_CONFIG_PORT ? (const void *)port :
		(const void *)c) + k->offset;
	const struct cfg_word *w;
	uint64_t v;

	switch (k->type) {
	case CFG_UINT:
		v = field_get(field, k->size);
		if (v == 0 && k->zero_word != NULL)
			strlcpy(buf, k->zero_word, len);
		else
			snprintf(buf, len, "%" PRIu64, v);
		return 0;
	case CFG_WORD:
		v = field_get(field, k->size);
		for (w = k->words; w->name != NULL; w++)
			if ((uint64_t)w->value == v)
				break;
		if (w->name != NULL)
			strlcpy(buf, w->name, len);
		else
			snprintf(buf, len, "%" PRIu64, v);
		return 0;
	case CFG_TEXT:
		if (*(const char *)field == '\0')
			return 1;
		strlcpy(buf, field, len);
		return 0;
	case CFG_OTHER:
		return k->format(c, field, buf, len);
	}
	return 1;
}

static void
key_info(const struct cfg_key *k, struct sb_config_key_info *info)
{
	const struct cfg_word *w;

	memset(info, 0, sizeof(*info));
	info->section = k->section;
	info->name = k->name;
	info->help = k->help;
	info->runtime = k->runtime;
	info->cmd = k->cmd;
	if (k->def == NULL)
		strlcpy(info->def, k->doc_def != NULL ? k->doc_def : "", sizeof(info->def));
	else if (isdigit((unsigned char)k->def[0]))
		strlcpy(info->def, k->def, sizeof(info->def));
	else
		snprintf(info->def, sizeof(info->def), "`%s`", k->def);
	switch (k->type) {
	case CFG_UINT:
		snprintf(info->range, sizeof(info->range), "%s%s%s%" PRIu64 "..%" PRIu64 "%s",
			k->zero_word != NULL ? "`" : "", k->zero_word != NULL ? k->zero_word : "",
			k->zero_word != NULL ? "` or " : "", k->min, k->max,
			k->pow2 ? ", power of 2" : "");
		break;
	case CFG_WORD:
		for (w = k->words; w->name != NULL; w++)
			range_add_word(info->range, sizeof(info->range), w->name);
		break;
	case CFG_TEXT:
	case CFG_OTHER:
		if (k->range != NULL)
			k->range(info->range, sizeof(info->range));
		else
			strlcpy(info->range, k->doc_range, sizeof(info->range));
		break;
	}
}

int
sb_config_key(unsigned int i, struct sb_config_key_info *info)
{
	if (i >= RTE_DIM(cfg_keys))
		return -ENOENT;
	key_info(&cfg_keys[i], info);
	return 0;
}

int
sb_config_value(const struct sb_config *c, unsigned int i, unsigned int port, char *buf,
	size_t len)
{
	const struct cfg_key *k;

	if (i >= RTE_DIM(cfg_keys))
		return -ENOENT;
	k = &cfg_keys[i];
	if (k->section == SB_CONFIG_PORT && port >= c->n_ports)
		return -ENOENT;
	/* A key a saved file leaves out holds its default word ("random"), or nothing. */
	if (key_format(k, c, k->section == SB_CONFIG_PORT ? &c->port[port] : NULL, buf, len) != 0)
		strlcpy(buf, k->def != NULL ? k->def : "", len);
	return 0;
}

int
sb_config_key_find(const char *section, const char *name, struct sb_config_key_info *info)
{
	enum sb_config_section s;
	const struct cfg_key *k;
	unsigned int port;

	if (section_of(section, &s, &port) != 0 || (k = key_lookup(s, name)) == NULL)
		return -ENOENT;
	key_info(k, info);
	return 0;
}

const char *
sb_config_section_name(enum sb_config_section s)
{
	return s == SB_CONFIG_SEQBOND ? "seqbond" : s == SB_CONFIG_EXCEPTION ? "exception" :
		"portN";
}

/* Parse the defaults of section @p s's keys into @p c (@p port for [portN]). */
static void
defaults_of(struct sb_config *c, struct sb_port_config *port, enum sb_config_section s)
{
	char err[256];
	struct cfg_ctx x = { .c = c, .port = port, .section = sb_config_section_name(s),
		.err = err, .err_len = sizeof(err) };
	unsigned int i;

	for (i = 0; i < RTE_DIM(cfg_keys); i++) {
		if (cfg_keys[i].section != s || cfg_keys[i].def == NULL)
			continue;
		x.key = cfg_keys[i].name;
		x.value = cfg_keys[i].def;
		/* A default the key refuses is a bug in the table (test_config finds it). */
		if (key_parse(&x, &cfg_keys[i]) != 0)
			rte_panic("config key table: %s\n", err);
	}
}

void
sb_config_defaults(struct sb_config *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	defaults_of(c, NULL, SB_CONFIG_SEQBOND);
	defaults_of(c, NULL, SB_CONFIG_EXCEPTION);
	for (i = 0; i < SB_MAX_PORTS; i++)
		defaults_of(c, &c->port[i], SB_CONFIG_PORT);
}

static int
parse_section(struct cfg_ctx *x, struct rte_cfgfile *cfg, enum sb_config_section s)
{
	struct rte_cfgfile_entry *ent;
	int n, i, j, ret = 0;

	n = rte_cfgfile_section_num_entries(cfg, x->section);
	if (n <= 0)
		return 0;
	ent = calloc(n, sizeof(*ent));
	if (ent == NULL)
		return cfg_fail(x, "out of memory");
	n = rte_cfgfile_section_entries(cfg, x->section, ent, n);
	for (i = 0; i < n && ret == 0; i++) {
		const struct cfg_key *k;

		x->key = ent[i].name;
		x->value = ent[i].value;
		for (j = 0; j < i; j++)
			if (strcmp(ent[j].name, ent[i].name) == 0)
				break;
		if (j < i) {
			ret = cfg_fail(x, "key given twice");
			break;
		}
		k = key_lookup(s, ent[i].name);
		if (k == NULL) {
			const char *gone = retired_key(x->section, ent[i].name);

			ret = gone != NULL ? cfg_fail(x, "%s", gone) : cfg_fail(x, "unknown key");
			break;
		}
		ret = key_parse(x, k);
	}
	if (ret == 0)
		x->key = NULL;
	free(ent);
	return ret;
}

/*
 * host_id when the file sets none: derived from this machine's /etc/machine-id and the
 * aggregate MAC (sb_peer_host_id_derive()), so two hosts collide only by chance; without a
 * readable machine-id, the MAC's low four bytes as before (host_id_source says which, and
 * main warns). @return 0, or -EINVAL when neither gives a non-zero id.
 */
static int
host_id_default(struct sb_config *c)
{
	char id[128];
	size_t n = 0;
	FILE *f = fopen(SB_MACHINE_ID_FILE, "r");

	c->host_id_errno = 0;
	if (f != NULL) {
		n = fread(id, 1, sizeof(id) - 1, f);
		if (ferror(f))
			c->host_id_errno = errno != 0 ? errno : EIO;
		fclose(f);
		while (n > 0 && isspace((unsigned char)id[n - 1]))
			n--;
		if (n == 0 && c->host_id_errno == 0)
			c->host_id_errno = ENODATA;
	} else {
		c->host_id_errno = errno;
	}
	if (c->host_id_errno == 0) {
		c->host_id = sb_peer_host_id_derive(id, n, c->mac);
		c->host_id_source = SB_HOST_ID_MACHINE;
		return 0;
	}
	c->host_id = (uint32_t)c->mac[2] << 24 | c->mac[3] << 16 | c->mac[4] << 8 | c->mac[5];
	c->host_id_source = SB_HOST_ID_MAC;
	return c->host_id != 0 ? 0 : -EINVAL;
}

static int
validate(struct cfg_ctx *x)
{
	struct sb_config *c = x->c;
	unsigned int i, j;

	x->key = NULL;
	x->section = "seqbond";
	if (rte_is_zero_ether_addr((const struct rte_ether_addr *)c->mac))
		return cfg_fail(x, "key 'mac' (the aggregate MAC) is required");
	if (c->host_id == 0 && host_id_default(c) != 0)
		return cfg_fail(x, "cannot derive host_id from %s or mac; set host_id",
			SB_MACHINE_ID_FILE);
	if (c->n_ports == 0)
		return cfg_fail(x, "no [portN] section: at least one port is required");
	for (i = 0; i < c->n_ports; i++) {
		char sec[16];

		snprintf(sec, sizeof(sec), "port%u", i);
		x->section = sec;
		if (c->port[i].devargs[0] == '\0')
			return cfg_fail(x, "key 'device' is required (a PCI address or a vdev)");
		for (j = 0; j < i; j++)
			if (strcmp(c->port[j].devargs, c->port[i].devargs) == 0) {
				x->key = "device";
				x->value = c->port[i].devargs;
				return cfg_fail(x, "same device as [port%u]", j);
			}
		if (sb_config_port_passthrough(&c->port[i]) &&
				strlen(c->exc_name) + 3 > SB_IFNAME_LEN - 1) {
			x->section = "exception";
			x->key = "name";
			x->value = c->exc_name;
			return cfg_fail(x, "too long for the passthrough interfaces (%sp%u): at "
				"most %d characters with [port%u] passthrough", c->exc_name, i,
				SB_IFNAME_LEN - 4, i);
		}
		x->section = "seqbond";
	}
	if (c->exc_mtu != 0) {
		uint16_t min_mtu = UINT16_MAX;

		for (i = 0; i < c->n_ports; i++)
			min_mtu = RTE_MIN(min_mtu, c->port[i].mtu);
		if (c->exc_mtu > min_mtu - sb_config_overhead(c)) {
			x->section = "exception";
			x->key = "mtu";
			snprintf(x->value_buf, sizeof(x->value_buf), "%u", c->exc_mtu);
			x->value = x->value_buf;
			return cfg_fail(x, "larger than the smallest port MTU (%u) minus %u%s",
				min_mtu, sb_config_overhead(c), c->cluster_key_file[0] != '\0' ?
				" (the shim and, with cluster_key_file, the authentication header)" :
				" (the shim)");
		}
	}
	return 0;
}

/* Text of one line without its comment and surrounding blanks (in place). */
static char *
line_trim(char *s)
{
	char *e;

	s[strcspn(s, ";\r\n")] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Longest line rte_cfgfile_load() reads: it fgets() into CFG_NAME_LEN + CFG_VALUE_LEN + 4
 * bytes and refuses a line that fills them without its newline (DPDK 22.11
 * lib/cfgfile/rte_cfgfile.c), so 322 characters before the newline, comments and blanks
 * included.
 */
#define CFG_LINE_MAX (CFG_NAME_LEN + CFG_VALUE_LEN + 2)

/* @p s for a message: whole when short, else its start and its length. */
static const char *
abbrev(char *buf, size_t len, const char *s)
{
	if (strlen(s) <= 40)
		return s;
	snprintf(buf, len, "%.32s... (%u characters)", s, (unsigned int)strlen(s));
	return buf;
}

/*
 * Check every line is "[section]", "key = value", blank or a comment before rte_cfgfile
 * reads the file: rte_cfgfile rejects some mistakes with only a line number in its own log,
 * and ignores others; it silently truncates section names and keys longer than
 * CFG_NAME_LEN - 1 and values longer than CFG_VALUE_LEN - 1 (strlcpy), which would turn a
 * typo into a different key. Errors name the line, its section and its key.
 */
static int
check_syntax(struct cfg_ctx *x, FILE *f)
{
	char section[CFG_NAME_LEN] = "", key_disp[80], value_disp[80], *buf = NULL, *s, *eq, *k;
	size_t cap = 0, n;
	ssize_t len;
	unsigned int line = 0;
	int ret = 0;

	x->section = "(no section)";
	while (ret == 0 && (len = getline(&buf, &cap, f)) >= 0) {
		line++;
		x->key = NULL;
		n = len > 0 && buf[len - 1] == '\n' ? (size_t)len - 1 : (size_t)len;
		if (n > CFG_LINE_MAX) {
			ret = cfg_fail(x, "line %u: %zu characters; lines have at most %d", line, n,
				CFG_LINE_MAX);
			break;
		}
		s = line_trim(buf);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			n = strlen(s);
			if (s[n - 1] != ']' || n == 2) {
				ret = cfg_fail(x, "line %u: '%s': expected [section]", line, s);
				break;
			}
			s[n - 1] = '\0';
			s = line_trim(s + 1);	/* rte_cfgfile strips blanks inside [ ] too */
			if (strlen(s) >= CFG_NAME_LEN) {
				ret = cfg_fail(x, "line %u: section name '%s' longer than %d characters",
					line, abbrev(key_disp, sizeof(key_disp), s), CFG_NAME_LEN - 1);
				break;
			}
			if (*s == '\0') {
				ret = cfg_fail(x, "line %u: empty section name", line);
				break;
			}
			strlcpy(section, s, sizeof(section));
			x->section = section;
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			ret = cfg_fail(x, "line %u: '%s': expected 'key = value'", line, s);
			break;
		}
		*eq = '\0';
		k = line_trim(s);
		x->key = abbrev(key_disp, sizeof(key_disp), k);
		x->value = abbrev(value_disp, sizeof(value_disp), line_trim(eq + 1));
		if (*k == '\0')
			ret = cfg_fail(x, "line %u: no key before '='", line);
		else if (section[0] == '\0')
			ret = cfg_fail(x, "line %u: key outside any section", line);
		else if (strlen(k) >= CFG_NAME_LEN)
			ret = cfg_fail(x, "line %u: key longer than %d characters", line,
				CFG_NAME_LEN - 1);
		else if (strlen(line_trim(eq + 1)) >= CFG_VALUE_LEN)
			ret = cfg_fail(x, "line %u: value longer than %d characters", line,
				CFG_VALUE_LEN - 1);
		else if (x->value[0] == '\0')
			ret = cfg_fail(x, "line %u: empty value", line);
	}
	free(buf);
	x->key = NULL;
	return ret;
}

int
sb_config_load(struct sb_config *c, const char *file, char *err, size_t err_len)
{
	struct cfg_ctx x = { .c = c, .err = err, .err_len = err_len };
	struct rte_cfgfile *cfg;
	FILE *f;
	char **names = NULL;
	int n, i, ret = 0;
	bool seen[SB_MAX_PORTS] = { false };

	sb_config_defaults(c);
	strlcpy(c->file, file, sizeof(c->file));
	if (access(file, R_OK) != 0) {
		ret = -errno;
		snprintf(err, err_len, "%s: cannot read: %s", file, strerror(errno));
		return ret;
	}
	f = fopen(file, "r");
	if (f == NULL) {
		ret = -errno;
		snprintf(err, err_len, "%s: cannot read: %s", file, strerror(errno));
		return ret;
	}
	ret = check_syntax(&x, f);
	fclose(f);
	if (ret != 0)
		return ret;
	cfg = rte_cfgfile_load(file, 0);
	if (cfg == NULL) {
		snprintf(err, err_len, "%s: not a valid INI file (see the CFGFILE log line above)",
			file);
		return -EINVAL;
	}

	n = rte_cfgfile_num_sections(cfg, NULL, 0);
	names = calloc(n > 0 ? n : 1, sizeof(*names));
	for (i = 0; names != NULL && i < n; i++)
		names[i] = malloc(CFG_NAME_LEN);
	if (names == NULL || (n > 0 && names[n - 1] == NULL)) {
		snprintf(err, err_len, "%s: out of memory", file);
		ret = -ENOMEM;
		goto out;
	}
	n = rte_cfgfile_sections(cfg, names, n);

	for (i = 0; i < n && ret == 0; i++) {
		enum sb_config_section s;
		unsigned int pi = 0;
		int j, kind;

		x.section = names[i];
		x.key = NULL;
		for (j = 0; j < i; j++)
			if (strcmp(names[j], names[i]) == 0)
				break;
		if (j < i) {
			ret = cfg_fail(&x, "section given twice");
			break;
		}
		kind = section_of(names[i], &s, &pi);
		if (kind == -2) {
			ret = cfg_fail(&x, "port sections are port0..port%d", SB_MAX_PORTS - 1);
		} else if (kind != 0) {
			ret = cfg_fail(&x, "unknown section (expected seqbond, exception, portN)");
		} else if (s == SB_CONFIG_PORT) {
			seen[pi] = true;
			x.port = &c->port[pi];
			ret = parse_section(&x, cfg, s);
			if (pi + 1 > c->n_ports)
				c->n_ports = pi + 1;
		} else {
			ret = parse_section(&x, cfg, s);
		}
	}
	if (ret == 0 && !rte_cfgfile_has_section(cfg, "seqbond")) {
		x.section = "seqbond";
		ret = cfg_fail(&x, "section missing");
	}
	for (i = 0; ret == 0 && (unsigned int)i < c->n_ports; i++) {
		if (!seen[i]) {
			char sec[16];

			snprintf(sec, sizeof(sec), "port%d", i);
			x.section = sec;
			ret = cfg_fail(&x, "section missing: ports are numbered from port0 "
				"without holes");
		}
	}
	if (ret == 0)
		ret = validate(&x);
out:
	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
	rte_cfgfile_close(cfg);
	return ret;
}

/* Add section @p sec to @p cfg with every key of kind @p s that has a value to write.
 * @return 0 or -ENOMEM. */
static int
save_section(struct rte_cfgfile *cfg, const struct sb_config *c,
	const struct sb_port_config *port, enum sb_config_section s, const char *sec)
{
	char value[CFG_VALUE_LEN];
	unsigned int i;

	if (rte_cfgfile_add_section(cfg, sec) < 0)
		return -ENOMEM;
	for (i = 0; i < RTE_DIM(cfg_keys); i++)
		if (cfg_keys[i].section == s &&
				key_format(&cfg_keys[i], c, port, value, sizeof(value)) == 0 &&
				rte_cfgfile_add_entry(cfg, sec, cfg_keys[i].name, value) < 0)
			return -ENOMEM;
	return 0;
}

int
sb_config_save(const struct sb_config *c, const char *file)
{
	struct rte_cfgfile *cfg = rte_cfgfile_create(0);
	char sec[16];
	unsigned int i;
	int ret;

	if (cfg == NULL)
		return -ENOMEM;
	ret = save_section(cfg, c, NULL, SB_CONFIG_SEQBOND, "seqbond");
	if (ret == 0)
		ret = save_section(cfg, c, NULL, SB_CONFIG_EXCEPTION, "exception");
	for (i = 0; ret == 0 && i < c->n_ports; i++) {
		snprintf(sec, sizeof(sec), "port%u", i);
		ret = save_section(cfg, c, &c->port[i], SB_CONFIG_PORT, sec);
	}
	if (ret == 0)
		ret = rte_cfgfile_save(cfg, strcmp(file, "-") == 0 ? "/dev/stdout" : file);
	rte_cfgfile_close(cfg);
	return ret;
}

int
sb_config_set(struct sb_config *c, const char *section, const char *key, const char *value,
	char *err, size_t err_len)
{
	struct cfg_ctx x = { .c = c, .section = section, .key = key, .value = value, .err = err,
		.err_len = err_len };
	enum sb_config_section s;
	const struct cfg_key *k;
	unsigned int pi = 0;

	if (section_of(section, &s, &pi) != 0 || (s == SB_CONFIG_PORT && pi >= c->n_ports)) {
		x.key = NULL;
		return cfg_fail(&x, "no such section");
	}
	x.port = s == SB_CONFIG_PORT ? &c->port[pi] : NULL;
	k = key_lookup(s, key);
	if (k != NULL)
		return key_parse(&x, k);
	if (retired_key(section, key) != NULL)
		return cfg_fail(&x, "%s", retired_key(section, key));
	return cfg_fail(&x, "unknown key");
}

void
sb_config_dp_conf(const struct sb_config *c, struct sb_dp_conf *dc)
{
	const struct cfg_key *k;
	unsigned int i;

	memset(dc, 0, sizeof(*dc));
	for (k = cfg_keys; k < cfg_keys + RTE_DIM(cfg_keys); k++) {
		if (!k->to_dp)
			continue;
		if (k->section != SB_CONFIG_PORT)
			memcpy((char *)dc + k->dp_offset, (const char *)c + k->offset, k->size);
		else
			for (i = 0; i < c->n_ports; i++)
				memcpy((char *)&dc->port[i] + k->dp_offset,
					(const char *)&c->port[i] + k->offset, k->size);
	}
	dc->initial_seq_set = c->initial_seq_set;
	/* Fixed or derived: the removed keys (retired_keys[]). */
	dc->burst = SB_CONFIG_BURST;
	dc->max_backlog_us = SB_CONFIG_MAX_BACKLOG_US;
	dc->queue_target_us = SB_CONFIG_QUEUE_TARGET_US;
	dc->path_loss_window_ms = SB_CONFIG_PATH_LOSS_WINDOW_MS;
	dc->mtu_probe_interval_ms = RTE_MIN(SB_CONFIG_MTU_PROBE_HELLOS * c->hello_interval_ms,
		UINT32_C(60000));
	dc->hello_unicast = true;
	dc->hello_brief = true;
	dc->peer_evict_s = SB_PEER_EVICT_DEFAULT_S;
	dc->n_ports = c->n_ports;
	for (i = 0; i < c->n_ports; i++) {
		dc->port[i].link_speed_real = sb_config_port_is_pci(&c->port[i]);
		dc->port[i].pt_port = RTE_MAX_ETHPORTS;
	}
}

bool
sb_config_port_is_pci(const struct sb_port_config *p)
{
	unsigned int dom, bus, dev, fn;
	char end;

	return sscanf(p->devargs, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &end) >= 4 ||
		sscanf(p->devargs, "%x:%x.%x%c", &bus, &dev, &fn, &end) >= 3;
}

bool
sb_config_port_passthrough(const struct sb_port_config *p)
{
	if (p->passthrough != SB_PASSTHROUGH_AUTO)
		return p->passthrough == SB_PASSTHROUGH_ON;
	/* A NIC bound to DPDK (a PCI address) has taken its port away from the kernel; a
	 * vdev on a kernel interface (af_packet, af_xdp) has not. */
	return sb_config_port_is_pci(p);
}
