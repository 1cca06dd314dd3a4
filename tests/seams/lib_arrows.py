#!/usr/bin/env python3
"""lib_arrows.py - fail when one library depends on another against the data's way.

The data's way (README "Layout"): common under all; journal, transport and inventory on common;
plan on inventory; survey on plan, transport and journal; report on journal; history (compare, trend) on report
and journal; cli on everything but nsperf;
nsperf on common alone (it is deployed alone, statically linked). ALLOWED below is that rule,
written for every module the tree has or is about to have: a module not built yet is simply
absent, a library the table does not name is an error (add it to the table first).

Two kinds of arrow are read:
  - symbols: library A needs library B when an object of A leaves undefined a symbol that B
    defines (nm, as file_cycles.py reads it: what the linker sees);
  - includes (--src DIR): a file under DIR/A/ includes "B/..." for a module B (what a header-only
    use, a struct or a static inline function, would otherwise hide from nm). Files directly
    in DIR/ are the command line's (cli).
Outside libraries behind an ops table are called from their driver's object alone (EXTERNAL:
the history database's engines, SQLite and libpq, stay behind src/history/dbint.h's struct
db_ops: only db_sqlite.c.o calls sqlite3_*, only db_pg.c.o calls PQ*; nsperf, linked statically
and deployed alone, never links either).
A module's internal header (its name ends in "int.h": report/reportint.h, the SQLite way of
btreeInt.h) is included by that module's files only: another module including it is an error
even along the data's way. A module with one public header (PUBLIC: survey/survey.h,
transport/transport.h, history/history.h, curl's curl.h way) is included by other modules
through that header alone; its other headers are its own.
Prints each forbidden arrow with one symbol or file that makes it and exits 1; exits 0 with a
one-line summary per library otherwise. A symbol defined by two libraries is also an error.
Usage: lib_arrows.py [--src DIR] LIB.a [LIB.a ...]  (nm from $NM when set)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_cycles import objects  # noqa: E402  (same folder; one nm reader for both checks)

# module: the modules it may use (itself always).
ALLOWED = {
    "common": set(),
    "journal": {"common"},
    "transport": {"common"},
    "inventory": {"common"},
    "plan": {"common", "inventory"},
    "survey": {"common", "plan", "transport", "journal"},
    "report": {"common", "journal"},
    "history": {"common", "journal", "report"},
    "cli": {"common", "inventory", "plan", "transport", "journal", "survey", "report", "history"},
    "nsperf": {"common"},
}

# An outside library's symbol prefix: the one (module, object) that may call it.
EXTERNAL = {
    "sqlite3_": ("history", "db_sqlite.c.o"),
    "PQ": ("history", "db_pg.c.o"),
}

# module: its one public header, the only one of its headers another module includes
PUBLIC = {"survey": "survey.h", "transport": "transport.h", "history": "history.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/([A-Za-z0-9_.]+)"', re.M)


def module_of(lib):
    """libns_plan.a -> plan, libnsperf_core.a -> nsperf (the archive names CMake gives)."""
    name = os.path.basename(lib)
    name = name.removeprefix("lib").removesuffix(".a")
    name = name.removeprefix("ns_")
    return "nsperf" if name == "nsperf_core" else name


def symbol_arrows(libs):
    """({(a, b): example symbol}, [errors]) from the archives' symbol tables."""
    owner, errors, needs = {}, [], {}
    for lib in libs:
        mod = module_of(lib)
        for obj, (defined, undefined) in objects(lib).items():
            for sym in defined:
                if sym in owner and owner[sym][0] != mod:
                    errors.append(f"{sym}: defined in {owner[sym][0]} and {mod}")
                owner.setdefault(sym, (mod, obj))
            needs.setdefault(mod, []).append((obj, undefined))
    arrows = {}
    for mod, objs in needs.items():
        for obj, undefined in objs:
            for sym in sorted(undefined):
                if sym in owner and owner[sym][0] != mod:
                    arrows.setdefault((mod, owner[sym][0]), f"{obj} uses {sym}")
                for prefix, (m, o) in EXTERNAL.items():
                    if sym.startswith(prefix) and (mod, obj) != (m, o):
                        errors.append(f"{mod}: {obj} calls {sym}: only {m}'s {o} may ({prefix}*)")
    return arrows, errors


def include_arrows(src, internal=None):
    """{(a, b): example file} from the #include "b/..." lines of the files under src/a/; each
    include of another module's internal header is appended to internal (a list) when given."""
    arrows = {}
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        mod = "cli" if rel == "." else rel.split(os.sep)[0]
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for b, header in INCLUDE.findall(fh.read()):
                    if b != mod and (b in ALLOWED or os.path.isdir(os.path.join(src, b))):
                        arrows.setdefault((mod, b), f"{os.path.relpath(path, src)} includes {b}/")
                        if internal is not None and header.endswith("int.h"):
                            internal.append(f"internal header {b}/{header} included by "
                                            f"{os.path.relpath(path, src)}")
                        elif internal is not None and b in PUBLIC and header != PUBLIC[b]:
                            internal.append(f"{b}/{header} included by "
                                            f"{os.path.relpath(path, src)}: outside {b}/, "
                                            f"include {b}/{PUBLIC[b]}, its one public header")
    return arrows


def check(arrows, errors, mods):
    bad = list(errors)
    for mod in sorted(mods):
        if mod not in ALLOWED:
            bad.append(f"{mod}: not in the table of allowed arrows (tests/seams/lib_arrows.py)")
    for (a, b), why in sorted(arrows.items()):
        if a in ALLOWED and b not in ALLOWED[a]:
            bad.append(f"forbidden arrow {a} -> {b}: {why}")
    return bad


def main(argv):
    src = None
    if len(argv) >= 2 and argv[0] == "--src":
        src, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    arrows, errors = symbol_arrows(argv)
    mods = {module_of(lib) for lib in argv}
    if src:
        inc = include_arrows(src, errors)
        mods |= {a for a, _ in inc} | {b for _, b in inc}
        for k, v in inc.items():
            arrows.setdefault(k, v)
    bad = check(arrows, errors, mods)
    for line in bad:
        print(line)
    if not bad:
        for mod in sorted(mods):
            uses = sorted(b for a, b in arrows if a == mod)
            print(f"{mod} -> {', '.join(uses) or 'nothing'}: allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
