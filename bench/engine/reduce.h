/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the report is made of besides the jobs' own counters (reduce.c):
 * the jobs it shows (the local ones, then those merged from other
 * ranks), the measured CPU and wall time, ior's per-repetition results,
 * the back-end's counters, the options as given.  struct bench_report is
 * written by reduce.c alone - while the run goes (bench_cpu_*(),
 * bench_ior_record(), bench_kv_add()...) and when rank 0 merges the
 * other ranks' results - and read by the report files (report.c,
 * report_json.c); every other file goes through the functions below.
 */
#ifndef BENCH_REDUCE_H
#define BENCH_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "model.h"

struct bench;
struct bench_job;

struct bench_ior_result {
	uint64_t bytes;
	uint64_t ops;
	uint64_t elapsed_ns;
	double lat_mean_ns;
	bool done;
};

#define BENCH_MAX_KV	64
#define BENCH_MAX_GIVEN 128

struct bench_kv {
	char name[48];
	uint64_t value;
};

/**
 * struct bench_rankinfo - what the report says about one rank (rank 0's
 * table after a distributed run is merged)
 * @ops: measured operations of the rank's jobs (for CPU per operation)
 */
struct bench_rankinfo {
	char host[64];
	uint64_t usr_ns, sys_ns, wall_ns;
	uint64_t ops;
	int status;
	bool interrupted;
	bool merged;
};

/**
 * struct bench_report - the report's own data (main thread only)
 * @jobs, @njobs, @cap: the jobs the report shows: the local ones, then
 *	merged remote ones (bench_rep_add(), bench_result_merge())
 * @ranks: every rank's line, rank 0 after a merge, else NULL
 * @usr_ns, @sys_ns, @wall_ns: CPU and wall time over all measured
 *	phases (all ranks after a merge)
 * @ru_mark, @ru_marked: getrusage() at the start of the measured time
 * @ctx, @majf, @minf: context switches and faults over it (fio's)
 * @start_time: when the run started (fio's "timestamp")
 * @ior: ior's results, [repetition][read = 0, write = 1]
 * @kv, @nkv: the back-end's counters (and the engine's log_dropped)
 * @given, @ngiven: the options as given (fio's "job options")
 * @groupid: fio's group (job files: stonewall, new_group)
 */
struct bench_report {
	struct bench_job **jobs;
	unsigned int njobs, cap;
	struct bench_rankinfo *ranks;

	uint64_t usr_ns, sys_ns, wall_ns;
	struct rusage ru_mark;
	bool ru_marked;
	uint64_t ctx, majf, minf;
	time_t start_time;

	struct bench_ior_result (*ior)[2];

	struct bench_kv kv[BENCH_MAX_KV];
	unsigned int nkv;

	struct {
		const char *name, *value;
	} given[BENCH_MAX_GIVEN];
	unsigned int ngiven;
	unsigned int groupid;
};

/* reduce.c: the jobs a report shows; freeing one; freeing all */
int bench_rep_add(struct bench *b, struct bench_job *j);
void bench_job_free(struct bench_job *j);
void bench_report_free(struct bench *b);

/* reduce.c: filled while the run goes (main thread) */
void bench_report_begin(struct bench *b);
int bench_ior_alloc(struct bench *b);
void bench_report_given(struct bench *b, const char *name, const char *val);
void bench_report_group(struct bench *b, unsigned int groupid);
unsigned int bench_report_groupid(const struct bench *b);
void bench_kv_add(void *arg, const char *name, uint64_t value);
void bench_ior_record(struct bench *b, int rep, enum bench_dir d,
		      const struct bench_ior_result *r);

/* reduce.c: the measured CPU time (getrusage() over measured time) */
bool bench_cpu_marked(const struct bench *b);
void bench_cpu_mark(struct bench *b);
void bench_cpu_account(struct bench *b, uint64_t wall_ns);
void bench_cpu_peek(struct bench *b, uint64_t wall_ns, uint64_t saved[3]);
void bench_cpu_restore(struct bench *b, const uint64_t saved[3]);

/* reduce.c: one rank's results, packed for rank 0 */
uint64_t bench_fingerprint(const struct bench_opts *o);
long bench_result_pack(struct bench *b, void *buf, size_t len);
int bench_result_merge(struct bench *b, const void *buf, size_t len);
void bench_rankinfo_local(struct bench *b, struct bench_rankinfo *ri);
int bench_ranks_init(struct bench *b);

#endif /* BENCH_REDUCE_H */
