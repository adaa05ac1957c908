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
 * again finds its own, cache-hot tag.  The hint is per thread, not per map:
 * a thread that uses several maps shares one hint between them, which only
 * costs a less useful starting point.
 *
 * Waiting
 * -------
 * One word, `waiters`, counts the threads queued on the eight wait queues and
 * carries the closed flag in its top bit.  The fast paths read it once (a
 * seq_cst load, a plain MOV on x86): a get that sees it non-zero queues
 * behind the waiters (blocking) or fails with -EAGAIN (non-blocking), which
 * is what makes waiting FIFO-fair.  A put that sees it zero is done.
 *
 * Waiters are served by hand-off: whoever wakes a waiter first allocates a
 * tag for it, stores the tag in the waiter's node and then wakes it.  A woken
 * thread therefore never finds the map empty and never requeues, so order
 * inside a queue is strict FIFO, and a waiter that times out while being
 * served simply takes the tag it was given.
 *
 * Batching follows the 2022 sbitmap scheme: two monotonic counters,
 * completion_cnt and wakeup_cnt.  A put that sees waiters increments
 * completion_cnt; while completion_cnt - wakeup_cnt >= wake_batch it moves
 * wakeup_cnt forward by wake_batch with a CAS, and the winner serves up to
 * wake_batch waiters from the next queue (the queue index is advanced before
 * use, and every queue is tried so a batch is not wasted on an empty one).
 * Unlike sbitmap, completions are counted only while waiters exist: counting
 * every put would put a shared atomic increment on the no-waiter fast path.
 *
 * No lost wake-up
 * ---------------
 * Three rules, each closing one gap.
 *
 * 1. Dekker pairs.  A put frees its bit (seq_cst RMW) and then reads
 *    `waiters` (seq_cst); a waiter increments `waiters` (seq_cst RMW) and
 *    then looks at the bitmap.  In the single total order of seq_cst
 *    operations one of the two sees the other.
 *
 * 2. The first waiter kicks.  A free that saw `waiters` == 0 is not counted.
 *    The waiter whose increment takes `waiters` from 0 to 1 is ordered after
 *    all such frees, so it distributes every free tag it finds to the queued
 *    waiters (possibly itself) before sleeping.  Later waiters need not look:
 *    from that increment until the count is back at 0 every free is counted.
 *    Growing the map is a free too: resize kicks when it sees waiters.
 *
 * 3. The batch must be able to fill.  sbitmap trusts that wake_batch more
 *    completions will come, which holds only while at least that many tags
 *    are in flight; with depth below wake_batch (after a shrink), or once the
 *    last holders return their tags, the remainder of a batch would never
 *    fill and the waiters would sleep next to free tags.  So a put that did
 *    not complete a batch counts the tags still held (bits set in a word and
 *    not in its `cleared`, stopping as soon as enough are found): if
 *    held + pending completions < wake_batch, no future completions can
 *    reach the batch, and it serves every waiter it can at once.  Take the
 *    last counted put in the seq_cst order: every tag it sees held would be
 *    put later, contradicting "last", so if all holders eventually put it
 *    sees none held and flushes.  The held count reads `cleared` before
 *    `word`, so a concurrent fold can only make a free tag look free.
 *
 * The cost of rule 3 is the assumption sbitmap makes too: deferral trusts
 * that held tags come back.  A thread that holds a tag and then blocks on the
 * same map for a second one counts as a future completion; if every holder
 * did that, a deferred batch would never fill.  Nested allocations should use
 * a timeout.
 *
 * Barging mode
 * ------------
 * Strict FIFO costs a context switch per tag once threads outnumber tags
 * and cores: every put hands its tag to a sleeper while the putter, about
 * to get again, goes to sleep in turn.  xprt_tags_set_barging() trades
 * order for throughput within a bound, as Linux mutexes do: a get may
 * take a free tag while others wait, and a put that sees waiters does not
 * hand its tag over but nudges the oldest waiter of the next queue (state
 * NUDGED plus a futex wake) to come and try for it; a waiter that finds
 * nothing keeps its place.  One flag, `nudge`, says a nudged waiter has
 * yet to look, so while it is set puts cost no lock and no system call.
 * Once a waiter has waited the bound it counts itself in `starving`, and
 * while that count is non-zero the map works as in strict mode (no
 * barging, hand-off by batches) until the starving waiters are served.
 * Five more rules keep every free seen:
 *
 * B1. Each waiter, after counting itself, tries once under its queue lock
 *     (a put that read the count before that increment nudged nobody).
 * B2. A nudged waiter clears `nudge` before it looks (seq_cst store, then
 *     the bitmap), a put frees and then reads `nudge`: a put that sees the
 *     flag set is covered by a look still to come.  A put finding a head
 *     already nudged (under the queue lock) skips: that head has yet to
 *     look, and looks after this free.
 * B3. Whoever stands in for a nudged waiter - it took a tag (one look
 *     covers one free), a hand-off answered it, or it timed out - or
 *     ends starvation, checks for a free tag and nudges again.
 * B4. The first waiter to starve counts itself, then hands out every free
 *     tag: frees whose puts read `starving` as zero are seen.
 * B5. Leaving barging mode serves every queued waiter once, after the
 *     mode store, for the frees that were left to nudges.
 *
 * A waiter sleeps on a futex in its own stack node; the server writes the
 * result and the done word under the queue lock and wakes the futex after
 * unlocking (by address only: a stale wake after the waiter returned is a
 * spurious wake-up, which every futex user tolerates).
 *
 * Double puts are detected when the bit is still pending in `cleared` (the
 * exchange with the old value says so) or already folded (the word bit is
 * clear).  A double put racing with the fold of the first put, between its
 * exchange and its AND, is not detected; a put of a tag that has meanwhile
 * been handed to someone else cannot be told from a valid put by anyone.
 */
