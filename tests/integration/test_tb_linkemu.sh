#!/usr/bin/env bash
# The testbed's link emulator (`shape`, tools/linkemu): a link through a delay line carries its
# rate (one TCP stream >= 95 % of the same link without it); on 4 x 100 Mbit/s, 5 ms each way
# on every link adds 10 ms to the RTT over sb0 (within 0.4 ms: 0.2 per direction) and every
# delay line holds frames 5 ms (mean within 0.2 ms) while a TCP stream runs through all four,
# dropping nothing; --loss 10 drops 9..11 % (the delay line's own count, and of 20000 frames
# injected on the wire); shaping on and off never changes a port's carrier, and --reset leaves
# no redirect behind.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

# carriers: carrier_changes of every port of both hosts, one line.
carriers() {
	local x i
	for x in a b; do
		for i in 0 1 2 3; do
			sb_in "$x" cat "/sys/class/net/sb${x^^}$i/carrier_changes"
		done
	done | xargs
}

# rtt_median FROM TO COUNT: median ping RTT (ms) over sb0.
rtt_median() {
	sb_in "$1" ping -c "$3" -i 0.01 -W 1 "$(sb_addr "$2")" 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else print v[int((NR + 1) / 2)] }'
}

# emu_field HOST IDX DIR KEY: a number from the delay line's statistics line (KEY as printed,
# e.g. "rx", "lost", "queue_drop", "held_us mean", "|p50|<=").
emu_field() {
	tb shape "$1" "$2" --dir "$3" | grep 'linkemu' |
		sed -n "s/.*[ ;]$(sed 's/[|]/[|]/g' <<<"$4") \([0-9.+-]*\).*/\1/p" | head -n 1
}

g0=$(sb_baseline 100)
g5=$(tb baseline --rate 100 --time 10 --delay 5) || fail "baseline through the delay line failed"
ratio=$(calc "$g5 / $g0" 3)
info "one 100 Mbit/s link: $g0 Mbit/s; through delay lines of 5 ms each way: $g5 Mbit/s ($ratio)"
float_ge "$ratio" 0.95 || fail "a delayed link carried $g5 Mbit/s, below 95 % of $g0"

# Fixed path rates: this test measures the delay lines under load, and the delay is added
# after seqbond has learnt the paths without it. Adaptive striping takes such a step in only
# after its queue floor moves (1-2 s, then climbing back: docs/design.md, "Adaptive
# striping"; tests/unit/test_path_est.c, test_delay_step), which would leave a link too idle
# here to load its delay line.
sb_up --links 4 --rate 100 --config-extra 'adaptive_rate = off'
cc0=$(carriers)
r0=$(rtt_median a b 100)
info "RTT a -> b over sb0 without delay: median $r0 ms"
for i in 0 1 2 3; do tb shape a "$i" --delay 5; done
[[ $(carriers) == "$cc0" ]] || fail "shaping changed a port's carrier ($cc0 -> $(carriers))"
r1=$(rtt_median a b 200)
inc=$(calc "$r1 - $r0" 3)
info "RTT with 5 ms each way on every link: median $r1 ms (+$inc ms, set +10)"
float_ge "$inc" 9.6 && float_ge 10.4 "$inc" || fail "RTT grew by $inc ms, not 10 +- 0.4"

# The delay lines under one TCP stream. A machine freeze (docs/testing.md, "Machine freezes":
# this VM now and then runs nothing on a CPU for about 100 ms) holds every frame queued then
# that much longer and moves the mean by hundreds of microseconds (5395.6 us once, with one
# 99 ms freeze and |p50| <= 40 us): a stream that saw one is measured once more.
for try in 1 2; do
	for i in 0 1 2 3; do tb shape a "$i" --clear-stats; done
	t0=$(date +%s.%N)
	tb iperf --from a --to b --time 8 >"$SB_WORK/goodput" || fail "iperf3 through the delay lines failed"
	nfz=$(sb_freezes "$t0")
	info "one TCP stream a -> b over 4 delayed links: $(cat "$SB_WORK/goodput") Mbit/s;" \
		"machine freezes meanwhile: $nfz"
	bad=
	for i in 0 1 2 3; do
		line=$(tb shape a "$i" --dir out | grep linkemu)
		info "link $i a->b: ${line#*linkemu }"
		rx=$(emu_field a "$i" out rx)
		held=$(emu_field a "$i" out "held_us mean")
		qd=$(emu_field a "$i" out queue_drop)
		lost=$(emu_field a "$i" out lost)
		p50=$(emu_field a "$i" out "|p50|<=")
		((rx >= 24000)) || fail "link $i carried $rx frames in 8 s (< 3 kpps): not under load"
		((qd == 0 && lost == 0)) || fail "link $i's delay line dropped frames (queue $qd, lost $lost)"
		((p50 <= 200)) || fail "link $i departure error median $p50 us > 200"
		float_ge "$held" 4800 && float_ge 5200 "$held" ||
			bad+="link $i held frames $held us, not 5000 +- 200; "
	done
	[[ -z $bad ]] && break
	((try == 1 && nfz > 0)) || fail "${bad%; } (machine freezes during the stream: $nfz)"
	info "${bad%; }, with $nfz machine freeze(s) during the stream: measured once more"
done

info "10 % loss on a's port 0 out, 20000 frames injected a0 -> b0"
tb shape a 0 --dir out --loss 10 --clear-stats
B0=$(sb_in b cat /sys/class/net/sbB0/address)
A0=$(sb_in a cat /sys/class/net/sbA0/address)
sb_in b timeout -s INT 4 tcpdump -i sbB0 -nn -p -B 16384 -Q in "ether src $A0 and ether proto 0x88b6" \
	-w /dev/null >"$SB_WORK/cap" 2>&1 &
cap=$!
sleep 1
sent=$(sb_inject a sbA0 "$B0" 20000)
wait "$cap" || true
got=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$SB_WORK/cap")
kdrop=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$SB_WORK/cap")
rx=$(emu_field a 0 out rx)
lost=$(emu_field a 0 out lost)
pct=$(calc "100.0 * $lost / $rx")
wire=$(calc "100.0 * ($sent - $got) / $sent")
info "delay line: $lost of $rx frames lost = $pct %; on the wire: $got of $sent injected frames" \
	"reached b ($wire % lost; capture dropped ${kdrop:-?})"
((sent >= 19000)) || fail "only $sent of 20000 frames could be injected"
[[ ${kdrop:-0} == 0 ]] || fail "the capture at b dropped $kdrop frames: cannot judge"
float_ge "$pct" 9 && float_ge 11 "$pct" || fail "the delay line lost $pct %, outside 9..11 %"
float_ge "$wire" 9 && float_ge 11 "$wire" || fail "$wire % of the injected frames were lost, outside 9..11 %"

for i in 0 1 2 3; do tb shape a "$i" --reset; done
[[ $(carriers) == "$cc0" ]] || fail "removing the shaping changed a port's carrier"
for x in a b; do
	for i in 0 1 2 3; do
		f=$(sb_in "$x" tc filter show dev "sb${x^^}$i" egress)
		[[ -z $f ]] || fail "a redirect is left on sb${x^^}$i after --reset: $f"
	done
done
r2=$(rtt_median a b 100)
info "RTT after --reset: median $r2 ms"
float_ge "$(calc "$r0 + 0.5")" "$r2" || fail "RTT after --reset $r2 ms, was $r0"
info "PASS"
