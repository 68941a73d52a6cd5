// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs-check: end-to-end checks of an RDMA device's RC data path, by content, between two
 * hosts (libibverbs only; the out-of-band exchange goes over TCP like ibv_rc_pingpong).
 *
 *   server:  verbs-check [-d DEV] [-g GIDX] [-p PORT] [-i IBPORT] [-t SECS] [-s BYTES]
 *   client:  verbs-check [same options] SERVER-IP
 *
 * Checks (the client drives, the server verifies what lands in its memory):
 *   a. RDMA WRITE of BYTES (1 MiB) client -> server on QP A, then a SEND on the same QP:
 *      when the server's RECV completes, the WRITE's data must be in place (RC ordering);
 *      the server checks the SEND's bytes and the whole written pattern.
 *   b. RDMA READ of BYTES by the client from a server buffer holding another pattern;
 *      the client checks every byte.
 *   c. a second RC QP (QP B) to the server in the same process: a WRITE whose local SGE
 *      lies outside its MR (address past the end, valid lkey) must complete with
 *      IBV_WC_LOC_PROT_ERR, QP B must then be in the error state and a further WR on it
 *      must complete with IBV_WC_WR_FLUSH_ERR; QP A keeps working: a WRITE, a READ back of
 *      it, and a READ of a third pattern all succeed with the right bytes, and the server
 *      finds the WRITE's bytes in its memory.
 *
 * Self-test (-X a|b|c, server side): the server corrupts one word of what check a, b or c
 * verifies, so that check must fail; proves the checks can fail.
 *
 * RoCE: every QP is addressed with a GRH (sgid_index = -g, the peer's GID from the
 * exchange); the path MTU is the port's active_mtu. Every verbs call is checked; every wait
 * has a deadline (-t, default 30 s per completion or message; the whole run is bounded by
 * an alarm too), so it never hangs. Prints each check; exits 0 when all passed, 1 on any
 * failure (with a message saying what and where), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define SMALL (64 * 1024)       /* size of the check (c) transfers */
#define MSG_LEN 256             /* fixed-size TCP messages */
#define SEND_LEN 64             /* the SEND of check (a) */
#define NQP 2                   /* QP A (index 0) and QP B (index 1) */

static const char *role = "?";
static int timeout_s = 30;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    printf("verbs-check[%s]: ", role);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static int sock = -1;   /* the TCP connection, once there is one */
static void send_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    char text[MSG_LEN - 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    printf("verbs-check[%s]: FAIL: %s\n", role, text);
    fflush(stdout);
    if (sock >= 0) {
        int s = sock;
        sock = -1;   /* send_msg failing must not recurse */
        char m[MSG_LEN] = { 0 };
        snprintf(m, sizeof(m), "FAIL %s", text);
        (void)!write(s, m, sizeof(m));
        close(s);
    }
    exit(1);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "verbs-check: FAIL: overall time limit reached (a wait without its own deadline hung)\n";
    (void)!write(STDOUT_FILENO, m, sizeof(m) - 1);
    _exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- patterns ------------------------------------------------------------------------- */

/* Word i of pattern `seed`: a 32-bit mix of both, so shifted or stale data never matches. */
static uint32_t pat_word(uint32_t seed, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 32 | seed);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return (uint32_t)x;
}

static void pat_fill(void *buf, size_t len, uint32_t seed)
{
    uint32_t *w = buf;
    for (size_t i = 0; i < len / 4; i++)
        w[i] = pat_word(seed, i);
}

/* 0 when buf holds pattern seed; else describes the first mismatch in why. */
static int pat_check(const void *buf, size_t len, uint32_t seed, char *why, size_t whylen)
{
    const uint32_t *w = buf;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < len / 4; i++) {
        if (w[i] != pat_word(seed, i)) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    if (!bad)
        return 0;
    snprintf(why, whylen, "%zu of %zu words differ; first at byte offset %zu: got 0x%08x, expected 0x%08x%s",
             bad, len / 4, first * 4, w[first], pat_word(seed, first),
             w[first] == 0 ? " (never written?)" : "");
    return -1;
}

enum { PAT_A = 0xa11ce, PAT_B = 0xb0b, PAT_C = 0xc0ffee, PAT_D = 0xd00d, PAT_SEND = 0x5e4d };

