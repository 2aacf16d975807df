/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster authentication in the datapath (docs/wire-format.md, "Cluster key"; the
 * cryptography is lib/auth's): pair keys for DATA tags, hellos signed on their way out and
 * checked on their way in, and the keys changed by command (a rollover).
 *
 * Who holds what: the TX worker owns the hello side (its keyring copy, the crypto sequence
 * of every sending port, the replay marks of every stream heard) and the key that tags our
 * DATA frames to each peer; the RX worker that owns a peer's window holds the keys that
 * peer's DATA frames verify with, derived from the instance the TX worker's message names.
 * Each worker has its own copy of the keys, given at create and by SB_CMD_SET_KEYRING.
 */
#include <errno.h>
#include <string.h>

#include <rte_ether.h>

#include "sb_dp_int.h"

void
sb_dp_auth_peer_tx(struct sb_dp *dp, unsigned int pi)
{
	struct sb_dp_tx *tx = dp->tx;
	const struct sb_peer *peer = &tx->peers.peer[pi];
	struct sb_auth_pair_ids ids = {
		.tx_host = dp->conf.host_id, .rx_host = peer->host_id,
		.tx_instance = tx->instance, .rx_instance = peer->instance,
	};
	const struct sb_auth_key *k = sb_auth_ring_send_key(&tx->keyring);

	if (!dp->auth)
		return;
	/* The peer table never holds our own host id or 0, so this cannot fail; if it did,
	 * a zero key tags frames the peer refuses, which is what an unknown peer deserves. */
	if (k == NULL || sb_auth_pair_derive(k, &ids, &tx->peer[pi].tx_key) != 0)
		sb_auth_wipe(&tx->peer[pi].tx_key, sizeof(tx->peer[pi].tx_key));
}

void
sb_dp_auth_peer_rx(struct sb_dp *dp, struct sb_dp_rx *rx, unsigned int pi, uint32_t instance)
{
	struct sb_dp_rx_peer *rp = &dp->rx_peer[pi];
	struct sb_auth_pair_ids ids = {
		.tx_host = rx->map.peer[pi].host_id, .rx_host = dp->conf.host_id,
		.tx_instance = instance, .rx_instance = rx->instance,
	};
	int n;

	if (!dp->auth)
		return;
	rp->instance = instance;
	n = sb_auth_pair_derive_ring(&rx->keyring, &ids, rp->rx_key);
	rp->n_rx_keys = n > 0 ? (uint8_t)n : 0;
}

/* Say why a hello was refused, at most every SB_DP_LOG_EVERY_S per reason. */
static void
hello_refused(struct sb_dp *dp, enum sb_dp_log_what what, unsigned int index,
	const uint8_t *frame, const struct sb_hello *h, uint64_t now, const char *why)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (!sb_dp_log_allowed(dp->tx->w, what, now))
		return;
	rte_ether_format_addr(mac, sizeof(mac), (const struct rte_ether_addr *)(frame +
		SB_ETH_ALEN));
	DP_LOG(WARNING, "port %u: hello of host %u port %u (MAC %s) refused: %s "
		"(at most one such line every %u s)", index, h->host_id, h->port_index, mac, why,
		SB_DP_LOG_EVERY_S);
}

