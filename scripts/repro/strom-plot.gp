# StRoM Fig. 7-10: our simulator runs (CSV from tests/bench/strom-repro.c
# and the derived CSVs scripts/repro/strom.sh makes) beside the numbers
# StRoM states in its text (strom-paper.csv). Run by scripts/repro/strom.sh:
#   gnuplot -e "dir='OUT'; paper='strom-paper.csv'" strom-plot.gp
# "plain": the kernel's answer as StRoM sends it, a plain RDMA WRITE (the
# client fetches no receive WQE for it); ours is a WRITE with immediate.
set datafile separator ","
set terminal pngcairo size 1200,900 font "sans,10" noenhanced
set key outside right top
set grid
# both panels of a figure the same width, their keys to the right
set lmargin at screen 0.07
set rmargin at screen 0.6
paper_val(q) = real(system(sprintf("awk -F, '$2 == \"%s\" {print $3}' %s", q, paper)))
last_x(f) = real(system(sprintf("tail -n 1 %s | cut -d, -f1", f)))

# ---- Fig. 7 ----
set output dir . "/fig7.png"
set multiplot layout 2,1 title "StRoM Fig. 7: linked-list traversal, 64 B values (simulator)"
set xlabel "elements traversed (key at the tail)"
set ylabel "latency (us), median; bars: 1st-99th percentile"
plot dir . "/fig7.csv" skip 1 using 1:2:3:4 with yerrorlines title "RDMA READ chain", \
     "" skip 1 using 1:5:6:7 with yerrorlines title "StRoM traversal kernel", \
     "" skip 1 using 1:11 with lines dt 2 title "kernel, plain WRITE answer (StRoM's)", \
     "" skip 1 using 1:8:9:10 with yerrorlines title "two-sided RPC (server CPU walks)"
set ylabel "us per extra element"
set yrange [0:*]
plot dir . "/fig7-derived.csv" skip 1 using 1:2 with linespoints title "ours: kernel, per element", \
     "" skip 1 using 1:3 with linespoints title "ours: READ chain, per element", \
     paper_val("pcie_read_per_element") with lines dt 2 lw 2 title "paper 6.2: a PCIe read, around 1.5us, per element"
unset multiplot
set yrange [*:*]

# ---- Fig. 8 ----
set output dir . "/fig8.png"
set multiplot layout 2,1 title "StRoM Fig. 8: hash table GET (simulator; its network round trip set from 6.2's around 5us)"
set logscale x 2
set xrange [48:5500]
set xlabel "value size (bytes)"
set ylabel "latency (us), median; bars: 1st-99th percentile"
plot dir . "/fig8.csv" skip 1 using 1:2:3:4 with yerrorlines title "two RDMA READs", \
     "" skip 1 using 1:5:6:7 with yerrorlines title "StRoM traversal kernel", \
     "" skip 1 using 1:11 with lines dt 2 title "kernel, plain WRITE answer (StRoM's)", \
     "" skip 1 using 1:8:9:10 with yerrorlines title "two-sided RPC"
set ylabel "latency saved by the kernel (us)"
set yrange [0:*]
set offsets graph 0, graph 0, graph 0.15, graph 0
plot dir . "/fig8-derived.csv" skip 1 using 1:2 with linespoints title "ours: two READs - kernel", \
     "" skip 1 using 1:3 with linespoints dt 2 title "ours, kernel with a plain WRITE answer", \
     paper_val("strom_saving_per_lookup") with lines dt 2 lw 2 title "paper 6.2: around 5us per lookup"
unset multiplot
set yrange [*:*]
set offsets

# ---- Fig. 9 ----
# 6.3's "up to 40 %" and "1us (< 8%)" are stated for the largest objects:
# drawn there (our largest) only.
set output dir . "/fig9.png"
set multiplot layout 2,1 title "StRoM Fig. 9: reading a checksummed object (simulator)"
set xrange [48:24000]
set xlabel "object size (bytes)"
set ylabel "latency (us), median; bars: 1st-99th percentile"
plot dir . "/fig9.csv" skip 1 using 1:2:3:4 with yerrorlines title "READ (no check)", \
     "" skip 1 using 1:5:6:7 with yerrorlines title "READ + CRC-64 on the client", \
     "" skip 1 using 1:8:9:10 with yerrorlines title "StRoM consistency kernel", \
     "" skip 1 using 1:11 with lines dt 2 title "kernel, plain WRITE answer (StRoM's)"
set ylabel "overhead over READ (%)"
# every curve and marker, with room above the highest
set yrange [0:*]
set offsets graph 0, graph 0, graph 0.08, graph 0
xmax = last_x(dir . "/fig9.csv")
plot dir . "/fig9-derived.csv" skip 1 using 1:2 with linespoints title "ours: READ + CRC", \
     "" skip 1 using 1:3 with linespoints title "ours: kernel", \
     "" skip 1 using 1:6 with linespoints dt 2 title "ours: kernel, plain WRITE answer", \
     "+" using (xmax):(paper_val("readsw_overhead_max")) every ::0::0 with points pt 9 ps 2 title "paper 6.3: READ+SW up to 40 % (largest)", \
     "+" using (xmax):(paper_val("strom_overhead_max")) every ::0::0 with points pt 11 ps 2 title "paper 6.3: StRoM 1us (< 8 %), same size"
