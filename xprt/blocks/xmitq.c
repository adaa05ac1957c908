// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fair transmit queue (contract and ordering rules in xmitq.h).
 *
 * Two halves with different concurrency:
 *
 * Producers only ever touch the incoming queue, a liburcu wfcqueue: one
 * atomic exchange on its tail and one store, wait-free, whatever the number
 * of threads.  They also flip the node's @queued flag (so a double push is
 * refused even when two threads race) and count the push for len().
 *
 * The consumer (unique: the transmit-lock holder) owns everything else, so
 * the fair ordering is plain single-threaded list surgery, no atomics:
 *
 *   credited   FIFO of nodes that hold a congestion credit; served first.
 *   ring       one entry per owner with something queued, in round-robin
 *              order.  The entry is the owner's oldest node; its @sub list
 *              head holds the owner's younger nodes in FIFO order.
 *   owners[]   hash owner -> ring entry, so sorting a node is O(1) while
 *              the queued owners stay around the bucket count (the chains
 *              grow linearly beyond: 4096 queued owners walk ~16 entries).
 *
 * Every peek/pop first sorts what producers pushed since the last call
 * (nonblocking dequeues, each O(1)).  It never waits for a producer that
 * has exchanged the tail but not yet linked its node: that push has not
 * returned, its caller will kick the consumer, and the consumer meanwhile
 * serves what it already has.  Only remove() waits, because it must find a
 * node that may sit behind such a push.
 *
 * Popping an owner's entry hands the owner's role to its next node: the
 * sub-list is circular with the old entry's @sub as list head, so unlinking
 * that head leaves the next node's @sub as head of the rest - no walk.  The
 * new entry goes to the ring tail (round robin).  remove() does the same
 * but puts the new entry in the old one's place, so cancelling a request
 * does not cost its owner its turn.
 *
 * Requeue of a credited node goes to the front of the credited FIFO (it was
 * first; a credit must not sit idle behind others).  A non-credited one is
 * simply pushed again: it had its turn.
 *
 * ThreadSanitizer does not see liburcu's inline-asm atomics: the node is
 * released before the enqueue and acquired after the dequeue, which is the
 * edge that publishes @owner, @credited and @state to the consumer (TSan
 * builds use the out-of-line liburcu functions, see below).
 */
/*
 * Inline wfcqueue fast paths, except under ThreadSanitizer: inlined, their
 * plain stores (a producer clearing its node's next pointer, the next
 * producer linking to it after an asm exchange TSan cannot see) are
 * instrumented and race in TSan's eyes, and no annotation outside the
 * inline function can order them.  The out-of-line copies in liburcu-cds
 * are not instrumented; the node release/acquire below then carries the
 * whole hand-off.
 */
#if !(defined(LX_XPRT_TSAN) && LX_XPRT_TSAN)
#define _LGPL_SOURCE
#endif
#include "xprt/blocks/xmitq.h"

#include <errno.h>
#include <stddef.h>

#include "xprt/blocks/util.h"

static struct lx_xprt_xmit_node *xmitq_node_of_inq(struct cds_wfcq_node *qn)
{
	return lx_xprt_container_of(qn, struct lx_xprt_xmit_node, inq);
}

static struct cds_hlist_head *xmitq_bucket(struct lx_xprt_xmitq *q,
					   uint64_t owner)
{
	/* Fibonacci hashing: thread ids and job ids are often sequential or
	 * share low bits; the multiply spreads them over the top bits. */
	uint64_t h = owner * 0x9e3779b97f4a7c15ull;

	return &q->owners[h >> (64 - LX_XPRT_XMITQ_HASH_BITS)];
}

static struct lx_xprt_xmit_node *xmitq_owner_entry(struct lx_xprt_xmitq *q,
						   uint64_t owner)
{
	struct lx_xprt_xmit_node *e;

	cds_hlist_for_each_entry_2(e, xmitq_bucket(q, owner), hash)
	{
		if (e->owner == owner)
			return e;
	}
	return NULL;
}

/* @n becomes its owner's entry, with an empty sub-list, at the ring tail. */
static void xmitq_add_entry(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n)
{
	n->state = LX_XPRT_XMIT_HEAD;
	CDS_INIT_LIST_HEAD(&n->sub);
	cds_list_add_tail(&n->link, &q->ring);
	cds_hlist_add_head(&n->hash, xmitq_bucket(q, n->owner));
}

