/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NFSv3 and MOUNT v3 reply decoders as fuzz cases, shared by
 * fuzz_nfs3_xdr (decoders called directly on the bytes) and
 * fuzz_nfs3_reply (the whole client: async call, RPC header, placement,
 * decoder, status mapping).  Header-only: each target includes it once.
 *
 * A case is chosen by the input's first byte (modulo NC_N); the second
 * byte sizes the caller's buffers (READ count and iovec split, directory
 * entry and name arrays, READLINK buffer, MOUNT lists), so that both the
 * fitting and the too-small branches are reachable.  After a decode, the
 * invariants every caller relies on are checked: counts within the
 * arrays, strings NUL-terminated inside the caller's buffers, READ never
 * longer than asked.
 */
#ifndef TESTS_FUZZ_NFS3_CASES_H
#define TESTS_FUZZ_NFS3_CASES_H

#include <string.h>

#include "harness.h"
#include "nfs3/nfs3_int.h"

enum nfs3_case {
	NC_NULL,
	NC_GETATTR,
	NC_SETATTR,
	NC_LOOKUP,
	NC_ACCESS,
	NC_READLINK,
	NC_READ,
	NC_WRITE,
	NC_CREATE,
	NC_MKDIR,
	NC_SYMLINK,
	NC_MKNOD,
	NC_REMOVE,
	NC_RMDIR,
	NC_RENAME,
	NC_LINK,
	NC_READDIR,
	NC_READDIRPLUS,
	NC_FSSTAT,
	NC_FSINFO,
	NC_PATHCONF,
	NC_COMMIT,
	NC_MNT,
	NC_DUMP,
	NC_EXPORT,
	NC_N
};

/* The first 22 are NFSv3 procedure numbers; then MOUNT's 1, 2, 5. */
static const char *const nc_name[NC_N] = {
	"null",	    "getattr", "setattr",     "lookup", "access",
	"readlink", "read",    "write",	      "create", "mkdir",
	"symlink",  "mknod",   "remove",      "rmdir",	"rename",
	"link",	    "readdir", "readdirplus", "fsstat", "fsinfo",
	"pathconf", "commit",  "mnt",	      "dump",	"export",
};

#define NC_DATA_MAX 65536u

/* Everything a case may need, reset per input. */
struct nfs3_case_buf {
	union {
		uint32_t status;
		struct lx_nfs3_getattr_res getattr;
		struct lx_nfs3_wcc_res wcc;
		struct lx_nfs3_lookup_res lookup;
		struct lx_nfs3_access_res access;
		struct lx_nfs3_readlink_res readlink;
		struct lx_nfs3_read_res read;
		struct lx_nfs3_write_res write;
		struct lx_nfs3_create_res create;
		struct lx_nfs3_rename_res rename;
		struct lx_nfs3_link_res link;
		struct lx_nfs3_readdir_res readdir;
		struct lx_nfs3_fsstat_res fsstat;
		struct lx_nfs3_fsinfo_res fsinfo;
		struct lx_nfs3_pathconf_res pathconf;
		struct lx_nfs3_commit_res commit;
		struct lx_nfs3_mnt_res mnt;
	} res;
	struct lx_nfs3_mnt_list ml; /* DUMP, EXPORT: set up by the caller */
	/* sizes chosen by the parameter byte */
	uint32_t count;
	struct iovec iov[3];
	unsigned int iovcnt;
	struct lx_nfs3_dirbuf db;
	size_t link_size;
	/* storage */
	uint8_t data[NC_DATA_MAX];
	struct lx_nfs3_dirent ent[128];
	char names[8192];
	char link[1100];
	struct lx_nfs3_mnt_entry ment[16];
	char strbuf[4096];
};

static inline void nc_setup(struct nfs3_case_buf *b, uint8_t param)
{
	static const uint32_t counts[4] = {0, 100, 4096, NC_DATA_MAX};
	static const unsigned int ents[4] = {1, 4, 32, 128};

	memset(&b->res, 0, sizeof(b->res));
	b->count = counts[param & 3];
	if ((param & 4) && b->count >= 100) {
		b->iov[0] = (struct iovec){b->data, 7};
		b->iov[1] = (struct iovec){b->data + 7, 50};
		b->iov[2] = (struct iovec){b->data + 57, b->count - 57};
		b->iovcnt = 3;
	} else {
		b->iov[0] = (struct iovec){b->data, b->count};
		b->iovcnt = 1;
	}
	b->db.ent = b->ent;
	b->db.cap = ents[(param >> 3) & 3];
	b->db.names = b->names;
	b->db.names_size = (param & 0x20) ? 64 : sizeof(b->names);
	b->link_size = (param & 0x40) ? 8 : sizeof(b->link);
	memset(&b->ml, 0, sizeof(b->ml));
	b->ml.ent = b->ment;
	b->ml.cap = (param & 0x80) ? 2 : 16;
	b->ml.strbuf = b->strbuf;
	b->ml.strsize = (param & 0x80) ? 40 : sizeof(b->strbuf);
}

