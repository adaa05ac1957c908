// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 22 NFSv3 procedures, each as a sync and an async call.
 *
 * Every procedure is the same three steps: check the arguments, describe
 * the call (procedure number, encoder and its arguments, decoder), and
 * hand it to nfs3_call_start().  The decoder's context (struct nfs3_ctx:
 * the caller's result struct, READ destination, READLINK buffer, directory
 * arrays, a precise decode error) lives on the caller's stack for a sync
 * call and in the caller's struct nfs3_call for an async one, so no call
 * allocates.  After the RPC layer decoded the reply, the NFS status is
 * turned into an errno (nfs3_stat_errno()) and, for async calls, the
 * caller's callback runs.
 *
 * READ hands the RPC layer a placement hook (nfs3_read_place) and an
 * iterator over the caller's buffers: the transport reads the data
 * straight into them and refuses a reply announcing more than was asked.
 * WRITE passes the caller's iovecs as the call's payload: they are sent
 * from where they are, after the encoded arguments.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"

/* ----------------------------------------------------------- machinery */

static int finish(int err, struct nfs3_ctx *ctx, void *res,
		  uint32_t *nfs_status)
{
	if (err == -EBADMSG && ctx->err)
		err = ctx->err;
	if (err)
		return err;
	if (!res)
		return 0;
	*nfs_status = *(uint32_t *)res;
	return nfs3_stat_errno(*nfs_status);
}

static void nfs3_rpc_done(struct rpc_call *rc, int status, void *arg)
{
	struct nfs3_call *call = arg;

	(void)rc;
	status = finish(status, nfs3_call_ctx(call), call->res,
			&call->nfs_status);
	/* the caller may reuse @call from here on: touch nothing after */
	call->done(call, status, call->arg);
}

int nfs3_call_start(struct rpc_clnt *rpc, struct nfs3_call *call,
		    const struct nfs3_req *r, struct nfs3_ctx *ctx, void *res)
{
	struct rpc_call_args a = {0};
	struct xprt_iter it;
	uint32_t st;
	int err;

	if (!rpc)
		return -EINVAL;
	ctx->res = res;
	ctx->err = 0;
	a.proc = r->proc;
	a.enc = r->enc;
	a.args = r->args;
	a.dec = r->dec;
	a.res = ctx;
	a.payload = r->payload;
	a.npayload = r->npayload;
	if (r->read) {
		if (!ctx->u.rd.iov) {
			ctx->u.rd.iov = &ctx->u.rd.iov1;
			ctx->u.rd.iovcnt = 1;
		}
		err = xprt_iter_iovec(&it, ctx->u.rd.iov, ctx->u.rd.iovcnt,
				      ctx->u.rd.max);
		if (err)
			return err;
		if (xprt_iter_count(&it) < ctx->u.rd.max)
			return -EINVAL; /* buffers smaller than count */
		ctx->u.rd.placed = false;
		ctx->u.rd.plen = 0;
		a.place = nfs3_read_place;
		a.place_arg = ctx;
		a.rx_dst = &it;
	}
	if (!call)
		return finish(rpc_call_sync(rpc, &a, NULL), ctx, res, &st);
	a.owner = call->owner;
	a.flags = call->flags & NFS3_CALL_NOWAIT;
	call->res = res;
	call->nfs_status = 0;
	return rpc_call_async(rpc, &a, nfs3_rpc_done, call, NULL);
}

/* Start @r on the client's NFS connection(s); @in carries in-parameters
 * for the decoder (or NULL). */
static int run(struct nfs3_clnt *c, struct nfs3_call *call,
	       const struct nfs3_req *r, void *res, const struct nfs3_ctx *in)
{
	struct nfs3_ctx local, *ctx;

	if (call && !call->done)
		return -EINVAL;
	ctx = call ? nfs3_call_ctx(call) : &local;
	if (in)
		*ctx = *in;
	else
		memset(ctx, 0, sizeof(*ctx));
	return nfs3_call_start(c->rpc, call, r, ctx, res);
}

