// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A client across fork(), in both modes (docs/api.md, "Across fork()").
 *
 * The parent makes a client and completes a call, then forks.  The child
 * finds the inherited client refusing every call with -ECHILD at once
 * (its threads, its socket, its loop descriptor are the parent's),
 * destroys it, makes a client of its own to the same server and completes
 * a call on it; it exits 0 only if all of that held.  The parent then
 * completes more calls on its client, which saw no disconnect, and the
 * server saw exactly two connections: the parent's and the child's new
 * one.  A child that shut the inherited socket down (shutdown(2) acts on
 * the parent's connection) or wrote to it would show here as a
 * disconnect, a reconnection or a garbled call.  The 9P client is checked
 * the same way, and its destroy in the child must send nothing (a Tclunk
 * of the parent's root fid would end the parent's session).
 *
 * The fake server runs as threads of this process: the child's connection
 * is accepted by the parent's listener thread, which counts it.  Each
 * test has a server of its own, stopped (its threads joined) at its end,
 * and forks once the other threads sleep (helpers/quietfork.h: the
 * sanitizers' allocators, unlike glibc's malloc, are not fork-safe).
 * Under TSan the child's own client is a caller-driven one (TSan cannot
 * start threads after such a fork); the inherited one is checked the same
 * in every build.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/call.h>
#include <libxprt/pool.h>
#include <libxprt/rdma.h>
#include <libxprt/rpc.h>
#include <libxprt/xprt.h>

#include "helpers/fakesrv.h"
#include "helpers/quietfork.h"
#include "test_p9_fake.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * In the child, what the parent's other threads held is unreachable: the
 * fake server's connection buffers, and the per-thread buffer caches a
 * library thread made when it first put a buffer back (the pool's
 * documented residue across fork(): docs/api.md, "Across fork()").
 * Nothing else may leak there.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:conn_main\nleak:tc_attach\n";
}
#endif

#define PROG 100003u
#define VERS 3u

static struct fakesrv *srv;
static struct p9f p9srv;

/* Every call gets an accepted, successful, empty reply. */
static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	(void)arg;
	(void)nth;
	if (len < 4)
		return FAKESRV_CLOSE;
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	return FAKESRV_REPLY;
}

static int setup(void **state)
{
	(void)state;
	return fakesrv_start(&srv, true, srv_fn, NULL);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(srv);
	srv = NULL;
	return 0;
}

static void rpc_opts(struct lx_rpc_opts *o, enum lx_xprt_mode mode,
		     struct lx_xprt_pool *pool)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->port = fakesrv_port(srv);
	o->prog = PROG;
	o->vers = VERS;
	o->timeo_ms = 2000;
	o->retrans = 1;
	o->mode = mode;
	o->pool = pool;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void never_done(struct lx_call *call, int status, void *arg)
{
	(void)call;
	(void)status;
	*(int *)arg = 1;
}

/* The child's half: returns 0 when everything held, else the number of
 * the first check that failed (the parent prints it). */
static int child(struct lx_rpc_clnt *cl, enum lx_xprt_mode mode,
		 struct lx_xprt_pool *pool)
{
	struct lx_rpc_call_args a = {.proc = 0};
	struct lx_call call = {.done = never_done};
	struct lx_xprt_pool_opts po = {.max_bytes = 4u << 20};
	struct lx_xprt_pool *mine = NULL;
	struct lx_rpc_clnt *own = NULL;
	struct lx_rpc_opts o;
	uint64_t t0 = now_ms();
	int ran = 0;

