#!/usr/bin/env bash
# Issue 30's kinds on a link with a delay and a rate cap made by the lab (2 zones, 1-2 at 2 ms
# RTT and 20 Mbit/s each way: HTB with a 1000-packet pfifo, so a queue that bulk TCP fills).
#  - latency under load: tcp_rr with 4 bulk streams forward (nsperf, then `netsurvey run` over
#    ssh both ways): the RTT under load exceeds the idle RTT of the same trial, with a wide
#    margin (the queue holds up to 600 ms; the path 2 ms), and the load carried traffic near the
#    cap; the survey's summary and reports show both figures, each with its unit;
#  - both directions at once: tcp_stream --bidir: the total is exactly the sum of what each
#    direction's receiver counted, and each direction was capped by its own link;
#  - packets per second: the link set to 2 Mbit/s (`lab set-rate`: 92-byte IP packets, 2 717
#    packets/s), udp_pps as fast as the sender goes, far above that (tens of thousands a second
#    even on a busy machine). The cap is the sender's own qdisc, and Linux holds a UDP sender
#    back while its socket buffer is full of queued packets: with the default buffer (212 KiB)
#    the sender just runs at the cap and nothing is lost. -w 4M gives it more buffer than the
#    1000-packet queue holds, so the queue drops what the link cannot carry, as a cloud's
#    limit beyond the VM does. iptables counts the measured datagrams (magic "NSPu",
#    phase byte 2) that leave the sender (OUTPUT, before the shaping queue drops) and that reach
#    the receiver (INPUT): nsperf's sent and received are those counts exactly, lost is their
#    difference, and packets_per_s is received over the measured interval.
# Relations and wide bounds only, no accuracy: the lab-accuracy tests measure that.
source "$(dirname "$0")/labtest.sh"
need_survey

CAP_M=20
lab up --zones 2 --hosts 1 --rtt "1-2=2ms" --rate "1-2=${CAP_M}M" >/dev/null
# The delay line and the hosts on one CPU, SCHED_FIFO, as the lab's other timing tests: the
# machine's other load would otherwise stall a 1 s idle window by tens of ms (README: "Where the
# RTT error came from"), which a mean takes in.
lab pin >/dev/null
jqt() { jq -e "$@" >/dev/null; }

# --- latency under load, nsperf alone ------------------------------------------------------------
out=$WORK/rr-load.json
if nsperf_pair 1 2 "$out" --test tcp_rr -t 6 --warmup 1 --load 4 --load-direction forward; then
    read -r idle loaded p50i p50l lbps < <(jq -r '.result | [.idle_rtt_us.mean, .rtt_us.mean,
        .idle_rtt_us.p50, .rtt_us.p50, .load.throughput_bps / 1e6] | @tsv' "$out")
    echo "tcp_rr 1->2: idle mean $idle us (p50 $p50i), under load $loaded us (p50 $p50l), load $lbps Mbit/s"
    jqt '.result | .rtt_us.p50 > 2 * .idle_rtt_us.p50 + 1000 and .rtt_us.mean > 2 * .idle_rtt_us.mean' \
        "$out" && pass "tcp_rr under load: the RTT under load exceeds the idle RTT (the queue fills)" ||
        fail "tcp_rr under load: $loaded us (p50 $p50l) is not well above idle $idle us (p50 $p50i)"
    jqt --argjson c $CAP_M '.result.load.throughput_bps / 1e6 | . > 0.5 * $c and . < 1.05 * $c' "$out" &&
        pass "the load ran near the cap ($lbps Mbit/s of $CAP_M)" ||
        fail "the load carried $lbps Mbit/s on a $CAP_M Mbit/s link"
else
    fail "nsperf tcp_rr --load failed: $(cat "$out")"
fi

# --- both directions at once ---------------------------------------------------------------------
out=$WORK/bidir.json
if nsperf_pair 1 2 "$out" --test tcp_stream --bidir -P 2 -t 3 --warmup 1; then
    jq -r '.result | "tcp_stream --bidir 1<->2: forward \(.forward.throughput_bps / 1e6) Mbit/s, reverse \(.reverse.throughput_bps / 1e6), total \(.throughput_bps / 1e6)"' "$out"
    jqt '.result | .bytes == .forward.bytes + .reverse.bytes and
        ((.throughput_bps - .forward.throughput_bps - .reverse.throughput_bps) | fabs) < 1' "$out" &&
        pass "bidir: the total is the sum of what each receiver counted" ||
        fail "bidir: the total is not the sum of the directions"
    jqt --argjson c $CAP_M '.result | [.forward, .reverse][] | .throughput_bps / 1e6 |
        . > 0.7 * $c and . < 1.05 * $c' "$out" &&
        pass "bidir: each direction capped by its own link" ||
        fail "bidir: a direction is not near its $CAP_M Mbit/s cap"
else
    fail "nsperf tcp_stream --bidir failed: $(cat "$out")"
fi

