#!/usr/bin/env bash
# bench_newkinds.sh - issue 30's kinds against the tools users know, on loopback, in one run.
# A benchmark, not a ctest test: it prints figures, same-run ratios and PASS/MISS per target,
# exit 0. Interleaved runs, medians (odd runs start with nsperf, even ones with the peer).
#
#   tests/bench/bench_newkinds.sh [path/to/nsperf | BUILD_DIR]
#
# Targets ("ahead of each, or within 5 % where the peer is at the kernel's limit"):
#   bidir  tcp_stream --bidir -P 1 against `iperf3 --bidir -P 1`, both directions' receiver-
#          counted sum, each at its defaults (nsperf: 1 MiB zero-copy writes; iperf3: 128 KiB
#          send/recv): >= 0.95 x; at equal settings (-l 128K both, nsperf --copy) shown too
#   pps    udp_pps against `iperf3 -u -l 64 -b 0`, 64-byte datagrams as fast as each goes, one
#          stream: datagrams received per second >= 0.95 x (iperf3: packets - lost_packets over
#          its seconds; nsperf: packets_per_s)
#   load   tcp_rr -l 64 under 2 bulk streams forward (--load 2) against `sockperf ping-pong
#          --tcp --full-rtt -m 64` run while `iperf3 -P 2` runs: the mean RTT under load <= 1.05 x
#          sockperf's, and the load's throughput >= 0.95 x iperf3's over the same seconds; the
#          idle RTT of nsperf's own first quarter beside sockperf alone, shown
# Environment: BENCH_SECONDS (measured seconds per run, default 5), BENCH_RUNS (default 5),
#   BENCH_ONLY (subset of: bidir pps load).
set -u

SECS=${BENCH_SECONDS:-5}
RUNS=${BENCH_RUNS:-5}
ONLY=${BENCH_ONLY:-"bidir pps load"}
WARMUP=1
HOST=127.0.0.1
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/bench/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

NSPERF=$(find_nsperf "${1:-}")
if [ -z "$NSPERF" ] || [ ! -x "$NSPERF" ]; then
    echo "bench: nsperf binary not found (give its path or build it first)" >&2
    exit 2
fi
for tool in jq iperf3 sockperf; do
    have $tool || { echo "bench: $tool is required (.ci/packages)" >&2; exit 2; }
done

nsperf_json() {   # nsperf -J with these args after host, port, -J
    local port; port=$(free_port)
    start_server "$port" "$NSPERF" -s -1 -p "$port" || return 1
    "$NSPERF" -c $HOST -p "$port" -J "$@" 2>"$tmp/client.err"
    stop_server
}
iperf3_json() {   # iperf3 -J with these args after host, port, -J
    local port; port=$(free_port)
    start_server "$port" iperf3 -s -1 -p "$port" || return 1
    iperf3 -c $HOST -p "$port" -J "$@" 2>/dev/null
    stop_server
}

# ---- one measurement each: one number, or nothing on failure ----

ns_bidir() { nsperf_json --test tcp_stream --bidir -t "$SECS" --warmup "$WARMUP" "$@" |
    jq -e '.result | select(.forward and .reverse) | .throughput_bps' 2>/dev/null; }
ns_bidir_def() { ns_bidir; }
ns_bidir_eq() { ns_bidir -l 128K --copy; }
ip_bidir() { iperf3_json --bidir -t "$SECS" -O "$WARMUP" |
    jq -e '.end | .sum_received.bits_per_second + .sum_received_bidir_reverse.bits_per_second' \
        2>/dev/null; }

ns_pps() { nsperf_json --test udp_pps -t "$SECS" --warmup "$WARMUP" |
    jq -e '.result.packets_per_s' 2>/dev/null; }
ip_pps() { iperf3_json -u -l 64 -b 0 -t "$SECS" -O "$WARMUP" |
    jq -e '.end.sum | (.packets - .lost_packets) / .seconds' 2>/dev/null; }

