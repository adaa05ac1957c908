// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RPC-over-RDMA version 1 codec: transport header, chunk decisions, reply
 * checks, connection parameters (RFC 8166, RFC 8797).
 *
 * Decoding is written for hostile input.  A cursor walks the buffer and
 * every read first asks "are these bytes there?" (cur_need); a count read
 * off the wire is compared with the bytes left *before* it is multiplied
 * by an entry size, so no arithmetic on peer-controlled numbers can wrap;
 * lists stop at fixed limits (LX_RPCRDMA_MAX_SEGS, LX_RPCRDMA_MAX_WCHUNKS) that
 * size the output struct, so nothing is ever written outside it.  The
 * decoder only says what the header contains; whether a reply may contain
 * it (chunks we never offered, lengths beyond our registration) is the
 * separate, equally pure lx_rpcrdma_check_reply().  Keeping the two apart is
 * what lets a fuzzer drive either with raw bytes.
 *
 * Chunk decisions (lx_rpcrdma_plan) follow RFC 8166 section 3.5 and the
 * choices of Linux's client (net/sunrpc/xprtrdma/rpc_rdma.c): a reply that
 * fits the receive threshold needs no chunk; bulk result data goes to a
 * Write chunk when it does not fit; a large non-bulk reply (READDIR,
 * READLINK) to a Reply chunk; a call that does not fit the send threshold
 * moves its payload to a Read chunk at the payload's XDR position, or, if
 * even the rest is too large, moves as a whole to a position-zero Read
 * chunk (RDMA_NOMSG).  XDR padding of a payload is not part of its Read
 * chunk, and the server writes none into a Write chunk (RFC 8166 section
 * 3.4.6, "XDR roundup"); the inline stream stays 4-byte aligned because
 * positions are.
 */
#include <errno.h>
#include <string.h>

#include "rpc/rpc_rdma.h"
#include "xprt/blocks/byteorder.h"

/* --------------------------------------------------------- primitives */

struct cur {
	const uint8_t *p;
	size_t left;
};

static bool cur_need(const struct cur *c, size_t n)
{
	return c->left >= n;
}

static uint32_t cur_u32(struct cur *c)
{
	uint32_t v = lx_xprt_get_be32(c->p);

	c->p += 4;
	c->left -= 4;
	return v;
}

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static void put32(uint8_t **p, uint32_t v)
{
	lx_xprt_put_be32(*p, v);
	*p += 4;
}

static void put_seg(uint8_t **p, const struct lx_rpcrdma_seg *s)
{
	put32(p, s->handle);
	put32(p, s->length);
	lx_xprt_put_be64(*p, s->offset);
	*p += 8;
}

/* handle, length, offset: 16 bytes; the caller checked they are there */
static void get_seg(struct cur *c, struct lx_rpcrdma_seg *s)
{
	uint64_t hi;

	s->handle = cur_u32(c);
	s->length = cur_u32(c);
	hi = cur_u32(c);
	s->offset = hi << 32 | cur_u32(c);
}

/* ------------------------------------------------------------- encode */

static size_t wchunk_len(const struct lx_rpcrdma_wchunk *w)
{
	return 4 + (size_t)w->nsegs * 16; /* count + segments */
}

size_t lx_rpcrdma_hdr_len(const struct lx_rpcrdma_hdr *h)
{
	size_t len = 16;
	unsigned int i;

	if (!h)
		return 0;
	if (h->proc == RDMA_ERROR)
		return h->err == LX_RPCRDMA_ERR_VERS ? 28 : 20;
	if (h->nr_reads > LX_RPCRDMA_MAX_SEGS ||
	    h->nr_writes > LX_RPCRDMA_MAX_WCHUNKS ||
	    (h->has_reply && h->reply.nsegs > LX_RPCRDMA_MAX_SEGS))
		return 0;
	len += (size_t)h->nr_reads * 24 + 4; /* 1 position seg ... 0 */
	for (i = 0; i < h->nr_writes; i++) {
		if (h->writes[i].nsegs > LX_RPCRDMA_MAX_SEGS)
			return 0;
		len += 4 + wchunk_len(&h->writes[i]);
	}
	len += 4;
	len += h->has_reply ? 4 + wchunk_len(&h->reply) : 4;
	return len;
}

