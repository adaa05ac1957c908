// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 procedures, each as a sync and an async call: here the call
 * machinery and the per-file ones (NULL, GETATTR, SETATTR, LOOKUP, ACCESS,
 * READLINK, READ, WRITE, COMMIT); the name-space and file-system ones are
 * in nfs3_proc_ns.c.
 *
 * Every procedure is the same three steps: check the arguments, describe
 * the call (procedure number, encoder and its arguments, decoder), and
 * hand it to lx_nfs3_call_start().  The decoder's context (struct lx_nfs3_ctx:
 * the caller's result struct, READ destination, READLINK buffer, directory
 * arrays, a precise decode error) lives on the caller's stack for a sync
 * call and in the caller's struct lx_call for an async one, so no call
 * allocates.  After the RPC layer decoded the reply, the NFS status is
 * turned into an errno (lx_nfs3_stat_errno()) and, for async calls, the
 * caller's callback runs.
 *
 * READ hands the RPC layer a placement hook (lx_nfs3_read_place) and an
 * iterator over the caller's buffers: the transport reads the data
 * straight into them and refuses a reply announcing more than was asked.
 * WRITE passes the caller's iovecs as the call's payload: they are sent
 * from where they are, after the encoded arguments.  READLINK and the
 * directory reads tell the RPC layer how large their reply may grow
 * (reply_hint): over RDMA that is what makes the call offer a Reply chunk
 * when the reply may not fit the inline threshold.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"
#include "rpc/rpc_int.h" /* lx_rpc__call_async() */
#include "xprt/blocks/util.h"

/* ------------------------------------------------------------- status
 * NFS and MOUNT status codes as errnos (the table at the top of nfs3.h),
 * next to finish(), which maps every reply's status through it.
 */

static const struct {
	uint32_t stat;
	int err;
	const char *name;
} lx_nfs3_stat_tab[] = {
	{LX_NFS3_OK, 0, "NFS3_OK"},
	{LX_NFS3ERR_PERM, -EPERM, "NFS3ERR_PERM"},
	{LX_NFS3ERR_NOENT, -ENOENT, "NFS3ERR_NOENT"},
	{LX_NFS3ERR_IO, -EIO, "NFS3ERR_IO"},
	{LX_NFS3ERR_NXIO, -ENXIO, "NFS3ERR_NXIO"},
	{LX_NFS3ERR_ACCES, -EACCES, "NFS3ERR_ACCES"},
	{LX_NFS3ERR_EXIST, -EEXIST, "NFS3ERR_EXIST"},
	{LX_NFS3ERR_XDEV, -EXDEV, "NFS3ERR_XDEV"},
	{LX_NFS3ERR_NODEV, -ENODEV, "NFS3ERR_NODEV"},
	{LX_NFS3ERR_NOTDIR, -ENOTDIR, "NFS3ERR_NOTDIR"},
	{LX_NFS3ERR_ISDIR, -EISDIR, "NFS3ERR_ISDIR"},
	{LX_NFS3ERR_INVAL, -EINVAL, "NFS3ERR_INVAL"},
	{LX_NFS3ERR_FBIG, -EFBIG, "NFS3ERR_FBIG"},
	{LX_NFS3ERR_NOSPC, -ENOSPC, "NFS3ERR_NOSPC"},
	{LX_NFS3ERR_ROFS, -EROFS, "NFS3ERR_ROFS"},
	{LX_NFS3ERR_MLINK, -EMLINK, "NFS3ERR_MLINK"},
	{LX_NFS3ERR_NAMETOOLONG, -ENAMETOOLONG, "NFS3ERR_NAMETOOLONG"},
	{LX_NFS3ERR_NOTEMPTY, -ENOTEMPTY, "NFS3ERR_NOTEMPTY"},
	{LX_NFS3ERR_DQUOT, -EDQUOT, "NFS3ERR_DQUOT"},
	{LX_NFS3ERR_STALE, -ESTALE, "NFS3ERR_STALE"},
	{LX_NFS3ERR_REMOTE, -EREMOTE, "NFS3ERR_REMOTE"},
	{LX_NFS3ERR_BADHANDLE, -EBADF, "NFS3ERR_BADHANDLE"},
	{LX_NFS3ERR_NOT_SYNC, -EBUSY, "NFS3ERR_NOT_SYNC"},
	{LX_NFS3ERR_BAD_COOKIE, -EILSEQ, "NFS3ERR_BAD_COOKIE"},
	{LX_NFS3ERR_NOTSUPP, -ENOTSUP, "NFS3ERR_NOTSUPP"},
	{LX_NFS3ERR_TOOSMALL, -ERANGE, "NFS3ERR_TOOSMALL"},
	{LX_NFS3ERR_SERVERFAULT, -EREMOTEIO, "NFS3ERR_SERVERFAULT"},
	{LX_NFS3ERR_BADTYPE, -EPROTOTYPE, "NFS3ERR_BADTYPE"},
	{LX_NFS3ERR_JUKEBOX, -EAGAIN, "NFS3ERR_JUKEBOX"},
};

