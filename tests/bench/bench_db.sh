#!/bin/sh
# bench_db.sh [BUILD_DIR] - the history database's speed (issue 29), on the cloud-shaped bench of
# bench_report.sh (tests/report/gen_journal.py bench: 100 hosts in 3 zones, 100 000 trials, a
# tcp_rr scenario whose trials carry 20 000 round trips each and a tcp_stream one):
#  1. `netsurvey publish` of the 100 000-trial run into SQLite and into a local PostgreSQL (the
#     throw-away cluster of tests/history/pg_cluster.sh, fsync off; NS_BENCH_PG_URL names another
#     database instead), fresh and again (a republish replaces the run): <= 10 s wall each;
#  2. `netsurvey trend` over NS_BENCH_TREND_DIRS (default 20) copies of that journal as runs a day
#     apart, from their directories and from each database (`trend --db --plan bench`), the
#     outputs compared byte for byte;
#  3. `trend --db` over 1 000 runs: those runs' runs, scenarios and cells rows copied in SQL under
#     new run_ids an hour apart (what a trend reads; their trials are not copied, a trend never
#     reads them) until the database holds 1 000: <= 1 s wall, in each engine.
# Wall time, netsurvey's CPU and peak RSS are printed, and with the bench's own cluster the CPU
# its server spent (the postmaster's reaped children: the connection's backend, autovacuum), with the load average: this 2-core machine is
# shared, and a busy one stretches wall times without any fault of ours.
# Measured 2026-12-05 on the shared 2-core VM (load 4-6 while it ran; the PostgreSQL cluster
# with fsync off, lz4 for what a session writes):
# - publish, SQLite: 5.40 s wall fresh, 7.31 s again; netsurvey 2.1 / 2.8 s of CPU, 144 MiB
#   (the report of the same run: 142 MiB); the file 203 MB.
# - publish, PostgreSQL: 6.70 s wall fresh, 8.09 s again; netsurvey 1.7 s of CPU, the server
#   1.9 / 2.5 s (pglz instead of lz4: 3.0 / 3.6 s, and 10.2 / 12.1 s of wall at load 8.5).
# - trend of the 20 runs from their directories 8.12 s wall (5.0 s of CPU, all readers); from
#   either database 0.02 s, the same bytes. 1 000 runs: best of 3 0.43 s (SQLite), 0.49 s
#   (PostgreSQL), 0.4 s of CPU and 98 MiB (read 0.17, build 0.04, outputs 0.11 s of CPU);
#   --last 30 of them 0.03 s. From directories 1 000 such runs would take about 400 s.
# Not a ctest test:
# timings belong to a quiet machine. Needs python3, sqlite3, GNU time as /usr/bin/time, and for
# PostgreSQL psql and its server (or NS_BENCH_PG_URL); NS_BENCH_TRIALS, NS_BENCH_HOSTS,
# NS_BENCH_TREND_RUNS (1 000) change the sizes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
bin=$build/bin/netsurvey
hosts=${NS_BENCH_HOSTS:-100}
trials=${NS_BENCH_TRIALS:-100000}
dirs_n=${NS_BENCH_TREND_DIRS:-20}
runs_n=${NS_BENCH_TREND_RUNS:-1000}
max_publish=10.0
max_trend=1.0
export NETSURVEY_GNUPLOT=/nonexistent/gnuplot LC_ALL=C

