// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L encoder: every T- and R-message to bytes.
 *
 * One switch over the message type lists the fields in wire order; the
 * fields go through a cursor that checks every write against the end of
 * the buffer and latches an error instead of writing past it, so the
 * per-message code reads like the protocol description and cannot forget
 * a bounds check.  Run without a destination the same code computes
 * sizes (p9_msg_size()), so size and encoding cannot drift.  Bulk data
 * (Twrite, Rread) may be counted in the size field but left out
 * (P9_ENC_NODATA): the transport sends it from the caller's memory.
 * The decoder is p9_dec.c; test_p9_msg.c checks the two against each
 * other for every type.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libxprt/p9.h>

/* ------------------------------------------------------------- cursor */

struct p9_wcur {
	uint8_t *p; /* NULL: count only */
	size_t cap;
	size_t len; /* bytes of the message so far (data included) */
	size_t put; /* bytes actually written at p */
	int err;
};

static void w_bytes(struct p9_wcur *w, const void *src, size_t n)
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
static void w_skip(struct p9_wcur *w, size_t n)
{
	if (!w->err)
		w->len += n;
}

static void w8(struct p9_wcur *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void w16(struct p9_wcur *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	w_bytes(w, b, 2);
}

static void w32(struct p9_wcur *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			(uint8_t)(v >> 24)};

	w_bytes(w, b, 4);
}

static void w64(struct p9_wcur *w, uint64_t v)
{
	w32(w, (uint32_t)v);
	w32(w, (uint32_t)(v >> 32));
}

