// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mb_tags: the tag allocator against diod's design.
 *
 * Each thread loops: blocking get -> a little work on the tag's slot -> put.
 * The baseline is the classic one-lock pool, diod's Npcpool design as
 * PROTOCOLS.md section 4 describes it: a mutex, a condition variable and a
 * bitmap of bytes searched with a 256-entry first-zero table; here a put
 * signals the condition variable when someone waits.  It is written here
 * from that description, not taken from diod.
 *
 * That baseline is unfair: a thread that puts takes the tag straight back
 * while others sleep, so on few cores the running threads barge ahead, the
 * sleepers starve, and it hardly ever pays for a wake-up.  Our allocator is
 * FIFO-fair by contract, so with more threads than tags (and cores) every
 * operation hands the tag to a sleeping thread.  A third design separates
 * the two effects: the same one-lock pool made FIFO-fair (waiters queue with
 * their own condition variable, a put hands its tag to the oldest).
 *
 * Besides ops/s the table shows context switches per operation (getrusage,
 * whole process), fairness (the slowest thread's operations over the mean:
 * 1 is fair, 0 means a thread starved), and "stuck":
 * after the measuring time the threads are told to stop and must all return
 * within a few seconds; a thread still asleep then was never woken (a lost
 * wake-up).  Stuck threads are released with close/broadcast so the
 * benchmark always finishes.  The count must be 0.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <libxprt/proto/tags.h>

#include "mbench.h"

#define MAX_DEPTH     64
#define MAX_THREADS   64
#define STOP_GRACE_NS (3ull * 1000000000ull)

/* ------------------------------------------- baseline: one lock for all */

struct mutex_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int depth;
	unsigned int waiting;
	bool closed;
	uint8_t map[(MAX_DEPTH + 7) / 8];
};

static uint8_t first_zero[256];

static void first_zero_init(void)
{
	unsigned int b, i;

	for (b = 0; b < 256; b++) {
		for (i = 0; i < 8 && (b & (1u << i)); i++)
			;
		first_zero[b] = (uint8_t)i;
	}
}

static void *mp_create(unsigned int depth)
{
	struct mutex_pool *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	unsigned int i;

	if (!p)
		abort();
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	p->depth = depth;
	/* bits past the depth count as taken */
	for (i = depth; i < 8 * sizeof(p->map); i++)
		p->map[i / 8] |= (uint8_t)(1u << (i % 8));
	return p;
}

static int mp_find(struct mutex_pool *p)
{
	unsigned int i;

	for (i = 0; i < (p->depth + 7) / 8; i++) {
		if (p->map[i] != 0xff) {
			unsigned int bit = first_zero[p->map[i]];

			p->map[i] |= (uint8_t)(1u << bit);
			return (int)(i * 8 + bit);
		}
	}
	return -1;
}

static int mp_get(void *arg)
{
	struct mutex_pool *p = arg;
	int tag;

	pthread_mutex_lock(&p->lock);
	while ((tag = mp_find(p)) < 0 && !p->closed) {
		p->waiting++;
		pthread_cond_wait(&p->cond, &p->lock);
		p->waiting--;
	}
	pthread_mutex_unlock(&p->lock);
	return tag < 0 ? -ESHUTDOWN : tag;
}

