// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transport core: request slots, outcomes, completion, the receive side's
 * services, timers firing.  Creation and teardown are in create.c, the
 * submission and transmit paths in xmit.c.
 *
 * Exactly-once completion.  A request can be finished by several parties
 * racing each other: the receive thread (a reply), its timer (timeout), a
 * canceller, the transmit worker (connection lost), lx_xprt_destroy().  Each
 * of them tries to *decide* the outcome with one compare-and-swap on the
 * request's state word (lx_xprt_claim_outcome()): one wins, the others see the
 * decision and back off.  Deciding is not delivering: done() may only run
 * once nobody else touches the request's memory any more - the transmitter
 * may still be writing it out of the caller's buffer (RQ_XMIT), the kernel
 * may still read that buffer after a MSG_ZEROCOPY send (RQ_ZC, until its
 * completion is on the error queue), it may
 * still sit in the transmit queue (RQ_QUEUED), the receiver may still be
 * placing reply bytes (a pin in the reply index).  Whoever clears the last
 * of those conditions calls lx_xprt_try_complete(), which claims delivery
 * (RQ_DONE) with another compare-and-swap and runs done() once.  Nobody
 * ever waits for another party: a canceller or a timer firing on the
 * receive thread just decides, and the last party out delivers.
 *
 * Slots.  Requests live in one array, one cache-line-aligned slot per tag
 * of the tag allocator, with the protocol's private area behind each: the
 * fast path allocates nothing.  A slot is returned (tag put, buffers back
 * to the pool) when its last reference drops: the protocol holds one from
 * alloc, the transport one from submit to delivery.
 *
 * Orphans.  A request cancelled or timed out after it went out is still
 * answered by the server.  Returning its credit and slot at done() would
 * let a cancel-and-restart loop put any number of requests on the wire
 * (over RDMA more than the server has receives posted for) ahead of other
 * owners' calls.  So lx_xprt_req_fail() marks such a request RQ_ORPHAN
 * when it decides it (with a reference of the orphan's own) and leaves it
 * in the reply index; done() runs as early as ever, but the credit, the
 * key and the slot stay until lx_xprt_orphan_end(): its reply (consumed
 * by the late-reply path, never placed), its timer, the connection's end
 * (xmit_conn_down()) or the transport's.  Whoever clears RQ_ORPHAN ends
 * it, once.  The reply path pays nothing for it: only outcomes that are
 * not replies look at the flag.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xprt/core/xprt_int.h"

void lx_xprt_futex_wait(atomic_uint *word, unsigned int val, int64_t timeout_ns)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tsp = &ts;
	}
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, tsp, NULL, 0);
}

void lx_xprt_futex_wake(atomic_uint *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}
/* ------------------------------------------------------------ outcomes */

/* (inline here: the receive path's completion is one function) */
static inline bool claim_outcome(struct lx_xprt_rqst *rq, int status)
{
	uint64_t st = atomic_load(&rq->st), nst;

	do {
		if (rq_flags(st) & RQ_OUTCOME)
			return false;
		nst = (uint64_t)(uint32_t)status << 32 |
		      (rq_flags(st) | RQ_OUTCOME | (status ? 0 : RQ_REPLIED));
	} while (!atomic_compare_exchange_weak(&rq->st, &st, nst));
	return true;
}

bool lx_xprt_claim_outcome(struct lx_xprt_rqst *rq, int status)
{
	return claim_outcome(rq, status);
}

static void rq_release_slot(struct lx_xprt_rqst *rq);
static int rq_put_slow(struct lx_xprt_rqst *rq, int old);

/* Drop a reference; the last one frees the slot. */
static inline int rq_put(struct lx_xprt_rqst *rq)
{
	int old = atomic_fetch_sub(&rq->refs, 1);

	if (lx_xprt_likely(old > 1))
		return 0;
	return rq_put_slow(rq, old);
}

/* Return @rq's credit if it still holds one: as a reply, a timeout or a
 * plain put, adjusting the window. */
static inline void rq_credit_back(struct lx_xprt *x, struct lx_xprt_rqst *rq,
				  bool replied, bool timed_out)
{
	uint64_t old = atomic_fetch_and(&rq->st, ~(uint64_t)RQ_CREDIT);
	bool eased;

	if (!(rq_flags(old) & RQ_CREDIT))
		return;
	if (replied)
		eased = lx_xprt_cong_reply(&x->cong);
	else if (timed_out)
		eased = lx_xprt_cong_timeout(&x->cong);
	else
		eased = lx_xprt_cong_put(&x->cong);
	/* Only a congested queue waits for credits; otherwise whoever
	 * queued a request also arranged for its transmission. */
	if (eased)
		lx_xprt_credit_returned(x);
}

/* Return the credit a finished request held, adjusting the window. */
static inline void rq_return_credit(struct lx_xprt *x, struct lx_xprt_rqst *rq,
				    uint64_t st)
{
	rq_credit_back(x, rq, rq_flags(st) & RQ_REPLIED,
		       rq_status(st) == -ETIMEDOUT);
}

/*
 * Delivery of an outcome that is not a reply: an orphan keeps its timer
 * and credit; one whose send did not complete after all (requeued, then
 * taken out of the queue: the server never saw it) ends here.
 */
static bool rq_make_orphan(struct lx_xprt *x, struct lx_xprt_rqst *rq);

