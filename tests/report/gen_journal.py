#!/usr/bin/env python3
"""gen_journal.py - craft netsurvey journals (run.json + results.jsonl) in the shape of the
README's section "The journal" (src/journal/record.h), for the report tests and the report
benchmark.

The `result` objects start from real `nsperf -J` results kept in tests/fixtures/journals/nsperf/
(captured on loopback) and are rescaled to the figures a fixture asks for: an RTT histogram is
moved bucket by bucket (its shape stays real), throughput and counters are scaled. Everything is
drawn from a seeded PRNG, so the same command writes the same bytes.

usage: gen_journal.py fixtures OUTDIR        the committed fixtures (tests/fixtures/journals)
       gen_journal.py bench OUTDIR HOSTS TRIALS [cloud|loopback [runs|buckets]]
                                                 a large journal for tests/bench/bench_report.sh
"""
import copy
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "fixtures", "journals", "nsperf")
SUB_BITS = 7  # the committed fixtures: journals of nsperf's old layout, kept to test reading it
LINEAR = 1 << SUB_BITS
HALF = LINEAR // 2
NEW_SUB_BITS = 11  # nsperf's layout now (src/common/hist.h): 1024 buckets per octave to 2^37 ns
NEW_LINEAR = 1 << NEW_SUB_BITS
NEW_HALF = NEW_LINEAR // 2
NEW_MAX_EXP = 36
PCTS = [("p25", 25), ("p50", 50), ("p75", 75), ("p90", 90), ("p99", 99), ("p99_9", 99.9),
        ("p99_99", 99.99), ("p99_999", 99.999)]


def hist_index(v):
    if v < LINEAR:
        return v
    e = v.bit_length() - 1
    top = v >> (e - (SUB_BITS - 1))
    return LINEAR + (e - SUB_BITS) * HALF + (top - HALF)


def bucket_low(idx):
    if idx < LINEAR:
        return idx
    k = idx - LINEAR
    e = k // HALF + SUB_BITS
    top = k % HALF + HALF
    return top << (e - (SUB_BITS - 1))


def new_index(v):
    if v < NEW_LINEAR:
        return v
    e = min(v.bit_length() - 1, NEW_MAX_EXP + 1)
    if e > NEW_MAX_EXP:
        return NEW_LINEAR + (NEW_MAX_EXP - NEW_SUB_BITS + 1) * NEW_HALF - 1
    top = v >> (e - (NEW_SUB_BITS - 1))
    return NEW_LINEAR + (e - NEW_SUB_BITS) * NEW_HALF + (top - NEW_HALF)


def new_low(idx):
    if idx < NEW_LINEAR:
        return idx
    k = idx - NEW_LINEAR
    e = k // NEW_HALF + NEW_SUB_BITS
    top = k % NEW_HALF + NEW_HALF
    return top << (e - (NEW_SUB_BITS - 1))


