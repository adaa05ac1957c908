// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 client against an in-process fake server (fakesrv) that speaks
 * MOUNT v3 and NFS v3 on one port: a tiny in-memory file system with one
 * directory and one file whose UNSTABLE writes are lost on a simulated
 * restart (new write verifier), and a set of misbehaviours: handles
 * longer than 64 bytes, READ replies with more data than asked, short and
 * truncated replies, directory cookie loops, absurd entry counts,
 * NOSPC/ROFS, wrong programs, mount refusals.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>

#include "test_nfs3_fakesrv.h"

/* --------------------------------------------------------------- mount */

static void test_mount_learns_fsinfo(void **state)
{
	struct lx_nfs3_clnt *c = mk();

	(void)state;
	assert_int_equal(lx_nfs3_root(c)->len, sizeof(ROOT));
	assert_memory_equal(lx_nfs3_root(c)->data, ROOT, sizeof(ROOT));
	assert_int_equal(lx_nfs3_rsize(c), 4096);
	assert_int_equal(lx_nfs3_wsize(c), 4096);
	assert_int_equal(lx_nfs3_fsinfo_cached(c)->properties, 0x1b);
	assert_non_null(lx_nfs3_rpc(c));
	lx_nfs3_destroy(c);
}

static void test_mount_errors_have_messages(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c;
	char msg[256];

	(void)state;
	opts_init(&o, msg, sizeof(msg));
	set_mode(M_MNT_NOENT);
	assert_int_equal(lx_nfs3_create(&c, &o), -ENOENT);
	assert_non_null(strstr(msg, "export /export does not exist"));
	set_mode(M_MNT_ACCES);
	assert_int_equal(lx_nfs3_create(&c, &o), -EACCES);
	assert_non_null(strstr(msg, "refused"));
	set_mode(M_MNT_ACCES_UNK); /* ganesha's way of saying NOENT */
	assert_int_equal(lx_nfs3_create(&c, &o), -ENOENT);
	assert_non_null(strstr(msg, "exports: /elsewhere"));
	set_mode(M_PROG_UNAVAIL);
	assert_int_equal(lx_nfs3_create(&c, &o), -EPFNOSUPPORT);
	assert_non_null(strstr(msg, "wrong server"));
	set_mode(M_NORMAL);
	/* bad options: nothing is sent */
	o.export_path = "export";
	assert_int_equal(lx_nfs3_create(&c, &o), -EINVAL);
	o.export_path = "/export";
	o.nconnect = 17;
	assert_int_equal(lx_nfs3_create(&c, &o), -EINVAL);
	o.nconnect = 0;
	o.host = NULL;
	assert_int_equal(lx_nfs3_create(&c, &o), -EINVAL);
	assert_int_equal(lx_nfs3_create(NULL, &o), -EINVAL);
	assert_int_equal(lx_nfs3_create(&c, NULL), -EINVAL);
}

static void test_mount_procs_and_lists(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_rpc_clnt *mc;
	struct lx_nfs3_mnt_res mr;
	struct lx_nfs3_mnt_entry ent[4];
	char strs[256];
	struct lx_nfs3_mnt_list ml = {
		.ent = ent, .cap = 4, .strbuf = strs, .strsize = sizeof(strs)};
	char msg[64];

	(void)state;
	opts_init(&o, msg, sizeof(msg));
	assert_int_equal(lx_nfs3_mnt_clnt_create(&mc, &o), 0);
	assert_int_equal(lx_nfs3_mnt_null(mc), 0);
	assert_int_equal(lx_nfs3_mnt_mnt(mc, "/export", &mr), 0);
	assert_int_equal(mr.nflavors, LX_NFS3_MNT_MAX_FLAVORS); /* 10 sent */
	assert_int_equal(mr.flavors[0], 1);
	assert_int_equal(lx_nfs3_mnt_dump(mc, &ml), 0);
	assert_int_equal(ml.n, 2);
	assert_string_equal(ent[1].host, "hostB");
	assert_string_equal(ent[1].dir, "/other");
	assert_int_equal(lx_nfs3_mnt_export(mc, &ml), 0);
	assert_int_equal(ml.n, 1);
	assert_string_equal(ent[0].dir, "/export");
	assert_string_equal(ent[0].host, "grp1 grp2");
	/* arrays too small: E2BIG, not an overrun */
	ml.cap = 1;
	assert_int_equal(lx_nfs3_mnt_dump(mc, &ml), -E2BIG);
	ml.cap = 4;
	ml.strsize = 12;
	assert_int_equal(lx_nfs3_mnt_dump(mc, &ml), -E2BIG);
	assert_int_equal(lx_nfs3_mnt_umnt(mc, "/export"), 0);
	assert_int_equal(lx_nfs3_mnt_umntall(mc), 0);
	assert_int_equal(lx_nfs3_mnt_umnt(mc, ""), -EINVAL);
	assert_int_equal(lx_nfs3_mnt_mnt(mc, "/export", NULL), -EINVAL);
	lx_rpc_destroy(mc);
}

