/* SPDX-License-Identifier: BSD-3-Clause */
/* virtio-net header decode/encode, segmentation and coalescing for tap-vnet (sb_vnet.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_gro.h>
#include <rte_gso.h>
#include <rte_ip.h>
#include <rte_net.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "sb_csum.h"
#include "sb_vnet.h"

#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_CWR 0x80
#define PTYPE_LAYERS (RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK)

static inline uint16_t
le16(__virtio16 v)
{
	return rte_le_to_cpu_16((uint16_t)v);
}

int
sb_vnet_rx_decode(const struct virtio_net_hdr_v1 *h, struct rte_mbuf *m, struct sb_vnet_rx *rx)
{
	struct rte_net_hdr_lens hl = { 0 };
	uint32_t ptype;

	memset(rx, 0, sizeof(*rx));
	if (h->flags & ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return -EINVAL;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		return -EINVAL;
	ptype = rte_net_get_ptype(m, &hl, PTYPE_LAYERS);
	m->packet_type = ptype;
	m->l2_len = hl.l2_len;
	m->l3_len = hl.l3_len;
	m->l4_len = hl.l4_len;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		rx->need_csum = 1;
		rx->csum_start = le16(h->csum_start);
		rx->csum_offset = le16(h->csum_offset);
		/* The field must lie in the first segment, where we can write it. */
		if ((uint32_t)rx->csum_start + rx->csum_offset + 2 > rte_pktmbuf_data_len(m))
			return -EINVAL;
	}
	rx->gso_type = h->gso_type;
	switch (h->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return 0;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		if (!RTE_ETH_IS_IPV4_HDR(ptype))
			return -EINVAL;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!RTE_ETH_IS_IPV6_HDR(ptype))
			return -EINVAL;
		break;
	default:
		return -ENOTSUP;	/* UDP, ECN: never offered with TUNSETOFFLOAD */
	}
	rx->gso_size = le16(h->gso_size);
	if ((ptype & RTE_PTYPE_L4_MASK) != RTE_PTYPE_L4_TCP || rx->gso_size == 0 ||
			hl.l4_len < sizeof(struct rte_tcp_hdr) ||
			(uint32_t)hl.l2_len + hl.l3_len + hl.l4_len > rte_pktmbuf_data_len(m))
		return -EINVAL;
	return 0;
}

unsigned int
sb_vnet_max_segments(uint32_t pkt_len, uint16_t mtu)
{
	/* Smallest payload per frame: Linux's TCP sends at least 48 bytes (tcp_min_snd_mss);
	 * with tiny MTUs the frame limit cuts finer, down to headers of up to 120 bytes. */
	int payload = RTE_MIN(48, (int)mtu - 120);

	if (payload < 8)
		payload = 8;
	return pkt_len / payload + 1;
}

/*
 * Folded one's complement sum of @p len bytes from offset @p off of a chain. A segment that
 * starts at an odd offset of the sum has its bytes in the other half of each 16-bit word:
 * its sum is byte-swapped (RFC 1071 s.2(B)). @return 0 or -EINVAL (beyond the packet).
 */
static int
sum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *out)
{
	uint64_t total = 0;
	uint32_t done = 0;

	if ((uint64_t)off + len > m->pkt_len)
		return -EINVAL;
	for (; m != NULL && off >= m->data_len; m = m->next)
		off -= m->data_len;
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		uint16_t s = sb_csum_fold(sb_csum_raw(rte_pktmbuf_mtod_offset(m, const uint8_t *,
			off), n));

		total += (done & 1) ? rte_bswap16(s) : s;
		done += n;
	}
	*out = sb_csum_fold(total);
	return 0;
}

/* Pseudo-header sum (folded, not complemented) of the IPv4 or IPv6 header at @p l3. */
static inline uint16_t
pseudo_sum(uint32_t ptype, const void *l3)
{
	return RTE_ETH_IS_IPV4_HDR(ptype) ? rte_ipv4_phdr_cksum(l3, 0) :
		rte_ipv6_phdr_cksum(l3, 0);
}

/* Bytes of the L4 header and payload after the IPv4 or IPv6 header at @p l3. */
static inline uint32_t
l4_length(uint32_t ptype, const void *l3, uint16_t l3_len)
{
	if (RTE_ETH_IS_IPV4_HDR(ptype))
		return rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)l3)->total_length) - l3_len;
	return rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)l3)->payload_len);
}

