// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MOUNT v3 (RFC 1813 section 5 and appendix I): NULL, MNT, DUMP, UMNT,
 * UMNTALL, EXPORT, sync and async, with hand-written XDR like the NFS
 * procedures (nothing allocated: DUMP and EXPORT lists go into the
 * caller's entry array and string buffer).
 *
 * MOUNT runs on an RPC client of its own: lx_nfs3_create() creates one for
 * the MNT call and closes it again, since ganesha (like most servers)
 * needs nothing more from MOUNT once the root handle is known.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"

#define MNT_NAMLEN 255u /* MNTNAMLEN: host and group names */

bool_t lx_nfs3_enc_dirpath(XDR *x, const char *path)
{
	char *s = (char *)path;

	return xdr_string(x, &s, LX_NFS3_MAXPATHLEN);
}

bool_t lx_nfs3_dec_mnt(XDR *x, struct lx_nfs3_ctx *c)
{
	struct lx_nfs3_mnt_res *r = c->res;
	uint32_t n, i, f;

	r->nflavors = 0;
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status != LX_MNT3_OK)
		return TRUE;
	if (!lx_nfs3_xdr_fh(x, &r->fh) || !xdr_u_int(x, &n))
		return FALSE;
	/* the count is bounded by the reply: each flavour is one word */
	for (i = 0; i < n; i++) {
		if (!xdr_u_int(x, &f))
			return FALSE;
		if (r->nflavors < LX_NFS3_MNT_MAX_FLAVORS)
			r->flavors[r->nflavors++] = f;
	}
	return TRUE;
}

/*
 * Append a string of at most @max bytes from the stream at *@used in the
 * list's string buffer (after a space when @space), NUL-terminated, the
 * NUL not counted in *@used so that the next string can extend it.
 */
static bool_t dec_raw(XDR *x, struct lx_nfs3_ctx *c, uint32_t max, size_t *used,
		      bool space)
{
	struct lx_nfs3_mnt_list *l = c->u.ml;
	const char *p;
	uint32_t len;

	if (!xdr_u_int(x, &len))
		return FALSE;
	if (len > max) {
		c->err = -ENAMETOOLONG;
		return FALSE;
	}
	p = (const char *)xdr_inline(x, (u_int)((len + 3) & ~3u));
	if (!p)
		return FALSE;
	if ((size_t)len + space + 1 > l->strsize - *used) {
		c->err = -E2BIG;
		return FALSE;
	}
	if (space)
		l->strbuf[(*used)++] = ' ';
	memcpy(l->strbuf + *used, p, len);
	*used += len;
	l->strbuf[*used] = '\0';
	return TRUE;
}

/* One whole string; *@s points at it. */
static bool_t dec_str(XDR *x, struct lx_nfs3_ctx *c, uint32_t max, size_t *used,
		      const char **s)
{
	size_t first = *used;

	if (!dec_raw(x, c, max, used, false))
		return FALSE;
	*s = c->u.ml->strbuf + first;
	(*used)++;
	return TRUE;
}

static bool_t follows(XDR *x, bool *more)
{
	uint32_t v;

	if (!xdr_u_int(x, &v) || v > 1)
		return FALSE;
	*more = v;
	return TRUE;
}

static bool_t dec_list(XDR *x, struct lx_nfs3_ctx *c, bool exports)
{
	struct lx_nfs3_mnt_list *l = c->u.ml;
	size_t used = 0;
	bool more;

	l->status = LX_MNT3_OK;
	l->n = 0;
	if (!follows(x, &more))
		return FALSE;
	while (more) {
		struct lx_nfs3_mnt_entry *e;

		if (l->n >= l->cap) {
			c->err = -E2BIG;
			return FALSE;
		}
		e = &l->ent[l->n];
		if (!exports) {
			if (!dec_str(x, c, MNT_NAMLEN, &used, &e->host) ||
			    !dec_str(x, c, LX_NFS3_MAXPATHLEN, &used, &e->dir))
				return FALSE;
		} else {
			size_t first;
			bool g;

			if (!dec_str(x, c, LX_NFS3_MAXPATHLEN, &used, &e->dir))
				return FALSE;
			/* the groups, joined by spaces in one string */
			if (l->strsize - used < 1) {
				c->err = -E2BIG;
				return FALSE;
			}
			first = used;
			l->strbuf[used] = '\0';
			if (!follows(x, &g))
				return FALSE;
			while (g) {
				if (!dec_raw(x, c, MNT_NAMLEN, &used,
					     used != first) ||
				    !follows(x, &g))
					return FALSE;
			}
			e->host = l->strbuf + first;
			used++;
		}
		l->n++;
		if (!follows(x, &more))
			return FALSE;
	}
	return TRUE;
}

bool_t lx_nfs3_dec_mnt_dump(XDR *x, struct lx_nfs3_ctx *c)
{
	return dec_list(x, c, false);
}

