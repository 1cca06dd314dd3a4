#!/usr/bin/env python3
"""exit_docs.py - the README's exit status tables say what `netsurvey COMMAND --help` prints.

For each command, the rows after "exit status:" in its --help (printed from src/cli/cli_exit.h)
must be the rows of the README's table under "Exit status of `netsurvey COMMAND`:", status for
status and word for word (backquotes and line breaks aside); for netsurvey itself, the rows of
`netsurvey --help` against the sentence of the README. Usage: exit_docs.py NETSURVEY README.md
"""
import re
import subprocess
import sys

COMMANDS = ["check", "plan", "run", "report", "compare", "trend", "clean", "publish", "export"]


def norm(text):
    return " ".join(text.replace("`", "").split())


def help_rows(netsurvey, command):
    """{status: meaning} from the exit status list of COMMAND --help."""
    args = [netsurvey] + ([command] if command else []) + ["--help"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    head = "exit status:\n" if command else "exit status of netsurvey itself:\n"
    if head not in out:
        sys.exit(f"{' '.join(args[1:])}: no '{head.strip()}' in its output")
    rows, status = {}, None
    for line in out.split(head, 1)[1].splitlines():
        m = re.match(r"  (\d+) +(.*)", line)
        if m:
            status = int(m.group(1))
            rows[status] = m.group(2)
        elif status is not None and line.startswith("       "):
            rows[status] += " " + line.strip()
        else:
            break
    return {k: norm(v) for k, v in rows.items()}


def readme_rows(readme, command):
    """{status: meaning} of the table under "Exit status of `netsurvey COMMAND`:"."""
    head = f"Exit status of `netsurvey {command}`:\n"
    if head not in readme:
        sys.exit(f"README.md: no table headed '{head.strip()}'")
    rows = {}
    for line in readme.split(head, 1)[1].lstrip("\n").splitlines():
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].isdigit():
            rows[int(cells[0])] = norm("|".join(cells[1:]))
    return rows


def main(netsurvey, readme_path):
    readme = open(readme_path, encoding="utf-8").read()
    bad = 0
    for command in COMMANDS:
        want, got = help_rows(netsurvey, command), readme_rows(readme, command)
        for status in sorted(set(want) | set(got)):
            if want.get(status) != got.get(status):
                bad += 1
                print(f"{command} exit {status}: --help says {want.get(status)!r}, "
                      f"README.md says {got.get(status)!r}")
        if want == got:
            print(f"{command}: {len(want)} exit statuses, README.md agrees")
    top = help_rows(netsurvey, None)
    # the README says it in a sentence: "... without a command, or with an unknown one, exits 2."
    for status in top:
        if status != 0 and f"exits {status}." not in readme:
            bad += 1
            print(f"netsurvey exit {status} ({top[status]}): not in README.md")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
