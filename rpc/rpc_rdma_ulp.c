// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RPC-over-RDMA version 1 as the RDMA transport's upper-layer binding.
 *
 * Marshal (transmit lock held): the chunk decisions of lx_rpcrdma_plan() for
 * this call and this connection's thresholds, the registrations they need
 * (caller memory through the transport's per-I/O or cached registration),
 * and the transport header, encoded into the slot's registered header
 * area.  All of it is kept with the slot: a resend after a reconnect
 * reuses the registrations (the protection domain outlives connections)
 * unless the new connection negotiated other thresholds.  The Send then
 * gathers: header | call (send buffer) | payload copied behind the call
 * when the call goes inline; header | call when the payload is in a Read
 * chunk; header alone for a position-zero Read chunk.
 *
 * Receive (poller): decode the header (pure, rpc_rdma.c), apply the
 * credit grant, find the call by XID, check the reply against what the
 * call offered (lx_rpcrdma_check_reply: no chunk we did not offer, no length
 * beyond our registration), then place the RPC reply:
 *   - RDMA_MSG with the Write chunk used: the inline message is already
 *     the reduced stream (bulk data sits in the caller's memory): copied
 *     to the receive buffer as is, and the result parser is asked where
 *     the data would be so a reply claiming more data than the server
 *     wrote is refused;
 *   - RDMA_MSG without it: the full message, placed like a TCP reply
 *     (bulk data copied into the caller's memory by the same place()
 *     hook), which is what small READs use;
 *   - RDMA_NOMSG: the server wrote the reply into our Reply chunk (the
 *     reply buffer, taken as large as the call's reply hint when that is
 *     above buf_size: lx_rpc_start()) before its Send; only its length is
 *     taken, and the decoder reads the reply where it landed.
 * RDMA_ERROR becomes a clear errno (ERR_VERS: -EPROTO with the server's
 * version range in the reply info; ERR_CHUNK: -EMSGSIZE).
 *
 * Chunk memory is exposed through lx_xprt_rdma_chunk(): a memory window
 * per segment, bound in the Send's chain (or, without windows, a
 * registration).  A resend on a new connection binds fresh windows:
 * they are tied to the queue pair.
 *
 * Completion goes through lx_xprt_rdma_complete(), which checks the key a
 * Send With Invalidate names and holds done() until every window of the
 * call is invalidated; release only forgets the prepared header.
 */
#include <errno.h>
#include <string.h>

#include "rpc/rpc_rdma.h"
#include "rpc_int.h"
#include "xprt/rdma/rdma.h"

/* per-slot state */
struct ru_slot {
	struct lx_rpcrdma_offer offer;
	struct lx_rpcrdma_plan plan;
	size_t hdr_len;
};

static size_t ru_recv_size(const struct lx_xprt *x,
			   const struct lx_xprt_rdma_opts *o)
{
	(void)x;
	return o->inline_recv;
}

static int ru_conn_pdata(struct lx_xprt *x, struct lx_xprt_rdma_params *p,
			 void *buf, size_t cap)
{
	const struct lx_xprt_rdma_opts *o = lx_xprt_rdma_opts_of(x);

	if (cap < LX_RPCRDMA_CM_PDATA_LEN)
		return -EINVAL;
	/* a server may invalidate our windows with its reply (RFC 8797):
	 * only windows, never registrations (rxe and hardware refuse to
	 * invalidate a plain registration, and the connection breaks) */
	p->remote_inv = p->windows && !o->no_remote_inv;
	return lx_rpcrdma_cm_encode(
		buf, o->inline_send, o->inline_recv,
		p->remote_inv ? LX_RPCRDMA_CM_F_SND_W_INV_OK : 0);
}

static void ru_conn_params(struct lx_xprt *x, const void *pdata, size_t len,
			   struct lx_xprt_rdma_params *p)
{
	const struct lx_xprt_rdma_opts *o = lx_xprt_rdma_opts_of(x);

	lx_rpcrdma_cm_negotiate(pdata, len, o->inline_send, o->inline_recv,
				&p->inline_send, &p->inline_recv);
}

/* Expose one segment (a window, or a registration) and describe it in
 * @seg; @buf: the pool buffer it lies in, NULL for caller memory. */
static int ru_reg_seg(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
		      struct lx_xprt_rdma_send *snd,
		      const struct lx_xprt_buf *buf, void *addr, size_t len,
		      int access, struct lx_rpcrdma_seg *seg)
{
	int r;

	if (len > UINT32_MAX)
		return -E2BIG;
	r = lx_xprt_rdma_chunk(x, s, snd, buf, addr, len, access, &seg->handle,
			       &seg->offset);
	seg->length = (uint32_t)len;
	return r;
}

/*
 * Cut @n pieces of memory into chunk segments of at most @max bytes each
 * (the connection's segment limit: one window, or one registration, per
 * segment) into @out, which holds LX_RPCRDMA_MAX_SEGS.
 * Return: the number of segments; %-E2BIG when they do not fit.
 */
static int ru_split(const struct iovec *in, unsigned int n, uint32_t max,
		    struct iovec *out)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		uint8_t *p = in[i].iov_base;
		size_t left = in[i].iov_len;

		while (left) {
			size_t take = left < max ? left : max;

			if (k == LX_RPCRDMA_MAX_SEGS)
				return -E2BIG;
			out[k].iov_base = p;
			out[k].iov_len = take;
			k++;
			p += take;
			left -= take;
		}
	}
	return (int)k;
}

