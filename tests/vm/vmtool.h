/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmtool: what the two-host test programs of tests/vm (verbs-check, rpc-check,
 * transport-check) share: their output lines ("TOOL[ROLE]: ..."), failing (which tells the
 * peer too), the overall time limit, the out-of-band exchange over TCP in fixed-size
 * messages (like ibv_rc_pingpong's), opening the RDMA device and its port, writing a GID
 * into a message, and moving an RC QP through INIT, RTR and RTS with a GRH (RoCE).
 *
 * One copy so that the programs fail, time out and talk to their peer the same way;
 * scripts/build-guest-tools.sh links vmtool.c into each of them.
 */
#ifndef SNIC_TESTS_VM_VMTOOL_H
#define SNIC_TESTS_VM_VMTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define MSG_LEN 256             /* every TCP message is this long, NUL-padded */

/* Each program defines its name: the first word of every line it prints. */
extern const char tool_name[];
extern const char *role;        /* "client", "server", ...: in brackets after the name */
extern int timeout_s;           /* the deadline of every wait, seconds (-t) */
extern int sock;                /* the TCP connection to the peer, -1 before and after */

/* The options of every two-host program: -d DEV, -g GID index, -p TCP port, -i IB port,
 * -t seconds (into timeout_s). VM_OPTS is their getopt string. */
#define VM_OPTS "d:g:p:i:t:"
struct vm_opts {
    const char *dev;            /* -d; NULL: the first device */
    int gidx;                   /* -g; -1 when not given */
    int port, ib_port;          /* -p (the program's default before parsing), -i (1) */
};
/* Stores opt's value if opt is one of VM_OPTS and returns true; false for any other. */
bool vm_opt(struct vm_opts *o, int opt, const char *arg);

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "FAIL: ...", sends it to the peer as "FAIL ..." if connected, exits 1. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Ends the process with a FAIL line after secs: a bound on the whole run. Ignores SIGPIPE
 * (a peer gone is a write error that fail() reports). */
void arm_alarm(unsigned secs);
double now_s(void);

/* TCP: one connection; every transfer within timeout_s or fail() */
void tcp_server(int port);      /* waits up to 4 * timeout_s for the client */
void tcp_client(const char *host, int port);
void xfer_all(bool out, void *buf, size_t len, const char *what);
void send_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Receives one message into m (MSG_LEN bytes); it must start with want. */
void recv_msg(char *m, const char *want);

/* A GID as 32 hex digits (hex: 33 bytes) and back (hex has been checked to be 32 long) */
void gid_to_hex(const union ibv_gid *gid, char *hex);
void gid_from_hex(const char *hex, union ibv_gid *gid);

/* verbs */
struct ibv_context *open_rdma_device(const char *devname);     /* NULL: the first */
/* Port ib_port must be ACTIVE and GID gidx not empty; gives the port's MTU and the GID. */
void query_port_gid(struct ibv_context *vctx, int ib_port, int gidx, enum ibv_mtu *mtu, union ibv_gid *gid);
const char *mtu_str(enum ibv_mtu m);

/* An RC connection's attributes (the peer's from the out-of-band exchange) */
struct rc_conn {
    int ib_port, gidx;          /* ours: the port, the GID index of our address */
    enum ibv_mtu mtu;           /* the path MTU */
    uint8_t rd_atomic;          /* READs and atomics outstanding, each way */
    uint8_t timeout;            /* local ACK timeout: 4.096 us << timeout */
    uint32_t sq_psn;            /* our first PSN */
    uint32_t dest_qpn, rq_psn;  /* the peer's QP and its first PSN */
    union ibv_gid dgid;         /* the peer's GID */
};

void qp_to_init(struct ibv_qp *qp, int ib_port, int access);
void qp_to_rts(struct ibv_qp *qp, const struct rc_conn *rc);   /* INIT -> RTR -> RTS */

#endif
