#!/usr/bin/env bash
# Install everything snic needs from Debian's archive. Idempotent; must run as root.
#
# Adds the apt sources the build needs (deb-src for bookworm, bookworm-backports for
# meson >= 1.5, trixie deb-src for the QEMU 10.0 source), deriving the mirror from the
# machine's own /etc/apt/sources.list.d/debian.sources so no host name lives in the repo.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
help_or_no_args "$@"

[ "$(id -u)" = 0 ] || die "must run as root (it adds apt sources and installs packages); re-run with sudo"

DEB822=/etc/apt/sources.list.d/debian.sources
OURS=/etc/apt/sources.list.d/snic.sources
export DEBIAN_FRONTEND=noninteractive

# The mirror is the URI of the stanza that carries the 'bookworm' suite.
mirror_from_deb822() {
    awk '
        /^[[:space:]]*$/ { if (suites ~ /(^| )bookworm( |$)/ && uri != "") { print uri; exit }
                           uri = ""; suites = ""; next }
        /^URIs:/   { uri = $2 }
        /^Suites:/ { $1 = ""; suites = $0 " " }
        END { if (suites ~ /(^| )bookworm( |$)/ && uri != "") print uri }
    ' "$1" | head -n 1
}

[ -r "$DEB822" ] || die "$DEB822 not found: this script expects Debian 12's deb822 sources file"
MIRROR=$(mirror_from_deb822 "$DEB822")
[ -n "$MIRROR" ] || die "no 'bookworm' stanza with a URIs: line in $DEB822; add one, then re-run"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

want=$(cat <<SRC
# Written by snic scripts/setup-deps.sh (mirror taken from $DEB822).
Types: deb-src
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: $KEYRING

Types: deb deb-src
URIs: $MIRROR
Suites: bookworm-backports
Components: main
Signed-By: $KEYRING

Types: deb-src
URIs: $MIRROR
Suites: trixie
Components: main
Signed-By: $KEYRING
SRC
)

stamp=/var/lib/apt/lists/.snic-updated
if [ ! -f "$OURS" ] || [ "$(cat "$OURS")" != "$want" ] || [ ! -f "$stamp" ] ||
   [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
    log "writing $OURS (mirror $MIRROR) and running apt-get update"
    printf '%s\n' "$want" > "$OURS"
    timeout "$apt_timeout" apt-get update -q ||
        die "apt-get update failed (or took over ${apt_timeout}s); check network access to $MIRROR"
    touch "$stamp"
fi

# Host build and test tools.
PKGS_MAIN=(
    ninja-build python3-venv flex bison pkg-config ccache xz-utils
    libglib2.0-dev libpixman-1-dev libfdt-dev libslirp-dev zlib1g-dev
    gcc make clang libclang-rt-14-dev
    seabios qemu-system-data busybox-static cpio kmod pciutils
    tshark shellcheck
    # StRoM kernels: CRC-64/XZ (lzma_crc64); the reproduction's plots.
    liblzma-dev gnuplot-nox
    # the ICRC's CRC-32 with PCLMUL (ISA-L; zlib's without it)
    libisal-dev
    # scripts/bench-engine.sh counts the engine's instructions with callgrind
    valgrind
    # Tonic Fig 3's hard-coded side: ns-3's TcpNewReno (tests/bench/tonic-ns3-newreno.cc,
    # built by scripts/repro/tonic.sh with g++; ns-3's pkg-config files name libgsl).
    libns3-dev libgsl-dev g++
    # Guest kernel module and rdma-core provider builds; sparse checks snic.ko (lint).
    cmake sparse
    # Guest userspace: copied (binaries + ldd closure) into the initramfs. perftest
    # links libmlx5/libefa directly; rping needs libgcc_s; `rdma` is iproute2's.
    libibverbs1 ibverbs-providers ibverbs-utils librdmacm1 rdmacm-utils perftest
    libibumad3 libpci3 libgcc-s1 iproute2 libibverbs-dev
    # busybox ping can miss a reply the guest kernel received (seen: Icmp InEchoReps
    # counted every reply while ping reported a loss): the VM tests use iputils ping.
    iputils-ping
    # rdma-core's Python tests in the guest: the host's interpreter, its stdlib
    # and libpython3.11 (python3-pyverbs' modules link it); pyverbs itself is downloaded.
    python3.11 libpython3.11
    # The reference manual's check against include/snic/ (tests/lint/check-manual.py).
    python3-pycparser
    # docs/srnic.md's per-field QP context table is generated from the compiled core.
    dwarves
    # Driver development (scripts/vm.sh): gdb on the host for --gdb and its test; strace,
    # ethtool for the interactive guest (copied with their libraries); tmux or socat for the
    # consoles of `vm.sh pair --shell`; librdmacm-dev for `vm.sh cc`. The guest's gdb is
    # gdb-minimal, downloaded, not installed.
    gdb strace ethtool tmux socat librdmacm-dev
    # The guest's NVMe over RDMA, UCX and libfabric (initramfs-ulp.cpio.gz: binaries and
    # their dlopen'ed modules). The NFS tools are downloaded, not installed (it would start
    # an NFS server here); rpc.mountd and mount.nfs need these libraries from the host.
    nvme-cli ucx-utils libfabric-bin libwrap0 libtirpc3 libnsl2
)
# meson >= 1.5 for QEMU 10.0 only exists in backports.
PKGS_BACKPORTS=(meson python3-pycotap)

missing() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
    done
}

mapfile -t m < <(missing "${PKGS_MAIN[@]}")
if [ ${#m[@]} -gt 0 ]; then
    log "installing: ${m[*]}"
    timeout "$apt_timeout" apt-get -y -q install --no-install-recommends "${m[@]}" > /tmp/snic-apt.log 2>&1 ||
        { tail -n 20 /tmp/snic-apt.log; die "apt-get install failed (or took over ${apt_timeout}s) for: ${m[*]} (log: /tmp/snic-apt.log)"; }
fi

meson_ok() {
    command -v meson >/dev/null &&
        dpkg --compare-versions "$(meson --version)" ge 1.5 &&
        /usr/bin/python3 -c "import pycotap" 2>/dev/null
}
if ! meson_ok; then
    log "installing meson and python3-pycotap from bookworm-backports"
    timeout "$apt_timeout" apt-get -y -q install --no-install-recommends -t bookworm-backports "${PKGS_BACKPORTS[@]}" \
        > /tmp/snic-apt.log 2>&1 || { tail -n 20 /tmp/snic-apt.log; false; } ||
        die "could not install ${PKGS_BACKPORTS[*]} from bookworm-backports (within ${apt_timeout}s)"
    meson_ok || die "meson >= 1.5 with pycotap still missing after install"
fi
log "ok (meson $(meson --version))"
