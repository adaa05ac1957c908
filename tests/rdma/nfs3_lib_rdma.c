// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3_lib_rdma - the NFSv3 client library (libxprt/nfs3.h) over
 * RPC-over-RDMA against the guest's kernel nfsd.  nfs3_rdma checks the
 * transport with hand-written XDR; this goes through lx_nfs3_create() with
 * transport RDMA (MOUNT over TCP, NFS over RDMA on 20049) and the
 * library's own calls, and checks the results against the export on the
 * guest's disk (nfsd serves a local directory, so what the server did is
 * visible with stat(2), read(2) and readdir).
 *
 *   mount     lx_nfs3_create(RDMA): MNT over TCP, NULL and FSINFO over RDMA
 *   procs     every NFSv3 procedure at least once, with the errors a
 *             client must tell apart (EXIST, NOENT, NOTDIR, ISDIR,
 *             NOTEMPTY, NOT_SYNC, a forged handle) and every MOUNT
 *             procedure over its TCP client; results compared with disk
 *   async     the async forms, several calls in flight
 *   write     lx_nfs3_file_pwrite of SIZE bytes in wsize pieces: each WRITE
 *             carries its payload in a Read chunk; the file on disk must
 *             hold exactly those bytes
 *   read      a file written with pwrite(2) read back with
 *             lx_nfs3_file_pread in rsize pieces: each READ's data comes
 *             through a Write chunk; a small READ comes inline
 *   readdir   NFILES files made on disk, listed with READDIRPLUS
 *             (lx_nfs3_readdirplus_iter) and with READDIR: every name once,
 *             fileid, size and mode equal to stat(2); the replies need
 *             Reply chunks
 *   bigdir    NBIG files listed with READDIRPLUS and READDIR whose
 *             dircount/maxcount (-R, 256 KiB) is far above buf_size: each
 *             reply (about -R bytes) lands through a Reply chunk in a
 *             buffer of its size, entries checked against stat(2), no
 *             window left live (with 4 KiB segments the 16-segment
 *             chunk is too short: -EMSGSIZE, cleanly); a READLINK of a 1000-byte target over a
 *             1 KiB inline threshold (its Reply chunk), checked against
 *             readlink(2)
 *
 * The chunk counters of the transport (struct lx_xprt_rdma_stats) must show
 * each chunk type was used where it had to be.
 *
 * usage: nfs3_lib_rdma [-a IP] [-e EXPORT] [-D EXPORT_DIR] [-s SIZE]
 *                      [-n NFILES] [-b NBIG] [-R DIRCOUNT] [-o SECTION]
 *                      [-M MOUNT_PORT] [-p NFS_PORT]
 * -o runs only the mount and the named section (procs, mount-procs, async,
 * data, readdir, bigdir).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/nfs3.h>
#include <libxprt/rdma.h>

#include "tool.h"

static const char *host = "10.0.2.15";
static const char *export_ = "/export";
static const char *expdir;			/* default: the export path */
static unsigned int mnt_port = 20048, nfs_port; /* 0: the RDMA default */
static size_t total = 8u << 20;
static unsigned int nfiles = 2000;
static unsigned int nbig = 3000;       /* bigdir: files */
static unsigned int bigcount = 262144; /* bigdir: dircount/maxcount */
static const char *only;	       /* -o: one section */
static char topdir[64];
static struct lx_nfs3_clnt *clnt;
static struct lx_nfs3_fh dir; /* this run's directory */

/* one check inside a section: silent when right */
#define CK(got, want) ck(__LINE__, #got, (long long)(got), (long long)(want))

static void ck(int line, const char *expr, long long got, long long want)
{
	if (got == want)
		return;
	printf("FAIL line %d: %s = %lld (%s), expected %lld\n", line, expr, got,
	       got < 0 && got > -4096 ? lx_strerror((int)got) : "", want);
	fails++;
}

static const char *disk(const char *rel)
{
	static char p[4][512];
	static unsigned int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s/%s", expdir, topdir, rel);
	return p[i];
}

static struct lx_xprt_rdma_stats rstats(void)
{
	struct lx_xprt_rdma_stats st = {0};

	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(clnt), 0), &st);
	return st;
}

static void base_opts(struct lx_nfs3_opts *o, char *msg, size_t len)
{
	/* the guest may stall for seconds on a busy host: a long ACK
	 * timeout keeps rxe from declaring nfsd dead */
	static const struct lx_xprt_rdma_opts ro = {.ack_timeout = 20};

	memset(o, 0, sizeof(*o));
	o->host = host;
	o->export_path = export_;
	o->mount_port = (uint16_t)mnt_port;
	o->nfs_port = (uint16_t)nfs_port;
	o->transport = LX_XPRT_TRANSPORT_RDMA;
	o->rdma = &ro;
	o->set_ids = true; /* root: the export belongs to root */
	o->timeo_ms = 20000;
	o->errmsg = msg;
	o->errmsg_len = len;
}

static struct lx_nfs3_fh mkfile(const char *name)
{
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_sattr sa = {.set_mode = true, .mode = 0644};

	CK(lx_nfs3_create_file(clnt, &dir, name, LX_NFS3_CREATE_GUARDED, &sa,
			       NULL, &cr),
	   0);
	CK(cr.fh_present, 1);
	return cr.fh;
}

/* -------------------------------------------------------------- mount */

