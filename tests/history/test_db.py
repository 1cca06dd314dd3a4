#!/usr/bin/env python3
"""test_db.py - the history database through the command line, on a real engine: SQLite files,
or the throw-away PostgreSQL cluster of pg_cluster.sh (ctest fixture history_pg).

What is held, for ENGINE sqlite or postgresql:
  - publish: every fixture journal, each read back with the engine's own client (sqlite3, psql):
    every line of results.jsonl in trials or journal_lines, byte for byte, once; the trials the
    reports count (summary.json's ok and failed); the cells' figures = summary.json's; run.json
    byte for byte. Publishing again replaces (the same rows, "replacing" said); an incomplete run
    published, then the same run complete, is the complete run.
  - atomic: a failure injected into the last table a run is written to (a trigger) leaves the
    copy before whole and nothing of a new run.
  - trend --db, compare --db and report --db give the outputs, standard output and exit status
    of trend, compare and report on the runs' directories (each named by its run_id), byte for
    byte, selectors included.
  - merged_percentile.sql, run by the engine's client, gives the percentiles of a report of the
    runs merged; the views give each cell's history and the latest matrix.
  - bad input: a URL that is not one, a server that does not answer, a database of another
    schema, a newer one, a file that is not a database, a read-only one (a file mode 444; a
    PostgreSQL role without write rights): each one line on stderr, its exit status, no password
    shown, nothing written.
  - run --db: a survey on loopback published as it ends; an unreachable database refused before
    the survey; a publish that fails at the end leaves the run directory whole, says how to
    publish it, exit 6.
  - the gates of the directory commands hold with --db: a run compared with itself is refused
    (exit 6, nothing written); no output over the database's file, over a run's journal or into
    another run's directory (exit 2, nothing written); report --db never writes the database's
    copy over a directory whose run moved on since it was published (exit 5, its journal kept).
  - a run whose plan a resume with --force revised (run.json version 3, trial/4 records):
    published with every trial the report counts, each under the scenario the report files it
    in ("lat (revision 1)"), and read back as its directory gives it.
  - export: samples and CSV rows for every ok trial, with the trial's figures.
  - sweeps: a scenario that sweeps a parameter is one row per value in scenarios, cells and
    trials (the value in their keys, column sweep); compare --db and trend --db read them as
    from their directories; the views follow each value's cells from run to run.

usage: test_db.py NETSURVEY FIXTURES_DIR SOURCE_DIR sqlite|postgresql [PG_STATE_DIR]
Exit 77 (skipped) only when PostgreSQL is not installed and this is not root (pg_cluster.sh
says so); as root (CI, where .ci/install installs it) its absence fails.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []
ENV = dict(os.environ, NETSURVEY_GNUPLOT="/nonexistent/gnuplot", LC_ALL="C")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def run(args, cwd=None, user=None):
    return subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True, user=user)


class Engine:
    """A database of one engine, queried with its own client."""

    def __init__(self, kind, tmp, state):
        self.kind = kind
        self.tmp = tmp
        self.n = 0
        if kind == "postgresql":
            with open(os.path.join(state, "url"), encoding="utf-8") as f:
                self.admin = f.read().strip()  # postgresql://ns@/postgres?host=DIR
            self.host = self.admin.split("host=", 1)[1]

    def new(self, tag):
        """A fresh, empty database: its URL."""
        self.n += 1
        if self.kind == "sqlite":
            return "sqlite:" + os.path.join(self.tmp, f"{tag}-{self.n}.db")
        name = f"ns_{tag}_{self.n}_{os.getpid()}"
        p = run(["psql", self.admin, "-X", "-q", "-c", f'CREATE DATABASE "{name}"'])
        if p.returncode != 0:
            sys.exit(f"createdb: {p.stderr}")
        return f"postgresql://ns@/{name}?host={self.host}"

    def sql(self, url, query, role=None):
        """Rows of a query (lists of strings; NULL as ''), or None on an error."""
        if self.kind == "sqlite":
            p = run(["sqlite3", "-bail", "-csv", url[len("sqlite:"):], query])
        else:
            u = url if role is None else url.replace("ns@", role + "@")
            p = run(["psql", u, "-X", "-q", "-A", "--csv", "-t", "-v", "ON_ERROR_STOP=1", "-c",
                     query])
        if p.returncode != 0:
            print(f"sql: {query[:100]}: {p.stderr.strip()}")
            return None
        return list(csv.reader(io.StringIO(p.stdout)))

    def script(self, url, text):
        """Rows of a script's last statement (a file fed to the client)."""
        path = os.path.join(self.tmp, "script.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        if self.kind == "sqlite":
            p = run(["sqlite3", "-bail", "-csv", url[len("sqlite:"):], f".read {path}"])
        else:
            p = run(["psql", url, "-X", "-q", "-A", "--csv", "-t", "-v", "ON_ERROR_STOP=1", "-f",
                     path])
        if p.returncode != 0:
            print(f"script: {p.stderr.strip()}")
            return None
        return list(csv.reader(io.StringIO(p.stdout)))

    def count(self, url, table, where="1 = 1"):
        rows = self.sql(url, f"SELECT count(*) FROM {table} WHERE {where}")
        return int(rows[0][0]) if rows else -1


def lit(s):
    """s as an SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


def run_json(d):
    with open(os.path.join(d, "run.json"), encoding="utf-8") as f:
        return json.load(f)


def lines_of(d):
    """results.jsonl as (lines without their newline, whether the last one has none)."""
    with open(os.path.join(d, "results.jsonl"), "rb") as f:
        data = f.read()
    torn = len(data) > 0 and not data.endswith(b"\n")
    lines = data.split(b"\n")
    if not torn:
        lines = lines[:-1]
    return lines, torn


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def tree(d):
    """{relative path: bytes} of every file under d."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


def same_tree(a, b, what):
    ta, tb = tree(a), tree(b)
    if not check(sorted(ta) == sorted(tb), f"{what}: files {sorted(set(ta) ^ set(tb))}"):
        return False
    bad = [k for k in ta if ta[k] != tb[k]]
    return check(not bad, f"{what}: {bad[:3]} differ")


# --- publishing ----------------------------------------------------------------------------------


def publish_and_read_back(ns, eng, url, runs, ids):
    p = run([ns, "publish", *ids, "--db", url], cwd=runs)
    check(p.returncode == 0, f"publish: exit {p.returncode}: {p.stderr}")
    check(len(re.findall(r"^published ", p.stdout, re.M)) == len(ids), f"publish: {p.stdout}")
    for rid in ids:
        d = os.path.join(runs, rid)
        lines, torn = lines_of(d)
        got = eng.sql(url, f"SELECT journal_lines, journal_torn, run_json FROM runs "
                           f"WHERE run_id = {lit(rid)}")
        if not check(got and len(got) == 1, f"{rid}: no runs row"):
            continue
        check(int(got[0][0]) == len(lines), f"{rid}: journal_lines {got[0][0]} != {len(lines)}")
        check(got[0][1] in ("1", "t", "true") if torn else got[0][1] in ("0", "f", "false"),
              f"{rid}: journal_torn {got[0][1]}")
        with open(os.path.join(d, "run.json"), encoding="utf-8") as f:
            check(got[0][2] == f.read(), f"{rid}: run_json is not run.json")
        trials = eng.sql(url, f"SELECT line, record, ok FROM trials WHERE run_id = {lit(rid)} "
                              "ORDER BY line")
        others = eng.sql(url, f"SELECT line FROM journal_lines WHERE run_id = {lit(rid)}")
        seen = sorted([int(t[0]) for t in trials] + [int(o[0]) for o in others])
        check(seen == list(range(1, len(lines) + 1)), f"{rid}: lines in the database {seen[:8]}")
        for t in trials:
            if not check(t[1].encode() == lines[int(t[0]) - 1], f"{rid}: trial line {t[0]}"):
                break
        out = os.path.join(eng.tmp, "rep-" + rid)
        run([ns, "report", d, "-o", out])
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            summ = json.load(f)
        c = summ["completeness"]
        nok = sum(1 for t in trials if t[2] in ("1", "t", "true"))
        check(nok == c["ok"] and len(trials) == c["ok"] + c["failed"],
              f"{rid}: trials {len(trials)} ({nok} ok) against the summary's {c}")
        check_cells(eng, url, rid, summ)
        dup = eng.sql(url, "SELECT scenario, family, sweep, src_host, dst_host, trial FROM trials "
                           f"WHERE run_id = {lit(rid)} GROUP BY scenario, family, sweep, "
                           "src_host, dst_host, trial HAVING count(*) > 1")
        check(dup == [], f"{rid}: a trial twice in trials: {dup[:2]}")
        hosts = eng.count(url, "hosts", f"run_id = {lit(rid)}")
        check(hosts == len(run_json(d).get("hosts", [])), f"{rid}: {hosts} hosts")


def sweep_key(s):
    """The database's sweep column of a summary scenario: "msg_size=1K", '' for no sweep."""
    return f"{s['sweep']['param']}={s['sweep']['text']}" if "sweep" in s else ""


def check_cells(eng, url, rid, summ):
    rows = eng.sql(url, "SELECT scenario, family, sweep, src_zone, dst_zone, n, mean, ci95_low, "
                        "ci95_high, median, rtt_p50, rtt_p99 FROM cells "
                        f"WHERE run_id = {lit(rid)} AND level = 'zone'")
    db = {(r[0], r[1], r[2], r[3], r[4]): r[5:] for r in rows}
    want = 0
    for s in summ["scenarios"]:
        for c in s["zone_cells"]:
            want += 1
            got = db.get((s["name"], s["family"], sweep_key(s), c["src_zone"], c["dst_zone"]))
            if not check(got is not None, f"{rid}: no cell {s['name']} {sweep_key(s)} "
                                          f"{c['src_zone']}"):
                continue
            check(int(got[0]) == c["n"], f"{rid}: cell n {got[0]} != {c['n']}")
            pairs = [("mean", 1), ("ci95_low", 2), ("ci95_high", 3), ("median", 4)]
            if "rtt_us" in c:
                pairs.append(("p50", 5))
                pairs.append(("p99", 6))
            for k, i in pairs:
                v = c["rtt_us"][k] if k in ("p50", "p99") else c.get(k)
                if v is not None:
                    check(got[i] != "" and close(float(got[i]), v, 1e-8),
                          f"{rid}: cell {k} {got[i]} != {v}")
    check(len(rows) == want, f"{rid}: {len(rows)} zone cells, summary has {want}")


TABLES = ["runs", "hosts", "scenarios", "cells", "cell_buckets", "trials", "journal_lines"]


def republish(ns, eng, url, runs, ids):
    before = [eng.count(url, t) for t in TABLES]
    p = run([ns, "publish", *ids, "--db", url], cwd=runs)
    check(p.returncode == 0 and p.stdout.count("replacing the copy before") == len(ids),
          f"republish: exit {p.returncode}: {p.stdout} {p.stderr}")
    check([eng.count(url, t) for t in TABLES] == before, "republish: rows changed")


def incomplete_then_complete(ns, eng, url, fixtures, tmp):
    src = os.path.join(fixtures, "trend-a")
    rid = run_json(src)["run_id"]
    part = os.path.join(tmp, "part", rid)
    shutil.copytree(src, part)
    lines, _ = lines_of(src)
    half = len(lines) // 2
    with open(os.path.join(part, "results.jsonl"), "wb") as f:
        f.write(b"".join(x + b"\n" for x in lines[:half]))
    rj = run_json(src)
    rj["state"] = "interrupted"
    with open(os.path.join(part, "run.json"), "w", encoding="utf-8") as f:
        json.dump(rj, f)
    db = eng.new("part")
    p = run([ns, "publish", part, "--db", db])
    check(p.returncode == 0, f"incomplete publish: {p.stderr}")
    got = eng.sql(db, f"SELECT complete, state, not_run FROM runs WHERE run_id = {lit(rid)}")
    check(got and got[0][0] in ("0", "f", "false") and got[0][1] == "interrupted" and
          int(got[0][2]) > 0, f"incomplete run: {got}")
    check(eng.count(db, "trials") == half, "incomplete run: its trials")
    p = run([ns, "publish", src, "--db", db])
    check(p.returncode == 0 and "replacing" in p.stdout, f"complete publish: {p.stderr}")
    got = eng.sql(db, f"SELECT complete, state, not_run, journal_lines FROM runs "
                      f"WHERE run_id = {lit(rid)}")
    check(got and got[0][0] in ("1", "t", "true") and
          got[0][1] == (run_json(src).get("state") or "") and int(got[0][2]) == 0 and int(got[0][3]) == len(lines), f"complete run: {got}")
    check(eng.count(db, "trials") == len(lines), "complete run: its trials")


def trial_flags(ns, eng, fixtures, tmp):
    """A record's own "flags" (issue 28's per-trial flags) kept as its trials row's flags."""
    src = os.path.join(fixtures, "trend-b")
    rid = run_json(src)["run_id"]
    d = os.path.join(tmp, "flags", rid)
    shutil.copytree(src, d)
    lines, _ = lines_of(src)
    rec = json.loads(lines[4])
    rec["flags"] = ["steal", {"drops": 3}]
    lines[4] = json.dumps(rec, separators=(",", ":")).encode()
    with open(os.path.join(d, "results.jsonl"), "wb") as f:
        f.write(b"".join(x + b"\n" for x in lines))
    db = eng.new("flags")
    p = run([ns, "publish", d, "--db", db])
    check(p.returncode == 0, f"flags: publish {p.stderr}")
    got = eng.sql(db, "SELECT line, flags FROM trials WHERE flags IS NOT NULL")
    check(got and len(got) == 1 and got[0][0] == "5" and
          json.loads(got[0][1]) == ["steal", {"drops": 3}], f"flags: {got}")


def fail_trigger(eng, url, table, on):
    if eng.kind == "sqlite":
        q = (f"CREATE TRIGGER ns_fail BEFORE INSERT ON {table} BEGIN "
             "SELECT RAISE(ABORT, 'injected failure'); END" if on else
             "DROP TRIGGER ns_fail")
    else:
        q = ("CREATE OR REPLACE FUNCTION ns_fail() RETURNS trigger LANGUAGE plpgsql AS "
             "$$BEGIN RAISE EXCEPTION 'injected failure'; END$$; "
             f"CREATE TRIGGER ns_fail BEFORE INSERT ON {table} FOR EACH ROW "
             "EXECUTE FUNCTION ns_fail()" if on else f"DROP TRIGGER ns_fail ON {table}")
    check(eng.sql(url, q) is not None, f"trigger {on}")


def atomic(ns, eng, url, runs, fixtures, tmp):
    """A failure in the last table written: the copy before stays whole, a new run is absent."""
    rid = run_json(os.path.join(fixtures, "basic"))["run_id"]
    before = [eng.count(url, t) for t in TABLES]
    fail_trigger(eng, url, "journal_lines", True)
    p = run([ns, "publish", rid, "--db", url], cwd=runs)
    err = [x for x in p.stderr.strip().splitlines() if "warning:" not in x]
    check(p.returncode == 3 and len(err) == 1 and "injected failure" in err[0],
          f"failed publish: {p.returncode} {p.stderr}")
    check([eng.count(url, t) for t in TABLES] == before, "failed republish changed rows")
    new = os.path.join(tmp, "new-run")
    shutil.copytree(os.path.join(runs, rid), new)
    for name in ("run.json", "results.jsonl"):
        path = os.path.join(new, name)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            t = f.read()
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(t.replace(rid, "20261130T150000Z-n3w0"))
    p = run([ns, "publish", new, "--db", url])
    check(p.returncode == 3, f"failed new publish: {p.returncode}")
    for t in TABLES:
        check(eng.count(url, t, "run_id = '20261130T150000Z-n3w0'") == 0, f"{t}: half a run")
    fail_trigger(eng, url, "journal_lines", False)


# --- reading back ---------------------------------------------------------------------------------


def same_command(ns, runs, tmp, dir_args, db_args, what, out_flag="-o"):
    """The command on directories (in runs) and on the database: outputs, stdout, status."""
    results = []
    for i, args in enumerate((dir_args, db_args)):
        out = os.path.join(tmp, "out")
        shutil.rmtree(out, ignore_errors=True)
        p = run([ns, *args, out_flag, out], cwd=runs)
        keep = os.path.join(tmp, f"out{i}")
        shutil.rmtree(keep, ignore_errors=True)
        if os.path.isdir(out):
            os.rename(out, keep)
        else:
            os.makedirs(keep)
        results.append((p, keep))
    (p1, o1), (p2, o2) = results
    check(p1.returncode == p2.returncode,
          f"{what}: exit {p1.returncode} from directories, {p2.returncode} from the database: "
          f"{p2.stderr.strip()}")
    check(p1.stdout == p2.stdout, f"{what}: standard output differs")
    same_tree(o1, o2, what)
    return p1.returncode


def trend_selectors(ns, url, runs, tmp, ids):
    meta = {i: run_json(os.path.join(runs, i)) for i in ids}
    order = sorted(ids, key=lambda i: (meta[i]["started"], i))

    def pick(plan=None, since=None, until=None, last=0, scenario=None):
        out = [i for i in order
               if (plan is None or meta[i]["plan"]["name"] == plan)
               and (since is None or meta[i]["started"] >= since)
               and (until is None or meta[i]["started"] < until)
               and (scenario is None or any(s["name"] == scenario for s in meta[i]["scenarios"]))]
        return out[-last:] if last else out

    trend_ids = [i for i in ids if re.search(r"-(t00\d|o001)$", i)]
    cases = [
        (trend_ids, []),
        (pick("westus3-zones", "2026-11-01", "2026-11-20"),
         ["--plan", "westus3-zones", "--since", "2026-11-01", "--until", "2026-11-20"]),
        (pick("westus3-zones", last=3), ["--plan", "westus3-zones", "--last", "3"]),
        (pick(since="2026-11-15T00:00:00Z", until="2026-11-25"),
         ["--since", "2026-11-15T00:00:00Z", "--until", "2026-11-25"]),
    ]
    for want, sel in cases:
        args = ["trend", "--db", url, *sel] + ([] if sel else trend_ids)
        if len(want) < 2:
            p = run([ns, *args, "-o", os.path.join(tmp, "t")], cwd=runs)
            check(p.returncode == 2, f"trend {sel}: {len(want)} runs, exit {p.returncode}")
            continue
        st = same_command(ns, runs, tmp, ["trend", *want], args, f"trend {sel or 'ids'}")
        check(st in (0, 1, 5), f"trend {sel}: exit {st}")
    # --scenario: only that scenario, and runs that have it
    p = run([ns, "trend", "--db", url, "--scenario", "throughput", "--plan", "westus3-zones",
             "-o", os.path.join(tmp, "ts")], cwd=runs)
    check(p.returncode in (0, 1), f"trend --scenario: {p.returncode} {p.stderr}")
    names = sorted(f for f in os.listdir(os.path.join(tmp, "ts")) if f.endswith(".csv"))
    check(names == ["trend-throughput.csv"], f"trend --scenario: {names}")


def compare_all(ns, url, runs, tmp, ids):
    n = 0
    for a in ids:
        for b in ids:
            d = ["compare", a, b]
            q = ["compare", "--db", url, a, b]
            same_command(ns, runs, tmp, d, q, f"compare {a} {b}")
            n += 1
    return n


def reports(ns, url, runs, tmp, ids):
    d1, d2 = os.path.join(tmp, "rd1"), os.path.join(tmp, "rd2")
    for d in (d1, d2):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for rid in ids:
        shutil.copytree(os.path.join(runs, rid), os.path.join(d1, rid))
        p1 = run([ns, "report", rid], cwd=d1)
        p2 = run([ns, "report", "--db", url, rid], cwd=d2)
        check(p1.returncode == p2.returncode, f"report {rid}: {p1.returncode} {p2.returncode}")
        check(p1.stdout == p2.stdout, f"report {rid}: stdout")
        same_tree(os.path.join(d1, rid), os.path.join(d2, rid), f"report --db {rid}")
    # again into the same directory: it holds that run, so it is rewritten the same
    p = run([ns, "report", "--db", url, ids[0]], cwd=d2)
    check(p.returncode in (0, 4), f"report --db again: {p.returncode} {p.stderr}")
    same_tree(os.path.join(d1, ids[0]), os.path.join(d2, ids[0]), "report --db again")
    # ...but not into one that holds another
    p = run([ns, "report", "--db", url, ids[0], "-o", ids[1]], cwd=d2)
    check(p.returncode == 5 and "not empty" in p.stderr, f"report --db into another run: "
          f"{p.returncode} {p.stderr}")


def merged_percentiles(ns, eng, url, src, runs, tmp, a, b):
    out = os.path.join(tmp, "merged")
    run([ns, "report", a, b, "-o", out], cwd=runs)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summ = json.load(f)
    with open(os.path.join(src, "src/history/merged_percentile.sql"), encoding="utf-8") as f:
        text = f.read()
    head, rest = text.split("    -- selection:\n", 1)
    _, tail = rest.split("    -- end of selection\n", 1)
    n = 0
    for s in summ["scenarios"]:
        for c in s["zone_cells"]:
            if "rtt_us" not in c:
                continue
            for q, key in ((50, "p50"), (99, "p99"), (99.9, "p99_9")):
                sel = (f"    WHERE run_id IN ('{a}', '{b}') AND scenario = '{s['name']}' "
                       f"AND family = '{s['family']}' AND src_zone = '{c['src_zone']}' "
                       f"AND dst_zone = '{c['dst_zone']}'\n")
                body = (head + sel + tail).replace("CAST(99 AS DOUBLE PRECISION)",
                                                   f"CAST({q} AS DOUBLE PRECISION)")
                rows = eng.script(url, body)
                if not check(rows and len(rows) == 1, f"merged {key}: {rows}"):
                    continue
                runs_n, trips, value = rows[0]
                check(int(runs_n) == 2 and int(trips) == c["rtt_us"]["n"],
                      f"merged {s['name']} {c['src_zone']}->{c['dst_zone']}: {rows[0]}")
                check(close(float(value), c["rtt_us"][key], 1e-9),
                      f"merged {key} {s['name']} {c['src_zone']}->{c['dst_zone']}: "
                      f"{value} != {c['rtt_us'][key]}")
                n += 1
    check(n >= 6, f"merged percentiles: only {n} checked")


def views(eng, url, runs, ids):
    rows = eng.sql(url, "SELECT run_id, mean, previous_mean, change_pct FROM zone_pair_history "
                        "WHERE plan = 'westus3-zones' AND scenario = 'latency' "
                        "AND src_zone = '1' AND dst_zone = '2' ORDER BY started_at, run_id")
    meta = {i: run_json(os.path.join(runs, i)) for i in ids}
    want = sorted((m["started"], i) for i, m in meta.items()
                  if m["plan"]["name"] == "westus3-zones" and
                  any(s["name"] == "latency" for s in m["scenarios"]))
    have = [r[0] for r in rows]
    check(have == [i for _, i in want if i in have] and len(have) >= 4,
          f"zone_pair_history: {have}")
    for prev, cur in zip(rows, rows[1:]):
        if prev[1] and cur[1]:
            m0, m1 = float(prev[1]), float(cur[1])
            check(close(float(cur[2]), m0, 1e-9) and close(float(cur[3]), 100 * (m1 - m0) / m0,
                                                            1e-6),
                  f"zone_pair_history change: {cur}")
    rows = eng.sql(url, "SELECT DISTINCT run_id FROM zone_matrix_latest "
                        "WHERE plan = 'westus3-zones' AND scenario = 'latency'")
    check(rows == [[want[-1][1]]], f"zone_matrix_latest: {rows}, newest {want[-1][1]}")


def sweeps(ns, eng, url, runs, tmp, ids):
    """Runs whose scenario sweeps msg_size: one row per value in scenarios, cells and trials (the
    value in the key), read back by compare --db and trend --db as from their directories, and
    the views' history follows a value from run to run."""
    swept = [i for i in ids if i.endswith(("-swp0", "-swp1", "-swp2"))]
    if not check(len(swept) == 3, f"sweeps: the fixtures {swept}"):
        return
    summ = {}
    for rid in swept:
        out = os.path.join(tmp, "sweep-rep-" + rid)
        run([ns, "report", os.path.join(runs, rid), "-o", out])
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            summ[rid] = json.load(f)
        want = [sweep_key(x) for x in summ[rid]["scenarios"]]
        got = eng.sql(url, f"SELECT sweep FROM scenarios WHERE run_id = {lit(rid)} ORDER BY ord")
        check([r[0] for r in got or []] == want and len(set(want)) == len(want) > 1 and
              all(w.startswith("msg_size=") for w in want), f"sweeps: {rid} scenarios {got}")
        got = eng.sql(url, f"SELECT sweep, count(*) FROM trials WHERE run_id = {lit(rid)} "
                           "GROUP BY sweep ORDER BY sweep")
        check({r[0]: int(r[1]) for r in got or []} ==
              {sweep_key(x): x["trials"]["ok"] + x["trials"]["failed"]
               for x in summ[rid]["scenarios"]}, f"sweeps: {rid} trials by value {got}")
    for a in swept:
        for b in swept:
            if a != b:
                same_command(ns, runs, tmp, ["compare", a, b], ["compare", "--db", url, a, b],
                             f"sweeps: compare {a} {b}")
    same_command(ns, runs, tmp, ["trend", *swept], ["trend", "--db", url, "--plan", "sweeps"],
                 "sweeps: trend --plan sweeps")
    # each value's history is its own: the 1K cell's previous figure is the 1K cell's before
    key = "msg_size=1K"
    rows = eng.sql(url, "SELECT run_id, mean, previous_mean FROM zone_pair_history "
                        f"WHERE plan = 'sweeps' AND sweep = {lit(key)} AND src_zone = '1' "
                        "AND dst_zone = '2' ORDER BY started_at, run_id")
    mean = {}
    for rid in swept:
        for x in summ[rid]["scenarios"]:
            for c in x["zone_cells"]:
                if sweep_key(x) == key and (c["src_zone"], c["dst_zone"]) == ("1", "2"):
                    mean[rid] = c["mean"]
    check([r[0] for r in rows or []] == sorted(mean) and len(mean) >= 2,
          f"sweeps: zone_pair_history of {key}: {rows}, want {mean}")
    for prev, cur in zip(rows or [], (rows or [])[1:]):
        check(close(float(cur[1]), mean[cur[0]], 1e-9) and
              close(float(cur[2]), mean[prev[0]], 1e-9), f"sweeps: history {cur}")
    rows = eng.sql(url, "SELECT DISTINCT sweep, run_id FROM zone_matrix_latest "
                        "WHERE plan = 'sweeps' ORDER BY sweep")
    latest = {}
    for rid in sorted(swept, key=lambda i: summ[i]["runs"][0]["started"]):
        for x in summ[rid]["scenarios"]:
            latest[sweep_key(x)] = rid
    check([tuple(r) for r in rows or []] == sorted(latest.items()),
          f"sweeps: zone_matrix_latest {rows}, want {sorted(latest.items())}")


# --- bad input ------------------------------------------------------------------------------------


def one_line(p, what, status, words):
    err = p.stderr.strip().splitlines()
    check(p.returncode == status, f"{what}: exit {p.returncode}, want {status}: {p.stderr}")
    check(err and all(w in err[0] for w in words), f"{what}: {err[:1]} lacks {words}")
    if status != 2:  # a usage error prints --help after its line
        check(len(err) == 1, f"{what}: {len(err)} lines on stderr")
    check("hunter2" not in p.stderr + p.stdout, f"{what}: the password is shown")


def bad_input(ns, eng, runs, fixtures, tmp, rid):
    one_line(run([ns, "publish", rid, "--db", "mysql://me:hunter2@x/y"], cwd=runs), "mysql URL",
             2, ["not a database URL"])
    one_line(run([ns, "publish", rid, "--db", "sqlite:"], cwd=runs), "empty sqlite URL", 2,
             ["sqlite"])
    one_line(run([ns, "trend", "--db", "h.db", "--last", "2"], cwd=runs), "bare path", 2,
             ["not a database URL"])
    one_line(run([ns, "trend", "a", "b", "--plan", "x"], cwd=runs), "selector without --db", 2,
             ["--db"])
    if eng.kind == "postgresql":
        gone = f"postgresql://me:hunter2@/ns?host={tmp}/nowhere"
    else:
        gone = f"sqlite:{tmp}/nowhere/h.db"
    one_line(run([ns, "publish", rid, "--db", gone], cwd=runs), "unreachable", 3,
             [gone.replace("hunter2", "***")])
    missing = os.path.join(tmp, "missing.db")
    if eng.kind == "sqlite":
        one_line(run([ns, "trend", "--db", "sqlite:" + missing, "--last", "2"]), "no file", 7,
                 ["no database"])
        check(not os.path.exists(missing), "trend --db created a database")
        notdb = os.path.join(tmp, "notdb.txt")
        with open(notdb, "w", encoding="utf-8") as f:
            f.write("not a database, not even close\n" * 100)
        one_line(run([ns, "publish", rid, "--db", "sqlite:" + notdb], cwd=runs), "not a db", 3,
                 ["not a database"])
    # another schema: its own table runs, no schema_version; nothing added to it
    other = eng.new("other")
    eng.sql(other, "CREATE TABLE runs (id INTEGER, what TEXT)")
    one_line(run([ns, "publish", rid, "--db", other], cwd=runs), "another schema", 3,
             ["another schema"])
    check(eng.count(other, "runs") == 0 and
          eng.count(other, "runs", "1 = 1 AND EXISTS (SELECT 1 FROM runs)") == 0,
          "another schema: written to")
    tables = eng.sql(other, "SELECT name FROM sqlite_master WHERE type = 'table'"
                     if eng.kind == "sqlite" else
                     "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    check(tables == [["runs"]], f"another schema: tables {tables}")
    one_line(run([ns, "trend", "--db", other, "--last", "2"], cwd=runs), "another schema read",
             7, ["another schema"])
    # a newer netsurvey's
    newer = eng.new("newer")
    run([ns, "publish", rid, "--db", newer], cwd=runs)
    eng.sql(newer, "INSERT INTO schema_version VALUES (99, 'netsurvey', 'x', '99.0')")
    before = eng.count(newer, "trials")
    one_line(run([ns, "publish", rid, "--db", newer], cwd=runs), "newer schema", 3,
             ["version 99", "newer"])
    one_line(run([ns, "compare", "--db", newer, rid, rid], cwd=runs), "newer schema read", 7,
             ["newer"])
    check(eng.count(newer, "trials") == before, "newer schema: written to")
    # no such run
    good = eng.new("good")
    run([ns, "publish", rid, "--db", good], cwd=runs)
    one_line(run([ns, "compare", "--db", good, rid, "20990101T000000Z-none", "-o", tmp + "/c"]),
             "compare unknown run", 7, ["no run 20990101T000000Z-none"])
    one_line(run([ns, "report", "--db", good, "20990101T000000Z-none", "-o", tmp + "/r"]),
             "report unknown run", 5, ["no run 20990101T000000Z-none"])
    check(not os.path.exists(tmp + "/r"), "report --db of no run made its directory")
    # a copy damaged by hand: found, and nothing written back
    damaged = eng.new("damaged")
    run([ns, "publish", rid, "--db", damaged], cwd=runs)
    eng.sql(damaged, f"DELETE FROM trials WHERE run_id = {lit(rid)} AND line = 3")
    one_line(run([ns, "report", "--db", damaged, rid, "-o", tmp + "/r"]), "damaged copy", 5,
             ["line 3", "missing"])
    check(not os.path.exists(tmp + "/r"), "report --db of a damaged copy left a directory")
    # read-only: a file of mode 444 (read as nobody when this is root, who may write it anyway)
    # or a role that may only read
    if eng.kind == "sqlite":
        path = good[len("sqlite:"):]
        ro = os.path.join(tmp, "ro")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o755)
        shutil.copy(path, os.path.join(ro, "h.db"))
        os.chmod(os.path.join(ro, "h.db"), 0o444)
        user = 65534 if os.geteuid() == 0 else None
        runs_ro = os.path.join(tmp, "runs-ro")
        shutil.copytree(os.path.join(runs, rid), os.path.join(runs_ro, rid))
        os.chmod(tmp, 0o755)
        for root, dirs, files in os.walk(runs_ro):
            os.chmod(root, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        url = "sqlite:" + os.path.join(ro, "h.db")
        with open(os.path.join(ro, "h.db"), "rb") as f:
            before = f.read()
        one_line(run([ns, "publish", rid, "--db", url], cwd=runs_ro, user=user), "read-only file",
                 3, ["cannot be written", "read"])
        with open(os.path.join(ro, "h.db"), "rb") as f:
            check(f.read() == before, "read-only file: written to")
        p = run([ns, "report", "--db", url, rid, "-o", "/dev/null/x"], user=user)
        check(p.returncode == 5, f"read-only file: report --db {p.returncode}")  # but it read it
        check("no run" not in p.stderr, f"read-only file could not be read: {p.stderr}")
    else:
        role = f"reader_{os.getpid()}"  # roles are the cluster's: one of this run's own
        check(eng.sql(good, f"CREATE ROLE {role} LOGIN; "
                            f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}") is not None,
              "read-only role: made")
        url = good.replace("ns@", role + "@")
        before = [eng.count(good, t) for t in TABLES]
        one_line(run([ns, "publish", rid, "--db", url], cwd=runs), "read-only role", 3,
                 ["cannot be written", "permission denied"])
        check([eng.count(good, t) for t in TABLES] == before, "read-only role: written to")
        nobody = f"nobody_{os.getpid()}"
        check(eng.sql(good, f"CREATE ROLE {nobody} LOGIN") is not None, "role without rights")
        one_line(run([ns, "trend", "--db", good.replace("ns@", nobody + "@"), "--last", "2"]),
                 "role without rights", 7, ["permission denied"])
        rd = os.path.join(tmp, "reader-report")
        p = run([ns, "report", "--db", url, rid, "-o", rd])
        check(p.returncode in (0, 4), f"read-only role: report --db {p.returncode} {p.stderr}")


# --- the directory commands' gates ---------------------------------------------------------------


def gates(ns, eng, url, runs, tmp, ids):
    a, b = ids[0], ids[1]
    out = os.path.join(tmp, "gate-out")
    p = run([ns, "compare", "--db", url, a, a, "-o", out])
    check(p.returncode == 6 and "same run" in p.stderr and not os.path.exists(out),
          f"compare --db of a run with itself: {p.returncode} {p.stderr}")
    other = os.path.join(runs, b)
    before = tree(other)
    p = run([ns, "compare", "--db", url, a, ids[2], "-o", other])
    check(p.returncode == 2 and "another run" in p.stderr and tree(other) == before,
          f"compare --db -o another run's directory: {p.returncode} {p.stderr}")
    p = run([ns, "trend", "--db", url, a, ids[2], "-o", other])
    check(p.returncode == 2 and "not in this trend" in p.stderr and tree(other) == before,
          f"trend --db -o another run's directory: {p.returncode} {p.stderr}")
    p = run([ns, "compare", "--db", url, a, ids[2], "-o", out, "--junit",
             os.path.join(other, "results.jsonl")])
    check(p.returncode == 2 and tree(other) == before and not os.path.exists(out),
          f"compare --db --junit over a run's journal: {p.returncode} {p.stderr}")
    if eng.kind == "sqlite":
        path = url[len("sqlite:"):]
        with open(path, "rb") as f:
            db = f.read()
        for opt in ("--junit", "--markdown-summary"):
            p = run([ns, "compare", "--db", url, a, ids[2], "-o", out, opt, path])
            with open(path, "rb") as f:
                check(p.returncode == 2 and "database" in p.stderr and f.read() == db,
                      f"compare --db {opt} over the database: {p.returncode} {p.stderr}")
    # a directory of the run that moved on since it was published: never overwritten
    d = os.path.join(tmp, "moved-on")
    shutil.rmtree(d, ignore_errors=True)
    p = run([ns, "report", "--db", url, a, "-o", d])
    check(p.returncode in (0, 4), f"report --db: {p.returncode} {p.stderr}")
    with open(os.path.join(d, "results.jsonl"), "ab") as f:
        f.write(lines_of(d)[0][0] + b"\n")
    before = tree(d)
    p = run([ns, "report", "--db", url, a, "-o", d])
    check(p.returncode == 5 and "another state" in p.stderr and tree(d) == before,
          f"report --db over a run that moved on: {p.returncode} {p.stderr}")
    was = tree(other)
    p = run([ns, "export", os.path.join(runs, a), "-o", os.path.join(other, "results.jsonl")])
    check(p.returncode == 2 and tree(other) == was,
          f"export -o a run's journal: {p.returncode} {p.stderr}")


# --- run --db and export ---------------------------------------------------------------------------

PLAN = """name: dbtest
hosts:
  - {name: lo-a, transport: local, data_address: 127.0.0.1, zone: a, region: loopback}
  - {name: lo-b, transport: local, data_address: 127.0.0.2, zone: b, region: loopback}
scenarios:
  - {name: latency, test: tcp_rr, duration: 300ms, warmup: 0s}
trials: 1
pairs: all
directions: both
output: out/{name}
"""


def survey(ns, eng, tmp):
    plan = os.path.join(tmp, "plan.yaml")
    with open(plan, "w", encoding="utf-8") as f:
        f.write(PLAN)
    url = eng.new("run")
    d = os.path.join(tmp, "survey1")
    p = run([ns, "run", plan, "-o", d, "-q", "--db", url])
    check(p.returncode == 0 and "published " in p.stdout, f"run --db: {p.returncode} {p.stderr}")
    rid = run_json(d)["run_id"] if os.path.exists(os.path.join(d, "run.json")) else "?"
    check(eng.count(url, "trials", f"run_id = {lit(rid)}") == 2, "run --db: its trials")
    # unreachable before the survey: nothing run
    gone = (f"sqlite:{tmp}/nowhere/h.db" if eng.kind == "sqlite"
            else f"postgresql://ns@/x?host={tmp}/nowhere")
    d2 = os.path.join(tmp, "survey2")
    p = run([ns, "run", plan, "-o", d2, "-q", "--db", gone])
    check(p.returncode == 6 and "nothing run" in p.stderr and not os.path.exists(d2),
          f"run --db unreachable: {p.returncode} {p.stderr}")
    # writable before, refused at the end: the run directory whole, how to publish it said
    fail_trigger(eng, url, "runs", True)
    d3 = os.path.join(tmp, "survey3")
    p = run([ns, "run", plan, "-o", d3, "-q", "--db", url])
    check(p.returncode == 6 and f"netsurvey publish {d3} --db URL" in p.stderr,
          f"run --db refused at the end: {p.returncode} {p.stderr}")
    check(os.path.exists(os.path.join(d3, "report.md")) and
          len(lines_of(d3)[0]) == 2, "run --db refused at the end: the run directory")
    fail_trigger(eng, url, "runs", False)
    p = run([ns, "publish", d3, "--db", url])
    check(p.returncode == 0 and eng.count(url, "runs") == 2, f"published later: {p.stderr}")


V1 = """name: revised
hosts:
  - {name: lo-a, transport: local, data_address: 127.0.0.1, zone: a}
  - {name: lo-b, transport: local, data_address: 127.0.0.2, zone: b}
scenarios:
  - {name: lat, test: tcp_rr, msg_size: 250, duration: 50ms, warmup: 0s}
  - {name: tput, test: tcp_stream, duration: 50ms, warmup: 0s}
trials: 2
pairs: all
"""


def revised(ns, eng, tmp):
    """A run whose plan a resume with --force revised: every trial the report counts published,
    each under the scenario the report files it in, and read back as its directory gives it."""
    v1, v2 = os.path.join(tmp, "v1.yaml"), os.path.join(tmp, "v2.yaml")
    with open(v1, "w", encoding="utf-8") as f:
        f.write(V1)
    with open(v2, "w", encoding="utf-8") as f:
        f.write(V1.replace("tcp_rr, msg_size: 250", "udp_rr, msg_size: 1000")
                .replace("  - {name: tput, test: tcp_stream, duration: 50ms, warmup: 0s}\n", ""))
    d = os.path.join(tmp, "revised")
    p = run([ns, "run", v1, "-o", d, "-q"])
    check(p.returncode == 0, f"revised: run {p.returncode} {p.stderr}")
    p = run([ns, "run", v2, "--resume", d, "--force", "-q"])
    check(p.returncode == 0, f"revised: resume --force {p.returncode} {p.stderr}")
    rj = run_json(d)
    check(rj["schema"] == "netsurvey.run/3" and rj["revision"] == 2, "revised: run.json v3")
    recs = [json.loads(x) for x in lines_of(d)[0]]
    check(len(recs) == 12 and sum(r.get("revision") == 2 for r in recs) == 4,
          "revised: 12 records, 4 of revision 2")
    with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
        summ = json.load(f)
    want = {s["name"]: s["trials"]["ok"] for s in summ["scenarios"]}
    check(want == {"lat": 4, "lat (revision 1)": 4, "tput (revision 1)": 4},
          f"revised: the report's scenarios {want}")
    url = eng.new("revised")
    p = run([ns, "publish", d, "--db", url])
    check(p.returncode == 0 and "12 trials (12 ok)" in p.stdout,
          f"revised: publish {p.returncode} {p.stdout} {p.stderr}")
    rid = rj["run_id"]
    got = eng.sql(url, f"SELECT scenario, count(*) FROM trials WHERE run_id = {lit(rid)} "
                       "GROUP BY scenario ORDER BY scenario")
    check({r[0]: int(r[1]) for r in got or []} == want, f"revised: trials rows {got}")
    check(eng.count(url, "journal_lines", f"run_id = {lit(rid)}") == 0,
          "revised: a trial of revision 1 filed as superseded")
    d1, d2 = os.path.join(tmp, "revised-dir"), os.path.join(tmp, "revised-db")
    for x in (d1, d2):
        os.makedirs(x)
    shutil.copytree(d, os.path.join(d1, rid), ignore=shutil.ignore_patterns(".lock"))
    p1 = run([ns, "report", rid], cwd=d1)
    p2 = run([ns, "report", "--db", url, rid], cwd=d2)
    check(p1.returncode == p2.returncode == 0 and p1.stdout == p2.stdout,
          f"revised: report --db {p2.returncode} {p2.stderr}")
    mine, back = os.path.join(d1, rid), os.path.join(d2, rid)
    same_tree(mine, back, "revised: report --db")


def export(ns, fixtures, tmp):
    d = os.path.join(fixtures, "basic")
    with_rtt = {"tcp_rr", "udp_rr", "tcp_crr"}
    p = run([ns, "export", d])
    check(p.returncode == 0, f"export: {p.returncode} {p.stderr}")
    samples = [json.loads(x) for x in p.stdout.splitlines()]
    out = os.path.join(tmp, "rep-basic")
    run([ns, "report", d, "-o", out])
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summ = json.load(f)
    ok = summ["completeness"]["ok"]
    heads = [s for s in samples if not s["metric"].startswith("RTT p")]
    check(len(heads) == ok, f"export: {len(heads)} headline samples, {ok} ok trials")
    rid = run_json(d)["run_id"]
    for s in samples:
        check(set(s) >= {"test", "metric", "value", "unit", "metadata", "timestamp", "official",
                         "owner", "run_uri", "sample_uri", "product_name"}, f"sample keys {s}")
        check(s["run_uri"] == rid and isinstance(s["value"], float | int), f"sample {s}")
        m = s["metadata"]
        check({"plan", "scenario", "src_zone", "dst_zone", "src_region", "trial",
               "duration_s"} <= set(m), f"sample metadata {sorted(m)}")
    rtt_heads = [s for s in heads if s["test"] in with_rtt]
    check(len(samples) == len(heads) + 2 * len(rtt_heads), "export: p50/p99 samples")
    check(len({s["sample_uri"] for s in samples}) == len(samples), "export: sample_uri unique")
    # each cell's mean is the mean of its headline samples
    for sc in summ["scenarios"]:
        for c in sc["zone_cells"]:
            vals = [s["value"] for s in heads if s["metadata"]["scenario"] == sc["name"] and
                    s["metadata"]["src_zone"] == c["src_zone"] and
                    s["metadata"]["dst_zone"] == c["dst_zone"]]
            if c["n"]:
                check(len(vals) == c["n"] and close(sum(vals) / len(vals), c["mean"], 1e-8),
                      f"export: cell {sc['name']} {c['src_zone']}->{c['dst_zone']}")
    p = run([ns, "export", d, "--format", "csv", "-o", os.path.join(tmp, "s.csv")])
    check(p.returncode == 0, f"export csv: {p.stderr}")
    with open(os.path.join(tmp, "s.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == len(samples), f"export csv: {len(rows)} rows")
    check(all(float(r["value"]) == s["value"] and r["metric"] == s["metric"] and
              r["src_zone"] == s["metadata"]["src_zone"] for r, s in zip(rows, samples)),
          "export csv: rows differ from the samples")
    p = run([ns, "export", d, "--format", "xml"])
    check(p.returncode == 2, "export --format xml")


def main():
    ns, fixtures, src, kind = sys.argv[1:5]
    state = sys.argv[5] if len(sys.argv) > 5 else None
    if kind == "postgresql":
        skip = os.path.join(state, "skip")
        if os.path.exists(skip):
            with open(skip, encoding="utf-8") as f:
                print(f"SKIP: {f.read().strip()}")
            sys.exit(77)
        if not os.path.exists(os.path.join(state, "url")):
            sys.exit("FAIL: no PostgreSQL cluster (history_pg_start failed?)")
    tmp = tempfile.mkdtemp(prefix=f"ns-db-{kind}-")
    try:
        eng = Engine(kind, tmp, state)
        runs = os.path.join(tmp, "runs")
        os.makedirs(runs)
        ids = []
        for d in sorted(os.listdir(fixtures)):
            if not os.path.exists(os.path.join(fixtures, d, "run.json")):
                continue
            rid = run_json(os.path.join(fixtures, d))["run_id"]
            if rid in ids or d.startswith("pooled"):
                continue  # one directory per run_id (multi-a and pooled-a share one)
            shutil.copytree(os.path.join(fixtures, d), os.path.join(runs, rid))
            ids.append(rid)
        url = eng.new("main")
        publish_and_read_back(ns, eng, url, runs, ids)
        republish(ns, eng, url, runs, ids)
        incomplete_then_complete(ns, eng, url, fixtures, tmp)
        trial_flags(ns, eng, fixtures, tmp)
        atomic(ns, eng, url, runs, fixtures, tmp)
        reports(ns, url, runs, tmp, ids)
        trend_selectors(ns, url, runs, tmp, ids)
        n = compare_all(ns, url, runs, tmp, [i for i in ids if "hostile" not in i][:9])
        merged_percentiles(ns, eng, url, src, runs, tmp, *[i for i in ids if "-t00" in i][:2])
        views(eng, url, runs, ids)
        sweeps(ns, eng, url, runs, tmp, ids)
        bad_input(ns, eng, runs, fixtures, tmp, ids[0])
        gates(ns, eng, url, runs, tmp, ids)
        survey(ns, eng, tmp)
        revised(ns, eng, tmp)
        if kind == "sqlite":
            export(ns, fixtures, tmp)
        print(f"{kind}: {len(ids)} runs published and read back, {n} comparisons, "
              f"{len(failures)} failures")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
