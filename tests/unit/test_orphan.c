// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Orphans (xprt.c): a call cancelled after it was sent keeps its credit
 * and slot until the server's reply, its own deadline, or the end of the
 * connection; its done() still runs at once.  Against fakesrv, with a
 * server that holds its replies back (answers late) or never answers, the
 * credits held are read from the transport itself and must come back
 * exactly, at the event that ends the orphans.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/call.h>
#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"
#include "xprt/core/xprt_int.h" /* the credits held (lx_xprt_cong_held()) */

#define TPROG 0x20000079u
#define NCALL 8u

/* the server: holds every call until @open, or (@never) drops them */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static atomic_bool never; /* read by the server's thread */
static atomic_uint got;

static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	(void)arg;
	(void)len;
	(void)nth;
	atomic_fetch_add(&got, 1);
	if (never)
		return FAKESRV_NOREPLY;
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	return FAKESRV_REPLY;
}

static void gate(bool open)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = open;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

struct obj {
	struct lx_call call;
	atomic_int dones, status;
};

static void obj_done(struct lx_call *call, int status, void *arg)
{
	struct obj *o = arg;

	(void)call;
	atomic_store(&o->status, status);
	atomic_fetch_add(&o->dones, 1);
}

struct env {
	struct fakesrv *srv;
	struct lx_rpc_clnt *cl;
	struct lx_xprt *x;
	struct obj o[NCALL];
};

static void env_up(struct env *e, unsigned int timeo_ms)
{
	struct lx_rpc_opts o = {0};

	memset(e, 0, sizeof(*e));
	atomic_store(&got, 0);
	assert_int_equal(fakesrv_start(&e->srv, true, srv_fn, NULL), 0);
	o.host = "127.0.0.1";
	o.port = fakesrv_port(e->srv);
	o.prog = TPROG;
	o.vers = 1;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	o.max_reqs = NCALL;
	o.timeo_ms = timeo_ms;
	o.hard = true; /* no soft timeout: the orphans' deadlines decide */
	assert_int_equal(lx_rpc_create(&e->cl, &o), 0);
	e->x = lx_rpc_xprt(e->cl, 0);
}

static void env_down(struct env *e)
{
	gate(true);
	lx_rpc_destroy(e->cl);
	fakesrv_stop(e->srv);
	gate(false);
	never = false;
}

static uint32_t held(struct env *e)
{
	return lx_xprt_cong_held(&e->x->cong);
}

/* Start NCALL calls, wait until the server has them all, cancel them. */
static void start_and_cancel(struct env *e)
{
	struct lx_rpc_call_args a = {.proc = 1};
	unsigned int i, k;

	for (i = 0; i < NCALL; i++) {
		e->o[i].call.done = obj_done;
		e->o[i].call.arg = &e->o[i];
		assert_int_equal(lx_rpc_call_async(e->cl, &e->o[i].call, &a),
				 0);
	}
	/* the server reads the first one and waits in the gate; the rest
	 * are sent (credits held) */
	for (k = 0; k < 5000; k++) {
		struct lx_xprt_stats st;

		lx_xprt_stats(e->x, &st);
		if (st.sends == NCALL && atomic_load(&got) >= 1)
			break;
		usleep(1000);
	}
	assert_int_equal(held(e), NCALL);
	for (i = 0; i < NCALL; i++)
		assert_int_equal(lx_call_cancel(&e->o[i].call), 0);
	/* done(-ECANCELED) at once for every one: the caller owns it */
	for (i = 0; i < NCALL; i++) {
		for (k = 0; k < 5000 && !atomic_load(&e->o[i].dones); k++)
			usleep(1000);
		assert_int_equal(atomic_load(&e->o[i].dones), 1);
		assert_int_equal(atomic_load(&e->o[i].status), -ECANCELED);
	}
}

static void stats(struct env *e, struct lx_xprt_stats *st)
{
	lx_xprt_stats(e->x, st);
}

