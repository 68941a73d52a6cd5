// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * SRNIC's onloaded bitmaps and loss recovery decisions (SRNIC, NSDI'23,
 * section 4.4.2, Fig. 7 and 8): see snic_sr_recovery.h. The device keeps
 * only ePSN, lACK and the fast-exit range; everything that needs a
 * bitmap is decided here, from the metadata the device reports.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "snic_sr_recovery.h"

#define PSN_MASK        0xffffffu
#define W               SNIC_SR_SW_WINDOW

static __u32 psn_add(__u32 psn, __u32 n)
{
	return (psn + n) & PSN_MASK;
}

static __u32 psn_dist(__u32 to, __u32 from)
{
	return (to - from) & PSN_MASK;
}

/* a before b in the 24-bit PSN space (IBA 9.7.2: half of it either way) */
static int psn_before(__u32 a, __u32 b)
{
	return a != b && psn_dist(b, a) < (1u << 23);
}

/* Little-endian fields, read and written bytewise: no byte-order API */
static __u32 rd32(const __le32 *p)
{
	const __u8 *b = (const __u8 *)p;

	return b[0] | (__u32)b[1] << 8 | (__u32)b[2] << 16 | (__u32)b[3] << 24;
}

static void wr32(__le32 *p, __u32 v)
{
	__u8 *b = (__u8 *)p;

	b[0] = v;
	b[1] = v >> 8;
	b[2] = v >> 16;
	b[3] = v >> 24;
}

/*
 * Bitmap bits read: a unit test counts them (SNIC_SR_COUNT_PROBES) to
 * bound the decisions' work, which must stay linear in the window (the
 * driver runs them in its interrupt handler)
 */
#ifdef SNIC_SR_COUNT_PROBES
extern unsigned long snic_sr_probes;
#define PROBE()		(snic_sr_probes++)
#else
#define PROBE()		((void)0)
#endif

static int bit_get(const __u32 *m, __u32 psn)
{
	PROBE();
	return m[psn % W / 32] >> (psn % 32) & 1;
}

static void bit_set(__u32 *m, __u32 psn, int on)
{
	__u32 *w = &m[psn % W / 32];

	*w = (*w & ~(1u << (psn % 32))) | (__u32)!!on << (psn % 32);
}

/* The bits of [from, to) go: those PSNs are below the window now */
static void slide(__u32 *m, __u32 *m2, __u32 from, __u32 to)
{
	__u32 n = psn_dist(to, from), i;

	if (n >= W) {
		memset(m, 0, W / 8);
		if (m2)
			memset(m2, 0, W / 8);
		return;
	}
	for (i = 0; i < n; i++) {
		bit_set(m, psn_add(from, i), 0);
		if (m2)
			bit_set(m2, psn_add(from, i), 0);
	}
}

void snic_sr_sw_init(struct snic_sr_sw_qp *q, __u32 qpn)
{
	memset(q, 0, sizeof(*q));
	q->qpn = qpn;
}

/* The device's ePSN is at least epsn */
static void seen(struct snic_sr_sw_qp *q, __u32 epsn)
{
	if (!q->r_seen_valid || psn_before(q->r_seen, epsn)) {
		q->r_seen = epsn;
		q->r_seen_valid = 1;
	}
}

static void recv_entry(struct snic_sr_sw_qp *q, const struct snic_sr_ctrl *c)
{
	const struct snic_sr_ctrl_recv *e = (const void *)c;
	__u32 ssn = rd32(&e->ssn);
	struct snic_sr_sw_recv *r = &q->r_recv[ssn % SNIC_SR_SW_RECVS];

	const __u8 *h = (const __u8 *)&e->head_ssn;
	__u16 head = h[0] | h[1] << 8;

	seen(q, rd32(&e->epsn) & PSN_MASK);
	/*
	 * The device completed the messages before its RQ's head itself
	 * (nothing it told was pending then): give back from there
	 */
	head = (__u16)(ssn - head);
	if ((__s32)(ssn - head - q->r_ssn) > 0)
		q->r_ssn = ssn - head;
	if (ssn - q->r_ssn >= SNIC_SR_SW_RECVS)
		return;     /* not one this host can hold: never given back */
	r->psn = rd32(&e->psn) & PSN_MASK;
	r->byte_len = rd32(&e->byte_len);
	r->data = rd32(&e->data);
	r->flags = e->recv_flags;
	r->valid = 1;
}

