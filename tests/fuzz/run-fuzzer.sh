#!/usr/bin/env bash
# Run a libFuzzer target over its committed seed corpus with a fixed seed
# and run count. New inputs go to a scratch directory, never into the
# committed corpus. Exit status: libFuzzer's (non-zero on any finding).
#
#   run-fuzzer.sh FUZZER SCRATCH-DIR SEED-CORPUS [libFuzzer options...]
set -u
fuzzer=$1 scratch=$2 corpus=$3
shift 3
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
exec "$fuzzer" "$@" -artifact_prefix="$scratch/" "$scratch" "$corpus"
