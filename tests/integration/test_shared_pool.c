// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One buffer pool shared by an NFSv3 client and a 9P session in one
 * process, against the real servers of tests/servers:
 * ganesha, which serves both protocols over one export (its 9P listener,
 * XPRT_GANESHA_9P_*; diod when ganesha's 9P is not configured).
 *
 * A file written on disk is read through both clients at once, from two
 * threads; the pool's counters must see both clients' traffic, each in
 * its own size class (NFSv3 buf_size 16 KiB, 9P msize 64 KiB), and
 * nothing left in use afterwards.  A 9P session whose server lowers the
 * msize it proposed (1 MiB asked, 65536 answered) moves to the smaller
 * class of the same pool.  Over TCP nothing is registered (regs 0); the
 * RDMA guest test tests/rdma/guest-tests/74-shared-pool-rdma.sh checks
 * the one registration.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#include <libxprt/p9.h>
#include <libxprt/proto/pool.h>

#include "helpers/testenv.h"

#define FILE_LEN (1u << 20)
#define IO	 4096u
#define N	 300u

struct world {
	struct lx_xprt_pool *pool;
	struct lx_nfs3_clnt *nfs;
	struct lx_p9_clnt *p9;
	char p9_dir[4096];
	const char *p9_host, *p9_aname;
	uint16_t p9_port;
	char name[64];
	uint8_t *want;
};

static struct world w;

static void write_file(const char *dir)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, w.name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(w.want, 1, FILE_LEN, f), FILE_LEN);
	assert_int_equal(fclose(f), 0);
}

static struct lx_p9_clnt *p9_session(uint32_t msize)
{
	struct lx_p9_opts o = {0};
	struct lx_p9_clnt *c = NULL;
	char msg[256] = "";
	int err;

	o.host = w.p9_host;
	o.port = w.p9_port;
	o.aname = w.p9_aname;
	o.msize = msize;
	o.pool = w.pool;
	o.errbuf = msg;
	o.errbuf_len = sizeof(msg);
	err = lx_p9_create(&c, &o);
	if (err)
		fail_msg("9P session on the shared pool: %d %s", err, msg);
	return c;
}

