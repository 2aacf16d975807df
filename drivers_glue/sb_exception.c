/* SPDX-License-Identifier: BSD-3-Clause */
/* The exception path's front: back-end table, type names, dispatch, counters. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "sb_exception_priv.h"

RTE_LOG_REGISTER_SUFFIX(sb_exc_logtype, exception, INFO);

/* One table for the names, the MTU limits and the back ends (index = enum sb_exc_type). */
static const struct {
	const char *name;
	uint16_t max_mtu;
	const struct sb_exc_ops *ops;
} exc_types[SB_EXC_TYPE_MAX] = {
	[SB_EXC_AUTO] = { "auto", 0, NULL },
	[SB_EXC_TAP_VNET] = { "tap-vnet", 9600, &sb_exc_tap_vnet_ops },
	/* DPDK 22.11's TAP PMD caps frames at 1522 bytes (its ethdev limit, enforced in its
	 * tx path), so 1500; virtio-user has no such cap. */
	[SB_EXC_TAP] = { "tap", RTE_ETHER_MTU, &sb_exc_tap_ops },
	[SB_EXC_VIRTIO_USER] = { "virtio-user", 9600, &sb_exc_virtio_user_ops },
};

int
sb_exc_type_parse(const char *name, enum sb_exc_type *type)
{
	unsigned int i;

	for (i = 0; i < SB_EXC_TYPE_MAX; i++)
		if (strcmp(name, exc_types[i].name) == 0) {
			*type = i;
			return 0;
		}
	return -EINVAL;
}

const char *
sb_exc_type_name(enum sb_exc_type type)
{
	return (unsigned int)type < SB_EXC_TYPE_MAX ? exc_types[type].name : "?";
}

const char *
sb_exc_type_names(void)
{
	return "auto, tap-vnet, tap or virtio-user";
}

enum sb_exc_type
sb_exc_type_resolve(enum sb_exc_type type)
{
	const unsigned int need = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	unsigned int features = 0;
	int fd;

	if (type != SB_EXC_AUTO)
		return type;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		EXC_LOG(NOTICE, "type auto: cannot open /dev/net/tun (%s): trying tap",
			strerror(errno));
		return SB_EXC_TAP;
	}
	if (ioctl(fd, TUNGETFEATURES, &features) != 0)
		features = 0;
	close(fd);
	if ((features & need) != need) {
		EXC_LOG(NOTICE, "type auto: this kernel's TUN lacks IFF_VNET_HDR or "
			"IFF_MULTI_QUEUE (features 0x%x): using tap", features);
		return SB_EXC_TAP;
	}
	EXC_LOG(INFO, "type auto: using tap-vnet (TUN/TAP with offloads)");
	return SB_EXC_TAP_VNET;
}

uint16_t
sb_exc_max_mtu(enum sb_exc_type type)
{
	return (unsigned int)type < SB_EXC_TYPE_MAX ? exc_types[type].max_mtu : 0;
}

unsigned int
sb_exc_mempool_need(const struct sb_exc_args *args, uint16_t data_room)
{
	enum sb_exc_type type = sb_exc_type_resolve(args->type);

	if ((unsigned int)type >= SB_EXC_TYPE_MAX || exc_types[type].ops == NULL)
		return 0;
	return exc_types[type].ops->mempool_need(args, data_room);
}

