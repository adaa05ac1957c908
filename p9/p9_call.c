// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 9P request engine on the transport core.
 *
 * Tags.  A call is a transport request slot and its slot number is its 9P
 * tag (slots are 0 .. max_reqs-1 <= 0xFFFE, so NOTAG is never a slot);
 * the reply index is keyed by the tag.  Only Tversion travels under the
 * key NOTAG, sent before anything else can use the session.
 *
 * Replies.  The place() hook sees the first bytes of each reply.  For an
 * Rread (or Rreaddir) answering a call that gave a destination, it asks
 * for the 11-byte header, checks the count against what was asked for
 * (more is -EPROTO: nothing is ever written past the caller's buffer) and
 * against the size field, and has the transport put the data straight into
 * the caller's memory.  Every reply larger than msize is refused there
 * (-EMSGSIZE) and discarded by the transport, which keeps the stream in
 * step.  done() decodes the rest with the strict codec, maps Rlerror (and
 * ganesha's type-107 form of it) to a negative errno, and checks that the
 * reply's type answers the request (else -EPROTO).
 *
 * Completion callbacks run on the receive thread (or on whichever thread
 * decided the outcome).  Timeouts and cancels go through Tflush
 * (p9_flush.c, whose Tflush requests have hooks of their own); encoding
 * and submitting are p9_req.c's, below both.
 */
#include <errno.h>
#include <string.h>

#include "p9_int.h"
#include "xprt/blocks/byteorder.h"
#include "xprt/blocks/util.h"

/* ------------------------------------------------------------ starting */

/* Inline in every starter: a call level less on the I/O paths. */
static inline __attribute__((always_inline)) int
lx_p9_alloc(struct lx_p9_clnt *c, unsigned int flags, uint8_t kind,
	    struct lx_xprt_req **reqp)
{
	struct lx_xprt_req *req;
	struct lx_p9_call *pc;
	enum lx_xprt_state s;
	int err;

	if (atomic_load(&c->broken))
		return lx_p9_gone(c);
	s = lx_xprt_state(c->x);
	if (s != LX_XPRT_CONNECTED && s != LX_XPRT_CONNECTING)
		return lx_p9_gone(c);
	err = lx_xprt_req_alloc(
		c->x, (flags & LX_CALL_NOWAIT) ? LX_XPRT_NOWAIT : 0, &req);
	if (err)
		return err;
	pc = lx_p9_call_of(req);
	pc->c = c;
	pc->kind = kind;
	pc->server_err = false;
	atomic_store_explicit(&pc->finished, false, memory_order_relaxed);
	pc->status = 0;
	pc->want = 0;
	pc->rdata = NULL;
	pc->timeout_ns = c->timeout_ns;
	pc->call = NULL;
	/* the flush state is all zero unless this slot's last call was
	 * flushed (@target and a Tflush's own fields: p9_flush.c's) */
	if (lx_xprt_unlikely(pc->fl_used))
		lx_p9_flush_reset(pc);
	req->ops = &lx_p9_req_ops;
	/* a thread waits for it in lx_xprt_req_done_wait(): the transport
	 * may let that thread receive the reply itself (no wake-up) */
	req->will_wait = kind == LX_P9C_SYNC || kind == LX_P9C_VERSION;
	*reqp = req;
	return 0;
}

static bool lx_p9_is_tmsg(uint8_t type)
{
	switch (type) {
	case LX_P9_TSTATFS:
	case LX_P9_TLOPEN:
	case LX_P9_TLCREATE:
	case LX_P9_TSYMLINK:
	case LX_P9_TMKNOD:
	case LX_P9_TRENAME:
	case LX_P9_TREADLINK:
	case LX_P9_TGETATTR:
	case LX_P9_TSETATTR:
	case LX_P9_TXATTRWALK:
	case LX_P9_TXATTRCREATE:
	case LX_P9_TREADDIR:
	case LX_P9_TFSYNC:
	case LX_P9_TLOCK:
	case LX_P9_TGETLOCK:
	case LX_P9_TLINK:
	case LX_P9_TMKDIR:
	case LX_P9_TRENAMEAT:
	case LX_P9_TUNLINKAT:
	case LX_P9_TAUTH:
	case LX_P9_TATTACH:
	case LX_P9_TWALK:
	case LX_P9_TREAD:
	case LX_P9_TWRITE:
	case LX_P9_TCLUNK:
	case LX_P9_TREMOVE:
		return true;
	default:
		return false; /* Tversion and Tflush are the client's own */
	}
}

/*
 * Allocate, encode and submit a call; @call (async kinds) is recorded in
 * the request before the submit, and gives the owner and flags.
 */
static int lx_p9_start(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
		       const struct lx_p9_call_opts *o, uint8_t kind,
		       struct lx_call *call, unsigned int flags,
		       struct lx_xprt_req **reqp)
{
	struct lx_xprt_req *req = NULL;
	struct lx_p9_call *pc;
	uint16_t tag;
	int err;

	if (call)
		flags = call->flags;
	if (flags & ~LX_CALL_NOWAIT)
		return -EINVAL;
	if (kind == LX_P9C_VERSION ? tx->type != LX_P9_TVERSION :
				     !lx_p9_is_tmsg(tx->type))
		return -EINVAL;
	err = lx_p9_alloc(c, flags, kind, &req);
	if (err)
		return err;
	pc = lx_p9_call_of(req);
	pc->ttype = tx->type;
	if (o && o->timeout_ms)
		pc->timeout_ns = o->timeout_ms == LX_P9_NO_TIMEOUT ?
					 0 :
					 (uint64_t)o->timeout_ms * 1000000u;
	switch (tx->type) {
	case LX_P9_TREAD:
	case LX_P9_TREADDIR:
		pc->want = tx->u.tread.count;
		pc->rdata = o ? o->rdata : NULL;
		req->rx_hint = pc->rdata ? pc->want : 0; /* tcp_rx.c */
		req->rx_first = LX_P9_RREAD_HDR;
		break;
	case LX_P9_TWRITE:
		pc->want = tx->u.twrite.count;
		break;
	case LX_P9_TWALK:
		pc->want = tx->u.twalk.nwname;
		break;
	default:
		break;
	}
	tag = kind == LX_P9C_VERSION ? LX_P9_NOTAG : (uint16_t)req->slot;
	err = lx_p9_encode_req(req, tx, tag);
	if (err)
		goto out_put;
	if (call) {
		req->owner = call->owner;
		pc->call = call;
		lx_xprt_call_set(call, req);
	}
	err = lx_p9_submit(req, tag);
	if (err)
		goto out_put;
	*reqp = req;
	return 0;

out_put:
	lx_xprt_req_put(req);
	return err;
}

/* --------------------------------------------------------------- reply */

/* Transport hook: refuse oversize replies, place Rread/Rreaddir data. */
static int lx_p9_place(struct lx_xprt_req *req, size_t have, size_t msg_len)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);
	const uint8_t *p = req->rbuf->data;
	uint32_t count;

	if (msg_len > pc->c->msize)
		return -EMSGSIZE;
	if (!pc->rdata || p[4] != pc->ttype + 1 || msg_len < LX_P9_RREAD_HDR)
		return 0; /* all into rbuf; done() judges it */
	if (have < LX_P9_RREAD_HDR)
		return LX_P9_RREAD_HDR;
	count = lx_xprt_get_le32(p + 7);
	if (count > pc->want)
		return -EPROTO; /* never write past the caller's buffer */
	if (LX_P9_RREAD_HDR + (size_t)count != msg_len)
		return -EBADMSG;
	if (!count)
		return 0;
	pc->rd_iov.iov_base = pc->rdata;
	pc->rd_iov.iov_len = count;
	lx_xprt_iter_kvec(&req->rx_data, &pc->rd_iov, 1, count);
	req->rx_data_off = LX_P9_RREAD_HDR;
	req->rx_data_len = count;
	req->rx_data_pad = 0;
	return 0;
}

