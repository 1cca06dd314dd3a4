#!/usr/bin/env python3
"""help_complete.py - `netsurvey --help` names every option of every command.

For each command the top-level help lists, every option its own `--help` prints (but --help
itself) must appear in the command's synopsis there, as its long form or its short one, so that
the first help a user reads is complete. Usage: help_complete.py NETSURVEY
"""
import re
import subprocess
import sys


def top_synopses(netsurvey):
    """{command: synopsis text} from `netsurvey --help` (wrapped lines joined)."""
    out = subprocess.run([netsurvey, "--help"], check=True, capture_output=True,
                         text=True).stdout
    block = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    syn, name = {}, None
    for line in block.splitlines():
        m = re.match(r"  (\w+) +(.*)", line)
        if m:
            name = m.group(1)
            syn[name] = m.group(2)
        elif name is not None:
            syn[name] += " " + line.strip()
    return syn


def options(netsurvey, command):
    """[(short or None, long)] of `netsurvey COMMAND --help`."""
    out = subprocess.run([netsurvey, command, "--help"], check=True, capture_output=True,
                         text=True).stdout
    opts = []
    for line in out.splitlines():
        m = re.match(r"  (?:-(\w), )?--([\w-]+)", line)
        if m and m.group(2) != "help":
            opts.append((m.group(1), m.group(2)))
    return opts


def main(netsurvey):
    syn = top_synopses(netsurvey)
    if len(syn) < 6:
        sys.exit(f"netsurvey --help lists {len(syn)} commands: {sorted(syn)}")
    bad = 0
    for command, text in sorted(syn.items()):
        opts = options(netsurvey, command)
        missing = [long for short, long in opts
                   if f"--{long}" not in text and not (short and re.search(rf"-{short}\b", text))]
        for long in missing:
            print(f"netsurvey --help: {command}'s synopsis lacks --{long}: {text!r}")
        bad += len(missing)
        if not missing:
            print(f"{command}: {len(opts)} options, all in netsurvey --help")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
