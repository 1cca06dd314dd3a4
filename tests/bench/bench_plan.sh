#!/bin/sh
# bench_plan.sh [BUILD_DIR] - a 500-host plan must validate and schedule in under 1 s and
# 64 MiB (issue 3). Times `netsurvey check`, `netsurvey plan` and `netsurvey plan --json`
# (output to a file) on a generated plan and prints CPU time (user + sys), wall time and peak
# RSS of each. The limits apply to CPU time and RSS; wall time is printed and only warned
# about, since a busy machine stretches it without any fault of ours.
# Not a ctest test: timings belong to a quiet machine. NS_BENCH_HOSTS overrides the size.
# Needs GNU time as /usr/bin/time (Debian/Ubuntu: apt-get install time).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
bin=$build/bin/netsurvey
hosts=${NS_BENCH_HOSTS:-500}
max_s=1.0
max_kib=65536

if [ ! -x "$bin" ]; then
    echo "bench_plan: no netsurvey at $bin; build first or pass BUILD_DIR" >&2
    exit 2
fi
if ! /usr/bin/time -f %M true >/dev/null 2>&1; then
    echo "bench_plan: GNU time is missing as /usr/bin/time; install it (apt-get install time)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/gen_plan.sh" "$hosts" >"$tmp/plan.yaml"
echo "plan: $hosts hosts, $(wc -c <"$tmp/plan.yaml") bytes"

fail=0
# measure NAME ARGS...: run netsurvey ARGS, print and check elapsed seconds and peak RSS.
measure() {
    name=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" "$@" >"$tmp/out" 2>"$tmp/err" || {
        echo "bench_plan: netsurvey $* failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    }
    read -r wall user sys kib <"$tmp/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    ok=$(awk -v s="$cpu" -v k="$kib" -v ms="$max_s" -v mk="$max_kib" \
        'BEGIN { print (s < ms && k < mk) ? "ok" : "TOO SLOW OR TOO BIG" }')
    slow=$(awk -v w="$wall" -v c="$cpu" -v ms="$max_s" \
        'BEGIN { print (w >= ms && c < ms) ? " (but wall time over the limit: machine busy?)" : "" }')
    printf '%-12s cpu %5.2f s  wall %5.2f s  rss %6.1f MiB  %10s bytes out  %s%s\n' "$name" \
        "$cpu" "$wall" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(wc -c <"$tmp/out")" \
        "$ok" "$slow"
    [ "$ok" = ok ] || fail=1
}

measure check check "$tmp/plan.yaml"
measure plan plan "$tmp/plan.yaml"
measure "plan --json" plan --json "$tmp/plan.yaml"
"$bin" plan "$tmp/plan.yaml" | tail -1
if [ "$fail" -ne 0 ]; then
    echo "bench_plan: FAILED (limits: < $max_s s, < $((max_kib / 1024)) MiB)" >&2
    exit 1
fi
echo "bench_plan: ok (limits: < $max_s s, < $((max_kib / 1024)) MiB)"
