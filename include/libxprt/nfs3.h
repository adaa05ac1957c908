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
 * keeps its state in a struct nfs3_call the caller owns.
 *
 * Threads: a client is thread-safe.  Sync calls block the calling thread
 * and must not be made from a completion callback.  Async completions run
 * on a transport receive thread and must not block; to start a call from
 * a callback, set %NFS3_CALL_NOWAIT and hand the work to a thread of your
 * own on -EAGAIN or -ENOBUFS.  A call that fails to start (non-zero
 * return) never invokes its callback.
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
 *   %-ENAMETOOLONG a name longer than %NFS3_MAXNAMLEN or a path longer
 *                 than %NFS3_MAXPATHLEN (in a reply or in the arguments)
 *   %-ELOOP       directory iteration: a cookie loop or no progress
 *   %-EMSGSIZE    the reply does not fit the client's buffers (buf_size)
 *
 * NFS and MOUNT status codes map to errnos as below; the status itself is
 * in the result struct's @status field (and in struct nfs3_call's
 * @nfs_status for async calls):
 *
 *   NFS3_OK / MNT3_OK          0
 *   NFS3ERR_PERM        1      -EPERM
 *   NFS3ERR_NOENT       2      -ENOENT
 *   NFS3ERR_IO          5      -EIO
 *   NFS3ERR_NXIO        6      -ENXIO
 *   NFS3ERR_ACCES       13     -EACCES
 *   NFS3ERR_EXIST       17     -EEXIST
 *   NFS3ERR_XDEV        18     -EXDEV
 *   NFS3ERR_NODEV       19     -ENODEV
 *   NFS3ERR_NOTDIR      20     -ENOTDIR
 *   NFS3ERR_ISDIR       21     -EISDIR
 *   NFS3ERR_INVAL       22     -EINVAL
 *   NFS3ERR_FBIG        27     -EFBIG
 *   NFS3ERR_NOSPC       28     -ENOSPC
 *   NFS3ERR_ROFS        30     -EROFS
 *   NFS3ERR_MLINK       31     -EMLINK
 *   NFS3ERR_NAMETOOLONG 63     -ENAMETOOLONG
 *   NFS3ERR_NOTEMPTY    66     -ENOTEMPTY
 *   NFS3ERR_DQUOT       69     -EDQUOT
 *   NFS3ERR_STALE       70     -ESTALE
 *   NFS3ERR_REMOTE      71     -EREMOTE
 *   NFS3ERR_BADHANDLE   10001  -EBADF     (handle not understood)
 *   NFS3ERR_NOT_SYNC    10002  -EBUSY     (SETATTR guard: ctime changed)
 *   NFS3ERR_BAD_COOKIE  10003  -EILSEQ    (directory cookie invalid)
 *   NFS3ERR_NOTSUPP     10004  -ENOTSUP
 *   NFS3ERR_TOOSMALL    10005  -ERANGE    (READDIR count too small)
 *   NFS3ERR_SERVERFAULT 10006  -EREMOTEIO
 *   NFS3ERR_BADTYPE     10007  -EPROTOTYPE (object type not supported)
 *   NFS3ERR_JUKEBOX     10008  -EAGAIN    (try again later; only ever a
 *                                          completion status or the return
 *                                          of a sync call)
 *   anything else              -EREMOTEIO
 * MOUNT's mountstat3 values are a subset (MNT3ERR_NOENT 2 -> -ENOENT,
 * MNT3ERR_ACCES 13 -> -EACCES, MNT3ERR_NOTSUPP 10004 -> -ENOTSUP, ...).
 */
#ifndef LIBXPRT_NFS3_H
#define LIBXPRT_NFS3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NFS3_PROGRAM	    100003u
#define NFS3_VERSION	    3u
#define MOUNT3_PROGRAM	    100005u
#define MOUNT3_VERSION	    3u
#define NFS3_FHSIZE	    64u	  /* RFC 1813 FHSIZE3 */
#define NFS3_VERFSIZE	    8u	  /* cookie, create and write verifiers */
#define NFS3_MAXNAMLEN	    255u  /* longest name this client accepts */
#define NFS3_MAXPATHLEN	    1024u /* MOUNT's MNTPATHLEN, READLINK/SYMLINK */
#define NFS3_MAX_IOV	    7u	  /* WRITE payload segments per call */
#define NFS3_MAX_SIZE_FIELD 0x7fffffffu

/* NFSv3 procedures (RFC 1813 section 3) */
enum nfs3_proc {
	NFS3PROC_NULL = 0,
	NFS3PROC_GETATTR = 1,
	NFS3PROC_SETATTR = 2,
	NFS3PROC_LOOKUP = 3,
	NFS3PROC_ACCESS = 4,
	NFS3PROC_READLINK = 5,
	NFS3PROC_READ = 6,
	NFS3PROC_WRITE = 7,
	NFS3PROC_CREATE = 8,
	NFS3PROC_MKDIR = 9,
	NFS3PROC_SYMLINK = 10,
	NFS3PROC_MKNOD = 11,
	NFS3PROC_REMOVE = 12,
	NFS3PROC_RMDIR = 13,
	NFS3PROC_RENAME = 14,
	NFS3PROC_LINK = 15,
	NFS3PROC_READDIR = 16,
	NFS3PROC_READDIRPLUS = 17,
	NFS3PROC_FSSTAT = 18,
	NFS3PROC_FSINFO = 19,
	NFS3PROC_PATHCONF = 20,
	NFS3PROC_COMMIT = 21,
	NFS3PROC_COUNT = 22,
};

