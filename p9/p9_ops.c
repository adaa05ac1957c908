// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One synchronous call per 9P2000.L message.
 *
 * Each builds its T-message on the stack, runs it through the request
 * engine (lx_p9_rpc(): the reply stays in its pool buffer, decoded in place)
 * and copies the few result fields out before releasing the buffer, so
 * nothing here allocates.  Arguments are checked before anything is sent.
 *
 * Fid bookkeeping follows the rule of p9_fid.c: Tclunk and Tremove free
 * their fid once the server answered (even with an error: the fid is gone
 * on the server either way); a walk whose outcome is unknown (timeout
 * without Rflush, lost connection, garbage reply) leaves its new fid
 * reserved for good.
 */
#include <errno.h>
#include <string.h>

#include "p9_int.h"

int lx_p9_check_name(const char *name)
{
	if (!name)
		return -EINVAL;
	return strlen(name) > 0xFFFF ? -ENAMETOOLONG : 0;
}

/* Run @tx with no result beyond success. */
static int lx_p9_simple(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx)
{
	struct lx_p9_result res;
	int err;

	err = lx_p9_rpc(c, tx, NULL, &res);
	if (!err)
		lx_p9_result_put(&res);
	return err;
}

/* Run @tx whose reply carries one qid. */
static int lx_p9_qid_call(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
			  struct lx_p9_qid *qid)
{
	struct lx_p9_result res;
	int err;

	err = lx_p9_rpc(c, tx, NULL, &res);
	if (err)
		return err;
	if (qid)
		*qid = res.rx.u.rqid.qid;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_auth(struct lx_p9_clnt *c, uint32_t afid, const char *uname,
	       const char *aname, uint32_t n_uname, struct lx_p9_qid *aqid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TAUTH};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(uname ? uname : "");
	if (!err)
		err = lx_p9_check_name(aname ? aname : "");
	if (err)
		return err;
	tx.u.tauth.afid = afid;
	tx.u.tauth.uname = lx_p9_str_c(uname ? uname : "");
	tx.u.tauth.aname = lx_p9_str_c(aname ? aname : "");
	tx.u.tauth.n_uname = n_uname;
	return lx_p9_qid_call(c, &tx, aqid);
}

int lx_p9_attach(struct lx_p9_clnt *c, uint32_t fid, uint32_t afid,
		 const char *uname, const char *aname, uint32_t n_uname,
		 struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TATTACH};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(uname ? uname : "");
	if (!err)
		err = lx_p9_check_name(aname ? aname : "");
	if (err)
		return err;
	tx.u.tattach.fid = fid;
	tx.u.tattach.afid = afid;
	tx.u.tattach.uname = lx_p9_str_c(uname ? uname : "");
	tx.u.tattach.aname = lx_p9_str_c(aname ? aname : "");
	tx.u.tattach.n_uname = n_uname;
	return lx_p9_qid_call(c, &tx, qid);
}

int lx_p9_walk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
	       unsigned int nwname, const char *const *wnames,
	       unsigned int *nwqid, struct lx_p9_qid *wqids)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TWALK};
	struct lx_p9_result res;
	unsigned int i;
	int err;

	if (!c || !nwqid || nwname > LX_P9_MAXWELEM || (nwname && !wnames))
		return -EINVAL;
	for (i = 0; i < nwname; i++) {
		err = lx_p9_check_name(wnames[i]);
		if (err)
			return err;
		tx.u.twalk.wname[i] = lx_p9_str_c(wnames[i]);
	}
	tx.u.twalk.fid = fid;
	tx.u.twalk.newfid = newfid;
	tx.u.twalk.nwname = (uint16_t)nwname;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err) {
		if (res.unknown && newfid != fid)
			lx_p9_fid_lose(c, newfid);
		return err;
	}
	*nwqid = res.rx.u.rwalk.nwqid;
	if (wqids)
		memcpy(wqids, res.rx.u.rwalk.wqid,
		       res.rx.u.rwalk.nwqid * sizeof(*wqids));
	lx_p9_result_put(&res);
	return 0;
}

static int lx_p9_open_reply(struct lx_p9_clnt *c, uint32_t fid,
			    const struct lx_p9_fcall *tx, struct lx_p9_qid *qid,
			    uint32_t *iounit)
{
	struct lx_p9_result res;
	int err;

	err = lx_p9_rpc(c, tx, NULL, &res);
	if (err)
		return err;
	lx_p9_fid_set_iounit(c, fid, res.rx.u.ropen.iounit);
	if (qid)
		*qid = res.rx.u.ropen.qid;
	if (iounit)
		*iounit = res.rx.u.ropen.iounit;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_lopen(struct lx_p9_clnt *c, uint32_t fid, uint32_t flags,
		struct lx_p9_qid *qid, uint32_t *iounit)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLOPEN};

	if (!c)
		return -EINVAL;
	tx.u.tlopen.fid = fid;
	tx.u.tlopen.flags = flags;
	return lx_p9_open_reply(c, fid, &tx, qid, iounit);
}

