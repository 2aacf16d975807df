#!/usr/bin/env bash
# bench/latency.sh: request/response round trips over sb0 against one plain link and MPTCP
# (called by bench/run --only latency, under flock /tmp/seqbond-net.lock).
#
#   latency.sh CSV TIME ROUNDS [SYSTEMS]
#
# Links: 4 x 100 Mbit/s (tools/seqbond-testbed). Beside the testbed, its baseline pair: one
# plain link shaped the same way (`baseline --keep`), measured in the same round as each
# system so that drift on this shared machine falls on both alike.
# SYSTEMS (default all):
#   seqbond-shared     seqbond's defaults (tap-vnet, lcore_mode = shared)
#   seqbond-dedicated  lcore_mode = dedicated (busy polling)
#   seqbond-tap        the TAP PMD exception path, shared
#   mptcp              the same four links without seqbond, MPTCP (mptcpize), one subflow each
# Each system, each round: sockperf ping-pong (64-byte messages, 1000 a second, TIME s) over
# UDP and over TCP, idle and beside one bulk iperf3 TCP stream in the same direction as the
# requests; the plain link the same way. One CSV row per measurement:
#   system,proto,load,round,p25,p50,p75,p90,p99,p999,max  (round trip, microseconds)
# The report (bench/benchlib.py) takes medians over the rounds.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
TB=$REPO/tools/seqbond-testbed
export SEQBOND_TESTBED_NAME=${SEQBOND_TESTBED_NAME:-bn}
NS=$SEQBOND_TESTBED_NAME
# shellcheck source-path=SCRIPTDIR source=../tools/testbed/names.sh
. "$REPO/tools/testbed/names.sh"
tb_state_dir "$NS" STATE
TMP=$(mktemp -d /tmp/bn-latency.XXXXXX)
die() { echo "latency: $*" >&2; exit 1; }
note() { echo "latency: $*" >&2; }
BULK_PID=""
cleanup() {
	[[ -z $BULK_PID ]] || kill "$BULK_PID" 2>/dev/null || true
	"$TB" down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

CSV=${1:?CSV} T=${2:?TIME} ROUNDS=${3:?ROUNDS}
SYSTEMS=${4:-seqbond-shared seqbond-dedicated seqbond-tap mptcp}
[[ -s $CSV ]] || echo "system,proto,load,round,p25,p50,p75,p90,p99,p999,max" >"$CSV"

# pingpong CLI_NS SRV_NS IP PROTO [WRAP...]: sockperf ping-pong; prints "p25 ... max" (us).
pingpong() {
	local cli=$1 srv=$2 ip=$3 proto=$4 port=$((12000 + RANDOM % 1000)) spid out
	shift 4
	local -a pf=()
	[[ $proto == udp ]] || pf=(--tcp)
	ip netns exec "$srv" "$@" sockperf server -i "$ip" -p "$port" "${pf[@]}" \
		>/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	out=$(ip netns exec "$cli" "$@" sockperf ping-pong -i "$ip" -p "$port" "${pf[@]}" \
		-t "$T" --mps=1000 -m 64 --full-rtt 2>&1) || true
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	awk '{ gsub(/\033\[[0-9;]*m/, "") }
		/percentile 25.000 =/ { p25 = $NF } /percentile 50.000 =/ { p50 = $NF }
		/percentile 75.000 =/ { p75 = $NF } /percentile 90.000 =/ { p90 = $NF }
		/percentile 99.000 =/ { p99 = $NF } /percentile 99.900 =/ { p999 = $NF }
		/<MAX> observation =/ { mx = $NF }
		END { if (p50 == "") exit 1
		      printf "%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", p25, p50, p75, p90, p99, p999, mx }' \
		<<<"$out" || { echo "$out" | tail -n 5 >&2; die "sockperf $proto to $ip gave no figures"; }
}

# bulk_start CLI_NS SRV_NS IP [WRAP...]: one iperf3 TCP stream CLI -> SRV for the whole
# measurement (the requests queue behind it).
bulk_start() {
	local cli=$1 srv=$2 ip=$3
	shift 3
	ip netns exec "$srv" "$@" iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$cli" "$@" iperf3 -c "$ip" -p 5299 -t $((T + 3)) >/dev/null 2>&1 &
	BULK_PID=$!
	sleep 2	# past slow start
}
bulk_stop() {
	wait "$BULK_PID" 2>/dev/null || true
	BULK_PID=""
	sleep 0.5
}

# measure SYSTEM ROUND CLI_NS SRV_NS IP [WRAP...]: the four measurements of one system.
measure() {
	local sys=$1 round=$2 cli=$3 srv=$4 ip=$5 proto load r
	shift 5
	for load in idle bulk; do
		for proto in udp tcp; do
			# MPTCP carries TCP only: its UDP would be one plain link
			[[ $sys != mptcp || $proto == tcp ]] || continue
			[[ $load == idle ]] || bulk_start "$cli" "$srv" "$ip" "$@"
			r=$(pingpong "$cli" "$srv" "$ip" "$proto" "$@")
			[[ $load == idle ]] || bulk_stop
			echo "$sys,$proto,$load,$round,$r" >>"$CSV"
			note "round $round $sys $proto $load: p25..max $r"
		done
	done
}

# mptcp_up: addresses on every link, the kernel path manager with one subflow per link.
mptcp_up() {
	local i x pid
	for x in a b; do
		pid=$(cat "$STATE/$x.pid")
		kill -TERM "$pid" 2>/dev/null || true
	done
	for x in a b; do
		pid=$(cat "$STATE/$x.pid")
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	done
	for i in 0 1 2 3; do
		ip -n "$NS-a" addr add "10.97.$i.1/24" dev "sbA$i"
		ip -n "$NS-b" addr add "10.97.$i.2/24" dev "sbB$i"
	done
	for x in a b; do
		ip netns exec "$NS-$x" sysctl -q -w net.mptcp.enabled=1
		ip -n "$NS-$x" mptcp limits set subflow 8 add_addr_accepted 8
	done
	for i in 1 2 3; do
		ip -n "$NS-b" mptcp endpoint add "10.97.$i.2" dev "sbB$i" signal
	done
	ip netns exec "$NS-a" ping -q -c 1 -W 2 10.97.0.2 >/dev/null || die "mptcp: no ping"
}

for ((round = 1; round <= ROUNDS; round++)); do
	for sys in $SYSTEMS; do
		extra=()
		case $sys in
		seqbond-shared | mptcp) ;;
		seqbond-dedicated) extra=(--config-extra 'lcore_mode = dedicated') ;;
		seqbond-tap) extra=(--exception tap) ;;
		*) die "unknown system $sys" ;;
		esac
		"$TB" up --links 4 --rate 100 "${extra[@]}" 2>"$TMP/up.log" ||
			{ cat "$TMP/up.log" >&2; die "testbed up failed ($sys)"; }
		"$TB" baseline --rate 100 --keep 2>>"$TMP/up.log" ||
			{ cat "$TMP/up.log" >&2; die "baseline pair failed"; }
		measure link "$round" "$NS-ba" "$NS-bb" 10.98.0.2
		if [[ $sys == mptcp ]]; then
			mptcp_up
			measure mptcp "$round" "$NS-a" "$NS-b" 10.97.0.2 mptcpize run
		else
			measure "$sys" "$round" "$NS-a" "$NS-b" 10.99.0.2
		fi
		"$TB" down >/dev/null 2>&1
	done
done
