// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L decoder: bytes to every T- and R-message.
 *
 * One switch over the message type reads the fields in wire order through
 * a cursor that checks every access against the end of the message and
 * latches -EBADMSG instead of reading past it: the cursor is the only
 * thing that touches bytes.  The decoder is strict: the size field must
 * equal the bytes given, the body must end exactly at the end of the
 * message, counts and string lengths must fit in what is left, and list
 * lengths may not exceed LX_P9_MAXWELEM.  A server answering with anything
 * else gets -EBADMSG, not a best guess.  Strings and data are not copied:
 * they point into the message, so decoding allocates nothing.
 *
 * Type 107 (Rerror) needs care: 9P2000.L servers answer errors with
 * Rlerror (ecode[4]), but ganesha sends type 107 with exactly that body.
 * A 4-byte body is therefore read as an errno; anything longer as the
 * 9P2000 ename[s] with the 9P2000.u errno[4] after it when present.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libxprt/p9.h>

#include "xprt/blocks/byteorder.h"

/* ------------------------------------------------------------- cursor */

struct lx_p9_rcur {
	const uint8_t *p;
	size_t len;
	size_t off;
	int err;
};

/* Return a pointer to the next @n bytes and step over them, or NULL (and
 * latch -EBADMSG) when fewer are left. */
static const uint8_t *r_take(struct lx_p9_rcur *r, size_t n)
{
	const uint8_t *q;

	if (r->err)
		return NULL;
	if (n > r->len - r->off) {
		r->err = -EBADMSG;
		return NULL;
	}
	q = r->p + r->off;
	r->off += n;
	return q;
}

static uint8_t r8(struct lx_p9_rcur *r)
{
	const uint8_t *q = r_take(r, 1);

	return q ? q[0] : 0;
}

static uint16_t r16(struct lx_p9_rcur *r)
{
	const uint8_t *q = r_take(r, 2);

	return q ? lx_xprt_get_le16(q) : 0;
}

static uint32_t r32(struct lx_p9_rcur *r)
{
	const uint8_t *q = r_take(r, 4);

	return q ? lx_xprt_get_le32(q) : 0;
}

static uint64_t r64(struct lx_p9_rcur *r)
{
	uint64_t lo = r32(r);

	return lo | (uint64_t)r32(r) << 32;
}

static struct lx_p9_str rstr(struct lx_p9_rcur *r)
{
	struct lx_p9_str s = {NULL, 0};
	uint16_t len = r16(r);
	const uint8_t *q = r_take(r, len);

	if (q) {
		s.s = (const char *)q;
		s.len = len;
	}
	return s;
}

static void rqid(struct lx_p9_rcur *r, struct lx_p9_qid *q)
{
	q->type = r8(r);
	q->version = r32(r);
	q->path = r64(r);
}

static void rdata(struct lx_p9_rcur *r, uint32_t *count, const void **data)
{
	*count = r32(r);
	*data = r_take(r, *count);
	if (!*data)
		*count = 0;
}

/* ------------------------------------------------------------- decoder */

static void dec_getlock(struct lx_p9_rcur *r, struct lx_p9_getlock *g)
{
	g->type = r8(r);
	g->start = r64(r);
	g->length = r64(r);
	g->proc_id = r32(r);
	g->client_id = rstr(r);
}

static void dec_rerror(struct lx_p9_rcur *r, struct lx_p9_fcall *f)
{
	f->u.rlerror.ename.s = NULL;
	f->u.rlerror.ename.len = 0;
	if (r->len - r->off == 4) {
		f->u.rlerror.ecode = r32(r);
		return;
	}
	f->u.rlerror.ename = rstr(r);
	f->u.rlerror.ecode = r->len - r->off == 4 ? r32(r) : EIO;
}