/* Late replies: consumed as the orphans', the credits back with them. */
static void test_orphan_late_reply(void **state)
{
	struct lx_rpc_call_args a = {.proc = 1};
	struct lx_xprt_stats st;
	struct env *e = calloc(1, sizeof(*e));
	struct obj extra = {0};
	unsigned int i, k;

	(void)state;
	env_up(e, 60000);
	start_and_cancel(e);
	stats(e, &st);
	assert_int_equal(st.orphans, NCALL);
	/* credits and slots stay while the server works on the calls */
	assert_int_equal(held(e), NCALL);
	extra.call.done = obj_done;
	extra.call.arg = &extra;
	extra.call.flags = LX_CALL_NOWAIT;
	assert_int_equal(lx_rpc_call_async(e->cl, &extra.call, &a), -EBUSY);
	gate(true);
	for (k = 0; k < 5000; k++) {
		stats(e, &st);
		if (st.orphan_replies == NCALL && !held(e))
			break;
		usleep(1000);
	}
	assert_int_equal(st.orphan_replies, NCALL);
	assert_int_equal(held(e), 0);
	assert_int_equal(st.bad_keys, 0);
	assert_int_equal(st.dup_replies, 0);
	assert_int_equal(st.orphans_expired, 0);
	/* no second done(): the late replies touched no call */
	for (i = 0; i < NCALL; i++)
		assert_int_equal(atomic_load(&e->o[i].dones), 1);
	/* the slots are free again */
	extra.call.flags = 0;
	assert_int_equal(lx_rpc_call_async(e->cl, &extra.call, &a), 0);
	for (k = 0; k < 5000 && !atomic_load(&extra.dones); k++)
		usleep(1000);
	assert_int_equal(atomic_load(&extra.status), 0);
	env_down(e);
	free(e);
}

/* No reply ever: the credits come back at the calls' deadlines. */
static void test_orphan_deadline(void **state)
{
	struct lx_xprt_stats st;
	char msg[256];
	struct env *e = calloc(1, sizeof(*e));
	unsigned int k;

	(void)state;
	never = true;
	env_up(e, 300);
	start_and_cancel(e);
	stats(e, &st);
	assert_int_equal(st.orphans, NCALL);
	for (k = 0; k < 10000; k++) {
		stats(e, &st);
		if (st.orphans_expired == NCALL && !held(e))
			break;
		usleep(1000);
	}
	assert_int_equal(st.orphans_expired, NCALL);
	assert_int_equal(held(e), 0);
	assert_int_equal(st.orphan_replies, 0);
	/* and a failure message names them */
	assert_non_null(
		strstr(lx_xprt_stats_explain(&st, msg, sizeof(msg)),
		       "8 cancelled or timed-out calls never answered"));
	env_down(e);
	free(e);
}

/*
 * No reply, and the connection drops: credits reset, orphans ended.  With
 * nothing left to send the transport stays disconnected (no connection
 * opened for nobody); the next call brings a connection back.
 */
static void test_orphan_reconnect(void **state)
{
	struct lx_rpc_call_args a = {.proc = 1};
	struct lx_xprt_stats st;
	struct env *e = calloc(1, sizeof(*e));
	unsigned int k;

	(void)state;
	never = true;
	env_up(e, 60000);
	start_and_cancel(e);
	assert_int_equal(held(e), NCALL);
	lx_xprt_disconnect(e->x);
	for (k = 0; k < 10000; k++) {
		stats(e, &st);
		if (st.disconnects >= 1 && !held(e) &&
		    !lx_xprt_tags_in_use(e->x->tags))
			break;
		usleep(1000);
	}
	assert_int_equal(st.disconnects, 1);
	assert_int_equal(held(e), 0);
	/* every slot free: no orphan outlived its connection */
	assert_int_equal(lx_xprt_tags_in_use(e->x->tags), 0);
	assert_int_equal(st.orphans_expired, 0);
	/* three times the reconnect delay (0.1 s): still no connection */
	usleep(300000);
	stats(e, &st);
	assert_int_equal(st.connects, 1);
	assert_int_equal(lx_xprt_state(e->x), LX_XPRT_DISCONNECTED);
	/* a call wants one */
	never = false;
	gate(true);
	assert_int_equal(lx_rpc_call_sync(e->cl, &a, NULL), 0);
	stats(e, &st);
	assert_int_equal(st.connects, 2);
	env_down(e);
	free(e);
}

