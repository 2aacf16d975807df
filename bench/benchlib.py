#!/usr/bin/env python3
"""bench/benchlib.py: the parsing and reporting half of bench/run.

  benchlib.py cpu PIDFILE                       CPU seconds now (JSON on stdout)
  benchlib.py row CSV SYSTEM RATES MTU DIR REP IPERF_JSON TMPDIR
  benchlib.py baseline-row CSV RATE MTU REP IPERF_JSON
  benchlib.py failover-row CSV SYSTEM IPERF_JSON TMPDIR "T_DOWN T_UP"
  benchlib.py profile CSV SYSTEM RATES MTU TMPDIR SECONDS   (macro.sh profile's samples)
  benchlib.py report RESULTS_DIR DOC IMG_DIR [--quick]

CPU: a system's own processes (seqbond, testpmd) from /proc/PID/stat utime+stime; the
kernel's share machine-wide from /proc/stat (system + irq + softirq), which is the only place
MPTCP's cost shows, and which also holds iperf3's, the veths' and tbf's kernel work for every
system (the machine is shared, so it is an upper bound).
"""
import csv
import glob
import json
import os
import statistics
import sys

TCK = os.sysconf("SC_CLK_TCK")

ROW_FIELDS = ["system", "links", "mtu", "direction", "rep", "goodput_mbit", "goodput_ab_mbit",
              "goodput_ba_mbit", "retransmits", "ofo_queue", "sack_reorder", "ts_reorder",
              "reno_reorder", "tcp_timeouts", "mptcp_joins", "cpu_system_s", "cpu_kernel_s",
              "seconds", "cpu_busy_s", "cc", "dp_lcores", "cpu_dp_busiest_s", "cpu_dp_total_s",
              "mss"]
BASE_FIELDS = ["rate", "mtu", "rep", "goodput_mbit", "retransmits"]
PROF_FIELDS = ["system", "links", "mtu", "host", "stage", "samples", "share", "hypervisor_share",
               "ns_per_frame", "dp_cpu_s", "frames", "seconds"]
FAIL_FIELDS = ["system", "t_down", "t_up", "pre_mbit", "min_after_down_mbit", "recover_s",
               "retrans_segs", "tcp_timeouts", "goodput_mbit"]


def append(path, fields, row):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if new:
            w.writeheader()
        w.writerow(row)


def stat_cpu(path):
    """utime + stime of a /proc stat file, seconds (fields 14, 15)."""
    st = open(path).read()
    f = st[st.rindex(")") + 2:].split()
    return (int(f[11]) + int(f[12])) / TCK


def dp_cpu(pid):
    """CPU seconds of a seqbond process's datapath lcores: its EAL worker threads
    (rte-worker-N); the main lcore runs the console and the control back end."""
    total = 0.0
    for t in glob.glob("/proc/%s/task/*" % pid):
        try:
            if open(t + "/comm").read().startswith("rte-worker-"):
                total += stat_cpu(t + "/stat")
        except OSError:
            continue
    return total


def cpu(pidfile):
    own = 0.0
    dp = []
    for pid in open(pidfile).read().split():
        try:
            own += stat_cpu("/proc/%s/stat" % pid)
        except OSError:
            continue
        dp.append(dp_cpu(pid))
    c = open("/proc/stat").readline().split()[1:]
    kern = (int(c[2]) + int(c[5]) + int(c[6])) / TCK
    # everything but idle and iowait: user, nice, system, irq, softirq, steal (guest time is
    # already in user)
    busy = sum(int(x) for i, x in enumerate(c[:8]) if i not in (3, 4)) / TCK
    print(json.dumps({"own": own, "kernel": kern, "busy": busy, "dp": dp}))


def load_iperf(path):
    d = json.load(open(path))
    if "error" in d:
        raise SystemExit("iperf3: " + d["error"])
    return d


def nstat(tmp, host, tag):
    d = json.load(open(os.path.join(tmp, "nstat-%s.%s" % (host, tag))))
    return d.get("kernel", d)


def delta(tmp, host, key):
    return nstat(tmp, host, "after").get(key, 0) - nstat(tmp, host, "before").get(key, 0)


def cpu_delta(tmp):
    b = json.load(open(os.path.join(tmp, "cpu.before")))
    a = json.load(open(os.path.join(tmp, "cpu.after")))
    return (a["own"] - b["own"], a["kernel"] - b["kernel"],
            a.get("busy", 0.0) - b.get("busy", 0.0))


def dp_delta(tmp):
    """Datapath lcore CPU seconds during the stream, per seqbond process (same order)."""
    b = json.load(open(os.path.join(tmp, "cpu.before"))).get("dp", [])
    a = json.load(open(os.path.join(tmp, "cpu.after"))).get("dp", [])
    return [y - x for x, y in zip(b, a)]


def default_cc():
    try:
        return open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()
    except OSError:
        return ""


def row(path, system, rates, mtu, direction, rep, ipath, tmp):
    d = load_iperf(ipath)
    e = d["end"]
    ab = e["sum_received"]["bits_per_second"] / 1e6
    retr = e["sum_sent"].get("retransmits", 0)
    ba = 0.0
    if direction == "bidir":
        ba = e["sum_received_bidir_reverse"]["bits_per_second"] / 1e6
        retr += e["sum_sent_bidir_reverse"].get("retransmits", 0)
    receivers = ["b"] if direction == "ab" else ["a", "b"]
    senders = ["a"] if direction == "ab" else ["a", "b"]
    own, kern, busy = cpu_delta(tmp)
    append(path, ROW_FIELDS, {
        "system": system, "links": rates, "mtu": mtu, "direction": direction, "rep": rep,
        "goodput_mbit": "%.2f" % (ab + ba), "goodput_ab_mbit": "%.2f" % ab,
        "goodput_ba_mbit": "%.2f" % ba, "retransmits": retr,
        "ofo_queue": sum(delta(tmp, h, "TcpExtTCPOFOQueue") for h in receivers),
        "sack_reorder": sum(delta(tmp, h, "TcpExtTCPSACKReorder") for h in senders),
        "ts_reorder": sum(delta(tmp, h, "TcpExtTCPTSReorder") for h in senders),
        "reno_reorder": sum(delta(tmp, h, "TcpExtTCPRenoReorder") for h in senders),
        "tcp_timeouts": sum(delta(tmp, h, "TcpExtTCPTimeouts") for h in senders),
        "mptcp_joins": delta(tmp, "a", "MPTcpExtMPJoinSynAckRx"),
        "cpu_system_s": "%.2f" % own, "cpu_kernel_s": "%.2f" % kern,
        "seconds": "%.1f" % e["sum_received"]["seconds"],
        "cpu_busy_s": "%.2f" % busy,
        "cc": os.environ.get("BENCH_CC") or default_cc(),
        "dp_lcores": os.environ.get("SEQBOND_DP_LCORES", "1"),
        "cpu_dp_busiest_s": "%.2f" % max(dp_delta(tmp) or [0.0]),
        "cpu_dp_total_s": "%.2f" % sum(dp_delta(tmp)),
        # the sender's TCP payload per full-size frame (sb0's MTU less 52 bytes of headers)
        "mss": d["start"].get("tcp_mss_default", ""),
    })
    dp = max(dp_delta(tmp) or [0.0]) / float(e["sum_received"]["seconds"] or 1)
    print("%s %s mtu %s %s rep %s: %.1f Mbit/s (%.1f + %.1f), %d retransmits%s" %
          (system, rates, mtu, direction, rep, ab + ba, ab, ba, retr,
           ", busier datapath %.2f cores: %.2f Gbit/s per core" % (dp, (ab + ba) / 1000 / dp)
           if dp > 0 else ""), file=sys.stderr)


# Stages of a frame's way through seqbond, for `profile`. A sample goes to the stage of the
# first rule that matches it: kernel samples by the system call on their stack (the kernel
# unwinds its own stack), seqbond's and DPDK's by the function or library they stopped in
# (seqbond is built without frame pointers, so its samples have no reliable callers).
PROF_KERNEL = [  # (stage, any of these kernel functions on the stack)
    ("exception path read", ("tun_chr_read_iter", "tun_do_read", "do_readv")),
    ("exception path write", ("tun_chr_write_iter", "tun_get_user", "do_writev")),
    ("waiting (epoll, naps)", ("do_epoll_wait", "do_epoll_pwait", "hrtimer_nanosleep",
                               "do_sched_yield", "__x64_sys_sched_yield")),
]
PROF_USER = [  # (stage, function name prefixes or library names)
    ("exception path read", ("tv_rx_burst", "sb_exc_rx_burst", "sb_vnet_rx_decode",
                             "__GI___readv", "readv")),
    ("segmentation and checksums", ("librte_gso", "rte_gso_segment", "tcp_cksum_set",
                                    "csum_complete", "tcp6_segment", "sb_vnet_rx_finish",
                                    "linearize")),
    ("checksum check and coalescing", ("librte_gro", "rte_gro_", "sb_vnet_tx_coalesce",
                                       "tx_classify")),
    ("exception path write", ("tv_tx_burst", "tx_write", "sb_vnet_tx_header", "sb_exc_tx",
                              "__GI___writev", "writev")),
    # libcrypto: OpenSSL's AES-GCM, the DATA tag (lib/auth/sb_auth_data.c)
    ("shim and authentication", ("sb_wire_", "sb_auth_", "sb_dp_auth", "libsodium",
                                 "libcrypto", "send_data", "rx_one", "rx_round", "rx_finish")),
    ("scheduler", ("sb_sched_", "sb_path_est")),
    ("reorder", ("sb_reorder_", "release_in_order", "sb_dp_rx_flush")),
    ("port I/O (memif PMD)", ("librte_net_memif", "sb_port_")),
    ("mbufs", ("librte_mempool", "rte_pktmbuf_", "rte_mempool", "__rte_pktmbuf")),
    ("waiting (epoll, naps)", ("epoll_pwait", "sb_wait_", "clock_nanosleep", "__sched_yield")),
    ("liveness (hellos, peers)", ("sb_dp_hello", "sb_peer_", "hello_", "sb_dp_cmd",
                                  "view_refresh")),
]
# The software checksum and header parse serve whichever stage the host does most: on an
# A->B stream, cutting on the sender (a), checking before merging on the receiver (b).
PROF_ROLE = {"sum_mbuf": ("segmentation and checksums", "checksum check and coalescing"),
             "sb_csum_": ("segmentation and checksums", "checksum check and coalescing"),
             "rte_net_get_ptype": ("segmentation and checksums",
                                   "checksum check and coalescing")}


