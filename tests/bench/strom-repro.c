/*
 * StRoM (EuroSys'20) Figures 7-10 reproduced in the simulator: two device
 * cores on one simulated 10 Gbit/s link, the client (node a) and the
 * server (node b), driven through their rings like drivers do. Latencies
 * are virtual time from posting a request to the completion that ends it.
 *
 *   Fig. 7  linked list, length 1..32, 64-byte values: a chain of RDMA
 *           READs (one per element, then the value), the traversal
 *           kernel (one RPC), and a two-sided RPC (SEND/RECV) whose
 *           server CPU walks the list.
 *   Fig. 8  hash table GET (Pilaf-style entry, key always in it), values
 *           64 B..4 KiB: two READs, the traversal kernel, two-sided RPC.
 *   Fig. 9  objects 64 B..16 KiB with a CRC-64/XZ: READ, READ + CRC on the
 *           client's CPU, the consistency kernel.
 *   Fig. 10 the same, READ + CRC and the kernel, with a failure rate: the
 *           first read of an operation sees the object torn (a writer in
 *           it) with that probability; the re-read always succeeds.
 *   Fig. 11 moving N 8-byte tuples into 1024 partitions of the server
 *           (allocated for all N, known to the client): one RDMA WRITE of
 *           the unpartitioned data; the shuffle kernel, the tuples in
 *           chunks of 128 Ki, one RPC WRITE each (params, histogram,
 *           tuples; each partition continuing where the last chunk's
 *           ended); and "SW + RDMA WRITE": the client copies each tuple
 *           into its partition's 16-tuple buffer and posts a 128-byte
 *           WRITE whenever one fills (interleaved, as Barthels et al.),
 *           its CPU time per tuple measured here and charged on the
 *           client's clock. The client's histogram pass (per chunk) is
 *           measured here and charged to both: for (b) each chunk's
 *           before its post, while the NIC sends the chunk before; for
 *           (c) all of it before its first WRITE (faster for it).
 *
 * The model (every parameter is an option; the defaults and where they
 * come from are written to model.csv):
 *   --link-gbps      link rate (StRoM 6.1: 10 G)
 *   --net-rtt-ns     network round trip: twice the link's propagation
 *                    delay (5 us, calibrated: StRoM 6.2 says one saved
 *                    round trip is "around 5us per lookup"; frames add
 *                    their serialisation)
 *   --pcie-rtt-ns    both NICs' PCIe read round trip (1.5 us, StRoM 6.2
 *                    and footnote 7), --pcie-gbps its bandwidth (63,
 *                    Gen3 x8, 6.1): the NIC timing model's read channel
 *                    (tests/sim/README.md), which charges every read a
 *                    device makes of host memory once: WQE fetches, a
 *                    receive WQE for each SEND and WRITE with immediate
 *                    that arrives, the kernels' reads, and on transmit
 *                    what the core read for the frame (a READ response's
 *                    data, a payload, an answer read from a region; not
 *                    an answer from a staging buffer). DMA writes are
 *                    posted: they take the write channel (received
 *                    payloads, but an RPC WRITE's, which goes to its
 *                    kernel; the shuffle's 128-byte writes with their
 *                    TLP framing), and only the shuffle waits for its
 *                    own before it answers.
 *   Our answer is a WRITE with immediate, whose receive WQE the client
 *   fetches; StRoM's is a plain WRITE. Each kernel operation also runs on
 *   a client that fetches none for it ("plain" columns: what StRoM pays).
 *   --cpu-rpc-ns     the two-sided server's CPU per request (poll, parse,
 *                    post the reply; ours, not the paper's), plus
 *   --cpu-mem-ns     per element it reads (80 ns, StRoM footnote 7)
 *   the client's CRC-64 time: measured on this machine (liblzma's
 *   lzma_crc64, ns per byte), charged in virtual time, or
 *   --crc-ns-per-byte to charge another CRC's speed.
 * The client's own processing between its READs is not charged.
 *
 *   strom-repro [--smoke] [--out DIR] [--iters N] [--ops N] [options]
 * --smoke: every point, one iteration (Fig. 10: 4 operations; Fig. 11:
 * 16 Ki and 1 Mi tuples).
 * writes DIR/fig7.csv .. fig11.csv and DIR/model.csv.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "strom/crc64.h"
#include "strom/hll.h"
#include "rpc-node.h"
#include "repro-csv.h"

#define OP_TRAV     0x1ull
#define OP_CONS     0x2ull
#define LIST        (BUF + 0x10000)     /* b: the list, 64-byte elements */
#define HT          (BUF + 0x20000)     /* b: hash table entries */
#define OBJ         (BUF + 0x40000)     /* b: the checksummed object */
#define VALUES      (BUF + 0x100000)    /* b: values */
#define LOCAL       (BUF + 0x200000)    /* a: where READs land, answers */
#define REQ         (BUF + 0x300000)    /* a, b: two-sided messages */
#define OP_SHUF     0x3ull
/* Fig. 11: memory past the nodes' 8 MiB, one MR of 2 MiB pages each */
#define BIG         (FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define BIG_LEN     (60u << 20)
#define BIG_PBL     (FAKE_MEM_BASE + 0x28000)
#define BIG_KEY     0x55
#define SH_BITS     10
#define SH_PARTS    (1u << SH_BITS)
#define SH_MAX      (2u << 20)          /* tuples, at most */
#define SH_CHUNK    (128u << 10)        /* tuples per shuffle RPC WRITE */
#define SH_HEAD     (8 + 16 * SH_PARTS) /* params, histogram */
#define SH_SRC      BIG                 /* a: each chunk's head, tuples */
#define SH_PLAIN    (BIG + (20u << 20)) /* a: the tuples, for the WRITE */
#define SH_STAGE    (BIG + (40u << 20)) /* a: SW's partition buffers */
#define SH_DST      BIG                 /* b: the partitions */

typedef struct Model {
    uint64_t link_gbps;
    uint64_t net_rtt_ns;
    uint64_t pcie_rtt_ns;
    uint64_t pcie_gbps;
    uint64_t cpu_rpc_ns;
    uint64_t cpu_mem_ns;
    double crc_ns_per_byte;     /* measured */
    double hist_ns_per_tuple;   /* measured: the client's histogram pass */
    double sw_ns_per_tuple;     /* measured: its software partitioning */
    bool plain_answer;          /* the client fetches no RQ WQE for it */
} Model;

typedef struct Bench {
    Model m;
    SnicSim *sim;
    Node a, b;
    RpcCqes q;
    unsigned wr;
    /* two-sided server: the request being served */
    unsigned srv_elements;      /* elements its CPU reads */
    uint64_t srv_value;
    uint32_t srv_len;
    /* torn reads (Fig. 10) */
    uint64_t torn_at;
    unsigned torn_left;
    bool torn;
    GRand *rand;
} Bench;

static void die(const char *what)
{
    fprintf(stderr, "strom-repro: %s\n", what);
    exit(1);
}

/* ---- the server host: torn reads ---- */

static void read_hook(FakeHost *h, uint64_t addr, size_t len)
{
    Bench *B = h->hook_opaque;

    if (B->torn) {          /* the writer is done by the next read */
        *(uint8_t *)fake_ptr(h, B->torn_at, 1) ^= 0x80;
        B->torn = false;
    }
    if (B->torn_left && addr <= B->torn_at && B->torn_at - addr < len) {
        B->torn_left--;
        *(uint8_t *)fake_ptr(h, B->torn_at, 1) ^= 0x80;
        B->torn = true;
    }
}

