#!/usr/bin/env bash
# One TCP stream over 4 x 100 Mbit/s must reach >= 95% of 4 x one link's goodput.
# With two datapath lcores per host (test_e2e_equal_2lcores) the limit is 60 %, more than
# two links' worth: two hosts' four polling threads, iperf3 and the emulated links then share
# this machine's 2 CPUs, and the figure measures that oversubscription more than the split
# (0.809-0.869 of the sum-equivalent on 2026-12-01 with this code and the code before it
# alike; 0.685 then 0.742 in a suite run on 2026-12-02 with no freeze logged); what the
# 2-lcore run must show is the split datapath carrying a stream at rate with nothing
# reordered (the receiver's counters are printed). With the TAP PMD (test_e2e_equal_tap) the
# limit is 85 %: one system call per 1500-byte frame each way puts that exception path near
# this machine's CPU limit at 4 x 100 Mbit/s (docs/testing.md, "Throughput limits").
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
sb_require
factor=0.95
((${SEQBOND_DP_LCORES:-1} == 1)) || factor=0.60
[[ ${SEQBOND_TEST_EXCEPTION:-} != tap ]] || factor=0.85
sb_e2e 100,100,100,100 "$factor"
info "PASS"