int lx_nfs3_stat_errno(uint32_t status)
{
	size_t i;

	for (i = 0; i < LX_XPRT_ARRAY_SIZE(lx_nfs3_stat_tab); i++)
		if (lx_nfs3_stat_tab[i].stat == status)
			return lx_nfs3_stat_tab[i].err;
	return -EREMOTEIO;
}

const char *lx_nfs3_stat_name(uint32_t status)
{
	size_t i;

	for (i = 0; i < LX_XPRT_ARRAY_SIZE(lx_nfs3_stat_tab); i++)
		if (lx_nfs3_stat_tab[i].stat == status)
			return lx_nfs3_stat_tab[i].name;
	return "NFS3ERR_unknown";
}

/* ----------------------------------------------------------- machinery */

static int finish(int err, struct lx_nfs3_ctx *ctx, void *res,
		  uint32_t *nfs_status)
{
	if (err == -EBADMSG && ctx->err)
		err = ctx->err;
	if (err)
		return err;
	if (!res)
		return 0;
	*nfs_status = *(uint32_t *)res;
	if (lx_xprt_likely(!*nfs_status))
		return 0;
	if (ctx->ctr) {
		atomic_fetch_add_explicit(&ctx->ctr->nfs_errors, 1,
					  memory_order_relaxed);
		if (*nfs_status == LX_NFS3ERR_JUKEBOX)
			atomic_fetch_add_explicit(&ctx->ctr->jukebox, 1,
						  memory_order_relaxed);
	}
	return lx_nfs3_stat_errno(*nfs_status);
}

/* The RPC layer's completion of an async call: NFS status, counts, done. */
static void lx_nfs3_rpc_done(struct lx_call *call, int status)
{
	struct lx_nfs3_ctx *ctx = lx_nfs3_call_ctx(call);

	status = finish(status, ctx, ctx->res, &call->proto_status);
	call->res = ctx->res;
	if (!status && ctx->proc == LX_NFS3PROC_READ)
		call->count = ((struct lx_nfs3_read_res *)ctx->res)->count;
	else if (!status && ctx->proc == LX_NFS3PROC_WRITE)
		call->count = ((struct lx_nfs3_write_res *)ctx->res)->count;
	/* the caller may reuse @call from here on: touch nothing after */
	lx_call_done(call, status);
}

/*
 * lx_rpc_again_fn: NFS3ERR_JUKEBOX is "busy, try later" (a file being
 * recalled from tape, a server starting up): the Linux v3 client waits 5
 * s (NFS_JUKEBOX_RETRY_TIME) and sends the call again, under a new XID;
 * we do the same, opts.jukebox_retries times at most.
 */
