#!/usr/bin/env bash
# The testbed's carrier-up faults do what `seqbond-testbed cut` says, checked on the wire
# (tcpdump on the ports, nftables counters), not through seqbond's reactions:
# switch topology (3 hosts, 2 switches): --over 600 drops big frames and passes small ones,
# --dir out silences one direction only, --to limits a cut to one peer, --loss 10 drops
# about 10 %, heal restores everything and leaves no rule behind; cut-switch silences a whole
# switch with every carrier up, heal-switch restores it;
# direct topology (2 hosts): the same at the sending end's egress hook, and frames behind a
# cut frame still leave (af_packet's tx ring is not blocked by it).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
command -v tcpdump >/dev/null || fail "missing tool 'tcpdump'"
command -v nft >/dev/null || fail "missing tool 'nft' (run tools/install-deps)"

# mac HOST IFACE
mac() { sb_in "$1" cat "/sys/class/net/$2/address"; }

# frames_seen HOST IFACE SRC_MAC SECONDS: frames from SRC_MAC that IFACE receives meanwhile.
frames_seen() {
	{ sb_in "$1" timeout -s INT "$4" tcpdump -i "$2" -nn -p -Q in "ether src $3" \
		-w /dev/null 2>&1 || true; } | sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p'
}

# over_seen / small_seen HOST IFACE SRC_MAC LEN: frames from SRC_MAC longer than LEN / at most
# LEN bytes (Ethernet header included) that IFACE receives in 2 s.
over_seen() {
	{ sb_in "$1" timeout -s INT 2 tcpdump -i "$2" -nn -p -Q in "ether src $3 and greater $(($4 + 1))" \
		-w /dev/null 2>&1 || true; } | sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p'
}
small_seen() {
	{ sb_in "$1" timeout -s INT 2 tcpdump -i "$2" -nn -p -Q in "ether src $3 and less $4" \
		-w /dev/null 2>&1 || true; } | sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p'
}

# ping_loss FROM TO SIZE COUNT: percentage of COUNT pings of SIZE bytes lost over sb0.
ping_loss() {
	{ sb_in "$1" ping -q -c "$4" -i 0.02 -W 1 -s "$3" "$(sb_addr "$2")" 2>&1 || true; } |
		sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p'
}

# rules_left NS: our nftables rules left in NS (bridge or netdev table).
rules_left() {
	{ ip netns exec "$SB_NS-$1" nft list ruleset 2>/dev/null || true; } | grep -c 'comment "cut' || true
}

# dir_out_check PREFIX NOTE: a's port 0 cut in its out direction (`cut a 0 --dir out`): in 2 s
# of tcpdump at each end, no frame from a0 reaches b0 and frames from b0 still reach a0; then
# healed. Failures start with PREFIX; NOTE ends the second one's message.
dir_out_check() {
	tb cut a 0 --dir out
	sleep 0.2
	frames_seen b sbB0 "$A0" 2 >"$SB_WORK/ab" &
	frames_seen a sbA0 "$B0" 2 >"$SB_WORK/ba"
	wait
	info "in 2 s: a0 -> b0 $(cat "$SB_WORK/ab") frames, b0 -> a0 $(cat "$SB_WORK/ba") frames"
	(($(cat "$SB_WORK/ab") == 0)) || fail "${1}frames from a's port 0 still reach b"
	(($(cat "$SB_WORK/ba") > 0)) || fail "${1}frames from b's port 0 no longer reach a$2"
	tb heal a 0
}

# ---- switch topology
sb_up --hosts 3 --links 2 --rate 100
sb_ping_ok a b
A0=$(mac a sbA0) A1=$(mac a sbA1) B0=$(mac b sbB0) B1=$(mac b sbB1) C1=$(mac c sbC1)

info "cut a 0 --over 600 and cut a 1 --over 600"
tb cut a 0 --over 600
tb cut a 1 --over 600
# On the wire at b's port 0 while 1000-byte pings run: nothing longer than 600 + 14 bytes
# from a, shorter frames (hellos) still. The pings' fate is seqbond's business: reported only.
sleep 0.2
over_seen b sbB0 "$A0" 614 >"$SB_WORK/over" &
small_seen b sbB0 "$A0" 614 >"$SB_WORK/small" &
sleep 0.7
big=$(ping_loss a b 1000 40)
small=$(ping_loss a b 100 40)
wait
info "at b0 from a0: $(cat "$SB_WORK/over") frames over 600 bytes, $(cat "$SB_WORK/small") up to 600"
info "ping a -> b over sb0 meanwhile: 1000 bytes ${big}% lost, 100 bytes ${small}% lost"
(($(cat "$SB_WORK/over") == 0)) || fail "frames over 600 bytes passed a switch port cut at 600"
(($(cat "$SB_WORK/small") > 0)) || fail "frames up to 600 bytes were cut too"
n=$(sb_in sw nft list chain bridge seqbond_testbed forward | awk '/comment "cut a 0 out/ {
	for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }')
info "the cut of a0's big frames counted $n"
((n > 0)) || fail "no big frame was offered to the cut (nothing to judge)"
tb heal a 0
tb heal a 1
(($(rules_left sw) == 0)) || fail "heal left rules in the switch"
sb_in sw nft list table bridge seqbond_testbed >/dev/null 2>&1 &&
	fail "heal left the nftables table behind"
# Big frames from a reach b's port 0 again (pings, or whatever probes seqbond sends).
over_seen b sbB0 "$A0" 614 >"$SB_WORK/over" &
sleep 0.7
big=$(ping_loss a b 1000 40)
wait
info "after heal: $(cat "$SB_WORK/over") frames over 600 bytes from a0 at b0; 1000-byte pings ${big}% lost"
(($(cat "$SB_WORK/over") > 0)) || fail "no frame over 600 bytes from a0 reached b0 after heal"

