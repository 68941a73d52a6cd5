# SRNIC Fig. 9, 10a, 10b: our simulator runs (CSV from
# tests/bench/srnic-repro.c) beside the numbers SRNIC states in its text
# (srnic-paper.csv). Run by scripts/repro/srnic.sh:
#   gnuplot -e "dir='OUT'; paper='srnic-paper.csv'" srnic-plot.gp
set datafile separator ","
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
set grid
paper_val(q) = real(system(sprintf("awk -F, '$2 == \"%s\" {print $3}' %s", q, paper)))
first_val(f, col) = real(system(sprintf("awk -F, 'NR == 2 {print $%d}' %s", col, f)))

# ---- Fig. 9 ----
# The paper draws Fig. 9 as a plot; it states SRNIC's level over 128..10K QPs
# (6.1), drawn over that range only, and CX-6 at two QP counts (2.2, Fig. 2a),
# drawn as those two points: nothing is said in between.
set output dir . "/fig9.png"
set terminal pngcairo size 1400,500 font "sans,10" noenhanced
set title "SRNIC Fig. 9: aggregate throughput of 512 B SENDs, MTU 1024, two NICs back to back (simulator)"
set logscale x 2
set xrange [100:20000]
set yrange [0:105]
set xlabel "active QPs"
set ylabel "Gbit/s"
set key outside right top
plot dir . "/fig9.csv" skip 1 using 1:2 with linespoints lw 2 pt 7 lc rgb "blue" title "snic: payload goodput", \
     "" skip 1 using 1:3 with linespoints dt 2 pt 6 lc rgb "blue" title "snic: wire (framing counted; % of 100G)", \
     "" skip 1 using 1:4 with linespoints lw 2 pt 5 lc rgb "orange" title "cached QPC, calibrated (LRU of 256): payload goodput", \
     "" skip 1 using 1:5 with linespoints dt 2 pt 4 lc rgb "orange" title "cached QPC, calibrated: wire", \
     "" skip 1 using 1:6 with lines dt 4 lc rgb "gray" title "the most 512 B payloads carry at 100G", \
     "+" using ($0 == 0 ? paper_val("qps_min") : paper_val("srnic_qps_max")):(paper_val("srnic_aggregate")) every ::0::1 with lines dt 2 lw 2 lc rgb "dark-green" title "paper 6.1: SRNIC ~97 Gbps, 128 to 10K QPs", \
     "+" using ($0 == 0 ? 128 : 16384):($0 == 0 ? paper_val("cx6_at_128") : paper_val("cx6_at_16384")) every ::0::1 with points pt 9 ps 2 lc rgb "dark-red" title "paper 2.2 (Fig. 2a): CX-6 97 Gbps at 128, 52 at 16384 QPs"
unset title

# ---- Fig. 10a ----
# 6.2's line rate is stated for messages above 4 KB: drawn from there only.
set output dir . "/fig10a.png"
set terminal pngcairo size 1200,900 font "sans,10" noenhanced
set multiplot layout 2,1 title "SRNIC Fig. 10a: one QP, message size (simulator)"
set xrange [48:90000]
set xlabel "message size (bytes)"
set key outside right top
set ylabel "Gbit/s"
set yrange [0:110]
set samples 1000
plot dir . "/fig10a.csv" skip 1 using 1:2 with linespoints lw 2 pt 7 title "snic: payload goodput", \
     "" skip 1 using 1:4 with linespoints dt 2 pt 6 title "snic: wire (% of 100G)", \
     (x >= paper_val("line_rate_above") ? paper_val("line_rate") : 1/0) with lines dt 2 lw 2 title "paper 6.2: line rate, 97 Gbps above 4 KB"
set ylabel "million messages/s"
set yrange [0:10]
plot dir . "/fig10a.csv" skip 1 using 1:3 with linespoints lw 2 pt 7 title "snic: message rate", \
     "" skip 1 using 1:5 with lines dt 4 lw 2 title "bound: n = 8 WQEs per PCIe RTT (model)", \
     paper_val("bound_mrps") with lines dt 2 title "paper 6.2: upper bound 7.2 Mrps", \
     paper_val("srnic_max_mrps") with lines dt 3 lw 2 title "paper 6.2: SRNIC's maximum, 6.6 Mrps", \
     paper_val("cx6_max_mrps") with lines dt 5 title "paper 6.2: CX-6's maximum, 6.3 Mrps"
unset multiplot

# ---- Fig. 10b ----
set output dir . "/fig10b.png"
set terminal pngcairo size 700,500 font "sans,10" noenhanced
set title "SRNIC Fig. 10b: 64 B SEND latency (half a ping-pong)"
unset logscale x
set xrange [-0.6:2.6]
set yrange [0:4.5]
set ylabel "us"
set xlabel ""
set xtics ("snic (model)" 0, "paper: SRNIC" 1, "paper: CX-6" 2)
set style fill solid 0.6
set boxwidth 0.5
unset key
set label 3 sprintf("%.2f us", first_val(dir . "/fig10b.csv", 2)) at 0, first_val(dir . "/fig10b.csv", 2) + 0.15 center
# the paper's numbers as it writes them ("about 3.3 us", "1.16 us")
set label 4 sprintf("about %g us", paper_val("srnic_latency_64b")) at 1, paper_val("srnic_latency_64b") + 0.15 center
set label 5 sprintf("%g us", paper_val("cx6_latency_64b")) at 2, paper_val("cx6_latency_64b") + 0.15 center
plot "+" using (0):(first_val(dir . "/fig10b.csv", 2)) every ::0::0 with boxes lc rgb "blue", \
     "+" using (1):(paper_val("srnic_latency_64b")) every ::0::0 with boxes lc rgb "dark-green", \
     "+" using (2):(paper_val("cx6_latency_64b")) every ::0::0 with boxes lc rgb "dark-red"
