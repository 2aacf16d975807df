#!/usr/bin/env bash
# The exception path on its own, no seqbond peer: exc_fwd creates two exception paths, sb0 in
# namespace A and sb0 in namespace B, and forwards every frame between their rx_burst and
# tx_burst, checking each one against the rx_burst contract (size <= MTU + 14, IPv4 header
# and TCP/UDP checksums valid, single-segment with --linear). Over that, per case:
#   - ping, and don't-fragment pings of exactly the MTU (one byte more refused locally);
#   - a 256 MiB random file over IPv4 A -> B and another over IPv6 B -> A with socat, same
#     sha256 at the other end;
#   - tap-vnet: sb0 has TSO, GSO and tx checksumming on; the kernel handed over large
#     segments (average sb0 tx packet above the MTU; exc_rx_gso counters, TSO4 and TSO6) and
#     took merged ones (average rx packet above the MTU; exc_tx_gro);
#   - exc_fwd then exits 0: no frame broke the contract and every mbuf came back.
# Cases: tap-vnet at MTU 1500, one queue; tap-vnet at MTU 8990 (jumbo) with 2 KiB mbufs (every
# read a chain), two queues, each direction forwarded by its own lcore (every queue's rx_burst
# and tx_burst at once, as seqbond's TX and RX workers do); tap-vnet at MTU 8990 with linear
# frames in 10 KiB mbufs (as seqbond sizes them for 9000-byte links); the TAP PMD behind the
# same interface.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
sb_require_tools socat
EXC_FWD=${EXC_FWD:-$(dirname "$SEQBOND_BIN")/../tests/integration/exc_fwd}
[[ -x $EXC_FWD ]] || fail "no exc_fwd binary at $EXC_FWD (build first)"

NS_A=$SB_NS-xa
NS_B=$SB_NS-xb
FWD_PID=""
size_mib=${EXC_TEST_MIB:-256}

exc_cleanup() {
	set +e
	if [[ -n $FWD_PID ]]; then
		kill -TERM "$FWD_PID" 2>/dev/null || true
		wait "$FWD_PID" 2>/dev/null || true
		FWD_PID=""
	fi
	local ns pid
	for ns in "$NS_A" "$NS_B"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null || true
		done
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "/var/run/dpdk/$SB_NS-excfwd"
}
trap 'rc=$?; exc_cleanup; (exit $rc); sb_cleanup' EXIT

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# counter FILE SIDE NAME: a value from exc_fwd's report.
counter() { awk -v s="$2" -v n="$3" '$1 == s && $2 == n {print $3; found = 1} END {if (!found) print "MISSING"}' "$1"; }

# The kernel interfaces: sb0 in both namespaces, except for the TAP PMD, whose devices
# must have distinct names in one process.
IF_A=sb0
IF_B=sb0

# kstat NS IF DIR: "bytes packets" of IF in NS (DIR rx or tx).
kstat() {
	echo "$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/${3}_bytes")" \
		"$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/${3}_packets")"
}

# transfer FROM_NS TO_NS TO_ADDR LABEL: send a random file with socat, compare sha256.
transfer() {
	local from=$1 to=$2 addr=$3 label=$4 port=5301 src dst rx_pid want got secs i
	local tcp=TCP bind=$addr
	src=$SB_WORK/src.bin
	dst=$SB_WORK/dst-$label.bin
	[[ -f $src ]] || head -c $((size_mib << 20)) /dev/urandom >"$src"
	want=$(sha256sum "$src" | cut -d' ' -f1)
	if [[ $addr == *:* ]]; then
		tcp=TCP6
		addr="[$addr]"
		bind=$addr
	fi
	ip netns exec "$to" socat -u "$tcp-LISTEN:$port,reuseaddr,bind=$bind" "OPEN:$dst,creat,trunc" &
	rx_pid=$!
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$to" ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.05
	done
	sb_socat_send "$from" "$src" "$tcp:$addr:$port" "$rx_pid" "$label: "
	secs=$SB_XFER_SECS
	got=$(sha256sum "$dst" | cut -d' ' -f1)
	info "$label: $size_mib MiB in $secs s ($(calc "$size_mib * 8 * 1.048576 / $secs") Mbit/s)," \
		"sha256 $( [[ $got == "$want" ]] && echo match || echo MISMATCH)"
	[[ $got == "$want" ]] || fail "$label: file arrived different ($got, want $want)"
	rm -f "$dst"
}

