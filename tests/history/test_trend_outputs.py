#!/usr/bin/env python3
"""test_trend_outputs.py - what `netsurvey trend` writes, read by the readers its users have:
the CSVs by Python's csv module (run ids oldest first, hostile strings round-tripping, each value
the run's own matrix-<scenario>.csv value), the charts' scripts by gnuplot (each .gp runs, each
.svg is XML whose title holds the plan's strings as given), trend.html by an HTML parser (only
the page's own tags, nothing fetched, every plan string back as text) and trend.md's tables (as
many cells in every row as in its header, whatever '|' a plan string holds).

usage: test_trend_outputs.py NETSURVEY FIXTURES_DIR
"""
import csv
import html.parser
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

BASIC = ["trend-d", "trend-a", "trend-other", "trend-c", "trend-b"]
HOSTILE = ["trend-hostile-2", "trend-hostile-1"]
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "ul", "li",
             "span", "div", "table", "caption", "thead", "tbody", "tr", "th", "td", "code", "p",
             "nav", "a", "main", "section", "figure", "img", "figcaption", "footer"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run_json(fixtures, d):
    with open(os.path.join(fixtures, d, "run.json"), encoding="utf-8") as f:
        return json.load(f)


def trend(netsurvey, fixtures, dirs, out, gnuplot):
    env = dict(os.environ)
    if not gnuplot:
        env["NETSURVEY_GNUPLOT"] = "/nonexistent/gnuplot"
    p = subprocess.run([netsurvey, "trend", *dirs, "-o", out], cwd=fixtures, env=env,
                       capture_output=True, text=True)
    check(p.returncode == 1, f"trend {dirs}: exit {p.returncode} (want 1: a cell flagged): "
          f"{p.stderr}")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def check_csvs(netsurvey, fixtures, dirs, out, tmp):
    runs = sorted((run_json(fixtures, d)["started"], run_json(fixtures, d)["run_id"], d)
                  for d in dirs)
    for name in sorted(os.listdir(out)):
        if not (name.startswith("trend-") and name.endswith(".csv")):
            continue
        rows = read_csv(os.path.join(out, name))
        head = rows[0]
        check(head[:3] == ["scenario", "src", "dst"], f"{name}: header {head[:3]}")
        ids = head[3:]
        order = [r[1] for r in runs if r[1] in ids]
        check(ids == order, f"{name}: run columns {ids}, want oldest first {order}")
        for row in rows[1:]:
            check(len(row) == len(head), f"{name}: row {row} has {len(row)} fields")
        # each value is the run's own matrix value
        for k, rid in enumerate(ids):
            d = next(r[2] for r in runs if r[1] == rid)
            scen = rows[1][0]
            mdir = os.path.join(tmp, "matrix-" + d)
            if not os.path.isdir(mdir):
                env = dict(os.environ, NETSURVEY_GNUPLOT="/nonexistent/gnuplot")
                subprocess.run([netsurvey, "report", d, "-o", mdir], cwd=fixtures, env=env,
                               check=True, capture_output=True)
            key = name[len("trend-"):-len(".csv")]
            mpath = os.path.join(mdir, f"matrix-{key}.csv")
            if not os.path.exists(mpath):  # a key made unique by the trend: find it by name
                cands = [f for f in os.listdir(mdir) if f.startswith("matrix-")]
                mpath = os.path.join(mdir, cands[0])
            m = read_csv(mpath)
            cols = m[0][1:]
            byrow = {r[0]: r[1:] for r in m[1:]}
            for row in rows[1:]:
                src, dst, val = row[1], row[2], row[3 + k]
                want = byrow[src][cols.index(dst)] if src in byrow and dst in cols else ""
                check(val == want, f"{name} {scen} {src}->{dst} at {rid}: {val!r}, its matrix "
                      f"says {want!r}")
    return runs


def check_hostile_csv(fixtures, out):
    r1, r2 = run_json(fixtures, "trend-hostile-1"), run_json(fixtures, "trend-hostile-2")
    scen = r1["scenarios"][0]["name"]
    zones = sorted({h["zone"] for h in r1["hosts"]})
    path = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".csv")]
    check(len(path) == 1, f"hostile: CSVs {path}")
    rows = read_csv(path[0])
    check(rows[0] == ["scenario", "src", "dst", r1["run_id"], r2["run_id"]],
          f"hostile CSV header {rows[0]}")
    check(sorted((r[1], r[2]) for r in rows[1:]) == sorted([(zones[0], zones[1]),
                                                              (zones[1], zones[0])]),
          f"hostile CSV cells {[(r[1], r[2]) for r in rows[1:]]}")
    check(all(r[0] == scen for r in rows[1:]), "hostile CSV: the scenario's name round-trips")
    for r in rows[1:]:
        for v in r[3:]:
            check(v == "%.3f" % float(v), f"hostile CSV value {v!r}")


