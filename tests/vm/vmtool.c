// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtool: output, failure, time limits, the TCP exchange and RC connection set-up shared by
 * the two-host test programs of tests/vm (see vmtool.h).
 */
#define _GNU_SOURCE
#include "vmtool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char *role = "?";
int timeout_s = 30;
int sock = -1;

bool vm_opt(struct vm_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case 'd': o->dev = arg; return true;
    case 'g': o->gidx = atoi(arg); return true;
    case 'p': o->port = atoi(arg); return true;
    case 'i': o->ib_port = atoi(arg); return true;
    case 't': timeout_s = atoi(arg); return true;
    default: return false;
    }
}

void say(const char *fmt, ...)
{
    va_list ap;
    printf("%s[%s]: ", tool_name, role);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

void fail(const char *fmt, ...)
{
    char text[MSG_LEN - 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    printf("%s[%s]: FAIL: %s\n", tool_name, role, text);
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

/* Built before the alarm can fire: the handler may only write(2) it */
static char alarm_text[128];
static size_t alarm_len;

static void on_alarm(int sig)
{
    (void)sig;
    (void)!write(STDOUT_FILENO, alarm_text, alarm_len);
    _exit(1);
}

void arm_alarm(unsigned secs)
{
    int n = snprintf(alarm_text, sizeof(alarm_text),
                     "%s: FAIL: overall time limit reached (a wait without its own deadline hung)\n", tool_name);
    alarm_len = n < 0 ? 0 : (size_t)n < sizeof(alarm_text) ? (size_t)n : sizeof(alarm_text) - 1;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm(secs);
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- TCP ------------------------------------------------------------------------------ */

void xfer_all(bool out, void *buf, size_t len, const char *what)
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

void send_msg(const char *fmt, ...)
{
    char m[MSG_LEN] = { 0 };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof(m), fmt, ap);
    va_end(ap);
    xfer_all(true, m, sizeof(m), "message");
}

/* A FAIL from the peer ends us too. */
void recv_msg(char *m, const char *want)
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

void tcp_server(int port)
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

void tcp_client(const char *host, int port)
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

void gid_to_hex(const union ibv_gid *gid, char *hex)
{
    for (int i = 0; i < 16; i++)
        sprintf(hex + 2 * i, "%02x", gid->raw[i]);
}

void gid_from_hex(const char *hex, union ibv_gid *gid)
{
    for (int i = 0; i < 16; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        gid->raw[i] = (uint8_t)v;
    }
}

/* ---- verbs ---------------------------------------------------------------------------- */

struct ibv_context *open_rdma_device(const char *devname)
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
    struct ibv_context *vctx = ibv_open_device(dev);
    if (!vctx)
        fail("ibv_open_device(%s): %s", ibv_get_device_name(dev), strerror(errno));
    ibv_free_device_list(list);
    return vctx;
}

void query_port_gid(struct ibv_context *vctx, int ib_port, int gidx, enum ibv_mtu *mtu, union ibv_gid *gid)
{
    struct ibv_port_attr pa;
    int r = ibv_query_port(vctx, (uint8_t)ib_port, &pa);
    if (r)
        fail("ibv_query_port(%d): %s", ib_port, strerror(r));
    if (pa.state != IBV_PORT_ACTIVE)
        fail("port %d is not ACTIVE (state %d)", ib_port, pa.state);
    if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
        say("note: port %d link layer is not Ethernet (%d); using a GRH anyway", ib_port, pa.link_layer);
    *mtu = pa.active_mtu;
    r = ibv_query_gid(vctx, (uint8_t)ib_port, gidx, gid);
    if (r)
        fail("ibv_query_gid(port %d, index %d): %s", ib_port, gidx, strerror(r));
    static const union ibv_gid zero;
    if (!memcmp(gid, &zero, sizeof(zero)))
        fail("GID index %d of port %d is empty (pick the ::ffff:<IPv4> RoCE v2 one with -g)", gidx, ib_port);
}

const char *mtu_str(enum ibv_mtu m)
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

void qp_to_init(struct ibv_qp *qp, int ib_port, int access)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)ib_port, .qp_access_flags = access,
    };
    int r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (r)
        fail("ibv_modify_qp(QP %#x -> INIT): %s", qp->qp_num, strerror(r));
}

void qp_to_rts(struct ibv_qp *qp, const struct rc_conn *rc)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR, .path_mtu = rc->mtu, .dest_qp_num = rc->dest_qpn, .rq_psn = rc->rq_psn,
        .max_dest_rd_atomic = rc->rd_atomic, .min_rnr_timer = 12,
        .ah_attr = {
            .is_global = 1, .port_num = (uint8_t)rc->ib_port,
            .grh = { .dgid = rc->dgid, .sgid_index = (uint8_t)rc->gidx, .hop_limit = 64 },
        },
    };
    int r = ibv_modify_qp(qp, &a,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (r)
        fail("ibv_modify_qp(QP %#x -> RTR, dest QP %#x, path MTU %s): %s", qp->qp_num, rc->dest_qpn,
             mtu_str(rc->mtu), strerror(r));
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = rc->timeout;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = rc->sq_psn;
    a.max_rd_atomic = rc->rd_atomic;
    r = ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC);
    if (r)
        fail("ibv_modify_qp(QP %#x -> RTS): %s", qp->qp_num, strerror(r));
}
