/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-interval logs (--write_log), in the spirit of fio's bw/iops/lat
 * logs: one TSV line per interval (1 s by default) for all jobs together,
 * and with --log_per_job one more per job, each with IOPS, bandwidth and
 * latency (mean, p50, p99) per direction.
 *
 * The I/O path does nothing for it.  The main thread, which already wakes
 * at least every 100 ms to watch the phase (phase.c), snapshots the same
 * histograms and byte counters the completions update: each interval is
 * the difference between two snapshots (bench_hist_delta()), so its
 * percentiles are those of the interval's own samples, not of the run so
 * far.  Every snapshot buffer is allocated when the log is opened, before
 * the run: nothing is allocated while it goes.  The cost is on the main
 * thread: a pass over the histogram buckets of each job per interval
 * (about 12 k words per job).
 *
 * Lines are written only in measured phases, after the ramp; the time
 * column is the end of the interval in seconds from the start of the
 * first measured phase (ior's phases follow one another on one time
 * axis), and the last interval of a phase is shorter when the phase ends
 * inside it (rates use each interval's real length, which the last
 * column gives: the time between phases, open and close of ior's files
 * among them, belongs to no interval, so the time column alone cannot
 * tell where an interval began).  Under MPI each rank
 * logs its own jobs to its own file (FILE.RANK: per-second collectives
 * would cost the run), and the ranks' time axes start together.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

struct bench_log {
	FILE *f;
	uint64_t interval;
	bool per_job;
	unsigned int njobs;
	uint64_t t0;   /* time origin: the first measured phase's start */
	uint64_t last; /* end of the last interval written */
	uint64_t next; /* when the next line is due; UINT64_MAX: idle */
	/* all jobs: the previous snapshot, the current one, the interval */
	struct bench_hist *prev[DIR_NR], *cur[DIR_NR], *delta;
	uint64_t prev_bytes[DIR_NR];
	/* per job: previous snapshots (njobs x DIR_NR) and a spare */
	struct bench_hist **jprev, *spare;
	uint64_t *jprev_bytes;
};

static const char *const cols[] = {"iops", "bw_bytes", "lat_mean_ns",
				   "lat_p50_ns", "lat_p99_ns"};

/**
 * bench_rank_path() - the file name rank @rank uses for @path
 *
 * Alone (@nranks <= 1) @path itself; else the rank number goes before the
 * extension of the last component ("run.tsv" -> "run.3.tsv") or at the
 * end ("run" -> "run.3"), so every rank writes its own file.
 * Return: 0; -ENAMETOOLONG when @len is too small.
 */
int bench_rank_path(char *out, size_t len, const char *path, unsigned int rank,
		    unsigned int nranks)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	int n;

	if (nranks <= 1)
		n = snprintf(out, len, "%s", path);
	else if (dot && dot != base) /* not a hidden file's only dot */
		n = snprintf(out, len, "%.*s.%u%s", (int)(dot - path), path,
			     rank, dot);
	else
		n = snprintf(out, len, "%s.%u", path, rank);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static struct bench_hist *hist_new(void)
{
	struct bench_hist *h = malloc(sizeof(*h));

	if (h)
		bench_hist_init(h);
	return h;
}

static void log_free(struct bench_log *l)
{
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < DIR_NR; i++) {
		free(l->prev[i]);
		free(l->cur[i]);
	}
	free(l->delta);
	for (i = 0; l->jprev && i < l->njobs * DIR_NR; i++)
		free(l->jprev[i]);
	free(l->jprev);
	free(l->jprev_bytes);
	free(l->spare);
	free(l);
}

