# SRNIC Fig. 11: our simulator runs (CSV from tests/bench/srnic-fig11-repro.c,
# two configurations: dir/bdp, window = BDP; dir/b2b, back to back with the
# device's largest window; WRITEs in dir, SENDs in dir/send) beside the two
# points SRNIC states in its text at 1 % (srnic-fig11-paper.csv: its 4 KB
# messages, the op not stated) and go-back-N's analytic goodput L/(1+pW).
# Draws dir/fig11.png (WRITEs) and dir/fig11-send.png. Run by
# scripts/repro/srnic-fig11.sh:
#   gnuplot -e "dir='OUT'; paper='srnic-fig11-paper.csv'" srnic-fig11-plot.gp
set datafile separator ","
set terminal pngcairo size 1300,1000 font "sans,10" noenhanced
set grid
paper_val(q) = real(system(sprintf("awk -F, '$2 == \"%s\" {print $3}' %s", q, paper)))
model_val(d, c, q) = system(sprintf("awk -F, '$1 == \"%s\" {print $2}' %s/%s/model.csv", q, d, c))
# loss 0 has no place on a log axis: drawn at 0.001 %
xl(p) = p > 0 ? p : 0.001
rows(d, c, t) = sprintf("< grep ',%s,' %s/%s/fig11.csv", t, d, c)
set samples 400
# both panels the same width, their keys to the right
set lmargin at screen 0.07
set rmargin at screen 0.62
do for [op in "write send"] {
    d = op eq "write" ? dir : dir . "/send"
    ops = op eq "write" ? "WRITEs" : "SENDs"
    Wb = real(model_val(d, "bdp", "window"))
    Wk = real(model_val(d, "b2b", "window"))
    L = real(model_val(d, "bdp", "line_payload_gbn"))
    Lk = real(model_val(d, "b2b", "line_payload_gbn"))
    cfg_b = sprintf("RTT %.1f us, W = BDP = %d", real(model_val(d, "bdp", "rtt")) / 1000, Wb)
    cfg_k = sprintf("back to back, RTT %.1f us, W = %d (%.1fx BDP)", real(model_val(d, "b2b", "rtt")) / 1000, Wk, Wk / real(model_val(d, "b2b", "bdp")))
    set output dir . (op eq "write" ? "/fig11.png" : "/fig11-send.png")
    set multiplot layout 2,1 title sprintf("SRNIC Fig. 11 in the simulator: one QP, 4 KiB %s, 100 Gb/s, MTU 1024, no CC, ACK timeout %s us, uniform loss on %s; SRNIC host software at 2 us + 50 ns/entry", ops, model_val(d, "bdp", "ack_timeout"), model_val(d, "bdp", "loss_direction"))
    set logscale x
    unset logscale y
    set xrange [0.0007:7]
    set xtics ("0" 0.001, "0.01" 0.01, "0.1" 0.1, "0.5" 0.5, "1" 1, "2" 2, "5" 5)
    set xlabel "loss rate (%), data packets"
    set ylabel "payload goodput, Gbit/s"
    set yrange [0:105]
    set key outside right top
    plot rows(d, "b2b", "srnic") using (xl($1)):3 with linespoints lw 2 pt 7 lc rgb "blue" title "SRNIC mode, " . cfg_k, \
         rows(d, "bdp", "srnic") using (xl($1)):3 with linespoints lw 2 pt 6 dt 4 lc rgb "blue" title "SRNIC mode, " . cfg_b, \
         rows(d, "b2b", "gbn") using (xl($1)):3 with linespoints lw 2 pt 5 lc rgb "red" title "go-back-N, " . cfg_k, \
         rows(d, "bdp", "gbn") using (xl($1)):3 with linespoints lw 2 pt 4 dt 4 lc rgb "red" title "go-back-N, " . cfg_b, \
         (x < 0.001 ? 1/0 : Lk / (1 + x / 100 * Wk)) with lines dt 2 lw 1 lc rgb "dark-red" title sprintf("go-back-N bound %.2f/(1+pW), W = %d", Lk, Wk), \
         (x < 0.001 ? 1/0 : L / (1 + x / 100 * Wb)) with lines dt 3 lw 1 lc rgb "dark-red" title sprintf("go-back-N bound %.2f/(1+pW), W = %d", L, Wb), \
         "+" using (paper_val("loss_at")):(paper_val("srnic_at_1pct")) every ::0::0 with points pt 9 ps 2.5 lc rgb "dark-green" title "paper 6.3: SRNIC 75 Gbps at 1 % (4 KB messages)", \
         "+" using (paper_val("loss_at")):(paper_val("cx6_at_1pct")) every ::0::0 with points pt 11 ps 2.5 lc rgb "dark-magenta" title "paper 6.3: CX-6 25 Gbps at 1 % (4 KB messages)"
    set ylabel "SRNIC's onloaded metadata over PCIe, Mbit/s"
    set yrange [*:*]
    set logscale y
    plot rows(d, "b2b", "srnic") using (xl($1)):($14 > 0 ? $14 : 1/0) with linespoints lw 2 pt 7 lc rgb "blue" title "CtrlQ (32 B entries, both NICs), back to back", \
         rows(d, "bdp", "srnic") using (xl($1)):($14 > 0 ? $14 : 1/0) with linespoints lw 2 pt 6 dt 4 lc rgb "blue" title "CtrlQ, W = BDP", \
         rows(d, "b2b", "srnic") using (xl($1)):($16 > 0 ? $16 : 1/0) with linespoints lw 2 pt 5 lc rgb "orange" title "RetryQ (16 B entries, both hosts), back to back", \
         rows(d, "bdp", "srnic") using (xl($1)):($16 > 0 ? $16 : 1/0) with linespoints lw 2 pt 4 dt 4 lc rgb "orange" title "RetryQ, W = BDP"
    unset multiplot
}
