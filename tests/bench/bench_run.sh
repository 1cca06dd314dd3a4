#!/bin/sh
# bench_run.sh [BUILD_DIR] - what `netsurvey run` costs on top of the tests themselves (issue 8).
#
# 1. Orchestration overhead per test: a 2-host plan, 20 sequential tcp_rr tests of
#    0.1 s warmup + 0.5 s. Per trial: (ended - started) from the journal minus warmup + duration
#    -> median and max; and over the run: (wall - sum over rounds of warmup + duration) / tests.
#    Goal: median <= 50 ms. For scale, the same test run by hand (nsperf -s -1 / nsperf -c, no
#    netsurvey) is timed too: what is left after subtracting it is netsurvey's own share.
# 2. A parallel survey of 6 local hosts (pairs: all -> 10 rounds of 3 concurrent tests of
#    0.1 s + 1 s): wall time against the schedule's pure test time. Goal: within 5 % (issue 20;
#    it was 15 % while each test cost nsperf about 150 ms beyond its duration).
# Not a ctest test: timings belong to a quiet machine. Needs jq.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
ns=$build/bin/netsurvey
nsperf=$build/bin/nsperf
for b in "$ns" "$nsperf"; do
    if [ ! -x "$b" ]; then
        echo "bench_run: no $b; build first or pass BUILD_DIR" >&2
        exit 2
    fi
done
command -v jq >/dev/null || { echo "bench_run: needs jq" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }

# --- 1. overhead per test ---------------------------------------------------------------------
cat >"$tmp/two.yaml" <<'YAML'
name: bench-two
hosts:
  - {name: a, transport: local, data_address: 127.0.0.41}
  - {name: b, transport: local, data_address: 127.0.0.42}
scenarios:
  - {name: rr, test: tcp_rr, duration: 0.5s, warmup: 0.1s}
trials: 10
pairs: all
parallel: true
YAML
t0=$(now)
"$ns" run "$tmp/two.yaml" -o "$tmp/two" -q >/dev/null
t1=$(now)
rounds=$(jq .schedule.rounds "$tmp/two/run.json")
tests=$(jq .schedule.tests "$tmp/two/run.json")
# Per trial: ended - started (millisecond timestamps) - (warmup + duration), in ms, sorted.
jq -r '
  def secs: capture("T(?<h>..):(?<m>..):(?<s>[0-9.]+)Z") | (.h|tonumber)*3600 + (.m|tonumber)*60 + (.s|tonumber);
  ((.ended|secs) - (.started|secs) - .scenario.warmup_s - .scenario.duration_s) * 1000' \
    "$tmp/two/results.jsonl" | sort -n >"$tmp/per_test"
median=$(awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}' "$tmp/per_test")
max=$(tail -n1 "$tmp/per_test")
wall=$(calc "$t1 - $t0")
run_overhead=$(calc "($wall - $rounds * 0.6) * 1000 / $tests")

# The same test by hand, without netsurvey: nsperf's own setup and teardown.
echo bench-token >"$tmp/token"
bare_total=0
mkfifo "$tmp/ready"
for i in 1 2 3 4 5; do
    s=$(now)
    "$nsperf" -s -1 -p 0 -B 127.0.0.42 --token-file "$tmp/token" >"$tmp/ready" 2>/dev/null &
    srv=$!
    exec 3<"$tmp/ready"
    read -r line <&3
    port=$(echo "$line" | sed 's/.*"port":\([0-9]*\).*/\1/')
    "$nsperf" -c 127.0.0.42 -p "$port" -B 127.0.0.41 --token-file "$tmp/token" --test tcp_rr \
        -t 0.5 --warmup 0.1 -J >/dev/null
    wait "$srv" || true
    exec 3<&-
    e=$(now)
    bare_total=$(calc "$bare_total + ($e - $s - 0.6) * 1000")
done
bare=$(calc "$bare_total / 5")
printf 'overhead per test (%d tests of 0.1 s + 0.5 s, %d rounds, wall %.2f s):\n' "$tests" "$rounds" "$wall"
printf '  per trial from the journal: median %.0f ms, max %.0f ms (goal: median <= 50 ms)\n' "$median" "$max"
printf '  whole run: (wall - sum of warmup + duration) / tests = %.0f ms\n' "$run_overhead"
printf '  the same test by hand (nsperf -s / -c, no netsurvey): %.0f ms over warmup + duration\n' "$bare"
printf '  => netsurvey own share: about %.0f ms per test\n' "$(calc "$median - $bare")"

# --- 2. six hosts in parallel -----------------------------------------------------------------
{
    echo "name: bench-six"
    echo "hosts:"
    for i in 1 2 3 4 5 6; do
        echo "  - {name: h$i, transport: local, data_address: 127.0.0.5$i, zone: \"$((i % 3))\"}"
    done
    echo "scenarios:"
    echo "  - {name: rr, test: tcp_rr, duration: 1s, warmup: 0.1s}"
    echo "pairs: all"
    echo "parallel: true"
} >"$tmp/six.yaml"
t0=$(now)
"$ns" run "$tmp/six.yaml" -o "$tmp/six" -q >/dev/null
t1=$(now)
rounds=$(jq .schedule.rounds "$tmp/six/run.json")
tests=$(jq .schedule.tests "$tmp/six/run.json")
wall=$(calc "$t1 - $t0")
pure=$(calc "$rounds * 1.1")
printf '6 hosts, %d tests in %d rounds: wall %.2f s, pure test time %.2f s, +%.1f %% (goal: <= 5 %%)\n' \
    "$tests" "$rounds" "$wall" "$pure" "$(calc "($wall / $pure - 1) * 100")"