static void wstr(struct p9_wcur *w, struct p9_str s)
{
	if (!s.s && s.len) {
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	w16(w, s.len);
	w_bytes(w, s.s, s.len);
}

static void wqid(struct p9_wcur *w, const struct p9_qid *q)
{
	w8(w, q->type);
	w32(w, q->version);
	w64(w, q->path);
}

/* count[4] data[count], the data copied or only counted */
static void wdata(struct p9_wcur *w, uint32_t count, const void *data,
		  unsigned int flags)
{
	w32(w, count);
	if (flags & P9_ENC_NODATA) {
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

struct p9_str p9_str_c(const char *s)
{
	struct p9_str r = {s, 0};
	size_t n;

	if (s) {
		n = strlen(s);
		r.len = n > 0xFFFF ? 0xFFFF : (uint16_t)n;
	}
	return r;
}

const char *p9_msg_name(uint8_t type)
{
	static const struct {
		uint8_t type;
		const char *name;
	} names[] = {
		{P9_TLERROR, "Tlerror"},
		{P9_RLERROR, "Rlerror"},
		{P9_TSTATFS, "Tstatfs"},
		{P9_RSTATFS, "Rstatfs"},
		{P9_TLOPEN, "Tlopen"},
		{P9_RLOPEN, "Rlopen"},
		{P9_TLCREATE, "Tlcreate"},
		{P9_RLCREATE, "Rlcreate"},
		{P9_TSYMLINK, "Tsymlink"},
		{P9_RSYMLINK, "Rsymlink"},
		{P9_TMKNOD, "Tmknod"},
		{P9_RMKNOD, "Rmknod"},
		{P9_TRENAME, "Trename"},
		{P9_RRENAME, "Rrename"},
		{P9_TREADLINK, "Treadlink"},
		{P9_RREADLINK, "Rreadlink"},
		{P9_TGETATTR, "Tgetattr"},
		{P9_RGETATTR, "Rgetattr"},
		{P9_TSETATTR, "Tsetattr"},
		{P9_RSETATTR, "Rsetattr"},
		{P9_TXATTRWALK, "Txattrwalk"},
		{P9_RXATTRWALK, "Rxattrwalk"},
		{P9_TXATTRCREATE, "Txattrcreate"},
		{P9_RXATTRCREATE, "Rxattrcreate"},
		{P9_TREADDIR, "Treaddir"},
		{P9_RREADDIR, "Rreaddir"},
		{P9_TFSYNC, "Tfsync"},
		{P9_RFSYNC, "Rfsync"},
		{P9_TLOCK, "Tlock"},
		{P9_RLOCK, "Rlock"},
		{P9_TGETLOCK, "Tgetlock"},
		{P9_RGETLOCK, "Rgetlock"},
		{P9_TLINK, "Tlink"},
		{P9_RLINK, "Rlink"},
		{P9_TMKDIR, "Tmkdir"},
		{P9_RMKDIR, "Rmkdir"},
		{P9_TRENAMEAT, "Trenameat"},
		{P9_RRENAMEAT, "Rrenameat"},
		{P9_TUNLINKAT, "Tunlinkat"},
		{P9_RUNLINKAT, "Runlinkat"},
		{P9_TVERSION, "Tversion"},
		{P9_RVERSION, "Rversion"},
		{P9_TAUTH, "Tauth"},
		{P9_RAUTH, "Rauth"},
		{P9_TATTACH, "Tattach"},
		{P9_RATTACH, "Rattach"},
		{P9_RERROR, "Rerror"},
		{P9_TFLUSH, "Tflush"},
		{P9_RFLUSH, "Rflush"},
		{P9_TWALK, "Twalk"},
		{P9_RWALK, "Rwalk"},
		{P9_TREAD, "Tread"},
		{P9_RREAD, "Rread"},
		{P9_TWRITE, "Twrite"},
		{P9_RWRITE, "Rwrite"},
		{P9_TCLUNK, "Tclunk"},
		{P9_RCLUNK, "Rclunk"},
		{P9_TREMOVE, "Tremove"},
		{P9_RREMOVE, "Rremove"},
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	return "unknown";
}

/* ------------------------------------------------------------- encoder */

static void enc_getlock(struct p9_wcur *w, const struct p9_getlock *g)
{
	w8(w, g->type);
	w64(w, g->start);
	w64(w, g->length);
	w32(w, g->proc_id);
	wstr(w, g->client_id);
}

/* The body of @f after size[4] type[1] tag[2]. */
static void enc_body(struct p9_wcur *w, const struct p9_fcall *f,
		     unsigned int flags)
{
	const struct p9_iattr *ia;
	const struct p9_attr *a;
	unsigned int i;

	switch (f->type) {
	case P9_TVERSION:
	case P9_RVERSION:
		w32(w, f->u.version.msize);
		wstr(w, f->u.version.version);
		break;
	case P9_TAUTH:
		w32(w, f->u.tauth.afid);
		wstr(w, f->u.tauth.uname);
		wstr(w, f->u.tauth.aname);
		w32(w, f->u.tauth.n_uname);
		break;
	case P9_TATTACH:
		w32(w, f->u.tattach.fid);
		w32(w, f->u.tattach.afid);
		wstr(w, f->u.tattach.uname);
		wstr(w, f->u.tattach.aname);
		w32(w, f->u.tattach.n_uname);
		break;
	case P9_RAUTH:
	case P9_RATTACH:
	case P9_RMKDIR:
	case P9_RSYMLINK:
	case P9_RMKNOD:
		wqid(w, &f->u.rqid.qid);
		break;
	case P9_RLERROR:
		w32(w, f->u.rlerror.ecode);
		break;
	case P9_RERROR:
		/* the form ganesha sends; see the top of this file */
		w32(w, f->u.rlerror.ecode);
		break;
	case P9_TFLUSH:
		w16(w, f->u.tflush.oldtag);
		break;
	case P9_TWALK:
		if (f->u.twalk.nwname > P9_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		w32(w, f->u.twalk.fid);
		w32(w, f->u.twalk.newfid);
		w16(w, f->u.twalk.nwname);
		for (i = 0; i < f->u.twalk.nwname; i++)
			wstr(w, f->u.twalk.wname[i]);
		break;
	case P9_RWALK:
		if (f->u.rwalk.nwqid > P9_MAXWELEM) {
			w->err = -EINVAL;
			break;
		}
		w16(w, f->u.rwalk.nwqid);
		for (i = 0; i < f->u.rwalk.nwqid; i++)
			wqid(w, &f->u.rwalk.wqid[i]);
		break;
	case P9_TLOPEN:
		w32(w, f->u.tlopen.fid);
		w32(w, f->u.tlopen.flags);
		break;
	case P9_RLOPEN:
	case P9_RLCREATE:
		wqid(w, &f->u.ropen.qid);
		w32(w, f->u.ropen.iounit);
		break;
	case P9_TLCREATE:
		w32(w, f->u.tlcreate.fid);
		wstr(w, f->u.tlcreate.name);
		w32(w, f->u.tlcreate.flags);
		w32(w, f->u.tlcreate.mode);
		w32(w, f->u.tlcreate.gid);
		break;
	case P9_TREAD:
	case P9_TREADDIR:
		w32(w, f->u.tread.fid);
		w64(w, f->u.tread.offset);
		w32(w, f->u.tread.count);
		break;
	case P9_RREAD:
	case P9_RREADDIR:
		wdata(w, f->u.rread.count, f->u.rread.data, flags);
		break;
	case P9_TWRITE:
		w32(w, f->u.twrite.fid);
		w64(w, f->u.twrite.offset);
		wdata(w, f->u.twrite.count, f->u.twrite.data, flags);
		break;
	case P9_RWRITE:
		w32(w, f->u.rwrite.count);
		break;
	case P9_TCLUNK:
	case P9_TREMOVE:
	case P9_TSTATFS:
	case P9_TREADLINK:
		w32(w, f->u.tfid.fid);
		break;
	case P9_TGETATTR:
		w32(w, f->u.tgetattr.fid);
		w64(w, f->u.tgetattr.request_mask);
		break;
	case P9_RGETATTR:
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
	case P9_TSETATTR:
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
	case P9_TFSYNC:
		w32(w, f->u.tfsync.fid);
		w32(w, f->u.tfsync.datasync);
		break;
	case P9_TMKDIR:
		w32(w, f->u.tmkdir.dfid);
		wstr(w, f->u.tmkdir.name);
		w32(w, f->u.tmkdir.mode);
		w32(w, f->u.tmkdir.gid);
		break;
	case P9_TUNLINKAT:
		w32(w, f->u.tunlinkat.dfid);
		wstr(w, f->u.tunlinkat.name);
		w32(w, f->u.tunlinkat.flags);
		break;
	case P9_TRENAMEAT:
		w32(w, f->u.trenameat.olddfid);
		wstr(w, f->u.trenameat.oldname);
		w32(w, f->u.trenameat.newdfid);
		wstr(w, f->u.trenameat.newname);
		break;
	case P9_RSTATFS:
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
	case P9_TSYMLINK:
		w32(w, f->u.tsymlink.fid);
		wstr(w, f->u.tsymlink.name);
		wstr(w, f->u.tsymlink.symtgt);
		w32(w, f->u.tsymlink.gid);
		break;
	case P9_TMKNOD:
		w32(w, f->u.tmknod.dfid);
		wstr(w, f->u.tmknod.name);
		w32(w, f->u.tmknod.mode);
		w32(w, f->u.tmknod.major);
		w32(w, f->u.tmknod.minor);
		w32(w, f->u.tmknod.gid);
		break;
	case P9_TRENAME:
		w32(w, f->u.trename.fid);
		w32(w, f->u.trename.dfid);
		wstr(w, f->u.trename.name);
		break;
	case P9_RREADLINK:
		wstr(w, f->u.rreadlink.target);
		break;
	case P9_TLINK:
		w32(w, f->u.tlink.dfid);
		w32(w, f->u.tlink.fid);
		wstr(w, f->u.tlink.name);
		break;
	case P9_TLOCK:
		w32(w, f->u.tlock.fid);
		w8(w, f->u.tlock.lock.type);
		w32(w, f->u.tlock.lock.flags);
		w64(w, f->u.tlock.lock.start);
		w64(w, f->u.tlock.lock.length);
		w32(w, f->u.tlock.lock.proc_id);
		wstr(w, f->u.tlock.lock.client_id);
		break;
	case P9_RLOCK:
		w8(w, f->u.rlock.status);
		break;
	case P9_TGETLOCK:
		w32(w, f->u.tgetlock.fid);
		enc_getlock(w, &f->u.tgetlock.lock);
		break;
	case P9_RGETLOCK:
		enc_getlock(w, &f->u.rgetlock);
		break;
	case P9_TXATTRWALK:
		w32(w, f->u.txattrwalk.fid);
		w32(w, f->u.txattrwalk.newfid);
		wstr(w, f->u.txattrwalk.name);
		break;
	case P9_RXATTRWALK:
		w64(w, f->u.rxattrwalk.size);
		break;
	case P9_TXATTRCREATE:
		w32(w, f->u.txattrcreate.fid);
		wstr(w, f->u.txattrcreate.name);
		w64(w, f->u.txattrcreate.attr_size);
		w32(w, f->u.txattrcreate.flags);
		break;
	case P9_RFLUSH:
	case P9_RCLUNK:
	case P9_RREMOVE:
	case P9_RSETATTR:
	case P9_RFSYNC:
	case P9_RUNLINKAT:
	case P9_RRENAMEAT:
	case P9_RRENAME:
	case P9_RLINK:
	case P9_RXATTRCREATE:
		break;
	default:
		w->err = -EINVAL;
		break;
	}
}

static int enc_run(struct p9_wcur *w, const struct p9_fcall *f,
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
	if (w->p) {
		uint32_t n = (uint32_t)w->len;

		w->p[0] = (uint8_t)n;
		w->p[1] = (uint8_t)(n >> 8);
		w->p[2] = (uint8_t)(n >> 16);
		w->p[3] = (uint8_t)(n >> 24);
	}
	return 0;
}

size_t p9_msg_size(const struct p9_fcall *f)
{
	struct p9_wcur w = {0};

	if (!f || enc_run(&w, f, 0))
		return 0;
	return w.len;
}

int p9_msg_encode(const struct p9_fcall *f, void *buf, size_t cap,
		  unsigned int flags, size_t *lenp)
{
	struct p9_wcur w = {.p = buf, .cap = cap};
	int err;

	if (!f || !buf || !lenp || (flags & ~P9_ENC_NODATA))
		return -EINVAL;
	err = enc_run(&w, f, flags);
	if (err)
		return err;
	*lenp = w.put;
	return 0;
}

/* ------------------------------------------------------------ dirents */

int p9_dirent_put(void *buf, size_t cap, size_t *pos, const struct p9_dirent *d)
{
	struct p9_wcur w;

	if (!buf || !pos || !d || *pos > cap)
		return -EINVAL;
	w = (struct p9_wcur){.p = (uint8_t *)buf + *pos, .cap = cap - *pos};
	wqid(&w, &d->qid);
	w64(&w, d->offset);
	w8(&w, d->type);
	wstr(&w, d->name);
	if (w.err)
		return w.err;
	*pos += w.put;
	return 0;
}
