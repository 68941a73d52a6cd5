#!/usr/bin/env bash
# Build libsnic, the rdma-core user-space provider for snic.
#
#   scripts/build-provider.sh
#
# rdma-core ships no provider SDK (Debian has no infiniband/driver.h), so the
# provider is built inside Debian's rdma-core source: fetched with
# `apt-get source --download-only` into .cache/rdma-core/ (44.0-2, the guest's
# libibverbs, when the archive serves it; else 56.1-1, whose private ABI tag is
# the same) and unpacked once. guest-driver/provider and the hardware headers
# include/snic/snic_{regs,verbs,admin,rpc,sr,cl}.h are copied into providers/snic and
# include/snic/snic-abi.h into kernel-headers/rdma/ on every run (only files
# that changed, so ninja rebuilds only what changed); the cmake
# build tree is build/rdma-core/. Outputs:
#   build/guest-driver/libsnic-rdmav34.so   -> /usr/lib/x86_64-linux-gnu/libibverbs/
#       (libsnic.so.1 by its SONAME: a shared provider, like mlx5, whose
#       snicdv_* functions programs link; the guest links it there too)
#   build/guest-driver/snic.driver          -> /etc/libibverbs.d/
#   build/guest-driver/include/infiniband/{snicdv.h,snic_rpc.h}: the
#       direct verbs' header, for programs that use them
# Then checks that every IBVERBS_* symbol the .so imports is exported by the
# guest's libibverbs (the host's, same Debian 12 package) and that the .so
# dlopens with RTLD_NOW against it.
# Needs scripts/setup-deps.sh to have run (deb-src entries, cmake, ninja-build).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${SNIC_CACHE:-$repo/.cache}/rdma-core
build=$repo/build/rdma-core
out=$repo/build/guest-driver
host_verbs=${SNIC_LIBIBVERBS:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
# Source versions to try, best first: 44.0-2 is exactly the guest's libibverbs.
versions=(44.0-2 56.1-1)
pabi=34     # IBVERBS_PABI_VERSION of both: providers are lib<name>-rdmav34.so

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
help_or_no_args "$@"
export LC_ALL=C     # sort/comm below compare symbol lists byte-wise
t_all=$EPOCHREALTIME
t_step=$t_all
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
step_done() {   # step_done NAME: print the time since the previous step
    printf 'build-provider: %-10s %6ss\n' "$1" "$(elapsed "$t_step")"
    t_step=$EPOCHREALTIME
}

for tool in apt-get apt-cache tar cmake ninja objdump cc sha256sum flock awk; do
    command -v "$tool" >/dev/null ||
        die "'$tool' not found: run scripts/setup-deps.sh (as root) on Debian 12"
done
[ -f "$host_verbs" ] ||
    die "$host_verbs not found: install libibverbs1 (scripts/setup-deps.sh), or point SNIC_LIBIBVERBS at the guest's libibverbs.so.1"
[ -f "$repo/guest-driver/provider/CMakeLists.txt" ] ||
    die "$repo/guest-driver/provider/CMakeLists.txt missing: nothing to build"
hw_headers=(snic_regs.h snic_verbs.h snic_admin.h snic_rpc.h snic_sr.h snic_cl.h)
for h in snic-abi.h "${hw_headers[@]}"; do
    [ -f "$repo/include/snic/$h" ] || die "$repo/include/snic/$h missing"
done

mkdir -p "$cache" "$out"
exec 9>"$cache/.lock"
flock -n 9 || { log "waiting for another build-provider.sh to finish"; flock -w "$lock_timeout" 9 ||
    die "another build-provider.sh held $cache/.lock for ${lock_timeout}s"; }

# ---- 1. rdma-core source (fetched and unpacked once) ----
# (No "exit" in these awks: with pipefail, apt-cache could die of SIGPIPE.)
sha256_of() {   # sha256_of VERSION FILE: the archive's checksum of FILE
    apt-cache showsrc rdma-core 2>/dev/null | awk -v ver="$1" -v f="$2" '
        /^$/ { inrec = 0; insum = 0 }
        /^Version:/ { inrec = ($2 == ver) }
        /^[^ ]/ { insum = 0 }
        /^Checksums-Sha256:/ { insum = 1; next }
        inrec && insum && $3 == f && !done { print $1; done = 1 }'
}
have_file() {   # have_file VERSION FILE: FILE is in $cache with the archive's checksum
    local want
    want=$(sha256_of "$1" "$2")
    [ -n "$want" ] && [ -f "$cache/$2" ] &&
        [ "$(sha256sum "$cache/$2" | cut -d' ' -f1)" = "$want" ]
}

src=$(cat "$cache/.snic-src" 2>/dev/null || true)
# A cache copied from another clone names that clone's tree: never build
# (and copy headers) there, take the same tree in this cache.
if [ -n "$src" ] && [ "${src#"$cache"/}" = "$src" ]; then
    src=$cache/$(basename "$src")
fi
if [ -z "$src" ] || [ ! -f "$src/.snic-unpacked" ]; then
    known=$(apt-cache showsrc rdma-core 2>/dev/null | awk '/^Version:/ {print $2}' | tr '\n' ' ')
    [ -n "$known" ] ||
        die "apt knows no rdma-core source: run scripts/setup-deps.sh (as root) to add the deb-src entries and run apt-get update"
    sandbox=()
    # Root's apt drops to user _apt, which cannot write to an arbitrary dir.
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    got=
    for v in "${versions[@]}"; do
        up=${v%-*}
        case " $known " in *" $v "*) ;; *)
            log "rdma-core=$v is not in apt's source list (apt has: $known)"; continue ;;
        esac
        orig=$(apt-cache showsrc rdma-core | awk -v ver="$v" -v up="$up" '
            /^$/ { inrec = 0 } /^Version:/ { inrec = ($2 == ver) }
            inrec && !done && $3 ~ "^rdma-core_" up "\\.orig\\.tar\\." { print $3; done = 1 }')
        debtar=rdma-core_$v.debian.tar.xz
        [ -n "$orig" ] || { log "rdma-core=$v lists no orig tarball; skipping"; continue; }
        if ! have_file "$v" "$orig" || ! have_file "$v" "$debtar"; then
            log "fetching rdma-core=$v with apt-get source --download-only"
            # The .dsc of some versions is 404 on the mirror while both
            # tarballs download: apt then fails, so judge by the tarballs.
            (cd "$cache" && timeout "$apt_timeout" apt-get source --download-only -q "${sandbox[@]}" "rdma-core=$v") \
                > "$cache/apt-$v.log" 2>&1 || true
        fi
        if have_file "$v" "$orig" && have_file "$v" "$debtar"; then
            got=$v
            break
        fi
        # Not an error while another candidate is left: say so plainly.
        log "rdma-core=$v is not on this mirror ($(grep -m1 -o '[0-9]\{3\} *Not Found' "$cache/apt-$v.log" 2>/dev/null || echo "see $cache/apt-$v.log")): expected, the archive lists sources it no longer serves; taking the next candidate"
        rm -f "$cache/$orig" "$cache/$debtar"
    done
    [ -n "$got" ] ||
        die "no rdma-core source downloaded (tried ${versions[*]}; logs: $cache/apt-*.log). Check the archive is reachable and that scripts/setup-deps.sh added the bookworm and trixie deb-src entries"
    up=${got%-*}
    src=$cache/rdma-core-$up
    [ "$got" = "${versions[0]}" ] ||
        log "using rdma-core $got instead of ${versions[0]}: fine, its providers load into the guest's libibverbs 44 (same IBVERBS_PRIVATE_$pabi ABI; every import is checked below)"
    log "unpacking rdma-core $got ($orig, $debtar)"
    rm -rf "$src" "$src.tmp"
    mkdir -p "$src.tmp"
    tar -C "$src.tmp" -xf "$cache/$orig" || die "could not unpack $cache/$orig (delete it and re-run)"
    [ -d "$src.tmp/rdma-core-$up" ] || die "$orig has no rdma-core-$up/ directory"
    # Debian's packaging. Its patches are not applied: 44.0-2 has none, and
    # those of 56.1-1 change providers/mana only.
    tar -C "$src.tmp/rdma-core-$up" -xf "$cache/$debtar" || die "could not unpack $cache/$debtar"
    mv "$src.tmp/rdma-core-$up" "$src"
    rmdir "$src.tmp"
    if [ ! -f "$src/CMakeLists.txt" ] || [ ! -f "$src/kernel-headers/CMakeLists.txt" ]; then
        die "$src is not an rdma-core tree"
    fi
    echo "$got" > "$src/.snic-version"
    touch "$src/.snic-unpacked"
    echo "$src" > "$cache/.snic-src"
    rm -rf "$build"     # a tree built from another source is useless
fi
version=$(cat "$src/.snic-version")
step_done source
log "rdma-core $version in $src"

# ---- 2. overlay: provider, ABI header, two CMake lists (idempotent) ----
copy_if_changed() {     # copy_if_changed SRC DST: keep mtimes when equal
    cmp -s "$1" "$2" 2>/dev/null && return 0
    cp "$1" "$2.snic-tmp" && mv "$2.snic-tmp" "$2"
}
pdir=$src/providers/snic
mkdir -p "$pdir"
for f in "$repo"/guest-driver/provider/*; do
    [ -f "$f" ] && copy_if_changed "$f" "$pdir/$(basename "$f")"
done
# The hardware headers (WQE, CQE, doorbell formats) are the provider's too,
# used unchanged: next to its sources, as "snic_verbs.h" etc.
for h in "${hw_headers[@]}"; do
    copy_if_changed "$repo/include/snic/$h" "$pdir/$h"
done
for f in "$pdir"/*; do  # files removed from guest-driver/provider
    case " ${hw_headers[*]} " in *" $(basename "$f") "*) continue ;; esac
    [ -e "$repo/guest-driver/provider/$(basename "$f")" ] || rm -f "$f"
done
copy_if_changed "$repo/include/snic/snic-abi.h" "$src/kernel-headers/rdma/snic-abi.h"

# kernel-headers/CMakeLists.txt: publish_internal_headers(rdma ...) and
# rdma_kernel_provider_abi(...) both list rdma/siw-abi.h; add ours after it.
khl=$src/kernel-headers/CMakeLists.txt
if [ "$(grep -cxF '  rdma/snic-abi.h' "$khl")" != 2 ]; then
    [ "$(grep -cxF '  rdma/siw-abi.h' "$khl")" = 2 ] ||
        die "$khl: expected '  rdma/siw-abi.h' in two lists; rdma-core layout changed, add rdma/snic-abi.h by hand"
    sed -i '/^  rdma\/snic-abi\.h$/d; s|^  rdma/siw-abi\.h$|&\n  rdma/snic-abi.h|' "$khl"
    [ "$(grep -cxF '  rdma/snic-abi.h' "$khl")" = 2 ] || die "$khl: could not add rdma/snic-abi.h"
fi
top=$src/CMakeLists.txt
if ! grep -qxF 'add_subdirectory(providers/snic)' "$top"; then
    grep -qxF 'add_subdirectory(providers/siw)' "$top" ||
        die "$top: line 'add_subdirectory(providers/siw)' not found; rdma-core layout changed"
    sed -i 's|^add_subdirectory(providers/siw)$|&\nadd_subdirectory(providers/snic)|' "$top"
    grep -qxF 'add_subdirectory(providers/snic)' "$top" || die "$top: could not add providers/snic"
fi

# ---- 3. configure once (again if the options or the source change) ----
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
[ -n "$py" ] || die "python3 not found (rdma-core's build needs it): apt-get install python3"
opts=(-GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_RESOLVE_NEIGH=0
      -DCMAKE_SKIP_RPATH=ON "-DPYTHON_EXECUTABLE=$py")
stamp="${opts[*]} $src"
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$build/.snic-configure" 2>/dev/null)" != "$stamp" ]; then
    log "configuring rdma-core in $build (log: $build.cmake.log)"
    rm -rf "$build"
    mkdir -p "$build"
    (cd "$build" && cmake "${opts[@]}" "$src") > "$build.cmake.log" 2>&1 ||
        { tail -n 30 "$build.cmake.log"; die "cmake failed (full log: $build.cmake.log)"; }
    echo "$stamp" > "$build/.snic-configure"
fi
step_done configure

# ---- 4. build only the provider (and what it links: libibverbs, ccan, util) ----
ninja --quiet -C "$build" snic ||
    die "ninja snic failed (compiler errors above; sources in guest-driver/provider)"
so=$build/lib/libsnic-rdmav$pabi.so    # a link to libsnic.so.1.*
[ -f "$so" ] || die "ninja succeeded but $so is missing"
# scripts/guest-image.sh takes whatever is in build/guest-driver: publish the
# .so only after the checks below, and withdraw an older one until then.
dest=$out/libsnic-rdmav$pabi.so
cmp -s "$so" "$dest" || rm -f "$dest"
step_done build

# ---- 5. the .so must load into the guest's libibverbs ----
# Every IBVERBS_* symbol the provider imports must be exported by the guest's
# libibverbs with the same version tag: a provider built in a newer tree can
# use private functions 44 does not have (same tag IBVERBS_PRIVATE_34).
# objdump -T lines end in "VERSION NAME" ("(VERSION)" when undefined or hidden).
versioned_syms() {  # versioned_syms FILE UND|DEF: "VERSION NAME" lines of IBVERBS_*
    objdump -T "$1" | awk -v want="$2" '
        /^DYNAMIC SYMBOL TABLE:/ { table = 1; next }
        table && NF >= 4 {
            und = ($0 ~ /\*UND\*/)
            if ((want == "UND") != und) next
            v = $(NF - 1); gsub(/[()]/, "", v)
            if (v ~ /^IBVERBS_/) print v, $NF
        }' | sort -u
}
imports=$(versioned_syms "$so" UND)
exports=$(versioned_syms "$host_verbs" DEF)
[ -n "$exports" ] || die "objdump -T $host_verbs shows no IBVERBS_* symbols: is it libibverbs?"
grep -q "^IBVERBS_PRIVATE_$pabi " <<<"$imports" ||
    die "$so imports no IBVERBS_PRIVATE_$pabi symbols: not a rdmav$pabi provider? (objdump -T $so)"