static void bench_init(Bench *B, const Model *m, uint64_t seed)
{
    SnicSimLinkConfig link = {
        .bandwidth_bps = m->link_gbps * 1000000000ull,
        .delay_ns = m->net_rtt_ns / 2,
    };
    /* both NICs sit on PCIe: the client's fetches its WQEs over it too */
    NodeDev dev = {
        .timing = {
            .pcie_rtt_ns = m->pcie_rtt_ns,
            .pcie_bps = m->pcie_gbps * 1000000000ull,
        },
    }, client = dev;

    client.timing.write_imm_no_recv_wqe = m->plain_answer;

    memset(B, 0, sizeof(*B));
    B->m = *m;
    B->sim = snic_sim_new(seed);
    B->rand = g_rand_new_with_seed(seed);
    /* StRoM's 10 G NIC ran Ethernet MTU 1500: RoCE path MTU 1024 */
    rpc_pair_new(B->sim, &B->a, &B->b, &link, SNIC_MTU_1024,
                 SNIC_QP_RPC_ENABLE, SNIC_QP_RPC_ENABLE, &client, &dev);
    if (rpc_deploy(&B->b, OP_TRAV, SNIC_KERNEL_TRAVERSAL) ||
        rpc_deploy(&B->b, OP_CONS, SNIC_KERNEL_CONSISTENCY)) {
        die("DEPLOY_KERNEL failed");
    }
    B->b.h->read_hook = read_hook;
    B->b.h->hook_opaque = B;
}

static void bench_free(Bench *B)
{
    g_rand_free(B->rand);
    node_pair_free(B->sim, &B->a, &B->b);
}

/* ---- running until the completion that ends an operation ---- */

static void srv_reply(void *opaque)
{
    Bench *B = opaque;

    node_post_send(&B->b, ++B->wr, SNIC_WR_SEND, B->srv_value, B->srv_len,
                   0, 0, 0, B->b.lkey);
}

/*
 * One simulator event, then the two-sided server's CPU: a request it
 * received is answered after its modelled processing time.
 */
static void step(Bench *B)
{
    struct snic_cqe c;

    if (!snic_sim_step(B->sim)) {
        die("the simulation ran dry before the operation completed");
    }
    while (node_poll_cq(&B->b, &c)) {
        if (c.status != SNIC_WC_SUCCESS) {
            die("server completion failed");
        }
        if (c.opcode == SNIC_WC_RECV) {
            snic_sim_timer_add(B->sim, snic_sim_now(B->sim) +
                               B->m.cpu_rpc_ns +
                               B->srv_elements * B->m.cpu_mem_ns,
                               srv_reply, B);
        }
    }
}

/* Run until a send CQE (READ) of node a: its time */
static uint64_t wait_send(Bench *B)
{
    struct snic_cqe c;

    for (;;) {
        while (node_poll_cq(&B->a, &c)) {
            if (c.status != SNIC_WC_SUCCESS) {
                die("client completion failed");
            }
            if (!(c.opcode & SNIC_WC_RECV)) {
                return snic_sim_now(B->sim);
            }
        }
        step(B);
    }
}

/* Run until a receive CQE of node a (an answer or a reply): its time */
static uint64_t wait_recv(Bench *B, struct snic_cqe *out)
{
    struct snic_cqe c;

    for (;;) {
        while (node_poll_cq(&B->a, &c)) {
            if (c.status != SNIC_WC_SUCCESS) {
                die("client completion failed");
            }
            if (c.opcode & SNIC_WC_RECV) {
                *out = c;
                return snic_sim_now(B->sim);
            }
        }
        step(B);
    }
}

/* Let the ACKs of the last operation through: the next starts idle. */
static void settle(Bench *B)
{
    struct snic_cqe c;

    snic_sim_run(B->sim, 100000);
    while (node_poll_cq(&B->a, &c) || node_poll_cq(&B->b, &c)) {
        /* late send completions of RPCs */
    }
}

/* ---- the client's operations ---- */

/* One RDMA READ of len bytes at b's 'remote' into a's LOCAL: its time */
static uint64_t do_read(Bench *B, uint64_t remote, uint32_t len)
{
    uint64_t t0 = snic_sim_now(B->sim);

    node_post_send(&B->a, ++B->wr, SNIC_WR_RDMA_READ, LOCAL, len, remote,
                   B->b.lkey, 0, B->a.lkey);
    return wait_send(B) - t0;
}

/* One RPC: its time; the answer's status in *status */
static uint64_t do_rpc(Bench *B, uint64_t op, const void *params,
                       uint32_t len, uint32_t resp_len, uint32_t *status)
{
    uint64_t t0 = snic_sim_now(B->sim);
    RpcReq r = {
        .wr = SNIC_WR_RPC, .rpc_opcode = op, .rkey = B->b.lkey,
        .params = params, .len = len, .resp_addr = LOCAL,
        .resp_len = resp_len, .tag = ++B->wr & 0xffffff,
    };
    struct snic_cqe c;
    uint64_t t;

    node_post_recv(&B->a, B->wr, BUF, 0);
    rpc_post(&B->a, B->wr, &r);
    t = wait_recv(B, &c) - t0;
    *status = rpc_cqe_status(&c);
    return t;
}

/* A two-sided RPC whose server reads 'elements' and replies value/len */
static uint64_t do_sendrecv(Bench *B, unsigned elements, uint64_t value,
                            uint32_t len)
{
    uint64_t t0 = snic_sim_now(B->sim);
    struct snic_cqe c;

    B->srv_elements = elements;
    B->srv_value = value;
    B->srv_len = len;
    node_post_recv(&B->b, ++B->wr, REQ, 64);
    node_post_recv(&B->a, ++B->wr, LOCAL, len);
    node_post_send(&B->a, ++B->wr, SNIC_WR_SEND, REQ, 16, 0, 0, 0,
                   B->a.lkey);
    return wait_recv(B, &c) - t0;
}

/* ---- statistics over iterations ---- */

typedef struct Stat {
    double med, lo, hi, avg;    /* microseconds */
} Stat;

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

static Stat stat_of(uint64_t *ns, unsigned n)
{
    Stat s = { 0 };
    double sum = 0;
    unsigned i;

    qsort(ns, n, sizeof(*ns), cmp_u64);
    for (i = 0; i < n; i++) {
        sum += ns[i];
    }
    s.med = ns[n / 2] / 1000.0;
    s.lo = ns[n / 100] / 1000.0;                /* 1st percentile */
    s.hi = ns[n - 1 - n / 100] / 1000.0;        /* 99th */
    s.avg = sum / n / 1000.0;
    return s;
}

static void put_stat(FILE *f, Stat s, bool last)
{
    fprintf(f, "%.3f,%.3f,%.3f%s", s.med, s.lo, s.hi, last ? "\n" : ",");
}

/* The bench whose client fetches no receive WQE for an answer (StRoM's) */
static void plain_init(Bench *P, const Model *m, uint64_t seed)
{
    Model pm = *m;

    pm.plain_answer = true;
    bench_init(P, &pm, seed);
}

/* ---- Fig. 7 ---- */

