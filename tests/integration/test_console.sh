#!/usr/bin/env bash
# The operator console, driven non-interactively (--cmdline-file on a FIFO) and through a pty
# (tmux), on the testbed with traffic: every command runs; counters move with traffic and agree
# with the kernel's (sb0) and ethdev's; a port stopped from the console carries nothing while
# traffic goes on over the others; bad commands and values are refused with the state
# unchanged; telemetry returns valid JSON that agrees with the console; the cluster key is
# rolled over on both hosts with `key reload` and no ping lost; dpdk-dumpcap captures a port
# and tshark with tools/wireshark/seqbond.lua decodes it.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
for t in tmux dpdk-telemetry.py dpdk-dumpcap tshark; do
	command -v "$t" >/dev/null || fail "missing tool '$t' (run tools/install-deps)"
done

fifo=$SB_WORK/console.fifo
mkfifo "$fifo"
export SEQBOND_APP_EXTRA_a="--cmdline-file $fifo"
# Keep the FIFO open for writing (fd 7) so the console sees no end of input between commands.
# Opening it blocks until seqbond opens it for reading, which it does once its datapath runs.
sb_up --links 4 --rate 100 --huge &
exec 7>"$fifo"
wait $! || fail "testbed did not come up"
SB_TB_USED=1
log=$SEQBOND_TESTBED_DIR/a.log

# console CMD...: run commands on host a's console, wait for them, print their output.
console() {
	local start n=0 c
	start=$(wc -l <"$log")
	for c in "$@"; do printf '%s\n' "$c" >&7; done
	# `help` last: its final line marks the end of the batch.
	printf 'help\n' >&7
	until tail -n +"$((start + 1))" "$log" | grep -q '^  help: list the commands'; do
		((++n < 100)) || fail "console did not answer: $*"
		sleep 0.1
	done
	tail -n +"$((start + 1))" "$log" | sed '/^Commands (TAB completes/,$d'
}

# telemetry ENDPOINT: JSON from host a's telemetry socket (validated by python).
telemetry() {
	echo "$1" | dpdk-telemetry.py -f "$SB_NS-a" 2>/dev/null |
		python3 -c 'import json, sys
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        print(json.dumps(json.loads(line)))
        break
else:
    sys.exit("no JSON from telemetry")'
}
# path_tx PATH: tx frames of host a's path to peer 2, from telemetry.
# path_tx PORT: frames sent on the path to peer 2 over our port PORT (paths are numbered in
# the order they came up, which need not be the ports').
path_tx() {
	telemetry /seqbond/paths | python3 -c 'import json, sys
paths = json.load(sys.stdin)["/seqbond/paths"]
print(next(p["tx_frames"] for k, p in paths.items() if k.startswith("peer2_path") and
           p["port"] == int(sys.argv[1])))' "$1"
}

out=$(console "show peers" "show paths" "show port info all" "show port stats all" \
	"show port xstats 0" "show reorder" "show config")
echo "$out"
grep -qE '^2 +02:53:42:00:00:02 .* 4/4 ' <<<"$out" || fail "show peers: peer 2 with 4/4 paths up"
[[ $(grep -cE '^  [0-3] +[0-3] +[0-3] +up ' <<<"$out") == 4 ]] || fail "show paths: 4 paths up"
grep -q 'driver net_af_packet' <<<"$out" || fail "show port info: driver"
grep -q 'rx_good_packets' <<<"$out" || fail "show port xstats: counters"
grep -q '^scheduler=edpf' <<<"$out" || fail "show config: scheduler"
grep -qE "^exception sb0 \\($SB_EXCEPTION\\):" <<<"$out" || fail "show port stats all: exception sb0 ($SB_EXCEPTION)"
grep -qE '^  exc_rx +[0-9]+ .*exc_tx +[0-9]+' <<<"$out" || fail "show port stats all: exc_rx, exc_tx"
grep -qE ' exc_rx_gso +[0-9]+' <<<"$out" || fail "show port stats all: the exception path's counters"
grep -qE '^  tx_data +[0-9]+ ' <<<"$out" && grep -qE ' tx_too_big +[0-9]+' <<<"$out" ||
	fail "show port stats all: the datapath's counters"

