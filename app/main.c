/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seqbond: stripe every flow over all member ports with a sequence shim, restore order at
 * the receiving host, hand the kernel one interface through the exception path.
 *
 * Start-up is staged and tear-down runs in reverse (STYLE.md 8): EAL -> config -> mempool
 * -> member ports -> exception port -> datapath state -> lcore launch.
 */
#include <errno.h>
#include <getopt.h>
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

#include "cli/sb_cli.h"
#include "sb_config.h"
#include "sb_ctl.h"
#include "sb_dp.h"
#include "sb_exception.h"
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

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- --config FILE [-i] [--cmdline-file FILE]\n"
		"  --config FILE        INI configuration (see docs/config.md)\n"
		"  -i, --interactive    console on stdin (prompt 'seqbond> ', see docs/console.md)\n"
		"  --cmdline-file FILE  run console commands from FILE at start\n"
		"  --help               this text\n"
		"Without -i seqbond runs until SIGINT or SIGTERM.\n", prog);
}

/* Mbufs needed: every rx and tx ring full, every reorder window full for a few peers,
 * the software queues, what the exception path holds, plus slack for hellos and bursts in
 * flight. */
static unsigned int
mempool_size(const struct sb_config *c, const struct sb_exc_args *ea, uint16_t data_room)
{
	unsigned int n = c->n_ports * (c->rx_desc + c->tx_desc + SB_TXQ_CAP);

	n += sb_exc_mempool_need(ea, data_room) + SB_TXQ_CAP;	/* exception path */
	n += 2 * c->reorder_window + 4096;
	return n;
}

/* One segment per frame keeps parsing simple. Jumbo sizes are rounded up with 1 KiB to
 * spare because af_packet insists that its whole frame slot (framesz less its header) fits
 * in one mbuf: framesz=10240 suits MTU 9000 (docs/config.md). */