static int do_mount(void)
{
	const struct lx_nfs3_fsinfo_res *fi;
	struct lx_xprt_rdma_stats st;
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_opts o;
	char msg[256] = "";
	double t0 = now_s();
	int r;

	base_opts(&o, msg, sizeof(msg));
	r = lx_nfs3_create(&clnt, &o);
	if (!report("mount", !r,
		    "lx_nfs3_create %s:%s, MOUNT over TCP %u, NFS over RDMA: %s%s%s "
		    "(%.1f ms)",
		    host, export_, mnt_port, lx_strerror(r), r ? ": " : "", msg,
		    (now_s() - t0) * 1e3))
		return r;
	fi = lx_nfs3_fsinfo_cached(clnt);
	st = rstats();
	report("fsinfo", fi->rtmax >= 4096 && fi->wtmax >= 4096,
	       "rtmax %u wtmax %u dtpref %u -> rsize %u wsize %u; RDMA "
	       "credits %u, inline %u/%u",
	       fi->rtmax, fi->wtmax, fi->dtpref, lx_nfs3_rsize(clnt),
	       lx_nfs3_wsize(clnt), st.credits, st.inline_send, st.inline_recv);
	snprintf(topdir, sizeof(topdir), "nfs3lib.%d", (int)getpid());
	r = lx_nfs3_mkdir(clnt, lx_nfs3_root(clnt), topdir, NULL, &cr);
	if (!report("mkdir", !r && cr.fh_present, "%s: %s", topdir,
		    lx_strerror(r)))
		return r ? r : -EIO;
	dir = cr.fh;
	return 0;
}

/* -------------------------------------------------------- procedures */

