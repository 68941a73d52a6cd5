#!/usr/bin/env bash
# Build the snic guest: Debian 12's kernel (vmlinuz) and a busybox initramfs.
#
#   scripts/guest-image.sh [--out DIR]      (default DIR: <repo>/.cache/guest)
#
# Outputs DIR/vmlinuz, DIR/initramfs.cpio.gz and DIR/kernel.release (uname -r of the guest).
# The kernel is taken from Debian's archive with `apt-get download` + `dpkg -x` (nothing is
# installed into the host); guest userspace is copied from the host, which runs the same
# Debian release. Idempotent: the kernel is fetched again only when the archive's
# linux-image-amd64 moves on, the initramfs is rebuilt only when its inputs change.
#
# To add guest content, extend GUEST_BINS / GUEST_FILES / GUEST_MODULES below.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GUEST_SRC=$REPO/scripts/guest

# Host ELF executables copied to the same path in the guest, with their ldd closure.
GUEST_BINS=(
    /usr/bin/lspci          # busybox has no lspci
)
# Host data files copied verbatim to the same path in the guest.
GUEST_FILES=(
    /usr/share/misc/pci.ids
)
# Kernel modules (names) copied with their dependencies from the guest kernel; depmod runs
# on the result. Empty for now: nothing is needed by the lspci role.
GUEST_MODULES=()

die() { echo "guest-image: error: $*" >&2; exit 1; }
log() { echo "guest-image: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

usage() { sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

OUT=$REPO/.cache/guest
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
        --out=*) OUT=${1#--out=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

T0=$(now)
for tool in apt-cache apt-get dpkg dpkg-deb cpio gzip ldd busybox depmod modprobe flock sha256sum; do
    command -v "$tool" >/dev/null || die "'$tool' not found; run scripts/setup-deps.sh (as root) first"
done
# The guest has no libc for busybox: it must be the static build.
[ -x /bin/busybox ] || die "/bin/busybox missing; install busybox-static (scripts/setup-deps.sh)"
case $(ldd /bin/busybox 2>&1 || true) in
    *"not a dynamic executable"*|*"statically linked"*) ;;
    *) die "/bin/busybox is dynamically linked; install busybox-static (scripts/setup-deps.sh)" ;;
esac
for f in "${GUEST_BINS[@]}" "${GUEST_FILES[@]}"; do
    [ -e "$f" ] || die "$f missing on the host (package: $(dpkg -S "$f" 2>/dev/null | cut -d: -f1 || true)); run scripts/setup-deps.sh"
done
[ -f "$GUEST_SRC/init" ] || die "$GUEST_SRC/init not found (broken checkout?)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# Serialise concurrent builders (e.g. two VMs started at once, each calling this script).
exec 9>"$OUT/.lock"
flock -n 9 || { log "waiting for another guest-image.sh run on $OUT"; flock 9; }

# --- Kernel -----------------------------------------------------------------------------
# linux-image-amd64 is the metapackage; its candidate's Depends names the real image
# package (e.g. linux-image-6.1.0-56-amd64). apt's candidate keeps us on bookworm (the
# backports kernel has priority 100).
# One apt-cache call (each costs ~0.6 s): the candidate's record only.
meta=$(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null) ||
    die "apt knows no linux-image-amd64; run scripts/setup-deps.sh (it runs apt-get update)"
meta_ver=$(awk '/^Version:/ { print $2; exit }' <<<"$meta")
kpkg=$(awk '/^Depends:/ { print; exit }' <<<"$meta" | grep -o 'linux-image-[^ ,|]*-amd64' | head -n 1 || true)
if [ -z "$meta_ver" ] || [ -z "$kpkg" ]; then
    die "cannot parse Version/Depends of linux-image-amd64 from apt-cache show"
