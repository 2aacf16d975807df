/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>

#include "sb_wire.h"

static const char *const sb_wire_err_names[SB_WIRE_E_MAX] = {
	[SB_WIRE_OK] = "ok",
	[SB_WIRE_E_FOREIGN] = "foreign",
	[SB_WIRE_E_TRUNCATED] = "truncated",
	[SB_WIRE_E_VERSION] = "bad_version",
	[SB_WIRE_E_TYPE] = "bad_type",
	[SB_WIRE_E_FLAGS] = "bad_flags",
	[SB_WIRE_E_HELLO] = "bad_hello",
	[SB_WIRE_E_OVERSIZE] = "oversize",
};

const char *
sb_wire_err_str(enum sb_wire_err e)
{
	if ((unsigned int)e >= SB_WIRE_E_MAX)
		return "unknown";
	return sb_wire_err_names[e];
}

static inline uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

enum sb_wire_err
sb_wire_parse(const uint8_t *buf, size_t len, struct sb_shim *shim, size_t *inner_off)
{
	const uint8_t *s;
	size_t need;

	if (len < SB_ETH_HLEN)
		return SB_WIRE_E_TRUNCATED;
	if (get_be16(buf + 12) != SB_ETHER_TYPE)
		return SB_WIRE_E_FOREIGN;
	if (len < SB_HDR_LEN)
		return SB_WIRE_E_TRUNCATED;

	s = buf + SB_ETH_HLEN;
	if ((s[0] >> 4) != SB_WIRE_VERSION)
		return SB_WIRE_E_VERSION;
	shim->type = s[0] & 0x0f;
	shim->flags = s[1];
	shim->path = s[2];
	shim->seq = get_be32(s + 4);
	if (shim->type >= SB_WIRE_TYPE_MAX)
		return SB_WIRE_E_TYPE;
	if (shim->flags & ~SB_WIRE_F_MASK)
		return SB_WIRE_E_FLAGS;

	switch (shim->type) {
	case SB_WIRE_HELLO:
		if (shim->flags != 0)
			return SB_WIRE_E_FLAGS;
		need = SB_HDR_LEN + SB_HELLO_LEN;
		break;
	case SB_WIRE_UNSEQ:
	case SB_WIRE_DATA:
	default:
		/* An inner frame needs at least its EtherType, and its addresses unless elided. */
		need = SB_HDR_LEN + ((shim->flags & SB_WIRE_F_ELIDED) ? 2 : SB_ETH_HLEN);
		break;
	}
	if (len < need)
		return SB_WIRE_E_TRUNCATED;
	*inner_off = SB_HDR_LEN;
	return SB_WIRE_OK;
}

enum sb_wire_err
sb_wire_hello_decode(const uint8_t *body, size_t len, struct sb_hello *h)
{
	struct sb_wire_hello w;

	if (len < SB_HELLO_LEN)
		return SB_WIRE_E_TRUNCATED;
	memcpy(&w, body, sizeof(w));
	h->host_id = rte_be_to_cpu_32(w.host_id);
	h->instance = rte_be_to_cpu_32(w.instance);
	memcpy(h->agg_mac, w.agg_mac, SB_ETH_ALEN);
	h->port_index = w.port_index;
	h->n_ports = w.n_ports;
	h->rate_kbps = rte_be_to_cpu_32(w.rate_kbps);
	h->interval_ms = rte_be_to_cpu_16(w.interval_ms);
	h->mtu = rte_be_to_cpu_16(w.mtu);

	/* Reject what no real seqbond host sends, so a stray frame cannot create a peer. */
	if (h->host_id == 0 || h->n_ports == 0 || h->port_index >= h->n_ports ||
			h->interval_ms == 0 || (h->agg_mac[0] & 0x01) != 0 || h->mtu < 68)
		return SB_WIRE_E_HELLO;
	return SB_WIRE_OK;
}

void
sb_wire_put_hdr(uint8_t *buf, const uint8_t *dst, const uint8_t *src, const struct sb_shim *shim)
{
	memcpy(buf, dst, SB_ETH_ALEN);
	memcpy(buf + SB_ETH_ALEN, src, SB_ETH_ALEN);
	buf[12] = SB_ETHER_TYPE >> 8;
	buf[13] = SB_ETHER_TYPE & 0xff;
	buf[14] = SB_WIRE_VERSION << 4 | (shim->type & 0x0f);
	buf[15] = shim->flags;
	buf[16] = shim->path;
	buf[17] = 0;
	put_be32(buf + 18, shim->seq);
}

size_t
sb_wire_put_hello(uint8_t *buf, const uint8_t *src, uint8_t path, const struct sb_hello *h)
{
	static const uint8_t hello_mac[SB_ETH_ALEN] = SB_HELLO_MAC;
	const struct sb_shim shim = { .type = SB_WIRE_HELLO, .path = path };
	struct sb_wire_hello w = {
		.host_id = rte_cpu_to_be_32(h->host_id),
		.instance = rte_cpu_to_be_32(h->instance),
		.port_index = h->port_index,
		.n_ports = h->n_ports,
		.rate_kbps = rte_cpu_to_be_32(h->rate_kbps),
		.interval_ms = rte_cpu_to_be_16(h->interval_ms),
		.mtu = rte_cpu_to_be_16(h->mtu),
	};

	memcpy(w.agg_mac, h->agg_mac, SB_ETH_ALEN);
	sb_wire_put_hdr(buf, hello_mac, src, &shim);
	memcpy(buf + SB_HDR_LEN, &w, sizeof(w));
	return SB_HDR_LEN + SB_HELLO_LEN;
}
