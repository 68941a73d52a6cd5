# shellcheck shell=bash
# Shared by the paper reproductions scripts/repro/NAME.sh (sourced): their common
# options, building their program tests/bench/NAME-repro.c and drawing with gnuplot.
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck disable=SC2034  # used by the scripts that source this
here=$repo/scripts/repro

# repro_options NAME [--pass] ARGS...: the options every reproduction takes, --smoke,
# --out DIR, --bin PROGRAM and -h/--help; with --pass also "-- OPTIONS" for the program.
# Sets out (default build/repro/NAME), smoke (empty or (--smoke)), pass (the OPTIONS);
# then bin: PROGRAM, else NAME-repro built without sanitizers in build/bench. Needs gnuplot.
repro_options() {
    local name=$1 takes_pass=0
    shift
    [ "${1:-}" = --pass ] && { takes_pass=1; shift; }
    out=$repo/build/repro/$name bin='' smoke=() pass=()
    # shellcheck disable=SC2034  # smoke and pass: for the script that calls this
    while [ $# -gt 0 ]; do
        case $1 in
            --smoke) smoke=(--smoke) ;;
            --out) out=$2; shift ;;
            --bin) bin=$2; shift ;;
            --) [ "$takes_pass" = 1 ] || die "unknown argument $1 (see --help)"
                shift; pass=("$@"); break ;;
            -h|--help) usage; exit 0 ;;
            *) die "unknown argument $1 (see --help)" ;;
        esac
        shift
    done
    command -v gnuplot >/dev/null || die "gnuplot not found: run scripts/setup-deps.sh (as root)"
    if [ -z "$bin" ]; then
        local bench=$repo/build/bench
        if [ ! -f "$bench/build.ninja" ]; then
            meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
                -Dwerror=true >/dev/null
        fi
        ninja -C "$bench" "tests/$name-repro" >/dev/null
        bin=$bench/tests/$name-repro
    fi
    mkdir -p "$out"
}

# repro_plot NAME FIG...: draws with scripts/repro/NAME-plot.gp (gnuplot variables dir,
# the output directory, and paper, NAME-paper.csv); each $out/FIG.png must be drawn.
repro_plot() {
    local name=$1 f
    shift
    gnuplot -e "dir='$out'; paper='$here/$name-paper.csv'" "$here/$name-plot.gp"
    for f in "$@"; do
        [ -s "$out/$f.png" ] || die "$out/$f.png was not drawn"
    done
}
