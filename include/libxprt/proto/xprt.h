/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt transport core for protocol authors: connections, requests,
 * transmission, replies (protocol-author tier; the tool tier's view of a
 * transport is <libxprt/xprt.h>, included here).
 *
 * A struct lx_xprt is one connection-oriented transport instance (one TCP
 * socket or one RDMA queue pair, re-established on failure) with its own
 * request slots (tag allocator), reply index, congestion credits, fair
 * transmit queue, receive thread and transmit worker.  Protocols (SunRPC in
 * rpc/, 9P in p9/) sit on top: they allocate a request, encode their call
 * into its send buffer, submit it under a key (the RPC XID or the 9P tag),
 * and are called back once with the outcome.  Several xprts may share one
 * buffer pool.
 *
 * The life of a request:
 *
 *   lx_xprt_req_alloc()   takes a slot (blocking FIFO when all are in use) and
 *                      a send and a receive buffer from the pool
 *   (encode)           the protocol writes its message into req->sbuf and
 *                      may add payload segments from the caller's memory
 *   lx_xprt_req_submit()  links the request into the reply index under its
 *                      key *before* queueing it, so no reply can miss it;
 *                      the calling thread transmits itself when it can take
 *                      the transmit lock and a credit, otherwise the
 *                      transmit worker does
 *   (reply)            the receive thread finds the request by key, places
 *                      the reply (header into req->rbuf, bulk data straight
 *                      into the caller's memory when the protocol asks for
 *                      it), and completes it
 *   ops->done()        called exactly once with the outcome: 0 (a reply is
 *                      in rbuf) or a negative errno (timeout, cancel,
 *                      connection loss with the fail policy, shutdown)
 *   lx_xprt_req_put()     the protocol drops its reference; the last one
 *                      returns the buffers and the slot
 *
 * Threads: done() and timeout() run on the xprt's receive thread (or, for
 * failures found elsewhere, on the thread that found them: a canceller, the
 * transmit worker, lx_xprt_destroy()); on a caller-driven transport on its
 * owner thread only (lx_xprt_loop_service()).  They must not block.  A request's
 * memory is never written by the library after done() returns.
 */
#ifndef LIBXPRT_PROTO_XPRT_H
#define LIBXPRT_PROTO_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../xprt.h"
#include "iter.h"
#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lx_xprt_req;

/**
 * struct lx_xprt_framing_ops - how messages are delimited on a byte stream
 * @name: for messages
 * @hdr_len: bytes of the per-fragment marker (4 for both protocols)
 * @keep_hdr: the marker is part of the message (9P's size field) rather
 *	than a separate framing word (RPC record marking)
 * @key_len: bytes at the start of the message needed by @key
 * @encode: write the marker for a @len-byte message into @hdr; return
 *	bytes written (0 when @keep_hdr: the message carries its own size)
 * @decode: parse a marker: store the number of message bytes that follow
 *	it in *@len (with @keep_hdr, the marker's bytes count as message bytes
 *	already read) and whether this fragment ends the message in *@last.
 *	Return 0 or %-EBADMSG for a marker that cannot be valid.
 * @key: the reply's key (XID, tag) from its first @key_len bytes
 * @check: optional; can a message starting with these @key_len bytes be
 *	a reply at all?  Return 0, or %-EBADMSG for bytes no server sends
 *	in answer (an RPC message type other than REPLY, a 9P T-message):
 *	the stream is garbage from there and the connection is dropped.
 *	A message shorter than @key_len is garbage too.
 */
struct lx_xprt_framing_ops {
	const char *name;
	size_t hdr_len;
	bool keep_hdr;
	size_t key_len;
	size_t (*encode)(void *hdr, size_t len);
	int (*decode)(const void *hdr, size_t *len, bool *last);
	uint32_t (*key)(const void *msg);
	int (*check)(const void *msg);
};

