/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 9P client internals shared by the files of p9/.  Not installed.
 *
 * Files:
 *   p9_enc.c   encoder (no client state)
 *   p9_dec.c   decoder (no client state)
 *   p9_flush.c Tflush: cancel and timeout of calls in flight
 *   p9_clnt.c  connect (version, pool sizing, attach), close, accessors
 *   p9_req.c   the bottom of the request engine: encode, broken (the
 *              submit is inline, below)
 *   p9_call.c  the request engine: start, reply placement, completion,
 *              timeouts, sync and async calls
 *   p9_fid.c   fid allocator and per-fid iounit
 *   p9_ops.c   one sync call per message
 *   p9_path.c  path helpers, pipelined pread/pwrite, directories
 */
#ifndef LX_P9_P9_INT_H
#define LX_P9_P9_INT_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <libxprt/p9.h>
#include <libxprt/proto/tags.h>
#include <libxprt/proto/xprt.h>

#include "xprt/blocks/byteorder.h"
#include "xprt/core/call_int.h"
#include "xprt/core/proto.h"

/* Tflush messages in flight for one call at most (lx_call_cancel() -EBUSY) */
#define LX_P9_MAX_FLUSH	      4u
/* Entries one directory listing may have (lx_p9_readdir_next()), as
 * the NFSv3 iterator's default; lx_p9__dir_max_entries holds it, and
 * only tests lower it, to reach the bound without 16 Mi entries */
#define LX_P9_DIR_MAX_ENTRIES (16ull << 20)
extern uint64_t lx_p9__dir_max_entries;
/* Retry period when no slot is free to send a Tflush from */
#define LX_P9_FLUSH_RETRY_NS	5000000ull
#define LX_P9_DEF_MAX_REQS	64u
/* Linux trans_rdma's default send/receive queue depth (its sq=, rq=) */
#define LX_P9_RDMA_DEF_MAX_REQS 32u
#define LX_P9_DEF_MAX_FIDS	1024u
#define LX_P9_DEF_TIMEOUT_MS	30000u
#define LX_P9_DEF_CONNECT_MS	5000u
#define LX_P9_RREAD_HDR		11u /* size[4] type[1] tag[2] count[4] */
/* size[4] type[1] tag[2] fid[4] offset[8] count[4]: Tread, Treaddir, and
 * Twrite's header (its data follows from the caller's memory) */
#define LX_P9_TIO_HDR		23u

/**
 * struct lx_p9_clnt - a session
 * @x: the transport (one connection; LX_XPRT_FAIL policy)
 * @pool: buffers of msize bytes
 * @boot_pool: the pool Tversion ran on when the server lowered msize
 *	(kept until close: the receive thread may still cache its buffers)
 * @fids: fid allocator (a tag map of max_fids)
 * @iounit: per fid, the iounit Rlopen/Rlcreate gave (0: iosize)
 * @msize: negotiated
 * @iosize: msize - LX_P9_IOHDRSZ
 * @timeout_ns: per call, 0 = none
 * @flush_lock: the flush state of every call (rare path only)
 * @broken: the session cannot go on (a Tflush answered with an error,
 *	or no slot to flush from): new calls fail with -ENOTCONN
 * @killed: the connection was dropped for @broken
 * @fl_stuck: Tflushes past their deadline still waiting for an Rflush
 *	(each holds two slots)
 * @closing: lx_p9_destroy() runs
 */
struct lx_p9_clnt {
	struct lx_p9_opts opts;
	char *host, *aname, *uname;
	struct lx_xprt *x;
	struct lx_xprt_pool *pool;
	struct lx_xprt_pool *boot_pool;
	struct lx_xprt_tags *fids;
	_Atomic uint32_t *iounit;
	uint32_t msize;
	uint32_t iosize;
	uint32_t root_fid;
	struct lx_p9_qid root_qid;
	bool attached;
	uint64_t timeout_ns;
	pthread_mutex_t flush_lock;
	atomic_bool broken;
	atomic_bool killed;
	atomic_uint fl_stuck;
	atomic_bool closing;
	struct {
		atomic_ullong calls, flushes, flush_replies, late_replies;
		atomic_ullong flush_expired, fids_lost;
	} st;
};

