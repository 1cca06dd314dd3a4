#!/usr/bin/env bash
# Faults during a survey over real SSH (3-zone lab, latency scenario, 2 trials per directed pair,
# no retries so that a fault shows as a failed trial):
#  - sshd killed on one host mid-survey, not back within host_timeout (5 s): the rest completes,
#    exit 1, the host's remaining trials fail with the reason (journal, run output, report.md);
#    resumed once sshd is back, every trial ends ok exactly once (a host back within
#    host_timeout: test_lab_hostfaults.sh);
#  - the data link 1-2 cut in the middle of test z1h1 -> z2h1: that trial fails on its deadline
#    (NETSURVEY_DEADLINE_MARGIN=5s), and both of its ends (the nsperf client on z1h1, the server
#    on z2h1) are gone when it is recorded; the other 5 trials (1 each) are ok;
#  - netsurvey killed with SIGKILL in the middle of a test: the remote nsperf processes end (the
#    ssh sessions close), `netsurvey run --resume DIR` finishes the run, every trial exactly once;
#  - after each: no nsperf left in any host.
source "$(dirname "$0")/labtest.sh"
need_survey

# nsperf_pids NETNS: the nsperf processes of a host (the deployed copy is nsperf-<hash>)
nsperf_pids() {
    local p
    for p in $(ip netns pids "$1" 2>/dev/null); do
        [[ $(cat "/proc/$p/comm" 2>/dev/null) == nsperf* ]] && echo "$p"
    done
    return 0
}
# wait_for SECONDS CMD...: until CMD succeeds (polled every 50 ms)
wait_for() {
    local n=$(($1 * 20)) i
    shift
    for ((i = 0; i < n; i++)); do
        "$@" && return 0
        sleep 0.05
    done
    return 1
}
has_record() { [[ -s $1/results.jsonl ]] && grep -q "$2" "$1/results.jsonl"; }
no_nsperf_anywhere() {
    local ns
    while IFS=$'\t' read -r ns _; do [[ -z $(nsperf_pids "$ns") ]] || return 1; done <"$NSLAB_DIR/hosts.tsv"
}
# exactly_once DIR: every trial of the plan (6 directed pairs x 2 trials) has one ok record
exactly_once() {
    jq -se 'map(select(.status == "ok")) | group_by([.scenario.name, .src.host, .dst.host, .trial])
        | (length == 12) and all(length == 1)' "$1/results.jsonl" >/dev/null
}

lab up >/dev/null
P=$NSLAB_PREFIX
lab_plan_with "$WORK/plan.yaml" 2 "{name: latency, test: tcp_rr, msg_size: 250, duration: 1s, warmup: 0.2s}"
printf 'retries: 0\nhost_timeout: 5s\n' >>"$WORK/plan.yaml"
# the link-cut run: one trial per pair, 3 s tests (`lab cut` itself takes a few hundred ms)
lab_plan_with "$WORK/plan-cut.yaml" 1 "{name: latency, test: tcp_rr, msg_size: 250, duration: 3s, warmup: 0.2s}"
echo "retries: 0" >>"$WORK/plan-cut.yaml"
RUN=("$NETSURVEY" run "$WORK/plan.yaml" --nsperf-remote "$NSPERF_REMOTE")

# --- sshd killed on z3h1 mid-survey -------------------------------------------------------------
D=$WORK/sshd-killed
"${RUN[@]}" -o "$D" >"$WORK/sshd-killed.log" 2>&1 &
np=$!
wait_for 60 has_record "$D" '"status"' || fail "sshd-killed: no trial recorded within 60 s"
lab kill-sshd z3h1 >/dev/null
rc=0
timeout 300 tail --pid="$np" -f /dev/null
wait "$np" || rc=$?
ok_other=$(jq -s '[.[] | select(.src.host != "z3h1" and .dst.host != "z3h1" and .status == "ok")] | length' "$D/results.jsonl")
failed_z3=$(jq -s '[.[] | select(.status == "failed" and (.error | test("z3h1")))] | length' "$D/results.jsonl")
failed_other=$(jq -s '[.[] | select(.status == "failed" and .src.host != "z3h1" and .dst.host != "z3h1")] | length' "$D/results.jsonl")
echo "   sshd killed: exit $rc; pairs without z3h1 ok: $ok_other/4; failed naming z3h1: $failed_z3"
jq -r 'select(.status == "failed") | "   \(.src.host) -> \(.dst.host) trial \(.trial): \(.error)"' "$D/results.jsonl"
if ((rc == 1 && ok_other == 4 && failed_other == 0 && failed_z3 > 0)); then
    pass "sshd killed mid-survey: the rest completed, exit 1, $failed_z3 failure(s) naming z3h1"
else
    cat "$WORK/sshd-killed.log"
    fail "sshd killed mid-survey: exit $rc (want 1), other pairs ok $ok_other/4, failed other $failed_other, failed naming z3h1 $failed_z3"
