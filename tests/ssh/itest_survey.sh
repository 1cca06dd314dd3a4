#!/bin/bash
# itest_survey.sh - `netsurvey run` over real ssh end to end (issue 10): three sshd's started by
# sshd_harness.sh on 127.0.0.41-43 (root), the static nsperf deployed to each, every trial ok,
# the binary cached between runs, an unknown host key failing that host only (fingerprint in
# the reason) until --accept-new-host-keys, hostile plan strings never reaching a shell, and
# no nsperf left running after any run, and `netsurvey clean` emptying every host's cache.
#
#   itest_survey.sh SOURCE_DIR NETSURVEY STATIC_NSPERF
set -u
src=$1
ns=$2
stat_nsperf=$3
harness=$src/tests/ssh/sshd_harness.sh

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (sshd's on loopback addresses)"
    exit 77
fi
if [ ! -x "$stat_nsperf" ]; then
    echo "FAIL: no static nsperf at $stat_nsperf: every build makes bin/nsperf-static" >&2
    exit 1
fi

D=$(mktemp -d /tmp/ns-itest-survey.XXXXXX)
addrs=(127.0.0.41 127.0.0.42 127.0.0.43)
ports=()
fails=0

cleanup() {
    for i in 0 1 2; do "$harness" stop "$D/s$i" >/dev/null 2>&1; done
    rm -rf "$D"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    "$@" || fail "$what"
}

free_port() {
    python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$1"
}

wait_listen() { # wait_listen ADDR PORT (bounded)
    local i
    for i in $(seq 1 100); do
        (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

"$harness" keys "$D" || exit 1
for i in 0 1 2; do
    ports[i]=$(free_port "${addrs[i]}")
    "$harness" start "$D/s$i" "${addrs[i]}" "${ports[i]}" "$D" $$ || exit 1
    wait_listen "${addrs[i]}" "${ports[i]}" || { echo "FAIL: sshd $i does not listen" >&2; exit 1; }
    echo "[${addrs[i]}]:${ports[i]} $(cut -d' ' -f1,2 "$D/s$i/host_key.pub")" >>"$D/kh"
done
kh_line() { echo "[${addrs[$1]}]:${ports[$1]} $(cut -d' ' -f1,2 "$D/s$1/host_key.pub")"; }

# plan HOSTNAME_SUFFIX ZONE_PREFIX REGION_PREFIX SCENARIO KNOWN_HOSTS > file
plan() {
    printf 'name: sshsurvey\n'
    printf 'hosts:\n'
    for i in 0 1 2; do
        printf '  - name: h%s%s\n' "$i" "$1"
        printf '    address: %s\n' "${addrs[i]}"
        printf '    zone: %s\n' "$(printf '%s' "$2$i" | jq -Rs .)"
        printf '    region: %s\n' "$(printf '%s' "$3$2" | jq -Rs .)"
        printf '    ssh: {user: root, port: %s, identity: %s, known_hosts: %s, connect_timeout: 10s}\n' \
            "${ports[i]}" "$D/id_good" "$5"
    done
    printf 'scenarios:\n'
    printf '  - {name: %s, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n' "$4"
    printf 'trials: 1\npairs: all\nparallel: true\n'
    # a host whose sshd is stopped (6.) is given up on after 3 s, not 5 min
    printf 'host_timeout: 3s\n'
}

# No nsperf (deployed under $D/s*/home) may be running after a run.
no_nsperf_left() {
    local p exe left=0
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$D"/*) echo "left running: ${p#/proc/} $exe" >&2; left=1 ;; esac
    done
    return $left
}

# trials DIR STATUS: how many records of results.jsonl have that status
count() { jq -s --arg s "$2" '[.[] | select(.status == $s)] | length' "$1/results.jsonl"; }
total() { jq -s 'length' "$1/results.jsonl"; }

run() { # run OUTDIR ARGS... ; sets rc
    "$ns" run "$@" --nsperf-remote "$stat_nsperf" -q >"$D/out.log" 2>&1
    rc=$?
    no_nsperf_left || fail "nsperf left running after run $1"
}

# 1. every trial ok; reports written
plan "" "zone-" "" rr "$D/kh" >"$D/plan.yaml"
run "$D/plan.yaml" -o "$D/r1"
check "first run exit 0 (was $rc): $(cat "$D/out.log")" [ "$rc" = 0 ]
n=$(total "$D/r1")
check "first run: 6 trials (got $n)" [ "$n" = 6 ]
check "first run: all ok" [ "$(count "$D/r1" ok)" = "$n" ]
check "report.md written" [ -s "$D/r1/report.md" ]
check "report.html written" [ -s "$D/r1/report.html" ]
for i in 0 1 2; do
    check "nsperf deployed to host $i" compgen -G "$D/s$i/home/.cache/netsurvey/nsperf-*" >/dev/null
done
before=$(stat -c '%i %Y' "$D"/s*/home/.cache/netsurvey/nsperf-*)

# 2. a second run uploads nothing: the cached binaries are the same files
run "$D/plan.yaml" -o "$D/r2"
check "second run exit 0 (was $rc)" [ "$rc" = 0 ]
after=$(stat -c '%i %Y' "$D"/s*/home/.cache/netsurvey/nsperf-*)
check "second run re-uploaded nsperf" [ "$before" = "$after" ]

# 3. host 2's key missing from known_hosts: its trials fail with the fingerprint, others ok
grep -v "^\[${addrs[2]}\]" "$D/kh" >"$D/kh2"
plan "" "zone-" "" rr "$D/kh2" >"$D/plan2.yaml"
fp=$(ssh-keygen -l -E sha256 -f "$D/s2/host_key.pub" | cut -d' ' -f2)
run "$D/plan2.yaml" -o "$D/r3"
check "unknown key: exit 1 (was $rc)" [ "$rc" = 1 ]
bad=$(jq -s '[.[] | select(.status != "ok")] | length' "$D/r3/results.jsonl")
ok=$(count "$D/r3" ok)
check "unknown key: h2's 4 trials failed (got $bad)" [ "$bad" = 4 ]
check "unknown key: h0<->h1 trials ok (got $ok)" [ "$ok" = 2 ]
check "unknown key: every failure names h2" \
    [ "$(jq -s '[.[] | select(.status != "ok") | select((.src.host // .src) == "h2" or (.dst.host // .dst) == "h2" or (tostring | test("h2")))] | length' "$D/r3/results.jsonl")" = 4 ]
check "unknown key: fingerprint $fp in the reason" grep -qF "$fp" "$D/r3/results.jsonl"

# 4. the same with --accept-new-host-keys: exit 0, the key recorded
run "$D/plan2.yaml" -o "$D/r4" --accept-new-host-keys
check "accept-new: exit 0 (was $rc): $(cat "$D/out.log")" [ "$rc" = 0 ]
check "accept-new: all ok" [ "$(count "$D/r4" ok)" = 6 ]
check "accept-new: key of h2 recorded" grep -qF "$(cut -d' ' -f2 "$D/s2/host_key.pub")" "$D/kh2"

# 5. hostile strings in zones/regions run and reach no shell; in names they are refused.
# Backticks in zones too: they reach the report's gnuplot scripts (zone labels of the heatmap),
# where only single-quoted strings are safe from gnuplot's `...` command substitution.
pw=/tmp/pwned-$$
evil="\$(touch $pw-a);\`touch $pw-f\`;touch $pw-c;'\"x"
plan "" "$evil" "\`touch $pw-b\`" rr "$D/kh" >"$D/evil.yaml"
run "$D/evil.yaml" -o "$D/r5"
check "hostile zones: exit 0 (was $rc): $(cat "$D/out.log")" [ "$rc" = 0 ]
check "hostile zones: all ok" [ "$(count "$D/r5" ok)" = 6 ]
check "hostile zones: kept verbatim" grep -qF "$(printf '%s' "${evil}0" | jq -Rs . | sed 's/^"//; s/"$//')" "$D/r5/results.jsonl"
plan "\$(touch $pw-d)" "z" "" "r\`touch $pw-e\`;'\"" "$D/kh" >"$D/evil2.yaml"
run "$D/evil2.yaml" -o "$D/r6"
check "hostile names: refused as a plan error (exit 2, was $rc)" [ "$rc" = 2 ]
check "hostile names: nothing contacted" [ ! -e "$D/r6/results.jsonl" ]
check "nothing created by a hostile string: $(echo $pw-*)" [ -z "$(compgen -G "$pw-*")" ]
rm -f "$pw"-*

# 6. sshd of h2 killed mid-survey: its tests fail with a reason, the rest completes
plan "" "zone-" "" rr "$D/kh" | sed 's/trials: 1/trials: 3/' >"$D/plan3.yaml"
"$ns" run "$D/plan3.yaml" -o "$D/r7" --nsperf-remote "$stat_nsperf" -q >"$D/out.log" 2>&1 &
runpid=$!
for _ in $(seq 1 300); do # until the first trial is journaled (bounded, 30 s)
    [ -s "$D/r7/results.jsonl" ] && break
    sleep 0.1
done
"$harness" stop "$D/s2"
wait $runpid
rc=$?
no_nsperf_left || fail "nsperf left running after the killed sshd"
check "killed sshd: exit 1 (was $rc): $(cat "$D/out.log")" [ "$rc" = 1 ]
check "killed sshd: every trial journaled ($(total "$D/r7"))" [ "$(total "$D/r7")" = 18 ]
check "killed sshd: h0<->h1 trials ok" [ "$(count "$D/r7" ok)" -ge 6 ]
check "killed sshd: failures have a reason" \
    [ "$(jq -s '[.[] | select(.status != "ok") | select((.error // .reason // "") == "")] | length' "$D/r7/results.jsonl")" = 0 ]

# 7. netsurvey clean: every ssh host's cache removed, exit 0 (h2's sshd restarted first)
"$harness" start "$D/s2" "${addrs[2]}" "${ports[2]}" "$D" $$ || exit 1
wait_listen "${addrs[2]}" "${ports[2]}" || fail "sshd 2 does not listen again"
"$ns" clean "$D/plan.yaml" >"$D/out.log" 2>&1
rc=$?
check "clean: exit 0 (was $rc): $(cat "$D/out.log")" [ "$rc" = 0 ]
for i in 0 1 2; do
    check "clean: cache of host $i removed" [ ! -e "$D/s$i/home/.cache/netsurvey" ]
done
no_nsperf_left || fail "nsperf left running after clean"

if [ $fails -gt 0 ]; then
    echo "$fails check(s) failed; run dir kept in ${D}.kept" >&2
    cp -a "$D" "$D.kept" 2>/dev/null
    exit 1
fi
echo "ok"
