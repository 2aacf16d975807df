# shellcheck shell=bash
# seqbond-testbed carrier-up faults: cut/heal and cut-switch/heal-switch (nftables rules).
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

# nft_in NS ARGS...: nft in a namespace.
nft_in() {
	local ns=$1
	shift
	ip netns exec "$ns" nft "$@"
}

# CUT_SINK: in the direct topology a cut frame is not dropped but forwarded (nft fwd) to this
# ifb device, kept down, which discards it. An nft `drop` at the egress hook hands -EPERM back
# to the sending socket, and af_packet's tx ring (tpacket_snd) then leaves that frame queued
# and sends it again at every kick: one cut frame would block the port's whole ring (seen:
# 333 drops for 20 frames, and the hellos behind them stuck until the path went down). A
# forwarded frame counts as sent, like a frame lost on the wire.
CUT_SINK=cutsink

# bridge_chain_script: nft -f lines creating our table and its bridge forward chain (no-ops
# when they exist).
bridge_chain_script() {
	echo "add table bridge $NFT_TABLE"
	echo "add chain bridge $NFT_TABLE forward { type filter hook forward priority 0; policy accept; }"
}

# cut_rule NS FAMILY CHAIN MATCH COMMENT: add one counted drop rule.
cut_rule() {
	local ns=$1 fam=$2 chain=$3 match=$4 comment=$5 verdict=drop
	if [[ $fam == netdev ]]; then
		ip -n "$ns" link show "$CUT_SINK" >/dev/null 2>&1 ||
			ip -n "$ns" link add "$CUT_SINK" type ifb
		# shellcheck disable=SC2089 # the quotes are nft's: it re-parses its arguments
		verdict="fwd to \"$CUT_SINK\""
	fi
	# shellcheck disable=SC2086,SC2090 # MATCH and the verdict are nft words, split on purpose
	nft_in "$ns" add rule "$fam" "$NFT_TABLE" "$chain" $match counter $verdict \
		comment "\"$comment\""
}

# nft_rules NS FAMILY: "chain handle comment" for every rule of our table.
nft_rules() {
	nft_in "$1" -a list table "$2" "$NFT_TABLE" 2>/dev/null | awk '
		/^[ \t]*chain / { chain = $2 }
		/comment "/ && /# handle / {
			c = $0; sub(/.*comment "/, "", c); sub(/".*/, "", c)
			h = $0; sub(/.*# handle /, "", h)
			print chain, h, c
		}'
}

# nft_tidy NS FAMILY: remove chains without rules, and the table when empty, so that a healed
# testbed has no hooks left (netdev egress chains cost every frame of their device).
# (Listings are read whole before they are tested: `nft ... | grep -q` under pipefail fails
# when grep stops reading early, which would look like an empty chain.)
nft_tidy() {
	local ns=$1 fam=$2 chain list
	list=$(nft_in "$ns" list table "$fam" "$NFT_TABLE" 2>/dev/null) || return 0
	for chain in $(awk '/^[ \t]*chain / {print $2}' <<<"$list"); do
		list=$(nft_in "$ns" list chain "$fam" "$NFT_TABLE" "$chain")
		[[ $list == *counter* ]] ||
			nft_in "$ns" delete chain "$fam" "$NFT_TABLE" "$chain" 2>/dev/null || true
	done
	list=$(nft_in "$ns" list table "$fam" "$NFT_TABLE")
	[[ $list =~ [[:space:]]chain\  ]] ||
		nft_in "$ns" delete table "$fam" "$NFT_TABLE" 2>/dev/null || true
}

