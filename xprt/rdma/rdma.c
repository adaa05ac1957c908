// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RDMA transport: the send path and the transport's lifetime.  The
 * services its upper-layer bindings use (see xprt/rdma/rdma.h) are in
 * rdma_ulp.c, connections in rdma_conn.c, the receive side (the poller)
 * in rdma_rx.c.
 *
 * Sending.  The core hands a batch of up to 16 requests under its
 * transmit lock.  The binding marshals each one into a gather list (its
 * header area, the request's send buffer, nothing copied for small calls
 * beyond a pull-up of short payloads into the send buffer's spare room);
 * all Sends of the batch are chained into one ibv_post_send() (one
 * doorbell).  Only every signal_every-th Send asks for a completion (and
 * any Send that leaves fewer free slots than that, so a completion is
 * always on its way when the queue fills): a completion retires every
 * Send before it, and its wr_id says how many.  Buffers need no Send
 * completion to be reused: they stay registered for the pool's life, and
 * a reply proves the Send's data reached the server.
 *
 * Retransmission never reuses a connection (credits are per connection):
 * the core turns a retransmit of a request already sent on the current
 * connection into a disconnect (LX_XPRT_TP_NO_SAME_CONN_RESEND), and the
 * reconnect resends everything in flight.  A message expecting no reply
 * is refused (LX_XPRT_TP_NEED_REPLY): it would leave a credit unaccounted.
 *
 * Memory registration: the pool's slabs once per device (pool hook), the
 * transport's own header areas and receive buffers once per device.
 * Chunks: a memory window per segment bound in the Send's chain
 * (rdma_win.c), or, without windows, a registration per call or through
 * the cache (rdma_mr.c).  With windows and registered memory nothing on
 * the send path makes a system call but the doorbell.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "xprt/rdma/rdma_int.h"
#include "xprt/rdma/rdma_verbs.h"

#define RDMA_DEF_INLINE	    4096u
#define RDMA_DEF_RECV_BATCH 8u

/* ---------------------------------------------------------------- send */

/* The core decided the request fails before it was posted: let the core
 * complete it as if sent.  Transmit lock held: lx_xprt_req_fail() would take
 * it again, so decide the outcome here directly. */
static void lx_xr_fail_unsent(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			      int err)
{
	if (lx_xprt_claim_outcome(rq, err))
		lx_xprt_rx_unlink(x, rq);
}

static int lx_xr_send(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		      unsigned int n, unsigned int *nsent, bool more)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct lx_xr_conn *c = tp->conn;
	struct ibv_send_wr *wr = tp->wr, *bad = NULL, *head = NULL;
	struct ibv_send_wr **tail = &head;
	struct lx_xprt_rdma_send *snd = tp->snd;
	unsigned int widx[LX_XPRT_XMIT_BATCH]; /* request index of each WR */
	unsigned int i, nwr = 0, ok = n, recvs = 0, j, b, nsig = 0;
	int free_slots, used = 0, r;

	(void)more; /* the batch is one doorbell already */
	*nsent = 0;
	if (!c)
		return -ENOTCONN;
	tp->sq_wait_seq = atomic_load(&tp->sq_seq);
	free_slots = atomic_load(&c->sq_free);
	for (i = 0; i < n; i++) {
		struct lx_xprt_rqst *rq = reqs[i];
		struct lx_xprt_rdma_slot *s = &tp->slots[rq->pub.slot];
		struct lx_xprt_rdma_send *sn = &snd[nwr];
		bool sig;

		/* room for the largest call: its binds, its Send and the
		 * invalidations it reserves */
		if (free_slots - used < (int)c->max_wr_call) {
			lx_xr_ctr_add(tp, RC_SQ_FULL, 1);
			ok = i;
			break;
		}
		sn->nsge = 0;
		sn->bytes = 0;
		sn->nbind = 0;
		r = tp->ulp->marshal(x, rq, s, sn);
		if (r) {
			lx_xr_win_unposted(x, s);
			lx_xr_fail_unsent(x, rq, r);
			continue;
		}
		if (sn->nbind)
			s->inv_reserved = sn->nbind;
		lx_xprt_rdma_slot_publish(s);
		if (tp->ulp->per_request_recv) {
			/* trans_rdma: a receive per request, unless one
			 * left by a flushed request is still posted */
			int e = atomic_load(&tp->excess);

			while (e > 0 && !atomic_compare_exchange_weak(
						&tp->excess, &e, e - 1))
				;
			if (e <= 0)
				recvs++;
			s->recv_cookie = c->cookie;
			atomic_store(&s->got_reply, false);
		}
		used += 1 + 2 * (int)sn->nbind;
		c->unsignaled += 1 + sn->nbind;
		sig = c->unsignaled >= c->signal_every ||
		      free_slots - used <= (int)c->signal_every;
		/* its window binds first, in the same chain (one doorbell) */
		for (b = 0; b < sn->nbind; b++) {
			*tail = &sn->bind[b];
			tail = &sn->bind[b].next;
		}
		/* (the rest of the work request stays zero: tp->wr) */
		wr[nwr].wr_id = 0;
		wr[nwr].sg_list = sn->sge;
		wr[nwr].num_sge = (int)sn->nsge;
		wr[nwr].opcode = IBV_WR_SEND;
		wr[nwr].send_flags = 0;
		if (sig) {
			/* its completion retires it and the unsignaled
			 * work requests before it */
			wr[nwr].send_flags = IBV_SEND_SIGNALED;
			wr[nwr].wr_id = c->unsignaled;
			c->unsignaled = 0;
			nsig++;
		}
		rq->tx_done = rq->tx_total;
		widx[nwr] = i;
		*tail = &wr[nwr];
		tail = &wr[nwr].next;
		nwr++;
	}
	*tail = NULL;
	if (recvs) {
		/* receives before the Sends they answer */
		r = lx_xr_post_recvs(tp, c, recvs);
		if (r < 0)
			goto out_unposted;
		if ((unsigned int)r < recvs) {
			r = -ENOBUFS;
			goto out_unposted;
		}
	}
	if (head) {
		atomic_fetch_sub(&c->sq_free, used);
		/* before the post: the poller may see the completion first
		 * (a failed post leaves it high: more polls, nothing lost) */
		if (nsig)
			atomic_fetch_add(&c->sig_out, (int)nsig);
		r = xv_post_send(c->qp, head, &bad);
		lx_xr_ctr_add(tp, RC_SEND_DOORBELLS, 1);
		if (r) {
			/* work requests from bad on were not posted: the
			 * connection is lost, its sweep takes the windows */
			for (j = 0; j < nwr; j++) {
				for (b = 0; b < snd[j].nbind; b++)
					if (&snd[j].bind[b] == bad)
						break;
				lx_xr_win_posted(&snd[j], b);
				if (b < snd[j].nbind || &wr[j] == bad)
					break;
			}
			lx_xr_ctr_add(tp, RC_SENDS, j);
			*nsent = j ? widx[j - 1] + 1 : 0;
			return r;
		}
		lx_xr_ctr_add(tp, RC_SENDS, nwr);
		for (j = 0; j < nwr; j++) {
			lx_xr_win_posted(&snd[j], snd[j].nbind);
			if (wr[j].send_flags & IBV_SEND_SIGNALED)
				lx_xr_ctr_add(tp, RC_SENDS_SIGNALED, 1);
		}
	}
	*nsent = ok;
	return ok == n ? 0 : -EAGAIN;

out_unposted:
	for (j = 0; j < nwr; j++)
		lx_xr_win_unposted(x, &tp->slots[reqs[widx[j]]->pub.slot]);
	return r;
}