static int setup(void **state)
{
	struct lx_xprt_pool_opts po = {.max_bytes = 16u << 20};
	struct lx_nfs3_opts o = {0};
	char msg[256] = "";
	unsigned int i;
	int err;

	w.want = malloc(FILE_LEN);
	assert_non_null(w.want);
	for (i = 0; i < FILE_LEN; i++)
		w.want[i] = (uint8_t)(i * 7 + i / 4096);
	snprintf(w.name, sizeof(w.name), "shared-pool-%d", (int)getpid());
	if (getenv("XPRT_GANESHA_9P_PORT")) {
		w.p9_host = test_env("XPRT_GANESHA_9P_HOST");
		w.p9_port = (uint16_t)atoi(test_env("XPRT_GANESHA_9P_PORT"));
		w.p9_aname = test_env("XPRT_GANESHA_9P_ANAME");
		snprintf(w.p9_dir, sizeof(w.p9_dir), "%s",
			 test_env("XPRT_NFS_EXPORT_DIR"));
	} else {
		w.p9_host = test_env("XPRT_DIOD_HOST");
		w.p9_port = (uint16_t)atoi(test_env("XPRT_DIOD_PORT"));
		w.p9_aname = test_env("XPRT_DIOD_ANAME");
		snprintf(w.p9_dir, sizeof(w.p9_dir), "%s",
			 test_env("XPRT_DIOD_EXPORT_DIR"));
	}
	printf("9P server: %s:%u\n", w.p9_host, w.p9_port);
	write_file(test_env("XPRT_NFS_EXPORT_DIR"));
	if (strcmp(w.p9_dir, test_env("XPRT_NFS_EXPORT_DIR")))
		write_file(w.p9_dir);

	/* buf_size 0: a pool to share, in size classes */
	assert_int_equal(lx_xprt_pool_create(&w.pool, &po), 0);
	o.host = test_env("XPRT_NFS_HOST");
	o.export_path = test_env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(test_env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(test_env("XPRT_MNT_PORT"));
	o.set_ids = true;
	o.timeo_ms = 3000;
	o.retrans = 10;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	o.pool = w.pool;
	err = lx_nfs3_create(&w.nfs, &o);
	if (err)
		fail_msg("NFSv3 mount on the shared pool: %d %s", err, msg);
	w.p9 = p9_session(65536);
	return 0;
}

static int teardown(void **state)
{
	char path[4200];

	lx_p9_destroy(w.p9);
	lx_nfs3_destroy(w.nfs);
	/* after every client that used it: nothing may be left in use */
	assert_int_equal(lx_xprt_pool_destroy(w.pool), 0);
	snprintf(path, sizeof(path), "%s/%s", test_env("XPRT_NFS_EXPORT_DIR"),
		 w.name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", w.p9_dir, w.name);
	unlink(path);
	free(w.want);
	return 0;
}

static struct lx_xprt_pool_stats class_stats(size_t size)
{
	struct lx_xprt_pool_stats st;
	struct lx_xprt_pool *cls;

	assert_int_equal(lx_xprt_pool_class(w.pool, size, &cls), 0);
	lx_xprt_pool_stats(cls, &st);
	return st;
}

static struct lx_xprt_pool_stats pool_stats(void)
{
	struct lx_xprt_pool_stats st;

	lx_xprt_pool_stats(w.pool, &st);
	return st;
}

/* The pool once the receive threads have put back the buffers of the
 * last replies (a sync call may return before they drop the request). */
static struct lx_xprt_pool_stats pool_settled(void)
{
	struct lx_xprt_pool_stats st = pool_stats();
	int i;

	for (i = 0; i < 1000 && st.bufs_in_use; i++) {
		usleep(1000);
		st = pool_stats();
	}
	return st;
}

/* ------------------------------------------------- both at once */

struct reader {
	int err;
	unsigned int calls;
};

static void *nfs_reader(void *v)
{
	struct reader *r = v;
	struct lx_nfs3_read_res res;
	struct lx_nfs3_fh fh;
	uint8_t buf[IO];
	struct iovec iov = {buf, sizeof(buf)};
	unsigned int i;

	r->err = lx_nfs3_lookup_path(w.nfs, w.name, &fh, NULL);
	for (i = 0; !r->err && i < N; i++) {
		uint64_t off = (uint64_t)(i * 37 % (FILE_LEN / IO)) * IO;

		r->err = lx_nfs3_read(w.nfs, &fh, off, IO, &iov, 1, &res);
		if (!r->err &&
		    (res.count != IO || memcmp(buf, w.want + off, IO)))
			r->err = -EIO;
		r->calls++;
	}
	return NULL;
}

static void *p9_reader(void *v)
{
	struct reader *r = v;
	uint8_t buf[IO];
	uint32_t fid, n;
	unsigned int i;

	r->err = lx_p9_open_path(w.p9, w.name, O_RDONLY, 0, &fid, NULL);
	if (r->err)
		return NULL;
	for (i = 0; !r->err && i < N; i++) {
		uint64_t off = (uint64_t)(i * 53 % (FILE_LEN / IO)) * IO;

		r->err = lx_p9_read(w.p9, fid, off, IO, buf, &n);
		if (!r->err && (n != IO || memcmp(buf, w.want + off, IO)))
			r->err = -EIO;
		r->calls++;
	}
	lx_p9_clunk(w.p9, fid);
	return NULL;
}

static void test_nfs3_and_9p_read_concurrently_on_one_pool(void **state)
{
	struct lx_xprt_pool_stats nfs0 = class_stats(16384),
				  p90 = class_stats(65536), nfs1, p91, all;
	struct reader rn = {0}, rp = {0};
	pthread_t tn, tp;

	assert_int_equal(pthread_create(&tn, NULL, nfs_reader, &rn), 0);
	assert_int_equal(pthread_create(&tp, NULL, p9_reader, &rp), 0);
	pthread_join(tn, NULL);
	pthread_join(tp, NULL);
	assert_int_equal(rn.err, 0);
	assert_int_equal(rp.err, 0);
	all = pool_settled();
	nfs1 = class_stats(16384);
	p91 = class_stats(65536);
	printf("NFSv3 class (16 KiB): gets %llu -> %llu; 9P class (64 KiB): "
	       "gets %llu -> %llu; pool: classes %llu, gets %llu, puts %llu, "
	       "in use %llu, carved %llu of %llu bytes, regs %llu\n",
	       (unsigned long long)nfs0.gets, (unsigned long long)nfs1.gets,
	       (unsigned long long)p90.gets, (unsigned long long)p91.gets,
	       (unsigned long long)all.classes, (unsigned long long)all.gets,
	       (unsigned long long)all.puts,
	       (unsigned long long)all.bufs_in_use,
	       (unsigned long long)all.bytes_carved,
	       (unsigned long long)all.bytes_reserved,
	       (unsigned long long)all.regs);
	/* every call took a send and a receive buffer from its class */
	assert_true(nfs1.gets - nfs0.gets >= 2 * N);
	assert_true(p91.gets - p90.gets >= 2 * N);
	/* one pool: its counters are both clients' */
	assert_true(all.gets >= nfs1.gets + p91.gets);
	assert_true(all.classes >= 2);
	assert_int_equal(all.bufs_in_use, 0);
	assert_int_equal(all.gets, all.puts);
	assert_int_equal(all.bytes_reserved, 16u << 20);
	assert_int_equal(all.regs, 0); /* TCP: nothing to register */
}

/* ------------------------------------ a server that lowers msize */

static void test_lowered_msize_takes_the_smaller_class(void **state)
{
	struct lx_xprt_pool_stats big0 = class_stats(1u << 20), small0, small1;
	struct lx_p9_clnt *c = p9_session(1u << 20);
	uint8_t buf[IO];
	uint32_t fid, n;
	unsigned int i;

	/* both servers cap msize at 65536: Tversion ran in the 1 MiB class,
	 * the session goes on in the 64 KiB one */
	assert_int_equal(lx_p9_msize(c), 65536);
	assert_true(class_stats(1u << 20).gets > big0.gets);
	small0 = class_stats(65536);
	assert_int_equal(lx_p9_open_path(c, w.name, O_RDONLY, 0, &fid, NULL),
			 0);
	for (i = 0; i < 50; i++) {
		assert_int_equal(
			lx_p9_read(c, fid, (uint64_t)i * IO, IO, buf, &n), 0);
		assert_int_equal(n, IO);
		assert_memory_equal(buf, w.want + (size_t)i * IO, IO);
	}
	lx_p9_clunk(c, fid);
	small1 = class_stats(65536);
	assert_true(small1.gets - small0.gets >= 2 * 50);
	assert_int_equal(class_stats(1u << 20).bufs_in_use, 0);
	lx_p9_destroy(c);
	assert_int_equal(pool_settled().bufs_in_use, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_nfs3_and_9p_read_concurrently_on_one_pool),
		cmocka_unit_test(test_lowered_msize_takes_the_smaller_class),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
