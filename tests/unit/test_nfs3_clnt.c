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
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>

#include "helpers/fakesrv.h"

#define FSIZE_MAX (1u << 20)

enum mode {
	M_NORMAL,
	M_BIG_FH,	 /* LOOKUP: a 65-byte handle */
	M_READ_OVER,	 /* READ: 100 bytes more than asked */
	M_READ_MISMATCH, /* READ: count field != data length */
	M_TRUNC_GETATTR, /* GETATTR: reply ends inside fattr3 */
	M_TRUNC_READ,	 /* READ: message ends inside the data */
	M_SHORT_READ,	 /* READ: half of what was asked, not eof */
	M_DIR_LOOP,	 /* READDIRPLUS: cookie 3 leads back to 1..3 */
	M_DIR_EMPTY,	 /* READDIRPLUS: no entries, not eof */
	M_DIR_MANY,	 /* READDIRPLUS: 50 entries */
	M_DIR_HUGE,	 /* READDIRPLUS: ~3 MB, far beyond buf_size */
	M_NOSPC,	 /* WRITE: NFS3ERR_NOSPC */
	M_ROFS,		 /* WRITE: NFS3ERR_ROFS */
	M_PROG_UNAVAIL,	 /* every call: PROG_UNAVAIL */
	M_MNT_NOENT,	 /* MNT: MNT3ERR_NOENT */
	M_MNT_ACCES,	 /* MNT: MNT3ERR_ACCES, /export is exported */
	M_MNT_ACCES_UNK, /* MNT: MNT3ERR_ACCES, nothing like it exported */
	M_VERF_CHURN,	 /* COMMIT: the server restarted again, every time */
};

struct fsrv {
	pthread_mutex_t lock;
	enum mode mode;
	uint8_t cache[FSIZE_MAX]; /* what READ sees */
	uint8_t disk[FSIZE_MAX];  /* what survives a restart */
	size_t size, disk_size;
	uint64_t verf;
	unsigned int writes, unstable_writes, commits, reads;
};

static struct fsrv *S;
static struct fakesrv *fs;

static const uint8_t ROOT[8] = "ROOTDIR!";
static const uint8_t FILEH[8] = "THEFILE!";

/* --------------------------------------------------------- wire helpers */

struct w {
	uint8_t *p;
	size_t n;
};

static void w32(struct w *w, uint32_t v)
{
	fs_put_be32(w->p + w->n, v);
	w->n += 4;
}

