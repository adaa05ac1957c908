/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt NFSv3 client (RFC 1813): the MOUNT v3 protocol, all 22 NFSv3
 * procedures, and helpers (mount by export path, lookup by path, files
 * with split pread/pwrite, UNSTABLE writes + COMMIT with write-verifier
 * checking, READDIRPLUS iteration), on the SunRPC client of rpc.h.
 *
 * Memory: no procedure allocates.  Results are decoded into structs the
 * caller provides; variable-length results (READLINK, READDIR,
 * READDIRPLUS, MOUNT DUMP/EXPORT) go into arrays and string buffers the
 * caller provides.  READ data lands straight in the caller's memory (the
 * transport reads it there); WRITE data goes out from it.  An async call
 * keeps its state in a struct lx_call the caller owns (libxprt/call.h).
 *
 * Threads: a client is thread-safe.  Sync calls block the calling thread
 * and must not be made from a completion callback.  Async completions run
 * on a transport receive thread and must not block; to start a call from
 * a callback, set %LX_CALL_NOWAIT and hand the work to a thread of your
 * own on -EBUSY.  A call that fails to start (non-zero return) never
 * invokes its callback.
 *
 * Errors: every function returns 0 or a negative errno.  Transport and RPC
 * errors are those of rpc.h (-ETIMEDOUT, -EACCES for refused credentials,
 * -EPFNOSUPPORT for a server that does not run the program, ...).  A reply
 * that fails to decode is -EBADMSG, or a more precise code where the
 * library knows better:
 *   %-EOVERFLOW   a READ reply carrying more data than asked (nothing is
 *                 written past the caller's buffer)
 *   %-E2BIG       a READDIR/READDIRPLUS/DUMP/EXPORT reply with more
 *                 entries or string bytes than the caller's arrays hold
 *   %-ENAMETOOLONG a name longer than %LX_NFS3_MAXNAMLEN or a path longer
 *                 than %LX_NFS3_MAXPATHLEN (in a reply or in the arguments)
 *   %-ELOOP       directory iteration: a cookie loop or no progress
 *   %-EMSGSIZE    the reply does not fit the client's buffers (buf_size)
 *
 * NFS and MOUNT status codes map to errnos as below; the status itself is
 * in the result struct's @status field (and in struct lx_call's
 * @proto_status for async calls):
 *
 *   LX_NFS3_OK / LX_MNT3_OK          0
 *   LX_NFS3ERR_PERM        1      -EPERM
 *   LX_NFS3ERR_NOENT       2      -ENOENT
 *   LX_NFS3ERR_IO          5      -EIO
 *   LX_NFS3ERR_NXIO        6      -ENXIO
 *   LX_NFS3ERR_ACCES       13     -EACCES
 *   LX_NFS3ERR_EXIST       17     -EEXIST
 *   LX_NFS3ERR_XDEV        18     -EXDEV
 *   LX_NFS3ERR_NODEV       19     -ENODEV
 *   LX_NFS3ERR_NOTDIR      20     -ENOTDIR
 *   LX_NFS3ERR_ISDIR       21     -EISDIR
 *   LX_NFS3ERR_INVAL       22     -EINVAL
 *   LX_NFS3ERR_FBIG        27     -EFBIG
 *   LX_NFS3ERR_NOSPC       28     -ENOSPC
 *   LX_NFS3ERR_ROFS        30     -EROFS
 *   LX_NFS3ERR_MLINK       31     -EMLINK
 *   LX_NFS3ERR_NAMETOOLONG 63     -ENAMETOOLONG
 *   LX_NFS3ERR_NOTEMPTY    66     -ENOTEMPTY
 *   LX_NFS3ERR_DQUOT       69     -EDQUOT
 *   LX_NFS3ERR_STALE       70     -ESTALE
 *   LX_NFS3ERR_REMOTE      71     -EREMOTE
 *   LX_NFS3ERR_BADHANDLE   10001  -EBADF     (handle not understood)
 *   LX_NFS3ERR_NOT_SYNC    10002  -EBUSY     (SETATTR guard: ctime changed)
 *   LX_NFS3ERR_BAD_COOKIE  10003  -EILSEQ    (directory cookie invalid)
 *   LX_NFS3ERR_NOTSUPP     10004  -ENOTSUP
 *   LX_NFS3ERR_TOOSMALL    10005  -ERANGE    (READDIR count too small)
 *   LX_NFS3ERR_SERVERFAULT 10006  -EREMOTEIO
 *   LX_NFS3ERR_BADTYPE     10007  -EPROTOTYPE (object type not supported)
 *   LX_NFS3ERR_JUKEBOX     10008  -EAGAIN    (busy, try again later: the
 *                                          client already retried it
 *                                          opts.jukebox_retries times,
 *                                          jukebox_delay_ms apart; only
 *                                          ever a completion status or
 *                                          the return of a sync call)
 *   anything else              -EREMOTEIO
 * MOUNT's mountstat3 values are a subset (LX_MNT3ERR_NOENT 2 -> -ENOENT,
 * LX_MNT3ERR_ACCES 13 -> -EACCES, LX_MNT3ERR_NOTSUPP 10004 -> -ENOTSUP, ...).
 */
#ifndef LIBXPRT_NFS3_H
#define LIBXPRT_NFS3_H

#include <fcntl.h> /* the open flags the calls take: O_CREAT... */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "call.h"
#include "rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LX_NFS3_PROGRAM	       100003u
#define LX_NFS3_VERSION	       3u
#define LX_MOUNT3_PROGRAM      100005u
#define LX_MOUNT3_VERSION      3u
#define LX_NFS3_FHSIZE	       64u   /* RFC 1813 FHSIZE3 */
#define LX_NFS3_VERFSIZE       8u    /* cookie, create and write verifiers */
#define LX_NFS3_MAXNAMLEN      255u  /* longest name this client accepts */
#define LX_NFS3_MAXPATHLEN     1024u /* MOUNT's MNTPATHLEN, READLINK/SYMLINK */
#define LX_NFS3_MAX_IOV	       7u    /* WRITE payload segments per call */
#define LX_NFS3_MAX_SIZE_FIELD 0x7fffffffu

