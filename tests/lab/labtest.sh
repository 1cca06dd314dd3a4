# shellcheck shell=bash
# labtest.sh - sourced by the lab's tests: root check (skip code 77), the lab on its own prefix,
# torn down on exit, and nsperf between two hosts with every step bounded by a timeout.
set -Eeuo pipefail

LAB_SKIP=77
if [[ $(id -u) != 0 ]]; then
    echo "SKIP: the lab needs root (network namespaces, TUN devices, sshd); run ctest as root"
    exit $LAB_SKIP
fi
# One lab test at a time on this machine: every lab uses the same namespace names, addresses
# and routes, and several build trees (worktrees, presets) may run their lab tests at once.
exec 8>/run/nslab-tests.lock
flock -w 900 8 || {
    echo "FAIL: another lab test held /run/nslab-tests.lock for 15 minutes"
    exit 1
}
LAB_DIR_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB="$LAB_DIR_SRC/lab"
# the tests' own lab: a demo lab (prefix nslab) is never touched, but its addresses would clash
export NSLAB_PREFIX=${NSLAB_PREFIX:-nslabt}
export NSLAB_DIR=/run/$NSLAB_PREFIX
NSPERF=${NSPERF:-${NS_BINARY_DIR:-$LAB_DIR_SRC/../../build/ci}/bin/nsperf}
[[ -x $NSPERF ]] || {
    echo "FAIL: nsperf not found at $NSPERF (set NSPERF or NS_BINARY_DIR)"
    exit 1
}
# NSPERF_RUN: the command that runs nsperf (a test may prefix it, e.g. with taskset)
NSPERF_RUN=("$NSPERF")
WORK=$(mktemp -d /tmp/nslab-test.XXXXXX)
FAILS=0

lab_test_cleanup() {
    timeout 30 "$LAB" down >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap lab_test_cleanup EXIT
trap 'exit 130' INT TERM

# the lab's daemons (delay line, sshd) do not inherit the lock: a test killed on its timeout
# leaves a lab that the next one takes down, not a lock held for good
lab() { timeout 60 "$LAB" "$@" 8>&-; }
fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}
pass() { echo "ok: $*"; }

# wait_listen NETNS ADDR:PORT: until something listens there (5 s at most)
wait_listen() {
    local _
    for _ in $(seq 250); do
        ss -N "$1" -Hltn "src $2" 2>/dev/null | grep -q . && return 0
        sleep 0.02
    done
    return 1
}

# nsperf_pair SRC_ZONE DST_ZONE OUT_JSON NSPERF_CLIENT_ARGS...: one test from zSh1 to zDh1 over
# the data path; the server serves one test and exits. Returns nsperf's status.
nsperf_pair() {
    local s=$1 d=$2 out=$3 sp rc=0
    shift 3
    timeout 60 "$LAB" exec "z${d}h1" -- "${NSPERF_RUN[@]}" -s -B "198.19.$d.1" -1 --idle-timeout 20 \
        >"$WORK/server.log" 2>&1 &
    sp=$!
    wait_listen "$NSLAB_PREFIX-z${d}h1" "198.19.$d.1:5301" || {
        cat "$WORK/server.log"
        kill "$sp" 2>/dev/null || true
        return 1
    }
    timeout 60 "$LAB" exec "z${s}h1" -- "${NSPERF_RUN[@]}" -c "198.19.$d.1" -J "$@" >"$out" || rc=$?
    wait "$sp" || true
    return $rc
}

# --- netsurvey over ssh against the lab --------------------------------------------------------
NETSURVEY=${NETSURVEY:-${NS_BINARY_DIR:-$LAB_DIR_SRC/../../build/ci}/bin/netsurvey}
NSPERF_REMOTE=${NSPERF_REMOTE:-${NS_BINARY_DIR:-$LAB_DIR_SRC/../../build/ci}/bin/nsperf-static}

# need_survey: netsurvey and the static nsperf it deploys are there
need_survey() {
    [[ -x $NETSURVEY ]] || {
        echo "FAIL: netsurvey not found at $NETSURVEY (set NETSURVEY or NS_BINARY_DIR)"
        exit 1
    }
    [[ -x $NSPERF_REMOTE ]] || {
        echo "FAIL: no static nsperf at $NSPERF_REMOTE: every build makes it (cmake --build)"
        exit 1
    }
}

