#!/usr/bin/env python3
"""test_compare_outputs.py - `netsurvey compare --junit` and `--markdown-summary`.

The JUnit XML is parsed with xml.etree (a character XML cannot carry fails the parse) and held
to the shape Jenkins, GitLab and GitHub's JUnit readers share: Jenkins' junit-4.xsd, with the
attributes the Apache Ant schema requires (testsuite: name, tests, failures, errors, skipped,
time, timestamp, hostname, id, package; properties first, then test cases, then system-out and
system-err; testcase: name, classname, time, at most one failure/error/skipped first, then
system-out; failure: message and type). Every count attribute must equal what the elements
hold, and the cases must be the ones the fixtures call for: regressions, baseline cells without
counterpart (failures unless --allow-partial, then skipped), cells of the new run only
(skipped), nothing compared (one failing case). Hostile plan strings (markup, quotes, `]]>`,
control characters, U+FFFE) must come back as themselves, the characters XML cannot carry as
U+FFFD. The Markdown summary must stay within 60 lines and 64 KiB on 90 regressed cells with
long hostile names, and count what it left out exactly. Runs whose scenario ran other
parameters are refused (exit 6, each difference on stderr, nothing written) unless
--allow-param-change, and then every output names the difference; a matched cell with a failed
or not-run trial fails its test case ("failed-trials") and is counted in every summary.

usage: test_compare_outputs.py NETSURVEY FIXTURES_DIR
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "report"))  # gen_journal.py
import gen_journal as gj  # noqa: E402

NETSURVEY = FIXTURES = None
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")
SUITE_ATTRS = ("name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname",
               "id", "package")


def compare(base, new, out, *extra):
    """Run compare; (exit status, JUnit root, summary text)."""
    junit, summary = os.path.join(out, "j", "junit.xml"), os.path.join(out, "s", "summary.md")
    p = subprocess.run([NETSURVEY, "compare", base, new, "-o", os.path.join(out, "o"), "--junit",
                        junit, "--markdown-summary", summary] + list(extra),
                       cwd=FIXTURES, capture_output=True, text=True)
    with open(junit, encoding="utf-8") as f:
        text = f.read()
    with open(summary, encoding="utf-8") as f:
        md = f.read()
    return p.returncode, ET.fromstring(text.encode("utf-8")), md


class Shape:
    """Checks one JUnit document's shape and counts; collects its cases."""

    def __init__(self, tc, root):
        self.tc, self.cases = tc, []
        tc.assertEqual(root.tag, "testsuites")
        totals = dict(tests=0, failures=0, errors=0, skipped=0)
        for i, suite in enumerate(root):
            tc.assertEqual(suite.tag, "testsuite")
            for k, v in self.suite(suite, i).items():
                totals[k] += v
        for k, v in totals.items():
            tc.assertEqual(int(root.get(k)), v, "testsuites %s" % k)
        tc.assertEqual(root.get("time"), "0")

    def suite(self, s, i):
        tc = self.tc
        for a in SUITE_ATTRS:
            tc.assertIn(a, s.attrib, "testsuite lacks %s" % a)
        tc.assertTrue(s.get("name"))
        tc.assertRegex(s.get("timestamp"), STAMP)
        tc.assertEqual(int(s.get("id")), i)
        tags = [c.tag for c in s]
        tc.assertEqual(tags[0], "properties")
        tc.assertEqual(tags[-2:], ["system-out", "system-err"])
        tc.assertEqual(set(tags[1:-2]), {"testcase"} if len(tags) > 3 else set())
        for p in s[0]:
            tc.assertEqual(p.tag, "property")
            tc.assertTrue(p.get("name"))
            tc.assertIn("value", p.attrib)
        n = dict(tests=0, failures=0, errors=0, skipped=0)
        for case in s[1:-2]:
            outcome = self.case(case)
            n["tests"] += 1
            if outcome is not None:
                n["failures" if outcome[0] == "failure" else "skipped"] += 1
            self.cases.append((s.get("name"), case.get("classname"), case.get("name"), outcome))
        for k, v in n.items():
            tc.assertEqual(int(s.get(k)), v, "%s: %s" % (s.get("name"), k))
        return n

    def case(self, c):
        tc = self.tc
        for a in ("name", "classname", "time"):
            tc.assertIn(a, c.attrib)
        kids = [k.tag for k in c]
        verdicts = [k for k in kids if k in ("failure", "error", "skipped")]
        tc.assertLessEqual(len(verdicts), 1)
        tc.assertNotIn("error", verdicts)  # compare fails cells; it has no errors
        if verdicts:
            tc.assertEqual(kids[0], verdicts[0])
        tc.assertTrue(set(kids) <= {"failure", "skipped", "system-out"}, kids)
        if not verdicts:
            return None
        k = c[0]
        if k.tag == "failure":
            tc.assertTrue(k.get("message"))
            tc.assertTrue(k.get("type"))
            return ("failure", k.get("type"), k.get("message"), k.text or "")
        tc.assertTrue(k.get("message"))
        return ("skipped", None, k.get("message"), "")