bool
sb_dp_auth_hello_rx(struct sb_dp *dp, unsigned int index, const uint8_t *frame, uint32_t len,
	const struct sb_hello *h, const struct sb_hello_auth *a, uint64_t now)
{
	struct sb_dp_tx *tx = dp->tx;
	struct sb_dp_stats *st = tx->stats;
	bool tagged = a != NULL;
	const struct sb_auth_replay *mark;
	struct sb_auth_stream stream;
	char why[256];
	int rc;

	if (!dp->auth) {
		if (!tagged)
			return true;
		st->rx_auth_unexpected++;
		hello_refused(dp, SB_DP_LOG_AUTH_UNEXPECTED, index, frame, h, now,
			"it carries a cluster key tag and this host has no cluster_key_file "
			"(rx_auth_unexpected)");
		return false;
	}
	if (!tagged) {
		st->rx_auth_no_tag++;
		hello_refused(dp, SB_DP_LOG_AUTH_NO_TAG, index, frame, h, now,
			"no cluster key tag; every host of the cluster needs the key "
			"(rx_auth_no_tag)");
		return false;
	}
	rc = sb_auth_hello_check(&tx->keyring, a->key_id, frame, len,
		a->off + SB_HELLO_AUTH_TAG_OFF);
	if (rc == -ENOKEY) {
		st->rx_auth_unknown_key++;
		snprintf(why, sizeof(why), "made with key id %u, which this host does not hold "
			"(a key rollover not done on every host?) (rx_auth_unknown_key)", a->key_id);
		hello_refused(dp, SB_DP_LOG_AUTH_UNKNOWN_KEY, index, frame, h, now, why);
		return false;
	}
	if (rc != 0) {
		st->rx_auth_bad_tag++;
		snprintf(why, sizeof(why), "its tag under key id %u does not verify: forged, "
			"altered, or another secret under that id (rx_auth_bad_tag)", a->key_id);
		hello_refused(dp, SB_DP_LOG_AUTH_BAD_TAG, index, frame, h, now, why);
		return false;
	}
	/* Authentic: now its sequence, on its own stream (lib/auth, struct sb_auth_replay). */
	stream = (struct sb_auth_stream){
		.host_id = h->host_id, .port = h->port_index, .local_port = (uint8_t)index,
		.unicast = (h->flags & SB_HELLO_F_UNICAST) != 0,
	};
	if (sb_auth_replay_table_check(&tx->replay, &stream, a->seq, &mark) != 0) {
		st->rx_auth_replay++;
		snprintf(why, sizeof(why), "a replay: its crypto sequence is %.3f s behind the "
			"last taken from that port, %u refused in a row (its clock stepped back? "
			"taken again once past it) (rx_auth_replay)",
			(double)(mark->last_seq - a->seq) / 1e6, mark->rejected_run);
		hello_refused(dp, SB_DP_LOG_AUTH_REPLAY, index, frame, h, now, why);
		return false;
	}
	return true;
}

size_t
sb_dp_auth_hello_tx(struct sb_dp *dp, unsigned int port, uint8_t *frame, size_t len,
	size_t room)
{
	struct sb_dp_tx *tx = dp->tx;
	const struct sb_auth_key *k = sb_auth_ring_send_key(&tx->keyring);
	size_t off;

	if (!dp->auth)
		return len;
	if (k == NULL)
		return 0;
	len = sb_wire_hello_auth_put(frame, room, len, k->id,
		sb_auth_seq_next(&tx->hello_cseq[port], sb_auth_clock_us()), &off);
	if (len == 0 || sb_auth_hello_sign(k, frame, len, off + SB_HELLO_AUTH_TAG_OFF) != 0)
		return 0;
	return len;
}

/* The TX worker's keys, their fingerprints, and the pair keys of every peer. */
static void
keyring_tx(struct sb_dp *dp, const struct sb_auth_keyring *ring)
{
	struct sb_dp_tx *tx = dp->tx;
	unsigned int i;

	tx->keyring = *ring;
	for (i = 0; i < ring->n_keys; i++)
		sb_auth_key_fingerprint(ring->key[i].secret, tx->key_fp[i]);
	for (i = 0; i < tx->peers.n_peers; i++)
		sb_dp_auth_peer_tx(dp, i);
}

int
sb_dp_auth_set_keyring(struct sb_dp_worker *w, const struct sb_auth_keyring *ring)
{
	struct sb_dp *dp = w->dp;
	unsigned int i;

	if (!dp->auth)
		return -ENOTSUP;
	if (ring == NULL || ring->n_keys == 0 || ring->n_keys > SB_AUTH_RING_MAX ||
			ring->send >= ring->n_keys)
		return -EINVAL;
	if (w->tx != NULL)
		keyring_tx(dp, ring);
	if (w->rx != NULL) {
		struct sb_dp_rx *rx = w->rx;

		rx->keyring = *ring;
		for (i = rx->id; i < rx->map.n_peers; i += dp->n_rx)
			sb_dp_auth_peer_rx(dp, rx, i, dp->rx_peer[i].instance);
	}
	return 0;
}
