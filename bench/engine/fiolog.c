/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio's logs: --write_lat_log, --write_bw_log, --write_iops_log (with
 * --log_avg_msec), --write_hist_log (with --log_hist_msec),
 * --per_job_logs, in fio 3.33's formats, so that fio2gnuplot,
 * fio_generate_plots and fiologparser_hist.py read them.
 *
 * Files: PREFIX_lat.N.log, PREFIX_clat.N.log, PREFIX_slat.N.log,
 * PREFIX_bw.N.log, PREFIX_iops.N.log, PREFIX_clat_hist.N.log, N the job's
 * number from 1, global under MPI, where every rank writes the logs of
 * its own jobs (with --per_job_logs=0 one file per kind, no ".N"; under
 * MPI one per kind and rank, PREFIX_lat.R.log).
 * Lines: "time_ms, value, ddir, bs, prio" (fio without log_offset; with
 * --log_offset=1 the I/O's offset before prio):
 * latencies in ns, bandwidth in KiB/s, IOPS; ddir 0 read, 1 write (and
 * our metadata operations as 2, fio's trim slot, which they are not:
 * they appear only in their own runs).  The engine times submission to
 * completion as one latency, so lat and clat carry it and slat is empty,
 * as fio's are for its synchronous engines.
 *
 * Two ways, as in fio:
 *   - per I/O (no --log_avg_msec): each completion puts (time, latency,
 *     direction, length) in its job's ring, a preallocated array with one
 *     atomic counter; the main thread, which wakes at least every 100 ms,
 *     writes out what is there.  A full ring drops the entry (counted in
 *     the back-end counters as log_dropped) rather than block.  Per-I/O
 *     bandwidth is the I/O's length over its latency, per-I/O IOPS 1.
 *   - windowed (--log_avg_msec N): every N ms the main thread writes, per
 *     job and direction that moved, the mean latency, KiB/s and IOPS of
 *     the window from the same counters and histograms the report uses
 *     (nothing on the I/O path), with bs 0 as fio writes it.
 * Histogram logs: every --log_hist_msec, per job and direction that
 * moved, "time_ms, ddir, bs, " and fio's 1856 bins of completion latency
 * for the window (fio's bucket layout: 64 per power of two; ours has 128,
 * and each of ours falls inside one of fio's).
 * Only measured time is logged; times are ms from the start of the first
 * measured phase, as fio's from the job's start.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

#define RING_ENTRIES   (1u << 16)
#define FIO_PLAT_BITS  6
#define FIO_PLAT_VAL   (1u << FIO_PLAT_BITS)
#define FIO_PLAT_NR    (29u * FIO_PLAT_VAL) /* FIO_IO_U_PLAT_NR: 1856 */
#define MAX_WINDOW_DIR 3

enum { LK_LAT, LK_CLAT, LK_SLAT, LK_BW, LK_IOPS, LK_HIST, LK_NR };

static const char *const kind_names[LK_NR] = {"lat", "clat", "slat",
					      "bw",  "iops", "clat_hist"};

struct bench_flog_ent {
	_Atomic uint64_t seq; /* index + 1 once written */
	uint64_t t_ns;
	uint64_t lat_ns;
	uint64_t off;
	uint32_t len;
	uint8_t dir;
};

struct bench_flog_ring {
	_Atomic uint64_t head __attribute__((aligned(BENCH_CACHELINE)));
	_Atomic uint64_t tail __attribute__((aligned(BENCH_CACHELINE)));
	_Atomic uint64_t dropped;
	struct bench_flog_ent ent[RING_ENTRIES];
};

struct flog_job {
	FILE *f[LK_NR];
	struct bench_flog_ring *ring;
	/* windowed: the counters at the window's start */
	uint64_t ops[DIR_NR], bytes[DIR_NR], sum[DIR_NR];
	struct bench_hist *hprev[DIR_NR];
};

struct bench_fiolog {
	struct flog_job *jobs;
	unsigned int njobs;
	bool per_job;
	bool offset; /* --log_offset: a column for the I/O's offset */
	bool kind[LK_NR];
	uint64_t avg_ns, hist_ns;
	uint64_t t0;
	uint64_t avg_next, hist_next;
	struct bench_hist *spare, *delta;
	uint64_t *bins;
};

static bool any_log(const struct bench_opts *o)
{
	return o->lat_log || o->bw_log || o->iops_log || o->hist_log;
}

static int open_one(struct bench *b, struct flog_job *fj, unsigned int k,
		    const char *prefix, unsigned int num, FILE *shared)
{
	char path[4096];

	if (shared) {
		fj->f[k] = shared;
		return 0;
	}
	if (b->o.per_job_logs) {
		/* num is global: under MPI no two ranks write the same file */
		snprintf(path, sizeof(path), "%s_%s.%u.log", prefix,
			 kind_names[k], num);
	} else {
		char one[4096];

		/* one file per rank under MPI (PREFIX_lat.R.log, as
		 * --write_log names them) */
		snprintf(one, sizeof(one), "%s_%s.log", prefix, kind_names[k]);
		if (bench_rank_path(path, sizeof(path), one, bench_rank(b),
				    bench_nranks(b))) {
			bench_error("%s: %s", one, strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
	}
	fj->f[k] = fopen(path, "w");
	if (!fj->f[k]) {
		bench_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static const char *prefix_of(const struct bench_opts *o, unsigned int k)
{
	const char *p = k <= LK_SLAT ? o->lat_log :
			k == LK_BW   ? o->bw_log :
			k == LK_IOPS ? o->iops_log :
				       o->hist_log;

	/* fio: an empty value means the job's name */
	return p && *p ? p : o->name;
}

/**
 * bench_fiolog_open() - create the log files and rings
 * Context: bench_run(), main thread, once the jobs exist.
 * Return: 0 (also without any fio log); -errno after a message.
 */
int bench_fiolog_open(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	struct bench_fiolog *l;
	unsigned int i, k, d;
	int ret;

	/* under MPI every rank logs its own jobs */
	if (!any_log(o))
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	b->logs.fiolog = l;
	l->per_job = o->per_job_logs;
	l->offset = o->log_offset;
	l->kind[LK_LAT] = l->kind[LK_CLAT] = l->kind[LK_SLAT] = o->lat_log;
	l->kind[LK_BW] = o->bw_log;
	l->kind[LK_IOPS] = o->iops_log;
	l->kind[LK_HIST] = o->hist_log && o->log_hist_ns;
	l->avg_ns = o->log_avg_ns;
	l->hist_ns = o->log_hist_ns;
	l->njobs = b->njobs;
	l->jobs = calloc(b->njobs, sizeof(*l->jobs));
	l->spare = malloc(sizeof(*l->spare));
	l->delta = malloc(sizeof(*l->delta));
	l->bins = calloc(FIO_PLAT_NR, sizeof(*l->bins));
	if (!l->jobs || !l->spare || !l->delta || !l->bins)
		return -ENOMEM;
	for (i = 0; i < b->njobs; i++) {
		struct flog_job *fj = &l->jobs[i];

		for (k = 0; k < LK_NR; k++) {
			if (!l->kind[k])
				continue;
			ret = open_one(b, fj, k, prefix_of(o, k),
				       b->logs.job_base + b->jobs[i].gid + 1,
				       i && !l->per_job ? l->jobs[0].f[k] :
							  NULL);
			if (ret)
				return ret;
		}
		if (!l->avg_ns && (o->lat_log || o->bw_log || o->iops_log)) {
			fj->ring = aligned_alloc(BENCH_CACHELINE,
						 sizeof(*fj->ring));
			if (!fj->ring)
				return -ENOMEM;
			memset(fj->ring, 0, sizeof(*fj->ring));
			b->jobs[i].flog = fj->ring;
		}
		for (d = 0; l->kind[LK_HIST] && d < DIR_NR; d++) {
			fj->hprev[d] = malloc(sizeof(struct bench_hist));
			if (!fj->hprev[d])
				return -ENOMEM;
			bench_hist_init(fj->hprev[d]);
		}
	}
	return 0;
}

/**
 * bench_flog_record() - a completion's per-I/O log entry (lock-free,
 * never blocks; a full ring drops it)
 * Context: completion threads.
 */
void bench_flog_record(struct bench_flog_ring *r, uint64_t t, uint64_t lat,
		       unsigned int dir, uint32_t len, uint64_t off)
{
	uint64_t i = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct bench_flog_ent *e;

	/* reserve a slot only while the ring has room: no holes, so the
	 * reader never waits for an entry that will not come */
	do {
		if (i - atomic_load_explicit(&r->tail, memory_order_acquire) >=
		    RING_ENTRIES) {
			atomic_fetch_add_explicit(&r->dropped, 1,
						  memory_order_relaxed);
			return;
		}
	} while (!atomic_compare_exchange_weak_explicit(&r->head, &i, i + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	e = &r->ent[i % RING_ENTRIES];
	e->t_ns = t;
	e->lat_ns = lat;
	e->len = len;
	e->off = off;
	e->dir = (uint8_t)dir;
	atomic_store_explicit(&e->seq, i + 1, memory_order_release);
}

static unsigned int fio_dir(unsigned int d)
{
	return d == DIR_READ ? 0 : d == DIR_WRITE ? 1 : 2;
}

/*
 * One log line, fio's "time, value, ddir, bs, prio", with log_offset=1
 * "time, value, ddir, bs, offset, prio" (prio always 0); windows (fio's
 * log_avg_msec) have bs and offset 0.
 */
static void put_line(const struct bench_fiolog *l, FILE *f, uint64_t ms,
		     uint64_t v, unsigned int dir, uint32_t bs, uint64_t off)
{
	if (l->offset)
		fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, %u, %" PRIu64 ", 0\n",
			ms, v, fio_dir(dir), bs, off);
	else
		fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, %u, 0\n", ms, v,
			fio_dir(dir), bs);
}

/* write out the ring's complete entries, in order */
static void drain(struct bench_fiolog *l, struct flog_job *fj, uint64_t t0)
{
	struct bench_flog_ring *r = fj->ring;
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	for (; tail < head; tail++) {
		struct bench_flog_ent *e = &r->ent[tail % RING_ENTRIES];
		uint64_t ms;

		if (atomic_load_explicit(&e->seq, memory_order_acquire) !=
		    tail + 1)
			break; /* its writer is still at it: next tick */
		ms = e->t_ns > t0 ? (e->t_ns - t0) / 1000000 : 0;
		if (l->kind[LK_LAT])
			put_line(l, fj->f[LK_LAT], ms, e->lat_ns, e->dir,
				 e->len, e->off);
		if (l->kind[LK_CLAT])
			put_line(l, fj->f[LK_CLAT], ms, e->lat_ns, e->dir,
				 e->len, e->off);
		if (l->kind[LK_BW])
			put_line(l, fj->f[LK_BW], ms,
				 e->lat_ns ? (uint64_t)e->len *
						     UINT64_C(1000000000) /
						     1024 / e->lat_ns :
					     0,
				 e->dir, e->len, e->off);
		if (l->kind[LK_IOPS])
			put_line(l, fj->f[LK_IOPS], ms, 1, e->dir, e->len,
				 e->off);
	}
	atomic_store_explicit(&r->tail, tail, memory_order_release);
}

/* one window per job and direction that moved (fio's log_avg_msec) */
static void window(struct bench *b, uint64_t t, double dt)
{
	struct bench_fiolog *l = b->logs.fiolog;
	uint64_t ms = (t - l->t0) / 1000000;
	unsigned int i, d;

	for (i = 0; i < l->njobs; i++) {
		struct flog_job *fj = &l->jobs[i];
		struct bench_job *j = &b->jobs[i];

		for (d = 0; d < DIR_NR; d++) {
			uint64_t ops = bench_hist_count(j->hist[d]);
			uint64_t by = atomic_load(&j->bytes[d]);
			uint64_t sum = atomic_load(&j->hist[d]->sum);
			uint64_t n = ops - fj->ops[d];

			if (n) {
				uint64_t mean = (sum - fj->sum[d]) / n;

				if (l->kind[LK_LAT])
					put_line(l, fj->f[LK_LAT], ms, mean, d,
						 0, 0);
				if (l->kind[LK_CLAT])
					put_line(l, fj->f[LK_CLAT], ms, mean, d,
						 0, 0);
				if (l->kind[LK_BW])
					put_line(
						l, fj->f[LK_BW], ms,
						(uint64_t)llround(
							(double)(by -
								 fj->bytes[d]) /
							1024.0 / dt),
						d, 0, 0);
				if (l->kind[LK_IOPS])
					put_line(l, fj->f[LK_IOPS], ms,
						 (uint64_t)llround((double)n /
								   dt),
						 d, 0, 0);
			}
			fj->ops[d] = ops;
			fj->bytes[d] = by;
			fj->sum[d] = sum;
		}
	}
}

/* fio's plat index of value @v (ns) */
static unsigned int fio_plat_idx(uint64_t v)
{
	unsigned int msb, err, base, off, idx;

	if (v < 2 * FIO_PLAT_VAL)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	err = msb - FIO_PLAT_BITS;
	base = (err + 1) << FIO_PLAT_BITS;
	off = (unsigned int)((v >> err) & (FIO_PLAT_VAL - 1));
	idx = base + off;
	return idx < FIO_PLAT_NR ? idx : FIO_PLAT_NR - 1;
}

static void hist_window(struct bench *b, uint64_t t)
{
	struct bench_fiolog *l = b->logs.fiolog;
	uint64_t ms = (t - l->t0) / 1000000;
	unsigned int i, d, k;

	for (i = 0; i < l->njobs; i++) {
		struct flog_job *fj = &l->jobs[i];
		struct bench_job *j = &b->jobs[i];
		struct bench_hist *tmp;

		for (d = 0; d < DIR_NR; d++) {
			bench_hist_copy(l->spare, j->hist[d]);
			bench_hist_delta(l->delta, l->spare, fj->hprev[d]);
			tmp = fj->hprev[d];
			fj->hprev[d] = l->spare;
			l->spare = tmp;
			if (!bench_hist_count(l->delta))
				continue;
			memset(l->bins, 0, FIO_PLAT_NR * sizeof(*l->bins));
			for (k = 0; k < BENCH_HIST_NBUCKETS; k++) {
				uint64_t c = atomic_load_explicit(
					&l->delta->b[k], memory_order_relaxed);

				if (c)
					l->bins[fio_plat_idx(
						bench_hist_bucket_low(k))] += c;
			}
			fprintf(fj->f[LK_HIST], "%" PRIu64 ", %u, %u", ms,
				fio_dir(d), (unsigned int)b->o.bs);
			for (k = 0; k < FIO_PLAT_NR; k++)
				fprintf(fj->f[LK_HIST], ", %" PRIu64,
					l->bins[k]);
			fputc('\n', fj->f[LK_HIST]);
		}
	}
}

/** bench_fiolog_phase_start() - a measured phase starts (main thread) */
void bench_fiolog_phase_start(struct bench *b)
{
	struct bench_fiolog *l = b->logs.fiolog;
	unsigned int i, d;

	if (!l)
		return;
	if (!l->t0)
		l->t0 = b->phase.t_measure;
	for (i = 0; i < l->njobs; i++)
		for (d = 0; d < DIR_NR; d++) {
			l->jobs[i].ops[d] =
				bench_hist_count(b->jobs[i].hist[d]);
			l->jobs[i].bytes[d] = atomic_load(&b->jobs[i].bytes[d]);
			l->jobs[i].sum[d] =
				atomic_load(&b->jobs[i].hist[d]->sum);
			if (l->jobs[i].hprev[d])
				bench_hist_copy(l->jobs[i].hprev[d],
						b->jobs[i].hist[d]);
		}
	l->avg_next = l->avg_ns ? b->phase.t_measure + l->avg_ns : UINT64_MAX;
	l->hist_next =
		l->kind[LK_HIST] ? b->phase.t_measure + l->hist_ns : UINT64_MAX;
}

/** bench_fiolog_next() - when the main thread must wake for the logs */
uint64_t bench_fiolog_next(const struct bench *b)
{
	const struct bench_fiolog *l = b->logs.fiolog;

	if (!l)
		return UINT64_MAX;
	return l->avg_next < l->hist_next ? l->avg_next : l->hist_next;
}

/** bench_fiolog_tick() - write what is due at @now (main thread) */
void bench_fiolog_tick(struct bench *b, uint64_t now)
{
	struct bench_fiolog *l = b->logs.fiolog;
	unsigned int i;

	if (!l || !b->phase.measured || now < b->phase.t_measure)
		return;
	for (i = 0; i < l->njobs; i++)
		if (l->jobs[i].ring)
			drain(l, &l->jobs[i], l->t0);
	while (now >= l->avg_next && l->avg_next <= b->phase.t_end) {
		window(b, l->avg_next, (double)l->avg_ns / 1e9);
		l->avg_next += l->avg_ns;
	}
	while (now >= l->hist_next && l->hist_next <= b->phase.t_end) {
		hist_window(b, l->hist_next);
		l->hist_next += l->hist_ns;
	}
}

/** bench_fiolog_phase_end() - the phase's jobs are joined: the rest */
void bench_fiolog_phase_end(struct bench *b, uint64_t now)
{
	struct bench_fiolog *l = b->logs.fiolog;
	unsigned int i, k;

	if (!l)
		return;
	bench_fiolog_tick(b, now);
	for (i = 0; i < l->njobs; i++)
		if (l->jobs[i].ring)
			drain(l, &l->jobs[i], l->t0);
	/* the last, shorter window: what completed since the last line */
	if (now > b->phase.t_end)
		now = b->phase.t_end;
	if (l->avg_next != UINT64_MAX && now > l->avg_next - l->avg_ns)
		window(b, now, (double)(now - (l->avg_next - l->avg_ns)) / 1e9);
	if (l->hist_next != UINT64_MAX && now > l->hist_next - l->hist_ns)
		hist_window(b, now);
	for (i = 0; i < l->njobs; i++)
		for (k = 0; k < LK_NR; k++)
			if (l->jobs[i].f[k] && (l->per_job || !i))
				fflush(l->jobs[i].f[k]);
	l->avg_next = l->hist_next = UINT64_MAX;
}

/** bench_fiolog_on() - fio's logs are written this run */
bool bench_fiolog_on(const struct bench *b)
{
	return b->logs.fiolog != NULL;
}

/** bench_fiolog_dropped() - per-I/O entries a full ring dropped */
uint64_t bench_fiolog_dropped(const struct bench *b)
{
	const struct bench_fiolog *l = b->logs.fiolog;
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; l && i < l->njobs; i++)
		if (l->jobs[i].ring)
			n += atomic_load(&l->jobs[i].ring->dropped);
	return n;
}

/** bench_fiolog_close() - close and free (NULL ok) */
void bench_fiolog_close(struct bench *b)
{
	struct bench_fiolog *l = b->logs.fiolog;
	unsigned int i, k, d;

	if (!l)
		return;
	for (i = 0; l->jobs && i < l->njobs; i++) {
		for (k = 0; k < LK_NR; k++)
			if (l->jobs[i].f[k] && (l->per_job || !i))
				fclose(l->jobs[i].f[k]);
		free(l->jobs[i].ring);
		for (d = 0; d < DIR_NR; d++)
			free(l->jobs[i].hprev[d]);
		if (i < b->njobs)
			b->jobs[i].flog = NULL;
	}
	free(l->jobs);
	free(l->spare);
	free(l->delta);
	free(l->bins);
	free(l);
	b->logs.fiolog = NULL;
}
