#!/bin/bash
# sshd_harness.sh - an OpenSSH sshd on a loopback address for the ssh transport's tests and
# benchmark. Key-only login, its own host key, its own HOME for the session (so that deploys
# and `clean` touch DIR/home, not the real home). Stopped by PID, with its connection children.
#
#   sshd_harness.sh keys DIR                 user keys: DIR/id_good (authorised), DIR/id_bad
#   sshd_harness.sh start DIR ADDR PORT KEYS [OWNER]
#                                            start sshd (detached), pid in DIR/sshd.pid;
#                                            stopped too when process OWNER ends; lines in
#                                            $NS_SSHD_EXTRA go first in its sshd_config (the
#                                            first value sshd obtains wins: LogLevel, AllowUsers)
#   sshd_harness.sh stop DIR                 stop it and its connection processes
set -eu

cmd=$1
dir=$2


# Stop the sshd $1: its connection processes first (by parent PID; the programs they ran are the
# tests' business, by PGID), then the listener.
# alive PID: the process exists and has not ended (a zombie has ended)
alive() {
    local st
    st=$(cut -d')' -f2 /proc/"$1"/stat 2>/dev/null) || return 1
    [ -n "$st" ] && [ "${st:1:1}" != Z ]
}
stop_pid() {
    local pid=$1 c
    for c in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
        kill_sshd_tree "$c"
    done
    kill -TERM "$pid" 2>/dev/null || true
    local i=0
    # gone once it is a zombie: its parent is whatever adopted it when `start` ended (pid 1 here,
    # which reaped it only after 1.8 s, and every test stops several sshd's)
    while alive "$pid" && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null || true
}

kill_sshd_tree() {
    local g
    for g in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        [ "$(cat /proc/"$g"/comm 2>/dev/null)" = sshd ] && kill_sshd_tree "$g"
    done
    kill -KILL "$1" 2>/dev/null || true
}

case $cmd in
keys)
    mkdir -p "$dir"
    [ -f "$dir/id_good" ] || ssh-keygen -q -t ed25519 -N '' -C good -f "$dir/id_good"
    [ -f "$dir/id_bad" ] || ssh-keygen -q -t ed25519 -N '' -C bad -f "$dir/id_bad"
    cp "$dir/id_good.pub" "$dir/authorized_keys"
    ;;
start)
    addr=$3
    port=$4
    keys=$5
    mkdir -p "$dir/home" /run/sshd
    [ -f "$dir/host_key" ] || ssh-keygen -q -t ed25519 -N '' -C host -f "$dir/host_key"
    cat >"$dir/sshd_config" <<CONF
${NS_SSHD_EXTRA:-}
ListenAddress $addr:$port
HostKey $dir/host_key
PidFile none
AuthorizedKeysFile $keys/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
AllowTcpForwarding yes
MaxStartups 200
MaxSessions 64
SetEnv HOME=$dir/home
Subsystem sftp internal-sftp
LogLevel ERROR
CONF
    /usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" </dev/null >/dev/null 2>&1 &
    pid=$!
    echo $pid >"$dir/sshd.pid"
    if [ -n "${6:-}" ]; then
        # watchdog: the sshd does not outlive the test process that owns it (a crashed test)
        (
            while kill -0 "$6" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
            stop_pid "$pid"
        ) </dev/null >/dev/null 2>&1 &
    fi
    i=0
    # ready when the port answers with an SSH banner (bounded: 10 s)
    until (exec 3<>/dev/tcp/"$addr"/"$port") 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 200 ]; then
            echo "sshd on $addr:$port did not start:" >&2
            cat "$dir/sshd.log" >&2
            stop_pid "$pid"
            exit 1
        fi
        sleep 0.05
    done
    ;;
stop)
    [ -f "$dir/sshd.pid" ] || exit 0
    stop_pid "$(cat "$dir/sshd.pid")"
    rm -f "$dir/sshd.pid"
    ;;
*)
    echo "usage: $0 keys|start|stop DIR ..." >&2
    exit 2
    ;;
esac
