// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the buffer pool (xprt/blocks/pool.c, include/libxprt/pool.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "libxprt/proto/pool.h"

/* Internal introspection (xprt/blocks/pool.c): buffers in per-thread caches. */
uint64_t lx_xprt__pool_cached(struct lx_xprt_pool *pool, unsigned int *nmags);

#if defined(LX_XPRT_TSAN) && LX_XPRT_TSAN
#define STRESS_ITERS 2000 /* TSan is ~10x slower; keep the binary fast */
#else
#define STRESS_ITERS 4000
#endif

static struct lx_xprt_pool *mkpool(size_t size, size_t max_bytes,
				   unsigned int slab_bufs,
				   unsigned int prealloc,
				   const struct lx_xprt_pool_reg *reg)
{
	struct lx_xprt_pool_opts o = {
		.buf_size = size,
		.max_bytes = max_bytes,
		.slab_bufs = slab_bufs,
		.prealloc = prealloc,
		.reg = reg,
	};
	struct lx_xprt_pool *p = NULL;

	assert_int_equal(lx_xprt_pool_create(&p, &o), 0);
	assert_non_null(p);
	return p;
}

static struct lx_xprt_pool_stats stats(const struct lx_xprt_pool *p)
{
	struct lx_xprt_pool_stats st;

	lx_xprt_pool_stats(p, &st);
	return st;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Poll until @p has seen @n blocked gets; fail after 10 s. */
static void wait_for_waits(const struct lx_xprt_pool *p, uint64_t n)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (stats(p).waits >= n)
			return;
		sleep_ms(1);
	}
	fail_msg("getters never blocked (waits < %llu)", (unsigned long long)n);
}

/* ------------------------------------------------------------ arguments */

static int reg_calls, unreg_calls;

static int count_reg(void *ctx, void *base, size_t len, void **handle)
{
	reg_calls++;
	*handle = base;
	return 0;
}

static void count_unreg(void *ctx, void *handle)
{
	unreg_calls++;
}

static void test_create_rejects_bad_args_without_allocating(void **state)
{
	struct lx_xprt_pool_reg reg = {count_reg, count_unreg, NULL};
	struct lx_xprt_pool *sentinel = (struct lx_xprt_pool *)&reg,
			    *p = sentinel;
	struct lx_xprt_pool_opts o = {.buf_size = 4096, .reg = &reg};

	reg_calls = 0;
	assert_int_equal(lx_xprt_pool_create(NULL, &o), -EINVAL);
	assert_int_equal(lx_xprt_pool_create(&p, NULL), -EINVAL);
	o.buf_size = 0; /* a shared pool: no preallocation, no slab size */
	o.prealloc = 1;
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	o.prealloc = 0;
	o.slab_bufs = 4;
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	o.slab_bufs = 0;
	o.max_bytes = 4095; /* less than the smallest class */
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	o.max_bytes = 0;
	o.buf_size = (64u << 20) + 1;
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	o.buf_size = 8192;
	o.max_bytes = 8191; /* smaller than one buffer */
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	o.max_bytes = 4 * 8192;
	o.prealloc = 5; /* more than the budget holds */
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EINVAL);
	assert_ptr_equal(p, sentinel);
	assert_int_equal(reg_calls, 0);

	/* The largest legal size works. */
	o.buf_size = 64u << 20;
	o.max_bytes = 0;
	o.prealloc = 0;
	o.reg = NULL;
	assert_int_equal(lx_xprt_pool_create(&p, &o), 0);
	assert_int_equal(lx_xprt_pool_buf_size(p), 64u << 20);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_calls_reject_null_and_unknown_flags(void **state)
{
	struct lx_xprt_pool *p = mkpool(512, 0, 0, 0, NULL);
	struct lx_xprt_buf *b = NULL;
	struct lx_xprt_pool_stats st;

	assert_int_equal(lx_xprt_pool_get(NULL, 0, &b), -EINVAL);
	assert_int_equal(lx_xprt_pool_get(p, 0, NULL), -EINVAL);
	assert_int_equal(lx_xprt_pool_get(p, 0x2, &b), -EINVAL);
	assert_null(b);
	assert_int_equal(lx_xprt_pool_put(p, NULL), -EINVAL);
	assert_int_equal(lx_xprt_pool_get(p, 0, &b), 0);
	assert_int_equal(lx_xprt_pool_put(NULL, b), -EINVAL);
	assert_int_equal(lx_xprt_pool_put(p, b), 0);
	lx_xprt_pool_stats(NULL, &st);
	lx_xprt_pool_stats(p, NULL);
	lx_xprt_pool_close(NULL);
	assert_int_equal(lx_xprt_pool_buf_size(NULL), 0);
	assert_null(lx_xprt_buf_reg_handle(NULL));
	assert_int_equal(lx_xprt_pool_destroy(NULL), 0);
	st = stats(p);
	assert_int_equal(st.gets, 1);
	assert_int_equal(st.puts, 1);
	assert_int_equal(st.bad_puts, 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

/* ------------------------------------------------------------ basics */

static void test_get_put_round_trip(void **state)
{
	struct lx_xprt_pool *p = mkpool(1000, 0, 0, 0, NULL);
	struct lx_xprt_pool_stats st;
	struct lx_xprt_buf *b, *b2;

	assert_int_equal(lx_xprt_pool_get(p, 0, &b), 0);
	assert_non_null(b->data);
	assert_int_equal(b->cap, 1000);
	assert_int_equal(b->len, 0);
	memset(b->data, 0xab, b->cap);
	b->len = 10;
	assert_null(lx_xprt_buf_reg_handle(b));
	st = stats(p);
	assert_int_equal(st.gets, 1);
	assert_int_equal(st.bufs_in_use, 1);
	assert_int_equal(lx_xprt_pool_put(p, b), 0);
	assert_int_equal(lx_xprt_pool_get(p, 0, &b2), 0);
	assert_int_equal(b2->len, 0); /* reset on every get */
	assert_int_equal(lx_xprt_pool_put(p, b2), 0);
	st = stats(p);
	assert_int_equal(st.gets, 2);
	assert_int_equal(st.puts, 2);
	assert_int_equal(st.bufs_in_use, 0);
	assert_int_equal(st.bad_puts, 0);
	assert_true(st.misses >= 1); /* the first get found an empty cache */
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void check_alignment(size_t size, uintptr_t align)
{
	struct lx_xprt_pool *p = mkpool(size, 0, 8, 0, NULL);
	struct lx_xprt_buf *b[40];
	int i, j;

	for (i = 0; i < 40; i++) {
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
		assert_int_equal((uintptr_t)b[i]->data % align, 0);
		assert_int_equal(b[i]->cap, size);
		/* descriptors live apart from the data they describe */
		assert_true((char *)b[i] + sizeof(*b[i]) <=
				    (char *)b[i]->data ||
			    (char *)b[i] >= (char *)b[i]->data + size);
		memset(b[i]->data, i, size);
	}
	for (i = 0; i < 40; i++)
		for (j = 0; j < 40; j++)
			if (i != j)
				assert_true((char *)b[i]->data + size <=
						    (char *)b[j]->data ||
					    (char *)b[j]->data + size <=
						    (char *)b[i]->data);
	for (i = 0; i < 40; i++) {
		assert_int_equal(((unsigned char *)b[i]->data)[size - 1], i);
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	}
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_memory_aligned_64_or_4096(void **state)
{
	check_alignment(1, 64);
	check_alignment(100, 64);
	check_alignment(12345, 64);
	check_alignment(4096, 4096);
	check_alignment(8192, 4096);
	check_alignment(3 * 4096, 4096);
}

static void test_budget_exhausted_nowait_gets_enobufs(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 4 * 4096, 0, 0, NULL);
	struct lx_xprt_buf *b[4], *x = NULL;
	struct lx_xprt_pool_stats st;
	int i;

	for (i = 0; i < 4; i++)
		assert_int_equal(
			lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &b[i]), 0);
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &x),
			 -ENOBUFS);
	assert_null(x);
	st = stats(p);
	assert_int_equal(st.nobufs, 1);
	assert_int_equal(st.bufs_total, 4);
	assert_int_equal(st.bufs_in_use, 4);
	assert_int_equal(st.waits, 0);
	assert_int_equal(lx_xprt_pool_put(p, b[2]), 0);
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &x), 0);
	assert_ptr_equal(x, b[2]);
	assert_int_equal(lx_xprt_pool_put(p, x), 0);
	for (i = 0; i < 4; i++)
		if (i != 2)
			assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	assert_int_equal(stats(p).bufs_total, 4); /* the budget held */
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

