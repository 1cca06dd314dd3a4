#!/usr/bin/env bash
# A survey as a field operator runs it (issue 17), in the region lab: 3 zones x 1 host and a
# bastion (`lab up --bastion`); each host's sshd admits its login user (azureuser) only from the
# bastion's address. The operator is a NON-ROOT user made by this test; the bastion and the users
# are named only in its ~/.ssh/config (HostName in a `Host zZhH` block per host, User and
# ProxyJump in a LATER `Host z*h*` block: the case netsurvey once got wrong), the key is only in
# an ssh-agent, the host keys are in a HASHED known_hosts that OpenSSH itself wrote. The plan
# names the aliases and nothing of ssh.
#
# It fails if: `plan --json`'s hosts[].ssh.resolved differs from `ssh -G` (OpenSSH is the
# oracle); netsurvey dials a host directly (refused for azureuser: the survey would fail) or as
# another user; a trial is not ok; the bastion's log lacks a forwarding to each host; an nsperf
# or an ssh session is left in any namespace; the direct path is NOT refused (OpenSSH and
# netsurvey's preflight both try it: the host's sshd must log the refusal); `check --connect`
# finds a problem. 15-25 s.
source "$(dirname "$0")/labtest.sh"
need_survey
for tool in useradd userdel runuser ssh ssh-agent ssh-add ssh-keygen jq; do
    command -v "$tool" >/dev/null || {
        echo "SKIP: no $tool"
        exit $LAB_SKIP
    }
done
P=$NSLAB_PREFIX
T0=$(date +%s%N)
elapsed() { echo "$((($(date +%s%N) - T0) / 1000000)) ms"; }

op=nslop$$
home=$WORK/op
agent_pid=""
user_made=""
cleanup() {
    if [[ -n $agent_pid ]]; then # ours, by PID; gone before its user is
        kill "$agent_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.05; done
    fi
    if [[ -n $user_made ]]; then
        userdel "$op" >/dev/null 2>&1 || true
        ! getent group "$op" >/dev/null || groupdel "$op" >/dev/null 2>&1 || true
    fi
    lab_test_cleanup
}
trap cleanup EXIT
# as the operator, with nothing of root's environment (the sanitizers' options pass)
as_op() {
    runuser -u "$op" -- env -i HOME="$home" USER="$op" LOGNAME="$op" PATH=/usr/bin:/bin \
        SSH_AUTH_SOCK="$home/agent.sock" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
        ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "$@"
}
jqe() { jq -e "$@" >/dev/null; }
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
# log_mark NS / log_since NS: a host's sshd log from the mark on
declare -A MARK
log_mark() { MARK[$1]=$(wc -l <"$NSLAB_DIR/hosts/$1/sshd.log"); }
log_since() { tail -n +$((MARK[$1] + 1)) "$NSLAB_DIR/hosts/$1/sshd.log" | tr -d '\r'; }

lab up --zones 3 --hosts 1 --rtt "1-2=329us,1-3=597us,2-3=499us" --bastion >/dev/null || {
    fail "lab up --bastion"
    finish
}
eval "$(lab env)"
B=$P-bastion
mapfile -t HOSTS < <(cut -f1 "$NSLAB_DIR/hosts.tsv") # namespaces
echo "lab up: $(elapsed)"

