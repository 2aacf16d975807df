/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * seqbond: stripe every flow over all member ports with a sequence shim, restore order at
 * the receiving host, hand the kernel one interface through the exception path.
 *
 * Start-up is staged and tear-down runs in reverse (STYLE.md 8): EAL -> config -> mempool
 * -> member ports -> exception port -> datapath state -> lcore launch.
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

#include "cli/sb_cli.h"
#include "cli/sb_cli_server.h"
#include "sb_config.h"
#include "sb_ctl.h"
#include "sb_dp.h"
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

/* Mbufs needed: every rx and tx ring full, every reorder window full for a few peers,
 * the software queues, plus slack for hellos and bursts in flight. */
static unsigned int
mempool_size(const struct sb_config *c)
{
	unsigned int n = c->n_ports * (c->rx_desc + c->tx_desc + SB_TXQ_CAP);

	n += 2 * (c->rx_desc + c->tx_desc) + SB_TXQ_CAP;	/* exception port */
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
	static struct sb_config cfg;
	static struct sb_options opt;
	uint16_t port_ids[SB_MAX_PORTS], exc_port = RTE_MAX_ETHPORTS;
	char eal_help[] = "--help", *eal_help_argv[] = { argv[0], eal_help, NULL };
	struct sb_cli_server *console = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct rte_mempool *mp;
	struct sb_ctl *ctl = NULL;
	struct sb_dp *dp;
	char err[512];
	unsigned int i, n_setup = 0, worker;
	uint16_t max_mtu = 0, exc_mtu;
	int ret, status = EXIT_SUCCESS;

	/* Options and the configuration file first: mistakes in them are reported before EAL
	 * starts (no DPDK start-up log, nothing left in /var/run/dpdk). */
	ret = sb_options_parse(argc, argv, &opt);
	if (ret == 2) {
		/* --eal-help: EAL prints its options (and ours, through the hook) and exits. */
		rte_set_application_usage_hook(sb_options_usage);
		rte_eal_init(2, eal_help_argv);
		return EXIT_FAILURE;
	}
	if (ret != 0)
		return ret == 1 ? EXIT_SUCCESS : EXIT_FAILURE;
	ret = sb_config_load(&cfg, opt.config_file, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "seqbond: config error: %s\n", err);
		return EXIT_FAILURE;
	}

	rte_set_application_usage_hook(sb_options_usage);
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n", rte_strerror(rte_errno));

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
	exc_mtu = cfg.exc_mtu;
	if (exc_mtu == 0) {
		exc_mtu = sb_exception_max_mtu(cfg.exc_type);
		for (i = 0; i < cfg.n_ports; i++)
			exc_mtu = RTE_MIN(exc_mtu, cfg.port[i].mtu - SB_WIRE_OVERHEAD);
	} else if (exc_mtu > sb_exception_max_mtu(cfg.exc_type)) {
		rte_exit(EXIT_FAILURE, "config error: %s: [exception] mtu = '%u': this exception "
			"path type carries at most %u\n", cfg.file, exc_mtu,
			sb_exception_max_mtu(cfg.exc_type));
	}
	mp = rte_pktmbuf_pool_create("seqbond_mbufs", mempool_size(&cfg), 256, 0,
		mbuf_data_room(max_mtu), rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE, "cannot create mempool of %u mbufs: %s\n",
			mempool_size(&cfg), rte_strerror(rte_errno));

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
	ret = sb_exception_create(cfg.exc_type, cfg.exc_name, cfg.mac, &exc_port);
	if (ret == 0)
		ret = sb_port_setup(exc_port, exc_mtu, mp, cfg.rx_desc, cfg.tx_desc, false);
	if (ret != 0) {
		MAIN_LOG(ERR, "%s: [exception] name = '%s': cannot create the exception path: %s",
			cfg.file, cfg.exc_name, rte_strerror(-ret));
		status = EXIT_FAILURE;
		goto teardown;
	}

	dp = sb_dp_create(&cfg, mp, port_ids, exc_port, exc_mtu, &stop);
	if (dp == NULL) {
		MAIN_LOG(ERR, "cannot create datapath state: %s", rte_strerror(rte_errno));
		status = EXIT_FAILURE;
		goto teardown;
	}
	MAIN_LOG(INFO, "host %u: %u ports, exception %s mtu %u, scheduler %s", cfg.host_id,
		cfg.n_ports, cfg.exc_name, exc_mtu, cfg.scheduler);

	ctl = sb_ctl_create(&cfg, dp, port_ids, exc_port);
	if (ctl == NULL) {
		MAIN_LOG(ERR, "cannot create the control back end: %s", rte_strerror(rte_errno));
		sb_dp_free(dp);
		status = EXIT_FAILURE;
		goto teardown;
	}
	if (sb_telemetry_register(ctl) != 0)
		MAIN_LOG(WARNING, "telemetry endpoints /seqbond/... not registered");
	if (opt.console_socket != NULL) {
		console = sb_cli_server_start(ctl, opt.console_socket, err, sizeof(err));
		if (console == NULL) {
			MAIN_LOG(ERR, "%s", err);
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			status = EXIT_FAILURE;
		}
	}

	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		/* A single lcore: the datapath runs here until a signal stops it. */
		if (opt.interactive || opt.cmdline_file != NULL)
			MAIN_LOG(WARNING, "one lcore only: no -i or --cmdline-file console (give "
				"EAL -l two lcores; the console socket works)");
		if (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
			sb_dp_lcore_main(dp);
	} else {
		ret = rte_eal_remote_launch(sb_dp_lcore_main, dp, worker);
		if (ret != 0) {
			MAIN_LOG(ERR, "cannot launch the datapath on lcore %u: %s", worker,
				rte_strerror(-ret));
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			status = EXIT_FAILURE;
		}
		if (opt.cmdline_file != NULL && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
			ret = sb_cli_run(ctl, opt.cmdline_file);
			if (ret < 0)
				MAIN_LOG(ERR, "--cmdline-file %s: %s", opt.cmdline_file,
					strerror(-ret));
			else if (ret == 1)
				__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
		}
		if (opt.interactive && !__atomic_load_n(&stop, __ATOMIC_RELAXED))
			sb_cli_run(ctl, NULL);
		else
			while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
				usleep(100 * 1000);
		__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
		rte_eal_mp_wait_lcore();
	}
	sb_cli_server_stop(console);
	sb_telemetry_unregister();
	MAIN_LOG(INFO, "stopping");
	sb_report_print(stdout, dp);
	sb_ctl_free(ctl);
	sb_dp_free(dp);

teardown:
	if (exc_port != RTE_MAX_ETHPORTS)
		sb_port_close(exc_port);
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