# nsperf under load: -t so that its window under load is SECS (a quarter idle, a 1 s ramp):
# prints "rtt_mean_us load_bps idle_mean_us"
ns_load() {
    local t; t=$(awk -v s="$SECS" -v w="$WARMUP" 'BEGIN {printf "%.3f", (s + w) * 4 / 3}')
    nsperf_json --test tcp_rr -l 64 --load 2 --load-direction forward -t "$t" --warmup "$WARMUP" |
        jq -e -r '.result | "\(.rtt_us.mean) \(.load.throughput_bps) \(.idle_rtt_us.mean)"' \
            2>/dev/null
}
# sockperf's mean round trip (--full-rtt: "====> avg-rtt=26.820 (std-dev=...)"), us
sp_rtt() { awk '{for (i = 1; i <= NF; i++) if ($i ~ /^avg-rtt=/) {sub(/^avg-rtt=/, "", $i); v = $i}}
    END {if (v != "") print v}'; }
# sockperf ping-pong while iperf3 -P 2 runs: the iperf3 load starts WARMUP s before sockperf,
# which runs SECS s, and its figure is over those SECS (-O omits the ramp): "rtt_mean_us load_bps"
sp_load() {
    local ip sp; ip=$(free_port); sp=$(free_port)
    start_server "$ip" iperf3 -s -1 -p "$ip" || return 1
    local isrv=$srv
    start_server "$sp" sockperf server --tcp -i $HOST -p "$sp" || return 1
    local ssrv=$srv
    iperf3 -c $HOST -p "$ip" -P 2 -t $((SECS + 1)) -O "$WARMUP" -J >"$tmp/ip_load.json" 2>/dev/null &
    local ic=$!
    pids+=("$ic")
    sleep "$WARMUP"
    local rtt
    rtt=$(sockperf ping-pong --tcp --full-rtt -i $HOST -p "$sp" -m 64 -t "$SECS" 2>&1 |
        sp_rtt)
    wait "$ic" 2>/dev/null
    srv=$ssrv; stop_server
    srv=$isrv; stop_server
    local bps; bps=$(jq -e '.end.sum_received.bits_per_second' "$tmp/ip_load.json" 2>/dev/null)
    [ -n "$rtt" ] && [ -n "$bps" ] && echo "$rtt $bps"
}
sp_idle() {
    local sp; sp=$(free_port)
    start_server "$sp" sockperf server --tcp -i $HOST -p "$sp" || return 1
    sockperf ping-pong --tcp --full-rtt -i $HOST -p "$sp" -m 64 -t "$SECS" 2>&1 |
        sp_rtt
    stop_server
}

# interleave NAME FN_A FN_B: RUNS runs of each, alternating who goes first; lines in
# $tmp/NAME.a and $tmp/NAME.b
interleave() {
    local name=$1 a=$2 b=$3 r v f
    : >"$tmp/$name.a"; : >"$tmp/$name.b"
    for r in $(seq 1 "$RUNS"); do
        local order=(a b)
        [ $((r % 2)) -eq 0 ] && order=(b a)
        for f in "${order[@]}"; do
            if [ "$f" = a ]; then v=$($a); else v=$($b); fi
            [ -n "$v" ] && echo "$v" >>"$tmp/$name.$f"
            printf '  run %d %-14s %s\n' "$r" "$([ "$f" = a ] && echo "$a" || echo "$b")" "${v:-FAILED}"
        done
    done
}
col() { awk -v c="$2" '{print $c}' "$1" | median; }
kpps() { awk -v v="$1" 'BEGIN {if (v == "nan") print "nan"; else printf "%.0f kpkt/s", v / 1e3}'; }
usec() { awk -v v="$1" 'BEGIN {if (v == "nan") print "nan"; else printf "%.1f us", v}'; }

summary=()

bench_bidir() {
    echo "== tcp_stream --bidir -P 1 against iperf3 --bidir, each at its defaults (${SECS}s x $RUNS)"
    interleave bidir ns_bidir_def ip_bidir
    local n m; n=$(col "$tmp/bidir.a" 1); m=$(col "$tmp/bidir.b" 1)
    summary+=("$(verdict "bidir nsperf/iperf3 (defaults)" "$(ratio "$n" "$m")" ">=" 0.95)  [$(gbit "$n") vs $(gbit "$m")]")
    echo "== the same at equal settings: -l 128K, nsperf --copy (${SECS}s x $RUNS)"
    interleave bidireq ns_bidir_eq ip_bidir
    n=$(col "$tmp/bidireq.a" 1); m=$(col "$tmp/bidireq.b" 1)
    summary+=("$(verdict "bidir nsperf/iperf3 (-l 128K --copy)" "$(ratio "$n" "$m")" ">=" 0.95)  [$(gbit "$n") vs $(gbit "$m")]")
}

bench_pps() {
    echo "== udp_pps against iperf3 -u -l 64 -b 0, datagrams received per second (${SECS}s x $RUNS)"
    interleave pps ns_pps ip_pps
    local n m; n=$(col "$tmp/pps.a" 1); m=$(col "$tmp/pps.b" 1)
    summary+=("$(verdict "pps nsperf/iperf3" "$(ratio "$n" "$m")" ">=" 0.95)  [$(kpps "$n") vs $(kpps "$m")]")
}

bench_load() {
    echo "== tcp_rr -l 64 under 2 streams (--load 2) against sockperf ping-pong beside iperf3 -P 2 (${SECS}s x $RUNS)"
    interleave load ns_load sp_load
    local nr nb ni sr sb si
    nr=$(col "$tmp/load.a" 1); nb=$(col "$tmp/load.a" 2); ni=$(col "$tmp/load.a" 3)
    sr=$(col "$tmp/load.b" 1); sb=$(col "$tmp/load.b" 2)
    echo "== sockperf ping-pong alone (${SECS}s x $RUNS), beside nsperf's own idle quarter"
    : >"$tmp/idle.b"
    for r in $(seq 1 "$RUNS"); do v=$(sp_idle); [ -n "$v" ] && echo "$v" >>"$tmp/idle.b"; printf '  run %d sp_idle %s\n' "$r" "${v:-FAILED}"; done
    si=$(median <"$tmp/idle.b")
    summary+=("$(verdict "RTT under load nsperf/sockperf" "$(ratio "$nr" "$sr")" "<=" 1.05)  [$(usec "$nr") vs $(usec "$sr")]")
    summary+=("$(verdict "load throughput nsperf/iperf3 -P 2" "$(ratio "$nb" "$sb")" ">=" 0.95)  [$(gbit "$nb") vs $(gbit "$sb")]")
    summary+=("$(printf '%-40s %s vs %s (shown)' "idle RTT nsperf/sockperf" "$(usec "$ni")" "$(usec "$si")")")
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for b in $ONLY; do "bench_$b"; done
echo
echo "== summary (load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs)"
for line in "${summary[@]}"; do echo "$line"; done
