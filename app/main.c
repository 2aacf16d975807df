/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seqbond: stripe every flow over all member ports with a sequence shim, restore order at
 * the receiving host, hand the kernel one interface through the exception path.
 *
 * The command line and the configuration file are read before EAL starts, so mistakes in
 * them are reported without DPDK's start-up log or files left in /var/run/dpdk. Start-up is
 * then one ordered table of steps and tear-down runs the same table backwards from the last
 * step that came up (STYLE.md 8): exception path type and MTU -> signals -> packet capture ->
 * mempool -> member ports -> exception path -> passthrough interfaces -> datapath state ->
 * control back end -> telemetry -> console socket -> datapath lcores. So the lcores stop
 * before anything they use goes, telemetry and console sessions are quiesced before the back
 * end they call is freed, the exception path is closed (and checks its own pools) once the
 * datapath gave back every frame it read from it, and the mbuf count is checked once every
 * port that could hold mbufs is closed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include "sb_cli.h"
#include "sb_cli_server.h"
#include "sb_config.h"
#include "sb_ctl.h"
#include "sb_dp.h"
#include "sb_exception.h"
#include "sb_keyfile.h"
#include "sb_keymem.h"
#include "sb_options.h"
#include "sb_port.h"
#include "sb_report.h"
#include "sb_telemetry.h"

RTE_LOG_REGISTER_SUFFIX(sb_main_logtype, main, INFO);
#define MAIN_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sb_main_logtype, "seqbond: " fmt "\n", ##__VA_ARGS__)

static bool stop;

static void
on_signal(int sig __rte_unused)
{
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
}

/* Everything start-up creates; each step fills its part and its down() releases it. */
struct app {
	struct sb_options opt;
	struct sb_config cfg;
	struct rte_mempool *mp;
	uint16_t port_ids[SB_MAX_PORTS];
	unsigned int n_ports_up;	/* member ports set up so far */
	struct sb_exc_args exc_args;	/* the exception path's, filled step by step */
	struct sb_exc *exc;		/* NULL until created */
	uint16_t pt_port[SB_MAX_PORTS];	/* passthrough interfaces, RTE_MAX_ETHPORTS: none */
	uint16_t exc_mtu;
	struct sb_dp *dp;
	struct sb_ctl *ctl;
	unsigned int n_workers;		/* datapath lcores: every worker lcore of -l, or main */
	unsigned int n_launched;	/* workers running on their lcores */
	struct sb_cli_server *console;	/* console socket server, NULL: none */
	struct sb_auth_keyring *keyring;	/* the cluster keys read at start (locked
					 * memory), until the datapath has its copies (then
					 * wiped and freed) */
	bool leak;			/* mbufs missing at exit (ours or the exception path's) */
};

/*
 * Mbufs needed: every member port's rx and tx ring full plus its software and hello queues,
 * what the exception path holds itself (sb_exc_mempool_need(): its rings, or tap-vnet's read
 * buffers and cut frames) and the RX workers' queues in front of it, what the reorder windows
 * can hold, and slack for hellos, flood copies and bursts in flight. The windows together can
 * hold no more than arrives within one reorder timeout at the ports' total rate (each frame
 * leaves by then at the latest), counted at 256 bytes a frame; at least two full windows, at
 * most one window per peer the table can hold. Past that the ports count rx_nombuf rather
 * than anything crashing (docs/design.md, memory).
 */
static unsigned int
mempool_size(const struct sb_config *c, unsigned int n_workers, const struct sb_exc_args *ea,
	uint16_t data_room)
{
	unsigned int q = sb_dp_exc_queues(n_workers);
	uint64_t rate_bps = 0, held;
	unsigned int i, n;

	for (i = 0; i < c->n_ports; i++)
		rate_bps += c->port[i].rate_kbps != 0 ? (uint64_t)c->port[i].rate_kbps * 1000 :
			UINT64_C(1000000000);
	held = rate_bps / 8 * c->reorder_timeout_us / 1000000 / 256;
	held = RTE_MAX(held, 2 * (uint64_t)c->reorder_window);
	held = RTE_MIN(held, (uint64_t)SB_MAX_PEERS * c->reorder_window);
	n = c->n_ports * (2 * SB_CONFIG_PORT_DESC + 512 + 16);
	n += sb_exc_mempool_need(ea, data_room) + q * 512 + 512;	/* exception path */
	if (n_workers > 1)	/* rings between the workers */
		n += q * SB_DP_RING_FRAMES + 1024;
	for (i = 0; i < c->n_ports; i++)
		if (sb_config_port_passthrough(&c->port[i]))
			n += 2 * SB_CONFIG_PORT_DESC + 512;	/* its passthrough interface */
	return n + (unsigned int)held + 4096;
}

