#!/usr/bin/env bash
# Many peers on many switches (3 hosts, 4 switches): broadcast, multicast and unknown unicast
# reach every peer's kernel exactly once and never come back to the sender's; ARP, IPv6
# (DAD, ND, MLD, link-local, global, ff02::1) and a joined multicast group work; and with b's
# switch port 0 down (its other ports fine) a still reaches b after its neighbour entries are
# gone (a broadcast that left on one port only never reached b there).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
for t in tcpdump ping; do
	command -v "$t" >/dev/null || fail "missing tool '$t' (run tools/install-deps)"
done

sb_up --hosts 3 --links 4 --rate 100
A=$(sb_addr a)
for h in a b c; do
	sb_in "$h" sysctl -q -w net.ipv4.icmp_echo_ignore_broadcasts=0
done
sb_ping_ok a b
sb_ping_ok a c

# capture HOST FILTER: record frames matching FILTER arriving on HOST's sb0 (until
# captures_stop); captured HOST counts them afterwards.
CAP_PIDS=()
CAP_FILES=()
capture() {
	local h=$1 filter=$2 pcap=$SB_WORK/cap-$1.pcap
	sb_in "$h" timeout 30 tcpdump -Q in -i sb0 -U -w "$pcap" "$filter" 2>/dev/null &
	CAP_PIDS+=($!)
	CAP_FILES+=("$h:$pcap")
}
captures_stop() {
	local p
	for p in "${CAP_PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${CAP_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
captured() {
	local f
	for f in "${CAP_FILES[@]}"; do
		[[ ${f%%:*} == "$1" ]] || continue
		tcpdump -r "${f#*:}" 2>/dev/null | wc -l
		return
	done
	echo 0
}

# 1. Broadcast: 21 echo requests to 10.99.0.255 from a reach b and c exactly 21 times each,
# and a's own sb0 receives none of its own frames back.
amac=$(sb_in a cat /sys/class/net/sb0/address)
capture b "icmp[icmptype] == icmp-echo and ether dst ff:ff:ff:ff:ff:ff"
capture c "icmp[icmptype] == icmp-echo and ether dst ff:ff:ff:ff:ff:ff"
capture a "ether src $amac"
sleep 1
# ping ends once every request has one reply (a's own, looped back by its kernel, comes
# first), so the replies of b and c to the last request may come after it has gone: the
# 21st request is only there to keep it listening; replies to the first 20 are counted.
sb_in a ping -b -c 21 -i 0.1 -W 1 10.99.0.255 >"$SB_WORK/bping.txt" 2>&1 || true
sleep 0.5
captures_stop
nb=$(captured b) nc=$(captured c) na=$(captured a)
info "broadcast: 21 sent by a; b received $nb, c received $nc; a got $na of its own back"
((nb == 21 && nc == 21)) || fail "broadcast not delivered exactly once (b $nb, c $nc)"
((na == 0)) || fail "a's broadcast came back to a ($na)"
# Replies per source address and sequence number (a answers its own broadcast too: the
# kernel loops a broadcast back to its sender, and echo_ignore_broadcasts is off here).
read -r rb rc dups < <(awk -v b="$(sb_addr b)" -v c="$(sb_addr c)" '
	/bytes from/ {
		src = $4; sub(":$", "", src); seq = $5; sub("icmp_seq=", "", seq)
		if (seq + 0 > 20) next
		if (n[src, seq]++) dup++
		if (src == b && n[src, seq] == 1) nb++
		if (src == c && n[src, seq] == 1) nc++
	}
	END { print nb + 0, nc + 0, dup + 0 }' "$SB_WORK/bping.txt")
info "broadcast ping: $rb replies from b, $rc from c (of 20 each), $dups duplicates"
((rb == 20 && rc == 20)) || fail "expected 20 replies from each of b and c, got $rb and $rc"
((dups == 0)) || fail "$dups replies came twice from the same host for the same request"

# 2. Multicast: b and c join 239.1.2.3; a sends 20 datagrams; each receives exactly 20.
for h in b c; do
	sb_in "$h" python3 -c '
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5500))
mreq = struct.pack("4s4s", socket.inet_aton("239.1.2.3"), socket.inet_aton(sys.argv[1]))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
s.settimeout(0.5)
n, end = 0, time.time() + 8
while time.time() < end:
    try:
        s.recv(100)
        n += 1
    except socket.timeout:
        pass
