#!/usr/bin/env bash
# Per-port passthrough: raw frames of a member port (anything that is not seqbond's: ARP,
# IP, DHCP, TFTP) reach the kernel on sb0p<N> and what the kernel sends there goes out of that
# port, unmodified and in order; seqbond's own frames never show up there. The testbed's
# af_packet ports keep their kernel interfaces, so passthrough is switched on by hand here
# ([port0] passthrough = on), as it is by default for NICs bound to DPDK.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
for t in dnsmasq busybox tcpdump; do
	command -v "$t" >/dev/null || fail "missing tool '$t' (run tools/install-deps)"
done

# TFTP: blocks fetched, and the most a block may cost in us (docs/testing.md has the figures).
TFTP_BLOCKS=4096
TFTP_US_MAX=2000
sb_up --links 2 --rate 100
# A NIC bound to DPDK is gone from the kernel; a veth under af_packet is not, and its kernel
# would answer ARP and ICMP for sb0p0's address itself (same MAC, weak host model): each
# frame twice. A netdev ingress drop on port 0 hides the port from the kernel's stack; the
# af_packet socket still sees every frame (taps come before the ingress hook).
for h in a b; do
	sed -i '/^\[port0\]/a passthrough = on' "$SEQBOND_TESTBED_DIR/$h.ini"
	tb restart "$h" >/dev/null
	dev=sb${h^^}0
	sb_in "$h" nft "add table netdev sbpt"
	sb_in "$h" nft "add chain netdev sbpt port0 { type filter hook ingress device \"$dev\" priority 0; policy drop; }"
done
for h in a b; do
	for ((i = 0; i < 50; i++)); do
		sb_in "$h" ip link show sb0p0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	sb_in "$h" ip link show sb0p0 >/dev/null 2>&1 || fail "no sb0p0 on host $h"
	sb_in "$h" ip link set sb0p0 up
done
sb_in a ip addr add 10.97.0.1/24 dev sb0p0
sb_in b ip addr add 10.97.0.2/24 dev sb0p0
sb_ping_ok a b

# Capture sb0p0 on a while raw and striped traffic both flow: no 0x88b5 frame there.
sb_in a timeout 20 tcpdump -Q in -i sb0p0 -U -w "$SB_WORK/p0.pcap" 2>/dev/null &
cap=$!
sleep 1
out=$(sb_in a ping -c 50 -i 0.02 -W 2 10.97.0.2 2>&1) || { echo "$out"; fail "ping over sb0p0"; }
info "ping a -> b over sb0p0: $(grep 'packets transmitted' <<<"$out")"
seqs=$(sed -n 's/.*icmp_seq=\([0-9]*\) .*/\1/p' <<<"$out" | tr '\n' ' ')
[[ $seqs == "$(seq -s ' ' 1 50) " ]] || fail "replies over sb0p0 out of order or missing: $seqs"
sb_in b iperf3 -s -1 >/dev/null 2>&1 &
sb_wait_listen b 5201
sb_in a iperf3 -c "$(sb_addr b)" -t 2 >/dev/null || fail "iperf3 over sb0 beside passthrough"
sleep 0.5
kill -INT "$cap" 2>/dev/null || true
wait "$cap" 2>/dev/null || true
total=$(tcpdump -r "$SB_WORK/p0.pcap" 2>/dev/null | wc -l)
ours=$(tcpdump -r "$SB_WORK/p0.pcap" 'ether proto 0x88b5' 2>/dev/null | wc -l)
info "sb0p0 on a received $total frames during the pings and a 2 s stream; $ours of them seqbond's"
((total >= 50)) || fail "too few frames on sb0p0 ($total)"
((ours == 0)) || fail "$ours seqbond frames showed up on sb0p0"

# DHCP over the passthrough interfaces: dnsmasq on b's sb0p0, busybox udhcpc on a's.
sb_in a ip addr flush dev sb0p0
sb_in b dnsmasq --no-daemon --port=0 --interface=sb0p0 --bind-interfaces \
	--dhcp-range=10.97.0.100,10.97.0.150,1m --pid-file="$SB_WORK/dnsmasq.pid" \
	--log-facility="$SB_WORK/dnsmasq.log" &
dns=$!
sleep 0.5
lease=$(sb_in a timeout 20 busybox udhcpc -i sb0p0 -n -q -f -t 5 -s /bin/true 2>&1) ||
	{ echo "$lease"; cat "$SB_WORK/dnsmasq.log" 2>/dev/null; fail "no DHCP lease over sb0p0"; }
kill "$dns" 2>/dev/null || true
wait "$dns" 2>/dev/null || true
info "DHCP over sb0p0: $(grep -i 'lease' <<<"$lease" | tail -n 1)"
grep -qiE 'lease of 10\.97\.0\.1[0-5][0-9] obtained' <<<"$lease" || fail "unexpected lease: $lease"

# TFTP over sb0p0, as a PXE firmware loads its kernel: one round trip per 512-byte block.
mkdir -p "$SB_WORK/tftp"
head -c $((TFTP_BLOCKS * 512)) /dev/urandom >"$SB_WORK/tftp/boot.bin"
sb_in a ip addr add 10.97.0.1/24 dev sb0p0
sb_in b dnsmasq --no-daemon --port=0 --interface=sb0p0 --bind-interfaces --enable-tftp \
	--tftp-root="$SB_WORK/tftp" --pid-file="$SB_WORK/dnsmasq.pid" \
	--log-facility="$SB_WORK/dnsmasq-tftp.log" &
dns=$!
sleep 0.5
t0=$(date +%s%N)
sb_in a timeout 120 busybox tftp -g -r boot.bin -l "$SB_WORK/got.bin" 10.97.0.2 ||
	{ kill "$dns"; fail "TFTP of $TFTP_BLOCKS blocks over sb0p0 failed"; }
t1=$(date +%s%N)
kill "$dns" 2>/dev/null || true
wait "$dns" 2>/dev/null || true
cmp -s "$SB_WORK/tftp/boot.bin" "$SB_WORK/got.bin" || fail "the file TFTP brought over sb0p0 differs"
us_block=$(((t1 - t0) / 1000 / TFTP_BLOCKS))
info "TFTP over sb0p0: $TFTP_BLOCKS blocks of 512 bytes in $(((t1 - t0) / 1000000)) ms, $us_block us a block"
((us_block <= TFTP_US_MAX)) ||
	fail "TFTP over sb0p0 took $us_block us a block (at most $TFTP_US_MAX)"

pt=$(sb_telemetry a /seqbond/info rx_passthrough)
ptx=$(sb_telemetry a /seqbond/info tx_passthrough)
info "host a: rx_passthrough $pt, tx_passthrough $ptx"
((pt > 0 && ptx > 0)) || fail "passthrough counters did not move"
sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" ||
	fail "counters or mbufs"
info "PASS"
