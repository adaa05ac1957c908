/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the report files share (report.c: views, text, histogram dump;
 * report_json.c: JSON).  A view is one job, or all jobs merged, in the
 * shape both formats print.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "engine_int.h"

/* the percentiles every report prints (fio's list) */
#define BENCH_NPCT 17
extern const double bench_pcts[BENCH_NPCT];
extern const char *const bench_dir_names[DIR_NR];

/**
 * struct view - one job (jobid >= 0) or all jobs (jobid -1) as reported
 * @h: histograms per direction (all jobs: merged into caller's buffers)
 * @elapsed: measured time per direction (all jobs: the longest)
 * @usr_ns, @sys_ns, @wall_ns, @cpu_ops: CPU of the process(es) that ran
 *	it, and their operations (per operation = CPU / @cpu_ops)
 * @host: the rank's host after an MPI merge, else NULL
 */
struct view {
	const char *name;
	int jobid; /* -1: all jobs */
	int rank;  /* -1: all ranks */
	unsigned int njobs;
	uint64_t owner;
	const char *filename;
	const struct bench_hist *h[DIR_NR];
	uint64_t bytes[DIR_NR];
	uint64_t elapsed[DIR_NR];
	uint64_t handoffs, nerrors, verify_errors;
	const struct bench_job_err *err;
	uint64_t usr_ns, sys_ns, wall_ns, cpu_ops;
	const char *host;
	const struct bench_samp *sbw, *siops; /* [DIR_NR] rate samples */
};

/** bench_view_job() - the view of job @j */
void bench_view_job(struct bench *b, struct bench_job *j, struct view *v);

/**
 * bench_view_all() - the view of every reported job (all ranks), its
 * histograms merged into @agg (from bench_agg_alloc())
 */
void bench_view_all(struct bench *b, struct bench_hist *agg[DIR_NR],
		    struct view *v);

/** bench_agg_alloc() - histograms for bench_view_all(); 0 or -ENOMEM */
int bench_agg_alloc(struct bench_hist *agg[DIR_NR]);
void bench_agg_free(struct bench_hist *agg[DIR_NR]);

/** bench_per_sec() - @n per second over @ns (0 when @ns is 0) */
double bench_per_sec(uint64_t n, uint64_t ns);

/** bench_cpu_pct() - @cpu_ns as a percentage of @wall_ns */
double bench_cpu_pct(uint64_t cpu_ns, uint64_t wall_ns);

/** bench_cpu_us_per_op() - the view's CPU microseconds per operation */
double bench_cpu_us_per_op(const struct view *v);

/**
 * bench_lat_shares() - fio's latency_ns, _us and _ms distributions of @v
 * (all directions; percent of its operations per bucket, fio's bucket
 * bounds), merged in @all (a scratch histogram)
 */
void bench_lat_shares(const struct view *v, struct bench_hist *all,
		      double out[3][12]);

/** bench_depth_level() - fio's IO depths slot (1, 2, 4 ... >=64) of @depth */
unsigned int bench_depth_level(unsigned int depth);

/**
 * bench_ior_next() - the next measured ior result (repetition by
 * repetition, writes before reads); @pos starts at 0
 * Return: the result, with its repetition in *@rep and direction in
 * *@dir; NULL after the last.
 */
const struct bench_ior_result *bench_ior_next(const struct bench *b,
					      unsigned int *pos,
					      unsigned int *rep,
					      enum bench_dir *dir);

/** bench_all_ops() - every measured operation the report covers */
uint64_t bench_all_ops(const struct bench *b);

#endif /* BENCH_REPORT_H */