/* RFC 5531 record marking: 4-byte big-endian marker, bit 31 = last
 * fragment; key = XID (first word of the message, big-endian), and the
 * next word must be REPLY (1). */
extern const struct lx_xprt_framing_ops lx_xprt_framing_rpc;
/* 9P: size[4] little-endian including itself, then type[1] tag[2];
 * key = tag; the type must be an R-message's (odd). */
extern const struct lx_xprt_framing_ops lx_xprt_framing_9p;

/* What happens to requests already sent when the connection drops. */
enum lx_xprt_reconnect_policy {
	/* SunRPC: reconnect and send them again (same key) */
	LX_XPRT_RESEND,
	/* 9P: the session died with the connection: fail them with
	 * -ECONNRESET */
	LX_XPRT_FAIL,
};

/**
 * struct lx_xprt_opts - transport parameters
 * @transport: TCP or RDMA
 * @host: numeric address or host name
 * @port: port number (host order)
 * @framing: how messages are delimited (TCP); RDMA may leave it NULL
 *	and take its upper-layer binding's (see libxprt/rdma.h)
 * @max_reqs: request slots, 1 .. 65535 (default 64)
 * @buf_size: size of the send and receive buffers of each request, which
 *	bounds call headers and non-bulk replies (default 8192)
 * @max_msg: the largest message accepted from the peer (default 8 MiB);
 *	bulk data placed straight into caller memory counts too
 * @pool: a pool to take buffers from, or NULL to create one: a one-size
 *	pool of @buf_size buffers, or a shared pool (struct lx_xprt_pool_opts,
 *	"Sharing"), whose class for @buf_size is used (buf_size then becomes
 *	the class's size); an RDMA transport registers a shared pool
 * @req_priv: bytes of per-request private space for the protocol
 * @policy: see enum lx_xprt_reconnect_policy
 * @cong: 0 fixed window (TCP), 1 AIMD, 2 server grants (RDMA)
 * @connect_timeout_ms: per attempt (default 5000)
 * @reconnect_min_ms: first backoff delay (default 100)
 * @reconnect_max_ms: backoff ceiling (default 30000)
 * @reconnect_give_up_ms: fail queued and in-flight requests with
 *	-ENOTCONN after this long without a connection; 0 = never (default)
 * @nodelay: set TCP_NODELAY (default true; opts zeroed means true)
 * @no_nodelay: turn @nodelay off
 * @xmit_fifo: transmit requests waiting for the connection in arrival
 *	order instead of round robin over the submitting threads (fair
 *	queueing, the default): an ablation, to measure what fairness costs
 *	and buys; requests holding a congestion credit go first either way
 * @rdma: RDMA options, a struct lx_xprt_rdma_opts (libxprt/rdma.h); may be
 *	NULL
 * @early_loss_limit: a request sent on (or queued for) this many
 *	connections in a row that the server dropped early without replying fails with
 *	%-ECONNRESET instead of being sent again (%LX_XPRT_RESEND; 0 = no
 *	limit, the default): a port that closes on every call (not the
 *	service we think) fails in a fraction of a second rather than at the
 *	protocol's timeout
 * @max_in_flight: requests sent and not yet answered, at most this many
 *	(0: @max_reqs; the congestion window never exceeds it); the others
 *	wait in the transmit queue, as behind RDMA's credits
 * @log: the message hook (NULL: messages are dropped), see lx_xprt_log_fn
 * @log_arg: its argument
 * @zerocopy: TCP: send messages carrying @zerocopy_min bytes of payload
 *	(tx_segs) or more with MSG_ZEROCOPY (opt-in: it pays where the NIC
 *	reads user pages; on loopback the kernel copies anyway and says so,
 *	SO_EE_CODE_ZEROCOPY_COPIED).  The kernel reads the payload after
 *	sendmsg() returns, so a request sent that way is not completed -
 *	done() does not run, its memory is not handed back - before the
 *	kernel has reported the send complete on the socket's error queue
 *	(stats zerocopy_*).  Ignored where the socket refuses SO_ZEROCOPY.
 * @zerocopy_min: payload bytes from which @zerocopy applies (default
 *	32768, so that a 9P Twrite at msize 64 KiB qualifies; below some
 *	10 KiB pinning pages costs more than copying)
 * @mode: %LX_XPRT_MODE_THREADED (0, the default) or %LX_XPRT_MODE_CALLER
 *	(libxprt/xprt.h, enum lx_xprt_mode): no thread of the library's, the
 *	owner thread drives the transport (lx_xprt_loop_service()).  TCP
 *	only, without @zerocopy (%-EOPNOTSUPP otherwise).
 *
 * Reconnection backs off as the Linux client does, counting early
 * disconnects (%LX_XPRT_EARLY_MS) as failed connects: after a connection
 * the server dropped early, or a failed attempt, the next attempt waits
 * the current delay (counted from when the lost connection was made),
 * which then doubles from @reconnect_min_ms up to @reconnect_max_ms; a
 * connection that carried replies resets it, and one that lived longer
 * than the delay is replaced at once.  (Linux: 3 s doubling to 5 min.)
 */
