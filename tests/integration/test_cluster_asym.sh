#!/usr/bin/env bash
# Asymmetric hosts: an 8-port gateway (a) and a 6-port blade (b) behind 6 switches, so two
# switches carry two of the gateway's ports. Each pair stripes over the paths that exist
# between them (8 here: two pairs end on one blade port each), weighted by capacity: one
# stream each way reaches >= 88 % of the limit of those paths (the blade's 6 links; the goal,
# 95 %, is the benchmarks'). Also
# checks the JSON telemetry of a host with 16 ports and two peers (3 x 16 ports): every page
# is valid, small, and together they list every path once.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
command -v dpdk-telemetry.py >/dev/null || fail "missing tool 'dpdk-telemetry.py'"

single=$(sb_baseline 100)
sb_up --hosts 2 --links 6 --ports a=8 --rate 100
n=$(sb_telemetry a /seqbond/peers 2.paths)
info "gateway a sees $n paths to blade b"
((n == 8)) || fail "expected 8 paths between the 8-port gateway and the 6-port blade, got $n"
limit=$(calc "6 * $single")
for dir in "a b" "b a"; do
	read -r from to <<<"$dir"
	sb_stream "$from" "$to"
	ratio=$(calc "$SB_GOODPUT / $limit" 3)
	# Six links near 570 Mbit/s, two hosts' polling lcores, iperf3 and 16 shaped veths keep
	# this machine's 2 CPUs at their limit: 0.932-0.979 by hand on 2026-12-01 with this code
	# (0.953-0.979 with the code before 99f3b11, within the noise: bench_dp 107 against
	# 106 ns per frame), 0.898 and 0.931 in suite runs, and 0.929 then 0.933 b -> a in a CI
	# run with no freeze logged. A ratio below the goal (0.95) is measured once more, and the
	# test fails when the second is below 0.88 (docs/testing.md, "Throughput limits"): striping
	# that ignored the blade's ports (8 equal paths) would reach 0.67, one switch unused 0.83.
	if ! float_ge "$ratio" 0.95; then
		info "$from -> $to: ratio $ratio below 0.95: measured again"
		sb_stream "$from" "$to"
		ratio=$(calc "$SB_GOODPUT / $limit" 3)
	fi
	info "$from -> $to: $SB_GOODPUT Mbit/s against 6 x $single = $limit: ratio $ratio" \
		"(goal 0.95, need >= 0.88)"
	float_ge "$ratio" 0.88 || fail "$from -> $to: $SB_GOODPUT Mbit/s is below 88 % of $limit"
done
sb_down

# Telemetry at 3 hosts x 16 ports: 32 paths on a, in pages.
sb_up --hosts 3 --links 16 --rate 10
python3 - "$SB_NS" <<'PY' || fail "telemetry pages"
import json, subprocess, sys
ns = sys.argv[1]

def ask(ep):
    out = subprocess.run(["dpdk-telemetry.py", "-f", ns + "-a"], input=ep + "\n",
                         capture_output=True, text=True, timeout=20).stdout
    line = next(l for l in out.splitlines() if l.startswith("{"))
    assert len(line) < 16384, "%s: %d bytes" % (ep, len(line))
    return json.loads(line)[ep.split(",")[0]]

for ep, per in (("/seqbond/paths", 12), ("/seqbond/peers", 24), ("/seqbond/reorder", 24)):
    first = ask(ep)
    pages, items = first["pages"], first["items"]
    seen = set()
    for p in range(pages):
        d = ask("%s,all,%d" % (ep, p))
        keys = [k for k in d if k not in ("page", "pages", "items")]
        assert len(keys) <= per, "%s page %d: %d entries" % (ep, p, len(keys))
        assert d["page"] == p and d["items"] == items
        seen.update(keys)
    print("# %s: %d items in %d pages, all valid JSON" % (ep, items, pages))
    assert len(seen) == items, "%s: %d distinct of %d" % (ep, len(seen), items)
    if ep == "/seqbond/paths":
        assert items == 32, "paths: %d items, want 32" % items
        one = ask("/seqbond/paths,2,1")
        assert one["items"] == 16 and one["pages"] == 2, one
PY
info "PASS"
