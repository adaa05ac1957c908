// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 XDR (RFC 1813 section 3), written by hand on libtirpc's primitives.
 *
 * Why by hand: rpcgen's decoders allocate every variable-length item
 * (handles, names, entry lists) and decode into its own types, and the
 * hot procedures (GETATTR, LOOKUP, ACCESS, READ, WRITE, COMMIT) must not
 * allocate at all.  Here every decoder writes into the caller's structs:
 * handles are fixed 64-byte arrays with a length, names are copied into
 * the caller's buffers, and the fixed 84-byte fattr3 block is read in one
 * go through xdr_inline() (the reply buffer is word-aligned) with a
 * field-by-field fallback for streams that cannot inline.
 *
 * READ results are decoded from the "reduced" stream (RFC 8166 section
 * 3.4, which the transport produces over TCP as well): the opaque length
 * of the data is there, the data and its padding are not, because
 * lx_nfs3_read_place() had the transport put them in the caller's memory.
 * If a reply arrived without placement (a server that split its reply
 * into tiny record fragments), the data is still inline and is copied out
 * here, with the same bound.
 *
 * Strictness: booleans must be 0 or 1, discriminants must be known, a
 * handle longer than 64 bytes or a name longer than LX_NFS3_MAXNAMLEN fails
 * the decode; a malformed reply can never make a decoder write outside
 * the caller's structs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"
#include "xprt/blocks/byteorder.h"
#include "xprt/blocks/util.h"

/* ------------------------------------------------------------ primitives */

static bool_t u32(XDR *x, uint32_t *v)
{
	return xdr_u_int(x, (u_int *)v);
}

static bool_t u64(XDR *x, uint64_t *v)
{
	return xdr_u_int64_t(x, v);
}

static bool_t put32(XDR *x, uint32_t v)
{
	return xdr_u_int(x, (u_int *)&v);
}

static bool_t put64(XDR *x, uint64_t v)
{
	return xdr_u_int64_t(x, &v);
}

/* An XDR bool, strictly 0 or 1. */
static bool_t boolean(XDR *x, bool *b)
{
	uint32_t v;

	if (!u32(x, &v) || v > 1)
		return FALSE;
	*b = v;
	return TRUE;
}

static uint32_t rd32(const int32_t **p)
{
	return ntohl((uint32_t) * (*p)++);
}

static uint64_t rd64(const int32_t **p)
{
	uint64_t hi = rd32(p);

	return hi << 32 | rd32(p);
}

static bool_t time3(XDR *x, struct lx_nfs3_time *t)
{
	return u32(x, &t->sec) && u32(x, &t->nsec);
}

/* ---------------------------------------------------------------- types */

bool_t lx_nfs3_xdr_fh(XDR *x, struct lx_nfs3_fh *fh)
{
	uint32_t len;

	if (x->x_op == XDR_ENCODE) {
		if (fh->len > LX_NFS3_FHSIZE)
			return FALSE;
		return put32(x, fh->len) &&
		       xdr_opaque(x, (char *)fh->data, fh->len);
	}
	if (!u32(x, &len) || len > LX_NFS3_FHSIZE)
		return FALSE;
	fh->len = len;
	return xdr_opaque(x, (char *)fh->data, len);
}

static bool_t enc_fh(XDR *x, const struct lx_nfs3_fh *fh)
{
	return lx_nfs3_xdr_fh(x, (struct lx_nfs3_fh *)fh);
}

static void fattr_inline(const int32_t *p, struct lx_nfs3_fattr *a)
{
	a->type = rd32(&p);
	a->mode = rd32(&p);
	a->nlink = rd32(&p);
	a->uid = rd32(&p);
	a->gid = rd32(&p);
	a->size = rd64(&p);
	a->used = rd64(&p);
	a->rdev_major = rd32(&p);
	a->rdev_minor = rd32(&p);
	a->fsid = rd64(&p);
	a->fileid = rd64(&p);
	a->atime.sec = rd32(&p);
	a->atime.nsec = rd32(&p);
	a->mtime.sec = rd32(&p);
	a->mtime.nsec = rd32(&p);
	a->ctime.sec = rd32(&p);
	a->ctime.nsec = rd32(&p);
}

