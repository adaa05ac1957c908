/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt 9P2000.L client.
 *
 * One client is one 9P session on one connection (the session dies with
 * it: there is no reconnection).  It sits directly on the transport core
 * (xprt.h): every message travels in a request slot whose number is the 9P
 * tag, buffers come from a pool sized to the negotiated msize, and any
 * number of calls may be in flight (max_reqs).  Tread data lands straight
 * in the caller's buffer; Twrite data is sent from it.
 *
 * Three levels of API:
 *   - the codec (lx_p9_msg_encode(), lx_p9_msg_decode()): every 9P2000.L
 *     message, T and R, bounds-checked, no allocation; usable alone (test
 *     servers use it);
 *   - one call per message (lx_p9_walk(), lx_p9_lopen(), lx_p9_read()...),
 *     sync, and the generic lx_p9_call() / lx_p9_call_async() for any
 *     message, plus lx_p9_read_async() / lx_p9_write_async(), the lean data
 *     path; the async ones take a struct lx_call (libxprt/call.h);
 *   - path helpers: lx_p9_walk_path(), lx_p9_open_path(), lx_p9_pread() /
 *     lx_p9_pwrite() (split at the iounit, pipelined), directory iteration,
 *     lx_p9_mkdir_path(), lx_p9_remove_path(), lx_p9_stat_path(), lx_p9_statfs_path().
 *
 * Errors: every function returns 0 or a negative errno; async callbacks get
 * a status.  A server error (Rlerror, or type 107 as ganesha sends it with
 * an errno body) is that errno, negated.  Local errors:
 *   %-EINVAL           bad arguments (nothing was sent)
 *   %-ENAMETOOLONG     a name longer than 65535 bytes
 *   %-EMSGSIZE         the message does not fit msize, or the reply was
 *                      larger than msize (discarded, the session goes on)
 *   %-EBADMSG          a malformed reply: a field, string or count past
 *                      its end, trailing bytes, a size field that
 *                      disagrees with the bytes
 *   %-EPROTO           a reply that breaks the protocol: the wrong type for
 *                      the request (an Rflush to a Tread, say), an Rread or
 *                      Rreaddir count larger than requested (nothing is
 *                      written past the caller's buffer), an Rwalk with
 *                      more qids than names
 *   %-EPROTONOSUPPORT  the server does not speak 9P2000.L (connect)
 *   %-ETIMEDOUT        no reply within timeout_ms (the request was flushed)
 *   %-ECANCELED        lx_call_cancel() (the call was flushed)
 *   %-ECONNRESET       the connection broke with the call in flight (also
 *                      when the server sent a size field no 9P message can
 *                      have: the stream cannot be followed any more)
 *   %-ENOTCONN         the session is gone (connection lost earlier, or a
 *                      Tflush answered with an error broke it)
 *   %-EBUSY            %LX_CALL_NOWAIT and no free slot or buffer
 *   %-ESHUTDOWN        lx_p9_destroy() is running
 *   %-ECHILD           the client was made in the parent of this process
 *                      (fork()): nothing sent (docs/api.md, "Across fork()")
 *   %-ENFILE           no free fid below the fid ceiling
 *
 * Threads: a client is thread-safe.  Sync calls may come from any thread
 * but not from a completion callback.  Callbacks run on the transport's
 * receive thread and must not block; they may start new async calls with
 * %LX_CALL_NOWAIT (on -EBUSY, hand the work to another thread).
 *
 * Flush (lx_call_cancel(), timeout): a call that is cancelled or times
 * out is not failed at once: Tflush(oldtag) is sent, and the call's tag
 * stays reserved until the Rflush, so no new call can be confused with it.
 * Its outcome is its real reply if one arrives before the Rflush (a walk
 * that succeeded still created its fid), else -ECANCELED (or -ETIMEDOUT).
 * If the Rflush does not come within the call's timeout (the client's for
 * a call without one, 30 s if neither has one), the call completes with
 * -ECANCELED anyway - the call's memory is no longer written then: a late
 * reply finds no call - and the tags stay reserved until the Rflush
 * arrives or the session ends.  Cancelling again sends another Tflush for
 * the same tag (an Rflush to any of them answers all earlier ones), at
 * most four (then lx_call_cancel() says %-EBUSY).
 */
#ifndef LIBXPRT_P9_H
#define LIBXPRT_P9_H

#include <fcntl.h> /* the open flags the calls take: O_CREAT... */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "call.h"
#include "pool.h"
#include "xprt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ protocol */