static void fig7(const Model *m, const char *dir, const unsigned *lens,
                 unsigned nlens, unsigned iters)
{
    FILE *f = repro_csv(dir, "fig7.csv", "length,read_med_us,read_p1_us,"
                       "read_p99_us,strom_med_us,strom_p1_us,strom_p99_us,"
                       "rpc_med_us,rpc_p1_us,rpc_p99_us,strom_plain_med_us");
    g_autofree uint64_t *rd = g_new(uint64_t, iters);
    g_autofree uint64_t *st = g_new(uint64_t, iters);
    g_autofree uint64_t *tw = g_new(uint64_t, iters);
    g_autofree uint64_t *pl = g_new(uint64_t, iters);
    uint64_t keys[32];
    unsigned l, i, e;
    Bench B, P;

    bench_init(&B, m, 7);
    plain_init(&P, m, 7);
    for (i = 0; i < 32; i++) {
        keys[i] = 0x1000 + i;
    }
    for (l = 0; l < nlens; l++) {
        unsigned n = lens[l];
        struct snic_traversal_params p = rpc_list_params(LIST, keys[n - 1],
                                                         64);

        rpc_build_list(&B.b, LIST, keys, n, VALUES, 64, n);
        rpc_build_list(&P.b, LIST, keys, n, VALUES, 64, n);
        for (i = 0; i < iters; i++) {
            uint64_t cur = LIST, t = 0;
            uint32_t status;

            /* READ chain: each element, then the value it points to */
            for (e = 0; e < n; e++) {
                t += do_read(&B, cur, 64);
                cur = node_rd64(&B.a, LOCAL + 8);
            }
            if (node_rd64(&B.a, LOCAL) != keys[n - 1]) {
                die("fig7: the READ chain missed the key");
            }
            t += do_read(&B, node_rd64(&B.a, LOCAL + 16), 64);
            rd[i] = t;
            settle(&B);
            st[i] = do_rpc(&B, OP_TRAV, &p, sizeof(p), 64, &status);
            if (status != SNIC_RPC_OK ||
                memcmp(fake_ptr(B.a.h, LOCAL, 64),
                       fake_ptr(B.b.h, VALUES + (n - 1) * 64ull, 64), 64)) {
                die("fig7: the kernel's answer is wrong");
            }
            settle(&B);
            tw[i] = do_sendrecv(&B, n, VALUES + (n - 1) * 64ull, 64);
            settle(&B);
            pl[i] = do_rpc(&P, OP_TRAV, &p, sizeof(p), 64, &status);
            if (status != SNIC_RPC_OK) {
                die("fig7: the kernel's answer (plain) failed");
            }
            settle(&P);
        }
        fprintf(f, "%u,", n);
        put_stat(f, stat_of(rd, iters), false);
        put_stat(f, stat_of(st, iters), false);
        put_stat(f, stat_of(tw, iters), false);
        fprintf(f, "%.3f\n", stat_of(pl, iters).med);
    }
    fclose(f);
    bench_free(&B);
    bench_free(&P);
}

/* ---- Fig. 8 ---- */

static void fig8(const Model *m, const char *dir, const uint32_t *sizes,
                 unsigned nsizes, unsigned iters)
{
    FILE *f = repro_csv(dir, "fig8.csv", "value_bytes,read2_med_us,"
                       "read2_p1_us,read2_p99_us,strom_med_us,strom_p1_us,"
                       "strom_p99_us,rpc_med_us,rpc_p1_us,rpc_p99_us,"
                       "strom_plain_med_us");
    g_autofree uint64_t *rd = g_new(uint64_t, iters);
    g_autofree uint64_t *st = g_new(uint64_t, iters);
    g_autofree uint64_t *tw = g_new(uint64_t, iters);
    g_autofree uint64_t *pl = g_new(uint64_t, iters);
    unsigned s, i;
    Bench B, P;

    bench_init(&B, m, 8);
    plain_init(&P, m, 8);
    /* the entry the client hashed to: [key 0][value pointer 2] */
    memset(fake_ptr(B.b.h, HT, 64), 0, 64);
    node_wr64(&B.b, HT, 42);
    node_wr64(&B.b, HT + 8, VALUES);
    memset(fake_ptr(P.b.h, HT, 64), 0, 64);
    node_wr64(&P.b, HT, 42);
    node_wr64(&P.b, HT + 8, VALUES);
    for (s = 0; s < nsizes; s++) {
        uint32_t size = sizes[s];
        struct snic_traversal_params p = {
            .remote_address = GUINT64_TO_LE(HT),
            .key = GUINT64_TO_LE(42),
            .value_size = GUINT32_TO_LE(size),
            .key_mask = GUINT16_TO_LE(1),
            .predicate = SNIC_TRAV_EQUAL,
            .value_ptr_pos = 2,
        };

        node_fill(&B.b, VALUES, size, size);
        node_fill(&P.b, VALUES, size, size);
        for (i = 0; i < iters; i++) {
            uint32_t status;

            rd[i] = do_read(&B, HT, 64);
            rd[i] += do_read(&B, node_rd64(&B.a, LOCAL + 8), size);
            settle(&B);
            st[i] = do_rpc(&B, OP_TRAV, &p, sizeof(p), size, &status);
            if (status != SNIC_RPC_OK ||
                memcmp(fake_ptr(B.a.h, LOCAL, size),
                       fake_ptr(B.b.h, VALUES, size), size)) {
                die("fig8: the kernel's answer is wrong");
            }
            settle(&B);
            tw[i] = do_sendrecv(&B, 1, VALUES, size);
            settle(&B);
            pl[i] = do_rpc(&P, OP_TRAV, &p, sizeof(p), size, &status);
            if (status != SNIC_RPC_OK) {
                die("fig8: the kernel's answer (plain) failed");
            }
            settle(&P);
        }
        fprintf(f, "%u,", size);
        put_stat(f, stat_of(rd, iters), false);
        put_stat(f, stat_of(st, iters), false);
        put_stat(f, stat_of(tw, iters), false);
        fprintf(f, "%.3f\n", stat_of(pl, iters).med);
    }
    fclose(f);
    bench_free(&B);
    bench_free(&P);
}

/* ---- Fig. 9 and 10 ---- */

static bool object_ok(Bench *B, uint32_t size)
{
    const uint8_t *o = fake_ptr(B->a.h, LOCAL, size);
    uint64_t stored;

    memcpy(&stored, o + size - 8, 8);
    return snic_crc64(0, o, size - 8) == GUINT64_FROM_LE(stored);
}

/* READ + CRC on the client's CPU, reading again until it checks out */
static uint64_t read_checked(Bench *B, uint32_t size)
{
    uint64_t t0 = snic_sim_now(B->sim), crc_ns;
    bool ok;

    crc_ns = (uint64_t)(size * B->m.crc_ns_per_byte + 0.5);
    do {
        do_read(B, OBJ, size);
        ok = object_ok(B, size);
        snic_sim_run_until(B->sim, snic_sim_now(B->sim) + crc_ns);
    } while (!ok);
    return snic_sim_now(B->sim) - t0;
}

static uint64_t kernel_checked(Bench *B, uint32_t size)
{
    struct snic_consistency_params p = {
        .remote_address = GUINT64_TO_LE(OBJ),
        .object_size = GUINT32_TO_LE(size),
        .max_retries = GUINT16_TO_LE(SNIC_CONSISTENCY_MAX_RETRIES),
    };
    uint32_t status;
    uint64_t t = do_rpc(B, OP_CONS, &p, sizeof(p), size, &status);

    if (status != SNIC_RPC_OK || !object_ok(B, size)) {
        die("fig9/10: the consistency kernel's answer is wrong");
    }
    return t;
}

/* The next operation's first read sees the object torn, p percent of
 * the time (one draw per operation, the same for every method). */
static void maybe_tear(Bench *B, uint32_t size, double pct)
{
    B->torn_at = OBJ + size / 2;
    B->torn_left = g_rand_double(B->rand) * 100 < pct;
}

