// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9_lib_rdma - the 9P2000.L client library (libxprt/p9.h) over RDMA,
 * against p9relay + diod in the test guest.  Where p9_rdma builds 9P by
 * hand to check the transport, this goes through lx_p9_create() with
 * transport RDMA and the library's own calls, and compares what it did
 * with the files diod serves, read directly from the guest's disk (the
 * relay and diod run in the same guest, so the export directory is
 * local).
 *
 *   connect   lx_p9_create(RDMA): Tversion and Tattach over the
 *             whole-message binding; with -m above the relay's buffers
 *             the server lowers msize and the client swaps its RDMA-
 *             registered pool for one of the agreed size (lx_xprt_set_pool)
 *   messages  one call of each kind diod supports: mkdir, walk, lcreate,
 *             write, fsync, read, setattr, getattr (against stat(2)),
 *             statfs, symlink, readlink, link, mknod, rename, xattr,
 *             lock, getlock; each result checked
 *   write     lx_p9_pwrite of SIZE bytes (split at the iounit, pipelined):
 *             the file on disk must hold exactly those bytes
 *   read      a file written on disk with pwrite(2), read back with
 *             lx_p9_pread: the bytes must match
 *   async     DEPTH lx_p9_read_async of 4 KiB in flight: operations/s, every
 *             block checked against the disk
 *   readdir   a directory of NFILES files made on disk, listed with
 *             lx_p9_opendir/lx_p9_readdir_next: every name exactly once, each
 *             qid path equal to the inode number on disk
 *   remove    lx_p9_remove_path of files and directories: gone from disk;
 *             a missing name is -ENOENT
 *   flush     (-x, through a relay started with -X 117, which swallows
 *             the first Rread of a connection) a Tread without a reply
 *             times out, is flushed (Tflush, Rflush over RDMA) and fails
 *             with -ETIMEDOUT; the reads after it succeed with the right
 *             data, and the transport reused the receive the lost reply
 *             left posted (excess receive accounting)
 *
 * usage: p9_lib_rdma [-a IP] [-p PORT] [-A ANAME] [-D EXPORT_DIR]
 *                    [-s SIZE] [-d DEPTH] [-n NFILES] [-m MSIZE] [-x]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/p9.h>
#include <libxprt/proto/pool.h>
#include <libxprt/rdma.h>

#include "tool.h"

static const char *host = "10.0.2.15";
static unsigned int port = LX_XPRT_RDMA_9P_PORT;
static const char *aname = "/p9export";
static const char *expdir; /* default: aname, the same directory */
static size_t total = 4u << 20;
static unsigned int depth = 16, nfiles = 500;
static uint32_t msize = 65536;
static bool flush_mode;
static char topdir[64];

/* a file of the export, as the guest's kernel sees it */
static const char *disk(const char *rel)
{
	static char p[4][512];
	static unsigned int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s/%s", expdir, topdir, rel);
	return p[i];
}

static const char *rpath(const char *rel)
{
	static char p[4][256];
	static unsigned int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", topdir, rel);
	return p[i];
}

static int read_disk(const char *path, uint8_t *buf, size_t len, size_t *got)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	*got = 0;
	if (fd < 0)
		return -errno;
	while (*got < len) {
		n = pread(fd, buf + *got, len - *got, (off_t)*got);
		if (n <= 0)
			break;
		*got += (size_t)n;
	}
	close(fd);
	return 0;
}

static struct lx_p9_clnt *connect_p9(unsigned int req_msize, unsigned int tmo)
{
	static char err[256];
	struct lx_xprt_rdma_opts ro = {.ack_timeout = 20};
	struct lx_p9_opts o = {0};
	struct lx_p9_clnt *c = NULL;
	double t0 = now_s();
	int r;

