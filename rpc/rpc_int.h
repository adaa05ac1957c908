/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SunRPC client internals shared by the files of rpc/.  Not installed.
 */
#ifndef LX_RPC_RPC_INT_H
#define LX_RPC_RPC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <libxprt/proto/rdma.h>
#include <libxprt/rpc.h>
#include <libxprt/proto/xprt.h>

#include "xprt/core/proto.h"

#define LX_RPC_MAX_CONN	     16u
#define LX_RPC_HDR_MAX	     512u /* call header: 40 + cred (<= 400) + verf */
#define LX_RPC_CALL_PROC_OFF 20u

struct lx_rpc_task;

/**
 * struct lx_rpc_later - async calls waiting to be sent again (rpc_again.c)
 * @lock, @cond: the list and the thread's sleep
 * @thread: the retry thread, started at the first call that waits
 * @head: the waiting calls (few: an unsorted list)
 * @busy: the request the thread is resubmitting now
 * @cancel: @busy was cancelled meanwhile
 * @loop: caller-driven mode: no thread, the owner's service resubmits
 */
struct lx_rpc_later {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started, stop;
	struct lx_rpc_task *head;
	struct lx_xprt_req *busy;
	bool cancel;
	bool loop;
};

/**
 * struct lx_rpc_clnt - a client
 * @x: one transport per connection
 * @next_conn: round-robin cursor
 * @xid: random XID base (see lx_rpc_xid()); with @xid_pinned, the next XID
 * @xid_pinned: XIDs come from @xid, sequential (the fuzz harness replays
 *	captured replies with their XIDs)
 * @xid_shift: bits of the XID that carry the request's slot
 * @hdr: pre-encoded call header template (XID and procedure patched per
 *	call), through libtirpc's xdr_callmsg
 * @hdr_len: its length
 * @loop_ep: caller-driven mode with several connections: an epoll set of
 *	their loop descriptors, the client's one descriptor (-1 otherwise)
 */
struct lx_rpc_clnt {
	struct lx_rpc_opts opts;
	struct lx_xprt *x[LX_RPC_MAX_CONN];
	unsigned int nconn;
	struct lx_xprt_pool *pool;
	atomic_uint next_conn;
	atomic_uint xid;
	bool xid_pinned;
	unsigned int xid_shift;
	uint8_t hdr[LX_RPC_HDR_MAX];
	size_t hdr_len;
	char machine[256];
	struct lx_xprt_rdma_opts rdma;
	struct lx_rpc_later later;
	int loop_ep; /* caller-driven, nconnect > 1: the connections' set */
};

/**
 * lx_rpc_complete_fn - a layer above finishing an async call before its
 * caller's done() (nfs3: the NFS status as an errno); it calls done()
 */
typedef void (*lx_rpc_complete_fn)(struct lx_call *call, int status);

/**
 * struct lx_rpc_task - per-call state, in the request's private area
 * @call: the caller's call object (NULL for a sync call)
 * @complete: see lx_rpc_complete_fn (NULL: @call->done directly)
 */
struct lx_rpc_task {
	uint32_t xid_gen; /* uses of the slot (kept across calls) */
	struct lx_rpc_clnt *cl;
	uint32_t xid;
	xdrproc_t dec;
	void *res;
	struct lx_call *call;
	lx_rpc_complete_fn complete;
	lx_rpc_body_place_fn place;
	void *place_arg;
	bool has_rx_dst; /* rx_dst (below) is set */
	/* for RPC-over-RDMA chunk decisions (rpc_rdma_ulp.c): the payload
	 * is tx_segs[0 .. payload_segs) of the request, XDR pad after it */
	unsigned int payload_segs;
	size_t payload_len;
	size_t reply_hint;
	bool sync;
	unsigned int retries;
	uint64_t timeo_ns;
	uint64_t deadline_ns; /* monotonic; 0: none (lx_rpc_call_args) */
	int status;
	struct lx_rpc_reply_info info;
	/* sent again after its reply (lx_rpc_call_args.again, rpc_again.c) */
	lx_rpc_again_fn again;
	void *again_arg;
	unsigned int again_tries;
	unsigned int again_ms; /* sync: the waiter sleeps this, then sends */
	/* from here on set before use: not cleared per call (lx_rpc_start) */
	uint32_t next_xid;	    /* the XID it goes out with next */
	struct lx_xprt_iter rx_dst; /* where bulk results go: has_rx_dst */
	struct lx_xprt_req *req;
	struct lx_rpc_task *later_next;
	uint64_t later_due;
};

static inline struct lx_rpc_task *lx_rpc_task_of(struct lx_xprt_req *req)
{
	return lx_xprt__req_priv(req);
}

