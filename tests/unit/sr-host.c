/*
 * SRNIC's host software on an engine node: see sr-host.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "sr-host.h"

static void admin_ok(Node *n, struct snic_admin_cmd *cmd)
{
    g_assert_cmpuint(fake_admin(n->h, cmd, NULL), ==, SNIC_ADMIN_OK);
}

bool sr_host_peek(SrHost *s, struct snic_sr_ctrl *e)
{
    uint32_t slot = s->ci & ((1u << s->ctrlq_log2) - 1);
    uint8_t phase = (s->ci >> s->ctrlq_log2) & 1 ? 0 : SNIC_SR_CTRL_F_PHASE;

    fake_read(s->n->h, SR_CTRLQ + (uint64_t)slot * SNIC_SR_CTRLQ_ENTRY, e,
              sizeof(*e));
    return (e->flags & SNIC_SR_CTRL_F_PHASE) == phase;
}

/* Entries of the CtrlQ into the recovery logic; its decisions to s->out */
unsigned sr_host_take(SrHost *s)
{
    struct snic_sr_ctrl e;
    unsigned n = 0;

    while (sr_host_peek(s, &e)) {
        /* one QP per node here; the driver looks the QP up by e.qpn */
        if (GUINT32_FROM_LE(e.qpn) == s->sw.qpn) {
            snic_sr_sw_entry(&s->sw, &e);
            s->retry_ci = GUINT16_FROM_LE(e.retry_ci);
        }
        if (e.type == SNIC_SR_CTRL_RESP_RECV &&
            ((struct snic_sr_ctrl_recv *)&e)->recv_flags &
            SNIC_SR_RECV_F_WRITE) {
            s->write_imms++;
        }
        s->ci++;
        n++;
    }
    s->entries += n;
    s->nout = n ? snic_sr_sw_flush(&s->sw, s->out, G_N_ELEMENTS(s->out)) : 0;
    s->ci_done = s->ci;
    return n;
}

void sr_host_post(SrHost *s, const struct snic_sr_retry *e)
{
    uint32_t slot = s->retry_pi & ((1u << s->retry_log2) - 1);

    fake_write(s->n->h, SR_RETRYQ + (uint64_t)slot * SNIC_SR_RETRYQ_ENTRY, e,
               sizeof(*e));
    s->retry_pi++;
    s->retry_posted++;
    fake_doorbell(s->n->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_RETRYQ, s->n->qpn,
                  s->retry_pi);
}

/*
 * Post the decisions and return the CtrlQ's slots. All of them: out[]
 * holds a chunk, and what did not fit in it goes now, not at the QP's
 * next entry (which may never come: the sender idle, the receives it
 * waits for left undone). The RetryQ must have room for them: sized, as
 * snic.ko's, for every decision the host can hold at once.
 */
void sr_host_commit(SrHost *s)
{
    unsigned i;

    do {
        /* by hand (no simulator) a test may fill it on purpose */
        g_assert_true(!s->sim || (uint16_t)(s->retry_pi - s->retry_ci) +
                      s->nout <= 1u << s->retry_log2);
        for (i = 0; i < s->nout; i++) {
            sr_host_post(s, &s->out[i]);
        }
        i = s->nout;
        s->nout = i == G_N_ELEMENTS(s->out) ?
                  snic_sr_sw_flush(&s->sw, s->out, G_N_ELEMENTS(s->out)) : 0;
    } while (s->nout);
    fake_doorbell(s->n->h, SNIC_DB_KERNEL_PAGE, SNIC_DB_SR_CTRLQ, 0,
                  s->ci_done);
}

unsigned sr_host_poll(SrHost *s)
{
    unsigned n = sr_host_take(s);

    if (n) {
        sr_host_commit(s);
    }
    return n;
}

static void handler_run(void *opaque);

/* The handler's work is done: its decisions go out; more came meanwhile? */
static void handler_commit(void *opaque)
{
    SrHost *s = opaque;
    struct snic_sr_ctrl e;

    sr_host_commit(s);
    s->busy = false;
    if (sr_host_peek(s, &e)) {
        handler_run(s);     /* it polls again before it returns */
    }
}

static void handler_run(void *opaque)
{
    SrHost *s = opaque;
    unsigned n;

    s->armed = false;
    s->runs++;
    n = sr_host_take(s);
    if (!n) {
        return;
    }
    s->busy = true;
    snic_sim_timer_add(s->sim, snic_sim_now(s->sim) + n * SR_HOST_ENTRY_NS,
                       handler_commit, s);
}

static void irq(FakeHost *h, unsigned vector)
{
    SrHost *s = h->irq_opaque;

    if (vector != SR_CTRLQ_VECTOR || s->armed || s->busy) {
        return;     /* the handler running or due takes it */
    }
    s->armed = true;
    snic_sim_timer_add(s->sim, snic_sim_now(s->sim) + SR_HOST_IRQ_NS,
                       handler_run, s);
}

void sr_host_init(SrHost *s, Node *n, SnicSim *sim, uint8_t ctrlq_log2,
                  uint8_t retry_log2, uint16_t window)
{
    struct snic_admin_cmd cmd;

    memset(s, 0, sizeof(*s));
    s->n = n;
    s->sim = sim;
    s->ctrlq_log2 = ctrlq_log2;
    s->retry_log2 = retry_log2;
    snic_sr_sw_init(&s->sw, n->qpn);
    memset(fake_ptr(n->h, SR_CTRLQ, SNIC_SR_CTRLQ_ENTRY << ctrlq_log2), 0,
           SNIC_SR_CTRLQ_ENTRY << ctrlq_log2);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_CREATE_SR_CTRLQ,
                        sizeof(cmd.create_sr_ctrlq));
    cmd.create_sr_ctrlq.ring_addr = GUINT64_TO_LE(SR_CTRLQ);
    cmd.create_sr_ctrlq.log2_depth = ctrlq_log2;
    cmd.create_sr_ctrlq.vector = GUINT16_TO_LE(SR_CTRLQ_VECTOR);
    admin_ok(n, &cmd);
    snic_admin_cmd_init(&cmd, SNIC_ADMIN_SET_QP_SR, sizeof(cmd.set_qp_sr));
    cmd.set_qp_sr.qpn = GUINT32_TO_LE(n->qpn);
    cmd.set_qp_sr.log2_depth = retry_log2;
    cmd.set_qp_sr.window = GUINT16_TO_LE(window);
    cmd.set_qp_sr.ring_addr = GUINT64_TO_LE(SR_RETRYQ);
    admin_ok(n, &cmd);
    if (sim) {
        n->h->irq_hook = irq;
        n->h->irq_opaque = s;
    }
}

void sr_host_free(SrHost *s)
{
    s->n->h->irq_hook = NULL;
}
