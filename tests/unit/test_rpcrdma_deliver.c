// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The receive side of message transports, without verbs:
 *   - lx_xprt_rx_deliver(): a whole received message placed into a request,
 *     bulk data into the caller's memory through the place() hook, as
 *     the RDMA bindings use it (9P Rread, RPC replies with inline data);
 *     hostile lengths must never write outside the receive buffer or the
 *     caller's memory (exact-size heap buffers: ASan sees any overflow)
 *   - the RDMA API's argument checks that need no device: options,
 *     counters, the pool hook with no device present.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libxprt/proto/rdma.h>
#include <libxprt/rpc.h>

#include "xprt/core/xprt_int.h"

/* ------------------------------------------------------------ fixture */

/* what the fake place() hook answers */
static struct {
	int ret;
	size_t off, len, pad;
	size_t seen_have, seen_msg_len;
	int calls;
} hook;

struct fix {
	struct lx_xprt *x;
	struct lx_xprt_rqst *rq;
	struct lx_xprt_buf rbuf;
	uint8_t *dst; /* the caller's memory, exact size */
	size_t dst_len;
	struct iovec iov;
};

static int fake_place(struct lx_xprt_req *req, size_t have, size_t msg_len)
{
	hook.calls++;
	hook.seen_have = have;
	hook.seen_msg_len = msg_len;
	if (hook.ret)
		return hook.ret;
	req->rx_data_off = hook.off;
	req->rx_data_len = hook.len;
	req->rx_data_pad = hook.pad;
	return 0;
}

static void fake_done(struct lx_xprt_req *req, int status)
{
	(void)req;
	(void)status;
}

static const struct lx_xprt_req_ops ops_place = {
	.done = fake_done,
	.place = fake_place,
};
static const struct lx_xprt_req_ops ops_plain = {.done = fake_done};

static struct fix *fix_new(size_t cap, size_t dst_len, bool place)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->x = calloc(1, sizeof(*f->x));
	f->rq = calloc(1, sizeof(*f->rq));
	assert_non_null(f->x);
	assert_non_null(f->rq);
	f->x->opts.max_msg = 1 << 20;
	f->rbuf.data = malloc(cap);
	f->rbuf.cap = (uint32_t)cap;
	assert_non_null(f->rbuf.data);
	memset(f->rbuf.data, 0xee, cap);
	f->rq->pub.xprt = f->x;
	f->rq->pub.rbuf = &f->rbuf;
	f->rq->pub.ops = place ? &ops_place : &ops_plain;
	f->dst_len = dst_len;
	f->dst = malloc(dst_len ? dst_len : 1);
	assert_non_null(f->dst);
	memset(f->dst, 0xdd, dst_len ? dst_len : 1);
	f->iov.iov_base = f->dst;
	f->iov.iov_len = dst_len;
	assert_int_equal(
		lx_xprt_iter_kvec(&f->rq->pub.rx_data, &f->iov, 1, dst_len), 0);
	memset(&hook, 0, sizeof(hook));
	return f;
}

static void fix_free(struct fix *f)
{
	free(f->dst);
	free(f->rbuf.data);
	free(f->rq);
	free(f->x);
	free(f);
}

/* a message of @len bytes: byte i is (i * 7 + 3) */
static uint8_t *msg_new(size_t len)
{
	uint8_t *m = malloc(len ? len : 1);
	size_t i;

	assert_non_null(m);
	for (i = 0; i < len; i++)
		m[i] = (uint8_t)(i * 7 + 3);
	return m;
}

static int deliver(struct fix *f, const uint8_t *m, size_t len)
{
	return lx_xprt_rx_deliver(f->x, f->rq, m, len);
}

/* ------------------------------------------------------------ deliver */

static void test_deliver_without_place_copies_whole_message(void **state)
{
	struct fix *f = fix_new(256, 0, false);
	uint8_t *m = msg_new(200);

	(void)state;
	assert_int_equal(deliver(f, m, 200), 0);
	assert_int_equal(f->rq->pub.rlen, 200);
	assert_int_equal(f->rq->pub.rx_msg_len, 200);
	assert_memory_equal(f->rbuf.data, m, 200);
	free(m);
	fix_free(f);
}

