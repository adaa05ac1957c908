/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reports: the views (this file), fio-like text (this file), fio-like
 * JSON (report_json.c), the histogram dump (this file).
 *
 * Both formats are built from one "view" per job and one for all jobs
 * together.  The all-jobs view merges the jobs' histograms bucket by
 * bucket (never averaging percentiles), sums bytes and takes the longest
 * job's elapsed time per direction, as fio's group reporting does; it has
 * exactly the shape of a job, so a tool reading "jobs[0]" of a
 * --group_reporting run or "aggregate" of any run needs no special case,
 * and a later MPI reduction of the same histograms produces the same
 * shape again.
 *
 * Units follow fio: JSON "bw" in KiB/s, "bw_bytes" in B/s, "runtime" in
 * ms, latencies in ns, percentile keys printed "%f"; text lines pick nsec,
 * usec or msec by magnitude.  CPU figures are for the whole process
 * (completions run on back-end threads, not on job threads), over the
 * measured time only.
 *
 * After an MPI run rank 0's report lists every rank's jobs (b->rpt.jobs, with
 * "rank" and "host"), a job's CPU figures are its rank's, and the
 * aggregate's are the sum over ranks divided by the longest measured time
 * (percent of one CPU, as for a multi-threaded process).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const double bench_pcts[BENCH_NPCT] = {1,  5,	 10,   20,    30,   40,
				       50, 60,	 70,   80,    90,   95,
				       99, 99.5, 99.9, 99.95, 99.99};

const char *const bench_dir_names[DIR_NR] = {"read", "write", "other"};

const char *bench_dir_name(enum bench_dir d)
{
	return d < DIR_NR ? bench_dir_names[d] : "?";
}

void bench_view_job(struct bench *b, struct bench_job *j, struct view *v)
{
	unsigned int d;

	memset(v, 0, sizeof(*v));
	v->name = j->name;
	v->jobid = (int)j->gid;
	v->rank = (int)j->rank;
	v->njobs = 1;
	if (b->rpt.ranks) {
		const struct bench_rankinfo *ri = &b->rpt.ranks[j->rank];

		v->usr_ns = ri->usr_ns;
		v->sys_ns = ri->sys_ns;
		v->wall_ns = ri->wall_ns;
		v->cpu_ops = ri->ops;
		v->host = ri->host;
	} else {
		v->usr_ns = b->rpt.usr_ns;
		v->sys_ns = b->rpt.sys_ns;
		v->wall_ns = b->rpt.wall_ns;
		v->cpu_ops = bench_all_ops(b);
	}
	v->owner = j->info.owner;
	v->filename = j->info.filename;
	v->sbw = j->sbw;
	v->siops = j->siops;
	for (d = 0; d < DIR_NR; d++) {
		v->h[d] = j->hist[d];
		v->bytes[d] = atomic_load(&j->bytes[d]);
		v->elapsed[d] = j->elapsed_ns[d];
	}
	v->handoffs = atomic_load(&j->handoffs);
	v->nerrors = atomic_load(&j->nerrors);
	v->verify_errors = atomic_load(&j->verify_errors);
	if (atomic_load(&j->err_claimed))
		v->err = &j->err;
}

/* Merge every job into @v; @agg provides the merged histograms. */
void bench_view_all(struct bench *b, struct bench_hist *agg[DIR_NR],
		    struct view *v)
{
	unsigned int i, d;

	memset(v, 0, sizeof(*v));
	v->name = "all";
	v->jobid = -1;
	v->rank = -1;
	v->njobs = b->rpt.njobs;
	if (b->o.filename)
		v->filename = b->files[0].name;
	v->usr_ns = b->rpt.usr_ns;
	v->sys_ns = b->rpt.sys_ns;
	v->wall_ns = b->rpt.wall_ns;
	v->cpu_ops = bench_all_ops(b);
	bench_samp_all(b, &v->sbw, &v->siops);
	for (d = 0; d < DIR_NR; d++) {
		bench_hist_init(agg[d]);
		v->h[d] = agg[d];
	}
	for (i = 0; i < b->rpt.njobs; i++) {
		struct view jv;

		bench_view_job(b, b->rpt.jobs[i], &jv);
		for (d = 0; d < DIR_NR; d++) {
			bench_hist_merge(agg[d], jv.h[d]);
			v->bytes[d] += jv.bytes[d];
			if (jv.elapsed[d] > v->elapsed[d])
				v->elapsed[d] = jv.elapsed[d];
		}
		v->handoffs += jv.handoffs;
		v->nerrors += jv.nerrors;
		v->verify_errors += jv.verify_errors;
		if (!v->err)
			v->err = jv.err;
	}
}

int bench_agg_alloc(struct bench_hist *agg[DIR_NR])
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++) {
		agg[d] = malloc(sizeof(struct bench_hist));
		if (!agg[d]) {
			while (d--)
				free(agg[d]);
			return -ENOMEM;
		}
	}
	return 0;
}

