#!/usr/bin/env bash
# The idle hello pace (docs/config.md, hello_idle_interval_ms; docs/design.md, "Deep idle"):
# 2 hosts, 2 x 100 Mbit/s. After 1 s without traffic each host hellos every 100 ms instead of
# 10 (hello_slow counted, at most 15 hellos a second per port); a path cut while both hosts
# are idle (its hellos then brief: entries without measurements, every one but the probes) is
# still declared down at both ends, within the idle detection time (100 ms x 4)
# plus slack from the fault's rule in place, and comes back after the heal; with traffic flowing (pings every 20 ms) the
# fast pace is back and the same cut is detected within the fast detection time (10 ms x 4)
# plus slack. Idle lcores sleep on their wait sets (docs/design.md, "Sleeping when idle"): at
# the idle pace the timer wakes the one that owns the peer table every 5 ms and the others not
# at all, so an idle host's lcores poll at most 400 times a second each; the host's own first
# frame wakes the lcore that reads sb0 at once (idle_kernel_wakeups), and a frame from the
# peer the lcore that reads the port (idle_port_wakeups).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
# Slack for scheduling on this shared 2-core machine and the peer table's 1 ms tick.
IDLE_LIMIT=0.55
FAST_LIMIT=0.12
sb_up --links 2 --rate 100 --exception tap-vnet
sb_ping_ok a b

