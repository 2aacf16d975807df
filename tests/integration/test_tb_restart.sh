#!/usr/bin/env bash
# `seqbond-testbed restart` and `pause`, checked by what they do, not by seqbond's reactions:
# restart kills b's seqbond with -9 and starts a new one (new pid, same config) whose own log
# shows every path up again, with sb0 re-addressed (IPv4 and IPv6) so that pings pass; pause
# stops b's seqbond (process state T, nothing crosses sb0) for the time asked, then it runs
# again and pings pass.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

sb_up --hosts 3 --links 2 --rate 100
sb_ping_ok a b
old=$(cat "$SEQBOND_TESTBED_DIR/b.pid")
before=$(wc -c <"$SEQBOND_TESTBED_DIR/b.log")
tb restart b 2>"$SB_WORK/restart" || { cat "$SB_WORK/restart"; fail "restart b failed"; }
info "$(cat "$SB_WORK/restart")"
new=$(cat "$SEQBOND_TESTBED_DIR/b.pid")
[[ $new != "$old" ]] || fail "restart kept pid $old"
# Gone, or a zombie that whoever adopted it has not reaped yet (meson's test runner, say).
[[ ! -d /proc/$old || $(awk '{print $3}' "/proc/$old/stat" 2>/dev/null) == Z ]] ||
	fail "the old seqbond $old still runs"
[[ -d /proc/$new ]] || fail "the new seqbond $new does not run"
n=$(tail -c +$((before + 1)) "$SEQBOND_TESTBED_DIR/b.log" | grep -cE 'path [0-9]+ up([^a-z]|$)' || true)
info "the new instance logged $n paths up"
((n >= 4)) || fail "the restarted seqbond brought up $n of 4 paths"
grep -q 'killed (-9)' "$SEQBOND_TESTBED_DIR/b.log" || fail "no restart mark in b's log"
sb_ping_ok a b
sb_ping_ok c b
out=$(sb_in a ping -6 -c 3 -i 0.2 -W 2 "$(sb_addr6 b)" 2>&1) || { echo "$out"; fail "ping6 a -> b after restart"; }
info "ping6 a -> b after restart: $(grep -E 'packets transmitted' <<<"$out")"

# pause: 2 s stopped. Pings sent while it is stopped find nothing to answer them.
t0=$SECONDS
tb pause b 2 &
pause_pid=$!
sleep 0.5
state=$(awk '{print $3}' "/proc/$new/stat")
info "during pause: seqbond $new state $state"
[[ $state == T ]] || fail "paused seqbond is in state $state, not T (stopped)"
loss=$({ sb_in a ping -q -c 5 -i 0.1 -W 0.5 "$(sb_addr b)" 2>&1 || true; } |
	sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
info "pings a -> b during the pause: ${loss}% lost"
[[ $loss == 100 ]] || fail "pings crossed a paused seqbond (${loss}% lost)"
wait "$pause_pid" || fail "pause failed"
dt=$((SECONDS - t0))
info "pause returned after ~${dt}s"
((dt >= 2 && dt <= 4)) || fail "pause 2 took ${dt}s"
state=$(awk '{print $3}' "/proc/$new/stat")
[[ $state != T ]] || fail "seqbond still stopped after pause"
# Paths may have timed out while it was stopped; give them time to come back.
for ((i = 0; i < 30; i++)); do
	sb_in a ping -q -c 1 -W 1 "$(sb_addr b)" >/dev/null 2>&1 && break
	sleep 0.2
done
sb_ping_ok a b
info "PASS"
