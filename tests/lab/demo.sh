#!/usr/bin/env bash
# demo.sh - a whole survey of a simulated region in about a minute, as root:
#
#   tests/lab/demo.sh [--keep]
#
# Builds what is missing (the ci preset: netsurvey and the delay line; the static preset: the
# nsperf deployed over ssh), brings up the region lab (3 zones x 1 host, the RTTs measured in an
# Azure region - 1-2 329 us, 1-3 597 us, 2-3 499 us - and caps of 800/400/200 Mbit/s), runs
# `netsurvey run plans/lab-region.yaml` over ssh, prints the two zone matrices, and takes the lab
# down again (--keep leaves it up: `tests/lab/lab ssh z1h1`, `tests/lab/lab down`). The reports
# are in results/lab-region-<timestamp>/ (report.html, report.md, summary.json, charts/).
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
keep=""
[[ ${1:-} == --keep ]] && keep=1
[[ $(id -u) == 0 ]] || {
    echo "demo: the lab needs root (network namespaces, TUN devices, sshd)" >&2
    exit 1
}
[[ -x build/ci/bin/netsurvey && -x build/ci/bin/nsperf-static && -x build/ci/tests/lab/nslab_delay ]] ||
    { cmake --preset ci >/dev/null && cmake --build --preset ci; }

export NSLAB_PREFIX=nslab NSLAB_DIR=/run/nslab # the paths plans/lab-region.yaml names
[[ -n $keep ]] || trap 'tests/lab/lab down >/dev/null 2>&1 || true' EXIT
tests/lab/lab up
# the delay line and the hosts on one CPU (why: tests/lab/README.md, "Where the RTT error came from")
tests/lab/lab pin
before=$(ls -d results/lab-region-* 2>/dev/null || true)
rc=0
build/ci/bin/netsurvey run plans/lab-region.yaml || rc=$?
dir=$(comm -13 <(echo "$before") <(ls -d results/lab-region-* 2>/dev/null) | tail -1)
if [[ -n $dir ]]; then
    for m in latency:"mean RTT in us; the lab itself adds 60-90 us" \
        throughput:"Mbit/s; expect 0.965 x the cap, which counts IP bytes"; do
        [[ -f $dir/matrix-${m%%:*}.csv ]] || continue
        printf '\n%s (rows: source zone; %s):\n' "${m%%:*}" "${m#*:}"
        column -t -s, "$dir/matrix-${m%%:*}.csv"
    done
    echo
    echo "reports: $dir/report.html  $dir/report.md"
fi
exit $rc
