/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>

#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_port_logtype, port, INFO);
static int sb_port_probe_dev(const char *devargs, uint16_t *port_id);
#define PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_port_logtype, "seqbond.port: " fmt "\n", ##__VA_ARGS__)

/*
 * What seqbond has to know about a driver beyond ethdev: one table, looked up once when a
 * port is probed, instead of driver-name comparisons wherever a quirk matters.
 */
struct driver_quirks {
	const char *prefix;		/* driver (devargs) name prefix */
	bool kernel_carrier;		/* link status never changes: ask the kernel interface */
	bool kernel_mtu;		/* ethdev MTU limits too tight: set it on the kernel side */
	bool stop_is_final;		/* dev_stop cannot be undone by dev_start */
	int wake_family;		/* no rx interrupts: wait on the driver's socket of
					 * this address family (sb_port_rx_wake()); 0 none */
};

static const struct driver_quirks quirks_table[] = {
	/* af_packet: reports "up" forever; advertises a 1518-byte frame limit yet carries
	 * what its kernel interface's MTU and framesz allow; dev_stop closes its sockets and
	 * dev_start does not open them again. */
	{ .prefix = "net_af_packet", .kernel_carrier = true, .kernel_mtu = true,
		.stop_is_final = true, .wake_family = AF_PACKET },
	/* af_xdp: reports "up" forever. */
	{ .prefix = "net_af_xdp", .kernel_carrier = true, .wake_family = AF_XDP },
};

static const struct driver_quirks no_quirks = { .prefix = "" };

/*
 * Per port: its quirks and the kernel interface behind it (af_packet, af_xdp, tap: the
 * "iface=" devarg). Control state, written at probe.
 */
static const struct driver_quirks *port_quirks[RTE_MAX_ETHPORTS];
static char port_ifname[RTE_MAX_ETHPORTS][IF_NAMESIZE];
static int ifreq_sock = -1;

static const struct driver_quirks *
quirks_of(uint16_t port_id)
{
	return port_quirks[port_id] != NULL ? port_quirks[port_id] : &no_quirks;
}

