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

# tb_hugepages_reserve PAGES VAR: at least PAGES free 2 MiB hugepages, vm.nr_hugepages raised
# by what is missing, and hugetlbfs mounted (on /dev/hugepages when it is not yet). The number
# of pages it added goes into the variable VAR, for tb_hugepages_release. Returns 1 when fewer
# than PAGES are free even then (too little memory, or too fragmented), 2 when hugetlbfs
# cannot be mounted; VAR is set in both cases.
tb_hugepages_reserve() {
	local tb_want=$1 tb_free tb_total tb_added=0
	tb_free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if ((tb_free < tb_want)); then
		tb_total=$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)
		echo $((tb_total + tb_want - tb_free)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		tb_added=$(($(awk '/HugePages_Total/ {print $2}' /proc/meminfo) - tb_total))
		tb_free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	fi
	printf -v "$2" '%s' "$tb_added"
	((tb_free >= tb_want)) || return 1
	awk '$3 == "hugetlbfs" {found = 1} END {exit !found}' /proc/mounts && return 0
	mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages || return 2
}

# tb_hugepages_release ADDED: gives back the ADDED pages tb_hugepages_reserve added (nothing
# when ADDED is 0, or more than are reserved).
tb_hugepages_release() {
	local tb_total
	tb_total=$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)
	((${1:-0} > 0 && $1 <= tb_total)) || return 0
	echo $((tb_total - $1)) >/proc/sys/vm/nr_hugepages
}
