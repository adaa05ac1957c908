// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Creating and destroying a transport: options, slots, locks, the
 * transport's own setup and first connection, the transmit worker; and the
 * reverse.  The one file of the core that names the transports (TCP,
 * RDMA): they call the core, the core reaches them only through the ops
 * picked here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xprt/core/xprt_int.h"

#define LX_XPRT_DEF_MAX_REQS 64u
#define LX_XPRT_DEF_BUF_SIZE 8192u
#define LX_XPRT_DEF_MAX_MSG  (8u << 20)

static int lx_xprt_check_opts(const struct lx_xprt_opts *o)
{
	if (!o->host || !o->port)
		return -EINVAL;
	if (o->max_reqs > LX_XPRT_TAGS_MAX_DEPTH)
		return -EINVAL;
	if (o->transport != LX_XPRT_TRANSPORT_TCP &&
	    o->transport != LX_XPRT_TRANSPORT_RDMA)
		return -EINVAL;
	if (o->transport == LX_XPRT_TRANSPORT_TCP && !o->framing)
		return -EINVAL;
	if (o->cong < LX_XPRT_CONG_FIXED || o->cong > LX_XPRT_CONG_GRANT)
		return -EINVAL;
	if (o->policy != LX_XPRT_RESEND && o->policy != LX_XPRT_FAIL)
		return -EINVAL;
	if (o->mode != LX_XPRT_MODE_THREADED && o->mode != LX_XPRT_MODE_CALLER)
		return -EINVAL;
	/* the caller-driven mode runs over TCP, without MSG_ZEROCOPY (whose
	 * reports nobody would read) */
	if (o->mode == LX_XPRT_MODE_CALLER &&
	    (o->transport != LX_XPRT_TRANSPORT_TCP || o->zerocopy))
		return -EOPNOTSUPP;
	/* a one-size pool must have the buffers asked for; a shared one
	 * serves the class of @buf_size */
	if (o->pool && o->buf_size && !lx_xprt_pool_has_classes(o->pool) &&
	    lx_xprt_pool_buf_size(o->pool) != o->buf_size)
		return -EINVAL;
	return 0;
}

static void lx_xprt_apply_defaults(struct lx_xprt_opts *o)
{
	if (!o->max_reqs)
		o->max_reqs = LX_XPRT_DEF_MAX_REQS;
	if (!o->buf_size)
		o->buf_size = o->pool && !lx_xprt_pool_has_classes(o->pool) ?
				      lx_xprt_pool_buf_size(o->pool) :
				      LX_XPRT_DEF_BUF_SIZE;
	if (!o->max_msg)
		o->max_msg = LX_XPRT_DEF_MAX_MSG;
	if (!o->connect_timeout_ms)
		o->connect_timeout_ms = 5000;
	if (!o->reconnect_min_ms)
		o->reconnect_min_ms = 100;
	if (!o->reconnect_max_ms)
		o->reconnect_max_ms = 30000;
	if (o->reconnect_max_ms < o->reconnect_min_ms)
		o->reconnect_max_ms = o->reconnect_min_ms;
	if (!o->zerocopy_min)
		o->zerocopy_min = 32768;
}

static int lx_xprt_init_slots(struct lx_xprt *x)
{
	unsigned int i;

	x->stride = (sizeof(struct lx_xprt_rqst) + x->opts.req_priv +
		     LX_XPRT_CACHELINE - 1) &
		    ~(size_t)(LX_XPRT_CACHELINE - 1);
	x->slots = aligned_alloc(LX_XPRT_CACHELINE, x->stride * x->max_reqs);
	if (!x->slots)
		return -ENOMEM;
	memset(x->slots, 0, x->stride * x->max_reqs);
	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rqst *rq = lx_xprt_slot(x, i);

		rq->pub.xprt = x;
		rq->pub.slot = i;
		lx_xprt_rqnode_init(&rq->rqnode);
	}
	return 0;
}

