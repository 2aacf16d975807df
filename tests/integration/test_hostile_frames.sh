#!/usr/bin/env bash
# Malformed and foreign frames injected into host a's port 0 from the other end of its veth
# (a raw socket in host b's namespace): truncated shims, unknown versions and types, bad flags,
# wrong lengths, oversize frames, absurd hellos, hellos claiming a's own host id, data from
# unknown senders, unicast hellos for another port and raw traffic; with the testbed's cluster
# key also hellos and DATA frames without a tag, with a forged tag or another secret's, with
# a key id a does not hold, and a signed hello played back (without a key: tagged frames).
# Each must be dropped and counted under its reason in the counters a prints at exit,
# seqbond must keep forwarding, and every mbuf must come back.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

count=20
sb_up --links 2 --rate 100
sb_ping_ok a b
dst=$(sb_in a cat /sys/class/net/sbA0/address)
src=$(sb_in b cat /sys/class/net/sbB0/address)
# Oversize: both kernel ends of link 0 accept 1700 bytes; seqbond's port MTU stays 1500.
sb_in a ip link set sbA0 mtu 1700
sb_in b ip link set sbB0 mtu 1700
keyarg=()
if sb_keyed; then
	keyarg=(--key "$(sb_key_file)")
	info "cluster key on: tag refusals injected too"
fi
sb_in b python3 "$SB_LIB_DIR/inject_frames.py" sbB0 "$dst" "$src" 1 "$count" --oversize \
	"${keyarg[@]}" >"$SB_WORK/expect.txt" || fail "injection failed"
sb_in a ip link set sbA0 mtu 1500
sb_in b ip link set sbB0 mtu 1500
sleep 0.5
sb_ping_ok a b
sb_ping_ok b a
grep -q . "$SB_WORK/expect.txt" || fail "injector printed no expectations"
# Stop seqbond (it prints its counters), keep the logs, then compare.
sb_down
log=$SEQBOND_TESTBED_DIR/a.log
grep -q 'seqbond counters' "$log" || fail "no counters in $log"
bad=0
while read -r _ counter n; do
	got=$(awk -v k="$counter" '$1 == k {v = $2} END {print v + 0}' "$log")
	if [[ $counter == rx_foreign ]] && ((got >= n)); then
		info "$counter: $got (>= $n injected)"
	elif ((got == n)); then
		info "$counter: $got (= $n injected)"
	else
		echo "FAIL: $counter: $got, injected $n"
		bad=1
	fi
done <"$SB_WORK/expect.txt"
python3 "$SB_LIB_DIR/sb_counters.py" "$log" "$SEQBOND_TESTBED_DIR/b.log" || bad=1
((bad == 0)) || fail "malformed frames not counted as expected"
info "PASS"
