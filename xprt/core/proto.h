/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the library's own protocol layers (rpc/, p9/) may ask of the
 * transport core beyond its public API (libxprt/xprt.h).
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_PROTO_H
#define LX_XPRT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lx_xprt;
struct lx_xprt_req;

/**
 * lx_xprt__keep_bufs() - let request slots keep their buffers
 * @x: a transport no request was allocated on yet
 *
 * A slot then holds on to its send and receive buffer when it is freed
 * and finds them again at its next allocation: no pool operation per
 * call.  Only for a pool whose budget holds two buffers for every slot of
 * every transport on it, i.e. a pool the caller made for its own
 * transports: buffers idle in slots are not available to anyone else
 * (they go back at lx_xprt_set_pool() and lx_xprt_destroy()).  A pool
 * the transport made itself is used this way without asking.
 */
void lx_xprt__keep_bufs(struct lx_xprt *x);

/**
 * lx_xprt__forked() - @x was made in another process, the parent of this
 * one across fork(): every call on it fails %-ECHILD, and
 * lx_xprt_destroy() only forgets it (a protocol's destroy must then
 * forget its own state too: no thread joined, no lock taken, nothing
 * sent).  A load and a compare.
 */
bool lx_xprt__forked(const struct lx_xprt *x);

struct lx_xprt_pool_opts;

/* the largest slot pool carved as one slab (lx_xprt__slot_pool_opts()) */
#define LX_XPRT__SLOT_POOL_ONE_SLAB (8u << 20)

/**
 * lx_xprt__slot_pool_opts() - options of a pool made for request slots
 * @po: options to fill in (its other fields untouched)
 * @buf_size: each buffer's size
 * @slots: request slots the pool serves, over all its transports
 *
 * The budget holds a send and a receive buffer for every slot.  When that
 * is at most %LX_XPRT__SLOT_POOL_ONE_SLAB, the whole budget is one slab:
 * carved (and registered, over RDMA) once, at the first call, so no later
 * call grows the pool, however the tag allocator spreads calls over the
 * slots.  A larger budget grows slab by slab as slots are first used.
 *
 * Context: any thread; no locks.
 */
void lx_xprt__slot_pool_opts(struct lx_xprt_pool_opts *po, size_t buf_size,
			     size_t slots);

/* Where a request's private area (lx_xprt_opts.req_priv) starts:
 * sizeof(struct lx_xprt_rqst), which xprt/core/xprt.c asserts.  A constant,
 * so the protocols' lx_xprt_req_priv() is one add on every hook, not a
 * call nor a load of a variable through the GOT. */
#define LX_XPRT__REQ_PRIV_OFF 576u

static inline void *lx_xprt__req_priv(struct lx_xprt_req *req)
{
	return (char *)req + LX_XPRT__REQ_PRIV_OFF;
}

/**
 * lx_xprt__req_grow_rbuf() - give a request a reply buffer of @size bytes
 * @req: an allocated request, not submitted yet
 * @size: the largest reply it may receive
 * @flags: %LX_XPRT_NOWAIT: fail rather than wait for a buffer
 *
 * For a reply that may not fit buf_size: over RDMA a large non-bulk reply
 * (READDIR, READLINK) is written by the server into the Reply chunk, which
 * is the reply buffer, and decoded from there.  The buffer is a size
 * class of 4 KiB to 8 MiB: the shared pool's when the transport is on
 * one, else a pool of the transport's own per class (registered for RDMA
 * like the transport's pool, buffer by buffer as first used, at most
 * %LX_XPRT_BIG_BUFS buffers each).  It goes back when the request is
 * freed (its last put); the slot keeps its own buffer meanwhile.
 * Context: the submitting thread, before lx_xprt_req_submit(); may block
 * for a buffer without %LX_XPRT_NOWAIT.
 * Return: %0 (also when rbuf is large enough already); %-EMSGSIZE above
 * 8 MiB; %-EBUSY with %LX_XPRT_NOWAIT and no buffer free; %-EINVAL for a
 * request grown already; %-ENOMEM or the registration's error (memlock).
 */
int lx_xprt__req_grow_rbuf(struct lx_xprt_req *req, size_t size,
			   unsigned int flags);

/**
 * lx_xprt__loop_set_hook() - timers of a protocol's own on a caller-driven
 * transport (RPC: calls waiting to go out again after NFS3ERR_JUKEBOX)
 * @x: a caller-driven transport (a threaded one ignores it)
 * @hook: run by every lx_xprt_loop_service() on the owner thread with the
 *	time now; does what is due and returns when it is next due (0:
 *	nothing waits), the time the loop descriptor is armed to
 * @arg: its argument
 *
 * Context: at set-up, before the first service.
 */
void lx_xprt__loop_set_hook(struct lx_xprt *x,
			    uint64_t (*hook)(void *arg, uint64_t now),
			    void *arg);

struct lx_call;

/**
 * lx_xprt__loop_run_set() - lx_xprt_loop_run() over several caller-driven
 * transports of one owner (an RPC client's connections)
 * @xs: the transports, @n of them
 * @fd: a descriptor readable when any of theirs is (an epoll set of
 *	their lx_xprt_loop_fd())
 * @until, @min_done, @deadline_ns: as lx_xprt_loop_run(), the requests
 *	completed on all of them counted together; with neither @until nor
 *	@min_done, until none of them has a call in flight
 * Context: the owner thread; blocks.
 * Return: as lx_xprt_loop_run().
 */
int lx_xprt__loop_run_set(struct lx_xprt *const *xs, unsigned int n, int fd,
			  struct lx_call *until, unsigned int min_done,
			  uint64_t deadline_ns);

#endif /* LX_XPRT_PROTO_H */
