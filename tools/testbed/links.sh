# shellcheck shell=bash
# seqbond-testbed links: tbf shaping, the veth plumbing of both topologies, attach/detach,
# carrier on/off (`link`).
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

# tbf_args RATE_MBIT MTU: shaper for one link direction.
# burst: the larger of 1 ms at the link rate (R*125 bytes) and 10 full frames (10*(MTU+14)).
#   It must hold at least one frame, and a bucket a few frames deep lets the shaper run at rate
#   despite timer slack (15140 bytes at 100 Mbit/s and MTU 1500; 12.5 kB per ms above 121 Mbit/s).
#   It stays small next to the queue so the link rate, not the bucket, decides what TCP sees.
# latency 20ms: the queue in front of the bucket holds 20 ms at rate (250 kB at 100 Mbit/s),
#   about what a switch port buffers; beyond that tbf drops, like a real link.
tbf_args() {
	local rate=$1 mtu=$2 burst frame_burst
	burst=$((rate * 125))
	frame_burst=$((10 * (mtu + 14)))
	((burst >= frame_burst)) || burst=$frame_burst
	echo "rate ${rate}mbit burst ${burst} latency 20ms"
}

# setup_port NS IF MTU RATE: MTU, offloads off, tbf, up.
setup_port() {
	local ns=$1 ifc=$2 mtu=$3 rate=$4
	ip -n "$ns" link set "$ifc" mtu "$mtu"
	ip netns exec "$ns" ethtool -K "$ifc" gro off gso off tso off >/dev/null 2>&1 ||
		note "warning: could not turn off offloads on $ns/$ifc"
	# shellcheck disable=SC2046 # tbf_args is a word list on purpose
	tc -n "$ns" qdisc replace dev "$ifc" root tbf $(tbf_args "$rate" "$mtu")
	ip -n "$ns" link set "$ifc" up
}

# ---------------------------------------------------------------------------------------------
# plumbing

plumb_direct() {
	local i
	for ((i = 0; i < TB_LINKS; i++)); do
		ip link add "sbA$i" netns "$NS-a" type veth peer name "sbB$i" netns "$NS-b"
		setup_port "$NS-a" "sbA$i" "$TB_MTU" "${TB_RATES[i]}"
		setup_port "$NS-b" "sbB$i" "$TB_MTU" "${TB_RATES[i]}"
	done
}

# plumb_switch: bridges in sb-sw and one veth per host port, configured in batches (one ip
# and one tc run per namespace instead of several per port: 17 hosts have 104 ports).
plumb_switch() {
	local tmp k i s x X ns
	tmp=$(mktemp -d /tmp/seqbond-testbed-plumb.XXXXXX)
	# shellcheck disable=SC2064 # expand now
	trap "rm -rf '$tmp'" RETURN
	new_ns "$NS-sw"
	for ((s = 0; s < TB_SWITCHES; s++)); do
		echo "link add br$s type bridge forward_delay 0 stp_state 0 mcast_snooping 0"
		echo "link set dev br$s up"
	done >"$tmp/sw.ip1"
	: >"$tmp/root.ip"
	: >"$tmp/sw.ip2"
	: >"$tmp/sw.tc"
	: >"$tmp/sw.dev"
	for ((k = 1; k <= TB_HOSTS; k++)); do
		x=$(host_letter "$k")
		X=${x^^}
		: >"$tmp/$x.ip"
		: >"$tmp/$x.tc"
		: >"$tmp/$x.dev"
		for ((i = 0; i < TB_PORTS[k]; i++)); do
			s=$((i % TB_SWITCHES))
			echo "link add sb$X$i netns $NS-$x type veth peer name sw$X$i netns $NS-sw" \
				>>"$tmp/root.ip"
			echo "link set dev sb$X$i mtu $TB_MTU" >>"$tmp/$x.ip"
			echo "qdisc replace dev sb$X$i root tbf $(tbf_args "${TB_RATES[s]}" "$TB_MTU")" \
				>>"$tmp/$x.tc"
			echo "sb$X$i" >>"$tmp/$x.dev"
			{
				echo "link set dev sw$X$i master br$s"
				echo "link set dev sw$X$i mtu $TB_MTU"
			} >>"$tmp/sw.ip2"
			echo "qdisc replace dev sw$X$i root tbf $(tbf_args "${TB_RATES[s]}" "$TB_MTU")" \
				>>"$tmp/sw.tc"
			echo "sw$X$i" >>"$tmp/sw.dev"
		done
	done
	ip -n "$NS-sw" -batch "$tmp/sw.ip1"
	ip -batch "$tmp/root.ip"
	for ns in sw $(for ((k = 1; k <= TB_HOSTS; k++)); do host_letter "$k"; done); do
		[[ $ns == sw ]] && cat "$tmp/sw.ip2" >"$tmp/$ns.ip"
		sed 's/^/link set dev /; s/$/ up/' "$tmp/$ns.dev" >>"$tmp/$ns.ip"
		# Offloads off before the ports come up; ethtool has no batch mode, but one shell
		# per namespace saves a namespace switch per port.
		# shellcheck disable=SC2016,SC2046 # $d is the inner shell's; one word per device
		ip netns exec "$NS-$ns" sh -c 'for d; do
			ethtool -K "$d" gro off gso off tso off >/dev/null 2>&1 ||
				echo "'"$PROG"': warning: could not turn off offloads on $d" >&2
			done' sh $(cat "$tmp/$ns.dev")
		tc -n "$NS-$ns" -batch "$tmp/$ns.tc"
		ip -n "$NS-$ns" -batch "$tmp/$ns.ip"
	done
}

# attach S: one more port on switch S for a host that is not the testbed's (a forger or a
# sniffer on the switch, a second seqbond started by hand): veth ev<S> in namespace $NS-ev,
# its other end swev<S> a port of br<S>, shaped and sized like the switch's host ports.
# Prints the interface's name.
cmd_attach() {
	no_memif attach
	(($# == 1)) || die "usage: attach S"
	need_root
	check_switch "$1" attach
	local s=$1 ns=$NS-ev dev=ev$1
	ns_exists "$ns" || new_ns "$ns"
	! ip -n "$ns" link show "$dev" >/dev/null 2>&1 || die "attach: switch $s has $dev already"
	ip link add "$dev" netns "$ns" type veth peer name "swev$s" netns "$NS-sw"
	ip -n "$NS-sw" link set "swev$s" master "br$s"
	setup_port "$NS-sw" "swev$s" "$TB_MTU" "${TB_RATES[s]}"
	setup_port "$ns" "$dev" "$TB_MTU" "${TB_RATES[s]}"
	note "attach: $ns $dev ($(ip netns exec "$ns" cat "/sys/class/net/$dev/address")) on switch $s"
	echo "$dev"
}

cmd_detach() {
	(($# == 1)) || die "usage: detach S"
	need_root
	check_switch "$1" detach
	ip -n "$NS-ev" link show "ev$1" >/dev/null 2>&1 || die "detach: switch $1 has no attached port"
	ip -n "$NS-ev" link del "ev$1"
	note "detach: ev$1 removed from switch $1"
}

cmd_link() {
	no_memif link
	(($# == 3)) || die "usage: link HOST INDEX down|up"
	local h=$1 idx=$2 st=$3
	need_root
	load_topology
	check_host_port "$h" "$idx" link
	[[ $st == up || $st == down ]] || die "link: state must be up or down"
	ip -n "$NS-$h" link set "sb${h^^}$idx" "$st"
}
