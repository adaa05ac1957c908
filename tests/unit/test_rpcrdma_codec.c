// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RPC-over-RDMA v1 codec (rpc/rpc_rdma.c): header round trips, hostile
 * headers, reply checks against the offered chunks, chunk decisions,
 * RFC 8797 connection parameters.  No verbs needed: the codec is pure.
 *
 * Hostile inputs are decoded from heap copies of exactly their length, so
 * the ASan build catches any read past the end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpc/rpc_rdma.h"
#include "xprt/blocks/cong.h"

/* ------------------------------------------------------------ helpers */

struct wbuf {
	uint8_t b[4096];
	size_t n;
};

static void w32(struct wbuf *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void wseg(struct wbuf *w, uint32_t handle, uint32_t len, uint64_t off)
{
	w32(w, handle);
	w32(w, len);
	w32(w, (uint32_t)(off >> 32));
	w32(w, (uint32_t)off);
}

static void whdr(struct wbuf *w, uint32_t xid, uint32_t vers, uint32_t cred,
		 uint32_t proc)
{
	w->n = 0;
	w32(w, xid);
	w32(w, vers);
	w32(w, cred);
	w32(w, proc);
}

/* decode from an exact-size heap copy (ASan sees any overread) */
static long decode_exact(const void *p, size_t len, struct lx_rpcrdma_hdr *h)
{
	void *copy = malloc(len ? len : 1);
	long r;

	assert_non_null(copy);
	memcpy(copy, p, len);
	r = lx_rpcrdma_decode(copy, len, h);
	free(copy);
	return r;
}

static struct lx_rpcrdma_hdr *new_hdr(void)
{
	struct lx_rpcrdma_hdr *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	return h;
}

static struct lx_rpcrdma_hdr *full_call(void)
{
	struct lx_rpcrdma_hdr *h = new_hdr();

	h->xid = 0x11223344;
	h->vers = 1;
	h->credits = 64;
	h->proc = RDMA_MSG;
	h->nr_reads = 2;
	h->reads[0] = (struct lx_rpcrdma_read_seg){
		.position = 132,
		.seg = {.handle = 7, .length = 4096, .offset = 0x1000}};
	h->reads[1] = (struct lx_rpcrdma_read_seg){
		.position = 132,
		.seg = {.handle = 8, .length = 100, .offset = 0xffffffff00}};
	h->nr_writes = 1;
	h->writes[0].nsegs = 3;
	h->writes[0].segs[0] = (struct lx_rpcrdma_seg){9, 4096, 0x7f0000001000};
	h->writes[0].segs[1] =
		(struct lx_rpcrdma_seg){10, 4096, 0x7f0000002000};
	h->writes[0].segs[2] = (struct lx_rpcrdma_seg){11, 17, 0x7f0000003000};
	h->has_reply = true;
	h->reply.nsegs = 1;
	h->reply.segs[0] = (struct lx_rpcrdma_seg){12, 8192, 0x5000};
	return h;
}

/* ------------------------------------------------------- round trips */

static void test_roundtrip_full_call_preserves_every_field(void **state)
{
	struct lx_rpcrdma_hdr *h = full_call(), *d = new_hdr();
	uint8_t buf[LX_RPCRDMA_HDR_MAX];
	long n, m;

	(void)state;
	n = lx_rpcrdma_encode(buf, sizeof(buf), h);
	assert_true(n > 0);
	assert_int_equal((size_t)n, lx_rpcrdma_hdr_len(h));
	/* 16 + 2*24+4 + (4+4+3*16)+4 + 4+4+16 */
	assert_int_equal(n, 16 + 52 + 60 + 24);
	m = decode_exact(buf, (size_t)n, d);
	assert_int_equal(m, n);
	assert_int_equal(d->xid, h->xid);
	assert_int_equal(d->vers, 1);
	assert_int_equal(d->credits, 64);
	assert_int_equal(d->proc, RDMA_MSG);
	assert_int_equal(d->nr_reads, 2);
	assert_memory_equal(d->reads, h->reads, 2 * sizeof(h->reads[0]));
	assert_int_equal(d->nr_writes, 1);
	assert_int_equal(d->writes[0].nsegs, 3);
	assert_memory_equal(d->writes[0].segs, h->writes[0].segs,
			    3 * sizeof(h->writes[0].segs[0]));
	assert_true(d->has_reply);
	assert_int_equal(d->reply.nsegs, 1);
	assert_memory_equal(&d->reply.segs[0], &h->reply.segs[0],
			    sizeof(h->reply.segs[0]));
	free(h);
	free(d);
}

static void test_roundtrip_empty_msg_is_28_bytes(void **state)
{
	struct lx_rpcrdma_hdr *h = new_hdr(), *d = new_hdr();
	uint8_t buf[64];

	(void)state;
	h->xid = 5;
	h->vers = 1;
	h->credits = 1;
	h->proc = RDMA_NOMSG;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), 28);
	assert_int_equal(decode_exact(buf, 28, d), 28);
	assert_int_equal(d->proc, RDMA_NOMSG);
	assert_int_equal(d->nr_reads + d->nr_writes, 0);
	assert_false(d->has_reply);
	free(h);
	free(d);
}

