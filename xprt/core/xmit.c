// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Submission, transmit engine and transmit worker.
 *
 * Whoever holds the transmit lock drains the fair queue (xmitq.h): the
 * submitting thread itself when the lock is free (no hand-off, the lowest
 * latency on an idle connection), otherwise the transmit worker, a thread
 * per connection that sleeps on a futex until kicked.  The worker is the
 * userspace counterpart of Linux's xprtiod: it is where the lock is handed
 * over when credits or socket space come back, and it owns connection
 * re-establishment, so a submitter never blocks on the network.
 *
 * Draining gathers up to LX_XPRT_XMIT_BATCH requests into one transport send
 * (one writev for TCP: a burst of small calls costs one system call, and
 * the kernel segments them together - the cork hint of the Linux client
 * taken one step further).  A request takes a congestion credit as it
 * leaves the queue; when none is left the engine stops and the credit
 * returned with the next reply kicks the worker.
 *
 * A stream transport may accept only part of a batch: the request cut in
 * the middle stays in x->tx_partial and is finished before anything else
 * (its record must be contiguous on the stream); the untouched rest goes
 * back to the front of the queue, keeping its credits.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "xprt/blocks/framing.h"
#include "xprt/core/xprt_int.h"

/*
 * Requests whose done() may have become due while the transmit lock was
 * held: done() never runs under that lock (it may submit, cancel, or fail
 * other requests, which take it), so they are completed after it drops.
 * Each holds a reference meanwhile.
 */
struct xmit_defer {
	struct lx_xprt_rqst *rq[LX_XPRT_XMIT_BATCH * 2];
	unsigned int n;
};

static void xmit_defer(struct xmit_defer *d, struct lx_xprt_rqst *rq)
{
	lx_xprt_req_get(&rq->pub);
	d->rq[d->n++] = rq;
}

/*
 * Sending later.  Two loops complete requests and transmit afterwards:
 * the receive thread's batch (lx_xprt_rx_batch_begin() .. _end(): the
 * replies of one read or one poll) and a transmitter's deferred
 * completions (xmit_run_deferred(), after lx_xprt_xmit() dropped the
 * lock).  A request that one of their done() callbacks queues on the
 * loop's own transport is left to the loop: the receive batch sends them
 * all in one gathered send at its end, instead of a system call each; the
 * transmitter's loop goes on sending, instead of sending from inside the
 * callback - which, when the reply beats the sender's bookkeeping (likely
 * under load: the sender loses its CPU right after the send), completes it
 * there too and submits the next from that callback, a recursion as deep
 * as the request slots, each level holding one, so that a NOWAIT submit
 * failed with -EAGAIN once all were held (tests/unit/test_xmit_nest.c).
 * From the transmitter's loop a request queued on another transport goes
 * to that transport's worker, for the same reason; from a receive batch it
 * is sent at once.  The state is per thread: only the loop's own thread
 * runs its callbacks.  The transmitter's loop may nest (a callback sends
 * directly on another transport, whose completions run inside): each
 * level saves and restores it.
 */
static void xmit_kick_after(struct lx_xprt *x, int r);

/* struct lx_xprt_xmit_later and the batch marks: xprt_int.h */
_Thread_local struct lx_xprt_xmit_later lx_xprt__xmit_later
	__attribute__((tls_model("initial-exec")));

/*
 * A request was just queued on @x: leave it to a loop of this thread
 * (see above).  Return false when the caller should transmit as usual.
 */
static bool xmit_send_later(struct lx_xprt *x)
{
	if (lx_xprt__xmit_later.rx == x) {
		lx_xprt__xmit_later.rx_queued = true;
		return true;
	}
	if (!lx_xprt__xmit_later.tx)
		return false;
	if (lx_xprt__xmit_later.tx == x)
		lx_xprt__xmit_later.tx_queued =
			true; /* our lx_xprt_xmit() sends it */
	else
		lx_xprt_kick_worker(x);
	return true;
}

/* Complete the deferred requests; true if their callbacks queued more. */
static bool xmit_run_deferred(struct lx_xprt *x, struct xmit_defer *d)
{
	struct lx_xprt *outer = lx_xprt__xmit_later.tx;
	bool outer_queued = lx_xprt__xmit_later.tx_queued, queued;
	unsigned int i;

	lx_xprt__xmit_later.tx = x;
	lx_xprt__xmit_later.tx_queued = false;
	for (i = 0; i < d->n; i++) {
		lx_xprt_try_complete(d->rq[i]);
		lx_xprt_req_put(&d->rq[i]->pub);
	}
	d->n = 0;
	queued = lx_xprt__xmit_later.tx_queued;
	lx_xprt__xmit_later.tx = outer;
	lx_xprt__xmit_later.tx_queued = outer_queued;
	return queued;
}

/*
 * Bookkeeping after a request has been completely written: SENT on and
 * XMIT off in one exchange.  While XMIT is set nobody delivers, so a
 * request whose outcome is already in (its reply beat us, or no reply is
 * expected) is deferred, with a reference taken before XMIT goes, and
 * completed after the lock drops.  Without the outcome nothing is
 * deferred: whoever decides it later delivers, and we touch nothing after
 * the exchange (the same rule as xmit_one()).
 */
static void xmit_sent(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		      struct xmit_defer *d)
{
	uint64_t st, nst;
	bool ref = false;

	atomic_fetch_add_explicit(&x->stats.bytes_sent, rq->tx_total,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&x->stats.sends, 1, memory_order_relaxed);
	if (rq->pub.no_reply)
		lx_xprt_claim_outcome(rq, 0);
	st = atomic_load(&rq->st);
	do {
		if ((rq_flags(st) & RQ_OUTCOME) && !ref) {
			xmit_defer(d, rq);
			ref = true;
		}
		nst = (st | RQ_SENT) & ~(uint64_t)RQ_XMIT;
	} while (!atomic_compare_exchange_weak(&rq->st, &st, nst));
}

