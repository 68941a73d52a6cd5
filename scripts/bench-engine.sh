#!/usr/bin/env bash
# Core engine benchmark: 64 KiB RDMA WRITEs between two engines on the
# simulated wire (Gbit/s and the ratio to memcpy of the same bytes in the
# same run) and 64-byte SENDs (messages/s). Optimised build, no
# sanitizers, in build/bench.
#
#   scripts/bench-engine.sh [WRITES] [SENDS]     (how many of each)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage; exit 0 ;; esac
bench=$repo/build/bench
if [ ! -f "$bench/build.ninja" ]; then
    meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
        -Dwerror=true >/dev/null
fi
ninja -C "$bench" tests/bench-engine >/dev/null
exec "$bench/tests/bench-engine" "$@"
