#!/usr/bin/env bash
# The lab's round-trip times are the configured ones: a 3-zone lab with the RTTs measured in an
# Azure region (1-2 329 us, 1-3 597 us, 2-3 499 us); nsperf tcp_rr (250-byte messages, like
# sockperf ping-pong) from each zone to each other zone, one pair at a time, both directions.
# The median RTT minus the lab's own base RTT (the same pair set to 0 delay), as the median over
# interleaved rounds, must be within 10 % of the configured RTT. The means are shown, not gated.
source "$(dirname "$0")/labtest.sh"

declare -A CFG=([1-2]=329 [1-3]=597 [2-3]=499)

# The base is measured on the same directed pair set to 0 delay, in short runs interleaved with
# the delayed ones (ROUNDS of each, alternating): one base measured once at the start drifted by
# 80-210 us (mean) from run to run on the shared 2-vCPU machine, more than the whole +-10 % of
# 329 us, because the base is made of scheduling wake-ups whose cost follows the machine's load.
# Interleaving makes base and delayed runs see the same conditions.
# Each round gives one net figure (its delayed p50 minus its own base p50); the pair's figure is
# the median of ROUNDS of them. A mean over all rounds let one disturbed round decide the pair: in
# a CI run one pair failed with every other pair at +1..+3 %, while the delay line's own record
# showed one 10 ms release stall (release_err_ns_max 10393482). A median of 5 needs 3 disturbed
# rounds of the same pair to move; a bias of the lab or of nsperf moves every round and still fails.
# Within a round the statistic is the p50, not the mean: a 0.6 s round is some 1000 round trips,
# so a single host stall of 33 ms adds 33 us to its mean, and a loaded machine stalls often. At
# load 4.8 (2026-12-01) pair 3-2's per-round (mean - base mean) read 669 1354 517 610 535 us
# against 499 us: median +22 %, a failure; the same run's delayed p50 (534.7 us) less its base
# (25.8 us) was 509 us, +2 %, and the delay line's release error max was 33 ms (p99 1.6 us). A
# stall makes one slow round trip among ~1000, which moves a p50 by one sample; a wrong delay, a
# lab bias or nsperf misreading its clock shifts every round trip and so the p50 like the mean.
# nsperf's histogram resolves 0.1 % (1024 buckets per octave, 0.5 us at 500 us), so a p50 is as
# precise as the 10 % bound needs many times over. The mean is not gated, not even loosely: the
# stalls that move it have no bound on a shared machine (+22 % at load 4.8, README: +9..+15 %
# at load 5-8), so any bound on it would be a flaky test or one too loose to catch anything the
# p50 misses.
ROUNDS=5
RR=(--test tcp_rr -l 250 -t 0.6 --warmup 0.3)
mean_of() { jq '.result.rtt_us.mean' "$1"; }
p50_of() { jq '.result.rtt_us.p50' "$1"; }
# median of the numbers on stdin, one per line
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

lab up >/dev/null
# The delay line and both endpoints on one CPU, SCHED_FIFO: on this shared 2-vCPU VM (PREEMPT_NONE
# kernel, both CPUs kept busy by other work) a wake-up on the other vCPU (an IPI) or behind other
# tasks cost tens to hundreds of us, and more after a longer sleep, so it grew with the configured
# delay and the 0-delay base could not cancel it. Measured at load 2-5 (net - cfg, 6 pairs):
# unpinned +5..+32 %, delay line and endpoints on different CPUs +4..+155 %, all on CPU 0
# -1..+21 %, all on CPU 0 and SCHED_FIFO +3..+17 %. LAB_CPU= / LAB_RT= (empty) turn it off.
LAB_CPU=${LAB_CPU-0}
LAB_RT=${LAB_RT-50}
DL_PID=$(cat "$NSLAB_DIR/delay.ready")
if [[ -n $LAB_CPU ]]; then
    taskset -pc "$LAB_CPU" "$DL_PID" >/dev/null
    NSPERF_RUN=(taskset -c "$LAB_CPU" "${NSPERF_RUN[@]}")
fi
if [[ -n $LAB_RT ]]; then
    chrt -f -p "$LAB_RT" "$DL_PID"
    NSPERF_RUN=(chrt -f "$LAB_RT" "${NSPERF_RUN[@]}")
fi
lab stats --reset

printf '%-5s %6s %8s %8s %8s %7s %9s %7s  %s\n' pair cfg_us base_p50 p50_us net_us err_% \
    mean_net err_% "net_us_per_round (p50 - base p50 | mean - base mean)"
for pair in 1-2 2-1 1-3 3-1 2-3 3-2; do
    s=${pair%-*} d=${pair#*-}
    cfg=${CFG[$pair]:-${CFG[$d-$s]}}
    key="$(((s < d) ? s : d))-$(((s < d) ? d : s))"
    ok=1
    for r in $(seq "$ROUNDS"); do
        lab set-rtt "$key=0" >/dev/null
        nsperf_pair "$s" "$d" "$WORK/base-$pair-$r.json" "${RR[@]}" || ok=0
        lab set-rtt "$key=${cfg}us" >/dev/null
        nsperf_pair "$s" "$d" "$WORK/rr-$pair-$r.json" "${RR[@]}" || ok=0
    done
    ((ok)) || {
        fail "$pair: nsperf failed"
        continue
    }
    nets=() mnets=() bases=() p50s=()
    for r in $(seq "$ROUNDS"); do
        b=$(p50_of "$WORK/base-$pair-$r.json") m=$(p50_of "$WORK/rr-$pair-$r.json")
        bm=$(mean_of "$WORK/base-$pair-$r.json") mm=$(mean_of "$WORK/rr-$pair-$r.json")
        bases+=("$b") p50s+=("$m")
        nets+=("$(awk -v m="$m" -v b="$b" 'BEGIN{printf "%.1f", m-b}')")
        mnets+=("$(awk -v m="$mm" -v b="$bm" 'BEGIN{printf "%.1f", m-b}')")
    done
    base=$(printf '%s\n' "${bases[@]}" | median)
    p50=$(printf '%s\n' "${p50s[@]}" | median)
    net=$(printf '%s\n' "${nets[@]}" | median)
    mnet=$(printf '%s\n' "${mnets[@]}" | median)
    err=$(awk -v n="$net" -v c="$cfg" 'BEGIN{printf "%.1f", (n-c)*100/c}')
    merr=$(awk -v n="$mnet" -v c="$cfg" 'BEGIN{printf "%.1f", (n-c)*100/c}')
    printf '%-5s %6d %8.1f %8.1f %8.1f %+7.1f %9.1f %+7.1f  %s | %s\n' "$pair" "$cfg" "$base" "$p50" \
        "$net" "$err" "$mnet" "$merr" "${nets[*]}" "${mnets[*]}"
    awk -v n="$net" -v c="$cfg" 'BEGIN{exit !((n-c)^2 <= (0.1*c)^2)}' ||
        fail "$pair: the median over $ROUNDS rounds of (p50 RTT - base p50) is $net us (rounds: ${nets[*]}), not within 10 % of $cfg us (load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "delay line release error over these tests:"
lab stats | grep -E 'packets|drop|release' | sed 's/^/   /'
finish
