/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exception path back ends over ethdev: DPDK's TAP PMD and virtio-user over vhost-net, plus
 * a wrapper around a port the caller set up itself. One frame per descriptor, no offloads:
 * what they read is already an ordinary frame with complete checksums.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "sb_exception_priv.h"
#include "sb_port.h"

#define VHOST_NET_DEV "/dev/vhost-net"

/* Set up a probed port as the exception path's queues; closes it on failure. */
static int
ethdev_setup(struct sb_exc *exc, const struct sb_exc_args *args, uint16_t port_id)
{
	int ret = sb_port_setup(port_id, args->mtu, args->mp, args->nb_rxd, args->nb_txd,
		args->n_queues, false);

	if (ret != 0) {
		sb_port_close(port_id);
		return ret;
	}
	exc->info.port_id = port_id;
	return 0;
}

static int
tap_create(struct sb_exc *exc, const struct sb_exc_args *args)
{
	uint16_t port_id;
	int ret;

	/* The same TAP PMD interface as the passthrough ones (sb_port.h). */
	ret = sb_port_tap_create(args->name, args->mac, &port_id);
	if (ret != 0)
		return ret;
	return ethdev_setup(exc, args, port_id);
}

static int
virtio_user_create(struct sb_exc *exc, const struct sb_exc_args *args)
{
	char devargs[256], macs[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t port_id;
	int ret;

	if (access(VHOST_NET_DEV, R_OK | W_OK) != 0) {
		EXC_LOG(ERR, "virtio-user needs %s (module vhost_net), which this kernel "
			"does not offer: %s; use [exception] type = tap-vnet or tap", VHOST_NET_DEV,
			strerror(errno));
		return -ENOTSUP;
	}
	rte_ether_format_addr(macs, sizeof(macs), (const struct rte_ether_addr *)args->mac);
	snprintf(devargs, sizeof(devargs),
		"virtio_user_%s,path=%s,iface=%s,mac=%s,queue_size=1024,queues=%u", args->name,
		VHOST_NET_DEV, args->name, macs, args->n_queues);
	ret = sb_port_probe(devargs, &port_id);
	if (ret != 0)
		return ret;
	return ethdev_setup(exc, args, port_id);
}

static uint16_t
ethdev_rx_burst(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(exc->info.port_id, q, pkts, n);
}

static uint16_t
ethdev_tx_burst(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(exc->info.port_id, q, pkts, n);
}

/* The queue's descriptor where the driver has one to poll (the TAP PMD's, with rx
 * interrupts on: sb_port_setup()); an interrupt to arm is not offered here. */
static int
ethdev_wait_fd(const struct sb_exc *exc, uint16_t q)
{
	bool intr;
	int fd = sb_port_rx_wake(exc->info.port_id, q, &intr);

	return fd >= 0 && intr ? -ENOTSUP : fd;
}

static int
ethdev_close(struct sb_exc *exc)
{
	/* The ethdev rings go back to the caller's pool, which checks them itself. */
	sb_port_close(exc->info.port_id);
	return 0;
}

static int
port_close(struct sb_exc *exc __rte_unused)
{
	return 0;	/* the port is the caller's */
}

/* Every rx and tx ring full, twice over for mbufs in flight in the PMD. */
static unsigned int
ethdev_mempool_need(const struct sb_exc_args *args, uint16_t data_room __rte_unused)
{
	return 2u * args->n_queues * (args->nb_rxd + args->nb_txd);
}

const struct sb_exc_ops sb_exc_tap_ops = {
	.name = "tap",
	.create = tap_create,
	.rx_burst = ethdev_rx_burst,
	.tx_burst = ethdev_tx_burst,
	.wait_fd = ethdev_wait_fd,
	.close = ethdev_close,
	.mempool_need = ethdev_mempool_need,
};

const struct sb_exc_ops sb_exc_virtio_user_ops = {
	.name = "virtio-user",
	.create = virtio_user_create,
	.rx_burst = ethdev_rx_burst,
	.tx_burst = ethdev_tx_burst,
	.wait_fd = ethdev_wait_fd,
	.close = ethdev_close,
	.mempool_need = ethdev_mempool_need,
};

const struct sb_exc_ops sb_exc_port_ops = {
	.name = "ethdev port",
	.create = NULL,
	.rx_burst = ethdev_rx_burst,
	.tx_burst = ethdev_tx_burst,
	.close = port_close,
	.mempool_need = ethdev_mempool_need,
};
