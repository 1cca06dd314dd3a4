#!/usr/bin/env python3
"""test_seams.py - the seams checks themselves, on tiny archives and trees built here: each check
must pass a graph (or tree) that keeps the rule and fail one that breaks it (else it could not
fail at all).

Needs a C compiler and ar ($CC, $AR; nm from $NM), as the build has. Usage: test_seams.py
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import file_cycles  # noqa: E402
import kind_literals  # noqa: E402
import lib_arrows  # noqa: E402
import ssh_by_ssh  # noqa: E402
import symbol_prefixes  # noqa: E402

CC = os.environ.get("CC") or "cc"
AR = os.environ.get("AR") or "ar"


class Archives:
    """Builds lib<name>.a archives of one-function C files in a temporary folder."""

    def __init__(self, tmp):
        self.tmp = tmp

    def lib(self, name, files):
        """files: {"x.c": C source}. Returns the archive's path."""
        objs = []
        for fname, text in files.items():
            src = os.path.join(self.tmp, f"{name}-{fname}")
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
            obj = os.path.join(self.tmp, fname + ".o")
            subprocess.run([CC, "-c", "-o", obj, src], check=True)
            objs.append(obj)
        path = os.path.join(self.tmp, f"lib{name}.a")
        subprocess.run([AR, "rcs", path] + objs, check=True)
        for obj in objs:
            os.remove(obj)
        return path