/* Message types of 9P2000.L (and the 9P2000 ones it keeps). */
enum lx_p9_msg_type {
	LX_P9_TLERROR = 6,
	LX_P9_RLERROR = 7,
	LX_P9_TSTATFS = 8,
	LX_P9_RSTATFS = 9,
	LX_P9_TLOPEN = 12,
	LX_P9_RLOPEN = 13,
	LX_P9_TLCREATE = 14,
	LX_P9_RLCREATE = 15,
	LX_P9_TSYMLINK = 16,
	LX_P9_RSYMLINK = 17,
	LX_P9_TMKNOD = 18,
	LX_P9_RMKNOD = 19,
	LX_P9_TRENAME = 20,
	LX_P9_RRENAME = 21,
	LX_P9_TREADLINK = 22,
	LX_P9_RREADLINK = 23,
	LX_P9_TGETATTR = 24,
	LX_P9_RGETATTR = 25,
	LX_P9_TSETATTR = 26,
	LX_P9_RSETATTR = 27,
	LX_P9_TXATTRWALK = 30,
	LX_P9_RXATTRWALK = 31,
	LX_P9_TXATTRCREATE = 32,
	LX_P9_RXATTRCREATE = 33,
	LX_P9_TREADDIR = 40,
	LX_P9_RREADDIR = 41,
	LX_P9_TFSYNC = 50,
	LX_P9_RFSYNC = 51,
	LX_P9_TLOCK = 52,
	LX_P9_RLOCK = 53,
	LX_P9_TGETLOCK = 54,
	LX_P9_RGETLOCK = 55,
	LX_P9_TLINK = 70,
	LX_P9_RLINK = 71,
	LX_P9_TMKDIR = 72,
	LX_P9_RMKDIR = 73,
	LX_P9_TRENAMEAT = 74,
	LX_P9_RRENAMEAT = 75,
	LX_P9_TUNLINKAT = 76,
	LX_P9_RUNLINKAT = 77,
	LX_P9_TVERSION = 100,
	LX_P9_RVERSION = 101,
	LX_P9_TAUTH = 102,
	LX_P9_RAUTH = 103,
	LX_P9_TATTACH = 104,
	LX_P9_RATTACH = 105,
	LX_P9_RERROR = 107,
	LX_P9_TFLUSH = 108,
	LX_P9_RFLUSH = 109,
	LX_P9_TWALK = 110,
	LX_P9_RWALK = 111,
	LX_P9_TREAD = 116,
	LX_P9_RREAD = 117,
	LX_P9_TWRITE = 118,
	LX_P9_RWRITE = 119,
	LX_P9_TCLUNK = 120,
	LX_P9_RCLUNK = 121,
	LX_P9_TREMOVE = 122,
	LX_P9_RREMOVE = 123,
};

#define LX_P9_VERSION_L		   "9P2000.L"
#define LX_P9_NOTAG		   0xFFFFu
#define LX_P9_NOFID		   0xFFFFFFFFu
#define LX_P9_NONUNAME		   0xFFFFFFFFu
#define LX_P9_MAXWELEM		   16u
#define LX_P9_HDRSZ		   7u /* size[4] type[1] tag[2] */
#define LX_P9_IOHDRSZ		   24u /* room a Twrite/Rread header takes of msize */
#define LX_P9_MIN_MSIZE		   4096u
#define LX_P9_DEF_MSIZE		   65536u
#define LX_P9_MAX_MSIZE		   (8u << 20)
#define LX_P9_DEF_PORT		   564u

/* qid.type */
#define LX_P9_QTDIR		   0x80u
#define LX_P9_QTAPPEND		   0x40u
#define LX_P9_QTEXCL		   0x20u
#define LX_P9_QTMOUNT		   0x10u
#define LX_P9_QTAUTH		   0x08u
#define LX_P9_QTTMP		   0x04u
#define LX_P9_QTSYMLINK		   0x02u
#define LX_P9_QTLINK		   0x01u
#define LX_P9_QTFILE		   0x00u

/* Tgetattr request_mask / Rgetattr valid */
#define LX_P9_GETATTR_MODE	   0x00000001ull
#define LX_P9_GETATTR_NLINK	   0x00000002ull
#define LX_P9_GETATTR_UID	   0x00000004ull
#define LX_P9_GETATTR_GID	   0x00000008ull
#define LX_P9_GETATTR_RDEV	   0x00000010ull
#define LX_P9_GETATTR_ATIME	   0x00000020ull
#define LX_P9_GETATTR_MTIME	   0x00000040ull
#define LX_P9_GETATTR_CTIME	   0x00000080ull
#define LX_P9_GETATTR_INO	   0x00000100ull
#define LX_P9_GETATTR_SIZE	   0x00000200ull
#define LX_P9_GETATTR_BLOCKS	   0x00000400ull
#define LX_P9_GETATTR_BTIME	   0x00000800ull
#define LX_P9_GETATTR_GEN	   0x00001000ull
#define LX_P9_GETATTR_DATA_VERSION 0x00002000ull
#define LX_P9_GETATTR_BASIC	   0x000007ffull
#define LX_P9_GETATTR_ALL	   0x00003fffull

/* Tsetattr valid */
#define LX_P9_SETATTR_MODE	   0x00000001u
#define LX_P9_SETATTR_UID	   0x00000002u
#define LX_P9_SETATTR_GID	   0x00000004u
#define LX_P9_SETATTR_SIZE	   0x00000008u
#define LX_P9_SETATTR_ATIME	   0x00000010u
#define LX_P9_SETATTR_MTIME	   0x00000020u
#define LX_P9_SETATTR_CTIME	   0x00000040u
#define LX_P9_SETATTR_ATIME_SET	   0x00000080u
#define LX_P9_SETATTR_MTIME_SET	   0x00000100u

/* Tlock / Tgetlock */
#define LX_P9_LOCK_TYPE_RDLCK	   0u
#define LX_P9_LOCK_TYPE_WRLCK	   1u
#define LX_P9_LOCK_TYPE_UNLCK	   2u
#define LX_P9_LOCK_FLAGS_BLOCK	   1u
#define LX_P9_LOCK_FLAGS_RECLAIM   2u
#define LX_P9_LOCK_SUCCESS	   0u
#define LX_P9_LOCK_BLOCKED	   1u
#define LX_P9_LOCK_ERROR	   2u
#define LX_P9_LOCK_GRACE	   3u

/* Tunlinkat flags */
#define LX_P9_AT_REMOVEDIR	   0x200u

/**
 * struct lx_p9_qid - the server's identity of a file
 */
struct lx_p9_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
};

/**
 * struct lx_p9_str - a 9P string: @len bytes at @s, not NUL-terminated
 *
 * Decoded strings point into the message buffer and live as long as it.
 */
struct lx_p9_str {
	const char *s;
	uint16_t len;
};

/** struct lx_p9_attr - Rgetattr */
struct lx_p9_attr {
	uint64_t valid;
	struct lx_p9_qid qid;
	uint32_t mode, uid, gid;
	uint64_t nlink, rdev, size, blksize, blocks;
	uint64_t atime_sec, atime_nsec, mtime_sec, mtime_nsec;
	uint64_t ctime_sec, ctime_nsec, btime_sec, btime_nsec;
	uint64_t gen, data_version;
};

