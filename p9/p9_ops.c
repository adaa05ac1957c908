// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One synchronous call per 9P2000.L message.
 *
 * Each builds its T-message on the stack, runs it through the request
 * engine (lx_p9_rpc(): the reply stays in its pool buffer, decoded in place)
 * and copies the few result fields out before releasing the buffer, so
 * nothing here allocates.  Arguments are checked before anything is sent.
 * Most are a message and one call of lx_p9_run_out(), which runs it and
 * copies out the reply member LX_P9_REPLY() names.
 *
 * Fid bookkeeping follows the rule of p9_fid.c: Tclunk and Tremove free
 * their fid once the server answered (even with an error: the fid is gone
 * on the server either way); a walk or xattrwalk whose outcome is unknown
 * (timeout without Rflush, lost connection, garbage reply) leaves its new
 * fid reserved for good.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "p9_int.h"

int lx_p9_check_name(const char *name)
{
	if (!name)
		return -EINVAL;
	return strlen(name) > 0xFFFF ? -ENAMETOOLONG : 0;
}

/* Check C string @name and, if it is good, make it the 9P string @dst. */
static int lx_p9_name(struct lx_p9_str *dst, const char *name)
{
	int err = lx_p9_check_name(name);

	if (!err)
		*dst = lx_p9_str_c(name);
	return err;
}

/* lx_p9_name() on two names, stopping at the first bad one. */
static int lx_p9_names(struct lx_p9_str *dst1, const char *name1,
		       struct lx_p9_str *dst2, const char *name2)
{
	int err = lx_p9_name(dst1, name1);

	return err ? err : lx_p9_name(dst2, name2);
}

/* Copy 9P string @s to @buf of @len bytes, NUL-terminated. */
static int lx_p9_str_out(const struct lx_p9_str *s, char *buf, size_t len)
{
	if ((size_t)s->len + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, s->s, s->len);
	buf[s->len] = '\0';
	return 0;
}

/*
 * Run @tx unless its arguments failed: @c NULL (-EINVAL), or @err, the
 * wrapper's own checks.  On success the reply is in @res (put it).  A
 * Twalk or Txattrwalk whose outcome is unknown leaves its new fid
 * reserved for good.
 */
static int lx_p9_run(struct lx_p9_clnt *c, int err,
		     const struct lx_p9_fcall *tx, struct lx_p9_result *res)
{
	if (!c)
		return -EINVAL;
	if (err)
		return err;
	err = lx_p9_rpc(c, tx, NULL, res);
	/* (Txattrwalk's fid and newfid lie where Twalk's do) */
	if (err && res->unknown &&
	    (tx->type == LX_P9_TWALK || tx->type == LX_P9_TXATTRWALK) &&
	    tx->u.twalk.newfid != tx->u.twalk.fid)
		lx_p9_fid_lose(c, tx->u.twalk.newfid);
	return err;
}

_Static_assert(offsetof(struct lx_p9_fcall, u.txattrwalk.fid) ==
			       offsetof(struct lx_p9_fcall, u.twalk.fid) &&
		       offsetof(struct lx_p9_fcall, u.txattrwalk.newfid) ==
			       offsetof(struct lx_p9_fcall, u.twalk.newfid),
	       "Txattrwalk and Twalk begin alike");

/*
 * lx_p9_run(), then copy @size bytes at offset @off of the decoded reply
 * (a struct lx_p9_fcall) to @out, unless @out is NULL.  LX_P9_REPLY()
 * names the member.
 */
static int lx_p9_run_out(struct lx_p9_clnt *c, int err,
			 const struct lx_p9_fcall *tx, size_t off, size_t size,
			 void *out)
{
	struct lx_p9_result res;

	err = lx_p9_run(c, err, tx, &res);
	if (err)
		return err;
	if (out)
		memcpy(out, (const char *)&res.rx + off, size);
	lx_p9_result_put(&res);
	return 0;
}

#define LX_P9_RX(m) (((struct lx_p9_fcall *)0)->u.m)
/* Reply member @m to @out, which must point to @m's type. */
#define LX_P9_REPLY(m, out)                                     \
	offsetof(struct lx_p9_fcall, u.m), sizeof(LX_P9_RX(m)), \
		(1 ? (out) : &LX_P9_RX(m))
/* A reply with nothing to copy out. */
#define LX_P9_NOREPLY 0, 0, NULL

/* Check @name into @dst, then run @tx, whose reply carries nothing more. */
static int lx_p9_run_named(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
			   struct lx_p9_str *dst, const char *name)
{
	return lx_p9_run_out(c, lx_p9_name(dst, name), tx, LX_P9_NOREPLY);
}

