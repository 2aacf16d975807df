#!/usr/bin/env bash
# The testbed's switch topology with asymmetric hosts: `up --ports c=5` on 3 switches gives c
# two ports on switches 0 and 1, and every host must come up with exactly the (port, peer
# port) paths that cabling implies; each host's config lists its own ports. `--switches` with
# more ports than switches does the same for every host. IPv6 on sb0: global and link-local
# ping6 between hosts, and `up` returned only after DAD (no tentative address left).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require

# check_paths HOST EXPECTED: HOST's seqbond log names EXPECTED distinct (peer, path) pairs,
# each of them up by its last line (a path that flapped while the hosts started counts once).
check_paths() {
	local seen up
	read -r seen up < <(awk '
		match($0, /peer [0-9]+ path [0-9]+ (up|down)/) {
			split(substr($0, RSTART, RLENGTH), w, " ")
			last[w[2] " " w[4]] = w[5]
		}
		END { n = u = 0; for (k in last) { n++; if (last[k] == "up") u++ } print n, u }' \
		"$SEQBOND_TESTBED_DIR/$1.log")
	info "host $1: $seen paths, $up up (expected $2)"
	((seen == $2 && up == $2)) || fail "host $1 has $seen paths ($up up), expected $2"
}

# ports_in_ini HOST: [portN] sections of HOST's generated config.
ports_in_ini() { grep -c '^\[port[0-9]*\]' "$SEQBOND_TESTBED_DIR/$1.ini"; }

sb_up --hosts 3 --links 3 --ports c=5 --rate 50
# a and b: 3 ports, one per switch. c: ports 0..4 on switches 0,1,2,0,1.
# a <-> b: 3 paths. a <-> c: switch 0 1x2, switch 1 1x2, switch 2 1x1 = 5.
check_paths a 8
check_paths b 8
check_paths c 10
(($(ports_in_ini a) == 3 && $(ports_in_ini c) == 5)) || fail "generated configs do not list each host's own ports"
grep -q 'iface=sbC4,' "$SEQBOND_TESTBED_DIR/c.ini" || fail "c's port 4 is not sbC4"
sb_in sw bash -c '[[ -e /sys/class/net/br0/brif/swC3 && -e /sys/class/net/br1/brif/swC4 ]]' ||
	fail "c's ports 3 and 4 are not on switches 0 and 1"

for h in a b c; do
	tent=$(sb_in "$h" ip -6 addr show dev sb0 tentative)
	[[ -z $tent ]] || fail "host $h still has a tentative IPv6 address after up: $tent"
	addrs=$(sb_in "$h" ip -6 addr show dev sb0)
	[[ $addrs == *"$(sb_addr6 "$h")/64"* ]] || fail "host $h has no $(sb_addr6 "$h")/64 on sb0: $addrs"
done
for pair in "a b" "a c" "c b"; do
	read -r from to <<<"$pair"
	out=$(sb_in "$from" ping -6 -c 3 -i 0.2 -W 2 "$(sb_addr6 "$to")" 2>&1) ||
		{ echo "$out"; fail "ping6 $from -> $to failed"; }
	info "ping6 $from -> $to: $(grep -E 'packets transmitted' <<<"$out")"
	sb_ping_ok "$from" "$to"
done
ll=$(sb_in b ip -6 -br addr show dev sb0 scope link | awk '{print $3}')
ll=${ll%/64}
out=$(sb_in a ping -6 -c 3 -i 0.2 -W 2 "$ll%sb0" 2>&1) ||
	{ echo "$out"; fail "ping6 a -> b's link-local $ll failed"; }
info "ping6 a -> $ll%sb0 (b link-local): $(grep -E 'packets transmitted' <<<"$out")"

# Two hosts with more ports than switches leave the direct topology.
sb_down
sb_up --hosts 2 --links 4 --switches 2 --rate 50
check_paths a 8
check_paths b 8
sb_in sw test -e /sys/class/net/br1/brif/swA3 || fail "a's port 3 is not on switch 1"
sb_ping_ok a b
info "PASS"