/* Put popped but unsent requests back at the front, in their order. */
static void xmit_requeue_tail(struct lx_xprt *x, struct lx_xprt_rqst **batch,
			      unsigned int from, unsigned int n)
{
	while (n-- > from) {
		struct lx_xprt_rqst *rq = batch[n];

		rq->tx_done = 0;
		atomic_fetch_or(&rq->st, RQ_QUEUED);
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_XMIT);
		lx_xprt_xmitq_requeue(&x->xmitq, &rq->xnode);
	}
}

/*
 * Take @n, which xmit_next() peeked (@fifo: with peek_fifo), off the
 * queue.  False when a push that started behind it since the peek keeps it
 * there (that push's kick brings us back): it must not go out, or it
 * would go again from the queue.
 */
static bool xmit_pop(struct lx_xprt *x, struct lx_xprt_xmit_node *n, bool fifo)
{
	if (fifo)
		return lx_xprt_xmitq_pop_fifo(&x->xmitq, n);
	return lx_xprt_xmitq_pop_node(&x->xmitq, n);
}

/* xmit_take(): the peeked request cannot leave the queue yet */
#define XMIT_NOT_NOW	(-EINPROGRESS)

/* xmit_next(): the deferral list is full, complete those first */
#define XMIT_DEFER_FULL 2

/*
 * @rq is next to go (RQ_QUEUED; @n its node when it is in the queue, which
 * was peeked with @fifo, or NULL for a held one): take it for sending,
 * with a credit, XMIT on and QUEUED off.  Return 1 when taken; 0 when its
 * outcome is in (failed or answered while queued: never sent, deferred);
 * -EBUSY when it needs a credit and none is free, %XMIT_NOT_NOW when it
 * cannot leave the queue yet (xmit_pop(); either way left where it is).
 */
static int xmit_take(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		     struct lx_xprt_xmit_node *n, bool fifo,
		     struct xmit_defer *d)
{
	uint64_t st = atomic_load(&rq->st), nst;
	bool got = false;

	if (rq_flags(st) & RQ_OUTCOME) {
		if (n && !xmit_pop(x, n, fifo))
			return XMIT_NOT_NOW;
		xmit_defer(d, rq);
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_QUEUED);
		return 0;
	}
	if (!(rq_flags(st) & RQ_CREDIT)) {
		if (!lx_xprt__cong_get(&x->cong))
			return -EBUSY;
		got = true;
	}
	if (n && lx_xprt_unlikely(!xmit_pop(x, n, fifo))) {
		if (got)
			lx_xprt_cong_put(&x->cong);
		return XMIT_NOT_NOW;
	}
	if (got)
		rq->xnode.credited = true;
	/* the credit, XMIT and QUEUED off in one exchange: never seen
	 * idle, and nobody looks at the credit while it is queued and we
	 * hold the lock */
	do {
		nst = (st | RQ_XMIT | RQ_CREDIT) & ~(uint64_t)RQ_QUEUED;
	} while (!atomic_compare_exchange_weak(&rq->st, &st, nst));
	rq->tx_done = 0;
	return 1;
}

/*
 * Take the next request to send off the queue, with a credit.
 * Return: 1 with *rqp set; 0 when nothing can be taken now; %XMIT_DEFER_FULL
 * when the deferral list is full; -EBUSY when the next request needs a
 * credit and none is free.
 */
static int xmit_next(struct lx_xprt *x, struct lx_xprt_rqst **rqp,
		     struct xmit_defer *d, bool fifo)
{
	struct lx_xprt_xmit_node *n;
	struct lx_xprt_rqst *rq;
	int r;

	while (d->n < LX_XPRT_XMIT_BATCH) {
		n = fifo ? lx_xprt_xmitq_peek_fifo(&x->xmitq) : NULL;
		if (n) {
			/* taken as pushed: lx_xprt_xmitq_peek_fifo() */
		} else {
			fifo = false;
			n = lx_xprt_xmitq_peek(&x->xmitq);
		}
		if (!n)
			return 0;
		rq = lx_xprt_container_of(n, struct lx_xprt_rqst, xnode);
		lx_xprt_tsan_acquire(rq);
		r = xmit_take(x, rq, n, fifo, d);
		if (r == XMIT_NOT_NOW)
			return 0; /* as a push not yet seen */
		if (r < 0)
			return r;
		if (r) {
			*rqp = rq;
			return 1;
		}
	}
	return XMIT_DEFER_FULL;
}

static int xmit_send(struct lx_xprt *x, struct lx_xprt_rqst **batch,
		     unsigned int n, uint32_t cookie, unsigned int *budget,
		     bool direct, struct xmit_defer *d, int res);

/*
 * One round under the transmit lock: fill a batch, hand it to the
 * transport.  Return as lx_xprt_xmit(), or 1 to go on.
 */
static int xmit_round(struct lx_xprt *x, unsigned int *budget, bool direct,
		      struct xmit_defer *d)
{
	struct lx_xprt_rqst *batch[LX_XPRT_XMIT_BATCH];
	uint32_t cookie = atomic_load(&x->cookie);
	unsigned int n = 0;
	unsigned int queued;
	bool fifo;
	int r, res = 1;

