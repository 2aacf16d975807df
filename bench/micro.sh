#!/usr/bin/env bash
# bench/micro.sh OUTDIR [--quick]: the micro benchmarks (no namespaces), CSV in OUTDIR:
#   micro_reorder.csv  bench_reorder: sb_reorder vs rte_reorder per trace
#   callgrind.csv      the same under valgrind --tool=callgrind: instructions per frame
#   micro_dp.csv       bench_dp (seqbond's datapath, 2 hosts on ring ports) and dpdk-testpmd
#                      io forwarding on looped net_ring ports, 64 and 1500-byte frames
#   micro_scale.csv    bench_scale: one host's datapath on 1 and on 2 lcores (a TX and an RX
#                      worker), traffic both ways, runs alternating so that drift hits both
#   micro_auth.csv     bench_auth: cluster authentication's tags (lib/auth), ns and TSC cycles
#                      per call: DATA tag and check, hello MAC and HMAC on a hello listing 17
#                      paths (bench_auth's default length) and on a full-size probe (1514)
# Exits non-zero when a harness piece fails (a wrong release count, a lost frame, a tool
# that does not run); never because of a number.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${SEQBOND_BUILD:-$HERE/../build}
OUT=$1
QUICK=${2:-}
EAL=(--no-huge -m 512 --no-shconf --no-pci -l 1 --log-level=lib.eal:error --log-level='.*:warning')
TMP=$(mktemp -d /tmp/bn-micro.XXXXXX)
# EAL leaves a runtime directory per file prefix behind (even with --no-shconf): remove ours.
if ((EUID == 0)); then RUNDIR=/var/run/dpdk; else RUNDIR=${XDG_RUNTIME_DIR:-/tmp}/dpdk; fi
trap 'rm -rf "$TMP" "$RUNDIR"/bn-mr "$RUNDIR"/bn-cg "$RUNDIR"/bn-dp "$RUNDIR"/bn-tp \
	"$RUNDIR"/bn-sc' EXIT
note() { echo "micro: $*" >&2; }

if [[ $QUICK == --quick ]]; then
	FRAMES=65536 RUNS=3 DP_SECONDS=0.3 TP_SECONDS=1 CG_TRACES="inorder loss1pct_disp8"
	SC_RUNS=1 SC_SECONDS=1 AUTH=(--runs 5 --iters 2000)
else
	FRAMES=1048576 RUNS=7 DP_SECONDS=1 TP_SECONDS=2 CG_TRACES="inorder disp8 disp64 disp512 loss1pct_disp8"
	SC_RUNS=5 SC_SECONDS=3 AUTH=(--runs 31 --iters 20000)
fi

# (a) reorder engines
echo "engine,trace,frames,arrivals,lost,runs,cycles_per_frame,ns_per_frame,mpps" \
	>"$OUT/micro_reorder.csv"
"$BUILD/bench/bench_reorder" "${EAL[@]}" --file-prefix bn-mr -- --frames "$FRAMES" \
	--runs "$RUNS" --csv "$OUT/micro_reorder.csv" 2> >(grep -v TELEMETRY >&2)
note "reorder: $(($(wc -l <"$OUT/micro_reorder.csv") - 1)) results"

# callgrind: only the timed loops (run_sb, run_rte) are collected
echo "engine,trace,arrivals,ir,ir_per_frame" >"$OUT/callgrind.csv"
for tr in $CG_TRACES; do
	for e in sb rte; do
		fn=run_$e
		valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$fn*" \
			"$BUILD/bench/bench_reorder" "${EAL[@]}" --file-prefix "bn-cg" -- \
			--frames 65536 --runs 1 --trace "$tr" --engine "$e" >"$TMP/cg.csv" 2>"$TMP/cg.err" ||
			{ cat "$TMP/cg.err" >&2; exit 1; }
		ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.err")
		arr=$(cut -d, -f4 "$TMP/cg.csv")
		[[ -n $ir && -n $arr ]] || { cat "$TMP/cg.err" >&2; exit 1; }
		echo "$([[ $e == sb ]] && echo sb_reorder || echo rte_reorder),$tr,$arr,$ir,$(python3 -c "print(round($ir/$arr,1))")" \
			>>"$OUT/callgrind.csv"
	done
done
note "callgrind: done"

