#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A diskless blade PXE-boots from a gateway appliance and runs with its root on NFS (issue 36,
prototype); tests/vm/run --scenario diskless starts this.

Gateway (guest b, index 2): the appliance image booted as in vmtest.py, with a second virtio
disk that is the same image's root file system (snapshot=on: nothing is written back), mounted
on /srv/blade and exported over NFS (v3, the kernel server); dnsmasq serves DHCP and TFTP
(vmlinuz, initrd.img and an iPXE script, taken from the blade root's /boot) on the NIC cabled
to the blade's NIC 0: the plain kernel interface (--gateway kernel) or the passthrough
interface sb0p0 of seqbond's port 0 (--gateway seqbond).

Blade (guest a, index 1): no disk, no -kernel; 2 e1000 NICs cabled to the gateway's, NIC 0
first in the boot order. QEMU's e1000 option ROM (iPXE, Debian's ipxe-qemu) does DHCP, loads
the iPXE script by TFTP, which loads the kernel and the image's own initramfs by HTTP and boots
with root=/dev/nfs (initramfs-tools' nfs script: MODULES=most has e1000 and nfs). The blade is
usable when its guest agent, which runs from the NFS root, answers.

--seqbond-blade then starts seqbond on the blade with port 0 as an af_packet member (the
kernel keeps the interface and address the root lives on) and port 1 bound for DPDK, while a
writer on the NFS root records the longest gap between its writes.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest as vt  # noqa: E402

N_PORTS = 2
GW_IP = "%s.2" % vt.SUBNET_PT
EXPORT = "/srv/blade"
TFTP = "/srv/tftp"
log = vt.log


class Gateway(vt.Guest):
    """The appliance image with a second disk holding the blade root; N_PORTS NICs."""

    def start(self, cables):
        cmdline = open(os.path.join(self.image, "cmdline")).read().strip()
        # Two disks carry the label seqbond-root: name the gateway's own.
        cmdline = re.sub(r"root=\S+", "root=/dev/vda", cmdline)
        rootfs = os.path.join(self.image, "rootfs.img")
        self.launch(["-kernel", os.path.join(self.image, "vmlinuz"),
                     "-initrd", os.path.join(self.image, "initrd.img"),
                     "-append", cmdline,
                     "-drive", "file=%s,format=raw,if=virtio,snapshot=on" % rootfs,
                     "-drive", "file=%s,format=raw,if=virtio,snapshot=on" % rootfs],
                    cables, self.n_ports)


class Blade(vt.Guest):
    """No disk and no kernel: the firmware boots NIC 0 (iPXE); N_PORTS NICs."""

    def start(self, cables):
        # SeaBIOS retries the boot after 5 s instead of halting when PXE fails; it (and iPXE
        # through it) write to the serial log: no VGA here.
        self.launch(["-boot", "strict=on,reboot-timeout=5000",
                     "-fw_cfg", "name=etc/sercon-port,string=0x3f8"], cables, self.n_ports)

    def nic_extra(self, i):
        # Only NIC 0 boots (its option ROM); the others carry no ROM at all.
        return ",bootindex=1" if i == 0 else ",romfile="


def gateway_seed(mode):
    if mode == "seqbond":
        files = vt.seed_for("b", 2, N_PORTS, None)
        del files["etc/systemd/network/10-baseline.network"]
    else:
        # No appliance.ini: seqbond@appliance does not start; NIC 0 stays the kernel's.
        files = {
            "etc/hostname": "seqbond-gw\n",
            "etc/systemd/network/10-pxe.network":
                "[Match]\nMACAddress=52:54:00:5b:02:00\n\n[Link]\nRequiredForOnline=no\n\n"
                "[Network]\nAddress=%s/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n" % GW_IP,
        }
    return files


def blade_seed():
    ini = ("; tests/vm/diskless.py: the blade; port 0 through af_packet keeps the NFS root's "
           "interface in the kernel\n[seqbond]\nhost_id = 1\nmac = 02:53:42:00:00:01\n"
           "hello_interval_ms = 100\nhello_multiplier = 5\nadaptive_rate = off\n\n"
           "[exception]\nname = sb0\n\n"
           "[port0]\ndevice = net_af_packet0,iface=@IF0@,qdisc_bypass=0\n"
           "[port1]\ndevice = 0000:00:04.0\n")
    return {
        "etc/hostname": "seqbond-blade\n",
        # Not appliance.ini: seqbond must not start at boot here; --seqbond-blade fills in
        # the interface name and installs it.
        "etc/seqbond/blade.ini.in": ini,
        "etc/systemd/network/10-sb0.network":
            "[Match]\nName=sb0\n\n[Link]\nRequiredForOnline=no\n\n[Network]\n"
            "Address=%s.1/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n" % vt.SUBNET_SB0,
    }


IPXE = """#!ipxe
echo seqbond diskless: ${netX/mac} got ${netX/ip} from ${netX/dhcp-server}
kernel http://%(gw)s:8080/vmlinuz initrd=initrd.img root=/dev/nfs nfsroot=%(gw)s:%(export)s,vers=3,tcp ip=dhcp BOOTIF=01-${netX/mac:hexhyp} rw console=ttyS0,115200 hugepages=256 panic=10
initrd http://%(gw)s:8080/initrd.img
boot
"""


def setup_gateway(gw, mode):
    """Blade root on /srv/blade exported over NFS, dnsmasq with DHCP + TFTP on the PXE NIC."""
    if mode == "seqbond":
        iface = "sb0p0"
        deadline = time.monotonic() + 120
        while gw.sh("ip -4 -o addr show dev sb0p0 | grep -q ' %s/'" % GW_IP,
                    check=False)[0] != 0:
            if time.monotonic() > deadline:
                raise vt.TestError("gateway: sb0p0 has no address %s after 120 s" % GW_IP)
            time.sleep(1)
    else:
        _, out, _ = gw.sh("ip -o link | grep -i 'link/ether 52:54:00:5b:02:00' | "
                          "cut -d: -f2 | tr -d ' '")
        iface = out.strip()
    t = time.monotonic()
    script = IPXE % {"gw": GW_IP, "export": EXPORT}
    gw.sh("set -e; mkdir -p %(e)s %(t)s; mount -o noatime /dev/vdb %(e)s; "
          # The root comes from the kernel command line; the image's fstab names a disk.
          ": > %(e)s/etc/fstab; "
          "cp %(e)s/boot/vmlinuz-* %(t)s/vmlinuz; cp %(e)s/boot/initrd.img-* %(t)s/initrd.img; "
          "printf '%%s' '%(s)s' > %(t)s/boot.ipxe; "
          # fsid: the blade root is a copy of the gateway's own file system, same UUID, and
          # file handles made from the UUID resolve to the gateway's root (ESTALE on mount).
          # The blade mounts it over its NIC 0 (the root) and, for the copy checks, over sb0.
          "echo '%(e)s %(n)s.0/24(%(o)s) %(m)s.0/24(%(o)s)' > /etc/exports; "
          "systemctl start nfs-server; exportfs -v"
          % {"e": EXPORT, "t": TFTP, "s": script.replace("'", "'\\''"), "n": vt.SUBNET_PT,
             "m": vt.SUBNET_SB0, "o": "rw,no_root_squash,no_subtree_check,async,fsid=36"},
          timeout=120)
    gw.sh("dnsmasq --interface=%s --bind-interfaces --port=0 "
          "--dhcp-range=%s.100,%s.150,255.255.255.0,12h --dhcp-boot=boot.ipxe "
          "--enable-tftp --tftp-root=%s --log-dhcp --log-facility=/run/dnsmasq-pxe.log "
          "--dhcp-leasefile=/run/dnsmasq-pxe.leases --pid-file=/run/dnsmasq-pxe.pid "
          ">/dev/null 2>&1 </dev/null" % (iface, vt.SUBNET_PT, vt.SUBNET_PT, TFTP))
    # Kernel and initramfs by HTTP (TCP, windowed): TFTP's one block per round trip took
    # 48 s for the 8 MB kernel through seqbond's passthrough under TCG.
    gw.sh("cd %s && nohup python3 -m http.server 8080 --bind %s >/run/http-pxe.log 2>&1 "
          "</dev/null &" % (TFTP, GW_IP))
    log("gateway: NFS export %s, dnsmasq (DHCP, TFTP) and HTTP on %s ready in %.1f s"
        % (EXPORT, iface, time.monotonic() - t))
    return iface


MARKS = (("iPXE", "iPXE"), ("Linux version", "kernel"), ("IP-Config: .* complete", "initramfs DHCP"),
         ("Welcome to", "systemd on the NFS root"), ("login:", "login prompt"))


class SerialWatch(threading.Thread):
    """Wall seconds since QEMU started at which each of MARKS first shows in the serial log."""

    def __init__(self, guest):
        super().__init__(daemon=True)
        self.guest = guest
        self.seen = {}
        self.stop = False

    def run(self):
        while not self.stop and len(self.seen) < len(MARKS):
            try:
                text = open(self.guest.serial, errors="replace").read()
            except OSError:
                text = ""
            now = time.monotonic() - self.guest.t_start
            for pat, what in MARKS:
                if what not in self.seen and re.search(pat, text):
                    self.seen[what] = now
            time.sleep(0.25)

    def summary(self):
        return ", ".join("%s %.0f s" % (w, self.seen[w]) for _, w in MARKS if w in self.seen)


def boot_blade(blade, timeout):
    watch = SerialWatch(blade)
    watch.start()
    t_agent = blade.agent_sync(timeout)
    _, up, _ = blade.sh("cut -d' ' -f1 /proc/uptime")
    uptime = float(up.split()[0])
    _, root, _ = blade.sh("findmnt -n -o SOURCE,FSTYPE,OPTIONS /")
    if " nfs" not in root:
        raise vt.TestError("blade: / is not on NFS: %s" % root.strip())
    firmware = t_agent - uptime
    time.sleep(0.5)
    watch.stop = True
    log("blade: guest agent answers %.1f s after QEMU started: firmware, iPXE, DHCP and TFTP "
        "%.1f s, kernel to agent %.1f s; serial log (s after QEMU start): %s; root %s"
        % (t_agent, firmware, uptime, watch.summary(), root.strip()))
    return t_agent, firmware


# The longest a file system on the blade may stop taking synced writes while seqbond starts,
# restarts or loses a cable. Under TCG the writer below manages about one write a second
# with nothing else happening (longest gap 1.1 s); an NFS retransmission after a lost frame
# costs seconds more, a broken mount never ends (docs/decisions/2026-12-06-diskless-checks.md).
STALL_MAX = 6.0
# hello_interval_ms x hello_multiplier of blade_seed() and vt.seed_for(): a silently dead
# cable is declared down after this long.
DETECT = 0.5


def nfs_io(blade, gw, path="/root", via="its NIC 0 (the root)"):
    """Write 8 MiB of random bytes to PATH on the blade (an NFS mount of the gateway's
    EXPORT), fsync, and compare them with what the gateway's disk holds; MB/s."""
    name = "%s/diskless.bin" % path
    t = time.monotonic()
    blade.sh("dd if=/dev/urandom of=%s bs=1M count=8 conv=fsync 2>/dev/null; sync" % name,
             timeout=180)
    took = time.monotonic() - t
    _, a, _ = blade.sh("md5sum %s" % name)
    _, b, _ = gw.sh("md5sum %s/root/diskless.bin" % EXPORT)
    if a.split()[0] != b.split()[0]:
        raise vt.TestError("a file written on the blade over %s differs on the gateway" % via)
    log("blade: 8 MiB written over %s and fsynced in %.1f s (%.2f MB/s); the gateway reads "
        "the same bytes" % (via, took, 8.39 / took))
    return 8.39 / took


def split_gaps(ts, t_split):
    """Gaps between successive timestamps TS (s): ((count, longest) of those that end before
    t_split, (count, longest) of those that end at or after it); longest -1 when none. A gap
    that spans t_split is the one t_split caused, so it counts after."""
    g = list(zip(ts, ts[1:]))
    before = [b - a for a, b in g if b < t_split]
    after = [b - a for a, b in g if b >= t_split]
    return ((len(before), max(before) if before else -1.0),
            (len(after), max(after) if after else -1.0))


class Writer:
    """A shell loop on the blade appending a timestamp to a file and syncing it every 50 ms:
    the longest gap between two writes is how long that file system stopped answering."""

    def __init__(self, blade, path):
        self.blade = blade
        self.path = path
        blade.sh("rm -f %(p)s; nohup sh -c 'while :; do date +%%s.%%N >> %(p)s; sync %(p)s; "
                 "sleep 0.05; done' >/dev/null 2>&1 </dev/null & echo $! > /run/writer.pid"
                 % {"p": path})

    def stop(self, t_split):
        """Stop writing; split_gaps() of the writes around t_split (blade clock)."""
        self.blade.sh("kill $(cat /run/writer.pid)")
        _, out, _ = self.blade.sh("cat %s" % self.path)
        return split_gaps([float(x) for x in out.split() if re.match(r"^[\d.]+$", x)], t_split)


def blade_now(blade):
    return float(blade.sh("date +%s.%N")[1])


def check_stall(what, gap, bound=STALL_MAX):
    if gap < 0:
        raise vt.TestError("%s: the writer wrote nothing" % what)
    if gap > bound:
        raise vt.TestError("%s: a synced write over NFS waited %.2f s "
                           "(at most %.2f)" % (what, gap, bound))


def check_sb0(blade, gw, count=10):
    """Every path up on both sides, and ping over sb0 answered (one loss allowed: the TCG
    vCPU stalls); returns the ping's text for the summary."""
    vt.wait_paths(blade, N_PORTS, 60)
    vt.wait_paths(gw, N_PORTS, 30)
    sent, got, avg, _ = vt.ping(blade, "%s.2" % vt.SUBNET_SB0, count=count)
    log("blade: %d paths up; ping gateway over sb0 %d/%d, avg %s ms" % (N_PORTS, got, sent, avg))
    if got < sent - 1:
        raise vt.TestError("blade: ping over sb0 answered %d of %d" % (got, sent))
    return "%d/%d avg %s ms" % (got, sent, avg)


def seqbond_blade(blade, gw, cables):
    """seqbond on the blade: port 0 through af_packet (the NFS root's NIC), port 1 for DPDK,
    while a writer on the root records the longest gap between writes."""
    _, out, _ = blade.sh("ip -o link | grep -i 'link/ether 52:54:00:5b:01:00' | "
                         "cut -d: -f2 | tr -d ' '")
    if0 = out.strip()
    blade.sh("sed 's/@IF0@/%s/' /etc/seqbond/blade.ini.in > /etc/seqbond/appliance.ini" % if0)
    w = Writer(blade, "/root/stall.log")
    time.sleep(10)
    t = time.monotonic()
    g0 = blade_now(blade)
    rc, out, err = blade.sh("systemctl start %s" % vt.SERVICE, timeout=240, check=False)
    took = time.monotonic() - t
    if rc != 0:
        _, jr, _ = blade.sh("journalctl -b -u %s --no-pager | tail -n 25" % vt.SERVICE,
                            check=False)
        raise vt.TestError("blade: systemctl start %s exited %d after %.0f s:\n%s"
                           % (vt.SERVICE, rc, took, jr))
    log("blade: %s active in %.1f s (port 0 af_packet on %s, port 1 bound for DPDK)"
        % (vt.SERVICE, took, if0))
    time.sleep(3)
    (n0, before), (n1, stall) = w.stop(g0)
    log("blade: NFS root writer (append + fsync, 50 ms apart): before seqbond, longest gap "
        "%.2f s in %d gaps; from systemctl start on, %.2f s in %d gaps"
        % (before, n0, stall, n1))
    check_stall("seqbond starting on the blade", stall)
    res = {"start": took, "stall": stall, "ping": check_sb0(blade, gw)}
    res["root"] = nfs_io(blade, gw)
    res["sb0"], copy_gap = nfs_over_sb0(blade, gw)
    res["cut"] = cut_during_copy(blade, gw, cables, copy_gap)
    res["restart"] = restart_keeps_root(blade, gw)
    return res


def nfs_over_sb0(blade, gw):
    """The gateway's export mounted a second time, over sb0 (both ports striped), and the
    same 8 MiB write as over the root's NIC, beside a synced writer on that mount: (MB/s,
    the writer's longest gap), the gap being what a copy alone makes it wait."""
    blade.sh("mkdir -p /mnt/sb0 && mount -t nfs -o vers=3,tcp,nolock %s.2:%s /mnt/sb0"
             % (vt.SUBNET_SB0, EXPORT), timeout=90)
    w = Writer(blade, "/mnt/sb0/root/copy.log")
    time.sleep(2)
    rate = nfs_io(blade, gw, "/mnt/sb0/root", "sb0")
    (n, gap), _ = w.stop(blade_now(blade) + 1.0)
    log("blade: writer on the sb0 mount beside that copy: longest gap %.2f s in %d gaps"
        % (gap, n))
    if gap < 0:
        raise vt.TestError("blade: the writer on the sb0 mount wrote nothing")
    return rate, gap


def reply_gaps(out, t_split):
    """split_gaps() of the replies in `ping -D` output."""
    return split_gaps([float(m.group(1)) for m in
                       re.finditer(r"^\[([\d.]+)\] \d+ bytes from", out, re.M)], t_split)


def cut_during_copy(blade, gw, cables, copy_gap):
    """Cable 1 (DPDK on both hosts) goes silent for 5 s in the middle of a 16 MiB copy over
    sb0: the copy completes intact; pings over sb0 every 100 ms go unanswered for at most
    DETECT + 1 s; a synced writer on the same mount waits at most STALL_MAX, or COPY_GAP
    (its longest wait beside a copy without a cut, nfs_over_sb0()) + DETECT + 1 s when
    that is more: under TCG its writes are seconds apart beside a copy anyway, as far apart
    as the guests are slow."""
    w = Writer(blade, "/mnt/sb0/root/cut.log")
    time.sleep(4)
    pid = blade.spawn("dd if=/dev/urandom of=/mnt/sb0/root/cut.bin bs=1M count=16 conv=fsync "
                      "2>&1; sync")
    ping = blade.spawn("ping -D -n -i 0.1 -W 1 -c 90 %s.2" % vt.SUBNET_SB0)
    time.sleep(2)
    t_cut = blade_now(blade)
    cables.black_hole(1, True)
    time.sleep(5)
    cables.black_hole(1, False)
    rc, out, err = blade.reap(pid, 240, "dd over sb0 (cable cut)")
    _, pout, _ = blade.reap(ping, 60, "ping over sb0 (cable cut)")
    time.sleep(2)
    (n0, before), (n1, during) = w.stop(t_cut)
    if rc != 0:
        raise vt.TestError("blade: the copy over sb0 during the cable cut failed (exit %d): %s"
                           % (rc, (out + err).strip()[-300:]))
    _, a, _ = blade.sh("md5sum /mnt/sb0/root/cut.bin")
    _, b, _ = gw.sh("md5sum %s/root/cut.bin" % EXPORT)
    if a.split()[0] != b.split()[0]:
        raise vt.TestError("a file copied over sb0 during the cable cut differs on the gateway")
    (_, p_before), (_, p_cut) = reply_gaps(pout, t_cut)
    bound = max(STALL_MAX, copy_gap + DETECT + 1.0)
    log("blade: cable 1 silent for 5 s during a 16 MiB copy over sb0: the copy is intact; "
        "pings over sb0 every 100 ms: longest gap between replies %.2f s before the cut, "
        "%.2f s from it; writer on the same mount: longest gap %.2f s in %d gaps before, "
        "%.2f s in %d gaps from it (at most %.2f)"
        % (p_before, p_cut, before, n0, during, n1, bound))
    if p_cut < 0 or p_cut > DETECT + 1.0:
        raise vt.TestError("cable cut: pings over sb0 went unanswered for %.2f s (at most "
                           "detection %.1f s + 1 s)" % (p_cut, DETECT))
    check_stall("the cable cut under a copy over sb0", during, bound)
    check_sb0(blade, gw, count=5)
    return p_cut, during


def restart_keeps_root(blade, gw):
    """systemctl restart seqbond on the blade: the root keeps answering (its interface is
    the kernel's, port 0 an af_packet member), and sb0 comes back."""
    w = Writer(blade, "/root/restart.log")
    time.sleep(4)
    t0 = blade_now(blade)
    t = time.monotonic()
    blade.sh("systemctl restart %s" % vt.SERVICE, timeout=240)
    took = time.monotonic() - t
    time.sleep(3)
    _, (n, gap) = w.stop(t0)
    log("blade: seqbond restarted in %.1f s; NFS root writer from the restart on: %d gaps, "
        "longest gap %.2f s" % (took, n, gap))
    check_stall("seqbond restarting on the blade", gap)
    check_sb0(blade, gw, count=5)
    return gap


def diagnose(gw, workdir):
    """What the gateway saw, into gateway.txt of the work directory."""
    if not gw.alive() or gw.qga is None:
        return
    cmds = ["ip -s -s link", "cat /run/dnsmasq-pxe.log | tail -n 20", "ss -tni",
            "cat /proc/net/rpc/nfsd", "journalctl -b --no-pager -u %s | tail -n 30" % vt.SERVICE,
            "timeout 20 seqbond-console %s show port stats all" % vt.INSTANCE,
            "timeout 20 seqbond-console %s show peers" % vt.INSTANCE]
    with open(os.path.join(workdir, "gateway.txt"), "w") as f:
        for c in cmds:
            try:
                rc, out, err = gw.sh(c, timeout=40, check=False)
                f.write("### %s (exit %d)\n%s%s\n" % (c, rc, out, err))
            except vt.TestError as e:
                f.write("### %s: %s\n" % (c, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", required=True, help="directory from seqbond-image build")
    ap.add_argument("--scenario", default="diskless")
    ap.add_argument("--gateway", choices=("kernel", "seqbond"), default="kernel",
                    help="serve PXE on the gateway's plain NIC 0 or on seqbond's sb0p0")
    ap.add_argument("--seqbond-blade", action="store_true",
                    help="then start seqbond on the blade (needs --gateway seqbond)")
    ap.add_argument("--boot-timeout", type=int, default=300)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="seqbond-vm-diskless.")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(1))
    gw = Gateway("b", 2, args.image, workdir, "e1000", N_PORTS, gateway_seed(args.gateway))
    blade = Blade("a", 1, args.image, workdir, "e1000", N_PORTS, blade_seed())
    cables = vt.Cables(N_PORTS)
    status, summary = 0, []
    try:
        cables.setup()
        gw.start(cables)
        t_gw = gw.agent_sync(args.boot_timeout)
        if args.gateway == "seqbond":
            vt.boot([gw], "uio_pci_generic", N_PORTS, args.boot_timeout)
        log("gateway: guest agent after %.0f s" % t_gw)
        iface = setup_gateway(gw, args.gateway)
        blade.start(cables)
        t_blade, fw = boot_blade(blade, args.boot_timeout)
        rate = nfs_io(blade, gw)
        # A TFTP block costs one round trip: what one costs to the PXE address (through
        # sb0p0 with --gateway seqbond).
        sent, got, avg, _ = vt.ping(blade, GW_IP, count=10)
        log("blade: ping the gateway's %s on %s: %d/%d, avg %s ms" % (GW_IP, iface, got, sent,
                                                                   avg))
        summary.append("gateway (%s, PXE on %s) agent %.0f s; blade PXE -> NFS root usable "
                       "%.0f s after QEMU start (firmware+TFTP %.0f s); NFS write %.2f MB/s; "
                       "ping %s %d/%d avg %s ms"
                       % (args.gateway, iface, t_gw, t_blade, fw, rate, iface, got, sent, avg))
        if args.seqbond_blade:
            r = seqbond_blade(blade, gw, cables)
            summary.append("blade seqbond active in %.0f s, longest root write gap %.2f s, "
                           "sb0 ping %s; NFS write over sb0 %.2f MB/s, over NIC 0 %.2f; "
                           "cable cut during a copy: intact, sb0 replies stopped %.2f s, longest "
                           "write gap %.2f s; restart: longest root gap %.2f s"
                           % (r["start"], r["stall"], r["ping"], r["sb0"], r["root"],
                              r["cut"][0], r["cut"][1], r["restart"]))
    except vt.TestError as e:
        print("vm: FAIL: %s (logs: %s)" % (e, workdir), flush=True)
        diagnose(gw, workdir)
        status = 1
        args.keep = True
    except KeyboardInterrupt:
        status = 1
    finally:
        for g in (blade, gw):
            g.kill()
        cables.teardown()
        if args.keep:
            log("logs kept in %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print("vm: %s: diskless: %s" % ("PASS" if status == 0 else "FAIL",
                                    " | ".join(summary) or "-"), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
