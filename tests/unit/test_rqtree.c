// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the reply index (xprt/blocks/rqtree.c): the insert/lookup/erase
 * contract, red-black invariants after random churn (checked by walking
 * the tree through the RB_* accessors), the pin/wait hand-shake between
 * threads, and concurrent lookups racing erase and reuse (run it under
 * TSan: a missing happens-before edge on the request payload is a report).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "xprt/blocks/rqtree.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: reproducible. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static int setup_tree(void **state)
{
	struct lx_xprt_rqtree *t = malloc(sizeof(*t));

	if (!t || lx_xprt_rqtree_init(t)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int teardown_tree(void **state)
{
	lx_xprt_rqtree_destroy(*state);
	free(*state);
	return 0;
}

/* ------------------------------------------------------- invariants */

struct walk {
	bool have_prev;
	uint32_t prev;
	unsigned int nodes;
};

/* Return the black height of @n's subtree, failing on any violation. */
static int check_subtree(const struct lx_xprt_rqnode *n,
			 const struct lx_xprt_rqnode *parent, struct walk *w)
{
	int lh, rh;

	if (!n)
		return 1;
	if (RB_PARENT(n, rb) != parent)
		fail_msg("key %u: parent link broken", n->key);
	if (!n->linked)
		fail_msg("key %u: in the tree but not marked linked", n->key);
	if (RB_COLOR(n, rb) == RB_RED &&
	    ((RB_LEFT(n, rb) && RB_COLOR(RB_LEFT(n, rb), rb) == RB_RED) ||
	     (RB_RIGHT(n, rb) && RB_COLOR(RB_RIGHT(n, rb), rb) == RB_RED)))
		fail_msg("key %u: red node with a red child", n->key);
	lh = check_subtree(RB_LEFT(n, rb), n, w);
	if (w->have_prev && w->prev >= n->key)
		fail_msg("in-order keys not increasing: %u then %u", w->prev,
			 n->key);
	w->have_prev = true;
	w->prev = n->key;
	w->nodes++;
	rh = check_subtree(RB_RIGHT(n, rb), n, w);
	if (lh != rh)
		fail_msg("key %u: black heights differ (%d vs %d)", n->key, lh,
			 rh);
	return lh + (RB_COLOR(n, rb) == RB_BLACK);
}

/* Check the whole tree; return the in-order node count. */
static unsigned int check_tree(struct lx_xprt_rqtree *t)
{
	struct walk w = {0};
	const struct lx_xprt_rqnode *root = RB_ROOT(&t->root);

	if (root && RB_COLOR(root, rb) != RB_BLACK)
		fail_msg("root is red");
	check_subtree(root, NULL, &w);
	if (w.nodes != lx_xprt_rqtree_count(t))
		fail_msg("walk found %u nodes, count says %u", w.nodes,
			 lx_xprt_rqtree_count(t));
	return w.nodes;
}

/* ------------------------------------------------------- basic contract */

static void test_insert_lookup_erase_roundtrip(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a, b;

	lx_xprt_rqnode_init(&a);
	lx_xprt_rqnode_init(&b);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 10), 0);
	assert_int_equal(lx_xprt_rqtree_insert(t, &b, 20), 0);
	assert_int_equal(lx_xprt_rqtree_count(t), 2);
	assert_true(a.linked);
	assert_int_equal(a.key, 10);

	assert_ptr_equal(lx_xprt_rqtree_lookup_pin(t, 20), &b);
	assert_int_equal(atomic_load(&b.pins), 1);
	assert_ptr_equal(lx_xprt_rqtree_lookup_pin(t, 20), &b);
	assert_int_equal(atomic_load(&b.pins), 2);
	lx_xprt_rqtree_unpin(t, &b);
	lx_xprt_rqtree_unpin(t, &b);
	assert_int_equal(atomic_load(&b.pins), 0);

	assert_true(lx_xprt_rqtree_erase(t, &a));
	assert_false(a.linked);
	assert_int_equal(lx_xprt_rqtree_count(t), 1);
	assert_null(lx_xprt_rqtree_lookup_pin(t, 10));
	assert_ptr_equal(lx_xprt_rqtree_lookup_pin(t, 20), &b);
	lx_xprt_rqtree_unpin(t, &b);
	assert_true(lx_xprt_rqtree_erase(t, &b));
	assert_int_equal(lx_xprt_rqtree_count(t), 0);
	check_tree(t);
}