/* Decode the reply in rbuf into pc->rx; return the call's status. */
static int lx_p9_parse(struct lx_xprt_req *req, struct lx_p9_call *pc)
{
	const uint8_t *p = req->rbuf->data;
	struct lx_p9_fcall *rx = &pc->rx;
	uint32_t ecode;
	int err;

	if (req->rx_data_len) {
		/* place() checked type, count and size; the data is in the
		 * caller's memory, the header in rbuf */
		if (req->rlen != LX_P9_RREAD_HDR)
			return -EBADMSG;
		rx->type = p[4];
		rx->tag = lx_xprt_get_le16(p + 5);
		rx->u.rread.count = lx_xprt_get_le32(p + 7);
		rx->u.rread.data = pc->rdata;
		return 0;
	}
	if (req->rlen != req->rx_msg_len)
		return -EBADMSG;
	err = lx_p9_msg_decode(p, req->rlen, pc->c->msize, rx);
	if (err)
		return err;
	if (rx->type == LX_P9_RLERROR || rx->type == LX_P9_RERROR) {
		ecode = rx->u.rlerror.ecode;
		pc->server_err = true;
		return ecode && ecode < 4096 ? -(int)ecode : -EIO;
	}
	if (rx->type != pc->ttype + 1)
		return -EPROTO;
	switch (rx->type) {
	case LX_P9_RREAD:
	case LX_P9_RREADDIR:
		if (rx->u.rread.count > pc->want)
			return -EPROTO;
		break;
	case LX_P9_RWRITE:
		if (rx->u.rwrite.count > pc->want)
			return -EPROTO;
		break;
	case LX_P9_RWALK:
		if (rx->u.rwalk.nwqid > pc->want)
			return -EPROTO;
		break;
	default:
		break;
	}
	return 0;
}