static void w64(struct w *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static void wbytes(struct w *w, const void *b, size_t len)
{
	w32(w, (uint32_t)len);
	memcpy(w->p + w->n, b, len);
	w->n += len;
	while (w->n & 3)
		w->p[w->n++] = 0;
}

static void wfattr(struct w *w, uint32_t type, uint64_t size)
{
	w32(w, type);
	w32(w, 0644);
	w32(w, 1);
	w32(w, 0);
	w32(w, 0);
	w64(w, size);
	w64(w, size);
	w32(w, 0);
	w32(w, 0);
	w64(w, 1);
	w64(w, type == 2 ? 1 : 2);
	for (int i = 0; i < 6; i++)
		w32(w, 7);
}

static void wpost(struct w *w, uint32_t type, uint64_t size)
{
	w32(w, 1);
	wfattr(w, type, size);
}

static void wwcc(struct w *w)
{
	w32(w, 0);
	w32(w, 0);
}

struct r {
	const uint8_t *p;
	size_t off;
};

static uint32_t r32(struct r *r)
{
	uint32_t v = fs_get_be32(r->p + r->off);

	r->off += 4;
	return v;
}

static uint64_t r64(struct r *r)
{
	uint64_t hi = r32(r);

	return hi << 32 | r32(r);
}

static uint32_t rfh(struct r *r, uint8_t *fh)
{
	uint32_t len = r32(r);

	memcpy(fh, r->p + r->off, len);
	r->off += (len + 3) & ~3u;
	return len;
}

static size_t skip_auth(const uint8_t *p, size_t off)
{
	return off + 8 + ((fs_get_be32(p + off + 4) + 3) & ~3u);
}

static void accepted(struct w *w, uint32_t xid, uint32_t stat)
{
	w32(w, xid);
	w32(w, 1);
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
	w32(w, stat);
}

/* ------------------------------------------------------------- MOUNT */

static void mount_proc(struct fsrv *s, uint32_t proc, struct r *a, struct w *w)
{
	switch (proc) {
	case 0:
		return;
	case 1: /* MNT */
		if (s->mode == M_MNT_NOENT) {
			w32(w, 2);
			return;
		}
		if (s->mode == M_MNT_ACCES || s->mode == M_MNT_ACCES_UNK) {
			w32(w, 13);
			return;
		}
		w32(w, 0);
		wbytes(w, ROOT, sizeof(ROOT));
		w32(w, 10); /* ten flavours: more than the client keeps */
		for (int i = 0; i < 10; i++)
			w32(w, i == 0 ? 1 : 100 + i);
		return;
	case 2: /* DUMP: two mounts */
		w32(w, 1);
		wbytes(w, "hostA", 5);
		wbytes(w, "/export", 7);
		w32(w, 1);
		wbytes(w, "hostB", 5);
		wbytes(w, "/other", 6);
		w32(w, 0);
		return;
	case 5: /* EXPORT */
		w32(w, 1);
		wbytes(w, s->mode == M_MNT_ACCES_UNK ? "/elsewhere" : "/export",
		       s->mode == M_MNT_ACCES_UNK ? 10 : 7);
		w32(w, 1);
		wbytes(w, "grp1", 4);
		w32(w, 1);
		wbytes(w, "grp2", 4);
		w32(w, 0);
		w32(w, 0);
		return;
	default: /* UMNT, UMNTALL: void */
		(void)a;
		return;
	}
}

/* --------------------------------------------------------------- NFS */

static void dirent(struct w *w, uint64_t cookie, const char *name)
{
	w32(w, 1);
	w64(w, 100 + cookie);
	wbytes(w, name, strlen(name));
	w64(w, cookie);
	wpost(w, 1, cookie);
	w32(w, 1);
	wbytes(w, FILEH, sizeof(FILEH));
}

static void readdirplus(struct fsrv *s, struct r *a, struct w *w)
{
	uint8_t fh[64];
	uint64_t cookie, c;
	char name[32];

	rfh(a, fh);
	cookie = r64(a);
	w32(w, 0);
	wpost(w, 2, 0);
	w64(w, 0x1122334455667788ull); /* cookie verifier */
	switch (s->mode) {
	case M_DIR_LOOP:
		/* 1..3, then from 3: 1..3 again */
		for (c = 1; c <= 3; c++) {
			snprintf(name, sizeof(name), "n%llu",
				 (unsigned long long)c);
			dirent(w, c, name);
		}
		w32(w, 0);
		w32(w, 0);
		return;
	case M_DIR_EMPTY:
		w32(w, 0);
		w32(w, 0);
		return;
	case M_DIR_MANY:
	case M_DIR_HUGE: {
		unsigned int n = s->mode == M_DIR_MANY ? 50 : 20000;

		for (c = 1; c <= n; c++) {
			snprintf(name, sizeof(name), "e%llu",
				 (unsigned long long)c);
			dirent(w, c, name);
		}
		w32(w, 0);
		w32(w, 1);
		return;
	}
	default:
		/* ".", "..", then 5 names per reply, 12 in all */
		if (!cookie) {
			dirent(w, 1, ".");
			dirent(w, 2, "..");
			cookie = 2;
		}
		for (c = cookie + 1; c <= cookie + 5 && c <= 14; c++) {
			snprintf(name, sizeof(name), "f%llu",
				 (unsigned long long)c);
			dirent(w, c, name);
		}
		w32(w, 0);
		w32(w, c > 14);
	}
}

static void nfs_read(struct fsrv *s, struct r *a, struct w *w)
{
	uint8_t fh[64];
	uint64_t off;
	uint32_t cnt, n, i;

	rfh(a, fh);
	off = r64(a);
	cnt = r32(a);
	s->reads++;
	n = off >= s->size ? 0 : (uint32_t)(s->size - off);
	if (n > cnt)
		n = cnt;
	if (s->mode == M_SHORT_READ && n > 1)
		n /= 2;
	w32(w, 0);
	wpost(w, 1, s->size);
	if (s->mode == M_READ_OVER) {
		w32(w, cnt + 100);
		w32(w, 0);
		w32(w, cnt + 100);
		for (i = 0; i < cnt + 100; i++)
			w->p[w->n++] = 0xab;
		while (w->n & 3)
			w->p[w->n++] = 0;
		return;
	}
	w32(w, s->mode == M_READ_MISMATCH ? n + 4 : n);
	w32(w, off + n >= s->size && s->mode != M_SHORT_READ);
	wbytes(w, s->cache + off, n);
}

static void nfs_write(struct fsrv *s, struct r *a, struct w *w)
{
	uint8_t fh[64];
	uint64_t off;
	uint32_t cnt, stable, len;

	rfh(a, fh);
	off = r64(a);
	cnt = r32(a);
	stable = r32(a);
	len = r32(a);
	if (s->mode == M_NOSPC || s->mode == M_ROFS) {
		w32(w, s->mode == M_NOSPC ? 28 : 30);
		wwcc(w);
		return;
	}
	assert_int_equal(len, cnt);
	assert_true(off + cnt <= FSIZE_MAX);
	memcpy(s->cache + off, a->p + a->off, cnt);
	if (off + cnt > s->size)
		s->size = off + cnt;
	if (stable != 0) {
		memcpy(s->disk + off, a->p + a->off, cnt);
		if (off + cnt > s->disk_size)
			s->disk_size = off + cnt;
	} else {
		s->unstable_writes++;
	}
	s->writes++;
	w32(w, 0);
	wwcc(w);
	w32(w, cnt);
	w32(w, stable ? 2 : 0);
	w64(w, s->verf);
}

static void nfs_proc(struct fsrv *s, uint32_t proc, struct r *a, struct w *w)
{
	uint8_t fh[64];

	switch (proc) {
	case 0:
		return;
	case 1: /* GETATTR */
		rfh(a, fh);
		w32(w, 0);
		if (s->mode == M_TRUNC_GETATTR) {
			w32(w, 1);
			w32(w, 0644);
			return;
		}
		wfattr(w, fh[0] == 'R' ? 2 : 1, s->size);
		return;
	case 3: /* LOOKUP */
		rfh(a, fh);
		if (!memcmp(a->p + a->off + 4, "missing", 7)) {
			w32(w, 2);
			w32(w, 0);
			return;
		}
		w32(w, 0);
		if (s->mode == M_BIG_FH) {
			uint8_t big[65];

			memset(big, 'x', sizeof(big));
			wbytes(w, big, sizeof(big));
		} else {
			wbytes(w, FILEH, sizeof(FILEH));
		}
		wpost(w, 1, s->size);
		wpost(w, 2, 0);
		return;
	case 6:
		nfs_read(s, a, w);
		return;
	case 7:
		nfs_write(s, a, w);
		return;
	case 8: /* CREATE */
		w32(w, 0);
		w32(w, 1);
		wbytes(w, FILEH, sizeof(FILEH));
		wpost(w, 1, s->size);
		wwcc(w);
		return;
	case 17:
		readdirplus(s, a, w);
		return;
	case 19: /* FSINFO: 4 KiB pieces */
		w32(w, 0);
		w32(w, 0);
		for (int i = 0; i < 7; i++)
			w32(w, 4096);
		w64(w, 1ull << 40);
		w32(w, 0);
		w32(w, 1);
		w32(w, 0x1b);
		return;
	case 21: /* COMMIT: what was written unstable is now on disk */
		if (s->mode == M_VERF_CHURN) {
			memcpy(s->cache, s->disk, FSIZE_MAX);
			s->size = s->disk_size;
			s->verf++;
			s->commits++;
			w32(w, 0);
			wwcc(w);
			w64(w, s->verf);
			return;
		}
		memcpy(s->disk, s->cache, s->size);
		s->disk_size = s->size;
		s->commits++;
		w32(w, 0);
		wwcc(w);
		w64(w, s->verf);
		return;
	default:
		w32(w, 10004); /* NOTSUPP */
		return;
	}
}

static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	struct fsrv *s = arg;
	uint32_t xid = fs_get_be32(msg), prog = fs_get_be32(msg + 12);
	uint32_t proc = fs_get_be32(msg + 20);
	struct r a = {msg, skip_auth(msg, skip_auth(msg, 24))};
	struct w w = {out, 0};
	enum fakesrv_action act = FAKESRV_REPLY;

	(void)len;
	(void)nth;
	pthread_mutex_lock(&s->lock);
	if (s->mode == M_PROG_UNAVAIL) {
		accepted(&w, xid, 1);
		goto out;
	}
	accepted(&w, xid, 0);
	if (prog == MOUNT3_PROGRAM)
		mount_proc(s, proc, &a, &w);
	else
		nfs_proc(s, proc, &a, &w);
	if (s->mode == M_TRUNC_READ && prog == NFS3_PROGRAM && proc == 6) {
		/* frame it ourselves, announcing what we send: the data
		 * stops 100 bytes short of its opaque length */
		size_t keep = w.n - 100;

		memmove(out + 4, out, keep);
		fs_put_be32(out, 0x80000000u | (uint32_t)keep);
		w.n = keep + 4;
		act = FAKESRV_RAW;
	}
out:
	pthread_mutex_unlock(&s->lock);
	*outlen = w.n;
	return act;
}