static void test_duplicate_key_returns_eexist_and_changes_nothing(void **st)
{
	struct lx_xprt_rqtree *t = *st;
	struct lx_xprt_rqnode a, b;

	lx_xprt_rqnode_init(&a);
	lx_xprt_rqnode_init(&b);
	b.key = 77;
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 5), 0);
	assert_int_equal(lx_xprt_rqtree_insert(t, &b, 5), -EEXIST);
	assert_false(b.linked);
	assert_int_equal(b.key, 77);
	assert_int_equal(lx_xprt_rqtree_count(t), 1);
	assert_ptr_equal(lx_xprt_rqtree_lookup_pin(t, 5), &a);
	lx_xprt_rqtree_unpin(t, &a);
	assert_true(lx_xprt_rqtree_erase(t, &a));
}

static void test_insert_of_linked_node_returns_einval(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 1), 0);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 2), -EINVAL);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 1), -EINVAL);
	assert_int_equal(a.key, 1);
	assert_int_equal(lx_xprt_rqtree_count(t), 1);
	assert_null(lx_xprt_rqtree_lookup_pin(t, 2));
	assert_true(lx_xprt_rqtree_erase(t, &a));
	/* Unlinked again: the node may be reused under another key. */
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 2), 0);
	assert_true(lx_xprt_rqtree_erase(t, &a));
}

static void test_unknown_keys_are_counted(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 3), 0);
	assert_null(lx_xprt_rqtree_lookup_pin(t, 4));
	assert_null(lx_xprt_rqtree_lookup_pin(t, 0xffffffffu));
	assert_non_null(lx_xprt_rqtree_lookup_pin(t, 3));
	lx_xprt_rqtree_unpin(t, &a);
	assert_int_equal(atomic_load(&t->lookups), 3);
	assert_int_equal(atomic_load(&t->unknown), 2);
	assert_true(lx_xprt_rqtree_erase(t, &a));
}

static void test_erase_of_unlinked_node_returns_false(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a, b;

	lx_xprt_rqnode_init(&a);
	lx_xprt_rqnode_init(&b);
	assert_false(lx_xprt_rqtree_erase(t, &a));
	assert_int_equal(lx_xprt_rqtree_insert(t, &b, 9), 0);
	assert_true(lx_xprt_rqtree_erase(t, &b));
	assert_false(lx_xprt_rqtree_erase(t, &b));
	assert_int_equal(lx_xprt_rqtree_count(t), 0);
}

static void test_keys_order_as_unsigned_32_bit(void **state)
{
	static const uint32_t keys[] = {0x80000000u, 1, 0xffffffffu, 0,
					0x7fffffffu};
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode n[5];
	const struct lx_xprt_rqnode *m;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		lx_xprt_rqnode_init(&n[i]);
		assert_int_equal(lx_xprt_rqtree_insert(t, &n[i], keys[i]), 0);
	}
	check_tree(t);
	/* The leftmost node is key 0, the rightmost 0xffffffff. */
	for (m = RB_ROOT(&t->root); RB_LEFT(m, rb); m = RB_LEFT(m, rb))
		;
	assert_int_equal(m->key, 0);
	for (m = RB_ROOT(&t->root); RB_RIGHT(m, rb); m = RB_RIGHT(m, rb))
		;
	assert_int_equal(m->key, 0xffffffffu);
	for (i = 0; i < 5; i++) {
		assert_ptr_equal(lx_xprt_rqtree_lookup_pin(t, keys[i]), &n[i]);
		lx_xprt_rqtree_unpin(t, &n[i]);
		assert_true(lx_xprt_rqtree_erase(t, &n[i]));
	}
}

