#!/usr/bin/env bash
# Build the snic guest: Debian 12's kernel (vmlinuz) and a busybox initramfs.
#
#   scripts/guest-image.sh [--out DIR] [--kernel-only]   (default DIR: <repo>/.cache/guest)
#   --kernel-only: fetch the kernel only (the module build needs its release first)
#
# Outputs DIR/vmlinuz, DIR/initramfs.cpio.gz and DIR/kernel.release (uname -r of the guest).
# The kernel is taken from Debian's archive with `apt-get download` + `dpkg -x` (nothing is
# installed into the host); guest userspace is copied from the host, which runs the same
# Debian release. Idempotent: the kernel is fetched again only when the archive's
# linux-image-amd64 moves on, the initramfs is rebuilt only when its inputs change.
#
# Our guest driver goes in when it has been built: SNIC_GUEST_DRIVER_DIR (default
# <repo>/build/guest-driver) /snic.ko -> lib/modules/KREL/extra/snic.ko, and
# /libsnic-rdmav34.so (+ /snic.driver) -> the libibverbs provider dir (+ /etc/libibverbs.d),
# and libsnic.so.1 a link to it (snicdv programs).
# Their contents are part of the inputs hash: a rebuilt module rebuilds the image.
#
# Our test programs (tests/vm/*.c, e.g. verbs-check) are built on the host by
# scripts/build-guest-tools.sh (called here; a no-op when up to date) into
# <repo>/build/guest-tools and go into the guest's /usr/local/bin (an LD_PRELOAD library,
# *.so, into /usr/local/lib), hashed by content too.
#
# To add guest content, extend GUEST_BINS / GUEST_LIBS / GUEST_FILES / GUEST_MODULES below.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GUEST_SRC=$REPO/scripts/guest
DRV_DIR=${SNIC_GUEST_DRIVER_DIR:-$REPO/build/guest-driver}
MULTIARCH=x86_64-linux-gnu

# Host ELF executables copied to the same path in the guest, with their ldd closure. A real
# tool replaces busybox's applet of the same name. The perftest ib_* tools are added below.
GUEST_BINS=(
    /usr/bin/lspci          # busybox has no lspci
    # rdma-core (ibverbs-utils, rdmacm-utils)
    /usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong /usr/bin/ibv_ud_pingpong
    /usr/bin/ibv_srq_pingpong /usr/bin/ibv_uc_pingpong /usr/bin/ibv_asyncwatch
    /usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy
    # iproute2: `rdma` (link add/show, statistic) and a full `ip`
    /usr/bin/rdma /usr/bin/ip
    /usr/bin/ping           # iputils: see scripts/guest/roles/lib.sh
)
# Host shared objects that are dlopened (ldd of the binaries does not show them): copied to
# their canonical path, with their own ldd closure. The libibverbs providers come below.
GUEST_LIBS=(
    "/usr/lib/$MULTIARCH/libgcc_s.so.1"   # glibc dlopens it for pthread_exit (rping aborts without)
)
# Host data files copied verbatim to the same path in the guest (+ /etc/libibverbs.d below).
GUEST_FILES=(
    /usr/share/misc/pci.ids
)
# Kernel modules (names) copied with their dependencies from the guest kernel; depmod runs
# on the result. Nothing autoloads in the guest: roles modprobe what they use.
GUEST_MODULES=(
    configfs ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm     # RDMA core (snic and rxe)
    crc32_generic udp_tunnel ip6_udp_tunnel rdma_rxe             # rxe (crc32_generic: no dep)
    virtio_pci virtio_net                                        # the rxe peers' NIC
)

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

OUT=$REPO/.cache/guest
KERNEL_ONLY=
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
        --out=*) OUT=${1#--out=}; shift ;;
        --kernel-only) KERNEL_ONLY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

T0=$(now)
for tool in apt-cache apt-get dpkg dpkg-deb cpio gzip ldd busybox depmod modprobe modinfo flock sha256sum; do
    command -v "$tool" >/dev/null || die "'$tool' not found; run scripts/setup-deps.sh (as root) first"
done
# The guest has no libc for busybox: it must be the static build.
[ -x /bin/busybox ] || die "/bin/busybox missing; install busybox-static (scripts/setup-deps.sh)"
case $(ldd /bin/busybox 2>&1 || true) in
    *"not a dynamic executable"*|*"statically linked"*) ;;
    *) die "/bin/busybox is dynamically linked; install busybox-static (scripts/setup-deps.sh)" ;;
