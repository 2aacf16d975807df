# shellcheck shell=bash
# shellcheck disable=SC2034 # TB_*, DE_*, HK: set here, read by the other modules
# seqbond-testbed helpers: messages, checks of values, namespaces, the state file and the
# topology it describes.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

die() {
	echo "$PROG: $*" >&2
	exit 1
}
note() { echo "$PROG: $*" >&2; }

need_root() {
	((EUID == 0)) || die "must run as root (network namespaces, tc)"
}

# host_letter K -> a, b, ... (K from 1)
host_letter() { echo "${LETTERS:$(($1 - 1)):1}"; }
host_upper() { local l=${LETTERS:$(($1 - 1)):1}; echo "${l^^}"; }

# host_index LETTER -> 1, 2, ...
host_index() {
	tb_host_index "$1" || die "bad host '$1' (expected a letter: a, b, ...)"
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_decimal() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

# want_range VALUE MIN MAX MESSAGE: die unless VALUE is a whole number in MIN..MAX.
want_range() {
	if ! is_uint "$1" || (($1 < $2 || $1 > $3)); then
		die "$4"
	fi
}

# ms_to_us MS -> whole microseconds (MS may have decimals).
ms_to_us() { awk -v v="$1" 'BEGIN { printf "%d", v * 1000 + 0.5 }'; }
# us_to_ms US -> milliseconds as a short decimal.
us_to_ms() { awk -v v="$1" 'BEGIN { printf "%g", v / 1000 }'; }
# rate_ok MBIT: a whole link rate; ms_ok MS: a delay of 0..60000 ms (decimals allowed).
rate_ok() { is_uint "$1" && (($1 >= 1 && $1 <= 100000)); }
ms_ok() { is_decimal "$1" && awk -v v="$1" 'BEGIN { exit !(v <= 60000) }'; }
# pct_ok PCT: a decimal percentage 0..100.
pct_ok() { is_decimal "$1" && awk -v v="$1" 'BEGIN { exit !(v <= 100) }'; }
# now_s: seconds since the epoch with microseconds.
now_s() { echo "${EPOCHREALTIME/,/.}"; }
# elapsed T0: seconds since T0 (from now_s), 2 decimals.
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.2f", b - a }'; }

# new_ns NAME: namespace with lo up and IPv6 off (every interface made later in it starts
# with IPv6 off too; sb0 gets it back in sb0_enable_v6).
new_ns() {
	local ns=$1
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null
}

del_ns() {
	local ns=$1 pid
	ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$ns" || return 0
	# Anything still running in a namespace we made was started by us (iperf3 servers,
	# socat, ping, linkemu): end it by id before the namespace goes.
	for pid in $(ip netns pids "$ns" 2>/dev/null); do
		kill -TERM "$pid" 2>/dev/null || true
	done
	sleep 0.2
	for pid in $(ip netns pids "$ns" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	ip netns del "$ns" 2>/dev/null || true
}

ns_exists() { [[ -e /run/netns/$1 ]]; }

state_get() {
	local key=$1
	[[ -f $STATE/testbed.env ]] || die "no testbed is up (run '$PROG up')"
	sed -n "s/^$key=//p" "$STATE/testbed.env"
}

# no_memif VERB: VERB acts on the veth links, which a memif testbed has none of.
no_memif() {
	[[ $(state_get port_type) != memif ]] ||
		die "$1: the links are memif pairs (up --port-type memif): no kernel link to act on"
}

# pid_is_seqbond PID: the process exists and still is the seqbond we started.
pid_is_seqbond() {
	local pid=$1 exe
	local -a argv
	[[ $pid =~ ^[0-9]+$ && -d /proc/$pid ]] || return 1
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
	# A rebuilt binary shows as "PATH (deleted)".
	[[ $exe == "$(readlink -f "$SEQBOND_BIN")"* ]] && return 0
	# A SEQBOND_BIN that is a script runs as its interpreter with the script as argument 1.
	{ mapfile -d '' -n 2 argv <"/proc/$pid/cmdline"; } 2>/dev/null || return 1
	[[ ${argv[0]:-} == "$SEQBOND_BIN" || ${argv[1]:-} == "$SEQBOND_BIN" ]]
}

# ---------------------------------------------------------------------------------------------
# topology: loaded from the state file into these globals by load_topology

TB_HOSTS=0 TB_LINKS=0 TB_SWITCHES=0 TB_MTU=1500 TB_TOPO=direct
TB_PORTS=()	# TB_PORTS[k]: ports of host k (k from 1)
TB_RATES=()	# TB_RATES[s]: Mbit/s of switch (link index) s

load_topology() {
	local ports="" rates="" key val
	[[ -f $STATE/testbed.env ]] || die "no testbed is up (run '$PROG up')"
	# One read of the state file, no fork per key: the fault verbs run while the machine is
	# busiest.
	TB_HOSTS="" TB_LINKS="" TB_MTU="" TB_TOPO="" TB_SWITCHES=""
	while IFS='=' read -r key val; do
		case $key in
		hosts) TB_HOSTS=$val ;;
		links) TB_LINKS=$val ;;
		mtu) TB_MTU=$val ;;
		topology) TB_TOPO=$val ;;
		switches) TB_SWITCHES=$val ;;
		rates) rates=$val ;;
		ports) ports=$val ;;
		esac
	done <"$STATE/testbed.env"
	# A state file written before these keys existed: today's topology.
	[[ -n $TB_TOPO ]] || { if ((TB_HOSTS == 2)); then TB_TOPO=direct; else TB_TOPO=switch; fi; }
	[[ -n $TB_SWITCHES ]] || TB_SWITCHES=$TB_LINKS
	read -r -a TB_RATES <<<"$rates"
	if [[ -z $ports ]]; then
		ports=$(printf "$TB_LINKS %.0s" $(seq "$TB_HOSTS"))
	fi
	read -r -a TB_PORTS <<<"0 $ports"
}

