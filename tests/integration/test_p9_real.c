// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 9P client against the real servers of tests/servers: diod and
 * ganesha's 9P listener, found through the servers.env variables
 * (XPRT_DIOD_HOST/PORT/ANAME/EXPORT_DIR, XPRT_GANESHA_9P_HOST/PORT/ANAME
 * with XPRT_NFS_EXPORT_DIR); a server whose variables are missing is
 * skipped.
 *
 * Every 9P2000.L message is sent to each server; what each refuses is
 * printed as a table and the known refusals are asserted (observed with
 * diod 1.0.24 and ganesha 4.3):
 *   diod     Tauth ENOENT, Trenameat and Tunlinkat EOPNOTSUPP
 *   ganesha  Tauth EOPNOTSUPP, Tlock EINVAL, fids >= 1024 ERANGE;
 *            two ganesha 4.3 crashes are kept away from: a successful
 *            Txattrwalk (clunking its fid, or leaving it for the
 *            disconnect, segfaults in libfsalvfs), so only the missing-
 *            attribute case (ENODATA) is sent there; and Tremove of
 *            anything (segfault in libganesha_nfsd, reproduced with a
 *            stdlib Python client too), so Tremove goes to diod only
 * (lx_p9_remove_path() never sends Tremove to a server that takes
 * Tunlinkat.)
 * Data written through the client is compared with the file in the
 * server's export directory on disk, and data written on disk is read
 * back through the client: an independent check of both directions.
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/p9.h>

struct srv {
	const char *name;
	bool diod;
	const char *host;
	uint16_t port;
	const char *aname;
	const char *dir; /* the export directory on disk */
};

static struct srv diod = {.name = "diod", .diod = true};
static struct srv ganesha = {.name = "ganesha", .diod = false};

static bool srv_env(struct srv *s)
{
	const char *h, *p, *a, *d;

	if (s->diod) {
		h = getenv("XPRT_DIOD_HOST");
		p = getenv("XPRT_DIOD_PORT");
		a = getenv("XPRT_DIOD_ANAME");
		d = getenv("XPRT_DIOD_EXPORT_DIR");
	} else {
		h = getenv("XPRT_GANESHA_9P_HOST");
		p = getenv("XPRT_GANESHA_9P_PORT");
		a = getenv("XPRT_GANESHA_9P_ANAME");
		d = getenv("XPRT_NFS_EXPORT_DIR");
	}
	if (!h || !p || !a || !d)
		return false;
	s->host = h;
	s->port = (uint16_t)atoi(p);
	s->aname = a;
	s->dir = d;
	return true;
}

static struct srv *srv_of(void **state)
{
	struct srv *s = *state;

	if (!srv_env(s)) {
		printf("SKIP(servers): %s: no servers.env variables (run "
		       "through scripts/run-integration.sh)\n",
		       s->name);
		skip();
	}
	return s;
}

static struct lx_p9_opts opts_of(const struct srv *s, char *err, size_t len)
{
	struct lx_p9_opts o = {
		.host = s->host,
		.port = s->port,
		.aname = s->aname,
		.uname = "root",
		.n_uname = 0,
		.timeout_ms = 10000,
		.errbuf = err,
		.errbuf_len = len,
	};

	err[0] = '\0';
	return o;
}

static struct lx_p9_clnt *conn(const struct srv *s)
{
	char err[256];
	struct lx_p9_opts o = opts_of(s, err, sizeof(err));
	struct lx_p9_clnt *c = NULL;
	int r = lx_p9_create(&c, &o);

	if (r)
		fail_msg("%s: lx_p9_create: %d (%s)", s->name, r, err);
	return c;
}

/* A name unique to this run, so parallel runs and reruns do not meet. */
static const char *uniq(const char *base)
{
	static char buf[8][128];
	static unsigned int n;
	char *b = buf[n++ % 8];

	snprintf(b, 128, "p9real-%d-%s", (int)getpid(), base);
	return b;
}

