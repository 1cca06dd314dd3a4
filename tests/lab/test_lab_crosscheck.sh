#!/usr/bin/env bash
# nsperf agrees with the reference tools on one lab link (zone 1 -> zone 2, 329 us, 800 Mbit/s):
# the tcp_rr round trip with sockperf ping-pong --tcp --full-rtt (250-byte messages) within 1 %,
# the tcp_stream throughput with iperf3 within 5 %. Latency is compared on the median, which
# both tools report and which other load on a shared machine moves least; the means are shown.
# nsperf's histogram resolves 0.1 % (1024 buckets per octave), so its quartiles on this link
# must be three distinct values (with the old 64 per octave, p25 often equalled p50).
# A comparison that fails while a run was clearly disturbed (or the machine busy) is repeated once.
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

iperf3_stream() { # iperf3_stream OUT: receiver-counted bits/s of a 3 s test (1 s omitted)
    timeout 30 "$LAB" exec z2h1 -- iperf3 -s -B $DST -p 5201 -1 >"$WORK/ip-server.log" 2>&1 &
    local sp=$!
    wait_listen "$NS2" "$DST:5201" || return 1
    timeout 30 "$LAB" exec z1h1 -- iperf3 -c $DST -p 5201 -t 3 -O 1 -J >"$1"
    local rc=$?
    wait "$sp" 2>/dev/null || true
    return $rc
}

close5() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(d <= 0.05*b)}'; }
close1() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(d <= 0.01*b)}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%+.2f", (a-b)*100/b}'; }

lab up >/dev/null
# Latency: both tools in alternation, ROUNDS short runs each, compared on the median of the
# rounds' ratios (at 1 %, a round that the shared machine disturbed by 2 % moved an average past it).
# Two runs measured one after the other differ by what the machine did meanwhile: the lab's own
# base RTT (52-72 us) moved by up to 20 us between runs, which is 5 % of this link,
# and one CI run failed that way (nsperf p50 +5.0 %, means +2.0 %). Alternating lets both tools
# see the same conditions; and, as in lab_rtt, the delay line and both tools' endpoints run on
# one CPU with SCHED_FIFO, which removes most of that base's variation (tests/lab/README.md).
# `lab pin` puts the delay line on CPU 0 with SCHED_FIFO 50; the tools, started by `lab exec`
# rather than by a host's sshd, get the same by PIN.
ROUNDS=7
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
    disturbed=0
    for f in "$WORK"/ns-rr-*.json; do rr_disturbed "$f" && disturbed=1; done
    if ((attempt == 2 || !disturbed)); then
        fail "nsperf's p50 RTT is not within 1 % of sockperf's: median ratio $ratio over $ROUNDS rounds (${ratios[*]})"
        break
    fi
    echo "   (disturbed, load $(cut -d' ' -f1 /proc/loadavg); measuring again)"
done
# throughput with the normal scheduler on every CPU, as the tools run anywhere
lab unpin >/dev/null
NSPERF_RUN=("$NSPERF")

for attempt in 1 2; do
    nsperf_pair 1 2 "$WORK/ns-st.json" --test tcp_stream -t 3 --warmup 1 || fail "nsperf tcp_stream"
    iperf3_stream "$WORK/ip.json" || fail "iperf3"
    ns_bps=$(jq .result.throughput_bps "$WORK/ns-st.json")
    ip_bps=$(jq .end.sum_received.bits_per_second "$WORK/ip.json")
    echo "throughput 1->2: nsperf $(pct "$ns_bps" 1e6 >/dev/null; awk -v b="$ns_bps" 'BEGIN{printf "%.1f", b/1e6}')" \
        "Mbit/s, iperf3 $(awk -v b="$ip_bps" 'BEGIN{printf "%.1f", b/1e6}') Mbit/s: $(pct "$ns_bps" "$ip_bps") %"
    close5 "$ns_bps" "$ip_bps" && break
    load=$(cut -d' ' -f1 /proc/loadavg)
    if ((attempt == 2)) || ! awk -v l="$load" -v n="$(nproc)" 'BEGIN{exit !(l > n)}'; then
        fail "nsperf's throughput is not within 5 % of iperf3's"
        break
    fi
    echo "   (busy: load $load; measuring again)"
done
finish