# run_case NAME TYPE MTU QUEUES [EXC_FWD ARGS...]
run_case() {
	local name=$1 type=$2 mtu=$3 queues=$4 log out ns payload
	shift 4
	log=$SB_WORK/fwd-$name.log
	IF_A=sb0
	IF_B=sb0
	[[ $type != tap ]] || IF_B=sb1
	info "case $name: type $type, mtu $mtu, $queues queue(s) $*"
	for ns in "$NS_A" "$NS_B"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
	done
	"$EXC_FWD" -l 0,1 --no-huge -m 512 --no-pci --file-prefix "$SB_NS-excfwd" \
		--log-level=lib.eal:notice -- --netns "$NS_A,$NS_B" --type "$type" --mtu "$mtu" \
		--queues "$queues" --name "$IF_A,$IF_B" "$@" >"$log" 2>&1 &
	FWD_PID=$!
	sb_wait_log "$log" '^ready' "$FWD_PID" 200 0.05 "$name: exc_fwd exited" ||
		grep -q '^ready' "$log" || { cat "$log"; fail "$name: exc_fwd not ready"; }
	for ns in "$NS_A:$IF_A" "$NS_B:$IF_B"; do
		[[ $(ip netns exec "${ns%:*}" cat "/sys/class/net/${ns#*:}/mtu") == "$mtu" ]] ||
			fail "$name: ${ns#*:} in ${ns%:*} has mtu" \
				"$(ip netns exec "${ns%:*}" cat "/sys/class/net/${ns#*:}/mtu")"
		ip netns exec "${ns%:*}" sysctl -q -w "net.ipv6.conf.${ns#*:}.disable_ipv6=0" \
			>/dev/null 2>&1 || true
		ip -n "${ns%:*}" link set "${ns#*:}" up
	done
	ip -n "$NS_A" addr add 10.77.0.1/24 dev "$IF_A"
	ip -n "$NS_B" addr add 10.77.0.2/24 dev "$IF_B"
	ip -n "$NS_A" addr add fd77::1/64 dev "$IF_A" nodad
	ip -n "$NS_B" addr add fd77::2/64 dev "$IF_B" nodad
	if [[ $type == tap-vnet ]]; then
		out=$(in_a ethtool -k "$IF_A")
		for f in tcp-segmentation-offload tx-tcp6-segmentation generic-segmentation-offload \
			tx-checksumming; do
			grep -qE "^\s*$f: on" <<<"$out" || { echo "$out"; fail "$name: sb0 $f is not on"; }
		done
		info "$name: sb0 offloads on: tso, tso6, gso, tx-checksumming"
	fi
	in_a ping -c 3 -i 0.2 -W 2 10.77.0.2 >/dev/null || fail "$name: ping A -> B"
	in_b ping -c 3 -i 0.2 -W 2 fd77::1 >/dev/null || fail "$name: ping6 B -> A"
	payload=$((mtu - 28))
	in_a ping -M "do" -s "$payload" -c 2 -i 0.2 -W 2 10.77.0.2 >/dev/null ||
		fail "$name: ping -M do -s $payload (mtu $mtu)"
	if out=$(in_a ping -M "do" -s $((payload + 1)) -c 1 -W 1 10.77.0.2 2>&1); then
		fail "$name: ping -s $((payload + 1)) passed with mtu $mtu"
	fi
	grep -qi 'message too long' <<<"$out" || { echo "$out"; fail "$name: not refused locally"; }
	info "$name: ping -M do -s $payload passes, $((payload + 1)) refused locally"

	local a_tx0 b_rx0 a_tx1 b_rx1
	read -r -a a_tx0 <<<"$(kstat "$NS_A" "$IF_A" tx)"
	read -r -a b_rx0 <<<"$(kstat "$NS_B" "$IF_B" rx)"
	transfer "$NS_A" "$NS_B" 10.77.0.2 "$name-v4-a-to-b"
	read -r -a a_tx1 <<<"$(kstat "$NS_A" "$IF_A" tx)"
	read -r -a b_rx1 <<<"$(kstat "$NS_B" "$IF_B" rx)"
	transfer "$NS_B" "$NS_A" fd77::1 "$name-v6-b-to-a"

	local a_avg b_avg
	a_avg=$(( (a_tx1[0] - a_tx0[0]) / (a_tx1[1] - a_tx0[1]) ))
	b_avg=$(( (b_rx1[0] - b_rx0[0]) / (b_rx1[1] - b_rx0[1]) ))
	info "$name: IPv4 A -> B: A's $IF_A sent $((a_tx1[1] - a_tx0[1])) packets, $a_avg bytes" \
		"on average; B's $IF_B received $((b_rx1[1] - b_rx0[1])) packets, $b_avg bytes on average"

	kill -TERM "$FWD_PID"
	local rc=0
	wait "$FWD_PID" || rc=$?
	FWD_PID=""
	grep -E '^(A|B) (exc_rx_frames|exc_rx_kernel|exc_rx_gso|exc_rx_gso_frames|exc_tx_kernel|exc_tx_gro|exc_tx_gro_frames|exc_tx_csum_ok|exc_tx_csum_bad|chk_frames|chk_max_len|chk_multi_seg|chk_bad_ip_csum|chk_bad_l4_csum|chk_oversize|chk_not_linear) |FAIL|mbufs' \
		"$log" | sed "s/^/# $name: /"
	((rc == 0)) || { cat "$log"; fail "$name: exc_fwd found frames breaking the contract or leaked mbufs (exit $rc)"; }
	local max
	for s in A B; do
		max=$(counter "$log" $s chk_max_len)
		((max <= mtu + 14)) || fail "$name: $s returned a $max-byte frame (mtu $mtu)"
	done
	if [[ $type == tap-vnet ]]; then
		# A's kernel sent the IPv4 file in large segments (TSO4), B's the IPv6 one (TSO6);
		# B's and A's kernels got merged IPv4 segments (GRO; DPDK 22.11 has no TCP/IPv6 gro).
		(($(counter "$log" A exc_rx_gso) > 0)) || fail "$name: no large segment from A's kernel"
		(($(counter "$log" B exc_rx_gso) > 0)) || fail "$name: no large IPv6 segment from B's kernel"
		(($(counter "$log" B exc_tx_gro) > 0)) || fail "$name: nothing merged towards B's kernel"
		((a_avg > mtu)) || fail "$name: A's sb0 sent $a_avg bytes per packet, not above the mtu"
		((b_avg > mtu)) || fail "$name: B's sb0 received $b_avg bytes per packet, not above the mtu"
	else
		(($(counter "$log" A exc_rx_gso) == 0)) || fail "$name: large segments on a type without offloads"
	fi
	for ns in "$NS_A" "$NS_B"; do
		ip netns del "$ns"
	done
	info "$name: ok"
}

run_case tapvnet1500 tap-vnet 1500 1
run_case tapvnet8990 tap-vnet 8990 2 --threads 2
run_case tapvnet8990lin tap-vnet 8990 1 --linear --data-room 10368
run_case tappmd1500 tap 1500 1
info "PASS"
