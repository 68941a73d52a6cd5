/*
 * snic core: classic pcap writer (see pcap.h). Nanosecond-resolution
 * variant (magic 0xa1b23c4d), which tshark and tcpdump read, so virtual
 * time keeps its precision.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "port/pcap.h"

#define PCAP_MAGIC_NSEC     0xa1b23c4du
#define PCAP_LINKTYPE_ETH   1
#define PCAP_SNAPLEN        65535

struct SnicPcap {
    FILE *f;
    int error;      /* first write error, reported at close */
};

/* pcap headers are in the writer's byte order; readers detect it. */
struct pcap_file_hdr {
    uint32_t magic;
    uint16_t major;
    uint16_t minor;
    int32_t thiszone;
    uint32_t sigfigs;
    uint32_t snaplen;
    uint32_t linktype;
};

struct pcap_rec_hdr {
    uint32_t ts_sec;
    uint32_t ts_nsec;
    uint32_t caplen;
    uint32_t len;
};

SnicPcap *snic_pcap_open(const char *path)
{
    struct pcap_file_hdr h = {
        .magic = PCAP_MAGIC_NSEC,
        .major = 2,
        .minor = 4,
        .snaplen = PCAP_SNAPLEN,
        .linktype = PCAP_LINKTYPE_ETH,
    };
    SnicPcap *p = calloc(1, sizeof(*p));

    if (!p) {
        return NULL;
    }
    p->f = fopen(path, "wb");
    if (!p->f) {
        free(p);
        return NULL;
    }
    if (fwrite(&h, sizeof(h), 1, p->f) != 1) {
        int e = errno;

        fclose(p->f);
        free(p);
        errno = e;
        return NULL;
    }
    return p;
}

int snic_pcap_write(SnicPcap *p, uint64_t ts_ns, const void *frame,
                    size_t len)
{
    struct pcap_rec_hdr r = {
        .ts_sec = (uint32_t)(ts_ns / 1000000000u),
        .ts_nsec = (uint32_t)(ts_ns % 1000000000u),
        .caplen = len > PCAP_SNAPLEN ? PCAP_SNAPLEN : (uint32_t)len,
        .len = (uint32_t)len,
    };

    if (fwrite(&r, sizeof(r), 1, p->f) != 1 ||
        fwrite(frame, 1, r.caplen, p->f) != r.caplen) {
        if (!p->error) {
            p->error = errno ? errno : EIO;
        }
        return -1;
    }
    return 0;
}

int snic_pcap_close(SnicPcap *p)
{
    int err = p->error;

    if (fclose(p->f) && !err) {
        err = errno;
    }
    free(p);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
