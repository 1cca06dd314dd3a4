#!/bin/bash
# env_default_route.sh - `nsperf env`'s "default_route" (what a survey learns a host's data
# address from when the plan gives none), read in a network namespace this test makes and
# removes: no default route (null), one address, two (both listed: the survey calls that
# ambiguous), IPv6 only (link-local left out), two default routes (the lower metric's). Both
# ends of the veth pair stay inside the namespace: nothing outside it changes. Root only.
#
#   env_default_route.sh NSPERF
set -u
nsperf=$1
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (network namespaces)"
    exit 77
fi
ns=nspf-env-$$
fails=0
cleanup() { ip netns del "$ns" 2>/dev/null; }
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
route() { ip netns exec "$ns" "$nsperf" env | jq -c .default_route; }
expect() { # expect WHAT JSON
    local got
    got=$(route)
    [ "$got" = "$2" ] || fail "$1: default_route is $got, expected $2"
}

ip netns add "$ns" || exit 1
ip -n "$ns" link add v0 type veth peer name v1 || exit 1
ip -n "$ns" link set v0 up && ip -n "$ns" link set v1 up || exit 1

expect "no default route" null

ip -n "$ns" addr add 10.255.61.2/24 dev v0
ip -n "$ns" route add default via 10.255.61.1
expect "one address" '{"family":"ipv4","interface":"v0","gateway":"10.255.61.1","addresses":["10.255.61.2"]}'

ip -n "$ns" addr add 10.255.61.3/24 dev v0
expect "two addresses" '{"family":"ipv4","interface":"v0","gateway":"10.255.61.1","addresses":["10.255.61.2","10.255.61.3"]}'

ip -n "$ns" addr add 10.255.62.2/24 dev v1
ip -n "$ns" route del default
ip -n "$ns" route add default via 10.255.62.1 dev v1 metric 50
ip -n "$ns" route add default via 10.255.61.1 dev v0 metric 100
expect "two default routes: the lower metric" '{"family":"ipv4","interface":"v1","gateway":"10.255.62.1","addresses":["10.255.62.2"]}'

while ip -n "$ns" -4 route show default | grep -q .; do ip -n "$ns" -4 route del default || break; done
ip -n "$ns" -6 addr add fd77::2/64 dev v0 nodad
ip -n "$ns" -6 route add default via fd77::1 dev v0
expect "IPv6 only, link-local left out" '{"family":"ipv6","interface":"v0","gateway":"fd77::1","addresses":["fd77::2"]}'

if [ $fails -gt 0 ]; then
    echo "$fails check(s) failed" >&2
    exit 1
fi
echo ok