int nfs3_name_ok(const char *name)
{
	size_t n;

	if (!name)
		return -EINVAL;
	n = strnlen(name, NFS3_MAXNAMLEN + 1);
	if (!n)
		return -EINVAL;
	return n > NFS3_MAXNAMLEN ? -ENAMETOOLONG : 0;
}

int nfs3_fh_ok(const struct nfs3_fh *fh)
{
	return fh && fh->len <= NFS3_FHSIZE ? 0 : -EINVAL;
}

/* Client, result and handle present and sane. */
static int chk(const struct nfs3_clnt *c, const void *res,
	       const struct nfs3_fh *fh)
{
	return c && res ? nfs3_fh_ok(fh) : -EINVAL;
}

/* ... plus a name in a directory. */
static int chk_dirop(const struct nfs3_clnt *c, const void *res,
		     const struct nfs3_fh *dir, const char *name)
{
	int err = chk(c, res, dir);

	return err ? err : nfs3_name_ok(name);
}

#define REQ(p, e, d, a)                                          \
	{                                                        \
		.proc = (p), .enc = (xdrproc_t)(e), .args = (a), \
		.dec = (xdrproc_t)(d)                            \
	}

/* ----------------------------------------------------------------- NULL */

static int null_start(struct nfs3_clnt *c, struct nfs3_call *call)
{
	struct nfs3_req r = {.proc = NFS3PROC_NULL};

	if (!c)
		return -EINVAL;
	return run(c, call, &r, NULL, NULL);
}

int nfs3_null(struct nfs3_clnt *c)
{
	return null_start(c, NULL);
}

int nfs3_null_async(struct nfs3_clnt *c, struct nfs3_call *call)
{
	return call ? null_start(c, call) : -EINVAL;
}

/* -------------------------------------------------------------- GETATTR */

static int getattr_start(struct nfs3_clnt *c, struct nfs3_call *call,
			 const struct nfs3_fh *fh, struct nfs3_getattr_res *res)
{
	struct nfs3_args a = {.fh = fh};
	struct nfs3_req r =
		REQ(NFS3PROC_GETATTR, nfs3_enc_fh, nfs3_dec_getattr, &a);
	int err = chk(c, res, fh);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_getattr(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		 struct nfs3_getattr_res *res)
{
	return getattr_start(c, NULL, fh, res);
}

int nfs3_getattr_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *fh, struct nfs3_getattr_res *res)
{
	return call ? getattr_start(c, call, fh, res) : -EINVAL;
}

/* -------------------------------------------------------------- SETATTR */

static int setattr_start(struct nfs3_clnt *c, struct nfs3_call *call,
			 const struct nfs3_fh *fh, const struct nfs3_sattr *sa,
			 const struct nfs3_time *guard,
			 struct nfs3_wcc_res *res)
{
	struct nfs3_args a = {.fh = fh, .sa = sa, .guard = guard};
	struct nfs3_req r =
		REQ(NFS3PROC_SETATTR, nfs3_enc_setattr, nfs3_dec_wcc_res, &a);
	int err = chk(c, res, fh);

	if (!err && !sa)
		err = -EINVAL;
	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_setattr(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		 const struct nfs3_sattr *sa,
		 const struct nfs3_time *guard_ctime, struct nfs3_wcc_res *res)
{
	return setattr_start(c, NULL, fh, sa, guard_ctime, res);
}

int nfs3_setattr_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *fh, const struct nfs3_sattr *sa,
		       const struct nfs3_time *guard_ctime,
		       struct nfs3_wcc_res *res)
{
	return call ? setattr_start(c, call, fh, sa, guard_ctime, res) :
		      -EINVAL;
}

/* --------------------------------------------------------------- LOOKUP */

