// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RDMA transport: connections (librdmacm).
 *
 * Connecting is the transmit worker's job (or lx_xprt_create()'s): a fresh
 * event channel and cm_id per attempt, address and route resolution, the
 * device's process-wide protection domain (rdma_dev.c), a completion
 * channel with a send CQ and a receive CQ, an RC queue pair, the first
 * receives, then rdma_connect() with the binding's private data and a wait
 * for ESTABLISHED, whose private data fixes the thresholds.  Every wait has
 * the connect timeout as deadline; CM events map to the errno a TCP
 * connect would give (REJECTED: -ECONNREFUSED, unreachable: -EHOSTUNREACH,
 * no answer: -ETIMEDOUT).  The new connection is then published for the
 * poller to adopt.
 *
 * Ending: rdma_disconnect() moves the queue pair to the error state so its
 * posted work flushes and the poller notices; the worker frees the
 * connection (reap) only after the poller has detached from it.
 *
 * Observed with the kernel nfsd under emulation: after an abrupt
 * disconnect with many replies in flight, nfsd's threads keep retrying
 * those replies until their retry count runs out (seconds), and only then
 * accept a new connection; the first attempts then time out and the
 * worker's backoff retries until one gets through.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xprt/rdma/rdma_int.h"
#include "xprt/rdma/rdma_verbs.h"

#define RDMA_CM_RETRY	  6u
#define RDMA_PDATA_MAX	  56u /* RDMA-CM REQ private data on RoCE/IB */
#define RDMA_REAP_WAIT_NS 2000000000ull

static int lx_xr_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return xv_errno();
	return 0;
}

/* ------------------------------------------------------------- connect */

/*
 * Wait for the next CM event on @c, which must be @want.  On success the
 * event is returned unacknowledged in *@evp.  Other events map to the
 * errors a TCP connect would give.
 */
/* XPRT_RDMA_DEBUG=1: report connection steps slower than 200 ms */
static bool lx_xr_debug(void)
{
	static int on = -1;

	if (on < 0) {
		const char *e = getenv("XPRT_RDMA_DEBUG");

		on = e && *e && *e != '0';
	}
	return on;
}

static int cm_wait_once(struct lx_xr_conn *c, enum rdma_cm_event_type want,
			uint64_t deadline, struct rdma_cm_event **evp);

static int cm_wait(const struct lx_xprt *x, struct lx_xr_conn *c,
		   enum rdma_cm_event_type want, uint64_t deadline,
		   struct rdma_cm_event **evp)
{
	uint64_t t0 = lx_xprt_now_ns();
	int r = cm_wait_once(c, want, deadline, evp);

	if (lx_xr_debug() && lx_xprt_now_ns() - t0 > 200000000ull)
		lx_xprt_log(
			x, LX_XPRT_LOG_DEBUG,
			"libxprt: %s: rdma: waited %llu ms for %s: %d", x->peer,
			(unsigned long long)(lx_xprt_now_ns() - t0) / 1000000,
			rdma_event_str(want), r);
	return r;
}

static int cm_wait_once(struct lx_xr_conn *c, enum rdma_cm_event_type want,
			uint64_t deadline, struct rdma_cm_event **evp)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = {.fd = c->ech->fd, .events = POLLIN};
	int r;

	for (;;) {
		uint64_t now = lx_xprt_now_ns();

		if (!rdma_get_cm_event(c->ech, &ev))
			break;
		if (errno != EAGAIN)
			return xv_errno();
		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return xv_errno();
	}
	if (ev->event == want && !ev->status) {
		*evp = ev;
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		r = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		r = ev->status == -ETIMEDOUT ? -ETIMEDOUT : -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		r = -ECONNABORTED;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		r = -ENODEV;
		break;
	default:
		r = ev->status < 0 ? ev->status : -EPROTO;
		break;
	}
	rdma_ack_cm_event(ev);
	return r;
}

static int cm_expect(const struct lx_xprt *x, struct lx_xr_conn *c,
		     enum rdma_cm_event_type want, uint64_t deadline)
{
	struct rdma_cm_event *ev;
	int r = cm_wait(x, c, want, deadline, &ev);

	if (!r)
		rdma_ack_cm_event(ev);
	return r;
}

