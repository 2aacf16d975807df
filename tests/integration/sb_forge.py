#!/usr/bin/env python3
"""Forge seqbond frames from one switch port, knowing only what hellos flood to every port.

The attacks of issue 33, each against the hosts heard on the switch (docs/wire-format.md has
the frames). Run in the namespace of a port attached to a switch (seqbond-testbed attach S);
it first listens to the group hellos for --learn seconds (host ids, instances, port MACs and
indexes, hello sequence numbers), then sends until --time runs out or it is signalled.

Usage: sb_forge.py ATTACK IFACE [options]
  learn        print what the hellos on IFACE tell (one line per host port, with the key id
               and crypto sequence of authenticated hellos), nothing sent
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
  pcap-hello-flood  --host A --out FILE [--count 10000]: nothing sent; FILE gets COUNT
               authenticated hellos as a forger here makes them, for tcpreplay to send at
               a fixed rate: A's host id, instance and port index (its port heard here), the
               AUTH flag, the key id A's hellos carry, a rising crypto sequence (from A's), a
               random session nonce, a broken tag (random), no entries; from IFACE's own MAC
               to the hello group address. Prints 'frames N len L'
  pcap-junk    --out FILE [--count 10000] [--len 106]: nothing sent; FILE gets COUNT frames
               of LEN bytes with EtherType 0x88B6 (nobody's) from IFACE's MAC to the hello
               group address: the same load without anything seqbond checks
  replay       --pcap FILE [--pps 2000]: send the frames of FILE (captured elsewhere, e.g.
               by tcpdump at a switch port) out of IFACE as they are, nothing rewritten.
               Frames captured from a host's port carry that port's MAC as their source:
               the switch learns it here and, until that port sends again, takes that MAC
               over for an instant (frames to it come here), as jump does
  pcap-info    --pcap FILE: no IFACE; prints 'frames N data D seq MIN MAX pn_hi MIN MAX
               len MIN MAX' (seqbond DATA frames' sequence numbers and the high halves of
               their packet numbers, when authenticated) about FILE
Options: --learn S (default 1.0), --time S (default 0: until SIGTERM/SIGINT), --seed N.
Frames leave from IFACE's own MAC unless an attack needs another port's (jump, loss,
replay): a port that took another's MAC at a hundred frames a second would black-hole that
port's frames at the switch whatever seqbond does (port security is the switch's business).

Wire version: frames are made with the version of the hellos heard (4 now). With a
cluster key, what is made here from scratch has no AUTH flag (hellos but pcap-hello-flood's,
DATA frames): receivers refuse it as rx_auth_no_tag; a host's own hello altered (restart,
loss) keeps its flag and its old trailer: rx_auth_bad_tag (or the check budget refuses it).

Prints '# ...' lines as it goes, then 'sent N' (frames) on stdout. Exit 0; 2 bad usage;
3 what the attack needs was not heard (no such host on this switch, no DATA to read).
"""
import argparse
import os
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
F_ELIDED, F_AUTH = 0x01, 0x02
HELLO = struct.Struct("!II6sBBIHHBBHIIHH")  # the fixed 40 bytes at offset 22
HF_PROBE, HF_PARTIAL, HF_UNICAST, HF_BRIEF = 0x01, 0x02, 0x04, 0x08
ENTRY = struct.Struct("!IBBHIIIII")     # 28 bytes; brief entries are the first 8
EF_MTU_OK, EF_TX = 0x01, 0x02
ETH_HLEN, SHIM_LEN = 14, 8
HELLO_OFF = ETH_HLEN + SHIM_LEN
HELLO_AUTH = struct.Struct("!B3xQ16s16s")   # key id, crypto sequence, nonce, tag: 44 bytes
DATA_AUTH = struct.Struct("!HBBI16s")    # length, key id, reserved, PN high, tag: 24 bytes
PCAP_HDR = struct.Struct("<IHHiIII")     # libpcap file header, microseconds, little endian
PCAP_REC = struct.Struct("<IIII")
LINKTYPE_ETHERNET = 1
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
        self.key_id = self.cseq = None  # of its authenticated hellos
        self.update(hello, frame)

    def update(self, hello, frame):
        (self.host, self.instance, self.agg, self.index, self.n_ports, self.rate,
         self.interval, self.mtu, self.mult, self.flags, self.probe_ms, self.seq,
         self.tx_time, self.n_entries, _) = hello
        self.version = frame[ETH_HLEN] >> 4
        # A template: the frame less its probe padding, and the bytes after its entries
        # (version 4: the authentication trailer when the shim has AUTH, which a probe
        # carries before its padding).
        elen = 8 if self.flags & HF_BRIEF else ENTRY.size
        end = HELLO_OFF + HELLO.size + self.n_entries * elen
        if frame[ETH_HLEN + 1] & F_AUTH and len(frame) >= end + HELLO_AUTH.size:
            self.key_id, self.cseq, _, _ = HELLO_AUTH.unpack_from(frame, end)
            if self.flags & HF_PROBE:
                end += HELLO_AUTH.size
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
              "mtu %d mult %d hello_seq %d version %d key_id %s crypto_seq %s" %
              (host, idx, mac_str(p.mac), p.instance, mac_str(p.agg), p.n_ports, p.rate,
               p.interval, p.mtu, p.mult, p.seq, p.version,
               "-" if p.key_id is None else p.key_id, "-" if p.cseq is None else p.cseq))


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