/* Read chunk entries for tx segments [from, to), all at @pos. */
static int ru_reads(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		    struct lx_xprt_rdma_slot *s, struct lx_xprt_rdma_send *snd,
		    struct lx_rpcrdma_hdr *h, unsigned int from,
		    unsigned int to, uint32_t pos)
{
	unsigned int i;
	int r;

	for (i = from; i < to; i++) {
		struct iovec *v = &rq->pub.tx_segs[i];

		if (h->nr_reads >= LX_RPCRDMA_MAX_SEGS)
			return -E2BIG;
		h->reads[h->nr_reads].position = pos;
		r = ru_reg_seg(x, s, snd, NULL, v->iov_base, v->iov_len,
			       IBV_ACCESS_REMOTE_READ,
			       &h->reads[h->nr_reads].seg);
		if (r)
			return r;
		h->nr_reads++;
	}
	return 0;
}

/* @dst = @src, its segments in use only (the whole is ~260 bytes; the
 * check of a reply reads an offer's segments up to its count) */
static void ru_chunk_copy(struct lx_rpcrdma_wchunk *dst,
			  const struct lx_rpcrdma_wchunk *src)
{
	dst->nsegs = src->nsegs;
	memcpy(dst->segs, src->segs, src->nsegs * sizeof(src->segs[0]));
}

