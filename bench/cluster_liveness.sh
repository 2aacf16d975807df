#!/usr/bin/env bash
# bench/cluster_liveness.sh LABEL [BINARY] [SECONDS]: path liveness of one seqbond binary in
# the bladecentre under load (bench/results/notes/cluster.md, "A host that wakes"). Brings up
# `seqbond-testbed up --preset bladecentre --rate 100 --exception tap-vnet` with BINARY
# (default build/app/seqbond), waits 5 s, runs iperf3 from all 16 blades to the gateway at
# once for SECONDS (default 20; one server port per blade), tears the testbed down and
# prints one line: path downs over the testbed's life by fault (the 17 logs), whole-peer
# silences and how many were ridden out, own lcore stalls, 16 -> 1 goodput, Jain fairness
# and retransmits, and the hellos all 17 hosts received (and sent unicast) per second over
# the load. Run two binaries alternately for a side-by-side comparison; SB_CONFIG_EXTRA='KEY
# = VALUE' adds a line to every host's [seqbond] instead. Needs root.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
LABEL=${1:?usage: bench/cluster_liveness.sh LABEL [BINARY] [SECONDS]}
BIN=${2:-$REPO/build/app/seqbond}
SECS=${3:-20}
TB=$REPO/tools/seqbond-testbed
# shellcheck source-path=SCRIPTDIR source=../tools/testbed/names.sh
. "$REPO/tools/testbed/names.sh"
NS=${SEQBOND_TESTBED_NAME:-sb}
tb_state_dir "$NS" STATE
TMP=$(mktemp -d /tmp/sb-live.XXXXXX)
cleanup() {
	pkill -f "iperf3 -s -D -p 52[0-9][0-9]" 2>/dev/null || true
	"$TB" down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT
BLADES=(a b c d e f g h i j k l m n o p)
GW=q
GW_ADDR=10.99.0.17

extra=()
[[ -z ${SB_CONFIG_EXTRA:-} ]] || extra=(--config-extra "$SB_CONFIG_EXTRA")
SEQBOND_BIN=$BIN "$TB" up --preset bladecentre --rate 100 --exception tap-vnet "${extra[@]}" \
	>"$TMP/up.log" 2>&1 ||
	{ cat "$TMP/up.log" >&2; exit 1; }
sleep 5
for i in "${!BLADES[@]}"; do
	ip netns exec "$NS-$GW" iperf3 -s -D -p $((5202 + i))
done
# hello_counts: "time rx_hello tx_hello_unicast", summed over the 17 hosts.
hello_counts() {
	local h rx=0 uc=0 j
	for h in "${BLADES[@]}" "$GW"; do
		j=$(echo /seqbond/info | dpdk-telemetry.py -f "$NS-$h" 2>/dev/null | grep '^{' || true)
		[[ -n $j ]] || continue
		read -r a b <<<"$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])["/seqbond/info"]
print(d["rx_hello"], d.get("tx_hello_unicast", 0))' "$j")"
		rx=$((rx + a))
		uc=$((uc + b))
	done
	echo "$(date +%s.%N) $rx $uc"
}
sleep 1
h0=$(hello_counts)
pids=()
for i in "${!BLADES[@]}"; do
	ip netns exec "$NS-${BLADES[i]}" iperf3 -c "$GW_ADDR" -p $((5202 + i)) -t "$SECS" -J \
		>"$TMP/ip-${BLADES[i]}.json" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
h1=$(hello_counts)
cat "$STATE"/[a-q].log >"$TMP/all.log"
count() { grep -cE "$1" "$TMP/all.log" || true; }
python3 - "$LABEL" "$TMP" \
	"$(count 'peer [0-9]+ path [0-9]+ down')" \
	"$(count 'peer [0-9]+ path [0-9]+ down .*: silent at')" \
	"$(count 'peer [0-9]+ path [0-9]+ down .*: one-way at')" \
	"$(count 'silent on every path: ')" \
	"$(count 'heard again after .*no path went down')" \
	"$(count 'TX lcore stalled')" "$h0" "$h1" <<'PY'
import glob, json, os, sys
label, tmp, downs, silent, oneway, sil, ridden, stalls, h0, h1 = sys.argv[1:]
(t0, rx0, uc0), (t1, rx1, uc1) = [[float(x) for x in h.split()] for h in (h0, h1)]
v, rt = [], 0
for f in sorted(glob.glob(os.path.join(tmp, "ip-*.json"))):
    try:
        j = json.load(open(f))
        v.append(j["end"]["sum_received"]["bits_per_second"] / 1e6)
        rt += j["end"]["sum_sent"].get("retransmits", 0)
    except (ValueError, KeyError):
        v.append(0.0)
s = sum(v)
jain = s * s / (len(v) * sum(x * x for x in v)) if s > 0 else 0.0
print("%s: %s path downs (%s silent, %s one-way); %s whole-peer silences, %s ridden out; "
      "%s own stalls >= 20 ms; 16 -> 1 %.1f Mbit/s, Jain %.3f, %d retransmits; "
      "hellos received %.0f/s, sent unicast %.0f/s (all hosts, over the load)"
      % (label, downs, silent, oneway, sil, ridden, stalls, s, jain, rt,
         (rx1 - rx0) / (t1 - t0), (uc1 - uc0) / (t1 - t0)))
PY