static void test_procs(void)
{
	uint8_t verf[LX_NFS3_VERFSIZE] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct iovec iov[2] = {{(void *)"hello ", 6}, {(void *)"world", 5}};
	struct lx_nfs3_sattr sa = {.set_size = true, .size = 4096};
	struct lx_nfs3_time bad = {1, 2};
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_commit_res cm;
	struct lx_nfs3_access_res ar;
	struct lx_nfs3_wcc_res wc;
	struct lx_nfs3_readlink_res rl;
	struct lx_nfs3_link_res lk;
	struct lx_nfs3_rename_res rn;
	struct lx_nfs3_fsstat_res fs;
	struct lx_nfs3_pathconf_res pc;
	struct lx_nfs3_fsinfo_res fi;
	struct lx_nfs3_fh f, sub, forged;
	char buf[64] = {0}, lnk[64];
	struct iovec riov = {buf, sizeof(buf)};
	struct stat st;
	int before = fails, r;
	unsigned int i;

	CK(lx_nfs3_null(clnt), 0);
	CK(lx_nfs3_getattr(clnt, lx_nfs3_root(clnt), &gr), 0);
	CK(gr.attr.type, NF3DIR);
	CK(lx_nfs3_fsstat(clnt, lx_nfs3_root(clnt), &fs), 0);
	CK(fs.tbytes > 0 && fs.fbytes <= fs.tbytes, 1);
	CK(lx_nfs3_fsinfo(clnt, lx_nfs3_root(clnt), &fi), 0);
	CK(fi.rtmax, lx_nfs3_fsinfo_cached(clnt)->rtmax);
	CK(lx_nfs3_pathconf(clnt, lx_nfs3_root(clnt), &pc), 0);
	CK(pc.name_max >= 255, 1);

	/* CREATE in its three modes, LOOKUP */
	f = mkfile("c1");
	CK(stat(disk("c1"), &st), 0);
	CK(st.st_mode & 07777, 0644);
	CK(lx_nfs3_create_file(clnt, &dir, "c1", LX_NFS3_CREATE_GUARDED, NULL,
			       NULL, &cr),
	   -EEXIST);
	CK(cr.status, LX_NFS3ERR_EXIST);
	CK(lx_nfs3_create_file(clnt, &dir, "c1", LX_NFS3_CREATE_UNCHECKED, NULL,
			       NULL, &cr),
	   0);
	CK(lx_nfs3_create_file(clnt, &dir, "c2", LX_NFS3_CREATE_EXCLUSIVE, NULL,
			       verf, &cr),
	   0);
	CK(lx_nfs3_create_file(clnt, &dir, "c2", LX_NFS3_CREATE_EXCLUSIVE, NULL,
			       verf, &cr),
	   0); /* a retry with the same verifier succeeds */
	CK(access(disk("c2"), F_OK), 0);
	CK(lx_nfs3_lookup(clnt, &dir, "c1", &lr), 0);
	CK(lr.fh.len == f.len && !memcmp(lr.fh.data, f.data, f.len), 1);
	CK(lr.attr.present && lr.attr.attr.fileid == (uint64_t)st.st_ino, 1);
	CK(lx_nfs3_lookup(clnt, &dir, "nope", &lr), -ENOENT);
	CK(lr.status, LX_NFS3ERR_NOENT);
	CK(lx_nfs3_lookup(clnt, &f, "x", &lr), -ENOTDIR);
	CK(lx_nfs3_mkdir(clnt, &dir, "c1", NULL, &cr), -EEXIST);

	/* WRITE (stable and not), COMMIT, READ, ACCESS */
	CK(lx_nfs3_write(clnt, &f, 0, iov, 2, LX_NFS3_FILE_SYNC, &wr), 0);
	CK(wr.count, 11);
	CK(wr.committed, LX_NFS3_FILE_SYNC);
	CK(lx_nfs3_write(clnt, &f, 11, iov + 1, 1, LX_NFS3_UNSTABLE, &wr), 0);
	CK(lx_nfs3_commit(clnt, &f, 0, 0, &cm), 0);
	CK(memcmp(cm.verf, wr.verf, LX_NFS3_VERFSIZE), 0);
	CK(lx_nfs3_read(clnt, &f, 0, sizeof(buf), &riov, 1, &rr), 0);
	CK(rr.count, 16);
	CK(rr.eof, 1);
	CK(memcmp(buf, "hello worldworld", 16), 0);
	{
		int fd = open(disk("c1"), O_RDONLY);

		memset(lnk, 0, sizeof(lnk));
		CK(fd >= 0 && read(fd, lnk, sizeof(lnk)) == 16, 1);
		CK(memcmp(lnk, "hello worldworld", 16), 0);
		if (fd >= 0)
			close(fd);
	}
	CK(lx_nfs3_read(clnt, &f, 100, 10, &riov, 1, &rr), 0);
	CK(rr.count, 0);
	CK(rr.eof, 1);
	CK(lx_nfs3_access(clnt, &f, LX_NFS3_ACCESS_READ | LX_NFS3_ACCESS_MODIFY,
			  &ar),
	   0);
	CK(ar.access & LX_NFS3_ACCESS_READ, LX_NFS3_ACCESS_READ);
	CK(lx_nfs3_read(clnt, &dir, 0, 10, &riov, 1, &rr), -EISDIR);
	CK(lx_nfs3_write(clnt, &dir, 0, iov, 1, LX_NFS3_FILE_SYNC, &wr),
	   -EISDIR);

	/* SETATTR with and without the ctime guard */
	CK(lx_nfs3_setattr(clnt, &f, &sa, NULL, &wc), 0);
	CK(stat(disk("c1"), &st) ? -1 : st.st_size, 4096);
	CK(lx_nfs3_getattr(clnt, &f, &gr), 0);
	sa.size = 10;
	CK(lx_nfs3_setattr(clnt, &f, &sa, &bad, &wc), -EBUSY);
	CK(wc.status, LX_NFS3ERR_NOT_SYNC);
	CK(lx_nfs3_setattr(clnt, &f, &sa, &gr.attr.ctime, &wc), 0);
	sa.set_size = false;
	sa.set_mode = true;
	sa.mode = 0600;
	sa.mtime_how = LX_NFS3_SET_TO_CLIENT_TIME;
	sa.mtime.sec = 1000000;
	CK(lx_nfs3_setattr(clnt, &f, &sa, NULL, &wc), 0);
	CK(stat(disk("c1"), &st), 0);
	CK(st.st_size, 10);
	CK(st.st_mode & 07777, 0600);
	CK(st.st_mtime, 1000000);

	/* SYMLINK, READLINK, MKNOD, LINK, RENAME */
	CK(lx_nfs3_symlink(clnt, &dir, "sl", NULL, "some/target", &cr), 0);
	CK(cr.fh_present, 1);
	CK(readlink(disk("sl"), lnk, sizeof(lnk)), 11);
	CK(lx_nfs3_readlink(clnt, &cr.fh, buf, sizeof(buf), &rl), 0);
	CK(strcmp(buf, "some/target"), 0);
	CK(lx_nfs3_readlink(clnt, &cr.fh, buf, 5, &rl), -ENAMETOOLONG);
	CK(lx_nfs3_readlink(clnt, &f, buf, sizeof(buf), &rl), -EINVAL);
	CK(lx_nfs3_mknod(clnt, &dir, "fifo", NF3FIFO, NULL, 0, 0, &cr), 0);
	CK(lstat(disk("fifo"), &st) == 0 && S_ISFIFO(st.st_mode), 1);
	CK(lx_nfs3_link(clnt, &f, &dir, "hard", &lk), 0);
	CK(stat(disk("c1"), &st) ? -1 : (long long)st.st_nlink, 2);
	CK(lx_nfs3_link(clnt, &f, &dir, "hard", &lk), -EEXIST);
	CK(lx_nfs3_rename(clnt, &dir, "hard", &dir, "moved", &rn), 0);
	CK(access(disk("hard"), F_OK) != 0 && access(disk("moved"), F_OK) == 0,
	   1);
	CK(lx_nfs3_rename(clnt, &dir, "hard", &dir, "x", &rn), -ENOENT);

	/* REMOVE, RMDIR and their errors */
	CK(lx_nfs3_mkdir(clnt, &dir, "sub", NULL, &cr), 0);
	sub = cr.fh;
	CK(lx_nfs3_create_file(clnt, &sub, "inner", LX_NFS3_CREATE_GUARDED,
			       NULL, NULL, &cr),
	   0);
	CK(lx_nfs3_rmdir(clnt, &dir, "sub", &wc), -ENOTEMPTY);
	CK(lx_nfs3_rmdir(clnt, &sub, "inner", &wc), -ENOTDIR);
	CK(lx_nfs3_remove(clnt, &sub, "inner", &wc), 0);
	CK(lx_nfs3_remove(clnt, &sub, "inner", &wc), -ENOENT);
	CK(lx_nfs3_rmdir(clnt, &dir, "sub", &wc), 0);
	CK(access(disk("sub"), F_OK) != 0, 1);
	for (i = 0; i < 5; i++) {
		static const char *const left[] = {"c1", "c2", "sl", "fifo",
						   "moved"};

		CK(lx_nfs3_remove(clnt, &dir, left[i], &wc), 0);
		CK(access(disk(left[i]), F_OK) != 0, 1);
	}

	/* a forged handle: the server must refuse it */
	forged = *lx_nfs3_root(clnt);
	for (i = 4; i < forged.len; i++)
		forged.data[i] ^= 0x5a;
	r = lx_nfs3_getattr(clnt, &forged, &gr);
	CK(r == -ESTALE || r == -EBADF || r == -EACCES, 1);

	/* lx_nfs3_open / path helpers */
	{
		struct lx_nfs3_file *nf;
		struct lx_nfs3_fattr a;
		struct lx_nfs3_fh fh;
		char path[128];
		size_t n;

		snprintf(path, sizeof(path), "%s/opened", topdir);
		CK(lx_nfs3_open(clnt, path, 0, 0, NULL, &nf), -ENOENT);
		CK(lx_nfs3_open(clnt, path, O_CREAT | O_EXCL, 0640, NULL, &nf),
		   0);
		CK(lx_nfs3_file_pwrite(nf, "abcdef", 6, 0), 0);
		CK(lx_nfs3_file_close(nf), 0);
		CK(lx_nfs3_open(clnt, path, O_CREAT | O_EXCL, 0640, NULL, &nf),
		   -EEXIST);
		CK(lx_nfs3_lookup_path(clnt, path, &fh, &a), 0);
		CK(a.size, 6);
		CK(a.mode & 0777, 0640);
		CK(lx_nfs3_open(clnt, path, O_TRUNC, 0, NULL, &nf), 0);
		CK(lx_nfs3_file_pread(nf, buf, sizeof(buf), 0, &n), 0);
		CK(n, 0);
		CK(lx_nfs3_file_close(nf), 0);
		CK(lx_nfs3_open(clnt, topdir, 0, 0, NULL, &nf), -EISDIR);
		CK(lx_nfs3_remove(clnt, &dir, "opened", &wc), 0);
	}
	report("procs", fails == before,
	       "NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE "
	       "MKDIR SYMLINK MKNOD REMOVE RMDIR RENAME LINK FSSTAT FSINFO "
	       "PATHCONF COMMIT and their errors: results and disk agree");
}

