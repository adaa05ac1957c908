/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NFSv3 client internals shared by the files of nfs3/.  Not installed.
 */
#ifndef LX_NFS3_NFS3_INT_H
#define LX_NFS3_NFS3_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <libxprt/nfs3.h>

#include "xprt/core/call_int.h"

#define LX_NFS3_DEF_BUF_SIZE	 16384u
/* NFS3ERR_JUKEBOX: the Linux v3 client's NFS_JUKEBOX_RETRY_TIME, and our
 * bound on the retries (it has none: bounded by default here) */
#define LX_NFS3_JUKEBOX_DELAY_MS 5000u
#define LX_NFS3_JUKEBOX_RETRIES	 6u
/* each set-up step (MNT, FSINFO) within this, by default */
#define LX_NFS3_SETUP_TIMEOUT_MS 30000u
/* room for the RPC reply header and READDIR's fixed fields in buf_size */
#define LX_NFS3_DIR_SLACK	 512u
/* an RPC accepted-reply header (its verifier included) and the fixed
 * results before READLINK's path: added to a reply hint */
#define LX_NFS3_REPLY_SLACK	 256u
/* smallest encoded entries: value_follows fileid name<> cookie (+ READDIRPLUS
 * attributes_follow and handle_follows) */
#define LX_NFS3_DIRENT_MIN	 24u
#define LX_NFS3_DIRENTPLUS_MIN	 32u
#define LX_NFS3_FATTR_XDR	 84u

/**
 * struct lx_nfs3_ctx - what a decoder sees besides the XDR stream: the
 * caller's result struct, in-parameters that results need (READ
 * destination, READLINK buffer, directory arrays), and a precise error for
 * a reply that fails to decode.  Lives in the layer's words of struct
 * lx_call (async) or on the caller's stack (sync).
 * @proc: the procedure (an async completion reports READ/WRITE counts)
 * @ctr: the client's counters (NULL for MOUNT)
 */
struct lx_nfs3_ctx {
	void *res;
	struct lx_nfs3_ctr *ctr;
	int err;
	uint32_t proc;
	union {
		struct {
			const struct iovec *iov;
			unsigned int iovcnt;
			uint32_t max;
			bool placed;   /* place() found and placed data */
			uint32_t plen; /* how much */
			struct iovec iov1;
		} rd;
		struct {
			char *buf;
			size_t size;
		} str;
		struct lx_nfs3_dirbuf *db;
		struct lx_nfs3_mnt_list *ml;
	} u;
};

_Static_assert(sizeof(struct lx_nfs3_ctx) <= LX_CALL_LAYER_BYTES,
	       "lx_call's private words too few for struct lx_nfs3_ctx");

/* Counters of a client that the RPC layer does not keep (error paths
 * and fsync only: nothing on the way of a call that succeeds). */
struct lx_nfs3_ctr {
	atomic_ullong nfs_errors, jukebox;
	atomic_ullong commits, verf_changes, resent_bytes;
};

struct lx_nfs3_clnt {
	struct lx_rpc_clnt *rpc;
	struct lx_nfs3_fh root;
	struct lx_nfs3_fsinfo_res fsinfo;
	uint32_t rsize, wsize, dirsize;
	size_t buf_size;
	struct lx_nfs3_ctr ctr;
	unsigned int jukebox_delay_ms, jukebox_retries;
	unsigned int deadline_ms; /* of every call now (set-up: FSINFO) */
};

/* ------------------------------------------------------------ nfs3_xdr.c
 * Encoders take the argument structs below; decoders take a struct
 * lx_nfs3_ctx whose res is the procedure's result struct.
 */
struct lx_nfs3_diropargs {
	const struct lx_nfs3_fh *dir;
	const char *name;
};

struct lx_nfs3_args {
	const struct lx_nfs3_fh *fh;
	struct lx_nfs3_diropargs where, to;
	const struct lx_nfs3_sattr *sa;
	const struct lx_nfs3_time *guard;
	const uint8_t *verf;
	const char *target;
	uint64_t offset, cookie;
	uint32_t count, count2, how, type, major, minor;
};

bool_t lx_nfs3_xdr_fh(XDR *x, struct lx_nfs3_fh *fh);
bool_t lx_nfs3_xdr_fattr(XDR *x, struct lx_nfs3_fattr *a);
bool_t lx_nfs3_xdr_post_attr(XDR *x, struct lx_nfs3_post_attr *a);
bool_t lx_nfs3_xdr_wcc(XDR *x, struct lx_nfs3_wcc *w);
bool_t lx_nfs3_xdr_sattr(XDR *x, const struct lx_nfs3_sattr *sa);
bool_t lx_nfs3_xdr_name(XDR *x, const char *name);