	if (atomic_load(&x->state) != LX_XPRT_CONNECTED)
		return -ENOTCONN;
	if (x->tx_partial) {
		batch[n++] = x->tx_partial;
		x->tx_partial = NULL;
	}
	/* everything queued fits this one send: its order inside the send
	 * changes nobody's turn, so take it as pushed (no sorting) */
	queued = lx_xprt_xmitq_count(&x->xmitq, LX_XPRT_XMIT_BATCH + 1);
	fifo = queued + n <= LX_XPRT_XMIT_BATCH && queued + n <= *budget;
	while (n < LX_XPRT_XMIT_BATCH && n < *budget) {
		r = xmit_next(x, &batch[n], d, fifo);
		if (r == XMIT_DEFER_FULL) {
			if (!n)
				return 1; /* complete those, then go on */
			break;
		}
		if (r <= 0) {
			res = r;
			break;
		}
		batch[n]->cookie = cookie;
		n++;
	}
	if (!n)
		return res == 1 ? 0 : res;
	return xmit_send(x, batch, n, cookie, budget, direct, d, res);
}

/*
 * Hand @batch[0..n) (taken, stamped with @cookie) to the transport, and
 * the bookkeeping after it: sent ones off, a cut one kept, the rest back
 * at the front of the queue.  @res: how filling the batch ended (1, or
 * -EBUSY: no credit for the next).  Return as xmit_round().
 */