/* ---- TCP ------------------------------------------------------------------------------ */

static void xfer_all(bool out, void *buf, size_t len, const char *what)
{
    char *p = buf;
    double end = now_s() + timeout_s;
    while (len) {
        struct pollfd pfd = { .fd = sock, .events = out ? POLLOUT : POLLIN };
        int ms = (int)((end - now_s()) * 1000);
        if (ms <= 0)
            fail("no %s from the peer within %d s", what, timeout_s);
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            fail("poll on the TCP connection: %s", strerror(errno));
        if (r == 0)
            continue;
        ssize_t n = out ? write(sock, p, len) : read(sock, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fail("TCP %s (%s): %s", out ? "write" : "read", what, strerror(errno));
        if (n == 0)
            fail("the peer closed the TCP connection while we waited for %s (did it fail? see its log)", what);
        p += n;
        len -= (size_t)n;
    }
}

static void send_msg(const char *fmt, ...)
{
    char m[MSG_LEN] = { 0 };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof(m), fmt, ap);
    va_end(ap);
    xfer_all(true, m, sizeof(m), "message");
}

/* Receive one message; it must start with `want` (a FAIL from the peer ends us too). */
static void recv_msg(char *m, const char *want)
{
    xfer_all(false, m, MSG_LEN, want);
    m[MSG_LEN - 1] = 0;
    if (!strncmp(m, "FAIL ", 5)) {
        int s = sock;
        sock = -1;
        close(s);
        fail("the peer failed: %s", m + 5);
    }
    if (strncmp(m, want, strlen(want)))
        fail("protocol: expected a '%s' message from the peer, got '%.60s'", want, m);
}

static void tcp_server(int port)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (ls < 0)
        fail("socket: %s", strerror(errno));
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY) };
    if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
        fail("bind/listen on TCP port %d: %s", port, strerror(errno));
    say("listening on TCP port %d (waiting up to %d s for the client)", port, 4 * timeout_s);
    struct pollfd pfd = { .fd = ls, .events = POLLIN };
    int r;
    do
        r = poll(&pfd, 1, 4 * timeout_s * 1000);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        fail("no client connected to TCP port %d within %d s", port, 4 * timeout_s);
    sock = accept(ls, NULL, NULL);
    if (sock < 0)
        fail("accept: %s", strerror(errno));
    close(ls);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void tcp_client(const char *host, int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        fail("'%s' is not an IPv4 address", host);
    double end = now_s() + timeout_s;
    int one = 1;
    for (;;) {
        sock = socket(AF_INET, SOCK_STREAM, 0);
        if (sock < 0)
            fail("socket: %s", strerror(errno));
        if (!connect(sock, (struct sockaddr *)&a, sizeof(a)))
            break;
        int e = errno;
        close(sock);
        sock = -1;
        if (now_s() > end)
            fail("cannot connect to %s:%d within %d s: %s", host, port, timeout_s, strerror(e));
        usleep(200 * 1000);
    }
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    say("connected to %s:%d", host, port);
}

/* ---- verbs ---------------------------------------------------------------------------- */

struct peer_info {
    uint32_t qpn[NQP], psn[NQP];
    union ibv_gid gid;
    uint64_t addr;
    uint32_t rkey;
    uint64_t len;
};

struct ctx {
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq[NQP];
    struct ibv_qp *qp[NQP];
    struct ibv_mr *mr;
    char *buf;
    size_t buflen;
    int ib_port, gidx;
    enum ibv_mtu mtu;
    uint8_t rd_atom;
    union ibv_gid gid;
};

static const char *mtu_str(enum ibv_mtu m)
{
    switch (m) {
    case IBV_MTU_256: return "256";
    case IBV_MTU_512: return "512";
    case IBV_MTU_1024: return "1024";
    case IBV_MTU_2048: return "2048";
    case IBV_MTU_4096: return "4096";
    }
    return "?";
}

static void gid_str(const union ibv_gid *g, char *s, size_t n)
{
    if (!inet_ntop(AF_INET6, g->raw, s, (socklen_t)n))
        snprintf(s, n, "?");
}

