#!/usr/bin/env bash
# Unicast hellos (docs/design.md, "Unicast hellos"): 3 hosts,
# 2 x 100 Mbit/s. While a streams to b and c exchanges nothing, a's ports hello b unicast at
# the fast pace and send their group hellos at the idle pace: b hears a at least 60 times a
# second per path (100 nominal), c at most 15 (10 nominal), and a counts unicast hellos
# (tx_hello_unicast). A cut of a's port 1 towards b is still detected at both ends within the
# fast detection time (10 ms x 4) plus slack; a leaves unicast probes out on paths that carry
# full-size data and no path leaves the stripe for its MTU; a cut of a's port 0 towards c, which is idle
# towards a, within the idle one (100 ms x 4) plus slack; no other a <-> b path goes down.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
command -v nft >/dev/null || fail "missing tool 'nft' (run tools/install-deps)"
FAST_LIMIT=0.12	# as test_idle_pace: slack for this shared 2-core machine and the 1 ms tick
IDLE_LIMIT=0.55
sb_up --hosts 3 --links 2 --rate 100
sb_ping_ok a b
B=$(sb_addr b)

now() { date +%s.%N; }
# heard H P: hellos host H heard from host id P, all paths summed.
heard() {
	sb_telemetry "$1" "/seqbond/paths,$2" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(v["hellos_rx"] for v in d.values() if isinstance(v, dict) and "hellos_rx" in v))'
}
key() { sb_telemetry "$1" /seqbond/info "$2"; }

sb_in b iperf3 -s -D -1 -p 5201 >/dev/null 2>&1
sleep 0.3
# Long enough for the slowest run of what follows (telemetry reads take up to a second
# each on a busy machine); stopped once the cuts are done.
sb_in a iperf3 -c "$B" -p 5201 -t 90 -i 1 >"$SB_WORK/iperf.txt" 2>&1 &
client=$!
sleep 1.5

# c is not in use with a: the kernels' chatter that reaches it (a flooded frame every second
# or two) is below the 8 data frames a second that put a peer in use.
d0=$(key a tx_data)
s0=$(now); hb0=$(heard b 1); hc0=$(heard c 1); u0=$(key a tx_hello_unicast)
sleep 3
s1=$(now); hb1=$(heard b 1); hc1=$(heard c 1); u1=$(key a tx_hello_unicast)
if ! kill -0 "$client" 2>/dev/null || (($(key a tx_data) <= d0)); then
	cat "$SB_WORK/iperf.txt"
	fail "a's stream to b is not running"
fi
read -r dt rb rc ru <<<"$(python3 -c 'import sys
t0, t1 = float(sys.argv[1]), float(sys.argv[2]); dt = t1 - t0
print("%.2f" % dt, *[int(round(int(n) / dt / 2)) for n in sys.argv[3:]])' "$s0" "$s1" \
	$((hb1 - hb0)) $((hc1 - hc0)) $((u1 - u0)))"
info "a streaming to b, ${dt} s: b hears a $rb hellos a second per path, c $rc; a sends $ru unicast hellos a second per port"
((rb >= 60)) || fail "b hears a only $rb hellos a second per path: not the fast pace"
((rc <= 15)) || fail "c hears a $rc hellos a second per path: not the idle pace"
((ru >= 60)) || fail "a sends only $ru unicast hellos a second per port"
# A path carrying full-size data needs no probe (docs/design.md, "Unicast hellos"): a left
# probes out, and b, which counts that data as proof of the MTU, never reported an MTU
# fault (the path would have left a's stripe).
el=$(key a tx_probe_elided)
info "a left out $el unicast probes"
((el > 0)) || fail "a sent every unicast probe despite full-size data on its paths"
! grep -E "peer 2 path [0-9]+ out of the stripe: mtu" "$SEQBOND_TESTBED_DIR/a.log" ||
	fail "a took a path to b out of the stripe for its MTU"

# cut_case WHAT PEER ID PORT LIMIT: cut a's PORT towards PEER (host id ID) and check that both
# ends logged that path down within LIMIT s of the rule in place; then heal.
cut_case() {
	local what=$1 peer=$2 id=$3 port=$4 limit=$5 t t1
	t=$(now)
	tb cut a "$port" --to "$peer"
	t1=$(now)
	sleep 1.2
	sb_check_detect "$what" a "peer $id path [0-9]+ down \(port $port " "$t" "$limit" "$t1"
	sb_check_detect "$what" "$peer" "peer 1 path [0-9]+ down \(port $port " "$t" "$limit" "$t1"
	tb heal a "$port"
	sleep 1
}
cut_case "cut towards b (in use)" b 2 1 "$FAST_LIMIT"
cut_case "cut towards c (idle)" c 3 0 "$IDLE_LIMIT"
kill -0 "$client" 2>/dev/null || { cat "$SB_WORK/iperf.txt"; fail "iperf3 a -> b ended early"; }
pkill -INT -f "iperf3 -c $B -p 5201" || true
wait "$client" || true
info "a -> b: $(grep -E 'sender' "$SB_WORK/iperf.txt" | tail -1)"

# Only the cut path went down between a and b, once.
n=$(grep -cE "peer 2 path [0-9]+ down" "$SEQBOND_TESTBED_DIR/a.log" || true)
((n == 1)) || fail "a took $n of its paths to b down (1 cut)"
n=$(grep -cE "peer 1 path [0-9]+ down" "$SEQBOND_TESTBED_DIR/b.log" || true)
((n == 1)) || fail "b took $n of its paths to a down (1 cut)"
sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR"/[abc].log || fail "counters or mbufs"
info "PASS"