static void test_roundtrip_errors_carry_version_range(void **state)
{
	struct lx_rpcrdma_hdr *h = new_hdr(), *d = new_hdr();
	uint8_t buf[64];

	(void)state;
	h->xid = 77;
	h->vers = 1;
	h->proc = RDMA_ERROR;
	h->err = LX_RPCRDMA_ERR_VERS;
	h->vers_low = 2;
	h->vers_high = 3;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), 28);
	assert_int_equal(decode_exact(buf, 28, d), 28);
	assert_int_equal(d->err, LX_RPCRDMA_ERR_VERS);
	assert_int_equal(d->vers_low, 2);
	assert_int_equal(d->vers_high, 3);
	h->err = LX_RPCRDMA_ERR_CHUNK;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), 20);
	assert_int_equal(decode_exact(buf, 20, d), 20);
	assert_int_equal(d->err, LX_RPCRDMA_ERR_CHUNK);
	free(h);
	free(d);
}

static void test_encode_short_buffer_writes_nothing(void **state)
{
	struct lx_rpcrdma_hdr *h = full_call();
	uint8_t buf[LX_RPCRDMA_HDR_MAX];
	size_t need = lx_rpcrdma_hdr_len(h);

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(lx_rpcrdma_encode(buf, need - 1, h), -EMSGSIZE);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	free(h);
}

static void test_encode_rejects_bad_arguments(void **state)
{
	struct lx_rpcrdma_hdr *h = full_call();
	uint8_t buf[LX_RPCRDMA_HDR_MAX];

	(void)state;
	assert_int_equal(lx_rpcrdma_encode(NULL, sizeof(buf), h), -EINVAL);
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), NULL), -EINVAL);
	h->proc = RDMA_DONE;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), -EINVAL);
	h->proc = RDMA_MSG;
	h->nr_reads = LX_RPCRDMA_MAX_SEGS + 1;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), -EINVAL);
	h->nr_reads = 0;
	h->writes[0].nsegs = LX_RPCRDMA_MAX_SEGS + 1;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), -EINVAL);
	assert_int_equal(lx_rpcrdma_hdr_len(h), 0);
	assert_int_equal(lx_rpcrdma_hdr_len(NULL), 0);
	free(h);
}

/* ----------------------------------------------------- hostile input */

static void test_decode_every_truncation_is_badmsg(void **state)
{
	struct lx_rpcrdma_hdr *h = full_call(), *d = new_hdr();
	uint8_t buf[LX_RPCRDMA_HDR_MAX];
	long n = lx_rpcrdma_encode(buf, sizeof(buf), h);
	size_t len;

	(void)state;
	assert_true(n > 0);
	for (len = 0; len < (size_t)n; len++) {
		assert_int_equal(decode_exact(buf, len, d), -EBADMSG);
		if (len >= 4)
			assert_int_equal(d->xid, h->xid);
	}
	free(h);
	free(d);
}

static void test_decode_huge_segment_count_is_badmsg(void **state)
{
	struct lx_rpcrdma_hdr *d = new_hdr();
	struct wbuf w;

	(void)state;
	/* write list claims 2^32-1 segments: must not multiply or loop */
	whdr(&w, 1, 1, 1, RDMA_MSG);
	w32(&w, 0);	     /* no reads */
	w32(&w, 1);	     /* a write chunk */
	w32(&w, UINT32_MAX); /* with 4G segments */
	wseg(&w, 1, 2, 3);
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	/* reply chunk likewise */
	whdr(&w, 1, 1, 1, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 0x10000001u); /* 16 * count wraps a 32-bit size */
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	free(d);
}

static void test_decode_more_segments_than_supported_is_e2big(void **state)
{
	struct lx_rpcrdma_hdr *d = new_hdr();
	struct wbuf w;
	unsigned int i;

	(void)state;
	whdr(&w, 1, 1, 1, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, LX_RPCRDMA_MAX_SEGS + 1);
	for (i = 0; i < LX_RPCRDMA_MAX_SEGS + 1; i++)
		wseg(&w, i, 1, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -E2BIG);
	/* a Read list longer than the output array */
	whdr(&w, 1, 1, 1, RDMA_MSG);
	for (i = 0; i < LX_RPCRDMA_MAX_SEGS + 1; i++) {
		w32(&w, 1);
		w32(&w, 0);
		wseg(&w, i, 1, 0);
	}
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -E2BIG);
	/* more Write chunks than the output array */
	whdr(&w, 1, 1, 1, RDMA_MSG);
	w32(&w, 0);
	for (i = 0; i < LX_RPCRDMA_MAX_WCHUNKS + 1; i++) {
		w32(&w, 1);
		w32(&w, 0);
	}
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -E2BIG);
	free(d);
}

