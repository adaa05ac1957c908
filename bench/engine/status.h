/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report's outputs (status.c): --output and --write_hist, opened at
 * parse time so that a long run cannot end unable to report, and fio's
 * --status-interval (the whole report every interval of measured time).
 * struct bench_outputs is status.c's alone; the others go through the
 * functions below.
 */
#ifndef BENCH_STATUS_H
#define BENCH_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bench;

/**
 * struct bench_outputs - where the report goes (main thread only)
 * @out: --output, or NULL for stdout
 * @hist: --write_hist, or NULL
 * @status_next: when the next --status-interval report is due (0: at
 *	the end of the ramp plus one interval)
 * @head_said: the text report's opening lines are out (fio prints them
 *	once, before the first of its --status-interval reports)
 */
struct bench_outputs {
	FILE *out;
	FILE *hist;
	uint64_t status_next;
	bool head_said;
};

int bench_outputs_open(struct bench *b);
void bench_outputs_close(struct bench *b);

/* the report in every format asked for, in fio's order */
int bench_report_formats(struct bench *b, FILE *out);

/* --status-interval: from the main thread during a phase */
void bench_status_phase_start(struct bench *b);
void bench_status_tick(struct bench *b, uint64_t now);
uint64_t bench_status_next(const struct bench *b);

#endif /* BENCH_STATUS_H */
