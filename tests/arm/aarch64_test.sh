# shellcheck shell=bash
# aarch64_test.sh - sourced by the tests of the aarch64 endpoint: need_aarch64 ELF says whether
# this machine can run it, and what the test does when it cannot.
#
# Skipped (exit 77, with a message saying why) only where it cannot run for want of a package:
# the build made no nsperf-static-aarch64 (no cross compiler: its configure said so), or
# qemu-user-static is not installed. Under NETSURVEY_TEST_AARCH64=required (.ci/test sets it)
# those are failures too, so that CI never skips in silence. Where qemu-user-static is installed
# but the aarch64 endpoint does not run, it is always a failure.
AARCH64_SKIP=77
AARCH64_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

aarch64_skip() {
    if [[ ${NETSURVEY_TEST_AARCH64:-} == required ]]; then
        echo "FAIL: $* (NETSURVEY_TEST_AARCH64=required: no skipping)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
    echo "SKIP: the aarch64 endpoint is NOT tested on this machine" >&2
    exit $AARCH64_SKIP
}

# need_aarch64 ELF: ELF (the aarch64 nsperf-static) runs here, or the test ends
need_aarch64() {
    local elf=${1:-} rc=0
    [[ -n $elf && -x $elf ]] ||
        aarch64_skip "this build made no nsperf-static-aarch64 (cmake found no aarch64-linux-gnu-gcc" \
            "or no libjansson-dev:arm64; see its configure warning)"
    "$AARCH64_HERE/binfmt_aarch64.sh" "$elf" --version || rc=$?
    case $rc in
    0) ;;
    77) aarch64_skip "qemu-user-static is not installed: aarch64 programs cannot run here" ;;
    *)
        echo "FAIL: qemu-user-static is installed, but $elf does not run here" >&2
        exit 1
        ;;
    esac
}