/* One segment per frame keeps parsing simple. Jumbo sizes are rounded up with 1 KiB to
 * spare because af_packet insists that its whole frame slot (framesz less its header) fits
 * in one mbuf: framesz=10240 suits MTU 9000 (docs/config.md). */
static uint16_t
mbuf_data_room(const struct sb_config *c)
{
	uint16_t max_mtu = 0;
	unsigned int i;

	for (i = 0; i < c->n_ports; i++)
		max_mtu = RTE_MAX(max_mtu, c->port[i].mtu);
	if (max_mtu <= RTE_ETHER_MTU)
		return RTE_MBUF_DEFAULT_BUF_SIZE;
	return RTE_PKTMBUF_HEADROOM +
		RTE_ALIGN_CEIL(max_mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN, 1024) + 1024;
}

/*
 * The exception path's type (auto: what the kernel offers, logged) and MTU (as configured,
 * or the largest every member port carries, within the type's limit), and the rest of its
 * arguments that the mempool's size depends on.
 */
static int
exc_mtu_up(struct app *a)
{
	struct sb_exc_args *ea = &a->exc_args;
	enum sb_exc_type type = sb_exc_type_resolve(a->cfg.exc_type);
	unsigned int i;

	a->exc_mtu = a->cfg.exc_mtu;
	if (a->exc_mtu == 0) {
		a->exc_mtu = sb_exc_max_mtu(type);
		for (i = 0; i < a->cfg.n_ports; i++)
			a->exc_mtu = RTE_MIN(a->exc_mtu, a->cfg.port[i].mtu -
				sb_config_overhead(&a->cfg));
	} else if (a->exc_mtu > sb_exc_max_mtu(type)) {
		MAIN_LOG(ERR, "config error: %s: [exception] mtu = '%u': exception path type %s "
			"carries at most %u", a->cfg.file, a->exc_mtu, sb_exc_type_name(type),
			sb_exc_max_mtu(type));
		return -EINVAL;
	}
	*ea = (struct sb_exc_args){
		.type = type,
		.name = a->cfg.exc_name,
		.mac = a->cfg.mac,
		.mtu = a->exc_mtu,
		.n_queues = sb_dp_exc_queues(a->n_workers),
		.nb_rxd = SB_CONFIG_PORT_DESC,
		.nb_txd = SB_CONFIG_PORT_DESC,
		/* Frames read from the kernel wait in front of the ports (the TX worker's
		 * pending burst, each port's software queue) or sit in their tx rings. */
		.max_held = a->cfg.n_ports * (SB_CONFIG_PORT_DESC + 512) + SB_BURST_MAX,
	};
	return 0;
}

static int
signals_up(struct app *a __rte_unused)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: a signal must also end the console's blocking read. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return 0;
}

static int
pdump_up(struct app *a __rte_unused)
{
	/* dpdk-dumpcap/dpdk-pdump attach as secondary processes and capture any port. Not
	 * fatal: the appliance runs without capture. */
	if (rte_pdump_init() != 0)
		MAIN_LOG(WARNING, "packet capture unavailable: rte_pdump_init: %s",
			rte_strerror(rte_errno));
	return 0;
}

static void
pdump_down(struct app *a __rte_unused)
{
	rte_pdump_uninit();
}

