// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Memory windows: what a server may touch of our memory, per chunk
 * segment, for one call (the userspace counterpart of Linux's FRWR).
 *
 * Memory is registered once with local access and the right to bind
 * windows (pool slabs, rdma_dev.c; caller regions, rdma_mem.c); for each
 * chunk segment of a call a type 2 window is bound by an IBV_WR_BIND_MW
 * work request chained in front of the call's Send - one doorbell for
 * both - over exactly the segment, with only the access the chunk needs,
 * and a key whose low byte was rotated (ibv_inc_rkey), so a key of an
 * earlier call never opens the window again.  Type 2 windows are tied to
 * the queue pair that bound them: another connection, even of this
 * process, cannot use the key.
 *
 * Every end of a call takes the windows away before done() hands the
 * memory back to its owner:
 *
 *   reply, remote     the server sent its reply With Invalidate (we offer
 *                     it in the connection's private data, RFC 8797); the
 *                     completion's invalidated key must be one of the
 *                     call's live windows, which is then dead.  Any other
 *                     key is a protocol violation that may have killed a
 *                     window under another call: the reply fails and the
 *                     connection is dropped (whose loss deallocates every
 *                     window instead of invalidating it again).
 *   reply, local      windows still live get an IBV_WR_LOCAL_INV each;
 *                     those of all replies of one poll batch go out in one
 *                     chained post.  The request stays pinned (as if its
 *                     reply were still being placed: the server could
 *                     still write) until the invalidation of its last
 *                     window completes; then the pin drops and done()
 *                     runs.  The kernel nfsd (6.1) sends With Invalidate
 *                     only for a call with exactly one distinct key, so
 *                     calls with several segments come this way.
 *   no reply          timeout, cancel, shutdown, a connection lost while
 *                     the call waits: the windows are deallocated
 *                     (ibv_dealloc_mw), synchronously, in release - rare
 *                     ends, so two system calls per window are fine.  Not
 *                     a local invalidation: a window left free under its
 *                     last key would meet the server's late reply With
 *                     Invalidate for that key, which breaks the queue pair
 *                     on hardware and panics rxe 6.1 (it dereferences the
 *                     free window's NULL queue pair; reproduced in the
 *                     test guest), while a deallocated window's key is
 *                     simply unknown.
 *   connection lost   a queue pair in error can execute no local
 *                     invalidation, and rxe keeps a queue pair with bound
 *                     windows from being destroyed (its destroy stalled
 *                     for 50 s in the guest).  Before the dead queue pair
 *                     is destroyed (reap) every live window is
 *                     deallocated; requests waiting for a local
 *                     invalidation lose their pin; requests that will be
 *                     resent are marked unprepared, so the resend binds
 *                     fresh windows on the new queue pair.
 *
 * Send queue space: a call marshalled with n windows takes 1 + n entries
 * (its binds and its Send) and reserves n more for the invalidations, so
 * a local invalidation never waits for room; a remote invalidation or a
 * deallocation gives its reservation back.  The queue is sized for three
 * windows per credit (rdma_conn.c).
 *
 * Soft-RoCE notes (kernel 6.1, rdma-core 44), from the guest: a window's
 * access rights and queue pair are enforced, but an RDMA Write through a
 * valid window is checked only against the underlying registration's
 * bounds, not the window's (the responder checks mr, not mw, ranges): on
 * rxe a live window exposes its whole memory registration (a pool slab, a
 * caller region) for as long as the call lasts.  Hardware checks the
 * window.  Its receive completions flag a Send With Invalidate with the
 * kernel's bit, see rdma_dev.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xprt/rdma/rdma_int.h"
#include "xprt/rdma/rdma_verbs.h"

static void win_stat(struct lx_xr_tp *tp, enum lx_xprt_rdma_stat st, uint64_t n)
{
	atomic_fetch_add_explicit(&tp->ulp_ctr[st], n, memory_order_relaxed);
}

/* The window is no longer live (its bind was not posted, or it was
 * invalidated, or it is being deallocated). */
static void win_dead(struct lx_xr_tp *tp, struct lx_xprt_rdma_win *w)
{
	w->live = false;
	lx_xprt_rdma_mem_put(w->mem);
	w->mem = NULL;
	atomic_fetch_sub_explicit(&tp->win_live, 1, memory_order_relaxed);
}

/*
 * Idle windows are the transport's, not a slot's: a slot takes one per
 * chunk segment at bind and gives it back once it is invalidated (free on
 * the device, ready to be bound again under the next key), so their
 * number follows the calls on the wire (the credits), not the slots (a
 * benchmark 16 jobs x 1024 deep has 16,385 of them).
 */
static struct ibv_mw *mw_get(struct lx_xr_tp *tp)
{
	struct ibv_mw *mw = NULL;

	lx_xprt_lock(&tp->mw_lock);
	if (tp->nmwfree)
		mw = tp->mwfree[--tp->nmwfree];
	lx_xprt_unlock(&tp->mw_lock);
	return mw;
}

/* @mw is free on the device (invalidated, or never bound): keep it */
static void mw_put(struct lx_xr_tp *tp, struct ibv_mw *mw)
{
	lx_xprt_lock(&tp->mw_lock);
	if (tp->nmwfree == tp->capmwfree) {
		unsigned int cap = tp->capmwfree ? 2 * tp->capmwfree : 64;
		struct ibv_mw **p = realloc(tp->mwfree, cap * sizeof(*p));

		if (!p) {
			lx_xprt_unlock(&tp->mw_lock);
			ibv_dealloc_mw(mw);
			return;
		}
		tp->mwfree = p;
		tp->capmwfree = cap;
	}
	tp->mwfree[tp->nmwfree++] = mw;
	lx_xprt_unlock(&tp->mw_lock);
}

/* invalidated (or never bound): the window goes back to the free ones */
static void win_retire(struct lx_xr_tp *tp, struct lx_xprt_rdma_win *w)
{
	if (w->live)
		win_dead(tp, w);
	if (w->mw)
		mw_put(tp, w->mw);
	w->mw = NULL;
}

static void win_dealloc(struct lx_xr_tp *tp, struct lx_xprt_rdma_win *w)
{
	if (w->live) {
		win_dead(tp, w);
		win_stat(tp, LX_XPRT_RDMA_ST_WIN_DEALLOCS, 1);
	}
	if (w->mw && ibv_dealloc_mw(w->mw))
		lx_xprt_log(tp->x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: rdma: ibv_dealloc_mw failed",
			    tp->x->peer);
	w->mw = NULL;
}

/* ------------------------------------------------------------ binding */

int lx_xr_win_bind(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
		   struct lx_xprt_rdma_send *snd, struct ibv_mr *mr,
		   struct lx_xprt_rdma_mem *mem, void *addr, size_t len,
		   bool write, uint32_t *rkey)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	const struct lx_xprt_rdma_params *p = &tp->conn->params;
	const struct lx_xprt_rdma_dev *d = lx_xprt_rdma_dev_get(p->dev);
	struct lx_xprt_rdma_win *w;
	struct ibv_send_wr *wr;

	if (s->nwin >= LX_XPRT_RDMA_SLOT_WINS) {
		lx_xprt_rdma_mem_put(mem);
		return -E2BIG;
	}
	w = &s->win[s->nwin];
	if (!w->mw)
		w->mw = mw_get(tp);
	if (!w->mw) {
		w->mw = ibv_alloc_mw(d->pd, IBV_MW_TYPE_2);
		if (!w->mw) {
			lx_xprt_rdma_mem_put(mem);
			return xv_errno();
		}
		win_stat(tp, LX_XPRT_RDMA_ST_WIN_ALLOCS, 1);
	}
	/* @snd is the transport's (tp->snd, zeroed once): a bind writes
	 * every field of its own and no other, the chain sets next */
	wr = &snd->bind[snd->nbind++];
	wr->opcode = IBV_WR_BIND_MW;
	wr->bind_mw.mw = w->mw;
	/* the provider reads mw->rkey (the current key) when the bind is
	 * posted; it becomes the new one after (lx_xr_win_posted) */
	wr->bind_mw.rkey = ibv_inc_rkey(w->mw->rkey);
	wr->bind_mw.bind_info.mr = mr;
	wr->bind_mw.bind_info.addr = (uint64_t)(uintptr_t)addr;
	wr->bind_mw.bind_info.length = len;
	wr->bind_mw.bind_info.mw_access_flags =
		write ? IBV_ACCESS_REMOTE_WRITE : IBV_ACCESS_REMOTE_READ;
	w->rkey = wr->bind_mw.rkey;
	w->mem = mem;
	w->live = true;
	atomic_fetch_add_explicit(&tp->win_live, 1, memory_order_relaxed);
	s->nwin++;
	s->win_cookie = p->cookie;
	win_stat(tp, LX_XPRT_RDMA_ST_WIN_BINDS, 1);
	*rkey = w->rkey;
	return 0;
}

void lx_xr_win_dev(struct lx_xprt *x, unsigned int dev)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	if (tp->mw_dev == (int)dev)
		return;
	/* windows live in a device's protection domain: the idle ones of
	 * another device go (a slot holds none between calls) */
	lx_xprt_lock(&tp->mw_lock);
	while (tp->nmwfree)
		ibv_dealloc_mw(tp->mwfree[--tp->nmwfree]);
	tp->mw_dev = (int)dev;
	lx_xprt_unlock(&tp->mw_lock);
}

