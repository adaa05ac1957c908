// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the fair transmit queue (xprt/blocks/xmitq.h): ordering rules,
 * requeue and removal semantics, argument checks, and exactly-once delivery
 * with concurrent producers.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xprt/blocks/util.h"
#include "xprt/blocks/xmitq.h"

struct req {
	struct lx_xprt_xmit_node xn;
	int id;
};

static struct req *req_of(struct lx_xprt_xmit_node *n)
{
	return n ? lx_xprt_container_of(n, struct req, xn) : NULL;
}

static void req_init(struct req *r, int id, uint64_t owner, bool credited)
{
	lx_xprt_xmit_node_init(&r->xn, owner);
	r->xn.credited = credited;
	r->id = id;
}

static void push_ok(struct lx_xprt_xmitq *q, struct req *r)
{
	assert_int_equal(lx_xprt_xmitq_push(q, &r->xn), 0);
}

/* Pop @n nodes, checking peek agrees with pop and the ids come in order,
 * then check the queue is empty. */
static void expect_pops(struct lx_xprt_xmitq *q, const int *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct lx_xprt_xmit_node *peeked = lx_xprt_xmitq_peek(q);
		struct lx_xprt_xmit_node *popped = lx_xprt_xmitq_pop(q);

		assert_non_null(popped);
		assert_ptr_equal(peeked, popped);
		if (req_of(popped)->id != ids[i])
			fail_msg("pop %zu: got id %d, expected %d", i,
				 req_of(popped)->id, ids[i]);
		assert_false(atomic_load(&popped->queued));
		assert_int_equal(lx_xprt_xmitq_len(q), n - i - 1);
	}
	assert_null(lx_xprt_xmitq_peek(q));
	assert_null(lx_xprt_xmitq_pop(q));
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
}

static int setup_queue(void **state)
{
	struct lx_xprt_xmitq *q = malloc(sizeof(*q));

	if (!q)
		return -1;
	lx_xprt_xmitq_init(q);
	*state = q;
	return 0;
}

static int teardown_queue(void **state)
{
	struct lx_xprt_xmitq *q = *state;

	lx_xprt_xmitq_destroy(q);
	free(q);
	return 0;
}

/* ------------------------------------------------------------ arguments */

static void test_bad_arguments_rejected_without_side_effect(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a;

	req_init(&a, 1, 7, false);
	assert_int_equal(lx_xprt_xmitq_push(NULL, &a.xn), -EINVAL);
	assert_false(atomic_load(&a.xn.queued));
	assert_int_equal(lx_xprt_xmitq_push(q, NULL), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_requeue(NULL, &a.xn), -EINVAL);
	assert_false(atomic_load(&a.xn.queued));
	assert_int_equal(lx_xprt_xmitq_requeue(q, NULL), -EINVAL);
	assert_false(lx_xprt_xmitq_remove(NULL, &a.xn));
	assert_false(lx_xprt_xmitq_remove(q, NULL));
	assert_null(lx_xprt_xmitq_pop(NULL));
	assert_null(lx_xprt_xmitq_peek(NULL));
	assert_int_equal(lx_xprt_xmitq_len(NULL), 0);
	lx_xprt_xmitq_init(NULL);
	lx_xprt_xmitq_destroy(NULL);
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
	assert_null(lx_xprt_xmitq_pop(q));
}

static void test_push_of_queued_node_is_einval(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a, b;

	req_init(&a, 1, 7, false);
	req_init(&b, 2, 8, false);
	push_ok(q, &a);
	assert_int_equal(lx_xprt_xmitq_push(q, &a.xn), -EINVAL);
	push_ok(q, &b);
	/* Still refused once sorted into the ring. */
	assert_ptr_equal(lx_xprt_xmitq_peek(q), &a.xn);
	assert_int_equal(lx_xprt_xmitq_push(q, &a.xn), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_push(q, &b.xn), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_len(q), 2);
	expect_pops(q, (int[]){1, 2}, 2);
	/* Popped: it may be pushed again. */
	push_ok(q, &a);
	expect_pops(q, (int[]){1}, 1);
}

static void test_requeue_of_queued_node_is_einval(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a, c;

	req_init(&a, 1, 7, false);
	req_init(&c, 2, 8, true);
	push_ok(q, &a);
	push_ok(q, &c);
	assert_int_equal(lx_xprt_xmitq_requeue(q, &a.xn), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_requeue(q, &c.xn), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_len(q), 2);
	expect_pops(q, (int[]){2, 1}, 2);
}

static void test_zeroed_node_is_a_valid_idle_node(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r;

	memset(&r, 0, sizeof(r));
	r.id = 5;
	assert_false(lx_xprt_xmitq_remove(q, &r.xn));
	push_ok(q, &r);
	expect_pops(q, (int[]){5}, 1);
}

/* ------------------------------------------------------------- ordering */