static void lx_xr_wait_writable(struct lx_xprt *x, int timeout_ms)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int seen = tp->sq_wait_seq;

	atomic_fetch_add(&tp->sq_waiters, 1);
	/* the poller arms the send CQ only while someone waits here */
	lx_xr_kick_poller(tp);
	if (atomic_load(&tp->sq_seq) == seen)
		lx_xprt_futex_wait(&tp->sq_seq, seen,
				   (int64_t)timeout_ms * 1000000);
	atomic_fetch_sub(&tp->sq_waiters, 1);
}

static void lx_xr_kick_rx(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	atomic_store(&tp->timer_kick, true);
	lx_xr_kick_poller(tp);
}

/* Core hook: the request's outcome is decided, done() comes next. */
static void lx_xr_release(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			  int status)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct lx_xprt_rdma_slot *s = &tp->slots[rq->pub.slot];

	tp->ulp->release(x, rq, s, status);
	/* windows (deallocated when still live: no reply came, or it was
	 * refused), then the registrations under them */
	lx_xprt_rdma_slot_unreg(x, s, status != 0);
	if (tp->ulp->per_request_recv && s->recv_cookie) {
		/* its receive stays posted with no reply coming: the next
		 * request uses it (trans_rdma's excess_rc) */
		if (!atomic_load(&s->got_reply) &&
		    s->recv_cookie == atomic_load(&x->cookie) &&
		    atomic_load(&x->state) == LX_XPRT_CONNECTED) {
			atomic_fetch_add(&tp->excess, 1);
			lx_xr_ctr_add(tp, RC_EXCESS, 1);
		}
		s->recv_cookie = 0;
	}
}

