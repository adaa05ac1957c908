/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt buffer pool: fixed-size buffers per client.
 *
 * One pool per client, sized by what was negotiated (9P msize, the RDMA
 * inline threshold, the RPC maximum header).  Buffers are carved from slabs;
 * each slab is handed once to an optional registration hook so the RDMA
 * transport registers memory once, never per request.  Getting and putting
 * a buffer is O(1) and takes no pool-wide lock on the fast path.  A hard
 * memory budget bounds the pool; when it is exhausted a getter either blocks
 * until a buffer is put back or gets -ENOBUFS, as it chooses.
 *
 * Each thread keeps a small cache of free buffers per pool it uses (at most
 * 32 buffers, about 1 MiB, and a quarter of the budget).  Caches are
 * flushed back when their thread exits, and a getter that would otherwise
 * fail or block takes the buffers other threads have cached, so idle
 * threads never starve it.  Blocked getters are served in FIFO order.
 * The per-thread fast path relies on membarrier(2) where the kernel has it;
 * XPRT_POOL_NO_MEMBARRIER=1 in the environment makes it use an atomic
 * exchange instead (what kernels without membarrier get), for measurement.
 * A pool cannot be used in the child after fork().
 */
#ifndef LIBXPRT_POOL_H
#define LIBXPRT_POOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lx_xprt_pool;

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

/**
 * struct lx_xprt_pool_opts - pool parameters
 * @buf_size: size of every buffer in bytes (1 .. 64 MiB)
 * @max_bytes: hard budget for buffer memory; 0 means 64 MiB.  Each buffer
 *	counts as its footprint: @buf_size rounded up to its alignment (64,
 *	or 4096 when @buf_size is a multiple of 4096)
 * @slab_bufs: buffers added per growth step; 0 picks a size near 1 MiB
 *	(at least one buffer); the last slab is cut short by the budget
 * @prealloc: buffers to allocate at creation (rounded up to whole slabs,
 *	within the budget); more than the budget holds is an error
 * @reg: optional registration hook, copied; NULL for none
 */
struct lx_xprt_pool_opts {
	size_t buf_size;
	size_t max_bytes;
	unsigned int slab_bufs;
	unsigned int prealloc;
	const struct lx_xprt_pool_reg *reg;
};

/* lx_xprt_pool_get() flags */
#define LX_XPRT_POOL_NOWAIT 0x1u /* return -ENOBUFS instead of blocking */

/**
 * struct lx_xprt_pool_stats - counters, read with lx_xprt_pool_stats()
 * @gets: successful gets
 * @puts: successful puts
 * @misses: gets the per-thread fast path could not serve
 * @waits: gets that blocked
 * @nobufs: gets that failed with -ENOBUFS
 * @bad_puts: puts rejected (double put, foreign buffer)
 * @bufs_total: buffers carved so far
 * @bufs_in_use: buffers held by callers now
 * @high_water: largest @bufs_in_use seen.  Exact while one thread at a
 *	time uses the pool and for peaks reached through the slow path
 *	(growth, waiting, stealing); otherwise it may be off by up to 7
 *	buffers per other thread, because threads fold their counts into
 *	the shared mark in batches to keep the fast path off shared lines
 * @slabs: slabs allocated (= registration hook calls)
 */
struct lx_xprt_pool_stats {
	uint64_t gets, puts, misses, waits, nobufs, bad_puts;
	uint64_t bufs_total, bufs_in_use, high_water, slabs;
};

/**
 * lx_xprt_pool_create() - create a pool
 * @poolp: where the new pool is stored
 * @opts: parameters, copied
 *
 * Context: any thread; may sleep (allocation, registration hook).
 * Return: %0 on success; %-EINVAL for a buffer size of 0 or above 64 MiB,
 * a budget smaller than one buffer, @prealloc above the budget, or a NULL
 * argument (nothing is allocated, *@poolp is left alone); %-ENOMEM; or the
 * registration hook's error for preallocated slabs (slabs already
 * registered are unregistered and freed).
 */
int lx_xprt_pool_create(struct lx_xprt_pool **poolp,
			const struct lx_xprt_pool_opts *opts);

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
 * lx_xprt_pool_stats() - snapshot the counters
 *
 * Counters are summed without stopping other threads, so a snapshot taken
 * while buffers move is approximate; it is exact when the pool is idle.
 */
void lx_xprt_pool_stats(const struct lx_xprt_pool *pool,
			struct lx_xprt_pool_stats *st);

/**
 * lx_xprt_pool_close() - fail blocked and future gets with -ESHUTDOWN
 *
 * Puts keep working so holders can return their buffers.  Idempotent.
 */
void lx_xprt_pool_close(struct lx_xprt_pool *pool);

/**
 * lx_xprt_pool_destroy() - free the pool and all its slabs
 *
 * Closes the pool first.  Every buffer must have been put back; buffers
 * that other (possibly still running) threads hold in their per-thread
 * caches count as put back.  Calls the unregistration hook once per slab.
 *
 * Context: no other call on @pool may run concurrently with it (as for any
 * destructor).  After %-EBUSY the pool stays valid: holders put their
 * buffers back, then destroy is called again.  After %0 it is gone.
 * Return: %0; %-EBUSY when buffers are still held or getters are still
 * waiting (nothing is freed, the pool stays closed).  NULL is a no-op
 * returning 0.
 */
int lx_xprt_pool_destroy(struct lx_xprt_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_POOL_H */
