// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: a whole NFSv3 / MOUNT v3 call's reply path - the public
 * async API (lx_nfs3_*_async, lx_nfs3_mnt_*_async), the RPC reply header, READ
 * placement into the caller's iovecs (lx_nfs3_read_place, straight from the
 * stage or by readv()), the decoders on the reduced stream, the status
 * mapping, the completion callback - over the real receive state machine.
 *
 * Input: case byte, buffer-size byte (see nfs3_cases.h), chunking byte,
 * then the server's stream (record-marked replies; the call's XID is
 * FZ_XID).  Seeds are replies captured from nfs-ganesha
 * (tests/fuzz/capture-corpus.sh).
 *
 * Checks: the callback runs exactly once (a call left waiting at the end
 * of the input is failed), a status is 0 or a negative errno, and a
 * successful result satisfies nc_check().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nfs3_cases.h"

static struct {
	struct lx_rpc_clnt *rpc;
	struct lx_nfs3_clnt clnt;
	struct fz_stream s;
	struct nfs3_case_buf b;
} g;

struct fz_nfs_call {
	struct lx_call call;
	unsigned int done;
	int status;
};

static void done(struct lx_call *call, int status, void *arg)
{
	struct fz_nfs_call *fc = arg;

	(void)call;
	FZ_ASSERT(fc->done == 0);
	fc->done++;
	fc->status = status;
	FZ_ASSERT(status <= 0);
}

static int start(enum nfs3_case c, struct lx_call *call)
{
	static const struct lx_nfs3_fh fh = {.len = 8, .data = "fuzzfh!"};
	static const struct lx_nfs3_sattr sa = {.set_mode = true, .mode = 0644};
	static const uint8_t verf[LX_NFS3_VERFSIZE];
	static char wdata[5] = "hello";
	static const struct iovec wiov = {wdata, sizeof(wdata)};
	struct lx_nfs3_clnt *cl = &g.clnt;
	struct nfs3_case_buf *b = &g.b;

	switch (c) {
	case NC_NULL:
		return lx_nfs3_null_async(cl, call);
	case NC_GETATTR:
		return lx_nfs3_getattr_async(cl, call, &fh, &b->res.getattr);
	case NC_SETATTR:
		return lx_nfs3_setattr_async(cl, call, &fh, &sa, NULL,
					     &b->res.wcc);
	case NC_LOOKUP:
		return lx_nfs3_lookup_async(cl, call, &fh, "a", &b->res.lookup);
	case NC_ACCESS:
		return lx_nfs3_access_async(cl, call, &fh, 0x3f,
					    &b->res.access);
	case NC_READLINK:
		return lx_nfs3_readlink_async(cl, call, &fh, b->link,
					      b->link_size, &b->res.readlink);
	case NC_READ:
		return lx_nfs3_read_async(cl, call, &fh, 0, b->count, b->iov,
					  b->iovcnt, &b->res.read);
	case NC_WRITE:
		return lx_nfs3_write_async(cl, call, &fh, 0, &wiov, 1,
					   LX_NFS3_UNSTABLE, &b->res.write);
	case NC_CREATE:
		return lx_nfs3_create_file_async(cl, call, &fh, "a",
						 LX_NFS3_CREATE_UNCHECKED, &sa,
						 NULL, &b->res.create);
	case NC_MKDIR:
		return lx_nfs3_mkdir_async(cl, call, &fh, "a", &sa,
					   &b->res.create);
	case NC_SYMLINK:
		return lx_nfs3_symlink_async(cl, call, &fh, "a", &sa, "t",
					     &b->res.create);
	case NC_MKNOD:
		return lx_nfs3_mknod_async(cl, call, &fh, "a", NF3FIFO, &sa, 0,
					   0, &b->res.create);
	case NC_REMOVE:
		return lx_nfs3_remove_async(cl, call, &fh, "a", &b->res.wcc);
	case NC_RMDIR:
		return lx_nfs3_rmdir_async(cl, call, &fh, "a", &b->res.wcc);
	case NC_RENAME:
		return lx_nfs3_rename_async(cl, call, &fh, "a", &fh, "b",
					    &b->res.rename);
	case NC_LINK:
		return lx_nfs3_link_async(cl, call, &fh, &fh, "a",
					  &b->res.link);
	case NC_READDIR:
		return lx_nfs3_readdir_async(cl, call, &fh, 0, verf, 4096,
					     &b->db, &b->res.readdir);
	case NC_READDIRPLUS:
		return lx_nfs3_readdirplus_async(cl, call, &fh, 0, verf, 4096,
						 8192, &b->db, &b->res.readdir);
	case NC_FSSTAT:
		return lx_nfs3_fsstat_async(cl, call, &fh, &b->res.fsstat);
	case NC_FSINFO:
		return lx_nfs3_fsinfo_async(cl, call, &fh, &b->res.fsinfo);
	case NC_PATHCONF:
		return lx_nfs3_pathconf_async(cl, call, &fh, &b->res.pathconf);
	case NC_COMMIT:
		return lx_nfs3_commit_async(cl, call, &fh, 0, 0,
					    &b->res.commit);
	case NC_MNT:
		return lx_nfs3_mnt_mnt_async(g.rpc, call, "/export",
					     &b->res.mnt);
	case NC_DUMP:
		return lx_nfs3_mnt_dump_async(g.rpc, call, &b->ml);
	case NC_EXPORT:
		return lx_nfs3_mnt_export_async(g.rpc, call, &b->ml);
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size};
	enum nfs3_case c = (enum nfs3_case)(fz_u8(&in) % NC_N);
	uint8_t param = fz_u8(&in), chunk = fz_u8(&in);
	struct fz_nfs_call fc = {0};
	struct lx_xprt *x;

	if (!g.rpc) {
		/* LX_NFS3_DEF_BUF_SIZE, as lx_nfs3_create() would */
		g.rpc = fz_rpc_clnt(LX_NFS3_DEF_BUF_SIZE, 4);
		g.clnt.rpc = g.rpc;
		g.clnt.buf_size = LX_NFS3_DEF_BUF_SIZE;
		g.clnt.rsize = g.clnt.wsize = 1u << 20;
		g.clnt.dirsize = LX_NFS3_DEF_BUF_SIZE - LX_NFS3_DIR_SLACK;
		fz_stream_open(&g.s);
	}
	x = fz_rpc_xprt(g.rpc);
	nc_setup(&g.b, param);
	fc.call.done = done;
	fc.call.arg = &fc;
	fz_rpc_next_xid(g.rpc, FZ_XID);
	FZ_ASSERT(start(c, &fc.call) == 0);
	fz_wait_xprt_sent(x);

	fz_stream_feed(&g.s, x, in.p, in.left, fz_chunk(chunk));
	fz_stream_reset(&g.s, x);
	if (!fc.done)
		lx_xprt_fail_all(x, -ECANCELED);
	FZ_ASSERT(fc.done == 1);
	if (fc.status == 0)
		nc_check(&g.b, c, true);
	if (getenv("FUZZ_DEBUG")) /* seed check: what did the call see? */
		fprintf(stderr, "case %s: status %d\n", nc_name[c], fc.status);
	fz_wait_idle(x);
	return 0;
}