# (b) whole datapath vs testpmd io
echo "what,scheduler,size,links,runs,ns_per_frame,ns_per_stage,mpps" >"$OUT/micro_dp.csv"
for size in 64 1500; do
	"$BUILD/bench/bench_dp" "${EAL[@]}" --file-prefix bn-dp -- --size "$size" \
		--seconds "$DP_SECONDS" --runs "$RUNS" --csv "$OUT/micro_dp.csv" \
		2> >(grep -v -e TELEMETRY -e 'seqbond.peer' >&2)
	# testpmd: two net_ring ports each looping to itself, forwarding 0 <-> 1; every
	# start/stop cycle prints the packets forwarded during it. io is the anchor; mac (which
	# rewrites the Ethernet addresses, so touches each frame) is shown for scale.
	for mode in io mac; do
	{
		sleep 2
		for _ in $(seq "$RUNS"); do
			echo "start tx_first"
			sleep "$TP_SECONDS"
			echo "stop"
			sleep 0.3
		done
		echo "quit"
	} | dpdk-testpmd --no-huge -m 512 --no-pci -l 0,1 --main-lcore 0 --file-prefix bn-tp \
		--log-level=lib.eal:error --vdev net_ring0 --vdev net_ring1 -- -i \
		--forward-mode="$mode" --txpkts="$size" --total-num-mbufs=8192 >"$TMP/tp.log" 2>&1 ||
		{ tail -20 "$TMP/tp.log" >&2; exit 1; }
	python3 - "$TMP/tp.log" "$TP_SECONDS" "$size" "$OUT/micro_dp.csv" "$mode" <<'PY'
import re, statistics, sys
log, secs, size, out, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
text = open(log).read()
blocks = text.split("Accumulated forward statistics for all ports")[1:]
pk = [int(re.search(r"TX-packets:\s*(\d+)", b).group(1)) for b in blocks]
if not pk or min(pk) == 0:
    sys.exit("micro: testpmd forwarded nothing")
ns = sorted(secs * 1e9 / p for p in pk)
m = statistics.median(ns)
open(out, "a").write("testpmd_%s,-,%s,2,%d,%.2f,%.2f,%.3f\n" % (mode, size, len(ns), m, m, 1e3 / m))
PY
	done
done
note "datapath: done"

# (c) datapath lcores: 1 worker (EAL lcore 1 on CPU 1), then 2 (lcores 1 and 2 on CPUs 0 and
# 1; the main lcore, which only sends the peer's hellos, shares CPU 0), alternating.
echo "what,workers,links,seconds,mpps_kernel_to_peer,mpps_peer_to_kernel,mpps_total" \
	>"$OUT/micro_scale.csv"
for _ in $(seq "$SC_RUNS"); do
	for lc in 0@0,1@1 0@0,1@0,2@1; do
		"$BUILD/bench/bench_scale" --no-huge -m 512 --no-shconf --no-pci --lcores "$lc" \
			--log-level=lib.eal:error --log-level='.*:warning' --file-prefix bn-sc -- \
			--seconds "$SC_SECONDS" --csv "$OUT/micro_scale.csv" \
			2> >(grep -v -e TELEMETRY -e 'seqbond.peer' >&2) >/dev/null
	done
done
note "lcores: done"

# (d) cluster authentication's tags (no EAL): every operation on a hello of the default length
# (17 paths), then the hello ones on a full-size probe. bench_auth prints one line per
# operation: "NAME BYTES B: NS ns CYCLES TSC cycles per call (median of R runs of N; fastest
# NS ns CYCLES cycles)".
echo "op,bytes,runs,iters,ns_per_call,cycles_per_call,fastest_ns,fastest_cycles" \
	>"$OUT/micro_auth.csv"
auth_csv() {
	sed -nE 's/^([a-z0-9_]+) +([0-9]+) B: +([0-9.]+) ns +([0-9.]+) TSC cycles per call \(median of ([0-9]+) runs of ([0-9]+); fastest ([0-9.]+) ns ([0-9.]+) cycles\)$/\1,\2,\5,\6,\3,\4,\7,\8/p' "$@"
}
"$BUILD/bench/bench_auth" "${AUTH[@]}" --more >"$TMP/auth.txt"
auth_csv "$TMP/auth.txt" >>"$OUT/micro_auth.csv"
"$BUILD/bench/bench_auth" "${AUTH[@]}" --more --hello-len 1514 >"$TMP/auth.txt"
auth_csv "$TMP/auth.txt" | { grep -E '^(hello_mac|hmac512_256),' || true; } >>"$OUT/micro_auth.csv"
n=$(($(wc -l <"$OUT/micro_auth.csv") - 1))
((n == 6)) || { cat "$TMP/auth.txt" >&2; echo "micro: bench_auth: $n results, not 6" >&2; exit 1; }
note "auth: done"
