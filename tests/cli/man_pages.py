#!/usr/bin/env python3
"""man_pages.py - the manual pages say what the programs do, and read well.

The pages (src/cli/man/*.1, *.5) are hand-written roff with generated blocks between
'.\\" @generated NAME' and '.\\" @end': the synopses, option lists and exit statuses that
`netsurvey --man-options` and `nsperf --man-options` print from the very tables --help prints
(curl's way: one source). This test fails when
  - a generated block of a page differs from what the programs print now (run with --update to
    rewrite them), or a block the programs print is in no page;
  - an option that `netsurvey COMMAND --help`, `nsperf --help` or `nsperf env --help` lists is
    missing from its page;
  - a key `netsurvey --plan-keys` lists (every key the plan validator accepts) is missing from
    netsurvey-plan(5), or from the README's table of plan keys;
  - the README is longer than 300 lines (it is the door, the pages are the rooms), or does not
    name every page;
  - a page does not render without warnings (`man --warnings`, `groff -ww`), or renders lines
    wider than 80 columns at MANWIDTH=80.
Usage: man_pages.py [--update] BINDIR MANDIR [README.md]
"""
import os
import re
import shutil
import subprocess
import sys

BEGIN = re.compile(r'^\.\\" @generated (.+)$')
END = '.\\" @end'
README_MAX_LINES = 300
COMMANDS = ["check", "plan", "run", "report", "compare", "trend", "clean"]


def out(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def blocks_of(text):
    """{name: body} of the generated blocks in text (a program's output or a page)."""
    blocks, name, body = {}, None, []
    for line in text.splitlines():
        m = BEGIN.match(line)
        if m:
            name, body = m.group(1), []
        elif line == END and name is not None:
            blocks[name] = "\n".join(body) + ("\n" if body else "")
            name = None
        elif name is not None:
            body.append(line)
    return blocks


def splice(page, fresh):
    """page with every generated block's body replaced by fresh's."""
    lines, res, skip = page.splitlines(), [], False
    for line in lines:
        m = BEGIN.match(line)
        if m and m.group(1) in fresh:
            res.append(line)
            res.extend(fresh[m.group(1)].splitlines())
            skip = True
        elif line == END and skip:
            res.append(line)
            skip = False
        elif not skip:
            res.append(line)
    return "\n".join(res) + "\n"


def plain(roff):
    """The words of roff source as a reader sees them (escapes and font changes undone)."""
    text = re.sub(r"\\f[BIRP]", "", roff)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    return re.sub(r"^\.(B|I|BR|RB|IR|RI|BI|IB) ", "", text, flags=re.M)


def help_options(args):
    """['--long', ...] of the options a --help lists (but --help itself)."""
    text = out(args)
    opts = re.findall(r"^  (?:-\w, )?(?:    )?(--[\w-]+)", text, flags=re.M)
    return [o for o in opts if o != "--help"]


def render_problems(path):
    """Warnings of man and groff on the page, and rendered lines wider than 80 columns."""
    problems = []
    tbl = open(path, encoding="utf-8").readline().startswith("'\\\" t")
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
    r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True, env=env)
    if r.returncode != 0 or r.stderr.strip():
        problems.append(f"man --warnings: {r.stderr.strip() or 'exit %d' % r.returncode}")
    text = re.sub(r".\x08", "", r.stdout)
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > 80:
            problems.append(f"rendered line {n} is {len(line)} columns: {line.strip()[:60]}...")
    g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"] + (["-t"] if tbl else []) + [path],
                       capture_output=True, text=True)
    if g.stderr.strip():
        problems.append(f"groff -ww: {g.stderr.strip()}")
    return problems


def main(argv):
    update = argv[:1] == ["--update"]
    argv = argv[1:] if update else argv
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    bindir, mandir = argv[0], argv[1]
    readme = argv[2] if len(argv) == 3 else None
    ns, nsperf = os.path.join(bindir, "netsurvey"), os.path.join(bindir, "nsperf")
    fresh = blocks_of(out([ns, "--man-options"]))
    fresh.update(blocks_of(out([nsperf, "--man-options"])))
    pages = sorted(f for f in os.listdir(mandir) if re.search(r"\.[1-8]$", f))
    bad, used = [], set()
    for name in pages:
        path = os.path.join(mandir, name)
        src = open(path, encoding="utf-8").read()
        have = blocks_of(src)
        for block in have:
            if block not in fresh:
                bad.append(f"{name}: generated block '{block}' is printed by no program")
            used.add(block)
        if update:
            new = splice(src, fresh)
            if new != src:
                open(path, "w", encoding="utf-8").write(new)
                print(f"{name}: generated blocks rewritten")
            continue
        for block, body in have.items():
            if block in fresh and body != fresh[block]:
                bad.append(f"{name}: block '{block}' differs from what the program prints now "
                           f"(run: python3 tests/cli/man_pages.py --update {bindir} {mandir})")
    if update:
        return 0
    for block in sorted(set(fresh) - used):
        bad.append(f"no page holds the generated block '{block}'")
    text = {n: plain(open(os.path.join(mandir, n), encoding="utf-8").read()) for n in pages}
    want = {"netsurvey.1": [], "nsperf.1": [], "netsurvey-plan.5": []}
    for command in COMMANDS:
        want["netsurvey.1"] += [(f"netsurvey {command} --help", o)
                                for o in help_options([ns, command, "--help"])]
    want["nsperf.1"] += [("nsperf --help", o) for o in help_options([nsperf, "--help"])]
    want["nsperf.1"] += [("nsperf env --help", o) for o in help_options([nsperf, "env", "--help"])]
    keys = [line.split("\t")[0] for line in out([ns, "--plan-keys"]).splitlines()]
    want["netsurvey-plan.5"] += [("netsurvey --plan-keys", k) for k in keys]
    for page, items in want.items():
        if page not in text:
            bad.append(f"{mandir}/{page} is missing")
            continue
        for source, word in items:
            if not re.search(re.escape(word) + r"(?![\w-])", text[page]):
                bad.append(f"{page}: '{word}' ({source}) is not in the page")
    if readme is not None:
        lines = open(readme, encoding="utf-8").read().splitlines()
        if len(lines) > README_MAX_LINES:
            bad.append(f"README.md has {len(lines)} lines, more than {README_MAX_LINES}: it is "
                       f"the door; the reference belongs in the manual pages")
        for page in pages:
            title = re.sub(r"\.(\d)$", r"(\1)", page)
            if title not in "\n".join(lines):
                bad.append(f"README.md does not point to {title}")
        rows = "\n".join(line for line in open(readme, encoding="utf-8").read().splitlines()
                         if line.startswith("|"))
        for k in keys:
            if f"`{k}`" not in rows:
                bad.append(f"README.md: plan key `{k}` (netsurvey --plan-keys) is in no table row")
    for tool, package in (("man", "man-db"), ("groff", "groff-base")):
        if shutil.which(tool) is None:
            bad.append(f"{tool} is not installed (Debian package {package}): pages not rendered")
    if not any("not installed" in b for b in bad):
        for name in pages:
            bad += [f"{name}: {p}" for p in render_problems(os.path.join(mandir, name))]
    for b in bad:
        print(b)
    checked = sum(len(v) for v in want.values())
    print(f"{len(pages)} pages, {len(fresh)} generated blocks, {checked} options and keys: "
          f"{'ok' if not bad else f'{len(bad)} problems'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