static int
mempool_up(struct app *a)
{
	uint16_t data_room = mbuf_data_room(&a->cfg);
	unsigned int n = mempool_size(&a->cfg, a->n_workers, &a->exc_args, data_room);

	a->mp = rte_pktmbuf_pool_create("seqbond_mbufs", n, 256, 0, data_room, rte_socket_id());
	if (a->mp == NULL) {
		MAIN_LOG(ERR, "cannot create mempool of %u mbufs: %s", n, rte_strerror(rte_errno));
		return -rte_errno;
	}
	a->exc_args.mp = a->mp;
	return 0;
}

static void
mempool_down(struct app *a)
{
	if (a->mp == NULL)
		return;
	if (rte_mempool_avail_count(a->mp) != a->mp->size) {
		MAIN_LOG(ERR, "mbuf leak: %u of %u mbufs back in the pool",
			rte_mempool_avail_count(a->mp), a->mp->size);
		a->leak = true;
	} else {
		MAIN_LOG(INFO, "all %u mbufs back in the pool", a->mp->size);
	}
	rte_mempool_free(a->mp);
}

static int
ports_up(struct app *a)
{
	unsigned int i;
	int ret;

	for (i = 0; i < a->cfg.n_ports; i++) {
		ret = sb_port_probe(a->cfg.port[i].devargs, &a->port_ids[i]);
		if (ret == 0)
			ret = sb_port_setup(a->port_ids[i], a->cfg.port[i].mtu, a->mp,
				SB_CONFIG_PORT_DESC, SB_CONFIG_PORT_DESC, 1, true);
		if (ret != 0) {
			MAIN_LOG(ERR, "%s: [port%u] device = '%s': cannot bring up: %s",
				a->cfg.file, i, a->cfg.port[i].devargs, rte_strerror(-ret));
			return ret;
		}
		a->n_ports_up++;
	}
	return 0;
}

static void
ports_down(struct app *a)
{
	while (a->n_ports_up > 0)
		sb_port_close(a->port_ids[--a->n_ports_up]);
}

