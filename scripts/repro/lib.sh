# shellcheck shell=bash
# Shared by the paper reproductions scripts/repro/NAME.sh (sourced): their common
# options, building their program tests/bench/NAME-repro.c and drawing with gnuplot.
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck disable=SC2034  # used by the scripts that source this
here=$repo/scripts/repro

# repro_options NAME [--pass] ARGS...: the options every reproduction takes, --smoke,
# --out DIR, --bin PROGRAM, --no-plot and -h/--help; with --pass also "-- OPTIONS" for the
# program. Sets out (default build/repro/NAME), smoke (empty or (--smoke)), pass (the
# OPTIONS), plot (0 with --no-plot: CSV only, no gnuplot needed); then bin: PROGRAM, else
# NAME-repro built without sanitizers in build/bench.
repro_options() {
    local name=$1 takes_pass=0
    shift
    [ "${1:-}" = --pass ] && { takes_pass=1; shift; }
    out=$repo/build/repro/$name bin='' smoke=() pass=() plot=1
    # shellcheck disable=SC2034  # smoke and pass: for the script that calls this
    while [ $# -gt 0 ]; do
        case $1 in
            --smoke) smoke=(--smoke) ;;
            --no-plot) plot=0 ;;
            --out) out=$2; shift ;;
            --bin) bin=$2; shift ;;
            --) [ "$takes_pass" = 1 ] || die "unknown argument $1 (see --help)"
                shift; pass=("$@"); break ;;
            -h|--help) usage; exit 0 ;;
            *) die "unknown argument $1 (see --help)" ;;
        esac
        shift
    done
    [ "$plot" = 0 ] || command -v gnuplot >/dev/null ||
        die "gnuplot not found: run scripts/setup-deps.sh (as root), or give --no-plot"
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
# Nothing with --no-plot.
repro_plot() {
    local name=$1
    shift
    repro_gnuplot "$out" "$@" -- -e "dir='$out'; paper='$here/$name-paper.csv'" "$here/$name-plot.gp"
}

# repro_gnuplot DIR FIG... -- GNUPLOT-ARGS...: gnuplot, then each DIR/FIG.png must be drawn.
# Nothing with --no-plot.
repro_gnuplot() {
    local dir=$1 figs=() f
    shift
    while [ "$1" != -- ]; do figs+=("$1"); shift; done
    shift
    [ "$plot" = 1 ] || return 0
    gnuplot "$@"
    for f in "${figs[@]}"; do
        [ -s "$dir/$f.png" ] || die "$dir/$f.png was not drawn"
    done
}

# repro_done NAME [ARGS...]: DIR/run.txt (what the run depends on, and ARGS, the options
# that shape its results: by default --smoke and the program's), then the docs' blocks of
# NAME rendered from the run: rewritten in docs/ if DIR is docs/repro/NAME (the reference
# run), else printed (scripts/repro/render.py).
repro_done() {
    local name=$1
    shift
    [ $# -gt 0 ] || set -- "${smoke[@]}" "${pass[@]}"
    python3 "$here/render.py" "$name" "$out" --args="$*" ||
        die "rendering the docs' blocks from $out failed"
}
