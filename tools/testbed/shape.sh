# shellcheck shell=bash
# seqbond-testbed the delay lines (tools/linkemu) and `shape`.
# Sourced by tools/seqbond-testbed, after it has set PROG, NS, STATE, SEQBOND_BIN and the
# constants.

LINKEMU_BIN=""
find_linkemu() {
	[[ -z $LINKEMU_BIN ]] || return 0
	local c
	for c in "${SEQBOND_LINKEMU:-}" "$(dirname "$(dirname "$SEQBOND_BIN")")/tools/linkemu/linkemu" \
		"$REPO_ROOT/build/tools/linkemu/linkemu"; do
		[[ -n $c && -x $c ]] && { LINKEMU_BIN=$c; return 0; }
	done
	die "linkemu not found (build it: ninja -C build; or set SEQBOND_LINKEMU)"
}

# Each link direction's shaping lives in $STATE/shape/<sending interface>:
#   rate=MBIT delay_us=N jitter_us=N loss_pct=P txns=.. txdev=.. rxns=.. rxdev=..
# EMU_NS holds the delay lines, EMU_DIR their pids, configs and logs, SHAPE_DIR the shaping
# state; `baseline` points them elsewhere so that it never touches a running testbed's.
EMU_NS=$NS-dl
EMU_DIR=$STATE/emu
SHAPE_DIR=$STATE/shape
shape_file() { echo "$SHAPE_DIR/$1"; }

# shape_get ID KEY DEFAULT
shape_get() {
	local f
	f=$(shape_file "$1")
	if [[ -f $f ]] && grep -q "^$2=" "$f"; then
		sed -n "s/^$2=//p" "$f"
	else
		echo "$3"
	fi
}

emu_pid() { cat "$EMU_DIR/$1.pid" 2>/dev/null || true; }

emu_alive() {
	local pid
	pid=$(emu_pid "$1")
	[[ -n $pid && -d /proc/$pid ]] && [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */linkemu* ]]
}

# emu_log_count ID PATTERN: lines of the delay line's log matching PATTERN.
emu_log_count() { grep -c "$2" "$EMU_DIR/$1.log" 2>/dev/null || true; }

# emu_write_conf ID DELAY_US JITTER_US LOSS_PCT
emu_write_conf() {
	printf 'delay_us = %s\njitter_us = %s\nloss_pct = %s\n' "$2" "$3" "$4" \
		>"$EMU_DIR/$1.conf.new"
	mv -f "$EMU_DIR/$1.conf.new" "$EMU_DIR/$1.conf"
}

# emu_reload ID: SIGHUP and wait until the delay line says it re-read its config.
emu_reload() {
	local id=$1 before i
	before=$(emu_log_count "$id" 'reloaded')
	kill -HUP "$(emu_pid "$id")"
	for ((i = 0; i < 100; i++)); do
		(($(emu_log_count "$id" 'reloaded') > before)) && return 0
		sleep 0.02
	done
	die "delay line $id did not reload its config (see $EMU_DIR/$id.log)"
}

