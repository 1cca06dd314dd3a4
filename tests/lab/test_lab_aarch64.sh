#!/usr/bin/env bash
# A region with an ARM host (issue 28): a 2 x 1 lab whose z2h1 has Debian's arm64 busybox as its
# users' login shell (`lab up --aarch64 z2h1`, run by qemu-user-static), so that it answers
# `uname -m` with aarch64 as a Graviton VM does, beside the x86-64 z1h1. netsurvey as an operator
# runs it, with the endpoints beside it (no --nsperf-remote):
#  - check --connect --deploy: each host its architecture and its build (nsperf-static,
#    nsperf-static-aarch64), uploaded under its own sha256, the data paths both ways ok;
#  - run: latency (tcp_rr) and throughput (tcp_stream), both directions of the x86 <-> aarch64
#    pair, every trial ok with its figures; run.json and the report's host table carry each
#    host's architecture and endpoint;
#  - with the x86-64 build alone: the preflight refuses z2h1 naming the build missing, and the
#    run fails its trials with that reason.
# Nothing is asserted about speed (emulation makes the ARM host's CPU slow). About 20 s.
source "$(dirname "$0")/labtest.sh"
need_survey
source "$LAB_DIR_SRC/../arm/aarch64_test.sh"
ARM=${NSPERF_REMOTE_AARCH64:-}
need_aarch64 "$ARM"
X86=$NSPERF_REMOTE
BESIDE=$(dirname "$NETSURVEY")
[[ $(realpath "$BESIDE/nsperf-static") == $(realpath "$X86") &&
    $(realpath "$BESIDE/nsperf-static-aarch64") == $(realpath "$ARM") ]] ||
    fail "the endpoints are not beside $NETSURVEY"
X86_SHA=$(sha256sum "$X86" | cut -c1-64)
ARM_SHA=$(sha256sum "$ARM" | cut -c1-64)
T0=$(date +%s%N)
elapsed() { echo "$((($(date +%s%N) - T0) / 1000000)) ms"; }
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
jqe() { jq -e "$@" >/dev/null; }

lab up --zones 2 --hosts 1 --rtt "1-2=200us" --aarch64 z2h1 >/dev/null || {
    fail "lab up --aarch64 z2h1"
    finish
}
echo "lab up: $(elapsed)"
check "z1h1 says x86_64" [ "$(timeout 30 "$LAB" ssh z1h1 uname -m)" == x86_64 ]
check "z2h1 says aarch64 (its login shell the arm64 busybox)" \
    [ "$(timeout 30 "$LAB" ssh z2h1 'uname -m')" == aarch64 ]
cache() { echo "$NSLAB_DIR/hosts/$NSLAB_PREFIX-$1/root/.cache/netsurvey"; }

lab_plan_with "$WORK/plan.yaml" 1 \
    "{name: latency, test: tcp_rr, msg_size: 250, duration: 0.5s, warmup: 0.2s}" \
    "{name: throughput, test: tcp_stream, duration: 0.5s, warmup: 0.2s}"

# --- the preflight deploys each host's build -----------------------------------------------------
rc=0
timeout 180 "$NETSURVEY" check "$WORK/plan.yaml" --connect --deploy --json >"$WORK/check.json" \
    2>"$WORK/check.err" || rc=$?
check "check --connect --deploy: exit 0 (was $rc)" [ "$rc" == 0 ]
((rc == 0)) || cat "$WORK/check.err" "$WORK/check.json"
# host NAME ARCH BUILD SHA: the preflight's word on one host
pf_host() {
    jqe --arg n "$1" --arg a "$2" --arg b "$3" --arg s "$4" '.hosts[] | select(.name == $n) |
        .ok and .system.arch == $a and .endpoint.state == "uploaded" and .endpoint.build == $b and
        .endpoint.sha256 == $s and (.endpoint.path | endswith("/" + $b + "-" + $s)) and
        .data_paths.ok == 1 and .data_paths.failed == 0' "$WORK/check.json"
}
check "preflight: z1h1 x86_64, nsperf-static uploaded, its path reached" \
    pf_host z1h1 x86_64 nsperf-static "$X86_SHA"
check "preflight: z2h1 aarch64, nsperf-static-aarch64 uploaded, its path reached" \
    pf_host z2h1 aarch64 nsperf-static-aarch64 "$ARM_SHA"
check "z1h1's cache: nsperf-static-<its sha256> alone" \
    [ "$(cd "$(cache z1h1)" && ls nsperf-*)" == "nsperf-static-$X86_SHA" ]
check "z2h1's cache: nsperf-static-aarch64-<its sha256> alone" \
    [ "$(cd "$(cache z2h1)" && ls nsperf-*)" == "nsperf-static-aarch64-$ARM_SHA" ]
check "the bytes in z2h1's cache are the aarch64 build's" \
    [ "$(sha256sum "$(cache z2h1)/nsperf-static-aarch64-$ARM_SHA" | cut -c1-64)" == "$ARM_SHA" ]