static unsigned int lx_nfs3_jukebox(void *arg, const void *res,
				    unsigned int tries)
{
	const struct lx_nfs3_clnt *c = arg;
	const struct lx_nfs3_ctx *ctx = res;

	if (!ctx->res || *(const uint32_t *)ctx->res != LX_NFS3ERR_JUKEBOX)
		return 0;
	if (c->jukebox_retries != LX_NFS3_JUKEBOX_FOREVER &&
	    tries >= c->jukebox_retries)
		return 0;
	return c->jukebox_delay_ms;
}

int lx_nfs3_call_start(struct lx_rpc_clnt *rpc, const struct lx_nfs3_clnt *c,
		       struct lx_call *call, const struct lx_nfs3_req *r,
		       struct lx_nfs3_ctx *ctx, void *res)
{
	struct lx_rpc_call_args a = {0};
	uint32_t st;

	if (!rpc)
		return -EINVAL;
	ctx->res = res;
	ctx->err = 0;
	ctx->proc =
		r->proc; /* MOUNT's numbers stop at 5: never READ or WRITE */
	a.proc = r->proc;
	a.enc = r->enc;
	a.args = r->args;
	a.dec = r->dec;
	a.res = ctx;
	a.payload = r->payload;
	a.npayload = r->npayload;
	a.reply_hint = r->reply_hint;
	if (c && res) {
		a.again = lx_nfs3_jukebox;
		a.again_arg = (void *)c;
	}
	if (c)
		a.deadline_ms = c->deadline_ms;
	if (r->read) {
		if (!ctx->u.rd.iov) {
			ctx->u.rd.iov = &ctx->u.rd.iov1;
			ctx->u.rd.iovcnt = 1;
		}
		/* the RPC layer refuses buffers smaller than count (rx_len) */
		ctx->u.rd.placed = false;
		ctx->u.rd.plen = 0;
		a.place = lx_nfs3_read_place;
		a.place_arg = ctx;
		a.rx_iov = ctx->u.rd.iov;
		a.rx_iovcnt = ctx->u.rd.iovcnt;
		a.rx_len = ctx->u.rd.max;
	}
	if (!call)
		return finish(lx_rpc_call_sync(rpc, &a, NULL), ctx, res, &st);
	return lx_rpc__call_async(rpc, call, &a, lx_nfs3_rpc_done);
}

/* Start @r on the client's NFS connection(s); @in carries in-parameters
 * for the decoder (or NULL). */
int lx_nfs3_run(struct lx_nfs3_clnt *c, struct lx_call *call,
		const struct lx_nfs3_req *r, void *res,
		const struct lx_nfs3_ctx *in)
{
	struct lx_nfs3_ctx local, *ctx = lx_nfs3_ctx_begin(c, call, &local);

	if (!ctx)
		return -EINVAL;
	if (in)
		ctx->u = in->u;
	else
		memset(&ctx->u, 0, sizeof(ctx->u));
	return lx_nfs3_call_start(c->rpc, c, call, r, ctx, res);
}

int lx_nfs3_name_ok(const char *name)
{
	size_t n;

	if (!name)
		return -EINVAL;
	n = strnlen(name, LX_NFS3_MAXNAMLEN + 1);
	if (!n)
		return -EINVAL;
	return n > LX_NFS3_MAXNAMLEN ? -ENAMETOOLONG : 0;
}

int lx_nfs3_fh_ok(const struct lx_nfs3_fh *fh)
{
	return fh && fh->len <= LX_NFS3_FHSIZE ? 0 : -EINVAL;
}

/* Client, result and handle present and sane. */
int lx_nfs3_chk(const struct lx_nfs3_clnt *c, const void *res,
		const struct lx_nfs3_fh *fh)
{
	return c && res ? lx_nfs3_fh_ok(fh) : -EINVAL;
}