/* Decode only (attributes are never sent whole). */
bool_t lx_nfs3_xdr_fattr(XDR *x, struct lx_nfs3_fattr *a)
{
	const int32_t *p = (const int32_t *)xdr_inline(x, LX_NFS3_FATTR_XDR);

	if (p) {
		fattr_inline(p, a);
		return TRUE;
	}
	return u32(x, &a->type) && u32(x, &a->mode) && u32(x, &a->nlink) &&
	       u32(x, &a->uid) && u32(x, &a->gid) && u64(x, &a->size) &&
	       u64(x, &a->used) && u32(x, &a->rdev_major) &&
	       u32(x, &a->rdev_minor) && u64(x, &a->fsid) &&
	       u64(x, &a->fileid) && time3(x, &a->atime) &&
	       time3(x, &a->mtime) && time3(x, &a->ctime);
}

bool_t lx_nfs3_xdr_post_attr(XDR *x, struct lx_nfs3_post_attr *a)
{
	if (!boolean(x, &a->present))
		return FALSE;
	return !a->present || lx_nfs3_xdr_fattr(x, &a->attr);
}

bool_t lx_nfs3_xdr_wcc(XDR *x, struct lx_nfs3_wcc *w)
{
	if (!boolean(x, &w->before_present))
		return FALSE;
	if (w->before_present &&
	    !(u64(x, &w->before_size) && time3(x, &w->before_mtime) &&
	      time3(x, &w->before_ctime)))
		return FALSE;
	return lx_nfs3_xdr_post_attr(x, &w->after);
}

static bool_t set_time(XDR *x, uint32_t how, const struct lx_nfs3_time *t)
{
	if (how > LX_NFS3_SET_TO_CLIENT_TIME || !put32(x, how))
		return FALSE;
	return how != LX_NFS3_SET_TO_CLIENT_TIME ||
	       (put32(x, t->sec) && put32(x, t->nsec));
}

/* Encode only.  NULL encodes "set nothing". */
bool_t lx_nfs3_xdr_sattr(XDR *x, const struct lx_nfs3_sattr *sa)
{
	static const struct lx_nfs3_sattr none;

	if (!sa)
		sa = &none;
	if (!put32(x, sa->set_mode) || (sa->set_mode && !put32(x, sa->mode)))
		return FALSE;
	if (!put32(x, sa->set_uid) || (sa->set_uid && !put32(x, sa->uid)))
		return FALSE;
	if (!put32(x, sa->set_gid) || (sa->set_gid && !put32(x, sa->gid)))
		return FALSE;
	if (!put32(x, sa->set_size) || (sa->set_size && !put64(x, sa->size)))
		return FALSE;
	return set_time(x, sa->atime_how, &sa->atime) &&
	       set_time(x, sa->mtime_how, &sa->mtime);
}

bool_t lx_nfs3_xdr_name(XDR *x, const char *name)
{
	char *s = (char *)name;

	return xdr_string(x, &s, LX_NFS3_MAXNAMLEN);
}

static bool_t diropargs(XDR *x, const struct lx_nfs3_diropargs *d)
{
	return enc_fh(x, d->dir) && lx_nfs3_xdr_name(x, d->name);
}

static bool_t verf(XDR *x, uint8_t *v)
{
	return xdr_opaque(x, (char *)v, LX_NFS3_VERFSIZE);
}

/* ------------------------------------------------------------- encoders */

bool_t lx_nfs3_enc_fh(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh(x, a->fh);
}

bool_t lx_nfs3_enc_setattr(XDR *x, const struct lx_nfs3_args *a)
{
	if (!enc_fh(x, a->fh) || !lx_nfs3_xdr_sattr(x, a->sa))
		return FALSE;
	if (!a->guard)
		return put32(x, 0);
	return put32(x, 1) && put32(x, a->guard->sec) &&
	       put32(x, a->guard->nsec);
}

bool_t lx_nfs3_enc_diropargs(XDR *x, const struct lx_nfs3_args *a)
{
	return diropargs(x, &a->where);
}

bool_t lx_nfs3_enc_access(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh(x, a->fh) && put32(x, a->count);
}

/* READ and COMMIT: the file, an offset, a count.  (libtirpc's way; the
 * fixed-layout encoder at the end of this file is the one calls use.) */