/* Set the IPv4 header checksum and the full TCP checksum of a TCP segment (any chain).
 * @return 0, or -EINVAL when the IP length runs beyond the frame. */
static int
tcp_cksum_set(struct rte_mbuf *m)
{
	uint16_t l4_off = m->l2_len + m->l3_len, sum;
	void *l3 = rte_pktmbuf_mtod_offset(m, void *, m->l2_len);
	struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, l4_off);

	th->cksum = 0;
	if (RTE_ETH_IS_IPV4_HDR(m->packet_type)) {
		struct rte_ipv4_hdr *ip = l3;

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (sum_mbuf(m, l4_off, l4_length(m->packet_type, l3, m->l3_len), &sum) != 0)
		return -EINVAL;
	th->cksum = ~sb_csum_fold((uint64_t)sum + pseudo_sum(m->packet_type, l3));
	return 0;
}

/*
 * Complete a checksum the kernel left open (CHECKSUM_PARTIAL): the field holds the pseudo-
 * header sum; the one's complement sum from csum_start to the end, field included, gives
 * the checksum. 0 goes out as 0xffff, like the kernel's skb_checksum_help().
 */
static int
csum_complete(struct rte_mbuf *m, uint16_t start, uint16_t offset)
{
	uint16_t sum, *field;

	if (sum_mbuf(m, start, rte_pktmbuf_pkt_len(m) - start, &sum) != 0)
		return -EINVAL;
	field = rte_pktmbuf_mtod_offset(m, uint16_t *, start + offset);
	sum = ~sum;
	*field = sum == 0 ? 0xffff : sum;
	return 0;
}

/*
 * Cut a TCP/IPv6 packet into segments of @p payload bytes: a header mbuf per segment with a
 * copy of the headers and indirect mbufs pointing at the payload, as DPDK's gso library does
 * for IPv4 (it has no IPv6). Sequence numbers advance, PSH/FIN stay on the last segment and
 * CWR on the first (as Linux's tcp_gso_segment()). @return segments or -ENOMEM with nothing
 * left allocated.
 */
static int
tcp6_segment(struct rte_mbuf *m, uint16_t payload, struct rte_mempool *hdr_pool,
	struct rte_mempool *indirect_pool, struct rte_mbuf **out)
{
	uint16_t hdr_len = m->l2_len + m->l3_len + m->l4_len;
	const struct rte_tcp_hdr *th0 = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *,
		m->l2_len + m->l3_len);
	uint32_t seq0 = rte_be_to_cpu_32(th0->sent_seq), off = hdr_len, in_pos = hdr_len;
	struct rte_mbuf *in = m;
	int n = 0;

	while (off < m->pkt_len) {
		uint32_t start = off, want = RTE_MIN((uint32_t)payload, m->pkt_len - off);
		struct rte_mbuf *h = rte_pktmbuf_alloc(hdr_pool), *prev;
		struct rte_ipv6_hdr *ip6;
		struct rte_tcp_hdr *th;

		if (h == NULL)
			goto nomem;
		memcpy(rte_pktmbuf_mtod(h, void *), rte_pktmbuf_mtod(m, void *), hdr_len);
		h->data_len = hdr_len;
		h->pkt_len = hdr_len;
		h->packet_type = m->packet_type;
		h->tx_offload = m->tx_offload;
		out[n++] = h;
		prev = h;
		while (want > 0) {
			struct rte_mbuf *p;
			uint32_t take;

			while (in_pos == in->data_len) {
				in = in->next;
				in_pos = 0;
			}
			p = rte_pktmbuf_alloc(indirect_pool);
			if (p == NULL)
				goto nomem;
			rte_pktmbuf_attach(p, in);
			take = RTE_MIN(want, in->data_len - in_pos);
			p->data_off = in->data_off + in_pos;
			p->data_len = take;
			prev->next = p;
			prev = p;
			h->nb_segs++;
			h->pkt_len += take;
			in_pos += take;
			want -= take;
			off += take;
		}
		ip6 = rte_pktmbuf_mtod_offset(h, struct rte_ipv6_hdr *, h->l2_len);
		ip6->payload_len = rte_cpu_to_be_16(h->pkt_len - h->l2_len - h->l3_len);
		th = rte_pktmbuf_mtod_offset(h, struct rte_tcp_hdr *, h->l2_len + h->l3_len);
		th->sent_seq = rte_cpu_to_be_32(seq0 + (start - hdr_len));
		if (off < m->pkt_len)
			th->tcp_flags &= ~(TCP_FLAG_PSH | TCP_FLAG_FIN);
		if (n > 1)
			th->tcp_flags &= ~TCP_FLAG_CWR;
	}
	return n;
