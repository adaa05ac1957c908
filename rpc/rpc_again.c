// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Calls sent again after their reply, under a new XID: NFS3ERR_JUKEBOX
 * ("the file is being migrated, try later"), as the Linux v3 client
 * retries it (nfs3_rpc_wrapper(), nfs3_async_handle_jukebox(): wait 5 s,
 * then the same call again).
 *
 * The caller's again() hook (lx_rpc_call_args) looks at the decoded
 * results on the receive thread and asks for a delay.  The call is not
 * completed: its request keeps its slot, its encoded message and its
 * caller's buffers, and after the delay goes out again as a new RPC - a
 * new XID (the old one would fetch the server's cached JUKEBOX from its
 * duplicate request cache), a fresh timeout - through
 * lx_xprt_req_resubmit().  A synchronous caller waits out the delay
 * itself; asynchronous calls wait on the client's retry thread, started
 * at the first one, which resubmits them when they are due.  A call that
 * cannot be sent again (the client is going away, a cancel) completes
 * from there with that error.
 *
 * Called from rpc_clnt.c only; calls nothing of it back.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "rpc_int.h"
#include "xprt/core/call_int.h"
#include "xprt/blocks/byteorder.h"
#include "xprt/blocks/util.h"

/* lx_xprt_req_resubmit() says -EBUSY while the transport drops its
 * reference after done(): a few microseconds */
#define AGAIN_BUSY_TRIES 100000u

