// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the congestion credits (xprt/blocks/cong.c): every window rule
 * against the formula computed here independently, argument validation,
 * and threads taking and returning credits while a test-side counter
 * checks that the credits held never exceed the window.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "xprt/blocks/cong.h"

static uint32_t cwnd_of(struct lx_xprt_cong *c)
{
	return (uint32_t)(atomic_load(&c->state) >> 32);
}

static uint32_t cong_of(struct lx_xprt_cong *c)
{
	return (uint32_t)atomic_load(&c->state);
}

/* Take credits until the window says no; return how many. */
static unsigned int fill(struct lx_xprt_cong *c)
{
	unsigned int n = 0;

	while (lx_xprt_cong_get(c))
		n++;
	return n;
}

static void drain(struct lx_xprt_cong *c)
{
	while (lx_xprt_cong_held(c))
		lx_xprt_cong_put(c);
}

/* ---------------------------------------------------------- basic rules */

static void test_init_sets_mode_windows(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 8), 0);
	assert_int_equal(lx_xprt_cong_window(&c), 8);
	assert_int_equal(lx_xprt_cong_held(&c), 0);
	assert_int_equal(cwnd_of(&c), 8 * 256);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 8), 0);
	assert_int_equal(cwnd_of(&c), 256);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 8), 0);
	assert_int_equal(cwnd_of(&c), 256);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 65536), 0);
	assert_int_equal(lx_xprt_cong_window(&c), 65536);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 1), 0);
	assert_int_equal(lx_xprt_cong_window(&c), 1);
}

static void test_get_fails_when_congested_and_succeeds_after_put(void **st)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 3), 0);
	assert_int_equal(fill(&c), 3);
	assert_int_equal(lx_xprt_cong_held(&c), 3);
	assert_false(lx_xprt_cong_get(&c));
	assert_int_equal(lx_xprt_cong_held(&c), 3);
	lx_xprt_cong_put(&c);
	assert_true(lx_xprt_cong_get(&c));
	assert_false(lx_xprt_cong_get(&c));
	drain(&c);
}

static void test_put_returns_whether_it_was_congested(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 2), 0);
	assert_true(lx_xprt_cong_get(&c));
	assert_false(lx_xprt_cong_put(&c)); /* 1 of 2 held: not congested */
	assert_int_equal(fill(&c), 2);
	assert_true(lx_xprt_cong_put(&c)); /* 2 of 2: congested */
	assert_false(lx_xprt_cong_put(&c));
	assert_int_equal(lx_xprt_cong_held(&c), 0);
	/* reply and timeout report the same way. */
	assert_int_equal(fill(&c), 2);
	assert_true(lx_xprt_cong_reply(&c));
	assert_false(lx_xprt_cong_timeout(&c));
}

static void test_put_without_credit_is_ignored(void **state)
{
	struct lx_xprt_cong c;
	uint64_t before;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 4), 0);
	before = atomic_load(&c.state);
	assert_false(lx_xprt_cong_put(&c));
	assert_false(lx_xprt_cong_reply(&c));
	assert_false(lx_xprt_cong_timeout(&c));
	assert_int_equal(atomic_load(&c.state), before);
}

/* ---------------------------------------------------------------- AIMD */

static void test_aimd_increases_only_when_window_full(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 16), 0);
	/* Window 1, one held: full, so the reply grows it. */
	assert_true(lx_xprt_cong_get(&c));
	assert_true(lx_xprt_cong_reply(&c));
	assert_int_equal(cwnd_of(&c), 512);
	/* Window 2, one held: not full, no growth. */
	assert_true(lx_xprt_cong_get(&c));
	assert_false(lx_xprt_cong_reply(&c));
	assert_int_equal(cwnd_of(&c), 512);
	/* put never grows, even when full. */
	assert_int_equal(fill(&c), 2);
	assert_true(lx_xprt_cong_put(&c));
	assert_int_equal(cwnd_of(&c), 512);
	drain(&c);
}