struct lx_xprt_opts {
	enum lx_xprt_transport transport;
	const char *host;
	uint16_t port;
	const struct lx_xprt_framing_ops *framing;
	unsigned int max_reqs;
	size_t buf_size;
	size_t max_msg;
	struct lx_xprt_pool *pool;
	size_t req_priv;
	enum lx_xprt_reconnect_policy policy;
	int cong;
	unsigned int connect_timeout_ms;
	unsigned int reconnect_min_ms;
	unsigned int reconnect_max_ms;
	unsigned int reconnect_give_up_ms;
	bool no_nodelay;
	bool xmit_fifo;
	const void *rdma;
	unsigned int early_loss_limit;
	unsigned int max_in_flight;
	lx_xprt_log_fn log;
	void *log_arg;
	bool zerocopy;
	size_t zerocopy_min;
	enum lx_xprt_mode mode;
};

/**
 * struct lx_xprt_req_ops - the protocol's hooks for one request
 * @done: the outcome, exactly once: @status 0 means a reply of
 *	req->rlen bytes is in req->rbuf (bulk data, if placed, is in the
 *	caller's memory); negative is an errno.  Runs on the receive thread or
 *	on the thread that decided the outcome; must not block.  The request
 *	stays valid until the protocol's lx_xprt_req_put().
 * @place: optional; called on the receive thread while a reply arrives,
 *	each time @have bytes of the message (of @msg_len in all) are in
 *	req->rbuf.  Return a number > @have to get that many bytes in rbuf
 *	before the next call; or 0 after setting req->rx_data_off,
 *	req->rx_data_len and req->rx_data (an iterator over the caller's
 *	memory) to have bytes [data_off, data_off + data_len) of the message
 *	placed there, then req->rx_data_pad bytes dropped (XDR padding of
 *	the data: the reply seen by the decoder is the "reduced" stream of
 *	RFC 8166 section 3.4, the same over TCP and RDMA), and the rest
 *	after them appended to rbuf; or 0 without
 *	data (rx_data_len 0) to have everything in rbuf; or a negative errno
 *	to fail the request (the message is then discarded).  Bytes already
 *	in rbuf past data_off are copied, the rest read straight into place.
 * @timeout: optional; the request's timer expired (lx_xprt_req_set_timer()).
 *	Runs on the receive thread.  The protocol decides: retransmit
 *	(lx_xprt_req_retransmit()), fail (lx_xprt_req_fail()), or re-arm.
 * @cancel: optional; lx_call_cancel() of the call this request carries
 *	(a reference is held): NULL fails it with lx_xprt_req_cancel(); a
 *	protocol whose cancel must first tell the server (9P: Tflush) does
 *	that here.  Return as lx_call_cancel().  Any thread; must not block.
 */