static int lookup_start(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *dir, const char *name,
			struct nfs3_lookup_res *res)
{
	struct nfs3_args a = {.where = {dir, name}};
	struct nfs3_req r =
		REQ(NFS3PROC_LOOKUP, nfs3_enc_diropargs, nfs3_dec_lookup, &a);
	int err = chk_dirop(c, res, dir, name);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_lookup(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, struct nfs3_lookup_res *res)
{
	return lookup_start(c, NULL, dir, name, res);
}

int nfs3_lookup_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      struct nfs3_lookup_res *res)
{
	return call ? lookup_start(c, call, dir, name, res) : -EINVAL;
}

/* --------------------------------------------------------------- ACCESS */

static int access_start(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, uint32_t access,
			struct nfs3_access_res *res)
{
	struct nfs3_args a = {.fh = fh, .count = access};
	struct nfs3_req r =
		REQ(NFS3PROC_ACCESS, nfs3_enc_access, nfs3_dec_access, &a);
	int err = chk(c, res, fh);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_access(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint32_t access,
		struct nfs3_access_res *res)
{
	return access_start(c, NULL, fh, access, res);
}

int nfs3_access_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, uint32_t access,
		      struct nfs3_access_res *res)
{
	return call ? access_start(c, call, fh, access, res) : -EINVAL;
}

/* ------------------------------------------------------------- READLINK */

static int readlink_start(struct nfs3_clnt *c, struct nfs3_call *call,
			  const struct nfs3_fh *fh, char *buf, size_t size,
			  struct nfs3_readlink_res *res)
{
	struct nfs3_args a = {.fh = fh};
	struct nfs3_req r =
		REQ(NFS3PROC_READLINK, nfs3_enc_fh, nfs3_dec_readlink, &a);
	struct nfs3_ctx in = {0};
	int err = chk(c, res, fh);

	if (!err && (!buf || size < 2))
		err = -EINVAL;
	if (err)
		return err;
	in.u.str.buf = buf;
	in.u.str.size = size;
	return run(c, call, &r, res, &in);
}

int nfs3_readlink(struct nfs3_clnt *c, const struct nfs3_fh *fh, char *buf,
		  size_t size, struct nfs3_readlink_res *res)
{
	return readlink_start(c, NULL, fh, buf, size, res);
}

int nfs3_readlink_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, char *buf, size_t size,
			struct nfs3_readlink_res *res)
{
	return call ? readlink_start(c, call, fh, buf, size, res) : -EINVAL;
}

/* ----------------------------------------------------------------- READ */

static int read_start(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, uint64_t offset, uint32_t count,
		      const struct iovec *iov, unsigned int iovcnt, void *buf,
		      struct nfs3_read_res *res)
{
	struct nfs3_args a = {.fh = fh, .offset = offset, .count = count};
	struct nfs3_req r =
		REQ(NFS3PROC_READ, nfs3_enc_read, nfs3_dec_read, &a);
	struct nfs3_ctx in = {0};
	int err = chk(c, res, fh);

	if (err)
		return err;
	if (count > NFS3_MAX_SIZE_FIELD || (count && !iov && !buf) ||
	    (iov && !iovcnt))
		return -EINVAL;
	r.read = true;
	in.u.rd.max = count;
	in.u.rd.iov = iov;
	in.u.rd.iovcnt = iovcnt;
	in.u.rd.iov1.iov_base = buf;
	in.u.rd.iov1.iov_len = count;
	return run(c, call, &r, res, &in);
}

int nfs3_read(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
	      uint32_t count, const struct iovec *iov, unsigned int iovcnt,
	      struct nfs3_read_res *res)
{
	if (!iov)
		return -EINVAL;
	return read_start(c, NULL, fh, offset, count, iov, iovcnt, NULL, res);
}