static __attribute__((noinline)) void
rq_end_unreplied(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint64_t st)
{
	uint32_t f;

	if ((rq_flags(st) & (RQ_ORPHAN | RQ_SENT)) == RQ_ORPHAN)
		lx_xprt_orphan_end(x, rq, LX_XPRT_ORPHAN_PUT);
	f = rq_flags(atomic_load(&rq->st));
	if (f & RQ_ORPHAN)
		return;
	/* decided as its transmitter took its credit, and sent all the
	 * same: an orphan after all, back in the reply index (a reply
	 * that came in between was counted unknown: the credit then
	 * waits for the deadline).  Its key may still be in the index:
	 * the deciding thread, preempted, has yet to take it out (it may
	 * then do so, with the same consequence); the credit stays all
	 * the same, the server has the call. */
	if ((f & (RQ_SENT | RQ_CREDIT)) == (RQ_SENT | RQ_CREDIT) &&
	    (rq_status(st) == -ECANCELED || rq_status(st) == -ETIMEDOUT) &&
	    !rq->pub.no_reply && !rq->pub.no_orphan) {
		int err = lx_xprt_ix_link(x, rq, rq->pub.key);

		if ((!err || err == -EINVAL || err == -EEXIST) &&
		    rq_make_orphan(x, rq))
			return;
		lx_xprt_rx_unlink(x, rq);
	}
	if (atomic_load_explicit(&rq->deadline, memory_order_relaxed))
		lx_xprt_timer_arm(x, rq, 0);
	rq_return_credit(x, rq, st);
}

void lx_xprt_try_complete(struct lx_xprt_rqst *rq)
{
	struct lx_xprt *x = rq->pub.xprt;
	uint64_t st = atomic_load(&rq->st);
	const uint32_t busy = RQ_QUEUED | RQ_XMIT | RQ_ZC | RQ_DONE;

	do {
		if (!(rq_flags(st) & RQ_OUTCOME) || (rq_flags(st) & busy))
			return;
		/* A receiver still placing bytes: it calls us again when it
		 * unpins (lx_xprt_rx_unpin).  Whoever decided the outcome took
		 * the request out of the reply index first, so no new pin
		 * that could write can appear. */
		if (lx_xprt_ix_pinned(rq))
			return;
	} while (!atomic_compare_exchange_weak(&rq->st, &st, st | RQ_DONE));

	if (lx_xprt_likely(rq_flags(st) & RQ_REPLIED)) {
		if (atomic_load_explicit(&rq->deadline, memory_order_relaxed))
			lx_xprt_timer_arm(x, rq, 0);
		rq_return_credit(x, rq, st);
	} else {
		rq_end_unreplied(x, rq, st);
	}
	/* transport state of the request (RDMA chunk registrations) goes
	 * before done() hands the caller's memory back */
	if (x->ops->release)
		x->ops->release(x, rq, rq_status(st));

	atomic_fetch_add_explicit(&x->stats.completed, 1, memory_order_relaxed);
	rq->pub.ops->done(&rq->pub, rq_status(st));

	atomic_fetch_or(&rq->st, RQ_FINISHED);
	atomic_fetch_and(&rq->st, ~(uint64_t)RQ_SUBMITTED);
	/* A timer armed while done() ran (lx_xprt_req_set_timer() called by the
	 * submitter after the reply was already in) must not outlive the
	 * request: it would fire on whoever gets the slot next.  Pairs with
	 * the fence in lx_xprt_req_set_timer(): one of the two sees the other. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&rq->deadline, memory_order_relaxed) &&
	    !(rq_flags(atomic_load(&rq->st)) & RQ_ORPHAN))
		lx_xprt_timer_arm(x, rq, 0); /* (an orphan's is its own) */
	/* A wake is a system call: only when a waiter said it sleeps.
	 * Async requests (nobody waits) and sync callers that receive
	 * their own reply never need one. */
	if (atomic_exchange(&rq->done_futex, LX_XPRT_DONE) ==
	    LX_XPRT_DONE_SLEEPING)
		lx_xprt_futex_wake(&rq->done_futex, INT_MAX);
	rq_put(rq);
}

/* ------------------------------------------------------------- slots */

/* The slot's buffers back to the pool (a slot that keeps none). */
static void slot_bufs_drop(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	if (rq->pub.sbuf)
		lx_xprt_pool_put(x->pool, rq->pub.sbuf);
	if (rq->pub.rbuf)
		lx_xprt_pool_put(x->pool, rq->pub.rbuf);
	rq->pub.sbuf = NULL;
	rq->pub.rbuf = NULL;
}

/*
 * With keep_bufs a free slot keeps its two buffers: the next request in
 * the slot finds them (handed over with the slot: the tag put releases,
 * the get acquires), and a call costs no pool operation.
 */
static void rq_release_slot(struct lx_xprt_rqst *rq)
{
	struct lx_xprt *x = rq->pub.xprt;

	if (lx_xprt_unlikely(rq->rbuf_home)) {
		/* a larger reply buffer of this use: back to its pool (its
		 * windows were invalidated before done()) */
		lx_xprt_pool_put(rq->rbuf_big_pool, rq->pub.rbuf);
		rq->pub.rbuf = rq->rbuf_home;
		rq->rbuf_home = NULL;
	}
	if (lx_xprt_likely(x->keep_bufs)) {
		lx_xprt_tags_put(x->tags, rq->pub.slot);
		return;
	}
	slot_bufs_drop(x, rq);
	lx_xprt_tags_put(x->tags, rq->pub.slot);
}

/*
 * A slot of a caller-driven transport: only its owner frees slots, so
 * waiting for one is servicing the transport until one is free (not
 * inside a service: from a done() callback that is -EBUSY).
 */
