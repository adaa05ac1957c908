// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SunRPC client calls on the transport core.
 *
 * A call is a transport request whose private area holds a struct
 * rpc_task.  The call header is the client's template with XID and
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <libxprt/rdma.h>

#include "rpc_int.h"
#include "xprt/cong.h"
#include "xprt/util.h"

#define RPC_DEF_TIMEO_MS 60000u
#define RPC_DEF_RETRANS	 2u
#define RPC_DEF_BUF_SIZE 8192u
#define RPC_REPLY_MIN	 24u /* xid mtype stat verf(flavor, len) accept */

static const uint8_t rpc_zero_pad[4];

static struct rpc_task *task_of(struct xprt_req *req)
{
	return rpc_task_of(req);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* -------------------------------------------------------------- reply */

/* See rpc_int.h. */
long rpc_reply_hdr_len(const uint8_t *p, size_t have, bool *accepted)
{
	uint32_t vlen;
	size_t len;

	*accepted = false;
	if (have < 12)
		return 0;
	if (get_be32(p + 4) != REPLY)
		return -EBADMSG;
	if (get_be32(p + 8) != MSG_ACCEPTED)
		return (long)have; /* a denial: no bulk data follows */
	if (have < 20)
		return 0;
	vlen = get_be32(p + 16);
	if (vlen > MAX_AUTH_BYTES)
		return -EBADMSG;
	len = 20 + ((vlen + 3) & ~3u) + 4;
	if (have < len)
		return 0;
	*accepted = get_be32(p + len - 4) == SUCCESS;
	return (long)len;
}

/* Transport hook: find the bulk data of the results for the caller. */
static int rpc_place(struct xprt_req *req, size_t have, size_t msg_len)
{
	struct rpc_task *t = task_of(req);
	const uint8_t *p = req->rbuf->data;
	size_t off = 0, len = 0;
	bool accepted;
	long hlen;
	int r;

	hlen = rpc_reply_hdr_len(p, have, &accepted);
	if (hlen < 0)
		return (int)hlen;
	(void)msg_len; /* a shorter reply just ends the header early */
	if (hlen == 0)
		/* verifier length unknown yet: ask for the common case */
		return have < 20 ? 24 : (int)have + 4;
	if (!accepted || !t->place)
		return 0;
	r = t->place(t->place_arg, p + hlen, have - (size_t)hlen, &off, &len);
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
static int rpc_reply_status(const struct rpc_msg *m,
			    struct rpc_reply_info *info)
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
static bool_t rpc_xdr_later(XDR *xdrs, void *p)
{
	(void)xdrs;
	(void)p;
	return TRUE;
}

/* Decode header and results of a complete reply. */
static int rpc_decode_reply(struct xprt_req *req, struct rpc_task *t)
{
	char verf[MAX_AUTH_BYTES];
	struct rpc_msg m;
	u_int pos;
	XDR xdr;
	int status;

	memset(&m, 0, sizeof(m));
	m.acpted_rply.ar_verf.oa_base = verf;
	m.acpted_rply.ar_results.where = NULL;
	m.acpted_rply.ar_results.proc = (xdrproc_t)rpc_xdr_later;
	xdrmem_create(&xdr, req->rbuf->data, (u_int)req->rlen, XDR_DECODE);
	if (!xdr_replymsg(&xdr, &m) || m.rm_xid != t->xid) {
		xdr_destroy(&xdr);
		return -EBADMSG;
	}
	status = rpc_reply_status(&m, &t->info);
	if (!status && t->dec) {
		pos = xdr_getpos(&xdr);
		xdr_destroy(&xdr);
		xdrmem_create(&xdr, (char *)req->rbuf->data + pos,
			      (u_int)(req->rlen - pos), XDR_DECODE);
		if (!t->dec(&xdr, t->res))
			status = -EBADMSG;
	}
	xdr_destroy(&xdr);
	return status;
}

/* Transport hook: the outcome, exactly once. */
static void rpc_done(struct xprt_req *req, int status)
{
	struct rpc_task *t = task_of(req);

	if (!status)
		status = rpc_decode_reply(req, t);
	else
		t->info.reply_stat = -1;
	t->status = status;
	if (t->sync)
		return; /* the waiter reads the status and puts */
	t->done((struct rpc_call *)req, status, t->arg);
	xprt_req_put(req);
}

/* Transport hook: retransmit, or give up. */
static void rpc_timeout(struct xprt_req *req)
{
	struct rpc_task *t = task_of(req);
	uint64_t max_ns = (uint64_t)t->cl->opts.timeo_max_ms * 1000000u;

	if (t->retries >= t->cl->opts.retrans) {
		xprt_req_fail(req, -ETIMEDOUT);
		return;
	}
	t->retries++;
	t->info.retransmits = t->retries;
	t->timeo_ns = t->timeo_ns * 2 > max_ns ? max_ns : t->timeo_ns * 2;
	/* -EALREADY: still queued (a reconnect resends it): just wait */
	xprt_req_retransmit(req);
	xprt_req_set_timer(req, t->timeo_ns);
}

static const struct xprt_req_ops rpc_req_ops = {
	.done = rpc_done,
	.place = rpc_place,
	.timeout = rpc_timeout,
};

/* --------------------------------------------------------------- call */

static int rpc_encode(struct rpc_clnt *cl, struct xprt_req *req,
		      const struct rpc_call_args *a, uint32_t xid)
{
	struct xprt_buf *b = req->sbuf;
	size_t plen = 0;
	unsigned int i;
	XDR xdr;
	int err;

	if (b->cap < cl->hdr_len)
		return -EINVAL;
	memcpy(b->data, cl->hdr, cl->hdr_len);
	put_be32(b->data, xid);
	put_be32((uint8_t *)b->data + RPC_CALL_PROC_OFF, a->proc);
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
		err = xprt_req_add_seg(req, a->payload[i].iov_base,
				       a->payload[i].iov_len);
		if (err)
			return -EINVAL;
		plen += a->payload[i].iov_len;
	}
	/* RDMA moves the payload (not its pad) to a Read chunk when large */
	task_of(req)->payload_segs = req->nr_tx_segs;
	task_of(req)->payload_len = plen;
	if (plen & 3)
		return xprt_req_add_seg(req, rpc_zero_pad, 4 - (plen & 3)) ?
			       -EINVAL :
			       0;
	return 0;
}

static struct xprt *rpc_pick_xprt(struct rpc_clnt *cl)
{
	unsigned int i = atomic_fetch_add_explicit(&cl->next_conn, 1,
						   memory_order_relaxed);

