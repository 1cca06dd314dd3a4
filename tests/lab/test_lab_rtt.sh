#!/usr/bin/env bash
# The lab's round-trip times are the configured ones: a 3-zone lab with the RTTs measured in an
# Azure region (1-2 329 us, 1-3 597 us, 2-3 499 us); nsperf tcp_rr (250-byte messages, like
# sockperf ping-pong) from each zone to each other zone, one pair at a time, both directions.
# The mean RTT minus the lab's own base RTT (measured on a pair set to 0 delay) must be within
# 10 % of the configured RTT. A measurement that was clearly disturbed by other load on the
# machine (p99 over 3x the median) and out of bounds is repeated once.
source "$(dirname "$0")/labtest.sh"

declare -A CFG=([1-2]=329 [1-3]=597 [2-3]=499)
RR=(--test tcp_rr -l 250 -t 3 --warmup 0.5)

measure() { # measure SRC DST OUT: one tcp_rr, again once if disturbed and out of bounds (check)
    local s=$1 d=$2 out=$3 check=$4
    nsperf_pair "$s" "$d" "$out" "${RR[@]}" || return 1
    if ! $check "$out" && rr_disturbed "$out"; then
        echo "   (disturbed: p50 $(jq .result.rtt_us.p50 "$out") p99 $(jq .result.rtt_us.p99 "$out")," \
            "load $(cut -d' ' -f1 /proc/loadavg); measuring again)"
        nsperf_pair "$s" "$d" "$out" "${RR[@]}" || return 1
    fi
}

base_ok() { jq -e '.result.rtt_us.mean < 200' "$1" >/dev/null; }

lab up >/dev/null
lab set-rtt 1-2=0 >/dev/null
measure 1 2 "$WORK/base.json" base_ok || fail "base measurement"
BASE=$(jq .result.rtt_us.mean "$WORK/base.json")
echo "base RTT (1-2 at 0 delay): mean $BASE us, min $(jq .result.rtt_us.min "$WORK/base.json")," \
    "p50 $(jq .result.rtt_us.p50 "$WORK/base.json"), p99 $(jq .result.rtt_us.p99 "$WORK/base.json")"
lab set-rtt 1-2=329us >/dev/null
lab stats --reset

printf '%-5s %8s %9s %9s %9s %7s\n' pair cfg_us mean_us p50_us net_us err_%
for pair in 1-2 2-1 1-3 3-1 2-3 3-2; do
    s=${pair%-*} d=${pair#*-}
    cfg=${CFG[$pair]:-${CFG[$d-$s]}}
    out=$WORK/rr-$pair.json
    within() { jq -e --argjson b "$BASE" --argjson c "$cfg" \
        '(.result.rtt_us.mean - $b - $c) | fabs <= 0.1 * $c' "$1" >/dev/null; }
    measure "$s" "$d" "$out" within || {
        fail "$pair: nsperf failed"
        continue
    }
    read -r mean p50 <<<"$(jq -r '.result.rtt_us | "\(.mean) \(.p50)"' "$out")"
    printf '%-5s %8d %9.1f %9.1f %9.1f %+7.1f\n' "$pair" "$cfg" "$mean" "$p50" \
        "$(awk -v m="$mean" -v b="$BASE" 'BEGIN{print m-b}')" \
        "$(awk -v m="$mean" -v b="$BASE" -v c="$cfg" 'BEGIN{print (m-b-c)*100/c}')"
    within "$out" || fail "$pair: mean RTT $mean us - base $BASE us is not within 10 % of $cfg us"
done
echo "delay line release error over these tests:"
lab stats | grep -E 'packets|release' | sed 's/^/   /'
finish
