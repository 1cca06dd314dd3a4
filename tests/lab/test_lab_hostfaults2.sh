#!/usr/bin/env bash
# More faults of issue 28 part 2 in a survey over SSH (3-host lab, 6 directed pairs, retries: 0,
# ServerAliveInterval 1 x ServerAliveCountMax 3):
#  - a full /root, where the endpoint is cached: deployed to the host's /dev/shm instead, saying
#    so ("no space left on z2h1:/root/.cache/netsurvey ..."), every trial ok;
#  - the connection dropped during the first upload of the endpoint over a slow link (4 Mbit/s):
#    reconnected and uploaded again, every trial ok, no partial file left;
#  - a session dropped while its host is idle, with retries: 0: no attempt lost, every trial ok;
#  - Ctrl-C while a host is unreachable (its management link cut): exit 130 at once, nothing
#    left running;
#  - `netsurvey clean` after a host "reboot" (its processes killed while the run's pid files
#    stay), one of them now naming an unrelated process: that process is left alone, the stale
#    files removed;
#  - `netsurvey clean` during a run of the same plan: refused naming the run (exit 3), the run
#    ends with every trial ok.
source "$(dirname "$0")/labtest.sh"
need_survey

lab up >/dev/null
alive_config
T0=$(now)
P=$NSLAB_PREFIX
lab_plan_with "$WORK/plan.yaml" 1 "{name: latency, test: tcp_rr, msg_size: 250, duration: 1s, warmup: 0.2s}"
printf 'retries: 0\nhost_timeout: 60s\n' >>"$WORK/plan.yaml"

start() { # start NAME [ARGS...]: netsurvey run into $WORK/NAME (D), its pid RUNPID
    local name=$1
    shift
    D=$WORK/$name
    "$NETSURVEY" run "$WORK/plan.yaml" --nsperf-remote "$NSPERF_REMOTE" -o "$D" "$@" \
        >"$WORK/$name.log" 2>&1 &
    RUNPID=$!
}
run_end() { # wait for the run (300 s at most); its status in RC
    RC=0
    timeout 300 tail --pid="$RUNPID" -f /dev/null || kill -KILL "$RUNPID" 2>/dev/null || true
    wait "$RUNPID" || RC=$?
}
all_ok() { # all_ok NAME: exit 0, the 6 trials ok exactly once
    if ((RC == 0)) && exactly_once "$D" 6; then
        pass "$1: exit 0, all 6 trials ok exactly once"
    else
        fail "$1: exit $RC (want 0), or not all 6 trials ok exactly once"
        jq -c '{src: .src.host, dst: .dst.host, status, error}' "$D/results.jsonl" 2>/dev/null || true
        tail -20 "$WORK/$1.log"
    fi
}
cache_of() { echo "$NSLAB_DIR/hosts/$P-$1/root/.cache/netsurvey"; }

# --- a full /root: the endpoint goes to /dev/shm --------------------------------------------------
lab fill z2h1 /root >/dev/null
start full-root
run_end
all_ok full-root
path=$(jq -r '.hosts[] | select(.name == "z2h1") | .endpoint.path // empty' "$D/run.json")
[[ $path == /dev/shm/netsurvey-0/nsperf-static-* ]] && pass "full /root: z2h1's endpoint in $path" ||
    fail "full /root: z2h1's endpoint in '$path', not /dev/shm/netsurvey-0"
grep -q "z2h1: the endpoint is in /dev/shm/netsurvey-0/.*no space left on z2h1:/root/.cache/netsurvey" \
    "$WORK/full-root.log" && pass "full /root: said so: $(grep -o 'no space left on z2h1[^;]*' "$WORK/full-root.log" | head -1)" ||
    fail "full /root: the run does not say the endpoint moved for lack of space: $(cat "$WORK/full-root.log")"
no_nsperf_left "full /root"
lab unfill z2h1 /root >/dev/null
# clean goes through every place: the copy in /dev/shm removed (and the next runs deploy to
# z2h1's /root again, which holds the pid files the scenarios below look at)
shm=$NSLAB_DIR/hosts/$P-z2h1/shm/netsurvey-0
rc=0
timeout 60 "$NETSURVEY" clean "$WORK/plan.yaml" >"$WORK/clean0.log" 2>&1 || rc=$?
((rc == 0)) && [[ ! -e $shm ]] && pass "full /root: clean removed the endpoint from z2h1's /dev/shm" ||
    fail "full /root: clean exit $rc, $shm $([[ -e $shm ]] && echo left || echo removed): $(cat "$WORK/clean0.log")"