/* ----------------------------------------------------------- bad input */

static void test_handle_longer_than_64_refused(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_lookup_res lr;

	(void)state;
	set_mode(M_BIG_FH);
	memset(&lr, 0, sizeof(lr));
	assert_int_equal(lx_nfs3_lookup(c, lx_nfs3_root(c), "x", &lr),
			 -EBADMSG);
	assert_true(lr.fh.len <= LX_NFS3_FHSIZE);
	set_mode(M_NORMAL);
	assert_int_equal(lx_nfs3_lookup(c, lx_nfs3_root(c), "x", &lr), 0);
	assert_int_equal(lx_nfs3_lookup(c, lx_nfs3_root(c), "missing", &lr),
			 -ENOENT);
	lx_nfs3_destroy(c);
}

static void test_read_more_than_asked_refused(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_read_res rr;
	uint8_t buf[256];
	struct iovec iov = {buf, 100};

	(void)state;
	S->size = 200;
	memset(buf, 0x11, sizeof(buf));
	set_mode(M_READ_OVER);
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 100, &iov, 1, &rr),
			 -EOVERFLOW);
	for (size_t i = 100; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x11); /* nothing past the buffer */
	set_mode(M_READ_MISMATCH);
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 100, &iov, 1, &rr), -EBADMSG);
	set_mode(M_NORMAL);
	/* the connection is still in step */
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 100, &iov, 1, &rr), 0);
	assert_int_equal(rr.count, 100);
	assert_string_equal(lx_strerror(-EOVERFLOW),
			    "reply carries more data than asked for");
	lx_nfs3_destroy(c);
}

static void test_truncated_replies(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_read_res rr;
	uint8_t buf[1000];
	struct iovec iov = {buf, sizeof(buf)};

	(void)state;
	S->size = 1000;
	set_mode(M_TRUNC_GETATTR);
	assert_int_equal(lx_nfs3_getattr(c, &fh, &gr), -EBADMSG);
	set_mode(M_TRUNC_READ);
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 1000, &iov, 1, &rr), -EBADMSG);
	set_mode(M_NORMAL);
	assert_int_equal(lx_nfs3_getattr(c, &fh, &gr), 0);
	assert_int_equal(gr.attr.size, 1000);
	lx_nfs3_destroy(c);
}

static void test_nospc_rofs(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_write_res wr;
	struct iovec iov = {(void *)"x", 1};

	(void)state;
	set_mode(M_NOSPC);
	assert_int_equal(lx_nfs3_write(c, &fh, 0, &iov, 1, 2, &wr), -ENOSPC);
	assert_int_equal(wr.status, LX_NFS3ERR_NOSPC);
	assert_string_equal(lx_strerror(-ENOSPC),
			    "no space left on the server's file system");
	set_mode(M_ROFS);
	assert_int_equal(lx_nfs3_write(c, &fh, 0, &iov, 1, 2, &wr), -EROFS);
	assert_string_equal(lx_strerror(-EROFS), "read-only file system");
	set_mode(M_NORMAL);
	lx_nfs3_destroy(c);
}

/* ---------------------------------------------------------- directories */

struct names {
	unsigned int n, dots;
	char seen[64][8];
};

static int collect(const struct lx_nfs3_dirent *e, void *arg)
{
	struct names *nm = arg;

	if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
		nm->dots++;
	if (nm->n < 64)
		snprintf(nm->seen[nm->n], 8, "%s", e->name);
	nm->n++;
	return 0;
}

