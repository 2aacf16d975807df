#!/usr/bin/env bash
# A 256 MiB random file sent over sb0 with socat arrives intact (same size and sha256).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
sb_require_tools socat

size_mib=256
port=5300
src=$SB_WORK/src.bin
dst=$SB_WORK/dst.bin
head -c $((size_mib << 20)) /dev/urandom >"$src"
want=$(sha256sum "$src" | cut -d' ' -f1)

sb_up --links 4 --rate 100
sb_ping_ok a b

sb_send_file a b "$port" "$src" "$dst"
secs=$SB_XFER_SECS
got=$(sha256sum "$dst" | cut -d' ' -f1)
info "sent $size_mib MiB in $secs s ($(calc "$size_mib * 8 * 1.048576 / $secs") Mbit/s)"
info "sha256 sent     $want"
info "sha256 received $got ($(stat -c %s "$dst") bytes)"
[[ $got == "$want" ]] || fail "file arrived different"
info "PASS"