print(n)' "$(sb_addr "$h")" >"$SB_WORK/mcast-$h.txt" &
done
sleep 1.5
sb_in a python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[1]))
for i in range(20):
    s.sendto(b"seqbond %d" % i, ("239.1.2.3", 5500))
    time.sleep(0.05)' "$A"
wait
mb=$(cat "$SB_WORK/mcast-b.txt") mc=$(cat "$SB_WORK/mcast-c.txt")
info "multicast 239.1.2.3: 20 sent; b received $mb, c received $mc"
((mb == 20 && mc == 20)) || fail "multicast not delivered exactly once (b $mb, c $mc)"

# 3. IPv6: DAD completed (no tentative or failed address), global and link-local ping6, and
# all-nodes ff02::1 answered once by each host.
for h in a b c; do
	if sb_in "$h" ip -6 addr show dev sb0 | grep -qE 'tentative|dadfailed'; then
		sb_in "$h" ip -6 addr show dev sb0
		fail "host $h: an IPv6 address on sb0 is tentative or failed DAD"
	fi
done
b6=$(sb_addr6 b)
out=$(sb_in a ping -6 -c 5 -i 0.2 -W 2 "$b6" 2>&1) || { echo "$out"; fail "ping6 $b6"; }
info "ping6 global a -> b: $(grep 'packets transmitted' <<<"$out")"
ll=$(sb_in c ip -6 -o addr show dev sb0 scope link | awk '{print $4}' | cut -d/ -f1)
out=$(sb_in a ping -6 -c 5 -i 0.2 -W 2 "$ll%sb0" 2>&1) || { echo "$out"; fail "ping6 $ll"; }
info "ping6 link-local a -> c ($ll): $(grep 'packets transmitted' <<<"$out")"
# As with the broadcast ping: a 4th request keeps ping listening for the replies to the 3rd.
out=$(sb_in a ping -6 -c 4 -i 0.5 -W 2 -I sb0 ff02::1 2>&1 || true)
for h in b c; do
	hl=$(sb_in "$h" ip -6 -o addr show dev sb0 scope link | awk '{print $4}' | cut -d/ -f1)
	n=$(awk -v from="$hl" '$4 ~ "^" from { seq = $5; sub("icmp_seq=", "", seq)
		if (seq + 0 <= 3) n++ } END { print n + 0 }' <<<"$out")
	info "ping6 ff02::1: $n replies from $h ($hl)"
	((n == 3)) || { echo "$out"; fail "ff02::1: $n replies from $h, want 3"; }
done
grep -q 'DUP!' <<<"$out" && grep 'DUP!' <<<"$out" | grep -qv "from fe80::" &&
	fail "duplicate replies to ff02::1"
sb_in b ip -6 maddr show dev sb0 | grep -q 'ff02::1:ff' ||
	fail "b joined no solicited-node group (MLD)"
sb_in a ip -6 neigh show dev sb0 | grep -qE "$b6 .*(REACHABLE|STALE|DELAY)" ||
	fail "no neighbour entry for b (ND)"

# 4. b's switch port 0 goes down (its ports 1..3 fine); a forgets its neighbours; a must still
# reach b (ARP and ND go to every peer over any path in the stripe).
tb exec sw ip link set swB0 down
sleep 0.2
sb_in a ip neigh flush dev sb0
sb_in a ip -6 neigh flush dev sb0
sb_ping_ok a b
out=$(sb_in a ping -6 -c 3 -i 0.2 -W 2 "$b6" 2>&1) || { echo "$out"; fail "ping6 with b's port 0 down"; }
info "with b's switch port 0 down: ping and ping6 a -> b after a neighbour flush work"
tb exec sw ip link set swB0 up

sb_down
python3 "$SB_LIB_DIR/sb_counters.py" "$SEQBOND_TESTBED_DIR/a.log" "$SEQBOND_TESTBED_DIR/b.log" \
	"$SEQBOND_TESTBED_DIR/c.log" || fail "counters or mbufs"
info "PASS"