/* MOUNT v3 procedures (RFC 1813 section 5) */
enum mount3_proc {
	MOUNT3PROC_NULL = 0,
	MOUNT3PROC_MNT = 1,
	MOUNT3PROC_DUMP = 2,
	MOUNT3PROC_UMNT = 3,
	MOUNT3PROC_UMNTALL = 4,
	MOUNT3PROC_EXPORT = 5,
};

enum nfs3_stat {
	NFS3_OK = 0,
	NFS3ERR_PERM = 1,
	NFS3ERR_NOENT = 2,
	NFS3ERR_IO = 5,
	NFS3ERR_NXIO = 6,
	NFS3ERR_ACCES = 13,
	NFS3ERR_EXIST = 17,
	NFS3ERR_XDEV = 18,
	NFS3ERR_NODEV = 19,
	NFS3ERR_NOTDIR = 20,
	NFS3ERR_ISDIR = 21,
	NFS3ERR_INVAL = 22,
	NFS3ERR_FBIG = 27,
	NFS3ERR_NOSPC = 28,
	NFS3ERR_ROFS = 30,
	NFS3ERR_MLINK = 31,
	NFS3ERR_NAMETOOLONG = 63,
	NFS3ERR_NOTEMPTY = 66,
	NFS3ERR_DQUOT = 69,
	NFS3ERR_STALE = 70,
	NFS3ERR_REMOTE = 71,
	NFS3ERR_BADHANDLE = 10001,
	NFS3ERR_NOT_SYNC = 10002,
	NFS3ERR_BAD_COOKIE = 10003,
	NFS3ERR_NOTSUPP = 10004,
	NFS3ERR_TOOSMALL = 10005,
	NFS3ERR_SERVERFAULT = 10006,
	NFS3ERR_BADTYPE = 10007,
	NFS3ERR_JUKEBOX = 10008,
};

enum mount3_stat {
	MNT3_OK = 0,
	MNT3ERR_PERM = 1,
	MNT3ERR_NOENT = 2,
	MNT3ERR_IO = 5,
	MNT3ERR_ACCES = 13,
	MNT3ERR_NOTDIR = 20,
	MNT3ERR_INVAL = 22,
	MNT3ERR_NAMETOOLONG = 63,
	MNT3ERR_NOTSUPP = 10004,
	MNT3ERR_SERVERFAULT = 10006,
};

enum nfs3_ftype {
	NF3REG = 1,
	NF3DIR = 2,
	NF3BLK = 3,
	NF3CHR = 4,
	NF3LNK = 5,
	NF3SOCK = 6,
	NF3FIFO = 7,
};

enum nfs3_stable_how {
	NFS3_UNSTABLE = 0,
	NFS3_DATA_SYNC = 1,
	NFS3_FILE_SYNC = 2,
};

enum nfs3_createmode {
	NFS3_CREATE_UNCHECKED = 0,
	NFS3_CREATE_GUARDED = 1,
	NFS3_CREATE_EXCLUSIVE = 2,
};

enum nfs3_time_how {
	NFS3_DONT_CHANGE = 0,
	NFS3_SET_TO_SERVER_TIME = 1,
	NFS3_SET_TO_CLIENT_TIME = 2,
};

/* ACCESS bits */
#define NFS3_ACCESS_READ     0x01u
#define NFS3_ACCESS_LOOKUP   0x02u
#define NFS3_ACCESS_MODIFY   0x04u
#define NFS3_ACCESS_EXTEND   0x08u
#define NFS3_ACCESS_DELETE   0x10u
#define NFS3_ACCESS_EXECUTE  0x20u

/* FSINFO properties */
#define NFS3_FSF_LINK	     0x01u
#define NFS3_FSF_SYMLINK     0x02u
#define NFS3_FSF_HOMOGENEOUS 0x08u
#define NFS3_FSF_CANSETTIME  0x10u

/**
 * struct nfs3_fh - a file handle: at most %NFS3_FHSIZE bytes, inline
 * @len: bytes used in @data (a reply with a longer handle is refused)
 */
struct nfs3_fh {
	uint32_t len;
	uint8_t data[NFS3_FHSIZE];
};

struct nfs3_time {
	uint32_t sec;
	uint32_t nsec;
};

/** struct nfs3_fattr - fattr3 */
struct nfs3_fattr {
	uint32_t type; /* enum nfs3_ftype */
	uint32_t mode, nlink, uid, gid;
	uint64_t size, used;
	uint32_t rdev_major, rdev_minor;
	uint64_t fsid, fileid;
	struct nfs3_time atime, mtime, ctime;
};

/** struct nfs3_post_attr - post_op_attr: attributes when @present */
struct nfs3_post_attr {
	bool present;
	struct nfs3_fattr attr;
};

/** struct nfs3_wcc - wcc_data: size and times before, attributes after */
struct nfs3_wcc {
	bool before_present;
	uint64_t before_size;
	struct nfs3_time before_mtime, before_ctime;
	struct nfs3_post_attr after;
};

