// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 9P hot path allocates nothing: after a warm-up (pool slabs, thread
 * caches), a loop of Twalk, Tlopen, Tread (sync and async), Twrite,
 * Tgetattr and Tclunk against the in-process server must not call
 * malloc, calloc or realloc in any thread.
 *
 * The count comes from replacing those three in this binary (glibc
 * allows it; the replacements forward to glibc's own).  Sanitizer builds
 * bring their own allocator, so there the test is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/p9.h>

#include "test_p9_fake.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define P9_COUNT_MALLOC 0
#else
#define P9_COUNT_MALLOC 1
#endif

static atomic_bool counting;
static atomic_long allocs;

#if P9_COUNT_MALLOC
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
	return __libc_realloc(p, n);
}
#endif

static struct p9f srv;

static void io_cb(struct lx_call *call, int status, void *arg)
{
	atomic_int *left = arg;

	if (!status && call->count)
		atomic_fetch_sub(left, 1);
}

/* One round of the hot-path messages; return 0 or the first error. */
static int round_trip(struct lx_p9_clnt *c, uint8_t *buf)
{
	static const char *const names[] = {"file"};
	struct lx_p9_attr a;
	atomic_int left = 4;
	struct lx_call calls[4];
	uint32_t fid, n, i;
	unsigned int nq;
	int r;

	r = lx_p9_fid_alloc(c, &fid);
	if (!r)
		r = lx_p9_walk(c, lx_p9_root_fid(c), fid, 1, names, &nq, NULL);
	if (!r)
		r = lx_p9_lopen(c, fid, O_RDWR, NULL, NULL);
	if (!r)
		r = lx_p9_read(c, fid, 0, 4096, buf, &n);
	if (!r)
		r = lx_p9_write(c, fid, 0, 100, buf, &n);
	if (!r)
		r = lx_p9_getattr(c, fid, LX_P9_GETATTR_BASIC, &a);
	for (i = 0; !r && i < 4; i++) {
		calls[i] = (struct lx_call){.done = io_cb, .arg = &left};
		r = lx_p9_read_async(c, &calls[i], fid, i * 4096, 4096,
				     buf + i * 4096);
	}
	while (!r && atomic_load(&left))
		usleep(100);
	if (!r)
		r = lx_p9_clunk(c, fid);
	return r;
}

static void test_hot_path_does_not_allocate(void **state)
{
	static uint8_t buf[4 * 4096];
	struct lx_p9_opts o = {.host = "127.0.0.1", .aname = "/fake"};
	struct lx_p9_clnt *c;
	struct lx_p9_dir *d;
	unsigned int i;
	long n;

	(void)state;
	if (!P9_COUNT_MALLOC)
		skip();
	o.port = fakesrv_port(srv.srv);
	assert_int_equal(lx_p9_create(&c, &o), 0);
	for (i = 0; i < 50; i++) /* warm-up: slabs, thread caches */
		assert_int_equal(round_trip(c, buf), 0);
	atomic_store(&allocs, 0);
	atomic_store(&counting, true);
	for (i = 0; i < 200; i++)
		assert_int_equal(round_trip(c, buf), 0);
	atomic_store(&counting, false);
	n = atomic_load(&allocs);
	if (n)
		fail_msg("%ld allocations in 200 rounds", n);
	/* the counter does count: opening a directory allocates its buffer */
	atomic_store(&counting, true);
	assert_int_equal(lx_p9_opendir(c, "dir", &d), 0);
	atomic_store(&counting, false);
	assert_true(atomic_load(&allocs) > 0);
	lx_p9_closedir(d);
	lx_p9_destroy(c);
}

static int group_setup(void **state)
{
	(void)state;
	return p9f_start(&srv);
}

static int group_teardown(void **state)
{
	(void)state;
	p9f_stop(&srv);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_path_does_not_allocate),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
