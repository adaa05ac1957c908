/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process a transport or a pool was made in, across fork().
 *
 * A child of fork() inherits its parent's clients as memory and
 * descriptors only: their threads stay in the parent, their sockets and
 * RDMA objects are the parent's (one open file description, one uverbs
 * context), their locks may be held by threads the child does not have.
 * So an object remembers the fork generation it was made in, and every
 * entry point that would act on it compares that with the process's own:
 * a plain load and a compare, no system call (getpid() is one) and no
 * locked instruction.  The generation is bumped by a pthread_atfork()
 * child handler, registered once before the first object is made.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_FORK_H
#define LX_XPRT_FORK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "xprt/blocks/util.h"

/* the process's fork generation: 0 in the process that loaded the
 * library, bumped in each child (written only there, before the child
 * has a second thread) */
extern atomic_uint lx_xprt__fork_gen __attribute__((visibility("hidden")));

/**
 * lx_xprt__fork_watch() - make sure forks are counted, and return the
 * generation now: what an object made now records
 * Context: any thread; at creation time (a pthread_once() the first time).
 */
unsigned int lx_xprt__fork_watch(void);

/**
 * lx_xprt__fork_other() - whether an object that recorded @gen was made in
 * another process (an ancestor of this one across fork())
 */
static inline bool lx_xprt__fork_other(unsigned int gen)
{
	return lx_xprt_unlikely(
		gen !=
		atomic_load_explicit(&lx_xprt__fork_gen, memory_order_relaxed));
}

struct lx_xprt_tags;

/**
 * lx_xprt__tags_forget() - free a tag map made in the parent of this
 * process: its memory only, no lock taken, no waiter woken (the parent's
 * waiters are not here)
 */
void lx_xprt__tags_forget(struct lx_xprt_tags *t);

#endif /* LX_XPRT_FORK_H */
