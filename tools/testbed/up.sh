# shellcheck shell=bash
# seqbond-testbed `up` (its steps) and `down`.
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

# The steps of `up`, in the order cmd_up takes them. They share the options (UP_*, from
# options.sh) and what the steps derive: UP_EMU (some link has delay, jitter or loss),
# UP_KEYFILE, UP_DEADLINE (SECONDS value by which sb0 and the paths must be up), UP_WANT[k]
# (paths host k must see) and UP_TOTAL.
UP_EMU=0 UP_KEYFILE="" UP_DEADLINE=0 UP_TOTAL=0
UP_WANT=()

# up_prepare: what `up` needs before it touches anything: root, the binary, the timeout
# (default 20 s, 1 s more per host above 8), linkemu if a link has delay, jitter or loss.
up_prepare() {
	local s
	need_root
	[[ -x $SEQBOND_BIN ]] || die "seqbond binary not found at $SEQBOND_BIN (build it, or set SEQBOND_BIN)"
	if [[ -z $UP_TIMEOUT ]]; then
		UP_TIMEOUT=20
		((UP_HOSTS <= 8)) || UP_TIMEOUT=$((20 + UP_HOSTS - 8))
	fi
	is_uint "$UP_TIMEOUT" || die "up: --timeout must be whole seconds"
	UP_EMU=0
	for ((s = 0; s < UP_SWITCHES; s++)); do
		[[ ${UP_DELAYS[s]} =~ ^0*(\.0*)?$ && ${UP_JITTERS[s]} =~ ^0*(\.0*)?$ &&
			${UP_LOSSES[s]} =~ ^0*(\.0*)?$ ]] || UP_EMU=1
	done
	((UP_EMU == 0)) || find_linkemu
	[[ $UP_PTYPE != memif ]] || up_prepare_memif
}

# up_prepare_memif: memif pairs link two hosts directly, unshaped: no switches, no delay
# lines; without --rate each port's rate_mbit is 10000 (a 10 GbE port: above what this
# machine's CPUs carry, so they are the limit; the pool seqbond sizes by rate still fits).
up_prepare_memif() {
	local s
	[[ $UP_TOPO == direct ]] ||
		die "up: --port-type memif links 2 hosts directly (no --hosts above 2, --switches, --ports or --preset)"
	((UP_EMU == 0)) || die "up: --port-type memif takes no --delay, --jitter or --loss (no kernel link to shape)"
	[[ -n ${UP_GIVEN[--rate]:-} ]] && return 0
	for ((s = 0; s < UP_SWITCHES; s++)); do UP_RATES[s]=10000; done
}