def quiet(fn, *args):
    """fn(*args) with its printing swallowed; returns (result, printed text)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = fn(*args)
    return rc, buf.getvalue()


class LibArrows(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.ar = Archives(self.dir.name)
        self.common = self.ar.lib("ns_common", {"err.c": "int err_set(void) { return 1; }\n"})
        self.plan = self.ar.lib("ns_plan", {
            "load.c": "int err_set(void);\nint plan_load(void) { return err_set(); }\n"})

    def tearDown(self):
        self.dir.cleanup()

    def transport(self, body):
        return self.ar.lib("ns_transport", {"transport.c": body})

    def test_arrow_along_the_way_passes(self):
        t = self.transport("int err_set(void);\nint transport_open(void) { return err_set(); }\n")
        rc, out = quiet(lib_arrows.main, [self.common, self.plan, t])
        self.assertEqual(rc, 0, out)
        self.assertIn("transport -> common: allowed", out)

    def test_transport_needing_plan_fails(self):
        t = self.transport("int plan_load(void);\nint transport_open(void) { return plan_load(); }\n")
        rc, out = quiet(lib_arrows.main, [self.common, self.plan, t])
        self.assertEqual(rc, 1, out)
        self.assertIn("forbidden arrow transport -> plan: transport.c.o uses plan_load", out)

    def test_report_needing_survey_fails(self):
        survey = self.ar.lib("ns_survey", {
            "run.c": "int plan_load(void);\nint survey_run(void) { return plan_load(); }\n"})
        report = self.ar.lib("ns_report", {
            "cmd.c": "int survey_run(void);\nint report_cmd(void) { return survey_run(); }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, self.plan, survey, report])
        self.assertEqual(rc, 1, out)
        self.assertIn("forbidden arrow report -> survey", out)
        self.assertEqual(out.count("forbidden arrow"), 1, out)  # survey -> plan is allowed

    def test_nsperf_on_common_only(self):
        nsperf = self.ar.lib("nsperf_core", {
            "main.c": "int plan_load(void);\nint nsperf_main(void) { return plan_load(); }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, self.plan, nsperf])
        self.assertEqual(rc, 1, out)
        self.assertIn("forbidden arrow nsperf -> plan", out)

    def test_outside_library_from_its_driver_alone(self):
        call = "int sqlite3_open(const char *, void **);\n"
        ok = self.ar.lib("ns_history", {
            "db_sqlite.c": call + "int db_sq(void) { return sqlite3_open(0, 0); }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, ok])
        self.assertEqual(rc, 0, out)
        bad = self.ar.lib("ns_history", {
            "publish.c": call + "int publish(void) { return sqlite3_open(0, 0); }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, bad])
        self.assertEqual(rc, 1, out)
        self.assertIn("publish.c.o calls sqlite3_open: only history's db_sqlite.c.o may", out)
        nsperf = self.ar.lib("nsperf_core", {
            "main.c": "int PQconnectdb(const char *);\nint m(void) { return PQconnectdb(0); }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, nsperf])
        self.assertEqual(rc, 1, out)
        self.assertIn("nsperf: main.c.o calls PQconnectdb", out)

    def test_library_not_in_the_table_fails(self):
        other = self.ar.lib("ns_gadget", {"g.c": "int gadget(void) { return 0; }\n"})
        rc, out = quiet(lib_arrows.main, [self.common, other])
        self.assertEqual(rc, 1, out)
        self.assertIn("gadget: not in the table", out)

    def test_symbol_defined_twice_fails(self):
        t = self.transport("int plan_load(void) { return 0; }\n")
        rc, out = quiet(lib_arrows.main, [self.plan, t])
        self.assertEqual(rc, 1, out)
        self.assertIn("plan_load: defined in", out)

    def test_include_of_plan_in_transport_fails(self):
        src = os.path.join(self.dir.name, "src")
        for d in ("common", "plan", "transport"):
            os.makedirs(os.path.join(src, d))
        with open(os.path.join(src, "transport", "ok.c"), "w", encoding="utf-8") as f:
            f.write('#include "common/errors.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 0, out)
        with open(os.path.join(src, "transport", "t.h"), "w", encoding="utf-8") as f:
            f.write('#include <stdio.h>\n #  include "plan/plan.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 1, out)
        self.assertIn("forbidden arrow transport -> plan: transport/t.h includes plan/", out)

    def test_internal_header_of_another_module_fails(self):
        src = os.path.join(self.dir.name, "src")
        for d in ("common", "journal", "report", "history"):
            os.makedirs(os.path.join(src, d))
        with open(os.path.join(src, "report", "model.c"), "w", encoding="utf-8") as f:
            f.write('#include "report/reportint.h"\n')
        with open(os.path.join(src, "history", "trend.c"), "w", encoding="utf-8") as f:
            f.write('#include "report/output.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 0, out)
        self.assertIn("history -> report: allowed", out)
        with open(os.path.join(src, "history", "cells.c"), "w", encoding="utf-8") as f:
            f.write('#include "report/reportint.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 1, out)
        self.assertIn("internal header report/reportint.h included by history/cells.c", out)

    def test_module_header_past_its_public_one_fails(self):
        src = os.path.join(self.dir.name, "src")
        for d in ("common", "transport", "survey"):
            os.makedirs(os.path.join(src, d))
        with open(os.path.join(src, "survey", "run.c"), "w", encoding="utf-8") as f:
            f.write('#include "transport/transport.h"\n#include "survey/trial.h"\n')
        with open(os.path.join(src, "cli_run.c"), "w", encoding="utf-8") as f:
            f.write('#include "survey/survey.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 0, out)
        with open(os.path.join(src, "survey", "clean.c"), "w", encoding="utf-8") as f:
            f.write('#include "transport/transport_ssh.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 1, out)
        self.assertIn("transport/transport_ssh.h included by survey/clean.c: outside transport/, "
                      "include transport/transport.h", out)

    def test_report_needing_history_fails(self):
        src = os.path.join(self.dir.name, "src")
        for d in ("common", "report", "history"):
            os.makedirs(os.path.join(src, d))
        with open(os.path.join(src, "report", "render.c"), "w", encoding="utf-8") as f:
            f.write('#include "history/cells.h"\n')
        rc, out = quiet(lib_arrows.main, ["--src", src, self.common])
        self.assertEqual(rc, 1, out)
        self.assertIn("forbidden arrow report -> history: report/render.c includes history/", out)


class FileCycles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.ar = Archives(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def test_chain_passes_and_cycle_fails(self):
        chain = self.ar.lib("ns_chain", {
            "a.c": "int b(void);\nint a(void) { return b(); }\n",
            "b.c": "int b(void) { return 0; }\n"})
        rc, out = quiet(file_cycles.main, [chain])
        self.assertEqual(rc, 0, out)
        cycle = self.ar.lib("ns_cycle", {
            "a.c": "int b(void);\nint a(void) { return b(); }\n",
            "b.c": "int a(void);\nint b(void) { return a(); }\n"})
        rc, out = quiet(file_cycles.main, [cycle])
        self.assertEqual(rc, 1, out)
        self.assertIn("libns_cycle.a: file cycle: a.c -> b.c -> a.c", out)


class SymbolPrefixes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.ar = Archives(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def test_module_prefix_passes_and_a_bare_name_fails(self):
        good = self.ar.lib("ns_report", {
            "model.c": "int report_model_load(void) { return 0; }\n"
                       "static int helper(void) { return 1; }\n"
                       "int report_x(void) { return helper(); }\n"})
        rc, out = quiet(symbol_prefixes.main, [good])
        self.assertEqual(rc, 0, out)
        bad = self.ar.lib("ns_report", {"buf.c": "int rbuf_init(void) { return 0; }\n"})
        rc, out = quiet(symbol_prefixes.main, [bad])
        self.assertEqual(rc, 1, out)
        self.assertIn("ns_report: buf.c.o: rbuf_init does not begin with report_", out)

    def test_unit_kit_takes_its_file_names(self):
        good = self.ar.lib("ns_common", {
            "clock.c": "long clock_now_ns(void) { return 0; }\n",
            "diag.c": "int diags_new(void) { return 0; }\n",
            "histjson.c": "int hist_merge_rtt_json(void) { return 0; }\n"})
        rc, out = quiet(symbol_prefixes.main, [good])
        self.assertEqual(rc, 0, out)
        bad = self.ar.lib("ns_common", {"clock.c": "long now_ns(void) { return 0; }\n"})
        rc, out = quiet(symbol_prefixes.main, [bad])
        self.assertEqual(rc, 1, out)
        self.assertIn("ns_common: clock.c.o: now_ns does not begin with its file's unit name", out)

    def test_unknown_library_fails(self):
        lib = self.ar.lib("ns_gadget", {"g.c": "int gadget_x(void) { return 0; }\n"})
        rc, out = quiet(symbol_prefixes.main, [lib])
        self.assertEqual(rc, 1, out)
        self.assertIn("no prefixes known for library ns_gadget", out)


# A table of two kinds, as src/common/testspec.h writes it (continuation lines and all).
SPEC_H = r"""
#define TESTSPEC_KEY_RATE "pulses_per_s"
#define TESTSPEC_METRIC_MAP(X)                                                          \
    X(RTT_MEAN, HISTJSON_RTT, "mean", 1.0, "us", "mean RTT", "mean RTT", true, FMT_USEC) \
    X(PULSES, TESTSPEC_KEY_RATE, NULL, 1.0, "pulse/s", "pulse rate", NULL, false, FMT_PER_S)
