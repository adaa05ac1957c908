/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake MOUNT v3 + NFS v3 server for the nfs3 unit tests (included by
 * test_nfs3_clnt.c and test_nfs3_file.c), on fakesrv: a tiny in-memory
 * file system with one directory and one file whose UNSTABLE writes are
 * lost on a simulated restart (new write verifier), and misbehaviours on
 * demand (enum mode).  Each test runs against a fresh server (setup).
 */
#ifndef TEST_NFS3_FAKESRV_H
#define TEST_NFS3_FAKESRV_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/nfs3.h>

#include "helpers/fakesrv.h"

/* not every includer uses every helper */
#define FS_UNUSED __attribute__((unused))

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
	M_NOSPC,	 /* WRITE: LX_NFS3ERR_NOSPC */
	M_ROFS,		 /* WRITE: LX_NFS3ERR_ROFS */
	M_PROG_UNAVAIL,	 /* every call: PROG_UNAVAIL */
	M_MNT_NOENT,	 /* MNT: LX_MNT3ERR_NOENT */
	M_MNT_ACCES,	 /* MNT: LX_MNT3ERR_ACCES, /export is exported */
	M_MNT_ACCES_UNK, /* MNT: LX_MNT3ERR_ACCES, nothing like it exported */
	M_VERF_CHURN,	 /* COMMIT: the server restarted again, every time */
	M_CREATE_NOFH,	 /* CREATE: no handle, no attributes */
};

struct fsrv {
	pthread_mutex_t lock;
	enum mode mode;
	uint8_t cache[FSIZE_MAX]; /* what READ sees */
	uint8_t disk[FSIZE_MAX];  /* what survives a restart */
	size_t size, disk_size;
	uint64_t verf;
	unsigned int writes, unstable_writes, commits, reads, lookups;
	/* NFS calls (not NULL) answered NFS3ERR_JUKEBOX before the real
	 * answer (~0u: all of them), and the XIDs of the NFS calls seen */
	unsigned int jukebox;
	uint32_t xids[64];
	unsigned int nxids;
};

static FS_UNUSED struct fsrv *S;
static FS_UNUSED struct fakesrv *fs;

static const uint8_t ROOT[8] = "ROOTDIR!";
static const uint8_t FILEH[8] = "THEFILE!";

/* --------------------------------------------------------- wire helpers */

struct w {
	uint8_t *p;
	size_t n;
};

static FS_UNUSED void w32(struct w *w, uint32_t v)
{
	fs_put_be32(w->p + w->n, v);
	w->n += 4;
}

static FS_UNUSED void w64(struct w *w, uint64_t v)
{
	w32(w, (uint32_t)(v >> 32));
	w32(w, (uint32_t)v);
}

static FS_UNUSED void wbytes(struct w *w, const void *b, size_t len)
{
	w32(w, (uint32_t)len);
	memcpy(w->p + w->n, b, len);
	w->n += len;
	while (w->n & 3)
		w->p[w->n++] = 0;
}

static FS_UNUSED void wfattr(struct w *w, uint32_t type, uint64_t size)
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

static FS_UNUSED void wpost(struct w *w, uint32_t type, uint64_t size)
{
	w32(w, 1);
	wfattr(w, type, size);
}

static FS_UNUSED void wwcc(struct w *w)
{
	w32(w, 0);
	w32(w, 0);
}

struct r {
	const uint8_t *p;
	size_t off;
};

static FS_UNUSED uint32_t r32(struct r *r)
{
	uint32_t v = fs_get_be32(r->p + r->off);

	r->off += 4;
	return v;
}

static FS_UNUSED uint64_t r64(struct r *r)
{
	uint64_t hi = r32(r);

	return hi << 32 | r32(r);
}

static FS_UNUSED uint32_t rfh(struct r *r, uint8_t *fh)
{
	uint32_t len = r32(r);

	memcpy(fh, r->p + r->off, len);
	r->off += (len + 3) & ~3u;
	return len;
}

static FS_UNUSED size_t skip_auth(const uint8_t *p, size_t off)
{
	return off + 8 + ((fs_get_be32(p + off + 4) + 3) & ~3u);
}

