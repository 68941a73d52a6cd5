#!/usr/bin/env bash
# 16-to-1 incast through the simulated switch (tests/bench/bench-incast.c):
# sixteen engine nodes with the SRNIC timing model WRITE into one, with and
# without PFC; prints the receiver's queue over virtual time, drops, PAUSE
# frames and goodput. Virtual time: the same figures on every machine.
# Optimised build, no sanitizers, in build/bench.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
    # shellcheck source=scripts/lib.sh
    . "$repo/scripts/lib.sh"
    usage       # before any build: --help answers at once
    exit 0
fi
bench=$repo/build/bench
if [ ! -f "$bench/build.ninja" ]; then
    meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
        -Dwerror=true >/dev/null
fi
ninja -C "$bench" tests/bench-incast >/dev/null
exec "$bench/tests/bench-incast"