int lx_p9_auth(struct lx_p9_clnt *c, uint32_t afid, const char *uname,
	       const char *aname, uint32_t n_uname, struct lx_p9_qid *aqid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TAUTH,
				 .u.tauth = {.afid = afid, .n_uname = n_uname}};
	int err = lx_p9_names(&tx.u.tauth.uname, uname ? uname : "",
			      &tx.u.tauth.aname, aname ? aname : "");

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rqid.qid, aqid));
}

int lx_p9_attach(struct lx_p9_clnt *c, uint32_t fid, uint32_t afid,
		 const char *uname, const char *aname, uint32_t n_uname,
		 struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TATTACH,
		.u.tattach = {.fid = fid, .afid = afid, .n_uname = n_uname}};
	int err = lx_p9_names(&tx.u.tattach.uname, uname ? uname : "",
			      &tx.u.tattach.aname, aname ? aname : "");

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rqid.qid, qid));
}

int lx_p9_walk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
	       unsigned int nwname, const char *const *wnames,
	       unsigned int *nwqid, struct lx_p9_qid *wqids)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TWALK,
				 .u.twalk = {.fid = fid, .newfid = newfid}};
	struct lx_p9_result res;
	unsigned int i;
	int err = 0;

	if (!nwqid || nwname > LX_P9_MAXWELEM || (nwname && !wnames))
		err = -EINVAL;
	for (i = 0; !err && i < nwname; i++)
		err = lx_p9_name(&tx.u.twalk.wname[i], wnames[i]);
	tx.u.twalk.nwname = (uint16_t)nwname;
	err = lx_p9_run(c, err, &tx, &res);
	if (err)
		return err;
	*nwqid = res.rx.u.rwalk.nwqid;
	if (wqids)
		memcpy(wqids, res.rx.u.rwalk.wqid,
		       res.rx.u.rwalk.nwqid * sizeof(*wqids));
	lx_p9_result_put(&res);
	return 0;
}

/* Tlopen, Tlcreate: the reply's iounit is remembered for @fid. */
static int lx_p9_open_call(struct lx_p9_clnt *c, int err, uint32_t fid,
			   const struct lx_p9_fcall *tx, struct lx_p9_qid *qid,
			   uint32_t *iounit)
{
	struct lx_p9_result res;

	err = lx_p9_run(c, err, tx, &res);
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
	struct lx_p9_fcall tx = {.type = LX_P9_TLOPEN,
				 .u.tlopen = {.fid = fid, .flags = flags}};

	return lx_p9_open_call(c, 0, fid, &tx, qid, iounit);
}

int lx_p9_lcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		  uint32_t flags, uint32_t mode, uint32_t gid,
		  struct lx_p9_qid *qid, uint32_t *iounit)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TLCREATE,
		.u.tlcreate = {
			.fid = fid, .flags = flags, .mode = mode, .gid = gid}};
	int err = lx_p9_name(&tx.u.tlcreate.name, name);

	return lx_p9_open_call(c, err, fid, &tx, qid, iounit);
}

/* Tclunk/Tremove: the fid is gone on the server once it answered. */
static int lx_p9_fid_end(struct lx_p9_clnt *c, uint8_t type, uint32_t fid)
{
	struct lx_p9_fcall tx = {.type = type, .u.tfid.fid = fid};
	struct lx_p9_result res;
	int err;

	if (!c)
		return -EINVAL;
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
	struct lx_p9_fcall tx = {
		.type = LX_P9_TGETATTR,
		.u.tgetattr = {.fid = fid, .request_mask = mask}};

	return lx_p9_run_out(c, attr ? 0 : -EINVAL, &tx,
			     LX_P9_REPLY(rgetattr, attr));
}

int lx_p9_setattr(struct lx_p9_clnt *c, uint32_t fid,
		  const struct lx_p9_iattr *ia)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSETATTR, .u.tsetattr.fid = fid};

	if (ia)
		tx.u.tsetattr.attr = *ia;
	return lx_p9_run_out(c, ia ? 0 : -EINVAL, &tx, LX_P9_NOREPLY);
}

int lx_p9_fsync(struct lx_p9_clnt *c, uint32_t fid, bool datasync)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TFSYNC,
		.u.tfsync = {.fid = fid, .datasync = datasync}};

	return lx_p9_run_out(c, 0, &tx, LX_P9_NOREPLY);
}

int lx_p9_mkdir(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t gid, struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TMKDIR,
		.u.tmkdir = {.dfid = dfid, .mode = mode, .gid = gid}};
	int err = lx_p9_name(&tx.u.tmkdir.name, name);

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rqid.qid, qid));
}

int lx_p9_unlinkat(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		   uint32_t flags)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TUNLINKAT,
				 .u.tunlinkat = {.dfid = dfid, .flags = flags}};

	return lx_p9_run_named(c, &tx, &tx.u.tunlinkat.name, name);
}