static void mp_put(void *arg, int tag)
{
	struct mutex_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	p->map[tag / 8] &= (uint8_t) ~(1u << (tag % 8));
	if (p->waiting)
		pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void mp_close(void *arg)
{
	struct mutex_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	p->closed = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void mp_destroy(void *arg)
{
	struct mutex_pool *p = arg;

	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* ------------------------------------- the same, made FIFO-fair */

struct fifo_waiter {
	struct fifo_waiter *next;
	pthread_cond_t cond;
	int tag;
	bool done;
};

struct fifo_pool {
	struct mutex_pool *mp; /* lock, map and closed; its cond unused */
	struct fifo_waiter *head, **tail;
};

static void *fp_create(unsigned int depth)
{
	struct fifo_pool *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->mp = mp_create(depth);
	f->tail = &f->head;
	return f;
}

static int fp_get(void *arg)
{
	struct fifo_pool *f = arg;
	struct fifo_waiter w = {.tag = -ESHUTDOWN};
	int tag = -ESHUTDOWN;

	pthread_mutex_lock(&f->mp->lock);
	if (!f->mp->closed && (f->head || (tag = mp_find(f->mp)) < 0)) {
		pthread_cond_init(&w.cond, NULL);
		*f->tail = &w;
		f->tail = &w.next;
		while (!w.done)
			pthread_cond_wait(&w.cond, &f->mp->lock);
		pthread_cond_destroy(&w.cond);
		tag = w.tag;
	}
	pthread_mutex_unlock(&f->mp->lock);
	return tag;
}

static void fp_put(void *arg, int tag)
{
	struct fifo_pool *f = arg;
	struct fifo_waiter *w;

	pthread_mutex_lock(&f->mp->lock);
	w = f->head;
	if (w) {
		/* hand the tag to the oldest waiter */
		f->head = w->next;
		if (!f->head)
			f->tail = &f->head;
		w->tag = tag;
		w->done = true;
		pthread_cond_signal(&w->cond);
	} else {
		f->mp->map[tag / 8] &= (uint8_t) ~(1u << (tag % 8));
	}
	pthread_mutex_unlock(&f->mp->lock);
}

static void fp_close(void *arg)
{
	struct fifo_pool *f = arg;
	struct fifo_waiter *w;

	pthread_mutex_lock(&f->mp->lock);
	f->mp->closed = true;
	while ((w = f->head)) {
		f->head = w->next;
		w->done = true;
		pthread_cond_signal(&w->cond);
	}
	f->tail = &f->head;
	pthread_mutex_unlock(&f->mp->lock);
}

static void fp_destroy(void *arg)
{
	struct fifo_pool *f = arg;

	mp_destroy(f->mp);
	free(f);
}

/* ------------------------------------------------------ ours */

static void *xt_create(unsigned int depth)
{
	struct lx_xprt_tags *t;

	if (lx_xprt_tags_create(&t, depth))
		abort();
	return t;
}

/* Ours in barging mode: overtaking allowed until a waiter waited 1 ms. */
static void *xt_create_barging(unsigned int depth)
{
	struct lx_xprt_tags *t = xt_create(depth);

	if (lx_xprt_tags_set_barging(t, 1000 * 1000))
		abort();
	return t;
}

static int xt_get(void *arg)
{
	return lx_xprt_tags_get_wait(arg, -1);
}

static void xt_put(void *arg, int tag)
{
	if (lx_xprt_tags_put(arg, (unsigned int)tag))
		abort();
}

static void xt_close(void *arg)
{
	lx_xprt_tags_close(arg);
}

static void xt_destroy(void *arg)
{
	lx_xprt_tags_destroy(arg);
}

struct impl {
	void *(*create)(unsigned int depth);
	int (*get)(void *p);
	void (*put)(void *p, int tag);
	void (*close)(void *p);
	void (*destroy)(void *p);
};

static const struct impl ours = {
	.create = xt_create,
	.get = xt_get,
	.put = xt_put,
	.close = xt_close,
	.destroy = xt_destroy,
};
static const struct impl ours_barging = {
	.create = xt_create_barging,
	.get = xt_get,
	.put = xt_put,
	.close = xt_close,
	.destroy = xt_destroy,
};
static const struct impl mutex_pool = {
	.create = mp_create,
	.get = mp_get,
	.put = mp_put,
	.close = mp_close,
	.destroy = mp_destroy,
};
static const struct impl fifo_pool = {
	.create = fp_create,
	.get = fp_get,
	.put = fp_put,
	.close = fp_close,
	.destroy = fp_destroy,
};

/* ------------------------------------------------------ the run */

struct slot {
	uint64_t v[8]; /* the "request" a tag stands for */
} __attribute__((aligned(64)));

struct counter {
	_Atomic uint64_t ops;
	_Atomic bool done;
} __attribute__((aligned(64)));

struct run {
	const struct impl *im;
	void *pool;
	unsigned int depth;
	_Atomic bool stop;
	_Atomic unsigned int ready;
	_Atomic bool go;
	struct slot slots[MAX_DEPTH];
	struct counter cnt[MAX_THREADS];
};

struct worker {
	struct run *r;
	unsigned int id;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	struct counter *c = &r->cnt[w->id];
	uint64_t ops = 0;

	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load_explicit(&r->go, memory_order_acquire))
		sched_yield();
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		int tag = r->im->get(r->pool);
		struct slot *s;
		unsigned int k;

		if (tag < 0)
			break;
		/* tiny work: fill the request slot the tag names */
		s = &r->slots[tag];
		for (k = 0; k < 8; k++)
			s->v[k] = ops + k;
		mb_use(s);
		r->im->put(r->pool, tag);
		atomic_store_explicit(&c->ops, ++ops, memory_order_relaxed);
	}
	atomic_store_explicit(&c->done, true, memory_order_release);
	return NULL;
}

static uint64_t ctx_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

struct result {
	double mops;
	double cs_per_op;
	double fairness; /* slowest thread's ops / mean ops */
	unsigned int stuck;
};

static struct result measure(const struct impl *im, unsigned int depth,
			     unsigned int nthreads)
{
	struct run *r = aligned_alloc(64, sizeof(*r));
	pthread_t th[MAX_THREADS];
	struct worker w[MAX_THREADS];
	struct result res = {0};
	uint64_t t0, t1, ops0 = 0, ops1 = 0, cs0, cs1, end, min = UINT64_MAX;
	uint64_t start[MAX_THREADS];
	unsigned int i, done;

	if (!r)
		abort();
	memset(r, 0, sizeof(*r));
	r->im = im;
	r->depth = depth;
	r->pool = im->create(depth);
	for (i = 0; i < nthreads; i++) {
		w[i] = (struct worker){r, i};
		if (pthread_create(&th[i], NULL, worker, &w[i]))
			abort();
	}
	while (atomic_load(&r->ready) < nthreads)
		sched_yield();
	atomic_store_explicit(&r->go, true, memory_order_release);

	/* a short warm-up, then the measured window */
	{
		struct timespec ts = {0, 20 * 1000 * 1000};

		nanosleep(&ts, NULL);
	}
	for (i = 0; i < nthreads; i++) {
		start[i] = atomic_load(&r->cnt[i].ops);
		ops0 += start[i];
	}
	cs0 = ctx_switches();
	t0 = mb_now_ns();
	{
		uint64_t ns = (uint64_t)(mb_opts.seconds * 1e9);
		struct timespec ts = {(time_t)(ns / 1000000000u),
				      (long)(ns % 1000000000u)};

		nanosleep(&ts, NULL);
	}
	for (i = 0; i < nthreads; i++) {
		uint64_t n = atomic_load(&r->cnt[i].ops);

		ops1 += n;
		if (n - start[i] < min)
			min = n - start[i];
	}
	t1 = mb_now_ns();
	cs1 = ctx_switches();

	/* every thread must come back: a sleeper never woken is stuck */
	atomic_store(&r->stop, true);
	end = mb_now_ns() + STOP_GRACE_NS;
	do {
		struct timespec ts = {0, 1000 * 1000};

		done = 0;
		for (i = 0; i < nthreads; i++)
			done += atomic_load(&r->cnt[i].done);
		if (done == nthreads)
			break;
		nanosleep(&ts, NULL);
	} while (mb_now_ns() < end);
	res.stuck = nthreads - done;
	if (res.stuck)
		im->close(r->pool);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	im->destroy(r->pool);
	free(r);

	res.mops = (double)(ops1 - ops0) / ((double)(t1 - t0) / 1e9) / 1e6;
	res.fairness = ops1 > ops0 ?
			       (double)min * nthreads / (double)(ops1 - ops0) :
			       0;
	res.cs_per_op =
		ops1 > ops0 ? (double)(cs1 - cs0) / (double)(ops1 - ops0) : 0;
	return res;
}

int main(int argc, char **argv)
{
	static const unsigned int all_depths[] = {2, 4, 8, 16, 32, 64};
	static const unsigned int quick_depths[] = {2, 8, 64};
	static const unsigned int all_threads[] = {1, 2, 4, 8, 16};
	static const unsigned int quick_threads[] = {1, 4, 16};
	static const char *const cols[] = {
		"depth, threads", "ours Mops/s",     "barging Mops/s",
		"mutex Mops/s",	  "fifo-mtx Mops/s", "ours/mutex",
		"barging/mutex",  "ours/fifo-mtx",   "ours cs/op",
		"barging cs/op",  "mutex cs/op",     "ours fair",
		"barging fair",	  "mutex fair",	     "stuck",
	};
	const unsigned int *depths, *threads;
	unsigned int ndepths, nthr, d, k, stuck = 0, top_threads = 0;
	double top_barge[MAX_DEPTH + 1] = {0}, top_fifo[MAX_DEPTH + 1] = {0};
	struct mb_table *tab;

	mb_init(argc, argv, "mb_tags",
		"tag allocator vs mutex+condvar+byte map (diod), get/put loop");
	first_zero_init();
	depths = mb_opts.quick ? quick_depths : all_depths;
	ndepths = mb_opts.quick ? 3 : 6;
	threads = mb_opts.quick ? quick_threads : all_threads;
	nthr = mb_opts.quick ? 3 : 5;

	tab = mb_table_new("threads loop: blocking get -> fill slot -> put", 15,
			   cols);
	for (d = 0; d < ndepths; d++) {
		unsigned int prev = 0;

		for (k = 0; k < nthr; k++) {
			unsigned int n = threads[k];
			struct result a, b, c, g;
			double row[14];
			char label[32];

			/* cap at --threads; skip points the cap merges */
			if ((int)n > mb_opts.max_threads)
				n = (unsigned int)mb_opts.max_threads;
			if (n > MAX_THREADS)
				n = MAX_THREADS;
			if (n == prev)
				continue;
			prev = n;
			a = measure(&ours, depths[d], n);
			g = measure(&ours_barging, depths[d], n);
			b = measure(&mutex_pool, depths[d], n);
			c = measure(&fifo_pool, depths[d], n);
			row[0] = a.mops;
			row[1] = g.mops;
			row[2] = b.mops;
			row[3] = c.mops;
			row[4] = b.mops > 0 ? a.mops / b.mops : 0;
			row[5] = b.mops > 0 ? g.mops / b.mops : 0;
			row[6] = c.mops > 0 ? a.mops / c.mops : 0;
			row[7] = a.cs_per_op;
			row[8] = g.cs_per_op;
			row[9] = b.cs_per_op;
			row[10] = a.fairness;
			row[11] = g.fairness;
			row[12] = b.fairness;
			row[13] = a.stuck + g.stuck + b.stuck + c.stuck;
			snprintf(label, sizeof(label), "%u, %u", depths[d], n);
			mb_table_row(tab, label, row);
			stuck += a.stuck + g.stuck;
			if (n >= top_threads) {
				top_threads = n;
				top_barge[depths[d]] = row[5];
				top_fifo[depths[d]] = row[6];
			}
		}
	}
	for (d = 0; d < ndepths; d++) {
		char what[64];

		if (depths[d] != 2 && depths[d] != 8 && depths[d] != 16 &&
		    depths[d] != 64)
			continue;
		/* like for like: both let running threads overtake */
		snprintf(what, sizeof(what),
			 "barging tags/mutex at %u threads, depth %u",
			 top_threads, depths[d]);
		mb_target(what, top_barge[depths[d]], 2.0, true);
	}
	for (d = 0; d < ndepths; d++) {
		char what[64];

		if (depths[d] != 2 && depths[d] != 8)
			continue;
		/* and both strictly FIFO */
		snprintf(what, sizeof(what),
			 "FIFO tags/fifo-mtx at %u threads, depth %u",
			 top_threads, depths[d]);
		mb_target(what, top_fifo[depths[d]], 1.0, true);
	}
	mb_target("threads stuck (lost wake-ups), ours", stuck, 0, false);
	return mb_finish();
}