void lx_xr_win_unposted(struct lx_xprt *x, struct lx_xprt_rdma_slot *s)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int i;

	for (i = 0; i < s->nwin; i++)
		win_retire(tp, &s->win[i]);
	s->nwin = 0;
	s->inv_reserved = 0;
	s->prepared = false;
}

void lx_xr_win_posted(struct lx_xprt_rdma_send *snd, unsigned int nbind)
{
	unsigned int i;

	for (i = 0; i < nbind; i++)
		snd->bind[i].bind_mw.mw->rkey = snd->bind[i].bind_mw.rkey;
}

/* --------------------------------------------------------- completion */

/* Send queue entries reserved for @s's invalidations go back to @c. */
static void win_unreserve(struct lx_xprt_rdma_slot *s, struct lx_xr_conn *c,
			  unsigned int n)
{
	if (n > s->inv_reserved)
		n = s->inv_reserved;
	s->inv_reserved -= n;
	if (n && c && c->cookie == s->win_cookie)
		atomic_fetch_add(&c->sq_free, (int)n);
}

void lx_xprt_rdma_complete(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			   int status)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct lx_xprt_rdma_slot *s = &tp->slots[rq->pub.slot];
	struct lx_xr_conn *c = tp->rx_conn;
	unsigned int i, n, live = 0;
	bool bad = false;

	if (tp->rx_inv) {
		/* the reply came With Invalidate: of one of ours, or else */
		tp->rx_inv = false;
		for (i = 0; i < s->nwin; i++)
			if (s->win[i].live && s->win[i].rkey == tp->rx_inv_rkey)
				break;
		if (i < s->nwin) {
			win_retire(tp, &s->win[i]);
			win_unreserve(s, c, 1);
			win_stat(tp, LX_XPRT_RDMA_ST_WIN_REMOTE_INV, 1);
		} else {
			win_stat(tp, LX_XPRT_RDMA_ST_WIN_BAD_INV, 1);
			bad = true;
			if (!status)
				status = -EBADMSG;
			/* first: no invalidation may be posted on it now */
			if (c)
				lx_xprt_conn_lost(x, c->cookie, -EPROTO);
		}
	}
	if (!lx_xprt_rx_decide(x, rq, status)) {
		/* timed out or cancelled while we looked: its release
		 * deallocates what is still live */
		lx_xprt_rx_unpin(x, rq);
		return;
	}
	for (i = 0; i < s->nwin; i++)
		live += s->win[i].live;
	if (!live || bad || !c || atomic_load(&c->dead)) {
		lx_xprt_rx_unpin(x, rq);
		return;
	}
	/* invalidate what is live; the pin holds done() back until the
	 * last one completed (lx_xr_inv_done) */
	if (tp->ninv + live > LX_XR_INV_BATCH)
		lx_xr_inv_flush(x, c);
	/* the entries were reserved when the call was marshalled */
	s->inv_reserved -= LX_XPRT_MIN(live, s->inv_reserved);
	for (i = 0, n = live; i < s->nwin; i++) {
		struct ibv_send_wr *wr;

		if (!s->win[i].live)
			continue;
		wr = &tp->inv_wr[tp->ninv++];
		memset(wr, 0, sizeof(*wr));
		wr->opcode = IBV_WR_LOCAL_INV;
		wr->invalidate_rkey = s->win[i].rkey;
		if (!--n) {
			/* its completion retires the slot's chain */
			wr->send_flags = IBV_SEND_SIGNALED;
			wr->wr_id = LX_XR_WR_INV |
				    (uint64_t)rq->pub.slot << 32 | live;
		}
	}
	s->inv_pending = true;
	atomic_fetch_add(&tp->inv_outstanding, 1);
	win_stat(tp, LX_XPRT_RDMA_ST_INV_WAITS, 1);
}