/* NFSv3 procedures (RFC 1813 section 3) */
enum lx_nfs3_proc {
	LX_NFS3PROC_NULL = 0,
	LX_NFS3PROC_GETATTR = 1,
	LX_NFS3PROC_SETATTR = 2,
	LX_NFS3PROC_LOOKUP = 3,
	LX_NFS3PROC_ACCESS = 4,
	LX_NFS3PROC_READLINK = 5,
	LX_NFS3PROC_READ = 6,
	LX_NFS3PROC_WRITE = 7,
	LX_NFS3PROC_CREATE = 8,
	LX_NFS3PROC_MKDIR = 9,
	LX_NFS3PROC_SYMLINK = 10,
	LX_NFS3PROC_MKNOD = 11,
	LX_NFS3PROC_REMOVE = 12,
	LX_NFS3PROC_RMDIR = 13,
	LX_NFS3PROC_RENAME = 14,
	LX_NFS3PROC_LINK = 15,
	LX_NFS3PROC_READDIR = 16,
	LX_NFS3PROC_READDIRPLUS = 17,
	LX_NFS3PROC_FSSTAT = 18,
	LX_NFS3PROC_FSINFO = 19,
	LX_NFS3PROC_PATHCONF = 20,
	LX_NFS3PROC_COMMIT = 21,
	LX_NFS3PROC_COUNT = 22,
};

/* MOUNT v3 procedures (RFC 1813 section 5) */
enum lx_mount3_proc {
	LX_MOUNT3PROC_NULL = 0,
	LX_MOUNT3PROC_MNT = 1,
	LX_MOUNT3PROC_DUMP = 2,
	LX_MOUNT3PROC_UMNT = 3,
	LX_MOUNT3PROC_UMNTALL = 4,
	LX_MOUNT3PROC_EXPORT = 5,
};

enum lx_nfs3_stat {
	LX_NFS3_OK = 0,
	LX_NFS3ERR_PERM = 1,
	LX_NFS3ERR_NOENT = 2,
	LX_NFS3ERR_IO = 5,
	LX_NFS3ERR_NXIO = 6,
	LX_NFS3ERR_ACCES = 13,
	LX_NFS3ERR_EXIST = 17,
	LX_NFS3ERR_XDEV = 18,
	LX_NFS3ERR_NODEV = 19,
	LX_NFS3ERR_NOTDIR = 20,
	LX_NFS3ERR_ISDIR = 21,
	LX_NFS3ERR_INVAL = 22,
	LX_NFS3ERR_FBIG = 27,
	LX_NFS3ERR_NOSPC = 28,
	LX_NFS3ERR_ROFS = 30,
	LX_NFS3ERR_MLINK = 31,
	LX_NFS3ERR_NAMETOOLONG = 63,
	LX_NFS3ERR_NOTEMPTY = 66,
	LX_NFS3ERR_DQUOT = 69,
	LX_NFS3ERR_STALE = 70,
	LX_NFS3ERR_REMOTE = 71,
	LX_NFS3ERR_BADHANDLE = 10001,
	LX_NFS3ERR_NOT_SYNC = 10002,
	LX_NFS3ERR_BAD_COOKIE = 10003,
	LX_NFS3ERR_NOTSUPP = 10004,
	LX_NFS3ERR_TOOSMALL = 10005,
	LX_NFS3ERR_SERVERFAULT = 10006,
	LX_NFS3ERR_BADTYPE = 10007,
	LX_NFS3ERR_JUKEBOX = 10008,
};

enum lx_mount3_stat {
	LX_MNT3_OK = 0,
	LX_MNT3ERR_PERM = 1,
	LX_MNT3ERR_NOENT = 2,
	LX_MNT3ERR_IO = 5,
	LX_MNT3ERR_ACCES = 13,
	LX_MNT3ERR_NOTDIR = 20,
	LX_MNT3ERR_INVAL = 22,
	LX_MNT3ERR_NAMETOOLONG = 63,
	LX_MNT3ERR_NOTSUPP = 10004,
	LX_MNT3ERR_SERVERFAULT = 10006,
};

enum lx_nfs3_ftype {
	NF3REG = 1,
	NF3DIR = 2,
	NF3BLK = 3,
	NF3CHR = 4,
	NF3LNK = 5,
	NF3SOCK = 6,
	NF3FIFO = 7,
};

enum lx_nfs3_stable_how {
	LX_NFS3_UNSTABLE = 0,
	LX_NFS3_DATA_SYNC = 1,
	LX_NFS3_FILE_SYNC = 2,
};

enum lx_nfs3_createmode {
	LX_NFS3_CREATE_UNCHECKED = 0,
	LX_NFS3_CREATE_GUARDED = 1,
	LX_NFS3_CREATE_EXCLUSIVE = 2,
};

enum lx_nfs3_time_how {
	LX_NFS3_DONT_CHANGE = 0,
	LX_NFS3_SET_TO_SERVER_TIME = 1,
	LX_NFS3_SET_TO_CLIENT_TIME = 2,
};

/* ACCESS bits */
#define LX_NFS3_ACCESS_READ	0x01u
#define LX_NFS3_ACCESS_LOOKUP	0x02u
#define LX_NFS3_ACCESS_MODIFY	0x04u
#define LX_NFS3_ACCESS_EXTEND	0x08u
#define LX_NFS3_ACCESS_DELETE	0x10u
#define LX_NFS3_ACCESS_EXECUTE	0x20u

/* FSINFO properties */
#define LX_NFS3_FSF_LINK	0x01u
#define LX_NFS3_FSF_SYMLINK	0x02u
#define LX_NFS3_FSF_HOMOGENEOUS 0x08u
#define LX_NFS3_FSF_CANSETTIME	0x10u

/**
 * struct lx_nfs3_fh - a file handle: at most %LX_NFS3_FHSIZE bytes, inline
 * @len: bytes used in @data (a reply with a longer handle is refused)
 */
struct lx_nfs3_fh {
	uint32_t len;
	uint8_t data[LX_NFS3_FHSIZE];
};

struct lx_nfs3_time {
	uint32_t sec;
	uint32_t nsec;
};

/** struct lx_nfs3_fattr - fattr3 */
struct lx_nfs3_fattr {
	uint32_t type; /* enum lx_nfs3_ftype */
	uint32_t mode, nlink, uid, gid;
	uint64_t size, used;
	uint32_t rdev_major, rdev_minor;
	uint64_t fsid, fileid;
	struct lx_nfs3_time atime, mtime, ctime;
};

/** struct lx_nfs3_post_attr - post_op_attr: attributes when @present */
struct lx_nfs3_post_attr {
	bool present;
	struct lx_nfs3_fattr attr;
};

/** struct lx_nfs3_wcc - wcc_data: size and times before, attributes after */
struct lx_nfs3_wcc {
	bool before_present;
	uint64_t before_size;
	struct lx_nfs3_time before_mtime, before_ctime;
	struct lx_nfs3_post_attr after;
};

/**
 * struct lx_nfs3_sattr - sattr3: what SETATTR/CREATE/MKDIR... set
 * @atime_how, @mtime_how: enum lx_nfs3_time_how (0 = leave alone)
 */
