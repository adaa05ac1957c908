// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RDMA transport, receive side: the poller thread and receive posting.
 *
 * The poller is the transport's receive thread: it drains the receive
 * and send completion queues, hands each received message to the
 * upper-layer binding (which finds and completes its request on this
 * thread, as the TCP receive thread does), gives send queue slots back,
 * watches the connection's RDMA-CM events (a server disconnect), and runs
 * the core's request timers.
 *
 * Waiting.  Both CQs share one completion channel.  (A synchronous
 * caller on an idle connection receives its reply itself instead: see
 * "Synchronous callers" at lx_xr_wait.)  When a poll finds
 * nothing the poller arms the CQs (see rx_arm), polls once more (a
 * completion that arrived before the arming raises no event), and then
 * sleeps in poll(2)
 * on the channel, the CM event channel and an eventfd (new connection,
 * earlier timer, stop), with the earliest request deadline as timeout.
 * CQ events are acknowledged in batches (the acknowledgement takes a lock
 * in libibverbs).  With busy_poll_us set it spins that long first, which
 * only pays with a core to spare: under emulation it steals the CPU the
 * soft-RoCE kernel threads need.
 *
 * Sending from completions.  Calls started by the completion callbacks of
 * one poll batch are held back (lx_xprt_rx_batch_begin) and sent together
 * after it (lx_xprt_rx_batch_end), as the TCP receiver does: with rxe every
 * Send doorbell is a system call, and a batch of replies restarting as
 * many calls (a benchmark at depth) then costs one instead of one each.
 * The send never waits on this thread: with the send queue full it
 * returns and the transmit worker goes on.
 *
 * Receives, credit mode (RPC-over-RDMA).  The server may have one reply
 * in flight per credit it granted, so more receives must be posted than
 * the larger of the window and the credits held.  The check runs for
 * every receive completion *before* its message is processed (processing
 * can return a credit and let a new call out), and again before a grant
 * enlarges the window; when it fails, the deficit plus a batch is posted
 * in one chained ibv_post_recv(): one doorbell per recv_batch replies in
 * the steady state (the Linux client's rpcrdma_post_recvs, commit
 * e340c2d6ef2a).
 *
 * Receives, whole messages (9P): each request posts its own receive
 * before its Send (rdma.c); a request that ends without consuming its
 * receive leaves it as excess for the next request, and a message nobody
 * waits for consumes one excess receive (trans_rdma's excess_rc).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "xprt/rdma/rdma_int.h"
#include "xprt/rdma/rdma_verbs.h"

#define RX_POLL_BATCH 16
#define RX_ACK_BATCH  64u

void lx_xr_kick_poller(struct lx_xr_tp *tp)
{
	uint64_t one = 1;

	if (write(tp->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		lx_xprt_log(tp->x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: rdma: eventfd write: %s", tp->x->peer,
			    strerror(errno));
}

void lx_xr_recv_reset(struct lx_xr_tp *tp)
{
	unsigned int i;

	lx_xprt_lock(&tp->rlock);
	for (i = 0; i < tp->nrbufs; i++)
		tp->rfree[i] = i;
	tp->nfree = tp->nrbufs;
	lx_xprt_unlock(&tp->rlock);
}

static void rx_free_buf(struct lx_xr_tp *tp, unsigned int idx)
{
	lx_xprt_lock(&tp->rlock);
	if (tp->nfree < tp->nrbufs)
		tp->rfree[tp->nfree++] = idx;
	lx_xprt_unlock(&tp->rlock);
}

int lx_xr_post_recvs(struct lx_xr_tp *tp, struct lx_xr_conn *c, unsigned int n)
{
	struct ibv_recv_wr wr[RDMA_RECV_CHAIN_MAX], *bad = NULL;
	struct ibv_sge sge[RDMA_RECV_CHAIN_MAX];
	unsigned int done = 0, k, i;
	int r;

	while (done < n) {
		unsigned int want = LX_XPRT_MIN(n - done, RDMA_RECV_CHAIN_MAX);

		lx_xprt_lock(&tp->rlock);
		k = LX_XPRT_MIN(want, tp->nfree);
		for (i = 0; i < k; i++)
			wr[i].wr_id = tp->rfree[--tp->nfree];
		lx_xprt_unlock(&tp->rlock);
		if (!k)
			break;
		for (i = 0; i < k; i++) {
			sge[i].addr = (uintptr_t)(tp->rbufs +
						  wr[i].wr_id * tp->rbuf_size);
			sge[i].length = (uint32_t)tp->rbuf_size;
			sge[i].lkey = tp->rbuf_mr->lkey;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].next = i + 1 < k ? &wr[i + 1] : NULL;
		}
		/* count first: the completion may be polled before the
		 * post returns */
		atomic_fetch_add(&c->posted, (int)k);
		r = xv_post_recv(c->qp, wr, &bad);
		lx_xr_ctr_add(tp, RC_RECV_DOORBELLS, 1);
		if (r) {
			for (i = 0; i < k && &wr[i] != bad; i++)
				;
			atomic_fetch_sub(&c->posted, (int)(k - i));
			lx_xr_ctr_add(tp, RC_RECVS_POSTED, i);
			done += i;
			for (; i < k; i++)
				rx_free_buf(tp, (unsigned int)wr[i].wr_id);
			return done ? (int)done : r;
		}
		lx_xr_ctr_add(tp, RC_RECVS_POSTED, k);
		done += k;
	}
	return (int)done;
}

/* Receives the credit window needs now. */
static unsigned int rx_need(struct lx_xprt *x)
{
	return LX_XPRT_MAX(lx_xprt_cong_window(&x->cong),
			   lx_xprt_cong_held(&x->cong));
}

static void rx_top_up(struct lx_xprt *x, struct lx_xr_conn *c,
		      unsigned int need)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	int posted = atomic_load(&c->posted);

	if (posted > (int)need)
		return; /* the common case: nothing to do */
	lx_xr_post_recvs(tp, c, need - (unsigned int)posted + tp->o.recv_batch);
}

void lx_xr_replenish(struct lx_xprt *x, struct lx_xr_conn *c)
{
	rx_top_up(x, c, rx_need(x));
}

void lx_xprt_rdma_grant(struct lx_xprt *x, uint32_t credits)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	uint32_t old = lx_xprt_cong_window(&x->cong), want, seen;

	want = credits ? credits : 1; /* 0 would deadlock */
	if (want > x->max_reqs)
		want = x->max_reqs;
	seen = atomic_load(&tp->max_credits);
	if (want == old && credits <= seen)
		return; /* the common reply: the grant in force again */
	while (credits > seen &&
	       !atomic_compare_exchange_weak(&tp->max_credits, &seen, credits))
		;
	/* receives for the larger window go up before the window does:
	 * any thread may send into it the moment it is raised */
	if (want > old && tp->rx_conn)
		rx_top_up(x, tp->rx_conn, LX_XPRT_MAX(want, rx_need(x)));
	lx_xprt_cong_grant(&x->cong, credits);
	if (want > old)
		lx_xprt_credit_returned(x);
}