/* Decide the chunks, register them, encode the header into s->hdr. */
static int ru_prepare(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		      struct lx_xprt_rdma_slot *s,
		      struct lx_xprt_rdma_send *snd, struct ru_slot *u,
		      const struct lx_xprt_rdma_params *p)
{
	struct lx_xprt_req *req = &rq->pub;
	struct lx_rpc_task *t = lx_rpc_task_of(req);
	struct iovec dst[LX_RPCRDMA_MAX_SEGS + 1];
	struct iovec seg[LX_RPCRDMA_MAX_SEGS];
	/* the Reply chunk: the reply buffer (as large as the call's
	 * reply_hint, lx_rpc_start()), in at most LX_RPCRDMA_MAX_SEGS
	 * segments of the connection's limit */
	struct iovec rb = {.iov_base = req->rbuf->data,
			   .iov_len = LX_XPRT_MIN((size_t)req->rbuf->cap,
						  (size_t)p->max_seg *
							  LX_RPCRDMA_MAX_SEGS)};
	struct lx_rpcrdma_plan_in in = {0};
	struct lx_rpcrdma_hdr h;
	unsigned int ndst = 0, i;
	size_t covered = 0;
	long hl;
	int r, n;

	/* the common call (no bulk data either way, a small reply): no
	 * chunk to decide, offer or register */
	if (!t->payload_len &&
	    !(t->has_rx_dst && lx_xprt_iter_count(&t->rx_dst)) &&
	    lx_rpcrdma_plain_fits(req->sbuf->len, t->reply_hint, p->inline_send,
				  p->inline_recv)) {
		lx_rpcrdma_plan_plain(&u->plan, req->sbuf->len);
		u->offer.write.nsegs = 0;
		u->offer.reply.nsegs = 0;
		u->hdr_len = lx_rpcrdma_encode_plain(s->hdr, t->xid,
						     lx_xprt_max_reqs(x));
		return 0;
	}
	in.call_len = req->sbuf->len;
	in.payload_len = t->payload_len;
	in.payload_segs = t->payload_segs;
	if (t->has_rx_dst && lx_xprt_iter_count(&t->rx_dst)) {
		in.rx_dst_len = lx_xprt_iter_count(&t->rx_dst);
		ndst = lx_xprt_iter_to_iovec(&t->rx_dst, dst,
					     LX_RPCRDMA_MAX_SEGS + 1,
					     in.rx_dst_len);
		for (i = 0; i < ndst; i++)
			covered += dst[i].iov_len;
		if (ndst > LX_RPCRDMA_MAX_SEGS || covered < in.rx_dst_len)
			return -E2BIG; /* more pieces than one chunk takes */
		/* each piece in segments the connection's limit allows
		 * (the common case, every piece within it, copies nothing) */
		if (covered > p->max_seg) {
			n = ru_split(dst, ndst, p->max_seg, seg);
			if (n < 0)
				return n;
			memcpy(dst, seg, (size_t)n * sizeof(seg[0]));
			ndst = (unsigned int)n;
		}
		in.rx_dst_segs = ndst;
	}
	in.reply_hint = t->reply_hint;
	in.reply_cap = req->rbuf->cap;
	/* the Reply chunk covers the whole receive buffer, in as many
	 * segments as the limit needs (cut below, when it is offered) */
	in.reply_segs = rb.iov_len <= p->max_seg ?
				1 :
				(unsigned int)((rb.iov_len + p->max_seg - 1) /
					       p->max_seg);
	in.inline_send = p->inline_send;
	in.inline_recv = p->inline_recv;
	r = lx_rpcrdma_plan(&in, &u->plan);
	if (r)
		return r;

	/* lx_rpcrdma_encode() and _check_reply() read the segments up to
	 * the counts only: clear the counts, not the ~1.5 KiB of segment
	 * arrays (a memset of both was ~300 instructions per call) */
	h.nr_reads = 0;
	h.nr_writes = 0;
	h.has_reply = false;
	u->offer.write.nsegs = 0;
	u->offer.reply.nsegs = 0;
	h.xid = t->xid;
	h.vers = LX_RPCRDMA_VERSION;
	h.credits = lx_xprt_max_reqs(x); /* what we can use */
	h.proc = u->plan.proc;
	if (u->plan.write) {
		for (i = 0; i < ndst; i++) {
			r = ru_reg_seg(x, s, snd, NULL, dst[i].iov_base,
				       dst[i].iov_len, IBV_ACCESS_REMOTE_WRITE,
				       &h.writes[0].segs[i]);
			if (r)
				return r;
		}
		h.writes[0].nsegs = ndst;
		h.nr_writes = 1;
		ru_chunk_copy(&u->offer.write, &h.writes[0]);
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_WRITE_CHUNKS);
	}
	if (u->plan.reply) {
		/* one window per segment; the server fills them in order,
		 * so the reply lands contiguously in rbuf (RFC 8166
		 * section 3.4.5: a chunk is its segments concatenated) */
		n = ru_split(&rb, 1, p->max_seg, seg);
		if (n != (int)u->plan.reply_segs)
			return -E2BIG;
		for (i = 0; i < u->plan.reply_segs; i++) {
			r = ru_reg_seg(x, s, snd, req->rbuf, seg[i].iov_base,
				       seg[i].iov_len, IBV_ACCESS_REMOTE_WRITE,
				       &h.reply.segs[i]);
			if (r)
				return r;
		}
		h.reply.nsegs = u->plan.reply_segs;
		h.has_reply = true;
		ru_chunk_copy(&u->offer.reply, &h.reply);
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_REPLY_CHUNKS);
	}
	switch (u->plan.read) {
	case LX_RPCRDMA_READ_PAYLOAD:
		/* the payload at its XDR position, its pad left out */
		r = ru_reads(x, rq, s, snd, &h, 0, t->payload_segs,
			     (uint32_t)req->sbuf->len);
		if (r)
			return r;
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_READ_CHUNKS);
		break;
	case LX_RPCRDMA_READ_POS0:
		/* the whole message: call, payload, pad */
		h.reads[0].position = 0;
		r = ru_reg_seg(x, s, snd, req->sbuf, req->sbuf->data,
			       req->sbuf->len, IBV_ACCESS_REMOTE_READ,
			       &h.reads[0].seg);
		if (r)
			return r;
		h.nr_reads = 1;
		r = ru_reads(x, rq, s, snd, &h, 0, req->nr_tx_segs, 0);
		if (r)
			return r;
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_POS0_CHUNKS);
		break;
	default:
		break;
	}
	hl = lx_rpcrdma_encode(s->hdr, LX_RPCRDMA_HDR_MAX, &h);
	if (hl < 0)
		return (int)hl;
	u->hdr_len = (size_t)hl;
	return 0;
}