long lx_rpcrdma_encode(void *buf, size_t cap, const struct lx_rpcrdma_hdr *h)
{
	uint8_t *p = buf;
	size_t len;
	unsigned int i, j;

	if (!buf || !h)
		return -EINVAL;
	if (h->proc != RDMA_MSG && h->proc != RDMA_NOMSG &&
	    h->proc != RDMA_ERROR)
		return -EINVAL;
	len = lx_rpcrdma_hdr_len(h);
	if (!len)
		return -EINVAL;
	if (len > cap)
		return -EMSGSIZE;
	put32(&p, h->xid);
	put32(&p, h->vers);
	put32(&p, h->credits);
	put32(&p, h->proc);
	if (h->proc == RDMA_ERROR) {
		put32(&p, h->err);
		if (h->err == LX_RPCRDMA_ERR_VERS) {
			put32(&p, h->vers_low);
			put32(&p, h->vers_high);
		}
		return (long)len;
	}
	for (i = 0; i < h->nr_reads; i++) {
		put32(&p, 1);
		put32(&p, h->reads[i].position);
		put_seg(&p, &h->reads[i].seg);
	}
	put32(&p, 0);
	for (i = 0; i < h->nr_writes; i++) {
		put32(&p, 1);
		put32(&p, h->writes[i].nsegs);
		for (j = 0; j < h->writes[i].nsegs; j++)
			put_seg(&p, &h->writes[i].segs[j]);
	}
	put32(&p, 0);
	if (h->has_reply) {
		put32(&p, 1);
		put32(&p, h->reply.nsegs);
		for (j = 0; j < h->reply.nsegs; j++)
			put_seg(&p, &h->reply.segs[j]);
	} else {
		put32(&p, 0);
	}
	return (long)len;
}

size_t lx_rpcrdma_encode_plain(void *buf, uint32_t xid, uint32_t credits)
{
	uint8_t *p = buf;

	put32(&p, xid);
	put32(&p, LX_RPCRDMA_VERSION);
	put32(&p, credits);
	put32(&p, RDMA_MSG);
	put32(&p, 0); /* no Read list */
	put32(&p, 0); /* no Write list */
	put32(&p, 0); /* no Reply chunk */
	return LX_RPCRDMA_PLAIN_LEN;
}

/* ------------------------------------------------------------- decode */

/*
 * An optional-data discriminator: 1 (the data follows) or 0 (none);
 * anything else is malformed (-EBADMSG).
 */
static int get_disc(struct cur *c)
{
	uint32_t v;

	if (!cur_need(c, 4))
		return -EBADMSG;
	v = cur_u32(c);
	return v > 1 ? -EBADMSG : (int)v;
}

/* A counted segment array: the count, then that many segments. */
static int get_wchunk(struct cur *c, struct lx_rpcrdma_wchunk *w)
{
	uint32_t n, i;

	if (!cur_need(c, 4))
		return -EBADMSG;
	n = cur_u32(c);
	/* compare with what is left before multiplying: n is the peer's */
	if (n > c->left / 16)
		return -EBADMSG;
	if (n > LX_RPCRDMA_MAX_SEGS)
		return -E2BIG;
	w->nsegs = n;
	for (i = 0; i < n; i++)
		get_seg(c, &w->segs[i]);
	return 0;
}

static int get_chunk_lists(struct cur *c, struct lx_rpcrdma_hdr *h)
{
	int r;

	/* Read list: a linked list, each entry carrying its position */
	while ((r = get_disc(c)) == 1) {
		if (!cur_need(c, 20))
			return -EBADMSG;
		if (h->nr_reads == LX_RPCRDMA_MAX_SEGS)
			return -E2BIG;
		h->reads[h->nr_reads].position = cur_u32(c);
		get_seg(c, &h->reads[h->nr_reads].seg);
		h->nr_reads++;
	}
	if (r)
		return r;
	/* Write list: a linked list of counted chunks */
	while ((r = get_disc(c)) == 1) {
		if (h->nr_writes == LX_RPCRDMA_MAX_WCHUNKS)
			return -E2BIG;
		r = get_wchunk(c, &h->writes[h->nr_writes]);
		if (r)
			return r;
		h->nr_writes++;
	}
	if (r)
		return r;
	/* Reply chunk: optional, one counted chunk */
	r = get_disc(c);
	if (r <= 0)
		return r;
	r = get_wchunk(c, &h->reply);
	if (r)
		return r;
	h->has_reply = true;
	return 0;
}

