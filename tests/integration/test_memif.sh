#!/usr/bin/env bash
# seqbond on memif member ports (seqbond-testbed up --port-type memif: DPDK memif pairs, no
# kernel between the two seqbond processes; the short form of `bench/run --only capacity`):
#   - 4 links come up at both ends, ping crosses;
#   - one iperf3 TCP stream a -> b for 5 s through sb0 carries more than one 1 GbE link's
#     worth (1000 Mbit/s: a memif pair has no rate of its own, the CPU is the limit);
#   - what the receiver's TCP queued out of order (TcpExtTCPOFOQueue) is explained by frames
#     b's reorder window gave up on and counted (lost_timeout, then late): seqbond itself
#     never delivers out of order. On these unshaped links the receiving process is the
#     bottleneck and a path's memif ring can run more than the hold behind the others when
#     this 2-core machine deschedules it; such frames must stay under 1 in 1000;
#   - both hosts' exit reports are consistent and every mbuf is back (sb_counters.py).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

sb_up --links 4 --port-type memif
sb_ping_ok a b
sb_nstat_reset b
json=$SB_WORK/iperf.json
good=$(tb iperf --from a --to b --time 5 --json "$json") || fail "iperf3 over sb0 failed"
ofo=$(sb_nstat_report b | awk '$1 == "TcpExtTCPOFOQueue" {print $2}')
info "memif, 4 links: sb0 a -> b $good Mbit/s, receiver TcpExtTCPOFOQueue ${ofo:-0}"
float_ge "$good" 1000 || fail "goodput $good Mbit/s over 4 memif links, below 1000"
sb_down
blog=$SEQBOND_TESTBED_DIR/b.log
data=$(sb_report_counter rx_data "$blog")
gave_up=$(sb_report_reorder lost_timeout "$blog")
late=$(($(sb_report_counter rx_late_delivered "$blog") + $(sb_report_counter rx_late_dropped "$blog")))
info "b: $data data frames, $gave_up numbers given up by timeout, $late frames late"
((${ofo:-0} == 0 || late > 0)) ||
	fail "the receiver queued $ofo segments out of order, and b counted no late frame"
((late * 1000 <= data)) || fail "$late late frames in $data: more than 1 in 1000"
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$blog" ||
	fail "counters or mbufs"
info "PASS"