struct lx_nfs3_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode, uid, gid;
	uint64_t size;
	uint32_t atime_how, mtime_how;
	struct lx_nfs3_time atime, mtime;
};

/* ---------------------------------------------------------------- results
 * Every result struct starts with @status (enum lx_nfs3_stat, or enum
 * lx_mount3_stat for MOUNT).  Fields after it are valid as RFC 1813 says for
 * that status: the "resok" fields when it is LX_NFS3_OK, the attributes and
 * wcc data that both arms carry in any case.
 */

struct lx_nfs3_getattr_res {
	uint32_t status;
	struct lx_nfs3_fattr attr;
};

/* SETATTR, REMOVE, RMDIR */
struct lx_nfs3_wcc_res {
	uint32_t status;
	struct lx_nfs3_wcc wcc;
};

struct lx_nfs3_lookup_res {
	uint32_t status;
	struct lx_nfs3_fh fh;
	struct lx_nfs3_post_attr attr;
	struct lx_nfs3_post_attr dir_attr;
};

struct lx_nfs3_access_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint32_t access;
};

/* READLINK: the target goes into the caller's buffer, NUL-terminated */
struct lx_nfs3_readlink_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint32_t len;
};

/* READ: the data goes into the caller's buffer */
struct lx_nfs3_read_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint32_t count;
	bool eof;
};

struct lx_nfs3_write_res {
	uint32_t status;
	struct lx_nfs3_wcc wcc;
	uint32_t count;
	uint32_t committed; /* enum lx_nfs3_stable_how */
	uint8_t verf[LX_NFS3_VERFSIZE];
};

/* CREATE, MKDIR, SYMLINK, MKNOD */
struct lx_nfs3_create_res {
	uint32_t status;
	bool fh_present;
	struct lx_nfs3_fh fh;
	struct lx_nfs3_post_attr attr;
	struct lx_nfs3_wcc dir_wcc;
};

struct lx_nfs3_rename_res {
	uint32_t status;
	struct lx_nfs3_wcc from_wcc, to_wcc;
};

struct lx_nfs3_link_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	struct lx_nfs3_wcc dir_wcc;
};

/**
 * struct lx_nfs3_dirent - one READDIR/READDIRPLUS entry
 * @name: NUL-terminated, in the caller's name buffer; the @namelen bytes
 *	the server sent, passed on as they are: they may hold a NUL (then
 *	strlen() stops short of @namelen), a '/' or a whole "../x", which
 *	no local file name can, so a caller printing a name or using it as
 *	a path must use @namelen and escape or refuse such names
 * @namelen: its length
 * @attr, @fh_present, @fh: READDIRPLUS only
 */
struct lx_nfs3_dirent {
	uint64_t fileid;
	uint64_t cookie;
	const char *name;
	uint32_t namelen;
	struct lx_nfs3_post_attr attr;
	bool fh_present;
	struct lx_nfs3_fh fh;
};

/**
 * struct lx_nfs3_dirbuf - where READDIR/READDIRPLUS put their entries
 * @ent, @cap: entry array and its size (set by the caller)
 * @names, @names_size: name storage (set by the caller); a reply of
 *	maxcount bytes never needs more than maxcount bytes here
 * READDIR needs at most count / 24 entries, READDIRPLUS maxcount / 32.
 */
struct lx_nfs3_dirbuf {
	struct lx_nfs3_dirent *ent;
	unsigned int cap;
	char *names;
	size_t names_size;
};

struct lx_nfs3_readdir_res {
	uint32_t status;
	struct lx_nfs3_post_attr dir_attr;
	uint8_t cookieverf[LX_NFS3_VERFSIZE];
	unsigned int n; /* entries stored in the dirbuf */
	bool eof;
};

struct lx_nfs3_fsstat_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint64_t tbytes, fbytes, abytes, tfiles, ffiles, afiles;
	uint32_t invarsec;
};

struct lx_nfs3_fsinfo_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint32_t rtmax, rtpref, rtmult, wtmax, wtpref, wtmult, dtpref;
	uint64_t maxfilesize;
	struct lx_nfs3_time time_delta;
	uint32_t properties;
};

