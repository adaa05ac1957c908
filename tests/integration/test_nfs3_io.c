// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 data paths against ganesha, each checked against the export
 * directory on disk (an independent witness): pread/pwrite larger than
 * the transfer size split and reassembled, async split I/O, READDIRPLUS of
 * a 10,000-entry directory made on disk, and UNSTABLE writes that survive
 * a ganesha restart (new write verifier: the client must send them again).
 */
#include <dirent.h>
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>

#include "helpers/testenv.h"

static struct lx_nfs3_clnt *mount_with(uint32_t rsize, uint32_t wsize)
{
	struct lx_nfs3_opts o = {0};
	struct lx_nfs3_clnt *c = NULL;
	char msg[256] = "";
	int err;

	o.host = test_env("XPRT_NFS_HOST");
	o.export_path = test_env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(test_env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(test_env("XPRT_MNT_PORT"));
	/* our own AUTH_SYS identity (not root's): the files the server
	 * makes are ours, so the witness below may read and write them on
	 * disk whoever runs the test (uid 65534 in make check) */
	o.set_ids = false;
	o.rsize = rsize;
	o.wsize = wsize;
	o.timeo_ms = 3000;
	o.retrans = 10;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	err = lx_nfs3_create(&c, &o);
	if (err)
		fail_msg("mount: %d %s", err, msg);
	return c;
}

static void disk_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", test_env("XPRT_NFS_EXPORT_DIR"), name);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
}

/* A file an earlier run left (as another user, root before make check
 * ran the tests as uid 65534) would refuse our O_TRUNC: it goes first. */
static void disk_unlink(const char *name)
{
	char p[512];

	disk_path(p, sizeof(p), name);
	assert_true(unlink(p) == 0 || errno == ENOENT);
}