/* ------------------------------------------------------------ fixtures */

static void set_mode(enum mode m)
{
	pthread_mutex_lock(&S->lock);
	S->mode = m;
	pthread_mutex_unlock(&S->lock);
}

/* the server loses what it did not commit, and gets a new verifier */
static void restart(void)
{
	pthread_mutex_lock(&S->lock);
	memcpy(S->cache, S->disk, FSIZE_MAX);
	S->size = S->disk_size;
	S->verf++;
	pthread_mutex_unlock(&S->lock);
}

static void opts_init(struct nfs3_opts *o, char *msg, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->export = "/export";
	o->nfs_port = o->mount_port = fakesrv_port(fs);
	o->set_ids = true;
	o->timeo_ms = 2000;
	o->errmsg = msg;
	o->errmsg_len = len;
}

static struct nfs3_clnt *mk(void)
{
	struct nfs3_opts o;
	struct nfs3_clnt *c = NULL;
	char msg[256];

	opts_init(&o, msg, sizeof(msg));
	assert_int_equal(nfs3_mount(&c, &o), 0);
	return c;
}

static int setup(void **state)
{
	(void)state;
	S = calloc(1, sizeof(*S));
	pthread_mutex_init(&S->lock, NULL);
	S->verf = 0x1000;
	return fakesrv_start(&fs, true, srv_fn, S);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	pthread_mutex_destroy(&S->lock);
	free(S);
	return 0;
}

static struct nfs3_fh file_fh(void)
{
	struct nfs3_fh fh = {.len = sizeof(FILEH)};

	memcpy(fh.data, FILEH, sizeof(FILEH));
	return fh;
}

/* --------------------------------------------------------------- mount */

static void test_mount_learns_fsinfo(void **state)
{
	struct nfs3_clnt *c = mk();

	(void)state;
	assert_int_equal(nfs3_root(c)->len, sizeof(ROOT));
	assert_memory_equal(nfs3_root(c)->data, ROOT, sizeof(ROOT));
	assert_int_equal(nfs3_rsize(c), 4096);
	assert_int_equal(nfs3_wsize(c), 4096);
	assert_int_equal(nfs3_fsinfo_cached(c)->properties, 0x1b);
	assert_non_null(nfs3_clnt_rpc(c));
	nfs3_destroy(c);
}

