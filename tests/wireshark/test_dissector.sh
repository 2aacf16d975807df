#!/usr/bin/env bash
# The Wireshark dissector (tools/wireshark/seqbond.lua), wire format version 4.
#
# 1. Valid frames made as the datapath makes them (mkframes.c: lib/wire's encoder, lib/auth's
#    tags): tshark shows every field as it was encoded (check_fields.py), the DATA
#    authentication header (length, key id, the receiver's key generation, PN high, the
#    64-bit packet number, tag, Ethernet padding after the length), the inner frame at offset
#    46, the hello trailer with the sender's key generation, its reserved bytes and session
#    nonce, the entries' key ids; frames of versions 3 and 5 as "version N (this
#    dissector decodes version 4)" and nothing more.
# 2. 2000 malformed shim frames (malformed_pcap.py: those frames cut after every byte, every
#    version x type, every flags value, every path id, absurd hellos, trailers (either
#    reserved byte set) and authentication headers, any key generation, seeded mutations):
#    tshark dissects them all in under 10 s with no Lua error, and flags exactly the frames
#    the receiver's rules (lib/wire) refuse, class by class. A copy of the dissector without
#    its guard around the inner dissectors must show Lua errors here: proof that the pcap
#    holds the frames that once raised them and that this test sees such errors.
#
#   test_dissector.sh [MKFRAMES]   (meson passes build/tests/wireshark/mkframes)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LUA=$ROOT/tools/wireshark/seqbond.lua
MKFRAMES=${1:-$ROOT/build/tests/wireshark/mkframes}
command -v tshark >/dev/null || { echo "SKIP: tshark not installed (tools/install-deps)"; exit 77; }
work=$(mktemp -d /tmp/seqbond-dissector.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: test_dissector: $*" >&2; exit 1; }
[[ -x $MKFRAMES ]] || fail "$MKFRAMES not built (ninja -C build)"

"$MKFRAMES" "$work/valid.pcap" "$work/valid.json" || fail "mkframes"
python3 "$ROOT/tests/wireshark/check_fields.py" "$work/valid.json" "$LUA" "$work/valid.pcap" ||
	fail "tshark does not show the valid frames as they were encoded"

python3 "$ROOT/tests/wireshark/malformed_pcap.py" "$work/m.pcap" "$work/expect.json" \
	--bases "$work/valid.pcap" --count 2000

# tshark_run LUA_FILE ARGS...: tshark with the dissector; its stdout and stderr in $work/out.
tshark_run() {
	local lua=$1
	shift
	tshark -X "lua_script:$lua" -r "$work/m.pcap" "$@" >"$work/out" 2>&1
}

start=$(date +%s.%N)
tshark_run "$LUA" -V || fail "tshark exited with status $?"
secs=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" \
	"$start" "$(date +%s.%N)")
echo "# tshark -V over 2000 malformed frames: $secs s"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 10)' "$secs" || fail "took $secs s (limit 10 s)"
errors=$(grep -c 'Lua Error' "$work/out" || true)
((errors == 0)) || { grep -m 3 'Lua Error' "$work/out"; fail "$errors Lua errors"; }

# Every frame is dissected as seqbond, and each class holds exactly the expected frames.
for class in seqbond truncated bad_version bad_type bad_flags bad_path bad_hello bad_entry; do
	filter=seqbond
	[[ $class == seqbond ]] || filter=seqbond.$class
	tshark_run "$LUA" -Y "$filter" -T fields -e frame.number || fail "tshark -Y $filter"
	got=$(grep -E '^[0-9]+$' "$work/out" | paste -sd, -)
	want=$(python3 -c 'import json, sys; print(",".join(map(str, json.load(open(sys.argv[1]))[sys.argv[2]])))' \
		"$work/expect.json" "$class")
	if [[ $got != "$want" ]]; then
		python3 - "$got" "$want" "$class" <<'PY'
import sys
got = set(int(x) for x in sys.argv[1].split(",") if x)
want = set(int(x) for x in sys.argv[2].split(",") if x)
print("    %s: flagged but not expected: %s" % (sys.argv[3], sorted(got - want)[:10]))
print("    %s: expected but not flagged: %s" % (sys.argv[3], sorted(want - got)[:10]))
PY
		fail "frames flagged $filter differ from the receiver's rules"
	fi
	echo "# $filter: $(tr ',' '\n' <<<"$got" | grep -c .) frames, as expected"
done

# The canary: without pcall around the inner dissectors, malformed inner frames are Lua errors.
sed 's/pcall(fn, \.\.\.)/fn(...)/' "$LUA" >"$work/unguarded.lua"
! cmp -s "$LUA" "$work/unguarded.lua" || fail "canary: the guard in seqbond.lua was not found"
tshark_run "$work/unguarded.lua" -V || true
canary=$(grep -c 'Lua Error' "$work/out" || true)
((canary > 0)) || fail "canary: the unguarded dissector raised no Lua error: this test cannot see them"
echo "# canary: the unguarded dissector raises $canary Lua errors on the same frames"
echo "test_dissector: PASS"
