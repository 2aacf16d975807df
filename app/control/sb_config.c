/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
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

static int
parse_u32(struct cfg_ctx *x, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int ret = parse_u64(x, min, max, &v);

	if (ret == 0)
		*out = (uint32_t)v;
	return ret;
}

static int
parse_u16(struct cfg_ctx *x, uint16_t min, uint16_t max, uint16_t *out)
{
	uint64_t v;
	int ret = parse_u64(x, min, max, &v);

	if (ret == 0)
		*out = (uint16_t)v;
	return ret;
}

static int
key_host_id(struct cfg_ctx *x)
{
	return parse_u32(x, 1, UINT32_MAX, &x->c->host_id);
}

static int
key_mac(struct cfg_ctx *x)
{
	struct rte_ether_addr ea;

	if (rte_ether_unformat_addr(x->value, &ea) != 0)
		return cfg_fail(x, "expected a MAC address like 02:53:42:00:00:01");
	if (!rte_is_unicast_ether_addr(&ea) || rte_is_zero_ether_addr(&ea))
		return cfg_fail(x, "the aggregate MAC must be a non-zero unicast address");
	memcpy(x->c->mac, ea.addr_bytes, SB_ETH_ALEN);
	return 0;
}

static int
key_scheduler(struct cfg_ctx *x)
{
	char names[64] = "";
	const struct sb_sched_ops *ops;
	unsigned int i;

	if (sb_sched_find(x->value) == NULL) {
		for (i = 0; (ops = sb_sched_get(i)) != NULL; i++) {
			strlcat(names, i ? "|" : "", sizeof(names));
			strlcat(names, ops->name, sizeof(names));
		}
		return cfg_fail(x, "unknown scheduler (one of %s)", names);
	}
	strlcpy(x->c->scheduler, x->value, sizeof(x->c->scheduler));
	return 0;
}

static int
key_hello_interval(struct cfg_ctx *x)
{
	return parse_u32(x, 1, 60000, &x->c->hello_interval_ms);
}

static int
key_hello_multiplier(struct cfg_ctx *x)
{
	return parse_u32(x, 2, 255, &x->c->hello_multiplier);
}

static int
key_peer_silence_hold(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 60000, &x->c->peer_silence_hold_ms);
}

static int
key_peer_evict(struct cfg_ctx *x)
{
	return parse_u32(x, SB_CONFIG_PEER_EVICT_MIN_S, SB_CONFIG_PEER_EVICT_MAX_S,
		&x->c->peer_evict_s);
}

static int
key_reorder_window(struct cfg_ctx *x)
{
	int ret = parse_u32(x, 2, 1u << 20, &x->c->reorder_window);

	if (ret == 0 && !rte_is_power_of_2(x->c->reorder_window))
		return cfg_fail(x, "must be a power of two");
	return ret;
}

static int
key_reorder_timeout(struct cfg_ctx *x)
{
	return parse_u32(x, 1, 10000000, &x->c->reorder_timeout_us);
}

static int
key_reorder_timeout_max(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 10000000, &x->c->reorder_timeout_max_us);
}

static int
key_late_policy(struct cfg_ctx *x)
{
	if (strcmp(x->value, "drop") == 0)
		x->c->late_policy = SB_REORDER_LATE_DROP;
	else if (strcmp(x->value, "deliver") == 0)
		x->c->late_policy = SB_REORDER_LATE_DELIVER;
	else if (strcmp(x->value, "fill") == 0)
		x->c->late_policy = SB_REORDER_LATE_FILL;
	else
		return cfg_fail(x, "expected drop, deliver or fill");
	return 0;
}

static int
key_max_backlog(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 1000000, &x->c->max_backlog_us);
}

static int
key_burst(struct cfg_ctx *x)
{
	return parse_u16(x, 1, 256, &x->c->burst);
}

static int
key_rx_desc(struct cfg_ctx *x)
{
	return parse_u16(x, 64, 16384, &x->c->rx_desc);
}

static int
key_tx_desc(struct cfg_ctx *x)
{
	return parse_u16(x, 64, 16384, &x->c->tx_desc);
}

static int
key_initial_seq(struct cfg_ctx *x)
{
	if (strcmp(x->value, "random") == 0) {
		x->c->initial_seq_set = false;
		return 0;
	}
	x->c->initial_seq_set = true;
	if (parse_u32(x, 0, UINT32_MAX, &x->c->initial_seq) != 0)
		return cfg_fail(x, "expected random or an integer in 0..%" PRIu32, UINT32_MAX);
	return 0;
}

