#!/usr/bin/env bash
# Build the developer overlay of the guest image, for interactive guests (scripts/vm.sh).
#
#   scripts/guest-devtools.sh [--out DIR]      (default DIR: <repo>/.cache/guest)
#
# Writes DIR/devtools.cpio.gz. scripts/vm.sh boots DIR/initramfs.cpio.gz (the test image of
# scripts/guest-image.sh) with this archive appended: the kernel unpacks concatenated archives
# in order. The test VMs of the suite boot without it, so it costs them nothing. It holds:
#   * bash, the interactive shell (busybox sh runs its own applets before searching PATH, so
#     `ip` there is busybox's, not iproute2's), with /lib/terminfo for readline
#   * gdb (Debian's gdb-minimal: no Python, a third of gdb's size; apt-get download + dpkg -x
#     into DIR/devtools/, never installed on the host), strace and ethtool
#   * the 9p file system and its virtio transport from the guest kernel (insmod order in
#     /etc/snic-dev/modules: the test image's modules.dep does not know them)
#   * scripts/guest-dev/: the role "shell" (/roles/shell.sh), snic-reload, the shell's bashrc
# The libraries of the programs are the host's (same Debian release). Idempotent: rebuilt
# only when an input changes. Needs scripts/guest-image.sh to have run (the guest kernel).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT=$REPO/.cache/guest
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

SRC=$REPO/scripts/guest-dev
HOST_BINS=(/bin/bash /usr/bin/strace /usr/sbin/ethtool)
MODULES=(virtio_pci 9pnet_virtio 9p)
for f in "${HOST_BINS[@]}"; do
    [ -x "$f" ] || die "$f missing: install $(dpkg -S "$f" 2>/dev/null | cut -d: -f1 || echo its package) (scripts/setup-deps.sh)"
done
KREL=$(cat "$OUT/kernel.release" 2>/dev/null) ||
    die "$OUT/kernel.release missing: run scripts/guest-image.sh first"
KDIR=$OUT/kernel/$KREL
[ -f "$KDIR/lib/modules/$KREL/modules.dep" ] ||
    die "$KDIR has no modules.dep: run scripts/guest-image.sh first"

mkdir -p "$OUT"
exec 9>"$OUT/.devtools.lock"
flock -w "$lock_timeout" 9 || die "another guest-devtools.sh held $OUT/.devtools.lock for ${lock_timeout}s"

# gdb-minimal, the version apt offers, unpacked once per version.
GDB_DIR=$OUT/devtools/gdb-minimal
gver=$(apt-cache show --no-all-versions gdb-minimal 2>/dev/null | awk '/^Version:/ { print $2; exit }')
[ -n "$gver" ] || die "apt knows no gdb-minimal; run scripts/setup-deps.sh (it runs apt-get update)"
if [ "$(cat "$GDB_DIR/.complete" 2>/dev/null)" != "$gver" ]; then
    log "fetching gdb-minimal $gver with apt-get download (for the guest; not installed here)"
    rm -rf "$GDB_DIR" "$GDB_DIR.tmp"
    mkdir -p "$GDB_DIR.tmp/deb"
    sandbox=()
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    (cd "$GDB_DIR.tmp/deb" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "gdb-minimal=$gver") ||
        die "apt-get download gdb-minimal=$gver failed (or took over ${apt_timeout}s)"
    dpkg-deb -x "$GDB_DIR.tmp"/deb/gdb-minimal_*.deb "$GDB_DIR.tmp/root" || die "dpkg-deb -x of gdb-minimal failed"
    [ -x "$GDB_DIR.tmp/root/usr/bin/gdb" ] || die "gdb-minimal $gver has no usr/bin/gdb"
    mv "$GDB_DIR.tmp" "$GDB_DIR"
    echo "$gver" > "$GDB_DIR/.complete"
fi
GDB=$GDB_DIR/root/usr/bin/gdb

# Module files in load order, as paths inside the guest.
mods=$(for m in "${MODULES[@]}"; do
           modprobe -d "$KDIR" -S "$KREL" --show-depends "$m" || die "module $m not in $KREL"
       done | awk '$1 == "insmod" { print $2 }' | sed "s|^$KDIR||" | awk '!seen[$0]++')

libs=$(ldd "${HOST_BINS[@]}" "$GDB" 2>&1) || true
if grep -q 'not found' <<<"$libs"; then
    die "libraries of the guest tools missing on the host (install gdb, scripts/setup-deps.sh):
$(grep 'not found' <<<"$libs")"
fi
libs=$(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' <<<"$libs" | sort -u)

hash=$( {
    sha256sum "${BASH_SOURCE[0]}" "${HOST_BINS[@]}" "$GDB"
    (cd "$SRC" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    # shellcheck disable=SC2086  # one file per line
    sha256sum $libs
    echo "$mods"
    (cd /lib/terminfo && find . -type f | LC_ALL=C sort)
} | sha256sum | cut -d' ' -f1)
IMG=$OUT/devtools.cpio.gz
if [ -f "$IMG" ] && [ "$(cat "$OUT/devtools.stamp" 2>/dev/null)" = "$hash" ]; then
    log "developer overlay: up to date ($(du -h "$IMG" | cut -f1))"
    exit 0
fi

ROOT=$OUT/devtools/root
rm -rf "$ROOT"
mkdir -p "$ROOT"/{usr/bin,usr/lib,usr/local/sbin,etc/snic-dev,roles}
for f in "${HOST_BINS[@]}"; do
    mkdir -p "$ROOT$(dirname "$f")"
    cp -L "$f" "$ROOT$f"
done
cp "$GDB" "$ROOT/usr/bin/gdb"
# Libraries under their canonical (merged-usr) path, as scripts/guest-image.sh stores them:
# realpath turns /lib/... into /usr/lib/....
for f in $libs; do
    r=$(realpath "$f")
    d=$(realpath "$(dirname "$f")")
    mkdir -p "$ROOT$(dirname "$r")" "$ROOT$d"
    [ -e "$ROOT$r" ] || cp "$r" "$ROOT$r"
    [ "$r" = "$d/$(basename "$f")" ] || ln -sfn "$r" "$ROOT$d/$(basename "$f")"
done
# /lib is the image's symlink to usr/lib: an archive entry "lib" would replace it.
cp -a /lib/terminfo "$ROOT/usr/lib/terminfo"
for m in $mods; do
    mkdir -p "$ROOT/usr$(dirname "$m")"
    cp "$KDIR$m" "$ROOT/usr$m"
done
echo "$mods" > "$ROOT/etc/snic-dev/modules"
install -m 755 "$SRC/shell.sh" "$ROOT/roles/shell.sh"
install -m 755 "$SRC/snic-reload" "$ROOT/usr/local/sbin/snic-reload"
install -m 644 "$SRC/bashrc" "$ROOT/etc/snic-dev/bashrc"
# A user name for the prompt and for programs that look root up.
echo 'root:x:0:0:root:/root:/bin/bash' > "$ROOT/etc/passwd"
echo 'root:x:0:' > "$ROOT/etc/group"
mkdir -p "$ROOT/root"

(cd "$ROOT" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
    cpio --null --quiet -o -H newc --reproducible -R 0:0 | gzip -n -6 > "$IMG.tmp") ||
    die "cpio/gzip failed writing $IMG.tmp"
mv "$IMG.tmp" "$IMG"
echo "$hash" > "$OUT/devtools.stamp"
log "developer overlay ready: $IMG ($(du -h "$IMG" | cut -f1): bash, gdb $gver, strace, ethtool, 9p, snic-reload)"
