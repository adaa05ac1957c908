// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L encoder: every T- and R-message to bytes.
 *
 * Each message's fields come from its format (p9_fmt.c), in wire order;
 * the fields go through a cursor that checks every write against the end of
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

#include "p9_fmt.h"

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
	const char *name = lx_p9_fmt_of(type)->name;

	return name ? name : "unknown";
}

/* ------------------------------------------------------------- encoder */

/* The field @fl of @f. */
static void enc_field(struct lx_p9_wcur *w, const struct lx_p9_fcall *f,
		      const struct lx_p9_field *fl, unsigned int flags)
{
	const char *base = (const char *)f;
	const void *m = base + fl->off;
	uint16_t i, n;

	switch (fl->kind) {
	case LX_P9_F_U8:
		w8(w, *(const uint8_t *)m);
		break;
	case LX_P9_F_U16:
		w16(w, *(const uint16_t *)m);
		break;
	case LX_P9_F_U32:
		w32(w, *(const uint32_t *)m);
		break;
	case LX_P9_F_U64:
		w64(w, *(const uint64_t *)m);
		break;
	case LX_P9_F_STR:
		wstr(w, *(const struct lx_p9_str *)m);
		break;
	case LX_P9_F_QID:
		wqid(w, m);
		break;
	case LX_P9_F_DATA:
		wdata(w, *(const uint32_t *)m,
		      *(const void *const *)(base + fl->off2), flags);
		break;
	case LX_P9_F_WNAMES:
	case LX_P9_F_WQIDS:
		n = *(const uint16_t *)m;
		if (n > LX_P9_MAXWELEM) {
			w->err = w->err ? w->err : -EINVAL;
			break;
		}
		w16(w, n);
		for (i = 0; i < n; i++)
			if (fl->kind == LX_P9_F_WNAMES)
				wstr(w,
				     ((const struct lx_p9_str *)(base +
								 fl->off2))[i]);
			else
				wqid(w, (const struct lx_p9_qid *)(base +
								   fl->off2) +
						i);
		break;
	default: /* LX_P9_F_NOSTR: not on the wire */
		break;
	}
}

/* The body of @f after size[4] type[1] tag[2], as its format says. */
static void enc_body(struct lx_p9_wcur *w, const struct lx_p9_fcall *f,
		     unsigned int flags)
{
	const struct lx_p9_fmt *fmt = lx_p9_fmt_of(f->type);
	unsigned int i;

	if (f->type == LX_P9_RERROR) {
		/* the form ganesha sends; see p9_dec.c */
		w32(w, f->u.rlerror.ecode);
		return;
	}
	if (!fmt->known) {
		w->err = -EINVAL;
		return;
	}
	for (i = 0; i < fmt->n; i++)
		enc_field(w, f, &fmt->f[i], flags);
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
