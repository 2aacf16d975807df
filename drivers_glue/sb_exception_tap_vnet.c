/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tap-vnet: the exception path as a Linux TUN/TAP interface opened directly, with the
 * virtio-net header (IFF_VNET_HDR) and the offloads it allows (TUNSETOFFLOAD: checksum, TSO
 * for IPv4 and IPv6). The kernel's TCP then hands over segments of up to 64 KiB in one read
 * and takes merged segments in one write, instead of one system call and one pass through
 * its stack per MTU-sized frame. One file descriptor per queue (IFF_MULTI_QUEUE).
 *
 * Reads go into a chain of mbufs from the caller's pool (readv: however small their data
 * rooms, a 64 KiB segment fits); sb_vnet.c cuts and checksums. Writes gather a merged packet's
 * mbufs with writev behind the header.
 *
 * Read as references, not copied: QEMU's net/tap-linux.c (offload flags), VPP's tapv2 (GSO
 * over TAP), Open vSwitch's userspace TSO on tap ports, DPDK's net_tap.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "sb_exception_priv.h"
#include "sb_vnet.h"

#define TUN_DEV "/dev/net/tun"
#define TV_OFFLOADS (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
#define TV_BURST_MAX 256	/* largest rx_burst the ring leaves room for */
#define TV_READS_MAX 64		/* reads per rx_burst call */
#define TV_TX_MAX 512		/* frames one tx_burst call takes */
#define TV_IOV_MAX 1024		/* UIO_MAXIOV */

/*
 * One queue: a file descriptor, the state rx_burst uses and the state tx_burst uses, on
 * separate cache lines: the two may run on different lcores at once (the kernel takes a
 * read and a write on one descriptor concurrently).
 */
struct tv_queue {
	int fd;
	uint16_t id;
	/* receive side */
	uint64_t rx_next_log;		/* TSC: rate limit of error messages */
	uint16_t n_stash;		/* mbufs ready for the next read */
	struct rte_mbuf **stash;	/* [stash_need] */
	struct iovec *iov;		/* [stash_need + 1]: header, then the stash */
	struct virtio_net_hdr_v1 rx_hdr;
	/* frames ready for rx_burst: ring[tail..head) */
	struct rte_mbuf **ring;
	uint32_t ring_mask, head, tail;
	struct rte_mbuf **cut;		/* [max_segs]: scratch for one packet's frames */
	/* a decoded packet waiting for room (ring or pools), retried before reading on */
	struct rte_mbuf *held;
	struct sb_vnet_rx held_rx;
	/* transmit side: packets the kernel refused for now (EAGAIN), written first */
	uint64_t tx_next_log __rte_cache_aligned;
	uint16_t bl_head, bl_n;
	struct rte_mbuf *backlog[TV_TX_MAX];
	struct rte_mbuf *work[TV_TX_MAX];
} __rte_cache_aligned;

struct tv_priv {
	struct sb_vnet_seg_ctx seg;
	struct rte_mempool *mp;
	uint16_t stash_need;		/* mbufs that hold the largest packet */
	uint32_t buf_len;		/* data room of mp's mbufs */
	uint32_t max_segs;		/* frames one packet can give */
	uint16_t n_queues;
	struct tv_queue q[SB_EXC_MAX_QUEUES];
};

/* ----------------------------------------------------------------------------------- */
/* sizes, shared by create and sb_exc_mempool_need() */

static uint16_t
stash_need(uint32_t buf_len)
{
	uint32_t first = buf_len - RTE_PKTMBUF_HEADROOM;

	return 1 + (SB_VNET_MAX_PKT - first + buf_len - 1) / buf_len;
}

static uint32_t
ring_size(uint16_t mtu)
{
	return rte_align32pow2(TV_BURST_MAX + sb_vnet_max_segments(SB_VNET_MAX_PKT, mtu));
}

static unsigned int
tv_mempool_need(const struct sb_exc_args *args, uint16_t data_room)
{
	uint32_t buf_len = data_room;

	if (buf_len <= RTE_PKTMBUF_HEADROOM)
		return 0;
	/* Per queue: the stash twice (it and a packet held back), and what the ring's frames
	 * pin; each frame the caller holds may pin a second mbuf when it straddles two. */
	return args->n_queues * (2u * stash_need(buf_len) + 2u * ring_size(args->mtu)) +
		args->max_held;
}