static void resp_entry(struct snic_sr_sw_qp *q, const struct snic_sr_ctrl *e)
{
	__u32 psn = rd32(&e->psn) & PSN_MASK, epsn = rd32(&e->epsn) & PSN_MASK;

	seen(q, epsn);

	if (e->type == SNIC_SR_CTRL_RESP_EXIT) {
		q->r_active = 0;
		memset(q->r_got, 0, sizeof(q->r_got));
		memset(q->r_last, 0, sizeof(q->r_last));
		q->r_epsn = q->r_posted = epsn;
		return;
	}
	if (!q->r_active) {
		q->r_active = 1;
		memset(q->r_got, 0, sizeof(q->r_got));
		memset(q->r_last, 0, sizeof(q->r_last));
		q->r_epsn = q->r_posted = epsn;
	} else if (psn_before(q->r_epsn, epsn)) {
		/* the device moved ePSN: everything below it is in */
		slide(q->r_got, q->r_last, q->r_epsn, epsn);
		q->r_epsn = epsn;
	}
	if (!psn_before(psn, q->r_epsn) && psn_dist(psn, q->r_epsn) < W) {
		bit_set(q->r_got, psn, 1);
		bit_set(q->r_last, psn, e->flags & SNIC_SR_CTRL_F_LAST);
	}
}

static void req_reset(struct snic_sr_sw_qp *q, __u32 una)
{
	memset(q->q_sacked, 0, sizeof(q->q_sacked));
	memset(q->q_read, 0, sizeof(q->q_read));
	memset(q->q_rxt_seq, 0, sizeof(q->q_rxt_seq));
	q->q_una = q->q_high_sacked = q->q_high_rxt = q->q_lack = una;
}

static void req_entry(struct snic_sr_sw_qp *q, const struct snic_sr_ctrl *e)
{
	__u32 una = rd32(&e->epsn) & PSN_MASK, end = rd32(&e->sent_end) & PSN_MASK;
	__u32 lo = rd32(&e->sack_lo) & PSN_MASK, hi = rd32(&e->sack_hi) & PSN_MASK;

	if (e->type != SNIC_SR_CTRL_REQ_ACK) {
		/* recovery ended, or the device went back N: all is forgotten */
		q->q_active = 0;
		req_reset(q, una);
		return;
	}
	if (!q->q_active) {
		q->q_active = 1;
		req_reset(q, una);
	} else if (psn_before(q->q_una, una)) {
		slide(q->q_sacked, q->q_read, q->q_una, una);
		q->q_una = una;
	}
	q->q_end = end;
	if (psn_before(q->q_high_sacked, una))
		q->q_high_sacked = una;
	if (psn_before(q->q_high_rxt, una))
		q->q_high_rxt = una;
	/* only a block of PSNs in flight counts */
	if (lo == hi || psn_before(lo, una) || psn_before(end, hi) ||
	    !psn_before(lo, hi) || psn_dist(hi, una) > W)
		return;
	for (; lo != hi; lo = psn_add(lo, 1)) {
		bit_set(q->q_sacked, lo, 1);
		if (e->flags & SNIC_SR_CTRL_F_READ)
			bit_set(q->q_read, lo, 1);
	}
	if (psn_before(q->q_high_sacked, hi))
		q->q_high_sacked = hi;
}

void snic_sr_sw_entry(struct snic_sr_sw_qp *q, const struct snic_sr_ctrl *e)
{
	switch (e->type) {
	case SNIC_SR_CTRL_RESP:
	case SNIC_SR_CTRL_RESP_EXIT:
		resp_entry(q, e);
		break;
	case SNIC_SR_CTRL_RESP_RECV:
		recv_entry(q, e);
		break;
	case SNIC_SR_CTRL_REQ_ACK:
	case SNIC_SR_CTRL_REQ_EXIT:
	case SNIC_SR_CTRL_REQ_RTO:
		req_entry(q, e);
		break;
	default:
		break;      /* a type this code does not know: nothing to keep */
	}
}

static void put(struct snic_sr_retry *r, __u8 type, __u8 flags, __u32 qpn,
		__u32 from, __u32 to)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->flags = flags;
	wr32(&r->qpn, qpn);
	wr32(&r->psn_from, from);
	wr32(&r->psn_to, to);
}

/* SACKed PSNs from 'from' up to the highest SACKed */
static __u32 sacked_above(const struct snic_sr_sw_qp *q, __u32 from)
{
	__u32 n = 0;

	for (; psn_before(from, q->q_high_sacked); from = psn_add(from, 1))
		n += bit_get(q->q_sacked, from);
	return n;
}

/* [from, to) goes again now: PSNs above q_end are sent after it */
static void rxt_mark(struct snic_sr_sw_qp *q, __u32 from, __u32 to)
{
	q->q_rxt_serial++;
	for (; from != to; from = psn_add(from, 1)) {
		q->q_rxt_at[from % W] = q->q_end;
		q->q_rxt_seq[from % W] = q->q_rxt_serial;
	}
}

/* READ responses in of holes asked for again after PSN 'psn' was */
static __u32 read_resent_after(const struct snic_sr_sw_qp *q, __u32 psn)
{
	__u32 seq = q->q_rxt_seq[psn % W], n = 0, p;

	for (p = q->q_una; psn_before(p, q->q_high_sacked); p = psn_add(p, 1))
		n += bit_get(q->q_read, p) && q->q_rxt_seq[p % W] > seq;
	return n;
}