static int log_alloc(struct bench_log *l)
{
	unsigned int i, n = l->njobs * DIR_NR;

	for (i = 0; i < DIR_NR; i++) {
		l->prev[i] = hist_new();
		l->cur[i] = hist_new();
		if (!l->prev[i] || !l->cur[i])
			return -ENOMEM;
	}
	l->delta = hist_new();
	if (!l->delta)
		return -ENOMEM;
	if (!l->per_job)
		return 0;
	l->jprev = calloc(n, sizeof(*l->jprev));
	l->jprev_bytes = calloc(n, sizeof(*l->jprev_bytes));
	l->spare = hist_new();
	if (!l->jprev || !l->jprev_bytes || !l->spare)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		l->jprev[i] = hist_new();
		if (!l->jprev[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * bench_log_open() - open the --write_log file and allocate the snapshots
 * Context: bench_parse(), main thread.
 * Return: 0 (also without --write_log); -EINVAL after a message when the
 * file cannot be created or memory is short.
 */
int bench_log_open(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	struct bench_log *l;
	char path[4096];
	unsigned int d, k;
	int ret;

	if (!o->log_file)
		return 0;
	ret = bench_rank_path(path, sizeof(path), o->log_file, bench_rank(b),
			      bench_nranks(b));
	if (ret) {
		bench_error("--write_log %s: %s", o->log_file, strerror(-ret));
		return -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		goto out_nomem;
	l->interval = o->log_interval_ns;
	l->per_job = o->log_per_job;
	l->njobs = o->numjobs;
	l->next = UINT64_MAX;
	if (log_alloc(l))
		goto out_nomem;
	l->f = fopen(path, "w");
	if (!l->f) {
		bench_error("--write_log %s: %s", path, strerror(errno));
		log_free(l);
		return -EINVAL;
	}
	fputs("time_s\tjob\tphase", l->f);
	for (d = 0; d < DIR_NR; d++)
		for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
			fprintf(l->f, "\t%s_%s", bench_dir_name(d), cols[k]);
	fputs("\tinterval_s\n", l->f);
	b->logs.log = l;
	return 0;

out_nomem:
	log_free(l);
	bench_error("--write_log: out of memory for %u jobs' snapshots",
		    o->numjobs);
	return -EINVAL;
}

/** bench_log_close() - flush and close the log; free it (NULL ok) */
void bench_log_close(struct bench *b)
{
	struct bench_log *l = b->logs.log;

	if (!l)
		return;
	if (l->f)
		fclose(l->f);
	log_free(l);
	b->logs.log = NULL;
}

/** bench_log_next() - when the next line is due (UINT64_MAX: none) */
uint64_t bench_log_next(const struct bench *b)
{
	return b->logs.log ? b->logs.log->next : UINT64_MAX;
}

static uint64_t rate(uint64_t n, uint64_t dt)
{
	return dt ? (uint64_t)((double)n * 1e9 / (double)dt + 0.5) : 0;
}

/*
 * What one direction did in an interval.  Operations, their latency sum
 * and bytes come from the counters, which a snapshot reads a few loads
 * apart, so IOPS, mean and bandwidth agree with each other; the
 * percentiles come from the bucket differences, read over a longer pass
 * while completions go on (their count may differ by the operations
 * completed meanwhile, which only moves a percentile within its bucket).
 */
struct ivl {
	uint64_t ops, sum, bytes;
};

static uint64_t hsum(const struct bench_hist *h)
{
	return atomic_load_explicit(&h->sum, memory_order_relaxed);
}

static void ivl_add(struct ivl *v, const struct bench_hist *now,
		    const struct bench_hist *then, uint64_t bytes)
{
	v->ops += bench_hist_count(now) - bench_hist_count(then);
	v->sum += hsum(now) - hsum(then);
	v->bytes += bytes;
}

/* One direction's five columns. */
static void put_dir(FILE *f, const struct bench_hist *delta,
		    const struct ivl *v, uint64_t dt)
{
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%.0f\t%" PRIu64 "\t%" PRIu64,
		rate(v->ops, dt), rate(v->bytes, dt),
		v->ops ? (double)v->sum / (double)v->ops : 0.0,
		bench_hist_percentile(delta, 50),
		bench_hist_percentile(delta, 99));
}

static void put_head(struct bench *b, FILE *f, uint64_t t, const char *job)
{
	const char *p;

	fprintf(f, "%.3f\t%s\t", (double)(t - b->logs.log->t0) / 1e9, job);
	/* one word per field: labels such as "ior write" have spaces */
	for (p = b->phase.label; *p; p++)
		fputc(*p == ' ' ? '-' : *p, f);
}

/* The line's last field: the interval's real length, in seconds. */
static void put_tail(FILE *f, uint64_t dt)
{
	fprintf(f, "\t%.6f\n", (double)dt / 1e9);
}

static uint64_t job_bytes(const struct bench_job *j, enum bench_dir d)
{
	return atomic_load_explicit(&j->bytes[d], memory_order_relaxed);
}

/*
 * One job's line: for each direction, snapshot the live histogram once
 * (what is reported is exactly what the next interval starts from), take
 * the difference with the previous snapshot, and add it to the all-jobs
 * interval in l->cur[] so that the "all" line is the sum of the jobs'.
 */
static void log_job(struct bench *b, struct bench_job *j, unsigned int i,
		    uint64_t t, uint64_t dt, struct ivl *agg)
{
	struct bench_log *l = b->logs.log;
	struct bench_hist **pp, *tmp;
	uint64_t by, *pb;
	struct ivl v;
	unsigned int d;

	put_head(b, l->f, t, j->name);
	for (d = 0; d < DIR_NR; d++) {
		pp = &l->jprev[i * DIR_NR + d];
		pb = &l->jprev_bytes[i * DIR_NR + d];
		bench_hist_copy(l->spare, j->hist[d]);
		by = job_bytes(j, d); /* right after the copy's counters */
		bench_hist_delta(l->delta, l->spare, *pp);
		memset(&v, 0, sizeof(v));
		ivl_add(&v, l->spare, *pp, by - *pb);
		put_dir(l->f, l->delta, &v, dt);
		bench_hist_merge(l->cur[d], l->delta);
		ivl_add(&agg[d], l->spare, *pp, by - *pb);
		tmp = *pp;
		*pp = l->spare;
		l->spare = tmp;
		*pb = by;
	}
	put_tail(l->f, dt);
}

/* Write the interval (last, t] and start the next one at @t. */
static void log_emit(struct bench *b, uint64_t t)
{
	struct bench_log *l = b->logs.log;
	uint64_t dt = t - l->last, by;
	struct ivl agg[DIR_NR];
	unsigned int i, d;

	memset(agg, 0, sizeof(agg));
	if (l->per_job) {
		for (d = 0; d < DIR_NR; d++)
			bench_hist_init(l->cur[d]);
		for (i = 0; i < b->njobs; i++)
			log_job(b, &b->jobs[i], i, t, dt, agg);
		put_head(b, l->f, t, "all");
		for (d = 0; d < DIR_NR; d++)
			put_dir(l->f, l->cur[d], &agg[d], dt);
		goto out_line;
	}
	put_head(b, l->f, t, "all");
	for (d = 0; d < DIR_NR; d++) {
		struct bench_hist *tmp;

		bench_hist_init(l->cur[d]);
		by = 0;
		for (i = 0; i < b->njobs; i++) {
			bench_hist_merge(l->cur[d], b->jobs[i].hist[d]);
			by += job_bytes(&b->jobs[i], d);
		}
		bench_hist_delta(l->delta, l->cur[d], l->prev[d]);
		ivl_add(&agg[d], l->cur[d], l->prev[d], by - l->prev_bytes[d]);
		put_dir(l->f, l->delta, &agg[d], dt);
		tmp = l->prev[d];
		l->prev[d] = l->cur[d];
		l->cur[d] = tmp;
		l->prev_bytes[d] = by;
	}
out_line:
	put_tail(l->f, dt);
	fflush(l->f);
	l->last = t;
}

/* Take the starting snapshots without writing a line. */
static void log_snapshot(struct bench *b)
{
	struct bench_log *l = b->logs.log;
	unsigned int i, d;

	for (d = 0; d < DIR_NR; d++) {
		bench_hist_init(l->prev[d]);
		l->prev_bytes[d] = 0;
		for (i = 0; i < b->njobs; i++) {
			bench_hist_merge(l->prev[d], b->jobs[i].hist[d]);
			l->prev_bytes[d] += job_bytes(&b->jobs[i], d);
			if (l->per_job) {
				bench_hist_copy(l->jprev[i * DIR_NR + d],
						b->jobs[i].hist[d]);
				l->jprev_bytes[i * DIR_NR + d] =
					job_bytes(&b->jobs[i], d);
			}
		}
	}
}

/**
 * bench_log_phase_start() - a measured phase begins (b->phase is set, no
 * job thread runs yet); its first interval starts at the end of the ramp
 * Context: main thread.
 */
void bench_log_phase_start(struct bench *b)
{
	struct bench_log *l = b->logs.log;

	if (!l)
		return;
	if (!l->t0)
		l->t0 = b->phase.t_measure;
	log_snapshot(b);
	/* nothing is recorded during the ramp: the snapshot taken now is
	 * the state at its end */
	l->last = b->phase.t_measure;
	l->next = l->last + l->interval;
}

/**
 * bench_log_tick() - write the lines due at @now
 * Context: main thread, while a phase runs.
 */
void bench_log_tick(struct bench *b, uint64_t now)
{
	struct bench_log *l = b->logs.log;

	if (!l || now < l->next)
		return;
	if (now > b->phase.t_end)
		return; /* the phase's end writes the last line */
	log_emit(b, now);
	/* stay on the interval grid, skipping ticks that were missed */
	while (l->next <= now)
		l->next += l->interval;
}

/**
 * bench_log_phase_end() - the phase's jobs are joined: write the last,
 * possibly shorter, interval (up to the runtime's end at most)
 * Context: main thread.
 */
void bench_log_phase_end(struct bench *b, uint64_t now)
{
	struct bench_log *l = b->logs.log;
	uint64_t t = now < b->phase.t_end ? now : b->phase.t_end;

	if (!l || l->next == UINT64_MAX)
		return;
	if (t > l->last)
		log_emit(b, t);
	l->next = UINT64_MAX;
}