#define TESTSPEC_KIND_MAP(X)                              \
    X(TCP_PING, tcp_ping, RR, RTT_MEAN, true, 1.0, 1.0)    \
    X(UDP_PULSE, udp_pulse, STREAM, PULSES, false, 1.0, 1.0)
"""
RECORD_H = '#define JOURNAL_RUN_FILE "run.json"\n'


class KindLiterals(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.dir.name, "src")
        self.write("common/testspec.h", SPEC_H)
        self.write("common/testspec.c", 'static const char *n = "tcp_ping"; /* the table */\n')
        self.write("journal/record.h", RECORD_H)
        self.write("report/ok.c",
                   '/* "tcp_ping" and conn "pulse/s" in a comment */\n'
                   '#include "udp_pulse.h"\n'
                   'static const char *w = "%s: tcp_pings, %.1f us, pulse/sec";\n'
                   "static const char c = '\"';\n"
                   'static const char *f = "%s/%s.tmp", *u = "us";\n')

    def tearDown(self):
        self.dir.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_table_read(self):
        kinds, exact, units, files = kind_literals.facts(self.src)
        self.assertEqual(kinds, ["tcp_ping", "udp_pulse"])
        self.assertEqual(exact, {"pulses_per_s", "mean RTT", "pulse/s", "pulse rate"})
        self.assertEqual(units, {"pulse/s"})  # us is units.h's
        self.assertEqual(files, ["run.json"])

    def test_clean_tree_passes(self):
        rc, out = quiet(kind_literals.main, [self.src])
        self.assertEqual(rc, 0, out)
        self.assertIn("4 files: no kind", out)

    def test_each_violation_fails(self):
        self.write("nsperf/tcp_ping.c",
                   'const struct k ops = {.name = "tcp_ping"};\n'
                   '\n'
                   'int e(void) { return err("cannot send a tcp_ping request"); }\n')
        self.write("report/legend.c",
                   'static const char *l = "tcp_ping, udp_pulse", *m = "pulse rate";\n'
                   'static const char *k = "pulses_per_s", *v = "%.0f pulse/s";\n'
                   'static const char *j = "its run.json is %s";\n')
        rc, out = quiet(kind_literals.main, [self.src])
        self.assertEqual(rc, 1, out)
        for want in ("nsperf/tcp_ping.c:1: kind name 'tcp_ping' in \"tcp_ping\"",
                     "nsperf/tcp_ping.c:3: kind name 'tcp_ping' in \"cannot send a tcp_ping",
                     "report/legend.c:1: kind name 'udp_pulse' in \"tcp_ping, udp_pulse\"",
                     "report/legend.c:1: \"pulse rate\" is the table's",
                     "report/legend.c:2: \"pulses_per_s\" is the table's",
                     "report/legend.c:2: unit 'pulse/s' in \"%.0f pulse/s\"",
                     "report/legend.c:3: journal file 'run.json' in \"its run.json is %s\""):
            self.assertIn(want, out)
        # the seven, legend.c:1's tcp_ping too, and nothing of ok.c or the table
        self.assertEqual(out.count("\n"), 8, out)

    def test_journal_file_allowed_only_in_record_h(self):
        self.write("journal/dir.c", 'static const char *p = "%s/run.json";\n')
        rc, out = quiet(kind_literals.main, [self.src])
        self.assertEqual(rc, 1, out)
        self.assertIn("journal/dir.c:1: journal file 'run.json'", out)

    def test_empty_table_fails(self):
        self.write("common/testspec.h", "/* no table */\n")
        rc, out = quiet(kind_literals.main, [self.src])
        self.assertEqual(rc, 1, out)
        self.assertIn("no kinds, units or journal files found", out)


class SshBySsh(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.ar = Archives(self.dir.name)
        self.src = os.path.join(self.dir.name, "src")

    def tearDown(self):
        self.dir.cleanup()

    def put(self, rel, text):
        path = os.path.join(self.src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_alias_reader_and_answers_pass(self):
        self.put("plan/inv_sshconfig.c", 'int f(const char *k) { return strcasecmp(k, "Host") == 0'
                 ' || strcasecmp(k, "Include") == 0; }\n')
        self.put("transport/t.c", 'int g(const char *k) { return strcmp(k, "hostname"); }\n')
        lib = self.ar.lib("ns_transport", {"t.c": "int sha256(void) { return 0; }\n"})
        rc, out = quiet(ssh_by_ssh.main, ["--src", self.src, lib])
        self.assertEqual(rc, 0, out)

    def test_a_parser_fails(self):
        self.put("plan/inv_sshconfig.c", 'int f(const char *k) { return strcasecmp(k, "HostName"); }\n')
        self.put("transport/t.c", "/* as OpenSSH's readconf.c does */\n")
        rc, out = quiet(ssh_by_ssh.main, ["--src", self.src])
        self.assertEqual(rc, 1, out)
        self.assertIn("plan/inv_sshconfig.c:1: compares the ssh_config keyword 'HostName'", out)
        self.assertIn("transport/t.c: names readconf", out)

    def test_sha1_and_port_symbols_fail(self):
        lib = self.ar.lib("ns_transport", {
            "a.c": "void sc_sha1_hex(void) {}\n", "b.c": "int sc_match_pattern(void) { return 0; }\n"})
        rc, out = quiet(ssh_by_ssh.main, [lib])
        self.assertEqual(rc, 1, out)
        self.assertIn("defines sc_sha1_hex (a SHA-1 of its own)", out)
        self.assertIn("defines sc_match_pattern (the readconf port)", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
