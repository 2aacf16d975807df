# shellcheck shell=bash
# Shared helpers for seqbond's integration tests (sourced, not run).
#
# Each test: `. lib.sh`, `sb_require`, `sb_up ...` (brings the testbed up and arranges for it to
# be torn down on exit), then checks. Exit codes follow meson: 0 pass, 77 skip, other fail.
# Output lines starting with '#' are information; 'FAIL:' and 'SKIP:' say why a test stopped.
set -euo pipefail
# Debian's tools first (tools/install-deps installs them): a python3 earlier in PATH, such as
# a pyenv shim, lacks Debian's python3 modules and starts 13 times slower (0.4 s; over 1 s
# beside busy lcores, which stretched a test's timed steps by 11 s).
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

# One emulated network at a time on this machine: the tests measure throughput on 2 cores, and
# two at once (another engineer's run, a benchmark) would fail each other's ratios. The script
# runs itself again under flock on the lock bench/run takes too; -o keeps the lock out of
# everything the test starts, so a leftover daemon cannot hold it.
SB_NET_LOCK=${SEQBOND_NET_LOCK:-/tmp/seqbond-net.lock}
if ((EUID == 0)) && [[ -z ${SB_NET_LOCK_HELD:-} ]] && command -v flock >/dev/null; then
	export SB_NET_LOCK_HELD=1
	sb_lock_rc=0
	flock -o -w "${SEQBOND_NET_LOCK_WAIT:-1800}" -E 75 "$SB_NET_LOCK" bash "$0" "$@" ||
		sb_lock_rc=$?
	((sb_lock_rc != 75)) ||
		echo "FAIL: $(basename "$0"): $SB_NET_LOCK still held after ${SEQBOND_NET_LOCK_WAIT:-1800}s (see /proc/locks)" >&2
	exit "$sb_lock_rc"
fi

SB_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SB_REPO_ROOT=$(cd "$SB_LIB_DIR/../.." && pwd)
SB_TB=$SB_REPO_ROOT/tools/seqbond-testbed
# The testbed's names (state directory, host letters, sb0's addresses), from the testbed.
# shellcheck source-path=SCRIPTDIR source=../../tools/testbed/names.sh
. "$SB_REPO_ROOT/tools/testbed/names.sh"
export SEQBOND_BIN=${SEQBOND_BIN:-$SB_REPO_ROOT/build/app/seqbond}
# Same naming as tools/seqbond-testbed: SEQBOND_TESTBED_NAME (default sb) prefixes the
# namespaces (sb-a, sb-b, ...) and names the state directory.
SB_NS=${SEQBOND_TESTBED_NAME:-sb}
tb_state_dir "$SB_NS" SEQBOND_TESTBED_DIR
export SEQBOND_TESTBED_DIR
SB_TEST=$(basename "$0" .sh)
# shellcheck disable=SC2034 # for the tests
SB_SUBNET=$TB_SUBNET
# shellcheck disable=SC2034 # for the tests
SB_SUBNET6=$TB_SUBNET6
SB_WORK=""
SB_TB_USED=0

# Receiver-side TCP counters that show reordering (reported after every stream).
SB_REORDER_COUNTERS=(TcpExtTCPOFOQueue TcpExtTCPSACKReorder TcpExtTCPTSReorder
	TcpExtTCPRenoReorder)

info() { echo "# $*"; }
fail() {
	echo "FAIL: $SB_TEST: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $SB_TEST: $*"
	exit 77
}

# tb VERB ARGS...: the testbed tool.
tb() { bash "$SB_TB" "$@"; }