/** struct lx_p9_iattr - Tsetattr (fields apply when their valid bit is set) */
struct lx_p9_iattr {
	uint32_t valid, mode, uid, gid;
	uint64_t size;
	uint64_t atime_sec, atime_nsec, mtime_sec, mtime_nsec;
};

/** struct lx_p9_statfs - Rstatfs */
struct lx_p9_statfs {
	uint32_t type, bsize;
	uint64_t blocks, bfree, bavail, files, ffree, fsid;
	uint32_t namelen;
};

/** struct lx_p9_flock - Tlock */
struct lx_p9_flock {
	uint8_t type;
	uint32_t flags;
	uint64_t start, length;
	uint32_t proc_id;
	struct lx_p9_str client_id;
};

/** struct lx_p9_getlock - Tgetlock and Rgetlock */
struct lx_p9_getlock {
	uint8_t type;
	uint64_t start, length;
	uint32_t proc_id;
	struct lx_p9_str client_id;
};

/** struct lx_p9_dirent - one entry of Rreaddir data */
struct lx_p9_dirent {
	struct lx_p9_qid qid;
	uint64_t offset;
	uint8_t type;
	struct lx_p9_str name;
};

/**
 * struct lx_p9_fcall - one message, decoded or to encode
 * @type: enum lx_p9_msg_type
 * @tag: the tag (the client sets it when it sends)
 * @u: the body of @type; messages with an empty body (Rflush, Rclunk,
 *	Rremove, Rsetattr, Rfsync, Runlinkat, Rrenameat, Rrename, Rlink,
 *	Rxattrcreate) use none.  Shared layouts: version (T and R), rqid
 *	(Rauth, Rattach, Rmkdir, Rsymlink, Rmknod), ropen (Rlopen, Rlcreate),
 *	tfid (Tclunk, Tremove, Tstatfs, Treadlink), tread (Tread, Treaddir),
 *	rread (Rread, Rreaddir), rlerror (Rlerror and Rerror).
 *
 * rlerror: @ecode is the errno.  A type-107 Rerror whose body is 4 bytes
 * is ganesha's Rlerror-in-disguise: @ecode, @ename empty.  A 9P2000-style
 * Rerror (ename[s], optionally errno[4] as 9P2000.u) fills @ename and
 * takes @ecode from errno[4], or EIO without it.
 */
struct lx_p9_fcall {
	uint8_t type;
	uint16_t tag;
	union {
		struct {
			uint32_t msize;
			struct lx_p9_str version;
		} version;
		struct {
			uint32_t afid;
			struct lx_p9_str uname, aname;
			uint32_t n_uname;
		} tauth;
		struct {
			uint32_t fid, afid;
			struct lx_p9_str uname, aname;
			uint32_t n_uname;
		} tattach;
		struct {
			struct lx_p9_qid qid;
		} rqid;
		struct {
			uint32_t ecode;
			struct lx_p9_str ename;
		} rlerror;
		struct {
			uint16_t oldtag;
		} tflush;
		struct {
			uint32_t fid, newfid;
			uint16_t nwname;
			struct lx_p9_str wname[LX_P9_MAXWELEM];
		} twalk;
		struct {
			uint16_t nwqid;
			struct lx_p9_qid wqid[LX_P9_MAXWELEM];
		} rwalk;
		struct {
			uint32_t fid, flags;
		} tlopen;
		struct {
			struct lx_p9_qid qid;
			uint32_t iounit;
		} ropen;
		struct {
			uint32_t fid;
			struct lx_p9_str name;
			uint32_t flags, mode, gid;
		} tlcreate;
		struct {
			uint32_t fid;
			uint64_t offset;
			uint32_t count;
		} tread;
		struct {
			uint32_t count;
			const void *data;
		} rread;
		struct {
			uint32_t fid;
			uint64_t offset;
			uint32_t count;
			const void *data;
		} twrite;
		struct {
			uint32_t count;
		} rwrite;
		struct {
			uint32_t fid;
		} tfid;
		struct {
			uint32_t fid;
			uint64_t request_mask;
		} tgetattr;
		struct lx_p9_attr rgetattr;
		struct {
			uint32_t fid;
			struct lx_p9_iattr attr;
		} tsetattr;
		struct {
			uint32_t fid, datasync;
		} tfsync;
		struct {
			uint32_t dfid;
			struct lx_p9_str name;
			uint32_t mode, gid;
		} tmkdir;
		struct {
			uint32_t dfid;
			struct lx_p9_str name;
			uint32_t flags;
		} tunlinkat;
		struct {
			uint32_t olddfid;
			struct lx_p9_str oldname;
			uint32_t newdfid;
			struct lx_p9_str newname;
		} trenameat;
		struct lx_p9_statfs rstatfs;
		struct {
			uint32_t fid;
			struct lx_p9_str name, symtgt;
			uint32_t gid;
		} tsymlink;
		struct {
			uint32_t dfid;
			struct lx_p9_str name;
			uint32_t mode, major, minor, gid;
		} tmknod;
		struct {
			uint32_t fid, dfid;
			struct lx_p9_str name;
		} trename;
		struct {
			struct lx_p9_str target;
		} rreadlink;
		struct {
			uint32_t dfid, fid;
			struct lx_p9_str name;
		} tlink;
		struct {
			uint32_t fid;
			struct lx_p9_flock lock;
		} tlock;
		struct {
			uint8_t status;
		} rlock;
		struct {
			uint32_t fid;
			struct lx_p9_getlock lock;
		} tgetlock;
		struct lx_p9_getlock rgetlock;
		struct {
			uint32_t fid, newfid;
			struct lx_p9_str name;
		} txattrwalk;
		struct {
			uint64_t size;
		} rxattrwalk;
		struct {
			uint32_t fid;
			struct lx_p9_str name;
			uint64_t attr_size;
			uint32_t flags;
		} txattrcreate;
	} u;
};

