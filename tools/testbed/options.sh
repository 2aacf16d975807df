# shellcheck shell=bash
# shellcheck disable=SC2034 # UP_*: set here, read by up.sh (the *_ARG through the table)
# seqbond-testbed: the options of `up` (one table), how they are read and checked.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

# The options of `up`, one row each: OPTION|VARIABLE|DEFAULT|CHECK|MESSAGE.
#   VARIABLE holds the option's value (the argument after it), DEFAULT while the option is
#   not given. DEFAULT "flag OFF ON": the option takes no argument and sets ON; "append": each
#   value is added to the array VARIABLE; "env NAME": the environment variable NAME's value.
#   CHECK is a command called with the value and then its own words once every option is
#   read (up_check_options), row by row in this order, so the first failing row is the one
#   reported: `up` dies with MESSAGE, or a check without MESSAGE dies with its own (and may
#   derive other values: the per-switch lists, the topology). An `append` row's check runs
#   on each value as it is read. "-": no check here (--timeout's comes after the root
#   check, in cmd_up).
UP_OPTIONS=(
	'--preset|UP_PRESET||up_preset|'
	'--hosts|UP_HOSTS|2|in_range 2 26|up: --hosts must be 2..26'
	'--links|UP_LINKS|4|in_range 1 64|up: --links must be 1..64'
	'--mtu|UP_MTU|1500|in_range 576 9600|up: --mtu must be 576..9600'
	'--mem|UP_MEM||maybe in_range 64 65536|up: --mem takes MB (64..65536)'
	'--scheduler|UP_SCHED|edpf|one_of rr drr edpf|up: --scheduler must be rr, drr or edpf'
	'--exception|UP_EXC|tap-vnet|one_of tap tap-vnet virtio-user auto|up: --exception must be tap, tap-vnet, virtio-user or auto'
	'--port-type|UP_PTYPE|af_packet|up_port_type|'
	'--switches|UP_SWITCHES||up_switches|'
	'--ports|UP_PORTS_ARG||up_ports|'
	'--rate|UP_RATE_ARG|100|up_per_switch --rate rate_ok UP_RATES|'
	'--delay|UP_DELAY_ARG|0|up_per_switch --delay ms_ok UP_DELAYS|'
	'--jitter|UP_JITTER_ARG|0|up_per_switch --jitter ms_ok UP_JITTERS|'
	'--loss|UP_LOSS_ARG|0|up_per_switch --loss pct_ok UP_LOSSES|'
	'--timeout|UP_TIMEOUT|env SEQBOND_TESTBED_TIMEOUT|-|'
	'--huge|UP_HUGE|flag 0 1|-|'
	'--no-key|UP_KEY|flag 1 0|-|'
	"--config-extra|CONFIG_EXTRA|append|config_line_ok|up: --config-extra takes 'key = value'"
)
# Set by up_parse from the table, and by the checks: the topology (direct or switch), each
# host's port count (UP_PORTS[k], k from 1) and the per-switch values (index: switch).
UP_PRESET="" UP_HOSTS="" UP_LINKS="" UP_MTU="" UP_MEM="" UP_SCHED="" UP_EXC="" UP_PTYPE=""
UP_SWITCHES="" UP_PORTS_ARG="" UP_RATE_ARG="" UP_DELAY_ARG="" UP_JITTER_ARG="" UP_LOSS_ARG=""
UP_TIMEOUT="" UP_HUGE=0 UP_KEY=1 UP_TOPO=switch
UP_PORTS=() UP_RATES=() UP_DELAYS=() UP_JITTERS=() UP_LOSSES=()
declare -gA UP_GIVEN=()	# UP_GIVEN[OPTION]: given on the command line

# in_range VALUE MIN MAX: a whole number in MIN..MAX.
in_range() { is_uint "$1" && (($1 >= $2 && $1 <= $3)); }
# one_of VALUE CHOICE...: VALUE is one of the choices.
one_of() {
	local v=$1 c
	shift
	for c; do [[ $v == "$c" ]] && return 0; done
	return 1
}
# maybe VALUE CHECK [ARGS...]: VALUE is empty, or CHECK passes it.
maybe() { [[ -z $1 ]] || "$2" "$1" "${@:3}"; }
# config_line_ok LINE: a `key = value` line.
config_line_ok() { [[ $1 =~ ^[a-z_]+\ *=\ *[^\ ].*$ ]]; }

# up_row OPTION: the table's row of OPTION into R_VAR, R_DEF, R_CHECK, R_MSG; fails if none.
R_VAR="" R_DEF="" R_CHECK="" R_MSG=""
up_row() {
	local row opt
	for row in "${UP_OPTIONS[@]}"; do
		IFS='|' read -r opt R_VAR R_DEF R_CHECK R_MSG <<<"$row"
		[[ $opt == "$1" ]] && return 0
	done
	return 1
}

