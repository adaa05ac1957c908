// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whole messages over RDMA: the framing of Linux's 9P trans_rdma.
 *
 * Every 9P message travels as one Send and lands in one receive buffer of
 * the full message size (msize, the pool's buffer size): no transport
 * header, no RDMA Read or Write, no connection private data.  The 9P size
 * field is checked against the received length; the tag finds the
 * request.  Flow control is the queue depths: the core's fixed window is
 * the slot count, and the transport posts one receive per request before
 * its Send, with the excess accounting for requests that end without
 * consuming theirs (see rdma.c and rdma_rx.c).
 *
 * Bulk data: a Twrite's payload is copied behind the header in the
 * request's send buffer when it fits (it always does when the payload
 * respects msize), else registered for the Send; an Rread's data is copied
 * out of the receive buffer into the caller's memory through the
 * protocol's place() hook, exactly as the TCP receive path does.
 */
#include <errno.h>

#include "xprt/rdma/rdma.h"

static size_t msg_recv_size(const struct lx_xprt *x,
			    const struct lx_xprt_rdma_opts *o)
{
	(void)o;
	return x->opts.buf_size;
}

static void msg_conn_params(struct lx_xprt *x, const void *pdata, size_t len,
			    struct lx_xprt_rdma_params *p)
{
	(void)pdata;
	(void)len;
	/* both sides receive whole messages of up to msize */
	p->inline_send = (unsigned int)x->opts.buf_size;
	p->inline_recv = (unsigned int)x->opts.buf_size;
}

static int msg_marshal(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		       struct lx_xprt_rdma_slot *s,
		       struct lx_xprt_rdma_send *snd)
{
	size_t len = rq->pub.sbuf->len;
	unsigned int i;

	for (i = 0; i < rq->pub.nr_tx_segs; i++)
		len += rq->pub.tx_segs[i].iov_len;
	/* the peer's receive buffers are msize: a larger Send would break
	 * the connection (a local length error on its side) */
	if (len > x->opts.buf_size)
		return -EMSGSIZE;
	lx_xprt_rdma_slot_unreg(x, s, false); /* an earlier attempt's */
	return lx_xprt_rdma_add_msg(x, rq, s, snd, rq->pub.nr_tx_segs);
}

static int msg_receive(struct lx_xprt *x, void *buf, size_t len)
{
	const struct lx_xprt_framing_ops *f = x->framing;
	struct lx_xprt_rdma_slot *s;
	struct lx_xprt_rqst *rq;
	size_t flen = 0;
	bool last;
	int status = 0;

	if (len < f->key_len || len < f->hdr_len) {
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_BAD_HEADERS);
		return 0;
	}
	/* the size field must say what arrived */
	if (f->decode(buf, &flen, &last) || flen + f->hdr_len != len || !last)
		status = -EBADMSG;
	rq = lx_xprt_rx_lookup(x, f->key(buf));
	if (!rq) {
		if (status)
			lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_BAD_HEADERS);
		return 0;
	}
	s = lx_xprt_rdma_slot_of(x, rq->pub.slot);
	lx_xprt_rdma_slot_acquire(s);
	atomic_store(&s->got_reply, true);
	if (!status)
		status = lx_xprt_rx_deliver(x, rq, buf, len);
	else
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_BAD_HEADERS);
	lx_xprt_rdma_complete(x, rq, status);
	return 1;
}

static void msg_release(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			struct lx_xprt_rdma_slot *s, int status)
{
	/* nothing of its own: the transport drops the registrations */
	(void)x;
	(void)rq;
	(void)s;
	(void)status;
}

const struct lx_xprt_rdma_ulp lx_xprt_rdma_ulp_msg = {
	.name = "9p-rdma",
	.framing = &lx_xprt_framing_9p,
	/* no header of its own, no slot state, no private data */
	.per_request_recv = true,
	.def_rnr_retry = 7,
	.recv_size = msg_recv_size,
	.conn_params = msg_conn_params,
	.marshal = msg_marshal,
	.receive = msg_receive,
	.release = msg_release,
};