/* lx_p9_msg_encode() flags */
/* Twrite/Rread/Rreaddir: count the data in the size field but do not copy
 * it (it is sent from the caller's memory right after the header). */
#define LX_P9_ENC_NODATA 0x1u

/**
 * lx_p9_str_c() - a 9P string for a C string
 * Strings longer than 65535 bytes get len 0xFFFF; check with strlen()
 * first where that matters (the client's calls return -ENAMETOOLONG).
 */
struct lx_p9_str lx_p9_str_c(const char *s);

/**
 * lx_p9_msg_size() - bytes @f takes on the wire (data included)
 * Return: the size, or 0 for an unknown type or a bad field.
 */
size_t lx_p9_msg_size(const struct lx_p9_fcall *f);

/**
 * lx_p9_msg_encode() - write a message
 * @f: the message
 * @buf: destination, @cap bytes
 * @cap: room
 * @flags: %LX_P9_ENC_NODATA or 0
 * @lenp: bytes written (without data under %LX_P9_ENC_NODATA)
 *
 * Context: any; no allocation.
 * Return: %0; %-EINVAL for an unknown type, nwname/nwqid above 16, a
 * string or data pointer that is NULL with a non-zero length, or NULL
 * arguments; %-EMSGSIZE when it does not fit @cap (or 2^32 bytes).
 */
int lx_p9_msg_encode(const struct lx_p9_fcall *f, void *buf, size_t cap,
		     unsigned int flags, size_t *lenp);

/**
 * lx_p9_msg_decode() - parse one whole message
 * @buf: the message, starting at its size field
 * @len: bytes available at @buf
 * @msize: the largest message allowed (0: no limit)
 * @f: decoded into; strings and data point into @buf
 *
 * Every field is checked against the message's end.
 * Context: any; no allocation.
 * Return: %0; %-EBADMSG when @len is shorter than 7, the size field is not
 * @len, or a field, string, count or list runs past the end, or bytes
 * are left after the body, or nwname/nwqid exceed 16; %-EMSGSIZE when the
 * size field exceeds @msize; %-EPROTO for a type 9P2000.L does not have;
 * %-EINVAL for NULL arguments.  @f is undefined on error.
 */
int lx_p9_msg_decode(const void *buf, size_t len, size_t msize,
		     struct lx_p9_fcall *f);

/**
 * lx_p9_dirent_next() - parse the next directory entry of Rreaddir data
 * @buf: the data, @len bytes
 * @pos: in: offset of the entry; out: offset of the next one
 * @d: the entry; its name points into @buf
 *
 * Return: %1 with an entry, %0 at the end of the data, %-EBADMSG when an
 * entry runs past the end (then *@pos is unchanged).
 */
int lx_p9_dirent_next(const void *buf, size_t len, size_t *pos,
		      struct lx_p9_dirent *d);

/**
 * lx_p9_dirent_put() - append one directory entry (servers, tests)
 * Return: %0; %-EMSGSIZE when it does not fit (*@pos unchanged).
 */
int lx_p9_dirent_put(void *buf, size_t cap, size_t *pos,
		     const struct lx_p9_dirent *d);

/** lx_p9_msg_name() - "Twalk", "Rlerror"... or "unknown" */
const char *lx_p9_msg_name(uint8_t type);

/* -------------------------------------------------------------- client */

struct lx_p9_clnt;

#define LX_P9_NO_TIMEOUT (~0u)

/**
 * struct lx_p9_opts - session parameters (zero means the default)
 * @host: server address or name (required)
 * @port: default 564 (TCP), 5640 (RDMA: %LX_XPRT_RDMA_9P_PORT)
 * @aname: the tree to attach ("" when NULL); diod wants the exported
 *	directory's absolute path, ganesha its pseudo path ("/export")
 * @uname: user name sent in Tattach ("" when NULL)
 * @n_uname: numeric uid in Tattach; both servers trust it (0 = root)
 * @n_gid: gid the path helpers give to what they create (Tlcreate, Tmkdir)
 * @msize: the largest message proposed, %LX_P9_MIN_MSIZE .. %LX_P9_MAX_MSIZE
 *	(default 65536); the server may lower it
 * @max_reqs: calls in flight, 2 .. 65535 (default 64; over RDMA 32, the
 *	queue depth of Linux's trans_rdma that its servers post receives
 *	for): the tags
 * @max_fids: fid ceiling: fids are 0 .. max_fids-1, 2 .. 65535 (default
 *	1024: ganesha refuses fids >= 1024 with ERANGE)
 * @timeout_ms: per call; a call without a reply by then is flushed and
 *	fails with -ETIMEDOUT (default 30000; %LX_P9_NO_TIMEOUT: never)
 * @connect_timeout_ms: TCP connect, and then each of Tversion and
 *	Tattach (default 5000)
 * @transport: %LX_XPRT_TRANSPORT_TCP (default) or %LX_XPRT_TRANSPORT_RDMA: 9P
 *	over RDMA as Linux's trans_rdma frames it (one message per Send, no
 *	RDMA Read or Write; libxprt/rdma.h)
 * @rdma: RDMA transport options (a struct lx_xprt_rdma_opts, libxprt/rdma.h;
 *	copied at connect), NULL for the defaults; e.g. a longer ack_timeout
 *	for a server that may stall for seconds
 * @errbuf: optional; lx_p9_create() writes a sentence there saying why it
 *	failed (NUL-terminated, truncated to @errbuf_len)
 * @errbuf_len: its size
 * @pool: a pool to share with other clients (lx_xprt_pool_create() with
 *	buf_size 0, libxprt/pool.h), or NULL for one of the session's own
 *	(either way a server's smaller msize takes a smaller size class);
 *	it must outlive the client
 * @log, @log_arg: where the session's messages go; see lx_xprt_log_fn.
 *	NULL: dropped.
 * @zerocopy: TCP: Twrite payloads of 32 KiB or more go out with
 *	MSG_ZEROCOPY (opt-in, for real NICs; see lx_xprt_opts.zerocopy)
 * @mode: %LX_XPRT_MODE_THREADED (default) or %LX_XPRT_MODE_CALLER: no
 *	thread of the library's, the creating thread drives the session
 *	(lx_p9_loop_service(); libxprt/xprt.h, enum lx_xprt_mode);
 *	lx_p9_create() and the synchronous calls run the loop themselves.
 *	TCP only, without @zerocopy (%-EOPNOTSUPP).
 */
