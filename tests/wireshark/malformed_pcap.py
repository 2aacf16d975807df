#!/usr/bin/env python3
"""Write a pcap of malformed seqbond frames for the dissector test, and what each should be.

malformed_pcap.py OUT.pcap EXPECT.json --bases VALID.pcap [--count N] [--seed S]

Frames (docs/wire-format.md, version 4), all with the seqbond EtherType. The bases are the
valid frames of VALID.pcap, which mkframes.c writes with lib/wire's encoder and lib/auth's tags
(hellos with and without the cluster key's trailer, brief ones, a probe, DATA frames with and
without the authentication header, one Ethernet padded), and a DATA frame with the whole inner
Ethernet frame (ARP) built here; each is cut after every byte of the shim and beyond (a probe
up to CUT_MAX bytes). Then every version x type; every flags value on DATA and HELLO; every
path id; each absurd hello field, trailer (either reserved byte set), entry and DATA
authentication header, and key generations 0 and 255 (any value decodes); then seeded
random mutations of the bases up to N frames. EXPECT.json holds, per class (truncated,
bad_version, bad_type, bad_flags, bad_path, bad_hello, bad_entry), the frame numbers the
reference rules below (those of lib/wire/sb_wire.c) put in it, and the frames that carry the
seqbond EtherType at all.

The encoder here builds the systematic variants; it is checked first against mkframes' frames
of the same fields (tags apart: this script holds no key), so both describe one format.
"""
import json
import random
import struct
import sys

ETHERTYPE = 0x88B5
HDR = 14 + 8
HELLO_LEN = 40
ENTRY_LEN = 28
BRIEF_LEN = 8
VERSION = 4
AUTH_LEN = 44          # hello trailer: key id, gen, 2 reserved, crypto sequence, nonce, tag
AUTH_TAG_OFF = 28      # the tag in the trailer
DATA_AUTH_LEN = 24     # DATA authentication header: length, key id, gen, PN high, tag
DATA_TAG_OFF = 30      # the tag in a DATA frame
CUT_MAX = 200          # cuts stop here (a probe's padding beyond is all alike)


def eth(dst, src, etype):
    return bytes(dst) + bytes(src) + struct.pack("!H", etype)


def shim(version, ftype, flags, path, seq, path_seq=0):
    return struct.pack("!BBBBI", (version << 4) | ftype, flags, path, path_seq, seq)


PORT_MAC = [0x02, 0x53, 0x42, 0xAA, 0x00, 0x01]
PEER_MAC = [0x02, 0x53, 0x42, 0xBB, 0x00, 0x01]
HELLO_DST = [0x03, 0x53, 0x42, 0x00, 0x00, 0x01]


HELLO_FMT = "!II6sBBIHHBBHIIH"    # the 40-byte fixed part (2 bytes reserved at the end)
ENTRY_FMT = "!IBBBBIIIII"       # host, port, flags, key id, reserved, measurements


def entry(host_id=2, port=0, flags=3, rx=1000, lost=0, rate=99000, owd_min=120, owd=150,
          key_id=0):
    return struct.pack(ENTRY_FMT, host_id, port, flags, key_id, 0, rx, lost, rate, owd_min, owd)


def hello_body(host_id=1, instance=0x6B2CFC73, agg=(2, 0x53, 0x42, 0, 0, 1), port=0, n_ports=4,
               rate=100000, interval=10, mtu=1500, mult=4, hflags=0, probe_ms=200, hseq=9,
               tx_us=123456, entries=None, n_entries=None):
    entries = [entry(), entry(port=1, flags=7, key_id=0x26)] if entries is None else entries
    n = len(entries) if n_entries is None else n_entries
    return struct.pack(HELLO_FMT, host_id, instance, bytes(agg), port, n_ports, rate, interval,
                       mtu, mult, hflags, probe_ms, hseq, tx_us, n) + bytes(2) + b"".join(entries)