def prof_samples(path):
    """Samples of `perf script -F comm,ip,sym,dso` taken on a datapath lcore (thread
    rte-worker-N): lists of (symbol, dso), leaf first."""
    cur, keep = [], False
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if cur and keep:
                yield cur
            cur = []
        elif line[0] not in " \t":
            keep = line.startswith("rte-worker-")
        else:
            f = line.split(None, 1)
            if len(f) < 2:
                continue
            sym, _, dso = f[1].rpartition(" (")
            cur.append((sym.split("+")[0], os.path.basename(dso.rstrip(")"))))
    if cur:
        yield cur


def prof_stage(stack, sender):
    sym, dso = stack[0]
    if dso == "[kernel.kallsyms]":
        syms = {s for s, _ in stack}
        for stage, names in PROF_KERNEL:
            if syms.intersection(names):
                return stage
        # the system call's way in or out: the user function that made it
        user = [f for f in stack if f[1] != "[kernel.kallsyms]" and f[0] != "[unknown]"]
        if not user or "do_syscall_64" not in syms:
            return "kernel, other (faults, interrupts, timers)"
        sym, dso = user[0]
    for name, (tx, rx) in PROF_ROLE.items():
        if sym.startswith(name):
            return tx if sender else rx
    for stage, names in PROF_USER:
        for n in names:
            if sym.startswith(n) or dso.startswith(n):
                return stage
    return "other"


def profile(path, system, rates, mtu, tmp, seconds):
    """Rows of `macro.sh profile`: per host and stage, its share of the samples, the share
    of those spent in the hypervisor's functions (pvm_*, this VM's cost), and ns per
    MTU-sized frame = share x the host's datapath CPU seconds / frames (the bytes b's IP
    layer received in the window / MTU)."""
    dp = dp_delta(tmp)
    def in_octets(tag):
        lines = [l.split() for l in open(os.path.join(tmp, "netstat-b." + tag))]
        for names, vals in zip(lines[::2], lines[1::2]):
            if names[0] == "IpExt:":
                return int(vals[names.index("InOctets")])
        raise SystemExit("profile: no IpExt InOctets in /proc/net/netstat")
    octets = in_octets("after") - in_octets("before")
    frames = octets / int(mtu)
    if frames <= 0 or len(dp) != 2:
        raise SystemExit("profile: no traffic in the window (%d bytes received by b, "
                         "datapath CPU %s)" % (octets, dp))
    for i, host in enumerate(("a", "b")):
        count, hyp = {}, {}
        for stack in prof_samples(os.path.join(tmp, "perf-%s.txt" % host)):
            st = prof_stage(stack, host == "a")
            count[st] = count.get(st, 0) + 1
            if stack[0][0].startswith("pvm_"):
                hyp[st] = hyp.get(st, 0) + 1
        total = sum(count.values())
        if total == 0:
            raise SystemExit("profile: no samples of host %s" % host)
        for st, n in sorted(count.items(), key=lambda kv: -kv[1]):
            append(path, PROF_FIELDS, {
                "system": system, "links": rates, "mtu": mtu, "host": host, "stage": st,
                "samples": n, "share": "%.4f" % (n / total),
                "hypervisor_share": "%.4f" % (hyp.get(st, 0) / n),
                "ns_per_frame": "%.1f" % (n / total * dp[i] * 1e9 / frames),
                "dp_cpu_s": "%.2f" % dp[i], "frames": int(frames), "seconds": seconds})
        print("profile %s: %d samples, %.2f dp CPU s, %.0f frames/s" %
              (host, total, dp[i], frames / float(seconds)), file=sys.stderr)


def baseline_row(path, rate, mtu, rep, ipath):
    e = load_iperf(ipath)["end"]
    append(path, BASE_FIELDS, {"rate": rate, "mtu": mtu, "rep": rep,
                               "goodput_mbit": "%.2f" % (e["sum_received"]["bits_per_second"] / 1e6),
                               "retransmits": e["sum_sent"].get("retransmits", 0)})


def intervals(d):
    """(end s, Mbit/s) per interval, as the receiver saw them when the JSON holds the server's
    side (--get-server-output), else the client's: for A->B the client's intervals count
    bytes written into its socket, which run ahead of the links."""
    srv = d.get("server_output_json")
    ivs = srv["intervals"] if srv and srv.get("intervals") else d["intervals"]
    return [(iv["sum"]["end"], iv["sum"]["bits_per_second"] / 1e6) for iv in ivs]


def failover_row(path, system, ipath, tmp, times):
    t_down, t_up = (float(x) for x in times.split())
    d = load_iperf(ipath)
    iv = intervals(d)
    pre = [g for t, g in iv if 1.0 < t <= t_down]
    pre_m = statistics.median(pre) if pre else 0.0
    # Recovered: at the start of the first run of RUN consecutive intervals after the cut
    # that each carry at least 90 % of what the remaining 3 of 4 links carried before (a
    # single good interval right after the cut is only the frames already on the other
    # links). The run may end at t_up when the window is short.
    after = [(t, g) for t, g in iv if t_down < t <= t_up]
    thr = 0.9 * pre_m * 3 / 4
    step = iv[1][0] - iv[0][0] if len(iv) > 1 else 0.1
    RUN = 5
    rec = None
    for i in range(len(after)):
        if all(g >= thr for _, g in after[i:i + RUN]) and (i + RUN <= len(after) or i == 0):
            rec = max(0.0, after[i][0] - step - t_down)
            break
    append(path, FAIL_FIELDS, {
        "system": system, "t_down": t_down, "t_up": t_up, "pre_mbit": "%.1f" % pre_m,
        "min_after_down_mbit": "%.1f" % min((g for _, g in after), default=0.0),
        "recover_s": "%.2f" % rec if rec is not None else "none",
        "retrans_segs": delta(tmp, "a", "TcpRetransSegs"),
        "tcp_timeouts": delta(tmp, "a", "TcpExtTCPTimeouts"),
        "goodput_mbit": "%.1f" % (d["end"]["sum_received"]["bits_per_second"] / 1e6),
    })
    print("failover %s: before %.1f Mbit/s, %s" % (
        system, pre_m, "recovered after %.2f s" % rec if rec is not None else
        "not recovered before the link came back"), file=sys.stderr)


# ------------------------------------------------------------------------------------------
# report

def read(path):
    if not os.path.exists(path):
        return []
    return list(csv.DictReader(open(path)))


def med(vals):
    vals = [float(v) for v in vals]
    return statistics.median(vals) if vals else float("nan")


LINKSETS = ["100", "100,100,100,100", "100,100,50,25", "100,80,60,40,20,10"]
SYSTEMS = ["seqbond-edpf", "seqbond-drr", "seqbond-rr", "bond-rr", "bond-xor", "bond-8023ad",
           "mptcp"]


def linksets(summary):
    """The standard link sets first, then any other set a run used."""
    seen = {s["links"] for s in summary}
    return [ls for ls in LINKSETS if ls in seen] + sorted(seen - set(LINKSETS))


def label(links):
    r = links.split(",")
    if len(set(r)) == 1:
        return "%d x %s" % (len(r), r[0])
    return links.replace(",", "/")


def goodput_limit(per_rate, links, mtu, direction):
    """The macro set's limit: the sum over @links of one link's single-stream goodput at that
    rate and @mtu (@per_rate: the medians of baseline.csv); twice that both ways."""
    try:
        one = sum(per_rate[(r, mtu)] for r in links.split(","))
    except KeyError:
        return float("nan")
    return one * (2 if direction == "bidir" else 1)


