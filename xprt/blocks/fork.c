// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fork generation (fork.h).  One handler, registered once, counts the
 * children: a child's objects then differ from the ones it inherited.
 * glibc registers a handler of a shared object under its __dso_handle, so
 * a dlclose() of the library takes it away with the code.
 */
#include <pthread.h>

#include "xprt/blocks/fork.h"

atomic_uint lx_xprt__fork_gen;

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* in the child, which has one thread: a relaxed store is enough, every
 * thread it makes later is ordered after it by pthread_create() */
static void fork_child(void)
{
	atomic_store_explicit(
		&lx_xprt__fork_gen,
		atomic_load_explicit(&lx_xprt__fork_gen, memory_order_relaxed) +
			1,
		memory_order_relaxed);
}

static void fork_register(void)
{
	/* ENOMEM only: forks are then not told apart, as before */
	(void)pthread_atfork(NULL, NULL, fork_child);
}

unsigned int lx_xprt__fork_watch(void)
{
	pthread_once(&fork_once, fork_register);
	return atomic_load_explicit(&lx_xprt__fork_gen, memory_order_relaxed);
}