static int
exception_up(struct app *a)
{
	unsigned int i;

	/* Frames cut from the kernel's large segments are chains of mbufs unless every port
	 * can send chains. */
	for (i = 0; i < a->cfg.n_ports; i++)
		if (!sb_port_tx_multi_seg(a->port_ids[i]))
			a->exc_args.flags |= SB_EXC_F_LINEAR;
	a->exc = sb_exc_create(&a->exc_args);
	if (a->exc == NULL) {
		MAIN_LOG(ERR, "%s: [exception] name = '%s': cannot create the %s exception path: "
			"%s", a->cfg.file, a->cfg.exc_name, sb_exc_type_name(a->exc_args.type),
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/* After the datapath is freed: every frame read from the kernel is back. A frame of the
 * exception path's own pools still out is a leak like a missing mbuf of ours. */
static void
exception_down(struct app *a)
{
	if (a->exc != NULL && sb_exc_close(a->exc) != 0)
		a->leak = true;
	a->exc = NULL;
}

/*
 * Per-port passthrough: a NIC bound to DPDK takes its port away from the kernel, so raw
 * traffic (DHCP, PXE, LLDP, management) gets a kernel interface of its own per port,
 * <exception name>p<N> with the port's MAC, served by the TAP PMD (so at most 1500 bytes).
 */
static int
passthrough_up(struct app *a)
{
	struct rte_ether_addr mac;
	char name[SB_IFNAME_LEN + 16];	/* the loader keeps it under SB_IFNAME_LEN */
	unsigned int i;
	uint16_t mtu;
	int ret;

	for (i = 0; i < a->cfg.n_ports; i++) {
		if (!sb_config_port_passthrough(&a->cfg.port[i]))
			continue;
		snprintf(name, sizeof(name), "%sp%u", a->cfg.exc_name, i);
		rte_eth_macaddr_get(a->port_ids[i], &mac);
		ret = sb_port_tap_create(name, mac.addr_bytes, &a->pt_port[i]);
		mtu = RTE_MIN(a->cfg.port[i].mtu, (uint16_t)RTE_ETHER_MTU);
		if (ret == 0)
			ret = sb_port_setup(a->pt_port[i], mtu, a->mp, SB_CONFIG_PORT_DESC,
				SB_CONFIG_PORT_DESC, 1, false);
		if (ret != 0) {
			MAIN_LOG(ERR, "%s: [port%u] passthrough: cannot create %s: %s", a->cfg.file,
				i, name, rte_strerror(-ret));
			return ret;
		}
		if (a->cfg.port[i].mtu > mtu)
			MAIN_LOG(WARNING, "[port%u] passthrough: %s carries at most %u bytes "
				"(TAP PMD), the port %u", i, name, mtu, a->cfg.port[i].mtu);
		MAIN_LOG(INFO, "port %u: raw frames pass through %s", i, name);
	}
	return 0;
}

static void
passthrough_down(struct app *a)
{
	unsigned int i;

	for (i = 0; i < SB_MAX_PORTS; i++)
		if (a->pt_port[i] != RTE_MAX_ETHPORTS)
			sb_port_close(a->pt_port[i]);
}

static int
datapath_up(struct app *a)
{
	const struct sb_config *c = &a->cfg;
	struct sb_dp_conf dc;
	unsigned int i;

	sb_config_dp_conf(c, &dc);
	dc.exc = a->exc;
	dc.exc_mtu = a->exc_mtu;
	dc.n_workers = a->n_workers;
	dc.n_exc_queues = sb_dp_exc_queues(a->n_workers);
	dc.mp = a->mp;
	dc.keyring = a->keyring;
	if (a->keyring != NULL)
		sb_keyfile_log(a->keyring, "cluster key");
	for (i = 0; i < c->n_ports; i++) {
		dc.port[i].port_id = a->port_ids[i];
		dc.port[i].pt_port = a->pt_port[i];
	}
	a->dp = sb_dp_create(&dc, &stop);
	sb_auth_secret_free(a->keyring);	/* the workers have their copies */
	a->keyring = NULL;
	if (a->dp == NULL) {
		MAIN_LOG(ERR, "cannot create datapath state: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	MAIN_LOG(INFO, "host %u: %u ports, exception %s mtu %u (%s), scheduler %s, %u "
		"datapath lcore%s, %s", c->host_id, c->n_ports, c->exc_name, a->exc_mtu,
		sb_exc_type_name(a->exc_args.type), c->scheduler, a->n_workers,
		a->n_workers == 1 ? "" : "s (1 TX, the rest RX)",
		c->cluster_key_file[0] != '\0' ? "frames authenticated (cluster key)" :
		"no cluster key: frames unauthenticated");
	return 0;
}

static void
datapath_down(struct app *a)
{
	static struct sb_snapshot snap;	/* large; main only */
	unsigned int k;

	if (a->dp == NULL)
		return;
	/* The lcores have returned (the launch step is torn down first): read them directly. */
	MAIN_LOG(INFO, "stopping");
	sb_dp_settle(a->dp, rte_rdtsc());
	memset(&snap, 0, sizeof(snap));
	for (k = 0; k < sb_dp_n_workers(a->dp); k++)
		sb_dp_snapshot(a->dp, k, &snap, rte_rdtsc());
	sb_report_print(stdout, &snap);
	sb_dp_free(a->dp);
}

static int
control_up(struct app *a)
{
	struct sb_exc_info ei;

	sb_exc_info_get(a->exc, &ei);
	a->ctl = sb_ctl_create(&a->cfg, a->dp, a->port_ids, ei.port_id);
	if (a->ctl == NULL) {
		MAIN_LOG(ERR, "cannot create the control back end: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static void
control_down(struct app *a)
{
	sb_ctl_free(a->ctl);
}

static int
telemetry_up(struct app *a)
{
	if (sb_telemetry_register(a->ctl) != 0)
		MAIN_LOG(WARNING, "telemetry endpoints /seqbond/... not registered");
	return 0;
}

static void
telemetry_down(struct app *a __rte_unused)
{
	/* Waits for calls in flight: none may use the back end once it is freed. */
	sb_telemetry_unregister();
}

/* The console socket (docs/console.md): sessions run on their own threads and call the
 * control back end, so the server stops before the back end is freed. */
static int
console_up(struct app *a)
{
	char err[512];

	if (a->opt.console_socket == NULL)
		return 0;	/* --no-console-socket */
	a->console = sb_cli_server_start(a->ctl, a->opt.console_socket, err, sizeof(err));
	if (a->console == NULL) {
		MAIN_LOG(ERR, "%s", err);
		return -EADDRINUSE;
	}
	return 0;
}

static void
console_down(struct app *a)
{
	sb_cli_server_stop(a->console);
}

/* Worker k runs on the k-th worker lcore of -l; with none, the only worker runs on main. */
static int
lcore_up(struct app *a)
{
	unsigned int lcore = -1, k;
	int ret;

	if (rte_lcore_count() == 1)
		return 0;	/* the datapath runs on main (run phase) */
	for (k = 0; k < sb_dp_n_workers(a->dp); k++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		ret = rte_eal_remote_launch(sb_dp_lcore_main, sb_dp_worker_arg(a->dp, k), lcore);
		if (ret != 0) {
			MAIN_LOG(ERR, "cannot launch datapath worker %u on lcore %u: %s", k, lcore,
				rte_strerror(-ret));
			return ret;
		}
		a->n_launched++;
	}
	return 0;
}

static void
lcore_down(struct app *a)
{
	unsigned int k;

	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (k = 0; a->dp != NULL && k < sb_dp_n_workers(a->dp); k++)
		sb_dp_wake(a->dp, k);
	if (a->n_launched != 0)
		rte_eal_mp_wait_lcore();
}

static const struct step {
	const char *name;
	int (*up)(struct app *a);	/* 0 or -errno, having logged why */
	void (*down)(struct app *a);	/* undoes what up() did, even a failed up(); NULL:
					 * nothing to undo */
} steps[] = {
	{ "exception type and mtu", exc_mtu_up, NULL },
	{ "signals", signals_up, NULL },
	{ "packet capture", pdump_up, pdump_down },
	{ "mempool", mempool_up, mempool_down },
	{ "member ports", ports_up, ports_down },
	{ "exception path", exception_up, exception_down },
	{ "passthrough interfaces", passthrough_up, passthrough_down },
	{ "datapath", datapath_up, datapath_down },
	{ "control", control_up, control_down },
	{ "telemetry", telemetry_up, telemetry_down },
	{ "console socket", console_up, console_down },
	{ "datapath lcore", lcore_up, lcore_down },
};

/* Between start-up and tear-down: the console or a wait for a signal. */
static void
run(struct app *a)
{
	int ret;

	if (a->n_launched == 0) {
		if (a->opt.interactive || a->opt.cmdline_file != NULL)
			MAIN_LOG(WARNING, "one lcore only: no -i or --cmdline-file console (give "
				"EAL -l two lcores; the console socket works)");
		sb_dp_lcore_main(sb_dp_worker_arg(a->dp, 0));
		return;
	}
	if (a->opt.cmdline_file != NULL && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		ret = sb_cli_run(a->ctl, a->opt.cmdline_file);
		if (ret < 0)
			MAIN_LOG(ERR, "--cmdline-file %s: %s", a->opt.cmdline_file,
				strerror(-ret));
		else if (ret == 1)
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	}
	if (a->opt.interactive && !__atomic_load_n(&stop, __ATOMIC_RELAXED))
		sb_cli_run(a->ctl, NULL);
	else
		while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
			usleep(100 * 1000);
}

int
main(int argc, char **argv)
{
	static struct app a;
	char eal_help[] = "--help", *eal_help_argv[] = { argv[0], eal_help, NULL };
	unsigned int n_up = 0, i;
	char err[512];
	int ret, status = EXIT_SUCCESS;
	bool keymem_hooked;

	/* Before anything can use OpenSSL: its key schedules go to locked memory. */
	keymem_hooked = sb_keymem_hook_openssl() == 0;
	atexit(sb_keymem_atexit);
	for (i = 0; i < SB_MAX_PORTS; i++)
		a.pt_port[i] = RTE_MAX_ETHPORTS;
	ret = sb_options_parse(argc, argv, &a.opt);
	if (ret == 2) {
		/* --eal-help: EAL prints its options (and ours, through the hook) and exits. */
		rte_set_application_usage_hook(sb_options_usage);
		rte_eal_init(2, eal_help_argv);
		return EXIT_FAILURE;
	}
	if (ret != 0)
		return ret == 1 ? EXIT_SUCCESS : EXIT_FAILURE;
	if (sb_config_load(&a.cfg, a.opt.config_file, err, sizeof(err)) != 0) {
		fprintf(stderr, "seqbond: config error: %s\n", err);
		return EXIT_FAILURE;
	}
	/* The cluster keys, before EAL too: a key file that cannot be used stops nothing
	 * that started. */
	if (a.cfg.cluster_key_file[0] != '\0') {
		if (sb_auth_init() != 0) {
			fprintf(stderr, "seqbond: libsodium cannot start (no random source?)\n");
			return EXIT_FAILURE;
		}
		a.keyring = sb_auth_secret_alloc(sizeof(*a.keyring));
		if (a.keyring == NULL) {
			fprintf(stderr, "seqbond: no locked memory for the cluster key (mlock "
				"refused: RLIMIT_MEMLOCK)\n");
			return EXIT_FAILURE;
		}
		if (sb_keyfile_load(a.cfg.cluster_key_file, a.keyring, err, sizeof(err)) != 0) {
			fprintf(stderr, "seqbond: config error: %s: [seqbond] cluster_key_file: "
				"%s\n", a.cfg.file, err);
			sb_auth_secret_free(a.keyring);
			return EXIT_FAILURE;
		}
	}

	rte_set_application_usage_hook(sb_options_usage);
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n", rte_strerror(rte_errno));
	if (a.cfg.host_id_source == SB_HOST_ID_MACHINE)
		MAIN_LOG(INFO, "host_id %u derived from %s and mac (set host_id to choose one)",
			a.cfg.host_id, SB_MACHINE_ID_FILE);
	else if (a.cfg.host_id_source == SB_HOST_ID_MAC)
		MAIN_LOG(WARNING, "host_id %u from the low 4 bytes of mac: %s: %s; hosts whose "
			"aggregate MACs end alike collide: set host_id", a.cfg.host_id,
			SB_MACHINE_ID_FILE, strerror(a.cfg.host_id_errno));
	if (a.keyring != NULL) {
		ret = sb_keymem_init();
		if (ret != 0 || !keymem_hooked)
			MAIN_LOG(WARNING, "cluster keys: %s%s; they are in ordinary memory, which "
				"swap and core dumps may hold", ret != 0 ? "no locked memory: " :
				"OpenSSL was in use before seqbond could direct its memory",
				ret != 0 ? strerror(-ret) : "");
		else
			MAIN_LOG(INFO, "cluster keys in %u KiB of locked memory, out of core "
				"dumps", SB_KEYMEM_SIZE / 1024);
	}
	/* Every lcore of -l but main runs the datapath (main keeps the console). */
	a.n_workers = RTE_MAX(rte_lcore_count() - 1, 1u);
	if (a.n_workers > SB_DP_MAX_WORKERS)
		rte_exit(EXIT_FAILURE, "%u datapath lcores: at most %u (see -l)\n", a.n_workers,
			SB_DP_MAX_WORKERS);

	/* A step that fails is torn down too: down() undoes whatever up() got done. */
	while (n_up < RTE_DIM(steps)) {
		if (steps[n_up++].up(&a) != 0) {
			MAIN_LOG(ERR, "start-up failed at step '%s'", steps[n_up - 1].name);
			status = EXIT_FAILURE;
			break;
		}
	}
	if (status == EXIT_SUCCESS)
		run(&a);
	while (n_up > 0)
		if (steps[--n_up].down != NULL)
			steps[n_up].down(&a);
	if (a.leak)
		status = EXIT_FAILURE;
	sb_auth_secret_free(a.keyring);	/* start-up failed before the datapath */
	sb_keymem_fini();
	rte_eal_cleanup();
	return status;
}