static __attribute__((noinline)) int loop_tag_get(struct lx_xprt *x,
						  unsigned int flags)
{
	int tag;

	for (;;) {
		tag = lx_xprt_tags_get(x->tags);
		if (tag != -EAGAIN || (flags & LX_XPRT_NOWAIT) ||
		    x->loop->in_service || atomic_load(&x->stopping))
			return tag;
		x->loop->ops->wait_slot(x);
	}
}

int lx_xprt_req_alloc(struct lx_xprt *x, unsigned int flags,
		      struct lx_xprt_req **reqp)
{
	unsigned int pflags =
		(flags & LX_XPRT_NOWAIT) ? LX_XPRT_POOL_NOWAIT : 0;
	struct lx_xprt_rqst *rq;
	int tag, err;

	if (!x || !reqp)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD;
	if (atomic_load(&x->stopping))
		return -ESHUTDOWN;
	if (lx_xprt_unlikely(x->loop)) {
		tag = loop_tag_get(x, flags);
		pflags = LX_XPRT_POOL_NOWAIT; /* nobody else frees a buffer */
	} else {
		tag = (flags & LX_XPRT_NOWAIT) ?
			      lx_xprt_tags_get(x->tags) :
			      lx_xprt_tags_get_wait(x->tags, -1);
	}
	if (tag < 0)
		return tag == -EAGAIN ? -EBUSY : tag;
	rq = lx_xprt_slot(x, (unsigned int)tag);
	if (lx_xprt_likely(rq->pub.sbuf && rq->pub.rbuf)) {
		/* kept by the slot (keep_bufs): as the pool hands them out */
		rq->pub.sbuf->len = 0;
		rq->pub.sbuf->next = NULL;
		rq->pub.rbuf->len = 0;
		rq->pub.rbuf->next = NULL;
	} else {
		err = lx_xprt_pool_get(x->pool, pflags, &rq->pub.sbuf);
		if (err)
			goto out_put_tag;
		err = lx_xprt_pool_get(x->pool, pflags, &rq->pub.rbuf);
		if (err)
			goto out_put_sbuf;
	}

	rq->pub.nr_tx_segs = 0;
	rq->pub.rlen = 0;
	rq->pub.rx_data_off = 0;
	rq->pub.rx_data_len = 0;
	rq->pub.rx_data_pad = 0;
	rq->pub.rx_msg_len = 0;
	rq->pub.ops = NULL;
	rq->pub.owner = 0;
	rq->pub.no_reply = false;
	rq->pub.will_wait = false;
	rq->pub.no_orphan = false;
	rq->pub.timeout_ns = 0;
	rq->pub.key = 0;
	rq->pub.user = NULL;
	rq->pub.rx_hint = 0;
	rq->pub.rx_first = 0;
	/* before refs: a canceller that takes a reference sees this use's
	 * generation (lx_xprt_req_tryget()) */
	if (!++rq->pub.gen)
		rq->pub.gen = 1;
	rq->tx_done = 0;
	rq->tx_total = 0;
	rq->xnode.credited = false;
	atomic_store(&rq->done_futex, 0);
	atomic_store(&rq->st, 0);
	atomic_store(&rq->refs, 1);
	*reqp = &rq->pub;
	return 0;

out_put_sbuf:
	lx_xprt_pool_put(x->pool, rq->pub.sbuf);
	rq->pub.sbuf = NULL;
out_put_tag:
	lx_xprt_tags_put(x->tags, (unsigned int)tag);
	/* no slot and no buffer are one refusal to the caller: try later
	 * (-EAGAIN is left to the protocols: NFS3ERR_JUKEBOX) */
	return err == -ENOBUFS ? -EBUSY : err;
}

/* pub is the slot's first member: the area is at a fixed offset */
_Static_assert(offsetof(struct lx_xprt_rqst, pub) == 0,
	       "LX_XPRT__REQ_PRIV_OFF counts from the public request");
_Static_assert(sizeof(struct lx_xprt_rqst) == LX_XPRT__REQ_PRIV_OFF,
	       "struct lx_xprt_rqst changed size: set LX_XPRT__REQ_PRIV_OFF "
	       "(xprt/core/proto.h) to its new sizeof");

/* ------------------------------------------------ larger reply buffers */

/*
 * The pool of @size-byte reply buffers: the shared pool's class, or one of
 * the transport's own (made on first use; two threads racing to make it
 * keep the first).
 */
static int big_class(struct lx_xprt *x, size_t size, struct lx_xprt_pool **clsp)
{
	struct lx_xprt_pool_opts po = {0};
	struct lx_xprt_pool *cls, *none = NULL;
	unsigned int k = 0;
	int err;

	if (x->opts.pool && lx_xprt_pool_has_classes(x->opts.pool)) {
		err = lx_xprt_pool_class(x->opts.pool, size, clsp);
		if (err != -EINVAL)
			return err;
		/* a class, not the pool of classes: our own below */
	}
	while (k < LX_XPRT_BIG_CLASSES && ((size_t)4096 << k) < size)
		k++;
	if (k == LX_XPRT_BIG_CLASSES)
		return -EMSGSIZE;
	cls = atomic_load_explicit(&x->big_pools[k], memory_order_acquire);
	if (cls) {
		*clsp = cls;
		return 0;
	}
	po.buf_size = (size_t)4096 << k;
	po.max_bytes = LX_XPRT_BIG_BUFS * po.buf_size;
	po.slab_bufs = 1; /* memory (and a registration) only as used */
	po.reg = x->ops->pool_reg;
	err = lx_xprt_pool_create(&cls, &po);
	if (err)
		return err;
	if (!atomic_compare_exchange_strong(&x->big_pools[k], &none, cls)) {
		lx_xprt_pool_destroy(cls);
		cls = none;
	}
	*clsp = cls;
	return 0;
}