def hello(flags=0, path=0, **kw):
    return eth(HELLO_DST, PORT_MAC, ETHERTYPE) + shim(VERSION, 2, flags, path, 0) + \
        hello_body(**kw)


NONCE = bytes(range(0xA0, 0xB0))


def auth_trailer(key_id=0x26, gen=3, seq=1796490793120969, nonce=NONCE, tag=bytes(range(16)),
                 reserved=0):
    """A hello's trailer: @p gen the sender's key generation (mkframes' HELLO_GEN), @p reserved
    its bytes 2-3."""
    return struct.pack("!BBHQ16s16s", key_id, gen, reserved, seq, nonce, tag)


def hello_auth(pad_to=0, **kw):
    """A hello with its authentication trailer after the entries (in a probe's padding)."""
    trailer = kw.pop("trailer", None)
    f = hello(flags=0x02, **kw) + (auth_trailer() if trailer is None else trailer)
    return f + bytes(max(0, pad_to - len(f)))


def ipv4_tcp():
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 1, 0x4000, 64, 6, 0, bytes([10, 99, 0, 1]),
                     bytes([10, 99, 0, 2]))
    tcp = struct.pack("!HHIIBBHHH", 40000, 5201, 1, 0, 0x50, 0x02, 64240, 0, 0)
    return ip + tcp


def arp(target_bcast):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, bytes(PORT_MAC),
                       bytes([10, 99, 0, 1]), bytes(6 if target_bcast else PEER_MAC),
                       bytes([10, 99, 0, 2]))


def data_auth(length, key_id=0x26, gen=0xC1, pn_hi=7, tag=bytes(range(16))):
    """A DATA frame's authentication header (after the shim): @p gen the receiver's key
    generation (mkframes' DATA_GEN)."""
    return struct.pack("!HBBI16s", length, key_id, gen, pn_hi, tag)


def data_elided(version=VERSION, ftype=0, flags=1, path=2, seq=3112703338, payload=None,
                pad_to=0, **auth):
    """Elided IPv4/TCP; flags 3 (AUTH): the authentication header, its length the frame's
    (or auth["length"]), then zero padding up to @p pad_to bytes as Ethernet adds it."""
    inner = struct.pack("!H", 0x0800) + (ipv4_tcp() if payload is None else payload)
    hdr = eth(PEER_MAC, PORT_MAC, ETHERTYPE) + shim(version, ftype, flags, path, seq)
    if flags & 0x02 and not flags & ~0x03:
        length = auth.pop("length", len(hdr) + DATA_AUTH_LEN + len(inner))
        hdr += data_auth(length, **auth)
    f = hdr + inner
    return f + bytes(max(0, pad_to - len(f)))


def data_full(ftype=0, flags=0, path=1, seq=77):
    inner = eth(PEER_MAC, PORT_MAC, 0x0806) + arp(False)
    return eth(PEER_MAC, PORT_MAC, ETHERTYPE) + shim(VERSION, ftype, flags, path, seq) + inner


