/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a run records while it runs, besides the report: the per-interval
 * log of --write_log (log.c), fio's lat/bw/iops/hist logs (fiolog.c) and
 * the rate samples behind fio's bw and iops statistics (samp.c).  Each
 * member of struct bench_logs belongs to the file named beside it; the
 * other files reach it only through that file's functions below (the
 * reports read the samples with bench_samp_all()).
 */
#ifndef BENCH_LOGS_H
#define BENCH_LOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct bench;
struct bench_log;
struct bench_fiolog;
struct bench_flog_ring;

/*
 * Samples of a rate (fio's bw and iops logs' statistics): the main thread
 * takes one per job and direction every BENCH_SAMPLE_NS of measured time.
 */
#define BENCH_SAMPLE_NS 500000000ull /* fio's bwavgtime/iopsavgtime */

struct bench_samp {
	uint64_t n;
	double sum, sumsq, min, max;
};

/**
 * struct bench_rates - the rate samples of all jobs together (samp.c)
 * @sbw, @siops: bandwidth (KiB/s) and IOPS samples per direction
 * @s_bytes, @s_ops: the counters at the last sample
 * @last: when the last sample was taken
 * @next: when the next is due (0: at the end of the ramp)
 */
struct bench_rates {
	struct bench_samp sbw[DIR_NR], siops[DIR_NR];
	uint64_t s_bytes[DIR_NR], s_ops[DIR_NR];
	uint64_t last, next;
};

/**
 * struct bench_logs - a run's logs (main thread only)
 * @log: --write_log (log.c), or NULL
 * @fiolog: fio's logs (fiolog.c), or NULL
 * @job_base: fiolog.c: job files: jobs of earlier sections
 * @rates: samp.c's rate samples
 */
struct bench_logs {
	struct bench_log *log;
	struct bench_fiolog *fiolog;
	unsigned int job_base;
	struct bench_rates rates;
};

/* log.c: per-interval logs (--write_log); each call is a no-op without */
int bench_log_open(struct bench *b);
void bench_log_phase_start(struct bench *b);
void bench_log_tick(struct bench *b, uint64_t now);
void bench_log_phase_end(struct bench *b, uint64_t now);
uint64_t bench_log_next(const struct bench *b);
void bench_log_close(struct bench *b);
int bench_rank_path(char *out, size_t len, const char *path, unsigned int rank,
		    unsigned int nranks);

/* fiolog.c: fio's lat/bw/iops/hist logs */
int bench_fiolog_open(struct bench *b);
void bench_flog_record(struct bench_flog_ring *r, uint64_t t, uint64_t lat,
		       unsigned int dir, uint32_t len, uint64_t off);
void bench_fiolog_phase_start(struct bench *b);
uint64_t bench_fiolog_next(const struct bench *b);
void bench_fiolog_tick(struct bench *b, uint64_t now);
void bench_fiolog_phase_end(struct bench *b, uint64_t now);
bool bench_fiolog_on(const struct bench *b);
uint64_t bench_fiolog_dropped(const struct bench *b);
void bench_fiolog_close(struct bench *b);

/* samp.c: rate samples */
void bench_samp_add(struct bench_samp *s, double v);
double bench_samp_mean(const struct bench_samp *s);
double bench_samp_dev(const struct bench_samp *s);
void bench_samp_phase_start(struct bench *b);
void bench_samp_tick(struct bench *b, uint64_t now);
uint64_t bench_samp_next(const struct bench *b);
void bench_samp_all(const struct bench *b, const struct bench_samp **sbw,
		    const struct bench_samp **siops);

#endif /* BENCH_LOGS_H */
