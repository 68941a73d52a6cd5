# Tonic Fig 3c: 2 x 100 NewReno flows on one 10 Gb/s bottleneck, ours
# (simulator) beside ns-3's TcpNewReno: CDFs of the per-flow average
# throughput and retransmissions, and each sender's throughput per 1 ms
# epoch (CSV from scripts/repro/tonic.sh). Run by tonic.sh:
#   gnuplot -e "dir='OUT'" tonic-fig3c.gp
set datafile separator ","
set terminal pngcairo size 1500,450 font "sans,10" noenhanced
set output dir . "/fig3c.png"
set grid
is(s, v) = strcol(1) eq s ? v : NaN
set multiplot layout 1,3 title "Tonic Fig 3c: 2 senders x 100 NewReno flows, one 10 Gb/s bottleneck (5.5 MB drop-tail), per-packet round robin"
set key bottom right
set title "per-flow average throughput"
set xlabel "Mb/s"
set ylabel "CDF"
set yrange [0:1]
plot dir . "/fig3c.csv" skip 1 using (is("ours", $4)):(1) smooth cnormal lw 2 title "ours", \
     "" skip 1 using (is("ns-3", $4)):(1) smooth cnormal lw 2 dt 2 title "ns-3 TcpNewReno"
set title "per-flow retransmitted segments"
set xlabel "segments"
plot dir . "/fig3c.csv" skip 1 using (is("ours", $5)):(1) smooth cnormal lw 2 title "ours", \
     "" skip 1 using (is("ns-3", $5)):(1) smooth cnormal lw 2 dt 2 title "ns-3 TcpNewReno"
set title "each sender's throughput, 1 ms epochs"
set xlabel "time (ms)"
set ylabel "Gb/s"
set yrange [0:11]
set key top right
plot dir . "/fig3c-epochs.csv" skip 1 using ($2/1000):(is("ours", $3/1000)) with lines title "ours: sender 0", \
     "" skip 1 using ($2/1000):(is("ours", $4/1000)) with lines title "ours: sender 1", \
     "" skip 1 using ($2/1000):(is("ns-3", $3/1000)) with lines dt 2 title "ns-3: sender 0", \
     "" skip 1 using ($2/1000):(is("ns-3", $4/1000)) with lines dt 2 title "ns-3: sender 1"
unset multiplot