def classify(f):
    """Reference rules (lib/wire/sb_wire.c sb_wire_parse, sb_wire_data_auth_get,
    sb_wire_hello_decode, sb_wire_hello_auth_get, sb_wire_hello_entry_get): the
    classes a frame falls in; None when it is not seqbond's EtherType."""
    if len(f) < 14 or struct.unpack("!H", f[12:14])[0] != ETHERTYPE:
        return None
    if len(f) < HDR:
        return {"truncated"}
    version, ftype, flags, path = f[14] >> 4, f[14] & 0x0F, f[15], f[16]
    out = set()
    if version != VERSION:      # nothing past the version is read (or shown)
        return {"bad_version"}
    if path > 15:
        out.add("bad_path")
    if ftype not in (0, 2):
        return out | {"bad_type"}
    if flags & ~0x03 or (ftype == 2 and flags & ~0x02):
        return out | {"bad_flags"}
    if ftype == 2:
        if len(f) < HDR + HELLO_LEN:
            return out | {"truncated"}
        (host_id, _, agg, port, n_ports, _, interval, mtu, mult, hflags, _, _, _,
         n) = struct.unpack(HELLO_FMT, f[HDR:HDR + HELLO_LEN - 2])
        if host_id == 0 or n_ports == 0 or port >= n_ports or interval == 0 or mult == 0 or \
                agg[0] & 1 or mtu < 68 or hflags & ~0x0F:
            return out | {"bad_hello"}
        elen = BRIEF_LEN if hflags & 0x08 else ENTRY_LEN    # BRIEF: 8-byte entries
        if (len(f) - HDR - HELLO_LEN) // elen < n:
            return out | {"truncated"}
        if flags & 0x02:                                    # sb_wire_hello_auth_get
            o = HDR + HELLO_LEN + n * elen
            if len(f) - o < AUTH_LEN:
                return out | {"truncated"}
            if f[o + 2:o + 4] != bytes(2) or f[o + 4:o + 12] == bytes(8):
                return out | {"bad_hello"}
        for i in range(n):
            o = HDR + HELLO_LEN + i * elen
            e_host, _, e_flags = struct.unpack("!IBB", f[o:o + 6])
            if e_host == 0 or e_flags & ~0x07:
                out.add("bad_entry")
        return out
    inner_min = 2 if flags & 0x01 else 14
    need = HDR + (DATA_AUTH_LEN if flags & 0x02 else 0) + inner_min
    if len(f) < need:
        return out | {"truncated"}
    if flags & 0x02:                                        # sb_wire_data_auth_get
        length = struct.unpack("!H", f[HDR:HDR + 2])[0]     # key id and gen: any value
        if length < HDR + DATA_AUTH_LEN + inner_min or length > len(f):
            return out | {"truncated"}
    return out


def read_pcap(path):
    """The frames of a little-endian pcap (mkframes' output)."""
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[:4])[0] == 0xA1B2C3D4, "not a little-endian pcap"
    frames, o = [], 24
    while o + 16 <= len(data):
        n = struct.unpack("<I", data[o + 8:o + 12])[0]
        frames.append(data[o + 16:o + 16 + n])
        o += 16 + n
    return frames


def same_but_tag(a, b, tag_off):
    return len(a) == len(b) and a[:tag_off] == b[:tag_off] and \
        a[tag_off + 16:] == b[tag_off + 16:]


def check_encoder(valid):
    """This encoder makes mkframes' first frames, tags apart (mkframes.c says which)."""
    hello_tag = HDR + HELLO_LEN + 2 * ENTRY_LEN + AUTH_TAG_OFF
    checks = [("authenticated hello", valid[0], hello_auth(), hello_tag),
              ("hello without a key", valid[3], hello(entries=[entry()]), None),
              ("authenticated DATA", valid[4], data_elided(flags=3), DATA_TAG_OFF),
              ("DATA without a key", valid[9], data_elided(seq=1), None)]
    for what, c, py, tag_off in checks:
        if not (c == py if tag_off is None else same_but_tag(c, py, tag_off)):
            sys.exit("malformed_pcap: this script's %s is not mkframes' (lib/wire's):\n"
                     "  C:      %s\n  Python: %s" % (what, c.hex(), py.hex()))


