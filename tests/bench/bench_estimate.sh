#!/bin/sh
# bench_estimate.sh [BUILD_DIR] [PLAN...] - the schedule's estimate against the wall time of the
# run (issue 21: within +-20 %). For each plan (default: four local plans of 2, 4, 6 and 16
# hosts, serial and parallel, rr and stream kinds) it runs `netsurvey run`, then prints the
# estimate (run.json's schedule.estimate_s), the measured wall time of the whole command, their
# ratio, and what run.json's "measured" says (opening the hosts, the mean setup of a round):
# the figures PLAN_SETUP_*_S and PLAN_OPEN_*_S (src/plan/plan.h) were set from; run_wall is
# run.json's (the survey without the reports rendered after it). Exit 1 when a
# ratio is outside 0.8..1.2. For the lab: `flock /work/wt/lab.lock` around `tests/lab/lab up`,
# then pass the plan `tests/lab/lab plan` writes (shortened). Timings: a quiet machine, not a
# ctest test. Needs jq.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
[ $# -gt 0 ] && shift
ns=$build/bin/netsurvey
[ -x "$ns" ] || { echo "bench_estimate: no $ns; build first or pass BUILD_DIR" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_estimate: needs jq" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen() { # name hosts parallel trials scenario-lines...
    name=$1 n=$2 par=$3 trials=$4
    shift 4
    {
        echo "name: $name"
        echo "hosts:"
        i=1
        while [ "$i" -le "$n" ]; do
            echo "  - {name: h$i, transport: local, data_address: 127.0.2.$i, zone: \"$((i % 3))\"}"
            i=$((i + 1))
        done
        echo "scenarios:"
        for s in "$@"; do echo "  - $s"; done
        echo "trials: $trials"
        echo "parallel: $par"
    } >"$tmp/$name.yaml"
    echo "$tmp/$name.yaml"
}

if [ $# -eq 0 ]; then
    set -- \
        "$(gen two 2 true 3 '{name: rr, test: tcp_rr, duration: 1s, warmup: 0.5s}' \
            '{name: st, test: tcp_stream, duration: 1s, warmup: 0.5s}')" \
        "$(gen four 4 false 2 '{name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}')" \
        "$(gen six 6 true 1 '{name: rr, test: udp_rr, duration: 2s, warmup: 1s}' \
            '{name: st, test: udp_stream, duration: 2s, warmup: 1s, rate: 100M}')" \
        "$(gen sixteen 16 true 1 '{name: rr, test: tcp_rr, duration: 0.1s, warmup: 0s}')"
fi

bad=0
printf '%-12s %6s %9s %9s %6s %9s %8s %9s\n' plan tests estimate measured ratio run_wall open_s setup_s
n=0
for plan in "$@"; do
    n=$((n + 1))
    dir=$tmp/run-$n
    t0=$(date +%s.%N)
    "$ns" run "$plan" -q -o "$dir" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; bad=1; continue; }
    t1=$(date +%s.%N)
    est=$(jq '.schedule.estimate_s' "$dir/run.json")
    tests=$(jq '.schedule.tests' "$dir/run.json")
    wall=$(jq ".measured.wall_s" "$dir/run.json")
    open=$(jq '.measured.open_hosts_s' "$dir/run.json")
    setup=$(jq '[.measured.local.setup_mean_s, .measured.ssh.setup_mean_s] | map(select(. != null)) | .[0]' "$dir/run.json")
    out=$(awk -v e="$est" -v a="$t0" -v b="$t1" -v o="$open" -v s="$setup" -v p="$(basename "$plan" .yaml)" -v t="$tests" -v rw="$wall" \
        'BEGIN { w = b - a; r = e / w; printf "%-12s %6d %9.1f %9.1f %6.2f %9.1f %8.2f %9.3f%s\n", p, t, e, w, r, rw, o, s, (r < 0.8 || r > 1.2) ? "  OUT OF BOUNDS" : "" }')
    echo "$out"
    case $out in *"OUT OF BOUNDS"*) bad=1 ;; esac
done
exit $bad