cmd_cut() {
	no_memif cut
	(($# >= 2)) || die "usage: cut HOST IDX [--to PEER] [--dir out|in|both] [--over BYTES] [--loss PCT]"
	local h=$1 idx=$2 to="" dir=both over="" loss=""
	shift 2
	while (($#)); do
		case $1 in
		--to) to=${2:?}; shift 2 ;;
		--dir) dir=${2:?}; shift 2 ;;
		--over) over=${2:?}; shift 2 ;;
		--loss) loss=${2:?}; shift 2 ;;
		*) die "cut: unknown option '$1'" ;;
		esac
	done
	need_root
	command -v nft >/dev/null || die "cut: nft not found (apt-get install nftables)"
	load_topology
	check_host_port "$h" "$idx" cut
	local k=$HK x X s d
	x=$h
	X=${x^^}
	[[ -z $over ]] || want_range "$over" 0 65535 "cut: --over takes bytes (0..65535)"
	local lossm=""
	if [[ -n $loss ]]; then
		pct_ok "$loss" || die "cut: --loss takes a percentage (0..100)"
		lossm="numgen random mod 10000 < $(awk -v p="$loss" 'BEGIN { printf "%d", p * 100 + 0.5 }')"
	fi
	local peer_devs=() pk=0
	if [[ -n $to ]]; then
		pk=$(host_index "$to")
		((pk <= TB_HOSTS && pk != k)) || die "cut: --to must be another host of the testbed"
	fi
	local comment="cut $x $idx"
	local dirs
	dirs=$(dirs_of "$dir")
	if [[ $TB_TOPO == direct ]]; then
		# No switch: drop at the sending end's netdev egress hook (see the header).
		local lenm=""
		[[ -z $over ]] || lenm="meta length > $((over + 14))"
		for d in $dirs; do
			dir_ends "$k" "$idx" "$d"
			local chain=egress_$DE_TXDEV
			nft_in "$DE_TXNS" add table netdev "$NFT_TABLE"
			nft_in "$DE_TXNS" add chain netdev "$NFT_TABLE" "$chain" \
				"{ type filter hook egress device \"$DE_TXDEV\" priority 0; policy accept; }"
			cut_rule "$DE_TXNS" netdev "$chain" "$lenm $lossm" \
				"$comment $d${to:+ to $to}${over:+ over $over}${loss:+ loss $loss}"
		done
	else
		s=$((idx % TB_SWITCHES))
		if ((pk)); then
			local p
			for p in $(port_list_on_switch "$pk" "$s"); do
				peer_devs+=("\"sw${to^^}$p\"")
			done
			((${#peer_devs[@]})) || die "cut: host $to has no port on switch $s"
		fi
		local peerset=""
		((${#peer_devs[@]} == 0)) || peerset="{ $(
			IFS=,
			echo "${peer_devs[*]}"
		) }"
		local lenm=""
		[[ -z $over ]] || lenm="meta length > $over"
		# One nft run for the table, the chain and both directions' rules: under load every
		# process start costs (bench/cluster.py's port cut took 2.4 s with four).
		local script
		script=$(bridge_chain_script)
		for d in $dirs; do
			local m
			if [[ $d == out ]]; then
				m="iifname \"sw$X$idx\"${peerset:+ oifname $peerset}"
			else
				m="oifname \"sw$X$idx\"${peerset:+ iifname $peerset}"
			fi
			script+=$'\n'"add rule bridge $NFT_TABLE forward $m $lenm $lossm counter drop comment \"$comment $d${to:+ to $to}${over:+ over $over}${loss:+ loss $loss}\""
		done
		nft_in "$NS-sw" -f - <<<"$script"
	fi
	note "cut: host $x port $idx, $dir${to:+ to $to}${over:+, frames over $over bytes}${loss:+, $loss % at random}"
}

# cut_namespaces: where cut rules can be: "NS FAMILY" lines.
cut_namespaces() {
	local k
	if [[ $TB_TOPO == direct ]]; then
		for ((k = 1; k <= TB_HOSTS; k++)); do echo "$NS-$(host_letter "$k") netdev"; done
	else
		echo "$NS-sw bridge"
	fi
}

cmd_heal() {
	no_memif heal
	(($# == 2)) || die "usage: heal HOST IDX"
	local h=$1 idx=$2 ns fam chain handle comment n=0
	need_root
	command -v nft >/dev/null || die "heal: nft not found (apt-get install nftables)"
	load_topology
	check_host_port "$h" "$idx" heal
	while read -r ns fam; do
		while read -r chain handle comment; do
			[[ $comment == "cut $h $idx "* ]] || continue
			nft_in "$ns" delete rule "$fam" "$NFT_TABLE" "$chain" handle "$handle"
			n=$((n + 1))
		done < <(nft_rules "$ns" "$fam")
		nft_tidy "$ns" "$fam"
	done < <(cut_namespaces)
	note "heal: host $h port $idx: $n rule(s) removed"
}

cmd_cut_switch() {
	no_memif cut-switch
	(($# == 1)) || die "usage: cut-switch S"
	need_root
	command -v nft >/dev/null || die "cut-switch: nft not found (apt-get install nftables)"
	check_switch "$1" cut-switch
	# One rule for the whole bridge (every port of it), so the module fails at one instant
	# for every host. (`meta ibrname` would say it shorter; this kernel refuses it here.)
	# No subshell per port: under a 16 -> 1 load on 2 cores each fork took about 70 ms, and
	# the command 5.6 s (bench/cluster.py's failover run, 2026-12-02).
	local k i u devs=()
	for ((k = 1; k <= TB_HOSTS; k++)); do
		u=${LETTERS:$((k - 1)):1}
		for ((i = $1; i < TB_PORTS[k]; i += TB_SWITCHES)); do
			devs+=("\"sw${u^^}$i\"")
		done
	done
	((${#devs[@]})) || die "cut-switch: no port on switch $1"
	# Table, chain and rule in one nft run (see cmd_cut).
	nft_in "$NS-sw" -f - <<<"$(bridge_chain_script)
add rule bridge $NFT_TABLE forward iifname { $(IFS=,; echo "${devs[*]}") } counter drop comment \"cut switch $1\""
	note "cut-switch: switch $1 (br$1) forwards nothing, carriers up"
}

cmd_heal_switch() {
	no_memif heal-switch
	(($# == 1)) || die "usage: heal-switch S"
	local chain handle comment n=0
	need_root
	check_switch "$1" heal-switch
	while read -r chain handle comment; do
		[[ $comment == "cut switch $1" ]] || continue
		nft_in "$NS-sw" delete rule bridge "$NFT_TABLE" "$chain" handle "$handle"
		n=$((n + 1))
	done < <(nft_rules "$NS-sw" bridge)
	nft_tidy "$NS-sw" bridge
	note "heal-switch: switch $1: $n rule(s) removed"
}