/**
 * struct nfs3_sattr - sattr3: what SETATTR/CREATE/MKDIR... set
 * @atime_how, @mtime_how: enum nfs3_time_how (0 = leave alone)
 */
struct nfs3_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode, uid, gid;
	uint64_t size;
	uint32_t atime_how, mtime_how;
	struct nfs3_time atime, mtime;
};

/* ---------------------------------------------------------------- results
 * Every result struct starts with @status (enum nfs3_stat, or enum
 * mount3_stat for MOUNT).  Fields after it are valid as RFC 1813 says for
 * that status: the "resok" fields when it is NFS3_OK, the attributes and
 * wcc data that both arms carry in any case.
 */

struct nfs3_getattr_res {
	uint32_t status;
	struct nfs3_fattr attr;
};

/* SETATTR, REMOVE, RMDIR */
struct nfs3_wcc_res {
	uint32_t status;
	struct nfs3_wcc wcc;
};

struct nfs3_lookup_res {
	uint32_t status;
	struct nfs3_fh fh;
	struct nfs3_post_attr attr;
	struct nfs3_post_attr dir_attr;
};

struct nfs3_access_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint32_t access;
};

/* READLINK: the target goes into the caller's buffer, NUL-terminated */
struct nfs3_readlink_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint32_t len;
};

/* READ: the data goes into the caller's buffer */
struct nfs3_read_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint32_t count;
	bool eof;
};

struct nfs3_write_res {
	uint32_t status;
	struct nfs3_wcc wcc;
	uint32_t count;
	uint32_t committed; /* enum nfs3_stable_how */
	uint8_t verf[NFS3_VERFSIZE];
};

/* CREATE, MKDIR, SYMLINK, MKNOD */
struct nfs3_create_res {
	uint32_t status;
	bool fh_present;
	struct nfs3_fh fh;
	struct nfs3_post_attr attr;
	struct nfs3_wcc dir_wcc;
};

struct nfs3_rename_res {
	uint32_t status;
	struct nfs3_wcc from_wcc, to_wcc;
};

struct nfs3_link_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	struct nfs3_wcc dir_wcc;
};

/**
 * struct nfs3_dirent - one READDIR/READDIRPLUS entry
 * @name: NUL-terminated, in the caller's name buffer
 * @attr, @fh_present, @fh: READDIRPLUS only
 */
struct nfs3_dirent {
	uint64_t fileid;
	uint64_t cookie;
	const char *name;
	uint32_t namelen;
	struct nfs3_post_attr attr;
	bool fh_present;
	struct nfs3_fh fh;
};

/**
 * struct nfs3_dirbuf - where READDIR/READDIRPLUS put their entries
 * @ent, @cap: entry array and its size (set by the caller)
 * @names, @names_size: name storage (set by the caller); a reply of
 *	maxcount bytes never needs more than maxcount bytes here
 * READDIR needs at most count / 24 entries, READDIRPLUS maxcount / 32.
 */
struct nfs3_dirbuf {
	struct nfs3_dirent *ent;
	unsigned int cap;
	char *names;
	size_t names_size;
};

struct nfs3_readdir_res {
	uint32_t status;
	struct nfs3_post_attr dir_attr;
	uint8_t cookieverf[NFS3_VERFSIZE];
	unsigned int n; /* entries stored in the dirbuf */
	bool eof;
};

struct nfs3_fsstat_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint64_t tbytes, fbytes, abytes, tfiles, ffiles, afiles;
	uint32_t invarsec;
};

struct nfs3_fsinfo_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint32_t rtmax, rtpref, rtmult, wtmax, wtpref, wtmult, dtpref;
	uint64_t maxfilesize;
	struct nfs3_time time_delta;
	uint32_t properties;
};