static int stop_at_3(const struct lx_nfs3_dirent *e, void *arg)
{
	(void)e;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_readdirplus_iteration(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct names nm = {0};
	int count = 0;

	(void)state;
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0, collect, &nm),
		0);
	assert_int_equal(nm.dots, 0); /* . and .. are left out */
	assert_int_equal(nm.n, 12);
	assert_string_equal(nm.seen[0], "f3");
	assert_string_equal(nm.seen[11], "f14");
	/* the callback stops it */
	assert_int_equal(lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0,
						  stop_at_3, &count),
			 42);
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0, NULL, NULL),
		-EINVAL);
	lx_nfs3_destroy(c);
}

static void test_readdir_cookie_loop_and_no_progress(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct names nm = {0};

	(void)state;
	set_mode(M_DIR_LOOP);
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0, collect, &nm),
		-ELOOP);
	/* the repeated entries were not delivered a second time */
	assert_int_equal(nm.n, 3);
	set_mode(M_DIR_EMPTY);
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0, collect, &nm),
		-ELOOP);
	set_mode(M_NORMAL);
	lx_nfs3_destroy(c);
}

static void test_readdir_absurd_counts(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_dirent ent[10];
	char names[4096];
	struct lx_nfs3_dirbuf db = {ent, 10, names, sizeof(names)};
	struct lx_nfs3_readdir_res rr;
	struct names nm = {0};

	(void)state;
	set_mode(M_DIR_MANY); /* 50 entries into an array of 10 */
	assert_int_equal(lx_nfs3_readdirplus(c, lx_nfs3_root(c), 0, NULL, 4096,
					     4096, &db, &rr),
			 -E2BIG);
	/* names that do not fit the name buffer */
	db.cap = 10;
	db.names_size = 8;
	set_mode(M_DIR_MANY);
	assert_int_equal(lx_nfs3_readdirplus(c, lx_nfs3_root(c), 0, NULL, 4096,
					     4096, &db, &rr),
			 -E2BIG);
	/* a reply of 20,000 entries (~3 MB) is larger than the call buffer */
	set_mode(M_DIR_HUGE);
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 0, collect, &nm),
		-EMSGSIZE);
	/* an iteration bound below the directory's size */
	set_mode(M_DIR_MANY);
	assert_int_equal(
		lx_nfs3_readdirplus_iter(c, lx_nfs3_root(c), 20, collect, &nm),
		-E2BIG);
	set_mode(M_NORMAL);
	lx_nfs3_destroy(c);
}

/* ----------------------------------------------------------- async API */

struct chain {
	struct lx_nfs3_clnt *c;
	struct lx_nfs3_fh fh;
	struct lx_nfs3_getattr_res res;
	atomic_int left, errors, again, again_err;
	atomic_int done;
};

/* resubmit from the completion callback with NOWAIT */
static void chain_cb(struct lx_call *call, int status, void *arg)
{
	struct chain *ch = arg;
	int err;

	if (status)
		atomic_fetch_add(&ch->errors, 1);
	if (atomic_fetch_sub(&ch->left, 1) > 1) {
		err = lx_nfs3_getattr_async(ch->c, call, &ch->fh, &ch->res);
		if (!err)
			return;
		atomic_fetch_add(&ch->again, 1);
		atomic_store(&ch->again_err, err);
	}
	atomic_store(&ch->done, 1);
}

static void test_async_resubmit_from_callback(void **state)
{
	struct chain ch = {0};
	static struct lx_call call;
	int i;

	(void)state;
	ch.c = mk();
	ch.fh = file_fh();
	atomic_store(&ch.left, 100);
	memset(&call, 0, sizeof(call));
	call.done = chain_cb;
	call.arg = &ch;
	call.flags = LX_CALL_NOWAIT;
	call.owner = 42;
	assert_int_equal(lx_nfs3_getattr_async(ch.c, &call, &ch.fh, &ch.res),
			 0);
	for (i = 0; i < 2000 && !atomic_load(&ch.done); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&ch.done), 1);
	assert_int_equal(atomic_load(&ch.errors), 0);
	if (atomic_load(&ch.again))
		fail_msg("a resubmit from the callback failed: %d, %d left",
			 atomic_load(&ch.again_err), atomic_load(&ch.left));
	assert_int_equal(atomic_load(&ch.left), 0);
	lx_nfs3_destroy(ch.c);
}

/* ------------------------------------------------------------ JUKEBOX */

