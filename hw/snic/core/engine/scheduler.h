/*
 * snic core: the cache-free QP scheduler (SRNIC, NSDI'23, section 4.3.1,
 * Figure 6) and the per-QP timers in one min-heap. How it works:
 * docs/srnic.md, "The cache-free scheduler".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_SCHEDULER_H
#define SNIC_CORE_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sched_types.h"


void snic_sched_init(SnicCore *c);
void snic_sched_free(SnicCore *c);
void snic_sched_reset(SnicCore *c);

/* The event mux: the QP may have work; queue it if it is not queued. */
void snic_sched_notify(SnicCore *c, SnicQp *qp);
/* The QP leaves its queue and its timer (reset, destroy). */
void snic_sched_remove(SnicCore *c, SnicQp *qp);
/* Up to 'budget' scheduling iterations; true if QPs are still queued. */
bool snic_sched_run(SnicCore *c, unsigned budget);

/* The QP's timer follows its transport, credit and responder deadlines. */
void snic_qp_timer_sync(SnicCore *c, SnicQp *qp);
/*
 * Fire what is due at 'now', the timers of at most SNIC_SCHED_TIMERS_PER_CALL
 * QPs (the rest at once in the next call): a QP's timeout that ends its
 * retries fails its WQE and flushes the QP, a few DMA operations each,
 * and hundreds may end together. The next deadline (now = 0: only that).
 */
#define SNIC_SCHED_TIMERS_PER_CALL  64
uint64_t snic_sched_timer(SnicCore *c, uint64_t now);

#endif /* SNIC_CORE_SCHEDULER_H */