struct nfs3_pathconf_res {
	uint32_t status;
	struct nfs3_post_attr attr;
	uint32_t linkmax, name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

struct nfs3_commit_res {
	uint32_t status;
	struct nfs3_wcc wcc;
	uint8_t verf[NFS3_VERFSIZE];
};

/* MOUNT results */
#define NFS3_MNT_MAX_FLAVORS 8u

struct nfs3_mnt_res {
	uint32_t status; /* enum mount3_stat */
	struct nfs3_fh fh;
	unsigned int nflavors; /* beyond NFS3_MNT_MAX_FLAVORS: dropped */
	uint32_t flavors[NFS3_MNT_MAX_FLAVORS];
};

/**
 * struct nfs3_mnt_list - DUMP and EXPORT results
 * @host, @dir: set by the decoder; each entry is (host, dir) for DUMP and
 *	(groups, dir) for EXPORT, where @host then holds the export's
 *	groups joined by spaces ("" = everyone)
 * @cap, @strbuf, @strsize: set by the caller
 * @n: entries stored
 */
struct nfs3_mnt_entry {
	const char *host;
	const char *dir;
};

struct nfs3_mnt_list {
	uint32_t status; /* always MNT3_OK: DUMP and EXPORT have no status */
	struct nfs3_mnt_entry *ent;
	unsigned int cap;
	char *strbuf;
	size_t strsize;
	unsigned int n;
};

/* ----------------------------------------------------------- async calls */

struct nfs3_call;

/**
 * nfs3_done_fn - completion of an async call
 * @call: the caller's call object; free for reuse as soon as this is
 *	entered (the library no longer touches it)
 * @status: 0, or a negative errno: an NFS/MOUNT error mapped as in the
 *	table above (then @call->nfs_status holds the status), or an RPC or
 *	transport error
 * @arg: @call->arg
 *
 * Runs on a transport receive thread, possibly before the *_async
 * function that started the call has returned; must not block.  To start
 * another call from here, set %NFS3_CALL_NOWAIT: the slot of the call
 * being completed is still held while this runs.
 */
typedef void (*nfs3_done_fn)(struct nfs3_call *call, int status, void *arg);

#define NFS3_CALL_NOWAIT RPC_CALL_NOWAIT

/**
 * struct nfs3_call - state of one async call, owned by the caller
 * @done, @arg: completion (set by the caller)
 * @owner: fairness owner in the transmit queue, e.g. a job id (0 = the
 *	calling thread)
 * @flags: %NFS3_CALL_NOWAIT: fail with -EAGAIN/-ENOBUFS rather than wait
 *	for a free slot (required from a completion callback)
 * @res: the result struct passed to the *_async function (set by it)
 * @nfs_status: the reply's NFS or MOUNT status (valid in @done when the
 *	call got a reply)
 *
 * Must stay valid and untouched from the *_async call until @done is
 * entered.
 */
struct nfs3_call {
	nfs3_done_fn done;
	void *arg;
	uint64_t owner;
	unsigned int flags;
	void *res;
	uint32_t nfs_status;
	/* private to the library */
	uint64_t priv_[10];
};

/* ---------------------------------------------------------------- client */

struct nfs3_clnt;

/**
 * struct nfs3_opts - how to reach the server
 * @host: server name or address (required)
 * @export_path: export path for MOUNT, e.g. "/export" (nfs3_mount() only)
 * @nfs_port, @mount_port: 0 = ask the server's rpcbind (over RDMA an
 *	unset @nfs_port is %XPRT_RDMA_NFS_PORT, 20049: rpcbind maps TCP)
 * @transport: %XPRT_TRANSPORT_TCP (default) or %XPRT_TRANSPORT_RDMA: NFS
 *	calls over RPC-over-RDMA version 1 (READ data through Write chunks,
 *	WRITE data through Read chunks, large directory replies through
 *	Reply chunks); MOUNT is always over TCP
 * @rdma: RDMA transport options for the NFS connections (a struct
 *	xprt_rdma_opts, libxprt/rdma.h; copied), NULL for the defaults
 * @nconnect: connections to the NFS service (1 .. 16, default 1)
 * @max_reqs: calls in flight per connection (default 64)
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
 */
struct nfs3_opts {
	const char *host;
	const char *export_path;
	uint16_t nfs_port, mount_port;
	enum xprt_transport transport;
	const void *rdma;
	unsigned int nconnect;
	unsigned int max_reqs;
	bool set_ids;
	uint32_t uid, gid;
	bool auth_none;
	unsigned int timeo_ms;
	unsigned int retrans;
	size_t buf_size;
	uint32_t rsize, wsize;
	char *errmsg;
	size_t errmsg_len;
};

/**
 * nfs3_mount() - MNT the export over TCP, connect to NFS, learn FSINFO
 * @cp: receives the client
 * @opts: parameters (copied)
 *
 * Asks MOUNT v3 for the export's root handle, creates the NFS RPC client
 * (nconnect connections) and calls FSINFO on the root to learn rtmax,
 * wtmax and dtpref.  Context: blocks.
 * Return: %0; %-EINVAL for bad options; %-ENOENT (MNT3ERR_NOENT: no such
 * export); %-EACCES (MNT3ERR_ACCES, or AUTH_SYS refused); %-ENOTDIR;
 * %-EPFNOSUPPORT (the port does not serve MOUNT v3 or NFS v3: wrong
 * server); %-ECONNREFUSED, %-ETIMEDOUT, %-ENOENT (host does not resolve)
 * ...; @opts->errmsg says which step failed.
 */
int nfs3_mount(struct nfs3_clnt **cp, const struct nfs3_opts *opts);

/**
 * nfs3_connect() - like nfs3_mount() with a root handle already known
 * (no MOUNT call)
 */
int nfs3_connect(struct nfs3_clnt **cp, const struct nfs3_opts *opts,
		 const struct nfs3_fh *root);

/**
 * nfs3_destroy() - fail calls in flight with -ESHUTDOWN, close, free.
 * Open files must be closed first.  Not from a callback.  NULL: no-op.
 */
void nfs3_destroy(struct nfs3_clnt *c);

/** nfs3_root() - the export's root handle */
const struct nfs3_fh *nfs3_root(const struct nfs3_clnt *c);

/** nfs3_fsinfo_cached() - FSINFO of the root, as learnt at mount time */
const struct nfs3_fsinfo_res *nfs3_fsinfo_cached(const struct nfs3_clnt *c);

/** nfs3_rsize(), nfs3_wsize() - READ/WRITE split size in use */
uint32_t nfs3_rsize(const struct nfs3_clnt *c);
uint32_t nfs3_wsize(const struct nfs3_clnt *c);

/** nfs3_dirsize() - READDIRPLUS maxcount the helpers use (fits buf_size) */
uint32_t nfs3_dirsize(const struct nfs3_clnt *c);

/** nfs3_clnt_rpc() - the underlying RPC client (stats, transports) */
struct rpc_clnt *nfs3_clnt_rpc(const struct nfs3_clnt *c);

/**
 * nfs3_stat_errno() - the errno of an NFS or MOUNT status (table above)
 * Return: 0 for NFS3_OK, else a negative errno.
 */
int nfs3_stat_errno(uint32_t status);

/** nfs3_stat_name() - "NFS3ERR_NOENT" etc., "NFS3ERR_unknown" if unknown */
const char *nfs3_stat_name(uint32_t status);

/** nfs3_strerror() - a short text for an errno returned by this API */
const char *nfs3_strerror(int err);

/* ------------------------------------------------------------ procedures
 * One sync and one async function per procedure.  Sync: 0 when the reply
 * says NFS3_OK, else a negative errno; @res is filled whenever a reply
 * was decoded (its @status then tells the NFS status, and attributes
 * carried by the failure arm are valid).  Async: 0 when started (then
 * @call->done runs exactly once), or a negative errno and nothing was
 * sent: %-EINVAL (bad arguments), %-EAGAIN / %-ENOBUFS (%NFS3_CALL_NOWAIT
 * and no free slot or buffer: retry after a completion), %-ESHUTDOWN.
 * Names are NUL-terminated strings of 1 .. %NFS3_MAXNAMLEN bytes.
 * Handles, names and attribute structs passed in are encoded before the
 * function returns; @res, READ destinations and WRITE sources must stay
 * valid until completion.
 */

int nfs3_null(struct nfs3_clnt *c);
int nfs3_null_async(struct nfs3_clnt *c, struct nfs3_call *call);

int nfs3_getattr(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		 struct nfs3_getattr_res *res);
int nfs3_getattr_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *fh, struct nfs3_getattr_res *res);