# --- the connection dropped during the first upload over a slow link ------------------------------
rm -rf "$(cache_of z3h1)"
lab mgmt-rate z3h1 4mbit >/dev/null
uploading() { compgen -G "$(cache_of z3h1)/.nsperf-static-*.tmp" >/dev/null; }
start upload
if wait_for 60 uploading; then
    sleep 0.5 # a part of it there
    lab kill-sessions z3h1 >/dev/null
    pass "upload: sessions of z3h1 dropped during the upload"
else
    fail "upload: never saw the upload to z3h1 start"
fi
run_end
lab mgmt-rate z3h1 off >/dev/null
all_ok upload
left=$(find "$(cache_of z3h1)" -name '*.tmp' | wc -l)
((left == 0)) && pass "upload: no partial file left" || fail "upload: $left partial file(s) left"
want=$(sha256sum "$NSPERF_REMOTE" | cut -c1-64)
[[ -x $(cache_of z3h1)/nsperf-static-$want ]] && pass "upload: uploaded again, whole (its sha256 in its name)" ||
    fail "upload: no complete endpoint on z3h1: $(ls -la "$(cache_of z3h1)")"
# the first upload is the run's host setup: the host is away from the start and says why. Where
# the drop lands is the machine's timing: inside the write ("unreachable at the start ... while
# writing ....tmp"), or, the last bytes already sent, just after it ("lost (the connection
# ended ...)", a CI run): either way the run says z3h1 dropped and came back
if grep -Eq "z3h1: (unreachable at the start \(z3h1: session dropped while writing $(cache_of z3h1 | sed "s|^$NSLAB_DIR/hosts/$P-z3h1||")/\.nsperf-static-.*\.tmp: |lost \()" \
    "$WORK/upload.log" && grep -q "z3h1: back after" "$WORK/upload.log"; then
    pass "upload: the run says the upload was cut and z3h1 came back: $(grep -o 'z3h1: back after.*' "$WORK/upload.log")"
else
    fail "upload: the run does not say the upload to z3h1 was cut and z3h1 came back: $(cat "$WORK/upload.log")"
fi
no_nsperf_left "upload"

# --- a session dropped while its host is idle, retries: 0 -----------------------------------------
running_pair() { # a test between z1h1 and z2h1 runs (z3h1 is idle meanwhile)
    local p ns
    for ns in "$P-z1h1" "$P-z2h1"; do
        for p in $(ip netns pids "$ns"); do
            [[ $(cat "/proc/$p/comm" 2>/dev/null) == nsperf* ]] && return 0
        done
    done
    return 1
}
start idle
wait_for 60 running_pair || fail "idle: never saw a test between z1h1 and z2h1"
lab kill-sessions z3h1 >/dev/null
run_end
all_ok idle
lost=$(jq -s '[.[].attempts[] | select(.error != null)] | length' "$D/results.jsonl")
((lost == 0)) && pass "idle: no attempt lost (the drop was found before z3h1's next test)" ||
    echo "   idle: $lost attempt(s) cut short, not counted: $(jq -c '[.[].attempts[] | select(.error != null)]' "$D/results.jsonl" -s)"
no_nsperf_left "idle"

# --- Ctrl-C while a host is unreachable -----------------------------------------------------------
start ctrl-c
wait_for 60 has_record "$D" || fail "ctrl-c: no trial recorded within 60 s"
lab mgmt-cut z2h1 >/dev/null
wait_for 30 grep -q "z2h1: lost" "$WORK/ctrl-c.log" || fail "ctrl-c: z2h1's loss never noticed"
sleep 1 # a connect to it in progress
AT=$(now)
kill -INT "$RUNPID"
run_end
took=$(elapsed_since "$AT")
lab mgmt-restore z2h1 >/dev/null
echo "   ctrl-c: exit $RC $took s after SIGINT"
# no tight bound: measured about 1 s; before, about 20 s of silence (a bound that only a cancel
# that waits for the connects' ends would exceed)
((RC == 130)) && awk -v t="$took" 'BEGIN{exit !(t < 10)}' &&
    pass "ctrl-c: exit 130 within $took s while z2h1 was unreachable" ||
    fail "ctrl-c: exit $RC after $took s (want 130, promptly)"