static int lx_xprt_init_locks(struct lx_xprt *x)
{
	pthread_condattr_t ca;
	int err;

	lx_xprt_lock_init(&x->xmit_lock);
	err = -pthread_mutex_init(&x->state_lock, NULL);
	if (err)
		return err;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	err = -pthread_cond_init(&x->state_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (err)
		goto out_state;
	return 0;

out_state:
	pthread_mutex_destroy(&x->state_lock);
	return err;
}

static void lx_xprt_fini_locks(struct lx_xprt *x)
{
	pthread_cond_destroy(&x->state_cond);
	pthread_mutex_destroy(&x->state_lock);
}

/* An RDMA transport that could not register its memory: say whether the
 * locked-memory limit is why, through the log hook (an unprivileged
 * user's usual failure, which "Cannot allocate memory" does not explain).
 * The figure is the whole registration: the pool's budget (two buffers a
 * slot) and the transport's own areas once set up (its receive buffers
 * alone can be more than the pool: the guest test 78 saw 48 KiB claimed
 * under a 64 KiB limit that was not enough). */
static void memlock_say(const struct lx_xprt *x, int err)
{
	size_t need = 2 * x->opts.buf_size * (size_t)x->max_reqs;
	char why[240];

	if (x->opts.transport != LX_XPRT_TRANSPORT_RDMA)
		return;
	if (x->ops->reg_bytes)
		need += x->ops->reg_bytes(x);
	if (!lx_xprt_memlock_explain(err, need, why, sizeof(why)))
		return;
	lx_xprt_log(x, LX_XPRT_LOG_ERR, "libxprt: %s", why);
}

/* See proto.h. */
void lx_xprt__slot_pool_opts(struct lx_xprt_pool_opts *po, size_t buf_size,
			     size_t slots)
{
	po->buf_size = buf_size;
	po->max_bytes = 2 * buf_size * slots + 1;
	if (po->max_bytes <= LX_XPRT__SLOT_POOL_ONE_SLAB)
		po->slab_bufs = (unsigned int)(2 * slots);
}

int lx_xprt_create(struct lx_xprt **xp, const struct lx_xprt_opts *opts)
{
	return lx_xprt__create_ops(xp, opts, NULL);
}

/* See xprt_int.h. */
int lx_xprt__create_ops(struct lx_xprt **xp, const struct lx_xprt_opts *opts,
			const struct lx_xprt_transport_ops *ops)
{
	struct lx_xprt_pool_opts po = {0};
	struct lx_xprt *x;
	int err;

	if (!xp || !opts)
		return -EINVAL;
	err = lx_xprt_check_opts(opts);
	if (err)
		return err;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->fork_gen = lx_xprt__fork_watch();
	x->opts = *opts;
	lx_xprt_apply_defaults(&x->opts);
	x->max_reqs = x->opts.max_reqs;
	x->key_mask = 0;
	while (x->key_mask < x->max_reqs - 1)
		x->key_mask = x->key_mask << 1 | 1;
	x->framing = x->opts.framing;
	snprintf(x->peer, sizeof(x->peer), "%s:%u", x->opts.host, x->opts.port);
	if (ops)
		x->ops = ops;
	else if (x->opts.transport == LX_XPRT_TRANSPORT_TCP)
		x->ops = &lx_xprt_tcp_ops;
	else
		x->ops = &lx_xprt_rdma_ops;

	err = lx_xprt_init_locks(x);
	if (err)
		goto out_free;
	if (x->opts.pool) {
		/* a shared pool: this transport's size class, registered
		 * for RDMA by the first RDMA transport that uses it */
		err = lx_xprt_pool_class(x->opts.pool, x->opts.buf_size,
					 &x->pool);
		if (!err && x->ops->pool_reg &&
		    lx_xprt_pool_has_classes(x->pool))
			err = lx_xprt_pool_attach_reg(x->pool,
						      x->ops->pool_reg);
		if (err)
			goto out_locks;
		x->opts.buf_size = lx_xprt_pool_buf_size(x->pool);
	} else {
		lx_xprt__slot_pool_opts(&po, x->opts.buf_size, x->max_reqs);
		po.reg = x->ops->pool_reg; /* RDMA: slabs registered once */
		err = lx_xprt_pool_create(&x->pool, &po);
		if (err) {
			memlock_say(x, err);
			goto out_locks;
		}
		x->own_pool = true;
		x->keep_bufs = true; /* its budget is two buffers a slot */
	}
	err = lx_xprt_tags_create(&x->tags, x->max_reqs);
	if (err)
		goto out_pool;
	err = lx_xprt_init_slots(x);
	if (err)
		goto out_tags;
	err = lx_xprt_rqtree_init(&x->rqtree);
	if (err)
		goto out_slots;
	err = lx_xprt_cong_init(
		&x->cong, (enum lx_xprt_cong_mode)x->opts.cong,
		x->opts.max_in_flight ?
			LX_XPRT_MIN(x->opts.max_in_flight, x->max_reqs) :
			x->max_reqs);
	if (err)
		goto out_rqtree;
	lx_xprt_xmitq_init_order(&x->xmitq, x->opts.xmit_fifo ?
						    LX_XPRT_XMIT_FIFO :
						    LX_XPRT_XMIT_FAIR);
	atomic_init(&x->timer_scan_at, UINT64_MAX);
	atomic_store(&x->state, LX_XPRT_CONNECTING);
	if (x->opts.mode == LX_XPRT_MODE_CALLER) {
		err = lx_xprt__loop_init(x);
		if (err)
			goto out_xmitq;
	}

	err = x->ops->setup(x);
	if (err) {
		memlock_say(x, err);
		goto out_xmitq;
	}
	err = x->ops->connect(x, 1);
	if (err) {
		memlock_say(x, err);
		goto out_teardown;
	}
	atomic_store(&x->cookie, 1);
	x->conn_since = lx_xprt_now_ns();
	atomic_store(&x->state, LX_XPRT_CONNECTED);
	atomic_fetch_add(&x->stats.connects, 1);

	if (!x->loop) {
		err = -pthread_create(&x->worker, NULL, lx_xprt_worker_main, x);
		if (err)
			goto out_teardown;
		x->worker_started = true;
	}
	*xp = x;
	return 0;

out_teardown:
	atomic_store(&x->stopping, true);
	atomic_store(&x->state, LX_XPRT_CLOSED);
	x->ops->teardown(x);
out_xmitq:
	lx_xprt__loop_fini(x);
	lx_xprt_xmitq_destroy(&x->xmitq);
out_rqtree:
	lx_xprt_rqtree_destroy(&x->rqtree);
out_slots:
	free(x->slots);
out_tags:
	lx_xprt_tags_destroy(x->tags);
out_pool:
	if (x->own_pool)
		lx_xprt_pool_destroy(x->pool);
out_locks:
	lx_xprt_fini_locks(x);
out_free:
	free(x);
	return err;
}

/*
 * lx_xprt_destroy() of a transport made in the parent of this process.
 * Everything it holds is a copy of the parent's memory, or a descriptor
 * that shares its open file description with the parent's: the threads
 * that ran it are not here, its locks may be held by them forever, a
 * shutdown(2) of its socket would end the parent's connection, a verbs
 * call would destroy the parent's objects.  So: the transport forgets
 * its state (close(2) alone), the memory goes back without a lock taken
 * or a condition variable destroyed (glibc's pthread_cond_destroy() waits
 * for the parent's waiters), and no done() runs: the calls in flight at
 * the fork are the parent's.  A pool of its own is forgotten as well
 * (lx_xprt_pool_destroy() knows it too).
 */
static void xprt_forget(struct lx_xprt *x)
{
	if (x->ops->forget)
		x->ops->forget(x);
	lx_xprt_big_pools_destroy(x);
	lx_xprt__loop_fini(x);
	lx_xprt_xmitq_destroy(&x->xmitq);
	free(x->slots);
	lx_xprt__tags_forget(x->tags);
	if (x->own_pool)
		lx_xprt_pool_destroy(x->pool);
	free(x);
}

void lx_xprt_destroy(struct lx_xprt *x)
{
	struct lx_xprt_rqst *cut;
	unsigned int waited = 0;

	if (!x)
		return;
	if (lx_xprt_forked(x)) {
		xprt_forget(x);
		return;
	}
	pthread_mutex_lock(&x->state_lock);
	atomic_store(&x->stopping, true);
	atomic_store(&x->state, LX_XPRT_CLOSING);
	pthread_cond_broadcast(&x->state_cond);
	pthread_mutex_unlock(&x->state_lock);
	lx_xprt_tags_close(x->tags);

	/* Stop the worker first: after it is gone only this thread
	 * transmits, and the queue can be emptied. */
	lx_xprt_kick_worker(x);
	if (x->worker_started)
		pthread_join(x->worker, NULL);
	x->ops->shutdown(x);
	/* a record cut in the middle will never be finished now */
	lx_xprt_lock(&x->xmit_lock);
	cut = x->tx_partial;
	if (cut) {
		lx_xprt_rq_get(cut);
		atomic_fetch_and(&cut->st, ~(uint64_t)RQ_XMIT);
		x->tx_partial = NULL;
	}
	lx_xprt_unlock(&x->xmit_lock);
	/* decided already (cancelled while cut), it is ours to deliver */
	if (cut) {
		lx_xprt_try_complete(cut);
		lx_xprt_req_put(&cut->pub);
	}
	lx_xprt_fail_all(x, -ESHUTDOWN);
	x->ops->teardown(x);
	atomic_store(&x->state, LX_XPRT_CLOSED);

	/* Protocols put their last references from done() or right after
	 * a sync wait: give them the time to. */
	while (lx_xprt_tags_in_use(x->tags)) {
		/* an orphan made by a cancel racing this destroy */
		lx_xprt_orphans_end(x);
		if (++waited == 5000)
			lx_xprt_log(x, LX_XPRT_LOG_WARNING,
				    "libxprt: %s: lx_xprt_destroy(): waiting "
				    "for %u requests to be put",
				    x->peer, lx_xprt_tags_in_use(x->tags));
		usleep(1000);
	}
	lx_xprt_drop_slot_bufs(x);
	lx_xprt_big_pools_destroy(x);
	lx_xprt__loop_fini(x);
	lx_xprt_xmitq_destroy(&x->xmitq);
	lx_xprt_rqtree_destroy(&x->rqtree);
	free(x->slots);
	lx_xprt_tags_destroy(x->tags);
	if (x->own_pool)
		lx_xprt_pool_destroy(x->pool);
	lx_xprt_fini_locks(x);
	free(x);
}