# emu_start ID TXNS TXDEV RXNS RXDEV RATE DELAY_US JITTER_US LOSS_PCT: plumb the delay line of
# one link direction and start redirecting into it. Nothing here touches TXDEV's or RXDEV's
# carrier: new veths, a tc filter on each end.
emu_start() {
	local id=$1 txns=$2 txdev=$3 rxns=$4 rxdev=$5 rate=$6 d=$7 j=$8 l=$9 dl=$EMU_NS
	local le=le$id li=li$id lo=lo$id lx=lx$id mac i pid rt=${SEQBOND_LINKEMU_RT:-10}
	find_linkemu
	mkdir -p "$EMU_DIR"
	ns_exists "$dl" || new_ns "$dl"
	ip link add "$le" netns "$txns" type veth peer name "$li" netns "$dl"
	ip link add "$lo" netns "$dl" type veth peer name "$lx" netns "$rxns"
	# The exit end wears the receiving port's MAC, so the frames it hands over keep their
	# packet type (host, broadcast, multicast) as if they had arrived on that port.
	mac=$(ip netns exec "$rxns" cat "/sys/class/net/$rxdev/address")
	ip -n "$rxns" link set dev "$lx" address "$mac"
	local n dev
	for n in "$txns:$le" "$dl:$li" "$dl:$lo" "$rxns:$lx"; do
		dev=${n##*:}
		ip -n "${n%:*}" link set dev "$dev" mtu "$TB_MTU"
		ip netns exec "${n%:*}" ethtool -K "$dev" gro off gso off tso off rxvlan off \
			txvlan off >/dev/null 2>&1 || true
	done
	# The link's shaper for this direction: the redirect leaves before TXDEV's own qdisc.
	# shellcheck disable=SC2046 # tbf_args is a word list on purpose
	tc -n "$txns" qdisc replace dev "$le" root tbf $(tbf_args "$rate" "$TB_MTU")
	for n in "$txns:$le" "$dl:$li" "$dl:$lo" "$rxns:$lx"; do
		ip -n "${n%:*}" link set dev "${n##*:}" up
	done
	emu_write_conf "$id" "$d" "$j" "$l"
	local -a argv=("$LINKEMU_BIN" --in "$li" --out "$lo" --config "$EMU_DIR/$id.conf")
	((rt == 0)) || argv+=(--rt "$rt")
	(
		close_inherited_fds
		exec ip netns exec "$dl" "${argv[@]}"
	) >>"$EMU_DIR/$id.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$EMU_DIR/$id.pid"
	for ((i = 0; i < 100; i++)); do
		(($(emu_log_count "$id" 'running') > 0)) && break
		kill -0 "$pid" 2>/dev/null || die "delay line $id exited: $(tail -n 3 "$EMU_DIR/$id.log")"
		sleep 0.02
	done
	(($(emu_log_count "$id" 'running') > 0)) || die "delay line $id did not start"
	# Exit first, then entry: no frame enters before it has a way out.
	tc -n "$rxns" qdisc replace dev "$lx" clsact
	tc -n "$rxns" filter add dev "$lx" ingress pref 10 protocol all u32 match u32 0 0 \
		action mirred ingress redirect dev "$rxdev"
	tc -n "$txns" qdisc replace dev "$txdev" clsact
	tc -n "$txns" filter add dev "$txdev" egress pref 10 protocol all u32 match u32 0 0 \
		action mirred egress redirect dev "$le"
}

# emu_stop ID: take the delay line out of the path without reordering what is in flight:
# zero delay first (held frames keep their departure times, new ones queue behind them),
# then wait until nothing is queued on the way in (the tbf on le<ID>) and only then remove
# the redirect. If the direction never goes idle within a second, the delay line stays in the
# path at zero settings (FIFO kept) and this says so; a later `shape` retries.
emu_stop() {
	local id=$1 txns txdev i old_us idle=0
	txns=$(shape_get "$id" txns "")
	txdev=$(shape_get "$id" txdev "")
	old_us=$(($(shape_get "$id" delay_us 0) + $(shape_get "$id" jitter_us 0)))
	if emu_alive "$id"; then
		emu_write_conf "$id" 0 0 0
		emu_reload "$id"
		sleep "$(awk -v u="$old_us" 'BEGIN { printf "%.3f", u / 1e6 + 0.005 }')"
		local q
		for ((i = 0; i < 100; i++)); do
			q=$(tc -n "$txns" -s qdisc show dev "le$id" 2>/dev/null || true)
			if [[ $q == *"backlog 0b 0p"* ]]; then
				idle=1
				break
			fi
			sleep 0.01
		done
		if ((!idle)); then
			note "shape: $id never went idle for 1 s: its delay line stays in the path at" \
				"zero delay and loss (order kept); shape it again when idle to remove it"
			return 1
		fi
	fi
	tc -n "$txns" qdisc del dev "$txdev" clsact 2>/dev/null || true
	# Let the last frames through before the veths go.
	sleep 0.01
	emu_kill "$id"
	return 0
}

# emu_kill ID: stop the delay line process and delete its veths (no redirect must remain).
emu_kill() {
	local id=$1 pid i
	pid=$(emu_pid "$id")
	if emu_alive "$id"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.02
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$EMU_DIR/$id.pid"
	local ns
	for ns in $(shape_get "$id" txns "") $(shape_get "$id" rxns ""); do
		ip -n "$ns" link del "le$id" 2>/dev/null || true
		ip -n "$ns" link del "lx$id" 2>/dev/null || true
	done
}

# shape_dir K IDX DIR RATE DELAY_US JITTER_US LOSS_PCT: apply one direction's shaping.
shape_dir() {
	local k=$1 idx=$2 dir=$3
	dir_ends "$k" "$idx" "$dir"
	shape_ends "$4" "$5" "$6" "$7"
}

# shape_ends RATE DELAY_US JITTER_US LOSS_PCT: shape the direction in DE_* (its sending
# interface names it): tbf rate, and a delay line when there is delay, jitter or loss.
shape_ends() {
	local rate=$1 d=$2 j=$3 l=$4 id f need=0
	id=$DE_TXDEV
	f=$(shape_file "$id")
	mkdir -p "$SHAPE_DIR"
	[[ $d == 0 && $j == 0 ]] && awk -v l="$l" 'BEGIN { exit !(l == 0) }' || need=1
	# shellcheck disable=SC2046 # tbf_args is a word list on purpose
	tc -n "$DE_TXNS" qdisc replace dev "$DE_TXDEV" root tbf $(tbf_args "$rate" "$TB_MTU")
	local stopped=1
	if ((need)); then
		if emu_alive "$id"; then
			# shellcheck disable=SC2046
			tc -n "$DE_TXNS" qdisc replace dev "le$id" root tbf $(tbf_args "$rate" "$TB_MTU")
			emu_write_conf "$id" "$d" "$j" "$l"
			emu_reload "$id"
		else
			emu_kill "$id"
			emu_start "$id" "$DE_TXNS" "$DE_TXDEV" "$DE_RXNS" "$DE_RXDEV" "$rate" "$d" "$j" "$l"
		fi
	elif emu_alive "$id"; then
		# shellcheck disable=SC2046
		tc -n "$DE_TXNS" qdisc replace dev "le$id" root tbf $(tbf_args "$rate" "$TB_MTU")
		emu_stop "$id" || stopped=0
	fi
	{
		echo "rate=$rate"
		if ((stopped)); then
			echo "delay_us=$d"
			echo "jitter_us=$j"
		else
			echo "delay_us=0"
			echo "jitter_us=0"
		fi
		echo "loss_pct=$l"
		echo "txns=$DE_TXNS"
		echo "txdev=$DE_TXDEV"
		echo "rxns=$DE_RXNS"
		echo "rxdev=$DE_RXDEV"
	} >"$f"
}

# emu_clear_stats ID: start the delay line's statistics from zero (SIGUSR2), if it runs.
emu_clear_stats() {
	local id=$1 before i
	emu_alive "$id" || return 0
	before=$(emu_log_count "$id" 'statistics reset')
	kill -USR2 "$(emu_pid "$id")" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		(($(emu_log_count "$id" 'statistics reset') > before)) && return 0
		sleep 0.02
	done
}

# emu_stats ID: the delay line's statistics line (SIGUSR1), or nothing.
emu_stats() {
	local id=$1 before i
	emu_alive "$id" || return 0
	before=$(emu_log_count "$id" 'rx [0-9]')
	kill -USR1 "$(emu_pid "$id")" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		(($(emu_log_count "$id" 'rx [0-9]') > before)) && break
		sleep 0.02
	done
	grep 'rx [0-9]' "$EMU_DIR/$id.log" | tail -n 1
}

cmd_shape() {
	no_memif shape
	(($# >= 2)) || die "usage: shape HOST IDX [--rate MBIT] [--delay MS] [--jitter MS] [--loss PCT] [--dir out|in|both] [--reset]"
	local h=$1 idx=$2 rate="" delay="" jitter="" loss="" dir=both reset=0 clear=0
	shift 2
	while (($#)); do
		case $1 in
		--rate) rate=${2:?}; shift 2 ;;
		--delay) delay=${2:?}; shift 2 ;;
		--jitter) jitter=${2:?}; shift 2 ;;
		--loss) loss=${2:?}; shift 2 ;;
		--dir) dir=${2:?}; shift 2 ;;
		--reset) reset=1; shift ;;
		--clear-stats) clear=1; shift ;;
		*) die "shape: unknown option '$1'" ;;
		esac
	done
	need_root
	load_topology
	check_host_port "$h" "$idx" shape
	local k=$HK d id link_rate
	[[ -z $rate ]] || want_range "$rate" 1 100000 "shape: --rate takes whole Mbit/s (1..100000)"
	[[ -z $delay ]] || ms_ok "$delay" || die "shape: --delay takes milliseconds (0..60000)"
	[[ -z $jitter ]] || ms_ok "$jitter" || die "shape: --jitter takes milliseconds (0..60000)"
	[[ -z $loss ]] || pct_ok "$loss" || die "shape: --loss takes a percentage (0..100)"
	link_rate=${TB_RATES[idx % TB_SWITCHES]}
	local dirs
	dirs=$(dirs_of "$dir")
	if ((clear)); then
		for d in $dirs; do
			dir_ends "$k" "$idx" "$d"
			emu_clear_stats "$DE_TXDEV"
		done
		((reset)) || [[ -n $rate$delay$jitter$loss ]] || return 0
	fi
	if ((!reset)) && [[ -z $rate$delay$jitter$loss ]]; then
		for d in $dirs; do
			dir_ends "$k" "$idx" "$d"
			id=$DE_TXDEV
			echo "host $h port $idx $d ($DE_TXNS/$DE_TXDEV -> $DE_RXNS/$DE_RXDEV):" \
				"rate $(shape_get "$id" rate "$link_rate") Mbit/s," \
				"delay $(us_to_ms "$(shape_get "$id" delay_us 0)") ms," \
				"jitter $(us_to_ms "$(shape_get "$id" jitter_us 0)") ms," \
				"loss $(shape_get "$id" loss_pct 0) %"
			emu_stats "$id" | sed 's/^/    /'
		done
		return 0
	fi
	for d in $dirs; do
		dir_ends "$k" "$idx" "$d"
		id=$DE_TXDEV
		local r dus jus l
		if ((reset)); then
			r=$link_rate dus=0 jus=0 l=0
		else
			r=$(shape_get "$id" rate "$link_rate")
			dus=$(shape_get "$id" delay_us 0)
			jus=$(shape_get "$id" jitter_us 0)
			l=$(shape_get "$id" loss_pct 0)
		fi
		[[ -z $rate ]] || r=$rate
		[[ -z $delay ]] || dus=$(ms_to_us "$delay")
		[[ -z $jitter ]] || jus=$(ms_to_us "$jitter")
		[[ -z $loss ]] || l=$loss
		shape_dir "$k" "$idx" "$d" "$r" "$dus" "$jus" "$l"
		note "shape: host $h port $idx $d: rate $r Mbit/s, delay $(us_to_ms "$dus") ms," \
			"jitter $(us_to_ms "$jus") ms, loss $l %$(emu_alive "$id" && echo " (delay line $id)")"
	done
}
