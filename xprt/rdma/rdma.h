/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RDMA transport internals shared with its upper-layer bindings (ULPs):
 * RPC-over-RDMA in rpc/rpc_rdma_ulp.c, whole 9P messages in
 * xprt/rdma/rdma_msg.c.
 *
 * The transport owns the connection (RDMA-CM, QP, CQs), the receive
 * buffers and their posting, the send queue accounting and the memory
 * registrations; a ULP decides what a Send carries (marshal), what a
 * received message means (receive) and what to undo when a request ends
 * (release).  The ULP calls back into the transport through the
 * lx_xprt_rdma_*() services below.
 *
 * Threads: marshal runs under the transport's transmit lock (the
 * submitting thread or the transmit worker); receive runs on the poller
 * (the transport's receive thread); release runs on whichever thread
 * delivers the request's completion, before done().  The three never
 * overlap for one request: the core's request state serialises them.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_RDMA_H
#define LX_XPRT_RDMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <libxprt/proto/rdma.h>

#include "xprt/core/xprt_int.h"

/* header + send buffer + every payload segment registered apart */
#define LX_XPRT_RDMA_MAX_SEND_SGE (2 + LX_XPRT_REQ_MAX_TX_SEGS)
/* registrations one request may hold: Read, Write and Reply chunks */
#define LX_XPRT_RDMA_SLOT_MRS	  40u
/* memory windows one request may bind: one per chunk segment */
#define LX_XPRT_RDMA_SLOT_WINS	  LX_XPRT_RDMA_SLOT_MRS

struct lx_xprt_rdma_mr;
struct lx_xprt_rqst;

/**
 * struct lx_xprt_rdma_params - what one connection negotiated
 * @gen: changes when a connection negotiates other parameters (device,
 *	thresholds, gather entries) than the previous one: a ULP's prepared
 *	chunks and headers stay valid while it does not
 * @inline_send, @inline_recv: RPC-over-RDMA thresholds in force
 * @max_send_sge: gather entries a Send may use
 * @dev: index of the device in the registry (pool slab lkeys)
 * @windows: chunks are exposed through memory windows on this connection
 *	(else through registrations, per call or cached)
 * @remote_inv: we offered Send With Invalidate (RFC 8797 SND_W_INV_OK)
 * @cookie: the connection's connect cookie (windows are bound to it)
 * @max_seg: largest chunk segment a ULP may advertise: the option
 *	max_seg_size, else the device's largest registration, at most
 *	UINT32_MAX (a segment's length is one XDR word)
 */
struct lx_xprt_rdma_params {
	uint32_t gen;
	uint32_t cookie;
	unsigned int inline_send;
	unsigned int inline_recv;
	unsigned int max_send_sge;
	unsigned int dev;
	uint32_t max_seg;
	bool windows;
	bool remote_inv;
};

/**
 * struct lx_xprt_rdma_win - one memory window a request slot owns
 * @mw: the type 2 window (NULL until first needed, or after it was
 *	deallocated with a dead connection)
 * @mem: the caller region it is bound over (its busy count), or NULL
 * @rkey: the key the last bind advertised
 * @live: bound (the bind was posted) and not invalidated yet
 */
struct lx_xprt_rdma_win {
	struct ibv_mw *mw;
	struct lx_xprt_rdma_mem *mem;
	uint32_t rkey;
	bool live;
};

/**
 * struct lx_xprt_rdma_slot - the transport's state of one request slot
 * @hdr: the ULP's header area (ulp->hdr_size bytes, registered)
 * @hdr_lkey: its local key
 * @mrs, @nmrs: registrations the request holds (chunks, payload SGEs)
 * @prepared: the ULP marshalled it for connection parameters @gen
 * @gen: see @prepared
 * @recv_cookie: whole messages: a receive was posted for the request on
 *	this connection (0: none)
 * @got_reply: whole messages: a reply consumed that receive
 * @published: release/acquire edge from marshal (sending thread) to the
 *	poller that reads the slot when the reply comes
 * @ulp: the ULP's per-slot state (ulp->slot_priv bytes)
 * @win: memory windows (window mode); [0, @nwin) belong to the call now,
 *	each holding a window of the transport's while it is live
 * @win_cookie: connection the call's windows were bound on
 * @inv_reserved: send queue entries reserved on that connection for the
 *	windows' local invalidation
 * @inv_pending: local invalidations are posted and the request is held
 *	(pinned) until they complete
 *
 * Window state is the slot's own while its request is marshalled (transmit
 * lock) or completed (the poller, or whoever delivers done()); the sweep
 * of a dead connection and release take tp->lock.
 */
struct lx_xprt_rdma_slot {
	uint8_t *hdr;
	uint32_t hdr_lkey;
	struct lx_xprt_rdma_mr *mrs[LX_XPRT_RDMA_SLOT_MRS];
	unsigned int nmrs;
	bool prepared;
	uint32_t gen;
	uint32_t recv_cookie;
	atomic_bool got_reply;
	atomic_uint published;
	void *ulp;
	struct lx_xprt_rdma_win win[LX_XPRT_RDMA_SLOT_WINS];
	unsigned int nwin;
	uint32_t win_cookie;
	unsigned int inv_reserved;
	bool inv_pending;
	bool inv_swept;
};

/**
 * struct lx_xprt_rdma_send - one Send as a ULP describes it
 * @sge: gather list; @nsge entries
 * @bytes: total length (for counters)
 * @bind: window binds to post before the Send, in the same chain;
 *	@nbind of them (lx_xprt_rdma_chunk() adds them)
 */
struct lx_xprt_rdma_send {
	struct ibv_sge sge[LX_XPRT_RDMA_MAX_SEND_SGE];
	unsigned int nsge;
	size_t bytes;
	struct ibv_send_wr bind[LX_XPRT_RDMA_SLOT_WINS];
	unsigned int nbind;
};

/**
 * struct lx_xprt_rdma_ulp - an upper-layer binding
 * @name: for messages
 * @framing: the framing whose keys the ULP uses (lx_xprt_opts.framing may be
 *	left NULL for RDMA; this one is taken then)
 * @hdr_size: bytes of registered header area per slot (0: none)
 * @slot_priv: bytes of ULP state per slot
 * @per_request_recv: post one receive per request before its Send and
 *	keep excess accounting (9P trans_rdma); otherwise receives follow
 *	the credit window
 * @def_rnr_retry: RNR retry count when the options do not set it
 * @recv_size: size of each receive buffer for transport @x
 * @conn_pdata: write the RDMA-CM connect private data into @buf (up to
 *	@cap bytes) for a connection with parameters @p (device, windows
 *	known; set @p->remote_inv when offering Send With Invalidate);
 *	return its length, 0 for none, or a negative errno
 * @conn_params: the connection is established; @pdata (@len bytes, may be
 *	NULL) is the server's private data; fill @p's thresholds
 * @marshal: prepare @rq for a Send on this connection: chunk
 *	registrations (kept in @s across resends), header in @s->hdr, the
 *	gather list in @snd.  Return 0, or a negative errno that fails this
 *	request only.
 * @receive: a message of @len bytes arrived in @buf (valid during the
 *	call only); decode it, find its request and complete it with
 *	lx_xprt_rdma_complete().  Return 1 when it completed a request, 0
 *	when it was dropped.
 * @release: @rq's outcome is @status and done() is about to run: reset
 *	the ULP's per-call state (the transport drops windows and
 *	registrations itself, after this)
 */
struct lx_xprt_rdma_ulp {
	const char *name;
	const struct lx_xprt_framing_ops *framing;
	unsigned int hdr_size;
	size_t slot_priv;
	bool per_request_recv;
	unsigned int def_rnr_retry;
	size_t (*recv_size)(const struct lx_xprt *x,
			    const struct lx_xprt_rdma_opts *o);
	int (*conn_pdata)(struct lx_xprt *x, struct lx_xprt_rdma_params *p,
			  void *buf, size_t cap);
	void (*conn_params)(struct lx_xprt *x, const void *pdata, size_t len,
			    struct lx_xprt_rdma_params *p);
	int (*marshal)(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		       struct lx_xprt_rdma_slot *s,
		       struct lx_xprt_rdma_send *snd);
	int (*receive)(struct lx_xprt *x, void *buf, size_t len);
	void (*release)(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			struct lx_xprt_rdma_slot *s, int status);
};

/* whole messages, as Linux's 9P trans_rdma (xprt/rdma/rdma_msg.c) */
extern const struct lx_xprt_rdma_ulp lx_xprt_rdma_ulp_msg;

/* ---- transport services for ULPs (xprt/rdma/rdma.c) ---- */

/** lx_xprt_rdma_opts_of() - the resolved options of @x */
const struct lx_xprt_rdma_opts *lx_xprt_rdma_opts_of(const struct lx_xprt *x);

/**
 * lx_xprt_rdma_params_of() - the current connection's parameters
 * Context: marshal (transmit lock) or receive (poller).
 */
const struct lx_xprt_rdma_params *
lx_xprt_rdma_params_of(const struct lx_xprt *x);

/** lx_xprt_rdma_slot_of() - the transport state of slot @slot */
struct lx_xprt_rdma_slot *lx_xprt_rdma_slot_of(struct lx_xprt *x,
					       unsigned int slot);

/**
 * lx_xprt_rdma_buf_lkey() - local key of a pool buffer on this connection's
 * device
 * Return: %0; %-EINVAL when the buffer's pool was not created with
 * lx_xprt_rdma_pool_reg() (or not on this device).
 */
int lx_xprt_rdma_buf_lkey(const struct lx_xprt *x, const struct lx_xprt_buf *b,
			  uint32_t *lkey);

/**
 * lx_xprt_rdma_slot_reg() - register caller memory for the request of @s
 * @access: IBV_ACCESS_* flags the peer needs (REMOTE_READ for a Read
 *	chunk, LOCAL_WRITE|REMOTE_WRITE for Write and Reply chunks, 0 for a
 *	local gather entry)
 * @rkey, @iova: filled with the handle and offset to advertise in a
 *	chunk segment (may be NULL)
 * @lkey: filled with the local key for a gather entry (may be NULL)
 *
 * Per the registration mode: a fresh registration, or a cache hit.  The
 * registration stays with @s until lx_xprt_rdma_slot_unreg().
 * Context: marshal.
 * Return: %0; %-E2BIG when the slot holds LX_XPRT_RDMA_SLOT_MRS already;
 * %-ENOMEM or the device's error from ibv_reg_mr.
 */
int lx_xprt_rdma_slot_reg(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
			  void *addr, size_t len, int access, uint32_t *rkey,
			  uint64_t *iova, uint32_t *lkey);

/* (the work of lx_xprt_rdma_slot_unreg(), for a slot holding some) */
void lx_xprt_rdma__slot_unreg(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
			      bool invalidate);

/**
 * lx_xprt_rdma_slot_unreg() - drop every registration of @s
 * @invalidate: the request ended without a reply: make sure the peer can
 *	no longer reach the memory (cached entries are dropped too)
 *
 * Windows still live are deallocated first (they cannot be live here
 * but after an error: a fresh marshal, or a registration whose window
 * must go before it).
 */
static inline void lx_xprt_rdma_slot_unreg(struct lx_xprt *x,
					   struct lx_xprt_rdma_slot *s,
					   bool invalidate)
{
	/* (most calls have nothing to drop: the check inline, the work
	 * and its register saves out of line) */
	if (s->nmrs | s->nwin | s->inv_reserved)
		lx_xprt_rdma__slot_unreg(x, s, invalidate);
}

/**
 * lx_xprt_rdma_chunk() - expose [@addr, @addr + @len) to the peer as one
 * chunk segment of @s's call
 * @snd: the Send being marshalled: window binds are added to it
 * @buf: the pool buffer the memory lies in, or NULL for caller memory
 * @access: IBV_ACCESS_REMOTE_READ (a Read chunk: the server reads) or
 *	IBV_ACCESS_REMOTE_WRITE (Write and Reply chunks: the server writes)
 * @handle, @offset: what to advertise in the segment
 *
 * Window mode (the connection's params.windows): a type 2 window over
 * exactly the range, with exactly @access, its key's low byte rotated,
 * bound by a work request chained before the Send; the memory under it is
 * a pool slab, a region of lx_xprt_rdma_mem_register(), or for other
 * caller memory a registration of this call with bind rights only.
 * Otherwise a registration with remote access (per I/O, or the cache).
 * Everything stays with @s until the call ends (release).
 * Context: marshal.
 * Return: %0; %-E2BIG when the call needs more windows or registrations
 * than a slot holds; %-ENOMEM or the device's error.
 */
int lx_xprt_rdma_chunk(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
		       struct lx_xprt_rdma_send *snd,
		       const struct lx_xprt_buf *buf, void *addr, size_t len,
		       int access, uint32_t *handle, uint64_t *offset);

/**
 * lx_xprt_rdma_complete() - the ULP found @rq's reply (pinned by
 * lx_xprt_rx_lookup()) and decided @status: complete it
 *
 * Replaces lx_xprt_rx_complete() for RDMA.  The Send With Invalidate the
 * reply may have come with must name one of the call's live windows (else
 * the reply fails with -EBADMSG and the connection is dropped: some other
 * window was invalidated under its call); the windows still live are
 * invalidated by local invalidation work requests (posted together after
 * the poll batch) and done() runs only once they completed.
 * Context: receive (the poller), from ulp->receive.
 */
void lx_xprt_rdma_complete(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			   int status);

/**
 * lx_xprt_rdma_add_msg() - gather @rq's message into @snd: the send buffer,
 * then tx segments [0, @nsegs) copied behind it in the send buffer when
 * there is room (one gather entry, no registration), else registered
 * Return: %0 or a negative errno (registration, too many entries).
 */
int lx_xprt_rdma_add_msg(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			 struct lx_xprt_rdma_slot *s,
			 struct lx_xprt_rdma_send *snd, unsigned int nsegs);

/**
 * lx_xprt_rdma_grant() - a reply granted @credits (RPC-over-RDMA)
 *
 * Feeds the congestion window; when it grows, receives for the new window
 * are posted before anything can be sent into it, and the transmit
 * worker is kicked.  Context: receive.
 */
void lx_xprt_rdma_grant(struct lx_xprt *x, uint32_t credits);

/* counters a ULP bumps */
enum lx_xprt_rdma_stat {
	LX_XPRT_RDMA_ST_READ_CHUNKS,
	LX_XPRT_RDMA_ST_POS0_CHUNKS,
	LX_XPRT_RDMA_ST_WRITE_CHUNKS,
	LX_XPRT_RDMA_ST_REPLY_CHUNKS,
	LX_XPRT_RDMA_ST_BAD_HEADERS,
	LX_XPRT_RDMA_ST_RDMA_ERRORS,
	LX_XPRT_RDMA_ST_WIN_BINDS,
	LX_XPRT_RDMA_ST_WIN_REMOTE_INV,
	LX_XPRT_RDMA_ST_WIN_LOCAL_INV,
	LX_XPRT_RDMA_ST_WIN_DEALLOCS,
	LX_XPRT_RDMA_ST_WIN_ALLOCS,
	LX_XPRT_RDMA_ST_WIN_BAD_INV,
	LX_XPRT_RDMA_ST_INV_WAITS,
	LX_XPRT_RDMA_ST_NR,
};

/** lx_xprt_rdma_stat_inc() - bump counter @which of @x */
void lx_xprt_rdma_stat_inc(struct lx_xprt *x, enum lx_xprt_rdma_stat which);

/** lx_xprt_rdma_slot_publish() - marshal is done with @s (release) */
static inline void lx_xprt_rdma_slot_publish(struct lx_xprt_rdma_slot *s)
{
	atomic_fetch_add_explicit(&s->published, 1, memory_order_release);
}

/** lx_xprt_rdma_slot_acquire() - the poller is about to read @s (acquire) */
static inline void lx_xprt_rdma_slot_acquire(struct lx_xprt_rdma_slot *s)
{
	(void)atomic_load_explicit(&s->published, memory_order_acquire);
}

/* ---- device registry and registration (xprt/rdma/rdma_dev.c, rdma_mr.c) */

/**
 * struct lx_xprt_rdma_dev - one RDMA device as the library uses it
 * @verbs: librdmacm's context for it (kept open for the process)
 * @pd: the protection domain every library object on it uses
 * @max_sge, @max_qp_rd_atom, @max_qp_wr: device limits
 * @max_mr_size: largest registration (and so window) the device takes
 * @mw_type: 2 when the device binds type 2 memory windows by work
 *	request (probed), 0 when chunks need registrations
 * @inv_flags: completion flags meaning "arrived with Send With
 *	Invalidate" (IBV_WC_WITH_INV; on rxe also IBV_WC_IP_CSUM_OK, see
 *	rdma_dev.c)
 */
struct lx_xprt_rdma_dev {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	int max_sge;
	int max_qp_rd_atom;
	int max_qp_wr;
	uint64_t max_mr_size;
	int mw_type;
	unsigned int inv_flags;
};

/**
 * lx_xprt_rdma_dev_find() - the registry entry for @verbs
 * Return: its index, or %-ENODEV (a device that appeared after the
 * registry was built).
 */
int lx_xprt_rdma_dev_find(struct ibv_context *verbs);

/** lx_xprt_rdma_dev_get() - entry @idx (valid for the process lifetime) */
const struct lx_xprt_rdma_dev *lx_xprt_rdma_dev_get(unsigned int idx);

/** lx_xprt_rdma_ndevs() - devices in the registry (built on first use) */
unsigned int lx_xprt_rdma_ndevs(void);

/**
 * lx_xprt_rdma_dev_ready() - build the registry if need be
 * Return: %0 with devices; %-ENODEV or why there are none; %-ECHILD in a
 * child of the process that built it (its verbs objects are the parent's).
 */
int lx_xprt_rdma_dev_ready(void);

/* the hook behind lx_xprt_rdma_pool_reg() (pools the core creates for RDMA) */
extern const struct lx_xprt_pool_reg lx_xprt_rdma_pool_reg_ops;

/**
 * lx_xprt_rdma_slab_lkey() - local key on device @dev of a pool slab
 * registered by lx_xprt_rdma_pool_reg()
 * @handle: lx_xprt_buf_reg_handle() of a buffer of the slab
 * Return: %0; %-EINVAL when @handle is not such a registration.
 */
int lx_xprt_rdma_slab_lkey(const void *handle, unsigned int dev,
			   uint32_t *lkey);

/** lx_xprt_rdma_slab_mr() - the slab's registration on @dev, or NULL */
struct ibv_mr *lx_xprt_rdma_slab_mr(const void *handle, unsigned int dev);

/**
 * lx_xprt_rdma_mem_find() - the registration on @dev of the caller region
 * (lx_xprt_rdma_mem_register()) holding [@addr, @addr + @len), with local
 * write when @write; the region's busy count is taken (*@memp, dropped
 * with lx_xprt_rdma_mem_put())
 * Return: the registration, or NULL when no region holds the range.
 */
struct ibv_mr *lx_xprt_rdma_mem_find(const void *addr, size_t len,
				     unsigned int dev, bool write,
				     struct lx_xprt_rdma_mem **memp);
void lx_xprt_rdma_mem_put(struct lx_xprt_rdma_mem *m);

/**
 * struct lx_xprt_rdma_mrc - chunk registrations of one transport
 * The members are private to rdma_mr.c.
 */
struct lx_xprt_rdma_mrc {
	pthread_mutex_t lock;
	struct lx_xprt_rdma_mr *ents;
	unsigned int nents, cap;
	bool cache;
	uint64_t tick;
	atomic_ullong regs, deregs, reg_ns, hits;
};

int lx_xprt_rdma_mrc_init(struct lx_xprt_rdma_mrc *c, bool cache,
			  unsigned int entries);
void lx_xprt_rdma_mrc_destroy(struct lx_xprt_rdma_mrc *c);

/**
 * lx_xprt_rdma_mr_get() - a registration covering [@addr, @addr + @len)
 * with at least @access in @pd
 * Return: %0 with *@mrp, *@lkey, *@rkey set; a negative errno.
 */
int lx_xprt_rdma_mr_get(struct lx_xprt_rdma_mrc *c, struct ibv_pd *pd,
			void *addr, size_t len, int access,
			struct lx_xprt_rdma_mr **mrp, uint32_t *lkey,
			uint32_t *rkey);

/** lx_xprt_rdma_mr_put() - release a registration (see slot_unreg) */
void lx_xprt_rdma_mr_put(struct lx_xprt_rdma_mrc *c, struct lx_xprt_rdma_mr *mr,
			 bool invalidate);

/** lx_xprt_rdma_mr_ibv() - the verbs registration behind @m */
struct ibv_mr *lx_xprt_rdma_mr_ibv(const struct lx_xprt_rdma_mr *m);

/** lx_xprt_rdma_mrc_flush() - deregister cached entries nobody holds */
void lx_xprt_rdma_mrc_flush(struct lx_xprt_rdma_mrc *c);

#endif /* LX_XPRT_RDMA_H */