/* Place a freshly dequeued incoming node by the ordering rules. */
static void xmitq_sort(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	struct lx_xprt_xmit_node *e;

	if (n->credited) {
		n->state = LX_XPRT_XMIT_CREDITED;
		cds_list_add_tail(&n->link, &q->credited);
		return;
	}
	e = xmitq_owner_entry(q, n->owner);
	if (e) {
		n->state = LX_XPRT_XMIT_SUB;
		cds_list_add_tail(&n->sub, &e->sub);
		return;
	}
	xmitq_add_entry(q, n);
}

/* Take one node out of the incoming queue; NULL when empty, or
 * CDS_WFCQ_WOULDBLOCK when the next node's push is still in progress and
 * @wait is false. */
static struct cds_wfcq_node *xmitq_take_incoming(struct lx_xprt_xmitq *q,
						 bool wait)
{
	struct cds_wfcq_node *qn;

	qn = __cds_wfcq_dequeue_nonblocking(&q->in_head, &q->in_tail);
	if (qn == CDS_WFCQ_WOULDBLOCK && wait)
		qn = __cds_wfcq_dequeue_blocking(&q->in_head, &q->in_tail);
	if (qn && qn != CDS_WFCQ_WOULDBLOCK)
		lx_xprt_tsan_acquire(xmitq_node_of_inq(qn));
	return qn;
}

/*
 * Sort incoming nodes.  Bounded: a node cannot be pushed again before it is
 * popped, so one call sorts at most the nodes that exist.
 */
static void xmitq_sort_incoming(struct lx_xprt_xmitq *q)
{
	struct cds_wfcq_node *qn;

	/*
	 * Nothing linked at the head: either empty or a push still in
	 * progress, which we would not wait for anyway.  Looking no further
	 * keeps the consumer off the producers' tail cache line on every pop
	 * that finds nothing new.
	 */
	if (!__atomic_load_n(&q->in_head.node.next, __ATOMIC_RELAXED))
		return;
	while ((qn = xmitq_take_incoming(q, false)) != NULL &&
	       qn != CDS_WFCQ_WOULDBLOCK)
		xmitq_sort(q, xmitq_node_of_inq(qn));
}

/* Sort incoming nodes until @n is sorted or the incoming queue is empty,
 * waiting for pushes in progress ahead of it. */
static void xmitq_sort_until(struct lx_xprt_xmitq *q,
			     struct lx_xprt_xmit_node *n)
{
	struct cds_wfcq_node *qn;

	while (__atomic_load_n(&n->state, __ATOMIC_RELAXED) ==
		       LX_XPRT_XMIT_INCOMING &&
	       (qn = xmitq_take_incoming(q, true)) != NULL)
		xmitq_sort(q, xmitq_node_of_inq(qn));
}

static struct lx_xprt_xmit_node *xmitq_first(struct lx_xprt_xmitq *q)
{
	if (!cds_list_empty(&q->credited))
		return cds_list_first_entry(&q->credited,
					    struct lx_xprt_xmit_node, link);
	if (!cds_list_empty(&q->ring))
		return cds_list_first_entry(&q->ring, struct lx_xprt_xmit_node,
					    link);
	return NULL;
}

/* The consumer is the only writer: no locked read-modify-write needed. */
static void xmitq_count_popped(struct lx_xprt_xmitq *q)
{
	unsigned long long v;

	v = atomic_load_explicit(&q->popped, memory_order_relaxed);
	atomic_store_explicit(&q->popped, v + 1, memory_order_release);
}

/*
 * Unlink sorted node @n.  An owner entry with requests behind it hands its
 * role to the next one: at the ring tail (@keep_place false, a pop: round
 * robin) or in its own place (@keep_place true, a removal).
 */
static void xmitq_unlink(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n,
			 bool keep_place)
{
	struct lx_xprt_xmit_node *next;

	switch (n->state) {
	case LX_XPRT_XMIT_CREDITED:
		cds_list_del(&n->link);
		break;
	case LX_XPRT_XMIT_SUB:
		cds_list_del(&n->sub);
		break;
	case LX_XPRT_XMIT_HEAD:
		cds_hlist_del(&n->hash);
		if (cds_list_empty(&n->sub)) {
			cds_list_del(&n->link);
			break;
		}
		next = cds_list_first_entry(&n->sub, struct lx_xprt_xmit_node,
					    sub);
		/* The circle without @n's head is next's list of the rest. */
		cds_list_del(&n->sub);
		next->state = LX_XPRT_XMIT_HEAD;
		cds_hlist_add_head(&next->hash, xmitq_bucket(q, next->owner));
		if (keep_place) {
			cds_list_replace(&n->link, &next->link);
		} else {
			cds_list_del(&n->link);
			cds_list_add_tail(&next->link, &q->ring);
		}
		break;
	default:
		/* IDLE or INCOMING: not in the sorted structure. */
		return;
	}
	n->state = LX_XPRT_XMIT_IDLE;
	/* Release: the caller may hand @n back to its owner after this. */
	atomic_store_explicit(&n->queued, false, memory_order_release);
	xmitq_count_popped(q);
}