int lx_p9_lcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		  uint32_t flags, uint32_t mode, uint32_t gid,
		  struct lx_p9_qid *qid, uint32_t *iounit)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLCREATE};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.tlcreate.fid = fid;
	tx.u.tlcreate.name = lx_p9_str_c(name);
	tx.u.tlcreate.flags = flags;
	tx.u.tlcreate.mode = mode;
	tx.u.tlcreate.gid = gid;
	return lx_p9_open_reply(c, fid, &tx, qid, iounit);
}

/* Tread or Treaddir into @buf. */
static int lx_p9_read_into(struct lx_p9_clnt *c, uint8_t type, uint32_t fid,
			   uint64_t offset, uint32_t count, void *buf,
			   uint32_t *n)
{
	if (!c || !n || (!buf && count))
		return -EINVAL;
	return lx_p9_io_call(c, type, fid, offset, count, buf, n);
}

int lx_p9_read(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
	       uint32_t count, void *buf, uint32_t *nread)
{
	return lx_p9_read_into(c, LX_P9_TREAD, fid, offset, count, buf, nread);
}

int lx_p9_readdir(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		  uint32_t count, void *buf, uint32_t *nbytes)
{
	return lx_p9_read_into(c, LX_P9_TREADDIR, fid, offset, count, buf,
			       nbytes);
}

int lx_p9_write(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		uint32_t count, const void *buf, uint32_t *nwritten)
{
	if (!c || !nwritten || (!buf && count))
		return -EINVAL;
	return lx_p9_io_call(c, LX_P9_TWRITE, fid, offset, count, buf,
			     nwritten);
}

/* Tclunk/Tremove: the fid is gone on the server once it answered. */
static int lx_p9_fid_end(struct lx_p9_clnt *c, uint8_t type, uint32_t fid)
{
	struct lx_p9_fcall tx = {.type = type};
	struct lx_p9_result res;
	int err;

	if (!c)
		return -EINVAL;
	tx.u.tfid.fid = fid;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (!err)
		lx_p9_result_put(&res);
	if (!err || res.server_err || !res.unknown)
		lx_p9_fid_free(c, fid);
	else
		lx_p9_fid_lose(c, fid);
	return err;
}

int lx_p9_clunk(struct lx_p9_clnt *c, uint32_t fid)
{
	return lx_p9_fid_end(c, LX_P9_TCLUNK, fid);
}

int lx_p9_remove(struct lx_p9_clnt *c, uint32_t fid)
{
	return lx_p9_fid_end(c, LX_P9_TREMOVE, fid);
}

int lx_p9_getattr(struct lx_p9_clnt *c, uint32_t fid, uint64_t mask,
		  struct lx_p9_attr *attr)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TGETATTR};
	struct lx_p9_result res;
	int err;

	if (!c || !attr)
		return -EINVAL;
	tx.u.tgetattr.fid = fid;
	tx.u.tgetattr.request_mask = mask;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err)
		return err;
	*attr = res.rx.u.rgetattr;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_setattr(struct lx_p9_clnt *c, uint32_t fid,
		  const struct lx_p9_iattr *ia)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSETATTR};

	if (!c || !ia)
		return -EINVAL;
	tx.u.tsetattr.fid = fid;
	tx.u.tsetattr.attr = *ia;
	return lx_p9_simple(c, &tx);
}

int lx_p9_fsync(struct lx_p9_clnt *c, uint32_t fid, bool datasync)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TFSYNC};

	if (!c)
		return -EINVAL;
	tx.u.tfsync.fid = fid;
	tx.u.tfsync.datasync = datasync;
	return lx_p9_simple(c, &tx);
}

int lx_p9_mkdir(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t gid, struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TMKDIR};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.tmkdir.dfid = dfid;
	tx.u.tmkdir.name = lx_p9_str_c(name);
	tx.u.tmkdir.mode = mode;
	tx.u.tmkdir.gid = gid;
	return lx_p9_qid_call(c, &tx, qid);
}

int lx_p9_unlinkat(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		   uint32_t flags)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TUNLINKAT};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.tunlinkat.dfid = dfid;
	tx.u.tunlinkat.name = lx_p9_str_c(name);
	tx.u.tunlinkat.flags = flags;
	return lx_p9_simple(c, &tx);
}

int lx_p9_renameat(struct lx_p9_clnt *c, uint32_t olddfid, const char *oldname,
		   uint32_t newdfid, const char *newname)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TRENAMEAT};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(oldname);
	if (!err)
		err = lx_p9_check_name(newname);
	if (err)
		return err;
	tx.u.trenameat.olddfid = olddfid;
	tx.u.trenameat.oldname = lx_p9_str_c(oldname);
	tx.u.trenameat.newdfid = newdfid;
	tx.u.trenameat.newname = lx_p9_str_c(newname);
	return lx_p9_simple(c, &tx);
}

