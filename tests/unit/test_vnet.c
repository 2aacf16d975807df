/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tap-vnet exception path's offload work, without a kernel (sb_vnet.h): virtio-net
 * header decoding and its rejections; large TCP/IPv4 and TCP/IPv6 segments (VLAN-tagged too,
 * read into chains of small mbufs) cut into MTU-sized frames whose lengths, sequence numbers,
 * flags, IP ids, checksums and payload are checked with this file's own RFC 1071 code;
 * coalescing towards the kernel: merges, the order of every flow, checksum verification, the
 * header written (gso_type, gso_size, hdr_len, NEEDS_CSUM and the pseudo-header sum); and
 * every mbuf back in its pool at the end.
 *
 * Runs EAL with --no-huge (mbufs and pools), no root needed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "sb_csum_ref.h"
#include "sb_test.h"
#include "sb_vnet.h"

#define MAX_OUT 2048
#define TS_OPT_LEN 12	/* NOP NOP timestamps, as Linux sends */

static struct rte_mempool *mp, *small_mp, *hdr_pool, *ind_pool;
/* to_chain() fills at most this many bytes per mbuf: odd values put segment boundaries at
 * odd offsets, where the checksum must swap bytes. */
static uint32_t chain_cap = UINT32_MAX;
static uint8_t frame_buf[70000];

/* ---- independent checksums (RFC 1071, sb_csum_ref.h), over a linear copy ---- */

/* Frame facts for checks. */
struct parsed {
	uint32_t len, l2, l3, l4, payload;	/* l3/l4: offsets */
	bool v6;
	uint16_t ip_total, ip_id;
	bool ip_csum_ok, l4_csum_ok;
	uint32_t seq;
	uint8_t flags;
	const uint8_t *data;
};

static const uint8_t *
linear(const struct rte_mbuf *m, uint8_t *buf)
{
	return rte_pktmbuf_read(m, 0, m->pkt_len, buf);
}

static void
parse(const struct rte_mbuf *m, struct parsed *p, uint8_t *buf)
{
	const uint8_t *f = linear(m, buf);
	uint16_t type;
	uint32_t sum, l4_len;
	uint8_t proto;

	memset(p, 0, sizeof(*p));
	p->data = f;
	p->len = m->pkt_len;
	p->l2 = 14;
	type = f[12] << 8 | f[13];
	if (type == RTE_ETHER_TYPE_VLAN) {
		p->l2 = 18;
		type = f[16] << 8 | f[17];
	}
	p->v6 = type == RTE_ETHER_TYPE_IPV6;
	if (!p->v6) {
		const uint8_t *ip = f + p->l2;
		uint32_t ihl = (ip[0] & 0xf) * 4;

		p->ip_total = ip[2] << 8 | ip[3];
		p->ip_id = ip[4] << 8 | ip[5];
		p->ip_csum_ok = fold(sum16(ip, ihl, 0)) == 0xffff;
		p->l4 = p->l2 + ihl;
		proto = ip[9];
		l4_len = p->ip_total - ihl;
		sum = sum16(ip + 12, 8, 0);
	} else {
		const uint8_t *ip = f + p->l2;

		p->ip_total = ip[4] << 8 | ip[5];
		p->ip_csum_ok = true;
		p->l4 = p->l2 + 40;
		proto = ip[6];
		l4_len = p->ip_total;
		sum = sum16(ip + 8, 32, 0);
	}
	p->l3 = p->l2;
	sum = sum16(f + p->l4, l4_len, sum + proto + l4_len);
	p->l4_csum_ok = fold(sum) == 0xffff;
	if (proto == IPPROTO_TCP) {
		const uint8_t *t = f + p->l4;

		p->seq = (uint32_t)t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7];
		p->flags = t[13];
		p->payload = l4_len - (t[12] >> 4) * 4;
	}
}

/* ---- frame builders ---- */