static void test_credited_pops_first_even_if_pushed_last(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r[5];

	req_init(&r[0], 0, 1, false);
	req_init(&r[1], 1, 1, false);
	req_init(&r[2], 2, 2, false);
	req_init(&r[3], 3, 3, true);
	req_init(&r[4], 4, 1, true);
	for (int i = 0; i < 5; i++)
		push_ok(q, &r[i]);
	/* Credited FIFO first (3 then 4), then the ring: owner 1, 2, 1. */
	expect_pops(q, (int[]){3, 4, 0, 2, 1}, 5);
}

static void test_credited_pushed_while_ring_busy_overtakes_it(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a[3], c;

	for (int i = 0; i < 3; i++)
		req_init(&a[i], i, 1, false);
	req_init(&c, 9, 2, true);
	for (int i = 0; i < 3; i++)
		push_ok(q, &a[i]);
	assert_int_equal(req_of(lx_xprt_xmitq_pop(q))->id, 0);
	push_ok(q, &c);
	expect_pops(q, (int[]){9, 1, 2}, 3);
}

/*
 * Owners A (5 requests), B (1), C (2) pushed as A1 A2 B1 A3 C1 A4 C2 A5.
 * Ring after sorting: A B C.  Each pop of an owner's entry sends its next
 * request to the ring tail.
 */
static void test_round_robin_exact_sequence(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	enum { A = 100, B = 200, C = 300 };
	static const struct {
		int id;
		uint64_t owner;
	} order[] = {
		{11, A}, {12, A}, {21, B}, {13, A},
		{31, C}, {14, A}, {32, C}, {15, A},
	};
	struct req r[LX_XPRT_ARRAY_SIZE(order)];

	for (size_t i = 0; i < LX_XPRT_ARRAY_SIZE(order); i++) {
		req_init(&r[i], order[i].id, order[i].owner, false);
		push_ok(q, &r[i]);
	}
	assert_int_equal(lx_xprt_xmitq_len(q), 8);
	expect_pops(q, (int[]){11, 21, 31, 12, 32, 13, 14, 15}, 8);
}

/* Pushes that arrive between pops join the ring where they belong. */
static void test_round_robin_with_interleaved_pushes(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2, b1, b2, c1;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	req_init(&b1, 3, 2, false);
	req_init(&b2, 4, 2, false);
	req_init(&c1, 5, 3, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	push_ok(q, &b1);
	/* Ring A B; pop A1 -> ring B A2. */
	assert_int_equal(req_of(lx_xprt_xmitq_pop(q))->id, 1);
	/* C is new: ring tail after A2. B2 joins B's sub-list. */
	push_ok(q, &c1);
	push_ok(q, &b2);
	/* B1 -> ring A2 C B2; A2; C1; B2. */
	expect_pops(q, (int[]){3, 2, 5, 4}, 4);
}

static void test_fifo_within_one_owner(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	enum { N = 100 };
	struct req *r = calloc(N, sizeof(*r));
	int ids[N];

	assert_non_null(r);
	for (int i = 0; i < N; i++) {
		req_init(&r[i], i, 42, false);
		push_ok(q, &r[i]);
		ids[i] = i;
	}
	expect_pops(q, ids, N);
	free(r);
}

static void test_lone_owner_not_starved_behind_10000_requests(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	enum { N = 10000 };
	struct req *r = calloc(N + 1, sizeof(*r));
	struct lx_xprt_xmit_node *n;
	int expect_a = 0;
	bool b_seen = false;

	assert_non_null(r);
	for (int i = 0; i < N; i++) {
		req_init(&r[i], i, 1, false);
		push_ok(q, &r[i]);
	}
	req_init(&r[N], N, 2, false);
	push_ok(q, &r[N]);
	for (int i = 0; i < 2; i++) {
		n = lx_xprt_xmitq_pop(q);
		assert_non_null(n);
		if (req_of(n)->id == N)
			b_seen = true;
		else
			assert_int_equal(req_of(n)->id, expect_a++);
	}
	assert_true(b_seen);
	/* A's flood then drains in order. */
	while ((n = lx_xprt_xmitq_pop(q)) != NULL)
		assert_int_equal(req_of(n)->id, expect_a++);
	assert_int_equal(expect_a, N);
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
	free(r);
}

/*
 * 5000 owners with two requests each, owner ids that share their low
 * bits: lookups must find the right one while the table grows.
 */
static void test_thousands_of_owners_round_robin(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	enum { OWNERS = 5000 };
	struct req *r = calloc(2 * OWNERS, sizeof(*r));
	struct lx_xprt_xmit_node *n;

	assert_non_null(r);
	for (int i = 0; i < OWNERS; i++) {
		/* Owner ids with equal low bits, as thread ids often have. */
		uint64_t owner = ((uint64_t)i << 12) | 0x5;

		req_init(&r[2 * i], 2 * i, owner, false);
		req_init(&r[2 * i + 1], 2 * i + 1, owner, false);
		push_ok(q, &r[2 * i]);
		push_ok(q, &r[2 * i + 1]);
	}
	assert_int_equal(lx_xprt_xmitq_len(q), 2 * OWNERS);
	/* First round: each owner's first request in owner order; second
	 * round: each owner's second one. */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < OWNERS; i++) {
			n = lx_xprt_xmitq_pop(q);
			assert_non_null(n);
			assert_int_equal(req_of(n)->id, 2 * i + round);
		}
	}
	assert_null(lx_xprt_xmitq_pop(q));
	free(r);
}

