/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt tag allocator: an sbitmap-style map of small integers.
 *
 * Tags are request slots: 9P tags, RPC slot numbers, RDMA credits.  The map
 * is spread over several cache lines (words), each thread starts searching
 * at its own hint, frees are deferred into a per-word "cleared" mask that
 * allocators fold back in batch, and waiters sleep on a few wait queues that
 * are woken in batches driven by two monotonic counters (completions and
 * wake-ups, the 2022 sbitmap fix for lost wake-ups).  Waiting is FIFO-fair:
 * a new arrival does not overtake threads already waiting, unless the map
 * is in barging mode (lx_xprt_tags_set_barging()), where it may until a waiter
 * has waited a set bound.
 */
#ifndef LIBXPRT_PROTO_TAGS_H
#define LIBXPRT_PROTO_TAGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LX_XPRT_TAGS_MAX_DEPTH 65535u

struct lx_xprt_tags;

/**
 * struct lx_xprt_tags_stats - counters
 * @gets: tags handed out
 * @puts: tags returned
 * @fails: non-blocking gets that found no tag
 * @waits: blocking gets that had to sleep
 * @wakeups: threads woken
 * @wake_batches: batched wake-up rounds
 * @bad_puts: puts rejected (out of range, not allocated)
 */
struct lx_xprt_tags_stats {
	uint64_t gets, puts, fails, waits, wakeups, wake_batches, bad_puts;
};

/**
 * lx_xprt_tags_create() - create a map of @depth tags, 0 .. depth-1
 * @tp: where the map is stored
 * @depth: 1 .. %LX_XPRT_TAGS_MAX_DEPTH
 *
 * Return: %0; %-EINVAL for depth 0 or above the maximum, or NULL @tp;
 * %-ENOMEM.
 */
int lx_xprt_tags_create(struct lx_xprt_tags **tp, unsigned int depth);

/**
 * lx_xprt_tags_get() - take a free tag without blocking
 * Context: any thread, never blocks.
 * Return: the tag (>= 0); %-EAGAIN when none is free or threads are
 * already waiting (FIFO fairness: they go first); %-ESHUTDOWN after
 * lx_xprt_tags_close(); %-EINVAL for a NULL @t.
 */
int lx_xprt_tags_get(struct lx_xprt_tags *t);

/**
 * lx_xprt_tags_get_wait() - take a tag, sleeping until one is free
 * @t: the map
 * @timeout_ns: relative timeout in nanoseconds; negative waits forever;
 *	0 tries once without queueing (and fails while others wait)
 *
 * Waiters are served in arrival order (per wait queue, queues in turn).
 * Context: may block; not from a completion callback.
 * Return: the tag (>= 0); %-ETIMEDOUT; %-ESHUTDOWN when the map was closed
 * before or during the wait; %-EINVAL for a NULL @t.
 */
int lx_xprt_tags_get_wait(struct lx_xprt_tags *t, int64_t timeout_ns);

/**
 * lx_xprt_tags_put() - return a tag
 * Context: any thread, never blocks.
 * Return: %0; %-EINVAL when @tag is out of range or not allocated (double
 * put): nothing changes and bad_puts counts it; %-EINVAL for a NULL @t.
 */
int lx_xprt_tags_put(struct lx_xprt_tags *t, unsigned int tag);

/**
 * lx_xprt_tags_resize() - change the usable depth
 * @t: the map
 * @depth: 1 .. the depth given at creation
 *
 * Shrinking (after a server lowered its credit grant, or a renegotiated
 * msize) takes effect for new gets at once; tags at or above the new depth
 * that are still held stay valid until put.  Growing back up to the
 * creation depth wakes waiters.
 * Return: %0; %-EINVAL for 0 or above the creation depth, or a NULL @t.
 */
int lx_xprt_tags_resize(struct lx_xprt_tags *t, unsigned int depth);

/**
 * lx_xprt_tags_set_barging() - let running threads overtake waiters, boundedly
 * @t: the map
 * @max_wait_ns: 0 for strict FIFO (the default); otherwise the longest a
 *	waiter may be overtaken before tags are handed to waiters in order
 *
 * Barging trades strict order for throughput when threads outnumber tags:
 * a thread that puts and gets again keeps its tag instead of trading places
 * with a sleeper.  Set it before the map is used.
 * Return: %0; %-EINVAL for a NULL @t.
 */
int lx_xprt_tags_set_barging(struct lx_xprt_tags *t, uint64_t max_wait_ns);

/** lx_xprt_tags_depth() - the current usable depth (0 for NULL) */
unsigned int lx_xprt_tags_depth(const struct lx_xprt_tags *t);

/** lx_xprt_tags_in_use() - tags held now (approximate under concurrency) */
unsigned int lx_xprt_tags_in_use(const struct lx_xprt_tags *t);

/** lx_xprt_tags_stats() - snapshot the counters (all 0 for a NULL map) */
void lx_xprt_tags_stats(const struct lx_xprt_tags *t,
			struct lx_xprt_tags_stats *st);

/**
 * lx_xprt_tags_close() - wake every waiter with -ESHUTDOWN and fail later gets
 *
 * Puts keep working.  Idempotent.  NULL is a no-op.
 */
void lx_xprt_tags_close(struct lx_xprt_tags *t);

/**
 * lx_xprt_tags_destroy() - close and free the map
 *
 * No thread may be inside a call on @t (waiters must have returned).
 * NULL is a no-op.
 */
void lx_xprt_tags_destroy(struct lx_xprt_tags *t);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_PROTO_TAGS_H */