struct lx_p9_opts {
	const char *host;
	uint16_t port;
	const char *aname;
	const char *uname;
	uint32_t n_uname;
	uint32_t n_gid;
	uint32_t msize;
	unsigned int max_reqs;
	unsigned int max_fids;
	unsigned int timeout_ms;
	unsigned int connect_timeout_ms;
	enum lx_xprt_transport transport;
	const void *rdma;
	char *errbuf;
	size_t errbuf_len;
	struct lx_xprt_pool *pool;
	lx_xprt_log_fn log;
	void *log_arg;
	bool zerocopy;
	enum lx_xprt_mode mode;
};

/**
 * struct lx_p9_stats - client counters
 * @calls: calls started; @flushes: Tflush sent; @flush_replies: Rflush
 * received; @late_replies: replies to a flushed call that arrived before
 * its Rflush (honoured as its outcome); @flush_expired: flushed calls
 * completed at the flush deadline without an Rflush (their tags stay
 * reserved until it comes); @fids_in_use: fids allocated now;
 * @fids_lost: fid numbers never reused because the server's view of them
 * is unknown (a walk or clunk that timed out); @xprt: the session's
 * transport (struct lx_xprt_stats)
 */
struct lx_p9_stats {
	uint64_t calls, flushes, flush_replies, late_replies, flush_expired;
	uint64_t fids_in_use, fids_lost;
	struct lx_xprt_stats xprt;
};

/**
 * lx_p9_create() - connect, negotiate the version and attach
 * @cp: where the client is stored
 * @opts: parameters (copied)
 *
 * Sends Tversion("9P2000.L", msize) with NOTAG and takes the server's
 * msize when it is smaller; sizes the buffer pool to it; attaches the root
 * fid (lx_p9_root_fid()).
 * Context: blocks up to three times the connect timeout.
 * Return: %0; %-EINVAL for bad options (msize below %LX_P9_MIN_MSIZE...);
 * %-ECONNREFUSED (nothing listens), %-ETIMEDOUT, %-ENOENT (host does not
 * resolve) or another connect error (over RDMA also %-ENODEV: no RDMA
 * device, or none reaching @host); %-EPROTONOSUPPORT when the server
 * answers another version (or refuses Tversion); %-EPROTO when its msize
 * is below %LX_P9_MIN_MSIZE; the server's error for Tattach (a wrong aname:
 * ganesha %-ENOENT/%-EACCES, diod %-EPERM); %-ENOMEM.  @errbuf says more.
 */
int lx_p9_create(struct lx_p9_clnt **cp, const struct lx_p9_opts *opts);

/**
 * lx_p9_destroy() - clunk the root fid, fail calls in flight with -ESHUTDOWN,
 * close the connection and free the client
 *
 * Their callbacks run before this returns.
 * Context: blocks briefly; never from a completion callback.  NULL is a
 * no-op.
 */
void lx_p9_destroy(struct lx_p9_clnt *c);

/** lx_p9_msize() - the negotiated msize */
uint32_t lx_p9_msize(const struct lx_p9_clnt *c);

/** lx_p9_iosize() - the largest Tread/Twrite count: msize - %LX_P9_IOHDRSZ */
uint32_t lx_p9_iosize(const struct lx_p9_clnt *c);

/** lx_p9_root_fid() - the fid attached at connect (do not clunk it) */
uint32_t lx_p9_root_fid(const struct lx_p9_clnt *c);

/** lx_p9_root_qid() - the qid Rattach returned */
struct lx_p9_qid lx_p9_root_qid(const struct lx_p9_clnt *c);

/**
 * lx_p9_loop_fd() - the descriptor a caller-driven 9P session waits on
 * @c: a client created with mode %LX_XPRT_MODE_CALLER
 *
 * Its transport's lx_xprt_loop_fd() (libxprt/xprt.h has the contracts of
 * the four lx_p9_loop_*() functions: events, threads, return values).
 * Context: any thread; no locks.
 * Return: the descriptor; %-EINVAL for a threaded client.
 */
int lx_p9_loop_fd(const struct lx_p9_clnt *c);

/**
 * lx_p9_loop_events() - lx_xprt_loop_events() of @c's transport
 * Context: the owner thread.
 * Return: the poll(2) events to wait for; 0 for a threaded client.
 */
unsigned int lx_p9_loop_events(const struct lx_p9_clnt *c);

/**
 * lx_p9_loop_service() - do what is due; done() callbacks run inside
 * (lx_xprt_loop_service() of @c's transport)
 * Context: the owner thread only; not from a done() callback.
 * Return: the requests it completed, as lx_xprt_loop_service();
 * %-EINVAL for a threaded client.
 */
int lx_p9_loop_service(struct lx_p9_clnt *c, unsigned int revents);