info "cut a 0 --dir out: a's frames stop reaching b on switch 0, b's still reach a"
dir_out_check "" " (only out was cut)"

info "cut a 1 --to b: a <-> b stops on switch 1, a <-> c goes on"
tb cut a 1 --to b
sleep 0.2
frames_seen b sbB1 "$A1" 2 >"$SB_WORK/ab" &
frames_seen a sbA1 "$B1" 2 >"$SB_WORK/ba" &
frames_seen c sbC1 "$A1" 2 >"$SB_WORK/ac" &
frames_seen a sbA1 "$C1" 2 >"$SB_WORK/ca"
wait
info "in 2 s on switch 1: a->b $(cat "$SB_WORK/ab"), b->a $(cat "$SB_WORK/ba")," \
	"a->c $(cat "$SB_WORK/ac"), c->a $(cat "$SB_WORK/ca") frames"
(($(cat "$SB_WORK/ab") == 0 && $(cat "$SB_WORK/ba") == 0)) || fail "a <-> b frames passed a --to b cut"
(($(cat "$SB_WORK/ac") > 0 && $(cat "$SB_WORK/ca") > 0)) || fail "a <-> c frames were cut by a --to b cut"
tb heal a 1

info "cut a 0 --to b --dir out --loss 10 under 20000 frames a0 -> b0"
tb cut a 0 --to b --dir out --loss 10
# A counter ahead of the cut sees every frame the cut is offered.
sb_in sw nft insert rule bridge seqbond_testbed forward iifname '"swA0"' oifname '"swB0"' counter
sent=$(sb_inject a sbA0 "$B0" 20000)
sleep 0.3
read -r offered dropped < <(sb_in sw nft list chain bridge seqbond_testbed forward | awk '
	/counter/ && !/comment/ { for (i = 1; i < NF; i++) if ($i == "packets") o = $(i + 1) }
	/comment "cut a 0/ { for (i = 1; i < NF; i++) if ($i == "packets") d = $(i + 1) }
	END { print o + 0, d + 0 }')
pct=$(calc "100.0 * $dropped / $offered")
info "sent $sent; a0 -> b0: $dropped of $offered frames dropped = $pct % (set 10 %)"
((offered >= sent && sent >= 19000)) || fail "the switch saw $offered frames of $sent sent"
float_ge "$pct" 9 && float_ge 11 "$pct" || fail "--loss 10 dropped $pct %, outside 9..11 %"
tb heal a 0

info "cut-switch 1: nothing crosses switch 1 (every carrier up), switch 0 carries on"
tb cut-switch 1
sleep 0.2
frames_seen b sbB1 "$A1" 2 >"$SB_WORK/ab" &
frames_seen c sbC1 "$B1" 2 >"$SB_WORK/bc" &
frames_seen a sbA0 "$B0" 2 >"$SB_WORK/ba0"
wait
info "in 2 s: on switch 1 a->b $(cat "$SB_WORK/ab"), b->c $(cat "$SB_WORK/bc");" \
	"on switch 0 b->a $(cat "$SB_WORK/ba0") frames"
(($(cat "$SB_WORK/ab") == 0 && $(cat "$SB_WORK/bc") == 0)) || fail "frames crossed a cut switch"
(($(cat "$SB_WORK/ba0") > 0)) || fail "switch 0 stopped too"
[[ $(sb_in a cat /sys/class/net/sbA1/carrier) == 1 ]] || fail "cut-switch took a carrier down"
tb heal-switch 1
(($(rules_left sw) == 0)) || fail "heal-switch left rules in the switch"
frames_seen b sbB1 "$A1" 2 >"$SB_WORK/ab"
(($(cat "$SB_WORK/ab") > 0)) || fail "switch 1 still silent after heal-switch"
tb cut-switch 7 2>/dev/null && fail "cut-switch 7 accepted on 2 switches"
sb_down

# ---- direct topology: netdev egress on the sending end
sb_up --links 2 --rate 100
A0=$(mac a sbA0) B0=$(mac b sbB0)
info "direct: cut a 0 --dir out"
dir_out_check "direct: " ""
(($(rules_left a) == 0 && $(rules_left b) == 0)) || fail "direct: heal left rules"

info "direct: cut a 0 and a 1 --over 600 --dir out"
tb cut a 0 --over 600 --dir out
tb cut a 1 --over 600 --dir out
sleep 0.2
over_seen b sbB0 "$A0" 614 >"$SB_WORK/over" &
sleep 0.7
big=$(ping_loss a b 1000 40)
small=$(ping_loss a b 100 40)
wait
info "ping a -> b meanwhile: 1000 bytes ${big}% lost, 100 bytes ${small}% lost"
(($(cat "$SB_WORK/over") == 0)) || fail "direct: frames over 600 bytes passed the cut"
# The frames behind the cut ones keep leaving: port 0's small frames (hellos) still arrive.
# (With an nft drop they would not: af_packet's tx ring would resend the cut frame forever.)
n=$(small_seen b sbB0 "$A0" 614)
info "after the cut big frames: a0 -> b0 $n small frames in 2 s"
((n > 0)) || fail "direct: port 0 stopped sending after its big frames were cut"
dropped=$(sb_in a nft list table netdev seqbond_testbed | awk '/comment "cut a 0/ {
	for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }')
info "cut a 0 counted $dropped frames"
((dropped > 0)) || fail "direct: no big frame was offered to the cut (nothing to judge)"
tb heal a 0
tb heal a 1
info "PASS"