/* ... plus a name in a directory. */
int lx_nfs3_chk_dirop(const struct lx_nfs3_clnt *c, const void *res,
		      const struct lx_nfs3_fh *dir, const char *name)
{
	int err = lx_nfs3_chk(c, res, dir);

	return err ? err : lx_nfs3_name_ok(name);
}

/* ----------------------------------------------------------------- NULL */

/* NULL with the client's deadline: its arguments on the stack, out of
 * the common path's frame.  Synchronous when @call is NULL. */
static __attribute__((noinline)) int null_deadline(struct lx_nfs3_clnt *c,
						   struct lx_call *call)
{
	struct lx_rpc_call_args a = {
		.proc = LX_NFS3PROC_NULL,
		.deadline_ms = c->deadline_ms,
	};

	if (!call)
		return lx_rpc_call_sync(c->rpc, &a, NULL);
	return lx_rpc__call_async(c->rpc, call, &a, NULL);
}

/*
 * NULL has no arguments, no results and no NFS status: both forms go
 * straight to the RPC layer, without the decoder's context and without
 * an NFS completion (what lx_nfs3_run() and lx_nfs3_rpc_done() would add
 * comes to the same call: no result, count 0, the RPC status).
 */
static const struct lx_rpc_call_args null_plain = {
	.proc = LX_NFS3PROC_NULL,
};

int lx_nfs3_null(struct lx_nfs3_clnt *c)
{
	if (!c || !c->rpc)
		return -EINVAL;
	if (lx_xprt_unlikely(c->deadline_ms))
		return null_deadline(c, NULL);
	return lx_rpc_call_sync(c->rpc, &null_plain, NULL);
}

int lx_nfs3_null_async(struct lx_nfs3_clnt *c, struct lx_call *call)
{
	if (!c || !c->rpc || !call)
		return -EINVAL;
	if (lx_xprt_unlikely(c->deadline_ms))
		return null_deadline(c, call);
	/* lx_rpc__call_async() refuses a call without done() */
	return lx_rpc__call_async(c->rpc, call, &null_plain, NULL);
}

/* -------------------------------------------------------------- GETATTR */

static int getattr_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 struct lx_nfs3_getattr_res *res)
{
	struct lx_nfs3_args a = {.fh = fh};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_GETATTR, lx_nfs3_enc_fh,
					   lx_nfs3_dec_getattr, &a);
	int err = lx_nfs3_chk(c, res, fh);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_getattr(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		    struct lx_nfs3_getattr_res *res)
{
	return getattr_start(c, NULL, fh, res);
}

int lx_nfs3_getattr_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *fh,
			  struct lx_nfs3_getattr_res *res)
{
	return call ? getattr_start(c, call, fh, res) : -EINVAL;
}

/* -------------------------------------------------------------- SETATTR */

static int setattr_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 const struct lx_nfs3_sattr *sa,
			 const struct lx_nfs3_time *guard,
			 struct lx_nfs3_wcc_res *res)
{
	struct lx_nfs3_args a = {.fh = fh, .sa = sa, .guard = guard};
	struct lx_nfs3_req r =
		LX_NFS3_REQ(LX_NFS3PROC_SETATTR, lx_nfs3_enc_setattr,
			    lx_nfs3_dec_wcc_res, &a);
	int err = lx_nfs3_chk(c, res, fh);

	if (!err && !sa)
		err = -EINVAL;
	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_setattr(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		    const struct lx_nfs3_sattr *sa,
		    const struct lx_nfs3_time *guard_ctime,
		    struct lx_nfs3_wcc_res *res)
{
	return setattr_start(c, NULL, fh, sa, guard_ctime, res);
}

int lx_nfs3_setattr_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *fh,
			  const struct lx_nfs3_sattr *sa,
			  const struct lx_nfs3_time *guard_ctime,
			  struct lx_nfs3_wcc_res *res)
{
	return call ? setattr_start(c, call, fh, sa, guard_ctime, res) :
		      -EINVAL;
}

