#!/usr/bin/env python3
"""ssh_by_ssh.py - fail when netsurvey reads ssh_config(5) itself again (issue 26).

The operator's own `ssh -G` resolves every host (src/common/sshg.c); netsurvey keeps no port of
OpenSSH's readconf.c, no SHA-1 of its own (OpenSSH's %C is expanded by ssh), and lists an
inventory's Host aliases with one small reader that knows two keywords, `Host` and `Include`.
Read two ways:
  - symbols (nm, what the linker sees): no library defines a SHA-1 (a symbol named *sha1*) or a
    function of the old port (prefix sc_);
  - sources (--src DIR): no file names readconf, and a keyword of ssh_config is compared without
    case (strcasecmp, as a config file is read) only in the alias reader, and only Host and
    Include there. Keys of `ssh -G`'s answer are lower case and compared with strcmp.
Prints each finding with its file or symbol and exits 1; exits 0 with a summary otherwise.
Usage: ssh_by_ssh.py [--src DIR] LIB.a [LIB.a ...]  (nm from $NM when set)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_cycles import objects  # noqa: E402

# The alias reader: the one place a config file is read, and the keywords it may read.
ALIAS_READER = "inv_sshconfig.c"
ALIAS_KEYWORDS = {"host", "include"}
# ssh_config's keywords a parser would look for (enough to tell one when it comes back).
KEYWORDS = {"host", "match", "include", "hostname", "port", "user", "identityfile",
            "identitiesonly", "identityagent", "proxyjump", "proxycommand",
            "userknownhostsfile", "globalknownhostsfile", "hostkeyalias", "connecttimeout",
            "ignoreunknown", "canonicalizehostname", "stricthostkeychecking", "certificatefile",
            "ciphers", "macs", "kexalgorithms", "hostkeyalgorithms", "addressfamily"}
CASELESS = re.compile(r'str(?:n)?casecmp\s*\([^;]*?"([A-Za-z0-9]+)"', re.S)
SHA1 = re.compile(r"sha_?1", re.I)


def symbol_findings(libs):
    out = []
    for lib in libs:
        for obj, (defined, _) in objects(lib).items():
            for sym in sorted(defined):
                if SHA1.search(sym):
                    out.append(f"{os.path.basename(lib)}:{obj}: defines {sym} (a SHA-1 of its own)")
                elif sym.startswith("sc_"):
                    out.append(f"{os.path.basename(lib)}:{obj}: defines {sym} (the readconf port)")
    return out


def source_findings(src):
    out = []
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if re.search(r"readconf", text, re.I):
                out.append(f"{rel}: names readconf")
            for m in CASELESS.finditer(text):
                word = m.group(1).lower()
                if word not in KEYWORDS:
                    continue
                if f == ALIAS_READER and word in ALIAS_KEYWORDS:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                out.append(f"{rel}:{line}: compares the ssh_config keyword '{m.group(1)}' "
                           f"without case (a config parser: ask ssh -G)")
    return out


def main(argv):
    src, libs = None, []
    it = iter(argv)
    for arg in it:
        if arg == "--src":
            src = next(it, None)
        else:
            libs.append(arg)
    if not libs and src is None:
        sys.exit(__doc__)
    findings = symbol_findings(libs) + (source_findings(src) if src else [])
    for f in findings:
        print(f)
    if findings:
        return 1
    print(f"ssh_by_ssh: {len(libs)} libraries{' and ' + src if src else ''}: ssh_config is read "
          f"by ssh alone")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
