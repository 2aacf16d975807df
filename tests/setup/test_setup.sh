#!/usr/bin/env bash
# seqbond-setup on this host, where no NIC may be taken: every error is one line naming the
# file, section, key and value; --check and --status change nothing; --wait-ready waits for
# a real TAP interface held by a real process. Binding, modules and --reset on real e1000/
# e1000e NICs are tested in the guests of tests/vm/run.
#
# No PCI device of this host is ever bound: the cases that must get past the device checks
# (driver choice, module loading) read a made-up PCI tree (SEQBOND_SYSFS_PCI), and the
# in-use case only runs --check against a NIC that has addresses.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SETUP=$ROOT/tools/seqbond-setup
T=$(mktemp -d /tmp/seqbond-setup-test.XXXXXX)
tap_pid=""
cleanup() {
	[[ -z $tap_pid ]] || kill "$tap_pid" 2>/dev/null || true
	rm -rf "$T" || true
}
trap cleanup EXIT
export SEQBOND_SETUP_STATE_DIR=$T/state

pass=0 failed=0 skipped=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
skip() { echo "skip $1"; skipped=$((skipped + 1)); }

ini() { # ini NAME BODY: write $T/NAME.ini
	printf '%b' "$2" >"$T/$1.ini"
}

# expect_error NAME WANT ARGS...: seqbond-setup ARGS exits 1 with exactly one stderr line
# that starts with "seqbond-setup: " and contains WANT.
expect_error() {
	local name=$1 want=$2 rc=0 err
	shift 2
	err=$("$SETUP" "$@" 2>&1 >/dev/null) || rc=$?
	if ((rc != 1)); then
		bad "$name: exit $rc, want 1 ($err)"
	elif [[ $(wc -l <<<"$err") -ne 1 ]]; then
		bad "$name: $(wc -l <<<"$err") lines on stderr, want one:"$'\n'"$err"
	elif [[ $err != "seqbond-setup: "*"$want"* ]]; then
		bad "$name: '$err' does not say '$want'"
	else
		ok "$name: $err"
	fi
}

HEAD='[seqbond]\nmac = 02:53:42:00:00:01 ; a comment\n'

# --- the file ------------------------------------------------------------------------------
expect_error "unreadable file" "$T/none.ini: cannot read: No such file or directory" \
	--check --config "$T/none.ini"
ini outside 'host_id = 3\n[seqbond]\n'
expect_error "key outside a section" "$T/outside.ini: line 1: host_id: key outside any section" \
	--check "$T/outside.ini"
ini nosection "${HEAD}[port0\ndevice = 0000:00:1f.0\n"
expect_error "broken section header" "$T/nosection.ini: line 3: '[port0': expected [section]" \
	--check "$T/nosection.ini"
ini noports "$HEAD"
expect_error "no port" "$T/noports.ini: [seqbond]: no [portN] section" --check "$T/noports.ini"
ini hole "${HEAD}[port0]\ndevice = net_af_packet0,iface=lo\n[port2]\ndevice = 0000:00:1f.0\n"
expect_error "ports with a hole" "$T/hole.ini: [port1]: section missing" --check "$T/hole.ini"
ini nodevice "${HEAD}[port0]\nrate_mbit = 100\n"
expect_error "port without device" "$T/nodevice.ini: [port0]: key 'device' is required" \
	--check "$T/nodevice.ini"
ini port16 "${HEAD}[port16]\ndevice = 0000:00:1f.0\n"
expect_error "port16" "$T/port16.ini: [port16]: port sections are port0..port15" \
	--check "$T/port16.ini"
ini dup "${HEAD}[port0]\ndevice = 0000:7f:1f.0\n[port1]\ndevice = 7f:1f.0\n"
expect_error "same PCI device twice (short and long form)" \
	"$T/dup.ini: [port1] device = '7f:1f.0': same device as [port0]" --check "$T/dup.ini"
