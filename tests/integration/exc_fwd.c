/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * exc_fwd: two exception paths back to back, no seqbond peer. Instance A is created in one
 * network namespace and B in another (named alike unless told otherwise; the TAP PMD needs
 * distinct names in one process); every frame A's rx_burst returns is checked and sent
 * into B's tx_burst, and the other way round, so the two kernels talk TCP through exactly the
 * calls the datapath makes (a wire of zero length). Used by test_exc_tap_vnet.sh.
 *
 * Each frame from rx_burst is checked against the exception path's contract with code of its
 * own (not the library's): at most MTU + 14 bytes (+ 4 per VLAN tag), a valid IPv4 header
 * checksum, a valid TCP/UDP checksum over IPv4 or IPv6 (RFC 1071 over a linear copy), and
 * single-segment when --linear was given.
 *
 * --threads 2 forwards A -> B on one lcore and B -> A on another (EAL -l with two lcores), so
 * each queue's rx_burst and tx_burst run at the same time, as with seqbond's TX and RX
 * workers.
 *
 * On SIGINT/SIGTERM it prints "A key value" / "B key value" lines (the exception path's
 * counters and the checks'), closes both paths, checks every mbuf came back and exits 0,
 * or 1 when any check failed.
 *
 * Usage: exc_fwd [EAL options] -- --netns NS_A,NS_B [--name IF[,IF_B]] [--type tap-vnet|tap]
 *                [--mtu BYTES] [--queues N] [--data-room BYTES] [--linear] [--threads 1|2]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "sb_csum_ref.h"
#include "sb_exception.h"

#define BURST 32
#define MAX_FRAME 16384

struct check {
	uint64_t frames, bytes, max_len, multi_seg;
	uint64_t tcp, udp, ipv4, ipv6;
	uint64_t bad_ip_csum, bad_l4_csum, oversize, not_linear, truncated;
};

struct side {
	const char *label;
	struct sb_exc *exc;
	struct check chk;
	/* frames the other side's tx_burst did not take yet, per queue */
	uint16_t n_wait[SB_EXC_MAX_QUEUES];
	struct rte_mbuf *wait[SB_EXC_MAX_QUEUES][BURST];
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Check one frame's size, layout and checksums (contract of sb_exc_rx_burst()). */
static void
check_frame(struct check *c, const struct rte_mbuf *m, uint16_t mtu, bool linear)
{
	static uint8_t buf[MAX_FRAME];
	const uint8_t *f;
	uint32_t len = rte_pktmbuf_pkt_len(m), l2 = RTE_ETHER_HDR_LEN, l4_len, sum;
	uint16_t type;
	uint8_t proto;
	const uint8_t *l3, *l4;

	c->frames++;
	c->bytes += len;
	c->max_len = RTE_MAX(c->max_len, (uint64_t)len);
	if (m->nb_segs > 1) {
		c->multi_seg++;
		if (linear)
			c->not_linear++;
	}
	if (len > MAX_FRAME || len < RTE_ETHER_HDR_LEN) {
		c->oversize++;
		return;
	}
	/* A copy when the frame is a chain, else a pointer into it. */
	f = rte_pktmbuf_read(m, 0, len, buf);
	type = (uint16_t)(f[12] << 8 | f[13]);
	while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) && l2 + 4 <= len) {
		type = (uint16_t)(f[l2 + 2] << 8 | f[l2 + 3]);
		l2 += 4;
	}
	if (len > (uint32_t)mtu + l2)
		c->oversize++;
	l3 = f + l2;
	if (type == RTE_ETHER_TYPE_IPV4 && len >= l2 + 20) {
		uint32_t ihl = (l3[0] & 0xf) * 4, tot = (uint32_t)l3[2] << 8 | l3[3];

		c->ipv4++;
		if (ihl < 20 || l2 + tot > len || tot < ihl) {
			c->truncated++;
			return;
		}
		if (fold(sum16(l3, ihl, 0)) != 0xffff)
			c->bad_ip_csum++;
		if ((l3[6] & 0x3f) != 0 || l3[7] != 0)
			return;		/* fragment: no L4 header to check */
		proto = l3[9];
		l4 = l3 + ihl;
		l4_len = tot - ihl;
		sum = sum16(l3 + 12, 8, 0);	/* addresses */
	} else if (type == RTE_ETHER_TYPE_IPV6 && len >= l2 + 40) {
		uint32_t plen = (uint32_t)l3[4] << 8 | l3[5];

		c->ipv6++;
		if (l2 + 40 + plen > len) {
			c->truncated++;
			return;
		}
		proto = l3[6];
		l4 = l3 + 40;
		l4_len = plen;
		sum = sum16(l3 + 8, 32, 0);
	} else {
		return;
	}
	if (proto == IPPROTO_TCP)
		c->tcp++;
	else if (proto == IPPROTO_UDP)
		c->udp++;
	else
		return;
	if (proto == IPPROTO_UDP && type == RTE_ETHER_TYPE_IPV4 && l4_len >= 8 &&
			l4[6] == 0 && l4[7] == 0)
		return;		/* UDP/IPv4 without checksum */
	sum += proto + l4_len;
	if (fold(sum16(l4, l4_len, sum)) != 0xffff)
		c->bad_l4_csum++;
}

/* Forward from @p from (all queues) to @p to, checking what comes out of from's rx_burst. */
static unsigned int
forward(struct side *from, struct side *to, uint16_t n_queues, uint16_t mtu, bool linear)
{
	struct rte_mbuf *m[BURST];
	unsigned int q, moved = 0;
	uint16_t n, k, i;

	for (q = 0; q < n_queues; q++) {
		if (from->n_wait[q] > 0) {
			k = sb_exc_tx_burst(to->exc, q, from->wait[q], from->n_wait[q]);
			memmove(from->wait[q], from->wait[q] + k,
				(from->n_wait[q] - k) * sizeof(m[0]));
			from->n_wait[q] -= k;
			moved += k;
			if (from->n_wait[q] > 0)
				continue;	/* keep the kernel's queue as backpressure */
		}
		n = sb_exc_rx_burst(from->exc, q, m, BURST);
		for (i = 0; i < n; i++)
			check_frame(&from->chk, m[i], mtu, linear);
		k = sb_exc_tx_burst(to->exc, q, m, n);
		memcpy(from->wait[q], m + k, (n - k) * sizeof(m[0]));
		from->n_wait[q] = n - k;
		moved += n;
	}
	return moved;
}

/* One direction's loop until a signal: from -> to. */
struct fwd_args {
	struct side *from, *to;
	uint16_t queues, mtu;
	bool linear;
};

static int
fwd_loop(void *arg)
{
	const struct fwd_args *fa = arg;
	unsigned int idle = 0;

	while (!stop_requested) {
		if (forward(fa->from, fa->to, fa->queues, fa->mtu, fa->linear) == 0) {
			struct timespec ts = { 0, 1000L * (idle < 50 ? idle : 50) };

			idle++;
			nanosleep(&ts, NULL);
		} else {
			idle = 0;
		}
	}
	return 0;
}

static void
print_row(const char *name, uint64_t value, void *arg)
{
	printf("%s %s %" PRIu64 "\n", (const char *)arg, name, value);
}

static void
report(struct side *s)
{
	struct sb_exc_stats st;
	const struct check *c = &s->chk;

	sb_exc_stats_get(s->exc, &st);
	sb_exc_stats_foreach(&st, print_row, (void *)(uintptr_t)s->label);
	printf("%s chk_frames %" PRIu64 "\n%s chk_bytes %" PRIu64 "\n%s chk_max_len %" PRIu64
		"\n%s chk_multi_seg %" PRIu64 "\n%s chk_tcp %" PRIu64 "\n%s chk_udp %" PRIu64
		"\n%s chk_ipv4 %" PRIu64 "\n%s chk_ipv6 %" PRIu64 "\n%s chk_bad_ip_csum %" PRIu64
		"\n%s chk_bad_l4_csum %" PRIu64 "\n%s chk_oversize %" PRIu64
		"\n%s chk_not_linear %" PRIu64 "\n%s chk_truncated %" PRIu64 "\n",
		s->label, c->frames, s->label, c->bytes, s->label, c->max_len, s->label,
		c->multi_seg, s->label, c->tcp, s->label, c->udp, s->label, c->ipv4, s->label,
		c->ipv6, s->label, c->bad_ip_csum, s->label, c->bad_l4_csum, s->label,
		c->oversize, s->label, c->not_linear, s->label, c->truncated);
}

static int
enter_netns(const char *ns)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = setns(fd, CLONE_NEWNET) == 0 ? 0 : -errno;
	close(fd);
	return ret;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'i' },
		{ "type", required_argument, NULL, 't' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "queues", required_argument, NULL, 'q' },
		{ "data-room", required_argument, NULL, 'd' },
		{ "linear", no_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	static struct side a = { .label = "A" }, b = { .label = "B" };
	struct side *sides[2] = { &a, &b };
	uint8_t mac[2][RTE_ETHER_ADDR_LEN] = {
		{ 0x02, 0x53, 0x42, 0x00, 0x77, 0x01 }, { 0x02, 0x53, 0x42, 0x00, 0x77, 0x02 },
	};
	char *ns[2] = { NULL, NULL }, *comma;
	const char *name[2] = { "sb0", "sb0" };
	enum sb_exc_type type = SB_EXC_TAP_VNET;
	unsigned int mtu = 1500, queues = 1, data_room = RTE_MBUF_DEFAULT_BUF_SIZE, idle = 0;
	unsigned int threads = 1, worker;
	struct fwd_args b_to_a;
	bool linear = false;
	struct sb_exc_args ea;
	struct rte_mempool *mp;
	int opt, ret, i, status = 0;
	unsigned int q;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init: %s\n", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			ns[0] = optarg;
			comma = strchr(optarg, ',');
			if (comma == NULL)
				rte_exit(EXIT_FAILURE, "--netns NS_A,NS_B\n");
			*comma = '\0';
			ns[1] = comma + 1;
			break;
		case 'i':
			name[0] = name[1] = optarg;
			comma = strchr(optarg, ',');
			if (comma != NULL) {
				*comma = '\0';
				name[1] = comma + 1;
			}
			break;
		case 't':
			if (sb_exc_type_parse(optarg, &type) != 0 || type == SB_EXC_AUTO)
				rte_exit(EXIT_FAILURE, "--type: tap-vnet, tap or virtio-user\n");
			break;
		case 'm': mtu = strtoul(optarg, NULL, 0); break;
		case 'q': queues = strtoul(optarg, NULL, 0); break;
		case 'd': data_room = strtoul(optarg, NULL, 0); break;
		case 'l': linear = true; break;
		case 'T': threads = strtoul(optarg, NULL, 0); break;
		default: rte_exit(EXIT_FAILURE, "bad option (see the header of exc_fwd.c)\n");
		}
	}
	if (ns[0] == NULL)
		rte_exit(EXIT_FAILURE, "--netns NS_A,NS_B is required\n");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	memset(&ea, 0, sizeof(ea));
	ea.type = type;
	ea.mtu = mtu;
	ea.n_queues = queues;
	ea.nb_rxd = 1024;
	ea.nb_txd = 1024;
	ea.max_held = 2 * SB_EXC_MAX_QUEUES * BURST;
	ea.flags = linear ? SB_EXC_F_LINEAR : 0;
	mp = rte_pktmbuf_pool_create("exc_fwd", 16384 + 2 * sb_exc_mempool_need(&ea, data_room),
		256, 0, data_room, rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "mempool: %s\n", rte_strerror(rte_errno));
	ea.mp = mp;
	for (i = 0; i < 2; i++) {
		ret = enter_netns(ns[i]);
		if (ret != 0)
			rte_exit(EXIT_FAILURE, "netns %s: %s\n", ns[i], strerror(-ret));
		ea.mac = mac[i];
		ea.name = name[i];
		sides[i]->exc = sb_exc_create(&ea);
		if (sides[i]->exc == NULL)
			rte_exit(EXIT_FAILURE, "exception path %s in %s: %s\n", name[i], ns[i],
				rte_strerror(rte_errno));
	}
	printf("ready\n");
	fflush(stdout);

	if (threads == 2) {
		worker = rte_get_next_lcore(-1, 1, 0);
		if (worker >= RTE_MAX_LCORE)
			rte_exit(EXIT_FAILURE, "--threads 2 needs two lcores (EAL -l)\n");
		b_to_a = (struct fwd_args){ &b, &a, queues, mtu, linear };
		if (rte_eal_remote_launch(fwd_loop, &b_to_a, worker) != 0)
			rte_exit(EXIT_FAILURE, "cannot launch on lcore %u\n", worker);
		fwd_loop(&(struct fwd_args){ &a, &b, queues, mtu, linear });
		rte_eal_mp_wait_lcore();
	}
	while (!stop_requested && threads != 2) {
		unsigned int moved = forward(&a, &b, queues, mtu, linear);

		moved += forward(&b, &a, queues, mtu, linear);
		if (moved == 0) {
			/* Two cores for two kernels and us: nap when idle, longer the longer. */
			struct timespec ts = { 0, 1000L * (idle < 50 ? idle : 50) };

			idle++;
			nanosleep(&ts, NULL);
		} else {
			idle = 0;
		}
	}

	report(&a);
	report(&b);
	for (i = 0; i < 2; i++) {
		const struct check *c = &sides[i]->chk;

		for (q = 0; q < queues; q++)
			rte_pktmbuf_free_bulk(sides[i]->wait[q], sides[i]->n_wait[q]);
		if (c->bad_ip_csum || c->bad_l4_csum || c->oversize || c->not_linear ||
				c->truncated) {
			printf("%s FAIL: frames broke the rx_burst contract\n", sides[i]->label);
			status = 1;
		}
		if (sb_exc_close(sides[i]->exc) != 0) {
			printf("%s FAIL: exception path mbufs leaked\n", sides[i]->label);
			status = 1;
		}
	}
	if (rte_mempool_in_use_count(mp) != 0) {
		printf("FAIL: %u mbufs of the pool not back\n", rte_mempool_in_use_count(mp));
		status = 1;
	}
	printf("mbufs %s\n", rte_mempool_in_use_count(mp) == 0 ? "all back" : "LEAKED");
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return status;
}