no_nsperf_anywhere() {
    local ns p
    for ns in "$P-z1h1" "$P-z2h1" "$P-z3h1"; do
        for p in $(ip netns pids "$ns"); do
            [[ $(cat "/proc/$p/comm" 2>/dev/null) == nsperf* ]] && return 1
        done
    done
    return 0
}
wait_for 30 no_nsperf_anywhere || true
no_nsperf_left "ctrl-c (z2h1's once its link was back: ended by the ssh sessions' end)"

# --- clean after a reboot, a stale pid file naming an unrelated process ---------------------------
on_z2() { # an nsperf runs on z2h1
    local p
    for p in $(ip netns pids "$P-z2h1"); do [[ $(cat "/proc/$p/comm" 2>/dev/null) == nsperf* ]] && return 0; done
    return 1
}
start reboot
wait_for 60 on_z2 || fail "reboot: never saw an nsperf on z2h1"
kill -KILL "$RUNPID" # the run cannot clean after itself
wait "$RUNPID" 2>/dev/null || true
lab kill-host z2h1 >/dev/null
lab start-sshd z2h1 >/dev/null
pids=$(cache_of z2h1)/pids
stale=$(find "$pids" -type f 2>/dev/null | head -1 || true)
if [[ -n $stale ]]; then
    # an unrelated process of the host now holds a number that a stale pid file names (a
    # background job of this shell is no group leader: setsid and ip exec, $! is the sleep)
    "$LAB" exec z2h1 -- setsid sleep 300 </dev/null >/dev/null 2>&1 &
    other=$!
    in_z2() { [[ $(cat "/proc/$other/comm" 2>/dev/null) == sleep ]]; }
    wait_for 10 in_z2 || fail "clean after reboot: the unrelated sleep did not start"
    read -r _ st boot exe <"$stale"
    echo "$other $st $boot $exe" >"$pids/$other"
    rm -f "$stale"
    nfiles=$(find "$pids" -type f | wc -l)
    rc=0
    timeout 60 "$NETSURVEY" clean "$WORK/plan.yaml" >"$WORK/clean.log" 2>&1 || rc=$?
    if ((rc == 0)) && [[ -d /proc/$other ]] && [[ ! -e $(cache_of z2h1) ]]; then
        pass "clean after reboot: exit 0, the unrelated process $other left alone, the cache removed: $(grep z2h1 "$WORK/clean.log")"
    else
        fail "clean after reboot: exit $rc, process $other $([[ -d /proc/$other ]] && echo alive || echo KILLED): $(cat "$WORK/clean.log")"
    fi
    grep -q "z2h1: cleaned (0 process groups killed, $nfiles stale pid files\? removed)" "$WORK/clean.log" ||
        fail "clean after reboot: z2h1's line does not count $nfiles stale file(s): $(cat "$WORK/clean.log")"
    { kill -KILL "$other" && wait "$other"; } 2>/dev/null || true
else
    fail "reboot: no pid file left on z2h1 to clean"
fi
no_nsperf_left "clean after reboot"

# --- clean during a run of the same plan --------------------------------------------------------
start during
wait_for 60 has_record "$D" || fail "during: no trial recorded within 60 s"
rc=0
timeout 60 "$NETSURVEY" clean "$WORK/plan.yaml" >"$WORK/clean2.log" 2>&1 || rc=$?
run_end
if ((rc == 3)) && grep -q "a run of plan '[^']*' is in progress in $D (pid $RUNPID)" "$WORK/clean2.log"; then
    pass "clean during a run: refused naming it (exit 3)"
else
    fail "clean during a run: exit $rc (want 3): $(cat "$WORK/clean2.log")"
fi
all_ok during
no_nsperf_left "during"
echo "total: $(elapsed_since "$T0") s"
finish
