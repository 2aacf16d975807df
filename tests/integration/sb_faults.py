#!/usr/bin/env python3
"""Figures for the fault tests: goodput around a fault from the receiver's iperf3 intervals,
and the wall-clock times seqbond logs its path events at.

  sb_faults.py goodput SERVER_JSON T0 FAULT HEAL REMAIN
      SERVER_JSON: iperf3 server output (-J -i 0.1); T0: wall-clock time the client started
      (the server's first interval starts then, within a connect); FAULT, HEAL: wall-clock
      times of the fault and of its removal (HEAL 0: never); REMAIN: the share of the
      paths' capacity left during the fault (3/4 for one of 4 equal paths).
      Prints one line "before B during D low L recovery R after A target X" (Mbit/s and
      seconds): B the median before the fault, D the median from FAULT + 1 s to HEAL, L the
      lowest 0.1 s interval after the fault, R the time from the fault to the start of the
      first run of 5 intervals in a row at >= 90 % of B x REMAIN (-1: never), A the median
      after HEAL + 1 s, X = 0.9 x B x REMAIN.
  sb_faults.py stray IFACE DST_MAC SRC_MAC PATH SEQ [--tagged KEY_ID]
      Send one version 4 DATA frame (elided IPv4 payload) out of IFACE: a frame on a valid
      path whose sequence number is wherever SEQ says (the stray-frame test); --tagged: with
      the AUTH flag, the authentication header naming key id KEY_ID (hellos carry it for all
      to read) and a random tag, as a forger would against a host with a cluster key.
  sb_faults.py event LOG REGEX SINCE
      The wall-clock time of the first line of LOG at or after SINCE that matches REGEX and
      ends in "at <time>" (seqbond's path event lines), or "none".
  sb_faults.py downs LOG PEER_LOG MIN_STALL_MS [SINCE [PEER]]
      Every "path ... down" line of LOG (at or after SINCE, of peer PEER only when given), each with what explains it: a stall of the peer's
      TX lcore (or of this host's: the peer's verdict comes back as one-way) of at least
      MIN_STALL_MS logged in PEER_LOG or LOG ("TX lcore stalled S ms ... at R", R when it
      ran again) that covers the line's time (R - S ms - 50 ms <= T <= R + 100 ms): a peer
      that sent no hello for the detection time is silent, whatever the reason. One line
      per down: "explained <time> by <S> ms" or "unexplained <time> <line>".
  sb_faults.py stalls SINCE UNTIL MIN_STALL_MS LOG...
      How many freezes the hosts' logs report between SINCE and UNTIL ("TX lcore stalled S ms
      ... at R", S >= MIN_STALL_MS, R in the window): stalls of several hosts whose ends lie
      within 50 ms of each other are one freeze of the machine, counted once.
"""
import json
import re
import statistics
import sys


def intervals(path):
    d = json.load(open(path))
    out = []
    for iv in d.get("intervals", []):
        s = iv["sum"]
        out.append((s["start"], s["end"], s["bits_per_second"] / 1e6))
    return out


def goodput(path, t0, fault, heal, remain):
    ivs = [(t0 + a, t0 + b, mbit) for a, b, mbit in intervals(path)]
    before = [m for a, b, m in ivs if a >= t0 + 1 and b <= fault]
    during_end = heal if heal > 0 else float("inf")
    during = [m for a, b, m in ivs if a >= fault + 1 and b <= during_end]
    after = [m for a, b, m in ivs if heal > 0 and a >= heal + 1]
    after_fault = [(a, m) for a, b, m in ivs if b > fault and b <= during_end]
    b_med = statistics.median(before) if before else 0.0
    target = 0.9 * b_med * remain
    recovery = -1.0
    run = 0
    for i, (a, m) in enumerate(after_fault):
        run = run + 1 if m >= target else 0
        if run == 5:
            recovery = max(0.0, after_fault[i - 4][0] - fault)
            break
    print("before %.1f during %.1f low %.1f recovery %.2f after %.1f target %.1f" % (
        b_med, statistics.median(during) if during else 0.0,
        min((m for a, m in after_fault), default=0.0), recovery,
        statistics.median(after) if after else 0.0, target))


def event(log, regex, since):
    pat = re.compile(regex)
    for line in open(log, errors="replace"):
        m = re.search(r" at (\d+\.\d+)\s*$", line)
        if m and pat.search(line) and float(m.group(1)) >= since:
            print(m.group(1))
            return
    print("none")


def downs(log, peer_log, min_stall_ms, since=0.0, peer=None):
    at = re.compile(r" at (\d+\.\d+)\s*$")
    stalls = []
    for f in (peer_log, log):
        for line in open(f, errors="replace"):
            m = re.search(r"TX lcore stalled ([0-9.]+) ms .* at (\d+\.\d+)\s*$", line)
            if m and float(m.group(1)) >= min_stall_ms:
                stalls.append((float(m.group(2)), float(m.group(1)) / 1000.0))
    for line in open(log, errors="replace"):
        m = at.search(line)
        if not m or not re.search(r"path [0-9]+ down", line):
            continue
        if peer is not None and not re.search(r"peer %s path " % re.escape(peer), line):
            continue
        t = float(m.group(1))
        if t < since:
            continue
        why = [s for r, s in stalls if r - s - 0.05 <= t <= r + 0.1]
        if why:
            print("explained %.6f by %.1f ms" % (t, max(why) * 1000))
        else:
            print("unexplained %.6f %s" % (t, line.strip()))


def stalls(since, until, min_stall_ms, logs):
    ends = []
    for f in logs:
        for line in open(f, errors="replace"):
            m = re.search(r"TX lcore stalled ([0-9.]+) ms .* at (\d+\.\d+)\s*$", line)
            if m and float(m.group(1)) >= min_stall_ms and since <= float(m.group(2)) <= until:
                ends.append(float(m.group(2)))
    n, last = 0, None
    for t in sorted(ends):
        if last is None or t - last > 0.05:
            n += 1
        last = t
    print(n)


def stray(ifc, dst, src, path, seq, tagged=False, key_id=0):
    import os
    import socket
    import struct
    # version 4 DATA, ELIDED (and AUTH with the 24-byte authentication header and a tag no
    # forger can get right: the receiver holds a cluster key and refuses it before its
    # window: rx_auth_bad_tag under the cluster key's id, which hellos carry for all to read)
    inner = b"\x08\x00" + bytes(46)
    head = (bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) +
            struct.pack("!HBBBBI", 0x88B5, 0x40, 0x03 if tagged else 0x01, path, 0,
                        seq & 0xffffffff))
    if tagged:
        head += struct.pack("!HBBI", len(head) + 24 + len(inner), key_id, 0, seq >> 32) + \
            os.urandom(16)
    frame = head + inner
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifc, 0))
    s.send(frame)


def main():
    if len(sys.argv) >= 7 and sys.argv[1] == "goodput":
        goodput(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]),
                float(sys.argv[6]))
    elif len(sys.argv) in (7, 9) and sys.argv[1] == "stray":
        stray(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]),
              sys.argv[7:8] == ["--tagged"], int(sys.argv[8]) if len(sys.argv) == 9 else 0)
    elif len(sys.argv) == 5 and sys.argv[1] == "event":
        event(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif 5 <= len(sys.argv) <= 7 and sys.argv[1] == "downs":
        downs(sys.argv[2], sys.argv[3], float(sys.argv[4]),
              float(sys.argv[5]) if len(sys.argv) > 5 else 0.0,
              sys.argv[6] if len(sys.argv) > 6 else None)
    elif len(sys.argv) >= 6 and sys.argv[1] == "stalls":
        stalls(float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
