// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * READDIR and READDIRPLUS results (RFC 1813 sections 3.3.16, 3.3.17).
 *
 * The entries are an XDR linked list (a value_follows word before each):
 * a reply never says how many there are.  They are decoded into the
 * caller's entry array and their names into the caller's name buffer;
 * a reply with more entries or name bytes than those hold fails with
 * -E2BIG instead of growing anything, so a hostile entry count costs
 * nothing but the (bounded) reply buffer it arrived in.  The caller who
 * sizes the arrays from the count it asked for (count / 24 entries,
 * maxcount / 32 for READDIRPLUS, maxcount name bytes) never sees -E2BIG
 * from an honest server.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"

static bool_t dec_name(XDR *x, struct lx_nfs3_ctx *c, struct lx_nfs3_dirent *e,
		       size_t *used)
{
	struct lx_nfs3_dirbuf *db = c->u.db;
	const char *p;
	uint32_t len;

	if (!xdr_u_int(x, &len))
		return FALSE;
	if (len > LX_NFS3_MAXNAMLEN) {
		c->err = -ENAMETOOLONG;
		return FALSE;
	}
	p = (const char *)xdr_inline(x, (u_int)((len + 3) & ~3u));
	if (!p)
		return FALSE;
	if (len + 1 > db->names_size - *used) {
		c->err = -E2BIG;
		return FALSE;
	}
	e->name = db->names + *used;
	e->namelen = len;
	memcpy(db->names + *used, p, len);
	db->names[*used + len] = '\0';
	*used += len + 1;
	return TRUE;
}

static bool_t dec_entries(XDR *x, struct lx_nfs3_ctx *c, bool plus)
{
	struct lx_nfs3_readdir_res *r = c->res;
	struct lx_nfs3_dirbuf *db = c->u.db;
	size_t used = 0;
	uint32_t follows;

	r->n = 0;
	for (;;) {
		struct lx_nfs3_dirent *e;

		if (!xdr_u_int(x, &follows) || follows > 1)
			return FALSE;
		if (!follows)
			break;
		if (r->n >= db->cap) {
			c->err = -E2BIG;
			return FALSE;
		}
		e = &db->ent[r->n];
		e->attr.present = false;
		e->fh_present = false;
		if (!xdr_u_int64_t(x, &e->fileid) ||
		    !dec_name(x, c, e, &used) || !xdr_u_int64_t(x, &e->cookie))
			return FALSE;
		if (plus) {
			uint32_t hf;

			if (!lx_nfs3_xdr_post_attr(x, &e->attr) ||
			    !xdr_u_int(x, &hf) || hf > 1)
				return FALSE;
			e->fh_present = hf;
			if (hf && !lx_nfs3_xdr_fh(x, &e->fh))
				return FALSE;
		}
		r->n++;
	}
	if (!xdr_u_int(x, &follows) || follows > 1)
		return FALSE;
	r->eof = follows;
	return TRUE;
}

static bool_t dec_dir(XDR *x, struct lx_nfs3_ctx *c, bool plus)
{
	struct lx_nfs3_readdir_res *r = c->res;

	r->n = 0;
	r->eof = false;
	if (!c->u.db || !xdr_u_int(x, &r->status) ||
	    !lx_nfs3_xdr_post_attr(x, &r->dir_attr))
		return FALSE;
	if (r->status != LX_NFS3_OK)
		return TRUE;
	return xdr_opaque(x, (char *)r->cookieverf, LX_NFS3_VERFSIZE) &&
	       dec_entries(x, c, plus);
}

bool_t lx_nfs3_dec_readdir(XDR *x, struct lx_nfs3_ctx *c)
{
	return dec_dir(x, c, false);
}

bool_t lx_nfs3_dec_readdirplus(XDR *x, struct lx_nfs3_ctx *c)
{
	return dec_dir(x, c, true);
}