# --- packets per second, loss exact --------------------------------------------------------------
# The measured datagrams to nsperf's port: UDP, payload "NSPu" then phase 2 (udp_common.h).
MATCH=(-p udp --dport 5301 -m u32 --u32 "0>>22&0x3C@8=0x4E535075&&0>>22&0x3C@12>>24=0x2")
ipt() { lab exec "$1" -- iptables -w "${@:2}"; }
ipt z1h1 -I OUTPUT "${MATCH[@]}" -d 198.19.2.1 -j ACCEPT
ipt z2h1 -I INPUT "${MATCH[@]}" -s 198.19.1.1 -j ACCEPT
count() { ipt "$1" -nvxL "$2" | awk '/u32/ {print $1; exit}'; }
PPS_CAP_M=2
lab set-rate "1-2=${PPS_CAP_M}M" >/dev/null
out=$WORK/pps.json
if nsperf_pair 1 2 "$out" --test udp_pps -t 2 --warmup 0.5 -w 4M; then
    tx=$(count z1h1 OUTPUT) rx=$(count z2h1 INPUT)
    read -r sent rcvd lost pps dur < <(jq -r '.result | [.udp.sent, .udp.received, .udp.lost,
        .packets_per_s, .duration_s] | @tsv' "$out")
    echo "udp_pps 1->2: sent $sent (OUTPUT $tx), received $rcvd (INPUT $rx), lost $lost, $pps packets/s over $dur s"
    [[ $sent == "$tx" && $rcvd == "$rx" ]] &&
        pass "udp_pps: sent and received are what left the sender and reached the receiver" ||
        fail "udp_pps: sent $sent / received $rcvd, the kernels counted $tx / $rx"
    ((lost == tx - rx && lost > 0)) && pass "udp_pps: lost $lost is exactly what the link dropped" ||
        fail "udp_pps: lost $lost, the link dropped $((tx - rx))"
    jqt '.result | ((.packets_per_s * .duration_s - .udp.received) | fabs) < 1e-3 * .udp.received' \
        "$out" && pass "udp_pps: packets_per_s is received datagrams over the measured interval" ||
        fail "udp_pps: $pps packets/s x $dur s is not $rcvd"
    # the cap in packets: 92-byte IP packets (64 payload + UDP 8 + IP 20); the burst HTB lets
    # through at once (128 KiB) is the only excess
    jqt --argjson c $PPS_CAP_M '.result.packets_per_s | . > 0.5 * $c * 1e6 / 736 and . < 1.2 * $c * 1e6 / 736' \
        "$out" && pass "udp_pps: the link carried about its cap in packets" ||
        fail "udp_pps: $pps packets/s through a link that carries $((PPS_CAP_M * 1000000 / 736))"
    jqt '.result.sent_packets_per_s > 4 * .result.packets_per_s' "$out" &&
        pass "udp_pps: the sender offered far more than the link carries" ||
        fail "udp_pps: the sender offered $(jq .result.sent_packets_per_s "$out") packets/s only"
else
    fail "nsperf udp_pps failed: $(cat "$out")"
fi

lab set-rate "1-2=${CAP_M}M" >/dev/null

# --- latency under load through a survey: the summary and the reports show both -----------------
lab_plan_with "$WORK/load.yaml" 1 \
    "{name: rr-load, test: tcp_rr, duration: 6s, warmup: 1s, load: {streams: 4, direction: forward}}"
if survey "$WORK/load.yaml" "$WORK/survey"; then
    for pair in 1-2 2-1; do
        s=${pair%-*} d=${pair#*-}
        loaded=$(cell "$WORK/survey" rr-load "$s" "$d")
        idle=$(summary_entry "$WORK/survey" rr-load zone_cells "$s" "$d" .figures.idle_rtt.mean)
        p50=$(summary_entry "$WORK/survey" rr-load zone_cells "$s" "$d" .rtt_us.p50)
        echo "survey $s -> $d: idle $idle us, under load $loaded us (p50 $p50)"
        awk -v l="$loaded" -v i="$idle" 'BEGIN{exit !(i > 0 && l > 2 * i + 1000)}' &&
            pass "survey $s -> $d: the RTT under load exceeds the idle RTT" ||
            fail "survey $s -> $d: under load $loaded us, idle $idle us"
    done
    for f in report.md report.html; do
        grep -q "Idle mean RTT matrix" "$WORK/survey/$f" && grep -q "Load throughput matrix" \
            "$WORK/survey/$f" && pass "$f shows the idle RTT and the load's throughput" ||
            fail "$f lacks the idle RTT or the load's throughput"
    done
    jqt '.units["figures.idle_rtt"] | startswith("us")' "$WORK/survey/summary.json" &&
        [[ -f $WORK/survey/matrix-rr-load-idle_rtt.csv ]] &&
        pass "summary.json names the idle RTT's unit; its matrix CSV is there" ||
        fail "no unit or CSV for the idle RTT"
else
    fail "the survey failed: $(tail -5 "$WORK/survey.log")"
fi
no_nsperf_left "lab_newkinds"
finish
