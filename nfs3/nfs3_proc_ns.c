// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NFSv3 procedures that change or list the name space and describe the
 * file system: CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK,
 * READDIR, READDIRPLUS, FSSTAT, FSINFO, PATHCONF; sync and async.  Same
 * three steps as those of nfs3_proc.c (check, describe, lx_nfs3_run()).
 */
#include <errno.h>
#include <string.h>

#include "nfs3_int.h"

/* ------------------------------------------------ CREATE MKDIR SYMLINK MKNOD */

static int create_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			uint32_t mode, const struct lx_nfs3_sattr *sa,
			const uint8_t *verf, struct lx_nfs3_create_res *res)
{
	struct lx_nfs3_args a = {
		.where = {dir, name}, .how = mode, .sa = sa, .verf = verf};
	struct lx_nfs3_req r = LX_NFS3_REQ(
		LX_NFS3PROC_CREATE, lx_nfs3_enc_create, lx_nfs3_dec_create, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	if (err)
		return err;
	if (mode > LX_NFS3_CREATE_EXCLUSIVE ||
	    (mode == LX_NFS3_CREATE_EXCLUSIVE && !verf))
		return -EINVAL;
	return lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_create_file(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
			const char *name, uint32_t mode,
			const struct lx_nfs3_sattr *sa, const uint8_t *verf,
			struct lx_nfs3_create_res *res)
{
	return create_start(c, NULL, dir, name, mode, sa, verf, res);
}

int lx_nfs3_create_file_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			      const struct lx_nfs3_fh *dir, const char *name,
			      uint32_t mode, const struct lx_nfs3_sattr *sa,
			      const uint8_t *verf,
			      struct lx_nfs3_create_res *res)
{
	return call ? create_start(c, call, dir, name, mode, sa, verf, res) :
		      -EINVAL;
}

static int mkdir_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *dir, const char *name,
		       const struct lx_nfs3_sattr *sa,
		       struct lx_nfs3_create_res *res)
{
	struct lx_nfs3_args a = {.where = {dir, name}, .sa = sa};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_MKDIR, lx_nfs3_enc_mkdir,
					   lx_nfs3_dec_create, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_mkdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, const struct lx_nfs3_sattr *sa,
		  struct lx_nfs3_create_res *res)
{
	return mkdir_start(c, NULL, dir, name, sa, res);
}

int lx_nfs3_mkdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			const struct lx_nfs3_sattr *sa,
			struct lx_nfs3_create_res *res)
{
	return call ? mkdir_start(c, call, dir, name, sa, res) : -EINVAL;
}

static int symlink_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *dir, const char *name,
			 const struct lx_nfs3_sattr *sa, const char *target,
			 struct lx_nfs3_create_res *res)
{
	struct lx_nfs3_args a = {
		.where = {dir, name}, .sa = sa, .target = target};
	struct lx_nfs3_req r =
		LX_NFS3_REQ(LX_NFS3PROC_SYMLINK, lx_nfs3_enc_symlink,
			    lx_nfs3_dec_create, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);
	size_t n;

	if (err)
		return err;
	if (!target || !(n = strnlen(target, LX_NFS3_MAXPATHLEN + 1)))
		return -EINVAL;
	if (n > LX_NFS3_MAXPATHLEN)
		return -ENAMETOOLONG;
	return lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_symlink(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		    const char *name, const struct lx_nfs3_sattr *sa,
		    const char *target, struct lx_nfs3_create_res *res)
{
	return symlink_start(c, NULL, dir, name, sa, target, res);
}

int lx_nfs3_symlink_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *dir, const char *name,
			  const struct lx_nfs3_sattr *sa, const char *target,
			  struct lx_nfs3_create_res *res)
{
	return call ? symlink_start(c, call, dir, name, sa, target, res) :
		      -EINVAL;
}

static int mknod_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *dir, const char *name,
		       uint32_t type, const struct lx_nfs3_sattr *sa,
		       uint32_t major, uint32_t minor,
		       struct lx_nfs3_create_res *res)
{
	struct lx_nfs3_args a = {.where = {dir, name},
				 .type = type,
				 .sa = sa,
				 .major = major,
				 .minor = minor};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_MKNOD, lx_nfs3_enc_mknod,
					   lx_nfs3_dec_create, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	if (err)
		return err;
	if (type != NF3CHR && type != NF3BLK && type != NF3SOCK &&
	    type != NF3FIFO)
		return -EINVAL;
	return lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_mknod(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, uint32_t type,
		  const struct lx_nfs3_sattr *sa, uint32_t major,
		  uint32_t minor, struct lx_nfs3_create_res *res)
{
	return mknod_start(c, NULL, dir, name, type, sa, major, minor, res);
}

int lx_nfs3_mknod_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			uint32_t type, const struct lx_nfs3_sattr *sa,
			uint32_t major, uint32_t minor,
			struct lx_nfs3_create_res *res)
{
	if (!call)
		return -EINVAL;
	return mknod_start(c, call, dir, name, type, sa, major, minor, res);
}