struct getter {
	struct lx_xprt_pool *pool;
	unsigned int flags;
	struct lx_xprt_buf *buf;
	int ret;
};

static void *getter_main(void *arg)
{
	struct getter *g = arg;

	g->ret = lx_xprt_pool_get(g->pool, g->flags, &g->buf);
	return NULL;
}

static void test_blocking_get_woken_by_put_from_other_thread(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 2 * 4096, 0, 0, NULL);
	struct getter g = {.pool = p, .ret = 1};
	struct lx_xprt_buf *a, *b;
	pthread_t t;

	assert_int_equal(lx_xprt_pool_get(p, 0, &a), 0);
	assert_int_equal(lx_xprt_pool_get(p, 0, &b), 0);
	assert_int_equal(pthread_create(&t, NULL, getter_main, &g), 0);
	wait_for_waits(p, 1);
	assert_int_equal(lx_xprt_pool_put(p, b), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(g.ret, 0);
	assert_ptr_equal(g.buf, b);
	assert_int_equal(stats(p).waits, 1);
	assert_int_equal(lx_xprt_pool_put(p, g.buf), 0);
	assert_int_equal(lx_xprt_pool_put(p, a), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_close_wakes_waiters_with_eshutdown(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 4096, 0, 0, NULL);
	struct getter g[2] = {{.pool = p, .ret = 1}, {.pool = p, .ret = 1}};
	struct lx_xprt_buf *a, *x = NULL;
	pthread_t t[2];
	int i;

	assert_int_equal(lx_xprt_pool_get(p, 0, &a), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(
			pthread_create(&t[i], NULL, getter_main, &g[i]), 0);
	wait_for_waits(p, 2);
	lx_xprt_pool_close(p);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(g[i].ret, -ESHUTDOWN);
	}
	assert_int_equal(lx_xprt_pool_get(p, 0, &x), -ESHUTDOWN);
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &x),
			 -ESHUTDOWN);
	assert_null(x);
	lx_xprt_pool_close(p);			     /* idempotent */
	assert_int_equal(lx_xprt_pool_put(p, a), 0); /* puts still work */
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_destroy_busy_while_held_then_succeeds(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 0, 0, 0, NULL);
	struct lx_xprt_buf *a, *x;

	assert_int_equal(lx_xprt_pool_get(p, 0, &a), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), -EBUSY);
	/* still usable for returns, closed for gets */
	assert_int_equal(lx_xprt_pool_get(p, 0, &x), -ESHUTDOWN);
	assert_int_equal(stats(p).bufs_in_use, 1);
	assert_int_equal(lx_xprt_pool_destroy(p), -EBUSY);
	assert_int_equal(lx_xprt_pool_put(p, a), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

/* ------------------------------------------------------------ registration */

#define MAX_SLABS 16

struct regctx {
	int reg_calls, unreg_calls;
	int fail_at; /* reg call number (1-based) that fails, 0: never */
	int fail_err;
	void *base[MAX_SLABS];
	size_t len[MAX_SLABS];
	void *unreg_handles[MAX_SLABS];
};

static int ctx_reg(void *vctx, void *base, size_t len, void **handle)
{
	struct regctx *c = vctx;
	int k = c->reg_calls++;

	if (c->fail_at && c->reg_calls == c->fail_at)
		return c->fail_err;
	assert_true(k < MAX_SLABS);
	c->base[k] = base;
	c->len[k] = len;
	*handle = &c->base[k]; /* a distinct handle per slab */
	return 0;
}

static void ctx_unreg(void *vctx, void *handle)
{
	struct regctx *c = vctx;

	assert_true(c->unreg_calls < MAX_SLABS);
	c->unreg_handles[c->unreg_calls++] = handle;
}

/* The slab (registration index) holding @b, checked against its handle. */
static int slab_of(const struct regctx *c, const struct lx_xprt_buf *b)
{
	int k;

	for (k = 0; k < c->reg_calls; k++) {
		if ((char *)b->data >= (char *)c->base[k] &&
		    (char *)b->data + b->cap <=
			    (char *)c->base[k] + c->len[k]) {
			assert_ptr_equal(lx_xprt_buf_reg_handle(b),
					 &c->base[k]);
			return k;
		}
	}
	fail_msg("buffer %p lies in no registered slab", b->data);
	return -1;
}

static void test_reg_hook_called_once_per_slab(void **state)
{
	struct regctx c = {0};
	struct lx_xprt_pool_reg reg = {ctx_reg, ctx_unreg, &c};
	struct lx_xprt_pool *p = mkpool(2048, 16 * 2048, 4, 0, &reg);
	struct lx_xprt_buf *b[10];
	int i, k, seen[MAX_SLABS] = {0};

	assert_int_equal(c.reg_calls, 0); /* no prealloc, no slab yet */
	for (i = 0; i < 10; i++) {
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
		seen[slab_of(&c, b[i])]++;
	}
	assert_int_equal(c.reg_calls, 3); /* ceil(10 / 4) */
	for (k = 0; k < 3; k++)
		assert_int_equal(c.len[k], 4 * 2048);
	assert_int_equal(seen[0] + seen[1] + seen[2], 10);
	assert_int_equal(stats(p).slabs, 3);
	for (i = 0; i < 10; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	/* Recycling never registers again. */
	for (i = 0; i < 1000; i++) {
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[0]), 0);
		slab_of(&c, b[0]);
		assert_int_equal(lx_xprt_pool_put(p, b[0]), 0);
	}
	assert_int_equal(c.reg_calls, 3);
	assert_int_equal(c.unreg_calls, 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_int_equal(c.unreg_calls, 3);
	for (k = 0; k < 3; k++) {
		int j, found = 0;

		for (j = 0; j < 3; j++)
			found += c.unreg_handles[j] == &c.base[k];
		assert_int_equal(found, 1);
	}
}

static void test_prealloc_registers_whole_slabs_up_front(void **state)
{
	struct regctx c = {0};
	struct lx_xprt_pool_reg reg = {ctx_reg, ctx_unreg, &c};
	struct lx_xprt_pool *p = mkpool(4096, 6 * 4096, 4, 5, &reg);
	struct lx_xprt_pool_stats st = stats(p);

	/* 5 rounds up to 2 slabs of 4, capped by the budget of 6. */
	assert_int_equal(c.reg_calls, 2);
	assert_int_equal(st.slabs, 2);
	assert_int_equal(st.bufs_total, 6);
	assert_int_equal(st.bufs_in_use, 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_int_equal(c.unreg_calls, 2);
}

static void test_reg_hook_failure_propagates(void **state)
{
	struct regctx c = {.fail_at = 2, .fail_err = -EIO};
	struct lx_xprt_pool_reg reg = {ctx_reg, ctx_unreg, &c};
	struct lx_xprt_pool_opts o = {.buf_size = 4096,
				      .max_bytes = 8 * 4096,
				      .slab_bufs = 2,
				      .prealloc = 4,
				      .reg = &reg};
	struct lx_xprt_pool *p = NULL;
	struct lx_xprt_buf *b[3], *x = NULL;
	int i;

	/* Preallocation: the second slab fails, the first is undone. */
	assert_int_equal(lx_xprt_pool_create(&p, &o), -EIO);
	assert_null(p);
	assert_int_equal(c.reg_calls, 2);
	assert_int_equal(c.unreg_calls, 1);

	/* Growth: the get that needed the slab fails with the hook's error. */
	memset(&c, 0, sizeof(c));
	c.fail_at = 2;
	c.fail_err = -EACCES;
	p = mkpool(4096, 8 * 4096, 2, 0, &reg);
	for (i = 0; i < 2; i++)
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
	assert_int_equal(lx_xprt_pool_get(p, 0, &x), -EACCES);
	assert_null(x);
	assert_int_equal(stats(p).slabs, 1);
	assert_int_equal(stats(p).bufs_total, 2);
	/* The hook recovers: growing works again. */
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &b[2]), 0);
	assert_int_equal(c.reg_calls, 3);
	assert_int_equal(stats(p).slabs, 2);
	for (i = 0; i < 3; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_int_equal(c.unreg_calls, 2); /* the failed slab is not unreg'd */
}

/* ------------------------------------------------------------ bad puts */

static void test_double_put_rejected_and_changes_nothing(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 4 * 4096, 0, 0, NULL);
	struct lx_xprt_buf *a, *b[4];
	struct lx_xprt_pool_stats st;
	int i, j;

	assert_int_equal(lx_xprt_pool_get(p, 0, &a), 0);
	assert_int_equal(lx_xprt_pool_put(p, a), 0);
	assert_int_equal(lx_xprt_pool_put(p, a), -EINVAL);
	st = stats(p);
	assert_int_equal(st.bad_puts, 1);
	assert_int_equal(st.puts, 1);
	assert_int_equal(st.bufs_in_use, 0);
	/* Had the second put been taken, a would now come out twice. */
	for (i = 0; i < 4; i++)
		assert_int_equal(
			lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &b[i]), 0);
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			assert_ptr_not_equal(b[i], b[j]);
	for (i = 0; i < 4; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_foreign_buffer_put_rejected(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 0, 0, 0, NULL);
	struct lx_xprt_pool *q = mkpool(4096, 0, 0, 0, NULL);
	struct lx_xprt_buf *a;

	assert_int_equal(lx_xprt_pool_get(p, 0, &a), 0);
	assert_int_equal(lx_xprt_pool_put(q, a), -EINVAL);
	assert_int_equal(stats(q).bad_puts, 1);
	assert_int_equal(stats(q).puts, 0);
	assert_int_equal(stats(p).bad_puts, 0);
	assert_int_equal(stats(p).bufs_in_use, 1); /* still held from p */
	assert_int_equal(lx_xprt_pool_put(p, a), 0);
	assert_int_equal(lx_xprt_pool_destroy(q), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

/* ------------------------------------------------------------ counters */

static void test_high_water_tracks_peak_in_use(void **state)
{
	struct lx_xprt_pool *p = mkpool(1024, 0, 0, 0, NULL);
	struct lx_xprt_buf *b[20];
	int i;

	for (i = 0; i < 5; i++)
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
	assert_int_equal(stats(p).high_water, 5);
	assert_int_equal(stats(p).bufs_in_use, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	/* beyond one fold batch */
	for (i = 0; i < 20; i++)
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	assert_int_equal(stats(p).high_water, 20);
	assert_int_equal(stats(p).bufs_in_use, 0);
	assert_int_equal(stats(p).gets, 28);
	assert_int_equal(stats(p).puts, 28);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

/* ------------------------------------------------------------ threads */

#define STRESS_THREADS 8
#define STRESS_BUFS    3

struct stress {
	struct lx_xprt_pool *pool;
	int id;
	int iters;
	int hold_two; /* take two buffers per round (request + reply) */
	int errors;
	struct bufmap *map;
};

/* Holder counts per buffer, shared by the stress threads. */
struct bufmap {
	pthread_mutex_t lock;
	int n;
	void *data[64];
	unsigned int holders[64];
};

/* Index of @data among the buffers seen so far (adds it if new). */
static int buf_index(struct stress *s, void *data)
{
	struct bufmap *m = s->map;
	int i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->n && m->data[i] != data; i++)
		;
	if (i == m->n) {
		assert_true(i < 64);
		m->data[m->n++] = data;
	}
	pthread_mutex_unlock(&m->lock);
	return i;
}

static int stress_use(struct stress *s, struct lx_xprt_buf *b,
		      unsigned int seed)
{
	unsigned int *w = b->data;
	unsigned int n = b->cap / sizeof(*w), i;
	int idx = buf_index(s, b->data);
	int bad = 0;

	if (__atomic_add_fetch(&s->map->holders[idx], 1, __ATOMIC_ACQ_REL) != 1)
		bad++; /* handed to two holders at once */
	for (i = 0; i < n; i++)
		w[i] = seed ^ i;
	if (seed % 7 == 0)
		sched_yield();
	for (i = 0; i < n; i++)
		if (w[i] != (seed ^ i))
			bad++;
	__atomic_sub_fetch(&s->map->holders[idx], 1, __ATOMIC_ACQ_REL);
	return bad;
}

static void *stress_main(void *arg)
{
	struct stress *s = arg;
	struct lx_xprt_buf *a, *b;
	int i;

	for (i = 0; i < s->iters; i++) {
		unsigned int seed = ((unsigned int)s->id << 24) ^ (unsigned)i;

		if (lx_xprt_pool_get(s->pool, 0, &a)) {
			s->errors++;
			break;
		}
		s->errors += stress_use(s, a, seed);
		if (s->hold_two && (i & 1)) {
			if (lx_xprt_pool_get(s->pool, 0, &b)) {
				s->errors++;
				break;
			}
			s->errors += stress_use(s, b, ~seed);
			if (lx_xprt_pool_put(s->pool, b))
				s->errors++;
		}
		if (lx_xprt_pool_put(s->pool, a))
			s->errors++;
	}
	return NULL;
}

static void run_stress(size_t size, int nbufs, int threads, int iters,
		       int hold_two)
{
	struct lx_xprt_pool *p = mkpool(size, (size_t)nbufs * size, 1, 0, NULL);
	struct bufmap map = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct stress s[STRESS_THREADS];
	pthread_t t[STRESS_THREADS];
	struct lx_xprt_pool_stats st;
	int i;

	assert_true(threads <= STRESS_THREADS);
	for (i = 0; i < threads; i++) {
		s[i] = (struct stress){.pool = p,
				       .id = i,
				       .iters = iters,
				       .hold_two = hold_two,
				       .map = &map};
		assert_int_equal(
			pthread_create(&t[i], NULL, stress_main, &s[i]), 0);
	}
	for (i = 0; i < threads; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(s[i].errors, 0);
	}
	st = stats(p);
	assert_int_equal(st.bufs_in_use, 0);
	assert_int_equal(st.gets, st.puts);
	assert_true(st.bufs_total <= (uint64_t)nbufs);
	assert_true(st.high_water <= (uint64_t)nbufs);
	assert_int_equal(st.bad_puts, 0);
	/* The threads exited: their caches went back to the depot. */
	assert_int_equal(lx_xprt__pool_cached(p, NULL), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_true(map.n <= nbufs);
}

static void test_stress_8_threads_3_bufs_no_shared_holder(void **state)
{
	run_stress(256, STRESS_BUFS, STRESS_THREADS, STRESS_ITERS, 0);
}

static void test_no_deadlock_more_threads_than_buffers(void **state)
{
	/*
	 * Two buffers per round for half the rounds: 6 threads, budget 12,
	 * so every thread can always complete a round but caches and
	 * waiters interleave constantly.
	 */
	run_stress(4096, 12, 6, STRESS_ITERS, 1);
	/* Fewer buffers than threads, blocking gets, one at a time. */
	run_stress(64, 2, 7, STRESS_ITERS, 0);
}

static void *burst_main(void *arg)
{
	struct stress *s = arg;
	struct lx_xprt_buf *b[4];
	int i, k;

	for (i = 0; i < s->iters; i++) {
		for (k = 0; k < 4; k++) {
			if (lx_xprt_pool_get(s->pool, 0, &b[k])) {
				s->errors++;
				return NULL;
			}
			s->errors += stress_use(s, b[k], (unsigned)(i * 4 + k));
		}
		for (k = 0; k < 4; k++)
			if (lx_xprt_pool_put(s->pool, b[k]))
				s->errors++;
	}
	return NULL;
}

/* Grabs everything it can without waiting (stealing), then returns it. */
static void *grabber_main(void *arg)
{
	struct stress *s = arg;
	struct lx_xprt_buf *b[48];
	int i, k, n;

	for (i = 0; i < s->iters / 8; i++) {
		for (n = 0; n < 48; n++)
			if (lx_xprt_pool_get(s->pool, LX_XPRT_POOL_NOWAIT,
					     &b[n]))
				break;
		for (k = 0; k < n; k++)
			s->errors += stress_use(s, b[k], ~(unsigned)k);
		for (k = 0; k < n; k++)
			if (lx_xprt_pool_put(s->pool, b[k]))
				s->errors++;
	}
	return NULL;
}

static void test_steal_races_owner_fast_path(void **state)
{
	/* 48 buffers, caches of 12: workers hit their caches, the grabber
	 * steals from them while they run. */
	struct lx_xprt_pool *p = mkpool(1024, 48 * 1024, 0, 0, NULL);
	struct bufmap map = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct stress s[3];
	pthread_t t[3];
	int i;

	for (i = 0; i < 3; i++) {
		s[i] = (struct stress){
			.pool = p, .id = i, .iters = STRESS_ITERS, .map = &map};
		assert_int_equal(pthread_create(&t[i], NULL,
						i ? burst_main : grabber_main,
						&s[i]),
				 0);
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(s[i].errors, 0);
	}
	assert_int_equal(stats(p).bufs_in_use, 0);
	assert_int_equal(stats(p).bad_puts, 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

struct hammer {
	struct stress s;
	int stop; /* atomic */
};

static void *hammer_owner(void *arg)
{
	struct hammer *h = arg;
	struct lx_xprt_buf *b;
	unsigned int i = 0;

	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		if (lx_xprt_pool_get(h->s.pool, 0, &b)) {
			h->s.errors++;
			break;
		}
		h->s.errors += stress_use(&h->s, b, i++);
		if (lx_xprt_pool_put(h->s.pool, b))
			h->s.errors++;
	}
	return NULL;
}

static void test_steal_handshake_vs_busy_owner(void **state)
{
	/*
	 * 8 buffers, caches of 2.  The owner thread spins on cache hits;
	 * the main thread keeps taking all 8 without waiting, which can only
	 * succeed by stealing from the owner's cache while it runs.  A thief
	 * that did not wait for the owner to leave its critical section
	 * would hand one buffer to both.
	 */
	struct bufmap map = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct hammer h = {.s = {.pool = mkpool(256, 8 * 256, 0, 0, NULL),
				 .id = 1,
				 .map = &map}};
	struct stress me = {.pool = h.s.pool, .map = &map};
	struct lx_xprt_buf *b[8];
	pthread_t t;
	int i, k, n, full = 0;

	struct timespec t0, t1;

	assert_int_equal(pthread_create(&t, NULL, hammer_owner, &h), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* At least STRESS_ITERS rounds, and more until a round took all 8
	 * (the steal happened): on a loaded machine the owner may hold a
	 * buffer through every one of the first rounds.  Bounded at 20 s. */
	for (i = 0;; i++) {
		if (i >= STRESS_ITERS) {
			if (full)
				break;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (t1.tv_sec - t0.tv_sec > 20)
				break;
		}
		for (n = 0; n < 8; n++)
			if (lx_xprt_pool_get(h.s.pool, LX_XPRT_POOL_NOWAIT,
					     &b[n]))
				break;
		full += n == 8;
		for (k = 0; k < n; k++)
			me.errors += stress_use(&me, b[k], ~(unsigned)k);
		for (k = 0; k < n; k++)
			assert_int_equal(lx_xprt_pool_put(h.s.pool, b[k]), 0);
	}
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(me.errors, 0);
	assert_int_equal(h.s.errors, 0);
	assert_true(full > 0); /* the steals did happen */
	assert_int_equal(stats(h.s.pool).bufs_in_use, 0);
	assert_int_equal(lx_xprt_pool_destroy(h.s.pool), 0);
}

/* A thread that caches buffers, then stays alive and idle. */
struct idler {
	struct lx_xprt_pool *pool;
	int n;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stage; /* 1: buffers cached, 2: may exit */
};

static void *idler_main(void *arg)
{
	struct idler *d = arg;
	struct lx_xprt_buf *b[32];
	int i;

	for (i = 0; i < d->n; i++)
		assert_int_equal(lx_xprt_pool_get(d->pool, 0, &b[i]), 0);
	for (i = 0; i < d->n; i++)
		assert_int_equal(lx_xprt_pool_put(d->pool, b[i]), 0);
	pthread_mutex_lock(&d->lock);
	d->stage = 1;
	pthread_cond_broadcast(&d->cond);
	while (d->stage != 2)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void idler_start(struct idler *d, pthread_t *t)
{
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->stage = 0;
	assert_int_equal(pthread_create(t, NULL, idler_main, d), 0);
	pthread_mutex_lock(&d->lock);
	while (d->stage != 1)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
}

static void idler_stop(struct idler *d, pthread_t t)
{
	pthread_mutex_lock(&d->lock);
	d->stage = 2;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
}

static void test_buffers_cached_by_idle_thread_are_stolen(void **state)
{
	/* 16 buffers: per-thread caches hold 4 (a quarter of the budget). */
	struct lx_xprt_pool *p = mkpool(4096, 16 * 4096, 0, 0, NULL);
	struct idler d = {.pool = p, .n = 4};
	struct lx_xprt_buf *b[16], *x;
	unsigned int nmags;
	pthread_t t;
	int i;

	idler_start(&d, &t);
	assert_int_equal(lx_xprt__pool_cached(p, &nmags), 4);
	assert_int_equal(nmags, 1);
	/* NOWAIT must find them rather than fail... */
	for (i = 0; i < 16; i++)
		assert_int_equal(
			lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &b[i]), 0);
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &x),
			 -ENOBUFS);
	for (i = 0; i < 16; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	idler_stop(&d, t);

	/* ...and so must a blocking get, which would otherwise hang. */
	idler_start(&d, &t);
	assert_int_equal(lx_xprt__pool_cached(p, NULL) >= 4, 1);
	for (i = 0; i < 16; i++)
		assert_int_equal(lx_xprt_pool_get(p, 0, &b[i]), 0);
	assert_int_equal(stats(p).bufs_total, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	idler_stop(&d, t);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_thread_exit_flushes_its_cache(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 16 * 4096, 0, 0, NULL);
	struct idler d = {.pool = p, .n = 4};
	struct lx_xprt_buf *b[16];
	unsigned int nmags;
	pthread_t t;
	int i;

	idler_start(&d, &t);
	assert_int_equal(lx_xprt__pool_cached(p, &nmags), 4);
	assert_int_equal(nmags, 1);
	idler_stop(&d, t); /* the thread exits */
	assert_int_equal(lx_xprt__pool_cached(p, &nmags), 0);
	assert_int_equal(nmags, 0);
	/* All back and usable, counters kept. */
	for (i = 0; i < 16; i++)
		assert_int_equal(
			lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &b[i]), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(lx_xprt_pool_put(p, b[i]), 0);
	assert_int_equal(stats(p).gets, 20);
	assert_int_equal(stats(p).puts, 20);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_destroy_with_live_thread_cache_then_thread_exits(void **state)
{
	struct lx_xprt_pool *p = mkpool(4096, 16 * 4096, 0, 0, NULL);
	struct idler d = {.pool = p, .n = 4};
	struct lx_xprt_pool *q[3];
	pthread_t t;
	int i;

	idler_start(&d, &t);
	/* Buffers cached by a live thread are not held: destroy succeeds. */
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	/* New pools (maybe at p's address) must not see the stale entry. */
	for (i = 0; i < 3; i++)
		q[i] = mkpool(4096, 16 * 4096, 0, 0, NULL);
	d.pool = q[1];
	idler_stop(&d, t); /* frees the orphan, must not touch p */
	idler_start(&d, &t);
	assert_int_equal(lx_xprt__pool_cached(q[1], NULL), 4);
	idler_stop(&d, t);
	assert_int_equal(lx_xprt__pool_cached(q[1], NULL), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(lx_xprt_pool_destroy(q[i]), 0);
}

static void test_one_thread_many_pools_evicts_cleanly(void **state)
{
	enum { NP = 40, ROUNDS = 5 };
	struct lx_xprt_pool *p[NP];
	struct lx_xprt_buf *a, *b;
	int i, r;

	for (i = 0; i < NP; i++)
		p[i] = mkpool(256 + i, 0, 0, 0, NULL);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < NP; i++) {
			assert_int_equal(lx_xprt_pool_get(p[i], 0, &a), 0);
			assert_int_equal(lx_xprt_pool_get(p[i], 0, &b), 0);
			assert_int_equal(a->cap, 256 + i);
			assert_int_equal(lx_xprt_pool_put(p[i], a), 0);
			assert_int_equal(lx_xprt_pool_put(p[i], b), 0);
		}
		/* Destroy some pools while this thread still caches them. */
		if (r == 2)
			for (i = 0; i < NP; i += 3) {
				assert_int_equal(lx_xprt_pool_destroy(p[i]), 0);
				p[i] = mkpool(256 + i, 0, 0, 0, NULL);
			}
	}
	for (i = 0; i < NP; i++) {
		struct lx_xprt_pool_stats st = stats(p[i]);

		assert_int_equal(st.gets, st.puts);
		assert_int_equal(st.bufs_in_use, 0);
		assert_int_equal(st.high_water, 2);
		assert_int_equal(lx_xprt_pool_destroy(p[i]), 0);
	}
}

/* Application threads get, a "receive" thread puts (cross-thread puts). */
struct xfer {
	struct lx_xprt_pool *pool;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct lx_xprt_buf *q[64];
	int head, tail, producers, errors;
};

static void *xfer_producer(void *arg)
{
	struct xfer *x = arg;
	struct lx_xprt_buf *b;
	int i;

	for (i = 0; i < STRESS_ITERS; i++) {
		if (lx_xprt_pool_get(x->pool, 0, &b)) {
			__atomic_add_fetch(&x->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		memset(b->data, i & 0xff, 64);
		b->len = 64;
		pthread_mutex_lock(&x->lock);
		x->q[x->tail++ % 64] = b;
		pthread_cond_broadcast(&x->cond);
		pthread_mutex_unlock(&x->lock);
	}
	pthread_mutex_lock(&x->lock);
	x->producers--;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

static void *xfer_receiver(void *arg)
{
	struct xfer *x = arg;
	struct lx_xprt_buf *b;

	pthread_mutex_lock(&x->lock);
	for (;;) {
		while (x->head == x->tail && x->producers)
			pthread_cond_wait(&x->cond, &x->lock);
		if (x->head == x->tail)
			break;
		b = x->q[x->head++ % 64];
		pthread_mutex_unlock(&x->lock);
		if (b->len != 64 || lx_xprt_pool_put(x->pool, b))
			__atomic_add_fetch(&x->errors, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&x->lock);
	}
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

static void test_cross_thread_puts_receive_thread_pattern(void **state)
{
	/* 32 buffers in flight at most (< 64 queue slots). */
	struct xfer x = {.pool = mkpool(8192, 32 * 8192, 0, 0, NULL),
			 .producers = 3};
	struct lx_xprt_pool_stats st;
	pthread_t t[4];
	int i;

	pthread_mutex_init(&x.lock, NULL);
	pthread_cond_init(&x.cond, NULL);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, xfer_producer, &x),
				 0);
	assert_int_equal(pthread_create(&t[3], NULL, xfer_receiver, &x), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(x.errors, 0);
	st = stats(x.pool);
	assert_int_equal(st.gets, 3 * STRESS_ITERS);
	assert_int_equal(st.puts, 3 * STRESS_ITERS);
	assert_int_equal(st.bufs_in_use, 0);
	assert_true(st.bufs_total <= 32);
	assert_int_equal(lx_xprt_pool_destroy(x.pool), 0);
	pthread_mutex_destroy(&x.lock);
	pthread_cond_destroy(&x.cond);
}

/* ------------------------------------------------------------ size classes */

static struct lx_xprt_pool *mkshared(size_t max_bytes,
				     const struct lx_xprt_pool_reg *reg)
{
	struct lx_xprt_pool_opts o = {.max_bytes = max_bytes, .reg = reg};
	struct lx_xprt_pool *p = NULL;

	assert_int_equal(lx_xprt_pool_create(&p, &o), 0);
	assert_true(lx_xprt_pool_has_classes(p));
	return p;
}

static void test_shared_classes_round_up_and_are_made_once(void **state)
{
	struct lx_xprt_pool *p = mkshared(4u << 20, NULL), *c8, *c8b, *c64, *cs;
	struct lx_xprt_buf *a, *b;
	struct lx_xprt_pool_stats st;

	/* one class per power of two, 4 KiB at least, made on first use */
	assert_int_equal(lx_xprt_pool_class(p, 5000, &c8), 0);
	assert_int_equal(lx_xprt_pool_buf_size(c8), 8192);
	assert_int_equal(lx_xprt_pool_class(p, 8192, &c8b), 0);
	assert_ptr_equal(c8, c8b);
	assert_int_equal(lx_xprt_pool_class(p, 65536, &c64), 0);
	assert_int_equal(lx_xprt_pool_buf_size(c64), 65536);
	assert_int_equal(lx_xprt_pool_class(p, 1, &cs), 0);
	assert_int_equal(lx_xprt_pool_buf_size(cs), 4096);
	assert_int_equal(lx_xprt_pool_class(p, 0, &cs), -EINVAL);
	assert_int_equal(lx_xprt_pool_class(p, (8u << 20) + 1, &cs), -EINVAL);
	/* the pool itself hands out nothing: its classes do */
	assert_int_equal(lx_xprt_pool_get(p, LX_XPRT_POOL_NOWAIT, &a), -EINVAL);
	assert_int_equal(lx_xprt_pool_get(c8, 0, &a), 0);
	assert_int_equal(lx_xprt_pool_get(c64, 0, &b), 0);
	assert_int_equal(a->cap, 8192);
	assert_int_equal(b->cap, 65536);
	/* the pool's counters are its classes' summed */
	lx_xprt_pool_stats(p, &st);
	assert_int_equal(st.classes, 3);
	assert_int_equal(st.gets, 2);
	assert_int_equal(st.bufs_in_use, 2);
	assert_int_equal(st.bytes_reserved, 4u << 20);
	assert_true(st.bytes_carved >= 8192 + 65536);
	assert_int_equal(st.regs, 0);
	/* a class goes with its pool; a pool with buffers out stays */
	assert_int_equal(lx_xprt_pool_destroy(c8), -EINVAL);
	assert_int_equal(lx_xprt_pool_destroy(p), -EBUSY);
	assert_int_equal(lx_xprt_pool_put(c8, a), 0);
	assert_int_equal(lx_xprt_pool_put(c64, b), 0);
	lx_xprt_pool_stats(p, &st);
	assert_int_equal(st.puts, 2);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_shared_budget_is_one_for_all_classes(void **state)
{
	/* 256 KiB: a class that carved it all leaves the others nothing */
	struct lx_xprt_pool *p = mkshared(256u << 10, NULL), *c64, *c4;
	struct lx_xprt_buf *b[8], *x;
	int i, n = 0;

	assert_int_equal(lx_xprt_pool_class(p, 65536, &c64), 0);
	assert_int_equal(lx_xprt_pool_class(p, 4096, &c4), 0);
	for (i = 0; i < 8; i++) {
		if (lx_xprt_pool_get(c64, LX_XPRT_POOL_NOWAIT, &b[i]))
			break;
		n++;
	}
	assert_true(n >= 1 && n <= 4);
	if (stats(p).bytes_carved + 4096 > (256u << 10))
		assert_int_equal(lx_xprt_pool_get(c4, LX_XPRT_POOL_NOWAIT, &x),
				 -ENOBUFS);
	for (i = 0; i < n; i++)
		assert_int_equal(lx_xprt_pool_put(c64, b[i]), 0);
	/* what a class carved stays its own: it is served again */
	assert_int_equal(lx_xprt_pool_get(c64, LX_XPRT_POOL_NOWAIT, &b[0]), 0);
	assert_int_equal(lx_xprt_pool_put(c64, b[0]), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

static void test_shared_registers_once_whatever_the_classes(void **state)
{
	struct regctx c = {0};
	struct lx_xprt_pool_reg reg = {ctx_reg, ctx_unreg, &c};
	struct lx_xprt_pool_reg other = {count_reg, count_unreg, NULL};
	struct lx_xprt_pool *p = mkshared(1u << 20, NULL), *c8, *c16, *c64;
	struct lx_xprt_buf *a, *b, *d;

	/* a TCP client used a class first: nothing registered yet */
	assert_int_equal(lx_xprt_pool_class(p, 8192, &c8), 0);
	assert_int_equal(lx_xprt_pool_get(c8, 0, &a), 0);
	assert_null(lx_xprt_buf_reg_handle(a));
	assert_int_equal(c.reg_calls, 0);
	/* the first RDMA client attaches the hook: the whole budget is
	 * registered at once, and the slab carved before is inside it */
	assert_int_equal(lx_xprt_pool_attach_reg(c8, &reg), 0);
	assert_int_equal(c.reg_calls, 1);
	assert_int_equal(c.len[0], 1u << 20);
	assert_ptr_equal(lx_xprt_buf_reg_handle(a), &c.base[0]);
	assert_true((char *)a->data >= (char *)c.base[0] &&
		    (char *)a->data + a->cap <= (char *)c.base[0] + c.len[0]);
	/* more clients, more classes: no more registrations */
	assert_int_equal(lx_xprt_pool_attach_reg(p, &reg), 0);
	assert_int_equal(lx_xprt_pool_class(p, 16384, &c16), 0);
	assert_int_equal(lx_xprt_pool_class(p, 65536, &c64), 0);
	assert_int_equal(lx_xprt_pool_attach_reg(c64, &reg), 0);
	assert_int_equal(lx_xprt_pool_get(c16, 0, &b), 0);
	assert_int_equal(lx_xprt_pool_get(c64, 0, &d), 0);
	assert_ptr_equal(lx_xprt_buf_reg_handle(b), &c.base[0]);
	assert_ptr_equal(lx_xprt_buf_reg_handle(d), &c.base[0]);
	assert_int_equal(c.reg_calls, 1);
	assert_int_equal(stats(p).regs, 1);
	assert_int_equal(stats(p).classes, 3);
	/* another hook is refused */
	assert_int_equal(lx_xprt_pool_attach_reg(p, &other), -EINVAL);
	assert_int_equal(lx_xprt_pool_put(c8, a), 0);
	assert_int_equal(lx_xprt_pool_put(c16, b), 0);
	assert_int_equal(lx_xprt_pool_put(c64, d), 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_int_equal(c.unreg_calls, 1);
	assert_ptr_equal(c.unreg_handles[0], &c.base[0]);
}

static void test_shared_created_with_hook_registers_at_first_slab(void **state)
{
	struct regctx c = {0};
	struct lx_xprt_pool_reg reg = {ctx_reg, ctx_unreg, &c};
	struct lx_xprt_pool *p = mkshared(1u << 20, &reg), *c4;
	struct lx_xprt_buf *a;

	assert_int_equal(c.reg_calls, 0);
	assert_int_equal(lx_xprt_pool_class(p, 4096, &c4), 0);
	assert_int_equal(lx_xprt_pool_get(c4, 0, &a), 0);
	assert_int_equal(c.reg_calls, 1);
	assert_ptr_equal(lx_xprt_buf_reg_handle(a), &c.base[0]);
	assert_int_equal(lx_xprt_pool_put(c4, a), 0);
	lx_xprt_pool_close(p);
	assert_int_equal(lx_xprt_pool_get(c4, 0, &a), -ESHUTDOWN);
	assert_int_equal(lx_xprt_pool_class(p, 8192, &c4), -ESHUTDOWN);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
	assert_int_equal(c.unreg_calls, 1);
}

struct shared_arg {
	struct lx_xprt_pool *cls;
};

static void *shared_worker(void *v)
{
	struct shared_arg *a = v;
	struct lx_xprt_buf *b;
	int i;

	for (i = 0; i < STRESS_ITERS; i++) {
		assert_int_equal(lx_xprt_pool_get(a->cls, 0, &b), 0);
		memset(b->data, i, 64);
		assert_int_equal(lx_xprt_pool_put(a->cls, b), 0);
	}
	return NULL;
}

static void test_shared_classes_from_many_threads(void **state)
{
	struct lx_xprt_pool *p = mkshared(8u << 20, NULL);
	struct shared_arg a[4];
	pthread_t t[4];
	struct lx_xprt_pool_stats st;
	int i;

	for (i = 0; i < 4; i++)
		assert_int_equal(lx_xprt_pool_class(p, (size_t)4096 << (i % 2),
						    &a[i].cls),
				 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(
			pthread_create(&t[i], NULL, shared_worker, &a[i]), 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	lx_xprt_pool_stats(p, &st);
	assert_int_equal(st.classes, 2);
	assert_int_equal(st.gets, 4 * STRESS_ITERS);
	assert_int_equal(st.puts, 4 * STRESS_ITERS);
	assert_int_equal(st.bufs_in_use, 0);
	assert_int_equal(lx_xprt_pool_destroy(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_create_rejects_bad_args_without_allocating),
		cmocka_unit_test(test_calls_reject_null_and_unknown_flags),
		cmocka_unit_test(test_get_put_round_trip),
		cmocka_unit_test(test_memory_aligned_64_or_4096),
		cmocka_unit_test(test_budget_exhausted_nowait_gets_enobufs),
		cmocka_unit_test(
			test_blocking_get_woken_by_put_from_other_thread),
		cmocka_unit_test(test_close_wakes_waiters_with_eshutdown),
		cmocka_unit_test(test_destroy_busy_while_held_then_succeeds),
		cmocka_unit_test(test_reg_hook_called_once_per_slab),
		cmocka_unit_test(test_prealloc_registers_whole_slabs_up_front),
		cmocka_unit_test(test_reg_hook_failure_propagates),
		cmocka_unit_test(test_double_put_rejected_and_changes_nothing),
		cmocka_unit_test(test_foreign_buffer_put_rejected),
		cmocka_unit_test(test_high_water_tracks_peak_in_use),
		cmocka_unit_test(test_stress_8_threads_3_bufs_no_shared_holder),
		cmocka_unit_test(test_no_deadlock_more_threads_than_buffers),
		cmocka_unit_test(test_steal_races_owner_fast_path),
		cmocka_unit_test(test_steal_handshake_vs_busy_owner),
		cmocka_unit_test(test_buffers_cached_by_idle_thread_are_stolen),
		cmocka_unit_test(test_thread_exit_flushes_its_cache),
		cmocka_unit_test(
			test_destroy_with_live_thread_cache_then_thread_exits),
		cmocka_unit_test(test_one_thread_many_pools_evicts_cleanly),
		cmocka_unit_test(test_cross_thread_puts_receive_thread_pattern),
		cmocka_unit_test(
			test_shared_classes_round_up_and_are_made_once),
		cmocka_unit_test(test_shared_budget_is_one_for_all_classes),
		cmocka_unit_test(
			test_shared_registers_once_whatever_the_classes),
		cmocka_unit_test(
			test_shared_created_with_hook_registers_at_first_slab),
		cmocka_unit_test(test_shared_classes_from_many_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