static void set_jukebox(unsigned int n)
{
	pthread_mutex_lock(&S->lock);
	S->jukebox = n;
	S->nxids = 0;
	pthread_mutex_unlock(&S->lock);
}

/* a client retrying JUKEBOX every 100 ms, at most 3 times */
static struct lx_nfs3_clnt *mk_jukebox(void)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	char msg[256];

	opts_init(&o, msg, sizeof(msg));
	o.jukebox_delay_ms = 100;
	o.jukebox_retries = 3;
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	return c;
}

/* the NFS calls the server saw all had different XIDs */
static void assert_new_xids(unsigned int n)
{
	unsigned int i, j;

	pthread_mutex_lock(&S->lock);
	assert_int_equal(S->nxids, n);
	for (i = 0; i < S->nxids; i++)
		for (j = 0; j < i; j++)
			assert_true(S->xids[i] != S->xids[j]);
	pthread_mutex_unlock(&S->lock);
}

static uint64_t resubmits(struct lx_nfs3_clnt *c)
{
	struct lx_xprt_stats st;

	lx_xprt_stats(lx_rpc_xprt(lx_nfs3_rpc(c), 0), &st);
	return st.resubmits;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_jukebox_sync_retried_under_new_xids(void **state)
{
	struct lx_nfs3_clnt *c = mk_jukebox();
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_getattr_res res;
	double t0;

	(void)state;
	set_jukebox(2);
	t0 = now_s();
	assert_int_equal(lx_nfs3_getattr(c, &fh, &res), 0);
	assert_true(now_s() - t0 >= 0.2); /* two delays of 100 ms */
	assert_new_xids(3);
	assert_int_equal(resubmits(c), 2);
	/* always JUKEBOX: the budget (3 retries, 4 calls), then -EAGAIN,
	 * with the status, and a message that says what happened */
	set_jukebox(~0u);
	assert_int_equal(lx_nfs3_getattr(c, &fh, &res), -EAGAIN);
	assert_int_equal(res.status, LX_NFS3ERR_JUKEBOX);
	assert_new_xids(4);
	assert_int_equal(resubmits(c), 5);
	assert_non_null(strstr(lx_strerror(-EAGAIN), "JUKEBOX"));
	/* FSINFO at mount goes through the same path */
	lx_nfs3_destroy(c);
	set_jukebox(1);
	c = mk_jukebox();
	assert_new_xids(1 + 1); /* the FSINFO twice */
	lx_nfs3_destroy(c);
}

struct jb {
	atomic_int done, status, calls;
};

static void jb_cb(struct lx_call *call, int status, void *arg)
{
	struct jb *j = arg;

	(void)call;
	atomic_store(&j->status, status);
	atomic_fetch_add(&j->calls, 1);
	atomic_store(&j->done, 1);
}

static void jb_wait(struct jb *j)
{
	int i;

	for (i = 0; i < 3000 && !atomic_load(&j->done); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&j->done), 1);
	usleep(20000); /* and never twice */
	assert_int_equal(atomic_load(&j->calls), 1);
}

static void test_jukebox_async_retried_without_callback(void **state)
{
	struct lx_nfs3_clnt *c = mk_jukebox();
	struct lx_nfs3_fh fh = file_fh();
	static struct lx_nfs3_getattr_res res;
	static struct lx_nfs3_read_res rres;
	static struct lx_call call;
	static char buf[4096];
	struct jb j = {0};

	(void)state;
	/* twice JUKEBOX, then the attributes: one callback, status 0 */
	set_jukebox(2);
	memset(&call, 0, sizeof(call));
	call.done = jb_cb;
	call.arg = &j;
	assert_int_equal(lx_nfs3_getattr_async(c, &call, &fh, &res), 0);
	jb_wait(&j);
	assert_int_equal(atomic_load(&j.status), 0);
	assert_new_xids(3);
	/* a READ, the data placed by the third reply */
	{
		static char data[100];
		struct lx_nfs3_write_res wres;
		struct iovec iov = {data, sizeof(data)};

		memset(data, 0x5c, sizeof(data));
		assert_int_equal(lx_nfs3_write(c, &fh, 0, &iov, 1,
					       LX_NFS3_FILE_SYNC, &wres),
				 0);
	}
	memset(&j, 0, sizeof(j));
	memset(buf, 0, sizeof(buf));
	set_jukebox(2);
	assert_int_equal(
		lx_nfs3_read_buf_async(c, &call, &fh, 0, 100, buf, &rres), 0);
	jb_wait(&j);
	assert_int_equal(atomic_load(&j.status), 0);
	assert_int_equal(rres.count, 100);
	assert_int_equal(buf[0], 0x5c);
	assert_int_equal(buf[99], 0x5c);
	assert_new_xids(3);
	/* always: the budget, then -EAGAIN and the status */
	memset(&j, 0, sizeof(j));
	set_jukebox(~0u);
	assert_int_equal(lx_nfs3_getattr_async(c, &call, &fh, &res), 0);
	jb_wait(&j);
	assert_int_equal(atomic_load(&j.status), -EAGAIN);
	assert_int_equal(call.proto_status, LX_NFS3ERR_JUKEBOX);
	assert_new_xids(4);
	/* waiting to go out again when the client goes: -ESHUTDOWN, once */
	memset(&j, 0, sizeof(j));
	assert_int_equal(lx_nfs3_getattr_async(c, &call, &fh, &res), 0);
	usleep(50000);
	lx_nfs3_destroy(c);
	assert_int_equal(atomic_load(&j.done), 1);
	assert_int_equal(atomic_load(&j.status), -ESHUTDOWN);
	assert_int_equal(atomic_load(&j.calls), 1);
}