static void test_mount_procs(void)
{
	struct lx_nfs3_opts o;
	struct lx_rpc_clnt *mc;
	struct lx_nfs3_mnt_res mr;
	struct lx_nfs3_mnt_entry ent[16];
	char strs[4096], msg[256];
	struct lx_nfs3_mnt_list ml = {
		.ent = ent, .cap = 16, .strbuf = strs, .strsize = sizeof(strs)};
	unsigned int i;
	bool found = false;
	int before = fails, r;

	base_opts(&o, msg, sizeof(msg));
	r = lx_nfs3_mnt_clnt_create(&mc, &o);
	CK(r, 0);
	if (r)
		goto out;
	CK(lx_nfs3_mnt_null(mc), 0);
	CK(lx_nfs3_mnt_mnt(mc, export_, &mr), 0);
	CK(mr.fh.len, lx_nfs3_root(clnt)->len);
	CK(mr.nflavors >= 1, 1);
	r = lx_nfs3_mnt_mnt(mc, "/no/such/export", &mr);
	CK(r == -EACCES || r == -ENOENT, 1);
	CK(lx_nfs3_mnt_export(mc, &ml), 0);
	for (i = 0; i < ml.n; i++)
		found |= !strcmp(ent[i].dir, export_);
	CK(found, 1);
	CK(lx_nfs3_mnt_dump(mc, &ml), 0);
	CK(lx_nfs3_mnt_umnt(mc, export_), 0);
	CK(lx_nfs3_mnt_umntall(mc), 0);
	lx_rpc_destroy(mc);
out:
	report("mount-procs", fails == before,
	       "MOUNT NULL MNT (and a refused path) EXPORT DUMP UMNT UMNTALL "
	       "over TCP");
}

/* -------------------------------------------------------------- async */

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int status[8];
};

