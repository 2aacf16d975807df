/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_port_logtype, port, INFO);
static int sb_port_probe_dev(const char *devargs, uint16_t *port_id);
#define PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_port_logtype, "seqbond.port: " fmt "\n", ##__VA_ARGS__)

/*
 * Kernel interface behind a port (af_packet, af_xdp, tap: the "iface=" devarg). Control
 * state, written at probe. Used to set the MTU where the driver's ethdev limits are too
 * tight, and for carrier where the driver's link status does not follow the kernel's
 * (af_packet and af_xdp report "up" forever).
 */
static char port_ifname[RTE_MAX_ETHPORTS][IF_NAMESIZE];
static bool port_kernel_carrier[RTE_MAX_ETHPORTS];
static int ifreq_sock = -1;

static void
remember_ifname(uint16_t port_id, const char *devargs)
{
	const char *p;
	size_t n;

	port_ifname[port_id][0] = '\0';
	port_kernel_carrier[port_id] = strncmp(devargs, "net_af_packet", 13) == 0 ||
		strncmp(devargs, "net_af_xdp", 10) == 0;
	p = strstr(devargs, "iface=");
	if (p == NULL)
		return;
	p += 6;
	n = strcspn(p, ",");
	if (n == 0 || n >= IF_NAMESIZE)
		return;
	memcpy(port_ifname[port_id], p, n);
	port_ifname[port_id][n] = '\0';
	if (ifreq_sock < 0)
		ifreq_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/* Set the MTU on the kernel side of a port. @return 0 or -errno. */
static int
kernel_set_mtu(uint16_t port_id, uint16_t mtu)
{
	struct ifreq ifr;

	if (port_ifname[port_id][0] == '\0' || ifreq_sock < 0)
		return -ENOTSUP;
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, port_ifname[port_id], sizeof(ifr.ifr_name));
	ifr.ifr_mtu = mtu;
	if (ioctl(ifreq_sock, SIOCSIFMTU, &ifr) != 0)
		return -errno;
	return 0;
}

int
sb_port_probe(const char *devargs, uint16_t *port_id)
{
	int ret = sb_port_probe_dev(devargs, port_id);

	if (ret == 0)
		remember_ifname(*port_id, devargs);
	return ret;
}

static int
sb_port_probe_dev(const char *devargs, uint16_t *port_id)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");
	int ret;

	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, devargs, n);
	name[n] = '\0';

	/* Already there (EAL -a/--vdev, or a restart of the port): use it. */
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	ret = rte_dev_probe(devargs);
	/* Some drivers (af_packet) fail with a bare -1, which would read as EPERM. */
	if (ret == -1)
		ret = -ENODEV;
	if (ret < 0) {
		PORT_LOG(ERR, "probing '%s' failed: %s", devargs, rte_strerror(-ret));
		return ret;
	}
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0) {
		PORT_LOG(ERR, "'%s' probed but no ethdev port is named '%s'", devargs, name);
		return -ENODEV;
	}
	return 0;
}

int
sb_port_setup(uint16_t port_id, uint16_t mtu, struct rte_mempool *mp, uint16_t nb_rxd,
	uint16_t nb_txd, bool promisc)
{
	return sb_port_setup_queues(port_id, mtu, mp, 1, nb_rxd, nb_txd, promisc);
}

bool
sb_port_tx_multi_seg(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 &&
		(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
}

int
sb_port_setup_queues(uint16_t port_id, uint16_t mtu, struct rte_mempool *mp, uint16_t nb_queues,
	uint16_t nb_rxd, uint16_t nb_txd, bool promisc)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0) {
		PORT_LOG(ERR, "port %u: cannot get device info: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(port_id, nb_queues, nb_queues, &conf);
	if (ret != 0) {
		PORT_LOG(ERR, "port %u: configure failed: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	if (ret != 0) {
		PORT_LOG(ERR, "port %u: bad descriptor counts: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_set_mtu(port_id, mtu);
	if (ret == -EINVAL && strcmp(info.driver_name, "net_af_packet") == 0) {
		/* af_packet advertises a 1518-byte frame limit to ethdev yet carries whatever
		 * its kernel interface's MTU and its framesz devarg allow: set it there. */
		ret = kernel_set_mtu(port_id, mtu);
		if (ret == 0)
			PORT_LOG(INFO, "port %u: MTU %u set on kernel interface %s", port_id, mtu,
				port_ifname[port_id]);
	}
	if (ret != 0 && ret != -ENOTSUP) {
		PORT_LOG(ERR, "port %u: cannot set MTU %u (driver allows %u..%u): %s", port_id, mtu,
			info.min_mtu, info.max_mtu, rte_strerror(-ret));
		return ret;
	}
	for (q = 0; q < nb_queues; q++) {
		ret = rte_eth_rx_queue_setup(port_id, q, nb_rxd, rte_eth_dev_socket_id(port_id),
			NULL, mp);
		if (ret != 0) {
			PORT_LOG(ERR, "port %u: rx queue %u setup failed: %s", port_id, q,
				rte_strerror(-ret));
			return ret;
		}
		ret = rte_eth_tx_queue_setup(port_id, q, nb_txd, rte_eth_dev_socket_id(port_id),
			NULL);
		if (ret != 0) {
			PORT_LOG(ERR, "port %u: tx queue %u setup failed: %s", port_id, q,
				rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_dev_start(port_id);
	if (ret != 0) {
		PORT_LOG(ERR, "port %u: start failed: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	if (promisc) {
		ret = rte_eth_promiscuous_enable(port_id);
		if (ret != 0 && ret != -ENOTSUP)
			PORT_LOG(WARNING, "port %u: promiscuous mode: %s", port_id,
				rte_strerror(-ret));
	}
	return 0;
}

void
sb_port_close(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;
	int ret;

	if (rte_eth_dev_info_get(port_id, &info) == 0)
		dev = info.device;
	ret = rte_eth_dev_stop(port_id);
	if (ret != 0)
		PORT_LOG(WARNING, "port %u: stop: %s", port_id, rte_strerror(-ret));
	rte_eth_dev_close(port_id);
	if (dev != NULL)
		rte_dev_remove(dev);
}

bool
sb_port_link_up(uint16_t port_id)
{
	struct rte_eth_link link;
	struct ifreq ifr;

	if (rte_eth_link_get_nowait(port_id, &link) != 0 || link.link_status != RTE_ETH_LINK_UP)
		return false;
	if (!port_kernel_carrier[port_id] || port_ifname[port_id][0] == '\0' || ifreq_sock < 0)
		return true;
	/* The kernel interface must be up and have carrier (IFF_RUNNING). */
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, port_ifname[port_id], sizeof(ifr.ifr_name));
	if (ioctl(ifreq_sock, SIOCGIFFLAGS, &ifr) != 0)
		return false;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/* af_packet's dev_stop closes its sockets and dev_start does not open them again, so a
 * stopped af_packet port could never transmit again (and its tx path would wait forever
 * on the closed socket once its ring filled). Such ports are only taken out of service by
 * the datapath; the ethdev port keeps running. */
static bool
stop_is_final(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 &&
		strcmp(info.driver_name, "net_af_packet") == 0;
}

int
sb_port_admin_stop(uint16_t port_id)
{
	if (stop_is_final(port_id))
		return 0;
	return rte_eth_dev_stop(port_id);
}

int
sb_port_admin_start(uint16_t port_id)
{
	if (stop_is_final(port_id))
		return 0;
	return rte_eth_dev_start(port_id);
}