static void
remember_port(uint16_t port_id, const char *devargs)
{
	const char *p;
	unsigned int i;
	size_t n;

	port_quirks[port_id] = &no_quirks;
	for (i = 0; i < RTE_DIM(quirks_table); i++)
		if (strncmp(devargs, quirks_table[i].prefix, strlen(quirks_table[i].prefix)) == 0)
			port_quirks[port_id] = &quirks_table[i];
	port_ifname[port_id][0] = '\0';
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
		remember_port(*port_id, devargs);
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

bool
sb_port_tx_multi_seg(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 &&
		(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
}

/*
 * Discard what the port's queues hold before the datapath first polls them. An af_packet
 * socket receives from every interface of its namespace between its creation and its bind()
 * (the PMD binds after setting up its ring, at probe), so frames of the other member ports
 * can wait in it, and a peer's hello among them would map a path that does not exist (seen
 * on the testbed: 13 paths where cabling allows 8). Nothing that old is worth reading.
 */
static void
stale_drain(uint16_t port_id, uint16_t n_queues)
{
	struct rte_mbuf *m[32];
	unsigned int total = 0, guard;
	uint16_t q, n;

	for (q = 0; q < n_queues; q++)
		for (guard = 0; guard < 1024; guard++) {
			n = rte_eth_rx_burst(port_id, q, m, RTE_DIM(m));
			if (n == 0)
				break;
			rte_pktmbuf_free_bulk(m, n);
			total += n;
		}
	if (total != 0)
		PORT_LOG(INFO, "port %u: %u frames received before start discarded", port_id,
			total);
}

/* Configure, set up the queues and start: sb_port_setup() without its retry. */
static int
port_start(uint16_t port_id, uint16_t mtu, struct rte_mempool *mp, uint16_t nb_rxd,
	uint16_t nb_txd, uint16_t n_queues, bool rx_intr, bool quiet)
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
	conf.intr_conf.rxq = rx_intr;
	if (n_queues == 0 || n_queues > info.max_rx_queues || n_queues > info.max_tx_queues) {
		PORT_LOG(ERR, "port %u: %u queue pairs asked, the driver has %u rx, %u tx",
			port_id, n_queues, info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	ret = rte_eth_dev_configure(port_id, n_queues, n_queues, &conf);
	if (ret != 0) {
		if (!quiet)
			PORT_LOG(ERR, "port %u: configure failed: %s", port_id,
				rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	if (ret != 0) {
		PORT_LOG(ERR, "port %u: bad descriptor counts: %s", port_id, rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_set_mtu(port_id, mtu);
	if (ret == -EINVAL && quirks_of(port_id)->kernel_mtu) {
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
	for (q = 0; q < n_queues; q++) {
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
	if (ret != 0 && !quiet)
		PORT_LOG(ERR, "port %u: start failed: %s", port_id, rte_strerror(-ret));
	return ret;
}

/*
 * Whether the port's Rx interrupts can wake a sleeping lcore. A PCI device needs vfio-pci's
 * MSI-X (one vector per queue). Under uio_pci_generic or igb_uio it has one legacy line,
 * shared with link-status events, whose cause the Rx interrupt path never clears: on e1000
 * under QEMU it stopped waking the lcore and slowed the guests' datapath (a round trip of
 * 65 ms against 10 ms polled), so such a port is polled instead. Virtual devices that offer
 * Rx interrupts (tap, memif) signal through descriptors of their own.
 */
static bool
rx_intr_usable(uint16_t port_id)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;
	const char *drv;
	ssize_t n;

	if (quirks_of(port_id)->wake_family != 0)
		return false;
	if (rte_eth_dev_info_get(port_id, &info) != 0 || info.device == NULL)
		return false;
	bus = rte_dev_bus(info.device);
	if (bus == NULL || strcmp(rte_bus_name(bus), "pci") != 0)
		return true;
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/driver",
		rte_dev_name(info.device));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	drv = strrchr(target, '/');
	return strcmp(drv != NULL ? drv + 1 : target, "vfio-pci") == 0;
}

int
sb_port_setup(uint16_t port_id, uint16_t mtu, struct rte_mempool *mp, uint16_t nb_rxd,
	uint16_t nb_txd, uint16_t n_queues, bool promisc)
{
	/* Rx interrupts let an idle lcore sleep until a frame comes (sb_wait.h); drivers
	 * read through a socket of their own are waited on by that socket instead. */
	bool rx_intr = rx_intr_usable(port_id);
	int ret;

	ret = port_start(port_id, mtu, mp, nb_rxd, nb_txd, n_queues, rx_intr, rx_intr);
	if (ret != 0 && rx_intr) {
		/* Not every driver (nor every interrupt mode: UIO without MSI-X) has them: the
		 * port then works as before, its frames found by the lcore's timed wake-ups. */
		PORT_LOG(INFO, "port %u: no rx interrupts (%s): polled on a timer when idle",
			port_id, rte_strerror(-ret));
		rte_eth_dev_stop(port_id);
		ret = port_start(port_id, mtu, mp, nb_rxd, nb_txd, n_queues, false, false);
	}
	if (ret != 0)
		return ret;
	if (promisc) {
		ret = rte_eth_promiscuous_enable(port_id);
		if (ret != 0 && ret != -ENOTSUP)
			PORT_LOG(WARNING, "port %u: promiscuous mode: %s", port_id,
				rte_strerror(-ret));
	}
	stale_drain(port_id, n_queues);
	return 0;
}

static int
fd_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The driver's socket of address family @p family bound to kernel interface @p ifindex:
 * the @p queue-th of them in descriptor order (the driver opens one per queue, in order,
 * and a socket takes the lowest free descriptor). @return the descriptor or -ENOENT. */
static int
driver_socket(int family, unsigned int ifindex, uint16_t queue)
{
	int fds[64], n = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL && n < (int)RTE_DIM(fds)) {
		union {
			struct sockaddr_ll ll;
			struct sockaddr_xdp xdp;
			struct sockaddr sa;
		} addr;
		socklen_t len = sizeof(addr), dlen;
		unsigned int bound;
		int fd, dom;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		dlen = sizeof(dom);
		if (fd == dirfd(d) ||
				getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dlen) != 0 ||
				dom != family)
			continue;
		memset(&addr, 0, sizeof(addr));
		if (getsockname(fd, &addr.sa, &len) != 0)
			continue;
		bound = family == AF_PACKET ? (unsigned int)addr.ll.sll_ifindex :
			addr.xdp.sxdp_ifindex;
		if (bound == ifindex)
			fds[n++] = fd;
	}
	closedir(d);
	if (queue >= n)
		return -ENOENT;
	qsort(fds, n, sizeof(fds[0]), fd_cmp);
	return fds[queue];
}

int
sb_port_rx_wake(uint16_t port_id, uint16_t queue, bool *intr)
{
	const struct driver_quirks *qk = quirks_of(port_id);
	unsigned int ifindex;
	int fd, ret;

	*intr = false;
	if (qk->wake_family != 0) {
		if (port_ifname[port_id][0] == '\0')
			return -ENOTSUP;
		ifindex = if_nametoindex(port_ifname[port_id]);
		if (ifindex == 0)
			return -errno;
		return driver_socket(qk->wake_family, ifindex, queue);
	}
	if (!rx_intr_usable(port_id))
		return -ENOTSUP;
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(port_id, queue);
	if (fd < 0)
		return -ENOTSUP;
	/* The TAP PMD has no interrupt to arm: its descriptor is the queue itself. */
	ret = rte_eth_dev_rx_intr_enable(port_id, queue);
	if (ret == 0) {
		rte_eth_dev_rx_intr_disable(port_id, queue);
		*intr = true;
	} else if (ret != -ENOTSUP) {
		return ret;
	}
	return fd;
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
	if (!quirks_of(port_id)->kernel_carrier || port_ifname[port_id][0] == '\0' ||
			ifreq_sock < 0)
		return true;
	/* The kernel interface must be up and have carrier (IFF_RUNNING). */
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, port_ifname[port_id], sizeof(ifr.ifr_name));
	if (ioctl(ifreq_sock, SIOCGIFFLAGS, &ifr) != 0)
		return false;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/* A driver whose stop is final (af_packet) would never transmit again after a console
 * `port stop` (its tx path would even wait forever on the closed socket once its ring
 * filled): such ports are only taken out of service by the datapath; the ethdev port keeps
 * running. */
static bool
stop_is_final(uint16_t port_id)
{
	return quirks_of(port_id)->stop_is_final;
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

int
sb_port_tap_create(const char *ifname, const uint8_t *mac, uint16_t *port_id)
{
	char devargs[128], macs[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(macs, sizeof(macs), (const struct rte_ether_addr *)mac);
	snprintf(devargs, sizeof(devargs), "net_tap_%s,iface=%s,mac=%s", ifname, ifname, macs);
	return sb_port_probe(devargs, port_id);
}