	call.arg = &ran;
	/* the inherited client refuses, at once */
	if (lx_rpc_null(cl) != -ECHILD)
		return 1;
	if (lx_rpc_call_async(cl, &call, &a) != -ECHILD || ran)
		return 2;
	if (lx_call_cancel(&call) != -EALREADY) /* never started */
		return 3;
	if (mode == LX_XPRT_MODE_CALLER &&
	    (lx_rpc_loop_fd(cl) != -ECHILD || lx_rpc_loop_events(cl) != 0 ||
	     lx_rpc_loop_service(cl, 0) != -ECHILD ||
	     lx_rpc_loop_run(cl, NULL, 1, 0) != -ECHILD))
		return 4;
	/* not the parent's connection either */
	lx_xprt_disconnect(lx_rpc_xprt(cl, 0));
	if (!strstr(lx_strerror(-ECHILD), "fork()"))
		return 5;
	lx_rpc_destroy(cl);
	if (pool && lx_xprt_pool_destroy(pool))
		return 6;
	if (now_ms() - t0 > 1000) /* nothing waited for the network */
		return 7;

	/* a client of its own works (on a pool of its own, if shared) */
	if (pool && lx_xprt_pool_create(&mine, &po))
		return 8;
	rpc_opts(&o, QUIETFORK_CHILD_THREADS ? mode : LX_XPRT_MODE_CALLER,
		 mine);
	if (lx_rpc_create(&own, &o))
		return 9;
	if (lx_rpc_null(own) || lx_rpc_null(own))
		return 10;
	lx_rpc_destroy(own);
	if (lx_xprt_pool_destroy(mine))
		return 11;
	return 0;
}

static void across_fork(enum lx_xprt_mode mode, bool shared_pool)
{
	struct lx_xprt_pool_opts po = {.max_bytes = 4u << 20};
	struct lx_xprt_pool *pool = NULL;
	struct lx_rpc_clnt *cl = NULL;
	struct lx_rpc_stats st;
	struct lx_rpc_opts o;
	unsigned int i;
	pid_t pid;

	if (shared_pool)
		assert_int_equal(lx_xprt_pool_create(&pool, &po), 0);
	rpc_opts(&o, mode, pool);
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	assert_int_equal(lx_rpc_null(cl), 0);

	pid = quiet_fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_exit(child(cl, mode, pool));
	assert_int_equal(child_wait(pid), 0);

	/* the parent's connection is untouched */
	for (i = 0; i < 3; i++)
		assert_int_equal(lx_rpc_null(cl), 0);
	lx_rpc_stats(cl, &st);
	assert_int_equal(st.xprt.disconnects, 0);
	assert_int_equal(st.xprt.connects, 1);
	assert_int_equal(st.xprt.replies, 4);
	assert_int_equal(st.xprt.garbage + st.xprt.bad_keys, 0);
	/* the parent's connection and the child's own, nothing more */
	assert_int_equal(fakesrv_conns(srv), 2);
	lx_rpc_destroy(cl);
	assert_int_equal(lx_xprt_pool_destroy(pool), 0);
}

/* ------------------------------------------------------------- 9P */

static int p9_setup(void **state)
{
	(void)state;
	return p9f_start(&p9srv);
}

static int p9_teardown(void **state)
{
	(void)state;
	p9f_stop(&p9srv);
	memset(&p9srv, 0, sizeof(p9srv)); /* (p9f_start() frees nodes) */
	return 0;
}

static void p9_opts(struct lx_p9_opts *o, enum lx_xprt_mode mode)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->port = fakesrv_port(p9srv.srv);
	o->aname = "/fake";
	o->uname = "tester";
	o->timeout_ms = 5000;
	o->mode = mode;
}

static int p9_child(struct lx_p9_clnt *c, enum lx_xprt_mode mode)
{
	struct lx_p9_clnt *own = NULL;
	struct lx_p9_statfs st;
	struct lx_p9_attr attr;
	struct lx_p9_opts o;

	if (lx_p9_statfs(c, lx_p9_root_fid(c), &st) != -ECHILD)
		return 1;
	if (lx_p9_stat_path(c, "/file", ~0ull, &attr) != -ECHILD)
		return 2;
	if (mode == LX_XPRT_MODE_CALLER &&
	    (lx_p9_loop_fd(c) != -ECHILD ||
	     lx_p9_loop_service(c, 0) != -ECHILD))
		return 3;
	lx_p9_destroy(c); /* no Tclunk: the parent counts them */
	p9_opts(&o, QUIETFORK_CHILD_THREADS ? mode : LX_XPRT_MODE_CALLER);
	if (lx_p9_create(&own, &o))
		return 4;
	if (lx_p9_statfs(own, lx_p9_root_fid(own), &st))
		return 5;
	lx_p9_destroy(own); /* one Tclunk */
	return 0;
}

