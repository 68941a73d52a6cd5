#!/usr/bin/env bash
# StRoM (EuroSys'20) Fig. 7-10 in the simulator: CSV and PNG beside the
# numbers the paper states (scripts/repro/strom-paper.csv).
#
#   scripts/repro/strom.sh [--smoke] [--vm] [--out DIR] [--bin STROM-REPRO] [-- OPTIONS]
#
# Builds tests/bench/strom-repro.c without sanitizers (build/bench) unless
# --bin names a built one, runs it (OPTIONS go to it: --iters, --ops, the
# model's --link-gbps, --net-rtt-ns, --pcie-rtt-ns, --pcie-gbps,
# --cpu-rpc-ns, --cpu-mem-ns; see the program's header), derives the
# increments the paper states numbers about, draws DIR/fig7..fig10.png
# with gnuplot and prints the comparison. --smoke: a few points (the test
# suite's run). Default DIR: build/repro/strom. The full run takes about
# a minute here; the smoke run a few seconds.
#
# --vm: Fig. 7-10 also between two snic VMs (scripts/vm-pair.sh, role
# verbs-strom: tests/vm/strom-bench.c on snic.ko + libsnic, 100 operations
# per point and method, --smoke 10): one pair for Fig. 7-9, then one per
# Fig. 10 failure rate (0, 1, 10, 50 %; --smoke 0, 50), whose server
# device tears that share of its host reads (x-torn-reads, the fault
# injection the simulator's Fig. 10 does with its fake host). Writes
# DIR/fig7-vm.csv .. fig10-vm.csv (Fig. 7 with RoCE frames per lookup
# from the client port's counters), the derived CSVs, DIR/rtt-vm.csv (one
# 64-byte READ) and DIR/fig7-vm.png .. fig10-vm.png
# (scripts/repro/strom-vm-plot.gp); the consoles in DIR/vm. Builds QEMU
# and the guest first (scripts/build-qemu.sh, scripts/build-guest.sh;
# no-ops when up to date). About 5 minutes; other VMs on the host skew it.
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
vm=0 args=()
while [ $# -gt 0 ]; do
    case $1 in
        --vm) vm=1 ;;
        --) args+=("$@"); break ;;
        *) args+=("$1") ;;
    esac
    shift
done
repro_options strom --pass "${args[@]}"
"$bin" "${smoke[@]}" --out "$out" "${pass[@]}"

# The increments the paper's text puts numbers on.
# Fig. 7: latency added per element (kernel: a PCIe read; READ chain: a
# network round trip), from consecutive lengths.
awk -F, 'NR == 1 { print "length,strom_per_element_us,read_per_element_us"; next }
         NR > 2 { printf "%s,%.3f,%.3f\n", $1, ($5 - s) / ($1 - l), ($2 - r) / ($1 - l) }
         { l = $1; r = $2; s = $5 }' "$out/fig7.csv" > "$out/fig7-derived.csv"
# Fig. 8: what one RPC saves over two READs.
awk -F, 'NR == 1 { print "value_bytes,saving_us"; next }
         { printf "%s,%.3f\n", $1, $2 - $5 }' "$out/fig8.csv" > "$out/fig8-derived.csv"
# Fig. 9: overhead of checking over a plain READ.
awk -F, 'NR == 1 { print "object_bytes,readsw_overhead_pct,strom_overhead_pct,strom_overhead_us"; next }
         { printf "%s,%.1f,%.1f,%.3f\n", $1, 100 * ($5 - $2) / $2, 100 * ($8 - $2) / $2, $8 - $2 }' \
    "$out/fig9.csv" > "$out/fig9-derived.csv"

repro_plot strom fig7 fig8 fig9 fig10

# The comparison, as text
last() { tail -n 1 "$1" | cut -d, -f"$2"; }
first() { sed -n 2p "$1" | cut -d, -f"$2"; }
echo "strom: model (model.csv):"
sed 1d "$out/model.csv" | awk -F, '{ printf "  %-24s %s %s\n", $1, $2, $3 }'
echo "strom: ours vs the paper's stated numbers"
printf '  Fig. 7  kernel per element: %s us (paper: ~1.5 us per PCIe read)\n' \
    "$(last "$out/fig7-derived.csv" 2)"
printf '  Fig. 7  READ chain per element: %s us (a network round trip, a WQE fetch)\n' \
    "$(last "$out/fig7-derived.csv" 3)"
