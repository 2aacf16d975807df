#!/usr/bin/env bash
# bench/micro.sh OUTDIR [--quick] [--auth-only]: the micro benchmarks (no namespaces), CSV in
# OUTDIR:
#   micro_auth.csv     bench_auth: cluster authentication (lib/auth), per frame: ns, TSC cycles
#                      and frames/s of the DATA tag (AES-256-GCM: data_gcm, data_verify) and of
#                      its candidates (ChaCha20-Poly1305 from libsodium and from OpenSSL, keyed
#                      BLAKE2b-128) on 64, 1500 and 9000-byte frames; the hello MAC and HMAC on
#                      a hello listing 17 paths (bench_auth's default length) and on a full-size
#                      probe (1514); the OpenSSL lines again with AES-NI and PCLMULQDQ masked
#                      (bench_auth --software-aes; column aesni_masked)
#   micro_reorder.csv  bench_reorder: sb_reorder vs rte_reorder per trace
#   callgrind.csv      the same under valgrind --tool=callgrind: instructions per frame
#   micro_dp.csv       bench_dp (seqbond's datapath, 2 hosts on ring ports) and dpdk-testpmd
#                      io forwarding on looped net_ring ports, 64 and 1500-byte frames
#   micro_scale.csv    bench_scale: one host's datapath on 1 and on 2 lcores (a TX and an RX
#                      worker), traffic both ways, runs alternating so that drift hits both
# --auth-only: micro_auth.csv alone (seconds; then `bench/run --report` puts it in the docs).
# Exits non-zero when a harness piece fails (a wrong release count, a lost frame, a tool
# that does not run); never because of a number.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${SEQBOND_BUILD:-$HERE/../build}
OUT=$1
shift
QUICK="" AUTH_ONLY=0
for a in "$@"; do
	case $a in
	--quick) QUICK=$a ;;
	--auth-only) AUTH_ONLY=1 ;;
	"") ;;	# bench/run passes an empty argument when not --quick
	*) echo "micro: unknown argument '$a'" >&2; exit 2 ;;
	esac
done
EAL=(--no-huge -m 512 --no-shconf --no-pci -l 1 --log-level=lib.eal:error --log-level='.*:warning')
TMP=$(mktemp -d /tmp/bn-micro.XXXXXX)
# EAL leaves a runtime directory per file prefix behind (even with --no-shconf): remove ours.
if ((EUID == 0)); then RUNDIR=/var/run/dpdk; else RUNDIR=${XDG_RUNTIME_DIR:-/tmp}/dpdk; fi
trap 'rm -rf "$TMP" "$RUNDIR"/bn-mr "$RUNDIR"/bn-cg "$RUNDIR"/bn-dp "$RUNDIR"/bn-tp \
	"$RUNDIR"/bn-sc' EXIT
note() { echo "micro: $*" >&2; }

if [[ $QUICK == --quick ]]; then
	FRAMES=65536 RUNS=3 DP_SECONDS=0.3 TP_SECONDS=1 CG_TRACES="inorder loss1pct_disp8"
	SC_RUNS=1 SC_SECONDS=1 AUTH=(--runs 5 --run-us 200)
else
	FRAMES=1048576 RUNS=7 DP_SECONDS=1 TP_SECONDS=2 CG_TRACES="inorder disp8 disp64 disp512 loss1pct_disp8"
	SC_RUNS=5 SC_SECONDS=3 AUTH=(--runs 31 --run-us 500)
fi

# (a) cluster authentication's tags (no EAL; first: it takes seconds). bench_auth prints a
# "cpu:" line (AES-NI and PCLMULQDQ present, and masked for OpenSSL or not), then one line per
# operation and frame size: "NAME BYTES B: NS ns CYCLES cycles FPS frames/s per frame (median
# of R runs of N; fastest NS ns CYCLES cycles FPS frames/s)". Three runs: everything on the
# default sizes and hello; with --software-aes, of which the lines through OpenSSL are kept
# (libsodium does not read OPENSSL_ia32cap); the hello lines on a full-size probe.
{
	printf 'op,bytes,aesni_masked,runs,batch,ns_per_frame,cycles_per_frame,frames_per_s,'
	printf 'fastest_ns,fastest_cycles,fastest_frames_per_s,cpu_aesni,cpu_pclmulqdq\n'
} >"$OUT/micro_auth.csv"
# auth_csv FILE MASKED: FILE's result lines as CSV rows, MASKED (yes or no) and the CPU's flags
# from its "cpu:" line filled in.
auth_csv() {
	awk -v masked="$2" '
	/^cpu: aes-ni (yes|no), pclmulqdq (yes|no) / { cpu = $3 $5 }	# "yes," "yes"
	$0 ~ "^[a-z0-9_]+ [0-9]+ B: [0-9.]+ ns [0-9.]+ cycles [0-9.]+ frames/s per frame " \
		"\\(median of [0-9]+ runs of [0-9]+; " \
		"fastest [0-9.]+ ns [0-9.]+ cycles [0-9.]+ frames/s\\)$" {
		if (cpu == "") { print "micro: bench_auth: no cpu: line first" > "/dev/stderr"; exit 1 }
		sub(/;$/, "", $17); sub(/\)$/, "", $24)
		print $1 "," $2 "," masked "," $14 "," $17 "," $4 "," $6 "," $8 "," $19 "," $21 "," $23 "," cpu
	}' "$1"
}
"$BUILD/bench/bench_auth" "${AUTH[@]}" --more >"$TMP/auth.txt"
auth_csv "$TMP/auth.txt" no >>"$OUT/micro_auth.csv"
"$BUILD/bench/bench_auth" "${AUTH[@]}" --software-aes >"$TMP/auth-sw.txt"
grep -q '^cpu: .*masked for OpenSSL: aes-ni, pclmulqdq' "$TMP/auth-sw.txt" ||
	{ cat "$TMP/auth-sw.txt" >&2; echo "micro: bench_auth --software-aes masked nothing" >&2; exit 1; }
auth_csv "$TMP/auth-sw.txt" yes | { grep -E '^(data_gcm|data_verify|chacha20poly1305_openssl),' ||
	true; } >>"$OUT/micro_auth.csv"
"$BUILD/bench/bench_auth" "${AUTH[@]}" --more --sizes 64 --hello-len 1514 >"$TMP/auth.txt"
auth_csv "$TMP/auth.txt" no | { grep -E '^(hello_mac|hmac512_256),' || true; } \
	>>"$OUT/micro_auth.csv"
# 5 DATA lines x 3 sizes, hello_mac and hmac512_256 twice, 3 OpenSSL lines x 3 sizes masked
n=$(($(wc -l <"$OUT/micro_auth.csv") - 1))
((n == 28)) ||
	{ cat "$TMP"/auth*.txt >&2; echo "micro: bench_auth: $n results, not 28" >&2; exit 1; }
note "auth: done"
((AUTH_ONLY == 0)) || exit 0

# (b) reorder engines
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

# (c) whole datapath vs testpmd io
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

# (d) datapath lcores: 1 worker (EAL lcore 1 on CPU 1), then 2 (lcores 1 and 2 on CPUs 0 and
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

