#!/bin/sh
# bench_sshg.sh [BUILD_DIR] - 200 ssh config aliases must resolve within 2 s (issue 26): every
# one by the operator's own `ssh -G`, run once per distinct destination, 8 at a time.
#
# Generates an ssh config of NS_BENCH_ALIASES (default 200) aliases, each with its HostName, a
# User and a ProxyJump to one bastion from a pattern block (so each host is a chain of two hops),
# and a plan taking them with `hosts_from: {format: ssh_config}`. Prints the wall and CPU time of
#   check        the plan: each alias's data address (`ssh -G -F CONFIG ALIAS`, 200 runs)
#   plan --json  the same, then every host resolved as the transport resolves it, jump host
#                included (NETSURVEY_SSH_CONFIG=CONFIG; 200 + 1 + 1 runs: the bastion once,
#                ssh's defaults once)
# and, for scale, the 200 `ssh -G` runs of check one after the other.
# The limit (2 s) applies to the wall time of check; the machine's load stretches every figure
# (see `uptime` below). Not a ctest test: timings belong to a quiet machine.
# Needs GNU time as /usr/bin/time (Debian/Ubuntu: apt-get install time) and an ssh client.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/dev}
bin=$build/bin/netsurvey
n=${NS_BENCH_ALIASES:-200}
max_s=2.0

if [ ! -x "$bin" ]; then
    echo "bench_sshg: no netsurvey at $bin; build first or pass BUILD_DIR" >&2
    exit 2
fi
command -v ssh >/dev/null || { echo "bench_sshg: no ssh (apt-get install openssh-client)" >&2; exit 2; }
if ! /usr/bin/time -f %e true >/dev/null 2>&1; then
    echo "bench_sshg: GNU time is missing as /usr/bin/time; install it (apt-get install time)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
    printf 'Host bastion\n    HostName 198.51.100.1\n    User jump\n\n'
    i=0
    while [ "$i" -lt "$n" ]; do
        printf 'Host vm%03d\n    HostName 10.%d.%d.%d\n' "$i" $((i / 65536)) $((i / 256 % 256)) $((i % 256 + 1))
        i=$((i + 1))
    done
    printf '\nHost vm*\n    User azureuser\n    ProxyJump bastion\n'
} >"$tmp/ssh_config"
cat >"$tmp/plan.yaml" <<EOF
name: bench-sshg
hosts_from:
  - {file: ssh_config, format: ssh_config, match: "vm*"}
zones:
  "*": "1"
scenarios:
  - {name: latency, test: tcp_rr}
EOF
echo "ssh config: $n aliases behind one bastion; $(ssh -V 2>&1); $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
# measure NAME ARGS...: netsurvey ARGS, its wall and CPU time (children included: the ssh runs)
measure() {
    name=$1
    shift
    NETSURVEY_SSH_CONFIG=$tmp/ssh_config /usr/bin/time -f '%e %U %S' -o "$tmp/time" \
        "$bin" "$@" >"$tmp/out" 2>"$tmp/err" || {
        echo "bench_sshg: netsurvey $* failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    }
    read -r wall user sys <"$tmp/time"
    printf '%-12s wall %5.2f s  cpu %5.2f s\n' "$name" "$wall" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
}

measure check check "$tmp/plan.yaml"
check_wall=$wall
measure "plan --json" plan --json "$tmp/plan.yaml"
resolved=$(grep -o '"hostname":"10\.[0-9.]*"' "$tmp/out" | wc -l)
echo "plan --json: $resolved of $n hosts resolved to their HostName"
[ "$resolved" -eq "$n" ] || { echo "bench_sshg: FAILED: not every host resolved" >&2; fail=1; }

# for scale: the same ssh -G runs one after the other
start=$(date +%s%N)
i=0
while [ "$i" -lt "$n" ]; do
    ssh -G -T -F "$tmp/ssh_config" -- "vm$(printf %03d "$i")" >/dev/null </dev/null
    i=$((i + 1))
done
ns=$(($(date +%s%N) - start))
echo "$n ssh -G one after the other: $(awk -v ns="$ns" 'BEGIN { printf "%.2f", ns / 1e9 }') s" \
    "($(awk -v ns="$ns" -v n="$n" 'BEGIN { printf "%.1f", ns / n / 1e6 }') ms each)"
ok=$(awk -v w="$check_wall" -v m="$max_s" 'BEGIN { print (w < m) ? "ok" : "TOO SLOW" }')
echo "$n aliases resolved in $check_wall s (limit $max_s s): $ok"
[ "$ok" = ok ] || fail=1
uptime
exit "$fail"
