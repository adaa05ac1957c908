// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Request timers (xprt/timer.c): the heap orders deadlines, and arming
 * kicks the receive thread only when the new deadline comes before the
 * time it sleeps to, which is never more than LX_XPRT_TIMER_TICK_NS away.
 * A transport with a counting kick_rx() and no thread: the test plays the
 * receive thread by calling lx_xprt_timer_next() as it would before sleeping.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xprt/xprt_int.h"

#define NRQ   8
#define MS_NS 1000000ull

static unsigned int kicks;

static void count_kick(struct xprt *x)
{
	(void)x;
	kicks++;
}

static const struct lx_xprt_transport_ops kick_ops = {
	.kick_rx = count_kick,
};

struct fixture {
	struct xprt x;
	struct lx_xprt_rqst *heap[NRQ];
	struct lx_xprt_rqst rq[NRQ];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	unsigned int i;

	assert_non_null(f);
	f->x.ops = &kick_ops;
	f->x.heap = f->heap;
	pthread_mutex_init(&f->x.timer_lock, NULL);
	for (i = 0; i < NRQ; i++)
		atomic_store(&f->rq[i].heap_idx, -1);
	kicks = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pthread_mutex_destroy(&f->x.timer_lock);
	free(f);
	return 0;
}

static void test_idle_wake_is_one_tick_away(void **state)
{
	struct fixture *f = *state;
	uint64_t now = lx_xprt_now_ns();
	uint64_t d = lx_xprt_timer_next(&f->x);

	/* nothing armed: not "forever" (0), but one tick from now */
	assert_true(d >= now + LX_XPRT_TIMER_TICK_NS);
	assert_true(d <= lx_xprt_now_ns() + LX_XPRT_TIMER_TICK_NS);
	assert_int_equal(atomic_load(&f->x.rx_wake_deadline), d);
}

static void test_far_deadline_does_not_kick(void **state)
{
	struct fixture *f = *state;

	lx_xprt_timer_next(&f->x); /* the receive thread goes to sleep */
	/* a 60 s RPC timeout, armed when the thread sleeps with nothing
	 * armed: it wakes within the tick anyway, so no kick (before the
	 * tick, every such arm cost an eventfd write and a wake-up) */
	lx_xprt_timer_arm(&f->x, &f->rq[0], lx_xprt_now_ns() + 60000 * MS_NS);
	assert_int_equal(kicks, 0);
	assert_int_equal(f->x.heap_len, 1);
	/* and the thread, looking again, still sleeps one tick */
	assert_true(lx_xprt_timer_next(&f->x) < f->rq[0].deadline);
}

static void test_near_deadline_kicks(void **state)
{
	struct fixture *f = *state;
	uint64_t now, d;

	lx_xprt_timer_next(&f->x);
	now = lx_xprt_now_ns();
	lx_xprt_timer_arm(&f->x, &f->rq[0], now + 10 * MS_NS);
	assert_int_equal(kicks, 1);
	d = lx_xprt_timer_next(&f->x);
	assert_int_equal(d, now + 10 * MS_NS);
	/* a later one behind it: the thread already wakes earlier */
	lx_xprt_timer_arm(&f->x, &f->rq[1], now + 20 * MS_NS);
	assert_int_equal(kicks, 1);
	/* an earlier one in front of it: kick */
	lx_xprt_timer_arm(&f->x, &f->rq[2], now + 5 * MS_NS);
	assert_int_equal(kicks, 2);
	assert_int_equal(lx_xprt_timer_next(&f->x), now + 5 * MS_NS);
}

static void test_no_kick_before_the_thread_looked(void **state)
{
	struct fixture *f = *state;

	/* the thread has not computed a sleep yet: it will see the heap
	 * before it first sleeps, so nobody needs to kick it */
	lx_xprt_timer_arm(&f->x, &f->rq[0], lx_xprt_now_ns() + 5 * MS_NS);
	assert_int_equal(kicks, 0);
	assert_int_equal(lx_xprt_timer_next(&f->x), f->rq[0].deadline);
}

static void test_heap_order_rearm_and_disarm(void **state)
{
	struct fixture *f = *state;
	uint64_t base = lx_xprt_now_ns() + 100 * MS_NS;
	static const unsigned int order[NRQ] = {5, 2, 7, 0, 3, 6, 1, 4};
	unsigned int i;

	for (i = 0; i < NRQ; i++)
		lx_xprt_timer_arm(&f->x, &f->rq[i], base + order[i] * MS_NS);
	assert_int_equal(f->x.heap_len, NRQ);
	assert_ptr_equal(f->x.heap[0], &f->rq[3]); /* order 0 */
	/* re-arm the earliest to the latest: the next one comes first */
	lx_xprt_timer_arm(&f->x, &f->rq[3], base + 50 * MS_NS);
	assert_int_equal(f->x.heap_len, NRQ);
	assert_ptr_equal(f->x.heap[0], &f->rq[6]); /* order 1 */
	/* disarm it and the one at order 2: gone, the order holds */
	lx_xprt_timer_arm(&f->x, &f->rq[6], 0);
	lx_xprt_timer_arm(&f->x, &f->rq[1], 0);
	assert_int_equal(f->x.heap_len, NRQ - 2);
	assert_int_equal(atomic_load(&f->rq[6].heap_idx), -1);
	assert_int_equal(atomic_load(&f->rq[1].heap_idx), -1);
	assert_ptr_equal(f->x.heap[0], &f->rq[4]); /* order 3 */
	for (i = 0; i < f->x.heap_len; i++)
		assert_int_equal(atomic_load(&f->x.heap[i]->heap_idx), i);
	for (i = 1; i < f->x.heap_len; i++)
		assert_true(f->x.heap[(i - 1) / 2]->deadline <=
			    f->x.heap[i]->deadline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle_wake_is_one_tick_away,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_far_deadline_does_not_kick,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_near_deadline_kicks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_no_kick_before_the_thread_looked, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_heap_order_rearm_and_disarm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
