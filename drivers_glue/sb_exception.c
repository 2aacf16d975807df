/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_log.h>

#include "sb_port.h"

RTE_LOG_REGISTER_SUFFIX(sb_exc_logtype, exception, INFO);
#define EXC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_exc_logtype, "seqbond.exception: " fmt "\n", ##__VA_ARGS__)

#define VHOST_NET_DEV "/dev/vhost-net"

int
sb_exception_create(int type, const char *name, const uint8_t *mac, uint16_t *port_id)
{
	char devargs[256], macs[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(macs, sizeof(macs), (const struct rte_ether_addr *)mac);
	if (type == 0) {
		snprintf(devargs, sizeof(devargs), "net_tap_%s,iface=%s,mac=%s", name, name, macs);
	} else {
		if (access(VHOST_NET_DEV, R_OK | W_OK) != 0) {
			EXC_LOG(ERR, "virtio-user needs %s (module vhost_net), which this kernel "
				"does not offer: %s; use [exception] type = tap", VHOST_NET_DEV,
				strerror(errno));
			return -ENOTSUP;
		}
		snprintf(devargs, sizeof(devargs),
			"virtio_user_%s,path=%s,iface=%s,mac=%s,queue_size=1024", name,
			VHOST_NET_DEV, name, macs);
	}
	return sb_port_probe(devargs, port_id);
}

uint16_t
sb_exception_max_mtu(int type)
{
	return type == 0 ? RTE_ETHER_MTU : 9600;
}
