// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * isolation-check: a process that attacks other processes' queues through
 * its own context, run while another process (verbs-check) moves data.
 *
 *   isolation-check [-d DEV] [-t SECONDS] [-q MAXQPN]
 *
 * It opens its own context (libsnic maps the context's doorbell page at
 * mmap key 0), maps that page a second time itself, and for SECONDS rings
 * SQ, RQ, CQ and CQ-arm doorbells for every QP number 1..MAXQPN and CQ
 * number 1..MAXQPN: none of those queues belongs to this context, so the
 * device must ignore them all and count them (doorbells_invalid). It also
 * tries to map every other doorbell page offset of its command fd: the
 * mmap keys of other contexts do not exist in this one, so each must fail.
 * Exit 0 when every refusal happened; the other process's own checks show
 * its traffic was unaffected.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* From include/snic/snic_regs.h (the program builds without the repo's headers) */
#define SNIC_DB_PAGE_SIZE   4096
#define SNIC_DB_SQ          6
#define SNIC_DB_RQ          7
#define SNIC_DB_CQ          8
#define SNIC_DB_CQ_ARM      9

static uint64_t db_make(uint8_t type, uint32_t qid, uint32_t index)
{
    return ((uint64_t)type << 56) | ((uint64_t)(qid & 0xffffff) << 32) | index;
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "isolation-check: FAIL: %s%s\n", what, detail);
    exit(1);
}

/* A device counter from sysfs (the same ones `rdma statistic` shows) */
static long long counter(const char *dev, const char *name)
{
    char path[256];
    long long v = -1;
    FILE *f;

    snprintf(path, sizeof(path),
             "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
    f = fopen(path, "r");
    if (!f || fscanf(f, "%lld", &v) != 1) {
        fail("cannot read ", path);
    }
    fclose(f);
    return v;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *dev_name = "snic_0";
    static const uint8_t types[] = {
        SNIC_DB_SQ, SNIC_DB_RQ, SNIC_DB_CQ, SNIC_DB_CQ_ARM,
    };
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    volatile uint64_t *db;
    long long before, after, rung = 0;
    double seconds = 2, end;
    unsigned max_qpn = 16, off, refused = 0;
    int i, opt;

    while ((opt = getopt(argc, argv, "d:t:q:")) != -1) {
        switch (opt) {
        case 'd':
            dev_name = optarg;
            break;
        case 't':
            seconds = atof(optarg);
            break;
        case 'q':
            max_qpn = (unsigned)atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: %s [-d DEV] [-t SECONDS] [-q MAXQPN]\n",
                    argv[0]);
            return 2;
        }
    }
    list = ibv_get_device_list(NULL);
    for (i = 0; list && list[i]; i++) {
        if (!strcmp(ibv_get_device_name(list[i]), dev_name)) {
            ctx = ibv_open_device(list[i]);
        }
    }
    if (!ctx) {
        fail("cannot open ", dev_name);
    }

    /* Our own page again, by the one key our context has: allowed */
    db = mmap(NULL, SNIC_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED, ctx->cmd_fd, 0);
    if (db == MAP_FAILED) {
        fail("mapping our own doorbell page (key 0) failed: ",
             strerror(errno));
    }
    /* Any other key names no page of ours: every one must be refused */
    for (off = 1; off < 64; off++) {
        void *p = mmap(NULL, SNIC_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
                       ctx->cmd_fd, (off_t)off * SNIC_DB_PAGE_SIZE);

        if (p != MAP_FAILED) {
            fail("a doorbell page that is not ours was mapped", "");
        }
        refused++;
    }
    printf("isolation-check: %u foreign mmap offsets refused, own page mapped\n",
           refused);

    before = counter(dev_name, "doorbells_invalid");
    end = now() + seconds;
    while (now() < end) {
        unsigned q, t;

        for (q = 1; q <= max_qpn; q++) {
            for (t = 0; t < sizeof(types); t++) {
                *db = db_make(types[t], q, 1 + (uint32_t)rung);
                rung++;
            }
        }
        usleep(10000);
    }
    after = counter(dev_name, "doorbells_invalid");
    printf("isolation-check: rang %lld doorbells for queues of other contexts; "
           "doorbells_invalid %lld -> %lld\n", rung, before, after);
    /* Others' legal doorbells may land in between, never ours: all refused */
    if (after - before < rung) {
        fprintf(stderr, "isolation-check: FAIL: only %lld of %lld foreign "
                "doorbells were refused\n", after - before, rung);
        return 1;
    }
    munmap((void *)db, SNIC_DB_PAGE_SIZE);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    printf("isolation-check: PASS\n");
    return 0;
}
