#!/usr/bin/env bash
# Core engine benchmark: 64 KiB RDMA WRITEs between two engines on the
# simulated wire (Gbit/s and the ratio to memcpy of the same bytes in the
# same run) and 64-byte SENDs (messages/s). Optimised build, no
# sanitizers, in build/bench. Arguments: [writes] [sends].
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bench=$repo/build/bench
if [ ! -f "$bench/build.ninja" ]; then
    meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
        -Dwerror=true >/dev/null
fi
ninja -C "$bench" tests/bench-engine >/dev/null
exec "$bench/tests/bench-engine" "$@"
