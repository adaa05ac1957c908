// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of the tag allocator (xprt/blocks/tags.c, xprt/blocks/tags_wait.c): argument
 * checks, exactly-once hand-out, double puts, exclusive ownership under
 * threads, no lost wake-up at small depths (with a watchdog that fails
 * instead of hanging), FIFO order, fairness against non-blocking gets,
 * timeouts, close, resize, the counters; the threaded tests again in
 * barging mode, with its overtaking and its starvation bound.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <libxprt/proto/tags.h>

#include "xprt/blocks/util.h"

/* Internals for tests (xprt/blocks/tags.c, xprt/blocks/tags_wait.c). */
unsigned int lx_xprt_tags__nr_words(const struct lx_xprt_tags *t);
extern void (*lx_xprt_tags__wait_hook)(struct lx_xprt_tags *t);

#define NS_PER_MS 1000000ll

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static struct lx_xprt_tags *mk(unsigned int depth)
{
	struct lx_xprt_tags *t = NULL;

	assert_int_equal(lx_xprt_tags_create(&t, depth), 0);
	assert_non_null(t);
	return t;
}

static struct lx_xprt_tags_stats stats_of(struct lx_xprt_tags *t)
{
	struct lx_xprt_tags_stats st;

	lx_xprt_tags_stats(t, &st);
	return st;
}

/* Wait (up to 5 s) until @n blocking gets have gone to sleep on @t. */
static void wait_for_sleepers(struct lx_xprt_tags *t, uint64_t n)
{
	uint64_t end = lx_xprt_now_ns() + 5000 * NS_PER_MS;

	while (stats_of(t).waits < n) {
		if (lx_xprt_now_ns() > end)
			fail_msg("only %llu of %llu waiters went to sleep",
				 (unsigned long long)stats_of(t).waits,
				 (unsigned long long)n);
		sleep_ms(1);
	}
	/* give the last one time to reach the futex */
	sleep_ms(5);
}

/* Take every free tag; return how many. */
static unsigned int take_all(struct lx_xprt_tags *t, int *tags,
			     unsigned int max)
{
	unsigned int n = 0;
	int tag;

	while ((tag = lx_xprt_tags_get(t)) >= 0) {
		assert_true(n < max);
		tags[n++] = tag;
	}
	assert_int_equal(tag, -EAGAIN);
	return n;
}

/* ------------------------------------------------------ arguments */

static void test_create_rejects_bad_arguments(void **state)
{
	struct lx_xprt_tags *t = (struct lx_xprt_tags *)&t;
	struct lx_xprt_tags *sentinel = t;

	(void)state;
	assert_int_equal(lx_xprt_tags_create(NULL, 8), -EINVAL);
	assert_int_equal(lx_xprt_tags_create(&t, 0), -EINVAL);
	assert_ptr_equal(t, sentinel);
	assert_int_equal(lx_xprt_tags_create(&t, LX_XPRT_TAGS_MAX_DEPTH + 1),
			 -EINVAL);
	assert_int_equal(lx_xprt_tags_create(&t, UINT_MAX), -EINVAL);
	assert_ptr_equal(t, sentinel);

	t = mk(LX_XPRT_TAGS_MAX_DEPTH);
	assert_int_equal(lx_xprt_tags_depth(t), LX_XPRT_TAGS_MAX_DEPTH);
	lx_xprt_tags_destroy(t);
	t = mk(1);
	assert_int_equal(lx_xprt_tags_depth(t), 1);
	lx_xprt_tags_destroy(t);
}

static void test_calls_on_null_map_fail_cleanly(void **state)
{
	struct lx_xprt_tags_stats st;
	struct lx_xprt_tags *t = mk(4);

	(void)state;
	assert_int_equal(lx_xprt_tags_get(NULL), -EINVAL);
	assert_int_equal(lx_xprt_tags_get_wait(NULL, -1), -EINVAL);
	assert_int_equal(lx_xprt_tags_put(NULL, 0), -EINVAL);
	assert_int_equal(lx_xprt_tags_resize(NULL, 1), -EINVAL);
	assert_int_equal(lx_xprt_tags_set_barging(NULL, 1), -EINVAL);
	assert_int_equal(lx_xprt_tags_depth(NULL), 0);
	assert_int_equal(lx_xprt_tags_in_use(NULL), 0);
	memset(&st, 0xff, sizeof(st));
	lx_xprt_tags_stats(NULL, &st);
	assert_int_equal(st.gets, 0);
	assert_int_equal(st.bad_puts, 0);
	lx_xprt_tags_stats(t, NULL);
	lx_xprt_tags_close(NULL);
	lx_xprt_tags_destroy(NULL);
	lx_xprt_tags_destroy(t);
}

/* ------------------------------------------------------ the bitmap */