nomem:
	while (n > 0)
		rte_pktmbuf_free(out[--n]);
	return -ENOMEM;
}

/* Copy each frame into its single-segment mbuf from @p lin (ports without multi-segment
 * transmit); the data rooms were checked to hold a frame when the back end was created. */
static void
linearize(struct rte_mbuf **out, struct rte_mbuf **lin, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *l = lin[i], *m = out[i];
		char *dst = rte_pktmbuf_append(l, m->pkt_len);

		RTE_VERIFY(dst != NULL);
		rte_pktmbuf_read(m, 0, m->pkt_len, dst);	/* offset 0: cannot fail */
		l->packet_type = m->packet_type;
		l->tx_offload = m->tx_offload;
		rte_pktmbuf_free(m);
		out[i] = l;
	}
}

int
sb_vnet_rx_finish(struct rte_mbuf *m, const struct sb_vnet_rx *rx,
	const struct sb_vnet_seg_ctx *ctx, struct rte_mbuf **out, uint16_t n_out)
{
	uint32_t hdr_len = m->l2_len + m->l3_len + m->l4_len;
	struct rte_mbuf *lin[n_out];
	int payload, need, n, i;

	if (n_out == 0)
		return -ENOSPC;
	if (rx->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		if (m->pkt_len > (uint32_t)ctx->mtu + m->l2_len)
			return -EMSGSIZE;
		if (ctx->linear_pool != NULL && m->nb_segs > 1 &&
				rte_pktmbuf_alloc_bulk(ctx->linear_pool, lin, 1) != 0)
			return -ENOMEM;
		if (rx->need_csum && csum_complete(m, rx->csum_start, rx->csum_offset) != 0) {
			if (ctx->linear_pool != NULL && m->nb_segs > 1)
				rte_pktmbuf_free(lin[0]);
			return -EINVAL;
		}
		m->ol_flags = 0;
		out[0] = m;
		if (ctx->linear_pool != NULL && m->nb_segs > 1)
			linearize(out, lin, 1);
		return 1;
	}

	payload = RTE_MIN((int)rx->gso_size, (int)ctx->mtu - m->l3_len - m->l4_len);
	if (payload <= 0 || hdr_len > SB_VNET_MAX_HDRS ||
			(RTE_ETH_IS_IPV6_HDR(m->packet_type) &&
			 m->l3_len != sizeof(struct rte_ipv6_hdr)))
		return -EINVAL;
	need = (m->pkt_len - hdr_len + payload - 1) / payload;
	if (need > n_out)
		return -ENOSPC;
	if (ctx->linear_pool != NULL && rte_pktmbuf_alloc_bulk(ctx->linear_pool, lin, need) != 0)
		return -ENOMEM;
	if (need == 1) {
		/* Small enough already (e.g. the last bytes of a write): one frame. */
		if (tcp_cksum_set(m) != 0) {
			if (ctx->linear_pool != NULL)
				rte_pktmbuf_free_bulk(lin, need);
			return -EINVAL;
		}
		m->ol_flags = 0;
		out[0] = m;
		n = 1;
	} else {
		if (RTE_ETH_IS_IPV4_HDR(m->packet_type)) {
			struct rte_gso_ctx g = {
				.direct_pool = ctx->hdr_pool,
				.indirect_pool = ctx->indirect_pool,
				.flag = 0,	/* IP ids increase per segment, as Linux's GSO */
				.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO,
				.gso_size = hdr_len + payload,
			};

			m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
				RTE_MBUF_F_TX_IP_CKSUM;
			m->tso_segsz = payload;
			n = rte_gso_segment(m, &g, out, n_out);
			m->ol_flags = 0;
			if (n == 0)
				n = -EINVAL;	/* a fragment, or no payload */
		} else {
			n = tcp6_segment(m, payload, ctx->hdr_pool, ctx->indirect_pool, out);
		}
		if (n < 0) {
			if (ctx->linear_pool != NULL)
				rte_pktmbuf_free_bulk(lin, need);
			return n;
		}
		for (i = 0; i < n; i++) {
			/* Cannot fail: each segment's IP length was set from its pkt_len. */
			(void)tcp_cksum_set(out[i]);
			out[i]->ol_flags = 0;
		}
		/* The segments hold references to m's data; drop ours. */
		rte_pktmbuf_free(m);
	}
	if (ctx->linear_pool != NULL) {
		linearize(out, lin, n);
		if (need > n)
			rte_pktmbuf_free_bulk(&lin[n], need - n);
	}
	return n;
}