/* See xprt/core/proto.h. */
int lx_xprt__req_grow_rbuf(struct lx_xprt_req *req, size_t size,
			   unsigned int flags)
{
	struct lx_xprt_pool *cls;
	struct lx_xprt_rqst *rq;
	struct lx_xprt_buf *b;
	int err;

	if (!req || !req->rbuf)
		return -EINVAL;
	if (size <= req->rbuf->cap)
		return 0;
	rq = rq_of(req);
	if (rq->rbuf_home)
		return -EINVAL;
	err = big_class(req->xprt, size, &cls);
	if (err)
		return err;
	err = lx_xprt_pool_get(
		cls, (flags & LX_XPRT_NOWAIT) ? LX_XPRT_POOL_NOWAIT : 0, &b);
	if (err)
		return err == -ENOBUFS ? -EBUSY : err;
	rq->rbuf_home = req->rbuf;
	rq->rbuf_big_pool = cls;
	req->rbuf = b;
	return 0;
}

void lx_xprt_big_pools_destroy(struct lx_xprt *x)
{
	unsigned int k;

	for (k = 0; k < LX_XPRT_BIG_CLASSES; k++) {
		lx_xprt_pool_destroy(atomic_load(&x->big_pools[k]));
		atomic_store(&x->big_pools[k], NULL);
	}
}

void *lx_xprt_req_priv(struct lx_xprt_req *req)
{
	return (char *)rq_of(req) + sizeof(struct lx_xprt_rqst);
}

int lx_xprt_req_add_seg(struct lx_xprt_req *req, const void *base, size_t len)
{
	if (!req || (!base && len))
		return -EINVAL;
	if (req->nr_tx_segs >= LX_XPRT_REQ_MAX_TX_SEGS)
		return -E2BIG;
	if (!len)
		return 0;
	req->tx_segs[req->nr_tx_segs].iov_base = (void *)base;
	req->tx_segs[req->nr_tx_segs].iov_len = len;
	req->nr_tx_segs++;
	return 0;
}

void lx_xprt_req_get(struct lx_xprt_req *req)
{
	lx_xprt_rq_get(rq_of(req));
}

int lx_xprt_req_put(struct lx_xprt_req *req)
{
	if (!req)
		return -EINVAL;
	return rq_put(rq_of(req));
}

/* The last reference (@old 1), or one too many (@old <= 0). */
static int rq_put_slow(struct lx_xprt_rqst *rq, int old)
{
	struct lx_xprt_req *req = &rq->pub;

	if (old == 1) {
		rq_release_slot(rq);
		return 0;
	}
	/* a put too many (a bug of the caller's): undone, and said (a
	 * free slot's count goes back to 0, as tryget needs it) */
	atomic_fetch_add(&rq->refs, 1);
	lx_xprt_log(req->xprt, LX_XPRT_LOG_ERR,
		    "libxprt: %s: double put of request slot %u",
		    req->xprt->peer, req->slot);
	return -EINVAL;
}

void lx_xprt_req_set_timer(struct lx_xprt_req *req, uint64_t timeout_ns)
{
	struct lx_xprt_rqst *rq = rq_of(req);
	uint32_t f;

	lx_xprt_timer_arm(req->xprt, rq,
			  timeout_ns ? lx_xprt_now_ns() + timeout_ns : 0);
	/* Armed after the request finished (its reply raced the caller):
	 * take it back, see lx_xprt_try_complete().  An orphan's timer is
	 * its own (lx_xprt_orphan_end() disarms it). */
	atomic_thread_fence(memory_order_seq_cst);
	f = rq_flags(atomic_load(&rq->st));
	if (timeout_ns && !(f & (RQ_SUBMITTED | RQ_ORPHAN)))
		lx_xprt_timer_arm(req->xprt, rq, 0);
}

/* ------------------------------------------------------------ orphans */

/*
 * @rq's outcome was just decided as a cancel or timeout: make it an orphan
 * if it holds a credit, i.e. it went out (or is going out) on this
 * connection.
 * Its deadline stays; a request whose timer just fired (a soft timeout)
 * gets timeout_ns more, armed before the flag is seen so that an orphan
 * ended at once cannot leave it armed.
 */
static bool rq_make_orphan(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	uint64_t st;

	if (rq->pub.no_orphan || rq->pub.no_reply || atomic_load(&x->stopping))
		return false;
	if (!atomic_load(&rq->deadline) && rq->pub.timeout_ns)
		lx_xprt_timer_arm(x, rq, lx_xprt_now_ns() + rq->pub.timeout_ns);
	lx_xprt_rq_get(rq); /* the orphan's, before the flag is seen */
	st = atomic_load(&rq->st);
	do {
		/* a credit is taken only on the way out, and reset with
		 * the connection: one held means sent, or being sent, here
		 * (one that did not go out after all ends at delivery) */
		if ((rq_flags(st) & (RQ_CREDIT | RQ_ORPHAN)) != RQ_CREDIT) {
			rq_put(rq); /* not the last: the caller holds one */
			/* made one already by its delivery, which found it
			 * sent (rq_end_unreplied()) before we looked */
			return rq_flags(st) & RQ_ORPHAN;
		}
	} while (!atomic_compare_exchange_weak(&rq->st, &st, st | RQ_ORPHAN));
	atomic_fetch_add_explicit(&x->stats.orphans, 1, memory_order_relaxed);
	return true;
}

