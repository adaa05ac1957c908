// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libxprt buffer pool (contract: include/libxprt/pool.h).
 *
 * Three tiers, fastest first:
 *
 *  1. A per-thread cache ("magazine") per pool: an array of up to
 *     POOL_MAG_MAX free buffers that only its owning thread pushes and pops.
 *     A hit takes no lock and no atomic read-modify-write.  Each thread
 *     keeps its magazines in a small table keyed by the pool's 64-bit id,
 *     which is never reused, so a table entry left behind by a destroyed
 *     pool can never be mistaken for a live one even if a new pool lands
 *     at the same address.
 *
 *  2. A shared depot: a Treiber stack of *batches* of buffers (a batch is
 *     a chain of at most mag_cap buffers), so a magazine refills or spills
 *     half of itself with one compare-and-swap.  Pushes are lock-free from
 *     any thread (the receive thread returning buffers that application
 *     threads took); pops take a small depot mutex, which is what rules out
 *     ABA (a popped node cannot be recycled under a concurrent popper).
 *     This is liburcu's lfstack discipline (push: no synchronisation, pop:
 *     mutual exclusion), written with compiler atomics instead of calling
 *     cds_lfs_*: ThreadSanitizer cannot see liburcu 0.13's inline-assembly
 *     atomics, and lfstack writes node->next *inside* cds_lfs_push, after
 *     any annotation a caller could place, so the hand-off could not be
 *     annotated without suppressions.
 *
 *  3. Slabs: when the depot is empty and the budget allows, the getting
 *     thread carves a new slab of slab_bufs buffers (64-byte aligned data,
 *     4096 when the size is a multiple of 4096; 64-byte descriptors kept
 *     apart from the data) and calls the registration hook once for it,
 *     with no pool lock held.
 *
 * Stealing.  Buffers sitting in an idle thread's magazine must not starve
 * a blocked getter.  The owner brackets each magazine operation with
 * busy=1 ... busy=0 and, after setting busy, checks a steal flag; a thief
 * (holding the pool lock) sets steal, issues an asymmetric full barrier
 * (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): every running thread of
 * the process executes a full fence), then waits for busy == 0 and empties
 * the magazine.  Either the owner's busy=1 was visible to the thief, or the
 * owner's later load sees steal=1 and it backs off to the locked slow path.
 * That is a Dekker handshake whose expensive half runs only on the steal
 * path, so the owner's fast path is a plain store, a compiler barrier and
 * a load.  Without membarrier (old kernel, seccomp) the owner sets busy
 * with an atomic exchange instead (XPRT_POOL_NO_MEMBARRIER=1 forces this,
 * for measurement).  Measured first with a stripped-down prototype on this
 * project's 2-vCPU VM, one request (get 2, put 2, including the put's
 * compare-and-swap below) cost 12 ns with the plain-store protocol and
 * 39 ns with an uncontended per-thread spin lock, and 39 ns with per-CPU
 * shards (sched_getcpu() via rseq plus a spin lock): every locked
 * instruction costs ~6.5 ns here, more than the rest of the fast path, so
 * the lock-free owner path was chosen.  A membarrier costs ~9 us, paid
 * only by getters about to block.  The only atomic read-modify-write left
 * on the fast path is the put's compare-and-swap on the descriptor state,
 * which turns a double put racing from two threads into one success and
 * one -EINVAL instead of a buffer cached twice.
 *
 * Waiting.  A getter that finds nothing free and no budget left queues
 * itself FIFO on the pool (under the pool lock), bumps pool->waiters, then
 * re-checks the depot and steals from every other magazine once.  While
 * waiters > 0, puts bypass the magazines: they hand the buffer straight to
 * the oldest waiter, so a newcomer cannot overtake a sleeper and no buffer
 * is hidden while someone waits.  Every other depot push checks waiters
 * after its compare-and-swap (both sides use sequentially consistent
 * operations), so a push racing with a getter going to sleep is seen by
 * one of them.  The first steal after queueing covers puts already inside
 * their fast path when the getter arrived.
 *
 * Lifetime.  Magazines belong to their thread and are linked on the pool
 * (for stealing and statistics) under the pool lock.  A thread-exit
 * destructor (pthread key) flushes them back to their pools; a pool that
 * is destroyed first only unlinks them and clears their pool pointer, and
 * the thread frees the orphan later without touching the dead pool.  One
 * process-wide mutex orders those two events; it is taken only by pool
 * destroy, thread exit and per-thread table eviction (a thread's first
 * call on a pool while it already caches POOL_TC_SLOTS others), never on
 * the fast path.
 *
 * Counters.  gets/puts/misses live in the magazine, written only by its
 * owner, and are summed by lx_xprt_pool_stats().  The high-water mark needs a
 * global view: each magazine folds its net get-put count into one shared
 * counter every POOL_FOLD operations and each get compares shared + local
 * against the mark, so the mark is exact for one thread at a time and at
 * most POOL_FOLD-1 buffers per other thread off under concurrency.
 */
#include "libxprt/proto/pool.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <urcu/list.h>

#include "xprt/blocks/fork.h"
#include "xprt/blocks/util.h"

#define POOL_BUF_MAX	     (64u << 20) /* largest buffer the contract allows */
#define POOL_DEF_BUDGET	     (64u << 20) /* max_bytes 0 */
#define POOL_SLAB_BYTES	     (1u << 20)	 /* default slab size (slab_bufs 0) */
#define POOL_MAG_MAX	     32u	 /* largest per-thread cache */
#define POOL_MAG_BYTES	     (1u << 20) /* bytes one per-thread cache may hold */
#define POOL_TC_SLOTS	     16u	/* pools a thread caches at once */
#define POOL_FOLD	     8		/* high-water fold batch, see above */
/* size classes (a pool created with buf_size 0): 4 KiB .. 8 MiB */
#define POOL_CLASS_MIN_SHIFT 12
#define POOL_CLASSES	     12

/* lx_xprt_buf.state_: 0 never appears in a descriptor we carved */
#define BUF_FREE	     0x5ee1f4eeu
#define BUF_HELD	     0x5ee1d0edu

/*
 * A buffer descriptor: the public part plus the depot link.  The pool's
 * private public-struct fields are used as: slab_ = owning slab, node_[0] =
 * next buffer of the same batch, pad_ = batch length (valid in the batch's
 * first buffer), state_ = BUF_FREE/BUF_HELD.  64 bytes, so two descriptors
 * never share a cache line.
 */
struct pool_desc {
	struct lx_xprt_buf b;
	struct pool_desc *depot_next; /* next batch in the depot */
} lx_xprt_cacheline_aligned;

_Static_assert(sizeof(struct pool_desc) == LX_XPRT_CACHELINE,
	       "descriptor must fill exactly one cache line");

struct pool_slab {
	struct lx_xprt_pool *pool;
	void *data;
	size_t len;
	void *handle; /* from the registration hook */
	uint32_t nbufs;
	struct pool_slab *next;
	struct pool_desc *descs;
};

/* A thread's cache for one pool. */
struct pool_mag {
	/* Owner-written on every operation. */
	uint32_t busy;	/* owner inside a magazine operation */
	uint32_t steal; /* a thief claims the contents (pool lock held) */
	uint32_t n;	/* cached buffers (relaxed atomic: thieves peek) */
	uint32_t cap;
	int64_t delta; /* gets - puts not yet folded into pool->folded */
	uint64_t gets, puts, misses; /* owner-written, summed by stats */
	struct pool_desc *bufs[POOL_MAG_MAX];
	/* Cold: under the pool lock (list, claimed) or the global lock. */
	struct lx_xprt_pool *pool; /* NULL once the pool is destroyed */
	struct cds_list_head node;
	bool claimed;
} lx_xprt_cacheline_aligned;

