/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt asynchronous calls: one call object for every layer.
 *
 * Every asynchronous entry point - lx_rpc_call_async(), the NFSv3
 * procedures' *_async(), lx_p9_call_async(), lx_p9_read_async() and
 * lx_p9_write_async() - takes a struct lx_call that the caller owns and
 * reports the outcome once through call->done(call, status, call->arg).
 * The library never allocates per call: the call object carries the state
 * it needs.  It is libuv's request model (uv_fs_t, uv_write_t):
 *
 *	struct lx_call call = {.done = read_done, .arg = job};
 *	err = lx_nfs3_read_buf_async(c, &call, &fh, off, len, buf, &res);
 *	...
 *	static void read_done(struct lx_call *call, int status, void *arg)
 *	{
 *		... call->count bytes are in buf ...
 *	}
 *
 * Lifetime: the object must stay valid and its fields unchanged from the
 * *_async() call until done() is entered.  From then on it is the
 * caller's again, even inside done(): restarting the next call on the
 * same object from done() is the normal way to keep calls in flight.  The
 * library does not touch it after done() returns.  A *_async() function
 * that returns an error never calls done().
 *
 * Threads: done() runs on a receive thread of the client (or on the thread
 * that decided the outcome: a canceller, the client's destroyer, a
 * transmitter that found the reply already in), possibly before the
 * *_async() function that started the call has returned.  It must not
 * block; a call it starts must set %LX_CALL_NOWAIT (see docs/api.md,
 * "The threading and callback contract").  On a caller-driven client
 * (%LX_XPRT_MODE_CALLER, libxprt/xprt.h) done() runs on its owner thread
 * only: inside the loop's service call, a synchronous call, or a
 * cancel or destroy the owner makes.
 *
 * This header is of the tool tier: with nfs3.h, p9.h, rpc.h, rpcbind.h
 * (and the xprt.h, rdma.h and pool.h they need for options and counters)
 * it is what a program using the clients includes.  The protocol-author
 * tier (a transport for a new protocol: requests, framing, tags, buffers,
 * iterators) is include/libxprt/proto/.
 */
#ifndef LIBXPRT_CALL_H
#define LIBXPRT_CALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lx_call;

/**
 * lx_done_fn - the outcome of an asynchronous call, exactly once
 * @call: the call object; its result fields are valid while this runs
 * @status: 0, or a negative errno (the layer's header lists them; a
 *	protocol error also sets @call->proto_status)
 * @arg: @call->arg
 *
 * Runs on a receive thread, or on the thread that decided the outcome;
 * must not block.  @call is the caller's again from the moment this is
 * entered.
 */
typedef void (*lx_done_fn)(struct lx_call *call, int status, void *arg);

/*
 * lx_call.flags: never wait for a free request slot or buffer; refuse with
 * -EBUSY instead (required when starting a call from a done() callback)
 */
#define LX_CALL_NOWAIT	   0x1u

#define LX_CALL_PRIV_WORDS 14

/**
 * struct lx_call - one asynchronous call, owned by the caller
 * @done: completion (set by the caller; required)
 * @arg: passed to @done (set by the caller)
 * @owner: fairness owner in the transmit queue, e.g. a job id; 0 = the
 *	calling thread (set by the caller).  Calls restarted from callbacks
 *	would otherwise all count as the receive thread's.
 * @flags: %LX_CALL_NOWAIT or 0 (set by the caller)
 * @res: the call's result structure: what the *_async() function was given
 *	(NFSv3: the struct lx_nfs3_*_res; RPC: lx_rpc_call_args.res), or for
 *	lx_p9_call_async() the decoded reply (a const struct lx_p9_fcall *,
 *	valid only while @done runs).  Set by the library.
 * @proto_status: the protocol's own status when the reply carried one:
 *	the NFSv3 or MOUNT status (enum lx_nfs3_stat), the errno of a 9P
 *	Rlerror (positive, as sent); 0 otherwise.  Set by the library.
 * @count: bytes a READ, WRITE, Tread or Twrite moved (0 for other calls
 *	and on error).  Set by the library.
 *
 * Zero it (designated initialisers, memset()) before its first use.  To
 * start it again, set the fields that change and leave the private words
 * alone: lx_call_cancel() on another thread may be reading them.
 */
struct lx_call {
	lx_done_fn done;
	void *arg;
	uint64_t owner;
	unsigned int flags;
	/* results, valid in done() */
	void *res;
	uint32_t proto_status;
	uint32_t count;
	/* private to the library */
	uint64_t priv_[LX_CALL_PRIV_WORDS];
};

/**
 * lx_call_cancel() - cancel an asynchronous call, at any layer
 * @call: a call started by one of the *_async() functions
 *
 * Decides the call's outcome as %-ECANCELED if nothing else has decided it
 * yet; done() then runs with -ECANCELED once the library can no longer
 * write the caller's memory: the receive thread has let go of the reply
 * buffers (RPC, NFSv3), the RDMA registrations of the call's memory are
 * invalidated, or the server has answered the 9P Tflush.  A 9P reply that
 * arrives before the Rflush completes the call normally (a Twalk that
 * succeeded did create its fid): the outcome is then that reply, and this
 * function has still returned 0.  A split NFSv3 I/O (lx_nfs3_pread_async())
 * cancels every piece still in flight.
 *
 * What the server holds stays counted.  A call that was already sent is
 * still being worked on by the server, which will answer it: its request
 * slot, its reply key and its congestion credit (over RDMA, one of the
 * server's receive buffers) stay taken after done() until the first of
 * its reply (discarded), its deadline (its timer, or one more timeout from
 * the cancel) or the end of the connection.  A 9P call keeps its tag until
 * the Rflush instead.  So cancelling and restarting calls never has more
 * calls unanswered at the server than the window; a restart meanwhile
 * waits for a free slot or credit (%LX_CALL_NOWAIT: %-EBUSY when no slot
 * is free).  A call not
 * sent yet releases everything at once.
 *
 * On a caller-driven client (%LX_XPRT_MODE_CALLER) a cancel from a thread
 * other than the owner decides nothing: it is queued to the owner (a
 * compare-and-swap and an eventfd write that makes the loop descriptor
 * readable) and returns %0; the owner's next service call cancels the
 * call as above if it is still in flight.  So done() may still report
 * success (or any other outcome reached first), and runs on the owner.
 * On the owner thread, or on a threaded client, the rules below hold.
 *
 * Safe from any thread, concurrently with the call's completion: a call
 * whose done() has run (or runs now) is not affected, even when its
 * request slot has been reused by another call since.  Cancelling a call
 * whose done() has returned is allowed as long as the client that ran it
 * exists (and returns -EALREADY).  Cancelling a call object that is being
 * restarted at the same time may cancel either call.
 * Context: any thread, including done() callbacks; never blocks.
 * Return: %0 when cancellation was started or decided; %-EALREADY when the
 * outcome was already decided (done() has run or is about to run with it);
 * %-EBUSY for a 9P call with too many flushes pending already; %-EINVAL
 * for a NULL @call.
 */
int lx_call_cancel(struct lx_call *call);

/**
 * lx_strerror() - a short text for an error any libxprt function returned
 * @err: a negative errno (a positive one is taken as its negation)
 *
 * The texts say what the error means in this library ("timed out: no
 * reply after the retransmissions, or the 9P call was flushed"), falling
 * back to strerror() for the rest.  Protocol status values have names of
 * their own: lx_nfs3_stat_name(), lx_p9_msg_name().
 * Return: a static string; never NULL.
 */
const char *lx_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_CALL_H */