enum lx_p9_call_kind {
	LX_P9C_SYNC,	/* a thread waits in lx_xprt_req_done_wait() */
	LX_P9C_ASYNC,	/* lx_p9_call_async(): call->res is the reply */
	LX_P9C_IO,	/* Tread/Twrite fast path: call->count */
	LX_P9C_FLUSH,	/* an internal Tflush */
	LX_P9C_VERSION, /* Tversion: NOTAG, never flushed */
};

/**
 * struct lx_p9_call - per-call state in the request's private area
 * @c: the client
 * @ttype: the T-message type sent
 * @kind: enum lx_p9_call_kind
 * @server_err: @status is an errno the server sent
 * @finished: done() has started (lx_call_cancel() answers -EALREADY)
 * @status: the outcome (sync calls read it after the wait)
 * @want: Tread/Treaddir count (placement bound), Twrite count, Twalk
 *	nwname: what the reply may not exceed
 * @rdata: where Rread/Rreaddir data lands; NULL: in the reply buffer
 * @rd_iov: the iterator's segment over @rdata
 * @timeout_ns: this call's timeout
 * @call: the caller's call object (async kinds)
 * @rx: the decoded reply
 * @target: a Tflush: the call it flushes (a reference is held on it)
 * @fl_status: the outcome flushing will give (-ETIMEDOUT, -ECANCELED);
 *	0 while the call is not being flushed
 * @fl_finish: its timer must now complete it with @fl_status
 * @fl_grace: how long a Tflush waits for its Rflush before the call
 *	completes anyway (the call's timeout, or the client's, or 30 s)
 * @fl_deadline: give up finding a slot for the Tflush after this
 * @fl_used: the flush state below (and above from @fl_status) was touched:
 *	lx_p9_flush_reset() must clear it before the slot's next call (only
 *	then, so a call never flushed costs no stores for it)
 * The rest under c->flush_lock:
 * @fl_n, @fl: Tflush requests in flight for this call, oldest first
 * @fl_want: Tflush wanted but not sent yet (no slot was free)
 * @fl_busy: of those, being sent by some thread right now
 * @fl_confirmed: an Rflush answered the call's flush: if the call failed
 *	with its flush status, the server never acted on it
 * @fl_sent: (a Tflush) its submission has returned
 * @fl_orphan: (a Tflush) answered by a later Tflush's Rflush before its
 *	submission returned: its sender ends it
 * @fl_stuck: (a Tflush) past its deadline, counted in c->fl_stuck
 */
struct lx_p9_call {
	struct lx_p9_clnt *c;
	uint8_t ttype;
	uint8_t kind;
	bool server_err;
	atomic_bool finished;
	int status;
	uint32_t want;
	void *rdata;
	struct iovec rd_iov;
	uint64_t timeout_ns;
	struct lx_call *call;
	struct lx_p9_fcall rx;

	struct lx_xprt_req *target;
	atomic_int fl_status;
	atomic_bool fl_finish;
	uint64_t fl_grace;
	uint64_t fl_deadline;
	bool fl_used;
	unsigned int fl_n;
	unsigned int fl_want;
	unsigned int fl_busy;
	struct lx_xprt_req *fl[LX_P9_MAX_FLUSH];
	bool fl_confirmed;
	bool fl_sent;
	bool fl_orphan;
	atomic_bool fl_stuck;
};

static inline struct lx_p9_call *lx_p9_call_of(struct lx_xprt_req *req)
{
	return lx_xprt__req_priv(req);
}

/**
 * struct lx_p9_result - what a sync call tells its internal caller
 * @req: the request, held: @rx points into its buffer; put it when done
 *	(NULL on error)
 * @rx: the reply
 * @server_err: the error came from the server (not local)
 * @unknown: a local error after which the server may still have acted on
 *	the call (timeout or cancel without an Rflush, connection loss)
 */
struct lx_p9_result {
	struct lx_xprt_req *req;
	struct lx_p9_fcall rx;
	bool server_err;
	bool unknown;
};