int nfs3_read_async(struct nfs3_clnt *c, struct nfs3_call *call,
		    const struct nfs3_fh *fh, uint64_t offset, uint32_t count,
		    const struct iovec *iov, unsigned int iovcnt,
		    struct nfs3_read_res *res)
{
	if (!call || !iov)
		return -EINVAL;
	return read_start(c, call, fh, offset, count, iov, iovcnt, NULL, res);
}

int nfs3_read_buf_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, uint64_t offset,
			uint32_t count, void *buf, struct nfs3_read_res *res)
{
	if (!call || !buf)
		return -EINVAL;
	return read_start(c, call, fh, offset, count, NULL, 0, buf, res);
}

/* ---------------------------------------------------------------- WRITE */

static int write_start(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *fh, uint64_t offset,
		       const struct iovec *iov, unsigned int iovcnt,
		       uint32_t stable, struct nfs3_write_res *res)
{
	struct nfs3_args a = {.fh = fh, .offset = offset, .how = stable};
	struct nfs3_req r =
		REQ(NFS3PROC_WRITE, nfs3_enc_write, nfs3_dec_write, &a);
	size_t total = 0;
	unsigned int i;
	int err = chk(c, res, fh);

	if (err)
		return err;
	if (!iov || !iovcnt || iovcnt > NFS3_MAX_IOV || stable > NFS3_FILE_SYNC)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EINVAL;
		total += iov[i].iov_len;
		if (total > NFS3_MAX_SIZE_FIELD)
			return -EINVAL;
	}
	a.count = (uint32_t)total;
	r.payload = iov;
	r.npayload = iovcnt;
	return run(c, call, &r, res, NULL);
}

int nfs3_write(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
	       const struct iovec *iov, unsigned int iovcnt, uint32_t stable,
	       struct nfs3_write_res *res)
{
	return write_start(c, NULL, fh, offset, iov, iovcnt, stable, res);
}

int nfs3_write_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *fh, uint64_t offset,
		     const struct iovec *iov, unsigned int iovcnt,
		     uint32_t stable, struct nfs3_write_res *res)
{
	if (!call)
		return -EINVAL;
	return write_start(c, call, fh, offset, iov, iovcnt, stable, res);
}

/* ------------------------------------------------ CREATE MKDIR SYMLINK MKNOD */

static int create_start(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *dir, const char *name,
			uint32_t mode, const struct nfs3_sattr *sa,
			const uint8_t *verf, struct nfs3_create_res *res)
{
	struct nfs3_args a = {
		.where = {dir, name}, .how = mode, .sa = sa, .verf = verf};
	struct nfs3_req r =
		REQ(NFS3PROC_CREATE, nfs3_enc_create, nfs3_dec_create, &a);
	int err = chk_dirop(c, res, dir, name);

	if (err)
		return err;
	if (mode > NFS3_CREATE_EXCLUSIVE ||
	    (mode == NFS3_CREATE_EXCLUSIVE && !verf))
		return -EINVAL;
	return run(c, call, &r, res, NULL);
}

int nfs3_create(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, uint32_t mode, const struct nfs3_sattr *sa,
		const uint8_t *verf, struct nfs3_create_res *res)
{
	return create_start(c, NULL, dir, name, mode, sa, verf, res);
}

int nfs3_create_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      uint32_t mode, const struct nfs3_sattr *sa,
		      const uint8_t *verf, struct nfs3_create_res *res)
{
	return call ? create_start(c, call, dir, name, mode, sa, verf, res) :
		      -EINVAL;
}

static int mkdir_start(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, const char *name,
		       const struct nfs3_sattr *sa, struct nfs3_create_res *res)
{
	struct nfs3_args a = {.where = {dir, name}, .sa = sa};
	struct nfs3_req r =
		REQ(NFS3PROC_MKDIR, nfs3_enc_mkdir, nfs3_dec_create, &a);
	int err = chk_dirop(c, res, dir, name);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_mkdir(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       const struct nfs3_sattr *sa, struct nfs3_create_res *res)
{
	return mkdir_start(c, NULL, dir, name, sa, res);
}

int nfs3_mkdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name,
		     const struct nfs3_sattr *sa, struct nfs3_create_res *res)
{
	return call ? mkdir_start(c, call, dir, name, sa, res) : -EINVAL;
}