# --- the operator: a user of its own, its key only in an agent -------------------------------
# (made after `lab up` on purpose: useradd replaces the machine's /etc/passwd, which the lab's
# hosts must survive with their own users)
chmod 711 "$WORK"
useradd -M -d "$home" -s /bin/sh -U "$op" || {
    fail "useradd $op"
    finish
}
user_made=1
mkdir -p "$home/.ssh"
chown -R "$op:$op" "$home"
chmod 700 "$home" "$home/.ssh"
check "the operator is not root" [ "$(as_op id -u)" != 0 ]
agent_out=$(as_op ssh-agent -s -a "$home/agent.sock") || fail "ssh-agent"
agent_pid=$(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' <<<"$agent_out")
check "ssh-agent started (pid $agent_pid)" [ -n "$agent_pid" ]
install -o "$op" -g "$op" -m 600 "$NSLAB_USER_IDENTITY" "$home/key"
check "the lab users' key added to the agent" as_op ssh-add -q "$home/key"
rm -f "$home/key"
check "no key file in the operator's home" [ -z "$(find "$home" -type f)" ]

# --- ~/.ssh/config: the only place where the bastion and the users are named -----------------
{
    printf 'Host bastion\n    HostName %s\n    User %s\n' "$NSLAB_BASTION" "$NSLAB_BASTION_USER"
    while IFS=$'\t' read -r _ z h mg _; do printf 'Host z%sh%s\n    HostName %s\n' "$z" "$h" "$mg"; done \
        <"$NSLAB_DIR/hosts.tsv"
    printf 'Host z*h*\n    User %s\n    ProxyJump bastion\n' "$NSLAB_USER"
} >"$home/.ssh/config"
chown "$op:$op" "$home/.ssh/config"
chmod 600 "$home/.ssh/config"

# --- known_hosts written by OpenSSH on first contact, hashed ---------------------------------
first_contact() {
    as_op ssh -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=accept-new \
        -o HashKnownHosts=yes "$@"
}
check "OpenSSH reaches the bastion as $NSLAB_BASTION_USER" \
    [ "$(first_contact bastion 'hostname; id -un' 2>/dev/null | paste -sd' ')" == "bastion $NSLAB_BASTION_USER" ]
for ns in "${HOSTS[@]}"; do
    a=${ns#"$P-"}
    check "OpenSSH reaches $a through the bastion as $NSLAB_USER" \
        [ "$(first_contact "$a" 'hostname; id -un' 2>/dev/null | paste -sd' ')" == "$a $NSLAB_USER" ]
done
kh=$home/.ssh/known_hosts
check "known_hosts: $((${#HOSTS[@]} + 1)) entries, all hashed" \
    [ "$(grep -c '^|1|' "$kh")" == $((${#HOSTS[@]} + 1)) -a "$(grep -vc '^|1|' "$kh")" == 0 ]
check "known_hosts names no address in clear" bash -c "! grep -q '198\.18\.' '$kh'"
for ns in "$B" "${HOSTS[@]}"; do
    addr=$(awk '$1 == "ListenAddress" {sub(/:22$/, "", $2); print $2}' "$NSLAB_DIR/hosts/$ns/sshd_config")
    want=$(cut -d' ' -f1-2 "$NSLAB_DIR/hosts/$ns/ssh_host_ed25519_key.pub")
    got=$(ssh-keygen -F "$addr" -f "$kh" | grep -v '^#' | cut -d' ' -f2-3) || true
    check "known_hosts holds $ns's own key for $addr" [ "$got" == "$want" ]
done

# --- the plan: aliases only; its resolution is OpenSSH's ---------------------------------------
{
    echo "name: lab-operator"
    echo "hosts:"
    while IFS=$'\t' read -r _ z h _ da; do
        printf '  - {name: z%sh%s, address: z%sh%s, data_address: %s, zone: "%s", region: lab}\n' \
            "$z" "$h" "$z" "$h" "$da" "$z"
    done <"$NSLAB_DIR/hosts.tsv"
    cat <<EOF
scenarios:
  - {name: latency, test: tcp_rr, msg_size: 250, duration: 0.3s, warmup: 0.1s}
trials: 1
pairs: all
directions: both
parallel: false
EOF
} >"$home/plan.yaml"
chown "$op:$op" "$home/plan.yaml"
check "the plan says nothing of ssh" bash -c "! grep -qiE 'ssh|user|jump|bastion|198\.18' '$home/plan.yaml'"
as_op "$NETSURVEY" plan --json "$home/plan.yaml" >"$WORK/plan.json" 2>"$WORK/plan.err" ||
    fail "plan --json: $(cat "$WORK/plan.err")"
# ssh_g ALIAS: what `ssh -G` resolves, in the shape of hosts[].ssh.resolved ("~/" is the home)
ssh_g() {
    as_op ssh -G "$1" 2>/dev/null | jq -Rn --arg home "$home" '[inputs | capture("^(?<k>[a-z]+) (?<v>.*)$")]
        | def one($k): map(select(.k == $k) | .v) | first;
          {hostname: one("hostname"), port: (one("port") | tonumber), user: one("user"),
           identity_files: map(select(.k == "identityfile") | .v | sub("^~/"; $home + "/")),
           proxy_jump: ((one("proxyjump") // "") | split(",") | map(select(. != ""))),
           known_hosts_files: (one("userknownhostsfile") | split(" "))}'
}
for ns in "${HOSTS[@]}"; do
    a=${ns#"$P-"}
    want=$(ssh_g "$a" | jq -cS .) || true
    got=$(jq -cS --arg a "$a" '.hosts[] | select(.name == $a) | .ssh.resolved |
        {hostname, port, user, identity_files, proxy_jump, known_hosts_files}' "$WORK/plan.json") || true
    check "plan --json: $a resolved as ssh -G resolves it" [ -n "$want" -a "$got" == "$want" ]
    [[ $got == "$want" ]] || echo "  ssh -G: $want"$'\n'"  netsurvey: $got"
    check "ssh -G $a: user $NSLAB_USER, through the bastion (the later block applied)" \
        jqe --arg u "$NSLAB_USER" '.user == $u and .proxy_jump == ["bastion"]' <<<"$want"
done
check "plan --json: no warning about the config" \
    jqe '[.hosts[].ssh.resolved.warnings // empty] == []' "$WORK/plan.json"
echo "config, known_hosts, plan: $(elapsed)"

# --- the direct path is refused for the login user: OpenSSH, then netsurvey ------------------
for ns in "${HOSTS[@]}"; do log_mark "$ns"; done
a=${HOSTS[0]#"$P-"}
direct_refused() { ! as_op ssh -o BatchMode=yes -o ConnectTimeout=10 -o ProxyJump=none "$1" true 2>/dev/null; }
check "OpenSSH directly (ProxyJump none) to $a as $NSLAB_USER: refused" direct_refused "$a"
sed '/address: /s/^  - {name: \([^,]*\),/  - {name: \1, ssh: {jump: none},/' "$home/plan.yaml" >"$home/direct.yaml"
chown "$op:$op" "$home/direct.yaml"
rc=0
as_op timeout 60 "$NETSURVEY" check "$home/direct.yaml" --connect --json >"$WORK/direct.json" \
    2>"$WORK/direct.err" || rc=$?
check "netsurvey check --connect with jump none: exit 1 (was $rc)" [ "$rc" == 1 ]
check "... every host failed on authentication as $NSLAB_USER" jqe --arg u "$NSLAB_USER" \
    '(.hosts | length) == 3 and all(.hosts[]; .ok == false and .auth.status == "failed" and
        .auth.user == $u)' "$WORK/direct.json"
((rc == 1)) || cat "$WORK/direct.err" "$WORK/direct.json"
for ns in "${HOSTS[@]}"; do
    check "$ns's sshd refused $NSLAB_USER from the main namespace (198.18.0.1)" \
        grep -q "User $NSLAB_USER from 198.18.0.1 not allowed because not listed in AllowUsers" \
        <(log_since "$ns")
done
echo "direct path refused: $(elapsed)"

# --- the preflight through the bastion (deploys the endpoint), then the survey ---------------
rc=0
as_op timeout 120 "$NETSURVEY" check "$home/plan.yaml" --connect --deploy --nsperf-remote "$NSPERF_REMOTE" \
    >"$WORK/check.txt" 2>&1 || rc=$?
check "check --connect --deploy through the bastion: exit 0 (was $rc)" [ "$rc" == 0 ]
check "... every host authenticated as $NSLAB_USER" \
    [ "$(grep -c "ok ($NSLAB_USER)" "$WORK/check.txt")" == "${#HOSTS[@]}" ]
((rc == 0)) || cat "$WORK/check.txt"
for ns in "${HOSTS[@]}"; do
    c=$(find "$NSLAB_DIR/hosts/$ns/home/$NSLAB_USER/.cache/netsurvey" -name 'nsperf-static-*' \
        -uid "$NSLAB_USER_UID" 2>/dev/null | wc -l) || true
    check "$ns: the endpoint deployed in $NSLAB_USER's home" [ "$c" == 1 ]
done
echo "preflight: $(elapsed)"
for ns in "$B" "${HOSTS[@]}"; do log_mark "$ns"; done # the survey's own logins and forwardings
rc=0
as_op timeout 300 "$NETSURVEY" run "$home/plan.yaml" -o "$home/r1" -q --nsperf-remote "$NSPERF_REMOTE" \
    >"$WORK/run.log" 2>&1 || rc=$?
check "survey as $op: exit 0 (was $rc)" [ "$rc" == 0 ]
((rc == 0)) || tail -20 "$WORK/run.log"
n=${#HOSTS[@]}
check "all $((n * (n - 1))) trials ok" jqe -s --argjson t $((n * (n - 1))) \
    'length == $t and all(.status == "ok")' "$home/r1/results.jsonl"
# over the data path: every RTT went through the delay line (never below the zone pair's RTT)
check "every trial over the data path: its minimum RTT at least the configured one" jqe -s '
    {"1-2": 329, "1-3": 597, "2-3": 499} as $rtt
    | all(.[]; (.src.data_address | startswith("198.19.")) and
        .result.rtt_us.min >= $rtt[[.src.zone, .dst.zone] | sort | join("-")])' \
    "$home/r1/results.jsonl"
check "the run directory is the operator's" [ "$(stat -c %U "$home/r1/results.jsonl")" == "$op" ]
for ns in "${HOSTS[@]}"; do
    addr=$(awk '$1 == "ListenAddress" {sub(/:22$/, "", $2); print $2}' "$NSLAB_DIR/hosts/$ns/sshd_config")
    check "the bastion forwarded to $addr:22" \
        grep -qE "direct_tcpip: originator [^ ]+ port [0-9]+, target $addr port 22$" <(log_since "$B")
    check "$ns: logged in as $NSLAB_USER from the bastion" \
        grep -q "Accepted publickey for $NSLAB_USER from $NSLAB_BASTION port" <(log_since "$ns")
    other=$(log_since "$ns" | grep -E "Accepted [a-z-]+ for|for $op " | grep -v "for $NSLAB_USER from $NSLAB_BASTION port" || true)
    check "$ns: no other login (another address or user)${other:+: $other}" [ -z "$other" ]
done
echo "survey: $(elapsed)"

# --- nothing left: in every namespace only the sshd listener -----------------------------------
others() { # others NS: the processes of NS other than its sshd listener
    local p l
    l=$(cat "$NSLAB_DIR/hosts/$1/sshd.pid")
    for p in $(ip netns pids "$1" 2>/dev/null); do
        [[ $p == "$l" ]] || echo "$p:$(cat "/proc/$p/comm" 2>/dev/null)"
    done
}
for ns in "$B" "${HOSTS[@]}"; do
    # the server side of a closed connection ends a moment after the client: up to 5 s
    for _ in $(seq 100); do
        [[ -z $(others "$ns") ]] && break
        sleep 0.05
    done
    left=$(others "$ns" | paste -sd' ')
    check "$ns: no nsperf nor ssh session left${left:+ (left: $left)}" [ -z "$left" ]
done
no_nsperf_left "after the survey"
echo "total: $(elapsed)"
finish
