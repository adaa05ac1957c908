// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An NFSv3 client across fork(), against nfs-ganesha (tests/servers), in
 * both modes, as fio's process-per-job jobs meet it: the child's
 * inherited client refuses with -ECHILD and its destroy leaves the
 * parent's connection alone; a client the child makes works; the parent
 * goes on without a disconnect.  Server addresses come from servers.env
 * (XPRT_*).  tests/unit/test_fork.c checks the same against a fake server
 * that counts the connections.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>
#include <libxprt/rpc.h>

#include "helpers/quietfork.h"
#include "helpers/testenv.h"

#if defined(__SANITIZE_ADDRESS__)
/* the per-thread buffer caches of the parent's threads: unreachable in
 * the child (docs/api.md, "Across fork()") */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tc_attach\n";
}
#endif

static int mount(struct lx_nfs3_clnt **c, enum lx_xprt_mode mode)
{
	struct lx_nfs3_opts o = {0};
	char msg[256] = "";
	int err;

	o.host = test_env("XPRT_NFS_HOST");
	o.export_path = test_env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(test_env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(test_env("XPRT_MNT_PORT"));
	o.timeo_ms = 5000;
	o.mode = mode;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	err = lx_nfs3_create(c, &o);
	if (err)
		fprintf(stderr, "mount: %d %s\n", err, msg);
	return err;
}

/* The child's half: 0 when everything held, else the failed check. */
static int child(struct lx_nfs3_clnt *c, enum lx_xprt_mode mode)
{
	struct lx_nfs3_getattr_res res;
	struct lx_nfs3_fh root = *lx_nfs3_root(c);
	struct lx_nfs3_clnt *own = NULL;

	if (lx_nfs3_getattr(c, &root, &res) != -ECHILD)
		return 1;
	if (lx_nfs3_null(c) != -ECHILD)
		return 2;
	lx_nfs3_destroy(c);
	if (mount(&own, QUIETFORK_CHILD_THREADS ? mode : LX_XPRT_MODE_CALLER))
		return 3;
	if (lx_nfs3_getattr(own, &root, &res) || res.status)
		return 4;
	lx_nfs3_destroy(own);
	return 0;
}

static void across_fork(enum lx_xprt_mode mode)
{
	struct lx_nfs3_getattr_res res;
	struct lx_nfs3_clnt *c = NULL;
	struct lx_rpc_stats st;
	unsigned int i;
	pid_t pid;

	assert_int_equal(mount(&c, mode), 0);
	assert_int_equal(lx_nfs3_getattr(c, lx_nfs3_root(c), &res), 0);

	pid = quiet_fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_exit(child(c, mode));
	assert_int_equal(child_wait(pid), 0);

	for (i = 0; i < 3; i++)
		assert_int_equal(lx_nfs3_getattr(c, lx_nfs3_root(c), &res), 0);
	lx_rpc_stats(lx_nfs3_rpc(c), &st);
	assert_int_equal(st.xprt.disconnects, 0);
	assert_int_equal(st.xprt.connects, st.nconnect);
	lx_nfs3_destroy(c);
}

static void test_fork_threaded(void **state)
{
	(void)state;
	across_fork(LX_XPRT_MODE_THREADED);
}

static void test_fork_caller(void **state)
{
	(void)state;
	across_fork(LX_XPRT_MODE_CALLER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_threaded),
		cmocka_unit_test(test_fork_caller),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