static void fig9(const Model *m, const char *dir, const uint32_t *sizes,
                 unsigned nsizes, unsigned iters)
{
    FILE *f = repro_csv(dir, "fig9.csv", "object_bytes,read_med_us,"
                       "read_p1_us,read_p99_us,readsw_med_us,readsw_p1_us,"
                       "readsw_p99_us,strom_med_us,strom_p1_us,"
                       "strom_p99_us,strom_plain_med_us");
    g_autofree uint64_t *rd = g_new(uint64_t, iters);
    g_autofree uint64_t *sw = g_new(uint64_t, iters);
    g_autofree uint64_t *st = g_new(uint64_t, iters);
    g_autofree uint64_t *pl = g_new(uint64_t, iters);
    unsigned s, i;
    Bench B, P;

    bench_init(&B, m, 9);
    plain_init(&P, m, 9);
    for (s = 0; s < nsizes; s++) {
        uint32_t size = sizes[s];

        rpc_build_object(&B.b, OBJ, size, size);
        rpc_build_object(&P.b, OBJ, size, size);
        for (i = 0; i < iters; i++) {
            rd[i] = do_read(&B, OBJ, size);
            settle(&B);
            sw[i] = read_checked(&B, size);
            settle(&B);
            st[i] = kernel_checked(&B, size);
            settle(&B);
            pl[i] = kernel_checked(&P, size);
            settle(&P);
        }
        fprintf(f, "%u,", size);
        put_stat(f, stat_of(rd, iters), false);
        put_stat(f, stat_of(sw, iters), false);
        put_stat(f, stat_of(st, iters), false);
        fprintf(f, "%.3f\n", stat_of(pl, iters).med);
    }
    fclose(f);
    bench_free(&B);
    bench_free(&P);
}

static void fig10(const Model *m, const char *dir, const uint32_t *sizes,
                  unsigned nsizes, const double *pcts, unsigned npcts,
                  unsigned ops)
{
    FILE *f = repro_csv(dir, "fig10.csv", "object_bytes,failure_pct,"
                       "readsw_avg_us,strom_avg_us,readsw_retries,"
                       "strom_retries");
    g_autofree uint64_t *sw = g_new(uint64_t, ops);
    g_autofree uint64_t *st = g_new(uint64_t, ops);
    unsigned s, k, i, torn_sw, torn_st;
    Bench B;

    bench_init(&B, m, 10);
    for (s = 0; s < nsizes; s++) {
        uint32_t size = sizes[s];

        rpc_build_object(&B.b, OBJ, size, size);
        for (k = 0; k < npcts; k++) {
            torn_sw = torn_st = 0;
            for (i = 0; i < ops; i++) {
                maybe_tear(&B, size, pcts[k]);
                torn_sw += B.torn_left;
                sw[i] = read_checked(&B, size);
                settle(&B);
                maybe_tear(&B, size, pcts[k]);
                torn_st += B.torn_left;
                st[i] = kernel_checked(&B, size);
                settle(&B);
            }
            fprintf(f, "%u,%g,%.3f,%.3f,%u,%u\n", size, pcts[k],
                    stat_of(sw, ops).avg, stat_of(st, ops).avg, torn_sw,
                    torn_st);
        }
    }
    fclose(f);
    bench_free(&B);
}

/* ---- Fig. 11 ---- */

/* Memory past the node's 8 MiB, registered as one MR: its R_Key */
static uint32_t big_mr(Node *n)
{
    struct snic_admin_cmd cmd;
    unsigned i;

    fake_host_grow(n->h, BIG_LEN);
    for (i = 0; i < BIG_LEN >> 21; i++) {
        node_wr64(n, BIG_PBL + 8 * i, BIG + ((uint64_t)i << 21));
    }
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_REG_MR, sizeof(cmd.reg_mr));
    cmd.reg_mr.iova = GUINT64_TO_LE(BIG);
    cmd.reg_mr.length = GUINT64_TO_LE(BIG_LEN);
    cmd.reg_mr.pbl_addr = GUINT64_TO_LE(BIG_PBL);
    cmd.reg_mr.npages = GUINT32_TO_LE(BIG_LEN >> 21);
    cmd.reg_mr.pdn = GUINT32_TO_LE(n->pdn);
    cmd.reg_mr.access = GUINT32_TO_LE(SNIC_ACCESS_LOCAL_WRITE |
                                      SNIC_ACCESS_REMOTE_WRITE |
                                      SNIC_ACCESS_REMOTE_READ);
    cmd.reg_mr.page_shift = SNIC_PAGE_SHIFT_2M;
    cmd.reg_mr.key = BIG_KEY;
    return node_admin_ok(n->h, &cmd);
}

static uint32_t part_of(uint64_t v)
{
    return v & (SH_PARTS - 1);
}

/* The count per partition of n tuples. */
static void histogram(const uint64_t *t, uint32_t n, uint32_t *count)
{
    uint32_t i;

    memset(count, 0, SH_PARTS * sizeof(*count));
    for (i = 0; i < n; i++) {
        count[part_of(t[i])]++;
    }
}

/*
 * The client's histogram pass over one chunk of n tuples: its count per
 * partition, and the shuffle's head for it in 'head' (SH_HEAD bytes):
 * each partition continues where the previous chunks' tuples ended
 * ('next', advanced past this chunk's), with room for this chunk's.
 */
static void chunk_head(const uint64_t *t, uint32_t n, uint32_t *count,
                       uint64_t *next, uint8_t *head)
{
    struct snic_shuffle_params prm = { .bits = SH_BITS };
    uint32_t p;

    histogram(t, n, count);
    memcpy(head, &prm, sizeof(prm));
    for (p = 0; p < SH_PARTS; p++) {
        struct snic_shuffle_part h = {
            .base = GUINT64_TO_LE(next[p]),
            .capacity = GUINT32_TO_LE(count[p]),
        };

        memcpy(head + 8 + 16 * p, &h, sizeof(h));
        next[p] += 8ull * count[p];
    }
}

/*
 * The client's software partitioning (Barthels et al.'s inner loop):
 * each tuple copied into its partition's 16-tuple buffer; a full buffer
 * goes to 'out' (where the client's WRITE would take it from). Returns
 * how many buffers filled.
 */
typedef uint64_t SwBuf[SNIC_SHUFFLE_BUF_TUPLES];

static uint32_t sw_partition(const uint64_t *t, uint32_t n, SwBuf *buf,
                             uint32_t *fill, uint64_t *out)
{
    uint32_t i, full = 0;

    memset(fill, 0, SH_PARTS * sizeof(*fill));
    for (i = 0; i < n; i++) {
        uint32_t p = part_of(t[i]);

        buf[p][fill[p]++ % SNIC_SHUFFLE_BUF_TUPLES] = t[i];
        if (fill[p] % SNIC_SHUFFLE_BUF_TUPLES == 0) {
            memcpy(out + (uint64_t)SNIC_SHUFFLE_BUF_TUPLES *
                   (full++ % 1024), buf[p], sizeof(buf[p]));
        }
    }
    return full;
}

/*
 * The client's CPU per tuple for both passes, measured here: the
 * fastest of many bursts over 1 Mi tuples (other work only slows one),
 * the histogram pass chunk by chunk as the clients run it.
 */
static void measure_partition(Model *m, unsigned bursts)
{
    const uint32_t n = 1u << 20;
    g_autofree uint64_t *t = g_new(uint64_t, n);
    g_autofree uint32_t *count = g_new(uint32_t, SH_PARTS);
    g_autofree uint64_t *next = g_new0(uint64_t, SH_PARTS);
    g_autofree uint8_t *head = g_new(uint8_t, SH_HEAD);
    g_autofree SwBuf *buf = g_new(SwBuf, SH_PARTS);
    g_autofree uint64_t *out = g_new(uint64_t, 1024 * 16);
    GRand *r = g_rand_new_with_seed(11);
    volatile uint32_t sink = 0;
    double hist = 1e9, sw = 1e9;
    unsigned b;
    uint32_t i;

    for (i = 0; i < n; i++) {
        t[i] = (uint64_t)g_rand_int(r) << 32 | g_rand_int(r);
    }
    g_rand_free(r);
    for (b = 0; b < bursts; b++) {
        gint64 t0 = g_get_monotonic_time(), t1, t2;

        for (i = 0; i < n; i += SH_CHUNK) {
            chunk_head(t + i, SH_CHUNK, count, next, head);
        }
        t1 = g_get_monotonic_time();
        sink += sw_partition(t, n, buf, count, out);
        t2 = g_get_monotonic_time();
        hist = MIN(hist, (t1 - t0) * 1000.0 / n);
        sw = MIN(sw, (t2 - t1) * 1000.0 / n);
    }
    sink += head[8];
    (void)sink;
    m->hist_ns_per_tuple = hist;
    m->sw_ns_per_tuple = sw;
}