struct pool_waiter {
	struct cds_list_head node;
	pthread_cond_t cond;
	struct pool_desc *d; /* handed over by a put */
};

struct pool_tc {
	uint64_t id[POOL_TC_SLOTS]; /* 0: empty slot */
	struct pool_mag *mag[POOL_TC_SLOTS];
	unsigned int last, victim;
};

struct lx_xprt_pool {
	/* Read on every get/put, written rarely. */
	uint64_t id;
	uint32_t closed;  /* atomic */
	uint32_t waiters; /* atomic: queued getters */
	uint32_t mag_cap, mag_batch;
	size_t buf_size, stride, align;

	/* High-water accounting, written every POOL_FOLD operations. */
	int64_t folded lx_xprt_cacheline_aligned;
	uint64_t hw;
	uint64_t total_hint; /* copy of bufs_total readable without lock */

	struct pool_desc *depot lx_xprt_cacheline_aligned;

	pthread_mutex_t depot_lock lx_xprt_cacheline_aligned; /* depot pops */

	/* Slow path, under lock. */
	pthread_mutex_t lock lx_xprt_cacheline_aligned;
	struct cds_list_head mags;
	struct cds_list_head waitq;
	struct pool_slab *slabs;
	uint64_t max_bufs, bufs_total, growing, nslabs;
	uint32_t slab_bufs;
	uint64_t waits, nobufs;
	uint64_t ret_gets, ret_puts, ret_misses; /* from detached magazines */
	/* Atomics for rare events and for threads without a cache. */
	uint64_t bad_puts, nc_gets, nc_puts, nc_misses;
	bool has_reg;
	struct lx_xprt_pool_reg reg;
	unsigned int fork_gen; /* the process it was made in (fork.h) */

	/* Size classes.  A pool of classes (buf_size 0) has no buffers of
	 * its own: @cls are one-size pools, made on first use, that carve
	 * their slabs from its @arena; a class points back at it. */
	struct lx_xprt_pool *parent;
	struct pool_arena *arena;
	struct lx_xprt_pool *cls[POOL_CLASSES]; /* under lock */
};

/*
 * The memory of a pool of size classes: one mapping of the whole budget,
 * its pages committed as classes carve slabs from it (never given back
 * before the pool is destroyed), registered once as a whole when a
 * registration hook is attached (RDMA: once on every device).
 */
struct pool_arena {
	char *base;
	size_t len;
	size_t used; /* under lock */
	pthread_mutex_t lock;
	bool has_reg;	 /* a hook is attached ... */
	bool registered; /* ... and the arena is registered with it */
	struct lx_xprt_pool_reg reg;
	void *handle;
	uint64_t regs; /* registrations made (hook calls) */
};

static pthread_mutex_t pool_global_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_key_t pool_tc_key;
static int pool_key_err;
static bool pool_asym; /* owners use plain stores; thieves use membarrier */
static uint64_t pool_next_id = 1;
static __thread struct pool_tc *pool_tc
	__attribute__((tls_model("initial-exec")));

static void pool_tc_release(void *arg);

/* A thread of the parent may have held the lock at the fork (exiting, or
 * destroying a pool): the child, which has not that thread, starts with
 * it free. */
static void pool_fork_child(void)
{
	pthread_mutex_init(&pool_global_lock, NULL);
}

static void pool_global_init(void)
{
	const char *env = getenv("XPRT_POOL_NO_MEMBARRIER");
	long cmds;
	int err;

	err = pthread_key_create(&pool_tc_key, pool_tc_release);
	if (err)
		pool_key_err = -err;
	(void)pthread_atfork(NULL, NULL, pool_fork_child);
	if (env && *env && strcmp(env, "0"))
		return;
	cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0))
		return;
	pool_asym = true;
}

/*
 * Walk a list of struct pool_mag without forming a pool_mag pointer from
 * the list head (which would be misaligned for the 64-byte-aligned type).
 */
#define pool_for_each_mag(m, pos, head)                                  \
	for ((pos) = (head)->next;                                       \
	     (pos) != (head) &&                                          \
	     ((m) = cds_list_entry((pos), struct pool_mag, node), true); \
	     (pos) = (pos)->next)

/* ------------------------------------------------------------ magazine */

static inline uint32_t mag_count(const struct pool_mag *m)
{
	return __atomic_load_n(&m->n, __ATOMIC_RELAXED);
}

static inline void mag_set_count(struct pool_mag *m, uint32_t n)
{
	__atomic_store_n(&m->n, n, __ATOMIC_RELAXED);
}

static inline void ctr_inc(uint64_t *c)
{
	/* Single writer: a plain increment published for stats readers. */
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

/*
 * Enter the owner's side of the steal handshake.  Returns false when a
 * thief holds the magazine; the caller then takes the locked slow path,
 * which cannot run before the thief (who holds the pool lock) is done.
 */
static inline bool mag_enter(struct pool_mag *m)
{
	if (lx_xprt_likely(pool_asym)) {
		__atomic_store_n(&m->busy, 1, __ATOMIC_RELAXED);
		/* The thief's membarrier orders this store before the load. */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} else {
		__atomic_exchange_n(&m->busy, 1, __ATOMIC_SEQ_CST);
	}
	if (lx_xprt_likely(!__atomic_load_n(&m->steal, __ATOMIC_SEQ_CST)))
		return true;
	__atomic_store_n(&m->busy, 0, __ATOMIC_RELEASE);
	return false;
}

static inline void mag_leave(struct pool_mag *m)
{
	__atomic_store_n(&m->busy, 0, __ATOMIC_RELEASE);
}

/* The thief's half of the handshake: see the comment at the top. */
static void pool_heavy_fence(void)
{
	if (pool_asym) {
		/*
		 * Registration succeeded, so the command cannot fail; if it
		 * did, owners would run unfenced and buffers could be handed
		 * out twice, so stop rather than corrupt memory.
		 */
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			    0, 0))
			abort();
	}
	/*
	 * Without membarrier, both sides use sequentially consistent
	 * operations (owner: exchange busy, load steal; thief: store steal,
	 * load busy), which already forbid both loads missing both stores.
	 */
}

/* ------------------------------------------------------------ depot */

static inline struct pool_desc *batch_next(const struct pool_desc *d)
{
	return d->b.node_[0];
}

static inline void batch_link(struct pool_desc *d, struct pool_desc *next)
{
	d->b.node_[0] = next;
}

/*
 * Push one batch (head->b.pad_ buffers chained through node_[0]).
 * Lock-free, any thread.  Sequentially consistent so that a later load of
 * pool->waiters cannot be ordered before it (lost wake-up, see top).
 */
