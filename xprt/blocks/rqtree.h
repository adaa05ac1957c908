/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reply index: in-flight requests by 32-bit key (RPC XID or 9P tag).
 *
 * An intrusive red-black tree (libbsd's <bsd/sys/tree.h> macros) under one
 * short-held mutex.  The protocol inserts a request *before* sending it, so
 * a fast reply always finds it.  The receiver looks a key up and pins the
 * node (a counter in the node): while pinned, the request's memory and its
 * reply destination stay valid even if a canceller erases it at the same
 * moment, because the canceller waits for the pins to drop before it lets
 * the request go.  Unknown keys are counted (a server bug or an attack).
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_RQTREE_H
#define LX_XPRT_RQTREE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <bsd/sys/tree.h>

/**
 * struct lx_xprt_rqnode - tree linkage embedded in a request
 * @rb: red-black links
 * @key: the key while linked
 * @linked: in a tree now (protected by the tree lock)
 * @pins: lookups that still use the node
 */
struct lx_xprt_rqnode {
	RB_ENTRY(lx_xprt_rqnode) rb;
	uint32_t key;
	bool linked;
	atomic_uint pins;
};

RB_HEAD(lx_xprt_rqroot, lx_xprt_rqnode);

/**
 * struct lx_xprt_rqtree - the index
 * @lock: protects @root, @count and every node's @linked
 * @unpinned: signalled when a pin drops while someone waits for it
 * @root: the tree
 * @count: linked nodes
 * @waiters: threads inside lx_xprt_rqtree_wait_unpinned(); while it is 0,
 *	lx_xprt_rqtree_unpin() neither locks nor signals (see rqtree.c for the
 *	ordering that makes this safe)
 * @lookups: lookups done
 * @unknown: lookups of keys not in the tree
 */
struct lx_xprt_rqtree {
	pthread_mutex_t lock;
	pthread_cond_t unpinned;
	struct lx_xprt_rqroot root;
	unsigned int count;
	atomic_uint waiters;
	atomic_ullong lookups;
	atomic_ullong unknown;
};

/**
 * lx_xprt_rqtree_init() - initialise an empty index
 * Return: %0; %-EINVAL for NULL @t; or a negative errno from pthreads.
 */
int lx_xprt_rqtree_init(struct lx_xprt_rqtree *t);

/**
 * lx_xprt_rqtree_destroy() - the tree must be empty and no thread inside any
 * of its functions; NULL is a no-op
 */
void lx_xprt_rqtree_destroy(struct lx_xprt_rqtree *t);

/**
 * lx_xprt_rqnode_init() - prepare a node once, before first use (not while it
 * is linked or pinned); NULL is a no-op
 */
void lx_xprt_rqnode_init(struct lx_xprt_rqnode *n);

/**
 * lx_xprt_rqtree_insert() - link @n under @key
 * Context: any thread; takes the tree lock.  A node is in one tree at a
 * time (@linked is protected by the lock of the tree it is in).
 * Return: %0; %-EEXIST when @key is already linked (nothing changes);
 * %-EINVAL when @n is already linked, or @t or @n is NULL.
 */
int lx_xprt_rqtree_insert(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n,
			  uint32_t key);

/**
 * lx_xprt_rqtree_lookup_pin() - find @key and pin its node
 * Context: any thread; takes the tree lock briefly.
 * Return: the node, pinned (the caller must lx_xprt_rqtree_unpin() it), or
 * NULL when no node has @key (counted in @unknown) or @t is NULL.
 */
struct lx_xprt_rqnode *lx_xprt_rqtree_lookup_pin(struct lx_xprt_rqtree *t,
						 uint32_t key);

/**
 * lx_xprt_rqtree_unpin() - drop a pin taken by lx_xprt_rqtree_lookup_pin()
 * Context: any thread; never blocks for long: it takes the tree lock only
 * when it drops the last pin while a thread waits in
 * lx_xprt_rqtree_wait_unpinned().  After it, the caller must not touch @n
 * (its owner may free it at once).  NULL arguments, or a node without
 * pins, are ignored (the count never wraps).
 */
void lx_xprt_rqtree_unpin(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n);

/**
 * lx_xprt_rqtree_erase() - unlink @n if it is linked
 * Context: any thread; takes the tree lock.
 * Return: true when this call unlinked it, false when it was not linked
 * (or an argument is NULL).  Pins survive the erase: call
 * lx_xprt_rqtree_wait_unpinned() before freeing.
 */
bool lx_xprt_rqtree_erase(struct lx_xprt_rqtree *t, struct lx_xprt_rqnode *n);

/**
 * lx_xprt_rqtree_wait_unpinned() - wait until no lookup holds @n
 *
 * Call after lx_xprt_rqtree_erase(), before reusing or freeing the request,
 * from a thread that holds no pin on @n itself.
 * Context: may block (briefly: pins are held only while a reply is placed);
 * returns without locking when @n has no pin.  NULL arguments return at
 * once.
 */
void lx_xprt_rqtree_wait_unpinned(struct lx_xprt_rqtree *t,
				  struct lx_xprt_rqnode *n);

/**
 * lx_xprt_rqtree_has() - whether a node is linked under @key (neither
 * pinned nor counted as a lookup)
 * Context: any thread; takes the tree lock briefly.  False for NULL @t.
 */
bool lx_xprt_rqtree_has(struct lx_xprt_rqtree *t, uint32_t key);

/** lx_xprt_rqtree_count() - linked nodes (under the lock); 0 for NULL @t */
unsigned int lx_xprt_rqtree_count(struct lx_xprt_rqtree *t);

#endif /* LX_XPRT_RQTREE_H */