struct spec {
	bool v6, vlan, udp;
	uint32_t payload;	/* bytes */
	uint32_t seq, ack;
	uint8_t flags;		/* TCP flags */
	uint16_t ip_id;
	uint16_t sport;
	uint32_t tsval;
	bool bad_csum;
	bool partial;		/* leave the L4 checksum as the kernel does (pseudo sum) */
};

static uint8_t
pattern(uint32_t seq_off)
{
	return (uint8_t)(seq_off * 7 + (seq_off >> 8) * 13);
}

/* Build a frame into frame_buf; @return its length. Payload byte i = pattern(seq + i). */
static uint32_t
build(const struct spec *s, uint8_t *f)
{
	static const uint8_t dmac[6] = { 2, 0x53, 0x42, 0, 0, 2 };
	static const uint8_t smac[6] = { 2, 0x53, 0x42, 0, 0, 1 };
	uint32_t l2 = s->vlan ? 18 : 14, l3len = s->v6 ? 40 : 20;
	uint32_t l4len = s->udp ? 8 : 20 + TS_OPT_LEN, len = l2 + l3len + l4len + s->payload, i;
	uint8_t *ip = f + l2, *l4 = f + l2 + l3len;
	uint32_t sum;

	memset(f, 0, l2 + l3len + l4len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (s->vlan) {
		f[12] = 0x81;
		f[13] = 0x00;
		f[15] = 42;
	}
	f[l2 - 2] = s->v6 ? 0x86 : 0x08;
	f[l2 - 1] = s->v6 ? 0xdd : 0x00;
	if (!s->v6) {
		uint32_t tot = l3len + l4len + s->payload;

		ip[0] = 0x45;
		ip[2] = tot >> 8;
		ip[3] = tot & 0xff;
		ip[4] = s->ip_id >> 8;
		ip[5] = s->ip_id & 0xff;
		ip[6] = 0x40;	/* DF */
		ip[8] = 64;
		ip[9] = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
		ip[12] = 10; ip[13] = 77; ip[14] = 0; ip[15] = 1;
		ip[16] = 10; ip[17] = 77; ip[18] = 0; ip[19] = 2;
		sum = ~fold(sum16(ip, 20, 0)) & 0xffff;
		ip[10] = sum >> 8;
		ip[11] = sum & 0xff;
	} else {
		uint32_t plen = l4len + s->payload;

		ip[0] = 0x60;
		ip[4] = plen >> 8;
		ip[5] = plen & 0xff;
		ip[6] = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
		ip[7] = 64;
		ip[8] = 0xfd; ip[9] = 0x77; ip[23] = 1;
		ip[24] = 0xfd; ip[25] = 0x77; ip[39] = 2;
	}
	if (s->udp) {
		uint32_t ulen = 8 + s->payload;

		l4[0] = s->sport >> 8; l4[1] = s->sport & 0xff; l4[2] = 0x14; l4[3] = 0x51;
		l4[4] = ulen >> 8;
		l4[5] = ulen & 0xff;
	} else {
		l4[0] = s->sport >> 8; l4[1] = s->sport & 0xff; l4[2] = 0x14; l4[3] = 0x51;
		l4[4] = s->seq >> 24; l4[5] = s->seq >> 16; l4[6] = s->seq >> 8; l4[7] = s->seq;
		l4[8] = s->ack >> 24; l4[9] = s->ack >> 16; l4[10] = s->ack >> 8; l4[11] = s->ack;
		l4[12] = (uint8_t)(((20 + TS_OPT_LEN) / 4) << 4);
		l4[13] = s->flags;
		l4[14] = 0xff; l4[15] = 0xff;
		l4[20] = 1; l4[21] = 1; l4[22] = 8; l4[23] = 10;
		l4[24] = s->tsval >> 24; l4[25] = s->tsval >> 16; l4[26] = s->tsval >> 8;
		l4[27] = s->tsval;
	}
	for (i = 0; i < s->payload; i++)
		l4[l4len + i] = pattern(s->seq + i);
	/* L4 checksum: full, or the pseudo-header sum only (CHECKSUM_PARTIAL) */
	if (!s->v6)
		sum = sum16(ip + 12, 8, 0);
	else
		sum = sum16(ip + 8, 32, 0);
	sum += (s->udp ? IPPROTO_UDP : IPPROTO_TCP) + l4len + s->payload;
	if (!s->partial)
		sum = ~fold(sum16(l4, l4len + s->payload, sum)) & 0xffff;
	else
		sum = fold(sum);
	if (s->bad_csum)
		sum ^= 0x0100;
	l4[s->udp ? 6 : 16] = sum >> 8;
	l4[s->udp ? 7 : 17] = sum & 0xff;
	return len;
}

/* Copy a frame into a chain of mbufs of @p pool as tap-vnet's readv does: the first keeps
 * its headroom, the others are filled from byte 0. */
static struct rte_mbuf *
to_chain(const uint8_t *f, uint32_t len, struct rte_mempool *pool)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint32_t off = 0;

	while (off < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t room, take;

		if (m == NULL)
			return NULL;
		if (head != NULL)
			m->data_off = 0;
		room = RTE_MIN((uint32_t)(m->buf_len - m->data_off), head == NULL ? 4096 : chain_cap);
		take = RTE_MIN(room, len - off);
		memcpy(rte_pktmbuf_mtod(m, void *), f + off, take);
		m->data_len = take;
		if (head == NULL) {
			head = m;
			head->pkt_len = len;
		} else {
			prev->next = m;
			head->nb_segs++;
		}
		prev = m;
		off += take;
	}
	return head;
}

