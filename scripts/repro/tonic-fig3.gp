# Tonic Fig 3a/3b: our NewReno program (simulator) and ns-3's TcpNewReno,
# one flow through one switch, 10 Gb/s, base RTT 10 us, the same
# segments dropped once (CSV from
# scripts/repro/tonic.sh). Run by tonic.sh:
#   gnuplot -e "dir='OUT'" tonic-fig3.gp
set datafile separator ","
set terminal pngcairo size 1100,500 font "sans,10" noenhanced
set key outside right top
set grid
set xlabel "time (us)"
is(s, v) = strcol(1) eq s ? v : NaN

set output dir . "/fig3a.png"
set title "Tonic Fig 3a: NewReno congestion window, one flow, random drops (one switch, 10 Gb/s, RTT 10 us)"
set ylabel "cwnd (1 KiB segments)"
plot dir . "/fig3a.csv" skip 1 using 2:(is("ours", $3)) with steps lw 2 title "ours (simulator, cap 128)", \
     "" skip 1 using 2:(is("ns-3", $3)) with steps lw 1 dt 2 title "ns-3 TcpNewReno (bytes / 1024)"

set output dir . "/fig3b.png"
set title "Tonic Fig 3b: transmitted segments, retransmissions as large dots (one switch, 10 Gb/s, RTT 10 us)"
set ylabel "segment (PSN - first PSN; ns-3: (seq - 1) / 1024)"
plot dir . "/fig3b.csv" skip 1 using 2:(is("ours", $3)) with dots title "ours: sent", \
     "" skip 1 using 2:(is("ours", $4 == 1 ? $3 : NaN)) with points pt 7 ps 1.2 title "ours: retransmission", \
     "" skip 1 using 2:(is("ns-3", $3)) with dots title "ns-3: sent", \
     "" skip 1 using 2:(is("ns-3", $4 == 1 ? $3 : NaN)) with points pt 6 ps 1.6 title "ns-3: retransmission"