static void test_owner_ids_zero_and_max_are_distinct_owners(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r[4];

	req_init(&r[0], 0, 0, false);
	req_init(&r[1], 1, 0, false);
	req_init(&r[2], 2, UINT64_MAX, false);
	req_init(&r[3], 3, UINT64_MAX, false);
	for (int i = 0; i < 4; i++)
		push_ok(q, &r[i]);
	expect_pops(q, (int[]){0, 2, 1, 3}, 4);
}

/* -------------------------------------------------------------- requeue */

static void test_requeue_credited_goes_back_to_front(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req c1, c2, c3, a1;

	req_init(&c1, 1, 1, true);
	req_init(&c2, 2, 2, true);
	req_init(&c3, 3, 3, true);
	req_init(&a1, 4, 4, false);
	push_ok(q, &c1);
	push_ok(q, &c2);
	push_ok(q, &a1);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &c1.xn);
	assert_int_equal(lx_xprt_xmitq_len(q), 2);
	/* A credited push arriving meanwhile must not overtake c1. */
	push_ok(q, &c3);
	assert_int_equal(lx_xprt_xmitq_requeue(q, &c1.xn), 0);
	assert_true(atomic_load(&c1.xn.queued));
	assert_int_equal(lx_xprt_xmitq_len(q), 4);
	expect_pops(q, (int[]){1, 2, 3, 4}, 4);
}

static void test_requeue_uncredited_behaves_as_a_new_push(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2, b1;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	req_init(&b1, 3, 2, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	push_ok(q, &b1);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &a1.xn);
	/* Ring is B1 A2; a1 had its turn and queues behind its owner's a2. */
	assert_int_equal(lx_xprt_xmitq_requeue(q, &a1.xn), 0);
	assert_int_equal(lx_xprt_xmitq_len(q), 3);
	expect_pops(q, (int[]){3, 2, 1}, 3);
}

static void test_requeue_lone_uncredited_goes_to_ring_tail(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, b1, c1;

	req_init(&a1, 1, 1, false);
	req_init(&b1, 2, 2, false);
	req_init(&c1, 3, 3, false);
	push_ok(q, &a1);
	push_ok(q, &b1);
	push_ok(q, &c1);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &a1.xn);
	assert_int_equal(lx_xprt_xmitq_requeue(q, &a1.xn), 0);
	expect_pops(q, (int[]){2, 3, 1}, 3);
}

/* The transmit path pops, wins a credit, fails to send: it goes first. */
static void test_requeue_after_gaining_credit_goes_first(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, b1, b2;

	req_init(&a1, 1, 1, false);
	req_init(&b1, 2, 2, false);
	req_init(&b2, 3, 2, false);
	push_ok(q, &a1);
	push_ok(q, &b1);
	push_ok(q, &b2);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &a1.xn);
	a1.xn.credited = true;
	assert_int_equal(lx_xprt_xmitq_requeue(q, &a1.xn), 0);
	expect_pops(q, (int[]){1, 2, 3}, 3);
}

/* --------------------------------------------------------------- remove */

