// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SunRPC client calls on the transport core.
 *
 * A call is a transport request whose private area holds a struct
 * lx_rpc_task.  The call header is the client's template with XID and
 * procedure patched in; the arguments are encoded by the caller's XDR
 * routine straight into the request's pool buffer (xdrmem); bulk payload
 * segments follow from the caller's memory with their XDR padding.
 *
 * On completion (the transport's done hook, on its receive thread) the
 * reply header is decoded with libtirpc's xdr_replymsg over the receive
 * buffer, the accept/reject status is mapped to an errno (see rpc.h), and
 * on success the caller's XDR routine decodes the results in place.  Async
 * callers are then called back; sync callers are woken.
 *
 * Timeouts follow the Linux client: after timeo the call is retransmitted
 * with the same XID (on whatever connection is current: a reconnect resends
 * it at once), the wait doubles up to timeo_max, and after `retrans`
 * retransmissions the call fails with -ETIMEDOUT (a major timeout).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/proto/rdma.h>

#include "rpc_int.h"
#include "xprt/core/call_int.h"
#include "xprt/blocks/byteorder.h"
#include "xprt/blocks/cong.h"
#include "xprt/core/proto.h"
#include "xprt/blocks/util.h"

#define LX_RPC_DEF_TIMEO_MS 60000u
#define LX_RPC_DEF_RETRANS  2u
#define LX_RPC_DEF_BUF_SIZE 8192u
#define LX_RPC_REPLY_MIN    24u /* xid mtype stat verf(flavor, len) accept */

static const uint8_t lx_rpc_zero_pad[4];

static struct lx_rpc_task *task_of(struct lx_xprt_req *req)
{
	return lx_rpc_task_of(req);
}

/* -------------------------------------------------------------- reply */

/* See rpc_int.h. */
long lx_rpc_reply_hdr_len(const uint8_t *p, size_t have, bool *accepted)
{
	uint32_t vlen;
	size_t len;

	*accepted = false;
	if (have < 12)
		return 0;
	if (lx_xprt_get_be32(p + 4) != REPLY)
		return -EBADMSG;
	if (lx_xprt_get_be32(p + 8) != MSG_ACCEPTED)
		return (long)have; /* a denial: no bulk data follows */
	if (have < 20)
		return 0;
	vlen = lx_xprt_get_be32(p + 16);
	if (vlen > MAX_AUTH_BYTES)
		return -EBADMSG;
	len = 20 + ((vlen + 3) & ~3u) + 4;
	if (have < len)
		return 0;
	*accepted = lx_xprt_get_be32(p + len - 4) == SUCCESS;
	return (long)len;
}

/* Transport hook: find the bulk data of the results for the caller. */
static int lx_rpc_place(struct lx_xprt_req *req, size_t have, size_t msg_len)
{
	struct lx_rpc_task *t = task_of(req);
	size_t off, len;
	long hlen;
	int r;

	/* no bulk data expected: the whole reply goes to rbuf, and
	 * lx_rpc_decode_reply() judges its header (a bad one fails there
	 * with the same -EBADMSG) */
	if (!t->place)
		return 0;
	hlen = lx_rpc_reply_place(t, req->rbuf->data, have, &r, &off, &len);
	if (hlen < 0)
		return (int)hlen;
	(void)msg_len; /* a shorter reply just ends the header early */
	if (hlen == 0)
		/* verifier length unknown yet: ask for the common case */
		return have < 20 ? 24 : (int)have + 4;
	if (r < 0)
		return r;
	if (r > 0)
		return (int)((size_t)hlen + (size_t)r);
	if (len) {
		req->rx_data = t->rx_dst;
		req->rx_data_off = (size_t)hlen + off;
		req->rx_data_len = len;
		req->rx_data_pad = (4 - (len & 3)) & 3;
	}
	return 0;
}

/* Map a decoded reply header to the API's errno, filling @info. */
static int lx_rpc_reply_status(const struct rpc_msg *m,
			       struct lx_rpc_reply_info *info)
{
	info->reply_stat = (int)m->rm_reply.rp_stat;
	if (m->rm_reply.rp_stat == MSG_ACCEPTED) {
		const struct accepted_reply *ar = &m->acpted_rply;

		info->accept_stat = (int)ar->ar_stat;
		switch (ar->ar_stat) {
		case SUCCESS:
			return 0;
		case PROG_UNAVAIL:
			return -EPFNOSUPPORT;
		case PROG_MISMATCH:
			info->low = (uint32_t)ar->ar_vers.low;
			info->high = (uint32_t)ar->ar_vers.high;
			return -EPROTONOSUPPORT;
		case PROC_UNAVAIL:
			return -EOPNOTSUPP;
		case GARBAGE_ARGS:
			return -EINVAL;
		case SYSTEM_ERR:
			return -EREMOTEIO;
		default:
			return -EBADMSG;
		}
	}
	if (m->rm_reply.rp_stat == MSG_DENIED) {
		const struct rejected_reply *rj = &m->rjcted_rply;

		info->reject_stat = (int)rj->rj_stat;
		switch (rj->rj_stat) {
		case RPC_MISMATCH:
			info->low = (uint32_t)rj->rj_vers.low;
			info->high = (uint32_t)rj->rj_vers.high;
			return -EPROTO;
		case AUTH_ERROR:
			info->auth_stat = (int)rj->rj_why;
			return -EACCES;
		default:
			return -EBADMSG;
		}
	}
	return -EBADMSG;
}

/* The results are decoded separately, after the header. */
static bool_t lx_rpc_xdr_later(XDR *xdrs, void *p)
{
	(void)xdrs;
	(void)p;
	return TRUE;
}

/*
 * The common reply, decoded in place: our XID, accepted, any verifier
 * (AUTH_NONE or a short AUTH_SYS/AUTH_SHORT one: skipped, as
 * xdr_replymsg() would only copy it out), SUCCESS.  Return the offset of
 * the results, or 0 for anything else, which goes to libtirpc's decoder
 * (denials, other accept_stats, short or odd replies): the same answers,
 * and the rare cases keep one decoder.
 */
static size_t lx_rpc_fast_hdr(const uint8_t *p, size_t len, uint32_t xid)
{
	uint32_t vlen;
	size_t pos;

	if (len < LX_RPC_REPLY_MIN || lx_xprt_get_be32(p) != xid ||
	    lx_xprt_get_be32(p + 4) != REPLY ||
	    lx_xprt_get_be32(p + 8) != MSG_ACCEPTED)
		return 0;
	vlen = lx_xprt_get_be32(p + 16);
	if (vlen > MAX_AUTH_BYTES)
		return 0;
	pos = 20 + ((vlen + 3) & ~3u);
	if (len < pos + 4 || lx_xprt_get_be32(p + pos) != SUCCESS)
		return 0;
	return pos + 4;
}

/* Decode the results at @pos of the reply. */
static int lx_rpc_decode_results(struct lx_xprt_req *req, struct lx_rpc_task *t,
				 size_t pos)
{
	XDR xdr;
	int status = 0;

	xdrmem_create(&xdr, (char *)req->rbuf->data + pos,
		      (u_int)(req->rlen - pos), XDR_DECODE);
	if (!t->dec(&xdr, t->res))
		status = -EBADMSG;
	xdr_destroy(&xdr);
	return status;
}

/* Any other reply header: libtirpc's xdr_replymsg(), then the results. */
static __attribute__((noinline)) int
lx_rpc_decode_reply_slow(struct lx_xprt_req *req, struct lx_rpc_task *t)
{
	char verf[MAX_AUTH_BYTES];
	struct rpc_msg m;
	u_int pos;
	XDR xdr;
	int status;

	memset(&m, 0, sizeof(m));
	m.acpted_rply.ar_verf.oa_base = verf;
	m.acpted_rply.ar_results.where = NULL;
	m.acpted_rply.ar_results.proc = (xdrproc_t)lx_rpc_xdr_later;
	xdrmem_create(&xdr, req->rbuf->data, (u_int)req->rlen, XDR_DECODE);
	if (!xdr_replymsg(&xdr, &m) || m.rm_xid != t->xid) {
		xdr_destroy(&xdr);
		return -EBADMSG;
	}
	status = lx_rpc_reply_status(&m, &t->info);
	pos = xdr_getpos(&xdr);
	xdr_destroy(&xdr);
	if (!status && t->dec)
		status = lx_rpc_decode_results(req, t, pos);
	return status;
}

/* Decode header and results of a complete reply: the common header in
 * place (lx_rpc_fast_hdr()), anything else by libtirpc. */
static inline int lx_rpc_decode_reply(struct lx_xprt_req *req,
				      struct lx_rpc_task *t)
{
	size_t fast = lx_rpc_fast_hdr(req->rbuf->data, req->rlen, t->xid);

	if (lx_xprt_unlikely(!fast))
		return lx_rpc_decode_reply_slow(req, t);
	t->info.reply_stat = MSG_ACCEPTED;
	t->info.accept_stat = SUCCESS;
	return t->dec ? lx_rpc_decode_results(req, t, fast) : 0;
}

static uint32_t lx_rpc_xid(struct lx_rpc_clnt *cl, struct lx_rpc_task *t,
			   unsigned int slot, unsigned int conn);

/*
 * The caller's again() hook asked to send the call again in @ms (see
 * rpc_again.c).  Its next XID is decided now: the slot's use count is
 * ours until the call completes.  Return true when it goes out again.
 */
static __attribute__((noinline)) bool lx_rpc_done_again(struct lx_xprt_req *req,
							struct lx_rpc_task *t,
							unsigned int ms)
{
	struct lx_rpc_clnt *cl = t->cl;
	unsigned int conn = 0;

	while (conn + 1 < cl->nconn && cl->x[conn] != req->xprt)
		conn++;
	t->again_tries++;
	t->next_xid = lx_rpc_xid(cl, t, req->slot, conn);
	if (t->sync) {
		t->again_ms = ms; /* the waiter sleeps, then sends */
		return true;
	}
	if (lx_rpc_again_queue(req, ms))
		return false;
	lx_xprt_req_park(req); /* lx_call_cancel() reaches us meanwhile */
	return true;
}

/* Transport hook: the outcome, exactly once. */
static void lx_rpc_done(struct lx_xprt_req *req, int status)
{
	struct lx_rpc_task *t = task_of(req);

	if (!status)
		status = lx_rpc_decode_reply(req, t);
	else
		t->info.reply_stat = -1;
	t->status = status;
	if (lx_xprt_unlikely(t->again != NULL) && !status) {
		unsigned int ms =
			t->again(t->again_arg, t->res, t->again_tries);

		if (ms && lx_rpc_done_again(req, t, ms))
			return; /* out again later: done() then */
	}
	if (t->sync)
		return; /* the waiter reads the status and puts */
	if (t->complete)
		t->complete(t->call, status);
	else
		lx_call_done(t->call, status);
	lx_xprt_req_put(req);
}

/* Transport hook: retransmit, or give up. */
static void lx_rpc_timeout(struct lx_xprt_req *req)
{
	struct lx_rpc_task *t = task_of(req);
	uint64_t max_ns = (uint64_t)t->cl->opts.timeo_max_ms * 1000000u;
	uint64_t next, now = 0;

	if (t->deadline_ns) {
		now = lx_xprt_now_ns();
		if (now >= t->deadline_ns) {
			lx_xprt_req_fail(req, -ETIMEDOUT);
			return;
		}
	}
	if (t->retries >= t->cl->opts.retrans && !t->cl->opts.hard) {
		lx_xprt_req_fail(req, -ETIMEDOUT);
		return;
	}
	/* a minor timeout: say so, once per episode (the next reply on the
	 * transport ends it) */
	lx_xprt_not_responding(req->xprt);
	t->retries++;
	t->info.retransmits = t->retries;
	t->timeo_ns = t->timeo_ns * 2 > max_ns ? max_ns : t->timeo_ns * 2;
	/* -EALREADY: still queued (a reconnect resends it): just wait */
	lx_xprt_req_retransmit(req);
	next = t->timeo_ns;
	if (t->deadline_ns && t->deadline_ns - now < next)
		next = t->deadline_ns - now;
	lx_xprt_req_set_timer(req, next);
}

/*
 * Transport hook, lx_call_cancel(): a call in flight fails -ECANCELED; one
 * parked between its JUKEBOX reply and going out again is ended by
 * rpc_again.c.
 */
static int lx_rpc_cancel(struct lx_xprt_req *req)
{
	if (lx_rpc_again_cancel(req))
		return 0;
	/* in flight (again, maybe: resubmitted since it was parked) */
	return lx_xprt_req_cancel(req);
}

static const struct lx_xprt_req_ops lx_rpc_req_ops = {
	.done = lx_rpc_done,
	.place = lx_rpc_place,
	.timeout = lx_rpc_timeout,
	.cancel = lx_rpc_cancel,
};

/* A call without bulk results: the transport puts the whole reply in
 * rbuf without asking (lx_rpc_place() would answer 0 at once). */
static const struct lx_xprt_req_ops lx_rpc_req_ops_noplace = {
	.done = lx_rpc_done,
	.timeout = lx_rpc_timeout,
	.cancel = lx_rpc_cancel,
};

/* --------------------------------------------------------------- call */

static int lx_rpc_encode(struct lx_rpc_clnt *cl, struct lx_xprt_req *req,
			 const struct lx_rpc_call_args *a, uint32_t xid)
{
	struct lx_xprt_buf *b = req->sbuf;
	size_t plen = 0;
	unsigned int i;
	XDR xdr;
	int err;

	if (b->cap < cl->hdr_len)
		return -EINVAL;
	memcpy(b->data, cl->hdr, cl->hdr_len);
	lx_xprt_put_be32(b->data, xid);
	lx_xprt_put_be32((uint8_t *)b->data + LX_RPC_CALL_PROC_OFF, a->proc);
	b->len = (uint32_t)cl->hdr_len;
	if (a->enc) {
		xdrmem_create(&xdr, (char *)b->data + cl->hdr_len,
			      (u_int)(b->cap - cl->hdr_len), XDR_ENCODE);
		if (!a->enc(&xdr, (void *)a->args)) {
			xdr_destroy(&xdr);
			return -EINVAL;
		}
		b->len += xdr_getpos(&xdr);
		xdr_destroy(&xdr);
	}
	for (i = 0; i < a->npayload; i++) {
		err = lx_xprt_req_add_seg(req, a->payload[i].iov_base,
					  a->payload[i].iov_len);
		if (err)
			return -EINVAL;
		plen += a->payload[i].iov_len;
	}
	/* RDMA moves the payload (not its pad) to a Read chunk when large */
	task_of(req)->payload_segs = req->nr_tx_segs;
	task_of(req)->payload_len = plen;
	if (plen & 3)
		return lx_xprt_req_add_seg(req, lx_rpc_zero_pad,
					   4 - (plen & 3)) ?
			       -EINVAL :
			       0;
	return 0;
}

static struct lx_xprt *lx_rpc_pick_xprt(struct lx_rpc_clnt *cl,
					unsigned int *conn)
{
	unsigned int i =
		cl->nconn == 1 ?
			0 :
			atomic_fetch_add_explicit(&cl->next_conn, 1,
						  memory_order_relaxed) %
				cl->nconn;

	*conn = i;
	return cl->x[i];
}

/*
 * The XID of a call: its slot in the low xid_shift bits, so that the
 * transport finds the reply by reading that slot (xprt.c, reply index),
 * and above them a count of the slot's uses, interleaved over the
 * connections and offset by the client's random base.  A given XID
 * comes back only after 2^(32 - xid_shift) / nconnect uses of one slot
 * (67 million with the default 64 slots and one connection): sequential
 * XIDs of one client repeat after 2^32 calls, these after at least as
 * many unless one slot takes every call, and never across the client's
 * connections (servers key their duplicate caches by XID and address).
 */
static uint32_t lx_rpc_xid(struct lx_rpc_clnt *cl, struct lx_rpc_task *t,
			   unsigned int slot, unsigned int conn)
{
	uint32_t hi;

	if (lx_xprt_unlikely(cl->xid_pinned))
		return atomic_fetch_add_explicit(&cl->xid, 1,
						 memory_order_relaxed);
	hi = atomic_load_explicit(&cl->xid, memory_order_relaxed) +
	     t->xid_gen++ * cl->nconn + conn;
	return (uint32_t)((uint64_t)hi << cl->xid_shift) | slot;
}

/*
 * Allocate, encode and submit; on success the request is in flight.
 * *reqp is set before the submit: an async completion may run (and the
 * request be released) before this returns.
 */
static int lx_rpc_start(struct lx_rpc_clnt *cl,
			const struct lx_rpc_call_args *a, struct lx_call *call,
			lx_rpc_complete_fn complete, struct lx_xprt_req **reqp)
{
	bool sync = !call;
	unsigned int conn;
	struct lx_xprt *x = lx_rpc_pick_xprt(cl, &conn);
	struct lx_xprt_req *req;
	struct lx_rpc_task *t;
	unsigned int dl;
	uint32_t xid;
	int err;

	err = lx_xprt_req_alloc(
		x, call && (call->flags & LX_CALL_NOWAIT) ? LX_XPRT_NOWAIT : 0,
		&req);
	if (err)
		return err;
	t = task_of(req);
	/* every field up to next_xid, one by one rather than a memset of
	 * them all: most are set from @a below anyway.  Not the slot's use
	 * count, which XIDs are made of, nor the retry list's fields, set
	 * when a call is sent again. */
	t->has_rx_dst = false;
	t->payload_segs = 0;
	t->payload_len = 0;
	t->retries = 0;
	t->deadline_ns = 0;
	t->status = 0;
	t->info = (struct lx_rpc_reply_info){.reply_stat = -1};
	t->again_tries = 0;
	t->again_ms = 0;
	t->cl = cl;
	t->dec = a->dec;
	t->res = a->res;
	t->call = call;
	t->complete = complete;
	t->sync = sync;
	t->place = a->place;
	t->place_arg = a->place_arg;
	t->reply_hint = a->reply_hint;
	if (lx_xprt_unlikely(a->reply_hint > cl->opts.buf_size) &&
	    a->reply_hint > req->rbuf->cap &&
	    cl->opts.transport == LX_XPRT_TRANSPORT_RDMA) {
		/* over RDMA a large reply is written into the Reply chunk,
		 * which is the reply buffer: one of the reply's size */
		err = lx_xprt__req_grow_rbuf(
			req, a->reply_hint,
			call && (call->flags & LX_CALL_NOWAIT) ?
				LX_XPRT_NOWAIT :
				0);
		if (err)
			goto out_put;
	}
	t->again = a->again;
	t->again_arg = a->again_arg;
	if (a->rx_iov && a->place) {
		err = lx_xprt_iter_iovec(&t->rx_dst, a->rx_iov, a->rx_iovcnt,
					 a->rx_len ? a->rx_len : SIZE_MAX);
		if (!err && lx_xprt_iter_count(&t->rx_dst) < a->rx_len)
			err = -EINVAL; /* buffers smaller than rx_len */
		if (err)
			goto out_put;
		t->has_rx_dst = true;
		/* the bulk data to expect: TCP reads the reply for it */
		req->rx_hint = lx_xprt_iter_count(&t->rx_dst);
	} else {
		t->place = NULL;
	}
	t->timeo_ns =
		(uint64_t)(a->timeo_ms ? a->timeo_ms : cl->opts.timeo_ms) *
		1000000u;
	dl = a->deadline_ms ? a->deadline_ms : cl->opts.deadline_ms;
	if (lx_xprt_unlikely(dl))
		t->deadline_ns = lx_xprt_now_ns() + (uint64_t)dl * 1000000u;
	xid = lx_rpc_xid(cl, t, req->slot, conn);
	t->xid = xid;
	t->info.xid = xid;

	err = lx_rpc_encode(cl, req, a, xid);
	if (err)
		goto out_put;
	req->ops = t->place ? &lx_rpc_req_ops : &lx_rpc_req_ops_noplace;
	req->will_wait = sync;
	if (call) {
		req->owner = call->owner;
		call->res = a->res;
		call->proto_status = 0;
		call->count = 0;
		lx_xprt_call_set(call, req); /* before the submit, see there */
	}
	*reqp = req;
	/* armed by the submit itself: a fast async completion may release
	 * the request before lx_xprt_req_submit() even returns */
	req->timeout_ns = t->timeo_ns;
	if (dl && (uint64_t)dl * 1000000u < t->timeo_ns)
		req->timeout_ns = (uint64_t)dl * 1000000u;
	err = lx_xprt_req_submit(req, xid);
	if (err)
		goto out_put;
	return 0;

out_put:
	lx_xprt_req_put(req);
	return err;
}

/* See rpc_int.h. */
int lx_rpc__call_async(struct lx_rpc_clnt *cl, struct lx_call *call,
		       const struct lx_rpc_call_args *a,
		       lx_rpc_complete_fn complete)
{
	struct lx_xprt_req *req;

	if (!cl || !a || !call || !call->done)
		return -EINVAL;
	return lx_rpc_start(cl, a, call, complete, &req);
}

int lx_rpc_call_async(struct lx_rpc_clnt *cl, struct lx_call *call,
		      const struct lx_rpc_call_args *a)
{
	return lx_rpc__call_async(cl, call, a, NULL);
}

/* A sync call sent again after a delay (lx_rpc_again_fn): we wait here. */
static __attribute__((noinline)) void lx_rpc_sync_again(struct lx_xprt_req *req,
							struct lx_rpc_task *t)
{
	struct timespec ts;
	int err;

	while (t->again_ms) {
		ts.tv_sec = t->again_ms / 1000;
		ts.tv_nsec = (long)(t->again_ms % 1000) * 1000000;
		if (lx_xprt_unlikely(t->cl->opts.mode == LX_XPRT_MODE_CALLER)) {
			/* the owner's other calls go on meanwhile */
			lx_xprt_loop_run(req->xprt, NULL, UINT_MAX,
					 lx_xprt_now_ns() +
						 (uint64_t)t->again_ms *
							 1000000u);
			ts.tv_sec = 0;
			ts.tv_nsec = 0;
		}
		t->again_ms = 0;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		err = lx_rpc_again_send(req);
		if (err) {
			t->status = err;
			return;
		}
		lx_xprt_req_put(req); /* resubmit's extra reference */
		lx_xprt_req_done_wait(req, -1);
	}
}

int lx_rpc_call_sync(struct lx_rpc_clnt *cl, const struct lx_rpc_call_args *a,
		     struct lx_rpc_reply_info *info)
{
	struct lx_xprt_req *req;
	struct lx_rpc_task *t;
	int err;

	if (!cl || !a)
		return -EINVAL;
	err = lx_rpc_start(cl, a, NULL, NULL, &req);
	if (err)
		return err;
	lx_xprt_req_done_wait(req, -1);
	t = task_of(req);
	if (lx_xprt_unlikely(t->again_ms))
		lx_rpc_sync_again(req, t);
	err = t->status;
	if (info)
		*info = t->info;
	lx_xprt_req_put(req);
	return err;
}

int lx_rpc_call_simple(struct lx_rpc_clnt *cl, uint32_t proc, xdrproc_t enc,
		       const void *args, xdrproc_t dec, void *res)
{
	struct lx_rpc_call_args a = {
		.proc = proc,
		.enc = enc,
		.args = args,
		.dec = dec,
		.res = res,
	};

	return lx_rpc_call_sync(cl, &a, NULL);
}

int lx_rpc_null(struct lx_rpc_clnt *cl)
{
	return lx_rpc_call_simple(cl, 0, NULL, NULL, NULL, NULL);
}

const struct lx_rpc_reply_info *lx_rpc_call_info(const struct lx_call *call)
{
	struct lx_xprt_req *req =
		call ? lx_xprt_call_req((struct lx_call *)call) : NULL;

	return req ? &task_of(req)->info : NULL;
}

/* ------------------------------------------------------------- client */

static void lx_rpc_apply_defaults(struct lx_rpc_opts *o)
{
	if (!o->nconnect)
		o->nconnect = 1;
	if (!o->buf_size)
		o->buf_size = LX_RPC_DEF_BUF_SIZE;
	if (!o->timeo_ms)
		o->timeo_ms = LX_RPC_DEF_TIMEO_MS;
	if (!o->timeo_max_ms)
		o->timeo_max_ms = 10 * o->timeo_ms;
	if (!o->retrans)
		o->retrans = LX_RPC_DEF_RETRANS;
	else if (o->retrans == LX_RPC_NO_RETRANS)
		o->retrans = 0;
}

/*
 * Caller-driven with several connections: one descriptor for the client,
 * an epoll set of theirs (each is an epoll set itself, readable when
 * anything of its connection is due).
 */
static int lx_rpc_loop_set(struct lx_rpc_clnt *cl)
{
	struct epoll_event ev = {.events = EPOLLIN};
	unsigned int i;
	int err;

	if (cl->nconn < 2)
		return 0;
	cl->loop_ep = epoll_create1(EPOLL_CLOEXEC);
	if (cl->loop_ep < 0)
		return -errno;
	for (i = 0; i < cl->nconn; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(cl->loop_ep, EPOLL_CTL_ADD,
			      lx_xprt_loop_fd(cl->x[i]), &ev) < 0) {
			err = -errno;
			close(cl->loop_ep);
			cl->loop_ep = -1;
			return err;
		}
	}
	return 0;
}