static void open_device(struct ctx *c, const char *devname)
{
    int num;
    struct ibv_device **list = ibv_get_device_list(&num);
    if (!list)
        fail("ibv_get_device_list: %s", strerror(errno));
    if (!num)
        fail("no RDMA devices (is the driver loaded, the provider installed?)");
    struct ibv_device *dev = NULL;
    for (int i = 0; i < num; i++)
        if (!devname || !strcmp(ibv_get_device_name(list[i]), devname)) {
            dev = list[i];
            break;
        }
    if (!dev)
        fail("RDMA device '%s' not found", devname);
    c->vctx = ibv_open_device(dev);
    if (!c->vctx)
        fail("ibv_open_device(%s): %s", ibv_get_device_name(dev), strerror(errno));
    say("device %s", ibv_get_device_name(dev));
    ibv_free_device_list(list);

    struct ibv_device_attr da;
    int r = ibv_query_device(c->vctx, &da);
    if (r)
        fail("ibv_query_device: %s", strerror(r));
    struct ibv_port_attr pa;
    r = ibv_query_port(c->vctx, (uint8_t)c->ib_port, &pa);
    if (r)
        fail("ibv_query_port(%d): %s", c->ib_port, strerror(r));
    if (pa.state != IBV_PORT_ACTIVE)
        fail("port %d is not ACTIVE (state %d)", c->ib_port, pa.state);
    if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
        say("note: port %d link layer is not Ethernet (%d); using a GRH anyway", c->ib_port, pa.link_layer);
    c->mtu = pa.active_mtu;
    /* Outstanding READs: what both ends allow (each side uses the smaller of its limits). */
    int atom = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom : da.max_qp_init_rd_atom;
    c->rd_atom = (uint8_t)(atom > 16 ? 16 : atom < 1 ? 1 : atom);
    if (da.max_qp_rd_atom < 1 || da.max_qp_init_rd_atom < 1)
        fail("device reports max_qp_rd_atom %d, max_qp_init_rd_atom %d: RDMA READ is impossible",
             da.max_qp_rd_atom, da.max_qp_init_rd_atom);
    if ((uint64_t)da.max_mr_size < c->buflen)
        fail("device max_mr_size %" PRIu64 " < the %zu-byte buffer", (uint64_t)da.max_mr_size, c->buflen);

    r = ibv_query_gid(c->vctx, (uint8_t)c->ib_port, c->gidx, &c->gid);
    if (r)
        fail("ibv_query_gid(port %d, index %d): %s", c->ib_port, c->gidx, strerror(r));
    static const union ibv_gid zero;
    if (!memcmp(&c->gid, &zero, sizeof(zero)))
        fail("GID index %d of port %d is empty (pick the ::ffff:<IPv4> RoCE v2 one with -g)", c->gidx, c->ib_port);
    char gs[64];
    gid_str(&c->gid, gs, sizeof(gs));
    say("port %d ACTIVE, active_mtu %s, GID[%d] %s, max_rd_atomic %u", c->ib_port, mtu_str(c->mtu), c->gidx,
        gs, c->rd_atom);
}

static void create_resources(struct ctx *c, int access)
{
    c->pd = ibv_alloc_pd(c->vctx);
    if (!c->pd)
        fail("ibv_alloc_pd: %s", strerror(errno));
    if (posix_memalign((void **)&c->buf, 4096, c->buflen))
        fail("cannot allocate %zu bytes", c->buflen);
    memset(c->buf, 0, c->buflen);
    c->mr = ibv_reg_mr(c->pd, c->buf, c->buflen, access);
    if (!c->mr)
        fail("ibv_reg_mr(%zu bytes): %s", c->buflen, strerror(errno));
    for (int i = 0; i < NQP; i++) {
        c->cq[i] = ibv_create_cq(c->vctx, 16, NULL, NULL, 0);
        if (!c->cq[i])
            fail("ibv_create_cq: %s", strerror(errno));
        struct ibv_qp_init_attr ia = {
            .send_cq = c->cq[i], .recv_cq = c->cq[i], .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
            .cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
        };
        c->qp[i] = ibv_create_qp(c->pd, &ia);
        if (!c->qp[i])
            fail("ibv_create_qp (RC) #%d: %s", i, strerror(errno));
        struct ibv_qp_attr a = {
            .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)c->ib_port,
            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
        };
        int r = ibv_modify_qp(c->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        if (r)
            fail("ibv_modify_qp(QP %#x -> INIT): %s", c->qp[i]->qp_num, strerror(r));
    }
}

