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
echo "test_config_errors: $pass passed, $failed failed ($eal_started found once EAL ran, the rest before)"
((failed == 0))