struct lx_xprt_req_ops {
	void (*done)(struct lx_xprt_req *req, int status);
	int (*place)(struct lx_xprt_req *req, size_t have, size_t msg_len);
	void (*timeout)(struct lx_xprt_req *req);
	int (*cancel)(struct lx_xprt_req *req);
};

#define LX_XPRT_REQ_MAX_TX_SEGS 8

/**
 * struct lx_xprt_req - one request slot
 *
 * Fields marked (proto) belong to the protocol between alloc and submit,
 * and are read-only for it afterwards; the others are the library's.
 * @xprt: owner transport
 * @slot: slot index, 0 .. max_reqs-1 (9P uses it as the tag)
 * @sbuf: send buffer (proto): the message starts at sbuf->data and is
 *	sbuf->len bytes long, followed by @tx_segs
 * @tx_segs: extra send segments from the caller's memory (proto; WRITE
 *	payloads, padding), @nr_tx_segs of them, sent after sbuf
 * @rbuf: receive buffer: the reply (minus bulk data) lands here
 * @rlen: bytes of the reply in rbuf, valid in done() when status is 0
 * @rx_data, @rx_data_off, @rx_data_len, @rx_data_pad: bulk placement,
 *	see lx_xprt_req_ops.place (proto, set from place())
 * @rx_msg_len: total length of the reply message
 * @ops: hooks (proto)
 * @owner: fairness owner (proto; thread id or job id; 0 = calling thread)
 * @no_reply: the message expects no reply (proto)
 * @no_orphan: the protocol itself keeps the key of a request that is
 *	cancelled or times out after it was sent out of use until the server
 *	is done with it (9P: Tflush), so the transport returns its credit
 *	and slot at done() (proto).  Otherwise such a request becomes an
 *	orphan after done(): see lx_xprt_req_fail()
 * @timeout_ns: the request's timer, armed by lx_xprt_req_submit() before the
 *	request can complete (proto; 0: none).  Arming it after the submit
 *	would race with an async completion releasing the request.
 * @will_wait: the caller will wait for the outcome with
 *	lx_xprt_req_done_wait() (proto): the transport may let that thread
 *	receive the reply itself, saving a thread hop
 * @key: the reply key given at submit
 * @rx_hint: bulk data bytes the reply is expected to place (proto, set
 *	before submit; the READ or Tread count; 0: none).  A hint only: a
 *	transport may size its reads for it (TCP reads the header of such
 *	a reply without reading into its data, so the data of even the
 *	first large reply of a connection lands straight in place)
 * @rx_first: how many bytes of the reply place() reads at its first call
 *	(proto, set before submit; 0: the transport's choice, 128 bytes
 *	over TCP).  A hint only: a transport that has the whole reply at
 *	hand copies that much of it into rbuf before the first place();
 *	place() asks for more as ever.  9P sets the Rread header's 11, so
 *	that no data is copied into rbuf only to be read from elsewhere
 * @gen: which use of the slot this is: changes at every lx_xprt_req_alloc()
 *	and is never 0 (lx_xprt_call_set() records it for lx_call_cancel())
 * @user: free for the protocol
 */
struct lx_xprt_req {
	struct lx_xprt *xprt;
	unsigned int slot;
	struct lx_xprt_buf *sbuf;
	struct iovec tx_segs[LX_XPRT_REQ_MAX_TX_SEGS];
	unsigned int nr_tx_segs;
	struct lx_xprt_buf *rbuf;
	size_t rlen;
	struct lx_xprt_iter rx_data;
	size_t rx_data_off;
	size_t rx_data_len;
	size_t rx_data_pad;
	size_t rx_msg_len;
	const struct lx_xprt_req_ops *ops;
	uint64_t owner;
	bool no_reply;
	bool will_wait;
	bool no_orphan;
	uint64_t timeout_ns;
	uint32_t key;
	uint32_t gen;
	void *user;
	size_t rx_hint;
	size_t rx_first;
};

