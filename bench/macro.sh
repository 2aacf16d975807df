#!/usr/bin/env bash
# bench/macro.sh: one system on one set of emulated links, measured with iperf3 (called by
# bench/run, under flock /tmp/seqbond-net.lock so no other engineer's network test overlaps).
#
#   macro.sh baseline RATE MTU TIME REPS CSV
#   macro.sh measure SYSTEM RATES MTU DIR TIME REPS CSV
#   macro.sh failover SYSTEM TIME CSV JSONDIR
#   macro.sh check SYSTEM RATES MTU        (bring it up, ping across it, tear down: no load)
#   macro.sh profile SYSTEM RATES MTU TIME CSV   (seqbond only: perf record of both processes
#                                                 during one A->B stream; benchlib.py profile)
#
# SYSTEM: seqbond-rr|seqbond-drr|seqbond-edpf|bond-rr|bond-xor|bond-8023ad|mptcp|link
# (link: plain TCP over the first link alone, the testbed's addresses 10.97.0.x); a seqbond
# system with -xdp or -memif: those member ports; any seqbond system with -nokey last (e.g.
# seqbond-edpf-nokey, seqbond-edpf-memif-nokey): the same without the testbed's cluster key
# (`up --no-key`), which it has otherwise
# RATES: comma list of Mbit/s (one per link); DIR: ab (A->B) or bidir (iperf3 --bidir).
# Every system runs on links made by tools/seqbond-testbed (same veths, same tbf): the
# anchors stop the testbed's seqbond and use the links themselves.
#
# Each repetition appends one CSV row (see bench/benchlib.py row), numbered from
# BENCH_REP_FIRST (default 1: a caller that alternates systems runs one repetition at a time).
# A harness failure (a system that does not come up, iperf3 that fails) exits non-zero; slow
# numbers never do.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
TB=$REPO/tools/seqbond-testbed
export SEQBOND_TESTBED_NAME=${SEQBOND_TESTBED_NAME:-bn}
NS=$SEQBOND_TESTBED_NAME
# shellcheck source-path=SCRIPTDIR source=../tools/testbed/names.sh
. "$REPO/tools/testbed/names.sh"
tb_state_dir "$NS" STATE
LIB="/usr/bin/python3 $HERE/benchlib.py"
TMP=$(mktemp -d /tmp/bn-bench.XXXXXX)
TPMD_PIDS=()

die() { echo "macro: $*" >&2; exit 1; }
note() { echo "macro: $*" >&2; }

