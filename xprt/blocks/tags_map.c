// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tag allocator, the map: words of bits, the per-thread hint, taking a
 * free bit.  The bottom of the allocator: the API (tags.c) and the
 * waiting (tags_wait.c) are built on these and nothing here calls them.
 * The design is described at the top of tags.c.
 */
#include "xprt/blocks/tags_int.h"

#include <errno.h>

/* ---------------------------------------------------------- the hint */

/* initial-exec, as pool.c's pool_tc: a few bytes of static TLS, which
 * glibc's surplus also gives a library loaded later with dlopen() */
_Thread_local unsigned int lx_xprt_tags__tls_hint
	__attribute__((tls_model("initial-exec")));
_Thread_local bool lx_xprt_tags__tls_seeded
	__attribute__((tls_model("initial-exec")));

unsigned int lx_xprt_tags__hint(unsigned int depth)
{
	unsigned int h = lx_xprt_tags__tls_hint;

	if (lx_xprt_unlikely(!lx_xprt_tags__tls_seeded)) {
		/* splitmix64 of the clock and this thread's TLS address */
		uint64_t z = lx_xprt_now_ns() ^
			     (uint64_t)(uintptr_t)&lx_xprt_tags__tls_hint;

		z += 0x9e3779b97f4a7c15ull;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		h = (unsigned int)z;
		lx_xprt_tags__tls_seeded = true;
	}
	if (h >= depth) {
		h %= depth;
		lx_xprt_tags__tls_hint = h;
	}
	return h;
}

/* ------------------------------------------------------------ the map */

unsigned int lx_xprt_tags__calc_shift(unsigned int depth)
{
	unsigned int shift = (unsigned int)__builtin_ctz(TAGS_WORD_BITS);
	unsigned int lines = LX_XPRT_MIN(depth, 4u);

	/* spread small maps over four cache lines, or one per tag */
	while (shift && (lines << shift) > depth)
		shift--;
	return shift;
}

static unsigned long tags_word_mask(unsigned int nbits)
{
	return nbits >= TAGS_WORD_BITS ? ~0ul : (1ul << nbits) - 1;
}

/* Bits of word @idx usable under @depth (0 when the word lies above it). */
static unsigned int tags_word_bits(const struct lx_xprt_tags *t,
				   unsigned int idx, unsigned int depth)
{
	unsigned int first = idx << t->shift;

	if (first >= depth)
		return 0;
	return LX_XPRT_MIN(1u << t->shift, depth - first);
}

/*
 * Take a clear bit among the low @nbits of @w, preferring @start and above.
 * Return the bit, or -1 when the word is full even after folding `cleared`.
 */
static int tags_word_get(struct tags_word *w, unsigned int nbits,
			 unsigned int start)
{
	unsigned long mask = tags_word_mask(nbits);

	if (start >= nbits)
		start = 0;
	/*
	 * seq_cst loads (plain loads on x86): a waiter's search must be
	 * ordered after its increment of the waiters count (rule 1).
	 */
	for (;;) {
		unsigned long v = atomic_load(&w->word);
		unsigned long avail = ~v & mask;
		unsigned long above, bit, c, mine;

		if (!avail) {
			if (!atomic_load(&w->cleared))
				return -1;
			/*
			 * acq_rel: acquire what the putters released, and
			 * release it again through the AND to whoever sets
			 * these bits next.
			 */
			c = atomic_exchange_explicit(&w->cleared, 0,
						     memory_order_acq_rel);
			if (!c)
				continue;
			atomic_fetch_add_explicit(
				&w->folded, (uint64_t)__builtin_popcountl(c),
				memory_order_relaxed);
			/*
			 * The exchange made these frees ours: keep one usable
			 * bit set in the word as our tag instead of clearing
			 * it and setting it again, and clear the rest.
			 */
			mine = c & mask;
			if (mine) {
				above = mine & (~0ul << start);
				bit = 1ul
				      << __builtin_ctzl(above ? above : mine);
				c &= ~bit;
			}
			if (c)
				atomic_fetch_and_explicit(&w->word, ~c,
							  memory_order_acq_rel);
			if (mine)
				return __builtin_ctzl(bit);
			continue;
		}
		above = avail & (~0ul << start);
		bit = 1ul << __builtin_ctzl(above ? above : avail);
		if (!(atomic_fetch_or_explicit(&w->word, bit,
					       memory_order_acq_rel) &
		      bit))
			return __builtin_ctzl(bit);
	}
}

