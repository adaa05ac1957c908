/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-memory back-end ("mem").
 *
 * It stands in for a transport: submit() queues the I/O on one of
 * --mem-threads completion threads (round-robin, the way nconnect spreads
 * calls over connections and their receive threads), and that thread
 * later "receives the reply" and calls bench_io_done() - so the engine's
 * completion path, NOWAIT resubmission and hand-off run exactly as they
 * will with a real receive thread.
 *
 * Latency: zero (measures the engine's own cost), fixed, or uniform in a
 * range.  Real latency makes a completion thread sleep until the I/O is
 * due (a min-heap per thread ordered by due time), so wall-clock
 * behaviour - runtime, ramp, in-flight counts - is real.  --mem-virtual
 * completes at once and stamps t_submit + latency as the completion time
 * (bench_io_done_at()), which makes latency distributions exact and
 * independent of scheduler noise: tests assert percentiles with it.
 *
 * Data: with --verify the back-end keeps every file's bytes in memory, so
 * reads return what was written and verification is real; otherwise
 * reads and writes move no data.
 *
 * Faults, for the engine's tests: every Nth NOWAIT submit refused with
 * -EBUSY (the hand-off path), a request-slot limit (NOWAIT refusals plus
 * blocking waits, like a transport's tag allocator), the Nth I/O failing
 * with -EIO, a flipped byte at one offset of one job's reads.
 *
 * --mem-sync gives it a run_sync(): at --iodepth 1 (not paced) the job's
 * thread does each I/O itself (latency slept on that thread), the way
 * p9-bench does a synchronous call; without it those jobs go through
 * submit() and the completion threads as before.  --mem-virtual with a
 * latency has no completion stamp to give there: those I/Os are
 * submitted.
 *
 * --libxprt-mode caller: no completion thread.  Each job has a worker of
 * its own that no thread runs: submit() queues on the job's worker and
 * the job's thread completes what is due in job_service(), as a
 * caller-driven libxprt client runs its done() callbacks on its owner.
 * The "threads" counter is then 0 and "serviced" counts the completions
 * made there; --mem-slots, which would block the only thread that frees
 * a slot, is refused.
 *
 * Nothing is allocated per I/O: the per-I/O state lives in the slot's
 * private area (struct mem_req), heaps are sized at setup from the
 * engine's max_inflight.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mem_backend.h"

#define MEM_CACHELINE 64

struct mem_req {
	struct bench_io *io;
	struct mem_req *next;
	uint64_t due;	/* real latency: complete at this time (0 = now) */
	uint64_t vdone; /* virtual latency: completion stamp (0 = none) */
	int status;
};

/*
 * A completion thread.  Submitters push on its inbox, a lock-free stack
 * (the thread takes the whole stack with one exchange and restores FIFO
 * order), and wake it only when it sleeps: the thread publishes
 * "sleeping" before its last look at the inbox and a submitter reads it
 * after its push (both sequentially consistent), so one of the two always
 * sees the other and no wake is lost, without a lock per I/O.  The first
 * submitter to see it asleep takes the flag down with an exchange and is
 * the only one to wake it: the others, until the thread runs again, make
 * no system call (a thread woken but not yet scheduled used to get one
 * futex wake per submit).  Delayed I/Os wait in a min-heap that only the
 * thread itself touches.
 */
struct mem_worker {
	_Atomic(struct mem_req *) inbox; /* newest first */
	_Atomic uint32_t seq;		 /* the futex word: bumped per wake */
	_Atomic bool sleeping;
	_Atomic bool stop;
	struct mem_req **heap; /* due later, min-heap by due (thread's own) */
	size_t nheap, cap;
	bool started;
	pthread_t thread;
	struct mem_be *m;
} __attribute__((aligned(MEM_CACHELINE)));

struct mem_owner {
	_Atomic uint32_t inflight;
	_Atomic uint32_t max;
	_Atomic uint64_t ops;
} __attribute__((aligned(MEM_CACHELINE)));

#define MEM_MAX_PRE 8

struct mem_file {
	char *name;
	uint8_t *data;
	uint64_t cap;	       /* bytes allocated at data */
	_Atomic uint64_t size; /* visible size */
};

struct mem_be {
	/* options */
	unsigned int nthreads;
	uint64_t lat_min, lat_max;
	bool virt;
	uint64_t slow_n, slow_lat;
	uint64_t eagain_every;
	uint64_t fail_at;
	bool corrupt;
	unsigned int corrupt_job;
	uint64_t corrupt_off;
	uint64_t slots;
	uint64_t max_io;
	bool sync;
	struct {
		char name[64];
		uint64_t size;
	} pre[MEM_MAX_PRE]; /* --mem-file */
	unsigned int npre;

	/* run */
	bool caller; /* --libxprt-mode caller: a worker per job, no thread */
	unsigned int started; /* completion threads running */
	bool store;
	bool read_data; /* reads touch the data: store or corrupt */
	bool timed;	/* a latency to give: --mem-lat, --mem-slow, virtual */
	/* any of the above, a slot limit, --mem-eagain or --mem-fail-at:
	 * the I/O goes the whole way (mem_submit_any(), complete_any()) */
	bool extras;
	uint64_t wmask; /* nthreads - 1 when a power of two, else ~0 */
	struct mem_worker *w;
	struct mem_owner *owners;
	unsigned int nowners;
	pthread_mutex_t files_lock;
	struct mem_file **files; /* stable addresses: jobs keep pointers */
	unsigned int nfiles, capfiles;

	pthread_mutex_t slot_lock;
	pthread_cond_t slot_cond;
	_Atomic unsigned int slot_waiters;

	/*
	 * Counted per I/O: the in-flight count and its maximum, and each
	 * owner's (struct mem_owner).  What the tests read besides is
	 * derived at the end (mem_stats()): submitted is the sum of the
	 * owners' ops, completed that minus the owners' in flight.
	 */
	_Atomic uint64_t inflight __attribute__((aligned(MEM_CACHELINE)));
	_Atomic uint64_t max_inflight;
	/* --mem-fail-at only: the run's I/Os, numbered from 1 */
	_Atomic uint64_t fail_seq __attribute__((aligned(MEM_CACHELINE)));
	_Atomic uint64_t nowait_calls;
	_Atomic uint64_t eagain;
	_Atomic uint64_t slot_waits;
	_Atomic uint64_t injected;
	_Atomic uint64_t corrupted;
	_Atomic uint64_t sync_ios; /* done by run_sync() */
	_Atomic uint64_t naps;	   /* a completion thread set out to sleep */
	_Atomic uint64_t wakes;	   /* ... and a submitter woke it */
	_Atomic uint64_t serviced; /* completed in job_service() */
};

enum {
	MO_THREADS,
	MO_LAT,
	MO_VIRTUAL,
	MO_SLOW,
	MO_EAGAIN,
	MO_SLOTS,
	MO_FAIL_AT,
	MO_CORRUPT,
	MO_MAX_IO,
	MO_SYNC,
	MO_FILE,
};

static const struct bench_option mem_options[] = {
	{"mem-threads", "N", "completion threads, like receive threads [2]",
	 MO_THREADS},
	{"mem-lat", "TIME[:TIME]",
	 "latency of each I/O: fixed, or uniform in a range [0]", MO_LAT},
	{"mem-virtual", NULL,
	 "complete at once, stamping the latency (exact, no sleeping)",
	 MO_VIRTUAL},
	{"mem-slow", "N:TIME", "the first N I/Os of each job take TIME",
	 MO_SLOW},
	{"mem-eagain", "N", "every Nth non-blocking submit fails with EBUSY",
	 MO_EAGAIN},
	{"mem-slots", "N", "at most N I/Os in the back-end at once", MO_SLOTS},
	{"mem-fail-at", "N", "the Nth I/O submitted fails with EIO",
	 MO_FAIL_AT},
	{"mem-corrupt", "JOB:OFFSET",
	 "flip the byte at OFFSET in every read of JOB's file", MO_CORRUPT},
	{"mem-max-io", "SIZE", "largest transfer accepted [no limit]",
	 MO_MAX_IO},
	{"mem-sync", NULL,
	 "at --iodepth 1, do each I/O on the job's thread (run_sync)", MO_SYNC},
	{"mem-file", "NAME:SIZE",
	 "NAME exists before the run, SIZE bytes long (repeatable)", MO_FILE},
	{NULL, NULL, NULL, 0},
};

static _Thread_local uint64_t mem_rng;
static _Atomic uint64_t mem_rng_seed = 0x2545f4914f6cdd1dull;

static uint64_t mem_rand(void)
{
	uint64_t x = mem_rng;

	if (!x)
		x = atomic_fetch_add(&mem_rng_seed, 0x9e3779b97f4a7c15ull) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	mem_rng = x;
	return x;
}

/* ------------------------------------------------------------ options */

static int mem_init(void *priv)
{
	struct mem_be *m = priv;

	m->nthreads = 2;
	return 0;
}

static int split_pair(const char *arg, char *a, char *b, size_t n)
{
	const char *c = strchr(arg, ':');

	if (!c || (size_t)(c - arg) >= n || strlen(c + 1) >= n)
		return -EINVAL;
	memcpy(a, arg, (size_t)(c - arg));
	a[c - arg] = '\0';
	strcpy(b, c + 1);
	return 0;
}

static int mem_parse_option(void *priv, int id, const char *arg)
{
	struct mem_be *m = priv;
	char a[64], b[64];
	uint64_t v;

	switch (id) {
	case MO_THREADS:
		if (bench_parse_u64(arg, 64, &v) || !v)
			goto bad;
		m->nthreads = (unsigned int)v;
		return 0;
	case MO_LAT:
		if (strchr(arg, ':')) {
			if (split_pair(arg, a, b, sizeof(a)) ||
			    bench_parse_time(a, &m->lat_min) ||
			    bench_parse_time(b, &m->lat_max) ||
			    m->lat_max < m->lat_min)
				goto bad;
		} else {
			if (bench_parse_time(arg, &m->lat_min))
				goto bad;
			m->lat_max = m->lat_min;
		}
		return 0;
	case MO_VIRTUAL:
		m->virt = true;
		return 0;
	case MO_SLOW:
		if (split_pair(arg, a, b, sizeof(a)) ||
		    bench_parse_u64(a, UINT64_MAX, &m->slow_n) ||
		    bench_parse_time(b, &m->slow_lat))
			goto bad;
		return 0;
	case MO_EAGAIN:
		if (bench_parse_u64(arg, UINT64_MAX, &m->eagain_every) ||
		    m->eagain_every == 1)
			goto bad; /* 1 would refuse every NOWAIT submit */
		return 0;
	case MO_SLOTS:
		if (bench_parse_u64(arg, 1u << 24, &m->slots) || !m->slots)
			goto bad;
		return 0;
	case MO_FAIL_AT:
		if (bench_parse_u64(arg, UINT64_MAX, &m->fail_at) ||
		    !m->fail_at)
			goto bad;
		return 0;
	case MO_CORRUPT:
		if (split_pair(arg, a, b, sizeof(a)) ||
		    bench_parse_u64(a, 4095, &v) ||
		    bench_parse_size(b, &m->corrupt_off))
			goto bad;
		m->corrupt_job = (unsigned int)v;
		m->corrupt = true;
		return 0;
	case MO_MAX_IO:
		if (bench_parse_size(arg, &m->max_io) || !m->max_io)
			goto bad;
		return 0;
	case MO_SYNC:
		m->sync = true;
		return 0;
	case MO_FILE:
		if (m->npre == MEM_MAX_PRE ||
		    split_pair(arg, m->pre[m->npre].name, b,
			       sizeof(m->pre[0].name)) ||
		    !m->pre[m->npre].name[0] ||
		    bench_parse_size(b, &m->pre[m->npre].size))
			goto bad;
		m->npre++;
		return 0;
	}
bad:
	bench_error("--%s: '%s' is not valid (see --help)",
		    mem_options[id].name, arg ? arg : "");
	return -EINVAL;
}

static int mem_check(void *priv, const struct bench_config *cfg)
{
	struct mem_be *m = priv;

	if (m->corrupt && m->corrupt_job >= cfg->numjobs) {
		bench_error("--mem-corrupt: job %u does not exist (--numjobs "
			    "%u)",
			    m->corrupt_job, cfg->numjobs);
		return -EINVAL;
	}
	if (cfg->xprt_mode == BENCH_XPRT_CALLER && m->slots) {
		bench_error(
			"--mem-slots would block the job's thread, the only "
			"one that frees a slot in --libxprt-mode caller");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ workers */

static void heap_push(struct mem_worker *w, struct mem_req *r)
{
	size_t i = w->nheap++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (w->heap[p]->due <= r->due)
			break;
		w->heap[i] = w->heap[p];
		i = p;
	}
	w->heap[i] = r;
}

static struct mem_req *heap_pop(struct mem_worker *w)
{
	struct mem_req *top = w->heap[0], *last = w->heap[--w->nheap];
	size_t i = 0, n = w->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && w->heap[c + 1]->due < w->heap[c]->due)
			c++;
		if (last->due <= w->heap[c]->due)
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (n)
		w->heap[i] = last;
	return top;
}

static void do_data(struct mem_be *m, struct bench_io *io, int *status)
{
	struct mem_file *f = io->job ? io->job->priv : NULL;
	uint64_t end = io->offset + io->len, cur;

	if (!f)
		return;
	if (io->op == BENCH_OP_WRITE) {
		if (m->store) {
			if (end > f->cap) {
				*status = -EFBIG;
				return;
			}
			memcpy(f->data + io->offset, io->buf, io->len);
		}
		cur = atomic_load(&f->size);
		while (end > cur &&
		       !atomic_compare_exchange_weak(&f->size, &cur, end))
			;
		return;
	}
	if (io->op != BENCH_OP_READ)
		return;
	if (m->store) {
		if (end > f->cap) {
			*status = -EIO;
			return;
		}
		memcpy(io->buf, f->data + io->offset, io->len);
	}
	if (m->corrupt && io->job->index == m->corrupt_job &&
	    m->corrupt_off >= io->offset && m->corrupt_off < end) {
		((uint8_t *)io->buf)[m->corrupt_off - io->offset] ^= 0xff;
		atomic_fetch_add_explicit(&m->corrupted, 1,
					  memory_order_relaxed);
	}
}

static inline void release_slot(struct mem_be *m)
{
	atomic_fetch_sub(&m->inflight, 1);
	if (m->slots && atomic_load(&m->slot_waiters)) {
		pthread_mutex_lock(&m->slot_lock);
		pthread_cond_broadcast(&m->slot_cond);
		pthread_mutex_unlock(&m->slot_lock);
	}
}

/* @io leaves the back-end: its owner's in-flight count, the slot */
static inline void mem_leave(struct mem_be *m, const struct bench_io *io)
{
	atomic_fetch_sub_explicit(&m->owners[io->owner].inflight, 1,
				  memory_order_relaxed);
	release_slot(m);
}

/* what bench_io_done() is told @io moved */
static inline size_t mem_bytes(const struct bench_io *io, int status)
{
	return status || io->op > BENCH_OP_WRITE ? 0 : io->len;
}

static void complete(struct mem_be *m, struct mem_req *r)
{
	struct bench_io *io = r->io;
	int status = r->status;
	uint64_t vdone = r->vdone;

	/* a read moves nothing unless the run stores data or corrupts it;
	 * without extras status is 0 and nothing is stored */
	if (io->op == BENCH_OP_WRITE ? !status :
				       m->extras && !status && m->read_data)
		do_data(m, io, &status);
	/* leave the in-flight counts before the engine resubmits */
	mem_leave(m, io);
	if (vdone)
		bench_io_done_at(io, status, mem_bytes(io, status), vdone);
	else
		bench_io_done(io, status, mem_bytes(io, status));
}

static void worker_wake(struct mem_worker *w)
{
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, (uint32_t *)&w->seq, FUTEX_WAKE_PRIVATE, INT_MAX,
		NULL, NULL, 0);
}

/* sleep while w->seq is @seq, at most @ns */
static void worker_sleep(struct mem_worker *w, uint32_t seq, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	syscall(SYS_futex, (uint32_t *)&w->seq, FUTEX_WAIT_PRIVATE, seq, &ts,
		NULL, 0);
}

/*
 * Complete what @w has due: its inbox, then its heap's timers that are
 * due (@now: the time then, read only when the heap has any).  Return:
 * the I/Os completed.
 */
static unsigned int worker_pass(struct mem_worker *w, uint64_t *now)
{
	struct mem_req *in, *batch, *r, **tailp;
	unsigned int n = 0;

	/* the inbox is newest first: reverse it; delayed ones go on the
	 * heap */
	in = atomic_exchange(&w->inbox, NULL);
	batch = NULL;
	while (in) {
		r = in;
		in = r->next;
		if (r->due) {
			heap_push(w, r);
		} else {
			r->next = batch;
			batch = r;
		}
	}
	if (w->nheap) {
		/* append due timers after the immediate ones */
		tailp = &batch;
		while (*tailp)
			tailp = &(*tailp)->next;
		*now = bench_now_ns();
		while (w->nheap && w->heap[0]->due <= *now) {
			r = heap_pop(w);
			r->next = NULL;
			*tailp = r;
			tailp = &r->next;
		}
	}
	while (batch) {
		r = batch;
		batch = r->next;
		complete(w->m, r);
		n++;
	}
	return n;
}

static void *mem_worker_main(void *arg)
{
	struct mem_worker *w = arg;
	uint64_t now = 0, wait;
	uint32_t seq;

	for (;;) {
		if (worker_pass(w, &now))
			continue;
		if (atomic_load(&w->stop) && !w->nheap)
			break;
		seq = atomic_load(&w->seq);
		atomic_fetch_add_explicit(&w->m->naps, 1, memory_order_relaxed);
		atomic_store(&w->sleeping, true);
		if (!atomic_load(&w->inbox) && !atomic_load(&w->stop)) {
			wait = w->nheap ? w->heap[0]->due - now : 1000000000ull;
			worker_sleep(w, seq, wait);
		}
		atomic_store(&w->sleeping, false);
	}
	return NULL;
}

static void workers_stop(struct mem_be *m)
{
	unsigned int i;

	if (!m->w)
		return;
	for (i = 0; i < m->nthreads; i++) {
		struct mem_worker *w = &m->w[i];

		if (!w->started)
			continue;
		atomic_store(&w->stop, true);
		worker_wake(w);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	for (i = 0; i < m->nthreads; i++)
		free(m->w[i].heap);
	free(m->w);
	m->w = NULL;
}

/* a new empty file @name; files_lock held */
static struct mem_file *mem_file_add(struct mem_be *m, const char *name)
{
	struct mem_file *f;

	if (m->nfiles == m->capfiles) {
		unsigned int nc = m->capfiles ? 2 * m->capfiles : 16;
		struct mem_file **nf;

		nf = realloc(m->files, nc * sizeof(*nf));
		if (!nf)
			return NULL;
		m->files = nf;
		m->capfiles = nc;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return NULL;
	}
	m->files[m->nfiles++] = f;
	return f;
}

static struct mem_file *mem_file_find(struct mem_be *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i]->name, name))
			return m->files[i];
	return NULL;
}

