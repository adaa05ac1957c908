// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L message formats: the table the encoder and the decoder walk.
 *
 * One line a message, its fields in wire order (the kernel's 9P client
 * does the same with format strings such as "dqd").  Each field names its
 * member of struct lx_p9_fcall; the member's size is checked against the
 * field's kind when this file compiles, so a line that names a member of
 * the wrong width does not build.  Rerror (type 107) has no line: its
 * body depends on its length (see p9_dec.c), and the encoder writes the
 * form ganesha sends.
 */
#include <stddef.h>

#include <libxprt/p9.h>

#include "p9_fmt.h"

#define SZ_U8	    1
#define SZ_U16	    2
#define SZ_U32	    4
#define SZ_U64	    8
#define SZ_STR	    sizeof(struct lx_p9_str)
#define SZ_QID	    sizeof(struct lx_p9_qid)
#define SZ_NOSTR    SZ_STR

#define FOFF(m)	    offsetof(struct lx_p9_fcall, u.m)
#define FSIZE(m)    sizeof(((struct lx_p9_fcall *)0)->u.m)
/* 0, or a compile error when member @m is not @sz bytes wide */
#define FCHK(m, sz) (0 * sizeof(char[FSIZE(m) == (sz) ? 1 : -1]))

/* a field of kind @k in member @m */
#define F(k, m)                                                       \
	{                                                             \
		LX_P9_F_##k, (uint16_t)(FOFF(m) + FCHK(m, SZ_##k)), 0 \
	}
/* count[4] data[count]: the u32 @c, the pointer @d */
#define FDATA(c, d)                                                   \
	{                                                             \
		LX_P9_F_DATA, (uint16_t)(FOFF(c) + FCHK(c, 4)),       \
			(uint16_t)(FOFF(d) + FCHK(d, sizeof(void *))) \
	}
