# SRNIC Fig. 11: our simulator runs (CSV from tests/bench/srnic-fig11-repro.c,
# two configurations: dir/bdp, window = BDP; dir/b2b, back to back with the
# device's largest window) beside the two points SRNIC states in its text
# (srnic-fig11-paper.csv) and go-back-N's analytic goodput L/(1+pW).
# Run by scripts/repro/srnic-fig11.sh:
#   gnuplot -e "dir='OUT'; paper='srnic-fig11-paper.csv'" srnic-fig11-plot.gp
set datafile separator ","
set terminal pngcairo size 1500,560 font "sans,10" noenhanced
set grid
paper_val(q) = real(system(sprintf("awk -F, '$2 == \"%s\" {print $3}' %s", q, paper)))
model_val(c, q) = system(sprintf("awk -F, '$1 == \"%s\" {print $2}' %s/%s/model.csv", q, dir, c))
Wb = real(model_val("bdp", "window"))
Wk = real(model_val("b2b", "window"))
L = real(model_val("bdp", "line_payload_gbn"))
Lk = real(model_val("b2b", "line_payload_gbn"))
cfg_b = sprintf("RTT %.1f us, W = BDP = %d", real(model_val("bdp", "rtt")) / 1000, Wb)
cfg_k = sprintf("back to back, RTT %.1f us, W = %d (%.1fx BDP)", real(model_val("b2b", "rtt")) / 1000, Wk, Wk / real(model_val("b2b", "bdp")))
set output dir . "/fig11.png"
set multiplot layout 1,2 title sprintf("SRNIC Fig. 11 in the simulator: one QP, 4 KiB WRITEs, 100 Gb/s, MTU 1024, no CC, ACK timeout %s us, uniform loss on %s; SRNIC host software at 2 us + 50 ns/entry", model_val("bdp", "ack_timeout"), model_val("bdp", "loss_direction"))
# loss 0 has no place on a log axis: drawn at 0.001 %
xl(p) = p > 0 ? p : 0.001
rows(c, t) = sprintf("< grep ',%s,' %s/%s/fig11.csv", t, dir, c)
set logscale x
set xrange [0.0007:7]
set xtics ("0" 0.001, "0.01" 0.01, "0.1" 0.1, "0.5" 0.5, "1" 1, "2" 2, "5" 5)
set xlabel "loss rate (%), data packets"
set ylabel "payload goodput, Gbit/s"
set yrange [0:105]
set key bottom left font "sans,9" opaque
set samples 400
plot rows("b2b", "srnic") using (xl($1)):3 with linespoints lw 2 pt 7 lc rgb "blue" title "SRNIC mode, " . cfg_k, \
     rows("bdp", "srnic") using (xl($1)):3 with linespoints lw 2 pt 6 dt 4 lc rgb "blue" title "SRNIC mode, " . cfg_b, \
     rows("b2b", "gbn") using (xl($1)):3 with linespoints lw 2 pt 5 lc rgb "red" title "go-back-N, " . cfg_k, \
     rows("bdp", "gbn") using (xl($1)):3 with linespoints lw 2 pt 4 dt 4 lc rgb "red" title "go-back-N, " . cfg_b, \
     (x < 0.001 ? 1/0 : Lk / (1 + x / 100 * Wk)) with lines dt 2 lw 1 lc rgb "dark-red" title sprintf("go-back-N bound %.2f/(1+pW), W = %d", Lk, Wk), \
     (x < 0.001 ? 1/0 : L / (1 + x / 100 * Wb)) with lines dt 3 lw 1 lc rgb "dark-red" title sprintf("go-back-N bound %.2f/(1+pW), W = %d", L, Wb), \
     "+" using (paper_val("loss_at")):(paper_val("srnic_at_1pct")) every ::0::0 with points pt 9 ps 2.5 lc rgb "dark-green" title "paper 6.3: SRNIC 75 Gbps at 1 %", \
     "+" using (paper_val("loss_at")):(paper_val("cx6_at_1pct")) every ::0::0 with points pt 11 ps 2.5 lc rgb "dark-magenta" title "paper 6.3: CX-6 25 Gbps at 1 %"
set ylabel "SRNIC's onloaded metadata over PCIe, Mbit/s"
set yrange [*:*]
set logscale y
set key top left
plot rows("b2b", "srnic") using (xl($1)):($14 > 0 ? $14 : 1/0) with linespoints lw 2 pt 7 lc rgb "blue" title "CtrlQ (32 B entries, both NICs), back to back", \
     rows("bdp", "srnic") using (xl($1)):($14 > 0 ? $14 : 1/0) with linespoints lw 2 pt 6 dt 4 lc rgb "blue" title "CtrlQ, W = BDP", \
     rows("b2b", "srnic") using (xl($1)):($16 > 0 ? $16 : 1/0) with linespoints lw 2 pt 5 lc rgb "orange" title "RetryQ (16 B entries, both hosts), back to back", \
     rows("bdp", "srnic") using (xl($1)):($16 > 0 ? $16 : 1/0) with linespoints lw 2 pt 4 dt 4 lc rgb "orange" title "RetryQ, W = BDP"
unset multiplot