/**
 * lx_p9_loop_run() - wait and service @c until @until is done,
 * @min_done callbacks ran, or @deadline_ns (CLOCK_MONOTONIC); with
 * neither a call nor a count until nothing is in flight
 * (lx_xprt_loop_run() of @c's transport)
 * Context: the owner thread; not from a done() callback; blocks.
 * Return: the requests completed meanwhile; %-ETIMEDOUT at
 * @deadline_ns; %-EINVAL for a threaded client.
 */
int lx_p9_loop_run(struct lx_p9_clnt *c, struct lx_call *until,
		   unsigned int min_done, uint64_t deadline_ns);

/** lx_p9_xprt() - the transport (stats, fault injection) */
struct lx_xprt *lx_p9_xprt(const struct lx_p9_clnt *c);

/** lx_p9_stats() - snapshot of the counters */
void lx_p9_stats(const struct lx_p9_clnt *c, struct lx_p9_stats *st);

/**
 * lx_p9_fid_alloc() - reserve a fid number below the ceiling
 * Context: any, never blocks.
 * Return: %0; %-ENFILE when all are in use; %-EINVAL.
 */
int lx_p9_fid_alloc(struct lx_p9_clnt *c, uint32_t *fid);

/**
 * lx_p9_fid_free() - give back a fid the server does not know (a walk to it
 * failed or never ran).  lx_p9_clunk() and lx_p9_remove() free their fid.
 * Return: %0; %-EINVAL when @fid is not allocated.
 */
int lx_p9_fid_free(struct lx_p9_clnt *c, uint32_t fid);

/* ----------------------------------------------------- generic calls */

/**
 * struct lx_p9_call_opts - per-call options (all optional)
 * @timeout_ms: overrides the client's (0 = the client's)
 * @rdata: for Tread/Treaddir: where the reply's data lands (at least
 *	the request's count bytes); NULL leaves it in the reply buffer
 *
 * An asynchronous call's fairness owner and %LX_CALL_NOWAIT are its call
 * object's (struct lx_call.owner, .flags).
 */
struct lx_p9_call_opts {
	unsigned int timeout_ms;
	void *rdata;
};

/**
 * lx_p9_call_async() - send any T-message
 * @c: the client
 * @call: the call object (libxprt/call.h).  In its done() @call->res is
 *	the decoded reply (a const struct lx_p9_fcall *; strings and data
 *	point into the reply buffer, valid only while done() runs; NULL on
 *	error), @call->proto_status the errno of an Rlerror (the status is
 *	then its negation) and @call->count the count of an Rread, Rreaddir
 *	or Rwrite.
 * @tx: the message (its tag is set by the client; Twrite data is sent from
 *	tx->u.twrite.data, which must stay valid until completion)
 * @o: options or NULL
 *
 * lx_call_cancel() flushes the call (Tflush): see "Flush" at the top of
 * this header.
 * Context: may block for a free slot unless %LX_CALL_NOWAIT.
 * Return: %0; %-EINVAL (no done, a bad message, Tversion or Tflush);
 * %-EMSGSIZE; %-EBUSY (%LX_CALL_NOWAIT and no slot or buffer free);
 * %-ENOTCONN; %-ESHUTDOWN.  done() is not called on error.
 */
int lx_p9_call_async(struct lx_p9_clnt *c, struct lx_call *call,
		     const struct lx_p9_fcall *tx,
		     const struct lx_p9_call_opts *o);

/**
 * lx_p9_call() - send any T-message and wait for the reply
 * @rx: the decoded reply; its strings and data point into @rbuf
 * @rbuf: where the reply message is copied (msize bytes hold any reply);
 *	NULL when the caller needs no pointer of @rx (its strings and data
 *	are then not valid)
 * @rbuf_len: its size; a reply that does not fit fails with %-EMSGSIZE
 *
 * Context: blocks; not from a callback.
 * Return: 0 or a negative errno (a server error is its errno).
 */
int lx_p9_call(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
	       const struct lx_p9_call_opts *o, struct lx_p9_fcall *rx,
	       void *rbuf, size_t rbuf_len);

/* ------------------------------------------------- async data path */

/**
 * lx_p9_read_async() - Tread into the caller's buffer
 * @c: the client
 * @call: the call object: done(call, status, arg) runs once, with
 *	@call->count the bytes read (0 at end of file)
 * @fid: an open fid
 * @offset: file offset
 * @count: bytes wanted; clamped to the fid's iounit (msize - 24 when the
 *	server said 0), so a read may be short
 * @buf: destination of @count bytes; the data is read into it straight
 *	from the socket and never past @count
 *
 * No allocation.  lx_call_cancel() flushes it.
 * Context: may block for a slot unless %LX_CALL_NOWAIT (required from a
 * completion callback).
 * Return: %0; %-EINVAL; %-EBUSY; %-ENOTCONN; %-ESHUTDOWN.
 */
int lx_p9_read_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		     uint64_t offset, uint32_t count, void *buf);

/**
 * lx_p9_write_async() - Twrite from the caller's buffer (kept unchanged until
 * completion); @call->count the bytes written; as lx_p9_read_async()
 */
int lx_p9_write_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		      uint64_t offset, uint32_t count, const void *buf);

/**
 * lx_p9_fsync_async() - Tfsync: make what was written through @fid durable
 * @c: the client
 * @call: the call object: done(call, status, arg) runs once, status 0 when
 *	the server answered Rfsync, or minus the errno of its Rlerror
 * @fid: an open fid
 * @datasync: true: only the data and what is needed to read it back
 *	(fdatasync(2)); false: the metadata too (fsync(2))
 *
 * The server syncs the file, not the fid: writes through other fids of
 * the same file are made durable too (diod and ganesha call fsync(2) or
 * fdatasync(2) on their open file).  One buffer and one slot, no other
 * allocation.  lx_call_cancel() flushes it.
 * Context: may block for a slot unless %LX_CALL_NOWAIT (required from a
 * completion callback).
 * Return: %0; %-EINVAL (no @c, no done, flags other than %LX_CALL_NOWAIT);
 * %-EBUSY (%LX_CALL_NOWAIT and no slot or buffer free: retry later or
 * without it); %-ENOTCONN; %-ESHUTDOWN.  done() is not called on error.
 */