static int mem_setup(void *priv, const struct bench_config *cfg,
		     struct bench_limits *lim)
{
	struct mem_be *m = priv;
	unsigned int i;
	int ret;

	m->caller = cfg->xprt_mode == BENCH_XPRT_CALLER;
	if (m->caller)
		m->nthreads = cfg->numjobs; /* workers, run by the jobs */
	m->store = cfg->verify;
	m->read_data = m->store || m->corrupt;
	m->timed = m->virt || m->lat_max || m->slow_n;
	m->extras = m->timed || m->read_data || m->slots || m->eagain_every ||
		    m->fail_at;
	m->wmask = m->nthreads & (m->nthreads - 1) ? ~0ull : m->nthreads - 1;
	m->nowners = cfg->numjobs + 1;
	m->owners =
		aligned_alloc(MEM_CACHELINE, sizeof(*m->owners) * m->nowners);
	if (!m->owners)
		return -ENOMEM;
	memset(m->owners, 0, sizeof(*m->owners) * m->nowners);
	pthread_mutex_init(&m->files_lock, NULL);
	pthread_mutex_init(&m->slot_lock, NULL);
	pthread_cond_init(&m->slot_cond, NULL);
	m->w = aligned_alloc(MEM_CACHELINE, sizeof(*m->w) * m->nthreads);
	if (!m->w)
		return -ENOMEM;
	memset(m->w, 0, sizeof(*m->w) * m->nthreads);
	for (i = 0; i < m->nthreads; i++) {
		struct mem_worker *w = &m->w[i];

		w->m = m;
		w->cap = cfg->max_inflight;
		w->heap = calloc(w->cap ? w->cap : 1, sizeof(*w->heap));
	}
	for (i = 0; i < m->nthreads; i++) {
		struct mem_worker *w = &m->w[i];

		if (!w->heap) {
			ret = -ENOMEM;
			goto out_stop;
		}
		if (m->caller)
			continue;
		ret = -pthread_create(&w->thread, NULL, mem_worker_main, w);
		if (ret)
			goto out_stop;
		w->started = true;
		m->started++;
	}
	for (i = 0; i < m->npre; i++) {
		struct mem_file *f = mem_file_add(m, m->pre[i].name);

		if (!f) {
			ret = -ENOMEM;
			goto out_stop;
		}
		atomic_store(&f->size, m->pre[i].size);
	}
	lim->max_io = m->max_io;
	return 0;

out_stop:
	workers_stop(m);
	return ret;
}

