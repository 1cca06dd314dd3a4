#!/bin/sh
# bench_report.sh [BUILD_DIR] - `netsurvey report` on a crafted journal of 100 000 trials from
# 100 hosts (9 900 host pairs, a tcp_rr and a tcp_stream scenario; every tcp_rr trial carries
# nsperf's histogram of 20 000 round trips at 1 024 buckets per octave) must take <= 2 s of CPU
# (user + sys) and <= 256 MiB, gnuplot time aside (issue 9). NS_BENCH_SHAPE chooses the round
# trips' distribution: cloud (the default: a link between zones, DESIGN.md's trial, ~180 buckets
# a trial) or loopback (the loopback sample's, p90 at 1.5 x p50: ~1 190 buckets, the stress
# case; until issue 19 the bench used it in the old layout, ~150 buckets). Runs the report three times without gnuplot
# (NETSURVEY_GNUPLOT points nowhere) and checks the best CPU time and the worst peak RSS, then
# once with gnuplot to show its share. Wall time is printed only: a busy machine stretches it without any fault of ours.
# Not a ctest test: timings belong to a quiet machine. NS_BENCH_HOSTS / NS_BENCH_TRIALS
# override the size. Needs python3 (the generator) and GNU time as /usr/bin/time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
bin=$build/bin/netsurvey
hosts=${NS_BENCH_HOSTS:-100}
trials=${NS_BENCH_TRIALS:-100000}
max_cpu=2.0
max_kib=262144

if [ ! -x "$bin" ]; then
    echo "bench_report: no netsurvey at $bin; build first or pass BUILD_DIR" >&2
    exit 2
fi
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
    echo "bench_report: GNU time is missing as /usr/bin/time (apt-get install time)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shape=${NS_BENCH_SHAPE:-cloud}
python3 "$root/tests/report/gen_journal.py" bench "$tmp/run" "$hosts" "$trials" "$shape"
echo "journal: $trials trials, $hosts hosts, $shape-shaped RTTs, $(wc -c <"$tmp/run/results.jsonl") bytes"

best=999
worst=0
for i in 1 2 3; do
    NETSURVEY_GNUPLOT=/nonexistent/gnuplot /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
        "$bin" report "$tmp/run" -o "$tmp/out" 2>"$tmp/err" || {
        echo "bench_report: netsurvey report failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    }
    read -r wall user sys kib <"$tmp/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    echo "report (no gnuplot) run $i: cpu ${cpu} s (user $user, sys $sys), wall ${wall} s, max rss $((kib / 1024)) MiB"
    best=$(echo "$best $cpu" | awk '{ print ($2 < $1) ? $2 : $1 }')
    [ "$kib" -gt "$worst" ] && worst=$kib
done
/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" report "$tmp/run" -o "$tmp/out2" \
    2>"$tmp/err" || true
read -r wall user sys kib <"$tmp/time"
echo "report with gnuplot ($(ls "$tmp/out2/charts" 2>/dev/null | grep -c svg || true) charts): wall ${wall} s, cpu incl. gnuplot user $user sys $sys, max rss $((kib / 1024)) MiB"
echo "outputs: $(du -sh "$tmp/out" | cut -f1) ($(ls "$tmp/out" | tr '\n' ' '))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
if awk -v c="$best" -v m="$max_cpu" 'BEGIN { exit !(c > m) }'; then
    echo "FAIL: best cpu ${best} s > ${max_cpu} s"
    fail=1
fi
if [ "$worst" -gt "$max_kib" ]; then
    echo "FAIL: max rss $((worst / 1024)) MiB > $((max_kib / 1024)) MiB"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: best cpu ${best} s <= ${max_cpu} s, max rss $((worst / 1024)) MiB <= $((max_kib / 1024)) MiB"
exit "$fail"