esac
# perftest's tools (ib_write_bw, ...), all of them: they link libmlx5/libefa directly.
mapfile -t perftest_bins < <(dpkg -L perftest 2>/dev/null | grep -E '^/usr/bin/ib_[a-z_]+$' | LC_ALL=C sort)
[ ${#perftest_bins[@]} -gt 0 ] || die "perftest's /usr/bin/ib_* not found; install perftest (scripts/setup-deps.sh)"
GUEST_BINS+=("${perftest_bins[@]}")
# Every libibverbs provider and its .driver file, so rxe (and later snic) find theirs.
shopt -s nullglob
GUEST_LIBS+=("/usr/lib/$MULTIARCH/libibverbs/"*-rdmav34.so)
GUEST_FILES+=(/etc/libibverbs.d/*.driver)
shopt -u nullglob
{ [ -e "/usr/lib/$MULTIARCH/libibverbs/librxe-rdmav34.so" ] && [ -e /etc/libibverbs.d/rxe.driver ]; } ||
    die "the rxe provider is missing on the host; install ibverbs-providers (scripts/setup-deps.sh)"
for f in "${GUEST_BINS[@]}" "${GUEST_LIBS[@]}" "${GUEST_FILES[@]}"; do
    [ -e "$f" ] || die "$f missing on the host (package: $(dpkg -S "$f" 2>/dev/null | cut -d: -f1 || true)); run scripts/setup-deps.sh"
done
[ -f "$GUEST_SRC/init" ] || die "$GUEST_SRC/init not found (broken checkout?)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# Serialise concurrent builders (e.g. two VMs started at once, each calling this script).
exec 9>"$OUT/.lock"
flock -n 9 || { log "waiting for another guest-image.sh run on $OUT"; flock -w "$lock_timeout" 9 ||
    die "another guest-image.sh run held $OUT/.lock for ${lock_timeout}s"; }

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
        (cd "$OUT/debs" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "$kpkg=$KVER") ||
            die "apt-get download $kpkg=$KVER failed (or took over ${apt_timeout}s); check the archive is reachable and run 'apt-get update' (scripts/setup-deps.sh)"
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

if [ -n "$KERNEL_ONLY" ]; then
    log "done (--kernel-only) in $(since "$T0"): $OUT/vmlinuz ($KREL)"
    exit 0
fi

# --- Initramfs --------------------------------------------------------------------------
# Shared-library closure of host ELF files, as absolute host paths (ELF loader included).
# libsnic.so.1 (snicdv programs) resolves to the provider snapshot and is left out: the
# image installs it itself (see SNIC_PROV).
lib_closure() {
    local out
    out=$(LD_LIBRARY_PATH=$SNAP/soname ldd "$@" 2>&1) || true
    if grep -q 'not found' <<<"$out"; then
        die "missing shared libraries for $*:
$(grep 'not found' <<<"$out")"
    fi
    # With several files ldd prints a "FILE:" header line before each closure.
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' <<<"$out" |
        awk -v snap="$SNAP/" 'index($0, snap) != 1' | sort -u
}

# Module files (relative to $KDIR) for GUEST_MODULES, dependencies first.
module_closure() {
    local m
    for m in "$@"; do
        modprobe -d "$KDIR" -S "$KREL" --show-depends "$m" ||
            die "module $m not found in $KREL (see $KDIR/lib/modules/$KREL)"
    done | awk '$1 == "insmod" { print $2 }' | sed "s|^$KDIR/||" | awk '!seen[$0]++'
}

# --- Our guest driver (optional: included once built) ------------------------------------
SNIC_KO='' SNIC_PROV='' SNIC_DRIVER_TEXT=''
# Work on a snapshot: the driver may be rebuilt while we run, and the hash must describe
# exactly the bytes that go into the image.
SNAP=$OUT/guest-driver-snapshot
rm -rf "$SNAP"
mkdir -p "$SNAP"
for f in snic.ko libsnic-rdmav34.so snic.driver; do
    if [ -f "$DRV_DIR/$f" ]; then cp "$DRV_DIR/$f" "$SNAP/$f"; fi
done
if [ -f "$SNAP/snic.ko" ]; then
    SNIC_KO=$SNAP/snic.ko
    vermagic=$(modinfo -F vermagic "$SNIC_KO" 2>/dev/null) || die "modinfo cannot read $SNIC_KO"
    case $vermagic in
        "$KREL "*) ;;
        *) log "WARNING: $SNIC_KO has vermagic '$vermagic', the guest kernel is $KREL: modprobe snic will fail (rebuild with scripts/build-guest-driver.sh)" ;;
    esac
    # Its dependencies (ib_core, ib_uverbs, ...) come from the guest kernel like the rest.
    IFS=, read -r -a snic_deps <<<"$(modinfo -F depends "$SNIC_KO")"
    GUEST_MODULES+=("${snic_deps[@]}")
    stale_check "$DRV_DIR/snic.ko" || true
    log "guest driver: including $DRV_DIR/snic.ko (vermagic '$vermagic', depends '$(IFS=,; echo "${snic_deps[*]}")', sha256 $(sha256sum "$SNIC_KO" | cut -c1-12)) as lib/modules/$KREL/extra/snic.ko"
else
    log "guest driver: no $DRV_DIR/snic.ko: the image has no snic module"
fi
if [ -f "$SNAP/libsnic-rdmav34.so" ]; then
    SNIC_PROV=$SNAP/libsnic-rdmav34.so
    mkdir -p "$SNAP/soname"
    ln -sfn ../libsnic-rdmav34.so "$SNAP/soname/libsnic.so.1"
    # libibverbs loads lib<NAME>-rdmav34.so for each "driver NAME" line in etc/libibverbs.d.
    SNIC_DRIVER_TEXT="driver snic"
    if [ -f "$SNAP/snic.driver" ]; then SNIC_DRIVER_TEXT=$(cat "$SNAP/snic.driver"); fi
    stale_check "$DRV_DIR/libsnic-rdmav34.so" || true
    log "guest driver: including provider $DRV_DIR/libsnic-rdmav34.so (sha256 $(sha256sum "$SNIC_PROV" | cut -c1-12)) as usr/lib/$MULTIARCH/libibverbs/libsnic-rdmav34.so + etc/libibverbs.d/snic.driver"
else
    log "guest driver: no $DRV_DIR/libsnic-rdmav34.so: the image has no snic provider"
fi

# --- Our test programs: built here (cheap when up to date), then snapshotted like the driver.
TOOLS_DIR=$REPO/build/guest-tools
"$REPO/scripts/build-guest-tools.sh" --out "$TOOLS_DIR" | sed 's/^/guest-image: /' ||
    die "building the guest test programs failed (scripts/build-guest-tools.sh, see above)"
TOOLS_SNAP=$OUT/guest-tools-snapshot
rm -rf "$TOOLS_SNAP"
mkdir -p "$TOOLS_SNAP"
GUEST_TOOLS=()
for f in "$TOOLS_DIR"/*; do
    case $f in *.stamp|*.tmp) continue ;; esac
    { [ -f "$f" ] && [ -x "$f" ]; } || continue
    cp "$f" "$TOOLS_SNAP/"
    GUEST_TOOLS+=("$TOOLS_SNAP/$(basename "$f")")
done
log "guest tools: ${#GUEST_TOOLS[@]} program(s) from $TOOLS_DIR -> /usr/local/bin (libraries: /usr/local/lib):$(for f in "${GUEST_TOOLS[@]}"; do printf ' %s' "$(basename "$f")"; done)"

# Command substitutions (not process substitutions), so that a `die` inside stops us.
BIN_LIBS=()
closure=$(lib_closure "${GUEST_BINS[@]}" "${GUEST_LIBS[@]}" ${SNIC_PROV:+"$SNIC_PROV"} ${GUEST_TOOLS[@]+"${GUEST_TOOLS[@]}"})
mapfile -t BIN_LIBS <<<"$closure"
MODS=()
if [ ${#GUEST_MODULES[@]} -gt 0 ]; then
    # modprobe needs modules.dep in the extracted tree; the .deb ships none.
    [ -f "$KDIR/lib/modules/$KREL/modules.dep" ] || depmod -b "$KDIR" "$KREL"
    mods=$(module_closure "${GUEST_MODULES[@]}")
    mapfile -t MODS <<<"$mods"
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
        [ ${#GUEST_LIBS[@]} -eq 0 ] || sha256sum "${GUEST_LIBS[@]}"
        [ ${#GUEST_FILES[@]} -eq 0 ] || sha256sum "${GUEST_FILES[@]}"
        printf 'module %s\n' "${MODS[@]}"
        # Our driver by content only (SNIC_GUEST_DRIVER_DIR may point anywhere).
        if [ -n "$SNIC_KO" ]; then echo "snic.ko $(sha256sum < "$SNIC_KO")"; fi
        if [ -n "$SNIC_PROV" ]; then
            echo "provider $(sha256sum < "$SNIC_PROV") $SNIC_DRIVER_TEXT"
        fi
        for f in ${GUEST_TOOLS[@]+"${GUEST_TOOLS[@]}"}; do
            echo "tool $(basename "$f") $(sha256sum < "$f")"
        done
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
    # A real tool shadows busybox's applet of the same name wherever the applet lives (for
    # exec from other programs: busybox sh itself runs its applets first, so roles call
    # iproute2's ip by path, see roles/lib.sh).
    for f in "${GUEST_BINS[@]}"; do
        for d in bin sbin usr/bin usr/sbin; do
            a=$ROOT/$d/$(basename "$f")
            if [ -L "$a" ] && [ "$(readlink "$a")" = /bin/busybox ]; then ln -sfn "$f" "$a"; fi
        done
    done
    # Libraries keep the host's symlinks (soname or provider name -> real file), so a file
    # reached by two names (libmlx5.so.1 and libibverbs/libmlx5-rdmav34.so) is stored once.
    for f in "${GUEST_LIBS[@]}" "${BIN_LIBS[@]}"; do
        d=$(realpath "$(dirname "$f")")
        r=$(realpath "$f")
        mkdir -p "$ROOT$d" "$ROOT$(dirname "$r")"
        [ -e "$ROOT$r" ] || cp "$r" "$ROOT$r"
        [ "$r" = "$d/$(basename "$f")" ] || ln -sfn "$r" "$ROOT$d/$(basename "$f")"
    done
    for f in ${GUEST_TOOLS[@]+"${GUEST_TOOLS[@]}"}; do
        case $f in
            *.so) install -D -m 755 "$f" "$ROOT/usr/local/lib/$(basename "$f")" ;;
            *) install -D -m 755 "$f" "$ROOT/usr/local/bin/$(basename "$f")" ;;
        esac
    done
    if [ -n "$SNIC_PROV" ]; then
        install -D -m 644 "$SNIC_PROV" "$ROOT/usr/lib/$MULTIARCH/libibverbs/libsnic-rdmav34.so"
        # Its SONAME, for programs using the snicdv direct verbs: a link, so that
        # they and libibverbs load one library (one inode), as with libmlx5.so.1.
        ln -sfn libibverbs/libsnic-rdmav34.so "$ROOT/usr/lib/$MULTIARCH/libsnic.so.1"
        mkdir -p "$ROOT/etc/libibverbs.d"
        printf '%s\n' "$SNIC_DRIVER_TEXT" > "$ROOT/etc/libibverbs.d/snic.driver"
    fi
    if [ ${#MODS[@]} -gt 0 ]; then
        for m in "${MODS[@]}"; do
            mkdir -p "$ROOT/$(dirname "$m")"
            cp "$KDIR/$m" "$ROOT/$m"
        done
        cp "$KDIR/lib/modules/$KREL"/modules.{order,builtin,builtin.modinfo} \
            "$ROOT/lib/modules/$KREL/" 2>/dev/null || true
        # Before depmod, so that `modprobe snic` resolves it and its dependencies.
        # Without its debug info (kbuild keeps it: ~2.5 MB); the symbol table stays.
        if [ -n "$SNIC_KO" ]; then
            mkdir -p "$ROOT/lib/modules/$KREL/extra"
            objcopy --strip-debug "$SNIC_KO" "$ROOT/lib/modules/$KREL/extra/snic.ko" 2>/dev/null ||
                cp "$SNIC_KO" "$ROOT/lib/modules/$KREL/extra/snic.ko"
        fi
        depmod -b "$ROOT" "$KREL" || die "depmod on the initramfs modules failed"
        if [ -n "$SNIC_KO" ]; then
            modprobe -d "$ROOT" -S "$KREL" --show-depends snic >/dev/null ||
                die "depmod did not resolve snic.ko in the image (missing dependency?)"
        fi
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
    log "initramfs ready: $IMG ($(du -h "$IMG" | cut -f1), $(du -sh "$ROOT" | cut -f1) unpacked, $(find "$ROOT" | wc -l) entries, ${#MODS[@]} modules${SNIC_KO:+ + snic.ko}${SNIC_PROV:+ + libsnic}) in $(since "$t")"
fi

# --- rdma-core's Python tests: a second initramfs for the suite's VM only -------
# python3 (the host's interpreter and a pruned stdlib), Debian's python3-pyverbs of the
# guest's rdma-core version and the tests it ships in /usr/share/doc/rdma-core/tests (the
# .gz ones unpacked, everything byte-compiled here) go into an extra cpio. The kernel
# unpacks concatenated archives in order, so IMG_TESTS = IMG + that cpio: only the VM that
# runs the suite (vm-run.sh --initrd initramfs-rdma-core-tests.cpio.gz) pays for python.
# A failure here leaves IMG_TESTS missing (the suite's VM test reports it) and the rest of
# the image usable.
IMG_TESTS=$OUT/initramfs-rdma-core-tests.cpio.gz
PY_CPIO=$OUT/rdma-core-tests.cpio.gz
PY_STAMP=$OUT/rdma-core-tests.stamp
PYBIN=/usr/bin/python3.11
PYLIB=/usr/lib/python3.11
# Stdlib parts nothing in the tests imports (and the big ones: config-* is 25 MB).
PY_EXCLUDE=(config-3.11-"$MULTIARCH" test idlelib tkinter turtledemo lib2to3 pydoc_data
            ensurepip distutils site-packages dist-packages '*.opt-1.pyc' '*.opt-2.pyc'
            # extension modules for tests of CPython itself or pulling in big libraries
            # (OpenSSL, sqlite, ncurses, readline, NIS): none is imported by the tests
            'lib-dynload/_test*' 'lib-dynload/xx*' 'lib-dynload/_xx*' 'lib-dynload/_ctypes_test*'
            'lib-dynload/_ssl.*' 'lib-dynload/_hashlib.*' 'lib-dynload/_sqlite3.*'
            'lib-dynload/_curses*' 'lib-dynload/readline.*' 'lib-dynload/_dbm.*'
            'lib-dynload/nis.*')
rdma_core_tests_image() {
    local ver pv_deb pv_dir sandbox=() t root f x d r closure hash base_libs=() libs=() dynload=()
    if [ ! -x "$PYBIN" ] || [ ! -f "$PYLIB/os.py" ] || [ ! -f "/usr/lib/$MULTIARCH/libpython3.11.so.1.0" ]; then
        log "WARNING: $PYBIN, its stdlib or libpython3.11 missing on the host (scripts/setup-deps.sh installs them): no $IMG_TESTS"
        return 1
    fi
    # pyverbs of exactly the guest's rdma-core (the guest's libibverbs is the host's).
    ver=$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null) || ver=
    [ -n "$ver" ] || { log "WARNING: libibverbs1 is not installed on the host: no $IMG_TESTS"; return 1; }
    mkdir -p "$OUT/debs"
    pv_deb=$OUT/debs/python3-pyverbs_${ver#*:}_amd64.deb
    if [ ! -f "$pv_deb" ]; then
        find "$OUT/debs" -maxdepth 1 -name 'python3-pyverbs_*.deb' -delete
        log "downloading python3-pyverbs=$ver with apt-get download"
        [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
        (cd "$OUT/debs" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "python3-pyverbs=$ver") || {
            log "WARNING: apt-get download python3-pyverbs=$ver failed: no $IMG_TESTS"; return 1; }
        [ -f "$pv_deb" ] || { log "WARNING: apt-get download left no $pv_deb: no $IMG_TESTS"; return 1; }
    fi
    pv_dir=$OUT/pyverbs/$ver
    if [ "$(cat "$pv_dir/.complete" 2>/dev/null)" != "$ver" ]; then
        rm -rf "$OUT/pyverbs"
        mkdir -p "$pv_dir.tmp"
        dpkg -x "$pv_deb" "$pv_dir.tmp" || { log "WARNING: dpkg -x $pv_deb failed: no $IMG_TESTS"; return 1; }
        [ -f "$pv_dir.tmp/usr/share/doc/rdma-core/tests/run_tests.py" ] ||
            { log "WARNING: $pv_deb has no usr/share/doc/rdma-core/tests/run_tests.py: no $IMG_TESTS"; return 1; }
        mv "$pv_dir.tmp" "$pv_dir"
        echo "$ver" > "$pv_dir/.complete"
    fi
    # The extension modules that go in, and the shared libraries they (and python3.11,
    # pyverbs) need that the base image does not already hold.
    for f in "$PYLIB"/lib-dynload/*.so; do
        for x in "${PY_EXCLUDE[@]}"; do
            # shellcheck disable=SC2254  # the patterns are globs
            case lib-dynload/${f##*/} in $x) continue 2 ;; esac
        done
        dynload+=("$f")
    done
    closure=$(lib_closure "$PYBIN" "${dynload[@]}" "$pv_dir"/usr/lib/python3/dist-packages/pyverbs/*.so \
        "$pv_dir"/usr/lib/python3/dist-packages/pyverbs/providers/*/*.so) || return 1
    for f in "${GUEST_LIBS[@]}" "${BIN_LIBS[@]}"; do base_libs+=("$(realpath "$f")"); done
    while read -r f; do
        [ -n "$f" ] || continue
        case " ${base_libs[*]} " in *" $(realpath "$f") "*) continue ;; esac
        libs+=("$f")
    done <<<"$closure"
    hash=$({
        echo "base $HASH"
        echo "pyverbs $ver $(sha256sum < "$pv_deb")"
        printf 'exclude %s\n' "${PY_EXCLUDE[@]}"
        sha256sum "$PYBIN" "${dynload[@]}" ${libs[@]+"${libs[@]}"}
        # The stdlib by name, size and time (its .pyc files check their sources by time).
        (cd "$PYLIB" && find . -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %s %Y')
    } | sha256sum | cut -d' ' -f1)
    if [ -f "$IMG_TESTS" ] && [ "$(cat "$PY_STAMP" 2>/dev/null)" = "$hash" ]; then
        log "rdma-core tests initramfs: up to date ($(du -h "$IMG_TESTS" | cut -f1))"
        return 0
    fi
    t=$(now)
    root=$OUT/rdma-core-tests-root
    rm -rf "$root"
    mkdir -p "$root/usr/bin" "$root/usr/lib/python3/dist-packages" "$root/usr/share/doc/rdma-core"
    cp -p "$PYBIN" "$root/usr/bin/python3.11"
    ln -s python3.11 "$root/usr/bin/python3"
    # tar keeps the stdlib's mtimes, which its (timestamp-checked) .pyc files compare.
    tar -C /usr/lib "${PY_EXCLUDE[@]/#/--exclude=python3.11/}" -cf - python3.11 | tar -C "$root/usr/lib" -xf - ||
        { log "WARNING: copying $PYLIB failed: no $IMG_TESTS"; return 1; }
    for f in ${libs[@]+"${libs[@]}"}; do
        d=$(realpath "$(dirname "$f")")
        r=$(realpath "$f")
        mkdir -p "$root$d" "$root$(dirname "$r")"
        [ -e "$root$r" ] || cp "$r" "$root$r"
        [ "$r" = "$d/$(basename "$f")" ] || ln -sfn "$r" "$root$d/$(basename "$f")"
    done
    cp -a "$pv_dir/usr/lib/python3/dist-packages/pyverbs" "$root/usr/lib/python3/dist-packages/"
    cp -a "$pv_dir/usr/share/doc/rdma-core/tests" "$root/usr/share/doc/rdma-core/"
    find "$root/usr/share/doc/rdma-core/tests" -name '*.gz' -exec gzip -d {} + ||
        { log "WARNING: gunzip of the tests failed: no $IMG_TESTS"; return 1; }
    # Byte-compile here (the guest would compile at every boot): hash-based .pyc files that
    # are never checked against their sources, with the guest's paths in tracebacks.
    "$PYBIN" -m compileall -q -j 0 --invalidation-mode unchecked-hash -s "$root" -p / \
        "$root/usr/share/doc/rdma-core/tests" "$root/usr/lib/python3/dist-packages/pyverbs" >/dev/null ||
        { log "WARNING: compileall failed: no $IMG_TESTS"; return 1; }
    echo "$ver" > "$root/usr/share/doc/rdma-core/tests/.pyverbs-version"
    (cd "$root" && find . -print0 | LC_ALL=C sort -z |
        cpio --null --quiet -o -H newc --reproducible -R 0:0 | gzip -n -6 > "$PY_CPIO.tmp") ||
        { log "WARNING: cpio/gzip of $root failed: no $IMG_TESTS"; return 1; }
    mv "$PY_CPIO.tmp" "$PY_CPIO"
    cat "$IMG" "$PY_CPIO" > "$IMG_TESTS.tmp" && mv "$IMG_TESTS.tmp" "$IMG_TESTS"
    echo "$hash" > "$PY_STAMP"
    log "rdma-core tests initramfs ready: $IMG_TESTS ($(du -h "$IMG_TESTS" | cut -f1): the base image + $(du -h "$PY_CPIO" | cut -f1) for python3, python3-pyverbs $ver and $(find "$root/usr/share/doc/rdma-core/tests" -name '*.py' | wc -l) test files; $(du -sh "$root" | cut -f1) unpacked) in $(since "$t")"
}
rdma_core_tests_image || rm -f "$IMG_TESTS" "$PY_STAMP"

