/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's 9P2000.L protocol: one lx_p9 session per job attached to
 * the URL's aname, a fid per open file, Tread and Twrite of up to the
 * session's iounit per call, fsync as Tfsync.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include <libxprt/p9.h>
#include <libxprt/url.h>

#include "lxfio.h"

static int p9_connect(struct lxfio_conn *c, const struct lx_url *u, char *err,
		      size_t errlen)
{
	struct lx_p9_opts o = {.errbuf = err, .errbuf_len = errlen};
	struct lx_p9_clnt *clnt;
	int ret;

	lx_url_p9_opts(u, &o);
	o.mode = lxfio_xprt_mode(c, o.transport == LX_XPRT_TRANSPORT_RDMA,
				 o.zerocopy);
	ret = lx_p9_create(&clnt, &o);
	if (ret)
		return ret;
	c->clnt = clnt;
	c->caller = o.mode == LX_XPRT_MODE_CALLER;
	c->iosize = lx_p9_iosize(clnt);
	c->rdma = o.transport == LX_XPRT_TRANSPORT_RDMA;
	return 0;
}

static int p9_run(struct lxfio_conn *c, unsigned int min_done,
		  uint64_t deadline_ns)
{
	return lx_p9_loop_run(c->clnt, NULL, min_done, deadline_ns);
}

static void p9_disconnect(struct lxfio_conn *c)
{
	lx_p9_destroy(c->clnt);
	c->clnt = NULL;
}

static int p9_size(struct lxfio_conn *c, const char *name, uint64_t *size)
{
	struct lx_p9_attr attr;
	int ret;

	ret = lx_p9_stat_path(c->clnt, name, LX_P9_GETATTR_SIZE, &attr);
	if (!ret)
		*size = attr.size;
	return ret;
}

static int p9_open(struct lxfio_conn *c, const char *name, bool create,
		   uint64_t size, struct lxfio_file *lf)
{
	struct lx_p9_attr attr;
	uint32_t iounit = 0;
	int ret;

	ret = lx_p9_open_path(c->clnt, name, O_RDWR | (create ? O_CREAT : 0),
			      0644, &lf->fid, &iounit);
	if ((ret == -EACCES || ret == -EROFS) && !create)
		ret = lx_p9_open_path(c->clnt, name, O_RDONLY, 0, &lf->fid,
				      &iounit);
	if (ret)
		return ret;
	if (iounit && iounit < c->iosize)
		c->iosize = iounit;
	ret = lx_p9_getattr(c->clnt, lf->fid, LX_P9_GETATTR_SIZE, &attr);
	if (ret)
		goto out_clunk;
	lf->size = attr.size;
	if (size > attr.size) {
		struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_SIZE,
					 .size = size};

		ret = lx_p9_setattr(c->clnt, lf->fid, &ia);
		if (ret)
			goto out_clunk;
		lf->size = size;
	}
	return 0;
out_clunk:
	lx_p9_clunk(c->clnt, lf->fid);
	return ret;
}

static int p9_start(struct lxfio_conn *c, struct lxfio_file *lf,
		    struct lxfio_piece *p, enum lxfio_op op, void *buf,
		    uint32_t len, uint64_t off, bool stable)
{
	switch (op) {
	case LXFIO_READ:
		return lx_p9_read_async(c->clnt, &p->call, lf->fid, off, len,
					buf);
	case LXFIO_WRITE:
		return lx_p9_write_async(c->clnt, &p->call, lf->fid, off, len,
					 buf);
	case LXFIO_SYNC:
	case LXFIO_DATASYNC:
		return lx_p9_fsync_async(c->clnt, &p->call, lf->fid,
					 op == LXFIO_DATASYNC);
	}
	return -EINVAL;
}

static int p9_close(struct lxfio_conn *c, struct lxfio_file *lf, char *err,
		    size_t errlen)
{
	int ret = lx_p9_clunk(c->clnt, lf->fid);

	if (ret)
		snprintf(err, errlen, "Tclunk: %s", lx_strerror(ret));
	return ret;
}

static int p9_unlink(struct lxfio_conn *c, const char *name)
{
	return lx_p9_remove_path(c->clnt, name);
}

static struct lx_xprt *p9_xprt(struct lxfio_conn *c, unsigned int i)
{
	return i ? NULL : lx_p9_xprt(c->clnt);
}

const struct lxfio_proto lxfio_p9 = {
	.scheme = "9p",
	.name = "9P2000.L",
	.connect = p9_connect,
	.open = p9_open,
	.size = p9_size,
	.start = p9_start,
	.close = p9_close,
	.run = p9_run,
	.xprt = p9_xprt,
	.unlink = p9_unlink,
	.disconnect = p9_disconnect,
};
