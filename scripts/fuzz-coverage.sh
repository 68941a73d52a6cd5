#!/usr/bin/env bash
# Line coverage of the device core by the committed fuzz corpora: builds the
# libFuzzer targets with clang's source-based coverage (no sanitizers) in
# build/fuzz-cov, replays every input of tests/fuzz/corpus once through its
# target, and prints each target's executions, then per-file line coverage of
# hw/snic/core/transport/, srnic/ and strom/ (llvm-cov report), then how often
# the replay entered each function the fuzzing doc names (docs/fuzzing.md).
# Exits 1 if one of them never ran.
#
#   scripts/fuzz-coverage.sh [--corpus DIR] [--out DIR] [--all]
#
# --corpus DIR: replay DIR/{admin,wqe,rx,wire} instead of tests/fuzz/corpus.
# --out DIR: where the raw profiles and reports go (default build/fuzz-cov/report).
# --all: every file of the core in the report, not only the three folders.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
corpus=$repo/tests/fuzz/corpus out='' all=''
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --corpus) corpus=$(cd "$2" && pwd); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --all) all=1; shift ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
build=$repo/build/fuzz-cov
out=${out:-$build/report}
# clang's own llvm-profdata and llvm-cov (Debian names them NAME-MAJOR)
major=$(clang -dumpversion | cut -d. -f1)
llvm_tool() {
    command -v "$1-$major" || command -v "$1" ||
        die "$1-$major not found (apt-get install llvm-$major)"
}
profdata=$(llvm_tool llvm-profdata)
cov=$(llvm_tool llvm-cov)

# The functions each named behaviour runs (docs/fuzzing.md, "What the corpora reach")
required=(
    ooo_write ooo_send              # engine/resp.c: WRITE, SEND placed ahead of ePSN
    snic_sr_request                 # srnic/sr.c: SRNIC's responder
    retry_epsn retry_rtx retry_recv # srnic/sr.c: RetryQ entries checked
    snic_resp_trimmed next_nacked   # NDP: a trimmed packet NACKed, the NACK resent
    snic_cmd_set_qp_rpc             # strom/rpc.c: SET_QP_RPC checked
)

flags='-fprofile-instr-generate -fcoverage-mapping'
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" "$repo" -Dfuzzing=true -Db_sanitize=none \
        -Dc_args="$flags" -Dc_link_args="$flags" >/dev/null
fi
ninja -C "$build" tests/fuzz/fuzz-admin tests/fuzz/fuzz-wqe tests/fuzz/fuzz-rx \
    tests/fuzz/fuzz-wire-parse >/dev/null
rm -rf "$out" && mkdir -p "$out"
objects=()
echo "replay of $corpus (one run per input)"
for t in admin wqe rx wire; do
    bin=$build/tests/fuzz/fuzz-$t
    [ $t = wire ] && bin=$build/tests/fuzz/fuzz-wire-parse
    objects+=(-object "$bin")
    LLVM_PROFILE_FILE="$out/$t.profraw" "$bin" -runs=0 "$corpus/$t" \
        > "$out/$t.log" 2>&1 || { tail -n 20 "$out/$t.log"; die "fuzz-$t failed on its corpus"; }
    printf '  %-16s %5d inputs\n' "fuzz-$t" "$(find "$corpus/$t" -type f | wc -l)"
done
"$profdata" merge -sparse "$out"/*.profraw -o "$out/all.profdata"
filter=(hw/snic/core/transport/ hw/snic/core/srnic/ hw/snic/core/strom/)
[ -n "$all" ] && filter=(hw/snic/core/)
# One line per file: lines, lines missed, line coverage (llvm-cov report's
# columns 8-10), the path from hw/snic/core/ on
"$cov" report "${objects[@]:1}" -instr-profile="$out/all.profdata" \
    "$repo/hw/snic/core" > "$out/report.txt"
echo "line coverage (file, lines, missed, covered)"
for f in "${filter[@]}"; do
    grep -F "$f" "$out/report.txt" || true
done | awk '{ sub(/.*hw\/snic\/core\//, "", $1); printf "  %-36s %6s %6s %8s\n", $1, $8, $9, $10 }'
awk '$1 == "TOTAL" { printf "  %-36s %6s %6s %8s (the whole core)\n", "all", $8, $9, $10 }' "$out/report.txt"

# Entries into each required function (llvm-cov's function counts)
"$cov" export "${objects[@]:1}" -instr-profile="$out/all.profdata" \
    -summary-only=false -skip-expansions > "$out/export.json"
echo "functions the doc names (times entered by the replay)"
python3 - "$out/export.json" "${required[@]}" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
count = {}
for d in data["data"]:
    for f in d["functions"]:
        name = f["name"].split(":")[-1]
        count[name] = count.get(name, 0) + f["count"]
bad = 0
for name in sys.argv[2:]:
    n = count.get(name)
    print(f"  {name:28s} {n if n is not None else 'not in the build'}")
    bad |= not n
sys.exit(bad)
EOF