/* ----------------------------------------------------------- poller */

static void rx_adopt(struct lx_xr_tp *tp, struct lx_xr_conn **cp)
{
	if (*cp)
		return; /* one adopted: the poller keeps it until it detaches */
	pthread_mutex_lock(&tp->lock);
	if (!*cp && tp->conn && !tp->conn->rx_detached &&
	    tp->rx_conn != tp->conn) {
		tp->rx_conn = tp->conn;
		tp->rx_conn->armed = false;
		*cp = tp->rx_conn;
	}
	pthread_mutex_unlock(&tp->lock);
}

static void rx_detach(struct lx_xprt *x, struct lx_xr_tp *tp,
		      struct lx_xr_conn **cp, int err)
{
	struct lx_xr_conn *c = *cp;

	if (err)
		lx_xprt_conn_lost(x, c->cookie, err);
	pthread_mutex_lock(&tp->lock);
	tp->rx_conn = NULL;
	c->rx_detached = true;
	pthread_cond_broadcast(&tp->cond);
	pthread_mutex_unlock(&tp->lock);
	*cp = NULL;
	/* a worker waiting for send queue space must see the loss too */
	atomic_fetch_add(&tp->sq_seq, 1);
	lx_xprt_futex_wake(&tp->sq_seq, INT32_MAX);
}