printf '  Fig. 8  saving of one RPC over two READs: %s us at %s B .. %s us at %s B (paper: ~5 us)\n' \
    "$(first "$out/fig8-derived.csv" 2)" "$(first "$out/fig8-derived.csv" 1)" \
    "$(last "$out/fig8-derived.csv" 2)" "$(last "$out/fig8-derived.csv" 1)"
printf '  Fig. 9  READ+CRC overhead at %s B: %s %% (paper: up to 40 %%)\n' \
    "$(last "$out/fig9-derived.csv" 1)" "$(last "$out/fig9-derived.csv" 2)"
printf '  Fig. 9  kernel overhead at %s B: %s %%, %s us (paper: 1 us, < 8 %%)\n' \
    "$(last "$out/fig9-derived.csv" 1)" "$(last "$out/fig9-derived.csv" 3)" \
    "$(last "$out/fig9-derived.csv" 4)"
echo "  Fig. 10 average latency (us) by failure rate: size,pct,READ+CRC,kernel"
sed 1d "$out/fig10.csv" | awk -F, '{ printf "    %6s B %4s %%  %9s  %9s\n", $1, $2, $3, $4 }'

[ "$vm" = 1 ] || { log "CSV and PNG in $out"; exit 0; }

# ---- Fig. 7-10 in two VMs ----
iters=100 lens=1,2,4,8,16,32 values=64,256,1024,4096 objects=64,256,1024,4096,16384
torn=64,1024,16384 pcts="0 1 10 50"
[ ${#smoke[@]} = 0 ] || { iters=10 lens=1,8,32 values=64,4096 objects=64,16384 torn=64,16384 pcts="0 50"; }
"$repo/scripts/build-qemu.sh" >/dev/null
"$repo/scripts/build-guest.sh" >/dev/null
mkdir -p "$out/vm"
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
# the client's rows: "strom-bench[client]: figN,..." and "...: rtt,..."
rows() { tr -d '\r' <"$out/vm/strom-a.log" | sed -n "s/^strom-bench\[client\]: $1,//p"; }
{ echo "object_bytes,failure_pct,readsw_avg_us,strom_avg_us,readsw_reads,strom_asks"
  for p in $pcts; do
      tr -d '\r' <"$out/vm/strom-torn$p-a.log" | sed -n "s/^strom-bench\[client\]: fig10,\([0-9]\)/\1/p"
  done; } >"$out/fig10-vm.csv"
[ "$(wc -l <"$out/fig10-vm.csv")" -gt 1 ] || die "no fig10 rows in $out/vm/strom-torn*-a.log"
for f in fig7 fig8 fig9; do
    rows "$f" >"$out/$f-vm.csv"
    [ "$(wc -l <"$out/$f-vm.csv")" -gt 1 ] || die "no $f rows in $out/vm/strom-a.log"
done
{ echo "rtt_med_us,rtt_p1_us,rtt_p99_us"; rows rtt; } >"$out/rtt-vm.csv"
[ "$(wc -l <"$out/rtt-vm.csv")" = 2 ] || die "no rtt row in $out/vm/strom-a.log"
rtt=$(sed -n 2p "$out/rtt-vm.csv" | cut -d, -f1)
# Fig. 8: the kernel's saving over two READs, also in network round trips (one READ's);
# Fig. 9: the checks' overhead over a plain READ.
awk -F, -v rtt="$rtt" 'NR == 1 { print "value_bytes,saving_us,saving_rtts"; next }
         { printf "%s,%.3f,%.3f\n", $1, $2 - $5, ($2 - $5) / rtt }' "$out/fig8-vm.csv" >"$out/fig8-vm-derived.csv"
awk -F, 'NR == 1 { print "object_bytes,readsw_overhead_pct,strom_overhead_pct,strom_overhead_us"; next }
         { printf "%s,%.1f,%.1f,%.3f\n", $1, 100 * ($5 - $2) / $2, 100 * ($8 - $2) / $2, $8 - $2 }' \
    "$out/fig9-vm.csv" >"$out/fig9-vm-derived.csv"
gnuplot -e "dir='$out'; paper='$here/strom-paper.csv'" "$here/strom-vm-plot.gp"
for f in fig7 fig8 fig9 fig10; do
    [ -s "$out/$f-vm.png" ] || die "$out/$f-vm.png was not drawn"
done

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
log "CSV and PNG in $out"
