# shellcheck shell=bash
# seqbond-testbed `status` and `exec`.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

cmd_status() {
	local ns k x pid n d
	echo "namespaces: $(ip netns list 2>/dev/null | awk -v p="^$NS-" '$1 ~ p {print $1}' | xargs)"
	if [[ ! -f $STATE/testbed.env ]]; then
		echo "testbed: down"
		return 0
	fi
	echo "testbed: hosts=$(state_get hosts) links=$(state_get links)" \
		"rates=[$(state_get rates)] mtu=$(state_get mtu) scheduler=$(state_get scheduler)" \
		"exception=$(state_get exception) ports=$(state_get port_type) key=$(state_get key)"
	load_topology
	echo "topology: $TB_TOPO, switches=$TB_SWITCHES, ports per host [${TB_PORTS[*]:1}]" \
		"$([[ -z $(state_get preset) ]] || echo "preset $(state_get preset) (gateway q)")"
	for ((k = 1; k <= TB_HOSTS; k++)); do
		x=$(host_letter "$k")
		pid=$(cat "$STATE/$x.pid" 2>/dev/null || true)
		if pid_is_seqbond "$pid"; then
			pid="$pid alive"
			[[ $(awk '{print $3}' "/proc/${pid% *}/stat" 2>/dev/null) != T ]] || pid+=" (stopped)"
		else
			pid="${pid:-?} DEAD"
		fi
		n=$(count_path_up "$STATE/$x.log")
		d=$(grep -cE 'path [0-9]+ down' "$STATE/$x.log" 2>/dev/null || true)
		echo "host $x: seqbond pid $pid; 'path up' lines $n, 'path down' lines $d;" \
			"sb0 $(ip -n "$NS-$x" -br addr show sb0 2>/dev/null | awk '{$1 = ""; print}' | xargs || true)"
		grep -E 'path [0-9]+ (up|down)' "$STATE/$x.log" 2>/dev/null | tail -n 4 | sed 's/^/    /'
	done
	! ns_exists "$NS-ev" ||
		echo "attached ports ($NS-ev): $(ip -n "$NS-ev" -br link show type veth |
			awk '{ sub(/@.*/, "", $1); print $1 }' | xargs)"
	local fam rules
	while read -r ns fam; do
		ns_exists "$ns" || continue
		rules=$(nft_in "$ns" list table "$fam" "$NFT_TABLE" 2>/dev/null | grep 'comment' || true)
		[[ -z $rules ]] || { echo "cuts in $ns ($fam):"; sed 's/^[[:space:]]*/    /' <<<"$rules"; }
	done < <(cut_namespaces)
	local f id
	for f in "$STATE"/shape/*; do
		[[ -f $f ]] || continue
		id=${f##*/}
		echo "shaped $id: rate $(shape_get "$id" rate '?') Mbit/s, delay $(us_to_ms "$(shape_get "$id" delay_us 0)") ms," \
			"jitter $(us_to_ms "$(shape_get "$id" jitter_us 0)") ms, loss $(shape_get "$id" loss_pct 0) %" \
			"$(emu_alive "$id" && echo "(delay line pid $(emu_pid "$id"))")"
	done
}

cmd_exec() {
	(($# >= 2)) || die "usage: exec HOST CMD..."
	local h=$1
	shift
	need_root
	if [[ $h == sw || $h == dl || $h == ev ]]; then
		exec ip netns exec "$NS-$h" "$@"
	fi
	host_index "$h" >/dev/null
	exec ip netns exec "$NS-$h" "$@"
}