/* Where a case's results go. */
static inline void *nc_res(struct nfs3_case_buf *b, enum nfs3_case c)
{
	return c == NC_DUMP || c == NC_EXPORT ? (void *)&b->ml :
						(void *)&b->res;
}

/* A decoder's context as the procedure functions build it. */
static inline void nc_ctx(struct nfs3_case_buf *b, enum nfs3_case c,
			  struct lx_nfs3_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->res = nc_res(b, c);
	switch (c) {
	case NC_READLINK:
		ctx->u.str.buf = b->link;
		ctx->u.str.size = b->link_size;
		break;
	case NC_READ:
		ctx->u.rd.iov = b->iov;
		ctx->u.rd.iovcnt = b->iovcnt;
		ctx->u.rd.max = b->count;
		break;
	case NC_READDIR:
	case NC_READDIRPLUS:
		ctx->u.db = &b->db;
		break;
	case NC_DUMP:
	case NC_EXPORT:
		ctx->u.ml = &b->ml;
		break;
	default:
		break;
	}
}

/* @s lies inside [base, base + size) with its NUL. */
static inline void nc_str_in(const char *s, const char *base, size_t size)
{
	FZ_ASSERT(s >= base && s < base + size);
	FZ_ASSERT(memchr(s, '\0', size - (size_t)(s - base)) != NULL);
}

/* Invariants of a decoded result (@ok: the decoder succeeded). */
static inline void nc_check(const struct nfs3_case_buf *b, enum nfs3_case c,
			    bool ok)
{
	unsigned int i;

	if (!ok)
		return;
	switch (c) {
	case NC_LOOKUP:
		if (b->res.lookup.status == LX_NFS3_OK)
			FZ_ASSERT(b->res.lookup.fh.len <= LX_NFS3_FHSIZE);
		break;
	case NC_CREATE:
	case NC_MKDIR:
	case NC_SYMLINK:
	case NC_MKNOD:
		if (b->res.create.status == LX_NFS3_OK &&
		    b->res.create.fh_present)
			FZ_ASSERT(b->res.create.fh.len <= LX_NFS3_FHSIZE);
		break;
	case NC_READLINK:
		if (b->res.readlink.status == LX_NFS3_OK) {
			FZ_ASSERT(b->res.readlink.len < b->link_size);
			FZ_ASSERT(b->link[b->res.readlink.len] == '\0');
		}
		break;
	case NC_READ:
		if (b->res.read.status == LX_NFS3_OK)
			FZ_ASSERT(b->res.read.count <= b->count);
		break;
	case NC_READDIR:
	case NC_READDIRPLUS:
		if (b->res.readdir.status != LX_NFS3_OK)
			break;
		FZ_ASSERT(b->res.readdir.n <= b->db.cap);
		for (i = 0; i < b->res.readdir.n; i++) {
			const struct lx_nfs3_dirent *e = &b->ent[i];

			FZ_ASSERT(e->namelen <= LX_NFS3_MAXNAMLEN);
			FZ_ASSERT(e->name >= b->names &&
				  e->name + e->namelen <
					  b->names + b->db.names_size);
			FZ_ASSERT(e->name[e->namelen] == '\0');
			FZ_ASSERT(!e->fh_present ||
				  e->fh.len <= LX_NFS3_FHSIZE);
		}
		break;
	case NC_MNT:
		if (b->res.mnt.status == 0) {
			FZ_ASSERT(b->res.mnt.fh.len <= LX_NFS3_FHSIZE);
			FZ_ASSERT(b->res.mnt.nflavors <=
				  LX_NFS3_MNT_MAX_FLAVORS);
		}
		break;
	case NC_DUMP:
	case NC_EXPORT:
		FZ_ASSERT(b->ml.n <= b->ml.cap);
		for (i = 0; i < b->ml.n; i++) {
			nc_str_in(b->ment[i].host, b->strbuf, b->ml.strsize);
			nc_str_in(b->ment[i].dir, b->strbuf, b->ml.strsize);
		}
		break;
	default:
		break;
	}
}

#endif /* TESTS_FUZZ_NFS3_CASES_H */