static int symlink_start(struct nfs3_clnt *c, struct nfs3_call *call,
			 const struct nfs3_fh *dir, const char *name,
			 const struct nfs3_sattr *sa, const char *target,
			 struct nfs3_create_res *res)
{
	struct nfs3_args a = {.where = {dir, name}, .sa = sa, .target = target};
	struct nfs3_req r =
		REQ(NFS3PROC_SYMLINK, nfs3_enc_symlink, nfs3_dec_create, &a);
	int err = chk_dirop(c, res, dir, name);
	size_t n;

	if (err)
		return err;
	if (!target || !(n = strnlen(target, NFS3_MAXPATHLEN + 1)))
		return -EINVAL;
	if (n > NFS3_MAXPATHLEN)
		return -ENAMETOOLONG;
	return run(c, call, &r, res, NULL);
}

int nfs3_symlink(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		 const char *name, const struct nfs3_sattr *sa,
		 const char *target, struct nfs3_create_res *res)
{
	return symlink_start(c, NULL, dir, name, sa, target, res);
}

int nfs3_symlink_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, const char *name,
		       const struct nfs3_sattr *sa, const char *target,
		       struct nfs3_create_res *res)
{
	return call ? symlink_start(c, call, dir, name, sa, target, res) :
		      -EINVAL;
}

static int mknod_start(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, const char *name,
		       uint32_t type, const struct nfs3_sattr *sa,
		       uint32_t major, uint32_t minor,
		       struct nfs3_create_res *res)
{
	struct nfs3_args a = {.where = {dir, name},
			      .type = type,
			      .sa = sa,
			      .major = major,
			      .minor = minor};
	struct nfs3_req r =
		REQ(NFS3PROC_MKNOD, nfs3_enc_mknod, nfs3_dec_create, &a);
	int err = chk_dirop(c, res, dir, name);

	if (err)
		return err;
	if (type != NF3CHR && type != NF3BLK && type != NF3SOCK &&
	    type != NF3FIFO)
		return -EINVAL;
	return run(c, call, &r, res, NULL);
}

int nfs3_mknod(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       uint32_t type, const struct nfs3_sattr *sa, uint32_t major,
	       uint32_t minor, struct nfs3_create_res *res)
{
	return mknod_start(c, NULL, dir, name, type, sa, major, minor, res);
}

int nfs3_mknod_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name, uint32_t type,
		     const struct nfs3_sattr *sa, uint32_t major,
		     uint32_t minor, struct nfs3_create_res *res)
{
	if (!call)
		return -EINVAL;
	return mknod_start(c, call, dir, name, type, sa, major, minor, res);
}

/* -------------------------------------------------------- REMOVE RMDIR */

static int unlink_start(struct nfs3_clnt *c, struct nfs3_call *call,
			uint32_t proc, const struct nfs3_fh *dir,
			const char *name, struct nfs3_wcc_res *res)
{
	struct nfs3_args a = {.where = {dir, name}};
	struct nfs3_req r = REQ(proc, nfs3_enc_diropargs, nfs3_dec_wcc_res, &a);
	int err = chk_dirop(c, res, dir, name);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_remove(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, struct nfs3_wcc_res *res)
{
	return unlink_start(c, NULL, NFS3PROC_REMOVE, dir, name, res);
}

int nfs3_remove_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      struct nfs3_wcc_res *res)
{
	return call ? unlink_start(c, call, NFS3PROC_REMOVE, dir, name, res) :
		      -EINVAL;
}

int nfs3_rmdir(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       struct nfs3_wcc_res *res)
{
	return unlink_start(c, NULL, NFS3PROC_RMDIR, dir, name, res);
}

