#!/usr/bin/env bash
# bench_nsperf.sh - nsperf against the tools users know, on loopback (issues 2 and 20).
# A benchmark, not a ctest test: it prints figures, ratios against the peer measured in the same
# run and PASS/MISS per target, exit 0. CI does not gate on it.
#
#   tests/bench/bench_nsperf.sh [path/to/nsperf | BUILD_DIR]
#
# Targets (medians of interleaved runs; odd runs start with nsperf, even runs with the peer, so
# that drift of a shared machine does not favour one side; only the same-run ratios count).
# Each tool at its own default settings (what a user sees) AND at equal settings:
#   fixed    cost per test beyond warmup + duration, every kind: nsperf -s -1 + nsperf -c
#            -t 0.5 --warmup 0, from spawning the server to both exits, <= 20 ms (iperf3's
#            own, -t 1, shown for scale)
#   cpu      CPU seconds per GB moved, sender + receiver (both processes' /proc/PID/stat),
#            -l 128K both, paced at 1, 5 and 10 Gbit/s: nsperf <= 0.9 x iperf3
#   eq       tcp_stream unpaced, -l 128K both: throughput >= 1.05 x iperf3
#   copy     cpu at 5 Gbit/s and eq again with nsperf --copy (through user memory, as iperf3):
#            figures, to show what the zero-copy default buys
#   rtt      tcp_rr and udp_rr 64 B mean RTT against `sockperf ping-pong --full-rtt -m 64`
#            (its default mode), BENCH_RTT_RUNS runs of BENCH_RTT_SECONDS: nsperf's default
#            <= 1.0 x, nsperf's best mode (the better of its default and --busy-poll, the
#            latter with server and client on different cores) <= 0.95 x; sockperf
#            --nonblocked on the same cores shown for scale
#   stream   tcp_stream -P1 >= 1.0 x the better of `iperf3 -c` and `qperf tcp_bw` (defaults:
#            nsperf writes 1 MiB, iperf3 128 KiB)
#   udp      udp_stream -b 2G: loss % and jitter of nsperf (default 4 MiB receive buffer, and
#            -w 208K = the kernel default iperf3 uses) vs `iperf3 -u -b 2G -l 1460` (figures)
#   window   tcp_stream -w 4K/64K/1M forward >= 0.5 x `iperf3 -w` (the window acts)
#   p2       tcp_stream -P2 >= 1.0 x `iperf3 -P 2`
#   rss      peak RSS of a BENCH_RSS_SECONDS tcp_rr client <= 8 MiB
# Environment:
#   BENCH_SECONDS      measured seconds per stream run (default 10; cpu runs use it too)
#   BENCH_RUNS         runs per comparison (default 5)
#   BENCH_RTT_SECONDS  seconds per rtt run (default 3)
#   BENCH_RTT_RUNS     rtt runs per tool and mode (default 5)
#   BENCH_FIXED_RUNS   fixed-cost runs per kind (default 5)
#   BENCH_RSS_SECONDS  length of the RSS run (default 60)
#   BENCH_ONLY         space-separated subset of: fixed cpu eq copy rtt stream udp window p2
#                      rss
#                      (default: all)
# Short smoke mode: BENCH_SECONDS=2 BENCH_RUNS=3 BENCH_RTT_SECONDS=1 BENCH_RSS_SECONDS=3 ...
set -u

SECS=${BENCH_SECONDS:-10}
RUNS=${BENCH_RUNS:-5}
RTT_SECS=${BENCH_RTT_SECONDS:-3}
RTT_RUNS=${BENCH_RTT_RUNS:-5}
FIXED_RUNS=${BENCH_FIXED_RUNS:-5}
RSS_SECS=${BENCH_RSS_SECONDS:-60}
ONLY=${BENCH_ONLY:-"fixed cpu eq copy rtt stream udp window p2 rss"}
CPU_RUN="$(cd "$(dirname "$0")" && pwd)/cpu_run.py"
WARMUP=1
HOST=127.0.0.1
RSS_LIMIT_KB=8192
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

