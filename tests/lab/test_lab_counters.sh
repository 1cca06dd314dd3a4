#!/usr/bin/env bash
# What the hosts did to a trial is recorded, with the real kernel's counters: a udp_stream at
# 2 Gbit/s from zone 2 into the 200 Mbit/s cap to zone 3 (HTB on the sender's dl0), with a 4 MiB
# socket buffer, loses most of what it sends - and the loss is the sender's own qdisc's: nsperf
# records the HTB's drops (no more than `tc -s qdisc` counted over the whole run) and the UDP
# send buffer errors they cause, and the trial is flagged `drops` naming the sender's qdisc.
# Without the buffer the socket blocks the sender first (its 212 KiB fill before the qdisc's
# 1 000 packets): the qdisc drops nothing, and no reason names it. Then the same through a
# survey over ssh: each record holds both ends' counters under src and dst, the flag and its
# reason, and the reports count the flagged trials per cell.
source "$(dirname "$0")/labtest.sh"

UDP=(--test udp_stream -b 2G -t 2 --warmup 0.5)

lab up >/dev/null

# qdisc_dropped HOST: `tc -s qdisc` of the host's data device: the root's "dropped N"
qdisc_dropped() {
    lab exec "$1" -- tc -s qdisc show dev dl0 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1
}

# --- nsperf alone ---------------------------------------------------------------------------
tc0=$(qdisc_dropped z2h1)
out=$WORK/udp-w4m.json
nsperf_pair 2 3 "$out" "${UDP[@]}" -w 4M || fail "udp_stream -w 4M: nsperf failed"
tc1=$(qdisc_dropped z2h1)
loc='.counters.local'
echo "-w 4M: lost $(jq .result.udp.lost "$out") of $(jq .result.udp.sent "$out"); sender's" \
    "qdisc $(jq -c "$loc.qdisc" "$out") (tc: $((tc1 - tc0)) over the run), udp" \
    "$(jq -c "$loc.udp" "$out"), link $(jq -c "$loc.link" "$out")"
jq -e "$loc.interface == \"dl0\" and $loc.driver == \"tun\" and $loc.qdisc.kind == \"htb\" and
       .counters.remote.interface == \"dl0\" and .counters.remote.driver == \"tun\"" "$out" \
    >/dev/null && pass "both ends: the data interface dl0, driver tun, the sender's qdisc htb" ||
    fail "the ends' interfaces, drivers or qdisc: $(jq -c '.counters | map_values({interface,
        driver, qdisc})' "$out")"
drops=$(jq "$loc.qdisc.drops // 0" "$out")
if ((drops > 0 && drops <= tc1 - tc0)); then
    pass "the sender's qdisc drops recorded: $drops (tc counted $((tc1 - tc0)) over the whole run)"
else
    fail "sender's qdisc drops $drops, tc counted $((tc1 - tc0))"
fi
jq -e "$loc.udp.sndbuf_errors > 0 and .result.udp.lost > 0" "$out" >/dev/null &&
    pass "the drops are the sender's UDP send buffer errors, and the receiver counted them lost" ||
    fail "sndbuf_errors or lost: $(jq -c "[$loc.udp, .result.udp]" "$out")"

out=$WORK/udp-default.json
nsperf_pair 2 3 "$out" "${UDP[@]}" || fail "udp_stream: nsperf failed"
echo "default buffer: lost $(jq .result.udp.lost "$out"), unsent $(jq .result.udp.unsent "$out");" \
    "sender's qdisc $(jq -c "$loc.qdisc" "$out"), link $(jq -c "$loc.link" "$out")"
jq -e "($loc.qdisc.drops // 0) == 0 and ($loc.udp.sndbuf_errors // 0) == 0" "$out" >/dev/null &&
    pass "without the buffer the sender's socket waits: its qdisc dropped nothing" ||
    fail "default buffer: $(jq -c "$loc | {qdisc, udp}" "$out")"

# --- a survey over ssh -----------------------------------------------------------------------
# The same test in every direction (caps 800, 400 and 200 Mbit/s between zone pairs), one trial
# each, the static nsperf deployed. Both 200 Mbit/s directions (2 -> 3, 3 -> 2) are sure to
# overflow their sender's qdisc; the faster ones only where this machine's sender reaches its cap.
need_survey
plan=$WORK/plan.yaml
lab_plan_with "$plan" 1 "{name: udp-w4m, test: udp_stream, rate: 2G, window: 4M, duration: 2s,
    warmup: 500ms}"
dir=$WORK/run
survey "$plan" "$dir" || fail "survey: exit status $? ($(tail -3 "$WORK/survey.log"))"
res=$dir/results.jsonl
jq -r '"\(.src.host) -> \(.dst.host): lost \(.result.udp.lost) of \(.result.udp.sent);" +
    " flags \(.flags | keys | join(",")): \(.flags.drops // "-")"' "$res"
jq -e -s 'length == 6 and all(.[]; .status == "ok" and .counters.src.interface == "dl0" and
    .counters.dst.interface == "dl0" and .counters.src.driver == "tun" and
    (.counters.src.cpu.ticks > 0) and (.flags | type) == "object")' "$res" >/dev/null &&
    pass "6 records, each with both ends' counters (src and dst: dl0, tun, cpu) and its flags" ||
    fail "records: $(jq -c '{s: .src.host, d: .dst.host, st: .status, c: (.counters | keys?)}' "$res")"
for p in "z2h1 z3h1" "z3h1 z2h1"; do
    read -r s d <<<"$p"
    jq -e -s --arg s "$s" --arg d "$d" 'map(select(.src.host == $s and .dst.host == $d)) |
        length == 1 and (.[0].counters.src.qdisc.drops > 0) and
        (.[0].flags.drops | test("^sender " + $s + ": .*qdisc htb dropped [0-9]+"))' "$res" \
        >/dev/null && pass "$s -> $d: flagged drops, naming the sender's own qdisc" ||
        fail "$s -> $d: $(jq -c --arg s "$s" --arg d "$d" 'select(.src.host == $s and
            .dst.host == $d) | {q: .counters.src.qdisc, flags}' "$res")"
done
# The reports: the trial stays in its cell's figure, and the cell says it was flagged
jq -e '.scenarios[0].zone_cells[] | select(.src_zone == "2" and .dst_zone == "3") |
    .n == 1 and (.mean > 0) and .flagged.trials == 1 and .flagged.drops == 1 and
    .flagged.mean_without == null' "$dir/summary.json" >/dev/null &&
    pass "summary.json: cell 2 -> 3 keeps its trial's figure and counts it flagged (drops)" ||
    fail "summary.json cell 2 -> 3: $(jq -c '.scenarios[0].zone_cells[] |
        select(.src_zone == "2" and .dst_zone == "3")' "$dir/summary.json")"
grep -q "^- trial 1, z2h1 → z3h1: drops: sender z2h1: .*qdisc htb dropped" "$dir/report.md" &&
    grep -q "^- zone cell 2 → 3: 1 of 1 trial flagged (drops 1[,)]" "$dir/report.md" &&
    pass "report.md says the sender's qdisc dropped them" ||
    fail "report.md: $(grep -n "bent\|flagged" "$dir/report.md")"
no_nsperf_left "after the survey"

finish