ini excname "${HEAD}[exception]\nname = a/b\n[port0]\ndevice = net_af_packet0,iface=lo\n"
expect_error "bad exception name" "$T/excname.ini: [exception] name = 'a/b': not a valid" \
	--check "$T/excname.ini"

# --- devices -------------------------------------------------------------------------------
ini missing "${HEAD}[port0]\ndevice = 0000:7f:1f.7\n"
expect_error "PCI device missing" \
	"$T/missing.ini: [port0] device = '0000:7f:1f.7': no such PCI device" --check "$T/missing.ini"
expect_error "PCI device missing (set up)" "no such PCI device" "$T/missing.ini"
ini noif "${HEAD}[port0]\ndevice = net_af_packet0,iface=sbnosuch0,qdisc_bypass=0\n"
expect_error "vdev interface missing" \
	"[port0] device = 'net_af_packet0,iface=sbnosuch0,qdisc_bypass=0': no network interface" \
	--check "$T/noif.ini"

# A PCI device of this host that is no NIC (a host bridge, ...), if there is one.
notnic=""
for d in /sys/bus/pci/devices/*; do
	[[ -e $d/class ]] || continue
	if [[ $(cat "$d/class") != 0x02* ]]; then
		notnic=${d##*/}
		break
	fi
done
if [[ -n $notnic ]]; then
	ini notnic "${HEAD}[port0]\ndevice = $notnic\n"
	expect_error "not a NIC ($notnic)" "[port0] device = '$notnic': not a network controller" \
		--check "$T/notnic.ini"
else
	skip "not a NIC: this host has no PCI device that is not a NIC"
fi