/* The byte count of a successful reply: Rread's, Rreaddir's, Rwrite's
 * (0 for any other). */
static uint32_t lx_p9_io_count(const struct lx_p9_call *pc)
{
	switch (pc->rx.type) {
	case LX_P9_RREAD:
	case LX_P9_RREADDIR:
		return pc->rx.u.rread.count;
	case LX_P9_RWRITE:
		return pc->rx.u.rwrite.count;
	default:
		return 0;
	}
}

/* Transport hook: the outcome, exactly once. */
static void lx_p9_done(struct lx_xprt_req *req, int status)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_call *call;
	bool replied = !status;

	atomic_store_explicit(&pc->finished, true, memory_order_relaxed);
	if (replied)
		status = lx_p9_parse(req, pc);
	if (lx_xprt_unlikely(
		    replied &&
		    atomic_load_explicit(&pc->fl_status, memory_order_relaxed)))
		atomic_fetch_add_explicit(&pc->c->st.late_replies, 1,
					  memory_order_relaxed);
	pc->status = status;
	if (pc->kind != LX_P9C_IO && pc->kind != LX_P9C_ASYNC)
		return; /* the waiter reads the status and puts */
	call = pc->call;
	call->count = status ? 0 : lx_p9_io_count(pc);
	call->proto_status = pc->server_err ? (uint32_t)-status : 0;
	call->res = pc->kind == LX_P9C_ASYNC && !status ? &pc->rx : NULL;
	lx_call_done(call, status);
	lx_xprt_req_put(req);
}

/* Transport hook: the call's timer expired. */
static void lx_p9_timeout(struct lx_xprt_req *req)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);

	switch (pc->kind) {
	case LX_P9C_VERSION:
		lx_xprt_req_fail(req, -ETIMEDOUT); /* nothing to flush yet */
		return;
	default:
		break;
	}
	if (atomic_load(&pc->fl_finish))
		lx_xprt_req_fail(req, atomic_load(&pc->fl_status));
	else if (!atomic_load(&pc->fl_status))
		lx_p9_flush_start(req, -ETIMEDOUT);
	else
		lx_p9_flush_send(req); /* retry: no slot was free before */
}

/* Transport hook: lx_call_cancel() (a reference is held): Tflush. */
static int lx_p9_cancel_hook(struct lx_xprt_req *req)
{
	return lx_p9_flush_start(req, -ECANCELED);
}

const struct lx_xprt_req_ops lx_p9_req_ops = {
	.done = lx_p9_done,
	.place = lx_p9_place,
	.timeout = lx_p9_timeout,
	.cancel = lx_p9_cancel_hook,
};

/* ------------------------------------------------------------ sync API */

int lx_p9_rpc(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
	      const struct lx_p9_call_opts *o, struct lx_p9_result *res)
{
	return lx_p9_rpc_flags(c, tx, o, 0, res);
}

int lx_p9_rpc_flags(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
		    const struct lx_p9_call_opts *o, unsigned int flags,
		    struct lx_p9_result *res)
{
	struct lx_xprt_req *req;
	struct lx_p9_call *pc;
	int err, fl;

	res->req = NULL;
	res->server_err = false;
	res->unknown = false;
	err = lx_p9_start(c, tx, o, LX_P9C_SYNC, NULL, flags, &req);
	if (err)
		return err;
	lx_xprt_req_done_wait(req, -1);
	pc = lx_p9_call_of(req);
	err = pc->status;
	if (err) {
		fl = atomic_load(&pc->fl_status);
		res->server_err = pc->server_err;
		pthread_mutex_lock(&c->flush_lock);
		res->unknown = !pc->server_err &&
			       !(pc->fl_confirmed && fl && err == fl);
		pthread_mutex_unlock(&c->flush_lock);
		lx_xprt_req_put(req);
		return err;
	}
	res->req = req;
	if (pc->rx.type == LX_P9_RREAD || pc->rx.type == LX_P9_RREADDIR) {
		/* the part of the union an Rread fills, not all ~300 bytes */
		res->rx.type = pc->rx.type;
		res->rx.tag = pc->rx.tag;
		res->rx.u.rread = pc->rx.u.rread;
	} else {
		res->rx = pc->rx;
	}
	return 0;
}

