#!/usr/bin/env python3
"""Send malformed and foreign frames out of one interface (run in the peer's namespace, on
the veth end facing a seqbond port). Prints, per case, the counter it must raise and by how
much, as "expect COUNTER N" lines.

Usage: inject_frames.py IFACE DST_MAC PEER_MAC OUR_HOST_ID COUNT [--oversize] [--key FILE]
  DST_MAC: the seqbond port's MAC; PEER_MAC: IFACE's own MAC (a known peer port);
  OUR_HOST_ID: the receiving seqbond's host id (hellos claiming it must be refused);
  --key FILE: the receiver holds this cluster key (docs/wire-format.md, "Cluster key"): hellos
  meant for the peer table are signed with it, and the cases of its refusals are added (no
  tag, bad tag, unknown key id, replay); without it, a tagged hello and DATA frame must be
  refused as unexpected.
"""
import hashlib
import os
import socket
import struct
import sys
import time

ETH_P_SB = 0x88B5
HELLO_MAC = bytes.fromhex("035342000001")
STRANGER = bytes.fromhex("02deadbeef01")


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


V = 0x40                                        # version 4 in the high nibble
AUTH = 0x02                                     # shim flag: tagged


def shim(ver_type, flags=0, path=0, seq=0):
    return struct.pack("!BBBBI", ver_type, flags, path, 0, seq)


def key_id(key):
    """The first byte of the key's fingerprint (lib/auth sb_auth_key_fingerprint())."""
    return hashlib.blake2b(b"", digest_size=16, key=key, person=b"seqbond keyid 1").digest()[0]


_seq = [int(time.time() * 1e6)]
NONCE = os.urandom(16)                          # the forged sender's session nonce


def tagged(head, inner, kid, pn_hi=0x1234, gen=0, length=None):
    """A DATA frame flagged AUTH: HEAD (outer header and shim), the 24-byte authentication
    header (length, key id, the receiver's key generation, PN high, a tag that cannot be
    right) and INNER."""
    n = len(head) + 24 + len(inner) if length is None else length
    return head + struct.pack("!HBBI", n, kid, gen, pn_hi) + os.urandom(16) + inner


def signed(frame, key, kid=None, tag=None, seq=None):
    """A hello frame (no trailer yet) with AUTH set and its trailer: key id, crypto
    sequence, session nonce, BLAKE2b tag over the frame with the tag zeroed
    (docs/wire-format.md)."""
    if seq is None:
        _seq[0] += 1
        seq = _seq[0]
    f = bytearray(frame)
    f[15] |= AUTH
    f += struct.pack("!BB2sQ", key_id(key) if kid is None else kid, 0, bytes(2), seq) + \
        NONCE + bytes(16)
    if tag is None:
        tag = hashlib.blake2b(bytes(f), digest_size=16, key=key,
                              person=b"seqbond hello 1").digest()
    f[-16:] = tag
    return bytes(f)

def hello_body(host_id, port_index=0, n_ports=2, agg=bytes.fromhex("025342000063"),
               interval=10, mtu=1500, instance=77, mult=4, flags=0, n_entries=0):
    """Hello body (docs/wire-format.md), without entries."""
    return struct.pack("!II6sBBIHHBBHIIHH", host_id, instance, agg, port_index, n_ports,
                       100000, interval, mtu, mult, flags, 200, 1, 0, n_entries, 0)


