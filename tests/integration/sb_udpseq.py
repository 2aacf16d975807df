#!/usr/bin/env python3
"""Numbered UDP datagrams, to see duplicates and gaps across a fault.

  sb_udpseq.py send ADDR PORT SECONDS RATE_PPS     datagrams 1, 2, ... for SECONDS
  sb_udpseq.py recv ADDR PORT SECONDS              prints "arrival_time number" per datagram
  sb_udpseq.py report FILE SINCE                   "received duplicates first_after": how
      many arrived, how many numbers arrived more than once, and the time from SINCE (wall
      clock) to the first datagram at or after it (-1: none)
"""
import socket
import struct
import sys
import time


def send(addr, port, secs, pps):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    n = 0
    start = time.time()
    while time.time() - start < secs:
        n += 1
        try:
            s.sendto(struct.pack("!Q", n) + bytes(56), (addr, port))
        except OSError:
            pass    # no route while the interface is being recreated: a lost datagram
        time.sleep(1.0 / pps)


def recv(addr, port, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    end = time.time() + secs
    while time.time() < end:
        try:
            data = s.recv(2048)
        except socket.timeout:
            continue
        if len(data) >= 8:
            print("%.6f %d" % (time.time(), struct.unpack("!Q", data[:8])[0]), flush=True)


def report(path, since):
    seen = {}
    first = -1.0
    for line in open(path):
        t, n = line.split()
        t, n = float(t), int(n)
        seen[n] = seen.get(n, 0) + 1
        if first < 0 and t >= since:
            first = t - since
    print(sum(seen.values()), sum(1 for v in seen.values() if v > 1), "%.3f" % first)


if __name__ == "__main__":
    a = sys.argv
    if len(a) == 6 and a[1] == "send":
        send(a[2], int(a[3]), float(a[4]), float(a[5]))
    elif len(a) == 5 and a[1] == "recv":
        recv(a[2], int(a[3]), float(a[4]))
    elif len(a) == 4 and a[1] == "report":
        report(a[2], float(a[3]))
    else:
        sys.exit(__doc__)