	o.host = host;
	o.port = (uint16_t)port;
	o.aname = aname;
	o.uname = "root";
	o.msize = req_msize;
	o.timeout_ms = tmo;
	o.connect_timeout_ms = 20000;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	/* the guest may stall for seconds on a busy host: a long ACK
	 * timeout keeps rxe from declaring the relay dead */
	o.rdma = &ro;
	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	r = lx_p9_create(&c, &o);
	report("connect", !r,
	       "lx_p9_create over RDMA to %s:%u, msize %u asked, %u agreed: "
	       "%s%s%s (%.1f ms)",
	       host, port, req_msize, r ? 0 : lx_p9_msize(c), lx_strerror(r),
	       r ? ": " : "", r ? err : "", (now_s() - t0) * 1e3);
	if (r)
		return NULL;
	/* a lowered msize swaps the pool: buffers of the agreed size,
	 * registered for RDMA like the first */
	if (lx_p9_msize(c) != req_msize)
		report("pool",
		       lx_xprt_pool_buf_size(lx_xprt_pool(lx_p9_xprt(c))) ==
			       lx_p9_msize(c),
		       "buffers of %zu bytes after msize %u",
		       lx_xprt_pool_buf_size(lx_xprt_pool(lx_p9_xprt(c))),
		       lx_p9_msize(c));
	return c;
}

/* ------------------------------------------------------------ messages */

static void check_msg(const char *msg, int got, int want)
{
	if (got != want)
		report(msg, false, "%d (%s), expected %d", got,
		       lx_strerror(got), want);
}