# lab_plan_with FILE TRIALS SCENARIO_LINE...: the running lab's plan (`lab plan`: its hosts, key
# and known_hosts), with these scenarios and trials, one pair at a time, both directions
lab_plan_with() {
    local f=$1 trials=$2 line
    shift 2
    lab plan | sed '/^scenarios:/,$d' >"$f"
    echo "scenarios:" >>"$f"
    for line in "$@"; do echo "  - $line" >>"$f"; done
    printf 'trials: %s\npairs: all\ndirections: both\nparallel: false\n' "$trials" >>"$f"
}

# survey PLAN DIR [ARGS...]: netsurvey run over ssh, the static nsperf deployed; returns its status
survey() {
    local plan=$1 dir=$2
    shift 2
    timeout 600 "$NETSURVEY" run "$plan" -o "$dir" --nsperf-remote "$NSPERF_REMOTE" -q "$@" \
        >>"$WORK/survey.log" 2>&1
}

# summary_entry DIR SCENARIO LIST SRC DST FILTER: the jq FILTER of the entry of SCENARIO's LIST
# in DIR/summary.json from SRC to DST (LIST zone_cells: zones; pairs: hosts); empty if none
summary_entry() {
    jq -r --arg s "$2" --arg l "$3" --arg a "$4" --arg b "$5" '.scenarios[] | select(.name == $s) |
        .[$l][] | select(if $l == "zone_cells" then [.src_zone, .dst_zone] else [.src, .dst] end ==
        [$a, $b]) | ('"$6"') // empty' "$1/summary.json"
}

# cell DIR SCENARIO SRC_ZONE DST_ZONE: the zone cell's mean from summary.json (empty if none)
cell() { summary_entry "$1" "$2" zone_cells "$3" "$4" .mean; }

# no_nsperf_left WHAT: no nsperf process in any host of the lab
no_nsperf_left() {
    local ns p left=""
    while IFS=$'\t' read -r ns _; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do
            [[ $(cat "/proc/$p/comm" 2>/dev/null) == nsperf* ]] && left+=" $ns:$p"
        done
    done <"$NSLAB_DIR/hosts.tsv"
    if [[ -n $left ]]; then
        fail "$1: nsperf left running:$left"
    else
        pass "$1: no nsperf left in any host"
    fi
}

finish() {
    if ((FAILS)); then
        echo "$FAILS check(s) failed"
        exit 1
    fi
    echo "all checks passed"
}

# --- faults (test_lab_faults.sh, test_lab_hostfaults*.sh) --------------------------------------

# alive_config: netsurvey's ssh sees ServerAliveInterval 1 and ServerAliveCountMax 3 (a dead
# session found within 3-4 s, as an operator's ~/.ssh/config would set it)
alive_config() {
    printf 'Host *\n    ServerAliveInterval 1\n    ServerAliveCountMax 3\n' >"$WORK/ssh_config"
    export NETSURVEY_SSH_CONFIG=$WORK/ssh_config
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
has_record() { [[ -s $1/results.jsonl ]] && grep -q "${2:-status}" "$1/results.jsonl"; }

# exactly_once DIR N: the journal holds N records, every one ok, one per trial
exactly_once() {
    jq -se --argjson n "$2" 'length == $n and all(.status == "ok") and
        (group_by([.scenario.name, .src.host, .dst.host, .trial]) | length == $n)' \
        "$1/results.jsonl" >/dev/null
}

# no_pid_files WHAT: no pid file of netsurvey's left on any host (its runs removed theirs)
no_pid_files() {
    local left
    left=$(find "$NSLAB_DIR"/hosts/*/root/.cache/netsurvey/pids "$NSLAB_DIR"/hosts/*/shm/netsurvey-*/pids \
        -type f 2>/dev/null | tr '\n' ' ' || true)
    if [[ -n $left ]]; then fail "$1: pid files left: $left"; else pass "$1: no pid file left on any host"; fi
}

# secs ISO8601: seconds since the epoch (with the milliseconds)
secs() { date -d "$1" +%s.%N; }
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