static void connect_qp(struct ctx *c, int i, const struct peer_info *p, uint32_t my_psn)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR, .path_mtu = c->mtu, .dest_qp_num = p->qpn[i], .rq_psn = p->psn[i],
        .max_dest_rd_atomic = c->rd_atom, .min_rnr_timer = 12,
        .ah_attr = {
            .is_global = 1, .dlid = 0, .sl = 0, .src_path_bits = 0, .port_num = (uint8_t)c->ib_port,
            .grh = { .dgid = p->gid, .sgid_index = (uint8_t)c->gidx, .hop_limit = 64, .flow_label = 0, .traffic_class = 0 },
        },
    };
    int r = ibv_modify_qp(c->qp[i], &a,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (r)
        fail("ibv_modify_qp(QP %#x -> RTR, dest QP %#x, path MTU %s): %s", c->qp[i]->qp_num, p->qpn[i],
             mtu_str(c->mtu), strerror(r));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 16;     /* 268 ms: TCG guests are slow */
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = my_psn;
    a.max_rd_atomic = c->rd_atom;
    r = ibv_modify_qp(c->qp[i], &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC);
    if (r)
        fail("ibv_modify_qp(QP %#x -> RTS): %s", c->qp[i]->qp_num, strerror(r));
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    int r = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
    if (r)
        fail("ibv_query_qp(QP %#x): %s", qp->qp_num, strerror(r));
    return a.qp_state;
}

static const char *state_str(enum ibv_qp_state s)
{
    static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
    return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* Wait for one completion on cq (deadline -t); it must be wr_id with status want. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status want, const char *what)
{
    struct ibv_wc wc;
    double t0 = now_s(), end = t0 + timeout_s;
    int n;
    for (;;) {
        n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0)
            fail("ibv_poll_cq (%s): returned %d", what, n);
        if (n > 0)
            break;
        if (now_s() > end)
            fail("%s: no completion within %d s", what, timeout_s);
        sched_yield();
    }
    if (wc.wr_id != wr_id)
        fail("%s: completion for wr_id %" PRIu64 " (status %s), expected wr_id %" PRIu64, what, wc.wr_id,
             ibv_wc_status_str(wc.status), wr_id);
    if (wc.status != want)
        fail("%s: completion status %s (%d, vendor_err %#x), expected %s", what, ibv_wc_status_str(wc.status),
             wc.status, wc.vendor_err, ibv_wc_status_str(want));
}

static void post_rdma(struct ctx *c, int qi, enum ibv_wr_opcode op, uint64_t wr_id, uint64_t laddr, uint32_t len,
                      uint64_t raddr, uint32_t rkey, const char *what)
{
    struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = c->mr->lkey };
    struct ibv_send_wr wr = {
        .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op, .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = { .remote_addr = raddr, .rkey = rkey },
    }, *bad = NULL;
    int r = ibv_post_send(c->qp[qi], &wr, &bad);
    if (r)
        fail("ibv_post_send (%s): %s", what, strerror(r));
}

static void post_recv(struct ctx *c, int qi, uint64_t wr_id, uint64_t laddr, uint32_t len)
{
    struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = c->mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
    int r = ibv_post_recv(c->qp[qi], &wr, &bad);
    if (r)
        fail("ibv_post_recv: %s", strerror(r));
}

static void destroy_resources(struct ctx *c)
{
    int r;
    for (int i = 0; i < NQP; i++) {
        if ((r = ibv_destroy_qp(c->qp[i])))
            fail("ibv_destroy_qp: %s", strerror(r));
        if ((r = ibv_destroy_cq(c->cq[i])))
            fail("ibv_destroy_cq: %s", strerror(r));
    }
    if ((r = ibv_dereg_mr(c->mr)))
        fail("ibv_dereg_mr: %s", strerror(r));
    if ((r = ibv_dealloc_pd(c->pd)))
        fail("ibv_dealloc_pd: %s", strerror(r));
    if ((r = ibv_close_device(c->vctx)))
        fail("ibv_close_device: %s", strerror(r));
    free(c->buf);
}

/* ---- exchange ------------------------------------------------------------------------- */