/* stat(): the file's visible size (--mem-file makes one before the run) */
static int mem_stat(void *priv, const char *filename, uint64_t *size)
{
	struct mem_be *m = priv;
	struct mem_file *f;
	int ret = 0;

	pthread_mutex_lock(&m->files_lock);
	f = mem_file_find(m, filename);
	if (f)
		*size = atomic_load(&f->size);
	else
		ret = -ENOENT;
	pthread_mutex_unlock(&m->files_lock);
	return ret;
}

static int mem_job_open(void *priv, struct bench_job_info *job)
{
	struct mem_be *m = priv;
	struct mem_file *f = NULL;
	int ret = 0;

	if (!job->filename) {
		job->priv = NULL;
		job->file_size = 0;
		return 0;
	}
	pthread_mutex_lock(&m->files_lock);
	f = mem_file_find(m, job->filename);
	if (!f) {
		if (!(job->open_flags & BENCH_OPEN_CREATE)) {
			ret = -ENOENT;
			goto out_unlock;
		}
		f = mem_file_add(m, job->filename);
		if (!f) {
			ret = -ENOMEM;
			goto out_unlock;
		}
	}
	if (m->store && (job->open_flags & BENCH_OPEN_WRITE) &&
	    f->cap < job->size) {
		uint8_t *d = realloc(f->data, job->size);

		if (!d) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		memset(d + f->cap, 0, job->size - f->cap);
		f->data = d;
		f->cap = job->size;
	}
	if ((job->open_flags & BENCH_OPEN_EXTEND) &&
	    atomic_load(&f->size) < job->size)
		atomic_store(&f->size, job->size);
	job->file_size = atomic_load(&f->size);
	job->priv = f;
out_unlock:
	pthread_mutex_unlock(&m->files_lock);
	return ret;
}

