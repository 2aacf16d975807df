#!/usr/bin/env bash
# seqbond end to end with the tap-vnet exception path on 9000-byte links (4 x 100 Mbit/s):
#   - sb0 gets MTU 8990 (links less the 10-byte shim; 8966 with the cluster key's 24-byte
#     authentication header)
#     on both hosts; ping -M do -s 8962 (8958)
#     crosses both ways, 8963 is refused locally ("message too long");
#   - one iperf3 TCP stream each way (goodput reported);
#   - a 256 MiB random file a -> b with socat arrives with the same sha256;
#   - the exit reports show the kernel handed over large segments (exc_rx_gso on a), merged
#     segments went up (exc_tx_gro on b), no bad header, checksum or oversize frame, and
#     every mbuf back in its pool on both hosts.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
sb_require_tools socat

link_mtu=9000
size_mib=256
port=5300

sb_up --links 4 --rate 100 --mtu "$link_mtu" --exception tap-vnet
want_mtu=$((link_mtu - $(sb_overhead)))
for h in a b; do
	mtu=$(sb_mtu "$h")
	[[ $mtu == "$want_mtu" ]] || fail "sb0 mtu on $h is $mtu, expected $want_mtu"
done
info "sb0 mtu $want_mtu on both hosts"
sb_pmtu_check "$want_mtu"
info "ping -M do -s $((want_mtu - 28 + 1)): refused locally"

sb_stream a b
sb_stream b a

src=$SB_WORK/src.bin
dst=$SB_WORK/dst.bin
head -c $((size_mib << 20)) /dev/urandom >"$src"
want=$(sha256sum "$src" | cut -d' ' -f1)
sb_send_file a b "$port" "$src" "$dst"
secs=$SB_XFER_SECS
got=$(sha256sum "$dst" | cut -d' ' -f1)
info "sent $size_mib MiB in $secs s ($(calc "$size_mib * 8 * 1.048576 / $secs") Mbit/s)"
info "sha256 sent $want, received $got"
[[ $got == "$want" ]] || fail "file arrived different"

# Stop seqbond so that both exit reports reach the logs.
sb_down
# report HOST NAME: a counter from HOST's exit report.
report() {
	awk -v n="$2" '$1 == n {v = $2} END {print (v == "" ? "MISSING" : v)}' \
		"$SEQBOND_TESTBED_DIR/$1.log"
}
for h in a b; do
	for c in exc_rx_gso exc_rx_gso_frames exc_tx_gro exc_tx_gro_frames exc_rx_bad_hdr \
		exc_rx_gso_fail exc_tx_csum_bad exc_tx_errors exc_too_big tx_too_big; do
		info "$h: $c $(report "$h" "$c")"
	done
	grep -q "all [0-9]* mbufs back in the pool" "$SEQBOND_TESTBED_DIR/$h.log" ||
		fail "host $h: not every mbuf came back (see its log)"
	for c in exc_rx_bad_hdr exc_rx_gso_fail exc_tx_csum_bad exc_too_big tx_too_big; do
		[[ $(report "$h" "$c") == 0 ]] || fail "host $h: $c is $(report "$h" "$c")"
	done
done
(($(report a exc_rx_gso) > 0)) || fail "a's kernel handed over no large segment"
(($(report b exc_tx_gro) > 0)) || fail "nothing merged towards b's kernel"
info "PASS"