static int wc_err(const struct lx_xprt *x, const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		return -ECONNRESET;
	lx_xprt_log(x, LX_XPRT_LOG_ERR,
		    "libxprt: %s: rdma: completion error %s (opcode %d)",
		    x->peer, ibv_wc_status_str(wc->status), wc->opcode);
	return wc->status == IBV_WC_RETRY_EXC_ERR ? -ETIMEDOUT : -EIO;
}

/* Drain both CQs once; the send CQ only while signalled work is out, or
 * when @scq says so.  Return the completions handled, or a negative errno
 * when the connection failed. */
static int rx_poll(struct lx_xprt *x, struct lx_xr_tp *tp, struct lx_xr_conn *c,
		   bool scq)
{
	struct ibv_wc wc[RX_POLL_BATCH];
	unsigned int inv_slot[RX_POLL_BATCH], ninv = 0;
	int n, i, err = 0, work;
	unsigned int freed = 0;

	n = ibv_poll_cq(c->rcq, RX_POLL_BATCH, wc);
	if (n < 0)
		return -EIO;
	work = n;
	/* calls the completions start go out together after the batch:
	 * one chained post (one doorbell, a system call with rxe) */
	if (n > 0)
		lx_xprt_rx_batch_begin(x);
	for (i = 0; i < n; i++) {
		unsigned int idx = (unsigned int)wc[i].wr_id;
		int matched;

		atomic_fetch_sub(&c->posted, 1);
		if (wc[i].status != IBV_WC_SUCCESS) {
			if (!err)
				err = wc_err(x, &wc[i]);
			rx_free_buf(tp, idx);
			continue;
		}
		if (err) {
			rx_free_buf(tp, idx);
			continue;
		}
		if (!tp->ulp->per_request_recv)
			lx_xr_replenish(x, c);
		atomic_fetch_add_explicit(&x->stats.bytes_received,
					  wc[i].byte_len, memory_order_relaxed);
		/* a Send With Invalidate: its call must own the key
		 * (lx_xprt_rdma_complete consumes it) */
		tp->rx_inv = (wc[i].wc_flags & c->inv_flags) != 0;
		tp->rx_inv_rkey = wc[i].invalidated_rkey;
		matched = tp->ulp->receive(
			x, tp->rbufs + (size_t)idx * tp->rbuf_size,
			wc[i].byte_len);
		if (tp->rx_inv) {
			/* it invalidated a key no call here owns: maybe a
			 * window under another call */
			tp->rx_inv = false;
			atomic_fetch_add_explicit(
				&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_BAD_INV], 1,
				memory_order_relaxed);
			lx_xprt_conn_lost(x, c->cookie, -EPROTO);
		}
		if (!matched && tp->ulp->per_request_recv) {
			int e = atomic_load(&tp->excess);

			while (e > 0 && !atomic_compare_exchange_weak(
						&tp->excess, &e, e - 1))
				;
		}
		rx_free_buf(tp, idx);
	}
	/* the local invalidations the replies need, in one post */
	lx_xr_inv_flush(x, c);
	if (work > 0)
		lx_xprt_rx_batch_end(x);

	/* the send CQ holds no success before a signalled work request
	 * completes: every 'signal_every'-th Send, the last invalidation of
	 * a call's windows.  A failed work request reports there too,
	 * signalled or not, and rxe may leave the receive queue unflushed
	 * then: the caller asks for a look after every sleep (@scq), as a
	 * poll on every round used to. */
	if (!scq &&
	    atomic_load_explicit(&c->sig_out, memory_order_acquire) <= 0)
		n = 0;
	else
		n = ibv_poll_cq(c->scq, RX_POLL_BATCH, wc);
	if (n < 0)
		return -EIO;
	if (n)
		atomic_fetch_sub(&c->sig_out, n);
	work += n;
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			if (!err)
				err = wc_err(x, &wc[i]);
			continue;
		}
		freed += (uint32_t)wc[i].wr_id;
		if (wc[i].wr_id & LX_XR_WR_INV)
			inv_slot[ninv++] =
				(unsigned int)(wc[i].wr_id >> 32) & 0x7fffffffu;
	}
	if (freed) {
		atomic_fetch_add(&c->sq_free, (int)freed);
		atomic_fetch_add(&tp->sq_seq, 1);
		if (atomic_load(&tp->sq_waiters))
			lx_xprt_futex_wake(&tp->sq_seq, INT32_MAX);
	}
	if (ninv) {
		/* windows invalidated: their requests' done() now */
		lx_xprt_rx_batch_begin(x);
		for (i = 0; i < (int)ninv; i++)
			lx_xr_inv_done(x, inv_slot[i]);
		lx_xprt_rx_batch_end(x);
	}
	if (work)
		lx_xr_ctr_add(tp, RC_POLLS, 1);
	return err ? err : work;
}