	return cl->x[i % cl->nconn];
}

/*
 * Allocate, encode and submit; on success the request is in flight.
 * *reqp is set before the submit: an async completion may run (and the
 * request be released) before this returns.
 */
static int rpc_start(struct rpc_clnt *cl, const struct rpc_call_args *a,
		     bool sync, rpc_done_fn done, void *arg,
		     struct xprt_req **reqp)
{
	struct xprt *x = rpc_pick_xprt(cl);
	struct xprt_req *req;
	struct rpc_task *t;
	uint32_t xid;
	int err;

	err = xprt_req_alloc(x, (a->flags & RPC_CALL_NOWAIT) ? XPRT_NOWAIT : 0,
			     &req);
	if (err)
		return err;
	t = task_of(req);
	memset(t, 0, sizeof(*t));
	t->cl = cl;
	t->dec = a->dec;
	t->res = a->res;
	t->done = done;
	t->arg = arg;
	t->sync = sync;
	t->place = a->place;
	t->place_arg = a->place_arg;
	t->reply_hint = a->reply_hint;
	if (a->rx_dst) {
		t->rx_dst = *a->rx_dst;
		t->has_rx_dst = true;
	} else {
		t->place = NULL;
	}
	t->timeo_ns =
		(uint64_t)(a->timeo_ms ? a->timeo_ms : cl->opts.timeo_ms) *
		1000000u;
	xid = atomic_fetch_add_explicit(&cl->xid, 1, memory_order_relaxed);
	t->xid = xid;
	t->info.xid = xid;
	t->info.reply_stat = -1;