def report(rdir, doc, img, quick):
    rows = read(os.path.join(rdir, "macro.csv"))
    base = read(os.path.join(rdir, "baseline.csv"))
    fail = read(os.path.join(rdir, "failover.csv"))
    micro = read(os.path.join(rdir, "micro_reorder.csv"))
    dpr = read(os.path.join(rdir, "micro_dp.csv"))
    cg = read(os.path.join(rdir, "callgrind.csv"))
    wan = read(os.path.join(rdir, "wan.csv"))
    ceil = read(os.path.join(rdir, "ceiling.csv"))
    cap = read(os.path.join(rdir, "capacity.csv"))
    floor = read(os.path.join(rdir, "capacity-floor.csv"))
    prof = read(os.path.join(rdir, "capacity-profile.csv"))
    scale = read(os.path.join(rdir, "micro_scale.csv"))
    auth = read(os.path.join(rdir, "micro_auth.csv"))
    key = read(os.path.join(rdir, "key.csv"))
    lat = read(os.path.join(rdir, "latency.csv"))
    cluster = None
    if os.path.exists(os.path.join(rdir, "cluster.json")):
        with open(os.path.join(rdir, "cluster.json")) as f:
            cluster = json.load(f)

    per_rate = {}
    for b in base:
        per_rate.setdefault((b["rate"], b["mtu"]), []).append(b["goodput_mbit"])
    per_rate = {k: med(v) for k, v in per_rate.items()}

    def limit(links, mtu, direction):
        return goodput_limit(per_rate, links, mtu, direction)

    groups = {}
    for r in rows:
        groups.setdefault((r["system"], r["links"], r["mtu"], r["direction"]), []).append(r)
    summary = []
    for (sysname, links, mtu, direction), rs in sorted(groups.items()):
        g = med(r["goodput_mbit"] for r in rs)
        lim = limit(links, mtu, direction)
        summary.append({
            "system": sysname, "links": links, "mtu": mtu, "direction": direction,
            "reps": len(rs), "goodput": g, "limit": lim, "pct": 100 * g / lim if lim else 0,
            "retr": med(r["retransmits"] for r in rs), "ofo": med(r["ofo_queue"] for r in rs),
            "sack": med(r["sack_reorder"] for r in rs), "ts": med(r["ts_reorder"] for r in rs),
            "timeouts": med(r["tcp_timeouts"] for r in rs),
            "joins": med(r["mptcp_joins"] for r in rs),
            "cpu_own": med(r["cpu_system_s"] for r in rs),
            "cpu_kern": med(r["cpu_kernel_s"] for r in rs),
        })
    with open(os.path.join(rdir, "summary.csv"), "w", newline="") as f:
        if summary:
            w = csv.DictWriter(f, fieldnames=list(summary[0].keys()))
            w.writeheader()
            w.writerows(summary)

    plots = make_plots(summary, fail, rdir, img)
    cx = Ctx(rdir, doc, quick)
    write_doc(cx, summary, per_rate, fail, micro, dpr, cg, plots,
              ceiling_section(ceil, cx) + capacity_section(cap, cx, floor, prof, img) +
              key_section(key, per_rate, auth, cx) + wan_section(wan, per_rate, cx) +
              latency_section(lat, img, cx) + cluster_section(cluster, cx),
              scale_section(scale, cx), auth_section(auth, cx))


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTES = os.path.join(REPO, "bench", "results", "notes")


def notes_link(doc, *names):
    """One line linking bench/results/notes/NAME.md for each NAME that exists: text written
    by hand about a section's runs (what was run beside the generated table, what it showed,
    runs before the latest). The report links it and never copies it, so that DOC holds
    only what the results make and the notes are kept as written."""
    links = []
    for n in names:
        p = os.path.join(NOTES, n + ".md")
        if os.path.exists(p):
            links.append("[%s](%s)" % (os.path.relpath(p, REPO), os.path.relpath(
                p, os.path.dirname(os.path.abspath(doc)))))
    if not links:
        return []
    return ["Notes on these and earlier runs, written by hand: %s\n" % ", ".join(links)]


class Ctx:
    """What every section of the report names: the command that makes its results, the
    files they are in, the notes written by hand about them."""

    def __init__(self, rdir, doc, quick):
        self.rdir, self.doc, self.quick = rdir, doc, quick

    def res(self, name):
        return os.path.relpath(os.path.join(self.rdir, name), REPO)

    # the sets bench/run --quick leaves out
    NOT_QUICK = ("cluster", "key")

    def made_by(self, only, files, how="", tail=""):
        if self.quick and only not in self.NOT_QUICK:
            cmd = "`bench/run --quick`"
        else:
            cmd = "`bench/run --only %s`%s" % (only, " (not in --quick)" if self.quick else "")
        f = ["`%s`" % self.res(x) for x in files]
        f = ", ".join(f[:-1]) + " and " + f[-1] if len(f) > 1 else f[0]
        return ["Made by %s%s, into %s%s.\n" % (cmd, how, f, tail)]

    def not_run(self, name):
        return ["**Not run yet:** no results in `%s`.\n" % self.res(name)]

    def notes(self, *names):
        return notes_link(self.doc, *names)


def cluster_section(c, cx):
    """Markdown lines for bench/cluster.py (bench/run --only cluster): the users' cluster."""
    L = ["## Cluster: 16 blades and a gateway in one box\n"] + cx.made_by(
        "cluster", ["cluster.json"], " (bench/cluster.py)")
    if not c:
        return L + cx.not_run("cluster.json") + cx.notes("cluster")
    B = c["one_link_mbit"]
    L += ["Run of %s%s: `seqbond-testbed up --preset "
          "bladecentre --rate %d --exception %s`: 16 blades a..p with 6 ports, one on each of 6 "
          "switches, and the gateway q with 8 (switches 0 and 1 carry two of its ports); 17 "
          "seqbond instances on this 2-core machine. One link = one TCP stream over one %d "
          "Mbit/s link without seqbond: %.1f Mbit/s; limits below are counted in it. `%s`.\n" % (
              c.get("date", "unknown date"),
              " (bench/cluster.py --short)" if c.get("short") else "", c["rate"],
              c.get("exception", "tap"), c["rate"], B, c.get("up_line", "")),
          "| workload | result | against | goal |", "|---|---|---|---|"]
    i = c.get("idle")
    if i:
        L.append("| idle, %.0f s: CPU per instance (own process, mean / max) | %.2f / %.2f %% "
                 "of a core | the whole machine: %.1f %% of a core = %.2f %% per instance | "
                 "<= 1 %% per instance |" % (
                     i["seconds"], i["cpu_pct_mean"], i["cpu_pct_max"],
                     i["machine_busy_pct_of_a_core"], i["machine_busy_pct_per_instance"]))
        L.append("| memory (RSS) | blade <= %.0f MB, gateway %.0f MB | %.1f GB for all 17 | "
                 "bounded, documented |" % (i["rss_mb_blade_max"], i["rss_mb_gateway"],
                                              i["rss_mb_total"] / 1024))
    d = c.get("dhcp")
    if d:
        L.append("| DHCP on every blade's port 0 (dnsmasq on the gateway, seqbond on the same "
                 "ports) | %d of %d leases | all within %.1f s | 16 of 16 |" % (
                     d["leases"], d["blades"], d["all_in_s"]))
    for k, v in c.get("streams", {}).items():
        L.append("| one stream %s | %.1f Mbit/s, %d retransmits, %d RTO | %.3f of 6 links "
                 "| >= 0.97 |" % (k, v["goodput_mbit"], v["retransmits"], v["tcp_timeouts"],
                                   v["ratio"]))
    m = c.get("many_to_one")
    if m:
        L.append("| 16 blades -> gateway, iperf3, over sb0 | %.1f Mbit/s, Jain %.3f, %d RTO | "
                 "%.3f of the gateway's 8 links | >= 0.90, Jain >= 0.9, 0 RTO |" % (
                     m["aggregate_mbit"], m["jain"], m["tcp_timeouts"], m["ratio"]))
    m = c.get("many_to_one_plain")
    if m:
        L.append("| 16 blades -> gateway, iperf3, one link per host (no seqbond) | %.1f Mbit/s, "
                 "Jain %.3f, %d RTO | %.3f of one link | |" % (
                     m["aggregate_mbit"], m["jain"], m["tcp_timeouts"], m["ratio"]))
    for k, label in (("tbench", "over sb0"), ("tbench_plain", "one link per host")):
        t = c.get(k)
        if t:
            L.append("| tbench, 16 blades x 4 clients -> tbench_srv on the gateway, %s | %.1f "
                     "MB/s, Jain %.3f, %d RTO | | |" % (label, t["aggregate_MBps"], t["jain"],
                                                      t["tcp_timeouts"]))
    s = c.get("switch")
    if s:
        L.append("| one stream a -> b, switch 3 black-holed (carriers up) at %.1f s | %.1f -> "
                 "%.1f Mbit/s, lowest 0.1 s %.1f, %d RTO | back to 5/6 of before in %s s | "
                 "0 RTO, 5/6 within 1 s |" % (
                     s["cut_at_s"], s["before_mbit"], s["after_mbit"], s["lowest_0.1s_mbit"],
                     s["tcp_timeouts"], s["back_to_5_6_s"]))
    f = c.get("failover")
    if f:
        if "blades_stalled_1s" in f:
            stalls = "%d blades stalled for 1 s, %d with an empty 0.5 s interval" % (
                len(f["blades_stalled_1s"]), len(f["blades_with_an_empty_0.5s"]))
        else:   # results from before 2026-12-01
            stalls = "%d blades with a stalled 0.5 s interval" % len(
                f["blades_with_a_stalled_0.5s"])
        L.append("| 16 -> gateway; switch 2 black-holed at %.1f s, blade a's port 4 at %.1f s "
                 "| %s -> %s -> %s Mbit/s, %d RTO | %s | every stream goes on |" % (
                     f["switch_cut_at_s"], f["port_cut_at_s"],
                     *("n/a" if v is None else "%.1f" % v for v in (
                         f["aggregate_before_mbit"], f["aggregate_after_switch_mbit"],
                         f["aggregate_after_port_mbit"])),
                     f["tcp_timeouts"], stalls))
    L.append("\nRTO = TcpExtTCPTimeouts of the senders' namespaces; Jain = (sum x)^2 / (n sum "
             "x^2) over the 16 blades' goodputs; idle CPU = utime + stime of each seqbond "
             "process, and the machine's busy time (/proc/stat) over the same span, which also "
             "holds the kernel's work for every host's hellos.\n")
    return L + cx.notes("cluster")