struct lx_nfs3_pathconf_res {
	uint32_t status;
	struct lx_nfs3_post_attr attr;
	uint32_t linkmax, name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

struct lx_nfs3_commit_res {
	uint32_t status;
	struct lx_nfs3_wcc wcc;
	uint8_t verf[LX_NFS3_VERFSIZE];
};

/* MOUNT results */
#define LX_NFS3_MNT_MAX_FLAVORS 8u

struct lx_nfs3_mnt_res {
	uint32_t status; /* enum lx_mount3_stat */
	struct lx_nfs3_fh fh;
	unsigned int nflavors; /* beyond LX_NFS3_MNT_MAX_FLAVORS: dropped */
	uint32_t flavors[LX_NFS3_MNT_MAX_FLAVORS];
};

/**
 * struct lx_nfs3_mnt_list - DUMP and EXPORT results
 * @host, @dir: set by the decoder; each entry is (host, dir) for DUMP and
 *	(groups, dir) for EXPORT, where @host then holds the export's
 *	groups joined by spaces ("" = everyone)
 * @cap, @strbuf, @strsize: set by the caller
 * @n: entries stored
 */
struct lx_nfs3_mnt_entry {
	const char *host;
	const char *dir;
};

struct lx_nfs3_mnt_list {
	uint32_t status; /* always LX_MNT3_OK: DUMP and EXPORT have no status */
	struct lx_nfs3_mnt_entry *ent;
	unsigned int cap;
	char *strbuf;
	size_t strsize;
	unsigned int n;
};

/* ----------------------------------------------------------- async calls
 * Every *_async() function takes a struct lx_call (libxprt/call.h) that the
 * caller owns: done, arg, owner and flags (%LX_CALL_NOWAIT) set by the
 * caller; in done() @call->res is the result struct the call was given,
 * @call->proto_status the reply's NFS or MOUNT status (when a reply was
 * decoded) and @call->count the bytes a READ or WRITE moved (res->count).
 * done() gets 0 or a negative errno: an NFS/MOUNT error mapped as in the
 * table above, or an RPC or transport error.  lx_call_cancel() works on
 * every one of them.
 */

/* ---------------------------------------------------------------- client */

struct lx_nfs3_clnt;

#define LX_NFS3_JUKEBOX_FOREVER (~0u)

/**
 * struct lx_nfs3_opts - how to reach the server
 * @host: server name or address (required)
 * @export_path: the export, e.g. "/export": lx_nfs3_create() asks MOUNT v3
 *	for its root handle (MNT)
 * @root: instead of @export_path, the root handle when it is known
 *	already (no MOUNT call; copied)
 * @nfs_port, @mount_port: 0 = ask the server's rpcbind (over RDMA an
 *	unset @nfs_port is %LX_XPRT_RDMA_NFS_PORT, 20049: rpcbind maps TCP)
 * @transport: %LX_XPRT_TRANSPORT_TCP (default) or %LX_XPRT_TRANSPORT_RDMA: NFS
 *	calls over RPC-over-RDMA version 1 (READ data through Write chunks,
 *	WRITE data through Read chunks, large directory replies through
 *	Reply chunks); MOUNT is always over TCP
 * @rdma: RDMA transport options for the NFS connections (a struct
 *	lx_xprt_rdma_opts, libxprt/rdma.h; copied), NULL for the defaults
 * @nconnect: connections to the NFS service (1 .. 16, default 1)
 * @max_reqs: calls in flight per connection (default 64)
 * @max_in_flight: calls sent and not yet answered per connection, at
 *	most this many (0: @max_reqs); the others wait in the transmit
 *	queue, in its order (@xmit_fifo), as behind RDMA's credits
 * @uid, @gid: AUTH_SYS identity (default: the process's own ids; set
 *	@set_ids to use these)
 * @auth_none: use AUTH_NONE (most servers refuse it; ganesha does)
 * @timeo_ms, @retrans: RPC timeout and retransmissions (rpc.h defaults)
 * @buf_size: per-call header buffer: bounds call arguments and non-bulk
 *	replies, READDIR(PLUS) replies included (default 16384; READ and
 *	WRITE data never count)
 * @rsize, @wsize: cap on the server's rtmax/wtmax (0 = take the server's)
 * @errmsg, @errmsg_len: optional; on failure a one-line explanation is
 *	written there ("export /x does not exist on host:port", ...)
 * @hard: nfs(5)'s hard: calls are retransmitted for ever (see
 *	lx_rpc_opts.hard); default soft: -ETIMEDOUT after @retrans,
 *	-ECONNRESET when the server keeps closing the connection unanswered
 * @xmit_fifo: NFS calls waiting for a connection go out in arrival order
 *	instead of round robin over the submitting threads (see
 *	lx_xprt_opts.xmit_fifo): an ablation of fair queueing
 * @setup_timeout_ms: each step of lx_nfs3_create() - MNT, FSINFO - fails
 *	-ETIMEDOUT after this long without its reply, hard or soft (default
 *	30000), with a message naming the step, the server and what was seen
 * @jukebox_delay_ms: a call answered NFS3ERR_JUKEBOX goes out again,
 *	under a new XID, this long after (default 5000, the Linux v3
 *	client's fixed delay); sync and async calls alike, the async ones
 *	without their callback in between
 * @jukebox_retries: at most this many times per call, then it completes
 *	with -EAGAIN and nfs_status JUKEBOX (default 6: half a minute;
 *	%LX_NFS3_JUKEBOX_FOREVER: as Linux, until the server relents)
 * @pool: a pool to share with other clients (lx_xprt_pool_create() with
 *	buf_size 0, libxprt/pool.h), or NULL for one of the client's own
 *	(its NFS connections take it, MOUNT's short client its own);
 *	it must outlive the client
 * @log, @log_arg: where the client's messages go ("server HOST:PORT not
 *	responding, still trying", "server HOST:PORT OK"), for MOUNT and NFS
 *	connections alike; see lx_xprt_log_fn.  NULL: dropped.
 * @zerocopy: TCP: WRITE payloads of 32 KiB or more go out with
 *	MSG_ZEROCOPY (opt-in, for real NICs; see lx_xprt_opts.zerocopy):
 *	a WRITE then completes once the kernel has let go of its buffer
 * @mode: %LX_XPRT_MODE_THREADED (default) or %LX_XPRT_MODE_CALLER: no
 *	thread of the library's, the creating thread drives the client
 *	(lx_nfs3_loop_service(); libxprt/xprt.h, enum lx_xprt_mode).
 *	lx_nfs3_create() (rpcbind, MOUNT, FSINFO) and the synchronous calls
 *	run the loop themselves; NFS3ERR_JUKEBOX retries wait on the loop's
 *	timer.  With @nconnect > 1 its descriptor is an epoll set of the
 *	connections' (see lx_rpc_opts.mode).  TCP only, without @zerocopy
 *	(%-EOPNOTSUPP).
 */
struct lx_nfs3_opts {
	const char *host;
	const char *export_path;
	const struct lx_nfs3_fh *root;
	uint16_t nfs_port, mount_port;
	enum lx_xprt_transport transport;
	const void *rdma;
	unsigned int nconnect;
	unsigned int max_reqs;
	unsigned int max_in_flight;
	bool set_ids;
	uint32_t uid, gid;
	bool auth_none;
	unsigned int timeo_ms;
	unsigned int retrans;
	size_t buf_size;
	uint32_t rsize, wsize;
	char *errmsg;
	size_t errmsg_len;
	unsigned int jukebox_delay_ms;
	unsigned int jukebox_retries;
	struct lx_xprt_pool *pool;
	bool hard;
	bool xmit_fifo;
	unsigned int setup_timeout_ms;
	lx_xprt_log_fn log;
	void *log_arg;
	bool zerocopy;
	enum lx_xprt_mode mode;
};

/**
 * lx_nfs3_create() - a client of one export: MNT, connect to NFS, FSINFO
 * @cp: receives the client
 * @opts: parameters (copied); exactly one of @export_path and @root
 *
 * With @export_path, asks MOUNT v3 (over TCP, a connection of its own,
 * closed again) for the export's root handle; with @root, takes that.
 * Then creates the NFS RPC client (nconnect connections) and calls FSINFO
 * on the root to learn rtmax, wtmax and dtpref.  Context: blocks.
 * Return: %0; %-EINVAL for bad options (neither or both of @export_path
 * and @root...); %-ENOENT (LX_MNT3ERR_NOENT: no such export); %-EACCES
 * (LX_MNT3ERR_ACCES, or AUTH_SYS refused); %-ENOTDIR; %-EPFNOSUPPORT (the
 * port does not serve MOUNT v3 or NFS v3: wrong server); %-ECONNREFUSED,
 * %-ETIMEDOUT, %-ENOENT (host does not resolve) ...; @opts->errmsg says
 * which step failed.
 */
int lx_nfs3_create(struct lx_nfs3_clnt **cp, const struct lx_nfs3_opts *opts);

/**
 * lx_nfs3_destroy() - fail calls in flight with -ESHUTDOWN, close, free.
 * Open files must be closed first.  Not from a callback.  NULL: no-op.
 */
void lx_nfs3_destroy(struct lx_nfs3_clnt *c);

/**
 * struct lx_nfs3_stats - counters of a client
 * @rpc: its NFS connections (struct lx_rpc_stats: calls, replies,
 *	retransmissions, timeouts, cancels, connections, summed)
 * @nfs_errors: replies whose NFS status was not NFS3_OK
 * @jukebox: of those, NFS3ERR_JUKEBOX (the server asked to try later)
 * @commits, @verf_changes, @resent_bytes: what the files' fsyncs did
 *	(struct lx_nfs3_file_stats, summed over every file of the client)
 */
struct lx_nfs3_stats {
	struct lx_rpc_stats rpc;
	uint64_t nfs_errors, jukebox;
	uint64_t commits, verf_changes, resent_bytes;
};

/** lx_nfs3_stats() - snapshot of @c's counters */
void lx_nfs3_stats(const struct lx_nfs3_clnt *c, struct lx_nfs3_stats *st);

/** lx_nfs3_root() - the export's root handle */
const struct lx_nfs3_fh *lx_nfs3_root(const struct lx_nfs3_clnt *c);

/** lx_nfs3_fsinfo_cached() - FSINFO of the root, as learnt at mount time */
const struct lx_nfs3_fsinfo_res *
lx_nfs3_fsinfo_cached(const struct lx_nfs3_clnt *c);

/** lx_nfs3_rsize(), lx_nfs3_wsize() - READ/WRITE split size in use */
uint32_t lx_nfs3_rsize(const struct lx_nfs3_clnt *c);
uint32_t lx_nfs3_wsize(const struct lx_nfs3_clnt *c);

/** lx_nfs3_dirsize() - READDIRPLUS maxcount the helpers use (fits buf_size) */
uint32_t lx_nfs3_dirsize(const struct lx_nfs3_clnt *c);

/**
 * lx_nfs3_loop_fd() - the descriptor a caller-driven NFSv3 client waits on
 * @c: a client created with mode %LX_XPRT_MODE_CALLER
 *
 * Its transport's lx_xprt_loop_fd() (libxprt/xprt.h has the contracts of
 * the four lx_nfs3_loop_*() functions: events, threads, return values).
 * Context: any thread; no locks.
 * Return: the descriptor; %-EINVAL for a threaded client.
 */
int lx_nfs3_loop_fd(const struct lx_nfs3_clnt *c);

/**
 * lx_nfs3_loop_events() - lx_xprt_loop_events() of @c's transport
 * Context: the owner thread.
 * Return: the poll(2) events to wait for; 0 for a threaded client.
 */
unsigned int lx_nfs3_loop_events(const struct lx_nfs3_clnt *c);

/**
 * lx_nfs3_loop_service() - do what is due; done() callbacks run inside
 * (lx_xprt_loop_service() of @c's transport)
 * Context: the owner thread only; not from a done() callback.
 * Return: the requests it completed, as lx_xprt_loop_service();
 * %-EINVAL for a threaded client.
 */
int lx_nfs3_loop_service(struct lx_nfs3_clnt *c, unsigned int revents);

/**
 * lx_nfs3_loop_run() - wait and service @c until @until is done,
 * @min_done callbacks ran, or @deadline_ns (CLOCK_MONOTONIC); with
 * neither a call nor a count until nothing is in flight
 * (lx_xprt_loop_run() of @c's transport)
 * Context: the owner thread; not from a done() callback; blocks.
 * Return: the requests completed meanwhile; %-ETIMEDOUT at
 * @deadline_ns; %-EINVAL for a threaded client.
 */
int lx_nfs3_loop_run(struct lx_nfs3_clnt *c, struct lx_call *until,
		     unsigned int min_done, uint64_t deadline_ns);

/** lx_nfs3_rpc() - the underlying RPC client (stats, transports) */
struct lx_rpc_clnt *lx_nfs3_rpc(const struct lx_nfs3_clnt *c);

/**
 * lx_nfs3_stat_errno() - the errno of an NFS or MOUNT status (table above)
 * Return: 0 for LX_NFS3_OK, else a negative errno.
 */
int lx_nfs3_stat_errno(uint32_t status);

/**
 * lx_nfs3_stat_name() - RFC 1813's name of a status, for messages:
 * "NFS3ERR_NOENT" etc., "NFS3_OK", "NFS3ERR_unknown" if unknown
 */
const char *lx_nfs3_stat_name(uint32_t status);

/* ------------------------------------------------------------ procedures
 * One sync and one async function per procedure, named after it (CREATE
 * is lx_nfs3_create_file(): lx_nfs3_create() makes the client, as
 * lx_<layer>_create() does at every layer).  Sync: 0 when the reply
 * says LX_NFS3_OK, else a negative errno; @res is filled whenever a reply
 * was decoded (its @status then tells the NFS status, and attributes
 * carried by the failure arm are valid).  Async: 0 when started (then
 * @call->done runs exactly once), or a negative errno and nothing was
 * sent: %-EINVAL (bad arguments), %-EBUSY (%LX_CALL_NOWAIT and no free
 * slot or buffer: retry after a completion), %-ESHUTDOWN.
 * Names are NUL-terminated strings of 1 .. %LX_NFS3_MAXNAMLEN bytes.
 * Handles, names and attribute structs passed in are encoded before the
 * function returns; @res, READ destinations and WRITE sources must stay
 * valid until completion.
 */

int lx_nfs3_null(struct lx_nfs3_clnt *c);
int lx_nfs3_null_async(struct lx_nfs3_clnt *c, struct lx_call *call);

int lx_nfs3_getattr(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		    struct lx_nfs3_getattr_res *res);
int lx_nfs3_getattr_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *fh,
			  struct lx_nfs3_getattr_res *res);

