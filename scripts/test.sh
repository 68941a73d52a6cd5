#!/usr/bin/env bash
# Command 2: the whole test suite. Sets up (apt, as root), builds QEMU with
# snic and the guest image, runs the core unit tests, the lint checks, the
# libFuzzer targets (clang build), the qtests, the driver-developer workflow (the docs'
# commands as written, tests/dev/) and the VM tests (one VM at a time, each under a timeout), then
# prints one summary over every test case and exits non-zero on failure.
#
#   scripts/test.sh       (as root: it installs Debian packages; no options)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
help_or_no_args "$@"
need_root "$0"
cd "$repo" || exit 2

t_start=$(date +%s)
phase "setup" scripts/setup-deps.sh || exit 1
phase "QEMU build" scripts/build-qemu.sh || exit 1
phase "guest image" scripts/build-guest.sh || exit 1

# meson_dir DIR [ENV=VALUE...] -- OPTIONS...: configure once, then build.
meson_dir() {
    local dir=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        env "${envs[@]}" meson setup "$dir" "$@" >/dev/null
    fi || { echo "test: meson setup of $dir failed" >&2; exit 1; }
    ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
    rm -f "$dir"/meson-logs/testlog*.json
}

unit=$repo/build/unit fuzz=$repo/build/fuzz
src=$(cat "$repo/build/qemu/.snic-src")
meson_dir "$unit" -- -Dqemu_build="$repo/build/qemu" -Dqemu_src="$src"
meson_dir "$fuzz" CC=clang -- -Dfuzzing=true
phase "unit tests" meson test -C "$unit" --no-rebuild --print-errorlogs \
    --suite unit --suite lint --logbase unit
# The core's and the driver's call graphs (tests/lint/core-graph.py, lints above): their figures
python3 "$repo/tests/lint/core-graph.py" "$repo" | sed -n '1,2s/^/core graph: /p'
python3 "$repo/tests/lint/core-graph.py" --dir guest-driver/kernel "$repo" | sed 's/^/driver graph: /'
phase "fuzzing" meson test -C "$fuzz" --no-rebuild --print-errorlogs \
    --suite fuzz --logbase fuzz
phase "qtests" meson test -C "$unit" --no-rebuild --print-errorlogs \
    --suite qtest --logbase qtest
# The driver developer's day: the commands of README.md and docs/ as written, and the edit-rebuild-reload
# loop and a gdb attach in one interactive guest (tests/dev/).
readme_results=$repo/build/readme-results.tap dev_results=$repo/build/dev-results.tap
rm -f "$readme_results" "$dev_results"
phase "README commands" tests/dev/readme-commands.py "$readme_results" README.md docs/*.md
phase "developer loop" tests/dev/dev-workflow.py "$dev_results"

vm_results=$repo/build/vm-results.tap
rm -f "$vm_results"
phase "VM tests" tests/vm/vm-tests.sh "$qemu_bin" "$vm_results"

echo "==> total: $(( $(date +%s) - t_start ))s"
python3 "$repo/scripts/summarize-tests.py" "$unit"/meson-logs/unit.json \
    "$fuzz"/meson-logs/fuzz.json "$unit"/meson-logs/qtest.json "$readme_results" \
    "$dev_results" "$vm_results"
