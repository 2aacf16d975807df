/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
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

_Static_assert(SB_HELLO_AUTH_NONCE_OFF == offsetof(struct sb_wire_hello_auth, nonce) &&
	SB_HELLO_AUTH_TAG_OFF == offsetof(struct sb_wire_hello_auth, tag), "hello trailer");
_Static_assert(SB_WIRE_DATA_TAG_OFF == SB_HDR_LEN + offsetof(struct sb_wire_data_auth, tag) &&
	SB_WIRE_DATA_AUTH_LEN == 24, "DATA authentication header");

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

static inline uint64_t
get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static inline void
put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

enum sb_wire_err
sb_wire_parse(const uint8_t *buf, size_t len, struct sb_shim *shim, size_t *inner_off)
{
	const uint8_t *s;
	size_t need, off;

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
	shim->path_seq = s[3];
	shim->seq = get_be32(s + 4);
	if (shim->type != SB_WIRE_DATA && shim->type != SB_WIRE_HELLO)
		return SB_WIRE_E_TYPE;
	if (shim->flags & ~SB_WIRE_F_MASK)
		return SB_WIRE_E_FLAGS;

	switch (shim->type) {
	case SB_WIRE_HELLO:
		if (shim->flags & ~SB_WIRE_F_HELLO_MASK)
			return SB_WIRE_E_FLAGS;
		/* The trailer of an authenticated hello follows its entries: checked when
		 * the body is decoded (sb_wire_hello_auth_get()). */
		off = SB_HDR_LEN;
		need = off + SB_HELLO_LEN;
		break;
	case SB_WIRE_DATA:
	default:
		/* An inner frame needs at least its EtherType, and its addresses unless elided;
		 * an authenticated one its authentication header before that. */
		off = (shim->flags & SB_WIRE_F_AUTH) ? SB_WIRE_DATA_AUTH_INNER : SB_HDR_LEN;
		need = off + ((shim->flags & SB_WIRE_F_ELIDED) ? 2 : SB_ETH_HLEN);
		break;
	}
	if (len < need)
		return SB_WIRE_E_TRUNCATED;
	*inner_off = off;
	return SB_WIRE_OK;
}

enum sb_wire_err
sb_wire_data_auth_get(const uint8_t *buf, size_t frame_len, const struct sb_shim *shim,
	struct sb_data_auth *a)
{
	const uint8_t *p = buf + SB_HDR_LEN;
	size_t min = SB_WIRE_DATA_AUTH_INNER + ((shim->flags & SB_WIRE_F_ELIDED) ? 2 : SB_ETH_HLEN);

	a->len = get_be16(p);
	a->key_id = p[2];
	a->gen = p[3];
	a->pn_hi = get_be32(p + 4);
	a->tag = buf + SB_WIRE_DATA_TAG_OFF;
	if (a->len < min || a->len > frame_len)
		return SB_WIRE_E_TRUNCATED;
	return SB_WIRE_OK;
}

void
sb_wire_put_data_auth(uint8_t *buf, uint16_t len, uint8_t key_id, uint8_t gen, uint32_t pn_hi)
{
	uint8_t *p = buf + SB_HDR_LEN;

	p[0] = len >> 8;
	p[1] = len & 0xff;
	p[2] = key_id;
	p[3] = gen;
	put_be32(p + 4, pn_hi);
	memset(p + 8, 0, SB_WIRE_DATA_AUTH_LEN - 8);
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
	h->multiplier = w.multiplier;
	h->flags = w.flags;
	h->probe_interval_ms = rte_be_to_cpu_16(w.probe_interval_ms);
	h->hello_seq = rte_be_to_cpu_32(w.hello_seq);
	h->tx_time_us = rte_be_to_cpu_32(w.tx_time_us);
	h->n_entries = rte_be_to_cpu_16(w.n_entries);
	h->entries = body + SB_HELLO_LEN;

	/* Reject what no real seqbond host sends, so a stray frame cannot create a peer. */
	if (h->host_id == 0 || h->n_ports == 0 || h->port_index >= h->n_ports ||
			h->interval_ms == 0 || h->multiplier == 0 ||
			(h->agg_mac[0] & 0x01) != 0 || h->mtu < 68 ||
			(h->flags & ~SB_HELLO_F_MASK) != 0)
		return SB_WIRE_E_HELLO;
	if ((len - SB_HELLO_LEN) / sb_wire_hello_entry_len(h->flags) < h->n_entries)
		return SB_WIRE_E_TRUNCATED;
	return SB_WIRE_OK;
}

enum sb_wire_err
sb_wire_hello_entry_get(const struct sb_hello *h, unsigned int i, struct sb_hello_entry *e)
{
	/* A brief entry is the first bytes of a full one: its measurements decode as 0. */
	struct sb_wire_hello_entry w = { 0 };
	unsigned int len = sb_wire_hello_entry_len(h->flags);

	if (i >= h->n_entries)
		return SB_WIRE_E_HELLO;
	memcpy(&w, h->entries + (size_t)i * len, len);
	e->host_id = rte_be_to_cpu_32(w.host_id);
	e->port = w.port;
	e->flags = w.flags;
	e->key_id = w.key_id;
	e->rx_frames = rte_be_to_cpu_32(w.rx_frames);
	e->lost_frames = rte_be_to_cpu_32(w.lost_frames);
	e->rate_kbps = rte_be_to_cpu_32(w.rate_kbps);
	e->owd_min_us = rte_be_to_cpu_32(w.owd_min_us);
	e->owd_us = rte_be_to_cpu_32(w.owd_us);
	if (e->host_id == 0 || (e->flags & ~SB_ENTRY_F_MASK) != 0)
		return SB_WIRE_E_HELLO;
	return SB_WIRE_OK;
}