bool_t lx_nfs3__enc_read_xdr(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh(x, a->fh) && put64(x, a->offset) && put32(x, a->count);
}

/* The data follows from the caller's memory (lx_rpc_call_args.payload). */
bool_t lx_nfs3__enc_write_xdr(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh(x, a->fh) && put64(x, a->offset) && put32(x, a->count) &&
	       put32(x, a->how) && put32(x, a->count);
}

bool_t lx_nfs3_enc_create(XDR *x, const struct lx_nfs3_args *a)
{
	if (!diropargs(x, &a->where) || !put32(x, a->how))
		return FALSE;
	switch (a->how) {
	case LX_NFS3_CREATE_UNCHECKED:
	case LX_NFS3_CREATE_GUARDED:
		return lx_nfs3_xdr_sattr(x, a->sa);
	case LX_NFS3_CREATE_EXCLUSIVE:
		return a->verf && verf(x, (uint8_t *)a->verf);
	default:
		return FALSE;
	}
}

bool_t lx_nfs3_enc_mkdir(XDR *x, const struct lx_nfs3_args *a)
{
	return diropargs(x, &a->where) && lx_nfs3_xdr_sattr(x, a->sa);
}

bool_t lx_nfs3_enc_symlink(XDR *x, const struct lx_nfs3_args *a)
{
	char *t = (char *)a->target;

	return diropargs(x, &a->where) && lx_nfs3_xdr_sattr(x, a->sa) &&
	       xdr_string(x, &t, LX_NFS3_MAXPATHLEN);
}

bool_t lx_nfs3_enc_mknod(XDR *x, const struct lx_nfs3_args *a)
{
	if (!diropargs(x, &a->where) || !put32(x, a->type))
		return FALSE;
	switch (a->type) {
	case NF3CHR:
	case NF3BLK:
		return lx_nfs3_xdr_sattr(x, a->sa) && put32(x, a->major) &&
		       put32(x, a->minor);
	case NF3SOCK:
	case NF3FIFO:
		return lx_nfs3_xdr_sattr(x, a->sa);
	default:
		return FALSE;
	}
}

bool_t lx_nfs3_enc_rename(XDR *x, const struct lx_nfs3_args *a)
{
	return diropargs(x, &a->where) && diropargs(x, &a->to);
}

bool_t lx_nfs3_enc_link(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh(x, a->fh) && diropargs(x, &a->where);
}

bool_t lx_nfs3_enc_readdir(XDR *x, const struct lx_nfs3_args *a)
{
	static const uint8_t zero[LX_NFS3_VERFSIZE];

	return enc_fh(x, a->fh) && put64(x, a->cookie) &&
	       verf(x, (uint8_t *)(a->verf ? a->verf : zero)) &&
	       put32(x, a->count);
}

bool_t lx_nfs3_enc_readdirplus(XDR *x, const struct lx_nfs3_args *a)
{
	return lx_nfs3_enc_readdir(x, a) && put32(x, a->count2);
}

/* ------------------------------------------------------------- decoders */

bool_t lx_nfs3_dec_getattr(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_getattr_res *r = c->res;

	if (!u32(x, &r->status))
		return FALSE;
	return r->status != LX_NFS3_OK || lx_nfs3_xdr_fattr(x, &r->attr);
}

/* SETATTR, REMOVE, RMDIR: wcc_data in both arms */
bool_t lx_nfs3_dec_wcc_res(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_wcc_res *r = c->res;

	return u32(x, &r->status) && lx_nfs3_xdr_wcc(x, &r->wcc);
}

bool_t lx_nfs3_dec_lookup(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_lookup_res *r = c->res;

	if (!u32(x, &r->status))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return lx_nfs3_xdr_post_attr(x, &r->dir_attr);
	return lx_nfs3_xdr_fh(x, &r->fh) &&
	       lx_nfs3_xdr_post_attr(x, &r->attr) &&
	       lx_nfs3_xdr_post_attr(x, &r->dir_attr);
}

bool_t lx_nfs3_dec_access(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_access_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	return r->status != LX_NFS3_OK || u32(x, &r->access);
}