static void cb(struct lx_call *call, int status, void *arg)
{
	struct waiter *w = arg;

	(void)call;
	pthread_mutex_lock(&w->lock);
	w->status[w->done++] = status;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void wait_n(struct waiter *w, int n)
{
	pthread_mutex_lock(&w->lock);
	while (w->done < n)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void test_async(void)
{
	struct waiter w = {
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}};
	struct lx_call calls[5];
	struct lx_nfs3_fh f = mkfile("async");
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_wcc_res wc;
	struct iovec iov = {(void *)"async data", 10};
	char out[32];
	int i, ok = 0, noent = 0, before = fails;

	for (i = 0; i < 5; i++) {
		memset(&calls[i], 0, sizeof(calls[i]));
		calls[i].done = cb;
		calls[i].arg = &w;
		calls[i].owner = 7;
	}
	CK(lx_nfs3_null_async(clnt, &calls[0]), 0);
	CK(lx_nfs3_write_async(clnt, &calls[1], &f, 0, &iov, 1,
			       LX_NFS3_FILE_SYNC, &wr),
	   0);
	CK(lx_nfs3_getattr_async(clnt, &calls[2], &dir, &gr), 0);
	CK(lx_nfs3_lookup_async(clnt, &calls[3], &dir, "missing", &lr), 0);
	wait_n(&w, 4);
	for (i = 0; i < 4; i++) {
		ok += w.status[i] == 0;
		noent += w.status[i] == -ENOENT;
	}
	CK(ok, 3);
	CK(noent, 1);
	CK(calls[3].proto_status, LX_NFS3ERR_NOENT);
	CK(wr.count, 10);
	CK(gr.attr.type, NF3DIR);
	CK(lx_nfs3_read_buf_async(clnt, &calls[4], &f, 0, sizeof(out), out,
				  &rr),
	   0);
	wait_n(&w, 5);
	CK(w.status[4], 0);
	CK(rr.count, 10);
	CK(memcmp(out, "async data", 10), 0);
	CK(lx_nfs3_remove(clnt, &dir, "async", &wc), 0);
	report("async", fails == before,
	       "NULL WRITE GETATTR LOOKUP in flight together, then READ");
}

/* ----------------------------------------------------------- data */

static void test_data(void)
{
	uint8_t *src = malloc(total), *back = malloc(total);
	struct lx_xprt_rdma_stats s0, s1;
	struct lx_nfs3_file_opts fo = {.stable = LX_NFS3_UNSTABLE};
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_wcc_res wc;
	struct lx_nfs3_file *f = NULL;
	struct iovec riov;
	char path[128];
	size_t n = 0, off, got = 0;
	double t0, dt;
	ssize_t k;
	int r, fd;

	if (!src || !back) {
		report("write", false, "out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/data", topdir);
	r = lx_nfs3_open(clnt, path, O_CREAT | O_TRUNC, 0644, &fo, &f);
	if (!report("open", !r, "%s: %s", path, lx_strerror(r)))
		goto out;
	fill_random(src, total, 1);
	s0 = rstats();
	t0 = now_s();
	r = lx_nfs3_file_pwrite(f, src, total, 0);
	if (!r)
		r = lx_nfs3_file_fsync(f);
	dt = now_s() - t0;
	s1 = rstats();
	report("write",
	       !r && s1.read_chunks - s0.read_chunks >=
			       total / lx_nfs3_wsize(clnt),
	       "lx_nfs3_file_pwrite + COMMIT of %zu bytes in %u-byte WRITEs: %s, "
	       "%.1f MiB/s; Read chunks +%llu",
	       total, lx_nfs3_wsize(clnt), lx_strerror(r),
	       (double)total / (1 << 20) / dt,
	       (unsigned long long)(s1.read_chunks - s0.read_chunks));
	fd = open(disk("data"), O_RDONLY);
	got = 0;
	while (fd >= 0 && got < total &&
	       (k = pread(fd, back + got, total - got, (off_t)got)) > 0)
		got += (size_t)k;
	if (fd >= 0)
		close(fd);
	off = first_diff(src, back, got);
	report("write-disk", got == total && off == (size_t)-1,
	       "the file on disk: %zu bytes, %s", got,
	       off == (size_t)-1 ? "identical" : "DIFFERS");
	if (off != (size_t)-1)
		printf("  first difference at offset %zu\n", off);

	/* written by the kernel, read through RPC-over-RDMA */
	fill_random(src, total, 2);
	fd = open(disk("data"), O_WRONLY);
	r = fd < 0 || pwrite(fd, src, total, 0) != (ssize_t)total ? -EIO : 0;
	if (fd >= 0)
		close(fd);
	memset(back, 0, total);
	s0 = rstats();
	t0 = now_s();
	if (!r)
		r = lx_nfs3_file_pread(f, back, total, 0, &n);
	dt = now_s() - t0;
	s1 = rstats();
	off = first_diff(src, back, n);
	report("read",
	       !r && n == total && off == (size_t)-1 &&
		       s1.write_chunks - s0.write_chunks >=
			       total / lx_nfs3_rsize(clnt),
	       "lx_nfs3_file_pread of %zu bytes written on disk, %u-byte READs: "
	       "%s, %zu read, %s, %.1f MiB/s; Write chunks +%llu",
	       total, lx_nfs3_rsize(clnt), lx_strerror(r), n,
	       off == (size_t)-1 ? "identical" : "DIFFERENT",
	       (double)n / (1 << 20) / dt,
	       (unsigned long long)(s1.write_chunks - s0.write_chunks));
	if (off != (size_t)-1)
		printf("  first difference at offset %zu\n", off);

	/* a small READ comes back inline: no Write chunk */
	memset(back, 0, 1000);
	riov.iov_base = back;
	riov.iov_len = 1000;
	s0 = rstats();
	r = lx_nfs3_read(clnt, lx_nfs3_file_fh(f), 5, 1000, &riov, 1, &rr);
	s1 = rstats();
	report("read-inline",
	       !r && rr.count == 1000 && !memcmp(back, src + 5, 1000) &&
		       s1.write_chunks == s0.write_chunks,
	       "1000 bytes at offset 5: %s, %u bytes, %s, Write chunks +%llu",
	       lx_strerror(r), rr.count,
	       memcmp(back, src + 5, 1000) ? "DIFFERENT" : "identical",
	       (unsigned long long)(s1.write_chunks - s0.write_chunks));
	lx_nfs3_file_close(f);
	r = lx_nfs3_remove(clnt, &dir, "data", &wc);
	report("remove", !r && access(disk("data"), F_OK) != 0, "data: %s",
	       lx_strerror(r));
out:
	free(src);
	free(back);
}

/* ----------------------------------------------------- directories */

struct listing {
	unsigned char *seen;
	unsigned int n, dups, others, attr_bad, fh_missing;
};

static int on_entry(const struct lx_nfs3_dirent *e, void *arg)
{
	struct listing *l = arg;
	char name[160];
	struct stat st;
	unsigned int k;

	l->n++;
	if (sscanf(e->name, "entry-with-a-rather-long-name-to-fill-%u", &k) !=
		    1 ||
	    k >= nfiles) {
		l->others++;
		return 0;
	}
	l->dups += l->seen[k]++ != 0;
	l->fh_missing += !e->fh_present;
	snprintf(name, sizeof(name), "many/%s", e->name);
	if (!e->attr.present || stat(disk(name), &st) ||
	    e->attr.attr.fileid != (uint64_t)st.st_ino ||
	    e->fileid != (uint64_t)st.st_ino ||
	    e->attr.attr.size != (uint64_t)st.st_size ||
	    (e->attr.attr.mode & 07777) != (st.st_mode & 07777))
		l->attr_bad++;
	return 0;
}

static void test_readdir(void)
{
	struct listing l = {0};
	struct lx_xprt_rdma_stats s0, s1;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_dirent *ent = calloc(1024, sizeof(*ent));
	char *names = malloc(65536), name[128];
	struct lx_nfs3_dirbuf db = {ent, 1024, names, 65536};
	struct lx_nfs3_readdir_res rr;
	unsigned int i, missing = 0, calls = 0, seen = 0;
	uint64_t cookie = 0;
	uint8_t verf[LX_NFS3_VERFSIZE] = {0};
	double t0;
	int r, fd;

	l.seen = calloc(nfiles, 1);
	if (!l.seen || !ent || !names) {
		report("readdirplus", false, "out of memory");
		goto out;
	}
	mkdir(disk("many"), 0755);
	for (i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name),
			 "many/entry-with-a-rather-long-name-to-fill-%u", i);
		fd = open(disk(name), O_CREAT | O_WRONLY, 0600 + (i % 64));
		if (fd >= 0) {
			/* sizes differ: attributes are compared */
			if (ftruncate(fd, i))
				fails++;
			close(fd);
		}
	}
	r = lx_nfs3_lookup(clnt, &dir, "many", &lr);
	if (!report("lookup", !r, "many: %s", lx_strerror(r)))
		goto out;
	s0 = rstats();
	t0 = now_s();
	r = lx_nfs3_readdirplus_iter(clnt, &lr.fh, 0, on_entry, &l);
	s1 = rstats();
	for (i = 0; i < nfiles; i++)
		missing += !l.seen[i];
	report("readdirplus",
	       !r && !missing && !l.dups && !l.others && !l.attr_bad &&
		       !l.fh_missing && s1.reply_chunks > s0.reply_chunks,
	       "%u entries of %u files in %.0f ms: %s; %u missing, %u twice, "
	       "%u unknown, %u with attributes unlike stat(2), %u without a "
	       "handle; Reply chunks +%llu",
	       l.n, nfiles, (now_s() - t0) * 1e3, lx_strerror(r), missing,
	       l.dups, l.others, l.attr_bad, l.fh_missing,
	       (unsigned long long)(s1.reply_chunks - s0.reply_chunks));

	/* plain READDIR by hand, the largest reply the buffer allows */
	memset(l.seen, 0, nfiles);
	s0 = rstats();
	do {
		r = lx_nfs3_readdir(clnt, &lr.fh, cookie, verf,
				    lx_nfs3_dirsize(clnt), &db, &rr);
		calls++;
		if (r)
			break;
		memcpy(verf, rr.cookieverf, sizeof(verf));
		for (i = 0; i < rr.n; i++) {
			unsigned int k;

			cookie = ent[i].cookie;
			if (sscanf(ent[i].name,
				   "entry-with-a-rather-long-name-to-fill-%u",
				   &k) == 1 &&
			    k < nfiles && !l.seen[k]++)
				seen++;
		}
	} while (!rr.eof && calls < 10000);
	s1 = rstats();
	report("readdir",
	       !r && rr.eof && seen == nfiles &&
		       s1.reply_chunks - s0.reply_chunks >= calls - 1,
	       "%u calls of up to %u bytes: %s, %u of %u names; Reply chunks "
	       "+%llu",
	       calls, lx_nfs3_dirsize(clnt), lx_strerror(r), seen, nfiles,
	       (unsigned long long)(s1.reply_chunks - s0.reply_chunks));
	for (i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name),
			 "many/entry-with-a-rather-long-name-to-fill-%u", i);
		unlink(disk(name));
	}
	{
		struct lx_nfs3_wcc_res wc;

		r = lx_nfs3_rmdir(clnt, &dir, "many", &wc);
		report("rmdir", !r && access(disk("many"), F_OK) != 0,
		       "many: %s", lx_strerror(r));
	}