void lx_xprt_xmitq_init(struct lx_xprt_xmitq *q)
{
	size_t i;

	if (!q)
		return;
	__cds_wfcq_init(&q->in_head, &q->in_tail);
	atomic_init(&q->pushed, 0);
	atomic_init(&q->popped, 0);
	CDS_INIT_LIST_HEAD(&q->credited);
	CDS_INIT_LIST_HEAD(&q->ring);
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(q->owners); i++)
		CDS_INIT_HLIST_HEAD(&q->owners[i]);
}

void lx_xprt_xmitq_destroy(struct lx_xprt_xmitq *q)
{
	/* Nothing allocated, and the nodes belong to their requests: an
	 * empty queue needs no teardown.  Kept so that owners of a queue have
	 * one place to call if that ever changes. */
	(void)q;
}

/* The producer side of push and of a non-credited requeue; @n->queued is
 * already set. */
static void xmitq_enqueue(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	/* atomic: a remover (lx_xprt_req_fail() on another thread) may look
	 * at the state of a node whose push is under way */
	__atomic_store_n(&n->state, LX_XPRT_XMIT_INCOMING, __ATOMIC_RELAXED);
	cds_wfcq_node_init(&n->inq);
	/* Count before publishing so the consumer never pops more than was
	 * pushed: len() stays non-negative. */
	atomic_fetch_add(&q->pushed, 1);
	lx_xprt_tsan_release(n);
	cds_wfcq_enqueue(&q->in_head, &q->in_tail, &n->inq);
}

int lx_xprt_xmitq_push(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (!q || !n)
		return -EINVAL;
	if (atomic_exchange(&n->queued, true))
		return -EINVAL;
	xmitq_enqueue(q, n);
	return 0;
}

struct lx_xprt_xmit_node *lx_xprt_xmitq_peek(struct lx_xprt_xmitq *q)
{
	if (!q)
		return NULL;
	xmitq_sort_incoming(q);
	return xmitq_first(q);
}

struct lx_xprt_xmit_node *lx_xprt_xmitq_pop(struct lx_xprt_xmitq *q)
{
	struct lx_xprt_xmit_node *n = lx_xprt_xmitq_peek(q);

	if (n)
		xmitq_unlink(q, n, false);
	return n;
}

struct lx_xprt_xmit_node *lx_xprt_xmitq_peek_fifo(struct lx_xprt_xmitq *q)
{
	struct cds_wfcq_node *qn;

	if (!cds_list_empty(&q->credited) || !cds_list_empty(&q->ring))
		return NULL;
	qn = __cds_wfcq_first_nonblocking(&q->in_head, &q->in_tail);
	if (!qn || qn == CDS_WFCQ_WOULDBLOCK)
		return NULL;
	lx_xprt_tsan_acquire(xmitq_node_of_inq(qn));
	return xmitq_node_of_inq(qn);
}

void lx_xprt_xmitq_pop_fifo(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n)
{
	/* the first node: its successor's push may still be linking it,
	 * which the blocking dequeue waits out (a few instructions) */
	__cds_wfcq_dequeue_blocking(&q->in_head, &q->in_tail);
	n->state = LX_XPRT_XMIT_IDLE;
	atomic_store_explicit(&n->queued, false, memory_order_release);
	xmitq_count_popped(q);
}

int lx_xprt_xmitq_requeue(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (!q || !n)
		return -EINVAL;
	if (atomic_exchange(&n->queued, true))
		return -EINVAL;
	if (!n->credited) {
		xmitq_enqueue(q, n);
		return 0;
	}
	atomic_fetch_add(&q->pushed, 1);
	n->state = LX_XPRT_XMIT_CREDITED;
	cds_list_add(&n->link, &q->credited);
	return 0;
}

bool lx_xprt_xmitq_remove(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (!q || !n)
		return false;
	if (!atomic_load_explicit(&n->queued, memory_order_acquire))
		return false;
	xmitq_sort_until(q, n);
	switch (__atomic_load_n(&n->state, __ATOMIC_RELAXED)) {
	case LX_XPRT_XMIT_INCOMING:
	case LX_XPRT_XMIT_IDLE:
		return false; /* its push has not returned: not ours yet */
	default:
		break;
	}
	xmitq_unlink(q, n, true);
	return true;
}