unset multiplot
set yrange [*:*]
set xrange [*:*]
set offsets
unset logscale x

# ---- Fig. 10 ----
set output dir . "/fig10.png"
set terminal pngcairo size 1100,550 font "sans,10" noenhanced
set lmargin
set rmargin
set title "StRoM Fig. 10: average latency with torn first reads (simulator)\npaper 6.3: READ barely affected up to 1 %, measurable at 10 %; StRoM minimal up to 50 % (text only)"
set xlabel "failure rate of the first read (%)"
set ylabel "average latency (us)"
set logscale y
sizes = "64 1024 16384"
plot for [i=1:3] dir . "/fig10.csv" skip 1 using ($1 == word(sizes, i) + 0 ? $2 : NaN):3 with linespoints lc i title "READ + CRC, ".word(sizes, i)." B", \
     for [i=1:3] dir . "/fig10.csv" skip 1 using ($1 == word(sizes, i) + 0 ? $2 : NaN):4 with linespoints lc i dt 2 pt 6 title "kernel, ".word(sizes, i)." B"

# ---- Fig. 11 ----
# StRoM gives no numbers for Fig. 11: the paper's sentence is in the title,
# nothing of the paper is drawn.
set output dir . "/fig11.png"
set terminal pngcairo size 1200,900 font "sans,10" noenhanced
unset title
unset logscale y
set lmargin at screen 0.07
set rmargin at screen 0.6
set multiplot layout 2,1 title "StRoM Fig. 11: moving N 8-byte tuples into 1024 partitions (simulator, 10 G)\npaper 6.4 (no numbers): StRoM \"close to the same performance as an RDMA WRITE\", far below SW + RDMA WRITE"
set logscale xy 2
set xlabel "tuples (8 B each)"
set ylabel "time (ms)"
set format x "%.0s%c"
plot dir . "/fig11.csv" skip 1 using 1:($2 / 1000) with linespoints title "RDMA WRITE (unpartitioned)", \
     "" skip 1 using 1:($3 / 1000) with linespoints title "StRoM shuffle (1 MiB chunks: histogram pass, RPC WRITE each; pipelined)", \
     "" skip 1 using 1:($4 / 1000) with linespoints title "SW + RDMA WRITE (histogram pass, copy, 128-B WRITEs)"
unset logscale y
set ylabel "StRoM shuffle / RDMA WRITE"
set yrange [0.9:*]
plot dir . "/fig11.csv" skip 1 using 1:5 with linespoints title "with the client's histogram passes", \
     "" skip 1 using 1:7 with linespoints title "the RPCs alone (first post to last answer)", \
     1.10 with lines dt 2 title "1.10"
unset multiplot

# ---- Fig. 13 ----
# (a) the CPU's HyperLogLog over memory-resident items; the paper's
# statements as lines: 25 Gbit/s is its AVX2 code at 8 threads while the
# NIC writes the data (not what we run), 100 Gbit/s what it stays well
# below when the data is resident.
set output dir . "/fig13a.png"
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
unset multiplot
unset logscale
set yrange [0:*]
set xrange [0.5:*]
set format x "%g"
set xtics 1
set title "StRoM Fig. 13a: HyperLogLog on the CPU, memory-resident 32-bit items (measured on this host, scalar code -O2)"
set xlabel "threads"
set ylabel "Gbit/s of items hashed"
plot dir . "/fig13a.csv" skip 1 using 1:3 with linespoints title "ours: scalar HLL, memory-resident", \
     paper_val("cpu_resident_below") with lines dt 2 lw 2 title "paper 7.2: memory-resident \"still well below 100 Gbit/s\"", \
     paper_val("cpu_receiving_8_threads") with lines dt 3 lw 2 title "paper 7.2: about 25 Gbit/s, 8 threads, AVX2, while receiving (not reproduced)"
set xrange [*:*]
set xtics autofreq
unset title

# (b) WRITE goodput with and without the HLL unit (the paper states no
# number but line rate: the line is 7.1's 100 G)
set output dir . "/fig13b.png"
set terminal pngcairo size 1200,900 font "sans,10" noenhanced
set multiplot layout 2,1 title "StRoM Fig. 13b: RDMA WRITE goodput with HyperLogLog on the stream (simulator, 100 G model)\npaper 7.2 (no numbers): \"no overhead\", \"line rate once the packet sizes are sufficiently large\""
set logscale x 2
set format x "%.0s%cB"
set xlabel "message size"
set ylabel "goodput (Gbit/s)"
set yrange [0:105]
plot dir . "/fig13b.csv" skip 1 using 1:2 with linespoints title "RDMA WRITE", \
     "" skip 1 using 1:3 with linespoints title "WRITE + HLL unit, 64 B/cycle at 322 MHz", \
     "" skip 1 using 1:4 with linespoints dt 2 title "control: 16 B/cycle", \
     paper_val("line_rate") with lines dt 3 lw 2 title "paper 7.1: 100 G line rate"
set ylabel "over RDMA WRITE"
set yrange [0:1.1]
plot dir . "/fig13b.csv" skip 1 using 1:5 with linespoints title "with the HLL unit", \
     "" skip 1 using 1:6 with linespoints dt 2 title "control: 16 B/cycle", \
     0.95 with lines dt 3 title "0.95"
unset multiplot