static FS_UNUSED void accepted(struct w *w, uint32_t xid, uint32_t stat)
{
	w->n += fs_rpc_accepted(w->p + w->n, xid, stat);
}

/* ------------------------------------------------------------- MOUNT */

static FS_UNUSED void mount_proc(struct fsrv *s, uint32_t proc, struct r *a,
				 struct w *w)
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

static FS_UNUSED void dirent(struct w *w, uint64_t cookie, const char *name)
{
	w32(w, 1);
	w64(w, 100 + cookie);
	wbytes(w, name, strlen(name));
	w64(w, cookie);
	wpost(w, 1, cookie);
	w32(w, 1);
	wbytes(w, FILEH, sizeof(FILEH));
}

static FS_UNUSED void readdirplus(struct fsrv *s, struct r *a, struct w *w)
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

static FS_UNUSED void nfs_read(struct fsrv *s, struct r *a, struct w *w)
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

static FS_UNUSED void nfs_write(struct fsrv *s, struct r *a, struct w *w)
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

static FS_UNUSED void nfs_proc(struct fsrv *s, uint32_t proc, struct r *a,
			       struct w *w)
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
		s->lookups++;
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
		if (s->mode == M_CREATE_NOFH) {
			w32(w, 0);
			w32(w, 0);
			wwcc(w);
			return;
		}
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

static FS_UNUSED enum fakesrv_action srv_fn(void *arg, const uint8_t *msg,
					    size_t len, uint8_t *out,
					    size_t *outlen, unsigned int nth)
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
	if (prog == LX_NFS3_PROGRAM && proc && s->nxids < 64)
		s->xids[s->nxids++] = xid;
	if (prog == LX_NFS3_PROGRAM && proc && s->jukebox) {
		if (s->jukebox != ~0u)
			s->jukebox--;
		w32(&w, 10008); /* JUKEBOX, then each procedure's resfail */
		if (proc == 3 || proc == 4 || proc == 5 || proc == 6 ||
		    (proc >= 18 && proc <= 20))
			w32(&w, 0); /* post_op_attr */
		else if (proc != 1) /* GETATTR: nothing */
			wwcc(&w);
		goto out;
	}
	if (prog == LX_MOUNT3_PROGRAM)
		mount_proc(s, proc, &a, &w);
	else
		nfs_proc(s, proc, &a, &w);
	if (s->mode == M_TRUNC_READ && prog == LX_NFS3_PROGRAM && proc == 6) {
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

static FS_UNUSED void set_mode(enum mode m)
{
	pthread_mutex_lock(&S->lock);
	S->mode = m;
	pthread_mutex_unlock(&S->lock);
}

/* the server loses what it did not commit, and gets a new verifier */
static FS_UNUSED void restart(void)
{
	pthread_mutex_lock(&S->lock);
	memcpy(S->cache, S->disk, FSIZE_MAX);
	S->size = S->disk_size;
	S->verf++;
	pthread_mutex_unlock(&S->lock);
}

static FS_UNUSED void opts_init(struct lx_nfs3_opts *o, char *msg, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->export_path = "/export";
	o->nfs_port = o->mount_port = fakesrv_port(fs);
	o->set_ids = true;
	o->timeo_ms = 2000;
	o->errmsg = msg;
	o->errmsg_len = len;
}

static FS_UNUSED struct lx_nfs3_clnt *mk(void)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	char msg[256];

	opts_init(&o, msg, sizeof(msg));
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	return c;
}

static FS_UNUSED int setup(void **state)
{
	(void)state;
	S = calloc(1, sizeof(*S));
	pthread_mutex_init(&S->lock, NULL);
	S->verf = 0x1000;
	return fakesrv_start(&fs, true, srv_fn, S);
}

static FS_UNUSED int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	pthread_mutex_destroy(&S->lock);
	free(S);
	return 0;
}

static FS_UNUSED struct lx_nfs3_fh file_fh(void)
{
	struct lx_nfs3_fh fh = {.len = sizeof(FILEH)};

	memcpy(fh.data, FILEH, sizeof(FILEH));
	return fh;
}

#endif /* TEST_NFS3_FAKESRV_H */