	err = rpc_encode(cl, req, a, xid);
	if (err)
		goto out_put;
	req->ops = &rpc_req_ops;
	req->owner = a->owner;
	req->will_wait = sync;
	*reqp = req;
	/* armed by the submit itself: a fast async completion may release
	 * the request before xprt_req_submit() even returns */
	req->timeout_ns = t->timeo_ns;
	err = xprt_req_submit(req, xid);
	if (err)
		goto out_put;
	return 0;

out_put:
	xprt_req_put(req);
	return err;
}

int rpc_call_async(struct rpc_clnt *cl, const struct rpc_call_args *a,
		   rpc_done_fn done, void *arg, struct rpc_call **callp)
{
	struct xprt_req *req;
	int err;

	if (!cl || !a || !done)
		return -EINVAL;
	err = rpc_start(cl, a, false, done, arg,
			callp ? (struct xprt_req **)callp : &req);
	return err;
}

int rpc_call_sync(struct rpc_clnt *cl, const struct rpc_call_args *a,
		  struct rpc_reply_info *info)
{
	struct xprt_req *req;
	struct rpc_task *t;
	int err;

	if (!cl || !a)
		return -EINVAL;
	err = rpc_start(cl, a, true, NULL, NULL, &req);
	if (err)
		return err;
	xprt_req_done_wait(req, -1);
	t = task_of(req);
	err = t->status;
	if (info)
		*info = t->info;
	xprt_req_put(req);
	return err;
}

int rpc_call_simple(struct rpc_clnt *cl, uint32_t proc, xdrproc_t enc,
		    const void *args, xdrproc_t dec, void *res)
{
	struct rpc_call_args a = {
		.proc = proc,
		.enc = enc,
		.args = args,
		.dec = dec,
		.res = res,
	};

	return rpc_call_sync(cl, &a, NULL);
}

int rpc_null(struct rpc_clnt *cl)
{
	return rpc_call_simple(cl, 0, NULL, NULL, NULL, NULL);
}

int rpc_call_cancel(struct rpc_call *call)
{
	if (!call)
		return -EINVAL;
	return xprt_req_cancel((struct xprt_req *)call);
}

const struct rpc_reply_info *rpc_call_info(const struct rpc_call *call)
{
	return &task_of((struct xprt_req *)call)->info;
}

/* ------------------------------------------------------------- client */

static void rpc_apply_defaults(struct rpc_clnt_opts *o)
{
	if (!o->nconnect)
		o->nconnect = 1;
	if (!o->buf_size)
		o->buf_size = RPC_DEF_BUF_SIZE;
	if (!o->timeo_ms)
		o->timeo_ms = RPC_DEF_TIMEO_MS;
	if (!o->timeo_max_ms)
		o->timeo_max_ms = 10 * o->timeo_ms;
	if (!o->retrans)
		o->retrans = RPC_DEF_RETRANS;
	else if (o->retrans == RPC_NO_RETRANS)
		o->retrans = 0;
}

int rpc_clnt_create(struct rpc_clnt **clp, const struct rpc_clnt_opts *opts)
{
	struct xprt_pool_opts po = {0};
	struct xprt_opts xo = {0};
	struct rpc_clnt *cl;
	unsigned int i;
	uint32_t seed;
	int err;

	if (!clp || !opts || !opts->host || opts->nconnect > RPC_MAX_CONN)
		return -EINVAL;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	cl->opts = *opts;
	rpc_apply_defaults(&cl->opts);
	if (cl->opts.buf_size < RPC_HDR_MAX) {
		err = -EINVAL;
		goto out_free;
	}
	err = rpc_build_header(cl);
	if (err)
		goto out_free;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint32_t)xprt_now_ns();
	atomic_store(&cl->xid, seed);