static void test_small_maps_spread_over_four_words(void **state)
{
	static const struct {
		unsigned int depth, words;
	} cases[] = {
		{1, 1},	  {2, 2},   {3, 3},	{4, 4},	       {5, 5},
		{8, 4},	  {15, 8},  {16, 4},	{64, 4},       {255, 8},
		{256, 4}, {257, 5}, {1000, 16}, {65535, 1024},
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(cases); i++) {
		struct lx_xprt_tags *t = mk(cases[i].depth);

		if (lx_xprt_tags__nr_words(t) != cases[i].words)
			fail_msg("depth %u: %u words, expected %u",
				 cases[i].depth, lx_xprt_tags__nr_words(t),
				 cases[i].words);
		lx_xprt_tags_destroy(t);
	}
}

static void test_every_tag_handed_out_once_then_eagain(void **state)
{
	static const unsigned int depths[] = {
		1, 2, 3, 4, 5, 7, 8, 15, 16, 63, 64, 65, 100, 257, 1000, 65535};
	unsigned int i;

	(void)state;
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		unsigned int depth = depths[i], n, j;
		struct lx_xprt_tags *t = mk(depth);
		int *tags = calloc(depth, sizeof(*tags));
		unsigned char *seen = calloc(depth, 1);

		assert_non_null(tags);
		assert_non_null(seen);
		n = take_all(t, tags, depth);
		if (n != depth)
			fail_msg("depth %u: handed out %u tags", depth, n);
		for (j = 0; j < n; j++) {
			assert_in_range(tags[j], 0, depth - 1);
			if (seen[tags[j]]++)
				fail_msg("depth %u: tag %d handed out twice",
					 depth, tags[j]);
		}
		assert_int_equal(lx_xprt_tags_get(t), -EAGAIN);
		assert_int_equal(lx_xprt_tags_get_wait(t, 0), -ETIMEDOUT);
		assert_int_equal(lx_xprt_tags_in_use(t), depth);
		assert_int_equal(stats_of(t).gets, depth);
		free(seen);
		free(tags);
		lx_xprt_tags_destroy(t);
	}
}

static void test_put_get_round_trip_reuses_tags(void **state)
{
	static const unsigned int depths[] = {1, 4, 8, 64, 100};
	unsigned int i, round, j;

	(void)state;
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		unsigned int depth = depths[i];
		struct lx_xprt_tags *t = mk(depth);
		int tags[100];
		int tag;

		tag = lx_xprt_tags_get(t);
		assert_true(tag >= 0);
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tag), 0);
		assert_int_equal(lx_xprt_tags_in_use(t), 0);
		/* puts park bits in `cleared`; full words must fold them */
		for (round = 0; round < 3; round++) {
			assert_int_equal(take_all(t, tags, depth), depth);
			for (j = 0; j < depth; j++)
				assert_int_equal(
					lx_xprt_tags_put(t,
							 (unsigned int)tags[j]),
					0);
			assert_int_equal(lx_xprt_tags_in_use(t), 0);
		}
		assert_int_equal(stats_of(t).puts, 1 + 3 * depth);
		assert_int_equal(stats_of(t).bad_puts, 0);
		lx_xprt_tags_destroy(t);
	}
}

/*
 * A thread that puts a tag and gets again takes that tag back from
 * `cleared` (its slot is the cache-hot one), with another tag held beside
 * it too; gets, puts and the double-put check stay exact.
 */
static void test_put_then_get_takes_the_same_tag_back(void **state)
{
	static const unsigned int depths[] = {2, 8, 64, 100};
	unsigned int i, round;

	(void)state;
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		struct lx_xprt_tags *t = mk(depths[i]);
		struct lx_xprt_tags_stats st;
		int held, tag, again;

		held = lx_xprt_tags_get(t);
		tag = lx_xprt_tags_get(t);
		assert_true(held >= 0 && tag >= 0 && held != tag);
		for (round = 0; round < 100; round++) {
			assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tag),
					 0);
			again = lx_xprt_tags_get(t);
			assert_int_equal(again, tag);
			assert_int_equal(lx_xprt_tags_in_use(t), 2);
		}
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tag), 0);
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tag),
				 -EINVAL);
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)held), 0);
		st = stats_of(t);
		assert_int_equal(st.gets, 102);
		assert_int_equal(st.puts, 102);
		assert_int_equal(st.bad_puts, 1);
		assert_int_equal(lx_xprt_tags_in_use(t), 0);
		lx_xprt_tags_destroy(t);
	}
}

static void test_put_rejects_double_and_foreign_tags(void **state)
{
	struct lx_xprt_tags *t = mk(8);
	int tags[8];
	int a, b, c;

	(void)state;
	a = lx_xprt_tags_get(t);
	b = lx_xprt_tags_get(t);
	assert_true(a >= 0 && b >= 0 && a != b);

	/* still pending in `cleared` */
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)a), 0);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)a), -EINVAL);
	/* never allocated, out of range */
	c = 0;
	while (c == a || c == b)
		c++;
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)c), -EINVAL);
	assert_int_equal(lx_xprt_tags_put(t, 8), -EINVAL);
	assert_int_equal(lx_xprt_tags_put(t, UINT_MAX), -EINVAL);
	assert_int_equal(lx_xprt_tags_in_use(t), 1);

	/* fill the map: the fold moves a's bit out of `cleared` */
	assert_int_equal(take_all(t, tags, 8), 7);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), 0);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), -EINVAL);
	assert_int_equal(take_all(t, tags, 8), 1);
	assert_int_equal(tags[0], b);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), 0);
	assert_int_equal(take_all(t, tags, 8), 1);
	/* folded and handed out again: a put of it is valid once more */
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), 0);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), -EINVAL);

	assert_true(stats_of(t).bad_puts >= 5);
	lx_xprt_tags_destroy(t);
}

