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
 * Protocol expected from the caller: push, then make sure a consumer runs
 * (take the transmit lock and drain, or kick the transmit worker).  A
 * consumer that found the queue empty may have looked just before the push,
 * and lx_xprt_xmitq_pop() never waits for a push still in progress, so the
 * kick after every push is what guarantees progress.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_XMITQ_H
#define LX_XPRT_XMITQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <urcu/hlist.h>
#include <urcu/list.h>
#include <urcu/wfcqueue.h>

#include "xprt/blocks/util.h"

/*
 * Owner hash: only owners with a request queued are in it.  It starts with
 * the buckets inside the queue and grows (x4, up to 2^LX_XPRT_XMITQ_HASH_MAX
 * buckets) when the queued owners outnumber them, so a lookup stays about
 * one entry long with thousands of owners queued at once.
 */
#define LX_XPRT_XMITQ_HASH_BITS 8
#define LX_XPRT_XMITQ_HASH_MAX	14

/**
 * enum lx_xprt_xmit_order - how non-credited requests are ordered
 * @LX_XPRT_XMIT_FAIR: round robin over owners (the rules above)
 * @LX_XPRT_XMIT_FIFO: arrival order, owners ignored (an ablation: the
 *	order of a client without fair queueing); credited requests still
 *	go first
 */
enum lx_xprt_xmit_order {
	LX_XPRT_XMIT_FAIR = 0,
	LX_XPRT_XMIT_FIFO = 1,
};

/* Where a node is; consumer-private once the node has been sorted. */
enum lx_xprt_xmit_state {
	LX_XPRT_XMIT_IDLE = 0, /* not queued */
	LX_XPRT_XMIT_INCOMING, /* pushed, not yet sorted by the consumer */
	LX_XPRT_XMIT_CREDITED, /* on the credited FIFO */
	LX_XPRT_XMIT_HEAD,     /* its owner's entry in the ring */
	LX_XPRT_XMIT_SUB,      /* waiting in its owner's sub-list */
	LX_XPRT_XMIT_ARRIVAL,  /* on the arrival-order list (FIFO order) */
};

/**
 * struct lx_xprt_xmit_node - queue linkage embedded in a request
 * @inq: incoming-queue node (producers)
 * @owner: who submitted it (thread id, job id...); set by the caller
 *	before the push, not changed while queued
 * @credited: set when the request holds a congestion credit; set by the
 *	caller before the push or requeue, not changed while queued
 * @queued: in the queue now (between push and pop/remove); a push checks
 *	and sets it without a locked instruction, so a second push of a
 *	queued node is refused, but two pushes racing on two threads are
 *	not told apart (the caller's own state must exclude that: the
 *	library's RQ_QUEUED does)
 * @state: an &enum lx_xprt_xmit_state, owned by the queue
 * @link: ring or credited-list link (consumer)
 * @sub: for an owner's ring entry: its waiting requests; for those
 *	requests: their link in that list
 * @hash: owner hash link, ring entries only
 *
 * What a push writes and the consumer reads when sorting comes first, in
 * 24 bytes, so the hand-off usually moves one cache line, not two; the
 * consumer-only links follow.  Initialise with lx_xprt_xmit_node_init() (an
 * all-zero node is also valid).
 */
struct lx_xprt_xmit_node {
	struct cds_wfcq_node inq;
	uint64_t owner;
	bool credited;
	atomic_bool queued;
	uint8_t state;
	struct cds_list_head link;
	struct cds_list_head sub;
	struct cds_hlist_node hash;
};

/**
 * struct lx_xprt_xmitq - one connection's transmit queue
 * @in_tail: incoming wait-free queue, tail (producers)
 * @pad_producers: ends the producers' cache line
 * @in_head: incoming wait-free queue, head (consumer; producers write it
 *	when they push onto an empty queue); no dequeue mutex: the transmit
 *	lock already makes the consumer unique
 * @pad_head: keeps that producer write off the consumer's own fields
 * @nsorted: nodes taken out of the incoming queue and not yet popped or
 *	removed (consumer-written, read by anyone through
 *	lx_xprt_xmitq_empty())
 * @order: an &enum lx_xprt_xmit_order, fixed at init
 * @hash_bits: log2 of the buckets in @owners
 * @nowners: owner entries in the hash (consumer)
 * @lazy: the node sorted but left in the incoming queue because it was the
 *	last there (consumer; see xmitq.c)
 * @credited: FIFO of credited requests (consumer)
 * @ring: round-robin ring of owner entries, or in FIFO order the list of
 *	every non-credited request in arrival order (consumer)
 * @owners: owner -> ring entry (consumer): @owners0 or, once grown, an
 *	allocated table
 * @owners0: the initial buckets
 *
 * No producer counts its push: the only locked instruction of a push is
 * the incoming queue's tail exchange, the one a bare wait-free FIFO pays.
 * Producer-written fields fill the first 64 bytes and the incoming head the
 * next 64, so pushes from many threads do not keep stealing the lines of
 * the consumer's lists.  Padding rather than
 * an alignment attribute: an over-aligned type would not be safe to embed
 * in structures allocated with malloc().
 */