# sb_require: skip unless root with network namespaces; fail if a needed tool is missing.
sb_require() {
	((EUID == 0)) || skip "needs root (network namespaces, tc)"
	unshare -n true 2>/dev/null || skip "cannot create network namespaces here"
	local t
	for t in ip tc ethtool iperf3 nstat ping python3 ss timeout sha256sum; do
		command -v "$t" >/dev/null || fail "missing tool '$t' (run tools/install-deps)"
	done
	[[ -x $SEQBOND_BIN ]] || fail "no seqbond binary at $SEQBOND_BIN (build first)"
	SB_WORK=$(mktemp -d "/tmp/seqbond-$SB_TEST.XXXXXX")
	trap sb_cleanup EXIT
	sb_freezemon_start
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# sb_freezemon_start: the machine-freeze log for sb_freezes: tools/run-tests' own
# (SEQBOND_FREEZE_LOG) when it runs one, otherwise a freezemon of this test's, stopped by
# sb_cleanup. Without the freezemon binary (not built) the log stays empty: no freezes seen.
SB_T0=$(date +%s.%N)
SB_FREEZE_LOG=${SEQBOND_FREEZE_LOG:-}
SB_FREEZEMON_PID=""
sb_freezemon_start() {
	[[ -z $SB_FREEZE_LOG ]] || return 0
	SB_FREEZE_LOG=$SB_WORK/freezes.log
	: >"$SB_FREEZE_LOG"
	local fm
	for fm in "${SEQBOND_FREEZEMON:-}" "$(dirname "$(dirname "$SEQBOND_BIN")")/tools/freezemon/freezemon" \
		"$SB_REPO_ROOT/build/tools/freezemon/freezemon"; do
		if [[ -n $fm && -x $fm ]]; then
			# started from a subshell, so that a test's bare `wait` (for its own
			# background jobs) does not wait for it
			SB_FREEZEMON_PID=$("$fm" --out "$SB_FREEZE_LOG" </dev/null >/dev/null 2>&1 &
				echo $!)
			return 0
		fi
	done
	info "no freezemon binary (ninja -C build): machine freezes are not detected"
}

sb_cleanup() {
	local rc=$?
	set +e
	local freezes=""
	if ((rc != 0 && rc != 77)) && [[ -n $SB_FREEZE_LOG ]]; then
		local n longest
		read -r n longest < <(python3 "$SB_REPO_ROOT/tools/freezemon/freezes.py" \
			"$SB_FREEZE_LOG" "$SB_T0")
		freezes="# machine freezes during this test: $n (longest $longest ms)"
	fi
	[[ -z $SB_FREEZEMON_PID ]] || kill "$SB_FREEZEMON_PID" 2>/dev/null
	if ((SB_TB_USED)); then
		if ((rc != 0)); then
			echo "----- testbed status at failure -----"
			tb status
			local f
			for f in "$SEQBOND_TESTBED_DIR"/*.log; do
				# only this test's logs, not those of an earlier run
				[[ -f $f && $f -nt $SB_WORK ]] || continue
				echo "----- $f (last 40 lines) -----"
				tail -n 40 "$f"
			done
		fi
		tb down
	fi
	# last, so that meson's tail of a long failure log keeps it
	[[ -z $freezes ]] || echo "$freezes"
	# SB_KEEP_WORK=1 keeps the work directory (iperf3 JSON, captures) for a post-mortem.
	[[ -z $SB_WORK || -n ${SB_KEEP_WORK:-} ]] || rm -rf "$SB_WORK"
	[[ -z ${SB_KEEP_WORK:-} || -z $SB_WORK ]] || echo "# work directory kept: $SB_WORK" >&2
	exit "$rc"
}

# SEQBOND_TEST_EXCEPTION=TYPE runs the tests with that exception path type (testbed up
# --exception TYPE) unless a test names one itself; default the testbed's (tap-vnet).
SB_EXCEPTION=${SEQBOND_TEST_EXCEPTION:-tap-vnet}

# SEQBOND_TEST_KEY=off runs the tests without a cluster key (testbed up --no-key) unless a
# test says otherwise; default on, as the testbed's default.
SB_KEY=${SEQBOND_TEST_KEY:-on}

# sb_up ARGS...: `seqbond-testbed up ARGS`; torn down when the test exits.
sb_up() {
	local -a extra=()
	[[ " $* " == *" --exception "* ]] || extra=(--exception "$SB_EXCEPTION")
	[[ $SB_KEY == on || " $* " == *" --no-key "* ]] || extra+=(--no-key)
	SB_TB_USED=1
	info "testbed up $* ${extra[*]}"
	tb up "$@" "${extra[@]}" || fail "testbed did not come up"
}

# sb_down: tear down now (e.g. before bringing it up with other options).
sb_down() {
	tb down
	SB_TB_USED=0
}

# sb_addr HOST: sb0 address of host a, b, ...
sb_addr() { tb_addr "$1"; }

# sb_addr6 HOST: sb0 IPv6 address of host a, b, ... (fd99::1, fd99::2, ...; the testbed gives
# it after every path is up and `up` returns once DAD is done).
sb_addr6() { tb_addr6 "$1"; }

# sb_in HOST CMD...: run CMD in HOST's namespace.
sb_in() {
	local h=$1
	shift
	ip netns exec "$SB_NS-$h" "$@"
}

# sb_keyed: the running testbed has a cluster key (its `up` had no --no-key).
sb_keyed() {
	grep -qx 'key=on' "$SEQBOND_TESTBED_DIR/testbed.env" 2>/dev/null
}

# sb_key_file: the running testbed's cluster key file (empty without a key).
sb_key_file() {
	if sb_keyed; then echo "$SEQBOND_TESTBED_DIR/cluster.key"; fi
}

# sb_overhead: bytes seqbond adds to an elided inner frame on the running testbed: the
# 10-byte shim, and the 4-byte DATA tag with a cluster key (docs/wire-format.md).
sb_overhead() {
	if sb_keyed; then echo 34; else echo 10; fi
}

# sb_mtu HOST: MTU of sb0 on HOST.
sb_mtu() {
	sb_in "$1" cat /sys/class/net/sb0/mtu
}

# sb_ping_ok FROM TO: a few pings over sb0 must get through.
sb_ping_ok() {
	local out
	if ! out=$(sb_in "$1" ping -c 5 -i 0.2 -W 2 "$(sb_addr "$2")" 2>&1); then
		echo "$out"
		fail "ping $1 -> $2 over sb0 failed"
	fi
	info "ping $1 -> $2: $(echo "$out" | grep -E 'packets transmitted' || true)"
}

# json_get FILE EXPR: evaluate a python expression on the iperf3 JSON `d`.
json_get() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$1" "$2"
}

# nstat keeps its history in a file; give every namespace its own.
sb_nstat_reset() {
	sb_in "$1" env NSTAT_HISTORY="$SB_WORK/nstat.$1" nstat -n
}

# sb_nstat_report HOST: reorder counters since sb_nstat_reset, as "name value" lines.
sb_nstat_report() {
	sb_in "$1" env NSTAT_HISTORY="$SB_WORK/nstat.$1" nstat -z "${SB_REORDER_COUNTERS[@]}" |
		awk '$1 !~ /^#/ {print $1, $2}'
}

# float_ge A B: A >= B for decimal numbers.
float_ge() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"; }
# calc EXPR [DECIMALS]: a python arithmetic expression, printed with 2 (or DECIMALS) decimals.
calc() { python3 -c 'import sys; print("%.*f" % (int(sys.argv[2]), eval(sys.argv[1])))' "$1" "${2:-2}"; }

# sb_first_event HOST REGEX SINCE: wall-clock time of HOST's first path event line matching
# REGEX at or after SINCE (seqbond logs "... at <time>"), or "none".
sb_first_event() {
	python3 "$SB_LIB_DIR/sb_faults.py" event "$SEQBOND_TESTBED_DIR/$1.log" "$2" "$3"
}

# sb_check_detect WHAT HOST REGEX SINCE LIMIT [SINCE_END]: the event came, within LIMIT
# seconds. A fault's rule takes effect somewhere while its command runs, between SINCE and
# SINCE_END (default SINCE): the limit applies from SINCE_END, when the rule is surely in
# place, and the time from SINCE (which counts the command's own run time too) is reported
# beside it. Sets DETECTED to the time from SINCE_END.
sb_check_detect() {
	local what=$1 h=$2 re=$3 since=$4 limit=$5 end=${6:-$4} t d d0
	t=$(sb_first_event "$h" "$re" "$since")
	[[ $t != none ]] || fail "$what: host $h logged no '$re'"
	d=$(calc "$t - $end" 3)
	d0=$(calc "$t - $since" 3)
	info "$what: host $h after ${d} s from the rule in place, ${d0} s from the command's start (limit $limit s)"
	float_ge "$limit" "$d" || fail "$what: host $h took $d s (limit $limit s)"
	DETECTED=$d
}

# sb_baseline RATE: single-link goodput (Mbit/s) on the separate baseline pair. Run it before
# sb_up so that idle seqbond lcores do not share the CPU with the measurement.
sb_baseline() {
	local rate=$1 g
	g=$(tb baseline --rate "$rate" --time 10) || fail "baseline measurement failed"
	info "baseline: one $rate Mbit/s link: $g Mbit/s" >&2
	echo "$g"
}

# sb_pingpong SRV_NS SRV_IP CLI_NS SECONDS [sockperf options...]: sockperf ping-pong, 64-byte
# UDP messages at 1000 a second (--tcp: TCP) from CLI_NS to a server in SRV_NS; prints the
# round trip's "p50 p99 p99.9" in microseconds, or nothing (sockperf's output on stderr) when
# sockperf gave none: the caller checks.
sb_pingpong() {
	local srv_ns=$1 ip=$2 cli_ns=$3 t=$4 port=$((11000 + RANDOM % 1000)) srv out
	shift 4
	ip netns exec "$srv_ns" sockperf server -i "$ip" -p "$port" "$@" >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	out=$(ip netns exec "$cli_ns" sockperf ping-pong -i "$ip" -p "$port" -t "$t" --mps=1000 \
		-m 64 --full-rtt "$@" 2>&1)
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	awk '{ gsub(/\033\[[0-9;]*m/, "") }
		/percentile 50.000 =/ { a = $NF } /percentile 99.000 =/ { b = $NF }
		/percentile 99.900 =/ { c = $NF }
		END { if (a == "") exit 1; printf "%.0f %.0f %.0f\n", a, b, c }' <<<"$out" ||
		echo "$out" >&2
}

# sb_stream FROM TO: one 10 s iperf3 TCP stream over sb0 with the receiver's reorder counters
# reset before it; prints goodput, retransmits and counters; sets SB_GOODPUT (Mbit/s).
SB_GOODPUT=0
sb_stream() {
	local from=$1 to=$2 json=$SB_WORK/iperf-$1-$2.json retr line
	sb_nstat_reset "$to"
	SB_GOODPUT=$(tb iperf --from "$from" --to "$to" --time 10 --json "$json") ||
		fail "iperf3 over sb0 $from -> $to failed"
	retr=$(json_get "$json" 'd["end"]["sum_sent"].get("retransmits", 0)')
	info "sb0 $from -> $to: goodput $SB_GOODPUT Mbit/s, retransmits $retr"
	info "receiver ($to) counters during the stream:"
	while read -r line; do
		info "    $line"
	done < <(sb_nstat_report "$to")
}

# sb_freezes SINCE [UNTIL]: how many machine freezes (20 ms or more in which this machine ran
# nothing on one of its CPUs; several CPUs' within 50 ms count once) freezemon logged in that
# window (wall-clock seconds; UNTIL default now). This shared VM now and then runs nothing on
# one of its two CPUs for about 100 ms (docs/testing.md, "Machine freezes"): a timed step
# that saw one may be measured again.
sb_freezes() {
	local n longest
	read -r n longest < <(python3 "$SB_REPO_ROOT/tools/freezemon/freezes.py" \
		"$SB_FREEZE_LOG" "$1" ${2:+"$2"})
	echo "$n"
}

# sb_e2e RATES FACTOR: baseline on one 100 Mbit/s link, testbed with one link per rate in the
# comma-separated RATES, one stream a -> b; asserts goodput >= FACTOR * single * sum/100.
# A stream below that is measured once more, and the second figure counts (docs/testing.md,
# "Throughput limits"); the machine freezes during the first are printed.
sb_e2e() {
	local rates=$1 factor=$2 single links sum expect ratio t0 n
	single=$(sb_baseline 100)
	links=$(awk -F, '{print NF}' <<<"$rates")
	sum=$(awk -F, '{s = 0; for (i = 1; i <= NF; i++) s += $i; print s}' <<<"$rates")
	sb_up --links "$links" --rate "$rates"
	sb_ping_ok a b
	sb_ping_ok b a
	expect=$(calc "$single * $sum / 100")
	t0=$(date +%s.%N)
	sb_stream a b
	ratio=$(calc "$SB_GOODPUT / $expect" 3)
	if ! float_ge "$ratio" "$factor"; then
		n=$(sb_freezes "$t0")
		info "ratio $ratio below $factor, $n machine freezes during the stream: measured again"
		sb_stream a b
		ratio=$(calc "$SB_GOODPUT / $expect" 3)
	fi
	info "links $rates Mbit/s: sb0 $SB_GOODPUT Mbit/s; single 100 Mbit/s link $single;" \
		"sum-equivalent $expect; ratio $ratio (need >= $factor)"
	float_ge "$ratio" "$factor" ||
		fail "goodput $SB_GOODPUT Mbit/s is below $factor x $expect Mbit/s (ratio $ratio)"
}

# sb_wait_listen HOST PORT: until a TCP listener on PORT exists in HOST's namespace.
sb_wait_listen() {
	local i
	for ((i = 0; i < 100; i++)); do
		sb_in "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.05
	done
	fail "nothing listens on port $2 in host $1"
}

# sb_report_counter NAME LOG: a datapath counter from the exit report in seqbond log LOG.
sb_report_counter() { awk -v k="$1" '$1 == k {v = $2} END {print v + 0}' "$2"; }

# sb_report_reorder NAME LOG: a reorder window counter of the exit report in LOG, summed over
# its peers.
sb_report_reorder() {
	awk -v k="$1" '$1 == "reorder:" {for (i = 2; i < NF; i++) if ($i == k) s += $(i + 1)}
		END {print s + 0}' "$2"
}

# sb_count_log HOST REGEX: lines of HOST's seqbond log that match REGEX.
sb_count_log() {
	grep -cE "$2" "$SEQBOND_TESTBED_DIR/$1.log" 2>/dev/null || true
}

# sb_telemetry HOST ENDPOINT [KEY[.KEY...]]: DPDK telemetry of HOST's seqbond, as JSON, or the
# value at the dotted key path (e.g. sb_telemetry a /seqbond/peers,2 2.tx_seq_next).
sb_telemetry() {
	local h=$1 ep=$2 key=${3:-}
	echo "$ep" | dpdk-telemetry.py -f "$SB_NS-$h" 2>/dev/null | python3 -c '
import json, sys
key = sys.argv[2]
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        d = json.loads(line)[sys.argv[1].split(",")[0]]
        for k in filter(None, key.split(".")):
            d = d[k]
        print(d if key else json.dumps(d))
        break
else:
    sys.exit("no JSON from telemetry")' "$ep" "$key"
}

# sb_inject HOST IFACE DST_MAC COUNT [PPS]: send COUNT frames of 100 bytes with EtherType
# 0x88b6 (IEEE local experimental 2: not seqbond's, which counts them as foreign) out of IFACE
# in HOST's namespace, paced at PPS (default 20000); prints how many the kernel took. Traffic
# on the wire that does not depend on what seqbond decides to send.
sb_inject() {
	sb_in "$1" python3 - "$2" "$3" "$4" "${5:-20000}" <<'PY'
import socket, sys, time
ifc, dst, n, pps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
src = open("/sys/class/net/%s/address" % ifc).read().strip()
frame = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) + \
    b"\x88\xb6" + bytes(86)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifc, 0))
sent = 0
t0 = time.monotonic()
for i in range(n):
    try:
        s.send(frame)
        sent += 1
    except OSError:
        pass
    if i % 50 == 49:
        ahead = t0 + (i + 1) / pps - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
print(sent)
PY
}

# ---- Blocks shared by several tests (issue 34) -------------------------------------------
# Steps that two or more tests take alike: the tools a test needs beyond sb_require's, socat
# file transfers, the path MTU over sb0, waiting for a line in a program's log. Keep the
# shared blocks together here.

# sb_require_tools TOOL...: fail unless each TOOL is installed (after sb_require).
sb_require_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || fail "missing tool '$t' (run tools/install-deps)"
	done
}

# sb_socat_send NS SRC TARGET RX_PID [PREFIX]: send the file SRC from namespace NS with socat
# to TARGET (a socat address, e.g. TCP:10.99.0.2:5300) within 300 s, then give the receiving
# socat RX_PID (started by the caller, listening) 10 s to end. Failures start with PREFIX.
# Sets SB_XFER_SECS: seconds from the sender's start to the receiver's end.
SB_XFER_SECS=0
sb_socat_send() {
	local ns=$1 src=$2 target=$3 rx_pid=$4 pfx=${5:-} start i
	start=$(date +%s.%N)
	timeout 300 ip netns exec "$ns" socat -u "OPEN:$src" "$target" ||
		fail "${pfx}sender socat failed or timed out"
	# The receiver ends when it has read the sender's EOF.
	for ((i = 0; i < 100; i++)); do
		kill -0 "$rx_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$rx_pid" 2>/dev/null; then
		# It may end between the check and the kill: not a failure of its own.
		kill "$rx_pid" 2>/dev/null || true
		fail "${pfx}receiver did not finish 10 s after the sender"
	fi
	wait "$rx_pid" || fail "${pfx}receiver socat failed"
	# shellcheck disable=SC2034 # read by the tests
	SB_XFER_SECS=$(calc "$(date +%s.%N) - $start")
}

# sb_send_file FROM TO PORT SRC DST: the file SRC from host FROM to DST on host TO over sb0,
# socat on TCP PORT (the receiver bound to TO's sb0 address). Sets SB_XFER_SECS.
sb_send_file() {
	local from=$1 to=$2 port=$3 src=$4 dst=$5 rx_pid
	sb_in "$to" socat -u "TCP-LISTEN:$port,reuseaddr,bind=$(sb_addr "$to")" "OPEN:$dst,creat,trunc" &
	rx_pid=$!
	sb_wait_listen "$to" "$port"
	sb_socat_send "$SB_NS-$from" "$src" "TCP:$(sb_addr "$to"):$port" "$rx_pid"
}

# sb_pmtu_check MTU [NOTE]: with sb0's MTU at MTU on hosts a and b, a don't-fragment ping of
# exactly MTU bytes crosses a -> b and b -> a, and one byte more is refused by a's kernel
# ("message too long"). NOTE ends the message of a crossing ping that failed. Sets
# SB_PMTU_OUT: the output of the refused ping.
SB_PMTU_OUT=""
sb_pmtu_check() {
	local want=$1 note=${2:-} payload pair from to out
	payload=$((want - 28)) # IPv4 header 20 + ICMP header 8
	for pair in "a b" "b a"; do
		read -r from to <<<"$pair"
		out=$(sb_in "$from" ping -M "do" -s "$payload" -c 3 -i 0.2 -W 2 "$(sb_addr "$to")" 2>&1) ||
			{ echo "$out"; fail "ping -M do -s $payload $from -> $to failed$note"; }
		info "ping -M do -s $payload $from -> $to: ok"
	done
	if out=$(sb_in a ping -M "do" -s $((payload + 1)) -c 1 -W 1 "$(sb_addr b)" 2>&1); then
		echo "$out"
		fail "ping -M do -s $((payload + 1)) passed over sb0 with mtu $want"
	fi
	grep -qi 'message too long' <<<"$out" ||
		{ echo "$out"; fail "ping -s $((payload + 1)) failed, but not locally with 'message too long'"; }
	# shellcheck disable=SC2034 # read by the tests
	SB_PMTU_OUT=$out
}

# sb_wait_log LOG REGEX PID TRIES PAUSE EXITED: until a line of LOG matches REGEX (grep), up
# to TRIES looks PAUSE seconds apart; returns 1 when none did. When PID (the program writing
# LOG) is gone first: LOG on stdout, then fail with the message EXITED.
sb_wait_log() {
	local log=$1 re=$2 pid=$3 tries=$4 pause=$5 exited=$6 i
	for ((i = 0; i < tries; i++)); do
		grep -q "$re" "$log" && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$log"; fail "$exited"; }
		sleep "$pause"
	done
	return 1
}