/* n[2] then n elements of kind @k: the u16 @c, the array @a */
#define FLIST(k, c, a)                                                  \
	{                                                               \
		LX_P9_F_##k, (uint16_t)(FOFF(c) + FCHK(c, 2)),          \
			(uint16_t)(FOFF(a) + FCHK(a[0], SZ_##k##_ELEM)) \
	}
#define SZ_WNAMES_ELEM SZ_STR
#define SZ_WQIDS_ELEM  SZ_QID

#define FIELDS(...)                  \
	(const struct lx_p9_field[]) \
	{                            \
		__VA_ARGS__          \
	}
#define NFIELDS(...) \
	(uint8_t)(sizeof(FIELDS(__VA_ARGS__)) / sizeof(struct lx_p9_field))
/* message @t, called @name, of the fields that follow */
#define MSG(t, name, ...) \
	[LX_P9_##t] = {name, FIELDS(__VA_ARGS__), NFIELDS(__VA_ARGS__), true}
/* a message with an empty body */
#define MSG0(t, name) [LX_P9_##t] = {name, NULL, 0, true}

/* the fields of a lock description, after the fid */
#define GETLOCK(m)                                                           \
	F(U8, m.type), F(U64, m.start), F(U64, m.length), F(U32, m.proc_id), \
		F(STR, m.client_id)

static const struct lx_p9_fmt fmts[256] = {
	MSG(TVERSION, "Tversion", F(U32, version.msize),
	    F(STR, version.version)),
	MSG(RVERSION, "Rversion", F(U32, version.msize),
	    F(STR, version.version)),
	MSG(TAUTH, "Tauth", F(U32, tauth.afid), F(STR, tauth.uname),
	    F(STR, tauth.aname), F(U32, tauth.n_uname)),
	MSG(RAUTH, "Rauth", F(QID, rqid.qid)),
	MSG(TATTACH, "Tattach", F(U32, tattach.fid), F(U32, tattach.afid),
	    F(STR, tattach.uname), F(STR, tattach.aname),
	    F(U32, tattach.n_uname)),
	MSG(RATTACH, "Rattach", F(QID, rqid.qid)),
	[LX_P9_RERROR] = {"Rerror", NULL, 0, true},
	[LX_P9_TLERROR] = {"Tlerror", NULL, 0, false}, /* named, never sent */
	MSG(RLERROR, "Rlerror", F(U32, rlerror.ecode), F(NOSTR, rlerror.ename)),
	MSG(TFLUSH, "Tflush", F(U16, tflush.oldtag)),
	MSG0(RFLUSH, "Rflush"),
	MSG(TWALK, "Twalk", F(U32, twalk.fid), F(U32, twalk.newfid),
	    FLIST(WNAMES, twalk.nwname, twalk.wname)),
	MSG(RWALK, "Rwalk", FLIST(WQIDS, rwalk.nwqid, rwalk.wqid)),
	MSG(TLOPEN, "Tlopen", F(U32, tlopen.fid), F(U32, tlopen.flags)),
	MSG(RLOPEN, "Rlopen", F(QID, ropen.qid), F(U32, ropen.iounit)),
	MSG(TLCREATE, "Tlcreate", F(U32, tlcreate.fid), F(STR, tlcreate.name),
	    F(U32, tlcreate.flags), F(U32, tlcreate.mode),
	    F(U32, tlcreate.gid)),
	MSG(RLCREATE, "Rlcreate", F(QID, ropen.qid), F(U32, ropen.iounit)),
	MSG(TREAD, "Tread", F(U32, tread.fid), F(U64, tread.offset),
	    F(U32, tread.count)),
	MSG(RREAD, "Rread", FDATA(rread.count, rread.data)),
	MSG(TREADDIR, "Treaddir", F(U32, tread.fid), F(U64, tread.offset),
	    F(U32, tread.count)),
	MSG(RREADDIR, "Rreaddir", FDATA(rread.count, rread.data)),
	MSG(TWRITE, "Twrite", F(U32, twrite.fid), F(U64, twrite.offset),
	    FDATA(twrite.count, twrite.data)),
	MSG(RWRITE, "Rwrite", F(U32, rwrite.count)),
	MSG(TCLUNK, "Tclunk", F(U32, tfid.fid)),
	MSG0(RCLUNK, "Rclunk"),
	MSG(TREMOVE, "Tremove", F(U32, tfid.fid)),
	MSG0(RREMOVE, "Rremove"),
	MSG(TSTATFS, "Tstatfs", F(U32, tfid.fid)),
	MSG(RSTATFS, "Rstatfs", F(U32, rstatfs.type), F(U32, rstatfs.bsize),
	    F(U64, rstatfs.blocks), F(U64, rstatfs.bfree),
	    F(U64, rstatfs.bavail), F(U64, rstatfs.files),
	    F(U64, rstatfs.ffree), F(U64, rstatfs.fsid),
	    F(U32, rstatfs.namelen)),
	MSG(TREADLINK, "Treadlink", F(U32, tfid.fid)),
	MSG(RREADLINK, "Rreadlink", F(STR, rreadlink.target)),
	MSG(TGETATTR, "Tgetattr", F(U32, tgetattr.fid),
	    F(U64, tgetattr.request_mask)),
	MSG(RGETATTR, "Rgetattr", F(U64, rgetattr.valid), F(QID, rgetattr.qid),
	    F(U32, rgetattr.mode), F(U32, rgetattr.uid), F(U32, rgetattr.gid),
	    F(U64, rgetattr.nlink), F(U64, rgetattr.rdev),
	    F(U64, rgetattr.size), F(U64, rgetattr.blksize),
	    F(U64, rgetattr.blocks), F(U64, rgetattr.atime_sec),
	    F(U64, rgetattr.atime_nsec), F(U64, rgetattr.mtime_sec),
	    F(U64, rgetattr.mtime_nsec), F(U64, rgetattr.ctime_sec),
	    F(U64, rgetattr.ctime_nsec), F(U64, rgetattr.btime_sec),
	    F(U64, rgetattr.btime_nsec), F(U64, rgetattr.gen),
	    F(U64, rgetattr.data_version)),
	MSG(TSETATTR, "Tsetattr", F(U32, tsetattr.fid),
	    F(U32, tsetattr.attr.valid), F(U32, tsetattr.attr.mode),
	    F(U32, tsetattr.attr.uid), F(U32, tsetattr.attr.gid),
	    F(U64, tsetattr.attr.size), F(U64, tsetattr.attr.atime_sec),
	    F(U64, tsetattr.attr.atime_nsec), F(U64, tsetattr.attr.mtime_sec),
	    F(U64, tsetattr.attr.mtime_nsec)),
	MSG0(RSETATTR, "Rsetattr"),
	MSG(TFSYNC, "Tfsync", F(U32, tfsync.fid), F(U32, tfsync.datasync)),
	MSG0(RFSYNC, "Rfsync"),
	MSG(TMKDIR, "Tmkdir", F(U32, tmkdir.dfid), F(STR, tmkdir.name),
	    F(U32, tmkdir.mode), F(U32, tmkdir.gid)),
	MSG(RMKDIR, "Rmkdir", F(QID, rqid.qid)),
	MSG(TUNLINKAT, "Tunlinkat", F(U32, tunlinkat.dfid),
	    F(STR, tunlinkat.name), F(U32, tunlinkat.flags)),
	MSG0(RUNLINKAT, "Runlinkat"),
	MSG(TRENAMEAT, "Trenameat", F(U32, trenameat.olddfid),
	    F(STR, trenameat.oldname), F(U32, trenameat.newdfid),
	    F(STR, trenameat.newname)),
	MSG0(RRENAMEAT, "Rrenameat"),
	MSG(TSYMLINK, "Tsymlink", F(U32, tsymlink.fid), F(STR, tsymlink.name),
	    F(STR, tsymlink.symtgt), F(U32, tsymlink.gid)),
	MSG(RSYMLINK, "Rsymlink", F(QID, rqid.qid)),
	MSG(TMKNOD, "Tmknod", F(U32, tmknod.dfid), F(STR, tmknod.name),
	    F(U32, tmknod.mode), F(U32, tmknod.major), F(U32, tmknod.minor),
	    F(U32, tmknod.gid)),
	MSG(RMKNOD, "Rmknod", F(QID, rqid.qid)),
	MSG(TRENAME, "Trename", F(U32, trename.fid), F(U32, trename.dfid),
	    F(STR, trename.name)),
	MSG0(RRENAME, "Rrename"),
	MSG(TLINK, "Tlink", F(U32, tlink.dfid), F(U32, tlink.fid),
	    F(STR, tlink.name)),
	MSG0(RLINK, "Rlink"),
	MSG(TLOCK, "Tlock", F(U32, tlock.fid), F(U8, tlock.lock.type),
	    F(U32, tlock.lock.flags), F(U64, tlock.lock.start),
	    F(U64, tlock.lock.length), F(U32, tlock.lock.proc_id),
	    F(STR, tlock.lock.client_id)),
	MSG(RLOCK, "Rlock", F(U8, rlock.status)),
	MSG(TGETLOCK, "Tgetlock", F(U32, tgetlock.fid), GETLOCK(tgetlock.lock)),
	MSG(RGETLOCK, "Rgetlock", GETLOCK(rgetlock)),
	MSG(TXATTRWALK, "Txattrwalk", F(U32, txattrwalk.fid),
	    F(U32, txattrwalk.newfid), F(STR, txattrwalk.name)),
	MSG(RXATTRWALK, "Rxattrwalk", F(U64, rxattrwalk.size)),
	MSG(TXATTRCREATE, "Txattrcreate", F(U32, txattrcreate.fid),
	    F(STR, txattrcreate.name), F(U64, txattrcreate.attr_size),
	    F(U32, txattrcreate.flags)),
	MSG0(RXATTRCREATE, "Rxattrcreate"),
};

const struct lx_p9_fmt *lx_p9_fmt_of(uint8_t type)
{
	return &fmts[type];
}