struct lx_xprt_xmitq {
	struct cds_wfcq_tail in_tail;
	char pad_producers[LX_XPRT_CACHELINE - sizeof(struct cds_wfcq_tail)];

	struct __cds_wfcq_head in_head;
	char pad_head[LX_XPRT_CACHELINE - sizeof(struct __cds_wfcq_head)];

	atomic_uint nsorted;
	uint8_t order;
	uint8_t hash_bits;
	unsigned int nowners;
	struct lx_xprt_xmit_node *lazy;
	struct cds_list_head credited;
	struct cds_list_head ring;
	struct cds_hlist_head *owners;
	struct cds_hlist_head owners0[1u << LX_XPRT_XMITQ_HASH_BITS];
};

/**
 * lx_xprt_xmit_node_init() - prepare a node for its first push
 * @n: the node
 * @owner: who submits it
 *
 * The node starts not queued and not credited.
 */
static inline void lx_xprt_xmit_node_init(struct lx_xprt_xmit_node *n,
					  uint64_t owner)
{
	n->inq.next = NULL;
	CDS_INIT_LIST_HEAD(&n->link);
	CDS_INIT_LIST_HEAD(&n->sub);
	n->hash.next = NULL;
	n->hash.prev = NULL;
	n->owner = owner;
	n->credited = false;
	atomic_init(&n->queued, false);
	n->state = LX_XPRT_XMIT_IDLE;
}

/**
 * lx_xprt_xmitq_init_order() - make @q an empty queue with an order
 * @q: the queue (NULL is ignored)
 * @order: an &enum lx_xprt_xmit_order (anything else: fair)
 *
 * Context: before any other use of @q; allocates nothing, cannot fail.
 */
void lx_xprt_xmitq_init_order(struct lx_xprt_xmitq *q,
			      enum lx_xprt_xmit_order order);

/**
 * lx_xprt_xmitq_init() - make @q an empty fair queue
 * @q: the queue (NULL is ignored)
 *
 * Context: before any other use of @q; allocates nothing, cannot fail.
 */
static inline void lx_xprt_xmitq_init(struct lx_xprt_xmitq *q)
{
	lx_xprt_xmitq_init_order(q, LX_XPRT_XMIT_FAIR);
}

/**
 * lx_xprt_xmitq_destroy() - end of life of @q
 * @q: the queue (NULL is ignored); must be empty: pop or remove every node
 *	first (the queue does not own the nodes, so it cannot fail them)
 *
 * Frees the grown owner table, if any.
 * Context: no other thread may use @q any more.
 */
void lx_xprt_xmitq_destroy(struct lx_xprt_xmitq *q);

/**
 * lx_xprt_xmitq_push() - queue a request for transmission
 * @q: the queue
 * @n: its node; @n->owner and @n->credited set by the caller; not queued
 *
 * Context: any thread, wait-free; concurrent with other pushes and with
 * the consumer.  The consumer sees @n only after this returns; kick it.
 * Return: %0; %-EINVAL when @q or @n is NULL or @n is already queued
 * (nothing changed: a caller bug, do not retry).
 */
int lx_xprt_xmitq_push(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n);

/**
 * lx_xprt_xmitq_peek() - the node that lx_xprt_xmitq_pop() would return
 * @q: the queue
 *
 * Sorts what producers pushed since the last call, then looks.  A credited
 * node pushed between a peek and the next pop can come out of that pop
 * first; nothing else can overtake the peeked node.  Remove it with
 * lx_xprt_xmitq_pop_node(), which may find it cannot leave yet.
 * Context: consumer only (transmit lock held).
 * Return: the node, still queued; NULL when nothing can be taken now (see
 * lx_xprt_xmitq_pop()) or @q is NULL.
 */
struct lx_xprt_xmit_node *lx_xprt_xmitq_peek(struct lx_xprt_xmitq *q);

/**
 * lx_xprt_xmitq_pop() - remove and return the next node by the rules above
 * @q: the queue
 *
 * Never waits for producers: a node whose push has not returned yet, and
 * nodes pushed after it, are left for a later call (the kick that follows
 * that push); so is the node pushed just before such a push, when it is
 * next.
 * Context: consumer only (transmit lock held).
 * Return: the node (no longer queued; the caller owns it again), or NULL
 * when nothing can be taken now or @q is NULL.
 */
struct lx_xprt_xmit_node *lx_xprt_xmitq_pop(struct lx_xprt_xmitq *q);