static void exchange(struct ctx *c, struct peer_info *me, struct peer_info *peer)
{
    char m[MSG_LEN], gs[33];
    for (int i = 0; i < 16; i++)
        sprintf(gs + 2 * i, "%02x", me->gid.raw[i]);
    send_msg("INFO %08x %06x %08x %06x %s %016" PRIx64 " %08x %016" PRIx64, me->qpn[0], me->psn[0], me->qpn[1],
             me->psn[1], gs, me->addr, me->rkey, me->len);
    recv_msg(m, "INFO ");
    char pg[33];
    if (sscanf(m, "INFO %x %x %x %x %32s %" SCNx64 " %x %" SCNx64, &peer->qpn[0], &peer->psn[0], &peer->qpn[1],
               &peer->psn[1], pg, &peer->addr, &peer->rkey, &peer->len) != 8 || strlen(pg) != 32)
        fail("cannot parse the peer's INFO message '%.100s'", m);
    for (int i = 0; i < 16; i++) {
        unsigned v;
        sscanf(pg + 2 * i, "%2x", &v);
        peer->gid.raw[i] = (uint8_t)v;
    }
    char g[64];
    gid_str(&peer->gid, g, sizeof(g));
    say("peer: QP A %#x, QP B %#x, GID %s, buffer %" PRIu64 " bytes rkey %#x", peer->qpn[0], peer->qpn[1], g,
        peer->len, peer->rkey);
    (void)c;
}

/* Server buffer: [W: n][R: n][W2: SMALL][R2: SMALL][recv: SEND_LEN], W* zero, R* patterns.
 * Client buffer: [src A: n][dst B: n][src C: SMALL][dst: SMALL][dst: SMALL][send: SEND_LEN]. */
static size_t layout_len(size_t n) { return 2 * n + 3 * SMALL + 4096; }

