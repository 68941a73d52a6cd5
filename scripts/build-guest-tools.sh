#!/usr/bin/env bash
# Build the guest's test programs (tests/vm/*.c, libibverbs only) on the host into
# <repo>/build/guest-tools/, from where scripts/guest-image.sh copies them into the guest's
# /usr/local/bin. The host runs the guest's Debian release, so its gcc and libibverbs-dev
# (44.0) build binaries the guest's libraries run.
#
#   scripts/build-guest-tools.sh [--out DIR]     (default DIR: <repo>/build/guest-tools)
#
# Idempotent: a program is rebuilt only when its sources (tests/vm/*.h included), the
# compiler command or the compiler changes (a stamp next to each binary). Warnings fail the
# build.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/guest-tools
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
done

CC=${CC:-gcc}
command -v "$CC" >/dev/null || die "'$CC' not found; run scripts/setup-deps.sh (as root) first"
[ -f /usr/include/infiniband/verbs.h ] ||
    die "/usr/include/infiniband/verbs.h missing; install libibverbs-dev (scripts/setup-deps.sh)"
CFLAGS=(-O2 -g -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 -Werror)

# program name -> sources (comma-separated; tests/vm/vmtool.c: what the two-host programs
# share), link flags ("SNICDV": also snic's direct verbs, see below; "SHARED": a library
# to LD_PRELOAD, which guest-image.sh puts in /usr/local/lib)
PROGS=(
    "verbs-check tests/vm/verbs-check.c,tests/vm/vmtool.c -libverbs"
    "isolation-check tests/vm/isolation-check.c -libverbs"
    "uverbs-check tests/vm/uverbs-check.c -libverbs"
    "rpc-check tests/vm/rpc-check.c,tests/vm/vmtool.c -libverbs SNICDV"
    "transport-check tests/vm/transport-check.c,tests/vm/vmtool.c -libverbs SNICDV"
    "strom-bench tests/vm/strom-bench.c,tests/vm/vmtool.c -libverbs -llzma SNICDV"
    "hll-check tests/vm/hll-check.c,tests/vm/vmtool.c -libverbs -lm SNICDV"
    "cl-check tests/vm/cl-check.c,tests/vm/vmtool.c -libverbs SNICDV"
    "srq-hold tests/vm/srq-hold.c -libverbs SNICDV"
    "libsnic-transport.so tests/vm/snic-transport.c -libverbs SNICDV SHARED"
    # the seeded data the storage tests (NVMe and NFS over RDMA) write and compare
    "pattern tests/vm/pattern.c"
)
# snicdv programs compile against infiniband/snicdv.h and link libsnic.so.1 as
# scripts/build-provider.sh left them in the guest driver directory; without them (the
# provider not built) such a program is not built and the image goes without it.
DRV=${SNIC_GUEST_DRIVER_DIR:-$REPO/build/guest-driver}

mkdir -p "$OUT"
ccver=$("$CC" --version | head -n 1)
for p in "${PROGS[@]}"; do
    read -r name src libs <<<"$p"
    IFS=, read -ra srcs <<<"$src"
    files=()
    for f in "${srcs[@]}"; do
        [ -f "$REPO/$f" ] || die "$f not found (broken checkout?)"
        files+=("$REPO/$f")
    done
    # (uverbs-check includes the device's headers, include/snic/*.h)
    extra=() deps=("${files[@]}" "$REPO"/tests/vm/*.h "$REPO"/include/snic/*.h)
    if [[ " $libs " == *" SHARED "* ]]; then
        libs=${libs/SHARED/}
        extra=(-shared -fPIC)
    fi
    if [[ " $libs " == *" SNICDV "* ]]; then
        libs=${libs/SNICDV/}
        if [ ! -f "$DRV/libsnic-rdmav34.so" ] || [ ! -f "$DRV/include/infiniband/snicdv.h" ]; then
            log "$name: not built: no libsnic in $DRV (run scripts/build-provider.sh)"
            rm -f "$OUT/$name" "$OUT/$name.stamp"
            continue
        fi
        # the .so's SONAME (libsnic.so.1) becomes the program's DT_NEEDED
        extra+=(-I "$DRV/include" "$DRV/libsnic-rdmav34.so")
        deps+=("$DRV/include/infiniband/snicdv.h" "$DRV/include/infiniband/snic_rpc.h")
    fi
    # shellcheck disable=SC2206  # libs is a word list
    cmd=("$CC" "${CFLAGS[@]}" -o "$OUT/$name.tmp" "${files[@]}" ${extra[@]+"${extra[@]}"} $libs)
    stamp=$( { echo "$ccver"; printf '%s\n' "${cmd[@]}"; cat "${deps[@]}" | sha256sum; } | sha256sum | cut -d' ' -f1)
    if [ -x "$OUT/$name" ] && [ "$(cat "$OUT/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
        log "$name: up to date"
        continue
    fi
    "${cmd[@]}" || die "building $name from $src failed"
    mv "$OUT/$name.tmp" "$OUT/$name"
    echo "$stamp" > "$OUT/$name.stamp"
    log "$name: built from $src"
done