/* lx_xprt_req_alloc() flags */
#define LX_XPRT_NOWAIT \
	0x1u /* fail with -EBUSY instead of waiting for a slot or buffer */

/**
 * lx_xprt_create() - create a transport and connect it
 * @xp: where the transport is stored
 * @opts: parameters, copied (the pool is referenced, not copied)
 *
 * Resolves the address, connects (blocking, up to connect_timeout_ms) and
 * starts the receive thread and the transmit worker (none in
 * %LX_XPRT_MODE_CALLER: the calling thread is the owner, see
 * lx_xprt_loop_fd()).  Once the server
 * accepted (the TCP handshake completed), creation succeeds even if the
 * server has reset the connection since: that loss is the reconnect
 * machinery's (an early disconnect, backed off), as for one a moment
 * after this returns, so the outcome does not depend on timing.
 *
 * The transport belongs to the calling process: in a child of fork()
 * every function that acts on it (request alloc, submit, cancel, wait,
 * lx_xprt_set_pool(), the loop calls) returns %-ECHILD, and
 * lx_xprt_destroy() only forgets it (see there).
 * Return: %0; %-EINVAL for bad options; %-ENOENT when the host does not
 * resolve; %-ECONNREFUSED, %-ETIMEDOUT, %-EHOSTUNREACH or another connect
 * error; %-ENOMEM; %-EPROTONOSUPPORT for a transport not built in.
 */
int lx_xprt_create(struct lx_xprt **xp, const struct lx_xprt_opts *opts);

/**
 * lx_xprt_destroy() - close the transport and free it
 *
 * Queued and in-flight requests complete with -ESHUTDOWN (their done()
 * runs on the calling thread or the receive thread before this returns).
 * Every request must then be put by its protocol before lx_xprt_destroy()
 * returns: it waits for that.  Must not be called from a done() callback.
 * NULL is a no-op.
 *
 * In a child of the process that created @x (fork()), it only frees the
 * child's copy of the transport's memory and close(2)s its descriptors:
 * no shutdown(2), no byte sent, no thread joined, no lock taken, no
 * verbs call, no done() (the requests in flight are the parent's), so
 * the parent's connection is not disturbed.
 */
void lx_xprt_destroy(struct lx_xprt *x);

/**
 * lx_xprt_req_alloc() - take a free request slot and its buffers
 * @x: the transport
 * @flags: %LX_XPRT_NOWAIT or 0
 * @reqp: where the request is stored; its sbuf->len is 0, ops NULL
 *
 * Context: may block (FIFO behind other waiters) without %LX_XPRT_NOWAIT.
 * Return: %0; %-EBUSY (no slot or no buffer free, and %LX_XPRT_NOWAIT);
 * %-ESHUTDOWN when the transport is closing; %-ENOMEM (the pool could not
 * grow); %-ECHILD in a child of the process that created @x.
 */
int lx_xprt_req_alloc(struct lx_xprt *x, unsigned int flags,
		      struct lx_xprt_req **reqp);

/** lx_xprt_req_priv() - the protocol's private area of @req (req_priv bytes) */
void *lx_xprt_req_priv(struct lx_xprt_req *req);

/**
 * lx_xprt_req_add_seg() - append a send segment from caller memory
 * The memory must stay valid and unchanged until done() has run.
 * Return: %0; %-E2BIG when all %LX_XPRT_REQ_MAX_TX_SEGS are used.
 */
int lx_xprt_req_add_seg(struct lx_xprt_req *req, const void *base, size_t len);

/**
 * lx_xprt_req_submit() - send a request and wait for its reply in the
 * background
 * @req: encoded request, ops set
 * @key: the key its reply will carry (XID, 9P tag)
 *
 * The request is linked into the reply index before it is queued.  The
 * calling thread transmits when it can take the transmit lock and a
 * credit; otherwise the transmit worker will.
 * Return: %0, and ops->done() will run exactly once; or a negative errno
 * and done() will never run: %-EEXIST (a request with @key is in flight),
 * %-EINVAL (no ops/done, empty message, or the request was already
 * submitted), %-ESHUTDOWN (transport closing), %-EMSGSIZE (message larger
 * than the peer accepts), %-EOPNOTSUPP (no_reply on RDMA, where every
 * message must be answered to return its credit), %-ECHILD (in a child
 * of the process that created the transport).
 */