/* Register the transport's own memory (header areas, receive buffers) on
 * device @dev, once; again only if a connection lands on another device. */
static int lx_xr_reg_own(struct lx_xprt *x, struct lx_xr_tp *tp, int dev)
{
	const struct lx_xprt_rdma_dev *d =
		lx_xprt_rdma_dev_get((unsigned int)dev);
	struct ibv_mr *hmr = NULL, *rmr = NULL;
	unsigned int i;
	int r;

	if (tp->reg_dev == dev)
		return 0;
	if (tp->hdr_area_len) {
		r = xv_reg_mr(d->pd, tp->hdr_area, tp->hdr_area_len, 0, &hmr);
		if (r)
			return r;
	}
	r = xv_reg_mr(d->pd, tp->rbufs, tp->rbuf_size * tp->nrbufs,
		      IBV_ACCESS_LOCAL_WRITE, &rmr);
	if (r) {
		xv_dereg_mr(hmr);
		return r;
	}
	xv_dereg_mr(tp->hdr_mr);
	xv_dereg_mr(tp->rbuf_mr);
	tp->hdr_mr = hmr;
	tp->rbuf_mr = rmr;
	tp->reg_dev = dev;
	for (i = 0; hmr && i < x->max_reqs; i++)
		tp->slots[i].hdr_lkey = hmr->lkey;
	return 0;
}

void lx_xr_conn_free(struct lx_xr_conn *c)
{
	if (!c)
		return;
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->unacked_s)
		ibv_ack_cq_events(c->scq, c->unacked_s);
	if (c->unacked_r)
		ibv_ack_cq_events(c->rcq, c->unacked_r);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	free(c);
}

/* CQs and the queue pair on @c->id's device. */
static int lx_xr_conn_qp(struct lx_xprt *x, struct lx_xr_tp *tp,
			 struct lx_xr_conn *c)
{
	const struct lx_xprt_rdma_dev *d =
		lx_xprt_rdma_dev_get((unsigned int)c->dev);
	struct ibv_qp_init_attr qa = {0};
	int r;

	c->cc = ibv_create_comp_channel(c->id->verbs);
	if (!c->cc)
		return xv_errno();
	r = lx_xr_nonblock(c->cc->fd);
	if (r)
		return r;
	c->scq = ibv_create_cq(c->id->verbs, (int)c->sq_depth, c, c->cc, 0);
	if (!c->scq)
		return xv_errno();
	c->rcq = ibv_create_cq(c->id->verbs, (int)c->rq_depth, c, c->cc, 0);
	if (!c->rcq)
		return xv_errno();
	qa.qp_context = c;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = c->sq_depth;
	qa.cap.max_recv_wr = c->rq_depth;
	qa.cap.max_send_sge = (uint32_t)LX_XPRT_MIN(
		(int)LX_XPRT_RDMA_MAX_SEND_SGE, d->max_sge);
	qa.cap.max_recv_sge = 1;
	r = xv_cm(rdma_create_qp(c->id, d->pd, &qa));
	if (r)
		return r;
	c->qp = c->id->qp;
	c->params.max_send_sge = qa.cap.max_send_sge;
	(void)x;
	(void)tp;
	return 0;
}

static int lx_xr_connect_once(struct lx_xprt *x, uint32_t cookie);

int lx_xr_connect(struct lx_xprt *x, uint32_t cookie)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	uint64_t t0 = lx_xprt_now_ns();
	int r = lx_xr_connect_once(x, cookie);

	lx_xr_ctr_add(tp, RC_CONNECTS, 1);
	if (r)
		lx_xr_ctr_add(tp, RC_CONNECT_FAILS, 1);
	atomic_store(&tp->last_connect_error, r);
	atomic_store(&tp->last_connect_ns, lx_xprt_now_ns() - t0);
	return r;
}

