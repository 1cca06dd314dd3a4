#!/usr/bin/env bash
# The lab's life cycle and the faults later tests inject, on a 3 x 2 lab: bring-up is idempotent
# and fast; every host has its own sshd (key-only, known host key, own hostname, private /tmp and
# /root); the data path works within and across zones; `lab cut` silently drops one zone pair's
# traffic and `lab restore` brings it back; `lab kill-sshd` / `start-sshd`; tear-down, also after
# an interrupted or failed bring-up, leaves no namespace, device, process or file behind. With
# --bastion: the bastion's own sshd, the login users (only inside the lab, never in the
# machine's /etc/passwd), the lab's root tooling unchanged; a lab with a bastion and one without
# replace each other; the same clean tear-down.
source "$(dirname "$0")/labtest.sh"
P=$NSLAB_PREFIX

# the lab's users exist only inside its hosts: the machine's files must not name them
lab_users() { grep -hE '^(azureuser|jumpuser):' /etc/passwd /etc/group || true; }
USERS_BEFORE=$(lab_users)
left_behind() { # prints whatever of the lab is still there
    ip netns list | awk '{print $1}' | grep "^$P-" || true
    ip -o link show | awk -F': ' '{print $2}' | grep "^$P-" || true
    grep -lzx "/run/$P/delay\.con[f]" /proc/[0-9]*/cmdline 2>/dev/null || true
    [[ -e $NSLAB_DIR ]] && echo "$NSLAB_DIR" || true
    [[ $(lab_users) == "$USERS_BEFORE" ]] || echo "users in /etc/passwd or /etc/group: $(lab_users)"
}
expect_clean() {
    local rest
    rest=$(left_behind)
    if [[ -z $rest ]]; then pass "$1: nothing left behind"; else fail "$1: left behind: $rest"; fi
}
lab_ssh() { timeout 20 ssh -F "$NSLAB_DIR/ssh_config" "$@"; }
# tcp_connects SRC_HOST ADDR PORT: can SRC_HOST open a TCP connection (2 s at most)?
tcp_connects() {
    timeout 5 "$LAB" exec "$1" -- timeout 2 bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null
}

SPEC=(--zones 3 --hosts 2 --rtt "1-2=200us,1-3=300us,2-3=400us" --rate "1-2=100M")
t0=$(date +%s%N)
lab up "${SPEC[@]}" || fail "lab up"
t1=$(date +%s%N)
echo "bring-up of 3 x 2: $(((t1 - t0) / 1000000)) ms"
out=$(lab up "${SPEC[@]}")
[[ $out == *"already up"* ]] && pass "a second identical up is a no-op" || fail "second up: $out"
lab status >/dev/null && pass "status: all up" || fail "status reports a problem"
[[ $(lab hosts | wc -l) == 6 ]] && pass "6 hosts" || fail "lab hosts: $(lab hosts)"
NETSURVEY=${NETSURVEY:-$(dirname "$NSPERF")/netsurvey}
lab plan >"$WORK/plan.yaml"
if "$NETSURVEY" check "$WORK/plan.yaml"; then pass "lab plan: a valid plan"; else
    cat "$WORK/plan.yaml"
    fail "lab plan is not a valid plan"
fi

# sshd per host: key-only, known host keys (StrictHostKeyChecking yes in ssh_config)
for z in 1 2 3; do
    for h in 1 2; do
        name=$(lab_ssh "z${z}h$h" hostname) || true
        [[ $name == "z${z}h$h" ]] && pass "ssh z${z}h$h: hostname $name" || fail "ssh z${z}h$h: '$name'"
    done
done
lab_ssh "$P-z1h1" 'echo one >/tmp/mark && echo one >/root/mark' || fail "write in z1h1"
[[ $(lab_ssh z1h2 'cat /tmp/mark /root/mark 2>/dev/null; true') == "" ]] &&
    pass "/tmp and /root are private to a host" || fail "z1h2 sees z1h1's files"
[[ $(lab_ssh z1h1 'cat /tmp/mark') == one ]] && pass "a host keeps its /tmp" || fail "z1h1 /tmp"
[[ ! -e /tmp/mark ]] || fail "the host's /tmp is the machine's"
if lab_ssh -o PreferredAuthentications=password,keyboard-interactive z2h1 true 2>/dev/null; then
    fail "login without the key was accepted"
else pass "no login without the key"; fi
if ssh -F "$NSLAB_DIR/ssh_config" -o UserKnownHostsFile=/dev/null z2h1 true 2>/dev/null; then
    fail "an unknown host key was accepted"
else pass "unknown host keys are refused"; fi

# the data path, within a zone and across zones
tcp_connects z1h1 198.19.1.2 22 && fail "sshd must not listen on the data address" || true
timeout 20 "$LAB" exec z1h2 -- "$NSPERF" -s -B 198.19.1.2 -1 --idle-timeout 10 >/dev/null 2>&1 &
wait_listen "$P-z1h2" 198.19.1.2:5301 || fail "nsperf server in z1h2"
timeout 20 "$LAB" exec z1h1 -- "$NSPERF" -c 198.19.1.2 --test tcp_rr -t 1 --warmup 0 -J \
    >"$WORK/same.json" && pass "data path within zone 1" || fail "data path z1h1 -> z1h2"
wait
timeout 20 "$LAB" exec z3h2 -- "$NSPERF" -s -B 198.19.3.2 -1 --idle-timeout 10 >/dev/null 2>&1 &
wait_listen "$P-z3h2" 198.19.3.2:5301 || fail "nsperf server in z3h2"
timeout 20 "$LAB" exec z2h1 -- "$NSPERF" -c 198.19.3.2 --test tcp_rr -t 1 --warmup 0 -J \
    >"$WORK/cross.json" && pass "data path zone 2 -> zone 3" || fail "data path z2h1 -> z3h2"
