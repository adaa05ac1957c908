// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tag allocator, the waiting half: wait queues, hand-off, batched wake-ups
 * and bounded barging, on the map (tags_map.c); the API is tags.c.  All
 * three share tags_int.h.
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
 * to get again, goes to sleep in turn.  lx_xprt_tags_set_barging() trades
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
#include "xprt/blocks/tags_int.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* ---------------------------------------------------------- waiting */

/*
 * Take @w off @q and out of the counts.  Return true when it was the last
 * starving waiter (barging may resume: the caller calls tags_pass_on()).
 * Context: @q's lock held.
 */
static bool tags_unqueue(struct lx_xprt_tags *t, struct tags_waitq *q,
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

static void tags_pass_on(struct lx_xprt_tags *t);

/*
 * Serve up to @max queued waiters, queues in turn from the next one: take a
 * tag for each (under the queue lock, so a served waiter always has one),
 * store it in the node and wake the thread.  Stops when the map has no tag
 * below the depth (puts of held tags will call again) or no waiter is
 * queued.  Return the number of waiters served.
 *
 * Context: any thread; takes the wait-queue locks one at a time.
 */
static unsigned int tags_serve_some(struct lx_xprt_tags *t, unsigned int max,
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
				tag = lx_xprt_tags__alloc(t, hint);
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
unsigned int lx_xprt_tags__serve(struct lx_xprt_tags *t, unsigned int max,
				 unsigned int hint)
{
	struct tags_served ev = {false, false};
	unsigned int served = tags_serve_some(t, max, hint, &ev);

	if (lx_xprt_unlikely(ev.nudge_taken))
		atomic_store(&t->nudge, 0);
	if (lx_xprt_unlikely(ev.nudge_taken || ev.unstarved))
		tags_pass_on(t);
	return served;
}

/*
 * A put (or a grow) saw waiters: count the completion, serve whole batches,
 * and flush when the rest of a batch can no longer fill.
 */
static void tags_wake(struct lx_xprt_tags *t, unsigned int hint)
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
		    lx_xprt_tags__serve(t, batch, hint))
			atomic_fetch_add_explicit(&t->wake_batches, 1,
						  memory_order_relaxed);
	}
	if (pending + lx_xprt_tags__held_at_least(t, batch - pending) >= batch)
		return;
	/* Claim the remainder (best effort: a loser is serving anyway). */
	atomic_compare_exchange_strong(&t->wakeup_cnt, &woken, done);
	if (lx_xprt_tags__serve(t, UINT_MAX, hint))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
}

/* ---------------------------------------------------------- barging */

/*
 * Whether a thread may take a free tag although others wait: barging mode
 * is on and no waiter has waited out its bound.  seq_cst loads: a put reads
 * them after its free (rules B2, B4).
 */