static void test_mount_errors_have_messages(void **state)
{
	struct nfs3_opts o;
	struct nfs3_clnt *c;
	char msg[256];

	(void)state;
	opts_init(&o, msg, sizeof(msg));
	set_mode(M_MNT_NOENT);
	assert_int_equal(nfs3_mount(&c, &o), -ENOENT);
	assert_non_null(strstr(msg, "export /export does not exist"));
	set_mode(M_MNT_ACCES);
	assert_int_equal(nfs3_mount(&c, &o), -EACCES);
	assert_non_null(strstr(msg, "refused"));
	set_mode(M_MNT_ACCES_UNK); /* ganesha's way of saying NOENT */
	assert_int_equal(nfs3_mount(&c, &o), -ENOENT);
	assert_non_null(strstr(msg, "exports: /elsewhere"));
	set_mode(M_PROG_UNAVAIL);
	assert_int_equal(nfs3_mount(&c, &o), -EPFNOSUPPORT);
	assert_non_null(strstr(msg, "wrong server"));
	set_mode(M_NORMAL);
	/* bad options: nothing is sent */
	o.export = "export";
	assert_int_equal(nfs3_mount(&c, &o), -EINVAL);
	o.export = "/export";
	o.nconnect = 17;
	assert_int_equal(nfs3_mount(&c, &o), -EINVAL);
	o.nconnect = 0;
	o.host = NULL;
	assert_int_equal(nfs3_mount(&c, &o), -EINVAL);
	assert_int_equal(nfs3_mount(NULL, &o), -EINVAL);
	assert_int_equal(nfs3_mount(&c, NULL), -EINVAL);
}

static void test_mount_procs_and_lists(void **state)
{
	struct nfs3_opts o;
	struct rpc_clnt *mc;
	struct nfs3_mnt_res mr;
	struct nfs3_mnt_entry ent[4];
	char strs[256];
	struct nfs3_mnt_list ml = {
		.ent = ent, .cap = 4, .strbuf = strs, .strsize = sizeof(strs)};
	char msg[64];

	(void)state;
	opts_init(&o, msg, sizeof(msg));
	assert_int_equal(nfs3_mnt_clnt_create(&mc, &o), 0);
	assert_int_equal(nfs3_mnt_null(mc), 0);
	assert_int_equal(nfs3_mnt_mnt(mc, "/export", &mr), 0);
	assert_int_equal(mr.nflavors, NFS3_MNT_MAX_FLAVORS); /* 10 sent */
	assert_int_equal(mr.flavors[0], 1);
	assert_int_equal(nfs3_mnt_dump(mc, &ml), 0);
	assert_int_equal(ml.n, 2);
	assert_string_equal(ent[1].host, "hostB");
	assert_string_equal(ent[1].dir, "/other");
	assert_int_equal(nfs3_mnt_export(mc, &ml), 0);
	assert_int_equal(ml.n, 1);
	assert_string_equal(ent[0].dir, "/export");
	assert_string_equal(ent[0].host, "grp1 grp2");
	/* arrays too small: E2BIG, not an overrun */
	ml.cap = 1;
	assert_int_equal(nfs3_mnt_dump(mc, &ml), -E2BIG);
	ml.cap = 4;
	ml.strsize = 12;
	assert_int_equal(nfs3_mnt_dump(mc, &ml), -E2BIG);
	assert_int_equal(nfs3_mnt_umnt(mc, "/export"), 0);
	assert_int_equal(nfs3_mnt_umntall(mc), 0);
	assert_int_equal(nfs3_mnt_umnt(mc, ""), -EINVAL);
	assert_int_equal(nfs3_mnt_mnt(mc, "/export", NULL), -EINVAL);
	rpc_clnt_destroy(mc);
}

/* ----------------------------------------------------------- bad input */

static void test_handle_longer_than_64_refused(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_lookup_res lr;

	(void)state;
	set_mode(M_BIG_FH);
	memset(&lr, 0, sizeof(lr));
	assert_int_equal(nfs3_lookup(c, nfs3_root(c), "x", &lr), -EBADMSG);
	assert_true(lr.fh.len <= NFS3_FHSIZE);
	set_mode(M_NORMAL);
	assert_int_equal(nfs3_lookup(c, nfs3_root(c), "x", &lr), 0);
	assert_int_equal(nfs3_lookup(c, nfs3_root(c), "missing", &lr), -ENOENT);
	nfs3_destroy(c);
}

static void test_read_more_than_asked_refused(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh();
	struct nfs3_read_res rr;
	uint8_t buf[256];
	struct iovec iov = {buf, 100};

	(void)state;
	S->size = 200;
	memset(buf, 0x11, sizeof(buf));
	set_mode(M_READ_OVER);
	assert_int_equal(nfs3_read(c, &fh, 0, 100, &iov, 1, &rr), -EOVERFLOW);
	for (size_t i = 100; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x11); /* nothing past the buffer */
	set_mode(M_READ_MISMATCH);
	assert_int_equal(nfs3_read(c, &fh, 0, 100, &iov, 1, &rr), -EBADMSG);
	set_mode(M_NORMAL);
	/* the connection is still in step */
	assert_int_equal(nfs3_read(c, &fh, 0, 100, &iov, 1, &rr), 0);
	assert_int_equal(rr.count, 100);
	assert_string_equal(nfs3_strerror(-EOVERFLOW),
			    "reply carries more data than asked for");
	nfs3_destroy(c);
}

static void test_truncated_replies(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh();
	struct nfs3_getattr_res gr;
	struct nfs3_read_res rr;
	uint8_t buf[1000];
	struct iovec iov = {buf, sizeof(buf)};

	(void)state;
	S->size = 1000;
	set_mode(M_TRUNC_GETATTR);
	assert_int_equal(nfs3_getattr(c, &fh, &gr), -EBADMSG);
	set_mode(M_TRUNC_READ);
	assert_int_equal(nfs3_read(c, &fh, 0, 1000, &iov, 1, &rr), -EBADMSG);
	set_mode(M_NORMAL);
	assert_int_equal(nfs3_getattr(c, &fh, &gr), 0);
	assert_int_equal(gr.attr.size, 1000);
	nfs3_destroy(c);
}