static int dec_body(struct lx_p9_rcur *r, struct lx_p9_fcall *f)
{
	struct lx_p9_iattr *ia;
	struct lx_p9_attr *a;
	unsigned int i;

	switch (f->type) {
	case LX_P9_TVERSION:
	case LX_P9_RVERSION:
		f->u.version.msize = r32(r);
		f->u.version.version = rstr(r);
		break;
	case LX_P9_TAUTH:
		f->u.tauth.afid = r32(r);
		f->u.tauth.uname = rstr(r);
		f->u.tauth.aname = rstr(r);
		f->u.tauth.n_uname = r32(r);
		break;
	case LX_P9_TATTACH:
		f->u.tattach.fid = r32(r);
		f->u.tattach.afid = r32(r);
		f->u.tattach.uname = rstr(r);
		f->u.tattach.aname = rstr(r);
		f->u.tattach.n_uname = r32(r);
		break;
	case LX_P9_RAUTH:
	case LX_P9_RATTACH:
	case LX_P9_RMKDIR:
	case LX_P9_RSYMLINK:
	case LX_P9_RMKNOD:
		rqid(r, &f->u.rqid.qid);
		break;
	case LX_P9_RLERROR:
		f->u.rlerror.ecode = r32(r);
		f->u.rlerror.ename.s = NULL;
		f->u.rlerror.ename.len = 0;
		break;
	case LX_P9_RERROR:
		dec_rerror(r, f);
		break;
	case LX_P9_TFLUSH:
		f->u.tflush.oldtag = r16(r);
		break;
	case LX_P9_TWALK:
		f->u.twalk.fid = r32(r);
		f->u.twalk.newfid = r32(r);
		f->u.twalk.nwname = r16(r);
		if (f->u.twalk.nwname > LX_P9_MAXWELEM)
			return -EBADMSG;
		for (i = 0; i < f->u.twalk.nwname; i++)
			f->u.twalk.wname[i] = rstr(r);
		break;
	case LX_P9_RWALK:
		f->u.rwalk.nwqid = r16(r);
		if (f->u.rwalk.nwqid > LX_P9_MAXWELEM)
			return -EBADMSG;
		for (i = 0; i < f->u.rwalk.nwqid; i++)
			rqid(r, &f->u.rwalk.wqid[i]);
		break;
	case LX_P9_TLOPEN:
		f->u.tlopen.fid = r32(r);
		f->u.tlopen.flags = r32(r);
		break;
	case LX_P9_RLOPEN:
	case LX_P9_RLCREATE:
		rqid(r, &f->u.ropen.qid);
		f->u.ropen.iounit = r32(r);
		break;
	case LX_P9_TLCREATE:
		f->u.tlcreate.fid = r32(r);
		f->u.tlcreate.name = rstr(r);
		f->u.tlcreate.flags = r32(r);
		f->u.tlcreate.mode = r32(r);
		f->u.tlcreate.gid = r32(r);
		break;
	case LX_P9_TREAD:
	case LX_P9_TREADDIR:
		f->u.tread.fid = r32(r);
		f->u.tread.offset = r64(r);
		f->u.tread.count = r32(r);
		break;
	case LX_P9_RREAD:
	case LX_P9_RREADDIR:
		rdata(r, &f->u.rread.count, &f->u.rread.data);
		break;
	case LX_P9_TWRITE:
		f->u.twrite.fid = r32(r);
		f->u.twrite.offset = r64(r);
		rdata(r, &f->u.twrite.count, &f->u.twrite.data);
		break;
	case LX_P9_RWRITE:
		f->u.rwrite.count = r32(r);
		break;
	case LX_P9_TCLUNK:
	case LX_P9_TREMOVE:
	case LX_P9_TSTATFS:
	case LX_P9_TREADLINK:
		f->u.tfid.fid = r32(r);
		break;
	case LX_P9_TGETATTR:
		f->u.tgetattr.fid = r32(r);
		f->u.tgetattr.request_mask = r64(r);
		break;
	case LX_P9_RGETATTR:
		a = &f->u.rgetattr;
		a->valid = r64(r);
		rqid(r, &a->qid);
		a->mode = r32(r);
		a->uid = r32(r);
		a->gid = r32(r);
		a->nlink = r64(r);
		a->rdev = r64(r);
		a->size = r64(r);
		a->blksize = r64(r);
		a->blocks = r64(r);
		a->atime_sec = r64(r);
		a->atime_nsec = r64(r);
		a->mtime_sec = r64(r);
		a->mtime_nsec = r64(r);
		a->ctime_sec = r64(r);
		a->ctime_nsec = r64(r);
		a->btime_sec = r64(r);
		a->btime_nsec = r64(r);
		a->gen = r64(r);
		a->data_version = r64(r);
		break;
	case LX_P9_TSETATTR:
		ia = &f->u.tsetattr.attr;
		f->u.tsetattr.fid = r32(r);
		ia->valid = r32(r);
		ia->mode = r32(r);
		ia->uid = r32(r);
		ia->gid = r32(r);
		ia->size = r64(r);
		ia->atime_sec = r64(r);
		ia->atime_nsec = r64(r);
		ia->mtime_sec = r64(r);
		ia->mtime_nsec = r64(r);
		break;
	case LX_P9_TFSYNC:
		f->u.tfsync.fid = r32(r);
		f->u.tfsync.datasync = r32(r);
		break;
	case LX_P9_TMKDIR:
		f->u.tmkdir.dfid = r32(r);
		f->u.tmkdir.name = rstr(r);
		f->u.tmkdir.mode = r32(r);
		f->u.tmkdir.gid = r32(r);
		break;
	case LX_P9_TUNLINKAT:
		f->u.tunlinkat.dfid = r32(r);
		f->u.tunlinkat.name = rstr(r);
		f->u.tunlinkat.flags = r32(r);
		break;
	case LX_P9_TRENAMEAT:
		f->u.trenameat.olddfid = r32(r);
		f->u.trenameat.oldname = rstr(r);
		f->u.trenameat.newdfid = r32(r);
		f->u.trenameat.newname = rstr(r);
		break;
	case LX_P9_RSTATFS:
		f->u.rstatfs.type = r32(r);
		f->u.rstatfs.bsize = r32(r);
		f->u.rstatfs.blocks = r64(r);
		f->u.rstatfs.bfree = r64(r);
		f->u.rstatfs.bavail = r64(r);
		f->u.rstatfs.files = r64(r);
		f->u.rstatfs.ffree = r64(r);
		f->u.rstatfs.fsid = r64(r);
		f->u.rstatfs.namelen = r32(r);
		break;
	case LX_P9_TSYMLINK:
		f->u.tsymlink.fid = r32(r);
		f->u.tsymlink.name = rstr(r);
		f->u.tsymlink.symtgt = rstr(r);
		f->u.tsymlink.gid = r32(r);
		break;
	case LX_P9_TMKNOD:
		f->u.tmknod.dfid = r32(r);
		f->u.tmknod.name = rstr(r);
		f->u.tmknod.mode = r32(r);
		f->u.tmknod.major = r32(r);
		f->u.tmknod.minor = r32(r);
		f->u.tmknod.gid = r32(r);
		break;
	case LX_P9_TRENAME:
		f->u.trename.fid = r32(r);
		f->u.trename.dfid = r32(r);
		f->u.trename.name = rstr(r);
		break;
	case LX_P9_RREADLINK:
		f->u.rreadlink.target = rstr(r);
		break;
	case LX_P9_TLINK:
		f->u.tlink.dfid = r32(r);
		f->u.tlink.fid = r32(r);
		f->u.tlink.name = rstr(r);
		break;
	case LX_P9_TLOCK:
		f->u.tlock.fid = r32(r);
		f->u.tlock.lock.type = r8(r);
		f->u.tlock.lock.flags = r32(r);
		f->u.tlock.lock.start = r64(r);
		f->u.tlock.lock.length = r64(r);
		f->u.tlock.lock.proc_id = r32(r);
		f->u.tlock.lock.client_id = rstr(r);
		break;
	case LX_P9_RLOCK:
		f->u.rlock.status = r8(r);
		break;
	case LX_P9_TGETLOCK:
		f->u.tgetlock.fid = r32(r);
		dec_getlock(r, &f->u.tgetlock.lock);
		break;
	case LX_P9_RGETLOCK:
		dec_getlock(r, &f->u.rgetlock);
		break;
	case LX_P9_TXATTRWALK:
		f->u.txattrwalk.fid = r32(r);
		f->u.txattrwalk.newfid = r32(r);
		f->u.txattrwalk.name = rstr(r);
		break;
	case LX_P9_RXATTRWALK:
		f->u.rxattrwalk.size = r64(r);
		break;
	case LX_P9_TXATTRCREATE:
		f->u.txattrcreate.fid = r32(r);
		f->u.txattrcreate.name = rstr(r);
		f->u.txattrcreate.attr_size = r64(r);
		f->u.txattrcreate.flags = r32(r);
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
		return -EPROTO;
	}
	return 0;
}

