// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The TCP transport's receiver role under a mix of synchronous and
 * asynchronous calls on one client: the pattern of a tool that makes a
 * few blocking calls, then a batch of async ones, and waits for them
 * (nfs3-bench's set-up, test_nfs3_alloc's rounds).
 *
 * A synchronous caller reads its own reply, taking the socket out of the
 * receive thread's epoll set; when it lets go, the socket must be armed
 * again for whoever still waits.  A reply left in the socket with nobody
 * reading it shows up as a call that only completes when its timer fires:
 * with a 300 ms timeout and no retransmission, as -ETIMEDOUT here, against
 * a server that answers at once.  The race is timing-dependent, so the
 * test runs thousands of rounds; before the fix in role_release() it failed
 * a few times per 100,000 synchronous calls on a loaded machine.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"

#define TPROG	    0x20000078u
#define TVERS	    1u
#define SYNC_CALLS  6
#define ASYNC_CALLS 8
#define RUN_NS	    (2ull * 1000000000ull)

static struct fakesrv *fs;

/* every call: MSG_ACCEPTED, SUCCESS, no results */
static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	(void)arg;
	(void)len;
	(void)nth;
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	return FAKESRV_REPLY;
}

struct batch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int left, failed;
};

static void async_done(struct lx_call *call, int status, void *arg)
{
	struct batch *b = arg;

	(void)call;
	pthread_mutex_lock(&b->lock);
	b->failed += status != 0;
	if (!--b->left)
		pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_sync_then_async_rounds_never_strand_a_reply(void **state)
{
	struct lx_rpc_opts o = {0};
	struct batch b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0, 0};
	static struct lx_call calls[ASYNC_CALLS];
	struct lx_rpc_clnt *cl;
	uint64_t end, rounds = 0;
	int i, timeouts = 0, other = 0;

	(void)state;
	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.prog = TPROG;
	o.vers = TVERS;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	o.timeo_ms = 300;
	o.retrans = LX_RPC_NO_RETRANS;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	end = now_ns() + RUN_NS;
	while (now_ns() < end && timeouts + other == 0) {
		for (i = 0; i < SYNC_CALLS; i++) {
			struct lx_rpc_call_args a = {.proc = 0};
			int err = lx_rpc_call_sync(cl, &a, NULL);

			timeouts += err == -ETIMEDOUT;
			other += err && err != -ETIMEDOUT;
		}
		b.left = ASYNC_CALLS;
		for (i = 0; i < ASYNC_CALLS; i++) {
			struct lx_rpc_call_args a = {.proc = 0};

			calls[i] = (struct lx_call){.done = async_done,
						    .arg = &b,
						    .owner = (uint64_t)i + 1};
			assert_int_equal(lx_rpc_call_async(cl, &calls[i], &a),
					 0);
		}
		pthread_mutex_lock(&b.lock);
		while (b.left)
			pthread_cond_wait(&b.cond, &b.lock);
		pthread_mutex_unlock(&b.lock);
		rounds++;
	}
	lx_rpc_destroy(cl);
	print_message("%llu rounds of %d sync + %d async calls\n",
		      (unsigned long long)rounds, SYNC_CALLS, ASYNC_CALLS);
	/* a stranded reply completes only by its 300 ms timer */
	assert_int_equal(timeouts, 0);
	assert_int_equal(other, 0);
	assert_int_equal(b.failed, 0);
	assert_true(rounds > 0);
}

static int setup(void **state)
{
	(void)state;
	return fakesrv_start(&fs, true, srv_fn, NULL);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_sync_then_async_rounds_never_strand_a_reply, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