#include <libxprt/tags.h>

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xprt/util.h"

#define TAGS_WORD_BITS	 ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define TAGS_WAIT_QUEUES 8u
#define TAGS_WAKE_BATCH	 8u
/* Most waiters served per queue-lock hold; bounds the wake-up array too. */
#define TAGS_GRANT_CHUNK 8u

#define TAGS_CLOSED	 0x80000000u
#define TAGS_WAIT_COUNT	 0x7fffffffu

/*
 * struct tags_waiter.done: 0 waiting, 1 served, 2 asleep on the futex,
 * 3 nudged (barging mode: a tag was freed, come and try for it)
 */
#define TAGS_W_WAITING	 0u
#define TAGS_W_DONE	 1u
#define TAGS_W_ASLEEP	 2u
#define TAGS_W_NUDGED	 3u

struct tags_word {
	_Atomic unsigned long word;    /* set: allocated (or pending clear) */
	_Atomic unsigned long cleared; /* set: put, not yet folded into word */
	_Atomic uint64_t folded;       /* stats: bits folded back so far */
} xprt_cacheline_aligned;

struct tags_waiter {
	TAILQ_ENTRY(tags_waiter) link;
	_Atomic uint32_t done; /* futex word, TAGS_W_* */
	int result;	       /* tag or -ESHUTDOWN, valid once done */
	bool starving;	       /* counted in xprt_tags.starving (queue lock) */
};

TAILQ_HEAD(tags_wlist, tags_waiter);

struct tags_waitq {
	pthread_mutex_t lock;
	struct tags_wlist list;
	_Atomic unsigned int len; /* written under lock, read as a hint */
} xprt_cacheline_aligned;

struct xprt_tags {
	/* read-mostly */
	struct tags_word *words;
	unsigned int max_depth;
	unsigned int shift;
	unsigned int nr_words;
	unsigned int wake_batch;
	_Atomic unsigned int depth;

	/* read by every fast path, written only when waiters come and go */
	_Atomic uint32_t waiters xprt_cacheline_aligned;
	/* barging mode: 0 = strict FIFO; else the longest a waiter may be
	 * overtaken (ns) */
	_Atomic uint64_t barge_ns;
	_Atomic uint32_t starving; /* waiters queued longer than barge_ns */
	_Atomic uint32_t nudge;	   /* a nudged waiter has yet to look */

	/* written only while threads wait */
	_Atomic unsigned int completion_cnt xprt_cacheline_aligned;
	_Atomic unsigned int wakeup_cnt;
	_Atomic unsigned int wake_index;
	_Atomic unsigned int wait_index;

	_Atomic uint64_t fails xprt_cacheline_aligned;
	_Atomic uint64_t waits, wakeups, wake_batches, bad_puts;

	struct tags_waitq wq[TAGS_WAIT_QUEUES];
};

/* ------------------------------------------------------------- futexes */

static void tags_futex_wait(_Atomic uint32_t *addr, uint32_t val,
			    const struct timespec *abs)
{
	/* WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline (or none). */
	syscall(SYS_futex, (uint32_t *)addr,
		FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, abs, NULL,
		FUTEX_BITSET_MATCH_ANY);
}

static void tags_futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1,
		NULL, NULL, 0);
}

/* ---------------------------------------------------------- the hint */

static _Thread_local unsigned int tags_tls_hint;
static _Thread_local bool tags_tls_seeded;