	if (!cl->opts.port) {
		/* rpcbind maps TCP ports: RDMA needs an explicit one */
		err = cl->opts.transport == XPRT_TRANSPORT_RDMA ?
			      -EINVAL :
			      rpcbind_getport_tcp(cl->opts.host, cl->opts.prog,
						  cl->opts.vers,
						  &cl->opts.port);
		if (err)
			goto out_free;
	}
	if (cl->opts.transport == XPRT_TRANSPORT_RDMA) {
		/* RPC-over-RDMA: our binding, the server's credit grants,
		 * and pool slabs registered once for the device */
		if (opts->rdma)
			cl->rdma = *(const struct xprt_rdma_opts *)opts->rdma;
		cl->rdma.ulp = &rpc_rdma_ulp;
		xo.rdma = &cl->rdma;
		xo.cong = XPRT_CONG_GRANT;
		po.reg = xprt_rdma_pool_reg();
	}

	xo.transport = cl->opts.transport;
	xo.host = cl->opts.host;
	xo.port = cl->opts.port;
	xo.framing = &xprt_framing_rpc;
	xo.max_reqs = cl->opts.max_reqs;
	xo.buf_size = cl->opts.buf_size;
	xo.req_priv = sizeof(struct rpc_task);
	xo.policy = XPRT_RESEND;
	xo.reconnect_give_up_ms = cl->opts.reconnect_give_up_ms;
	po.buf_size = cl->opts.buf_size;
	po.max_bytes = 2 * cl->opts.buf_size *
			       (cl->opts.max_reqs ? cl->opts.max_reqs : 64) *
			       cl->opts.nconnect +
		       1;
	err = xprt_pool_create(&cl->pool, &po);
	if (err)
		goto out_free;
	xo.pool = cl->pool;
	for (i = 0; i < cl->opts.nconnect; i++) {
		err = xprt_create(&cl->x[i], &xo);
		if (err)
			goto out_xprts;
		cl->nconn++;
	}
	*clp = cl;
	return 0;

out_xprts:
	while (i--)
		xprt_destroy(cl->x[i]);
	xprt_pool_destroy(cl->pool);
out_free:
	free(cl);
	return err;
}

void rpc_clnt_destroy(struct rpc_clnt *cl)
{
	unsigned int i;

	if (!cl)
		return;
	for (i = 0; i < cl->nconn; i++)
		xprt_destroy(cl->x[i]);
	xprt_pool_destroy(cl->pool);
	free(cl);
}

struct xprt *rpc_clnt_xprt(const struct rpc_clnt *cl, unsigned int i)
{
	return i < cl->nconn ? cl->x[i] : NULL;
}

unsigned int rpc_clnt_nconnect(const struct rpc_clnt *cl)
{
	return cl->nconn;
}

const char *rpc_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EPFNOSUPPORT:
		return "program unavailable (PROG_UNAVAIL)";
	case -EPROTONOSUPPORT:
		return "program version mismatch (PROG_MISMATCH)";
	case -EOPNOTSUPP:
		return "procedure unavailable (PROC_UNAVAIL)";
	case -EINVAL:
		return "server could not decode arguments (GARBAGE_ARGS), or bad arguments";
	case -EREMOTEIO:
		return "server system error (SYSTEM_ERR)";
	case -EPROTO:
		return "RPC version mismatch (RPC_MISMATCH)";
	case -EACCES:
		return "authentication error (AUTH_ERROR)";
	case -EBADMSG:
		return "malformed reply";
	case -EMSGSIZE:
		return "reply too large for the call's buffers";
	case -ETIMEDOUT:
		return "timed out (major timeout)";
	case -ECANCELED:
		return "cancelled";
	case -ENOTCONN:
		return "not connected (gave up reconnecting)";
	case -ESHUTDOWN:
		return "client shut down";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
