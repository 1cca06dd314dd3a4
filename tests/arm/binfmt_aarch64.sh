#!/usr/bin/env bash
# binfmt_aarch64.sh [AARCH64_ELF [ARG...]] - make this machine run aarch64 executables:
# qemu-user-static's qemu-aarch64 registered with binfmt_misc (mounted first if it is not).
# Idempotent; root does the mounting and registering, anyone may check. With AARCH64_ELF (a
# static aarch64 program), also that it runs: `AARCH64_ELF ARG...` (default --version) exits 0.
# Exit 0: ready. Exit 77: qemu-user-static is not installed (the caller may skip, saying so).
# Exit 1: installed, but aarch64 programs cannot run here (the reason on stderr): a failure.
# Used by .ci/install and by every test of an aarch64 endpoint (tests/arm, tests/lab).
set -uo pipefail
conf=/usr/lib/binfmt.d/qemu-aarch64.conf
mnt=/proc/sys/fs/binfmt_misc
say() { echo "binfmt_aarch64: $*" >&2; }

if [[ ! -x /usr/bin/qemu-aarch64-static || ! -f $conf ]]; then
    say "qemu-user-static is not installed (apt-get install qemu-user-static)"
    exit 77
fi
if [[ ! -e $mnt/register ]]; then
    if [[ $(id -u) != 0 ]]; then
        say "binfmt_misc is not mounted at $mnt, and only root may mount it"
        exit 1
    fi
    mount -t binfmt_misc binfmt_misc "$mnt" || {
        say "cannot mount binfmt_misc at $mnt"
        exit 1
    }
fi
if [[ ! -e $mnt/qemu-aarch64 ]]; then
    if [[ $(id -u) != 0 ]]; then
        say "qemu-aarch64 is not registered with binfmt_misc, and only root may register it"
        exit 1
    fi
    # the conf line as systemd-binfmt would write it (flags F: the interpreter is opened now,
    # so it also runs inside other mount namespaces, the lab's hosts)
    grep -v '^#' "$conf" | grep . >"$mnt/register" 2>/dev/null ||
        [[ -e $mnt/qemu-aarch64 ]] || { # another process may have registered it meanwhile
        say "cannot register $conf with binfmt_misc"
        exit 1
    }
fi
if [[ $(head -n 1 "$mnt/qemu-aarch64") != enabled ]]; then
    if [[ $(id -u) != 0 ]] || ! echo 1 >"$mnt/qemu-aarch64"; then
        say "qemu-aarch64 is registered with binfmt_misc but disabled"
        exit 1
    fi
fi
if [[ -n ${1:-} ]]; then
    args=("${@:2}")
    ((${#args[@]})) || args=(--version)
    if ! out=$(timeout 60 "$1" "${args[@]}" 2>&1); then
        say "$1 ${args[*]} does not run here: $out"
        exit 1
    fi
fi
exit 0
