#!/usr/bin/env bash
# A survey over real SSH recovers the lab's truth, and the release gate sees a changed link.
# A 3-zone lab with the round-trip times users measured in an Azure region (1-2 329 us, 1-3 597 us,
# 2-3 499 us) and caps of 800, 400 and 200 Mbit/s; `netsurvey run` deploys the static nsperf to
# every host over ssh and surveys every ordered zone pair, one pair at a time.
#  - RTT: the p50 of each cell of a latency survey's zone matrix (tcp_rr, 250 B, 3 trials: the
#    merged histogram of their 5000-8500 round trips) minus the p50 of the same cell in a survey
#    with every delay at 0 just before it (the lab's own base RTT: two passes through the delay
#    line and both stacks) is within 10 % of the configured RTT, in both directions, for both
#    latency surveys of the unchanged lab; the cells' means (base mean subtracted) are printed,
#    not gated;
#  - throughput: a tcp_stream survey's matrix is within 10 % of 0.965 x cap (HTB counts IP bytes:
#    1448 bytes of TCP payload per 1500-byte packet), in both directions;
#  - the reports show these figures: report.md's and report.html's zone matrices carry every
#    cell of summary.json;
#  - release gate: a second survey of the unchanged lab compares with exit 0; a survey with link
#    1-2 raised by 40 % (329 -> 461 us) compares with exit 1 and names cells 1 -> 2 and 2 -> 1
#    only (PCT 20: the +40 % delay is +33..+40 % of the measured RTT, base included).
# The delay line and the hosts (sshd, hence nsperf) run on one CPU, SCHED_FIFO (`lab pin`): on
# this 2-vCPU VM a wake-up across vCPUs costs 40-300 us (tests/lab/README.md).
source "$(dirname "$0")/labtest.sh"
need_survey

