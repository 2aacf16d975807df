/* SPDX-License-Identifier: BSD-3-Clause */
/* Control plane back end (sb_ctl.h): validate, post to the datapath lcore, wait, record. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "sb_ctl.h"
#include "sb_keyfile.h"
#include "sb_keymem.h"
#include "sb_port.h"
#include "sb_sched.h"

struct sb_ctl {
	pthread_mutex_t lock;		/* serialises control threads, never the datapath */
	struct sb_config *cfg;		/* running configuration, under lock */
	unsigned int n_ports;		/* fixed at start: read without the lock */
	/* The lcore writes snapshots into this buffer of ours, which outlives a timeout
	 * (see post()); under lock. */
	struct sb_snapshot *snap_buf;
	struct sb_dp *dp;		/* for its command rings; never read otherwise */
	uint16_t port_ids[SB_MAX_PORTS];
	uint16_t exc_port;
};

struct sb_ctl *
sb_ctl_create(struct sb_config *cfg, struct sb_dp *dp, const uint16_t *port_ids,
	uint16_t exc_port)
{
	struct sb_ctl *ctl = calloc(1, sizeof(*ctl));

	if (ctl == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ctl->dp = dp;
	pthread_mutex_init(&ctl->lock, NULL);
	ctl->cfg = cfg;
	ctl->n_ports = cfg->n_ports;
	memcpy(ctl->port_ids, port_ids, sizeof(ctl->port_ids[0]) * cfg->n_ports);
	ctl->exc_port = exc_port;
	return ctl;
}

void
sb_ctl_free(struct sb_ctl *ctl)
{
	if (ctl == NULL)
		return;
	pthread_mutex_destroy(&ctl->lock);
	free(ctl->snap_buf);
	free(ctl);
}

const struct sb_config *
sb_ctl_config(struct sb_ctl *ctl, struct sb_config *buf)
{
	pthread_mutex_lock(&ctl->lock);
	*buf = *ctl->cfg;
	pthread_mutex_unlock(&ctl->lock);
	return buf;
}

unsigned int
sb_ctl_n_ports(const struct sb_ctl *ctl)
{
	return ctl->n_ports;
}

int
sb_ctl_port_id(const struct sb_ctl *ctl, unsigned int index)
{
	if (index >= ctl->n_ports)
		return -EINVAL;
	return ctl->port_ids[index];
}

uint16_t
sb_ctl_exc_port(const struct sb_ctl *ctl)
{
	return ctl->exc_port;
}

/*
 * Post a command to one worker and wait for it to apply it (caller holds the lock). Workers
 * drain their rings every millisecond, naps included, so a second means one is gone. On
 * timeout the command may still be applied later, so it must not live on our stack: the
 * caller's buffers are static or heap, and we leave the command leaked.
 */
static int
post_one(struct sb_ctl *ctl, unsigned int k, const struct sb_cmd *tmpl)
{
	struct sb_cmd *cmd = malloc(sizeof(*cmd));
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	int ret;

	if (cmd == NULL)
		return -ENOMEM;
	*cmd = *tmpl;
	cmd->done = false;
	if (rte_ring_sp_enqueue(sb_dp_cmd_ring(ctl->dp, k), cmd) != 0) {
		free(cmd);
		return -ENOBUFS;
	}
	sb_dp_wake(ctl->dp, k);
	while (!__atomic_load_n(&cmd->done, __ATOMIC_ACQUIRE)) {
		if (rte_get_timer_cycles() > deadline)
			return -ETIMEDOUT;
		usleep(200);
	}
	ret = cmd->result;
	free(cmd);
	return ret;
}

/* Post to every worker the command concerns (sb_dp_cmd_workers()), one after the other, so
 * none of them writes a shared buffer while another does; stops at the first error. */
static int
post(struct sb_ctl *ctl, const struct sb_cmd *cmd)
{
	unsigned int k[SB_DP_MAX_WORKERS], n, i;
	int ret = 0;

	n = sb_dp_cmd_workers(ctl->dp, cmd, k);
	for (i = 0; i < n && ret == 0; i++)
		ret = post_one(ctl, k[i], cmd);
	return ret;
}

int
sb_ctl_snapshot(struct sb_ctl *ctl, struct sb_snapshot *snap)
{
	struct sb_cmd cmd = { .type = SB_CMD_SNAPSHOT };
	struct sb_snapshot *buf;
	int ret;

	pthread_mutex_lock(&ctl->lock);
	if (ctl->snap_buf == NULL)
		ctl->snap_buf = malloc(sizeof(*ctl->snap_buf));
	buf = ctl->snap_buf;
	if (buf == NULL) {
		pthread_mutex_unlock(&ctl->lock);
		return -ENOMEM;
	}
	/* Workers add their counters to it and fill the tables they own. */
	memset(buf, 0, sizeof(*buf));
	cmd.snap = buf;
	ret = post(ctl, &cmd);
	if (ret == 0)
		memcpy(snap, buf, sizeof(*snap));
	else if (ret == -ETIMEDOUT)
		ctl->snap_buf = NULL;	/* the late lcore may still write the old one */
	pthread_mutex_unlock(&ctl->lock);
	return ret;
}

static int
port_index_of(const char *section)
{
	char *end;
	long v;

	if (strncmp(section, "port", 4) != 0)
		return -1;
	v = strtol(section + 4, &end, 10);
	if (end == section + 4 || *end != '\0' || v < 0 || v >= SB_MAX_PORTS)
		return -1;
	return (int)v;
}

int
sb_ctl_set(struct sb_ctl *ctl, const char *section, const char *key, const char *value,
	char *err, size_t err_len)
{
	struct sb_config_key_info info;
	struct sb_config *next;
	struct sb_cmd cmd = { 0 };
	int ret, pi = port_index_of(section);

	next = malloc(sizeof(*next));
	if (next == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&ctl->lock);
	*next = *ctl->cfg;
	/* Messages from here name the console, not the file the appliance started from. */
	strlcpy(next->file, "running config", sizeof(next->file));
	ret = sb_config_set(next, section, key, value, err, err_len);
	if (ret != 0)
		goto out;

	/* The key table says which keys change at run time, and by which command. */
	if (sb_config_key_find(section, key, &info) != 0 || !info.runtime) {
		snprintf(err, err_len, "[%s] %s cannot change while seqbond runs; edit the file "
			"and restart", section, key);
		ret = -ENOTSUP;
		goto out;
	}
	cmd.type = info.cmd;
	switch (info.cmd) {
	case SB_CMD_SET_SCHED:
		cmd.ops = sb_sched_find(next->scheduler);
		break;
	case SB_CMD_SET_REORDER_TIMEOUT:
		cmd.value = next->reorder_timeout_us;
		break;
	case SB_CMD_SET_HELLO_INTERVAL:
		cmd.value = next->hello_interval_ms;
		break;
	case SB_CMD_SET_PORT_RATE:
		cmd.port = pi;
		cmd.value = (uint64_t)next->port[pi].rate_kbps * 1000;
		break;
	default:
		snprintf(err, err_len, "[%s] %s: no datapath command for it", section, key);
		ret = -ENOTSUP;
		goto out;
	}
	ret = post(ctl, &cmd);
	if (ret == 0) {
		strlcpy(next->file, ctl->cfg->file, sizeof(next->file));
		*ctl->cfg = *next;
	} else {
		snprintf(err, err_len, "[%s] %s = '%s': the datapath refused it: %s", section, key,
			value, strerror(-ret));
	}
out:
	pthread_mutex_unlock(&ctl->lock);
	free(next);
	return ret;
}

int
sb_ctl_port_admin(struct sb_ctl *ctl, unsigned int index, bool up, char *err, size_t err_len)
{
	struct sb_cmd cmd = { .type = SB_CMD_PORT_ADMIN, .port = index, .value = up };
	uint16_t port_id;
	int ret;

	if (index >= ctl->n_ports) {
		snprintf(err, err_len, "no port %u (ports 0..%u)", index, ctl->n_ports - 1);
		return -EINVAL;
	}
	port_id = ctl->port_ids[index];
	pthread_mutex_lock(&ctl->lock);
	if (up) {
		/* Start the device first: the lcore polls it as soon as it is marked up. */
		ret = sb_port_admin_start(port_id);
		if (ret != 0) {
			snprintf(err, err_len, "port %u: start failed: %s", index,
				rte_strerror(-ret));
			goto out;
		}
		ret = post(ctl, &cmd);
	} else {
		/* Stop polling it first, then stop the device. */
		ret = post(ctl, &cmd);
		if (ret == 0) {
			ret = sb_port_admin_stop(port_id);
			if (ret != 0)
				snprintf(err, err_len, "port %u: stop failed: %s", index,
					rte_strerror(-ret));
		}
	}
	if (ret == -EALREADY)
		snprintf(err, err_len, "port %u is already %s", index, up ? "started" : "stopped");
	else if (ret == -ETIMEDOUT)
		snprintf(err, err_len, "the datapath did not answer");
out:
	pthread_mutex_unlock(&ctl->lock);
	return ret;
}

int
sb_ctl_clear_port_stats(struct sb_ctl *ctl, int index)
{
	struct sb_cmd cmd = { .type = SB_CMD_CLEAR_PORT_STATS };
	unsigned int i;
	int ret;

	if (index >= (int)ctl->n_ports)
		return -EINVAL;
	cmd.port = index < 0 ? UINT32_MAX : (uint32_t)index;
	pthread_mutex_lock(&ctl->lock);
	ret = post(ctl, &cmd);
	for (i = 0; ret == 0 && i < ctl->n_ports; i++)
		if (index < 0 || (unsigned int)index == i)
			rte_eth_stats_reset(ctl->port_ids[i]);
	pthread_mutex_unlock(&ctl->lock);
	return ret;
}

/*
 * Whether @p ring still holds the key every live peer (a path up) sends with: dropping one
 * would cut that peer off at once. @return 0, or -EBUSY with the first such peer in @p err.
 */
static int
ring_keeps_live_keys(const struct sb_snapshot *s, const struct sb_auth_keyring *ring,
	const char *path, char *err, size_t err_len)
{
	unsigned int i, k;

	for (i = 0; i < s->peers.n_peers; i++) {
		const struct sb_peer *p = &s->peers.peer[i];
		uint16_t id = s->peer[i].key_sends;

		if (!sb_snap_peer_used(s, i) || p->n_up == 0 || id == SB_DP_KEY_NONE)
			continue;
		for (k = 0; k < ring->n_keys; k++)
			if (ring->key[k].id == id)
				break;
		if (k == ring->n_keys) {
			snprintf(err, err_len, "peer %u still sends with key id %u, which %s no "
				"longer holds: applying it would cut that peer off (finish step 2 "
				"of the rollover on every host first; `key reload force` applies "
				"it anyway); the running keys are kept", p->host_id, id, path);
			return -EBUSY;
		}
	}
	return 0;
}

int
sb_ctl_key_reload(struct sb_ctl *ctl, bool force, char *err, size_t err_len)
{
	struct sb_cmd cmd = { .type = SB_CMD_SET_KEYRING };
	struct sb_auth_keyring *ring;
	struct sb_snapshot *snap = NULL;
	char path[SB_KEYFILE_PATH_LEN];
	int ret;

	/* What the peers send with now (the snapshot takes the lock itself). */
	if (!force) {
		snap = malloc(sizeof(*snap));
		if (snap == NULL || sb_ctl_snapshot(ctl, snap) != 0) {
			free(snap);
			snprintf(err, err_len, "cannot read the peers' keys; the running keys "
				"are kept");
			sb_keyfile_log_failed("key reload", err);
			return -EAGAIN;
		}
	}
	pthread_mutex_lock(&ctl->lock);
	strlcpy(path, ctl->cfg->cluster_key_file, sizeof(path));
	if (path[0] == '\0') {
		snprintf(err, err_len, "seqbond runs without a cluster key (no cluster_key_file): "
			"set one and restart (the exception MTU depends on it)");
		ret = -ENOTSUP;
		goto out;
	}
	/* Heap, not stack: a worker that times out may still read it later (post_one());
	 * locked and out of core dumps (sb_keymem.h). */
	ring = sb_keymem_zalloc(sizeof(*ring));
	if (ring == NULL) {
		snprintf(err, err_len, "out of memory; the running keys are kept");
		ret = -ENOMEM;
		goto out;
	}
	ret = sb_keyfile_load(path, ring, err, err_len);
	if (ret != 0) {
		size_t len = strlen(err);

		snprintf(err + len, err_len - len, "; the running keys are kept");
	} else if (snap != NULL &&
			(ret = ring_keeps_live_keys(snap, ring, path, err, err_len)) != 0) {
		/* refused: said in err */
	} else {
		cmd.keyring = ring;
		ret = post(ctl, &cmd);
		if (ret == -ETIMEDOUT) {
			snprintf(err, err_len, "the datapath did not answer: some workers may have "
				"taken the keys; run key reload again");
			goto out;	/* left to the late worker (leaked) */
		}
		if (ret != 0)
			snprintf(err, err_len, "the datapath refused the keys: %s; the running "
				"keys are kept", strerror(-ret));
	}
	if (ret == 0)
		sb_keyfile_log(ring, force ? "key reload force" : "key reload");
	sb_keymem_free(ring, sizeof(*ring));
out:
	pthread_mutex_unlock(&ctl->lock);
	free(snap);
	if (ret != 0)
		sb_keyfile_log_failed(force ? "key reload force" : "key reload", err);
	return ret;
}
