// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Request timers (xprt/core/timer.c): a deadline per slot, walked when one is
 * due; arming kicks the receive thread only when the new deadline comes
 * before the time it sleeps to, which is never more than
 * LX_XPRT_TIMER_TICK_NS away.  A transport with a counting kick_rx() and
 * no thread: the test plays the receive thread by calling
 * lx_xprt_timer_next() as it would before sleeping, and
 * lx_xprt_timer_expired() as lx_xprt_timer_run() does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xprt/core/xprt_int.h"

#define NRQ   8
#define MS_NS 1000000ull

static unsigned int kicks;

static void count_kick(struct lx_xprt *x)
{
	(void)x;
	kicks++;
}

static const struct lx_xprt_transport_ops kick_ops = {
	.kick_rx = count_kick,
};

struct fixture {
	struct lx_xprt x;
	struct lx_xprt_rqst rq[NRQ];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	unsigned int i;

	assert_non_null(f);
	f->x.ops = &kick_ops;
	f->x.slots = f->rq;
	f->x.stride = sizeof(f->rq[0]);
	f->x.max_reqs = NRQ;
	atomic_store(&f->x.timer_scan_at, UINT64_MAX);
	for (i = 0; i < NRQ; i++)
		atomic_store(&f->rq[i].refs, 1);
	kicks = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
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

/* Expire as lx_xprt_timer_run() does; return a bit mask of the slots
 * that fired, dropping every reference taken. */
static unsigned int expire(struct fixture *f, uint64_t now, uint64_t *next)
{
	struct lx_xprt_rqst *rq;
	unsigned int fired_mask = 0;
	bool fired;

	while ((rq = lx_xprt_timer_expired(&f->x, now, next, &fired))) {
		if (fired)
			fired_mask |= 1u << (unsigned int)(rq - f->rq);
		atomic_fetch_sub(&rq->refs, 1);
	}
	return fired_mask;
}

static void test_expiry_rearm_and_disarm(void **state)
{
	struct fixture *f = *state;
	uint64_t base = lx_xprt_now_ns() + 100 * MS_NS, next;
	static const unsigned int order[NRQ] = {5, 2, 7, 0, 3, 6, 1, 4};
	unsigned int i;

	for (i = 0; i < NRQ; i++)
		lx_xprt_timer_arm(&f->x, &f->rq[i], base + order[i] * MS_NS);
	/* nothing due yet: no walk, the earliest deadline is the wake-up */
	assert_int_equal(expire(f, base - MS_NS, &next), 0);
	assert_int_equal(next, base);
	/* re-arm the earliest to the latest, disarm the next two */
	lx_xprt_timer_arm(&f->x, &f->rq[3], base + 50 * MS_NS);
	lx_xprt_timer_arm(&f->x, &f->rq[6], 0);
	lx_xprt_timer_arm(&f->x, &f->rq[1], 0);
	/* at base + 3 ms: orders 0 (re-armed), 1 and 2 (disarmed) do not
	 * fire, order 3 (rq[4]) does */
	assert_int_equal(expire(f, base + 3 * MS_NS, &next), 1u << 4);
	assert_int_equal(atomic_load(&f->rq[4].deadline), 0);
	assert_int_equal(next, base + 4 * MS_NS); /* order 4: rq[7] */
	/* a slot nobody holds (a stale deadline) never fires */
	atomic_store(&f->rq[7].refs, 0);
	/* at base + 10 ms every armed one but the re-armed rq[3] fires */
	assert_int_equal(expire(f, base + 10 * MS_NS, &next),
			 1u << 0 | 1u << 2 | 1u << 5);
	assert_int_equal(next, base + 50 * MS_NS);
	atomic_store(&f->rq[7].refs, 1);
	for (i = 0; i < NRQ; i++)
		assert_int_equal(atomic_load(&f->rq[i].refs), 1);
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
		cmocka_unit_test_setup_teardown(test_expiry_rearm_and_disarm,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