void lx_p9_result_put(struct lx_p9_result *res)
{
	if (res->req) {
		lx_xprt_req_put(res->req);
		res->req = NULL;
	}
}

int lx_p9_version_call(struct lx_p9_clnt *c, uint32_t msize,
		       struct lx_p9_str version, struct lx_p9_result *res)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TVERSION};
	struct lx_xprt_req *req;
	struct lx_p9_call *pc;
	int err;

	tx.u.version.msize = msize;
	tx.u.version.version = version;
	res->req = NULL;
	res->server_err = false;
	res->unknown = false;
	err = lx_p9_start(c, &tx, NULL, LX_P9C_VERSION, NULL, 0, &req);
	if (err)
		return err;
	lx_xprt_req_done_wait(req, -1);
	pc = lx_p9_call_of(req);
	err = pc->status;
	res->server_err = pc->server_err;
	if (err) {
		lx_xprt_req_put(req);
		return err;
	}
	res->req = req;
	res->rx = pc->rx;
	return 0;
}

/* Move the pointers of reply @rx from the message at @from (@len bytes)
 * to its copy at @to; pointers elsewhere (placed Rread data) stay. */
static void lx_p9_rebase(struct lx_p9_fcall *rx, const void *from, size_t len,
			 void *to)
{
	const char *f = from;
	const char **ptrs[4];
	unsigned int n = 0, i;

	switch (rx->type) {
	case LX_P9_RLERROR:
	case LX_P9_RERROR:
		ptrs[n++] = &rx->u.rlerror.ename.s;
		break;
	case LX_P9_RVERSION:
		ptrs[n++] = &rx->u.version.version.s;
		break;
	case LX_P9_RREAD:
	case LX_P9_RREADDIR:
		ptrs[n++] = (const char **)&rx->u.rread.data;
		break;
	case LX_P9_RREADLINK:
		ptrs[n++] = &rx->u.rreadlink.target.s;
		break;
	case LX_P9_RGETLOCK:
		ptrs[n++] = &rx->u.rgetlock.client_id.s;
		break;
	default:
		break;
	}
	for (i = 0; i < n; i++)
		if (*ptrs[i] >= f && *ptrs[i] < f + len)
			*ptrs[i] = (const char *)to + (*ptrs[i] - f);
}

int lx_p9_call(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
	       const struct lx_p9_call_opts *o, struct lx_p9_fcall *rx,
	       void *rbuf, size_t rbuf_len)
{
	struct lx_p9_result res;
	size_t len;
	int err;

	if (!c || !tx || !rx || (!rbuf && rbuf_len))
		return -EINVAL;
	err = lx_p9_rpc(c, tx, o, &res);
	if (err)
		return err;
	*rx = res.rx;
	len = res.req->rlen;
	if (rbuf && len > rbuf_len) {
		err = -EMSGSIZE;
	} else if (rbuf) {
		memcpy(rbuf, res.req->rbuf->data, len);
		lx_p9_rebase(rx, res.req->rbuf->data, len, rbuf);
	}
	lx_p9_result_put(&res);
	return err;
}

/* ----------------------------------------------------------- async API */

int lx_p9_call_async(struct lx_p9_clnt *c, struct lx_call *call,
		     const struct lx_p9_fcall *tx,
		     const struct lx_p9_call_opts *o)
{
	struct lx_xprt_req *req;

	if (!c || !tx || !call || !call->done)
		return -EINVAL;
	return lx_p9_start(c, tx, o, LX_P9C_ASYNC, call, 0, &req);
}

/* ------------------------------------------------------ async data path */

/*
 * Allocate a Tread, Treaddir or Twrite of @count bytes (at most the fid's
 * iosize) and write its header directly, without the general encoder:
 * Tread data is placed into @buf, Twrite data sent from it.  The caller
 * checked its arguments.
 */
