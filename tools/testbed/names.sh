# shellcheck shell=bash
# shellcheck disable=SC2034 # the TB_* constants are for whoever sources this
# The testbed's names, for tools/seqbond-testbed and for what drives it (tests/integration/
# lib.sh, bench/*.sh): where a testbed keeps its state, which host a letter is, the
# addresses the testbed gives sb0. Sourced; it only defines what follows (no shell option
# set, nothing run), with the tb_ prefix.

TB_LETTERS=abcdefghijklmnopqrstuvwxyz
TB_SUBNET=10.99.0	# sb0 of host k: 10.99.0.k/24
TB_SUBNET6=fd99:	# and fd99::k/64
TB_BL_SUBNET=10.98.0	# the baseline pair: 10.98.0.1 and 10.98.0.2

# tb_state_dir NAME [VAR]: the state directory of the testbed whose namespaces are NAME-a,
# NAME-b, ... (SEQBOND_TESTBED_NAME, default sb): SEQBOND_TESTBED_DIR when set, otherwise
# /run/seqbond-testbed for sb and /run/seqbond-testbed-NAME for any other name. Into the
# variable VAR when given (no subshell), printed otherwise.
tb_state_dir() {
	local d
	if [[ $1 == sb ]]; then
		d=${SEQBOND_TESTBED_DIR:-/run/seqbond-testbed}
	else
		d=${SEQBOND_TESTBED_DIR:-/run/seqbond-testbed-$1}
	fi
	if (($# > 1)); then printf -v "$2" '%s' "$d"; else echo "$d"; fi
}

# tb_host_index LETTER -> 1, 2, ... (host a is 1); fails for anything but one letter a..z.
tb_host_index() {
	local rest
	[[ $1 =~ ^[a-z]$ ]] || return 1
	rest=${TB_LETTERS%%"$1"*}
	echo $((${#rest} + 1))
}

# tb_addr HOST, tb_addr6 HOST: the address of sb0 on host a, b, ... (10.99.0.1, fd99::1, ...).
tb_addr() {
	local k
	k=$(tb_host_index "$1") || return 1
	echo "$TB_SUBNET.$k"
}
tb_addr6() {
	local k
	k=$(tb_host_index "$1") || return 1
	echo "$TB_SUBNET6:$k"
}