/** @guard_ctime: NULL, or the ctime the object must still have */
int nfs3_setattr(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		 const struct nfs3_sattr *sa,
		 const struct nfs3_time *guard_ctime, struct nfs3_wcc_res *res);
int nfs3_setattr_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *fh, const struct nfs3_sattr *sa,
		       const struct nfs3_time *guard_ctime,
		       struct nfs3_wcc_res *res);

int nfs3_lookup(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, struct nfs3_lookup_res *res);
int nfs3_lookup_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      struct nfs3_lookup_res *res);

int nfs3_access(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint32_t access,
		struct nfs3_access_res *res);
int nfs3_access_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, uint32_t access,
		      struct nfs3_access_res *res);

/**
 * nfs3_readlink() - READLINK into @buf (NUL-terminated; @size >= 2)
 * Return: as above; %-ENAMETOOLONG when the target does not fit @buf.
 */
int nfs3_readlink(struct nfs3_clnt *c, const struct nfs3_fh *fh, char *buf,
		  size_t size, struct nfs3_readlink_res *res);
int nfs3_readlink_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, char *buf, size_t size,
			struct nfs3_readlink_res *res);

/**
 * nfs3_read() - READ @count bytes at @offset into @iov
 * @iov, @iovcnt: destination, at least @count bytes (the array must stay
 *	valid until completion for the async form)
 *
 * The data is read from the socket straight into @iov; a reply announcing
 * more than @count bytes fails with %-EOVERFLOW and nothing is written
 * past @count.  @res->count says how many bytes arrived, @res->eof
 * whether the file ends there.
 */
int nfs3_read(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
	      uint32_t count, const struct iovec *iov, unsigned int iovcnt,
	      struct nfs3_read_res *res);
int nfs3_read_async(struct nfs3_clnt *c, struct nfs3_call *call,
		    const struct nfs3_fh *fh, uint64_t offset, uint32_t count,
		    const struct iovec *iov, unsigned int iovcnt,
		    struct nfs3_read_res *res);
/** nfs3_read_buf_async() - nfs3_read_async() into one buffer */
int nfs3_read_buf_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh, uint64_t offset,
			uint32_t count, void *buf, struct nfs3_read_res *res);

/**
 * nfs3_write() - WRITE the bytes of @iov (1 .. %NFS3_MAX_IOV segments) at
 * @offset
 * @stable: enum nfs3_stable_how
 *
 * The data goes out from @iov (keep it unchanged until completion).
 * @res->count says how many bytes the server took, @res->committed how
 * stable they are and @res->verf the server's write verifier.
 */
int nfs3_write(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
	       const struct iovec *iov, unsigned int iovcnt, uint32_t stable,
	       struct nfs3_write_res *res);
int nfs3_write_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *fh, uint64_t offset,
		     const struct iovec *iov, unsigned int iovcnt,
		     uint32_t stable, struct nfs3_write_res *res);

/**
 * nfs3_create() - CREATE @name in @dir
 * @mode: enum nfs3_createmode
 * @sa: attributes for UNCHECKED/GUARDED (NULL = none)
 * @verf: %NFS3_VERFSIZE bytes for EXCLUSIVE (required then)
 */
