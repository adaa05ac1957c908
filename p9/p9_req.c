// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bottom of the 9P request engine: encoding a message into a request
 * slot under its tag, submitting it with its timer, and the session's
 * broken state.  The calls (p9_call.c) and the Tflush machinery
 * (p9_flush.c) are both built on these; nothing here calls either.
 */
#include <errno.h>
#include <string.h>

#include "p9_int.h"
#include "xprt/byteorder.h"

/* Mark first, drop the connection after: a caller woken by the call we
 * complete in between must already see the session as gone. */
void lx_p9_mark_broken(struct lx_p9_clnt *c)
{
	atomic_store(&c->broken, true);
}

void lx_p9_set_broken(struct lx_p9_clnt *c)
{
	lx_p9_mark_broken(c);
	if (!atomic_exchange(&c->killed, true))
		lx_xprt_disconnect(c->x);
}

/* The errno a call gets when the session cannot take it. */
int lx_p9_gone(struct lx_p9_clnt *c)
{
	return atomic_load(&c->closing) ? -ESHUTDOWN : -ENOTCONN;
}

/* Encode @tx into the request's send buffer under @tag; Twrite data is
 * sent from the caller's memory. */
/* size[4] type[1] tag[2] fid[4] offset[8] count[4]: Tread, Treaddir, and
 * Twrite's header (its data follows from the caller's memory) */
#define LX_P9_TIO_HDR 23u

/*
 * The I/O messages written directly, as lx_p9_msg_encode() writes them
 * (byte for byte: size counts Twrite's data), without its general cursor.
 * Return the header length, or 0 to leave it to the general encoder.
 */
static size_t lx_p9_encode_io(const struct lx_p9_fcall *tx, uint8_t *p,
			      size_t cap, uint16_t tag)
{
	uint32_t fid, count, size = LX_P9_TIO_HDR;
	uint64_t offset;

	if (cap < LX_P9_TIO_HDR)
		return 0; /* the general encoder says -EMSGSIZE */
	switch (tx->type) {
	case LX_P9_TREAD:
	case LX_P9_TREADDIR:
		fid = tx->u.tread.fid;
		offset = tx->u.tread.offset;
		count = tx->u.tread.count;
		break;
	case LX_P9_TWRITE:
		fid = tx->u.twrite.fid;
		offset = tx->u.twrite.offset;
		count = tx->u.twrite.count;
		if (count > UINT32_MAX - LX_P9_TIO_HDR)
			return 0;
		size += count;
		break;
	default:
		return 0;
	}
	lx_xprt_put_le32(p, size);
	p[4] = tx->type;
	lx_xprt_put_le16(p + 5, tag);
	lx_xprt_put_le32(p + 7, fid);
	lx_xprt_put_le64(p + 11, offset);
	lx_xprt_put_le32(p + 19, count);
	return LX_P9_TIO_HDR;
}

int lx_p9_encode_req(struct lx_xprt_req *req, const struct lx_p9_fcall *tx,
		     uint16_t tag)
{
	struct lx_p9_clnt *c = lx_p9_call_of(req)->c;
	bool write = tx->type == LX_P9_TWRITE;
	size_t len, total;
	int err;

	len = lx_p9_encode_io(tx, req->sbuf->data, req->sbuf->cap, tag);
	if (len)
		goto encoded;
	err = lx_p9_msg_encode(tx, req->sbuf->data, req->sbuf->cap,
			       write ? LX_P9_ENC_NODATA : 0, &len);
	if (err)
		return err;
encoded:
	total = len + (write ? tx->u.twrite.count : 0);
	if (total > c->msize)
		return -EMSGSIZE;
	lx_xprt_put_le16((uint8_t *)req->sbuf->data + 5, tag);
	req->sbuf->len = (uint32_t)len;
	if (write && tx->u.twrite.count)
		return lx_xprt_req_add_seg(req, tx->u.twrite.data,
					   tx->u.twrite.count);
	return 0;
}

/* Submit under @key, the call's timer armed by the submit itself (before
 * the call can complete). */
int lx_p9_submit(struct lx_xprt_req *req, uint16_t key)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_p9_clnt *c = pc->c;
	int err;

	req->timeout_ns = pc->timeout_ns;
	err = lx_xprt_req_submit(req, key);
	if (!err)
		atomic_fetch_add_explicit(&c->st.calls, 1,
					  memory_order_relaxed);
	return err == -ESHUTDOWN ? lx_p9_gone(c) : err;
}