cleanup() {
	local p
	for p in "${TPMD_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${TPMD_PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
	done
	"$TB" down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# links_up RATES MTU: the testbed's links (and its seqbond with scheduler $3, default edpf).
# BENCH_UP_EXTRA: more `up` options for every system alike, e.g. the WAN set's
# "--delay 20,40,60 --loss 0,0,1" (the testbed's delay line, tools/linkemu), or
# "--exception tap-vnet".
links_up() {
	local rates=$1 mtu=$2 sched=${3:-edpf} n
	local -a shape=()
	read -r -a shape <<<"${BENCH_UP_EXTRA:-}"
	n=$(tr ',' '\n' <<<"$rates" | wc -l)
	"$TB" up --links "$n" --rate "$rates" --mtu "$mtu" --scheduler "$sched" "${shape[@]}" \
		2>"$TMP/up.log" ||
		{ cat "$TMP/up.log" >&2; die "testbed up failed ($rates, mtu $mtu)"; }
}

# stop_seqbond: the anchors keep the links but not our datapath.
stop_seqbond() {
	local x pid
	for x in a b; do
		pid=$(cat "$STATE/$x.pid")
		kill -TERM "$pid" 2>/dev/null || true
	done
	for x in a b; do
		pid=$(cat "$STATE/$x.pid")
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && die "seqbond $pid did not stop"
	done
	return 0
}

# bond_up MODE RATES MTU: dpdk-testpmd in each host namespace, io forwarding between a TAP
# (bn0, 10.96.0.k/24) and a net_bonding device over af_packet members on the testbed veths.
bond_up() {
	local mode=$1 rates=$2 mtu=$3 n k x X i dev bond eal tap pm mb
	n=$(tr ',' '\n' <<<"$rates" | wc -l)
	for k in 1 2; do
		x=$(echo ab | cut -c$k)
		X=${x^^}
		eal=(-l 0,1 --main-lcore $((k - 1)) --no-huge -m 1024 --no-pci
			--file-prefix "$NS-tp-$x" --log-level=lib.eal:error)
		bond="net_bonding0,mode=$mode"
		for ((i = 0; i < n; i++)); do
			dev="net_af_packet$i,iface=sb$X$i,qdisc_bypass=0"
			((mtu <= 1500)) || dev+=",framesz=10240,blocksz=20480,framecnt=1024"
			eal+=(--vdev "$dev")
			# DPDK 22.11 names the bonding devarg for a member "slave".
			bond+=",slave=net_af_packet$i"
		done
		[[ $mode == 2 || $mode == 4 ]] && bond+=",xmit_policy=l34"
		tap="net_tap0,iface=bn0,mac=02:42:4e:00:00:0$k"
		eal+=(--vdev "$tap" --vdev "$bond")
		# ports: members 0..n-1, tap n, bond n+1; forward only between the last two.
		pm=$(printf '0x%x' $(((1 << n) | (1 << (n + 1)))))
		# jumbo af_packet frames (framesz above) must fit in one mbuf, or port 0 refuses
		# its rx queue; the default data room is 2048 bytes
		mb=()
		((mtu <= 1500)) || mb=(--mbuf-size=10400)
		# nice 19: testpmd polls without pause; on 2 cores two busy pollers at normal
		# priority would starve the kernel (tbf, veth, iperf3) that this test measures.
		ip netns exec "$NS-$x" nice -n 19 dpdk-testpmd "${eal[@]}" -- --forward-mode=io \
			--portmask="$pm" --nb-cores=1 --stats-period=3600 --total-num-mbufs=16384 "${mb[@]}" \
			>"$TMP/testpmd-$x.log" 2>&1 </dev/null &
		TPMD_PIDS+=($!)
	done
	printf '%s\n' "${TPMD_PIDS[@]}" >"$TMP/cpu-pids"
	for k in 1 2; do
		x=$(echo ab | cut -c$k)
		for _ in $(seq 100); do
			ip -n "$NS-$x" link show bn0 >/dev/null 2>&1 && break
			kill -0 "${TPMD_PIDS[k - 1]}" 2>/dev/null ||
				{ cat "$TMP/testpmd-$x.log" >&2; die "testpmd on $x exited"; }
			sleep 0.1
		done
		ip -n "$NS-$x" addr add "10.96.0.$k/24" dev bn0
		ip -n "$NS-$x" link set bn0 up
	done
	# 802.3ad needs LACP to converge (a few seconds); every mode needs ARP.
	for _ in $(seq 60); do
		ip netns exec "$NS-a" ping -q -c 1 -W 1 10.96.0.2 >/dev/null 2>&1 && return 0
	done
	tail -n 20 "$TMP"/testpmd-*.log >&2
	die "bonding mode $mode: no ping over bn0"
}

# mptcp_up RATES: addresses per link (10.97.i.1/2), kernel path manager: B announces one
# address per extra link, A accepts them; so one subflow per link.
mptcp_up() {
	local rates=$1 n i
	n=$(tr ',' '\n' <<<"$rates" | wc -l)
	for ((i = 0; i < n; i++)); do
		ip -n "$NS-a" addr add "10.97.$i.1/24" dev "sbA$i"
		ip -n "$NS-b" addr add "10.97.$i.2/24" dev "sbB$i"
	done
	ip netns exec "$NS-a" sysctl -q -w net.mptcp.enabled=1
	ip netns exec "$NS-b" sysctl -q -w net.mptcp.enabled=1
	ip -n "$NS-a" mptcp limits set subflow 8 add_addr_accepted 8
	ip -n "$NS-b" mptcp limits set subflow 8 add_addr_accepted 8
	for ((i = 1; i < n; i++)); do
		ip -n "$NS-b" mptcp endpoint add "10.97.$i.2" dev "sbB$i" signal
	done
	ip netns exec "$NS-a" ping -q -c 1 -W 2 10.97.0.2 >/dev/null || die "mptcp: no ping"
	: >"$TMP/cpu-pids"
}

# system_up SYSTEM RATES MTU: sets SERVER (address in B) and WRAP (command prefix).
system_up() {
	local sys=$1 rates=$2 mtu=$3
	WRAP=()
	case $sys in
	seqbond-*-nokey)
		# the same system without a cluster key: frames carry no tag (sb0's MTU is 24 bytes
		# larger)
		BENCH_UP_EXTRA="${BENCH_UP_EXTRA:-} --no-key" system_up "${sys%-nokey}" "$rates" "$mtu"
		;;
	seqbond-*-xdp)
		# the same with af_xdp member ports (seqbond-testbed up --port-type af_xdp)
		BENCH_UP_EXTRA="${BENCH_UP_EXTRA:-} --port-type af_xdp" \
			links_up "$rates" "$mtu" "$(sed 's/^seqbond-//; s/-xdp$//' <<<"$sys")"
		cat "$STATE/a.pid" "$STATE/b.pid" >"$TMP/cpu-pids"
		SERVER=10.99.0.2 ;;
	seqbond-*-memif)
		# memif member ports (seqbond-testbed up --port-type memif): no kernel in the links
		BENCH_UP_EXTRA="${BENCH_UP_EXTRA:-} --port-type memif" \
			links_up "$rates" "$mtu" "$(sed 's/^seqbond-//; s/-memif$//' <<<"$sys")"
		cat "$STATE/a.pid" "$STATE/b.pid" >"$TMP/cpu-pids"
		SERVER=10.99.0.2 ;;
	seqbond-*)
		links_up "$rates" "$mtu" "${sys#seqbond-}"
		cat "$STATE/a.pid" "$STATE/b.pid" >"$TMP/cpu-pids"
		SERVER=10.99.0.2 ;;
	bond-*)
		links_up "$rates" "$mtu"
		stop_seqbond
		case $sys in
		bond-rr) bond_up 0 "$rates" "$mtu" ;;
		bond-xor) bond_up 2 "$rates" "$mtu" ;;
		bond-8023ad) bond_up 4 "$rates" "$mtu" ;;
		*) die "unknown system $sys" ;;
		esac
		SERVER=10.96.0.2 ;;
	mptcp)
		links_up "$rates" "$mtu"
		stop_seqbond
		mptcp_up "$rates"
		WRAP=(mptcpize run)
		SERVER=10.97.0.2 ;;
	link)
		links_up "$rates" "$mtu"
		stop_seqbond
		ip -n "$NS-a" addr add 10.97.0.1/24 dev sbA0
		ip -n "$NS-b" addr add 10.97.0.2/24 dev sbB0
		ip netns exec "$NS-a" ping -q -c 1 -W 2 10.97.0.2 >/dev/null || die "link: no ping"
		: >"$TMP/cpu-pids"
		SERVER=10.97.0.2 ;;
	*) die "unknown system $sys" ;;
	esac
}

