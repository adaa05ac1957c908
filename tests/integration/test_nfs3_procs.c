// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 and MOUNT v3 against nfs-ganesha (started by tests/servers): every
 * procedure at least once with its expected result, the error statuses a
 * client must tell apart, mount failures with their messages, and the
 * async forms.  Server addresses come from servers.env (XPRT_*).
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>
#include <libxprt/url.h>

#include "helpers/testenv.h"

/*
 * The server as a tool would be given it: the harness's libnfs URL,
 * through libxprt's parser, which must agree with the harness's parts.
 */
static void base_opts(struct lx_nfs3_opts *o)
{
	static struct lx_url url; /* kept: the options point into it */

	if (!url.host && lx_url_parse(test_env("XPRT_NFS_URL"), &url)) {
		fprintf(stderr, "XPRT_NFS_URL: %s\n", url.error);
		exit(1);
	}
	memset(o, 0, sizeof(*o));
	assert_int_equal(lx_url_nfs3_opts(&url, o), 0);
	assert_string_equal(o->host, test_env("XPRT_NFS_HOST"));
	assert_string_equal(o->export_path, test_env("XPRT_NFS_EXPORT"));
	assert_int_equal(o->nfs_port, atoi(test_env("XPRT_NFS_PORT")));
	assert_int_equal(o->mount_port, atoi(test_env("XPRT_MNT_PORT")));
	o->set_ids = true; /* root: the export dir belongs to root */
	o->timeo_ms = 5000;
}

static struct lx_nfs3_clnt *clnt;
static struct lx_nfs3_fh dir; /* this run's directory */
static char dirname_[64];

static int setup(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_create_res cr;
	char msg[256] = "";

	(void)state;
	base_opts(&o);
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	if (lx_nfs3_create(&clnt, &o)) {
		fprintf(stderr, "mount: %s\n", msg);
		return -1;
	}
	snprintf(dirname_, sizeof(dirname_), "procs.%d", (int)getpid());
	if (lx_nfs3_mkdir(clnt, lx_nfs3_root(clnt), dirname_, NULL, &cr) ||
	    !cr.fh_present)
		return -1;
	dir = cr.fh;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lx_nfs3_destroy(clnt);
	return 0;
}

static struct lx_nfs3_fh mkfile(const char *name)
{
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_sattr sa = {.set_mode = true, .mode = 0644};

	assert_int_equal(lx_nfs3_create_file(clnt, &dir, name,
					     LX_NFS3_CREATE_GUARDED, &sa, NULL,
					     &cr),
			 0);
	assert_true(cr.fh_present);
	return cr.fh;
}

/* ---------------------------------------------------------------- tests */

static void test_mount_fsinfo_root(void **state)
{
	const struct lx_nfs3_fsinfo_res *fi = lx_nfs3_fsinfo_cached(clnt);
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_fsstat_res fs;
	struct lx_nfs3_pathconf_res pc;
	struct lx_nfs3_fsinfo_res fi2;

	(void)state;
	assert_int_equal(lx_nfs3_null(clnt), 0);
	assert_int_equal(lx_nfs3_root(clnt)->len, 24); /* ganesha quirk */
	printf("FSINFO: rtmax %u rtpref %u wtmax %u wtpref %u dtpref %u "
	       "maxfilesize %llu props 0x%x\n",
	       fi->rtmax, fi->rtpref, fi->wtmax, fi->wtpref, fi->dtpref,
	       (unsigned long long)fi->maxfilesize, fi->properties);
	assert_true(fi->rtmax >= 4096);
	assert_true(fi->wtmax >= 4096);
	/* ganesha announces 64 MiB but serves 1 MiB: the client caps */
	assert_true(lx_nfs3_rsize(clnt) <= fi->rtmax &&
		    lx_nfs3_rsize(clnt) <= (1u << 20));
	assert_int_equal(lx_nfs3_fsinfo(clnt, lx_nfs3_root(clnt), &fi2), 0);
	assert_int_equal(fi2.rtmax, fi->rtmax);
	assert_int_equal(lx_nfs3_getattr(clnt, lx_nfs3_root(clnt), &gr), 0);
	assert_int_equal(gr.attr.type, NF3DIR);
	assert_int_equal(lx_nfs3_fsstat(clnt, lx_nfs3_root(clnt), &fs), 0);
	assert_true(fs.tbytes > 0 && fs.fbytes <= fs.tbytes);
	assert_int_equal(lx_nfs3_pathconf(clnt, lx_nfs3_root(clnt), &pc), 0);
	assert_true(pc.name_max >= 255);
}