int lx_p9_statfs(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_statfs *st)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSTATFS};
	struct lx_p9_result res;
	int err;

	if (!c || !st)
		return -EINVAL;
	tx.u.tfid.fid = fid;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err)
		return err;
	*st = res.rx.u.rstatfs;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_symlink(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		  const char *target, uint32_t gid, struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSYMLINK};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (!err)
		err = lx_p9_check_name(target);
	if (err)
		return err;
	tx.u.tsymlink.fid = dfid;
	tx.u.tsymlink.name = lx_p9_str_c(name);
	tx.u.tsymlink.symtgt = lx_p9_str_c(target);
	tx.u.tsymlink.gid = gid;
	return lx_p9_qid_call(c, &tx, qid);
}

int lx_p9_mknod(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t major, uint32_t minor, uint32_t gid,
		struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TMKNOD};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.tmknod.dfid = dfid;
	tx.u.tmknod.name = lx_p9_str_c(name);
	tx.u.tmknod.mode = mode;
	tx.u.tmknod.major = major;
	tx.u.tmknod.minor = minor;
	tx.u.tmknod.gid = gid;
	return lx_p9_qid_call(c, &tx, qid);
}

int lx_p9_rename(struct lx_p9_clnt *c, uint32_t fid, uint32_t dfid,
		 const char *name)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TRENAME};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.trename.fid = fid;
	tx.u.trename.dfid = dfid;
	tx.u.trename.name = lx_p9_str_c(name);
	return lx_p9_simple(c, &tx);
}

int lx_p9_readlink(struct lx_p9_clnt *c, uint32_t fid, char *buf, size_t len)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TREADLINK};
	struct lx_p9_result res;
	struct lx_p9_str *t;
	int err;

	if (!c || !buf || !len)
		return -EINVAL;
	tx.u.tfid.fid = fid;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err)
		return err;
	t = &res.rx.u.rreadlink.target;
	if ((size_t)t->len + 1 > len) {
		err = -ENAMETOOLONG;
	} else {
		memcpy(buf, t->s, t->len);
		buf[t->len] = '\0';
	}
	lx_p9_result_put(&res);
	return err;
}

int lx_p9_link(struct lx_p9_clnt *c, uint32_t dfid, uint32_t fid,
	       const char *name)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLINK};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.tlink.dfid = dfid;
	tx.u.tlink.fid = fid;
	tx.u.tlink.name = lx_p9_str_c(name);
	return lx_p9_simple(c, &tx);
}

int lx_p9_lock(struct lx_p9_clnt *c, uint32_t fid, const struct lx_p9_flock *fl,
	       uint8_t *status)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLOCK};
	struct lx_p9_result res;
	int err;

	if (!c || !fl || !status || (!fl->client_id.s && fl->client_id.len))
		return -EINVAL;
	tx.u.tlock.fid = fid;
	tx.u.tlock.lock = *fl;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err)
		return err;
	*status = res.rx.u.rlock.status;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_getlock(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_getlock *gl,
		  char *idbuf, size_t idlen)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TGETLOCK};
	struct lx_p9_result res;
	struct lx_p9_getlock *r;
	int err;

	if (!c || !gl || !idbuf || !idlen ||
	    (!gl->client_id.s && gl->client_id.len))
		return -EINVAL;
	tx.u.tgetlock.fid = fid;
	tx.u.tgetlock.lock = *gl;
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err)
		return err;
	r = &res.rx.u.rgetlock;
	if ((size_t)r->client_id.len + 1 > idlen) {
		lx_p9_result_put(&res);
		return -ENAMETOOLONG;
	}
	memcpy(idbuf, r->client_id.s, r->client_id.len);
	idbuf[r->client_id.len] = '\0';
	*gl = *r;
	gl->client_id.s = idbuf;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_xattrwalk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
		    const char *name, uint64_t *size)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TXATTRWALK};
	struct lx_p9_result res;
	int err;

	if (!c || !size)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.txattrwalk.fid = fid;
	tx.u.txattrwalk.newfid = newfid;
	tx.u.txattrwalk.name = lx_p9_str_c(name);
	err = lx_p9_rpc(c, &tx, NULL, &res);
	if (err) {
		if (res.unknown && newfid != fid)
			lx_p9_fid_lose(c, newfid);
		return err;
	}
	*size = res.rx.u.rxattrwalk.size;
	lx_p9_result_put(&res);
	return 0;
}

int lx_p9_xattrcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		      uint64_t size, uint32_t flags)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TXATTRCREATE};
	int err;

	if (!c)
		return -EINVAL;
	err = lx_p9_check_name(name);
	if (err)
		return err;
	tx.u.txattrcreate.fid = fid;
	tx.u.txattrcreate.name = lx_p9_str_c(name);
	tx.u.txattrcreate.attr_size = size;
	tx.u.txattrcreate.flags = flags;
	return lx_p9_simple(c, &tx);
}