static void p9_across_fork(enum lx_xprt_mode mode)
{
	struct lx_p9_clnt *c = NULL;
	struct lx_xprt_stats xs;
	struct lx_p9_statfs st;
	struct lx_p9_opts o;
	pid_t pid;

	p9_opts(&o, mode);
	assert_int_equal(lx_p9_create(&c, &o), 0);
	assert_int_equal(lx_p9_statfs(c, lx_p9_root_fid(c), &st), 0);

	pid = quiet_fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_exit(p9_child(c, mode));
	assert_int_equal(child_wait(pid), 0);

	/* the child's own client clunked its root; the inherited one sent
	 * nothing, and the parent's session goes on */
	assert_int_equal(p9f_count(&p9srv, LX_P9_TCLUNK), 1);
	assert_int_equal(p9f_count(&p9srv, LX_P9_TSTATFS), 2);
	assert_int_equal(lx_p9_statfs(c, lx_p9_root_fid(c), &st), 0);
	lx_xprt_stats(lx_p9_xprt(c), &xs);
	assert_int_equal(xs.disconnects, 0);
	assert_int_equal(xs.connects, 1);
	assert_int_equal(fakesrv_conns(p9srv.srv), 2);
	lx_p9_destroy(c);
	assert_int_equal(p9f_count(&p9srv, LX_P9_TCLUNK), 2);
}

static void test_fork_p9_threaded(void **state)
{
	(void)state;
	p9_across_fork(LX_XPRT_MODE_THREADED);
}

static void test_fork_p9_caller(void **state)
{
	(void)state;
	p9_across_fork(LX_XPRT_MODE_CALLER);
}

/* ------------------------------------------------------------ RDMA */

/*
 * The RDMA device registry is the parent's once built: in a child nothing
 * may register on it or deregister what the parent registered.  Without
 * devices (a host with none) the parent's registration fails -ENODEV,
 * and the child must still say -ECHILD rather than that.
 */
static void test_fork_rdma_registry(void **state)
{
	static char buf[8192];
	struct lx_xprt_rdma_mem *m = NULL, *m2 = NULL;
	int r;
	pid_t pid;

	(void)state;
	r = lx_xprt_rdma_mem_register(buf, sizeof(buf), &m);
	assert_true(r == 0 || r == -ENODEV);
	pid = quiet_fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (lx_xprt_rdma_mem_register(buf + 4096, 4096, &m2) != -ECHILD)
			child_exit(1);
		if (m && lx_xprt_rdma_mem_unregister(m) != -ECHILD)
			child_exit(2);
		child_exit(0);
	}
	assert_int_equal(child_wait(pid), 0);
	/* the parent's registration is intact */
	assert_int_equal(lx_xprt_rdma_mem_unregister(m), 0);
}

static void test_fork_threaded(void **state)
{
	(void)state;
	across_fork(LX_XPRT_MODE_THREADED, false);
}

static void test_fork_caller(void **state)
{
	(void)state;
	across_fork(LX_XPRT_MODE_CALLER, false);
}

/* a pool shared between clients, inherited: the child destroys it too
 * (its memory only) and makes its own */
static void test_fork_shared_pool(void **state)
{
	(void)state;
	across_fork(LX_XPRT_MODE_THREADED, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_threaded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_caller, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_shared_pool, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fork_p9_threaded, p9_setup,
						p9_teardown),
		cmocka_unit_test_setup_teardown(test_fork_p9_caller, p9_setup,
						p9_teardown),
		cmocka_unit_test(test_fork_rdma_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