snap() { # snap TAG: counters of both namespaces, CPU of the system's processes, /proc/stat
	local tag=$1
	ip netns exec "$NS-a" nstat -asz --json >"$TMP/nstat-a.$tag"
	ip netns exec "$NS-b" nstat -asz --json >"$TMP/nstat-b.$tag"
	$LIB cpu "$TMP/cpu-pids" >"$TMP/cpu.$tag"
}

# iperf_once TIME DIR JSON [INTERVAL]: one iperf3 TCP stream A -> B (or --bidir).
iperf_once() {
	local t=$1 dir=$2 json=$3 iv=${4:-1} spid rc=0
	local -a extra=() sextra=()
	[[ $dir == bidir ]] && extra=(--bidir)
	# BENCH_CC: the sender's congestion control (iperf3 -C), else the namespace's default
	[[ -z ${BENCH_CC:-} ]] || extra+=(-C "$BENCH_CC")
	# short intervals (failover): the client's own intervals count bytes written to its
	# socket, not bytes delivered; the server's (receiver's) intervals are the goodput, and
	# the server reports them at its own -i, in JSON only with its own -J.
	[[ $iv == 1 ]] || { extra+=(--get-server-output); sextra=(-J -i "$iv"); }
	ip netns exec "$NS-b" "${WRAP[@]}" iperf3 -s -1 -p 5201 "${sextra[@]}" >"$TMP/server.log" \
		2>&1 </dev/null &
	spid=$!
	for _ in $(seq 100); do
		ip netns exec "$NS-b" ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.05
	done
	timeout $((t + 30)) ip netns exec "$NS-a" "${WRAP[@]}" iperf3 -c "$SERVER" -p 5201 -t "$t" \
		-i "$iv" -J --connect-timeout 3000 "${extra[@]}" >"$json" 2>"$TMP/client.err" \
		</dev/null || rc=$?
	for _ in $(seq 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	((rc == 0)) || { cat "$json" "$TMP/client.err" >&2; die "iperf3 failed (exit $rc)"; }
}

# port_totals: each seqbond host's frames over all its member ports during its life (up,
# the streams, down), from the exit report in its log: on an A->B stream, a's tx and b's rx
# are the data frames, b's tx and a's rx the ACKs (both with the hellos).
port_totals() {
	local x
	for x in a b; do
		awk -v host="$x" '
		$1 == "port" && $5 == "rx" && $7 == "frames" && $10 == "tx" && $12 == "frames" {
			rx += $6; rxb += $8; tx += $11; txb += $13; n++
		}
		END {
			# %.0f: %d stops at 2^31 in mawk
			if (n)
				printf "macro: host %s, %d ports: rx %.0f frames %.0f bytes, " \
					"tx %.0f frames %.0f bytes\n", host, n, rx, rxb, tx, txb
		}' "$STATE/$x.log" >&2 || true
	done
}

cmd_measure() {
	local sys=$1 rates=$2 mtu=$3 dir=$4 t=$5 reps=$6 csv=$7 r first=${BENCH_REP_FIRST:-1}
	system_up "$sys" "$rates" "$mtu"
	for ((r = 1; r <= reps; r++)); do
		snap before
		iperf_once "$t" "$dir" "$TMP/iperf.json"
		snap after
		$LIB row "$csv" "$sys" "$rates" "$mtu" "$dir" $((first + r - 1)) "$TMP/iperf.json" \
			"$TMP" || die "cannot parse the results of $sys $rates"
	done
	if [[ $sys == seqbond-* ]]; then
		# the counters seqbond prints when it stops (reorder losses, late frames, frames per
		# port)
		"$TB" down >/dev/null 2>&1 || true
		grep -h "reorder:" "$STATE"/[ab].log >&2 || true
		port_totals
	fi
}

cmd_baseline() {
	local rate=$1 mtu=$2 t=$3 reps=$4 csv=$5 r good
	for ((r = 1; r <= reps; r++)); do
		good=$("$TB" baseline --rate "$rate" --mtu "$mtu" --time "$t" --json "$TMP/bl.json" \
			2>"$TMP/bl.err") || { cat "$TMP/bl.err" >&2; die "baseline $rate failed"; }
		$LIB baseline-row "$csv" "$rate" "$mtu" "$r" "$TMP/bl.json"
		note "baseline $rate Mbit/s mtu $mtu rep $r: $good Mbit/s"
	done
}

# failover: 4 x 100, link 1 of host A down at t=3 s and up at t=6 s, 100 ms intervals.
cmd_failover() {
	local sys=$1 t=$2 csv=$3 jdir=$4 t0 ipid json
	system_up "$sys" 100,100,100,100 1500
	json=$jdir/failover-$sys.json
	snap before
	iperf_once "$t" ab "$json" 0.1 &
	ipid=$!
	t0=$(date +%s.%N)
	sleep 3
	"$TB" link a 1 down
	t_down=$(date +%s.%N)
	sleep 3
	"$TB" link a 1 up
	t_up=$(date +%s.%N)
	wait "$ipid" || die "failover iperf3 failed for $sys"
	snap after
	$LIB failover-row "$csv" "$sys" "$json" "$TMP" \
		"$(python3 -c "print(round($t_down - $t0, 3), round($t_up - $t0, 3))")"
}

cmd_check() {
	local sys=$1 rates=$2 mtu=$3
	system_up "$sys" "$rates" "$mtu"
	ip netns exec "$NS-a" "${WRAP[@]}" ping -q -c 3 -i 0.2 -W 2 "$SERVER" >&2 ||
		die "check $sys: no ping to $SERVER"
	note "check $sys on $rates mtu $mtu: ok"
}

# profile: where the datapath's time goes. One A->B stream of TIME s; from its 3rd second,
# `perf record -g` samples each seqbond process (999 Hz) for TIME - 5 s. benchlib.py profile
# sorts the samples into the datapath's stages and appends one row per (host, stage).
cmd_profile() {
	local sys=$1 rates=$2 mtu=$3 t=$4 csv=$5 ipid x pids=() win=$(($4 - 5))
	[[ $sys == seqbond-* ]] || die "profile: seqbond systems only, not $sys"
	((win >= 3)) || die "profile: TIME must be at least 8 s"
	command -v perf >/dev/null || die "profile: perf missing (tools/install-deps: linux-perf)"
	system_up "$sys" "$rates" "$mtu"
	iperf_once "$t" ab "$TMP/iperf.json" &
	ipid=$!
	sleep 3
	snap before
	# nstat's counters are 32 bits wide: the bytes come from /proc, 64 bits
	ip netns exec "$NS-b" cat /proc/net/netstat >"$TMP/netstat-b.before"
	for x in a b; do
		perf record -q -F 999 -g -o "$TMP/perf-$x.data" -p "$(cat "$STATE/$x.pid")" \
			-- sleep "$win" >"$TMP/perf-$x.log" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" || { cat "$TMP"/perf-?.log >&2; die "perf record failed"; }
	snap after
	ip netns exec "$NS-b" cat /proc/net/netstat >"$TMP/netstat-b.after"
	wait "$ipid" || die "profile: iperf3 failed"
	note "profile $sys $rates mtu $mtu: $(python3 -c 'import json, sys
print("%.1f Mbit/s" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' \
		"$TMP/iperf.json") over the whole stream"
	for x in a b; do
		perf script -F comm,ip,sym,dso -i "$TMP/perf-$x.data" >"$TMP/perf-$x.txt" \
			2>/dev/null || die "perf script failed on $x"
	done
	$LIB profile "$csv" "$sys" "$rates" "$mtu" "$TMP" "$win" || die "cannot sort the samples"
}

main() {
	local verb=$1
	shift
	((EUID == 0)) || die "must run as root"
	case $verb in
	measure) cmd_measure "$@" ;;
	baseline) cmd_baseline "$@" ;;
	failover) cmd_failover "$@" ;;
	check) cmd_check "$@" ;;
	profile) cmd_profile "$@" ;;
	*) die "unknown verb $verb" ;;
	esac
}

main "$@"