/* See xprt_int.h. */
bool lx_xprt_orphan_end(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			enum lx_xprt_orphan_end how)
{
	uint64_t old = atomic_fetch_and(&rq->st, ~(uint64_t)RQ_ORPHAN);

	if (!(rq_flags(old) & RQ_ORPHAN))
		return false;
	lx_xprt_rx_unlink(x, rq);
	if (atomic_load(&rq->deadline))
		lx_xprt_timer_arm(x, rq, 0);
	/* RESET: xmit_conn_down() took the credit back already */
	rq_credit_back(x, rq, how == LX_XPRT_ORPHAN_REPLY,
		       how == LX_XPRT_ORPHAN_TIMEOUT);
	rq_put(rq);
	return true;
}

/* See xprt_int.h. */
void lx_xprt_orphans_end(struct lx_xprt *x)
{
	unsigned int i;

	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rqst *rq = lx_xprt_slot(x, i);

		if (rq_flags(atomic_load(&rq->st)) & RQ_ORPHAN)
			lx_xprt_orphan_end(x, rq, LX_XPRT_ORPHAN_PUT);
	}
}

int lx_xprt_req_fail(struct lx_xprt_req *req, int status)
{
	struct lx_xprt_rqst *rq;
	struct lx_xprt *x;
	uint64_t st;

	if (!req || status >= 0)
		return -EINVAL;
	rq = rq_of(req);
	x = req->xprt;
	st = atomic_load(&rq->st);
	if (!(rq_flags(st) & RQ_SUBMITTED)) /* finished: done() has run */
		return rq_flags(st) & RQ_FINISHED ? -EALREADY : -EINVAL;
	if (!lx_xprt_claim_outcome(rq, status))
		return -EALREADY;
	if (status == -ECANCELED)
		atomic_fetch_add_explicit(&x->stats.cancels, 1,
					  memory_order_relaxed);
	else if (status == -ETIMEDOUT)
		atomic_fetch_add_explicit(&x->stats.timeouts, 1,
					  memory_order_relaxed);
	/* A late reply must find nothing, unless the request went out: then
	 * the server still answers it, and it stays as an orphan. */
	if (!((status == -ECANCELED || status == -ETIMEDOUT) &&
	      rq_make_orphan(x, rq)))
		lx_xprt_rx_unlink(x, rq);

	/* Take it out of the transmit queue now rather than when the queue
	 * next moves: the queue may be stalled on credits for a long time.
	 * A request half written to the stream cannot be withdrawn; the
	 * stream is dropped so its memory is released promptly. */
	lx_xprt_lock(&x->xmit_lock);
	st = atomic_load(&rq->st);
	if ((rq_flags(st) & RQ_QUEUED) &&
	    lx_xprt_xmitq_remove(&x->xmitq, &rq->xnode))
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_QUEUED);
	if (x->tx_partial == rq && x->ops->shutdown)
		lx_xprt_conn_lost(x, atomic_load(&x->cookie), -ECANCELED);
	lx_xprt_unlock(&x->xmit_lock);

	lx_xprt_try_complete(rq);
	return 0;
}

int lx_xprt_req_cancel(struct lx_xprt_req *req)
{
	return lx_xprt_req_fail(req, -ECANCELED);
}

/* See xprt_int.h. */
int lx_xprt_req_tryget(struct lx_xprt_req *req, uint32_t gen)
{
	struct lx_xprt_rqst *rq = rq_of(req);
	int refs = atomic_load(&rq->refs);

	/* a free slot (no reference) is never revived: its next alloc
	 * starts from a store of 1, not from our increment */
	do {
		if (refs <= 0)
			return -EALREADY;
	} while (!atomic_compare_exchange_weak(&rq->refs, &refs, refs + 1));
	if (req->gen != gen) {
		lx_xprt_req_put(req); /* another call's now */
		return -EALREADY;
	}
	return 0;
}

/* See xprt_int.h. */
int lx_xprt_req_cancel_gen(struct lx_xprt_req *req, uint32_t gen)
{
	struct lx_xprt_rqst *rq = rq_of(req);
	uint64_t st;
	int err;

	if (lx_xprt_forked(req->xprt))
		return -ECHILD; /* the parent's call: cancel it there */
	if (lx_xprt_unlikely(req->xprt->loop)) {
		/* another thread queues it to the owner */
		err = req->xprt->loop->ops->cancel(req, gen);
		if (err != -EAGAIN)
			return err;
	}
	err = lx_xprt_req_tryget(req, gen);
	if (err)
		return err;
	st = atomic_load(&rq->st);
	do {
		if (rq_flags(st) & (RQ_SUBMITTED | RQ_FINISHED))
			break;
		/* not submitted yet (the start is under way on another
		 * thread): the submit cancels it as soon as it is */
	} while (!atomic_compare_exchange_weak(&rq->st, &st, st | RQ_CANCEL));
	if ((rq_flags(st) & (RQ_FINISHED | RQ_PARKED)) ==
		    (RQ_FINISHED | RQ_PARKED) &&
	    req->ops && req->ops->cancel)
		err = req->ops->cancel(req); /* waiting to be resubmitted */
	else if (rq_flags(st) & RQ_FINISHED)
		err = -EALREADY;
	else if (rq_flags(st) & RQ_SUBMITTED)
		err = req->ops && req->ops->cancel ? req->ops->cancel(req) :
						     lx_xprt_req_cancel(req);
	lx_xprt_req_put(req);
	return err;
}