/** @guard_ctime: NULL, or the ctime the object must still have */
int lx_nfs3_setattr(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		    const struct lx_nfs3_sattr *sa,
		    const struct lx_nfs3_time *guard_ctime,
		    struct lx_nfs3_wcc_res *res);
int lx_nfs3_setattr_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *fh,
			  const struct lx_nfs3_sattr *sa,
			  const struct lx_nfs3_time *guard_ctime,
			  struct lx_nfs3_wcc_res *res);

int lx_nfs3_lookup(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		   const char *name, struct lx_nfs3_lookup_res *res);
int lx_nfs3_lookup_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *dir, const char *name,
			 struct lx_nfs3_lookup_res *res);

int lx_nfs3_access(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   uint32_t access, struct lx_nfs3_access_res *res);
int lx_nfs3_access_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh, uint32_t access,
			 struct lx_nfs3_access_res *res);

/**
 * lx_nfs3_readlink() - READLINK into @buf (NUL-terminated; @size >= 2)
 * Return: as above; %-ENAMETOOLONG when the target does not fit @buf.
 */
int lx_nfs3_readlink(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		     char *buf, size_t size, struct lx_nfs3_readlink_res *res);
int lx_nfs3_readlink_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh, char *buf, size_t size,
			   struct lx_nfs3_readlink_res *res);

