// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L decoder: bytes to every T- and R-message.
 *
 * Each message's fields come from its format (p9_fmt.c), read in wire
 * order through a cursor that checks every access against the end of the message and
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

#include "p9_fmt.h"

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

/* The field @fl of @f; -EBADMSG for a list longer than 9P allows. */
static int dec_field(struct lx_p9_rcur *r, struct lx_p9_fcall *f,
		     const struct lx_p9_field *fl)
{
	char *base = (char *)f;
	void *m = base + fl->off;
	uint16_t i, n;

	switch (fl->kind) {
	case LX_P9_F_U8:
		*(uint8_t *)m = r8(r);
		break;
	case LX_P9_F_U16:
		*(uint16_t *)m = r16(r);
		break;
	case LX_P9_F_U32:
		*(uint32_t *)m = r32(r);
		break;
	case LX_P9_F_U64:
		*(uint64_t *)m = r64(r);
		break;
	case LX_P9_F_STR:
		*(struct lx_p9_str *)m = rstr(r);
		break;
	case LX_P9_F_QID:
		rqid(r, m);
		break;
	case LX_P9_F_DATA:
		rdata(r, m, (const void **)(base + fl->off2));
		break;
	case LX_P9_F_WNAMES:
	case LX_P9_F_WQIDS:
		n = r16(r);
		*(uint16_t *)m = n;
		if (n > LX_P9_MAXWELEM)
			return -EBADMSG;
		for (i = 0; i < n; i++)
			if (fl->kind == LX_P9_F_WNAMES)
				((struct lx_p9_str *)(base + fl->off2))[i] =
					rstr(r);
			else
				rqid(r,
				     (struct lx_p9_qid *)(base + fl->off2) + i);
		break;
	default: /* LX_P9_F_NOSTR */
		*(struct lx_p9_str *)m = (struct lx_p9_str){NULL, 0};
		break;
	}
	return 0;
}

/* The body of @f, as its format says; -EPROTO for a type without one. */
static int dec_body(struct lx_p9_rcur *r, struct lx_p9_fcall *f)
{
	const struct lx_p9_fmt *fmt = lx_p9_fmt_of(f->type);
	unsigned int i;
	int err;

	if (f->type == LX_P9_RERROR) {
		dec_rerror(r, f);
		return 0;
	}
	if (!fmt->known)
		return -EPROTO;
	for (i = 0; i < fmt->n; i++) {
		err = dec_field(r, f, &fmt->f[i]);
		if (err)
			return err;
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
