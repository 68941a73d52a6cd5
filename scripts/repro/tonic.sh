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
# a 40 Gb/s bottleneck with RED ECN marking (tonic-repro fig4), both from
# t = 0, ports of 40 Gb/s (link-speed-mbps: DCQCN starts at it): DIR/fig4.csv
# and DIR/fig4.png (gnuplot), and DIR/fig4-summary.csv: the rate DCQCN
# starts at, each flow's mean throughput over the run's second half and
# their Jain index, the bottleneck's CE marks and drops; the paper states
# only that the flows converge to the same rate. 1 s of virtual time;
# --smoke: 5 ms (the test suite's run, the pipeline only).
# Fig 3a/3b: one NewReno flow between two hosts on one switch (drop-tail,
# 5.5 MB, no PFC), 10 Gb/s links of 2.5 us (base RTT 10 us), 1 KiB
# segments, min RTO 200 ms (ours: local ACK timeout 268 ms), random drops
# (each segment with probability 1/150, drawn once from a fixed seed,
# dropped once), run twice on the same drop list: our NewReno program in
# the simulator (tonic-repro fig3) and ns-3's own TcpNewReno
# (tests/bench/tonic-ns3-newreno.cc, built with g++ into build/ns3/ when
# ns-3 is installed; without ns-3, and with --smoke, only ours, said so).
# DIR/fig3a.csv (cwnd over time), DIR/fig3b.csv (every transmitted
# segment, retransmissions marked; time from each one's first data
# segment), their PNGs, and DIR/fig3-summary.csv:
# retransmissions, recovery episodes, the window at each episode's
# start, its least and greatest, the retransmissions a partial ACK asked
# for inside an episode, per implementation ("-" where one did not run).
# 5000 segments; --smoke: 300.
# Fig 3c: two senders x 100 NewReno flows, one 10 Gb/s bottleneck, Fig 3's
# switch, per-packet round robin, 5 s (tonic-repro fig3c; ns-3's
# TcpNewReno, tonic-ns3-newreno fig3c, beside it where it runs): DIR/fig3c.csv
# (per flow: average throughput, retransmissions), DIR/fig3c-epochs.csv
# (1 ms epochs: each sender's throughput, Jain's index over the flows),
# DIR/fig3c-summary.csv (medians, means, extremes and the
# Kolmogorov-Smirnov distance of the per-flow throughput against ours, and
# the bound fixed before the run, 0.2) and DIR/fig3c.png; --smoke: 3 ms.
# DCQCN with 200 flows (section 6.2.2): Fig 4's switch, RED and 40 Gb/s
# ports, two senders x 100 DCQCN flows, PFC on (tonic-repro dcqcn200),
# 1 s: DIR/dcqcn200.csv (per flow: goodput, CNPs), DIR/dcqcn200-epochs.csv,
# DIR/dcqcn200-summary.csv and DIR/dcqcn200.png; --smoke: 3 ms.
# Builds tests/bench/tonic-repro.c
# without sanitizers (build/bench) unless --bin names a built one.
# --no-plot: CSV and Markdown only (no gnuplot needed). Default DIR:
# build/repro/tonic. Then DIR/run.txt and the docs' blocks from the run
# (scripts/repro/render.py: rewritten in docs/ when DIR is docs/repro/tonic).
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
progs=$repo/hw/snic/core/transport/programs
modes=$repo/hw/snic/core/srnic
ms=1000 sample_us=1000
segments=5000 many_ms=5000 dcqcn_ms=1000 epoch_us=1000
ks_bound=0.2        # Fig 3c: fixed before the run
repro_options tonic "$@"
if [ ${#smoke[@]} -gt 0 ]; then
    ms=5 sample_us=100 segments=300 many_ms=3 dcqcn_ms=3
fi

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
start=$(sed -n 's/^tonic-repro: fig4: port speed \([0-9]*\) Mb\/s, initial rate \([0-9]*\) Mb\/s$/\1,\2/p' "$out/fig4.log")
[ -n "$start" ] || die "fig4: no initial rate in $out/fig4.log"
repro_plot tonic fig4
# the port's speed and DCQCN's initial rate; each flow's mean over the second
# half and Jain's fairness index of the two; the bottleneck's CE marks and drops
awk -F, -v half=$((ms * 500)) -v marks="$marks" -v start="$start" '
    NR > 1 && $1 > half { a += $2; b += $4; n++ }
    END { a /= n; b /= n; split(start, st, ",")
          printf "port_gbps,initial_rate_gbps,flow0_gbps,flow1_gbps,sum_gbps,jain,ce_marks,drops\n"
          printf "%.1f,%.1f,%.2f,%.2f,%.2f,%.4f,%s\n", st[1] / 1000, st[2] / 1000, a, b, a + b,
                 (a + b) ^ 2 / (2 * (a * a + b * b)), marks }' \
    "$out/fig4.csv" > "$out/fig4-summary.csv"

# ---- Fig 3a/3b ----
ns3_src=$repo/tests/bench/tonic-ns3-newreno.cc ns3_bin=$repo/build/ns3/tonic-ns3-newreno
ns3_mods=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications
          ns3-traffic-control)
drops=$(awk -v n="$segments" 'BEGIN { srand(3); s = ""
    for (i = 0; i < n; i++) if (rand() < 1 / 150) s = s (s == "" ? "" : ",") i
    print (s == "" ? "-" : s) }')
"$bin" fig3 "$segments" "$drops" > "$out/fig3-ours.csv"
impls=ours ns3=0
if [ ${#smoke[@]} -gt 0 ]; then
    log "--smoke: Fig 3 without ns-3 (its program is built and run by the full run only)"
elif pkg-config --exists "${ns3_mods[@]}"; then
    if [ ! -x "$ns3_bin" ] || [ "$ns3_src" -nt "$ns3_bin" ]; then
        mkdir -p "${ns3_bin%/*}"
        read -ra ns3_flags < <(pkg-config --cflags --libs "${ns3_mods[@]}")
        g++ -O1 -std=c++17 -o "$ns3_bin.tmp.$$" "$ns3_src" "${ns3_flags[@]}" ||
            die "building $ns3_src failed"
        mv "$ns3_bin.tmp.$$" "$ns3_bin"
    fi
    "$ns3_bin" fig3 "$segments" 1024 128 "$drops" > "$out/fig3-ns3.csv"
    impls="ours ns-3" ns3=1
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
[ "$ns3" = 1 ] || echo "ns-3,-,-,-,-,-,-,-,-,-,-" >> "$out/fig3-summary.csv"
rm -f "$out/fig3-ours.csv" "$out/fig3-ns3.csv"     # all in fig3a and fig3b
[ "$(grep -c '^ours,' "$out/fig3-summary.csv")" = 1 ] || die "fig3: no trace of ours"
repro_gnuplot "$out" fig3a fig3b -- -e "dir='$out'" "$here/tonic-fig3.gp"

# ---- Fig 3c ----
"$bin" fig3c "$many_ms" "$epoch_us" > "$out/fig3c-ours.csv" 2> "$out/fig3c.log"
impls=ours
if [ "$ns3" = 1 ]; then
    # A receive window of 4096 segments, above the 1 MiB send buffer: ns-3
    # 3.37 crashes when a sender's bytes in flight equal the peer's window
    # exactly (TcpTxBuffer::NextSeg offers a zero-length segment, fixed in
    # ns-3.41), which 200 flows on our cap's 128 segments reach in their
    # first losses. Nothing of this tree goes into ns-3's run (10-30 min):
    # it is kept beside the binary, named by its arguments, while the
    # binary is older.
    ns3_args=(fig3c "$many_ms" 1024 4096 "$epoch_us")
    ns3_run=${ns3_bin%/*}/$(IFS=-; echo "${ns3_args[*]}").csv
    if [ -s "$ns3_run" ] && [ "$ns3_run" -nt "$ns3_bin" ]; then
        log "fig3c: ns-3's run of these arguments by this binary: $ns3_run"
    elif "$ns3_bin" "${ns3_args[@]}" > "$ns3_run.tmp.$$" 2>> "$out/fig3c.log"; then
        mv "$ns3_run.tmp.$$" "$ns3_run"
    else
        echo "tonic: ns-3's fig3c exited with status $? (ns-3 3.37)" >> "$out/fig3c.log"
        log "fig3c: ns-3 failed ($out/fig3c.log): ours alone"
        rm -f "$ns3_run.tmp.$$" "$ns3_run"
    fi
    if [ -s "$ns3_run" ]; then
        cp "$ns3_run" "$out/fig3c-ns3.csv"
        impls="ours ns-3"
    fi
fi
echo "impl,sender,flow,mbps,retransmissions" > "$out/fig3c.csv"
echo "impl,time_us,sender0_mbps,sender1_mbps,jain" > "$out/fig3c-epochs.csv"
for impl in $impls; do
    f=$out/fig3c-ours.csv
    [ "$impl" = ours ] || f=$out/fig3c-ns3.csv
    awk -F, -v i="$impl" '$1 == "flow" { print i "," $2 "," $3 "," $4 "," $5 }' "$f" >> "$out/fig3c.csv"
    awk -F, -v i="$impl" '$1 == "epoch" { print i "," $2 "," $3 "," $4 "," $5 }' "$f" >> "$out/fig3c-epochs.csv"
done
rm -f "$out/fig3c-ours.csv" "$out/fig3c-ns3.csv"
[ "$(grep -c '^ours,' "$out/fig3c.csv")" = 200 ] || die "fig3c: not 200 flows of ours ($out/fig3c.log)"
# per implementation: the per-flow throughput's median, mean and extremes, the
# retransmissions' median and sum; ns-3's Kolmogorov-Smirnov distance to ours
python3 - "$out" "$ks_bound" "$many_ms" <<'PY'
import csv, statistics, sys
out, bound, ms = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rows = list(csv.DictReader(open(f'{out}/fig3c.csv')))
per = {}
for r in rows:
    per.setdefault(r['impl'], []).append((float(r['mbps']), int(r['retransmissions'])))
def ks(a, b):
    xs = sorted(set(a) | set(b))
    return max(abs(sum(v <= x for v in a) / len(a) - sum(v <= x for v in b) / len(b)) for x in xs)
with open(f'{out}/fig3c-summary.csv', 'w') as f:
    f.write('impl,flows,ms,sum_gbps,median_mbps,mean_mbps,min_mbps,max_mbps,median_rtx,rtx,ks,ks_bound,within\n')
    ours = [t for t, _ in per['ours']]
    for impl in ('ours', 'ns-3'):
        if impl not in per:
            f.write(f'{impl},-,{ms},-,-,-,-,-,-,-,-,{bound},-\n')
            continue
        t = [v for v, _ in per[impl]]
        x = [v for _, v in per[impl]]
        d = ks(t, ours)
        within = '-' if impl == 'ours' else 'yes' if d <= bound else 'no'
        f.write(f'{impl},{len(t)},{ms},{sum(t) / 1000:.2f},{statistics.median(t):.1f},'
                f'{statistics.mean(t):.1f},{min(t):.1f},{max(t):.1f},{statistics.median(x):g},'
                f'{sum(x)},{"-" if impl == "ours" else f"{d:.3f}"},{bound},{within}\n')
PY
repro_gnuplot "$out" fig3c -- -e "dir='$out'" "$here/tonic-fig3c.gp"

# ---- DCQCN, 200 flows ----
"$bin" dcqcn200 "$dcqcn_ms" "$epoch_us" > "$out/dcqcn200-raw.csv" 2> "$out/dcqcn200.log"
echo "sender,flow,mbps,cnps" > "$out/dcqcn200.csv"
awk -F, '$1 == "flow" { print $2 "," $3 "," $4 "," $5 }' "$out/dcqcn200-raw.csv" >> "$out/dcqcn200.csv"
echo "time_us,sender0_mbps,sender1_mbps,jain" > "$out/dcqcn200-epochs.csv"
awk -F, '$1 == "epoch" { print $2 "," $3 "," $4 "," $5 }' "$out/dcqcn200-raw.csv" >> "$out/dcqcn200-epochs.csv"
port=$(awk -F, '$1 == "port" { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' "$out/dcqcn200-raw.csv")
rm -f "$out/dcqcn200-raw.csv"
if [ "$(sed 1d "$out/dcqcn200.csv" | wc -l)" != 200 ] || [ -z "$port" ]; then
    die "dcqcn200: not 200 flows ($out/dcqcn200.log)"
fi
# per-flow goodput and CNPs: mean, standard deviation, extremes; each sender's
# aggregate and their Jain index; the bottleneck's payload rate against what
# its frames allow at 40 Gb/s; Tonic's 203 Mb/s per flow, times 200
awk -F, -v port="$port" -v paper="$(awk -F, '$1 == "dcqcn200_flow_mbps" { print $2 }' "$here/tonic-paper-text.csv")" '
    NR > 1 { n++; g[n] = $3; s += $3; c[n] = $4; cs += $4; snd[$1] += $3
             if (n == 1 || $3 < lo) lo = $3; if (n == 1 || $3 > hi) hi = $3
             if (n == 1 || $4 < clo) clo = $4; if (n == 1 || $4 > chi) chi = $4 }
    END { m = s / n; cm = cs / n
          for (i = 1; i <= n; i++) { v += (g[i] - m) ^ 2; cv += (c[i] - cm) ^ 2 }
          split(port, p, ",")
          a = snd[0] / 1000; b = snd[1] / 1000
          print "flows,mean_mbps,sd_mbps,min_mbps,max_mbps,sender0_gbps,sender1_gbps,jain_senders,payload_gbps,wire_gbps,payload_line_gbps,utilisation_pct,fair_payload_mbps,cnp_mean,cnp_sd,cnp_min,cnp_max,ce_marks,drops,pauses,paper_mbps,paper_total_gbps"
          printf "%d,%.1f,%.2f,%.1f,%.1f,%.3f,%.3f,%.4f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%d,%d,%s,%s,%s,%s,%.1f\n",
                 n, m, sqrt(v / n), lo, hi, a, b, (a + b) ^ 2 / (2 * (a * a + b * b)),
                 p[1], p[2], p[3], 100 * p[1] / p[3], p[3] * 1000 / n, cm, sqrt(cv / n), clo, chi,
                 p[4], p[5], p[6], paper, n * paper / 1000 }' \
    "$out/dcqcn200.csv" > "$out/dcqcn200-summary.csv"
repro_gnuplot "$out" dcqcn200 -- -e "dir='$out'" "$here/tonic-dcqcn200.gp"

echo "tonic: Table 3 (ours from the code; Tonic's from its Table 3):"
cat "$out/table3.md"
echo "tonic: Fig 4, two DCQCN flows on a 40 Gb/s bottleneck, ${ms} ms:"
sed 1d "$out/fig4-summary.csv" | awk -F, '{ printf "  ports %s Gb/s, DCQCN starts at %s Gb/s; second half: flow 0 %s Gb/s, flow 1 %s Gb/s (sum %s), Jain index %s (paper: \"they both converge to the same rate\"); %s CE marks, %s drops\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
echo "tonic: Fig 3, one NewReno flow of $segments segments, 10 Gb/s, RTT 10 us, dropped once: $(echo "$drops" | tr , ' ')"
sed 1d "$out/fig3-summary.csv" | awk -F, '$2 != "-" { printf "  %-5s %d transmissions, %d retransmissions, %d recovery episodes, done at %s us; window (segments) at each episode start: %s\n", $1, $2, $4, $5, $11, $6 }'
echo "tonic: Fig 3c, 2 x 100 NewReno flows, 10 Gb/s bottleneck, ${many_ms} ms (KS bound $ks_bound):"
sed 1d "$out/fig3c-summary.csv" | awk -F, '$2 != "-" { printf "  %-5s %s flows, %s Gb/s; per flow median %s Mb/s (%s..%s), median retransmissions %s; KS distance to ours %s (within the bound: %s)\n", $1, $2, $4, $5, $7, $8, $9, $11, $13 }'
echo "tonic: DCQCN, 2 x 100 flows, 40 Gb/s bottleneck, ${dcqcn_ms} ms:"
sed 1d "$out/dcqcn200-summary.csv" | awk -F, '{ printf "  per flow %s +- %s Mb/s (%s..%s; Tonic: %s); senders %s and %s Gb/s, Jain %s; payload %s Gb/s of %s possible (%s %%); CNPs per flow %s +- %s; %s CE marks, %s drops, %s PAUSE frames\n", $2, $3, $4, $5, $21, $6, $7, $8, $9, $11, $12, $14, $15, $18, $19, $20 }'
repro_done tonic "${smoke[@]}"
log "CSV, Markdown and PNG in $out"