/* Events of an established connection: only its end matters. */
static int rx_cm_events(struct lx_xr_conn *c)
{
	struct rdma_cm_event *ev;
	int err = 0;

	while (!rdma_get_cm_event(c->ech, &ev)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
			err = -ECONNRESET;
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			err = -ENODEV;
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return err;
}

static void rx_get_cq_events(struct lx_xr_tp *tp, struct lx_xr_conn *c)
{
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_cq_event(c->cc, &cq, &ctx)) {
		lx_xr_ctr_add(tp, RC_CQ_EVENTS, 1);
		if (cq == c->scq)
			c->unacked_s++;
		else
			c->unacked_r++;
		c->armed = false;
	}
	if (c->unacked_s >= RX_ACK_BATCH) {
		ibv_ack_cq_events(c->scq, c->unacked_s);
		c->unacked_s = 0;
	}
	if (c->unacked_r >= RX_ACK_BATCH) {
		ibv_ack_cq_events(c->rcq, c->unacked_r);
		c->unacked_r = 0;
	}
}

/*
 * Ask for events before sleeping.  The receive CQ always: replies, and the
 * flush errors that report a failed connection.  The send CQ only when a
 * sender waits for send queue slots, or few are left: every arming is a
 * system call on some providers (rxe), and Send completions matter only
 * for giving slots back - and for local invalidations some request's
 * done() waits for.  Return 0 or the device's error.
 */
static int rx_arm(struct lx_xr_tp *tp, struct lx_xr_conn *c)
{
	int r = xv_req_notify(c->rcq);

	if (!r && (atomic_load(&tp->sq_waiters) ||
		   atomic_load(&tp->inv_outstanding) ||
		   atomic_load(&c->sq_free) <= 2 * (int)c->signal_every))
		r = xv_req_notify(c->scq);
	if (!r)
		c->armed = true;
	return r;
}

static int ms_until(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = lx_xprt_now_ns();
	if (deadline <= now)
		return 0;
	return (int)LX_XPRT_MIN((deadline - now + 999999) / 1000000, 60000ull);
}

/* ------------------------------------------------------ receiver role */

/* Record @err against @c for the poller, unless a failure is already. */
static void rx_set_err(struct lx_xr_conn *c, int err)
{
	int none = 0;

	atomic_compare_exchange_strong(&c->rx_err, &none, err);
}

/* The poller takes the role if it is free.  When it is not, it says so
 * (rx_deferred) and tries once more: a holder that let go between the
 * two tries either gave it to us or sees the flag after its unlock and
 * kicks us, so the poller never sleeps on a role nobody holds. */
static bool rx_role_try(struct lx_xr_tp *tp)
{
	if (lx_xprt_lock_try(&tp->rx_role))
		return true;
	atomic_store(&tp->rx_deferred, true);
	if (!lx_xprt_lock_try(&tp->rx_role))
		return false;
	atomic_store(&tp->rx_deferred, false);
	return true;
}

/* Turn the poller's watch on (not the poller itself): it may sleep
 * without the channel, so it is kicked to arm the CQs and look. */
static void rx_watch(struct lx_xr_tp *tp)
{
	if (!atomic_exchange(&tp->watch, true))
		lx_xr_kick_poller(tp);
}

void lx_xr_submitted(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	/* a synchronous caller receives itself, or turns the watch on
	 * when it cannot (lx_xr_wait) */
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	if (rq->pub.will_wait)
		return;
	/* after the core counted it submitted: a caller leaving
	 * lx_xr_wait either sees that count or we see its watch off
	 * (the fence there pairs with this one) */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&tp->watch))
		rx_watch(tp);
}

static bool rq_done(struct lx_xprt_rqst *rq)
{
	return atomic_load(&rq->done_futex) == LX_XPRT_DONE;
}

/* A synchronous caller looks up from its sleep this often: a request
 * completed elsewhere (timeout, cancel), a failure, teardown. */
#define RX_WAIT_POLL_MS 10