static void test_deliver_larger_than_receive_buffer_is_emsgsize(void **state)
{
	struct fix *f = fix_new(256, 0, false);
	uint8_t *m = msg_new(257);

	(void)state;
	/* copies at most cap bytes (ASan: no write past the buffer) */
	assert_int_equal(deliver(f, m, 257), -EMSGSIZE);
	f->x->opts.max_msg = 100;
	assert_int_equal(deliver(f, m, 200), -EMSGSIZE);
	free(m);
	fix_free(f);
}

static void test_deliver_places_bulk_data_and_keeps_the_rest(void **state)
{
	struct fix *f = fix_new(64, 100, true);
	uint8_t *m = msg_new(16 + 100 + 8);

	(void)state;
	hook.off = 16;
	hook.len = 100;
	assert_int_equal(deliver(f, m, 124), 0);
	assert_int_equal(hook.calls, 1);
	assert_int_equal(hook.seen_have, 64); /* what fits the buffer */
	assert_int_equal(hook.seen_msg_len, 124);
	assert_memory_equal(f->dst, m + 16, 100);
	assert_int_equal(f->rq->pub.rlen, 24);
	assert_memory_equal(f->rbuf.data, m, 16);
	assert_memory_equal((uint8_t *)f->rbuf.data + 16, m + 116, 8);
	assert_int_equal(lx_xprt_iter_count(&f->rq->pub.rx_data), 0);
	free(m);
	fix_free(f);
}

static void test_deliver_drops_xdr_pad_after_data(void **state)
{
	struct fix *f = fix_new(64, 10, true);
	uint8_t *m = msg_new(20 + 10 + 2 + 4);

	(void)state;
	hook.off = 20;
	hook.len = 10;
	hook.pad = 2;
	assert_int_equal(deliver(f, m, 36), 0);
	assert_memory_equal(f->dst, m + 20, 10);
	assert_int_equal(f->rq->pub.rlen, 24);
	assert_memory_equal((uint8_t *)f->rbuf.data + 20, m + 32, 4);
	free(m);
	fix_free(f);
}

static void test_deliver_data_beyond_caller_memory_is_eoverflow(void **state)
{
	struct fix *f = fix_new(64, 50, true);
	uint8_t *m = msg_new(16 + 100);
	size_t i;

	(void)state;
	hook.off = 16;
	hook.len = 100; /* the caller gave 50 */
	assert_int_equal(deliver(f, m, 116), -EOVERFLOW);
	for (i = 0; i < 50; i++)
		assert_int_equal(f->dst[i], 0xdd); /* untouched */
	free(m);
	fix_free(f);
}

static void test_deliver_hostile_offsets_never_copy(void **state)
{
	struct fix *f = fix_new(64, 4096, true);
	uint8_t *m = msg_new(100);
	size_t i;

	(void)state;
	/* data running past the end of the message */
	hook.off = 16;
	hook.len = 90;
	assert_int_equal(deliver(f, m, 100), -EBADMSG);
	hook.len = SIZE_MAX - 8; /* wraps off + len */
	assert_int_equal(deliver(f, m, 100), -EBADMSG);
	/* the pad past the end */
	hook.len = 80;
	hook.pad = 5;
	assert_int_equal(deliver(f, m, 100), -EBADMSG);
	/* data starting past what the buffer holds, or past the message */
	hook.off = 65;
	hook.len = 1;
	hook.pad = 0;
	assert_int_equal(deliver(f, m, 100), -EMSGSIZE);
	free(m);
	m = msg_new(40);
	hook.off = 50;
	assert_int_equal(deliver(f, m, 40), -EBADMSG);
	for (i = 0; i < 4096; i++)
		assert_int_equal(f->dst[i], 0xdd);
	free(m);
	fix_free(f);
}

static void test_deliver_tail_too_large_for_buffer_is_emsgsize(void **state)
{
	struct fix *f = fix_new(64, 8, true);
	uint8_t *m = msg_new(200);

	(void)state;
	hook.off = 16;
	hook.len = 8; /* then 176 bytes that cannot fit 64 - 16 */
	assert_int_equal(deliver(f, m, 200), -EMSGSIZE);
	free(m);
	fix_free(f);
}

