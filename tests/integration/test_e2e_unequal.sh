#!/usr/bin/env bash
# One TCP stream over 100 + 100 + 50 + 25 Mbit/s must reach >= 90% of the goodput that the sum
# (275 Mbit/s) would give as one link: 2.75 x one 100 Mbit/s link's goodput.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
sb_e2e 100,100,50,25 0.90
info "PASS"
