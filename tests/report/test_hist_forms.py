#!/usr/bin/env python3
"""test_hist_forms.py NETSURVEY - the two forms of a trial's histogram (common/histjson.h) give
the same reports: the same journal written with nsperf's runs form (netsurvey.trial/3), with the
older buckets form (netsurvey.trial/2), and mixed line by line (a run resumed by a newer
netsurvey), reported without gnuplot: every output file byte for byte the same. The runs are
packed and merged by their own code in the report model (src/report/model.c), so this holds it
to the buckets' way, percentiles and all, on both of the bench's shapes."""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_journal  # noqa: E402


def report(bin_, run, out):
    env = dict(os.environ, NETSURVEY_GNUPLOT="/nonexistent/gnuplot")
    p = subprocess.run([bin_, "report", run, "-o", out], env=env, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        sys.exit("netsurvey report %s: exit %d: %s" % (run, p.returncode, p.stderr))


def same_dirs(a, b):
    fa = sorted(f for f in os.listdir(a) if f != "charts")
    fb = sorted(f for f in os.listdir(b) if f != "charts")
    if fa != fb:
        sys.exit("outputs differ in their files: %s / %s" % (fa, fb))
    _, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    if mismatch or errors:
        sys.exit("outputs differ: %s (of %s and %s)" % (mismatch + errors, a, b))
    return len(fa)


def main():
    bin_ = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ns-forms-")
    checked = 0
    for shape in ("cloud", "loopback"):
        # each journal in turn at the same path: the reports name their directory
        j = os.path.join(tmp, "j")
        lines = {}
        for form in ("runs", "buckets"):
            gen_journal.bench(os.path.join(tmp, form), 8, 400, shape, form)
            lines[form] = open(os.path.join(tmp, form, "results.jsonl")).read().splitlines(True)
        lr, lb = lines["runs"], lines["buckets"]
        assert len(lr) == len(lb) == 392  # whole passes of the 56 pairs (gen_journal.bench)
        assert all('"runs":[[' in l for l in lr if '"tcp_rr"' in l)
        assert all('"buckets":[[' in l for l in lb if '"tcp_rr"' in l)
        run_json = open(os.path.join(tmp, "runs", "run.json")).read()
        outs = []
        for name, text in (("runs", lr), ("buckets", lb),
                           ("mixed", [lr[i] if i % 3 else lb[i] for i in range(len(lr))])):
            shutil.rmtree(j, ignore_errors=True)
            os.makedirs(j)
            with open(os.path.join(j, "run.json"), "w") as f:
                f.write(run_json)
            with open(os.path.join(j, "results.jsonl"), "w") as f:
                f.writelines(text)
            out = os.path.join(tmp, "%s-%s-out" % (shape, name))
            report(bin_, j, out)
            outs.append(out)
        summary = open(os.path.join(outs[0], "summary.json")).read()
        assert '"p50"' in summary and '"p99"' in summary, "no percentiles in the summary"
        checked += same_dirs(outs[0], outs[1])
        checked += same_dirs(outs[0], outs[2])
    shutil.rmtree(tmp)
    print("ok: %d output files the same in both forms and mixed, both shapes" % checked)


if __name__ == "__main__":
    main()
