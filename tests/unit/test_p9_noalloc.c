// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 9P hot path allocates nothing: after a warm-up (pool slabs, thread
 * caches), a loop of Twalk, Tlopen, Tread (sync and async), Twrite,
 * Tgetattr and Tclunk against the in-process server must not allocate
 * memory in any thread.
 *
 * The pool may still carve a slab in those rounds (its getter finds the
 * depot empty while buffers sit in the receive thread's cache, and the
 * budget allows: two aligned allocations, which the pool's statistics
 * count); anything beyond that fails.
 *
 * The count comes from replacing malloc, calloc, realloc, posix_memalign
 * and aligned_alloc in this binary (glibc allows it; the replacements
 * forward to glibc's own).  Sanitizer builds bring their own allocator,
 * which calls a hook of ours instead (__sanitizer_install_malloc_and_
 * free_hooks(); GCC 12's TSan calls it for malloc, calloc and realloc
 * only, ASan for the aligned ones too).
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
#include <libxprt/xprt.h>

#include "test_p9_fake.h"

static atomic_bool counting;
static atomic_long allocs;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* the sanitizers' runtime has it; GCC ships no header declaring it */
int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *p, size_t n),
	void (*free_hook)(const volatile void *p));

static void count_hook(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
}

static void free_hook(const volatile void *p)
{
	(void)p;
}

static void count_allocations(void)
{
	/* 0: not installed (both hooks are needed) */
	assert_int_not_equal(__sanitizer_install_malloc_and_free_hooks(
				     count_hook, free_hook),
			     0);
}
#else
static void count_allocations(void)
{
	/* malloc, calloc, realloc, posix_memalign and aligned_alloc
	 * below count */
}

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

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

int posix_memalign(void **p, size_t align, size_t n)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
	*p = __libc_memalign(align, n);
	return *p ? 0 : ENOMEM;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		atomic_fetch_add(&allocs, 1);
	return __libc_memalign(align, n);
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
	struct lx_xprt_pool_stats st0, st1;
	struct lx_xprt_pool *pool;
	unsigned long long slabs;
	unsigned int i;
	long n;

	(void)state;
	count_allocations();
	o.port = fakesrv_port(srv.srv);
	assert_int_equal(lx_p9_create(&c, &o), 0);
	pool = lx_xprt_pool(lx_p9_xprt(c));
	assert_non_null(pool);
	for (i = 0; i < 50; i++) /* warm-up: slabs, thread caches */
		assert_int_equal(round_trip(c, buf), 0);
	usleep(10000); /* the last round's receive side done */
	lx_xprt_pool_stats(pool, &st0);
	atomic_store(&allocs, 0);
	atomic_store(&counting, true);
	for (i = 0; i < 200; i++)
		assert_int_equal(round_trip(c, buf), 0);
	usleep(10000);
	atomic_store(&counting, false);
	lx_xprt_pool_stats(pool, &st1);
	n = atomic_load(&allocs);
	slabs = st1.slabs - st0.slabs;
	print_message("%ld allocations in 200 rounds, %llu of them for %llu "
		      "new slabs of the pool (%llu buffers now)\n",
		      n, 2 * slabs, slabs, (unsigned long long)st1.bufs_total);
	/* one per round would be 200; a slab whose allocation began just
	 * before the count may make it lower than 2 per slab */
	if (n > (long)(2 * slabs))
		fail_msg("%ld allocations in 200 rounds besides the pool's "
			 "slabs",
			 n - (long)(2 * slabs));
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
