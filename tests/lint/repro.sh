#!/usr/bin/env bash
# TAP: a fresh smoke run of one reproduction writes what its reference run
# has. scripts/repro/NAME.sh --smoke (every point, short runs; drawn with
# gnuplot where it is installed, --no-plot otherwise; Tonic's Fig 3 beside
# ns-3 where ns-3 is installed) must succeed, and its CSV files, columns and
# row keys must be those of docs/repro/NAME (values are not compared: a smoke
# run is shorter), files that do not depend on the run's length equal to
# the reference's (scripts/repro/render.py --shape).
#
#   tests/lint/repro.sh REPO NAME PROGRAM OUT
set -uo pipefail
repo=$1 name=$2 bin=$3 out=$4
plot=()
command -v gnuplot >/dev/null || plot=(--no-plot)
rm -rf "$out"
mkdir -p "$out"
if "$repo/scripts/repro/$name.sh" --smoke "${plot[@]}" --bin "$bin" --out "$out" >"$out.log" 2>&1; then
    echo "ok 1 - scripts/repro/$name.sh --smoke${plot[*]:+ ${plot[*]}}"
else
    echo "not ok 1 - scripts/repro/$name.sh --smoke${plot[*]:+ ${plot[*]}} (its output: $out.log)"
    tail -n 30 "$out.log" | sed 's/^/# /'
fi
# render.py numbers its own results from 1: after ours
python3 "$repo/scripts/repro/render.py" --shape --tap "$name" "$out" |
    awk '/^(not )?ok [0-9]+/ { n = $0 ~ /^not/ ? 3 : 2; $n = $n + 1; print; next }
         /^1\.\.[0-9]+$/ { split($0, p, "\\.\\."); plan = p[2] + 1; next }
         { print }
         END { print "1.." plan }'
