/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's NFSv3 protocol: one lx_nfs3 client per job, files looked
 * up (and created) below the URL's export, READ and WRITE of up to the
 * server's rtmax/wtmax per call, fsync as COMMIT of the whole file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libxprt/nfs3.h>
#include <libxprt/url.h>

#include "lxfio.h"

_Static_assert(sizeof(((struct lxfio_file *)0)->fh) >=
		       sizeof(struct lx_nfs3_fh),
	       "lxfio_file holds a handle");

union nfs3_res {
	struct lx_nfs3_read_res rd;
	struct lx_nfs3_write_res wr;
	struct lx_nfs3_commit_res cm;
};
_Static_assert(sizeof(((struct lxfio_piece *)0)->res) >= sizeof(union nfs3_res),
	       "lxfio_piece holds a result");

static int nfs3_connect(struct lxfio_conn *c, const struct lx_url *u, char *err,
			size_t errlen)
{
	struct lx_nfs3_opts o = {.errmsg = err, .errmsg_len = errlen};
	struct lx_nfs3_clnt *clnt;
	int ret;

	lx_url_nfs3_opts(u, &o);
	o.mode = lxfio_xprt_mode(c, o.transport == LX_XPRT_TRANSPORT_RDMA,
				 o.zerocopy);
	ret = lx_nfs3_create(&clnt, &o);
	if (ret)
		return ret;
	c->clnt = clnt;
	c->caller = o.mode == LX_XPRT_MODE_CALLER;
	c->iosize = lx_nfs3_rsize(clnt) < lx_nfs3_wsize(clnt) ?
			    lx_nfs3_rsize(clnt) :
			    lx_nfs3_wsize(clnt);
	c->rdma = o.transport == LX_XPRT_TRANSPORT_RDMA;
	return 0;
}

static int nfs3_run(struct lxfio_conn *c, unsigned int min_done,
		    uint64_t deadline_ns)
{
	return lx_nfs3_loop_run(c->clnt, NULL, min_done, deadline_ns);
}

static struct lx_xprt *nfs3_xprt(struct lxfio_conn *c, unsigned int i)
{
	struct lx_rpc_clnt *cl = lx_nfs3_rpc(c->clnt);

	return i < lx_rpc_nconnect(cl) ? lx_rpc_xprt(cl, i) : NULL;
}

static void nfs3_disconnect(struct lxfio_conn *c)
{
	lx_nfs3_destroy(c->clnt);
	c->clnt = NULL;
}

/* the directory of @name (below the export) and its last component */
static int nfs3_parent(struct lx_nfs3_clnt *clnt, const char *name,
		       struct lx_nfs3_fh *dir, const char **base)
{
	const char *slash = strrchr(name, '/');
	char path[1024];

	*base = slash ? slash + 1 : name;
	if (!slash) {
		*dir = *lx_nfs3_root(clnt);
		return 0;
	}
	if ((size_t)(slash - name) >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, name, (size_t)(slash - name));
	path[slash - name] = '\0';
	return lx_nfs3_lookup_path(clnt, path, dir, NULL);
}

static int nfs3_size(struct lxfio_conn *c, const char *name, uint64_t *size)
{
	struct lx_nfs3_fattr attr;
	struct lx_nfs3_fh fh;
	int ret;

	ret = lx_nfs3_lookup_path(c->clnt, name, &fh, &attr);
	if (!ret)
		*size = attr.size;
	return ret;
}

static int nfs3_open(struct lxfio_conn *c, const char *name, bool create,
		     uint64_t size, struct lxfio_file *lf)
{
	struct lx_nfs3_fh *fh = (struct lx_nfs3_fh *)lf->fh;
	struct lx_nfs3_fattr attr;
	int ret;

	ret = lx_nfs3_lookup_path(c->clnt, name, fh, &attr);
	if (ret == -ENOENT && create) {
		struct lx_nfs3_sattr sa = {.set_mode = true, .mode = 0644};
		struct lx_nfs3_create_res cr;
		struct lx_nfs3_fh dir;
		const char *base;

		ret = nfs3_parent(c->clnt, name, &dir, &base);
		if (ret)
			return ret;
		ret = lx_nfs3_create_file(c->clnt, &dir, base,
					  LX_NFS3_CREATE_UNCHECKED, &sa, NULL,
					  &cr);
		if (ret)
			return ret;
		/* a server may answer without the handle: look it up */
		ret = lx_nfs3_lookup_path(c->clnt, name, fh, &attr);
	}
	if (ret)
		return ret;
	lf->size = attr.size;
	if (size > attr.size) {
		struct lx_nfs3_sattr sa = {.set_size = true, .size = size};
		struct lx_nfs3_wcc_res wr;

		ret = lx_nfs3_setattr(c->clnt, fh, &sa, NULL, &wr);
		if (ret)
			return ret;
		lf->size = size;
	}
	return 0;
}