# --- The ULP image: the kernel's storage protocols and the HPC middleware -------------
# The same way, IMG_ULP = IMG + a cpio with NVMe over Fabrics (nvme-cli, the nvme-rdma host
# and nvmet-rdma target, brd for a ram-backed namespace), NFS over RDMA (nfsd, nfsv4,
# rpcrdma and the NFS tools) and the user-space middleware UCX and libfabric. Those would
# grow the default image by more than it is worth to every other VM (measured in
# docs/guest-stack.md); the pairs that run them boot this one (vm-pair.sh --initrd).
IMG_ULP=$OUT/initramfs-ulp.cpio.gz
ULP_CPIO=$OUT/ulp.cpio.gz
ULP_STAMP=$OUT/ulp.stamp
ULP_BINS=(
    /usr/sbin/nvme                                      # nvme-cli
    /usr/bin/dd             # coreutils: O_DIRECT I/O (busybox's dd has no oflag=direct)
    /usr/bin/ucx_info /usr/bin/ucx_perftest             # ucx-utils
    /usr/bin/fi_info /usr/bin/fi_pingpong               # libfabric-bin (providers built in)
)
# UCX loads its transports (uct_ib: rc_verbs, ud_verbs; uct_rdmacm; uct_cma) with dlopen.
ULP_LIBS=("/usr/lib/$MULTIARCH/ucx/libuct_ib.so.0" "/usr/lib/$MULTIARCH/ucx/libuct_rdmacm.so.0"
          "/usr/lib/$MULTIARCH/ucx/libuct_cma.so.0")