static void
vhdr(struct virtio_net_hdr_v1 *h, uint8_t gso_type, uint16_t gso_size, bool need_csum,
	uint16_t start, uint16_t offset)
{
	memset(h, 0, sizeof(*h));
	h->gso_type = gso_type;
	h->gso_size = rte_cpu_to_le_16(gso_size);
	if (need_csum) {
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = rte_cpu_to_le_16(start);
		h->csum_offset = rte_cpu_to_le_16(offset);
	}
}

static bool
pools_full(void)
{
	return rte_mempool_in_use_count(mp) == 0 && rte_mempool_in_use_count(small_mp) == 0 &&
		rte_mempool_in_use_count(hdr_pool) == 0 && rte_mempool_in_use_count(ind_pool) == 0;
}

/* ---- rx: decode ---- */

static void
test_decode_rejects(void)
{
	struct spec s4 = { .payload = 100, .seq = 1, .flags = 0x10 }, s6 = s4, su = s4;
	struct virtio_net_hdr_v1 h;
	struct sb_vnet_rx rx;
	struct rte_mbuf *m;
	uint32_t len;

	s6.v6 = true;
	su.udp = true;
	len = build(&s4, frame_buf);
	m = to_chain(frame_buf, len, mp);
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, false, 0, 0);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0 && m->l2_len == 14 && m->l3_len == 20 &&
		m->l4_len == 32, "plain frame: l2 %u l3 %u l4 %u", m->l2_len, m->l3_len, m->l4_len);
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, true, 34, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0 && rx.need_csum && rx.csum_start == 34 &&
		rx.csum_offset == 16, "NEEDS_CSUM read");
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, true, len - 1, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "checksum field beyond the frame");
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV6, 1448, true, 34, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "TCPV6 on an IPv4 frame");
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV4, 0, true, 34, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "gso_size 0");
	vhdr(&h, VIRTIO_NET_HDR_GSO_UDP, 1448, true, 34, 6);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -ENOTSUP, "UFO never negotiated");
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, 1448, true, 34, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -ENOTSUP, "ECN never negotiated");
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, false, 0, 0);
	h.flags = VIRTIO_NET_HDR_F_RSC_INFO;
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "unknown flag");
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV4, 1448, true, 34, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0 && rx.gso_size == 1448, "TCPV4 accepted");
	rte_pktmbuf_free(m);

	len = build(&s6, frame_buf);
	m = to_chain(frame_buf, len, mp);
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV4, 1448, true, 54, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "TCPV4 on an IPv6 frame");
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV6, 1448, true, 54, 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0 && m->l3_len == 40, "TCPV6 accepted");
	rte_pktmbuf_free(m);

	len = build(&su, frame_buf);
	m = to_chain(frame_buf, len, mp);
	vhdr(&h, VIRTIO_NET_HDR_GSO_TCPV4, 1448, true, 34, 6);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "TCPV4 on a UDP frame");
	rte_pktmbuf_free(m);

	/* 13 bytes is no Ethernet frame */
	m = to_chain(frame_buf, 13, mp);
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, false, 0, 0);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == -EINVAL, "runt");
	rte_pktmbuf_free(m);
	SB_CHECK(pools_full(), "mbufs back after decode tests");
}