int lx_p9_fsync_async(struct lx_p9_clnt *c, struct lx_call *call, uint32_t fid,
		      bool datasync);

/* ---------------------------------------------- one call per message */

/* All sync: context blocks, not from a callback; return 0 or -errno. */

/** lx_p9_auth() - Tauth (both test servers refuse it) */
int lx_p9_auth(struct lx_p9_clnt *c, uint32_t afid, const char *uname,
	       const char *aname, uint32_t n_uname, struct lx_p9_qid *aqid);
/** lx_p9_attach() - Tattach another tree or user on the session */
int lx_p9_attach(struct lx_p9_clnt *c, uint32_t fid, uint32_t afid,
		 const char *uname, const char *aname, uint32_t n_uname,
		 struct lx_p9_qid *qid);
/**
 * lx_p9_walk() - Twalk @nwname (<= 16) names from @fid to @newfid
 * @nwqid: qids returned; fewer than @nwname means the walk stopped there
 *	and @newfid was not created
 * @wqids: room for @nwname qids, or NULL
 *
 * On a server error (or a partial walk) @newfid is still the caller's to
 * reuse or lx_p9_fid_free().  On a local error after which the server may
 * still have created it (timeout without Rflush, lost connection, garbage
 * reply) the client keeps @newfid out of use for the rest of the session:
 * do not use or free it.  The same holds for lx_p9_xattrwalk().
 */
int lx_p9_walk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
	       unsigned int nwname, const char *const *wnames,
	       unsigned int *nwqid, struct lx_p9_qid *wqids);
/** lx_p9_lopen() - Tlopen; the iounit is remembered for the fid */
int lx_p9_lopen(struct lx_p9_clnt *c, uint32_t fid, uint32_t flags,
		struct lx_p9_qid *qid, uint32_t *iounit);
/** lx_p9_lcreate() - Tlcreate: @fid (a directory) becomes the new file */
int lx_p9_lcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		  uint32_t flags, uint32_t mode, uint32_t gid,
		  struct lx_p9_qid *qid, uint32_t *iounit);
/** lx_p9_read() - one Tread (count clamped to the iounit) */
int lx_p9_read(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
	       uint32_t count, void *buf, uint32_t *nread);
/** lx_p9_write() - one Twrite (count clamped to the iounit) */
int lx_p9_write(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		uint32_t count, const void *buf, uint32_t *nwritten);
/** lx_p9_clunk() - Tclunk; the fid is freed once the server answered */
int lx_p9_clunk(struct lx_p9_clnt *c, uint32_t fid);
/** lx_p9_remove() - Tremove; the fid is freed once the server answered */
int lx_p9_remove(struct lx_p9_clnt *c, uint32_t fid);
/** lx_p9_getattr() - Tgetattr */
int lx_p9_getattr(struct lx_p9_clnt *c, uint32_t fid, uint64_t mask,
		  struct lx_p9_attr *attr);
/** lx_p9_setattr() - Tsetattr */
int lx_p9_setattr(struct lx_p9_clnt *c, uint32_t fid,
		  const struct lx_p9_iattr *ia);
/**
 * lx_p9_readdir() - one Treaddir into @buf; parse with lx_p9_dirent_next()
 * @count: room at @buf (clamped to the iounit)
 * @nbytes: bytes of entries returned (0 at the end of the directory)
 */
int lx_p9_readdir(struct lx_p9_clnt *c, uint32_t fid, uint64_t offset,
		  uint32_t count, void *buf, uint32_t *nbytes);
/** lx_p9_fsync() - Tfsync; as lx_p9_fsync_async(), waiting for the reply */
int lx_p9_fsync(struct lx_p9_clnt *c, uint32_t fid, bool datasync);
/** lx_p9_mkdir() - Tmkdir */
int lx_p9_mkdir(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t gid, struct lx_p9_qid *qid);
/** lx_p9_unlinkat() - Tunlinkat (diod refuses it: EOPNOTSUPP) */
int lx_p9_unlinkat(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		   uint32_t flags);
/** lx_p9_renameat() - Trenameat */
int lx_p9_renameat(struct lx_p9_clnt *c, uint32_t olddfid, const char *oldname,
		   uint32_t newdfid, const char *newname);
/** lx_p9_statfs() - Tstatfs */
int lx_p9_statfs(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_statfs *st);
/** lx_p9_symlink() - Tsymlink */
int lx_p9_symlink(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		  const char *target, uint32_t gid, struct lx_p9_qid *qid);
/** lx_p9_mknod() - Tmknod */
int lx_p9_mknod(struct lx_p9_clnt *c, uint32_t dfid, const char *name,
		uint32_t mode, uint32_t major, uint32_t minor, uint32_t gid,
		struct lx_p9_qid *qid);
/** lx_p9_rename() - Trename */
int lx_p9_rename(struct lx_p9_clnt *c, uint32_t fid, uint32_t dfid,
		 const char *name);
/**
 * lx_p9_readlink() - Treadlink; the target is copied NUL-terminated into
 * @buf.  Return: 0; -ENAMETOOLONG when it does not fit @len; ...
 */
int lx_p9_readlink(struct lx_p9_clnt *c, uint32_t fid, char *buf, size_t len);
/** lx_p9_link() - Tlink: a hard link @name in @dfid to @fid */
int lx_p9_link(struct lx_p9_clnt *c, uint32_t dfid, uint32_t fid,
	       const char *name);