/* ------------------------------------------------------------------------------------- */
/* towards the kernel */

/*
 * Parse and verify one frame; remember the result in the mbuf: packet_type, l2/l3/l4_len,
 * RTE_MBUF_F_RX_L4_CKSUM_GOOD when its L4 checksum (and IPv4 header) verified, tso_segsz =
 * its TCP payload. @return true when the gro library may merge it.
 */
static bool
tx_classify(struct rte_mbuf *m, struct sb_vnet_tx_stats *st)
{
	struct rte_net_hdr_lens hl = { 0 };
	uint32_t ptype = rte_net_get_ptype(m, &hl, PTYPE_LAYERS), l4 = ptype & RTE_PTYPE_L4_MASK;
	uint32_t hdr_len = hl.l2_len + hl.l3_len + hl.l4_len, l3_end;
	const struct rte_tcp_hdr *th;
	int bad;

	m->packet_type = ptype;
	m->ol_flags = 0;
	m->tx_offload = 0;
	m->l2_len = hl.l2_len;
	m->l3_len = hl.l3_len;
	m->l4_len = hl.l4_len;
	if ((l4 != RTE_PTYPE_L4_TCP && l4 != RTE_PTYPE_L4_UDP) ||
			hdr_len > rte_pktmbuf_data_len(m))
		return false;
	if (RTE_ETH_IS_IPV4_HDR(ptype)) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
			const struct rte_ipv4_hdr *, hl.l2_len);

		l3_end = hl.l2_len + rte_be_to_cpu_16(ip->total_length);
		if (l3_end > m->pkt_len || l3_end < hdr_len)
			return false;	/* truncated: the kernel will say so */
		const struct rte_udp_hdr *uh = rte_pktmbuf_mtod_offset(m,
			const struct rte_udp_hdr *, hl.l2_len + hl.l3_len);

		if (l4 == RTE_PTYPE_L4_UDP && uh->dgram_cksum == 0)
			return false;	/* UDP without checksum */
		bad = rte_raw_cksum(ip, hl.l3_len) != 0xffff;
	} else if (RTE_ETH_IS_IPV6_HDR(ptype) && hl.l3_len == sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m,
			const struct rte_ipv6_hdr *, hl.l2_len);

		l3_end = hl.l2_len + hl.l3_len + rte_be_to_cpu_16(ip6->payload_len);
		if (l3_end > m->pkt_len || l3_end < hdr_len)
			return false;
		bad = false;
	} else {
		return false;	/* IPv6 extension headers: let the kernel check */
	}
	/* The sum over pseudo header, L4 header (checksum field included) and payload of a
	 * correct frame is all ones. */
	if (!bad) {
		const void *l3 = rte_pktmbuf_mtod_offset(m, const void *, hl.l2_len);
		uint16_t sum;

		bad = sum_mbuf(m, hl.l2_len + hl.l3_len, l3_end - hl.l2_len - hl.l3_len,
			&sum) != 0 || sb_csum_fold((uint64_t)sum + pseudo_sum(ptype, l3)) != 0xffff;
	}
	if (bad) {
		st->csum_bad++;
		m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_BAD;
		return false;
	}
	st->csum_ok++;
	m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	if (l4 != RTE_PTYPE_L4_TCP)
		return false;
	m->tso_segsz = l3_end - hdr_len;
	/* What gro_tcp4_reassemble() takes without setting the frame aside (which would move
	 * it behind the merged ones): TCP/IPv4 without options or fragmentation, only ACK set,
	 * some payload, no padding. */
	th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, hl.l2_len + hl.l3_len);
	return RTE_ETH_IS_IPV4_HDR(ptype) && hl.l3_len == sizeof(struct rte_ipv4_hdr) &&
		th->tcp_flags == RTE_TCP_ACK_FLAG &&
		m->tso_segsz > 0 && l3_end == m->pkt_len && hl.l4_len <= 60;
}