static int xmit_send(struct lx_xprt *x, struct lx_xprt_rqst **batch,
		     unsigned int n, uint32_t cookie, unsigned int *budget,
		     bool direct, struct xmit_defer *d, int res)
{
	unsigned int nsent, i;
	int r;

	r = x->ops->send(x, batch, n, &nsent, !lx_xprt_xmitq_empty(&x->xmitq));
	atomic_fetch_add_explicit(&x->stats.send_calls, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(direct ? &x->stats.direct_sends :
					   &x->stats.worker_sends,
				  nsent, memory_order_relaxed);
	*budget -= nsent < *budget ? nsent : *budget;
	for (i = 0; i < nsent; i++)
		xmit_sent(x, batch[i], d);
	if (r == 0 && nsent == n) {
		if (res == -EBUSY)
			return -EBUSY;
		if (lx_xprt_xmitq_empty(&x->xmitq))
			return 0; /* all sent, nothing more: no other round */
		return *budget ? 1 : -EBUSY;
	}
	if (nsent < n && batch[nsent]->tx_done > 0) {
		/* cut in the middle: its record must be finished first */
		x->tx_partial = batch[nsent];
		xmit_requeue_tail(x, batch, nsent + 1, n);
	} else {
		xmit_requeue_tail(x, batch, nsent, n);
	}
	if (r == -EAGAIN || r == 0)
		return -EAGAIN;
	lx_xprt_conn_lost(x, cookie, r);
	return r;
}

/*
 * Held back by a receive batch (xmit_hold()): the requests its callbacks
 * submitted on @x while the connection was idle, in order, not in the
 * queue yet (RQ_QUEUED all the same: a canceller finds them not queued and
 * leaves their delivery to whoever takes them, as for a queued one).  At
 * the batch's end they go into one send if the connection is still idle,
 * with nothing of the queue's bookkeeping; otherwise into the queue, in
 * order.  Default TLS model: touched once per held request, and not on
 * the synchronous path.
 */
struct xmit_held {
	struct lx_xprt *x;
	unsigned int n;
	bool spilled; /* this batch's requests go to the queue now */
	struct lx_xprt_rqst *rq[LX_XPRT_XMIT_BATCH];
};

static _Thread_local struct xmit_held xmit_held;

/* Held requests @from on into the queue, in order. */
static void xmit_held_push(struct xmit_held *h, unsigned int from)
{
	unsigned int i;

	for (i = from; i < h->n; i++) {
		lx_xprt_tsan_release(h->rq[i]);
		lx_xprt_xmitq_push(&h->x->xmitq, &h->rq[i]->xnode);
	}
	h->n = 0;
}

/*
 * A receive batch of this thread on @x queues @rq: hold it (true) while
 * the connection's queue is empty, else leave it to the queue (false),
 * behind what was held before (which goes there first).
 */
static __attribute__((noinline)) bool xmit_hold(struct lx_xprt *x,
						struct lx_xprt_rqst *rq)
{
	struct xmit_held *h = &xmit_held;

	if (h->n && (h->x != x || h->n == LX_XPRT_XMIT_BATCH)) {
		struct lx_xprt *hx = h->x;

		xmit_held_push(h, 0);
		h->spilled = true;
		if (hx != x) /* (a nested batch) its own batch is over */
			lx_xprt_kick_worker(hx);
		return false;
	}
	if (!h->n && (h->spilled || !lx_xprt_xmitq_empty(&x->xmitq)))
		return false;
	h->x = x;
	h->rq[h->n++] = rq;
	lx_xprt__xmit_later.rx_queued = true;
	return true;
}

/*
 * The held requests: into one send from here when the connection is still
 * idle (nothing queued or half sent, the lock free), as far as credits
 * go; the rest into the queue.  Return 0 when all went and nothing else
 * is queued; 1 when lx_xprt_xmit() should go on; else as lx_xprt_xmit().
 */
static int xmit_held_send(struct xmit_held *h)
{
	struct lx_xprt_rqst *batch[LX_XPRT_XMIT_BATCH];
	struct lx_xprt *x = h->x;
	unsigned int i, n = 0, budget = ~0u;
	struct xmit_defer d;
	uint32_t cookie;
	int r = 1;

	d.n = 0;
	if (!lx_xprt_lock_try(&x->xmit_lock)) {
		xmit_held_push(h, 0);
		return 1;
	}
	if (x->tx_partial || !lx_xprt_xmitq_empty(&x->xmitq) ||
	    atomic_load(&x->state) != LX_XPRT_CONNECTED) {
		lx_xprt_unlock(&x->xmit_lock);
		xmit_held_push(h, 0);
		return 1;
	}
	cookie = atomic_load(&x->cookie);
	for (i = 0; i < h->n; i++) {
		r = xmit_take(x, h->rq[i], NULL, false, &d);
		if (r < 0)
			break; /* no credit: the rest waits in the queue */
		if (r) {
			h->rq[i]->cookie = cookie;
			batch[n++] = h->rq[i];
		}
	}
	xmit_held_push(h, i);
	if (n)
		r = xmit_send(x, batch, n, cookie, &budget, true, &d,
			      r < 0 ? -EBUSY : 1);
	else
		r = r < 0 ? -EBUSY : 0;
	lx_xprt_unlock(&x->xmit_lock);
	/* a request a done() callback queued is in the queue (the
	 * transmitter's loop: xmit_send_later()) */
	if (xmit_run_deferred(x, &d) && r == 0)
		r = 1;
	return r;
}

void lx_xprt__rx_batch_flush(struct lx_xprt *x)
{
	struct xmit_held *h = &xmit_held;

	h->spilled = false;
	if (h->n) {
		struct lx_xprt *hx = h->x;
		int r = xmit_held_send(h);

		if (hx == x && r != 1) {
			xmit_kick_after(x, r);
			return;
		}
		if (hx != x)
			xmit_kick_after(
				hx, r == 1 ? lx_xprt_xmit(hx, ~0u, true) : r);
	}
	xmit_kick_after(x, lx_xprt_xmit(x, ~0u, true));
}

int lx_xprt_xmit(struct lx_xprt *x, unsigned int budget, bool direct)
{
	struct xmit_defer d; /* only d.rq[0 .. d.n) is ever read */
	bool queued;
	int r;

	d.n = 0;
	if (direct) {
		if (!lx_xprt_lock_try(&x->xmit_lock))
			return -EBUSY;
	} else {
		lx_xprt_lock(&x->xmit_lock);
	}
	for (;;) {
		r = xmit_round(x, &budget, direct, &d);
		if (r != 1 || d.n) {
			lx_xprt_unlock(&x->xmit_lock);
			queued = xmit_run_deferred(x, &d);
			/* a callback queued a request (xmit_send_later()):
			 * an empty queue is no longer the end; any other
			 * non-zero result already has the caller kick the
			 * worker for what is queued */
			if (r == 0 && queued)
				r = budget ? 1 : -EBUSY;
			if (r != 1)
				return r;
			lx_xprt_lock(&x->xmit_lock);
		}
	}
}

/* ---------------------------------------------------------- submission */

/*
 * The calling thread as a fairness owner.  gettid() is a system call on
 * every glibc, once per request; the id is remembered per thread.  (A
 * forked child inherits its parent's value: harmless, an owner is only a
 * queueing key.)
 */
static uint64_t lx_xprt_thread_owner(void)
{
	static _Thread_local uint64_t tid
		__attribute__((tls_model("initial-exec")));

	if (!tid)
		tid = (uint64_t)gettid();
	return tid;
}

/* After a direct lx_xprt_xmit(): 0 all sent.  Otherwise (lock taken,
 * socket full, budget used, not connected) the worker takes over; a
 * congested queue is kicked again when a credit returns. */
static void xmit_kick_after(struct lx_xprt *x, int r)
{
	if (r && !(r == -EBUSY && lx_xprt_xmitq_empty(&x->xmitq)))
		lx_xprt_kick_worker(x);
}

/* Queue @rq; transmit from the calling thread when it can take the lock
 * (no thread hop on an idle connection), unless a loop of this thread
 * sends it later.  Anything left goes to the worker. */
/*
 * An idle connection (nothing queued, nothing half sent, the transmit
 * lock free): send @rq, marked RQ_QUEUED but not queued, from the calling
 * thread at once.  Nothing is overtaken, so the fair order is kept.  A
 * canceller that found it unqueued looks at it under the lock, which we
 * check the outcome under.  Return false, having done nothing, when the
 * caller must queue it instead.
 */
static bool xmit_one(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	uint32_t cookie;
	uint64_t st, nst;
	unsigned int nsent;
	int r;

	if (!lx_xprt_lock_try(&x->xmit_lock))
		return false;
	st = atomic_load(&rq->st);
	if (x->tx_partial || !lx_xprt_xmitq_empty(&x->xmitq) ||
	    atomic_load(&x->state) != LX_XPRT_CONNECTED ||
	    (rq_flags(st) & RQ_OUTCOME) ||
	    (!(rq_flags(st) & RQ_CREDIT) && !lx_xprt__cong_get(&x->cong))) {
		lx_xprt_unlock(&x->xmit_lock);
		return false;
	}
	rq->xnode.credited = true;
	/* XMIT with (before) clearing QUEUED: never seen idle */
	do {
		nst = (st | RQ_XMIT | RQ_CREDIT) & ~(uint64_t)RQ_QUEUED;
	} while (!atomic_compare_exchange_weak(&rq->st, &st, nst));
	cookie = atomic_load(&x->cookie);
	rq->cookie = cookie;
	rq->tx_done = 0;
	r = x->ops->send(x, &rq, 1, &nsent, false);
	atomic_fetch_add_explicit(&x->stats.send_calls, 1,
				  memory_order_relaxed);
	if (lx_xprt_likely(r == 0 && nsent == 1)) {
		atomic_fetch_add_explicit(&x->stats.direct_sends, 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&x->stats.sends, 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&x->stats.bytes_sent, rq->tx_total,
					  memory_order_relaxed);
		if (rq->pub.no_reply)
			lx_xprt_claim_outcome(rq, 0);
		/* the reply may be in already: done() is ours to run then,
		 * and a reference keeps the slot from being reused while
		 * another completer races us for it.  It is taken before
		 * XMIT goes (nobody delivers while it is set), and only
		 * when the outcome is in: once set it stays, and without
		 * it whoever decides later delivers, and we touch nothing
		 * after the exchange. */
		bool ref = false;

		st = atomic_load(&rq->st);
		do {
			if ((rq_flags(st) & RQ_OUTCOME) && !ref) {
				lx_xprt_rq_get(rq);
				ref = true;
			}
			nst = (st | RQ_SENT) & ~(uint64_t)RQ_XMIT;
		} while (!atomic_compare_exchange_weak(&rq->st, &st, nst));
		lx_xprt_unlock(&x->xmit_lock);
		if (lx_xprt_unlikely(ref)) {
			struct xmit_defer d = {.rq = {rq}, .n = 1};

			/* and its reference; a request its done() queued is
			 * ours to send (xmit_send_later()), in a loop */
			if (xmit_run_deferred(x, &d))
				xmit_kick_after(
					x, lx_xprt_xmit(x, LX_XPRT_XMIT_BATCH,
							true));
			return true;
		}
		return true;
	}
	/* the rare rest, as xmit_round() does it */
	if (nsent == 0 && rq->tx_done > 0) {
		x->tx_partial = rq; /* its record must be finished first */
	} else {
		rq->tx_done = 0;
		atomic_fetch_or(&rq->st, RQ_QUEUED);
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_XMIT);
		lx_xprt_xmitq_requeue(&x->xmitq, &rq->xnode);
	}
	if (r && r != -EAGAIN)
		lx_xprt_conn_lost(x, cookie, r);
	lx_xprt_unlock(&x->xmit_lock);
	lx_xprt_kick_worker(x);
	return true;
}

