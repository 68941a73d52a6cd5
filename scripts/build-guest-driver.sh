#!/usr/bin/env bash
# Build the snic guest kernel module (guest-driver/kernel -> build/guest-driver/snic.ko)
# against the guest kernel's headers.
#
#   scripts/build-guest-driver.sh [--src DIR] [--out DIR] [--sparse]
#
#   --src DIR  build the module from DIR instead of guest-driver/kernel (e.g. a copy)
#   --out DIR  put snic.ko (and its build tree, kernel/) in DIR instead of build/guest-driver
#   --sparse   also run sparse over every source file (kbuild's C=2), failing on anything
#              it reports (CF=-Wsparse-error); the lint phase's check of snic.ko
#
# The guest kernel release comes from scripts/guest-image.sh (.cache/guest/kernel.release,
# resolved from the archive's linux-image-amd64). Its headers, linux-kbuild and the
# -common headers are taken with `apt-get download` + `dpkg -x` into .cache/guest/headers:
# nothing is installed into the host. Idempotent: kbuild rebuilds only what changed.
# OUT/snic.ko.sources records what it was built from (scripts/guest-image.sh warns when the
# sources have changed since).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/guest-driver
SRC=$REPO/guest-driver/kernel
CHECK=()
HDRS=$REPO/.cache/guest/headers

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --src|--out)
            [ $# -ge 2 ] || die "$1 needs a directory"
            [ -d "$2" ] || [ "$1" = --out ] || die "--src: no directory $2"
            if [ "$1" = --src ]; then SRC=$(cd "$2" && pwd); else mkdir -p "$2"; OUT=$(cd "$2" && pwd); fi
            shift 2 ;;
        --sparse) CHECK=(C=2 CF=-Wsparse-error); shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

tools=(apt-cache apt-get dpkg-deb make gcc)
[ ${#CHECK[@]} = 0 ] || tools+=(sparse)
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || die "'$tool' not found; run scripts/setup-deps.sh (as root) first"
done
[ -f "$SRC/Kbuild" ] || die "$SRC/Kbuild not found (broken checkout?)"
krel_file=$REPO/.cache/guest/kernel.release
[ -f "$krel_file" ] || "$REPO/scripts/guest-image.sh" --kernel-only >/dev/null ||
    die "scripts/guest-image.sh --kernel-only failed; it resolves the guest kernel release"
KREL=$(cat "$krel_file")

# linux-headers-$KREL-amd64 pins -common to its own version and needs linux-kbuild-6.1.
hpkg=linux-headers-$KREL
hver=$(apt-cache show --no-all-versions "$hpkg" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
[ -n "$hver" ] || die "apt knows no $hpkg; run scripts/setup-deps.sh (it runs apt-get update)"
common=linux-headers-${KREL%-amd64}-common
kbuild=linux-kbuild-$(echo "$KREL" | cut -d. -f1-2)
ROOT=$HDRS/$KREL
KDIR=$ROOT/usr/src/$hpkg

if [ "$(cat "$ROOT/.complete" 2>/dev/null)" != "$hpkg=$hver" ]; then
    log "fetching $hpkg $common $kbuild ($hver) with apt-get download"
    rm -rf "$HDRS"
    mkdir -p "$HDRS/debs" "$ROOT.tmp"
    sandbox=()
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    (cd "$HDRS/debs" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "$hpkg=$hver" "$common=$hver" "$kbuild") ||
        die "apt-get download of the guest kernel headers failed (or took over ${apt_timeout}s); check the archive and run 'apt-get update'"
    for deb in "$HDRS"/debs/*.deb; do
        dpkg-deb -x "$deb" "$ROOT.tmp" || die "dpkg-deb -x $deb failed (delete $HDRS and re-run)"
    done
    # The arch Makefile includes the -common tree by absolute path: point it into ours.
    sed -i "s|include /usr/src/|include $ROOT.tmp/usr/src/|" "$ROOT.tmp/usr/src/$hpkg/Makefile"
    rm -rf "$ROOT"
    mv "$ROOT.tmp" "$ROOT"
    sed -i "s|include $ROOT.tmp/usr/src/|include $ROOT/usr/src/|" "$KDIR/Makefile"
    echo "$hpkg=$hver" > "$ROOT/.complete"
fi

mkdir -p "$OUT"
log "building snic.ko for $KREL"
# Build in a copy so the source tree stays free of kbuild output; cp -u keeps the
# copies' times, so kbuild still rebuilds only what changed.
BDIR=$OUT/kernel
# A tree copied from other sources would keep their files: start afresh.
if [ "$(cat "$BDIR/.src" 2>/dev/null)" != "$SRC" ]; then
    rm -rf "$BDIR"
    mkdir -p "$BDIR"
    echo "$SRC" > "$BDIR/.src"
fi
mkdir -p "$BDIR/src" "$BDIR/common"
cp -a -u "$SRC/." "$BDIR/src/"
# The host code shared with the simulator (Kbuild's ../common), beside the copy as beside SRC
COMMON=$SRC/../common
[ -d "$COMMON" ] || COMMON=$REPO/guest-driver/common
cp -a -u "$COMMON/." "$BDIR/common/"
make -s -C "$KDIR" M="$BDIR/src" SNIC_INCLUDE="$REPO/include" W=1 "${CHECK[@]}" modules 2>&1 |
    tee "$OUT/build.log" || die "kernel module build failed (log: $OUT/build.log)"
if grep -E 'warning:|error:|undefined!' "$OUT/build.log" | grep -v 'Skipping BTF'; then
    die "the module build printed warnings (above); fix them"
fi
[ ${#CHECK[@]} = 0 ] || log "sparse: nothing to report"

cp "$BDIR/src/snic.ko" "$OUT/snic.ko.tmp" && mv "$OUT/snic.ko.tmp" "$OUT/snic.ko"
echo "$(driver_sources "$SRC") $SRC" > "$OUT/snic.ko.sources"
vermagic=$(/sbin/modinfo -F vermagic "$OUT/snic.ko")
case $vermagic in "$KREL "*) ;; *) die "snic.ko vermagic '$vermagic' does not match $KREL" ;; esac
log "ok: $OUT/snic.ko ($vermagic; depends: $(/sbin/modinfo -F depends "$OUT/snic.ko"))"