typedef struct Fig11 {
    Bench B;
    uint32_t a_key, b_key;
    uint64_t *t;                /* the tuples */
    uint32_t count[SH_PARTS];
    uint64_t base[SH_PARTS];    /* b: each partition, 128-byte aligned */
    uint32_t *chunk_count;      /* per chunk, its count per partition */
} Fig11;

/* Chunks of the n tuples; the tuples in chunk k; where its payload is */
static uint32_t chunks(uint32_t n)
{
    return (n + SH_CHUNK - 1) / SH_CHUNK;
}

static uint32_t chunk_len(uint32_t n, uint32_t k)
{
    return MIN(SH_CHUNK, n - k * SH_CHUNK);
}

static uint64_t chunk_src(uint32_t k)
{
    return SH_SRC + (uint64_t)k * (SH_HEAD + 8 * SH_CHUNK);
}

/* The client's clock moves 'ns' (its CPU at work) */
static void cpu(Bench *B, double ns)
{
    snic_sim_run_until(B->sim, snic_sim_now(B->sim) + (uint64_t)(ns + 0.5));
}

/* b's partitions hold a stable radix partition of the n tuples */
static void check_parts(Fig11 *F, uint32_t n, const char *what)
{
    g_autofree uint32_t *at = g_new0(uint32_t, SH_PARTS);
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint32_t p = part_of(F->t[i]);

        if (node_rd64(&F->B.b, F->base[p] + 8ull * at[p]++) != F->t[i]) {
            fprintf(stderr, "strom-repro: fig11 %s: tuple %u misplaced\n",
                    what, i);
            exit(1);
        }
    }
}

/* (a) one RDMA WRITE of the n tuples as they are */
static uint64_t fig11_write(Fig11 *F, uint32_t n)
{
    Bench *B = &F->B;
    uint64_t t0 = snic_sim_now(B->sim);

    node_post_send(&B->a, ++B->wr, SNIC_WR_RDMA_WRITE, SH_PLAIN, 8 * n,
                   SH_DST, F->b_key, 0, F->a_key);
    return wait_send(B) - t0;
}

/*
 * (b) the shuffle kernel, fed as a client streams its tuples: chunk by
 * chunk, the histogram pass (the chunk's head) on the client's clock,
 * then the chunk's RPC WRITE; so the pass of chunk k + 1 runs while the
 * NIC sends chunk k. Done when every chunk is answered. The unit is free
 * again once a chunk's payload is in: a chunk that drew an RNR NAK would
 * pay the retry, and ends the run.
 */
static uint64_t fig11_strom(Fig11 *F, uint32_t n)
{
    Bench *B = &F->B;
    uint64_t t0 = snic_sim_now(B->sim), t = 0;
    uint64_t rnr = B->a.h->events[SNIC_TRACE_RNR_WAIT];
    uint32_t k, p, fill, nk = chunks(n);
    struct snic_cqe c;

    for (k = 0; k < nk; k++) {
        RpcReq r = {
            .wr = SNIC_WR_RPC_WRITE, .rpc_opcode = OP_SHUF,
            .rkey = F->b_key, .src = chunk_src(k), .lkey = F->a_key,
            .len = SH_HEAD + 8 * chunk_len(n, k),
            .resp_addr = LOCAL + 4 * SH_PARTS * k,
            .resp_len = 4 * SH_PARTS, .tag = ++B->wr & 0xffffff,
        };

        cpu(B, chunk_len(n, k) * B->m.hist_ns_per_tuple);
        node_post_recv(&B->a, B->wr, BUF, 0);
        rpc_post(&B->a, B->wr, &r);
    }
    for (k = 0; k < nk; k++) {
        t = wait_recv(B, &c) - t0;
        if (rpc_cqe_status(&c) != SNIC_RPC_OK) {
            die("fig11: the shuffle failed");
        }
    }
    if (B->a.h->events[SNIC_TRACE_RNR_WAIT] != rnr) {
        die("fig11: a chunk of the shuffle drew an RNR NAK");
    }
    for (k = 0; k < nk; k++) {
        for (p = 0; p < SH_PARTS; p++) {
            memcpy(&fill, fake_ptr(B->a.h, LOCAL + 4 * (SH_PARTS * k + p),
                                   4), 4);
            if (GUINT32_FROM_LE(fill) != F->chunk_count[SH_PARTS * k + p]) {
                die("fig11: the shuffle's fills are wrong");
            }
        }
    }
    check_parts(F, n, "shuffle");
    return t;
}

/*
 * (c) the client partitions in software: the histogram passes of every
 * chunk first (the same CPU time as (b)'s, charged before its stream
 * of WRITEs starts: faster for it than between its chunks, where in the
 * simulator each pause cost its 128-byte WRITEs more than the pause
 * itself; not traced), then each
 * tuple to its partition's buffer (a's SH_STAGE, laid out as b's
 * partitions), a 128-byte WRITE posted as a buffer fills, the partly
 * filled ones at the end; the CPU time owed is charged before each
 * post. Done when every WRITE completed.
 */
static uint64_t fig11_sw(Fig11 *F, uint32_t n)
{
    Bench *B = &F->B;
    uint64_t t0 = snic_sim_now(B->sim);
    uint32_t fill[SH_PARTS] = { 0 };
    unsigned posted = 0, done = 0;
    struct snic_cqe c;
    uint32_t i, p;
    double owed;

    owed = n * B->m.hist_ns_per_tuple;
    for (i = 0; i <= n; i++) {
        uint32_t len = 0;
        uint64_t off = 0;

        if (i < n) {
            p = part_of(F->t[i]);
            off = F->base[p] - SH_DST + 8ull * fill[p];
            node_wr64(&B->a, SH_STAGE + off, F->t[i]);
            fill[p]++;
            owed += B->m.sw_ns_per_tuple;
            if (fill[p] % SNIC_SHUFFLE_BUF_TUPLES == 0) {
                len = 8 * SNIC_SHUFFLE_BUF_TUPLES;
                off -= len - 8;
            }
        }
        if (i == n) {
            cpu(B, owed);       /* the tuples after the last full buffer */
        }
        for (p = 0; i == n && p < SH_PARTS; p++) {
            /* the end: the partly filled buffers */
            uint32_t rest = fill[p] % SNIC_SHUFFLE_BUF_TUPLES;

            if (!rest) {
                continue;
            }
            while (posted - done >= (1u << SQ_LOG2) - 1) {
                step(B);
                while (node_poll_cq(&B->a, &c)) {
                    done++;
                }
            }
            off = F->base[p] - SH_DST + 8ull * (fill[p] - rest);
            node_post_send(&B->a, ++B->wr, SNIC_WR_RDMA_WRITE,
                           SH_STAGE + off, 8 * rest, SH_DST + off, F->b_key,
                           0, F->a_key);
            posted++;
        }
        if (!len) {
            continue;
        }
        /* the CPU got here: post, when the send queue has room */
        cpu(B, owed);
        owed = 0;
        while (posted - done >= (1u << SQ_LOG2) - 1) {
            step(B);
            while (node_poll_cq(&B->a, &c)) {
                done++;
            }
        }
        node_post_send(&B->a, ++B->wr, SNIC_WR_RDMA_WRITE, SH_STAGE + off,
                       len, SH_DST + off, F->b_key, 0, F->a_key);
        posted++;
    }
    while (done < posted) {
        while (node_poll_cq(&B->a, &c)) {
            if (c.status != SNIC_WC_SUCCESS) {
                die("fig11: a WRITE failed");
            }
            done++;
        }
        if (done < posted) {
            step(B);
        }
    }
    check_parts(F, n, "SW + WRITE");
    return snic_sim_now(B->sim) - t0;
}

