// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fair transmit queue (contract and ordering rules in xmitq.h).
 *
 * Two halves with different concurrency:
 *
 * Producers only ever touch the incoming queue, a liburcu wfcqueue: one
 * atomic exchange on its tail and one store, wait-free, whatever the number
 * of threads.  They also set the node's @queued flag (plain stores: the
 * node is theirs until the push) and count nothing: the exchange is the
 * push's only locked instruction, as for a bare wait-free FIFO.
 *
 * The consumer (unique: the transmit-lock holder) owns everything else, so
 * the fair ordering is plain single-threaded list surgery, no atomics:
 *
 *   credited   FIFO of nodes that hold a congestion credit; served first.
 *   ring       one entry per owner with something queued, in round-robin
 *              order.  The entry is the owner's oldest node; its @sub list
 *              head holds the owner's younger nodes in FIFO order.
 *   owners[]   hash owner -> ring entry, so sorting a node is O(1): the
 *              table grows x4 (allocated, amortised over the owners that
 *              filled it) when queued owners outnumber its buckets.
 *   nsorted    nodes out of the incoming queue and still queued, so that
 *              any thread can tell an empty queue (lx_xprt_xmitq_empty())
 *              without producers counting.
 *
 * In FIFO order (an ablation) the ring is a plain list of every
 * non-credited node in arrival order, and the hash is not used.
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
#include <stdlib.h>

#include "xprt/blocks/util.h"

static struct lx_xprt_xmit_node *xmitq_node_of_inq(struct cds_wfcq_node *qn)
{
	return lx_xprt_container_of(qn, struct lx_xprt_xmit_node, inq);
}

static struct cds_hlist_head *xmitq_bucket_in(struct cds_hlist_head *tab,
					      unsigned int bits, uint64_t owner)
{
	/* Fibonacci hashing: thread ids and job ids are often sequential or
	 * share low bits; the multiply spreads them over the top bits. */
	uint64_t h = owner * 0x9e3779b97f4a7c15ull;

	return &tab[h >> (64 - bits)];
}

static struct cds_hlist_head *xmitq_bucket(struct lx_xprt_xmitq *q,
					   uint64_t owner)
{
	return xmitq_bucket_in(q->owners, q->hash_bits, owner);
}

/*
 * More queued owners than buckets: a table four times larger, the ring
 * entries rehashed into it.  Allocation failure keeps the old table
 * (lookups walk longer chains; nothing else changes).
 */
static __attribute__((noinline)) void xmitq_grow(struct lx_xprt_xmitq *q)
{
	unsigned int bits = q->hash_bits + 2u, i;
	struct cds_hlist_head *tab;
	struct lx_xprt_xmit_node *e;

	tab = malloc(sizeof(*tab) << bits);
	if (!tab)
		return;
	for (i = 0; i < 1u << bits; i++)
		CDS_INIT_HLIST_HEAD(&tab[i]);
	cds_list_for_each_entry (e, &q->ring, link)
		cds_hlist_add_head(&e->hash,
				   xmitq_bucket_in(tab, bits, e->owner));
	if (q->owners != q->owners0)
		free(q->owners);
	q->owners = tab;
	q->hash_bits = (uint8_t)bits;
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
	if (lx_xprt_unlikely(++q->nowners > 1u << q->hash_bits) &&
	    q->hash_bits < LX_XPRT_XMITQ_HASH_MAX)
		xmitq_grow(q);
}

/* Hand the owner's hash place from entry @n to @next (same owner, same
 * bucket): no rehash, no walk. */