fi
grep -q "failed: .*z3h1" "$WORK/sshd-killed.log" || fail "sshd killed: the run's output does not list the failures"
grep -q "z3h1.*session dropped\|z3h1.*refused\|z3h1.*connect" "$D/report.md" ||
    fail "sshd killed: report.md does not show the failures' reasons"
no_nsperf_left "sshd killed"
lab start-sshd z3h1 >/dev/null
rc=0
timeout 300 "$NETSURVEY" run --resume "$D" --nsperf-remote "$NSPERF_REMOTE" -q >>"$WORK/sshd-killed.log" 2>&1 || rc=$?
if ((rc == 0)) && exactly_once "$D"; then
    pass "sshd back, resumed: exit 0, every trial ok exactly once"
else
    fail "sshd back, resumed: exit $rc, or not every trial ok exactly once"
fi

# --- data link 1-2 cut mid-test -----------------------------------------------------------------
D=$WORK/link-cut
NETSURVEY_DEADLINE_MARGIN=5s "$NETSURVEY" run "$WORK/plan-cut.yaml" --nsperf-remote "$NSPERF_REMOTE" \
    -o "$D" >"$WORK/link-cut.log" 2>&1 &
np=$!
# the test z1h1 -> z2h1 has begun: its client runs on z1h1 (the server on z2h1 starts first)
role_on() { # role_on NETNS -c|-s: an nsperf client (-c) or server (-s) runs there
    local p
    for p in $(nsperf_pids "$1"); do
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- " $2 " && return 0
    done
    return 1
}
client_1_to_2() { role_on "$P-z1h1" -c && role_on "$P-z2h1" -s; }
if wait_for 120 client_1_to_2; then
    sleep 0.5 # past its 0.2 s warmup, well before the end of its 3 s: mid-test
    ends="$(nsperf_pids "$P-z1h1") $(nsperf_pids "$P-z2h1")"
    lab cut 1-2 >/dev/null
    if wait_for 60 has_record "$D" '"status":"failed"'; then
        left=""
        for p in $ends; do [[ -d /proc/$p ]] && left+=" $p"; done
        [[ -z $left ]] && pass "link cut: both ends of the test (nsperf$(printf ' %s' $ends)) gone when it failed" ||
            fail "link cut: nsperf$left still running when the trial was recorded failed"
    else
        fail "link cut: no failed trial within 60 s"
    fi
    lab restore 1-2 >/dev/null
else
    fail "link cut: never saw a test between z1h1 and z2h1 running"
fi
rc=0
timeout 300 tail --pid="$np" -f /dev/null
wait "$np" || rc=$?
jq -r 'select(.status == "failed") | "   \(.src.host) -> \(.dst.host) trial \(.trial): \(.error)"' "$D/results.jsonl"
cut_failed=$(jq -s '[.[] | select(.status == "failed")] | length' "$D/results.jsonl")
cut_deadline=$(jq -s '[.[] | select(.status == "failed" and .src.host == "z1h1" and .dst.host == "z2h1"
    and (.error | test("deadline exceeded")))] | length' "$D/results.jsonl")
cut_ok=$(jq -s '[.[] | select(.status == "ok")] | length' "$D/results.jsonl")
if ((rc == 1 && cut_failed == 1 && cut_deadline == 1 && cut_ok == 5)); then
    pass "link cut mid-test: that trial failed on its deadline, the other 5 ok, exit 1"
else
    cat "$WORK/link-cut.log"
    fail "link cut: exit $rc (want 1), failed $cut_failed (want 1, on its deadline: $cut_deadline), ok $cut_ok (want 5)"
fi
no_nsperf_left "link cut"

# --- netsurvey killed (SIGKILL) mid-test, then resumed ------------------------------------------
D=$WORK/killed
"${RUN[@]}" -o "$D" >"$WORK/killed.log" 2>&1 &
np=$!
# mid-test, after some trials: the 4th test's two ends are running
some_then_running() {
    [[ -s $D/results.jsonl ]] && (($(wc -l <"$D/results.jsonl") >= 3)) && ! no_nsperf_anywhere
}
wait_for 120 some_then_running || fail "killed: never saw the 4th test running"
before=$(wc -l <"$D/results.jsonl")
kill -KILL "$np"
wait "$np" 2>/dev/null || true
if wait_for 15 no_nsperf_anywhere; then
    pass "killed: the remote nsperf processes ended with netsurvey's ssh sessions"
else
    fail "killed: nsperf still running 15 s after netsurvey was killed"
fi
rc=0
timeout 300 "$NETSURVEY" run --resume "$D" --nsperf-remote "$NSPERF_REMOTE" -q >>"$WORK/killed.log" 2>&1 || rc=$?
total=$(wc -l <"$D/results.jsonl")
if ((rc == 0)) && exactly_once "$D" && ((total == 12)); then
    pass "killed after $before trials and resumed: exit 0, all 12 trials ok exactly once"
else
    cat "$WORK/killed.log"
    fail "killed after $before trials and resumed: exit $rc, $total records, or not all ok exactly once"
fi
no_nsperf_left "killed and resumed"
finish