def outcomes(shape):
    return {(cls, name): (o[1] if o and o[0] == "failure" else o and o[0])
            for _, cls, name, o in shape.cases}


class JUnit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_regression_uncorrected(self):
        rc, root, _ = compare("gate-base", "gate-new", self.tmp.name, "--correction", "none")
        self.assertEqual(rc, 1)
        s = Shape(self, root)
        got = outcomes(s)
        self.assertEqual(len(got), 13)
        self.assertEqual([k for k, v in got.items() if v], [("tput", "tput: 1 → 2")])
        self.assertEqual(got[("tput", "tput: 1 → 2")], "regression")
        fail = [o for _, _, n, o in s.cases if n == "tput: 1 → 2"][0]
        self.assertIn("-6.0 %", fail[2])
        self.assertIn("worse by more than 5.0 %", fail[2])
        self.assertIn("baseline: 1.000 Gbit/s (n=3) in gate-base", fail[3])
        self.assertEqual({x[0] for x in s.cases},
                         {"tput (tcp_stream, ipv4)", "lat (tcp_rr, ipv4)"})
        props = {p.get("name"): p.get("value") for p in root[0][0]}
        self.assertEqual(props["correction"], "none")
        self.assertEqual(props["base_runs"], "20261202T150000Z-base")

    def test_holm_passes(self):
        rc, root, _ = compare("gate-base", "gate-new", self.tmp.name)
        self.assertEqual(rc, 0)
        s = Shape(self, root)
        self.assertEqual(int(root.get("failures")), 0)
        self.assertEqual(len(s.cases), 13)
        out = [c for c in root.iter("testcase") if c.get("name") == "tput: 2 → 1"][0]
        self.assertIn("verdict: no significant change", out.find("system-out").text)

    def test_partial(self):
        rc, root, _ = compare("gate-base", "gate-partial", self.tmp.name)
        self.assertEqual(rc, 5)
        got = outcomes(Shape(self, root))
        fails = {k: v for k, v in got.items() if v}
        self.assertEqual(fails, {("tput", "tput: 3 → 4"): "missing",
                                 ("tput", "tput: 4 → 3"): "missing",
                                 ("tput", "tput: 4 → 1"): "too-few-trials",
                                 ("lat", "lat: 1 → 2"): "missing"})
        self.assertEqual(len(got), 13)
        rc, root, _ = compare("gate-base", "gate-partial", self.tmp.name, "--allow-partial")
        self.assertEqual(rc, 0)
        got = outcomes(Shape(self, root))
        self.assertEqual(int(root.get("failures")), 0)
        self.assertEqual(sorted(k for k, v in got.items() if v == "skipped"),
                         sorted(fails))

    def test_nothing_compared(self):
        for extra in ((), ("--allow-partial",)):
            rc, root, _ = compare("compare-base", "multi-a", self.tmp.name, *extra)
            self.assertEqual(rc, 5)
            got = outcomes(Shape(self, root))
            self.assertEqual(got[("netsurvey compare", "gate: cells compared")],
                             "nothing-compared")
            only_new = [k for k in got if k[0] == "latency" and "westus3/" in k[1]]
            self.assertEqual(len(only_new), 3)
            self.assertTrue(all(got[k] == "skipped" for k in only_new))
            base = [k for k in got if k[0] in ("latency", "throughput") and k not in only_new]
            self.assertEqual(len(base), 5)
            want = "skipped" if extra else "missing"
            self.assertTrue(all(got[k] == want for k in base), got)
            self.assertEqual(int(root.get("failures")), 1 if extra else 6)
            # the same scenario name under two kinds: cases say which
            self.assertIn(("latency", "latency (tcp_rr, ipv4): 1 → 2"), got)

    def test_hostile_strings(self):
        zone1, zone2 = "z\x07&\ufffe]]><![CDATA[", "<z2>\"'\t|"
        scen = "lat<b>&'\"\r\nx"
        hosts = [gj.host("a<script>", zone1, "r&", "10.0.0.4"),
                 gj.host("b\"", zone2, "r&", "10.0.0.5")]
        scs = [gj.scen(scen, "tcp_stream", trials=3)]
        rng = random.Random(1)
        dirs = []
        for name, f in (("hb", 1.0), ("hn", 0.5)):
            d = os.path.join(self.tmp.name, name)
            dirs.append(d)
            j = gj.Journal(d, "20261203T150000Z-" + name, "<i>plan</i> & \"co\"", hosts, scs, 0)
            for n in range(1, 4):
                for a, b in ((0, 1), (1, 0)):
                    j.trial(scen, hosts[a]["name"], hosts[b]["name"], n,
                            gj.make_result("tcp_stream", 1000 * f + n, rng, 10))
            j.close()
        rc, root, md = compare(dirs[0], dirs[1], self.tmp.name)
        self.assertEqual(rc, 1)
        s = Shape(self, root)
        clean1 = zone1.replace("\x07", "\ufffd").replace("\ufffe", "\ufffd")
        names = sorted(n for _, _, n, _ in s.cases)
        self.assertEqual(names, sorted(["%s: %s → %s" % (scen, clean1, zone2),
                                        "%s: %s → %s" % (scen, zone2, clean1)]))
        self.assertEqual({c for _, c, _, _ in s.cases}, {scen})
        self.assertEqual([o[1] for _, _, _, o in s.cases], ["regression", "regression"])
        self.assertNotIn("<script>", md.replace("&lt;", "<").split("|")[0])  # escaped in rows
        self.assertLessEqual(len(md.splitlines()), 60)


