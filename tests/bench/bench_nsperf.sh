#!/usr/bin/env bash
# bench_nsperf.sh - nsperf against the tools users know, on loopback (issue 2, "Speed and size").
# A benchmark, not a ctest test: it prints figures, ratios and PASS/MISS per target, exit 0.
#
#   tests/bench/bench_nsperf.sh [path/to/nsperf | BUILD_DIR]
#
# Targets (medians of BENCH_RUNS interleaved runs; odd runs start with nsperf, even runs with
# the peer, so that drift of a shared machine does not favour one side). Each tool at its own
# default settings (what a user sees) AND at equal settings (what the tools are worth):
#   tcp_stream -P1   >= 1.0 x the better of `iperf3 -c` and `qperf tcp_bw` (defaults: nsperf
#                    writes 1 MiB, iperf3 128 KiB)
#   tcp_stream -l 128K  >= 0.9 x `iperf3 -c` (equal write size)
#   udp_stream -b 2G: loss % and jitter of nsperf (default 4 MiB receive buffer, and -w 208K =
#                    the kernel default iperf3 uses) vs `iperf3 -u -b 2G -l 1460` (figures only)
#   tcp_stream -w 4K/64K/1M forward >= 0.5 x `iperf3 -w` (the window is applied where it acts)
#   tcp_stream -P2   >= 1.0 x `iperf3 -P 2`
#   tcp_rr -l 64     mean RTT <= 1.0 x `sockperf ping-pong --tcp --full-rtt -m 64` mean RTT
#   peak RSS of a BENCH_RSS_SECONDS tcp_rr client <= 8 MiB
# Environment:
#   BENCH_SECONDS      measured seconds per run (default 10)
#   BENCH_RUNS         runs per comparison (default 5)
#   BENCH_RSS_SECONDS  length of the RSS run (default 60)
#   BENCH_ONLY         space-separated subset of: stream eq p2 udp window rr rss (default: all)
# Short smoke mode: BENCH_SECONDS=2 BENCH_RUNS=3 BENCH_RSS_SECONDS=3 tests/bench/bench_nsperf.sh
set -u

SECS=${BENCH_SECONDS:-10}
RUNS=${BENCH_RUNS:-5}
RSS_SECS=${BENCH_RSS_SECONDS:-60}
ONLY=${BENCH_ONLY:-"stream eq p2 udp window rr rss"}
WARMUP=1
HOST=127.0.0.1
RSS_LIMIT_KB=8192
root=$(cd "$(dirname "$0")/../.." && pwd)