/* ------------------------------------------------------------ lifetime */

static int lx_xr_resolve_opts(struct lx_xprt *x, struct lx_xr_tp *tp)
{
	struct lx_xprt_rdma_opts *o = &tp->o;

	if (x->opts.rdma)
		*o = *(const struct lx_xprt_rdma_opts *)x->opts.rdma;
	tp->ulp = o->ulp;
	if (!tp->ulp) {
		/* whole messages need a framing that carries its own size */
		if (x->framing && !x->framing->keep_hdr)
			return -EPROTONOSUPPORT;
		tp->ulp = &lx_xprt_rdma_ulp_msg;
	}
	if (!x->framing)
		x->framing = tp->ulp->framing;
	if (!o->inline_send)
		o->inline_send = RDMA_DEF_INLINE;
	if (!o->inline_recv)
		o->inline_recv = RDMA_DEF_INLINE;
	if (o->inline_send < 1024 || o->inline_send > 65536 ||
	    (o->inline_send & 1023) || o->inline_recv < 1024 ||
	    o->inline_recv > 65536 || (o->inline_recv & 1023))
		return -EINVAL;
	if (!o->signal_every)
		o->signal_every = LX_XPRT_MAX(x->max_reqs / 8, 1u);
	if (!o->recv_batch)
		o->recv_batch = RDMA_DEF_RECV_BATCH;
	if (!o->rnr_retry_set)
		o->rnr_retry = tp->ulp->def_rnr_retry;
	if (o->rnr_retry > 7 || o->reg_mode > LX_XPRT_RDMA_REG_CACHE_UNSAFE ||
	    o->ack_timeout > 31 || (o->max_seg_size && o->max_seg_size < 4096))
		return -EINVAL;
	return 0;
}

/* Per-slot header areas and ULP state, receive buffers. */
static int lx_xr_alloc_areas(struct lx_xprt *x, struct lx_xr_tp *tp)
{
	size_t hsz = tp->ulp->hdr_size, psz;
	unsigned int i;

	tp->slots = calloc(x->max_reqs, sizeof(*tp->slots));
	if (!tp->slots)
		return -ENOMEM;
	tp->hdr_area_len = hsz * x->max_reqs;
	if (tp->hdr_area_len &&
	    posix_memalign((void **)&tp->hdr_area, 4096, tp->hdr_area_len))
		return -ENOMEM;
	psz = (tp->ulp->slot_priv + 15) & ~(size_t)15;
	if (psz) {
		tp->ulp_area = calloc(x->max_reqs, psz);
		if (!tp->ulp_area)
			return -ENOMEM;
	}
	for (i = 0; i < x->max_reqs; i++) {
		tp->slots[i].hdr = tp->hdr_area ? tp->hdr_area + i * hsz : NULL;
		tp->slots[i].ulp = psz ? (char *)tp->ulp_area + i * psz : NULL;
	}
	tp->snd = calloc(LX_XPRT_XMIT_BATCH, sizeof(*tp->snd));
	tp->wr = calloc(LX_XPRT_XMIT_BATCH, sizeof(*tp->wr));
	if (!tp->snd || !tp->wr)
		return -ENOMEM;
	tp->rbuf_size = tp->ulp->recv_size(x, &tp->o);
	/* the credit window (or one per request), a batch beyond it, and
	 * one for an unexpected message */
	tp->nrbufs = x->max_reqs + tp->o.recv_batch + 1;
	if (posix_memalign((void **)&tp->rbufs, 4096,
			   tp->rbuf_size * tp->nrbufs))
		return -ENOMEM;
	tp->rfree = calloc(tp->nrbufs, sizeof(*tp->rfree));
	if (!tp->rfree)
		return -ENOMEM;
	return 0;
}

static void lx_xr_free_areas(struct lx_xr_tp *tp)
{
	free(tp->snd);
	free(tp->wr);
	free(tp->rfree);
	free(tp->rbufs);
	free(tp->ulp_area);
	free(tp->hdr_area);
	free(tp->slots);
}