static void test_aimd_increments_follow_formula(void **state)
{
	struct lx_xprt_cong c;
	uint32_t expect = 256;
	int step;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 64), 0);
	for (step = 0; step < 40; step++) {
		fill(&c);
		assert_true(cong_of(&c) >= cwnd_of(&c));
		assert_true(lx_xprt_cong_reply(&c));
		expect += (65536 + expect / 2) / expect;
		assert_int_equal(cwnd_of(&c), expect);
		drain(&c);
	}
	/* The first steps, spelled out: 256 -> 512 -> 640 -> 742. */
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 64), 0);
	fill(&c);
	lx_xprt_cong_reply(&c);
	assert_int_equal(cwnd_of(&c), 512);
	drain(&c);
	fill(&c);
	lx_xprt_cong_reply(&c);
	assert_int_equal(cwnd_of(&c), 640);
	drain(&c);
	fill(&c);
	lx_xprt_cong_reply(&c);
	assert_int_equal(cwnd_of(&c), 742);
	drain(&c);
}

static void test_aimd_fractional_window_admits_ceiling(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 8), 0);
	fill(&c);
	lx_xprt_cong_reply(&c);
	drain(&c);
	fill(&c);
	lx_xprt_cong_reply(&c);
	drain(&c);
	assert_int_equal(cwnd_of(&c), 640); /* 2.5 requests */
	assert_int_equal(lx_xprt_cong_window(&c), 2);
	assert_int_equal(fill(&c), 3);
	drain(&c);
}

static void test_aimd_clamped_at_max(void **state)
{
	struct lx_xprt_cong c;
	int i;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 3), 0);
	for (i = 0; i < 200; i++) {
		fill(&c);
		lx_xprt_cong_reply(&c);
		assert_true(cwnd_of(&c) <= 3 * 256);
		drain(&c);
	}
	assert_int_equal(cwnd_of(&c), 3 * 256);
	assert_int_equal(fill(&c), 3);
	drain(&c);

	/* Clamped exactly at the maximum, not one unit past it. */
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 2), 0);
	atomic_store(&c.state, (uint64_t)500 << 32 | 512);
	assert_true(lx_xprt_cong_reply(&c)); /* 500 + 131 > 512 */
	assert_int_equal(cwnd_of(&c), 512);
}

/*
 * A property of the formula itself (Linux has it too): the increment
 * (65536 + cwnd/2) / cwnd rounds to 0 once cwnd > 131072, so AIMD growth
 * stops just above 512 requests whatever max_reqs allows.
 */
static void test_aimd_growth_stalls_past_512_requests(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 65536), 0);
	atomic_store(&c.state, (uint64_t)131072 << 32 | 131072);
	assert_true(lx_xprt_cong_reply(&c));
	assert_int_equal(cwnd_of(&c), 131073);
	atomic_store(&c.state, (uint64_t)131073 << 32 | 131328);
	assert_true(lx_xprt_cong_reply(&c));
	assert_int_equal(cwnd_of(&c), 131073);
}

static void test_aimd_timeout_halves_with_floor(void **state)
{
	struct lx_xprt_cong c;
	int i;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 32), 0);
	for (i = 0; i < 1000; i++) {
		fill(&c);
		lx_xprt_cong_reply(&c);
		drain(&c);
	}
	assert_int_equal(cwnd_of(&c), 32 * 256);
	assert_true(lx_xprt_cong_get(&c));
	assert_true(lx_xprt_cong_get(&c));
	assert_false(lx_xprt_cong_timeout(&c));
	assert_int_equal(cwnd_of(&c), 16 * 256);
	assert_int_equal(lx_xprt_cong_held(&c), 1); /* credit returned */
	assert_false(lx_xprt_cong_timeout(&c));
	assert_int_equal(cwnd_of(&c), 8 * 256);
	/* 8 -> 4 -> 2 -> 1 -> 1 (floor) */
	for (i = 0; i < 5; i++) {
		assert_true(lx_xprt_cong_get(&c));
		lx_xprt_cong_timeout(&c);
	}
	assert_int_equal(cwnd_of(&c), 256);
	/* Odd values halve by shift: 742 -> 371 -> 256 (floor). */
	atomic_store(&c.state, (uint64_t)742 << 32);
	assert_true(lx_xprt_cong_get(&c));
	lx_xprt_cong_timeout(&c);
	assert_int_equal(cwnd_of(&c), 371);
	assert_true(lx_xprt_cong_get(&c));
	lx_xprt_cong_timeout(&c);
	assert_int_equal(cwnd_of(&c), 256);
	assert_int_equal(lx_xprt_cong_held(&c), 0);
}