static void test_put_of_unallocated_tag_changes_nothing(void **state)
{
	struct lx_xprt_tags *t = mk(16);
	int tags[16];
	unsigned int i;

	(void)state;
	for (i = 0; i < 16; i++)
		assert_int_equal(lx_xprt_tags_put(t, i), -EINVAL);
	assert_int_equal(stats_of(t).bad_puts, 16);
	assert_int_equal(stats_of(t).puts, 0);
	assert_int_equal(lx_xprt_tags_in_use(t), 0);
	assert_int_equal(take_all(t, tags, 16), 16);
	lx_xprt_tags_destroy(t);
}

/* ------------------------------------------------------ threads */

struct hammer {
	struct lx_xprt_tags *t;
	_Atomic int *owner;
	unsigned int depth;
	unsigned int iters;
	/*
	 * uneven: thread i of n does 2 * iters * (i + 1) / (n + 1), so the
	 * run ends in a long tail where the threads still looping return the
	 * last tags while others wait: the case of rule 3
	 */
	bool uneven;
	unsigned int nthreads;
	_Atomic unsigned int next_id;
	unsigned int hold_spin;
	int64_t timeout_ns; /* < 0: forever */
	_Atomic int errors;
	_Atomic int timeouts;
	_Atomic unsigned int finished;
	_Atomic uint64_t ops;
};

static void hold_briefly(unsigned int spin, unsigned int i)
{
	volatile unsigned int x = 0;
	unsigned int k;

	for (k = 0; k < spin; k++)
		x += k;
	/* get preempted while holding now and then */
	if ((i & 7) == 0)
		sched_yield();
}

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	unsigned int id = atomic_fetch_add(&h->next_id, 1);
	unsigned int iters = h->iters, i;

	if (h->uneven)
		iters = 2 * h->iters * (id + 1) / (h->nthreads + 1);
	for (i = 0; i < iters; i++) {
		int expect = 0, tag;

		if (h->timeout_ns < 0 && (i & 3) == 1) {
			tag = lx_xprt_tags_get(h->t);
			if (tag == -EAGAIN)
				tag = lx_xprt_tags_get_wait(h->t, -1);
		} else {
			tag = lx_xprt_tags_get_wait(h->t, h->timeout_ns);
		}
		if (tag == -ETIMEDOUT) {
			atomic_fetch_add(&h->timeouts, 1);
			continue;
		}
		if (tag == -ESHUTDOWN)
			break; /* watchdog rescue */
		if (tag < 0 || (unsigned int)tag >= h->depth) {
			atomic_fetch_add(&h->errors, 1);
			continue;
		}
		if (!atomic_compare_exchange_strong(&h->owner[tag], &expect, 1))
			atomic_fetch_add(&h->errors, 1);
		hold_briefly(h->hold_spin, i);
		atomic_store(&h->owner[tag], 0);
		if (lx_xprt_tags_put(h->t, (unsigned int)tag))
			atomic_fetch_add(&h->errors, 1);
		atomic_fetch_add(&h->ops, 1);
	}
	atomic_fetch_add(&h->finished, 1);
	return NULL;
}

/*
 * Run @nthreads hammer threads on @t and wait for them with a watchdog: a
 * lost wake-up leaves threads asleep forever, so after @limit_s seconds the
 * map is closed to release them and the test fails naming the stuck count.
 */
static void run_hammer(struct hammer *h, unsigned int nthreads, int limit_s,
		       const char *what)
{
	pthread_t *th = calloc(nthreads, sizeof(*th));
	uint64_t end = lx_xprt_now_ns() + (uint64_t)limit_s * 1000 * NS_PER_MS;
	unsigned int i, stuck = 0;

	assert_non_null(th);
	h->nthreads = nthreads;
	h->owner = calloc(h->depth, sizeof(*h->owner));
	assert_non_null(h->owner);
	for (i = 0; i < nthreads; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_thread, h),
				 0);
	while (atomic_load(&h->finished) < nthreads) {
		if (lx_xprt_now_ns() > end) {
			stuck = nthreads - atomic_load(&h->finished);
			lx_xprt_tags_close(h->t);
			break;
		}
		sleep_ms(2);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	free(th);
	free((void *)h->owner);
	if (stuck)
		fail_msg("%s: %u of %u threads stuck after %d s (lost wake-up;"
			 " %u tags in use, %llu ops done)",
			 what, stuck, nthreads, limit_s,
			 lx_xprt_tags_in_use(h->t), (unsigned long long)h->ops);
	if (atomic_load(&h->errors))
		fail_msg("%s: %d ownership/put errors", what,
			 atomic_load(&h->errors));
}

