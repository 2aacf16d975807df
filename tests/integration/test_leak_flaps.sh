#!/usr/bin/env bash
# mbuf accounting under stress: a TCP stream a -> b and a UDP flood b -> a above the links'
# capacity (losses at the shapers), while link 1 loses carrier and link 2 is cut silently
# (every frame dropped, carrier up: only missed hellos and gap timeouts notice) in turn. After a
# clean stop both hosts must have every mbuf back in the pool and balanced counters.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

secs=${SB_FLAP_SECONDS:-12}
sb_up --links 3 --rate 50
sb_ping_ok a b
A=$(sb_addr a)
B=$(sb_addr b)
sb_in b iperf3 -s -p 5301 -1 >/dev/null 2>&1 &
sb_in a iperf3 -s -p 5302 -1 >/dev/null 2>&1 &
sb_wait_listen b 5301
sb_wait_listen a 5302
sb_in a timeout $((secs + 20)) iperf3 -c "$B" -p 5301 -t "$secs" >"$SB_WORK/tcp.txt" 2>&1 &
tcp=$!
sb_in b timeout $((secs + 20)) iperf3 -c "$A" -p 5302 -u -b 200M -t "$secs" \
	>"$SB_WORK/udp.txt" 2>&1 &
udp=$!

# Silent cut: a shaper whose bucket (40 bytes) is smaller than any frame drops everything
# while the carrier stays up (this kernel has no netem, matchall or gact).
cut() {
	sb_in a tc qdisc replace dev sbA2 root tbf rate 1mbit burst 40 limit 1000
	sb_in b tc qdisc replace dev sbB2 root tbf rate 1mbit burst 40 limit 1000
}
uncut() {
	sb_in a tc qdisc replace dev sbA2 root tbf rate 50mbit burst 15140 latency 20ms
	sb_in b tc qdisc replace dev sbB2 root tbf rate 50mbit burst 15140 latency 20ms
}
end=$((SECONDS + secs))
n=0
while ((SECONDS < end)); do
	sleep 1
	if ((n % 2 == 0)); then
		tb link a 1 down
		sleep 0.7
		tb link a 1 up
	else
		cut
		sleep 0.7
		uncut
	fi
	n=$((n + 1))
done
wait "$tcp" || { cat "$SB_WORK/tcp.txt"; fail "TCP stream failed during the flaps"; }
wait "$udp" || true
info "TCP: $(grep -E 'receiver' "$SB_WORK/tcp.txt" | tail -n 1)"
info "UDP: $(grep -E 'receiver' "$SB_WORK/udp.txt" | tail -n 1)"
downs=$(sb_count_log a 'path [0-9]+ down')
info "host a: $downs 'path down' lines over $n flaps"
((downs >= 2)) || fail "the flaps took no path down"
sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" ||
	fail "mbufs or counters after losses, timeouts and failovers"
info "PASS"
