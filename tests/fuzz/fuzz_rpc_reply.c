// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: SunRPC reply headers (rpc/rpc_clnt.c: lx_rpc_place, the
 * reply header length, libtirpc's xdr_replymsg, the accept/reject status
 * mapping) and bulk placement through the RPC layer, over the real
 * receive state machine.
 *
 * Input: one byte of parameters (how the stream is cut, whether a second
 * call with bulk placement waits, how its buffer is split), then the
 * server's stream.  Call A (XID FZ_XID) decodes a small result (a count
 * and that many words, at most 8); call B (XID FZ_XID + 1) has a
 * placement hook like NFS READ's: a length word, then that many bytes of
 * bulk data into a 4 KiB buffer, then an end word.
 *
 * Checks: each call completes exactly once, with a status from rpc.h's
 * table; lx_rpc_call_info() agrees with the status; a successful B saw the
 * data length its placement hook accepted, never more than its buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libxprt/rpc.h>

#include "harness.h"
#include "xprt/core/call_int.h"

#define B_CAP 4096u

struct res_a {
	uint32_t n, w[8];
};

struct res_b {
	uint32_t len, end;
	uint32_t placed; /* what the hook accepted */
	bool hooked;
};

struct fz_call {
	struct lx_call call;
	unsigned int done;
	int status;
};

static struct {
	struct lx_rpc_clnt *cl;
	struct fz_stream s;
	uint8_t data[B_CAP];
	struct iovec iov[3];
} g;

static bool_t dec_a(XDR *x, struct res_a *r)
{
	uint32_t i;

	if (!xdr_u_int(x, &r->n) || r->n > 8)
		return FALSE;
	for (i = 0; i < r->n; i++)
		if (!xdr_u_int(x, &r->w[i]))
			return FALSE;
	return TRUE;
}

/* The reduced stream: the length word stays, the data and pad are gone. */
static bool_t dec_b(XDR *x, struct res_b *r)
{
	if (!xdr_u_int(x, &r->len) || !xdr_u_int(x, &r->end))
		return FALSE;
	return !r->hooked || r->len == r->placed;
}

static int place_b(void *arg, const uint8_t *body, size_t have, size_t *off,
		   size_t *len)
{
	struct res_b *r = arg;
	uint32_t n;

	if (have < 4)
		return 4;
	n = (uint32_t)body[0] << 24 | (uint32_t)body[1] << 16 |
	    (uint32_t)body[2] << 8 | body[3];
	if (n > B_CAP)
		return -EOVERFLOW;
	r->hooked = true;
	r->placed = n;
	*off = 4;
	*len = n;
	return 0;
}

static void check_status(int status)
{
	switch (status) {
	case 0:
	case -EPFNOSUPPORT:
	case -EPROTONOSUPPORT:
	case -EOPNOTSUPP:
	case -EINVAL:
	case -EREMOTEIO:
	case -EPROTO:
	case -EACCES:
	case -EBADMSG:
	case -EMSGSIZE:
	case -EOVERFLOW:
	case -ECANCELED:
		return;
	default:
		fprintf(stderr, "status %d\n", status);
		FZ_ASSERT(!"status outside rpc.h's table");
	}
}

static void done(struct lx_call *call, int status, void *arg)
{
	struct fz_call *c = arg;
	const struct lx_rpc_reply_info *info = lx_rpc_call_info(call);

	FZ_ASSERT(c->done == 0);
	c->done++;
	c->status = status;
	check_status(status);
	FZ_ASSERT(info->reply_stat >= -1 && info->reply_stat <= 1);
	if (!status)
		FZ_ASSERT(info->reply_stat == 0 && info->accept_stat == 0);
	if (status == -ECANCELED)
		FZ_ASSERT(info->reply_stat == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size};
	uint8_t sel = fz_u8(&in);
	struct lx_rpc_call_args a = {0}, b = {0};
	struct fz_call ca = {0}, cb = {0};
	struct res_a ra;
	struct res_b rb;
	unsigned int niov;
	bool with_b = sel & 0x08;

	if (!g.cl) {
		g.cl = fz_rpc_clnt(1024, 4);
		fz_stream_open(&g.s);
	}
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	if (sel & 0x10) {
		g.iov[0] = (struct iovec){g.data, 1};
		g.iov[1] = (struct iovec){g.data + 1, 2000};
		g.iov[2] = (struct iovec){g.data + 2001, B_CAP - 2001};
		niov = 3;
	} else {
		g.iov[0] = (struct iovec){g.data, B_CAP};
		niov = 1;
	}

	a.proc = 1;
	a.dec = (xdrproc_t)dec_a;
	a.res = &ra;
	fz_rpc_next_xid(g.cl, FZ_XID);
	ca.call = (struct lx_call){.done = done, .arg = &ca};
	FZ_ASSERT(lx_rpc_call_async(g.cl, &ca.call, &a) == 0);
	fz_wait_sent(lx_xprt_call_req(&ca.call));
	if (with_b) {
		b.proc = 2;
		b.dec = (xdrproc_t)dec_b;
		b.res = &rb;
		b.place = place_b;
		b.place_arg = &rb;
		b.rx_iov = g.iov;
		b.rx_iovcnt = niov;
		b.rx_len = B_CAP;
		cb.call = (struct lx_call){.done = done, .arg = &cb};
		FZ_ASSERT(lx_rpc_call_async(g.cl, &cb.call, &b) == 0);
		fz_wait_sent(lx_xprt_call_req(&cb.call));
	}

	fz_stream_feed(&g.s, fz_rpc_xprt(g.cl), in.p, in.left, fz_chunk(sel));
	fz_stream_reset(&g.s, fz_rpc_xprt(g.cl));

	if (!ca.done)
		FZ_ASSERT(lx_call_cancel(&ca.call) == 0);
	FZ_ASSERT(ca.done == 1);
	if (!ca.status)
		FZ_ASSERT(ra.n <= 8);
	if (with_b) {
		if (!cb.done)
			FZ_ASSERT(lx_call_cancel(&cb.call) == 0);
		FZ_ASSERT(cb.done == 1);
		if (!cb.status && rb.hooked)
			FZ_ASSERT(rb.len == rb.placed && rb.placed <= B_CAP);
	}
	fz_wait_idle(fz_rpc_xprt(g.cl));
	return 0;
}
