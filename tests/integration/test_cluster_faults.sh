#!/usr/bin/env bash
# Failures a switch port hides, mid-stream, on 3 hosts behind 4 switches (4 x 100 Mbit/s):
# one-way loss, loss both ways, a smaller MTU (hellos pass, full frames do not), 10 % loss, a
# stray frame 100 000 sequence numbers ahead, a peer restart, a peer paused 5 s (twice), and
# a cut towards one peer while another peer's stream goes on. The carrier stays up
# throughout (nftables rules in the switch namespace: seqbond-testbed cut/heal).
#
# For each: the path goes down (or out of the stripe) at both ends in time, measured from the
# wall-clock times seqbond logs its events at; the stream's goodput (receiver intervals of
# 0.1 s) is back to >= 90 % of what the remaining paths carry within 1 s of the detection
# limit (the goal; the test fails after 2 s); during the fault it carries 90 % of that (the
# goal; the test fails below 80 %); the sender counts no TCP timeout (TcpExtTCPTimeouts), or
# at most the case's budget where frames are lost before detection (see the RTO budget
# below); after the heal the path rejoins within 3 hellos.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
command -v nft >/dev/null || fail "missing tool 'nft' (run tools/install-deps)"

INTERVAL_MS=10
MULT=4
DETECT=$(calc "($INTERVAL_MS * $MULT) / 1000" 3)	# 0.040 s
# Far end of a one-way failure: one more hello interval. Detection is measured from the
# moment the fault's command returned (rule in place; sb_check_detect, lib.sh); the slack
# covers scheduling on this shared 2-core machine (three seqbonds, iperf3, the switch) and
# the peer table's 1 ms tick.
SLACK=0.030
# peer_silence_hold_ms (its default): a peer silent on every path at once keeps its paths
# this much longer (docs/design.md, "A frozen host").
HOLD=0.200
# A stall of a host's own TX lcore this long or longer explains its peers' verdict "silent"
# (sb_faults.py downs): the pause case below.
STALL_MS=30
# Until both ends have taken the path out, part of a's frames go into the fault and are lost:
# a quarter of them for 30-45 ms when the path goes down (TCP repairs some 180 segments, and
# about 30 of its retransmissions fall into the fault too), the full-size quarter for 0.4-0.7
# s when it leaves the stripe for its MTU, a tenth of a quarter for 0.3-0.8 s for loss. Linux
# recovers by SACK/RACK, but not always before its retransmission timer: seen once in one
# CI run's one-way case (2026-11-30; none in 30 one-way faults by hand that day), twice in
# one oversize case (two timeouts of one stall, the goodput back 1.10 s after the fault, well
# within that case's limit). Each case that loses frames may have that many (RTO budget,
# fault_case's 4th argument); the recovery limits bound what the stall costs. The stray,
# restart and pause cases lose none of a's frames to b and must have none.
FAULTS=$SB_LIB_DIR/sb_faults.py
sb_up --hosts 3 --links 4 --rate 100
A=$(sb_addr a)
B=$(sb_addr b)
C=$(sb_addr c)
sb_ping_ok a b
sb_ping_ok a c

now() { date +%s.%N; }
timeouts() { sb_in a env NSTAT_HISTORY="$SB_WORK/nstat.to" nstat -az TcpExtTCPTimeouts |
	awk '$1 == "TcpExtTCPTimeouts" {print $2}'; }

# no_timeouts CASE TO0 SINCE: a -> b counted no TCP timeout since TO0, unless a freeze of a or
# b themselves explains it: this shared VM now and then stops processes for about 100 ms
# (both hosts log "TX lcore stalled 101 ms" at once); a peer that froze longer than the
# detection time plus peer_silence_hold_ms has every path taken down, and frames are lost
# until the hellos bring the paths back (docs/design.md, "A frozen host"). Then every a <-> b path down since SINCE must be
# explained by such a stall (sb_faults.py downs); none, or any other, fails.
no_timeouts() {
	local name=$1 to0=$2 since=$3 ab
	(($(timeouts) != to0)) || return 0
	ab=$(python3 "$FAULTS" downs "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" \
		"$STALL_MS" "$since" 2)
	ab+=$'\n'$(python3 "$FAULTS" downs "$SEQBOND_TESTBED_DIR/b.log" \
		"$SEQBOND_TESTBED_DIR/a.log" "$STALL_MS" "$since" 1)
	info "$name: $(($(timeouts) - to0)) TCP timeouts; a <-> b path downs meanwhile:" \
		"$(tr '\n' ' ' <<<"$ab")"
	[[ $ab == *explained* && $ab != *unexplained* ]] ||
		fail "$name: a -> b TCP timeouts, not explained by a frozen a or b"
}

