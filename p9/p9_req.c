// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The bottom of the 9P request engine: encoding a message into a request
 * slot under its tag and the session's broken state (submitting it with
 * its timer, lx_p9_submit(), is inline in p9_int.h).  The calls (p9_call.c) and the Tflush machinery
 * (p9_flush.c) are both built on these; nothing here calls either.
 */
#include <errno.h>
#include <string.h>

#include "p9_int.h"
#include "xprt/blocks/byteorder.h"

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
 * sent from the caller's memory.  (The Tread/Twrite fast paths write their
 * header themselves: lx_p9_put_io_hdr().) */
int lx_p9_encode_req(struct lx_xprt_req *req, const struct lx_p9_fcall *tx,
		     uint16_t tag)
{
	struct lx_p9_clnt *c = lx_p9_call_of(req)->c;
	bool write = tx->type == LX_P9_TWRITE;
	size_t len, total;
	int err;

	err = lx_p9_msg_encode(tx, req->sbuf->data, req->sbuf->cap,
			       write ? LX_P9_ENC_NODATA : 0, &len);
	if (err)
		return err;
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