int main(int argc, char **argv)
{
    const char *dev = NULL;
    int gidx = -1, tcp_port = 18516, ib_port = 1, opt, corrupt = 0;
    size_t n = 1 << 20;
    while ((opt = getopt(argc, argv, "d:g:p:i:t:s:X:h")) != -1) {
        switch (opt) {
        case 'd': dev = optarg; break;
        case 'g': gidx = atoi(optarg); break;
        case 'p': tcp_port = atoi(optarg); break;
        case 'i': ib_port = atoi(optarg); break;
        case 't': timeout_s = atoi(optarg); break;
        case 's': n = strtoull(optarg, NULL, 0); break;
        case 'X': corrupt = optarg[0]; break;
        default:
            fprintf(stderr,
                    "usage: %s [-d DEV] -g GID-INDEX [-p TCP-PORT (18516)] [-i IB-PORT (1)] [-t SECS (30)]\n"
                    "          [-s BYTES (1048576)] [-X a|b|c] [SERVER-IPv4]\n"
                    "  without SERVER-IPv4: the server (listens); with it: the client (drives the checks)\n"
                    "  -X CHECK (server): self-test, corrupt one word of what CHECK verifies: it must fail\n",
                    argv[0]);
            return 2;
        }
    }
    const char *server_ip = optind < argc ? argv[optind] : NULL;
    if (optind + 1 < argc || gidx < 0 || timeout_s < 1 || tcp_port < 1 || tcp_port > 65535 || n < SMALL ||
        n % 4096 || n > (1u << 30) || (corrupt && (server_ip || !strchr("abc", corrupt)))) {
        fprintf(stderr, "verbs-check: usage error: need -g GID-INDEX, at most one SERVER-IPv4, -t >= 1, "
                        "-s a multiple of 4096 in [%d, 1 GiB], -X a|b|c on the server only (try -h)\n", SMALL);
        return 2;
    }
    bool client = server_ip != NULL;
    role = client ? "client" : "server";
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(20 * timeout_s));
    double t_start = now_s();

    struct ctx c = { .ib_port = ib_port, .gidx = gidx, .buflen = layout_len(n) };
    open_device(&c, dev);
    create_resources(&c, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    char *b = c.buf;
    uint64_t base = (uint64_t)(uintptr_t)b;

    struct peer_info me = { .gid = c.gid, .addr = base, .rkey = c.mr->rkey, .len = c.buflen }, peer;
    srand48((long)getpid() ^ (long)time(NULL));
    for (int i = 0; i < NQP; i++) {
        me.qpn[i] = c.qp[i]->qp_num;
        me.psn[i] = (uint32_t)lrand48() & 0xffffff;
    }
    char m[MSG_LEN], why[200];

    if (client)
        tcp_client(server_ip, tcp_port);
    else
        tcp_server(tcp_port);
    exchange(&c, &me, &peer);
    if (peer.len != c.buflen)
        fail("the peer's buffer is %" PRIu64 " bytes, ours %zu: both sides must use the same -s", peer.len, c.buflen);

    size_t off_w = 0, off_r = n, off_w2 = 2 * n, off_r2 = 2 * n + SMALL, off_msg = 2 * n + 3 * SMALL;
    if (!client) {
        pat_fill(b + off_r, n, PAT_B);
        pat_fill(b + off_r2, SMALL, PAT_D);
        if (corrupt == 'b')
            b[off_r + n / 2 + 1] ^= 0x40;
        if (corrupt == 'c')
            b[off_r2 + SMALL - 1] ^= 0x01;
        if (corrupt)
            say("self-test: corrupting one word of what check %c verifies: that check must FAIL", corrupt);
        post_recv(&c, 0, 100, base + off_msg, SEND_LEN);   /* for check (a)'s SEND */
    } else {
        pat_fill(b + 0, n, PAT_A);
        memset(b + n, 0xee, n);
        pat_fill(b + 2 * n, SMALL, PAT_C);
        pat_fill(b + off_msg, SEND_LEN, PAT_SEND);
    }
    for (int i = 0; i < NQP; i++)
        connect_qp(&c, i, &peer, me.psn[i]);
    say("QP A %#x and QP B %#x connected (RTS), path MTU %s", c.qp[0]->qp_num, c.qp[1]->qp_num, mtu_str(c.mtu));
    /* Both sides are at RTR (RECV posted) before the client sends anything. */
    send_msg("READY");
    recv_msg(m, "READY");

    uint64_t rb = peer.addr;
    int checks = 0;
    double t;
    if (client) {
        /* (a) */
        say("check a: RDMA WRITE %zu bytes (pattern A) to the server on QP A, then a %d-byte SEND", n, SEND_LEN);
        t = now_s();
        post_rdma(&c, 0, IBV_WR_RDMA_WRITE, 1, base + 0, (uint32_t)n, rb + off_w, peer.rkey, "check a WRITE");
        expect_wc(c.cq[0], 1, IBV_WC_SUCCESS, "check a: RDMA WRITE");
        double tw = now_s() - t;
        struct ibv_sge sge = { .addr = base + off_msg, .length = SEND_LEN, .lkey = c.mr->lkey };
        struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                  .send_flags = IBV_SEND_SIGNALED }, *bad;
        int r = ibv_post_send(c.qp[0], &wr, &bad);
        if (r)
            fail("ibv_post_send (check a SEND): %s", strerror(r));
        expect_wc(c.cq[0], 2, IBV_WC_SUCCESS, "check a: SEND");
        recv_msg(m, "A-OK");
        say("check a: PASS (WRITE completed in %.3f s, %.1f MB/s; the server verified all %zu bytes)", tw,
            n / tw / 1e6, n);
        checks++;

        /* (b) */
        say("check b: RDMA READ %zu bytes (pattern B) from the server on QP A", n);
        t = now_s();
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 3, base + n, (uint32_t)n, rb + off_r, peer.rkey, "check b READ");
        expect_wc(c.cq[0], 3, IBV_WC_SUCCESS, "check b: RDMA READ");
        double tr = now_s() - t;
        if (pat_check(b + n, n, PAT_B, why, sizeof(why)))
            fail("check b: the READ's data is wrong: %s", why);
        say("check b: PASS (READ completed in %.3f s, %.1f MB/s; all %zu bytes match)", tr, n / tr / 1e6, n);
        checks++;

        /* (c) */
        say("check c: WRITE on QP B with its local SGE outside the MR (addr = MR end + 4096, len 4096, valid lkey)");
        post_rdma(&c, 1, IBV_WR_RDMA_WRITE, 4, base + c.buflen + 4096, 4096, rb + off_w2, peer.rkey,
                  "check c bad WRITE");
        expect_wc(c.cq[1], 4, IBV_WC_LOC_PROT_ERR, "check c: out-of-MR WRITE on QP B");
        say("check c: the bad WRITE completed with %s", ibv_wc_status_str(IBV_WC_LOC_PROT_ERR));
        enum ibv_qp_state s = qp_state(c.qp[1]);
        if (s != IBV_QPS_ERR)
            fail("check c: QP B is in state %s after the protection error, expected ERR", state_str(s));
        post_rdma(&c, 1, IBV_WR_RDMA_WRITE, 5, base + 2 * n, 4096, rb + off_w2, peer.rkey, "check c WRITE on QP B in ERR");
        expect_wc(c.cq[1], 5, IBV_WC_WR_FLUSH_ERR, "check c: WRITE posted to QP B in ERR");
        say("check c: QP B is in ERR; a WR posted after it completed with %s", ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
        s = qp_state(c.qp[0]);
        if (s != IBV_QPS_RTS)
            fail("check c: QP A is in state %s, expected RTS (QP B's error must not touch it)", state_str(s));
        post_rdma(&c, 0, IBV_WR_RDMA_WRITE, 6, base + 2 * n, SMALL, rb + off_w2, peer.rkey, "check c WRITE on QP A");
        expect_wc(c.cq[0], 6, IBV_WC_SUCCESS, "check c: WRITE on QP A");
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 7, base + 2 * n + SMALL, SMALL, rb + off_w2, peer.rkey,
                  "check c READ back on QP A");
        expect_wc(c.cq[0], 7, IBV_WC_SUCCESS, "check c: READ back on QP A");
        if (pat_check(b + 2 * n + SMALL, SMALL, PAT_C, why, sizeof(why)))
            fail("check c: reading back QP A's WRITE gave wrong data: %s", why);
        post_rdma(&c, 0, IBV_WR_RDMA_READ, 8, base + 2 * n + 2 * SMALL, SMALL, rb + off_r2, peer.rkey,
                  "check c READ on QP A");
        expect_wc(c.cq[0], 8, IBV_WC_SUCCESS, "check c: READ on QP A");
        if (pat_check(b + 2 * n + 2 * SMALL, SMALL, PAT_D, why, sizeof(why)))
            fail("check c: QP A's READ gave wrong data: %s", why);
        send_msg("C-DONE");
        recv_msg(m, "C-OK");
        say("check c: PASS (QP A still works: WRITE %d bytes, READ back and READ %d bytes of pattern D, all "
            "correct; the server found the WRITE's bytes)", SMALL, SMALL);
        checks++;
        send_msg("BYE");
    } else {
        /* (a): the SEND arrives after the WRITE on the same QP. */
        say("check a: waiting for the client's RDMA WRITE + SEND");
        expect_wc(c.cq[0], 100, IBV_WC_SUCCESS, "check a: RECV of the client's SEND");
        if (pat_check(b + off_msg, SEND_LEN, PAT_SEND, why, sizeof(why)))
            fail("check a: the SEND's payload is wrong: %s", why);
        if (corrupt == 'a')
            b[off_w + 4096] ^= 0x80;
        if (pat_check(b + off_w, n, PAT_A, why, sizeof(why)))
            fail("check a: the RDMA WRITE's data is wrong when its following SEND arrived: %s", why);
        say("check a: PASS (SEND payload and all %zu WRITE bytes match)", n);
        send_msg("A-OK");
        checks++;
        say("check b: the client READs our pattern B (nothing to do here)");
        recv_msg(m, "C-DONE");
        if (pat_check(b + off_w2, SMALL, PAT_C, why, sizeof(why)))
            fail("check c: QP A's WRITE after QP B's error left wrong data: %s", why);
        if (pat_check(b + off_w, n, PAT_A, why, sizeof(why)))
            fail("check c: check a's data changed afterwards: %s", why);
        if (pat_check(b + off_r, n, PAT_B, why, sizeof(why)) || pat_check(b + off_r2, SMALL, PAT_D, why, sizeof(why)))
            fail("check c: the READ sources changed: %s", why);
        send_msg("C-OK");
        say("check c: PASS on our side (QP A's WRITE after QP B's error landed correctly; nothing else changed)");
        checks++;
        recv_msg(m, "BYE");
    }
    destroy_resources(&c);
    close(sock);
    sock = -1;
    say("PASS: %d checks in %.1f s", checks, now_s() - t_start);
    return 0;
}