find_nsperf() {
    if [ $# -ge 1 ] && [ -d "$1" ]; then echo "$1/bin/nsperf"; return; fi   # a build dir
    if [ $# -ge 1 ] && [ -n "$1" ]; then echo "$1"; return; fi
    if [ -n "${NSPERF:-}" ]; then echo "$NSPERF"; return; fi
    ls -t "$root"/build/*/bin/nsperf 2>/dev/null | head -n 1
}
NSPERF=$(find_nsperf "${1:-}")
if [ -z "$NSPERF" ] || [ ! -x "$NSPERF" ]; then
    echo "bench: nsperf binary not found (give its path or build it first)" >&2
    exit 2
fi
for tool in jq; do
    command -v $tool >/dev/null || { echo "bench: $tool is required" >&2; exit 2; }
done
have() { command -v "$1" >/dev/null 2>&1; }
missing=""
for tool in iperf3 qperf sockperf; do have $tool || missing="$missing $tool"; done
[ -n "$missing" ] && echo "bench: missing peers:$missing (apt-get install$missing); their comparisons are skipped"

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

# ---- one measurement each; every function prints one number or nothing on failure ----

nsperf_json() {   # args after the common ones; prints the -J document
    local port; port=$(free_port)
    start_server "$port" "$NSPERF" -s -1 -p "$port" || return 1
    "$NSPERF" -c $HOST -p "$port" -t "$SECS" --warmup "$WARMUP" -J "$@" 2>"$tmp/client.err"
    stop_server
}
nsperf_bps() {   # streams [more nsperf args]
    local p=$1; shift
    nsperf_json --test tcp_stream -P "$p" "$@" | jq -e '.result.throughput_bps // empty' 2>/dev/null
}
nsperf_rtt() {
    nsperf_json --test tcp_rr -l 64 | jq -e '.result.rtt_us.mean // empty' 2>/dev/null
}
iperf3_bps() {   # streams [more iperf3 args]
    local p=$1; shift
    local port; port=$(free_port)
    start_server "$port" iperf3 -s -1 -p "$port" || return 1
    # -O: omit the first second like nsperf's warmup
    iperf3 -c $HOST -p "$port" -t "$SECS" -O "$WARMUP" -P "$p" -J "$@" 2>/dev/null |
        jq -e '.end.sum_received.bits_per_second // empty' 2>/dev/null
    stop_server
}
# UDP at 2 Gbit/s: prints "loss_pct jitter_us"
nsperf_udp() {
    nsperf_json --test udp_stream -b 2G -l 1460 "$@" |
        jq -e -r '.result.udp | "\(.lost_pct) \(.jitter_us)"' 2>/dev/null
}
iperf3_udp() {
    local port; port=$(free_port)
    start_server "$port" iperf3 -s -1 -p "$port" || return 1
    iperf3 -c $HOST -p "$port" -t "$SECS" -O "$WARMUP" -u -b 2G -l 1460 -J 2>/dev/null |
        jq -e -r '.end.sum | "\(.lost_percent) \(.jitter_ms * 1000)"' 2>/dev/null
    stop_server
}
qperf_bps() {
    local port; port=$(free_port)
    start_server "$port" qperf -lp "$port" || return 1
    # "    bw  =  4.53 GB/sec" (decimal bytes)
    qperf -lp "$port" $HOST -t "$SECS" tcp_bw 2>/dev/null | awk '
        $1 == "bw" { m = 1; u = $4
            if (u ~ /^KB/) m = 1e3; else if (u ~ /^MB/) m = 1e6; else if (u ~ /^GB/) m = 1e9
            printf "%.0f\n", $3 * m * 8 }'
    stop_server
}
sockperf_rtt() {
    local port; port=$(free_port)
    start_server "$port" sockperf server --tcp -i $HOST -p "$port" || return 1
    sockperf ping-pong --tcp --full-rtt -m 64 -i $HOST -p "$port" -t "$SECS" 2>&1 |
        sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p'
    stop_server
}

# ---- comparisons ----

# compare NAME NSPERF_FN PEER_FN... : interleaved runs, medians; the peers' best median wins.
# Fills $med_ns and $med_peer (and $peer_name).
compare() {
    local name=$1 nsfn=$2; shift 2
    local peers=("$@") r p v
    : >"$tmp/$name.ns"
    for p in "${peers[@]}"; do : >"$tmp/$name.$p"; done
    for r in $(seq 1 "$RUNS"); do
        local order=(ns "${peers[@]}")
        [ $((r % 2)) -eq 0 ] && order=("${peers[@]}" ns)
        for p in "${order[@]}"; do
            if [ "$p" = ns ]; then
                v=$($nsfn) && [ -n "$v" ] && echo "$v" >>"$tmp/$name.ns"
            else
                v=$(${p}) && [ -n "$v" ] && echo "$v" >>"$tmp/$name.$p"
            fi
            printf "  run %d %-22s %s\n" "$r" "${p/#ns/nsperf}" "${v:-FAILED}"
        done
    done
    med_ns=$(median <"$tmp/$name.ns")
    med_peer=nan
    peer_name=none
}

verdict() {   # verdict LABEL RATIO OP LIMIT
    local label=$1 ratio=$2 op=$3 limit=$4 ok
    if [ "$ratio" = nan ]; then
        printf '%-40s %s\n' "$label" "SKIP (no figure)"
        return
    fi
    ok=$(awk -v r="$ratio" -v l="$limit" -v op="$op" 'BEGIN {print (op == ">=" ? r >= l : r <= l) ? "PASS" : "MISS"}')
    printf '%-40s ratio %.3f (target %s %s)  %s\n' "$label" "$ratio" "$op" "$limit" "$ok"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "nan"; else printf "%.4f\n", a / b}'; }
gbit() { awk -v v="$1" 'BEGIN {if (v == "nan") print "nan"; else printf "%.2f Gbit/s", v / 1e9}'; }

summary=()

bench_stream() {
    local peers=()
    have iperf3 && peers+=("iperf3_bps_1")
    have qperf && peers+=(qperf_bps_1)
    echo "== tcp_stream -P1 (${SECS}s x $RUNS)"
    compare stream nsperf_bps_1 "${peers[@]}"
    local best=nan bestname=none p m
    for p in "${peers[@]}"; do
        m=$(median <"$tmp/stream.$p")
        echo "  median $p: $(gbit "$m")"
        if [ "$m" != nan ] && { [ "$best" = nan ] || awk -v a="$m" -v b="$best" 'BEGIN {exit !(a > b)}'; }; then
            best=$m; bestname=${p%_bps_1}
        fi
    done
    echo "  median nsperf: $(gbit "$med_ns")"
    summary+=("$(verdict "tcp_stream -P1 nsperf/$bestname" "$(ratio "$med_ns" "$best")" ">=" 1.0)  [$(gbit "$med_ns") vs $(gbit "$best")]")
}

bench_p2() {
    have iperf3 || { summary+=("tcp_stream -P2: SKIP (iperf3 missing)"); return; }
    echo "== tcp_stream -P2 (${SECS}s x $RUNS)"
    compare p2 nsperf_bps_2 iperf3_bps_2
    local m; m=$(median <"$tmp/p2.iperf3_bps_2")
    echo "  median iperf3 -P2: $(gbit "$m")   nsperf -P2: $(gbit "$med_ns")"
    summary+=("$(verdict "tcp_stream -P2 nsperf/iperf3" "$(ratio "$med_ns" "$m")" ">=" 1.0)  [$(gbit "$med_ns") vs $(gbit "$m")]")
}

bench_rr() {
    have sockperf || { summary+=("tcp_rr: SKIP (sockperf missing)"); return; }
    echo "== tcp_rr 64 B mean RTT (${SECS}s x $RUNS)"
    compare rr nsperf_rtt sockperf_rtt
    local m; m=$(median <"$tmp/rr.sockperf_rtt")
    echo "  median mean RTT sockperf: $m us   nsperf: $med_ns us"
    summary+=("$(verdict "tcp_rr mean RTT nsperf/sockperf" "$(ratio "$med_ns" "$m")" "<=" 1.0)  [$med_ns us vs $m us]")
}

bench_eq() {
    have iperf3 || { summary+=("tcp_stream -l 128K: SKIP (iperf3 missing)"); return; }
    echo "== tcp_stream -P1 at equal settings: -l 128K both (${SECS}s x $RUNS)"
    compare eq nsperf_bps_eq iperf3_bps_1
    local m; m=$(median <"$tmp/eq.iperf3_bps_1")
    echo "  median iperf3: $(gbit "$m")   nsperf -l 128K: $(gbit "$med_ns")"
    summary+=("$(verdict "tcp_stream -l 128K nsperf/iperf3" "$(ratio "$med_ns" "$m")" ">=" 0.9)  [$(gbit "$med_ns") vs $(gbit "$m")]")
}

bench_udp() {
    have iperf3 || { summary+=("udp_stream: SKIP (iperf3 missing)"); return; }
    echo "== udp_stream -b 2G -l 1460 (${SECS}s x $RUNS): loss % and jitter us"
    local r v
    : >"$tmp/udp.ns"; : >"$tmp/udp.nsw"; : >"$tmp/udp.ip"
    for r in $(seq 1 "$RUNS"); do
        v=$(nsperf_udp) && echo "$v" >>"$tmp/udp.ns"; printf "  run %d %-22s %s\n" "$r" nsperf "${v:-FAILED}"
        v=$(nsperf_udp -w 208K) && echo "$v" >>"$tmp/udp.nsw"; printf "  run %d %-22s %s\n" "$r" "nsperf -w 208K" "${v:-FAILED}"
        v=$(iperf3_udp) && echo "$v" >>"$tmp/udp.ip"; printf "  run %d %-22s %s\n" "$r" iperf3 "${v:-FAILED}"
    done
    local f line
    for f in ns nsw ip; do
        line=$(printf 'loss %s %%  jitter %s us' "$(cut -d' ' -f1 <"$tmp/udp.$f" | median)" "$(cut -d' ' -f2 <"$tmp/udp.$f" | median)")
        case $f in ns) summary+=("$(printf '%-40s %s' "udp 2G nsperf (4 MiB rcvbuf)" "$line")") ;;
        nsw) summary+=("$(printf '%-40s %s' "udp 2G nsperf -w 208K" "$line")") ;;
        ip) summary+=("$(printf '%-40s %s' "udp 2G iperf3" "$line")") ;; esac
    done
}

bench_window() {
    have iperf3 || { summary+=("tcp_stream -w: SKIP (iperf3 missing)"); return; }
    local w
    for w in 4K 64K 1M; do
        echo "== tcp_stream -w $w forward (${SECS}s x $RUNS)"
        eval "nsperf_bps_w() { nsperf_bps 1 -w $w; }; iperf3_bps_w() { iperf3_bps 1 -w $w; }"
        compare "w$w" nsperf_bps_w iperf3_bps_w
        local m; m=$(median <"$tmp/w$w.iperf3_bps_w")
        summary+=("$(verdict "tcp_stream -w $w nsperf/iperf3" "$(ratio "$med_ns" "$m")" ">=" 0.5)  [$(gbit "$med_ns") vs $(gbit "$m")]")
    done
}

bench_rss() {
    echo "== peak RSS of a ${RSS_SECS}s tcp_rr client"
    local port; port=$(free_port)
    start_server "$port" "$NSPERF" -s -1 -p "$port" || return
    /usr/bin/time -f '%M' -o "$tmp/rss" "$NSPERF" -c $HOST -p "$port" --test tcp_rr -l 64 \
        -t "$RSS_SECS" --warmup "$WARMUP" -J >"$tmp/rss.json" 2>"$tmp/rss.err"
    stop_server
    local kb; kb=$(tail -n 1 "$tmp/rss")
    local err; err=$(jq -r '.error // empty' "$tmp/rss.json" 2>/dev/null)
    [ -n "$err" ] && echo "  client error: $err"
    echo "  peak RSS (VmHWM): $kb KiB"
    local ok=MISS
    [ -n "$kb" ] && [ "$kb" -le $RSS_LIMIT_KB ] && ok=PASS
    summary+=("$(printf '%-40s %s KiB (target <= %s KiB)  %s' "tcp_rr client peak RSS" "$kb" $RSS_LIMIT_KB $ok)")
}

nsperf_bps_1() { nsperf_bps 1; }
nsperf_bps_2() { nsperf_bps 2; }
nsperf_bps_eq() { nsperf_bps 1 -l 128K; }
iperf3_bps_1() { iperf3_bps 1; }
iperf3_bps_2() { iperf3_bps 2; }
qperf_bps_1() { qperf_bps; }

echo "bench: $NSPERF; ${SECS}s per run, $RUNS runs, warmup ${WARMUP}s; $(nproc) cores; $(uname -r)"
for b in $ONLY; do
    case $b in
    stream) bench_stream ;;
    eq) bench_eq ;;
    p2) bench_p2 ;;
    udp) bench_udp ;;
    window) bench_window ;;
    rr) bench_rr ;;
    rss) bench_rss ;;
    *) echo "bench: unknown part '$b'" >&2 ;;
    esac
done
echo
echo "== summary"
for line in "${summary[@]}"; do echo "$line"; done
exit 0