/* Sleep on the request's futex until done() has run (or @deadline). */
static __attribute__((noinline)) int
done_sleep(struct lx_xprt_rqst *rq, int64_t timeout_ns, uint64_t deadline)
{
	uint64_t now;

	for (;;) {
		unsigned int v = atomic_load(&rq->done_futex);
		int64_t left = -1;

		if (v == LX_XPRT_DONE)
			return 0;
		/* announce the sleep; the completer's exchange sees it, or
		 * we see LX_XPRT_DONE here */
		if (v == 0 &&
		    !atomic_compare_exchange_strong(&rq->done_futex, &v,
						    LX_XPRT_DONE_SLEEPING))
			continue;
		if (timeout_ns >= 0) {
			now = lx_xprt_now_ns();
			if (now >= deadline)
				return -ETIMEDOUT;
			left = (int64_t)(deadline - now);
		}
		lx_xprt_futex_wait(&rq->done_futex, LX_XPRT_DONE_SLEEPING,
				   left);
	}
}

int lx_xprt_req_done_wait(struct lx_xprt_req *req, int64_t timeout_ns)
{
	struct lx_xprt_rqst *rq;
	uint64_t deadline = 0;

	if (!req)
		return -EINVAL;
	if (lx_xprt_forked(req->xprt))
		return -ECHILD; /* nobody here would complete it */
	rq = rq_of(req);
	if (timeout_ns >= 0)
		deadline = lx_xprt_now_ns() + (uint64_t)timeout_ns;
	if (lx_xprt_unlikely(req->xprt->loop))
		return req->xprt->loop->ops->wait(req->xprt, rq, deadline);
	if (req->will_wait && req->xprt->ops->wait &&
	    (rq_flags(atomic_load(&rq->st)) & RQ_SUBMITTED)) {
		int r = req->xprt->ops->wait(req->xprt, rq, deadline);

		if (r != -EAGAIN)
			return r;
	}
	if (atomic_load(&rq->done_futex) == LX_XPRT_DONE)
		return 0;
	return done_sleep(rq, timeout_ns, deadline);
}

/* ------------------------------------------------------------ timers */

/* See xprt_int.h; the deadlines are timer.c's. */
uint64_t lx_xprt_timer_run(struct lx_xprt *x)
{
	struct lx_xprt_rqst *rq;
	uint64_t next, now = lx_xprt_now_ns();
	bool fired;

	while ((rq = lx_xprt_timer_expired(x, now, &next, &fired))) {
		uint32_t f = rq_flags(atomic_load(&rq->st));

		if (fired && lx_xprt_unlikely(f & RQ_ORPHAN)) {
			/* no reply in the call's own time: as a timeout */
			if (lx_xprt_orphan_end(x, rq, LX_XPRT_ORPHAN_TIMEOUT))
				atomic_fetch_add_explicit(
					&x->stats.orphans_expired, 1,
					memory_order_relaxed);
		} else if (fired && (f & RQ_SUBMITTED)) {
			if (rq->pub.ops && rq->pub.ops->timeout)
				rq->pub.ops->timeout(&rq->pub);
			else
				lx_xprt_req_fail(&rq->pub, -ETIMEDOUT);
		}
		lx_xprt_req_put(&rq->pub);
	}
	return next;
}

/* ----------------------------------------------------------- receive */

/*
 * See xprt_int.h, lx_xprt_rx_lookup(): decided while we looked, the reply
 * is late.  The reply of an orphan (@key still its key) ends it, nothing
 * placed.  An orphan after its done() has no transport reference, and may
 * end on another thread meanwhile and its slot be freed: so the reference
 * that keeps the slot while we unpin is taken only if the slot is live.
 */
void lx_xprt__rx_late(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint32_t key)
{
	bool live = lx_xprt_rq_get_live(rq), orphan = false;

	if (live && (rq_flags(atomic_load(&rq->st)) & RQ_ORPHAN) &&
	    rq->pub.key == key)
		orphan = lx_xprt_orphan_end(x, rq, LX_XPRT_ORPHAN_REPLY);
	lx_xprt_ix_unpin(x, rq);
	if (live) {
		lx_xprt_try_complete(rq);
		rq_put(rq);
	}
	if (orphan)
		atomic_fetch_add_explicit(&x->stats.orphan_replies, 1,
					  memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&x->stats.dup_replies, 1,
					  memory_order_relaxed);
}

int lx_xprt_rx_deliver(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		       const void *msg, size_t len)
{
	struct lx_xprt_req *req = &rq->pub;
	size_t cap = req->rbuf->cap, have = LX_XPRT_MIN(len, cap);
	size_t off, dlen, pad, tail;
	const char *m = msg;
	int r;

	if (len > x->opts.max_msg)
		return -EMSGSIZE;
	req->rx_msg_len = len;
	memcpy(req->rbuf->data, m, have);
	req->rlen = have;
	req->rx_data_len = 0;
	r = req->ops->place ? req->ops->place(req, have, len) : 0;
	if (r < 0)
		return r;
	if (r > 0) {
		/* it has all there is: a bigger want cannot be met */
		if ((size_t)r <= have)
			return -EPROTO;
		return (size_t)r > cap ? -EMSGSIZE : -EBADMSG;
	}
	dlen = req->rx_data_len;
	if (!dlen)
		return len > cap ? -EMSGSIZE : 0;
	off = req->rx_data_off;
	pad = req->rx_data_pad;
	/* every bound checked before a byte moves: the sizes come from the
	 * peer's message, through the protocol's parser */
	if (off > have)
		return off > cap ? -EMSGSIZE : -EBADMSG;
	if (dlen > len - off || pad > len - off - dlen)
		return -EBADMSG;
	if (lx_xprt_iter_count(&req->rx_data) < dlen)
		return -EOVERFLOW; /* never past the caller's buffer */
	tail = len - off - dlen - pad;
	if (tail > cap - off)
		return -EMSGSIZE;
	lx_xprt_iter_copy_to(&req->rx_data, m + off, dlen);
	memmove((char *)req->rbuf->data + off, m + off + dlen + pad, tail);
	req->rlen = off + tail;
	return 0;
}

