// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L encoder: every T- and R-message to bytes.
 *
 * One switch over the message type lists the fields in wire order; the
 * fields go through a cursor that checks every write against the end of
 * the buffer and latches an error instead of writing past it, so the
 * per-message code reads like the protocol description and cannot forget
 * a bounds check.  Run without a destination the same code computes
 * sizes (lx_p9_msg_size()), so size and encoding cannot drift.  Bulk data
 * (Twrite, Rread) may be counted in the size field but left out
 * (LX_P9_ENC_NODATA): the transport sends it from the caller's memory.
 * The decoder is p9_dec.c; test_p9_msg.c checks the two against each
 * other for every type.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libxprt/p9.h>

#include "xprt/blocks/byteorder.h"

/* ------------------------------------------------------------- cursor */

struct lx_p9_wcur {
	uint8_t *p; /* NULL: count only */
	size_t cap;
	size_t len; /* bytes of the message so far (data included) */
	size_t put; /* bytes actually written at p */
	int err;
};

static void w_bytes(struct lx_p9_wcur *w, const void *src, size_t n)
{
	if (w->err)
		return;
	if (w->p) {
		if (n > w->cap - w->put) {
			w->err = -EMSGSIZE;
			return;
		}
		if (n)
			memcpy(w->p + w->put, src, n);
		w->put += n;
	}
	w->len += n;
}

/* Count @n bytes that are not written (data sent from elsewhere). */
static void w_skip(struct lx_p9_wcur *w, size_t n)
{
	if (!w->err)
		w->len += n;
}