/* See rpc_int.h. */
int lx_rpc__create(struct lx_rpc_clnt **clp, const struct lx_rpc_opts *opts,
		   const struct lx_xprt_rdma_ulp *ulp)
{
	struct lx_xprt_pool_opts po = {0};
	struct lx_xprt_opts xo = {0};
	struct lx_rpc_clnt *cl;
	unsigned int i;
	uint32_t seed;
	int err;

	if (!clp || !opts || !opts->host || !opts->port ||
	    opts->nconnect > LX_RPC_MAX_CONN ||
	    (opts->transport == LX_XPRT_TRANSPORT_RDMA && !ulp))
		return -EINVAL;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	cl->opts = *opts;
	cl->loop_ep = -1;
	lx_rpc_apply_defaults(&cl->opts);
	if (cl->opts.buf_size < LX_RPC_HDR_MAX) {
		err = -EINVAL;
		goto out_free;
	}
	err = lx_rpc_build_header(cl);
	if (err)
		goto out_free;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint32_t)lx_xprt_now_ns();
	atomic_store(&cl->xid, seed);

	if (cl->opts.transport == LX_XPRT_TRANSPORT_RDMA) {
		/* RPC-over-RDMA: our binding, the server's credit grants,
		 * and pool slabs registered once for the device */
		if (opts->rdma)
			cl->rdma =
				*(const struct lx_xprt_rdma_opts *)opts->rdma;
		cl->rdma.ulp = ulp;
		xo.rdma = &cl->rdma;
		xo.cong = LX_XPRT_CONG_GRANT;
		po.reg = lx_xprt_rdma_pool_reg();
	}

	xo.transport = cl->opts.transport;
	xo.host = cl->opts.host;
	xo.port = cl->opts.port;
	xo.framing = &lx_xprt_framing_rpc;
	xo.max_reqs = cl->opts.max_reqs;
	xo.max_in_flight = cl->opts.max_in_flight;
	xo.buf_size = cl->opts.buf_size;
	xo.req_priv = sizeof(struct lx_rpc_task);
	xo.policy = LX_XPRT_RESEND;
	xo.reconnect_give_up_ms = cl->opts.reconnect_give_up_ms;
	xo.xmit_fifo = cl->opts.xmit_fifo;
	xo.log = cl->opts.log;
	xo.log_arg = cl->opts.log_arg;
	xo.zerocopy = cl->opts.zerocopy;
	xo.mode = cl->opts.mode;
	/* soft: a call the server drops the connection on, retrans + 1
	 * times before any reply, is not going to be answered */
	xo.early_loss_limit = cl->opts.hard ? 0 : cl->opts.retrans + 1;
	lx_xprt__slot_pool_opts(
		&po, cl->opts.buf_size,
		(size_t)(cl->opts.max_reqs ? cl->opts.max_reqs : 64) *
			cl->opts.nconnect);
	err = lx_rpc_again_init(cl);
	if (err)
		goto out_free;
	if (cl->opts.pool) {
		/* shared: each connection takes the class of buf_size, and
		 * (RDMA) has the pool registered, once for all its users */
		xo.pool = cl->opts.pool;
	} else {
		err = lx_xprt_pool_create(&cl->pool, &po);
		if (err)
			goto out_again;
		xo.pool = cl->pool;
	}
	for (i = 0; i < cl->opts.nconnect; i++) {
		err = lx_xprt_create(&cl->x[i], &xo);
		if (err)
			goto out_xprts;
		/* our pool holds two buffers a slot of every connection; a
		 * shared one's buffers go back after each call, for the
		 * other clients on it */
		if (cl->pool)
			lx_xprt__keep_bufs(cl->x[i]);
		cl->nconn++;
	}
	if (cl->opts.mode == LX_XPRT_MODE_CALLER) {
		err = lx_rpc_loop_set(cl);
		if (err)
			goto out_xprts;
		lx_rpc_again_loop(cl); /* JUKEBOX retries: the loop's timers */
	}
	/* as many bits as the transports' key_mask (xprt.h: reply keys) */
	while ((1u << cl->xid_shift) < lx_xprt_max_reqs(cl->x[0]))
		cl->xid_shift++;
	*clp = cl;
	return 0;