out:
	free(l.seen);
	free(ent);
	free(names);
}

/* --------------------------------------------- large directory replies */

#define BIGNAME "big-entry-with-a-long-name-to-fill-the-reply-%05u"

/* bytes an entry takes in a READDIR(PLUS) reply (RFC 1813 entry3,
 * entryplus3): what the server had to fit in count / maxcount */
static size_t ent_xdr(const struct lx_nfs3_dirent *e, bool plus)
{
	size_t n = 4 + 8 + 4 + ((e->namelen + 3u) & ~3u) + 8;

	if (plus)
		n += 4 + (e->attr.present ? 84 : 0) + 4 +
		     (e->fh_present ? 4 + ((e->fh.len + 3u) & ~3u) : 0);
	return n;
}

struct bigrun {
	unsigned char *seen;
	unsigned int calls, n, dups, others, attr_bad, fh_missing;
	size_t first_bytes, max_bytes; /* entry bytes of replies */
};

/* READDIR(PLUS) of "big" with count (and maxcount) @count to the end,
 * each entry checked against the disk. */
static int big_list(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		    bool plus, uint32_t count, unsigned int max_calls,
		    struct bigrun *b)
{
	unsigned int cap = count / 24 + 1;
	struct lx_nfs3_dirent *ent = calloc(cap, sizeof(*ent));
	char *names = malloc(count);
	struct lx_nfs3_dirbuf db = {ent, cap, names, count};
	uint8_t verf[LX_NFS3_VERFSIZE] = {0};
	struct lx_nfs3_readdir_res rr;
	uint64_t cookie = 0;
	unsigned int i, k;
	char name[160];
	struct stat st;
	int r = -ENOMEM;

	if (!ent || !names)
		goto out;
	do {
		size_t bytes = 0;

		r = plus ? lx_nfs3_readdirplus(c, fh, cookie, verf, count,
					       count, &db, &rr) :
			   lx_nfs3_readdir(c, fh, cookie, verf, count, &db,
					   &rr);
		b->calls++;
		if (r)
			break;
		memcpy(verf, rr.cookieverf, sizeof(verf));
		for (i = 0; i < rr.n; i++) {
			const struct lx_nfs3_dirent *e = &ent[i];

			bytes += ent_xdr(e, plus);
			cookie = e->cookie;
			if (sscanf(e->name, BIGNAME, &k) != 1 || k >= nbig) {
				b->others += strcmp(e->name, ".") &&
					     strcmp(e->name, "..");
				continue;
			}
			b->n++;
			b->dups += b->seen[k]++ != 0;
			snprintf(name, sizeof(name), "big/%s", e->name);
			if (stat(disk(name), &st) ||
			    e->fileid != (uint64_t)st.st_ino ||
			    (plus &&
			     (!e->attr.present ||
			      e->attr.attr.fileid != (uint64_t)st.st_ino ||
			      e->attr.attr.size != (uint64_t)st.st_size ||
			      (e->attr.attr.mode & 07777) !=
				      (st.st_mode & 07777))))
				b->attr_bad++;
			if (plus && !e->fh_present)
				b->fh_missing++;
		}
		if (b->calls == 1)
			b->first_bytes = bytes;
		if (bytes > b->max_bytes)
			b->max_bytes = bytes;
	} while (!rr.eof && b->calls < max_calls);
out:
	free(ent);
	free(names);
	return r;
}

static void big_report(const char *what, int r, const struct bigrun *b,
		       const struct lx_xprt_rdma_stats *s0,
		       const struct lx_xprt_rdma_stats *s1, double ms)
{
	unsigned int i, missing = 0;

	for (i = 0; i < nbig; i++)
		missing += !b->seen[i];
	/* a reply of about count bytes: more than half of it used, far
	 * above one receive buffer (buf_size 16 KiB) */
	report(what,
	       !r && !missing && !b->dups && !b->others && !b->attr_bad &&
		       !b->fh_missing && b->max_bytes > bigcount / 2 &&
		       s1->reply_chunks - s0->reply_chunks >= b->calls &&
		       s1->win_live == 0 && s1->rdma_errors == s0->rdma_errors,
	       "count %u: %u calls in %.0f ms: %s; %u of %u entries (%u "
	       "missing, %u twice, %u unknown, %u unlike stat(2), %u without "
	       "a handle); entries of the first reply %zu bytes, largest %zu; "
	       "Reply chunks +%llu, windows bound +%llu (invalidated: %llu "
	       "by nfsd, %llu by us), live %llu, RDMA errors +%llu",
	       bigcount, b->calls, ms, lx_strerror(r), b->n, nbig, missing,
	       b->dups, b->others, b->attr_bad, b->fh_missing, b->first_bytes,
	       b->max_bytes,
	       (unsigned long long)(s1->reply_chunks - s0->reply_chunks),
	       (unsigned long long)(s1->win_binds - s0->win_binds),
	       (unsigned long long)(s1->win_remote_inv - s0->win_remote_inv),
	       (unsigned long long)(s1->win_local_inv - s0->win_local_inv),
	       (unsigned long long)s1->win_live,
	       (unsigned long long)(s1->rdma_errors - s0->rdma_errors));
}