static void test_remove_from_incoming_before_sorting(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2, b1, c1;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	req_init(&b1, 3, 2, false);
	req_init(&c1, 4, 3, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	push_ok(q, &b1);
	push_ok(q, &c1);
	/* No peek or pop yet: b1 is still in the incoming queue. */
	assert_int_equal(b1.xn.state, LX_XPRT_XMIT_INCOMING);
	assert_true(lx_xprt_xmitq_remove(q, &b1.xn));
	assert_false(atomic_load(&b1.xn.queued));
	assert_false(lx_xprt_xmitq_remove(q, &b1.xn));
	assert_int_equal(lx_xprt_xmitq_len(q), 3);
	expect_pops(q, (int[]){1, 4, 2}, 3);
}

static void test_remove_ring_head_with_sublist_keeps_owner_turn(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2, a3, b1, c1;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	req_init(&a3, 3, 1, false);
	req_init(&b1, 4, 2, false);
	req_init(&c1, 5, 3, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	push_ok(q, &a3);
	push_ok(q, &b1);
	push_ok(q, &c1);
	assert_ptr_equal(lx_xprt_xmitq_peek(q), &a1.xn);
	assert_int_equal(a1.xn.state, LX_XPRT_XMIT_HEAD);
	assert_true(lx_xprt_xmitq_remove(q, &a1.xn));
	/* a2 took a1's place at the ring head (a pop would have sent it to
	 * the tail); a3 stays behind a2. */
	assert_int_equal(a2.xn.state, LX_XPRT_XMIT_HEAD);
	expect_pops(q, (int[]){2, 4, 5, 3}, 4);
}

static void test_remove_ring_entry_in_middle(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, b1, b2, c1;

	req_init(&a1, 1, 1, false);
	req_init(&b1, 2, 2, false);
	req_init(&b2, 3, 2, false);
	req_init(&c1, 4, 3, false);
	push_ok(q, &a1);
	push_ok(q, &b1);
	push_ok(q, &b2);
	push_ok(q, &c1);
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_true(lx_xprt_xmitq_remove(q, &b1.xn));
	/* b2 is B's entry now, still between A and C. */
	expect_pops(q, (int[]){1, 3, 4}, 3);
}

static void test_remove_last_request_of_owner_drops_owner(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, b1, c1, b2;

	req_init(&a1, 1, 1, false);
	req_init(&b1, 2, 2, false);
	req_init(&c1, 3, 3, false);
	req_init(&b2, 4, 2, false);
	push_ok(q, &a1);
	push_ok(q, &b1);
	push_ok(q, &c1);
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_true(lx_xprt_xmitq_remove(q, &b1.xn));
	/* B has no entry any more: a new push of B goes to the ring tail. */
	push_ok(q, &b2);
	expect_pops(q, (int[]){1, 3, 4}, 3);
}

static void test_remove_sublist_member(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2, a3, b1;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	req_init(&a3, 3, 1, false);
	req_init(&b1, 4, 2, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	push_ok(q, &a3);
	push_ok(q, &b1);
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_int_equal(a2.xn.state, LX_XPRT_XMIT_SUB);
	assert_true(lx_xprt_xmitq_remove(q, &a2.xn));
	expect_pops(q, (int[]){1, 4, 3}, 3);
}

static void test_remove_credited(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req x1, x2, x3, a1;

	req_init(&x1, 1, 1, true);
	req_init(&x2, 2, 2, true);
	req_init(&x3, 3, 3, true);
	req_init(&a1, 4, 4, false);
	push_ok(q, &x1);
	push_ok(q, &x2);
	push_ok(q, &x3);
	push_ok(q, &a1);
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_true(lx_xprt_xmitq_remove(q, &x2.xn));
	assert_true(lx_xprt_xmitq_remove(q, &x1.xn));
	expect_pops(q, (int[]){3, 4}, 2);
}

static void test_remove_of_popped_node_changes_nothing(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req a1, a2;

	req_init(&a1, 1, 1, false);
	req_init(&a2, 2, 1, false);
	push_ok(q, &a1);
	push_ok(q, &a2);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &a1.xn);
	assert_false(lx_xprt_xmitq_remove(q, &a1.xn));
	assert_int_equal(lx_xprt_xmitq_len(q), 1);
	/* A removed node can be pushed again. */
	assert_true(lx_xprt_xmitq_remove(q, &a2.xn));
	push_ok(q, &a2);
	push_ok(q, &a1);
	expect_pops(q, (int[]){2, 1}, 2);
}

/* ------------------------------------------------------------------ len */

static void test_len_counts_push_pop_requeue_remove(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r[6];

	for (int i = 0; i < 6; i++)
		req_init(&r[i], i, (uint64_t)(i % 2), i == 5);
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
	for (int i = 0; i < 6; i++) {
		push_ok(q, &r[i]);
		assert_int_equal(lx_xprt_xmitq_len(q), i + 1);
	}
	assert_int_equal(lx_xprt_xmitq_push(q, &r[0].xn), -EINVAL);
	assert_int_equal(lx_xprt_xmitq_len(q), 6);
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_int_equal(lx_xprt_xmitq_len(q), 6);
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &r[5].xn);
	assert_int_equal(lx_xprt_xmitq_len(q), 5);
	assert_int_equal(lx_xprt_xmitq_requeue(q, &r[5].xn), 0);
	assert_int_equal(lx_xprt_xmitq_len(q), 6);
	assert_true(lx_xprt_xmitq_remove(q, &r[2].xn));
	assert_int_equal(lx_xprt_xmitq_len(q), 5);
	assert_false(lx_xprt_xmitq_remove(q, &r[2].xn));
	assert_int_equal(lx_xprt_xmitq_len(q), 5);
	for (int i = 5; i > 0; i--) {
		assert_non_null(lx_xprt_xmitq_pop(q));
		assert_int_equal(lx_xprt_xmitq_len(q), i - 1);
	}
	assert_null(lx_xprt_xmitq_pop(q));
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
}

/* --------------------------------------------------------- empty/count */

static void test_empty_and_count_follow_push_sort_pop(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r[5];

	assert_true(lx_xprt_xmitq_empty(NULL));
	assert_int_equal(lx_xprt_xmitq_count(NULL, 10), 0);
	assert_true(lx_xprt_xmitq_empty(q));
	for (int i = 0; i < 5; i++)
		req_init(&r[i], i, (uint64_t)i, false);
	push_ok(q, &r[0]);
	/* pushed, not sorted yet: not empty */
	assert_false(lx_xprt_xmitq_empty(q));
	push_ok(q, &r[1]);
	push_ok(q, &r[2]);
	assert_int_equal(lx_xprt_xmitq_count(q, 2), 2);
	assert_int_equal(lx_xprt_xmitq_count(q, 10), 3);
	/* sorted: still not empty, counted once */
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_false(lx_xprt_xmitq_empty(q));
	push_ok(q, &r[3]);
	assert_int_equal(lx_xprt_xmitq_count(q, 10), 4);
	assert_int_equal(lx_xprt_xmitq_count(q, 3), 3);
	for (int i = 0; i < 4; i++) {
		assert_false(lx_xprt_xmitq_empty(q));
		assert_non_null(lx_xprt_xmitq_pop(q));
	}
	assert_true(lx_xprt_xmitq_empty(q));
	/* the unsorted path of a batch consumer keeps the count right */
	push_ok(q, &r[4]);
	assert_ptr_equal(lx_xprt_xmitq_peek_fifo(q), &r[4].xn);
	assert_true(lx_xprt_xmitq_pop_fifo(q, &r[4].xn));
	assert_true(lx_xprt_xmitq_empty(q));
	assert_int_equal(lx_xprt_xmitq_count(q, 10), 0);
	/* a credited requeue is sorted at once: counted */
	r[4].xn.credited = true;
	assert_int_equal(lx_xprt_xmitq_requeue(q, &r[4].xn), 0);
	assert_false(lx_xprt_xmitq_empty(q));
	assert_true(lx_xprt_xmitq_remove(q, &r[4].xn));
	assert_true(lx_xprt_xmitq_empty(q));
}

/* ------------------------------------------- a push starting behind a peek */

/* The first half of a push (xmitq_enqueue()): @r is the tail, not yet
 * linked behind the old one - a producer preempted between the two. */
static struct cds_wfcq_node *push_first_half(struct lx_xprt_xmitq *q,
					     struct req *r)
{
	atomic_store(&r->xn.queued, true);
	r->xn.state = LX_XPRT_XMIT_INCOMING;
	cds_wfcq_node_init(&r->xn.inq);
	return __atomic_exchange_n(&q->in_tail.p, &r->xn.inq, __ATOMIC_SEQ_CST);
}

static void push_second_half(struct cds_wfcq_node *prev, struct req *r)
{
	__atomic_store_n(&prev->next, &r->xn.inq, __ATOMIC_RELEASE);
}

/*
 * A peeked node that a push has started behind since the peek cannot
 * leave without waiting for that producer: the pop says so and changes
 * nothing, so the consumer does not send a node that stays queued (it
 * would be sent twice).  Once the push is linked both leave, in order.
 */
static void test_pop_of_peeked_node_never_waits_for_a_push(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct cds_wfcq_node *prev;
	struct req r[2];

	req_init(&r[0], 0, 1, false);
	req_init(&r[1], 1, 2, false);
	push_ok(q, &r[0]);
	assert_ptr_equal(lx_xprt_xmitq_peek(q), &r[0].xn);
	prev = push_first_half(q, &r[1]);
	assert_ptr_equal(prev, &r[0].xn.inq);
	assert_false(lx_xprt_xmitq_pop_node(q, &r[0].xn));
	assert_true(atomic_load(&r[0].xn.queued));
	assert_false(lx_xprt_xmitq_empty(q));
	/* meanwhile nothing can be taken: pop neither waits nor skips */
	assert_null(lx_xprt_xmitq_peek(q));
	assert_null(lx_xprt_xmitq_pop(q));
	push_second_half(prev, &r[1]);
	expect_pops(q, (const int[]){0, 1}, 2);
}

/* The same for the unsorted path of a batch consumer. */
static void test_pop_fifo_never_waits_for_a_push(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct cds_wfcq_node *prev;
	struct req r[2];

	req_init(&r[0], 0, 1, false);
	req_init(&r[1], 1, 1, false);
	push_ok(q, &r[0]);
	assert_ptr_equal(lx_xprt_xmitq_peek_fifo(q), &r[0].xn);
	prev = push_first_half(q, &r[1]);
	assert_false(lx_xprt_xmitq_pop_fifo(q, &r[0].xn));
	assert_true(atomic_load(&r[0].xn.queued));
	assert_null(lx_xprt_xmitq_peek_fifo(q));
	push_second_half(prev, &r[1]);
	assert_ptr_equal(lx_xprt_xmitq_peek_fifo(q), &r[0].xn);
	assert_true(lx_xprt_xmitq_pop_fifo(q, &r[0].xn));
	assert_false(atomic_load(&r[0].xn.queued));
	assert_ptr_equal(lx_xprt_xmitq_peek_fifo(q), &r[1].xn);
	assert_true(lx_xprt_xmitq_pop_fifo(q, &r[1].xn));
	assert_true(lx_xprt_xmitq_empty(q));
}

/* ----------------------------------------------------------- FIFO order */

static int setup_fifo_queue(void **state)
{
	struct lx_xprt_xmitq *q = malloc(sizeof(*q));

	if (!q)
		return -1;
	lx_xprt_xmitq_init_order(q, LX_XPRT_XMIT_FIFO);
	*state = q;
	return 0;
}

/* Same pushes as test_round_robin_exact_sequence: arrival order, the
 * credited one first. */
static void test_fifo_order_is_arrival_order_credited_first(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	static const uint64_t own[] = {1, 1, 2, 1, 3, 1, 3, 1};
	struct req r[9];

	for (int i = 0; i < 8; i++) {
		req_init(&r[i], i, own[i], false);
		push_ok(q, &r[i]);
	}
	req_init(&r[8], 8, 9, true);
	push_ok(q, &r[8]);
	expect_pops(q, (int[]){8, 0, 1, 2, 3, 4, 5, 6, 7}, 9);
}

static void test_fifo_order_requeue_and_remove(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req r[4];

	for (int i = 0; i < 4; i++) {
		req_init(&r[i], i, 5, false);
		push_ok(q, &r[i]);
	}
	assert_ptr_equal(lx_xprt_xmitq_pop(q), &r[0].xn);
	/* not credited: back at the tail, as a new push */
	assert_int_equal(lx_xprt_xmitq_requeue(q, &r[0].xn), 0);
	assert_true(lx_xprt_xmitq_remove(q, &r[2].xn));
	assert_false(lx_xprt_xmitq_remove(q, &r[2].xn));
	assert_int_equal(lx_xprt_xmitq_len(q), 3);
	expect_pops(q, (int[]){1, 3, 0}, 3);
	assert_true(lx_xprt_xmitq_empty(q));
}

/* An order that is not FIFO is fair. */
static void test_unknown_order_is_fair(void **state)
{
	struct lx_xprt_xmitq q;
	struct req r[3];

	(void)state;
	lx_xprt_xmitq_init_order(&q, (enum lx_xprt_xmit_order)7);
	req_init(&r[0], 0, 1, false);
	req_init(&r[1], 1, 1, false);
	req_init(&r[2], 2, 2, false);
	for (int i = 0; i < 3; i++)
		push_ok(&q, &r[i]);
	expect_pops(&q, (int[]){0, 2, 1}, 3);
	lx_xprt_xmitq_destroy(&q);
}

/* ------------------------------------------------------- owner table */

/*
 * The owner table grows past its buckets while owners are queued, keeps
 * every owner findable (a later request of each joins its owner, not a
 * new entry), and an owner removed or popped after growth leaves the
 * others intact.  ASan checks the grown table is freed by destroy.
 */
static void test_owner_table_grows_and_keeps_owners(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	enum { OWNERS = 3000 };
	struct req *r = calloc(3 * OWNERS, sizeof(*r));
	struct lx_xprt_xmit_node *n;
	unsigned int bits0 = q->hash_bits;

	assert_non_null(r);
	for (int i = 0; i < OWNERS; i++) {
		req_init(&r[i], i, (uint64_t)i << 12, false);
		push_ok(q, &r[i]);
	}
	assert_non_null(lx_xprt_xmitq_peek(q)); /* sorts: grows */
	assert_true(q->hash_bits > bits0);
	assert_true(1u << q->hash_bits >= OWNERS);
	assert_int_equal(q->nowners, OWNERS);
	for (int i = 0; i < OWNERS; i++) {
		req_init(&r[OWNERS + i], OWNERS + i, (uint64_t)i << 12, false);
		push_ok(q, &r[OWNERS + i]);
	}
	assert_non_null(lx_xprt_xmitq_peek(q));
	assert_int_equal(q->nowners, OWNERS); /* each joined its owner */
	/* owner 7's entry goes; its second request keeps its place */
	assert_true(lx_xprt_xmitq_remove(q, &r[7].xn));
	for (int i = 0; i < OWNERS; i++) {
		req_init(&r[2 * OWNERS + i], 2 * OWNERS + i, (uint64_t)i << 12,
			 false);
		push_ok(q, &r[2 * OWNERS + i]);
	}
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < OWNERS; i++) {
			int want = round * OWNERS + i;

			if (i == 7 && round < 2)
				want += OWNERS;
			else if (i == 7)
				continue;
			n = lx_xprt_xmitq_pop(q);
			assert_non_null(n);
			if (req_of(n)->id != want)
				fail_msg("round %d owner %d: id %d, want %d",
					 round, i, req_of(n)->id, want);
		}
	}
	assert_null(lx_xprt_xmitq_pop(q));
	assert_int_equal(q->nowners, 0);
	assert_true(lx_xprt_xmitq_empty(q));
	free(r);
}