static void xmitq_hash_replace(struct lx_xprt_xmit_node *n,
			       struct lx_xprt_xmit_node *next)
{
	next->hash.next = n->hash.next;
	next->hash.prev = n->hash.prev;
	/* an hlist node's prev is the previous node, or the head (whose
	 * only field is next: the same layout) */
	next->hash.prev->next = &next->hash;
	if (next->hash.next)
		next->hash.next->prev = &next->hash;
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
	if (q->order == LX_XPRT_XMIT_FIFO) {
		n->state = LX_XPRT_XMIT_ARRIVAL;
		cds_list_add_tail(&n->link, &q->ring);
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

/* The consumer is the only writer: no locked read-modify-write needed. */
static void xmitq_count_sorted(struct lx_xprt_xmitq *q, int d)
{
	unsigned int v;

	v = atomic_load_explicit(&q->nsorted, memory_order_relaxed);
	atomic_store_explicit(&q->nsorted, v + (unsigned int)d,
			      memory_order_release);
}

/* The lazy node leaves the incoming queue (it is first there): a locked
 * compare-and-swap when it is still the last, a store otherwise. */
static void xmitq_drop_lazy(struct lx_xprt_xmitq *q)
{
	__cds_wfcq_dequeue_blocking(&q->in_head, &q->in_tail);
	q->lazy = NULL;
}

/*
 * Sort incoming nodes.  Bounded: a node cannot be pushed again before it is
 * popped, so one call sorts at most the nodes that exist.
 *
 * Nodes are sorted where they are and leave the incoming queue only once
 * a later push has linked behind them: taking the last node out would
 * reset the tail with a locked compare-and-swap, which a FIFO with a
 * backlog never pays.  That last node, sorted but still in the incoming
 * queue, is @q->lazy; it leaves when the next pass finds a node behind
 * it, or when it is popped or removed (xmitq_unlink()).  A node whose
 * successor is still being linked looks last too: the same applies.
 */
static inline __attribute__((always_inline)) void
xmitq_sort_incoming(struct lx_xprt_xmitq *q)
{
	struct cds_wfcq_node *qn, *next;
	struct lx_xprt_xmit_node *n;
	unsigned int sorted;

	/*
	 * Nothing linked at the head: either empty or a push still in
	 * progress, which we would not wait for anyway.  Looking no further
	 * keeps the consumer off the producers' tail cache line on every pop
	 * that finds nothing new.
	 */
	qn = __atomic_load_n(&q->in_head.node.next, __ATOMIC_RELAXED);
	if (!qn)
		return;
	if (xmitq_node_of_inq(qn) == q->lazy) {
		/* sorted last time: nothing new unless linked behind it;
		 * leaving is then one store (wfcqueue's own dequeue of a
		 * node with a successor) */
		next = __atomic_load_n(&qn->next, __ATOMIC_ACQUIRE);
		if (!next)
			return;
		__atomic_store_n(&q->in_head.node.next, next, __ATOMIC_RELAXED);
		qn = next;
	}
	/*
	 * Counted once at the end: until then the last node is still in
	 * the incoming queue, so any thread sees the queue non-empty
	 * (lx_xprt_xmitq_empty()) while the count lags.
	 */
	sorted = atomic_load_explicit(&q->nsorted, memory_order_relaxed);
	for (;;) {
		n = xmitq_node_of_inq(qn);
		next = __atomic_load_n(&qn->next, __ATOMIC_ACQUIRE);
		lx_xprt_tsan_acquire(n);
		sorted++;
		xmitq_sort(q, n);
		if (!next)
			break;
		__atomic_store_n(&q->in_head.node.next, next, __ATOMIC_RELAXED);
		qn = next;
	}
	q->lazy = n;
	atomic_store_explicit(&q->nsorted, sorted, memory_order_release);
}

/* Sort incoming nodes until @n is sorted or the incoming queue is empty,
 * waiting for pushes in progress ahead of it. */
static void xmitq_sort_until(struct lx_xprt_xmitq *q,
			     struct lx_xprt_xmit_node *n)
{
	struct cds_wfcq_node *qn;
	struct lx_xprt_xmit_node *m;

	while (__atomic_load_n(&n->state, __ATOMIC_RELAXED) ==
	       LX_XPRT_XMIT_INCOMING) {
		/* the lazy node (already sorted) is first, if any: out of
		 * the way, then nodes one by one, waiting for their links */
		if (q->lazy)
			xmitq_drop_lazy(q);
		qn = __cds_wfcq_first_blocking(&q->in_head, &q->in_tail);
		if (!qn)
			break;
		m = xmitq_node_of_inq(qn);
		lx_xprt_tsan_acquire(m);
		xmitq_count_sorted(q, 1);
		xmitq_sort(q, m);
		q->lazy = m;
	}
}

/*
 * @qn, the first incoming node, is the last one linked while a push is
 * still linking its successor: taking it out now would wait for that
 * producer (a preempted one for a whole time slice).
 */
static bool xmitq_in_push(struct lx_xprt_xmitq *q, struct cds_wfcq_node *qn)
{
	return !__atomic_load_n(&qn->next, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&q->in_tail.p, __ATOMIC_ACQUIRE) != qn;
}

/* The next node by the rules; NULL when it is the lazy node and cannot
 * leave the incoming queue without waiting (xmitq_in_push()): the push
 * in progress is followed by a kick, as for any push not yet seen. */
static struct lx_xprt_xmit_node *xmitq_first(struct lx_xprt_xmitq *q)
{
	struct lx_xprt_xmit_node *n;

	if (!cds_list_empty(&q->credited))
		n = cds_list_first_entry(&q->credited, struct lx_xprt_xmit_node,
					 link);
	else if (!cds_list_empty(&q->ring))
		n = cds_list_first_entry(&q->ring, struct lx_xprt_xmit_node,
					 link);
	else
		return NULL;
	if (lx_xprt_unlikely(n == q->lazy) && xmitq_in_push(q, &n->inq))
		return NULL;
	return n;
}

/*
 * Unlink sorted node @n.  An owner entry with requests behind it hands its
 * role to the next one: at the ring tail (@keep_place false, a pop: round
 * robin) or in its own place (@keep_place true, a removal).
 */
static inline __attribute__((always_inline)) void
xmitq_unlink(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n,
	     bool keep_place)
{
	struct lx_xprt_xmit_node *next;

	if (n == q->lazy)
		xmitq_drop_lazy(q);
	switch (n->state) {
	case LX_XPRT_XMIT_CREDITED:
	case LX_XPRT_XMIT_ARRIVAL:
		cds_list_del(&n->link);
		break;
	case LX_XPRT_XMIT_SUB:
		cds_list_del(&n->sub);
		break;
	case LX_XPRT_XMIT_HEAD:
		if (cds_list_empty(&n->sub)) {
			cds_hlist_del(&n->hash);
			q->nowners--;
			cds_list_del(&n->link);
			break;
		}
		next = cds_list_first_entry(&n->sub, struct lx_xprt_xmit_node,
					    sub);
		/* The circle without @n's head is next's list of the rest. */
		cds_list_del(&n->sub);
		next->state = LX_XPRT_XMIT_HEAD;
		xmitq_hash_replace(n, next);
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
	xmitq_count_sorted(q, -1);
}

void lx_xprt_xmitq_init_order(struct lx_xprt_xmitq *q,
			      enum lx_xprt_xmit_order order)
{
	size_t i;

	if (!q)
		return;
	__cds_wfcq_init(&q->in_head, &q->in_tail);
	atomic_init(&q->nsorted, 0);
	q->order = order == LX_XPRT_XMIT_FIFO ? LX_XPRT_XMIT_FIFO :
						LX_XPRT_XMIT_FAIR;
	q->hash_bits = LX_XPRT_XMITQ_HASH_BITS;
	q->nowners = 0;
	q->lazy = NULL;
	CDS_INIT_LIST_HEAD(&q->credited);
	CDS_INIT_LIST_HEAD(&q->ring);
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(q->owners0); i++)
		CDS_INIT_HLIST_HEAD(&q->owners0[i]);
	q->owners = q->owners0;
}

void lx_xprt_xmitq_destroy(struct lx_xprt_xmitq *q)
{
	/* The nodes belong to their requests: only a grown owner table is
	 * the queue's own. */
	if (!q)
		return;
	if (q->owners != q->owners0)
		free(q->owners);
	q->owners = q->owners0;
	q->hash_bits = LX_XPRT_XMITQ_HASH_BITS;
}

/* The producer side of push and of a non-credited requeue; @n->queued is
 * already set. */
static void xmitq_enqueue(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	/* atomic: a remover (lx_xprt_req_fail() on another thread) may look
	 * at the state of a node whose push is under way */
	__atomic_store_n(&n->state, LX_XPRT_XMIT_INCOMING, __ATOMIC_RELAXED);
	cds_wfcq_node_init(&n->inq);
	lx_xprt_tsan_release(n);
	cds_wfcq_enqueue(&q->in_head, &q->in_tail, &n->inq);
}

int lx_xprt_xmitq_push(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (!q || !n)
		return -EINVAL;
	/* Not an exchange: the caller's state already keeps two threads
	 * from pushing one node; this catches a push of a queued node. */
	if (atomic_load_explicit(&n->queued, memory_order_relaxed))
		return -EINVAL;
	atomic_store_explicit(&n->queued, true, memory_order_relaxed);
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

/*
 * The lazy node leaves the incoming queue unless that means waiting for a
 * push in progress behind it (false, nothing changed).  A push can start
 * between a peek that found the node free and this: the peek cannot
 * promise it.
 */
static bool xmitq_drop_lazy_nowait(struct lx_xprt_xmitq *q)
{
	if (__cds_wfcq_dequeue_nonblocking(&q->in_head, &q->in_tail) ==
	    CDS_WFCQ_WOULDBLOCK)
		return false;
	q->lazy = NULL;
	return true;
}

static inline __attribute__((always_inline)) bool
xmitq_pop_node(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (lx_xprt_unlikely(n == q->lazy) && !xmitq_drop_lazy_nowait(q))
		return false;
	xmitq_unlink(q, n, false);
	return true;
}

bool lx_xprt_xmitq_pop_node(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n)
{
	return xmitq_pop_node(q, n);
}

struct lx_xprt_xmit_node *lx_xprt_xmitq_pop(struct lx_xprt_xmitq *q)
{
	struct lx_xprt_xmit_node *n;

	if (!q)
		return NULL;
	xmitq_sort_incoming(q);
	n = xmitq_first(q);
	if (n && !xmitq_pop_node(q, n))
		return NULL;
	return n;
}

struct lx_xprt_xmit_node *lx_xprt_xmitq_peek_fifo(struct lx_xprt_xmitq *q)
{
	struct cds_wfcq_node *qn;

	if (!cds_list_empty(&q->credited) || !cds_list_empty(&q->ring))
		return NULL;
	qn = __cds_wfcq_first_nonblocking(&q->in_head, &q->in_tail);
	if (!qn || qn == CDS_WFCQ_WOULDBLOCK || xmitq_in_push(q, qn))
		return NULL;
	lx_xprt_tsan_acquire(xmitq_node_of_inq(qn));
	return xmitq_node_of_inq(qn);
}

bool lx_xprt_xmitq_pop_fifo(struct lx_xprt_xmitq *q,
			    struct lx_xprt_xmit_node *n)
{
	/* the first node; a push may have started behind it since the
	 * peek (which saw none): then it stays */
	if (__cds_wfcq_dequeue_nonblocking(&q->in_head, &q->in_tail) ==
	    CDS_WFCQ_WOULDBLOCK)
		return false;
	n->state = LX_XPRT_XMIT_IDLE;
	atomic_store_explicit(&n->queued, false, memory_order_release);
	return true;
}

int lx_xprt_xmitq_requeue(struct lx_xprt_xmitq *q, struct lx_xprt_xmit_node *n)
{
	if (!q || !n)
		return -EINVAL;
	if (atomic_load_explicit(&n->queued, memory_order_relaxed))
		return -EINVAL;
	atomic_store_explicit(&n->queued, true, memory_order_relaxed);
	if (!n->credited) {
		xmitq_enqueue(q, n);
		return 0;
	}
	xmitq_count_sorted(q, 1);
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

unsigned int lx_xprt_xmitq_count(struct lx_xprt_xmitq *q, unsigned int max)
{
	struct cds_wfcq_node *qn;
	unsigned int c;

	if (!q)
		return 0;
	c = atomic_load_explicit(&q->nsorted, memory_order_relaxed);
	if (c >= max)
		return max;
	for (qn = __cds_wfcq_first_nonblocking(&q->in_head, &q->in_tail);
	     qn && qn != CDS_WFCQ_WOULDBLOCK && c < max;
	     qn = __cds_wfcq_next_nonblocking(&q->in_head, &q->in_tail, qn))
		if (xmitq_node_of_inq(qn) != q->lazy) /* counted sorted */
			c++;
	return c;
}