static void fig11(const Model *m, const char *dir, const uint32_t *ns,
                  unsigned nns)
{
    FILE *f = repro_csv(dir, "fig11.csv", "tuples,write_us,strom_us,"
                       "sw_write_us,strom_over_write,hist_us,"
                       "strom_rpc_over_write,strom_pcie_write_busy,chunks,"
                       "hist_first_us");
    g_autofree Fig11 *F = g_new0(Fig11, 1);
    NodeDev dev = {
        .cfg = { .shuffle_units = 1,
                 .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY },
        .timing = {
            .pcie_rtt_ns = m->pcie_rtt_ns,
            .pcie_bps = m->pcie_gbps * 1000000000ull,
        },
    };
    SnicSimLinkConfig link = {
        .bandwidth_bps = m->link_gbps * 1000000000ull,
        .delay_ns = m->net_rtt_ns / 2,
    };
    Bench *B = &F->B;
    GRand *r = g_rand_new_with_seed(11);
    uint8_t *pl;
    unsigned k;
    uint32_t i, j, p;

    B->m = *m;
    B->sim = snic_sim_new(11);
    B->rand = g_rand_new_with_seed(11);
    rpc_pair_new(B->sim, &B->a, &B->b, &link, SNIC_MTU_1024,
                 SNIC_QP_RPC_ENABLE, SNIC_QP_RPC_ENABLE, &dev, &dev);
    if (rpc_deploy(&B->b, OP_SHUF, SNIC_KERNEL_SHUFFLE)) {
        die("DEPLOY_KERNEL (shuffle) failed");
    }
    F->a_key = big_mr(&B->a);
    F->b_key = big_mr(&B->b);
    F->t = g_new(uint64_t, SH_MAX);
    F->chunk_count = g_new(uint32_t, (size_t)chunks(SH_MAX) * SH_PARTS);
    for (i = 0; i < SH_MAX; i++) {
        F->t[i] = (uint64_t)g_rand_int(r) << 32 | g_rand_int(r);
    }
    g_rand_free(r);
    for (k = 0; k < nns; k++) {
        uint32_t n = ns[k];
        uint64_t at = SH_DST, ta, tb, tc, wr0;
        uint64_t next[SH_PARTS];
        double busy, first;

        if (n > SH_MAX) {
            die("fig11: too many tuples");
        }
        /*
         * b's partitions: allocated for all n tuples, each 128-byte
         * aligned, known to the client (as after a join's histogram
         * phase; not charged)
         */
        histogram(F->t, n, F->count);
        for (p = 0; p < SH_PARTS; p++) {
            F->base[p] = next[p] = at;
            at += (8ull * F->count[p] + 127) / 128 * 128;
        }
        /* the tuples as they are, and (b)'s chunks: head, then tuples */
        pl = fake_ptr(B->a.h, SH_PLAIN, 8ull * n);
        for (i = 0; i < n; i++) {
            uint64_t le = GUINT64_TO_LE(F->t[i]);

            memcpy(pl + 8ull * i, &le, 8);
        }
        for (j = 0; j < chunks(n); j++) {
            uint32_t len = chunk_len(n, j);

            pl = fake_ptr(B->a.h, chunk_src(j), SH_HEAD + 8ull * len);
            chunk_head(F->t + j * SH_CHUNK, len,
                       F->chunk_count + SH_PARTS * j, next, pl);
            memcpy(pl + SH_HEAD, fake_ptr(B->a.h, SH_PLAIN + 8ull * j *
                                          SH_CHUNK, 8ull * len), 8ull * len);
        }
        ta = fig11_write(F, n);
        settle(B);
        wr0 = B->b.h->port.stats.pcie_write_bytes;
        tb = fig11_strom(F, n);
        /*
         * the RPCs alone (from the first post, after the first chunk's
         * histogram pass, to the last answer), and the server's PCIe
         * write channel: busy this share of it
         */
        first = chunk_len(n, 0) * m->hist_ns_per_tuple;
        busy = (B->b.h->port.stats.pcie_write_bytes - wr0) * 8.0 /
               m->pcie_gbps / (tb - first);
        settle(B);
        tc = fig11_sw(F, n);
        settle(B);
        fprintf(f, "%u,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f,%.4f,%u,%.3f\n", n,
                ta / 1000.0, tb / 1000.0, tc / 1000.0, (double)tb / ta,
                n * m->hist_ns_per_tuple / 1000.0, (tb - first) / ta, busy,
                chunks(n), first / 1000.0);
    }
    fclose(f);
    g_free(F->t);
    g_free(F->chunk_count);
    bench_free(B);
}

/*
 * ---- Fig. 13 (StRoM 7.2): HyperLogLog ----
 *
 * (b) In the simulator's 100 G model (the NIC timing model's SRNIC
 * figures: 100 Gbit/s port, PCIe round trip 1.1 us, tests/sim/README.md;
 * StRoM states neither for the VCU118), a streams WRITEs of 'size' bytes
 * to b, HLL_DEPTH in flight, and the goodput is the bytes over the time
 * from the first post to the last completion. Three runs: b's QP without
 * a sketch; with one, its HLL unit charged in b's receive pipeline at one
 * 64-byte beat per cycle at 322 MHz (StRoM 7's data path and clock, 3.4's
 * initiation interval of 1); and a control with a 16-byte beat, which
 * shows the charge is applied. The sketch must have hashed every item.
 */
#define HLL_DEPTH       128
#define HLL_CLOCK_HZ    322000000ull
#define HLL_AREA        (4u << 20)      /* BUF: a's source, b's target */

static uint64_t hll_admin(Node *n, uint8_t op, uint64_t resp)
{
    struct snic_admin_cmd cmd;

    snic_admin_cmd_init(&cmd, op, sizeof(cmd.hll));
    cmd.hll.qpn = GUINT32_TO_LE(n->qpn);
    cmd.hll.resp_addr = GUINT64_TO_LE(resp);
    return fake_admin(n->h, &cmd, NULL);
}

