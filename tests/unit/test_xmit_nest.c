// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A done() callback that submits the next request, on a connection whose
 * replies beat the sender's bookkeeping (the sender completes them itself,
 * after dropping the transmit lock): the chain must run as a loop, not as
 * a recursion as deep as the request slots.
 *
 * The transport is a fake whose send() answers every request while it is
 * being sent - what a loaded machine does now and then (the sender loses
 * its CPU right after the send system call, the reply is in and processed
 * before it is back) made to happen every time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "xprt/core/xprt_int.h"

#define SLOTS 4
#define CHAIN 200

static int fk_setup(struct lx_xprt *x)
{
	(void)x;
	return 0;
}

static int fk_connect(struct lx_xprt *x, uint32_t cookie)
{
	(void)x;
	(void)cookie;
	return 0;
}

static void fk_nothing(struct lx_xprt *x)
{
	(void)x;
}

static void fk_wait_writable(struct lx_xprt *x, int timeout_ms)
{
	(void)x;
	usleep((useconds_t)timeout_ms * 100);
}

/* Sent, and answered (an empty reply) before the sender's bookkeeping. */
static int fk_send(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		   unsigned int n, unsigned int *nsent, bool more)
{
	unsigned int i;

	(void)more;
	for (i = 0; i < n; i++) {
		struct lx_xprt_rqst *rq =
			lx_xprt_rx_lookup(x, reqs[i]->pub.key);

		reqs[i]->tx_done = reqs[i]->tx_total;
		if (rq)
			lx_xprt_rx_complete(x, rq, 0);
	}
	*nsent = n;
	return 0;
}

static const struct lx_xprt_transport_ops fake_ops = {
	.name = "fake",
	.setup = fk_setup,
	.connect = fk_connect,
	.shutdown = fk_nothing,
	.reap = fk_nothing,
	.send = fk_send,
	.wait_writable = fk_wait_writable,
	.kick_rx = fk_nothing,
	.teardown = fk_nothing,
};

static struct {
	struct lx_xprt *x;
	atomic_uint next_key, done, failed, max_depth;
	atomic_int first_err;
} C;

static _Thread_local unsigned int depth;

static int submit_next(void);

static void chain_done(struct lx_xprt_req *req, int status)
{
	unsigned int d = ++depth, m = atomic_load(&C.max_depth);
	int err;

	while (d > m && !atomic_compare_exchange_weak(&C.max_depth, &m, d))
		;
	if (status)
		atomic_fetch_add(&C.failed, 1);
	if (atomic_fetch_add(&C.done, 1) + 1 < CHAIN) {
		err = submit_next();
		if (err) {
			atomic_fetch_add(&C.failed, 1);
			atomic_store(&C.first_err, err);
		}
	}
	/* the protocol's reference goes last, as lx_rpc_done() does */
	lx_xprt_req_put(req);
	depth--;
}

static const struct lx_xprt_req_ops chain_ops = {.done = chain_done};

/* From a callback: NOWAIT, as completion context requires. */
static int submit_next(void)
{
	struct lx_xprt_req *req;
	int err;

	err = lx_xprt_req_alloc(C.x, LX_XPRT_NOWAIT, &req);
	if (err)
		return err;
	req->ops = &chain_ops;
	memset(req->sbuf->data, 0, 4);
	req->sbuf->len = 4;
	err = lx_xprt_req_submit(req, atomic_fetch_add(&C.next_key, 1) + 1);
	if (err)
		lx_xprt_req_put(req);
	return err;
}

static void test_callback_chain_is_a_loop_not_a_recursion(void **state)
{
	struct lx_xprt_opts o = {
		.transport = LX_XPRT_TRANSPORT_TCP,
		.host = "fake",
		.port = 1,
		.framing = &lx_xprt_framing_rpc,
		.max_reqs = SLOTS,
	};
	unsigned int i;

	(void)state;
	memset(&C, 0, sizeof(C));
	assert_int_equal(lx_xprt__create_ops(&C.x, &o, &fake_ops), 0);
	assert_int_equal(submit_next(), 0);
	for (i = 0; i < 5000 && atomic_load(&C.done) < CHAIN; i++)
		usleep(1000);
	if (atomic_load(&C.failed))
		fail_msg("%u of %u chained submits failed, the first with %d "
			 "(callbacks nested %u deep, %u slots)",
			 atomic_load(&C.failed), atomic_load(&C.done),
			 atomic_load(&C.first_err), atomic_load(&C.max_depth),
			 SLOTS);
	assert_int_equal(atomic_load(&C.done), CHAIN);
	/* each callback ran on its own, never inside another's submit */
	assert_int_equal(atomic_load(&C.max_depth), 1);
	lx_xprt_destroy(C.x);
}