# rpc.nfsd and mount.nfs look ports and transports up in these.
ULP_FILES=(/etc/services /etc/netconfig)
ULP_MODULES=(nvme-fabrics nvme-rdma nvmet nvmet-rdma brd nfsd nfsv4 rpcrdma)
# The NFS tools come from Debian's nfs-kernel-server and nfs-common, downloaded and unpacked
# (apt-get download + dpkg -x): installing them would start an NFS server on the host.
# package:path of each tool in the package
NFS_TOOLS=(nfs-kernel-server:/usr/sbin/rpc.nfsd nfs-kernel-server:/usr/sbin/rpc.mountd
           nfs-kernel-server:/usr/sbin/exportfs nfs-common:/sbin/mount.nfs)

# The tree of Debian package PKG (candidate version) unpacked in $OUT/pkgs/PKG/VERSION, on
# stdout; downloaded once.
pkg_tree() {
    local pkg=$1 ver deb dir sandbox=()
    ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
    [ -n "$ver" ] || { log "WARNING: apt knows no $pkg (scripts/setup-deps.sh runs apt-get update)"; return 1; }
    dir=$OUT/pkgs/$pkg/$ver
    if [ "$(cat "$dir/.complete" 2>/dev/null)" != "$ver" ]; then
        mkdir -p "$OUT/debs"
        find "$OUT/debs" -maxdepth 1 -name "${pkg}_*.deb" -delete
        [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
        (cd "$OUT/debs" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "$pkg=$ver") >&2 ||
            { log "WARNING: apt-get download $pkg=$ver failed"; return 1; }
        deb=$(find "$OUT/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
        rm -rf "$OUT/pkgs/$pkg"
        mkdir -p "$dir.tmp"
        { [ -n "$deb" ] && dpkg -x "$deb" "$dir.tmp"; } || { log "WARNING: dpkg -x of $pkg failed"; return 1; }
        mv "$dir.tmp" "$dir"
        echo "$ver" > "$dir/.complete"
    fi
    echo "$dir"
}

ulp_image() {
    local t f x r d tree root deproot closure hash base_libs=() libs=() nfs=() mods new_mods=()
    for f in "${ULP_BINS[@]}" "${ULP_LIBS[@]}" "${ULP_FILES[@]}"; do
        [ -e "$f" ] || { log "WARNING: $f missing on the host (package: $(dpkg -S "$f" 2>/dev/null | cut -d: -f1 || true); scripts/setup-deps.sh installs it): no $IMG_ULP"; return 1; }
    done
    for x in "${NFS_TOOLS[@]}"; do
        tree=$(pkg_tree "${x%%:*}") || { log "WARNING: no ${x%%:*}: no $IMG_ULP"; return 1; }
        [ -x "$tree${x#*:}" ] || { log "WARNING: ${x%%:*} has no ${x#*:}: no $IMG_ULP"; return 1; }
        nfs+=("$tree${x#*:}")
    done
    closure=$(lib_closure "${ULP_BINS[@]}" "${ULP_LIBS[@]}" "${nfs[@]}") || return 1
    for f in "${GUEST_LIBS[@]}" "${BIN_LIBS[@]}"; do base_libs+=("$(realpath "$f")"); done
    while read -r f; do
        [ -n "$f" ] || continue
        case " ${base_libs[*]} " in *" $(realpath "$f") "*) continue ;; esac
        libs+=("$f")
    done <<<"$closure"
    mods=$(module_closure "${ULP_MODULES[@]}") || return 1
    while read -r f; do
        [ -n "$f" ] || continue
        case " ${MODS[*]} " in *" $f "*) continue ;; esac
        new_mods+=("$f")
    done <<<"$mods"
    hash=$({
        echo "base $HASH"
        sha256sum "${ULP_BINS[@]}" "${ULP_LIBS[@]}" "${ULP_FILES[@]}" "${nfs[@]}" ${libs[@]+"${libs[@]}"}
        printf 'module %s\n' "${new_mods[@]}"
    } | sha256sum | cut -d' ' -f1)
    if [ -f "$IMG_ULP" ] && [ "$(cat "$ULP_STAMP" 2>/dev/null)" = "$hash" ]; then
        log "ULP initramfs: up to date ($(du -h "$IMG_ULP" | cut -f1))"
        return 0
    fi
    t=$(now)
    root=$OUT/ulp-root
    rm -rf "$root"
    mkdir -p "$root/var/lib/nfs"
    for f in "${ULP_BINS[@]}" "${ULP_FILES[@]}"; do
        mkdir -p "$root$(dirname "$f")"
        cp -L "$f" "$root$f"
    done
    # libfabric's verbs provider resolves "localhost" for a passive endpoint (fi_info, a
    # server); the host's own /etc/hosts names the host, not the guest
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost\n' > "$root/etc/hosts"
    for x in "${NFS_TOOLS[@]}"; do
        f=${x#*:}
        mkdir -p "$root$(dirname "$f")"
        cp -L "$OUT/pkgs/${x%%:*}"/*/"${f#/}" "$root$f"
        # the packages' state directory: the export tables (etab, rmtab) and v4recovery,
        # where the server records its NFSv4 clients without a tracking daemon
        for d in "$OUT/pkgs/${x%%:*}"/*/var/lib/nfs; do
            [ ! -d "$d" ] || cp -a "$d/." "$root/var/lib/nfs/"
        done
    done
    for f in "${ULP_LIBS[@]}" ${libs[@]+"${libs[@]}"}; do
        d=$(realpath "$(dirname "$f")")
        r=$(realpath "$f")
        mkdir -p "$root$d" "$root$(dirname "$r")"
        [ -e "$root$r" ] || cp "$r" "$root$r"
        [ "$r" = "$d/$(basename "$f")" ] || ln -sfn "$r" "$root$d/$(basename "$f")"
    done
    # depmod over every module the VM will have (the base image's and these), so that the
    # index files this cpio puts over the base image's know them all; only the new modules
    # and the index files go into the cpio.
    deproot=$OUT/ulp-depmod
    rm -rf "$deproot"
    for f in "${MODS[@]}" "${new_mods[@]}"; do
        mkdir -p "$deproot/$(dirname "$f")"
        cp "$KDIR/$f" "$deproot/$f"
    done
    cp "$KDIR/lib/modules/$KREL"/modules.{order,builtin,builtin.modinfo} "$deproot/lib/modules/$KREL/" 2>/dev/null || true
    if [ -n "$SNIC_KO" ]; then
        mkdir -p "$deproot/lib/modules/$KREL/extra"
        cp "$SNIC_KO" "$deproot/lib/modules/$KREL/extra/snic.ko"
    fi
    depmod -b "$deproot" "$KREL" || { log "WARNING: depmod for the ULP modules failed: no $IMG_ULP"; return 1; }
    for f in "${new_mods[@]}"; do
        mkdir -p "$root/$(dirname "$f")"
        cp "$deproot/$f" "$root/$f"
    done
    cp "$deproot/lib/modules/$KREL"/modules.* "$root/lib/modules/$KREL/"
    rm -rf "$deproot"
    # Merged /usr: the base image's /lib is a link to usr/lib; the modules go under usr/lib
    # here rather than through a "lib" directory entry over that link.
    mkdir -p "$root/usr/lib"
    cp -a "$root/lib/." "$root/usr/lib/"
    rm -rf "${root:?}/lib"
    (cd "$root" && find . -print0 | LC_ALL=C sort -z |
        cpio --null --quiet -o -H newc --reproducible -R 0:0 | gzip -n -6 > "$ULP_CPIO.tmp") ||
        { log "WARNING: cpio/gzip of $root failed: no $IMG_ULP"; return 1; }
    mv "$ULP_CPIO.tmp" "$ULP_CPIO"
    cat "$IMG" "$ULP_CPIO" > "$IMG_ULP.tmp" && mv "$IMG_ULP.tmp" "$IMG_ULP"
    echo "$hash" > "$ULP_STAMP"
    log "ULP initramfs ready: $IMG_ULP ($(du -h "$IMG_ULP" | cut -f1): the base image + $(du -h "$ULP_CPIO" | cut -f1) ($(stat -c %s "$ULP_CPIO") bytes) for ${#ULP_BINS[@]} + ${#nfs[@]} tools, ${#libs[@]} libraries and ${#new_mods[@]} modules; $(du -sh "$root" | cut -f1) unpacked) in $(since "$t")"
}
ulp_image || rm -f "$IMG_ULP" "$ULP_STAMP"

log "done in $(since "$T0"): $OUT/vmlinuz ($KREL), $IMG${IMG_TESTS:+, $IMG_TESTS}${IMG_ULP:+, $IMG_ULP}"