static void test_nospc_rofs(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh();
	struct nfs3_write_res wr;
	struct iovec iov = {(void *)"x", 1};

	(void)state;
	set_mode(M_NOSPC);
	assert_int_equal(nfs3_write(c, &fh, 0, &iov, 1, 2, &wr), -ENOSPC);
	assert_int_equal(wr.status, NFS3ERR_NOSPC);
	assert_string_equal(nfs3_strerror(-ENOSPC),
			    "no space left on the server's file system");
	set_mode(M_ROFS);
	assert_int_equal(nfs3_write(c, &fh, 0, &iov, 1, 2, &wr), -EROFS);
	assert_string_equal(nfs3_strerror(-EROFS), "read-only file system");
	set_mode(M_NORMAL);
	nfs3_destroy(c);
}

/* ---------------------------------------------------------- directories */

struct names {
	unsigned int n, dots;
	char seen[64][8];
};

static int collect(const struct nfs3_dirent *e, void *arg)
{
	struct names *nm = arg;

	if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
		nm->dots++;
	if (nm->n < 64)
		snprintf(nm->seen[nm->n], 8, "%s", e->name);
	nm->n++;
	return 0;
}

static int stop_at_3(const struct nfs3_dirent *e, void *arg)
{
	(void)e;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_readdirplus_iteration(void **state)
{
	struct nfs3_clnt *c = mk();
	struct names nm = {0};
	int count = 0;

	(void)state;
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 0, collect, &nm), 0);
	assert_int_equal(nm.dots, 0); /* . and .. are left out */
	assert_int_equal(nm.n, 12);
	assert_string_equal(nm.seen[0], "f3");
	assert_string_equal(nm.seen[11], "f14");
	/* the callback stops it */
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 0, stop_at_3, &count),
		42);
	assert_int_equal(nfs3_readdirplus_iter(c, nfs3_root(c), 0, NULL, NULL),
			 -EINVAL);
	nfs3_destroy(c);
}

static void test_readdir_cookie_loop_and_no_progress(void **state)
{
	struct nfs3_clnt *c = mk();
	struct names nm = {0};

	(void)state;
	set_mode(M_DIR_LOOP);
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 0, collect, &nm),
		-ELOOP);
	/* the repeated entries were not delivered a second time */
	assert_int_equal(nm.n, 3);
	set_mode(M_DIR_EMPTY);
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 0, collect, &nm),
		-ELOOP);
	set_mode(M_NORMAL);
	nfs3_destroy(c);
}

static void test_readdir_absurd_counts(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_dirent ent[10];
	char names[4096];
	struct nfs3_dirbuf db = {ent, 10, names, sizeof(names)};
	struct nfs3_readdir_res rr;
	struct names nm = {0};

	(void)state;
	set_mode(M_DIR_MANY); /* 50 entries into an array of 10 */
	assert_int_equal(nfs3_readdirplus(c, nfs3_root(c), 0, NULL, 4096, 4096,
					  &db, &rr),
			 -E2BIG);
	/* names that do not fit the name buffer */
	db.cap = 10;
	db.names_size = 8;
	set_mode(M_DIR_MANY);
	assert_int_equal(nfs3_readdirplus(c, nfs3_root(c), 0, NULL, 4096, 4096,
					  &db, &rr),
			 -E2BIG);
	/* a reply of 20,000 entries (~3 MB) is larger than the call buffer */
	set_mode(M_DIR_HUGE);
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 0, collect, &nm),
		-EMSGSIZE);
	/* an iteration bound below the directory's size */
	set_mode(M_DIR_MANY);
	assert_int_equal(
		nfs3_readdirplus_iter(c, nfs3_root(c), 20, collect, &nm),
		-E2BIG);
	set_mode(M_NORMAL);
	nfs3_destroy(c);
}

/* --------------------------------------------------------- split I/O */

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