# up_write_state: the testbed that was there goes; the new one's state file.
up_write_state() {
	# up replaces whatever testbed was there.
	cmd_down >/dev/null 2>&1 || true
	mkdir -p "$STATE"
	rm -f "$STATE"/*.log
	rm -rf "$STATE/emu" "$STATE/shape"
	{
		echo "hosts=$UP_HOSTS"
		echo "links=$UP_LINKS"
		echo "rates=${UP_RATES[*]}"
		echo "mtu=$UP_MTU"
		echo "scheduler=$UP_SCHED"
		echo "exception=$UP_EXC"
		echo "port_type=$UP_PTYPE"
		echo "topology=$UP_TOPO"
		echo "switches=$UP_SWITCHES"
		echo "ports=${UP_PORTS[*]}"
		echo "delays=${UP_DELAYS[*]}"
		echo "jitters=${UP_JITTERS[*]}"
		echo "losses=${UP_LOSSES[*]}"
		echo "preset=$UP_PRESET"
		echo "key=$( ((UP_KEY)) && echo on || echo off)"
	} >"$STATE/testbed.env"
	load_topology
}

# up_plumb: the namespaces, the links of the topology, their delay lines.
up_plumb() {
	local k s i dus jus
	for ((k = 1; k <= UP_HOSTS; k++)); do
		new_ns "$NS-$(host_letter "$k")"
	done
	# memif: the links are shared memory between the two seqbond processes (write_config)
	[[ $UP_PTYPE != memif ]] || return 0
	if [[ $UP_TOPO == direct ]]; then
		plumb_direct
	else
		plumb_switch
	fi
	# Delay lines of `--delay/--jitter/--loss`: every host port's outgoing direction.
	((UP_EMU)) || return 0
	for ((s = 0; s < UP_SWITCHES; s++)); do
		dus=$(ms_to_us "${UP_DELAYS[s]}")
		jus=$(ms_to_us "${UP_JITTERS[s]}")
		[[ $dus == 0 && $jus == 0 ]] && awk -v l="${UP_LOSSES[s]}" 'BEGIN { exit !(l == 0) }' &&
			continue
		for ((k = 1; k <= UP_HOSTS; k++)); do
			for i in $(port_list_on_switch "$k" "$s"); do
				shape_dir "$k" "$i" out "${UP_RATES[s]}" "$dus" "$jus" "${UP_LOSSES[s]}"
			done
		done
	done
}

# up_make_key: the cluster key of this testbed (UP_KEYFILE): new for every `up`, private to
# root; none with --no-key.
up_make_key() {
	UP_KEYFILE=""
	((UP_KEY)) || return 0
	UP_KEYFILE=$STATE/cluster.key
	(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$UP_KEYFILE" &&
		echo >>"$UP_KEYFILE") || die "up: cannot write the cluster key $UP_KEYFILE"
}

# up_start_hosts: each host's config and command line, and its seqbond started.
up_start_hosts() {
	local k x i rsum total=0
	local -a mem
	for ((k = 1; k <= UP_HOSTS; k++)); do
		rsum=0
		for ((i = 0; i < UP_PORTS[k]; i++)); do
			rsum=$((rsum + ${UP_RATES[i % UP_SWITCHES]%.*}))
		done
		mem[k]=${UP_MEM:-$(eal_mem_mb "${UP_PORTS[k]}" "$UP_MTU" "$rsum")}
		total=$((total + mem[k]))
	done
	((UP_HUGE)) && ensure_hugepages "$total"
	for ((k = 1; k <= UP_HOSTS; k++)); do
		x=$(host_letter "$k")
		write_config "$k" "$UP_HOSTS" "${UP_PORTS[k]}" "$UP_SWITCHES" "$UP_MTU" "$UP_SCHED" "$UP_EXC" "$UP_PTYPE" \
			"$UP_KEYFILE" "${UP_RATES[@]}" >"$STATE/$x.ini"
		save_seqbond_cmd "$k" "$UP_HUGE" "${mem[k]}"
		start_seqbond "$k"
		# memif: host b's ports connect to host a's socket, which must be there first
		((k > 1)) || [[ $UP_PTYPE != memif ]] || up_wait_memif_socket
	done
}

# up_wait_memif_socket: host a's memif socket, within the start-up timeout.
up_wait_memif_socket() {
	local t=$((SECONDS + UP_TIMEOUT))
	until [[ -S $STATE/memif.sock ]]; do
		((SECONDS < t)) || up_failed "host a made no memif socket $STATE/memif.sock in ${UP_TIMEOUT} s"
		pid_is_seqbond "$(cat "$STATE/a.pid" 2>/dev/null)" || up_failed "seqbond on host a exited"
		sleep 0.1
	done
}

# up_wait_sb0: sb0 appears when seqbond has created its exception path: address it and bring
# it up.
up_wait_sb0() {
	local k
	for ((k = 1; k <= UP_HOSTS; k++)); do
		wait_sb0 "$k" "$UP_DEADLINE" up_failed
		sb0_address_v4 "$k"
	done
}

# up_wait_paths: every host must see every path: each (own port, peer port) pair on a shared
# switch.
up_wait_paths() {
	local k x n ok missing
	UP_WANT=() UP_TOTAL=0
	for ((k = 1; k <= UP_HOSTS; k++)); do
		UP_WANT[k]=$(expected_paths "$k")
		UP_TOTAL=$((UP_TOTAL + UP_WANT[k]))
	done
	while :; do
		ok=1
		for ((k = 1; k <= UP_HOSTS; k++)); do
			x=$(host_letter "$k")
			pid_is_seqbond "$(cat "$STATE/$x.pid")" || up_failed "seqbond on host $x exited"
			n=$(count_paths_now "$STATE/$x.log")
			((n >= UP_WANT[k])) || ok=0
		done
		((ok)) && break
		if ((SECONDS >= UP_DEADLINE)); then
			missing=""
			for ((k = 1; k <= UP_HOSTS; k++)); do
				x=$(host_letter "$k")
				n=$(count_paths_now "$STATE/$x.log")
				((n >= UP_WANT[k])) || missing+=" $x:$n/${UP_WANT[k]}"
			done
			up_failed "not all paths came up within ${UP_TIMEOUT}s (host:seen/expected$missing)"
		fi
		sleep 0.2
	done
}

# up_enable_v6: IPv6 on sb0 once the paths are up, so that duplicate address detection really
# asks every peer; up returns when DAD is over on every host.
up_enable_v6() {
	local k
	for ((k = 1; k <= UP_HOSTS; k++)); do
		sb0_enable_v6 "$k"
	done
	wait_dad "$((SECONDS + UP_TIMEOUT))" up_failed $(seq "$UP_HOSTS")
}

# up_summary T0 T_PLUMB T_SB0 T_PATHS: the line `up` ends with.
up_summary() {
	local t0=$1 t_plumb=$2 t_sb0=$3 t_paths=$4 desc want_desc
	if [[ $UP_TOPO == direct ]]; then
		desc="$UP_LINKS links (${UP_RATES[*]} Mbit/s)"
		want_desc="${UP_WANT[1]} paths up per host"
	else
		desc="$UP_SWITCHES switches (${UP_RATES[*]} Mbit/s), ports ${UP_PORTS[*]}"
		if [[ -z $UP_PORTS_ARG ]]; then
			desc="$UP_LINKS links, $desc"
			want_desc="${UP_WANT[1]} paths up per host"
		else
			want_desc="$UP_TOTAL paths up in all (per host: ${UP_WANT[*]:1})"
		fi
	fi
	[[ -z $UP_PRESET ]] || desc="preset $UP_PRESET (gateway q), $desc"
	((UP_EMU == 0)) || desc+=", delay ${UP_DELAYS[*]} ms, jitter ${UP_JITTERS[*]} ms, loss ${UP_LOSSES[*]} %"
	note "up: $UP_HOSTS hosts, $desc, mtu $UP_MTU, scheduler $UP_SCHED, exception $UP_EXC," \
		"$( ((UP_KEY)) && echo "cluster key $STATE/cluster.key" || echo "no cluster key");" \
		"$want_desc; sb0 = $SUBNET.1..$SUBNET.$UP_HOSTS, $SUBNET6:1..$SUBNET6:$UP_HOSTS;" \
		"ready in $(elapsed "$t0") s (links ${t_plumb} s, sb0 ${t_sb0} s, paths ${t_paths} s)"
}

cmd_up() {
	local t0 t_plumb t_sb0 t_paths
	up_parse "$@"
	up_check_options
	up_prepare
	t0=$(now_s)
	up_write_state
	up_plumb
	t_plumb=$(elapsed "$t0")
	up_make_key
	up_start_hosts
	UP_DEADLINE=$((SECONDS + UP_TIMEOUT))
	up_wait_sb0
	t_sb0=$(elapsed "$t0")
	up_wait_paths
	t_paths=$(elapsed "$t0")
	up_enable_v6
	up_summary "$t0" "$t_plumb" "$t_sb0" "$t_paths"
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
	# DPDK runtime directories of our file prefixes ($NS-a, $NS-b, ...), and the hugepage
	# files of `up --huge` (the EAL leaves them for secondary processes; they hold the pages).
	rm -rf "/var/run/dpdk/$NS-"*
	rm -f "/dev/hugepages/$NS-"[a-z]map_* 2>/dev/null || true
	if [[ -f $STATE/hugepages ]]; then
		tb_hugepages_release "$(cat "$STATE/hugepages")"
		rm -f "$STATE/hugepages"
	fi
	rm -f "$STATE/testbed.env" "$STATE"/*.ini "$STATE"/*.cmd "$STATE"/nstat.* "$STATE"/*.sock
	rm -f "$STATE/cluster.key"
	rm -rf "$STATE/shape"
	# Logs (and the delay lines' logs in emu/) stay for post-mortems until the next `up`.
	true
}