long lx_rpcrdma_decode(const void *buf, size_t len, struct lx_rpcrdma_hdr *h)
{
	struct cur c = {.p = buf, .left = len};
	int r;

	if (!h)
		return -EINVAL;
	h->xid = h->vers = h->credits = h->proc = 0;
	h->nr_reads = h->nr_writes = 0;
	h->has_reply = false;
	h->reply.nsegs = 0;
	h->err = h->vers_low = h->vers_high = 0;
	if (!buf)
		return -EBADMSG;
	/* the common header, RDMA_MSG with three empty chunk lists: what
	 * the loops below find for it, without them */
	if (len >= LX_RPCRDMA_PLAIN_LEN &&
	    lx_xprt_get_be32(c.p + 4) == LX_RPCRDMA_VERSION &&
	    lx_xprt_get_be32(c.p + 12) == RDMA_MSG &&
	    !(lx_xprt_get_be32(c.p + 16) | lx_xprt_get_be32(c.p + 20) |
	      lx_xprt_get_be32(c.p + 24))) {
		h->xid = lx_xprt_get_be32(c.p);
		h->vers = LX_RPCRDMA_VERSION;
		h->credits = lx_xprt_get_be32(c.p + 8);
		return LX_RPCRDMA_PLAIN_LEN;
	}
	if (len >= 4)
		h->xid = cur_u32(&c);
	if (!cur_need(&c, 12))
		return -EBADMSG;
	h->vers = cur_u32(&c);
	h->credits = cur_u32(&c);
	h->proc = cur_u32(&c);

	if (h->proc == RDMA_ERROR) {
		/* the error body's layout is the same in every version */
		if (!cur_need(&c, 4))
			return -EBADMSG;
		h->err = cur_u32(&c);
		if (h->err == LX_RPCRDMA_ERR_VERS) {
			if (!cur_need(&c, 8))
				return -EBADMSG;
			h->vers_low = cur_u32(&c);
			h->vers_high = cur_u32(&c);
		} else if (h->err != LX_RPCRDMA_ERR_CHUNK) {
			return -EBADMSG;
		}
		return (long)(len - c.left);
	}
	if (h->vers != LX_RPCRDMA_VERSION)
		return -EPROTONOSUPPORT;
	switch (h->proc) {
	case RDMA_MSG:
	case RDMA_NOMSG:
	case RDMA_MSGP:
		break;
	case RDMA_DONE:
		return (long)(len - c.left);
	default:
		return -EBADMSG;
	}
	r = get_chunk_lists(&c, h);
	if (r)
		return r;
	if (h->proc == RDMA_MSGP) {
		/* align and threshold words (RFC 5666), then the message */
		if (!cur_need(&c, 8))
			return -EBADMSG;
		cur_u32(&c);
		cur_u32(&c);
	}
	return (long)(len - c.left);
}

/* -------------------------------------------------------------- plan */

/* Header of a call with the given chunks (one Read entry per segment,
 * @rsegs Reply chunk segments, 0: no Reply chunk). */
static size_t call_hdr_len(unsigned int reads, unsigned int wsegs,
			   unsigned int rsegs)
{
	size_t len = 16 + (size_t)reads * 24 + 4;

	len += wsegs ? 4 + 4 + (size_t)wsegs * 16 + 4 : 4;
	len += rsegs ? 4 + 4 + (size_t)rsegs * 16 : 4;
	return len;
}

/* Header of the reply the server sends back with the chunks echoed. */
static size_t reply_hdr_len(unsigned int wsegs, unsigned int rsegs)
{
	return call_hdr_len(0, wsegs, rsegs);
}

int lx_rpcrdma_plan(const struct lx_rpcrdma_plan_in *in,
		    struct lx_rpcrdma_plan *out)
{
	size_t nonbulk, pad, msg, reads;
	unsigned int wsegs = 0, rsegs = 0;