class Summary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_small(self):
        rc, _, md = compare("gate-base", "gate-partial", self.tmp.name, "--correction", "none")
        self.assertEqual(rc, 1)
        lines = md.splitlines()
        self.assertEqual(lines[0], "### netsurvey compare: gate FAILED")
        rows = [ln for ln in lines if ln.startswith("| FAIL |") or ln.startswith("|  |")]
        # regressions, then baseline cells that fail the gate, then other changes
        self.assertEqual([r.split("|")[3].strip() for r in rows],
                         ["1 → 2", "4 → 1", "3 → 4", "4 → 3", "1 → 2", "1 → 3", "1 → 4"])
        self.assertIn("regression: worse", rows[0])
        self.assertNotIn("more cells", md)
        rc, _, md = compare("gate-base", "gate-new", self.tmp.name)
        self.assertEqual(rc, 0)
        self.assertTrue(md.startswith("### netsurvey compare: gate passed\n"))

    def test_bounded(self):
        # cut to 100 and 200 bytes, each byte escaped to 5 or 6: 40 rows would not fit 64 KiB
        zones = [("%02d" % i) + "&" * 120 for i in range(10)]
        hosts = [gj.host("h%d" % i, z, "r", "10.0.2.%d" % (i + 4)) for i, z in enumerate(zones)]
        scen = "s" + "\"" * 250
        scs = [gj.scen(scen, "tcp_stream", trials=3)]
        rng = random.Random(2)
        dirs = []
        for name, f in (("bb", 1.0), ("bn", 0.5)):
            d = os.path.join(self.tmp.name, name)
            dirs.append(d)
            j = gj.Journal(d, "20261203T150000Z-" + name, "big" * 100, hosts, scs, 0)
            for n in range(1, 4):
                for a in hosts:
                    for b in hosts:
                        if a is not b:
                            j.trial(scen, a["name"], b["name"], n,
                                    gj.make_result("tcp_stream", 1000 * f + n, rng, 10))
            j.close()
        rc, root, md = compare(dirs[0], dirs[1], self.tmp.name)
        self.assertEqual(rc, 1)
        self.assertEqual(int(root.get("failures")), 90)
        raw = md.encode("utf-8")
        self.assertLessEqual(len(raw), 64 * 1024)
        self.assertLessEqual(len(md.splitlines()), 60)
        rows = [ln for ln in md.splitlines() if ln.startswith("| FAIL |")]
        self.assertTrue(0 < len(rows) <= 40, len(rows))
        m = re.search(r"… and (\d+) more cells", md)
        self.assertIsNotNone(m)
        self.assertEqual(int(m.group(1)) + len(rows), 90)


