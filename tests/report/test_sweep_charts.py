#!/usr/bin/env python3
"""test_sweep_charts.py NETSURVEY JOURNALS - a sweep's curve charts as their readers read them.

Journals of sweeps (the committed sweep-base, and ones made here with gen_journal.py: zone
cells of one and of several host pairs, noisy trials whose intervals reach below zero, a rate
sweep over decades, a stream-count sweep that is neither, 20 pairs: past the pairs chart's
limit) are reported; each chart's .dat and .gp are
parsed: one curve per zone cell (per host pair in the pairs chart), one point per value of each,
every interval inside the y range and every value inside the x range, a log2 x axis exactly
where the values are powers of two, log10 where they span two decades, else linear; and, with
gnuplot, the SVG: one glyph per point inside the plot area, the legend's glyphs (one per curve)
outside it."""
import glob
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_journal  # noqa: E402

GNUPLOT = shutil.which("gnuplot")


def fail(msg):
    sys.exit("test_sweep_charts: " + msg)


def make_sweep(path, param, values, zones, rng, rid):
    """A run of a sweep of param over values, 3 trials a value, every ordered pair of hosts in
    zones (one host per zone); trial values noisy enough that some intervals reach below 0."""
    hosts = [gen_journal.host("h%d" % i, z, "r", "10.0.%d.4" % i) for i, z in enumerate(zones)]
    names = [h["name"] for h in hosts]
    pairs = [(a, b) for a in names for b in names if a != b]
    kind = "udp_stream" if param == "rate_bps" else "tcp_stream"
    sc = gen_journal.scen("s", kind, trials=3, sweep=param)
    sc[param] = values
    sc.pop("response_size", None)
    sc["interval_s"] = 0.0
    j = gen_journal.Journal(path, rid, "sweeps", hosts, [sc], 0, version=2,
                            planned={"s": 3 * len(values) * len(pairs)}, pairs=pairs)
    j.trial_version = 4
    for n in range(1, 4):
        for v in values:
            j.scenarios["s"] = dict(sc, **{param: v})
            for a, b in pairs:
                base = 50.0 * (1 + values.index(v))
                val = base * rng.choice([0.2, 1.0, 1.9])  # wide: CIs reach under zero
                j.trial("s", a, b, n, gen_journal.make_result(kind, round(val, 3), rng, 10))
    j.scenarios["s"] = sc
    j.close()
    return len(pairs)