/* --------------------------------------------------------------- LOOKUP */

static int lookup_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			struct lx_nfs3_lookup_res *res)
{
	struct lx_nfs3_args a = {.where = {dir, name}};
	struct lx_nfs3_req r =
		LX_NFS3_REQ(LX_NFS3PROC_LOOKUP, lx_nfs3_enc_diropargs,
			    lx_nfs3_dec_lookup, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_lookup(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		   const char *name, struct lx_nfs3_lookup_res *res)
{
	return lookup_start(c, NULL, dir, name, res);
}

int lx_nfs3_lookup_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *dir, const char *name,
			 struct lx_nfs3_lookup_res *res)
{
	return call ? lookup_start(c, call, dir, name, res) : -EINVAL;
}

/* --------------------------------------------------------------- ACCESS */

static int access_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *fh, uint32_t access,
			struct lx_nfs3_access_res *res)
{
	struct lx_nfs3_args a = {.fh = fh, .count = access};
	struct lx_nfs3_req r = LX_NFS3_REQ(
		LX_NFS3PROC_ACCESS, lx_nfs3_enc_access, lx_nfs3_dec_access, &a);
	int err = lx_nfs3_chk(c, res, fh);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_access(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   uint32_t access, struct lx_nfs3_access_res *res)
{
	return access_start(c, NULL, fh, access, res);
}

int lx_nfs3_access_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh, uint32_t access,
			 struct lx_nfs3_access_res *res)
{
	return call ? access_start(c, call, fh, access, res) : -EINVAL;
}

/* ------------------------------------------------------------- READLINK */

static int readlink_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *fh, char *buf, size_t size,
			  struct lx_nfs3_readlink_res *res)
{
	struct lx_nfs3_args a = {.fh = fh};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_READLINK, lx_nfs3_enc_fh,
					   lx_nfs3_dec_readlink, &a);
	struct lx_nfs3_ctx in = {0};
	int err = lx_nfs3_chk(c, res, fh);

	if (!err && (!buf || size < 2))
		err = -EINVAL;
	if (err)
		return err;
	in.u.str.buf = buf;
	in.u.str.size = size;
	/* a path of up to MAXPATHLEN: more than a small reply (RDMA) */
	r.reply_hint = LX_NFS3_REPLY_SLACK + LX_NFS3_MAXPATHLEN;
	return lx_nfs3_run(c, call, &r, res, &in);
}

int lx_nfs3_readlink(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		     char *buf, size_t size, struct lx_nfs3_readlink_res *res)
{
	return readlink_start(c, NULL, fh, buf, size, res);
}

int lx_nfs3_readlink_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh, char *buf, size_t size,
			   struct lx_nfs3_readlink_res *res)
{
	return call ? readlink_start(c, call, fh, buf, size, res) : -EINVAL;
}

/* ----------------------------------------------------------------- READ */

static int read_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		      const struct lx_nfs3_fh *fh, uint64_t offset,
		      uint32_t count, const struct iovec *iov,
		      unsigned int iovcnt, void *buf,
		      struct lx_nfs3_read_res *res)
{
	/* the one READ every I/O makes: its arguments and context written
	 * where they are used, no copy through lx_nfs3_run()'s @in (READ3args
	 * is the handle, the offset and the count: the encoders read nothing
	 * else of @a) */
	struct lx_nfs3_args a;
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_READ, lx_nfs3_enc_read,
					   lx_nfs3_dec_read, &a);
	struct lx_nfs3_ctx local, *ctx;
	int err = lx_nfs3_chk(c, res, fh);

	if (err)
		return err;
	if (count > LX_NFS3_MAX_SIZE_FIELD || (count && !iov && !buf) ||
	    (iov && !iovcnt))
		return -EINVAL;
	ctx = lx_nfs3_ctx_begin(c, call, &local);
	if (!ctx)
		return -EINVAL;
	a.fh = fh;
	a.offset = offset;
	a.count = count;
	r.read = true;
	ctx->u.rd.max = count;
	ctx->u.rd.iov = iov;
	ctx->u.rd.iovcnt = iovcnt;
	ctx->u.rd.iov1.iov_base = buf;
	ctx->u.rd.iov1.iov_len = count;
	return lx_nfs3_call_start(c->rpc, c, call, &r, ctx, res);
}

