// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reply index: in-flight requests by 32-bit key.
 *
 * Design
 * ------
 * A red-black tree (libbsd's <bsd/sys/tree.h>, generated static here) of
 * nodes embedded in the requests, ordered by key as an unsigned 32-bit
 * number, under one mutex held only for the O(log n) walk.  Nothing is
 * allocated: the node lives in the request.
 *
 * Lifetime is explicit.  A lookup pins the node it found while still
 * holding the lock, so an eraser that takes the lock afterwards either
 * finds the node already pinned or removes it before the lookup can see it.
 * The receiver then places the reply without the lock and unpins.  The
 * owner erases the node and calls lx_xprt_rqtree_wait_unpinned() before it
 * frees or reuses the request.
 *
 * Unpin is the hot side and usually nobody waits, so it must not take the
 * lock or signal the condvar every time.  It decrements the pin count and
 * only when that reaches zero looks at the tree's @waiters count; a waiter
 * registers in @waiters before it reads the pin count.  This is the
 * store-then-load pattern on two variables, which needs sequentially
 * consistent ordering on both sides (a release/acquire pair is not
 * enough: each side could read the other's old value):
 *
 *   waiter (holds lock)            unpinner
 *   waiters++            (sc)      pins--              (sc)
 *   read pins            (sc)      read waiters        (sc)
 *   pins != 0: cond_wait           pins hit 0 and waiters != 0:
 *                                    lock, broadcast, unlock
 *
 * In the single total order of these four operations, if the waiter read a
 * non-zero pin count then the last decrement comes after that read, hence
 * after the waiters++, so the unpinner sees waiters != 0.  The unpinner
 * then needs the lock, which the waiter holds until cond_wait releases it
 * atomically with going to sleep: the broadcast cannot fall between the
 * check and the sleep.  The unpinner touches only the tree (never the
 * node) after its decrement, so the waiter may free the request as soon
 * as it sees zero.
 */
#include <errno.h>
#include <string.h>

#include "xprt/blocks/rqtree.h"

static int lx_xprt_rqnode_cmp(const struct lx_xprt_rqnode *a,
			      const struct lx_xprt_rqnode *b)
{
	/* No subtraction: keys use all 32 bits. */
	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * RB_GENERATE_STATIC marks the generated functions __unused, a macro libbsd
 * leaves undefined on purpose (glibc structs have members of that name).
 * Define it for this one expansion only, after every system header.
 */
#define __unused __attribute__((__unused__))
RB_GENERATE_STATIC(lx_xprt_rqroot, lx_xprt_rqnode, rb, lx_xprt_rqnode_cmp)
#undef __unused

/**
 * lx_xprt_rqtree_init() - initialise an empty index
 * @t: the index
 *
 * Return: %0; %-EINVAL for NULL @t; or the negated error of
 * pthread_mutex_init()/pthread_cond_init() (nothing to undo then).
 */
int lx_xprt_rqtree_init(struct lx_xprt_rqtree *t)
{
	int err;

	if (!t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	err = pthread_mutex_init(&t->lock, NULL);
	if (err)
		return -err;
	err = pthread_cond_init(&t->unpinned, NULL);
	if (err)
		goto out_mutex;
	RB_INIT(&t->root);
	atomic_init(&t->waiters, 0);
	atomic_init(&t->lookups, 0);
	atomic_init(&t->unknown, 0);
	return 0;

out_mutex:
	pthread_mutex_destroy(&t->lock);
	return -err;
}

/**
 * lx_xprt_rqtree_destroy() - release the index's lock and condvar
 * @t: the index, empty, with no thread inside any of its functions;
 *	NULL is a no-op
 */
void lx_xprt_rqtree_destroy(struct lx_xprt_rqtree *t)
{
	if (!t)
		return;
	pthread_cond_destroy(&t->unpinned);
	pthread_mutex_destroy(&t->lock);
}

/**
 * lx_xprt_rqnode_init() - prepare a node once, before its first insert
 * @n: the node; NULL is a no-op
 */
void lx_xprt_rqnode_init(struct lx_xprt_rqnode *n)
{
	if (!n)
		return;
	memset(&n->rb, 0, sizeof(n->rb));
	n->key = 0;
	n->linked = false;
	atomic_init(&n->pins, 0);
}

/**
 * lx_xprt_rqtree_insert() - link @n under @key
 * See xprt/blocks/rqtree.h.  Also %-EINVAL for NULL @t or @n.
 */
int lx_xprt_rqtree_insert(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n,
			  uint32_t key)
{
	uint32_t old_key;
	int ret = 0;

	if (!t || !n)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	if (n->linked) {
		ret = -EINVAL;
		goto out_unlock;
	}
	old_key = n->key;
	n->key = key;
	if (lx_xprt_rqroot_RB_INSERT(&t->root, n)) {
		n->key = old_key;
		ret = -EEXIST;
		goto out_unlock;
	}
	n->linked = true;
	t->count++;
out_unlock:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/**
 * lx_xprt_rqtree_lookup_pin() - find @key and pin its node
 * See xprt/blocks/rqtree.h.  NULL @t returns NULL without counting.
 */
struct lx_xprt_rqnode *lx_xprt_rqtree_lookup_pin(struct lx_xprt_rqtree *t,
						 uint32_t key)
{
	struct lx_xprt_rqnode probe, *n;

	if (!t)
		return NULL;
	probe.key = key;
	atomic_fetch_add_explicit(&t->lookups, 1, memory_order_relaxed);
	pthread_mutex_lock(&t->lock);
	n = lx_xprt_rqroot_RB_FIND(&t->root, &probe);
	/* Pin under the lock: an eraser serialised after us sees the pin. */
	if (n)
		atomic_fetch_add_explicit(&n->pins, 1, memory_order_relaxed);
	pthread_mutex_unlock(&t->lock);
	if (!n)
		atomic_fetch_add_explicit(&t->unknown, 1, memory_order_relaxed);
	return n;
}

/**
 * lx_xprt_rqtree_has() - whether @key is linked
 * See xprt/blocks/rqtree.h.
 */
bool lx_xprt_rqtree_has(struct lx_xprt_rqtree *t, uint32_t key)
{
	struct lx_xprt_rqnode probe;
	bool found;

	if (!t)
		return false;
	probe.key = key;
	pthread_mutex_lock(&t->lock);
	found = lx_xprt_rqroot_RB_FIND(&t->root, &probe) != NULL;
	pthread_mutex_unlock(&t->lock);
	return found;
}

/**
 * lx_xprt_rqtree_unpin() - drop a pin taken by lx_xprt_rqtree_lookup_pin()
 * See xprt/blocks/rqtree.h.  NULL arguments, or a node with no pin, are ignored.
 */
void lx_xprt_rqtree_unpin(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n)
{
	unsigned int pins;

	if (!t || !n)
		return;
	/* A CAS rather than a fetch_sub so that an unbalanced unpin cannot
	 * wrap the count and make a waiter sleep forever. */
	pins = atomic_load_explicit(&n->pins, memory_order_relaxed);
	do {
		if (!pins)
			return;
	} while (!atomic_compare_exchange_weak_explicit(
		&n->pins, &pins, pins - 1, memory_order_seq_cst,
		memory_order_relaxed));
	/* From here on @n may already be freed by a waiter: use @t only. */
	if (pins == 1 &&
	    atomic_load_explicit(&t->waiters, memory_order_seq_cst)) {
		pthread_mutex_lock(&t->lock);
		pthread_cond_broadcast(&t->unpinned);
		pthread_mutex_unlock(&t->lock);
	}
}

/**
 * lx_xprt_rqtree_erase() - unlink @n if it is linked
 * See xprt/blocks/rqtree.h.  NULL arguments return false.
 */
bool lx_xprt_rqtree_erase(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n)
{
	bool was_linked;

	if (!t || !n)
		return false;
	pthread_mutex_lock(&t->lock);
	was_linked = n->linked;
	if (was_linked) {
		lx_xprt_rqroot_RB_REMOVE(&t->root, n);
		n->linked = false;
		t->count--;
	}
	pthread_mutex_unlock(&t->lock);
	return was_linked;
}

/**
 * lx_xprt_rqtree_wait_unpinned() - wait until no lookup holds @n
 * See xprt/blocks/rqtree.h.  NULL arguments return at once.
 */
void lx_xprt_rqtree_wait_unpinned(struct lx_xprt_rqtree *t,
				  struct lx_xprt_rqnode *n)
{
	if (!t || !n)
		return;
	/* Fast path: no pin, nothing to register for. */
	if (!atomic_load_explicit(&n->pins, memory_order_seq_cst))
		return;
	pthread_mutex_lock(&t->lock);
	atomic_fetch_add_explicit(&t->waiters, 1, memory_order_seq_cst);
	while (atomic_load_explicit(&n->pins, memory_order_seq_cst))
		pthread_cond_wait(&t->unpinned, &t->lock);
	atomic_fetch_sub_explicit(&t->waiters, 1, memory_order_relaxed);
	pthread_mutex_unlock(&t->lock);
}

/**
 * lx_xprt_rqtree_count() - linked nodes
 * See xprt/blocks/rqtree.h.  0 for NULL @t.
 */
unsigned int lx_xprt_rqtree_count(struct lx_xprt_rqtree *t)
{
	unsigned int count;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	count = t->count;
	pthread_mutex_unlock(&t->lock);
	return count;
}