/* ---------------------------------------------- set-up steps, bounded */

#include "helpers/spawn.h"

/* lx_nfs3_create() against a scripted server on the MOUNT port: its
 * status, the message, the seconds it took */
static int mount_hostile(const char *scenario, bool hard, unsigned int setup_ms,
			 char *msg, size_t len, double *secs)
{
	char *argv[] = {"python3", "tests/hostile/rpc_hostile.py", "--scenario",
			(char *)scenario, NULL};
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	struct spawned sp;
	int r;

	assert_int_equal(spawn_server(argv, &sp), 0);
	opts_init(&o, msg, len);
	o.mount_port = sp.port;
	o.timeo_ms = 0; /* nfs(5)'s 60 s: the step's bound must win */
	o.hard = hard;
	o.setup_timeout_ms = setup_ms;
	*secs = now_s();
	r = lx_nfs3_create(&c, &o);
	*secs = now_s() - *secs;
	spawn_stop(&sp);
	print_message("%s%s: %d after %.2f s: %s\n", scenario,
		      hard ? " (hard)" : "", r, *secs, msg);
	if (!r)
		lx_nfs3_destroy(c);
	return r;
}

static void test_setup_steps_bounded_with_messages(void **state)
{
	char msg[512];
	double t;

	(void)state;
	/* not MOUNT at all: closed connections, said so within a second */
	assert_int_equal(
		mount_hostile("garbage", false, 0, msg, sizeof(msg), &t),
		-ECONNRESET);
	assert_true(t < 2.0);
	assert_non_null(strstr(msg, "MNT /export on 127.0.0.1:"));
	assert_non_null(strstr(msg, "is that port a MOUNT v3 service?"));
	assert_non_null(strstr(msg, "cannot be a reply"));
	/* replies for nobody, for ever: the step's 1 s bound, hard or not */
	assert_int_equal(mount_hostile("unknown_xid_forever", false, 1000, msg,
				       sizeof(msg), &t),
			 -ETIMEDOUT);
	assert_true(t >= 0.95 && t < 2.0);
	assert_non_null(strstr(msg, "the step's bound: 1.0 s"));
	assert_non_null(strstr(msg, "for calls we did not make"));
	assert_int_equal(
		mount_hostile("no_read", true, 1000, msg, sizeof(msg), &t),
		-ETIMEDOUT);
	assert_true(t >= 0.95 && t < 2.0);
	assert_non_null(strstr(msg, "1 connection; 0 replies"));
}

static void never(struct lx_call *call, int status, void *arg)
{
	(void)call;
	(void)status;
	*(int *)arg = 1;
}