/**
 * lx_nfs3_read() - READ @count bytes at @offset into @iov
 * @iov, @iovcnt: destination, at least @count bytes (the array must stay
 *	valid until completion for the async form)
 *
 * The data is read from the socket straight into @iov; a reply announcing
 * more than @count bytes fails with %-EOVERFLOW and nothing is written
 * past @count.  @res->count says how many bytes arrived, @res->eof
 * whether the file ends there.
 */
int lx_nfs3_read(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		 uint64_t offset, uint32_t count, const struct iovec *iov,
		 unsigned int iovcnt, struct lx_nfs3_read_res *res);
int lx_nfs3_read_async(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *fh, uint64_t offset,
		       uint32_t count, const struct iovec *iov,
		       unsigned int iovcnt, struct lx_nfs3_read_res *res);
/** lx_nfs3_read_buf_async() - lx_nfs3_read_async() into one buffer */
int lx_nfs3_read_buf_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh, uint64_t offset,
			   uint32_t count, void *buf,
			   struct lx_nfs3_read_res *res);

/**
 * lx_nfs3_write() - WRITE the bytes of @iov (1 .. %LX_NFS3_MAX_IOV segments) at
 * @offset
 * @stable: enum lx_nfs3_stable_how
 *
 * The data goes out from @iov (keep it unchanged until completion).
 * @res->count says how many bytes the server took, @res->committed how
 * stable they are and @res->verf the server's write verifier.
 */
int lx_nfs3_write(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		  uint64_t offset, const struct iovec *iov, unsigned int iovcnt,
		  uint32_t stable, struct lx_nfs3_write_res *res);
int lx_nfs3_write_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *fh, uint64_t offset,
			const struct iovec *iov, unsigned int iovcnt,
			uint32_t stable, struct lx_nfs3_write_res *res);

/**
 * lx_nfs3_create_file() - CREATE @name in @dir
 * @mode: enum lx_nfs3_createmode
 * @sa: attributes for UNCHECKED/GUARDED (NULL = none)
 * @verf: %LX_NFS3_VERFSIZE bytes for EXCLUSIVE (required then)
 */
int lx_nfs3_create_file(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
			const char *name, uint32_t mode,
			const struct lx_nfs3_sattr *sa, const uint8_t *verf,
			struct lx_nfs3_create_res *res);
int lx_nfs3_create_file_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			      const struct lx_nfs3_fh *dir, const char *name,
			      uint32_t mode, const struct lx_nfs3_sattr *sa,
			      const uint8_t *verf,
			      struct lx_nfs3_create_res *res);

int lx_nfs3_mkdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, const struct lx_nfs3_sattr *sa,
		  struct lx_nfs3_create_res *res);
int lx_nfs3_mkdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			const struct lx_nfs3_sattr *sa,
			struct lx_nfs3_create_res *res);

/** @target: the link's contents, 1 .. %LX_NFS3_MAXPATHLEN bytes */
int lx_nfs3_symlink(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		    const char *name, const struct lx_nfs3_sattr *sa,
		    const char *target, struct lx_nfs3_create_res *res);
int lx_nfs3_symlink_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *dir, const char *name,
			  const struct lx_nfs3_sattr *sa, const char *target,
			  struct lx_nfs3_create_res *res);

/**
 * lx_nfs3_mknod() - MKNOD
 * @type: NF3CHR, NF3BLK (with @major/@minor), NF3SOCK or NF3FIFO (a
 *	regular file, directory or link is -EINVAL: use the calls above)
 */
int lx_nfs3_mknod(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, uint32_t type,
		  const struct lx_nfs3_sattr *sa, uint32_t major,
		  uint32_t minor, struct lx_nfs3_create_res *res);
int lx_nfs3_mknod_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			uint32_t type, const struct lx_nfs3_sattr *sa,
			uint32_t major, uint32_t minor,
			struct lx_nfs3_create_res *res);

int lx_nfs3_remove(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		   const char *name, struct lx_nfs3_wcc_res *res);
int lx_nfs3_remove_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *dir, const char *name,
			 struct lx_nfs3_wcc_res *res);

int lx_nfs3_rmdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		  const char *name, struct lx_nfs3_wcc_res *res);
int lx_nfs3_rmdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			const struct lx_nfs3_fh *dir, const char *name,
			struct lx_nfs3_wcc_res *res);

int lx_nfs3_rename(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *from_dir,
		   const char *from_name, const struct lx_nfs3_fh *to_dir,
		   const char *to_name, struct lx_nfs3_rename_res *res);
int lx_nfs3_rename_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *from_dir,
			 const char *from_name, const struct lx_nfs3_fh *to_dir,
			 const char *to_name, struct lx_nfs3_rename_res *res);

/** lx_nfs3_link() - LINK: a new name @name in @dir for @fh */
int lx_nfs3_link(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		 const struct lx_nfs3_fh *dir, const char *name,
		 struct lx_nfs3_link_res *res);
int lx_nfs3_link_async(struct lx_nfs3_clnt *c, struct lx_call *call,
		       const struct lx_nfs3_fh *fh,
		       const struct lx_nfs3_fh *dir, const char *name,
		       struct lx_nfs3_link_res *res);

/**
 * lx_nfs3_readdir() - READDIR from @cookie
 * @verf: the cookie verifier of the previous reply (zeros at cookie 0)
 * @count: reply size limit; over TCP it must leave room in the client's
 *	buf_size (lx_nfs3_dirsize() does); over RDMA it may be larger, up to
 *	8 MiB: the reply lands in a Reply chunk over a buffer of its size
 * @db: entry array and name buffer (see struct lx_nfs3_dirbuf)
 * Return: as above; %-E2BIG when the reply has more entries or name bytes
 * than @db holds; %-EMSGSIZE when the reply does not fit (TCP: buf_size).
 */
int lx_nfs3_readdir(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
		    uint64_t cookie, const uint8_t *verf, uint32_t count,
		    struct lx_nfs3_dirbuf *db, struct lx_nfs3_readdir_res *res);
int lx_nfs3_readdir_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			  const struct lx_nfs3_fh *dir, uint64_t cookie,
			  const uint8_t *verf, uint32_t count,
			  struct lx_nfs3_dirbuf *db,
			  struct lx_nfs3_readdir_res *res);

/**
 * lx_nfs3_readdirplus() - READDIRPLUS, entries with attributes and handles
 * @dircount, @maxcount: the server's limits (RFC 1813); @maxcount bounds
 *	the reply as @count does lx_nfs3_readdir()'s (over RDMA up to 8 MiB)
 * Return: as lx_nfs3_readdir().
 */
