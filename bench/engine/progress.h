/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The progress line (progress.c): fio's "Jobs: N (run): [r=..,w=..]"
 * line, redrawn every second on a terminal (--eta, --eta-newline).
 * struct bench_progress is progress.c's alone: the engine starts and
 * ends the line, phase.c ticks it, and nobody else reads it.
 */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct bench;

/**
 * struct bench_progress - the progress line's state (main thread only)
 * @on: a line is printed this run (@f is set)
 * @f: where it goes (stderr, or stdout for a normal report on a tty)
 * @tty: @f is a terminal: redraw with \r rather than print lines
 * @last_t: when the line was last printed
 * @last_ops, @last_bytes: the jobs' counters then, for the rates
 * @width: the longest line drawn since the last newline (to erase)
 * @nl_last: when --eta-newline last started a new line
 */
struct bench_progress {
	bool on;
	FILE *f;
	bool tty;
	uint64_t last_t;
	uint64_t last_ops[DIR_NR], last_bytes[DIR_NR];
	size_t width;
	uint64_t nl_last;
};

void bench_progress_start(struct bench *b);
void bench_progress_tick(struct bench *b, uint64_t now);
void bench_progress_end(struct bench *b);

#endif /* BENCH_PROGRESS_H */
