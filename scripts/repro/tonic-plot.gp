# Tonic Fig 4 in the simulator: two DCQCN flows from two NICs through one
# switch to a 40 Gb/s bottleneck with RED ECN marking (CSV from
# tests/bench/tonic-repro.c fig4). Run by scripts/repro/tonic.sh:
#   gnuplot -e "dir='OUT'" tonic-plot.gp
set datafile separator ","
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
set output dir . "/fig4.png"
set title "Tonic Fig 4 (simulator): two DCQCN flows from t = 0, 40 Gb/s ports, RED ECN (Kmin 5 KB, Kmax 200 KB, Pmax 1 %)"
set xlabel "time (ms)"
set ylabel "Gb/s"
# every curve whole: the DCQCN rates start at the port's speed (link-speed-mbps, 40 Gb/s)
set yrange [0:45]
set key outside right top
set grid
plot dir . "/fig4.csv" skip 1 using ($1/1000):2 with lines lw 2 title "flow 0 throughput", \
     "" skip 1 using ($1/1000):4 with lines lw 2 title "flow 1 throughput", \
     "" skip 1 using ($1/1000):3 with lines dt 2 title "flow 0 DCQCN rate (Rc)", \
     "" skip 1 using ($1/1000):5 with lines dt 2 title "flow 1 DCQCN rate (Rc)"