static void depot_push(struct lx_xprt_pool *pool, struct pool_desc *head)
{
	struct pool_desc *old = __atomic_load_n(&pool->depot, __ATOMIC_RELAXED);

	do {
		head->depot_next = old;
	} while (!__atomic_compare_exchange_n(&pool->depot, &old, head, true,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
}

/* Pop one batch or NULL.  Takes depot_lock: poppers exclude each other. */
static struct pool_desc *depot_pop(struct lx_xprt_pool *pool)
{
	struct pool_desc *old;

	if (!__atomic_load_n(&pool->depot, __ATOMIC_SEQ_CST))
		return NULL;
	pthread_mutex_lock(&pool->depot_lock);
	old = __atomic_load_n(&pool->depot, __ATOMIC_ACQUIRE);
	/*
	 * Only we can remove nodes, so old stays in the stack and
	 * old->depot_next stays valid until our exchange succeeds.
	 */
	while (old && !__atomic_compare_exchange_n(
			      &pool->depot, &old, old->depot_next, true,
			      __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		;
	pthread_mutex_unlock(&pool->depot_lock);
	return old;
}

/* Push a chain of @n buffers, cut into batches a magazine can hold. */
static void depot_push_chain(struct lx_xprt_pool *pool, struct pool_desc *d,
			     uint64_t n)
{
	while (n) {
		uint32_t k = (uint32_t)LX_XPRT_MIN(n, (uint64_t)pool->mag_cap);
		struct pool_desc *head = d, *last = d;
		uint32_t i;

		for (i = 1; i < k; i++)
			last = batch_next(last);
		d = batch_next(last);
		batch_link(last, NULL);
		head->b.pad_ = k;
		depot_push(pool, head);
		n -= k;
	}
}

/* Take one buffer out of the depot, pushing the rest of its batch back. */
static struct pool_desc *depot_take_one(struct lx_xprt_pool *pool)
{
	struct pool_desc *b = depot_pop(pool), *rest;

	if (!b)
		return NULL;
	rest = batch_next(b);
	if (rest) {
		rest->b.pad_ = b->b.pad_ - 1;
		depot_push(pool, rest);
	}
	return b;
}

/* ------------------------------------------------------------ waiting */

static inline bool pool_has_waiters(const struct lx_xprt_pool *pool)
{
	return __atomic_load_n(&pool->waiters, __ATOMIC_SEQ_CST) != 0;
}

static void pool_dequeue_locked(struct lx_xprt_pool *pool,
				struct pool_waiter *w)
{
	cds_list_del(&w->node);
	__atomic_sub_fetch(&pool->waiters, 1, __ATOMIC_SEQ_CST);
}

/* Hand @d to the oldest waiter.  Caller holds pool->lock, waitq not empty. */
static void pool_handoff_locked(struct lx_xprt_pool *pool, struct pool_desc *d)
{
	struct pool_waiter *w =
		cds_list_entry(pool->waitq.next, struct pool_waiter, node);

	pool_dequeue_locked(pool, w);
	w->d = d;
	pthread_cond_signal(&w->cond);
}

/* Serve queued getters, oldest first, from the depot.  Under pool->lock. */
static void pool_kick_locked(struct lx_xprt_pool *pool)
{
	struct pool_desc *d;

	while (!cds_list_empty(&pool->waitq)) {
		d = depot_take_one(pool);
		if (!d)
			break;
		pool_handoff_locked(pool, d);
	}
}

/* After a depot push seen racing with a getter about to sleep. */
static void pool_kick(struct lx_xprt_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool_kick_locked(pool);
	pthread_mutex_unlock(&pool->lock);
}

/* ------------------------------------------------------------ accounting */

static void pool_raise_hw(struct lx_xprt_pool *pool, int64_t est)
{
	uint64_t total = __atomic_load_n(&pool->total_hint, __ATOMIC_RELAXED);
	uint64_t cur = __atomic_load_n(&pool->hw, __ATOMIC_RELAXED);
	uint64_t v;

	if (est <= 0)
		return;
	v = LX_XPRT_MIN((uint64_t)est, total);
	while (v > cur &&
	       !__atomic_compare_exchange_n(&pool->hw, &cur, v, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static inline void pool_fold(struct lx_xprt_pool *pool, int64_t d)
{
	__atomic_add_fetch(&pool->folded, d, __ATOMIC_RELAXED);
}

static inline void pool_note_get(struct lx_xprt_pool *pool, struct pool_mag *m,
				 bool miss)
{
	int64_t d, est;

	if (lx_xprt_unlikely(!m)) {
		__atomic_add_fetch(&pool->nc_gets, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pool->nc_misses, 1, __ATOMIC_RELAXED);
		pool_fold(pool, 1);
		d = 0;
	} else {
		ctr_inc(&m->gets);
		if (miss)
			ctr_inc(&m->misses);
		d = ++m->delta;
		if (d >= POOL_FOLD) {
			pool_fold(pool, d);
			m->delta = d = 0;
		}
	}
	est = __atomic_load_n(&pool->folded, __ATOMIC_RELAXED) + d;
	if (lx_xprt_unlikely(est > (int64_t)__atomic_load_n(&pool->hw,
							    __ATOMIC_RELAXED)))
		pool_raise_hw(pool, est);
}

static inline void pool_note_put(struct lx_xprt_pool *pool, struct pool_mag *m)
{
	if (lx_xprt_unlikely(!m)) {
		__atomic_add_fetch(&pool->nc_puts, 1, __ATOMIC_RELAXED);
		pool_fold(pool, -1);
		return;
	}
	ctr_inc(&m->puts);
	if (--m->delta <= -POOL_FOLD) {
		pool_fold(pool, m->delta);
		m->delta = 0;
	}
}

/*
 * Buffers held right now, summed over every magazine.  Under pool->lock;
 * O(threads), so only the locked slow path and stats call it.
 */
static uint64_t pool_in_use_locked(struct lx_xprt_pool *pool, uint64_t *getsp,
				   uint64_t *putsp, uint64_t *missesp)
{
	uint64_t gets, puts, misses;
	struct cds_list_head *pos;
	struct pool_mag *m;

	gets = pool->ret_gets +
	       __atomic_load_n(&pool->nc_gets, __ATOMIC_RELAXED);
	puts = pool->ret_puts +
	       __atomic_load_n(&pool->nc_puts, __ATOMIC_RELAXED);
	misses = pool->ret_misses +
		 __atomic_load_n(&pool->nc_misses, __ATOMIC_RELAXED);
	pool_for_each_mag(m, pos, &pool->mags)
	{
		gets += __atomic_load_n(&m->gets, __ATOMIC_RELAXED);
		puts += __atomic_load_n(&m->puts, __ATOMIC_RELAXED);
		misses += __atomic_load_n(&m->misses, __ATOMIC_RELAXED);
	}
	if (getsp) {
		*getsp = gets;
		*putsp = puts;
		*missesp = misses;
	}
	/* Counters of running threads race with us: stay plausible. */
	return LX_XPRT_MIN(gets > puts ? gets - puts : 0, pool->bufs_total);
}

/* ------------------------------------------------------------ per thread */

static inline struct pool_mag *tc_find(const struct lx_xprt_pool *pool)
{
	struct pool_tc *t = pool_tc;
	unsigned int i;

	if (lx_xprt_unlikely(!t))
		return NULL;
	if (lx_xprt_likely(t->id[t->last] == pool->id))
		return t->mag[t->last];
	for (i = 0; i < POOL_TC_SLOTS; i++) {
		if (t->id[i] == pool->id) {
			t->last = i;
			return t->mag[i];
		}
	}
	return NULL;
}

/* Turn a magazine's contents into a chain; returns the count. */
static uint32_t mag_drain(struct pool_mag *m, struct pool_desc **chain)
{
	uint32_t n = mag_count(m), i;

	for (i = 0; i < n; i++)
		batch_link(m->bufs[i], i + 1 < n ? m->bufs[i + 1] : NULL);
	*chain = n ? m->bufs[0] : NULL;
	mag_set_count(m, 0);
	return n;
}

/*
 * Give a magazine back to its pool (owner thread, global lock held): flush
 * its buffers to the depot and its counters to the pool, unlink it, free
 * it.  A magazine orphaned by lx_xprt_pool_destroy() is only freed.
 */
static void mag_detach_global_locked(struct pool_mag *m)
{
	struct lx_xprt_pool *pool = m->pool;
	struct pool_desc *chain;
	uint32_t n;

	if (pool) {
		pthread_mutex_lock(&pool->lock);
		cds_list_del(&m->node);
		pool->ret_gets += m->gets;
		pool->ret_puts += m->puts;
		pool->ret_misses += m->misses;
		pool_fold(pool, m->delta);
		n = mag_drain(m, &chain);
		depot_push_chain(pool, chain, n);
		pool_kick_locked(pool);
		pthread_mutex_unlock(&pool->lock);
	}
	free(m);
}

/* pthread key destructor: the thread exits, flush its caches. */
static void pool_tc_release(void *arg)
{
	struct pool_tc *t = arg;
	unsigned int i;

	pool_tc = NULL;
	pthread_mutex_lock(&pool_global_lock);
	for (i = 0; i < POOL_TC_SLOTS; i++)
		if (t->mag[i])
			mag_detach_global_locked(t->mag[i]);
	pthread_mutex_unlock(&pool_global_lock);
	free(t);
}

/* Free a table slot: orphans first, else round robin.  Returns the slot. */
static unsigned int tc_evict(struct pool_tc *t)
{
	unsigned int i, slot = POOL_TC_SLOTS;

	pthread_mutex_lock(&pool_global_lock);
	for (i = 0; i < POOL_TC_SLOTS; i++) {
		if (!t->mag[i]->pool) {
			mag_detach_global_locked(t->mag[i]);
			t->mag[i] = NULL;
			t->id[i] = 0;
			slot = i;
		}
	}
	if (slot == POOL_TC_SLOTS) {
		slot = t->victim++ % POOL_TC_SLOTS;
		mag_detach_global_locked(t->mag[slot]);
		t->mag[slot] = NULL;
		t->id[slot] = 0;
	}
	pthread_mutex_unlock(&pool_global_lock);
	return slot;
}

/*
 * Create this thread's magazine for @pool.  No lock held.  Returns NULL
 * when memory is short: the caller then works on the depot directly.
 */
static struct pool_mag *tc_attach(struct lx_xprt_pool *pool)
{
	struct pool_tc *t = pool_tc;
	struct pool_mag *m;
	unsigned int slot;

	if (pool_key_err)
		return NULL;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		if (pthread_setspecific(pool_tc_key, t)) {
			free(t);
			return NULL;
		}
		pool_tc = t;
	}
	if (posix_memalign((void **)&m, LX_XPRT_CACHELINE, sizeof(*m)))
		return NULL;
	memset(m, 0, sizeof(*m));
	m->cap = pool->mag_cap;
	m->pool = pool;
	for (slot = 0; slot < POOL_TC_SLOTS; slot++)
		if (!t->id[slot])
			break;
	if (slot == POOL_TC_SLOTS)
		slot = tc_evict(t);
	pthread_mutex_lock(&pool->lock);
	cds_list_add_tail(&m->node, &pool->mags);
	pthread_mutex_unlock(&pool->lock);
	t->id[slot] = pool->id;
	t->mag[slot] = m;
	t->last = slot;
	return m;
}

/*
 * Refill an empty magazine from the depot, inside the owner's critical
 * section.  Returns one buffer for the caller or NULL.
 */
static struct pool_desc *mag_refill(struct lx_xprt_pool *pool,
				    struct pool_mag *m)
{
	struct pool_desc *b = depot_pop(pool), *d;
	uint32_t cnt, i;

	if (!b)
		return NULL;
	cnt = b->b.pad_;
	for (i = 0, d = b; i < cnt; i++, d = batch_next(d))
		m->bufs[i] = d;
	mag_set_count(m, cnt - 1);
	return m->bufs[cnt - 1];
}

/* Move the oldest half of a full magazine to the depot (owner, inside). */
static void mag_spill(struct lx_xprt_pool *pool, struct pool_mag *m)
{
	uint32_t k = pool->mag_batch, n = mag_count(m), i;

	for (i = 0; i < k; i++)
		batch_link(m->bufs[i], i + 1 < k ? m->bufs[i + 1] : NULL);
	m->bufs[0]->b.pad_ = k;
	depot_push(pool, m->bufs[0]);
	memmove(&m->bufs[0], &m->bufs[k], (n - k) * sizeof(m->bufs[0]));
	mag_set_count(m, n - k);
}

/*
 * Empty other threads' magazines into the depot.  Caller holds pool->lock.
 * @force claims every magazine, even those that look empty: needed once
 * after a getter queued itself, to catch puts already in their fast path.
 * Returns the number of buffers moved.
 */
static uint64_t pool_steal_locked(struct lx_xprt_pool *pool,
				  struct pool_mag *self, bool force)
{
	struct cds_list_head *pos;
	struct pool_desc *chain;
	struct pool_mag *m;
	uint64_t total = 0;
	unsigned int claimed = 0;
	uint32_t n;

	pool_for_each_mag(m, pos, &pool->mags)
	{
		if (m == self || (!force && !mag_count(m)))
			continue;
		__atomic_store_n(&m->steal, 1, __ATOMIC_SEQ_CST);
		m->claimed = true;
		claimed++;
	}
	if (!claimed)
		return 0;
	pool_heavy_fence();
	pool_for_each_mag(m, pos, &pool->mags)
	{
		if (!m->claimed)
			continue;
		/* The owner is at most a few instructions from leaving. */
		while (__atomic_load_n(&m->busy, __ATOMIC_SEQ_CST))
			sched_yield();
		n = mag_drain(m, &chain);
		depot_push_chain(pool, chain, n);
		total += n;
		m->claimed = false;
		__atomic_store_n(&m->steal, 0, __ATOMIC_RELEASE);
	}
	return total;
}

/* ------------------------------------------------------------ slabs */

static void slab_free(struct lx_xprt_pool *pool, struct pool_slab *s)
{
	if (pool->has_reg && pool->reg.unreg)
		pool->reg.unreg(pool->reg.ctx, s->handle);
	if (!pool->parent)
		free(s->data); /* a class's is the arena's */
	free(s);
}

/*
 * Register the arena with its hook, once; arena->lock held.  Every slab
 * carved so far or later is inside it.
 */
static int arena_register_locked(struct pool_arena *a)
{
	void *handle;
	int err;

	if (!a->has_reg || a->registered || !a->reg.reg)
		return 0;
	err = a->reg.reg(a->reg.ctx, a->base, a->len, &handle);
	if (err)
		return err < 0 ? err : -err;
	/* lx_xprt_buf_reg_handle() reads it without the lock */
	__atomic_store_n(&a->handle, handle, __ATOMIC_RELEASE);
	a->registered = true;
	a->regs++;
	return 0;
}

/*
 * @len bytes aligned to @align from the arena of @pool's parent.
 * Return: 0; -ENOBUFS when the arena is used up; the hook's error.
 */
static int arena_carve(struct lx_xprt_pool *pool, size_t len, size_t align,
		       void **datap, void **handlep)
{
	struct pool_arena *a = pool->parent->arena;
	size_t at;
	int err;

	pthread_mutex_lock(&a->lock);
	at = (a->used + align - 1) & ~(align - 1);
	if (at > a->len || len > a->len - at) {
		pthread_mutex_unlock(&a->lock);
		return -ENOBUFS;
	}
	err = arena_register_locked(a);
	if (!err) {
		a->used = at + len;
		*datap = a->base + at;
		*handlep = a->handle;
	}
	pthread_mutex_unlock(&a->lock);
	return err;
}

/* Allocate and register a slab of @n buffers.  No lock held. */
static int slab_new(struct lx_xprt_pool *pool, uint32_t n,
		    struct pool_slab **sp)
{
	size_t hdr = (sizeof(struct pool_slab) + LX_XPRT_CACHELINE - 1) &
		     ~(size_t)(LX_XPRT_CACHELINE - 1);
	struct pool_slab *s;
	uint32_t i;
	int err;

	if (posix_memalign((void **)&s, LX_XPRT_CACHELINE,
			   hdr + (size_t)n * sizeof(struct pool_desc)))
		return -ENOMEM;
	memset(s, 0, hdr + (size_t)n * sizeof(struct pool_desc));
	s->pool = pool;
	s->nbufs = n;
	s->len = (size_t)n * pool->stride;
	s->descs = (struct pool_desc *)((char *)s + hdr);
	if (pool->parent) {
		err = arena_carve(pool, s->len, pool->align, &s->data,
				  &s->handle);
		if (err)
			goto out_free_slab;
	} else if (posix_memalign(&s->data, pool->align, s->len)) {
		err = -ENOMEM;
		goto out_free_slab;
	}
	if (pool->has_reg && pool->reg.reg) {
		err = pool->reg.reg(pool->reg.ctx, s->data, s->len, &s->handle);
		if (err) {
			err = err < 0 ? err : -err;
			goto out_free_data;
		}
	}
	for (i = 0; i < n; i++) {
		struct pool_desc *d = &s->descs[i];

		d->b.data = (char *)s->data + (size_t)i * pool->stride;
		d->b.cap = (uint32_t)pool->buf_size;
		d->b.slab_ = s;
		d->b.state_ = BUF_FREE;
		batch_link(d, i + 1 < n ? &s->descs[i + 1] : NULL);
	}
	*sp = s;
	return 0;

out_free_data:
	if (!pool->parent)
		free(s->data);
out_free_slab:
	free(s);
	return err;
}

static void pool_add_slab_locked(struct lx_xprt_pool *pool, struct pool_slab *s)
{
	s->next = pool->slabs;
	pool->slabs = s;
	pool->bufs_total += s->nbufs;
	pool->nslabs++;
	__atomic_store_n(&pool->total_hint, pool->bufs_total, __ATOMIC_RELAXED);
}

static inline bool pool_can_grow(const struct lx_xprt_pool *pool)
{
	return pool->bufs_total + pool->growing < pool->max_bufs;
}

/*
 * Add a slab and take its first buffer.  Called and returns with
 * pool->lock held; drops it around allocation and the registration hook.
 */
static int pool_grow_locked(struct lx_xprt_pool *pool, struct pool_desc **dp)
{
	uint64_t room = pool->max_bufs - pool->bufs_total - pool->growing;
	uint32_t n = (uint32_t)LX_XPRT_MIN((uint64_t)pool->slab_bufs, room);
	struct pool_slab *s;
	int err;

	pool->growing += n;
	pthread_mutex_unlock(&pool->lock);
	err = slab_new(pool, n, &s);
	pthread_mutex_lock(&pool->lock);
	pool->growing -= n;
	if (err) {
		/* Our reservation may be what a queued getter waited for. */
		if (!cds_list_empty(&pool->waitq) && pool_can_grow(pool)) {
			struct pool_waiter *w = cds_list_entry(
				pool->waitq.next, struct pool_waiter, node);

			pthread_cond_signal(&w->cond);
		}
		return err;
	}
	pool_add_slab_locked(pool, s);
	*dp = &s->descs[0];
	if (n > 1) {
		depot_push_chain(pool, &s->descs[1], n - 1);
		pool_kick_locked(pool);
	}
	return 0;
}

/* ------------------------------------------------------------ get */

/*
 * Everything the magazine could not serve.  Takes pool->lock; may sleep.
 * @m is this thread's magazine or NULL (no cache).
 */
static int pool_get_slow(struct lx_xprt_pool *pool, struct pool_mag *m,
			 unsigned int flags, struct pool_desc **dp)
{
	struct pool_waiter w = {.d = NULL};
	bool queued = false, slept = false;
	int err;

	if (pool->arena)
		return -EINVAL; /* a pool of classes: get from a class */
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		if (w.d) {
			*dp = w.d;
			err = 0;
			break;
		}
		if (__atomic_load_n(&pool->closed, __ATOMIC_ACQUIRE)) {
			err = -ESHUTDOWN;
			break;
		}
		/* FIFO: while others wait, newcomers queue behind them. */
		if (queued || cds_list_empty(&pool->waitq)) {
			*dp = depot_take_one(pool);
			if (*dp) {
				err = 0;
				break;
			}
			if (pool_can_grow(pool)) {
				err = pool_grow_locked(pool, dp);
				if (err != -ENOBUFS || !pool->parent)
					break;
				/* the arena is used up: this class has what
				 * it has, and waits or refuses as at its
				 * budget */
				pool->max_bufs =
					pool->bufs_total + pool->growing;
				if (!pool->max_bufs) {
					/* nothing of its own to wait for */
					pool->nobufs++;
					break;
				}
				continue;
			}
		}
		if (flags & LX_XPRT_POOL_NOWAIT) {
			if (cds_list_empty(&pool->waitq) &&
			    pool_steal_locked(pool, m, false)) {
				*dp = depot_take_one(pool);
				if (*dp) {
					err = 0;
					break;
				}
			}
			pool_kick_locked(pool);
			pool->nobufs++;
			err = -ENOBUFS;
			break;
		}
		if (!queued) {
			pthread_cond_init(&w.cond, NULL);
			cds_list_add_tail(&w.node, &pool->waitq);
			__atomic_add_fetch(&pool->waiters, 1, __ATOMIC_SEQ_CST);
			queued = true;
			/* Now that puts see us: racing pushes, then caches. */
			pool_kick_locked(pool);
			if (!w.d && pool_steal_locked(pool, m, true))
				pool_kick_locked(pool);
			continue;
		}
		if (pool_steal_locked(pool, m, false))
			pool_kick_locked(pool);
		if (w.d)
			continue;
		if (!slept) {
			pool->waits++;
			slept = true;
		}
		pthread_cond_wait(&w.cond, &pool->lock);
	}
	if (queued) {
		/* A hand-off dequeued us already; otherwise leave the queue. */
		if (!w.d) {
			pool_dequeue_locked(pool, &w);
		} else if (err) {
			/* Served while a failed grow had the lock dropped. */
			*dp = w.d;
			err = 0;
		} else if (*dp != w.d) {
			/* Served while growing: keep one, return the other. */
			w.d->b.pad_ = 1;
			batch_link(w.d, NULL);
			depot_push(pool, w.d);
			pool_kick_locked(pool);
		}
		pthread_cond_destroy(&w.cond);
	}
	/* We may have pushed the rest of a batch back behind other waiters. */
	pool_kick_locked(pool);
	/*
	 * Peaks that leave the fast path (growth, stealing, waiting) are
	 * measured exactly here, which the folded estimate cannot do while
	 * several threads each hold a few buffers.
	 */
	if (!err)
		pool_raise_hw(pool, (int64_t)pool_in_use_locked(pool, NULL,
								NULL, NULL) +
					    1);
	pthread_mutex_unlock(&pool->lock);
	return err;
}

/**
 * lx_xprt_pool_get() - take a buffer (see include/libxprt/pool.h)
 *
 * Fast path: a pop from this thread's magazine, no lock and no atomic
 * read-modify-write.  Misses refill from the depot (depot lock only), then
 * fall back to pool_get_slow() under the pool lock.
 *
 * Context: any thread; may sleep unless @flags has %LX_XPRT_POOL_NOWAIT.
 * Return: %0; %-EINVAL for NULL arguments or unknown flags; %-ENOBUFS
 * (NOWAIT, budget exhausted, retry later); %-ESHUTDOWN after close;
 * %-ENOMEM or the registration hook's error when growing failed.
 */
int lx_xprt_pool_get(struct lx_xprt_pool *pool, unsigned int flags,
		     struct lx_xprt_buf **bufp)
{
	struct pool_desc *d = NULL;
	struct pool_mag *m;
	bool miss = true;
	int err;

	if (lx_xprt_unlikely(!pool || !bufp || (flags & ~LX_XPRT_POOL_NOWAIT)))
		return -EINVAL;
	if (lx_xprt_unlikely(__atomic_load_n(&pool->closed, __ATOMIC_ACQUIRE)))
		return -ESHUTDOWN;
	m = tc_find(pool);
	if (lx_xprt_likely(m)) {
		if (lx_xprt_likely(mag_enter(m))) {
			uint32_t n = mag_count(m);

			if (lx_xprt_likely(n)) {
				d = m->bufs[n - 1];
				mag_set_count(m, n - 1);
				miss = false;
			} else if (!pool_has_waiters(pool)) {
				d = mag_refill(pool, m);
			}
			mag_leave(m);
		}
	} else {
		m = tc_attach(pool);
	}
	if (lx_xprt_unlikely(!d)) {
		err = pool_get_slow(pool, m, flags, &d);
		if (err)
			return err;
	}
	__atomic_store_n(&d->b.state_, BUF_HELD, __ATOMIC_RELAXED);
	d->b.len = 0;
	d->b.next = NULL;
	pool_note_get(pool, m, miss);
	*bufp = &d->b;
	return 0;
}

/* ------------------------------------------------------------ put */

static void pool_put_slow(struct lx_xprt_pool *pool, struct pool_mag *m,
			  struct pool_desc *d)
{
	pthread_mutex_lock(&pool->lock);
	if (!cds_list_empty(&pool->waitq)) {
		pool_handoff_locked(pool, d);
	} else if (m) {
		/* Thieves hold the lock, so the magazine is ours here. */
		if (mag_count(m) == m->cap)
			mag_spill(pool, m);
		m->bufs[mag_count(m)] = d;
		mag_set_count(m, mag_count(m) + 1);
	} else {
		d->b.pad_ = 1;
		batch_link(d, NULL);
		depot_push(pool, d);
	}
	pthread_mutex_unlock(&pool->lock);
}

/**
 * lx_xprt_pool_put() - give a buffer back (see include/libxprt/pool.h)
 *
 * Fast path: one compare-and-swap on the descriptor (it makes a double put
 * racing from two threads fail on one of them) and a push onto this
 * thread's magazine.  While getters wait, the buffer goes to the oldest
 * of them instead.
 *
 * Context: any thread; never sleeps (it may briefly take the pool lock).
 * Return: %0; %-EINVAL when @buf is not currently held from @pool.
 */
int lx_xprt_pool_put(struct lx_xprt_pool *pool, struct lx_xprt_buf *buf)
{
	struct pool_desc *d;
	struct pool_slab *s;
	struct pool_mag *m;
	uint32_t held = BUF_HELD;
	bool spilled = false;

	if (lx_xprt_unlikely(!pool || !buf))
		return -EINVAL;
	s = buf->slab_;
	if (lx_xprt_unlikely(!s || s->pool != pool))
		goto bad;
	if (lx_xprt_unlikely(!__atomic_compare_exchange_n(
		    &buf->state_, &held, BUF_FREE, false, __ATOMIC_ACQ_REL,
		    __ATOMIC_RELAXED)))
		goto bad;
	d = lx_xprt_container_of(buf, struct pool_desc, b);
	m = tc_find(pool);
	if (lx_xprt_unlikely(!m))
		m = tc_attach(pool);
	pool_note_put(pool, m);
	if (lx_xprt_likely(m) && lx_xprt_likely(mag_enter(m))) {
		if (lx_xprt_likely(!pool_has_waiters(pool))) {
			uint32_t n = mag_count(m);

			if (lx_xprt_unlikely(n == m->cap)) {
				mag_spill(pool, m);
				n = mag_count(m);
				spilled = true;
			}
			m->bufs[n] = d;
			mag_set_count(m, n + 1);
			mag_leave(m);
			if (lx_xprt_unlikely(spilled) && pool_has_waiters(pool))
				pool_kick(pool);
			return 0;
		}
		mag_leave(m);
	}
	pool_put_slow(pool, m, d);
	return 0;

bad:
	__atomic_add_fetch(&pool->bad_puts, 1, __ATOMIC_RELAXED);
	return -EINVAL;
}

/* ------------------------------------------------------------ misc */

/**
 * lx_xprt_buf_reg_handle() - the registration handle of the buffer's slab
 * Context: any thread, lock-free.
 * Return: what the registration hook stored, or NULL without a hook or for
 * a NULL @buf.
 */
void *lx_xprt_buf_reg_handle(const struct lx_xprt_buf *buf)
{
	const struct pool_slab *s = buf ? buf->slab_ : NULL;

	if (!s)
		return NULL;
	/* a class's slab lies in its pool's arena, which may have been
	 * registered after the slab was carved (a TCP client used the
	 * class first): the arena's handle covers it either way */
	if (lx_xprt_unlikely(s->pool->parent))
		return __atomic_load_n(&s->pool->parent->arena->handle,
				       __ATOMIC_ACQUIRE);
	return s->handle;
}

/**
 * lx_xprt_pool_buf_size() - the pool's buffer size in bytes (0 for NULL)
 */
size_t lx_xprt_pool_buf_size(const struct lx_xprt_pool *pool)
{
	return pool ? pool->buf_size : 0;
}

static void pool_classes_stats(struct lx_xprt_pool *pool,
			       struct lx_xprt_pool_stats *st);

/**
 * lx_xprt_pool_stats() - snapshot the counters
 *
 * Context: any thread; takes the pool lock briefly.  Per-thread counters
 * are read without stopping their owners: exact when the pool is idle.
 */
void lx_xprt_pool_stats(const struct lx_xprt_pool *cpool,
			struct lx_xprt_pool_stats *st)
{
	/* The lock is logically mutable: stats change nothing. */
	struct lx_xprt_pool *pool = (struct lx_xprt_pool *)cpool;
	uint64_t hw;

	if (!pool || !st)
		return;
	memset(st, 0, sizeof(*st));
	if (pool->arena) {
		pool_classes_stats(pool, st);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	st->bufs_in_use =
		pool_in_use_locked(pool, &st->gets, &st->puts, &st->misses);
	st->waits = pool->waits;
	st->nobufs = pool->nobufs;
	st->bad_puts = __atomic_load_n(&pool->bad_puts, __ATOMIC_RELAXED);
	st->bufs_total = pool->bufs_total;
	st->slabs = pool->nslabs;
	st->regs = pool->has_reg ? pool->nslabs : 0;
	hw = __atomic_load_n(&pool->hw, __ATOMIC_RELAXED);
	st->high_water =
		LX_XPRT_MIN(LX_XPRT_MAX(hw, st->bufs_in_use), st->bufs_total);
	pthread_mutex_unlock(&pool->lock);
}

/**
 * lx_xprt_pool_close() - fail blocked and future gets with -ESHUTDOWN
 *
 * Context: any thread; takes the pool lock.  Idempotent, NULL is a no-op.
 */
void lx_xprt_pool_close(struct lx_xprt_pool *pool)
{
	struct cds_list_head *pos;
	struct pool_waiter *w;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	__atomic_store_n(&pool->closed, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < POOL_CLASSES; i++)
		if (pool->cls[i])
			lx_xprt_pool_close(pool->cls[i]);
	cds_list_for_each(pos, &pool->waitq)
	{
		w = cds_list_entry(pos, struct pool_waiter, node);
		pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&pool->lock);
}

static bool pool_any_held_locked(const struct lx_xprt_pool *pool)
{
	const struct pool_slab *s;
	uint32_t i;

	for (s = pool->slabs; s; s = s->next)
		for (i = 0; i < s->nbufs; i++)
			if (__atomic_load_n(&s->descs[i].b.state_,
					    __ATOMIC_RELAXED) != BUF_FREE)
				return true;
	return false;
}

static void pool_free(struct lx_xprt_pool *pool)
{
	struct pool_slab *s, *next;

	for (s = pool->slabs; s; s = next) {
		next = s->next;
		slab_free(pool, s);
	}
	pthread_mutex_destroy(&pool->lock);
	pthread_mutex_destroy(&pool->depot_lock);
	free(pool);
}

static int pool_classes_destroy(struct lx_xprt_pool *pool);
static int pool_destroy_one(struct lx_xprt_pool *pool);

/*
 * lx_xprt_pool_destroy() in a child of the process that made @pool: its
 * memory back, and nothing else.  Its locks are not taken (a thread of
 * the parent may have held them at the fork), its registrations are not
 * undone (over RDMA they are the parent's: deregistering here would take
 * the parent's memory regions away), buffers still out are not waited
 * for (they were the parent's calls).  The magazines are let go as at a
 * destroy: this thread's own is freed when it exits, the other threads'
 * were never here.
 */
static void pool_forget(struct lx_xprt_pool *pool)
{
	struct cds_list_head *pos;
	struct pool_slab *s, *next;
	struct pool_mag *m;
	unsigned int k;

	if (pool->arena) {
		for (k = 0; k < POOL_CLASSES; k++)
			if (pool->cls[k])
				pool_forget(pool->cls[k]);
		munmap(pool->arena->base, pool->arena->len);
		free(pool->arena);
	}
	pool_for_each_mag(m, pos, &pool->mags) m->pool = NULL;
	for (s = pool->slabs; s; s = next) {
		next = s->next;
		if (!pool->parent)
			free(s->data); /* a class's is the arena's */
		free(s);
	}
	free(pool);
}

/**
 * lx_xprt_pool_destroy() - free the pool and all its slabs
 *
 * Closes the pool, checks that every buffer is back (buffers cached by
 * other threads count as back: their magazines are orphaned, not read),
 * unregisters and frees every slab.
 *
 * Context: no other call on @pool may be running or start (the usual
 * rule for a destructor); takes the process-wide pool lock.
 * Return: %0; %-EBUSY while buffers are held or getters are still inside
 * the pool (nothing freed, the pool stays closed, call again later).
 */
int lx_xprt_pool_destroy(struct lx_xprt_pool *pool)
{
	if (!pool)
		return 0;
	if (pool->parent)
		return -EINVAL; /* a class goes with its pool */
	if (lx_xprt__fork_other(pool->fork_gen)) {
		pool_forget(pool);
		return 0;
	}
	if (pool->arena)
		return pool_classes_destroy(pool);
	return pool_destroy_one(pool);
}

/* lx_xprt_pool_destroy() of a one-size pool, or of a class. */
static int pool_destroy_one(struct lx_xprt_pool *pool)
{
	struct pool_mag *m;

	lx_xprt_pool_close(pool);
	pthread_mutex_lock(&pool_global_lock);
	pthread_mutex_lock(&pool->lock);
	if (pool->growing || !cds_list_empty(&pool->waitq) ||
	    pool_any_held_locked(pool)) {
		pthread_mutex_unlock(&pool->lock);
		pthread_mutex_unlock(&pool_global_lock);
		return -EBUSY;
	}
	while (!cds_list_empty(&pool->mags)) {
		m = cds_list_entry(pool->mags.next, struct pool_mag, node);
		cds_list_del(&m->node);
		m->pool = NULL; /* its thread frees it */
	}
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_unlock(&pool_global_lock);
	pool_free(pool);
	return 0;
}

/*
 * For tests/unit/test_pool.c only: buffers sitting in per-thread caches and
 * the number of caches linked on @pool.  Not part of the API.
 */
uint64_t lx_xprt__pool_cached(struct lx_xprt_pool *pool, unsigned int *nmags);

uint64_t lx_xprt__pool_cached(struct lx_xprt_pool *pool, unsigned int *nmags)
{
	struct cds_list_head *pos;
	struct pool_mag *m;
	uint64_t n = 0;
	unsigned int k = 0;

	pthread_mutex_lock(&pool->lock);
	pool_for_each_mag(m, pos, &pool->mags)
	{
		n += mag_count(m);
		k++;
	}
	pthread_mutex_unlock(&pool->lock);
	if (nmags)
		*nmags = k;
	return n;
}

/* ------------------------------------------------------------ create */

static int pool_prealloc(struct lx_xprt_pool *pool, uint64_t want)
{
	struct pool_slab *s;
	uint32_t n;
	int err;

	want = LX_XPRT_MIN(want, pool->max_bufs);
	while (pool->bufs_total < want) {
		n = (uint32_t)LX_XPRT_MIN((uint64_t)pool->slab_bufs,
					  pool->max_bufs - pool->bufs_total);
		err = slab_new(pool, n, &s);
		if (err)
			return err;
		pool_add_slab_locked(pool, s);
		depot_push_chain(pool, s->descs, n);
	}
	return 0;
}

static int pool_classes_create(struct lx_xprt_pool **poolp,
			       const struct lx_xprt_pool_opts *opts);

/**
 * lx_xprt_pool_create() - create a pool (see include/libxprt/pool.h)
 *
 * Context: any thread; may sleep (allocation, registration hook).
 * Return: %0; %-EINVAL for bad parameters (nothing allocated, *@poolp
 * untouched); %-ENOMEM; or the registration hook's error.
 */
int lx_xprt_pool_create(struct lx_xprt_pool **poolp,
			const struct lx_xprt_pool_opts *opts)
{
	struct lx_xprt_pool *pool;
	size_t align, stride, budget;
	uint64_t slab_bufs, cap;
	int err;

	if (!poolp || !opts)
		return -EINVAL;
	if (!opts->buf_size)
		return pool_classes_create(poolp, opts);
	if (opts->buf_size > POOL_BUF_MAX)
		return -EINVAL;
	align = opts->buf_size % 4096 ? LX_XPRT_CACHELINE : 4096;
	stride = (opts->buf_size + align - 1) & ~(align - 1);
	budget = opts->max_bytes ? opts->max_bytes : POOL_DEF_BUDGET;
	if (budget < stride || opts->prealloc > budget / stride)
		return -EINVAL;
	pthread_once(&pool_once, pool_global_init);

	if (posix_memalign((void **)&pool, LX_XPRT_CACHELINE, sizeof(*pool)))
		return -ENOMEM;
	memset(pool, 0, sizeof(*pool));
	pool->id = __atomic_fetch_add(&pool_next_id, 1, __ATOMIC_RELAXED);
	pool->fork_gen = lx_xprt__fork_watch();
	pool->buf_size = opts->buf_size;
	pool->align = align;
	pool->stride = stride;
	pool->max_bufs = budget / stride;
	slab_bufs = opts->slab_bufs ? opts->slab_bufs :
				      LX_XPRT_MAX(POOL_SLAB_BYTES / stride, 1);
	pool->slab_bufs = (uint32_t)LX_XPRT_MIN(slab_bufs, pool->max_bufs);
	/*
	 * Per-thread caches hold at most ~1 MiB and a quarter of the budget,
	 * so idle threads cannot sit on much memory.  Spills and refills
	 * move half a magazine, giving hysteresis around the get/put
	 * pattern of one request.
	 */
	cap = LX_XPRT_MIN((uint64_t)(POOL_MAG_BYTES / stride),
			  pool->max_bufs / 4);
	cap = LX_XPRT_MAX(LX_XPRT_MIN(cap, (uint64_t)POOL_MAG_MAX),
			  (uint64_t)1);
	if (cap < 2 && pool->max_bufs >= 8)
		cap = 2;
	pool->mag_cap = (uint32_t)cap;
	pool->mag_batch = LX_XPRT_MAX(pool->mag_cap / 2, 1u);
	if (opts->reg) {
		pool->reg = *opts->reg;
		pool->has_reg = true;
	}
	CDS_INIT_LIST_HEAD(&pool->mags);
	CDS_INIT_LIST_HEAD(&pool->waitq);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_mutex_init(&pool->depot_lock, NULL);

	err = pool_prealloc(pool, opts->prealloc);
	if (err)
		goto out_free_pool;
	*poolp = pool;
	return 0;

out_free_pool:
	pool_free(pool);
	return err;
}

/* ------------------------------------------------------- size classes */

/*
 * A pool created with buf_size 0 serves buffers of any size a client asks
 * for, in classes of powers of two from 4 KiB to 8 MiB: clients of
 * different buffer sizes (NFSv3 headers, a 9P msize, a smaller msize a
 * server answers with) share one budget and one registration.  Each class
 * is a one-size pool of the code above, made when first asked for, whose
 * slabs come from the arena: one mapping of the whole budget, reserved at
 * creation and committed page by page as slabs are carved, never returned
 * before the pool is destroyed.  A budget used up by some classes leaves
 * the others with what they carved (a getter waits for a put, or is
 * refused with NOWAIT, as at any pool's budget).  A registration hook
 * (RDMA) registers the arena as a whole, once, however many classes and
 * clients use it.
 */

static int pool_classes_create(struct lx_xprt_pool **poolp,
			       const struct lx_xprt_pool_opts *opts)
{
	struct lx_xprt_pool *pool;
	struct pool_arena *a;
	size_t len = opts->max_bytes ? opts->max_bytes : POOL_DEF_BUDGET;

	if (opts->prealloc || opts->slab_bufs ||
	    len < (1u << POOL_CLASS_MIN_SHIFT))
		return -EINVAL;
	len = (len + 4095) & ~(size_t)4095;
	pthread_once(&pool_once, pool_global_init);
	if (posix_memalign((void **)&pool, LX_XPRT_CACHELINE, sizeof(*pool)))
		return -ENOMEM;
	memset(pool, 0, sizeof(*pool));
	a = calloc(1, sizeof(*a));
	if (!a)
		goto out_pool;
	/* reserved, not committed: a page costs only once a slab uses it */
	a->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->base == MAP_FAILED)
		goto out_arena;
	a->len = len;
	pthread_mutex_init(&a->lock, NULL);
	if (opts->reg) {
		a->reg = *opts->reg;
		a->has_reg = true;
	}
	pool->id = __atomic_fetch_add(&pool_next_id, 1, __ATOMIC_RELAXED);
	pool->fork_gen = lx_xprt__fork_watch();
	pool->arena = a;
	CDS_INIT_LIST_HEAD(&pool->mags);
	CDS_INIT_LIST_HEAD(&pool->waitq);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_mutex_init(&pool->depot_lock, NULL);
	*poolp = pool;
	return 0;

out_arena:
	free(a);
out_pool:
	free(pool);
	return -ENOMEM;
}

/* See include/libxprt/proto/pool.h. */
int lx_xprt_pool_class(struct lx_xprt_pool *pool, size_t size,
		       struct lx_xprt_pool **clsp)
{
	struct lx_xprt_pool_opts o = {0};
	struct lx_xprt_pool *cls;
	unsigned int k = 0;
	int err = 0;

	if (!pool || !clsp || !size)
		return -EINVAL;
	if (!pool->arena) {
		/* a one-size pool is its only class */
		if (size > pool->buf_size)
			return -EINVAL;
		*clsp = pool;
		return 0;
	}
	while (k < POOL_CLASSES &&
	       (size_t)1 << (POOL_CLASS_MIN_SHIFT + k) < size)
		k++;
	if (k == POOL_CLASSES)
		return -EINVAL;
	pthread_mutex_lock(&pool->lock);
	cls = pool->cls[k];
	if (!cls && __atomic_load_n(&pool->closed, __ATOMIC_ACQUIRE))
		err = -ESHUTDOWN;
	if (!cls && !err) {
		o.buf_size = (size_t)1 << (POOL_CLASS_MIN_SHIFT + k);
		o.max_bytes = pool->arena->len;
		/* slabs of a sixteenth of the budget at most (1 MiB at
		 * most, one buffer at least): a class carves the arena in
		 * steps small enough to leave room for the others */
		o.slab_bufs = (unsigned int)LX_XPRT_MAX(
			LX_XPRT_MIN((size_t)POOL_SLAB_BYTES,
				    pool->arena->len / 16) /
				o.buf_size,
			(size_t)1);
		err = lx_xprt_pool_create(&cls, &o);
		if (!err) {
			cls->parent = pool;
			pool->cls[k] = cls;
		}
	}
	pthread_mutex_unlock(&pool->lock);
	if (!err)
		*clsp = cls;
	return err;
}

/* See include/libxprt/proto/pool.h. */
int lx_xprt_pool_attach_reg(struct lx_xprt_pool *pool,
			    const struct lx_xprt_pool_reg *reg)
{
	struct pool_arena *a;
	int err = 0;

	if (!pool || !reg)
		return -EINVAL;
	if (pool->parent)
		pool = pool->parent;
	a = pool->arena;
	if (!a) /* one size: registered as its slabs come, or not at all */
		return pool->has_reg && pool->reg.reg == reg->reg ? 0 : -EINVAL;
	pthread_mutex_lock(&a->lock);
	if (a->has_reg && a->reg.reg != reg->reg) {
		err = -EINVAL;
	} else {
		a->reg = *reg;
		a->has_reg = true;
		/* slabs carved before are inside: register it all now */
		if (a->used)
			err = arena_register_locked(a);
	}
	pthread_mutex_unlock(&a->lock);
	return err;
}

/* See include/libxprt/proto/pool.h. */
bool lx_xprt_pool_has_classes(const struct lx_xprt_pool *pool)
{
	return pool && (pool->arena || pool->parent);
}

static void pool_classes_stats(struct lx_xprt_pool *pool,
			       struct lx_xprt_pool_stats *st)
{
	struct lx_xprt_pool_stats c;
	unsigned int k;

	pthread_mutex_lock(&pool->lock);
	for (k = 0; k < POOL_CLASSES; k++) {
		if (!pool->cls[k])
			continue;
		lx_xprt_pool_stats(pool->cls[k], &c);
		st->gets += c.gets;
		st->puts += c.puts;
		st->misses += c.misses;
		st->waits += c.waits;
		st->nobufs += c.nobufs;
		st->bad_puts += c.bad_puts;
		st->bufs_total += c.bufs_total;
		st->bufs_in_use += c.bufs_in_use;
		st->high_water += c.high_water;
		st->slabs += c.slabs;
		st->classes++;
	}
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_lock(&pool->arena->lock);
	st->regs = pool->arena->regs;
	st->bytes_reserved = pool->arena->len;
	st->bytes_carved = pool->arena->used;
	pthread_mutex_unlock(&pool->arena->lock);
}

static int pool_classes_destroy(struct lx_xprt_pool *pool)
{
	struct pool_arena *a = pool->arena;
	unsigned int k;
	int err;

	lx_xprt_pool_close(pool);
	/* all or nothing: a class still in use keeps every class */
	pthread_mutex_lock(&pool->lock);
	for (k = 0; k < POOL_CLASSES; k++) {
		struct lx_xprt_pool *c = pool->cls[k];
		bool busy;

		if (!c)
			continue;
		pthread_mutex_lock(&c->lock);
		busy = c->growing || !cds_list_empty(&c->waitq) ||
		       pool_any_held_locked(c);
		pthread_mutex_unlock(&c->lock);
		if (busy) {
			pthread_mutex_unlock(&pool->lock);
			return -EBUSY;
		}
	}
	pthread_mutex_unlock(&pool->lock);
	for (k = 0; k < POOL_CLASSES; k++) {
		if (!pool->cls[k])
			continue;
		err = pool_destroy_one(pool->cls[k]);
		if (err)
			return err;
		pool->cls[k] = NULL;
	}
	if (a->registered && a->reg.unreg)
		a->reg.unreg(a->reg.ctx, a->handle);
	munmap(a->base, a->len);
	pthread_mutex_destroy(&a->lock);
	free(a);
	pool->arena = NULL;
	pool_free(pool);
	return 0;
}