void bench_agg_free(struct bench_hist *agg[DIR_NR])
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++)
		free(agg[d]);
}

double bench_per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

double bench_cpu_pct(uint64_t cpu_ns, uint64_t wall_ns)
{
	return wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : 0.0;
}

double bench_cpu_us_per_op(const struct view *v)
{
	return v->cpu_ops ? (double)(v->usr_ns + v->sys_ns) / 1000.0 /
				    (double)v->cpu_ops :
			    0.0;
}

/* every measured operation the report covers (all ranks) */
uint64_t bench_all_ops(const struct bench *b)
{
	uint64_t n = 0;
	unsigned int i, d;

	for (i = 0; i < b->rpt.njobs; i++)
		for (d = 0; d < DIR_NR; d++)
			n += bench_hist_count(b->rpt.jobs[i]->hist[d]);
	return n;
}

/* ------------------------------------------------------------ fio's shares */

/* fio's buckets of latency (ns), each the upper bound of its range */
static const uint64_t lat_bounds[3][12] = {
	{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000},
	{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000},
	{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000},
};

/* the share (percent) of @h's samples in (lo, hi] ns; hi 0: above lo */
static double share(const struct bench_hist *h, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0, tot = 0;
	unsigned int i;

	for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
		uint64_t c =
			atomic_load_explicit(&h->b[i], memory_order_relaxed);
		uint64_t mid = bench_hist_bucket_low(i) +
			       bench_hist_bucket_width(i) / 2;

		tot += c;
		if (mid > lo && (!hi || mid <= hi))
			n += c;
	}
	if (!tot)
		return 0.0;
	/* fio shows a share that is not 0 as at least 0.01% */
	return n && 100.0 * (double)n / (double)tot < 0.01 ?
		       0.01 :
		       100.0 * (double)n / (double)tot;
}

void bench_lat_shares(const struct view *v, struct bench_hist *all,
		      double out[3][12])
{
	static const uint64_t mul[3] = {1, 1000, 1000000};
	unsigned int u, k, d;
	uint64_t lo;

	bench_hist_init(all);
	for (d = 0; d < DIR_NR; d++)
		bench_hist_merge(all, v->h[d]);
	for (u = 0; u < 3; u++) {
		lo = u ? lat_bounds[u - 1][9] * mul[u - 1] : 0;
		for (k = 0; k < (u == 2 ? 11u : 10u); k++) {
			uint64_t hi = lat_bounds[u][k] * mul[u];

			out[u][k] = share(all, lo, hi);
			lo = hi;
		}
		if (u == 2)
			out[u][11] = share(all, lo, 0);
	}
}

unsigned int bench_depth_level(unsigned int depth)
{
	unsigned int l = 0;

	while (l < 6 && (2u << l) <= depth)
		l++;
	return l;
}

/*
 * The ior results that were measured, in the report's order: repetition
 * by repetition, the write phase before the read phase (@pos from 0)
 */
const struct bench_ior_result *bench_ior_next(const struct bench *b,
					      unsigned int *pos,
					      unsigned int *rep,
					      enum bench_dir *dir)
{
	while (*pos < 2 * b->o.repetitions) {
		unsigned int r = *pos / 2;
		enum bench_dir d = *pos % 2 ? DIR_READ : DIR_WRITE;
		const struct bench_ior_result *x = &b->rpt.ior[r][d];

		(*pos)++;
		if (x->done) {
			*rep = r;
			*dir = d;
			return x;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ histograms */

/**
 * bench_report_hist() - the aggregate latency histograms (all jobs, all
 * ranks), for CDF plots: a TSV header line, then one line per non-empty
 * bucket: direction, lowest and highest value of the bucket (ns), its
 * count and the fraction of the direction's samples at or below it.
 * Return: 0 or -ENOMEM.
 */
int bench_report_hist(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR];
	struct view all;
	unsigned int d, i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	bench_view_all(b, agg, &all);
	fputs("dir\tlow_ns\thigh_ns\tcount\tcum_fraction\n", f);
	for (d = 0; d < DIR_NR; d++) {
		uint64_t n = bench_hist_count(agg[d]), cum = 0;

		for (i = 0; n && i < BENCH_HIST_NBUCKETS; i++) {
			uint64_t c = atomic_load_explicit(&agg[d]->b[i],
							  memory_order_relaxed);
			uint64_t lo = bench_hist_bucket_low(i);

			if (!c)
				continue;
			cum += c;
			fprintf(f,
				"%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				"\t%.9f\n",
				bench_dir_names[d], lo,
				lo + bench_hist_bucket_width(i) - 1, c,
				(double)cum / (double)n);
		}
	}
	bench_agg_free(agg);
	return 0;
}
