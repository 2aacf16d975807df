#!/usr/bin/env python3
"""Check the counters seqbond prints when it stops (app/control/sb_report.c) for consistency.

Usage: sb_counters.py LOG [LOG...]   (one seqbond log per host; exit 1 on any violation)

Per host, from the last report in its log:
  mbufs     the log says "all N mbufs back in the pool" and no "mbuf leak"
  rx        frames read from member ports = foreign + malformed (per reason) + hellos
            that decoded (and passed the cluster key's checks) + refused for their tags
            (rx_auth_*) + unknown peer + data + frames a full ring between lcores dropped
            + what a stopped port's ring held when it was started again
  reorder   data frames offered to the windows = released in order + released reordered
            + late + duplicate + out of range + stray + jump refused + held at exit (summed
            over peers, and the peers that left the table) + held by a window when its peer
            left the table (rx_peer_gone_drop)
  to kernel frames released towards the kernel (in order + reordered + late delivered)
            = accepted by the exception port + its queue overflow + too big for it + still
            queued at exit
  exception the datapath's count of frames read from and handed to the exception path equals
            the exception path's own (exc_rx = exc_rx_frames, exc_tx = exc_tx_frames)
  tx        frames read from the kernel = unicast frames sent or dropped (no path, too big,
            queue full, the peer's set-aside frames full) + flooded frames (each once; their copies are in tx_data and the
            drops, counted by tx_flood_copies) + waiting at exit; a port taken down counts
            the frames left in its queue as tx_queue_drop although they were sent, so the
            difference must lie in 0..tx_queue_drop
Prints the drop counters that are not zero.
"""
import re
import sys

DROPS = ["tx_no_path", "tx_peer_drop", "tx_hello_drop", "tx_too_big", "tx_queue_drop", "tx_nombuf", "rx_foreign",
         "rx_unknown_peer", "rx_hello_rejected", "rx_late_dropped", "rx_late_delivered",
         "rx_duplicate", "rx_out_of_range", "rx_stray", "rx_peer_gone_drop", "exc_tx_drop",
         "exc_too_big", "tx_flood_slow_drop", "rx_port_stopped_drop"]


def parse(path):
    text = open(path, errors="replace").read()
    start = text.rfind("seqbond counters (host")
    if start < 0:
        return None, text
    rep = text[start:]
    c = {}
    for m in re.finditer(r"^  ([a-z_]+) +(\d+)$", rep, re.M):
        c[m.group(1)] = int(m.group(2))
    r = {}
    for m in re.finditer(r"^  reorder: (.*)$", rep, re.M):
        for k, v in re.findall(r"([a-z_]+) (\d+)", m.group(1)):
            r[k] = r.get(k, 0) + int(v)
    return (c, r), text


def check(path):
    errors = []
    parsed, text = parse(path)
    if parsed is None:
        return ["no counters report (did seqbond stop cleanly?)"], {}
    c, r = parsed
    if "mbuf leak" in text or not re.search(r"all \d+ mbufs back in the pool", text):
        errors.append("mbufs: " + (re.findall(r".*mbuf.*", text) or ["no mbuf line"])[-1])
    errs = sum(v for k, v in c.items() if k.startswith("rx_err_"))
    auth = sum(v for k, v in c.items() if k.startswith("rx_auth_"))
    rx = (c["rx_foreign"] + errs + c["rx_hello"] + auth + c["rx_unknown_peer"] + c["rx_data"]
          + c.get("ring_full", 0) + c.get("rx_port_stopped_drop", 0))
    if c["rx"] != rx:
        errors.append("rx %d != sum of outcomes %d" % (c["rx"], rx))
    ro = sum(r.get(k, 0) for k in ("in_order", "reordered", "late", "duplicate",
                                    "out_of_range", "stray", "jump_refused", "occupancy"))
    ro += c.get("rx_peer_gone_drop", 0)
    if c["rx_data"] != ro:
        errors.append("rx_data %d != reorder outcomes + held %d (%s)" % (c["rx_data"], ro, r))
    # late_policy fill delivers a late frame only into a hole the window skipped
    if r.get("late_filled", 0) > c["rx_late_delivered"] or r.get("late_filled", 0) > sum(
            r.get(k, 0) for k in ("lost_rule", "lost_timeout", "lost_slide")):
        errors.append("late_filled %d: more than delivered late (%d) or skipped" % (
            r.get("late_filled", 0), c["rx_late_delivered"]))
    up = r.get("in_order", 0) + r.get("reordered", 0) + c["rx_late_delivered"]
    down = c["exc_tx"] + c["exc_tx_drop"] + c["exc_too_big"] + c["exc_queued"]
    if up != down:
        errors.append("released to the kernel %d != handed over/dropped/queued %d" % (up, down))
    for dp_name, exc_name in (("exc_rx", "exc_rx_frames"), ("exc_tx", "exc_tx_frames")):
        if c.get(exc_name) is None:
            errors.append("no %s in the report (the exception path's counters)" % exc_name)
        elif c[dp_name] != c[exc_name]:
            errors.append("%s %d != exception path's %s %d" % (dp_name, c[dp_name], exc_name,
                                                               c[exc_name]))
    tx = (c["tx_data"] + c["tx_queue_drop"] + c["tx_no_path"] + c["tx_too_big"]
          + c.get("tx_peer_drop", 0)
          - c["tx_flood_copies"] + c["tx_flood"] + c["exc_pending"])
    if not 0 <= tx - c["exc_rx"] <= c["tx_queue_drop"]:
        errors.append("exc_rx %d vs sent + dropped + pending %d" % (c["exc_rx"], tx))
    summary = {k: c[k] for k in DROPS if c.get(k)}
    summary.update({k: c[k] for k in c if k.startswith(("rx_err_", "rx_auth_")) and c[k]})
    summary.update({"reorder_" + k: v for k, v in r.items()
                    if k.startswith("lost_") and v})
    summary["rx"] = c["rx"]
    summary["exc_rx"] = c["exc_rx"]
    return errors, summary


def main():
    bad = 0
    for path in sys.argv[1:]:
        errors, summary = check(path)
        print("# %s: %s" % (path, " ".join("%s=%d" % kv for kv in summary.items())))
        for e in errors:
            print("FAIL: %s: %s" % (path, e))
            bad += 1
        if not errors:
            print("# %s: counters consistent, all mbufs back" % path)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
