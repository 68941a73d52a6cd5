#!/usr/bin/env bash
# Tonic's Table 3 is generated from the code, never typed: a fresh run of
# scripts/repro/tonic.sh (its Table 3 does not depend on the run's length)
# must give the committed reference (docs/repro/tonic/table3.md) and the
# table docs/reproductions.md shows between <!-- table3 begin --> and <!-- table3 end -->.
#
#   tests/lint/table3.sh REPO TONIC-REPRO
set -euo pipefail
repo=$1 bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..2"
"$repo/scripts/repro/tonic.sh" --smoke --bin "$bin" --out "$tmp" > "$tmp/log" 2>&1 ||
    { echo "Bail out! tonic.sh failed:"; sed 's/^/# /' "$tmp/log"; exit 1; }
if cmp -s "$tmp/table3.md" "$repo/docs/repro/tonic/table3.md"; then
    echo "ok 1 - docs/repro/tonic/table3.md is the code's"
else
    echo "not ok 1 - docs/repro/tonic/table3.md is stale (rerun scripts/repro/tonic.sh --out docs/repro/tonic)"
    diff "$repo/docs/repro/tonic/table3.md" "$tmp/table3.md" | sed 's/^/# /'
fi
sed -n '/^<!-- table3 begin -->$/,/^<!-- table3 end -->$/p' "$repo/docs/reproductions.md" |
    sed '1d;$d' > "$tmp/readme.md"
if cmp -s "$tmp/table3.md" "$tmp/readme.md"; then
    echo "ok 2 - docs/reproductions.md's Table 3 is the code's"
else
    echo "not ok 2 - docs/reproductions.md's Table 3 differs from the generated one"
    diff "$tmp/readme.md" "$tmp/table3.md" | sed 's/^/# /'
fi
