#!/usr/bin/env bash
# Hosts that drop out of a survey over SSH and come back within host_timeout (issue 28 part 2):
# a 3-host survey (6 directed pairs x 2 trials, retries: 0 so that a lost attempt counted would
# show as a failure, host_timeout 60 s, ServerAliveInterval 1 x ServerAliveCountMax 3) with
#  - a host "rebooted": every process of it killed (sshd, sessions, nsperf), sshd back 20 s later;
#  - the sessions of two hosts dropped at once;
#  - a host down when the survey starts, back 15 s later;
#  - a 40 s cut of a host's management link (its sessions hang, its TCP connections survive);
# each ends exit 0 with every trial ok exactly once, the host's absence in run.json's outages,
# no nsperf and no pid file left on any host. And a host that comes back with another host key
# (a re-imaged VM): refused in one line naming the known_hosts entry, its remaining trials
# recorded not run (not failed), exit 1.
# Prints the figures: when each fault was found, and when each host was back.
source "$(dirname "$0")/labtest.sh"
need_survey

lab up >/dev/null
alive_config
T0=$(now)
lab_plan_with "$WORK/plan.yaml" 2 "{name: latency, test: tcp_rr, msg_size: 250, duration: 1s, warmup: 0.2s}"
printf 'retries: 0\nhost_timeout: 60s\n' >>"$WORK/plan.yaml"

# start NAME [PLAN]: netsurvey run in the background into $WORK/NAME (D), its pid RUNPID
start() {
    D=$WORK/$1
    "$NETSURVEY" run "${2:-$WORK/plan.yaml}" --nsperf-remote "$NSPERF_REMOTE" -o "$D" \
        >"$WORK/$1.log" 2>&1 &
    RUNPID=$!
}
# run_end: wait for the run (300 s at most); its status in RC
run_end() {
    RC=0
    timeout 300 tail --pid="$RUNPID" -f /dev/null || kill -KILL "$RUNPID" 2>/dev/null || true
    wait "$RUNPID" || RC=$?
}
# outage HOST FILTER: jq FILTER of HOST's first outage in run.json (empty when none)
outage() { jq -r --arg h "$1" "[.outages[]? | select(.host == \$h)][0] | $2 // empty" "$D/run.json"; }
# figures NAME HOST FAULT_AT: when the fault was found and the host back, from its outage
figures() {
    local from to
    from=$(outage "$2" .from) to=$(outage "$2" .to)
    [[ -n $from && -n $to ]] || return 0
    printf '   %s: %s found away %.1f s after the fault, back %.1f s later (%s connects): %s\n' "$1" \
        "$2" "$(awk -v a="$3" -v b="$(secs "$from")" 'BEGIN{print b-a}')" \
        "$(awk -v a="$(secs "$from")" -v b="$(secs "$to")" 'BEGIN{print b-a}')" \
        "$(outage "$2" .connects)" "$(outage "$2" .why)"
}
# survived NAME HOST...: exit 0, every trial ok exactly once, each HOST's outage ended back
survived() {
    local name=$1 h
    shift
    if ((RC == 0)) && exactly_once "$D" 12; then
        pass "$name: exit 0, all 12 trials ok exactly once ($(elapsed_since "$START") s)"
    else
        fail "$name: exit $RC (want 0), or not all 12 trials ok exactly once"
        jq -c '{src: .src.host, dst: .dst.host, trial, status, error}' "$D/results.jsonl"
        tail -20 "$WORK/$name.log"
    fi
    for h in "$@"; do
        [[ $(outage "$h" .end) == back ]] && pass "$name: run.json: $h away, then back" ||
            fail "$name: run.json's outages do not show $h back: $(jq -c .outages "$D/run.json")"
    done
    no_nsperf_left "$name"
    no_pid_files "$name"
    return 0
}

# --- a host rebooted: every process killed, sshd back 20 s later --------------------------------
START=$(now)
start reboot
wait_for 60 has_record "$D" || fail "reboot: no trial recorded within 60 s"
AT=$(now)
lab kill-host z3h1 >/dev/null
sleep 20
lab start-sshd z3h1 >/dev/null
run_end
survived reboot z3h1
figures reboot z3h1 "$AT"
grep -q "z3h1: lost" "$WORK/reboot.log" && grep -q "z3h1: back after" "$WORK/reboot.log" ||
    fail "reboot: the run does not say z3h1 was lost and came back"