def main():
    out, expect_file = sys.argv[1], sys.argv[2]
    count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else 2000
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rnd = random.Random(seed)
    valid = read_pcap(sys.argv[sys.argv.index("--bases") + 1])
    check_encoder(valid)
    frames = []
    # mkframes' version 4 frames (one of its DATA frames with other packet numbers), and a
    # whole inner frame without a key.
    bases = [f for f in valid if f[14] >> 4 == VERSION]
    bases = [b for i, b in enumerate(bases) if i not in (5, 6)] + [data_full()]
    for b in bases:                                  # cut after every byte past the EtherType
        frames += [b[:n] for n in range(14, min(len(b), CUT_MAX))]
    for v in range(16):                              # every version x type
        frames += [data_elided(version=v, ftype=t) for t in range(16)]
    frames += [data_elided(flags=fl) for fl in range(256)]    # every flags value
    frames += [hello(flags=fl) for fl in range(1, 256)]
    frames += [data_elided(path=p) for p in range(256)]       # every path id
    frames += [hello(host_id=0), hello(n_ports=0), hello(port=4), hello(interval=0),
               hello(agg=(3, 0x53, 0x42, 0, 0, 1)), hello(mtu=67), hello(path=200),
               hello(mult=0), hello(hflags=16), hello(hflags=3), hello(hflags=4),
               hello(hflags=8, entries=[entry()[:8], entry(port=1)[:8]]),
               hello(hflags=8, entries=[entry()[:8], entry(flags=4)[:8]]),
               hello(hflags=8, n_entries=3, entries=[entry()[:8], entry(port=1)[:8]]),
               hello(n_entries=3), hello(n_entries=65535), hello(entries=[]),
               hello(entries=[entry(host_id=0)]), hello(entries=[entry(), entry(flags=8)]),
               hello(entries=[entry(), entry(flags=4, key_id=0x26)]),
               hello(hflags=8, entries=[entry()[:8], entry(flags=0x0c, key_id=1)[:8]]),
               hello_auth(trailer=auth_trailer(reserved=1)),
               hello_auth(trailer=auth_trailer(reserved=0x100)),
               hello_auth(trailer=auth_trailer(gen=0)), hello_auth(trailer=auth_trailer(gen=255)),
               hello_auth(trailer=auth_trailer(seq=0)),
               hello_auth(entries=[entry(), entry(flags=0x84)]),
               hello_auth(hflags=8, entries=[entry()[:8], entry(port=1)[:8]]),
               hello_auth(host_id=0), hello_auth()[:-1],
               data_elided(version=3, flags=3), data_elided(version=2, flags=3),
               data_elided(flags=3, gen=0), data_elided(flags=3, gen=255),
               data_elided(flags=3, length=47),
               data_elided(flags=3, length=48), data_elided(flags=3, length=89),
               data_elided(flags=3, length=88, pad_to=100), data_elided(flags=3, length=0),
               data_elided(flags=3, payload=b"\xde\xad", pad_to=60),
               data_elided(flags=3, pn_hi=0xFFFFFFFF, key_id=0)]
    if len(frames) >= count:
        sys.exit("malformed_pcap: %d frames before the mutations, --count %d" % (
            len(frames), count))
    while len(frames) < count:                       # seeded mutations of the shim and beyond
        f = bytearray(rnd.choice(bases))
        for _ in range(rnd.randint(1, 4)):
            f[rnd.randrange(14, len(f))] = rnd.randrange(256)
        frames.append(bytes(f[:rnd.randint(14, len(f))]))
    frames = frames[:count]

    with open(out, "wb") as p:
        p.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # Ethernet
        for i, f in enumerate(frames):
            p.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(f),
                                len(f)))
            p.write(f)
    expect = {"frames": len(frames), "seqbond": [], "truncated": [], "bad_version": [],
              "bad_type": [], "bad_flags": [], "bad_path": [], "bad_hello": [], "bad_entry": []}
    for i, f in enumerate(frames, 1):
        c = classify(f)
        if c is None:
            continue
        expect["seqbond"].append(i)
        for k in c:
            expect[k].append(i)
    with open(expect_file, "w") as e:
        json.dump(expect, e)
    print("%d frames, %d with the seqbond EtherType: %s" % (
        len(frames), len(expect["seqbond"]),
        ", ".join("%s %d" % (k, len(v)) for k, v in expect.items()
                  if k not in ("frames", "seqbond"))))


if __name__ == "__main__":
    main()
