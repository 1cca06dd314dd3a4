#!/usr/bin/env python3
"""itest_cloud_places.py - `zone: auto` / `region: auto` in a survey: netsurvey run with local
hosts inside a network namespace this test makes (nscloud-*), whose 169.254.169.254 is the AWS
stand-in metadata service (tests/nsperf/cloud_standin.py, IMDSv2); NSPERF_CLOUD=probe makes the
hosts' `nsperf env` ask it (this machine's firmware names no cloud), with a budget of 5 s
(a loaded machine's stand-in can be slower than the 0.5 s default). Checks: auto hosts placed
from the metadata before the first test (run.json, the trial records), a stated zone that
differs warned about (stderr, run.json, the report) and kept, the report's cloud columns and
`report --by zone_id`, cross-zone pairs made from the placed zones,
and a namespace without a service stopping the run before any test, naming the hosts.
Root only (exit 77 otherwise).

    itest_cloud_places.py NETSURVEY NSPERF
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

NETSURVEY, NSPERF = (os.path.abspath(a) for a in sys.argv[1:3])
HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "..", "nsperf", "cloud_standin.py")
PREFIX = f"nscloud-s{os.getpid()}-"
made, fails = [], []

PLAN_MIXED = """name: cloud-mixed
hosts:
  - {name: a, transport: local, data_address: 127.0.0.1, zone: auto, region: auto}
  - {name: b, transport: local, data_address: 127.0.0.2, zone: auto, region: us-east-1}
  - {name: c, transport: local, data_address: 127.0.0.3, zone: "1", region: westus3}
scenarios:
  - {name: lat, test: tcp_rr, duration: 1s, warmup: 0s}
pairs: all
directions: one
"""
PLAN_CROSS = """name: cloud-cross
hosts:
  - {name: a, transport: local, data_address: 127.0.0.1, zone: auto, region: auto}
  - {name: b, transport: local, data_address: 127.0.0.2, zone: auto, region: auto}
  - {name: c, transport: local, data_address: 127.0.0.3, zone: "2", region: us-east-1}
scenarios:
  - {name: lat, test: tcp_rr, duration: 1s, warmup: 0s}
