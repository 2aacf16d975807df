#!/usr/bin/env bash
# sb0's MTU is the ports' MTU less seqbond's 10-byte shim (34 with the cluster key's
# authentication header), capped at 1500 by the TAP PMD of
# DPDK 22.11 (docs/design.md; no cap below 9600 for the other exception path types); a
# don't-fragment ping of exactly that size crosses, one byte more is refused locally ("message
# too long"). Checked with 1500- and 9000-byte ports.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

tap_max_mtu=1500
[[ $SB_EXCEPTION == tap ]] || tap_max_mtu=9600
for port_mtu in 1500 9000; do
	sb_up --links 4 --rate 100 --mtu "$port_mtu"
	want=$((port_mtu - $(sb_overhead)))
	((want <= tap_max_mtu)) || want=$tap_max_mtu
	for h in a b; do
		mtu=$(sb_mtu "$h")
		info "ports mtu $port_mtu: sb0 mtu on $h is $mtu"
		[[ $mtu == "$want" ]] || fail "sb0 mtu on $h is $mtu, expected $want"
	done
	sb_pmtu_check "$want" " (sb0 mtu $want)"
	info "ping -M do -s $((want - 28 + 1)): refused locally:" \
		"$(grep -i 'message too long' <<<"$SB_PMTU_OUT" | head -n 1)"
	sb_down
done
info "PASS"
