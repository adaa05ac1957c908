// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The hot procedures (GETATTR, LOOKUP, ACCESS, READ, WRITE, COMMIT, sync
 * and async) must not allocate per call.  This binary replaces malloc and
 * friends with counting wrappers around glibc's own allocator, warms the
 * client up (pool slabs, per-thread caches, the server's buffers), then
 * counts allocations across a thousand calls of each kind: on every
 * thread of the process, the receive threads that decode included.
 *
 * The client's own pool (two buffers per slot, 2 MiB) must be one slab,
 * carved at the first call: the tag allocator spreads calls over all 64
 * slots in its own time, and a pool grown slab by slab would allocate
 * whenever a call first reached a slot of the next slab (it did, in about
 * one run in ten, after the warm-up).
 *
 * Sanitizer builds bring their own allocator: there the test only checks
 * that the calls work, and says it skipped the count.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>
#include <libxprt/pool.h>
#include <libxprt/rpc.h>
#include <libxprt/xprt.h>

#include "helpers/fakesrv.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNTING 0
#else
#define COUNTING 1
static atomic_ulong nallocs;

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t a, size_t n);
void __libc_free(void *p);

void *malloc(size_t n)
{
	atomic_fetch_add_explicit(&nallocs, 1, memory_order_relaxed);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	atomic_fetch_add_explicit(&nallocs, 1, memory_order_relaxed);
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add_explicit(&nallocs, 1, memory_order_relaxed);
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t a, size_t n)
{
	atomic_fetch_add_explicit(&nallocs, 1, memory_order_relaxed);
	return __libc_memalign(a, n);
}

int posix_memalign(void **pp, size_t a, size_t n)
{
	void *p;

	atomic_fetch_add_explicit(&nallocs, 1, memory_order_relaxed);
	p = __libc_memalign(a, n);
	if (!p)
		return ENOMEM;
	*pp = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}
#endif

static struct fakesrv *fs;
static const uint8_t FH[24] = "0123456789abcdef01234567";

static void put(uint8_t *out, size_t *n, uint32_t v)
{
	fs_put_be32(out + *n, v);
	*n += 4;
}

static void attr(uint8_t *out, size_t *n)
{
	put(out, n, 1);
	for (int i = 0; i < 21; i++)
		put(out, n, i == 0 ? 1 : 0);
}

/* Just enough of MOUNT and NFS for the hot procedures. */
static enum fakesrv_action srv(void *arg, const uint8_t *msg, size_t len,
			       uint8_t *out, size_t *outlen, unsigned int nth)
{
	uint32_t xid = fs_get_be32(msg), prog = fs_get_be32(msg + 12);
	uint32_t proc = fs_get_be32(msg + 20), cnt = 0;
	size_t a = 24, n = 0;

	(void)arg;
	(void)len;
	(void)nth;
	a += 8 + ((fs_get_be32(msg + a + 4) + 3) & ~3u);
	a += 8 + ((fs_get_be32(msg + a + 4) + 3) & ~3u);
	put(out, &n, xid);
	put(out, &n, 1);
	put(out, &n, 0);
	put(out, &n, 0);
	put(out, &n, 0);
	put(out, &n, 0);
	if (prog == LX_MOUNT3_PROGRAM) {
		put(out, &n, 0);
		put(out, &n, sizeof(FH));
		memcpy(out + n, FH, sizeof(FH));
		n += sizeof(FH);
		put(out, &n, 0);
		goto out;
	}
	put(out, &n, 0); /* LX_NFS3_OK */
	switch (proc) {
	case 1: /* GETATTR: fattr3 */
		for (int i = 0; i < 21; i++)
			put(out, &n, i == 0 ? 1 : 0);
		break;
	case 3: /* LOOKUP */
		put(out, &n, sizeof(FH));
		memcpy(out + n, FH, sizeof(FH));
		n += sizeof(FH);
		attr(out, &n);
		put(out, &n, 0);
		break;
	case 4: /* ACCESS */
		attr(out, &n);
		put(out, &n, 0x3f);
		break;
	case 6: /* READ: 8 KiB of 0x5a */
		cnt = fs_get_be32(msg + a + 4 + sizeof(FH) + 8);
		attr(out, &n);
		put(out, &n, cnt);
		put(out, &n, 0);
		put(out, &n, cnt);
		memset(out + n, 0x5a, cnt);
		n += (cnt + 3) & ~3u;
		break;
	case 7: /* WRITE */
		cnt = fs_get_be32(msg + a + 4 + sizeof(FH) + 8);
		put(out, &n, 0);
		put(out, &n, 0);
		put(out, &n, cnt);
		put(out, &n, 0);
		put(out, &n, 1);
		put(out, &n, 2);
		break;
	case 19: /* FSINFO */
		put(out, &n, 0);
		for (int i = 0; i < 7; i++)
			put(out, &n, 65536);
		for (int i = 0; i < 5; i++)
			put(out, &n, 0);
		break;
	case 21: /* COMMIT */
		put(out, &n, 0);
		put(out, &n, 0);
		put(out, &n, 1);
		put(out, &n, 2);
		break;
	default:
		break;
	}
out:
	*outlen = n;
	return FAKESRV_REPLY;
}

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int left, bad;
};