pairs: cross-zone
"""


def sh(*args, **kw):
    kw.setdefault("check", True)
    return subprocess.run(args, **kw)


def ns_make(name):
    ns = PREFIX + name
    sh("ip", "netns", "add", ns)
    made.append(ns)
    sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh("ip", "-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
    sh("ip", "-n", ns, "addr", "add", "169.254.169.254/16", "dev", "v0")
    sh("ip", "-n", ns, "link", "set", "v0", "up")
    sh("ip", "-n", ns, "link", "set", "v1", "up")
    return ns


def expect(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, expected {want!r}")


def run(ns, work, plan_text, name):
    plan = os.path.join(work, name + ".yaml")
    with open(plan, "w") as f:
        f.write(plan_text)
    out = os.path.join(work, name)
    r = sh("ip", "netns", "exec", ns, NETSURVEY, "run", plan, "-o", out, "-q", "--nsperf", NSPERF,
           capture_output=True, text=True, check=False, timeout=300,
           env=dict(os.environ, NSPERF_CLOUD="probe", NSPERF_CLOUD_BUDGET_MS="5000",
                    NETSURVEY_GNUPLOT="/nonexistent"))
    with open(os.path.join(out, "run.json")) as f:
        doc = json.load(f)
    trials = []
    results = os.path.join(out, "results.jsonl")
    if os.path.exists(results):
        with open(results) as f:
            trials = [json.loads(line) for line in f if line.strip()]
    return r, doc, trials, plan


def hosts_of(doc):
    return {h["name"]: h for h in doc["hosts"]}


def check_mixed(ns, work):
    r, doc, trials, plan = run(ns, work, PLAN_MIXED, "mixed")
    expect("mixed: exit status", r.returncode, 0)
    h = hosts_of(doc)
    for name in "ab":
        got = {k: h[name].get(k) for k in ("zone", "region", "zone_id", "zone_warning")}
        expect(f"mixed: host {name}", got, {"zone": "us-east-1a", "region": "us-east-1",
                                            "zone_id": "use1-az6", "zone_warning": None})
    expect("mixed: host c's place (the plan's stands)", (h["c"]["zone"], h["c"]["region"]),
           ("1", "westus3"))
    warn = h["c"].get("zone_warning") or ""
    for part in ("zone '1'", "'us-east-1a'", "region 'westus3'", "'us-east-1'"):
        if part not in warn:
            fails.append(f"mixed: c's zone_warning lacks {part}: {warn!r}")
    line = [ln for ln in r.stderr.splitlines() if "warning: c:" in ln]
    if not line or "'1'" not in line[0] or "'us-east-1a'" not in line[0]:
        fails.append(f"mixed: no warning naming c and both zones on stderr: {r.stderr!r}")
    if any("warning: a:" in ln or "warning: b:" in ln for ln in r.stderr.splitlines()):
        fails.append(f"mixed: a placed host warned about: {r.stderr!r}")
    expect("mixed: trials", len(trials), 3)
    for t in trials:
        for end in ("src", "dst"):
            want = "1" if t[end]["host"] == "c" else "us-east-1a"
            expect(f"mixed: trial {t['src']['host']}->{t['dst']['host']} {end} zone",
                   t[end]["zone"], want)
    check_reports(os.path.dirname(plan), os.path.join(os.path.dirname(plan), "mixed"))
    # the dry run, before any host is asked: auto stays auto
    dry = sh(NETSURVEY, "plan", "--json", plan, capture_output=True, text=True)
    a = json.loads(dry.stdout)["hosts"][0]
    expect("plan --json: host a", (a["zone"], a["region"], a.get("zone_from_host"),
                                   a.get("region_from_host")), ("auto", "auto", True, True))
    expect("check accepts auto", sh(NETSURVEY, "check", "-q", plan, check=False).returncode, 0)


def check_reports(work, run_dir):
    """The host table's cloud columns and the zone warning; --by zone_id grouping by the
    metadata's physical zone (every host has one here), and refusing where hosts have none."""
    with open(os.path.join(run_dir, "report.md")) as f:
        md = f.read()
    row = [ln for ln in md.splitlines() if ln.startswith("| a | us-east-1 |")]
    if len(row) != 1 or "| us-east-1a | use1-az6 | aws | c6in.xlarge |" not in row[0]:
        fails.append(f"report.md: host a's row lacks zone id, provider, instance type: {row}")
    if not any(ln.startswith("- ⚠ c: ") and "us-east-1a" in ln for ln in md.splitlines()):
        fails.append("report.md: no zone warning for c")
    out = os.path.join(work, "by-zone-id")
    r = sh(NETSURVEY, "report", run_dir, "--by", "zone_id", "-o", out, capture_output=True,
           text=True, check=False, env=dict(os.environ, NETSURVEY_GNUPLOT="/nonexistent"))
    expect("report --by zone_id: exit status", (r.returncode, r.stderr), (0, r.stderr))
    if r.returncode == 0:
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        expect("report --by zone_id: zones", [(z["zone"], z["hosts"]) for z in summary["zones"]],
               [("use1-az6", 2), ("use1-az6", 1)])  # two regions: us-east-1 (a, b), westus3 (c)
        expect("report --by zone_id: zones_by", summary.get("zones_by"), "zone_id")
    fixture = os.path.join(HERE, "..", "fixtures", "journals", "basic")
    r = sh(NETSURVEY, "report", fixture, "--by", "zone_id", "-o", os.path.join(work, "refused"),
           capture_output=True, text=True, check=False)
    expect("report --by zone_id without zone ids: exit status", r.returncode, 2)
    if "no zone id for hosts 'zone1-vm', 'zone1-vm-b', 'zone2-vm', 'zone3-vm'" not in r.stderr:
        fails.append(f"report --by zone_id: refusal does not name the hosts: {r.stderr!r}")


def check_cross(ns, work):
    r, doc, trials, plan = run(ns, work, PLAN_CROSS, "cross")
    expect("cross: exit status", r.returncode, 0)
    names = [h["name"] for h in doc["hosts"]]
    pairs = sorted((names[s], names[d]) for s, d in doc["pairs"])
    # a and b are one zone once placed: only the pairs with c cross zones
    expect("cross: pairs", pairs, [("a", "c"), ("b", "c"), ("c", "a"), ("c", "b")])
    expect("cross: schedule pairs", doc["schedule"]["pairs"], 4)
    expect("cross: trials", sorted((t["src"]["host"], t["dst"]["host"]) for t in trials), pairs)
    dry = sh(NETSURVEY, "plan", "--json", plan, capture_output=True, text=True)
    expect("cross: dry-run tests (each auto host its own zone)", json.loads(dry.stdout)["tests"], 6)


def check_missing(ns, work):
    r, doc, trials, _ = run(ns, work, PLAN_MIXED, "missing")
    expect("missing: exit status", r.returncode, 3)
    if "cannot place hosts 'a', 'b'" not in r.stderr or "'c'" in r.stderr.split("cannot place")[1]:
        fails.append(f"missing: error does not name exactly a and b: {r.stderr!r}")
    expect("missing: trials", trials, [])
    expect("missing: state", doc["state"], "failed")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces)")
        return 77
    work = tempfile.mkdtemp(prefix="nscloud-places-")
    ns = ns_make("aws")
    log = os.path.join(work, "standin.log")
    p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, STANDIN, "aws", log],
                         stdout=subprocess.PIPE, text=True)
    try:
        if p.stdout.readline().strip() != "ready":
            fails.append("the stand-in did not start")
        else:
            check_mixed(ns, work)
            check_cross(ns, work)
        check_missing(ns_make("none"), work)  # nothing at 169.254.169.254:80: refused
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(work, ignore_errors=True)
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    if fails:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    try:
        rc = main()
    finally:
        for n in made:
            subprocess.run(["ip", "netns", "del", n], check=False)
    sys.exit(rc)