wait
jq -e '.result.rtt_us.min >= 400' "$WORK/cross.json" >/dev/null &&
    pass "2-3 RTT at least the configured 400 us" || fail "2-3 RTT $(jq .result.rtt_us "$WORK/cross.json")"

# cut and restore: a listener in z2h1 on its data address; zone 1 cannot reach it, zone 3 can
timeout 30 "$LAB" exec z2h1 -- "$NSPERF" -s -B 198.19.2.1 --idle-timeout 25 >/dev/null 2>&1 &
srv=$!
wait_listen "$P-z2h1" 198.19.2.1:5301 || fail "nsperf server in z2h1"
tcp_connects z1h1 198.19.2.1 5301 && pass "1 -> 2 before the cut" || fail "1 -> 2 before the cut"
lab cut 1-2 >/dev/null
tcp_connects z1h1 198.19.2.1 5301 && fail "1 -> 2 passes while cut" || pass "1 -> 2 cut"
tcp_connects z1h2 198.19.2.1 5301 && fail "1 -> 2 (z1h2) passes while cut" || pass "1 -> 2 cut for every host"
tcp_connects z3h1 198.19.2.1 5301 && pass "3 -> 2 unaffected" || fail "3 -> 2 affected by the cut of 1-2"
[[ $(lab status) == *"cut: 1-2"* ]] && pass "status shows the cut" || fail "status does not show the cut"
lab restore 1-2 >/dev/null
tcp_connects z1h1 198.19.2.1 5301 && pass "1 -> 2 restored" || fail "1 -> 2 after restore"
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null || true

# sshd faults
lab kill-sshd z2h1 >/dev/null
lab_ssh z2h1 true 2>/dev/null && fail "ssh z2h1 works after kill-sshd" || pass "kill-sshd: z2h1 unreachable"
lab status >/dev/null && fail "status says all up with z2h1's sshd killed" || pass "status reports the dead sshd"
lab start-sshd z2h1 >/dev/null
[[ $(lab_ssh z2h1 hostname) == z2h1 ]] && pass "start-sshd: z2h1 back" || fail "z2h1 after start-sshd"

t0=$(date +%s%N)
lab down >/dev/null
echo "tear-down: $((($(date +%s%N) - t0) / 1000000)) ms"
expect_clean "down"
lab down >/dev/null && pass "down again is fine" || fail "a second down failed"
[[ $(timeout 10 "$LAB" status) == *down* ]] && pass "status: down" || fail "status after down"

# a bastion: its own sshd and user; each host's login user exists there only; root tooling as before
BSPEC=("${SPEC[@]}" --bastion)
t0=$(date +%s%N)
lab up "${BSPEC[@]}" >/dev/null || fail "lab up --bastion"
echo "bring-up of 3 x 2 with a bastion: $((($(date +%s%N) - t0) / 1000000)) ms"
[[ $(lab up "${BSPEC[@]}") == *"already up"* ]] && pass "a second identical up --bastion is a no-op" ||
    fail "second up --bastion was not a no-op"
out=$(lab status) && [[ $out =~ $P-bastion\ +-\ +198\.18\.0\.2\ +-\ +up ]] &&
    pass "status: all up, the bastion's sshd too" || fail "status with a bastion: $out"
[[ $(lab_ssh bastion hostname) == bastion ]] && pass "ssh bastion: hostname bastion" || fail "ssh bastion"
[[ $(lab_ssh z3h2 hostname) == z3h2 ]] && pass "root tooling unchanged beside the bastion" ||
    fail "ssh z3h2 as root with a bastion"
eval "$(lab env)"
[[ $(lab_ssh z2h1 "id -u ${NSLAB_USER:-none}") == "$NSLAB_USER_UID" ]] &&
    [[ $(lab_ssh bastion "id -u ${NSLAB_BASTION_USER:-none}") == "$NSLAB_BASTION_UID" ]] &&
    pass "login users on the hosts ($NSLAB_USER) and the bastion ($NSLAB_BASTION_USER)" ||
    fail "the login users are missing inside the lab"
[[ $(lab_users) == "$USERS_BEFORE" ]] && pass "the machine's /etc/passwd and /etc/group do not name them" ||
    fail "lab users in the machine's files: $(lab_users)"
lab up "${SPEC[@]}" >/dev/null || fail "lab up without the bastion"
[[ -z $(ip netns list | grep "^$P-bastion") && -z $(ip -o link show | grep " $P-bast[@:]") ]] &&
    pass "a lab without a bastion replaces one with it" || fail "the bastion survived an up without it"
lab up "${BSPEC[@]}" >/dev/null || fail "lab up --bastion again"
lab down >/dev/null
expect_clean "down (bastion)"

# an interrupted bring-up, and a failed one (both with a bastion), leave nothing behind
timeout 60 "$LAB" up "${BSPEC[@]}" >/dev/null 2>&1 &
up=$!
sleep 0.4
kill -TERM "$up" 2>/dev/null || true
wait "$up" 2>/dev/null || true
# whatever the moment of the interrupt, the trap or a completed up: down cleans it all
lab down >/dev/null
expect_clean "interrupted up, then down"
NSLAB_DELAY=/bin/false timeout 60 "$LAB" up "${BSPEC[@]}" >/dev/null 2>&1 &&
    fail "up with a failing delay line succeeded" || pass "up fails when the delay line does"
expect_clean "failed up"
finish