static int lx_xr_connect_once(struct lx_xprt *x, uint32_t cookie)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	uint64_t deadline = lx_xprt_now_ns() +
			    (uint64_t)x->opts.connect_timeout_ms * 1000000u;
	int tmo = (int)x->opts.connect_timeout_ms;
	struct rdma_conn_param cp = {0};
	const struct lx_xprt_rdma_dev *d;
	uint8_t pdata[RDMA_PDATA_MAX];
	struct rdma_cm_event *ev;
	struct lx_xr_conn *c;
	int r, plen;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cookie = cookie;
	c->rq_depth = tp->nrbufs;
	c->signal_every = tp->o.signal_every;
	c->ech = rdma_create_event_channel();
	if (!c->ech) {
		r = xv_errno();
		goto out_free;
	}
	r = lx_xr_nonblock(c->ech->fd);
	if (r)
		goto out_free;
	r = xv_cm(rdma_create_id(c->ech, &c->id, c, RDMA_PS_TCP));
	if (r)
		goto out_free;
	r = xv_cm(rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&tp->dst,
				    tmo));
	if (!r)
		r = cm_expect(x, c, RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
	if (!r)
		r = xv_cm(rdma_resolve_route(c->id, tmo));
	if (!r)
		r = cm_expect(x, c, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
	if (!r && tp->o.ack_timeout) {
		uint8_t t = (uint8_t)tp->o.ack_timeout;

		r = xv_cm(rdma_set_option(c->id, RDMA_OPTION_ID,
					  RDMA_OPTION_ID_ACK_TIMEOUT, &t,
					  sizeof(t)));
	}
	if (r)
		goto out_free;
	c->dev = lx_xprt_rdma_dev_find(c->id->verbs);
	if (c->dev < 0) {
		r = c->dev;
		goto out_free;
	}
	d = lx_xprt_rdma_dev_get((unsigned int)c->dev);
	/* chunks through windows where the device binds type 2 ones */
	switch (tp->o.reg_mode) {
	case LX_XPRT_RDMA_REG_DEFAULT:
		c->params.windows = d->mw_type == 2;
		break;
	case LX_XPRT_RDMA_REG_WINDOW:
		if (d->mw_type != 2) {
			r = -EOPNOTSUPP;
			goto out_free;
		}
		c->params.windows = true;
		break;
	default:
		c->params.windows = false;
		break;
	}
	c->inv_flags = d->inv_flags;
	/* a segment's length is one XDR word; a device reporting no limit
	 * (0) is taken at its word */
	c->params.max_seg = UINT32_MAX;
	if (d->max_mr_size && d->max_mr_size < c->params.max_seg)
		c->params.max_seg = (uint32_t)d->max_mr_size;
	if (tp->o.max_seg_size && tp->o.max_seg_size < c->params.max_seg)
		c->params.max_seg = tp->o.max_seg_size;
	/* the send queue: per credit a Send and LX_XR_WINS_PER_CREDIT
	 * windows' bind and invalidation; room for the largest call
	 * beyond that, and for the signalling slack.  Credits beyond
	 * LX_XR_SQ_CREDITS (no server we know grants that many) wait for
	 * send queue room rather than make a huge queue for every slot */
	c->max_wr_call = c->params.windows ? 1 + 2 * LX_XPRT_RDMA_SLOT_WINS : 1;
	c->sq_depth =
		LX_XPRT_MIN(x->max_reqs, LX_XR_SQ_CREDITS) *
			(c->params.windows ? 1 + 2 * LX_XR_WINS_PER_CREDIT :
					     1) +
		(c->max_wr_call > 1 ? c->max_wr_call : 0) +
		2 * tp->o.signal_every + 2;
	if (d->max_qp_wr > 0 && c->sq_depth > (unsigned int)d->max_qp_wr)
		c->sq_depth = (unsigned int)d->max_qp_wr;
	r = lx_xr_reg_own(x, tp, c->dev);
	if (r)
		goto out_free;
	r = lx_xr_conn_qp(x, tp, c);
	if (r)
		goto out_free;

	/* fresh accounting: nothing is posted on a new queue pair */
	lx_xr_recv_reset(tp);
	atomic_store(&c->sq_free, (int)c->sq_depth);
	atomic_store(&c->posted, 0);
	atomic_store(&tp->excess, 0);
	c->params.dev = (unsigned int)c->dev;
	c->params.cookie = cookie;
	/* until the binding says otherwise (conn_params) */
	c->params.inline_send = 1024;
	c->params.inline_recv = (unsigned int)tp->rbuf_size;
	if (!tp->ulp->per_request_recv)
		lx_xr_replenish(x, c);

	plen = tp->ulp->conn_pdata ? tp->ulp->conn_pdata(x, &c->params, pdata,
							 sizeof(pdata)) :
				     0;
	if (plen < 0) {
		r = plen;
		goto out_free;
	}
	cp.private_data = plen ? pdata : NULL;
	cp.private_data_len = (uint8_t)plen;
	/* the server reads our Read chunks: let it have reads in flight;
	 * we never issue RDMA Reads ourselves */
	cp.responder_resources = (uint8_t)LX_XPRT_MIN(
		d->max_qp_rd_atom > 0 ? d->max_qp_rd_atom : 1, 255);
	cp.initiator_depth = 0;
	cp.retry_count = RDMA_CM_RETRY;
	cp.rnr_retry_count = (uint8_t)tp->o.rnr_retry;
	cp.flow_control = 0;
	r = xv_cm(rdma_connect(c->id, &cp));
	if (r)
		goto out_free;
	r = cm_wait(x, c, RDMA_CM_EVENT_ESTABLISHED, deadline, &ev);
	if (r)
		goto out_free;
	tp->ulp->conn_params(x, ev->param.conn.private_data,
			     ev->param.conn.private_data_len, &c->params);
	rdma_ack_cm_event(ev);

	pthread_mutex_lock(&tp->lock);
	/* a new generation only when what marshalling depends on changed:
	 * registrations live in the device's PD and survive reconnects */
	if (c->params.dev != tp->last_params.dev ||
	    c->params.inline_send != tp->last_params.inline_send ||
	    c->params.inline_recv != tp->last_params.inline_recv ||
	    c->params.max_send_sge != tp->last_params.max_send_sge ||
	    c->params.max_seg != tp->last_params.max_seg ||
	    c->params.windows != tp->last_params.windows || !tp->params_gen)
		tp->params_gen++;
	c->params.gen = tp->params_gen;
	tp->last_params = c->params;
	tp->conn = c;
	pthread_mutex_unlock(&tp->lock);
	lx_xr_kick_poller(tp);
	return 0;

out_free:
	lx_xr_conn_free(c);
	return r;
}

void lx_xr_shutdown(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	pthread_mutex_lock(&tp->lock);
	/* moves the QP to the error state: posted work flushes */
	if (tp->conn) {
		atomic_store(&tp->conn->dead, true);
		rdma_disconnect(tp->conn->id);
	}
	pthread_mutex_unlock(&tp->lock);
	lx_xr_kick_poller(tp);
	atomic_fetch_add(&tp->sq_seq, 1);
	lx_xprt_futex_wake(&tp->sq_seq, INT32_MAX);
}

/* Worker (no transmit lock, nothing sends: the state is not connected):
 * free the dead connection once the poller has let go of it. */
void lx_xr_reap(struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	struct timespec ts =
		lx_xprt_ns_to_timespec(lx_xprt_now_ns() + RDMA_REAP_WAIT_NS);
	struct lx_xr_conn *c;

	pthread_mutex_lock(&tp->lock);
	c = tp->conn;
	if (!c) {
		pthread_mutex_unlock(&tp->lock);
		return;
	}
	atomic_store(&c->dead, true);
	rdma_disconnect(c->id);
	lx_xr_kick_poller(tp);
	while (tp->rx_conn == c && tp->poller_started &&
	       !atomic_load(&tp->stop)) {
		if (pthread_cond_timedwait(&tp->cond, &tp->lock, &ts) ==
		    ETIMEDOUT)
			break;
	}
	if (tp->rx_conn == c) {
		/* the poller is stuck: leak rather than free under it */
		pthread_mutex_unlock(&tp->lock);
		lx_xprt_log(x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: rdma: the poller did not release the "
			    "connection (leaked)",
			    x->peer);
		return;
	}
	pthread_mutex_unlock(&tp->lock);
	/* windows bound on it go first: its queue pair can no longer
	 * invalidate them, and rxe will not destroy a queue pair with
	 * windows bound; requests waiting for invalidations complete */
	lx_xr_win_sweep(x);
	pthread_mutex_lock(&tp->lock);
	tp->conn = NULL;
	pthread_mutex_unlock(&tp->lock);
	lx_xr_conn_free(c);
}