/* the file as the server's disk has it */
static uint8_t *disk_read(const char *name, size_t *len)
{
	char p[512];
	struct stat st;
	uint8_t *b;
	int fd;

	disk_path(p, sizeof(p), name);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	assert_int_equal(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void split_roundtrip(uint32_t rsize, uint32_t wsize, size_t len,
			    uint64_t off, const char *name)
{
	struct lx_nfs3_clnt *c = mount_with(rsize, wsize);
	struct lx_nfs3_file_opts fo = {.stable = LX_NFS3_FILE_SYNC};
	struct lx_nfs3_file *f;
	uint8_t *src = malloc(len), *back = malloc(len + 100), *disk;
	size_t n, dlen;

	printf("%s: rsize %u wsize %u, %zu bytes at %llu\n", name,
	       lx_nfs3_rsize(c), lx_nfs3_wsize(c), len,
	       (unsigned long long)off);
	if (rsize)
		assert_int_equal(lx_nfs3_rsize(c), rsize);
	fill(src, len, (uint32_t)len);
	disk_unlink(name);
	assert_int_equal(
		lx_nfs3_open(c, name, O_CREAT | O_TRUNC, 0644, &fo, &f), 0);
	assert_int_equal(lx_nfs3_file_pwrite(f, src, len, off), 0);
	/* the disk is the witness */
	disk = disk_read(name, &dlen);
	assert_int_equal(dlen, off + len);
	assert_memory_equal(disk + off, src, len);
	free(disk);
	/* read back more than there is: short at end of file */
	memset(back, 0xee, len + 100);
	assert_int_equal(lx_nfs3_file_pread(f, back, len + 100, off, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(back, src, len);
	assert_int_equal(lx_nfs3_file_close(f), 0);
	lx_nfs3_destroy(c);
	free(src);
	free(back);
}

static void test_split_small_pieces(void **state)
{
	(void)state;
	/* 64 KiB pieces: 3 MiB + 123 bytes is 49 pieces over 4 rounds */
	split_roundtrip(65536, 65536, (3u << 20) + 123, 1000, "split64k");
}

static void test_split_server_max(void **state)
{
	(void)state;
	/* the server's own maximum (1 MiB): 20 MiB is two rounds of 16 */
	split_roundtrip(0, 0, (20u << 20) + 7, 0, "split1m");
}

/* -------------------------------------------------------- async split */

struct pio_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, status;
	size_t n;
	bool eof;
};

static void pio_cb(struct lx_call *call, int status, void *arg)
{
	struct lx_nfs3_pio *io = (struct lx_nfs3_pio *)call;
	struct pio_wait *w = arg;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->n = call->count;
	w->eof = io->eof;
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void pio_run(struct pio_wait *w)
{
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &w->lock);
	w->done = 0;
	pthread_mutex_unlock(&w->lock);
}

static void test_async_split(void **state)
{
	struct lx_nfs3_clnt *c = mount_with(32768, 32768);
	struct pio_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER};
	static struct lx_nfs3_pio io;
	struct lx_nfs3_create_res cr;
	size_t len = 16 * 32768 - 5, dlen;
	uint8_t *src = malloc(len), *back = calloc(1, len), *disk;

	(void)state;
	fill(src, len, 99);
	disk_unlink("asyncsplit");
	assert_int_equal(lx_nfs3_create_file(c, lx_nfs3_root(c), "asyncsplit",
					     LX_NFS3_CREATE_UNCHECKED, NULL,
					     NULL, &cr),
			 0);
	io.call.done = pio_cb;
	io.call.arg = &w;
	io.call.owner = 3;
	/* 17 pieces do not fit one split I/O */
	assert_int_equal(lx_nfs3_pwrite_async(c, &io, &cr.fh, src, 17 * 32768,
					      0, LX_NFS3_FILE_SYNC),
			 -EINVAL);
	assert_int_equal(lx_nfs3_pwrite_async(c, &io, &cr.fh, src, len, 0,
					      LX_NFS3_FILE_SYNC),
			 0);
	pio_run(&w);
	assert_int_equal(w.status, 0);
	assert_int_equal(w.n, len);
	disk = disk_read("asyncsplit", &dlen);
	assert_int_equal(dlen, len);
	assert_memory_equal(disk, src, len);
	free(disk);
	assert_int_equal(lx_nfs3_pread_async(c, &io, &cr.fh, back, len, 0), 0);
	pio_run(&w);
	assert_int_equal(w.status, 0);
	assert_int_equal(w.n, len);
	assert_true(w.eof);
	assert_memory_equal(back, src, len);
	lx_nfs3_destroy(c);
	free(src);
	free(back);
}

/* ------------------------------------------------------- READDIRPLUS */

#define NDIRENT 10000

struct seen {
	unsigned char *hit;
	unsigned int n, bad, noattr;
};

static int on_entry(const struct lx_nfs3_dirent *e, void *arg)
{
	struct seen *s = arg;
	unsigned int i;

	if (sscanf(e->name, "entry-%u", &i) != 1 || i >= NDIRENT ||
	    s->hit[i]++) {
		s->bad++;
		return 0;
	}
	if (!e->attr.present || !e->fh_present || e->attr.attr.size != i % 7)
		s->noattr++;
	s->n++;
	return 0;
}

static void test_readdirplus_10000(void **state)
{
	struct lx_nfs3_clnt *c = mount_with(0, 0);
	struct seen s = {.hit = calloc(1, NDIRENT)};
	struct lx_nfs3_fh dfh;
	char p[512], fp[600];
	unsigned int i;
	int fd;

	(void)state;
	/* made on disk, not through NFS: quick, and an independent source */
	snprintf(p, sizeof(p), "%s/big.%d", test_env("XPRT_NFS_EXPORT_DIR"),
		 (int)getpid());
	assert_int_equal(mkdir(p, 0755), 0);
	for (i = 0; i < NDIRENT; i++) {
		snprintf(fp, sizeof(fp), "%s/entry-%u", p, i);
		fd = open(fp, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "abcdefg", i % 7), (ssize_t)(i % 7));
		close(fd);
	}
	snprintf(p, sizeof(p), "big.%d", (int)getpid());
	assert_int_equal(lx_nfs3_lookup_path(c, p, &dfh, NULL), 0);
	assert_int_equal(lx_nfs3_readdirplus_iter(c, &dfh, 0, on_entry, &s), 0);
	printf("READDIRPLUS: %u entries, dirsize %u\n", s.n,
	       lx_nfs3_dirsize(c));
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.noattr, 0);
	assert_int_equal(s.n, NDIRENT);
	/* a bound below the size: E2BIG */
	memset(s.hit, 0, NDIRENT);
	s.n = 0;
	assert_int_equal(lx_nfs3_readdirplus_iter(c, &dfh, 1000, on_entry, &s),
			 -E2BIG);
	lx_nfs3_destroy(c);
	free(s.hit);
}