/* A map in barging mode (bound @ns; 0: strict FIFO). */
static struct lx_xprt_tags *mk_barging(unsigned int depth, uint64_t ns)
{
	struct lx_xprt_tags *t = mk(depth);

	assert_int_equal(lx_xprt_tags_set_barging(t, ns), 0);
	return t;
}

/* 12 threads hammer maps of a few depths; no tag is ever held twice. */
static void never_the_same_tag(uint64_t barge_ns)
{
	static const unsigned int depths[] = {1, 3, 8, 64};
	unsigned int i;

	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		struct hammer h = {.depth = depths[i],
				   .iters = 1500,
				   .hold_spin = 50,
				   .timeout_ns = -1};
		struct lx_xprt_tags_stats st;
		char what[64];

		h.t = mk_barging(depths[i], barge_ns);
		snprintf(what, sizeof(what), "12 threads, depth %u%s",
			 depths[i], barge_ns ? ", barging" : "");
		run_hammer(&h, 12, 30, what);
		st = stats_of(h.t);
		assert_int_equal(st.gets, st.puts);
		assert_int_equal(st.puts, 12 * 1500);
		assert_int_equal(st.bad_puts, 0);
		assert_int_equal(lx_xprt_tags_in_use(h.t), 0);
		lx_xprt_tags_destroy(h.t);
	}
}

static void test_threads_never_hold_the_same_tag(void **state)
{
	(void)state;
	never_the_same_tag(0);
}

/*
 * Barging bound for the lost wake-up tests: longer than the watchdog, so
 * a lost nudge shows as a stuck thread instead of hiding behind the
 * starvation hand-off.
 */
#define NEVER_STARVE_NS (600000 * NS_PER_MS)

static void no_lost_wakeup_at(unsigned int create_depth, unsigned int depth,
			      unsigned int nthreads, unsigned int iters,
			      uint64_t barge_ns)
{
	struct hammer h = {.depth = create_depth,
			   .iters = iters,
			   .uneven = true,
			   .hold_spin = 20,
			   .timeout_ns = -1};
	int tags[64];
	char what[96];

	h.t = mk_barging(create_depth, barge_ns);
	assert_int_equal(lx_xprt_tags_resize(h.t, depth), 0);
	snprintf(what, sizeof(what), "depth %u (created %u), %u threads%s",
		 depth, create_depth, nthreads, barge_ns ? ", barging" : "");
	run_hammer(&h, nthreads, 20, what);
	assert_int_equal(stats_of(h.t).puts, h.ops);
	assert_int_equal(lx_xprt_tags_in_use(h.t), 0);
	/* nobody left queued: the whole usable depth is free again */
	assert_int_equal(take_all(h.t, tags, 64), depth);
	lx_xprt_tags_destroy(h.t);
}

/* More threads than tags at every depth the issue names. */
static void more_waiters_than_tags(uint64_t barge_ns)
{
	static const unsigned int depths[] = {1, 2, 4, 8, 16, 32, 64};
	unsigned int i;

	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		unsigned int d = depths[i], n = 2 * d + 1;

		no_lost_wakeup_at(d, d, n, LX_XPRT_MAX(30u, 3000 / n),
				  barge_ns);
	}
}

/* Depth below wake_batch: the case sbitmap's batching cannot handle. */
static void depth_below_wake_batch(uint64_t barge_ns)
{
	no_lost_wakeup_at(64, 1, 5, 400, barge_ns);
	no_lost_wakeup_at(64, 3, 9, 300, barge_ns);
	no_lost_wakeup_at(64, 7, 17, 150, barge_ns);
}

static void test_no_lost_wakeup_with_more_waiters_than_tags(void **state)
{
	(void)state;
	more_waiters_than_tags(0);
}

static void test_no_lost_wakeup_when_depth_below_wake_batch(void **state)
{
	(void)state;
	depth_below_wake_batch(0);
}

struct waiter_arg {
	struct lx_xprt_tags *t;
	int64_t timeout_ns;
	int result;
	int64_t waited_ns;
	bool put_back;
	_Atomic unsigned int *order;
	unsigned int rank;
};

static void *waiter_thread(void *arg)
{
	struct waiter_arg *w = arg;
	uint64_t start = lx_xprt_now_ns();

	w->result = lx_xprt_tags_get_wait(w->t, w->timeout_ns);
	w->waited_ns = (int64_t)(lx_xprt_now_ns() - start);
	if (w->order && w->result >= 0)
		w->rank = atomic_fetch_add(w->order, 1);
	if (w->put_back && w->result >= 0)
		lx_xprt_tags_put(w->t, (unsigned int)w->result);
	return NULL;
}