def pcap_write(path, frames):
    """Write @frames (bytes each) to the libpcap file @path, 10 us apart (tcpreplay's --pps
    sets the pace it sends them at)."""
    with open(path, "wb") as f:
        f.write(PCAP_HDR.pack(0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET))
        for i, fr in enumerate(frames):
            t = 1000000000 + i // 100000
            f.write(PCAP_REC.pack(t, i % 100000 * 10, len(fr), len(fr)) + fr)


def pcap_read(path):
    """The frames of the libpcap file @path (either byte order, us or ns timestamps)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < PCAP_HDR.size:
        sys.exit("%s: not a pcap file" % path)
    magic = struct.unpack_from("<I", data)[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        order = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        order = ">"
    else:
        sys.exit("%s: not a pcap file (magic %08x; pcapng is not read)" % (path, magic))
    if struct.unpack_from(order + "I", data, 20)[0] != LINKTYPE_ETHERNET:
        sys.exit("%s: not Ethernet frames" % path)
    off = PCAP_HDR.size
    while off + PCAP_REC.size <= len(data):
        _, _, incl, orig = struct.unpack_from(order + "IIII", data, off)
        off += PCAP_REC.size
        if incl != orig:
            note("a frame cut by the capture (%d of %d bytes): skipped" % (incl, orig))
        else:
            yield data[off:off + incl]
        off += incl


def attack_pcap_hello_flood(sw, a):
    victim = sw.host_port(a.host)
    if victim.key_id is None:
        note("host %d's hellos here carry no cluster key tag: nothing to forge" % a.host)
        sys.exit(3)
    nonce = os.urandom(16)
    frames = []
    for i in range(a.count):
        # The shim's flags say AUTH; the trailer right after the (no) entries.
        f = bytearray(hello(sw, sw.mac, a.host, victim.instance, victim.agg, victim.index,
                            victim.n_ports, victim.rate, victim.mtu, victim.seq + 1 + i, [],
                            interval=victim.interval, mult=victim.mult))
        f[ETH_HLEN + 1] |= F_AUTH
        f[ETH_HLEN + 2] = victim.index
        f += HELLO_AUTH.pack(victim.key_id, (victim.cseq + 1 + i) & (1 << 64) - 1, nonce,
                             os.urandom(16))
        frames.append(bytes(f))
    pcap_write(a.out, frames)
    note("%d hellos of host %d port %d (key id %d, crypto sequence from %d), tags broken, "
         "from %s, in %s" % (a.count, a.host, victim.index, victim.key_id, victim.cseq + 1,
                             mac_str(sw.mac), a.out))
    print("frames %d len %d" % (len(frames), len(frames[0]) if frames else 0))


def attack_pcap_junk(sw, a):
    if a.len < ETH_HLEN:
        sys.exit("pcap-junk: --len must be at least %d" % ETH_HLEN)
    frame = HELLO_GROUP + sw.mac + struct.pack("!H", ETH_P_JUNK) + bytes(a.len - ETH_HLEN)
    pcap_write(a.out, [frame] * a.count)
    note("%d frames of %d bytes, EtherType 0x%04X, from %s, in %s" %
         (a.count, a.len, ETH_P_JUNK, mac_str(sw.mac), a.out))
    print("frames %d len %d" % (a.count, a.len))


def attack_replay(sw, a):
    frames = list(pcap_read(a.pcap))
    note("replaying %d frames of %s at %g a second, nothing rewritten" %
         (len(frames), a.pcap, a.pps))
    for i in paced(a.pps, 0):
        if i >= len(frames):
            break
        sw.send(frames[i])


def pcap_info(path):
    """'frames N data D seq MIN MAX pn_hi MIN MAX len MIN MAX' of the pcap at @path."""
    n, seqs, his, lens = 0, [], [], []
    for f in pcap_read(path):
        n += 1
        lens.append(len(f))
        if len(f) < ETH_HLEN + SHIM_LEN or f[12:14] != b"\x88\xb5":
            continue
        ver_type, flags, _, _, seq = SHIM.unpack_from(f, ETH_HLEN)
        if ver_type & 0x0F != TYPE_DATA:
            continue
        seqs.append(seq)
        if flags & F_AUTH and len(f) >= ETH_HLEN + SHIM_LEN + DATA_AUTH.size:
            his.append(DATA_AUTH.unpack_from(f, ETH_HLEN + SHIM_LEN)[3])

    def rng(v):
        return "%d %d" % (min(v), max(v)) if v else "- -"
    print("frames %d data %d seq %s pn_hi %s len %s" % (n, len(seqs), rng(seqs), rng(his),
                                                        rng(lens)))


ATTACKS = {
    "learn": attack_learn, "jump": attack_jump, "restart": attack_restart,
    "add-ports": attack_add_ports, "slow-peer": attack_slow_peer, "fill": attack_fill,
    "loss": attack_loss, "wait-hello": attack_wait_hello,
    "pcap-hello-flood": attack_pcap_hello_flood, "pcap-junk": attack_pcap_junk,
    "replay": attack_replay,
}
# What needs no listening first, and what needs no interface at all.
NO_LEARN = ("wait-hello", "pcap-junk", "replay")
NO_IFACE = ("pcap-info",)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("attack", choices=sorted(list(ATTACKS) + list(NO_IFACE)))
    ap.add_argument("iface", nargs="?")
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
    ap.add_argument("--out")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--len", type=int, default=106)
    ap.add_argument("--pcap")
    # Intermixed: IFACE may come after the options too, optional as it is (pcap-info).
    a = ap.parse_intermixed_args()
    need = {"jump": ("src_host", "to"), "restart": ("host",), "add-ports": ("host",),
            "loss": ("host",), "wait-hello": ("host",), "pcap-hello-flood": ("host", "out"),
            "pcap-junk": ("out",), "replay": ("pcap",), "pcap-info": ("pcap",)}
    for opt in need.get(a.attack, ()):
        if getattr(a, opt) is None:
            ap.error("%s needs --%s" % (a.attack, "from" if opt == "src_host" else opt))
    if a.attack in NO_IFACE:
        pcap_info(a.pcap)
        return
    if a.iface is None:
        ap.error("%s needs IFACE" % a.attack)
    if a.pps is None:
        a.pps = {"loss": 3, "replay": 2000}.get(a.attack, 100)
    random.seed(a.seed)

    def on_signal(*_):
        global stop
        stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    sw = Switch(a.iface)
    if a.attack not in NO_LEARN:
        sw.listen(a.learn)
        note("%s: heard %s on %s (%d ports)" % (a.attack, sw.hosts(), a.iface, len(sw.ports)))
    if a.attack not in ("learn", "wait-hello") and not a.attack.startswith("pcap-"):
        note("%s: attacking" % a.attack)
    ATTACKS[a.attack](sw, a)
    print("sent %d" % sw.sent, flush=True)


if __name__ == "__main__":
    main()