static inline __attribute__((always_inline)) int
lx_p9_io_prep(struct lx_p9_clnt *c, unsigned int flags, uint8_t kind,
	      uint8_t type, uint32_t fid, uint64_t offset, uint32_t count,
	      const void *buf, struct lx_xprt_req **reqp)
{
	struct lx_xprt_req *req = NULL;
	struct lx_p9_call *pc;
	int err;

	count = LX_XPRT_MIN(count, lx_p9_fid_iosize(c, fid));
	err = lx_p9_alloc(c, flags, kind, &req);
	if (err)
		return err;
	pc = lx_p9_call_of(req);
	pc->ttype = type;
	pc->want = count;
	lx_p9_put_io_hdr(req->sbuf->data, type, (uint16_t)req->slot, fid,
			 offset, count);
	req->sbuf->len = LX_P9_TIO_HDR;
	if (type != LX_P9_TWRITE) {
		pc->rdata = (void *)buf;
		req->rx_hint = count; /* tcp_rx.c: its data straight in place */
		req->rx_first = LX_P9_RREAD_HDR; /* lx_p9_place() reads that */
	} else if (count) {
		lx_xprt_req_add_seg(req, buf, count); /* the first: no -E2BIG */
	}
	*reqp = req;
	return 0;
}

/*
 * A blocking Tread, Treaddir or Twrite of @count bytes (at most the fid's
 * iosize) to or from @buf: no general encoder, no result copy; *@done is
 * the reply's count.  Inline in lx_p9_read(), lx_p9_readdir() and
 * lx_p9_write(), which checked the arguments.
 */
static inline __attribute__((always_inline)) int
lx_p9_io_call(struct lx_p9_clnt *c, uint8_t type, uint32_t fid, uint64_t offset,
	      uint32_t count, const void *buf, uint32_t *done)
{
	struct lx_xprt_req *req = NULL;
	struct lx_p9_call *pc;
	int err;

	err = lx_p9_io_prep(c, 0, LX_P9C_SYNC, type, fid, offset, count, buf,
			    &req);
	if (err)
		return err;
	err = lx_p9_submit(req, (uint16_t)req->slot);
	if (err)
		goto out_put;
	lx_xprt_req_done_wait(req, -1);
	pc = lx_p9_call_of(req);
	err = pc->status;
	if (!err)
		*done = lx_p9_io_count(pc);
out_put:
	lx_xprt_req_put(req);
	return err;
}

/* ------------------------------------------------------- sync data path */

/* Tread or Treaddir into @buf. */
static int lx_p9_read_into(struct lx_p9_clnt *c, uint8_t type, uint32_t fid,
			   uint64_t offset, uint32_t count, void *buf,
			   uint32_t *n)
{
	if (!c || !n || (!buf && count))
		return -EINVAL;
	return lx_p9_io_call(c, type, fid, offset, count, buf, n);
}

int lx_p9_read(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
	       uint32_t count, void *buf, uint32_t *nread)
{
	return lx_p9_read_into(c, LX_P9_TREAD, fid, offset, count, buf, nread);
}

int lx_p9_readdir(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		  uint32_t count, void *buf, uint32_t *nbytes)
{
	return lx_p9_read_into(c, LX_P9_TREADDIR, fid, offset, count, buf,
			       nbytes);
}

int lx_p9_write(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		uint32_t count, const void *buf, uint32_t *nwritten)
{
	if (!c || !nwritten || (!buf && count))
		return -EINVAL;
	return lx_p9_io_call(c, LX_P9_TWRITE, fid, offset, count, buf,
			     nwritten);
}

static int lx_p9_io_start(struct lx_p9_clnt *c, struct lx_call *call,
			  uint8_t type, uint32_t fid, uint64_t offset,
			  uint32_t count, const void *buf)
{
	struct lx_xprt_req *req = NULL;
	int err;

	if (!c || !call || !call->done || (!buf && count) ||
	    (call->flags & ~LX_CALL_NOWAIT))
		return -EINVAL;
	err = lx_p9_io_prep(c, call->flags, LX_P9C_IO, type, fid, offset, count,
			    buf, &req);
	if (err)
		return err;
	lx_p9_call_of(req)->call = call;
	req->owner = call->owner;
	lx_xprt_call_set(call, req);
	err = lx_p9_submit(req, (uint16_t)req->slot);
	if (err)
		lx_xprt_req_put(req);
	return err;
}

int lx_p9_read_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		     uint64_t offset, uint32_t count, void *buf)
{
	return lx_p9_io_start(c, call, LX_P9_TREAD, fid, offset, count, buf);
}

int lx_p9_write_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		      uint64_t offset, uint32_t count, const void *buf)
{
	return lx_p9_io_start(c, call, LX_P9_TWRITE, fid, offset, count, buf);
}

int lx_p9_fsync_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		      bool datasync)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TFSYNC};
	struct lx_xprt_req *req;

	if (!c || !call || !call->done || (call->flags & ~LX_CALL_NOWAIT))
		return -EINVAL;
	tx.u.tfsync.fid = fid;
	tx.u.tfsync.datasync = datasync;
	return lx_p9_start(c, &tx, NULL, LX_P9C_ASYNC, call, 0, &req);
}
