# StRoM Fig. 7 between two snic VMs: tests/vm/strom-bench.c's results
# (DIR/fig7-vm.csv, DIR/rtt-vm.csv) as scripts/repro/strom.sh --vm leaves
# them. Run by it:
#   gnuplot -e "dir='OUT'; paper='strom-paper.csv'" strom-vm-plot.gp
# The paper states no number for these curves (a plot): the right panel
# shows what its text says instead, one network round trip per kernel
# lookup at every length, as frames counted by the client's port.
set datafile separator ","
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
set key top left
set grid
rtt = real(system(sprintf("sed -n 2p %s/rtt-vm.csv | cut -d, -f1", dir)))

set output dir . "/fig7-vm.png"
set multiplot layout 1,2 title "StRoM Fig. 7: linked-list traversal, 64 B values, two snic VMs (TCG)"
set xlabel "elements traversed (key at element L)"
set ylabel "latency (us), median; bars: 1st-99th percentile"
set logscale y
plot dir . "/fig7-vm.csv" skip 1 using 1:2:3:4 with yerrorlines title "RDMA READ chain", \
     "" skip 1 using 1:5:6:7 with yerrorlines title "StRoM traversal kernel", \
     "" skip 1 using 1:8:9:10 with yerrorlines title "two-sided RPC (server CPU walks)", \
     rtt with lines dt 2 title sprintf("one 64-byte READ (%.0f us)", rtt)
unset logscale y
set ylabel "RoCE frames per lookup (client port, sent + received)"
set yrange [0:*]
plot dir . "/fig7-vm.csv" skip 1 using 1:11 with linespoints title "RDMA READ chain", \
     "" skip 1 using 1:12 with linespoints lw 4 pt 7 ps 1.5 title "StRoM traversal kernel (one round trip at every length)", \
     "" skip 1 using 1:13 with linespoints lw 2 dt 2 pt 6 ps 2 title "two-sided RPC"
unset multiplot