int nfs3_create(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, uint32_t mode, const struct nfs3_sattr *sa,
		const uint8_t *verf, struct nfs3_create_res *res);
int nfs3_create_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      uint32_t mode, const struct nfs3_sattr *sa,
		      const uint8_t *verf, struct nfs3_create_res *res);

int nfs3_mkdir(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       const struct nfs3_sattr *sa, struct nfs3_create_res *res);
int nfs3_mkdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name,
		     const struct nfs3_sattr *sa, struct nfs3_create_res *res);

/** @target: the link's contents, 1 .. %NFS3_MAXPATHLEN bytes */
int nfs3_symlink(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		 const char *name, const struct nfs3_sattr *sa,
		 const char *target, struct nfs3_create_res *res);
int nfs3_symlink_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, const char *name,
		       const struct nfs3_sattr *sa, const char *target,
		       struct nfs3_create_res *res);

/**
 * nfs3_mknod() - MKNOD
 * @type: NF3CHR, NF3BLK (with @major/@minor), NF3SOCK or NF3FIFO (a
 *	regular file, directory or link is -EINVAL: use the calls above)
 */
int nfs3_mknod(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       uint32_t type, const struct nfs3_sattr *sa, uint32_t major,
	       uint32_t minor, struct nfs3_create_res *res);
int nfs3_mknod_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name, uint32_t type,
		     const struct nfs3_sattr *sa, uint32_t major,
		     uint32_t minor, struct nfs3_create_res *res);

int nfs3_remove(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		const char *name, struct nfs3_wcc_res *res);
int nfs3_remove_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *dir, const char *name,
		      struct nfs3_wcc_res *res);

int nfs3_rmdir(struct nfs3_clnt *c, const struct nfs3_fh *dir, const char *name,
	       struct nfs3_wcc_res *res);
int nfs3_rmdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		     const struct nfs3_fh *dir, const char *name,
		     struct nfs3_wcc_res *res);

int nfs3_rename(struct nfs3_clnt *c, const struct nfs3_fh *from_dir,
		const char *from_name, const struct nfs3_fh *to_dir,
		const char *to_name, struct nfs3_rename_res *res);
int nfs3_rename_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *from_dir, const char *from_name,
		      const struct nfs3_fh *to_dir, const char *to_name,
		      struct nfs3_rename_res *res);

/** nfs3_link() - LINK: a new name @name in @dir for @fh */
int nfs3_link(struct nfs3_clnt *c, const struct nfs3_fh *fh,
	      const struct nfs3_fh *dir, const char *name,
	      struct nfs3_link_res *res);
int nfs3_link_async(struct nfs3_clnt *c, struct nfs3_call *call,
		    const struct nfs3_fh *fh, const struct nfs3_fh *dir,
		    const char *name, struct nfs3_link_res *res);

/**
 * nfs3_readdir() - READDIR from @cookie
 * @verf: the cookie verifier of the previous reply (zeros at cookie 0)
 * @count: reply size limit; must leave room in the client's buf_size
 * @db: entry array and name buffer (see struct nfs3_dirbuf)
 * Return: as above; %-E2BIG when the reply has more entries or name bytes
 * than @db holds.
 */
int nfs3_readdir(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		 uint64_t cookie, const uint8_t *verf, uint32_t count,
		 struct nfs3_dirbuf *db, struct nfs3_readdir_res *res);
int nfs3_readdir_async(struct nfs3_clnt *c, struct nfs3_call *call,
		       const struct nfs3_fh *dir, uint64_t cookie,
		       const uint8_t *verf, uint32_t count,
		       struct nfs3_dirbuf *db, struct nfs3_readdir_res *res);

/** nfs3_readdirplus() - READDIRPLUS, entries with attributes and handles */
int nfs3_readdirplus(struct nfs3_clnt *c, const struct nfs3_fh *dir,
		     uint64_t cookie, const uint8_t *verf, uint32_t dircount,
		     uint32_t maxcount, struct nfs3_dirbuf *db,
		     struct nfs3_readdir_res *res);
int nfs3_readdirplus_async(struct nfs3_clnt *c, struct nfs3_call *call,
			   const struct nfs3_fh *dir, uint64_t cookie,
			   const uint8_t *verf, uint32_t dircount,
			   uint32_t maxcount, struct nfs3_dirbuf *db,
			   struct nfs3_readdir_res *res);

int nfs3_fsstat(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		struct nfs3_fsstat_res *res);
int nfs3_fsstat_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, struct nfs3_fsstat_res *res);

int nfs3_fsinfo(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		struct nfs3_fsinfo_res *res);
int nfs3_fsinfo_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, struct nfs3_fsinfo_res *res);

int nfs3_pathconf(struct nfs3_clnt *c, const struct nfs3_fh *fh,
		  struct nfs3_pathconf_res *res);
int nfs3_pathconf_async(struct nfs3_clnt *c, struct nfs3_call *call,
			const struct nfs3_fh *fh,
			struct nfs3_pathconf_res *res);

/** nfs3_commit() - COMMIT @count bytes at @offset (0, 0 = whole file) */
int nfs3_commit(struct nfs3_clnt *c, const struct nfs3_fh *fh, uint64_t offset,
		uint32_t count, struct nfs3_commit_res *res);