static int ru_marshal(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		      struct lx_xprt_rdma_slot *s,
		      struct lx_xprt_rdma_send *snd)
{
	const struct lx_xprt_rdma_params *p = lx_xprt_rdma_params_of(x);
	struct ru_slot *u = s->ulp;
	int r;

	if (!s->prepared || s->gen != p->gen ||
	    (p->windows && s->win_cookie != p->cookie)) {
		/* first send, a connection with other thresholds, or with
		 * windows any new connection: they are bound to a queue
		 * pair, and a resend gets fresh ones (fresh keys too) */
		lx_xprt_rdma_slot_unreg(x, s, false);
		s->prepared = false;
		r = ru_prepare(x, rq, s, snd, u, p);
		if (r) {
			lx_xprt_rdma_slot_unreg(x, s, false);
			return r;
		}
		s->prepared = true;
		s->gen = p->gen;
	}
	snd->sge[0] = (struct ibv_sge){
		.addr = (uintptr_t)s->hdr,
		.length = (uint32_t)u->hdr_len,
		.lkey = s->hdr_lkey,
	};
	snd->nsge = 1;
	snd->bytes = u->hdr_len;
	switch (u->plan.read) {
	case LX_RPCRDMA_READ_NONE:
		return lx_xprt_rdma_add_msg(x, rq, s, snd, rq->pub.nr_tx_segs);
	case LX_RPCRDMA_READ_PAYLOAD:
		return lx_xprt_rdma_add_msg(x, rq, s, snd, 0);
	default:
		return 0;
	}
}

/*
 * The reply is the reduced stream and @written bytes of bulk data are in
 * the caller's memory: a reply whose results announce more data than
 * that would make the caller read bytes nobody wrote.
 */
static int ru_check_reduced(struct lx_rpc_task *t, struct lx_xprt_req *req,
			    size_t written)
{
	size_t off, len;
	int r;

	if (!t->place)
		return 0;
	/* a bad header or a refusal: the decoder reports it, no data */
	lx_rpc_reply_place(t, req->rbuf->data, req->rlen, &r, &off, &len);
	if (r < 0)
		return r;
	if (r == 0 && len > written)
		return -EBADMSG;
	return 0;
}