unsigned int snic_sr_sw_flush(struct snic_sr_sw_qp *q,
			      struct snic_sr_retry *out, unsigned int max)
{
	unsigned int n = 0;
	__u32 e, from, to, above;

	/* responder: the first PSN not here is the new ePSN */
	if (q->r_active && n < max) {
		e = q->r_epsn;
		while (bit_get(q->r_got, e) && psn_dist(e, q->r_epsn) < W)
			e = psn_add(e, 1);
		if (e != q->r_epsn && e != q->r_posted) {
			put(&out[n++], SNIC_SR_RETRY_EPSN,
			    bit_get(q->r_last, psn_add(e, -1u)) ? 0 :
			    SNIC_SR_RETRY_F_IN_MSG, q->qpn, e, 0);
			q->r_posted = e;
			q->epsn_posted++;
			seen(q, e);
		}
	}
	/*
	 * responder: completions (SEND, WRITE with immediate: its flags say
	 * which) whose Last ePSN passed, in SSN order
	 */
	while (n < max && q->r_seen_valid) {
		struct snic_sr_sw_recv *r = &q->r_recv[q->r_ssn % SNIC_SR_SW_RECVS];
		struct snic_sr_retry_recv *d = (void *)&out[n];

		if (!r->valid || !psn_before(r->psn, q->r_seen))
			break;
		memset(d, 0, sizeof(*d));
		d->type = SNIC_SR_RETRY_RECV_DONE;
		d->flags = r->flags;
		((__u8 *)&d->ssn)[0] = q->r_ssn;
		((__u8 *)&d->ssn)[1] = q->r_ssn >> 8;
		wr32(&d->qpn, q->qpn);
		wr32(&d->byte_len, r->byte_len);
		wr32(&d->data, r->data);
		r->valid = 0;
		q->r_ssn++;
		q->recv_posted++;
		n++;
	}
	/* requester: READ responses placed from lACK on, lACK moves over */
	if (q->q_active && n < max) {
		e = q->q_una;
		while (bit_get(q->q_read, e) && psn_dist(e, q->q_una) < W)
			e = psn_add(e, 1);
		if (e != q->q_una && psn_before(q->q_lack, e)) {
			put(&out[n++], SNIC_SR_RETRY_LACK, 0, q->qpn, e, 0);
			q->q_lack = e;
			q->lack_posted++;
		}
	}
	/*
	 * requester: the first hole (PSNs at lACK may be SACKed already,
	 * the responder's host not having moved its ePSN yet) was resent,
	 * and PSNs sent after that (at and above the mark) are SACKed: the
	 * retransmission was lost
	 */
	from = q->q_una;
	while (psn_before(from, q->q_high_rxt) && bit_get(q->q_sacked, from))
		from = psn_add(from, 1);
	if (q->q_active && n < max && psn_before(from, q->q_high_rxt) &&
		((!psn_before(q->q_rxt_at[from % W], q->q_una) &&
		  sacked_above(q, q->q_rxt_at[from % W]) >= SNIC_SR_DUPTHRESH) ||
		 (q->q_rxt_seq[from % W] &&
		  read_resent_after(q, from) >= SNIC_SR_DUPTHRESH))) {
		to = from;
		while (psn_before(to, q->q_high_sacked) && !bit_get(q->q_sacked, to))
			to = psn_add(to, 1);
		put(&out[n++], SNIC_SR_RETRY_RTX, 0, q->qpn, from, to);
		q->rtx_posted++;
		q->rtx_again++;
		rxt_mark(q, from, to);
	}
	/*
	 * requester: each lost hole once, oldest first (RFC 6675 NextSeg).
	 * 'above' counts the SACKed PSNs from 'from' up: one pass over the
	 * window, not one per hole (a hole holds none, so as many lie above
	 * its end as above its start)
	 */
	from = q->q_high_rxt;
	above = q->q_active && n < max ? sacked_above(q, from) : 0;
	while (q->q_active && n < max && psn_before(from, q->q_high_sacked)) {
		if (bit_get(q->q_sacked, from)) {
			above--;
			from = psn_add(from, 1);
			continue;
		}
		to = from;
		while (psn_before(to, q->q_high_sacked) && !bit_get(q->q_sacked, to))
			to = psn_add(to, 1);
		if (above < SNIC_SR_DUPTHRESH)
			break;      /* not yet known lost: reordering, maybe */
		put(&out[n++], SNIC_SR_RETRY_RTX, 0, q->qpn, from, to);
		q->rtx_posted++;
		rxt_mark(q, from, to);
		q->q_high_rxt = from = to;
	}
	return n;
}
