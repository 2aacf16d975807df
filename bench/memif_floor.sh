#!/usr/bin/env bash
# bench/memif_floor.sh OUT.csv LINKS MTU SECONDS REPS   (SECONDS: at least 5)
#
# DPDK's floor under the capacity benchmark: what memif pairs carry with no seqbond, no TCP and
# no exception path. Two dpdk-testpmd processes share LINKS memif pairs (one socket, a pair
# per link, as seqbond-testbed up --port-type memif cables them): one sends frames of MTU + 14
# bytes in txonly mode, the other counts them in rxonly mode, each with one forwarding lcore
# pinned to its own CPU. The rate is the median of the receiver's per-second readings while
# the sender runs. Appends "floor,LINKS,MTU,rep,frames_per_s,mbit_s" to OUT.csv (header when
# new). Runs under the caller's network lock (bench/run: locked); needs root. Reserves the
# 2 MiB hugepages the two testpmd need when too few are free, and gives them back at the end.
set -euo pipefail
out=$1 links=$2 mtu=$3 secs=$(($4 < 5 ? 5 : $4)) reps=$5	# 5 s at least: 3 whole seconds
# shellcheck source-path=SCRIPTDIR source=../tools/testbed/names.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/testbed/names.sh"
work=$(mktemp -d /tmp/seqbond-floor.XXXXXX)
added=0
# A testpmd that crashed leaves its hugepage files behind. Our file prefixes carry our pid.
cleanup() {
	pkill -INT -f "file-prefix sbfloor$$-" 2>/dev/null || true
	rm -rf "$work" /dev/hugepages/sbfloor$$-* /var/run/dpdk/sbfloor$$-*
	tb_hugepages_release "$added"
}
trap cleanup EXIT

# vdev_args ROLE: one --vdev per link on one socket.
vdev_args() {
	local i
	for ((i = 0; i < links; i++)); do
		printf -- '--vdev=net_memif%d,role=%s,id=%d,socket=%s/memif%d.sock,socket-abstract=no%s ' \
			"$i" "$1" "$i" "$work" "$run" "$( ((mtu <= 1500)) || echo ",bsize=10240")"
	done
}

[[ -s $out ]] || echo "system,links,mtu,rep,frames_per_s,mbit_s" >"$out"
frame=$((mtu + 14))
mbuf=$((frame > 1900 ? frame + 256 : 2176))	# one mbuf per frame
run=0	# each run its own socket and EAL file prefix: nothing of a crashed run is reused
# hugepages: each testpmd's 32768 mbufs (+384 bytes of header each) and 128 MiB for the EAL
want=$(((32768 * (mbuf + 384) >> 20) + 128))	# MiB for one, so pages of 2 MiB for two
tb_hugepages_reserve "$want" added || {
	echo "memif_floor: $(awk '/HugePages_Free/ {print $2}' /proc/meminfo) free hugepages" \
		"and hugetlbfs mounted: want $want pages" >&2
	exit 1
}
# measure REP: one sender/receiver run; appends the row and returns 0, or returns 2 when the
# receiver counted fewer than 3 seconds of traffic (printing why).
measure() {
	local rep=$1 rx rc=0
	run=$((run + 1))
	# shellcheck disable=SC2046 # one word per --vdev
	timeout -s INT $((secs + 10)) dpdk-testpmd --lcores 0@0,1@1 --no-pci \
		--file-prefix sbfloor$$-rx$run $(vdev_args server) -- --forward-mode=rxonly \
		--stats-period=1 --total-num-mbufs=32768 --mbuf-size=$mbuf \
		>"$work/rx.txt" 2>&1 &
	rx=$!
	for ((w = 0; w < 50; w++)); do
		[[ -S $work/memif$run.sock ]] && break
		sleep 0.1
	done
	[[ -S $work/memif$run.sock ]] || { cat "$work/rx.txt" >&2; echo "memif_floor: no socket" >&2; exit 1; }
	# +2 s: EAL and port start take up to that before the first frame
	# shellcheck disable=SC2046
	timeout -s INT $((secs + 2)) dpdk-testpmd --lcores 0@1,1@0 --no-pci \
		--file-prefix sbfloor$$-tx$run $(vdev_args client) -- --forward-mode=txonly \
		--mbuf-size=$mbuf --txpkts="$frame" --total-num-mbufs=32768 \
		--stats-period=1 >"$work/tx.txt" 2>&1 || true
	# --txpkts must fit the mbufs (--mbuf-size first), or testpmd sends 64-byte frames
	grep -q "packet len=$frame " "$work/tx.txt" ||
		{ cat "$work/tx.txt" >&2; echo "memif_floor: testpmd did not send $frame-byte frames" >&2; exit 1; }
	wait "$rx" 2>/dev/null || rc=$?	# testpmd may crash on its way out; the figures are printed
	((rc < 128)) || echo "memif_floor: the receiving testpmd ended on signal $((rc - 128))" >&2
	# Per port and per second: "Rx-pps: N Rx-bps: N"; a port's block starts "NIC statistics for
	# port P". Sum the ports of each second, keep the seconds with traffic, take the median.
	python3 - "$work/rx.txt" "$links" "$mtu" "$rep" "$out" <<'PY'
import re, statistics, sys
text, links = open(sys.argv[1]).read(), int(sys.argv[2])
pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", text)]
bps = [int(x) for x in re.findall(r"Rx-bps:\s+(\d+)", text)]
sec = [(sum(pps[i:i + links]), sum(bps[i:i + links])) for i in range(0, len(pps) - links + 1, links)]
sec = [s for s in sec if s[0] > 0]
if len(sec) < 3:
    print("memif_floor: fewer than 3 seconds with traffic:\n" + text[-600:], file=sys.stderr)
    sys.exit(2)
sec = sec[1:-1]  # the first and last seconds are partial
fps = statistics.median(s[0] for s in sec)
mbit = statistics.median(s[1] for s in sec) / 1e6
open(sys.argv[5], "a").write("testpmd-memif,%d,%s,%s,%.0f,%.1f\n" % (links, sys.argv[3], sys.argv[4], fps, mbit))
print("memif_floor: %d links mtu %s: %.0f frames/s, %.1f Mbit/s" % (links, sys.argv[3], fps, mbit))
PY
}

# The receiving testpmd (DPDK 22.11, memif server) ends on SIGSEGV in most runs, usually after
# its last reading: a run left with fewer than 3 whole seconds is measured again, up to 3 times.
for ((rep = 1; rep <= reps; rep++)); do
	for ((try = 1; ; try++)); do
		rc=0
		measure "$rep" || rc=$?
		((rc == 0)) && break
		((rc == 2 && try < 3)) || { echo "memif_floor: no measurement in $try runs" >&2; exit 1; }
		echo "memif_floor: run $try of rep $rep measured nothing: once more" >&2
	done
done