/*
 * Soft calls to a server that went away fail within their bound; then no
 * call wants a connection, and the transport stops trying: a server that
 * comes back is not connected to until the next call.
 */
static void test_no_reconnect_after_soft_calls_failed(void **state)
{
	struct lx_rpc_call_args a = {.proc = 1, .timeo_ms = 200};
	struct lx_rpc_opts o = {0};
	struct lx_xprt_stats st;
	struct env *e = calloc(1, sizeof(*e));
	unsigned int conns;

	(void)state;
	gate(true);
	assert_int_equal(fakesrv_start(&e->srv, true, srv_fn, NULL), 0);
	o.host = "127.0.0.1";
	o.port = fakesrv_port(e->srv);
	o.prog = TPROG;
	o.vers = 1;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	o.timeo_ms = 200;
	o.retrans = 1;
	assert_int_equal(lx_rpc_create(&e->cl, &o), 0);
	e->x = lx_rpc_xprt(e->cl, 0);
	assert_int_equal(lx_rpc_call_sync(e->cl, &a, NULL), 0);
	/* the server goes away: refused connects */
	fakesrv_pause(e->srv);
	fakesrv_drop_conns(e->srv);
	assert_int_not_equal(lx_rpc_call_sync(e->cl, &a, NULL), 0);
	/* the call failed: the listener back, and past the next two
	 * attempts' times (0.1 s doubling), not a connection */
	assert_int_equal(fakesrv_resume(e->srv), 0);
	conns = fakesrv_conns(e->srv);
	usleep(2500000);
	assert_int_equal(fakesrv_conns(e->srv), conns);
	assert_int_equal(lx_xprt_state(e->x), LX_XPRT_DISCONNECTED);
	/* a call wants one */
	assert_int_equal(lx_rpc_call_sync(e->cl, &a, NULL), 0);
	stats(e, &st);
	assert_int_equal(st.connects, 2);
	lx_rpc_destroy(e->cl);
	fakesrv_stop(e->srv);
	gate(false);
	free(e);
}

/* Calls that never went out (not connected): released at once. */
static void test_unsent_cancel_releases(void **state)
{
	struct lx_rpc_call_args a = {.proc = 1};
	struct lx_xprt_stats st;
	struct env *e = calloc(1, sizeof(*e));
	unsigned int i, k;

	(void)state;
	env_up(e, 60000);
	fakesrv_pause(e->srv);
	lx_xprt_disconnect(e->x);
	for (i = 0; i < NCALL; i++) {
		e->o[i].call.done = obj_done;
		e->o[i].call.arg = &e->o[i];
		assert_int_equal(lx_rpc_call_async(e->cl, &e->o[i].call, &a),
				 0);
	}
	for (i = 0; i < NCALL; i++)
		assert_int_equal(lx_call_cancel(&e->o[i].call), 0);
	for (i = 0; i < NCALL; i++) {
		for (k = 0; k < 5000 && !atomic_load(&e->o[i].dones); k++)
			usleep(1000);
		assert_int_equal(atomic_load(&e->o[i].status), -ECANCELED);
	}
	for (k = 0; k < 5000 && lx_xprt_tags_in_use(e->x->tags); k++)
		usleep(1000);
	assert_int_equal(lx_xprt_tags_in_use(e->x->tags), 0);
	stats(e, &st);
	assert_int_equal(st.orphans, 0);
	assert_int_equal(held(e), 0);
	assert_int_equal(fakesrv_resume(e->srv), 0);
	env_down(e);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orphan_late_reply),
		cmocka_unit_test(test_orphan_deadline),
		cmocka_unit_test(test_orphan_reconnect),
		cmocka_unit_test(test_no_reconnect_after_soft_calls_failed),
		cmocka_unit_test(test_unsent_cancel_releases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