int lx_nfs3_readdirplus(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *dir,
			uint64_t cookie, const uint8_t *verf, uint32_t dircount,
			uint32_t maxcount, struct lx_nfs3_dirbuf *db,
			struct lx_nfs3_readdir_res *res);
int lx_nfs3_readdirplus_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			      const struct lx_nfs3_fh *dir, uint64_t cookie,
			      const uint8_t *verf, uint32_t dircount,
			      uint32_t maxcount, struct lx_nfs3_dirbuf *db,
			      struct lx_nfs3_readdir_res *res);

int lx_nfs3_fsstat(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   struct lx_nfs3_fsstat_res *res);
int lx_nfs3_fsstat_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 struct lx_nfs3_fsstat_res *res);

int lx_nfs3_fsinfo(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   struct lx_nfs3_fsinfo_res *res);
int lx_nfs3_fsinfo_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh,
			 struct lx_nfs3_fsinfo_res *res);

int lx_nfs3_pathconf(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		     struct lx_nfs3_pathconf_res *res);
int lx_nfs3_pathconf_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			   const struct lx_nfs3_fh *fh,
			   struct lx_nfs3_pathconf_res *res);

/** lx_nfs3_commit() - COMMIT @count bytes at @offset (0, 0 = whole file) */
int lx_nfs3_commit(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
		   uint64_t offset, uint32_t count,
		   struct lx_nfs3_commit_res *res);
int lx_nfs3_commit_async(struct lx_nfs3_clnt *c, struct lx_call *call,
			 const struct lx_nfs3_fh *fh, uint64_t offset,
			 uint32_t count, struct lx_nfs3_commit_res *res);

/* --------------------------------------------------------------- MOUNT
 * MOUNT procedures on an RPC client of their own (lx_nfs3_mnt_clnt_create):
 * lx_nfs3_create() uses them and closes that client again.
 */

/**
 * lx_nfs3_mnt_clnt_create() - RPC client for MOUNT v3 from @opts (host,
 * mount_port, ids, timeouts); destroy it with lx_rpc_destroy()
 */
int lx_nfs3_mnt_clnt_create(struct lx_rpc_clnt **mcp,
			    const struct lx_nfs3_opts *opts);

int lx_nfs3_mnt_null(struct lx_rpc_clnt *mc);
int lx_nfs3_mnt_null_async(struct lx_rpc_clnt *mc, struct lx_call *call);

/** lx_nfs3_mnt_mnt() - MNT @path: its root handle and auth flavours */
int lx_nfs3_mnt_mnt(struct lx_rpc_clnt *mc, const char *path,
		    struct lx_nfs3_mnt_res *res);
int lx_nfs3_mnt_mnt_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			  const char *path, struct lx_nfs3_mnt_res *res);

/** lx_nfs3_mnt_dump() - DUMP: the server's list of (host, dir) mounts */
int lx_nfs3_mnt_dump(struct lx_rpc_clnt *mc, struct lx_nfs3_mnt_list *res);
int lx_nfs3_mnt_dump_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			   struct lx_nfs3_mnt_list *res);

int lx_nfs3_mnt_umnt(struct lx_rpc_clnt *mc, const char *path);
int lx_nfs3_mnt_umnt_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			   const char *path);

int lx_nfs3_mnt_umntall(struct lx_rpc_clnt *mc);
int lx_nfs3_mnt_umntall_async(struct lx_rpc_clnt *mc, struct lx_call *call);

/** lx_nfs3_mnt_export() - EXPORT: the exports and the groups allowed */
int lx_nfs3_mnt_export(struct lx_rpc_clnt *mc, struct lx_nfs3_mnt_list *res);
int lx_nfs3_mnt_export_async(struct lx_rpc_clnt *mc, struct lx_call *call,
			     struct lx_nfs3_mnt_list *res);

/* ------------------------------------------------------------- helpers */

/**
 * lx_nfs3_lookup_path() - LOOKUP each component of @path from the root
 * @path: "a/b/c" or "/a/b/c" (relative to the export root); "" or "/" is
 *	the root; "." components are skipped, ".." is sent to the server
 * @fh: receives the handle
 * @attr: optional; receives the object's attributes (GETATTR when the
 *	LOOKUP reply had none)
 * Context: blocks.
 * Return: %0; the first failing LOOKUP's errno (%-ENOENT, %-ENOTDIR...);
 * %-ENAMETOOLONG for a component over %LX_NFS3_MAXNAMLEN.
 */
int lx_nfs3_lookup_path(struct lx_nfs3_clnt *c, const char *path,
			struct lx_nfs3_fh *fh, struct lx_nfs3_fattr *attr);

/**
 * lx_nfs3_dir_fn - called for each entry by lx_nfs3_readdirplus_iter()
 * Return: 0 to go on, anything else to stop (returned by the iterator).
 */
typedef int (*lx_nfs3_dir_fn)(const struct lx_nfs3_dirent *e, void *arg);

/**
 * lx_nfs3_readdirplus_iter() - list a directory with READDIRPLUS
 * @dir: the directory
 * @max_entries: give up with %-E2BIG after this many (0 = 16 M): bounds a
 *	server that never says eof
 * @fn, @arg: called on the calling thread for each entry except "." and
 *	"..", in the server's order
 *
 * Cookies and the cookie verifier are carried from reply to reply.
 * Context: blocks.
 * Return: %0 at the end of the directory; @fn's non-zero value; %-ELOOP
 * when the server sends a cookie it sent before or a reply without
 * entries that is not the end; an NFS error (%-EILSEQ: BAD_COOKIE, the
 * directory changed too much to go on); %-ENOMEM.
 */
int lx_nfs3_readdirplus_iter(struct lx_nfs3_clnt *c,
			     const struct lx_nfs3_fh *dir, uint64_t max_entries,
			     lx_nfs3_dir_fn fn, void *arg);

struct lx_nfs3_file;

/**
 * lx_nfs3_resupply_fn - give the bytes [@offset, @offset + @len) of the file
 * again, into @buf, for a resend after the server lost unstable writes
 * Return: 0, or a negative errno that fails the fsync.
 * Runs on the thread that called lx_nfs3_file_fsync()/lx_nfs3_file_close().
 */
typedef int (*lx_nfs3_resupply_fn)(void *arg, uint64_t offset, void *buf,
				   size_t len);

