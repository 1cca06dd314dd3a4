#!/usr/bin/env python3
"""kind_literals.py - fail when a test kind, its headline figure or a journal file is named by a
string literal outside its one definition.

The facts, read from the tree itself:
  - kinds: the names of TESTSPEC_KIND_MAP's rows (src/common/testspec.h);
  - figures: the -J keys nsperf's result names its rates by (the values of testspec.h's
    TESTSPEC_KEY_* macros), each headline metric's unit, words and legend note (the string
    columns of TESTSPEC_METRIC_MAP), and the units people read them in (TESTSPEC_SCALE_MAP's);
  - journal files: the values of JOURNAL_*_FILE (src/journal/record.h).

The rule, for every string literal of a .c or .h file under SRC (each literal token on its own;
comments, character constants and #include lines do not count):
  1. a literal holding a kind's name as a whole word ("tcp_rr", "cannot send a tcp_rr request",
     "tcp_rr, udp_rr") is a violation anywhere but common/testspec.h and testspec.c;
  2. a literal that is a -J key, a unit, words or a legend note, or that holds a unit as a whole
     token ("%.0f conn/s"), is a violation anywhere but those two files; units of time (us, ms,
     ns, s) are left out: units.h parses and prints them for every duration, a kind only
     borrows one;
  3. a literal holding a journal file's name as a whole token ("its run.json is ...") is a
     violation anywhere but journal/record.h.
Prints each violation as path:line: what, and exits 1; exits 0 with a one-line summary.
Usage: kind_literals.py SRC_DIR
"""
import os
import re
import sys

TABLE = ("common/testspec.h", "common/testspec.c")
JOURNAL = ("journal/record.h",)
TIME_UNITS = {"ns", "us", "ms", "s"}
WORD = r"A-Za-z0-9_"


def literals(text):
    """[(line, content)] of the string literals of C text, comments and #include lines left out."""
    out, i, n, line = [], 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if at_line_start and c in " \t":
            i += 1
            continue
        if at_line_start and c == "#" and re.match(r"#\s*include\b", text[i:i + 40]):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        at_line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append((line, text[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def macro_body(text, name):
    """The text of #define name(...) with its continuation lines, or ''."""
    m = re.search(r"#\s*define\s+" + name + r"\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
    return m.group(1).replace("\\\n", " ") if m else ""


def rows(body):
    """The argument lists of the X(...) rows of a table macro's body."""
    return re.findall(r"\bX\(([^()]*(?:\([^()]*\)[^()]*)*)\)", body)


def split_args(row):
    """A row's arguments, commas inside string literals kept."""
    return [a.strip() for a in re.findall(r'(?:"(?:[^"\\]|\\.)*"|[^,"])+', row)]


def facts(src):
    """(kind names, exact strings, unit tokens, journal file names) of the tree under src."""
    with open(os.path.join(src, TABLE[0]), encoding="utf-8") as f:
        spec = f.read()
    kinds = [r.split(",")[1].strip() for r in rows(macro_body(spec, "TESTSPEC_KIND_MAP"))]
    exact = set(re.findall(r'#\s*define\s+TESTSPEC_KEY_\w+\s+"([^"]*)"', spec))
    units = set()
    for r in rows(macro_body(spec, "TESTSPEC_METRIC_MAP")):
        # columns: id, key, member, divisor, unit, words, note, ...
        args = split_args(r)
        exact |= {a.strip('"') for a in args[4:7] if a.startswith('"')}
        if len(args) > 4 and args[4].startswith('"'):
            units.add(args[4].strip('"'))
    for r in rows(macro_body(spec, "TESTSPEC_SCALE_MAP")):
        # columns: metric, unit, factor, decimals: the units people read the figures in
        args = split_args(r)
        if len(args) > 1 and args[1].startswith('"'):
            units.add(args[1].strip('"'))
            exact.add(args[1].strip('"'))
    with open(os.path.join(src, JOURNAL[0]), encoding="utf-8") as f:
        files = re.findall(r'#\s*define\s+JOURNAL_\w+_FILE\s+"([^"]*)"', f.read())
    return kinds, exact - TIME_UNITS, units - TIME_UNITS, files


def token(s, allowed_inside=WORD):
    return re.compile(rf"(?<![{allowed_inside}]){re.escape(s)}(?![{allowed_inside}])")


def check(src):
    kinds, exact, units, files = facts(src)
    if not kinds or not units or not files:
        return [f"{src}: no kinds, units or journal files found: is this the tree's src/?"], 0
    name_re = [(k, token(k)) for k in kinds]
    unit_re = [(u, token(u, WORD + "/")) for u in units]
    file_re = [(f, token(f, WORD)) for f in files]
    bad, nfiles = [], 0
    for dirpath, _, names in os.walk(src):
        for fname in sorted(names):
            if not fname.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fname)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            nfiles += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                lits = literals(f.read())
            for line, s in lits:
                where = f"{rel}:{line}"
                if rel not in TABLE:
                    bad += [f"{where}: kind name '{k}' in \"{s}\" (testspec_kind_name)"
                            for k, r in name_re if r.search(s)]
                    if s in exact:
                        bad.append(f"{where}: \"{s}\" is the table's (common/testspec.h)")
                    else:
                        bad += [f"{where}: unit '{u}' in \"{s}\" (testspec_metric_unit)"
                                for u, r in unit_re if r.search(s)]
                if rel not in JOURNAL:
                    bad += [f"{where}: journal file '{j}' in \"{s}\" (JOURNAL_*_FILE)"
                            for j, r in file_re if r.search(s)]
    return bad, nfiles


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    bad, nfiles = check(argv[0])
    for line in bad:
        print(line)
    if not bad:
        print(f"{nfiles} files: no kind, figure or journal file named outside its definition")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
