// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reply index: which in-flight request a reply's key belongs to.
 */
#include <errno.h>

#include "xprt/core/xprt_int.h"

/*
 * The reply index maps a reply's key to its request.  Protocols choose
 * keys whose bits under key_mask (the smallest power of two that covers
 * the slots, minus one) are the request's slot: a 9P tag is the slot, an
 * RPC XID carries it in its low bits.  Such a key is found by reading
 * that one slot's ix word, which holds the key, a linked bit and the pins
 * of receivers: linking, lookup-and-pin, unlinking and unpinning are each
 * one compare-and-swap (or atomic add) on it, with no lock and no search.
 * Any other key (a protocol's own scheme, 9P's NOTAG for Tversion) goes
 * to the rbtree of rqtree.c, under its mutex, which lookups consult only
 * while tree_keys says it holds something.
 *
 * A stale reply for a slot since reused finds a different key and is
 * refused; a reply with the key of the request now in the slot belongs
 * to it by definition (the same key is the same call), so the word
 * needs no generation beyond the key.  A key is in one index or the
 * other, never both: a foreign key equal to a linked direct one, or the
 * reverse, is refused with -EEXIST (each side publishes itself before it
 * looks at the other, with sequentially consistent operations, so two
 * racing submits of one key cannot both succeed).
 */

static uint32_t ix_key(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

/* The request whose slot a direct key names, or NULL. */
static struct lx_xprt_rqst *ix_slot_of(struct lx_xprt *x, uint32_t key)
{
	uint32_t s = key & x->key_mask;

	return s < x->max_reqs ? lx_xprt_slot(x, s) : NULL;
}

/* Whether a direct entry other than @self holds @key. */
static bool ix_direct_has(struct lx_xprt *x, uint32_t key,
			  struct lx_xprt_rqst *self)
{
	struct lx_xprt_rqst *rq = ix_slot_of(x, key);
	uint64_t v;

	if (!rq || rq == self)
		return false;
	v = atomic_load(&rq->ix);
	return (v & LX_XPRT_IX_LINKED) && ix_key(v) == key;
}

static void ix_direct_clear(struct lx_xprt_rqst *rq)
{
	atomic_fetch_and(&rq->ix, ~(uint64_t)LX_XPRT_IX_LINKED);
}

int lx_xprt_ix_link(struct lx_xprt *x, struct lx_xprt_rqst *rq, uint32_t key)
{
	uint64_t v, nv;
	int err;

	/*
	 * @ix_tree is written only when it changes: an orphan's relink
	 * (rq_end_unreplied()) keeps its key, so its branch, and may run
	 * while the thread that decided its outcome unlinks it.
	 */
	if (lx_xprt_likely((key & x->key_mask) == rq->pub.slot)) {
		if (lx_xprt_unlikely(rq->ix_tree))
			rq->ix_tree = false;
		v = atomic_load(&rq->ix);
		do {
			if (v & LX_XPRT_IX_LINKED)
				return -EINVAL;
			nv = (uint64_t)key << 32 | LX_XPRT_IX_LINKED |
			     (v & LX_XPRT_IX_PINS);
		} while (!atomic_compare_exchange_weak(&rq->ix, &v, nv));
		if (lx_xprt_unlikely(atomic_load(&x->tree_keys)) &&
		    lx_xprt_rqtree_has(&x->rqtree, key)) {
			ix_direct_clear(rq);
			return -EEXIST;
		}
		return 0;
	}
	if (!rq->ix_tree)
		rq->ix_tree = true;
	atomic_fetch_add(&x->tree_keys, 1);
	err = ix_direct_has(x, key, rq) ?
		      -EEXIST :
		      lx_xprt_rqtree_insert(&x->rqtree, &rq->rqnode, key);
	if (err)
		atomic_fetch_sub(&x->tree_keys, 1);
	return err;
}

bool lx_xprt_rx_unlink(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	uint64_t v;

	if (lx_xprt_unlikely(rq->ix_tree)) {
		if (!lx_xprt_rqtree_erase(&x->rqtree, &rq->rqnode))
			return false;
		atomic_fetch_sub(&x->tree_keys, 1);
		return true;
	}
	v = atomic_load(&rq->ix);
	if (!(v & LX_XPRT_IX_LINKED))
		return false;
	v = atomic_fetch_and(&rq->ix, ~(uint64_t)LX_XPRT_IX_LINKED);
	return (v & LX_XPRT_IX_LINKED) != 0;
}

/* Find @key and pin its request; NULL (counted as unknown) when none. */
struct lx_xprt_rqst *lx_xprt_ix_lookup_pin(struct lx_xprt *x, uint32_t key)
{
	struct lx_xprt_rqst *rq = ix_slot_of(x, key);
	struct lx_xprt_rqnode *n;
	uint64_t v;

	if (lx_xprt_likely(rq != NULL)) {
		v = atomic_load(&rq->ix);
		while ((v & LX_XPRT_IX_LINKED) && ix_key(v) == key)
			if (atomic_compare_exchange_weak(&rq->ix, &v, v + 1))
				return rq;
	}
	if (atomic_load(&x->tree_keys)) {
		n = lx_xprt_rqtree_lookup_pin(&x->rqtree, key);
		return n ? lx_xprt_container_of(n, struct lx_xprt_rqst,
						rqnode) :
			   NULL;
	}
	atomic_fetch_add_explicit(&x->rqtree.unknown, 1, memory_order_relaxed);
	return NULL;
}
