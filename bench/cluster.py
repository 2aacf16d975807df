#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The users' whole cluster in one box (docs/benchmarks.md, "Cluster").

bench/cluster.py [--rate MBIT] [--short] [--json FILE] [--table] [--check]

Brings up `seqbond-testbed up --preset bladecentre` (16 blades a..p with 6 ports, gateway q
with 8, 6 switches; every link --rate Mbit/s each way) and measures, in this order:

  one link      one TCP stream over one such link without seqbond (`baseline`): the unit
                every limit below is counted in
  idle          CPU of the 17 idle instances (each process's own, and the whole machine's),
                resident memory per instance, sleeps and timer wake-ups, the idle hello interval;
                measured once no sb0 has carried a frame for 6 s (the kernels' start-up
                chatter: up to 2 minutes). A process's figure is its scheduler run time
                (/proc/PID/stat scales its ticks to it); the machine's is sampled at the
                timer tick (/proc/stat) and misses short wake-ups that end between ticks:
                it read 13-24 % lower (docs/design.md, "Idle hellos that scale").
  dhcp          dnsmasq on the gateway's port-0 interface (its own subnet), busybox udhcpc on
                every blade's port-0 interface at once, beside seqbond on the same ports
  streams       one TCP stream over sb0: blade a -> blade b, gateway q -> a, a -> q; limit =
                the paths between them = the blade's 6 links
  mptcp         (not with --short) the same three streams over MPTCP without seqbond: an
                address per switch on each of the two hosts' ports, the kernel path
                manager announcing 5 of them; the limit is again the blade's 6 links
  16 -> 1       iperf3 from every blade to the gateway at once, over sb0 and over one link
                per host without seqbond (plain IP on port 0): aggregate against the
                gateway's capacity (8 links; 1 link without seqbond), Jain fairness over the
                16 blades, TCP timeouts (TcpExtTCPTimeouts of every blade)
  tbench        tbench_srv on the gateway, `tbench 4` on every blade (64 clients), over sb0
                and over one link per host; TCP timeouts split into those of established
                connections and SYN retransmissions, with the gateway's ListenOverflows
                (tbench_srv's accept queue holds 20: 64 clients connecting at once on a busy
                machine overflow it, whatever carries the frames)
  switch        one stream a -> b; switch module 3 black-holed mid-run (`cut-switch`,
                carriers up): time until the goodput is back to 5/6 of before, TCP timeouts
  failover      16 -> 1 again; switch 2 black-holed at 1/3 of the run, blade a's port 4 cut
                at 2/3: every blade's stream must go on (receiver intervals), TCP timeouts

--idle-only: bring the cluster up, take the idle figures, tear it down (nothing else).
--mptcp-only: bring it up, take the three streams over seqbond and over MPTCP, tear it down.
--config-extra LINE: a line for every host's [seqbond] section (repeatable), as the
testbed's option of that name: side-by-side runs of an idle setting.
--short: the same with short runs (CI's test_cluster_bladecentre, tools/demo --cluster).
--json FILE: every figure; --table: one table on stdout; --check: exit 1 unless the
correctness conditions hold (16 of 16 leases, every run completed, every stream delivering
after each failure; and, when the 16 -> 1 run without faults stalled no blade for 1 s, no
stream stalled for 1 s after a failure and a -> b at least half of 5/6 of before after the
switch cut: on a machine too short of CPU to carry the load without faults these two are
printed as NOT JUDGED). Throughput goals are reported, not checked (a shared 2-core machine
drifts). Needs root; always tears the testbed down. SEQBOND_TESTBED_NAME
chooses the namespace prefix as for the testbed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TB = ["bash", os.path.join(REPO, "tools", "seqbond-testbed")]
NS = os.environ.get("SEQBOND_TESTBED_NAME", "sb")
STATE = os.environ.get("SEQBOND_TESTBED_DIR") or (
    "/run/seqbond-testbed" if NS == "sb" else "/run/seqbond-testbed-" + NS)
BLADES = "abcdefghijklmnop"
GW = "q"
HOSTS = BLADES + GW
TCK = os.sysconf("SC_CLK_TCK")
PLAIN = "10.95.0"     # one link per host without seqbond (port 0)
MPNET = "10.94"       # MPTCP without seqbond: MPNET.S.<host>/24 on each host's port to switch S
DHCP = "10.96.0"      # the boot network (port 0)


def log(msg):
    print("cluster: " + msg, file=sys.stderr, flush=True)


def ns(h):
    return "%s-%s" % (NS, h)


def idx(h):
    return HOSTS.index(h) + 1


def sb0(h):
    return "10.99.0.%d" % idx(h)


def port0(h):
    return "sb%s0" % h.upper()


def inns(h, cmd):
    return ["ip", "netns", "exec", ns(h)] + cmd


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def tb(*args, capture=False):
    r = subprocess.run(TB + list(args), text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None)
    if r.returncode != 0:
        if capture:
            sys.stderr.write(r.stderr or "")
        raise RuntimeError("seqbond-testbed %s exited %d" % (" ".join(args), r.returncode))
    return r


def tcpext(h, *keys, group="TcpExt"):
    """@group (TcpExt, MPTcpExt) counters of host h's namespace (cumulative), in the order of
    keys."""
    out = run(inns(h, ["cat", "/proc/net/netstat"]), stdout=subprocess.PIPE).stdout
    lines = [l.split() for l in out.splitlines() if l.startswith(group + ":")]
    d = dict(zip(lines[0], lines[1]))
    return tuple(int(d[k]) for k in keys)


def timeouts(h):
    """TcpExtTCPTimeouts of host h's namespace (cumulative)."""
    return tcpext(h, "TCPTimeouts")[0]


def jain(xs):
    s2 = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * s2) if s2 > 0 else 0.0


def pids():
    out = {}
    for h in HOSTS:
        with open(os.path.join(STATE, h + ".pid")) as f:
            out[h] = int(f.read().strip())
    return out


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TCK