def scale_section(scale, cx):
    """Markdown lines for bench_scale: frames per second of the datapath on 1 and 2 lcores."""
    L = ["## Micro: the datapath on one and on two lcores\n"] + cx.made_by(
        "micro", ["micro_scale.csv"], " (bench/micro.sh)")
    if not scale:
        return L + cx.not_run("micro_scale.csv") + cx.notes("scale")
    L += ["`bench/bench_scale`: one seqbond host on looped-back ring ports (4 links, 64-byte "
          "frames, no root) and an emulated peer, traffic both ways at once as two TCP streams "
          "would give it; every frame delivered to the kernel is checked for order and loss, and "
          "every mbuf must come back. 1 worker does everything; with 2, a TX worker (kernel -> "
          "peer) and an RX worker (peer -> kernel, the reorder window) on the machine's two "
          "CPUs, frames crossing between them on rte_rings (docs/design.md, \"Lcores\"). Runs "
          "alternate between the two; medians.\n",
          "| workers | runs | kernel -> peer Mpps | peer -> kernel Mpps | total Mpps | "
          "x one worker |", "|---|---|---|---|---|---|"]
    by = {}
    for r in scale:
        by.setdefault(int(r["workers"]), []).append(r)
    one = med(r["mpps_total"] for r in by.get(1, [])) if 1 in by else float("nan")
    for w in sorted(by):
        rs = by[w]
        tot = med(r["mpps_total"] for r in rs)
        L.append("| %d | %d | %s | %s | %s | %s |" % (
            w, len(rs), fmt(med(r["mpps_kernel_to_peer"] for r in rs), 2),
            fmt(med(r["mpps_peer_to_kernel"] for r in rs), 2), fmt(tot, 2),
            fmt(tot / one, 2) if one == one and one else "n/a"))
    L.append("")
    return L + cx.notes("scale")


def auth_section(auth, cx):
    """Markdown lines for bench_auth (bench/micro.sh, micro_auth.csv): what cluster
    authentication's tags cost per frame, the DATA tag's candidates beside it, and the lines
    through OpenSSL again with its AES-NI and PCLMULQDQ code masked."""
    L = ["## Micro: authentication tags\n"] + cx.made_by(
        "micro", ["micro_auth.csv"], " (bench/micro.sh)") + [
         "`bench/bench_auth` (no EAL): what cluster authentication (lib/auth) costs per frame "
         "on one core. A DATA tag covers the frame in two pieces, as on the wire: its first 30 "
         "bytes (MACs, shim, the authentication header up to the tag), then bytes 46 to the "
         "end. `data_gcm` is the tag seqbond sends, sb_auth_data_mac(): AES-256-GCM with no "
         "plaintext (GMAC) through OpenSSL's EVP, a new packet number each frame (a sender's "
         "cost); `data_verify` is sb_auth_data_verify() of a good tag (a receiver's). The "
         "candidates it was chosen over, each with a new nonce or packet number per frame: "
         "`chacha20poly1305_sodium`, libsodium's ChaCha20-Poly1305 (IETF) with the frame as "
         "additional data, which it takes contiguous, so its time includes copying the two "
         "pieces into one buffer; `blake2b128_sodium`, libsodium's keyed BLAKE2b-128, one "
         "update per piece; `chacha20poly1305_openssl`, ChaCha20-Poly1305 through OpenSSL's "
         "EVP as `data_gcm` does it. `hello_mac` is the keyed BLAKE2b tag of a hello (538 "
         "bytes: a hello listing 17 paths; 1514: a full-size probe), per hello sent and "
         "received; `hmac512_256` is HMAC-SHA-512-256 over the same bytes, the alternative "
         "sb_auth.h names, not used. \"AES-NI masked\" is the same binary with OpenSSL's "
         "AES-NI and PCLMULQDQ code masked (`bench_auth --software-aes`: "
         "`OPENSSL_ia32cap=~0x200000200000000:~0`), what a CPU without them pays; only the "
         "lines through OpenSSL are run so (libsodium does not use AES-NI here). Each run "
         "times a batch of calls back to back, about 0.5 ms; the median run; frames/s = "
         "1e9 / ns, one core doing nothing else.\n"]
    if not auth:
        return L + cx.not_run("micro_auth.csv") + cx.notes("auth")
    a0 = auth[0]
    L += ["This CPU (/proc/cpuinfo): AES-NI %s, PCLMULQDQ %s; median of %s runs.\n" % (
        a0.get("cpu_aesni", "?"), a0.get("cpu_pclmulqdq", "?"), a0["runs"])]
    L += ["| operation | bytes | ns per frame | frames/s (millions) | ns per frame, AES-NI "
          "masked | frames/s (millions), AES-NI masked |", "|---|---|---|---|---|---|"]
    ops = ("data_gcm", "data_verify", "chacha20poly1305_sodium", "blake2b128_sodium",
           "chacha20poly1305_openssl", "hello_mac", "hmac512_256")
    rows, masked = {}, {}
    for a in auth:
        (masked if a["aesni_masked"] == "yes" else rows)[(a["op"], int(a["bytes"]))] = a
    for key in sorted(rows, key=lambda k: (ops.index(k[0]) if k[0] in ops else len(ops), k[1])):
        a, m = rows[key], masked.get(key)
        L.append("| %s | %d | %s | %s | %s | %s |" % (
            key[0], key[1], fmt(float(a["ns_per_frame"])),
            fmt(float(a["frames_per_s"]) / 1e6, 3),
            fmt(float(m["ns_per_frame"])) if m else "-",
            fmt(float(m["frames_per_s"]) / 1e6, 3) if m else "-"))
    L.append("")
    return L + cx.notes("auth")


def cpu_per_gb(r):
    """Machine CPU seconds (busy, /proc/stat) per GB the receiver got, for one CSV row."""
    gb = float(r["goodput_mbit"]) * float(r["seconds"]) / 8000
    busy = r.get("cpu_busy_s")
    return float(busy) / gb if busy not in (None, "") and gb > 0 else float("nan")


