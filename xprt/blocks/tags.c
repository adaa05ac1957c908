// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tag allocator: an sbitmap-style map of small integers with fair, batched
 * waiting.
 *
 * The bitmap
 * ----------
 * The depth given at creation is split over words of 2^shift bits, each word
 * on its own cache line.  shift starts at log2(bits per long) and shrinks
 * until the map covers four words (or one per tag below depth 4): a depth-8
 * map is four words of two bits, so eight threads cycling through eight tags
 * bounce four lines instead of one, and the two threads of a depth-2 map
 * each keep a line of their own.  A put does not clear the bit in the
 * word; it sets the same bit in the word's separate `cleared` mask.  An
 * allocator that finds its word full takes the whole `cleared` mask with one
 * exchange and clears those bits in the word with one AND.  Frees are thus
 * folded back in batches (two atomic operations for up to a word of frees),
 * a word's untouched bits are used up before recent frees are reused, and a
 * double put is caught by the put's own OR on `cleared`.  The counters gets
 * and puts cost nothing on the fast path either: a fold adds the number of
 * bits it folds to the word's `folded`, so puts = folded + bits in `cleared`
 * and gets = folded + bits in `word`.
 *
 * Every thread starts its search at its own hint (thread-local, seeded at
 * random on first use, reduced modulo the depth of the map at hand).  A put
 * stores the freed tag as the hint, so a thread that gets, puts and gets
 * again finds its own, cache-hot tag: its bit, still pending in `cleared`,
 * is taken back from there with one AND (the one exception to "untouched
 * bits first"; counted in `folded`, so gets and puts stay exact).  The hint is per thread, not per map:
 * a thread that uses several maps shares one hint between them, which only
 * costs a less useful starting point.
 *
 * Files: the map (the words, the hint, taking a bit) is tags_map.c, the
 * bottom; waiting, hand-off and barging are tags_wait.c, on the map; this
 * file is the API on both.
 */
#include "xprt/blocks/fork.h"
#include "xprt/blocks/tags_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the API */

/**
 * lx_xprt_tags_create() - create a map of @depth tags, 0 .. depth-1
 * @tp: where the map is stored (untouched on error)
 * @depth: 1 .. %LX_XPRT_TAGS_MAX_DEPTH
 *
 * Context: any thread; allocates.
 * Return: %0; %-EINVAL for a depth out of range or a NULL @tp; %-ENOMEM.
 */
int lx_xprt_tags_create(struct lx_xprt_tags **tp, unsigned int depth)
{
	struct lx_xprt_tags *t;
	unsigned int i;
	int err;

	if (!tp || !depth || depth > LX_XPRT_TAGS_MAX_DEPTH)
		return -EINVAL;
	t = aligned_alloc(LX_XPRT_CACHELINE, sizeof(*t));
	if (!t)
		return -ENOMEM;
	memset(t, 0, sizeof(*t));
	t->max_depth = depth;
	t->shift = lx_xprt_tags__calc_shift(depth);
	t->nr_words = ((depth - 1) >> t->shift) + 1;
	t->wake_batch =
		LX_XPRT_MAX(1u, LX_XPRT_MIN(depth / 8, TAGS_WAKE_BATCH));
	atomic_init(&t->depth, depth);
	t->words = aligned_alloc(LX_XPRT_CACHELINE,
				 t->nr_words * sizeof(*t->words));
	if (!t->words) {
		err = -ENOMEM;
		goto err_free_map;
	}
	memset(t->words, 0, t->nr_words * sizeof(*t->words));
	for (i = 0; i < TAGS_WAIT_QUEUES; i++) {
		err = -pthread_mutex_init(&t->wq[i].lock, NULL);
		if (err)
			goto err_destroy_locks;
		TAILQ_INIT(&t->wq[i].list);
	}
	*tp = t;
	return 0;

err_destroy_locks:
	while (i--)
		pthread_mutex_destroy(&t->wq[i].lock);
	free(t->words);
err_free_map:
	free(t);
	return err;
}

/**
 * lx_xprt_tags_get() - take a free tag without blocking
 * @t: the map
 *
 * Context: any thread, never blocks.  Touches no wait-queue state unless
 * threads are waiting.
 * Return: the tag (>= 0); %-EAGAIN when none is free or threads are waiting
 * (retry later or use lx_xprt_tags_get_wait()); %-ESHUTDOWN after
 * lx_xprt_tags_close(); %-EINVAL for a NULL @t.
 */
int lx_xprt_tags_get(struct lx_xprt_tags *t)
{
	uint32_t w;
	int tag;

	if (!t)
		return -EINVAL;
	w = atomic_load(&t->waiters);
	if (lx_xprt_unlikely(w)) {
		if (w & TAGS_CLOSED)
			return -ESHUTDOWN;
		tag = lx_xprt_tags__may_barge(t) ?
			      lx_xprt_tags__alloc_hinted(t) :
			      -EAGAIN;
	} else {
		tag = lx_xprt_tags__alloc_hinted(t);
	}
	if (tag < 0)
		atomic_fetch_add_explicit(&t->fails, 1, memory_order_relaxed);
	return tag;
}

/**
 * lx_xprt_tags_put() - return a tag
 * @t: the map
 * @tag: a tag this caller holds
 *
 * Context: any thread, never blocks (it may serve waiters: a few lock
 * holds and futex wake-ups).  Without waiters it touches only the tag's
 * word and reads the waiters count once.
 * Return: %0; %-EINVAL when @t is NULL, or @tag is out of range or not
 * allocated (a double put): nothing changes and bad_puts counts it.
 */
int lx_xprt_tags_put(struct lx_xprt_tags *t, unsigned int tag)
{
	struct tags_word *w;
	unsigned long bit;

	if (!t)
		return -EINVAL;
	if (tag >= t->max_depth)
		goto bad;
	w = &t->words[tag >> t->shift];
	bit = 1ul << (tag & ((1u << t->shift) - 1));
	if (!(atomic_load_explicit(&w->word, memory_order_relaxed) & bit))
		goto bad;
	/* seq_cst: the free must be ordered before the waiters load (rule 1) */
	if (atomic_fetch_or(&w->cleared, bit) & bit)
		goto bad;
	lx_xprt_tags__tls_hint = tag;
	lx_xprt_tags__tls_seeded = true;
	if (lx_xprt_unlikely(atomic_load(&t->waiters) & TAGS_WAIT_COUNT))
		lx_xprt_tags__put_wake(t, tag);
	return 0;

bad:
	atomic_fetch_add_explicit(&t->bad_puts, 1, memory_order_relaxed);
	return -EINVAL;
}

/**
 * lx_xprt_tags_resize() - change the usable depth
 * @t: the map
 * @depth: 1 .. the depth given at creation
 *
 * Shrinking takes effect for new gets at once; tags at or above the new
 * depth that are still held stay valid until put.  Growing serves waiters
 * with the tags that became usable.
 * Context: any thread; may serve waiters (never blocks for long).
 * Return: %0; %-EINVAL for a NULL @t, 0 or above the creation depth.
 */
int lx_xprt_tags_resize(struct lx_xprt_tags *t, unsigned int depth)
{
	unsigned int old;

	if (!t || !depth || depth > t->max_depth)
		return -EINVAL;
	/* seq_cst store, then the waiters load: a grow is a free (rule 1) */
	old = atomic_exchange(&t->depth, depth);
	if (depth > old && (atomic_load(&t->waiters) & TAGS_WAIT_COUNT) &&
	    lx_xprt_tags__serve(t, UINT_MAX, old))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
	return 0;
}

/**
 * lx_xprt_tags_depth() - the current usable depth
 * @t: the map (NULL gives 0)
 */
unsigned int lx_xprt_tags_depth(const struct lx_xprt_tags *t)
{
	return t ? atomic_load_explicit(&t->depth, memory_order_relaxed) : 0;
}

/**
 * lx_xprt_tags_in_use() - tags held now (approximate under concurrency)
 * @t: the map (NULL gives 0)
 *
 * Counts every held tag, also those above a shrunk depth.
 */
unsigned int lx_xprt_tags_in_use(const struct lx_xprt_tags *t)
{
	unsigned int n = 0, i;

	if (!t)
		return 0;
	for (i = 0; i < t->nr_words; i++) {
		struct tags_word *w = &t->words[i];
		/* acquire: a caller that sees a tag free also sees what its
		 * holder did before the put (lx_xprt_set_pool() relies on it) */
		unsigned long c =
			atomic_load_explicit(&w->cleared, memory_order_acquire);
		unsigned long v =
			atomic_load_explicit(&w->word, memory_order_acquire);

		n += (unsigned int)__builtin_popcountl(v & ~c);
	}
	return n;
}

/**
 * lx_xprt_tags_stats() - snapshot the counters
 * @t: the map (NULL gives all zeros)
 * @st: where to store them (NULL: nothing happens)
 *
 * Each counter is read atomically, the set is not a consistent snapshot;
 * gets and puts are derived from the words and exact when no call is in
 * progress.
 */
void lx_xprt_tags_stats(const struct lx_xprt_tags *t,
			struct lx_xprt_tags_stats *st)
{
	unsigned int i;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!t)
		return;
	for (i = 0; i < t->nr_words; i++) {
		const struct tags_word *w = &t->words[i];
		uint64_t f =
			atomic_load_explicit(&w->folded, memory_order_relaxed);
		unsigned long c =
			atomic_load_explicit(&w->cleared, memory_order_relaxed);
		unsigned long v =
			atomic_load_explicit(&w->word, memory_order_relaxed);

		st->gets += f + (uint64_t)__builtin_popcountl(v);
		st->puts += f + (uint64_t)__builtin_popcountl(c);
	}
	st->fails = atomic_load_explicit(&t->fails, memory_order_relaxed);
	st->waits = atomic_load_explicit(&t->waits, memory_order_relaxed);
	st->wakeups = atomic_load_explicit(&t->wakeups, memory_order_relaxed);
	st->wake_batches =
		atomic_load_explicit(&t->wake_batches, memory_order_relaxed);
	st->bad_puts = atomic_load_explicit(&t->bad_puts, memory_order_relaxed);
}

/* For the unit tests: how many words (cache lines) the map spans. */
unsigned int lx_xprt_tags__nr_words(const struct lx_xprt_tags *t);
unsigned int lx_xprt_tags__nr_words(const struct lx_xprt_tags *t)
{
	return t->nr_words;
}

/**
 * lx_xprt_tags_destroy() - close and free the map
 * @t: the map (NULL is a no-op)
 *
 * No thread may be inside a call on @t (waiters must have returned).
 */
/* See fork.h. */
void lx_xprt__tags_forget(struct lx_xprt_tags *t)
{
	if (!t)
		return;
	free(t->words);
	free(t);
}

void lx_xprt_tags_destroy(struct lx_xprt_tags *t)
{
	unsigned int i;

	if (!t)
		return;
	lx_xprt_tags_close(t);
	for (i = 0; i < TAGS_WAIT_QUEUES; i++)
		pthread_mutex_destroy(&t->wq[i].lock);
	free(t->words);
	free(t);
}