# --- two hosts' sessions dropped at once --------------------------------------------------------
START=$(now)
start dropped
wait_for 60 has_record "$D" || fail "dropped: no trial recorded within 60 s"
AT=$(now)
lab kill-sessions z1h1 z2h1 >/dev/null
run_end
survived dropped z1h1 z2h1
figures dropped z1h1 "$AT"
figures dropped z2h1 "$AT"

# --- a host down at the start, back 15 s later --------------------------------------------------
lab kill-sshd z2h1 >/dev/null
START=$(now)
start down-at-start
AT=$START
sleep 15
lab start-sshd z2h1 >/dev/null
run_end
survived down-at-start z2h1
figures down-at-start z2h1 "$AT"
grep -q "z2h1: unreachable at the start" "$WORK/down-at-start.log" ||
    fail "down at start: the run does not say z2h1 was unreachable at the start"

# --- a 40 s cut of a host's management link -----------------------------------------------------
START=$(now)
start blip
wait_for 60 has_record "$D" || fail "blip: no trial recorded within 60 s"
AT=$(now)
lab mgmt-cut z2h1 >/dev/null
sleep 40
lab mgmt-restore z2h1 >/dev/null
run_end
survived blip z2h1
figures blip z2h1 "$AT"
# no reason is ever empty: not the run's output, not an attempt's
if grep -q ': *$' "$WORK/blip.log" ||
    jq -se '[.[].attempts[] | select(.error != null and (.error | test(": *$")))] | length > 0' \
        "$D/results.jsonl" >/dev/null; then
    fail "blip: a reason is empty"
else
    pass "blip: no reason is empty"
fi

# --- a host back with another host key ----------------------------------------------------------
lab_plan_with "$WORK/plan1.yaml" 1 "{name: latency, test: tcp_rr, msg_size: 250, duration: 1s, warmup: 0.2s}"
printf 'retries: 0\nhost_timeout: 60s\n' >>"$WORK/plan1.yaml"
START=$(now)
start rekeyed "$WORK/plan1.yaml"
wait_for 60 has_record "$D" || fail "rekeyed: no trial recorded within 60 s"
lab rekey z3h1 >/dev/null
run_end
line=$(grep -n "$NSLAB_PREFIX-z3h1" "$NSLAB_DIR/known_hosts" | cut -d: -f1 || true)
refusals=$(grep -c "z3h1: refused: .*CHANGED.* from the one in $NSLAB_DIR/known_hosts:$line;" \
    "$WORK/rekeyed.log" || true)
not_run=$(jq -s '[.[] | select(.status == "not_run" and (.error | test("CHANGED")))] | length' "$D/results.jsonl")
z3=$(jq -s '[.[] | select(.src.host == "z3h1" or .dst.host == "z3h1")] | length' "$D/results.jsonl")
failed=$(jq -s '[.[] | select(.status == "failed")] | length' "$D/results.jsonl")
echo "   rekeyed: exit $RC, $not_run not run, $failed failed, refusal lines $refusals"
if ((RC == 1 && refusals == 1 && not_run > 0 && failed == 0)) &&
    jq -se 'all(.status == "ok" or .status == "not_run") and length == 6' "$D/results.jsonl" >/dev/null; then
    pass "rekeyed: refused once naming known_hosts:$line, $not_run trial(s) of z3h1 not run, none failed, exit 1"
else
    fail "rekeyed: exit $RC (want 1), refusal lines $refusals (want 1), not run $not_run, failed $failed"
    tail -20 "$WORK/rekeyed.log"
fi
grep -q "not run: z3h1: host key for .* ($not_run trials\? not run)" "$WORK/rekeyed.log" ||
    fail "rekeyed: the summary does not list z3h1's refusal once with its count"
((z3 == 4)) || fail "rekeyed: z3h1's 4 trials are not all in the journal ($z3)"
no_nsperf_left "rekeyed"
echo "total: $(elapsed_since "$T0") s"
finish