/** lx_p9_lock() - Tlock; @status gets LX_P9_LOCK_SUCCESS... */
int lx_p9_lock(struct lx_p9_clnt *c, uint32_t fid, const struct lx_p9_flock *fl,
	       uint8_t *status);
/**
 * lx_p9_getlock() - Tgetlock; @gl in: the lock to test, out: the conflicting
 * one (type LX_P9_LOCK_TYPE_UNLCK when none); its client_id is copied into
 * @idbuf (NUL-terminated, @idlen bytes) and points there
 */
int lx_p9_getlock(struct lx_p9_clnt *c, uint32_t fid, struct lx_p9_getlock *gl,
		  char *idbuf, size_t idlen);
/** lx_p9_xattrwalk() - Txattrwalk; @size gets the attribute's size */
int lx_p9_xattrwalk(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
		    const char *name, uint64_t *size);
/** lx_p9_xattrcreate() - Txattrcreate; then Twrite the value and clunk */
int lx_p9_xattrcreate(struct lx_p9_clnt *c, uint32_t fid, const char *name,
		      uint64_t size, uint32_t flags);

/* ------------------------------------------------------- path helpers */

/* Paths are relative to the root fid; leading, trailing and repeated
 * slashes are ignored; "" and "/" name the root.  Components "." and ".."
 * are passed to the server as they are. */

/**
 * lx_p9_walk_path() - walk @path from @fid (LX_P9_NOFID: the root) to a new fid
 * @newfid: receives the fid (allocated here; clunk it when done)
 * @qid: optional; the qid of the last component (of @fid for "")
 * Walks 16 components per Twalk.  Return: 0; -ENOENT when a component
 * is missing (nothing is left allocated); -ENFILE; a server error.
 */
int lx_p9_walk_path(struct lx_p9_clnt *c, uint32_t fid, const char *path,
		    uint32_t *newfid, struct lx_p9_qid *qid);

/**
 * lx_p9_open_path() - open (and with O_CREAT create) a file
 * @flags: Linux open flags (O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC...)
 * @mode: permissions for a created file
 * @fid: receives the open fid (clunk it when done)
 * @iounit: optional; the server's iounit (0 = msize - 24 applies)
 * With O_CREAT|O_EXCL an existing file is -EEXIST (checked by a walk
 * first: ganesha's Tlcreate ignores O_EXCL).
 */
int lx_p9_open_path(struct lx_p9_clnt *c, const char *path, uint32_t flags,
		    uint32_t mode, uint32_t *fid, uint32_t *iounit);

/**
 * lx_p9_pread() - read @len bytes at @offset, split at the iounit, with up
 * to 16 Treads in flight
 * @nread: bytes read; less than @len only at the end of the file
 */
int lx_p9_pread(struct lx_p9_clnt *c, uint32_t fid, void *buf, size_t len,
		uint64_t offset, size_t *nread);

/**
 * lx_p9_pwrite() - write @len bytes at @offset, split and pipelined as
 * lx_p9_pread()
 * @nwritten: bytes written (the server may write less)
 */
int lx_p9_pwrite(struct lx_p9_clnt *c, uint32_t fid, const void *buf,
		 size_t len, uint64_t offset, size_t *nwritten);

/** struct lx_p9_dir - directory iteration state, see lx_p9_opendir() */
struct lx_p9_dir;

/**
 * lx_p9_opendir() - open the directory @path for lx_p9_readdir_next()
 * Return: 0; -ENOTDIR; -ENOENT; -ENOMEM...
 */
int lx_p9_opendir(struct lx_p9_clnt *c, const char *path,
		  struct lx_p9_dir **dp);

/**
 * lx_p9_readdir_next() - the next entry ("." and ".." included, as the
 * server sends them)
 * @dir: the listing, from lx_p9_opendir()
 * @d: the entry; its name is valid until the next call
 *
 * The name is passed on as the server sent it, @d->name.len bytes: it is
 * not NUL-terminated and may hold bytes no local file name can (a NUL, a
 * '/', a whole "../x"), which a caller printing or using it as a path
 * must escape or refuse.  Offsets are the server's opaque cookies; a
 * reply whose last offset is the one asked for, 0, or one this listing
 * was handed before would make the listing loop, and is refused before
 * any of its entries is delivered.
 * Context: blocks for a Treaddir round trip when its entries are used up.
 * Return: %1 with an entry; %0 at the end; %-ELOOP when the server's
 * offsets loop (see above); %-E2BIG past 16 Mi entries in this listing;
 * %-EBADMSG for an entry that runs past its reply; another negative
 * errno of the Treaddir call.  After an error, only lx_p9_closedir().
 */
int lx_p9_readdir_next(struct lx_p9_dir *dir, struct lx_p9_dirent *d);

/** lx_p9_closedir() - clunk and free; NULL is a no-op */
void lx_p9_closedir(struct lx_p9_dir *dir);

/** lx_p9_mkdir_path() - create the directory @path (its parent must exist) */
int lx_p9_mkdir_path(struct lx_p9_clnt *c, const char *path, uint32_t mode);

/**
 * lx_p9_remove_path() - remove a file or an empty directory
 * Tunlinkat from the parent (AT_REMOVEDIR for a directory); when the
 * server refuses it with EOPNOTSUPP (diod), Twalk + Tremove instead.
 */
int lx_p9_remove_path(struct lx_p9_clnt *c, const char *path);

/** lx_p9_stat_path() - Tgetattr of @path */
int lx_p9_stat_path(struct lx_p9_clnt *c, const char *path, uint64_t mask,
		    struct lx_p9_attr *attr);

/** lx_p9_statfs_path() - Tstatfs of @path */
int lx_p9_statfs_path(struct lx_p9_clnt *c, const char *path,
		      struct lx_p9_statfs *st);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_P9_H */