/* ------------------------------------------------------------ submit */

/* @cur I/Os in flight now: the most seen at once is at least that */
static void note_inflight(struct mem_be *m, uint64_t cur)
{
	uint64_t mx =
		atomic_load_explicit(&m->max_inflight, memory_order_relaxed);

	while (cur > mx && !atomic_compare_exchange_weak_explicit(
				   &m->max_inflight, &mx, cur,
				   memory_order_relaxed, memory_order_relaxed))
		;
}

/* take_slot() with a --mem-slots limit: refuse (NOWAIT) or wait */
static int take_slot_limited(struct mem_be *m, unsigned int flags)
{
	uint64_t cur = atomic_load(&m->inflight);

	for (;;) {
		if (m->slots && cur >= m->slots) {
			if (flags & BENCH_SUBMIT_NOWAIT)
				return -EBUSY;
			pthread_mutex_lock(&m->slot_lock);
			atomic_fetch_add(&m->slot_waiters, 1);
			atomic_fetch_add_explicit(&m->slot_waits, 1,
						  memory_order_relaxed);
			while ((cur = atomic_load(&m->inflight)) >= m->slots)
				pthread_cond_wait(&m->slot_cond, &m->slot_lock);
			atomic_fetch_sub(&m->slot_waiters, 1);
			pthread_mutex_unlock(&m->slot_lock);
			continue;
		}
		if (atomic_compare_exchange_weak(&m->inflight, &cur, cur + 1))
			break;
	}
	note_inflight(m, cur + 1);
	return 0;
}

