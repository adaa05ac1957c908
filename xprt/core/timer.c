// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Request timers: a deadline word per slot, scanned when one is due.
 *
 * Every request has at most one timer (the protocol's retransmit or flush
 * deadline), and almost none of them fire: a reply comes first.  So
 * arming and disarming cost nothing but a store in the request's own
 * slot (rq->deadline, 0 = not armed), and the work is done by the
 * receive thread when a deadline is due: it walks the slots (64 by
 * default, a few cache lines), fires what expired, and notes the earliest
 * deadline left in x->timer_scan_at.  Between walks that one word is what
 * the receive thread compares its clock with.  Arming a deadline earlier
 * than timer_scan_at lowers it (a compare-and-swap, rare: deadlines are
 * seconds away and grow with the clock, so a new one is almost never the
 * earliest), and arming one earlier than the time the receive thread
 * sleeps to (x->rx_wake_deadline) kicks it.
 *
 * The receive thread never sleeps longer than LX_XPRT_TIMER_TICK_NS: that
 * tick is what keeps kicks rare.  Without it an idle receive thread sleeps
 * "forever", and the first request armed after every quiet moment (at one
 * request in flight, every request) would cost an eventfd write, a
 * wake-up and a context switch.  With a 1 s tick they almost never kick;
 * an idle transport pays one wake-up a second.
 *
 * Orderings (all sequentially consistent, each a store then a load on two
 * words, so one side of each pair always sees the other):
 *   - a walk starts by setting timer_scan_at to "never" and then reads
 *     the deadlines; an arm stores its deadline and then reads
 *     timer_scan_at: either the walk sees the deadline, or the arm sees
 *     "never" and lowers timer_scan_at itself;
 *   - the receive thread stores rx_wake_deadline and then reads
 *     timer_scan_at again; an arm lowers timer_scan_at and then reads
 *     rx_wake_deadline: either the thread sleeps to the new deadline, or
 *     the arm kicks it.
 *
 * Firing takes a reference on the slot's request first (only while it has
 * one: a slot with none is free), then claims the deadline it read with a
 * compare-and-swap to 0: a completion or a re-arm in between makes the
 * claim fail and nothing fires.  A reference taken on the slot's next
 * request (the old one finished and the slot was reused between the read
 * and the reference) is harmless: the claim succeeds only if that request
 * has armed that very deadline, which has then passed for it too.  The
 * firing loop (lx_xprt_timer_run(), in xprt.c: this file calls nothing of
 * the requests') calls ops->timeout() with that reference held, so the
 * callback may re-arm or fail the request.  Without a timeout hook the
 * request fails with -ETIMEDOUT.  Failing the request the receive thread
 * is placing a reply into right now is fine: delivery waits for that
 * thread's unpin, nobody blocks (and a reply that stops arriving half-way
 * is dealt with by the transport: see tcp.c, rx_stalled()).
 */
#include <errno.h>

#include "xprt/core/xprt_int.h"

#define TIMER_NEVER UINT64_MAX

/* Lower @w to @d if @d is earlier. */
static void atomic_lower(_Atomic uint64_t *w, uint64_t d)
{
	uint64_t v = atomic_load(w);

	while (d < v && !atomic_compare_exchange_weak(w, &v, d))
		;
}

/* See xprt_int.h, lx_xprt_timer_arm(). */
void lx_xprt__timer_lower(struct lx_xprt *x, uint64_t deadline)
{
	atomic_lower(&x->timer_scan_at, deadline);
	if (deadline < atomic_load(&x->rx_wake_deadline) && x->ops->kick_rx)
		x->ops->kick_rx(x);
}

/* The wake-up time for the receive thread, published (see the top). */
static uint64_t wake_at(struct lx_xprt *x, uint64_t now)
{
	uint64_t d = now + LX_XPRT_TIMER_TICK_NS, s;

	for (;;) {
		s = atomic_load(&x->timer_scan_at);
		if (s < d)
			d = s;
		atomic_store(&x->rx_wake_deadline, d);
		if (atomic_load(&x->timer_scan_at) >= d)
			return d;
	}
}

uint64_t lx_xprt_timer_next(struct lx_xprt *x)
{
	return wake_at(x, lx_xprt_now_ns());
}

struct lx_xprt_rqst *lx_xprt_timer_expired(struct lx_xprt *x, uint64_t now,
					   uint64_t *next, bool *fired)
{
	struct lx_xprt_rqst *rq;
	uint64_t d;

	if (!x->timer_walking) {
		if (now < atomic_load(&x->timer_scan_at)) {
			*next = wake_at(x, now);
			return NULL;
		}
		x->timer_walking = true;
		x->timer_cursor = 0;
		x->timer_walk_min = TIMER_NEVER;
		atomic_store(&x->timer_scan_at, TIMER_NEVER);
	}
	while (x->timer_cursor < x->max_reqs) {
		rq = lx_xprt_slot(x, x->timer_cursor++);
		d = atomic_load(&rq->deadline);
		if (!d)
			continue;
		if (d > now) {
			if (d < x->timer_walk_min)
				x->timer_walk_min = d;
			continue;
		}
		if (!lx_xprt_rq_get_live(rq))
			continue;
		/* false: disarmed or re-armed meanwhile (a re-arm lowered
		 * timer_scan_at itself); the caller drops the reference */
		*fired = atomic_compare_exchange_strong(&rq->deadline, &d, 0);
		return rq;
	}
	x->timer_walking = false;
	atomic_lower(&x->timer_scan_at, x->timer_walk_min);
	*next = wake_at(x, now);
	return NULL;
}