static void xmit_push(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	if (lx_xprt__xmit_later.rx == x) {
		if (xmit_hold(x, rq))
			return; /* sent at the receive batch's end */
	} else if (!lx_xprt__xmit_later.tx && lx_xprt_xmitq_empty(&x->xmitq) &&
		   xmit_one(x, rq)) {
		return; /* an idle connection: straight to the socket */
	}
	lx_xprt_tsan_release(rq);
	lx_xprt_xmitq_push(&x->xmitq, &rq->xnode);
	if (xmit_send_later(x))
		return;
	xmit_kick_after(x, lx_xprt_xmit(x, LX_XPRT_XMIT_BATCH, true));
}

int lx_xprt_req_submit(struct lx_xprt_req *req, uint32_t key)
{
	struct lx_xprt_rqst *rq;
	struct lx_xprt *x;
	size_t len;
	unsigned int i;
	bool pending;
	int err;

	if (!req || !req->ops || !req->ops->done)
		return -EINVAL;
	rq = rq_of(req);
	x = req->xprt;
	if (lx_xprt_forked(x))
		return -ECHILD;
	if (rq_flags(atomic_load(&rq->st)) & (RQ_SUBMITTED | RQ_FINISHED))
		return -EINVAL;
	len = req->sbuf->len;
	for (i = 0; i < req->nr_tx_segs; i++)
		len += req->tx_segs[i].iov_len;
	if (!len || req->sbuf->len > req->sbuf->cap)
		return -EINVAL;
	if (len > x->opts.max_msg)
		return -EMSGSIZE;
	if (atomic_load(&x->stopping) ||
	    atomic_load(&x->state) >= LX_XPRT_CLOSING)
		return -ESHUTDOWN;
	if (req->no_reply && (x->ops->flags & LX_XPRT_TP_NEED_REPLY))
		return -EOPNOTSUPP;

	req->key = key;
	if (!req->owner)
		req->owner = lx_xprt_thread_owner();
	/* (the RPC record marker inline: framing.h) */
	rq->marker_len = lx_xprt_likely(x->framing == &lx_xprt_framing_rpc) ?
				 lx_rpc_mark_put(rq->marker, len) :
				 x->framing->encode(rq->marker, len);
	rq->tx_total = rq->marker_len + len;
	rq->tx_done = 0;
	rq->early_losses = 0;
	rq->xnode.owner = req->owner;
	rq->xnode.credited = false;
	atomic_store(&rq->done_futex, 0);
	/* In the reply index before anyone can see it submitted: a canceller
	 * that decides a submitted request takes it out of there, so linking
	 * it after that would leave the slot linked for its next use. */
	if (!req->no_reply) {
		err = lx_xprt_ix_link(x, rq, key);
		if (err)
			return err;
	}
	atomic_fetch_add(&rq->refs, 1);
	/* an exchange (what a seq_cst store is on x86): a cancel that came
	 * before the submit left RQ_CANCEL (lx_xprt_req_cancel_gen()).
	 * Nothing can complete the request before it is pushed (QUEUED). */
	pending = rq_flags(atomic_exchange(&rq->st, RQ_SUBMITTED | RQ_QUEUED)) &
		  RQ_CANCEL;
	atomic_fetch_add_explicit(&x->stats.submitted, 1, memory_order_relaxed);
	if (req->timeout_ns)
		lx_xprt_timer_arm(x, rq, lx_xprt_now_ns() + req->timeout_ns);
	if (x->ops->submitted && !req->no_reply)
		x->ops->submitted(x, rq);
	/* once pushed it may complete and its slot be reused at any moment:
	 * a cancel still to run holds a reference from before */
	if (lx_xprt_unlikely(pending))
		lx_xprt_rq_get(rq);
	xmit_push(x, rq);
	if (lx_xprt_unlikely(pending)) {
		if (req->ops->cancel)
			req->ops->cancel(req);
		else
			lx_xprt_req_cancel(req);
		lx_xprt_req_put(req);
	}
	return 0;
}

