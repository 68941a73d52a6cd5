/*
 * libFuzzer target: the RoCEv2 frame parser takes any bytes of any length.
 * Beyond "no crash, no sanitizer report", it checks the parser's promises:
 * an accepted frame's payload lies inside the input, and rebuilding the
 * decoded packet yields a frame the parser accepts again with the same
 * fields.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "port/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t frame[70000];
    SnicPkt p, q;
    size_t len;

    if (snic_wire_parse(data, size, &p) != SNIC_PARSE_OK) {
        return 0;
    }
    if (p.payload < data || p.payload + p.payload_len > data + size) {
        abort();
    }
    len = snic_wire_build(&p, frame, sizeof(frame));
    if (!len || snic_wire_parse(frame, len, &q) != SNIC_PARSE_OK ||
        q.opcode != p.opcode || q.dqpn != p.dqpn || q.psn != p.psn ||
        q.payload_len != p.payload_len ||
        memcmp(q.payload, p.payload, p.payload_len)) {
        abort();
    }
    return 0;
}
