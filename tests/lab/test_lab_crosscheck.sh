#!/usr/bin/env bash
# nsperf agrees with the reference tools on one lab link (zone 1 -> zone 2, 329 us): the tcp_rr
# round trip with sockperf ping-pong --tcp --full-rtt (250-byte messages) within 1 %, the
# tcp_stream receiver-counted goodput with iperf3's within 5 %, the link capped at 200 Mbit/s
# for it. Latency is compared on the median, which both tools report and which other load on a
# shared machine moves least; the means are shown. Both comparisons are paired: the tools take
# turns over several rounds and the test gates on the median of the rounds' ratios.
# nsperf's histogram resolves 0.1 % (1024 buckets per octave), so its quartiles on this link
# must be three distinct values (with the old 64 per octave, p25 often equalled p50).
# A latency comparison that fails is measured once more, a fresh set of rounds; both must fail.
# The machine's host, not either tool, shifts every round trip by about 7 us (2 % of this link)
# for stretches of 0.1 to over 1 s: both tools' runs fall into those modes at random, equally
# often (52 paired rounds on the idle machine: nsperf low-mode 11, sockperf 10; median ratio
# +0.13 %), so a round's ratio is about -2 %, 0 or +2 %, and a median of 9 moved from -0.6 % to
# +1.5 % between batches with nothing changed (an idle CI run read +0.75 %). A bias of nsperf
# moves both sets the same way and still fails; the mode lottery fails both only rarely.
source "$(dirname "$0")/labtest.sh"
for tool in sockperf iperf3; do
    command -v $tool >/dev/null || {
        echo "FAIL: $tool is not installed (.ci/packages lists it)"
        exit 1
    }
done

NS2=$NSLAB_PREFIX-z2h1 DST=198.19.2.1

sockperf_rr() { # sockperf_rr OUT SECONDS: client output of a ping-pong
    timeout 30 "$LAB" exec z2h1 -- "${PIN[@]}" sockperf server --tcp -i $DST -p 12345 \
        >"$WORK/sp-server.log" 2>&1 &
    local sp=$!
    wait_listen "$NS2" "$DST:12345" || return 1
    timeout 30 "$LAB" exec z1h1 -- "${PIN[@]}" sockperf ping-pong --tcp -i $DST -p 12345 -m 250 \
        -t "$2" --full-rtt >"$1" 2>&1
    local rc=$?
    kill "$sp" 2>/dev/null
    wait "$sp" 2>/dev/null || true
    return $rc
}

iperf3_stream() { # iperf3_stream OUT: receiver-counted bits/s of a ST_S s test (1 s omitted)
    timeout 30 "$LAB" exec z2h1 -- "${PIN[@]}" iperf3 -s -B $DST -p 5201 -1 >"$WORK/ip-server.log" 2>&1 &
    local sp=$!
    wait_listen "$NS2" "$DST:5201" || return 1
    timeout 30 "$LAB" exec z1h1 -- "${PIN[@]}" iperf3 -c $DST -p 5201 -t "$ST_S" -O 1 -J >"$1"
    local rc=$?
    wait "$sp" 2>/dev/null || true
    return $rc
}

close5() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(d <= 0.05*b)}'; }
close1() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(d <= 0.01*b)}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%+.2f", (a-b)*100/b}'; }