static int
key_lcore_mode(struct cfg_ctx *x)
{
	if (strcmp(x->value, "shared") == 0)
		x->c->lcore_dedicated = false;
	else if (strcmp(x->value, "dedicated") == 0)
		x->c->lcore_dedicated = true;
	else
		return cfg_fail(x, "expected shared or dedicated");
	return 0;
}

static int
key_hello_idle_interval(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 60000, &x->c->hello_idle_interval_ms);
}

static int
key_hello_idle_rx_max(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 100000, &x->c->hello_idle_rx_max);
}

static int
key_probe_interval(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 60000, &x->c->mtu_probe_interval_ms);
}

static int
key_loss_max(struct cfg_ctx *x)
{
	return parse_u32(x, 0, 100, &x->c->path_loss_max_pct);
}

static int
key_loss_window(struct cfg_ctx *x)
{
	return parse_u32(x, 10, 60000, &x->c->path_loss_window_ms);
}

static int
parse_on_off(struct cfg_ctx *x, bool *out)
{
	if (strcmp(x->value, "on") == 0)
		*out = true;
	else if (strcmp(x->value, "off") == 0)
		*out = false;
	else
		return cfg_fail(x, "expected on or off");
	return 0;
}

static int
key_adaptive_rate(struct cfg_ctx *x)
{
	return parse_on_off(x, &x->c->adaptive_rate);
}

static int
key_hello_unicast(struct cfg_ctx *x)
{
	return parse_on_off(x, &x->c->hello_unicast);
}

static int
key_hello_brief(struct cfg_ctx *x)
{
	return parse_on_off(x, &x->c->hello_brief);
}

static int
key_queue_target(struct cfg_ctx *x)
{
	return parse_u32(x, 100, 1000000, &x->c->queue_target_us);
}

static int
key_cluster_key_file(struct cfg_ctx *x)
{
	/* A daemon's working directory says nothing: the path must stand on its own. The
	 * file itself is read at start (sb_keyfile_load()), before EAL. */
	if (x->value[0] != '/')
		return cfg_fail(x, "expected an absolute path to a key file (docs/config.md)");
	if (strlen(x->value) >= sizeof(x->c->cluster_key_file))
		return cfg_fail(x, "longer than %zu characters",
			sizeof(x->c->cluster_key_file) - 1);
	strlcpy(x->c->cluster_key_file, x->value, sizeof(x->c->cluster_key_file));
	return 0;
}

static int
key_exc_type(struct cfg_ctx *x)
{
	if (sb_exc_type_parse(x->value, &x->c->exc_type) != 0)
		return cfg_fail(x, "expected %s", sb_exc_type_names());
	return 0;
}

static int
key_exc_name(struct cfg_ctx *x)
{
	size_t i, n = strlen(x->value);

	if (n == 0 || n >= SB_IFNAME_LEN)
		return cfg_fail(x, "interface names have 1..%d characters", SB_IFNAME_LEN - 1);
	for (i = 0; i < n; i++)
		if (x->value[i] == '/' || x->value[i] == ',' || x->value[i] == '=' ||
				x->value[i] <= ' ')
			return cfg_fail(x, "character '%c' not allowed in an interface name",
				x->value[i]);
	strlcpy(x->c->exc_name, x->value, sizeof(x->c->exc_name));
	return 0;
}

static int
key_exc_mtu(struct cfg_ctx *x)
{
	if (strcmp(x->value, "auto") == 0) {
		x->c->exc_mtu = 0;
		return 0;
	}
	return parse_u16(x, 68, 9600, &x->c->exc_mtu);
}

