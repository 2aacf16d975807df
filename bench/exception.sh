#!/usr/bin/env bash
# bench/exception.sh [--types "tap tap-vnet"] [--links N] [--rate MBIT] [--mtu BYTES]
#                    [--time S] [--bidir] [--reps R] [--perf DIR] [--config-extra 'K = V']
#                    [--port-types "af_packet af_xdp"]
#
# Exception path back ends side by side on the same emulated links: for each repetition and
# each type, bring the testbed up with `--exception TYPE`, run one iperf3 TCP stream a -> b
# over sb0 (--bidir: one each way at once, iperf3 --bidir), and read the CPU time of both
# seqbond processes (utime + stime of /proc/PID/stat, all threads) over the stream.
# --perf DIR: also `perf record -g` both seqbond processes during the stream
#   (perf.TYPE.HOST, or perf.TYPE.PORTTYPE.HOST when --port-types names more than one).
# --port-types: seqbond's member ports (`seqbond-testbed up --port-type`), each in turn
#   within a repetition, like the types (default af_packet).
# --config-extra: passed to `seqbond-testbed up` (a [seqbond] key on both hosts).
# SEQBOND_DP_LCORES=N: datapath lcores per host (the testbed's; default 1).
#
# One line per run on stdout:
#   type=T ports=P lcores=L links=N rate=R mtu=M dir=ab|bidir rep=K ab=Mbit/s ba=Mbit/s retr=N
#   cpu_a=S cpu_b=S (CPU seconds over the stream) cpu_a_sys=S cpu_b_sys=S
# The whole run holds /tmp/seqbond-net.lock (flock -o, so nothing it starts inherits it);
# namespaces are $SEQBOND_TESTBED_NAME-* (default ex).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
export SEQBOND_TESTBED_NAME=${SEQBOND_TESTBED_NAME:-ex}
TB="$REPO/tools/seqbond-testbed"
# shellcheck source-path=SCRIPTDIR source=../tools/testbed/names.sh
. "$REPO/tools/testbed/names.sh"
tb_state_dir "$SEQBOND_TESTBED_NAME" STATE

TYPES="tap tap-vnet" LINKS=4 RATE=10000 MTU=1500 T=10 BIDIR=0 REPS=1 PERF="" EXTRA=""
PTYPES=af_packet
while (($#)); do
	case $1 in
	--types) TYPES=$2; shift 2 ;;
	--links) LINKS=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--mtu) MTU=$2; shift 2 ;;
	--time) T=$2; shift 2 ;;
	--bidir) BIDIR=1; shift ;;
	--reps) REPS=$2; shift 2 ;;
	--perf) PERF=$2; shift 2 ;;
	--config-extra) EXTRA=$2; shift 2 ;;
	--port-types) PTYPES=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/exception.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
((EUID == 0)) || { echo "bench/exception.sh: must run as root" >&2; exit 1; }
if [[ -z ${EXC_BENCH_LOCKED:-} ]]; then
	export EXC_BENCH_LOCKED=1
	args=(--types "$TYPES" --links "$LINKS" --rate "$RATE" --mtu "$MTU" --time "$T"
		--reps "$REPS" --port-types "$PTYPES")
	[[ -z $PERF ]] || args+=(--perf "$PERF")
	[[ -z $EXTRA ]] || args+=(--config-extra "$EXTRA")
	((BIDIR == 0)) || args+=(--bidir)
	exec flock -o /tmp/seqbond-net.lock "$0" "${args[@]}"
fi
[[ -z $PERF ]] || mkdir -p "$PERF"
WORK=$(mktemp -d /tmp/exc-bench.XXXXXX)
trap 'bash "$TB" down >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

# cpu PID: "total system" CPU seconds of a process (all threads).
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f %.3f\n", ($14 + $15) / hz, $15 / hz }' \
		"/proc/$1/stat"
}

run_one() {
	local type=$1 rep=$2 ptype=$3 dir=ab pa pb a0 b0 a1 b1 json=$WORK/iperf.json spid ab ba retr
	local -a perf_pids=()
	local -a up=(--links "$LINKS" --rate "$RATE" --mtu "$MTU" --exception "$type"
		--port-type "$ptype")
	local ptag=$type
	[[ $PTYPES != *" "* ]] || ptag=$type.$ptype
	[[ -z $EXTRA ]] || up+=(--config-extra "$EXTRA")
	bash "$TB" up "${up[@]}" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; return 1; }
	pa=$(cat "$STATE/a.pid")
	pb=$(cat "$STATE/b.pid")
	ip netns exec "$SEQBOND_TESTBED_NAME-b" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	read -r -a a0 <<<"$(cpu "$pa")"
	read -r -a b0 <<<"$(cpu "$pb")"
	if [[ -n $PERF ]]; then
		perf record -q -g -o "$PERF/perf.$ptag.a" -p "$pa" -- sleep "$T" >/dev/null 2>&1 &
		perf_pids+=($!)
		perf record -q -g -o "$PERF/perf.$ptag.b" -p "$pb" -- sleep "$T" >/dev/null 2>&1 &
		perf_pids+=($!)
	fi
	local extra=()
	((BIDIR)) && { extra=(--bidir); dir=bidir; }
	timeout $((T + 30)) ip netns exec "$SEQBOND_TESTBED_NAME-a" iperf3 -c 10.99.0.2 -p 5201 \
		-t "$T" -J "${extra[@]}" >"$json" 2>&1 || true
	read -r -a a1 <<<"$(cpu "$pa")"
	read -r -a b1 <<<"$(cpu "$pb")"
	for p in "${perf_pids[@]}"; do wait "$p" || true; done
	wait "$spid" 2>/dev/null || true
	read -r ab ba retr < <(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["end"]
ab = e["sum_received"]["bits_per_second"] / 1e6
ba = e.get("sum_received_bidir_reverse", {}).get("bits_per_second", 0) / 1e6
retr = e["sum_sent"].get("retransmits", 0) + e.get("sum_sent_bidir_reverse", {}).get("retransmits", 0)
print("%.1f %.1f %d" % (ab, ba, retr))
PY
	)
	# shellcheck disable=SC2016 # the quotes around $EXTRA are part of the output
	printf 'type=%s ports=%s lcores=%s links=%s rate=%s mtu=%s dir=%s rep=%s%s ab=%s ba=%s retr=%s cpu_a=%.2f cpu_b=%.2f cpu_a_sys=%.2f cpu_b_sys=%.2f\n' \
		"$type" "$ptype" "${SEQBOND_DP_LCORES:-1}" "$LINKS" "$RATE" "$MTU" "$dir" "$rep" "${EXTRA:+ extra='$EXTRA'}" "$ab" "$ba" "$retr" \
		"$(calc "${a1[0]} - ${a0[0]}")" "$(calc "${b1[0]} - ${b0[0]}")" \
		"$(calc "${a1[1]} - ${a0[1]}")" "$(calc "${b1[1]} - ${b0[1]}")"
	bash "$TB" down >/dev/null 2>&1
}

calc() { python3 -c "print($1)"; }

for ((r = 1; r <= REPS; r++)); do
	for type in $TYPES; do
		for ptype in $PTYPES; do
			run_one "$type" "$r" "$ptype"
		done
	done
done