static void disk_path(const struct srv *s, const char *name, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s/%s", s->dir, name);
}

static uint8_t pat(uint64_t i, unsigned int seed)
{
	return (uint8_t)((i * 2654435761u) >> 13 ^ seed);
}

/* --------------------------------------------------------- connecting */

static void test_connect_negotiates_msize(void **state)
{
	struct srv *s = srv_of(state);
	char err[256];
	struct lx_p9_opts o = opts_of(s, err, sizeof(err));
	struct lx_p9_clnt *c = NULL;

	o.msize = 1u << 20; /* both servers cap it at 65536 */
	assert_int_equal(lx_p9_create(&c, &o), 0);
	printf("%s: asked msize 1048576, got %u\n", s->name, lx_p9_msize(c));
	assert_int_equal(lx_p9_msize(c), 65536);
	assert_int_equal(lx_p9_iosize(c), 65536 - 24);
	assert_true(lx_p9_root_qid(c).type & LX_P9_QTDIR);
	lx_p9_destroy(c);
}

static void test_wrong_aname_and_bad_options(void **state)
{
	struct srv *s = srv_of(state);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	char err[256];
	struct lx_p9_opts o = opts_of(s, err, sizeof(err));
	struct lx_p9_clnt *c = NULL;
	int r, fd;

	o.aname = "/no/such/tree";
	r = lx_p9_create(&c, &o);
	printf("%s: wrong aname: %d (%s): %s\n", s->name, r, lx_strerror(r),
	       err);
	if (s->diod)
		assert_int_equal(r, -EPERM);
	else
		assert_true(r == -ENOENT || r == -EACCES);
	assert_non_null(strstr(err, "/no/such/tree"));

	o = opts_of(s, err, sizeof(err));
	o.msize = 100;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);

	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &al);
	close(fd);
	o = opts_of(s, err, sizeof(err));
	o.host = "127.0.0.1";
	o.port = ntohs(a.sin_port);
	assert_int_equal(lx_p9_create(&c, &o), -ECONNREFUSED);
	assert_null(c);
}

/* ------------------------------------------------------ every message */

struct row {
	const char *msg;
	int got;
	int want; /* 0, or the refusal this server is known for */
};

static void check(struct row *rows, unsigned int *n, const char *msg, int got,
		  int want)
{
	printf("  %-22s %d\n", msg, got);
	fflush(stdout);
	rows[*n].msg = msg;
	rows[*n].got = got;
	rows[*n].want = want;
	(*n)++;
}

/* Completion of the read flush_a_read() cancels. */
struct fwait {
	atomic_int done;
	int status;
};

static void fwait_cb(struct lx_call *call, int status, void *arg)
{
	struct fwait *w = arg;

	(void)call;
	w->status = status;
	atomic_store(&w->done, 1);
}

/*
 * Cancel a Tread right after sending it, so that a Tflush goes out (retry
 * when the reply won the race), and wait for the Rflush.  Whatever comes
 * first, the read's outcome is its reply or -ECANCELED.  Return 0 when the
 * server answered the Tflush, -ETIMEDOUT when it did not within 10 s.
 */
