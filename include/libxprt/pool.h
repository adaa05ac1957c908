/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt buffer pool: fixed-size buffers per client (tool tier: creating,
 * sharing and counting a pool; taking and returning its buffers is the
 * protocol-author tier, <libxprt/proto/pool.h>).
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
struct lx_xprt_pool_reg; /* <libxprt/proto/pool.h> */

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
 * lx_xprt_pool_stats() - snapshot the counters
 *
 * Counters are summed without stopping other threads, so a snapshot taken
 * while buffers move is approximate; it is exact when the pool is idle.
 */
void lx_xprt_pool_stats(const struct lx_xprt_pool *pool,
			struct lx_xprt_pool_stats *st);

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