static void test_fixed_and_grant_ignore_aimd_rules(void **state)
{
	static const enum lx_xprt_cong_mode modes[] = {LX_XPRT_CONG_FIXED,
						       LX_XPRT_CONG_GRANT};
	struct lx_xprt_cong c;
	uint32_t w;
	int m;

	for (m = 0; m < 2; m++) {
		assert_int_equal(lx_xprt_cong_init(&c, modes[m], 4), 0);
		if (modes[m] == LX_XPRT_CONG_GRANT)
			lx_xprt_cong_grant(&c, 2);
		fill(&c);
		w = cwnd_of(&c);

		assert_true(lx_xprt_cong_reply(&c));
		assert_int_equal(cwnd_of(&c), w);
		fill(&c);
		assert_true(lx_xprt_cong_timeout(&c));
		assert_int_equal(cwnd_of(&c), w);
		drain(&c);
	}
}

/* ---------------------------------------------------------------- GRANT */

static void test_grant_overwrites_window(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 32), 0);
	assert_int_equal(lx_xprt_cong_grant(&c, 5), 5);
	assert_int_equal(cwnd_of(&c), 5 * 256);
	assert_int_equal(fill(&c), 5);
	assert_int_equal(lx_xprt_cong_grant(&c, 7), 7);
	assert_int_equal(fill(&c), 2);
	assert_int_equal(lx_xprt_cong_held(&c), 7);
	drain(&c);
	/* 0 counts as 1 (never deadlock). */
	assert_int_equal(lx_xprt_cong_grant(&c, 0), 1);
	assert_int_equal(cwnd_of(&c), 256);
	assert_int_equal(fill(&c), 1);
	drain(&c);
	/* Huge grants clamp to the local maximum, no shift overflow. */
	assert_int_equal(lx_xprt_cong_grant(&c, UINT32_MAX), 32);
	assert_int_equal(cwnd_of(&c), 32 * 256);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 65536), 0);
	assert_int_equal(lx_xprt_cong_grant(&c, UINT32_MAX), 65536);
	assert_int_equal(cwnd_of(&c), 65536u * 256);
	assert_int_equal(lx_xprt_cong_grant(&c, 65537), 65536);
}

static void test_grant_below_held_blocks_gets_until_puts(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 8), 0);
	lx_xprt_cong_grant(&c, 4);
	assert_int_equal(fill(&c), 4);
	assert_int_equal(lx_xprt_cong_grant(&c, 1), 1);
	assert_int_equal(lx_xprt_cong_held(&c), 4); /* held credits survive */
	assert_false(lx_xprt_cong_get(&c));
	assert_true(lx_xprt_cong_put(&c)); /* 3 held, still congested */
	assert_false(lx_xprt_cong_get(&c));
	assert_true(lx_xprt_cong_put(&c));
	assert_true(lx_xprt_cong_put(&c));
	assert_true(lx_xprt_cong_put(&c)); /* 1 of 1: the last congested put */
	assert_true(lx_xprt_cong_get(&c));
	drain(&c);
}