def ceiling_section(ceil, cx):
    """Markdown lines for bench/run's ceiling: unshaped links, the CPU is the limit."""
    L = ["## CPU-bound ceiling: unshaped links\n"] + cx.made_by("ceiling", ["ceiling.csv"])
    if not ceil:
        return L + cx.not_run("ceiling.csv") + cx.notes("ceiling")
    L += ["4 veth links shaped at 10 Gbit/s (no real limit: the 2 CPUs are), one TCP stream "
          "A->B, veth GRO/GSO/TSO off for every system. `link` is "
          "plain TCP over one of the links; `seqbond-edpf-xdp` is seqbond with af_xdp member "
          "ports (native XDP on the veths, copy mode) instead of af_packet. CPU s/GB = the "
          "machine's busy CPU seconds (/proc/stat: user, system, irq, softirq) during the stream "
          "per GB received; on a shared machine an upper bound.\n",
          "| system | links | goodput Mbit/s | / MPTCP | / one link | CPU s/GB | CPU own s | "
          "retransmits | RTO | runs |", "|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in ceil:
        groups.setdefault(r["system"], []).append(r)
    g = {k: med(r["goodput_mbit"] for r in rs) for k, rs in groups.items()}
    first = ("seqbond-edpf", "seqbond-edpf-xdp", "mptcp", "link")
    order = [x for x in first if x in groups] + sorted(x for x in groups if x not in first)
    for k in order:
        rs = groups[k]
        L.append("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %d |" % (
            k, rs[0]["links"], g[k], fmt(g[k] / g["mptcp"], 2) if g.get("mptcp") else "n/a",
            fmt(g[k] / g["link"], 2) if g.get("link") else "n/a",
            fmt(med(cpu_per_gb(r) for r in rs), 2), fmt(med(r["cpu_system_s"] for r in rs)),
            fmt(med(r["retransmits"] for r in rs), 0), fmt(med(r["tcp_timeouts"] for r in rs), 0),
            len(rs)))
    L.append("")
    return L + cx.notes("ceiling")


def dp_cores(r):
    """CPU seconds of the busier host's datapath lcores per second of stream, for one CSV
    row: the share of a core they were busy."""
    t = float(r["seconds"])
    return float(r.get("cpu_dp_busiest_s") or "nan") / t if t > 0 else float("nan")


def gbit_per_dp_core(r):
    """Goodput per second of datapath CPU (the busier host's), Gbit/s, for one CSV row."""
    c = dp_cores(r)
    return float(r["goodput_mbit"]) / 1000 / c if c > 0 else float("nan")


def capacity_section(cap, cx, floor=(), prof=(), img=None):
    """Markdown lines for bench/run's capacity: memif member ports, the CPU is the limit;
    @floor: rows of capacity-floor.csv (bench/memif_floor.sh), DPDK alone on the same links;
    @prof: rows of capacity-profile.csv (macro.sh profile); @img: where the plot goes."""
    L = ["## Capacity: what one datapath core carries (memif ports)\n"] + cx.made_by(
        "capacity", ["capacity.csv"])
    if not cap:
        return L + cx.not_run("capacity.csv") + cx.notes("capacity")
    L += ["Two hosts linked by DPDK memif pairs (`seqbond-testbed up --port-type memif --huge`: "
          "hugepages, as on a host): no "
          "kernel between the two seqbond processes, no rate limit, one iperf3 TCP stream "
          "through `sb0` (tap-vnet), A->B or both ways at once. `dp cores` = CPU seconds of "
          "the busier host's datapath lcores (its rte-worker threads, /proc) per second of "
          "stream; `Gbit/s per dp core` = goodput (both directions for `bidir`, which each "
          "host carries) / `dp cores`, goodput per second of datapath CPU (an extrapolation "
          "to a lcore busy all the time); `dp lcores` = datapath lcores per host; `x 1 lcore` = goodput "
          "against the same row with one lcore; `CPU s/GB` = the machine's busy CPU seconds "
          "per GB received (iperf3, both kernels and the exception path included). The "
          "datapath lcore is busy less than a whole core because it sleeps when it finds "
          "nothing to do (docs/design.md, \"Sleeping when idle\"): the limit is then the "
          "rest of the machine, two kernels and iperf3 on the same 2 CPUs. Each lcore's CPU "
          "includes the system calls it makes into the TUN device, where the kernel copies "
          "every frame. Medians over the runs.\n",
          "| links | MTU | direction | dp lcores | goodput Mbit/s | dp cores | Gbit/s per dp "
          "core | x 1 lcore | CPU s/GB | retransmits | runs |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in cap:
        groups.setdefault((len(r["links"].split(",")), int(r["mtu"]), r["direction"],
                           int(r.get("dp_lcores") or 1)), []).append(r)

    per_core = {k: med(gbit_per_dp_core(r) for r in rs) for k, rs in groups.items()}
    good = {k: med(r["goodput_mbit"] for r in rs) for k, rs in groups.items()}
    for k in sorted(groups):
        rs = groups[k]
        one = good.get(k[:3] + (1,))
        L.append("| %d | %d | %s | %d | %.1f | %s | %s | %s | %s | %s | %d |" % (
            k[0], k[1], k[2], k[3], good[k], fmt(med(dp_cores(r) for r in rs), 2),
            fmt(per_core[k], 2), fmt(good[k] / one, 2) if one and k[3] != 1 else "",
            fmt(med(cpu_per_gb(r) for r in rs), 2), fmt(med(r["retransmits"] for r in rs), 0),
            len(rs)))
    L.append("")
    if floor:
        fl = {}
        for r in floor:
            fl.setdefault((int(r["links"]), int(r["mtu"])), []).append(r)
        L += ["DPDK alone on the same memif pairs, the floor under seqbond's figures "
              "(`bench/memif_floor.sh`): dpdk-testpmd sending full-size frames in txonly mode "
              "to another in rxonly mode, one forwarding lcore each on its own CPU; no TCP, no "
              "exception path, no seqbond. Medians over the runs. It moves between runs by a "
              "factor of six (3 to 21 M frames/s at MTU 1500; the notes): read it as \"memif "
              "itself is far from the limit\", not as a figure to divide by.\n",
              "| links | MTU | frames/s | Mbit/s (frames) | runs |", "|---|---|---|---|---|"]
        for k in sorted(fl):
            rs = fl[k]
            L.append("| %d | %d | %s | %s | %d |" % (
                k[0], k[1], fmt(med(r["frames_per_s"] for r in rs), 0),
                fmt(med(r["mbit_s"] for r in rs), 1), len(rs)))
        L.append("")
    if prof:
        L += profile_lines(prof)
    if img is not None:
        plot = capacity_plot(groups, per_core, img)
        if plot:
            L += ["![Gbit/s per datapath core](img/%s)\n" % plot]
    return L + cx.notes("capacity")


def profile_lines(prof):
    """The capacity profile as a table: per stage, each host's share of its datapath lcore's
    samples and ns per MTU-sized frame (medians over the runs)."""
    runs = {}
    for r in prof:
        runs.setdefault((r["host"], r["stage"]), []).append(r)
    first = prof[0]
    n_runs = len({(r["host"], r["dp_cpu_s"], r["frames"]) for r in prof if r["host"] == "a"})
    fps = med(float(r["frames"]) / float(r["seconds"]) for r in prof if r["host"] == "b")
    L = ["Where a frame's time goes (`bench/macro.sh profile`): `perf record -g` on both "
         "seqbond processes during one A->B stream over %d memif links, MTU %s, one datapath "
         "lcore (%.0f frames/s of MTU size). Each sample of a datapath lcore is put in the "
         "stage of the system call on its kernel stack or of the function or library it "
         "stopped in (bench/benchlib.py, PROF_USER). Samples are CPU time: `waiting` is what "
         "going to sleep and waking costs, not time asleep. `ns/frame` = share x the host's "
         "datapath CPU seconds / frames. `hypervisor` = the part of the stage spent in this "
         "VM's `pvm_*` functions, which a host on bare metal does not pay. Each cell is the "
         "median of that cell over %d run%s, so a column need not add up to 100 %%; `all` is "
         "the sum of the column's cells. Not in `--quick`.\n"
         % (len(first["links"].split(",")), first["mtu"], fps, n_runs, "s" if n_runs > 1 else ""),
         "| stage | a (sender) share | a ns/frame | b (receiver) share | b ns/frame | "
         "hypervisor a / b |", "|---|---|---|---|---|---|"]

    def col(host, stage, key):
        rs = runs.get((host, stage), [])
        return med(float(r[key]) for r in rs) if rs else 0.0
    stages = sorted({r["stage"] for r in prof},
                    key=lambda st: -(col("a", st, "share") + col("b", st, "share")))
    tot = {"a": 0.0, "b": 0.0}
    for st in stages:
        for h in tot:
            tot[h] += col(h, st, "ns_per_frame")
        L.append("| %s | %.1f %% | %.0f | %.1f %% | %.0f | %.0f %% / %.0f %% |" % (
            st, 100 * col("a", st, "share"), col("a", st, "ns_per_frame"),
            100 * col("b", st, "share"), col("b", st, "ns_per_frame"),
            100 * col("a", st, "hypervisor_share"), 100 * col("b", st, "hypervisor_share")))
    L += ["| all | | %.0f | | %.0f | |" % (tot["a"], tot["b"]), ""]
    return L


def capacity_plot(groups, per_core, img):
    """Bar chart of Gbit/s per datapath core by links, one bar per (MTU, direction, lcores);
    @return the file name in @img, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    os.makedirs(img, exist_ok=True)
    links = sorted({k[0] for k in groups})
    kinds = sorted({k[1:] for k in groups})
    fig, ax = plt.subplots(figsize=(8, 4))
    w = 0.8 / max(len(kinds), 1)
    for j, kind in enumerate(kinds):
        ys = [per_core.get((n,) + kind, float("nan")) for n in links]
        ax.bar([i + j * w for i in range(len(links))], ys, w,
               label="MTU %d, %s, %d lcore%s" % (kind[0], kind[1], kind[2],
                                                  "s" if kind[2] > 1 else ""))
    ax.axhline(10, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([i + 0.4 - w / 2 for i in range(len(links))])
    ax.set_xticklabels(["%d memif links" % n for n in links])
    ax.set_ylabel("Gbit/s per datapath core")
    ax.set_title("seqbond capacity (goal: 10 Gbit/s per core, dashed)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    name = "bench-capacity.png"
    fig.savefig(os.path.join(img, name), dpi=90)
    plt.close(fig)
    return name


# issue 43's goals for the key, with / without: one stream on 4 x 100 Mbit/s (goodput) and
# capacity on memif, one datapath lcore (Gbit/s per datapath core)
KEY_GOAL_STREAM, KEY_GOAL_CAPACITY = 0.99, 0.85


def key_section(key, per_rate, auth, cx):
    """Markdown lines for bench/run's key set (key.csv): seqbond with the cluster key and
    without (systems ending in -nokey), runs alternating, one table per workload; and what
    the DATA tag costs per frame, from bench_auth's data_gcm and data_verify lines
    (micro_auth.csv, as auth_section reads it)."""
    L = ["## Cluster key: cost\n"] + cx.made_by(
        "key", ["key.csv"], tail="; the stream's limit from `%s` as the macro set's, the "
        "tag's cost per frame from `%s`" % (cx.res("baseline.csv"), cx.res("micro_auth.csv")))
    if not key:
        return L + cx.not_run("key.csv") + key_tag_cost(auth) + cx.notes("key")
    L += ["seqbond with the cluster key (the testbed's default: each DATA frame carries a "
          "16-byte AES-256-GCM tag over the whole frame) against the same system without "
          "it (`seqbond-testbed up --no-key`; systems ending in `-nokey` in the CSV), one "
          "run with and one without in turn in each of %d repetitions (with, without, with, "
          "...), so that the machine's drift hits both. Each table gives the medians over "
          "the runs, the ratio of the medians (with / without), the ratio of the two runs of "
          "each repetition, and issue 43's goal for the ratio. The key also takes bytes of "
          "every frame: `TCP payload per frame` is the sender's MSS (iperf3), sb0's MTU less "
          "52 bytes of IP and TCP headers; where the links are the limit, its ratio bounds "
          "the goodput's. The capacity rows are the capacity set's (4 memif links, "
          "tap-vnet, hugepages, one datapath lcore, A->B): `dp cores` = CPU seconds of the "
          "busier host's datapath lcore per second of stream, `Gbit/s per dp core` = "
          "goodput / `dp cores`.\n" % max(int(r["rep"]) for r in key)]
    # (system without -nokey, links, MTU, direction) -> ({rep: rows} with, {rep: rows} without)
    groups = {}
    for r in key:
        nokey = r["system"].endswith("-nokey")
        base = r["system"][:-len("-nokey")] if nokey else r["system"]
        sides = groups.setdefault((base, r["links"], r["mtu"], r["direction"]), ({}, {}))
        sides[nokey].setdefault(int(r["rep"]), []).append(r)
    for k in sorted(groups, key=lambda k: ("-memif" in k[0], int(k[2]), k)):
        L += key_table(k, groups[k], per_rate)
    return L + key_tag_cost(auth) + cx.notes("key")


def key_table(k, sides, per_rate):
    """One workload of the key set: @k = (system, links, MTU, direction), @sides = the runs
    with the key and without, each {rep: rows}."""
    base, links, mtu, direction = k
    runs = [[r for _, rs in sorted(side.items()) for r in rs] for side in sides]
    memif = "-memif" in base
    if memif:
        lc = int((runs[0] or runs[1])[0].get("dp_lcores") or 1)
        title = "Capacity: %d memif links, MTU %s, %s, %d datapath lcore%s" % (
            len(links.split(",")), mtu, "A->B" if direction == "ab" else "both ways", lc,
            "s" if lc > 1 else "")
    else:
        title = "One stream: %s Mbit/s, MTU %s, %s" % (
            label(links), mtu, "A->B" if direction == "ab" else "both ways")
    lim = goodput_limit(per_rate, links, mtu, direction)
    # (row, value of one CSV row, decimals, goal for the ratio or None, ratios shown)
    if memif:
        rows = [("Gbit/s per dp core", gbit_per_dp_core, 2, KEY_GOAL_CAPACITY, True),
                ("goodput Mbit/s", lambda r: float(r["goodput_mbit"]), 1, None, True),
                ("dp cores", dp_cores, 2, None, True)]
    else:
        rows = [("goodput Mbit/s", lambda r: float(r["goodput_mbit"]), 1, KEY_GOAL_STREAM,
                 True),
                ("%% of the limit (%s Mbit/s)" % fmt(lim),
                 lambda r: 100 * float(r["goodput_mbit"]) / lim, 1, None, False)]
    rows += [("TCP payload per frame, bytes",
              lambda r: float(r.get("mss") or "nan"), 0, None, True),
             ("retransmits", lambda r: float(r["retransmits"]), 0, None, False)]
    L = ["### %s\n" % title,
         "| %s | with the key | without | with / without | each repetition | goal | met |" %
         base, "|---|---|---|---|---|---|---|"]
    def over(a, b):
        return a / b if b == b and b else float("nan")
    for name, f, nd, goal, ratios in rows:
        a, b = (med(f(r) for r in rs) for rs in runs)
        ratio = over(a, b)
        each = [over(med(f(r) for r in sides[0][n]), med(f(r) for r in sides[1][n]))
                for n in sorted(set(sides[0]) & set(sides[1]))]
        met = ""
        if goal:
            met = "n/a" if ratio != ratio else "yes" if ratio >= goal else "**no**"
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt(a, nd), fmt(b, nd), fmt(ratio, 3) if ratios else "",
            ", ".join(fmt(x, 3) for x in each) if ratios else "",
            ">= %.2f" % goal if goal else "", met))
    L += ["| runs | %d | %d | | | | |" % tuple(len(rs) for rs in runs), ""]
    return L


def key_tag_cost(auth):
    """One sentence: what the DATA tag costs per frame on one core, from micro_auth.csv's
    data_gcm and data_verify lines (AES-NI as the CPU has it, not masked)."""
    ns = {}
    for a in auth:
        if a.get("aesni_masked", "no") == "no" and a.get("op") in ("data_gcm", "data_verify") \
                and a.get("ns_per_frame"):
            ns[(a["op"], int(a["bytes"]))] = float(a["ns_per_frame"])
    sizes = [n for n in (1500, 9000, 64) if ("data_gcm", n) in ns and ("data_verify", n) in ns]
    if not sizes:
        return ["The tag's cost per frame: no `data_gcm` and `data_verify` lines in "
                "micro_auth.csv yet (`bench/run --only micro`).\n"]
    return ["What the tag costs per frame on one core (`bench_auth`, \"Micro: authentication "
            "tags\", AES-NI %s): making it (`data_gcm`) %s ns, checking it (`data_verify`) "
            "%s ns, for frames of %s bytes; on an A->B stream the sender makes one for each "
            "data frame and checks one for each ACK, the receiver checks one for each data "
            "frame and makes one for each ACK.\n" % (
                auth[0].get("cpu_aesni", "?"), " / ".join(fmt(ns[("data_gcm", n)]) for n in sizes),
                " / ".join(fmt(ns[("data_verify", n)]) for n in sizes),
                " / ".join(str(n) for n in sizes))]


LAT_SYSTEMS = ("link", "seqbond-shared", "seqbond-dedicated", "seqbond-tap", "mptcp")
LAT_PCTS = (("p25", 25), ("p50", 50), ("p75", 75), ("p90", 90), ("p99", 99), ("p999", 99.9))


def latency_section(lat, img, cx):
    """Markdown lines for bench/run's latency rows (bench/latency.sh): medians over rounds of
    each percentile, against the plain link's, and a CDF plot of the idle UDP round trips."""
    L = ["## Latency: request/response round trips\n"] + cx.made_by(
        "latency", ["latency.csv"], " (bench/latency.sh)")
    if not lat:
        return L + cx.not_run("latency.csv") + cx.notes("latency")
    groups = {}
    for r in lat:
        groups.setdefault((r["system"], r["proto"], r["load"]), []).append(r)
    m = {k: {p: med(r[p] for r in rs) for p, _ in LAT_PCTS + (("max", 100),)}
         for k, rs in groups.items()}
    rounds = max(int(r["round"]) for r in lat)
    L += ["sockperf ping-pong, 64-byte messages at 1000 a second, round trip in microseconds, "
          "on 4 x 100 Mbit/s: seqbond's "
          "defaults (`seqbond-shared`: tap-vnet, lcores that sleep until traffic wakes them), "
          "`lcore_mode = dedicated` (busy polling), the TAP PMD exception path, and MPTCP on "
          "the same links (TCP only); `link` is one plain link of the same rate measured in "
          "the same rounds. `bulk`: beside one iperf3 TCP stream in the requests' direction. "
          "Medians over %d rounds; `+p50` and `x p99` compare with the plain link's.\n" % rounds,
          "| system | proto | load | p50 | p90 | p99 | p99.9 | +p50 | x p99 | runs |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for proto in ("udp", "tcp"):
        for load in ("idle", "bulk"):
            base = m.get(("link", proto, load))
            for sysname in LAT_SYSTEMS:
                k = (sysname, proto, load)
                if k not in m:
                    continue
                v = m[k]
                L.append("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %d |" % (
                    sysname, proto, load, v["p50"], v["p90"], v["p99"], v["p999"],
                    "%+.0f" % (v["p50"] - base["p50"]) if base and sysname != "link" else "",
                    "%.2f" % (v["p99"] / base["p99"]) if base and sysname != "link" else "",
                    len(groups[k])))
    L.append("")
    plot = latency_plot(m, img)
    if plot:
        L += ["![round trip CDF](img/%s)\n" % plot]
    return L + cx.notes("latency")


def latency_plot(m, img):
    """CDF of the idle UDP round trips from each system's median percentiles."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    os.makedirs(img, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for sysname in LAT_SYSTEMS:
        for proto in ("udp", "tcp"):
            v = m.get((sysname, proto, "idle"))
            if v is None or (proto == "tcp" and sysname != "mptcp"):
                continue
            ax.plot([v[p] for p, _ in LAT_PCTS], [q for _, q in LAT_PCTS], marker="o",
                    label="%s (%s)" % (sysname, proto))
    ax.set_xscale("log")
    ax.set_xlabel("round trip, us (log)")
    ax.set_ylabel("percentile")
    ax.set_title("Idle round trips, 4 x 100 Mbit/s, 1000 messages/s")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    name = "bench-latency-cdf.png"
    fig.tight_layout()
    fig.savefig(os.path.join(img, name), dpi=90)
    plt.close(fig)
    return name


# The WAN set's per-link loss (bench/run WAN_SHAPE): part of its limit.
WAN_LOSS = {"50,20,5": (0.0, 0.0, 0.01)}


def wan_section(wan, per_rate, cx):
    """Markdown lines for bench/run's WAN set: each system's median goodput against the
    limit (sum of rate x (1 - loss), scaled by one 100 Mbit/s link's single-stream
    efficiency)."""
    L = ["## WAN-like links: adaptive striping against MPTCP\n"] + cx.made_by(
        "wan", ["wan.csv"], tail="; the limit uses `%s`" % cx.res("baseline.csv"))
    if not wan:
        return L + cx.not_run("wan.csv") + cx.notes("wan")
    L += ["Three links of different rate, delay and loss: 50 Mbit/s "
          "with 20 ms, 20 Mbit/s with 40 ms, 5 Mbit/s with 60 ms and 1 % loss (one-way delays "
          "and loss in each direction, the testbed's delay line `tools/linkemu`), one TCP stream "
          "A->B, with the machine's default congestion control and with CUBIC. Limit = the sum "
          "of rate x (1 - loss) x one 100 Mbit/s link's goodput / 100.\n",
          "| system | links | congestion control | goodput Mbit/s | limit | % of limit | "
          "retransmits | OFO | SACK/TS reorder | RTO | runs |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    eff = per_rate.get(("100", "1500"))
    groups = {}
    for r in wan:
        groups.setdefault((r["system"], r["links"], r.get("cc") or "?"), []).append(r)
    for (sysname, links, cc), rs in sorted(groups.items(), key=lambda kv: (kv[0][2], kv[0][0])):
        g = med(r["goodput_mbit"] for r in rs)
        rates = [float(x) for x in links.split(",")]
        loss = WAN_LOSS.get(links, (0.0,) * len(rates))
        lim = sum(r * (1 - l) for r, l in zip(rates, loss)) * eff / 100 if eff else float("nan")
        L.append("| %s | %s | %s | %.1f | %.1f | %.1f %% | %s | %s | %s/%s | %s | %d |" % (
            sysname, links, cc, g, lim, 100 * g / lim if lim == lim and lim else float("nan"),
            fmt(med(r["retransmits"] for r in rs), 0), fmt(med(r["ofo_queue"] for r in rs), 0),
            fmt(med(r["sack_reorder"] for r in rs), 0), fmt(med(r["ts_reorder"] for r in rs), 0),
            fmt(med(r["tcp_timeouts"] for r in rs), 0), len(rs)))
    L.append("")
    return L + cx.notes("wan")


def make_plots(summary, fail, rdir, img):
    out = []
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: python3-matplotlib missing: no plots", file=sys.stderr)
        return out
    os.makedirs(img, exist_ok=True)
    for mtu, direction in sorted({(s["mtu"], s["direction"]) for s in summary}):
        sel = [s for s in summary if s["mtu"] == mtu and s["direction"] == direction]
        sets = linksets(sel)
        if not sets:
            continue
        systems = [x for x in SYSTEMS if any(s["system"] == x for s in sel)]
        # top: goodput against the limit; bottom: the same as % of the limit, zoomed so that
        # differences of a few points show
        fig, (ax, bx) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                     gridspec_kw={"height_ratios": [3, 2]})
        width = 0.8 / (len(systems) + 1)
        pcts = []
        for i, sysname in enumerate(systems + ["limit"]):
            ys, ps = [], []
            for ls in sets:
                if sysname == "limit":
                    v = [s["limit"] for s in sel if s["links"] == ls]
                    p = [100.0] if v else []
                else:
                    m = [s for s in sel if s["links"] == ls and s["system"] == sysname]
                    v = [s["goodput"] for s in m]
                    p = [s["pct"] for s in m]
                ys.append(v[0] if v else 0)
                ps.append(p[0] if p else float("nan"))
            xs = [j + i * width for j in range(len(sets))]
            color = "0.75" if sysname == "limit" else None
            ax.bar(xs, ys, width, label=sysname, color=color)
            if sysname != "limit":
                bx.bar(xs, ps, width, color=color)
                pcts += [q for q in ps if q == q]
        bx.axhline(100, color="0.5", lw=0.8, ls="--")
        lo = min(pcts) if pcts else 0
        bx.set_ylim(max(0, 10 * int((lo - 5) // 10)), 102)
        bx.set_ylabel("% of the limit")
        bx.set_xticks([j + 0.4 - width / 2 for j in range(len(sets))])
        bx.set_xticklabels([label(ls) + " Mbit/s" for ls in sets])
        ax.set_ylabel("goodput, Mbit/s (median)")
        ax.set_title("one TCP stream, MTU %s, %s" % (mtu, "A->B" if direction == "ab"
                                                      else "both ways at once (sum)"))
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(axis="y", lw=0.3)
        bx.grid(axis="y", lw=0.3)
        fig.tight_layout()
        name = "bench-goodput-mtu%s-%s.png" % (mtu, direction)
        fig.savefig(os.path.join(img, name), dpi=90)
        plt.close(fig)
        out.append(name)
    series = []
    for f in fail:
        p = os.path.join(rdir, "failover-%s.json" % f["system"])
        if os.path.exists(p):
            series.append((f, intervals(json.load(open(p)))))
    if series:
        fig, ax = plt.subplots(figsize=(9, 4))
        for f, iv in series:
            ax.plot([t for t, _ in iv], [g for _, g in iv], label=f["system"], lw=1.2)
        f0 = series[0][0]
        ax.axvline(float(f0["t_down"]), color="k", ls="--", lw=0.8)
        ax.axvline(float(f0["t_up"]), color="k", ls=":", lw=0.8)
        ax.set_xlabel("s (link 1 of 4 down at the dashed line, up at the dotted one)")
        ax.set_ylabel("goodput per 100 ms at the receiver, Mbit/s")
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", lw=0.3)
        ax.set_title("failover on 4 x 100 Mbit/s, one TCP stream")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(img, "bench-failover.png"), dpi=90)
        plt.close(fig)
        out.append("bench-failover.png")
    return out


def fmt(v, nd=1):
    if isinstance(v, float) and v != v:
        return "n/a"
    return ("%%.%df" % nd) % v


def write_doc(cx, summary, per_rate, fail, micro, dpr, cg, plots, wan_lines=(),
              scale_lines=(), auth_lines=()):
    doc, quick = cx.doc, cx.quick
    L = []
    L.append("# Benchmarks\n")
    L.append("Generated by `bench/run%s` from the CSV and JSON files in `%s/` (`bench/run "
             "--report%s` rewrites it from them and measures nothing): one section per "
             "workload, each naming the command that makes its results. The text around the "
             "numbers is in `bench/benchlib.py`; notes written by hand about the runs are in "
             "`bench/results/notes/`, linked from their sections. %s\n" % (
                 " --quick" if quick else "", cx.res("."), " --quick" if quick else "",
                 "**This is a --quick run (one link set, 3 s, one repetition): a harness check, "
                 "not a measurement.**" if quick else
                 "Medians of the repetitions; absolute numbers drift on this shared 2-core "
                 "machine, ratios measured in one run hold."))
    L.append("## Macro: one TCP stream over emulated links\n")
    L.extend(cx.made_by("macro", ["baseline.csv", "macro.csv"],
                        tail="; the report writes the medians to `%s`" % cx.res("summary.csv")))
    L.append("Two network namespaces, veth links shaped with tbf by `tools/seqbond-testbed` "
             "(every system runs on the same links), one iperf3 TCP stream. The limit is the "
             "sum over the links of one link's single-stream goodput (`seqbond-testbed "
             "baseline`, per rate); for both directions at once it is twice that (the links "
             "are full duplex; not measured separately). OFO = receiver TcpExtTCPOFOQueue; "
             "SACK/TS reorder = TcpExtTCPSACKReorder/TCPTSReorder at the sender(s); RTO = "
             "TcpExtTCPTimeouts. CPU own = seconds of the system's processes (seqbond or both "
             "testpmd, from /proc/PID/stat; MPTCP has none); CPU kernel = machine-wide "
             "system+irq+softirq seconds in /proc/stat during the run (iperf3, veth, tbf and "
             "MPTCP itself: the only place MPTCP's cost shows; shared machine, so an upper "
             "bound).\n")
    if per_rate:
        L.append("One link alone (median Mbit/s): " + ", ".join(
            "%s Mbit/s mtu %s: %.1f" % (r, m, v) for (r, m), v in sorted(
                per_rate.items(), key=lambda kv: (int(kv[0][1]), -int(kv[0][0])))) + "\n")
    if not summary:
        L.extend(cx.not_run("macro.csv"))
    L.append("DPDK net_bonding in 802.3ad mode (`--systems bond-8023ad`) is wired up but not in "
             "the default list: between two testpmd instances over af_packet members LACP never "
             "let a ping through within 60 s here.\n")
    for mtu, direction in sorted({(s["mtu"], s["direction"]) for s in summary}):
        L.append("### MTU %s, %s\n" % (mtu, "A->B" if direction == "ab" else
                                       "both directions at once (iperf3 --bidir, sum)"))
        L.append("| links (Mbit/s) | system | goodput Mbit/s | % of limit | limit | retrans | "
                 "OFO | SACK/TS reorder | RTO | MPTCP joins | CPU own s | CPU kernel s | runs |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for ls in linksets(summary):
            for sysname in SYSTEMS:
                for s in summary:
                    if (s["links"], s["system"], s["mtu"], s["direction"]) != \
                            (ls, sysname, mtu, direction):
                        continue
                    L.append("| %s | %s | %s | **%s %%** | %s | %s | %s | %s/%s | %s | %s | %s |"
                             " %s | %d |" % (
                                 label(ls), sysname, fmt(s["goodput"]), fmt(s["pct"]),
                                 fmt(s["limit"]), fmt(s["retr"], 0), fmt(s["ofo"], 0),
                                 fmt(s["sack"], 0), fmt(s["ts"], 0), fmt(s["timeouts"], 0),
                                 fmt(s["joins"], 0) if sysname == "mptcp" else "-",
                                 fmt(s["cpu_own"]), fmt(s["cpu_kern"]), s["reps"]))
        L.append("")
    L.extend(comparison(summary))
    for p in plots:
        if p.startswith("bench-goodput"):
            L.append("![%s](img/%s)\n" % (p[:-4], p))
    if not quick:
        L.extend(grid_missing(summary))
    L.extend(cx.notes("macro"))
    L.extend(wan_lines)
    L.append("## Failover\n")
    L.extend(cx.made_by("failover", ["failover.csv"], tail=", with iperf3's intervals for "
                        "the plot in `%s`" % cx.res("failover-SYSTEM.json")))
    L.append("4 x 100 Mbit/s, MTU 1500, one stream, iperf3 at 100 ms intervals; host A's "
             "port 1 loses carrier (`seqbond-testbed link a 1 down`) about 3 s after the client "
             "starts and gets it back 3 s later (times measured from the client's launch, so "
             "the connection set-up, a few ms, is included). Recovery = from the cut to the start "
             "of the first of 5 consecutive 100 ms intervals that each carry >= 90 % of 3/4 of "
             "the goodput before the cut (receiver-side intervals, from the server's JSON). "
             "Retransmitted segments and RTOs are the sender's (A's) TcpRetransSegs and "
             "TcpExtTCPTimeouts over the whole run: the frames lost to the cut as TCP saw them.\n")
    if not fail:
        L.extend(cx.not_run("failover.csv"))
    if fail:
        L.append("| system | before Mbit/s | lowest 100 ms while down | recovery s | "
                 "retransmitted segments | RTO | mean goodput Mbit/s |")
        L.append("|---|---|---|---|---|---|---|")
        for f in fail:
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                f["system"], f["pre_mbit"], f["min_after_down_mbit"],
                "not within the 3 s down" if f["recover_s"] == "none" else f["recover_s"],
                f["retrans_segs"], f["tcp_timeouts"], f["goodput_mbit"]))
        L.append("")
    if "bench-failover.png" in plots:
        L.append("![failover](img/bench-failover.png)\n")
    if not quick and fail:
        L.extend(failover_missing(fail))
    L.extend(cx.notes("failover", "macro"))
    L.append("## Micro: reorder window\n")
    L.extend(cx.made_by("micro", ["micro_reorder.csv", "callgrind.csv"], " (bench/micro.sh)"))
    L.append("`bench/bench_reorder`: seqbond's window (lib/reorder) and DPDK 22.11's rte_reorder "
             "on the same deterministic traces (4 FIFO paths whose delays wander so frames are "
             "displaced by up to D positions; 1 % loss), window 1024, a drain after every 32 "
             "arrivals; both checked to release every frame that was not lost, once and in "
             "order. seqbond marks the 4 paths active, so the RFC 1990 rule skips losses; "
             "rte_reorder has no such rule nor a timeout and skips a gap only when a frame a "
             "whole window ahead arrives. Median of the runs; clock cycles include the harness's "
             "bookkeeping (the same for both).\n")
    L.append("Two defects of DPDK 22.11's rte_reorder showed up while building this check, and "
             "the harness steps around both: `rte_reorder_free()`/`reset()` free every pointer "
             "left in the ready queue, including frames `drain()` already returned (fixed "
             "upstream after 22.11: \"reorder: invalidate buffer from ready queue in drain\"); "
             "and when the ready queue fills in the middle of a window slide one frame is "
             "overwritten and lost (still so upstream). So the harness never frees an "
             "rte_reorder buffer and drains before every flushing insert.\n")
    if not micro:
        L.extend(cx.not_run("micro_reorder.csv"))
    if micro:
        L.append("| trace | frames | lost | sb_reorder cycles/frame | rte_reorder cycles/frame | "
                 "sb / rte | sb Mpps | rte Mpps |")
        L.append("|---|---|---|---|---|---|---|---|")
        tr = {}
        for m in micro:
            tr.setdefault(m["trace"], {})[m["engine"]] = m
        for t, e in tr.items():
            sb, rt = e.get("sb_reorder"), e.get("rte_reorder")
            if not sb or not rt:
                continue
            L.append("| %s | %s | %s | %s | %s | %.2f | %s | %s |" % (
                t, sb["frames"], sb["lost"], sb["cycles_per_frame"], rt["cycles_per_frame"],
                float(sb["cycles_per_frame"]) / float(rt["cycles_per_frame"]), sb["mpps"],
                rt["mpps"]))
        L.append("")
    if cg:
        L.append("Instructions per frame under `valgrind --tool=callgrind` (only the timed loop "
                 "collected; does not drift with machine load):\n")
        L.append("| trace | sb_reorder Ir/frame | rte_reorder Ir/frame | sb / rte |")
        L.append("|---|---|---|---|")
        tr = {}
        for c in cg:
            tr.setdefault(c["trace"], {})[c["engine"]] = float(c["ir_per_frame"])
        for t, e in tr.items():
            if "sb_reorder" in e and "rte_reorder" in e:
                L.append("| %s | %.1f | %.1f | %.2f |" % (t, e["sb_reorder"], e["rte_reorder"],
                                                         e["sb_reorder"] / e["rte_reorder"]))
        L.append("")
    L.extend(cx.notes("reorder"))
    L.extend(auth_lines)
    L.append("## Micro: whole datapath vs testpmd io forwarding\n")
    L.extend(cx.made_by("micro", ["micro_dp.csv"], " (bench/micro.sh)"))
    L.append("`bench/bench_dp` links the application's datapath files into a harness that runs "
             "two hosts back to back on ring ports (4 links) in one thread: a fixed set of "
             "frames circulates exception(A) -> shim -> stripe -> ports -> reorder -> "
             "exception(B) and back to A's exception ring, each checked for order. Each frame "
             "passes two forwarding stages (A's and B's), so ns/stage = ns/frame / 2. "
             "`dpdk-testpmd` io forwarding runs over two net_ring ports that loop back to "
             "themselves (`--tx-first`, 1 forwarding lcore); testpmd's io mode never touches "
             "packet data, which seqbond must (MAC lookup, shim, reorder), so the ratio is the "
             "price of that work over the bare ethdev burst calls.\n")
    if not dpr:
        L.extend(cx.not_run("micro_dp.csv"))
    if dpr:
        L.append("| frame bytes | seqbond ns/frame | seqbond ns/stage | seqbond Mpps (frames) | "
                 "testpmd io ns/packet | testpmd io Mpps | seqbond stage / testpmd io | "
                 "testpmd mac ns/packet | seqbond stage / testpmd mac |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        by = {}
        for d in dpr:
            by.setdefault(d["size"], {})[d["what"]] = d
        for size, e in sorted(by.items(), key=lambda kv: int(kv[0])):
            s, t, mac = e.get("seqbond_dp"), e.get("testpmd_io"), e.get("testpmd_mac")
            if not s or not t:
                continue
            L.append("| %s | %s | %s | %s | %s | %s | %.1f | %s | %s |" % (
                size, s["ns_per_frame"], s["ns_per_stage"], s["mpps"], t["ns_per_frame"],
                t["mpps"], float(s["ns_per_stage"]) / float(t["ns_per_frame"]),
                mac["ns_per_frame"] if mac else "n/a",
                "%.1f" % (float(s["ns_per_stage"]) / float(mac["ns_per_frame"])) if mac
                else "n/a"))
        L.append("")
    L.extend(cx.notes("datapath"))
    L.extend(scale_lines)
    L.append("## How to run\n")
    L.append("```\nmeson setup build && ninja -C build\nbench/run            # everything, "
             "as root (long: about 1 h 30 min with MTU 9000 and --bidir)\nbench/run --quick    "
             "# every piece once, cheaply (CI; < 3 min)\nbench/run --report   # this file and "
             "its plots again from bench/results/, measuring nothing (seconds)\n```\n")
    L.append("`bench/run --only macro|ceiling|capacity|key|wan|failover|latency|micro|cluster`, "
             "`--mtu "
             "1500`, `--dir ab` restrict a run; results accumulate per run in `bench/results/` "
             "(the previous run's files are replaced, or kept and added to with `--append`; "
             "`--systems`, `--links-sets` narrow it further), and every run ends by rewriting "
             "this file from all of them. Every throughput measurement holds `flock "
             "/tmp/seqbond-net.lock`. What a run showed beyond its table goes into "
             "`bench/results/notes/NAME.md` (NAME: macro, failover, ceiling, capacity, key, "
             "wan, latency, cluster, reorder, auth, datapath, scale), which the section links.\n")
    with open(doc, "w") as f:
        f.write("\n".join(L))


ANCHORS = ["bond-rr", "bond-xor", "bond-8023ad", "mptcp"]
FULL_GRID = [(m, d) for m in ("1500", "9000") for d in ("ab", "bidir")]


def comparison(summary):
    """Per link set: seqbond (default edpf, and its best mode) against the best anchor, as %
    of the goodput limit; then the largest gap either way."""
    L = []
    rows = []
    for mtu, direction in sorted({(s["mtu"], s["direction"]) for s in summary}):
        sel = [s for s in summary if s["mtu"] == mtu and s["direction"] == direction]
        for ls in linksets(sel):
            here = {s["system"]: s for s in sel if s["links"] == ls}
            anchors = [here[a] for a in ANCHORS if a in here]
            sbs = [here[x] for x in SYSTEMS if x.startswith("seqbond-") and x in here]
            if not anchors or not sbs:
                continue
            best_a = max(anchors, key=lambda s: s["pct"])
            best_s = max(sbs, key=lambda s: s["pct"])
            edpf = here.get("seqbond-edpf")
            rows.append((mtu, direction, ls, edpf, best_s, best_a))
    if not rows:
        return L
    L.append("### seqbond against the best anchor (% of the goodput limit)\n")
    L.append("| MTU | direction | links (Mbit/s) | seqbond edpf (default) | best seqbond mode | "
             "best anchor | edpf - best anchor (points) |")
    L.append("|---|---|---|---|---|---|---|")
    gaps = []
    for mtu, direction, ls, edpf, best_s, best_a in rows:
        g = edpf["pct"] - best_a["pct"] if edpf else float("nan")
        if edpf:
            gaps.append((g, mtu, direction, ls, edpf, best_a))
        L.append("| %s | %s | %s | %s %% | %s %s %% | %s %s %% | %+.1f |" % (
            mtu, "A->B" if direction == "ab" else "both ways", label(ls), fmt(edpf["pct"]) if edpf else "n/a", best_s["system"],
            fmt(best_s["pct"]), best_a["system"], fmt(best_a["pct"]), g))
    L.append("")
    if gaps:
        lo, hi = min(gaps), max(gaps)

        def at(x):
            return "%s Mbit/s (MTU %s, %s): seqbond edpf %s %% of the limit, %s %s %%" % (
                label(x[3]), x[1], "A->B" if x[2] == "ab" else "both ways", fmt(x[4]["pct"]),
                x[5]["system"], fmt(x[5]["pct"]))
        if lo[0] < 0:
            L.append("Largest gap, seqbond behind the best anchor: %+.1f points on %s." % (
                lo[0], at(lo)))
        else:
            L.append("seqbond (edpf) is at or above the best anchor on every link set measured; "
                     "the narrowest margin is %+.1f points on %s." % (lo[0], at(lo)))
        L.append("Largest gap with seqbond ahead: %+.1f points on %s.\n" % (hi[0], at(hi)))
    return L


def grid_missing(summary):
    """What the full grid (bench/run without options) has that these results lack."""
    done = {(s["mtu"], s["direction"]) for s in summary}
    miss = ["MTU %s %s" % (m, "A->B" if d == "ab" else "--bidir") for m, d in FULL_GRID
            if (m, d) not in done]
    if not miss:
        return []
    return ["**Not in these results:** " + "; ".join(miss) + " (the full `bench/run` grid has "
            "them).\n"]


def failover_missing(fail):
    """The systems bench/run's failover runs that these results lack."""
    fs = {f["system"] for f in fail}
    fmiss = [x for x in ("seqbond-edpf", "bond-rr", "mptcp") if x not in fs]
    return ["**Failover not run for:** %s.\n" % ", ".join(fmiss)] if fmiss else []


def main():
    a = sys.argv[1:]
    if not a:
        raise SystemExit(__doc__)
    if a[0] == "cpu":
        cpu(a[1])
    elif a[0] == "row":
        row(*a[1:9])
    elif a[0] == "baseline-row":
        baseline_row(*a[1:6])
    elif a[0] == "failover-row":
        failover_row(*a[1:6])
    elif a[0] == "profile":
        profile(*a[1:7])
    elif a[0] == "report":
        report(a[1], a[2], a[3], "--quick" in a)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