void lx_xr__inv_flush(struct lx_xprt *x, struct lx_xr_conn *c)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct ibv_send_wr *bad = NULL;
	unsigned int i, n = tp->ninv, nsig = 0;
	int r;

	if (!n)
		return;
	tp->ninv = 0;
	if (atomic_load(&c->dead))
		return; /* the sweep deallocates them and drops the pins */
	for (i = 0; i < n; i++) {
		tp->inv_wr[i].next = i + 1 < n ? &tp->inv_wr[i + 1] : NULL;
		nsig += (tp->inv_wr[i].send_flags & IBV_SEND_SIGNALED) != 0;
	}
	/* the poller polls the send CQ for them (see lx_xr_conn.sig_out) */
	atomic_fetch_add(&c->sig_out, (int)nsig);
	r = xv_post_send(c->qp, tp->inv_wr, &bad);
	lx_xr_ctr_add(tp, RC_SEND_DOORBELLS, 1);
	if (r) {
		lx_xprt_log(x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: rdma: local invalidation not posted: "
			    "%s",
			    x->peer, strerror(-r));
		/* the connection goes; its sweep handles the pins */
		lx_xprt_conn_lost(x, c->cookie, r);
	}
}

void lx_xr_inv_done(struct lx_xprt *x, unsigned int slot)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct lx_xprt_rdma_slot *s;
	unsigned int i, n = 0;

	if (slot >= x->max_reqs)
		return;
	s = &tp->slots[slot];
	if (!s->inv_pending)
		return;
	for (i = 0; i < s->nwin; i++)
		if (s->win[i].live) {
			win_retire(tp, &s->win[i]);
			n++;
		}
	win_stat(tp, LX_XPRT_RDMA_ST_WIN_LOCAL_INV, n);
	s->inv_pending = false;
	atomic_fetch_sub(&tp->inv_outstanding, 1);
	lx_xprt_rx_unpin(x, lx_xprt_slot(x, slot));
}