static void test_unbalanced_unpin_does_not_wrap(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 1), 0);
	lx_xprt_rqtree_unpin(t, &a);
	assert_int_equal(atomic_load(&a.pins), 0);
	assert_true(lx_xprt_rqtree_erase(t, &a));
	/* Would hang forever had the count wrapped. */
	lx_xprt_rqtree_wait_unpinned(t, &a);
}

static void test_null_arguments_are_rejected(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_init(NULL), -EINVAL);
	assert_int_equal(lx_xprt_rqtree_insert(NULL, &a, 1), -EINVAL);
	assert_int_equal(lx_xprt_rqtree_insert(t, NULL, 1), -EINVAL);
	assert_null(lx_xprt_rqtree_lookup_pin(NULL, 1));
	assert_false(lx_xprt_rqtree_erase(NULL, &a));
	assert_false(lx_xprt_rqtree_erase(t, NULL));
	assert_int_equal(lx_xprt_rqtree_count(NULL), 0);
	lx_xprt_rqtree_unpin(NULL, &a);
	lx_xprt_rqtree_unpin(t, NULL);
	lx_xprt_rqtree_wait_unpinned(NULL, &a);
	lx_xprt_rqtree_wait_unpinned(t, NULL);
	lx_xprt_rqnode_init(NULL);
	lx_xprt_rqtree_destroy(NULL);
	/* Nothing above touched the tree or its counters. */
	assert_int_equal(lx_xprt_rqtree_count(t), 0);
	assert_int_equal(atomic_load(&t->lookups), 0);
	assert_false(a.linked);
}

/* ------------------------------------------------------- random churn */

#define CHURN_NODES 3000

static void test_rb_invariants_hold_after_random_churn(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode *n = calloc(CHURN_NODES, sizeof(*n));
	uint64_t seed = 0x243f6a8885a308d3ull;
	unsigned int i, op, linked = 0;

	assert_non_null(n);
	for (i = 0; i < CHURN_NODES; i++)
		lx_xprt_rqnode_init(&n[i]);
	for (op = 0; op < 60000; op++) {
		i = (unsigned int)(rnd(&seed) % CHURN_NODES);
		if (n[i].linked) {
			assert_true(lx_xprt_rqtree_erase(t, &n[i]));
			linked--;
		} else {
			/* Keys across the whole 32-bit range, unique by
			 * construction: the node index (< 4096) is in the
			 * low bits. */
			uint32_t key = (uint32_t)(rnd(&seed) << 12) | i;

			assert_int_equal(lx_xprt_rqtree_insert(t, &n[i], key),
					 0);
			linked++;
		}
		if (op % 2000 == 0)
			assert_int_equal(check_tree(t), linked);
	}
	assert_int_equal(check_tree(t), linked);
	for (i = 0; i < CHURN_NODES; i++) {
		struct lx_xprt_rqnode *f;

		if (!n[i].linked)
			continue;
		f = lx_xprt_rqtree_lookup_pin(t, n[i].key);
		assert_ptr_equal(f, &n[i]);
		lx_xprt_rqtree_unpin(t, f);
	}
	for (i = 0; i < CHURN_NODES; i++)
		if (n[i].linked)
			assert_true(lx_xprt_rqtree_erase(t, &n[i]));
	assert_int_equal(check_tree(t), 0);
	free(n);
}

/* ------------------------------------------------------- pin and wait */

struct pin_ctx {
	struct lx_xprt_rqtree *t;
	atomic_bool pinned;
	atomic_bool unpinning;
	atomic_bool saw_waiter;
};