static void test_decode_bad_discriminator_proc_and_vers(void **state)
{
	struct lx_rpcrdma_hdr *d = new_hdr();
	struct wbuf w;

	(void)state;
	whdr(&w, 9, 1, 1, RDMA_MSG);
	w32(&w, 2); /* neither 0 nor 1 */
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	whdr(&w, 9, 1, 1, 99);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	whdr(&w, 9, 2, 1, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), -EPROTONOSUPPORT);
	assert_int_equal(d->xid, 9);
	assert_int_equal(d->vers, 2);
	/* an unknown error code, a truncated ERR_VERS */
	whdr(&w, 9, 1, 1, RDMA_ERROR);
	w32(&w, 3);
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	whdr(&w, 9, 1, 1, RDMA_ERROR);
	w32(&w, LX_RPCRDMA_ERR_VERS);
	w32(&w, 1);
	assert_int_equal(decode_exact(w.b, w.n, d), -EBADMSG);
	/* an error header of another version still decodes */
	whdr(&w, 9, 7, 1, RDMA_ERROR);
	w32(&w, LX_RPCRDMA_ERR_CHUNK);
	assert_int_equal(decode_exact(w.b, w.n, d), 20);
	assert_int_equal(lx_rpcrdma_decode(NULL, 0, d), -EBADMSG);
	assert_int_equal(lx_rpcrdma_decode(w.b, w.n, NULL), -EINVAL);
	free(d);
}

static void test_decode_passes_credit_grants_through(void **state)
{
	struct lx_rpcrdma_hdr *d = new_hdr();
	struct lx_xprt_cong c;
	struct wbuf w;

	(void)state;
	/* the decoder reports the word as sent; the congestion module
	 * (GRANT mode) turns 0 into 1 and clamps 2^32-1 */
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 64), 0);
	whdr(&w, 1, 1, 0, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), 28);
	assert_int_equal(d->credits, 0);
	assert_int_equal(lx_xprt_cong_grant(&c, d->credits), 1);
	assert_true(lx_xprt_cong_get(&c));
	assert_false(lx_xprt_cong_get(&c));
	whdr(&w, 1, 1, UINT32_MAX, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	assert_int_equal(decode_exact(w.b, w.n, d), 28);
	assert_int_equal(d->credits, UINT32_MAX);
	assert_int_equal(lx_xprt_cong_grant(&c, d->credits), 64);
	assert_int_equal(lx_xprt_cong_window(&c), 64);
	free(d);
}

/* ---------------------------------------------------- reply checks */

/* what a call offered: a 3-segment Write chunk and a Reply chunk */
static void offer_init(struct lx_rpcrdma_offer *o, bool write, bool reply)
{
	memset(o, 0, sizeof(*o));
	if (write) {
		o->write.nsegs = 3;
		o->write.segs[0] = (struct lx_rpcrdma_seg){9, 4096, 0x1000};
		o->write.segs[1] = (struct lx_rpcrdma_seg){10, 4096, 0x2000};
		o->write.segs[2] = (struct lx_rpcrdma_seg){11, 100, 0x3000};
	}
	if (reply) {
		o->reply.nsegs = 1;
		o->reply.segs[0] = (struct lx_rpcrdma_seg){12, 8192, 0x5000};
	}
}

static struct lx_rpcrdma_hdr *reply_hdr(uint32_t proc)
{
	struct lx_rpcrdma_hdr *h = new_hdr();

	h->xid = 1;
	h->vers = 1;
	h->credits = 32;
	h->proc = proc;
	return h;
}

static void test_check_reply_accepts_what_was_offered(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_MSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;

	(void)state;
	offer_init(&o, true, true);
	h->nr_writes = 1;
	h->writes[0] = o.write;
	h->writes[0].segs[1].length = 1000; /* short read: 4096 + 1000 */
	h->writes[0].segs[2].length = 0;
	assert_int_equal(lx_rpcrdma_check_reply(h, 64, 64 + 120, &o, &ri), 0);
	assert_true(ri.write_used);
	assert_int_equal(ri.write_len, 5096);
	assert_int_equal(ri.msg_off, 64);
	assert_int_equal(ri.msg_len, 120);
	assert_false(ri.in_reply_chunk);
	/* NOMSG: the reply in the Reply chunk */
	free(h);
	h = reply_hdr(RDMA_NOMSG);
	h->has_reply = true;
	h->reply = o.reply;
	h->reply.segs[0].length = 3000;
	assert_int_equal(lx_rpcrdma_check_reply(h, 48, 48, &o, &ri), 0);
	assert_true(ri.in_reply_chunk);
	assert_int_equal(ri.reply_len, 3000);
	free(h);
}

/*
 * The common reply, RDMA_MSG with three empty lists, is decoded by a
 * shortcut: every field as the general decoder sets it, whatever the
 * structure held before, and every near miss still goes the long way.
 */
