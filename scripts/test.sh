#!/usr/bin/env bash
# Command 2: the whole test suite. Sets up (apt, as root), builds QEMU with
# snic and the guest image, runs the core unit tests, the lint checks, the
# qtests and the VM tests (one VM at a time, each under a timeout), then
# prints one summary over every test case and exits non-zero on failure.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$0"
cd "$repo" || exit 2

t_start=$(date +%s)
phase "setup" scripts/setup-deps.sh || exit 1
phase "QEMU build" scripts/build-qemu.sh || exit 1
phase "guest image" scripts/guest-image.sh || exit 1

unit=$repo/build/unit
src=$(cat "$repo/build/qemu/.snic-src")
meson_opts=(-Dqemu_build="$repo/build/qemu" -Dqemu_src="$src")
if [ -f "$unit/build.ninja" ]; then
    meson setup --reconfigure "$unit" "${meson_opts[@]}" >/dev/null
else
    meson setup "$unit" "${meson_opts[@]}" >/dev/null
fi || { echo "test: meson setup of $unit failed" >&2; exit 1; }
ninja -C "$unit" >/dev/null || { ninja -C "$unit"; exit 1; }
rm -f "$unit/meson-logs/testlog"*.json
phase "unit tests" meson test -C "$unit" --no-rebuild --print-errorlogs \
    --suite unit --suite lint --logbase unit
phase "qtests" meson test -C "$unit" --no-rebuild --print-errorlogs \
    --suite qtest --logbase qtest

vm_results=$repo/build/vm-results.tap
rm -f "$vm_results"
phase "VM tests" tests/vm/vm-tests.sh "$qemu_bin" "$vm_results"

echo "==> total: $(( $(date +%s) - t_start ))s"
python3 "$repo/scripts/summarize-tests.py" "$unit"/meson-logs/unit.json \
    "$unit"/meson-logs/qtest.json "$vm_results"