/* -------------------------------------------------------- REMOVE RMDIR */

static int unlink_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			uint32_t proc, const struct lx_nfs3_fh *dir,
			const char *name, struct lx_nfs3_wcc_res *res)
{
	struct lx_nfs3_args a = {.where = {dir, name}};
	struct lx_nfs3_req r = LX_NFS3_REQ(proc, lx_nfs3_enc_diropargs,
					   lx_nfs3_dec_wcc_res, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_remove(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		   const char *name, struct lx_nfs3_wcc_res *res)
{
	return unlink_start(c, NULL, LX_NFS3PROC_REMOVE, dir, name, res);
}

int lx_nfs3_remove_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *dir, const char *name,
			 struct lx_nfs3_wcc_res *res)
{
	return call ? unlink_start(c, call, LX_NFS3PROC_REMOVE, dir, name,
				   res) :
		      -EINVAL;
}

int lx_nfs3_rmdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, struct lx_nfs3_wcc_res *res)
{
	return unlink_start(c, NULL, LX_NFS3PROC_RMDIR, dir, name, res);
}

int lx_nfs3_rmdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			struct lx_nfs3_wcc_res *res)
{
	return call ? unlink_start(c, call, LX_NFS3PROC_RMDIR, dir, name, res) :
		      -EINVAL;
}

/* --------------------------------------------------------------- RENAME */

static int rename_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *fdir, const char *fname,
			const struct lx_nfs3_fh *tdir, const char *tname,
			struct lx_nfs3_rename_res *res)
{
	struct lx_nfs3_args a = {.where = {fdir, fname}, .to = {tdir, tname}};
	struct lx_nfs3_req r = LX_NFS3_REQ(
		LX_NFS3PROC_RENAME, lx_nfs3_enc_rename, lx_nfs3_dec_rename, &a);
	int err = lx_nfs3_chk_dirop(c, res, fdir, fname);

	if (!err)
		err = lx_nfs3_chk_dirop(c, res, tdir, tname);
	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_rename(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *from_dir,
		   const char *from_name, const struct lx_nfs3_fh *to_dir,
		   const char *to_name, struct lx_nfs3_rename_res *res)
{
	return rename_start(c, NULL, from_dir, from_name, to_dir, to_name, res);
}

int lx_nfs3_rename_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *from_dir,
			 const char *from_name, const struct lx_nfs3_fh *to_dir,
			 const char *to_name, struct lx_nfs3_rename_res *res)
{
	if (!call)
		return -EINVAL;
	return rename_start(c, call, from_dir, from_name, to_dir, to_name, res);
}

/* ----------------------------------------------------------------- LINK */

static int link_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		      const struct lx_nfs3_fh *fh, const struct lx_nfs3_fh *dir,
		      const char *name, struct lx_nfs3_link_res *res)
{
	struct lx_nfs3_args a = {.fh = fh, .where = {dir, name}};
	struct lx_nfs3_req r = LX_NFS3_REQ(LX_NFS3PROC_LINK, lx_nfs3_enc_link,
					   lx_nfs3_dec_link, &a);
	int err = lx_nfs3_chk_dirop(c, res, dir, name);

	if (!err)
		err = lx_nfs3_fh_ok(fh);
	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_link(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		 const struct lx_nfs3_fh *dir, const char *name,
		 struct lx_nfs3_link_res *res)
{
	return link_start(c, NULL, fh, dir, name, res);
}

int lx_nfs3_link_async(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *fh,
		       const struct lx_nfs3_fh *dir, const char *name,
		       struct lx_nfs3_link_res *res)
{
	return call ? link_start(c, call, fh, dir, name, res) : -EINVAL;
}

/* --------------------------------------------------- READDIR(PLUS) */

static int readdir_start(struct lx_nfs3_clnt *c, struct lx_call *call,
			 bool plus, const struct lx_nfs3_fh *dir,
			 uint64_t cookie, const uint8_t *verf, uint32_t count,
			 uint32_t maxcount, struct lx_nfs3_dirbuf *db,
			 struct lx_nfs3_readdir_res *res)
{
	struct lx_nfs3_args a = {.fh = dir,
				 .cookie = cookie,
				 .verf = verf,
				 .count = count,
				 .count2 = maxcount};
	struct lx_nfs3_req r =
		LX_NFS3_REQ(LX_NFS3PROC_READDIR, lx_nfs3_enc_readdir,
			    lx_nfs3_dec_readdir, &a);
	struct lx_nfs3_ctx in = {0};
	int err = lx_nfs3_chk(c, res, dir);

	if (err)
		return err;
	if (!db || (db->cap && !db->ent) || !db->names || !db->names_size ||
	    !count || (plus && !maxcount))
		return -EINVAL;
	if (plus) {
		r.proc = LX_NFS3PROC_READDIRPLUS;
		r.enc = (xdrproc_t)lx_nfs3_enc_readdirplus;
		r.dec = (xdrproc_t)lx_nfs3_dec_readdirplus;
	}
	/* the results are at most count (maxcount) bytes: over RDMA a
	 * Reply chunk when that may exceed the inline threshold */
	r.reply_hint = (size_t)(plus ? maxcount : count) + LX_NFS3_REPLY_SLACK;
	in.u.db = db;
	return lx_nfs3_run(c, call, &r, res, &in);
}

int lx_nfs3_readdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		    uint64_t cookie, const uint8_t *verf, uint32_t count,
		    struct lx_nfs3_dirbuf *db, struct lx_nfs3_readdir_res *res)
{
	return readdir_start(c, NULL, false, dir, cookie, verf, count, 0, db,
			     res);
}