static void start_waiter(pthread_t *th, struct waiter_arg *w)
{
	assert_int_equal(pthread_create(th, NULL, waiter_thread, w), 0);
}

/*
 * Depth 16 has wake_batch 2.  Shrunk to depth 1 with all other tags gone,
 * one held tag cannot make a batch of two: its put must still serve the
 * waiter (rule 3, the flush).
 */
static void test_last_put_flushes_a_partial_batch(void **state)
{
	struct lx_xprt_tags *t = mk(16);
	struct waiter_arg w = {.timeout_ns = 5000 * NS_PER_MS};
	int tags[16];
	pthread_t th;
	unsigned int i;

	(void)state;
	w.t = t;
	assert_int_equal(take_all(t, tags, 16), 16);
	assert_int_equal(lx_xprt_tags_resize(t, 1), 0);
	for (i = 0; i < 16; i++)
		if (tags[i] != 0)
			assert_int_equal(
				lx_xprt_tags_put(t, (unsigned int)tags[i]), 0);
	start_waiter(&th, &w);
	wait_for_sleepers(t, 1);
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	pthread_join(th, NULL);
	if (w.result != 0)
		fail_msg("waiter got %d after the last put, expected tag 0",
			 w.result);
	assert_true(w.waited_ns < 4000 * NS_PER_MS);
	lx_xprt_tags_destroy(t);
}

static void put_tag_zero(struct lx_xprt_tags *t)
{
	/* the put sees no waiter yet, so it is not counted as a completion */
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	lx_xprt_tags__wait_hook = NULL;
}

/*
 * The last tag comes back after a blocking get failed to find one but
 * before it queued: the first waiter must look again once counted, or it
 * sleeps forever next to a free tag (rule 2).
 */
static void test_first_waiter_finds_tag_freed_before_it_queued(void **state)
{
	static const unsigned int depths[] = {1, 16, 64};
	unsigned int i;

	(void)state;
	for (i = 0; i < LX_XPRT_ARRAY_SIZE(depths); i++) {
		struct lx_xprt_tags *t = mk(depths[i]);
		struct waiter_arg w = {.t = t, .timeout_ns = 2000 * NS_PER_MS};
		pthread_t th;
		int tags[64];
		unsigned int j, n;

		/* one usable tag, 0, held here; the rest of the map idle */
		n = take_all(t, tags, 64);
		assert_int_equal(n, depths[i]);
		assert_int_equal(lx_xprt_tags_resize(t, 1), 0);
		for (j = 0; j < n; j++)
			if (tags[j] != 0)
				assert_int_equal(
					lx_xprt_tags_put(t,
							 (unsigned int)tags[j]),
					0);
		lx_xprt_tags__wait_hook = put_tag_zero;
		start_waiter(&th, &w);
		pthread_join(th, NULL);
		lx_xprt_tags__wait_hook = NULL;
		if (w.result != 0)
			fail_msg("depth %u: waiter got %d, expected the tag"
				 " freed before it queued",
				 depths[i], w.result);
		lx_xprt_tags_destroy(t);
	}
}

/* Depth 64 has wake_batch 8: seven puts wake nobody, the eighth wakes 8. */
static void test_puts_wake_waiters_in_batches(void **state)
{
	struct lx_xprt_tags *t = mk(64);
	struct waiter_arg w[8];
	struct lx_xprt_tags_stats st;
	pthread_t th[8];
	int tags[64];
	unsigned int i;

	(void)state;
	assert_int_equal(take_all(t, tags, 64), 64);
	for (i = 0; i < 8; i++) {
		w[i] = (struct waiter_arg){.t = t, .timeout_ns = -1};
		start_waiter(&th[i], &w[i]);
	}
	wait_for_sleepers(t, 8);
	for (i = 0; i < 7; i++)
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[i]), 0);
	sleep_ms(30);
	st = stats_of(t);
	if (st.wakeups != 0)
		fail_msg("%llu waiters woken before a full batch",
			 (unsigned long long)st.wakeups);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[7]), 0);
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		assert_true(w[i].result >= 0 && w[i].result < 64);
	}
	st = stats_of(t);
	assert_int_equal(st.wakeups, 8);
	assert_int_equal(st.wake_batches, 1);
	assert_int_equal(st.waits, 8);
	assert_int_equal(lx_xprt_tags_in_use(t), 64);
	lx_xprt_tags_destroy(t);
}

static void test_waiters_served_in_arrival_order(void **state)
{
	enum { N = 12 }; /* more than the 8 wait queues */
	struct lx_xprt_tags *t = mk(1);
	struct waiter_arg w[N];
	_Atomic unsigned int order = 0;
	pthread_t th[N];
	unsigned int i;

	(void)state;
	assert_int_equal(lx_xprt_tags_get(t), 0);
	for (i = 0; i < N; i++) {
		w[i] = (struct waiter_arg){.t = t,
					   .timeout_ns = -1,
					   .put_back = true,
					   .order = &order};
		start_waiter(&th[i], &w[i]);
		wait_for_sleepers(t, i + 1);
	}
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	for (i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < N; i++) {
		assert_int_equal(w[i].result, 0);
		if (w[i].rank != i)
			fail_msg("waiter %u (arrival order) served as #%u", i,
				 w[i].rank);
	}
	lx_xprt_tags_destroy(t);
}