static void *pin_holder(void *arg)
{
	struct pin_ctx *c = arg;
	struct lx_xprt_rqnode *n = lx_xprt_rqtree_lookup_pin(c->t, 42);
	uint64_t deadline = now_ns() + 5000000000ull;

	if (!n)
		return NULL;
	atomic_store(&c->pinned, true);
	/* Hold the pin until the main thread is really asleep in
	 * wait_unpinned, so the slow path is what gets tested. */
	while (!atomic_load(&c->t->waiters) && now_ns() < deadline)
		usleep(1000);
	atomic_store(&c->saw_waiter, atomic_load(&c->t->waiters) == 1);
	usleep(50000);
	atomic_store(&c->unpinning, true);
	lx_xprt_rqtree_unpin(c->t, n);
	return NULL;
}

static void test_wait_unpinned_blocks_until_other_thread_unpins(void **st)
{
	struct pin_ctx c = {.t = *st};
	struct lx_xprt_rqnode a;
	pthread_t th;
	uint64_t t0;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_insert(c.t, &a, 42), 0);
	assert_int_equal(pthread_create(&th, NULL, pin_holder, &c), 0);
	while (!atomic_load(&c.pinned))
		usleep(1000);
	assert_true(lx_xprt_rqtree_erase(c.t, &a));
	t0 = now_ns();
	lx_xprt_rqtree_wait_unpinned(c.t, &a);
	/* Returned only after the other thread began its unpin. */
	assert_true(atomic_load(&c.unpinning));
	assert_int_equal(atomic_load(&a.pins), 0);
	assert_true(now_ns() - t0 >= 40000000ull);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(atomic_load(&c.saw_waiter));
	assert_int_equal(atomic_load(&c.t->waiters), 0);
}

static void test_wait_unpinned_returns_at_once_without_pins(void **state)
{
	struct lx_xprt_rqtree *t = *state;
	struct lx_xprt_rqnode a;

	lx_xprt_rqnode_init(&a);
	assert_int_equal(lx_xprt_rqtree_insert(t, &a, 1), 0);
	assert_non_null(lx_xprt_rqtree_lookup_pin(t, 1));
	lx_xprt_rqtree_unpin(t, &a);
	assert_true(lx_xprt_rqtree_erase(t, &a));
	lx_xprt_rqtree_wait_unpinned(t, &a);
	assert_int_equal(atomic_load(&t->waiters), 0);
}

/* ------------------------------------------------ concurrent lookups */

#define CONC_REQS    64
#define CONC_READERS 3

/* A request as a transport would hold it: linkage plus a payload that the
 * reader touches while pinned and the owner rewrites between lives. */
struct conc_req {
	struct lx_xprt_rqnode node;
	uint32_t key;	     /* plain: written by the owner between lives */
	unsigned int alive;  /* plain: 0 while the owner recycles it */
	atomic_uint touched; /* readers that placed a "reply" */
};

struct conc_ctx {
	struct lx_xprt_rqtree *t;
	struct conc_req reqs[CONC_REQS];
	atomic_bool stop;
	atomic_uint started;
	atomic_uint found;
	atomic_uint bad;
	uint32_t key_span;
};

static void *conc_reader(void *arg)
{
	struct conc_ctx *c = arg;
	uint64_t seed = (uint64_t)(uintptr_t)&seed | 1;

	atomic_fetch_add(&c->started, 1);

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		uint32_t key = (uint32_t)(rnd(&seed) % c->key_span);
		struct lx_xprt_rqnode *n = lx_xprt_rqtree_lookup_pin(c->t, key);
		struct conc_req *r;

		if (!n)
			continue;
		r = (struct conc_req *)((char *)n -
					offsetof(struct conc_req, node));
		/* The owner must not recycle it while we hold the pin. */
		if (!r->alive || r->key != key)
			atomic_fetch_add(&c->bad, 1);
		atomic_fetch_add_explicit(&r->touched, 1, memory_order_relaxed);
		if ((key & 7) == 0)
			sched_yield(); /* hold some pins for longer */
		lx_xprt_rqtree_unpin(c->t, n);
		atomic_fetch_add_explicit(&c->found, 1, memory_order_relaxed);
	}
	return NULL;
}