# Traffic moves the counters; kernel and seqbond agree on what crossed sb0.
sb_in b iperf3 -s -1 -D >/dev/null
sb_wait_listen b 5201
sb_in a iperf3 -c "$(sb_addr b)" -t 3 >/dev/null || fail "iperf3 over sb0"
sleep 0.5
before=()
for p in 0 1 2 3; do before[p]=$(path_tx "$p"); done
info "tx frames of the paths over ports 0..3 after a 3 s stream: ${before[*]}"
for p in 0 1 2 3; do ((before[p] > 1000)) || fail "the path over port $p carried ${before[p]} frames"; done
# The kernel may send a frame of its own on sb0 (IPv6 ND, a late ACK) between the two reads:
# read the kernel's counter before and after seqbond's and take a snapshot where nothing moved
# (CI once read 95321 against 95322 with a single pair of reads).
kern_exc() {
	local k1 e k2
	k1=$(sb_in a cat /sys/class/net/sb0/statistics/tx_packets)
	e=$(telemetry /seqbond/info | python3 -c 'import json, sys
print(json.load(sys.stdin)["/seqbond/info"]["exc_rx"])')
	k2=$(sb_in a cat /sys/class/net/sb0/statistics/tx_packets)
	echo "$k1 $e $k2"
}
for try in 1 2 3 4 5 6 7 8 9 10; do
	read -r kern_tx exc_rx kern_tx2 <<<"$(kern_exc)"
	((kern_tx == kern_tx2 && kern_tx == exc_rx)) && break
	info "snapshot $try: kernel sb0 tx_packets $kern_tx..$kern_tx2, seqbond exc_rx $exc_rx; again"
	sleep 0.3
done
info "kernel sb0 tx_packets $kern_tx, seqbond exc_rx $exc_rx"
# The datapath and the exception path count the frames read from the kernel in one snapshot
# (both on the lcore that reads them): equal; the type is the one the testbed asked for.
python3 -c 'import json, sys
i = json.loads(sys.argv[1])["/seqbond/info"]
ok = i["exc_rx"] == i["exc_rx_frames"] and i["exception_type"] == sys.argv[2]
sys.exit(0 if ok else "telemetry: exc_rx %d, exc_rx_frames %d, exception_type %s" % (
    i["exc_rx"], i["exc_rx_frames"], i["exception_type"]))' "$(telemetry /seqbond/info)" \
	"$SB_EXCEPTION" || fail "telemetry /seqbond/info: exception path counters"
# One kernel packet per frame only with the TAP PMD; tap-vnet cuts large segments.
[[ $SB_EXCEPTION != tap ]] || ((kern_tx == exc_rx)) ||
	fail "kernel sent $kern_tx frames on sb0, seqbond read $exc_rx"
out=$(console "show port stats 0")
eth_tx=$(sed -nE 's/^ +TX ([0-9]+) frames.*/\1/p' <<<"$out" | head -n 1)
ns_rx=$(sb_in b cat /sys/class/net/sbB0/statistics/rx_packets)
info "port 0: ethdev TX $eth_tx frames, peer's kernel saw $ns_rx on the other end"
((eth_tx > before[0] && eth_tx <= ns_rx)) || fail "ethdev TX of port 0 ($eth_tx) vs path ($((before[0]))) and wire ($ns_rx)"

# Telemetry agrees with the console.
tel_peer=$(telemetry /seqbond/peers)
grep -q '"paths_up": 4' <<<"$tel_peer" || fail "telemetry /seqbond/peers: $tel_peer"
tel_ro=$(telemetry /seqbond/reorder)
out=$(console "show reorder 2")
in_order=$(sed -nE 's/^  in_order +([0-9]+)$/\1/p' <<<"$out")
tel_in_order=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["/seqbond/reorder"]["2"]["in_order"])' "$tel_ro")
info "reorder in_order: console $in_order, telemetry $tel_in_order"
((in_order == tel_in_order)) || fail "console and telemetry disagree on in_order"