uint16_t
sb_vnet_tx_coalesce(struct rte_mbuf **pkts, uint16_t n, struct sb_vnet_tx_stats *st)
{
	/* Lightweight mode over one run: the table lives on the stack for this call only. */
	struct rte_gro_param gp = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = SB_VNET_GRO_RUN_MAX,
		.max_item_per_flow = 1,
	};
	uint8_t ok[n];
	uint16_t i, j, k = 0, out, merged, m;

	for (i = 0; i < n; i++)
		ok[i] = tx_classify(pkts[i], st);
	i = 0;
	while (i < n) {
		if (!ok[i]) {
			pkts[k++] = pkts[i++];
			continue;
		}
		for (j = i + 1; j < n && ok[j] && j - i < SB_VNET_GRO_RUN_MAX; j++)
			;
		out = j - i;
		if (out > 1)
			out = rte_gro_reassemble_burst(&pkts[i], j - i, &gp);
		for (merged = 0, m = 0; m < out; m++)
			if (pkts[i + m]->pkt_len - pkts[i + m]->l2_len - pkts[i + m]->l3_len -
					pkts[i + m]->l4_len > pkts[i + m]->tso_segsz)
				merged++;
		st->gro += merged;
		st->gro_frames += (j - i) - (out - merged);
		memmove(&pkts[k], &pkts[i], out * sizeof(pkts[0]));
		k += out;
		i = j;
	}
	return k;
}

void
sb_vnet_tx_header(struct rte_mbuf *m, struct virtio_net_hdr_v1 *h)
{
	uint32_t l4_off = m->l2_len + m->l3_len, hdr_len = l4_off + m->l4_len;
	bool tcp = (m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_TCP;
	bool merged = tcp && m->pkt_len - hdr_len > m->tso_segsz;
	void *l3 = rte_pktmbuf_mtod_offset(m, void *, m->l2_len);
	uint16_t gso_size = m->tso_segsz, csum_offset, *field;
	const struct rte_mbuf *seg;

	memset(h, 0, sizeof(*h));
	if (!(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_GOOD))
		return;		/* not checked here: the kernel checks it */
	/*
	 * Verified: hand it over as CHECKSUM_PARTIAL (NEEDS_CSUM, the pseudo-header sum in the
	 * field), which the kernel's receive path takes as good without summing the payload
	 * again, and which it completes should it forward the packet. DATA_VALID would say the
	 * same, but it is the device-to-driver flag: tun ignores it on writes and checks the
	 * (first frame's) checksum of a merged packet, and fails it.
	 */
	if (RTE_ETH_IS_IPV4_HDR(m->packet_type) && merged) {
		/* The gro library set the total length but not the header checksum, which the
		 * kernel always checks. */
		struct rte_ipv4_hdr *ip = l3;

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	csum_offset = tcp ? offsetof(struct rte_tcp_hdr, cksum) :
		offsetof(struct rte_udp_hdr, dgram_cksum);
	field = rte_pktmbuf_mtod_offset(m, uint16_t *, l4_off + csum_offset);
	*field = pseudo_sum(m->packet_type, l3);
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = rte_cpu_to_le_16(l4_off);
	h->csum_offset = rte_cpu_to_le_16(csum_offset);
	if (!merged)
		return;
	h->gso_type = RTE_ETH_IS_IPV4_HDR(m->packet_type) ? VIRTIO_NET_HDR_GSO_TCPV4 :
		VIRTIO_NET_HDR_GSO_TCPV6;
	/* Each chained mbuf after the first is a merged frame's payload. */
	for (seg = m->next; seg != NULL; seg = seg->next)
		gso_size = RTE_MAX(gso_size, seg->data_len);
	h->gso_size = rte_cpu_to_le_16(gso_size);
	h->hdr_len = rte_cpu_to_le_16(hdr_len);
}