/* ----------------------------------------------------------------------------------- */
/* receive: kernel -> datapath */

static inline uint32_t
ring_count(const struct tv_queue *tq)
{
	return tq->head - tq->tail;
}

/* One error message a second per queue and direction: @p next is that side's deadline. */
static bool
log_allowed(uint64_t *next)
{
	uint64_t now = rte_get_timer_cycles();

	if (now < *next)
		return false;
	*next = now + rte_get_timer_hz();
	return true;
}

/*
 * Cut or complete one decoded packet into the ring. @return false when it must wait (no
 * room in the ring or the pools: still ours, in tq->held); true when it was consumed (queued
 * or dropped and counted).
 */
static bool
rx_finish(struct tv_priv *pv, struct tv_queue *tq, struct sb_exc_stats *st, struct rte_mbuf *m,
	const struct sb_vnet_rx *rx)
{
	uint32_t room = tq->ring_mask + 1 - ring_count(tq), i;
	int n = sb_vnet_rx_finish(m, rx, &pv->seg, tq->cut, RTE_MIN(room, pv->max_segs));

	if (n > 0) {
		for (i = 0; i < (uint32_t)n; i++)
			tq->ring[(tq->head + i) & tq->ring_mask] = tq->cut[i];
		tq->head += n;
		if (rx->gso_type != VIRTIO_NET_HDR_GSO_NONE)
			st->rx_gso_frames += n;
		else if (rx->need_csum)
			st->rx_csum++;
		return true;
	}
	switch (n) {
	case -ENOMEM:
		st->rx_nombuf++;
		/* fall through */
	case -ENOSPC:
		tq->held = m;
		tq->held_rx = *rx;
		return false;
	case -EMSGSIZE:
		st->rx_oversize++;
		break;
	default:
		st->rx_gso_fail++;
		break;
	}
	rte_pktmbuf_free(m);
	return true;
}

/* Top the stash up to stash_need mbufs. @return 0 or -ENOMEM. */
static int
stash_refill(struct tv_priv *pv, struct tv_queue *tq)
{
	uint16_t want = pv->stash_need - tq->n_stash;

	if (want == 0)
		return 0;
	if (rte_pktmbuf_alloc_bulk(pv->mp, &tq->stash[tq->n_stash], want) != 0)
		return -ENOMEM;
	tq->n_stash += want;
	return 0;
}

/* Read one packet into the stash. @return its frame bytes; 0 when nothing is there; -1 for
 * a packet dropped (runt, truncated: counted, the stash is still whole); -2 when reading
 * failed (counted and logged: try again at the next poll). */
static ssize_t
rx_read(struct tv_priv *pv, struct tv_queue *tq, struct sb_exc_stats *st)
{
	const size_t cap = (pv->buf_len - RTE_PKTMBUF_HEADROOM) +
		(size_t)(pv->stash_need - 1) * pv->buf_len;
	ssize_t len;
	unsigned int i;

	tq->iov[0].iov_base = &tq->rx_hdr;
	tq->iov[0].iov_len = SB_VNET_HDR_LEN;
	/* The first mbuf keeps its headroom (the shim goes there); the others are filled
	 * whole. The stash is used from its top. */
	for (i = 0; i < pv->stash_need; i++) {
		struct rte_mbuf *mb = tq->stash[pv->stash_need - 1 - i];

		mb->data_off = i == 0 ? RTE_PKTMBUF_HEADROOM : 0;
		tq->iov[i + 1].iov_base = rte_pktmbuf_mtod(mb, void *);
		tq->iov[i + 1].iov_len = pv->buf_len - mb->data_off;
	}
	do {
		len = readv(tq->fd, tq->iov, pv->stash_need + 1);
	} while (len < 0 && errno == EINTR);
	if (len < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		st->rx_errors++;
		if (log_allowed(&tq->rx_next_log))
			EXC_LOG(ERR, "queue %u: read: %s", tq->id, strerror(errno));
		return -2;
	}
	st->rx_kernel++;
	/* tun reports the packet's full length even when it did not fit (truncated). */
	if ((size_t)len > cap + SB_VNET_HDR_LEN || len < SB_VNET_HDR_LEN + RTE_ETHER_HDR_LEN) {
		st->rx_errors++;
		if (log_allowed(&tq->rx_next_log))
			EXC_LOG(ERR, "queue %u: read a packet of %zd bytes (runt or above %zu): "
				"dropped", tq->id, len, cap);
		return -1;
	}
	return len - SB_VNET_HDR_LEN;
}

