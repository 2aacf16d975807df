#!/usr/bin/env bash
# late_policy: a frame that arrives after the reorder window gave its number up.
#
# 2 x 100 Mbit/s, 1 ms one-way delay with +-1 ms jitter on both links (FIFO kept), and a hold
# of 200 us (reorder_timeout_us = 200, reorder_timeout_max_us = 0): much shorter than the
# jitter, so the window skips many gaps whose frames are still on the way. One 8 s TCP stream
# a -> b, once with late_policy = drop and once with fill (the default):
#   - drop: the setup must make late frames (>= 1000 rx_late_dropped at b), each a loss to TCP;
#   - fill: the late frames are delivered into the holes their skips left, each at most once:
#     >= 1000 rx_late_delivered, equal to the window's late_filled, at most the numbers it
#     skipped; nothing dropped late (this network makes no copies), and the sender
#     retransmits at most a tenth of what it did with drop;
#   - both runs: counters and mbufs balance (sb_counters.py).
# Goodput of both is printed (2026-12-04: fill 188.8 Mbit/s, 11 retransmits; drop 161.6,
# 15 570 retransmits).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

declare -A goodput retr logs
for pol in drop fill; do
	sb_up --links 2 --rate 100 --delay 1,1 --jitter 1 \
		--config-extra 'reorder_timeout_us = 200' --config-extra 'reorder_timeout_max_us = 0' \
		--config-extra "late_policy = $pol"
	sb_ping_ok a b
	sb_stream a b
	goodput[$pol]=$SB_GOODPUT
	retr[$pol]=$(json_get "$SB_WORK/iperf-a-b.json" 'd["end"]["sum_sent"].get("retransmits", 0)')
	sb_down
	logs[$pol]=$SB_WORK/$pol-b.log
	cp "$SEQBOND_TESTBED_DIR/b.log" "${logs[$pol]}"
	cp "$SEQBOND_TESTBED_DIR/a.log" "$SB_WORK/$pol-a.log"
done

bad=0
ld=$(sb_report_counter rx_late_dropped "${logs[drop]}")
info "drop: ${goodput[drop]} Mbit/s, ${retr[drop]} retransmits, $ld late frames dropped at b"
((ld >= 1000)) || { echo "FAIL: drop: only $ld late frames: the setup does not make them"; bad=1; }

fd=$(sb_report_counter rx_late_dropped "${logs[fill]}")
fl=$(sb_report_counter rx_late_delivered "${logs[fill]}")
filled=$(sb_report_reorder late_filled "${logs[fill]}")
skipped=$(($(sb_report_reorder lost_timeout "${logs[fill]}") + $(sb_report_reorder lost_rule "${logs[fill]}") +
	$(sb_report_reorder lost_slide "${logs[fill]}")))
info "fill: ${goodput[fill]} Mbit/s, ${retr[fill]} retransmits; at b $fl late frames delivered" \
	"(late_filled $filled of $skipped numbers skipped), $fd dropped"
((fl >= 1000)) || { echo "FAIL: fill: only $fl late frames delivered"; bad=1; }
((filled == fl)) || { echo "FAIL: fill: late_filled $filled != rx_late_delivered $fl"; bad=1; }
((filled <= skipped)) || { echo "FAIL: fill: $filled filled, only $skipped skipped"; bad=1; }
((fd == 0)) || { echo "FAIL: fill: $fd late frames dropped (no copies on this network)"; bad=1; }
((retr[fill] * 10 <= retr[drop])) ||
	{ echo "FAIL: fill: ${retr[fill]} retransmits, more than a tenth of drop's ${retr[drop]}"; bad=1; }

python3 "$SB_LIB_DIR/sb_counters.py" "$SB_WORK/drop-a.log" "${logs[drop]}" \
	"$SB_WORK/fill-a.log" "${logs[fill]}" || bad=1
((bad == 0)) || fail "late frames"
info "PASS"