static unsigned int tags_hint(unsigned int depth)
{
	unsigned int h = tags_tls_hint;

	if (xprt_unlikely(!tags_tls_seeded)) {
		/* splitmix64 of the clock and this thread's TLS address */
		uint64_t z =
			xprt_now_ns() ^ (uint64_t)(uintptr_t)&tags_tls_hint;

		z += 0x9e3779b97f4a7c15ull;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		h = (unsigned int)z;
		tags_tls_seeded = true;
	}
	if (h >= depth) {
		h %= depth;
		tags_tls_hint = h;
	}
	return h;
}

/* ------------------------------------------------------------ the map */

static unsigned int tags_calc_shift(unsigned int depth)
{
	unsigned int shift = (unsigned int)__builtin_ctz(TAGS_WORD_BITS);
	unsigned int lines = XPRT_MIN(depth, 4u);

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
static unsigned int tags_word_bits(const struct xprt_tags *t, unsigned int idx,
				   unsigned int depth)
{
	unsigned int first = idx << t->shift;

	if (first >= depth)
		return 0;
	return XPRT_MIN(1u << t->shift, depth - first);
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
static int tags_alloc(struct xprt_tags *t, unsigned int hint)
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
static int tags_alloc_hinted(struct xprt_tags *t)
{
	unsigned int depth =
		atomic_load_explicit(&t->depth, memory_order_relaxed);
	int tag = tags_alloc(t, tags_hint(depth));

	if (tag >= 0)
		tags_tls_hint = (unsigned int)tag + 1 < depth ? tag + 1 : 0;
	return tag;
}

/* Held tags (allocated, not put), counting only until @need are found. */
static unsigned int tags_held_at_least(struct xprt_tags *t, unsigned int need)
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

/* ---------------------------------------------------------- waiting */

/*
 * Serve up to @max queued waiters, queues in turn from the next one: take a
 * tag for each (under the queue lock, so a served waiter always has one),
 * store it in the node and wake the thread.  Stops when the map has no tag
 * below the depth (puts of held tags will call again) or no waiter is
 * queued.  Return the number of waiters served.
 *
 * Context: any thread; takes the wait-queue locks one at a time.
 */
/*
 * Take @w off @q and out of the counts.  Return true when it was the last
 * starving waiter (barging may resume: the caller calls tags_pass_on()).
 * Context: @q's lock held.
 */
static bool tags_unqueue(struct xprt_tags *t, struct tags_waitq *q,
			 struct tags_waiter *w)
{
	TAILQ_REMOVE(&q->list, w, link);
	atomic_fetch_sub_explicit(&q->len, 1, memory_order_relaxed);
	atomic_fetch_sub(&t->waiters, 1);
	if (!w->starving)
		return false;
	w->starving = false;
	return atomic_fetch_sub(&t->starving, 1) == 1;
}

/* What serving changed that barging mode must act on afterwards. */
struct tags_served {
	bool nudge_taken; /* served a nudged waiter before it looked */
	bool unstarved;	  /* served the last starving waiter */
};

static void tags_pass_on(struct xprt_tags *t);

static unsigned int tags_serve_some(struct xprt_tags *t, unsigned int max,
				    unsigned int hint, struct tags_served *ev)
{
	unsigned int served = 0;

	while (served < max) {
		unsigned int qi, k;
		bool none = true;

		if (!(atomic_load(&t->waiters) & TAGS_WAIT_COUNT))
			break;
		/*
		 * Start after the queue served last (advance first), and
		 * move the index only when a queue is served: waiters enter
		 * the queues round-robin too, so with serialised wake-ups the
		 * two indices stay in step and service follows arrival order
		 * across queues, not only within one.
		 */
		qi = atomic_load_explicit(&t->wake_index,
					  memory_order_relaxed) +
		     1;
		for (k = 0; k < TAGS_WAIT_QUEUES && served < max; k++) {
			unsigned int qn = (qi + k) % TAGS_WAIT_QUEUES;
			struct tags_waitq *q = &t->wq[qn];
			_Atomic uint32_t *wake[TAGS_GRANT_CHUNK];
			unsigned int n = 0, j;
			bool full = false;

			if (!atomic_load_explicit(&q->len,
						  memory_order_relaxed))
				continue;
			pthread_mutex_lock(&q->lock);
			while (served < max && n < TAGS_GRANT_CHUNK) {
				struct tags_waiter *w = TAILQ_FIRST(&q->list);
				uint32_t old;
				int tag;

				if (!w)
					break;
				tag = tags_alloc(t, hint);
				if (tag < 0) {
					full = true;
					break;
				}
				if (tags_unqueue(t, q, w))
					ev->unstarved = true;
				w->result = tag;
				/*
				 * Publish the index before the first waiter
				 * can see `done`: it may put and serve the
				 * next round at once.
				 */
				if (!n)
					atomic_store_explicit(
						&t->wake_index, qn,
						memory_order_relaxed);
				old = atomic_exchange_explicit(
					&w->done, TAGS_W_DONE,
					memory_order_acq_rel);
				wake[n++] =
					old == TAGS_W_ASLEEP ? &w->done : NULL;
				if (old == TAGS_W_NUDGED)
					ev->nudge_taken = true;
				served++;
			}
			pthread_mutex_unlock(&q->lock);
			for (j = 0; j < n; j++)
				if (wake[j])
					tags_futex_wake(wake[j]);
			if (n) {
				none = false;
				atomic_fetch_add_explicit(&t->wakeups, n,
							  memory_order_relaxed);
				/* keep serving this queue while it lasts */
				if (served < max && !full)
					k--;
			}
			if (full)
				return served;
		}
		/*
		 * Waiters counted but none found: a concurrent round or a
		 * timeout took them after the count was read, or a queue
		 * length read was stale.  Look again until the count settles.
		 */
		if (none)
			sched_yield();
	}
	return served;
}

/*
 * Serve up to @max waiters (tags_serve_some()), then settle what that did
 * to barging mode: a nudge it answered by hand-off, or the end of
 * starvation, leaves frees that nobody may look at (rules B3, B4).
 */
static unsigned int tags_serve(struct xprt_tags *t, unsigned int max,
			       unsigned int hint)
{
	struct tags_served ev = {false, false};
	unsigned int served = tags_serve_some(t, max, hint, &ev);

	if (xprt_unlikely(ev.nudge_taken))
		atomic_store(&t->nudge, 0);
	if (xprt_unlikely(ev.nudge_taken || ev.unstarved))
		tags_pass_on(t);
	return served;
}

/*
 * A put (or a grow) saw waiters: count the completion, serve whole batches,
 * and flush when the rest of a batch can no longer fill.
 */
static void tags_wake(struct xprt_tags *t, unsigned int hint)
{
	unsigned int batch = t->wake_batch;
	unsigned int done, woken, pending;

	atomic_fetch_add(&t->completion_cnt, 1);
	for (;;) {
		woken = atomic_load(&t->wakeup_cnt);
		done = atomic_load(&t->completion_cnt);
		pending = done - woken;
		if (pending < batch)
			break;
		if (atomic_compare_exchange_strong(&t->wakeup_cnt, &woken,
						   woken + batch) &&
		    tags_serve(t, batch, hint))
			atomic_fetch_add_explicit(&t->wake_batches, 1,
						  memory_order_relaxed);
	}
	if (pending + tags_held_at_least(t, batch - pending) >= batch)
		return;
	/* Claim the remainder (best effort: a loser is serving anyway). */
	atomic_compare_exchange_strong(&t->wakeup_cnt, &woken, done);
	if (tags_serve(t, UINT_MAX, hint))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
}

/* ---------------------------------------------------------- barging */

/*
 * Whether a thread may take a free tag although others wait: barging mode
 * is on and no waiter has waited out its bound.  seq_cst loads: a put reads
 * them after its free (rules B2, B4).
 */
static bool tags_may_barge(struct xprt_tags *t)
{
	return atomic_load(&t->barge_ns) && !atomic_load(&t->starving);
}

/* Whether a tag below the depth is free (never taken, or put). */
static bool tags_any_free(struct xprt_tags *t)
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

/*
 * A put freed a tag while threads wait and no nudge is pending: wake the
 * head of the next non-empty queue to try for it (it keeps its place if a
 * barging thread was faster).  Nothing to do when that head was nudged and
 * has yet to look, or another nudge got in first: their look comes after
 * this free (rule B2).
 *
 * Context: any thread; takes wait-queue locks one at a time.
 */
static void tags_nudge(struct xprt_tags *t)
{
	unsigned int qi =
		atomic_load_explicit(&t->wake_index, memory_order_relaxed) + 1;
	unsigned int k;

	for (k = 0; k < TAGS_WAIT_QUEUES; k++) {
		unsigned int qn = (qi + k) % TAGS_WAIT_QUEUES;
		struct tags_waitq *q = &t->wq[qn];
		struct tags_waiter *w;
		uint32_t old;

		if (!atomic_load_explicit(&q->len, memory_order_relaxed))
			continue;
		pthread_mutex_lock(&q->lock);
		w = TAILQ_FIRST(&q->list);
		if (!w) {
			pthread_mutex_unlock(&q->lock);
			continue;
		}
		if (atomic_load_explicit(&w->done, memory_order_relaxed) ==
			    TAGS_W_NUDGED ||
		    atomic_exchange(&t->nudge, 1)) {
			pthread_mutex_unlock(&q->lock);
			return;
		}
		atomic_store_explicit(&t->wake_index, qn, memory_order_relaxed);
		old = atomic_exchange_explicit(&w->done, TAGS_W_NUDGED,
					       memory_order_acq_rel);
		pthread_mutex_unlock(&q->lock);
		/* by address only, like tags_serve(): a stale wake is harmless */
		if (old == TAGS_W_ASLEEP)
			tags_futex_wake(&w->done);
		atomic_fetch_add_explicit(&t->wakeups, 1, memory_order_relaxed);
		return;
	}
	/* no head queued: waiters coming look after counting (rule B1) */
}

/*
 * Rule B3: whoever stood in for a nudged waiter (took a tag in its place,
 * answered it by hand-off, or saw it time out), or ended starvation, looks
 * for frees whose puts relied on that and nudges again.
 */
static void tags_pass_on(struct xprt_tags *t)
{
	if ((atomic_load(&t->waiters) & TAGS_WAIT_COUNT) && tags_may_barge(t) &&
	    !atomic_load(&t->nudge) && tags_any_free(t))
		tags_nudge(t);
}

/*
 * A queued waiter's own try (right after queueing, or nudged), under its
 * queue lock so that a hand-off cannot race it.  Return the tag taken or
 * handed over, the result of a close, or -EAGAIN: still queued, back to
 * waiting.
 */
static int tags_try_barge(struct xprt_tags *t, struct tags_waitq *q,
			  struct tags_waiter *w)
{
	bool took = false;
	int tag = -EAGAIN;
	uint32_t d;

	pthread_mutex_lock(&q->lock);
	d = atomic_load_explicit(&w->done, memory_order_acquire);
	if (d == TAGS_W_DONE) {
		pthread_mutex_unlock(&q->lock);
		return w->result;
	}
	/* rule B2: a nudged waiter clears the flag first, then looks (also
	 * when the nudge came in before its first look) */
	if (d == TAGS_W_NUDGED)
		atomic_store(&t->nudge, 0);
	/* a starving waiter is whom the hand-offs are for: it may take */
	if (w->starving || tags_may_barge(t))
		tag = tags_alloc_hinted(t);
	if (tag >= 0) {
		tags_unqueue(t, q, w);
		took = true;
	} else {
		atomic_store_explicit(&w->done, TAGS_W_WAITING,
				      memory_order_relaxed);
	}
	pthread_mutex_unlock(&q->lock);
	if (took)
		tags_pass_on(t);
	return tag;
}

/*
 * Rule B4: a waiter overtaken for the whole bound stops barging until it is
 * served: it counts itself starving and hands out every free tag in order.
 * Return as tags_try_barge().
 */
static int tags_starve(struct xprt_tags *t, struct tags_waitq *q,
		       struct tags_waiter *w)
{
	pthread_mutex_lock(&q->lock);
	if (atomic_load_explicit(&w->done, memory_order_acquire) ==
	    TAGS_W_DONE) {
		pthread_mutex_unlock(&q->lock);
		return w->result;
	}
	w->starving = true;
	atomic_fetch_add(&t->starving, 1);
	pthread_mutex_unlock(&q->lock);
	tags_serve(t, UINT_MAX,
		   tags_hint(atomic_load_explicit(&t->depth,
						  memory_order_relaxed)));
	return -EAGAIN;
}

/* ------------------------------------------------------------ the API */

/**
 * xprt_tags_create() - create a map of @depth tags, 0 .. depth-1
 * @tp: where the map is stored (untouched on error)
 * @depth: 1 .. %XPRT_TAGS_MAX_DEPTH
 *
 * Context: any thread; allocates.
 * Return: %0; %-EINVAL for a depth out of range or a NULL @tp; %-ENOMEM.
 */
int xprt_tags_create(struct xprt_tags **tp, unsigned int depth)
{
	struct xprt_tags *t;
	unsigned int i;
	int err;

	if (!tp || !depth || depth > XPRT_TAGS_MAX_DEPTH)
		return -EINVAL;
	t = aligned_alloc(XPRT_CACHELINE, sizeof(*t));
	if (!t)
		return -ENOMEM;
	memset(t, 0, sizeof(*t));
	t->max_depth = depth;
	t->shift = tags_calc_shift(depth);
	t->nr_words = ((depth - 1) >> t->shift) + 1;
	t->wake_batch = XPRT_MAX(1u, XPRT_MIN(depth / 8, TAGS_WAKE_BATCH));
	atomic_init(&t->depth, depth);
	t->words =
		aligned_alloc(XPRT_CACHELINE, t->nr_words * sizeof(*t->words));
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
 * xprt_tags_get() - take a free tag without blocking
 * @t: the map
 *
 * Context: any thread, never blocks.  Touches no wait-queue state unless
 * threads are waiting.
 * Return: the tag (>= 0); %-EAGAIN when none is free or threads are waiting
 * (retry later or use xprt_tags_get_wait()); %-ESHUTDOWN after
 * xprt_tags_close(); %-EINVAL for a NULL @t.
 */
int xprt_tags_get(struct xprt_tags *t)
{
	uint32_t w;
	int tag;

	if (!t)
		return -EINVAL;
	w = atomic_load(&t->waiters);
	if (xprt_unlikely(w)) {
		if (w & TAGS_CLOSED)
			return -ESHUTDOWN;
		tag = tags_may_barge(t) ? tags_alloc_hinted(t) : -EAGAIN;
	} else {
		tag = tags_alloc_hinted(t);
	}
	if (tag < 0)
		atomic_fetch_add_explicit(&t->fails, 1, memory_order_relaxed);
	return tag;
}

/*
 * For the unit tests only: called on the slow path of a blocking get,
 * between its failed attempt and its queueing, the window rule 2 covers.
 */
void (*xprt_tags__wait_hook)(struct xprt_tags *t);

/*
 * Queue @w and sleep until served, the map closes or @deadline (monotonic
 * ns, 0 = none) passes.
 */
static int tags_wait(struct xprt_tags *t, struct tags_waiter *w,
		     uint64_t deadline)
{
	unsigned int qi = atomic_fetch_add_explicit(&t->wait_index, 1,
						    memory_order_relaxed) +
			  1;
	struct tags_waitq *q = &t->wq[qi % TAGS_WAIT_QUEUES];
	uint64_t bound =
		atomic_load_explicit(&t->barge_ns, memory_order_relaxed);
	uint64_t starve_at = 0, until, now;
	bool nudged, unstarved;
	struct timespec ts;
	uint32_t old, d;
	int tag;

	atomic_init(&w->done, TAGS_W_WAITING);
	w->result = -ESHUTDOWN;
	w->starving = false;
	if (xprt_unlikely(xprt_tags__wait_hook != NULL))
		xprt_tags__wait_hook(t);
	pthread_mutex_lock(&q->lock);
	/* close() sweeps the queues under their locks after setting the flag */
	if (atomic_load(&t->waiters) & TAGS_CLOSED) {
		pthread_mutex_unlock(&q->lock);
		return -ESHUTDOWN;
	}
	TAILQ_INSERT_TAIL(&q->list, w, link);
	atomic_fetch_add_explicit(&q->len, 1, memory_order_relaxed);
	old = atomic_fetch_add(&t->waiters, 1);
	pthread_mutex_unlock(&q->lock);
	atomic_fetch_add_explicit(&t->waits, 1, memory_order_relaxed);

	if (bound) {
		/* rule B1: every barging waiter looks once after counting */
		starve_at = xprt_now_ns() + bound;
		tag = tags_try_barge(t, q, w);
		if (tag != -EAGAIN)
			return tag;
	} else if (!(old & TAGS_WAIT_COUNT)) {
		/* rule 2: the first waiter hands out tags freed before */
		tags_serve(t, UINT_MAX,
			   tags_hint(atomic_load_explicit(
				   &t->depth, memory_order_relaxed)));
	}

	for (;;) {
		uint32_t expect = TAGS_W_WAITING;

		until = deadline;
		if (starve_at && (!until || starve_at < until))
			until = starve_at;
		if (atomic_compare_exchange_strong_explicit(
			    &w->done, &expect, TAGS_W_ASLEEP,
			    memory_order_acquire, memory_order_acquire) ||
		    expect == TAGS_W_ASLEEP) {
			if (until)
				ts = xprt_ns_to_timespec(until);
			tags_futex_wait(&w->done, TAGS_W_ASLEEP,
					until ? &ts : NULL);
		}
		d = atomic_load_explicit(&w->done, memory_order_acquire);
		if (d == TAGS_W_DONE)
			return w->result;
		if (d == TAGS_W_NUDGED) {
			tag = tags_try_barge(t, q, w);
			if (tag != -EAGAIN)
				return tag;
			continue;
		}
		now = xprt_now_ns();
		if (starve_at && now >= starve_at) {
			starve_at = 0;
			tag = tags_starve(t, q, w);
			if (tag != -EAGAIN)
				return tag;
			continue;
		}
		if (deadline && now >= deadline)
			break;
	}

	/* Timed out, unless served meanwhile: then the tag is ours. */
	pthread_mutex_lock(&q->lock);
	d = atomic_load_explicit(&w->done, memory_order_acquire);
	if (d == TAGS_W_DONE) {
		pthread_mutex_unlock(&q->lock);
		return w->result;
	}
	nudged = d == TAGS_W_NUDGED;
	unstarved = tags_unqueue(t, q, w);
	pthread_mutex_unlock(&q->lock);
	/* rule B3: a nudge or a starvation ends here, unanswered */
	if (nudged)
		atomic_store(&t->nudge, 0);
	if (nudged || unstarved)
		tags_pass_on(t);
	return -ETIMEDOUT;
}

/**
 * xprt_tags_get_wait() - take a tag, sleeping until one is free
 * @t: the map
 * @timeout_ns: relative timeout in nanoseconds; 0 tries once (fairly: it
 *	fails while others wait); negative waits forever
 *
 * Waiters are served in arrival order per wait queue, the queues in turn; a
 * served waiter is handed its tag and never has to queue again.
 * Context: may block; not from a completion callback.
 * Return: the tag (>= 0); %-ETIMEDOUT (nothing taken, may retry);
 * %-ESHUTDOWN when the map was closed before or during the wait;
 * %-EINVAL for a NULL @t.
 */
int xprt_tags_get_wait(struct xprt_tags *t, int64_t timeout_ns)
{
	struct tags_waiter w;
	uint64_t deadline = 0;
	uint32_t ws;
	int tag;

	if (!t)
		return -EINVAL;
	ws = atomic_load(&t->waiters);
	if (ws & TAGS_CLOSED)
		return -ESHUTDOWN;
	if (!ws || tags_may_barge(t)) {
		tag = tags_alloc_hinted(t);
		if (tag >= 0)
			return tag;
	}
	if (!timeout_ns)
		return -ETIMEDOUT;
	if (timeout_ns > 0)
		deadline = xprt_now_ns() + (uint64_t)timeout_ns;
	return tags_wait(t, &w, deadline);
}

/**
 * xprt_tags_put() - return a tag
 * @t: the map
 * @tag: a tag this caller holds
 *
 * Context: any thread, never blocks (it may serve waiters: a few lock
 * holds and futex wake-ups).  Without waiters it touches only the tag's
 * word and reads the waiters count once.
 * Return: %0; %-EINVAL when @t is NULL, or @tag is out of range or not
 * allocated (a double put): nothing changes and bad_puts counts it.
 */
int xprt_tags_put(struct xprt_tags *t, unsigned int tag)
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
	tags_tls_hint = tag;
	tags_tls_seeded = true;
	if (xprt_unlikely(atomic_load(&t->waiters) & TAGS_WAIT_COUNT)) {
		if (!tags_may_barge(t))
			tags_wake(t, tag);
		else if (!atomic_load(&t->nudge))
			tags_nudge(t);
	}
	return 0;

bad:
	atomic_fetch_add_explicit(&t->bad_puts, 1, memory_order_relaxed);
	return -EINVAL;
}

/**
 * xprt_tags_resize() - change the usable depth
 * @t: the map
 * @depth: 1 .. the depth given at creation
 *
 * Shrinking takes effect for new gets at once; tags at or above the new
 * depth that are still held stay valid until put.  Growing serves waiters
 * with the tags that became usable.
 * Context: any thread; may serve waiters (never blocks for long).
 * Return: %0; %-EINVAL for a NULL @t, 0 or above the creation depth.
 */
int xprt_tags_resize(struct xprt_tags *t, unsigned int depth)
{
	unsigned int old;

	if (!t || !depth || depth > t->max_depth)
		return -EINVAL;
	/* seq_cst store, then the waiters load: a grow is a free (rule 1) */
	old = atomic_exchange(&t->depth, depth);
	if (depth > old && (atomic_load(&t->waiters) & TAGS_WAIT_COUNT) &&
	    tags_serve(t, UINT_MAX, old))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
	return 0;
}

/**
 * xprt_tags_set_barging() - let running threads overtake waiters, boundedly
 * @t: the map
 * @max_wait_ns: 0 for strict FIFO (the default); otherwise the longest a
 *	waiter may be overtaken
 *
 * In barging mode a get takes a free tag even while others wait, and a put
 * that sees waiters wakes one to try for its tag instead of handing it
 * over: a thread that puts and gets again keeps running instead of
 * trading places with a sleeper (a context switch per tag when threads
 * outnumber tags).  Once a waiter has waited @max_wait_ns, barging stops
 * and tags are handed to waiters in order until it is served.  Set it
 * before the map is used: waiters already queued keep strict FIFO rules.
 * Context: any thread; may serve waiters (never blocks for long).
 * Return: %0; %-EINVAL for a NULL @t.
 */
int xprt_tags_set_barging(struct xprt_tags *t, uint64_t max_wait_ns)
{
	if (!t)
		return -EINVAL;
	/* seq_cst store, then the waiters load: puts that read the old mode
	 * nudged, the queued waiters get every free tag now (rule B5) */
	atomic_store(&t->barge_ns, max_wait_ns);
	if (!max_wait_ns && (atomic_load(&t->waiters) & TAGS_WAIT_COUNT) &&
	    tags_serve(t, UINT_MAX, 0))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
	return 0;
}

/**
 * xprt_tags_depth() - the current usable depth
 * @t: the map (NULL gives 0)
 */
unsigned int xprt_tags_depth(const struct xprt_tags *t)
{
	return t ? atomic_load_explicit(&t->depth, memory_order_relaxed) : 0;
}

/**
 * xprt_tags_in_use() - tags held now (approximate under concurrency)
 * @t: the map (NULL gives 0)
 *
 * Counts every held tag, also those above a shrunk depth.
 */
unsigned int xprt_tags_in_use(const struct xprt_tags *t)
{
	unsigned int n = 0, i;

	if (!t)
		return 0;
	for (i = 0; i < t->nr_words; i++) {
		struct tags_word *w = &t->words[i];
		/* acquire: a caller that sees a tag free also sees what its
		 * holder did before the put (xprt_set_pool() relies on it) */
		unsigned long c =
			atomic_load_explicit(&w->cleared, memory_order_acquire);
		unsigned long v =
			atomic_load_explicit(&w->word, memory_order_acquire);

		n += (unsigned int)__builtin_popcountl(v & ~c);
	}
	return n;
}

/**
 * xprt_tags_stats() - snapshot the counters
 * @t: the map (NULL gives all zeros)
 * @st: where to store them (NULL: nothing happens)
 *
 * Each counter is read atomically, the set is not a consistent snapshot;
 * gets and puts are derived from the words and exact when no call is in
 * progress.
 */
void xprt_tags_stats(const struct xprt_tags *t, struct xprt_tags_stats *st)
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

/**
 * xprt_tags_close() - wake every waiter with -ESHUTDOWN and fail later gets
 * @t: the map (NULL is a no-op)
 *
 * Puts keep working.  Idempotent.  A waiter served a tag concurrently with
 * the close returns that tag.
 * Context: any thread; takes each wait-queue lock once.
 */
void xprt_tags_close(struct xprt_tags *t)
{
	unsigned int i;

	if (!t)
		return;
	atomic_fetch_or(&t->waiters, TAGS_CLOSED);
	for (i = 0; i < TAGS_WAIT_QUEUES; i++) {
		struct tags_waitq *q = &t->wq[i];

		for (;;) {
			struct tags_waiter *w;
			_Atomic uint32_t *addr;
			bool asleep;

			pthread_mutex_lock(&q->lock);
			w = TAILQ_FIRST(&q->list);
			if (!w) {
				pthread_mutex_unlock(&q->lock);
				break;
			}
			tags_unqueue(t, q, w);
			w->result = -ESHUTDOWN;
			addr = &w->done;
			asleep = atomic_exchange_explicit(
					 &w->done, TAGS_W_DONE,
					 memory_order_acq_rel) == TAGS_W_ASLEEP;
			pthread_mutex_unlock(&q->lock);
			if (asleep)
				tags_futex_wake(addr);
			atomic_fetch_add_explicit(&t->wakeups, 1,
						  memory_order_relaxed);
		}
	}
}

/* For the unit tests: how many words (cache lines) the map spans. */
unsigned int xprt_tags__nr_words(const struct xprt_tags *t);
unsigned int xprt_tags__nr_words(const struct xprt_tags *t)
{
	return t->nr_words;
}

/**
 * xprt_tags_destroy() - close and free the map
 * @t: the map (NULL is a no-op)
 *
 * No thread may be inside a call on @t (waiters must have returned).
 */
void xprt_tags_destroy(struct xprt_tags *t)
{
	unsigned int i;

	if (!t)
		return;
	xprt_tags_close(t);
	for (i = 0; i < TAGS_WAIT_QUEUES; i++)
		pthread_mutex_destroy(&t->wq[i].lock);
	free(t->words);
	free(t);
}