/* one more I/O in flight, without a slot limit: only the count */
static inline void count_slot(struct mem_be *m)
{
	note_inflight(m, atomic_fetch_add(&m->inflight, 1) + 1);
}

/* a request slot: one more I/O in flight (0, or -EBUSY for NOWAIT) */
static inline int take_slot(struct mem_be *m, unsigned int flags)
{
	if (m->slots)
		return take_slot_limited(m, flags);
	count_slot(m);
	return 0;
}

/* the latency of @o's @n-th I/O (from 0) */
static uint64_t sample_lat(struct mem_be *m, uint64_t n)
{
	if (n < m->slow_n)
		return m->slow_lat;
	if (m->lat_max == m->lat_min)
		return m->lat_min;
	return m->lat_min + mem_rand() % (m->lat_max - m->lat_min + 1);
}

/*
 * An I/O enters the back-end (submit() and run_sync() alike): its
 * owner's count, in-flight count and the most seen, --mem-fail-at, its
 * latency (@extras: m->extras, constant where it is known).  Return: the
 * owner's count of I/Os before this one.
 */
static inline uint64_t mem_enter(struct mem_be *m, const struct bench_io *io,
				 int *status, uint64_t *lat, bool extras)
{
	struct mem_owner *o = &m->owners[io->owner];
	uint64_t n;
	uint32_t fl, mx;

	fl = atomic_fetch_add_explicit(&o->inflight, 1, memory_order_relaxed) +
	     1;
	mx = atomic_load_explicit(&o->max, memory_order_relaxed);
	while (fl > mx && !atomic_compare_exchange_weak_explicit(
				  &o->max, &mx, fl, memory_order_relaxed,
				  memory_order_relaxed))
		;
	n = atomic_fetch_add_explicit(&o->ops, 1, memory_order_relaxed);
	*status = 0;
	*lat = 0;
	if (!extras)
		return n;
	if (m->fail_at &&
	    atomic_fetch_add_explicit(&m->fail_seq, 1, memory_order_relaxed) ==
		    m->fail_at - 1) {
		*status = -EIO;
		atomic_fetch_add_explicit(&m->injected, 1,
					  memory_order_relaxed);
	}
	if (m->timed)
		*lat = sample_lat(m, n);
	return n;
}