static uint16_t
mbuf_data_room(uint16_t max_mtu)
{
	if (max_mtu <= RTE_ETHER_MTU)
		return RTE_MBUF_DEFAULT_BUF_SIZE;
	return RTE_PKTMBUF_HEADROOM +
		RTE_ALIGN_CEIL(max_mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN, 1024) + 1024;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "cmdline-file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sb_config cfg;
	uint16_t port_ids[SB_MAX_PORTS];
	struct sb_exc *exc = NULL;
	struct sb_exc_args ea;
	struct sb_exc_info ei;
	const char *config_file = NULL, *cmdline_file = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct rte_mempool *mp;
	struct sb_ctl *ctl = NULL;
	struct sb_dp *dp;
	bool interactive = false;
	char err[512];
	unsigned int i, n_setup = 0, worker;
	uint16_t max_mtu = 0, exc_mtu;
	int ret, opt, status = EXIT_SUCCESS;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;

	while ((opt = getopt_long(argc, argv, "hi", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_file = optarg;
			break;
		case 'i':
			interactive = true;
			break;
		case 'f':
			cmdline_file = optarg;
			break;
		case 'h':
			usage(argv[0]);
			rte_eal_cleanup();
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			rte_exit(EXIT_FAILURE, "unknown option (see --help)\n");
		}
	}
	if (optind < argc)
		rte_exit(EXIT_FAILURE, "unexpected argument '%s' (see --help)\n", argv[optind]);
	if (config_file == NULL)
		rte_exit(EXIT_FAILURE, "--config FILE is required (see --help)\n");

	ret = sb_config_load(&cfg, config_file, err, sizeof(err));
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "config error: %s\n", err);

	/* No SA_RESTART: a signal must also end the console's blocking read. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* dpdk-dumpcap/dpdk-pdump attach as secondary processes and capture any port. */
	ret = rte_pdump_init();
	if (ret != 0)
		MAIN_LOG(WARNING, "packet capture unavailable: rte_pdump_init: %s",
			rte_strerror(rte_errno));

	for (i = 0; i < cfg.n_ports; i++)
		max_mtu = RTE_MAX(max_mtu, cfg.port[i].mtu);
	/* The exception path: its type (auto picks by what the kernel offers) caps its MTU. */
	memset(&ea, 0, sizeof(ea));
	ea.type = sb_exc_type_resolve(cfg.exc_type);
	exc_mtu = cfg.exc_mtu;
	if (exc_mtu == 0) {
		exc_mtu = sb_exc_max_mtu(ea.type);
		for (i = 0; i < cfg.n_ports; i++)
			exc_mtu = RTE_MIN(exc_mtu, cfg.port[i].mtu - SB_WIRE_OVERHEAD);
	} else if (exc_mtu > sb_exc_max_mtu(ea.type)) {
		rte_exit(EXIT_FAILURE, "config error: %s: [exception] mtu = '%u': exception path "
			"type %s carries at most %u\n", cfg.file, exc_mtu,
			sb_exc_type_name(ea.type), sb_exc_max_mtu(ea.type));
	}
	ea.name = cfg.exc_name;
	ea.mac = cfg.mac;
	ea.mtu = exc_mtu;
	ea.n_queues = 1;	/* one datapath lcore */
	ea.nb_rxd = cfg.rx_desc;
	ea.nb_txd = cfg.tx_desc;
	/* Frames read from the kernel wait in front of the ports or sit in their rings. */
	ea.max_held = cfg.n_ports * (cfg.tx_desc + SB_TXQ_CAP) + SB_BURST_MAX;
	mp = rte_pktmbuf_pool_create("seqbond_mbufs",
		mempool_size(&cfg, &ea, mbuf_data_room(max_mtu)), 256, 0,
		mbuf_data_room(max_mtu), rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "cannot create mempool of %u mbufs: %s\n",
			mempool_size(&cfg, &ea, mbuf_data_room(max_mtu)), rte_strerror(rte_errno));
	ea.mp = mp;

	for (i = 0; i < cfg.n_ports; i++) {
		ret = sb_port_probe(cfg.port[i].devargs, &port_ids[i]);
		if (ret == 0)
			ret = sb_port_setup(port_ids[i], cfg.port[i].mtu, mp, cfg.rx_desc,
				cfg.tx_desc, true);
		if (ret != 0) {
			MAIN_LOG(ERR, "%s: [port%u] device = '%s': cannot bring up: %s",
				cfg.file, i, cfg.port[i].devargs, rte_strerror(-ret));
			status = EXIT_FAILURE;
			goto teardown;
		}
		n_setup++;
	}
	/* Frames cut from the kernel's large segments are chains unless every port can send
	 * chains. */
	for (i = 0; i < cfg.n_ports; i++)
		if (!sb_port_tx_multi_seg(port_ids[i]))
			ea.flags |= SB_EXC_F_LINEAR;
	exc = sb_exc_create(&ea);
	if (exc == NULL) {
		MAIN_LOG(ERR, "%s: [exception] name = '%s': cannot create the %s exception path: "
			"%s", cfg.file, cfg.exc_name, sb_exc_type_name(ea.type),
			rte_strerror(rte_errno));
		status = EXIT_FAILURE;
		goto teardown;
	}
	sb_exc_info_get(exc, &ei);

	dp = sb_dp_create(&cfg, mp, port_ids, exc, exc_mtu, &stop);
	if (dp == NULL) {
		MAIN_LOG(ERR, "cannot create datapath state: %s", rte_strerror(rte_errno));
		status = EXIT_FAILURE;
		goto teardown;
	}
	MAIN_LOG(INFO, "host %u: %u ports, exception %s (%s) mtu %u, scheduler %s", cfg.host_id,
		cfg.n_ports, cfg.exc_name, sb_exc_type_name(ei.type), exc_mtu, cfg.scheduler);

	ctl = sb_ctl_create(&cfg, dp, port_ids, ei.port_id);
	if (ctl == NULL) {
		MAIN_LOG(ERR, "cannot create the control back end: %s", rte_strerror(rte_errno));
		sb_dp_free(dp);
		status = EXIT_FAILURE;
		goto teardown;
	}
	if (sb_telemetry_register(ctl) != 0)
		MAIN_LOG(WARNING, "telemetry endpoints /seqbond/... not registered");

	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		/* A single lcore: the datapath runs here until a signal stops it. */
		if (interactive || cmdline_file != NULL)
			MAIN_LOG(WARNING, "one lcore only: no console (give EAL -l two lcores)");
		sb_dp_lcore_main(dp);
	} else {
		ret = rte_eal_remote_launch(sb_dp_lcore_main, dp, worker);
		if (ret != 0) {
			MAIN_LOG(ERR, "cannot launch the datapath on lcore %u: %s", worker,
				rte_strerror(-ret));
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			status = EXIT_FAILURE;
		}
		if (cmdline_file != NULL && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
			ret = sb_cli_run(ctl, cmdline_file);
			if (ret < 0)
				MAIN_LOG(ERR, "--cmdline-file %s: %s", cmdline_file, strerror(-ret));
			else if (ret == 1)
				__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
		}
		if (interactive && !__atomic_load_n(&stop, __ATOMIC_RELAXED))
			sb_cli_run(ctl, NULL);
		else
			while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
				usleep(100 * 1000);
		__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
		rte_eal_mp_wait_lcore();
	}
	sb_telemetry_unregister();
	MAIN_LOG(INFO, "stopping");
	sb_report_print(stdout, dp);
	sb_ctl_free(ctl);
	sb_dp_free(dp);

teardown:
	/* After sb_dp_free(): every frame read from the kernel is back. */
	if (exc != NULL && sb_exc_close(exc) != 0)
		status = EXIT_FAILURE;
	while (n_setup > 0)
		sb_port_close(port_ids[--n_setup]);
	if (rte_mempool_avail_count(mp) != mp->size) {
		MAIN_LOG(ERR, "mbuf leak: %u of %u mbufs back in the pool",
			rte_mempool_avail_count(mp), mp->size);
		status = EXIT_FAILURE;
	} else {
		MAIN_LOG(INFO, "all %u mbufs back in the pool", mp->size);
	}
	rte_mempool_free(mp);
	rte_pdump_uninit();
	rte_eal_cleanup();
	return status;
}