/* p9_req.c */
void lx_p9_mark_broken(struct lx_p9_clnt *c);
void lx_p9_set_broken(struct lx_p9_clnt *c);
int lx_p9_gone(struct lx_p9_clnt *c);
int lx_p9_encode_req(struct lx_xprt_req *req, const struct lx_p9_fcall *tx,
		     uint16_t tag);

/* Submit under @key, the call's timer armed by the submit itself (before
 * the call can complete).  Inline: once per call. */
static inline int lx_p9_submit(struct lx_xprt_req *req, uint16_t key)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_p9_clnt *c = pc->c;
	int err;

	req->timeout_ns = pc->timeout_ns;
	req->no_orphan = true; /* Tflush keeps the tag (p9_flush.c) */
	err = lx_xprt_req_submit(req, key);
	if (!err)
		atomic_fetch_add_explicit(&c->st.calls, 1,
					  memory_order_relaxed);
	return err == -ESHUTDOWN ? lx_p9_gone(c) : err;
}

/*
 * The header of a Tread, Treaddir or Twrite at @p (LX_P9_TIO_HDR bytes),
 * byte for byte as lx_p9_msg_encode() writes it: a Twrite's size counts
 * its @count data bytes (sent after it from the caller's memory).  The
 * caller keeps @count within msize.  Inline: the I/O fast paths' encoder.
 */
static inline void lx_p9_put_io_hdr(uint8_t *p, uint8_t type, uint16_t tag,
				    uint32_t fid, uint64_t offset,
				    uint32_t count)
{
	lx_xprt_put_le32(p, type == LX_P9_TWRITE ? LX_P9_TIO_HDR + count :
						   LX_P9_TIO_HDR);
	p[4] = type;
	lx_xprt_put_le16(p + 5, tag);
	lx_xprt_put_le32(p + 7, fid);
	lx_xprt_put_le64(p + 11, offset);
	lx_xprt_put_le32(p + 19, count);
}

/* p9_call.c */
extern const struct lx_xprt_req_ops lx_p9_req_ops;
int lx_p9_rpc(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
	      const struct lx_p9_call_opts *o, struct lx_p9_result *res);
/* lx_p9_rpc() with %LX_CALL_NOWAIT in @flags: never waits for a slot */
int lx_p9_rpc_flags(struct lx_p9_clnt *c, const struct lx_p9_fcall *tx,
		    const struct lx_p9_call_opts *o, unsigned int flags,
		    struct lx_p9_result *res);
void lx_p9_result_put(struct lx_p9_result *res);
int lx_p9_version_call(struct lx_p9_clnt *c, uint32_t msize,
		       struct lx_p9_str version, struct lx_p9_result *res);

/* p9_flush.c: p9_call.c's hooks (timeout, cancel) hand over to these */
extern const struct lx_xprt_req_ops lx_p9_flush_ops;
int lx_p9_flush_start(struct lx_xprt_req *req, int status);
void lx_p9_flush_reset(struct lx_p9_call *pc);
void lx_p9_flush_send(struct lx_xprt_req *req);

/* p9_fid.c */
int lx_p9_fids_init(struct lx_p9_clnt *c);
void lx_p9_fids_destroy(struct lx_p9_clnt *c);
void lx_p9_fid_lose(struct lx_p9_clnt *c, uint32_t fid);
void lx_p9_fid_set_iounit(struct lx_p9_clnt *c, uint32_t fid, uint32_t iounit);

/* A fid number of this session's allocator (in use or not). */
static inline bool lx_p9_fid_valid(const struct lx_p9_clnt *c, uint32_t fid)
{
	return c->fids && fid < c->opts.max_fids;
}

/* What one Tread/Twrite on @fid may carry: its iounit, at most iosize
 * (inline: once per call on the I/O paths). */
static inline uint32_t lx_p9_fid_iosize(struct lx_p9_clnt *c, uint32_t fid)
{
	uint32_t io = 0;

	if (lx_p9_fid_valid(c, fid))
		io = atomic_load_explicit(&c->iounit[fid],
					  memory_order_relaxed);
	return io && io < c->iosize ? io : c->iosize;
}

/* p9_ops.c */
int lx_p9_check_name(const char *name);

#endif /* LX_P9_P9_INT_H */
