# shellcheck shell=bash
# bench_lib.sh - what the nsperf benchmarks share (bench_nsperf.sh, bench_newkinds.sh): the
# binary, servers on free loopback ports started and stopped by their PID, medians, ratios and
# the PASS/MISS line. Sourced after `root` is set; sets `tmp` (removed on exit) and `pids`.

find_nsperf() {
    if [ $# -ge 1 ] && [ -d "$1" ]; then echo "$1/bin/nsperf"; return; fi   # a build dir
    if [ $# -ge 1 ] && [ -n "$1" ]; then echo "$1"; return; fi
    if [ -n "${NSPERF:-}" ]; then echo "$NSPERF"; return; fi
    ls -t "$root"/build/*/bin/nsperf 2>/dev/null | head -n 1
}
have() { command -v "$1" >/dev/null 2>&1; }
tmp=$(mktemp -d /tmp/bench_nsperf.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A TCP port nobody listens on (bound-port check with ss, random start).
free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 30000))
        if [ -z "$(ss -Htan "( sport = :$p )" 2>/dev/null)" ]; then echo $p; return; fi
    done
    echo 0
}

# Start a server in the background, remember its PID; wait until it listens on port $1.
start_server() {
    local port=$1; shift
    "$@" >"$tmp/server.log" 2>&1 &
    srv=$!
    pids+=("$srv")
    for _ in $(seq 1 100); do
        [ -n "$(ss -Htln "( sport = :$port )" 2>/dev/null)" ] && return 0
        sleep 0.05
    done
    echo "bench: server '$*' did not listen on $port" >&2
    return 1
}
stop_server() {
    kill "$srv" 2>/dev/null
    wait "$srv" 2>/dev/null
    local keep=()
    for p in "${pids[@]}"; do [ "$p" != "$srv" ] && keep+=("$p"); done
    pids=("${keep[@]+"${keep[@]}"}")
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

verdict() {   # verdict LABEL RATIO OP LIMIT
    local label=$1 ratio=$2 op=$3 limit=$4 ok
    if [ "$ratio" = nan ]; then
        printf '%-40s %s\n' "$label" "SKIP (no figure)"
        return
    fi
    ok=$(awk -v r="$ratio" -v l="$limit" -v op="$op" 'BEGIN {print (op == ">=" ? r >= l : r <= l) ? "PASS" : "MISS"}')
    printf '%-40s ratio %.3f (target %s %s)  %s\n' "$label" "$ratio" "$op" "$limit" "$ok"
}

num3() { awk -v v="$1" 'BEGIN {if (v == "nan" || v == "") print "nan"; else printf "%.3f\n", v}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "nan"; else printf "%.4f\n", a / b}'; }
gbit() { awk -v v="$1" 'BEGIN {if (v == "nan") print "nan"; else printf "%.2f Gbit/s", v / 1e9}'; }

