#!/usr/bin/env bash
# Build everything that goes into the guest: the kernel (resolved from the archive), our
# kernel module (scripts/build-guest-driver.sh), our rdma-core provider
# (scripts/build-provider.sh) and the initramfs holding them (scripts/guest-image.sh).
# Idempotent; each step reuses what is built.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
help_or_no_args "$@"

step() {
    local t0=$SECONDS
    "$@" || { echo "build-guest: error: $1 failed (see above)" >&2; exit 1; }
    echo "build-guest: $(basename "$1"): $((SECONDS - t0))s"
}
# The module is built against the kernel guest-image.sh resolves from the archive, so that
# comes first (cheap when it is up to date); the initramfs comes last, holding the module.
step "$REPO/scripts/guest-image.sh" --kernel-only
step "$REPO/scripts/build-guest-driver.sh"
step "$REPO/scripts/build-provider.sh"
step "$REPO/scripts/guest-image.sh"
