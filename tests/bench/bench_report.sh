#!/bin/sh
# bench_report.sh [BUILD_DIR] - `netsurvey report` on a crafted journal of 100 000 trials from
# 100 hosts (9 900 host pairs, a tcp_rr and a tcp_stream scenario; every tcp_rr trial carries
# nsperf's histogram of 20 000 round trips at 1 024 buckets per octave) must take <= 2 s of CPU
# (user + sys) and <= 256 MiB, gnuplot time aside (issue 9). NS_BENCH_SHAPE chooses the round
# trips' distribution: cloud (the default: a link between zones, DESIGN.md's trial, ~180 buckets
# a trial) or loopback (the loopback sample's, p90 at 1.5 x p50: ~1 190 buckets, the stress
# case; until issue 19 the bench used it in the old layout, ~150 buckets). NS_BENCH_FORM: runs
# (nsperf's form since netsurvey.trial/3, the default) or buckets (the older form, still read).
# Measured 2026-12-02 on the shared 2-core VM, whose speed varies by itself (one binary, idle
# machine: 1.87-2.71 s over 8 runs of the loopback report), so figures are best-of, interleaved
# with the build before the runs form (2ed486e):
# - cloud (176 MB in the runs form, 254 MB before): 1.08 s CPU, 136 MiB (before 1.14 s, 142 MiB).
# - loopback (362 MB, 840 MB before): 217 MiB; CPU best of 3 1.71 s (this script, load 2.3),
#   best of 8 1.87 s (idle), best of 5 2.06 s in 5 rounds interleaved with the old build on the
#   buckets form (best 2.54 s, 245 MiB; the new build on the buckets form 2.73 s): -19 %. Single
#   runs reach 2.0-2.7 s on this machine, so the 2 s bound holds for the best of 3, thinly.
#   What is left (perf): reading the runs ~18 %, the kernel's read copies and page zeroing ~17 %,
#   merging the trials' runs ~10 %, packing them ~6 %, the percentiles ~5 %, the rest of the
#   lines ~7 %, the outputs ~7 %.
# Runs the report three times without gnuplot (NETSURVEY_GNUPLOT points
# nowhere) and checks the best CPU time and the worst peak RSS, then once with gnuplot to show
# its share. Wall time is printed only: a busy machine stretches it without any fault of ours.
# Then `netsurvey trend` over NS_BENCH_TREND_RUNS (default 20) copies of that journal, each its
# own run (run_id and start rewritten in run.json and every record), must take <= 10 s of wall
# time without gnuplot (issue 19); 0 skips it. The runs are read by child processes (-j: the CPUs
# online, at most 4), each without histograms or host pairs (rcell_load_cells), so the trend's
# CPU time, printed with its sum, is what one core would need: its wall time on N idle cores is
# about that / N. Last measured 2026-12-02 (runs form, cloud, load 1.8-2.1): 20 runs 4.33 /
# 4.66 s wall, 8.41 / 8.81 s CPU, 31 MiB per reader (before, buckets form: 11.2-11.7 s wall
# while shared, 9.0-9.6 s CPU).
# Not a ctest test: timings belong to a quiet machine. NS_BENCH_HOSTS / NS_BENCH_TRIALS
# override the size. Needs python3 (the generator) and GNU time as /usr/bin/time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
bin=$build/bin/netsurvey
hosts=${NS_BENCH_HOSTS:-100}
trials=${NS_BENCH_TRIALS:-100000}
trend_runs=${NS_BENCH_TREND_RUNS:-20}
max_cpu=2.0
max_kib=262144
max_trend_wall=10.0

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
form=${NS_BENCH_FORM:-runs} # runs: nsperf's histogram form since trial/3; buckets: the older form
python3 "$root/tests/report/gen_journal.py" bench "$tmp/run" "$hosts" "$trials" "$shape" "$form"
echo "journal: $(wc -l <"$tmp/run/results.jsonl") trials (whole passes of $trials), $hosts hosts, $shape-shaped RTTs, $form form, $(wc -c <"$tmp/run/results.jsonl") bytes"
echo "targets (issues 9, 19): report <= ${max_cpu} s CPU and <= $((max_kib / 1024)) MiB; trend of $trend_runs runs <= ${max_trend_wall} s wall"

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

# trend: copies of the journal as runs a day apart, their records rewritten to their run_id
trend_best=999
trend_cpu_best=999
if [ "$trend_runs" -gt 0 ]; then
    rid=$(sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p' "$tmp/run/run.json" | head -n 1)
    dirs=""
    i=1
    while [ "$i" -le "$trend_runs" ]; do
        d=$(printf '%s/trend/r%02d' "$tmp" "$i")
        mkdir -p "$d"
        new=$(printf '20261101T150000Z-t%03d' "$i")
        sed "s/$rid/$new/g" "$tmp/run/results.jsonl" >"$d/results.jsonl"
        python3 - "$tmp/run/run.json" "$d/run.json" "$new" "$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["run_id"] = sys.argv[3]
r["started"] = "2026-11-%02dT15:00:00.000Z" % int(sys.argv[4])
json.dump(r, open(sys.argv[2], "w"))
PY
        dirs="$dirs $d"
        i=$((i + 1))
    done
    for i in 1 2; do
        # shellcheck disable=SC2086
        NETSURVEY_GNUPLOT=/nonexistent/gnuplot /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
            "$bin" trend $dirs -o "$tmp/trend-out" >/dev/null 2>"$tmp/err" || {
            echo "bench_report: netsurvey trend failed:" >&2
            cat "$tmp/err" >&2
            exit 1
        }
        read -r wall user sys kib <"$tmp/time"
        cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
        echo "trend of $trend_runs runs (no gnuplot) run $i: wall ${wall} s, cpu ${cpu} s (user $user sys $sys, all readers), max rss $((kib / 1024)) MiB (the largest process)"
        trend_best=$(echo "$trend_best $wall" | awk '{ print ($2 < $1) ? $2 : $1 }')
        trend_cpu_best=$(echo "$trend_cpu_best $cpu" | awk '{ print ($2 < $1) ? $2 : $1 }')
    done
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" trend $dirs -o "$tmp/trend-out2" \
        >/dev/null 2>"$tmp/err" || true
    read -r wall user sys kib <"$tmp/time"
    echo "trend with gnuplot ($(ls "$tmp/trend-out2/charts" 2>/dev/null | grep -c svg || true) charts): wall ${wall} s"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

fail=0
if [ "$trend_runs" -gt 0 ] && awk -v c="$trend_best" -v m="$max_trend_wall" 'BEGIN { exit !(c > m) }'; then
    echo "FAIL: trend of $trend_runs runs: best wall ${trend_best} s > ${max_trend_wall} s (best cpu ${trend_cpu_best} s, all readers)"
    fail=1
fi
if awk -v c="$best" -v m="$max_cpu" 'BEGIN { exit !(c > m) }'; then
    echo "FAIL: best cpu ${best} s > ${max_cpu} s"
    fail=1
fi
if [ "$worst" -gt "$max_kib" ]; then
    echo "FAIL: max rss $((worst / 1024)) MiB > $((max_kib / 1024)) MiB"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: best cpu ${best} s <= ${max_cpu} s, max rss $((worst / 1024)) MiB <= $((max_kib / 1024)) MiB"
[ "$fail" -eq 0 ] && [ "$trend_runs" -gt 0 ] && echo "ok: trend of $trend_runs runs, best wall ${trend_best} s <= ${max_trend_wall} s (best cpu ${trend_cpu_best} s, all readers)"
exit "$fail"