out_xprts:
	while (i--)
		lx_xprt_destroy(cl->x[i]);
	lx_xprt_pool_destroy(cl->pool);
out_again:
	lx_rpc_again_stop(cl);
out_free:
	free(cl);
	return err;
}

void lx_rpc_destroy(struct lx_rpc_clnt *cl)
{
	unsigned int i;

	if (!cl)
		return;
	/* first: nothing waiting to go out again is resubmitted from now
	 * on, and what waits ends -ESHUTDOWN.  Not in a child of the
	 * process that made @cl: the retry thread is the parent's, and so
	 * are the calls that wait (lx_xprt_destroy() forgets the rest). */
	if (!lx_xprt__forked(cl->x[0]))
		lx_rpc_again_stop(cl);
	for (i = 0; i < cl->nconn; i++)
		lx_xprt_destroy(cl->x[i]);
	lx_xprt_pool_destroy(cl->pool);
	if (cl->loop_ep >= 0)
		close(cl->loop_ep);
	free(cl);
}

struct lx_xprt *lx_rpc_xprt(const struct lx_rpc_clnt *cl, unsigned int i)
{
	return i < cl->nconn ? cl->x[i] : NULL;
}

unsigned int lx_rpc_nconnect(const struct lx_rpc_clnt *cl)
{
	return cl->nconn;
}