static void test_decode_plain_msg_matches_general_decoder(void **state)
{
	struct lx_rpcrdma_hdr *h = new_hdr();
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;
	struct wbuf w;
	unsigned int i;

	(void)state;
	whdr(&w, 0xcafe0001, 1, 77, RDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0xabcdef01); /* the RPC reply's XID */
	memset(h, 0xab, sizeof(*h));
	assert_int_equal(decode_exact(w.b, w.n, h), LX_RPCRDMA_PLAIN_LEN);
	assert_int_equal(h->xid, 0xcafe0001);
	assert_int_equal(h->vers, 1);
	assert_int_equal(h->credits, 77);
	assert_int_equal(h->proc, RDMA_MSG);
	assert_int_equal(h->nr_reads, 0);
	assert_int_equal(h->nr_writes, 0);
	assert_false(h->has_reply);
	assert_int_equal(h->reply.nsegs, 0);
	assert_int_equal(h->err + h->vers_low + h->vers_high, 0);
	/* inline, with a Write and a Reply chunk offered and left unused */
	offer_init(&o, true, true);
	memset(&ri, 0xab, sizeof(ri));
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, w.n, &o, &ri), 0);
	assert_int_equal(ri.msg_off, 28);
	assert_int_equal(ri.msg_len, 4);
	assert_false(ri.write_used);
	assert_false(ri.in_reply_chunk);
	assert_int_equal(ri.write_len + ri.reply_len, 0);
	/* no room for an XID after it: refused on the shortcut too */
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, 30, &o, &ri), -EBADMSG);
	/* one byte short of the lists */
	assert_int_equal(decode_exact(w.b, 27, h), -EBADMSG);
	/* another version */
	w.b[7] = 2;
	assert_int_equal(decode_exact(w.b, w.n, h), -EPROTONOSUPPORT);
	w.b[7] = 1;
	/* RDMA_NOMSG with empty lists: decoded, and refused as a reply */
	w.b[15] = RDMA_NOMSG;
	assert_int_equal(decode_exact(w.b, w.n, h), LX_RPCRDMA_PLAIN_LEN);
	assert_int_equal(h->proc, RDMA_NOMSG);
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, w.n, &o, &ri), -EBADMSG);
	w.b[15] = RDMA_MSG;
	/* a list that is not empty, or a bad discriminator, in each of
	 * the three places */
	for (i = 0; i < 3; i++) {
		w.b[19 + 4 * i] = 2;
		assert_int_equal(decode_exact(w.b, w.n, h), -EBADMSG);
		w.b[19 + 4 * i] = 1;
		assert_true(decode_exact(w.b, w.n, h) < 0); /* truncated */
		w.b[19 + 4 * i] = 0;
	}
	assert_int_equal(decode_exact(w.b, w.n, h), LX_RPCRDMA_PLAIN_LEN);
	free(h);
}

static void test_check_reply_refuses_write_list_not_offered(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_MSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o, w;

	(void)state;
	offer_init(&o, false, false);
	offer_init(&w, true, false);
	h->nr_writes = 1;
	h->writes[0] = w.write;
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	free(h);
}

static void test_check_reply_refuses_segment_past_registration(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_MSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;

	(void)state;
	offer_init(&o, true, false);
	h->nr_writes = 1;
	h->writes[0] = o.write;
	h->writes[0].segs[2].length = 101; /* one byte past what we gave */
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	h->writes[0].segs[2].length = UINT32_MAX;
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	/* another handle, more segments than offered, a hole */
	h->writes[0] = o.write;
	h->writes[0].segs[1].handle = 99;
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	h->writes[0] = o.write;
	h->writes[0].nsegs = 4;
	h->writes[0].segs[3] = (struct lx_rpcrdma_seg){13, 1, 0};
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	h->writes[0] = o.write;
	h->writes[0].segs[0].length = 10; /* short, then data after it */
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	/* two Write chunks for our one */
	h->writes[0] = o.write;
	h->nr_writes = 2;
	h->writes[1] = o.write;
	assert_int_equal(lx_rpcrdma_check_reply(h, 80, 200, &o, &ri), -EBADMSG);
	free(h);
}

static void test_check_reply_refuses_bad_reply_chunk_and_lists(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_NOMSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o, r;

	(void)state;
	offer_init(&o, false, false);
	offer_init(&r, false, true);
	h->has_reply = true;
	h->reply = r.reply;
	/* a Reply chunk we did not offer */
	assert_int_equal(lx_rpcrdma_check_reply(h, 48, 48, &o, &ri), -EBADMSG);
	/* longer than offered */
	h->reply.segs[0].length = 8193;
	assert_int_equal(lx_rpcrdma_check_reply(h, 48, 48, &r, &ri), -EBADMSG);
	/* NOMSG without Reply chunk, or with bytes after the header, or an
	 * empty one */
	h->has_reply = false;
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, 28, &r, &ri), -EBADMSG);
	h->has_reply = true;
	h->reply.segs[0].length = 100;
	assert_int_equal(lx_rpcrdma_check_reply(h, 48, 60, &r, &ri), -EBADMSG);
	h->reply.segs[0].length = 0;
	assert_int_equal(lx_rpcrdma_check_reply(h, 48, 48, &r, &ri), -EBADMSG);
	/* a Read list in a reply */
	free(h);
	h = reply_hdr(RDMA_MSG);
	h->nr_reads = 1;
	assert_int_equal(lx_rpcrdma_check_reply(h, 52, 100, &r, &ri), -EBADMSG);
	/* RDMA_MSG with no room for an XID; deprecated procedures */
	h->nr_reads = 0;
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, 31, &r, &ri), -EBADMSG);
	h->proc = RDMA_MSGP;
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, 100, &r, &ri), -EBADMSG);
	h->proc = RDMA_DONE;
	assert_int_equal(lx_rpcrdma_check_reply(h, 16, 100, &r, &ri), -EBADMSG);
	assert_int_equal(lx_rpcrdma_check_reply(h, 200, 100, &r, &ri), -EINVAL);
	free(h);
}

