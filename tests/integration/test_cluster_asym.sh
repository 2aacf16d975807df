#!/usr/bin/env bash
# Asymmetric hosts: an 8-port gateway (a) and a 6-port blade (b) behind 6 switches, so two
# switches carry two of the gateway's ports. Each pair stripes over the paths that exist
# between them (8 here: two pairs end on one blade port each), weighted by capacity: in one
# stream each way every blade port carries its sixth of the frames (0.08-0.24; judged when the
# links, not the CPU, set the stream's pace: 0.80 of them at least), and the rate
# is printed against the goal (95 % of the blade's 6 links) and must not collapse (>= 50 %).
# Also checks the JSON telemetry of a host with 16 ports and two peers (3 x 16 ports): every page
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
# blade_port_tx HOST PEER COL: HOST's tx frames to PEER (its number: a 1, b 2), summed per
# blade port: the peer's port (COL 3) on the gateway, its own (COL 2) on the blade; "port
# frames" lines.
blade_port_tx() {
	tb console "$1" show paths "$2" | awk -v c="$3" '$1 ~ /^[0-9]+$/ && NF >= 12 {s[$c] += $7}
		END {for (p in s) print p, s[p]}' | sort -n
}
# stream_shares FROM TO PEER COL: one sb_stream FROM -> TO, then SB_SHARES: each blade port's
# share of the frames FROM sent to PEER during it ("port:share ...", blade_port_tx's columns).
stream_shares() {
	local tx0
	tx0=$(blade_port_tx "$1" "$3" "$4")
	sb_stream "$1" "$2"
	SB_SHARES=$(python3 -c 'import sys
a = dict(l.split() for l in sys.argv[1].splitlines())
b = dict(l.split() for l in sys.argv[2].splitlines())
d = {p: int(b[p]) - int(a.get(p, 0)) for p in b}
t = sum(d.values()) or 1
print(" ".join("%s:%.3f" % (p, d[p] / t) for p in sorted(d, key=int)))' "$tx0" \
		"$(blade_port_tx "$1" "$3" "$4")")
}
for dir in "a b" "b a"; do
	read -r from to <<<"$dir"
	peer=2 col=3
	[[ $from == a ]] || peer=1 col=2
	t_try=$(date +%s.%N)
	stream_shares "$from" "$to" $peer $col
	ratio=$(calc "$SB_GOODPUT / $limit" 3) best=$SB_GOODPUT shares=$SB_SHARES
	# Six links near 570 Mbit/s, two hosts' polling lcores, iperf3 and 16 shaped veths keep
	# this machine's 2 CPUs at their limit: 0.932-0.979 by hand on 2026-12-01 with this code
	# (0.953-0.979 with the code before 99f3b11, within the noise: bench_dp 107 against
	# 106 ns per frame), 0.898 and 0.931 in suite runs, and 0.929 then 0.933 b -> a in a CI
	# run with no freeze logged. A ratio below the goal (0.95) is measured once more, and the
	# better one counts (docs/testing.md, "Throughput limits").
	# A machine freeze of ~100 ms outlasted the 40 ms detection before peer_silence_hold_ms:
	# every path went down and the stream lost far more than the freeze (0.875, then 0.747 on the second run, in a fresh
	# user's run on 2026-12-01 with 2 freezes logged in each). So a stream with a freeze
	# logged during it earns a third one, and the best of the streams counts.
	n_frz=0
	for try in 2 3; do
		float_ge "$ratio" 0.95 && break
		n=$(sb_freezes "$t_try")
		n_frz=$((n_frz + n))
		((try == 2 || n_frz > 0)) || break
		info "$from -> $to: ratio $ratio below the goal 0.95, $n machine freezes during" \
			"the stream: measured again"
		t_try=$(date +%s.%N)
		stream_shares "$from" "$to" $peer $col
		r=$(calc "$SB_GOODPUT / $limit" 3)
		info "$from -> $to: share of the frames per blade port in that stream: $SB_SHARES"
		float_ge "$ratio" "$r" || { ratio=$r best=$SB_GOODPUT shares=$SB_SHARES; }
	done
	SB_GOODPUT=$best
	info "$from -> $to: $SB_GOODPUT Mbit/s against 6 x $single = $limit: ratio $ratio" \
		"(goal 0.95, need >= 0.50)"
	# What the striping is for, apart from the CPU's speed: each of the blade's 6 ports
	# carries its sixth of the frames (0.08-0.24); 8 equal paths would put a quarter on the
	# two blade ports that two gateway ports reach, and an unused switch none on one. Judged
	# on the stream that counts, and only when the links set its pace (0.80 of them at
	# least, as test_cluster_bladecentre judges a link-bound stream): a stream the CPU holds
	# below that needs no link's full share, and the scheduler then favours the paths whose
	# frames arrive first (a CI run on 2026-12-07: 0.039-0.276 over three streams at
	# 0.37-0.76 of the links, 0.166-0.168 at 1.007 in the same run; by hand 0.014 once in a
	# stream below 0.93, 0.142-0.172 in the next at 0.932). An unused blade port
	# (below 0.02) fails in any case.
	info "$from -> $to: share of the frames per blade port in the stream that counts: $shares"
	n=$(wc -w <<<"$shares")
	((n == 6)) || fail "$from -> $to: frames on $n blade ports, want 6: $shares"
	lo=0.08 hi=0.24
	if ! float_ge "$ratio" 0.80; then
		info "$from -> $to: shares NOT JUDGED against 0.08-0.24 (ratio $ratio below 0.80:" \
			"the CPU set the pace); each must be at least 0.02"
		lo=0.02 hi=1
	fi
	for sh in $shares; do
		float_ge "${sh#*:}" $lo && float_ge $hi "${sh#*:}" ||
			fail "$from -> $to: blade port ${sh%%:*} carried ${sh#*:} of the frames (want $lo-$hi)"
	done
	# The rate itself only guards against a collapse (half the limit, three links' worth): on
	# this machine the same code measured 0.625-0.975 within an hour with no freeze logged,
	# while the shares stayed within 0.150-0.194, and 0.108-0.214 in the slowest spell
	# (2026-12-02).
	float_ge "$ratio" 0.50 || fail "$from -> $to: $SB_GOODPUT Mbit/s is below 50 % of $limit"
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