/*
 * Once done() has returned, try_complete() still clears SUBMITTED, looks
 * at the timer and the waiter's futex, and drops the transport's
 * reference: until that last put the slot is not the protocol's alone.
 */
int lx_xprt_req_resubmit(struct lx_xprt_req *req, uint32_t key)
{
	struct lx_xprt_rqst *rq;
	uint32_t f;
	int err;

	if (!req)
		return -EINVAL;
	rq = rq_of(req);
	f = rq_flags(atomic_load(&rq->st));
	if (!(f & RQ_FINISHED))
		return (f & RQ_SUBMITTED) ? -EBUSY : -EINVAL;
	if ((f & RQ_SUBMITTED) || atomic_load(&rq->refs) != 1)
		return -EBUSY;
	req->rlen = 0;
	req->rx_data_off = 0;
	req->rx_data_len = 0;
	req->rx_data_pad = 0;
	req->rx_msg_len = 0;
	/* the caller's extra reference: it may look at the request (cancel
	 * it) after the submit, when done() may already have run.  A cancel
	 * that pinned the request meanwhile (it was parked) leaves RQ_CANCEL
	 * on the zeroed state, which the submit honours. */
	atomic_fetch_add(&rq->refs, 1);
	atomic_fetch_and(&rq->st, (uint64_t)RQ_CANCEL);
	err = lx_xprt_req_submit(req, key);
	if (err) {
		lx_xprt_req_put(req);
		return err;
	}
	atomic_fetch_add_explicit(&req->xprt->stats.resubmits, 1,
				  memory_order_relaxed);
	return 0;
}

void lx_xprt_req_park(struct lx_xprt_req *req)
{
	atomic_fetch_or(&rq_of(req)->st, RQ_PARKED);
}

int lx_xprt_req_retransmit(struct lx_xprt_req *req)
{
	struct lx_xprt_rqst *rq;
	struct lx_xprt *x;
	uint64_t st;

	if (!req)
		return -EINVAL;
	rq = rq_of(req);
	x = req->xprt;
	st = atomic_load(&rq->st);
	if ((x->ops->flags & LX_XPRT_TP_NO_SAME_CONN_RESEND) &&
	    (rq_flags(st) & (RQ_SUBMITTED | RQ_SENT | RQ_OUTCOME | RQ_QUEUED |
			     RQ_XMIT)) == (RQ_SUBMITTED | RQ_SENT) &&
	    rq->cookie == atomic_load(&x->cookie) &&
	    atomic_load(&x->state) == LX_XPRT_CONNECTED) {
		/* never twice on one connection: drop it, the reconnect
		 * resends every request in flight (PROTOCOLS.md 1.9) */
		atomic_fetch_add_explicit(&x->stats.retransmits, 1,
					  memory_order_relaxed);
		lx_xprt_conn_lost(x, rq->cookie, -ETIMEDOUT);
		return 0;
	}
	do {
		if (!(rq_flags(st) & RQ_SUBMITTED))
			return -EINVAL;
		if (rq_flags(st) & (RQ_OUTCOME | RQ_QUEUED | RQ_XMIT))
			return -EALREADY;
	} while (!atomic_compare_exchange_weak(&rq->st, &st, st | RQ_QUEUED));
	rq->xnode.credited = (rq_flags(st) & RQ_CREDIT) != 0;
	atomic_fetch_add_explicit(&x->stats.retransmits, 1,
				  memory_order_relaxed);
	xmit_push(x, rq);
	return 0;
}

/* ------------------------------------------------------- reconnection */

/*
 * The connection is gone: with the transmit lock held and the receive side
 * detached, decide the fate of what was on it.  @early: the server dropped
 * it before replying (see xmit_reconnect()): a request sent on, or
 * queued for, opts.early_loss_limit such connections fails with
 * -ECONNRESET rather than being sent to its death again.
 */
