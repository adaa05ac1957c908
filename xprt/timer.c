// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Request timers: one binary min-heap of deadlines per transport.
 *
 * Every request has at most one timer (the protocol's retransmit or flush
 * deadline).  The heap holds armed requests ordered by deadline, each
 * remembering its index so re-arming and disarming are O(log n) without a
 * search; the array is preallocated with one entry per slot, so arming
 * never allocates.  Timers fire on the transport's receive thread, which
 * sleeps in epoll (or on its completion channel) until the earliest
 * deadline, but never longer than LX_XPRT_TIMER_TICK_NS: arming a deadline
 * earlier than the one it sleeps to kicks it.  The tick is what keeps
 * kicks rare: without it an idle receive thread sleeps "forever", and the
 * first request armed after every quiet moment (at one request in flight,
 * every request) would cost an eventfd write, a wake-up and a context
 * switch.  Request deadlines are seconds away, so with a 1 s tick they
 * almost never kick; an idle transport pays one wake-up a second.
 *
 * A timer firing (lx_xprt_timer_run(), in xprt.c: this file is only the
 * heap, calling nothing of the requests') calls ops->timeout() with a
 * reference held, outside the timer lock, so the callback may re-arm or
 * fail the request.  Without a timeout hook the request fails with
 * -ETIMEDOUT.  Failing the request the
 * receive thread is placing a reply into right now is fine: delivery waits
 * for that thread's unpin, nobody blocks (and a reply that stops arriving
 * half-way is dealt with by the transport: see tcp.c, rx_stalled()).
 */
#include <errno.h>

#include "xprt_int.h"

static void heap_set(struct xprt *x, unsigned int i, struct lx_xprt_rqst *rq)
{
	x->heap[i] = rq;
	atomic_store_explicit(&rq->heap_idx, (int)i, memory_order_relaxed);
}

static void heap_up(struct xprt *x, unsigned int i)
{
	struct lx_xprt_rqst *rq = x->heap[i];

	while (i > 0) {
		unsigned int p = (i - 1) / 2;

		if (x->heap[p]->deadline <= rq->deadline)
			break;
		heap_set(x, i, x->heap[p]);
		i = p;
	}
	heap_set(x, i, rq);
}

static void heap_down(struct xprt *x, unsigned int i)
{
	struct lx_xprt_rqst *rq = x->heap[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= x->heap_len)
			break;
		if (c + 1 < x->heap_len &&
		    x->heap[c + 1]->deadline < x->heap[c]->deadline)
			c++;
		if (rq->deadline <= x->heap[c]->deadline)
			break;
		heap_set(x, i, x->heap[c]);
		i = c;
	}
	heap_set(x, i, rq);
}

static void heap_remove(struct xprt *x, struct lx_xprt_rqst *rq)
{
	unsigned int i = (unsigned int)atomic_load_explicit(
		&rq->heap_idx, memory_order_relaxed);
	struct lx_xprt_rqst *last;

	atomic_store_explicit(&rq->heap_idx, -1, memory_order_relaxed);
	last = x->heap[--x->heap_len];
	if (last == rq)
		return;
	heap_set(x, i, last);
	heap_down(x, i);
	heap_up(x, (unsigned int)atomic_load_explicit(&last->heap_idx,
						      memory_order_relaxed));
}

void lx_xprt_timer_arm(struct xprt *x, struct lx_xprt_rqst *rq,
		       uint64_t deadline)
{
	bool kick = false;

	pthread_mutex_lock(&x->timer_lock);
	if (atomic_load_explicit(&rq->heap_idx, memory_order_relaxed) >= 0)
		heap_remove(x, rq);
	if (deadline) {
		uint64_t w = atomic_load(&x->rx_wake_deadline);

		rq->deadline = deadline;
		x->heap[x->heap_len] = rq;
		heap_up(x, x->heap_len++);
		kick = x->heap[0] == rq && deadline < w;
	}
	pthread_mutex_unlock(&x->timer_lock);
	if (kick && x->ops->kick_rx)
		x->ops->kick_rx(x);
}

/* The wake-up time for the receive thread; timer_lock held. */
static uint64_t wake_at(struct xprt *x, uint64_t now)
{
	uint64_t d = now + LX_XPRT_TIMER_TICK_NS;

	if (x->heap_len && x->heap[0]->deadline < d)
		d = x->heap[0]->deadline;
	atomic_store(&x->rx_wake_deadline, d);
	return d;
}

uint64_t lx_xprt_timer_next(struct xprt *x)
{
	uint64_t now = lx_xprt_now_ns(), d;

	pthread_mutex_lock(&x->timer_lock);
	d = wake_at(x, now);
	pthread_mutex_unlock(&x->timer_lock);
	return d;
}

struct lx_xprt_rqst *lx_xprt_timer_expired(struct xprt *x, uint64_t now,
					   uint64_t *next)
{
	struct lx_xprt_rqst *rq = NULL;

	pthread_mutex_lock(&x->timer_lock);
	if (!x->heap_len || x->heap[0]->deadline > now) {
		*next = wake_at(x, now);
	} else {
		rq = x->heap[0];
		heap_remove(x, rq);
		lx_xprt_rq_get(rq);
	}
	pthread_mutex_unlock(&x->timer_lock);
	return rq;
}