static void test_check_reply_maps_rdma_errors(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_ERROR);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;

	(void)state;
	offer_init(&o, true, true);
	h->err = LX_RPCRDMA_ERR_VERS;
	assert_int_equal(lx_rpcrdma_check_reply(h, 28, 28, &o, &ri), -EPROTO);
	h->err = LX_RPCRDMA_ERR_CHUNK;
	assert_int_equal(lx_rpcrdma_check_reply(h, 20, 20, &o, &ri), -EMSGSIZE);
	h->err = 9;
	assert_int_equal(lx_rpcrdma_check_reply(h, 20, 20, &o, &ri), -EBADMSG);
	free(h);
}

/* --------------------------------------------------------------- plan */

static struct lx_rpcrdma_plan_in plan_in(void)
{
	struct lx_rpcrdma_plan_in in = {
		.call_len = 140,
		.reply_cap = 8192,
		.inline_send = 4096,
		.inline_recv = 4096,
	};
	return in;
}

static void test_plan_small_call_goes_inline_without_chunks(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_plan p;

	(void)state;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.proc, RDMA_MSG);
	assert_int_equal(p.read, LX_RPCRDMA_READ_NONE);
	assert_false(p.write);
	assert_false(p.reply);
	assert_int_equal(p.hdr_len, 28);
	assert_int_equal(p.inline_len, 140);
	/* a 1 KiB WRITE with its pad stays inline */
	in.payload_len = 1021;
	in.payload_segs = 1;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.read, LX_RPCRDMA_READ_NONE);
	assert_int_equal(p.inline_len, 140 + 1024);
}

/*
 * A call without bulk data skips the planner when it goes inline both
 * ways (lx_rpcrdma_plain_fits()): at each threshold's edge the plan is
 * the one the general rules make a byte later, less the chunk, and the
 * shortcut's header is the general encoder's, byte for byte.
 */
static void test_plan_plain_call_edges_and_header(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_hdr *h = new_hdr();
	struct lx_rpcrdma_plan p;
	uint8_t a[64], b[64];

	(void)state;
	/* the call: the last byte that fits, then one more */
	in.call_len = in.inline_send - 28;
	assert_true(lx_rpcrdma_plain_fits(in.call_len, in.reply_hint,
					  in.inline_send, in.inline_recv));
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.proc, RDMA_MSG);
	assert_int_equal(p.read, LX_RPCRDMA_READ_NONE);
	assert_false(p.write || p.reply);
	assert_int_equal(p.reply_segs, 0);
	assert_int_equal(p.hdr_len, 28);
	assert_int_equal(p.inline_len, in.call_len);
	in.call_len++;
	assert_false(lx_rpcrdma_plain_fits(in.call_len, in.reply_hint,
					   in.inline_send, in.inline_recv));
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.proc, RDMA_NOMSG);
	assert_int_equal(p.read, LX_RPCRDMA_READ_POS0);
	assert_int_equal(p.inline_len, 0);
	/* the reply: the largest hint that stays inline, then one more */
	in.call_len = 140;
	in.reply_hint = in.inline_recv - 28;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_false(p.reply);
	assert_int_equal(p.hdr_len, 28);
	in.reply_hint++;
	assert_false(lx_rpcrdma_plain_fits(in.call_len, in.reply_hint,
					   in.inline_send, in.inline_recv));
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_true(p.reply);
	assert_int_equal(p.hdr_len, 28 + 4 + 16);
	/* thresholds below the minimum are refused, not planned */
	in.reply_hint = 0;
	in.inline_recv = LX_RPCRDMA_MIN_INLINE - 1;
	assert_false(lx_rpcrdma_plain_fits(in.call_len, 0, in.inline_send,
					   in.inline_recv));
	assert_int_equal(lx_rpcrdma_plan(&in, &p), -EINVAL);
	/* a payload or bulk results never take the shortcut */
	in = plan_in();
	in.rx_dst_len = 1;
	in.rx_dst_segs = 1;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.hdr_len, 28);
	/* the header */
	h->xid = 0x01020304;
	h->vers = LX_RPCRDMA_VERSION;
	h->credits = 128;
	h->proc = RDMA_MSG;
	memset(a, 0xee, sizeof(a));
	memset(b, 0xee, sizeof(b));
	assert_int_equal(lx_rpcrdma_encode(a, sizeof(a), h), 28);
	assert_int_equal(lx_rpcrdma_encode_plain(b, 0x01020304, 128), 28);
	assert_memory_equal(a, b, sizeof(a));
	free(h);
}