	if (!in || !out || in->inline_send < LX_RPCRDMA_MIN_INLINE ||
	    in->inline_recv < LX_RPCRDMA_MIN_INLINE)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (in->payload_segs > LX_RPCRDMA_MAX_SEGS ||
	    in->rx_dst_segs > LX_RPCRDMA_MAX_SEGS)
		return -E2BIG;
	if (!in->payload_len && !in->rx_dst_len &&
	    lx_rpcrdma_plain_fits(in->call_len, in->reply_hint, in->inline_send,
				  in->inline_recv)) {
		lx_rpcrdma_plan_plain(out, in->call_len);
		return 0; /* (what the rest decides for it) */
	}

	/* the reply: inline, Write chunk, Reply chunk */
	nonbulk = in->reply_hint ? in->reply_hint : LX_RPCRDMA_SMALL_REPLY;
	if (in->rx_dst_len) {
		/* data and its pad inline, with the header */
		if (reply_hdr_len(0, 0) + nonbulk + in->rx_dst_len + 3 >
		    in->inline_recv) {
			out->write = true;
			wsegs = in->rx_dst_segs;
		}
	}
	if (reply_hdr_len(wsegs, 0) + nonbulk > in->inline_recv) {
		out->reply = true;
		/* only a call that offers the chunk needs its segments */
		if (in->reply_segs > LX_RPCRDMA_MAX_SEGS)
			return -E2BIG;
		rsegs = in->reply_segs ? in->reply_segs : 1;
		/* the server's reply echoes the chunks in its header, which
		 * must fit our receive (RFC 8166 section 3.3.2: the Reply
		 * chunk carries the message, not the header) */
		if (reply_hdr_len(wsegs, rsegs) > in->inline_recv)
			return -E2BIG;
	}
	out->reply_segs = rsegs;

	/* the call: inline, payload Read chunk, position-zero Read chunk */
	pad = (4 - (in->payload_len & 3)) & 3;
	msg = in->call_len + in->payload_len + (in->payload_len ? pad : 0);
	out->proc = RDMA_MSG;
	out->read = LX_RPCRDMA_READ_NONE;
	out->hdr_len = call_hdr_len(0, wsegs, rsegs);
	out->inline_len = msg;
	if (out->hdr_len + msg <= in->inline_send)
		return 0;
	if (in->payload_len) {
		out->read = LX_RPCRDMA_READ_PAYLOAD;
		out->hdr_len = call_hdr_len(in->payload_segs, wsegs, rsegs);
		out->inline_len = in->call_len;
		if (out->hdr_len + in->call_len <= in->inline_send)
			return 0;
	}
	/* everything by RDMA Read: the call buffer, payload, pad */
	reads = 1 + in->payload_segs + (in->payload_len && pad ? 1 : 0);
	if (reads > LX_RPCRDMA_MAX_SEGS)
		return -E2BIG;
	out->proc = RDMA_NOMSG;
	out->read = LX_RPCRDMA_READ_POS0;
	out->hdr_len = call_hdr_len((unsigned int)reads, wsegs, rsegs);
	out->inline_len = 0;
	if (out->hdr_len > in->inline_send)
		return -E2BIG;
	return 0;
}

/* ------------------------------------------------------------- check */

/*
 * A returned chunk must be the offered one: the same handles, lengths no
 * larger than offered.  With @contiguous, every segment before the last
 * non-empty one must be full, so the data is one run from the chunk's
 * start.  Store the total in *@total.
 */
static int check_chunk(const struct lx_rpcrdma_wchunk *got,
		       const struct lx_rpcrdma_wchunk *offered, bool contiguous,
		       size_t *total)
{
	size_t sum = 0;
	bool short_seen = false;
	uint32_t i;

	if (got->nsegs > offered->nsegs)
		return -EBADMSG;
	for (i = 0; i < got->nsegs; i++) {
		const struct lx_rpcrdma_seg *g = &got->segs[i];
		const struct lx_rpcrdma_seg *o = &offered->segs[i];

		if (g->handle != o->handle || g->length > o->length)
			return -EBADMSG;
		if (contiguous && short_seen && g->length)
			return -EBADMSG; /* a hole before this data */
		if (g->length < o->length)
			short_seen = true;
		sum += g->length;
	}
	*total = sum;
	return 0;
}

/* the rest of lx_rpcrdma_check_reply() (rpc_rdma.h), out of line */
int lx_rpcrdma__check_reply(const struct lx_rpcrdma_hdr *h, size_t hdr_len,
			    size_t rx_len, const struct lx_rpcrdma_offer *o,
			    struct lx_rpcrdma_reply_info *ri)
{
	int r;