NSPERF=$(find_nsperf "${1:-}")
if [ -z "$NSPERF" ] || [ ! -x "$NSPERF" ]; then
    echo "bench: nsperf binary not found (give its path or build it first)" >&2
    exit 2
fi
for tool in jq python3; do
    command -v $tool >/dev/null || { echo "bench: $tool is required" >&2; exit 2; }
done
missing=""
for tool in iperf3 qperf sockperf; do have $tool || missing="$missing $tool"; done
[ -n "$missing" ] && echo "bench: missing peers:$missing (apt-get install$missing); their comparisons are skipped"

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


bench_eq() {
    have iperf3 || { summary+=("tcp_stream -l 128K: SKIP (iperf3 missing)"); return; }
    echo "== tcp_stream -P1 at equal settings: -l 128K both (${SECS}s x $RUNS)"
    compare eq nsperf_bps_eq iperf3_bps_1
    local m; m=$(median <"$tmp/eq.iperf3_bps_1")
    echo "  median iperf3: $(gbit "$m")   nsperf -l 128K: $(gbit "$med_ns")"
    summary+=("$(verdict "tcp_stream -l 128K nsperf/iperf3" "$(ratio "$med_ns" "$m")" ">=" 1.05)  [$(gbit "$med_ns") vs $(gbit "$m")]")
}

# The same two targets through user memory (--copy, iperf3's way): what the zero-copy default
# buys, and what a survey that records copy true measured. Figures, no target of their own.
bench_copy() {
    have iperf3 || { summary+=("--copy: SKIP (iperf3 missing)"); return; }
    echo "== --copy: CPU seconds per GB, -l 128K -b 5G (${SECS}s x $RUNS)"
    compare copycpu cpu_ns_copy cpu_iperf3_5g
    local m; m=$(median <"$tmp/copycpu.cpu_iperf3_5g")
    echo "  median s/GB iperf3: $(num3 "$m")   nsperf --copy: $(num3 "$med_ns")"
    summary+=("$(printf '%-40s ratio %.3f (zero copy: see above)  [%s vs %s s/GB]' \
        "CPU/GB at 5G nsperf --copy/iperf3" "$(ratio "$med_ns" "$m")" "$(num3 "$med_ns")" "$(num3 "$m")")")
    echo "== --copy: tcp_stream -P1 -l 128K both (${SECS}s x $RUNS)"
    compare copyeq nsperf_bps_copy iperf3_bps_1
    m=$(median <"$tmp/copyeq.iperf3_bps_1")
    echo "  median iperf3: $(gbit "$m")   nsperf -l 128K --copy: $(gbit "$med_ns")"
    summary+=("$(printf '%-40s ratio %.3f (zero copy: see above)  [%s vs %s]' \
        "tcp_stream -l 128K --copy nsperf/iperf3" "$(ratio "$med_ns" "$m")" "$(gbit "$med_ns")" "$(gbit "$m")")")
}

# ---- issue 20: fixed cost, CPU per byte, round trips ----

# One cpu_run.py measurement as JSON (see tests/bench/cpu_run.py).
nsperf_run() {   # client args (host, port and -J are added)
    python3 "$CPU_RUN" --ready-line -- "$NSPERF" -s -1 -p 0 -B $HOST -- \
        "$NSPERF" -c $HOST -p '{port}' -J "$@"
}
iperf3_run() {   # client args
    local port; port=$(free_port)
    python3 "$CPU_RUN" --port "$port" -- iperf3 -s -1 -p "$port" -- \
        iperf3 -c $HOST -p "$port" -J "$@"
}

# Milliseconds beyond the test's own time (wall - warmup - duration).
fixed_ns() {   # kind
    nsperf_run --test "$1" -t 0.5 --warmup 0 |
        jq -e 'select(.client_status == 0 and .server_status == 0) | (.wall_s - 0.5) * 1000'
}
fixed_iperf3() {
    iperf3_run -t 1 | jq -e 'select(.client_status == 0) | (.wall_s - 1) * 1000'
}