/*
 * Synchronous callers.  A thread waiting for its own reply (a request
 * marked will_wait, lx_xprt_req_done_wait()) takes the receiver role when
 * it is free and polls the CQs itself, as the TCP transport's tcp_wait
 * reads the socket: it arms the CQs, polls once more, sleeps in poll(2)
 * on the completion channel alone and reads the event.  A call then costs
 * what ib_send_lat -e costs plus that poll(2), on one thread, instead of
 * waking the poller, which completes the request and wakes the caller's
 * futex.  It completes whatever it polls, its own reply and others.
 *
 * While it receives, the poller's watch is off: the poller does not arm
 * the CQs nor sleep on their channel (it still reads CM events, runs the
 * timers and takes kicks).  The caller turns the watch back on when it
 * leaves with other requests in flight, an asynchronous submit turns it
 * on at once (lx_xr_submitted), and a caller that cannot take the role
 * turns it on and sleeps; each time the poller is kicked to arm and
 * look.  Purely synchronous traffic never wakes the poller.  Whatever a
 * caller cannot act on itself - a failed completion, the connection
 * reported dead - it leaves to the poller (c->rx_err) and kicks it.
 */
int lx_xr_wait(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint64_t deadline)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct pollfd pfd = {.events = POLLIN};
	struct lx_xr_conn *c;
	bool scq = false, kick = false, left;
	int err = -EAGAIN, r, ms;

	if (!lx_xprt_lock_try(&tp->rx_role)) {
		/* the poller or another caller receives: the poller must
		 * watch, for we only sleep */
		rx_watch(tp);
		return -EAGAIN;
	}
	c = tp->rx_conn; /* adopted and detached under the role only */
	if (!c || atomic_load(&c->dead) || atomic_load(&c->rx_err) ||
	    atomic_load(&tp->stop)) {
		lx_xprt_unlock(&tp->rx_role);
		atomic_store(&tp->watch, true);
		lx_xr_kick_poller(tp);
		return -EAGAIN;
	}
	atomic_store(&tp->watch, false);
	pfd.fd = c->cc->fd;
	/* armed before the first look: the reply is hardly in yet, and one
	 * that comes after the arming raises an event */
	if (!c->armed && (r = rx_arm(tp, c))) {
		rx_set_err(c, r);
		goto out;
	}
	while (!rq_done(rq)) {
		ms = RX_WAIT_POLL_MS;
		if (lx_xprt_unlikely(deadline)) {
			uint64_t now = lx_xprt_now_ns();

			if (now >= deadline) {
				err = -ETIMEDOUT;
				break;
			}
			if (deadline - now < RX_WAIT_POLL_MS * 1000000ull)
				ms = (int)((deadline - now + 999999) / 1000000);
		}
		r = rx_poll(x, tp, c, scq);
		scq = false;
		if (r < 0) {
			rx_set_err(c, r);
			break;
		}
		if (r > 0 || rq_done(rq))
			continue;
		if (atomic_load(&c->dead) || atomic_load(&c->rx_err) ||
		    atomic_load(&tp->stop))
			break;
		if (!c->armed) {
			/* after an event: arm, and look once more */
			r = rx_arm(tp, c);
			if (r) {
				rx_set_err(c, r);
				break;
			}
			continue;
		}
		if (poll(&pfd, 1, ms) > 0)
			rx_get_cq_events(tp, c);
		else
			scq = true; /* quiet: look for a failed Send too */
	}
out:
	/* anything else in flight (ours is counted complete before its
	 * done() ran), or a failure the poller must act on: the poller
	 * watches again (the fence: see lx_xr_submitted) */
	atomic_thread_fence(memory_order_seq_cst);
	left = atomic_load_explicit(&x->stats.submitted,
				    memory_order_relaxed) !=
		       atomic_load_explicit(&x->stats.completed,
					    memory_order_relaxed) ||
	       atomic_load(&c->rx_err) || atomic_load(&c->dead);
	/* a failure: the poller detaches now, whatever the watch */
	kick = atomic_load(&c->rx_err) || atomic_load(&c->dead);
	lx_xprt_unlock(&tp->rx_role);
	if (left && !atomic_exchange(&tp->watch, true))
		kick = true;
	if (atomic_exchange(&tp->rx_deferred, false))
		kick = true;
	if (kick)
		lx_xr_kick_poller(tp);
	return rq_done(rq) ? 0 : err;
}