static void test_split_pwrite_pread(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file_opts fo = {.stable = NFS3_FILE_SYNC};
	struct nfs3_file *f;
	size_t len = 200000, n;
	uint8_t *src = malloc(len), *back = malloc(len + 1000);
	unsigned int writes;

	(void)state;
	fill(src, len, 3);
	assert_int_equal(nfs3_open(c, "file", O_CREAT, 0644, &fo, &f), 0);
	assert_int_equal(nfs3_file_pwrite(f, src, len, 5), 0);
	writes = S->writes;
	assert_int_equal(writes, (len + 4095) / 4096); /* 4 KiB pieces */
	assert_memory_equal(S->disk + 5, src, len);
	assert_int_equal(nfs3_file_pread(f, back, len + 1000, 5, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(back, src, len);
	/* a server that answers half of each piece: the rest is re-read */
	set_mode(M_SHORT_READ);
	memset(back, 0, len);
	assert_int_equal(nfs3_file_pread(f, back, 50000, 1000, &n), 0);
	assert_int_equal(n, 50000);
	assert_memory_equal(back, src + 995, 50000);
	set_mode(M_NORMAL);
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
	free(src);
	free(back);
}

struct pio_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, status;
	size_t n;
	bool eof;
};

static void pio_cb(struct nfs3_pio *io, int status, size_t done, bool eof,
		   void *arg)
{
	struct pio_wait *w = arg;

	(void)io;
	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->n = done;
	w->eof = eof;
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void test_async_split_and_validation(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh();
	struct pio_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER};
	static struct nfs3_pio io;
	uint8_t src[16 * 4096], back[16 * 4096];

	(void)state;
	fill(src, sizeof(src), 9);
	io.done = pio_cb;
	io.arg = &w;
	assert_int_equal(nfs3_pwrite_async(c, &io, &fh, src, sizeof(src), 0,
					   NFS3_FILE_SYNC),
			 0);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	w.done = 0;
	pthread_mutex_unlock(&w.lock);
	assert_int_equal(w.status, 0);
	assert_int_equal(w.n, sizeof(src));
	assert_int_equal(nfs3_pread_async(c, &io, &fh, back, sizeof(back), 0),
			 0);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	assert_int_equal(w.n, sizeof(back));
	assert_true(w.eof);
	assert_memory_equal(back, src, sizeof(src));
	/* too many pieces, no callback, no buffer */
	assert_int_equal(
		nfs3_pread_async(c, &io, &fh, back, sizeof(back) + 1, 0),
		-EINVAL);
	io.done = NULL;
	assert_int_equal(nfs3_pread_async(c, &io, &fh, back, 10, 0), -EINVAL);
	io.done = pio_cb;
	assert_int_equal(nfs3_pread_async(c, &io, &fh, NULL, 10, 0), -EINVAL);
	assert_int_equal(nfs3_pwrite_async(c, &io, &fh, src, 10, 0, 3),
			 -EINVAL);
	nfs3_destroy(c);
}

static void test_read_into_scattered_buffers(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh();
	struct nfs3_read_res rr;
	uint8_t a[7], b[1000], d[3000], guard[16];
	struct iovec iov[3] = {{a, sizeof(a)}, {b, sizeof(b)}, {d, sizeof(d)}};

	(void)state;
	fill(S->cache, 5000, 6);
	S->size = 5000;
	memset(guard, 0x77, sizeof(guard));
	assert_int_equal(nfs3_read(c, &fh, 100, 4007, iov, 3, &rr), 0);
	assert_int_equal(rr.count, 4007);
	assert_memory_equal(a, S->cache + 100, 7);
	assert_memory_equal(b, S->cache + 107, 1000);
	assert_memory_equal(d, S->cache + 1107, 3000);
	/* count below the buffers: only count bytes are touched */
	memset(d, 0, sizeof(d));
	assert_int_equal(nfs3_read(c, &fh, 0, 1010, iov, 3, &rr), 0);
	assert_memory_equal(d, S->cache + 1007, 3);
	assert_int_equal(d[3], 0);
	nfs3_destroy(c);
}

static void test_async_split_nowait_ends_short(void **state)
{
	struct nfs3_opts o;
	struct nfs3_clnt *c;
	struct nfs3_fh fh = file_fh();
	struct pio_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER};
	static struct nfs3_pio io;
	static uint8_t back[16 * 4096];
	char msg[64];

	(void)state;
	fill(S->cache, sizeof(back), 2);
	S->size = sizeof(back);
	opts_init(&o, msg, sizeof(msg));
	o.max_reqs = 2; /* two slots: most pieces cannot start */
	assert_int_equal(nfs3_mount(&c, &o), 0);
	io.done = pio_cb;
	io.arg = &w;
	io.flags = NFS3_CALL_NOWAIT;
	assert_int_equal(nfs3_pread_async(c, &io, &fh, back, sizeof(back), 0),
			 0);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	/* what started is reported, contiguous from the start */
	assert_int_equal(w.status, 0);
	assert_true(w.n >= 4096 && w.n < sizeof(back));
	assert_int_equal(w.n % 4096, 0);
	assert_false(w.eof);
	assert_memory_equal(back, S->cache, w.n);
	nfs3_destroy(c);
}

/* ------------------------------------------ UNSTABLE writes + restart */

static struct nfs3_file *open_unstable(struct nfs3_clnt *c, nfs3_resupply_fn fn,
				       void *arg)
{
	struct nfs3_file_opts fo = {
		.stable = NFS3_UNSTABLE, .resupply = fn, .resupply_arg = arg};
	struct nfs3_file *f;

	assert_int_equal(nfs3_open(c, "file", O_CREAT | O_TRUNC, 0644, &fo, &f),
			 0);
	return f;
}