static void test_grant_is_ignored_outside_grant_mode(void **state)
{
	struct lx_xprt_cong c;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 6), 0);
	assert_int_equal(lx_xprt_cong_grant(&c, 2), 6);
	assert_int_equal(cwnd_of(&c), 6 * 256);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 6), 0);
	assert_int_equal(lx_xprt_cong_grant(&c, 5), 1);
	assert_int_equal(cwnd_of(&c), 256);
}

/* ---------------------------------------------------------------- reset */

static void test_reset_drops_credits_and_restarts_window(void **state)
{
	struct lx_xprt_cong c;
	int i;

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 16), 0);
	for (i = 0; i < 20; i++) {
		fill(&c);
		lx_xprt_cong_reply(&c);
	}
	assert_true(lx_xprt_cong_held(&c) > 1);
	assert_true(cwnd_of(&c) > 256);
	lx_xprt_cong_reset(&c);
	assert_int_equal(cong_of(&c), 0);
	assert_int_equal(cwnd_of(&c), 256);
	/* A stale put from before the reset changes nothing. */
	assert_false(lx_xprt_cong_put(&c));
	assert_int_equal(cong_of(&c), 0);

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, 16), 0);
	lx_xprt_cong_grant(&c, 9);
	fill(&c);
	lx_xprt_cong_reset(&c);
	assert_int_equal(cong_of(&c), 0);
	assert_int_equal(cwnd_of(&c), 256);

	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 16), 0);
	fill(&c);
	lx_xprt_cong_reset(&c);
	assert_int_equal(cong_of(&c), 0);
	assert_int_equal(cwnd_of(&c), 16 * 256);
}

/* ----------------------------------------------------------- arguments */

static void test_init_rejects_bad_arguments_untouched(void **state)
{
	struct lx_xprt_cong c, pristine;

	memset(&pristine, 0x5a, sizeof(pristine));
	memcpy(&c, &pristine, sizeof(c));
	assert_int_equal(lx_xprt_cong_init(NULL, LX_XPRT_CONG_FIXED, 4),
			 -EINVAL);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_FIXED, 0), -EINVAL);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_AIMD, 65537),
			 -EINVAL);
	assert_int_equal(lx_xprt_cong_init(&c, LX_XPRT_CONG_GRANT, UINT32_MAX),
			 -EINVAL);
	assert_int_equal(lx_xprt_cong_init(&c, (enum lx_xprt_cong_mode)3, 4),
			 -EINVAL);
	assert_int_equal(lx_xprt_cong_init(&c, (enum lx_xprt_cong_mode) - 1, 4),
			 -EINVAL);
	assert_memory_equal(&c, &pristine, sizeof(c));
}

static void test_null_arguments_are_harmless(void **state)
{
	assert_false(lx_xprt_cong_get(NULL));
	assert_false(lx_xprt_cong_put(NULL));
	assert_false(lx_xprt_cong_reply(NULL));
	assert_false(lx_xprt_cong_timeout(NULL));
	assert_int_equal(lx_xprt_cong_grant(NULL, 4), 0);
	assert_int_equal(lx_xprt_cong_window(NULL), 0);
	assert_int_equal(lx_xprt_cong_held(NULL), 0);
	lx_xprt_cong_reset(NULL);
}

/* ---------------------------------------------------------- concurrency */

#define CONC_THREADS 4