static int flush_a_read(struct lx_p9_clnt *c, uint32_t fid)
{
	static uint8_t buf[4096];
	struct lx_p9_fcall tx = {.type = LX_P9_TREAD};
	struct lx_p9_call_opts co = {.rdata = buf};
	struct lx_p9_stats st;
	struct fwait w;
	struct lx_call h;
	unsigned int i, tries;
	int r = -EALREADY;

	tx.u.tread.fid = fid;
	tx.u.tread.count = sizeof(buf);
	for (tries = 0; tries < 100 && r; tries++) {
		atomic_init(&w.done, 0);
		h = (struct lx_call){.done = fwait_cb, .arg = &w};
		assert_int_equal(lx_p9_call_async(c, &h, &tx, &co), 0);
		r = lx_call_cancel(&h);
		while (!atomic_load(&w.done))
			usleep(100);
		assert_true(w.status == 0 || w.status == -ECANCELED);
	}
	assert_int_equal(r, 0);
	for (i = 0; i < 10000; i++) {
		lx_p9_stats(c, &st);
		if (st.flush_replies == st.flushes)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

static void test_every_message(void **state)
{
	struct srv *s = srv_of(state);
	struct lx_p9_clnt *c = conn(s);
	struct row rows[64];
	unsigned int n = 0, i, bad = 0, nq;
	char dirname[128], path[256], link[128], id[64], val[8];
	struct lx_p9_qid q;
	struct lx_p9_attr a;
	struct lx_p9_statfs sf;
	struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_SIZE |
					  LX_P9_SETATTR_MODE,
				 .size = 3,
				 .mode = 0600};
	struct lx_p9_flock fl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				 .length = 10,
				 .proc_id = (uint32_t)getpid(),
				 .client_id = lx_p9_str_c("p9real")};
	struct lx_p9_getlock gl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				   .length = 10,
				   .proc_id = 1,
				   .client_id = lx_p9_str_c("other")};
	const char *names[1];
	uint8_t buf[64], st;
	uint32_t root = lx_p9_root_fid(c), d, f, x, cnt;
	uint64_t xsize = 0;
	struct lx_p9_stats pst;
	int r;

	snprintf(dirname, sizeof(dirname), "%s", uniq("msgs"));
	check(rows, &n, "Tversion", 0, 0); /* lx_p9_create */
	check(rows, &n, "Tattach",
	      lx_p9_attach(c, root, LX_P9_NOFID, "root", s->aname, 0, &q), 0);
	check(rows, &n, "Tauth", lx_p9_auth(c, 900, "root", s->aname, 0, &q),
	      s->diod ? -ENOENT : -EOPNOTSUPP);
	check(rows, &n, "Tmkdir", lx_p9_mkdir(c, root, dirname, 0755, 0, &q),
	      0);
	names[0] = dirname;
	assert_int_equal(lx_p9_fid_alloc(c, &d), 0);
	check(rows, &n, "Twalk", lx_p9_walk(c, root, d, 1, names, &nq, &q), 0);
	assert_int_equal(nq, 1);
	assert_int_equal(lx_p9_walk_path(c, root, dirname, &f, NULL), 0);
	check(rows, &n, "Tlcreate",
	      lx_p9_lcreate(c, f, "f", O_RDWR | O_CREAT, 0644, 0, &q, NULL), 0);
	check(rows, &n, "Twrite", lx_p9_write(c, f, 0, 5, "hello", &cnt), 0);
	assert_int_equal(cnt, 5);
	check(rows, &n, "Tfsync", lx_p9_fsync(c, f, false), 0);
	check(rows, &n, "Tread", lx_p9_read(c, f, 0, sizeof(buf), buf, &cnt),
	      0);
	assert_int_equal(cnt, 5);
	assert_memory_equal(buf, "hello", 5);
	check(rows, &n, "Tsetattr", lx_p9_setattr(c, f, &ia), 0);
	check(rows, &n, "Tgetattr", lx_p9_getattr(c, f, LX_P9_GETATTR_ALL, &a),
	      0);
	assert_int_equal(a.size, 3);
	assert_int_equal(a.mode & 0777, 0600);
	check(rows, &n, "Tlock", lx_p9_lock(c, f, &fl, &st),
	      s->diod ? 0 : -EINVAL);
	check(rows, &n, "Tgetlock", lx_p9_getlock(c, f, &gl, id, sizeof(id)),
	      0);
	check(rows, &n, "Tstatfs", lx_p9_statfs(c, root, &sf), 0);
	check(rows, &n, "Tsymlink", lx_p9_symlink(c, d, "ln", "f", 0, &q), 0);
	assert_int_equal(lx_p9_walk_path(c, d, "ln", &x, NULL), 0);
	check(rows, &n, "Treadlink", lx_p9_readlink(c, x, link, sizeof(link)),
	      0);
	assert_string_equal(link, "f");
	assert_int_equal(lx_p9_clunk(c, x), 0);
	check(rows, &n, "Tlink", lx_p9_link(c, d, f, "hard"), 0);
	check(rows, &n, "Tmknod",
	      lx_p9_mknod(c, d, "fifo", 010644, 0, 0, 0, &q), 0);
	check(rows, &n, "Trenameat", lx_p9_renameat(c, d, "hard", d, "hard2"),
	      s->diod ? -EOPNOTSUPP : 0);
	assert_int_equal(
		lx_p9_walk_path(c, d, s->diod ? "hard" : "hard2", &x, NULL), 0);
	check(rows, &n, "Trename", lx_p9_rename(c, x, d, "moved"), 0);
	assert_int_equal(lx_p9_clunk(c, x), 0);
	check(rows, &n, "Txattrcreate",
	      (r = lx_p9_walk_path(c, d, "f", &x, NULL))	 ? r :
	      (r = lx_p9_xattrcreate(c, x, "user.p9real", 3, 0)) ? r :
	      (r = lx_p9_write(c, x, 0, 3, "abc", &cnt))	 ? r :
							   lx_p9_clunk(c, x),
	      0);
	assert_int_equal(lx_p9_fid_alloc(c, &x), 0);
	r = lx_p9_xattrwalk(c, f, x, "user.p9real-missing", &xsize);
	check(rows, &n, "Txattrwalk (missing)", r, -ENODATA);
	if (r == 0)
		lx_p9_clunk(c, x);
	else
		lx_p9_fid_free(c, x);
	if (s->diod) {
		/* ganesha 4.3 crashes on the clunk of such a fid */
		assert_int_equal(lx_p9_fid_alloc(c, &x), 0);
		r = lx_p9_xattrwalk(c, f, x, "user.p9real", &xsize);
		check(rows, &n, "Txattrwalk", r, 0);
		assert_int_equal(xsize, 3);
		assert_int_equal(lx_p9_read(c, x, 0, 3, val, &cnt), 0);
		assert_memory_equal(val, "abc", 3);
		assert_int_equal(lx_p9_clunk(c, x), 0);
	}
	check(rows, &n, "Tflush", flush_a_read(c, f), 0);
	check(rows, &n, "Tunlinkat", lx_p9_unlinkat(c, d, "fifo", 0),
	      s->diod ? -EOPNOTSUPP : 0);
	if (s->diod) /* any Tremove crashes ganesha 4.3 */
		check(rows, &n, "Tremove",
		      (r = lx_p9_walk_path(c, d, "moved", &x, NULL)) ?
			      r :
			      lx_p9_remove(c, x),
		      0);
	check(rows, &n, "Tclunk", lx_p9_clunk(c, f), 0);
	check(rows, &n, "Treaddir", 0, 0);
	{
		struct lx_p9_dir *dir;
		struct lx_p9_dirent e;
		bool seen_ln = false;

		snprintf(path, sizeof(path), "%s", dirname);
		r = lx_p9_opendir(c, path, &dir);
		rows[n - 1].got = r;
		if (!r) {
			while ((r = lx_p9_readdir_next(dir, &e)) == 1)
				seen_ln |= e.name.len == 2 &&
					   !memcmp(e.name.s, "ln", 2);
			rows[n - 1].got = r;
			assert_true(seen_ln);
			lx_p9_closedir(dir);
		}
	}
	/* ganesha's fid ceiling */
	names[0] = dirname;
	r = lx_p9_walk(c, root, 1024, 1, names, &nq, NULL);
	check(rows, &n, "Twalk newfid 1024", r, s->diod ? 0 : -ERANGE);
	if (!r)
		lx_p9_clunk(c,
			    1024) /* not from the allocator: -EINVAL ignored */;
	lx_p9_clunk(c, d);
	for (i = 0; i < 6; i++) {
		static const char *const left[] = {"f",	    "ln",    "hard",
						   "hard2", "moved", "fifo"};

		snprintf(path, sizeof(path), "%s/%s", dirname, left[i]);
		lx_p9_remove_path(c, path);
	}
	assert_int_equal(lx_p9_remove_path(c, dirname), 0);

	printf("%s: %-22s %-10s %s\n", s->name, "message", "result",
	       "expected");
	for (i = 0; i < n; i++) {
		printf("%s: %-22s %-10d %d%s%s\n", s->name, rows[i].msg,
		       rows[i].got, rows[i].want,
		       rows[i].got ? "  refused: " : "",
		       rows[i].got ? lx_strerror(rows[i].got) : "");
		if (rows[i].got != rows[i].want)
			bad++;
	}
	lx_p9_stats(c, &pst);
	printf("%s: %llu calls, %llu flushes, %llu Rflush\n", s->name,
	       (unsigned long long)pst.calls, (unsigned long long)pst.flushes,
	       (unsigned long long)pst.flush_replies);
	lx_p9_destroy(c);
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------- data */