bench_fixed() {
    echo "== fixed cost per test beyond warmup + duration (median of $FIXED_RUNS)"
    local k r v ip=nan
    if have iperf3; then
        : >"$tmp/fixed.iperf3"
        for r in $(seq 1 "$FIXED_RUNS"); do
            v=$(fixed_iperf3) && echo "$v" >>"$tmp/fixed.iperf3"
        done
        ip=$(median <"$tmp/fixed.iperf3")
        echo "  iperf3 (tcp, -t 1, for scale): $(num3 "$ip") ms"
    fi
    for k in tcp_stream udp_stream tcp_rr udp_rr tcp_crr; do
        : >"$tmp/fixed.$k"
        for r in $(seq 1 "$FIXED_RUNS"); do
            v=$(fixed_ns "$k") && echo "$v" >>"$tmp/fixed.$k"
        done
        local m; m=$(median <"$tmp/fixed.$k")
        echo "  $k: $(xargs printf '%.1f ' <"$tmp/fixed.$k")ms -> median $(num3 "$m") ms"
        local ok; ok=$(awk -v m="$m" 'BEGIN {print (m != "nan" && m <= 20) ? "PASS" : "MISS"}')
        summary+=("$(printf '%-40s %6.1f ms (target <= 20 ms)  %s  [iperf3 its own: %.1f ms, ratio %s]' \
            "fixed cost $k" "$m" "$ok" "$ip" "$(ratio "$m" "$ip")")")
    done
}

# CPU seconds per GB: "cpu_s_per_gb" from one run, both processes, bytes as received.
cpu_ns() {   # rate [more nsperf args]
    nsperf_run -t "$SECS" --warmup 0 -l 128K -b "$@" | jq -e -r '
        select(.client_status == 0) | (.client_out | fromjson) as $d |
        ([$d.result.streams[].receiver_total_bytes] | add) as $b |
        (.client_cpu_s + .server_cpu_s) / ($b / 1e9)'
}
cpu_iperf3() {   # rate
    iperf3_run -t "$SECS" -l 128K -b "$1" | jq -e -r '
        select(.client_status == 0) | (.client_out | fromjson) as $d |
        (.client_cpu_s + .server_cpu_s) / ($d.end.sum_received.bytes / 1e9)'
}

bench_cpu() {
    have iperf3 || { summary+=("cpu per GB: SKIP (iperf3 missing)"); return; }
    local rate
    for rate in 1G 5G 10G; do
        echo "== CPU seconds per GB, sender + receiver, -l 128K -b $rate (${SECS}s x $RUNS)"
        eval "cpu_ns_r() { cpu_ns $rate; }; cpu_iperf3_r() { cpu_iperf3 $rate; }"
        compare "cpu$rate" cpu_ns_r cpu_iperf3_r
        local m; m=$(median <"$tmp/cpu$rate.cpu_iperf3_r")
        echo "  median s/GB iperf3: $(num3 "$m")   nsperf: $(num3 "$med_ns")"
        summary+=("$(verdict "CPU/GB at $rate nsperf/iperf3" "$(ratio "$med_ns" "$m")" "<=" 0.9)  [$(num3 "$med_ns") vs $(num3 "$m") s/GB]")
    done
}