int nfs3_rmdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name,
		     struct nfs3_wcc_res *res)
{
	return call ? unlink_start(c, call, NFS3PROC_RMDIR, dir, name, res) :
		      -EINVAL;
}

/* --------------------------------------------------------------- RENAME */

static int rename_start(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fdir, const char *fname,
			const struct nfs3_fh *tdir, const char *tname,
			struct nfs3_rename_res *res)
{
	struct nfs3_args a = {.where = {fdir, fname}, .to = {tdir, tname}};
	struct nfs3_req r =
		REQ(NFS3PROC_RENAME, nfs3_enc_rename, nfs3_dec_rename, &a);
	int err = chk_dirop(c, res, fdir, fname);

	if (!err)
		err = chk_dirop(c, res, tdir, tname);
	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_rename(struct nfs3_clnt *c, const struct nfs3_fh *from_dir,
		const char *from_name, const struct nfs3_fh *to_dir,
		const char *to_name, struct nfs3_rename_res *res)
{
	return rename_start(c, NULL, from_dir, from_name, to_dir, to_name, res);
}

int nfs3_rename_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *from_dir, const char *from_name,
		      const struct nfs3_fh *to_dir, const char *to_name,
		      struct nfs3_rename_res *res)
{
	if (!call)
		return -EINVAL;
	return rename_start(c, call, from_dir, from_name, to_dir, to_name, res);
}

/* ----------------------------------------------------------------- LINK */

static int link_start(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, const struct nfs3_fh *dir,
		      const char *name, struct nfs3_link_res *res)
{
	struct nfs3_args a = {.fh = fh, .where = {dir, name}};
	struct nfs3_req r =
		REQ(NFS3PROC_LINK, nfs3_enc_link, nfs3_dec_link, &a);
	int err = chk_dirop(c, res, dir, name);

	if (!err)
		err = nfs3_fh_ok(fh);
	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_link(struct nfs3_clnt *c, const struct nfs3_fh *fh,
	      const struct nfs3_fh *dir, const char *name,
	      struct nfs3_link_res *res)
{
	return link_start(c, NULL, fh, dir, name, res);
}

int nfs3_link_async(struct nfs3_clnt *c, struct nfs3_call *call,
		    const struct nfs3_fh *fh, const struct nfs3_fh *dir,
		    const char *name, struct nfs3_link_res *res)
{
	return call ? link_start(c, call, fh, dir, name, res) : -EINVAL;
}

/* --------------------------------------------------- READDIR(PLUS) */

static int readdir_start(struct nfs3_clnt *c, struct nfs3_call *call, bool plus,
			 const struct nfs3_fh *dir, uint64_t cookie,
			 const uint8_t *verf, uint32_t count, uint32_t maxcount,
			 struct nfs3_dirbuf *db, struct nfs3_readdir_res *res)
{
	struct nfs3_args a = {.fh = dir,
			      .cookie = cookie,
			      .verf = verf,
			      .count = count,
			      .count2 = maxcount};
	struct nfs3_req r =
		REQ(NFS3PROC_READDIR, nfs3_enc_readdir, nfs3_dec_readdir, &a);
	struct nfs3_ctx in = {0};
	int err = chk(c, res, dir);

	if (err)
		return err;
	if (!db || (db->cap && !db->ent) || !db->names || !db->names_size ||
	    !count || (plus && !maxcount))
		return -EINVAL;
	if (plus) {
		r.proc = NFS3PROC_READDIRPLUS;
		r.enc = (xdrproc_t)nfs3_enc_readdirplus;
		r.dec = (xdrproc_t)nfs3_dec_readdirplus;
	}
	in.u.db = db;
	return run(c, call, &r, res, &in);
}

int nfs3_readdir(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		 uint64_t cookie, const uint8_t *verf, uint32_t count,
		 struct nfs3_dirbuf *db, struct nfs3_readdir_res *res)
{
	return readdir_start(c, NULL, false, dir, cookie, verf, count, 0, db,
			     res);
}

int nfs3_readdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, uint64_t cookie,
		       const uint8_t *verf, uint32_t count,
		       struct nfs3_dirbuf *db, struct nfs3_readdir_res *res)
{
	if (!call)
		return -EINVAL;
	return readdir_start(c, call, false, dir, cookie, verf, count, 0, db,
			     res);
}