/*
 * Depth 16, wake_batch 2: one put leaves a free tag while a thread waits
 * for the batch.  Neither kind of get may take it past the waiter.
 */
static void test_gets_do_not_overtake_waiters(void **state)
{
	struct lx_xprt_tags *t = mk(16);
	struct waiter_arg w = {.timeout_ns = -1};
	pthread_t th;
	int tags[16];

	(void)state;
	w.t = t;
	assert_int_equal(take_all(t, tags, 16), 16);
	start_waiter(&th, &w);
	wait_for_sleepers(t, 1);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[0]), 0);
	assert_int_equal(lx_xprt_tags_in_use(t), 15);
	assert_int_equal(lx_xprt_tags_get(t), -EAGAIN);
	assert_int_equal(lx_xprt_tags_get_wait(t, 0), -ETIMEDOUT);
	assert_int_equal(lx_xprt_tags_get_wait(t, 5 * NS_PER_MS), -ETIMEDOUT);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[1]), 0);
	pthread_join(th, NULL);
	assert_true(w.result == tags[0] || w.result == tags[1]);
	assert_int_equal(lx_xprt_tags_in_use(t), 15);
	lx_xprt_tags_destroy(t);
}

static void test_get_wait_times_out(void **state)
{
	struct lx_xprt_tags *t = mk(1);
	uint64_t start, took;
	int tag;

	(void)state;
	assert_int_equal(lx_xprt_tags_get(t), 0);
	start = lx_xprt_now_ns();
	assert_int_equal(lx_xprt_tags_get_wait(t, 20 * NS_PER_MS), -ETIMEDOUT);
	took = lx_xprt_now_ns() - start;
	assert_true(took >= 20 * NS_PER_MS);
	assert_true(took < 2000 * NS_PER_MS);
	assert_int_equal(lx_xprt_tags_get_wait(t, 0), -ETIMEDOUT);
	assert_int_equal(stats_of(t).waits, 1);
	/* the timed-out waiter left no trace: a get is not held back */
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	tag = lx_xprt_tags_get(t);
	assert_int_equal(tag, 0);
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	lx_xprt_tags_destroy(t);
}

/* Short timeouts racing hand-offs: a waiter served as it times out keeps
 * the tag, so none leaks. */
static void test_timeouts_racing_wakeups_leak_no_tag(void **state)
{
	struct hammer h = {.depth = 4,
			   .iters = 600,
			   .hold_spin = 2000,
			   .timeout_ns = 20000};
	int tags[4];

	(void)state;
	h.t = mk(4);
	run_hammer(&h, 10, 20, "10 threads, depth 4, 20 us timeouts");
	assert_int_equal(lx_xprt_tags_in_use(h.t), 0);
	assert_int_equal(take_all(h.t, tags, 4), 4);
	assert_int_equal(stats_of(h.t).puts, h.ops);
	lx_xprt_tags_destroy(h.t);
}

/* ------------------------------------------------------ barging */

static void test_barging_threads_never_hold_the_same_tag(void **state)
{
	(void)state;
	never_the_same_tag(NEVER_STARVE_NS);
}

/* Every free seen by a waiter or passed on: rules B1-B3, no fallback. */
static void test_barging_no_lost_wakeup(void **state)
{
	(void)state;
	more_waiters_than_tags(NEVER_STARVE_NS);
	depth_below_wake_batch(NEVER_STARVE_NS);
}

/* A bound short enough that starvation, hand-offs, nudges and timeouts
 * all race: no tag leaks, no thread sticks. */
static void test_barging_starvation_and_timeouts_leak_no_tag(void **state)
{
	struct hammer h = {.depth = 2,
			   .iters = 600,
			   .uneven = true,
			   .hold_spin = 2000,
			   .timeout_ns = 200000};
	struct hammer forever = {.depth = 3,
				 .iters = 800,
				 .uneven = true,
				 .hold_spin = 200,
				 .timeout_ns = -1};
	int tags[3];

	(void)state;
	h.t = mk_barging(2, 50000);
	run_hammer(&h, 9, 20, "9 threads, depth 2, barging 50 us, timeouts");
	assert_int_equal(lx_xprt_tags_in_use(h.t), 0);
	assert_int_equal(take_all(h.t, tags, 3), 2);
	assert_int_equal(stats_of(h.t).puts, h.ops);
	lx_xprt_tags_destroy(h.t);

	forever.t = mk_barging(3, 20000);
	run_hammer(&forever, 11, 20, "11 threads, depth 3, barging 20 us");
	assert_int_equal(stats_of(forever.t).puts, forever.ops);
	assert_int_equal(take_all(forever.t, tags, 3), 3);
	lx_xprt_tags_destroy(forever.t);
}