/* READLINK of a long target over a 1 KiB inline threshold: the reply
 * (about 1.1 KiB) comes through a Reply chunk. */
static void big_readlink(void)
{
	static const struct lx_xprt_rdma_opts ro = {
		.ack_timeout = 20, .inline_send = 1024, .inline_recv = 1024};
	struct lx_xprt_rdma_stats s0 = {0}, s1 = {0};
	struct lx_nfs3_readlink_res rl;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_clnt *c2 = NULL;
	struct lx_nfs3_opts o;
	char target[1001], back[1100], msg[256] = "";
	unsigned int i;
	int r;

	for (i = 0; i < 1000; i++)
		target[i] = (i % 50 == 49) ? '/' : (char)('a' + i % 26);
	target[1000] = '\0';
	unlink(disk("longlink"));
	if (symlink(target, disk("longlink"))) {
		report("readlink-long", false, "symlink(2): %s",
		       strerror(errno));
		return;
	}
	base_opts(&o, msg, sizeof(msg));
	o.rdma = &ro;
	r = lx_nfs3_create(&c2, &o);
	if (!report("mount-inline1k", !r, "%s%s%s", lx_strerror(r),
		    r ? ": " : "", msg))
		goto out;
	r = lx_nfs3_lookup(c2, &dir, "longlink", &lr);
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c2), 0), &s0);
	memset(back, 0, sizeof(back));
	if (!r)
		r = lx_nfs3_readlink(c2, &lr.fh, back, sizeof(back), &rl);
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c2), 0), &s1);
	report("readlink-long",
	       !r && rl.len == 1000 && !strcmp(back, target) &&
		       s1.inline_recv == 1024 &&
		       s1.reply_chunks > s0.reply_chunks && s1.win_live == 0,
	       "a %zu-byte target, inline %u/%u: %s, %u bytes, %s; Reply "
	       "chunks +%llu, windows live %llu",
	       strlen(target), s1.inline_send, s1.inline_recv, lx_strerror(r),
	       r ? 0 : rl.len,
	       !r && !strcmp(back, target) ? "as readlink(2)" : "DIFFERENT",
	       (unsigned long long)(s1.reply_chunks - s0.reply_chunks),
	       (unsigned long long)s1.win_live);
	lx_nfs3_destroy(c2);
out:
	unlink(disk("longlink"));
}

/* One READDIRPLUS reply of bigcount bytes through a client whose chunk
 * segments are at most 64 KiB: a Reply chunk of several windows, which
 * nfsd 6.1 does not invalidate (more than one key): every one ours. */
static void big_segs(const struct lx_nfs3_fh *fh)
{
	static const struct lx_xprt_rdma_opts ro = {.ack_timeout = 20,
						    .max_seg_size = 65536};
	struct lx_xprt_rdma_stats s0 = {0}, s1 = {0};
	struct lx_nfs3_clnt *c3 = NULL;
	struct lx_nfs3_opts o;
	struct bigrun b;
	char msg[256] = "";
	uint64_t binds;
	int r;

	base_opts(&o, msg, sizeof(msg));
	o.rdma = &ro;
	r = lx_nfs3_create(&c3, &o);
	if (!report("mount-seg64k", !r, "%s%s%s", lx_strerror(r), r ? ": " : "",
		    msg))
		return;
	memset(&b, 0, sizeof(b));
	b.seen = calloc(nbig, 1);
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c3), 0), &s0);
	r = b.seen ? big_list(c3, fh, true, bigcount, 1, &b) : -ENOMEM;
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c3), 0), &s1);
	binds = s1.win_binds - s0.win_binds;
	report("readdirplus-large-segs",
	       !r && b.calls == 1 && b.n && !b.dups && !b.others &&
		       !b.attr_bad && !b.fh_missing &&
		       b.first_bytes > bigcount / 2 &&
		       s1.reply_chunks - s0.reply_chunks == 1 &&
		       binds >= bigcount / 65536 &&
		       s1.win_local_inv - s0.win_local_inv == binds &&
		       s1.win_live == 0,
	       "segments of at most 64 KiB: %s, %u entries in %zu bytes; "
	       "windows bound %llu, invalidated %llu by us and %llu by "
	       "nfsd, live %llu",
	       lx_strerror(r), b.n, b.first_bytes, (unsigned long long)binds,
	       (unsigned long long)(s1.win_local_inv - s0.win_local_inv),
	       (unsigned long long)(s1.win_remote_inv - s0.win_remote_inv),
	       (unsigned long long)s1.win_live);
	free(b.seen);
	lx_nfs3_destroy(c3);
}

/* The same READDIRPLUS through a client whose segments are at most 4 KiB:
 * its Reply chunk stops at 16 of them (64 KiB), nfsd cannot fit the reply
 * and says so (ERR_CHUNK): a clean -EMSGSIZE, nothing left live, and the
 * client goes on. */