void lx_rpc_stats(const struct lx_rpc_clnt *cl, struct lx_rpc_stats *st)
{
	struct lx_xprt_stats one;
	uint64_t *sum = (uint64_t *)&st->xprt;
	const uint64_t *add = (const uint64_t *)&one;
	unsigned int i, k;

	_Static_assert(sizeof(struct lx_xprt_stats) % sizeof(uint64_t) == 0,
		       "struct lx_xprt_stats is all uint64_t counters");
	memset(st, 0, sizeof(*st));
	st->nconnect = cl->nconn;
	for (i = 0; i < cl->nconn; i++) {
		lx_xprt_stats(cl->x[i], &one);
		for (k = 0; k < sizeof(one) / sizeof(uint64_t); k++)
			sum[k] += add[k];
	}
}

/* Caller-driven mode: one connection's loop, or several in one set. */
int lx_rpc_loop_fd(const struct lx_rpc_clnt *cl)
{
	int fd;

	if (!cl)
		return -EINVAL;
	fd = lx_xprt_loop_fd(cl->x[0]); /* its errors: -EINVAL, -ECHILD */
	return fd >= 0 && cl->loop_ep >= 0 ? cl->loop_ep : fd;
}

unsigned int lx_rpc_loop_events(const struct lx_rpc_clnt *cl)
{
	return cl ? lx_xprt_loop_events(cl->x[0]) : 0;
}

int lx_rpc_loop_service(struct lx_rpc_clnt *cl, unsigned int revents)
{
	unsigned int i;
	int n = 0, r;

	if (!cl)
		return -EINVAL;
	for (i = 0; i < cl->nconn; i++) {
		r = lx_xprt_loop_service(cl->x[i], i ? 0 : revents);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}

int lx_rpc_loop_run(struct lx_rpc_clnt *cl, struct lx_call *until,
		    unsigned int min_done, uint64_t deadline_ns)
{
	int fd = lx_rpc_loop_fd(cl);

	if (fd < 0)
		return fd;
	return lx_xprt__loop_run_set(cl->x, cl->nconn, fd, until, min_done,
				     deadline_ns);
}
