#!/usr/bin/env bash
# The README's first run, as written there: the seqbond command of the block after
# "<!-- first-run" (in a network namespace of its own, with its own EAL file prefix, so it
# touches neither the host's interfaces nor another seqbond's runtime files), then the
# commands of the block after "<!-- first-run-console" in that namespace. Checks: seqbond
# starts, sb0 appears, the console answers on /run/seqbond/first-run.sock, each command
# exits 0 and shows the null ports (over a stale socket file left at that path; a second
# instance with the same name is refused and leaves the first one's console alone); the log
# has no error, warning or PCI/virtio line beyond
# the TAP lines docs/console.md explains; SIGINT stops it with exit status 0, every mbuf back
# and the socket removed. Also `seqbond --help` and `-h`: seqbond's usage, no EAL start-up.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
readme=$SB_REPO_ROOT/README.md
build=$(cd "$(dirname "$SEQBOND_BIN")/.." && pwd)
ns=$SB_NS-first
prefix=$SB_NS-first
sock=/run/seqbond/first-run.sock
log=$SB_WORK/first-run.log
seqbond_pid=""

# block MARKER: the lines of the fenced block after the README line starting with MARKER, with
# the build directory the README names (build/) replaced by the one under test.
block() {
	awk -v m="$1" 'index($0, m) == 1 {found = 1; next}
		found && /^```/ {if (inside) exit; inside = 1; next}
		inside {print}' "$readme" | sed "s#\(^\| \)build/#\1$build/#g"
}

cleanup_first() {
	local rc=$?
	[[ -z $seqbond_pid ]] || kill -KILL "$seqbond_pid" 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "/var/run/dpdk/$prefix"
	(exit "$rc")
	sb_cleanup
}
trap cleanup_first EXIT

# --help and -h: seqbond's own usage, without starting EAL.
for h in --help -h; do
	out=$("$SEQBOND_BIN" "$h" 2>&1) || fail "seqbond $h: exit status $?"
	grep -q -- '--console-socket PATH' <<<"$out" || fail "seqbond $h does not list seqbond's options"
	grep -q 'EAL options are DPDK.s and come before --' <<<"$out" || fail "seqbond $h: no word on EAL options"
	! grep -q '^EAL:' <<<"$out" || fail "seqbond $h started EAL"
done
info "seqbond --help and -h: seqbond's usage, EAL not started"

run_line=$(block '<!-- first-run:' | grep -E "^$build/app/seqbond " || true)
[[ -n $run_line ]] || fail "no seqbond command in the README's first-run block"
grep -q -- '--config config/first-run.ini' <<<"$run_line" || fail "first run: $run_line"
info "README: $run_line"
[[ ! -S $sock ]] || ! "$build/tools/console/seqbond-console" first-run help >/dev/null 2>&1 ||
	fail "a seqbond already serves $sock (someone's first run?)"
# shellcheck disable=SC2206 # the README's command, split into words as a shell would
words=($run_line)
for ((i = 0; i < ${#words[@]}; i++)); do
	[[ ${words[i]} == -- ]] && break
done
words=("${words[@]:0:i}" --file-prefix "$prefix" "${words[@]:i}")
# A socket file left by a seqbond that is gone (nothing accepts on it) must not stop this one.
mkdir -p /run/seqbond
rm -f "$sock"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$sock"
ip netns add "$ns"
ip -n "$ns" link set lo up
(cd "$SB_REPO_ROOT" && exec ip netns exec "$ns" "${words[@]}") >"$log" 2>&1 </dev/null &
seqbond_pid=$!
sb_wait_log "$log" "console on $sock" "$seqbond_pid" 200 0.1 "seqbond exited at start" ||
	{ cat "$log"; fail "no console on $sock within 20 s"; }
info "started over a stale socket file: $(grep -E '^seqbond: host' "$log")"

# A second instance with the same name must stop at once, naming the socket, and leave the
# first one's console alone.
ip netns add "$ns"2
rc=0
out=$(cd "$SB_REPO_ROOT" && timeout 30 ip netns exec "$ns"2 "${words[@]/#$prefix/${prefix}2}" 2>&1 </dev/null) || rc=$?
ip netns del "$ns"2 2>/dev/null || true
rm -rf "/var/run/dpdk/${prefix}2"
((rc == 1)) && grep -q "console socket $sock: another seqbond serves its console there" <<<"$out" ||
	{ echo "$out" | tail -n 5; fail "a second instance with the same name: status $rc"; }
"$build/tools/console/seqbond-console" first-run show peers >/dev/null ||
	fail "the first instance's console is gone after the second one's attempt"
info "a second instance with the same name: exit 1, 'another seqbond serves its console there'"

n=0
while read -r line; do
	[[ -n $line ]] || continue
	# shellcheck disable=SC2206
	cmd=($line)
	out=$(cd "$SB_REPO_ROOT" && ip netns exec "$ns" "${cmd[@]}" 2>&1) || fail "'$line': exit status $?: $out"
	case $line in
	*"show port info all") (($(grep -c 'driver net_null' <<<"$out") == 2)) || fail "$line: $out" ;;
	*"show config") grep -q '^device=net_null0,no-rx=1$' <<<"$out" || fail "$line: $out" ;;
	"ip link show sb0") grep -q 'sb0:' <<<"$out" || fail "$line: $out" ;;
	esac
	n=$((n + 1))
	info "README: $line: ok"
done < <(block '<!-- first-run-console')
((n >= 3)) || fail "the README's first-run-console block has $n commands"
# NAME may be left out when one seqbond serves a console in /run/seqbond.
if [[ $(find /run/seqbond -maxdepth 1 -name '*.sock' | wc -l) == 1 ]]; then
	out=$(echo "show port stats 0" | "$build/tools/console/seqbond-console") ||
		fail "seqbond-console without NAME: status $?: $out"
	grep -q '^port 0: RX' <<<"$out" || fail "seqbond-console without NAME: $out"
	info "seqbond-console without NAME found the only instance"
else
	info "other consoles in /run/seqbond: seqbond-console without NAME not tried"
fi

kill -INT "$seqbond_pid"
rc=0
wait "$seqbond_pid" || rc=$?
seqbond_pid=""
((rc == 0)) || { tail -n 20 "$log"; fail "seqbond exited with status $rc after SIGINT"; }
grep -q 'all [0-9]* mbufs back in the pool' "$log" || fail "no mbuf check after SIGINT"
[[ ! -e $sock ]] || fail "$sock left behind"
# A clean run: nothing that looks like trouble, except the TAP PMD's lines on kernels without
# the multiq qdisc (docs/console.md: rte_flow is unavailable on sb0, which seqbond does not use).
# (Up to "stopping": the counter report after it names error counters.)
noise=$(sed '/^seqbond: stopping/q' "$log" | grep -iE 'error|fail|warn|cannot|virtio|pci' |
	grep -vE 'multiq|Disabling rte flow support|qdisc kind is unknown' || true)
[[ -z $noise ]] || fail "the first run logged: $noise"
info "stopped by SIGINT: exit 0, mbufs back, socket removed; $(wc -l <"$log") log lines, none alarming"
info "PASS"