static void test_argument_validation(void **state)
{
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh(), bad = {.len = 65};
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_create_res cr;
	struct lx_nfs3_readdir_res dr;
	struct lx_nfs3_readlink_res rl;
	struct lx_call call = {0};
	struct iovec iov[8];
	char longname[300], buf[8];
	int called = 0;

	(void)state;
	memset(iov, 0, sizeof(iov));
	iov[0].iov_base = buf;
	iov[0].iov_len = 1;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(lx_nfs3_getattr(NULL, &fh, &gr), -EINVAL);
	assert_int_equal(lx_nfs3_getattr(c, NULL, &gr), -EINVAL);
	assert_int_equal(lx_nfs3_getattr(c, &fh, NULL), -EINVAL);
	assert_int_equal(lx_nfs3_getattr(c, &bad, &gr), -EINVAL);
	assert_int_equal(lx_nfs3_lookup(c, &fh, "", &lr), -EINVAL);
	assert_int_equal(lx_nfs3_lookup(c, &fh, NULL, &lr), -EINVAL);
	assert_int_equal(lx_nfs3_lookup(c, &fh, longname, &lr), -ENAMETOOLONG);
	assert_int_equal(lx_nfs3_write(c, &fh, 0, iov, 0, 0, &wr), -EINVAL);
	assert_int_equal(lx_nfs3_write(c, &fh, 0, iov, 8, 0, &wr), -EINVAL);
	assert_int_equal(lx_nfs3_write(c, &fh, 0, iov, 1, 3, &wr), -EINVAL);
	iov[1].iov_len = 5; /* NULL base */
	assert_int_equal(lx_nfs3_write(c, &fh, 0, iov, 2, 0, &wr), -EINVAL);
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 10, NULL, 1, &rr), -EINVAL);
	/* a destination smaller than the count */
	assert_int_equal(lx_nfs3_read(c, &fh, 0, 10, iov, 1, &rr), -EINVAL);
	assert_int_equal(lx_nfs3_create_file(c, &fh, "x",
					     LX_NFS3_CREATE_EXCLUSIVE, NULL,
					     NULL, &cr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_create_file(c, &fh, "x", 3, NULL, NULL, &cr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_mknod(c, &fh, "x", NF3REG, NULL, 0, 0, &cr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_symlink(c, &fh, "x", NULL, "", &cr), -EINVAL);
	assert_int_equal(lx_nfs3_setattr(c, &fh, NULL, NULL, (void *)&wr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_readlink(c, &fh, buf, 1, &rl), -EINVAL);
	assert_int_equal(lx_nfs3_readdir(c, &fh, 0, NULL, 100, NULL, &dr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_rename(c, &fh, "a", &fh, "", (void *)&wr),
			 -EINVAL);
	assert_int_equal(lx_nfs3_link(c, &bad, &fh, "a", (void *)&wr), -EINVAL);
	/* async: no call, no callback; and a refused call never calls back */
	assert_int_equal(lx_nfs3_getattr_async(c, NULL, &fh, &gr), -EINVAL);
	assert_int_equal(lx_nfs3_getattr_async(c, &call, &fh, &gr), -EINVAL);
	call.done = never;
	call.arg = &called;
	assert_int_equal(lx_nfs3_getattr_async(c, &call, &bad, &gr), -EINVAL);
	assert_int_equal(lx_nfs3_null_async(NULL, &call), -EINVAL);
	usleep(10000);
	assert_int_equal(called, 0);
	/* helpers */
	assert_int_equal(lx_nfs3_lookup_path(c, NULL, &fh, NULL), -EINVAL);
	assert_int_equal(lx_nfs3_open(c, "/", 0, 0, NULL, (void *)&called),
			 -EISDIR);
	assert_int_equal(lx_nfs3_open(c, "f", 0, 0, NULL, NULL), -EINVAL);
	assert_int_equal(lx_nfs3_file_fsync(NULL), -EINVAL);
	assert_int_equal(lx_nfs3_file_close(NULL), -EINVAL);
	lx_nfs3_destroy(c);
	lx_nfs3_destroy(NULL);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_mount_learns_fsinfo),
		T(test_mount_errors_have_messages),
		T(test_mount_procs_and_lists),
		T(test_handle_longer_than_64_refused),
		T(test_read_more_than_asked_refused),
		T(test_truncated_replies),
		T(test_nospc_rofs),
		T(test_readdirplus_iteration),
		T(test_readdir_cookie_loop_and_no_progress),
		T(test_readdir_absurd_counts),
		T(test_async_resubmit_from_callback),
		T(test_jukebox_sync_retried_under_new_xids),
		T(test_jukebox_async_retried_without_callback),
		T(test_argument_validation),
		T(test_setup_steps_bounded_with_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