bool lx_xprt_tags__may_barge(struct lx_xprt_tags *t)
{
	return atomic_load(&t->barge_ns) && !atomic_load(&t->starving);
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
static void tags_nudge(struct lx_xprt_tags *t)
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
		/* by address only, like lx_xprt_tags__serve(): a stale wake is harmless */
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
static void tags_pass_on(struct lx_xprt_tags *t)
{
	if ((atomic_load(&t->waiters) & TAGS_WAIT_COUNT) &&
	    lx_xprt_tags__may_barge(t) && !atomic_load(&t->nudge) &&
	    lx_xprt_tags__any_free(t))
		tags_nudge(t);
}

/*
 * A queued waiter's own try (right after queueing, or nudged), under its
 * queue lock so that a hand-off cannot race it.  Return the tag taken or
 * handed over, the result of a close, or -EAGAIN: still queued, back to
 * waiting.
 */
static int tags_try_barge(struct lx_xprt_tags *t, struct tags_waitq *q,
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
	if (w->starving || lx_xprt_tags__may_barge(t))
		tag = lx_xprt_tags__alloc_hinted(t);
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
static int tags_starve(struct lx_xprt_tags *t, struct tags_waitq *q,
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
	lx_xprt_tags__serve(t, UINT_MAX,
			    lx_xprt_tags__hint(atomic_load_explicit(
				    &t->depth, memory_order_relaxed)));
	return -EAGAIN;
}

/*
 * A put saw waiters: count it towards a batch and serve (strict mode, or
 * while a waiter starves), or nudge a waiter (barging mode, rule B2).
 */
void lx_xprt_tags__put_wake(struct lx_xprt_tags *t, unsigned int tag)
{
	if (!lx_xprt_tags__may_barge(t))
		tags_wake(t, tag);
	else if (!atomic_load(&t->nudge))
		tags_nudge(t);
}

/* ------------------------------------------------------------ the API */

/*
 * For the unit tests only: called on the slow path of a blocking get,
 * between its failed attempt and its queueing, the window rule 2 covers.
 */
void (*lx_xprt_tags__wait_hook)(struct lx_xprt_tags *t);

/*
 * Queue @w and sleep until served, the map closes or @deadline (monotonic
 * ns, 0 = none) passes.
 */
static int tags_wait(struct lx_xprt_tags *t, struct tags_waiter *w,
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
	if (lx_xprt_unlikely(lx_xprt_tags__wait_hook != NULL))
		lx_xprt_tags__wait_hook(t);
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
		starve_at = lx_xprt_now_ns() + bound;
		tag = tags_try_barge(t, q, w);
		if (tag != -EAGAIN)
			return tag;
	} else if (!(old & TAGS_WAIT_COUNT)) {
		/* rule 2: the first waiter hands out tags freed before */
		lx_xprt_tags__serve(t, UINT_MAX,
				    lx_xprt_tags__hint(atomic_load_explicit(
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
				ts = lx_xprt_ns_to_timespec(until);
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
		now = lx_xprt_now_ns();
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
 * lx_xprt_tags_get_wait() - take a tag, sleeping until one is free
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
/* No tag free now: queue and sleep (the waiter lives in this frame, not
 * in the common case's). */
static __attribute__((noinline)) int tags_get_slow(struct lx_xprt_tags *t,
						   int64_t timeout_ns)
{
	struct tags_waiter w;
	uint64_t deadline = 0;

	if (!timeout_ns)
		return -ETIMEDOUT;
	if (timeout_ns > 0)
		deadline = lx_xprt_now_ns() + (uint64_t)timeout_ns;
	return tags_wait(t, &w, deadline);
}

int lx_xprt_tags_get_wait(struct lx_xprt_tags *t, int64_t timeout_ns)
{
	uint32_t ws;
	int tag;

	if (!t)
		return -EINVAL;
	ws = atomic_load(&t->waiters);
	if (ws & TAGS_CLOSED)
		return -ESHUTDOWN;
	if (!ws || lx_xprt_tags__may_barge(t)) {
		tag = lx_xprt_tags__alloc_hinted(t);
		if (tag >= 0)
			return tag;
	}
	return tags_get_slow(t, timeout_ns);
}

/**
 * lx_xprt_tags_set_barging() - let running threads overtake waiters, boundedly
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
int lx_xprt_tags_set_barging(struct lx_xprt_tags *t, uint64_t max_wait_ns)
{
	if (!t)
		return -EINVAL;
	/* seq_cst store, then the waiters load: puts that read the old mode
	 * nudged, the queued waiters get every free tag now (rule B5) */
	atomic_store(&t->barge_ns, max_wait_ns);
	if (!max_wait_ns && (atomic_load(&t->waiters) & TAGS_WAIT_COUNT) &&
	    lx_xprt_tags__serve(t, UINT_MAX, 0))
		atomic_fetch_add_explicit(&t->wake_batches, 1,
					  memory_order_relaxed);
	return 0;
}

/**
 * lx_xprt_tags_close() - wake every waiter with -ESHUTDOWN and fail later gets
 * @t: the map (NULL is a no-op)
 *
 * Puts keep working.  Idempotent.  A waiter served a tag concurrently with
 * the close returns that tag.
 * Context: any thread; takes each wait-queue lock once.
 */
void lx_xprt_tags_close(struct lx_xprt_tags *t)
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