/* Goodput (Gbit/s) of n WRITEs of 'size'; beat 0: no sketch */
static double fig13b_run(const Model *m, uint32_t size, uint32_t n,
                         unsigned beat)
{
    NodeDev dev = {
        .cfg = { .hll_sketches = 1,
                 .pfc_priority = SNIC_DEFAULT_PFC_PRIORITY },
        .timing = snic_sim_srnic_timing,
    }, server = dev;
    SnicSimLinkConfig link = {
        .bandwidth_bps = SNIC_SIM_SRNIC_LINE_RATE_BPS,
        .delay_ns = m->net_rtt_ns / 2, .eth_framing = true,
    };
    SnicSim *sim = snic_sim_new(13);
    uint32_t posted = 0, done = 0;
    struct snic_hll_info info;
    uint64_t t0, t1 = 0;
    struct snic_cqe c;
    Node a, b;

    server.timing.stream_beat_bytes = beat;
    server.timing.stream_clock_hz = beat ? HLL_CLOCK_HZ : 0;
    node_init_dev(&a, sim, 1, &dev);
    node_init_dev(&b, sim, 2, &server);
    snic_sim_port_connect(&a.h->port, &b.h->port, &link);
    node_connect(&a, &b, SNIC_MTU_1024, 7, 7);
    node_connect(&b, &a, SNIC_MTU_1024, 7, 7);
    node_fill(&a, BUF, HLL_AREA, 13);
    if (beat && hll_admin(&b, SNIC_ADMIN_ATTACH_HLL, 0) != SNIC_ADMIN_OK) {
        die("fig13: ATTACH_HLL failed");
    }
    t0 = snic_sim_now(sim);
    while (done < n) {
        while (posted < n && posted - done < HLL_DEPTH) {
            uint64_t off = (uint64_t)posted * size % HLL_AREA;

            node_post_send(&a, posted++, SNIC_WR_RDMA_WRITE, BUF + off, size,
                           BUF + off, b.lkey, 0, a.lkey);
        }
        if (!snic_sim_step(sim)) {
            die("fig13: the simulation ran dry");
        }
        while (node_poll_cq(&a, &c)) {
            if (c.status != SNIC_WC_SUCCESS) {
                die("fig13: a WRITE failed");
            }
            done++;
            t1 = snic_sim_now(sim);
        }
    }
    if (beat) {
        if (hll_admin(&b, SNIC_ADMIN_QUERY_HLL, FAKE_RESP) !=
            SNIC_ADMIN_OK) {
            die("fig13: QUERY_HLL failed");
        }
        fake_read(b.h, FAKE_RESP, &info, sizeof(info));
        if (GUINT64_FROM_LE(info.items) != (uint64_t)n * (size / 4) ||
            b.h->port.stats.stream_beats == 0) {
            die("fig13: the sketch did not hash every item");
        }
    }
    node_pair_free(sim, &a, &b);
    return (double)size * n * 8 / (t1 - t0);
}

static void fig13b(const Model *m, const char *dir, bool smoke)
{
    FILE *f = repro_csv(dir, "fig13b.csv", "bytes,write_gbps,hll_gbps,"
                        "control_gbps,hll_over_write,control_over_write");
    uint32_t size;

    for (size = 64; size <= (1u << 20); size *= 2) {
        /* 4 MiB a point, 64 .. 16384 messages (smoke: 16 KiB, from 4) */
        uint32_t n = MIN(MAX((smoke ? 16u << 10 : 4u << 20) / size,
                             smoke ? 4u : 64u),
                         16384u);
        double w = fig13b_run(m, size, n, 0);
        double h = fig13b_run(m, size, n, 64);
        double k = fig13b_run(m, size, n, 16);

        fprintf(f, "%u,%.3f,%.3f,%.3f,%.4f,%.4f\n", size, w, h, k, h / w,
                k / w);
    }
    fclose(f);
}

/*
 * (a) The CPU's HyperLogLog over memory-resident items: the device's
 * scalar code (the device's snic_hll_add), -O2, each thread its own
 * slice and registers (merged after), 1 .. nproc threads; the best of
 * a few passes (a shared CPU only ever makes one slower).
 */
typedef struct HllSlice {
    const uint32_t *items;
    size_t n;
    uint8_t regs[SNIC_HLL_REGISTERS];
} HllSlice;

static gpointer hll_slice(gpointer opaque)
{
    HllSlice *s = opaque;
    size_t i;

    memset(s->regs, 0, sizeof(s->regs));
    for (i = 0; i < s->n; i++) {
        snic_hll_add(s->regs, s->items[i]);
    }
    return NULL;
}

static void fig13a(const char *dir, bool smoke)
{
    FILE *f = repro_csv(dir, "fig13a.csv", "threads,items_per_s,gbps");
    const size_t n = smoke ? 1u << 18 : 1u << 25;   /* 1 or 128 MiB */
    unsigned threads, nproc = g_get_num_processors(), pass, t;
    uint32_t *items = g_new(uint32_t, n);
    HllSlice *s = g_new0(HllSlice, nproc);
    GThread **th = g_new(GThread *, nproc);
    GRand *r = g_rand_new_with_seed(13);
    size_t i;

    for (i = 0; i < n; i++) {
        items[i] = g_rand_int(r);
    }
    g_rand_free(r);
    for (threads = 1; threads <= nproc; threads++) {
        double best = 0;

        for (pass = 0; pass < (smoke ? 1u : 3u); pass++) {
            gint64 t0 = g_get_monotonic_time();
            double secs;

            for (t = 0; t < threads; t++) {
                s[t].items = items + n / threads * t;
                s[t].n = t + 1 < threads ? n / threads :
                         n - n / threads * t;
                th[t] = g_thread_new("hll", hll_slice, &s[t]);
            }
            for (t = 0; t < threads; t++) {
                g_thread_join(th[t]);
            }
            for (t = 1; t < threads; t++) {     /* merged: part of it */
                for (i = 0; i < SNIC_HLL_REGISTERS; i++) {
                    s[0].regs[i] = MAX(s[0].regs[i], s[t].regs[i]);
                }
            }
            secs = (g_get_monotonic_time() - t0) / 1e6;
            best = MAX(best, n / secs);
        }
        fprintf(f, "%u,%.0f,%.3f\n", threads, best, best * 32 / 1e9);
    }
    fclose(f);
    g_free(th);
    g_free(s);
    g_free(items);
}

/*
 * ---- the client's CRC speed, measured here ----
 * The fastest of many 2 ms bursts over 16 KiB, in ns per byte: a CPU
 * shared with other work only ever makes a burst slower.
 */
static double measure_crc(unsigned bursts)
{
    static uint8_t buf[16384];
    volatile uint64_t sink = 0;
    double best = 1e9;
    unsigned i, burst;

    for (i = 0; i < sizeof(buf); i++) {
        buf[i] = i * 31;
    }
    for (burst = 0; burst < bursts; burst++) {
        gint64 t0 = g_get_monotonic_time(), t;
        uint64_t bytes = 0;

        do {
            sink += snic_crc64(0, buf, sizeof(buf));
            bytes += sizeof(buf);
            t = g_get_monotonic_time();
        } while (t - t0 < 2000);
        best = MIN(best, (t - t0) * 1000.0 / bytes);
    }
    (void)sink;
    return best;
}