bool_t lx_nfs3_dec_readlink(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_readlink_res *r = c->res;
	const char *p;
	uint32_t len;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	if (!u32(x, &len))
		return FALSE;
	if (len > LX_NFS3_MAXPATHLEN || len >= c->u.str.size) {
		c->err = -ENAMETOOLONG;
		return FALSE;
	}
	p = (const char *)xdr_inline(x, (u_int)((len + 3) & ~3u));
	if (!p)
		return FALSE;
	memcpy(c->u.str.buf, p, len);
	c->u.str.buf[len] = '\0';
	r->len = len;
	return TRUE;
}

/*
 * READ3res: status, post_op_attr, then for LX_NFS3_OK count, eof, and the
 * data's opaque length.  Tell the transport where the data starts and how
 * long it is; refuse more than the caller asked for.
 */
int lx_nfs3_read_place(void *arg, const uint8_t *b, size_t have, size_t *off,
		       size_t *len)
{
	struct lx_nfs3_ctx *c = arg;
	uint32_t follows, n;
	size_t need;

	if (have < 8)
		return 8;
	if (lx_xprt_get_be32(b) != LX_NFS3_OK) {
		*len = 0;
		return 0;
	}
	follows = lx_xprt_get_be32(b + 4);
	if (follows > 1)
		return -EBADMSG;
	need = 8 + (follows ? LX_NFS3_FATTR_XDR : 0) + 12;
	if (have < need)
		return (int)need;
	n = lx_xprt_get_be32(b + need - 4);
	if (n > c->u.rd.max) {
		c->err = -EOVERFLOW;
		return -EOVERFLOW;
	}
	c->u.rd.placed = true;
	c->u.rd.plen = n;
	*off = need;
	*len = n;
	return 0;
}

/* Data that was not placed by the transport: copy it out of the stream. */
static bool_t read_inline(XDR *x, struct lx_nfs3_ctx *c, uint32_t len)
{
	struct lx_xprt_iter it;
	const void *p;

	if (len > c->u.rd.max) {
		c->err = -EOVERFLOW;
		return FALSE;
	}
	p = xdr_inline(x, (u_int)((len + 3) & ~3u));
	if (!p ||
	    lx_xprt_iter_iovec(&it, c->u.rd.iov, c->u.rd.iovcnt, c->u.rd.max) ||
	    lx_xprt_iter_copy_to(&it, p, len) != len)
		return FALSE;
	return TRUE;
}

/* count, eof and the data's length of a READ3resok, read by either path:
 * the same checks on both. */
static bool_t read_tail(XDR *x, struct lx_nfs3_ctx *c, uint32_t count,
			uint32_t eof, uint32_t len)
{
	struct lx_nfs3_read_res *r = c->res;

	if (eof > 1 || count != len)
		return FALSE;
	r->count = count;
	r->eof = eof;
	if (c->u.rd.placed)
		return len == c->u.rd.plen;
	return read_inline(x, c, len);
}

/* READ3res the libtirpc way (the fixed-layout decoder's fallback) */
bool_t lx_nfs3__dec_read_xdr(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_read_res *r = c->res;
	uint32_t count, eof, len;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return u32(x, &count) && u32(x, &eof) && u32(x, &len) &&
	       read_tail(x, c, count, eof, len);
}

/* WRITE3res the libtirpc way (the fixed-layout decoder's fallback) */
bool_t lx_nfs3__dec_write_xdr(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_write_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_wcc(x, &r->wcc))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return u32(x, &r->count) && u32(x, &r->committed) &&
	       r->committed <= LX_NFS3_FILE_SYNC && verf(x, r->verf);
}

/* CREATE, MKDIR, SYMLINK, MKNOD */
bool_t lx_nfs3_dec_create(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_create_res *r = c->res;

	if (!u32(x, &r->status))
		return FALSE;
	if (r->status == LX_NFS3_OK) {
		if (!boolean(x, &r->fh_present) ||
		    (r->fh_present && !lx_nfs3_xdr_fh(x, &r->fh)) ||
		    !lx_nfs3_xdr_post_attr(x, &r->attr))
			return FALSE;
	}
	return lx_nfs3_xdr_wcc(x, &r->dir_wcc);
}

bool_t lx_nfs3_dec_rename(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_rename_res *r = c->res;

	return u32(x, &r->status) && lx_nfs3_xdr_wcc(x, &r->from_wcc) &&
	       lx_nfs3_xdr_wcc(x, &r->to_wcc);
}

