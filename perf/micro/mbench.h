/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mbench: the small harness every micro benchmark in perf/micro shares.
 *
 * A benchmark binary parses the common flags with mb_init(), measures, and
 * reports through tables: each table prints aligned text on stdout and, at
 * mb_finish(), all tables go out as one JSON document (to the file named by
 * --json, or nowhere).  Targets from the issues are printed with mb_target()
 * as "met"/"MISSED" lines: benchmarks report, they never fail the build.
 */
#ifndef MBENCH_H
#define MBENCH_H

#include <stdbool.h>
#include <stdint.h>

struct mb_opts {
	double seconds;	  /* measuring time per data point (--seconds) */
	bool quick;	  /* --quick or MB_QUICK=1: fewer, shorter points */
	const char *json; /* --json FILE */
	int max_threads;  /* --threads N: upper bound for thread sweeps */
};

extern struct mb_opts mb_opts;

/**
 * mb_init() - parse the common flags (--seconds S, --quick, --json FILE,
 * --threads N, --help)
 * @name: benchmark name, used in the JSON document and in --help
 * @what: one line saying what the benchmark compares
 *
 * Exits the process on --help or on a bad flag.
 */
void mb_init(int argc, char **argv, const char *name, const char *what);

/** mb_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
uint64_t mb_now_ns(void);

/** mb_cpu_ns() - user+system CPU time of the whole process (getrusage). */
uint64_t mb_cpu_ns(void);

struct mb_table;

/**
 * mb_table_new() - start a result table
 * @title: printed above the table
 * @ncols: number of columns, label column included
 * @cols: column names; cols[0] names the label column
 *
 * Return: the table (owned by the harness, freed by mb_finish()).
 */
struct mb_table *mb_table_new(const char *title, int ncols,
			      const char *const *cols);

/**
 * mb_table_row() - add a row: a label and ncols-1 numbers
 */
void mb_table_row(struct mb_table *t, const char *label, const double *vals);

/**
 * mb_target() - report a target from the issue against a measured value
 * @what: what is compared, e.g. "pool/malloc at 1 MiB, 1 thread"
 * @value: measured value
 * @target: the bound
 * @higher_is_better: true for ">= target", false for "<= target"
 *
 * Return: true when the target is met.
 */
bool mb_target(const char *what, double value, double target,
	       bool higher_is_better);

/**
 * mb_finish() - print pending tables, write the JSON document, free all
 * Return: process exit status (0).
 */
int mb_finish(void);

/* Keep a value alive so the compiler cannot drop the work producing it. */
static inline void mb_use(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#endif /* MBENCH_H */
