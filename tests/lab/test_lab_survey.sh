#!/usr/bin/env bash
# A survey over real SSH recovers the lab's truth, and the release gate sees a changed link.
# A 3-zone lab with the round-trip times users measured in an Azure region (1-2 329 us, 1-3 597 us,
# 2-3 499 us) and caps of 800, 400 and 200 Mbit/s; `netsurvey run` deploys the static nsperf to
# every host over ssh and surveys every ordered zone pair, one pair at a time.
#  - RTT: the zone matrix of a latency survey (tcp_rr, 250 B, 3 trials) minus the matrix of the
#    same survey with every delay at 0 (the lab's own base RTT: two passes through the delay line
#    and both stacks, 60-90 us here) is within 10 % of the configured RTT, in both directions;
#  - throughput: a tcp_stream survey's matrix is within 10 % of 0.965 x cap (HTB counts IP bytes:
#    1448 bytes of TCP payload per 1500-byte packet), in both directions;
#  - the reports show these figures: report.md's and report.html's zone matrices carry every
#    cell of summary.json;
#  - release gate: a second survey of the unchanged lab compares with exit 0; a survey with link
#    1-2 raised by 40 % (329 -> 461 us) compares with exit 1 and names cells 1 -> 2 and 2 -> 1
#    only (PCT 20: the +40 % delay is +33..+37 % of the measured RTT, base included).
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
lab set-rtt "1-2=0,1-3=0,2-3=0" >/dev/null
survey "$WORK/lat.yaml" "$WORK/base" || fail "base survey: exit $?"
lab set-rtt "1-2=329us,1-3=597us,2-3=499us" >/dev/null
survey "$WORK/lat.yaml" "$WORK/a" || fail "latency survey: exit $?"
survey "$WORK/tput.yaml" "$WORK/tput" || fail "throughput survey: exit $?"
survey "$WORK/lat.yaml" "$WORK/a2" || fail "second latency survey: exit $?"
lab set-rtt "1-2=461us" >/dev/null
survey "$WORK/lat.yaml" "$WORK/c" || fail "survey with 1-2 at +40 %: exit $?"
lab set-rtt "1-2=329us" >/dev/null

# --- RTT ---------------------------------------------------------------------------------------
echo "RTT (us): survey zone-matrix mean; net = mean - base (same pair, 0 delay)"
printf '%-5s %6s %8s %8s %8s %7s %8s %7s\n' pair cfg base mean net err_% mean2 err2_%
for pair in "${PAIRS[@]}"; do
    s=${pair%-*} d=${pair#*-} cfg=$(cfg_of "$pair")
    base=$(cell "$WORK/base" latency "$s" "$d") m=$(cell "$WORK/a" latency "$s" "$d")
    m2=$(cell "$WORK/a2" latency "$s" "$d")
    if [[ -z $base || -z $m || -z $m2 ]]; then
        fail "$pair: a latency cell is missing (base '$base', run '$m', second run '$m2')"
        continue
    fi
    net=$(awk -v a="$m" -v b="$base" 'BEGIN{print a-b}')
    net2=$(awk -v a="$m2" -v b="$base" 'BEGIN{print a-b}')
    printf '%-5s %6d %8.1f %8.1f %8.1f %7s %8.1f %7s\n' "$pair" "$cfg" "$base" "$m" "$net" \
        "$(pct "$net" "$cfg")" "$m2" "$(pct "$net2" "$cfg")"
    within "$net" "$cfg" 10 ||
        fail "$pair: survey RTT $m us - base $base us is not within 10 % of $cfg us"
    within "$net2" "$cfg" 10 ||
        fail "$pair: second survey RTT $m2 us - base $base us is not within 10 % of $cfg us"
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
# report_cell DIR SCENARIO SRC DST: the text of that cell in report.md's zone matrix
report_cell() {
    awk -v scen="$2" -v s="$3" -v d="$4" '
        index($0, "### Zone matrix (" scen ",") == 1 { on = 1; next }
        on && index($0, "| **" s "** |") == 1 { split($0, f, "|"); v = f[d + 2]; gsub(/^ +| +$/, "", v); print v; exit }
        on && /^### / { exit }' "$1/report.md"
}
for spec in "a latency us" "tput throughput Mbit/s"; do
    read -r run scen unit <<<"$spec"
    shown=0
    for pair in "${PAIRS[@]}"; do
        s=${pair%-*} d=${pair#*-}
        want="$(printf '%.1f' "$(cell "$WORK/$run" "$scen" "$s" "$d")") $unit"
        got=$(report_cell "$WORK/$run" "$scen" "$s" "$d")
        [[ $got == "$want" ]] || fail "report.md of $run: cell $pair shows '$got', summary.json says '$want'"
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
