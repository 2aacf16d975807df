#!/usr/bin/env bash
# One TCP stream over 4 x 100 Mbit/s must reach >= 95% of 4 x one link's goodput.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
sb_e2e 100,100,100,100 0.95
info "PASS"