static void done_cb(struct lx_call *call, int status, void *arg)
{
	struct waiter *w = arg;

	(void)call;
	pthread_mutex_lock(&w->lock);
	w->bad += status != 0;
	if (!--w->left)
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

#define ROUNDS 1000
#define DEPTH  8

/* one round of every hot procedure, sync then async; @buf holds three
 * 8 KiB areas so that calls in flight together never share memory */
static void hot_round(struct lx_nfs3_clnt *c, struct lx_nfs3_fh *fh,
		      uint8_t *buf)
{
	static struct lx_call calls[DEPTH];
	static union {
		struct lx_nfs3_getattr_res ga;
		struct lx_nfs3_lookup_res lk;
		struct lx_nfs3_access_res ac;
		struct lx_nfs3_read_res rd;
		struct lx_nfs3_write_res wr;
		struct lx_nfs3_commit_res cm;
	} res[DEPTH];
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			   DEPTH, 0};
	struct iovec iov = {buf, 8192}, wiov = {buf + 16384, 8192};
	int i;

	assert_int_equal(lx_nfs3_getattr(c, fh, &res[0].ga), 0);
	assert_int_equal(lx_nfs3_lookup(c, fh, "name", &res[0].lk), 0);
	assert_int_equal(lx_nfs3_access(c, fh, 0x3f, &res[0].ac), 0);
	assert_int_equal(lx_nfs3_read(c, fh, 0, 8192, &iov, 1, &res[0].rd), 0);
	assert_int_equal(lx_nfs3_write(c, fh, 0, &wiov, 1, 0, &res[0].wr), 0);
	assert_int_equal(lx_nfs3_commit(c, fh, 0, 0, &res[0].cm), 0);
	for (i = 0; i < DEPTH; i++) {
		calls[i].done = done_cb;
		calls[i].arg = &w;
		calls[i].owner = (uint64_t)i;
	}
	assert_int_equal(lx_nfs3_getattr_async(c, &calls[0], fh, &res[0].ga),
			 0);
	assert_int_equal(
		lx_nfs3_lookup_async(c, &calls[1], fh, "n", &res[1].lk), 0);
	assert_int_equal(lx_nfs3_access_async(c, &calls[2], fh, 1, &res[2].ac),
			 0);
	assert_int_equal(lx_nfs3_read_buf_async(c, &calls[3], fh, 0, 4096, buf,
						&res[3].rd),
			 0);
	assert_int_equal(lx_nfs3_read_async(c, &calls[4], fh, 0, 4096, &iov, 1,
					    &res[4].rd),
			 0);
	assert_int_equal(lx_nfs3_write_async(c, &calls[5], fh, 0, &wiov, 1, 0,
					     &res[5].wr),
			 0);
	assert_int_equal(
		lx_nfs3_commit_async(c, &calls[6], fh, 0, 0, &res[6].cm), 0);
	assert_int_equal(lx_nfs3_null_async(c, &calls[7]), 0);
	pthread_mutex_lock(&w.lock);
	while (w.left)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	assert_int_equal(w.bad, 0);
}

static void test_hot_path_allocates_nothing(void **state)
{
	struct lx_nfs3_opts o = {0};
	struct lx_nfs3_clnt *c;
	struct lx_nfs3_fh fh = {.len = sizeof(FH)};
	uint8_t *buf = calloc(1, 3 * 8192);
	unsigned long before = 0, after = 0;
	int i;

	(void)state;
	memcpy(fh.data, FH, sizeof(FH));
	o.host = "127.0.0.1";
	o.export_path = "/x";
	o.nfs_port = o.mount_port = fakesrv_port(fs);
	o.set_ids = true;
#if COUNTING
	before = atomic_load(&nallocs);
#endif
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
#if COUNTING
	/* the wrappers are live: mounting does allocate */
	assert_true(atomic_load(&nallocs) > before);
#endif
	for (i = 0; i < 50; i++) /* warm up: slabs, caches */
		hot_round(c, &fh, buf);
#if COUNTING
	before = atomic_load(&nallocs);
#endif
	for (i = 0; i < ROUNDS; i++)
		hot_round(c, &fh, buf);
#if COUNTING
	after = atomic_load(&nallocs);
	printf("allocations in %d rounds of 14 calls: %lu\n", ROUNDS,
	       after - before);
#else
	printf("sanitizer build: allocation count skipped\n");
#endif
	assert_int_equal(after - before, 0);
	assert_int_equal(buf[100], 0x5a);
	{
		struct lx_xprt *x = lx_rpc_xprt(lx_nfs3_rpc(c), 0);
		struct lx_xprt_pool_stats st;

		lx_xprt_pool_stats(lx_xprt_pool(x), &st);
		assert_int_equal(st.slabs, 1);
		assert_int_equal(st.bufs_total, 2 * lx_xprt_max_reqs(x));
	}
	lx_nfs3_destroy(c);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	return fakesrv_start(&fs, true, srv, NULL);
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
		cmocka_unit_test(test_hot_path_allocates_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
