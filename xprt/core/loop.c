// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The caller-driven mode (lx_xprt_opts.mode = LX_XPRT_MODE_CALLER): no
 * thread of the library's; the owner thread drives the transport.
 *
 * What the threads of the threaded mode do happens here, in
 * lx_xprt_loop_service(), on the owner's thread:
 *
 *   receive thread   the transport's loop_poll(): one epoll_wait() with
 *                    no timeout on the loop descriptor (an epoll set of
 *                    the socket, an eventfd and a timerfd), the socket
 *                    read until it would block, replies delivered
 *   cancels          queued by other threads in cancel_gen[], decided
 *                    here (below)
 *   transmit worker  the queue drained without blocking; a full socket
 *                    is watched for room (EPOLLOUT inside the set)
 *   timers           lx_xprt_timer_run(), as the receive thread runs it
 *   reconnection     the worker's two steps (xmit.c): the lost
 *                    connection taken down, then, once its backoff has
 *                    passed and a call waits, one attempt per service
 *
 * and the timerfd is armed at the earliest of the next deadlines, so the
 * descriptor becomes readable then, I/O or not.  A synchronous call alone
 * in flight skips the epoll set: the transport's wait (TCP: a blocking
 * recv(), as a threaded caller's) receives its reply, up to the next
 * timer (loop_wait()).  A call made outside the service that leaves
 * work behind (the socket full, no credit, no connection:
 * lx_xprt_kick_worker()) writes the eventfd, so the loop comes back;
 * inside the service it only marks it (loop->due).
 *
 * Cancels from other threads.  lx_call_cancel() on a thread that is not
 * the owner must not decide anything (done() would run on that thread,
 * beside the owner's service): it stores the call's
 * generation in its slot's cancel_gen word, counts it and writes the
 * eventfd, and returns 0.  The owner's next service cancels it as
 * lx_call_cancel() would have, unless the call completed meanwhile (its
 * generation moved on): so done() may report success after all.
 *
 * The owner is the thread that created the transport, and then whoever
 * last serviced it; a token per thread (the address of a thread-local
 * byte) identifies it.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>

#include "xprt/core/call_int.h"
#include "xprt/core/xprt_int.h"

static _Thread_local char loop_me_byte;

static inline uintptr_t loop_me(void)
{
	return (uintptr_t)&loop_me_byte;
}

static inline bool loop_is_owner(const struct lx_xprt_loop *lp)
{
	return atomic_load_explicit(&lp->owner, memory_order_relaxed) ==
	       loop_me();
}

static const struct lx_xprt_loop_ops loop_ops;

int lx_xprt__loop_init(struct lx_xprt *x)
{
	struct lx_xprt_loop *lp;

	lp = calloc(1, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	lp->cancel_gen = calloc(x->max_reqs, sizeof(*lp->cancel_gen));
	if (!lp->cancel_gen) {
		free(lp);
		return -ENOMEM;
	}
	lp->ops = &loop_ops;
	atomic_init(&lp->owner, loop_me());
	x->loop = lp;
	return 0;
}

void lx_xprt__loop_fini(struct lx_xprt *x)
{
	if (!x->loop)
		return;
	free((void *)x->loop->cancel_gen);
	free(x->loop);
	x->loop = NULL;
}

static void loop_kick(struct lx_xprt *x)
{
	struct lx_xprt_loop *lp = x->loop;

	if (lp->in_service && loop_is_owner(lp))
		lp->due = true; /* the service sends before it returns */
	else
		x->ops->kick_rx(x); /* the descriptor becomes readable */
}

static int loop_cancel(struct lx_xprt_req *req, uint32_t gen)
{
	struct lx_xprt *x = req->xprt;
	struct lx_xprt_loop *lp = x->loop;

	if (loop_is_owner(lp))
		return -EAGAIN; /* decide here, as the threaded mode does */
	/* the last cancel of a slot wins: a newer generation means the
	 * older call is over */
	atomic_store(&lp->cancel_gen[req->slot], gen);
	atomic_fetch_add(&lp->cancels, 1);
	x->ops->kick_rx(x);
	return 0;
}

/* Owner: decide the cancels other threads queued. */
static void loop_cancels(struct lx_xprt *x, struct lx_xprt_loop *lp)
{
	unsigned int i;
	uint32_t gen;

	if (!atomic_load_explicit(&lp->cancels, memory_order_relaxed) ||
	    !atomic_exchange(&lp->cancels, 0))
		return;
	for (i = 0; i < x->max_reqs; i++) {
		if (!atomic_load_explicit(&lp->cancel_gen[i],
					  memory_order_relaxed))
			continue;
		gen = atomic_exchange(&lp->cancel_gen[i], 0);
		if (gen)
			lx_xprt_req_cancel_gen(&lx_xprt_slot(x, i)->pub, gen);
	}
}

static inline uint64_t earlier(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

/*
 * Owner: the lost connection's steps (the worker's xmit_reconnect(), one
 * step per service).  Return the next time to look (0: none).
 */
static uint64_t loop_reconnect(struct lx_xprt *x, struct lx_xprt_loop *lp)
{
	enum lx_xprt_state s = atomic_load(&x->state);
	uint64_t at;

	if (s != LX_XPRT_DISCONNECTED || atomic_load(&x->stopping))
		return 0;
	if (!lp->down) {
		if (!lx_xprt__reconnect_down(x, &lp->reconnect_at))
			return 0; /* closed: the fail policy */
		lp->down = true;
		x->gave_up = false;
	}
	/* with no call waiting the attempt waits for one (a submit kicks) */
	if (!(x->ops->flags & LX_XPRT_TP_RECONNECT_IDLE) &&
	    !lx_xprt__calls_waiting(x))
		return 0;
	if (lx_xprt_now_ns() < lp->reconnect_at)
		return lp->reconnect_at;
	atomic_store(&x->state, LX_XPRT_CONNECTING);
	if (!lx_xprt__reconnect_try(x, &at)) {
		lp->down = false;
		lp->due = true; /* resend what waited */
		return 0;
	}
	atomic_store(&x->state, LX_XPRT_DISCONNECTED);
	lp->reconnect_at = at;
	return at;
}

/* See proto.h. */
void lx_xprt__loop_set_hook(struct lx_xprt *x,
			    uint64_t (*hook)(void *arg, uint64_t now),
			    void *arg)
{
	if (!x->loop)
		return;
	x->loop->hook = hook;
	x->loop->hook_arg = arg;
}

int lx_xprt_loop_fd(const struct lx_xprt *x)
{
	if (!x || !x->loop)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD; /* the parent's epoll set */
	return x->ops->loop_fd(x);
}

unsigned int lx_xprt_loop_events(const struct lx_xprt *x)
{
	return x && x->loop && !lx_xprt_forked(x) ? POLLIN : 0;
}

/*
 * The service, its look at the descriptor allowed to wait @wait_ms first
 * (0: not at all; -1: no limit): the library's own waits (run-until, a
 * synchronous call) then cost one system call per wake-up, not a poll()
 * and then the look.  No wait once a cancel completed something: the
 * caller's condition may be met.  @x checked by the caller.
 */
static int loop_service_wait(struct lx_xprt *x, int wait_ms)
{
	struct lx_xprt_loop *lp = x->loop;
	uint64_t before, next, hook_next = 0;
	int r = 0;

	if (lp->in_service)
		return -EINVAL; /* from a done() callback */
	atomic_store_explicit(&lp->owner, loop_me(), memory_order_relaxed);
	lp->in_service = true;
	before =
		atomic_load_explicit(&x->stats.completed, memory_order_relaxed);

	loop_cancels(x, lp);
	if (wait_ms && atomic_load_explicit(&x->stats.completed,
					    memory_order_relaxed) != before)
		wait_ms = 0;
	next = x->ops->loop_poll(x, wait_ms);
	next = earlier(next, loop_reconnect(x, lp));
	lx_xprt_timer_run(x);
	if (lp->hook)
		hook_next = lp->hook(lp->hook_arg, lx_xprt_now_ns());
	lp->hook_pending = hook_next != 0;
	next = earlier(next, hook_next);
	/* what is queued: held back by the calls above, or left by a call
	 * outside the service (loop_kick()) */
	lp->due = false;
	if (atomic_load(&x->state) == LX_XPRT_CONNECTED &&
	    (x->tx_partial || !lx_xprt_xmitq_empty(&x->xmitq))) {
		r = lx_xprt_xmit(x, ~0u, false);
		lp->want_out = r == -EAGAIN;
	} else {
		lp->want_out = false;
	}
	lp->due = false;
	/* the earliest request deadline, armed by anything above */
	next = earlier(next, lx_xprt_timer_next(x));
	x->ops->loop_arm(x, next, lp->want_out);
	lp->armed_at = next;
	lp->in_service = false;
	return (int)(atomic_load_explicit(&x->stats.completed,
					  memory_order_relaxed) -
		     before);
}

int lx_xprt_loop_service(struct lx_xprt *x, unsigned int revents)
{
	(void)revents; /* the epoll set says what is ready */
	if (!x || !x->loop)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD;
	return loop_service_wait(x, 0);
}

/* Milliseconds from now to @deadline (monotonic ns, 0: none: -1), at
 * least 1 while it is ahead: a wait rounded down to 0 would spin. */
static int loop_ms_to(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = lx_xprt_now_ns();
	if (now >= deadline)
		return 0;
	if (deadline - now >= (uint64_t)INT_MAX * 1000000u)
		return INT_MAX;
	return (int)((deadline - now + 999999) / 1000000);
}

/* Owner, outside the service: wait for @fd until @deadline (monotonic
 * ns, 0: none). */
static void loop_poll_fd(int fd, uint64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	(void)poll(&pfd, 1, loop_ms_to(deadline));
}

/* See proto.h. */
int lx_xprt__loop_run_set(struct lx_xprt *const *xs, unsigned int n, int fd,
			  struct lx_call *until, unsigned int min_done,
			  uint64_t deadline_ns)
{
	unsigned int total = 0, i;
	uint64_t first;
	bool busy, one;
	int r, wait_ms = 0;

	for (i = 0; i < n; i++) {
		if (!xs[i] || !xs[i]->loop)
			return -EINVAL;
		if (lx_xprt_forked(xs[i]))
			return -ECHILD;
		if (xs[i]->loop->in_service)
			return -EINVAL;
	}
	/* one transport on its own descriptor: its service waits (see
	 * loop_service_wait()), else poll() the set, then service each */
	one = n == 1 && fd == xs[0]->ops->loop_fd(xs[0]);
	/*
	 * A condition that needs a completion: wait first.  What is due is
	 * on the descriptor already - the last service armed the timerfd
	 * at its next deadline, and since then every call, cancel or
	 * earlier timer that left work wrote the eventfd - so a service
	 * before the wait would find nothing, and the wait is the one
	 * system call of a wake-up.  Bounded by the next timer deadline too:
	 * before a first service no deadline is armed, and reading it
	 * publishes it, so a call armed earlier from now on kicks.  Several
	 * transports: their shared descriptor, then each one's service.
	 */
	if (until ? lx_xprt_call_live(until) : min_done != 0) {
		first = deadline_ns;
		for (i = 0; i < n; i++)
			first = earlier(first, lx_xprt_timer_next(xs[i]));
		if (one)
			wait_ms = loop_ms_to(first);
		else
			loop_poll_fd(fd, first);
	}
	for (;;) {
		busy = false;
		for (i = 0; i < n; i++) {
			r = loop_service_wait(xs[i], wait_ms);
			if (r < 0)
				return r;
			total += (unsigned int)r;
			busy |= lx_xprt__calls_waiting(xs[i]) ||
				xs[i]->loop->hook_pending;
		}
		if (until && !lx_xprt_call_live(until))
			return (int)total;
		if (min_done && total >= min_done)
			return (int)total;
		if (!until && !min_done && !busy)
			return (int)total;
		if (deadline_ns && lx_xprt_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		if (one)
			wait_ms = loop_ms_to(deadline_ns);
		else
			loop_poll_fd(fd, deadline_ns);
	}
}

int lx_xprt_loop_run(struct lx_xprt *x, struct lx_call *until,
		     unsigned int min_done, uint64_t deadline_ns)
{
	if (!x || !x->loop)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD;
	return lx_xprt__loop_run_set(&x, 1, x->ops->loop_fd(x), until, min_done,
				     deadline_ns);
}

/*
 * Owner: the synchronous call waiting is the only one in flight, sent
 * whole, and nothing else is due (no cancel queued, no call held for
 * later, the socket not watched for room, a connection up): its reply is
 * the only thing the descriptor can bring before the next timer.
 */
static bool loop_alone(struct lx_xprt *x, struct lx_xprt_loop *lp)
{
	return x->ops->wait && !lp->hook_pending && !lp->want_out &&
	       !atomic_load_explicit(&lp->cancels, memory_order_relaxed) &&
	       atomic_load_explicit(&x->state, memory_order_relaxed) ==
		       LX_XPRT_CONNECTED &&
	       !x->tx_partial && lx_xprt_xmitq_empty(&x->xmitq) &&
	       atomic_load_explicit(&x->stats.submitted, memory_order_relaxed) -
			       atomic_load_explicit(&x->stats.completed,
						    memory_order_relaxed) ==
		       1;
}

static int loop_wait(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		     uint64_t deadline)
{
	struct lx_xprt_loop *lp = x->loop;
	bool direct = true;
	int r;

	/* the call was just sent: its reply is not in yet, so wait first
	 * (a service before would find nothing to do) */
	while (atomic_load(&rq->done_futex) != LX_XPRT_DONE) {
		if (deadline && lx_xprt_now_ns() >= deadline)
			return -ETIMEDOUT;
		if (lp->in_service) {
			/* a synchronous call from a done() callback: the
			 * reply can only come through this very service */
			return -EDEADLK;
		}
		if (direct && loop_alone(x, lp)) {
			/*
			 * Receive it here, as a threaded caller does (the
			 * transport's wait: a blocking recv() per wake-up,
			 * not the loop's epoll_wait() and then a read),
			 * until the next timer, which a service then runs.
			 * Anything else it met (a lost connection...) the
			 * service sorts out, with the loop's own waits.
			 */
			r = x->ops->wait(
				x, rq,
				earlier(deadline, lx_xprt_timer_next(x)));
			if (!r)
				continue;
			if (r != -ETIMEDOUT)
				direct = false;
			loop_service_wait(x, 0);
			continue;
		}
		loop_service_wait(x, loop_ms_to(deadline));
	}
	return 0;
}

static void loop_wait_slot(struct lx_xprt *x)
{
	if (x->loop->in_service)
		return;
	loop_service_wait(x, -1);
}

static const struct lx_xprt_loop_ops loop_ops = {
	.kick = loop_kick,
	.cancel = loop_cancel,
	.wait = loop_wait,
	.wait_slot = loop_wait_slot,
};