/*
 * A pin holds back delivery (lx_xprt_try_complete), so whoever drops the
 * last one delivers if the outcome was decided meanwhile (a timeout or a
 * cancel while the reply was being placed).  The reference keeps the slot
 * from being reused between the unpin and that check.
 */
static inline void rx_unpin(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	lx_xprt_rq_get(rq);
	lx_xprt_ix_unpin(x, rq);
	lx_xprt_try_complete(rq);
	rq_put(rq);
}

void lx_xprt_rx_unpin(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	rx_unpin(x, rq);
}

static inline bool rx_decide(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			     int status)
{
	if (!claim_outcome(rq, status))
		return false;
	atomic_fetch_add_explicit(&x->stats.replies, 1, memory_order_relaxed);
	lx_xprt_rx_unlink(x, rq);
	if (lx_xprt_unlikely(
		    atomic_load_explicit(&x->not_resp, memory_order_relaxed)))
		lx_xprt__responding(x);
	return true;
}

bool lx_xprt_rx_decide(struct lx_xprt *x, struct lx_xprt_rqst *rq, int status)
{
	return rx_decide(x, rq, status);
}

void lx_xprt_rx_complete(struct lx_xprt *x, struct lx_xprt_rqst *rq, int status)
{
	rx_decide(x, rq, status);
	rx_unpin(x, rq);
}

/* ------------------------------------------------------------ messages */

void lx_xprt_log(const struct lx_xprt *x, int level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!x->opts.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->opts.log(x->opts.log_arg, level, msg);
}

/*
 * An episode is one flag: the first to set it says so, the first reply
 * after it clears it and says OK (as the Linux client's "not responding,
 * still trying" and "OK" lines).
 */
void lx_xprt_not_responding(struct lx_xprt *x)
{
	if (!x || atomic_load_explicit(&x->not_resp, memory_order_relaxed) ||
	    atomic_exchange(&x->not_resp, true))
		return;
	atomic_fetch_add_explicit(&x->stats.not_responding, 1,
				  memory_order_relaxed);
	lx_xprt_log(x, LX_XPRT_LOG_WARNING,
		    "server %s not responding, still trying", x->peer);
}

/* lx_xprt_stats_explain()'s counters said only when not zero: each format
 * takes the count, then "" or @plural */
static const struct {
	size_t off;
	const char *fmt, *plural;
} explain_rare[] = {
	{offsetof(struct lx_xprt_stats, garbage),
	 ", %llu record%s that cannot be a reply", "s"},
	{offsetof(struct lx_xprt_stats, bad_keys),
	 ", %llu for calls we did not make (unknown XID or tag)%s", ""},
	{offsetof(struct lx_xprt_stats, retransmits), ", %llu retransmission%s",
	 "s"},
	{offsetof(struct lx_xprt_stats, resubmits),
	 ", %llu sent again (NFS3ERR_JUKEBOX)%s", ""},
	{offsetof(struct lx_xprt_stats, orphans_expired),
	 ", %llu cancelled or timed-out call%s never answered in their time",
	 "s"},
};

char *lx_xprt_stats_explain(const struct lx_xprt_stats *st, char *buf,
			    size_t len)
{
	size_t n = 0, i;
	uint64_t v;

#define LX_SAY(...)                                                           \
	do {                                                                  \
		if (n < len)                                                  \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); \
	} while (0)
	if (!len)
		return buf;
	buf[0] = '\0';
	LX_SAY("%llu connection%s", (unsigned long long)st->connects,
	       st->connects == 1 ? "" : "s");
	if (st->early_disconnects)
		LX_SAY(", %llu dropped early (before any reply or within %u "
		       "s)",
		       (unsigned long long)st->early_disconnects,
		       LX_XPRT_EARLY_MS / 1000);
	LX_SAY("; %llu repl%s", (unsigned long long)st->replies,
	       st->replies == 1 ? "y" : "ies");
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(explain_rare); i++) {
		memcpy(&v, (const char *)st + explain_rare[i].off, sizeof(v));
		if (v)
			LX_SAY(explain_rare[i].fmt, (unsigned long long)v,
			       v == 1 ? "" : explain_rare[i].plural);
	}
#undef LX_SAY
	return buf;
}

void lx_xprt__responding(struct lx_xprt *x)
{
	if (atomic_exchange(&x->not_resp, false))
		lx_xprt_log(x, LX_XPRT_LOG_NOTICE, "server %s OK", x->peer);
}

/* ------------------------------------------------------ worker kicks */

void lx_xprt_kick_worker(struct lx_xprt *x)
{
	if (lx_xprt_unlikely(x->loop)) {
		x->loop->ops->kick(x); /* the owner's service: the worker */
		return;
	}
	atomic_fetch_add(&x->worker_kick, 1);
	if (atomic_load(&x->worker_sleeping))
		lx_xprt_futex_wake(&x->worker_kick, 1);
}

void lx_xprt_credit_returned(struct lx_xprt *x)
{
	lx_xprt_kick_worker(x);
}

void lx_xprt_conn_lost(struct lx_xprt *x, uint32_t cookie, int err)
{
	enum lx_xprt_state s;

	pthread_mutex_lock(&x->state_lock);
	s = atomic_load(&x->state);
	if (s == LX_XPRT_CONNECTED && cookie == atomic_load(&x->cookie) &&
	    x->lost_cookie != cookie) {
		x->lost_cookie = cookie;
		x->last_error = err;
		x->disconnected_since = lx_xprt_now_ns();
		atomic_store(&x->state, LX_XPRT_DISCONNECTED);
		atomic_fetch_add_explicit(&x->stats.disconnects, 1,
					  memory_order_relaxed);
		pthread_cond_broadcast(&x->state_cond);
		pthread_mutex_unlock(&x->state_lock);
		x->ops->shutdown(x);
		lx_xprt_kick_worker(x);
		return;
	}
	pthread_mutex_unlock(&x->state_lock);
}