/* ------------------------------------------------ a receive batch */

/* A send that records what it sent, in order, and answers nothing. */
static struct {
	unsigned int calls, n;
	uint32_t keys[16];
} R;

static int rec_send(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		    unsigned int n, unsigned int *nsent, bool more)
{
	unsigned int i;

	(void)x;
	(void)more;
	R.calls++;
	for (i = 0; i < n; i++) {
		reqs[i]->tx_done = reqs[i]->tx_total;
		if (R.n < 16)
			R.keys[R.n++] = reqs[i]->pub.key;
	}
	*nsent = n;
	return 0;
}

static const struct lx_xprt_transport_ops rec_ops = {
	.name = "rec",
	.setup = fk_setup,
	.connect = fk_connect,
	.shutdown = fk_nothing,
	.reap = fk_nothing,
	.send = rec_send,
	.wait_writable = fk_wait_writable,
	.kick_rx = fk_nothing,
	.teardown = fk_nothing,
};

static atomic_int rec_dones[4], rec_status[4];

static void rec_done(struct lx_xprt_req *req, int status)
{
	unsigned int k = req->key - 1;

	atomic_store(&rec_status[k], status);
	atomic_fetch_add(&rec_dones[k], 1);
	lx_xprt_req_put(req);
}

static const struct lx_xprt_req_ops rec_req_ops = {.done = rec_done};

static struct lx_xprt_req *rec_submit(struct lx_xprt *x, uint32_t key)
{
	struct lx_xprt_req *req;

	assert_int_equal(lx_xprt_req_alloc(x, LX_XPRT_NOWAIT, &req), 0);
	req->ops = &rec_req_ops;
	memset(req->sbuf->data, 0, 4);
	req->sbuf->len = 4;
	lx_xprt_req_get(req); /* ours, to cancel it */
	assert_int_equal(lx_xprt_req_submit(req, key), 0);
	return req;
}

/*
 * Requests submitted inside a receive batch on an idle connection go out
 * at its end, in one send, in order; one cancelled meanwhile is never
 * sent and completes once, with -ECANCELED, at the batch's end.
 */
static void test_batch_sends_once_and_skips_a_cancelled_one(void **state)
{
	struct lx_xprt_opts o = {
		.transport = LX_XPRT_TRANSPORT_TCP,
		.host = "fake",
		.port = 1,
		.framing = &lx_xprt_framing_rpc,
		.max_reqs = SLOTS,
	};
	struct lx_xprt_req *req[3];
	struct lx_xprt *x;
	unsigned int i;

	(void)state;
	memset(&R, 0, sizeof(R));
	assert_int_equal(lx_xprt__create_ops(&x, &o, &rec_ops), 0);
	lx_xprt_rx_batch_begin(x);
	for (i = 0; i < 3; i++)
		req[i] = rec_submit(x, i + 1);
	assert_int_equal(lx_xprt_req_cancel(req[1]), 0);
	assert_int_equal(R.calls, 0);
	lx_xprt_rx_batch_end(x);
	assert_int_equal(R.calls, 1);
	assert_int_equal(R.n, 2);
	assert_int_equal(R.keys[0], 1);
	assert_int_equal(R.keys[1], 3);
	assert_int_equal(atomic_load(&rec_dones[1]), 1);
	assert_int_equal(atomic_load(&rec_status[1]), -ECANCELED);
	assert_int_equal(atomic_load(&rec_dones[0]), 0);
	assert_int_equal(atomic_load(&rec_dones[2]), 0);
	/* the two sent ones are answered */
	for (i = 0; i < 3; i += 2) {
		struct lx_xprt_rqst *rq = lx_xprt_rx_lookup(x, i + 1);

		assert_non_null(rq);
		lx_xprt_rx_complete(x, rq, 0);
		assert_int_equal(atomic_load(&rec_dones[i]), 1);
		assert_int_equal(atomic_load(&rec_status[i]), 0);
	}
	for (i = 0; i < 3; i++)
		lx_xprt_req_put(req[i]);
	lx_xprt_destroy(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callback_chain_is_a_loop_not_a_recursion),
		cmocka_unit_test(
			test_batch_sends_once_and_skips_a_cancelled_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