static int nfs3_start(struct lxfio_conn *c, struct lxfio_file *lf,
		      struct lxfio_piece *p, enum lxfio_op op, void *buf,
		      uint32_t len, uint64_t off, bool stable)
{
	const struct lx_nfs3_fh *fh = (const struct lx_nfs3_fh *)lf->fh;
	union nfs3_res *res = (union nfs3_res *)p->res;
	struct iovec iov = {.iov_base = buf, .iov_len = len};

	switch (op) {
	case LXFIO_READ:
		return lx_nfs3_read_buf_async(c->clnt, &p->call, fh, off, len,
					      buf, &res->rd);
	case LXFIO_WRITE:
		return lx_nfs3_write_async(c->clnt, &p->call, fh, off, &iov, 1,
					   stable ? LX_NFS3_FILE_SYNC :
						    LX_NFS3_UNSTABLE,
					   &res->wr);
	case LXFIO_SYNC:
	case LXFIO_DATASYNC:
		return lx_nfs3_commit_async(c->clnt, &p->call, fh, 0, 0,
					    &res->cm);
	}
	return -EINVAL;
}

/*
 * Unstable WRITEs are safe once a COMMIT answers with the verifier they
 * were written under; a different one means the server restarted in
 * between and may have lost them.  The engine keeps no copy to write
 * again (fio reuses its buffers): it says so with -EIO, where the Linux
 * client would resend.
 */
static int nfs3_verf(struct lxfio_file *lf, const uint8_t *verf, bool commit)
{
	int ret = 0;

	if (lf->verf_set && memcmp(lf->verf, verf, sizeof(lf->verf)))
		lf->verf_changed = true;
	memcpy(lf->verf, verf, sizeof(lf->verf));
	lf->verf_set = true;
	if (commit) {
		if (lf->unstable && lf->verf_changed)
			ret = -EIO;
		lf->unstable = lf->verf_changed = false;
	}
	return ret;
}

_Static_assert(sizeof(((struct lxfio_file *)0)->verf) == LX_NFS3_VERFSIZE,
	       "lxfio_file holds a write verifier");

static const char verf_msg[] =
	"the server's write verifier changed since the unstable WRITEs: it "
	"restarted and may have lost them (sync=1 writes stable data)";

static int nfs3_finish(struct lxfio_conn *c, struct lxfio_file *lf,
		       struct lxfio_io *io, char *err, size_t errlen)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < io->nsent; i++) {
		union nfs3_res *res = (union nfs3_res *)io->piece[i].res;

		if (io->piece[i].status)
			continue;
		if (io->op == LXFIO_WRITE &&
		    res->wr.committed == LX_NFS3_UNSTABLE) {
			nfs3_verf(lf, res->wr.verf, false);
			lf->unstable = true;
		} else if (io->op == LXFIO_SYNC || io->op == LXFIO_DATASYNC) {
			ret = nfs3_verf(lf, res->cm.verf, true);
		}
	}
	if (ret)
		snprintf(err, errlen, "%s", verf_msg);
	return ret;
}

/* as close(2) on an NFS mount: what is unstable is committed first */
static int nfs3_close(struct lxfio_conn *c, struct lxfio_file *lf, char *err,
		      size_t errlen)
{
	struct lx_nfs3_commit_res res;
	int ret;

	if (!lf->unstable)
		return 0;
	ret = lx_nfs3_commit(c->clnt, (const struct lx_nfs3_fh *)lf->fh, 0, 0,
			     &res);
	if (ret)
		snprintf(err, errlen, "COMMIT: %s", lx_strerror(ret));
	else if ((ret = nfs3_verf(lf, res.verf, true)))
		snprintf(err, errlen, "%s", verf_msg);
	return ret;
}

static int nfs3_unlink(struct lxfio_conn *c, const char *name)
{
	struct lx_nfs3_wcc_res res;
	struct lx_nfs3_fh dir;
	const char *base;
	int ret;

	ret = nfs3_parent(c->clnt, name, &dir, &base);
	if (!ret)
		ret = lx_nfs3_remove(c->clnt, &dir, base, &res);
	return ret;
}

const struct lxfio_proto lxfio_nfs3 = {
	.scheme = "nfs",
	.name = "NFSv3",
	.connect = nfs3_connect,
	.open = nfs3_open,
	.size = nfs3_size,
	.start = nfs3_start,
	.finish = nfs3_finish,
	.close = nfs3_close,
	.run = nfs3_run,
	.xprt = nfs3_xprt,
	.unlink = nfs3_unlink,
	.disconnect = nfs3_disconnect,
};
