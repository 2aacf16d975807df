#!/usr/bin/env bash
# Cut one of 4 links while pinging every 50 ms: the pings go on over the remaining links (some
# loss allowed for now), both ends report the path down, and it comes back when the link does.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

links=4
cut=1
count=160      # 8 s at 50 ms
cut_after=2    # seconds
max_loss_pct=20

sb_up --links "$links" --rate 100
sb_ping_ok a b
declare -A down0
down0[a]=$(sb_count_log a 'path [0-9]+ down')
down0[b]=$(sb_count_log b 'path [0-9]+ down')
up_a0=$(sb_count_log a 'path [0-9]+ up([^a-z]|$)')
up_b0=$(sb_count_log b 'path [0-9]+ up([^a-z]|$)')

log=$SB_WORK/ping.txt
sb_in a ping -i 0.05 -c "$count" -W 1 "$(sb_addr b)" >"$log" 2>&1 &
ping_pid=$!
sleep "$cut_after"
info "link a $cut down"
tb link a "$cut" down
wait "$ping_pid" || true

tx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$log")
rx=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$log")
[[ -n $tx && -n $rx ]] || { cat "$log"; fail "cannot read ping's summary"; }
last=$(sed -n 's/.*icmp_seq=\([0-9]*\) .*time=.*/\1/p' "$log" | tail -n 1)
info "ping during the cut: $rx of $tx answered; last answered icmp_seq ${last:-none}"
# Replies must go on after the cut: the last quarter of the run must be answered.
if [[ -z $last ]] || ((last <= count * 3 / 4)); then
	cat "$log"
	fail "pings stopped being answered after link $cut went down"
fi
((rx * 100 >= tx * (100 - max_loss_pct))) ||
	{ cat "$log"; fail "lost more than $max_loss_pct% of pings"; }

for h in a b; do
	n=$(sb_count_log "$h" 'path [0-9]+ down')
	info "host $h: $((n - down0[$h])) 'path N down' lines since the cut"
	((n > down0[$h])) || fail "host $h did not report a path down"
done

info "link a $cut up"
tb link a "$cut" up
for ((i = 0; i < 100; i++)); do
	na=$(sb_count_log a 'path [0-9]+ up([^a-z]|$)')
	nb=$(sb_count_log b 'path [0-9]+ up([^a-z]|$)')
	((na > up_a0 && nb > up_b0)) && break
	sleep 0.1
done
((na > up_a0 && nb > up_b0)) || fail "the path did not come back up within 10 s of the link"
info "path back up on both hosts"
sb_ping_ok a b
info "PASS"