static void test_messages(struct lx_p9_clnt *c)
{
	struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_SIZE |
					  LX_P9_SETATTR_MODE,
				 .size = 3,
				 .mode = 0600};
	struct lx_p9_flock fl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				 .length = 10,
				 .proc_id = (uint32_t)getpid(),
				 .client_id = lx_p9_str_c("p9lib")};
	struct lx_p9_getlock gl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				   .length = 10,
				   .proc_id = 1,
				   .client_id = lx_p9_str_c("other")};
	uint32_t root = lx_p9_root_fid(c), d, f, x, cnt, nq;
	const char *names[1] = {topdir};
	char link[64], id[64], val[8];
	uint8_t buf[64], lst;
	struct lx_p9_statfs sf;
	struct lx_p9_attr a;
	struct lx_p9_qid q;
	struct stat st;
	const char *xattr = "xattr";
	uint64_t xsize = 0;
	int before = fails, r;

	check_msg("Tmkdir", lx_p9_mkdir(c, root, topdir, 0755, 0, &q), 0);
	check_msg("Tmkdir on disk", stat(disk(""), &st) || !S_ISDIR(st.st_mode),
		  0);
	check_msg("fid", lx_p9_fid_alloc(c, &d), 0);
	check_msg("Twalk", lx_p9_walk(c, root, d, 1, names, &nq, &q), 0);
	check_msg("Twalk qids", (int)nq, 1);
	check_msg("walk", lx_p9_walk_path(c, root, topdir, &f, NULL), 0);
	check_msg("Tlcreate",
		  lx_p9_lcreate(c, f, "f", O_RDWR | O_CREAT, 0644, 0, &q, NULL),
		  0);
	check_msg("Twrite", lx_p9_write(c, f, 0, 5, "hello", &cnt), 0);
	check_msg("Twrite count", (int)cnt, 5);
	check_msg("Tfsync", lx_p9_fsync(c, f, false), 0);
	check_msg("Tread", lx_p9_read(c, f, 0, sizeof(buf), buf, &cnt), 0);
	check_msg("Tread data", cnt != 5 || memcmp(buf, "hello", 5), 0);
	check_msg("Tsetattr", lx_p9_setattr(c, f, &ia), 0);
	check_msg("Tgetattr", lx_p9_getattr(c, f, LX_P9_GETATTR_ALL, &a), 0);
	check_msg("stat(2)", stat(disk("f"), &st), 0);
	check_msg("Tgetattr size = disk", (int)a.size, (int)st.st_size);
	check_msg("Tgetattr mode = disk", (int)(a.mode & 07777),
		  (int)(st.st_mode & 07777));
	check_msg("Tgetattr mode", (int)(a.mode & 07777), 0600);
	check_msg("Tgetattr ino = disk", a.qid.path != (uint64_t)st.st_ino, 0);
	check_msg("Tlock", lx_p9_lock(c, f, &fl, &lst), 0);
	check_msg("Tgetlock", lx_p9_getlock(c, f, &gl, id, sizeof(id)), 0);
	check_msg("Tstatfs", lx_p9_statfs(c, root, &sf), 0);
	check_msg("Tstatfs blocks", sf.blocks == 0, 0);
	check_msg("Tsymlink", lx_p9_symlink(c, d, "ln", "f", 0, &q), 0);
	check_msg("readlink(2)",
		  (int)readlink(disk("ln"), link, sizeof(link)) != 1 ||
			  link[0] != 'f',
		  0);
	check_msg("walk ln", lx_p9_walk_path(c, d, "ln", &x, NULL), 0);
	check_msg("Treadlink", lx_p9_readlink(c, x, link, sizeof(link)), 0);
	check_msg("Treadlink target", strcmp(link, "f") != 0, 0);
	check_msg("Tclunk", lx_p9_clunk(c, x), 0);
	check_msg("Tlink", lx_p9_link(c, d, f, "hard"), 0);
	check_msg("Tlink nlink on disk",
		  stat(disk("f"), &st) ? -errno : (int)st.st_nlink, 2);
	check_msg("Tmknod", lx_p9_mknod(c, d, "fifo", 010644, 0, 0, 0, &q), 0);
	check_msg("Tmknod on disk",
		  lstat(disk("fifo"), &st) || !S_ISFIFO(st.st_mode), 0);
	check_msg("walk hard", lx_p9_walk_path(c, d, "hard", &x, NULL), 0);
	check_msg("Trename", lx_p9_rename(c, x, d, "moved"), 0);
	check_msg("Trename on disk",
		  access(disk("moved"), F_OK) || !access(disk("hard"), F_OK),
		  0);
	check_msg("Tclunk", lx_p9_clunk(c, x), 0);
	check_msg("walk f", lx_p9_walk_path(c, d, "f", &x, NULL), 0);
	check_msg("Txattrcreate", lx_p9_xattrcreate(c, x, "user.p9lib", 3, 0),
		  0);
	check_msg("Twrite xattr", lx_p9_write(c, x, 0, 3, "abc", &cnt), 0);
	/* diod sets the attribute at the clunk; the guest's tmpfs (Linux
	 * 6.1) has no user.* attributes: then only the refusal is checked */
	r = lx_p9_clunk(c, x);
	if (r == -EOPNOTSUPP) {
		xattr = "xattr (refused by tmpfs)";
	} else {
		check_msg("Tclunk xattr", r, 0);
		check_msg("fid", lx_p9_fid_alloc(c, &x), 0);
		check_msg("Txattrwalk",
			  lx_p9_xattrwalk(c, f, x, "user.p9lib", &xsize), 0);
		check_msg("Txattrwalk size", (int)xsize, 3);
		check_msg("Tread xattr", lx_p9_read(c, x, 0, 3, val, &cnt), 0);
		check_msg("xattr value", cnt != 3 || memcmp(val, "abc", 3), 0);
		check_msg("Tclunk", lx_p9_clunk(c, x), 0);
	}
	check_msg("Twalk missing", lx_p9_walk_path(c, d, "nope", &x, NULL),
		  -ENOENT);
	check_msg("Tclunk", lx_p9_clunk(c, f), 0);
	check_msg("Tclunk", lx_p9_clunk(c, d), 0);
	report("messages", fails == before,
	       "mkdir walk lcreate write fsync read setattr getattr lock "
	       "getlock statfs symlink readlink link mknod rename %s: "
	       "results and disk agree",
	       xattr);
}

/* ----------------------------------------------------------- data */

