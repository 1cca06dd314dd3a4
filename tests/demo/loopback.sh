#!/usr/bin/env bash
# The main job until the survey runner lands: nsperf measures this machine's loopback with every
# test kind, the way the orchestrator will drive it on real hosts (one-shot server, token file,
# JSON result), and netsurvey shows the schedule of the embedded default plan.
# Usage: tests/demo/loopback.sh [BUILD_DIR]   (default build/dev)
set -euo pipefail
build=${1:-build/dev}
nsperf=$build/bin/nsperf
netsurvey=$build/bin/netsurvey
out=${DEMO_OUT:-results/loopback-demo}
mkdir -p "$out"
token=$(mktemp)
trap 'rm -f "$token"' EXIT
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=5301
while ! port_free "$port"; do port=$((port + 1)); done

wait_listen() {   # until the one-shot server listens (probing it would use up its one test)
    for _ in $(seq 50); do
        ss -Hltn "sport = :$port" | grep -q . && return 0
        sleep 0.1
    done
    echo "nsperf server did not start on port $port" >&2
    return 1
}

client() {   # one test against a fresh one-shot server; extra args go to the client
    "$nsperf" -s -1 -B 127.0.0.1 -p "$port" --token-file "$token" &
    local spid=$!
    wait_listen
    local rc=0
    "$nsperf" -c 127.0.0.1 -p "$port" --token-file "$token" -t 2 --warmup 0.5 "$@" || rc=$?
    wait "$spid" || true
    return "$rc"
}

run_kind() {
    local kind=$1; shift
    echo "=== nsperf --test $kind $*"
    client --test "$kind" "$@"
    client --test "$kind" -J "$@" > "$out/$kind.json"
}

run_kind tcp_stream -P 2
run_kind udp_stream -b 100M
run_kind tcp_rr -l 64
run_kind udp_rr -l 64
run_kind tcp_crr
if [ -x "$netsurvey" ]; then
    echo "=== netsurvey plan (embedded default plan)"
    "$netsurvey" plan
fi
echo "JSON results written to $out/"