/* ---------------------------------------------------------- concurrency */

enum { PRODUCERS = 4, PER_PRODUCER = 20000 };

struct producer {
	struct lx_xprt_xmitq *q;
	struct req *reqs;
	int n;
	atomic_int *failures;
};

static void *producer_main(void *arg)
{
	struct producer *p = arg;

	for (int i = 0; i < p->n; i++) {
		if (lx_xprt_xmitq_push(p->q, &p->reqs[i].xn) != 0)
			atomic_fetch_add(p->failures, 1);
		if ((i & 63) == 0)
			sched_yield();
	}
	return NULL;
}

/*
 * Fill @reqs for @PRODUCERS producers: producer p owns ids
 * p*PER_PRODUCER.., owner p, every 7th credited.
 */
static struct req *make_producer_reqs(void)
{
	struct req *reqs = calloc(PRODUCERS * PER_PRODUCER, sizeof(*reqs));

	assert_non_null(reqs);
	for (int p = 0; p < PRODUCERS; p++)
		for (int i = 0; i < PER_PRODUCER; i++) {
			int id = p * PER_PRODUCER + i;

			req_init(&reqs[id], id, (uint64_t)p, i % 7 == 3);
		}
	return reqs;
}

static void start_producers(struct lx_xprt_xmitq *q, struct req *reqs,
			    pthread_t *tids, struct producer *ps,
			    atomic_int *failures)
{
	for (int p = 0; p < PRODUCERS; p++) {
		ps[p] = (struct producer){
			.q = q,
			.reqs = reqs + p * PER_PRODUCER,
			.n = PER_PRODUCER,
			.failures = failures,
		};
		assert_int_equal(
			pthread_create(&tids[p], NULL, producer_main, &ps[p]),
			0);
	}
}