static void test_write_read(struct lx_p9_clnt *c)
{
	uint8_t *src = malloc(total), *back = malloc(total);
	uint32_t fid, iounit = 0;
	size_t n = 0, got = 0, off;
	double t0, dt;
	int r, fd;

	if (!src || !back) {
		report("write", false, "out of memory");
		goto out;
	}
	fill_random(src, total, 1);
	r = lx_p9_open_path(c, rpath("data"), O_RDWR | O_CREAT | O_TRUNC, 0644,
			    &fid, &iounit);
	if (!report("open", !r, "%s O_CREAT: %s, iounit %u", rpath("data"),
		    lx_strerror(r), iounit))
		goto out;
	t0 = now_s();
	r = lx_p9_pwrite(c, fid, src, total, 0, &n);
	dt = now_s() - t0;
	report("write", !r && n == total,
	       "lx_p9_pwrite %zu bytes (%u-byte Twrites): %s, %zu written, "
	       "%.1f MiB/s",
	       total, lx_p9_iosize(c), lx_strerror(r), n,
	       (double)n / (1 << 20) / dt);
	r = read_disk(disk("data"), back, total, &got);
	off = first_diff(src, back, got);
	report("write-disk", !r && got == total && off == (size_t)-1,
	       "the file on disk: %zu bytes, %s", got,
	       off == (size_t)-1 ? "identical" : "DIFFERS");
	if (off != (size_t)-1)
		printf("  first difference at offset %zu\n", off);

	/* the other way: written by the kernel, read through 9P */
	fill_random(src, total, 2);
	fd = open(disk("data"), O_WRONLY);
	r = fd < 0 || pwrite(fd, src, total, 0) != (ssize_t)total ? -EIO : 0;
	if (fd >= 0)
		close(fd);
	memset(back, 0, total);
	t0 = now_s();
	if (!r)
		r = lx_p9_pread(c, fid, back, total, 0, &n);
	dt = now_s() - t0;
	off = first_diff(src, back, n);
	report("read", !r && n == total && off == (size_t)-1,
	       "lx_p9_pread %zu bytes written on disk: %s, %zu read, %s, "
	       "%.1f MiB/s",
	       total, lx_strerror(r), n,
	       off == (size_t)-1 ? "identical" : "DIFFERENT",
	       (double)n / (1 << 20) / dt);
	if (off != (size_t)-1)
		printf("  first difference at offset %zu\n", off);
	r = lx_p9_pread(c, fid, back, 4096, total, &n);
	report("read-eof", !r && n == 0, "read at the end: %s, %zu bytes",
	       lx_strerror(r), n);
	lx_p9_clunk(c, fid);
out:
	free(src);
	free(back);
}

struct aio {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int inflight, bad, errors;
	int first_err;
};

struct aio_one {
	struct lx_call call;
	struct aio *a;
	uint8_t *buf;
	const uint8_t *want;
	bool busy;
};