def machine_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return (sum(v[:8]) - idle) / TCK


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def telemetry(h, ep):
    # the telemetry socket is a file (/var/run/dpdk/<prefix>/), reachable from any namespace
    out = run(["dpdk-telemetry.py", "-f", ns(h)], input=ep + "\n",
              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20).stdout
    line = next(l for l in out.splitlines() if l.startswith("{"))
    return json.loads(line)[ep.split(",")[0]]


def wait_listen(h, port, deadline=10.0):
    t0 = time.time()
    while time.time() - t0 < deadline:
        out = run(inns(h, ["ss", "-Hltn", "sport = :%d" % port]), stdout=subprocess.PIPE).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError("nothing listens on %s:%d" % (h, port))


def sb0_frames(p):
    """Frames sb0 carried, summed over every host (each seqbond's /proc/PID/net/dev shows its
    namespace's interfaces): any change is traffic somewhere in the cluster."""
    n = 0
    for pid in p.values():
        with open("/proc/%d/net/dev" % pid) as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name.strip() == "sb0":
                    v = rest.split()
                    n += int(v[1]) + int(v[9])
    return n


def settle(p, quiet_s=6.0, max_s=150.0):
    """Wait until no sb0 in the cluster has carried a frame for quiet_s (the kernels' start-up
    chatter, IPv6 router solicitations and MLD reports, keeps hosts at the fast hello pace
    for 1 s after each frame: hello_idle_interval_ms; it comes in bursts seconds apart for a
    minute or two after start). Returns the seconds waited."""
    t0 = time.time()
    last, since = sb0_frames(p), time.time()
    while time.time() - t0 < max_s:
        time.sleep(0.2)
        n = sb0_frames(p)
        if n != last:
            last, since = n, time.time()
        elif time.time() - since >= quiet_s:
            break
    return round(time.time() - t0, 1)


def measure_idle(seconds, tries=4):
    """Idle figures over a window in which no sb0 carried a frame: the kernels' router
    solicitations come in bursts from all 17 hosts at once (17 x 17 = 289 frames), 4, 8, 16,
    32 s apart, so a window after one quiet spell can still catch the next burst: measure
    again (up to @tries windows) and keep the last."""
    r = None
    for _ in range(tries):
        r = measure_idle_once(seconds)
        if r["sb0_frames_during"] == 0:
            break
    return r


def nap_counts(h):
    """(sleeps, timer wake-ups, polls, hello interval now in ms, naps, answer polls) of host
    @h so far (docs/design.md, "Sleeping when idle")."""
    i = telemetry(h, "/seqbond/info")
    return (i["idle_sleeps"], i["idle_timer_wakeups"], i["loops"], i["hello_interval_ms"],
            i["idle_naps"], i["answer_polls"])


def idle_interval(h, first, fast_ms=10, reads=10):
    """The idle hello interval host @h announces, ms: @first (a read already taken) if it is
    above the fast pace (@fast_ms, the default hello_interval_ms), else the largest of up to
    @reads more telemetry reads 0.5 s apart, stopping at the first above it. Traffic that is
    not on sb0 (passthrough frames) also brings the fast pace back for 1 s, so one read can
    catch it in a cluster whose sb0s are quiet: a run on 2026-12-04 read 10 ms on both hosts
    at the end of a window with no sb0 frame (what moved then was not found)."""
    best = first
    for _ in range(reads):
        if best > fast_ms:
            break
        time.sleep(0.5)
        best = max(best, telemetry(h, "/seqbond/info")["hello_interval_ms"])
    return best


def measure_idle_once(seconds):
    p = pids()
    settled = settle(p)
    f0 = sb0_frames(p)
    c0 = {h: proc_cpu(p[h]) for h in HOSTS}
    naps0 = {h: nap_counts(h) for h in (BLADES[0], GW)}
    m0, t0 = machine_busy(), time.time()
    time.sleep(seconds)
    m1, t1 = machine_busy(), time.time()
    c1 = {h: proc_cpu(p[h]) for h in HOSTS}
    frames = sb0_frames(p) - f0
    naps1 = {h: nap_counts(h) for h in (BLADES[0], GW)}
    dt = t1 - t0
    per = {h: 100.0 * (c1[h] - c0[h]) / dt for h in HOSTS}
    rss = {h: rss_mb(p[h]) for h in HOSTS}
    return {
        "seconds": round(dt, 1),
        "settled_after_s": settled,
        "sb0_frames_during": frames,
        "cpu_pct_per_instance": {h: round(v, 2) for h, v in per.items()},
        "cpu_pct_max": round(max(per.values()), 2),
        "cpu_pct_mean": round(sum(per.values()) / len(per), 2),
        "machine_busy_pct_of_a_core": round(100.0 * (m1 - m0) / dt, 1),
        "machine_busy_pct_per_instance": round(100.0 * (m1 - m0) / dt / len(HOSTS), 2),
        "sleeps_per_s": {h: round((naps1[h][0] - naps0[h][0]) / dt) for h in naps0},
        "timer_wakeups_per_s": {h: round((naps1[h][1] - naps0[h][1]) / dt) for h in naps0},
        "polls_per_s": {h: round((naps1[h][2] - naps0[h][2]) / dt) for h in naps0},
        # polls followed by a nap (output full) or by another poll for an answer
        "naps_per_s": {h: round((naps1[h][4] - naps0[h][4]) / dt) for h in naps0},
        "answer_polls_per_s": {h: round((naps1[h][5] - naps0[h][5]) / dt) for h in naps0},
        # the idle pace each announces (hello_idle_rx_max: grows with the peers)
        "hello_interval_ms": {h: idle_interval(h, naps1[h][3]) for h in naps1},
        "rss_mb_blade_max": round(max(rss[h] for h in BLADES), 1),
        "rss_mb_gateway": round(rss[GW], 1),
        "rss_mb_total": round(sum(rss.values()), 1),
    }