/* Chain the stash mbufs that hold @p len bytes into one packet and take them out. */
static struct rte_mbuf *
rx_chain(struct tv_priv *pv, struct tv_queue *tq, uint32_t len)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint32_t left = len;

	while (left > 0) {
		struct rte_mbuf *mb = tq->stash[--tq->n_stash];
		uint32_t take = RTE_MIN(left, pv->buf_len - mb->data_off);

		mb->data_len = take;
		mb->next = NULL;
		if (head == NULL) {
			head = mb;
			head->nb_segs = 1;
			head->pkt_len = len;
		} else {
			prev->next = mb;
			head->nb_segs++;
		}
		prev = mb;
		left -= take;
	}
	return head;
}

static uint16_t
tv_rx_burst(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	struct tv_priv *pv = exc->priv;
	struct tv_queue *tq = &pv->q[q];
	struct sb_exc_stats *st = &exc->qstats[q].rx;
	unsigned int reads = 0;
	uint16_t i, k;

	while (ring_count(tq) < n && reads < TV_READS_MAX) {
		struct sb_vnet_rx rx;
		struct rte_mbuf *m;
		ssize_t len;

		if (tq->held != NULL) {
			m = tq->held;
			tq->held = NULL;
			if (!rx_finish(pv, tq, st, m, &tq->held_rx))
				break;
			continue;
		}
		if (tq->ring_mask + 1 - ring_count(tq) < pv->max_segs)
			break;
		if (stash_refill(pv, tq) != 0) {
			st->rx_nombuf++;
			break;
		}
		len = rx_read(pv, tq, st);
		if (len == 0 || len == -2)
			break;
		reads++;
		if (len < 0)
			continue;	/* dropped; the stash is still whole */
		m = rx_chain(pv, tq, len);
		if (sb_vnet_rx_decode(&tq->rx_hdr, m, &rx) != 0) {
			st->rx_bad_hdr++;
			if (log_allowed(&tq->rx_next_log))
				EXC_LOG(ERR, "queue %u: bad virtio-net header (flags 0x%x gso_type "
					"%u gso_size %u csum %u+%u) on a %u-byte frame: dropped",
					tq->id, tq->rx_hdr.flags, tq->rx_hdr.gso_type,
					rte_le_to_cpu_16(tq->rx_hdr.gso_size),
					rte_le_to_cpu_16(tq->rx_hdr.csum_start),
					rte_le_to_cpu_16(tq->rx_hdr.csum_offset), m->pkt_len);
			rte_pktmbuf_free(m);
			continue;
		}
		if (rx.gso_type != VIRTIO_NET_HDR_GSO_NONE)
			st->rx_gso++;
		if (!rx_finish(pv, tq, st, m, &rx))
			break;
	}
	k = RTE_MIN((uint32_t)n, ring_count(tq));
	for (i = 0; i < k; i++)
		pkts[i] = tq->ring[(tq->tail + i) & tq->ring_mask];
	tq->tail += k;
	return k;
}

/* ----------------------------------------------------------------------------------- */
/* transmit: datapath -> kernel */

/*
 * Write one packet (header + its mbufs). @return 0 when it is gone (written, or dropped and
 * counted, and freed), -EAGAIN when the kernel wants us to come back (still ours).
 */