int lx_nfs3_read(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		 uint64_t offset, uint32_t count, const struct iovec *iov,
		 unsigned int iovcnt, struct lx_nfs3_read_res *res)
{
	if (!iov)
		return -EINVAL;
	return read_start(c, NULL, fh, offset, count, iov, iovcnt, NULL, res);
}

int lx_nfs3_read_async(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *fh, uint64_t offset,
		       uint32_t count, const struct iovec *iov,
		       unsigned int iovcnt, struct lx_nfs3_read_res *res)
{
	if (!call || !iov)
		return -EINVAL;
	return read_start(c, call, fh, offset, count, iov, iovcnt, NULL, res);
}

int lx_nfs3_read_buf_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh, uint64_t offset,
			   uint32_t count, void *buf,
			   struct lx_nfs3_read_res *res)
{
	if (!call || !buf)
		return -EINVAL;
	return read_start(c, call, fh, offset, count, NULL, 0, buf, res);
}

/* ---------------------------------------------------------------- WRITE */

static int write_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *fh, uint64_t offset,
		       const struct iovec *iov, unsigned int iovcnt,
		       uint32_t stable, struct lx_nfs3_write_res *res)
{
	struct lx_nfs3_args a = {.fh = fh, .offset = offset, .how = stable};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_WRITE, lx_nfs3_enc_write,
					   lx_nfs3_dec_write, &a);
	size_t total = 0;
	unsigned int i;
	int err = lx_nfs3_chk(c, res, fh);

	if (err)
		return err;
	if (!iov || !iovcnt || iovcnt > LX_NFS3_MAX_IOV ||
	    stable > LX_NFS3_FILE_SYNC)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EINVAL;
		total += iov[i].iov_len;
		if (total > LX_NFS3_MAX_SIZE_FIELD)
			return -EINVAL;
	}
	a.count = (uint32_t)total;
	r.payload = iov;
	r.npayload = iovcnt;
	return lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_write(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		  uint64_t offset, const struct iovec *iov, unsigned int iovcnt,
		  uint32_t stable, struct lx_nfs3_write_res *res)
{
	return write_start(c, NULL, fh, offset, iov, iovcnt, stable, res);
}

int lx_nfs3_write_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *fh, uint64_t offset,
			const struct iovec *iov, unsigned int iovcnt,
			uint32_t stable, struct lx_nfs3_write_res *res)
{
	if (!call)
		return -EINVAL;
	return write_start(c, call, fh, offset, iov, iovcnt, stable, res);
}

/* --------------------------------------------------------------- COMMIT */

static int commit_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *fh, uint64_t offset,
			uint32_t count, struct lx_nfs3_commit_res *res)
{
	struct lx_nfs3_args a = {.fh = fh, .offset = offset, .count = count};
	struct lx_nfs3_req r = LX_NFS3_REQ(
		LX_NFS3PROC_COMMIT, lx_nfs3_enc_commit, lx_nfs3_dec_commit, &a);
	int err = lx_nfs3_chk(c, res, fh);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_commit(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   uint64_t offset, uint32_t count,
		   struct lx_nfs3_commit_res *res)
{
	return commit_start(c, NULL, fh, offset, count, res);
}

int lx_nfs3_commit_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh, uint64_t offset,
			 uint32_t count, struct lx_nfs3_commit_res *res)
{
	return call ? commit_start(c, call, fh, offset, count, res) : -EINVAL;
}