int lx_nfs3_readdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *dir, uint64_t cookie,
			  const uint8_t *verf, uint32_t count,
			  struct lx_nfs3_dirbuf *db,
			  struct lx_nfs3_readdir_res *res)
{
	if (!call)
		return -EINVAL;
	return readdir_start(c, call, false, dir, cookie, verf, count, 0, db,
			     res);
}

int lx_nfs3_readdirplus(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
			uint64_t cookie, const uint8_t *verf, uint32_t dircount,
			uint32_t maxcount, struct lx_nfs3_dirbuf *db,
			struct lx_nfs3_readdir_res *res)
{
	return readdir_start(c, NULL, true, dir, cookie, verf, dircount,
			     maxcount, db, res);
}

int lx_nfs3_readdirplus_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			      const struct lx_nfs3_fh *dir, uint64_t cookie,
			      const uint8_t *verf, uint32_t dircount,
			      uint32_t maxcount, struct lx_nfs3_dirbuf *db,
			      struct lx_nfs3_readdir_res *res)
{
	if (!call)
		return -EINVAL;
	return readdir_start(c, call, true, dir, cookie, verf, dircount,
			     maxcount, db, res);
}

/* --------------------------------------------- FSSTAT FSINFO PATHCONF */

static int fhop_start(struct lx_nfs3_clnt *c, struct lx_call *call,
		      uint32_t proc, xdrproc_t dec, const struct lx_nfs3_fh *fh,
		      void *res)
{
	struct lx_nfs3_args a = {.fh = fh};
	struct lx_nfs3_req r = LX_NFS3_REQ(proc, lx_nfs3_enc_fh, dec, &a);
	int err = lx_nfs3_chk(c, res, fh);

	return err ? err : lx_nfs3_run(c, call, &r, res, NULL);
}

int lx_nfs3_fsstat(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   struct lx_nfs3_fsstat_res *res)
{
	return fhop_start(c, NULL, LX_NFS3PROC_FSSTAT,
			  (xdrproc_t)lx_nfs3_dec_fsstat, fh, res);
}

int lx_nfs3_fsstat_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 struct lx_nfs3_fsstat_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, LX_NFS3PROC_FSSTAT,
			  (xdrproc_t)lx_nfs3_dec_fsstat, fh, res);
}

int lx_nfs3_fsinfo(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   struct lx_nfs3_fsinfo_res *res)
{
	return fhop_start(c, NULL, LX_NFS3PROC_FSINFO,
			  (xdrproc_t)lx_nfs3_dec_fsinfo, fh, res);
}

int lx_nfs3_fsinfo_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 struct lx_nfs3_fsinfo_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, LX_NFS3PROC_FSINFO,
			  (xdrproc_t)lx_nfs3_dec_fsinfo, fh, res);
}

int lx_nfs3_pathconf(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		     struct lx_nfs3_pathconf_res *res)
{
	return fhop_start(c, NULL, LX_NFS3PROC_PATHCONF,
			  (xdrproc_t)lx_nfs3_dec_pathconf, fh, res);
}

int lx_nfs3_pathconf_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh,
			   struct lx_nfs3_pathconf_res *res)
{
	if (!call)
		return -EINVAL;
	return fhop_start(c, call, LX_NFS3PROC_PATHCONF,
			  (xdrproc_t)lx_nfs3_dec_pathconf, fh, res);
}
