#!/usr/bin/env python3
"""nsperf_usage.py - nsperf's own command line as a user meets it (nothing is connected to).

A flag not understood is one line and where the help is (exit 2), with "did you mean" for a
misspelt long flag; an abbreviated long flag and a flag given twice are refused, as netsurvey
refuses them; `--help` exits 0 for nsperf and for `nsperf env`, whose flags (--cloud,
--cloud-budget) nsperf --help documents; the help holds no figure measured on some machine.
Usage: nsperf_usage.py NSPERF
"""
import re
import subprocess
import sys

TRY = "try 'nsperf --help'\n"
TRY_ENV = "try 'nsperf env --help'\n"

USAGE = [
    (["--clinet", "127.0.0.1"], "nsperf: unknown option '--clinet'; did you mean '--client'?\n" + TRY),
    (["-s", "--idle-timout", "5"],
     "nsperf: unknown option '--idle-timout'; did you mean '--idle-timeout'?\n" + TRY),
    (["-x"], "nsperf: unknown option '-x'\n" + TRY),
    (["--cli", "127.0.0.1"], "nsperf: abbreviated option '--cli'; write it in full: '--client'\n" + TRY),
    (["-s", "--one"], "nsperf: abbreviated option '--one'; write it in full: '--one-off'\n" + TRY),
    (["-c"], "nsperf: -c needs a value (-c HOST)\n" + TRY),
    (["-c", "127.0.0.1", "--test"], "nsperf: --test needs a value (--test KIND)\n" + TRY),
    (["-c", "127.0.0.1", "-t", "1", "--time", "2"], "nsperf: -t is given twice\n" + TRY),
    (["-s", "-p", "1", "-p", "2"], "nsperf: -p is given twice\n" + TRY),
    (["-c", "127.0.0.1", "--json=yes"], "nsperf: --json takes no value ('--json=yes')\n" + TRY),
    (["-s", "-4", "-6"], "nsperf: -4 and -6 cannot both be given\n"),
    (["env", "--clod", "off"], "nsperf env: unknown option '--clod'; did you mean '--cloud'?\n" + TRY_ENV),
    (["env", "--address"], "nsperf env: --address needs a value (--address ADDR)\n" + TRY_ENV),
    (["env", "--cloud", "off", "--cloud", "probe"], "nsperf env: --cloud is given twice\n" + TRY_ENV),
    (["env", "--cloud", "sometimes"],
     "nsperf env: --cloud: expected auto, probe or off, not 'sometimes'\n"),
    (["env", "--cloud-budget", "0"],
     "nsperf env: --cloud-budget: expected 1..10000 (milliseconds), not '0'\n"),
    (["env", "extra"], "nsperf env: unexpected argument 'extra'\n" + TRY_ENV),
    (["-s", "extra"], "nsperf: unexpected argument 'extra'\n" + TRY),
]

# what a machine measured (a time, a rate, a ratio to iperf3 or sockperf), never help text
MEASURED = re.compile(r"\d+\.\d+\s*(us|µs|ms|Gbit/s|Mbit/s)\b|\d+-\d+\s*(us|µs|ms)\b"
                      r"|\d\.\d+(-\d\.\d+)?\s*x\s|load \d")


def run(nsperf, args):
    return subprocess.run([nsperf] + args, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)


def main(nsperf):
    bad = 0
    for args, want in USAGE:
        r = run(nsperf, args)
        if r.returncode != 2 or r.stderr != want:
            bad += 1
            print(f"nsperf {' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}, "
                  f"want exit 2, {want!r}")
    for args, head in ((["--help"], "usage: nsperf -s"), (["-h"], "usage: nsperf -s"),
                       (["env", "--help"], "usage: nsperf env"), (["env", "-h"], "usage: nsperf env")):
        r = run(nsperf, args)
        if r.returncode != 0 or not r.stdout.startswith(head) or r.stderr:
            bad += 1
            print(f"nsperf {' '.join(args)}: exit {r.returncode}, stdout {r.stdout[:60]!r}, "
                  f"stderr {r.stderr!r}")
        elif MEASURED.search(r.stdout):
            bad += 1
            print(f"nsperf {' '.join(args)} prints a measured figure: "
                  f"{MEASURED.search(r.stdout).group(0)!r}")
    top = run(nsperf, ["--help"]).stdout
    for flag in ("--address ADDR", "--cloud MODE", "--cloud-budget MS"):
        if flag not in top:
            bad += 1
            print(f"nsperf --help does not document env's {flag}")
    if any(len(line) > 80 for line in top.splitlines()):
        bad += 1
        print("nsperf --help has lines over 80 columns")
    print(f"{len(USAGE)} usage errors, 4 helps: {'ok' if not bad else f'{bad} wrong'}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