# up_parse ARGS...: every option's variable at its default, then each option given into its
# own (UP_OPTIONS); UP_GIVEN[OPTION] for each one given.
up_parse() {
	local row opt name
	local -a w
	for row in "${UP_OPTIONS[@]}"; do
		opt=${row%%|*}
		up_row "$opt"
		read -r -a w <<<"$R_DEF"
		case ${w[0]:-} in
		flag) printf -v "$R_VAR" '%s' "${w[1]}" ;;
		append) ;;
		env) name=${w[1]}; printf -v "$R_VAR" '%s' "${!name:-}" ;;
		*) printf -v "$R_VAR" '%s' "$R_DEF" ;;
		esac
	done
	while (($#)); do
		up_row "$1" || die "up: unknown option '$1'"
		UP_GIVEN[$1]=1
		read -r -a w <<<"$R_DEF"
		case ${w[0]:-} in
		flag) printf -v "$R_VAR" '%s' "${w[2]}"; shift ;;
		append)
			read -r -a w <<<"$R_CHECK"
			"${w[0]}" "${2:?}" "${w[@]:1}" || die "$R_MSG"
			local -n list=$R_VAR
			list+=("$2")
			shift 2
			;;
		*) printf -v "$R_VAR" '%s' "${2:?}"; shift 2 ;;
		esac
	done
}

# up_check_options: each row's check on its value, in the table's order.
up_check_options() {
	local row opt
	local -a w
	for row in "${UP_OPTIONS[@]}"; do
		opt=${row%%|*}
		up_row "$opt"
		[[ $R_CHECK != - && $R_DEF != append ]] || continue
		read -r -a w <<<"$R_CHECK"
		if [[ -n $R_MSG ]]; then
			"${w[0]}" "${!R_VAR}" "${w[@]:1}" || die "$R_MSG"
		else
			# not under ||: set -e must hold inside a check that dies itself
			"${w[0]}" "${!R_VAR}" "${w[@]:1}"
		fi
	done
}

# up_preset NAME: a preset sets the cabling options itself.
up_preset() {
	case $1 in
	"") ;;
	bladecentre)
		if [[ -n ${UP_GIVEN[--hosts]:-}${UP_GIVEN[--links]:-} || -n $UP_SWITCHES || -n $UP_PORTS_ARG ]]; then
			die "up: --preset bladecentre sets --hosts, --links, --switches and --ports itself"
		fi
		UP_HOSTS=17 UP_LINKS=6 UP_SWITCHES=6 UP_PORTS_ARG=q=8
		;;
	*) die "up: unknown preset '$1' (known: bladecentre)" ;;
	esac
}

# up_port_type TYPE
up_port_type() {
	case $1 in
	af_packet) ;;
	af_xdp) ((UP_MTU <= 3000)) || die "up: --port-type af_xdp takes --mtu up to 3000 (XDP on veth)" ;;
	memif) ;;	# its topology and rates: up_prepare, once every option is known
	*) die "up: --port-type must be af_packet, af_xdp or memif" ;;
	esac
}

# up_switches S: the topology (direct: 2 hosts, no --switches or --ports) and the switch
# count (default --links).
up_switches() {
	UP_TOPO=switch
	[[ $UP_HOSTS == 2 && -z $1 && -z $UP_PORTS_ARG ]] && UP_TOPO=direct
	[[ -n $1 ]] || UP_SWITCHES=$UP_LINKS
	want_range "$UP_SWITCHES" 1 64 "up: --switches must be 1..64"
}

# up_ports HOST=COUNT[,...]: UP_PORTS, the port count of each host (--links unless named).
up_ports() {
	local k spec l c
	local -a specs
	UP_PORTS=()
	for ((k = 1; k <= UP_HOSTS; k++)); do UP_PORTS[k]=$UP_LINKS; done
	[[ -n $1 ]] || return 0
	IFS=, read -r -a specs <<<"$1"
	for spec in "${specs[@]}"; do
		[[ $spec =~ ^([a-z])=([0-9]+)$ ]] || die "up: --ports takes HOST=COUNT[,HOST=COUNT...], not '$spec'"
		l=${BASH_REMATCH[1]}
		c=${BASH_REMATCH[2]}
		k=$(host_index "$l")
		((k <= UP_HOSTS)) || die "up: --ports names host $l, but there are $UP_HOSTS hosts"
		want_range "$c" 1 64 "up: --ports $l=$c: a host has 1..64 ports"
		UP_PORTS[k]=$c
	done
}

# up_per_switch ARG NAME CHECK ARRAY: ARG is one value for all switches or one per switch
# (comma-separated), each passing CHECK; ARRAY gets one per switch.
up_per_switch() {
	local arg=$1 name=$2 check=$3 one i
	local -a v
	IFS=, read -r -a v <<<"$arg"
	for one in "${v[@]}"; do
		"$check" "$one" || die "up: bad $name '$one'"
	done
	if ((${#v[@]} == 1)); then
		for ((i = 1; i < UP_SWITCHES; i++)); do v+=("${v[0]}"); done
	elif ((${#v[@]} != UP_SWITCHES)); then
		die "up: $name has ${#v[@]} values for $UP_SWITCHES $( [[ $UP_TOPO == direct ]] && echo links || echo switches) (give 1 or $UP_SWITCHES)"
	fi
	read -r -a "$4" <<<"${v[*]}"
}