static void test_data_written_through_client_is_on_disk(void **state)
{
	struct srv *s = srv_of(state);
	struct lx_p9_clnt *c = conn(s);
	const char *name = uniq("written.dat");
	size_t len = (1u << 20) + 12345, n, i;
	uint8_t *out = malloc(len), *disk = malloc(len);
	struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_SIZE, .size = 1000};
	char path[512];
	struct stat sb;
	uint32_t fid;
	FILE *fp;

	assert_non_null(out);
	assert_non_null(disk);
	for (i = 0; i < len; i++)
		out[i] = pat(i, 1);
	assert_int_equal(lx_p9_open_path(c, name, O_RDWR | O_CREAT | O_TRUNC,
					 0644, &fid, NULL),
			 0);
	assert_int_equal(lx_p9_pwrite(c, fid, out, len, 0, &n), 0);
	assert_int_equal(n, len);
	assert_int_equal(lx_p9_fsync(c, fid, false), 0);
	assert_int_equal(lx_p9_clunk(c, fid), 0);

	disk_path(s, name, path, sizeof(path));
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(disk, 1, len, fp), len);
	assert_int_equal(fgetc(fp), EOF);
	fclose(fp);
	assert_memory_equal(disk, out, len);

	/* Tsetattr truncates the file on disk */
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, name, &fid, NULL), 0);
	assert_int_equal(lx_p9_setattr(c, fid, &ia), 0);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 1000);

	assert_int_equal(lx_p9_remove_path(c, name), 0);
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(errno, ENOENT);
	lx_p9_destroy(c);
	free(out);
	free(disk);
}