static void test_create_lookup_errors(void **state)
{
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_fh f;
	uint8_t verf[LX_NFS3_VERFSIZE] = {1, 2, 3, 4, 5, 6, 7, 8};

	(void)state;
	f = mkfile("c1");
	/* GUARDED on an existing name: EXIST */
	assert_int_equal(lx_nfs3_create_file(clnt, &dir, "c1",
					     LX_NFS3_CREATE_GUARDED, NULL, NULL,
					     &cr),
			 -EEXIST);
	assert_int_equal(cr.status, LX_NFS3ERR_EXIST);
	/* UNCHECKED on an existing name: fine */
	assert_int_equal(lx_nfs3_create_file(clnt, &dir, "c1",
					     LX_NFS3_CREATE_UNCHECKED, NULL,
					     NULL, &cr),
			 0);
	/* EXCLUSIVE twice with the same verifier: the retry succeeds */
	assert_int_equal(lx_nfs3_create_file(clnt, &dir, "c2",
					     LX_NFS3_CREATE_EXCLUSIVE, NULL,
					     verf, &cr),
			 0);
	assert_int_equal(lx_nfs3_create_file(clnt, &dir, "c2",
					     LX_NFS3_CREATE_EXCLUSIVE, NULL,
					     verf, &cr),
			 0);
	assert_int_equal(lx_nfs3_lookup(clnt, &dir, "c1", &lr), 0);
	assert_int_equal(lr.fh.len, f.len);
	assert_memory_equal(lr.fh.data, f.data, f.len);
	{
		struct lx_nfs3_stats st0, st;

		lx_nfs3_stats(clnt, &st0);
		assert_int_equal(lx_nfs3_lookup(clnt, &dir, "nope", &lr),
				 -ENOENT);
		lx_nfs3_stats(clnt, &st); /* an NFS error, counted */
		assert_int_equal(st.nfs_errors, st0.nfs_errors + 1);
		assert_int_equal(st.jukebox, st0.jukebox);
	}
	assert_int_equal(lr.status, LX_NFS3ERR_NOENT);
	/* a file used as a directory */
	assert_int_equal(lx_nfs3_lookup(clnt, &f, "x", &lr), -ENOTDIR);
	assert_int_equal(lx_nfs3_mkdir(clnt, &dir, "c1", NULL, &cr), -EEXIST);
}

static void test_read_write_commit_access(void **state)
{
	struct lx_nfs3_fh f = mkfile("rw");
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_commit_res cm;
	struct lx_nfs3_access_res ar;
	char buf[64] = {0};
	struct iovec iov[2] = {{(void *)"hello ", 6}, {(void *)"world", 5}};
	struct iovec riov = {buf, sizeof(buf)};

	(void)state;
	assert_int_equal(
		lx_nfs3_write(clnt, &f, 0, iov, 2, LX_NFS3_FILE_SYNC, &wr), 0);
	assert_int_equal(wr.count, 11);
	assert_int_equal(wr.committed, LX_NFS3_FILE_SYNC);
	assert_true(wr.wcc.after.present);
	assert_int_equal(wr.wcc.after.attr.size, 11);
	/* UNSTABLE, then COMMIT with the same verifier */
	assert_int_equal(
		lx_nfs3_write(clnt, &f, 11, iov + 1, 1, LX_NFS3_UNSTABLE, &wr),
		0);
	assert_int_equal(lx_nfs3_commit(clnt, &f, 0, 0, &cm), 0);
	assert_memory_equal(cm.verf, wr.verf, LX_NFS3_VERFSIZE);
	assert_int_equal(lx_nfs3_read(clnt, &f, 0, sizeof(buf), &riov, 1, &rr),
			 0);
	assert_int_equal(rr.count, 16);
	assert_true(rr.eof);
	assert_memory_equal(buf, "hello worldworld", 16);
	/* a read past the end: 0 bytes, eof */
	assert_int_equal(lx_nfs3_read(clnt, &f, 100, 10, &riov, 1, &rr), 0);
	assert_int_equal(rr.count, 0);
	assert_true(rr.eof);
	assert_int_equal(
		lx_nfs3_access(clnt, &f,
			       LX_NFS3_ACCESS_READ | LX_NFS3_ACCESS_MODIFY,
			       &ar),
		0);
	assert_int_equal(ar.access & LX_NFS3_ACCESS_READ, LX_NFS3_ACCESS_READ);
	/* READ and WRITE of a directory: ISDIR */
	assert_int_equal(lx_nfs3_read(clnt, &dir, 0, 10, &riov, 1, &rr),
			 -EISDIR);
	assert_int_equal(rr.status, LX_NFS3ERR_ISDIR);
	assert_int_equal(
		lx_nfs3_write(clnt, &dir, 0, iov, 1, LX_NFS3_FILE_SYNC, &wr),
		-EISDIR);
}

