/*
 * snic core: CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout
 * all ones; check value 0x995DC9BBDF1939FA over "123456789"), the
 * checksum the consistency kernel verifies (StRoM section 6.3 does not
 * name its CRC64; docs/wire.md says why this one).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_CRC64_H
#define SNIC_CORE_CRC64_H

#include <stddef.h>
#include <stdint.h>

/* Continue 'crc' (0 to start) over len bytes. */
uint64_t snic_crc64(uint64_t crc, const void *buf, size_t len);

#endif /* SNIC_CORE_CRC64_H */
