// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: record-marking reassembly and the TCP receive state
 * machine (xprt/tcp/tcp_rx.c, xprt/blocks/framing.c), with an oracle.
 *
 * Input: one byte of parameters - framing (RPC record marking or 9P size
 * framing), how the stream is cut into reads, how many requests wait (keys
 * 1..4), how the caller's data buffer is split into iovecs - then the
 * server's byte stream.
 *
 * The requests belong to a toy protocol whose place() hook reads its
 * decisions from the message itself: 8 bytes after the key say where bulk
 * data starts and how long it is, how much padding follows, whether to
 * ask for more header bytes first, to fail, or to place nothing.  So the
 * fuzzer steers every branch of the state machine (HEAD, DATA from the
 * stage and by direct readv(), PAD, TAIL, DISCARD, over-long headers,
 * data longer than the caller's buffer) through the bytes alone.
 *
 * Oracle: the harness reassembles the stream on its own (a few lines of
 * record marking) and, for every request completed with a reply, checks
 * that the receive buffer holds exactly the message minus the placed data
 * and the padding dropped after it, and that the caller's buffer holds
 * exactly that data.  It also checks that each request completes exactly
 * once, with a status from the documented set, and that every slot is
 * free again at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NREQ	      4
#define BUF_SIZE      1024u /* rbuf capacity: small, so overflows are reachable */
#define MAX_MSG	      65536u /* so is the fatal oversize marker */
#define DATA_CAP      8192u

/* The toy protocol's header, right after the key. */
#define TOY_HDR	      8u
#define TOY_FAIL      0x80u
#define TOY_MORE      0x40u
#define TOY_NODATA    0x20u
#define TOY_SMALL_DST 0x10u

struct toy_req {
	struct lx_xprt_req *req;
	unsigned int done;
	int status;
	bool has_data; /* the last place() decision placed data */
	size_t off, len, pad;
	uint8_t data[DATA_CAP];
	struct iovec iov[3];
	unsigned int iovcnt;
};

/* A message as the harness's own reassembly sees it. */
struct ref_msg {
	size_t start, len; /* in ref_buf */
};

static struct {
	struct lx_xprt *x[2]; /* RPC record marking, 9P */
	struct fz_stream s[2];
	struct toy_req t[NREQ];
	size_t key_len;
	uint8_t *ref_buf;
	struct ref_msg *ref;
	size_t nref;
} g;

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static int toy_place(struct lx_xprt_req *req, size_t have, size_t msg_len)
{
	struct toy_req *t = req->user;
	const uint8_t *b = (const uint8_t *)req->rbuf->data + g.key_len;
	size_t hdr = g.key_len + TOY_HDR, more;
	uint8_t flags;

	(void)msg_len;
	t->has_data = false;
	if (have < hdr)
		return (int)hdr;
	flags = b[5];
	more = be16(b + 6) & 0x7ff;
	if (flags & TOY_FAIL)
		return -EPROTO;
	if ((flags & TOY_MORE) && have < hdr + more)
		return (int)(hdr + more);
	if (flags & TOY_NODATA)
		return 0;
	if (lx_xprt_iter_iovec(&req->rx_data, t->iov, t->iovcnt,
			       (flags & TOY_SMALL_DST) ? 100 : DATA_CAP))
		abort();
	req->rx_data_off = be16(b);
	req->rx_data_len = be16(b + 2);
	req->rx_data_pad = b[4] & 3;
	t->has_data = req->rx_data_len != 0;
	t->off = req->rx_data_off;
	t->len = req->rx_data_len;
	t->pad = req->rx_data_pad;
	return 0;
}

static const struct ref_msg *ref_first(uint32_t key, bool p9)
{
	size_t i;

	for (i = 0; i < g.nref; i++) {
		const uint8_t *m = g.ref_buf + g.ref[i].start;
		uint32_t k;

		if (g.ref[i].len < g.key_len)
			continue;
		k = p9 ? (uint32_t)m[5] | (uint32_t)m[6] << 8 :
			 (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 |
				    (uint32_t)m[2] << 8 | m[3];
		if (k == key)
			return &g.ref[i];
	}
	return NULL;
}

/* The data the caller's iovecs received, flattened. */
static void gather(const struct toy_req *t, uint8_t *out, size_t len)
{
	unsigned int i;
	size_t n;

	for (i = 0; i < t->iovcnt && len; i++) {
		n = t->iov[i].iov_len < len ? t->iov[i].iov_len : len;
		memcpy(out, t->iov[i].iov_base, n);
		out += n;
		len -= n;
	}
}

static void check_reply(struct lx_xprt_req *req, struct toy_req *t)
{
	const struct ref_msg *m = ref_first(req->key, req->xprt == g.x[1]);
	static uint8_t expect[MAX_MSG], got[DATA_CAP];
	const uint8_t *mb;
	size_t n = 0, pad;

	FZ_ASSERT(m != NULL);
	mb = g.ref_buf + m->start;
	FZ_ASSERT(req->rx_msg_len == m->len);
	FZ_ASSERT(req->rlen <= req->rbuf->cap);
	if (!t->has_data) {
		FZ_ASSERT(req->rlen == m->len);
		FZ_ASSERT(!memcmp(req->rbuf->data, mb, m->len));
		return;
	}
	FZ_ASSERT(t->off + t->len <= m->len);
	pad = m->len - t->off - t->len;
	pad = pad < t->pad ? pad : t->pad;
	memcpy(expect, mb, t->off);
	n = t->off;
	memcpy(expect + n, mb + t->off + t->len + pad,
	       m->len - t->off - t->len - pad);
	n += m->len - t->off - t->len - pad;
	FZ_ASSERT(req->rlen == n);
	FZ_ASSERT(!memcmp(req->rbuf->data, expect, n));
	FZ_ASSERT(t->len <= DATA_CAP);
	gather(t, got, t->len);
	FZ_ASSERT(!memcmp(got, mb + t->off, t->len));
}

static void toy_done(struct lx_xprt_req *req, int status)
{
	struct toy_req *t = req->user;

	FZ_ASSERT(t->done == 0);
	t->done++;
	t->status = status;
	switch (status) {
	case 0:
		check_reply(req, t);
		break;
	case -EBADMSG:	 /* shorter than announced */
	case -EMSGSIZE:	 /* header or tail past rbuf */
	case -EPROTO:	 /* place() failed it, or asked for nothing new */
	case -EOVERFLOW: /* data longer than the caller's buffer */
	case -ECANCELED: /* the harness, at the end of the input */
		break;
	default:
		fprintf(stderr, "unexpected status %d\n", status);
		FZ_ASSERT(!"status outside the documented set");
	}
}

static const struct lx_xprt_req_ops toy_ops = {
	.done = toy_done,
	.place = toy_place,
};

/* The harness's own reassembly: complete messages, in stream order. */
static void ref_parse(const uint8_t *d, size_t len, bool p9)
{
	size_t pos = 0, out = 0, cur = 0, known = 0;

	g.nref = 0;
	while (len - pos >= 4) {
		uint32_t w, flen;
		bool last;

		if (p9) {
			w = (uint32_t)d[pos] | (uint32_t)d[pos + 1] << 8 |
			    (uint32_t)d[pos + 2] << 16 |
			    (uint32_t)d[pos + 3] << 24;
			if (w < 7 || w > MAX_MSG)
				return;
			if (len - pos < w)
				return;
			memcpy(g.ref_buf + out, d + pos, w);
			g.ref[g.nref++] = (struct ref_msg){out, w};
			out += w;
			pos += w;
			continue;
		}
		w = (uint32_t)d[pos] << 24 | (uint32_t)d[pos + 1] << 16 |
		    (uint32_t)d[pos + 2] << 8 | d[pos + 3];
		flen = w & 0x7fffffffu;
		last = w >> 31;
		pos += 4;
		if (flen > MAX_MSG || known + flen > MAX_MSG)
			return;
		if (len - pos < flen)
			return;
		memcpy(g.ref_buf + out, d + pos, flen);
		out += flen;
		pos += flen;
		known += flen;
		if (last) {
			g.ref[g.nref++] = (struct ref_msg){cur, out - cur};
			cur = out;
			known = 0;
		}
	}
}

static void setup(void)
{
	struct lx_xprt_opts o = {0};
	int i;

	o.transport = LX_XPRT_TRANSPORT_TCP;
	o.host = "127.0.0.1";
	o.port = 9;
	o.max_reqs = NREQ;
	o.buf_size = BUF_SIZE;
	o.max_msg = MAX_MSG;
	for (i = 0; i < 2; i++) {
		o.framing = i ? &lx_xprt_framing_9p : &lx_xprt_framing_rpc;
		if (lx_xprt_create(&g.x[i], &o))
			abort();
		fz_stream_open(&g.s[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size};
	uint8_t sel = fz_u8(&in);
	bool p9 = sel & 1;
	unsigned int nreq = 1 + ((sel >> 4) & 3), i;
	struct lx_xprt *x;

	if (!g.x[0])
		setup();
	x = g.x[p9];
	g.key_len = x->framing->key_len;
	g.ref_buf = malloc(in.left + 1);
	g.ref = malloc(sizeof(*g.ref) * (in.left / 4 + 1));
	if (!g.ref_buf || !g.ref)
		abort();
	ref_parse(in.p, in.left, p9);

	for (i = 0; i < nreq; i++) {
		struct toy_req *t = &g.t[i];
		struct lx_xprt_req *req;

		memset(t, 0, sizeof(*t));
		if (sel & 0x40) {
			t->iov[0] = (struct iovec){t->data, 1000};
			t->iov[1] = (struct iovec){t->data + 1000, 3000};
			t->iov[2] =
				(struct iovec){t->data + 4000, DATA_CAP - 4000};
			t->iovcnt = 3;
		} else {
			t->iov[0] = (struct iovec){t->data, DATA_CAP};
			t->iovcnt = 1;
		}
		FZ_ASSERT(lx_xprt_req_alloc(x, LX_XPRT_NOWAIT, &req) == 0);
		t->req = req;
		req->user = t;
		req->ops = &toy_ops;
		memcpy(req->sbuf->data, "call", 4);
		req->sbuf->len = 4;
		FZ_ASSERT(lx_xprt_req_submit(req, i + 1) == 0);
		fz_wait_sent(req);
	}

	fz_stream_feed(&g.s[p9], x, in.p, in.left, fz_chunk(sel >> 1));
	fz_stream_reset(&g.s[p9], x);

	for (i = 0; i < nreq; i++) {
		struct toy_req *t = &g.t[i];

		if (!t->done)
			FZ_ASSERT(lx_xprt_req_cancel(t->req) == 0);
		FZ_ASSERT(t->done == 1);
		lx_xprt_req_put(t->req);
	}
	fz_wait_idle(x);
	free(g.ref);
	free(g.ref_buf);
	return 0;
}