static void test_setattr_guard(void **state)
{
	struct lx_nfs3_fh f = mkfile("sa");
	struct lx_nfs3_sattr sa = {.set_size = true, .size = 4096};
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_wcc_res wr;
	struct lx_nfs3_time bad = {1, 2};

	(void)state;
	assert_int_equal(lx_nfs3_setattr(clnt, &f, &sa, NULL, &wr), 0);
	assert_int_equal(lx_nfs3_getattr(clnt, &f, &gr), 0);
	assert_int_equal(gr.attr.size, 4096);
	sa.size = 10;
	/* the right ctime passes the guard, a wrong one: NOT_SYNC */
	assert_int_equal(lx_nfs3_setattr(clnt, &f, &sa, &bad, &wr), -EBUSY);
	assert_int_equal(wr.status, LX_NFS3ERR_NOT_SYNC);
	assert_int_equal(lx_nfs3_setattr(clnt, &f, &sa, &gr.attr.ctime, &wr),
			 0);
	sa.set_size = false;
	sa.set_mode = true;
	sa.mode = 0600;
	sa.mtime_how = LX_NFS3_SET_TO_CLIENT_TIME;
	sa.mtime.sec = 1000000;
	assert_int_equal(lx_nfs3_setattr(clnt, &f, &sa, NULL, &wr), 0);
	assert_int_equal(lx_nfs3_getattr(clnt, &f, &gr), 0);
	assert_int_equal(gr.attr.size, 10);
	assert_int_equal(gr.attr.mode & 07777, 0600);
	assert_int_equal(gr.attr.mtime.sec, 1000000);
}

static void test_symlink_readlink_mknod_link_rename(void **state)
{
	struct lx_nfs3_fh f = mkfile("orig");
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_readlink_res rl;
	struct lx_nfs3_link_res lk;
	struct lx_nfs3_rename_res rn;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_getattr_res gr;
	char buf[64];
	int err;

	(void)state;
	assert_int_equal(
		lx_nfs3_symlink(clnt, &dir, "sl", NULL, "some/target", &cr), 0);
	assert_true(cr.fh_present);
	assert_int_equal(lx_nfs3_readlink(clnt, &cr.fh, buf, sizeof(buf), &rl),
			 0);
	assert_string_equal(buf, "some/target");
	assert_int_equal(rl.len, 11);
	/* a buffer too small for the target */
	assert_int_equal(lx_nfs3_readlink(clnt, &cr.fh, buf, 5, &rl),
			 -ENAMETOOLONG);
	/* READLINK of a regular file: INVAL */
	assert_int_equal(lx_nfs3_readlink(clnt, &f, buf, sizeof(buf), &rl),
			 -EINVAL);

	err = lx_nfs3_mknod(clnt, &dir, "fifo", NF3FIFO, NULL, 0, 0, &cr);
	printf("MKNOD fifo: %d (%s)\n", err, lx_strerror(err));
	assert_true(err == 0 || err == -ENOTSUP);
	if (!err) {
		assert_int_equal(lx_nfs3_lookup(clnt, &dir, "fifo", &lr), 0);
		assert_int_equal(lr.attr.attr.type, NF3FIFO);
	}

	assert_int_equal(lx_nfs3_link(clnt, &f, &dir, "hard", &lk), 0);
	assert_int_equal(lx_nfs3_getattr(clnt, &f, &gr), 0);
	assert_int_equal(gr.attr.nlink, 2);
	assert_int_equal(lx_nfs3_link(clnt, &f, &dir, "hard", &lk), -EEXIST);
	assert_int_equal(lx_nfs3_rename(clnt, &dir, "hard", &dir, "moved", &rn),
			 0);
	assert_int_equal(lx_nfs3_lookup(clnt, &dir, "hard", &lr), -ENOENT);
	assert_int_equal(lx_nfs3_lookup(clnt, &dir, "moved", &lr), 0);
	assert_int_equal(lx_nfs3_rename(clnt, &dir, "hard", &dir, "x", &rn),
			 -ENOENT);
}