/* --mem-eagain, then a request slot: 0, or -EBUSY (counted) */
static int mem_admit(struct mem_be *m, unsigned int flags)
{
	if ((m->eagain_every && (flags & BENCH_SUBMIT_NOWAIT) &&
	     (atomic_fetch_add_explicit(&m->nowait_calls, 1,
					memory_order_relaxed) +
	      1) % m->eagain_every ==
		     0) ||
	    take_slot(m, flags)) {
		atomic_fetch_add_explicit(&m->eagain, 1, memory_order_relaxed);
		return -EBUSY;
	}
	return 0;
}

/* the wake of mem_push(), out of line (see mem_submit()) */
static __attribute__((noinline)) int mem_wake(struct mem_be *m,
					      struct mem_worker *w)
{
	if (atomic_exchange(&w->sleeping, false)) {
		atomic_fetch_add_explicit(&m->wakes, 1, memory_order_relaxed);
		worker_wake(w);
	}
	return 0;
}

/*
 * Hand @r to its completion thread, round-robin by @n (the owner's count
 * of I/Os plus the owner: each owner from a thread of its own), and wake
 * the thread if it sleeps.  Return: 0.
 */
static inline int mem_push(struct mem_be *m, struct mem_req *r, uint64_t n)
{
	struct mem_worker *w = &m->w[m->caller	       ? r->io->job->index :
				     m->wmask != ~0ull ? n & m->wmask :
							 n % m->nthreads];

	r->next = atomic_load_explicit(&w->inbox, memory_order_relaxed);
	while (!atomic_compare_exchange_weak(&w->inbox, &r->next, r))
		;
	/* the load first: no locked exchange while it is awake */
	if (atomic_load(&w->sleeping))
		return mem_wake(m, w);
	return 0;
}