int nfs3_commit_async(struct nfs3_clnt *c, struct nfs3_call *call,
		      const struct nfs3_fh *fh, uint64_t offset, uint32_t count,
		      struct nfs3_commit_res *res);

/* --------------------------------------------------------------- MOUNT
 * MOUNT procedures on an RPC client of their own (nfs3_mnt_clnt_create):
 * nfs3_mount() uses them and closes that client again.
 */

/**
 * nfs3_mnt_clnt_create() - RPC client for MOUNT v3 from @opts (host,
 * mount_port, ids, timeouts); destroy it with rpc_clnt_destroy()
 */
int nfs3_mnt_clnt_create(struct rpc_clnt **mcp, const struct nfs3_opts *opts);

int nfs3_mnt_null(struct rpc_clnt *mc);
int nfs3_mnt_null_async(struct rpc_clnt *mc, struct nfs3_call *call);

/** nfs3_mnt_mnt() - MNT @path: its root handle and auth flavours */
int nfs3_mnt_mnt(struct rpc_clnt *mc, const char *path,
		 struct nfs3_mnt_res *res);
int nfs3_mnt_mnt_async(struct rpc_clnt *mc, struct nfs3_call *call,
		       const char *path, struct nfs3_mnt_res *res);

/** nfs3_mnt_dump() - DUMP: the server's list of (host, dir) mounts */
int nfs3_mnt_dump(struct rpc_clnt *mc, struct nfs3_mnt_list *res);
int nfs3_mnt_dump_async(struct rpc_clnt *mc, struct nfs3_call *call,
			struct nfs3_mnt_list *res);

int nfs3_mnt_umnt(struct rpc_clnt *mc, const char *path);
int nfs3_mnt_umnt_async(struct rpc_clnt *mc, struct nfs3_call *call,
			const char *path);

int nfs3_mnt_umntall(struct rpc_clnt *mc);
int nfs3_mnt_umntall_async(struct rpc_clnt *mc, struct nfs3_call *call);

/** nfs3_mnt_export() - EXPORT: the exports and the groups allowed */
int nfs3_mnt_export(struct rpc_clnt *mc, struct nfs3_mnt_list *res);
int nfs3_mnt_export_async(struct rpc_clnt *mc, struct nfs3_call *call,
			  struct nfs3_mnt_list *res);

/* ------------------------------------------------------------- helpers */

/**
 * nfs3_lookup_path() - LOOKUP each component of @path from the root
 * @path: "a/b/c" or "/a/b/c" (relative to the export root); "" or "/" is
 *	the root; "." components are skipped, ".." is sent to the server
 * @fh: receives the handle
 * @attr: optional; receives the object's attributes (GETATTR when the
 *	LOOKUP reply had none)
 * Context: blocks.
 * Return: %0; the first failing LOOKUP's errno (%-ENOENT, %-ENOTDIR...);
 * %-ENAMETOOLONG for a component over %NFS3_MAXNAMLEN.
 */
int nfs3_lookup_path(struct nfs3_clnt *c, const char *path, struct nfs3_fh *fh,
		     struct nfs3_fattr *attr);

/**
 * nfs3_dir_fn - called for each entry by nfs3_readdirplus_iter()
 * Return: 0 to go on, anything else to stop (returned by the iterator).
 */
typedef int (*nfs3_dir_fn)(const struct nfs3_dirent *e, void *arg);

/**
 * nfs3_readdirplus_iter() - list a directory with READDIRPLUS
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
int nfs3_readdirplus_iter(struct nfs3_clnt *c, const struct nfs3_fh *dir,
			  uint64_t max_entries, nfs3_dir_fn fn, void *arg);

struct nfs3_file;

/**
 * nfs3_resupply_fn - give the bytes [@offset, @offset + @len) of the file
 * again, into @buf, for a resend after the server lost unstable writes
 * Return: 0, or a negative errno that fails the fsync.
 * Runs on the thread that called nfs3_file_fsync()/nfs3_file_close().
 */
typedef int (*nfs3_resupply_fn)(void *arg, uint64_t offset, void *buf,
				size_t len);

/**
 * struct nfs3_file_opts - how a file writes
 * @stable: enum nfs3_stable_how for its writes (default UNSTABLE)
 * @resupply, @resupply_arg: where unstable data comes from again after a
 *	server restart.  When NULL the file keeps a copy of every unstable
 *	write until it is committed (memory = the uncommitted bytes, bounded
 *	by @max_uncommitted); with a resupply function it keeps only the
 *	ranges (a few bytes per non-contiguous range).
 * @max_uncommitted: fsync automatically once this many bytes are
 *	uncommitted (0 = 64 MiB)
 */
struct nfs3_file_opts {
	uint32_t stable;
	nfs3_resupply_fn resupply;
	void *resupply_arg;
	size_t max_uncommitted;
};

/* nfs3_open() flags: O_CREAT, O_EXCL, O_TRUNC from <fcntl.h> (others
 * ignored) */

/**
 * nfs3_open() - look up (and with O_CREAT create) a file by path
 * @path: relative to the export root; the last component is the file
 * @flags: O_CREAT (create if missing, UNCHECKED), O_CREAT|O_EXCL
 *	(GUARDED: -EEXIST if it exists), O_TRUNC (size 0)
 * @mode: permission bits for a new file
 * @fo: NULL for defaults
 * @fp: receives the file
 * Context: blocks.
 * Return: %0; %-EISDIR when @path names a directory; an NFS or RPC error.
 */