/* Complete the checksum the kernel left open on a small frame (TCP and UDP). */
static void
test_csum_complete(void)
{
	static uint8_t buf[70000];
	struct sb_vnet_seg_ctx ctx = { hdr_pool, ind_pool, NULL, 1500 };
	struct spec s = { .payload = 777, .seq = 99, .flags = 0x18, .partial = true };
	struct rte_mbuf *m, *out[4];
	struct virtio_net_hdr_v1 h;
	struct sb_vnet_rx rx;
	struct parsed p;
	unsigned int udp;

	for (udp = 0; udp < 2; udp++) {
		uint32_t len;

		s.udp = udp;
		len = build(&s, frame_buf);
		m = to_chain(frame_buf, len, small_mp);	/* a chain of 512-byte mbufs */
		vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, true, 34, udp ? 6 : 16);
		SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0, "decode partial %s",
			udp ? "UDP" : "TCP");
		SB_CHECK(sb_vnet_rx_finish(m, &rx, &ctx, out, 4) == 1 && out[0] == m,
			"one frame back");
		parse(out[0], &p, buf);
		SB_CHECK(p.l4_csum_ok && p.ip_csum_ok, "%s checksum completed",
			udp ? "UDP" : "TCP");
		rte_pktmbuf_free(out[0]);
	}
	/* Too large without TSO: refused, still ours. */
	s.udp = false;
	s.payload = 1500;
	m = to_chain(frame_buf, build(&s, frame_buf), mp);
	vhdr(&h, VIRTIO_NET_HDR_GSO_NONE, 0, true, 34, 16);
	sb_vnet_rx_decode(&h, m, &rx);
	SB_CHECK(sb_vnet_rx_finish(m, &rx, &ctx, out, 4) == -EMSGSIZE, "oversize plain frame");
	rte_pktmbuf_free(m);
	SB_CHECK(pools_full(), "mbufs back after checksum tests");
}

/* ---- rx: cut large segments ---- */

struct tso_case {
	const char *name;
	bool v6, vlan, linear, small_mbufs;
	uint32_t payload;
	uint16_t gso_size, mtu;
	uint8_t flags;
};

