#!/bin/bash
# itest_sshconfig.sh - a survey as a field operator runs it (issue 17): a NON-ROOT user whose two
# "VMs" accept ssh only as the user the config names and are reached through a bastion named
# only in their ~/.ssh/config (HostName and Port in each host's block, User and ProxyJump from a
# `Host zone*-vm` pattern block after them), the key only in an ssh-agent, host keys in a HASHED
# known_hosts written by OpenSSH itself (ssh-keyscan -H). The plan says nothing of ssh. Three
# sshd's on 127.0.0.71-73 (sshd_harness.sh; root needed to create the user and bind them).
#
# It fails if netsurvey dials a host directly (the bastion's log must show the forwarding, and
# with the bastion stopped the hosts must be unreachable), logs in as the operator instead of
# the config's User (the VMs allow root only), cannot use the agent or the hashed known_hosts,
# or needs to run as root. `plan --json` shows the same resolution.
#
#   itest_sshconfig.sh SOURCE_DIR NETSURVEY NSPERF_STATIC
set -u
src=$1
ns=$2
stat_nsperf=$3
harness=$src/tests/ssh/sshd_harness.sh

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (a user to create, sshd's on loopback addresses)"
    exit 77
fi
for tool in useradd userdel runuser ssh ssh-agent ssh-add ssh-keyscan jq; do
    command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
if [ ! -x "$stat_nsperf" ]; then
    echo "FAIL: no static nsperf at $stat_nsperf" >&2
    exit 1
fi

D=$(mktemp -d /tmp/ns-itest-sshcfg.XXXXXX)
chmod 755 "$D"
op=nsop$$
home=$D/op
addrs=(127.0.0.71 127.0.0.72 127.0.0.73) # bastion, zone1-vm, zone2-vm
ports=()
agent_pid=
user_made=
fails=0

cleanup() {
    if [ -n "$agent_pid" ]; then # ours, by PID; gone before its user is
        kill "$agent_pid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.05; done
    fi
    for i in 0 1 2; do "$harness" stop "$D/s$i" >/dev/null 2>&1; done
    [ -n "$user_made" ] && userdel "$op" >/dev/null 2>&1
    if [ -n "${NS_KEEP:-}" ]; then echo "kept $D (NS_KEEP)" >&2; else rm -rf "$D"; fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else fail "$what"; fi
}
free_port() {
    python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$1"
}
# as the operator, with nothing of root's environment
as_op() {
    runuser -u "$op" -- env -i HOME="$home" USER="$op" LOGNAME="$op" PATH=/usr/bin:/bin \
        SSH_AUTH_SOCK="$home/agent.sock" "$@"
}

# --- the operator: a new user with a home of its own --------------------------------------
useradd -M -d "$home" -s /bin/sh -U "$op" || { echo "FAIL: useradd" >&2; exit 1; }
user_made=1
mkdir -p "$home/.ssh"
chown -R "$op:$op" "$home"
chmod 700 "$home" "$home/.ssh"
check "the operator is not root" [ "$(as_op id -u)" != 0 ]

# --- the sshd's: the VMs admit root only (the config's User), the bastion logs forwardings ----
"$harness" keys "$D/keys" || exit 1
for i in 0 1 2; do
    ports[i]=$(free_port "${addrs[i]}")
    if [ "$i" = 0 ]; then extra="LogLevel DEBUG1"; else extra=$'LogLevel VERBOSE\nAllowUsers root'; fi
    NS_SSHD_EXTRA=$extra "$harness" start "$D/s$i" "${addrs[i]}" "${ports[i]}" "$D/keys" $$ ||
        exit 1
done

# --- the key only in the agent ------------------------------------------------------------
agent_out=$(as_op ssh-agent -s -a "$home/agent.sock") || { echo "FAIL: ssh-agent" >&2; exit 1; }
agent_pid=$(printf '%s\n' "$agent_out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
check "ssh-agent started (pid $agent_pid)" [ -n "$agent_pid" ]
install -o "$op" -g "$op" -m 600 "$D/keys/id_good" "$home/key"
check "key added to the agent" as_op ssh-add -q "$home/key"
rm -f "$home/key"
check "no key file left in the operator's home" [ -z "$(find "$home" -name 'id_*' -o -name key)" ]

# --- known_hosts hashed, as OpenSSH writes it ------------------------------------------------
for i in 0 1 2; do
    as_op ssh-keyscan -H -p "${ports[i]}" "${addrs[i]}" 2>/dev/null >>"$home/.ssh/known_hosts"
done
check "known_hosts holds 3 hashed entries" [ "$(grep -c '^|1|' "$home/.ssh/known_hosts")" = 3 ]
check "known_hosts names no host in clear" \
    bash -c "! grep -q '127\.0\.0\.7' '$home/.ssh/known_hosts'"

# --- the operator's ~/.ssh/config: the only place the bastion and the users are named --------
cat >"$home/.ssh/config" <<EOF
Host zone1-vm
    HostName ${addrs[1]}
    Port ${ports[1]}
Host zone2-vm
    HostName ${addrs[2]}
    Port ${ports[2]}
Host bastion
    HostName ${addrs[0]}
    Port ${ports[0]}
Host zone*-vm
    User root
    ProxyJump bastion
    Ciphers aes128-ctr,aes256-ctr,chacha20-poly1305@openssh.com
Host bastion
    User root
EOF
chown "$op:$op" "$home/.ssh/config" "$home/.ssh/known_hosts"
chmod 600 "$home/.ssh/config"
check "OpenSSH itself reaches zone1-vm with this config" \
    as_op ssh -o BatchMode=yes zone1-vm true

cat >"$home/plan.yaml" <<EOF
name: sshcfg
hosts:
  - {name: zone1-vm, address: zone1-vm, data_address: ${addrs[1]}, zone: "1"}
  - {name: zone2-vm, address: zone2-vm, data_address: ${addrs[2]}, zone: "2"}
scenarios:
  - {name: lat, test: tcp_rr, duration: 0.3s, warmup: 0.1s}
trials: 1
host_timeout: 2s
EOF
chown "$op:$op" "$home/plan.yaml"

# --- plan --json: the resolution ------------------------------------------------------------
as_op "$ns" plan --json "$home/plan.yaml" >"$D/plan.json" 2>"$D/plan.err"
for i in 0 1; do
    want=$(jq -cn --arg h "${addrs[i + 1]}" --argjson p "${ports[i + 1]}" \
        '{hostname: $h, port: $p, user: "root", proxy_jump: ["bastion"]}')
    got=$(jq -c ".hosts[$i].ssh.resolved | {hostname, port, user, proxy_jump}" "$D/plan.json")
    check "plan --json: zone$((i + 1))-vm resolved as $want (got $got)" [ "$got" = "$want" ]
done
check "plan --json: the operator's known_hosts" \
    [ "$(jq -r '.hosts[0].ssh.resolved.known_hosts_files[0]' "$D/plan.json")" = "$home/.ssh/known_hosts" ]

# --- the survey ---------------------------------------------------------------------------
# what the sshd's logged before (OpenSSH's own check above): only later lines count
for i in 0 1 2; do before[i]=$(wc -l <"$D/s$i/sshd.log"); done
since() { tail -n +$((before[$1] + 1)) "$D/s$1/sshd.log" | tr -d '\r'; }
as_op "$ns" run "$home/plan.yaml" -o "$home/r1" -q --nsperf-remote "$stat_nsperf" \
    >"$D/run1.log" 2>&1
rc=$?
check "survey as $op exit 0 (was $rc): $(tail -5 "$D/run1.log")" [ "$rc" = 0 ]
n_ok=$(jq -s '[.[] | select(.status == "ok")] | length' "$home/r1/results.jsonl" 2>/dev/null)
check "both trials ok (got ${n_ok:-none})" [ "${n_ok:-0}" = 2 ]
check "run directory owned by the operator" [ "$(stat -c %U "$home/r1/results.jsonl")" = "$op" ]
warned=$(grep -c "^netsurvey run: warning: zone[12]-vm: algorithm lists are not applied (Ciphers)" \
    "$D/run1.log")
check "the config's Ciphers warned once for both hosts (got $warned)" [ "$warned" = 1 ]
for i in 1 2; do
    since 0 | grep -q "direct_tcpip: originator [^ ]* port [0-9]*, target ${addrs[i]} port ${ports[i]}\$"
    check "during the survey the bastion forwarded to ${addrs[i]}:${ports[i]}" [ $? = 0 ]
    since "$i" | grep -q "Accepted publickey for root from"
    check "host $i: the survey logged in as root (the config's User)" [ $? = 0 ]
    since "$i" | grep -qi "user $op\b\|for $op\b"
    check "host $i: never as $op" [ $? != 0 ]
done

# --- without the bastion, the hosts are unreachable: the path was through it ----------------
"$harness" stop "$D/s0"
as_op "$ns" run "$home/plan.yaml" -o "$home/r2" -q --nsperf-remote "$stat_nsperf" \
    >"$D/run2.log" 2>&1
rc=$?
check "bastion stopped: the survey fails (exit $rc)" [ "$rc" != 0 ]
check "bastion stopped: the reason names the jump host ($(grep -m1 -o 'jump host[^:]*:[^"]*' \
    "$home/r2/results.jsonl" "$D/run2.log" 2>/dev/null | head -1))" \
    grep -q "jump host bastion" "$D/run2.log" "$home/r2/results.jsonl"

if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed" >&2
    for f in "$D"/run*.log "$D/plan.err"; do
        [ -s "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
    done
    exit 1
fi
echo "all checks passed"
