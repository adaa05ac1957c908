/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The private words of struct lx_call (include/libxprt/call.h), as every
 * layer sees them: the first ones say which request carries the call, for
 * lx_call_cancel(); the rest belong to the layer that started it.
 *
 * Which request: a pointer to its slot and the slot's generation
 * (lx_xprt_req.gen), written by the layer after lx_xprt_req_alloc() and
 * before the submit (lx_xprt_call_set()), never after: once submitted the
 * call may complete and its object be reused at any moment.  Slots live as
 * long as their client, so a cancel that reads a stale pair finds a slot
 * whose generation has moved on (or which is free) and answers -EALREADY
 * instead of cancelling another call.  The pair is written as a seqlock:
 * generation 0 (invalid), pointer, generation; a reader that sees the same
 * non-zero generation before and after reading the pointer has a pair
 * that belongs together.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_CALL_INT_H
#define LX_XPRT_CALL_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <libxprt/call.h>
#include <libxprt/proto/xprt.h>

/* words of lx_call.priv_ the core uses; the layer's start after them */
#define LX_CALL_CORE_WORDS 3

struct lx_call_core {
	_Atomic(struct lx_xprt_req *) req;
	_Atomic uint32_t gen;
	/* started and done() not entered yet (lx_xprt_loop_run()'s @until):
	 * set with the request, cleared by lx_call_done() */
	uint32_t live;
	/* a call made of several requests (a split NFSv3 I/O): its own
	 * cancel, looked at only while @req is NULL (so that a restart as a
	 * simple call need not clear it) */
	_Atomic(int (*)(struct lx_call *call)) cancel;
};

_Static_assert(sizeof(struct lx_call_core) ==
		       LX_CALL_CORE_WORDS * sizeof(uint64_t),
	       "struct lx_call_core must fill LX_CALL_CORE_WORDS words");

static inline struct lx_call_core *lx_call_core(struct lx_call *call)
{
	return (struct lx_call_core *)(void *)call->priv_;
}

/* The layer's private words: LX_CALL_PRIV_WORDS - LX_CALL_CORE_WORDS. */
static inline void *lx_call_layer(struct lx_call *call)
{
	return call->priv_ + LX_CALL_CORE_WORDS;
}

#define LX_CALL_LAYER_BYTES \
	((LX_CALL_PRIV_WORDS - LX_CALL_CORE_WORDS) * sizeof(uint64_t))

/**
 * lx_xprt_call_set() - record that @req carries @call (before the submit)
 */
static inline void lx_xprt_call_set(struct lx_call *call,
				    struct lx_xprt_req *req)
{
	struct lx_call_core *cc = lx_call_core(call);

	/* release stores: a reader that sees the new pointer sees the
	 * generation zeroed before it (see lx_call_cancel()) */
	cc->live = 1;
	atomic_store_explicit(&cc->gen, 0, memory_order_relaxed);
	atomic_store_explicit(&cc->req, req, memory_order_release);
	atomic_store_explicit(&cc->gen, req->gen, memory_order_release);
}

/**
 * lx_xprt_call_set_multi() - @call is carried by several calls of its own
 * (a split I/O): lx_call_cancel() runs @cancel
 */
static inline void lx_xprt_call_set_multi(struct lx_call *call,
					  int (*cancel)(struct lx_call *call))
{
	struct lx_call_core *cc = lx_call_core(call);

	cc->live = 1;
	atomic_store_explicit(&cc->gen, 0, memory_order_relaxed);
	atomic_store_explicit(&cc->req, NULL, memory_order_release);
	atomic_store_explicit(&cc->cancel, cancel, memory_order_release);
}

/** lx_xprt_call_req() - the request carrying @call (done() callbacks) */
static inline struct lx_xprt_req *lx_xprt_call_req(struct lx_call *call)
{
	return atomic_load_explicit(&lx_call_core(call)->req,
				    memory_order_relaxed);
}

/**
 * lx_call_done() - run @call's done() with @status: every layer's way to
 * report a call's outcome to its caller
 */
static inline void lx_call_done(struct lx_call *call, int status)
{
	lx_call_core(call)->live = 0; /* @call is the caller's from here */
	call->done(call, status, call->arg);
}

/** lx_xprt_call_live() - @call was started and its done() not entered */
static inline bool lx_xprt_call_live(struct lx_call *call)
{
	return lx_call_core(call)->live != 0;
}

#endif /* LX_XPRT_CALL_INT_H */