static struct sb_exc *
exc_alloc(const struct sb_exc_ops *ops)
{
	struct sb_exc *exc = rte_zmalloc("sb_exc", sizeof(*exc), RTE_CACHE_LINE_SIZE);

	if (exc == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	exc->ops = ops;
	exc->info.port_id = RTE_MAX_ETHPORTS;
	return exc;
}

struct sb_exc *
sb_exc_create(const struct sb_exc_args *args)
{
	struct sb_exc *exc;
	int ret;

	if (args == NULL || (unsigned int)args->type >= SB_EXC_TYPE_MAX ||
			exc_types[args->type].ops == NULL || args->name == NULL ||
			args->name[0] == '\0' || strlen(args->name) >= IF_NAMESIZE ||
			args->mac == NULL || args->mp == NULL || args->n_queues == 0 ||
			args->n_queues > SB_EXC_MAX_QUEUES || args->mtu < RTE_ETHER_MIN_MTU ||
			args->mtu > exc_types[args->type].max_mtu) {
		rte_errno = EINVAL;
		return NULL;
	}
	exc = exc_alloc(exc_types[args->type].ops);
	if (exc == NULL)
		return NULL;
	exc->info.type = args->type;
	strlcpy(exc->info.name, args->name, sizeof(exc->info.name));
	exc->info.mtu = args->mtu;
	exc->info.n_queues = args->n_queues;
	ret = exc->ops->create(exc, args);
	if (ret != 0) {
		rte_free(exc);
		rte_errno = -ret;
		return NULL;
	}
	EXC_LOG(INFO, "%s: %s exception path, mtu %u, %u queue%s", exc->info.name,
		exc->ops->name, exc->info.mtu, exc->info.n_queues,
		exc->info.n_queues > 1 ? "s" : "");
	return exc;
}

struct sb_exc *
sb_exc_from_port(uint16_t port_id, uint16_t mtu, uint16_t n_queues)
{
	struct sb_exc *exc;

	if (!rte_eth_dev_is_valid_port(port_id) || n_queues == 0 ||
			n_queues > SB_EXC_MAX_QUEUES) {
		rte_errno = EINVAL;
		return NULL;
	}
	exc = exc_alloc(&sb_exc_port_ops);
	if (exc == NULL)
		return NULL;
	exc->info.type = SB_EXC_TAP;
	snprintf(exc->info.name, sizeof(exc->info.name), "port%u", port_id);
	exc->info.mtu = mtu;
	exc->info.n_queues = n_queues;
	exc->info.port_id = port_id;
	return exc;
}

uint16_t
sb_exc_rx_burst(struct sb_exc *exc, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = exc->ops->rx_burst(exc, queue, pkts, n);

	exc->qstats[queue].rx.rx_frames += k;
	return k;
}

uint16_t
sb_exc_tx_burst(struct sb_exc *exc, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = exc->ops->tx_burst(exc, queue, pkts, n);

	exc->qstats[queue].tx.tx_frames += k;
	return k;
}

#define EXC_FIELD(f) { "exc_" #f, offsetof(struct sb_exc_stats, f) }

static const struct {
	const char *name;
	size_t off;
} exc_fields[] = {
	EXC_FIELD(rx_frames), EXC_FIELD(rx_kernel), EXC_FIELD(rx_gso), EXC_FIELD(rx_gso_frames),
	EXC_FIELD(rx_csum), EXC_FIELD(rx_bad_hdr), EXC_FIELD(rx_oversize),
	EXC_FIELD(rx_gso_fail), EXC_FIELD(rx_nombuf), EXC_FIELD(rx_errors),
	EXC_FIELD(tx_frames), EXC_FIELD(tx_kernel), EXC_FIELD(tx_gro), EXC_FIELD(tx_gro_frames),
	EXC_FIELD(tx_csum_ok), EXC_FIELD(tx_csum_bad), EXC_FIELD(tx_errors),
	EXC_FIELD(tx_deferred),
};

void
sb_exc_stats_get(const struct sb_exc *exc, struct sb_exc_stats *st)
{
	unsigned int q, i;

	memset(st, 0, sizeof(*st));
	for (q = 0; q < exc->info.n_queues; q++)
		for (i = 0; i < RTE_DIM(exc_fields); i++) {
			const char *rx = (const char *)&exc->qstats[q].rx + exc_fields[i].off;
			const char *tx = (const char *)&exc->qstats[q].tx + exc_fields[i].off;
			uint64_t *dst = (uint64_t *)((char *)st + exc_fields[i].off);

			*dst += __atomic_load_n((const uint64_t *)rx, __ATOMIC_RELAXED) +
				__atomic_load_n((const uint64_t *)tx, __ATOMIC_RELAXED);
		}
}

void
sb_exc_stats_foreach(const struct sb_exc_stats *st,
	void (*fn)(const char *name, uint64_t value, void *arg), void *arg)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(exc_fields); i++)
		fn(exc_fields[i].name, *(const uint64_t *)((const char *)st + exc_fields[i].off),
			arg);
}

int
sb_exc_wait_fd(const struct sb_exc *exc, uint16_t queue)
{
	if (queue >= exc->info.n_queues)
		return -EINVAL;
	if (exc->ops->wait_fd == NULL)
		return -ENOTSUP;
	return exc->ops->wait_fd(exc, queue);
}

unsigned int
sb_exc_tx_held(const struct sb_exc *exc, uint16_t queue)
{
	if (queue >= exc->info.n_queues || exc->ops->tx_held == NULL)
		return 0;
	return exc->ops->tx_held(exc, queue);
}

void
sb_exc_info_get(const struct sb_exc *exc, struct sb_exc_info *info)
{
	*info = exc->info;
}

int
sb_exc_close(struct sb_exc *exc)
{
	int ret;

	if (exc == NULL)
		return 0;
	ret = exc->ops->close(exc);
	rte_free(exc);
	return ret;
}