static int
tx_write(struct tv_queue *tq, struct sb_exc_stats *st, struct rte_mbuf *m)
{
	struct iovec iov[TV_IOV_MAX];
	struct virtio_net_hdr_v1 h;
	const struct rte_mbuf *seg;
	size_t total = SB_VNET_HDR_LEN;
	ssize_t ret;
	int n = 1;

	if (m->nb_segs >= TV_IOV_MAX) {
		st->tx_errors++;
		rte_pktmbuf_free(m);
		return 0;
	}
	sb_vnet_tx_header(m, &h);
	iov[0].iov_base = &h;
	iov[0].iov_len = SB_VNET_HDR_LEN;
	for (seg = m; seg != NULL; seg = seg->next) {
		iov[n].iov_base = rte_pktmbuf_mtod(seg, void *);
		iov[n].iov_len = seg->data_len;
		total += seg->data_len;
		n++;
	}
	do {
		ret = writev(tq->fd, iov, n);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -EAGAIN;
	if (ret < 0 || (size_t)ret != total) {
		/* EIO: sb0 is down; EINVAL: the kernel refused the header (a bug here). */
		st->tx_errors++;
		if (log_allowed(&tq->tx_next_log))
			EXC_LOG(WARNING, "queue %u: write of %zu bytes: %s", tq->id, total,
				ret < 0 ? strerror(errno) : "short write");
	} else {
		st->tx_kernel++;
	}
	rte_pktmbuf_free(m);
	return 0;
}

/* Write what the kernel refused before. @return true when nothing is left. */
static bool
tx_backlog_flush(struct tv_queue *tq, struct sb_exc_stats *st)
{
	while (tq->bl_n > 0) {
		if (tx_write(tq, st, tq->backlog[tq->bl_head]) == -EAGAIN) {
			st->tx_deferred++;
			return false;
		}
		tq->bl_head++;
		tq->bl_n--;
	}
	tq->bl_head = 0;
	return true;
}

static uint16_t
tv_tx_burst(struct sb_exc *exc, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	struct tv_priv *pv = exc->priv;
	struct tv_queue *tq = &pv->q[q];
	struct sb_exc_stats *st = &exc->qstats[q].tx;
	struct sb_vnet_tx_stats vst = { 0 };
	uint16_t i, k;

	/* Until the kernel took what it refused, take nothing new: the caller keeps its
	 * frames (backpressure, as a full ring). */
	if (tq->bl_n > 0 && !tx_backlog_flush(tq, st))
		return 0;
	n = RTE_MIN(n, TV_TX_MAX);
	if (n == 0)
		return 0;
	/* Coalesce a copy of the pointer array: the caller's stays as it was. */
	memcpy(tq->work, pkts, n * sizeof(pkts[0]));
	k = sb_vnet_tx_coalesce(tq->work, n, &vst);
	st->tx_csum_ok += vst.csum_ok;
	st->tx_csum_bad += vst.csum_bad;
	st->tx_gro += vst.gro;
	st->tx_gro_frames += vst.gro_frames;
	for (i = 0; i < k; i++) {
		if (tx_write(tq, st, tq->work[i]) == -EAGAIN) {
			st->tx_deferred++;
			memcpy(tq->backlog, &tq->work[i], (k - i) * sizeof(tq->work[0]));
			tq->bl_head = 0;
			tq->bl_n = k - i;
			break;
		}
	}
	return n;
}

/* ----------------------------------------------------------------------------------- */
/* bring-up and tear-down */

/* Open queue @p q of interface @p name. @return 0 or a negative errno (logged). */
static int
tv_open_queue(const char *name, uint16_t q, int *fd_out)
{
	int fd, hdr_len = SB_VNET_HDR_LEN, ret;
	struct ifreq ifr;

	fd = open(TUN_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		EXC_LOG(ERR, "%s: cannot open %s: %s", name, TUN_DEV, strerror(errno));
		return ret;
	}
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
		ret = -errno;
		EXC_LOG(ERR, "%s: queue %u: TUNSETIFF (TAP, virtio-net header, multi-queue): %s%s",
			name, q, strerror(errno), ret == -EINVAL ? " (this kernel lacks "
			"IFF_VNET_HDR or IFF_MULTI_QUEUE: use type = tap)" : "");
		goto fail;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_len) != 0) {
		ret = -errno;
		EXC_LOG(ERR, "%s: TUNSETVNETHDRSZ %d: %s", name, hdr_len, strerror(errno));
		goto fail;
	}
#if RTE_BYTE_ORDER == RTE_BIG_ENDIAN
	{
		int le = 1;

		/* The header is little endian (virtio 1.x); legacy is the host's order. */
		if (ioctl(fd, TUNSETVNETLE, &le) != 0) {
			ret = -ENOTSUP;
			EXC_LOG(ERR, "%s: TUNSETVNETLE: %s", name, strerror(errno));
			goto fail;
		}
	}
#endif
	/* What we accept from the kernel: open checksums and TCP segments of up to 64 KiB.
	 * The kernel then turns the interface's tx-checksumming and TSO features on. */
	if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)TV_OFFLOADS) != 0) {
		ret = -ENOTSUP;
		EXC_LOG(ERR, "%s: TUNSETOFFLOAD csum,tso4,tso6: %s (use type = tap)", name,
			strerror(errno));
		goto fail;
	}
	*fd_out = fd;
	return 0;
