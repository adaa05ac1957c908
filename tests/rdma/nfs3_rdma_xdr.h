/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hand-written NFSv3 and MOUNT v3 XDR for tests/rdma/nfs3_rdma.c (RFC
 * 1813): only the procedures and fields the RDMA tests use, with libtirpc's
 * primitives.  Included once, by nfs3_rdma.c; the nfs3 library replaces
 * all of it.
 */
#ifndef TESTS_RDMA_NFS3_RDMA_XDR_H
#define TESTS_RDMA_NFS3_RDMA_XDR_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpc/rpc.h>

#define FH_MAX	     64
#define FATTR3_BYTES 84

struct fh {
	u_int len;
	char data[FH_MAX];
};

static bool_t x_fh(XDR *x, struct fh *fh)
{
	char *p = fh->data;

	return xdr_bytes(x, &p, &fh->len, FH_MAX);
}

static bool_t x_u64(XDR *x, uint64_t *v)
{
	return xdr_uint64_t(x, v);
}

static bool_t x_skip(XDR *x, u_int n)
{
	u_int pos = xdr_getpos(x);

	return xdr_setpos(x, pos + n);
}

/* post_op_attr: bool, then fattr3; the file size is kept when present */
static bool_t x_post_op_attr(XDR *x, uint64_t *size, uint32_t *type)
{
	bool_t present;
	uint32_t t;

	if (!xdr_bool(x, &present))
		return FALSE;
	if (!present)
		return TRUE;
	if (!xdr_u_int(x, &t))
		return FALSE;
	if (type)
		*type = t;
	/* mode nlink uid gid */
	if (!x_skip(x, 16))
		return FALSE;
	if (size && !x_u64(x, size))
		return FALSE;
	return x_skip(x, size ? FATTR3_BYTES - 28 : FATTR3_BYTES - 20);
}

static bool_t x_wcc(XDR *x)
{
	bool_t present;

	if (!xdr_bool(x, &present))
		return FALSE;
	if (present && !x_skip(x, 24))
		return FALSE;
	return x_post_op_attr(x, NULL, NULL);
}

struct diropargs {
	struct fh *dir;
	const char *name;
};

static bool_t x_diropargs(XDR *x, struct diropargs *a)
{
	char *n = (char *)a->name;

	return x_fh(x, a->dir) && xdr_string(x, &n, 255);
}

/* MOUNT v3 */
static bool_t x_mnt_args(XDR *x, const char **path)
{
	char *p = (char *)*path;

	return xdr_string(x, &p, 1024);
}

struct mnt_res {
	uint32_t status;
	struct fh fh;
};

static bool_t x_mnt_res(XDR *x, struct mnt_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status)
		return TRUE;
	return x_fh(x, &r->fh); /* auth flavors follow: not needed */
}

/* GETATTR */
struct attr_res {
	uint32_t status, type;
	uint64_t size;
};

static bool_t x_getattr_res(XDR *x, struct attr_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status)
		return TRUE;
	if (!xdr_u_int(x, &r->type) || !x_skip(x, 16) || !x_u64(x, &r->size))
		return FALSE;
	return TRUE;
}

/* LOOKUP, CREATE */
struct fh_res {
	uint32_t status;
	struct fh fh;
	bool_t has_fh;
};

static bool_t x_lookup_res(XDR *x, struct fh_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status)
		return TRUE;
	r->has_fh = TRUE;
	return x_fh(x, &r->fh);
}

struct create_args {
	struct diropargs where;
	uint32_t mode;
};

static bool_t x_create_args(XDR *x, struct create_args *a)
{
	uint32_t how = 0 /* UNCHECKED */, t = 1, f = 0;

	/* sattr3: mode set; uid, gid, size not set; times unchanged */
	return x_diropargs(x, &a->where) && xdr_u_int(x, &how) &&
	       xdr_u_int(x, &t) && xdr_u_int(x, &a->mode) && xdr_u_int(x, &f) &&
	       xdr_u_int(x, &f) && xdr_u_int(x, &f) && xdr_u_int(x, &f) &&
	       xdr_u_int(x, &f);
}

static bool_t x_create_res(XDR *x, struct fh_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (r->status)
		return TRUE;
	return xdr_bool(x, &r->has_fh) && (!r->has_fh || x_fh(x, &r->fh));
}

/* WRITE: the data itself is the call's payload */
struct write_args {
	struct fh *fh;
	uint64_t off;
	uint32_t count;
};

static bool_t x_write_args(XDR *x, struct write_args *a)
{
	uint32_t stable = 2; /* FILE_SYNC */

	return x_fh(x, a->fh) && x_u64(x, &a->off) && xdr_u_int(x, &a->count) &&
	       xdr_u_int(x, &stable) &&
	       xdr_u_int(x, &a->count); /* the opaque's length */
}

