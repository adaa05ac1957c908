/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal view of the tag allocator, shared by its three files: the map
 * (xprt/blocks/tags_map.c: words, hints, taking a bit), the waiting
 * (xprt/blocks/tags_wait.c: wait queues, hand-off, batching, barging) and the API
 * on both (xprt/blocks/tags.c: create, get/put fast paths, resize, stats).
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_TAGS_INT_H
#define LX_XPRT_TAGS_INT_H

#include <libxprt/proto/tags.h>

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "xprt/blocks/util.h"

#define TAGS_WORD_BITS	 ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define TAGS_WAIT_QUEUES 8u
#define TAGS_WAKE_BATCH	 8u
/* Most waiters served per queue-lock hold; bounds the wake-up array too. */
#define TAGS_GRANT_CHUNK 8u

#define TAGS_CLOSED	 0x80000000u
#define TAGS_WAIT_COUNT	 0x7fffffffu

/*
 * struct tags_waiter.done: 0 waiting, 1 served, 2 asleep on the futex,
 * 3 nudged (barging mode: a tag was freed, come and try for it)
 */
#define TAGS_W_WAITING	 0u
#define TAGS_W_DONE	 1u
#define TAGS_W_ASLEEP	 2u
#define TAGS_W_NUDGED	 3u

struct tags_word {
	_Atomic unsigned long word;    /* set: allocated (or pending clear) */
	_Atomic unsigned long cleared; /* set: put, not yet folded into word */
	_Atomic uint64_t folded;       /* stats: bits folded back so far */
} lx_xprt_cacheline_aligned;

struct tags_waiter {
	TAILQ_ENTRY(tags_waiter) link;
	_Atomic uint32_t done; /* futex word, TAGS_W_* */
	int result;	       /* tag or -ESHUTDOWN, valid once done */
	bool starving; /* counted in lx_xprt_tags.starving (queue lock) */
};

TAILQ_HEAD(tags_wlist, tags_waiter);

struct tags_waitq {
	pthread_mutex_t lock;
	struct tags_wlist list;
	_Atomic unsigned int len; /* written under lock, read as a hint */
} lx_xprt_cacheline_aligned;

struct lx_xprt_tags {
	/* read-mostly */
	struct tags_word *words;
	unsigned int max_depth;
	unsigned int shift;
	unsigned int nr_words;
	unsigned int wake_batch;
	_Atomic unsigned int depth;

	/* read by every fast path, written only when waiters come and go */
	_Atomic uint32_t waiters lx_xprt_cacheline_aligned;
	/* barging mode: 0 = strict FIFO; else the longest a waiter may be
	 * overtaken (ns) */
	_Atomic uint64_t barge_ns;
	_Atomic uint32_t starving; /* waiters queued longer than barge_ns */
	_Atomic uint32_t nudge;	   /* a nudged waiter has yet to look */

	/* written only while threads wait */
	_Atomic unsigned int completion_cnt lx_xprt_cacheline_aligned;
	_Atomic unsigned int wakeup_cnt;
	_Atomic unsigned int wake_index;
	_Atomic unsigned int wait_index;

	_Atomic uint64_t fails lx_xprt_cacheline_aligned;
	_Atomic uint64_t waits, wakeups, wake_batches, bad_puts;

	struct tags_waitq wq[TAGS_WAIT_QUEUES];
};

/* the map (tags_map.c) */

/* The calling thread's search hint (a put stores the tag it frees) and
 * whether it was seeded; hidden, so the accesses cost what a static's do. */
extern _Thread_local unsigned int lx_xprt_tags__tls_hint
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
extern _Thread_local bool lx_xprt_tags__tls_seeded
	__attribute__((visibility("hidden"), tls_model("initial-exec")));
/* The word shift for a map of @depth tags (see tags.c). */
unsigned int lx_xprt_tags__calc_shift(unsigned int depth);

/* A starting hint for the calling thread, below @depth. */
unsigned int lx_xprt_tags__hint(unsigned int depth);
/* Take a tag below the depth from @hint on, ignoring fairness; -EAGAIN. */
int lx_xprt_tags__alloc(struct lx_xprt_tags *t, unsigned int hint);
/* The same from the calling thread's hint, which it then advances. */
int lx_xprt_tags__alloc_hinted(struct lx_xprt_tags *t);
/* Held tags (allocated, not put), counting only until @need are found. */
unsigned int lx_xprt_tags__held_at_least(struct lx_xprt_tags *t,
					 unsigned int need);
/* Whether a tag below the depth is free. */
bool lx_xprt_tags__any_free(struct lx_xprt_tags *t);

/* the waiting (tags_wait.c) */

/* Whether a get may overtake waiters now (barging mode, none starving). */
bool lx_xprt_tags__may_barge(struct lx_xprt_tags *t);
/* Serve up to @max queued waiters; return how many were served. */
unsigned int lx_xprt_tags__serve(struct lx_xprt_tags *t, unsigned int max,
				 unsigned int hint);
/* A put that saw waiters: batch and serve, or nudge. */
void lx_xprt_tags__put_wake(struct lx_xprt_tags *t, unsigned int tag);

#endif /* LX_XPRT_TAGS_INT_H */