fail:
	close(fd);
	return ret;
}

/* MAC, MTU and IFF_UP on the kernel interface, as the TAP PMD does at start. */
static int
tv_configure_if(const char *name, const uint8_t *mac, uint16_t mtu)
{
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;
	const char *step;
	struct ifreq ifr;

	if (sock < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name));
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, RTE_ETHER_ADDR_LEN);
	step = "set MAC";
	if (ioctl(sock, SIOCSIFHWADDR, &ifr) != 0)
		goto fail;
	ifr.ifr_mtu = mtu;
	step = "set MTU";
	if (ioctl(sock, SIOCSIFMTU, &ifr) != 0)
		goto fail;
	step = "get flags";
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	step = "set up";
	if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0)
		goto fail;
	close(sock);
	return 0;
fail:
	ret = -errno;
	EXC_LOG(ERR, "%s: %s: %s", name, step, strerror(errno));
	close(sock);
	return ret;
}

static void
tv_free(struct tv_priv *pv)
{
	unsigned int q;

	for (q = 0; q < pv->n_queues; q++) {
		struct tv_queue *tq = &pv->q[q];

		if (tq->fd >= 0)
			close(tq->fd);
		rte_free(tq->stash);
		rte_free(tq->iov);
		rte_free(tq->ring);
		rte_free(tq->cut);
	}
	rte_mempool_free(pv->seg.hdr_pool);
	rte_mempool_free(pv->seg.indirect_pool);
	rte_free(pv);
}

static int
tv_create(struct sb_exc *exc, const struct sb_exc_args *args)
{
	/* Pool names are per process; interfaces of one name may exist in several namespaces. */
	static unsigned int instance;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	uint32_t n_seg, ring_n;
	struct tv_priv *pv;
	unsigned int q;
	int ret;

	if (if_nametoindex(args->name) != 0) {
		/* TUNSETIFF would attach us to another process's interface as one more queue. */
		EXC_LOG(ERR, "%s: an interface of that name exists already", args->name);
		return -EBUSY;
	}
	pv = rte_zmalloc("sb_exc_tap_vnet", sizeof(*pv), RTE_CACHE_LINE_SIZE);
	if (pv == NULL)
		return -ENOMEM;
	pv->n_queues = args->n_queues;
	for (q = 0; q < SB_EXC_MAX_QUEUES; q++)
		pv->q[q].fd = -1;
	pv->mp = args->mp;
	pv->buf_len = rte_pktmbuf_data_room_size(args->mp);
	if (pv->buf_len < RTE_PKTMBUF_HEADROOM + RTE_ETHER_HDR_LEN + SB_VNET_MAX_HDRS) {
		EXC_LOG(ERR, "%s: mbufs of %u bytes are too small", args->name, pv->buf_len);
		ret = -EINVAL;
		goto fail;
	}
	if ((args->flags & SB_EXC_F_LINEAR) && pv->buf_len - RTE_PKTMBUF_HEADROOM <
			(uint32_t)args->mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN) {
		EXC_LOG(ERR, "%s: linear frames of mtu %u do not fit mbufs of %u bytes",
			args->name, args->mtu, pv->buf_len);
		ret = -EINVAL;
		goto fail;
	}
	pv->stash_need = stash_need(pv->buf_len);
	pv->max_segs = sb_vnet_max_segments(SB_VNET_MAX_PKT, args->mtu);
	ring_n = ring_size(args->mtu);
	pv->seg.mtu = args->mtu;
	pv->seg.linear_pool = (args->flags & SB_EXC_F_LINEAR) ? args->mp : NULL;

	/* Segment headers and indirect mbufs: one each per frame in flight (the caller's,
	 * our rings'), and a second indirect one where a frame straddles two read mbufs. */
	n_seg = args->max_held + args->n_queues * (ring_n + pv->max_segs) + 1024;
	instance++;
	snprintf(pool_name, sizeof(pool_name), "sbxh%u_%s", instance, args->name);
	pv->seg.hdr_pool = rte_pktmbuf_pool_create(pool_name, n_seg, 256, 0,
		RTE_PKTMBUF_HEADROOM + SB_VNET_MAX_HDRS, rte_socket_id());
	snprintf(pool_name, sizeof(pool_name), "sbxi%u_%s", instance, args->name);
	pv->seg.indirect_pool = rte_pktmbuf_pool_create(pool_name, 2 * n_seg, 256, 0, 0,
		rte_socket_id());
	if (pv->seg.hdr_pool == NULL || pv->seg.indirect_pool == NULL) {
		ret = -rte_errno;
		EXC_LOG(ERR, "%s: cannot create the segment pools (%u headers): %s", args->name,
			n_seg, rte_strerror(rte_errno));
		goto fail;
	}

	for (q = 0; q < args->n_queues; q++) {
		struct tv_queue *tq = &pv->q[q];

		tq->id = q;
		tq->stash = rte_zmalloc("sb_exc_stash", pv->stash_need * sizeof(tq->stash[0]), 0);
		tq->iov = rte_zmalloc("sb_exc_iov", (pv->stash_need + 1) * sizeof(tq->iov[0]), 0);
		tq->ring = rte_zmalloc("sb_exc_ring", ring_n * sizeof(tq->ring[0]), 0);
		tq->cut = rte_zmalloc("sb_exc_cut", pv->max_segs * sizeof(tq->cut[0]), 0);
		if (tq->stash == NULL || tq->iov == NULL || tq->ring == NULL || tq->cut == NULL) {
			ret = -ENOMEM;
			goto fail;
		}
		tq->ring_mask = ring_n - 1;
		ret = tv_open_queue(args->name, q, &tq->fd);
		if (ret != 0)
			goto fail;
	}
	ret = tv_configure_if(args->name, args->mac, args->mtu);
	if (ret != 0)
		goto fail;
	exc->priv = pv;
	exc->info.large_segments = true;
	EXC_LOG(INFO, "%s: TUN/TAP with IFF_VNET_HDR, offloads csum tso4 tso6; reads into "
		"up to %u mbufs of %u bytes; up to %u frames per packet%s", args->name,
		pv->stash_need, pv->buf_len, pv->max_segs, pv->seg.linear_pool != NULL ?
		"; frames copied into single mbufs (a member port lacks multi-segment transmit)" :
		"");
	return 0;
fail:
	tv_free(pv);
	return ret;
}