static void test_plan_large_write_uses_read_chunk_at_position(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_plan p;

	(void)state;
	in.payload_len = 65536;
	in.payload_segs = 2;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.proc, RDMA_MSG);
	assert_int_equal(p.read, LX_RPCRDMA_READ_PAYLOAD);
	assert_int_equal(p.inline_len, 140);
	assert_int_equal(p.hdr_len, 16 + 2 * 24 + 4 + 4 + 4);
	/* the rest too large as well: everything by position zero */
	in.call_len = 4090;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.proc, RDMA_NOMSG);
	assert_int_equal(p.read, LX_RPCRDMA_READ_POS0);
	assert_int_equal(p.inline_len, 0);
	/* a large call without payload */
	in.payload_len = 0;
	in.payload_segs = 0;
	in.call_len = 5000;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.read, LX_RPCRDMA_READ_POS0);
}

static void test_plan_results_choose_write_or_reply_chunk(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_plan p;

	(void)state;
	/* a 2 KiB READ fits the 4 KiB threshold: data inline */
	in.rx_dst_len = 2048;
	in.rx_dst_segs = 1;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_false(p.write);
	assert_false(p.reply);
	/* a 64 KiB READ: Write chunk, header grows by the chunk */
	in.rx_dst_len = 65536;
	in.rx_dst_segs = 2;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_true(p.write);
	assert_false(p.reply);
	assert_int_equal(p.hdr_len, 16 + 4 + 4 + 4 + 2 * 16 + 4 + 4);
	/* READDIR with 32 KiB of entries: Reply chunk */
	in.rx_dst_len = 0;
	in.rx_dst_segs = 0;
	in.reply_hint = 32768 + 200;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_false(p.write);
	assert_true(p.reply);
	/* with the 1 KiB default thresholds a 900-byte hint needs one too */
	in = plan_in();
	in.inline_send = in.inline_recv = 1024;
	in.reply_hint = 1000;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_true(p.reply);
}

static void test_plan_rejects_too_many_segments_and_bad_args(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_plan p;

	(void)state;
	in.rx_dst_len = 1 << 20;
	in.rx_dst_segs = LX_RPCRDMA_MAX_SEGS + 1;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), -E2BIG);
	in = plan_in();
	in.payload_len = 100000;
	in.payload_segs = LX_RPCRDMA_MAX_SEGS;
	in.call_len = 4000; /* forces position zero: 1 + 16 + pad > 16 */
	in.payload_len = 99999;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), -E2BIG);
	in = plan_in();
	in.inline_send = 512;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), -EINVAL);
	assert_int_equal(lx_rpcrdma_plan(NULL, &p), -EINVAL);
	assert_int_equal(lx_rpcrdma_plan(&in, NULL), -EINVAL);
}

/* ---------------------------------------------------- connection data */

/*
 * A Reply chunk of several segments over one receive buffer (one window
 * each): 4 x 4 KiB + 1 KiB, as a 17 KiB buffer cut at a 4 KiB segment
 * limit.
 */
static void offer_multi_reply(struct lx_rpcrdma_offer *o)
{
	uint32_t i;

	memset(o, 0, sizeof(*o));
	o->reply.nsegs = 5;
	for (i = 0; i < 5; i++)
		o->reply.segs[i] = (struct lx_rpcrdma_seg){
			20 + i, i < 4 ? 4096 : 1024, 0x10000 + i * 4096};
}

static void test_multi_segment_reply_chunk_round_trips(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_NOMSG), *d = new_hdr();
	struct lx_rpcrdma_offer o;
	uint8_t buf[LX_RPCRDMA_HDR_MAX];
	long n;
	uint32_t i;

	(void)state;
	offer_multi_reply(&o);
	/* the most segments we build and accept */
	h->has_reply = true;
	h->reply.nsegs = LX_RPCRDMA_MAX_SEGS;
	for (i = 0; i < LX_RPCRDMA_MAX_SEGS; i++)
		h->reply.segs[i] = (struct lx_rpcrdma_seg){
			100 + i, 4096, 0x7f0000000000ull + i * 4096};
	n = lx_rpcrdma_encode(buf, sizeof(buf), h);
	assert_int_equal(n, 16 + 4 + 4 + 4 + 4 + LX_RPCRDMA_MAX_SEGS * 16);
	assert_int_equal((size_t)n, lx_rpcrdma_hdr_len(h));
	assert_int_equal(decode_exact(buf, (size_t)n, d), n);
	assert_true(d->has_reply);
	assert_int_equal(d->reply.nsegs, LX_RPCRDMA_MAX_SEGS);
	for (i = 0; i < LX_RPCRDMA_MAX_SEGS; i++) {
		assert_int_equal(d->reply.segs[i].handle, 100 + i);
		assert_int_equal(d->reply.segs[i].length, 4096);
		assert_true(d->reply.segs[i].offset ==
			    0x7f0000000000ull + i * 4096);
	}
	/* one more is not built... */
	h->reply.nsegs = LX_RPCRDMA_MAX_SEGS + 1;
	assert_int_equal(lx_rpcrdma_encode(buf, sizeof(buf), h), -EINVAL);
	free(h);
	free(d);
}