/**
 * lx_xprt_xmitq_pop_node() - remove @n, the node lx_xprt_xmitq_peek() just
 * returned (no other consumer call on @q in between)
 * @q: the queue
 * @n: the peeked node
 *
 * A push that starts after the peek, right behind @n, can keep @n from
 * leaving without waiting for that producer: then nothing changes (@n
 * stays queued and first) and the push's kick comes back for it.
 * Context: consumer only (transmit lock held).
 * Return: true when removed (the caller owns @n again); false when @n
 * stays.
 */
bool lx_xprt_xmitq_pop_node(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n);

/**
 * lx_xprt_xmitq_peek_fifo() - the oldest node pushed, when nothing has
 * been sorted yet
 * @q: the queue
 *
 * For a consumer about to send everything queued in one go: then the
 * order inside the batch changes nobody's turn, and the incoming nodes
 * can be taken as they came (per owner FIFO, as always) without sorting
 * them into the ring first.  Only while the credited list and the ring
 * are empty: a sorted node is older than every incoming one.
 * Context: consumer only.
 * Return: the node, still queued; NULL when something is sorted, nothing
 * is pushed, or the first push, or the push of the node after it, is still
 * in progress (use peek/pop).
 */
struct lx_xprt_xmit_node *lx_xprt_xmitq_peek_fifo(struct lx_xprt_xmitq *q);

/**
 * lx_xprt_xmitq_pop_fifo() - remove the node lx_xprt_xmitq_peek_fifo() just
 * returned (no other call on @q in between)
 * Context: consumer only.
 * Return: true when removed; false when a push that started behind it
 * since the peek would have to be waited for (as lx_xprt_xmitq_pop_node()).
 */
bool lx_xprt_xmitq_pop_fifo(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n);

/**
 * lx_xprt_xmitq_requeue() - put back a popped node that could not be sent
 * @q: the queue
 * @n: a node popped from @q and not queued since
 *
 * It goes to the front of the credited list if @n->credited (it keeps its
 * turn), else to its owner's queue exactly as a new push would (it had its
 * turn; the owner's later requests may now go first).
 * Context: consumer only.
 * Return: %0; %-EINVAL when @q or @n is NULL or @n is queued (nothing
 * changed).
 */
int lx_xprt_xmitq_requeue(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n);

/**
 * lx_xprt_xmitq_remove() - take a queued node out (cancel, shutdown)
 * @q: the queue
 * @n: a node whose push on @q has returned (or any node not queued)
 *
 * Every other node keeps its place; an owner entry removed with requests
 * behind it hands its place in the ring to the next of them.  May wait
 * for pushes in progress that are ahead of @n in the incoming queue.
 * Context: consumer only.
 * Return: true when @n was queued and is now removed; false when it was
 * not queued (already popped or removed) or @q or @n is NULL.
 */
bool lx_xprt_xmitq_remove(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n);

/**
 * lx_xprt_xmitq_empty() - nothing queued
 * @q: the queue (NULL: true)
 *
 * Context: any thread; a push counts from its start.  For the consumer
 * exact; for others a snapshot.  Drives the "connection idle" tests and
 * the cork hint.
 * Return: true when no node is queued.
 */
static inline bool lx_xprt_xmitq_empty(const struct lx_xprt_xmitq *q)
{
	struct lx_xprt_xmitq *w = (struct lx_xprt_xmitq *)q;

	if (!q)
		return true;
	/* Incoming first: the consumer counts a node as sorted before it
	 * takes it out of the incoming queue (see xmitq_sort_incoming()). */
	if (__atomic_load_n(&w->in_head.node.next, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&w->in_tail.p, __ATOMIC_ACQUIRE) !=
		    &w->in_head.node)
		return false;
	return !atomic_load_explicit(&w->nsorted, memory_order_acquire);
}

/**
 * lx_xprt_xmitq_count() - nodes queued, counting up to @max
 * @q: the queue (NULL: 0)
 * @max: stop counting there
 *
 * Counts the sorted nodes and walks the incoming ones, stopping at a push
 * still in progress (it and what follows are not counted yet).
 * Context: consumer only.
 * Return: min(queued, @max).
 */
unsigned int lx_xprt_xmitq_count(struct lx_xprt_xmitq *q, unsigned int max);

/**
 * lx_xprt_xmitq_len() - nodes queued (pushed and not yet popped or removed)
 * @q: the queue (NULL: 0)
 *
 * Context: consumer only; exact when no push is in progress.  Walks the
 * incoming nodes: for tests and diagnostics, not for every request (see
 * lx_xprt_xmitq_empty() and lx_xprt_xmitq_count()).
 * Return: the count.
 */
static inline unsigned int lx_xprt_xmitq_len(struct lx_xprt_xmitq *q)
{
	return lx_xprt_xmitq_count(q, ~0u);
}

#endif /* LX_XPRT_XMITQ_H */