bool_t lx_nfs3_dec_mnt_export(XDR *x, struct lx_nfs3_ctx *c)
{
	return dec_list(x, c, true);
}

/* ---------------------------------------------------------- procedures */

static int mrun(struct lx_rpc_clnt *mc, struct lx_call *call,
		const struct lx_nfs3_req *r, void *res,
		const struct lx_nfs3_ctx *in)
{
	struct lx_nfs3_ctx local, *ctx;

	if (!mc || (call && !call->done))
		return -EINVAL;
	ctx = call ? lx_nfs3_call_ctx(call) : &local;
	if (in)
		*ctx = *in;
	else
		memset(ctx, 0, sizeof(*ctx));
	return lx_nfs3_call_start(mc, NULL, call, r, ctx, res);
}

static int path_ok(const char *path)
{
	size_t n;

	if (!path || !(n = strnlen(path, LX_NFS3_MAXPATHLEN + 1)))
		return -EINVAL;
	return n > LX_NFS3_MAXPATHLEN ? -ENAMETOOLONG : 0;
}

int lx_nfs3_mnt_null(struct lx_rpc_clnt *mc)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_NULL};

	return mrun(mc, NULL, &r, NULL, NULL);
}

int lx_nfs3_mnt_null_async(struct lx_rpc_clnt *mc, struct lx_call *call)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_NULL};

	return call ? mrun(mc, call, &r, NULL, NULL) : -EINVAL;
}

static int mnt_start(struct lx_rpc_clnt *mc, struct lx_call *call,
		     const char *path, struct lx_nfs3_mnt_res *res)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_MNT,
				.enc = (xdrproc_t)lx_nfs3_enc_dirpath,
				.args = path,
				.dec = (xdrproc_t)lx_nfs3_dec_mnt};
	int err = path_ok(path);

	if (!err && !res)
		err = -EINVAL;
	return err ? err : mrun(mc, call, &r, res, NULL);
}

int lx_nfs3_mnt_mnt(struct lx_rpc_clnt *mc, const char *path,
		    struct lx_nfs3_mnt_res *res)
{
	return mnt_start(mc, NULL, path, res);
}

int lx_nfs3_mnt_mnt_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			  const char *path, struct lx_nfs3_mnt_res *res)
{
	return call ? mnt_start(mc, call, path, res) : -EINVAL;
}

static int list_start(struct lx_rpc_clnt *mc, struct lx_call *call,
		      uint32_t proc, struct lx_nfs3_mnt_list *res)
{
	struct lx_nfs3_req r = {
		.proc = proc,
		.dec = proc == LX_MOUNT3PROC_DUMP ?
			       (xdrproc_t)lx_nfs3_dec_mnt_dump :
			       (xdrproc_t)lx_nfs3_dec_mnt_export};
	struct lx_nfs3_ctx in = {0};

	if (!res || (res->cap && !res->ent) || !res->strbuf || !res->strsize)
		return -EINVAL;
	in.u.ml = res;
	return mrun(mc, call, &r, res, &in);
}

int lx_nfs3_mnt_dump(struct lx_rpc_clnt *mc, struct lx_nfs3_mnt_list *res)
{
	return list_start(mc, NULL, LX_MOUNT3PROC_DUMP, res);
}

int lx_nfs3_mnt_dump_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			   struct lx_nfs3_mnt_list *res)
{
	return call ? list_start(mc, call, LX_MOUNT3PROC_DUMP, res) : -EINVAL;
}

int lx_nfs3_mnt_export(struct lx_rpc_clnt *mc, struct lx_nfs3_mnt_list *res)
{
	return list_start(mc, NULL, LX_MOUNT3PROC_EXPORT, res);
}

int lx_nfs3_mnt_export_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			     struct lx_nfs3_mnt_list *res)
{
	return call ? list_start(mc, call, LX_MOUNT3PROC_EXPORT, res) : -EINVAL;
}

static int umnt_start(struct lx_rpc_clnt *mc, struct lx_call *call,
		      const char *path)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_UMNT,
				.enc = (xdrproc_t)lx_nfs3_enc_dirpath,
				.args = path};
	int err = path_ok(path);

	return err ? err : mrun(mc, call, &r, NULL, NULL);
}

int lx_nfs3_mnt_umnt(struct lx_rpc_clnt *mc, const char *path)
{
	return umnt_start(mc, NULL, path);
}

int lx_nfs3_mnt_umnt_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			   const char *path)
{
	return call ? umnt_start(mc, call, path) : -EINVAL;
}

int lx_nfs3_mnt_umntall(struct lx_rpc_clnt *mc)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_UMNTALL};

	return mrun(mc, NULL, &r, NULL, NULL);
}

int lx_nfs3_mnt_umntall_async(struct lx_rpc_clnt *mc, struct lx_call *call)
{
	struct lx_nfs3_req r = {.proc = LX_MOUNT3PROC_UMNTALL};

	return call ? mrun(mc, call, &r, NULL, NULL) : -EINVAL;
}