bool_t lx_nfs3_dec_link(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_link_res *r = c->res;

	return u32(x, &r->status) && lx_nfs3_xdr_post_attr(x, &r->attr) &&
	       lx_nfs3_xdr_wcc(x, &r->dir_wcc);
}

bool_t lx_nfs3_dec_fsstat(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_fsstat_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return u64(x, &r->tbytes) && u64(x, &r->fbytes) && u64(x, &r->abytes) &&
	       u64(x, &r->tfiles) && u64(x, &r->ffiles) && u64(x, &r->afiles) &&
	       u32(x, &r->invarsec);
}

bool_t lx_nfs3_dec_fsinfo(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_fsinfo_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return u32(x, &r->rtmax) && u32(x, &r->rtpref) && u32(x, &r->rtmult) &&
	       u32(x, &r->wtmax) && u32(x, &r->wtpref) && u32(x, &r->wtmult) &&
	       u32(x, &r->dtpref) && u64(x, &r->maxfilesize) &&
	       time3(x, &r->time_delta) && u32(x, &r->properties);
}

bool_t lx_nfs3_dec_pathconf(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_pathconf_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_post_attr(x, &r->attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return u32(x, &r->linkmax) && u32(x, &r->name_max) &&
	       boolean(x, &r->no_trunc) && boolean(x, &r->chown_restricted) &&
	       boolean(x, &r->case_insensitive) &&
	       boolean(x, &r->case_preserving);
}

bool_t lx_nfs3_dec_commit(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_commit_res *r = c->res;

	if (!u32(x, &r->status) || !lx_nfs3_xdr_wcc(x, &r->wcc))
		return FALSE;
	return r->status != LX_NFS3_OK || verf(x, r->verf);
}

/* --------------------------------------------- READ and WRITE, fixed layout
 *
 * The I/O procedures' arguments and results have a fixed shape: a handle
 * and three to five words out; a status, optional attributes of a known
 * size and a few words back.  Going through libtirpc costs a call per
 * word (about 700 instructions per READ in all); here each is one
 * xdr_inline() of the whole fixed part (the stream's bounds check: it
 * returns NULL, consuming nothing, when fewer bytes are left) and direct
 * big-endian loads and stores.  The libtirpc versions above stay the
 * reference: a stream that cannot inline, or a reply shorter than its
 * fixed part, is handed to them from where the call started (xdrmem
 * streams, the only ones the RPC layer makes, can always go back), so a
 * truncated reply fails exactly as it always did; a complete one is
 * checked here as strictly (booleans 0 or 1, count equal to the opaque
 * length, a stable_how, no more data than asked for).  test_nfs3_xdr
 * checks both paths agree byte for byte, at every truncation point.
 */

/*
 * The file, the offset and the count of READ, WRITE and COMMIT (and, for
 * WRITE, @more words after them): @more == 2 adds WRITE's stable and the
 * data's opaque length.  FALSE for a handle over 64 bytes or a buffer too
 * small, as libtirpc's encoders.
 */
static bool_t enc_fh_off_count(XDR *x, const struct lx_nfs3_args *a,
			       unsigned int more)
{
	const struct lx_nfs3_fh *fh = a->fh;
	uint32_t fl = fh->len, padded = (fl + 3) & ~3u;
	uint8_t *p;

	if (fl > LX_NFS3_FHSIZE)
		return FALSE;
	p = (uint8_t *)xdr_inline(x, (u_int)(4 + padded + 12 + 4 * more));
	if (lx_xprt_unlikely(!p))
		return more ? lx_nfs3__enc_write_xdr(x, a) :
			      lx_nfs3__enc_read_xdr(x, a);
	lx_xprt_put_be32(p, fl);
	if (padded) {
		lx_xprt_put_be32(p + padded, 0); /* the padding */
		memcpy(p + 4, fh->data, fl);
	}
	p += 4 + padded;
	lx_xprt_put_be64(p, a->offset);
	lx_xprt_put_be32(p + 8, a->count);
	if (more) {
		lx_xprt_put_be32(p + 12, a->how);
		lx_xprt_put_be32(p + 16, a->count);
	}
	return TRUE;
}

bool_t lx_nfs3_enc_read(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh_off_count(x, a, 0);
}

bool_t lx_nfs3_enc_commit(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh_off_count(x, a, 0);
}

/* The data follows from the caller's memory (lx_rpc_call_args.payload). */
bool_t lx_nfs3_enc_write(XDR *x, const struct lx_nfs3_args *a)
{
	return enc_fh_off_count(x, a, 2);
}

/* A reply shorter than its fixed part: libtirpc's decoder from @pos. */
static bool_t dec_again(XDR *x, u_int pos, xdrproc_t dec, struct lx_nfs3_ctx *c)
{
	return xdr_setpos(x, pos) && dec(x, c);
}

bool_t lx_nfs3_dec_read(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_read_res *r = c->res;
	u_int pos = xdr_getpos(x);
	const uint8_t *p = (const uint8_t *)xdr_inline(x, 8);
	uint32_t follows;

	if (lx_xprt_unlikely(!p))
		goto slow;
	r->status = lx_xprt_get_be32(p);
	follows = lx_xprt_get_be32(p + 4);
	if (follows > 1)
		return FALSE;
	r->attr.present = follows;
	if (lx_xprt_unlikely(r->status != LX_NFS3_OK))
		return !follows || lx_nfs3_xdr_fattr(x, &r->attr.attr);
	p = (const uint8_t *)xdr_inline(
		x, (u_int)(follows ? LX_NFS3_FATTR_XDR + 12 : 12));
	if (lx_xprt_unlikely(!p))
		goto slow;
	if (follows) {
		fattr_inline((const int32_t *)(const void *)p, &r->attr.attr);
		p += LX_NFS3_FATTR_XDR;
	}
	return read_tail(x, c, lx_xprt_get_be32(p), lx_xprt_get_be32(p + 4),
			 lx_xprt_get_be32(p + 8));
slow:
	return dec_again(x, pos, (xdrproc_t)lx_nfs3__dec_read_xdr, c);
}

/*
 * WRITE3res: status, wcc_data (pre-op: a boolean and 24 bytes; post-op:
 * a boolean and a fattr3), then for LX_NFS3_OK count, committed and the
 * verifier.
 */
bool_t lx_nfs3_dec_write(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_write_res *r = c->res;
	struct lx_nfs3_wcc *w = &r->wcc;
	u_int pos = xdr_getpos(x);
	const uint8_t *p = (const uint8_t *)xdr_inline(x, 8);
	uint32_t before, after, ok_len;

	if (lx_xprt_unlikely(!p))
		goto slow;
	r->status = lx_xprt_get_be32(p);
	before = lx_xprt_get_be32(p + 4);
	if (before > 1)
		return FALSE;
	w->before_present = before;
	p = (const uint8_t *)xdr_inline(x, before ? 28 : 4);
	if (lx_xprt_unlikely(!p))
		goto slow;
	if (before) {
		w->before_size = lx_xprt_get_be64(p);
		w->before_mtime.sec = lx_xprt_get_be32(p + 8);
		w->before_mtime.nsec = lx_xprt_get_be32(p + 12);
		w->before_ctime.sec = lx_xprt_get_be32(p + 16);
		w->before_ctime.nsec = lx_xprt_get_be32(p + 20);
		p += 24;
	}
	after = lx_xprt_get_be32(p);
	if (after > 1)
		return FALSE;
	w->after.present = after;
	ok_len = r->status == LX_NFS3_OK ? 8 + LX_NFS3_VERFSIZE : 0;
	if (!after && !ok_len)
		return TRUE;
	p = (const uint8_t *)xdr_inline(
		x, (u_int)((after ? LX_NFS3_FATTR_XDR : 0) + ok_len));
	if (lx_xprt_unlikely(!p))
		goto slow;
	if (after) {
		fattr_inline((const int32_t *)(const void *)p, &w->after.attr);
		p += LX_NFS3_FATTR_XDR;
	}
	if (!ok_len)
		return TRUE;
	r->count = lx_xprt_get_be32(p);
	r->committed = lx_xprt_get_be32(p + 4);
	if (r->committed > LX_NFS3_FILE_SYNC)
		return FALSE;
	memcpy(r->verf, p + 8, LX_NFS3_VERFSIZE);
	return TRUE;
slow:
	return dec_again(x, pos, (xdrproc_t)lx_nfs3__dec_write_xdr, c);
}