struct conc_ctx {
	struct lx_xprt_cong c;
	atomic_uint held; /* the test's own count of credits in hand */
	atomic_uint worst;
	atomic_uint bad;
	atomic_ulong gets;
	bool timeouts;
	uint64_t deadline;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *conc_worker(void *arg)
{
	struct conc_ctx *x = arg;
	unsigned int i;

	for (i = 0; i < 200000; i++) {
		unsigned int n, w;
		uint64_t s;

		if ((i & 1023) == 0 && now_ns() > x->deadline)
			break;
		if (!lx_xprt_cong_get(&x->c))
			continue;
		n = atomic_fetch_add(&x->held, 1) + 1;
		s = atomic_load(&x->c.state);
		/* The window we got in under, or a later (larger) one in
		 * FIXED and grow-only AIMD: ceil(cwnd / 256) bounds what is
		 * held, since a get needs cong < cwnd. */
		w = ((uint32_t)(s >> 32) + 255) / 256;
		if (!x->timeouts && n > w)
			atomic_fetch_add(&x->bad, 1);
		if (n > x->c.max_reqs)
			atomic_fetch_add(&x->bad, 1);
		for (w = atomic_load(&x->worst); n > w;)
			if (atomic_compare_exchange_weak(&x->worst, &w, n))
				break;
		atomic_fetch_add_explicit(&x->gets, 1, memory_order_relaxed);
		atomic_fetch_sub(&x->held, 1);
		if (x->timeouts && (i % 97) == 0)
			lx_xprt_cong_timeout(&x->c);
		else
			lx_xprt_cong_reply(&x->c);
	}
	return NULL;
}

static void conc_run(enum lx_xprt_cong_mode mode, uint32_t max, bool timeouts)
{
	static struct conc_ctx x;
	pthread_t th[CONC_THREADS];
	int i;

	memset(&x, 0, sizeof(x));
	assert_int_equal(lx_xprt_cong_init(&x.c, mode, max), 0);
	x.timeouts = timeouts;
	x.deadline = now_ns() + 2000000000ull;
	for (i = 0; i < CONC_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, conc_worker, &x),
				 0);
	for (i = 0; i < CONC_THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	print_message("mode %d max %u: %lu gets, at most %u held, window %u\n",
		      mode, max, atomic_load(&x.gets), atomic_load(&x.worst),
		      lx_xprt_cong_window(&x.c));
	assert_int_equal(atomic_load(&x.bad), 0);
	assert_true(atomic_load(&x.gets) > 0);
	assert_int_equal(lx_xprt_cong_held(&x.c), 0);
	assert_true(cwnd_of(&x.c) >= 256 && cwnd_of(&x.c) <= max * 256);
}

static void test_concurrent_fixed_never_exceeds_window(void **state)
{
	conc_run(LX_XPRT_CONG_FIXED, 2, false);
}

static void test_concurrent_aimd_growth_never_exceeds_window(void **state)
{
	conc_run(LX_XPRT_CONG_AIMD, 3, false);
}

static void test_concurrent_aimd_timeouts_stay_within_max(void **state)
{
	conc_run(LX_XPRT_CONG_AIMD, 3, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_sets_mode_windows),
		cmocka_unit_test(
			test_get_fails_when_congested_and_succeeds_after_put),
		cmocka_unit_test(test_put_returns_whether_it_was_congested),
		cmocka_unit_test(test_put_without_credit_is_ignored),
		cmocka_unit_test(test_aimd_increases_only_when_window_full),
		cmocka_unit_test(test_aimd_increments_follow_formula),
		cmocka_unit_test(test_aimd_fractional_window_admits_ceiling),
		cmocka_unit_test(test_aimd_clamped_at_max),
		cmocka_unit_test(test_aimd_growth_stalls_past_512_requests),
		cmocka_unit_test(test_aimd_timeout_halves_with_floor),
		cmocka_unit_test(test_fixed_and_grant_ignore_aimd_rules),
		cmocka_unit_test(test_grant_overwrites_window),
		cmocka_unit_test(test_grant_below_held_blocks_gets_until_puts),
		cmocka_unit_test(test_grant_is_ignored_outside_grant_mode),
		cmocka_unit_test(test_reset_drops_credits_and_restarts_window),
		cmocka_unit_test(test_init_rejects_bad_arguments_untouched),
		cmocka_unit_test(test_null_arguments_are_harmless),
		cmocka_unit_test(test_concurrent_fixed_never_exceeds_window),
		cmocka_unit_test(
			test_concurrent_aimd_growth_never_exceeds_window),
		cmocka_unit_test(test_concurrent_aimd_timeouts_stay_within_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