static void test_remove_rmdir_errors(void **state)
{
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_wcc_res wr;
	struct lx_nfs3_fh sub;

	(void)state;
	assert_int_equal(lx_nfs3_mkdir(clnt, &dir, "sub", NULL, &cr), 0);
	sub = cr.fh;
	assert_int_equal(lx_nfs3_create_file(clnt, &sub, "inner",
					     LX_NFS3_CREATE_GUARDED, NULL, NULL,
					     &cr),
			 0);
	assert_int_equal(lx_nfs3_rmdir(clnt, &dir, "sub", &wr), -ENOTEMPTY);
	assert_int_equal(wr.status, LX_NFS3ERR_NOTEMPTY);
	assert_int_equal(lx_nfs3_rmdir(clnt, &sub, "inner", &wr), -ENOTDIR);
	assert_int_equal(lx_nfs3_remove(clnt, &sub, "inner", &wr), 0);
	assert_int_equal(lx_nfs3_remove(clnt, &sub, "inner", &wr), -ENOENT);
	assert_int_equal(lx_nfs3_rmdir(clnt, &dir, "sub", &wr), 0);
	assert_int_equal(lx_nfs3_rmdir(clnt, &dir, "sub", &wr), -ENOENT);
}

static void test_forged_handle(void **state)
{
	struct lx_nfs3_fh forged = *lx_nfs3_root(clnt);
	struct lx_nfs3_getattr_res gr;
	unsigned int i;
	int err;

	(void)state;
	for (i = 8; i < forged.len; i++)
		forged.data[i] ^= 0x5a;
	err = lx_nfs3_getattr(clnt, &forged, &gr);
	printf("GETATTR of a forged handle: %d %s (%s)\n", err,
	       lx_nfs3_stat_name(gr.status), lx_strerror(err));
	assert_true(err == -ESTALE || err == -EBADF);
	forged.len = 3;
	err = lx_nfs3_getattr(clnt, &forged, &gr);
	printf("GETATTR of a 3-byte handle: %d %s\n", err,
	       lx_nfs3_stat_name(gr.status));
	assert_true(err == -ESTALE || err == -EBADF);
}

static void test_readdir_and_plus(void **state)
{
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_dirent ent[64];
	char names[8192];
	struct lx_nfs3_dirbuf db = {ent, 64, names, sizeof(names)};
	struct lx_nfs3_readdir_res rr;
	struct lx_nfs3_fh sub;
	unsigned int i, seen = 0;

	(void)state;
	assert_int_equal(lx_nfs3_mkdir(clnt, &dir, "rd", NULL, &cr), 0);
	sub = cr.fh;
	assert_int_equal(lx_nfs3_create_file(clnt, &sub, "a",
					     LX_NFS3_CREATE_GUARDED, NULL, NULL,
					     &cr),
			 0);
	assert_int_equal(lx_nfs3_create_file(clnt, &sub, "bb",
					     LX_NFS3_CREATE_GUARDED, NULL, NULL,
					     &cr),
			 0);
	assert_int_equal(lx_nfs3_readdir(clnt, &sub, 0, NULL, 4096, &db, &rr),
			 0);
	assert_true(rr.eof);
	for (i = 0; i < rr.n; i++)
		seen |= !strcmp(ent[i].name, "a")  ? 1 :
			!strcmp(ent[i].name, "bb") ? 2 :
						     0;
	assert_int_equal(seen, 3);
	seen = 0;
	assert_int_equal(
		lx_nfs3_readdirplus(clnt, &sub, 0, NULL, 4096, 8192, &db, &rr),
		0);
	for (i = 0; i < rr.n; i++) {
		if (!strcmp(ent[i].name, "bb")) {
			assert_true(ent[i].attr.present);
			assert_int_equal(ent[i].attr.attr.type, NF3REG);
			assert_true(ent[i].fh_present);
			seen = 1;
		}
	}
	assert_int_equal(seen, 1);
	/* READDIR of a file: NOTDIR */
	assert_int_equal(lx_nfs3_create_file(clnt, &sub, "c",
					     LX_NFS3_CREATE_GUARDED, NULL, NULL,
					     &cr),
			 0);
	assert_int_equal(lx_nfs3_readdir(clnt, &cr.fh, 0, NULL, 4096, &db, &rr),
			 -ENOTDIR);
}