static void aio_done(struct lx_call *call, int status, void *arg)
{
	struct aio_one *o = arg;
	struct aio *a = o->a;
	uint32_t count = call->count;

	pthread_mutex_lock(&a->lock);
	if (status) {
		if (!a->errors++)
			a->first_err = status;
	} else if (count != 4096 || memcmp(o->buf, o->want, 4096)) {
		a->bad++;
	}
	o->busy = false;
	a->inflight--;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

/* DEPTH random 4 KiB reads in flight, each checked against the disk */
static void test_async(struct lx_p9_clnt *c, unsigned int ops)
{
	struct aio a = {PTHREAD_MUTEX_INITIALIZER,
			PTHREAD_COND_INITIALIZER,
			0,
			0,
			0,
			0};
	size_t nblk = total / 4096, got = 0;
	uint8_t *want = malloc(total), *bufs = malloc((size_t)depth * 4096);
	struct aio_one *one = calloc(depth, sizeof(*one));
	unsigned int i, slot = 0;
	uint64_t s = 88172645463325252ull;
	uint32_t fid;
	double t0, dt;
	int r;

	if (!want || !bufs || !one || nblk == 0) {
		report("async", false, "out of memory");
		goto out;
	}
	r = read_disk(disk("data"), want, total, &got);
	if (r || got != total ||
	    lx_p9_open_path(c, rpath("data"), O_RDONLY, 0, &fid, NULL)) {
		report("async", false, "setup: %s, %zu bytes on disk",
		       strerror(-r), got);
		goto out;
	}
	t0 = now_s();
	for (i = 0; i < ops; i++) {
		size_t blk;

		/* slots are used round robin: wait for this one's read */
		pthread_mutex_lock(&a.lock);
		while (one[slot].busy)
			pthread_cond_wait(&a.cond, &a.lock);
		one[slot].busy = true;
		a.inflight++;
		pthread_mutex_unlock(&a.lock);
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		blk = (size_t)(s % nblk);
		one[slot].a = &a;
		one[slot].buf = bufs + (size_t)slot * 4096;
		one[slot].want = want + blk * 4096;
		one[slot].call =
			(struct lx_call){.done = aio_done, .arg = &one[slot]};
		r = lx_p9_read_async(c, &one[slot].call, fid, blk * 4096, 4096,
				     one[slot].buf);
		if (r) {
			pthread_mutex_lock(&a.lock);
			one[slot].busy = false;
			a.inflight--;
			if (!a.errors++)
				a.first_err = r;
			pthread_mutex_unlock(&a.lock);
			break;
		}
		slot = (slot + 1) % depth;
	}
	pthread_mutex_lock(&a.lock);
	while (a.inflight)
		pthread_cond_wait(&a.cond, &a.lock);
	pthread_mutex_unlock(&a.lock);
	dt = now_s() - t0;
	report("async", !a.errors && !a.bad,
	       "%u random 4 KiB Treads, up to %u in flight: %.0f ops/s, "
	       "%u wrong, %u errors (first %s)",
	       ops, depth, ops / dt, a.bad, a.errors, lx_strerror(a.first_err));
	lx_p9_clunk(c, fid);
out:
	free(want);
	free(bufs);
	free(one);
}

/* ----------------------------------------------------- directories */

static void test_readdir(struct lx_p9_clnt *c)
{
	unsigned char *seen = calloc(nfiles, 1);
	unsigned int i, dups = 0, ino_bad = 0, others = 0, n = 0;
	struct lx_p9_dir *dir = NULL;
	struct lx_p9_dirent e;
	char name[160];
	struct stat st;
	double t0;
	int r, fd;

	if (!seen) {
		report("readdir", false, "out of memory");
		return;
	}
	if (mkdir(disk("many"), 0755) && errno != EEXIST) {
		report("readdir", false, "mkdir on disk: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name),
			 "many/entry-with-a-longish-name-%u", i);
		fd = open(disk(name), O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
	}
	t0 = now_s();
	r = lx_p9_opendir(c, rpath("many"), &dir);
	while (!r && (r = lx_p9_readdir_next(dir, &e)) == 1) {
		r = 0;
		unsigned int k;
		char nm[128];

		n++;
		snprintf(nm, sizeof(nm), "%.*s", (int)e.name.len, e.name.s);
		if (sscanf(nm, "entry-with-a-longish-name-%u", &k) != 1 ||
		    k >= nfiles) {
			others += strcmp(nm, ".") && strcmp(nm, "..");
			continue;
		}
		dups += seen[k]++ != 0;
		snprintf(name, sizeof(name), "many/%s", nm);
		if (stat(disk(name), &st) || (uint64_t)st.st_ino != e.qid.path)
			ino_bad++;
	}
	for (i = 0; i < nfiles; i++)
		if (!seen[i])
			break;
	report("readdir", r == 0 && i == nfiles && !dups && !ino_bad && !others,
	       "%u entries (%u files + . ..) in %.1f ms: %s; %u missing "
	       "from the listing, %u twice, %u unknown, %u qid paths differ "
	       "from the inode",
	       n, nfiles, (now_s() - t0) * 1e3, r ? lx_strerror(r) : "end",
	       nfiles - i, dups, others, ino_bad);
	lx_p9_closedir(dir);
out:
	free(seen);
}

static void test_remove(struct lx_p9_clnt *c)
{
	static const char *const left[] = {"f",	   "ln",   "moved",
					   "fifo", "data", NULL};
	char name[64];
	unsigned int i, gone = 0, n = 0;
	int r, bad = 0;

	for (i = 0; left[i]; i++, n++) {
		r = lx_p9_remove_path(c, rpath(left[i]));
		bad += r != 0;
		gone += access(disk(left[i]), F_OK) != 0;
	}
	r = lx_p9_remove_path(c, rpath("many"));
	report("rmdir-notempty", r == -ENOTEMPTY || r == -EEXIST,
	       "removing a full directory: %s", lx_strerror(r));
	for (i = 0; i < nfiles; i++, n++) {
		snprintf(name, sizeof(name),
			 "many/entry-with-a-longish-name-%u", i);
		/* a few through 9P, the rest on disk (time) */
		if (i < 20) {
			r = lx_p9_remove_path(c, rpath(name));
			bad += r != 0;
			gone += access(disk(name), F_OK) != 0;
		} else {
			gone += unlink(disk(name)) == 0;
		}
	}
	r = lx_p9_remove_path(c, rpath("many"));
	bad += r != 0;
	gone += access(disk("many"), F_OK) != 0;
	r = lx_p9_remove_path(c, topdir);
	bad += r != 0;
	gone += access(disk(""), F_OK) != 0;
	n += 2;
	r = lx_p9_remove_path(c, topdir);
	report("remove", !bad && gone == n && r == -ENOENT,
	       "%u files and directories removed (%u gone from disk), "
	       "%d errors; removing again: %s",
	       n, gone, bad, lx_strerror(r));
}

/* ---------------------------------------------------- flush over RDMA */

static void test_flush(void)
{
	struct lx_p9_clnt *c = connect_p9(msize, 3000);
	uint8_t *src = malloc(40 * 4096), *buf = malloc(40 * 4096);
	struct lx_xprt_rdma_stats st = {0};
	struct lx_p9_stats ps = {0};
	uint32_t fid, cnt = 0;
	size_t n = 0, off;
	double t0;
	int r, r2;

	if (!c || !src || !buf)
		goto out;
	fill_random(src, 40 * 4096, 3);
	r = lx_p9_open_path(c, rpath("flush"), O_RDWR | O_CREAT | O_TRUNC, 0644,
			    &fid, NULL);
	if (!r)
		r = lx_p9_pwrite(c, fid, src, 40 * 4096, 0, &n);
	if (!report("flush-setup", !r && n == 40 * 4096, "%s: %s",
		    rpath("flush"), lx_strerror(r)))
		goto out_close;
	t0 = now_s();
	r = lx_p9_read(c, fid, 0, 4096, buf, &cnt);
	lx_p9_stats(c, &ps);
	report("flush-timeout", r == -ETIMEDOUT && ps.flushes >= 1,
	       "a Tread whose Rread the relay dropped: %s after %.1f s; "
	       "%llu Tflush, %llu Rflush",
	       lx_strerror(r), now_s() - t0, (unsigned long long)ps.flushes,
	       (unsigned long long)ps.flush_replies);
	memset(buf, 0, 40 * 4096);
	r = lx_p9_pread(c, fid, buf, 40 * 4096, 0, &n);
	off = first_diff(src, buf, n);
	lx_xprt_rdma_stats(lx_p9_xprt(c), &st);
	lx_p9_stats(c, &ps);
	report("flush-after",
	       !r && n == 40 * 4096 && off == (size_t)-1 &&
		       st.excess_recvs >= 1 && ps.flush_replies == ps.flushes,
	       "40 Treads after it: %s, %zu bytes, %s; %llu excess "
	       "receive(s) reused, %llu Rflush for %llu Tflush",
	       lx_strerror(r), n, off == (size_t)-1 ? "identical" : "DIFFER",
	       (unsigned long long)st.excess_recvs,
	       (unsigned long long)ps.flush_replies,
	       (unsigned long long)ps.flushes);
	lx_p9_clunk(c, fid);
	r2 = lx_p9_remove_path(c, rpath("flush"));
	report("flush-cleanup", r2 == 0, "%s", lx_strerror(r2));
out_close:
	lx_p9_destroy(c);
out:
	if (!c)
		fails++;
	free(src);
	free(buf);
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	struct lx_xprt_rdma_stats st = {0};
	struct lx_p9_stats ps = {0};
	struct lx_p9_clnt *c;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:p:A:D:s:d:n:m:x")) != -1) {
		switch (opt) {
		case 'a':
			host = optarg;
			break;
		case 'p':
			port = (unsigned int)atoi(optarg);
			break;
		case 'A':
			aname = optarg;
			break;
		case 'D':
			expdir = optarg;
			break;
		case 's':
			total = (size_t)atol(optarg) & ~(size_t)4095;
			break;
		case 'd':
			depth = (unsigned int)atoi(optarg);
			break;
		case 'n':
			nfiles = (unsigned int)atoi(optarg);
			break;
		case 'm':
			msize = (uint32_t)atol(optarg);
			break;
		case 'x':
			flush_mode = true;
			break;
		default:
			fprintf(stderr,
				"usage: p9_lib_rdma [-a IP] [-p PORT] [-A ANAME] "
				"[-D EXPORT_DIR] [-s SIZE] [-d DEPTH] "
				"[-n NFILES] [-m MSIZE] [-x]\n");
			return 2;
		}
	}
	if (!expdir)
		expdir = aname;
	if (!depth || depth > 256 || !total) {
		fprintf(stderr, "p9_lib_rdma: bad -d or -s\n");
		return 2;
	}
	snprintf(topdir, sizeof(topdir), "p9lib.%d%s", (int)getpid(),
		 flush_mode ? "x" : "");
	if (flush_mode) {
		/* the flush session needs a directory of its own */
		c = connect_p9(msize, 10000);
		if (!c)
			return 1;
		if (lx_p9_mkdir_path(c, topdir, 0755))
			fails++;
		lx_p9_destroy(c);
		test_flush();
		c = connect_p9(msize, 10000);
		if (c) {
			lx_p9_remove_path(c, topdir);
			lx_p9_destroy(c);
		}
		printf("%s: %d failure(s)\n", fails ? "FAIL" : "PASS", fails);
		return fails ? 1 : 0;
	}
	c = connect_p9(msize, 20000);
	if (!c)
		return 1;
	test_messages(c);
	test_write_read(c);
	test_async(c, 2000);
	test_readdir(c);
	test_remove(c);
	lx_xprt_rdma_stats(lx_p9_xprt(c), &st);
	lx_p9_stats(c, &ps);
	printf("rdma: %llu Sends in %llu doorbells (%llu signalled), %llu "
	       "receives in %llu doorbells, %llu chunk registrations, "
	       "%llu bad headers; 9P: %llu calls, %llu flushes\n",
	       (unsigned long long)st.sends,
	       (unsigned long long)st.send_doorbells,
	       (unsigned long long)st.sends_signaled,
	       (unsigned long long)st.recvs_posted,
	       (unsigned long long)st.recv_doorbells,
	       (unsigned long long)st.regs, (unsigned long long)st.bad_headers,
	       (unsigned long long)ps.calls, (unsigned long long)ps.flushes);
	if (st.regs || st.bad_headers)
		report("registrations", false,
		       "pool buffers must need no registration per call");
	lx_p9_destroy(c);
	printf("%s: %d failure(s)\n", fails ? "FAIL" : "PASS", fails);
	return fails ? 1 : 0;
}