static void lx_xr_teardown(struct lx_xprt *x);

static int lx_xr_setup(struct lx_xprt *x)
{
	struct lx_xr_tp *tp;
	int r;

	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	x->tp = tp;
	tp->x = x;
	tp->evfd = -1;
	lx_xprt_lock_init(&tp->rx_role);
	atomic_init(&tp->watch, true);
	tp->reg_dev = -1;
	tp->mw_dev = -1;
	r = -pthread_mutex_init(&tp->lock, NULL);
	if (r)
		goto out_free;
	lx_xprt_lock_init(&tp->mw_lock);
	lx_xprt_lock_init(&tp->rlock);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		r = -pthread_cond_init(&tp->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (r)
		goto out_lock;
	r = lx_xr_resolve_opts(x, tp);
	if (r)
		goto out_cond;
	r = lx_xprt_rdma_mrc_init(
		&tp->mrc, tp->o.reg_mode == LX_XPRT_RDMA_REG_CACHE_UNSAFE,
		tp->o.reg_cache_entries);
	if (r)
		goto out_cond;
	r = lx_xr_alloc_areas(x, tp);
	if (r)
		goto out_areas;
	r = lx_xprt_resolve(x, &tp->dst, NULL);
	if (r)
		goto out_areas;
	tp->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tp->evfd < 0) {
		r = xv_errno();
		goto out_areas;
	}
	r = -pthread_create(&tp->poller, NULL, lx_xr_poller_main, x);
	if (r)
		goto out_evfd;
	tp->poller_started = true;
	return 0;

out_evfd:
	close(tp->evfd);
out_areas:
	lx_xr_free_areas(tp);
	lx_xprt_rdma_mrc_destroy(&tp->mrc);
out_cond:
	pthread_cond_destroy(&tp->cond);
out_lock:
	pthread_mutex_destroy(&tp->lock);
out_free:
	free(tp);
	x->tp = NULL;
	return r;
}

static void lx_xr_teardown(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int i;

	if (!tp)
		return;
	atomic_store(&tp->stop, true);
	lx_xr_kick_poller(tp);
	if (tp->poller_started)
		pthread_join(tp->poller, NULL);
	if (tp->conn) {
		atomic_store(&tp->conn->dead, true);
		rdma_disconnect(tp->conn->id);
	}
	/* windows before the queue pair they are bound to; requests still
	 * waiting for an invalidation complete here */
	lx_xr_win_sweep(x);
	lx_xr_win_free_all(x);
	if (tp->conn) {
		lx_xr_conn_free(tp->conn);
		tp->conn = NULL;
	}
	for (i = 0; i < x->max_reqs; i++)
		lx_xprt_rdma_slot_unreg(x, &tp->slots[i], true);
	lx_xprt_rdma_mrc_destroy(&tp->mrc);
	xv_dereg_mr(tp->hdr_mr);
	xv_dereg_mr(tp->rbuf_mr);
	lx_xr_free_areas(tp);
	close(tp->evfd);
	pthread_cond_destroy(&tp->cond);
	pthread_mutex_destroy(&tp->lock);
	free(tp);
	x->tp = NULL;
}

/* What lx_xr_reg_own() pins, in whole pages as the kernel charges them
 * to RLIMIT_MEMLOCK (0 before lx_xr_alloc_areas()). */
static size_t lx_xr_reg_bytes(const struct lx_xprt *x)
{
	const struct lx_xr_tp *tp = x->tp;
	const size_t pg = 4096;

	if (!tp)
		return 0;
	return (tp->hdr_area_len + pg - 1) / pg * pg +
	       (tp->rbuf_size * tp->nrbufs + pg - 1) / pg * pg;
}

const struct lx_xprt_transport_ops lx_xprt_rdma_ops = {
	.name = "rdma",
	.flags = LX_XPRT_TP_NO_SAME_CONN_RESEND | LX_XPRT_TP_NEED_REPLY |
		 LX_XPRT_TP_RECONNECT_IDLE,
	.setup = lx_xr_setup,
	.connect = lx_xr_connect,
	.shutdown = lx_xr_shutdown,
	.reap = lx_xr_reap,
	.send = lx_xr_send,
	.wait_writable = lx_xr_wait_writable,
	.kick_rx = lx_xr_kick_rx,
	.submitted = lx_xr_submitted,
	.wait = lx_xr_wait,
	.teardown = lx_xr_teardown,
	.release = lx_xr_release,
	.pool_reg = &lx_xprt_rdma_pool_reg_ops,
	.reg_bytes = lx_xr_reg_bytes,
};