/* ------------------------------------------- UNSTABLE across a restart */

static void restart_ganesha(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s restart %s ganesha >/dev/null 2>&1",
		 test_env("XPRT_SERVERS_SH"), test_env("XPRT_SERVERS_RUN_DIR"));
	assert_int_equal(system(cmd), 0);
}

/* lose what the server had not committed, as a crash might */
static void clobber_on_disk(const char *name, size_t len)
{
	char p[512];
	uint8_t *z = calloc(1, len);
	int fd;

	disk_path(p, sizeof(p), name);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, z, len, 0), (ssize_t)len);
	close(fd);
	free(z);
}

struct supply {
	const uint8_t *src;
	unsigned int calls;
};

static int resupply(void *arg, uint64_t off, void *buf, size_t len)
{
	struct supply *s = arg;

	memcpy(buf, s->src + off, len);
	s->calls++;
	return 0;
}

static void unstable_restart(bool with_resupply, const char *name)
{
	struct lx_nfs3_clnt *c = mount_with(0, 0);
	struct supply sup = {0};
	struct lx_nfs3_file_opts fo = {.stable = LX_NFS3_UNSTABLE};
	struct lx_nfs3_file_stats st;
	struct lx_nfs3_file *f;
	size_t len = (4u << 20) + 11, dlen;
	uint8_t *src = malloc(len), *disk;

	fill(src, len, with_resupply ? 7 : 8);
	sup.src = src;
	if (with_resupply) {
		fo.resupply = resupply;
		fo.resupply_arg = &sup;
	}
	disk_unlink(name);
	assert_int_equal(
		lx_nfs3_open(c, name, O_CREAT | O_TRUNC, 0644, &fo, &f), 0);
	assert_int_equal(lx_nfs3_file_pwrite(f, src, len, 0), 0);
	lx_nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, len);
	/* ganesha's write verifier is its start time in whole seconds: a
	 * restart within the second it started keeps the verifier (and a
	 * client cannot tell).  Let the clock tick first. */
	usleep(1100 * 1000);
	restart_ganesha();
	clobber_on_disk(name, len);
	assert_int_equal(lx_nfs3_file_fsync(f), 0);
	lx_nfs3_file_stats(f, &st);
	printf("%s: commits %llu verifier changes %llu resent %llu bytes, "
	       "resupply calls %u\n",
	       name, (unsigned long long)st.commits,
	       (unsigned long long)st.verf_changes,
	       (unsigned long long)st.resent_bytes, sup.calls);
	assert_int_equal(st.uncommitted, 0);
	assert_true(st.verf_changes >= 1);
	assert_int_equal(st.resent_bytes, len);
	assert_true(!with_resupply || sup.calls >= 1);
	disk = disk_read(name, &dlen);
	assert_int_equal(dlen, len);
	assert_memory_equal(disk, src, len);
	free(disk);
	/* nothing left to commit: close commits nothing */
	assert_int_equal(lx_nfs3_file_close(f), 0);
	lx_nfs3_destroy(c);
	free(src);
}

static void test_unstable_survives_restart_copy(void **state)
{
	(void)state;
	unstable_restart(false, "restart-copy");
}

static void test_unstable_survives_restart_resupply(void **state)
{
	(void)state;
	unstable_restart(true, "restart-resupply");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_small_pieces),
		cmocka_unit_test(test_split_server_max),
		cmocka_unit_test(test_async_split),
		cmocka_unit_test(test_readdirplus_10000),
		cmocka_unit_test(test_unstable_survives_restart_copy),
		cmocka_unit_test(test_unstable_survives_restart_resupply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