# case_diag NAME: one line on what the a -> b datapath did so far (cumulative counters), so a
# slow case in a CI log says where the time went: b's reorder window for a (frames released
# after a hold, frames later than their seq, seqs given up after the hold, the longest hold),
# a's state, rate estimate (Mbit/s) and delay estimate per path to b, and what the shapers on
# the way dropped (a's ports out, the switch ports towards b), and how many timed naps a and b
# took with their output full (idle_naps).
case_diag() {
	local ro paths drops naps
	ro=$(tb console b show reorder 1 2>/dev/null | awk '$1 ~ /^(reordered|late|lost_timeout|lost_rule|hold_max_us)$/ {printf "%s %s ", $1, $2}' || true)
	paths=$(tb console a show paths 2 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && NF >= 12 {printf "p%s %s/%sMb/%sus ", $1, $4, $6, $(NF-3)}' || true)
	drops=$(for i in 0 1 2 3; do
		printf 'a%s %s sw-b%s %s ' "$i" \
			"$(tb exec a tc -s qdisc show dev "sbA$i" | awk '/dropped/ {gsub(",", ""); print $7}')" \
			"$i" "$(tb exec sw tc -s qdisc show dev "swB$i" | awk '/dropped/ {gsub(",", ""); print $7}')"
	done || true)
	naps="a $(sb_telemetry a /seqbond/info idle_naps 2>/dev/null || echo "?")"
	naps+=" b $(sb_telemetry b /seqbond/info idle_naps 2>/dev/null || echo "?")"
	info "$1: b reorder (peer a): ${ro}; a paths to b (state/rate/delay): ${paths}; tbf drops: ${drops}; naps with output full: ${naps}"
}

# stream_start FROM TO SECONDS PORT: iperf3 with 0.1 s receiver intervals, in the background.
stream_start() {
	local from=$1 to=$2 t=$3 port=$4
	sb_in "$to" iperf3 -s -1 -p "$port" -J -i 0.1 >"$SB_WORK/srv-$to-$port.json" 2>&1 &
	sb_wait_listen "$to" "$port"
	STREAM_T0=$(now)
	sb_in "$from" iperf3 -c "$(sb_addr "$to")" -p "$port" -t "$t" -i 0.1 \
		>"$SB_WORK/cli-$to-$port.txt" 2>&1 &
	STREAM_PID=$!
}


# fault_case NAME KIND LIMIT RTO CUT_ARGS...: stream a -> b; cut a's port 2 towards b at 3 s
# with CUT_ARGS, heal once the recovery limit for the case's whole timeout budget has passed
# (LIMIT + 2 s + 0.5 s per allowed timeout, + 0.5 s; at least 3 s), stream 3 s more. KIND:
# down (path down at both ends) or stripe (out of the stripe at both ends, still up). LIMIT:
# detection limit in seconds. RTO: most TCP timeouts the sender may count. (A fixed 3 s fault
# was shorter than the MTU case's own limit: 1 + 2 + 0.5 x 2 s; a stream slow to recover
# there failed as "never came back" though within its limit.)
fault_case() {
	local name=$1 kind=$2 limit=$3 rto=$4 to0 to1 t_fault t_heal re_a re_b res hold secs
	shift 4
	hold=$(python3 -c 'import sys; print("%.1f" % max(3.0, float(sys.argv[1]) + 2.5 + 0.5 * int(sys.argv[2])))' \
		"$limit" "$rto")
	secs=$(python3 -c 'import math, sys; print(math.ceil(6 + float(sys.argv[1])))' "$hold")
	to0=$(timeouts)
	case_diag "$name: before"
	sb_nstat_reset b
	stream_start a b "$secs" 5301
	sleep 3
	t_fault=$(now)
	tb cut a 2 --to b "$@"
	t_fault_end=$(now)
	sleep "$hold"
	t_heal=$(now)
	tb heal a 2
	t_heal_end=$(now)
	wait "$STREAM_PID" || { cat "$SB_WORK/cli-b-5301.txt"; fail "$name: iperf3 failed"; }
	wait || true
	to1=$(timeouts)
	if [[ $kind == down ]]; then
		re_a='peer 2 path [0-9]+ down \(port 2 <-> peer port 2\)'
		re_b='peer 1 path [0-9]+ down \(port 2 <-> peer port 2\)'
	else
		re_a='peer 2 path [0-9]+ out of the stripe'
		re_b='peer 1 path [0-9]+ out of the stripe'
	fi
	sb_check_detect "$name: detected" a "$re_a" "$t_fault" "$limit" "$t_fault_end"
	sb_check_detect "$name: detected" b "$re_b" "$t_fault" "$limit" "$t_fault_end"
	if [[ $kind == down ]]; then
		sb_check_detect "$name: rejoined" a 'peer 2 path [0-9]+ up \(port 2 <-> peer port 2' \
			"$t_heal" 0.060 "$t_heal_end"
		sb_check_detect "$name: rejoined" b 'peer 1 path [0-9]+ up \(port 2 <-> peer port 2' \
			"$t_heal" 0.060 "$t_heal_end"
	fi
	res=$(python3 "$FAULTS" goodput "$SB_WORK/srv-b-5301.json" "$STREAM_T0" "$t_fault" \
		"$t_heal" 0.75)
	info "$name: goodput (Mbit/s, s): $res; sender TCP timeouts $to0 -> $to1"
	info "$name: receiver: $(sb_nstat_report b | tr '\n' ' ')"
	case_diag "$name"
	read -r _ before _ during _ low _ rec _ after _ target <<<"$res"
	float_ge "$rec" 0 ||
		fail "$name: goodput never came back to $target Mbit/s in the $hold s before the heal ($res)"
	# Recovery counts from the fault; the path may leave the stripe up to LIMIT after it (an
	# MTU fault waits for 3 missing probes: 0.4-0.7 s), and the stream has 1 s from there.
	# (1 s from the fault failed the oversize case once in 10 rounds: 1.30 s.) A freeze of
	# the machine meanwhile (no_timeouts above says what they are) costs its 0.1 s and breaks
	# the run of 5 good intervals that recovery counts from: 0.6 s more per freeze. In the
	# cases allowed a TCP timeout, the sender's backed-off retransmission timer decides when
	# it sends again (2.15 s once, oversize, 2026-12-01): 0.5 s more per timeout counted.
	# The goal is 1 s from the detection limit; the test fails after 2 s (docs/testing.md,
	# "Throughput limits": both-ways 1.44 s once with no freeze and no TCP timeout, 0.00 s in
	# most runs; a path that never left the stripe never comes back at all).
	local n_stalls allow
	n_stalls=$(sb_freezes "$t_fault" "$(calc "$t_fault + $rec + 0.5" 3)")
	float_ge "$(calc "$limit + 1.0" 3)" "$rec" || info "$name: recovery $rec s, beyond the goal $limit + 1.0 s"
	allow=$(calc "$limit + 2.0 + 0.6 * $n_stalls + 0.5 * $((to1 - to0))" 3)
	info "$name: recovery $rec s, machine freezes meanwhile $n_stalls, TCP timeouts" \
		"$((to1 - to0)), limit $allow s"
	float_ge "$allow" "$rec" ||
		fail "$name: goodput back only after $rec s (limit $limit + 2.0 s, 0.6 s per freeze, 0.5 s per timeout)"
	# During the fault the goal is 90 % of what the remaining paths carry (target); the test
	# fails below 80 % (223.6 against a target of 250.9 once, one-way, no freeze logged, while
	# recovery took 0.00 s: the machine's slow spell, not the failover).
	float_ge "$during" "$target" || info "$name: $during Mbit/s during the fault, below the goal $target"
	float_ge "$during" "$(calc "$target * 0.8 / 0.9" 1)" ||
		fail "$name: $during Mbit/s during the fault < 80 % of what the remaining paths carry ($target is 90 %)"
	((to1 - to0 <= rto)) || fail "$name: $((to1 - to0)) TCP timeouts (at most $rto)"
	RESULTS+=("$name: detect <= ${limit}s, recovery ${rec}s, before ${before}, during ${during}, low ${low}, after ${after} Mbit/s, timeouts $((to1 - to0))")
}

RESULTS=()
fault_case one-way down "$(calc "$DETECT + $INTERVAL_MS / 1000 + $SLACK" 3)" 1 --dir out
fault_case both-ways down "$(calc "$DETECT + $SLACK" 3)" 1 --dir both
fault_case oversize stripe 1.0 2 --over 600
# The loss share is taken over a sliding 1 s window of 10 samples (docs/config.md, "Removed keys"): at 10 %
# loss it crosses 5 % half a window after the fault when the path's traffic is steady (0.5 s
# typically), but up to a whole window plus a sample later when that traffic thins after the
# fault, as b's ACKs on the path do once a's stream moves off it (b 1.06 s once in a fresh
# user's run, a 0.53 s): 1 s + 0.1 s + feedback in the next hellos + slack.
fault_case lossy-10pct stripe 1.2 2 --loss 10

# Stray frame: one DATA frame on a valid path (a's port 2 MAC, path id 2) whose sequence
# number is 100 000 ahead of b's next expected one, injected towards b mid-stream.
# With the cluster key the frame carries a tag no forger gets right: b refuses it before its
# window (rx_auth_bad_tag); without, the window refuses it (rx_stray).
stray_counter=rx_stray stray_tag=()
if sb_keyed; then
	# The key id is the first byte of the key's fingerprint: every hello carries it.
	kid=$((16#$(sb_telemetry b /seqbond/info key_send_fp | cut -c1-2)))
	stray_counter=rx_auth_bad_tag stray_tag=(--tagged "$kid")
fi
to0=$(timeouts) t_case=$(now)
stray0=$(sb_telemetry b /seqbond/info "$stray_counter")
stream_start a b 6 5302
sleep 2.5
seq=$(sb_telemetry a /seqbond/peers,2 2.tx_seq_next)
t_fault=$(now)
tb exec sw python3 "$FAULTS" stray swB2 "$(sb_in b cat /sys/class/net/sbB2/address)" \
	"$(sb_in a cat /sys/class/net/sbA2/address)" 2 $((seq + 100000)) "${stray_tag[@]}"
wait "$STREAM_PID" || fail "stray: iperf3 failed"
wait || true
stray1=$(sb_telemetry b /seqbond/info "$stray_counter")
res=$(python3 "$FAULTS" goodput "$SB_WORK/srv-b-5302.json" "$STREAM_T0" "$t_fault" 0 1.0)
read -r _ before _ during _ low _ rec _ _ _ target <<<"$res"
info "stray: $stray_counter $stray0 -> $stray1; goodput $res; TCP timeouts $((($(timeouts)) - to0))"
((stray1 == stray0 + 1)) || fail "stray: $stray_counter went from $stray0 to $stray1"
float_ge "$during" "$target" || fail "stray: $during Mbit/s after the stray < $target"
no_timeouts stray "$to0" "$t_case"
RESULTS+=("stray: $stray_counter +1, before ${before}, after ${during}, low ${low} Mbit/s, timeouts $(($(timeouts) - to0))")

# Only b's path cut while a streams to b and to c at once: c keeps its paths and its rate.
# c_paths: per path of a to c (host 3), "port tx_frames transitions stripe_exits".
c_paths() {
	sb_telemetry a /seqbond/paths,3 | python3 -c '
import json, sys
for k, v in sorted(json.load(sys.stdin).items()):
    if k.startswith("peer3_path"):
        print(v["port"], v["tx_frames"], v["transitions"], v["stripe_exits"])'
}
down0=$(sb_count_log a 'peer 3 path [0-9]+ down')
stream_start a b 9 5303
pid_b=$STREAM_PID t0_b=$STREAM_T0
stream_start a c 9 5304
pid_c=$STREAM_PID t0_c=$STREAM_T0
sleep 3
c0=$(c_paths)
t_fault=$(now)
tb cut a 2 --to b
sleep 3
c1=$(c_paths)
t_heal=$(now)
tb heal a 2
wait "$pid_b" || fail "a -> b with a -> c: iperf3 failed"
wait "$pid_c" || fail "a -> c with a -> b: iperf3 failed"
wait || true
res_c=$(python3 "$FAULTS" goodput "$SB_WORK/srv-c-5304.json" "$t0_c" "$t_fault" "$t_heal" 1.0)
res_b=$(python3 "$FAULTS" goodput "$SB_WORK/srv-b-5303.json" "$t0_b" "$t_fault" "$t_heal" 1.0)
info "a -> c while a's path to b is cut: $res_c"
info "a -> b meanwhile: $res_b"
(($(sb_count_log a 'peer 3 path [0-9]+ down') == down0)) || fail "a path to c went down"
# Exact: every path to c stays in the stripe, and the one over the cut port (2) still carries
# c's frames while the cut lasts. Not its equal share (1/4): with two peers' streams on the
# same ports a's rate estimates for c's paths fall and recover (rate_decreases; 9-100 Mbit/s
# within seconds, by hand on 2026-11-30), so the shares wander: 0.144-0.331 in six runs. The
# check is 1/20 (docs/design.md, adaptive striping, says why this is a known weakness).
c_share=$(python3 - "$c0" "$c1" <<'PY'
import sys
before = {int(l.split()[0]): list(map(int, l.split()[1:])) for l in sys.argv[1].splitlines()}
after = {int(l.split()[0]): list(map(int, l.split()[1:])) for l in sys.argv[2].splitlines()}
moved = {p: after[p][0] - before[p][0] for p in after}
changed = [p for p in after if after[p][1:] != before[p][1:]]
print("%.3f %s" % (moved.get(2, 0) / max(1, sum(moved.values())), ",".join(map(str, changed)) or "-"))
PY
)
read -r share2 changed <<<"$c_share"
info "a -> c paths during the cut: port 2 carried $share2 of c's frames; paths that changed state: $changed"
[[ $changed == - ]] || fail "a's paths to c over ports $changed went down or out of the stripe"
float_ge "$share2" 0.05 || fail "a's path to c over the cut port carried only $share2 of c's frames"
# The rate itself moves with the two streams' split of a's ports and those estimates, but b's
# troubles must not hold c back: frames for c read from the kernel behind frames for b, whose
# paths are full, go past them (docs/design.md, "One slow peer does not hold up the others").
# Before that c fell to 0.44 of before once (2026-12-01); 0.925-2.09 in six runs since.
read -r _ before _ during _ _ _ _ _ _ _ target <<<"$res_c"
# A machine freeze in the cut window (freezemon) stops a, b and c alike and spoils the
# comparison: 0.26 of before once, in a run whose hosts logged 101 and 128 ms stalls
# (2026-12-01). Then the ratio is reported, not asserted; without one it must hold.
n_freezes_c=$(sb_freezes "$t_fault" "$t_heal")
info "a -> c during the cut: $(calc "$during / $before" 3) of before; machine freezes in the cut" \
	"window $n_freezes_c"
float_ge "$during" "$(calc "$before * 0.7" 1)" || ((n_freezes_c > 0)) ||
	fail "c's rate fell to $during Mbit/s (before $before, limit 0.7 of it)"
RESULTS+=("a->c beside a cut a->b path: c before ${before}, during ${during} Mbit/s, no path down, port 2 share $share2")

# Restart c (kill -9, start again: new instance, new random initial sequence) while a streams
# to b; UDP datagrams numbered 1, 2, ... from a to c across the restart arrive again soon
# after c's new instance is up, and none twice.
to0=$(timeouts) t_case=$(now)
stream_start a b 12 5305
sb_in c python3 "$SB_LIB_DIR/sb_udpseq.py" recv "$C" 5399 14 >"$SB_WORK/udp-c.txt" &
udp_rx=$!
sleep 0.5
sb_in a python3 "$SB_LIB_DIR/sb_udpseq.py" send "$C" 5399 12 200 &
udp_tx=$!
sleep 3
t_restart=$(now)
tb restart c
t_back=$(sb_first_event c 'peer 1 path [0-9]+ up' "$t_restart")
wait "$udp_tx" || true
wait "$udp_rx" || fail "restart: UDP receiver failed"
wait "$STREAM_PID" || fail "restart: a -> b iperf3 failed"
wait || true
read -r got dups first_after <<<"$(python3 "$SB_LIB_DIR/sb_udpseq.py" report \
	"$SB_WORK/udp-c.txt" "$t_back")"
info "restart c: new instance's first path up $(calc "$t_back - $t_restart" 3) s after the kill;" \
	"UDP to c: $got datagrams, $dups duplicates, first one $first_after s after that"
((dups == 0)) || fail "restart: $dups datagrams delivered twice"
float_ge "$(calc "$DETECT + 1" 3)" "$first_after" ||
	fail "restart: traffic to c back only $first_after s after its paths"
no_timeouts restart "$to0" "$t_case"
RESULTS+=("restart c: paths back, UDP flows $first_after s later, $dups duplicates, a->b timeouts $(($(timeouts) - to0))")

# Pause c for 5 s, twice, while a streams to b: a finds c silent on every path within the
# detection time, takes its paths down after the hold, brings them back when it wakes, and
# a -> b never notices. c is in use (a pings it every
# 20 ms), so it hellos at the fast pace (an idle host's slower pace and its longer detection
# time: test_liveness_load).
to0=$(timeouts)
t_case=$(now)
stream_start a b 16 5306
sb_in a ping -q -i 0.02 -w 30 "$C" >/dev/null 2>&1 &
pinger=$!
sleep 2
for round in 1 2; do
	t_pause=$(now)
	tb pause c 5 2>"$SB_WORK/pause.txt"
	# The verb says when the SIGSTOP went out, after its own start-up.
	t_stop=$(sed -n 's/.*stopped for .* s at \([0-9.]*\)$/\1/p' "$SB_WORK/pause.txt")
	[[ -n $t_stop ]] || t_stop=$t_pause
	# Silent on every path at once: a says so within the detection time, and holds c's
	# paths for peer_silence_hold_ms more (a freeze that short costs nothing) before it
	# takes them down.
	sb_check_detect "pause $round: c silent at a" a 'peer 3 silent on every path' "$t_pause" \
		"$(calc "$DETECT + $SLACK" 3)" "$t_stop"
	sb_check_detect "pause $round: c's path down at a" a 'peer 3 path [0-9]+ down' "$t_pause" \
		"$(calc "$DETECT + $HOLD + $SLACK" 3)" "$t_stop"
	d_silent=$(sb_first_event a 'peer 3 silent on every path' "$t_pause")
	d_down=$(sb_first_event a 'peer 3 path [0-9]+ down' "$t_pause")
	float_ge "$(calc "$d_down - $d_silent" 3)" "$(calc "$HOLD - 0.005" 3)" ||
		fail "pause $round: c's paths down $(calc "$d_down - $d_silent" 3) s after its silence, before the hold ($HOLD s)"
	# ... and when the SIGCONT went out (seqbond may log its paths up before the verb ends).
	t_wake=$(sed -n 's/.*continued at \([0-9.]*\)$/\1/p' "$SB_WORK/pause.txt")
	[[ -n $t_wake ]] || t_wake=$(now)
	sleep 1
	sb_check_detect "pause $round: c's path back at a" a 'peer 3 path [0-9]+ up' "$t_wake" 1.0
done
wait "$STREAM_PID" || fail "pause: a -> b iperf3 failed"
kill "$pinger" 2>/dev/null || true
wait || true
res=$(python3 "$FAULTS" goodput "$SB_WORK/srv-b-5306.json" "$STREAM_T0" "$t_pause" 0 1.0)
info "pause: a -> b $res; TCP timeouts $((($(timeouts)) - to0))"
no_timeouts pause "$to0" "$t_case"
read -r _ before _ during _ _ _ _ _ _ _ target <<<"$res"
float_ge "$during" "$target" || fail "pause: a -> b fell to $during Mbit/s"
RESULTS+=("pause c 5 s twice: c silent at a in time, down after the hold, back within 1 s, a->b ${during} Mbit/s, timeouts $(($(timeouts) - to0))")

for r in "${RESULTS[@]}"; do info "summary: $r"; done
sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" ||
	fail "counters or mbufs after the faults"
info "PASS"
