#!/usr/bin/env bash
# Neighbours that are not seqbond's (issue 33): frames forged from one more port of switch 0
# (`seqbond-testbed attach 0`), knowing only what hellos flood to every port (sb_forge.py),
# on 3 hosts x 4 x 100 Mbit/s, one switch per link. Each case measures one TCP stream a -> b
# over sb0 with pings a -> b and broadcasts from a beside it, before the attack and during it:
#   jump      two DATA frames in a row 2^29 past a's sequence towards b (a's port MAC and path
#             id), after a stream
#   restart   hellos with b's host id and a new instance number, 100 a second
#   ports     hellos with b's host id from 12 port indexes it does not have, MTU marked good
#   slow      a forged peer announcing a 1 kbit/s port, hearing every host
#   loss      a's hellos with their sequence 99000 ahead, and DATA with path sequence jumps,
#             3 a second
#   dup       a second real seqbond with b's host id on the switch: reported within 1 s
#   fill      80 forged host ids, 4000 hellos a second, while b restarts; then a and c
#             must reach b
# SEQBOND_TEST_KEY=off: no cluster key (`up --no-key` where the testbed has it); the cases defence in
# depth covers keep traffic flowing at the level of the honest paths. SEQBOND_TEST_KEY=on
# (the default): the
# testbed's cluster key; every case keeps
# 90 % of the goodput before it and ping loses nothing. Limits and why: below.
# SB_CASES="jump loss" runs only those; SEQBOND_NEIGHBOURS_TABLE=FILE writes the table of
# figures there (markdown) as well.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# What a host logs when a second host uses a peer's host id (grep -iE, every host's log and
# the duplicate's own).
DUP_RE='duplicate host id'
# How soon after the duplicate's first hello on the wire a host must have said so, s.
DUP_LIMIT=1.0
# Each stream, s: short, on a machine of 2 cores shared with other work.
STREAM_S=6
# How long an attack runs before the stream during it starts, s.
LEAD_S=1
# Goodput during / before. Without a key: the cases where nothing honest is lost keep 0.7 (6 s
# streams on this machine spread by over 10 % from one to the next, and the forger and what
# it sends cost CPU; every failure of the issue's table went below 0.01); where the
# attack may take a's path through switch 0 out of the stripe (ports, loss) 0.9 x 3/4 of the
# paths. With the key: 0.9 in every case (the issue's figure), ping without loss. A figure
# below its floor is measured once more, the attack still on, and the second counts
# (docs/testing.md, "Throughput limits"). Until 2026-12-07 only one above half its floor
# was: every failure of the issue's table went below 0.01, but a CI run that day measured
# 0.415 and 0.435 with the key (nothing forged gets past it) while a stream before an
# attack ran at 0.25 of the others, 16 machine freezes logged. An attack that works fails
# both streams.
FLOOR_KEEP=0.70
FLOOR_HONEST=0.675
FLOOR_KEY=0.90
# Ping loss during an attack, %: without a key a path leaving the stripe may lose what it
# carried; with the key nothing.
PING_MAX_NOKEY=10
PING_MAX_KEY=0
SW=0            # the attacked switch; every host has its port 0 there
FORGE=$SB_LIB_DIR/sb_forge.py
ALL_CASES="jump restart ports slow loss dup fill"

sb_require
# SB_KEY comes from SEQBOND_TEST_KEY (lib.sh; meson sets it per variant).
[[ $SB_KEY == on || $SB_KEY == off ]] || fail "SEQBOND_TEST_KEY must be on or off, not '$SB_KEY'"
# sb_up adds `up --no-key` when SB_KEY is off.
if [[ $SB_KEY == on ]]; then
	FLOOR_ALL=$FLOOR_KEY FLOOR_PORTS=$FLOOR_KEY PING_MAX=$PING_MAX_KEY
else
	FLOOR_ALL=$FLOOR_KEEP FLOOR_PORTS=$FLOOR_HONEST PING_MAX=$PING_MAX_NOKEY
fi
sb_up --hosts 3 --links 4 --rate 100
if [[ $SB_KEY == on ]]; then
	grep -qiE '^[[:space:]]*cluster_key' "$SEQBOND_TESTBED_DIR/b.ini" ||
		fail "key on, but b's config has no cluster_key line"
elif grep -qiE '^[[:space:]]*cluster_key' "$SEQBOND_TESTBED_DIR/b.ini"; then
	fail "key off, but b's config has a cluster_key line"