int lx_p9_msg_decode(const void *buf, size_t len, size_t msize,
		     struct lx_p9_fcall *f)
{
	struct lx_p9_rcur r = {.p = buf, .len = len};
	uint32_t size;
	int err;

	if (!buf || !f)
		return -EINVAL;
	if (len < LX_P9_HDRSZ)
		return -EBADMSG;
	size = r32(&r);
	if (size != len)
		return -EBADMSG;
	if (msize && size > msize)
		return -EMSGSIZE;
	f->type = r8(&r);
	f->tag = r16(&r);
	err = dec_body(&r, f);
	if (err)
		return err;
	if (r.err)
		return r.err;
	if (r.off != len)
		return -EBADMSG; /* bytes after the body */
	return 0;
}

/* ------------------------------------------------------------ dirents */

int lx_p9_dirent_next(const void *buf, size_t len, size_t *pos,
		      struct lx_p9_dirent *d)
{
	struct lx_p9_rcur r = {.p = buf, .len = len};

	if (!pos || !d || (!buf && len))
		return -EINVAL;
	if (*pos >= len)
		return 0;
	r.off = *pos;
	rqid(&r, &d->qid);
	d->offset = r64(&r);
	d->type = r8(&r);
	d->name = rstr(&r);
	if (r.err)
		return r.err;
	*pos = r.off;
	return 1;
}
