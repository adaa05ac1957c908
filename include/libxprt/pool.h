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
 * A pool made before fork() cannot be used in the child; its
 * lx_xprt_pool_destroy() there only frees the child's copy of its memory
 * (no lock, no RDMA deregistration: docs/api.md, "Across fork()").
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
 * @buf_size: size of every buffer in bytes (1 .. 64 MiB); or 0 for a pool
 *	to share between clients (see "Sharing" below)
 * @max_bytes: hard budget for buffer memory; 0 means 64 MiB.  Each buffer
 *	counts as its footprint: @buf_size rounded up to its alignment (64,
 *	or 4096 when @buf_size is a multiple of 4096)
 * @slab_bufs: buffers added per growth step; 0 picks a size near 1 MiB
 *	(at least one buffer); the last slab is cut short by the budget
 * @prealloc: buffers to allocate at creation (rounded up to whole slabs,
 *	within the budget); more than the budget holds is an error
 * @reg: optional registration hook, copied; NULL for none (protocol
 *	authors; clients attach the RDMA one themselves to a shared pool)
 *
 * Sharing.  A pool created with @buf_size 0 goes in the options of any
 * number of clients (struct lx_rpc_opts.pool, lx_nfs3_opts.pool,
 * lx_p9_opts.pool), NFSv3 and 9P alike, each keeping its own request
 * slots, tags and credits.  It serves each the buffer size it needs from
 * size classes (powers of two, 4 KiB .. 8 MiB): a 9P session whose server
 * answers a smaller msize takes the smaller class.  Its @max_bytes is one
 * budget for every class, reserved as address space at creation and
 * committed as buffers are first used; @slab_bufs and @prealloc must be 0.
 * Over RDMA the first RDMA client registers the whole budget once on
 * every RDMA device (pinning it: size @max_bytes to what the clients
 * need, and see RLIMIT_MEMLOCK), however many clients of either protocol
 * use the pool: lx_xprt_pool_stats() counts that as @regs.  A client on
 * a shared pool takes a call's two buffers (request and reply) when the
 * call starts and gives them back when it ends, so idle clients hold
 * nothing of the budget (a client's own pool lets its request slots keep
 * theirs instead).  Destroy it after every client that used it.
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
 * @slabs: slabs allocated
 * @regs: registrations of the pool's memory (registration hook calls):
 *	one per slab for a one-size pool with a hook; for a shared pool one
 *	for its whole budget, once an RDMA client used it (0 before)
 * @classes: size classes in use (shared pool; 0 otherwise)
 * @bytes_reserved, @bytes_carved: a shared pool's budget and how much of
 *	it the classes have carved into slabs
 * A shared pool's figures are its classes' summed (its @high_water the
 * sum of theirs).
 */
struct lx_xprt_pool_stats {
	uint64_t gets, puts, misses, waits, nobufs, bad_puts;
	uint64_t bufs_total, bufs_in_use, high_water, slabs;
	uint64_t regs, classes, bytes_reserved, bytes_carved;
};

/**
 * lx_xprt_pool_create() - create a pool
 * @poolp: where the new pool is stored
 * @opts: parameters, copied
 *
 * Context: any thread; may sleep (allocation, registration hook).
 * Return: %0 on success; %-EINVAL for a buffer size above 64 MiB (or,
 * shared, @prealloc or @slab_bufs set, a budget under 4 KiB),
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