/**
 * struct lx_nfs3_file_opts - how a file writes
 * @stable: enum lx_nfs3_stable_how for its writes (default UNSTABLE)
 * @resupply, @resupply_arg: where unstable data comes from again after a
 *	server restart.  When NULL the file keeps a copy of every unstable
 *	write until it is committed (memory = the uncommitted bytes, bounded
 *	by @max_uncommitted); with a resupply function it keeps only the
 *	ranges (a few bytes per non-contiguous range).
 * @max_uncommitted: fsync automatically once this many bytes are
 *	uncommitted (0 = 64 MiB)
 */
struct lx_nfs3_file_opts {
	uint32_t stable;
	lx_nfs3_resupply_fn resupply;
	void *resupply_arg;
	size_t max_uncommitted;
};

/* lx_nfs3_open() flags: O_CREAT, O_EXCL, O_TRUNC from <fcntl.h>, which
 * this header includes (others ignored) */

/**
 * lx_nfs3_open() - look up (and with O_CREAT create) a file by path
 * @path: relative to the export root; the last component is the file
 * @flags: O_CREAT (create if missing, UNCHECKED), O_CREAT|O_EXCL
 *	(GUARDED: -EEXIST if it exists), O_TRUNC (size 0)
 * @mode: permission bits for a new file
 * @fo: NULL for defaults
 * @fp: receives the file
 * Context: blocks.
 * Return: %0; %-EISDIR when @path names a directory; an NFS or RPC error.
 */
int lx_nfs3_open(struct lx_nfs3_clnt *c, const char *path, int flags,
		 uint32_t mode, const struct lx_nfs3_file_opts *fo,
		 struct lx_nfs3_file **fp);

/** lx_nfs3_file_fh() - the file's handle */
const struct lx_nfs3_fh *lx_nfs3_file_fh(const struct lx_nfs3_file *f);

/**
 * lx_nfs3_file_pread() - read up to @count bytes at @offset
 * @nread: receives the bytes read: @count unless the file ends first
 *
 * Splits at the client's rsize and keeps the pieces in flight together;
 * re-reads the rest of a short piece that is not at the end of file.
 * Context: blocks.  Return: %0 or a negative errno.
 */
int lx_nfs3_file_pread(struct lx_nfs3_file *f, void *buf, size_t count,
		       uint64_t offset, size_t *nread);

/**
 * lx_nfs3_file_pwrite() - write @count bytes at @offset
 *
 * Splits at wsize, pieces in flight together; resends the rest of a
 * short write.  Unstable writes are remembered until lx_nfs3_file_fsync()
 * (see struct lx_nfs3_file_opts).  Context: blocks.
 * Return: %0 when every byte was written; a negative errno.
 */
int lx_nfs3_file_pwrite(struct lx_nfs3_file *f, const void *buf, size_t count,
			uint64_t offset);

/**
 * lx_nfs3_file_fsync() - COMMIT the file's unstable writes, checking the
 * write verifier
 *
 * When the server's verifier changed since the writes (it restarted and
 * may have lost them), the uncommitted ranges are written again and
 * committed again, until a COMMIT carries the verifier the data was
 * written under.  Context: blocks.
 * Return: %0 (everything written is stable); %-EIO when the verifier kept
 * changing (5 rounds); a resupply error; an NFS or RPC error (the ranges
 * are kept: fsync can be retried).
 */
int lx_nfs3_file_fsync(struct lx_nfs3_file *f);

/**
 * struct lx_nfs3_file_stats - what fsync had to do
 * @commits: COMMIT calls; @verf_changes: verifier changes seen;
 * @resent_bytes: bytes written again after them
 * @uncommitted: bytes written unstable and not yet committed
 */
struct lx_nfs3_file_stats {
	uint64_t commits, verf_changes, resent_bytes, uncommitted;
};

/** lx_nfs3_file_stats() - snapshot of @f's counters */
void lx_nfs3_file_stats(struct lx_nfs3_file *f, struct lx_nfs3_file_stats *st);

/**
 * lx_nfs3_file_close() - fsync (when anything is uncommitted) and free
 * Return: the fsync's result; the file is freed in any case.
 */
int lx_nfs3_file_close(struct lx_nfs3_file *f);

/* ------------------------------------------------- split async I/O */

#define LX_NFS3_PIO_MAX 16u /* pieces of one async pread/pwrite */

/**
 * struct lx_nfs3_pio - one split async read or write, owned by the caller
 * @call: the call object: done, arg, owner, flags set by the caller as for
 *	any call; done(&io->call, status, arg) runs once with the status of
 *	the first piece that failed (0 when any bytes were moved) and
 *	@call.count the bytes transferred contiguously from the start (a
 *	short count is possible, as with pread(2)/pwrite(2): call again for
 *	the rest).  It runs on a receive thread, or on the submitting thread
 *	when every piece completed before lx_nfs3_pread_async() or
 *	lx_nfs3_pwrite_async() returned; @io is free for reuse when it is
 *	entered.  lx_call_cancel(&io->call) cancels every piece in flight.
 *	It is the first member: a done() callback may cast @call to its pio.
 * @eof: a read reached the end of file (valid in done())
 *
 * About 5 KiB (a call and a result per piece): allocate it once per
 * outstanding I/O and reuse it.
 */
struct lx_nfs3_pio {
	struct lx_call call;
	bool eof;
	/* private to the library */
	struct lx_nfs3_clnt *clnt_;
	void *buf_;
	uint64_t offset_;
	size_t count_;
	bool write_;
	unsigned int npieces_;
	unsigned int left_; /* atomic */
	struct lx_nfs3_pio_piece {
		struct lx_call call;
		struct iovec iov;
		uint64_t offset;
		uint32_t count;
		union {
			struct lx_nfs3_read_res rd;
			struct lx_nfs3_write_res wr;
		} res;
		int status;
	} piece_[LX_NFS3_PIO_MAX];
};

/**
 * lx_nfs3_pread_async() - READ @count bytes (at most %LX_NFS3_PIO_MAX pieces of
 * rsize) at @offset into @buf, the pieces in flight together
 * Return: %0 (@io->call.done will run once); %-EINVAL (too large, bad
 * args); %-EBUSY with %LX_CALL_NOWAIT when the first piece could not start
 * (a later piece that cannot start ends the I/O short).
 */
int lx_nfs3_pread_async(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
			const struct lx_nfs3_fh *fh, void *buf, size_t count,
			uint64_t offset);

/**
 * lx_nfs3_pwrite_async() - WRITE @count bytes from @buf at @offset in wsize
 * pieces (at most %LX_NFS3_PIO_MAX), with stability @stable.  Unstable data
 * is the caller's to commit (lx_nfs3_commit()); use lx_nfs3_file_pwrite() for
 * tracked writes.
 */
int lx_nfs3_pwrite_async(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
			 const struct lx_nfs3_fh *fh, const void *buf,
			 size_t count, uint64_t offset, uint32_t stable);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_NFS3_H */
