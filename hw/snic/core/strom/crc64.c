/*
 * snic core: CRC-64/XZ (crc64.h).
 *
 * Not written here: xz's liblzma (Debian liblzma-dev, a dependency QEMU's
 * build can take like zlib's for the ICRC) exports exactly this CRC as
 * lzma_crc64(), table-driven and maintained with the xz format, whose
 * integrity check it is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lzma.h>

#include "strom/crc64.h"

uint64_t snic_crc64(uint64_t crc, const void *buf, size_t len)
{
    return lzma_crc64(buf, len, crc);
}