/* submit() with extras: faults, a slot limit, a latency */
static __attribute__((noinline)) int
mem_submit_any(struct mem_be *m, struct bench_io *io, unsigned int flags)
{
	struct mem_req *r = io->priv;
	uint64_t n, lat;

	if (mem_admit(m, flags))
		return -EBUSY;
	n = mem_enter(m, io, &r->status, &lat, true);
	r->io = io;
	r->vdone = 0;
	r->due = 0;
	if (m->virt)
		r->vdone = io->t_submit + lat + !lat;
	else if (lat)
		r->due = bench_now_ns() + lat;
	return mem_push(m, r, n + io->owner);
}

/*
 * The plain submit (no extras) calls nothing but in tail position
 * (mem_submit_any(), mem_wake()), so it needs no callee-saved register:
 * no prologue of six pushes and pops per I/O.
 */
static int mem_submit(void *priv, struct bench_io *io, unsigned int flags)
{
	struct mem_be *m = priv;
	struct mem_req *r = io->priv;
	uint64_t n, lat;

	/* owner 0 < owner < nowners, in one comparison */
	if (io->owner - 1 >= (uint64_t)m->nowners - 1)
		return -EINVAL;
	if (m->extras)
		return mem_submit_any(m, io, flags);
	count_slot(m);
	n = mem_enter(m, io, &r->status, &lat, false);
	r->io = io;
	r->vdone = 0;
	r->due = 0;
	return mem_push(m, r, n + io->owner);
}

/*
 * --libxprt-mode caller: the job's thread completes what its worker has
 * due, and sleeps until the next timer (a latency) or @deadline_ns when
 * nothing is.  Nothing else fills the worker: only this thread submits
 * to it.
 */
static int mem_job_service(void *priv, struct bench_job_info *job,
			   uint64_t deadline_ns)
{
	struct mem_be *m = priv;
	struct mem_worker *w = &m->w[job->index];
	uint64_t now = 0, until;
	struct timespec ts;
	unsigned int n;

	for (;;) {
		n = worker_pass(w, &now);
		if (n) {
			atomic_fetch_add_explicit(&m->serviced, n,
						  memory_order_relaxed);
			return (int)n;
		}
		now = bench_now_ns();
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		until = w->nheap && w->heap[0]->due < deadline_ns ?
				w->heap[0]->due :
				deadline_ns;
		if (until > now) {
			ts.tv_sec = (time_t)((until - now) / 1000000000ull);
			ts.tv_nsec = (long)((until - now) % 1000000000ull);
			nanosleep(&ts, NULL);
		}
	}
}

/*
 * run_sync(): the I/O done on the calling (job) thread with the
 * accounting and faults of submit() + complete(): a request slot (waited
 * for: this thread may block), the owner's in-flight count, --mem-fail-at,
 * the latency slept here.  -EAGAIN (submit it) without --mem-sync, and for
 * a virtual latency, which needs a completion stamp this hook cannot give.
 */