# A stopped port carries nothing; traffic continues on the others.
out=$(console "port stop 1" "show paths")
echo "$out"
grep -qE '^  [0-9]+ +1 +1 +down +port ' <<<"$out" || fail "the path over port 1 not down after port stop 1"
stopped=$(path_tx 1)
sb_in b iperf3 -s -1 -D >/dev/null
sb_wait_listen b 5201
g=$(sb_in a iperf3 -c "$(sb_addr b)" -t 3 -J | python3 -c 'import json, sys
print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6, 1))')
after1=$(path_tx 1)
after0=$(path_tx 0)
info "with port 1 stopped: $g Mbit/s; port 1's path tx $stopped -> $after1, port 0's path tx ${before[0]} -> $after0"
((after1 == stopped)) || fail "stopped port 1 carried $((after1 - stopped)) frames"
((after0 > before[0] + 1000)) || fail "traffic did not continue on port 0"
float_ge "$g" 200 || fail "only $g Mbit/s over the 3 remaining links"
out=$(console "port stop 1")
grep -q 'error: port 1 is already stopped' <<<"$out" || fail "second port stop: $out"
console "port start 1" >/dev/null
for ((i = 0; i < 50; i++)); do
	telemetry /seqbond/peers | grep -q '"paths_up": 4' && break
	sleep 0.1
done
((i < 50)) || fail "the path over port 1 did not come back after port start 1"
# ... and carries traffic again.
restarted=$(path_tx 1)
sb_in b iperf3 -s -1 -D >/dev/null
sb_wait_listen b 5201
sb_in a iperf3 -c "$(sb_addr b)" -t 2 >/dev/null || fail "iperf3 after port start 1"
after1=$(path_tx 1)
info "after port start 1: port 1's path tx $restarted -> $after1"
((after1 > restarted + 1000)) || fail "port 1 carries nothing after port start 1"

# Bad commands and values: one-line errors, state unchanged.
out=$(console "set reorder timeout 0" "set reorder timeout abc" "set scheduler bogus" \
	"set port 9 weight 5" "set port 0 weight -3" "show reorder 77" "frobnicate" \
	"set hello interval 999999" "show config")
echo "$out"
for e in "reorder_timeout_us = '0': expected an integer" "reorder_timeout_us = 'abc'" \
	"scheduler = 'bogus': unknown scheduler" "no port 9" "rate_mbit = '-3'" \
	"no peer with host id '77'" "Command not found" "hello_interval_ms = '999999'"; do
	grep -qF "$e" <<<"$out" || fail "no error containing \"$e\""
done
grep -q '^reorder_timeout_us=10000$' <<<"$out" || fail "reorder timeout changed by a bad command"
grep -q '^scheduler=edpf$' <<<"$out" || fail "scheduler changed by a bad command"

# Good settings take effect and show in config and telemetry.
out=$(console "set scheduler rr" "set reorder timeout 4000" "set hello interval 20" \
	"set port 2 weight 50" "save config $SB_WORK/saved.ini" "show config")
grep -q '^scheduler=rr$' <<<"$out" || fail "set scheduler rr"
grep -q '^reorder_timeout_us=4000$' <<<"$out" || fail "set reorder timeout"
grep -q '^hello_interval_ms=20$' <<<"$out" || fail "set hello interval"
grep -q '^rate_mbit=50.000$' <<<"$out" || fail "set port 2 weight"
grep -q '^scheduler=rr$' "$SB_WORK/saved.ini" || fail "save config"
telemetry /seqbond/info | grep -q '"scheduler": "rr"' || fail "telemetry does not show rr"
# /seqbond/config: every key of the table, run-time changes included, as `show config`.
python3 -c 'import json, sys
c = json.loads(sys.argv[1])["/seqbond/config"]
want = {"seqbond/scheduler": "rr", "seqbond/reorder_timeout_us": "4000",
        "seqbond/hello_interval_ms": "20", "port2/rate_mbit": "50.000", "exception/name": "sb0"}