now() { date +%s.%N; }
# calc_rates T0 T1 N...: the window T1 - T0 (s, 2 decimals) and each N per second (integer).
calc_rates() {
	python3 -c 'import sys
t0, t1 = float(sys.argv[1]), float(sys.argv[2])
dt = t1 - t0
print("%.2f" % dt, *[int(round(int(n) / dt)) for n in sys.argv[3:]])' "$@"
}
# Idle: 1 s without traffic and both hosts are at the slow pace. The kernels still say a
# few things over sb0 in the first seconds (IPv6 router solicitations, MLD reports, neighbour
# probes after the ping), each of which brings the fast pace back for 1 s: the hello count
# is taken over a 4 s window in which, and for 1.2 s before which, neither host carried a
# frame (up to 6 tries); rates are per second of the time between a host's two reads.
info_key() { sb_telemetry "$1" /seqbond/info "$2"; }
lcores() { sb_telemetry "$1" /seqbond/lcores | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
# counters H: "time tx_hello loops idle_timer_wakeups hello_slow tx_hello_brief" of host H from one telemetry
# read, so that every rate is taken over the time between two reads of that host.
counters() {
	local t j
	j=$(sb_telemetry "$1" /seqbond/info)
	t=$(date +%s.%N)
	python3 -c 'import json, sys
d = json.loads(sys.argv[2])
print(sys.argv[1], d["tx_hello"], d["loops"], d["idle_timer_wakeups"], d["hello_slow"],
      d["tx_hello_brief"])' "$t" "$j"
}
activity() {
	local h n=0
	for h in a b; do
		n=$((n + $(sb_telemetry "$h" /seqbond/info exc_rx) + $(sb_telemetry "$h" /seqbond/info rx_data)))
	done
	echo "$n"
}
quiet=0
declare -A c0 c1
for try in 1 2 3 4 5 6; do
	act0=$(activity)
	# Nothing for 1.2 s first: the window starts after the 1 s that takes a host slow.
	sleep 1.2
	[[ $(activity) == "$act0" ]] || { info "window $try: traffic before it, again"; continue; }
	for h in a b; do c0[$h]=$(counters "$h"); done
	sleep 4
	for h in a b; do c1[$h]=$(counters "$h"); done
	[[ $(activity) == "$act0" ]] || { info "window $try: traffic in it, again"; continue; }
	quiet=1
	break
done
((quiet)) || fail "no 4 s window without traffic in 6 tries"
for h in a b; do
	read -r t0 hello0 loops0 slow0 _ brief0 <<<"${c0[$h]}"
	read -r t1 hello1 loops1 slow1 slowed brief1 <<<"${c1[$h]}"
	nl=$(lcores "$h")
	# Per second over the window between this host's two reads, 2 ports.
	read -r dt hps pps nps bps <<<"$(calc_rates "$t0" "$t1" $((hello1 - hello0)) $((loops1 - loops0)) \
		$((slow1 - slow0)) $((brief1 - brief0)))"
	info "host $h idle ${dt} s: $((hello1 - hello0)) hellos on 2 ports ($hps a second; slowed" \
		"$slowed times so far), $((loops1 - loops0)) polls on $nl lcore(s) ($pps a second)," \
		"$((slow1 - slow0)) timer wake-ups ($nps a second)"
	((slowed >= 1)) || fail "host $h: never at the idle pace (hello_slow 0)"
	# 10 a second per port at the idle pace (probes replace hellos); 100 at the fast one.
	((hps <= 2 * 15)) || fail "host $h: $hps hellos a second idle: not the idle pace"
	((hps >= 2 * 5)) || fail "host $h: only $hps hellos a second idle"
	# Every idle-pace hello but the probes (one every 2 s per port) has brief entries
	# (docs/design.md, "Brief hellos").
	info "host $h: $((brief1 - brief0)) brief hellos in the window ($bps a second)"
	((bps >= hps - 2 && bps >= 2 * 4)) || fail "host $h: $bps brief hellos a second of $hps idle"
	# The 25 ms tick of the lcore that owns the peer table: about 40 timer wake-ups a
	# second (1000 at the fast pace); another lcore's timer about 10.
	((nps >= 20)) || fail "host $h: only $nps timer wake-ups a second idle: no idle tick"
	((nps <= 100)) || fail "host $h: $nps timer wake-ups a second idle: not the 25 ms tick"
	((pps <= 400 * nl)) || fail "host $h: $pps polls a second idle: not sleeping"
done

# cut_case WHAT VERB STATE LIMIT: cut (or heal) a's port 1, wait, and check that both ends
# logged the path STATE (down or up) within LIMIT seconds of the rule in place.
cut_case() {
	local what=$1 verb=$2 state=$3 limit=$4 t t1
	t=$(now)
	tb "$verb" a 1
	t1=$(now)
	sleep 1.5
	sb_check_detect "$what" a "peer 2 path [0-9]+ $state" "$t" "$limit" "$t1"
	sb_check_detect "$what" b "peer 1 path [0-9]+ $state" "$t" "$limit" "$t1"
}

# A path cut while idle: detected at both ends, later than at the fast pace but in time.
cut_case "idle cut" cut down "$IDLE_LIMIT"
cut_case "idle heal" heal up 1.0

# The host's own first frame after idle wakes its lcore at once: one ping once a is slow again.
# a must be back at the idle pace once neither host has moved a frame for 1 s (+0.5 s of
# slack); the kernels' own chatter (router solicitations, MLD reports, neighbour probes) may
# delay that, for up to 20 s, but only while frames keep coming.
act=$(activity)
t_act=$(now)
t_end=$((SECONDS + 20))
until [[ $(info_key a hello_interval_ms) == 100 ]]; do
	a2=$(activity)
	if [[ $a2 != "$act" ]]; then
		act=$a2
		t_act=$(now)
	elif float_ge "$(calc "$(now) - $t_act" 3)" 1.5; then
		fail "host a: not back at the idle pace 1.5 s after the last frame either host moved"
	fi
	((SECONDS < t_end)) || fail "host a: not back at the idle pace in 20 s: frames kept coming"
	sleep 0.2
done
w0=$(info_key a idle_kernel_wakeups)
p0=$(info_key b idle_port_wakeups)
sb_in a ping -c 1 -W 2 "$(sb_addr b)" >"$SB_WORK/ping1.txt" 2>&1 ||
	{ cat "$SB_WORK/ping1.txt"; fail "ping from idle host a failed"; }
w1=$(info_key a idle_kernel_wakeups)
p1=$(info_key b idle_port_wakeups)
info "one ping from idle a: $(grep -oE 'time=[0-9.]+ ms' "$SB_WORK/ping1.txt"), $((w1 - w0)) kernel wake-up(s) on a, $((p1 - p0)) port wake-up(s) on b"
((w1 > w0)) || fail "host a: its kernel's frame did not end a sleep (idle_kernel_wakeups $w0 -> $w1)"
((p1 > p0)) || fail "host b: the peer's frame did not end a sleep (idle_port_wakeups $p0 -> $p1)"

# Traffic brings the fast pace back at once; the same cut is then detected within 40 ms.
sb_in a ping -q -i 0.02 -w 8 "$(sb_addr b)" >"$SB_WORK/ping.txt" 2>&1 &
pinger=$!
sleep 2
cut_case "busy cut" cut down "$FAST_LIMIT"
tb heal a 1
wait "$pinger" || { cat "$SB_WORK/ping.txt"; fail "pings during the busy cut failed"; }
info "pings a -> b every 20 ms: $(grep -E 'packet loss' "$SB_WORK/ping.txt")"
sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" ||
	fail "counters or mbufs"
info "PASS"
