#!/bin/sh
# pg_cluster.sh start|stop STATE_DIR - a throw-away PostgreSQL cluster for the history database's
# tests (ctest fixture history_pg: FIXTURES_SETUP / FIXTURES_CLEANUP).
#
# start: initdb and pg_ctl in a fresh temporary directory (short, so that its Unix socket path
# fits), as an unprivileged user (postgres, else nobody, when run as root; initdb refuses root),
# listening on that socket only (listen_addresses ''), trust authentication, no fsync. Writes
# STATE_DIR/url (a postgresql:// URL naming the socket directory and the role "ns", a superuser)
# and STATE_DIR/cluster (the temporary directory). Without PostgreSQL's server (initdb): as root,
# where .ci/install puts it, the setup fails; otherwise it writes STATE_DIR/skip with the reason,
# which test_db.py turns into a skip (exit 77) rather than a silent pass.
# stop: pg_ctl stop and the temporary directory removed.
set -eu
cmd=${1:?start or stop}
state=${2:?state directory}
mkdir -p "$state"
# NS_PG_BIN: where initdb and pg_ctl are (default: the newest /usr/lib/postgresql/*/bin)
bin=
for d in ${NS_PG_BIN:-/usr/lib/postgresql/*/bin}; do
    [ -x "$d/initdb" ] && bin=$d
done

as_user() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "$pguser" -- "$@"
    else
        "$@"
    fi
}

pguser=$(id -un)
if [ "$(id -u)" = 0 ]; then
    pguser=nobody
    getent passwd postgres >/dev/null 2>&1 && pguser=postgres
fi

stop_recorded() {
    [ -f "$state/cluster" ] || return 0
    dir=$(cat "$state/cluster")
    if [ -n "$bin" ] && [ -d "$dir/data" ]; then
        as_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    case "$dir" in /tmp/nspg.*) rm -rf "$dir" ;; esac
    rm -f "$state/cluster" "$state/url"
}

case "$cmd" in
start)
    # a cluster this state still records (a start run again, as ctest --repeat does) is stopped
    # first: one cluster per state directory, never one left running
    stop_recorded
    rm -f "$state/url" "$state/skip" "$state/cluster"
    if [ -z "$bin" ]; then
        why="PostgreSQL's server is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql, as .ci/install does)"
        if [ "$(id -u)" = 0 ]; then
            echo "pg_cluster: $why" >&2
            exit 1
        fi
        echo "$why" >"$state/skip"
        echo "pg_cluster: $why: the PostgreSQL tests will be skipped" >&2
        exit 0
    fi
    dir=$(mktemp -d /tmp/nspg.XXXXXX)
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown "$pguser" "$dir"
    as_user "$bin/initdb" -D "$dir/data" -A trust -U ns -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        rm -rf "$dir"
        exit 1
    }
    as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
        -o "-c listen_addresses='' -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null || {
        cat "$dir/log" >&2
        rm -rf "$dir"
        exit 1
    }
    echo "$dir" >"$state/cluster"
    echo "postgresql://ns@/postgres?host=$dir" >"$state/url"
    echo "pg_cluster: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $dir"
    ;;
stop)
    stop_recorded
    ;;
*)
    echo "usage: pg_cluster.sh start|stop STATE_DIR" >&2
    exit 2
    ;;
esac
