# shellcheck shell=bash
# seqbond-testbed `up` and `down`.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

up_failed() {
	local x f
	note "up FAILED: $*"
	for f in "$STATE"/*.log; do
		[[ -f $f ]] || continue
		x=$(basename "$f" .log)
		echo "----- host $x: $f (last 30 lines) -----" >&2
		tail -n 30 "$f" >&2
	done
	note "the testbed is left as it is for inspection; '$PROG down' removes it"
	exit 1
}

cmd_up() {
	local hosts=2 links=4 rate_arg=100 mtu=1500 sched=edpf huge=0 switches="" ports_arg=""
	local preset="" delay_arg=0 jitter_arg=0 loss_arg=0 mem="" exc=tap-vnet ptype=af_packet
	local key=1
	local timeout=${SEQBOND_TESTBED_TIMEOUT:-}
	local given_topo=0
	while (($#)); do
		case $1 in
		--hosts) hosts=${2:?}; given_topo=1; shift 2 ;;
		--links) links=${2:?}; given_topo=1; shift 2 ;;
		--switches) switches=${2:?}; shift 2 ;;
		--ports) ports_arg=${2:?}; shift 2 ;;
		--preset) preset=${2:?}; shift 2 ;;
		--rate) rate_arg=${2:?}; shift 2 ;;
		--delay) delay_arg=${2:?}; shift 2 ;;
		--jitter) jitter_arg=${2:?}; shift 2 ;;
		--loss) loss_arg=${2:?}; shift 2 ;;
		--mtu) mtu=${2:?}; shift 2 ;;
		--mem) mem=${2:?}; shift 2 ;;
		--scheduler) sched=${2:?}; shift 2 ;;
		--huge) huge=1; shift ;;
		--exception) exc=${2:?}; shift 2 ;;
		--port-type) ptype=${2:?}; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--no-key) key=0; shift ;;
		--config-extra)
			[[ ${2:?} =~ ^[a-z_]+\ *=\ *[^\ ].*$ ]] ||
				die "up: --config-extra takes 'key = value'"
			CONFIG_EXTRA+=("$2")
			shift 2
			;;
		*) die "up: unknown option '$1'" ;;
		esac
	done
	case $preset in
	"") ;;
	bladecentre)
		if ((given_topo)) || [[ -n $switches || -n $ports_arg ]]; then
			die "up: --preset bladecentre sets --hosts, --links, --switches and --ports itself"
		fi
		hosts=17 links=6 switches=6 ports_arg=q=8
		;;
	*) die "up: unknown preset '$preset' (known: bladecentre)" ;;
	esac
	want_range "$hosts" 2 26 "up: --hosts must be 2..26"
	want_range "$links" 1 64 "up: --links must be 1..64"
	want_range "$mtu" 576 9600 "up: --mtu must be 576..9600"
	[[ -z $mem ]] || want_range "$mem" 64 65536 "up: --mem takes MB (64..65536)"
	case $sched in rr | drr | edpf) ;; *) die "up: --scheduler must be rr, drr or edpf" ;; esac
	case $exc in
	tap | tap-vnet | virtio-user | auto) ;;
	*) die "up: --exception must be tap, tap-vnet, virtio-user or auto" ;;
	esac
	case $ptype in
	af_packet) ;;
	af_xdp) ((mtu <= 3000)) || die "up: --port-type af_xdp takes --mtu up to 3000 (XDP on veth)" ;;
	*) die "up: --port-type must be af_packet or af_xdp" ;;
	esac
	local topo=switch
	[[ $hosts == 2 && -z $switches && -z $ports_arg ]] && topo=direct
	[[ -n $switches ]] || switches=$links
	want_range "$switches" 1 64 "up: --switches must be 1..64"

	# Per-host port counts.
	local -a ports
	local k spec l c
	for ((k = 1; k <= hosts; k++)); do ports[k]=$links; done
	if [[ -n $ports_arg ]]; then
		local -a specs
		IFS=, read -r -a specs <<<"$ports_arg"
		for spec in "${specs[@]}"; do
			[[ $spec =~ ^([a-z])=([0-9]+)$ ]] || die "up: --ports takes HOST=COUNT[,HOST=COUNT...], not '$spec'"
			l=${BASH_REMATCH[1]}
			c=${BASH_REMATCH[2]}
			k=$(host_index "$l")
			((k <= hosts)) || die "up: --ports names host $l, but there are $hosts hosts"
			want_range "$c" 1 64 "up: --ports $l=$c: a host has 1..64 ports"
			ports[k]=$c
		done
	fi

	# Per-switch values: one for all, or one per switch.
	local -a rates delays jitters losses
	per_switch() {
		local name=$1 arg=$2 check=$3 one i
		local -a v
		IFS=, read -r -a v <<<"$arg"
		for one in "${v[@]}"; do
			"$check" "$one" || die "up: bad $name '$one'"
		done
		if ((${#v[@]} == 1)); then
			for ((i = 1; i < switches; i++)); do v+=("${v[0]}"); done
		elif ((${#v[@]} != switches)); then
			die "up: $name has ${#v[@]} values for $switches $( [[ $topo == direct ]] && echo links || echo switches) (give 1 or $switches)"
		fi
		echo "${v[*]}"
	}
	local r
	r=$(per_switch --rate "$rate_arg" rate_ok) || exit 1
	read -r -a rates <<<"$r"
	r=$(per_switch --delay "$delay_arg" ms_ok) || exit 1
	read -r -a delays <<<"$r"
	r=$(per_switch --jitter "$jitter_arg" ms_ok) || exit 1
	read -r -a jitters <<<"$r"
	r=$(per_switch --loss "$loss_arg" pct_ok) || exit 1
	read -r -a losses <<<"$r"
	need_root
	[[ -x $SEQBOND_BIN ]] || die "seqbond binary not found at $SEQBOND_BIN (build it, or set SEQBOND_BIN)"
	if [[ -z $timeout ]]; then
		timeout=20
		((hosts <= 8)) || timeout=$((20 + hosts - 8))
	fi
	is_uint "$timeout" || die "up: --timeout must be whole seconds"
	local emu_needed=0 s
	for ((s = 0; s < switches; s++)); do
		[[ ${delays[s]} =~ ^0*(\.0*)?$ && ${jitters[s]} =~ ^0*(\.0*)?$ &&
			${losses[s]} =~ ^0*(\.0*)?$ ]] || emu_needed=1
	done
	((emu_needed == 0)) || find_linkemu

	local t0
	t0=$(now_s)
	# up replaces whatever testbed was there.
	cmd_down >/dev/null 2>&1 || true
	mkdir -p "$STATE"
	rm -f "$STATE"/*.log
	rm -rf "$STATE/emu" "$STATE/shape"
	{
		echo "hosts=$hosts"
		echo "links=$links"
		echo "rates=${rates[*]}"
		echo "mtu=$mtu"
		echo "scheduler=$sched"
		echo "exception=$exc"
		echo "port_type=$ptype"
		echo "topology=$topo"
		echo "switches=$switches"
		echo "ports=${ports[*]}"
		echo "delays=${delays[*]}"
		echo "jitters=${jitters[*]}"
		echo "losses=${losses[*]}"
		echo "preset=$preset"
		echo "key=$( ((key)) && echo on || echo off)"
	} >"$STATE/testbed.env"
	load_topology

	local x i rsum
	for ((k = 1; k <= hosts; k++)); do
		new_ns "$NS-$(host_letter "$k")"
	done
	if [[ $topo == direct ]]; then
		plumb_direct
	else
		plumb_switch
	fi
	# Delay lines of `--delay/--jitter/--loss`: every host port's outgoing direction.
	if ((emu_needed)); then
		for ((s = 0; s < switches; s++)); do
			local dus jus
			dus=$(ms_to_us "${delays[s]}")
			jus=$(ms_to_us "${jitters[s]}")
			[[ $dus == 0 && $jus == 0 ]] && awk -v l="${losses[s]}" 'BEGIN { exit !(l == 0) }' &&
				continue
			for ((k = 1; k <= hosts; k++)); do
				for i in $(port_list_on_switch "$k" "$s"); do
					shape_dir "$k" "$i" out "${rates[s]}" "$dus" "$jus" "${losses[s]}"
				done
			done
		done
	fi
	local t_plumb
	t_plumb=$(elapsed "$t0")

	# The cluster key of this testbed: new for every `up`, private to root.
	local keyfile=""
	if ((key)); then
		keyfile=$STATE/cluster.key
		(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$keyfile" &&
			echo >>"$keyfile") || die "up: cannot write the cluster key $keyfile"
	fi
	# Start seqbond on every host.
	((huge)) && ensure_hugepages "$hosts"
	for ((k = 1; k <= hosts; k++)); do
		x=$(host_letter "$k")
		write_config "$k" "$hosts" "${ports[k]}" "$switches" "$mtu" "$sched" "$exc" "$ptype" \
			"$keyfile" "${rates[@]}" >"$STATE/$x.ini"
		rsum=0
		for ((i = 0; i < ports[k]; i++)); do
			rsum=$((rsum + ${rates[i % switches]%.*}))
		done
		save_seqbond_cmd "$k" "$huge" "${mem:-$(eal_mem_mb "${ports[k]}" "$mtu" "$rsum")}"
		start_seqbond "$k"
	done

	# sb0 appears when seqbond has created its exception path: address it and bring it up.
	local deadline=$((SECONDS + timeout)) ok n
	for ((k = 1; k <= hosts; k++)); do
		wait_sb0 "$k" "$deadline" up_failed
		sb0_address_v4 "$k"
	done
	local t_sb0
	t_sb0=$(elapsed "$t0")

	# Every host must see every path: each (own port, peer port) pair on a shared switch.
	local -a want
	local total=0
	for ((k = 1; k <= hosts; k++)); do
		want[k]=$(expected_paths "$k")
		total=$((total + want[k]))
	done
	while :; do
		ok=1
		for ((k = 1; k <= hosts; k++)); do
			x=$(host_letter "$k")
			pid_is_seqbond "$(cat "$STATE/$x.pid")" || up_failed "seqbond on host $x exited"
			n=$(count_paths_now "$STATE/$x.log")
			((n >= want[k])) || ok=0
		done
		((ok)) && break
		if ((SECONDS >= deadline)); then
			local missing=""
			for ((k = 1; k <= hosts; k++)); do
				x=$(host_letter "$k")
				n=$(count_paths_now "$STATE/$x.log")
				((n >= want[k])) || missing+=" $x:$n/${want[k]}"
			done
			up_failed "not all paths came up within ${timeout}s (host:seen/expected$missing)"
		fi
		sleep 0.2
	done
	local t_paths
	t_paths=$(elapsed "$t0")

	# IPv6 on sb0 once the paths are up, so that duplicate address detection really asks
	# every peer; up returns when DAD is over on every host.
	for ((k = 1; k <= hosts; k++)); do
		sb0_enable_v6 "$k"
	done
	wait_dad "$((SECONDS + timeout))" up_failed $(seq "$hosts")

	local desc want_desc
	if [[ $topo == direct ]]; then
		desc="$links links (${rates[*]} Mbit/s)"
		want_desc="${want[1]} paths up per host"
	else
		desc="$switches switches (${rates[*]} Mbit/s), ports ${ports[*]}"
		if [[ -z $ports_arg ]]; then
			desc="$links links, $desc"
			want_desc="${want[1]} paths up per host"
		else
			want_desc="$total paths up in all (per host: ${want[*]:1})"
		fi
	fi
	[[ -z $preset ]] || desc="preset $preset (gateway q), $desc"
	((emu_needed == 0)) || desc+=", delay ${delays[*]} ms, jitter ${jitters[*]} ms, loss ${losses[*]} %"
	note "up: $hosts hosts, $desc, mtu $mtu, scheduler $sched, exception $exc," \
		"$( ((key)) && echo "cluster key $STATE/cluster.key" || echo "no cluster key");" \
		"$want_desc; sb0 = $SUBNET.1..$SUBNET.$hosts, $SUBNET6:1..$SUBNET6:$hosts;" \
		"ready in $(elapsed "$t0") s (links ${t_plumb} s, sb0 ${t_sb0} s, paths ${t_paths} s)"
}

cmd_down() {
	need_root
	local f pid i
	# seqbond first, politely, so that its final counters reach the log.
	for f in "$STATE"/*.pid; do
		[[ -f $f ]] || continue
		pid=$(cat "$f")
		if pid_is_seqbond "$pid"; then
			kill -CONT "$pid" 2>/dev/null || true
			kill -TERM "$pid" 2>/dev/null || true
		fi
	done
	for f in "$STATE"/*.pid; do
		[[ -f $f ]] || continue
		pid=$(cat "$f")
		for ((i = 0; i < 50; i++)); do
			pid_is_seqbond "$pid" || break
			sleep 0.1
		done
		if pid_is_seqbond "$pid"; then
			note "seqbond pid $pid ignored SIGTERM for 5 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$f"
	done
	# Delay lines print their statistics to their logs on SIGTERM (del_ns sends it).
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns =~ ^$NS-([a-z]|sw|dl|ev|ba|bb|bl)$ ]] && del_ns "$ns"
	done
	rm -f "$STATE"/emu/*.pid 2>/dev/null || true
	# DPDK runtime directories of our file prefixes ($NS-a, $NS-b, ...).
	rm -rf "/var/run/dpdk/$NS-"*
	rm -f "$STATE/testbed.env" "$STATE"/*.ini "$STATE"/*.cmd "$STATE"/nstat.* "$STATE"/*.sock
	rm -f "$STATE/cluster.key"
	rm -rf "$STATE/shape"
	# Logs (and the delay lines' logs in emu/) stay for post-mortems until the next `up`.
	true
}
