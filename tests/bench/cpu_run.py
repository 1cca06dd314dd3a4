#!/usr/bin/env python3
"""cpu_run.py - one server + one client run, as the benches need it measured.

    cpu_run.py (--ready-line | --port PORT) -- SERVER ARGV... -- CLIENT ARGV...

--ready-line: the server prints {"event":"listening","port":N} when it listens (nsperf -s);
  "{port}" in the client's argv is replaced by N.
--port PORT: the server listens on PORT; it is ready once /proc/net/tcp{,6} shows the LISTEN
  socket (no probe connection: iperf3 -s -1 would take a probe for its one client).

Prints one JSON object: wall_s (from spawning the server to both exits), server_cpu_s and
client_cpu_s (utime + stime from /proc/PID/stat, read when each process has exited but before
it is reaped, so all its threads are in), server_status, client_status, client_out (stdout).
"""
import json
import os
import subprocess
import sys
import time


def cpu_at_exit(pid):
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listening(port):
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                rows = f.readlines()[1:]
        except OSError:
            continue
        for row in rows:
            parts = row.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def wait_port(port, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if listening(port):
            return True
        time.sleep(0.001)
    return False


def ready_port(proc, timeout=10.0):
    os.set_blocking(proc.stdout.fileno(), True)
    line = proc.stdout.readline().decode(errors="replace")
    try:
        return int(json.loads(line)["port"])
    except (ValueError, KeyError, TypeError):
        return 0


def main(argv):
    mode = argv[0]
    rest = argv[1:]
    port = 0
    if mode == "--port":
        port = int(rest[0])
        rest = rest[1:]
    if not rest or rest[0] != "--" or "--" not in rest[1:]:
        sys.exit(__doc__)
    rest = rest[1:]
    i = rest.index("--")
    srv_argv, cli_argv = rest[:i], rest[i + 1:]
    t0 = time.monotonic()
    srv = subprocess.Popen(srv_argv, stdout=subprocess.PIPE if mode == "--ready-line" else
                           subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ok = wait_port(port) if mode == "--port" else False
    if mode == "--ready-line":
        port = ready_port(srv)
        ok = port > 0
    if not ok:
        srv.kill()
        srv.wait()
        print(json.dumps({"error": "the server did not get ready"}))
        return
    cli_argv = [a.replace("{port}", str(port)) for a in cli_argv]
    cli = subprocess.Popen(cli_argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = cli.stdout.read()
    ccpu = cpu_at_exit(cli.pid)
    scpu = cpu_at_exit(srv.pid)
    cst = cli.wait()
    sst = srv.wait()
    wall = time.monotonic() - t0
    print(json.dumps({"wall_s": wall, "server_cpu_s": scpu, "client_cpu_s": ccpu,
                      "server_status": sst, "client_status": cst,
                      "client_out": out.decode(errors="replace")}))


if __name__ == "__main__":
    main(sys.argv[1:])