int lx_xprt_req_submit(struct lx_xprt_req *req, uint32_t key);

/**
 * lx_xprt_req_resubmit() - submit a request again, under a new key, after
 * its done() has returned (NFS3ERR_JUKEBOX: the same call, a new XID)
 * @req: a request whose done() has returned and that only the protocol
 *	holds (its reference from alloc)
 * @key: the key the new reply will carry
 *
 * The message in sbuf and tx_segs goes out again as it is (the protocol
 * patches it first: the new XID); ops, owner, will_wait and timeout_ns are
 * kept, the reply fields are reset.  Counted in stats.resubmits.
 * Return: as lx_xprt_req_submit(), done() running once more on %0, and
 * the caller then holds one more reference, to put once it no longer
 * looks at the request; %-EBUSY when someone else still holds it (done()
 * is returning on another thread, a cancel is looking: try again in a
 * moment).
 */
int lx_xprt_req_resubmit(struct lx_xprt_req *req, uint32_t key);

/**
 * lx_xprt_req_park() - from done(): this request will be resubmitted
 * rather than put, and lx_call_cancel() of its call reaches ops->cancel
 * until then (the protocol ends the wait: done() of its own with
 * -ECANCELED, then the put).  lx_xprt_req_resubmit() clears it.
 */
void lx_xprt_req_park(struct lx_xprt_req *req);

/**
 * lx_xprt_req_set_timer() - arm (or re-arm) the timer of a request the
 * caller holds a reference to (from its timeout hook, say; for the
 * initial timer use req->timeout_ns)
 * @req: a submitted request
 * @timeout_ns: relative; 0 disarms
 *
 * On expiry ops->timeout() runs on the receive thread.  Safe from any
 * thread, including from ops->timeout() itself.
 */
void lx_xprt_req_set_timer(struct lx_xprt_req *req, uint64_t timeout_ns);

/**
 * lx_xprt_req_retransmit() - queue a submitted request for transmission
 * again with the same key (RPC retransmission after a minor timeout)
 *
 * Over RDMA a request already sent on the current connection is not sent
 * twice on it: the connection is dropped and the reconnect resends every
 * request in flight (credits are per connection).
 * Return: %0; %-EALREADY when its outcome is already decided or it is still
 * queued; %-EINVAL when it was never submitted.
 */
int lx_xprt_req_retransmit(struct lx_xprt_req *req);

/**
 * lx_xprt_req_fail() - decide a submitted request's outcome as an error
 * @req: the request
 * @status: negative errno passed to done()
 *
 * If no reply has been accepted yet, the request leaves the transmit
 * queue; done() runs once the transmitter and the receiver no longer touch
 * its memory (possibly on another thread, before or after this returns).
 *
 * Orphans.  A request failed with %-ECANCELED or %-ETIMEDOUT after it went
 * out on the current connection (it holds a congestion credit, and
 * @req->no_orphan and @req->no_reply are false) is still being worked on
 * by the server, which will answer it.  Its done() runs just as early, and
 * the protocol puts its reference as usual, but the transport keeps the
 * request's credit (over RDMA: one of the server's receive buffers), its
 * slot and its reply key until the first of: its reply arrives (consumed
 * and discarded without touching the caller's memory, counted in
 * lx_xprt_stats.orphan_replies; the credit returns as for a reply), its
 * deadline passes (the timer armed when it was failed, or, if none was,
 * @req->timeout_ns from then; the credit returns as a timeout, halving an
 * AIMD window), the connection ends (credits reset) or the transport is
 * destroyed.  A request that never went out releases everything at once.
 * So a loop that cancels and restarts calls never has more requests
 * unanswered at the server than the window, and cannot push other
 * owners' calls behind an unbounded backlog.  Other failures release at
 * done(); a reply arriving for them later is counted as unknown.
 * Return: %0; %-EALREADY when the outcome was decided already (done() has
 * run or is about to, with that outcome).
 */