# ports_on_switch K S: how many of host K's ports are cabled to switch S.
ports_on_switch() {
	local p=${TB_PORTS[$1]} s=$2
	((s < p)) && echo $(((p - 1 - s) / TB_SWITCHES + 1)) || echo 0
}

# port_list_on_switch K S: host K's port indexes on switch S.
port_list_on_switch() {
	local i out=()
	for ((i = $2; i < TB_PORTS[$1]; i += TB_SWITCHES)); do out+=("$i"); done
	echo "${out[*]}"
}

# expected_paths K: (local port, peer port) pairs host K shares a switch with, all peers.
expected_paths() {
	local k=$1 j s n=0
	if [[ $TB_TOPO == direct ]]; then
		echo "$TB_LINKS"
		return
	fi
	for ((j = 1; j <= TB_HOSTS; j++)); do
		((j == k)) && continue
		for ((s = 0; s < TB_SWITCHES; s++)); do
			n=$((n + $(ports_on_switch "$k" "$s") * $(ports_on_switch "$j" "$s")))
		done
	done
	echo "$n"
}

# check_host_port HOST IDX VERB: die unless the testbed has that host and port; sets HK.
HK=0
check_host_port() {
	local h=$1 idx=$2 verb=$3
	HK=$(host_index "$h")
	((HK <= TB_HOSTS)) || die "$verb: no host $h (the testbed has $TB_HOSTS)"
	want_range "$idx" 0 $((TB_PORTS[HK] - 1)) \
		"$verb: host $h has ports 0..$((TB_PORTS[HK] - 1)), not '$idx'"
}

# dir_ends K IDX out|in: the two ends of one direction of host K's port IDX, in DE_* globals:
# the sending end (namespace, interface) and the receiving end. The sending end's name also
# names the direction (unique: sbA0 is a's port 0 out, swA0 towards a; direct: sbB0 is b->a).
DE_TXNS="" DE_TXDEV="" DE_RXNS="" DE_RXDEV=""
dir_ends() {
	local k=$1 idx=$2 dir=$3 x X y Y
	x=$(host_letter "$k")
	X=${x^^}
	if [[ $TB_TOPO == direct ]]; then
		if ((k == 1)); then y=b; else y=a; fi
		Y=${y^^}
		if [[ $dir == out ]]; then
			DE_TXNS=$NS-$x DE_TXDEV=sb$X$idx DE_RXNS=$NS-$y DE_RXDEV=sb$Y$idx
		else
			DE_TXNS=$NS-$y DE_TXDEV=sb$Y$idx DE_RXNS=$NS-$x DE_RXDEV=sb$X$idx
		fi
	elif [[ $dir == out ]]; then
		DE_TXNS=$NS-$x DE_TXDEV=sb$X$idx DE_RXNS=$NS-sw DE_RXDEV=sw$X$idx
	else
		DE_TXNS=$NS-sw DE_TXDEV=sw$X$idx DE_RXNS=$NS-$x DE_RXDEV=sb$X$idx
	fi
}

# dirs_of out|in|both -> the directions as words.
dirs_of() {
	case $1 in
	out | in) echo "$1" ;;
	both) echo "out in" ;;
	*) die "--dir must be out, in or both, not '$1'" ;;
	esac
}

# close_inherited_fds: close every descriptor above 2 in this (sub)shell.
close_inherited_fds() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
	done
	return 0
}

# check_switch S VERB: S must name a switch of a switch topology.
check_switch() {
	load_topology
	[[ $TB_TOPO == switch ]] || die "$2: the direct topology has no switches (use cut HOST IDX)"
	is_uint "$1" && (($1 < TB_SWITCHES)) || die "$2: switch must be 0..$((TB_SWITCHES - 1)), not '$1'"
}