bool_t lx_nfs3_enc_fh(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_setattr(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_diropargs(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_access(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_read(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_write(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_create(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_mkdir(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_symlink(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_mknod(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_rename(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_link(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_readdir(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_readdirplus(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3_enc_commit(XDR *x, const struct lx_nfs3_args *a);

bool_t lx_nfs3_dec_getattr(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_wcc_res(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_lookup(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_access(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_readlink(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_read(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_write(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_create(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_rename(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_link(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_fsstat(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_fsinfo(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_pathconf(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_commit(XDR *x, struct lx_nfs3_ctx *c);

/* READ, WRITE and COMMIT's arguments and READ and WRITE's results the
 * libtirpc way: what the fixed-layout codec (the lx_nfs3_enc_/dec_
 * functions above) falls back to, and what its test compares it with */
bool_t lx_nfs3__enc_read_xdr(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3__enc_write_xdr(XDR *x, const struct lx_nfs3_args *a);
bool_t lx_nfs3__dec_read_xdr(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3__dec_write_xdr(XDR *x, struct lx_nfs3_ctx *c);

/* READ: lx_rpc_body_place_fn finding the data in a READ3res */
int lx_nfs3_read_place(void *arg, const uint8_t *body, size_t have,
		       size_t *data_off, size_t *data_len);

/* nfs3_xdr_dir.c */
bool_t lx_nfs3_dec_readdir(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_readdirplus(XDR *x, struct lx_nfs3_ctx *c);

/* mount3.c */
bool_t lx_nfs3_enc_dirpath(XDR *x, const char *path);
bool_t lx_nfs3_dec_mnt(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_mnt_dump(XDR *x, struct lx_nfs3_ctx *c);
bool_t lx_nfs3_dec_mnt_export(XDR *x, struct lx_nfs3_ctx *c);

/* ---------------------------------------------------------- nfs3_proc.c */

/**
 * struct lx_nfs3_req - one call as the generic machinery sees it
 * @read: READ destination (uses ctx->u.rd)
 * @reply_hint: the largest reply, bulk data excluded, when it may be
 *	large (READDIR, READDIRPLUS, READLINK): over RDMA it decides whether
 *	the call offers a Reply chunk (lx_rpc_call_args.reply_hint); 0 = small
 */
struct lx_nfs3_req {
	uint32_t proc;
	xdrproc_t enc;
	const void *args;
	xdrproc_t dec;
	const struct iovec *payload;
	unsigned int npayload;
	bool read;
	size_t reply_hint;
};

/* Make a call: sync when @call is NULL (ctx on the caller's stack); @c:
 * the NFS client whose JUKEBOX policy applies (NULL for MOUNT). */
int lx_nfs3_call_start(struct lx_rpc_clnt *rpc, const struct lx_nfs3_clnt *c,
		       struct lx_call *call, const struct lx_nfs3_req *r,
		       struct lx_nfs3_ctx *ctx, void *res);

int lx_nfs3_run(struct lx_nfs3_clnt *c, struct lx_call *call,
		const struct lx_nfs3_req *r, void *res,
		const struct lx_nfs3_ctx *in);
int lx_nfs3_chk(const struct lx_nfs3_clnt *c, const void *res,
		const struct lx_nfs3_fh *fh);
int lx_nfs3_chk_dirop(const struct lx_nfs3_clnt *c, const void *res,
		      const struct lx_nfs3_fh *dir, const char *name);

#define LX_NFS3_REQ(p, e, d, a)                                  \
	{                                                        \
		.proc = (p), .enc = (xdrproc_t)(e), .args = (a), \
		.dec = (xdrproc_t)(d)                            \
	}

static inline struct lx_nfs3_ctx *lx_nfs3_call_ctx(struct lx_call *call)
{
	return lx_call_layer(call);
}

/* The context of a call on @c: @call's own (NULL when @call has no done()),
 * or @local for a synchronous one (@call NULL); its counters set, the rest
 * (u) the caller's to fill.  lx_nfs3_call_start() sets res, err and proc. */
static inline struct lx_nfs3_ctx *lx_nfs3_ctx_begin(struct lx_nfs3_clnt *c,
						    struct lx_call *call,
						    struct lx_nfs3_ctx *local)
{
	struct lx_nfs3_ctx *ctx;

	if (!call)
		ctx = local;
	else if (call->done)
		ctx = lx_nfs3_call_ctx(call);
	else
		return NULL;
	ctx->ctr = &c->ctr;
	return ctx;
}

int lx_nfs3_name_ok(const char *name);
int lx_nfs3_fh_ok(const struct lx_nfs3_fh *fh);

/* nfs3_io.c: one split I/O of at most LX_NFS3_PIO_MAX pieces, waited for */
int lx_nfs3_io_once(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
		    const struct lx_nfs3_fh *fh, void *buf, size_t count,
		    uint64_t offset, bool write, uint32_t stable, size_t *n,
		    bool *eof);
int lx_nfs3_io_sync_read(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
			 void *buf, size_t count, uint64_t offset,
			 size_t *nread);

/* nfs3_clnt.c */
void lx_nfs3_seterr(const struct lx_nfs3_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* LX_NFS3_NFS3_INT_H */