# Throughput: link 1-2 capped at CAP_M rather than the lab's default 800 Mbit/s. At 800 Mbit/s
# the user-space delay line is CPU-bound, so a run measures the CPU share the lab got, not the
# tools: at load 4.4-5.5 (2026-12-01) one 3 s run of each, back to back, read nsperf 483 vs
# iperf3 675, 772 vs 720, 572 vs 703, 622 vs 584 Mbit/s (-28 .. +15 %), 3 failures in 4 runs.
# At 200 Mbit/s, a quarter of that, the HTB cap is what both tools meet (193 Mbit/s = 0.965 x
# cap of TCP goodput, as in lab_rate), so the comparison is about the two tools' accounting of
# the bytes the receiver got: nsperf counting the sender's bytes, headers, or its warm-up would
# show here as at 800. Both tools cross the same HTB class. They take turns, ST_ROUNDS rounds
# of ST_S s each (after 1 s of warm-up: nsperf --warmup, iperf3 -O), and the figure is the
# median of the rounds' nsperf / iperf3 ratios, as for latency: a round that the machine
# disturbed does not move it, a scaling error of either tool moves every round. No repeat when
# busy: the median is the protection. The latency part needs no cap (tcp_rr moves 250 B).
CAP_M=200
ST_ROUNDS=5 ST_S=2
lab up --rate "1-2=${CAP_M}M" >/dev/null
# Latency: both tools in alternation, ROUNDS short runs each, compared on the median of the
# rounds' ratios (at 1 %, a round that the shared machine disturbed by 2 % moved an average past it).
# Two runs measured one after the other differ by what the machine did meanwhile: the lab's own
# base RTT (52-72 us) moved by up to 20 us between runs, which is 5 % of this link,
# and one CI run failed that way (nsperf p50 +5.0 %, means +2.0 %). Alternating lets both tools
# see the same conditions; and, as in lab_rtt, the delay line and both tools' endpoints run on
# one CPU with SCHED_FIFO, which removes most of that base's variation (tests/lab/README.md).
# `lab pin` puts the delay line on CPU 0 with SCHED_FIFO 50; the tools, started by `lab exec`
# rather than by a host's sshd, get the same by PIN.
# Nine rounds, not seven: at load 9.8 the lab's RTT on this link sat at about 349 or about 356 us
# from one run to the next, for either tool, and seven rounds' ratios (1.025 0.992 1.004 1.018
# 1.012 1.013 0.983) had their median at +1.25 %, a failure, with no round disturbed.
ROUNDS=9
lab pin >/dev/null
PIN=(taskset -c 0 chrt -f 50)
NSPERF_RUN=("${PIN[@]}" "${NSPERF_RUN[@]}")
# the median of the rounds' medians: one round that the machine disturbed does not move it
med_p50() { jq -s '[.[].result.rtt_us.p50] | sort | .[length / 2 | floor]' "$@"; }
med() { sort -n | awk '{v[NR]=$1} END{printf "%.2f", v[int(NR / 2) + 1]}'; }
spq() { sed -n "s/.*percentile $1.000 = *\\([0-9.]*\\).*/\\1/p" "$2"; } # spq 25 FILE: sockperf's p25
for attempt in 1 2; do
    rm -f "$WORK"/ns-rr-*.json "$WORK"/sp-*.txt
    sp_p50s=()
    for r in $(seq "$ROUNDS"); do
        nsperf_pair 1 2 "$WORK/ns-rr-$r.json" --test tcp_rr -l 250 -t 1.5 --warmup 0.3 ||
            fail "nsperf tcp_rr"
        sockperf_rr "$WORK/sp-$r.txt" 2 || fail "sockperf ping-pong"
        p=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$WORK/sp-$r.txt")
        [[ -n $p ]] || {
            cat "$WORK/sp-$r.txt"
            fail "no round-trip time in sockperf's output"
            break 2
        }
        sp_p50s+=("$p")
        printf '   round %d: nsperf p25/p50/p75 %s us (mean %.3f), sockperf %s/%s/%s us (mean %s)\n' \
            "$r" "$(jq -r '.result.rtt_us | "\(.p25)/\(.p50)/\(.p75)"' "$WORK/ns-rr-$r.json")" \
            "$(jq .result.rtt_us.mean "$WORK/ns-rr-$r.json")" "$(spq 25 "$WORK/sp-$r.txt")" "$p" \
            "$(spq 75 "$WORK/sp-$r.txt")" \
            "$(sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p' "$WORK/sp-$r.txt")"
        jq -e '.result.rtt_us | .p25 < .p50 and .p50 < .p75' "$WORK/ns-rr-$r.json" >/dev/null ||
            fail "round $r: nsperf's quartiles are not distinct"
    done
    ns_p50=$(med_p50 "$WORK"/ns-rr-*.json | xargs printf '%.2f')
    sp_p50=$(printf '%s\n' "${sp_p50s[@]}" | med)
    # the gated figure: the median over the rounds of nsperf's p50 / sockperf's p50 in the same
    # round. The two medians above, each over its own tool's rounds, are shown, but a loaded
    # machine moved a whole round of both tools by 2-3 % (347 vs 357 us in consecutive rounds),
    # which unpaired medians mix; the paired ratio cancels what both tools of a round shared.
    ratios=()
    for r in $(seq "$ROUNDS"); do
        ratios+=("$(jq -r --argjson s "${sp_p50s[r - 1]}" '.result.rtt_us.p50 / $s' "$WORK/ns-rr-$r.json")")
    done
    ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END{printf "%.5f", v[int(NR / 2) + 1]}')
    echo "RTT 1->2: nsperf p50 $ns_p50 us, sockperf p50 $sp_p50 us (median of $ROUNDS runs each);" \
        "nsperf / sockperf in the same round, median: $ratio ($(pct "$ratio" 1) %)"
    close1 "$ratio" 1 && break
    if ((attempt == 2)); then
        fail "nsperf's p50 RTT is not within 1 % of sockperf's in two sets of $ROUNDS rounds: median ratio $first_ratio, then $ratio (${ratios[*]})"
        break
    fi
    first_ratio=$ratio
    echo "   (outside 1 %, load $(cut -d' ' -f1 /proc/loadavg); a second set of rounds)"