static void test_deliver_maps_place_requests_it_cannot_meet(void **state)
{
	struct fix *f = fix_new(64, 8, true);
	uint8_t *m = msg_new(40);

	(void)state;
	hook.ret = 30; /* no more than it has: a protocol bug */
	assert_int_equal(deliver(f, m, 40), -EPROTO);
	hook.ret = 50; /* more than the message */
	assert_int_equal(deliver(f, m, 40), -EBADMSG);
	free(m);
	m = msg_new(100);
	hook.ret = 80; /* more than the buffer */
	assert_int_equal(deliver(f, m, 100), -EMSGSIZE);
	hook.ret = -ENOSPC; /* the protocol's own refusal */
	assert_int_equal(deliver(f, m, 100), -ENOSPC);
	free(m);
	fix_free(f);
}

/* ------------------------------------------------- API without device */

static void test_rdma_api_rejects_bad_arguments(void **state)
{
	struct lx_xprt_rdma_stats st;
	struct lx_xprt_opts o = {0};
	struct lx_xprt_rdma_opts ro = {0};
	struct lx_rpc_opts co = {0};
	struct lx_rpc_clnt *cl;
	struct lx_xprt *x = NULL;

	(void)state;
	assert_int_equal(lx_xprt_rdma_stats(NULL, &st), -EINVAL);
	assert_int_equal(lx_xprt_rdma_reg_flush(NULL), -EINVAL);
	assert_non_null(lx_xprt_rdma_pool_reg());
	assert_non_null(lx_xprt_rdma_pool_reg()->reg);

	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.host = "127.0.0.1";
	o.port = LX_XPRT_RDMA_9P_PORT;
	o.framing = &lx_xprt_framing_9p;
	o.rdma = &ro;
	ro.inline_send = 1000; /* not whole KiB */
	assert_int_equal(lx_xprt_create(&x, &o), -EINVAL);
	ro.inline_send = 0;
	ro.rnr_retry = 8;
	ro.rnr_retry_set = true;
	assert_int_equal(lx_xprt_create(&x, &o), -EINVAL);
	ro.rnr_retry_set = false;
	/* record-marked RPC cannot go as whole messages */
	o.framing = &lx_xprt_framing_rpc;
	assert_int_equal(lx_xprt_create(&x, &o), -EPROTONOSUPPORT);
	assert_null(x);

	/* rpcbind maps TCP: RDMA needs the port */
	co.host = "127.0.0.1";
	co.prog = 100003;
	co.vers = 3;
	co.transport = LX_XPRT_TRANSPORT_RDMA;
	assert_int_equal(lx_rpc_create(&cl, &co), -EINVAL);
}

static void test_rdma_without_device_fails_cleanly(void **state)
{
	struct lx_xprt_opts o = {0};
	struct lx_xprt *x = NULL;
	int r;

	(void)state;
	/* the build host has no RDMA device: connecting fails with an
	 * errno, nothing leaks (ASan), nothing is left running */
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.host = "127.0.0.1";
	o.port = LX_XPRT_RDMA_9P_PORT;
	o.connect_timeout_ms = 1000;
	r = lx_xprt_create(&x, &o);
	if (!r) {
		/* a host with a working device and a listener: fine too */
		lx_xprt_destroy(x);
		print_message("SKIP(rdma-device): an RDMA listener answered: "
			      "the no-device path cannot be tested here\n");
		skip();
	}
	assert_true(r < 0);
	assert_null(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_deliver_without_place_copies_whole_message),
		cmocka_unit_test(
			test_deliver_larger_than_receive_buffer_is_emsgsize),
		cmocka_unit_test(
			test_deliver_places_bulk_data_and_keeps_the_rest),
		cmocka_unit_test(test_deliver_drops_xdr_pad_after_data),
		cmocka_unit_test(
			test_deliver_data_beyond_caller_memory_is_eoverflow),
		cmocka_unit_test(test_deliver_hostile_offsets_never_copy),
		cmocka_unit_test(
			test_deliver_tail_too_large_for_buffer_is_emsgsize),
		cmocka_unit_test(
			test_deliver_maps_place_requests_it_cannot_meet),
		cmocka_unit_test(test_rdma_api_rejects_bad_arguments),
		cmocka_unit_test(test_rdma_without_device_fails_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