int lx_rpc_again_init(struct lx_rpc_clnt *cl)
{
	struct lx_rpc_later *l = &cl->later;
	pthread_condattr_t ca;
	int err;

	err = -pthread_mutex_init(&l->lock, NULL);
	if (err)
		return err;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	err = -pthread_cond_init(&l->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (err)
		pthread_mutex_destroy(&l->lock);
	return err;
}

/* Complete an async call that waited to be sent again, with @err (as
 * rpc_clnt.c's done hook would). */
static void again_complete(struct lx_xprt_req *req, int err)
{
	struct lx_rpc_task *t = lx_rpc_task_of(req);

	t->status = err;
	t->info.reply_stat = -1;
	if (t->complete)
		t->complete(t->call, err);
	else
		lx_call_done(t->call, err);
	lx_xprt_req_put(req);
}

int lx_rpc_again_send(struct lx_xprt_req *req)
{
	struct lx_rpc_task *t = lx_rpc_task_of(req);
	unsigned int i;
	int err;

	/* the XID is the call's first word, over TCP and RDMA alike (the
	 * RPC-over-RDMA header is built from t->xid at each send) */
	lx_xprt_put_be32(req->sbuf->data, t->next_xid);
	t->xid = t->next_xid;
	t->info.xid = t->xid;
	t->info.again = t->again_tries;
	t->info.reply_stat = -1;
	t->retries = 0;
	t->timeo_ns = req->timeout_ns;
	t->status = 0;
	for (i = 0;; i++) {
		err = lx_xprt_req_resubmit(req, t->xid);
		if (err != -EBUSY || i == AGAIN_BUSY_TRIES)
			return err;
		sched_yield(); /* done() returning, or a cancel looking */
	}
}

static uint64_t again_now(void)
{
	return lx_xprt_now_ns();
}

/*
 * Resubmit @t, due and taken off the list (@l->lock held, dropped
 * meanwhile): @t is the call's until it completes, not touched after the
 * resubmit, which holds the request for us.
 */
static void again_fire(struct lx_rpc_later *l, struct lx_rpc_task *t)
{
	struct lx_xprt_req *req = t->req;
	bool cancel;
	int err;

	l->busy = req;
	l->cancel = false;
	pthread_mutex_unlock(&l->lock);
	err = lx_rpc_again_send(req);
	pthread_mutex_lock(&l->lock);
	cancel = l->cancel;
	l->busy = NULL;
	l->cancel = false;
	pthread_mutex_unlock(&l->lock);
	if (err) {
		again_complete(req, cancel ? -ECANCELED : err);
	} else {
		if (cancel) /* cancelled while we sent it */
			lx_xprt_req_cancel(req);
		lx_xprt_req_put(req);
	}
	pthread_mutex_lock(&l->lock);
}

/* The earliest waiting call's link (@l->lock held, the list not empty). */
static struct lx_rpc_task **again_first(struct lx_rpc_later *l)
{
	struct lx_rpc_task **pp, **first = &l->head;

	for (pp = &l->head; *pp; pp = &(*pp)->later_next)
		if ((*pp)->later_due < (*first)->later_due)
			first = pp;
	return first;
}

/* The retry thread: resubmit each call when it is due. */
static void *again_main(void *arg)
{
	struct lx_rpc_clnt *cl = arg;
	struct lx_rpc_later *l = &cl->later;
	struct lx_rpc_task *t, **first;
	struct timespec ts;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		if (!l->head) {
			pthread_cond_wait(&l->cond, &l->lock);
			continue;
		}
		first = again_first(l);
		if ((*first)->later_due > again_now()) {
			ts = lx_xprt_ns_to_timespec((*first)->later_due);
			pthread_cond_timedwait(&l->cond, &l->lock, &ts);
			continue;
		}
		t = *first;
		*first = t->later_next;
		again_fire(l, t);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/*
 * Caller-driven mode: the owner's service runs this instead of a thread
 * (lx_xprt__loop_set_hook()).  Return the next call's due time, 0 when
 * none waits.
 */
static uint64_t again_hook(void *arg, uint64_t now)
{
	struct lx_rpc_clnt *cl = arg;
	struct lx_rpc_later *l = &cl->later;
	struct lx_rpc_task *t, **first;
	uint64_t next = 0;

	if (!l->head)
		return 0; /* the owner's alone: nothing waits */
	pthread_mutex_lock(&l->lock);
	while (!l->stop && l->head) {
		first = again_first(l);
		if ((*first)->later_due > now) {
			next = (*first)->later_due;
			break;
		}
		t = *first;
		*first = t->later_next;
		again_fire(l, t);
	}
	pthread_mutex_unlock(&l->lock);
	return next;
}

void lx_rpc_again_loop(struct lx_rpc_clnt *cl)
{
	cl->later.loop = true;
	lx_xprt__loop_set_hook(cl->x[0], again_hook, cl);
}

int lx_rpc_again_queue(struct lx_xprt_req *req, unsigned int ms)
{
	struct lx_rpc_task *t = lx_rpc_task_of(req);
	struct lx_rpc_later *l = &t->cl->later;
	int err = 0;

	t->req = req;
	t->later_due = again_now() + (uint64_t)ms * 1000000u;
	pthread_mutex_lock(&l->lock);
	if (l->stop) {
		err = -ESHUTDOWN;
		goto out;
	}
	if (!l->started && !l->loop) {
		err = -pthread_create(&l->thread, NULL, again_main, t->cl);
		if (err)
			goto out;
		l->started = true;
	}
	t->later_next = l->head;
	l->head = t;
	pthread_cond_broadcast(&l->cond);
out:
	pthread_mutex_unlock(&l->lock);
	return err;
}

/* Take @req off the waiting list; true if it was there. */
static bool again_unlink(struct lx_rpc_later *l, struct lx_xprt_req *req)
{
	struct lx_rpc_task **pp;

	for (pp = &l->head; *pp; pp = &(*pp)->later_next) {
		if ((*pp)->req == req) {
			*pp = (*pp)->later_next;
			return true;
		}
	}
	return false;
}

/*
 * From lx_call_cancel() (rpc_clnt.c's cancel hook, the request pinned by
 * the canceller): never waits.  A call being resubmitted right now is
 * left to the retry thread, which cancels it once the submit returned.
 */
int lx_rpc_again_cancel(struct lx_xprt_req *req)
{
	struct lx_rpc_later *l = &lx_rpc_task_of(req)->cl->later;
	bool found;

	pthread_mutex_lock(&l->lock);
	if (l->busy == req) {
		l->cancel = true;
		pthread_mutex_unlock(&l->lock);
		return 1;
	}
	found = again_unlink(l, req);
	pthread_mutex_unlock(&l->lock);
	if (!found)
		return 0;
	again_complete(req, -ECANCELED);
	return 1;
}

void lx_rpc_again_stop(struct lx_rpc_clnt *cl)
{
	struct lx_rpc_later *l = &cl->later;
	struct lx_rpc_task *t;

	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	if (l->started)
		pthread_join(l->thread, NULL);
	/* nobody adds to the list any more: complete what waits */
	while ((t = l->head)) {
		l->head = t->later_next;
		again_complete(t->req, -ESHUTDOWN);
	}
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
}