done
# Throughput: the delay line stays on CPU 0 with SCHED_FIFO (`lab pin` above) and both tools run
# SCHED_FIFO on any CPU, so that the lab's share of the CPUs is not what the other load leaves
# it. Unpinned, even a 100 Mbit/s cap did not hold at load 7-8: 7 paired rounds read nsperf 75,
# 77, 91, 85, 37, 83, 93 vs iperf3 95, 94, 76, 74, 96, 96, 90 Mbit/s (median ratio -12.8 %, a
# failure). Not on CPU 0 like the latency part: iperf3 3.12 on CPU 0 with SCHED_FIFO (priority
# 49, 50 or 51) never finished a test (its client's loop keeps that CPU from its server or the
# delay line; every try ran into its timeout), while SCHED_FIFO on any CPU read 192.9 Mbit/s
# at load 10, like nsperf pinned (193.1).
PIN=(chrt -f 50)
NSPERF_RUN=("${PIN[@]}" "$NSPERF")
st_ratios=()
for r in $(seq "$ST_ROUNDS"); do
    nsperf_pair 1 2 "$WORK/ns-st-$r.json" --test tcp_stream -t "$ST_S" --warmup 1 ||
        fail "nsperf tcp_stream"
    # the reference tool's own hiccup (a CI run saw one client of 5 exit with 0 bits/s) is not
    # nsperf's: its test is run again, up to twice, saying why; three in a row fail the check
    for try in 1 2 3; do
        iperf3_stream "$WORK/ip-$r.json" && break
        echo "   round $r: iperf3 failed (try $try): $(jq -r '.error // "no JSON"' "$WORK/ip-$r.json" 2>/dev/null | head -1; tail -2 "$WORK/ip-server.log")"
        ((try < 3)) || fail "iperf3"
    done
    ns_bps=$(jq .result.throughput_bps "$WORK/ns-st-$r.json")
    ip_bps=$(jq .end.sum_received.bits_per_second "$WORK/ip-$r.json")
    [[ $ns_bps =~ ^[0-9.e+]+$ && $ip_bps =~ ^[0-9.e+]+$ ]] || {
        fail "round $r: no throughput (nsperf '$ns_bps', iperf3 '$ip_bps')"
        break
    }
    st_ratios+=("$(awk -v a="$ns_bps" -v b="$ip_bps" 'BEGIN{printf "%.5f", a/b}')")
    printf '   round %d: nsperf %.1f Mbit/s, iperf3 %.1f Mbit/s (0.965 x cap %.1f): %s %% (load %s)\n' \
        "$r" "$(awk -v b="$ns_bps" 'BEGIN{print b/1e6}')" "$(awk -v b="$ip_bps" 'BEGIN{print b/1e6}')" \
        "$(awk -v c="$CAP_M" 'BEGIN{print 0.965*c}')" "$(pct "$ns_bps" "$ip_bps")" \
        "$(cut -d' ' -f1 /proc/loadavg)"
done
if ((${#st_ratios[@]} == ST_ROUNDS)); then
    st_ratio=$(printf '%s\n' "${st_ratios[@]}" | sort -g | awk '{v[NR]=$1} END{printf "%.5f", v[int(NR / 2) + 1]}')
    echo "throughput 1->2 (cap $CAP_M Mbit/s): nsperf / iperf3 in the same round, median of" \
        "$ST_ROUNDS: $st_ratio ($(pct "$st_ratio" 1) %)"
    close5 "$st_ratio" 1 ||
        fail "nsperf's throughput is not within 5 % of iperf3's: median ratio $st_ratio over $ST_ROUNDS rounds (${st_ratios[*]})"
fi
finish
