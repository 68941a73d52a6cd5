// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udp-loopback: the host's UDP throughput over 127.0.0.1 for one datagram size, the ceiling
 * of QEMU's `-netdev dgram` wire between two VMs (one datagram per Ethernet frame).
 * A sender thread blasts datagrams of SIZE bytes at a receiver thread; after a warm-up of
 * 0.5 s the receiver counts what arrives for SECONDS. Benchmark helper for
 * scripts/bench-vm.sh, not a test.
 *
 *   udp-loopback [-s SIZE (4200)] [-t SECONDS (3)]
 *
 * Prints one line: `udp-loopback size=SIZE seconds=S datagrams=N gbps=G sent=M`
 * (G = received datagram bytes x 8 / S / 1e9). Exit 1 on any socket error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static size_t size = 4200;
static double seconds = 3.0;
static atomic_int stop;
static uint64_t sent;
static struct sockaddr_in dst;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "udp-loopback: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void *sender(void *arg)
{
    (void)arg;
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&dst, sizeof(dst)))
        die("sender socket");
    char *buf = calloc(1, size);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (send(s, buf, size, 0) == (ssize_t)size)
            sent++;
        else if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED)
            die("send");
    }
    free(buf);
    close(s);
    return NULL;
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "s:t:")) != -1) {
        switch (opt) {
        case 's': size = strtoul(optarg, NULL, 0); break;
        case 't': seconds = atof(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-s SIZE (4200)] [-t SECONDS (3)]\n", argv[0]);
            return 2;
        }
    }
    if (size < 1 || size > 65507 || seconds <= 0) {
        fprintf(stderr, "udp-loopback: SIZE in [1, 65507], SECONDS > 0\n");
        return 2;
    }
    int r = socket(AF_INET, SOCK_DGRAM, 0), rcvbuf = 16 << 20;
    if (r < 0)
        die("socket");
    setsockopt(r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
    setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    dst.sin_family = AF_INET;
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(dst);
    if (bind(r, (struct sockaddr *)&dst, sizeof(dst)) || getsockname(r, (struct sockaddr *)&dst, &len))
        die("bind");

    pthread_t th;
    if (pthread_create(&th, NULL, sender, NULL))
        die("pthread_create");
    char *buf = malloc(size + 1);
    double start = now_s(), t0 = start + 0.5, t1 = t0 + seconds, t;
    uint64_t n = 0;
    while ((t = now_s()) < t1) {
        ssize_t got = recv(r, buf, size + 1, 0);
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            die("recv");
        if (got == (ssize_t)size && t >= t0)
            n++;
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    printf("udp-loopback size=%zu seconds=%.1f datagrams=%llu gbps=%.2f sent=%llu\n", size, seconds,
           (unsigned long long)n, n * size * 8.0 / seconds / 1e9, (unsigned long long)sent);
    free(buf);
    close(r);
    return n ? 0 : 1;
}