fi
sb_ping_ok a b
EV=$(tb attach "$SW") || fail "cannot attach a port to switch $SW"
# In the attached port's namespace (ip netns exec runs in place: $! of a command started
# in the background is that command's own pid, which the test ends).
EVX=(ip netns exec "$SB_NS-ev")
ev() { "${EVX[@]}" "$@"; }
forge() { "${EVX[@]}" python3 "$FORGE" "$@"; }
out=$(forge learn "$EV" --learn 1.2 2>&1) || { echo "$out"; fail "sb_forge.py learn failed"; }
info "hellos heard on switch $SW:"
while read -r line; do info "    $line"; done <<<"$out"
for id in 1 2 3; do
	grep -q "^host $id port 0 " <<<"$out" || fail "host $id's port 0 not heard on switch $SW"
done

# measure PHASE: one stream a -> b with pings beside it and a cluster's own broadcasts
# (ARP, DHCP, service discovery: here UDP to 10.99.0.255, 5 a second from a, which every
# peer gets a copy of); sets G (Mbit/s, 0 when the stream failed), LOSS (% of pings) and RTT
# (ms, average of those answered).
G=0 LOSS=100 RTT=-
measure() {
	local phase=$1 json=$SB_WORK/iperf-$CASE-$1.json ping_out=$SB_WORK/ping-$CASE-$1 ppid bpid
	sb_in a ping -q -c $((STREAM_S * 10)) -i 0.1 -W 1 "$(sb_addr b)" >"$ping_out" 2>&1 &
	ppid=$!
	sb_in a python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for i in range(int(sys.argv[2]) * 5):
    s.sendto(b"seqbond test broadcast", (sys.argv[1], 9))
    time.sleep(0.2)' "$SB_SUBNET.255" "$STREAM_S" &
	bpid=$!
	G=$(tb iperf --from a --to b --time "$STREAM_S" --json "$json" \
		2>>"$SB_WORK/iperf.log") || G=0
	wait "$ppid" || true
	wait "$bpid" || true
	LOSS=$(sed -nE 's/.* ([0-9.]+)% packet loss.*/\1/p' "$ping_out")
	LOSS=$(calc "${LOSS:-100}" 1)
	RTT=$(sed -nE 's|^rtt [^=]*= [0-9.]+/([0-9.]+)/.*|\1|p' "$ping_out")
	RTT=${RTT:--}
	info "$CASE $phase: a -> b $G Mbit/s, ping loss $LOSS %, rtt avg $RTT ms"
}

# ping_loss FROM TO: % of 20 pings lost over sb0.
ping_loss() {
	local l
	l=$({ sb_in "$1" ping -q -c 20 -i 0.05 -W 1 "$(sb_addr "$2")" 2>&1 || true; } |
		sed -nE 's/.* ([0-9.]+)% packet loss.*/\1/p')
	echo "${l:-100}"
}

# recover: a, c -> b answered again within 3 s after an attack, else b restarted, else
# the whole testbed brought up again, so that the next case starts on a sound one.
recover() {
	local i
	for ((i = 0; i < 6; i++)); do
		[[ $(ping_loss a b) == 0 && $(ping_loss c b) == 0 ]] && return 0
		sleep 0.5
	done
	info "$CASE: a or c does not reach b after the attack: b restarted"
	tb restart b >>"$SB_WORK/restart.log" 2>&1 &&
		[[ $(ping_loss a b) == 0 && $(ping_loss c b) == 0 ]] && return 0
	info "$CASE: still not: the testbed is brought up again"
	sb_up --hosts 3 --links 4 --rate 100
	EV=$(tb attach "$SW") || fail "cannot attach a port to switch $SW"
}

# forge_bg ATTACK ARGS...: start the forger in the background (FPID) and wait until it has
# learnt and attacks.
FPID=""
forge_bg() {
	local log=$SB_WORK/forge-$CASE.log i
	"${EVX[@]}" python3 "$FORGE" "$1" "$EV" "${@:2}" --time 120 >"$log.out" 2>"$log" &
	FPID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'attacking' "$log" && return 0
		kill -0 "$FPID" 2>/dev/null || { cat "$log"; fail "$CASE: the forger exited"; }
		sleep 0.05
	done
	fail "$CASE: the forger did not start its attack in 5 s"
}
forge_stop() {
	[[ -n $FPID ]] || return 0
	kill "$FPID" 2>/dev/null || true
	wait "$FPID" 2>/dev/null || true
	FPID=""
	info "$CASE: forger: $(grep -h . "$SB_WORK/forge-$CASE.log" "$SB_WORK/forge-$CASE.log.out" |
		grep -v 'heard\|attacking' | tr '\n' ';' | cut -c1-300)"
}