# Mean RTT in microseconds. $1: tcp or udp; the rest: more flags. RTT_CPUS="S C" pins the
# server to core S and the client to core C (taskset), as busy polling needs.
pin() {   # which (0 server, 1 client) command... ; exec: run with & it is $!, not a subshell
    local which=$1; shift
    if [ -n "${RTT_CPUS:-}" ]; then
        local cpus=($RTT_CPUS)
        exec taskset -c "${cpus[$which]}" "$@"
    fi
    exec "$@"
}
rtt_ns() {
    local p=$1; shift
    python3 "$CPU_RUN" --ready-line -- $(pin_words 0) "$NSPERF" -s -1 -p 0 -B $HOST -- \
        $(pin_words 1) "$NSPERF" -c $HOST -p '{port}' -J --test "${p}_rr" -l 64 -t "$RTT_SECS" \
        --warmup 0.5 "$@" | jq -e -r '.client_out | fromjson | .result.rtt_us.mean // empty'
}
pin_words() {   # the taskset prefix for server (0) or client (1), or nothing
    [ -z "${RTT_CPUS:-}" ] && return
    local cpus=($RTT_CPUS)
    echo "taskset -c ${cpus[$1]}"
}
rtt_sockperf() {
    local p=$1; shift
    local port; port=$(free_port)
    local tcp=""; [ "$p" = tcp ] && tcp=--tcp
    (pin 0 sockperf server $tcp -i $HOST -p "$port") >/dev/null 2>&1 &
    srv=$!
    pids+=("$srv")
    for _ in $(seq 1 200); do
        [ -n "$(ss -Hln "( sport = :$port )" 2>/dev/null)" ] && break
        sleep 0.01
    done
    (pin 1 sockperf ping-pong $tcp --full-rtt -m 64 -i $HOST -p "$port" -t "$RTT_SECS" "$@") 2>&1 |
        sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p'
    stop_server
}

bench_rtt() {
    have sockperf || { summary+=("rtt: SKIP (sockperf missing)"); return; }
    local cores="0 1"
    [ "$(nproc)" -lt 2 ] && cores=""
    local p
    for p in tcp udp; do
        echo "== ${p}_rr 64 B mean RTT, us (${RTT_SECS}s x $RTT_RUNS; busy modes on cores '${cores}')"
        eval "ns_def() { rtt_ns $p; }; sp_def() { rtt_sockperf $p; }
              ns_busy() { RTT_CPUS='$cores' rtt_ns $p --busy-poll; }
              sp_busy() { RTT_CPUS='$cores' rtt_sockperf $p --nonblocked; }"
        local save=$RUNS
        RUNS=$RTT_RUNS
        compare "rtt$p" ns_def sp_def ns_busy sp_busy
        RUNS=$save
        local sp nb spb
        sp=$(median <"$tmp/rtt$p.sp_def")
        nb=$(median <"$tmp/rtt$p.ns_busy")
        spb=$(median <"$tmp/rtt$p.sp_busy")
        local best=$med_ns mode=default
        if [ "$nb" != nan ] && awk -v a="$nb" -v b="$best" 'BEGIN {exit !(a < b)}'; then
            best=$nb
            mode=--busy-poll
        fi
        echo "  median: nsperf $(num3 "$med_ns"), nsperf --busy-poll $(num3 "$nb"); sockperf $(num3 "$sp"), sockperf --nonblocked $(num3 "$spb")"
        summary+=("$(verdict "${p}_rr RTT nsperf/sockperf" "$(ratio "$med_ns" "$sp")" "<=" 1.0)  [$(num3 "$med_ns") vs $(num3 "$sp") us]")
        summary+=("$(verdict "${p}_rr RTT best ($mode)/sockperf" "$(ratio "$best" "$sp")" "<=" 0.95)  [$(num3 "$best") vs $(num3 "$sp") us; sockperf --nonblocked $(num3 "$spb")]")
    done
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
nsperf_bps_copy() { nsperf_bps 1 -l 128K --copy; }
cpu_ns_copy() { cpu_ns 5G --copy; }
cpu_iperf3_5g() { cpu_iperf3 5G; }
iperf3_bps_1() { iperf3_bps 1; }
iperf3_bps_2() { iperf3_bps 2; }
qperf_bps_1() { qperf_bps; }

echo "bench: $NSPERF; ${SECS}s per run, $RUNS runs, warmup ${WARMUP}s; $(nproc) cores; $(uname -r)"
for b in $ONLY; do
    case $b in
    fixed) bench_fixed ;;
    cpu) bench_cpu ;;
    rtt) bench_rtt ;;
    stream) bench_stream ;;
    eq) bench_eq ;;
    copy) bench_copy ;;
    p2) bench_p2 ;;
    udp) bench_udp ;;
    window) bench_window ;;
    rss) bench_rss ;;
    *) echo "bench: unknown part '$b'" >&2 ;;
    esac
done
echo
echo "== summary"
for line in "${summary[@]}"; do echo "$line"; done
exit 0