bad = {k: c.get(k) for k, v in want.items() if c.get(k) != v}
sys.exit("/seqbond/config: %s" % bad if bad else 0)' "$(telemetry /seqbond/config)" ||
	fail "telemetry /seqbond/config"
console "clear port stats all" >/dev/null

# The cluster key (the testbed's): shown by fingerprint only; a whole rollover (docs/config.md)
# with `key reload` on both hosts while a pings b every 10 ms: nothing lost, no frame refused
# for its tag on either host, and no key in any log; a key file gone public is refused.
if sb_keyed; then
	kf=$(sb_key_file)
	reload_b() { tb console b key reload >"$SB_WORK/reload-b.txt" 2>&1 || { cat "$SB_WORK/reload-b.txt"; fail "key reload on b: $1"; }; }
	reload_a() {
		local o
		o=$(console "key reload")
		! grep -q '^error:' <<<"$o" || fail "key reload on a: $1: $o"
		echo "$o"
	}
	out=$(console "show key")
	echo "$out"
	grep -qE '^  key id [0-9]+ +fingerprint [0-9a-f]{16}  sends and accepts$' <<<"$out" ||
		fail "show key: one key that sends"
	fp_old=$(sed -nE 's/^  key id [0-9]+ +fingerprint ([0-9a-f]{16}) .*/\1/p' <<<"$out")
	id_old=$(sed -nE 's/^  key id ([0-9]+) +fingerprint .*/\1/p' <<<"$out")
	old=$(head -n 1 "$kf")
	new=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	sb_in a ping -c 800 -i 0.01 -q "$(sb_addr b)" >"$SB_WORK/rollover-ping.txt" 2>&1 &
	ping_pid=$!
	sleep 0.5
	printf '%s\n%s\n' "$old" "$new" >"$kf"	# 1: the new key accepted everywhere
	out=$(reload_a "step 1")
	reload_b "step 1"
	[[ $(grep -c '^  key id .*accepted too (rollover)$' <<<"$out") == 1 &&
		$(grep -c '^  key id .*sends and accepts$' <<<"$out") == 1 ]] ||
		fail "step 1: show key after key reload: $out"
	sleep 1
	# Skipping step 2 would cut b off: b still sends with the old key. Refused, naming b.
	out=$(console "show peers")
	grep -qE "^  key id: it sends with $id_old, took ours $id_old$" <<<"$out" ||
		fail "show peers: b sends with key id $id_old and took ours: $out"
	printf '%s\n' "$new" >"$kf"
	out=$(console "key reload" "show key")
	grep -qE "^error: peer [0-9]+ still sends with key id $id_old, which $kf no longer holds: .*key reload force" <<<"$out" ||
		fail "a reload dropping the key b sends with is not refused: $out"
	[[ $(grep -c '^  key id' <<<"$out") == 2 ]] || fail "the keys changed after a refused reload: $out"
	printf '%s\n%s\n' "$new" "$old" >"$kf"	# 2: sent with, one host after the other
	reload_a "step 2"
	sleep 1
	reload_b "step 2"
	sleep 1
	printf '%s\n' "$new" >"$kf"			# 3: the old key gone
	out=$(reload_a "step 3")
	reload_b "step 3"
	fp_new=$(sed -nE 's/^  key id [0-9]+ +fingerprint ([0-9a-f]{16})  sends and accepts$/\1/p' <<<"$out")
	[[ -n $fp_new && $fp_new != "$fp_old" && $(grep -c '^  key id' <<<"$out") == 1 ]] ||
		fail "step 3: one key, the new one: $out"
	wait "$ping_pid" || true
	cat "$SB_WORK/rollover-ping.txt"
	grep -q ' 0% packet loss' "$SB_WORK/rollover-ping.txt" || fail "pings lost during the key rollover"
	for h in a b; do
		refused=$(echo /seqbond/info | dpdk-telemetry.py -f "$SB_NS-$h" 2>/dev/null | python3 -c 'import json, sys
for line in sys.stdin:
    if line.strip().startswith("{"):
        i = json.loads(line)["/seqbond/info"]
        bad = {k: v for k, v in i.items() if k.startswith("rx_auth_") and v}
        print(sum(bad.values()), " ".join("%s=%d" % kv for kv in sorted(bad.items())))
        break')
		info "host $h: frames refused for their tags during the rollover: $refused"
		((${refused%% *} == 0)) || fail "host $h refused frames during the rollover: $refused"
	done
	chmod 644 "$kf"
	out=$(console "key reload" "show key")
	chmod 600 "$kf"
	grep -qF "mode 0644: a cluster key file must not be readable or writable by group or others" <<<"$out" ||
		fail "key reload of a public key file: $out"
	grep -qF "fingerprint $fp_new  sends and accepts" <<<"$out" || fail "the keys changed after a refused reload"
	grep -qE "^seqbond.key: key reload failed: .*mode 0644.*; the running keys are kept$" \
		"$SEQBOND_TESTBED_DIR/a.log" || fail "a refused key reload is not logged"
	grep -qE "^seqbond.key: key reload: key id [0-9]+, fingerprint $fp_new: sends and accepts$" \
		"$SEQBOND_TESTBED_DIR/a.log" || fail "a key reload is not logged with its fingerprint"
	if grep -qiF -e "$old" -e "$new" "$SEQBOND_TESTBED_DIR"/a.log "$SEQBOND_TESTBED_DIR"/b.log \
			"$SB_WORK"/reload-b.txt; then
		fail "a key appears in a log"
	fi
	# The keys stay out of a core dump (locked memory marked MADV_DONTDUMP, OpenSSL's key
	# schedules included): gcore honours the mark as the kernel does. The dump must still
	# hold what is not secret (the key file's path), or it proves nothing.
	gcore -o "$SB_WORK/core" "$(cat "$SEQBOND_TESTBED_DIR/a.pid")" >"$SB_WORK/gcore.txt" 2>&1 ||
		{ cat "$SB_WORK/gcore.txt"; fail "gcore of seqbond on a"; }
	python3 - "$SB_WORK"/core.* "$new" "$kf" <<'PYEOF' || fail "a key in seqbond's core dump"
import mmap, sys
core, key, path = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
with open(core, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
    size = m.size()
    if m.find(path) < 0:
        sys.exit("the core dump (%d bytes) lacks even the key file's path" % size)
    for what, needle in (("the key", key), ("the key in hex", sys.argv[2].encode()),
                         ("half the key", key[:16]), ("the key's second half", key[16:])):
        at = m.find(needle)
        if at >= 0:
            sys.exit("%s found at offset %d of the core dump" % (what, at))
print("core dump of %d MB: the key file's path in it, the key (raw, hex, either half) not"
      % (size >> 20))
PYEOF
	rm -f "$SB_WORK"/core.*
	# `key reload force` applies what plain `key reload` refuses.
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$kf"
	echo >>"$kf"
	out=$(console "key reload")
	grep -q '^error: peer [0-9]* still sends with key id' <<<"$out" || fail "reload to a third key: $out"
	out=$(console "key reload force")
	! grep -q '^error' <<<"$out" && [[ $(grep -c '^  key id .*sends and accepts$' <<<"$out") == 1 &&
		$(grep -c "fingerprint $fp_new" <<<"$out") == 0 ]] || fail "key reload force: $out"
	printf '%s\n' "$new" >"$kf"
	out=$(console "key reload")
	grep -qF "fingerprint $fp_new  sends and accepts" <<<"$out" || fail "back to the new key: $out"
	info "key rollover: $fp_old -> $fp_new on a and b, 800 pings every 10 ms, none lost; a reload dropping b's key refused, forced"
else
	out=$(console "show key" "key reload")
	grep -q '^no cluster key' <<<"$out" || fail "show key without a key: $out"
	grep -q 'error: seqbond runs without a cluster key' <<<"$out" || fail "key reload without a key: $out"
fi

# Capture a port with dpdk-dumpcap and decode it with the dissector.
pcap=$SB_WORK/port0.pcapng
sb_in a ping -c 40 -i 0.05 -q "$(sb_addr b)" >/dev/null &
timeout 20 dpdk-dumpcap --file-prefix "$SB_NS-a" -i 0 -w "$pcap" -c 60 -q >/dev/null 2>&1 ||
	fail "dpdk-dumpcap did not capture port 0"
wait
dec=$(tshark -X lua_script:"$SB_REPO_ROOT/tools/wireshark/seqbond.lua" -r "$pcap" -T fields \
	-e seqbond.type -e seqbond.path -e seqbond.seq 2>/dev/null)
info "decoded: $(grep -c . <<<"$dec") frames; $(awk '$1 == 0' <<<"$dec" | wc -l) DATA," \
	"$(awk '$1 == 2' <<<"$dec" | wc -l) HELLO"
awk '$1 == 0 && $2 == 0 && $3 > 0 {ok = 1} END {exit !ok}' <<<"$dec" ||
	fail "no DATA frame with path and sequence decoded"
awk '$1 == 2 {ok = 1} END {exit !ok}' <<<"$dec" || fail "no HELLO decoded"

# End of the command file: seqbond keeps running as a daemon.
exec 7>&-
sleep 0.5
sb_ping_ok a b

# The interactive prompt through a pty: restart host b under tmux with -i.
cfg_b=$SEQBOND_TESTBED_DIR/b.ini
kill -TERM "$(cat "$SEQBOND_TESTBED_DIR/b.pid")" || fail "seqbond on host b is gone before the restart"
for ((i = 0; i < 50; i++)); do
	[[ -e /proc/$(cat "$SEQBOND_TESTBED_DIR/b.pid") ]] || break
	sleep 0.1
done
tlog=$SB_WORK/tmux-b.log
tmux new-session -d -s "sbtest-$$" -x 200 -y 50 \
	"ip netns exec $SB_NS-b $SEQBOND_BIN -l 0,1 --main-lcore 1 --no-huge -m 512 --no-pci \
	--file-prefix $SB_NS-b2 -- --config $cfg_b --no-console-socket -i 2>&1 | tee $tlog"
# sb_cleanup reads the exit status from $?: hand it the test's, not tmux's. The session has
# usually ended by itself (seqbond's `quit` ends it), so killing it may fail: that is not the
# test's failure, and under `set -e` an unguarded failure in the trap would become the exit code.
trap 'rc=$?; tmux kill-session -t "sbtest-$$" 2>/dev/null || true; (exit $rc); sb_cleanup' EXIT
for ((i = 0; i < 100; i++)); do
	grep -q 'path 3 up' "$tlog" 2>/dev/null && break
	sleep 0.1
done
# Log lines from the datapath may have cut through the first prompt: ask for a fresh one.
tmux send-keys -t "sbtest-$$" Enter
for ((i = 0; i < 50; i++)); do
	grep -q '^seqbond> ' "$tlog" 2>/dev/null && break
	sleep 0.1
done
((i < 50)) || { cat "$tlog"; fail "no 'seqbond> ' prompt"; }
sb_in b ip link set sb0 up
sb_in b ip addr add "$(sb_addr b)/24" dev sb0
sleep 1
tmux send-keys -t "sbtest-$$" "show pe" Tab Enter
sleep 1
grep -qE '^1 +02:53:42:00:00:01 ' "$tlog" || fail "interactive show peers (with TAB completion)"
tmux send-keys -t "sbtest-$$" "quit" Enter
for ((i = 0; i < 100; i++)); do
	grep -q 'all [0-9]* mbufs back in the pool' "$tlog" && break
	sleep 0.1
done
((i < 100)) || fail "quit did not stop seqbond cleanly"
info "interactive: prompt, TAB completion, show peers, quit: ok"
info "PASS"
