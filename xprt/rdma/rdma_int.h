/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private state of the RDMA transport, shared by rdma.c (setup, connect,
 * send) and rdma_rx.c (the poller: completions, receives, timers).
 *
 * Locking:
 *   tp->lock    tp->conn / tp->rx_conn hand-over between the connecting
 *               worker, the poller and reap (with tp->cond)
 *   tp->rx_role the receiver role: its holder (the poller, or a
 *               synchronous caller in lx_xr_wait) polls the CQs, reads
 *               their events, arms them, adopts and detaches rx_conn,
 *               and owns the "poller" state below (rx_inv, inv_wr, ninv,
 *               a connection's armed and unacked counts)
 *   tp->rlock   the free list of receive buffers (lock.h)
 *   tp->mw_lock the idle memory windows (lock.h)
 *   x->xmit_lock (core) the send side: c->unsignaled, marshalling
 *   atomics     c->sq_free, c->posted, tp->excess, counters
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_RDMA_INT_H
#define LX_XPRT_RDMA_INT_H

#include <sys/socket.h>

#include <rdma/rdma_cma.h>

#include "xprt/blocks/lock.h"
#include "xprt/rdma/rdma.h"

/**
 * struct lx_xr_conn - one connection (a queue pair and its CQs)
 * @cookie: the core's connect cookie
 * @ech, @id: RDMA-CM event channel and id
 * @cc, @scq, @rcq: completion channel, send and receive CQs
 * @qp: the RC queue pair (owned by @id)
 * @dev: registry index of its device
 * @params: negotiated parameters
 * @sq_depth, @rq_depth: queue sizes
 * @signal_every: request a completion every this many Sends
 * @unsignaled: Sends posted since the last signalled one (transmit lock)
 * @sq_free: send queue slots free (the poller gives them back)
 * @posted: receives posted and not completed
 * @sig_out: signalled send queue work requests posted whose completion
 *	the poller has not seen: the send CQ is polled only while it is
 *	above 0 (a poll of an empty CQ costs ~150 instructions; failed
 *	connections also report on the receive CQ and the CM channel)
 * @armed: both CQs asked for an event (poller)
 * @unacked_s, @unacked_r: CQ events not acknowledged yet (poller)
 * @rx_detached: the poller let go of it (tp->lock)
 * @rx_err: a failure seen by someone who could not detach it (a CM event
 *	while a caller held the receiver role, a failed completion a caller
 *	polled): the poller detaches with it
 * @dead: reported lost (lx_xr_shutdown): the poller detaches
 * @max_wr_call: send queue entries one call may need at most (its window
 *	binds, its Send, the invalidations reserved for its windows)
 * @inv_flags: receive completion flags meaning Send With Invalidate
 */
struct lx_xr_conn {
	uint32_t cookie;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cc;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	int dev;
	struct lx_xprt_rdma_params params;
	unsigned int sq_depth, rq_depth;
	unsigned int signal_every;
	unsigned int unsignaled;
	atomic_int sq_free;
	atomic_int posted;
	atomic_int sig_out;
	bool armed;
	unsigned int unacked_s, unacked_r;
	bool rx_detached;
	atomic_int rx_err;
	atomic_bool dead;
	unsigned int max_wr_call;
	unsigned int inv_flags;
};

#define RDMA_RECV_CHAIN_MAX   64u

/* local invalidations the poller chains into one post */
#define LX_XR_INV_BATCH	      64u
/* send completion wr_id: low 32 bits the work requests it retires; this
 * bit set: the last invalidation of slot (bits 32..62) */
#define LX_XR_WR_INV	      (1ull << 63)
/* windows per credit the send queue is sized for (Linux FRWR: 3) */
#define LX_XR_WINS_PER_CREDIT 3u
/* credits the send queue is sized for at most (nfsd grants 64) */
#define LX_XR_SQ_CREDITS      512u

enum lx_xr_ctr {
	RC_RECV_DOORBELLS,
	RC_RECVS_POSTED,
	RC_SEND_DOORBELLS,
	RC_SENDS,
	RC_SENDS_SIGNALED,
	RC_SQ_FULL,
	RC_CQ_EVENTS,
	RC_POLLS,
	RC_EXCESS,
	RC_CONNECTS,
	RC_CONNECT_FAILS,
	RC_NR,
};

/**
 * struct lx_xr_tp - the transport private state (x->tp)
 */
struct lx_xr_tp {
	struct lx_xprt *x; /* the transport this is the state of (messages) */
	struct lx_xprt_rdma_opts o;
	const struct lx_xprt_rdma_ulp *ulp;
	struct sockaddr_storage dst;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct lx_xr_conn *conn;    /* current connection */
	struct lx_xr_conn *rx_conn; /* adopted by the poller */
	uint32_t params_gen;
	struct lx_xprt_rdma_params last_params; /* of the last connection */

	int evfd; /* kicks the poller */
	/* the receiver role (see Locking) */
	struct lx_xprt_lock rx_role;
	/* the poller keeps the CQs armed and sleeps on their channel; off
	 * while synchronous callers receive their own replies, back on as
	 * soon as anything else may wait for one (rdma_rx.c, "Synchronous
	 * callers") */
	atomic_bool watch;
	/* the poller found the role taken: its holder kicks it on leaving */
	atomic_bool rx_deferred;
	pthread_t poller;
	bool poller_started;
	atomic_bool stop;
	atomic_bool timer_kick;

	/* per slot: header areas, ULP state */
	struct lx_xprt_rdma_slot *slots;
	uint8_t *hdr_area;
	size_t hdr_area_len;
	void *ulp_area;

	/* receive buffers, registered once per device */
	uint8_t *rbufs;
	size_t rbuf_size;
	unsigned int nrbufs;
	struct lx_xprt_lock rlock;
	unsigned int *rfree;
	unsigned int nfree;
	int reg_dev; /* device of hdr_mr/rbuf_mr, -1 none */
	struct ibv_mr *hdr_mr, *rbuf_mr;

	/* whole messages: receives posted for requests that will not use
	 * them (trans_rdma's excess_rc) */
	atomic_int excess;

	struct lx_xprt_rdma_mrc mrc;

	/* memory windows (rdma_win.c) */
	struct lx_xprt_rdma_send *snd; /* per batch entry, transmit lock;
					 * zeroed once: its binds write their
					 * own fields only (lx_xr_win_bind) */
	/* the batch's Sends, transmit lock: zeroed once, then only the
	 * fields a Send uses are written */
	struct ibv_send_wr *wr;
	struct ibv_send_wr inv_wr[LX_XR_INV_BATCH]; /* poller */
	unsigned int ninv;			    /* poller */
	bool rx_inv;	      /* poller: this receive came With Invalidate */
	uint32_t rx_inv_rkey; /* ... of this key */
	atomic_int inv_outstanding; /* slots waiting for invalidations */
	/* the idle windows (a get and a put per bound READ: lock.h) */
	struct lx_xprt_lock mw_lock;
	struct ibv_mw **mwfree;
	unsigned int nmwfree, capmwfree;
	int mw_dev; /* their device (-1 none yet) */
	atomic_llong win_live;

	/* send queue space: bumped by the poller, waited on by the worker */
	atomic_uint sq_seq;
	atomic_uint sq_waiters;
	unsigned int sq_wait_seq;

	atomic_bool pool_warned;
	atomic_uint max_credits;
	atomic_int last_connect_error;
	atomic_ullong last_connect_ns;
	atomic_ullong ctr[RC_NR];
	atomic_ullong ulp_ctr[LX_XPRT_RDMA_ST_NR];
};

static inline struct lx_xr_tp *lx_xr_tp_of(const struct lx_xprt *x)
{
	return x->tp;
}

static inline void lx_xr_ctr_add(struct lx_xr_tp *tp, enum lx_xr_ctr c,
				 uint64_t n)
{
	atomic_fetch_add_explicit(&tp->ctr[c], n, memory_order_relaxed);
}

/* ---- rdma_conn.c: the transport ops of connections ---- */

int lx_xr_connect(struct lx_xprt *x, uint32_t cookie);
void lx_xr_shutdown(struct lx_xprt *x);
void lx_xr_reap(struct lx_xprt *x);
/** lx_xr_conn_free() - destroy a connection's verbs objects (not adopted) */
void lx_xr_conn_free(struct lx_xr_conn *c);

/* ---- rdma_win.c ---- */

/**
 * lx_xr_win_bind() - a window of @s over [@addr, @addr + @len) of @mr with
 * remote write (@write) or read access: the bind goes into @snd; *@rkey
 * is its new key.  @mem (may be NULL): the caller region it is over, whose
 * busy count the window now holds (dropped on error too).  Marshal.
 */
int lx_xr_win_bind(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
		   struct lx_xprt_rdma_send *snd, struct ibv_mr *mr,
		   struct lx_xprt_rdma_mem *mem, void *addr, size_t len,
		   bool write, uint32_t *rkey);
/** lx_xr_win_dev() - windows are bound on device @dev now (marshal) */
void lx_xr_win_dev(struct lx_xprt *x, unsigned int dev);
/** lx_xr_win_unposted() - @s's binds will not be posted: no window live */
void lx_xr_win_unposted(struct lx_xprt *x, struct lx_xprt_rdma_slot *s);
/** lx_xr_win_posted() - @snd's @nbind binds were posted: keys advance */
void lx_xr_win_posted(struct lx_xprt_rdma_send *snd, unsigned int nbind);
/* (the work of lx_xr_inv_flush(), with invalidations queued) */
void lx_xr__inv_flush(struct lx_xprt *x, struct lx_xr_conn *c);
/** lx_xr_inv_flush() - post the local invalidations queued (poller) */
static inline void lx_xr_inv_flush(struct lx_xprt *x, struct lx_xr_conn *c)
{
	/* after every poll batch, mostly with none queued */
	if (lx_xr_tp_of(x)->ninv)
		lx_xr__inv_flush(x, c);
}
/** lx_xr_inv_done() - the invalidations of @slot completed (poller) */
void lx_xr_inv_done(struct lx_xprt *x, unsigned int slot);
/** lx_xr_win_release() - deallocate @s's live windows (release) */
void lx_xr_win_release(struct lx_xprt *x, struct lx_xprt_rdma_slot *s);
/**
 * lx_xr_win_sweep() - the connection is dead and the poller detached:
 * deallocate every live window, drop the pins of requests that waited
 * for invalidations.  Before the queue pair is destroyed.
 */
void lx_xr_win_sweep(struct lx_xprt *x);
/** lx_xr_win_free_all() - deallocate every window (teardown) */
void lx_xr_win_free_all(struct lx_xprt *x);

/* ---- rdma_rx.c ---- */

/**
 * lx_xr_post_recvs() - post up to @n receives in one chain
 * Return: number posted (fewer when buffers run out), or a negative errno
 * from the device.
 */
int lx_xr_post_recvs(struct lx_xr_tp *tp, struct lx_xr_conn *c, unsigned int n);

/**
 * lx_xr_replenish() - credit mode: keep more receives posted than the
 * window needs (deficit plus a batch, one doorbell)
 */
void lx_xr_replenish(struct lx_xprt *x, struct lx_xr_conn *c);

/** lx_xr_recv_reset() - every receive buffer back to the free list */
void lx_xr_recv_reset(struct lx_xr_tp *tp);

/** lx_xr_poller_main() - the receive thread */
void *lx_xr_poller_main(void *arg);

/** lx_xr_kick_poller() - wake the poller (new connection, stop) */
void lx_xr_kick_poller(struct lx_xr_tp *tp);

/**
 * lx_xr_wait() - transport op: a synchronous caller waits for @rq and
 * receives itself while nobody else does (see rdma_rx.c)
 * Return: 0 once done() ran, -ETIMEDOUT at @deadline, -EAGAIN to sleep
 * until the poller completes it.
 */
int lx_xr_wait(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint64_t deadline);

/** lx_xr_submitted() - transport op: an asynchronous request went out */
void lx_xr_submitted(struct lx_xprt *x, struct lx_xprt_rqst *rq);

#endif /* LX_XPRT_RDMA_INT_H */
