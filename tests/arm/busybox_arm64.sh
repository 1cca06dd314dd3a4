#!/usr/bin/env bash
# busybox_arm64.sh - print the path of Debian's arm64 busybox (package busybox-static:arm64),
# unpacked once into $NS_ARM64_CACHE (default /var/cache/netsurvey-tests): the login shell of
# the lab's aarch64 host (tests/lab/lab --aarch64). Unpacked, never installed: installing it
# would replace this machine's own busybox, which initramfs-tools copies into the initramfs.
# Needs `dpkg --add-architecture arm64` (.ci/install does it) and apt's archive the first time.
# Exit 0 with the path on stdout; 1 when it cannot be had (why on stderr).
set -euo pipefail
cache=${NS_ARM64_CACHE:-/var/cache/netsurvey-tests}
bb=$cache/busybox-static-arm64/bin/busybox
if [[ -x $bb ]]; then
    echo "$bb"
    exit 0
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "busybox_arm64: arm64 is not a dpkg architecture here (dpkg --add-architecture arm64 &&" \
        "apt-get update)" >&2
    exit 1
fi
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# apt-get download runs as the _apt user where it can; root's temporary directory is fine too
(cd "$tmp" && apt-get download -q busybox-static:arm64 >&2 2>"$tmp/apt.log") || {
    cat "$tmp/apt.log" >&2
    echo "busybox_arm64: apt-get download busybox-static:arm64 failed" >&2
    exit 1
}
dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/root"
rm -rf "$cache/busybox-static-arm64"
mv "$tmp/root" "$cache/busybox-static-arm64"
echo "$bb"
