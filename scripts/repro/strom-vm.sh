#!/usr/bin/env bash
# StRoM (EuroSys'20) Fig. 7-11 between two snic VMs: CSV and PNG beside the
# numbers the paper states (scripts/repro/strom-paper.csv); the simulator's
# run is scripts/repro/strom.sh.
#
#   scripts/repro/strom-vm.sh [--smoke] [--no-plot] [--out DIR]
#
# scripts/vm-pair.sh, role verbs-strom: tests/vm/strom-bench.c on snic.ko +
# libsnic, 100 operations per point and method (--smoke: 10, fewer points):
# one pair for Fig. 7-9, then one per Fig. 10 failure rate (0, 1, 10, 50 %;
# --smoke 0, 50), whose server device tears that share of its host reads
# (x-torn-reads, the fault injection the simulator's Fig. 10 does with its
# fake host), and one for Fig. 11 whose server device has a shuffle unit
# (shuffle-units=1; 64 Ki, 256 Ki and 1 Mi tuples, 5 of each method, --smoke
# 64 Ki and 1 Mi, 2 of each). Writes DIR/fig7-vm.csv .. fig11-vm.csv (Fig. 7 with RoCE
# frames per lookup from the client port's counters), the derived CSVs,
# DIR/rtt-vm.csv (one 64-byte READ), DIR/host-vm.csv (the host's load)
# and DIR/fig7-vm.png .. fig11-vm.png
# (scripts/repro/strom-vm-plot.gp; --no-plot: CSV only); the consoles in
# DIR/vm. Then DIR/run.txt and the docs' blocks from the run
# (scripts/repro/render.py: rewritten in docs/ when DIR is
# docs/repro/strom-vm). Builds QEMU and the guest first
# (scripts/build-qemu.sh, scripts/build-guest.sh; no-ops when up to date).
# Default DIR: build/repro/strom-vm. About 4 minutes; other VMs on the host
# skew it.
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
out=$repo/build/repro/strom-vm smoke=() plot=1
while [ $# -gt 0 ]; do
    case $1 in
        --smoke) smoke=(--smoke) ;;
        --no-plot) plot=0 ;;
        --out) out=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
[ "$plot" = 0 ] || command -v gnuplot >/dev/null ||
    die "gnuplot not found: run scripts/setup-deps.sh (as root), or give --no-plot"
mkdir -p "$out"