enum sb_wire_err
sb_wire_hello_auth_get(const uint8_t *frame, size_t len, const struct sb_hello *h,
	struct sb_hello_auth *a)
{
	size_t off = sb_wire_hello_auth_off(h);
	const uint8_t *t;

	if (len < off || len - off < SB_HELLO_AUTH_LEN)
		return SB_WIRE_E_TRUNCATED;
	t = frame + off;
	a->key_id = t[0];
	a->gen = t[1];
	a->seq = get_be64(t + 4);
	a->nonce = t + SB_HELLO_AUTH_NONCE_OFF;
	a->off = off;
	if (t[2] != 0 || t[3] != 0 || a->seq == 0)
		return SB_WIRE_E_HELLO;
	return SB_WIRE_OK;
}

size_t
sb_wire_hello_auth_put(uint8_t *frame, size_t buf_len, size_t frame_len, uint8_t key_id,
	uint8_t gen, uint64_t seq, const uint8_t *nonce, size_t *trailer_off)
{
	struct sb_hello h;
	size_t off, end;
	uint8_t *t;

	if (frame_len < SB_HDR_LEN + SB_HELLO_LEN || frame[14] != (SB_WIRE_VERSION << 4 |
			SB_WIRE_HELLO) || sb_wire_hello_decode(frame + SB_HDR_LEN,
			frame_len - SB_HDR_LEN, &h) != SB_WIRE_OK)
		return 0;
	off = sb_wire_hello_auth_off(&h);
	end = off + SB_HELLO_AUTH_LEN;
	if (end > buf_len)
		return 0;
	frame[15] |= SB_WIRE_F_AUTH;
	t = frame + off;
	memset(t, 0, SB_HELLO_AUTH_LEN);
	t[0] = key_id;
	t[1] = gen;
	put_be64(t + 4, seq);
	memcpy(t + SB_HELLO_AUTH_NONCE_OFF, nonce, SB_HELLO_AUTH_TAG_OFF - SB_HELLO_AUTH_NONCE_OFF);
	if (trailer_off != NULL)
		*trailer_off = off;
	/* Within a probe's padding (zeros) the length stays; otherwise it grows. */
	return end > frame_len ? end : frame_len;
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
	buf[17] = shim->path_seq;
	put_be32(buf + 18, shim->seq);
}

unsigned int
sb_wire_hello_max_entries(unsigned int frame_len)
{
	if (frame_len < SB_HDR_LEN + SB_HELLO_LEN)
		return 0;
	return (frame_len - SB_HDR_LEN - SB_HELLO_LEN) / SB_HELLO_ENTRY_LEN;
}

/* One entry at @p p, network order: its first 8 bytes alone when @p brief. */
static void
put_entry(uint8_t *p, const struct sb_hello_entry *e, bool brief)
{
	struct sb_wire_hello_entry we = {
		.host_id = rte_cpu_to_be_32(e->host_id),
		.port = e->port,
		.flags = e->flags,
		.key_id = (e->flags & SB_ENTRY_F_KEY) ? e->key_id : 0,
	};

	if (!brief) {
		we.rx_frames = rte_cpu_to_be_32(e->rx_frames);
		we.lost_frames = rte_cpu_to_be_32(e->lost_frames);
		we.rate_kbps = rte_cpu_to_be_32(e->rate_kbps);
		we.owd_min_us = rte_cpu_to_be_32(e->owd_min_us);
		we.owd_us = rte_cpu_to_be_32(e->owd_us);
	}
	memcpy(p, &we, brief ? SB_HELLO_BRIEF_LEN : SB_HELLO_ENTRY_LEN);
}

size_t
sb_wire_put_hello(uint8_t *buf, size_t buf_len, const uint8_t *dst, const uint8_t *src,
	uint8_t path, const struct sb_hello *h, const struct sb_hello_entry *entries,
	size_t pad_to)
{
	const struct sb_shim shim = { .type = SB_WIRE_HELLO, .path = path };
	size_t elen = sb_wire_hello_entry_len(h->flags);
	size_t len = SB_HDR_LEN + SB_HELLO_LEN + (size_t)h->n_entries * elen;
	struct sb_wire_hello w = {
		.host_id = rte_cpu_to_be_32(h->host_id),
		.instance = rte_cpu_to_be_32(h->instance),
		.port_index = h->port_index,
		.n_ports = h->n_ports,
		.rate_kbps = rte_cpu_to_be_32(h->rate_kbps),
		.interval_ms = rte_cpu_to_be_16(h->interval_ms),
		.mtu = rte_cpu_to_be_16(h->mtu),
		.multiplier = h->multiplier,
		.flags = h->flags,
		.probe_interval_ms = rte_cpu_to_be_16(h->probe_interval_ms),
		.hello_seq = rte_cpu_to_be_32(h->hello_seq),
		.tx_time_us = rte_cpu_to_be_32(h->tx_time_us),
		.n_entries = rte_cpu_to_be_16(h->n_entries),
	};
	uint8_t *p;
	unsigned int i;

	if (pad_to < len)
		pad_to = len;
	if (pad_to > buf_len)
		return 0;
	memcpy(w.agg_mac, h->agg_mac, SB_ETH_ALEN);
	sb_wire_put_hdr(buf, dst, src, &shim);
	memcpy(buf + SB_HDR_LEN, &w, sizeof(w));
	p = buf + SB_HDR_LEN + SB_HELLO_LEN;
	for (i = 0; i < h->n_entries; i++, p += elen)
		put_entry(p, &entries[i], (h->flags & SB_HELLO_F_BRIEF) != 0);
	memset(buf + len, 0, pad_to - len);
	return pad_to;
}