static int mem_run_sync(void *priv, struct bench_io *io, int *status,
			size_t *bytes)
{
	struct mem_be *m = priv;
	uint64_t lat;
	int ret;

	if (!m->sync || (m->virt && (m->lat_max || m->slow_n)))
		return -EAGAIN;
	if (io->owner == 0 || io->owner >= m->nowners)
		return -EAGAIN; /* submit() reports it */
	ret = take_slot(m, 0);
	if (ret)
		return -EAGAIN;
	mem_enter(m, io, status, &lat, m->extras);
	if (lat && !m->virt) {
		struct timespec ts = {
			.tv_sec = (time_t)(lat / 1000000000ull),
			.tv_nsec = (long)(lat % 1000000000ull),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	if (!*status)
		do_data(m, io, status);
	*bytes = mem_bytes(io, *status);
	mem_leave(m, io);
	atomic_fetch_add_explicit(&m->sync_ios, 1, memory_order_relaxed);
	return 0;
}

/* ------------------------------------------------------------ the rest */

static void mem_stats(void *priv, bench_stat_fn fn, void *arg)
{
	struct mem_be *m = priv;
	uint32_t mn = UINT32_MAX, mx = 0;
	uint64_t submitted = 0, inflight = 0;
	unsigned int i, seen = 0;

	for (i = 1; i < m->nowners; i++) {
		uint32_t v = atomic_load(&m->owners[i].max);
		uint64_t ops = atomic_load(&m->owners[i].ops);

		submitted += ops;
		inflight += atomic_load(&m->owners[i].inflight);
		if (!ops)
			continue;
		seen++;
		if (v < mn)
			mn = v;
		if (v > mx)
			mx = v;
	}
	fn(arg, "submitted", submitted);
	/* (while I/Os enter, an in-flight count may be ahead of ops) */
	fn(arg, "completed", submitted > inflight ? submitted - inflight : 0);
	fn(arg, "max_inflight", atomic_load(&m->max_inflight));
	fn(arg, "owners", seen);
	fn(arg, "owner_max_inflight_min", seen ? mn : 0);
	fn(arg, "owner_max_inflight_max", mx);
	fn(arg, "eagain", atomic_load(&m->eagain));
	fn(arg, "slot_waits", atomic_load(&m->slot_waits));
	fn(arg, "injected_errors", atomic_load(&m->injected));
	fn(arg, "corrupted_reads", atomic_load(&m->corrupted));
	fn(arg, "threads", m->started);
	fn(arg, "serviced", atomic_load(&m->serviced));
	fn(arg, "sync_ios", atomic_load(&m->sync_ios));
	fn(arg, "naps", atomic_load(&m->naps));
	fn(arg, "wakes", atomic_load(&m->wakes));
}

static void mem_teardown(void *priv)
{
	struct mem_be *m = priv;
	unsigned int i;

	workers_stop(m);
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i]->name);
		free(m->files[i]->data);
		free(m->files[i]);
	}
	free(m->files);
	m->files = NULL;
	m->nfiles = m->capfiles = 0;
	pthread_cond_destroy(&m->slot_cond);
	pthread_mutex_destroy(&m->slot_lock);
	pthread_mutex_destroy(&m->files_lock);
}

static void mem_destroy(void *priv)
{
	struct mem_be *m = priv;

	free(m->owners);
	m->owners = NULL;
}

uint32_t bench_mem_owner_max_inflight(const void *priv, uint64_t owner)
{
	const struct mem_be *m = priv;

	return m && owner < m->nowners ? atomic_load(&m->owners[owner].max) : 0;
}

uint64_t bench_mem_owner_ops(const void *priv, uint64_t owner)
{
	const struct mem_be *m = priv;

	return m && owner < m->nowners ? atomic_load(&m->owners[owner].ops) : 0;
}

uint64_t bench_mem_max_inflight(const void *priv)
{
	const struct mem_be *m = priv;

	return m ? atomic_load(&m->max_inflight) : 0;
}

unsigned int bench_mem_owner_slots(const void *priv)
{
	const struct mem_be *m = priv;

	return m ? m->nowners : 0;
}

void bench_mem_job_drop(struct bench_job_info *job)
{
	struct mem_file *f = job->priv;

	if (f && f->data)
		memset(f->data, 0, f->cap);
}

int bench_mem_job_pwrite(struct bench_job_info *job, const void *buf,
			 size_t len, uint64_t off)
{
	struct mem_file *f = job->priv;

	if (!f || !f->data)
		return -ENODATA;
	if (off > f->cap || len > f->cap - off)
		return -EFBIG;
	memcpy(f->data + off, buf, len);
	return 0;
}

const struct bench_backend_ops bench_mem_backend = {
	.name = "mem",
	.summary = "Benchmark the bench engine against an in-memory back-end "
		   "with simulated latency\nand fault injection.",
	.priv_size = sizeof(struct mem_be),
	.io_priv_size = sizeof(struct mem_req),
	.ops_supported =
		BENCH_OP_BIT(BENCH_OP_READ) | BENCH_OP_BIT(BENCH_OP_WRITE) |
		BENCH_OP_BIT(BENCH_OP_NULL) | BENCH_OP_BIT(BENCH_OP_GETATTR) |
		BENCH_OP_BIT(BENCH_OP_FSYNC),
	.options = mem_options,
	.usage_extra = "Example: engine overhead with zero latency:\n"
		       "  mem-bench --rw randread --bs 4k --iodepth 32 "
		       "--numjobs 2 --runtime 5\n",
	.init = mem_init,
	.parse_option = mem_parse_option,
	.check = mem_check,
	.setup = mem_setup,
	.stat = mem_stat,
	.job_open = mem_job_open,
	.submit = mem_submit,
	.job_service = mem_job_service,
	.run_sync = mem_run_sync,
	.stats = mem_stats,
	.teardown = mem_teardown,
	.destroy = mem_destroy,
};