static void xmit_conn_down(struct lx_xprt *x, bool early)
{
	struct lx_xprt_rqst *cut = NULL;
	unsigned int i;

	/*
	 * The state is no longer CONNECTED, so no new send starts; taking
	 * the lock once waits out a send already under way.  Then the dead
	 * socket is reaped without the lock: reaping waits for the receive
	 * thread, whose timer callbacks may need the lock themselves.
	 */
	lx_xprt_lock(&x->xmit_lock);
	lx_xprt_unlock(&x->xmit_lock);
	x->ops->reap(x);

	lx_xprt_lock(&x->xmit_lock);
	if (x->tx_partial) {
		struct lx_xprt_rqst *rq = x->tx_partial;

		x->tx_partial = NULL;
		rq->tx_done = 0;
		/* the cut request counts as sent on the dead connection */
		atomic_fetch_or(&rq->st, RQ_SENT);
		/* its outcome may be decided already (a cancel dropped the
		 * connection for it): the transmitter lets go of it, so it
		 * is the one to deliver, after the lock */
		lx_xprt_rq_get(rq);
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_XMIT);
		cut = rq;
	}
	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rqst *rq = lx_xprt_slot(x, i);
		uint64_t st = atomic_load(&rq->st);
		uint32_t f = rq_flags(st);
		bool dead = false;

		/* credits belonged to the old connection */
		if (f & RQ_CREDIT) {
			uint64_t o =
				atomic_fetch_and(&rq->st, ~(uint64_t)RQ_CREDIT);

			rq->xnode.credited = false;
			/* an orphan's reply died with the connection */
			if (lx_xprt_unlikely(rq_flags(o) & RQ_ORPHAN)) {
				lx_xprt_unlock(&x->xmit_lock);
				lx_xprt_orphan_end(x, rq, LX_XPRT_ORPHAN_RESET);
				lx_xprt_lock(&x->xmit_lock);
			}
		}
		if (!(f & RQ_SUBMITTED) || (f & RQ_OUTCOME))
			continue;
		if (f & RQ_QUEUED) {
			/* waiting its turn counts like being sent: whether
			 * its bytes left before the server's reset is only a
			 * matter of timing (a loaded client loses that race) */
			if (early && x->opts.early_loss_limit &&
			    ++rq->early_losses >= x->opts.early_loss_limit)
				dead = true;
			if (x->opts.policy == LX_XPRT_FAIL || dead) {
				lx_xprt_unlock(&x->xmit_lock);
				lx_xprt_req_fail(&rq->pub, -ECONNRESET);
				lx_xprt_lock(&x->xmit_lock);
			}
			continue;
		}
		if (!(f & RQ_SENT))
			continue;
		if (early && x->opts.early_loss_limit &&
		    rq->cookie == x->lost_cookie &&
		    ++rq->early_losses >= x->opts.early_loss_limit)
			dead = true;
		if (x->opts.policy == LX_XPRT_RESEND && !dead) {
			lx_xprt_req_retransmit(&rq->pub);
		} else {
			lx_xprt_unlock(&x->xmit_lock);
			lx_xprt_req_fail(&rq->pub, -ECONNRESET);
			lx_xprt_lock(&x->xmit_lock);
		}
	}
	lx_xprt_cong_reset(&x->cong);
	lx_xprt_unlock(&x->xmit_lock);
	if (cut) {
		lx_xprt_try_complete(cut);
		lx_xprt_req_put(&cut->pub);
	}
}

/* Sleep until @deadline (monotonic ns) unless the transport is stopping.
 * Return false if stopping. */
static bool xmit_backoff_sleep(struct lx_xprt *x, uint64_t deadline)
{
	struct timespec ts;
	bool stop;

	pthread_mutex_lock(&x->state_lock);
	ts = lx_xprt_ns_to_timespec(deadline);
	while (!(stop = atomic_load(&x->stopping)) &&
	       lx_xprt_now_ns() < deadline)
		if (pthread_cond_timedwait(&x->state_cond, &x->state_lock,
					   &ts) == ETIMEDOUT)
			break;
	stop = atomic_load(&x->stopping);
	pthread_mutex_unlock(&x->state_lock);
	return !stop;
}

/* Calls are waiting for this transport (a hint: relaxed counters). */
static bool xmit_calls_waiting(struct lx_xprt *x)
{
	return atomic_load_explicit(&x->stats.submitted,
				    memory_order_relaxed) !=
	       atomic_load_explicit(&x->stats.completed, memory_order_relaxed);
}

/* Sleep until kicked (@seen: worker_kick read before deciding to). */
static void worker_sleep(struct lx_xprt *x, unsigned int seen)
{
	atomic_store(&x->worker_sleeping, true);
	if (atomic_load(&x->worker_kick) == seen && !atomic_load(&x->stopping))
		lx_xprt_futex_wait(&x->worker_kick, seen, -1);
	atomic_store(&x->worker_sleeping, false);
}

/*
 * A lost connection is replaced when a call wants it, as the Linux client
 * connects on demand: an idle client whose server went away opens nothing
 * (unless the transport asks otherwise: %LX_XPRT_TP_RECONNECT_IDLE).
 * A submit that finds no connection kicks the worker (xmit_kick_after());
 * reading the kick count before the call counters pairs with that.
 * Return: true when a call is waiting, false when the transport stops.
 */
static bool xmit_wait_for_call(struct lx_xprt *x)
{
	unsigned int seen;

	for (;;) {
		seen = atomic_load(&x->worker_kick);
		if (atomic_load(&x->stopping))
			return false;
		if ((x->ops->flags & LX_XPRT_TP_RECONNECT_IDLE) ||
		    xmit_calls_waiting(x))
			return true;
		worker_sleep(x, seen);
	}
}

/* @from -> @to, unless the state changed meanwhile (closing) */
static void xmit_state_from(struct lx_xprt *x, enum lx_xprt_state from,
			    enum lx_xprt_state to)
{
	enum lx_xprt_state s = from;

	atomic_compare_exchange_strong(&x->state, &s, to);
}

/* The delay after this one: doubled, within the options' bounds. */
static void xmit_backoff_grow(struct lx_xprt *x)
{
	unsigned int d = x->backoff_ms;

	if (d < x->opts.reconnect_min_ms)
		d = x->opts.reconnect_min_ms;
	else
		d = d > x->opts.reconnect_max_ms / 2 ?
			    x->opts.reconnect_max_ms :
			    d * 2;
	x->backoff_ms = d;
}

