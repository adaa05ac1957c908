/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal view of a transport and its requests, shared by the core
 * (xprt.c, xmit.c, timer.c) and the transports (tcp.c, rdma.c).
 *
 * Locking summary (who may touch what):
 *   x->xmit_lock   the transmit lock: consumer side of x->xmitq, the
 *                  connection's send side (x->tx_partial), cong_get
 *   rq->deadline   the request's timer (timer.c: no lock)
 *   x->state_lock  connection state transitions, with x->state_cond
 *   rq->st         one atomic word per request: its flags and outcome
 *   rq->ix         one atomic word per request: its reply key, linked
 *                  in the reply index, and the receivers' pins (below)
 *   rqtree         its own short mutex (rqtree.h): keys whose low bits
 *                  are not the slot (foreign keys, 9P's NOTAG)
 * Lock order: state_lock is never held while
 * taking another lock.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_XPRT_INT_H
#define LX_XPRT_XPRT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <libxprt/proto/tags.h>
#include <libxprt/proto/xprt.h>

#include "xprt/blocks/cong.h"
#include "xprt/blocks/fork.h"
#include "xprt/blocks/lock.h"
#include "xprt/core/proto.h"
#include "xprt/blocks/rqtree.h"
#include "xprt/blocks/util.h"
#include "xprt/blocks/xmitq.h"

/*
 * Request state word: flags in the low 32 bits, the outcome (a negative
 * errno, or 0 for a reply) in the high 32 bits, so that deciding the
 * outcome and recording it is one compare-and-swap: two threads racing to
 * decide (a reply and a timeout, say) cannot both win, and nobody can see
 * the decision without its value.
 */
#define RQ_SUBMITTED 0x001u /* between submit and delivery of done() */
#define RQ_QUEUED    0x002u /* in the transmit queue */
#define RQ_XMIT	     0x004u /* the transmitter uses its memory */
#define RQ_SENT	     0x008u /* fully sent at least once */
#define RQ_OUTCOME   0x010u /* outcome decided, value in the high word */
#define RQ_DONE	     0x020u /* done() delivery claimed */
#define RQ_CREDIT    0x040u /* holds a congestion credit */
#define RQ_REPLIED   0x080u /* the outcome is a reply (for credit AIMD) */
#define RQ_FINISHED  0x100u /* done() has returned */
#define RQ_CANCEL    0x200u /* cancelled before its submit: cancel then */
#define RQ_PARKED    0x400u /* finished, to be resubmitted (park()) */
#define RQ_ZC \
	0x800u /* the kernel may still read its memory
			     * (MSG_ZEROCOPY, tcp.c): not completed yet */
#define RQ_ORPHAN \
	0x1000u /* cancelled or timed out after it went out: keeps its
		 * credit, key and slot (and a reference) until its reply,
		 * its deadline or the connection's end (xprt.c, Orphans) */

/**
 * struct lx_xprt_rqst - a request slot: the public part and the library's
 * @pub: what protocols see
 * @st: flags and outcome (see RQ_*)
 * @refs: references; the slot is free when it drops to 0
 * @ix: the slot's entry in the direct reply index: key in the high 32 bits,
 *	%LX_XPRT_IX_LINKED, and the pins of receivers placing a reply in the
 *	low 31 bits (see lx_xprt_rx_lookup())
 * @ix_tree: the key is a foreign one: linked in @rqnode's rbtree instead,
 *	pins in @rqnode (set at submit, before the request is published)
 * @rqnode: reply index linkage for foreign keys
 * @xnode: transmit queue linkage
 * @cookie: connect cookie of the connection it was last sent on
 * @deadline: monotonic ns of the armed timer, 0 when none (timer.c)
 * @tx_total: bytes of the whole message on the wire (marker included)
 * @tx_done: bytes of it already sent on the current connection
 * @marker: the framing marker (RPC record mark)
 * @marker_len: its length
 * @zc_id: the last MSG_ZEROCOPY send that carried bytes of it (RQ_ZC)
 * @early_losses: connections it was sent on that the server dropped early
 *	without replying (see lx_xprt_opts.early_loss_limit)
 * @done_futex: 0 while done() has not returned, 1 once it has; a waiter
 *	about to sleep turns 0 into %LX_XPRT_DONE_SLEEPING, and only then does
 *	the completer pay for a FUTEX_WAKE
 * @rbuf_home: the slot's own reply buffer while pub.rbuf is a larger one
 *	taken for this use (lx_xprt__req_grow_rbuf()), else NULL
 * @rbuf_big_pool: the pool that larger buffer goes back to when the slot
 *	is freed
 */
struct lx_xprt_rqst {
	struct lx_xprt_req pub;
	_Atomic uint64_t st;
	atomic_int refs;
	struct lx_xprt_buf *rbuf_home; /* beside refs: read at the last put */
	_Atomic uint64_t ix;
	bool ix_tree;
	struct lx_xprt_rqnode rqnode;
	struct lx_xprt_xmit_node xnode;
	uint32_t cookie;
	_Atomic uint64_t deadline;
	size_t tx_total;
	size_t tx_done;
	uint8_t marker[8];
	unsigned int marker_len;
	unsigned int early_losses;
	uint32_t zc_id;
	atomic_uint done_futex;
	struct lx_xprt_pool *rbuf_big_pool;
} lx_xprt_cacheline_aligned;

/* rq->ix: linked in the direct index; the rest of the low word is pins */
#define LX_XPRT_IX_LINKED     0x80000000u
#define LX_XPRT_IX_PINS	      0x7fffffffu

/* done_futex values */
#define LX_XPRT_DONE	      1u
#define LX_XPRT_DONE_SLEEPING 2u

static inline struct lx_xprt_rqst *rq_of(struct lx_xprt_req *req)
{
	return lx_xprt_container_of(req, struct lx_xprt_rqst, pub);
}

/* A reference on @rq, for the core's own files (lx_xprt_req_get()). */
static inline void lx_xprt_rq_get(struct lx_xprt_rqst *rq)
{
	atomic_fetch_add(&rq->refs, 1);
}

/* A reference on @rq unless its slot is free (for a timer or a late
 * receiver that found it without holding one). */
static inline bool lx_xprt_rq_get_live(struct lx_xprt_rqst *rq)
{
	int refs = atomic_load(&rq->refs);

	do {
		if (refs <= 0)
			return false;
	} while (!atomic_compare_exchange_weak(&rq->refs, &refs, refs + 1));
	return true;
}

static inline uint32_t rq_flags(uint64_t st)
{
	return (uint32_t)st;
}

static inline int rq_status(uint64_t st)
{
	return (int)(int32_t)(st >> 32);
}

/**
 * struct lx_xprt_transport_ops - what a transport implements
 * @name: "tcp", "rdma"
 * @setup: allocate transport state once at lx_xprt_create() (before the first
 *	connect); may start the receive thread
 * @connect: establish a new connection tagged @cookie, blocking up to the
 *	connect timeout; called with no lock held (lx_xprt_create(), then the
 *	transmit worker).  Return 0 or a negative errno.
 * @shutdown: make the current connection fail fast (any thread); the
 *	receive side notices and reports lx_xprt_conn_lost()
 * @reap: release the dead connection's resources; called by the worker
 *	without locks once no send can still use the connection; it may wait
 *	for the receive side to let go of it
 * @send: transmit as much of @reqs[0..n) as possible without blocking
 *	(reqs[0] may be partly sent already: its tx_done says how much);
 *	store in *@nsent how many were sent completely and update tx_done of
 *	the next one.  @more: more requests are queued behind these (cork).
 *	Return 0 (all sent), -EAGAIN (no room: the rest later), or a
 *	connection error.  Called with the transmit lock held.
 * @wait_writable: block until @send may make progress, the worker is
 *	kicked, or @timeout_ms passes (worker only)
 * @kick_rx: make the receive thread re-read the timer deadline (a timer
 *	was armed earlier than it sleeps to) or a new connection
 * @submitted: optional; a request was queued (someone must be ready to
 *	receive its reply)
 * @wait: optional; a synchronous caller waits for @rq (will_wait set):
 *	the transport may let it receive itself.  Return 0 when done() has
 *	run, -ETIMEDOUT at @deadline (monotonic ns, 0 = none), -EAGAIN to
 *	fall back to sleeping until someone else completes it.
 * @teardown: stop threads and free the transport state (lx_xprt_destroy)
 * @forget: free the transport state of a transport made in the parent of
 *	this process (lx_xprt_destroy() after fork()): its own memory, and
 *	its descriptors with close(2) alone - no shutdown(2), no thread
 *	joined or woken, no lock taken, no verbs call, no byte sent.
 *	Optional: without it the state is left alone.
 * @flags: LX_XPRT_TP_* rules the core enforces for this transport
 * @release: optional; a request's outcome is decided and done() is about
 *	to run: drop per-request transport state (RDMA: chunk registrations,
 *	which must go before the caller may reuse its memory).  Runs on the
 *	thread delivering done(), with nothing else touching the request.
 * @pool_reg: registration hook for pools lx_xprt_create() makes itself
 * @reg_bytes: optional; bytes the transport registers of its own, beyond
 *	the pool (RDMA: header areas, receive buffers), once @setup has run;
 *	the figure lx_xprt_memlock_explain() is given when creation fails
 * @loop_poll: caller-driven mode (loop.c): wait up to @wait_ms (0: not
 *	at all, -1: no limit) for the loop descriptor, then take in what it
 *	reports - a new connection, replies (read and delivered, done() on
 *	this thread), a lost connection (reported and detached) - and drain
 *	its wake-ups: the wait is that one look, not a system call more.
 *	Return a deadline (monotonic ns) the transport itself needs a look
 *	at (a half-received reply), or 0.  Owner thread.
 * @loop_arm: caller-driven mode: arm the loop descriptor's timer at
 *	@deadline (0: none) and watch the socket for room when @want_out.
 *	Owner thread.
 * @loop_fd: caller-driven mode: the descriptor (set up by @setup)
 */
struct lx_xprt_transport_ops {
	const char *name;
	unsigned int flags;
	int (*setup)(struct lx_xprt *x);
	int (*connect)(struct lx_xprt *x, uint32_t cookie);
	void (*shutdown)(struct lx_xprt *x);
	void (*reap)(struct lx_xprt *x);
	int (*send)(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		    unsigned int n, unsigned int *nsent, bool more);
	void (*wait_writable)(struct lx_xprt *x, int timeout_ms);
	void (*kick_rx)(struct lx_xprt *x);
	void (*submitted)(struct lx_xprt *x, struct lx_xprt_rqst *rq);
	int (*wait)(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		    uint64_t deadline);
	void (*teardown)(struct lx_xprt *x);
	void (*forget)(struct lx_xprt *x);
	void (*release)(struct lx_xprt *x, struct lx_xprt_rqst *rq, int status);
	const struct lx_xprt_pool_reg *pool_reg;
	size_t (*reg_bytes)(const struct lx_xprt *x);
	uint64_t (*loop_poll)(struct lx_xprt *x, int wait_ms);
	void (*loop_arm)(struct lx_xprt *x, uint64_t deadline, bool want_out);
	int (*loop_fd)(const struct lx_xprt *x);
};

/**
 * struct lx_xprt_loop - the caller-driven mode's state (loop.c)
 * @ops: its entry points for the request core
 * @owner: the owner thread's token (lx_xprt__loop_me()): the creator, then
 *	whoever last serviced the transport
 * @cancels: cancels queued by other threads since the owner last looked
 * @cancel_gen: per slot, the generation a queued cancel is for (0: none)
 * @in_service: the owner is inside lx_xprt_loop_service()
 * @due: work a call made outside the service left to it (the socket was
 *	full, no credit, no connection): the next service looks
 * @down: the lost connection has been taken down; a new one is due at
 *	@reconnect_at
 * @armed_at: what the descriptor's timer is armed to (0: nothing)
 * @want_out: the socket is watched for room
 * @hook: a protocol's timers of its own (RPC: JUKEBOX retries), run at
 *	every service: returns its next deadline (0: none)
 * @hook_arg: its argument
 * @hook_pending: the hook's last run left something to do
 * Everything but @cancels and @cancel_gen is the owner thread's alone.
 */
struct lx_xprt_loop {
	const struct lx_xprt_loop_ops *ops;
	_Atomic uintptr_t owner;
	atomic_uint cancels;
	_Atomic uint32_t *cancel_gen;
	bool in_service;
	bool due;
	bool down;
	bool want_out;
	bool hook_pending;
	uint64_t reconnect_at;
	uint64_t armed_at;
	uint64_t (*hook)(void *arg, uint64_t now);
	void *hook_arg;
};

/*
 * A retransmission of a request already sent on the current connection
 * drops the connection instead; the reconnect resends it (RDMA: credits
 * and receives are per connection, a second copy would break both).
 */
#define LX_XPRT_TP_NO_SAME_CONN_RESEND 0x1u
/* Every message must expect a reply (RDMA: its credit comes back with it) */
#define LX_XPRT_TP_NEED_REPLY	       0x2u
/*
 * A lost connection is replaced at once, even with no call waiting (the
 * others wait for a call, see xmit_wait_for_call()).  RDMA keeps the
 * eager rule for now: its guest tests (50's reconnect, 64's
 * wait_connected()) wait for a new connection with nothing submitted.
 */
#define LX_XPRT_TP_RECONNECT_IDLE      0x4u

extern const struct lx_xprt_transport_ops lx_xprt_tcp_ops;
extern const struct lx_xprt_transport_ops lx_xprt_rdma_ops;

#define LX_XPRT_XMIT_BATCH  16

/* larger reply buffers (lx_xprt__req_grow_rbuf()): size classes of 4 KiB
 * << k up to 8 MiB, as a shared pool's, and at most this many buffers of
 * each class per transport (a fifth call waits for one to come back) */
#define LX_XPRT_BIG_CLASSES 12u
#define LX_XPRT_BIG_BUFS    4u

/**
 * struct lx_xprt - one transport instance
 * See the locking summary at the top of this file.
 */
struct lx_xprt {
	struct lx_xprt_opts opts;
	const struct lx_xprt_transport_ops *ops;
	unsigned int fork_gen; /* the process it was made in (fork.h) */
	const struct lx_xprt_framing_ops *framing;
	char peer[128];

	/* request slots */
	struct lx_xprt_tags *tags;
	struct lx_xprt_pool *pool;
	bool own_pool;
	bool keep_bufs; /* slots keep their buffers (proto.h) */
	/* one-size pools of larger reply buffers per size class, made on
	 * first use when the transport's pool has no classes (xprt.c) */
	struct lx_xprt_pool *_Atomic big_pools[LX_XPRT_BIG_CLASSES];
	unsigned int max_reqs;
	size_t stride;
	void *slots;

	/* reply index: a key whose bits under key_mask are its request's slot
	 * is found in that slot (rq->ix); other keys in the rbtree, which is
	 * looked at only while tree_keys says it holds any */
	uint32_t key_mask;
	atomic_uint tree_keys;
	struct lx_xprt_rqtree rqtree;
	struct lx_xprt_cong cong;

	/* transmit side */
	struct lx_xprt_lock xmit_lock;
	struct lx_xprt_xmitq xmitq;
	struct lx_xprt_rqst *tx_partial;
	pthread_t worker;
	bool worker_started;
	atomic_uint worker_kick; /* futex word: bumped by kicks */
	atomic_bool worker_sleeping;

	/* connection state */
	pthread_mutex_t state_lock;
	pthread_cond_t state_cond;
	_Atomic enum lx_xprt_state state;
	atomic_uint cookie;	     /* connections established */
	uint32_t lost_cookie;	     /* connection reported lost */
	int last_error;		     /* why the last connection ended */
	uint64_t disconnected_since; /* monotonic ns, 0 while connected */
	atomic_bool stopping;

	/* reconnect backoff (the transmit worker's, see xmit_reconnect()) */
	unsigned int backoff_ms; /* delay before the next attempt, 0: none */
	bool gave_up;		 /* this outage failed its calls already */
	uint64_t conn_since;	 /* monotonic ns the connection was made */
	uint64_t conn_replies;	 /* stats.replies when it was made */
	atomic_bool not_resp;	 /* a "not responding" episode is on */

	/* timers (timer.c; run on the receive thread) */
	_Atomic uint64_t timer_scan_at;	   /* no deadline armed before it */
	_Atomic uint64_t rx_wake_deadline; /* what the rx thread sleeps to */
	bool timer_walking;		   /* receive thread only: a walk of */
	unsigned int timer_cursor;	   /* the slots is under way, at */
	uint64_t timer_walk_min;	   /* this slot, earliest seen */

	/* transport private state */
	void *tp;

	/* caller-driven mode (lx_xprt_opts.mode), NULL when threaded */
	struct lx_xprt_loop *loop;

	/* counters */
	struct {
		atomic_ullong submitted, completed, replies, dup_replies;
		atomic_ullong sends, send_calls, direct_sends, worker_sends;
		atomic_ullong retransmits, timeouts, cancels, connects;
		atomic_ullong disconnects, bytes_sent, bytes_received;
		atomic_ullong direct_rx_bytes, early_disconnects;
		atomic_ullong not_responding, garbage, resubmits;
		atomic_ullong zc_sends, zc_completions, zc_copied;
		atomic_ullong orphans, orphan_replies, orphans_expired;
	} stats;
};

/*
 * @x was made in another process, which forked this one: what acts on it
 * fails with -ECHILD, and lx_xprt_destroy() only forgets it (create.c).
 */
static inline bool lx_xprt_forked(const struct lx_xprt *x)
{
	return lx_xprt__fork_other(x->fork_gen);
}

static inline struct lx_xprt_rqst *lx_xprt_slot(struct lx_xprt *x,
						unsigned int i)
{
	return (struct lx_xprt_rqst *)((char *)x->slots +
				       (size_t)i * x->stride);
}

/* ---- core services for transports (xprt.c) ---- */

/**
 * lx_xprt_rx_lookup() - find the in-flight request a reply belongs to
 * Return: the request, pinned (release with lx_xprt_rx_unpin()), or NULL for
 * an unknown key or a request whose outcome is already decided (counted).
 */
void lx_xprt__rx_late(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint32_t key);
struct lx_xprt_rqst *lx_xprt_ix_lookup_pin(struct lx_xprt *x, uint32_t key);

static inline struct lx_xprt_rqst *lx_xprt_rx_lookup(struct lx_xprt *x,
						     uint32_t key)
{
	struct lx_xprt_rqst *rq = lx_xprt_ix_lookup_pin(x, key);

	if (rq &&
	    lx_xprt_unlikely(rq_flags(atomic_load(&rq->st)) & RQ_OUTCOME)) {
		lx_xprt__rx_late(x, rq, key);
		return NULL;
	}
	return rq;
}

/**
 * lx_xprt_rx_deliver() - place a whole received message into a pinned request
 * @x: the transport
 * @rq: the request, pinned by lx_xprt_rx_lookup()
 * @msg: the message (its framing marker included when the framing keeps
 *	it, as 9P's size field)
 * @len: its length
 *
 * For message-oriented transports (RDMA), which receive a message at once
 * rather than as a stream: the same placement as the TCP receive path.
 * The first bytes go to rbuf; the protocol's place() hook, if any, may
 * name bulk data (rx_data_off/len/pad) that is copied into its rx_data
 * iterator, its pad dropped, and the rest appended in rbuf.  Never writes
 * past rbuf's capacity or the iterator's count.  The caller then
 * completes the request with the result (lx_xprt_rx_complete()).
 * Context: receive thread.
 * Return: %0 (req->rlen and rx_msg_len set); %-EMSGSIZE when the message
 * or its non-bulk part does not fit rbuf; %-EOVERFLOW when the bulk data
 * exceeds the caller's memory; %-EBADMSG when the message is shorter than
 * what place() announced; place()'s own negative errno.
 */
int lx_xprt_rx_deliver(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		       const void *msg, size_t len);

/**
 * lx_xprt_rx_unpin() - drop the pin of lx_xprt_rx_lookup() without a reply
 * (connection lost mid-message); delivers done() if the outcome was
 * decided meanwhile
 */
void lx_xprt_rx_unpin(struct lx_xprt *x, struct lx_xprt_rqst *rq);

/**
 * lx_xprt_rx_decide() - lx_xprt_rx_complete() without the unpin: decide
 * @rq's outcome as a reply with @status and take it out of the reply
 * index, but keep the lookup's pin, so done() waits until the caller
 * calls lx_xprt_rx_unpin() (RDMA: until the memory windows the server
 * could still write through are invalidated).  Receive thread.
 * Return: true when this decided the outcome (false: a timeout or a
 * cancel did first; the pin must be dropped all the same).
 */
bool lx_xprt_rx_decide(struct lx_xprt *x, struct lx_xprt_rqst *rq, int status);

/**
 * lx_xprt_rx_complete() - a reply (or a receive error) for a pinned request:
 * decide its outcome, unlink it, unpin it, deliver done() if nothing else
 * holds it.  Called on the receive thread.
 */
void lx_xprt_rx_complete(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			 int status);

/**
 * lx_xprt_rx_batch_begin() - the calling (receive) thread starts processing
 * a batch of replies: requests its callbacks submit are held back...
 * lx_xprt_rx_batch_end() - ...and sent together here, in one gathered send
 * (xmit.c, "Sending later")
 */
struct lx_xprt_xmit_later {
	struct lx_xprt *rx; /* the receive batch's transport, or NULL */
	bool rx_queued;	    /* a callback queued a request on it */
	struct lx_xprt *tx; /* the transmitter loop's transport, or NULL */
	bool tx_queued;
};

/* the calling thread's (xmit.c); hidden and initial-exec, as pool.c's
 * pool_tc: the batch marks below cost two stores each */
extern _Thread_local struct lx_xprt_xmit_later lx_xprt__xmit_later
	__attribute__((visibility("hidden"), tls_model("initial-exec")));

/* the batch's held-back requests, sent (xmit.c) */
void lx_xprt__rx_batch_flush(struct lx_xprt *x);

static inline void lx_xprt_rx_batch_begin(struct lx_xprt *x)
{
	lx_xprt__xmit_later.rx = x;
	lx_xprt__xmit_later.rx_queued = false;
}

static inline void lx_xprt_rx_batch_end(struct lx_xprt *x)
{
	bool queued = lx_xprt__xmit_later.rx_queued;

	lx_xprt__xmit_later.rx = NULL;
	lx_xprt__xmit_later.rx_queued = false;
	if (lx_xprt_unlikely(queued))
		lx_xprt__rx_batch_flush(x);
}

/**
 * lx_xprt_conn_lost() - the connection with @cookie failed with @err
 * Any thread; idempotent per connection; kicks the worker to reconnect.
 */
void lx_xprt_conn_lost(struct lx_xprt *x, uint32_t cookie, int err);

/**
 * lx_xprt_log() - a message to the log hook of x->opts (dropped without one)
 */
void lx_xprt_log(const struct lx_xprt *x, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** lx_xprt__responding() - a reply came: end a "not responding" episode */
void lx_xprt__responding(struct lx_xprt *x);

/** lx_xprt_kick_worker() - wake the transmit worker if it sleeps */
void lx_xprt_kick_worker(struct lx_xprt *x);

/** lx_xprt_credit_returned() - a credit came back: let queued requests go */
void lx_xprt_credit_returned(struct lx_xprt *x);

/**
 * lx_xprt_drop_slot_bufs() - return the buffers free slots keep
 * (keep_bufs) to the pool; no request may be allocated
 */
void lx_xprt_drop_slot_bufs(struct lx_xprt *x);

/**
 * lx_xprt_big_pools_destroy() - destroy the pools of larger reply buffers
 * (every request put)
 */
void lx_xprt_big_pools_destroy(struct lx_xprt *x);

/**
 * lx_xprt_fail_all() - fail every submitted request with @status, and end
 * every orphan (lx_xprt_orphans_end())
 */
void lx_xprt_fail_all(struct lx_xprt *x, int status);

/* how an orphan ends: which credit event its credit returns with */
enum lx_xprt_orphan_end {
	LX_XPRT_ORPHAN_REPLY,	/* its reply came: as a reply */
	LX_XPRT_ORPHAN_TIMEOUT, /* its deadline passed: as a timeout */
	LX_XPRT_ORPHAN_PUT,	/* it never went out after all: a plain put */
	LX_XPRT_ORPHAN_RESET,	/* the connection ended: credits were reset */
};

/**
 * lx_xprt_orphan_end() - end @rq's orphan state (xprt.c, Orphans): take it
 * out of the reply index, disarm its timer, return its credit (if it still
 * holds one) as @how says, drop the orphan's reference
 * Context: any thread; exactly once per orphan (whoever clears RQ_ORPHAN).
 * Return: true when this call ended it; false when it was no orphan.
 */
bool lx_xprt_orphan_end(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			enum lx_xprt_orphan_end how);

/**
 * lx_xprt_orphans_end() - end every orphan of @x (lx_xprt_destroy())
 */
void lx_xprt_orphans_end(struct lx_xprt *x);

/**
 * lx_xprt_resolve() - the peer's address from x->opts.host and port
 * @x: the transport (being set up)
 * @ss: receives the first address getaddrinfo() gives
 * @lenp: receives its length (may be NULL)
 * Return: %0; %-ENOENT when the name does not resolve; another errno.
 */
int lx_xprt_resolve(const struct lx_xprt *x, struct sockaddr_storage *ss,
		    socklen_t *lenp);

/**
 * lx_xprt__create_ops() - lx_xprt_create() on the transport @ops (NULL: the one
 * @opts names); for unit tests that need a transport of their own
 */
int lx_xprt__create_ops(struct lx_xprt **xp, const struct lx_xprt_opts *opts,
			const struct lx_xprt_transport_ops *ops);

/**
 * lx_xprt_req_tryget() - take a reference on @req if it is still the use
 * of its slot numbered @gen
 * Return: %0 with a reference (put it); %-EALREADY when the slot is free or
 * serves another call now.
 */
int lx_xprt_req_tryget(struct lx_xprt_req *req, uint32_t gen);

/**
 * lx_xprt_req_cancel_gen() - lx_call_cancel() of the call that use @gen of
 * @req's slot carries: ops->cancel(), or lx_xprt_req_cancel(); a request
 * not submitted yet is cancelled by its submit
 * Return: as lx_call_cancel().
 */
int lx_xprt_req_cancel_gen(struct lx_xprt_req *req, uint32_t gen);

/* ---- transmit engine (xmit.c) ---- */

/**
 * lx_xprt_xmit() - drain the transmit queue as far as credits and the
 * connection allow
 * @budget: stop after this many requests (the direct path sends a few,
 *	the worker everything)
 * @direct: called by a submitter: only try the transmit lock (give up with
 *	-EBUSY if it is taken) and count the sends as direct
 * Takes and drops x->xmit_lock itself; done() callbacks that became due
 * run after it is dropped.
 * Return: 0 when the queue is empty; -EAGAIN when the connection is full;
 * -EBUSY when congested (no credit), the budget ran out or (direct) the
 * lock was taken; -ENOTCONN when not connected; another negative errno
 * for a connection error (reported through lx_xprt_conn_lost()).
 */
int lx_xprt_xmit(struct lx_xprt *x, unsigned int budget, bool direct);

/** lx_xprt_worker_main() - the transmit worker thread */
void *lx_xprt_worker_main(void *arg);

/**
 * lx_xprt_try_complete() - deliver done() if the outcome is decided and no
 * transmitter, queue or receiver holds the request any more
 */
void lx_xprt_try_complete(struct lx_xprt_rqst *rq);

/**
 * lx_xprt_claim_outcome() - decide @rq's outcome as @status
 * Return: true when this call decided it.
 */
bool lx_xprt_claim_outcome(struct lx_xprt_rqst *rq, int status);

/* ---- reply index (rqindex.c) ---- */

/**
 * lx_xprt_ix_link() - link a request about to be sent under its reply key
 * Return: %0; %-EEXIST when a request with @key is linked; %-EINVAL when
 * @rq is linked already.
 */
int lx_xprt_ix_link(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint32_t key);

/**
 * lx_xprt_rx_unlink() - take a request out of the reply index (its outcome
 * was just decided: a late reply must find nothing)
 * Context: any thread.  Pins survive: delivery waits for them.
 * Return: true when this call unlinked it.
 */
bool lx_xprt_rx_unlink(struct lx_xprt *x, struct lx_xprt_rqst *rq);

/**
 * lx_xprt_ix_lookup_pin() - the linked request with @key, pinned (a
 * receiver places its reply); NULL, counted as an unknown key, when none
 */
struct lx_xprt_rqst *lx_xprt_ix_lookup_pin(struct lx_xprt *x, uint32_t key);

/** lx_xprt_ix_unpin() - drop a pin of lx_xprt_ix_lookup_pin() */
static inline void lx_xprt_ix_unpin(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	if (lx_xprt_unlikely(rq->ix_tree))
		lx_xprt_rqtree_unpin(&x->rqtree, &rq->rqnode);
	else
		atomic_fetch_sub(&rq->ix, 1);
}

/** lx_xprt_ix_pinned() - whether a receiver still pins @rq */
static inline bool lx_xprt_ix_pinned(struct lx_xprt_rqst *rq)
{
	if (lx_xprt_unlikely(rq->ix_tree))
		return atomic_load(&rq->rqnode.pins) != 0;
	return (atomic_load(&rq->ix) & LX_XPRT_IX_PINS) != 0;
}

/* ---- timers (timer.c) ---- */

/* lx_xprt_timer_arm()'s rare half: @deadline is earlier than any armed */
void lx_xprt__timer_lower(struct lx_xprt *x, uint64_t deadline);

/**
 * lx_xprt_timer_arm() - arm @rq's timer at @deadline (0 disarms)
 * A store, and a look at the earliest armed deadline (inline: a call
 * arms and disarms once each); only an earlier one goes further.
 */
static inline void lx_xprt_timer_arm(struct lx_xprt *x, struct lx_xprt_rqst *rq,
				     uint64_t deadline)
{
	atomic_store(&rq->deadline, deadline);
	if (deadline && deadline < atomic_load(&x->timer_scan_at))
		lx_xprt__timer_lower(x, deadline);
}

/* the receive thread sleeps at most this long (see timer.c) */
#define LX_XPRT_TIMER_TICK_NS 1000000000ull

/**
 * lx_xprt_timer_run() - run expired timers; receive thread only (xprt.c)
 * Return: when to wake up next: the earliest armed deadline, at most
 * %LX_XPRT_TIMER_TICK_NS from now (never 0).
 */
uint64_t lx_xprt_timer_run(struct lx_xprt *x);

/**
 * lx_xprt_timer_expired() - the next request whose timer expired
 * @x: the transport
 * @now: the time now (monotonic ns)
 * @next: when none is left, receives the wake-up time as
 *	lx_xprt_timer_run() returns it
 * @fired: set with a request: true when its timer fired (it is disarmed
 *	now), false when it was disarmed or re-armed before it could
 * Return: a request, with a reference taken (so its slot cannot be reused
 * meanwhile: drop it with lx_xprt_req_put()), or NULL.  Receive thread
 * only.
 */
struct lx_xprt_rqst *lx_xprt_timer_expired(struct lx_xprt *x, uint64_t now,
					   uint64_t *next, bool *fired);

/**
 * lx_xprt_timer_next() - when the receive thread must wake up next, as
 * lx_xprt_timer_run() returns it; receive thread only (it publishes the time
 * the thread sleeps to, which lx_xprt_timer_arm() compares with)
 */
uint64_t lx_xprt_timer_next(struct lx_xprt *x);

/* ---- caller-driven mode (loop.c) ---- */

/** lx_xprt__loop_init() - set up @x->loop at create; 0 or -ENOMEM */
int lx_xprt__loop_init(struct lx_xprt *x);

/** lx_xprt__loop_fini() - free @x->loop */
void lx_xprt__loop_fini(struct lx_xprt *x);

/**
 * struct lx_xprt_loop_ops - what the request core (xprt.c) asks of the
 * caller-driven mode (loop.c), which sits above it
 * @kick: a call outside the service left work to the loop
 *	(lx_xprt_kick_worker() of a caller-driven transport): the next
 *	service looks; outside a service the descriptor is made readable
 * @cancel: lx_xprt_req_cancel_gen() of a caller-driven transport: from a
 *	thread other than the owner it is queued to the owner's next
 *	service (return 0); on the owner, -EAGAIN: decide it at once
 * @wait: a synchronous caller waits for @rq: it services the transport
 *	until done() has run (0), or @deadline (monotonic ns, 0: none;
 *	-ETIMEDOUT)
 * @wait_slot: lx_xprt_req_alloc() found no free slot: service the
 *	transport once, waiting for the descriptor (only the owner frees
 *	one)
 */
struct lx_xprt_loop_ops {
	void (*kick)(struct lx_xprt *x);
	int (*cancel)(struct lx_xprt_req *req, uint32_t gen);
	int (*wait)(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		    uint64_t deadline);
	void (*wait_slot)(struct lx_xprt *x);
};

/* the reconnection steps the worker and the loop share (xmit.c) */

/**
 * lx_xprt__reconnect_down() - a lost connection, taken down: the fate of
 * its requests decided, the backoff computed
 * @at: receives when the next attempt is due (monotonic ns)
 * Return: false when the transport closed instead (the fail policy: a 9P
 * session dies with its connection).
 */
bool lx_xprt__reconnect_down(struct lx_xprt *x, uint64_t *at);

/**
 * lx_xprt__reconnect_try() - one connection attempt (blocks up to
 * connect_timeout_ms); on success the transport is connected, on failure
 * the backoff grows and @at receives the next attempt's time
 * Return: 0 or the attempt's negative errno.
 */
int lx_xprt__reconnect_try(struct lx_xprt *x, uint64_t *at);

/** lx_xprt__calls_waiting() - calls are waiting for @x (a hint) */
bool lx_xprt__calls_waiting(struct lx_xprt *x);

/* ---- futex helpers (xprt.c) ---- */
void lx_xprt_futex_wait(atomic_uint *word, unsigned int val,
			int64_t timeout_ns);
void lx_xprt_futex_wake(atomic_uint *word, int n);

#endif /* LX_XPRT_XPRT_INT_H */