/* Per-node pop counts and per-owner order of the uncredited nodes. */
struct tally {
	int *count;
	int last_uncredited[PRODUCERS];
	int last_credited[PRODUCERS];
};

static void tally_pop(struct tally *t, struct lx_xprt_xmit_node *n)
{
	struct req *r = req_of(n);
	int owner = (int)n->owner;
	int *last = n->credited ? &t->last_credited[owner] :
				  &t->last_uncredited[owner];

	t->count[r->id]++;
	/* Each producer pushes in id order, and both the credited FIFO and
	 * an owner's sub-list are FIFO: ids per owner and class ascend. */
	if (r->id <= *last)
		fail_msg("owner %d: id %d popped after %d", owner, r->id,
			 *last);
	*last = r->id;
}

static void test_concurrent_producers_every_node_popped_once(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req *reqs = make_producer_reqs();
	int total = PRODUCERS * PER_PRODUCER;
	struct tally t = {.count = calloc((size_t)total, sizeof(int))};
	pthread_t tids[PRODUCERS];
	struct producer ps[PRODUCERS];
	atomic_int failures = 0;
	int popped = 0;

	assert_non_null(t.count);
	for (int p = 0; p < PRODUCERS; p++)
		t.last_uncredited[p] = t.last_credited[p] = -1;
	start_producers(q, reqs, tids, ps, &failures);
	while (popped < total) {
		struct lx_xprt_xmit_node *n = lx_xprt_xmitq_pop(q);

		if (!n) {
			sched_yield();
			continue;
		}
		tally_pop(&t, n);
		popped++;
	}
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(tids[p], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	assert_null(lx_xprt_xmitq_pop(q));
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
	for (int i = 0; i < total; i++)
		if (t.count[i] != 1)
			fail_msg("node %d popped %d times", i, t.count[i]);
	free(t.count);
	free(reqs);
}

/*
 * Closed loop: each producer owns a few nodes and pushes one again only
 * after the consumer handed it back, so every node crosses threads many
 * times (the queued flag and the node contents must follow it).
 */
enum { LOOP_NODES = 8, LOOP_ROUNDS = 3000 };

struct loop_req {
	struct req r;
	atomic_int done;
	int pushes; /* producer's count */
	int pops;   /* consumer's count */
};

struct looper {
	struct lx_xprt_xmitq *q;
	struct loop_req *nodes;
	atomic_int *failures;
};

static void *looper_main(void *arg)
{
	struct looper *l = arg;
	int pushes = 0;

	for (int i = 0; i < LOOP_NODES; i++) {
		atomic_store(&l->nodes[i].done, 0);
		if (lx_xprt_xmitq_push(l->q, &l->nodes[i].r.xn))
			atomic_fetch_add(l->failures, 1);
		l->nodes[i].pushes++;
		pushes++;
	}
	while (pushes < LOOP_NODES * LOOP_ROUNDS) {
		bool any = false;

		for (int i = 0; i < LOOP_NODES; i++) {
			struct loop_req *n = &l->nodes[i];

			if (!atomic_load_explicit(&n->done,
						  memory_order_acquire))
				continue;
			any = true;
			atomic_store(&n->done, 0);
			n->r.xn.credited = (pushes % 5) == 0;
			if (lx_xprt_xmitq_push(l->q, &n->r.xn))
				atomic_fetch_add(l->failures, 1);
			n->pushes++;
			if (++pushes == LOOP_NODES * LOOP_ROUNDS)
				break;
		}
		if (!any)
			sched_yield();
	}
	return NULL;
}

static void test_closed_loop_repush_every_push_popped_once(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct loop_req *nodes = calloc(PRODUCERS * LOOP_NODES, sizeof(*nodes));
	struct looper ls[PRODUCERS];
	pthread_t tids[PRODUCERS];
	atomic_int failures = 0;
	int total = PRODUCERS * LOOP_NODES * LOOP_ROUNDS, popped = 0;

	assert_non_null(nodes);
	for (int p = 0; p < PRODUCERS; p++) {
		for (int i = 0; i < LOOP_NODES; i++)
			req_init(&nodes[p * LOOP_NODES + i].r,
				 p * LOOP_NODES + i, (uint64_t)p, false);
		ls[p] = (struct looper){q, nodes + p * LOOP_NODES, &failures};
		assert_int_equal(
			pthread_create(&tids[p], NULL, looper_main, &ls[p]), 0);
	}
	while (popped < total) {
		struct lx_xprt_xmit_node *n = lx_xprt_xmitq_pop(q);
		struct loop_req *lr;

		if (!n) {
			sched_yield();
			continue;
		}
		lr = lx_xprt_container_of(req_of(n), struct loop_req, r);
		/* Handed back once per push: the done flag must be clear. */
		if (atomic_load(&lr->done))
			fail_msg("node %d popped twice for one push", lr->r.id);
		lr->pops++;
		popped++;
		atomic_store_explicit(&lr->done, 1, memory_order_release);
	}
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(tids[p], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	assert_null(lx_xprt_xmitq_pop(q));
	for (int i = 0; i < PRODUCERS * LOOP_NODES; i++)
		if (nodes[i].pops != nodes[i].pushes)
			fail_msg("node %d: %d pushes, %d pops", i,
				 nodes[i].pushes, nodes[i].pops);
	free(nodes);
}

/*
 * Shutdown: producers stop, then the consumer fails every queued request
 * by popping until empty.  Some nodes are consumed (and requeued or
 * removed) while producers still run, so the queue holds a mix of
 * credited, ring and sub-list nodes at the stop.
 */
static void test_shutdown_pops_every_queued_node_once(void **state)
{
	struct lx_xprt_xmitq *q = *state;
	struct req *reqs = make_producer_reqs();
	int total = PRODUCERS * PER_PRODUCER;
	int *count = calloc((size_t)total, sizeof(int));
	pthread_t tids[PRODUCERS];
	struct producer ps[PRODUCERS];
	atomic_int failures = 0;
	int taken = 0, removed = 0;
	struct lx_xprt_xmit_node *n;

	assert_non_null(count);
	start_producers(q, reqs, tids, ps, &failures);
	/* Busy consumer while producers run: requeue some, remove others. */
	for (int i = 0; i < total / 4; i++) {
		n = lx_xprt_xmitq_pop(q);
		if (!n)
			continue;
		if (i % 3 == 0) {
			assert_int_equal(lx_xprt_xmitq_requeue(q, n), 0);
		} else {
			count[req_of(n)->id]++;
			taken++;
		}
	}
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(tids[p], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	/* Cancel a few queued nodes the way a shutdown of one job would. */
	for (int id = 1; id < total; id += 97) {
		if (lx_xprt_xmitq_remove(q, &reqs[id].xn)) {
			count[id]++;
			removed++;
		}
	}
	assert_int_equal(lx_xprt_xmitq_len(q), total - taken - removed);
	while ((n = lx_xprt_xmitq_pop(q)) != NULL)
		count[req_of(n)->id]++;
	assert_int_equal(lx_xprt_xmitq_len(q), 0);
	assert_null(lx_xprt_xmitq_peek(q));
	for (int i = 0; i < total; i++) {
		if (count[i] != 1)
			fail_msg("node %d returned %d times", i, count[i]);
		assert_false(atomic_load(&reqs[i].xn.queued));
	}
	free(count);
	free(reqs);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_queue, teardown_queue)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bad_arguments_rejected_without_side_effect),
		T(test_push_of_queued_node_is_einval),
		T(test_requeue_of_queued_node_is_einval),
		T(test_zeroed_node_is_a_valid_idle_node),
		T(test_credited_pops_first_even_if_pushed_last),
		T(test_credited_pushed_while_ring_busy_overtakes_it),
		T(test_round_robin_exact_sequence),
		T(test_round_robin_with_interleaved_pushes),
		T(test_fifo_within_one_owner),
		T(test_lone_owner_not_starved_behind_10000_requests),
		T(test_thousands_of_owners_round_robin),
		T(test_owner_ids_zero_and_max_are_distinct_owners),
		T(test_requeue_credited_goes_back_to_front),
		T(test_requeue_uncredited_behaves_as_a_new_push),
		T(test_requeue_lone_uncredited_goes_to_ring_tail),
		T(test_requeue_after_gaining_credit_goes_first),
		T(test_remove_from_incoming_before_sorting),
		T(test_remove_ring_head_with_sublist_keeps_owner_turn),
		T(test_remove_ring_entry_in_middle),
		T(test_remove_last_request_of_owner_drops_owner),
		T(test_remove_sublist_member),
		T(test_remove_credited),
		T(test_remove_of_popped_node_changes_nothing),
		T(test_len_counts_push_pop_requeue_remove),
		T(test_concurrent_producers_every_node_popped_once),
		T(test_closed_loop_repush_every_push_popped_once),
		T(test_shutdown_pops_every_queued_node_once),
		T(test_empty_and_count_follow_push_sort_pop),
		T(test_pop_of_peeked_node_never_waits_for_a_push),
		T(test_pop_fifo_never_waits_for_a_push),
		cmocka_unit_test_setup_teardown(
			test_fifo_order_is_arrival_order_credited_first,
			setup_fifo_queue, teardown_queue),
		cmocka_unit_test_setup_teardown(
			test_fifo_order_requeue_and_remove, setup_fifo_queue,
			teardown_queue),
		cmocka_unit_test(test_unknown_order_is_fair),
		T(test_owner_table_grows_and_keeps_owners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
