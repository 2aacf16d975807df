#!/usr/bin/env python3
"""Send malformed and foreign frames out of one interface (run in the peer's namespace, on
the veth end facing a seqbond port). Prints, per case, the counter it must raise and by how
much, as "expect COUNTER N" lines.

Usage: inject_frames.py IFACE DST_MAC PEER_MAC OUR_HOST_ID COUNT [--oversize]
  DST_MAC: the seqbond port's MAC; PEER_MAC: IFACE's own MAC (a known peer port);
  OUR_HOST_ID: the receiving seqbond's host id (hellos claiming it must be refused).
"""
import socket
import struct
import sys
import time

ETH_P_SB = 0x88B5
HELLO_MAC = bytes.fromhex("035342000001")
STRANGER = bytes.fromhex("02deadbeef01")


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def shim(ver_type, flags=0, path=0, seq=0):
    return struct.pack("!BBBBI", ver_type, flags, path, 0, seq)


def hello_body(host_id, port_index=0, n_ports=2, agg=bytes.fromhex("025342000063"),
               interval=10, mtu=1500, instance=77, mult=4, flags=0, n_entries=0):
    """Version 2 hello body (docs/wire-format.md), without entries."""
    return struct.pack("!II6sBBIHHBBHIIHH", host_id, instance, agg, port_index, n_ports,
                       100000, interval, mtu, mult, flags, 200, 1, 0, n_entries, 0)


def main():
    ifc, dst, peer, our_id, count = sys.argv[1], mac(sys.argv[2]), mac(sys.argv[3]), \
        int(sys.argv[4]), int(sys.argv[5])
    oversize = "--oversize" in sys.argv[6:]
    eth = lambda d, s, t=ETH_P_SB: d + s + struct.pack("!H", t)
    inner = b"\x08\x00" + bytes(46)                  # elided inner: IPv4 EtherType + payload
    cases = [
        # (counter, frame)
        ("rx_err_truncated", eth(dst, peer) + b"\x20\x01"),
        ("rx_err_truncated", eth(HELLO_MAC, peer) + shim(0x22) + bytes(10)),
        ("rx_err_truncated", eth(dst, peer) + shim(0x20, 0) + bytes(8)),   # full inner < 14
        ("rx_err_truncated", eth(HELLO_MAC, peer) + shim(0x22) +
         hello_body(99, n_entries=3) + bytes(28)),                         # 1 of 3 entries
        ("rx_err_bad_version", eth(dst, peer) + shim(0x10, 1) + inner),   # version 1
        ("rx_err_bad_version", eth(dst, peer) + shim(0xf0, 1) + inner),
        ("rx_err_bad_type", eth(dst, peer) + shim(0x21, 1) + inner),      # v1's UNSEQ
        ("rx_err_bad_type", eth(dst, peer) + shim(0x2f, 1) + inner),
        ("rx_err_bad_flags", eth(dst, peer) + shim(0x20, 0x81) + inner),
        ("rx_err_bad_flags", eth(HELLO_MAC, peer) + shim(0x22, 1) + hello_body(99)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, 2, 2)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, 0, 0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) +
         hello_body(99, agg=bytes.fromhex("ffffffffffff"))),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, interval=0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, mtu=20)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, mult=0)),
        ("rx_err_bad_hello", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(99, flags=0x80)),
        ("rx_hello_rejected", eth(HELLO_MAC, peer) + shim(0x22) + hello_body(our_id)),
        ("rx_hello_rejected", eth(HELLO_MAC, peer) + shim(0x22) +
         hello_body(99, port_index=20, n_ports=30)),
        # A unicast hello for another port (a switch floods it until it learns that MAC):
        # ignored, not taken as news of peer 99.
        ("rx_hello_not_ours", eth(STRANGER, peer) + shim(0x22) + hello_body(99, flags=0x04)),
        ("rx_unknown_peer", eth(dst, STRANGER) + shim(0x20, 1, 0, 5) + inner),
        ("rx_unknown_peer", eth(dst, STRANGER) + shim(0x20, 0, 1, 0) + bytes(60)),
        ("rx_unknown_peer", eth(dst, peer) + shim(0x20, 1, 9, 5) + inner),  # no path 9
        ("rx_foreign", eth(dst, STRANGER, 0x0800) + bytes(46)),
        ("rx_foreign", eth(bytes.fromhex("0180c200000e"), STRANGER, 0x88CC) + bytes(46)),
    ]
    if oversize:
        cases.append(("rx_err_oversize", eth(dst, peer) + shim(0x20, 1, 0, 5) + inner +
                      bytes(1600)))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifc, 0))
    expect = {}
    for _ in range(count):
        for counter, frame in cases:
            s.send(frame)
            expect[counter] = expect.get(counter, 0) + 1
            time.sleep(0.0005)
    for counter, n in sorted(expect.items()):
        print("expect %s %d" % (counter, n))


if __name__ == "__main__":
    main()
