/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt buffer pool for protocol authors (protocol-author tier): the
 * buffers, taking and returning them, the registration hook.  Creating a
 * pool is in <libxprt/pool.h>, included here; its design is described
 * there.
 */
#ifndef LIBXPRT_PROTO_POOL_H
#define LIBXPRT_PROTO_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct lx_xprt_buf - one buffer of a pool
 * @data: the memory, @cap bytes, aligned to 64 bytes (4096 when @cap is a
 *	multiple of 4096)
 * @cap: capacity, the pool's buffer size
 * @len: bytes in use; the pool sets it to 0 on get, the holder owns it
 * @next: NULL on get, then free for the holder's use while it holds the
 *	buffer (chaining buffers, see lx_xprt_iter_bufchain())
 *
 * Descriptors live apart from the data they describe, so @data keeps its
 * full size and alignment.  The other fields are the pool's.
 */
struct lx_xprt_buf {
	void *data;
	uint32_t cap;
	uint32_t len;
	struct lx_xprt_buf *next;
	/* private to the pool */
	void *slab_;
	void *node_[2];
	uint32_t state_;
	uint32_t pad_;
};

/**
 * struct lx_xprt_pool_reg - registration hook called once per slab
 * @reg: register [base, base+len) and store an opaque handle (an ibv_mr,
 *	say) in *handle.  Return 0 or a negative errno (a positive value is
 *	taken as its negation); on error the slab is freed and the get that
 *	needed it fails with that errno.
 * @unreg: undo @reg, called once per slab at lx_xprt_pool_destroy()
 * @ctx: passed to both
 *
 * Called without any pool lock held, from the thread whose get grew the
 * pool (or from lx_xprt_pool_create() for the preallocated slabs).
 */
struct lx_xprt_pool_reg {
	int (*reg)(void *ctx, void *base, size_t len, void **handle);
	void (*unreg)(void *ctx, void *handle);
	void *ctx;
};

#define LX_XPRT_POOL_NOWAIT 0x1u /* return -ENOBUFS instead of blocking */

/**
 * lx_xprt_pool_get() - take a buffer
 * @pool: the pool
 * @flags: %LX_XPRT_POOL_NOWAIT or 0
 * @bufp: where the buffer is stored (len set to 0)
 *
 * Context: any thread.  Without %LX_XPRT_POOL_NOWAIT it may block until
 * another thread puts a buffer back; blocked getters are served first in,
 * first out, and a newcomer does not overtake them.
 * Return: %0; %-ENOBUFS when @flags has %LX_XPRT_POOL_NOWAIT and no buffer is
 * free within the budget (including buffers cached by other threads) or
 * other getters are already waiting (retry later); %-ESHUTDOWN after
 * lx_xprt_pool_close(); %-EINVAL for NULL arguments or unknown @flags;
 * %-ENOMEM or the registration hook's error when growing failed (retry
 * may succeed).
 */
int lx_xprt_pool_get(struct lx_xprt_pool *pool, unsigned int flags,
		     struct lx_xprt_buf **bufp);

/**
 * lx_xprt_pool_put() - give a buffer back
 * @pool: the pool it came from
 * @buf: the buffer
 *
 * Context: any thread; never waits for anything but, rarely, the pool's
 * internal lock (a thread's first call on the pool, handing the buffer to
 * a blocked getter).  A double put racing from two threads is detected too.
 * Return: %0; %-EINVAL when @buf is not currently held from @pool (double
 * put, or a buffer of another live pool): nothing changes and bad_puts
 * counts it.  @buf must be a descriptor some pool handed out.
 */
int lx_xprt_pool_put(struct lx_xprt_pool *pool, struct lx_xprt_buf *buf);

/**
 * lx_xprt_buf_reg_handle() - the registration handle of the buffer's slab
 * Return: what the registration hook stored, or NULL without a hook.
 */
void *lx_xprt_buf_reg_handle(const struct lx_xprt_buf *buf);

/** lx_xprt_pool_buf_size() - the pool's buffer size in bytes */
size_t lx_xprt_pool_buf_size(const struct lx_xprt_pool *pool);

/**
 * lx_xprt_pool_close() - fail blocked and future gets with -ESHUTDOWN
 *
 * Puts keep working so holders can return their buffers.  Idempotent.
 */
void lx_xprt_pool_close(struct lx_xprt_pool *pool);

/**
 * lx_xprt_pool_class() - the one-size pool that serves buffers of @size
 * @pool: a shared pool (buf_size 0), or a one-size pool
 * @size: the buffer size wanted, bytes
 * @clsp: receives the class: buffers of the smallest power of two >= @size
 *	(at least 4 KiB), created on first use; @pool itself for a one-size
 *	pool whose buffers are that large
 *
 * What lx_xprt_create() does with opts.pool; get and put buffers on the
 * class.  A class lives as long as its pool (never destroy it).
 * Context: any thread; may allocate.
 * Return: %0; %-EINVAL (@size 0, above 8 MiB, or above a one-size pool's);
 * %-ENOMEM; %-ESHUTDOWN once the pool is closed.
 */
int lx_xprt_pool_class(struct lx_xprt_pool *pool, size_t size,
		       struct lx_xprt_pool **clsp);

/**
 * lx_xprt_pool_attach_reg() - have a shared pool's memory registered with
 * @reg (the RDMA transports do this with lx_xprt_rdma_pool_reg())
 *
 * The whole budget is registered once, at once if buffers are in use,
 * else with the first slab; later calls with the same hook do nothing.
 * For a one-size pool: %0 when it was created with that hook.
 * Return: %0; %-EINVAL for another hook than the one attached already (or a
 * one-size pool without it); the hook's error.
 */
int lx_xprt_pool_attach_reg(struct lx_xprt_pool *pool,
			    const struct lx_xprt_pool_reg *reg);

/** lx_xprt_pool_has_classes() - @pool is a shared pool or one of its classes */
bool lx_xprt_pool_has_classes(const struct lx_xprt_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_PROTO_POOL_H */
