/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small mutex for the data path: one word, 0 free, 1 held, 2 held with
 * sleepers (mutex 2 of Drepper's "Futexes Are Tricky").  Taking and
 * dropping it uncontended is a compare-and-swap and a fetch-and-sub,
 * against some twenty instructions each way for glibc's pthread_mutex
 * (type and robustness checks, owner bookkeeping), which the
 * synchronous call pays twice (the transmit lock and the receiver role).
 * No owner, no recursion, no error checking: the callers are the core's
 * few lock sites.  Acquire on taking, release on
 * dropping, so ThreadSanitizer sees the ordering it gives.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_LOCK_H
#define LX_XPRT_LOCK_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

struct lx_xprt_lock {
	atomic_uint w;
};

static inline void lx_xprt_lock_init(struct lx_xprt_lock *l)
{
	atomic_init(&l->w, 0);
}

/** lx_xprt_lock_try() - take @l if it is free; true when taken */
static inline bool lx_xprt_lock_try(struct lx_xprt_lock *l)
{
	unsigned int e = 0;

	return atomic_compare_exchange_strong_explicit(
		&l->w, &e, 1, memory_order_acquire, memory_order_relaxed);
}

/** lx_xprt_lock() - take @l, sleeping while another thread holds it */
static inline void lx_xprt_lock(struct lx_xprt_lock *l)
{
	unsigned int c = 0;

	if (atomic_compare_exchange_strong_explicit(
		    &l->w, &c, 1, memory_order_acquire, memory_order_relaxed))
		return;
	if (c != 2)
		c = atomic_exchange_explicit(&l->w, 2, memory_order_acquire);
	while (c != 0) {
		syscall(SYS_futex, &l->w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = atomic_exchange_explicit(&l->w, 2, memory_order_acquire);
	}
}

/** lx_xprt_unlock() - drop @l, waking a sleeper if there is one */
static inline void lx_xprt_unlock(struct lx_xprt_lock *l)
{
	if (atomic_fetch_sub_explicit(&l->w, 1, memory_order_release) != 1) {
		atomic_store_explicit(&l->w, 0, memory_order_release);
		syscall(SYS_futex, &l->w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

#endif /* LX_XPRT_LOCK_H */