/*
 * A thread that puts and gets again keeps the tag while a waiter sleeps
 * (strict FIFO hands it over at the first put, every time); the waiter
 * still gets it once the thread stops.  The woken waiter may run first
 * (on a busy machine it can preempt the putter), so the scene is played up
 * to 20 times: one overtaking get is enough.
 */
static unsigned int keep_tag_past_a_waiter(void)
{
	struct lx_xprt_tags *t = mk_barging(1, NEVER_STARVE_NS);
	struct waiter_arg w = {.t = t, .timeout_ns = 10000 * NS_PER_MS};
	unsigned int kept = 0, i;
	pthread_t th;
	int tag = 0;

	assert_int_equal(lx_xprt_tags_get(t), 0);
	start_waiter(&th, &w);
	wait_for_sleepers(t, 1);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(lx_xprt_tags_put(t, 0), 0);
		tag = lx_xprt_tags_get(t);
		if (tag < 0)
			break;
		assert_int_equal(tag, 0);
		kept++;
	}
	if (tag >= 0)
		assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	pthread_join(th, NULL);
	if (w.result != 0)
		fail_msg("the waiter got %d, expected tag 0", w.result);
	assert_int_equal(lx_xprt_tags_put(t, 0), 0);
	lx_xprt_tags_destroy(t);
	return kept;
}

static void test_barging_running_thread_keeps_its_tag(void **state)
{
	unsigned int scene;

	(void)state;
	for (scene = 0; scene < 20; scene++)
		if (keep_tag_past_a_waiter())
			return;
	fail_msg("in 20 scenes no get overtook the waiter in barging mode");
}

struct starve_arg {
	struct lx_xprt_tags *t;
	_Atomic bool stop;
};

static void *barger_thread(void *arg)
{
	struct starve_arg *a = arg;

	while (!atomic_load(&a->stop)) {
		int tag = lx_xprt_tags_get_wait(a->t, -1);

		if (tag < 0)
			break;
		hold_briefly(30, 1);
		lx_xprt_tags_put(a->t, (unsigned int)tag);
	}
	return NULL;
}

/*
 * Three threads loop on one tag; a fourth asks now and then.  Barging could
 * keep it out forever: the bound (2 ms) must get it served, every time,
 * well within a second.
 */
static void test_barging_waiter_served_within_the_bound(void **state)
{
	struct starve_arg a = {.t = mk_barging(1, 2 * NS_PER_MS)};
	uint64_t worst = 0;
	pthread_t th[3];
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(
			pthread_create(&th[i], NULL, barger_thread, &a), 0);
	for (i = 0; i < 50; i++) {
		uint64_t start = lx_xprt_now_ns(), took;
		int tag = lx_xprt_tags_get_wait(a.t, 5000 * NS_PER_MS);

		took = lx_xprt_now_ns() - start;
		if (took > worst)
			worst = took;
		if (tag != 0)
			fail_msg("get %u: %d after %llu us", i, tag,
				 (unsigned long long)(took / 1000));
		assert_int_equal(lx_xprt_tags_put(a.t, 0), 0);
		sleep_ms(1);
	}
	atomic_store(&a.stop, true);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (worst > 1000 * NS_PER_MS)
		fail_msg("a waiter waited %llu ms with a 2 ms bound",
			 (unsigned long long)(worst / NS_PER_MS));
	assert_int_equal(lx_xprt_tags_in_use(a.t), 0);
	lx_xprt_tags_destroy(a.t);
}

static void test_close_wakes_all_waiters_with_eshutdown(void **state)
{
	enum { N = 10 };
	struct lx_xprt_tags *t = mk(2);
	struct waiter_arg w[N];
	pthread_t th[N];
	int tags[2];
	unsigned int i;

	(void)state;
	assert_int_equal(take_all(t, tags, 2), 2);
	for (i = 0; i < N; i++) {
		w[i] = (struct waiter_arg){.t = t, .timeout_ns = -1};
		start_waiter(&th[i], &w[i]);
	}
	wait_for_sleepers(t, N);
	lx_xprt_tags_close(t);
	for (i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].result, -ESHUTDOWN);
	}
	assert_int_equal(stats_of(t).wakeups, N);
	assert_int_equal(lx_xprt_tags_get(t), -ESHUTDOWN);
	assert_int_equal(lx_xprt_tags_get_wait(t, -1), -ESHUTDOWN);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[0]), 0);
	assert_int_equal(lx_xprt_tags_get(t), -ESHUTDOWN);
	lx_xprt_tags_close(t);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[1]), 0);
	assert_int_equal(lx_xprt_tags_in_use(t), 0);
	lx_xprt_tags_destroy(t);
}

