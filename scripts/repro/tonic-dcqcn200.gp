# Tonic section 6.2.2: 2 x 100 DCQCN flows on one 40 Gb/s bottleneck (RED,
# PFC on): each flow's goodput, the CDF of the CNPs each received, and
# each sender's goodput per 1 ms epoch (CSV from scripts/repro/tonic.sh).
# Run by tonic.sh:
#   gnuplot -e "dir='OUT'" tonic-dcqcn200.gp
set datafile separator ","
set terminal pngcairo size 1500,450 font "sans,10" noenhanced
set output dir . "/dcqcn200.png"
set grid
set multiplot layout 1,3 title "Tonic 6.2.2: DCQCN, 2 senders x 100 flows, one 40 Gb/s bottleneck (RED, PFC), one segment per QP turn"
set title "per-flow payload goodput"
set xlabel "flow (sender x 100 + QP)"
set ylabel "Mb/s"
set yrange [0:*]
plot dir . "/dcqcn200.csv" skip 1 using ($1 * 100 + $2):3 with points pt 7 ps 0.5 notitle
set title "CNPs received per flow"
set xlabel "CNPs"
set ylabel "CDF"
set yrange [0:1]
plot dir . "/dcqcn200.csv" skip 1 using 4:(1) smooth cnormal lw 2 notitle
set title "each sender's goodput, 1 ms epochs"
set xlabel "time (ms)"
set ylabel "Gb/s"
set yrange [0:41]
plot dir . "/dcqcn200-epochs.csv" skip 1 using ($1/1000):($2/1000) with lines title "sender 0", \
     "" skip 1 using ($1/1000):($3/1000) with lines title "sender 1"
unset multiplot
