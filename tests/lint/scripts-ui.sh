#!/usr/bin/env bash
# TAP: what the scripts tell their user.
#  * Every script (executable in scripts/) answers --help at once (exit 0, no work done) with its whole usage: each
#    option its argument parser takes is in the text.
#  * stale_check (scripts/lib.sh) warns when a built snic.ko's sources changed since.
#  * wire_rmem_check warns, once per run, when the UDP buffer is below what a VM pair needs.
set -u
root=$1
cd "$root" || exit 1
# The checks below source lib.sh, which runs the buffer check of this host: not wanted here.
export SNIC_WIRE_RMEM_WARNED=1

scripts=()
for f in scripts/*.sh scripts/*.py scripts/guest-dev/snic-reload; do
    # (lib.sh is sourced; snic-gdb.py is loaded by gdb)
    [ -x "$f" ] && [ "$f" != scripts/lib.sh ] && scripts+=("$f")
done
echo "1..$(( ${#scripts[@]} + 2 ))"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; printf '# %s\n' "$@"; }

# The long options a script parses: case patterns (shell) or string literals (Python).
options() {
    case $1 in
        *.py) grep -oE "'--[a-z][a-z0-9-]*'" "$1" | tr -d "'" ;;
        *) grep -vE '^\s*#' "$1" | grep -E '^\s*[-a-z0-9|*=]*--[a-z][-a-z0-9|*=]*\)' |
               grep -oE -- '--[a-z][a-z0-9-]*' ;;
    esac | sort -u
}

for f in "${scripts[@]}"; do
    out=$(timeout 20 "./$f" --help </dev/null 2>&1)
    rc=$?
    missing=()
    for o in $(options "$f"); do
        [ "$o" = --help ] || grep -qe "$o" <<<"$out" || missing+=("$o")
    done
    if [ "$rc" != 0 ] || [ "$(wc -l <<<"$out")" -lt 3 ]; then
        notok "$f --help" "exit $rc, $(wc -l <<<"$out") lines:" "$out"
    elif [ ${#missing[@]} -gt 0 ]; then
        notok "$f --help" "options it takes but does not explain: ${missing[*]}"
    else
        ok "$f --help explains every option it takes"
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

mkdir -p "$tmp/src"
echo 'int x;' > "$tmp/src/a.c"
touch "$tmp/snic.ko"
echo "$(driver_sources "$tmp/src") $tmp/src" > "$tmp/snic.ko.sources"
fresh=$(stale_check "$tmp/snic.ko"); r1=$?
echo 'int y;' >> "$tmp/src/a.c"
stale=$(stale_check "$tmp/snic.ko"); r2=$?
if [ "$r1" = 0 ] && [ -z "$fresh" ] && [ "$r2" = 1 ] && grep -q "WARNING: $tmp/snic.ko is stale" <<<"$stale"; then
    ok "a module is stale once a source changed after its build, not before"
else
    notok "stale_check" "fresh: rc $r1 '$fresh'; after an edit: rc $r2 '$stale'"
fi

wire_rmem_file=$tmp/rmem
echo 212992 > "$wire_rmem_file"
unset SNIC_WIRE_RMEM_WARNED
low=$(wire_rmem_check 2>&1)
again=$(SNIC_WIRE_RMEM_WARNED=1 wire_rmem_check 2>&1)
echo "$WIRE_RMEM" > "$wire_rmem_file"
high=$(wire_rmem_check 2>&1)
if grep -q "rmem_default is 212992 bytes.*sysctl -w net.core.rmem_default=$WIRE_RMEM" <<<"$low" &&
   [ -z "$again" ] && [ -z "$high" ]; then
    ok "a low net.core.rmem_default is warned about once, with the fix; WIRE_RMEM is not"
else
    notok "wire_rmem_check" "at 212992: '$low'" "warned before: '$again'" "at WIRE_RMEM: '$high'"
fi