int lx_p9_renameat(struct lx_p9_clnt *c, uint32_t olddfid, const char *oldname,
		   uint32_t newdfid, const char *newname)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TRENAMEAT,
		.u.trenameat = {.olddfid = olddfid, .newdfid = newdfid}};
	int err = lx_p9_names(&tx.u.trenameat.oldname, oldname,
			      &tx.u.trenameat.newname, newname);

	return lx_p9_run_out(c, err, &tx, LX_P9_NOREPLY);
}

int lx_p9_statfs(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_statfs *st)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSTATFS, .u.tfid.fid = fid};

	return lx_p9_run_out(c, st ? 0 : -EINVAL, &tx,
			     LX_P9_REPLY(rstatfs, st));
}

int lx_p9_symlink(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		  const char *target, uint32_t gid, struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSYMLINK,
				 .u.tsymlink = {.fid = dfid, .gid = gid}};
	int err = lx_p9_names(&tx.u.tsymlink.name, name, &tx.u.tsymlink.symtgt,
			      target);

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rqid.qid, qid));
}

int lx_p9_mknod(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t major, uint32_t minor, uint32_t gid,
		struct lx_p9_qid *qid)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TMKNOD,
				 .u.tmknod = {.dfid = dfid,
					      .mode = mode,
					      .major = major,
					      .minor = minor,
					      .gid = gid}};
	int err = lx_p9_name(&tx.u.tmknod.name, name);

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rqid.qid, qid));
}

int lx_p9_rename(struct lx_p9_clnt *c, uint32_t fid, uint32_t dfid,
		 const char *name)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TRENAME,
				 .u.trename = {.fid = fid, .dfid = dfid}};

	return lx_p9_run_named(c, &tx, &tx.u.trename.name, name);
}

int lx_p9_readlink(struct lx_p9_clnt *c, uint32_t fid, char *buf, size_t len)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TREADLINK, .u.tfid.fid = fid};
	struct lx_p9_result res;
	int err;

	err = lx_p9_run(c, buf && len ? 0 : -EINVAL, &tx, &res);
	if (err)
		return err;
	err = lx_p9_str_out(&res.rx.u.rreadlink.target, buf, len);
	lx_p9_result_put(&res);
	return err;
}

int lx_p9_link(struct lx_p9_clnt *c, uint32_t dfid, uint32_t fid,
	       const char *name)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLINK,
				 .u.tlink = {.dfid = dfid, .fid = fid}};

	return lx_p9_run_named(c, &tx, &tx.u.tlink.name, name);
}

/* A lock's client id: @len bytes at @s, which only an empty one may omit. */
static bool lx_p9_id_ok(const struct lx_p9_str *id)
{
	return id->s || !id->len;
}

int lx_p9_lock(struct lx_p9_clnt *c, uint32_t fid, const struct lx_p9_flock *fl,
	       uint8_t *status)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TLOCK, .u.tlock.fid = fid};

	if (!fl || !status || !lx_p9_id_ok(&fl->client_id))
		return -EINVAL;
	tx.u.tlock.lock = *fl;
	return lx_p9_run_out(c, 0, &tx, LX_P9_REPLY(rlock.status, status));
}

int lx_p9_getlock(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_getlock *gl,
		  char *idbuf, size_t idlen)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TGETLOCK, .u.tgetlock.fid = fid};
	struct lx_p9_result res;
	int err;

	if (!gl || !idbuf || !idlen || !lx_p9_id_ok(&gl->client_id))
		return -EINVAL;
	tx.u.tgetlock.lock = *gl;
	err = lx_p9_run(c, 0, &tx, &res);
	if (err)
		return err;
	err = lx_p9_str_out(&res.rx.u.rgetlock.client_id, idbuf, idlen);
	if (!err) {
		*gl = res.rx.u.rgetlock;
		gl->client_id.s = idbuf;
	}
	lx_p9_result_put(&res);
	return err;
}

int lx_p9_xattrwalk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
		    const char *name, uint64_t *size)
{
	struct lx_p9_fcall tx = {
		.type = LX_P9_TXATTRWALK,
		.u.txattrwalk = {.fid = fid, .newfid = newfid}};
	int err = size ? lx_p9_name(&tx.u.txattrwalk.name, name) : -EINVAL;

	return lx_p9_run_out(c, err, &tx, LX_P9_REPLY(rxattrwalk.size, size));
}

int lx_p9_xattrcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		      uint64_t size, uint32_t flags)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TXATTRCREATE,
				 .u.txattrcreate = {.fid = fid,
						    .attr_size = size,
						    .flags = flags}};

	return lx_p9_run_named(c, &tx, &tx.u.txattrcreate.name, name);
}