static void test_concurrent_lookups_race_erase_and_reuse(void **state)
{
	struct conc_ctx *c = calloc(1, sizeof(*c));
	pthread_t th[CONC_READERS];
	uint64_t seed = 7, deadline;
	bool used[CONC_REQS * 2] = {false};
	unsigned int i, cycles = 0, waited = 0;
	uint32_t next_key;

	assert_non_null(c);
	c->t = *state;
	c->key_span = CONC_REQS * 2; /* half the lookups miss */
	for (i = 0; i < CONC_REQS; i++) {
		struct conc_req *r = &c->reqs[i];

		lx_xprt_rqnode_init(&r->node);
		r->key = i;
		r->alive = 1;
		assert_int_equal(lx_xprt_rqtree_insert(c->t, &r->node, i), 0);
		used[i] = true;
	}
	next_key = CONC_REQS;
	for (i = 0; i < CONC_READERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, conc_reader, c),
				 0);

	/* The owner: retire a random request, wait out its pins, rewrite
	 * the payload (a data race under TSan if the wait were wrong) and
	 * bring it back under a fresh key. */
	while (atomic_load(&c->started) < CONC_READERS)
		usleep(1000);
	/* Run until both sides did real work (or for at most 3 s, which
	 * only a starved machine reaches; the asserts below then tell). */
	deadline = now_ns() + 3000000000ull;
	while ((cycles < 20000 || atomic_load(&c->found) < 20000) &&
	       now_ns() < deadline) {
		struct conc_req *r = &c->reqs[rnd(&seed) % CONC_REQS];

		uint32_t old_key = r->key;

		assert_true(lx_xprt_rqtree_erase(c->t, &r->node));
		if (atomic_load(&r->node.pins))
			waited++;
		lx_xprt_rqtree_wait_unpinned(c->t, &r->node);
		r->alive = 0;
		r->key = next_key;
		r->alive = 1;
		assert_int_equal(
			lx_xprt_rqtree_insert(c->t, &r->node, next_key), 0);
		used[old_key] = false;
		used[next_key] = true;
		/* Next key not held by another request. */
		while (used[next_key])
			next_key = (next_key + 1) % c->key_span;
		cycles++;
	}
	atomic_store(&c->stop, true);
	for (i = 0; i < CONC_READERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);

	print_message("%u recycles (%u found pinned), %u pinned lookups\n",
		      cycles, waited, atomic_load(&c->found));
	assert_int_equal(atomic_load(&c->bad), 0);
	assert_true(cycles > 100);
	assert_true(atomic_load(&c->found) > 100);
	assert_int_equal(check_tree(c->t), CONC_REQS);
	for (i = 0; i < CONC_REQS; i++) {
		assert_int_equal(atomic_load(&c->reqs[i].node.pins), 0);
		assert_true(lx_xprt_rqtree_erase(c->t, &c->reqs[i].node));
	}
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup_tree, teardown_tree)
		T(test_insert_lookup_erase_roundtrip),
		T(test_duplicate_key_returns_eexist_and_changes_nothing),
		T(test_insert_of_linked_node_returns_einval),
		T(test_unknown_keys_are_counted),
		T(test_erase_of_unlinked_node_returns_false),
		T(test_keys_order_as_unsigned_32_bit),
		T(test_unbalanced_unpin_does_not_wrap),
		T(test_null_arguments_are_rejected),
		T(test_rb_invariants_hold_after_random_churn),
		T(test_wait_unpinned_blocks_until_other_thread_unpins),
		T(test_wait_unpinned_returns_at_once_without_pins),
		T(test_concurrent_lookups_race_erase_and_reuse),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
