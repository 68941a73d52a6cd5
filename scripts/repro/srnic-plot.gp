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
set output dir . "/fig9.png"
set title "SRNIC Fig. 9: aggregate throughput of 512 B SENDs, MTU 1024, two NICs back to back (simulator)"
set logscale x 2
set xrange [100:20000]
set yrange [0:105]
set xlabel "active QPs"
set ylabel "Gbit/s"
set key bottom left
set arrow 1 from 128, paper_val("srnic_aggregate") to paper_val("srnic_qps_max"), paper_val("srnic_aggregate") nohead dt 2 lw 2 lc rgb "dark-green"
set label 1 "paper 6.1: SRNIC ~97 Gbps, 128..10K QPs" at 140, paper_val("srnic_aggregate") + 3 tc rgb "dark-green"
set arrow 2 from 128, paper_val("cx6_at_128") to 16384, paper_val("cx6_at_16384") nohead dt 3 lw 2 lc rgb "dark-red"
set label 2 "paper 2.2: CX-6 97 -> 52 Gbps, 128 -> 16384 QPs (in between: a plot)" at 700, 45 tc rgb "dark-red"
plot dir . "/fig9.csv" skip 1 using 1:2 with linespoints lw 2 pt 7 lc rgb "blue" title "snic: payload goodput", \
     "" skip 1 using 1:3 with linespoints dt 2 pt 6 lc rgb "blue" title "snic: wire (framing counted; % of 100G)", \
     "" skip 1 using 1:4 with linespoints lw 2 pt 5 lc rgb "orange" title "cached QPC (LRU): payload goodput", \
     "" skip 1 using 1:5 with linespoints dt 2 pt 4 lc rgb "orange" title "cached QPC (LRU): wire", \
     "" skip 1 using 1:6 with lines dt 4 lc rgb "gray" title "max goodput of 512 B payloads at 100G"
unset arrow 1
unset arrow 2
unset label 1
unset label 2
unset title

# ---- Fig. 10a ----
set output dir . "/fig10a.png"
set multiplot layout 1,2 title "SRNIC Fig. 10a: one QP, message size (simulator)"
set xrange [48:90000]
set xlabel "message size (bytes)"
set key bottom right
set ylabel "Gbit/s"
set yrange [0:110]
plot dir . "/fig10a.csv" skip 1 using 1:2 with linespoints lw 2 pt 7 title "snic: payload goodput", \
     "" skip 1 using 1:4 with linespoints dt 2 pt 6 title "snic: wire (% of 100G)", \
     paper_val("line_rate") with lines dt 2 lw 2 title "paper 6.2: line rate 97 Gbps above 4 KB"
set ylabel "million messages/s"
set yrange [0:10]
set key top right
plot dir . "/fig10a.csv" skip 1 using 1:3 with linespoints lw 2 pt 7 title "snic: message rate", \
     "" skip 1 using 1:5 with lines dt 4 lw 2 title "bound: n = 8 WQEs per PCIe RTT (model)", \
     paper_val("bound_mrps") with lines dt 2 title "paper 6.2: upper bound 7.2 Mrps", \
     paper_val("srnic_max_mrps") with lines dt 3 lw 2 title "paper 6.2: SRNIC 6.6 Mrps", \
     paper_val("cx6_max_mrps") with lines dt 5 title "paper 6.2: CX-6 6.3 Mrps"
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
set label 4 sprintf("%.2f us", paper_val("srnic_latency_64b")) at 1, paper_val("srnic_latency_64b") + 0.15 center
set label 5 sprintf("%.2f us", paper_val("cx6_latency_64b")) at 2, paper_val("cx6_latency_64b") + 0.15 center
plot "+" using (0):(first_val(dir . "/fig10b.csv", 2)) every ::0::0 with boxes lc rgb "blue", \
     "+" using (1):(paper_val("srnic_latency_64b")) every ::0::0 with boxes lc rgb "dark-green", \
     "+" using (2):(paper_val("cx6_latency_64b")) every ::0::0 with boxes lc rgb "dark-red"