def report(bin_, run, out, gnuplot):
    env = dict(os.environ)
    if not gnuplot:
        env["NETSURVEY_GNUPLOT"] = "/nonexistent/gnuplot"
    p = subprocess.run([bin_, "report", run, "-o", out], env=env, capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        fail("netsurvey report %s: exit %d: %s" % (run, p.returncode, p.stderr))


def read_dat(path):
    """The data blocks of a chart: [[(value, mean, lo, hi, n), ...], ...]."""
    blocks, cur = [], []
    with open(path) as f:
        text = f.read()
    for chunk in text.split("\n\n\n"):
        cur = []
        for line in chunk.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            x = line.split()
            cur.append((float(x[0]), float(x[1]), float(x[2]), float(x[3]), int(x[4])))
        blocks.append(cur)
    return blocks


def gp_range(script, axis):
    m = re.search(r"set %srange \[([-0-9.e+]+):([-0-9.e+]+)\]" % axis, script)
    if m is None:
        fail("no %srange in the script" % axis)
    return float(m.group(1)), float(m.group(2))


def check_svg(svg, curves, points):
    """Glyphs (gnuplot's filled circles) inside the plot area: one per point; outside it: the
    legend's, one per curve. The plot area is where the grid lines run."""
    tree = ET.parse(svg)
    xs, ys = [], []
    glyphs = []
    for el in tree.iter():
        d = el.get("d") or ""
        if el.get("class") == "gridline":
            nums = [float(v) for v in re.findall(r"[-0-9.]+", d)]
            if len(nums) == 4 and nums[1] == nums[3]:
                xs += [nums[0], nums[2]]
            elif len(nums) == 4 and nums[0] == nums[2]:
                ys += [nums[1], nums[3]]
        href = el.get("{http://www.w3.org/1999/xlink}href")
        t = el.get("transform") or ""
        if href == "#gpPt6" and t.startswith("translate("):
            x, y = (float(v) for v in t[len("translate("):t.index(")")].split(","))
            glyphs.append((x, y))
    if not xs or not ys:
        fail("%s: no grid lines to find the plot area by" % svg)
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    inside = [g for g in glyphs if x0 - 0.5 <= g[0] <= x1 + 0.5 and y0 - 0.5 <= g[1] <= y1 + 0.5]
    outside = [g for g in glyphs if g not in inside]
    if len(inside) != points:
        fail("%s: %d glyphs inside the plot area, %d points" % (svg, len(inside), points))
    if len(outside) != curves or any(g[0] <= x1 for g in outside):
        fail("%s: legend glyphs %s not one per curve right of the plot (x > %.1f)"
             % (svg, outside, x1))


def check_chart(out, kind, key, values, curves, axis, gnuplot):
    dat = os.path.join(out, "charts", "%s-%s.dat" % (kind, key))
    gp = os.path.join(out, "charts", "%s-%s.gp" % (kind, key))
    blocks = read_dat(dat)
    if len(blocks) != curves:
        fail("%s: %d curves, want %d" % (dat, len(blocks), curves))
    with open(gp) as f:
        script = f.read()
    ylo, yhi = gp_range(script, "y")
    xlo, xhi = gp_range(script, "x")
    for b in blocks:
        if [p[0] for p in b] != values:
            fail("%s: points at %s, want one per value %s" % (dat, [p[0] for p in b], values))
        for v, mean, lo, hi, n in b:
            if n < 1 or not (lo <= mean <= hi):
                fail("%s: point %s" % (dat, (v, mean, lo, hi, n)))
            if lo < ylo or hi > yhi:
                fail("%s: CI [%g, %g] outside the y range [%g, %g]" % (dat, lo, hi, ylo, yhi))
            if not xlo < v < xhi:
                fail("%s: value %g outside the x range [%g, %g]" % (dat, v, xlo, xhi))
    if ylo > 0:
        fail("%s: the y axis does not start at zero (%g)" % (gp, ylo))
    has2 = "set logscale x 2" in script
    has10 = "set logscale x 10" in script
    if (axis == "log2") != has2 or (axis == "log10") != has10:
        fail("%s: axis %s, script: log2 %s log10 %s" % (gp, axis, has2, has10))
    # the reports' chart text (output.h's REPORT_CHART_FONT, as every other chart's script says
    # it), so that a curve reads as well as the bars beside it at 800 px
    fonts = set(re.findall(r'font "sans,(\d+)"', script))
    for other in glob.glob(os.path.join(out, "charts", "bars-*.gp")):
        with open(other) as f:
            fonts |= set(re.findall(r'^set terminal .* font "sans,(\d+)"', f.read(), re.M))
    if len(fonts) != 1:
        fail("%s: chart text sizes %s, want the reports' one size" % (gp, sorted(fonts)))
    # one unit for the figure: the y label's, the caption's
    m = re.search(r"set ylabel '[^(]*\(([^)]*)\)'", script)
    if m is None:
        fail("%s: no unit in the y label" % gp)
    if gnuplot:
        check_svg(os.path.join(out, "charts", "%s-%s.svg" % (kind, key)), curves,
                  curves * len(values))
    return m.group(1)


def check_run(bin_, run, out, key, values, axis, cells, pairs, gnuplot):
    report(bin_, run, out, gnuplot)
    with open(os.path.join(out, "summary.json")) as f:
        w = json.load(f)["sweeps"][0]
    if w["values"] != values or w["axis"] != axis or len(w["cells"]) != cells:
        fail("%s: sweep %s" % (run, {k: w[k] for k in ("values", "axis")}))
    check_chart(out, "sweep", key, values, cells, axis, gnuplot)
    per_pair = cells < pairs <= 12  # a cell of several pairs; else the cells' chart is theirs
    if per_pair:
        check_chart(out, "sweeppairs", key, values, pairs, axis, gnuplot)
    elif os.path.exists(os.path.join(out, "charts", "sweeppairs-%s.dat" % key)):
        fail("%s: a pairs chart, %d pairs in %d cells" % (run, pairs, cells))
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    for kind in ("sweep",) + (("sweeppairs",) if per_pair else ()):
        if ("](charts/%s-%s.svg)" % (kind, key) in md) != gnuplot:
            fail("%s: chart %s-%s %s in report.md" % (run, kind, key,
                                                     "missing" if gnuplot else "drawn"))


def main():
    bin_, journals = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="ns-sweepcharts-")
    rng = random.Random(31)
    checked = 0
    try:
        for gp in ([False, True] if GNUPLOT else [False]):
            out = os.path.join(tmp, "base-%d" % gp)
            check_run(bin_, os.path.join(journals, "sweep-base"), out, "tput",
                      [64, 1024, 65536], "log2", 1, 1, gp)
            checked += 1
        cases = [("msg_size", [64, 1024, 16384, 65536], ["1", "2", "3"], "log2"),
                 ("rate_bps", [10000000, 100000000, 1000000000], ["1", "2", "3"], "log10"),
                 ("streams", [1, 3, 5], ["1", "2", "3", "4"], "linear"),
                 ("window", [65536, 262144, 1048576], ["1", "1", "2"], "log2"),
                 ("msg_size", [1024, 4096], ["1", "1", "2", "2", "3"], "log2")]
        for i, (param, values, zones, axis) in enumerate(cases):
            run = os.path.join(tmp, "run-%d" % i)
            npairs = make_sweep(run, param, values, zones, rng, "20261203T15000%dZ-swc%d" % (i, i))
            for gp in ([False, True] if GNUPLOT else [False]):
                out = os.path.join(tmp, "out-%d-%d" % (i, gp))
                ncells = len({(zones[a], zones[b]) for a in range(len(zones))
                              for b in range(len(zones)) if a != b})
                check_run(bin_, run, out, "s", values, axis, ncells, npairs, gp)
                checked += 1
    finally:
        shutil.rmtree(tmp)
    print("sweep charts checked: %d reports%s" % (checked, "" if GNUPLOT else " (no gnuplot)"))


if __name__ == "__main__":
    main()