struct cfg_key {
	const char *name;
	int (*parse)(struct cfg_ctx *x);
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

static const struct cfg_key seqbond_keys[] = {
	{ "host_id", key_host_id },
	{ "mac", key_mac },
	{ "scheduler", key_scheduler },
	{ "hello_interval_ms", key_hello_interval },
	{ "hello_multiplier", key_hello_multiplier },
	{ "peer_silence_hold_ms", key_peer_silence_hold },
	{ "peer_evict_s", key_peer_evict },
	{ "hello_idle_interval_ms", key_hello_idle_interval },
	{ "hello_idle_rx_max", key_hello_idle_rx_max },
	{ "hello_unicast", key_hello_unicast },
	{ "hello_brief", key_hello_brief },
	{ "reorder_window", key_reorder_window },
	{ "reorder_timeout_us", key_reorder_timeout },
	{ "reorder_timeout_max_us", key_reorder_timeout_max },
	{ "late_policy", key_late_policy },
	{ "max_backlog_us", key_max_backlog },
	{ "burst", key_burst },
	{ "rx_desc", key_rx_desc },
	{ "tx_desc", key_tx_desc },
	{ "initial_seq", key_initial_seq },
	{ "lcore_mode", key_lcore_mode },
	{ "mtu_probe_interval_ms", key_probe_interval },
	{ "path_loss_max_pct", key_loss_max },
	{ "path_loss_window_ms", key_loss_window },
	{ "adaptive_rate", key_adaptive_rate },
	{ "queue_target_us", key_queue_target },
	{ "cluster_key_file", key_cluster_key_file },
	{ NULL, NULL },
};

static const struct cfg_key exception_keys[] = {
	{ "type", key_exc_type },
	{ "name", key_exc_name },
	{ "mtu", key_exc_mtu },
	{ NULL, NULL },
};

static int
key_port_device(struct cfg_ctx *x)
{
	if (strlen(x->value) >= SB_DEVARGS_LEN)
		return cfg_fail(x, "longer than %d characters", SB_DEVARGS_LEN - 1);
	strlcpy(x->port->devargs, x->value, sizeof(x->port->devargs));
	return 0;
}

static int
key_port_rate(struct cfg_ctx *x)
{
	char *end;
	double v;

	if (strcmp(x->value, "auto") == 0) {
		x->port->rate_kbps = 0;	/* the link speed, learnt down to what the path carries */
		return 0;
	}
	errno = 0;
	v = strtod(x->value, &end);
	if (errno != 0 || *end != '\0' || end == x->value || !(v >= 0.064 && v <= 400000))
		return cfg_fail(x, "expected auto or a rate in Mbit/s, 0.064..400000");
	x->port->rate_kbps = (uint32_t)(v * 1000 + 0.5);
	return 0;
}

static int
key_port_mtu(struct cfg_ctx *x)
{
	return parse_u16(x, 128, 9600, &x->port->mtu);
}

static int
key_port_passthrough(struct cfg_ctx *x)
{
	if (strcmp(x->value, "on") == 0)
		x->port->passthrough = SB_PASSTHROUGH_ON;
	else if (strcmp(x->value, "off") == 0)
		x->port->passthrough = SB_PASSTHROUGH_OFF;
	else if (strcmp(x->value, "auto") == 0)
		x->port->passthrough = SB_PASSTHROUGH_AUTO;
	else
		return cfg_fail(x, "expected on, off or auto");
	return 0;
}

static const struct cfg_key port_keys[] = {
	{ "device", key_port_device },
	{ "passthrough", key_port_passthrough },
	{ "rate_mbit", key_port_rate },
	{ "mtu", key_port_mtu },
	{ NULL, NULL },
};

void
sb_config_defaults(struct sb_config *c)
{
	memset(c, 0, sizeof(*c));
	strlcpy(c->scheduler, "edpf", sizeof(c->scheduler));
	c->hello_interval_ms = 10;
	c->hello_multiplier = 4;
	c->peer_silence_hold_ms = 200;
	c->peer_evict_s = SB_PEER_EVICT_DEFAULT_S;
	c->hello_idle_interval_ms = 100;
	c->hello_idle_rx_max = 80;
	c->hello_unicast = true;
	c->hello_brief = true;
	c->reorder_window = 4096;
	c->reorder_timeout_us = 10000;
	c->reorder_timeout_max_us = 50000;
	c->late_policy = SB_REORDER_LATE_FILL;
	c->max_backlog_us = 2000;
	/* 128, not DPDK's usual 32: a TSO segment from the kernel cuts into up to 44 frames,
	 * which 32-frame bursts split across polls (docs/design.md, "Burst size"). */
	c->burst = 128;
	c->rx_desc = 1024;
	c->tx_desc = 1024;
	c->mtu_probe_interval_ms = 200;
	c->path_loss_max_pct = 5;
	c->path_loss_window_ms = 1000;
	c->adaptive_rate = true;
	c->queue_target_us = 3000;
	c->exc_type = SB_EXC_AUTO;
	strlcpy(c->exc_name, "sb0", sizeof(c->exc_name));
}

static int
parse_section(struct cfg_ctx *x, struct rte_cfgfile *cfg, const struct cfg_key *keys)
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
		for (k = keys; k->name != NULL; k++)
			if (strcmp(k->name, ent[i].name) == 0)
				break;
		if (k->name == NULL) {
			const char *gone = retired_key(x->section, ent[i].name);

			ret = gone != NULL ? cfg_fail(x, "%s", gone) : cfg_fail(x, "unknown key");
			break;
		}
		ret = k->parse(x);
	}
	if (ret == 0)
		x->key = NULL;
	free(ent);
	return ret;
}