static void
run_tso(const struct tso_case *c)
{
	static struct rte_mbuf *out[MAX_OUT];
	static uint8_t buf[70000], whole[70000];
	struct sb_vnet_seg_ctx ctx = { hdr_pool, ind_pool, c->linear ? mp : NULL, c->mtu };
	struct spec s = { .v6 = c->v6, .vlan = c->vlan, .payload = c->payload, .seq = 0xfffff000,
		.ack = 77, .flags = c->flags, .ip_id = 0xfffe, .tsval = 5, .partial = true };
	uint32_t len = build(&s, whole), l2 = c->vlan ? 18 : 14, hdrs, seg_pay, want, i;
	uint32_t got_payload = 0, bad = 0;
	struct rte_mbuf *m = to_chain(whole, len, c->small_mbufs ? small_mp : mp);
	struct virtio_net_hdr_v1 h;
	struct sb_vnet_rx rx;
	int n;

	hdrs = l2 + (c->v6 ? 40 : 20) + 20 + TS_OPT_LEN;
	seg_pay = RTE_MIN((uint32_t)c->gso_size, c->mtu - (hdrs - l2));
	want = (c->payload + seg_pay - 1) / seg_pay;
	vhdr(&h, c->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4, c->gso_size, true,
		l2 + (c->v6 ? 40 : 20), 16);
	SB_CHECK(sb_vnet_rx_decode(&h, m, &rx) == 0, "%s: decode", c->name);
	if (want > 1) {
		n = sb_vnet_rx_finish(m, &rx, &ctx, out, want - 1);
		SB_CHECK(n == -ENOSPC, "%s: -ENOSPC with room for %u of %u (got %d)", c->name,
			want - 1, want, n);
		SB_CHECK(m->refcnt == 1 && m->pkt_len == len, "%s: input untouched on -ENOSPC",
			c->name);
	}
	n = sb_vnet_rx_finish(m, &rx, &ctx, out, MAX_OUT);
	SB_CHECK(n == (int)want, "%s: %d frames, want %u", c->name, n, want);
	for (i = 0; i < (uint32_t)RTE_MAX(n, 0); i++) {
		struct parsed p;
		bool last = i + 1 == (uint32_t)n;

		parse(out[i], &p, buf);
		bad += p.len > (uint32_t)c->mtu + l2;
		bad += !p.ip_csum_ok;
		bad += !p.l4_csum_ok;
		bad += p.seq != s.seq + got_payload;
		bad += p.payload != (last ? c->payload - got_payload : seg_pay);
		bad += !c->v6 && p.ip_id != (uint16_t)(s.ip_id + i);
		bad += !c->v6 && p.ip_total != p.len - l2;
		bad += c->v6 && p.ip_total != p.len - l2 - 40;
		/* PSH and FIN only on the last frame; ACK everywhere */
		bad += (p.flags & 0x09) != (last ? (c->flags & 0x09) : 0);
		bad += !(p.flags & 0x10);
		bad += memcmp(p.data + p.l4 + 20 + TS_OPT_LEN, whole + hdrs + got_payload,
			p.payload) != 0;
		bad += c->linear && out[i]->nb_segs != 1;
		bad += out[i]->ol_flags != 0;
		if (bad != 0 && i < 3)
			fprintf(stderr, "%s: frame %u: len %u seq %u payload %u flags 0x%x "
				"ip_id %u total %u csum ip %d l4 %d\n", c->name, i, p.len, p.seq,
				p.payload, p.flags, p.ip_id, p.ip_total, p.ip_csum_ok,
				p.l4_csum_ok);
		got_payload += p.payload;
	}
	SB_CHECK(bad == 0, "%s: %u wrong fields in %d frames", c->name, bad, n);
	SB_CHECK(got_payload == c->payload, "%s: payload %u of %u", c->name, got_payload,
		c->payload);
	if (n > 0)
		rte_pktmbuf_free_bulk(out, n);
	SB_CHECK(pools_full(), "%s: every mbuf back (pools %u %u %u %u out)", c->name,
		rte_mempool_in_use_count(mp), rte_mempool_in_use_count(small_mp),
		rte_mempool_in_use_count(hdr_pool), rte_mempool_in_use_count(ind_pool));
}