def main():
    ifc, dst, peer, our_id, count = sys.argv[1], mac(sys.argv[2]), mac(sys.argv[3]), \
        int(sys.argv[4]), int(sys.argv[5])
    oversize = "--oversize" in sys.argv[6:]
    key = None
    if "--key" in sys.argv[6:]:
        with open(sys.argv[sys.argv.index("--key") + 1]) as kf:
            key = bytes.fromhex(kf.read().split()[0])
    eth = lambda d, s, t=ETH_P_SB: d + s + struct.pack("!H", t)

    def sign(frame):
        """Hellos meant for the peer table: signed when the receiver holds a key, afresh
        for every copy sent (a copy of the same bytes is a replay)."""
        return (lambda: signed(frame, key)) if key is not None else frame

    kid = key_id(key) if key is not None else 0

    def data(d, src, flags, path, seq, inner):
        """A DATA frame, with an authentication header (and a wrong tag) when the receiver
        holds a key, so that it goes on to the lookup of its path."""
        if key is None:
            return eth(d, src) + shim(V, flags, path, seq) + inner
        return tagged(eth(d, src) + shim(V, flags | AUTH, path, seq), inner, kid)
    inner = b"\x08\x00" + bytes(46)                  # elided inner: IPv4 EtherType + payload
    cases = [
        # (counter, frame)
        ("rx_err_truncated", eth(dst, peer) + b"\x20\x01"),
        ("rx_err_truncated", eth(HELLO_MAC, peer) + shim(V | 2) + bytes(10)),
        ("rx_err_truncated", eth(dst, peer) + shim(V, 0) + bytes(8)),   # full inner < 14
        ("rx_err_truncated", eth(HELLO_MAC, peer) + shim(V | 2) +
         hello_body(99, n_entries=3) + bytes(28)),                         # 1 of 3 entries
        ("rx_err_bad_version", eth(dst, peer) + shim(0x10, 1) + inner),   # version 1
        ("rx_err_bad_version", eth(dst, peer) + shim(0xf0, 1) + inner),
        ("rx_err_bad_type", eth(dst, peer) + shim(V | 1, 1) + inner),      # v1's UNSEQ
        ("rx_err_bad_type", eth(dst, peer) + shim(V | 0xf, 1) + inner),
        ("rx_err_bad_flags", eth(dst, peer) + shim(V, 0x81) + inner),
        ("rx_err_bad_flags", eth(HELLO_MAC, peer) + shim(V | 2, 1) + hello_body(99)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, 2, 2)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, 0, 0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) +
         hello_body(99, agg=bytes.fromhex("ffffffffffff"))),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, interval=0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, mtu=20)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, mult=0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99, flags=0x80)),
        ("rx_hello_rejected", sign(eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(our_id))),
        ("rx_hello_rejected", sign(eth(HELLO_MAC, peer) + shim(V | 2) +
                                   hello_body(99, port_index=20, n_ports=30))),
        # A unicast hello for another port (a switch floods it until it learns that MAC):
        # ignored, not taken as news of peer 99.
        ("rx_hello_not_ours", eth(STRANGER, peer) + shim(V | 2) + hello_body(99, flags=0x04)),
        ("rx_unknown_peer", data(dst, STRANGER, 1, 0, 5, inner)),
        ("rx_unknown_peer", data(dst, STRANGER, 0, 1, 0, bytes(60))),
        ("rx_unknown_peer", data(dst, peer, 1, 9, 5, inner)),          # no path 9
        ("rx_foreign", eth(dst, STRANGER, 0x0800) + bytes(46)),
        ("rx_foreign", eth(bytes.fromhex("0180c200000e"), STRANGER, 0x88CC) + bytes(46)),
    ]
    if key is not None:
        hb = eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99)
        dhead = eth(dst, peer) + shim(V, 1 | AUTH, 0, 5)
        cases += [
            ("rx_auth_no_tag", hb),                                        # a keyless host
            ("rx_auth_no_tag", eth(dst, peer) + shim(V, 1, 0, 5) + inner),  # its DATA
            ("rx_auth_bad_tag", signed(hb, key, tag=os.urandom(16))),       # a forger
            ("rx_auth_bad_tag", signed(hb, os.urandom(32), kid=kid)),      # other secret
            # Forged DATA on a real path: a fresh packet number each time, so that the
            # tag, not the number, refuses it.
            ("rx_auth_bad_tag", lambda: tagged(dhead, inner, kid,
                                               pn_hi=struct.unpack("!I", os.urandom(4))[0])),
            ("rx_auth_unknown_key", signed(hb, key, kid=kid ^ 0x5a)),
            ("rx_auth_unknown_key", tagged(dhead, inner, kid ^ 0x5a)),     # DATA, no such key
            ("rx_err_truncated", tagged(dhead, inner, kid, length=999)),   # beyond the frame
            ("rx_err_truncated", tagged(dhead, inner, kid, length=47)),    # no inner EtherType
            ("rx_err_truncated", dhead + bytes(20)),                       # header cut short
            ("rx_auth_unknown_key", tagged(dhead, inner, kid, gen=0x77)),  # not our generation
        ]
    else:
        cases += [
            ("rx_auth_unexpected", signed(eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(99),
                                          os.urandom(32))),
            ("rx_auth_unexpected", tagged(eth(dst, peer) + shim(V, 1 | AUTH, 0, 5), inner, 1)),
        ]
    if oversize:
        cases.append(("rx_err_oversize", eth(dst, peer) + shim(V, 1, 0, 5) + inner +
                      bytes(1600)))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifc, 0))
    expect = {}
    for _ in range(count):
        for counter, frame in cases:
            s.send(frame() if callable(frame) else frame)
            expect[counter] = expect.get(counter, 0) + 1
            time.sleep(0.0005)
        if key is not None:
            # A recorded hello played back: the first is taken (a host 98 that hears
            # nobody, so no path of it comes up), its copy refused.
            f = signed(eth(HELLO_MAC, peer) + shim(V | 2) + hello_body(98), key)
            s.send(f)
            time.sleep(0.0005)
            s.send(f)
            expect["rx_auth_replay"] = expect.get("rx_auth_replay", 0) + 1
            time.sleep(0.0005)
    for counter, n in sorted(expect.items()):
        print("expect %s %d" % (counter, n))


if __name__ == "__main__":
    main()