struct write_res {
	uint32_t status, count, committed;
};

static bool_t x_write_res(XDR *x, struct write_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (!x_wcc(x))
		return FALSE;
	if (r->status)
		return TRUE;
	return xdr_u_int(x, &r->count) && xdr_u_int(x, &r->committed);
}

/* SYMLINK, READLINK */
struct symlink_args {
	struct diropargs where;
	const char *target;
};

static bool_t x_symlink_args(XDR *x, struct symlink_args *a)
{
	uint32_t f = 0;
	char *t = (char *)a->target;

	/* sattr3 with nothing set, then the target path */
	return x_diropargs(x, &a->where) && xdr_u_int(x, &f) &&
	       xdr_u_int(x, &f) && xdr_u_int(x, &f) && xdr_u_int(x, &f) &&
	       xdr_u_int(x, &f) && xdr_u_int(x, &f) && xdr_string(x, &t, 4096);
}

static bool_t x_status_only(XDR *x, uint32_t *status)
{
	return xdr_u_int(x, status);
}

struct readlink_res {
	uint32_t status;
	char path[4097];
};

static bool_t x_readlink_res(XDR *x, struct readlink_res *r)
{
	char *p = r->path;

	if (!xdr_u_int(x, &r->status) || !x_post_op_attr(x, NULL, NULL))
		return FALSE;
	return r->status || xdr_string(x, &p, 4096);
}

/* REMOVE */
static bool_t x_remove_res(XDR *x, uint32_t *status)
{
	return xdr_u_int(x, status) && x_wcc(x);
}

/* READ: the data lands in the caller's buffer (rx_dst) */
struct read_args {
	struct fh *fh;
	uint64_t off;
	uint32_t count;
};

static bool_t x_read_args(XDR *x, struct read_args *a)
{
	return x_fh(x, a->fh) && x_u64(x, &a->off) && xdr_u_int(x, &a->count);
}

struct read_res {
	uint32_t status, count, len;
	bool_t eof;
};

/* the results with the data left out (RFC 8166's reduced stream): the
 * opaque's length is there, its bytes are in rx_dst */
static bool_t x_read_res(XDR *x, struct read_res *r)
{
	if (!xdr_u_int(x, &r->status))
		return FALSE;
	if (!x_post_op_attr(x, NULL, NULL))
		return FALSE;
	if (r->status)
		return TRUE;
	return xdr_u_int(x, &r->count) && xdr_bool(x, &r->eof) &&
	       xdr_u_int(x, &r->len);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* where the READ data starts in the results (see lx_rpc_body_place_fn) */
static int read_place(void *arg, const uint8_t *b, size_t have,
		      size_t *data_off, size_t *data_len)
{
	size_t cap = *(size_t *)arg, off = 4;
	uint32_t len;

	if (have < 8)
		return 8;
	if (be32(b)) /* an error: no data */
		return 0;
	if (be32(b + 4))
		off += 4 + FATTR3_BYTES;
	else
		off += 4;
	off += 8; /* count, eof */
	if (have < off + 4)
		return (int)(off + 4);
	len = be32(b + off);
	if (len > cap)
		return -EOVERFLOW;
	*data_off = off + 4;
	*data_len = len;
	return 0;
}

/* READDIR */
struct readdir_args {
	struct fh *dir;
	uint64_t cookie;
	char verf[8];
	uint32_t count;
};

static bool_t x_readdir_args(XDR *x, struct readdir_args *a)
{
	return x_fh(x, a->dir) && x_u64(x, &a->cookie) &&
	       xdr_opaque(x, a->verf, 8) && xdr_u_int(x, &a->count);
}

struct readdir_res {
	uint32_t status;
	char verf[8];
	unsigned int entries;
	uint64_t last_cookie;
	bool_t eof;
};

static bool_t x_readdir_res(XDR *x, struct readdir_res *r)
{
	bool_t more;

	if (!xdr_u_int(x, &r->status) || !x_post_op_attr(x, NULL, NULL))
		return FALSE;
	if (r->status)
		return TRUE;
	if (!xdr_opaque(x, r->verf, 8))
		return FALSE;
	for (;;) {
		char name[256], *np = name;
		uint64_t fileid;

		if (!xdr_bool(x, &more))
			return FALSE;
		if (!more)
			break;
		if (!x_u64(x, &fileid) || !xdr_string(x, &np, 255) ||
		    !x_u64(x, &r->last_cookie))
			return FALSE;
		r->entries++;
	}
	return xdr_bool(x, &r->eof);
}

#endif /* TESTS_RDMA_NFS3_RDMA_XDR_H */