def measure_dhcp(tmp):
    gw_dev = port0(GW)
    run(inns(GW, ["ip", "addr", "add", DHCP + ".1/24", "dev", gw_dev]))
    dns = subprocess.Popen(inns(GW, [
        # --no-ping: dnsmasq would otherwise ping each address before offering it and
        # answer the 16 blades one ping timeout after another
        "dnsmasq", "--no-daemon", "--port=0", "--no-ping", "--interface=" + gw_dev,
        "--bind-interfaces",
        "--dhcp-range=%s.100,%s.199,2m" % (DHCP, DHCP), "--dhcp-leasefile=%s/leases" % tmp,
        "--pid-file=%s/dnsmasq.pid" % tmp, "--log-facility=%s/dnsmasq.log" % tmp]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        t0 = time.time()
        cl = {h: subprocess.Popen(inns(h, ["timeout", "40", "busybox", "udhcpc", "-i", port0(h),
                                           "-n", "-q", "-f", "-t", "8", "-T", "2", "-s",
                                           "/bin/true"]),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
              for h in BLADES}
        leases, last = {}, 0.0
        for h, p in cl.items():
            out = p.communicate()[0]
            m = re.search(r"lease of (\d+\.\d+\.\d+\.\d+) obtained", out)
            if m:
                leases[h] = m.group(1)
                last = max(last, time.time() - t0)
    finally:
        dns.terminate()
        dns.wait()
        run(inns(GW, ["ip", "addr", "del", DHCP + ".1/24", "dev", gw_dev]))
    return {"leases": len(leases), "distinct": len(set(leases.values())),
            "blades": len(BLADES), "all_in_s": round(last, 2),
            "missing": [h for h in BLADES if h not in leases]}


def one_stream(src, dst, secs, tmp):
    j = os.path.join(tmp, "stream-%s%s.json" % (src, dst))
    to0 = timeouts(src)
    good = float(tb("iperf", "--from", src, "--to", dst, "--time", str(secs), "--json", j,
                    capture=True).stdout.strip())
    d = json.load(open(j))
    return {"goodput_mbit": good, "retransmits": d["end"]["sum_sent"].get("retransmits", 0),
            "tcp_timeouts": timeouts(src) - to0}


def servers(port_base, tmp, tag, interval):
    """One iperf3 server per blade on the gateway (an iperf3 server runs one test at a time)."""
    ps = {}
    for i, h in enumerate(BLADES):
        port = port_base + i
        f = open(os.path.join(tmp, "%s-srv-%s.json" % (tag, h)), "w")
        ps[h] = (subprocess.Popen(inns(GW, ["iperf3", "-s", "-1", "-J", "-p", str(port), "-i",
                                            str(interval)]), stdout=f,
                                  stderr=subprocess.DEVNULL), f)
    for i in range(len(BLADES)):
        wait_listen(GW, port_base + i)
    return ps


def many_to_one(dst_addr, secs, tmp, tag, interval=1.0, events=()):
    """iperf3 from every blade to the gateway at once; events = [(at_s, fn), ...] run
    during it. Returns per-blade receiver goodput and intervals."""
    port_base = 5301
    srv = servers(port_base, tmp, tag, interval)
    to0 = {h: timeouts(h) for h in BLADES}
    cl = {}
    for i, h in enumerate(BLADES):
        cl[h] = subprocess.Popen(
            inns(h, ["timeout", str(secs + 30), "iperf3", "-c", dst_addr, "-p",
                     str(port_base + i), "-t", str(secs), "-J", "--connect-timeout", "10000"]),
            stdout=open(os.path.join(tmp, "%s-cl-%s.json" % (tag, h)), "w"),
            stderr=subprocess.DEVNULL)
    t0 = time.time()
    fired = []
    for at, fn in events:
        if callable(at):    # a time that depends on when the previous fault took effect
            at = at(fired[-1][1] if fired else 0.0)
        delay = t0 + at - time.time()
        if delay > 0:
            time.sleep(delay)
        begun = time.time() - t0
        fn()
        # When the fault command began and when it had taken effect: on a machine short of
        # CPU the testbed's command itself takes seconds.
        fired.append((round(begun, 2), round(time.time() - t0, 2)))
    bad, why = [], {}
    for h, p in cl.items():
        rc = p.wait()
        if rc != 0:
            bad.append(h)
            why[h] = client_error(os.path.join(tmp, "%s-cl-%s.json" % (tag, h)), rc)
    for h, (p, f) in srv.items():
        try:
            # A server still busy 30 s after its client ended wrote no result: reported.
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        f.close()
    per, ivs = {}, {}
    for h in BLADES:
        try:
            d = json.load(open(os.path.join(tmp, "%s-srv-%s.json" % (tag, h))))
            per[h] = d["end"]["sum_received"]["bits_per_second"] / 1e6
            ivs[h] = [(iv["sum"]["start"], iv["sum"]["end"], iv["sum"]["bits_per_second"] / 1e6)
                      for iv in d["intervals"]]
        except (ValueError, KeyError, OSError):
            per[h] = 0.0
            ivs[h] = []
            bad.append(h)
            why.setdefault(h, "the server wrote no result")
    return {"per_blade_mbit": {h: round(v, 2) for h, v in per.items()},
            "aggregate_mbit": round(sum(per.values()), 2),
            "jain": round(jain(list(per.values())), 4),
            "tcp_timeouts": sum(timeouts(h) - to0[h] for h in BLADES),
            "failed": sorted(set(bad)), "failed_why": why, "events_at_s": fired}, ivs


def client_error(path, rc):
    """Why an iperf3 client failed: its JSON "error" text, or its exit code (124: killed by
    timeout(1) after its run time plus 30 s)."""
    try:
        err = json.load(open(path)).get("error")
    except (ValueError, OSError):
        err = None
    return "exit %d%s" % (rc, ": " + err if err else "")


def tbench(dst_addr, secs, tmp, tag):
    srv = subprocess.Popen(inns(GW, ["tbench_srv"]), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        wait_listen(GW, 7003)
        # tbench_srv listens with a backlog of 20 and forks per connection: when the 64
        # clients connect at once on a busy machine its accept queue overflows, the gateway's
        # kernel drops the handshake (ListenOverflows) and the client retransmits its SYN
        # after 1 s, a TCPTimeouts on the blade that no link lost. So the SYN timeouts
        # (TCPSynRetrans) are counted apart from the timeouts of established connections.
        to0 = {h: tcpext(h, "TCPTimeouts", "TCPSynRetrans") for h in BLADES}
        lo0 = tcpext(GW, "ListenOverflows")[0]
        load = ["-c", "/usr/share/dbench/client.txt"] if os.path.exists(
            "/usr/share/dbench/client.txt") else []
        cl = {h: subprocess.Popen(inns(h, ["timeout", str(secs + 60), "tbench", "-t", str(secs)]
                                       + load + ["4", dst_addr]),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
              for h in BLADES}
        per, bad = {}, []
        for h, p in cl.items():
            out = p.communicate()[0]
            m = re.search(r"Throughput ([0-9.]+) MB/sec", out)
            if p.returncode != 0 or not m:
                bad.append(h)
                per[h] = 0.0
            else:
                per[h] = float(m.group(1))
        to1 = {h: tcpext(h, "TCPTimeouts", "TCPSynRetrans") for h in BLADES}
        tmo = sum(to1[h][0] - to0[h][0] for h in BLADES)
        syn = sum(to1[h][1] - to0[h][1] for h in BLADES)
        return {"per_blade_MBps": {h: round(v, 2) for h, v in per.items()},
                "aggregate_MBps": round(sum(per.values()), 2),
                "jain": round(jain(list(per.values())), 4),
                "tcp_timeouts": tmo, "syn_retransmits": syn,
                "data_timeouts": max(tmo - syn, 0),
                "gw_listen_overflows": tcpext(GW, "ListenOverflows")[0] - lo0, "failed": bad}
    finally:
        srv.terminate()
        srv.wait()


def plain_addresses(add):
    """One link per host without seqbond: PLAIN.k/24 on every host's port 0 (switch 0)."""
    verb = "add" if add else "del"
    for h in HOSTS:
        run(inns(h, ["ip", "addr", verb, "%s.%d/24" % (PLAIN, idx(h)), "dev", port0(h)]))
    if add:
        # The gateway has two ports on switch 0: only port 0, which has the address, may answer
        # ARP for it, or blades would reach it through either and get two links' worth.
        run(inns(GW, ["sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1"]))


def mptcp_addresses(hosts, add):
    """MPTCP without seqbond between @hosts: an address on each host's port to each of the
    6 switches (its own subnet per switch), the kernel path manager announcing every address
    but port 0's (`signal`) and accepting 8 subflows. The gateway's ports 6 and 7 share
    switches 0 and 1 and get none; arp_ignore=1 keeps them from answering for ports 0 and 1."""
    verb = "add" if add else "del"
    for h in hosts:
        for sw in range(6):
            run(inns(h, ["ip", "addr", verb, "%s.%d.%d/24" % (MPNET, sw, idx(h)), "dev",
                         "sb%s%d" % (h.upper(), sw)]))
        if add:
            run(inns(h, ["sysctl", "-qw", "net.mptcp.enabled=1"]))
            run(inns(h, ["sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1"]))
            run(inns(h, ["ip", "mptcp", "limits", "set", "subflow", "8", "add_addr_accepted",
                         "8"]))
            for sw in range(1, 6):
                run(inns(h, ["ip", "mptcp", "endpoint", "add", "%s.%d.%d" % (MPNET, sw, idx(h)),
                             "dev", "sb%s%d" % (h.upper(), sw), "signal"]))
        else:
            run(inns(h, ["ip", "mptcp", "endpoint", "flush"]))


def mptcp_stream(src, dst, secs, tmp):
    """One MPTCP stream (iperf3 under mptcpize) src -> dst over the switches, without seqbond:
    the issue's "MPTCP where it applies" for one stream (mptcp_addresses() first)."""
    port = 5601
    j = os.path.join(tmp, "mptcp-%s%s.json" % (src, dst))
    srv = subprocess.Popen(inns(dst, ["mptcpize", "run", "iperf3", "-s", "-1", "-p",
                                      str(port)]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listen(dst, port)
        to0, (jn0,) = timeouts(src), tcpext(src, "MPJoinSynAckRx", group="MPTcpExt")
        with open(j, "w") as f:
            run(inns(src, ["timeout", str(secs + 30), "mptcpize", "run", "iperf3", "-c",
                           "%s.0.%d" % (MPNET, idx(dst)), "-p", str(port), "-t", str(secs),
                           "-J"]), stdout=f, stderr=subprocess.DEVNULL)
        d = json.load(open(j))
        if "error" in d:
            raise RuntimeError("MPTCP %s -> %s: %s" % (src, dst, d["error"]))
        return {"goodput_mbit": round(d["end"]["sum_received"]["bits_per_second"] / 1e6, 2),
                "retransmits": d["end"]["sum_sent"].get("retransmits", 0),
                "tcp_timeouts": timeouts(src) - to0,
                "joins": tcpext(src, "MPJoinSynAckRx", group="MPTcpExt")[0] - jn0}
    finally:
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


STREAM_PAIRS = ((BLADES[0], BLADES[1]), (GW, BLADES[0]), (BLADES[0], GW))


def streams(measure, what, secs, tmp, B):
    """The one-stream pairs, each measured by @measure (one_stream or mptcp_stream), with
    its ratio to the blade's 6 links."""
    out = {}
    for src, dst in STREAM_PAIRS:
        log("one %s %s -> %s" % (what, src, dst))
        st = measure(src, dst, secs, tmp)
        st["ratio"] = round(st["goodput_mbit"] / (6 * B), 3)
        out["%s -> %s" % (src, dst)] = st
    return out


def mptcp_streams(secs, tmp, B):
    """The one-stream pairs over MPTCP without seqbond."""
    hosts = (BLADES[0], BLADES[1], GW)
    mptcp_addresses(hosts, True)
    try:
        return streams(mptcp_stream, "MPTCP stream, without seqbond,", secs, tmp, B)
    finally:
        mptcp_addresses(hosts, False)
        for h in hosts[:2]:
            run(inns(h, ["sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=0"]))


def switch_failover(secs, tmp, cut_at):
    """One stream a -> b; switch 3 black-holed at cut_at s. Receiver intervals of 0.1 s."""
    src, dst = BLADES[0], BLADES[1]
    port = 5401
    sj = os.path.join(tmp, "sw-srv.json")
    f = open(sj, "w")
    srv = subprocess.Popen(inns(dst, ["iperf3", "-s", "-1", "-J", "-p", str(port), "-i", "0.1"]),
                           stdout=f, stderr=subprocess.DEVNULL)
    wait_listen(dst, port)
    to0 = timeouts(src)
    cl = subprocess.Popen(inns(src, ["timeout", str(secs + 30), "iperf3", "-c", sb0(dst), "-p",
                                     str(port), "-t", str(secs), "--connect-timeout", "3000"]),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    time.sleep(max(0.0, t0 + cut_at - time.time()))
    t_cut = time.time() - t0
    tb("cut-switch", "3", capture=True)
    rc = cl.wait()
    srv.wait(timeout=15)
    f.close()
    d = json.load(open(sj))
    iv = [(x["sum"]["start"], x["sum"]["end"], x["sum"]["bits_per_second"] / 1e6)
          for x in d["intervals"]]
    # the server's clock starts at the connection, a few ms after t0: close enough at 0.1 s
    pre = [v for s, e, v in iv if 1.0 <= s and e <= t_cut]
    pre_mean = sum(pre) / len(pre) if pre else 0.0
    want = pre_mean * 5.0 / 6.0
    after = [(s, e, v) for s, e, v in iv if s >= t_cut]
    low = min((v for s, e, v in after if s < t_cut + 2.0), default=0.0)
    back = None
    for i in range(len(after) - 1):
        # back: two 0.1 s intervals in a row at >= 90 % of 5/6 of before
        if after[i][2] >= 0.9 * want and after[i + 1][2] >= 0.9 * want:
            back = after[i][0] - t_cut
            break
    # weighted by length: the server's last interval can be a short tail
    post = [(e - s, v) for s, e, v in after if s >= t_cut + 2.0]
    post_s = sum(d for d, _ in post)
    tb("heal-switch", "3", capture=True)
    return {"ok": rc == 0, "cut_at_s": round(t_cut, 2), "before_mbit": round(pre_mean, 1),
            "lowest_0.1s_mbit": round(low, 1),
            "back_to_5_6_s": None if back is None else round(max(back, 0.0), 2),
            "after_mbit": round(sum(d * v for d, v in post) / post_s, 1) if post_s > 0 else 0.0,
            "tcp_timeouts": timeouts(src) - to0}


def stalls_since(ivs, t0):
    """Receiver intervals of 0.5 s from t0 on: (blades whose stream delivered nothing for 1 s,
    blades with an empty interval), each with its count of empty intervals. Only full intervals
    count: the server's last one is a partial tail (9.00-9.06 s) that can hold no data when the
    client has already stopped."""
    stalls, gaps = {}, {}
    for h, iv in ivs.items():
        full = [v for s, e, v in iv if s >= t0 and e - s >= 0.45]
        empty = [v <= 0.0 for v in full]
        if any(empty):
            gaps[h] = sum(empty)
        if any(a and b for a, b in zip(empty, empty[1:])):
            stalls[h] = sum(empty)
    return stalls, gaps


# Seconds after a fault took effect within which a blade's stall is that fault's doing.
FAULT_STALL_S = 2.0


def stall_start(iv, t0):
    """When the first 1 s stall (two full empty 0.5 s intervals in a row) from t0 on begins,
    in s of the run; None when there is none."""
    full = [(s, v) for s, e, v in iv if s >= t0 and e - s >= 0.45]
    for (s, v), (_, w) in zip(full, full[1:]):
        if v <= 0.0 and w <= 0.0:
            return s
    return None


def failover_16(secs, tmp):
    # The switch fails at a quarter of the run; the port at half of it, or 1.5 s after the
    # switch cut took effect if that is later: the windows before and after each fault then
    # hold full 0.5 s intervals even when the testbed's commands take seconds under this load.
    events = [(secs / 4.0, lambda: tb("cut-switch", "2", capture=True)),
              (lambda sw_done: max(secs / 2.0, sw_done + 1.5),
               lambda: tb("cut", BLADES[0], "4", capture=True))]
    r, ivs = many_to_one(sb0(GW), secs, tmp, "fail", interval=0.5, events=events)
    (t_sw, t_sw_done), (t_port, t_port_done) = r["events_at_s"]
    # Every blade's stream must go on: receiver intervals after the first failure. A stream
    # has stalled when it delivers nothing for 1 s (two full intervals in a row); a single
    # empty 0.5 s interval is what one TCP retransmission timeout looks like (RTO >= 200 ms
    # plus the queueing of this load): it is counted and reported with the timeouts, against
    # the benchmark's goal of none. Stalls are the faults' doing only when the same load
    # without faults (many_to_one, the control) stalls none: main() judges them so.
    stalls, gaps = stalls_since(ivs, t_sw)
    # A stall is a fault's when it begins while a fault that touches that blade takes effect
    # or within FAULT_STALL_S after (TCP's backed-off retransmissions of what the cut lost):
    # the switch touches every blade, the port cut blade a only. One that begins later, on
    # a path set the fault no longer changes, is the 16 -> 1 load's on this machine: it is
    # reported apart (a CI run on 2026-12-07: blade k stalled at 8.0 s, 4.6 s after the
    # switch cut and untouched by the port cut, with the control clean) and judged by the
    # benchmark's goal, not here.
    windows = {h: [(t_sw, t_sw_done + FAULT_STALL_S)] for h in ivs}
    if BLADES[0] in windows:
        windows[BLADES[0]].append((t_port, t_port_done + FAULT_STALL_S))
    late = {}
    for h in list(stalls):
        start = stall_start(ivs[h], t_sw)
        if start is not None and not any(lo <= start <= hi for lo, hi in windows[h]):
            late[h] = round(start, 2)
            del stalls[h]
    # The same run before any fault (from 1 s: connections and slow start): a blade with an
    # empty interval there was starved by the load itself, and a stall after the faults
    # then says nothing of them (main() judges so).
    _, pre_gaps = stalls_since({h: [(s, e, v) for s, e, v in iv if e <= t_sw + 0.05]
                                for h, iv in ivs.items()}, 1.0)
    # Whatever the machine's speed: every blade's stream delivers something after the faults.
    silent = sorted(h for h, iv in ivs.items()
                    if not any(v > 0.0 for s, e, v in iv if s >= t_sw))
    def agg(lo, hi):
        """Sum over blades of their mean receiver rate in full intervals within [lo, hi]
        (the last one may end a few ms after hi); None when no blade has such an interval."""
        tot, seen = 0.0, False
        for iv in ivs.values():
            vals = [v for s, e, v in iv if s >= lo and e <= hi + 0.05 and e - s >= 0.45]
            tot += sum(vals) / len(vals) if vals else 0.0
            seen = seen or bool(vals)
        return round(tot, 1) if seen else None
    r.update({"switch_cut_at_s": t_sw, "switch_cut_done_s": t_sw_done,
              "port_cut_at_s": t_port, "port_cut_done_s": t_port_done,
              "aggregate_before_mbit": agg(1.0, t_sw),
              "aggregate_after_switch_mbit": agg(t_sw_done + 1.0, t_port),
              "aggregate_after_port_mbit": agg(t_port_done + 1.0, secs),
              "blades_stalled_1s": stalls, "blades_with_an_empty_0.5s": gaps,
              "blades_stalled_1s_after_the_faults_s": late,
              "blades_with_an_empty_0.5s_before_faults": pre_gaps,
              "blades_silent_after_faults": silent})
    r.pop("events_at_s")
    # The port cut must have taken effect 1.5 s before the end, or the run says nothing of
    # the streams after it (main() judges this with the other timing verdicts).
    r["port_cut_late"] = t_port_done > secs - 1.5
    tb("heal-switch", "2", capture=True)
    tb("heal", BLADES[0], "4", capture=True)
    return r


def log_liveness():
    """What the instances logged about liveness over the testbed's life: path downs, peers
    found silent on every path (held, docs/design.md "A frozen host") and how many of those
    were heard again before any path went down, and their own lcore stalls of 20 ms or
    more."""
    pats = {"path_downs": re.compile(r"peer \d+ path \d+ down"),
            "path_downs_silent": re.compile(r"peer \d+ path \d+ down .*: silent"),
            "path_downs_one_way": re.compile(r"peer \d+ path \d+ down .*: one-way"),
            "peer_silences": re.compile(r"silent on every path: "),
            "silences_ridden": re.compile(r"heard again after .*no path went down"),
            "own_stalls_20ms": re.compile(r"TX lcore stalled")}
    out = {k: 0 for k in pats}
    heard = re.compile(r"heard again after ([0-9.]+) ms")
    silent_ms = []
    for h in HOSTS:
        try:
            with open(os.path.join(STATE, h + ".log"), errors="replace") as f:
                for line in f:
                    for k, pat in pats.items():
                        if pat.search(line):
                            out[k] += 1
                    m = heard.search(line)
                    if m:
                        silent_ms.append(float(m.group(1)))
        except OSError:
            pass
    # How long peers were silent on every path before they were heard again (from their
    # last hello): the freezes the hold rides out, and those it does not.
    silent_ms.sort()
    if silent_ms:
        out["silence_ms_percentiles"] = {
            str(q): round(silent_ms[min(len(silent_ms) - 1, int(q / 100.0 * len(silent_ms)))], 1)
            for q in (50, 90, 99)}
        out["silence_ms_max"] = silent_ms[-1]
    return out


def table(res):
    B = res["one_link_mbit"]
    rows = []
    idle = res.get("idle")
    if idle:
        rows.append(("idle CPU per instance (mean / max, % of a core)",
                     "%.2f / %.2f" % (idle["cpu_pct_mean"], idle["cpu_pct_max"]),
                     "machine %.1f %% of a core = %.2f %% per instance (tick-sampled); "
                     "hellos every %s ms; quiet after %.0f s, %d sb0 frames in it" % (
                         idle["machine_busy_pct_of_a_core"],
                         idle["machine_busy_pct_per_instance"],
                         "/".join(str(v) for v in
                                  sorted(set(idle.get("hello_interval_ms", {}).values())))
                         or "?", idle.get("settled_after_s", 0),
                         idle.get("sb0_frames_during", 0))))
        rows.append(("memory (RSS, MB)", "blade <= %.0f, gateway %.0f" % (
            idle["rss_mb_blade_max"], idle["rss_mb_gateway"]),
            "%.1f GB for all 17" % (idle["rss_mb_total"] / 1024)))
    d = res.get("dhcp")
    if d:
        rows.append(("DHCP leases on blades' port 0", "%d / %d" % (d["leases"], d["blades"]),
                     "all within %.1f s" % d["all_in_s"]))
    for k, v in res.get("streams", {}).items():
        rows.append(("one stream %s" % k, "%.1f Mbit/s" % v["goodput_mbit"],
                     "%.3f of 6 links (one link %.1f); %d TCP timeouts" % (
                         v["ratio"], B, v["tcp_timeouts"])))
    for k, v in res.get("mptcp_streams", {}).items():
        rows.append(("one MPTCP stream %s, no seqbond" % k, "%.1f Mbit/s" % v["goodput_mbit"],
                     "%.3f of 6 links; %d MP_JOIN SYN-ACKs received, %d TCP timeouts" % (
                         v["ratio"], v["joins"], v["tcp_timeouts"])))
    m = res.get("many_to_one")
    if m:
        rows.append(("16 -> gateway, iperf3 over sb0", "%.1f Mbit/s" % m["aggregate_mbit"],
                     "%.3f of 8 links, Jain %.3f, %d TCP timeouts, %d stalled blades" % (
                         m["ratio"], m["jain"], m["tcp_timeouts"],
                         len(m.get("blades_stalled_1s", {})))))
    m = res.get("many_to_one_plain")
    if m:
        rows.append(("16 -> gateway, one link per host", "%.1f Mbit/s" % m["aggregate_mbit"],
                     "Jain %.3f, %d TCP timeouts" % (m["jain"], m["tcp_timeouts"])))
    for k, label in (("tbench", "over sb0"), ("tbench_plain", "one link per host")):
        t = res.get(k)
        if t:
            rows.append(("tbench 16 x 4 clients, %s" % label, "%.1f MB/s" % t["aggregate_MBps"],
                         "Jain %.3f, %d TCP timeouts: %d of established connections, %d SYN "
                         "retransmissions (gateway's listen queue overflowed %d times)" % (
                             t["jain"], t["tcp_timeouts"], t["data_timeouts"],
                             t["syn_retransmits"], t["gw_listen_overflows"])))
    s = res.get("switch")
    if s:
        rows.append(("a -> b, switch 3 black-holed", "%.1f -> %.1f Mbit/s" % (
            s["before_mbit"], s["after_mbit"]),
            "back to 5/6 in %s s, lowest 0.1 s %.1f, %d TCP timeouts" % (
                s["back_to_5_6_s"], s["lowest_0.1s_mbit"], s["tcp_timeouts"])))
    f = res.get("failover")
    if f:
        na = lambda v: "n/a" if v is None else "%.1f" % v
        rows.append(("16 -> gateway, switch 2 then a's port 4 cut",
                     "%s -> %s -> %s Mbit/s" % (
                         na(f["aggregate_before_mbit"]), na(f["aggregate_after_switch_mbit"]),
                         na(f["aggregate_after_port_mbit"])),
                     "%d stalled blades, %d with an empty 0.5 s, %d TCP timeouts; cuts done "
                     "at %s and %s s" % (
                         len(f["blades_stalled_1s"]), len(f["blades_with_an_empty_0.5s"]),
                         f["tcp_timeouts"], f.get("switch_cut_done_s", f["switch_cut_at_s"]),
                         f.get("port_cut_done_s", f["port_cut_at_s"]))))
    lv = res.get("liveness")
    if lv:
        rows.append(("liveness over the testbed's life (17 logs)",
                     "%d path downs" % lv["path_downs"],
                     "%s silent, %s one-way; %d peers silent on every path, %d of them heard "
                     "again with no path down; %d own lcore stalls >= 20 ms" % (
                         lv.get("path_downs_silent", "?"), lv.get("path_downs_one_way", "?"),
                         lv["peer_silences"],
                                                      lv["silences_ridden"],
                                                      lv["own_stalls_20ms"])))
    if lv and lv.get("silence_ms_percentiles"):
        p = lv["silence_ms_percentiles"]
        rows.append(("peers silent on every path, until heard again",
                     "median %.0f ms" % p["50"],
                     "90th %.0f ms, 99th %.0f ms, longest %.0f ms" % (
                         p["90"], p["99"], lv["silence_ms_max"])))
    w = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    print("bladecentre: 16 blades x 6 ports + gateway q x 8 ports, 6 switches, %s Mbit/s links"
          % res["rate"])
    for r in rows:
        print("%-*s  %-*s  %s" % (w, r[0], w2, r[1], r[2]))


def idle_only(a, res, extra):
    try:
        log("up --preset bladecentre --rate %d %s" % (a.rate, " ".join(extra)))
        tb("up", "--preset", "bladecentre", "--rate", str(a.rate), "--exception",
           a.exception, *extra, capture=True)
        log("idle %d s, once no sb0 has carried a frame for 6 s" % (5 if a.short else 20))
        res["idle"] = measure_idle(5 if a.short else 20)
    finally:
        log("down")
        subprocess.run(TB + ["down"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    i = res["idle"]
    print("idle %s: per instance %.2f %% of a core (max %.2f), machine %.1f %% of a core; "
          "polls/s %s, sleeps/s %s, timer wake-ups/s %s; hello interval ms %s; %d sb0 frames "
          "in the %.1f s window" % (
              " ".join(a.config_extra) or "(defaults)", i["cpu_pct_mean"], i["cpu_pct_max"],
              i["machine_busy_pct_of_a_core"], i["polls_per_s"], i["sleeps_per_s"],
              i["timer_wakeups_per_s"], i.get("hello_interval_ms"), i["sb0_frames_during"],
              i["seconds"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


def mptcp_only(a, res, extra):
    """Bring the cluster up, take the one-stream pairs over seqbond and over MPTCP without
    it, tear it down: the side-by-side view of the full run's stream rows."""
    tmp = tempfile.mkdtemp(prefix="seqbond-cluster.")
    try:
        B = float(tb("baseline", "--rate", str(a.rate), "--time", "10",
                     capture=True).stdout.strip())
        res["one_link_mbit"] = B
        tb("up", "--preset", "bladecentre", "--rate", str(a.rate), "--exception",
           a.exception, *extra, capture=True)
        res["streams"] = streams(one_stream, "stream", 10, tmp, B)
        res["mptcp_streams"] = mptcp_streams(10, tmp, B)
    finally:
        log("down")
        subprocess.run(TB + ["down"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    table(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=int, default=100)
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--exception", default="tap-vnet")
    ap.add_argument("--idle-only", action="store_true")
    ap.add_argument("--mptcp-only", action="store_true")
    ap.add_argument("--config-extra", action="append", default=[])
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("cluster: run as root (namespaces, tc)")
    T = dict(idle=5, stream=4, many=6, tbench=6, switch=8, fail=12) if a.short else \
        dict(idle=20, stream=10, many=20, tbench=20, switch=10, fail=15)
    res = {"rate": a.rate, "short": a.short, "exception": a.exception,
           "config_extra": a.config_extra, "date": time.strftime("%Y-%m-%d %H:%M")}
    extra = [x for line in a.config_extra for x in ("--config-extra", line)]
    if a.idle_only:
        return idle_only(a, res, extra)
    if a.mptcp_only:
        return mptcp_only(a, res, extra)
    tmp = tempfile.mkdtemp(prefix="seqbond-cluster.")
    problems = []
    try:
        log("one link alone, %d Mbit/s" % a.rate)
        B = float(tb("baseline", "--rate", str(a.rate), "--time", str(T["stream"]),
                     capture=True).stdout.strip())
        res["one_link_mbit"] = B
        log("up --preset bladecentre --rate %d" % a.rate)
        t0 = time.time()
        up = tb("up", "--preset", "bladecentre", "--rate", str(a.rate), "--exception",
                a.exception, *extra, capture=True)
        res["up_s"] = round(time.time() - t0, 1)
        res["up_line"] = up.stderr.strip().splitlines()[-1]
        time.sleep(1.0)
        log("idle %d s, once no sb0 has carried a frame for 6 s" % T["idle"])
        res["idle"] = measure_idle(T["idle"])
        log("DHCP on 16 blades' port 0")
        res["dhcp"] = measure_dhcp(tmp)
        if res["dhcp"]["leases"] != len(BLADES) or res["dhcp"]["distinct"] != len(BLADES):
            problems.append("DHCP: %d leases (%d distinct) of %d, missing %s" % (
                res["dhcp"]["leases"], res["dhcp"]["distinct"], len(BLADES),
                res["dhcp"]["missing"]))
        res["streams"] = streams(one_stream, "stream", T["stream"], tmp, B)
        log("16 -> 1 iperf3 over sb0")
        m, ivs = many_to_one(sb0(GW), T["many"], tmp, "many", interval=0.5)
        m["ratio"] = round(m["aggregate_mbit"] / (8 * B), 3)
        # The control for the failover run: the same load, no fault (from 1 s: connections
        # and slow start).
        m["blades_stalled_1s"], m["blades_with_an_empty_0.5s"] = stalls_since(ivs, 1.0)
        res["many_to_one"] = m
        log("tbench 16 x 4 over sb0")
        res["tbench"] = tbench(sb0(GW), T["tbench"], tmp, "tb")
        plain_addresses(True)
        log("16 -> 1 iperf3 over one link per host")
        m, _ = many_to_one("%s.%d" % (PLAIN, idx(GW)), T["many"], tmp, "plain")
        m["ratio"] = round(m["aggregate_mbit"] / B, 3)
        res["many_to_one_plain"] = m
        log("tbench 16 x 4 over one link per host")
        res["tbench_plain"] = tbench("%s.%d" % (PLAIN, idx(GW)), T["tbench"], tmp, "tbp")
        plain_addresses(False)
        if not a.short:
            # Not in the short form: CI's time goes to the seqbond verdicts.
            res["mptcp_streams"] = mptcp_streams(T["stream"], tmp, B)
        log("switch 3 fails under one stream a -> b")
        res["switch"] = switch_failover(T["switch"], tmp, T["switch"] / 2.0)
        log("16 -> 1 with switch 2 and a's port 4 failing")
        res["failover"] = failover_16(T["fail"], tmp)
        for k in ("many_to_one", "many_to_one_plain", "failover"):
            if res[k]["failed"]:
                problems.append("%s: iperf3 failed for %s (%s)" % (
                    k, res[k]["failed"], res[k].get("failed_why")))
        for k in ("tbench", "tbench_plain"):
            if res[k]["failed"]:
                problems.append("%s: tbench failed for %s" % (k, res[k]["failed"]))
        # The timing verdicts below hold only on a machine that carries the 16 -> 1 load
        # without faults: when the control run stalled a blade for 1 s, the machine (17
        # instances, their kernels and 32 iperf3 on 2 cores) is short of CPU and a stall after
        # a fault says nothing of the fault. They are then printed, not judged
        # (docs/testing.md, "The cluster test"); what is judged still is that every stream
        # completes and goes on delivering after every fault.
        ctl = dict(res["many_to_one"]["blades_stalled_1s"])
        pre = res["failover"]["blades_with_an_empty_0.5s_before_faults"]
        res["timing_judged"] = not ctl and not pre
        f, sw = res["failover"], res["switch"]
        if f["blades_silent_after_faults"]:
            problems.append("failover: streams delivered nothing after the faults: %s"
                            % f["blades_silent_after_faults"])
        if not sw["ok"]:
            problems.append("switch: the stream a -> b failed")
        if sw["after_mbit"] <= 0.0:
            problems.append("switch: a -> b delivered nothing from 2 s after the cut")
        timing = []
        if f["port_cut_late"]:
            # The machine's doing (the cut command's own run time), not the product's.
            log("NOT JUDGED: a's port 4 was cut at %.2f s, too late in a %s s run to watch "
                "the streams after it" % (f["port_cut_done_s"], T["fail"]))
        if f["blades_stalled_1s"]:
            timing.append("failover: streams stalled for 1 s: %s" % f["blades_stalled_1s"])
        if f.get("blades_stalled_1s_after_the_faults_s"):
            log("failover: streams stalled for 1 s more than %.0f s after the faults that touch "
                "them (the load's, not judged; blade: start s): %s"
                % (FAULT_STALL_S, f["blades_stalled_1s_after_the_faults_s"]))
        # Five of six paths carry 5/6 of a stream the links limit; a stream this machine's
        # CPUs limit (before the cut below 0.8 of 6 links) moves with the CPUs' other work
        # instead (one stream a -> b: 149 to 502 Mbit/s across runs on 2026-12-02, and 149 ->
        # 270 across a cut), so its ratio says nothing of the failover then.
        link_bound = sw["before_mbit"] >= 0.8 * 6 * B
        res["switch_judged"] = link_bound
        if sw["after_mbit"] < 0.5 * sw["before_mbit"] * 5.0 / 6.0:
            msg = ("switch: a -> b carried %.1f Mbit/s after the cut, before %.1f"
                   % (sw["after_mbit"], sw["before_mbit"]))
            if link_bound:
                timing.append(msg)
            else:
                log("NOT JUDGED (a -> b was CPU-bound before the cut: %.1f < 0.8 of 6 links "
                    "%.1f): %s" % (sw["before_mbit"], 6 * B, msg))
        if not res["timing_judged"]:
            res["not_judged"] = timing
            why = ("the 16 -> 1 load stalled %d blades for 1 s with no fault: %s" % (
                len(ctl), ctl)) if ctl else (
                "the failover run left %d blades an empty 0.5 s before its first fault: %s" % (
                    len(pre), pre))
            for t in timing:
                log("NOT JUDGED (%s): %s" % (why, t))
        else:
            problems.extend(timing)
    finally:
        res["liveness"] = log_liveness()
        log("down")
        subprocess.run(TB + ["down"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", tmp])
    res["problems"] = problems
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.table:
        table(res)
    for p in problems:
        log("PROBLEM: " + p)
    if a.check and problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