int nfs3_open(struct nfs3_clnt *c, const char *path, int flags, uint32_t mode,
	      const struct nfs3_file_opts *fo, struct nfs3_file **fp);

/** nfs3_file_fh() - the file's handle */
const struct nfs3_fh *nfs3_file_fh(const struct nfs3_file *f);

/**
 * nfs3_file_pread() - read up to @count bytes at @offset
 * @nread: receives the bytes read: @count unless the file ends first
 *
 * Splits at the client's rsize and keeps the pieces in flight together;
 * re-reads the rest of a short piece that is not at the end of file.
 * Context: blocks.  Return: %0 or a negative errno.
 */
int nfs3_file_pread(struct nfs3_file *f, void *buf, size_t count,
		    uint64_t offset, size_t *nread);

/**
 * nfs3_file_pwrite() - write @count bytes at @offset
 *
 * Splits at wsize, pieces in flight together; resends the rest of a
 * short write.  Unstable writes are remembered until nfs3_file_fsync()
 * (see struct nfs3_file_opts).  Context: blocks.
 * Return: %0 when every byte was written; a negative errno.
 */
int nfs3_file_pwrite(struct nfs3_file *f, const void *buf, size_t count,
		     uint64_t offset);

/**
 * nfs3_file_fsync() - COMMIT the file's unstable writes, checking the
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
int nfs3_file_fsync(struct nfs3_file *f);

/**
 * struct nfs3_file_stats - what fsync had to do
 * @commits: COMMIT calls; @verf_changes: verifier changes seen;
 * @resent_bytes: bytes written again after them
 * @uncommitted: bytes written unstable and not yet committed
 */
struct nfs3_file_stats {
	uint64_t commits, verf_changes, resent_bytes, uncommitted;
};

/** nfs3_file_stats() - snapshot of @f's counters */
void nfs3_file_stats(struct nfs3_file *f, struct nfs3_file_stats *st);

/**
 * nfs3_file_close() - fsync (when anything is uncommitted) and free
 * Return: the fsync's result; the file is freed in any case.
 */
int nfs3_file_close(struct nfs3_file *f);

/* ------------------------------------------------- split async I/O */

#define NFS3_PIO_MAX 16u /* pieces of one async pread/pwrite */

struct nfs3_pio;

/**
 * nfs3_pio_fn - completion of nfs3_pread_async()/nfs3_pwrite_async()
 * @status: 0 or the first piece's error
 * @done: bytes transferred contiguously from the start (a short count
 *	is possible, as with pread(2)/pwrite(2): call again for the rest)
 * @eof: a read reached the end of file
 * Runs on a receive thread, or on the submitting thread when every piece
 * completed before nfs3_pread_async()/nfs3_pwrite_async() returned; must
 * not block.  @io is free for reuse when this is entered.
 */
typedef void (*nfs3_pio_fn)(struct nfs3_pio *io, int status, size_t done,
			    bool eof, void *arg);

/**
 * struct nfs3_pio - one split async read or write, owned by the caller
 * @done, @arg, @owner, @flags: as in struct nfs3_call (set by caller)
 *
 * About 5 KiB (a call and a result per piece): allocate it once per
 * outstanding I/O and reuse it.
 */
struct nfs3_pio {
	nfs3_pio_fn done;
	void *arg;
	uint64_t owner;
	unsigned int flags;
	/* private to the library */
	struct nfs3_clnt *clnt_;
	void *buf_;
	uint64_t offset_;
	size_t count_;
	bool write_;
	unsigned int npieces_;
	unsigned int left_; /* atomic */
	struct nfs3_pio_piece {
		struct nfs3_call call;
		struct iovec iov;
		uint64_t offset;
		uint32_t count;
		union {
			struct nfs3_read_res rd;
			struct nfs3_write_res wr;
		} res;
		int status;
	} piece_[NFS3_PIO_MAX];
};

/**
 * nfs3_pread_async() - READ @count bytes (at most %NFS3_PIO_MAX pieces of
 * rsize) at @offset into @buf, the pieces in flight together
 * Return: %0 (@io->done will run once); %-EINVAL (too large, bad args);
 * %-EAGAIN/%-ENOBUFS with %NFS3_CALL_NOWAIT when the first piece could
 * not start (a later piece that cannot start ends the I/O short).
 */
int nfs3_pread_async(struct nfs3_clnt *c, struct nfs3_pio *io,
		     const struct nfs3_fh *fh, void *buf, size_t count,
		     uint64_t offset);

/**
 * nfs3_pwrite_async() - WRITE @count bytes from @buf at @offset in wsize
 * pieces (at most %NFS3_PIO_MAX), with stability @stable.  Unstable data
 * is the caller's to commit (nfs3_commit()); use nfs3_file_pwrite() for
 * tracked writes.
 */
int nfs3_pwrite_async(struct nfs3_clnt *c, struct nfs3_pio *io,
		      const struct nfs3_fh *fh, const void *buf, size_t count,
		      uint64_t offset, uint32_t stable);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_NFS3_H */