/* ------------------------------------------------------------- public */

int lx_xprt_rdma_stats(const struct lx_xprt *x, struct lx_xprt_rdma_stats *st)
{
	struct lx_xr_tp *tp;

	if (!x || !st || x->ops != &lx_xprt_rdma_ops || !x->tp)
		return -EINVAL;
	tp = lx_xr_tp_of(x);
	memset(st, 0, sizeof(*st));
	st->credits = lx_xprt_cong_window(&((struct lx_xprt *)x)->cong);
	st->max_credits = atomic_load(&tp->max_credits);
	pthread_mutex_lock(&tp->lock);
	st->reg_mode = tp->o.reg_mode == LX_XPRT_RDMA_REG_CACHE_UNSAFE ?
			       LX_XPRT_RDMA_REG_CACHE_UNSAFE :
			       LX_XPRT_RDMA_REG_PER_IO;
	if (tp->conn) {
		const struct lx_xprt_rdma_dev *d =
			lx_xprt_rdma_dev_get(tp->conn->params.dev);

		st->inline_send = tp->conn->params.inline_send;
		st->inline_recv = tp->conn->params.inline_recv;
		if (tp->conn->params.windows)
			st->reg_mode = LX_XPRT_RDMA_REG_WINDOW;
		st->remote_inv_offered = tp->conn->params.remote_inv;
		st->mw_type = d ? d->mw_type : 0;
	}
	pthread_mutex_unlock(&tp->lock);
	st->recv_doorbells = atomic_load(&tp->ctr[RC_RECV_DOORBELLS]);
	st->recvs_posted = atomic_load(&tp->ctr[RC_RECVS_POSTED]);
	st->send_doorbells = atomic_load(&tp->ctr[RC_SEND_DOORBELLS]);
	st->sends = atomic_load(&tp->ctr[RC_SENDS]);
	st->sends_signaled = atomic_load(&tp->ctr[RC_SENDS_SIGNALED]);
	st->sq_full = atomic_load(&tp->ctr[RC_SQ_FULL]);
	st->cq_events = atomic_load(&tp->ctr[RC_CQ_EVENTS]);
	st->polls = atomic_load(&tp->ctr[RC_POLLS]);
	st->excess_recvs = atomic_load(&tp->ctr[RC_EXCESS]);
	st->connect_attempts = atomic_load(&tp->ctr[RC_CONNECTS]);
	st->connect_failures = atomic_load(&tp->ctr[RC_CONNECT_FAILS]);
	st->last_connect_error = atomic_load(&tp->last_connect_error);
	st->last_connect_us = atomic_load(&tp->last_connect_ns) / 1000;
	st->read_chunks =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_READ_CHUNKS]);
	st->pos0_chunks =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_POS0_CHUNKS]);
	st->write_chunks =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WRITE_CHUNKS]);
	st->reply_chunks =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_REPLY_CHUNKS]);
	st->bad_headers =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_BAD_HEADERS]);
	st->rdma_errors =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_RDMA_ERRORS]);
	st->win_binds = atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_BINDS]);
	st->win_remote_inv =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_REMOTE_INV]);
	st->win_local_inv =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_LOCAL_INV]);
	st->win_deallocs =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_DEALLOCS]);
	st->win_allocs = atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_ALLOCS]);
	st->win_bad_inv =
		atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_WIN_BAD_INV]);
	st->inv_waits = atomic_load(&tp->ulp_ctr[LX_XPRT_RDMA_ST_INV_WAITS]);
	{
		long long live = atomic_load(&tp->win_live);

		st->win_live = live > 0 ? (uint64_t)live : 0;
	}
	st->regs = atomic_load(&tp->mrc.regs);
	st->deregs = atomic_load(&tp->mrc.deregs);
	st->reg_ns = atomic_load(&tp->mrc.reg_ns);
	st->reg_hits = atomic_load(&tp->mrc.hits);
	return 0;
}

int lx_xprt_rdma_reg_flush(struct lx_xprt *x)
{
	if (!x || x->ops != &lx_xprt_rdma_ops || !x->tp)
		return -EINVAL;
	if (lx_xprt_forked(x))
		return -ECHILD; /* the parent's registrations */
	lx_xprt_rdma_mrc_flush(&lx_xr_tp_of(x)->mrc);
	return 0;
}