static void test_lookup_path_open(void **state)
{
	struct lx_nfs3_fh fh;
	struct lx_nfs3_fattr a;
	struct lx_nfs3_file *f;
	char path[128], buf[16];
	size_t n;

	(void)state;
	snprintf(path, sizeof(path), "/%s/op/", dirname_);
	assert_int_equal(lx_nfs3_lookup_path(clnt, path, &fh, NULL), -ENOENT);
	snprintf(path, sizeof(path), "%s/opened", dirname_);
	assert_int_equal(lx_nfs3_open(clnt, path, 0, 0, NULL, &f), -ENOENT);
	assert_int_equal(
		lx_nfs3_open(clnt, path, O_CREAT | O_EXCL, 0640, NULL, &f), 0);
	assert_int_equal(lx_nfs3_file_pwrite(f, "abcdef", 6, 0), 0);
	assert_int_equal(lx_nfs3_file_close(f), 0);
	assert_int_equal(
		lx_nfs3_open(clnt, path, O_CREAT | O_EXCL, 0640, NULL, &f),
		-EEXIST);
	assert_int_equal(lx_nfs3_lookup_path(clnt, path, &fh, &a), 0);
	assert_int_equal(a.size, 6);
	assert_int_equal(a.mode & 0777, 0640);
	assert_int_equal(lx_nfs3_open(clnt, path, O_TRUNC, 0, NULL, &f), 0);
	assert_int_equal(lx_nfs3_file_pread(f, buf, sizeof(buf), 0, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(lx_nfs3_file_close(f), 0);
	assert_int_equal(lx_nfs3_open(clnt, dirname_, 0, 0, NULL, &f), -EISDIR);
	assert_int_equal(lx_nfs3_lookup_path(clnt, "/", &fh, &a), 0);
	assert_int_equal(a.type, NF3DIR);
}

/* ---------------------------------------------------------------- MOUNT */

static void test_mount_procs(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_rpc_clnt *mc;
	struct lx_nfs3_mnt_res mr;
	struct lx_nfs3_mnt_entry ent[16];
	char strs[4096];
	struct lx_nfs3_mnt_list ml = {
		.ent = ent, .cap = 16, .strbuf = strs, .strsize = sizeof(strs)};
	unsigned int i;
	bool found = false;

	(void)state;
	base_opts(&o);
	assert_int_equal(lx_nfs3_mnt_clnt_create(&mc, &o), 0);
	assert_int_equal(lx_nfs3_mnt_null(mc), 0);
	assert_int_equal(lx_nfs3_mnt_mnt(mc, o.export_path, &mr), 0);
	assert_int_equal(mr.fh.len, lx_nfs3_root(clnt)->len);
	assert_true(mr.nflavors >= 1);
	/* ganesha says ACCES, not NOENT, for a path it does not export
	 * (lx_nfs3_create() then checks EXPORT to say "does not exist") */
	assert_int_equal(lx_nfs3_mnt_mnt(mc, "/no/such/export", &mr), -EACCES);
	assert_int_equal(mr.status, LX_MNT3ERR_ACCES);
	assert_int_equal(lx_nfs3_mnt_export(mc, &ml), 0);
	for (i = 0; i < ml.n; i++) {
		printf("EXPORT %s groups '%s'\n", ent[i].dir, ent[i].host);
		found |= !strcmp(ent[i].dir, o.export_path);
	}
	assert_true(found);
	assert_int_equal(lx_nfs3_mnt_dump(mc, &ml), 0);
	printf("DUMP: %u entries\n", ml.n);
	assert_int_equal(lx_nfs3_mnt_umnt(mc, o.export_path), 0);
	assert_int_equal(lx_nfs3_mnt_umntall(mc), 0);
	lx_rpc_destroy(mc);
}

static void test_mount_errors(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c;
	char msg[256];

	(void)state;
	base_opts(&o);
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	o.export_path = "/not-exported";
	assert_int_equal(lx_nfs3_create(&c, &o), -ENOENT);
	printf("missing export: %s\n", msg);
	assert_non_null(strstr(msg, "does not exist"));
	/* the NFS port is not a MOUNT server: a wrong server */
	base_opts(&o);
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	o.mount_port = o.nfs_port;
	assert_int_equal(lx_nfs3_create(&c, &o), -EPFNOSUPPORT);
	printf("wrong server: %s\n", msg);
	assert_non_null(strstr(msg, "wrong server"));
	/* AUTH_NONE: ganesha wants AUTH_SYS for everything but NULL */
	base_opts(&o);
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	o.auth_none = true;
	{
		/* ganesha lets MNT and FSINFO through, GETATTR is refused */
		struct lx_nfs3_getattr_res gr;
		int err = lx_nfs3_create(&c, &o);

		printf("AUTH_NONE mount: %d\n", err);
		assert_true(err == 0 || err == -EACCES);
		if (!err) {
			err = lx_nfs3_getattr(c, lx_nfs3_root(c), &gr);
			printf("AUTH_NONE GETATTR: %d (%s)\n", err,
			       lx_strerror(err));
			assert_int_equal(err, -EACCES);
			lx_nfs3_destroy(c);
		}
	}
	/* nobody listens: refused */
	base_opts(&o);
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	o.mount_port = 1;
	assert_int_equal(lx_nfs3_create(&c, &o), -ECONNREFUSED);
	printf("no server: %s\n", msg);
}

/* ---------------------------------------------------------------- async */

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int status[8];
};

static void cb(struct lx_call *call, int status, void *arg)
{
	struct waiter *w = arg;

	pthread_mutex_lock(&w->lock);
	w->status[w->done++] = status;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	(void)call;
}

static void wait_n(struct waiter *w, int n)
{
	pthread_mutex_lock(&w->lock);
	while (w->done < n)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void test_async_forms(void **state)
{
	struct waiter w = {
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}};
	struct lx_call calls[5];
	struct lx_nfs3_fh f = mkfile("async");
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_lookup_res lr;
	char out[32];
	struct iovec iov = {(void *)"async data", 10};
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		memset(&calls[i], 0, sizeof(calls[i]));
		calls[i].done = cb;
		calls[i].arg = &w;
		calls[i].owner = 7;
	}
	assert_int_equal(lx_nfs3_null_async(clnt, &calls[0]), 0);
	assert_int_equal(lx_nfs3_write_async(clnt, &calls[1], &f, 0, &iov, 1,
					     LX_NFS3_FILE_SYNC, &wr),
			 0);
	assert_int_equal(lx_nfs3_getattr_async(clnt, &calls[2], &dir, &gr), 0);
	assert_int_equal(
		lx_nfs3_lookup_async(clnt, &calls[3], &dir, "missing", &lr), 0);
	wait_n(&w, 4);
	assert_int_equal(w.done, 4);
	/* one of them failed with NOENT, the others succeeded */
	{
		int ok = 0, noent = 0;

		for (i = 0; i < 4; i++) {
			ok += w.status[i] == 0;
			noent += w.status[i] == -ENOENT;
		}
		assert_int_equal(ok, 3);
		assert_int_equal(noent, 1);
		assert_int_equal(calls[3].proto_status, LX_NFS3ERR_NOENT);
	}
	assert_int_equal(wr.count, 10);
	assert_int_equal(gr.attr.type, NF3DIR);
	assert_int_equal(lx_nfs3_read_buf_async(clnt, &calls[4], &f, 0,
						sizeof(out), out, &rr),
			 0);
	wait_n(&w, 5);
	assert_int_equal(w.status[4], 0);
	assert_int_equal(rr.count, 10);
	assert_memory_equal(out, "async data", 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_fsinfo_root),
		cmocka_unit_test(test_create_lookup_errors),
		cmocka_unit_test(test_read_write_commit_access),
		cmocka_unit_test(test_setattr_guard),
		cmocka_unit_test(test_symlink_readlink_mknod_link_rename),
		cmocka_unit_test(test_remove_rmdir_errors),
		cmocka_unit_test(test_forged_handle),
		cmocka_unit_test(test_readdir_and_plus),
		cmocka_unit_test(test_lookup_path_open),
		cmocka_unit_test(test_mount_procs),
		cmocka_unit_test(test_mount_errors),
		cmocka_unit_test(test_async_forms),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