int lx_xprt_req_fail(struct lx_xprt_req *req, int status);

/**
 * lx_xprt_req_cancel() - lx_xprt_req_fail(req, -ECANCELED)
 */
int lx_xprt_req_cancel(struct lx_xprt_req *req);

/**
 * lx_xprt_req_get() - take a reference on @req (e.g. before handing it to
 * another thread)
 */
void lx_xprt_req_get(struct lx_xprt_req *req);

/**
 * lx_xprt_req_put() - drop a reference; the last one frees the slot
 *
 * The protocol holds one reference from lx_xprt_req_alloc(); it puts it after
 * done() has run (or after a failed submit, or to abandon an unsubmitted
 * request).
 * Return: %0; %-EINVAL for a request with no reference left (a double
 * put, reported and otherwise ignored).
 */
int lx_xprt_req_put(struct lx_xprt_req *req);

/**
 * lx_xprt_req_done_wait() - wait until done() has run for @req
 * @req: a submitted request
 * @timeout_ns: relative, negative = forever
 *
 * For synchronous protocol calls: the caller submits with ops->done set
 * (it may do nothing) and waits here.
 * Context: may block; not on the receive thread.
 * Return: %0 when done() has returned; %-ETIMEDOUT.
 */
int lx_xprt_req_done_wait(struct lx_xprt_req *req, int64_t timeout_ns);

/**
 * lx_xprt_connect_cookie() - number of connections established so far; a
 * request whose cookie differs went out on an older connection
 */
uint32_t lx_xprt_connect_cookie(const struct lx_xprt *x);

/**
 * lx_xprt_req_sent() - the whole of @req has been written to a connection
 * at least once (a message that must follow it on the wire, such as a 9P
 * Tflush, may be sent now); false while it is queued, held back by a
 * receive batch or half written
 */
bool lx_xprt_req_sent(const struct lx_xprt_req *req);

/** lx_xprt_req_cookie() - the connect cookie @req was last sent under */
uint32_t lx_xprt_req_cookie(const struct lx_xprt_req *req);

/**
 * lx_xprt_set_pool() - give an idle transport another buffer pool
 * @x: the transport
 * @pool: the new pool (referenced, not owned: the caller destroys it
 *	after lx_xprt_destroy()); its buffer size becomes buf_size
 *
 * For protocols that negotiate their message size on the connection
 * itself (9P msize): create the transport with a pool for the size asked
 * for, negotiate, then switch to buffers of the size agreed.  No request
 * may be allocated while this runs; a request whose last reference the
 * transport itself drops right after done() is waited for.  A pool the
 * transport created is destroyed; a pool given in the options is left to
 * its owner.
 * Context: may sleep (up to a second); not from a callback.
 * Return: %0; %-EINVAL for NULL arguments; %-EBUSY when requests are
 * still held after that wait.
 */
int lx_xprt_set_pool(struct lx_xprt *x, struct lx_xprt_pool *pool);

/**
 * lx_xprt_not_responding() - a protocol saw a call go unanswered past its
 * timeout (an RPC minor timeout, say)
 *
 * Starts a "server HOST:PORT not responding, still trying" episode: the
 * message goes to the log hook once, counted in stats.not_responding, and
 * "server HOST:PORT OK" follows at the next reply.  The transport starts
 * one itself when a connection with calls in flight is lost early or a
 * reconnect attempt fails.  Any thread; cheap when an episode is on.
 */
void lx_xprt_not_responding(struct lx_xprt *x);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_PROTO_XPRT_H */