static void
test_tso(void)
{
	static const struct tso_case cases[] = {
		{ "v4 64000/1448", false, false, false, false, 64000, 1448, 1500, 0x18 },
		{ "v4 small mbufs", false, false, false, true, 65000, 1448, 1500, 0x18 },
		{ "v6 64000/1428", true, false, false, false, 64000, 1428, 1500, 0x18 },
		{ "v6 small mbufs", true, false, false, true, 60001, 1428, 1500, 0x19 },
		{ "v4 vlan", false, true, false, false, 30000, 1448, 1500, 0x10 },
		{ "v4 jumbo", false, false, false, false, 65000, 8938, 8990, 0x18 },
		{ "v6 jumbo", true, false, false, true, 64000, 8918, 8990, 0x18 },
		{ "v4 mss above mtu", false, false, false, false, 20000, 9000, 1500, 0x10 },
		{ "v4 linear", false, false, true, true, 64000, 1448, 1500, 0x18 },
		{ "v6 linear", true, false, true, false, 64000, 1428, 1500, 0x18 },
		{ "v4 one frame", false, false, false, false, 1000, 1448, 1500, 0x18 },
		{ "v4 tiny mss", false, false, false, false, 65000, 48, 1500, 0x18 },
		/* odd lengths: payload pieces start at odd offsets of the checksum */
		{ "v4 odd mss", false, false, false, true, 30001, 1001, 1500, 0x18 },
		{ "v6 odd mss", true, true, false, true, 30001, 777, 1500, 0x18 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		run_tso(&cases[i]);
	/* The same with every mbuf after the first holding 333 bytes. */
	chain_cap = 333;
	for (i = 0; i < RTE_DIM(cases); i++)
		if (cases[i].small_mbufs)
			run_tso(&cases[i]);
	chain_cap = UINT32_MAX;
}

/* ---- tx: coalesce towards the kernel ---- */

/* Make a list of frames; @return count. */
static unsigned int
make_frames(struct rte_mbuf **m, const struct spec *specs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t len = build(&specs[i], frame_buf);

		m[i] = to_chain(frame_buf, len, mp);
	}
	return n;
}

/* Check a packet to be written: its header, its checksums completed from the pseudo sum,
 * and its payload. */
static void
check_out(const char *what, struct rte_mbuf *m, uint32_t seq, uint32_t payload,
	uint16_t gso_size, bool v6)
{
	static uint8_t buf[70000];
	struct virtio_net_hdr_v1 h;
	struct parsed p;
	const uint8_t *f;
	uint32_t l4_off = 14 + (v6 ? 40 : 20), sum, i, bad = 0;
	uint16_t field;

	sb_vnet_tx_header(m, &h);
	f = linear(m, buf);
	parse(m, &p, buf);
	SB_CHECK(h.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
		rte_le_to_cpu_16(h.csum_start) == l4_off && rte_le_to_cpu_16(h.csum_offset) == 16,
		"%s: NEEDS_CSUM at %u+16 (flags %u start %u)", what, l4_off, h.flags,
		rte_le_to_cpu_16(h.csum_start));
	if (payload > gso_size)
		SB_CHECK(h.gso_type == (v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4) &&
			rte_le_to_cpu_16(h.gso_size) == gso_size &&
			rte_le_to_cpu_16(h.hdr_len) == l4_off + 20 + TS_OPT_LEN,
			"%s: gso type %u size %u hdr_len %u", what, h.gso_type,
			rte_le_to_cpu_16(h.gso_size), rte_le_to_cpu_16(h.hdr_len));
	else
		SB_CHECK(h.gso_type == VIRTIO_NET_HDR_GSO_NONE, "%s: no gso", what);
	SB_CHECK(p.ip_csum_ok, "%s: IPv4 header checksum", what);
	SB_CHECK(p.seq == seq && p.payload == payload, "%s: seq %u payload %u (want %u %u)",
		what, p.seq, p.payload, seq, payload);
	/* The field holds the pseudo-header sum: completing it as the kernel would (sum from
	 * csum_start, complemented) must give the real checksum. */
	field = f[l4_off + 16] << 8 | f[l4_off + 17];
	sum = v6 ? sum16(f + 14 + 8, 32, 0) : sum16(f + 14 + 12, 8, 0);
	sum += IPPROTO_TCP + p.len - l4_off;
	SB_CHECK(field == fold(sum), "%s: field 0x%04x is the pseudo-header sum 0x%04x", what,
		field, fold(sum));
	for (i = 0; i < payload; i++)
		bad += f[l4_off + 20 + TS_OPT_LEN + i] != pattern(seq + i);
	SB_CHECK(bad == 0, "%s: %u payload bytes wrong", what, bad);
}

static void
test_coalesce(void)
{
	struct rte_mbuf *m[300];
	struct sb_vnet_tx_stats st = { 0 };
	struct spec sp[300];
	struct virtio_net_hdr_v1 h;
	unsigned int i, n, k;

	/* 40 segments of one flow: one packet of 57920 bytes, gso_size 1448. */
	for (i = 0; i < 40; i++)
		sp[i] = (struct spec){ .payload = 1448, .seq = 1000 + i * 1448, .ack = 5,
			.flags = 0x10, .ip_id = i, .sport = 1, .tsval = 9 };
	n = make_frames(m, sp, 40);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 1 && st.gro == 1 && st.gro_frames == 40 && st.csum_ok == 40,
		"40 frames -> %u packets (gro %lu frames %lu ok %lu)", k, (unsigned long)st.gro,
		(unsigned long)st.gro_frames, (unsigned long)st.csum_ok);
	check_out("one flow", m[0], 1000, 40 * 1448, 1448, false);
	rte_pktmbuf_free_bulk(m, k);

	/* A short first frame: gso_size is the largest frame's payload, not the first's. */
	memset(&st, 0, sizeof(st));
	sp[0] = (struct spec){ .payload = 500, .seq = 1, .flags = 0x10, .sport = 1 };
	for (i = 1; i < 5; i++)
		sp[i] = (struct spec){ .payload = 1448, .seq = 501 + (i - 1) * 1448, .flags = 0x10,
			.sport = 1 };
	n = make_frames(m, sp, 5);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 1, "short first frame: %u packets", k);
	check_out("short first", m[0], 1, 500 + 4 * 1448, 1448, false);
	rte_pktmbuf_free_bulk(m, k);

	/* A PSH segment and a pure ACK split runs; nothing moves past them. */
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 8; i++)
		sp[i] = (struct spec){ .payload = 1000, .seq = 1000 + i * 1000, .ack = 5,
			.flags = 0x10, .sport = 1, .tsval = 9 };
	sp[3].flags = 0x18;			/* PSH */
	sp[5] = (struct spec){ .payload = 0, .seq = 7, .ack = 99, .flags = 0x10, .sport = 1 };
	/* frames: d0 d1 d2 P3 d4 ack d6 d7 */
	n = make_frames(m, sp, 8);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 5, "PSH and pure ACK split: %u packets, want 5", k);
	if (k == 5) {
		check_out("run 1", m[0], 1000, 3000, 1000, false);
		check_out("PSH alone", m[1], 4000, 1000, 1000, false);
		check_out("d4 alone", m[2], 5000, 1000, 1000, false);
		check_out("pure ACK", m[3], 7, 0, 1000, false);
		check_out("run 2", m[4], 7000, 2000, 1000, false);
	}
	rte_pktmbuf_free_bulk(m, k);

	/* Two flows interleaved: each merged, in order of first appearance. */
	for (i = 0; i < 20; i++)
		sp[i] = (struct spec){ .payload = 1200, .seq = 50000 * (i & 1) + (i / 2) * 1200,
			.flags = 0x10, .sport = 1 + (i & 1), .tsval = 3 };
	n = make_frames(m, sp, 20);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 2, "two flows: %u packets", k);
	if (k == 2) {
		check_out("flow 1", m[0], 0, 12000, 1200, false);
		check_out("flow 2", m[1], 50000, 12000, 1200, false);
	}
	rte_pktmbuf_free_bulk(m, k);

	/* A bad checksum: counted, not merged, empty header; neighbours still merge. */
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 6; i++)
		sp[i] = (struct spec){ .payload = 1000, .seq = i * 1000, .flags = 0x10,
			.sport = 1 };
	sp[2].bad_csum = true;
	n = make_frames(m, sp, 6);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 3 && st.csum_bad == 1 && st.csum_ok == 5, "bad checksum: %u packets, "
		"bad %lu", k, (unsigned long)st.csum_bad);
	if (k == 3) {
		check_out("before bad", m[0], 0, 2000, 1000, false);
		sb_vnet_tx_header(m[1], &h);
		SB_CHECK(h.flags == 0 && h.gso_type == 0, "bad frame goes with an empty header");
		check_out("after bad", m[2], 3000, 3000, 1000, false);
	}
	rte_pktmbuf_free_bulk(m, k);

	/* IPv6 (no TCP/IPv6 gro in DPDK 22.11) and UDP: verified, NEEDS_CSUM, not merged. */
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 4; i++)
		sp[i] = (struct spec){ .v6 = true, .payload = 1000, .seq = i * 1000,
			.flags = 0x10, .sport = 1 };
	sp[4] = (struct spec){ .udp = true, .payload = 300, .sport = 9 };
	n = make_frames(m, sp, 5);
	k = sb_vnet_tx_coalesce(m, n, &st);
	SB_CHECK(k == 5 && st.csum_ok == 5, "IPv6 and UDP: %u packets", k);
	for (i = 0; i < 4 && k == 5; i++)
		check_out("v6 frame", m[i], i * 1000, 1000, 1000, true);
	if (k == 5) {
		sb_vnet_tx_header(m[4], &h);
		SB_CHECK(h.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM &&
			rte_le_to_cpu_16(h.csum_offset) == 6 && h.gso_type == 0, "UDP header");
	}
	rte_pktmbuf_free_bulk(m, k);

	/* Odd payloads in chains of 333-byte pieces: verified, merged, still correct. */
	memset(&st, 0, sizeof(st));
	chain_cap = 333;
	for (i = 0; i < 7; i++) {
		uint32_t len;

		sp[i] = (struct spec){ .payload = 1001, .seq = 3 + i * 1001, .flags = 0x10,
			.sport = 1 };
		len = build(&sp[i], frame_buf);
		m[i] = to_chain(frame_buf, len, small_mp);
	}
	chain_cap = UINT32_MAX;
	k = sb_vnet_tx_coalesce(m, 7, &st);
	SB_CHECK(k == 1 && st.csum_ok == 7 && st.csum_bad == 0, "odd chains: %u packets, ok %lu",
		k, (unsigned long)st.csum_ok);
	check_out("odd chains", m[0], 3, 7 * 1001, 1001, false);
	rte_pktmbuf_free_bulk(m, k);

	/* 300 segments: runs end at 128 frames and at 64 KiB; order and bytes all kept. */
	for (i = 0; i < 300; i++)
		sp[i] = (struct spec){ .payload = 1448, .seq = i * 1448, .flags = 0x10, .sport = 1,
			.ip_id = i };
	n = make_frames(m, sp, 300);
	k = sb_vnet_tx_coalesce(m, n, &st);
	{
		uint32_t seq = 0, pay_total = 0;
		static uint8_t buf[70000];
		bool ok = true;

		for (i = 0; i < k; i++) {
			struct parsed p;

			parse(m[i], &p, buf);
			ok &= p.seq == seq && p.ip_total + 14u == p.len;
			seq += p.payload;
			pay_total += p.payload;
		}
		SB_CHECK(ok && pay_total == 300 * 1448 && k >= 7 && k <= 9,
			"300 frames -> %u packets in order, %u bytes", k, pay_total);
	}
	rte_pktmbuf_free_bulk(m, k);
	SB_CHECK(pools_full(), "mbufs back after coalescing tests");
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
		"--log-level=lib.eal:warning", "--file-prefix", "test_vnet", NULL };
	int ret;

	(void)argc;
	ret = rte_eal_init(RTE_DIM(eal) - 1, eal);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("tv_mp", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	small_mp = rte_pktmbuf_pool_create("tv_small", 4096, 0, 0, 512, 0);
	hdr_pool = rte_pktmbuf_pool_create("tv_hdr", 4096, 0, 0,
		RTE_PKTMBUF_HEADROOM + SB_VNET_MAX_HDRS, 0);
	ind_pool = rte_pktmbuf_pool_create("tv_ind", 8192, 0, 0, 0, 0);
	if (mp == NULL || small_mp == NULL || hdr_pool == NULL || ind_pool == NULL) {
		fprintf(stderr, "pools: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	test_decode_rejects();
	test_csum_complete();
	test_tso();
	test_coalesce();
	ret = sb_test_summary("test_vnet");
	rte_eal_cleanup();
	return ret;
}
