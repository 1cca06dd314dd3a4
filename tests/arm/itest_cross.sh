#!/usr/bin/env bash
# itest_cross.sh X86_NSPERF AARCH64_NSPERF - the aarch64 nsperf-static (run by qemu-user-static
# through binfmt_misc) against the x86-64 one on loopback: x86 client -> aarch64 server and
# aarch64 client -> x86 server, tcp_stream and tcp_rr, each a real test with the token the
# orchestrator uses. Asserts that each ran and what it recorded: no error, the kind's figures
# present and positive, each side's machine as reported (`host.local/remote.machine`), `nsperf
# env` of the aarch64 one; never a speed (emulation makes its CPU slow). About 10 s.
set -Eeuo pipefail
X86=$1
ARM=$2
source "$(dirname "$0")/aarch64_test.sh"
need_aarch64 "$ARM"
command -v jq >/dev/null || {
    echo "FAIL: no jq"
    exit 1
}
WORK=$(mktemp -d /tmp/ns-cross.XXXXXX)
SRV=""
cleanup() {
    [[ -z $SRV ]] || kill "$SRV" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
FAILS=0
fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}
pass() { echo "ok: $*"; }
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/token"
echo >>"$WORK/token"

[[ $("$X86" --version) == $("$ARM" --version) ]] && pass "same version: $("$ARM" --version)" ||
    fail "versions differ: $("$X86" --version) / $("$ARM" --version)"
"$ARM" env --cloud off >"$WORK/env.json" 2>"$WORK/env.err" || fail "aarch64 nsperf env: $(cat "$WORK/env.err")"
jq -e '.machine == "aarch64" and (.kernel | length > 0) and .nsperf_version != null' \
    "$WORK/env.json" >/dev/null && pass "aarch64 nsperf env: machine aarch64" ||
    fail "aarch64 nsperf env: $(cat "$WORK/env.json")"

# one SERVER_BIN CLIENT_BIN KIND SERVER_MACHINE CLIENT_MACHINE CHECK: a test, both ends checked
one() {
    local sbin=$1 cbin=$2 kind=$3 smach=$4 cmach=$5 check=$6 port="" line t0 rc=0 what
    what="$cmach client -> $smach server, $kind"
    t0=$(date +%s%N)
    # -p 0: the kernel's port, told on the server's first line (no fixed port to collide on)
    coproc SERVER { exec timeout 120 "$sbin" -s -B 127.0.0.1 -p 0 -1 --idle-timeout 60 \
        --token-file "$WORK/token" 2>"$WORK/server.err"; }
    SRV=$SERVER_PID
    if read -r -t 60 line <&"${SERVER[0]}"; then
        port=$(jq -r 'select(.event == "listening") | .port' <<<"$line" 2>/dev/null || true)
    fi
    if [[ -z $port ]]; then
        fail "$what: the server did not listen: $(cat "$WORK/server.err")"
        kill "$SRV" 2>/dev/null || true
        wait "$SRV" 2>/dev/null || true
        SRV=""
        return
    fi
    timeout 120 "$cbin" -c 127.0.0.1 -p "$port" --test "$kind" -t 1 --warmup 0.2 -J \
        --token-file "$WORK/token" >"$WORK/out.json" 2>"$WORK/client.err" || rc=$?
    wait "$SRV" || fail "$what: the server exited with $?: $(cat "$WORK/server.err")"
    SRV=""
    if ((rc != 0)); then
        fail "$what: the client exited with $rc: $(cat "$WORK/client.err")"
        return
    fi
    if jq -e --arg k "$kind" --arg s "$smach" --arg c "$cmach" '.error == null and .test == $k and
        .host.local.machine == $c and .host.remote.machine == $s and ('"$check"')' \
        "$WORK/out.json" >/dev/null; then
        pass "$what: recorded ($(((($(date +%s%N) - t0) / 1000000))) ms)"
    else
        fail "$what: $(jq -c '{error, test, host, result}' "$WORK/out.json" | cut -c1-600)"
    fi
}
STREAM='.result.throughput_bps > 0 and .result.bytes > 0 and (.result.streams | length) == 1'
RR='.result.transactions > 0 and .result.transactions_per_s > 0 and .result.rtt_us.n > 0 and
    .result.rtt_us.p50 > 0 and .result.rtt_us.min <= .result.rtt_us.p50 and
    .result.rtt_us.p50 <= .result.rtt_us.max'
one "$ARM" "$X86" tcp_stream aarch64 x86_64 "$STREAM"
one "$X86" "$ARM" tcp_stream x86_64 aarch64 "$STREAM"
one "$ARM" "$X86" tcp_rr aarch64 x86_64 "$RR"
one "$X86" "$ARM" tcp_rr x86_64 aarch64 "$RR"
if ((FAILS)); then
    echo "$FAILS check(s) failed"
    exit 1
fi
echo "all checks passed"