/* ----------------------------------------------------------- poller */

void *lx_xr_poller_main(void *arg)
{
	struct lx_xprt *x = arg;
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	uint64_t next = 0, spin_end = 0, busy_ns;
	struct lx_xr_conn *c = NULL;
	struct pollfd pfd[3];
	bool woke = true;   /* the send CQ is looked at once after a sleep */
	bool ev_cq = false; /* the channel was readable: read its events */
	bool watching;	    /* this sleep is on the channel too */
	nfds_t nfds;
	int r;

	busy_ns = (uint64_t)tp->o.busy_poll_us * 1000u;
	while (!atomic_load(&tp->stop)) {
		watching = false;
		if (atomic_exchange(&tp->timer_kick, false) ||
		    (next && lx_xprt_now_ns() >= next))
			next = lx_xprt_timer_run(x);
		if (!rx_role_try(tp))
			goto sleep; /* a caller receives; it kicks us */
		rx_adopt(tp, &c);
		if (c && (atomic_load(&c->dead) || atomic_load(&c->rx_err))) {
			rx_detach(x, tp, &c, atomic_load(&c->rx_err));
			ev_cq = false;
			lx_xprt_unlock(&tp->rx_role);
			continue;
		}
		if (c && ev_cq)
			rx_get_cq_events(tp, c);
		ev_cq = false;
		if (c) {
			r = rx_poll(x, tp, c, woke);
			woke = false;
			if (r < 0) {
				rx_detach(x, tp, &c, r);
				lx_xprt_unlock(&tp->rx_role);
				continue;
			}
			if (r > 0) {
				if (busy_ns)
					spin_end = lx_xprt_now_ns() + busy_ns;
				lx_xprt_unlock(&tp->rx_role);
				continue;
			}
			if (busy_ns && lx_xprt_now_ns() < spin_end) {
				lx_xprt_unlock(&tp->rx_role);
				continue;
			}
			/* a sender waiting for send queue slots needs the
			 * send CQ watched whoever receives */
			if (atomic_load(&tp->watch) ||
			    atomic_load(&tp->sq_waiters)) {
				if (!c->armed) {
					r = rx_arm(tp, c);
					if (r)
						rx_detach(x, tp, &c, r);
					lx_xprt_unlock(&tp->rx_role);
					continue; /* poll once more: see above */
				}
				watching = true;
			}
		}
		lx_xprt_unlock(&tp->rx_role);
		/* the watch went on while we held the role: arm first */
		if (c && !watching && atomic_load(&tp->watch))
			continue;
sleep:
		pfd[0] = (struct pollfd){.fd = tp->evfd, .events = POLLIN};
		nfds = 1;
		if (c) {
			/* our c stays valid: only we detach it */
			pfd[nfds++] = (struct pollfd){.fd = c->ech->fd,
						      .events = POLLIN};
			if (watching)
				pfd[nfds++] = (struct pollfd){.fd = c->cc->fd,
							      .events = POLLIN};
		}
		r = poll(pfd, nfds, ms_until(next));
		woke = true;
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			uint64_t v;

			if (read(tp->evfd, &v, sizeof(v)) < 0 &&
			    errno != EAGAIN)
				lx_xprt_log(x, LX_XPRT_LOG_ERR,
					    "libxprt: %s: rdma: eventfd read: "
					    "%s",
					    x->peer, strerror(errno));
		}
		if (r > 0 && watching && (pfd[2].revents & POLLIN))
			ev_cq = true;
		if (r > 0 && c && (pfd[1].revents & POLLIN)) {
			/* only we read the CM channel; whoever holds the
			 * role acts on a loss (rx_err) */
			int e = rx_cm_events(c);

			if (e)
				rx_set_err(c, e);
		}
		next = lx_xprt_timer_run(x);
	}
	/* a caller receiving sees stop within RX_WAIT_POLL_MS */
	lx_xprt_lock(&tp->rx_role);
	if (c) {
		pthread_mutex_lock(&tp->lock);
		tp->rx_conn = NULL;
		c->rx_detached = true;
		pthread_cond_broadcast(&tp->cond);
		pthread_mutex_unlock(&tp->lock);
	}
	lx_xprt_unlock(&tp->rx_role);
	return NULL;
}
