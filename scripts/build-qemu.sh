#!/usr/bin/env bash
# Build QEMU 10.0 (Debian's source) with the snic device overlaid.
#
#   scripts/build-qemu.sh            fetch once, configure once, ninja
#
# The QEMU source is fetched with apt into .cache/qemu/ and unpacked once;
# hw/snic, include/snic, qtest/* and qtest/libqos/* are symlinked into it
# (so editing a file here rebuilds only what changed); the build tree is
# build/qemu/, where Debian's SeaBIOS is linked into the data directory a
# QEMU run from the build tree searches. Outputs:
#   build/qemu/qemu-system-x86_64
#   build/qemu/tests/qtest/snic-test
#   build/qemu/tests/qtest/snic-iommu-test (snic behind intel-iommu)
#   build/qemu/tests/qtest/qos-test     (snic's qgraph test, on q35)
# Needs scripts/setup-deps.sh to have run (as root).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SNIC_CACHE:-$repo/.cache}/qemu
build=$repo/build/qemu
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
help_or_no_args "$@"

mkdir -p "$cache" "$build"
# Let ccache hit across clones in different directories (CI clones afresh).
export CCACHE_BASEDIR=$repo CCACHE_NOHASHDIR=1

# ---- 1. fetch the newest 1:10.0.* source Debian serves (10.0.13 today) ----
src=$(find "$cache" -maxdepth 1 -type d -name 'qemu-10.0.*' | sort -V | tail -n 1)
if [ -z "$src" ] || [ ! -f "$src/.snic-unpacked" ]; then
    command -v apt-cache >/dev/null || die "apt-cache not found: run on Debian 12"
    versions=$(apt-cache showsrc qemu 2>/dev/null | awk '/^Version: 1:10\.0\./ {print $2}' |
               sort -V -r | uniq)
    [ -n "$versions" ] || die "no qemu 1:10.0.* source in apt; run scripts/setup-deps.sh (as root) to add the trixie deb-src entry"
    got=
    for v in $versions; do
        log "fetching QEMU source $v"
        if (cd "$cache" && timeout "$apt_timeout" apt-get source --download-only -q "qemu=$v" >/dev/null 2>&1); then
            got=$v
            break
        fi
        log "qemu=$v is not downloadable from this mirror (within ${apt_timeout}s): taking the next older 10.0 source"
    done
    [ -n "$got" ] || die "none of these QEMU sources downloaded: $versions (archive changed? check 'apt-cache showsrc qemu')"
    up=${got#1:}; up=${up%%+*}
    tarball=$(find "$cache" -maxdepth 1 -name "qemu_${up}*.orig.tar.xz" | head -n 1)
    [ -n "$tarball" ] || die "downloaded qemu $got but found no orig tarball in $cache"
    log "using QEMU $got ($(basename "$tarball"))"
    rm -rf "$cache/qemu-$up"
    tar -C "$cache" -xf "$tarball"
    src=$cache/qemu-$up
    [ -x "$src/configure" ] || die "unpacked $tarball but $src/configure is missing"
    touch "$src/.snic-unpacked"
fi

# ---- 2. overlay: symlinks + the minimal build-system lines (idempotent) ----
link() {    # link TARGET LINKNAME
    if [ "$(readlink "$2" 2>/dev/null)" != "$1" ]; then
        rm -rf "$2"
        ln -s "$1" "$2"
    fi
}
link "$repo/hw/snic" "$src/hw/snic"
link "$repo/include/snic" "$src/include/snic"
for f in "$repo"/qtest/*.[ch] "$repo"/qtest/libqos/*.[ch]; do
    link "$f" "$src/tests/qtest/${f#"$repo"/qtest/}"
done

add_line_after() {  # FILE ANCHOR-LINE NEW-LINE (exact whole lines, no regex)
    grep -qxF "$3" "$1" && return 0
    grep -qxF "$2" "$1" || die "$1: line '$2' not found; QEMU layout changed"
    awk -v anchor="$2" -v line="$3" \
        '{ print } !done && $0 == anchor { print line; done = 1 }' "$1" > "$1.snic-tmp"
    mv "$1.snic-tmp" "$1"
    grep -qxF "$3" "$1" || die "$1: could not add '$3'"
}
add_line_after "$src/hw/meson.build" "subdir('nvme')" "subdir('snic')"
add_line_after "$src/hw/Kconfig" "source nvme/Kconfig" "source snic/Kconfig"
add_line_after "$src/meson.build" "    'hw/nvme'," "    'hw/snic',"
add_line_after "$src/tests/qtest/meson.build" "qtests_x86_64 = qtests_i386" \
    "qtests_x86_64 += (config_all_devices.has_key('CONFIG_SNIC') ? ['snic-test'] : [])"
add_line_after "$src/tests/qtest/meson.build" "qtests_x86_64 = qtests_i386" \
    "qtests_x86_64 += (config_all_devices.has_key('CONFIG_VTD') ? ['snic-iommu-test'] : [])"
add_line_after "$src/tests/qtest/meson.build" "  'igb-test.c'," "  'snic-unplug-test.c',"
# libqos: the snic driver node and the helpers snic-test shares with it, and a
# q35 machine node (QEMU 10.0 has one for pc only).
add_line_after "$src/tests/qtest/libqos/meson.build" "        'igb.c'," "        'snic.c',"
add_line_after "$src/tests/qtest/libqos/meson.build" "        'x86_64_pc-machine.c'," \
    "        'x86_64_q35-machine.c',"
# The +ds tarball has no firmware blobs: never try to unpack edk2 images.
# (Touch meson.build only when it changes: an edit forces a reconfigure.)
if grep -q '^ *unpack_edk2_blobs = bzip2.found()' "$src/meson.build"; then
    sed -i 's/^\( *\)unpack_edk2_blobs = bzip2.found()/\1unpack_edk2_blobs = false/' "$src/meson.build"
fi

# The trace events (and the glue's switch) come from the core's one list.
python3 "$repo/scripts/gen-trace-events.py" "$repo/hw/snic/core/events.h" \
    "$repo/hw/snic/trace-events.in" "$repo/hw/snic" ||
    die "hw/snic/core/events.h: fix the event list (see the message above)"

mak=$src/configs/devices/x86_64-softmmu/snic.mak
# virtio-9p shares the host's checkout with interactive guests (scripts/vm.sh).
# VT-d (intel-iommu) puts the device behind a translating IOMMU: Q35 only
# implies it, and an implied device is left out under --without-default-devices.
want_mak='# snic: minimal q35 machine with virtio, virtio-9p, VT-d and the snic device
CONFIG_Q35=y
CONFIG_VTD=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_PCIE_PORT=y
CONFIG_VIRTIO_9P=y
CONFIG_SNIC=y'
[ "$(cat "$mak" 2>/dev/null)" = "$want_mak" ] || printf '%s\n' "$want_mak" > "$mak"

# ---- 3. configure once (again if the options change) ----
opts=(--target-list=x86_64-softmmu --without-default-features
      --without-default-devices --with-devices-x86_64=snic
      --enable-slirp --enable-fdt=system --enable-tcg --disable-docs
      --enable-virtfs --enable-attr
      --disable-install-blobs --disable-werror --python=/usr/bin/python3)
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$build/.snic-configure" 2>/dev/null)" != "${opts[*]} $src" ]; then
    command -v ccache >/dev/null && log "ccache found: meson will use it"
    log "configuring QEMU in $build"
    rm -rf "$build"; mkdir -p "$build"
    (cd "$build" && "$src/configure" "${opts[@]}") > "$build.configure.log" 2>&1 ||
        { tail -n 30 "$build.configure.log"; die "configure failed (full log: $build.configure.log)"; }
    echo "${opts[*]} $src" > "$build/.snic-configure"
fi
if [ "$(cat "$build/.snic-src" 2>/dev/null)" != "$src" ]; then
    echo "$src" > "$build/.snic-src"
fi

# ---- 4. build only what we use ----
log "building qemu-system-x86_64, tests/qtest/snic-test, snic-iommu-test and qos-test"
ninja --quiet -C "$build" qemu-system-x86_64 tests/qtest/snic-test \
    tests/qtest/snic-iommu-test tests/qtest/qos-test ||
    die "ninja failed (see the compiler errors above)"
"$build/qemu-system-x86_64" -nodefaults -device help 2>&1 | grep -q '^name "snic"' ||
    die "the built QEMU has no snic device: the overlay did not take (see $src/hw/meson.build)"
"$build/qemu-system-x86_64" -nodefaults -device help 2>&1 | grep -q '^name "virtio-9p-pci"' ||
    die "the built QEMU has no virtio-9p-pci (scripts/vm.sh shares the checkout with it): see 'VirtFS' in $build.configure.log"
"$build/qemu-system-x86_64" -nodefaults -device help 2>&1 | grep -q '^name "intel-iommu"' ||
    die "the built QEMU has no intel-iommu (the iommu VM pair and snic-iommu-test need it): see CONFIG_VTD in $mak"

# ---- 5. firmware ----
# The +ds source has no firmware blobs. A q35 machine loads SeaBIOS'
# bios-256k.bin (Debian package seabios) and the kvmvapic.bin option ROM
# (qemu-system-data). A QEMU run from its build tree searches
# build/qemu/qemu-bundle/<datadir> (`qemu-system-x86_64 -L help`): the blobs
# are linked there, so no test has to name a firmware directory.
datadir=$("$build/qemu-system-x86_64" -L help | grep -F "$build/qemu-bundle/" | grep '/qemu$' | tail -n 1)
[ -n "$datadir" ] || die "the built QEMU searches no data directory under $build/qemu-bundle"
mkdir -p "$datadir"
for blob in /usr/share/seabios/bios-256k.bin /usr/share/qemu/kvmvapic.bin; do
    [ -f "$blob" ] || die "$blob missing: install seabios and qemu-system-data (scripts/setup-deps.sh)"
    link "$blob" "$datadir/$(basename "$blob")"
done
if ! echo quit | timeout 60 "$build/qemu-system-x86_64" -M q35 -accel qtest -nodefaults \
        -display none -S -monitor stdio >"$build/.snic-firmware.log" 2>&1 ||
   grep -q error "$build/.snic-firmware.log"; then
    die "the built QEMU does not start a q35 machine cleanly: $(grep -m 1 error "$build/.snic-firmware.log" || tail -n 1 "$build/.snic-firmware.log")"
fi
log "ok: $build/qemu-system-x86_64"