def pair_runs(tmp, new_msg=250, fail=(), planned_new=None):
    """Two version-2 runs of one scenario "lat" (tcp_rr, 3 trials) over zones 1 and 2: the
    baseline at msg_size 250, the new one at new_msg; fail: (src, dst, trial) of the new run
    that failed; planned_new: its planned trials when fewer are recorded (not run)."""
    hosts = [gj.host("a", "1", "r", "10.0.0.1"), gj.host("b", "2", "r", "10.0.0.2")]
    rng = random.Random(7)
    dirs = []
    for name, msg in (("pb", 250), ("pn", new_msg)):
        d = os.path.join(tmp, name)
        dirs.append(d)
        scs = [gj.scen("lat", "tcp_rr", trials=3, msg_size=msg)]
        planned = {"lat": planned_new} if name == "pn" and planned_new else None
        j = gj.Journal(d, "20261203T150000Z-" + name, "p", hosts, scs, 0, version=2,
                       pairs=[("a", "b"), ("b", "a")], planned=planned)
        for n in range(1, 4):
            for a, b in (("a", "b"), ("b", "a")):
                if name == "pn" and (a, b, n) in fail:
                    j.trial("lat", a, b, n, error="nsperf on %s: connect timed out" % b,
                            attempts=3)
                elif name == "pn" and planned_new and (a, b, n) == ("a", "b", 3):
                    continue  # not run
                else:
                    j.trial("lat", a, b, n, gj.make_result("tcp_rr", 300 + n, rng, 10,
                                                           hist_n=100))
        j.close()
    return dirs


def compare_all(base, new, out, *extra):
    """Run compare with every output; (exit status, stderr, compare.md, JUnit text or None,
    summary or None)."""
    junit, summary = os.path.join(out, "junit.xml"), os.path.join(out, "summary.md")
    o = os.path.join(out, "o")
    p = subprocess.run([NETSURVEY, "compare", base, new, "-o", o, "--junit", junit,
                        "--markdown-summary", summary] + list(extra),
                       capture_output=True, text=True)

    def read(path):
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    return (p.returncode, p.stderr, read(os.path.join(o, "compare.md")), read(junit),
            read(summary))


