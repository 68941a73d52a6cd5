// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pattern: write a seeded byte pattern to stdout, for the storage tests of the guest
 * (NVMe and NFS over RDMA): the data a test writes and the data it reads back are both
 * compared with this stream, so a block written to the wrong place, a stale page or a
 * torn transfer shows as a mismatch rather than passing as "some bytes came back".
 *
 *   pattern SEED BYTES       (BYTES may end in K or M: KiB, MiB)
 *
 * Every 8-byte word is SplitMix64 of (seed, the word's offset), so each word names its
 * place and two seeds give different streams.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s) {
        return -1;
    }
    if (*end == 'K' || *end == 'k') {
        v <<= 10;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        v <<= 20;
        end++;
    }
    if (*end) {
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t seed, bytes, word = 0;
    static uint64_t buf[8192];

    if (argc != 3 || parse_size(argv[1], &seed) || parse_size(argv[2], &bytes)) {
        fprintf(stderr, "usage: pattern SEED BYTES (BYTES may end in K or M)\n");
        return 2;
    }
    seed = splitmix64(seed);
    while (bytes) {
        size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);
        size_t i, off = 0;

        for (i = 0; i < sizeof(buf) / sizeof(buf[0]); i++) {
            buf[i] = splitmix64(seed ^ word++);
        }
        while (off < n) {
            ssize_t w = write(1, (char *)buf + off, n - off);

            if (w < 0) {
                if (errno == EINTR) {
                    continue;
                }
                fprintf(stderr, "pattern: write: %s\n", strerror(errno));
                return 1;
            }
            off += w;
        }
        bytes -= n;
    }
    return 0;
}
