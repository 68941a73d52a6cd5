# DCTCP incast in the simulator: 16 flows from 16 NICs through one switch
# into one 100 Gb/s port that marks CE on a step at K (CSV from
# tests/bench/dctcp-repro.c). Run by scripts/repro/dctcp.sh:
#   gnuplot -e "dir='OUT'; paper='...'; k_kb=K; name='TITLE'" dctcp-plot.gp
set datafile separator ","
set terminal pngcairo size 1000,800 font "sans,10" noenhanced
set output dir . "/incast.png"
if (!exists("name")) name = "DCTCP"
set multiplot layout 2,1 title name . " incast (simulator): 16 flows into one 100 Gb/s port, ECN step at K = " . sprintf("%.0f", k_kb) . " KB, g = 1/16"
set xlabel "time (ms)"
set grid
set key outside right
set ylabel "Gb/s into the switch"
set yrange [0:*]
plot for [i=2:17] dir . "/incast.csv" skip 1 using ($1/1000):i with lines lw 1 title sprintf("flow %d", i - 2), \
     100.0 / 16 with lines lw 2 dt 2 lc rgb "black" title "100 Gb/s / 16"
set ylabel "bottleneck queue (KB)"
plot dir . "/incast.csv" skip 1 using ($1/1000):18 with lines lw 1 lc rgb "blue" title "queue", \
     k_kb with lines lw 2 dt 2 lc rgb "red" title "K"
unset multiplot
