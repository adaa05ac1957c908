/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fair transmit queue.
 *
 * Requests waiting to be transmitted on one connection, with the ordering
 * rules of the Linux client (xprt_request_enqueue_transmit, PROTOCOLS.md
 * section 1.4), restructured for userspace:
 *
 *   1. A request that already holds a congestion credit goes before every
 *      request that does not (it was popped and could not be sent, or it is
 *      a retransmission): otherwise credits could be held by requests stuck
 *      behind ones that cannot get a credit.
 *   2. Other requests are grouped by owner (a thread or a benchmark job):
 *      one entry per owner is in a ring; the owner's other requests wait in
 *      that entry's sub-list.  Popping an owner's entry moves its next
 *      request to the tail of the ring: owners are served round-robin, so a
 *      flood from one owner cannot delay a lone request of another by more
 *      than one request per competing owner.
 *   3. Within one owner (and among credited requests) order is FIFO.
 *
 * Producers (any thread) push with a wait-free enqueue onto an incoming
 * queue (liburcu wfcqueue).  Only the consumer, the thread holding the
 * connection's transmit lock, sorts incoming nodes into the ring and pops:
 * the fair structure itself needs no lock at all.
 *
 * Internal header: not installed.
 */
#ifndef XPRT_XMITQ_H
#define XPRT_XMITQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <urcu/hlist.h>
#include <urcu/list.h>
#include <urcu/wfcqueue.h>

#define XPRT_XMITQ_HASH_BITS 6

/**
 * struct xprt_xmit_node - queue linkage embedded in a request
 * @inq: incoming-queue node (producers)
 * @link: ring or credited-list link (consumer)
 * @sub: for an owner's ring entry: its waiting requests; for those
 *	requests: their link in that list
 * @hash: owner hash link, ring entries only
 * @owner: who submitted it (thread id, job id...)
 * @credited: set when the request holds a congestion credit
 * @queued: in the queue now (between push and pop/remove)
 */
struct xprt_xmit_node {
	struct cds_wfcq_node inq;
	struct cds_list_head link;
	struct cds_list_head sub;
	struct cds_hlist_node hash;
	uint64_t owner;
	bool credited;
	bool queued;
	bool is_head;
};

/**
 * struct xprt_xmitq - one connection's transmit queue
 * @in_head, @in_tail: incoming wait-free queue (producers)
 * @pushed: nodes pushed so far (producers; monotonic)
 * @popped: nodes popped or removed so far (consumer; monotonic)
 * @credited: FIFO of credited requests (consumer)
 * @ring: round-robin ring of owner entries (consumer)
 * @owners: owner -> ring entry (consumer)
 */
struct xprt_xmitq {
	struct cds_wfcq_head in_head;
	struct cds_wfcq_tail in_tail;
	atomic_ullong pushed;
	atomic_ullong popped;
	struct cds_list_head credited;
	struct cds_list_head ring;
	struct cds_hlist_head owners[1u << XPRT_XMITQ_HASH_BITS];
};

/** xprt_xmitq_init() - an empty queue */
void xprt_xmitq_init(struct xprt_xmitq *q);

/** xprt_xmitq_destroy() - the queue must be empty */
void xprt_xmitq_destroy(struct xprt_xmitq *q);

/**
 * xprt_xmitq_push() - queue a request for transmission
 * @q: the queue
 * @n: its node; @n->owner and @n->credited set by the caller; not queued
 *
 * Context: any thread, wait-free; concurrent with other pushes and with
 * the consumer.
 * Return: %0; %-EINVAL when @n is already queued.
 */
int xprt_xmitq_push(struct xprt_xmitq *q, struct xprt_xmit_node *n);

/**
 * xprt_xmitq_peek() - the node that xprt_xmitq_pop() would return
 * Context: consumer only (transmit lock held).
 * Return: the node, or NULL when the queue is empty.
 */
struct xprt_xmit_node *xprt_xmitq_peek(struct xprt_xmitq *q);

/**
 * xprt_xmitq_pop() - remove and return the next node by the rules above
 * Context: consumer only (transmit lock held).
 * Return: the node (no longer queued), or NULL when empty.
 */
struct xprt_xmit_node *xprt_xmitq_pop(struct xprt_xmitq *q);

/**
 * xprt_xmitq_requeue() - put back a popped node that could not be sent
 * It goes to the front of the credited list if @n->credited (it keeps its
 * turn), else to its owner's queue as a new push would.
 * Context: consumer only.
 * Return: %0; %-EINVAL when @n is queued.
 */
int xprt_xmitq_requeue(struct xprt_xmitq *q, struct xprt_xmit_node *n);

/**
 * xprt_xmitq_remove() - take a queued node out (cancel, shutdown)
 * Context: consumer only.
 * Return: true when @n was queued and is now removed.
 */
bool xprt_xmitq_remove(struct xprt_xmitq *q, struct xprt_xmit_node *n);

/**
 * xprt_xmitq_len() - nodes queued (pushed and not yet popped or removed)
 * Context: any thread; exact for the consumer, a snapshot for others.
 * Drives the cork hint: cork while more than one request is queued.
 */
unsigned int xprt_xmitq_len(const struct xprt_xmitq *q);

#endif /* XPRT_XMITQ_H */