static void test_decode_reply_chunk_beyond_max_segs_is_e2big(void **state)
{
	struct lx_rpcrdma_hdr *h = new_hdr();
	struct wbuf w;
	uint32_t i;

	(void)state;
	/* 17 segments, every byte present: refused for the count, not
	 * read into a 16-entry array */
	whdr(&w, 5, 1, 8, RDMA_NOMSG);
	w32(&w, 0); /* Read list */
	w32(&w, 0); /* Write list */
	w32(&w, 1);
	w32(&w, LX_RPCRDMA_MAX_SEGS + 1);
	for (i = 0; i < LX_RPCRDMA_MAX_SEGS + 1; i++)
		wseg(&w, 100 + i, 4096, 0);
	assert_int_equal(decode_exact(w.b, w.n, h), -E2BIG);
	assert_int_equal(h->xid, 5);
	/* a count announcing more than the bytes there */
	whdr(&w, 6, 1, 8, RDMA_NOMSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 3);
	wseg(&w, 100, 4096, 0);
	wseg(&w, 101, 4096, 0);
	assert_int_equal(decode_exact(w.b, w.n, h), -EBADMSG);
	free(h);
}

static void test_check_multi_segment_reply_chunk(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_NOMSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;

	(void)state;
	offer_multi_reply(&o);
	h->has_reply = true;
	/* the whole chunk used: 4 x 4096 + 1024 */
	h->reply = o.reply;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri), 0);
	assert_true(ri.in_reply_chunk);
	assert_int_equal(ri.reply_len, 17408);
	/* a reply of 9000 bytes: two full segments and part of a third,
	 * the rest echoed empty (RFC 8166 3.4.5) or left off */
	h->reply.segs[2].length = 808;
	h->reply.segs[3].length = 0;
	h->reply.segs[4].length = 0;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri), 0);
	assert_int_equal(ri.reply_len, 9000);
	h->reply.nsegs = 3;
	assert_int_equal(lx_rpcrdma_check_reply(h, 64, 64, &o, &ri), 0);
	assert_int_equal(ri.reply_len, 9000);
	free(h);
}

static void test_check_hostile_multi_segment_reply_chunk(void **state)
{
	struct lx_rpcrdma_hdr *h = reply_hdr(RDMA_NOMSG);
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;

	(void)state;
	offer_multi_reply(&o);
	h->has_reply = true;
	/* more segments than offered: a sixth window we never bound */
	h->reply = o.reply;
	h->reply.nsegs = 6;
	h->reply.segs[5] = (struct lx_rpcrdma_seg){25, 1, 0x15000};
	assert_int_equal(lx_rpcrdma_check_reply(h, 128, 128, &o, &ri),
			 -EBADMSG);
	/* more bytes than offered: the last segment one byte long, or
	 * every segment claiming the whole buffer */
	h->reply = o.reply;
	h->reply.segs[4].length = 1025;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	h->reply = o.reply;
	h->reply.segs[1].length = 17408;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	h->reply.segs[1].length = UINT32_MAX;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	/* segments out of order (handles swapped): the bytes would not be
	 * where the reply says */
	h->reply = o.reply;
	h->reply.segs[0].handle = 21;
	h->reply.segs[1].handle = 20;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	/* a hole: a short segment followed by data */
	h->reply = o.reply;
	h->reply.segs[1].length = 100;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	/* every segment empty: no reply at all */
	h->reply = o.reply;
	h->reply.segs[0].length = h->reply.segs[1].length = 0;
	h->reply.segs[2].length = h->reply.segs[3].length = 0;
	h->reply.segs[4].length = 0;
	assert_int_equal(lx_rpcrdma_check_reply(h, 112, 112, &o, &ri),
			 -EBADMSG);
	free(h);
}

static void test_plan_multi_segment_reply_chunk(void **state)
{
	struct lx_rpcrdma_plan_in in = plan_in();
	struct lx_rpcrdma_plan p;

	(void)state;
	in.reply_hint = 32768 + 200;
	in.reply_segs = 8; /* a 64 KiB buffer at an 8 KiB segment limit */
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_true(p.reply);
	assert_int_equal(p.reply_segs, 8);
	assert_int_equal(p.hdr_len, 16 + 4 + 4 + 4 + 4 + 8 * 16);
	/* a small reply offers no chunk, whatever the segment count */
	in.reply_hint = 0;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_false(p.reply);
	assert_int_equal(p.reply_segs, 0);
	/* 0 is one segment */
	in.reply_hint = 32768;
	in.reply_segs = 0;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_int_equal(p.reply_segs, 1);
	/* more than a chunk takes: refused when the chunk is needed, and
	 * only then (a 1 MiB buffer at 4 KiB segments still makes small
	 * calls) */
	in.reply_segs = LX_RPCRDMA_MAX_SEGS + 1;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), -E2BIG);
	in.reply_hint = 0;
	in.reply_segs = 256;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_false(p.reply);
	/* Write and Reply chunks of 16 segments each still fit 1 KiB */
	in = plan_in();
	in.inline_send = in.inline_recv = 1024;
	in.rx_dst_len = 1 << 20;
	in.rx_dst_segs = LX_RPCRDMA_MAX_SEGS;
	in.reply_hint = 2048;
	in.reply_segs = LX_RPCRDMA_MAX_SEGS;
	assert_int_equal(lx_rpcrdma_plan(&in, &p), 0);
	assert_true(p.write && p.reply);
	assert_true(p.hdr_len + 100 <= 1024);
}