/* The first step of reconnection (see xmit_reconnect()); xprt_int.h. */
bool lx_xprt__reconnect_down(struct lx_xprt *x, uint64_t *at)
{
	uint64_t now = lx_xprt_now_ns(), since = x->conn_since;
	bool replied = atomic_load(&x->stats.replies) != x->conn_replies;
	bool early =
		!replied || now - since < (uint64_t)LX_XPRT_EARLY_MS * 1000000u;

	if (replied)
		x->backoff_ms = 0; /* the server was talking to us */
	if (early) {
		atomic_fetch_add_explicit(&x->stats.early_disconnects, 1,
					  memory_order_relaxed);
		if (!replied && x->opts.policy == LX_XPRT_RESEND &&
		    xmit_calls_waiting(x))
			lx_xprt_not_responding(x);
		if (x->backoff_ms < x->opts.reconnect_min_ms)
			x->backoff_ms = x->opts.reconnect_min_ms;
	}
	xmit_conn_down(x, early && !replied);
	if (x->opts.policy == LX_XPRT_FAIL) {
		/* a 9P session does not survive its connection */
		pthread_mutex_lock(&x->state_lock);
		if (!atomic_load(&x->stopping))
			atomic_store(&x->state, LX_XPRT_CLOSED);
		pthread_cond_broadcast(&x->state_cond);
		pthread_mutex_unlock(&x->state_lock);
		lx_xprt_fail_all(x, -ECONNRESET);
		return false;
	}
	*at = now;
	if (x->backoff_ms) {
		*at = since + (uint64_t)x->backoff_ms * 1000000u;
		xmit_backoff_grow(x);
	}
	return true;
}

/* The attempt (see xmit_reconnect()); xprt_int.h. */
int lx_xprt__reconnect_try(struct lx_xprt *x, uint64_t *at)
{
	uint32_t cookie = atomic_load(&x->cookie) + 1;
	uint64_t since = lx_xprt_now_ns();
	int err;

	err = x->ops->connect(x, cookie);
	if (!err) {
		pthread_mutex_lock(&x->state_lock);
		atomic_store(&x->cookie, cookie);
		x->disconnected_since = 0;
		x->conn_since = since;
		x->conn_replies = atomic_load(&x->stats.replies);
		/* counted before it is published: a call answered on
		 * it finds it counted */
		atomic_fetch_add(&x->stats.connects, 1);
		atomic_store(&x->state, LX_XPRT_CONNECTED);
		pthread_cond_broadcast(&x->state_cond);
		pthread_mutex_unlock(&x->state_lock);
		return 0;
	}
	x->last_error = err;
	if (xmit_calls_waiting(x))
		lx_xprt_not_responding(x);
	if (x->opts.reconnect_give_up_ms && !x->gave_up &&
	    lx_xprt_now_ns() - x->disconnected_since >
		    (uint64_t)x->opts.reconnect_give_up_ms * 1000000u) {
		x->gave_up = true;
		lx_xprt_fail_all(x, -ENOTCONN);
	}
	xmit_backoff_grow(x);
	*at = lx_xprt_now_ns() + (uint64_t)x->backoff_ms * 1000000u;
	return err;
}

bool lx_xprt__calls_waiting(struct lx_xprt *x)
{
	return xmit_calls_waiting(x);
}

/*
 * Reconnection, with the Linux client's backoff (xprt_reconnect_delay(),
 * xs_connect()): the delay before an attempt is counted from when the lost
 * connection was made, so a connection that lived longer than the delay
 * is replaced at once; a failed attempt and an early disconnect - lost
 * before any reply came on it, or within LX_XPRT_EARLY_MS - both double
 * it, and any reply resets it.  Without the early rule a server that
 * accepts and then drops every connection (a crashing daemon, a port that
 * is not what we think) got a new connection a millisecond after the
 * last, 1,200 a second; with it the attempts to such a server are 0.1,
 * 0.3, 0.7, 1.5, 3.1, 6.3 s... after the first (tests/hostile).  With
 * no call waiting, the attempt waits for one (xmit_wait_for_call()); the
 * state stays LX_XPRT_DISCONNECTED meanwhile.  So does an attempt after
 * a failed one once the calls that waited have ended (soft calls fail
 * within their bound): only hard calls, and RDMA
 * (%LX_XPRT_TP_RECONNECT_IDLE), keep the attempts going.  The
 * caller-driven mode takes the same two steps from its service call
 * (loop.c).
 */
static void xmit_reconnect(struct lx_xprt *x)
{
	uint64_t at;

	if (!lx_xprt__reconnect_down(x, &at))
		return;
	if (!xmit_wait_for_call(x))
		return;
	atomic_store(&x->state, LX_XPRT_CONNECTING);
	x->gave_up = false;
	while (xmit_backoff_sleep(x, at)) {
		/* the calls that wanted a connection have ended (soft: they
		 * failed within their bound): the next attempt waits for a
		 * call, so a server that stays away is not tried for ever */
		if (!xmit_calls_waiting(x) &&
		    !(x->ops->flags & LX_XPRT_TP_RECONNECT_IDLE)) {
			xmit_state_from(x, LX_XPRT_CONNECTING,
					LX_XPRT_DISCONNECTED);
			if (!xmit_wait_for_call(x))
				return;
			xmit_state_from(x, LX_XPRT_DISCONNECTED,
					LX_XPRT_CONNECTING);
		}
		if (!lx_xprt__reconnect_try(x, &at))
			return;
	}
	xmit_state_from(x, LX_XPRT_CONNECTING, LX_XPRT_DISCONNECTED);
}

/* --------------------------------------------------------- the worker */

void *lx_xprt_worker_main(void *arg)
{
	struct lx_xprt *x = arg;
	unsigned int seen;
	int r;

	while (!atomic_load(&x->stopping)) {
		enum lx_xprt_state s = atomic_load(&x->state);

		if (s == LX_XPRT_DISCONNECTED) {
			xmit_reconnect(x);
			continue;
		}
		seen = atomic_load(&x->worker_kick);
		if (s != LX_XPRT_CONNECTED) {
			worker_sleep(x, seen);
			continue;
		}
		r = lx_xprt_xmit(x, ~0u, false);
		if (r == -EAGAIN)
			x->ops->wait_writable(x, 100);
		else if (r == 0 || r == -EBUSY || r == -ENOTCONN)
			worker_sleep(x, seen);
	}
	return NULL;
}