void lx_xprt_disconnect(struct lx_xprt *x)
{
	/* (not the parent's connection, from a child) */
	if (x && !lx_xprt_forked(x))
		lx_xprt_conn_lost(x, atomic_load(&x->cookie), -ECONNABORTED);
}

/* Fail everything still submitted: destroy, or a dead 9P session. */
void lx_xprt_fail_all(struct lx_xprt *x, int status)
{
	unsigned int i;

	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rqst *rq = lx_xprt_slot(x, i);

		if (rq_flags(atomic_load(&rq->st)) & RQ_SUBMITTED)
			lx_xprt_req_fail(&rq->pub, status);
	}
	lx_xprt_orphans_end(x);
}

/* See proto.h. */
bool lx_xprt__forked(const struct lx_xprt *x)
{
	return lx_xprt_forked(x);
}

void lx_xprt__keep_bufs(struct lx_xprt *x)
{
	x->keep_bufs = true;
}

void lx_xprt_drop_slot_bufs(struct lx_xprt *x)
{
	unsigned int i;

	for (i = 0; i < x->max_reqs; i++)
		slot_bufs_drop(x, lx_xprt_slot(x, i));
}

/* ----------------------------------------------------------- queries */

int lx_xprt_set_pool(struct lx_xprt *x, struct lx_xprt_pool *pool)
{
	unsigned int waited = 0;

	if (!x || !pool)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD;
	/* The receive thread may still be dropping the transport's own
	 * reference to the last request: its buffers go back to x->pool
	 * before its tag is freed, and lx_xprt_tags_in_use() reads the map
	 * with acquire, so seeing no tag in use orders those puts before
	 * the switch. */
	while (lx_xprt_tags_in_use(x->tags)) {
		if (++waited > 1000)
			return -EBUSY;
		usleep(1000);
	}
	lx_xprt_drop_slot_bufs(x);
	if (x->own_pool && x->pool != pool)
		lx_xprt_pool_destroy(x->pool);
	x->own_pool = false;
	x->pool = pool;
	x->opts.pool = pool;
	x->opts.buf_size = lx_xprt_pool_buf_size(pool);
	return 0;
}

enum lx_xprt_state lx_xprt_state(const struct lx_xprt *x)
{
	return atomic_load(&((struct lx_xprt *)x)->state);
}

uint32_t lx_xprt_connect_cookie(const struct lx_xprt *x)
{
	return atomic_load(&((struct lx_xprt *)x)->cookie);
}

bool lx_xprt_req_sent(const struct lx_xprt_req *req)
{
	struct lx_xprt_rqst *rq = rq_of((struct lx_xprt_req *)req);

	return (rq_flags(atomic_load(&rq->st)) & RQ_SENT) != 0;
}

uint32_t lx_xprt_req_cookie(const struct lx_xprt_req *req)
{
	return rq_of((struct lx_xprt_req *)req)->cookie;
}

struct lx_xprt_pool *lx_xprt_pool(const struct lx_xprt *x)
{
	return x->pool;
}

unsigned int lx_xprt_max_reqs(const struct lx_xprt *x)
{
	return x->max_reqs;
}

const char *lx_xprt_peer(const struct lx_xprt *x)
{
	return x->peer;
}

void lx_xprt_stats(const struct lx_xprt *cx, struct lx_xprt_stats *st)
{
	struct lx_xprt *x = (struct lx_xprt *)cx;

	st->submitted = atomic_load(&x->stats.submitted);
	st->completed = atomic_load(&x->stats.completed);
	st->replies = atomic_load(&x->stats.replies);
	st->bad_keys = atomic_load(&x->rqtree.unknown);
	st->dup_replies = atomic_load(&x->stats.dup_replies);
	st->sends = atomic_load(&x->stats.sends);
	st->send_calls = atomic_load(&x->stats.send_calls);
	st->direct_sends = atomic_load(&x->stats.direct_sends);
	st->worker_sends = atomic_load(&x->stats.worker_sends);
	st->retransmits = atomic_load(&x->stats.retransmits);
	st->timeouts = atomic_load(&x->stats.timeouts);
	st->cancels = atomic_load(&x->stats.cancels);
	st->connects = atomic_load(&x->stats.connects);
	st->disconnects = atomic_load(&x->stats.disconnects);
	st->bytes_sent = atomic_load(&x->stats.bytes_sent);
	st->bytes_received = atomic_load(&x->stats.bytes_received);
	st->direct_rx_bytes = atomic_load(&x->stats.direct_rx_bytes);
	st->early_disconnects = atomic_load(&x->stats.early_disconnects);
	st->not_responding = atomic_load(&x->stats.not_responding);
	st->garbage = atomic_load(&x->stats.garbage);
	st->resubmits = atomic_load(&x->stats.resubmits);
	st->zerocopy_sends = atomic_load(&x->stats.zc_sends);
	st->zerocopy_completions = atomic_load(&x->stats.zc_completions);
	st->zerocopy_copied = atomic_load(&x->stats.zc_copied);
	st->orphans = atomic_load(&x->stats.orphans);
	st->orphan_replies = atomic_load(&x->stats.orphan_replies);
	st->orphans_expired = atomic_load(&x->stats.orphans_expired);
}