def rescale_rtt_new(rtt, mean_us, rng, n):
    """rescale_rtt in nsperf's layout now: n values drawn from rtt's (old-layout) distribution,
    each uniform within its old bucket, scaled to mean mean_us and recorded in 1024 buckets per
    octave, so a trial holds as many buckets as nsperf would write for that shape."""
    factor = mean_us / rtt["mean"] * (1.0 + rng.uniform(-0.002, 0.002))
    src = rtt["hist"]["buckets"]
    tot = sum(c for _, c in src)
    counts = {}
    vals = []
    for low, cnt in src:
        w = 1 if low < LINEAR else 1 << (low.bit_length() - 1 - (SUB_BITS - 1))
        for _ in range(cnt * n // tot):
            v = max(1, int((low + rng.random() * w) * factor))
            vals.append(v)
            i = new_index(v)
            counts[i] = counts.get(i, 0) + 1
    total = len(vals)
    mean_ns = sum(vals) / total
    m2 = sum((v - mean_ns) ** 2 for v in vals)
    vals.sort()
    idxs = sorted(counts)

    def pct(q):
        v = vals[max(1, math.ceil(q / 100.0 * total)) - 1]
        i = new_index(v)
        mid = i if i < NEW_LINEAR else (new_low(i) + new_low(i + 1) - 1) / 2.0
        return min(max(mid, vals[0]), vals[-1])

    out = {"n": total, "mean": round(mean_ns / 1e3, 6),
           "stddev": round(math.sqrt(m2 / total) / 1e3, 6), "min": vals[0] / 1e3}
    for k, q in PCTS:
        out[k] = pct(q) / 1e3
    out["max"] = vals[-1] / 1e3
    out["m2_ns2"] = m2
    out["hist"] = {"unit": "ns", "sub_bits": NEW_SUB_BITS,
                   "buckets": [[new_low(i), counts[i]] for i in idxs]}
    return out


def load_sample(kind):
    with open(os.path.join(SAMPLES, kind + ".json")) as f:
        return json.load(f)


def rescale_rtt(rtt, mean_us, rng, n=None):
    """A new rtt_us object whose distribution is rtt's, scaled to mean mean_us."""
    factor = mean_us / rtt["mean"]
    jitter = 1.0 + rng.uniform(-0.002, 0.002)
    counts = {}
    vals = []
    for low, cnt in rtt["hist"]["buckets"]:
        v = max(1, int(round(low * factor * jitter)))
        idx = hist_index(v)
        counts[idx] = counts.get(idx, 0) + cnt
        vals.append((v, cnt))
    if n is not None:  # thin or thicken the counts, keeping the shape
        tot = sum(counts.values())
        counts = {i: c * n // tot for i, c in counts.items() if c * n // tot > 0}
    total = sum(counts.values())
    # Exact moments of the values we say we measured: each bucket's values sit at its low bound.
    mean_ns = sum(bucket_low(i) * c for i, c in counts.items()) / total
    m2 = sum(c * (bucket_low(i) - mean_ns) ** 2 for i, c in counts.items())
    idxs = sorted(counts)
    vmin, vmax = bucket_low(idxs[0]), bucket_low(idxs[-1])

    def pct(q):
        rank = max(1, math.ceil(q / 100.0 * total))
        seen = 0
        for i in idxs:
            seen += counts[i]
            if seen >= rank:
                lo = bucket_low(i)
                hi = bucket_low(i + 1) - 1 if i >= LINEAR else lo
                mid = lo if i < LINEAR else (lo + hi) / 2.0
                return min(max(mid, vmin), vmax)
        return vmax

    out = {"n": total, "mean": round(mean_ns / 1e3, 6),
           "stddev": round(math.sqrt(m2 / total) / 1e3, 6), "min": vmin / 1e3}
    for k, q in PCTS:
        out[k] = pct(q) / 1e3
    out["max"] = vmax / 1e3
    out["m2_ns2"] = m2
    out["hist"] = {"unit": "ns", "sub_bits": SUB_BITS,
                   "buckets": [[bucket_low(i), counts[i]] for i in idxs]}
    return out


def make_result(kind, value, rng, duration, hist_n=None, new_layout=False):
    """nsperf's result for kind with headline `value` (us for rr, Mbit/s for stream, conn/s);
    new_layout: the histogram in nsperf's layout now (hist_n values), else the old one."""
    r = load_sample(kind)
    rescale = rescale_rtt
    if new_layout:
        def rescale(rtt, mean_us, rng_, n):
            return rescale_rtt_new(rtt, mean_us, rng_, n)
    cpu = r["cpu"]
    cpu["local_pct"] = round(rng.uniform(5, 40), 3)
    cpu["remote_pct"] = round(rng.uniform(5, 40), 3)
    r["duration_s"] = duration
    if kind in ("tcp_rr", "udp_rr"):
        r["rtt_us"] = rescale(r["rtt_us"], value, rng, hist_n)
        r["transactions_per_s"] = round(1e6 / r["rtt_us"]["mean"], 3)
        r["transactions"] = r["rtt_us"]["n"]
        r["server_transactions"] = r["rtt_us"]["n"]
        if kind == "udp_rr":
            r["udp"]["sent"] = r["udp"]["received"] = r["rtt_us"]["n"]
            r["udp"]["server_received"] = r["rtt_us"]["n"]
            r["udp"]["jitter_us"] = round(value * 0.01, 3)
    elif kind == "udp_pps":
        pps_result(r, value, rng, duration)
    elif kind == "tcp_crr":
        r["connections_per_s"] = value
        r["connections"] = int(value * duration)
        r["rtt_us"] = rescale(r["rtt_us"], 1e6 / value, rng, hist_n)
    else:
        bps = value * 1e6
        r["throughput_bps"] = bps
        r["bytes"] = r["sender_bytes"] = int(bps / 8 * duration)
        r["streams"][0]["throughput_bps"] = bps
        r["streams"][0]["bytes"] = r["streams"][0]["sender_bytes"] = r["bytes"]
        if kind == "tcp_stream":
            rt = rng.randint(0, 50)
            r["retransmits"] = r["streams"][0]["retransmits"] = rt
            for k in ("receiver_total_bytes", "sender_total_bytes"):
                r["streams"][0][k] = r["bytes"]
        else:
            lost = rng.randint(0, 20)
            sent = int(r["bytes"] / 1460) + lost
            u = {"sent": sent, "received": sent - lost, "lost": lost, "out_of_order": 0,
                 "duplicated": 0, "jitter_us": round(rng.uniform(5, 30), 3),
                 "lost_pct": round(100.0 * lost / sent, 6)}
            r["udp"] = dict(u)
            r["streams"][0]["udp"] = dict(u)
    return r


def pps_result(r, value, rng, duration):
    """udp_pps with `value` packets/s received: sent, received and lost exact, the rates the
    counts over the sender's interval (what nsperf writes)."""
    rcvd = int(round(value * duration))
    lost = rng.randint(0, 500)
    sent = rcvd + lost
    u = {"sent": sent, "unsent": 0, "received": rcvd, "lost": lost, "out_of_order": 0,
         "duplicated": 0, "send_errors": 0, "lost_pct": round(100.0 * lost / sent, 6)}
    size = 64
    r["bytes"] = rcvd * size
    r["sender_bytes"] = sent * size
    r["throughput_bps"] = r["bytes"] * 8.0 / duration
    r["udp"] = dict(u)
    st = r["streams"][0]
    st.update({"bytes": r["bytes"], "sender_bytes": r["sender_bytes"],
               "throughput_bps": r["throughput_bps"], "udp": dict(u)})
    r["packets_per_s"] = rcvd / duration
    r["sent_packets_per_s"] = sent / duration
    r["lost_packets_per_s"] = lost / duration
    r["packets"] = rcvd


def with_load(r, idle_us, load_mbps, streams, direction, rng, hist_n):
    """A tcp_rr result (RTT under load already in it) with its idle RTT and its load."""
    r["idle_rtt_us"] = rescale_rtt(load_sample("tcp_rr")["rtt_us"], idle_us, rng, hist_n)
    bps = load_mbps * 1e6
    load = {"throughput_bps": bps, "bytes": int(bps / 8 * 6.5), "sender_bytes": int(bps / 8 * 6.5),
            "retransmits": rng.randint(0, 900), "duration_s": 6.5, "streams": streams,
            "direction": direction}
    share = {"forward": 1.0, "reverse": 1.0, "both": 0.5}[direction]
    for d in ("forward", "reverse"):
        if direction in (d, "both"):
            load[d] = {"throughput_bps": bps * share, "bytes": int(bps * share / 8 * 6.5),
                       "receiver": "server" if d == "forward" else "client"}
    r["load"] = load
    r["idle"] = {"transactions": r["idle_rtt_us"]["n"], "duration_s": 2.5,
                 "transactions_per_s": round(r["idle_rtt_us"]["n"] / 2.5, 3),
                 "ramp_transactions": 100, "load_start_s": 2.5, "loaded_start_s": 3.5}


def bidir_result(r, fwd_mbps, rev_mbps, rng):
    """A tcp_stream result of --bidir: each direction's receiver-counted figures, their sum."""
    dirs = {}
    for d, mbps in (("forward", fwd_mbps), ("reverse", rev_mbps)):
        bps = mbps * 1e6
        dirs[d] = {"throughput_bps": bps, "bytes": int(bps / 8 * r["duration_s"]),
                   "sender_bytes": int(bps / 8 * r["duration_s"]),
                   "retransmits": rng.randint(0, 50), "duration_s": r["duration_s"],
                   "receiver": "server" if d == "forward" else "client"}
    r["throughput_bps"] = dirs["forward"]["throughput_bps"] + dirs["reverse"]["throughput_bps"]
    for k in ("bytes", "sender_bytes", "retransmits"):
        r[k] = dirs["forward"][k] + dirs["reverse"][k]
    r.update(dirs)


class Journal:
    """A run directory. run.json is written when the journal is closed, with the trials each
    scenario planned: by default every (pair, trial) the journal recorded (a complete run),
    `planned` overrides it per scenario (a run stopped early); `state` is the run's. state=None
    writes no state, as the netsurvey of before run states did (the trend fixtures: their
    runs table says "—" for such a run)."""

    def __init__(self, path, run_id, plan_name, hosts, scenarios, started, family="ipv4",
                 description=None, state="complete", planned=None, version=1, pairs=None,
                 date="2026-11-30"):
        self.path, self.run_id, self.plan_name = path, run_id, plan_name
        self.date = date
        self.hosts = {h["name"]: h for h in hosts}
        self.scenarios = {s["name"]: s for s in scenarios}
        self.family = family
        self.t = started  # seconds since 2026-11-30T15:00:00Z
        self.sha = "5e1f" + "0" * 56 + "%04x" % (len(plan_name) * 997 % 65536)
        self.keys = {s["name"]: set() for s in scenarios}
        self.pairs = set()
        self.planned = planned or {}
        # Version 2 (netsurvey.run/2, netsurvey.trial/2): the scenarios' parameters as they
        # reached nsperf (those of the kind only), the planned pairs (`pairs`: host names).
        self.version = version
        if version == 2:
            scenarios = [v2_scenario(s) for s in scenarios]
            self.scenarios = {s["name"]: s for s in scenarios}
        os.makedirs(path, exist_ok=True)
        plan = {"name": plan_name, "file": "plans/%s.yaml" % plan_name, "sha256": self.sha}
        if description is not None:
            plan["description"] = description
        plan["source"] = "name: %s\n" % plan_name
        self.run = {"schema": "netsurvey.run/%d" % version, "run_id": run_id, "plan": plan,
                    "tool": {"netsurvey_version": "0.1.0", "nsperf_version": "0.1.0",
                             "nsperf_sha256": "ab" * 32},
                    "started": self.stamp(0),
                    "command": "netsurvey run plans/%s.yaml -o %s" % (plan_name,
                                                                     os.path.basename(path)),
                    "state": state,
                    "schedule": {"rounds": 6, "tests": 0, "pairs": 0, "estimate_s": 123.0},
                    "hosts": hosts,
                    "scenarios": [dict(s) for s in scenarios]}
        if state is None:
            del self.run["state"]
        if version == 2:
            names = [h["name"] for h in hosts]
            self.run["pairs"] = [[names.index(a), names.index(b)] for a, b in pairs]
        self.out = open(os.path.join(path, "results.jsonl"), "w")

    def stamp(self, dt):
        s = int(self.t + dt)
        ms = int(round((self.t + dt - s) * 1000))
        return "%sT%02d:%02d:%02d.%03dZ" % (self.date, 15 + s // 3600 % 9, s // 60 % 60, s % 60,
                                             ms)

    def trial(self, scen, src, dst, n, result=None, error=None, attempts=1, family=None):
        s = dict(self.scenarios[scen])
        s.pop("trials", None)
        hs, hd = self.hosts[src], self.hosts[dst]
        dur = s["duration_s"]
        rec = {"schema": "netsurvey.trial/%d" % getattr(self, "trial_version", self.version), "run_id": self.run_id,
               "plan": {"name": self.plan_name, "sha256": self.sha}, "scenario": s, "trial": n,
               "family": family or self.family,
               "src": {k: hs[k] for k in ("name", "zone", "region", "data_address")},
               "dst": {k: hd[k] for k in ("name", "zone", "region", "data_address")},
               "status": "failed" if error else "ok", "error": error, "attempts": attempts,
               "started": self.stamp(0), "ended": self.stamp(dur + 0.5),
               "result": result, "env": {"src": src, "dst": dst},
               "tool": {"version": "0.1.0", "nsperf_sha256": "ab" * 32}}
        rec["src"]["host"] = rec["src"].pop("name")
        rec["dst"]["host"] = rec["dst"].pop("name")
        rec["src"] = {k: rec["src"][k] for k in ("host", "zone", "region", "data_address")}
        rec["dst"] = {k: rec["dst"][k] for k in ("host", "zone", "region", "data_address")}
        self.t += dur + 1
        self.keys[scen].add((src, dst, n))
        self.pairs.add((src, dst))
        self.out.write(json.dumps(rec, separators=(",", ":")) + "\n")

    def raw(self, text):
        self.out.write(text)

    def close(self):
        self.out.close()
        for s in self.run["scenarios"]:
            s["planned"] = self.planned.get(s["name"], len(self.keys[s["name"]]))
        self.run["schedule"]["tests"] = sum(s["planned"] for s in self.run["scenarios"])
        self.run["schedule"]["pairs"] = len(self.run.get("pairs", self.pairs))
        with open(os.path.join(self.path, "run.json"), "w") as f:
            json.dump(self.run, f, indent=1)
            f.write("\n")


def v2_scenario(s):
    """s as version 2 records it: the parameters of its kind only, interval_s among them."""
    s = dict(s)
    drop = ("streams", "rate_bps", "reverse") if s["test"].endswith("rr") else ("response_size",)
    for k in drop:
        s.pop(k, None)
    s["interval_s"] = 0.0
    return s


def host(name, zone, region, addr, cpus=4):
    return {"name": name, "zone": zone, "region": region, "data_address": addr, "transport": "ssh",
            "env": {"kernel": "6.1.0-27-cloud-amd64", "os": "Debian GNU/Linux 12",
                    "cpu_model": "AMD EPYC 7763 64-Core Processor", "cpus": cpus,
                    "mem_bytes": 16777216000, "interface": "eth0", "mtu": 1500, "qdisc": "fq",
                    "tcp_cc": "cubic", "clocksource": "tsc"}}


def with_arch(h, machine, recorded=True):
    """h as a run of a netsurvey that deploys by architecture writes it: env.machine (nsperf env's
    `uname -m`) and, where recorded, the host's arch and the build it got; older runs have neither,
    a host whose arch was not recorded falls back to env.machine."""
    h["env"]["machine"] = machine
    if machine == "aarch64":
        h["env"].update(kernel="6.1.0-27-cloud-arm64", cpu_model=None)
    if recorded:
        build = "nsperf-static" if machine == "x86_64" else "nsperf-static-" + machine
        h["arch"] = machine
        h["endpoint"] = {"build": build, "sha256": (machine[0] * 64),
                         "path": "/home/azureuser/.cache/netsurvey/%s-%s" % (build, machine[0] * 64)}
    return h


def scen(name, test, trials=3, duration=10, **kw):
    s = {"name": name, "test": test, "msg_size": 250 if test.endswith("rr") else 131072,
         "response_size": 250 if test.endswith("rr") else 0, "streams": 1, "duration_s": duration,
         "warmup_s": 1, "rate_bps": 0, "reverse": False, "window": 0, "trials": trials}
    s.update(kw)
    return s


# Zone-to-zone figures the fixtures are built around (the seeds' westus3 matrix).
RTT = {("1", "2"): 329.0, ("1", "3"): 597.0, ("2", "3"): 499.0, ("1", "1"): 95.0}
GBPS = {("1", "2"): 12.1, ("1", "3"): 9.4, ("2", "3"): 10.2, ("1", "1"): 15.8}


def cell(tab, a, b):
    return tab.get((a, b)) or tab.get((b, a)) or 200.0


def fixture_basic(out):
    """One region, three zones, zone 1 with two hosts (same-zone diagonal), failures, a resumed
    trial, a missing cell (no throughput 3->2), a torn last line; zone 3's host an aarch64 one
    (zone1-vm's arch from its env only)."""
    hosts = [with_arch(host("zone1-vm", "1", "westus3", "10.0.0.4"), "x86_64", recorded=False),
             with_arch(host("zone1-vm-b", "1", "westus3", "10.0.0.7"), "x86_64"),
             with_arch(host("zone2-vm", "2", "westus3", "10.0.0.5"), "x86_64"),
             with_arch(host("zone3-vm", "3", "westus3", "10.0.0.6"), "aarch64")]
    scs = [scen("latency", "tcp_rr"), scen("throughput", "tcp_stream", streams=4),
           scen("crr", "tcp_crr", trials=2), scen("udp-loss", "udp_stream", trials=2,
                                                  rate_bps=1000000000)]
    rng = random.Random(9)
    j = Journal(os.path.join(out, "basic"), "20261130T150000Z-7f3c", "westus3-zones", hosts, scs,
                0, description="3 zones of West US 3, sockperf-style latency and NTTTCP-style "
                "throughput")
    names = [h["name"] for h in hosts]
    zone = {h["name"]: h["zone"] for h in hosts}
    for s in scs:
        for n in range(1, s["trials"] + 1):
            for a in names:
                for b in names:
                    if a == b:
                        continue
                    za, zb = zone[a], zone[b]
                    if s["name"] == "throughput" and za == "3" and zb == "2":
                        continue  # the missing cell
                    if s["test"] in ("udp_stream", "tcp_crr") and za == zb:
                        continue  # diagonal only where asked
                    if s["test"] == "tcp_rr":
                        v = cell(RTT, za, zb) * rng.uniform(0.97, 1.03)
                    elif s["test"] == "tcp_crr":
                        v = round(1e6 / (3 * cell(RTT, za, zb)) * rng.uniform(0.95, 1.05), 3)
                    elif s["test"] == "udp_stream":
                        v = 1000 * rng.uniform(0.97, 0.999)
                    else:
                        v = cell(GBPS, za, zb) * 1000 * rng.uniform(0.97, 1.03)
                    if s["name"] == "latency" and a == "zone3-vm" and b == "zone1-vm" and n == 2:
                        j.trial("latency", a, b, n, error="nsperf on zone1-vm: connect to "
                                "10.0.0.4:5201 timed out after 10 s", attempts=3)
                        continue
                    if s["name"] == "throughput" and a == "zone2-vm" and b == "zone3-vm" \
                            and n == 3:
                        # failed, then ok after a resume (the record later in the file wins)
                        j.trial("throughput", a, b, n, error="ssh zone3-vm: connection reset",
                                attempts=2)
                    r = make_result(s["test"], round(v, 3), rng, s["duration_s"], hist_n=5000)
                    if s["name"] == "crr" and a == "zone2-vm" and b == "zone1-vm" and n == 2:
                        # a trial that failed every time (no ok record at all); its result is
                        # drawn all the same, so that every other figure stays as it was
                        j.trial("crr", a, b, n, error="nsperf exited with status 1: accept: too "
                                "many open files", attempts=3)
                        continue
                    j.trial(s["name"], a, b, n, r)

    j.raw('{"schema":"netsurvey.trial/1","run_id":"20261130T150000Z-7f3c","trial":4,"sta')
    j.close()


def fixture_hostile(out):
    """Plan and host names that must be escaped in HTML and Markdown."""
    hosts = [host("<script>alert(1)</script>", "a&b", "r\"1", "10.0.0.4"),
             host("vm|\"two\"", "<z2>", "r\"1", "10.0.0.5")]
    scs = [scen("lat<b>", "tcp_rr", trials=2)]
    rng = random.Random(3)
    j = Journal(os.path.join(out, "hostile"), "20261130T150000Z-0bad", "<i>plan</i> & \"co\"",
                hosts, scs, 0, description="<b>it's</b> *all* _markup_ `here` & [x](y) &amp;")
    for n in (1, 2):
        j.trial("lat<b>", hosts[0]["name"], hosts[1]["name"], n,
                make_result("tcp_rr", 250 * rng.uniform(0.98, 1.02), rng, 10, hist_n=2000))
        j.trial("lat<b>", hosts[1]["name"], hosts[0]["name"], n,
                error="<img src=x onerror=alert(2)> & \"quoted\"")
    j.close()


def fixture_multi(out):
    """Two run dirs, one per region; region A's control machine also measured to one host of
    region B, so the merged report has a region x region matrix with an off-diagonal cell."""
    a_hosts = [host("w1", "1", "westus3", "10.0.0.4"), host("w2", "2", "westus3", "10.0.0.5")]
    b_hosts = [host("e1", "1", "eastus", "10.1.0.4"), host("e2", "2", "eastus", "10.1.0.5")]
    # what `nsperf env` says on Azure VMs (no physical zone from IMDS: w1's is the plan's), and a
    # stated zone the metadata contradicts (w2), as the run records them
    for h, zone, vm in ((a_hosts[0], "1", "Standard_D4s_v5"), (a_hosts[1], "3", "Standard_D4s_v5"),
                        (b_hosts[0], "1", "Standard_D2s_v5"), (b_hosts[1], "2", "Standard_D2s_v5")):
        h["env"] = dict(h["env"], cloud={"provider": "azure", "region": h["region"], "zone": zone,
                                         "zone_id": None, "instance_type": vm,
                                         "instance_id": "00000000-0000-4000-8000-%012d" % len(vm)})
    a_hosts[0]["zone_id"] = "westus3-az1"
    a_hosts[1]["zone_warning"] = ("the plan says zone '2', its cloud metadata says '3' (azure); "
                                  "the plan's is used")
    scs = [scen("latency", "udp_rr", trials=2)]
    rng = random.Random(17)
    ja = Journal(os.path.join(out, "multi-a"), "20261130T150000Z-aaaa", "westus3", a_hosts +
                 [b_hosts[0]], scs, 0)
    jb = Journal(os.path.join(out, "multi-b"), "20261130T160000Z-bbbb", "eastus", b_hosts, scs,
                 0)
    for n in (1, 2):
        ja.trial("latency", "w1", "w2", n, make_result("udp_rr", 330 * rng.uniform(.98, 1.02),
                                                       rng, 10, hist_n=3000))
        ja.trial("latency", "w2", "w1", n, make_result("udp_rr", 331 * rng.uniform(.98, 1.02),
                                                       rng, 10, hist_n=3000))
        ja.trial("latency", "w1", "e1", n, make_result("udp_rr", 61000 * rng.uniform(.99, 1.01),
                                                       rng, 10, hist_n=3000))
        jb.trial("latency", "e1", "e2", n, make_result("udp_rr", 410 * rng.uniform(.98, 1.02),
                                                       rng, 10, hist_n=3000))
        jb.trial("latency", "e2", "e1", n, make_result("udp_rr", 405 * rng.uniform(.98, 1.02),
                                                       rng, 10, hist_n=3000))
    ja.close()
    jb.close()


def fixture_incomplete(out):
    """A run stopped by SIGINT part way (version 2: its planned pairs recorded): 3 hosts in 2
    zones, the latency scenario's 6 pairs x 2 trials planned and 6 of them recorded (one
    failed), one pair not started, a throughput scenario never reached; a corrupt middle line
    (a disk's damage) and a torn last line."""
    hosts = [host("a1", "a", "lab", "10.9.0.1"), host("a2", "a", "lab", "10.9.0.2"),
             host("b1", "b", "lab", "10.9.0.3")]
    scs = [scen("latency", "tcp_rr", trials=2), scen("throughput", "tcp_stream", trials=2)]
    rng = random.Random(21)
    names = [h["name"] for h in hosts]
    pairs = [(a, b) for a in names for b in names if a != b]
    j = Journal(os.path.join(out, "incomplete"), "20261130T150000Z-1111", "lab-stopped", hosts,
                scs, 0, state="interrupted", planned={"latency": 12, "throughput": 12},
                description="a survey stopped by Ctrl-C", version=2, pairs=pairs)
    for a, b, n, v in (("a1", "b1", 1, 330), ("b1", "a1", 1, 332), ("a1", "a2", 1, 90),
                       ("a2", "b1", 1, 331), ("a1", "b1", 2, 329)):
        j.trial("latency", a, b, n, make_result("tcp_rr", v * rng.uniform(0.99, 1.01), rng, 10,
                                                hist_n=1000))
        if n == 1 and a == "b1":
            j.raw('{"schema":"netsurvey.trial/2","run_id":"20261130T150000Z-1111","tri\n')
    j.trial("latency", "a2", "a1", 1, error="nsperf on a1: connection refused", attempts=3)
    j.raw('{"schema":"netsurvey.trial/2","run_id":"20261130T150000Z-1111","scen')
    j.close()


def fixture_pooled(out):
    """Two runs of one plan on the same hosts (a plan surveyed twice): merged, each cell pools
    both runs' trials; run B's second trial of b1 -> a1 failed."""
    hosts = [host("a1", "a", "lab", "10.9.0.1"), host("b1", "b", "lab", "10.9.0.3")]
    scs = [scen("latency", "tcp_rr", trials=2)]
    rng = random.Random(33)
    for name, rid, base in (("a", "20261130T150000Z-aaaa", 330), ("b", "20261201T150000Z-bbbb",
                                                                   340)):
        j = Journal(os.path.join(out, "pooled-" + name), rid, "lab-twice", hosts, scs, 0)
        for n in (1, 2):
            j.trial("latency", "a1", "b1", n, make_result("tcp_rr", base * rng.uniform(.99, 1.01),
                                                          rng, 10, hist_n=1000))
            if name == "b" and n == 2:
                j.trial("latency", "b1", "a1", n, error="nsperf on a1: timed out", attempts=3)
            else:
                j.trial("latency", "b1", "a1", n,
                        make_result("tcp_rr", base * rng.uniform(.99, 1.01), rng, 10,
                                    hist_n=1000))
        j.close()


def fixture_allfailed(out):
    """Every trial failed (a firewall in the way): no chart can be drawn."""
    hosts = [host("a1", "a", "lab", "10.9.0.1"), host("b1", "b", "lab", "10.9.0.3")]
    scs = [scen("latency", "tcp_rr", trials=2)]
    j = Journal(os.path.join(out, "allfailed"), "20261130T150000Z-ffff", "lab-blocked", hosts,
                scs, 0)
    for n in (1, 2):
        j.trial("latency", "a1", "b1", n, error="nsperf on b1: connect timed out", attempts=3)
        j.trial("latency", "b1", "a1", n, error="nsperf on a1: connect timed out", attempts=3)
    j.close()


def fixture_measures(out):
    """What a trial measures beside its figure, each of which the reports must show: a
    udp_stream whose sender fell behind its schedule in two trials (udp.unsent > 0: its host's
    limit, not the path's), cycles per byte of the stream kinds, a latency trial that carried
    no histogram (its cell's percentiles come from 2 of 3 trials), and a scenario of one trial
    per pair (no interval: null in summary.json, n/a in the reports)."""
    hosts = [host("a1", "a", "lab", "10.9.0.1"), host("a2", "a", "lab", "10.9.0.2"),
             host("b1", "b", "lab", "10.9.0.3")]
    scs = [scen("udp", "udp_stream", trials=3, rate_bps=1000000000),
           scen("tput", "tcp_stream", trials=3), scen("lat", "tcp_rr", trials=3),
           scen("once", "tcp_rr", trials=1)]
    rng = random.Random(51)
    j = Journal(os.path.join(out, "measures"), "20261203T150000Z-meas", "lab-measures", hosts,
                scs, 0, description="what every trial measured reaches the page")
    pairs = [("a1", "b1"), ("b1", "a1"), ("a1", "a2")]
    for n in (1, 2, 3):
        for a, b in pairs:
            v = 1000 * rng.uniform(0.97, 0.999)
            r = make_result("udp_stream", round(v, 3), rng, 10)
            unsent = 0
            if (a, b) == ("a1", "b1") and n > 1:  # the sender's host fell behind
                v = 493.6 + n
                r = make_result("udp_stream", v, rng, 10)
                unsent = 40000 + 1000 * n
            r["udp"]["unsent"] = r["streams"][0]["udp"]["unsent"] = unsent
            j.trial("udp", a, b, n, r)
        for a, b in pairs:
            r = make_result("tcp_stream", round(49200 * rng.uniform(0.97, 1.03), 3), rng, 10)
            # busy CPU per byte moved, as nsperf derives it from the CPU share (NTTTCP's)
            r["cpu"]["cycles_per_byte"] = round(0.4 + r["cpu"]["local_pct"] / 50.0, 4)
            r["cpu"]["remote_cycles_per_byte"] = round(0.3 + r["cpu"]["remote_pct"] / 50.0, 4)
            j.trial("tput", a, b, n, r)
        for a, b in pairs:
            r = make_result("tcp_rr", 330 * rng.uniform(0.98, 1.02), rng, 10, hist_n=1000)
            if (a, b) == ("a1", "b1") and n == 2:  # a trial without its histogram
                del r["rtt_us"]["hist"]
            j.trial("lat", a, b, n, r)
    for a, b in pairs:
        j.trial("once", a, b, 1, make_result("tcp_rr", 330 * rng.uniform(0.98, 1.02), rng, 10,
                                             hist_n=1000))
    j.close()


def fixture_nozones(out):
    """A plan whose hosts state no zone (a valid plan's hosts all do, or none): host pairs
    only, no zone matrix."""
    hosts = [host("n1", "", "", "10.9.1.1"), host("n2", "", "", "10.9.1.2"),
             host("n3", "", "", "10.9.1.3")]
    scs = [scen("lat", "tcp_rr", trials=2)]
    rng = random.Random(52)
    j = Journal(os.path.join(out, "nozones"), "20261203T160000Z-nozo", "lab-nozones", hosts,
                scs, 0)
    for n in (1, 2):
        for a in hosts:
            for b in hosts:
                if a is not b:
                    j.trial("lat", a["name"], b["name"], n,
                            make_result("tcp_rr", 120 * rng.uniform(0.97, 1.03), rng, 10,
                                        hist_n=1000))
    j.close()


def fixture_compare(out):
    """Baseline and candidate: 1->2 much worse (significant), 1->3 better, 2->3 same,
    2->1 only in base, 3->1 only in new; throughput 1->2 slightly lower (below PCT)."""
    hosts = [host("z1", "1", "westus3", "10.0.0.4"), host("z2", "2", "westus3", "10.0.0.5"),
             host("z3", "3", "westus3", "10.0.0.6")]
    scs = [scen("latency", "tcp_rr", trials=5), scen("throughput", "tcp_stream", trials=5)]
    rng = random.Random(5)
    base = {("z1", "z2"): 330, ("z1", "z3"): 600, ("z2", "z3"): 500, ("z2", "z1"): 331}
    new = {("z1", "z2"): 400, ("z1", "z3"): 540, ("z2", "z3"): 500, ("z3", "z1"): 598}
    tput_base, tput_new = 12000, 11800
    for name, tab, tp, rid in (("base", base, tput_base, "20261130T150000Z-base"),
                               ("new", new, tput_new, "20261201T150000Z-new0")):
        j = Journal(os.path.join(out, "compare-" + name), rid, "westus3-zones", hosts, scs, 0)
        for n in range(1, 6):
            for (a, b), v in sorted(tab.items()):
                j.trial("latency", a, b, n, make_result("tcp_rr", v * rng.uniform(0.99, 1.01),
                                                        rng, 10, hist_n=1000))
            j.trial("throughput", "z1", "z2", n,
                    make_result("tcp_stream", round(tp * rng.uniform(0.99, 1.01), 3), rng, 10))
        j.close()


# Throughput trial values (Mbit/s, recorded exactly) of the gate fixtures, per ordered zone pair:
# (baseline, new). Every other pair is GATE_SAME on both sides.
GATE_SAME = [1000, 1005, 995]
GATE_CELLS = {
    ("1", "2"): ([1000, 1020, 980], [940, 960, 920]),     # -6 %, Welch p 0.021: Holm says no
    ("1", "3"): ([1000, 1001, 1002], [970, 971, 972]),    # -3 %, clear
    ("1", "4"): ([1000, 1001, 1002], [1010, 1011, 1012]),  # +1 %, clear
    ("2", "1"): ([900, 1100, 1000], [950, 1150, 1050]),   # +5 %, too noisy to say
}


def fixture_gate(out):
    """compare's gate: gate-base against gate-new (12 throughput cells of exact values, see
    GATE_CELLS, and a latency cell) and against gate-partial (no latency scenario; throughput 4->3
    absent, 3->4 failed three times, 4->1 with one ok trial)."""
    hosts = [host("g%d" % z, str(z), "westus3", "10.0.1.%d" % z) for z in range(1, 5)]
    scs = [scen("tput", "tcp_stream"), scen("lat", "tcp_rr")]
    rng = random.Random(21)
    for name, side in (("gate-base", 0), ("gate-new", 1), ("gate-partial", 1)):
        partial = name == "gate-partial"
        j = Journal(os.path.join(out, name), "20261202T150000Z-%s" % name[5:9], "gate",
                    hosts, scs[:1] if partial else scs, 0)
        for n in range(1, 4):
            for a in hosts:
                for b in hosts:
                    za, zb = a["zone"], b["zone"]
                    if a is b or (partial and (za, zb) == ("4", "3")):
                        continue
                    if partial and ((za, zb) == ("3", "4") or ((za, zb) == ("4", "1") and n > 1)):
                        j.trial("tput", a["name"], b["name"], n, error="nsperf on %s: connect "
                                "timed out after 10 s" % b["name"], attempts=3)
                        continue
                    v = GATE_CELLS.get((za, zb), (GATE_SAME, GATE_SAME))[side][n - 1]
                    j.trial("tput", a["name"], b["name"], n, make_result("tcp_stream", v, rng, 10))
            if not partial:
                j.trial("lat", "g1", "g2", n, make_result("tcp_rr", 330 * rng.uniform(.99, 1.01),
                                                          rng, 10, hist_n=1000))
        j.close()


# The trend fixtures: four runs of one plan a week apart and one run of another plan between
# the last two. Mean RTT per zone pair (us) and throughput (Mbit/s) of each run; latency 1->2
# steps up by 15 % in the third run and stays there (the flag: at trend-c), throughput 1->2
# rises by 20 % (better: never flagged).
TREND_RUNS = [  # directory, run_id, date, latency 1->2, throughput 1->2
    ("trend-a", "20261101T150000Z-t001", "2026-11-01", 329.0, 9000.0),
    ("trend-b", "20261108T150000Z-t002", "2026-11-08", 330.0, 9050.0),
    ("trend-c", "20261115T150000Z-t003", "2026-11-15", 380.0, 10800.0),
    ("trend-d", "20261122T150000Z-t004", "2026-11-22", 379.0, 10850.0),
]


def fixture_newkinds(out, name="newkinds", run_id="20261203T150000Z-nk30", seed=30, worse=False,
                     trials=2):
    """The kinds of issue 30: packets per second (udp_pps), latency under load (tcp_rr with a
    load both ways, its idle RTT beside) and both directions at once (tcp_stream --bidir),
    3 zones, `trials` a pair, the parameters as nsperf ran them (run.json version 2). worse: the
    packet rate of cell 1 -> 2 at 60 % and its RTT under load at 150 % (compare's regressions:
    one lower is better, one higher), --bidir of 2 -> 3 at 130 % (an improvement)."""
    hosts = [host("z%d" % z, str(z), "westus3", "10.0.2.%d" % z) for z in range(1, 4)]
    base = {"duration_s": 10, "warmup_s": 1, "interval_s": 0.0, "window": 0, "trials": trials}
    scs = [dict(base, name="pps", test="udp_pps", msg_size=64, streams=2, reverse=False,
                packet_rate=0),
           dict(base, name="rr-load", test="tcp_rr", msg_size=1, response_size=1,
                busy_poll=False, load_streams=4, load_direction="both"),
           dict(base, name="bidir", test="tcp_stream", msg_size=1048576, streams=2, rate_bps=0,
                reverse=False, copy=False, bidir=True)]
    rng = random.Random(seed)
    names = [h["name"] for h in hosts]
    pairs = [(a, b) for a in names for b in names if a != b]
    j = Journal(os.path.join(out, name), run_id, "westus3-newkinds",
                hosts, scs, 0, version=2, pairs=pairs)
    j.scenarios = {sc["name"]: sc for sc in scs}  # as recorded, nothing dropped
    j.run["scenarios"] = [dict(sc) for sc in scs]
    for n in range(1, trials + 1):
        for a, b in pairs:
            za, zb = a[1], b[1]
            rtt = cell(RTT, za, zb)
            f = {("1", "2"): (0.6, 1.5, 1.0), ("2", "3"): (1.0, 1.0, 1.3)}.get((za, zb)) \
                if worse else None
            pps_f, rtt_f, bidir_f = f or (1.0, 1.0, 1.0)
            j.trial("pps", a, b, n, make_result("udp_pps", pps_f * 400000 *
                                                rng.uniform(0.95, 1.05) / (1 + int(za) * 0.1),
                                                rng, 10))
            r = make_result("tcp_rr", rtt_f * rtt * rng.uniform(8, 12), rng, 10, hist_n=2000)
            with_load(r, rtt * rng.uniform(0.98, 1.02), cell(GBPS, za, zb) * 1000 *
                      rng.uniform(0.95, 1.0), 4, "both", rng, 2000)
            j.trial("rr-load", a, b, n, r)
            r = make_result("tcp_stream", 1, rng, 10)
            g = bidir_f * cell(GBPS, za, zb) * 1000
            bidir_result(r, g * rng.uniform(0.95, 1.0), g * rng.uniform(0.85, 0.9), rng)
            j.trial("bidir", a, b, n, r)
    j.close()


def fixture_trend(out):
    """trend-a..d: plan westus3-zones, latency (tcp_rr, 5 trials) over the 6 ordered pairs of 3
    zones and throughput (tcp_stream, 3 trials) 1->2 and 2->1. In trend-a latency 3->2 has one
    ok trial of 5 (its baseline is trend-b); trend-b did not measure throughput 2->1.
    trend-other: plan other-plan on 2026-11-18 (between trend-c and trend-d), zones 1 and 2 only,
    sharing latency, and a scenario of its own (bulk, udp_stream) that no other run has."""
    hosts = [host("z1", "1", "westus3", "10.0.0.4"), host("z2", "2", "westus3", "10.0.0.5"),
             host("z3", "3", "westus3", "10.0.0.6")]
    scs = [scen("latency", "tcp_rr", trials=5), scen("throughput", "tcp_stream", trials=3)]
    lat = {("z1", "z2"): 0, ("z2", "z1"): 331.0, ("z1", "z3"): 597.0, ("z3", "z1"): 598.0,
           ("z2", "z3"): 499.0, ("z3", "z2"): 500.0}
    rng = random.Random(33)
    for d, rid, date, lat12, tput12 in TREND_RUNS:
        j = Journal(os.path.join(out, d), rid, "westus3-zones", hosts, scs, 0, date=date,
                    state=None)
        for n in range(1, 6):
            for (a, b), v in sorted(lat.items()):
                v = lat12 if (a, b) == ("z1", "z2") else v
                if d == "trend-a" and (a, b) == ("z3", "z2") and n > 1:
                    j.trial("latency", a, b, n, error="nsperf on z2: connect to 10.0.0.5:5201 "
                            "timed out after 10 s", attempts=3)
                    continue
                j.trial("latency", a, b, n, make_result("tcp_rr", v * rng.uniform(0.995, 1.005),
                                                        rng, 10, hist_n=1000))
        for n in range(1, 4):
            for (a, b), v in ((("z1", "z2"), tput12), (("z2", "z1"), 9100.0)):
                if d == "trend-b" and (a, b) == ("z2", "z1"):
                    continue
                j.trial("throughput", a, b, n, make_result(
                    "tcp_stream", round(v * rng.uniform(0.995, 1.005), 3), rng, 10))
        j.close()
    ohosts = hosts[:2]
    oscs = [scen("latency", "tcp_rr", trials=3), scen("bulk", "udp_stream", trials=2,
                                                       rate_bps=1000000000)]
    j = Journal(os.path.join(out, "trend-other"), "20261118T090000Z-o001", "other-plan", ohosts,
                oscs, 0, date="2026-11-18", state=None)
    for n in range(1, 4):
        j.trial("latency", "z1", "z2", n, make_result("tcp_rr", 335 * rng.uniform(.995, 1.005),
                                                      rng, 10, hist_n=1000))
        j.trial("latency", "z2", "z1", n, make_result("tcp_rr", 333 * rng.uniform(.995, 1.005),
                                                      rng, 10, hist_n=1000))
    for n in range(1, 3):
        j.trial("bulk", "z1", "z2", n, make_result("udp_stream", 990 * rng.uniform(.99, 1.0),
                                                   rng, 10))
    j.close()


def fixture_trend_hostile(out):
    """Two runs whose plan, run ids, scenario and zones carry what each output format must
    escape: HTML and Markdown markup, CSV commas and quotes, gnuplot's quote, backquote and @."""
    hosts = [host("h<1>", "a&b", "r'1", "10.0.0.4"),
             host("h\"2\"", "\"q,1\" <z2>", "r'1", "10.0.0.5")]
    name = "lat<b>'`touch pwned`@x|y"
    scs = [scen(name, "tcp_rr", trials=3)]
    rng = random.Random(44)
    for d, rid, date, v in (("trend-hostile-1", "20261101T150000Z-'`id`|<x>,\"y\"",
                             "2026-11-01", 250.0),
                            ("trend-hostile-2", "20261102T150000Z-<b>&amp;'@z", "2026-11-02",
                             300.0)):
        j = Journal(os.path.join(out, d), rid, "<i>plan</i> & \"co\" `x` 'y'", hosts, scs, 0,
                    date=date, state=None)
        for n in range(1, 4):
            j.trial(name, hosts[0]["name"], hosts[1]["name"], n,
                    make_result("tcp_rr", v * rng.uniform(0.995, 1.005), rng, 10, hist_n=500))
            j.trial(name, hosts[1]["name"], hosts[0]["name"], n,
                    make_result("tcp_rr", 251 * rng.uniform(0.995, 1.005), rng, 10, hist_n=500))
        j.close()


# A sweep of msg_size (tcp_stream, 3 trials a value, z1 -> z2): exact Mbit/s per value, as
# (sweep-base, sweep-new); sweep-other sweeps other values. The new run's 1K is 30 % worse, its
# other values the same: compare must gate on that value alone, trend keep each value a cell.
SWEEP_BASE = {64: [100, 101, 99], 1024: [1000, 1010, 990], 65536: [9000, 9050, 8950]}
SWEEP_NEW = {64: [100, 101, 99], 1024: [700, 705, 695], 65536: [9000, 9050, 8950]}
SWEEP_OTHER = {64: [100, 101, 99], 16384: [5000, 5010, 4990]}


def fixture_sweep(out):
    """sweep-base, sweep-new, sweep-other: trial/5 records of a sweep's values, run.json's list."""
    hosts = [host("z1", "1", "westus3", "10.0.0.4"), host("z2", "2", "westus3", "10.0.0.5")]
    rng = random.Random(30)
    for name, tab, rid, date in (("base", SWEEP_BASE, "20261130T150000Z-swp0", "2026-11-30"),
                                 ("new", SWEEP_NEW, "20261201T150000Z-swp1", "2026-12-01"),
                                 ("other", SWEEP_OTHER, "20261202T150000Z-swp2", "2026-12-02")):
        values = sorted(tab)
        sc = scen("tput", "tcp_stream", trials=3, msg_size=values, sweep="msg_size")
        del sc["response_size"]
        sc["interval_s"] = 0.0
        j = Journal(os.path.join(out, "sweep-" + name), rid, "sweeps", hosts, [sc], 0,
                    version=2, date=date, planned={"tput": 3 * len(values)},
                    pairs=[("z1", "z2")])
        j.run["scenarios"][0]["msg_size"] = values
        j.trial_version = 5
        for n in range(1, 4):
            for v in values:
                j.scenarios["tput"] = dict(sc, msg_size=v)
                j.trial("tput", "z1", "z2", n,
                        make_result("tcp_stream", float(tab[v][n - 1]), rng, 10))
        j.scenarios["tput"] = sc
        j.close()


def cloud_sample(rng):
    """A tcp_rr sample of a cloud link's shape, in place of the loopback one: DESIGN.md's trial
    between two zones (p50 328.3, p90 337.4, p99 346.4, p99.9 357.8, p99.99 390.9, max 730.8
    us): 300 000 round trips, 99.9 % normal around 328.3 us (sd 5.8), a tail above 346 us."""
    vals = []
    for _ in range(300000):
        u = rng.random()
        if u < 0.999:
            v = rng.gauss(328.3, 5.8)
        elif u < 0.9999:
            v = 346 + rng.expovariate(1 / 15.0)
        else:
            v = 360 + rng.random() * 370
        vals.append(int(v * 1000))
    counts = {}
    for v in vals:
        counts[hist_index(v)] = counts.get(hist_index(v), 0) + 1
    r = load_sample("tcp_rr")
    r["rtt_us"]["mean"] = sum(vals) / len(vals) / 1e3
    r["rtt_us"]["hist"]["buckets"] = [[bucket_low(i), counts[i]] for i in sorted(counts)]
    return r


def to_runs(hist, gap=4):
    """hist's buckets in the compact form, "runs":[[lower_ns,c0,c1,...],..],
    consecutive bucket indices in one run, gaps of at most `gap` empty buckets written as zeros
    (a zero costs 2 bytes, a new run's head ~10)."""
    idx = [new_index(low) for low, _ in hist["buckets"]]
    cnt = dict(zip(idx, (c for _, c in hist["buckets"])))
    runs = []
    for i in idx:
        if runs and i - runs[-1][-1] - 1 <= gap:
            runs[-1].extend(range(runs[-1][-1] + 1, i + 1))
        else:
            runs.append([i])
    del hist["buckets"]
    hist["runs"] = [[new_low(r[0])] + [cnt.get(i, 0) for i in r] for r in runs]


def bench(out, nhosts, trials, shape="cloud", form="runs"):
    """nhosts hosts in 3 zones, all ordered pairs, a latency and a throughput scenario, until
    `trials` records; histograms of 20 000 round trips in nsperf's layout now. shape "cloud":
    a cloud link's distribution (~180 buckets a trial); "loopback": the loopback sample's, a
    wide one (p90 1.5 x p50, ~1 190 buckets), the stress case."""
    hosts = [host("vm%03d" % i, str(i % 3 + 1), "westus3", "10.0.%d.%d" % (i // 250, i % 250 + 4))
             for i in range(nhosts)]
    scs = [scen("latency", "tcp_rr"), scen("throughput", "tcp_stream")]
    rng = random.Random(1)
    global load_sample
    if shape == "cloud":
        sample = cloud_sample(random.Random(7))
        real = load_sample
        load_sample = lambda kind: copy.deepcopy(sample) if kind == "tcp_rr" else real(kind)
    j = Journal(out, "20261130T150000Z-b100", "bench", hosts, scs, 0)
    if form == "runs":
        j.trial_version = 3  # the runs form is trial/3's (src/journal/record.h)
    # A pool of results reused round-robin keeps generation fast; values still vary per record.
    pool = {k: [json.dumps(make_result(k, v, rng, 10, hist_n=20000, new_layout=True),
                           separators=(",", ":"))
                for v in (300, 320, 340, 500, 600)]
            for k in ("tcp_rr",)}
    if form == "runs":
        for k, texts in pool.items():
            rs = [json.loads(t) for t in texts]
            for r in rs:
                to_runs(r["rtt_us"]["hist"])
            pool[k] = [json.dumps(r, separators=(",", ":")) for r in rs]
    pool["tcp_stream"] = [json.dumps(make_result("tcp_stream", v, rng, 10),
                                     separators=(",", ":")) for v in (9000, 10000, 12000)]
    # Whole passes only (every pair's trials numbered 1..trials): a record numbered past its
    # scenario's trials would be no planned trial, and readers list it as a journal problem.
    npairs = nhosts * (nhosts - 1)
    if trials >= npairs:
        trials -= trials % npairs
    written = 0
    n = 1
    while written < trials:
        for a in range(nhosts):
            for b in range(nhosts):
                if a == b or written >= trials:
                    continue
                s = scs[written % 2]
                p = pool[s["test"]]
                j.trial(s["name"], hosts[a]["name"], hosts[b]["name"], n,
                        json.loads(p[(a * 7 + b + n) % len(p)]))
                written += 1
        n += 1
    # A complete run: every pair that runs a scenario runs it in every pass (each pair keeps one
    # scenario, as records alternate over an even number of pairs), so its trials are the
    # passes: every record is a planned trial, none is missing.
    for s in j.run["scenarios"]:
        s["trials"] = max([k[2] for k in j.keys[s["name"]]] or [0])
    j.close()
    if shape == "cloud":
        load_sample = real


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "fixtures":
        out = sys.argv[2]
        fixture_basic(out)
        fixture_hostile(out)
        fixture_multi(out)
        fixture_incomplete(out)
        fixture_pooled(out)
        fixture_allfailed(out)
        fixture_compare(out)
        fixture_gate(out)
        fixture_trend(out)
        fixture_trend_hostile(out)
        fixture_sweep(out)
        fixture_newkinds(out)
        fixture_newkinds(out, "newkinds-base", "20261204T150000Z-nkba", 31, trials=4)
        fixture_newkinds(out, "newkinds-worse", "20261205T150000Z-nkwo", 32, worse=True,
                         trials=4)
        fixture_measures(out)
        fixture_nozones(out)
    elif (len(sys.argv) in (5, 6, 7) and sys.argv[1] == "bench"
          and sys.argv[5:6] in ([], ["cloud"], ["loopback"])
          and sys.argv[6:] in ([], ["buckets"], ["runs"])):
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), *sys.argv[5:])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
