/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_PORT_H
#define SB_PORT_H

/**
 * @file
 * Bring-up of member ports (and of the ethdev exception paths, sb_exception.h) over ethdev.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

/**
 * Probe a device at run time (hotplug) and find its ethdev port.
 *
 * @param devargs  A PCI address bound to a DPDK driver ("0000:01:00.0") or a vdev string
 *   ("net_af_packet0,iface=eth1,qdisc_bypass=0"). A device EAL already probed (-a/--vdev)
 *   is found, not probed twice.
 * @param port_id  Set to the ethdev port id.
 * @return 0, or a negative errno from rte_dev_probe(); -ENODEV if the device probed but no
 *   ethdev port carries its name.
 */
int sb_port_probe(const char *devargs, uint16_t *port_id);

/**
 * Configure @p n_queues rx and tx queue pairs, set the MTU, enable promiscuous mode
 * (seqbond frames are addressed to the port's MAC or to a group address, raw frames to
 * anything), and start the port.
 *
 * @param mtu     L2 payload bytes.
 * @param mp      Mempool for received mbufs; its data room must hold mtu + 14 bytes.
 * @param nb_rxd, nb_txd  Descriptors per queue, adjusted to the driver's limits.
 * @param n_queues  Queue pairs (the exception port: one per RX worker; others: 1).
 * @param promisc Enable promiscuous mode (member ports: yes; exception port: no).
 * @return 0 or a negative errno; the message naming the port and step is logged.
 */
int sb_port_setup(uint16_t port_id, uint16_t mtu, struct rte_mempool *mp, uint16_t nb_rxd,
	uint16_t nb_txd, uint16_t n_queues, bool promisc);

/**
 * Whether the port's driver transmits multi-segment mbufs (RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
 * enabled by sb_port_setup() where offered). Frames cut by the tap-vnet exception path are
 * multi-segment unless it is told to return linear frames (SB_EXC_F_LINEAR).
 */
bool sb_port_tx_multi_seg(uint16_t port_id);

/**
 * Stop or restart a member port for the operator (console `port stop|start`), after the
 * datapath stopped using it / before it uses it again. NICs are stopped for real, so their
 * peers see the link go down; af_packet ports, whose driver cannot restart after a stop,
 * stay running and are only left unused by the datapath (peers notice by the missing
 * hellos).
 * @return 0 or the ethdev error (negative errno).
 */
int sb_port_admin_stop(uint16_t port_id);
int sb_port_admin_start(uint16_t port_id);

/**
 * How to sleep until rx queue @p queue of a port holds frames (sb_wait.h).
 *
 * af_packet and AF_XDP ports: the driver's own socket for the queue (found among the
 * process's descriptors by address family and bound interface), which polls readable while
 * its ring holds frames. Other drivers: the queue's DPDK rx interrupt descriptor, when
 * sb_port_setup() could enable rx interrupts: a TAP PMD queue's own descriptor (@p intr
 * false: poll it as it is), or an interrupt that rte_eth_dev_rx_intr_enable() arms
 * (@p intr true: a PCI NIC's MSI-X eventfd; register it with rte_eth_dev_rx_intr_ctl_q()).
 *
 * @param intr  Set when the descriptor is a DPDK rx interrupt to arm and acknowledge.
 * @return the descriptor (the driver's: do not close it), or -ENOTSUP when the driver offers
 *   none, -ENOENT when the af_packet/AF_XDP socket was not found.
 */
int sb_port_rx_wake(uint16_t port_id, uint16_t queue, bool *intr);

/** Stop and close a port and detach its device (reverse of probe + setup). */
void sb_port_close(uint16_t port_id);

/**
 * Link state, non-blocking. For af_packet and af_xdp ports, whose drivers report the link
 * up whatever happens, the kernel interface's IFF_UP and IFF_RUNNING (carrier) flags decide.
 * @return true when the link is up.
 */
bool sb_port_link_up(uint16_t port_id);

/**
 * Create a kernel interface served by DPDK's TAP PMD (net_tap): the per-port passthrough
 * interfaces (raw frames of a member port bound to DPDK, docs/design.md).
 * @param ifname  Kernel interface name (1..15 characters).
 * @param mac     Its MAC address (6 bytes).
 * @param port_id Set to its ethdev port.
 * @return 0 or the probe's negative errno.
 */
int sb_port_tap_create(const char *ifname, const uint8_t *mac, uint16_t *port_id);

#endif /* SB_PORT_H */
