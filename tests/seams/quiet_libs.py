#!/usr/bin/env python3
"""quiet_libs.py - fail when a library parses a command line, prints on its own or exits.

Only src/cli parses arguments (getopt), writes to standard output or error and picks exit
statuses; the libraries under it take option structs, return struct err, and print only to a
FILE * or a callback their caller gives. Read with nm from each static library (what the linker
sees): an object that uses one of FORBIDDEN fails. A known exception is given as
--allow OBJECT:SYMBOL (e.g. journal.c.o:stderr) and must still be needed, so that it is removed
when its reason goes. Usage: quiet_libs.py [--allow OBJ:SYM ...] LIB.a [LIB.a ...]
(nm from $NM when set). Exits 0 with a one-line summary per library, else 1.
"""
import os
import subprocess
import sys

NM = os.environ.get("NM") or "nm"

# getopt's family; the C library's own streams; printf/puts/putchar write to stdout (printf of
# a plain string is compiled into puts); a library never ends the process (a forked child
# that cannot exec may _exit).
FORBIDDEN = {"getopt", "getopt_long", "getopt_long_only", "optarg", "optind", "opterr", "optopt",
             "stdout", "stderr", "printf", "vprintf", "puts", "putchar", "perror",
             "exit", "quick_exit"}


def undefined(lib):
    """{(object, symbol)} of the library's undefined symbols that are forbidden."""
    out = subprocess.run([NM, "-A", "--undefined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    uses = set()
    for line in out.splitlines():
        # "lib.a:file.c.o:                 U name" (name may carry @GLIBC_x)
        head, _, rest = line.rpartition(":")
        fields = rest.split()
        if len(fields) < 2:
            continue
        sym = fields[-1].split("@")[0]
        if sym in FORBIDDEN:
            uses.add((head.split(":")[-1], sym))
    return uses


def main(argv):
    allow, libs = set(), []
    it = iter(argv)
    for arg in it:
        if arg == "--allow":
            obj, _, sym = next(it, "").partition(":")
            allow.add((obj, sym))
        else:
            libs.append(arg)
    if not libs:
        sys.exit(__doc__)
    bad, used = 0, set()
    for lib in libs:
        name = lib.rsplit("/", 1)[-1]
        uses = undefined(lib)
        for obj, sym in sorted(uses):
            if (obj, sym) in allow:
                used.add((obj, sym))
                print(f"{name}: {obj.removesuffix('.o')} uses {sym} (allowed for now)")
                continue
            bad += 1
            print(f"{name}: {obj.removesuffix('.o')} uses {sym}: only src/cli parses arguments, "
                  "prints on its own or exits")
        if not uses:
            print(f"{name}: no argument parsing, printing of its own or exit")
    for obj, sym in sorted(allow - used):
        bad += 1
        print(f"--allow {obj}:{sym} is no longer needed: remove it")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