[ -x "$bin" ] || { echo "bench_db: no netsurvey at $bin; build first or pass BUILD_DIR" >&2; exit 2; }
/usr/bin/time -f %M true >/dev/null 2>&1 || { echo "bench_db: GNU time is missing as /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d)
pgstate=$tmp/pg
cleanup() {
    [ -f "$pgstate/cluster" ] && sh "$root/tests/history/pg_cluster.sh" stop "$pgstate" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0

# A command's wall time, its CPU and peak RSS into $wall, $cpu, $rss (MiB); its output kept.
timed() {
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || {
        echo "bench_db: $* failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    }
    read -r wall user sys kib <"$tmp/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    rss=$((kib / 1024))
}

over() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# CPU seconds the bench's PostgreSQL cluster has spent in processes that ended (its backends).
pg_cpu() {
    if [ -f "$pgstate/cluster" ]; then
        pm=$(head -n 1 "$(cat "$pgstate/cluster")/data/postmaster.pid")
        awk '{ printf "%.2f", ($16 + $17) / 100 }' "/proc/$pm/stat"
    else
        echo 0
    fi
}

python3 "$root/tests/report/gen_journal.py" bench "$tmp/run" "$hosts" "$trials" cloud runs
echo "journal: $trials trials, $hosts hosts, cloud-shaped RTTs, $(wc -c <"$tmp/run/results.jsonl") bytes; load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- the databases ------------------------------------------------------------------------------
sq="sqlite:$tmp/history.db"
if [ -n "${NS_BENCH_PG_URL:-}" ]; then
    pg=$NS_BENCH_PG_URL
else
    sh "$root/tests/history/pg_cluster.sh" start "$pgstate" >/dev/null
    [ -f "$pgstate/url" ] || { echo "bench_db: no PostgreSQL: $(cat "$pgstate/skip")" >&2; exit 2; }
    admin=$(cat "$pgstate/url")
    psql "$admin" -X -q -c "CREATE DATABASE bench"
    pg=$(echo "$admin" | sed 's|@/postgres?|@/bench?|')
fi
engines="sqlite postgresql"
url_of() { if [ "$1" = sqlite ]; then echo "$sq"; else echo "$pg"; fi; }
sql() { # sql ENGINE QUERY: rows, '|'-separated
    if [ "$1" = sqlite ]; then sqlite3 "$tmp/history.db" "$2"; else psql "$pg" -X -q -A -t -c "$2"; fi
}

# --- 1. publishing 100 000 trials ---------------------------------------------------------------
for e in $engines; do
    for what in fresh again; do
        before=$(pg_cpu)
        timed "$bin" publish "$tmp/run" --db "$(url_of "$e")"
        server=""
        if [ "$e" = postgresql ] && [ -f "$pgstate/cluster" ]; then
            sleep 1 # the backend ends when netsurvey hangs up
            server=", server cpu $(echo "$before $(pg_cpu)" | awk '{printf "%.2f", $2 - $1}') s"
        fi
        echo "publish $trials trials into $e ($what): wall ${wall} s, cpu ${cpu} s (netsurvey)${server}, max rss ${rss} MiB; load $(cut -d' ' -f1 /proc/loadavg)"
        if over "$wall" "$max_publish"; then
            echo "FAIL: publish into $e ($what): ${wall} s > ${max_publish} s"
            fail=1
        fi
    done
done
[ "$e" = postgresql ] && echo "postgresql database after the run: $(sql postgresql "SELECT pg_size_pretty(pg_database_size(current_database()))")"
echo "sqlite file after the run: $(du -h "$tmp/history.db" | cut -f1)"

# --- 2. the same runs from directories and from the databases ------------------------------------
rid=$(sed -n 's/.*"run_id": *"\([^"]*\)".*/\1/p' "$tmp/run/run.json" | head -n 1)
list=""
i=1
while [ "$i" -le "$dirs_n" ]; do
    new=$(printf '20261101T150000Z-t%03d' "$i")
    d="$tmp/runs/$new"
    mkdir -p "$d"
    sed "s/$rid/$new/g" "$tmp/run/results.jsonl" >"$d/results.jsonl"
    python3 - "$tmp/run/run.json" "$d/run.json" "$new" "$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["run_id"] = sys.argv[3]
r["started"] = "2026-%02d-%02dT15:00:00.000Z" % (11 + (int(sys.argv[4]) - 1) // 28, (int(sys.argv[4]) - 1) % 28 + 1)
json.dump(r, open(sys.argv[2], "w"))
PY
    list="$list $new"
    i=$((i + 1))
done
for e in $engines; do
    # shellcheck disable=SC2086
    (cd "$tmp/runs" && "$bin" publish $list --db "$(url_of "$e")" >/dev/null)
    sql "$e" "DELETE FROM trials WHERE run_id = '$rid'; DELETE FROM journal_lines WHERE run_id = '$rid'; DELETE FROM cell_buckets WHERE run_id = '$rid'; DELETE FROM cells WHERE run_id = '$rid'; DELETE FROM scenarios WHERE run_id = '$rid'; DELETE FROM hosts WHERE run_id = '$rid'; DELETE FROM runs WHERE run_id = '$rid'" >/dev/null
done
cd "$tmp/runs" # the runs are named by their run_ids there, as --db names them
# shellcheck disable=SC2086
timed "$bin" trend $list -o "$tmp/trend-dirs"
echo "trend of $dirs_n runs from their directories: wall ${wall} s, cpu ${cpu} s (all readers), max rss ${rss} MiB"
dirs_wall=$wall
for e in $engines; do
    timed "$bin" trend --db "$(url_of "$e")" --plan bench -o "$tmp/trend-$e"
    echo "trend --db of the same $dirs_n runs from $e: wall ${wall} s, cpu ${cpu} s, max rss ${rss} MiB"
    if diff -r "$tmp/trend-dirs" "$tmp/trend-$e" >/dev/null; then
        echo "  the same bytes as from the directories"
    else
        echo "FAIL: trend --db from $e differs from the directories' trend"
        fail=1
    fi
done

# --- 3. 1 000 runs ---------------------------------------------------------------------------------
clones=$((runs_n - dirs_n))
tmpl=$(printf '20261101T150000Z-t%03d' "$dirs_n")
for e in $engines; do
    cols() {
        if [ "$e" = sqlite ]; then
            sql sqlite "SELECT name FROM pragma_table_info('$1')"
        else
            sql postgresql "SELECT column_name FROM information_schema.columns WHERE table_name = '$1' ORDER BY ordinal_position"
        fi
    }
    for t in runs scenarios cells; do
        c=$(cols $t | paste -sd, -)
        sel=$(cols $t | awk -v t="$t" '{
            if ($1 == "run_id") printf "%sr.run_id || '"'"'-c'"'"' || CAST(k.i AS TEXT)", sep;
            else if (t == "runs" && $1 == "started_s") printf "%sr.started_s + 3600 * k.i", sep;
            else printf "%sr.%s", sep, $1;
            sep = ", " }')
        sql "$e" "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $clones) INSERT INTO $t ($c) SELECT $sel FROM $t r, k WHERE r.run_id = '$tmpl'" >/dev/null
    done
    [ "$e" = postgresql ] && sql postgresql "ANALYZE" >/dev/null
    n=$(sql "$e" "SELECT count(*) FROM runs")
    best=999
    for k in 1 2 3; do
        timed "$bin" trend --db "$(url_of "$e")" --plan bench -o "$tmp/trend-big-$e"
        echo "trend --db of $n runs from $e, run $k: wall ${wall} s, cpu ${cpu} s, max rss ${rss} MiB; load $(cut -d' ' -f1 /proc/loadavg)"
        best=$(echo "$best $wall" | awk '{ print ($2 < $1) ? $2 : $1 }')
    done
    timed "$bin" trend --db "$(url_of "$e")" --plan bench --last 30 -o "$tmp/trend-30-$e"
    echo "trend --db --last 30 of $n runs from $e: wall ${wall} s, cpu ${cpu} s"
    if over "$best" "$max_trend"; then
        echo "FAIL: trend --db of $n runs from $e: best ${best} s > ${max_trend} s"
        fail=1
    else
        echo "ok: trend --db of $n runs from $e: best wall ${best} s <= ${max_trend} s"
    fi
done
echo "beside it: $dirs_n runs from their directories took ${dirs_wall} s of wall time, so $runs_n would take about $(echo "$dirs_wall $dirs_n $runs_n" | awk '{printf "%.0f", $1 / $2 * $3}') s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$fail" -eq 0 ] && echo "ok: every publish <= ${max_publish} s, every trend of $runs_n runs <= ${max_trend} s"
exit "$fail"