static void test_resize_shrinks_at_once_and_grow_wakes(void **state)
{
	struct lx_xprt_tags *t = mk(8);
	struct waiter_arg w = {.timeout_ns = 5000 * NS_PER_MS};
	pthread_t th;
	int tags[8];
	unsigned int i, n;

	(void)state;
	w.t = t;
	assert_int_equal(lx_xprt_tags_resize(t, 0), -EINVAL);
	assert_int_equal(lx_xprt_tags_resize(t, 9), -EINVAL);
	assert_int_equal(lx_xprt_tags_depth(t), 8);

	assert_int_equal(lx_xprt_tags_resize(t, 3), 0);
	assert_int_equal(lx_xprt_tags_depth(t), 3);
	n = take_all(t, tags, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		assert_in_range(tags[i], 0, 2);
	for (i = 0; i < n; i++)
		assert_int_equal(lx_xprt_tags_put(t, (unsigned int)tags[i]), 0);

	/* tags above the new depth that are held stay valid until put */
	assert_int_equal(lx_xprt_tags_resize(t, 8), 0);
	assert_int_equal(take_all(t, tags, 8), 8);
	assert_int_equal(lx_xprt_tags_resize(t, 2), 0);
	for (i = 0; i < 8; i++)
		if (tags[i] >= 2)
			assert_int_equal(
				lx_xprt_tags_put(t, (unsigned int)tags[i]), 0);
	assert_int_equal(lx_xprt_tags_in_use(t), 2);
	assert_int_equal(lx_xprt_tags_get(t), -EAGAIN);

	/* growing serves a waiter with a tag that became usable */
	start_waiter(&th, &w);
	wait_for_sleepers(t, 1);
	assert_int_equal(lx_xprt_tags_resize(t, 8), 0);
	pthread_join(th, NULL);
	assert_in_range(w.result, 2, 7);
	assert_int_equal(lx_xprt_tags_in_use(t), 3);
	lx_xprt_tags_destroy(t);
}

static void test_stats_count_every_outcome(void **state)
{
	struct lx_xprt_tags *t = mk(2);
	struct lx_xprt_tags_stats st;
	int a, b;

	(void)state;
	a = lx_xprt_tags_get(t);
	b = lx_xprt_tags_get(t);
	assert_int_equal(lx_xprt_tags_get(t), -EAGAIN);
	assert_int_equal(lx_xprt_tags_get(t), -EAGAIN);
	assert_int_equal(lx_xprt_tags_get_wait(t, NS_PER_MS), -ETIMEDOUT);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)a), 0);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)a), -EINVAL);
	assert_int_equal(lx_xprt_tags_put(t, 99), -EINVAL);
	st = stats_of(t);
	assert_int_equal(st.gets, 2);
	assert_int_equal(st.puts, 1);
	assert_int_equal(st.fails, 2);
	assert_int_equal(st.waits, 1);
	assert_int_equal(st.wakeups, 0);
	assert_int_equal(st.wake_batches, 0);
	assert_int_equal(st.bad_puts, 2);
	assert_int_equal(lx_xprt_tags_put(t, (unsigned int)b), 0);
	lx_xprt_tags_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_rejects_bad_arguments),
		cmocka_unit_test(test_calls_on_null_map_fail_cleanly),
		cmocka_unit_test(test_small_maps_spread_over_four_words),
		cmocka_unit_test(test_every_tag_handed_out_once_then_eagain),
		cmocka_unit_test(test_put_get_round_trip_reuses_tags),
		cmocka_unit_test(test_put_then_get_takes_the_same_tag_back),
		cmocka_unit_test(test_put_rejects_double_and_foreign_tags),
		cmocka_unit_test(test_put_of_unallocated_tag_changes_nothing),
		cmocka_unit_test(test_threads_never_hold_the_same_tag),
		cmocka_unit_test(
			test_no_lost_wakeup_with_more_waiters_than_tags),
		cmocka_unit_test(
			test_no_lost_wakeup_when_depth_below_wake_batch),
		cmocka_unit_test(test_last_put_flushes_a_partial_batch),
		cmocka_unit_test(
			test_first_waiter_finds_tag_freed_before_it_queued),
		cmocka_unit_test(test_puts_wake_waiters_in_batches),
		cmocka_unit_test(test_waiters_served_in_arrival_order),
		cmocka_unit_test(test_gets_do_not_overtake_waiters),
		cmocka_unit_test(test_get_wait_times_out),
		cmocka_unit_test(test_timeouts_racing_wakeups_leak_no_tag),
		cmocka_unit_test(test_barging_threads_never_hold_the_same_tag),
		cmocka_unit_test(test_barging_no_lost_wakeup),
		cmocka_unit_test(
			test_barging_starvation_and_timeouts_leak_no_tag),
		cmocka_unit_test(test_barging_running_thread_keeps_its_tag),
		cmocka_unit_test(test_barging_waiter_served_within_the_bound),
		cmocka_unit_test(test_close_wakes_all_waiters_with_eshutdown),
		cmocka_unit_test(test_resize_shrinks_at_once_and_grow_wakes),
		cmocka_unit_test(test_stats_count_every_outcome),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