static int
tv_close(struct sb_exc *exc)
{
	struct tv_priv *pv = exc->priv;
	unsigned int q, hdr_out, ind_out;

	for (q = 0; q < pv->n_queues; q++) {
		struct tv_queue *tq = &pv->q[q];

		rte_pktmbuf_free_bulk(tq->stash, tq->n_stash);
		tq->n_stash = 0;
		while (ring_count(tq) > 0)
			rte_pktmbuf_free(tq->ring[tq->tail++ & tq->ring_mask]);
		rte_pktmbuf_free(tq->held);
		tq->held = NULL;
		rte_pktmbuf_free_bulk(&tq->backlog[tq->bl_head], tq->bl_n);
		tq->bl_n = 0;
		/* Closing the last descriptor removes the interface. */
		close(tq->fd);
		tq->fd = -1;
	}
	hdr_out = rte_mempool_in_use_count(pv->seg.hdr_pool);
	ind_out = rte_mempool_in_use_count(pv->seg.indirect_pool);
	if (hdr_out != 0 || ind_out != 0) {
		EXC_LOG(ERR, "%s: mbuf leak: %u segment headers and %u indirect mbufs still out "
			"(pools kept)", exc->info.name, hdr_out, ind_out);
		pv->seg.hdr_pool = NULL;
		pv->seg.indirect_pool = NULL;
		tv_free(pv);
		return -EBUSY;
	}
	tv_free(pv);
	return 0;
}

static int
tv_wait_fd(const struct sb_exc *exc, uint16_t q)
{
	const struct tv_priv *pv = exc->priv;

	return pv->q[q].fd;
}

static unsigned int
tv_tx_held(const struct sb_exc *exc, uint16_t q)
{
	const struct tv_priv *pv = exc->priv;

	return pv->q[q].bl_n;
}

const struct sb_exc_ops sb_exc_tap_vnet_ops = {
	.name = "tap-vnet",
	.create = tv_create,
	.rx_burst = tv_rx_burst,
	.tx_burst = tv_tx_burst,
	.close = tv_close,
	.tx_held = tv_tx_held,
	.wait_fd = tv_wait_fd,
	.mempool_need = tv_mempool_need,
};