static void w8(struct lx_p9_wcur *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void w16(struct lx_p9_wcur *w, uint16_t v)
{
	uint8_t b[2];

	lx_xprt_put_le16(b, v);
	w_bytes(w, b, 2);
}

static void w32(struct lx_p9_wcur *w, uint32_t v)
{
	uint8_t b[4];

	lx_xprt_put_le32(b, v);
	w_bytes(w, b, 4);
}

static void w64(struct lx_p9_wcur *w, uint64_t v)
{
	w32(w, (uint32_t)v);
	w32(w, (uint32_t)(v >> 32));
}

static void wstr(struct lx_p9_wcur *w, struct lx_p9_str s)
{
	if (!s.s && s.len) {
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	w16(w, s.len);
	w_bytes(w, s.s, s.len);
}

static void wqid(struct lx_p9_wcur *w, const struct lx_p9_qid *q)
{
	w8(w, q->type);
	w32(w, q->version);
	w64(w, q->path);
}

/* count[4] data[count], the data copied or only counted */
static void wdata(struct lx_p9_wcur *w, uint32_t count, const void *data,
		  unsigned int flags)
{
	w32(w, count);
	if (flags & LX_P9_ENC_NODATA) {
		w_skip(w, count);
		return;
	}
	if (!data && count) {
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	w_bytes(w, data, count);
}

/* ------------------------------------------------------------- helpers */

struct lx_p9_str lx_p9_str_c(const char *s)
{
	struct lx_p9_str r = {s, 0};
	size_t n;

	if (s) {
		n = strlen(s);
		r.len = n > 0xFFFF ? 0xFFFF : (uint16_t)n;
	}
	return r;
}

const char *lx_p9_msg_name(uint8_t type)
{
	static const struct {
		uint8_t type;
		const char *name;
	} names[] = {
		{LX_P9_TLERROR, "Tlerror"},
		{LX_P9_RLERROR, "Rlerror"},
		{LX_P9_TSTATFS, "Tstatfs"},
		{LX_P9_RSTATFS, "Rstatfs"},
		{LX_P9_TLOPEN, "Tlopen"},
		{LX_P9_RLOPEN, "Rlopen"},
		{LX_P9_TLCREATE, "Tlcreate"},
		{LX_P9_RLCREATE, "Rlcreate"},
		{LX_P9_TSYMLINK, "Tsymlink"},
		{LX_P9_RSYMLINK, "Rsymlink"},
		{LX_P9_TMKNOD, "Tmknod"},
		{LX_P9_RMKNOD, "Rmknod"},
		{LX_P9_TRENAME, "Trename"},
		{LX_P9_RRENAME, "Rrename"},
		{LX_P9_TREADLINK, "Treadlink"},
		{LX_P9_RREADLINK, "Rreadlink"},
		{LX_P9_TGETATTR, "Tgetattr"},
		{LX_P9_RGETATTR, "Rgetattr"},
		{LX_P9_TSETATTR, "Tsetattr"},
		{LX_P9_RSETATTR, "Rsetattr"},
		{LX_P9_TXATTRWALK, "Txattrwalk"},
		{LX_P9_RXATTRWALK, "Rxattrwalk"},
		{LX_P9_TXATTRCREATE, "Txattrcreate"},
		{LX_P9_RXATTRCREATE, "Rxattrcreate"},
		{LX_P9_TREADDIR, "Treaddir"},
		{LX_P9_RREADDIR, "Rreaddir"},
		{LX_P9_TFSYNC, "Tfsync"},
		{LX_P9_RFSYNC, "Rfsync"},
		{LX_P9_TLOCK, "Tlock"},
		{LX_P9_RLOCK, "Rlock"},
		{LX_P9_TGETLOCK, "Tgetlock"},
		{LX_P9_RGETLOCK, "Rgetlock"},
		{LX_P9_TLINK, "Tlink"},
		{LX_P9_RLINK, "Rlink"},
		{LX_P9_TMKDIR, "Tmkdir"},
		{LX_P9_RMKDIR, "Rmkdir"},
		{LX_P9_TRENAMEAT, "Trenameat"},
		{LX_P9_RRENAMEAT, "Rrenameat"},
		{LX_P9_TUNLINKAT, "Tunlinkat"},
		{LX_P9_RUNLINKAT, "Runlinkat"},
		{LX_P9_TVERSION, "Tversion"},
		{LX_P9_RVERSION, "Rversion"},
		{LX_P9_TAUTH, "Tauth"},
		{LX_P9_RAUTH, "Rauth"},
		{LX_P9_TATTACH, "Tattach"},
		{LX_P9_RATTACH, "Rattach"},
		{LX_P9_RERROR, "Rerror"},
		{LX_P9_TFLUSH, "Tflush"},
		{LX_P9_RFLUSH, "Rflush"},
		{LX_P9_TWALK, "Twalk"},
		{LX_P9_RWALK, "Rwalk"},
		{LX_P9_TREAD, "Tread"},
		{LX_P9_RREAD, "Rread"},
		{LX_P9_TWRITE, "Twrite"},
		{LX_P9_RWRITE, "Rwrite"},
		{LX_P9_TCLUNK, "Tclunk"},
		{LX_P9_RCLUNK, "Rclunk"},
		{LX_P9_TREMOVE, "Tremove"},
		{LX_P9_RREMOVE, "Rremove"},
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	return "unknown";
}

/* ------------------------------------------------------------- encoder */

static void enc_getlock(struct lx_p9_wcur *w, const struct lx_p9_getlock *g)
{
	w8(w, g->type);
	w64(w, g->start);
	w64(w, g->length);
	w32(w, g->proc_id);
	wstr(w, g->client_id);
}

/* The body of @f after size[4] type[1] tag[2]. */
static void enc_body(struct lx_p9_wcur *w, const struct lx_p9_fcall *f,
		     unsigned int flags)
{
	const struct lx_p9_iattr *ia;
	const struct lx_p9_attr *a;
	unsigned int i;

	switch (f->type) {
	case LX_P9_TVERSION:
	case LX_P9_RVERSION:
		w32(w, f->u.version.msize);
		wstr(w, f->u.version.version);
		break;
	case LX_P9_TAUTH:
		w32(w, f->u.tauth.afid);
		wstr(w, f->u.tauth.uname);
		wstr(w, f->u.tauth.aname);
		w32(w, f->u.tauth.n_uname);
		break;
	case LX_P9_TATTACH:
		w32(w, f->u.tattach.fid);
		w32(w, f->u.tattach.afid);
		wstr(w, f->u.tattach.uname);
		wstr(w, f->u.tattach.aname);
		w32(w, f->u.tattach.n_uname);
		break;
	case LX_P9_RAUTH:
	case LX_P9_RATTACH:
	case LX_P9_RMKDIR:
	case LX_P9_RSYMLINK:
	case LX_P9_RMKNOD:
		wqid(w, &f->u.rqid.qid);
		break;
	case LX_P9_RLERROR:
		w32(w, f->u.rlerror.ecode);
		break;
	case LX_P9_RERROR:
		/* the form ganesha sends; see the top of this file */
		w32(w, f->u.rlerror.ecode);
		break;
	case LX_P9_TFLUSH:
		w16(w, f->u.tflush.oldtag);
		break;
	case LX_P9_TWALK:
		if (f->u.twalk.nwname > LX_P9_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		w32(w, f->u.twalk.fid);
		w32(w, f->u.twalk.newfid);
		w16(w, f->u.twalk.nwname);
		for (i = 0; i < f->u.twalk.nwname; i++)
			wstr(w, f->u.twalk.wname[i]);
		break;
	case LX_P9_RWALK:
		if (f->u.rwalk.nwqid > LX_P9_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		w16(w, f->u.rwalk.nwqid);
		for (i = 0; i < f->u.rwalk.nwqid; i++)
			wqid(w, &f->u.rwalk.wqid[i]);
		break;
	case LX_P9_TLOPEN:
		w32(w, f->u.tlopen.fid);
		w32(w, f->u.tlopen.flags);
		break;
	case LX_P9_RLOPEN:
	case LX_P9_RLCREATE:
		wqid(w, &f->u.ropen.qid);
		w32(w, f->u.ropen.iounit);
		break;
	case LX_P9_TLCREATE:
		w32(w, f->u.tlcreate.fid);
		wstr(w, f->u.tlcreate.name);
		w32(w, f->u.tlcreate.flags);
		w32(w, f->u.tlcreate.mode);
		w32(w, f->u.tlcreate.gid);
		break;
	case LX_P9_TREAD:
	case LX_P9_TREADDIR:
		w32(w, f->u.tread.fid);
		w64(w, f->u.tread.offset);
		w32(w, f->u.tread.count);
		break;
	case LX_P9_RREAD:
	case LX_P9_RREADDIR:
		wdata(w, f->u.rread.count, f->u.rread.data, flags);
		break;
	case LX_P9_TWRITE:
		w32(w, f->u.twrite.fid);
		w64(w, f->u.twrite.offset);
		wdata(w, f->u.twrite.count, f->u.twrite.data, flags);
		break;
	case LX_P9_RWRITE:
		w32(w, f->u.rwrite.count);
		break;
	case LX_P9_TCLUNK:
	case LX_P9_TREMOVE:
	case LX_P9_TSTATFS:
	case LX_P9_TREADLINK:
		w32(w, f->u.tfid.fid);
		break;
	case LX_P9_TGETATTR:
		w32(w, f->u.tgetattr.fid);
		w64(w, f->u.tgetattr.request_mask);
		break;
	case LX_P9_RGETATTR:
		a = &f->u.rgetattr;
		w64(w, a->valid);
		wqid(w, &a->qid);
		w32(w, a->mode);
		w32(w, a->uid);
		w32(w, a->gid);
		w64(w, a->nlink);
		w64(w, a->rdev);
		w64(w, a->size);
		w64(w, a->blksize);
		w64(w, a->blocks);
		w64(w, a->atime_sec);
		w64(w, a->atime_nsec);
		w64(w, a->mtime_sec);
		w64(w, a->mtime_nsec);
		w64(w, a->ctime_sec);
		w64(w, a->ctime_nsec);
		w64(w, a->btime_sec);
		w64(w, a->btime_nsec);
		w64(w, a->gen);
		w64(w, a->data_version);
		break;
	case LX_P9_TSETATTR:
		ia = &f->u.tsetattr.attr;
		w32(w, f->u.tsetattr.fid);
		w32(w, ia->valid);
		w32(w, ia->mode);
		w32(w, ia->uid);
		w32(w, ia->gid);
		w64(w, ia->size);
		w64(w, ia->atime_sec);
		w64(w, ia->atime_nsec);
		w64(w, ia->mtime_sec);
		w64(w, ia->mtime_nsec);
		break;
	case LX_P9_TFSYNC:
		w32(w, f->u.tfsync.fid);
		w32(w, f->u.tfsync.datasync);
		break;
	case LX_P9_TMKDIR:
		w32(w, f->u.tmkdir.dfid);
		wstr(w, f->u.tmkdir.name);
		w32(w, f->u.tmkdir.mode);
		w32(w, f->u.tmkdir.gid);
		break;
	case LX_P9_TUNLINKAT:
		w32(w, f->u.tunlinkat.dfid);
		wstr(w, f->u.tunlinkat.name);
		w32(w, f->u.tunlinkat.flags);
		break;
	case LX_P9_TRENAMEAT:
		w32(w, f->u.trenameat.olddfid);
		wstr(w, f->u.trenameat.oldname);
		w32(w, f->u.trenameat.newdfid);
		wstr(w, f->u.trenameat.newname);
		break;
	case LX_P9_RSTATFS:
		w32(w, f->u.rstatfs.type);
		w32(w, f->u.rstatfs.bsize);
		w64(w, f->u.rstatfs.blocks);
		w64(w, f->u.rstatfs.bfree);
		w64(w, f->u.rstatfs.bavail);
		w64(w, f->u.rstatfs.files);
		w64(w, f->u.rstatfs.ffree);
		w64(w, f->u.rstatfs.fsid);
		w32(w, f->u.rstatfs.namelen);
		break;
	case LX_P9_TSYMLINK:
		w32(w, f->u.tsymlink.fid);
		wstr(w, f->u.tsymlink.name);
		wstr(w, f->u.tsymlink.symtgt);
		w32(w, f->u.tsymlink.gid);
		break;
	case LX_P9_TMKNOD:
		w32(w, f->u.tmknod.dfid);
		wstr(w, f->u.tmknod.name);
		w32(w, f->u.tmknod.mode);
		w32(w, f->u.tmknod.major);
		w32(w, f->u.tmknod.minor);
		w32(w, f->u.tmknod.gid);
		break;
	case LX_P9_TRENAME:
		w32(w, f->u.trename.fid);
		w32(w, f->u.trename.dfid);
		wstr(w, f->u.trename.name);
		break;
	case LX_P9_RREADLINK:
		wstr(w, f->u.rreadlink.target);
		break;
	case LX_P9_TLINK:
		w32(w, f->u.tlink.dfid);
		w32(w, f->u.tlink.fid);
		wstr(w, f->u.tlink.name);
		break;
	case LX_P9_TLOCK:
		w32(w, f->u.tlock.fid);
		w8(w, f->u.tlock.lock.type);
		w32(w, f->u.tlock.lock.flags);
		w64(w, f->u.tlock.lock.start);
		w64(w, f->u.tlock.lock.length);
		w32(w, f->u.tlock.lock.proc_id);
		wstr(w, f->u.tlock.lock.client_id);
		break;
	case LX_P9_RLOCK:
		w8(w, f->u.rlock.status);
		break;
	case LX_P9_TGETLOCK:
		w32(w, f->u.tgetlock.fid);
		enc_getlock(w, &f->u.tgetlock.lock);
		break;
	case LX_P9_RGETLOCK:
		enc_getlock(w, &f->u.rgetlock);
		break;
	case LX_P9_TXATTRWALK:
		w32(w, f->u.txattrwalk.fid);
		w32(w, f->u.txattrwalk.newfid);
		wstr(w, f->u.txattrwalk.name);
		break;
	case LX_P9_RXATTRWALK:
		w64(w, f->u.rxattrwalk.size);
		break;
	case LX_P9_TXATTRCREATE:
		w32(w, f->u.txattrcreate.fid);
		wstr(w, f->u.txattrcreate.name);
		w64(w, f->u.txattrcreate.attr_size);
		w32(w, f->u.txattrcreate.flags);
		break;
	case LX_P9_RFLUSH:
	case LX_P9_RCLUNK:
	case LX_P9_RREMOVE:
	case LX_P9_RSETATTR:
	case LX_P9_RFSYNC:
	case LX_P9_RUNLINKAT:
	case LX_P9_RRENAMEAT:
	case LX_P9_RRENAME:
	case LX_P9_RLINK:
	case LX_P9_RXATTRCREATE:
		break;
	default:
		w->err = -EINVAL;
		break;
	}
}

static int enc_run(struct lx_p9_wcur *w, const struct lx_p9_fcall *f,
		   unsigned int flags)
{
	w32(w, 0); /* size, patched below */
	w8(w, f->type);
	w16(w, f->tag);
	enc_body(w, f, flags);
	if (w->err)
		return w->err;
	if (w->len > UINT32_MAX)
		return -EMSGSIZE;
	if (w->p)
		lx_xprt_put_le32(w->p, (uint32_t)w->len);
	return 0;
}

size_t lx_p9_msg_size(const struct lx_p9_fcall *f)
{
	struct lx_p9_wcur w = {0};

	if (!f || enc_run(&w, f, 0))
		return 0;
	return w.len;
}

int lx_p9_msg_encode(const struct lx_p9_fcall *f, void *buf, size_t cap,
		     unsigned int flags, size_t *lenp)
{
	struct lx_p9_wcur w = {.p = buf, .cap = cap};
	int err;

	if (!f || !buf || !lenp || (flags & ~LX_P9_ENC_NODATA))
		return -EINVAL;
	err = enc_run(&w, f, flags);
	if (err)
		return err;
	*lenp = w.put;
	return 0;
}

/* ------------------------------------------------------------ dirents */

int lx_p9_dirent_put(void *buf, size_t cap, size_t *pos,
		     const struct lx_p9_dirent *d)
{
	struct lx_p9_wcur w;

	if (!buf || !pos || !d || *pos > cap)
		return -EINVAL;
	w = (struct lx_p9_wcur){.p = (uint8_t *)buf + *pos, .cap = cap - *pos};
	wqid(&w, &d->qid);
	w64(&w, d->offset);
	w8(&w, d->type);
	wstr(&w, d->name);
	if (w.err)
		return w.err;
	*pos += w.put;
	return 0;
}
