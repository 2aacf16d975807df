# shellcheck shell=bash
# seqbond-testbed measurements: `iperf` over sb0, `baseline` on a pair of its own.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

# wait_listen NS PORT PID: until a TCP listener on PORT exists in NS (or PID died).
wait_listen() {
	local ns=$1 port=$2 pid=$3 i
	for ((i = 0; i < 100; i++)); do
		if ip netns exec "$ns" ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# run_iperf SERVER_NS CLIENT_NS SERVER_ADDR TIME JSON_OUT LABEL: one TCP stream, client ->
# server; prints goodput (receiver side, Mbit/s) on stdout and a summary on stderr.
run_iperf() {
	local sns=$1 cns=$2 addr=$3 t=$4 json=$5 label=$6 port=5201 spid rc=0 res i
	local slog
	slog=$(mktemp /tmp/seqbond-iperf-server.XXXXXX)
	ip netns exec "$sns" iperf3 -s -1 -p "$port" >"$slog" 2>&1 </dev/null &
	spid=$!
	if ! wait_listen "$sns" "$port" "$spid"; then
		cat "$slog" >&2
		kill "$spid" 2>/dev/null || true
		rm -f "$slog"
		die "$label: iperf3 server did not start in $sns"
	fi
	timeout $((t + 30)) ip netns exec "$cns" iperf3 -c "$addr" -p "$port" -t "$t" -J \
		--connect-timeout 3000 >"$json" 2>&1 </dev/null || rc=$?
	# The one-off server exits after its client; make sure it does.
	for ((i = 0; i < 50; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	rm -f "$slog"
	res=$(python3 - "$json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("ERROR cannot parse iperf3 output: %s" % e)
    sys.exit(0)
if "error" in d:
    print("ERROR " + d["error"])
    sys.exit(0)
e = d["end"]
print("%.2f %d %.2f" % (e["sum_received"]["bits_per_second"] / 1e6,
                        e["sum_sent"].get("retransmits", 0),
                        e["sum_sent"]["bits_per_second"] / 1e6))
PY
	)
	if [[ $res == ERROR* || $rc != 0 ]]; then
		die "$label: iperf3 failed (exit $rc): ${res#ERROR }"
	fi
	local good retr sent
	read -r good retr sent <<<"$res"
	note "$label: ${t}s one TCP stream: goodput $good Mbit/s (sender $sent Mbit/s)," \
		"$retr retransmits"
	echo "$good"
}

cmd_iperf() {
	local from=a to=b t=10 json=""
	while (($#)); do
		case $1 in
		--from) from=${2:?}; shift 2 ;;
		--to) to=${2:?}; shift 2 ;;
		--time) t=${2:?}; shift 2 ;;
		--json) json=${2:?}; shift 2 ;;
		*) die "iperf: unknown option '$1'" ;;
		esac
	done
	need_root
	want_range "$t" 1 3600 "iperf: --time must be whole seconds, 1..3600"
	local kt
	state_get hosts >/dev/null
	kt=$(host_index "$to")
	host_index "$from" >/dev/null
	if [[ -z $json ]]; then
		json=$(mktemp /tmp/seqbond-iperf.XXXXXX)
		# shellcheck disable=SC2064 # expand now
		trap "rm -f '$json'" EXIT
	fi
	run_iperf "$NS-$to" "$NS-$from" "$SUBNET.$kt" "$t" "$json" "sb0 $from->$to"
}