def check_charts(out, strings):
    cdir = os.path.join(out, "charts")
    gps = sorted(f for f in os.listdir(cdir) if f.endswith(".gp"))
    check(len(gps) >= 1, f"{cdir}: no script")
    for gp in gps:
        svg = gp[:-3] + ".svg"
        # gnuplot runs the script as kept (in a copy, so that its .svg is the script's own)
        work = tempfile.mkdtemp(prefix="ns-trend-gp-")
        for f in (gp, gp[:-3] + ".dat"):
            shutil.copy(os.path.join(cdir, f), work)
        p = subprocess.run(["gnuplot", gp], cwd=work, capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"gnuplot {gp}: exit {p.returncode}: {p.stderr[-500:]}")
        check(os.path.exists(os.path.join(work, svg)), f"gnuplot {gp}: no {svg}")
        check(not os.path.exists(os.path.join(work, "pwned")), f"gnuplot {gp} ran a command")
        with open(os.path.join(work, svg), "rb") as f:
            again = f.read()
        with open(os.path.join(cdir, svg), "rb") as f:
            drawn = f.read()
        check(again == drawn, f"{svg}: gnuplot on the kept script draws another chart")
        shutil.rmtree(work)
        root = ET.fromstring(drawn)
        texts = "\n".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
        for s in strings:
            check(s in texts, f"{svg}: {s!r} not among its texts")


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.bad = set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for k, v in attrs:
            if k in ("src", "href") and v is not None:
                if k == "src" and not v.startswith("data:image/svg+xml;base64,"):
                    self.bad.append(f"<{tag} {k}={v[:60]}>")
                if k == "href" and not v.startswith("#"):
                    self.bad.append(f"<{tag} {k}={v[:60]}>")

    def handle_data(self, data):
        self.text.append(data)


def check_html(out, strings):
    with open(os.path.join(out, "trend.html"), encoding="utf-8") as f:
        page = f.read()
    p = Page()
    p.feed(page)
    check(p.tags <= PAGE_TAGS, f"trend.html: tags not its own: {sorted(p.tags - PAGE_TAGS)}")
    check(not p.bad, f"trend.html fetches or links out: {p.bad}")
    text = "".join(p.text)
    for s in strings:
        check(s in text, f"trend.html: {s!r} not in its text")


def md_cells(line):
    """The cells of a Markdown table row: split at '|' not escaped."""
    cells, cur, esc = [], "", False
    for ch in line.strip()[1:-1]:
        if ch == "|" and not esc:
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        esc = ch == "\\" and not esc
    cells.append(cur)
    return cells


def check_md(out):
    with open(os.path.join(out, "trend.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    tables = 0
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            n = len(md_cells(lines[i]))
            tables += 1
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                check(len(md_cells(lines[j])) == n,
                      f"trend.md: row {lines[j][:80]!r} has {len(md_cells(lines[j]))} cells, "
                      f"its header {n}")
                j += 1
            i = j
        else:
            i += 1
    check(tables >= 2, f"trend.md: {tables} tables")


def main(netsurvey, fixtures):
    netsurvey = os.path.abspath(netsurvey)
    gnuplot = shutil.which("gnuplot") is not None
    tmp = tempfile.mkdtemp(prefix="ns-trend-out-")
    try:
        basic, hostile = os.path.join(tmp, "basic"), os.path.join(tmp, "hostile")
        trend(netsurvey, fixtures, BASIC, basic, gnuplot)
        trend(netsurvey, fixtures, HOSTILE, hostile, gnuplot)
        check_csvs(netsurvey, fixtures, BASIC, basic, tmp)
        check_csvs(netsurvey, fixtures, HOSTILE, hostile, tmp)
        check_hostile_csv(fixtures, hostile)
        r1, r2 = run_json(fixtures, "trend-hostile-1"), run_json(fixtures, "trend-hostile-2")
        strings = [r1["plan"]["name"], r1["scenarios"][0]["name"], r1["run_id"], r2["run_id"]]
        strings += sorted({h["zone"] for h in r1["hosts"]})
        check_html(hostile, strings)
        check_html(basic, ["westus3-zones", "other-plan", "20261115T150000Z-t003"])
        check_md(basic)
        check_md(hostile)
        if gnuplot:
            check_charts(basic, ["#3 20261115T150000Z-t003", "1 → 2"])
            check_charts(hostile, [r1["scenarios"][0]["name"], "#1 " + r1["run_id"]])
        else:
            print("gnuplot not found: the charts' scripts were not run")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("trend outputs: CSV, charts, HTML and Markdown as their readers read them")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