static void big_segs_short(const struct lx_nfs3_fh *fh)
{
	static const struct lx_xprt_rdma_opts ro = {.ack_timeout = 20,
						    .max_seg_size = 4096};
	struct lx_xprt_rdma_stats s0 = {0}, s1 = {0};
	struct lx_nfs3_clnt *c4 = NULL;
	struct lx_nfs3_opts o;
	struct bigrun b;
	char msg[256] = "";
	int r, r2;

	base_opts(&o, msg, sizeof(msg));
	o.rdma = &ro;
	r = lx_nfs3_create(&c4, &o);
	if (!report("mount-seg4k", !r, "%s%s%s", lx_strerror(r), r ? ": " : "",
		    msg))
		return;
	memset(&b, 0, sizeof(b));
	b.seen = calloc(nbig, 1);
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c4), 0), &s0);
	r = b.seen ? big_list(c4, fh, true, bigcount, 1, &b) : -ENOMEM;
	lx_xprt_rdma_stats(lx_rpc_xprt(lx_nfs3_rpc(c4), 0), &s1);
	r2 = lx_nfs3_null(c4);
	report("readdirplus-large-short-chunk",
	       r == -EMSGSIZE && s1.win_binds - s0.win_binds == 16 &&
		       s1.rdma_errors - s0.rdma_errors == 1 &&
		       s1.win_live == 0 && !r2,
	       "segments of at most 4 KiB, count %u: %s; windows bound %llu "
	       "(16 x 4 KiB), RDMA errors +%llu, live %llu; NULL after it: "
	       "%s",
	       bigcount, lx_strerror(r),
	       (unsigned long long)(s1.win_binds - s0.win_binds),
	       (unsigned long long)(s1.rdma_errors - s0.rdma_errors),
	       (unsigned long long)s1.win_live, lx_strerror(r2));
	free(b.seen);
	lx_nfs3_destroy(c4);
}

static void test_bigdir(void)
{
	struct lx_xprt_rdma_stats s0, s1;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_wcc_res wc;
	struct bigrun b;
	char name[160];
	unsigned int i;
	double t0;
	int r, fd;

	mkdir(disk("big"), 0755);
	for (i = 0; i < nbig; i++) {
		snprintf(name, sizeof(name), "big/" BIGNAME, i);
		fd = open(disk(name), O_CREAT | O_WRONLY, 0600 + (i % 64));
		if (fd < 0 || ftruncate(fd, i))
			fails++;
		if (fd >= 0)
			close(fd);
	}
	r = lx_nfs3_lookup(clnt, &dir, "big", &lr);
	if (!report("lookup", !r, "big: %s", lx_strerror(r)))
		goto out;

	memset(&b, 0, sizeof(b));
	b.seen = calloc(nbig, 1);
	s0 = rstats();
	t0 = now_s();
	r = b.seen ? big_list(clnt, &lr.fh, true, bigcount, 10000, &b) :
		     -ENOMEM;
	s1 = rstats();
	big_report("readdirplus-large", r, &b, &s0, &s1, (now_s() - t0) * 1e3);
	free(b.seen);

	memset(&b, 0, sizeof(b));
	b.seen = calloc(nbig, 1);
	s0 = rstats();
	t0 = now_s();
	r = b.seen ? big_list(clnt, &lr.fh, false, bigcount, 10000, &b) :
		     -ENOMEM;
	s1 = rstats();
	big_report("readdir-large", r, &b, &s0, &s1, (now_s() - t0) * 1e3);
	free(b.seen);

	big_segs(&lr.fh);
	big_segs_short(&lr.fh);
	big_readlink();
out:
	for (i = 0; i < nbig; i++) {
		snprintf(name, sizeof(name), "big/" BIGNAME, i);
		unlink(disk(name));
	}
	r = lx_nfs3_rmdir(clnt, &dir, "big", &wc);
	report("rmdir", !r && access(disk("big"), F_OK) != 0, "big: %s",
	       lx_strerror(r));
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	struct lx_xprt_rdma_stats st;
	struct lx_nfs3_wcc_res wc;
	int opt, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:e:D:s:n:b:R:o:M:p:")) != -1) {
		switch (opt) {
		case 'a':
			host = optarg;
			break;
		case 'e':
			export_ = optarg;
			break;
		case 'D':
			expdir = optarg;
			break;
		case 's':
			total = (size_t)atol(optarg);
			break;
		case 'n':
			nfiles = (unsigned int)atoi(optarg);
			break;
		case 'b':
			nbig = (unsigned int)atoi(optarg);
			break;
		case 'R':
			bigcount = (unsigned int)atoi(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		case 'M':
			mnt_port = (unsigned int)atoi(optarg);
			break;
		case 'p':
			nfs_port = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: nfs3_lib_rdma [-a IP] [-e EXPORT] "
				"[-D EXPORT_DIR] [-s SIZE] [-n NFILES] "
				"[-b NBIG] [-R DIRCOUNT] [-o SECTION] "
				"[-M MOUNT_PORT] [-p NFS_PORT]\n");
			return 2;
		}
	}
	if (!expdir)
		expdir = export_;
	if (!total || !nfiles || !nbig || bigcount < 4096) {
		fprintf(stderr, "nfs3_lib_rdma: bad -s, -n, -b or -R\n");
		return 2;
	}
	r = do_mount();
	if (r)
		return 1;
#define SECTION(n, fn)                         \
	do {                                   \
		if (!only || !strcmp(only, n)) \
			fn();                  \
	} while (0)
	SECTION("procs", test_procs);
	SECTION("mount-procs", test_mount_procs);
	SECTION("async", test_async);
	SECTION("data", test_data);
	SECTION("readdir", test_readdir);
	SECTION("bigdir", test_bigdir);
	r = lx_nfs3_rmdir(clnt, lx_nfs3_root(clnt), topdir, &wc);
	report("cleanup", !r, "%s: %s", topdir, lx_strerror(r));
	st = rstats();
	printf("rdma: credits %u, chunks read %llu pos0 %llu write %llu reply "
	       "%llu, registrations %llu (%.0f us each), %llu sends in %llu "
	       "doorbells, rdma_errors %llu, bad_headers %llu\n",
	       st.credits, (unsigned long long)st.read_chunks,
	       (unsigned long long)st.pos0_chunks,
	       (unsigned long long)st.write_chunks,
	       (unsigned long long)st.reply_chunks, (unsigned long long)st.regs,
	       st.regs ? (double)st.reg_ns / 1e3 / (double)st.regs : 0.0,
	       (unsigned long long)st.sends,
	       (unsigned long long)st.send_doorbells,
	       (unsigned long long)st.rdma_errors,
	       (unsigned long long)st.bad_headers);
	if (st.rdma_errors || st.bad_headers)
		report("transport", false, "RDMA errors or bad headers");
	lx_nfs3_destroy(clnt);
	printf("%s: %d failure(s)\n", fails ? "FAIL" : "PASS", fails);
	return fails ? 1 : 0;
}