struct ioctx {
	atomic_uint left;
	atomic_int err;
};

static void io_done(struct lx_call *call, int status, void *arg)
{
	struct ioctx *x = arg;

	if (status || call->count != 4096)
		atomic_store(&x->err, status ? status : -EIO);
	atomic_fetch_sub(&x->left, 1);
}

static void test_data_on_disk_reads_back_through_client(void **state)
{
	struct srv *s = srv_of(state);
	struct lx_p9_clnt *c = conn(s);
	const char *name = uniq("ondisk.dat");
	size_t len = (3u << 20) + 777, n, i;
	uint8_t *disk = malloc(len), *in = malloc(len);
	static uint8_t bufs[256][4096];
	static struct lx_call calls[256];
	uint64_t offs[256];
	struct lx_p9_dir *dir;
	struct lx_p9_dirent e;
	struct ioctx x;
	char path[512];
	bool listed = false;
	uint32_t fid;
	FILE *fp;
	int r;

	assert_non_null(disk);
	assert_non_null(in);
	for (i = 0; i < len; i++)
		disk[i] = pat(i, 2);
	disk_path(s, name, path, sizeof(path));
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(disk, 1, len, fp), len);
	fclose(fp);

	assert_int_equal(lx_p9_open_path(c, name, O_RDONLY, 0, &fid, NULL), 0);
	memset(in, 0, len);
	assert_int_equal(lx_p9_pread(c, fid, in, len, 0, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(in, disk, len);
	assert_int_equal(lx_p9_pread(c, fid, in, 100000, len - 500, &n), 0);
	assert_int_equal(n, 500);

	/* 256 random 4 KiB reads, all in flight at once, four owners */
	srand48(getpid());
	atomic_init(&x.left, 256);
	atomic_init(&x.err, 0);
	for (i = 0; i < 256; i++) {
		offs[i] = (uint64_t)lrand48() % (len - 4096);
		calls[i] = (struct lx_call){
			.done = io_done, .arg = &x, .owner = 1 + i % 4};
		r = lx_p9_read_async(c, &calls[i], fid, offs[i], 4096, bufs[i]);
		assert_int_equal(r, 0);
	}
	while (atomic_load(&x.left))
		usleep(1000);
	assert_int_equal(atomic_load(&x.err), 0);
	for (i = 0; i < 256; i++)
		assert_memory_equal(bufs[i], disk + offs[i], 4096);
	assert_int_equal(lx_p9_clunk(c, fid), 0);

	assert_int_equal(lx_p9_opendir(c, "", &dir), 0);
	while ((r = lx_p9_readdir_next(dir, &e)) == 1)
		listed |= e.name.len == strlen(name) &&
			  !memcmp(e.name.s, name, e.name.len);
	assert_int_equal(r, 0);
	lx_p9_closedir(dir);
	assert_true(listed);
	assert_int_equal(lx_p9_remove_path(c, name), 0);
	assert_int_equal(access(path, F_OK), -1);
	lx_p9_destroy(c);
	free(disk);
	free(in);
}

static void test_mkdir_and_remove_are_on_disk(void **state)
{
	struct srv *s = srv_of(state);
	struct lx_p9_clnt *c = conn(s);
	const char *dname = uniq("dir");
	char path[512], file[256];
	struct lx_p9_attr a;
	struct stat sb;
	uint32_t fid;

	assert_int_equal(lx_p9_mkdir_path(c, dname, 0750), 0);
	disk_path(s, dname, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0750);
	snprintf(file, sizeof(file), "%s/inner", dname);
	assert_int_equal(
		lx_p9_open_path(c, file, O_WRONLY | O_CREAT, 0600, &fid, NULL),
		0);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(lx_p9_stat_path(c, file, LX_P9_GETATTR_BASIC, &a), 0);
	assert_int_equal(a.mode & 0777, 0600);
	/* not empty */
	assert_true(lx_p9_remove_path(c, dname) < 0);
	/* diod: Tunlinkat refused, Twalk + Tremove instead */
	assert_int_equal(lx_p9_remove_path(c, file), 0);
	assert_int_equal(lx_p9_remove_path(c, dname), 0);
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(lx_p9_stat_path(c, dname, 0, &a), -ENOENT);
	lx_p9_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_connect_negotiates_msize, &diod),
		cmocka_unit_test_prestate(test_connect_negotiates_msize,
					  &ganesha),
		cmocka_unit_test_prestate(test_wrong_aname_and_bad_options,
					  &diod),
		cmocka_unit_test_prestate(test_wrong_aname_and_bad_options,
					  &ganesha),
		cmocka_unit_test_prestate(test_every_message, &diod),
		cmocka_unit_test_prestate(test_every_message, &ganesha),
		cmocka_unit_test_prestate(
			test_data_written_through_client_is_on_disk, &diod),
		cmocka_unit_test_prestate(
			test_data_written_through_client_is_on_disk, &ganesha),
		cmocka_unit_test_prestate(
			test_data_on_disk_reads_back_through_client, &diod),
		cmocka_unit_test_prestate(
			test_data_on_disk_reads_back_through_client, &ganesha),
		cmocka_unit_test_prestate(test_mkdir_and_remove_are_on_disk,
					  &diod),
		cmocka_unit_test_prestate(test_mkdir_and_remove_are_on_disk,
					  &ganesha),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