static void test_cm_private_data_layout_and_negotiation(void **state)
{
	uint8_t pd[LX_RPCRDMA_CM_PDATA_LEN], srv[LX_RPCRDMA_CM_PDATA_LEN];
	unsigned int s, r;

	(void)state;
	assert_int_equal(lx_rpcrdma_cm_encode(pd, 4096, 8192, 0), 8);
	assert_int_equal(pd[0], 0xf6);
	assert_int_equal(pd[1], 0xab);
	assert_int_equal(pd[2], 0x0e);
	assert_int_equal(pd[3], 0x18);
	assert_int_equal(pd[4], 1); /* version */
	assert_int_equal(pd[5], 0); /* flags */
	assert_int_equal(pd[6], 3); /* 4096 / 1024 - 1 */
	assert_int_equal(pd[7], 7);
	/* the server receives 2 KiB, sends 16 KiB: we take the minimum */
	assert_int_equal(lx_rpcrdma_cm_encode(srv, 16384, 2048, 0), 8);
	assert_int_equal(lx_rpcrdma_cm_negotiate(srv, 8, 4096, 8192, &s, &r),
			 1);
	assert_int_equal(s, 2048);
	assert_int_equal(r, 8192);
	/* no private data: 1024 each way (RFC 8166) */
	assert_int_equal(lx_rpcrdma_cm_negotiate(NULL, 0, 4096, 4096, &s, &r),
			 0);
	assert_int_equal(s, 1024);
	assert_int_equal(r, 1024);
	/* short, bad magic, other version: ignored */
	assert_int_equal(lx_rpcrdma_cm_negotiate(srv, 7, 4096, 4096, &s, &r),
			 0);
	srv[0] ^= 1;
	assert_int_equal(lx_rpcrdma_cm_negotiate(srv, 8, 4096, 4096, &s, &r),
			 0);
	srv[0] ^= 1;
	srv[4] = 2;
	assert_int_equal(lx_rpcrdma_cm_negotiate(srv, 8, 4096, 4096, &s, &r),
			 0);
	assert_int_equal(s, 1024);
	/* our sizes must be whole KiB in range */
	assert_int_equal(lx_rpcrdma_cm_encode(pd, 1000, 4096, 0), -EINVAL);
	assert_int_equal(lx_rpcrdma_cm_encode(pd, 4096, 0, 0), -EINVAL);
	assert_int_equal(lx_rpcrdma_cm_encode(pd, 512 * 1024, 4096, 0),
			 -EINVAL);
	assert_int_equal(lx_rpcrdma_cm_encode(NULL, 4096, 4096, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_roundtrip_full_call_preserves_every_field),
		cmocka_unit_test(test_roundtrip_empty_msg_is_28_bytes),
		cmocka_unit_test(test_roundtrip_errors_carry_version_range),
		cmocka_unit_test(test_encode_short_buffer_writes_nothing),
		cmocka_unit_test(test_encode_rejects_bad_arguments),
		cmocka_unit_test(test_decode_every_truncation_is_badmsg),
		cmocka_unit_test(test_decode_huge_segment_count_is_badmsg),
		cmocka_unit_test(
			test_decode_more_segments_than_supported_is_e2big),
		cmocka_unit_test(test_decode_bad_discriminator_proc_and_vers),
		cmocka_unit_test(test_decode_passes_credit_grants_through),
		cmocka_unit_test(test_check_reply_accepts_what_was_offered),
		cmocka_unit_test(
			test_check_reply_refuses_write_list_not_offered),
		cmocka_unit_test(
			test_check_reply_refuses_segment_past_registration),
		cmocka_unit_test(
			test_check_reply_refuses_bad_reply_chunk_and_lists),
		cmocka_unit_test(test_check_reply_maps_rdma_errors),
		cmocka_unit_test(test_decode_plain_msg_matches_general_decoder),
		cmocka_unit_test(
			test_plan_small_call_goes_inline_without_chunks),
		cmocka_unit_test(
			test_plan_large_write_uses_read_chunk_at_position),
		cmocka_unit_test(test_plan_results_choose_write_or_reply_chunk),
		cmocka_unit_test(test_plan_plain_call_edges_and_header),
		cmocka_unit_test(
			test_plan_rejects_too_many_segments_and_bad_args),
		cmocka_unit_test(test_multi_segment_reply_chunk_round_trips),
		cmocka_unit_test(
			test_decode_reply_chunk_beyond_max_segs_is_e2big),
		cmocka_unit_test(test_check_multi_segment_reply_chunk),
		cmocka_unit_test(test_check_hostile_multi_segment_reply_chunk),
		cmocka_unit_test(test_plan_multi_segment_reply_chunk),
		cmocka_unit_test(test_cm_private_data_layout_and_negotiation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