fi
KREL=${kpkg#linux-image-}     # the guest's `uname -r`, e.g. 6.1.0-56-amd64
KVER=$meta_ver                # Debian package version of $kpkg
KDIR=$OUT/kernel/$KREL        # dpkg -x tree (modules live under lib/modules/$KREL)

if [ -f "$KDIR/.complete" ] && [ "$(cat "$KDIR/.complete")" = "$kpkg=$KVER" ] &&
   [ -f "$OUT/vmlinuz" ] && [ "$(cat "$OUT/kernel.release" 2>/dev/null)" = "$KREL" ]; then
    log "kernel $kpkg=$KVER: up to date"
else
    t=$(now)
    mkdir -p "$OUT/debs"
    deb=$(find "$OUT/debs" -maxdepth 1 -name "${kpkg}_*.deb" | head -n 1)
    if [ -z "$deb" ] || [ "$(dpkg-deb -f "$deb" Version)" != "$KVER" ]; then
        # Drop older kernels' debs and trees: they are only ever replaced, never used again.
        find "$OUT/debs" -maxdepth 1 -name 'linux-image-*.deb' -delete
        log "downloading $kpkg=$KVER with apt-get download"
        sandbox=()
        # Root's apt drops to user _apt, which cannot write to an arbitrary DIR.
        [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
        (cd "$OUT/debs" && apt-get download -q "${sandbox[@]}" "$kpkg=$KVER") ||
            die "apt-get download $kpkg=$KVER failed; check the archive is reachable and run 'apt-get update' (scripts/setup-deps.sh)"
        deb=$(find "$OUT/debs" -maxdepth 1 -name "${kpkg}_*.deb" | head -n 1)
        [ -n "$deb" ] || die "apt-get download reported success but no ${kpkg}_*.deb is in $OUT/debs"
    else
        log "using cached $(basename "$deb")"
    fi
    log "extracting $(basename "$deb") (dpkg -x)"
    find "$OUT/kernel" -mindepth 1 -maxdepth 1 -exec rm -rf {} + 2>/dev/null || true
    mkdir -p "$KDIR.tmp"
    dpkg -x "$deb" "$KDIR.tmp" || die "dpkg -x $deb failed (corrupt download? delete $OUT/debs and re-run)"
    [ -f "$KDIR.tmp/boot/vmlinuz-$KREL" ] || die "$deb has no boot/vmlinuz-$KREL"
    mv "$KDIR.tmp" "$KDIR"
    cp "$KDIR/boot/vmlinuz-$KREL" "$OUT/vmlinuz.tmp" && mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
    echo "$KREL" > "$OUT/kernel.release"
    echo "$kpkg=$KVER" > "$KDIR/.complete"
    log "kernel $KREL ready in $(since "$t")"
fi

# --- Initramfs --------------------------------------------------------------------------
# Shared-library closure of host ELF files, as absolute host paths (ELF loader included).
lib_closure() {
    local out
    out=$(ldd "$@" 2>&1) || true
    if grep -q 'not found' <<<"$out"; then
        die "missing shared libraries for $*:
$(grep 'not found' <<<"$out")"
    fi
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out" | sort -u
}

# Module files (relative to $KDIR) for GUEST_MODULES, dependencies first.
module_closure() {
    local m
    for m in "$@"; do
        modprobe -d "$KDIR" -S "$KREL" --show-depends "$m" ||
            die "module $m not found in $KREL (see $KDIR/lib/modules/$KREL)"
    done | awk '$1 == "insmod" { print $2 }' | sed "s|^$KDIR/||" | awk '!seen[$0]++'
}

BIN_LIBS=()
if [ ${#GUEST_BINS[@]} -gt 0 ]; then mapfile -t BIN_LIBS < <(lib_closure "${GUEST_BINS[@]}"); fi
MODS=()
if [ ${#GUEST_MODULES[@]} -gt 0 ]; then
    # modprobe needs modules.dep in the extracted tree; the .deb ships none.
    [ -f "$KDIR/lib/modules/$KREL/modules.dep" ] || depmod -b "$KDIR" "$KREL"
    mapfile -t MODS < <(module_closure "${GUEST_MODULES[@]}")
fi

# Everything that decides the image's content. Host files go in by content, so a host
# package upgrade (e.g. libc) also triggers a rebuild.
inputs_hash() {
    {
        echo "kernel $kpkg=$KVER"
        sha256sum "${BASH_SOURCE[0]}" /bin/busybox
        (cd "$GUEST_SRC" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        (cd "$GUEST_SRC" && find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %a')
        [ ${#GUEST_BINS[@]} -eq 0 ] || sha256sum "${GUEST_BINS[@]}" "${BIN_LIBS[@]}"
        [ ${#GUEST_FILES[@]} -eq 0 ] || sha256sum "${GUEST_FILES[@]}"
        printf 'module %s\n' "${MODS[@]}"
    } | sha256sum | cut -d' ' -f1
}
HASH=$(inputs_hash)
IMG=$OUT/initramfs.cpio.gz
STAMP=$OUT/initramfs.stamp

if [ -f "$IMG" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$HASH" ]; then
    log "initramfs: up to date ($(du -h "$IMG" | cut -f1))"
else
    t=$(now)
    log "building initramfs (inputs changed)"
    ROOT=$OUT/initramfs-root
    rm -rf "$ROOT"
    mkdir -p "$ROOT"/{proc,sys,dev,tmp,run,etc,roles,usr/bin,usr/sbin,usr/lib,usr/lib64}
    chmod 1777 "$ROOT/tmp"
    # Merged /usr like the host, so host library paths (/lib/..., /lib64/...) resolve.
    ln -s usr/lib "$ROOT/lib"
    ln -s usr/lib64 "$ROOT/lib64"
    # The kernel opens /dev/console before /init runs; without the node the init's first
    # output is lost (init re-opens it from devtmpfs anyway). mknod needs root.
    mknod -m 600 "$ROOT/dev/console" c 5 1 2>/dev/null ||
        log "note: not root, no /dev/console node in the image (init copes)"

    # busybox and its applets (absolute symlinks; later copies of real tools replace them).
    mkdir -p "$ROOT/bin" "$ROOT/sbin"
    cp /bin/busybox "$ROOT/bin/busybox"
    busybox --list-full | while read -r applet; do
        [ "$applet" = bin/busybox ] && continue
        mkdir -p "$ROOT/$(dirname "$applet")"
        ln -sf /bin/busybox "$ROOT/$applet"
    done
    [ -e "$ROOT/bin/sh" ] || die "busybox provides no bin/sh applet"

    # Host binaries go to their own path; libraries to their canonical (merged-usr) dir
    # under the name ldd printed (the soname), dereferencing symlinks.
    for f in "${GUEST_BINS[@]}" "${GUEST_FILES[@]}"; do
        mkdir -p "$ROOT$(dirname "$f")"
        rm -f "$ROOT$f"
        cp -L "$f" "$ROOT$f"
    done
    for f in "${BIN_LIBS[@]}"; do
        d=$(realpath "$(dirname "$f")")
        mkdir -p "$ROOT$d"
        cp -L "$f" "$ROOT$d/$(basename "$f")"
    done
    if [ ${#MODS[@]} -gt 0 ]; then
        for m in "${MODS[@]}"; do
            mkdir -p "$ROOT/$(dirname "$m")"
            cp "$KDIR/$m" "$ROOT/$m"
        done
        cp "$KDIR/lib/modules/$KREL"/modules.{order,builtin,builtin.modinfo} \
            "$ROOT/lib/modules/$KREL/" 2>/dev/null || true
        depmod -b "$ROOT" "$KREL" || die "depmod on the initramfs modules failed"
    fi

    install -m 755 "$GUEST_SRC/init" "$ROOT/init"
    if [ -d "$GUEST_SRC/roles" ]; then
        cp -r "$GUEST_SRC/roles/." "$ROOT/roles/"
        chmod -R a+rX "$ROOT/roles"
    fi
    echo "$KREL" > "$ROOT/etc/snic-kernel-release"

    # Sorted, root-owned, no timestamps in gzip: same inputs give the same bytes modulo mtimes.
    (cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
        cpio --null --quiet -o -H newc --reproducible -R 0:0 | gzip -n -6 > "$IMG.tmp") ||
        die "cpio/gzip failed writing $IMG.tmp"
    mv "$IMG.tmp" "$IMG"
    echo "$HASH" > "$STAMP"
    log "initramfs ready: $IMG ($(du -h "$IMG" | cut -f1), $(find "$ROOT" | wc -l) entries) in $(since "$t")"
fi

log "done in $(since "$T0"): $OUT/vmlinuz ($KREL), $IMG"