int nfs3_readdirplus(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		     uint64_t cookie, const uint8_t *verf, uint32_t dircount,
		     uint32_t maxcount, struct nfs3_dirbuf *db,
		     struct nfs3_readdir_res *res)
{
	return readdir_start(c, NULL, true, dir, cookie, verf, dircount,
			     maxcount, db, res);
}

int nfs3_readdirplus_async(struct nfs3_clnt *c, struct nfs3_call *call,
			   const struct nfs3_fh *dir, uint64_t cookie,
			   const uint8_t *verf, uint32_t dircount,
			   uint32_t maxcount, struct nfs3_dirbuf *db,
			   struct nfs3_readdir_res *res)
{
	if (!call)
		return -EINVAL;
	return readdir_start(c, call, true, dir, cookie, verf, dircount,
			     maxcount, db, res);
}

/* --------------------------------------------- FSSTAT FSINFO PATHCONF */

static int fhop_start(struct nfs3_clnt *c, struct nfs3_call *call,
		      uint32_t proc, xdrproc_t dec, const struct nfs3_fh *fh,
		      void *res)
{
	struct nfs3_args a = {.fh = fh};
	struct nfs3_req r = REQ(proc, nfs3_enc_fh, dec, &a);
	int err = chk(c, res, fh);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_fsstat(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		struct nfs3_fsstat_res *res)
{
	return fhop_start(c, NULL, NFS3PROC_FSSTAT, (xdrproc_t)nfs3_dec_fsstat,
			  fh, res);
}

int nfs3_fsstat_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, struct nfs3_fsstat_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, NFS3PROC_FSSTAT, (xdrproc_t)nfs3_dec_fsstat,
			  fh, res);
}

int nfs3_fsinfo(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		struct nfs3_fsinfo_res *res)
{
	return fhop_start(c, NULL, NFS3PROC_FSINFO, (xdrproc_t)nfs3_dec_fsinfo,
			  fh, res);
}

int nfs3_fsinfo_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, struct nfs3_fsinfo_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, NFS3PROC_FSINFO, (xdrproc_t)nfs3_dec_fsinfo,
			  fh, res);
}

int nfs3_pathconf(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		  struct nfs3_pathconf_res *res)
{
	return fhop_start(c, NULL, NFS3PROC_PATHCONF,
			  (xdrproc_t)nfs3_dec_pathconf, fh, res);
}

int nfs3_pathconf_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, struct nfs3_pathconf_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, NFS3PROC_PATHCONF,
			  (xdrproc_t)nfs3_dec_pathconf, fh, res);
}

/* --------------------------------------------------------------- COMMIT */

static int commit_start(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, uint64_t offset,
			uint32_t count, struct nfs3_commit_res *res)
{
	struct nfs3_args a = {.fh = fh, .offset = offset, .count = count};
	struct nfs3_req r =
		REQ(NFS3PROC_COMMIT, nfs3_enc_commit, nfs3_dec_commit, &a);
	int err = chk(c, res, fh);

	return err ? err : run(c, call, &r, res, NULL);
}

int nfs3_commit(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
		uint32_t count, struct nfs3_commit_res *res)
{
	return commit_start(c, NULL, fh, offset, count, res);
}

int nfs3_commit_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, uint64_t offset, uint32_t count,
		      struct nfs3_commit_res *res)
{
	return call ? commit_start(c, call, fh, offset, count, res) : -EINVAL;
}