/*
 * Take a tag below the current depth, searching from @hint.  Ignores
 * fairness: callers decide whether they may take tags now.
 */
int lx_xprt_tags__alloc(struct lx_xprt_tags *t, unsigned int hint)
{
	unsigned int depth = atomic_load(&t->depth);
	unsigned int nwords = ((depth - 1) >> t->shift) + 1;
	unsigned int idx, bit, i;

	if (hint >= depth)
		hint = 0;
	idx = hint >> t->shift;
	bit = hint & ((1u << t->shift) - 1);
	for (i = 0; i < nwords; i++) {
		struct tags_word *w = &t->words[idx];
		int nr = tags_word_get(w, tags_word_bits(t, idx, depth), bit);

		if (nr >= 0)
			return (int)(idx << t->shift) + nr;
		bit = 0;
		if (++idx >= nwords)
			idx = 0;
	}
	return -EAGAIN;
}

/* Fast-path get for the calling thread: from and then past its hint. */
int lx_xprt_tags__alloc_hinted(struct lx_xprt_tags *t)
{
	unsigned int depth =
		atomic_load_explicit(&t->depth, memory_order_relaxed);
	unsigned int h = lx_xprt_tags__tls_hint, idx, first;
	unsigned long v, avail, bit;
	struct tags_word *w;
	int tag;

	/*
	 * The common case first: a free bit at or above the hint in the
	 * hint's own word, taken with one fetch_or (the same operations
	 * tags_word_get() starts with, without its general bookkeeping).
	 */
	if (lx_xprt_likely(lx_xprt_tags__tls_seeded && h < depth)) {
		idx = h >> t->shift;
		first = idx << t->shift;
		w = &t->words[idx];
		/*
		 * The tag this thread put last (the hint), its bit still
		 * pending in `cleared`: take it back from there, one atomic
		 * operation, and the slot behind it is the cache-hot one.  A
		 * fold that took the bit first makes it its own (the AND
		 * then finds it clear).  Counted as folded and got again,
		 * so that gets and puts stay exact.
		 */
		bit = 1ul << (h - first);
		if ((atomic_load_explicit(&w->cleared, memory_order_relaxed) &
		     bit) &&
		    (atomic_fetch_and_explicit(&w->cleared, ~bit,
					       memory_order_acq_rel) &
		     bit)) {
			atomic_fetch_add_explicit(&w->folded, 1,
						  memory_order_relaxed);
			return (int)h;
		}
		v = atomic_load(&w->word);
		avail = ~v &
			tags_word_mask(
				LX_XPRT_MIN(1u << t->shift, depth - first)) &
			(~0ul << (h - first));
		if (avail) {
			bit = avail & -avail;
			if (!(atomic_fetch_or_explicit(&w->word, bit,
						       memory_order_acq_rel) &
			      bit)) {
				tag = (int)first + __builtin_ctzl(bit);
				lx_xprt_tags__tls_hint =
					(unsigned int)tag + 1 < depth ?
						tag + 1 :
						0;
				return tag;
			}
		}
	}
	tag = lx_xprt_tags__alloc(t, lx_xprt_tags__hint(depth));

	if (tag >= 0)
		lx_xprt_tags__tls_hint =
			(unsigned int)tag + 1 < depth ? tag + 1 : 0;
	return tag;
}

/* Held tags (allocated, not put), counting only until @need are found. */
unsigned int lx_xprt_tags__held_at_least(struct lx_xprt_tags *t,
					 unsigned int need)
{
	unsigned int n = 0, i;

	for (i = 0; i < t->nr_words && n < need; i++) {
		struct tags_word *w = &t->words[i];
		/* cleared first: a fold in between can only hide a free bit */
		unsigned long c = atomic_load(&w->cleared);
		unsigned long v = atomic_load(&w->word);

		n += (unsigned int)__builtin_popcountl(v & ~c);
	}
	return n;
}

/* Whether a tag below the depth is free (never taken, or put). */
bool lx_xprt_tags__any_free(struct lx_xprt_tags *t)
{
	unsigned int depth = atomic_load(&t->depth);
	unsigned int nwords = ((depth - 1) >> t->shift) + 1, i;

	for (i = 0; i < nwords; i++) {
		struct tags_word *w = &t->words[i];
		unsigned long c = atomic_load(&w->cleared);
		unsigned long v = atomic_load(&w->word);

		if ((~v | c) & tags_word_mask(tags_word_bits(t, i, depth)))
			return true;
	}
	return false;
}
