#!/usr/bin/env bash
# Table-driven test of configuration errors: every tests/fixtures/bad/*.ini must stop seqbond
# with a non-zero exit status and one message naming the file and what its "; expect:" line
# says (section, key and value, and why). Needs no root: EAL runs with --no-huge --no-shconf
# (--in-memory implies hugepage options that --no-huge refuses).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${SEQBOND_BIN:-$ROOT/build/app/seqbond}
FIX=$ROOT/tests/fixtures/bad
[[ -x $BIN ]] || { echo "FAIL: no seqbond binary at $BIN"; exit 1; }

# As root, run in a network namespace of our own: a file that were accepted by mistake would
# start seqbond, which must not create interfaces or send frames in the host's namespace.
if ((EUID == 0)) && [[ -z ${SB_CONFIG_TEST_NS:-} ]] && unshare -n true 2>/dev/null; then
	exec env SB_CONFIG_TEST_NS=1 unshare -n bash "$0" "$@"
fi

# A file whose error shows only once DPDK runs (an unknown device) starts EAL, which leaves its
# runtime directory behind: give this run its own file prefix and remove that directory.
prefix=sbcfg-$$
if ((EUID == 0)); then rundir=/var/run/dpdk/$prefix; else rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix; fi
trap 'rm -rf "$rundir"' EXIT

pass=0 failed=0 eal_started=0
for f in "$FIX"/*.ini; do
	name=$(basename "$f" .ini)
	want=$(sed -n 's/^; expect: //p' "$f")
	[[ -n $want ]] || { echo "FAIL: $name: fixture has no '; expect:' line"; failed=$((failed + 1)); continue; }
	rc=0
	out=$(timeout 10 "$BIN" --no-huge -m 128 --no-pci --no-shconf --no-telemetry \
		--file-prefix "$prefix" --log-level=lib.eal:error -- --config "$f" 2>&1 </dev/null) || rc=$?
	if [[ -d $rundir ]]; then
		eal_started=$((eal_started + 1))
		rm -rf "$rundir"
	fi
	line=$(grep -F -- "$f" <<<"$out" | grep -vi 'CFGFILE' | head -n 1 || true)
	if ((rc == 0 || rc == 124)); then
		echo "FAIL: $name: exit status $rc (want a config error)"
		echo "$out" | tail -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
	elif [[ -z $line ]]; then
		echo "FAIL: $name: no message names the file $f"
		echo "$out" | tail -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
	elif ! grep -qF -- "$f: $want" <<<"$line" && ! grep -qF -- "$want" <<<"$line"; then
		echo "FAIL: $name: message does not say \"$want\""
		echo "    $line"
		failed=$((failed + 1))
	else
		echo "ok   $name (exit $rc): ${line#*"$f": }"
		pass=$((pass + 1))
	fi
done

# The cluster key file (app/control/sb_keyfile.c), read before EAL: cases made here, since
# git keeps no file modes but the executable bit. Each: a key file's content and mode, and
# the message, which names the INI file, the key and the key file.
keydir=$(mktemp -d /tmp/sbcfg-keys.XXXXXX)
trap 'rm -rf "$rundir" "$keydir"' EXIT
k1=$(printf '%064x' 1)
k2=00112233445566778899aabbccddeeff00112233445566778899aabbccddeef0
key_case() {
	local name=$1 mode=$2 content=$3 want=$4 ini out rc=0
	ini=$keydir/$name.ini
	if [[ $mode != none ]]; then
		printf '%b' "$content" >"$keydir/$name.key"
		chmod "$mode" "$keydir/$name.key"
	fi
	printf '[seqbond]\nhost_id = 1\nmac = 02:53:42:00:00:01\ncluster_key_file = %s\n[port0]\ndevice = net_null0\nrate_mbit = 100\n' \
		"$keydir/$name.key" >"$ini"
	out=$(timeout 10 "$BIN" --no-huge -m 128 --no-pci --no-shconf --no-telemetry \
		--file-prefix "$prefix" --log-level=lib.eal:error -- --config "$ini" 2>&1 </dev/null) || rc=$?
	[[ ! -d $rundir ]] || { eal_started=$((eal_started + 1)); rm -rf "$rundir"; }
	if ((rc == 0 || rc == 124)); then
		echo "FAIL: key-$name: exit status $rc (want a config error)"
		failed=$((failed + 1))
	elif ! grep -qF -- "$ini: [seqbond] cluster_key_file: $keydir/$name.key: $want" <<<"$out"; then
		echo "FAIL: key-$name: message does not say \"$want\""
		echo "$out" | tail -n 3 | sed 's/^/    /'
		failed=$((failed + 1))
	elif grep -qiF -- "$k1" <<<"$out" || grep -qiF -- "$k2" <<<"$out"; then
		echo "FAIL: key-$name: the message shows key material"
		failed=$((failed + 1))
	else
		echo "ok   key-$name (exit $rc): $(grep -F -- "$ini" <<<"$out" | head -n 1 | sed "s|.*$keydir/$name.key: ||")"
		pass=$((pass + 1))
	fi
}
key_case missing none "" "cannot open: No such file or directory"
key_case world-readable 644 "$k1\n" "mode 0644: a cluster key file must not be readable or writable by group or others"
key_case group-writable 620 "$k1\n" "mode 0620"
key_case empty 600 "# made by hand\n\n" "no key: one line of 64 hex characters"
key_case short 600 "${k1:0:63}\n" "line 1: the key has 63 hex characters (an odd number); it needs exactly 64 (32 bytes)"
key_case not-hex 600 "# ok\n${k1:0:10}x${k1:11}\n" "line 2: character 11 of the key is not a hex digit"
key_case zero 600 "$(printf '%064d' 0)\n" "line 1: the key is all zeros"
key_case three 600 "$k1\n$k2\n$k1\n" "line 3: a third key"
key_case twice 600 "$k2\n\n$k2\n" "lines 1 and 3 hold the same key"

echo "test_config_errors: $pass passed, $failed failed ($eal_started found once EAL ran, the rest before)"
((failed == 0))