timeout 180 "$NETSURVEY" check "$WORK/plan.yaml" --connect >"$WORK/check.txt" 2>&1 ||
    fail "check --connect (cached): $(cat "$WORK/check.txt")"
check "the table shows each host's architecture, the endpoints cached" \
    grep -qE '^z2h1 .* aarch64 +cached ' "$WORK/check.txt"
grep -qE '^z1h1 .* x86_64 +cached ' "$WORK/check.txt" || fail "table row of z1h1: $(cat "$WORK/check.txt")"
echo "preflight: $(elapsed)"

# --- the survey: both directions of the x86 <-> aarch64 pair -------------------------------------
rc=0
timeout 300 "$NETSURVEY" run "$WORK/plan.yaml" -o "$WORK/r1" -q >"$WORK/run.log" 2>&1 || rc=$?
check "survey: exit 0 (was $rc)" [ "$rc" == 0 ]
((rc == 0)) || cat "$WORK/run.log"
check "4 trials, each ok: both directions of both scenarios, with their figures" jqe -s '
    length == 4 and all(.status == "ok") and
    ([.[] | [.scenario.name, .src.host, .dst.host]] | sort) ==
        [["latency", "z1h1", "z2h1"], ["latency", "z2h1", "z1h1"],
         ["throughput", "z1h1", "z2h1"], ["throughput", "z2h1", "z1h1"]] and
    all(.[] | select(.scenario.name == "latency"); .result.rtt_us.n > 0 and
        .result.transactions_per_s > 0 and .result.rtt_us.min >= 200) and
    all(.[] | select(.scenario.name == "throughput"); .result.throughput_bps > 0)' \
    "$WORK/r1/results.jsonl"
run_host() { # run_host NAME ARCH BUILD SHA: run.json's record of the host
    jqe --arg n "$1" --arg a "$2" --arg b "$3" --arg s "$4" '.hosts[] | select(.name == $n) |
        .arch == $a and .env.machine == $a and .endpoint.build == $b and .endpoint.sha256 == $s
        and .endpoint.path == "/root/.cache/netsurvey/" + $b + "-" + $s' "$WORK/r1/run.json"
}
check "run.json: z1h1 x86_64 with nsperf-static (its sha256)" run_host z1h1 x86_64 nsperf-static "$X86_SHA"
check "run.json: z2h1 aarch64 with nsperf-static-aarch64 (its sha256)" \
    run_host z2h1 aarch64 nsperf-static-aarch64 "$ARM_SHA"
# the report's host table: the arch column of each host's row
md_arch() {
    awk -F' *[|] *' -v host="$1" '/^[|] host [|]/ { for (i = 2; i < NF; i++) if ($i == "arch") c = i }
        c && $2 == host { print $c; exit }' "$WORK/r1/report.md"
}
check "report.md host table: z1h1 x86_64, z2h1 aarch64" \
    [ "$(md_arch z1h1) $(md_arch z2h1)" == "x86_64 aarch64" ]
check "report.html host table: aarch64" grep -q '<td>z2h1</td>.*<td>aarch64</td>' "$WORK/r1/report.html"
no_nsperf_left "after the survey"
echo "survey: $(elapsed)"

# --- with the x86-64 build only: z2h1 refused, naming the build missing ---------------------------
rc=0
timeout 120 "$NETSURVEY" check "$WORK/plan.yaml" --connect --json --nsperf-remote "$X86" \
    >"$WORK/refused.json" 2>&1 || rc=$?
check "check --connect with the x86-64 build alone: exit 1 (was $rc)" [ "$rc" == 1 ]
MISSING="aarch64 host, but there is no aarch64 build of nsperf-static (nsperf-static-aarch64:"
check "... z2h1 refused by its system check, naming nsperf-static-aarch64 and its compiler" \
    jqe --arg m "$MISSING" '.hosts[] | select(.name == "z2h1") | .ok == false and
        .system.status == "failed" and .system.arch == "aarch64" and
        (.system.detail | startswith($m) and contains("gcc-aarch64-linux-gnu"))' "$WORK/refused.json"
check "... z1h1 passes" jqe '.hosts[] | select(.name == "z1h1") | .ok' "$WORK/refused.json"
rc=0
timeout 120 "$NETSURVEY" run "$WORK/plan.yaml" -o "$WORK/r2" -q --nsperf-remote "$X86" \
    >"$WORK/run2.log" 2>&1 || rc=$?
check "run with the x86-64 build alone: exit 3, no trial could run (was $rc)" [ "$rc" == 3 ]
check "... each trial failed with z2h1's missing build" jqe -s --arg m "host z2h1 has no endpoint: z2h1: $MISSING" \
    'length == 4 and all(.status == "failed" and (.error | startswith($m)))' "$WORK/r2/results.jsonl"
check "... run.json: z2h1 aarch64, no endpoint, the reason" jqe '.hosts[] | select(.name ==
    "z2h1") | .arch == "aarch64" and .endpoint == null and (.error | contains("nsperf-static-aarch64"))' \
    "$WORK/r2/run.json"
no_nsperf_left "after the refused run"
echo "total: $(elapsed)"
finish