	if (!h || !o || !ri || hdr_len > rx_len)
		return -EINVAL;
	*ri = (struct lx_rpcrdma_reply_info){0};
	/* the common reply, inline without chunks: nothing to check
	 * against the offer (a chunk offered may go unused) */
	if (h->proc == RDMA_MSG &&
	    !(h->nr_reads | h->nr_writes | (uint32_t)h->has_reply))
		goto inline_msg;
	if (h->proc == RDMA_ERROR) {
		if (h->err == LX_RPCRDMA_ERR_VERS)
			return -EPROTO;
		if (h->err == LX_RPCRDMA_ERR_CHUNK)
			return -EMSGSIZE;
		return -EBADMSG;
	}
	if (h->proc != RDMA_MSG && h->proc != RDMA_NOMSG)
		return -EBADMSG; /* MSGP and DONE are not replies we allow */
	if (h->nr_reads)
		return -EBADMSG; /* a reply never asks us to be read */
	if (h->nr_writes > (o->write.nsegs ? 1u : 0u))
		return -EBADMSG; /* a Write list we did not offer */
	if (h->nr_writes) {
		r = check_chunk(&h->writes[0], &o->write, true, &ri->write_len);
		if (r)
			return r;
		ri->write_used = true;
	}
	if (h->has_reply) {
		if (!o->reply.nsegs)
			return -EBADMSG; /* a Reply chunk we did not offer */
		r = check_chunk(&h->reply, &o->reply, true, &ri->reply_len);
		if (r)
			return r;
	}
	if (h->proc == RDMA_NOMSG) {
		if (!h->has_reply || !ri->reply_len || rx_len != hdr_len)
			return -EBADMSG;
		ri->in_reply_chunk = true;
		return 0;
	}
inline_msg:
	ri->msg_off = hdr_len;
	ri->msg_len = rx_len - hdr_len;
	if (ri->msg_len < 4)
		return -EBADMSG; /* not even an XID */
	return 0;
}

/* -------------------------------------------------- connection data */

static bool size_ok(unsigned int size)
{
	return size >= 1024 && size <= 256 * 1024 && !(size & 1023);
}

int lx_rpcrdma_cm_encode(void *buf, unsigned int send_size,
			 unsigned int recv_size, unsigned int flags)
{
	uint8_t *p = buf;

	if (!buf || !size_ok(send_size) || !size_ok(recv_size) ||
	    (flags & ~LX_RPCRDMA_CM_F_SND_W_INV_OK))
		return -EINVAL;
	put32(&p, LX_RPCRDMA_CM_MAGIC);
	p[0] = LX_RPCRDMA_CM_VERSION;
	p[1] = (uint8_t)flags; /* SND_W_INV_OK: only with memory windows */
	p[2] = (uint8_t)(send_size / 1024 - 1);
	p[3] = (uint8_t)(recv_size / 1024 - 1);
	return (int)LX_RPCRDMA_CM_PDATA_LEN;
}

int lx_rpcrdma_cm_negotiate(const void *pdata, size_t len,
			    unsigned int our_send, unsigned int our_recv,
			    unsigned int *send, unsigned int *recv)
{
	struct cur c = {.p = pdata, .left = len};
	unsigned int peer_send, peer_recv;
	const uint8_t *b;

	*send = min_u(our_send, LX_RPCRDMA_DEF_INLINE);
	*recv = min_u(our_recv, LX_RPCRDMA_DEF_INLINE);
	if (!pdata || len < LX_RPCRDMA_CM_PDATA_LEN)
		return 0;
	if (cur_u32(&c) != LX_RPCRDMA_CM_MAGIC)
		return 0;
	b = c.p;
	if (b[0] != LX_RPCRDMA_CM_VERSION)
		return 0;
	peer_send = ((unsigned int)b[2] + 1) * 1024;
	peer_recv = ((unsigned int)b[3] + 1) * 1024;
	/* we may send what the server can receive, and receive what it
	 * sends (RFC 8797 section 4.2) */
	*send = min_u(our_send, peer_recv);
	*recv = min_u(our_recv, peer_send);
	return 1;
}