static int ru_deliver(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		      struct lx_rpc_task *t,
		      const struct lx_rpcrdma_reply_info *ri,
		      const uint8_t *buf)
{
	struct lx_xprt_req *req = &rq->pub;

	if (ri->write_used)
		atomic_fetch_add_explicit(&x->stats.direct_rx_bytes,
					  ri->write_len, memory_order_relaxed);
	if (ri->in_reply_chunk) {
		/* written by the server into rbuf before its Send */
		if (ri->reply_len > req->rbuf->cap)
			return -EMSGSIZE;
		req->rlen = ri->reply_len;
		req->rx_msg_len = ri->reply_len;
	} else if (ri->write_used || !t->has_rx_dst) {
		if (ri->msg_len > req->rbuf->cap)
			return -EMSGSIZE;
		memcpy(req->rbuf->data, buf + ri->msg_off, ri->msg_len);
		req->rlen = ri->msg_len;
		req->rx_msg_len = ri->msg_len;
	} else {
		/* bulk data inline: placed as over TCP */
		return lx_xprt_rx_deliver(x, rq, buf + ri->msg_off,
					  ri->msg_len);
	}
	return ri->write_used ? ru_check_reduced(t, req, ri->write_len) : 0;
}

static int ru_receive(struct lx_xprt *x, void *buf, size_t len)
{
	struct lx_rpcrdma_reply_info ri;
	struct lx_xprt_rdma_slot *s;
	struct lx_rpcrdma_hdr h;
	struct lx_xprt_rqst *rq;
	struct lx_rpc_task *t;
	long hl;
	int r;

	hl = lx_rpcrdma_decode(buf, len, &h);
	if (hl < 0) {
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_BAD_HEADERS);
		/* a header we cannot read still names its call: fail it
		 * now rather than at its timeout */
		rq = len >= 4 ? lx_xprt_rx_lookup(x, h.xid) : NULL;
		if (!rq)
			return 0;
		lx_xprt_rdma_complete(
			x, rq, hl == -EPROTONOSUPPORT ? -EPROTO : -EBADMSG);
		return 1;
	}
	lx_xprt_rdma_grant(x, h.credits);
	rq = lx_xprt_rx_lookup(x, h.xid);
	if (!rq)
		return 0;
	s = lx_xprt_rdma_slot_of(x, rq->pub.slot);
	lx_xprt_rdma_slot_acquire(s);
	t = lx_rpc_task_of(&rq->pub);
	r = lx_rpcrdma_check_reply(&h, (size_t)hl, len,
				   &((struct ru_slot *)s->ulp)->offer, &ri);
	if (h.proc == RDMA_ERROR) {
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_RDMA_ERRORS);
		if (h.err == LX_RPCRDMA_ERR_VERS) {
			t->info.low = h.vers_low;
			t->info.high = h.vers_high;
		}
	} else if (r) {
		lx_xprt_rdma_stat_inc(x, LX_XPRT_RDMA_ST_BAD_HEADERS);
		/* nothing was placed: the chunks it names are not ours, or
		 * claim more segments or bytes than the call offered */
		lx_xprt_log(x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: rdma: reply to xid 0x%08x refused: "
			    "its chunks break the call's offer (%u Write, %u "
			    "Reply segments returned for %u, %u offered)",
			    x->peer, h.xid, h.nr_writes ? h.writes[0].nsegs : 0,
			    h.has_reply ? h.reply.nsegs : 0,
			    ((struct ru_slot *)s->ulp)->offer.write.nsegs,
			    ((struct ru_slot *)s->ulp)->offer.reply.nsegs);
	}
	if (!r)
		r = ru_deliver(x, rq, t, &ri, buf);
	lx_xprt_rdma_complete(x, rq, r);
	return 1;
}

static void ru_release(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		       struct lx_xprt_rdma_slot *s, int status)
{
	(void)x;
	(void)rq;
	(void)status;
	s->prepared = false;
}

const struct lx_xprt_rdma_ulp lx_rpc_rdma_ulp = {
	.name = "rpc-rdma-v1",
	.framing = &lx_xprt_framing_rpc,
	.hdr_size = LX_RPCRDMA_HDR_MAX,
	.slot_priv = sizeof(struct ru_slot),
	/* receives posted per credit, not per request; no RNR retry */
	.recv_size = ru_recv_size,
	.conn_pdata = ru_conn_pdata,
	.conn_params = ru_conn_params,
	.marshal = ru_marshal,
	.receive = ru_receive,
	.release = ru_release,
};