static void test_commit_same_verifier_keeps_nothing(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file *f = open_unstable(c, NULL, NULL);
	struct nfs3_file_stats st;
	uint8_t src[20000];

	(void)state;
	fill(src, sizeof(src), 1);
	assert_int_equal(nfs3_file_pwrite(f, src, sizeof(src), 0), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, sizeof(src));
	assert_int_equal(nfs3_file_fsync(f), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, 0);
	assert_int_equal(st.commits, 1);
	assert_int_equal(st.verf_changes, 0);
	assert_int_equal(st.resent_bytes, 0);
	assert_memory_equal(S->disk, src, sizeof(src));
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

static void test_restart_resends_copy(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file *f = open_unstable(c, NULL, NULL);
	struct nfs3_file_stats st;
	uint8_t a[30000], b[10000], want[30000];

	(void)state;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	assert_int_equal(nfs3_file_pwrite(f, a, sizeof(a), 0), 0);
	restart(); /* "a" is lost, verifier changes */
	/* a newer write over the middle of "a", under the new verifier */
	assert_int_equal(nfs3_file_pwrite(f, b, sizeof(b), 10000), 0);
	memcpy(want, a, sizeof(a));
	memcpy(want + 10000, b, sizeof(b));
	assert_int_equal(nfs3_file_fsync(f), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.verf_changes, 1);
	/* only the parts of "a" that "b" did not overwrite went again */
	assert_int_equal(st.resent_bytes, sizeof(a) - sizeof(b));
	assert_int_equal(st.uncommitted, 0);
	assert_int_equal(S->disk_size, sizeof(want));
	assert_memory_equal(S->disk, want, sizeof(want));
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

/* Three generations of overlapping unstable writes, a restart after
 * each: every byte must end up as the newest write left it. */
static void test_restart_overlapping_generations(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file *f = open_unstable(c, NULL, NULL);
	struct nfs3_file_stats st;
	static uint8_t a[30000], b[10000], d[15000], want[40000];

	(void)state;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(d, sizeof(d), 3);
	assert_int_equal(nfs3_file_pwrite(f, a, sizeof(a), 0), 0);
	restart();
	assert_int_equal(nfs3_file_pwrite(f, b, sizeof(b), 10000), 0);
	restart();
	assert_int_equal(nfs3_file_pwrite(f, d, sizeof(d), 25000), 0);
	/* a rewrite of the start of "b", same verifier as "d" */
	assert_int_equal(nfs3_file_pwrite(f, a, 100, 10000), 0);
	memcpy(want, a, sizeof(a));
	memcpy(want + 10000, b, sizeof(b));
	memcpy(want + 25000, d, sizeof(d));
	memcpy(want + 10000, a, 100);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, sizeof(want));
	assert_int_equal(nfs3_file_fsync(f), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, 0);
	/* what the restarts lost: a[0,10000) a[20000,25000) b[100,10000) */
	assert_int_equal(st.resent_bytes, 10000 + 5000 + 9900);
	assert_int_equal(S->disk_size, sizeof(want));
	assert_memory_equal(S->disk, want, sizeof(want));
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

static void test_verifier_churn_gives_up_keeping_ranges(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file *f = open_unstable(c, NULL, NULL);
	struct nfs3_file_stats st;
	uint8_t a[5000];

	(void)state;
	fill(a, sizeof(a), 8);
	assert_int_equal(nfs3_file_pwrite(f, a, sizeof(a), 0), 0);
	set_mode(M_VERF_CHURN);
	assert_int_equal(nfs3_file_fsync(f), -EIO);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.commits, 5);
	assert_int_equal(st.uncommitted, sizeof(a)); /* kept for a retry */
	/* the server settles: a retry succeeds */
	set_mode(M_NORMAL);
	assert_int_equal(nfs3_file_fsync(f), 0);
	assert_memory_equal(S->disk, a, sizeof(a));
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

struct supply {
	const uint8_t *src;
	unsigned int calls;
	int fail;
};

static int resupply(void *arg, uint64_t off, void *buf, size_t len)
{
	struct supply *s = arg;

	s->calls++;
	if (s->fail)
		return s->fail;
	memcpy(buf, s->src + off, len);
	return 0;
}

static void test_restart_resends_resupply(void **state)
{
	struct nfs3_clnt *c = mk();
	uint8_t a[50000];
	struct supply sup = {a, 0, 0};
	struct nfs3_file *f = open_unstable(c, resupply, &sup);
	struct nfs3_file_stats st;

	(void)state;
	fill(a, sizeof(a), 5);
	assert_int_equal(nfs3_file_pwrite(f, a, 20000, 0), 0);
	assert_int_equal(nfs3_file_pwrite(f, a + 20000, 30000, 20000), 0);
	restart();
	/* a resupply failure fails fsync and keeps the ranges */
	sup.fail = -EIO;
	assert_int_equal(nfs3_file_fsync(f), -EIO);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, sizeof(a));
	sup.fail = 0;
	assert_int_equal(nfs3_file_fsync(f), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, 0);
	assert_int_equal(st.resent_bytes, sizeof(a));
	assert_memory_equal(S->disk, a, sizeof(a));
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

static void test_auto_commit_bounds_memory(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_file_opts fo = {.stable = NFS3_UNSTABLE,
				    .max_uncommitted = 8192};
	struct nfs3_file_stats st;
	struct nfs3_file *f;
	uint8_t a[20000];

	(void)state;
	fill(a, sizeof(a), 4);
	assert_int_equal(nfs3_open(c, "file", O_CREAT, 0644, &fo, &f), 0);
	assert_int_equal(nfs3_file_pwrite(f, a, sizeof(a), 0), 0);
	nfs3_file_stats(f, &st);
	assert_int_equal(st.uncommitted, 0);
	assert_int_equal(st.commits, 1);
	assert_int_equal(nfs3_file_close(f), 0);
	nfs3_destroy(c);
}

/* ----------------------------------------------------------- async API */

struct chain {
	struct nfs3_clnt *c;
	struct nfs3_fh fh;
	struct nfs3_getattr_res res;
	atomic_int left, errors, again;
	atomic_int done;
};

/* resubmit from the completion callback with NOWAIT */
static void chain_cb(struct nfs3_call *call, int status, void *arg)
{
	struct chain *ch = arg;
	int err;

	if (status)
		atomic_fetch_add(&ch->errors, 1);
	if (atomic_fetch_sub(&ch->left, 1) > 1) {
		err = nfs3_getattr_async(ch->c, call, &ch->fh, &ch->res);
		if (!err)
			return;
		atomic_fetch_add(&ch->again, 1);
	}
	atomic_store(&ch->done, 1);
}

static void test_async_resubmit_from_callback(void **state)
{
	struct chain ch = {0};
	static struct nfs3_call call;
	int i;

	(void)state;
	ch.c = mk();
	ch.fh = file_fh();
	atomic_store(&ch.left, 100);
	memset(&call, 0, sizeof(call));
	call.done = chain_cb;
	call.arg = &ch;
	call.flags = NFS3_CALL_NOWAIT;
	call.owner = 42;
	assert_int_equal(nfs3_getattr_async(ch.c, &call, &ch.fh, &ch.res), 0);
	for (i = 0; i < 2000 && !atomic_load(&ch.done); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&ch.done), 1);
	assert_int_equal(atomic_load(&ch.errors), 0);
	assert_int_equal(atomic_load(&ch.again), 0);
	assert_int_equal(atomic_load(&ch.left), 0);
	nfs3_destroy(ch.c);
}

static void never(struct nfs3_call *call, int status, void *arg)
{
	(void)call;
	(void)status;
	*(int *)arg = 1;
}

static void test_argument_validation(void **state)
{
	struct nfs3_clnt *c = mk();
	struct nfs3_fh fh = file_fh(), bad = {.len = 65};
	struct nfs3_getattr_res gr;
	struct nfs3_lookup_res lr;
	struct nfs3_write_res wr;
	struct nfs3_read_res rr;
	struct nfs3_create_res cr;
	struct nfs3_readdir_res dr;
	struct nfs3_readlink_res rl;
	struct nfs3_call call = {0};
	struct iovec iov[8];
	char longname[300], buf[8];
	int called = 0;

	(void)state;
	memset(iov, 0, sizeof(iov));
	iov[0].iov_base = buf;
	iov[0].iov_len = 1;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(nfs3_getattr(NULL, &fh, &gr), -EINVAL);
	assert_int_equal(nfs3_getattr(c, NULL, &gr), -EINVAL);
	assert_int_equal(nfs3_getattr(c, &fh, NULL), -EINVAL);
	assert_int_equal(nfs3_getattr(c, &bad, &gr), -EINVAL);
	assert_int_equal(nfs3_lookup(c, &fh, "", &lr), -EINVAL);
	assert_int_equal(nfs3_lookup(c, &fh, NULL, &lr), -EINVAL);
	assert_int_equal(nfs3_lookup(c, &fh, longname, &lr), -ENAMETOOLONG);
	assert_int_equal(nfs3_write(c, &fh, 0, iov, 0, 0, &wr), -EINVAL);
	assert_int_equal(nfs3_write(c, &fh, 0, iov, 8, 0, &wr), -EINVAL);
	assert_int_equal(nfs3_write(c, &fh, 0, iov, 1, 3, &wr), -EINVAL);
	iov[1].iov_len = 5; /* NULL base */
	assert_int_equal(nfs3_write(c, &fh, 0, iov, 2, 0, &wr), -EINVAL);
	assert_int_equal(nfs3_read(c, &fh, 0, 10, NULL, 1, &rr), -EINVAL);
	/* a destination smaller than the count */
	assert_int_equal(nfs3_read(c, &fh, 0, 10, iov, 1, &rr), -EINVAL);
	assert_int_equal(nfs3_create(c, &fh, "x", NFS3_CREATE_EXCLUSIVE, NULL,
				     NULL, &cr),
			 -EINVAL);
	assert_int_equal(nfs3_create(c, &fh, "x", 3, NULL, NULL, &cr), -EINVAL);
	assert_int_equal(nfs3_mknod(c, &fh, "x", NF3REG, NULL, 0, 0, &cr),
			 -EINVAL);
	assert_int_equal(nfs3_symlink(c, &fh, "x", NULL, "", &cr), -EINVAL);
	assert_int_equal(nfs3_setattr(c, &fh, NULL, NULL, (void *)&wr),
			 -EINVAL);
	assert_int_equal(nfs3_readlink(c, &fh, buf, 1, &rl), -EINVAL);
	assert_int_equal(nfs3_readdir(c, &fh, 0, NULL, 100, NULL, &dr),
			 -EINVAL);
	assert_int_equal(nfs3_rename(c, &fh, "a", &fh, "", (void *)&wr),
			 -EINVAL);
	assert_int_equal(nfs3_link(c, &bad, &fh, "a", (void *)&wr), -EINVAL);
	/* async: no call, no callback; and a refused call never calls back */
	assert_int_equal(nfs3_getattr_async(c, NULL, &fh, &gr), -EINVAL);
	assert_int_equal(nfs3_getattr_async(c, &call, &fh, &gr), -EINVAL);
	call.done = never;
	call.arg = &called;
	assert_int_equal(nfs3_getattr_async(c, &call, &bad, &gr), -EINVAL);
	assert_int_equal(nfs3_null_async(NULL, &call), -EINVAL);
	usleep(10000);
	assert_int_equal(called, 0);
	/* helpers */
	assert_int_equal(nfs3_lookup_path(c, NULL, &fh, NULL), -EINVAL);
	assert_int_equal(nfs3_open(c, "/", 0, 0, NULL, (void *)&called),
			 -EISDIR);
	assert_int_equal(nfs3_open(c, "f", 0, 0, NULL, NULL), -EINVAL);
	assert_int_equal(nfs3_file_fsync(NULL), -EINVAL);
	assert_int_equal(nfs3_file_close(NULL), -EINVAL);
	nfs3_destroy(c);
	nfs3_destroy(NULL);
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
		T(test_split_pwrite_pread),
		T(test_async_split_and_validation),
		T(test_read_into_scattered_buffers),
		T(test_async_split_nowait_ends_short),
		T(test_commit_same_verifier_keeps_nothing),
		T(test_restart_resends_copy),
		T(test_restart_overlapping_generations),
		T(test_verifier_churn_gives_up_keeping_ranges),
		T(test_restart_resends_resupply),
		T(test_auto_commit_bounds_memory),
		T(test_async_resubmit_from_callback),
		T(test_argument_validation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