declare -A CFG=([1-2]=329 [1-3]=597 [2-3]=499)
declare -A CAP=([1-2]=800 [1-3]=400 [2-3]=200)
PAIRS=(1-2 2-1 1-3 3-1 2-3 3-2)
cfg_of() { local s=${1%-*} d=${1#*-}; echo "${CFG[$1]:-${CFG[$d-$s]}}"; }
cap_of() { local s=${1%-*} d=${1#*-}; echo "${CAP[$1]:-${CAP[$d-$s]}}"; }
within() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN{exit !((g-w)^2 <= (p/100*w)^2)}'; }
pct() { awk -v g="$1" -v w="$2" 'BEGIN{printf "%+.1f", (g-w)*100/w}'; }

lab up >/dev/null
lab pin >/dev/null
LAT="{name: latency, test: tcp_rr, msg_size: 250, duration: 1s, warmup: 0.3s}"
TPUT="{name: throughput, test: tcp_stream, streams: 1, duration: 2s, warmup: 1s}"
lab_plan_with "$WORK/lat.yaml" 3 "$LAT"
lab_plan_with "$WORK/tput.yaml" 1 "$TPUT"
"$NETSURVEY" check "$WORK/lat.yaml" >/dev/null && "$NETSURVEY" check "$WORK/tput.yaml" >/dev/null ||
    fail "the lab's plans do not pass netsurvey check"

# --- the surveys ---------------------------------------------------------------------------------
# Each latency survey of the unchanged lab has its own base survey just before it, as lab_rtt
# interleaves base and delayed rounds: the base is scheduling wake-ups whose cost follows the
# machine's load, so one base survey served a survey two surveys later at another moment's load
# (README: unpinned, a base measured once drifted by more than 10 % of 329 us; pinned, a cell's
# base p50 read 14-25 us from survey to survey at load 1-7, 2-3 % of 329 us).
#
# dl_survey PLAN NAME: survey into $WORK/NAME; the load and the delay line's release error
# (due time to write, over the survey) into $WORK/NAME.dl: the host stalls the survey saw
dl_survey() {
    local rc=0 p99 max
    lab stats --reset
    survey "$1" "$WORK/$2" || rc=$?
    read -r p99 max < <(lab stats | awk '/^release_err_ns_p99 / {p = $2} /^release_err_ns_max / {m = $2}
        END {printf "%.1f %.0f\n", p / 1e3, m / 1e3}')
    printf '%-6s load %5s, delay line release error p99 %s us, max %s us\n' "$2" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$p99" "$max" >"$WORK/$2.dl"
    return $rc
}
RTTS="1-2=329us,1-3=597us,2-3=499us"
lab set-rtt "1-2=0,1-3=0,2-3=0" >/dev/null
dl_survey "$WORK/lat.yaml" base || fail "base survey: exit $?"
lab set-rtt "$RTTS" >/dev/null
dl_survey "$WORK/lat.yaml" a || fail "latency survey: exit $?"
dl_survey "$WORK/tput.yaml" tput || fail "throughput survey: exit $?"
lab set-rtt "1-2=0,1-3=0,2-3=0" >/dev/null
dl_survey "$WORK/lat.yaml" base2 || fail "second base survey: exit $?"
lab set-rtt "$RTTS" >/dev/null
dl_survey "$WORK/lat.yaml" a2 || fail "second latency survey: exit $?"
lab set-rtt "1-2=461us" >/dev/null
dl_survey "$WORK/lat.yaml" c || fail "survey with 1-2 at +40 %: exit $?"
lab set-rtt "1-2=329us" >/dev/null
cat "$WORK"/{base,a,tput,base2,a2,c}.dl

# --- RTT ---------------------------------------------------------------------------------------
# Gated on the cell's p50 (summary.json: rtt_us.p50, from the merged histogram of its trials, 0.1 %
# buckets), not its mean: a host stall of 33 ms (the user-space delay line on this 2-vCPU
# PREEMPT_NONE VM, seen at load 4.8) is one slow round trip among thousands: it adds 33 ms / n
# to the mean, +12 us (3.6 % of 329 us) in a 1 s trial of 1-2's ~2800, but moves the p50 by one
# sample (with 3 such stalls a second: means +8..+15 %, p50s +1..+3.5 %). A wrong delay, a lab
# bias or nsperf misreading its clock shifts every round trip, and so the p50 as much as the mean.
# lab_rtt gates the same way (README: +22 % on a mean, +2 % on the p50).
# The means are printed but not gated, not even loosely: the stalls that move them have no bound
# on a shared machine, so any bound on them would be flaky or too loose to catch what p50 misses.
p50_cell() { summary_entry "$1" latency zone_cells "$2" "$3" .rtt_us.p50; }
echo "RTT (us): survey zone cells; net = p50 - p50 of the base survey just before"
echo "          (same pair, 0 delay), gated;"
echo "          mnet = mean - base mean, shown only"
printf '%-5s %6s | %-46s | %s\n' "" "" "survey a (base: survey base)" "survey a2 (base: survey base2)"
printf '%-5s %6s | %7s %7s %7s %6s %7s %6s | %7s %7s %7s %6s %7s %6s\n' pair cfg \
    base_p50 p50 net err_% mnet merr_% base_p50 p50 net err_% mnet merr_%
for pair in "${PAIRS[@]}"; do
    s=${pair%-*} d=${pair#*-} cfg=$(cfg_of "$pair")
    line=$(printf '%-5s %6d' "$pair" "$cfg")
    for run in a a2; do
        b=${run/a/base}
        bp=$(p50_cell "$WORK/$b" "$s" "$d") p=$(p50_cell "$WORK/$run" "$s" "$d")
        bm=$(cell "$WORK/$b" latency "$s" "$d") m=$(cell "$WORK/$run" latency "$s" "$d")
        if [[ -z $bp || -z $p || -z $bm || -z $m ]]; then
            fail "$pair: a latency cell of $run or $b is missing (p50s '$bp' '$p', means '$bm' '$m')"
            continue 2
        fi
        net=$(awk -v a="$p" -v b="$bp" 'BEGIN{print a-b}')
        mnet=$(awk -v a="$m" -v b="$bm" 'BEGIN{print a-b}')
        line+=$(printf ' | %7.1f %7.1f %7.1f %6s %7.1f %6s' "$bp" "$p" "$net" "$(pct "$net" "$cfg")" \
            "$mnet" "$(pct "$mnet" "$cfg")")
        within "$net" "$cfg" 10 || fail "$(printf '%s: survey %s p50 RTT %.1f us - base p50 %.1f us' \
            "$pair" "$run" "$p" "$bp") ($b) = $(printf %.1f "$net") us is not within 10 % of $cfg us" \
            "($(sed 's/^[^ ]* *//' "$WORK/$run.dl"))"
    done
    echo "$line"
done

# --- throughput --------------------------------------------------------------------------------
echo "throughput (Mbit/s): survey zone-matrix mean vs 0.965 x cap"
printf '%-5s %6s %8s %8s %7s\n' pair cap expect got err_%
for pair in "${PAIRS[@]}"; do
    s=${pair%-*} d=${pair#*-} cap=$(cap_of "$pair")
    want=$(awk -v c="$cap" 'BEGIN{print 0.965*c}')
    got=$(cell "$WORK/tput" throughput "$s" "$d")
    [[ -n $got ]] || {
        fail "$pair: no throughput cell"
        continue
    }
    printf '%-5s %6d %8.1f %8.1f %7s\n' "$pair" "$cap" "$want" "$got" "$(pct "$got" "$want")"
    within "$got" "$want" 10 || fail "$pair: $got Mbit/s is not within 10 % of $want Mbit/s"
done

# --- the reports show them ---------------------------------------------------------------------
# report_cell DIR SCENARIO SRC DST: the text of that cell in report.md's zone matrix (its figures
# are numbers; the caption in italics under "### Zone matrix" names their one unit)
report_cell() {
    awk -v scen="$2" -v s="$3" -v d="$4" '
        index($0, "## Scenario " scen ":") == 1 { sc = 1; next }
        sc && index($0, "### Zone matrix") == 1 { on = 1; next }
        on && index($0, "| **" s "** |") == 1 { split($0, f, "|"); v = f[d + 2]; gsub(/^ +| +$/, "", v); print v; exit }
        on && /^### / { exit }' "$1/report.md"
}
# matrix_caption DIR SCENARIO: the caption of that scenario's zone matrix
matrix_caption() {
    awk -v scen="$2" '
        index($0, "## Scenario " scen ":") == 1 { sc = 1; next }
        sc && index($0, "### Zone matrix") == 1 { on = 1; next }
        on && /^\*/ { print; exit }' "$1/report.md"
}
for spec in "a latency µs" "tput throughput Mbit/s"; do
    read -r run scen unit <<<"$spec"
    shown=0
    [[ $(matrix_caption "$WORK/$run" "$scen") == *"($unit)"* ]] ||
        fail "report.md of $run: the $scen matrix's caption does not say $unit"
    for pair in "${PAIRS[@]}"; do
        s=${pair%-*} d=${pair#*-}
        want="$(printf '%.1f' "$(cell "$WORK/$run" "$scen" "$s" "$d")")"
        got=$(report_cell "$WORK/$run" "$scen" "$s" "$d")
        [[ $got == "$want" ]] || fail "report.md of $run: cell $pair shows '$got', summary.json says '$want' $unit"
        grep -qF ">$want<" "$WORK/$run/report.html" || fail "report.html of $run: no cell '$want' ($pair)"
        shown=$((shown + 1))
    done
    [[ -s $WORK/$run/charts/heatmap-$scen.svg ]] || fail "report of $run: no heatmap chart"
    pass "reports of the $scen survey show all $shown cells of its matrix"
done

# --- release gate ------------------------------------------------------------------------------
rc=0
"$NETSURVEY" compare "$WORK/a" "$WORK/a2" --max-regression 20 -o "$WORK/cmp-same" \
    >"$WORK/cmp-same.txt" 2>&1 || rc=$?
if ((rc == 0)); then
    pass "gate: the unchanged lab compares with exit 0"
else
    cat "$WORK/cmp-same.txt"
    fail "gate: the unchanged lab compares with exit $rc, not 0"
fi
rc=0
"$NETSURVEY" compare "$WORK/a" "$WORK/c" --max-regression 20 -o "$WORK/cmp-slow" \
    >"$WORK/cmp-slow.txt" 2>&1 || rc=$?
flagged=$(grep 'REGRESSION' "$WORK/cmp-slow.txt" | awk -F'|' '{gsub(/ /, "", $5); print $5}' |
    sort | tr '\n' ' ')
grep 'REGRESSION' "$WORK/cmp-slow.txt" | sed 's/^/   /'
if ((rc == 1)) && [[ $flagged == "1→2 2→1 " ]]; then
    pass "gate: link 1-2 at +40 % compares with exit 1 and names cells 1 → 2 and 2 → 1 only"
else
    cat "$WORK/cmp-slow.txt"
    fail "gate: link 1-2 at +40 %: exit $rc (want 1), regressions named: '$flagged' (want 1→2 2→1)"
fi

no_nsperf_left "after the surveys"
lab unpin >/dev/null
finish