static int
port_index_of(const char *section)
{
	char *end;
	long v;

	if (strncmp(section, "port", 4) != 0 || section[4] < '0' || section[4] > '9')
		return -1;
	v = strtol(section + 4, &end, 10);
	if (*end != '\0' || v < 0 || v >= SB_MAX_PORTS)
		return -2;
	return (int)v;
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
		if (c->port[i].mtu == 0)
			c->port[i].mtu = RTE_ETHER_MTU;
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
				" (the shim and, with cluster_key_file, the tag)" : " (the shim)");
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
		int j, pi;

		x.section = names[i];
		x.key = NULL;
		for (j = 0; j < i; j++)
			if (strcmp(names[j], names[i]) == 0)
				break;
		if (j < i) {
			ret = cfg_fail(&x, "section given twice");
			break;
		}
		if (strcmp(names[i], "seqbond") == 0) {
			ret = parse_section(&x, cfg, seqbond_keys);
		} else if (strcmp(names[i], "exception") == 0) {
			ret = parse_section(&x, cfg, exception_keys);
		} else if ((pi = port_index_of(names[i])) >= 0) {
			seen[pi] = true;
			x.port = &c->port[pi];
			ret = parse_section(&x, cfg, port_keys);
			if ((unsigned int)pi + 1 > c->n_ports)
				c->n_ports = pi + 1;
		} else if (pi == -2) {
			ret = cfg_fail(&x, "port sections are port0..port%d", SB_MAX_PORTS - 1);
		} else {
			ret = cfg_fail(&x, "unknown section (expected seqbond, exception, portN)");
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

static void
set_u(struct rte_cfgfile *cfg, const char *sec, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	rte_cfgfile_add_entry(cfg, sec, key, buf);
}

int
sb_config_save(const struct sb_config *c, const char *file)
{
	struct rte_cfgfile *cfg = rte_cfgfile_create(0);
	char buf[64];
	unsigned int i;
	int ret;

	if (cfg == NULL)
		return -ENOMEM;
	rte_cfgfile_add_section(cfg, "seqbond");
	set_u(cfg, "seqbond", "host_id", c->host_id);
	rte_ether_format_addr(buf, sizeof(buf), (const struct rte_ether_addr *)c->mac);
	rte_cfgfile_add_entry(cfg, "seqbond", "mac", buf);
	rte_cfgfile_add_entry(cfg, "seqbond", "scheduler", c->scheduler);
	set_u(cfg, "seqbond", "hello_interval_ms", c->hello_interval_ms);
	set_u(cfg, "seqbond", "hello_multiplier", c->hello_multiplier);
	set_u(cfg, "seqbond", "peer_silence_hold_ms", c->peer_silence_hold_ms);
	set_u(cfg, "seqbond", "peer_evict_s", c->peer_evict_s);
	set_u(cfg, "seqbond", "hello_idle_interval_ms", c->hello_idle_interval_ms);
	set_u(cfg, "seqbond", "hello_idle_rx_max", c->hello_idle_rx_max);
	rte_cfgfile_add_entry(cfg, "seqbond", "hello_unicast", c->hello_unicast ? "on" : "off");
	rte_cfgfile_add_entry(cfg, "seqbond", "hello_brief", c->hello_brief ? "on" : "off");
	set_u(cfg, "seqbond", "reorder_window", c->reorder_window);
	set_u(cfg, "seqbond", "reorder_timeout_us", c->reorder_timeout_us);
	set_u(cfg, "seqbond", "reorder_timeout_max_us", c->reorder_timeout_max_us);
	rte_cfgfile_add_entry(cfg, "seqbond", "late_policy",
		c->late_policy == SB_REORDER_LATE_DELIVER ? "deliver" :
		c->late_policy == SB_REORDER_LATE_FILL ? "fill" : "drop");
	set_u(cfg, "seqbond", "max_backlog_us", c->max_backlog_us);
	set_u(cfg, "seqbond", "burst", c->burst);
	set_u(cfg, "seqbond", "rx_desc", c->rx_desc);
	set_u(cfg, "seqbond", "tx_desc", c->tx_desc);
	if (c->initial_seq_set)
		set_u(cfg, "seqbond", "initial_seq", c->initial_seq);
	rte_cfgfile_add_entry(cfg, "seqbond", "lcore_mode",
		c->lcore_dedicated ? "dedicated" : "shared");
	set_u(cfg, "seqbond", "mtu_probe_interval_ms", c->mtu_probe_interval_ms);
	set_u(cfg, "seqbond", "path_loss_max_pct", c->path_loss_max_pct);
	set_u(cfg, "seqbond", "path_loss_window_ms", c->path_loss_window_ms);
	rte_cfgfile_add_entry(cfg, "seqbond", "adaptive_rate", c->adaptive_rate ? "on" : "off");
	set_u(cfg, "seqbond", "queue_target_us", c->queue_target_us);
	if (c->cluster_key_file[0] != '\0')
		rte_cfgfile_add_entry(cfg, "seqbond", "cluster_key_file", c->cluster_key_file);

	rte_cfgfile_add_section(cfg, "exception");
	rte_cfgfile_add_entry(cfg, "exception", "type", sb_exc_type_name(c->exc_type));
	rte_cfgfile_add_entry(cfg, "exception", "name", c->exc_name);
	if (c->exc_mtu == 0)
		rte_cfgfile_add_entry(cfg, "exception", "mtu", "auto");
	else
		set_u(cfg, "exception", "mtu", c->exc_mtu);

	for (i = 0; i < c->n_ports; i++) {
		char sec[16];

		snprintf(sec, sizeof(sec), "port%u", i);
		rte_cfgfile_add_section(cfg, sec);
		rte_cfgfile_add_entry(cfg, sec, "device", c->port[i].devargs);
		if (c->port[i].rate_kbps == 0)
			strlcpy(buf, "auto", sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%.3f", c->port[i].rate_kbps / 1000.0);
		rte_cfgfile_add_entry(cfg, sec, "rate_mbit", buf);
		set_u(cfg, sec, "mtu", c->port[i].mtu);
		rte_cfgfile_add_entry(cfg, sec, "passthrough",
			c->port[i].passthrough == SB_PASSTHROUGH_ON ? "on" :
			c->port[i].passthrough == SB_PASSTHROUGH_OFF ? "off" : "auto");
	}
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
	const struct cfg_key *keys, *k;
	int pi;

	if (strcmp(section, "seqbond") == 0) {
		keys = seqbond_keys;
	} else if (strcmp(section, "exception") == 0) {
		keys = exception_keys;
	} else if ((pi = port_index_of(section)) >= 0 && (unsigned int)pi < c->n_ports) {
		keys = port_keys;
		x.port = &c->port[pi];
	} else {
		x.key = NULL;
		return cfg_fail(&x, "no such section");
	}
	for (k = keys; k->name != NULL; k++)
		if (strcmp(k->name, key) == 0)
			return k->parse(&x);
	if (retired_key(section, key) != NULL)
		return cfg_fail(&x, "%s", retired_key(section, key));
	return cfg_fail(&x, "unknown key");
}

void
sb_config_dp_conf(const struct sb_config *c, struct sb_dp_conf *dc)
{
	unsigned int i;

	*dc = (struct sb_dp_conf){
		.host_id = c->host_id,
		.hello_interval_ms = c->hello_interval_ms,
		.hello_multiplier = c->hello_multiplier,
		.peer_silence_hold_ms = c->peer_silence_hold_ms,
		.peer_evict_s = c->peer_evict_s,
		.hello_idle_interval_ms = c->hello_idle_interval_ms,
		.hello_idle_rx_max = c->hello_idle_rx_max,
		.hello_unicast = c->hello_unicast,
		.hello_brief = c->hello_brief,
		.reorder_window = c->reorder_window,
		.reorder_timeout_us = c->reorder_timeout_us,
		.reorder_timeout_max_us = c->reorder_timeout_max_us,
		.late_policy = c->late_policy,
		.max_backlog_us = c->max_backlog_us,
		.burst = c->burst,
		.initial_seq_set = c->initial_seq_set,
		.initial_seq = c->initial_seq,
		.lcore_dedicated = c->lcore_dedicated,
		.mtu_probe_interval_ms = c->mtu_probe_interval_ms,
		.path_loss_max_pct = c->path_loss_max_pct,
		.path_loss_window_ms = c->path_loss_window_ms,
		.adaptive_rate = c->adaptive_rate,
		.queue_target_us = c->queue_target_us,
		.n_ports = c->n_ports,
	};
	memcpy(dc->mac, c->mac, sizeof(dc->mac));
	strlcpy(dc->scheduler, c->scheduler, sizeof(dc->scheduler));
	for (i = 0; i < c->n_ports; i++)
		dc->port[i] = (struct sb_dp_port_conf){
			.mtu = c->port[i].mtu, .rate_kbps = c->port[i].rate_kbps,
			.link_speed_real = sb_config_port_is_pci(&c->port[i]),
			.pt_port = RTE_MAX_ETHPORTS,
		};
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
