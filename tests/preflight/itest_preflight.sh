#!/bin/bash
# itest_preflight.sh - `netsurvey check --connect` against real sshd's (issue 17, section 3).
#
# Everything runs in a network namespace this test makes (and removes): its loopback holds the
# sshd's (sshd_harness.sh) on 127.0.0.61-63 and 127.0.0.1 (a host named "localhost" without a
# data_address), data addresses 127.0.0.66-68, a veth pair whose v0 carries the namespace's
# default route (so the learnt data address is known: 10.255.61.2), and the firewall rules
# that block a data path. Nothing outside the namespace changes.
#
# Cases: no endpoint cached (every host "not checked: endpoint not deployed"); --deploy (all
# pass, exit 0, the table and the JSON); cached (exit 0, nothing uploaded); an unknown host key
# (its fingerprint as ssh-keygen -lf prints it), a changed key, a wrong user, an sshd killed, a
# data address that is not the host's, a data path blocked into a host and out of one, an
# interrupt during a probe (exit 130); the learnt data address in the table and in run.json,
# then ambiguous, then missing. Each failure is named for its host alone, exit 1. After every
# case: no nsperf running (no process whose exe is a deployed nsperf), no pid file left, and
# without --deploy nothing changed in any host's home nor in known_hosts.
#
#   itest_preflight.sh SOURCE_DIR NETSURVEY STATIC_NSPERF
set -u
src=$1
ns_bin=$2
stat_nsperf=$3
harness=$src/tests/ssh/sshd_harness.sh

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (a network namespace, sshd's)"
    exit 77
fi
for tool in iptables jq ssh-keygen ip; do
    command -v $tool >/dev/null || {
        echo "FAIL: $tool is missing (bash .ci/install installs it)" >&2
        exit 1
    }
done

# the plans say everything: no ssh config of this machine's user may change how a host is dialled
export NETSURVEY_SSH_CONFIG=none
D=$(mktemp -d /tmp/ns-itest-preflight.XXXXXX)
netns=nspf-$$
NX=(ip netns exec "$netns")
addrs=(127.0.0.61 127.0.0.62 127.0.0.63)
port=2222
lport=2261 # the "localhost" host's sshd, on 127.0.0.1
fails=0

cleanup() {
    for i in 0 1 2 l; do "${NX[@]}" "$harness" stop "$D/s$i" >/dev/null 2>&1; done
    ip netns del "$netns" 2>/dev/null
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

ip netns add "$netns" || exit 1
"${NX[@]}" ip link set lo up || exit 1
"${NX[@]}" ip link add v0 type veth peer name v1 || exit 1
"${NX[@]}" ip link set v0 up && "${NX[@]}" ip link set v1 up || exit 1
"${NX[@]}" ip addr add 10.255.61.2/24 dev v0 || exit 1
"${NX[@]}" ip route add default via 10.255.61.1 || exit 1

"$harness" keys "$D" || exit 1
start_sshd() { # start_sshd INDEX ADDR PORT
    "${NX[@]}" "$harness" start "$D/s$1" "$2" "$3" "$D" $$
}
for i in 0 1 2; do start_sshd $i "${addrs[i]}" $port || exit 1; done
start_sshd l 127.0.0.1 $lport || exit 1
kh_line() { echo "[${addrs[$1]}]:$port $(cut -d' ' -f1,2 "$D/s$1/host_key.pub")"; }
for i in 0 1 2; do kh_line $i >>"$D/kh"; done
echo "[localhost]:$lport $(cut -d' ' -f1,2 "$D/sl/host_key.pub")" >>"$D/kh"
fingerprint() { ssh-keygen -lf "$D/s$1/host_key.pub" | cut -d' ' -f2; }

# plan FILE KNOWN_HOSTS HOST_LINE... ; the hosts' ssh settings are the plan's defaults
plan() {
    local f=$1 kh=$2
    shift 2
    {
        printf 'name: preflight\n'
        printf 'ssh: {user: root, port: %s, identity: %s, known_hosts: %s, connect_timeout: 5s}\n' \
            $port "$D/id_good" "$kh"
        printf 'hosts:\n'
        printf '  - %s\n' "$@"
        printf 'scenarios:\n  - {name: rr, test: tcp_rr, duration: 0.3s, warmup: 0.1s}\n'
        printf 'trials: 1\npairs: all\n'
    } >"$f"
}
A='{name: a, address: 127.0.0.61, zone: "1"}'
B='{name: b, address: 127.0.0.62, zone: "2"}'
C='{name: c, address: 127.0.0.63, zone: "3"}'
L="{name: l, address: localhost, zone: \"4\", ssh: {port: $lport, user: root, identity: $D/id_good, known_hosts: $D/kh}}"
plan "$D/good.yaml" "$D/kh" "$A" "$B" "$C"

# --- what must hold after every case -----------------------------------------------------------

no_nsperf_left() {
    local p exe left=0
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$D"/*) echo "left running: ${p#/proc/} $exe $(tr '\0' ' ' <"$p/cmdline")" >&2; left=1 ;; esac
    done
    return $left
}
# the wrapper removes a process's pid file once it ended (in the background): bounded wait
no_pid_file_left() {
    local i
    for i in $(seq 1 50); do
        [ -z "$(find "$D"/s*/home -path '*/pids/*' -type f 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    find "$D"/s*/home -path '*/pids/*' -type f >&2
    return 1
}
# every file and directory of the hosts' homes (pid files aside) and the known_hosts file
snapshot() {
    {
        find "$D"/s*/home -path '*/pids/*' -prune -o -type f -printf '%p %s %T@ %m\n' -o \
            -type d -printf '%p/\n'
        sha256sum "$D"/kh*
    } | sort
}
before=""
case_start() { before=$(snapshot); }
case_end() { # case_end NAME [deployed]
    no_nsperf_left || fail "$1: nsperf left running"
    no_pid_file_left || fail "$1: pid files left on a host"
    if [ "${2:-}" != deployed ]; then
        [ "$(snapshot)" = "$before" ] || {
            fail "$1: a host's home or known_hosts changed"
            diff <(echo "$before") <(snapshot) >&2
        }
    fi
}

# check_run NAME ARGS... : the table into $D/out, the JSON (same case, --json) into $D/json
check_run() {
    local name=$1
    shift
    "${NX[@]}" "$ns_bin" check --connect --nsperf-remote "$stat_nsperf" "$@" >"$D/out" 2>"$D/err"
    rc=$?
    "${NX[@]}" "$ns_bin" check --connect --json --nsperf-remote "$stat_nsperf" "$@" \
        >"$D/json" 2>>"$D/err"
    jrc=$?
    check "$name: --json exits as the table does ($jrc vs $rc)" [ "$jrc" = "$rc" ]
    jq -e . "$D/json" >/dev/null || fail "$name: --json is not JSON: $(cat "$D/json")"
}
j() { jq -r "$1" "$D/json"; }
jqe() { jq -e "$1" "$D/json" >/dev/null; }
host_ok() { [ "$(j ".hosts[] | select(.name == \"$1\") | .ok")" = true ]; }
only_failed() { # only_failed CASE HOST: that host failed, every other passed, exit 1
    check "$1: exit 1 (was $rc): $(cat "$D/out" "$D/err")" [ "$rc" = 1 ]
    local h
    for h in $(j '.hosts[].name'); do
        if [ "$h" = "$2" ]; then
            host_ok "$h" && fail "$1: $h passed"
            grep -q "^$h .* FAILED\$" "$D/out" || fail "$1: the table's row of $h is not FAILED"
        else
            host_ok "$h" || fail "$1: $h failed: $(cat "$D/out")"
            grep -q "^$h .* ok\$" "$D/out" || fail "$1: the table's row of $h is not ok"
        fi
    done
    grep -q "^  $2: " "$D/out" || fail "$1: no problem line names $2: $(cat "$D/out")"
    [ -z "$(grep '^  ' "$D/out" | grep -v "^  $2: ")" ] ||
        fail "$1: problem lines name other hosts: $(cat "$D/out")"
}

# --- 1. nothing cached, no --deploy: the endpoint's checks are not made, nothing is written ----
case_start
check_run "not deployed" "$D/good.yaml"
check "not deployed: exit 1 (was $rc)" [ "$rc" = 1 ]
for h in a b c; do
    check "not deployed: $h would upload" [ "$(j ".hosts[] | select(.name == \"$h\") | .endpoint.state")" = upload ]
    grep -qF "  $h: data address: not checked: endpoint not deployed (use --deploy)" "$D/out" ||
        fail "not deployed: no 'not checked' line for $h: $(cat "$D/out")"
done
check "not deployed: data paths not checked" [ "$(j '[.paths[] | select(.status == "not checked")] | length')" = 6 ]
check "not deployed: the homes stay empty" [ -z "$(find "$D"/s*/home -mindepth 1)" ]
case_end "not deployed"

# --- 2. --deploy: every check passes ------------------------------------------------------------
case_start
check_run "deploy" "$D/good.yaml" --deploy
check "deploy: exit 0 (was $rc): $(cat "$D/out" "$D/err")" [ "$rc" = 0 ]
check "deploy: JSON ok" [ "$(j .ok)" = true ]
check "deploy: the table's header" grep -q '^HOST  HOST KEY  AUTH  *SYSTEM  *ENDPOINT  *FREE  *CLOCK  *DATA ADDRESS  *DATA PATHS  *RESULT$' "$D/out"
check "deploy: 3 passed" grep -q '^3 hosts: 3 passed, 0 failed' "$D/out"
os=$(. /etc/os-release && echo "$PRETTY_NAME")
for i in 0 1 2; do
    h=$(printf 'abc' | cut -c$((i + 1)))
    row=$(grep "^$h " "$D/out")
    for want in known "ok (root)" "$os $(uname -m)" "${addrs[i]} (lo)" "2/2 ok"; do
        case $row in *"$want"*) ;; *) fail "deploy: row of $h lacks '$want': $row" ;; esac
    done
    H=".hosts[$i]"
    # the second run (--json) found what the first uploaded
    check "deploy: $h cached for the JSON run" [ "$(j "$H.endpoint.state")" = cached ]
    check "deploy: $h key known" [ "$(j "$H.host_key.state")" = known ]
    check "deploy: $h fingerprint" [ "$(j "$H.host_key.fingerprint")" = "ssh-ed25519 $(fingerprint $i)" ]
    check "deploy: $h free space" [ "$(j "$H.free_space.bytes")" -gt 0 ]
    check "deploy: $h endpoint size" [ "$(j "$H.endpoint.bytes")" = "$(stat -c %s "$stat_nsperf")" ]
    # one clock: the host's time was read between t0 and t1, so |offset| <= rtt / 2
    check "deploy: $h clock offset within its bound ($(j "$H.clock.offset_s") vs $(j "$H.clock.rtt_s"))" \
        jqe "$H.clock | (.offset_s | fabs) <= .rtt_s / 2 + 0.0001"
done
check "deploy: 6 data paths ok" [ "$(j '[.paths[] | select(.status == "ok")] | length')" = 6 ]
for i in 0 1 2; do
    check "deploy: nsperf in the cache of host $i" compgen -G "$D/s$i/home/.cache/netsurvey/nsperf-static-*" >/dev/null
done
case_end "deploy" deployed

# --- 3. cached: exit 0, nothing uploaded or changed ---------------------------------------------
case_start
check_run "cached" "$D/good.yaml"
check "cached: exit 0 (was $rc): $(cat "$D/out" "$D/err")" [ "$rc" = 0 ]
check "cached: every endpoint cached" [ "$(j '[.hosts[] | select(.endpoint.state == "cached")] | length')" = 3 ]
check "cached: the table says so" [ "$(grep -c ' cached ' "$D/out")" = 3 ]
case_end "cached"

# --- 4. an unknown host key ---------------------------------------------------------------------
grep -v "^\[${addrs[2]}\]" "$D/kh" >"$D/kh_unknown"
plan "$D/unknown.yaml" "$D/kh_unknown" "$A" "$B" "$C"
case_start
check_run "unknown key" "$D/unknown.yaml"
only_failed "unknown key" c
check "unknown key: state" [ "$(j '.hosts[2].host_key.state')" = unknown ]
check "unknown key: its fingerprint is ssh-keygen's" [ "$(j '.hosts[2].host_key.fingerprint')" = "ssh-ed25519 $(fingerprint 2)" ]
check "unknown key: the table's problem line has it" grep -qF "$(fingerprint 2)" "$D/out"
check "unknown key: c's row" grep -q '^c  *unknown  *- ' "$D/out"
check "unknown key: c's paths not checked" [ "$(j '[.paths[] | select(.src == "c" or .dst == "c") | select(.status == "not checked")] | length')" = 4 ]
case_end "unknown key"

# --- 5. a changed host key ----------------------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -C other -f "$D/other_key"
sed "s|^\(\[${addrs[1]}\]:$port\) .*|\1 $(cut -d' ' -f1,2 "$D/other_key.pub")|" "$D/kh" >"$D/kh_changed"
plan "$D/changed.yaml" "$D/kh_changed" "$A" "$B" "$C"
case_start
check_run "changed key" "$D/changed.yaml"
only_failed "changed key" b
check "changed key: state" [ "$(j '.hosts[1].host_key.state')" = changed ]
check "changed key: the key offered" [ "$(j '.hosts[1].host_key.fingerprint')" = "ssh-ed25519 $(fingerprint 1)" ]
check "changed key: said in the table" grep -q '^  b: host key: .*CHANGED' "$D/out"
case_end "changed key"

# --- 6. a wrong user ----------------------------------------------------------------------------
plan "$D/user.yaml" "$D/kh" \
    "{name: a, address: 127.0.0.61, zone: \"1\", ssh: {user: nosuch, port: $port, identity: $D/id_good, known_hosts: $D/kh}}" \
    "$B" "$C"
case_start
check_run "wrong user" "$D/user.yaml"
only_failed "wrong user" a
check "wrong user: auth failed" [ "$(j '.hosts[0].auth.status')" = failed ]
check "wrong user: as nosuch" [ "$(j '.hosts[0].auth.user')" = nosuch ]
check "wrong user: what was tried" grep -q "$D/id_good" <<<"$(j '.hosts[0].auth.tried')"
check "wrong user: key known" [ "$(j '.hosts[0].host_key.state')" = known ]
check "wrong user: the table" grep -q '^  a: authentication: authentication failed as nosuch' "$D/out"
case_end "wrong user"

# --- 7. an sshd killed --------------------------------------------------------------------------
"${NX[@]}" "$harness" stop "$D/s2"
case_start
check_run "sshd killed" "$D/good.yaml"
only_failed "sshd killed" c
check "sshd killed: connect failed" [ "$(j '.hosts[2].connect.status')" = failed ]
check "sshd killed: refused" grep -q '^  c: connect: cannot connect to 127.0.0.63:2222: .*refused' "$D/out"
case_end "sshd killed"
start_sshd 2 "${addrs[2]}" $port || exit 1

# --- 8. a data address that is not the host's ----------------------------------------------------
plan "$D/daddr.yaml" "$D/kh" "$A" "$B" '{name: c, address: 127.0.0.63, data_address: 198.51.100.61, zone: "3"}'
case_start
check_run "foreign data address" "$D/daddr.yaml"
only_failed "foreign data address" c
check "foreign data address: failed" [ "$(j '.hosts[2].data_address.status')" = failed ]
check "foreign data address: said" grep -q '^  c: data address: 198.51.100.61 is not an address of c' "$D/out"
check "foreign data address: c's row" grep -q '198.51.100.61 (not the host.s)' "$D/out"
case_end "foreign data address"

# --- 9. a data path blocked into c, then out of c -----------------------------------------------
plan "$D/paths.yaml" "$D/kh" '{name: a, address: 127.0.0.61, data_address: 127.0.0.66, zone: "1"}' \
    '{name: b, address: 127.0.0.62, data_address: 127.0.0.67, zone: "2"}' \
    '{name: c, address: 127.0.0.63, data_address: 127.0.0.68, zone: "3"}'
block() { "${NX[@]}" iptables -I INPUT "$@" -p tcp --syn -j DROP; }
unblock() { "${NX[@]}" iptables -D INPUT "$@" -p tcp --syn -j DROP; }
block -d 127.0.0.68
case_start
check_run "blocked into c" "$D/paths.yaml"
only_failed "blocked into c" c
check "blocked into c: 2 paths failed" [ "$(j '.hosts[2].data_paths.failed')" = 2 ]
check "blocked into c: counted against c" [ "$(j '[.paths[] | select(.status == "failed") | select(.dst == "c" and .counted_against == "dst")] | length')" = 2 ]
check "blocked into c: out of c fine" [ "$(j '[.paths[] | select(.src == "c" and .status == "ok")] | length')" = 2 ]
for s in a b; do
    check "blocked into c: $s -> c named" grep -q "^  c: data path $s -> c: " "$D/out"
done
case_end "blocked into c"
unblock -d 127.0.0.68

block -s 127.0.0.68
case_start
check_run "blocked out of c" "$D/paths.yaml"
only_failed "blocked out of c" c
check "blocked out of c: counted against c, the source" [ "$(j '[.paths[] | select(.status == "failed") | select(.src == "c" and .counted_against == "src")] | length')" = 2 ]
check "blocked out of c: said" grep -q "c: data paths: reaches no host\|c: data path c -> " "$D/out"
case_end "blocked out of c"
unblock -s 127.0.0.68

# --- 10. interrupted during a (blocked) probe: exit 130, nothing left running -------------------
block -d 127.0.0.68
case_start
"${NX[@]}" "$ns_bin" check --connect --nsperf-remote "$stat_nsperf" "$D/paths.yaml" >"$D/out" 2>&1 &
pid=$!
probing=0
for _ in $(seq 1 200); do # until a client probes c's data address (bounded, 20 s)
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$D"/*) tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q -- '-c 127.0.0.68' && probing=1 ;; esac
    done
    [ $probing = 1 ] && break
    sleep 0.1
done
check "interrupt: a probe of c was seen running" [ $probing = 1 ]
kill -INT $pid
wait $pid
rc=$?
check "interrupt: exit 130 (was $rc): $(cat "$D/out")" [ "$rc" = 130 ]
check "interrupt: said" grep -q 'interrupted' "$D/out"
case_end "interrupt"
unblock -d 127.0.0.68

# --- 11. the data address learnt from the host's default route, in the table and in run.json ---
plan "$D/learn.yaml" "$D/kh" "$A" "$B" "$L"
case_start
check_run "learnt" "$D/learn.yaml" --deploy
check "learnt: exit 0 (was $rc): $(cat "$D/out" "$D/err")" [ "$rc" = 0 ]
check "learnt: the address" [ "$(j '.hosts[2].data_address.address')" = 10.255.61.2 ]
check "learnt: said learnt" [ "$(j '.hosts[2].data_address.learnt')" = true ]
check "learnt: its interface" [ "$(j '.hosts[2].data_address.interface')" = v0 ]
check "learnt: the table" grep -q '^l .*10.255.61.2 (v0, learnt)' "$D/out"
check "learnt: paths ok" [ "$(j '[.paths[] | select(.status == "ok")] | length')" = 6 ]
case_end "learnt" deployed
"${NX[@]}" "$ns_bin" run "$D/learn.yaml" -o "$D/run-learnt" --nsperf-remote "$stat_nsperf" -q \
    >"$D/out" 2>&1
rc=$?
check "learnt run: exit 0 (was $rc): $(cat "$D/out")" [ "$rc" = 0 ]
check "learnt run: run.json records it" [ "$(jq -r '.hosts[2].data_address' "$D/run-learnt/run.json")" = 10.255.61.2 ]
check "learnt run: the trials used it" [ "$(jq -s '[.[] | select(.dst.host == "l") | select(.dst.data_address == "10.255.61.2" and .status == "ok")] | length' "$D/run-learnt/results.jsonl")" = 2 ]
no_nsperf_left || fail "learnt run: nsperf left running"

# --- 12. ambiguous, then no default route: an error for that host alone -------------------------
"${NX[@]}" ip addr add 10.255.61.3/24 dev v0
case_start
check_run "ambiguous" "$D/learn.yaml"
only_failed "ambiguous" l
check "ambiguous: said, with both addresses" grep -q '^  l: data address: ambiguous data address: v0, .*(10.255.61.2, 10.255.61.3); set data_address' "$D/out"
case_end "ambiguous"
"${NX[@]}" "$ns_bin" run "$D/learn.yaml" -o "$D/run-ambiguous" --nsperf-remote "$stat_nsperf" -q \
    >"$D/out" 2>&1
rc=$?
check "ambiguous run: exit 1 (was $rc)" [ "$rc" = 1 ]
check "ambiguous run: run.json says why" grep -q ambiguous <<<"$(jq -r '.hosts[2].error' "$D/run-ambiguous/run.json")"
check "ambiguous run: l's trials failed, the others ok" [ "$(jq -s '[.[] | select((.status == "ok") == (.src.host != "l" and .dst.host != "l"))] | length' "$D/run-ambiguous/results.jsonl")" = 6 ]
no_nsperf_left || fail "ambiguous run: nsperf left running"

"${NX[@]}" ip addr del 10.255.61.3/24 dev v0
"${NX[@]}" ip route del default
case_start
check_run "no default route" "$D/learn.yaml"
only_failed "no default route" l
check "no default route: said" grep -q '^  l: data address: no data address to learn: the host has no default route' "$D/out"
case_end "no default route"

if [ $fails -gt 0 ]; then
    echo "$fails check(s) failed; test dir kept in ${D}.kept" >&2
    cp -a "$D" "$D.kept" 2>/dev/null
    exit 1
fi
echo "ok"
