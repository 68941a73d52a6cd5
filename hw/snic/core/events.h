/*
 * snic core: every event the device reports, in one list.
 *
 * An entry X(NAME, "format", arguments...) gives
 *  - the core's enumerator SNIC_TRACE_NAME (SnicTracePoint, host.h),
 *  - the QEMU trace event snic_name(uint64_t arguments...) "format" in
 *    hw/snic/trace-events, and its case in the glue's switch, both
 *    generated from this file by scripts/gen-trace-events.py,
 *  - for guest errors (GE_*), also the message logged with
 *    -d guest_errors: the format filled with the arguments.
 * Arguments are uint64_t, at most four, formatted with PRI*64 only: the
 * generator checks both. Raise an event with SNIC_EVENT() or, for a guest
 * error, SNIC_GUEST_ERROR() (core_int.h), which check the argument count.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SNIC_CORE_EVENTS_H
#define SNIC_CORE_EVENTS_H

#include <inttypes.h>

#define SNIC_EVENTS(X) \
    /* registers, doorbells, admin queue, interrupts, DMA */ \
    X(REG_READ, "off 0x%" PRIx64 " val 0x%" PRIx64 " size %" PRIu64, \
      off, val, size) \
    X(REG_WRITE, "off 0x%" PRIx64 " val 0x%" PRIx64 " size %" PRIu64, \
      off, val, size) \
    X(DOORBELL, "page %" PRIu64 " type %" PRIu64 " qid %" PRIu64 \
      " index %" PRIu64, page, type, qid, index) \
    X(ADMIN_CMD, "opcode 0x%" PRIx64 " cmd_id %" PRIu64 " slot %" PRIu64, \
      opcode, cmd_id, slot) \
    X(ADMIN_DONE, "opcode 0x%" PRIx64 " cmd_id %" PRIu64 " status %" PRIu64 \
      " result 0x%" PRIx64, opcode, cmd_id, status, result) \
    X(ASYNC_EVENT, "event %" PRIu64 " data 0x%" PRIx64, event, data) \
    X(DMA_ERROR, "addr 0x%" PRIx64 " len %" PRIu64 " write %" PRIu64, \
      addr, len, is_write) \
    X(IRQ, "vector %" PRIu64, vector) \
    X(RESET, "kind %" PRIu64 " (1 disable, 2 power-on)", kind) \
    /* Ethernet function */ \
    X(ETH_TX, "qid %" PRIu64 " len %" PRIu64, qid, len) \
    X(ETH_RX, "qid %" PRIu64 " len %" PRIu64, qid, len) \
    X(ETH_DROP, "rx %" PRIu64 " len %" PRIu64 " reason %" PRIu64 \
      " (SnicDropReason)", is_rx, len, reason) \
    /* the port: receive buffer and 802.1Qbb PFC (link.c) */ \
    X(PFC_SENT, "PFC priority %" PRIu64 " quanta %" PRIu64 \
      " (0: resume), receive buffer %" PRIu64 " bytes", prio, quanta, bytes) \
    X(PFC_RECV, "PFC class vector 0x%" PRIx64 ", priority %" PRIu64 \
      " quanta %" PRIu64 " obeyed %" PRIu64, vector, prio, quanta, obeyed) \
    X(PFC_RESUMED, "RoCE transmission resumes after %" PRIu64 \
      " ns paused (by resume %" PRIu64 ")", paused_ns, by_resume) \
    /* RDMA engine decisions */ \
    X(QP_STATE, "qpn %" PRIu64 " state %" PRIu64 " -> %" PRIu64, \
      qpn, from, to) \
    X(NAK_SENT, "qpn %" PRIu64 " psn 0x%" PRIx64 " syndrome 0x%" PRIx64, \
      qpn, psn, syndrome) \
    X(NAK_RECV, "qpn %" PRIu64 " psn 0x%" PRIx64 " syndrome 0x%" PRIx64, \
      qpn, psn, syndrome) \
    X(RESP_HOLD_EXPIRED, "qpn %" PRIu64 " epsn 0x%" PRIx64 " bytes %" \
      PRIu64 ": a held SRQ receive let go of", qpn, epsn, bytes) \
    X(SCHED_ITERATION, "qpn %" PRIu64 " wqes %" PRIu64 " segments %" \
      PRIu64, qpn, wqes, segments) \
    X(RETRANSMIT, "qpn %" PRIu64 " from psn 0x%" PRIx64 " segments %" \
      PRIu64 " reason %" PRIu64 " (SnicRtxReason)", qpn, psn, count, reason) \
    X(RNR_WAIT, "qpn %" PRIu64 " psn 0x%" PRIx64 " for %" PRIu64 " ns", \
      qpn, psn, delay_ns) \
    X(TIMEOUT, "qpn %" PRIu64 " oldest psn 0x%" PRIx64 " retries left %" \
      PRIu64, qpn, psn, retries_left) \
    X(EQ_OVERRUN, "eqn %" PRIu64 ": completion event lost", eqn) \
    /* SRNIC selective repeat (srnic/sr.c) */ \
    X(SR_RECOVERY, "qpn %" PRIu64 " requester %" PRIu64 " enters %" PRIu64 \
      " loss recovery (0: leaves) at psn 0x%" PRIx64, qpn, requester, \
      enters, psn) \
    X(SR_CTRLQ_FULL, "qpn %" PRIu64 " psn 0x%" PRIx64 " requester %" PRIu64 \
      ": CtrlQ full or absent, metadata lost (a request: dropped)", qpn, \
      psn, requester) \
    X(SR_CTRLQ_REFUSED, "qpn %" PRIu64 " psn 0x%" PRIx64 " type %" PRIu64 \
      ": no CtrlQ entry (0: a duplicate in the fast-exit range, acked; " \
      "else over the QP's quota, a request dropped)", qpn, psn, type) \
    X(SR_RETRY_STALE, "qpn %" PRIu64 " RetryQ entry %" PRIu64 " (type %" \
      PRIu64 ", psn 0x%" PRIx64 ") stale: skipped", qpn, index, type, psn) \
    X(MR_FAULT, "key 0x%" PRIx64 " va 0x%" PRIx64 " len %" PRIu64 \
      " refused (SnicMrCheck %" PRIu64 ")", key, va, len, why) \
    X(MR_FAST_REG, "REG_MR of key 0x%" PRIx64 " as 0x%" PRIx64 " at iova 0x%" \
      PRIx64 " (SnicFrwrCheck %" PRIu64 ")", key, new_key, iova, why) \
    X(MR_INVALIDATE, "invalidate key 0x%" PRIx64 " (remote %" PRIu64 \
      ", SnicFrwrCheck %" PRIu64 ")", key, remote, why) \
    X(XLATE_FAULT, "page list 0x%" PRIx64 " va 0x%" PRIx64 " len %" PRIu64 \
      " write %" PRIu64 ": translation failed", pbl, va, len, is_write) \
    /* the connectionless transport (cl/) */ \
    X(CL_OP_SENT, "qpn %" PRIu64 " op 0x%" PRIx64 " len %" PRIu64 \
      ": every packet in the network once", qpn, op, len) \
    X(CL_OP_DONE, "qpn %" PRIu64 " op 0x%" PRIx64 " status %" PRIu64, qpn, \
      op, status) \
    X(CL_RESEND, "qpn %" PRIu64 " op 0x%" PRIx64 " index %" PRIu64 \
      " after NOT_READY %" PRIu64, qpn, op, index, not_ready) \
    X(CL_NOTIFY, "qpn %" PRIu64 " from endpoint %" PRIu64 " op 0x%" PRIx64 \
      " len %" PRIu64 ": receive notification", qpn, src_ep, op, len) \
    X(CL_NACK, "qpn %" PRIu64 " from endpoint %" PRIu64 " op 0x%" PRIx64 \
      " syndrome %" PRIu64, qpn, src_ep, op, syndrome) \
    /* StRoM RPCs and kernels */ \
    X(RPC_ACCEPT, "qpn %" PRIu64 " rpc op-code 0x%" PRIx64 " kernel %" \
      PRIu64 " (0: none) slot %" PRIu64, qpn, rpc_opcode, kernel, slot) \
    X(RPC_FALLBACK, "qpn %" PRIu64 " rpc op-code 0x%" PRIx64 \
      ": no kernel, to the receive queue", qpn, rpc_opcode) \
    X(RPC_DONE, "slot %" PRIu64 " qpn %" PRIu64 " status %" PRIu64 \
      " answer %" PRIu64 " bytes", slot, qpn, status, len) \
    X(RPC_REFUSED, "qpn %" PRIu64 " psn 0x%" PRIx64 ": the requester NAKed " \
      "the answer (R_Key 0x%" PRIx64 ")", qpn, psn, resp_rkey) \
    /* guest errors: the driver broke a rule of the interface */ \
    X(GE_REG_ACCESS, "BAR0 access of %" PRIu64 " bytes at 0x%" PRIx64 \
      " (write %" PRIu64 "): registers take aligned 4- or 8-byte accesses", \
      size, off, is_write) \
    X(GE_REG_READ, "BAR0 read of unknown register 0x%" PRIx64, off) \
    X(GE_REG_WRITE, "BAR0 write 0x%" PRIx64 " to read-only or unknown " \
      "register 0x%" PRIx64, val, off) \
    X(GE_REG_LOCKED, "BAR0 write to 0x%" PRIx64 " while enabled: queue " \
      "layout is fixed until disable", off) \
    X(GE_REG_RESERVED, "BAR0 write 0x%" PRIx64 " to 0x%" PRIx64 \
      " sets reserved bits", val, off) \
    X(GE_ADMIN_CONFIG, "enable with admin SQ 0x%" PRIx64 " CQ 0x%" PRIx64 \
      " log2 depth %" PRIu64 ": rings must be entry-aligned, not wrap, " \
      "depth in range", sq, cq, log2_depth) \
    X(GE_AEQ_CONFIG, "enable with AEQ 0x%" PRIx64 " log2 depth %" PRIu64 \
      ": ring must be 16-byte aligned, not wrap, depth in range", \
      base, log2_depth) \
    X(GE_FATAL, "device fatal error %" PRIu64 " (SNIC_ERR_*): reset " \
      "required", error) \
    X(GE_DB_ACCESS, "doorbell page %" PRIu64 ": %" PRIu64 "-byte write at " \
      "offset 0x%" PRIx64 "; a doorbell is one 8-byte write at the page " \
      "base", page, size, off) \
    X(GE_DB_PAGE, "doorbell page %" PRIu64 " does not exist (%" PRIu64 \
      " pages)", page, pages) \
    X(GE_DB_DISABLED, "doorbell type %" PRIu64 " queue %" PRIu64 \
      " while the device is not enabled", type, qid) \
    X(GE_DB_TYPE, "doorbell page %" PRIu64 ": unknown queue type %" PRIu64, \
      page, type) \
    X(GE_DB_QUEUE, "doorbell type %" PRIu64 ": queue %" PRIu64 \
      " does not exist", type, qid) \
    X(GE_DB_KERNEL_QUEUE, "doorbell page %" PRIu64 ": type %" PRIu64 \
      " queue %" PRIu64 " is not owned by this page's context", \
      page, type, qid) \
    X(GE_DB_QP_OWNER, "doorbell page %" PRIu64 ": QP %" PRIu64 " is not " \
      "owned by this page's context", page, qpn) \
    X(GE_DB_SRQ_OWNER, "doorbell page %" PRIu64 ": SRQ %" PRIu64 " is not " \
      "owned by this page's context", page, srqn) \
    X(GE_DB_RQ_OF_SRQ_QP, "doorbell page %" PRIu64 ": QP %" PRIu64 \
      " takes its receive WQEs from an SRQ and has no RQ", page, qpn) \
    X(GE_DB_CQ_OWNER, "doorbell page %" PRIu64 ": CQ %" PRIu64 " is not " \
      "owned by this page's context", page, cqn) \
    X(GE_DB_EQ, "doorbell page %" PRIu64 ": EQ %" PRIu64 " index %" PRIu64 \
      " refused (EQs are the kernel's; index outside [head, tail])", \
      page, eqn, index) \
    X(GE_DB_INDEX, "doorbell type %" PRIu64 " queue %" PRIu64 ": index %" \
      PRIu64 " outside the window that ends at %" PRIu64, \
      type, qid, index, limit) \
    X(GE_ADMIN_OPCODE, "admin command %" PRIu64 ": unknown opcode 0x%" \
      PRIx64, cmd_id, opcode) \
    X(GE_ADMIN_VERSION, "admin opcode 0x%" PRIx64 ": version %" PRIu64 \
      ", the device speaks %" PRIu64, opcode, version, supported) \
    X(GE_ADMIN_LENGTH, "admin opcode 0x%" PRIx64 ": payload length %" \
      PRIu64 ", expected %" PRIu64, opcode, len, expected) \
    X(GE_ADMIN_FLAGS, "admin opcode 0x%" PRIx64 ": reserved flags 0x%" \
      PRIx64 " set", opcode, flags) \
    X(GE_ADMIN_RESP_BUF, "admin response buffer 0x%" PRIx64 " (%" PRIu64 \
      " bytes) is not writable", addr, len) \
    X(GE_REG_MR, "REG_MR: iova 0x%" PRIx64 " length 0x%" PRIx64 \
      " access 0x%" PRIx64 " refused (status %" PRIu64 ")", \
      iova, length, access, status) \
    X(GE_QP_RDB, "QP of type %" PRIu64 ": responder database 0x%" PRIx64 \
      " refused (RC only, SNIC_RDB_ALIGN aligned, needed for " \
      "max_dest_rd_atomic)", type, addr) \
    X(GE_SR_RETRY, "QP %" PRIu64 " RetryQ entry %" PRIu64 " (type %" PRIu64 \
      ", psn 0x%" PRIx64 ") refused: other QP, PSN outside the window or " \
      "not in loss recovery", qpn, index, type, psn) \
    X(GE_SR_RING, "SRNIC %" PRIu64 " (0: CtrlQ of QP, 1: RetryQ) %" PRIu64 \
      " index %" PRIu64 ": ring not accessible or doorbell out of range", \
      retryq, qpn, index) \
    X(GE_RDB_ENTRY, "QP %" PRIu64 ": responder database slot %" PRIu64 \
      " unreadable, unwritable or not an entry the device wrote", qpn, \
      slot) \
    X(GE_QP_SGID, "MODIFY_QP %" PRIu64 ": the address vector's source " \
      "address is not in the port's GID table", qpn) \
    X(GE_MODIFY_QP, "MODIFY_QP %" PRIu64 ": %" PRIu64 " -> %" PRIu64 \
      " with mask 0x%" PRIx64 " refused", qpn, from, to, mask) \
    X(GE_ETH_QUEUE_PARAM, "create Ethernet queue: log2 depth %" PRIu64 \
      " or vector %" PRIu64 " out of range", log2_depth, vector) \
    X(GE_ETH_QUEUE_RING, "create Ethernet queue: ring 0x%" PRIx64 " (%" \
      PRIu64 " bytes) misaligned, wrapping or not accessible", ring, bytes) \
    X(GE_ETH_TX_RING, "Ethernet TX queue %" PRIu64 " descriptor %" PRIu64 \
      ": descriptor ring is not readable", qid, index) \
    X(GE_ETH_TX_GATHER, "Ethernet TX queue %" PRIu64 " descriptor %" PRIu64 \
      ": frame spans more descriptors than the device gathers", qid, index) \
    X(GE_ETH_TX_LONG, "Ethernet TX queue %" PRIu64 " descriptor %" PRIu64 \
      ": frame of %" PRIu64 " bytes or more is longer than MTU + Ethernet " \
      "header", qid, index, len) \
    X(GE_ETH_TX_SHORT, "Ethernet TX queue %" PRIu64 " descriptor %" PRIu64 \
      ": frame of %" PRIu64 " bytes is shorter than an Ethernet header", \
      qid, index, len) \
    X(GE_ETH_TX_BUFFER, "Ethernet TX queue %" PRIu64 " descriptor %" PRIu64 \
      ": buffer 0x%" PRIx64 " is not readable", qid, index, addr) \
    X(GE_ETH_RX_RING, "Ethernet RX queue 0: descriptor %" PRIu64 " at 0x%" \
      PRIx64 " is not readable", index, addr) \
    X(GE_ETH_RX_BUFFER, "Ethernet RX queue 0 descriptor %" PRIu64 \
      ": buffer 0x%" PRIx64 " is not writable", index, addr) \
    X(GE_EQ_RING, "EQ %" PRIu64 ": ring not writable through its page list", \
      eqn) \
    X(GE_CQ_RING, "CQ %" PRIu64 ": ring not writable through its page list", \
      cqn) \
    X(GE_CQ_OVERRUN, "CQ %" PRIu64 ": overrun, %" PRIu64 " CQEs not " \
      "consumed", cqn, pending) \
    X(GE_DMA_FAULT, "QP %" PRIu64 ": DMA (write %" PRIu64 ") at IOVA 0x%" \
      PRIx64 " of a data buffer refused by the host: not mapped for the " \
      "device, or unmapped while in use (%" PRIu64 " more not logged)", \
      qpn, is_write, iova, unlogged) \
    X(GE_WQE_FETCH, "QP %" PRIu64 " WQE %" PRIu64 " (rq %" PRIu64 \
      "): not readable through the queue's page list", qpn, index, is_rq) \
    X(GE_WQE_INVALID, "QP %" PRIu64 " SQ WQE %" PRIu64 ": op-code %" PRIu64 \
      " with %" PRIu64 " SGEs is not valid for the QP's type", \
      qpn, index, opcode, num_sge) \
    X(GE_WQE_FLAGS, "QP %" PRIu64 " SQ WQE %" PRIu64 ": undefined flags 0x%" \
      PRIx64 " (WQE or address vector)", qpn, index, flags) \
    X(GE_WQE_INLINE, "QP %" PRIu64 " SQ WQE %" PRIu64 ": %" PRIu64 \
      " bytes of inline data, more than a WQE holds, or on a READ or " \
      "atomic", qpn, index, len) \
    X(GE_RQ_WQE_SGES, "QP %" PRIu64 " RQ WQE %" PRIu64 ": %" PRIu64 \
      " SGEs, more than a receive WQE holds", qpn, index, num_sge) \
    X(GE_UD_SOURCE, "QP %" PRIu64 " SQ WQE %" PRIu64 ": source address is " \
      "not in the port's GID table", qpn, index)

/*
 * For the macros that raise an event (SNIC_EVENT() and the like): the
 * number of arguments of each entry, SNIC_EV_ARGC_NAME, to check a call
 * against at compile time, and a call's arguments as the four a trace
 * point carries, unused ones 0.
 */
#define SNIC_EV_NARGS_(...) SNIC_EV_NARGS__(__VA_ARGS__, 4, 3, 2, 1, 0)
#define SNIC_EV_NARGS__(a, b, c, d, n, ...) n
#define SNIC_EV_ARGC_(name, fmt, ...) \
    enum { SNIC_EV_ARGC_##name = SNIC_EV_NARGS_(__VA_ARGS__) };
SNIC_EVENTS(SNIC_EV_ARGC_)
#define SNIC_EV_ARGS4_(...) SNIC_EV_ARGS4__(__VA_ARGS__, 0, 0, 0, 0)
#define SNIC_EV_ARGS4__(a, b, c, d, ...) \
    { (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), (uint64_t)(d) }

#endif /* SNIC_CORE_EVENTS_H */
