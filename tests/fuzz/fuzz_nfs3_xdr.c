// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: every NFSv3 and MOUNT v3 result decoder (nfs3/nfs3_xdr.c,
 * nfs3/nfs3_xdr_dir.c, nfs3/mount3.c) called directly on the bytes, as
 * the RPC layer calls it after the reply header: the fastest way through
 * their branches.  READ takes the path of a reply the transport did not
 * place (data inline); fuzz_nfs3_reply covers placement.
 *
 * Input: case byte, buffer-size byte (see nfs3_cases.h), then the
 * results as XDR.  The bytes are copied into a word-aligned buffer, as a
 * reply buffer is.
 */
#include <stdlib.h>

#include "nfs3_cases.h"

typedef bool_t (*nc_dec_fn)(XDR *x, struct lx_nfs3_ctx *c);

static const nc_dec_fn nc_dec[NC_N] = {
	[NC_GETATTR] = lx_nfs3_dec_getattr,
	[NC_SETATTR] = lx_nfs3_dec_wcc_res,
	[NC_LOOKUP] = lx_nfs3_dec_lookup,
	[NC_ACCESS] = lx_nfs3_dec_access,
	[NC_READLINK] = lx_nfs3_dec_readlink,
	[NC_READ] = lx_nfs3_dec_read,
	[NC_WRITE] = lx_nfs3_dec_write,
	[NC_CREATE] = lx_nfs3_dec_create,
	[NC_MKDIR] = lx_nfs3_dec_create,
	[NC_SYMLINK] = lx_nfs3_dec_create,
	[NC_MKNOD] = lx_nfs3_dec_create,
	[NC_REMOVE] = lx_nfs3_dec_wcc_res,
	[NC_RMDIR] = lx_nfs3_dec_wcc_res,
	[NC_RENAME] = lx_nfs3_dec_rename,
	[NC_LINK] = lx_nfs3_dec_link,
	[NC_READDIR] = lx_nfs3_dec_readdir,
	[NC_READDIRPLUS] = lx_nfs3_dec_readdirplus,
	[NC_FSSTAT] = lx_nfs3_dec_fsstat,
	[NC_FSINFO] = lx_nfs3_dec_fsinfo,
	[NC_PATHCONF] = lx_nfs3_dec_pathconf,
	[NC_COMMIT] = lx_nfs3_dec_commit,
	[NC_MNT] = lx_nfs3_dec_mnt,
	[NC_DUMP] = lx_nfs3_dec_mnt_dump,
	[NC_EXPORT] = lx_nfs3_dec_mnt_export,
};

static struct nfs3_case_buf nb;
static uint32_t words[(1u << 20) / 4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size};
	enum nfs3_case c = (enum nfs3_case)(fz_u8(&in) % NC_N);
	uint8_t param = fz_u8(&in);
	struct lx_nfs3_ctx ctx;
	bool ok;
	XDR x;

	if (!nc_dec[c] || in.left > sizeof(words))
		return 0;
	nc_setup(&nb, param);
	nc_ctx(&nb, c, &ctx);
	memcpy(words, in.p, in.left);
	xdrmem_create(&x, (char *)words, (u_int)in.left, XDR_DECODE);
	ok = nc_dec[c](&x, &ctx);
	FZ_ASSERT(xdr_getpos(&x) <= in.left);
	xdr_destroy(&x);
	nc_check(&nb, c, ok);
	/* a precise error is only ever set on failure */
	FZ_ASSERT(ok || ctx.err <= 0);
	FZ_ASSERT(!ok || ctx.err == 0);
	return 0;
}