missing=$(comm -23 <(echo "$imports") <(echo "$exports"))
if [ -n "$missing" ]; then
    echo "$missing" | while read -r ver sym; do
        echo "build-provider: $sym@$ver is used by libsnic but not exported by $host_verbs" >&2
    done
    die "libsnic would not load in the guest: use only ibv_cmd_* functions that rdma-core 44 has, with 44's arguments (built against rdma-core $version)"
fi
log "imports from libibverbs ($(grep -c . <<<"$imports") symbols, all exported by $(basename "$(readlink -f "$host_verbs")")):"
while read -r ver sym; do echo "    $sym@$ver"; done <<<"$imports"

checker=$build/snic-dlopen-check
if [ ! -x "$checker" ] || [ "$checker" -ot "$0" ]; then
    cat > "$checker.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	/* libibverbs first, as ibv_get_device_list() has it loaded */
	if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (!dlopen(argv[2], RTLD_NOW)) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	return argc != 3;
}
EOF
    cc -O1 -o "$checker" "$checker.c" -ldl || die "could not build $checker"
fi
"$checker" "$host_verbs" "$so" ||
    die "dlopen(RTLD_NOW) of $so against $host_verbs failed (message above)"
# (The check above used host_verbs explicitly; say so if the loader would not.)
resolved=$(ldd "$so" | awk '$1 == "libibverbs.so.1" { print $3 }')
[ "$(readlink -f "$resolved")" = "$(readlink -f "$host_verbs")" ] ||
    log "warning: the loader resolves libibverbs.so.1 of $so to '$resolved', not $host_verbs"
step_done check

copy_if_changed "$so" "$dest"
mkdir -p "$out/include/infiniband"
copy_if_changed "$repo/guest-driver/provider/snicdv.h" "$out/include/infiniband/snicdv.h"
copy_if_changed "$repo/include/snic/snic_rpc.h" "$out/include/infiniband/snic_rpc.h"
echo "$(driver_sources "$repo/guest-driver/provider") $repo/guest-driver/provider" > "$dest.sources"
[ "$(cat "$out/snic.driver" 2>/dev/null)" = "driver snic" ] || echo "driver snic" > "$out/snic.driver"
so=$dest

log "ok: $so (rdma-core $version) in $(elapsed "$t_all")s"
