#!/usr/bin/env bash
# Tonic (NSDI'20) Table 3 and Fig 4, generated from the code and the
# simulator: CSV, Markdown and PNG beside what the paper states
# (scripts/repro/tonic-paper.csv: Table 3's numbers; Fig 4 has none).
#
#   scripts/repro/tonic.sh [--smoke] [--out DIR] [--bin TONIC-REPRO]
#
# Table 3: every program the core registers, asked from a simulated device
# with QUERY_TRANSPORT (tests/bench/tonic-repro.c table: credit type, own
# state bytes, Tonic's limit, QPC bytes), and the lines of code of the
# program's source file, the one under hw/snic/core/transport/programs/
# whose SnicProgram carries that name (lines that are neither blank nor
# comment). Written as DIR/table3.csv and DIR/table3.md.
# Fig 4: two DCQCN flows from two NICs through the simulator's switch to
# a 40 Gb/s bottleneck with RED ECN marking (tonic-repro fig4): DIR/fig4.csv
# and DIR/fig4.png (gnuplot), and each flow's mean throughput over the
# run's second half; the paper states only that the flows converge to the
# same rate. 100 ms of virtual time (about 10 s here); --smoke: 5 ms (the
# test suite's run, the pipeline only). Builds tests/bench/tonic-repro.c
# without sanitizers (build/bench) unless --bin names a built one.
# Default DIR: build/repro/tonic.
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
progs=$repo/hw/snic/core/transport/programs
ms=100 sample_us=200
repro_options tonic "$@"
if [ ${#smoke[@]} -gt 0 ]; then ms=5 sample_us=100; fi

# ---- Table 3 ----
"$bin" table > "$out/device.csv"
[ "$(sed 1d "$out/device.csv" | wc -l)" -ge 1 ] || die "the device reports no programs"
# Lines of C that are neither blank nor comment (block and // comments)
loc() {
    sed -e 's://.*$::' "$1" | awk '
        { line = $0; code = 0
          while (line != "") {
              if (inc) { i = index(line, "*/"); if (!i) { line = ""; break }
                         line = substr(line, i + 2); inc = 0; continue }
              i = index(line, "/*")
              if (!i) { if (line ~ /[^ \t]/) code = 1; break }
              if (substr(line, 1, i - 1) ~ /[^ \t]/) code = 1
              line = substr(line, i + 2); inc = 1
          }
          n += code }
        END { print n + 0 }'
}
echo "program,source,loc,state_bytes,state_max,credit,qpc_bytes,paper_name,paper_loc,paper_state_bytes,paper_credit" \
    > "$out/table3.csv"
while IFS=, read -r name credit state max qpc; do
    src=$(grep -l "\.name = \"$name\"" "$progs"/*.c || true)
    [ "$(echo "$src" | grep -c .)" = 1 ] ||
        die "program '$name': not exactly one source file in $progs names it (${src:-none})"
    [ "$state" -le "$max" ] || die "program '$name' keeps $state bytes, over Tonic's $max"
    paper=$(awk -F, -v p="$name" '$1 == p { print $2 "," $3 "," $4 "," $5 }' "$here/tonic-paper.csv")
    echo "$name,${src#"$repo"/},$(loc "$src"),$state,$max,$credit,$qpc,${paper:-,,,}"
done < <(sed 1d "$out/device.csv") >> "$out/table3.csv"
{
    echo "| program | source | LoC (C) | state (B) | limit (B) | credit | QPC (B) | Tonic Table 3: LoC (Verilog) | state (B) | credit |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    sed 1d "$out/table3.csv" | awk -F, '{ printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n",
        $1, $2, $3, $4, $5, $6, $7, ($9 == "" ? "-" : $9), ($10 == "" ? "-" : $10), ($11 == "" ? "-" : $11) }'
} > "$out/table3.md"

# ---- Fig 4 ----
"$bin" fig4 "$ms" "$sample_us" > "$out/fig4.csv" 2> "$out/fig4.log"
[ "$(sed 1d "$out/fig4.csv" | wc -l)" -ge 10 ] || die "fig4: too few samples ($out/fig4.log)"
repro_plot tonic fig4
# each flow's mean over the second half, and Jain's fairness index of the two
awk -F, -v half=$((ms * 500)) 'NR > 1 && $1 > half { a += $2; b += $4; n++ }
    END { a /= n; b /= n
          printf "flow0_gbps,flow1_gbps,sum_gbps,jain\n%.2f,%.2f,%.2f,%.4f\n",
                 a, b, a + b, (a + b) ^ 2 / (2 * (a * a + b * b)) }' \
    "$out/fig4.csv" > "$out/fig4-summary.csv"

echo "tonic: Table 3 (ours from the code; Tonic's from its Table 3):"
cat "$out/table3.md"
echo "tonic: Fig 4, two DCQCN flows on a 40 Gb/s bottleneck, ${ms} ms: $(cat "$out/fig4.log")"
sed 1d "$out/fig4-summary.csv" | awk -F, '{ printf "  second half: flow 0 %s Gb/s, flow 1 %s Gb/s (sum %s), Jain index %s (paper: \"they both converge to the same rate\")\n", $1, $2, $3, $4 }'
log "CSV, Markdown and PNG in $out"