# Results, one row per case.
ROWS=()
FAILS=()
# judge FLOOR [CHECK]: the during/before ratio against FLOOR (measured once more below
# FLOOR), ping loss against PING_MAX; CHECK is a check's verdict text ("" = passed) added
# to the row.
judge() {
	local floor=$1 check=${2:-} ratio verdict=pass why="" row
	ratio=$(calc "$G / max($G0, 0.01)" 3)
	if ! float_ge "$ratio" "$floor"; then
		info "$CASE: ratio $ratio below $floor," \
			"$(sb_freezes "$T_DURING") machine freezes: measured once more"
		T_DURING=$(date +%s.%N)
		measure during
		ratio=$(calc "$G / max($G0, 0.01)" 3)
	fi
	float_ge "$ratio" "$floor" || why+="goodput $ratio of before < $floor; "
	float_ge "$PING_MAX" "$LOSS" || why+="ping loss $LOSS % > $PING_MAX %; "
	[[ -z $check ]] || why+="$check; "
	[[ -z $why ]] || { verdict=FAIL; FAILS+=("$CASE: ${why%; }"); }
	row="| $CASE | $G0 | $G | $ratio | $floor | $L0 | $LOSS | $RTT |"
	ROWS+=("$row $verdict${why:+: ${why%; }} |")
	info "$CASE: $verdict: during/before $ratio (floor $floor)," \
		"ping loss $L0 -> $LOSS % (max $PING_MAX)${why:+: ${why%; }}"
}

before() {
	info "----- case $CASE -----"
	LOGOFF_A=$(stat -c %s "$SEQBOND_TESTBED_DIR/a.log")
	measure before
	G0=$G L0=$LOSS
}
during() {
	sleep "$LEAD_S"
	T_DURING=$(date +%s.%N)
	measure during
}

case_jump() {
	local ipid
	before
	# The forger reads a's sequence from a frame of a's towards b: a stream gives it some on
	# every path (a few pings would all take one path, perhaps not switch 0's). Its two
	# frames go once the stream is over, so that none of a's comes between them, 2^29 ahead
	# (a's sequence has moved by what the stream sent since).
	tb iperf --from a --to b --time 3 --json "$SB_WORK/iperf-jump-steal.json" \
		>/dev/null 2>>"$SB_WORK/iperf.log" &
	ipid=$!
	sleep 1
	forge jump "$EV" --from 1 --to 2 --ahead $((1 << 29)) --wait 3 \
		>"$SB_WORK/forge-$CASE.log.out" 2>"$SB_WORK/forge-$CASE.log" ||
		{
			wait "$ipid" || true
			cat "$SB_WORK/forge-$CASE.log"
			fail "jump: the forger failed"
		}
	wait "$ipid" || true
	info "$CASE: $(grep -v 'heard\|attacking' "$SB_WORK/forge-$CASE.log" | tr '\n' ' ')"
	during
	judge "$FLOOR_ALL"
}

case_restart() {
	before
	forge_bg restart --host 2 --pps 100
	during
	judge "$FLOOR_ALL"
	forge_stop
}

case_ports() {
	before
	forge_bg add-ports --host 2
	during
	judge "$FLOOR_PORTS"
	forge_stop
}

case_slow() {
	before
	forge_bg slow-peer --id 900 --rate-kbps 1
	during
	judge "$FLOOR_ALL"
	forge_stop
}

case_loss() {
	local n out line
	before
	forge_bg loss --host 1 --pps 3 --gap 99000
	during
	# a's paths to b through switch 0 must not leave the stripe for a loss that never was.
	out=$(tail -c +$((LOGOFF_A + 1)) "$SEQBOND_TESTBED_DIR/a.log" |
		grep -E 'peer 2 path [0-9]+ out of the stripe: loss' || true)
	n=$(grep -c . <<<"$out" || true)
	info "$CASE: a took $n path(s) to b out of the stripe for loss (the stream began at $T_DURING)"
	[[ -z $out ]] || head -n 3 <<<"$out" | while read -r line; do info "    $line"; done
	judge "$FLOOR_PORTS" "$( ((n == 0)) || echo "a took $n path(s) to b out of the stripe")"
	forge_stop
}