class Comparable(unittest.TestCase):
    """What compare refuses as not comparable, and the trials a matched cell lacks."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_param_change_refused(self):
        base, new = pair_runs(self.tmp.name, new_msg=65536)
        rc, err, md, junit, summary = compare_all(base, new, self.tmp.name)
        self.assertEqual(rc, 6)
        self.assertIn("not comparable", err)
        self.assertIn("lat (tcp_rr, ipv4): msg_size 250 → 65536", err)
        self.assertIn("--allow-param-change", err)
        self.assertEqual((md, junit, summary), (None, None, None))  # nothing written

    def test_param_change_allowed(self):
        base, new = pair_runs(self.tmp.name, new_msg=65536)
        rc, err, md, junit, summary = compare_all(base, new, self.tmp.name,
                                                  "--allow-param-change")
        self.assertIn(rc, (0, 1))  # compared: a verdict, whatever it is
        diff = "msg_size 250 → 65536"
        self.assertIn("compared across other parameters (--allow-param-change):\n  lat (tcp_rr, "
                      "ipv4): " + diff, err)
        self.assertIn("**Parameters changed** (compared on purpose: --allow-param-change): lat "
                      "(tcp_rr, ipv4): " + diff, md)
        self.assertIn("**Parameters changed** (compared on purpose: --allow-param-change): lat "
                      "(tcp_rr, ipv4): " + diff, summary)
        root = ET.fromstring(junit.encode("utf-8"))
        Shape(self, root)
        cases = list(root.iter("testcase"))
        self.assertEqual(len(cases), 2)
        for c in cases:
            self.assertIn("parameters changed (compared on purpose, --allow-param-change): " + diff,
                          c.find("system-out").text)

    def test_same_parameters_compared(self):
        base, new = pair_runs(self.tmp.name)
        rc, err, md, _, summary = compare_all(base, new, self.tmp.name)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Parameters changed", md + summary + err)

    def test_failed_trial_fails_its_cell(self):
        base, new = pair_runs(self.tmp.name, fail={("a", "b", 2)})
        rc, err, md, junit, summary = compare_all(base, new, self.tmp.name)
        self.assertEqual(rc, 5)
        note = "new 1 failed of 3 planned"
        got = outcomes(Shape(self, ET.fromstring(junit.encode("utf-8"))))
        self.assertEqual(got, {("lat", "lat: 1 → 2"): "failed-trials", ("lat", "lat: 2 → 1"): None})
        fail = [c for c in ET.fromstring(junit.encode("utf-8")).iter("testcase")
                if c.get("name") == "lat: 1 → 2"][0].find("failure")
        self.assertIn(note, fail.get("message"))
        count = "1 with failed or not-run trials (1 failed, 0 not run)"
        for text in (md, summary):
            self.assertIn(count, text)
        self.assertIn("**TRIALS FAILED**", md)
        self.assertIn("(failed or not run: %s)" % note, md)
        self.assertRegex(summary, r"\| FAIL \| lat \| 1 → 2 \|.*trials failed or not run: " + note)
        self.assertIn("1 with failed or not-run trials", err)
        self.assertIn("lat (tcp_rr, ipv4) 1 → 2: trials failed or not run (%s)" % note, err)
        # --allow-partial gates on the ok trials, and still says so
        rc, err, md, junit, summary = compare_all(base, new, self.tmp.name, "--allow-partial")
        self.assertEqual(rc, 0, err)
        root = ET.fromstring(junit.encode("utf-8"))
        self.assertEqual(int(root.get("failures")), 0)
        self.assertIn(count, md)
        self.assertIn(count, summary)
        self.assertIn("trials failed or not run: " + note, junit)

    def test_not_run_trial_fails_its_cell(self):
        base, new = pair_runs(self.tmp.name, planned_new=6)
        rc, err, md, junit, summary = compare_all(base, new, self.tmp.name)
        self.assertEqual(rc, 5)
        got = outcomes(Shape(self, ET.fromstring(junit.encode("utf-8"))))
        self.assertEqual(got[("lat", "lat: 1 → 2")], "failed-trials")
        self.assertIn("new 1 not run of 3 planned", md)
        self.assertIn("1 with failed or not-run trials (0 failed, 1 not run)", summary)


def main():
    global NETSURVEY, FIXTURES
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    NETSURVEY, FIXTURES = os.path.abspath(sys.argv[1]), sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)


if __name__ == "__main__":
    main()