# A PCI NIC with an address (the host's own uplink, typically): --check must refuse it.
inuse="" inuse_if=""
for d in /sys/class/net/*; do
	dev=$(readlink -f "$d/device" 2>/dev/null || true)
	[[ -n $dev ]] || continue
	pci=$(grep -oE '[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]' <<<"$dev" | tail -n 1 || true)
	[[ -n $pci ]] || continue
	if [[ -n $(ip -o addr show dev "${d##*/}" scope global 2>/dev/null) ]]; then
		inuse=$pci inuse_if=${d##*/}
		break
	fi
done
if [[ -n $inuse ]]; then
	ini inuse "${HEAD}[port0]\ndevice = $inuse\n"
	expect_error "NIC in use ($inuse, $inuse_if)" \
		"[port0] device = '$inuse': interface $inuse_if is in use (address " --check "$T/inuse.ini"
else
	skip "NIC in use: no PCI NIC with an address here"
fi

# Made-up PCI tree: one free NIC, no drivers. Setup gets past the device checks, so the
# driver choice and the module load run for real (hugepages: --hugepages 0 leaves them).
mkdir -p "$T/pci/devices/0000:7f:00.0" "$T/pci/drivers"
echo 0x020000 >"$T/pci/devices/0000:7f:00.0/class"
ini fake "${HEAD}[port0]\ndevice = 0000:7f:00.0\n"
if ((EUID != 0)); then
	skip "module and driver choice: need root"
elif [[ -d /sys/bus/pci/drivers/uio_pci_generic ]]; then
	skip "module unavailable: uio_pci_generic is loaded on this host"
else
	SEQBOND_SYSFS_PCI=$T/pci expect_error "module unavailable" \
		"kernel module uio_pci_generic unavailable: " --hugepages 0 --config "$T/fake.ini"
	if [[ -z $(ls /sys/kernel/iommu_groups 2>/dev/null) ]]; then
		SEQBOND_SYSFS_PCI=$T/pci expect_error "vfio-pci without an IOMMU" \
			"vfio-pci needs an active IOMMU" --hugepages 0 --driver vfio-pci "$T/fake.ini"
	else
		skip "vfio-pci without an IOMMU: this host has an IOMMU"
	fi
fi
expect_error "bad --hugepages" "--hugepages 'lots': expected a size like 512M" \
	--hugepages lots "$T/noif.ini" --check
if ((EUID != 0)); then
	expect_error "setup needs root" "must run as root" "$T/fake.ini"
fi

# --- the cluster key file (checked as seqbond checks it) ----------------------------------
KEY_A=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
KEY_B=f0e1d2c3b4a5968778695a4b3c2d1e0fffeeddccbbaa99887766554433221100
keyini() { # keyini NAME: an instance of one vdev port whose key file is $T/NAME.key
	ini "$1" "[seqbond]\nmac = 02:53:42:00:00:01\ncluster_key_file = $T/$1.key\n[port0]
device = net_af_packet0,iface=lo\n"
}
keyfile() { # keyfile NAME MODE LINES...: write $T/NAME.key
	local name=$1 mode=$2
	shift 2
	printf '%s\n' "$@" >"$T/$name.key"
	chmod "$mode" "$T/$name.key"
}
keyini goodkey
keyfile goodkey 600 "# rollover" "$KEY_A" "" "$KEY_B"
rc=0
out=$("$SETUP" --check "$T/goodkey.ini" 2>&1) || rc=$?
# The fingerprint of KEY_A is lib/auth's frozen one (tests/unit/test_auth.c, FP_A_HEX).
if ((rc == 0)) && grep -q "key id 38 fingerprint 26abb573792c1729: sends and accepts" <<<"$out" &&
	grep -q "accepted too (rollover)" <<<"$out" && grep -q "cluster key file good" <<<"$out"; then
	ok "key file: both keys' ids and fingerprints, as seqbond prints them"
else
	bad "key file good (exit $rc):"$'\n'"$out"
fi
keyini modekey
keyfile modekey 644 "$KEY_A"
expect_error "key file readable by others" "cluster_key_file = '$T/modekey.key': mode 0644" \
	--check "$T/modekey.ini"
keyini linkkey
keyfile linkkey.real 600 "$KEY_A"
ln -sf "$T/linkkey.real.key" "$T/linkkey.key"
expect_error "key file behind a symbolic link" "is a symbolic link: name the key file itself" \
	--check "$T/linkkey.ini"
keyini hexkey
keyfile hexkey 600 "${KEY_A:0:20}x${KEY_A:21}"
expect_error "key with a non-hex character" "line 1: character 21 of the key is not a hex digit" \
	--check "$T/hexkey.ini"
keyini shortkey
keyfile shortkey 600 "${KEY_A:0:62}"
expect_error "short key" "the key has 62 hex characters; it needs exactly 64" \
	--check "$T/shortkey.ini"
keyini zerokey
keyfile zerokey 600 "$(printf '0%.0s' {1..64})"
expect_error "all-zero key" "the key is all zeros" --check "$T/zerokey.ini"
keyini twicekey
keyfile twicekey 600 "$KEY_A" "$KEY_A"
expect_error "the same key twice" "lines 1 and 2 hold the same key" --check "$T/twicekey.ini"
keyini threekey
keyfile threekey 600 "$KEY_A" "$KEY_B" "$KEY_A"
expect_error "three keys" "line 3: a third key" --check "$T/threekey.ini"
keyini nokey
keyfile nokey 600 "# nothing"
expect_error "no key" "no key: one line of 64 hex characters" --check "$T/nokey.ini"
keyini missingkey
expect_error "missing key file" "missingkey.key': No such file or directory" \
	--check "$T/missingkey.ini"

# --- --status, --reset ---------------------------------------------------------------------
ini vdev "${HEAD}[port0]\ndevice = net_af_packet0,iface=lo\n[port1]
device = net_af_packet1,iface=sbnosuch1\n[port2]\ndevice = 0000:7f:1f.7\n"
rc=0
out=$("$SETUP" --status "$T/vdev.ini" 2>&1) || rc=$?
if ((rc == 0)) && grep -qE '^  0 +net_af_packet0 +\(vdev\) .* lo +interface present$' <<<"$out" &&
	grep -qE '^  1 .* sbnosuch1 +interface missing$' <<<"$out" &&
	grep -qE '^  2 +0000:7f:1f.7 .* no such PCI device$' <<<"$out" &&
	grep -q '^hugepages: ' <<<"$out" && grep -q '^DPDK drivers loaded: ' <<<"$out"; then
	ok "--status without PCI NICs: one row per port, hugepages, drivers"
else
	bad "--status without PCI NICs (exit $rc):"$'\n'"$out"
fi
rc=0
out=$("$SETUP" --status 2>&1) || rc=$?
if ((rc == 0)) && grep -q '^hugepages: ' <<<"$out"; then
	ok "--status without a file: dpdk-devbind.py's view and hugepages"
else
	bad "--status without a file (exit $rc):"$'\n'"$out"
fi
if ((EUID == 0)); then
	rc=0
	out=$("$SETUP" --reset "$T/vdev.ini" 2>&1) || rc=$?
	if ((rc == 0)) && [[ -z $out ]]; then
		ok "--reset with no port bound: nothing to do, nothing said"
	else
		bad "--reset with no port bound (exit $rc): $out"
	fi
fi

# --- --wait-ready --------------------------------------------------------------------------
ini ready "${HEAD}[exception]\nname = sbready0\n[port0]\ndevice = net_af_packet0,iface=lo\n"
expect_error "--wait-ready timeout" \
	"$T/ready.ini: [exception] name = 'sbready0': interface not created within 0.5 s" \
	--wait-ready --timeout 0.5 "$T/ready.ini"
# A pid that has just ended (a signal to a child before its exec would run our EXIT trap).
/bin/true &
dead=$!
wait "$dead" || true
expect_error "--wait-ready, seqbond gone" "seqbond (pid $dead) exited before sbready0 appeared" \
	--wait-ready --pid "$dead" --timeout 5 "$T/ready.ini"
if ((EUID == 0)) && [[ -c /dev/net/tun ]] && unshare -n true 2>/dev/null; then
	# A process in a namespace of its own holds a TAP named sbready0 (TUNSETIFF), as seqbond
	# holds sb0; --wait-ready --pid must see it in that process's file descriptors.
	unshare -n python3 -c '
import fcntl, os, struct, sys, time
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", b"sbready0", 0x0002 | 0x1000))
open(sys.argv[1], "w").write("%d\n" % os.getpid())
time.sleep(60)' "$T/tap.pid" &
	tap_pid=$!
	for _ in $(seq 50); do [[ -s $T/tap.pid ]] && break; sleep 0.1; done
	rc=0
	out=$(nsenter -t "$tap_pid" -n "$SETUP" --wait-ready --pid "$tap_pid" --timeout 10 \
		"$T/ready.ini" 2>&1) || rc=$?
	if ((rc == 0)) && [[ $out == "seqbond-setup: sbready0 is up (pid $tap_pid holds it)" ]]; then
		ok "--wait-ready: TAP held by the process: $out"
	else
		bad "--wait-ready with a TAP (exit $rc): $out"
	fi
	# In the same namespace the interface exists, but this shell holds no descriptor of it.
	rc=0
	out=$(nsenter -t "$tap_pid" -n "$SETUP" --wait-ready --pid $$ --timeout 1 \
		"$T/ready.ini" 2>&1) || rc=$?
	if ((rc == 1)) && [[ $out == *"interface not created within 1 s" ]]; then
		ok "--wait-ready: TAP present but held by another process: not ready"
	else
		bad "--wait-ready: TAP held by another process (exit $rc): $out"
	fi
	kill "$tap_pid" 2>/dev/null || true
	tap_pid=""
else
	skip "--wait-ready with a TAP: needs root, /dev/net/tun and unshare"
fi

# --- usage ---------------------------------------------------------------------------------
rc=0
"$SETUP" name --config "$T/ready.ini" >/dev/null 2>&1 || rc=$?
((rc == 2)) && ok "NAME and --config together: usage error (exit 2)" ||
	bad "NAME and --config together: exit $rc, want 2"

echo "$pass passed, $failed failed, $skipped skipped"
((failed == 0))
