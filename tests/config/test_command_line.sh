#!/usr/bin/env bash
# seqbond's command line, handled before EAL starts: --help and -h (before or after --) print
# seqbond's usage; --eal-help prints DPDK's options; a missing, unknown, valueless or misplaced
# option and an unreadable config file give one line on stderr and exit status 1. None of
# these may start EAL: no "EAL:" line, and no runtime directory for the file prefix given.
# No root needed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${SEQBOND_BIN:-$ROOT/build/app/seqbond}
[[ -x $BIN ]] || { echo "FAIL: no seqbond binary at $BIN"; exit 1; }
prefix=sbcl-$$
if ((EUID == 0)); then rundir=/var/run/dpdk/$prefix; else rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix; fi
trap 'rm -rf "$rundir"' EXIT
EAL=(--no-huge -m 128 --no-pci --no-shconf --file-prefix "$prefix")
failed=0

# check NAME WANT_STATUS PATTERN ARGS...: run seqbond ARGS; status, one matching line, no EAL.
check() {
	local name=$1 want=$2 pattern=$3 rc=0 out
	shift 3
	out=$(timeout 10 "$BIN" "$@" 2>&1 </dev/null) || rc=$?
	if ((rc != want)); then
		echo "FAIL: $name: exit status $rc, want $want"; echo "$out" | head -5 | sed 's/^/    /'
		failed=$((failed + 1))
	elif ! grep -qE -- "$pattern" <<<"$out"; then
		echo "FAIL: $name: no line matching '$pattern'"; echo "$out" | head -5 | sed 's/^/    /'
		failed=$((failed + 1))
	elif grep -q '^EAL:' <<<"$out" || [[ -e $rundir ]]; then
		echo "FAIL: $name: EAL started"
		failed=$((failed + 1))
	elif ((want != 0)) && (($(grep -c . <<<"$out") != 1)); then
		echo "FAIL: $name: $(grep -c . <<<"$out") lines, want 1"; echo "$out" | sed 's/^/    /'
		failed=$((failed + 1))
	else
		echo "ok   $name: $(head -n 1 <<<"$out")"
	fi
}

check "--help" 0 '^  --console-socket PATH' --help
check "-h before --" 0 '^Usage: .* \[EAL options\] -- --config FILE' "${EAL[@]}" -h
check "-h after --" 0 'EAL options are DPDK.s and come before --' "${EAL[@]}" -- --config x.ini -h
check "no --config" 1 '^seqbond: --config FILE is required' "${EAL[@]}"
check "--config before --" 1 '^seqbond: --config is a seqbond option: it goes after --' \
	"${EAL[@]}" --config x.ini
check "-i before --" 1 '^seqbond: -i is a seqbond option' "${EAL[@]}" -i -- --config x.ini
check "unknown option" 1 "^seqbond: unknown option '--bogus'" "${EAL[@]}" -- --config x.ini --bogus
check "option without value" 1 '^seqbond: option --config needs a value' "${EAL[@]}" -- --config
check "stray argument" 1 "^seqbond: unexpected argument 'extra'" "${EAL[@]}" -- --config x.ini extra
check "unreadable config" 1 '^seqbond: config error: /nonexistent/x.ini: cannot read' \
	"${EAL[@]}" -- --config /nonexistent/x.ini
check "empty socket path" 1 '^seqbond: --console-socket: empty path' \
	"${EAL[@]}" -- --config x.ini --console-socket ''
check "no console name" 1 '^seqbond: --config /tmp/: no console name' \
	"${EAL[@]}" -- --config /tmp/

# --eal-help hands over to EAL, which prints its options (and ours) and exits with success.
rc=0
out=$(timeout 10 "$BIN" --eal-help 2>&1 </dev/null) || rc=$?
if ((rc != 0)) || ! grep -q 'EAL common options' <<<"$out" || ! grep -q -- '--console-socket' <<<"$out"; then
	echo "FAIL: --eal-help: status $rc"; echo "$out" | head -5 | sed 's/^/    /'
	failed=$((failed + 1))
else
	echo "ok   --eal-help: EAL's options and seqbond's"
fi
echo "test_command_line: $failed failed"
((failed == 0))
