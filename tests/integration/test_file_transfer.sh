#!/usr/bin/env bash
# A 256 MiB random file sent over sb0 with socat arrives intact (same size and sha256).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
command -v socat >/dev/null || fail "missing tool 'socat' (run tools/install-deps)"

size_mib=256
port=5300
src=$SB_WORK/src.bin
dst=$SB_WORK/dst.bin
head -c $((size_mib << 20)) /dev/urandom >"$src"
want=$(sha256sum "$src" | cut -d' ' -f1)

sb_up --links 4 --rate 100
sb_ping_ok a b

sb_in b socat -u "TCP-LISTEN:$port,reuseaddr,bind=$(sb_addr b)" "OPEN:$dst,creat,trunc" &
rx_pid=$!
sb_wait_listen b "$port"
start=$(date +%s.%N)
timeout 300 ip netns exec "$SB_NS-a" socat -u "OPEN:$src" "TCP:$(sb_addr b):$port" ||
	fail "sender socat failed or timed out"
# The receiver ends when it has read the sender's EOF.
for ((i = 0; i < 100; i++)); do
	kill -0 "$rx_pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$rx_pid" 2>/dev/null; then
	# It may end between the check and the kill: not a failure of its own.
	kill "$rx_pid" 2>/dev/null || true
	fail "receiver did not finish 10 s after the sender"
fi
wait "$rx_pid" || fail "receiver socat failed"
secs=$(calc "$(date +%s.%N) - $start")
got=$(sha256sum "$dst" | cut -d' ' -f1)
info "sent $size_mib MiB in $secs s ($(calc "$size_mib * 8 * 1.048576 / $secs") Mbit/s)"
info "sha256 sent     $want"
info "sha256 received $got ($(stat -c %s "$dst") bytes)"
[[ $got == "$want" ]] || fail "file arrived different"
info "PASS"