cmd_baseline() {
	local rate=100 mtu=1500 t=10 json="" delay=0 jitter=0 loss=0 keep=0
	while (($#)); do
		case $1 in
		--keep) keep=1; shift ;;
		--remove)
			need_root
			emu_kill blA 2>/dev/null || true
			emu_kill blB 2>/dev/null || true
			del_ns "$NS-bl"
			del_ns "$NS-ba"
			del_ns "$NS-bb"
			note "baseline: pair removed"
			return 0
			;;
		--rate) rate=${2:?}; shift 2 ;;
		--mtu) mtu=${2:?}; shift 2 ;;
		--time) t=${2:?}; shift 2 ;;
		--json) json=${2:?}; shift 2 ;;
		--delay) delay=${2:?}; shift 2 ;;
		--jitter) jitter=${2:?}; shift 2 ;;
		--loss) loss=${2:?}; shift 2 ;;
		*) die "baseline: unknown option '$1'" ;;
		esac
	done
	want_range "$rate" 1 100000 "baseline: bad --rate (whole Mbit/s)"
	want_range "$mtu" 576 9600 "baseline: --mtu must be 576..9600"
	want_range "$t" 1 3600 "baseline: --time must be whole seconds, 1..3600"
	ms_ok "$delay" || die "baseline: --delay takes milliseconds (0..60000)"
	ms_ok "$jitter" || die "baseline: --jitter takes milliseconds (0..60000)"
	pct_ok "$loss" || die "baseline: --loss takes a percentage (0..100)"
	need_root
	# Delay lines of the baseline pair: their own namespace and state, apart from a testbed's.
	# shellcheck disable=SC2034 # read by the other modules
	EMU_NS=$NS-bl
	EMU_DIR=$STATE/baseline-emu
	SHAPE_DIR=$STATE/baseline-shape
	local cleanup="emu_kill blA; emu_kill blB; del_ns $NS-bl; del_ns $NS-ba; del_ns $NS-bb"
	cleanup+="; rm -rf '$SHAPE_DIR'"
	if [[ -z $json ]]; then
		json=$(mktemp /tmp/seqbond-baseline.XXXXXX)
		cleanup+="; rm -f '$json'"
	fi
	del_ns "$NS-bl"
	del_ns "$NS-ba"
	del_ns "$NS-bb"
	# shellcheck disable=SC2064 # expand now
	((keep)) || trap "$cleanup" EXIT
	new_ns "$NS-ba"
	new_ns "$NS-bb"
	ip link add blA netns "$NS-ba" type veth peer name blB netns "$NS-bb"
	setup_port "$NS-ba" blA "$mtu" "$rate"
	setup_port "$NS-bb" blB "$mtu" "$rate"
	local label
	label="baseline 1 link $rate Mbit/s mtu $mtu ($(tbf_args "$rate" "$mtu"))"
	local dus jus
	dus=$(ms_to_us "$delay")
	jus=$(ms_to_us "$jitter")
	if ! [[ $dus == 0 && $jus == 0 ]] || ! awk -v l="$loss" 'BEGIN { exit !(l == 0) }'; then
		# The same emulation as one link of `up --delay D --jitter J --loss L`: each
		# direction gets it.
		# shellcheck disable=SC2034 # read by the other modules
		TB_MTU=$mtu
		rm -rf "$EMU_DIR"
		# shellcheck disable=SC2034 # read by the other modules
		DE_TXNS=$NS-ba DE_TXDEV=blA DE_RXNS=$NS-bb DE_RXDEV=blB
		shape_ends "$rate" "$dus" "$jus" "$loss"
		# shellcheck disable=SC2034 # read by the other modules
		DE_TXNS=$NS-bb DE_TXDEV=blB DE_RXNS=$NS-ba DE_RXDEV=blA
		shape_ends "$rate" "$dus" "$jus" "$loss"
		label+=", delay $delay ms, jitter $jitter ms, loss $loss % each way"
	fi
	ip -n "$NS-ba" addr add "$BL_SUBNET.1/24" dev blA
	ip -n "$NS-bb" addr add "$BL_SUBNET.2/24" dev blB
	ip netns exec "$NS-ba" ping -q -c 1 -W 2 "$BL_SUBNET.2" >/dev/null ||
		die "baseline: no ping over the single link"
	if ((keep)); then
		note "baseline: $label kept: $NS-ba $BL_SUBNET.1 <-> $NS-bb $BL_SUBNET.2" \
			"(baseline --remove or down removes it)"
		return 0
	fi
	run_iperf "$NS-bb" "$NS-ba" "$BL_SUBNET.2" "$t" "$json" "$label"
	local id
	for id in blA blB; do
		emu_alive "$id" && note "delay line $id: $(emu_stats "$id" | sed 's/^linkemu //')"
	done
	return 0
}
