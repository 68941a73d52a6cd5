# "Connectionless Transport with Receiver Registration", Fig. 7: our
# simulator's latencies (CSV from tests/bench/cl-repro.c) beside the two
# latencies the paper states at 1 KB (cl-paper.csv). Run by
# scripts/repro/cl.sh:
#   gnuplot -e "dir='OUT'; paper='cl-paper.csv'" cl-plot.gp
set datafile separator ","
set terminal pngcairo size 1100,900 font "sans,10" noenhanced
set grid
paper_val(q) = real(system(sprintf("awk -F, '$2 == \"%s\" {print $3}' %s", q, paper)))

set output dir . "/fig7.png"
set multiplot layout 2,1 title "Fig. 7: one CL WRITE, two NICs on one 10 Gb/s link (simulator, RoCE framing; the paper: Aurora, one hop in loopback)"
set logscale xy 2
set xrange [48:90000]
set xlabel "transfer size (bytes)"
set ylabel "latency from the post (us)"
set key outside right top
plot dir . "/fig7.csv" skip 1 using 1:2 with linespoints lw 2 pt 7 lc rgb "gray40" title "send: last byte handed to the wire", \
     "" skip 1 using 1:3 with linespoints lw 2 pt 5 lc rgb "red" title "receive via NOTIFY (non-registered)", \
     "" skip 1 using 1:4 with linespoints lw 2 pt 9 lc rgb "blue" title "registered receive", \
     "+" using (1024):(paper_val("recv_1k")) every ::0::0 with points pt 4 ps 2 lc rgb "red" title sprintf("paper 4.1: receive, 1 KB, %g us", paper_val("recv_1k")), \
     "+" using (1024):(paper_val("registered_1k")) every ::0::0 with points pt 8 ps 2 lc rgb "blue" title sprintf("paper 4.1: registered, 1 KB, %g us", paper_val("registered_1k"))
unset logscale y
set ylabel "saving of the registered receive (%)"
set yrange [0:22]
set title "self-consistency check of our protocol, not a comparison:\na lead of one round trip at every size, so the relative saving falls"
plot dir . "/fig7.csv" skip 1 using 1:7 with linespoints lw 2 pt 7 lc rgb "blue" title "ours: (recv - registered) / recv", \
     "+" using (1024):(paper_val("saving_pct")) every ::0::0 with points pt 4 ps 2 lc rgb "dark-green" title sprintf("paper 4.1: ~%g %% at 1 KB (abstract: at 4KB)", paper_val("saving_pct"))
unset multiplot
