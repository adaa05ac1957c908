// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libxprt.so loaded late, with dlopen(), as a Python ctypes binding or a
 * fio external engine loads it.  The hottest thread-locals (xprt/blocks/pool.c,
 * xmit.c, tags_map.c) use the initial-exec TLS model, which a library
 * loaded after start-up can only use from glibc's surplus of static TLS:
 * the dlopen() must still succeed, and calls must work from the threads
 * that existed before it and from new ones.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libxprt/rpc.h"
#include "libxprt/version.h"
#include "helpers/fakesrv.h"

#ifndef LX_TEST_SO
#error "LX_TEST_SO: the path of the built libxprt.so"
#endif

struct lib {
	void *h;
	__typeof__(&lx_xprt_version) version;
	__typeof__(&lx_rpc_create) create;
	__typeof__(&lx_rpc_call_sync) call_sync;
	__typeof__(&lx_rpc_destroy) destroy;
};

static struct lib L;
static struct fakesrv *fs;

static enum fakesrv_action null_fn(void *arg, const uint8_t *msg, size_t len,
				   uint8_t *out, size_t *outlen,
				   unsigned int nth)
{
	(void)arg;
	(void)len;
	(void)nth;
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	return FAKESRV_REPLY;
}

static void *sym(const char *name)
{
	void *p = dlsym(L.h, name);

	if (!p)
		fail_msg("dlsym(%s): %s", name, dlerror());
	return p;
}

static int setup(void **state)
{
	(void)state;
	L.h = dlopen(LX_TEST_SO, RTLD_NOW | RTLD_LOCAL);
	if (!L.h) {
		print_error("dlopen(%s): %s\n", LX_TEST_SO, dlerror());
		return -1;
	}
	L.version = (__typeof__(L.version))sym("lx_xprt_version");
	L.create = (__typeof__(L.create))sym("lx_rpc_create");
	L.call_sync = (__typeof__(L.call_sync))sym("lx_rpc_call_sync");
	L.destroy = (__typeof__(L.destroy))sym("lx_rpc_destroy");
	return fakesrv_start(&fs, true, null_fn, NULL);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	dlclose(L.h);
	return 0;
}

static void *caller(void *arg)
{
	struct lx_rpc_clnt *cl = arg;
	struct lx_rpc_call_args a = {.proc = 0};
	intptr_t bad = 0;
	int i;

	for (i = 0; i < 200; i++)
		bad += L.call_sync(cl, &a, NULL) != 0;
	return (void *)bad;
}

/* NULL calls through the late-loaded library, from this thread (there
 * before the dlopen) and from two new ones at once */
static void test_calls_after_dlopen(void **state)
{
	struct lx_rpc_opts o = {.host = "127.0.0.1",
				.prog = 100099,
				.vers = 1,
				.timeo_ms = 10000};
	struct lx_rpc_clnt *cl = NULL;
	pthread_t t[2];
	void *bad;
	int i;

	(void)state;
	assert_non_null(L.version());
	assert_string_equal(L.version(), lx_xprt_version());
	o.port = fakesrv_port(fs);
	assert_int_equal(L.create(&cl, &o), 0);
	assert_null(caller(cl));
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, caller, cl), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_null(bad);
	}
	assert_int_equal(fakesrv_msgs(fs), 600);
	L.destroy(cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_after_dlopen),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