/* rpc_clnt.c */
/**
 * lx_rpc_reply_hdr_len() - length of an RPC reply header (through
 * accept_stat) in its first @have bytes
 * Return: the length; 0 when more bytes are needed; -EBADMSG.
 * *@accepted tells whether the call was accepted with SUCCESS.
 */
long lx_rpc_reply_hdr_len(const uint8_t *p, size_t have, bool *accepted);

/**
 * lx_rpc_reply_place() - ask @t's place hook where the bulk data of the
 * reply that begins with the @have bytes at @p lies
 * @t: the task; its @place hook is set
 * @r: (out) for a complete header of a call accepted with SUCCESS, the
 *	hook's answer (< 0 an error, > 0 the bytes of results it needs, 0
 *	it has placed the data); else 0
 * @off: (out) the data's offset in the results
 * @len: (out) its length; 0 when there is none
 *
 * Return: as lx_rpc_reply_hdr_len().
 * Context: the transports' receive paths (inline: once per reply that
 * expects bulk data); no allocation.
 */
static inline long lx_rpc_reply_place(struct lx_rpc_task *t, const uint8_t *p,
				      size_t have, int *r, size_t *off,
				      size_t *len)
{
	bool accepted;
	long hlen;

	*off = 0;
	*len = 0;
	*r = 0;
	hlen = lx_rpc_reply_hdr_len(p, have, &accepted);
	if (hlen > 0 && accepted)
		*r = t->place(t->place_arg, p + hlen, have - (size_t)hlen, off,
			      len);
	return hlen;
}

/* rpc_rdma_ulp.c: RPC-over-RDMA as the RDMA transport's binding */
struct lx_xprt_rdma_ulp;
extern const struct lx_xprt_rdma_ulp lx_rpc_rdma_ulp;

/**
 * lx_rpc__create() - lx_rpc_create() on a known port
 * @ulp: the RPC-over-RDMA binding for an RDMA transport (NULL over TCP)
 *
 * rpc_create.c adds the rpcbind lookup on top (through rpc_rpcb.c, which
 * itself builds its clients with this): the port lookup sits above the
 * client instead of in a circle with it.
 * Return: as lx_rpc_create(); %-EINVAL for a port of 0.
 */
int lx_rpc__create(struct lx_rpc_clnt **clp, const struct lx_rpc_opts *opts,
		   const struct lx_xprt_rdma_ulp *ulp);

/**
 * lx_rpc__call_async() - lx_rpc_call_async() with a layer's completion
 * @complete: runs instead of @call->done (and must call it); NULL: none
 */
int lx_rpc__call_async(struct lx_rpc_clnt *cl, struct lx_call *call,
		       const struct lx_rpc_call_args *a,
		       lx_rpc_complete_fn complete);

/* rpc_again.c: calls sent again under a new XID (NFS3ERR_JUKEBOX) */
/** lx_rpc_again_init() - the client's retry list (at create) */
int lx_rpc_again_init(struct lx_rpc_clnt *cl);
/**
 * lx_rpc_again_queue() - an async call waits @ms, then goes out again
 * with t->next_xid.  From its done hook.  Return: 0; %-ESHUTDOWN (the
 * client is going away) or a thread error: complete it as it is.
 */
int lx_rpc_again_queue(struct lx_xprt_req *req, unsigned int ms);
/**
 * lx_rpc_again_send() - patch in t->next_xid and resubmit now
 * Return: as lx_xprt_req_resubmit(); on 0 the caller holds an extra
 * reference to put.
 */
int lx_rpc_again_send(struct lx_xprt_req *req);
/**
 * lx_rpc_again_cancel() - cancel a call that waits to go out again
 * Return: 1 when it did (done() ran with -ECANCELED, or runs once the
 * retry thread has let go of it), 0 when the call was not waiting.
 */
int lx_rpc_again_cancel(struct lx_xprt_req *req);
/** lx_rpc_again_stop() - at destroy: the waiting calls end -ESHUTDOWN */
void lx_rpc_again_stop(struct lx_rpc_clnt *cl);

/* caller-driven mode: calls wait on the loop of @cl's transport instead
 * of a retry thread (lx_xprt__loop_set_hook()) */
void lx_rpc_again_loop(struct lx_rpc_clnt *cl);

/* rpc_auth.c */
int lx_rpc_build_header(struct lx_rpc_clnt *cl);

/* rpc_rpcb.c: the GETPORT of lx_rpc_create(), on a client of @mode */
int lx_rpcbind_getport_tcp(const char *host, uint32_t prog, uint32_t vers,
			   enum lx_xprt_mode mode, uint16_t *port);

#endif /* LX_RPC_RPC_INT_H */