int main(int argc, char **argv)
{
    static const unsigned lens_full[] = {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
    };
    static const uint32_t values[] = { 64, 128, 256, 512, 1024, 2048, 4096 };
    static const uint32_t objects[] = {
        64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
    };
    static const uint32_t objects10[] = { 64, 1024, 16384 };
    static const double pcts[] = { 0, 1, 5, 10, 20, 30, 40, 50 };
    static const uint32_t tuples[] = {
        16384, 65536, 262144, 1048576, 2097152,
    };
    static const uint32_t tuples_smoke[] = { 16384, 1048576 };
    Model m = {
        .link_gbps = 10, .net_rtt_ns = 5000, .pcie_rtt_ns = 1500,
        .pcie_gbps = 63, .cpu_rpc_ns = 1000, .cpu_mem_ns = 80,
    };
    gboolean smoke = FALSE;
    gint iters = 0, ops = 0;
    gint64 link = 10, rtt = 5000, prtt = 1500, pgbps = 63, cpu = 1000;
    gint64 mem = 80;
    gdouble crc = 0;
    g_autofree char *out = NULL;
    GOptionEntry entries[] = {
        { "smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
          "every point, few iterations (the test suite's run)", NULL },
        { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "output directory",
          "DIR" },
        { "iters", 0, 0, G_OPTION_ARG_INT, &iters,
          "iterations per point of Fig. 7-9 (default 21)", "N" },
        { "ops", 0, 0, G_OPTION_ARG_INT, &ops,
          "operations per point of Fig. 10 (default 400)", "N" },
        { "link-gbps", 0, 0, G_OPTION_ARG_INT64, &link, "link rate", "G" },
        { "net-rtt-ns", 0, 0, G_OPTION_ARG_INT64, &rtt,
          "network round trip (propagation)", "NS" },
        { "pcie-rtt-ns", 0, 0, G_OPTION_ARG_INT64, &prtt,
          "server NIC's PCIe read round trip", "NS" },
        { "pcie-gbps", 0, 0, G_OPTION_ARG_INT64, &pgbps,
          "server NIC's PCIe read bandwidth", "G" },
        { "cpu-rpc-ns", 0, 0, G_OPTION_ARG_INT64, &cpu,
          "two-sided server CPU per request", "NS" },
        { "cpu-mem-ns", 0, 0, G_OPTION_ARG_INT64, &mem,
          "two-sided server CPU per element read", "NS" },
        { "crc-ns-per-byte", 0, 0, G_OPTION_ARG_DOUBLE, &crc,
          "the client's CRC-64 speed (default: measured here)", "NS" },
        { NULL },
    };
    GOptionContext *ctx = g_option_context_new("- StRoM Fig. 7-10");
    GError *err = NULL;
    FILE *f;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "strom-repro: %s\n", err->message);
        return 2;
    }
    g_option_context_free(ctx);
    if (link <= 0 || rtt < 0 || prtt < 0 || pgbps < 0 || cpu < 0 ||
        mem < 0 || iters < 0 || ops < 0 || crc < 0) {
        fprintf(stderr, "strom-repro: negative or zero parameter\n");
        return 2;
    }
    m = (Model) {
        .link_gbps = link, .net_rtt_ns = rtt, .pcie_rtt_ns = prtt,
        .pcie_gbps = pgbps, .cpu_rpc_ns = cpu, .cpu_mem_ns = mem,
    };
    iters = iters ? iters : smoke ? 1 : 21;
    ops = ops ? ops : smoke ? 4 : 400;
    out = out ? out : g_strdup(".");
    repro_mkdir(out);
    m.crc_ns_per_byte = crc ? crc : measure_crc(smoke ? 10 : 100);
    measure_partition(&m, smoke ? 3 : 30);
    f = repro_csv(out, "model.csv", "parameter,value,unit,source");
    fprintf(f, "link_rate,%" PRIu64 ",Gbit/s,StRoM 6.1 (10 G NIC)\n",
            m.link_gbps);
    fprintf(f, "net_rtt,%" PRIu64 ",ns,calibrated: StRoM 6.2 says one saved "
            "round trip is around 5us per lookup (Fig. 8)\n", m.net_rtt_ns);
    fprintf(f, "path_mtu,1024,bytes,StRoM Fig. 5 (MTU 1500)\n");
    fprintf(f, "pcie_rtt,%" PRIu64 ",ns,StRoM 6.2 and footnote 7 "
            "(PCIe read around 1.5 us)\n", m.pcie_rtt_ns);
    fprintf(f, "pcie_rate,%" PRIu64 ",Gbit/s,StRoM 6.1 (PCIe Gen3 x8)\n",
            m.pcie_gbps);
    fprintf(f, "server_cpu_per_request,%" PRIu64 ",ns,ours (not in the "
            "paper)\n", m.cpu_rpc_ns);
    fprintf(f, "server_cpu_per_element,%" PRIu64 ",ns,StRoM footnote 7 "
            "(CPU memory latency around 80 ns)\n", m.cpu_mem_ns);
    fprintf(f, "pcie_reads,once,,PCIe: every device read of host memory "
            "(WQE and receive-WQE fetches; kernel reads; READ responses; "
            "answers read from a region) is charged once; staged answers "
            "none; writes: received payloads (not an RPC WRITE's: it goes "
            "to the kernel) and the kernels' writes, posted "
            "(tests/sim/README.md)\n");
    fprintf(f, "answer,write_imm,,ours: StRoM 5.1 answers with an RDMA "
            "WRITE; ours carries the status in its immediate\n");
    fprintf(f, "answer_recv_wqe_fetch,%u,bytes,ours: the client fetches a "
            "receive WQE for each answer (a PCIe read); the plain columns "
            "run without it\n", SNIC_RQ_WQE_SIZE);
    fprintf(f, "client_crc64,%.4f,ns/byte,%s\n", m.crc_ns_per_byte,
            crc ? "given (--crc-ns-per-byte)" :
                  "measured here (liblzma lzma_crc64; best 2 ms burst)");
    fprintf(f, "client_histogram,%.4f,ns/tuple,measured here (Fig. 11: "
            "count per partition and the shuffle's head; best pass over "
            "1 Mi tuples in chunks)\n", m.hist_ns_per_tuple);
    fprintf(f, "client_sw_partition,%.4f,ns/tuple,measured here (Fig. 11: "
            "copy into the partition's 16-tuple buffer; best pass over "
            "1 Mi tuples)\n", m.sw_ns_per_tuple);
    fprintf(f, "shuffle_partitions,%u,,ours (StRoM 6.4 names none; its "
            "kernel takes up to 1024)\n", SH_PARTS);
    fprintf(f, "shuffle_chunk,%u,tuples,ours (Fig. 11: the tuples of one "
            "shuffle RPC WRITE; the client streams N in chunks)\n",
            SH_CHUNK);
    fprintf(f, "kernel_write_tlp,%u,bytes,PCIe 64-bit memory write TLP "
            "framing per write of at most %u bytes: the shuffle's 128-B "
            "writes are charged 152 B (tests/sim/README.md)\n",
            SNIC_SIM_PCIE_WRITE_TLP_BYTES, SNIC_SIM_PCIE_MAX_PAYLOAD);
    fprintf(f, "fig13_link_rate,%" PRIu64 ",Gbit/s,StRoM 7.1 (100 G on the "
            "VCU118)\n", (uint64_t)(SNIC_SIM_SRNIC_LINE_RATE_BPS / 1000000000));
    fprintf(f, "fig13_pcie_rtt,%u,ns,ours: SRNIC 6.2's 1.1 us (StRoM states "
            "none for the VCU118); the simulator's 100 G model "
            "(tests/sim/README.md)\n", SNIC_SIM_SRNIC_PCIE_RTT_NS);
    fprintf(f, "fig13_pcie_rate,%" PRIu64 ",Gbit/s,ours: the simulator's "
            "100 G model (SRNIC's Gen3 x16)\n",
            (uint64_t)(SNIC_SIM_SRNIC_PCIE_BPS / 1000000000));
    fprintf(f, "fig13_hll_clock,%" PRIu64 ",MHz,StRoM 7.1 (322 MHz)\n",
            (uint64_t)(HLL_CLOCK_HZ / 1000000));
    fprintf(f, "fig13_hll_beat,64,bytes/cycle,StRoM 7 (64-byte data path "
            "at 100 G) with 3.4's II = 1 (footnote 3); the unit in the "
            "port's receive pipeline: ours\n");
    fprintf(f, "fig13_control_beat,16,bytes/cycle,ours: a control that "
            "shows the unit's charge is applied\n");
    fprintf(f, "fig13_depth,%u,WRITEs,ours: WRITEs in flight\n", HLL_DEPTH);
    fclose(f);
    fig7(&m, out, lens_full, G_N_ELEMENTS(lens_full), iters);
    fig8(&m, out, values, G_N_ELEMENTS(values), iters);
    fig9(&m, out, objects, G_N_ELEMENTS(objects), iters);
    fig10(&m, out, objects10, G_N_ELEMENTS(objects10), pcts,
          G_N_ELEMENTS(pcts), ops);
    fig11(&m, out, smoke ? tuples_smoke : tuples,
          smoke ? G_N_ELEMENTS(tuples_smoke) : G_N_ELEMENTS(tuples));
    fig13a(out, smoke);
    fig13b(&m, out, smoke);
    printf("strom-repro: wrote %s/{model,fig7,fig8,fig9,fig10,fig11,fig13a,"
           "fig13b}.csv\n", out);
    return 0;
}
