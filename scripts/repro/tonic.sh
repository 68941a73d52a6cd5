#!/usr/bin/env bash
# Tonic (NSDI'20) Table 3 and Figs 3a/3b and 4, generated from the code and the
# simulator: CSV, Markdown and PNG beside what the paper states
# (scripts/repro/tonic-paper.csv: Table 3's numbers; Fig 4 has none).
#
#   scripts/repro/tonic.sh [--smoke] [--no-plot] [--out DIR] [--bin TONIC-REPRO]
#
# Table 3: every program the core registers, asked from a simulated device
# with QUERY_TRANSPORT (tests/bench/tonic-repro.c table: credit type, own
# state bytes, Tonic's limit, QPC bytes), and the lines of code of the
# program's source file, the one under hw/snic/core/transport/programs/
# whose SnicProgram carries that name, or under srnic/ for a mode of the
# engine (SRNIC: sr.c, all its hooks, and its parts sr_*.c), with the
# headers of programs/ they include (the window rules TCP-like programs
# share) (lines that are neither blank nor comment). Written as DIR/table3.csv and DIR/table3.md. A program's
# file under programs/ over 199 lines, or its state over Tonic's limit,
# fails the run.
# Fig 4: two DCQCN flows from two NICs through the simulator's switch to
# a 40 Gb/s bottleneck with RED ECN marking (tonic-repro fig4): DIR/fig4.csv
# and DIR/fig4.png (gnuplot), and DIR/fig4-summary.csv: flow 0 alone, each
# flow's mean throughput over the run's second half, the bottleneck's CE
# marks and drops; the paper states only that the flows converge to the
# same rate. 100 ms of virtual time (about 10 s here); --smoke: 5 ms (the
# test suite's run, the pipeline only).
# Fig 3a/3b: one NewReno flow, 10 Gb/s, RTT 10 us, 1 KiB segments, random
# drops (each segment with probability 1/150, drawn once from a fixed
# seed, dropped once), run twice on the same drop list: our NewReno
# program in the simulator (tonic-repro fig3) and ns-3's own TcpNewReno
# (tests/bench/tonic-ns3-newreno.cc, built with g++ into
# build/ns3/ when ns-3 is installed; without ns-3 only ours, said so).
# DIR/fig3a.csv (cwnd over time), DIR/fig3b.csv (every transmitted
# segment, retransmissions marked; time from each one's first data
# segment), their PNGs, and DIR/fig3-summary.csv:
# retransmissions, recovery episodes, the window at each episode's
# start, its least and greatest, the retransmissions a partial ACK asked
# for inside an episode, per implementation. 5000 segments; --smoke: 300. Builds tests/bench/tonic-repro.c
# without sanitizers (build/bench) unless --bin names a built one.
# --no-plot: CSV and Markdown only (no gnuplot needed). Default DIR:
# build/repro/tonic. Then DIR/run.txt and the docs' blocks from the run
# (scripts/repro/render.py: rewritten in docs/ when DIR is docs/repro/tonic).
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
progs=$repo/hw/snic/core/transport/programs
modes=$repo/hw/snic/core/srnic
ms=100 sample_us=200
segments=5000
repro_options tonic "$@"
if [ ${#smoke[@]} -gt 0 ]; then ms=5 sample_us=100 segments=300; fi

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
# A source and the programs/ headers it includes (tcp_window.h, ...), each once
with_headers() {
    local f=$1 h
    echo "$f"
    while read -r h; do
        [ ! -f "$progs/$h" ] || with_headers "$progs/$h"
    done < <(sed -n 's/^#include "\(transport\/programs\/\)\{0,1\}\([a-z_]*\.h\)"$/\2/p' "$f")
}
loc_all() {
    local f n=0 part
    for f in $({ with_headers "$1"; for part in "${1%.c}"_*.c; do
                     [ ! -f "$part" ] || with_headers "$part"; done; } | sort -u); do
        n=$((n + $(loc "$f")))
    done
    echo "$n"
}
echo "program,source,loc,state_bytes,state_max,credit,qpc_bytes,paper_name,paper_loc,paper_state_bytes,paper_credit" \
    > "$out/table3.csv"
while IFS=, read -r name credit state max qpc; do
    src=$(grep -l "\.name = \"$name\"" "$progs"/*.c "$modes"/*.c || true)
    [ "$(echo "$src" | grep -c .)" = 1 ] ||
        die "program '$name': not exactly one source file in $progs names it (${src:-none})"
    [ "$state" -le "$max" ] || die "program '$name' keeps $state bytes, over Tonic's $max"
    lines=$(wc -l < "$src")
    [[ $src != "$progs"/* ]] || [ "$lines" -lt 200 ] || die "program '$name': ${src#"$repo"/} has $lines lines; a program stays under 200"
    paper=$(awk -F, -v p="$name" '$1 == p { print $2 "," $3 "," $4 "," $5 }' "$here/tonic-paper.csv")
    echo "$name,${src#"$repo"/},$(loc_all "$src"),$state,$max,$credit,$qpc,${paper:-,,,}"
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
marks=$(sed -n 's/^tonic-repro: fig4: \([0-9]*\) CE marks, \([0-9]*\) drops.*/\1,\2/p' "$out/fig4.log")
[ -n "$marks" ] || die "fig4: no CE mark count in $out/fig4.log"
repro_plot tonic fig4
# flow 0's mean alone (before flow 1 starts, at a tenth of the run), each flow's mean over
# the second half and Jain's fairness index of the two; the bottleneck's CE marks and drops
awk -F, -v start=$((ms * 100)) -v half=$((ms * 500)) -v marks="$marks" '
    NR > 1 && $1 <= start { alone += $2; na++ }
    NR > 1 && $1 > half { a += $2; b += $4; n++ }
    END { a /= n; b /= n
          printf "flow0_alone_gbps,flow0_gbps,flow1_gbps,sum_gbps,jain,ce_marks,drops\n"
          printf "%.2f,%.2f,%.2f,%.2f,%.4f,%s\n", alone / na, a, b, a + b,
                 (a + b) ^ 2 / (2 * (a * a + b * b)), marks }' \
    "$out/fig4.csv" > "$out/fig4-summary.csv"

# ---- Fig 3a/3b ----
ns3_src=$repo/tests/bench/tonic-ns3-newreno.cc ns3_bin=$repo/build/ns3/tonic-ns3-newreno
ns3_mods=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications)
drops=$(awk -v n="$segments" 'BEGIN { srand(3); s = ""
    for (i = 0; i < n; i++) if (rand() < 1 / 150) s = s (s == "" ? "" : ",") i
    print (s == "" ? "-" : s) }')
"$bin" fig3 "$segments" "$drops" > "$out/fig3-ours.csv"
impls=ours
if pkg-config --exists "${ns3_mods[@]}"; then
    if [ ! -x "$ns3_bin" ] || [ "$ns3_src" -nt "$ns3_bin" ]; then
        mkdir -p "${ns3_bin%/*}"
        read -ra ns3_flags < <(pkg-config --cflags --libs "${ns3_mods[@]}")
        g++ -O1 -std=c++17 -o "$ns3_bin.tmp.$$" "$ns3_src" "${ns3_flags[@]}" ||
            die "building $ns3_src failed"
        mv "$ns3_bin.tmp.$$" "$ns3_bin"
    fi
    "$ns3_bin" "$segments" 1024 128 "$drops" > "$out/fig3-ns3.csv"
    impls="ours ns-3"
else
    log "ns-3 (libns3-dev) not installed: Fig 3 without ns-3's TcpNewReno (scripts/setup-deps.sh installs it)"
    rm -f "$out/fig3-ns3.csv"
fi
echo "impl,time_us,cwnd_segments" > "$out/fig3a.csv"
echo "impl,time_us,segment,retransmission" > "$out/fig3b.csv"
for impl in $impls; do
    f=$out/fig3-ours.csv
    [ "$impl" = ours ] || f=$out/fig3-ns3.csv
    # time from the first data segment: ns-3 first spends an RTT on SYN, SYN-ACK
    t0=$(awk -F, '$1 == "tx" { print $2; exit }' "$f")
    awk -F, -v i="$impl" -v t0="$t0" '$1 == "cwnd" { printf "%s,%.3f,%s\n", i, ($2 > t0 ? $2 - t0 : 0), $3 }' \
        "$f" >> "$out/fig3a.csv"
    awk -F, -v i="$impl" -v t0="$t0" '$1 == "tx" { printf "%s,%.3f,%s,%s\n", i, $2 - t0, $3, $4 }' \
        "$f" >> "$out/fig3b.csv"
done
# An episode starts at a retransmission above 'recover', the highest segment
# sent before it (RFC 6582's rule, read off the trace); the window then is
# the last cwnd at or before that time. A retransmission at or below 'recover'
# is repaired inside the episode of the one that started it (a partial ACK's);
# the window's least and greatest over the run.
awk -F, -v drops="$drops" 'FNR == 1 { next }
    FILENAME ~ /fig3a/ { n[$1]++; ct[$1, n[$1]] = $2; cw[$1, n[$1]] = $3
                         if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3 + 0
                         if (!($1 in up) || $3 > up[$1]) up[$1] = $3 + 0; next }
    { if (!($1 in hi)) { hi[$1] = -1; rec[$1] = -1; order[++ni] = $1 }
      if ($4 == 1) {
          rtx[$1]++
          if ($3 > rec[$1]) {
              ep[$1]++; rec[$1] = hi[$1]; w = ""; start[$1] = $3
              for (k = 1; k <= n[$1] && ct[$1, k] <= $2; k++) w = cw[$1, k] + 0
              cws[$1] = cws[$1] (cws[$1] == "" ? "" : " ") w
              if (ep[$1] == 1) first[$1] = w
          } else {
              in_ep[$1] = in_ep[$1] (in_ep[$1] == "" ? "" : " ") $3 " (" start[$1] ")"
          }
      }
      if ($3 > hi[$1]) hi[$1] = $3; tx[$1]++; last[$1] = $2 }
    END { nd = drops == "-" ? 0 : split(drops, d, ",")
          print "impl,transmissions,dropped,retransmissions,episodes,cwnd_at_episodes,cwnd_first_episode,cwnd_min,cwnd_max,partial_ack_repairs,end_us"
          for (j = 1; j <= ni; j++) { i = order[j]
              printf "%s,%d,%d,%d,%d,%s,%s,%s,%s,%s,%.1f\n", i, tx[i], nd, rtx[i] + 0, ep[i] + 0,
                     cws[i], first[i], lo[i], up[i], in_ep[i], last[i] } }' \
    "$out/fig3a.csv" "$out/fig3b.csv" > "$out/fig3-summary.csv"
rm -f "$out/fig3-ours.csv" "$out/fig3-ns3.csv"     # all in fig3a and fig3b
[ "$(grep -c '^ours,' "$out/fig3-summary.csv")" = 1 ] || die "fig3: no trace of ours"
repro_gnuplot "$out" fig3a fig3b -- -e "dir='$out'" "$here/tonic-fig3.gp"

echo "tonic: Table 3 (ours from the code; Tonic's from its Table 3):"
cat "$out/table3.md"
echo "tonic: Fig 4, two DCQCN flows on a 40 Gb/s bottleneck, ${ms} ms:"
sed 1d "$out/fig4-summary.csv" | awk -F, '{ printf "  flow 0 alone %s Gb/s; second half: flow 0 %s Gb/s, flow 1 %s Gb/s (sum %s), Jain index %s (paper: \"they both converge to the same rate\"); %s CE marks, %s drops\n", $1, $2, $3, $4, $5, $6, $7 }'
echo "tonic: Fig 3, one NewReno flow of $segments segments, 10 Gb/s, RTT 10 us, dropped once: $(echo "$drops" | tr , ' ')"
sed 1d "$out/fig3-summary.csv" | awk -F, '{ printf "  %-5s %d transmissions, %d retransmissions, %d recovery episodes, done at %s us; window (segments) at each episode start: %s\n", $1, $2, $4, $5, $11, $6 }'
repro_done tonic "${smoke[@]}"
log "CSV, Markdown and PNG in $out"