# dup: b's config with another aggregate MAC and one port, the attached one (its port 0, as
# b's port 0 on the same switch: a cloned image cabled like b).
DPID=""
dup_stop() {
	[[ -n $DPID ]] || return 0
	kill "$DPID" 2>/dev/null || true
	wait "$DPID" 2>/dev/null || true
	DPID=""
}
case_dup() {
	local ini=$SB_WORK/dup.ini dlog=$SB_WORK/dup.log t0 t_rep="" now w f check=""
	before
	awk -v ifc="$EV" '
		/^\[port/ { keep = ($0 == "[port0]") }
		/^\[/ && !/^\[port/ { keep = 1 }
		!keep { next }
		/^mac[[:space:]]*=/ { print "mac = 02:53:42:00:00:fe"; next }
		/^device[[:space:]]*=/ { sub(/iface=[^,]*/, "iface=" ifc) }
		{ print }' "$SEQBOND_TESTBED_DIR/b.ini" >"$ini"
	"${EVX[@]}" python3 "$FORGE" wait-hello "$EV" --host 2 \
		--src "$(ev cat "/sys/class/net/$EV/address")" \
		--timeout 30 >"$SB_WORK/dup.first" 2>>"$SB_WORK/forge-$CASE.log" &
	w=$!
	sleep 0.3
	"${EVX[@]}" "$SEQBOND_BIN" -l 0,1 --main-lcore 1 --no-pci --file-prefix "$SB_NS-ev" \
		--log-level=lib.eal:notice --no-huge -m 512 -- --config "$ini" \
		--console-socket "$SB_WORK/dup.sock" >"$dlog" 2>&1 </dev/null &
	DPID=$!
	wait "$w" || {
		dup_stop
		tail -n 20 "$dlog"
		fail "dup: no hello of the duplicate on the wire"
	}
	t0=$(head -n 1 "$SB_WORK/dup.first")	# sb_forge.py then says "sent 0"
	# Look for the report until 3 s after the first hello (a late one is told apart from none).
	while now=$(date +%s.%N) && float_ge "$(calc "$t0 + 3" 3)" "$now"; do
		for f in "$SEQBOND_TESTBED_DIR"/{a,b,c}.log "$dlog"; do
			if grep -qiE "$DUP_RE" "$f" 2>/dev/null; then
				t_rep=$(calc "$now - $t0" 3)
				info "$CASE: '$DUP_RE' in $(basename "$f")" \
					"within $t_rep s of the duplicate's first hello"
				break 2
			fi
		done
		sleep 0.05
	done
	if [[ -z $t_rep ]]; then
		check="no '$DUP_RE' in any log within 3 s"
	elif ! float_ge "$DUP_LIMIT" "$t_rep"; then
		check="'$DUP_RE' after $t_rep s (limit $DUP_LIMIT s)"
	fi
	T_DURING=$(date +%s.%N)
	measure during
	DUP_REPORT=${t_rep:-none}
	# A clone has the key too: the floors without a key apply either way.
	judge "$FLOOR_KEEP" "$check"
	dup_stop
}

case_fill() {
	local rpid rc=0 lc check=""
	before
	# Each every 20 ms: the restarted b finds 80 forged ids queued on its port 0 before a's
	# and c's first hellos (with 100 ms, one run in three let them in first).
	forge_bg fill --ids 80 --first-id 1000 --period-ms 20
	sleep 1
	# b restarts while the forged peers keep coming; they stop 3 s later.
	SEQBOND_TESTBED_TIMEOUT=8 tb restart b >"$SB_WORK/restart-fill.log" 2>&1 &
	rpid=$!
	sleep 3
	forge_stop
	wait "$rpid" || rc=$?
	info "$CASE: restart of b: $(tail -n 1 "$SB_WORK/restart-fill.log") (exit $rc)"
	T_DURING=$(date +%s.%N)
	measure during
	lc=$(ping_loss c b)
	info "$CASE: ping c -> b after the restart: loss $lc %"
	float_ge "$PING_MAX" "$lc" || check="ping c -> b loss $lc %"
	judge "$FLOOR_ALL" "$check"
}

for CASE in ${SB_CASES:-$ALL_CASES}; do
	[[ " $ALL_CASES " == *" $CASE "* ]] || fail "unknown case '$CASE' (known: $ALL_CASES)"
	"case_$CASE"
	forge_stop
	recover
done

table=$SB_WORK/table.md
{
	echo "| case | before Mbit/s | during Mbit/s | ratio | floor | ping loss before %" \
		"| during % | rtt during ms | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${ROWS[@]}"
	[[ -z ${DUP_REPORT:-} ]] || echo "
Duplicate host id reported after: $DUP_REPORT s (limit $DUP_LIMIT s)."
} >"$table"
info "key $SB_KEY; $SECONDS s since the network lock was taken; figures:"
while read -r line; do info "$line"; done <"$table"
[[ -z ${SEQBOND_NEIGHBOURS_TABLE:-} ]] || cp "$table" "$SEQBOND_NEIGHBOURS_TABLE"
((${#FAILS[@]} == 0)) || fail "$(printf '%s\n' "${FAILS[@]}")"
info "PASS"