# ---- Fig. 7-10 in two VMs ----
iters=100 lens=1,2,4,8,16,32 values=64,256,1024,4096 objects=64,256,1024,4096,16384
torn=64,1024,16384 pcts="0 1 10 50" tuples=65536,262144,1048576 shuffle_iters=5
[ ${#smoke[@]} = 0 ] || { iters=10 lens=1,8,32 values=64,4096 objects=64,16384 torn=64,16384 pcts="0 50"
                          tuples=65536,1048576 shuffle_iters=2; }
"$repo/scripts/build-qemu.sh" >/dev/null
"$repo/scripts/build-guest.sh" >/dev/null
mkdir -p "$out/vm"
# the host's load while the VMs ran (TCG: other work on the host skews them)
load() { cut -d' ' -f1 /proc/loadavg; }
load0=$(load)
# pair NAME ARGS...: the role verbs-strom on two snic VMs, consoles DIR/vm/NAME-{a,b}.log
pair() {
    local name=$1
    shift
    rm -f "$out/vm/$name-a.log"
    "$repo/scripts/vm-pair.sh" --nic snic --role verbs-strom --log-dir "$out/vm" --name "$name" \
        --append "snicvm.strom_iters=$iters" "$@" >"$out/vm/$name.pair.log" 2>&1 ||
        { tail -n 20 "$out/vm/$name.pair.log"; die "the VM pair $name failed (consoles in $out/vm)"; }
}
pair strom --append "snicvm.strom_lens=$lens" --append "snicvm.strom_values=$values" \
    --append "snicvm.strom_objects=$objects"
for p in $pcts; do
    pair "strom-torn$p" --qemu-b -global --qemu-b "snic.x-torn-reads=$p" \
        --append snicvm.strom_lens= --append snicvm.strom_values= --append snicvm.strom_objects= \
        --append "snicvm.strom_torn_objects=$torn" --append "snicvm.strom_torn_pct=$p"
done
# Fig. 11: its own iterations (a software partitioning of 1 Mi tuples takes seconds in TCG);
# the later --append wins
pair strom-shuffle --qemu-b -global --qemu-b snic.shuffle-units=1 --append "snicvm.strom_iters=$shuffle_iters" \
    --append snicvm.strom_lens= --append snicvm.strom_values= --append snicvm.strom_objects= \
    --append "snicvm.strom_shuffle=$tuples"
tr -d '\r' <"$out/vm/strom-shuffle-a.log" | sed -n 's/^strom-bench\[client\]: fig11,//p' >"$out/fig11-vm.csv"
[ "$(wc -l <"$out/fig11-vm.csv")" -gt 1 ] || die "no fig11 rows in $out/vm/strom-shuffle-a.log"
awk -F, 'NR == 1 { print "tuples,write_med_us,strom_med_us,hist_med_us,sw_write_med_us," \
                          "strom_over_write,strom_rpc_over_write,sw_over_write,hist_share"; next }
         { printf "%s,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f\n", $1, $2, $5, $11, $8,
                  $5 / $2, ($5 - $11) / $2, $8 / $2, $11 / $5 }' \
    "$out/fig11-vm.csv" >"$out/fig11-vm-derived.csv"
# the client's rows: "strom-bench[client]: figN,..." and "...: rtt,..."
rows() { tr -d '\r' <"$out/vm/strom-a.log" | sed -n "s/^strom-bench\[client\]: $1,//p"; }
{ echo "object_bytes,failure_pct,readsw_avg_us,strom_avg_us,readsw_reads,strom_asks"
  for p in $pcts; do
      tr -d '\r' <"$out/vm/strom-torn$p-a.log" | sed -n "s/^strom-bench\[client\]: fig10,\([0-9]\)/\1/p"
  done | sort -t, -k1,1n -k2,2n; } >"$out/fig10-vm.csv"  # by size, then rate: one line per size
[ "$(wc -l <"$out/fig10-vm.csv")" -gt 1 ] || die "no fig10 rows in $out/vm/strom-torn*-a.log"
for f in fig7 fig8 fig9; do
    rows "$f" >"$out/$f-vm.csv"
    [ "$(wc -l <"$out/$f-vm.csv")" -gt 1 ] || die "no $f rows in $out/vm/strom-a.log"
done
{ echo "rtt_med_us,rtt_p1_us,rtt_p99_us"; rows rtt; } >"$out/rtt-vm.csv"
[ "$(wc -l <"$out/rtt-vm.csv")" = 2 ] || die "no rtt row in $out/vm/strom-a.log"
rtt=$(sed -n 2p "$out/rtt-vm.csv" | cut -d, -f1)
printf 'cpus,load1_start,load1_end,iters,shuffle_iters\n%s,%s,%s,%s,%s\n' "$(nproc)" "$load0" "$(load)" "$iters" \
    "$shuffle_iters" >"$out/host-vm.csv"
# Fig. 7: the kernel's latency per extra element, from the first length to the last
awk -F, 'NR == 2 { l = $1; s = $5 } NR > 1 { L = $1; S = $5 }
         END { print "first_length,last_length,strom_per_element_us"
               printf "%s,%s,%.3f\n", l, L, (S - s) / (L - l) }' "$out/fig7-vm.csv" >"$out/fig7-vm-derived.csv"
# Fig. 8: the kernel's saving over two READs, also in network round trips (one READ's);
# Fig. 9: the checks' overhead over a plain READ.
awk -F, -v rtt="$rtt" 'NR == 1 { print "value_bytes,saving_us,saving_rtts"; next }
         { printf "%s,%.3f,%.3f\n", $1, $2 - $5, ($2 - $5) / rtt }' "$out/fig8-vm.csv" >"$out/fig8-vm-derived.csv"
awk -F, 'NR == 1 { print "object_bytes,readsw_overhead_pct,strom_overhead_pct,strom_overhead_us"; next }
         { printf "%s,%.1f,%.1f,%.3f\n", $1, 100 * ($5 - $2) / $2, 100 * ($8 - $2) / $2, $8 - $2 }' \
    "$out/fig9-vm.csv" >"$out/fig9-vm-derived.csv"
repro_gnuplot "$out" fig7-vm fig8-vm fig9-vm fig10-vm fig11-vm -- \
    -e "dir='$out'; paper='$here/strom-paper.csv'" "$here/strom-vm-plot.gp"

echo "strom: Fig. 7-9 in two VMs (TCG; the wire is QEMU's UDP socket), medians:"
printf '  one 64-byte READ (a network round trip): %s us\n' "$rtt"
awk -F, 'NR == 1 { next }
         { printf "  Fig. 7 length %2s: READ chain %9s us %6s frames, kernel %8s us %5s frames, two-sided %8s us %5s frames\n",
                  $1, $2, $11, $5, $12, $8, $13 }' "$out/fig7-vm.csv"
paste -d, "$out/fig8-vm.csv" "$out/fig8-vm-derived.csv" | awk -F, 'NR == 1 { next }
         { printf "  Fig. 8 %5s B: two READs %8s us, kernel %8s us, two-sided %8s us; saving %s us = %s round trips (paper: one, ~5 us)\n",
                  $1, $2, $5, $8, $12, $13 }'
paste -d, "$out/fig9-vm.csv" "$out/fig9-vm-derived.csv" | awk -F, 'NR == 1 { next }
         { printf "  Fig. 9 %5s B: READ %8s us, READ+CRC %8s us (%+.1f %%), kernel %8s us (%+.1f %%)\n",
                  $1, $2, $5, $12, $8, $13 }'
echo "  Fig. 10 average latency (us) by the server's torn reads: size,pct,READ+CRC,kernel,READs per checked read,RPCs per kernel read"
sed 1d "$out/fig10-vm.csv" | awk -F, '{ printf "    %6s B %4s %%  %9s  %9s  %5s  %5s\n", $1, $2, $3, $4, $5, $6 }'
awk -F, 'NR == 1 { next }
         { printf "  Fig. 11 %7s tuples: WRITE %9s us, shuffle %9s us (%.2fx; histogram %s us, the rest %.2fx), software + WRITE %10s us (%.1fx)\n",
                  $1, $2, $3, $6, $4, $7, $5, $8 }' "$out/fig11-vm-derived.csv"
pass=()
repro_done strom-vm
log "CSV and PNG in $out"