/* ------------------------------------------------------------ release */

void lx_xr_win_release(struct lx_xprt *x, struct lx_xprt_rdma_slot *s)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int i, live = 0;

	for (i = 0; i < s->nwin; i++)
		live += s->win[i].live;
	if (!live && !s->inv_reserved) {
		s->nwin = 0;
		return;
	}
	/* ended without a reply (or its reply was refused): windows go
	 * before done(), deallocated rather than invalidated (see top) */
	pthread_mutex_lock(&tp->lock);
	for (i = 0; i < s->nwin; i++)
		if (s->win[i].live)
			win_dealloc(tp, &s->win[i]);
	win_unreserve(
		s, tp->conn && !atomic_load(&tp->conn->dead) ? tp->conn : NULL,
		s->inv_reserved);
	s->inv_reserved = 0;
	s->nwin = 0;
	pthread_mutex_unlock(&tp->lock);
}

/* -------------------------------------------------- dead connections */

void lx_xr_win_sweep(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int i, j;

	pthread_mutex_lock(&tp->lock);
	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rdma_slot *s = &tp->slots[i];
		bool any = false;

		for (j = 0; j < s->nwin; j++)
			if (s->win[j].live) {
				win_dealloc(tp, &s->win[j]);
				any = true;
			}
		s->inv_reserved = 0;
		if (any)
			s->prepared = false; /* a resend binds fresh ones */
		if (s->inv_pending) {
			s->inv_pending = false;
			s->nwin = 0;
			atomic_fetch_sub(&tp->inv_outstanding, 1);
			s->inv_swept = true;
		}
	}
	pthread_mutex_unlock(&tp->lock);
	/* outside the lock: done() may call back into the transport.
	 * Sweeps do not overlap (reap, then teardown), so the flag is
	 * the sweeper's own. */
	for (i = 0; i < x->max_reqs; i++)
		if (tp->slots[i].inv_swept) {
			tp->slots[i].inv_swept = false;
			lx_xprt_rx_unpin(x, lx_xprt_slot(x, i));
		}
}

void lx_xr_win_free_all(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	unsigned int i, j;

	for (i = 0; i < x->max_reqs; i++)
		for (j = 0; j < LX_XPRT_RDMA_SLOT_WINS; j++)
			win_dealloc(tp, &tp->slots[i].win[j]);
	lx_xprt_lock(&tp->mw_lock);
	while (tp->nmwfree)
		ibv_dealloc_mw(tp->mwfree[--tp->nmwfree]);
	free(tp->mwfree);
	tp->mwfree = NULL;
	tp->capmwfree = 0;
	lx_xprt_unlock(&tp->mw_lock);
}
