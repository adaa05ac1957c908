/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The progress line: once a second, on a terminal only.
 *
 * It goes to stderr when stderr is a terminal (so "bench > out.json" still
 * shows progress), else to stdout when that is a terminal and carries no
 * JSON; when both are pipes or files nothing is printed (--eta always
 * forces stderr, --eta never silences it).  The main thread computes it
 * from the same atomic counters the completions update, so it costs the
 * I/O path nothing.  The line is rewritten in place with '\r' and erased
 * before the report.  Under MPI only rank 0 prints, and its line counts
 * its own jobs, on request (--eta always).
 *
 * Off a terminal (--eta always into a file or a pipe) no carriage return
 * is written: every line ends with a newline.  --eta-newline T (fio's)
 * also ends the line with a newline every T on a terminal, so that a
 * scroll-back keeps the history.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

void bench_progress_start(struct bench *b)
{
	const struct bench_opts *o = &b->o;

	b->progress.on = false;
	b->progress.f = NULL;
	/* under MPI, rank 0's line only (N would overwrite each other), and
	 * only on request: it counts rank 0's own jobs, and mpirun may give
	 * every rank a terminal */
	if (o->eta == ETA_NEVER || bench_rank(b) ||
	    (bench_nranks(b) > 1 && o->eta != ETA_ALWAYS))
		return;
	if (o->eta == ETA_ALWAYS || isatty(STDERR_FILENO))
		b->progress.f = stderr;
	else if (isatty(STDOUT_FILENO) && (o->fmt == FMT_NORMAL || o->output))
		b->progress.f = stdout;
	b->progress.on = b->progress.f != NULL;
	b->progress.tty = b->progress.on && isatty(fileno(b->progress.f));
	b->progress.nl_last = bench_now_ns();
	b->progress.last_t = bench_now_ns();
	memset(b->progress.last_ops, 0, sizeof(b->progress.last_ops));
	memset(b->progress.last_bytes, 0, sizeof(b->progress.last_bytes));
	b->progress.width = 0;
}

static void human(char *out, size_t n, double v, const char *unit)
{
	if (v >= 1e9)
		snprintf(out, n, "%.2fG%s", v / 1e9, unit);
	else if (v >= 1e6)
		snprintf(out, n, "%.2fM%s", v / 1e6, unit);
	else if (v >= 1e3)
		snprintf(out, n, "%.1fk%s", v / 1e3, unit);
	else
		snprintf(out, n, "%.0f%s", v, unit);
}

/**
 * bench_progress_tick() - print the line if a second has passed
 * Context: the main thread.
 */
void bench_progress_tick(struct bench *b, uint64_t now)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t ops[DIR_NR] = {0}, bytes[DIR_NR] = {0}, done = 0, budget = 0;
	double dt = (double)(now - b->progress.last_t) / 1e9;
	char line[256], r[32], w[32], io[32];
	unsigned int i, d, running = 0;
	int len;

	if (!b->progress.on || now - b->progress.last_t < 1000000000ull)
		return;
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];
		uint64_t idx = atomic_load_explicit(&j->next_idx,
						    memory_order_relaxed);

		running += j->budget != 0;
		for (d = 0; d < DIR_NR; d++) {
			ops[d] += bench_hist_count(j->hist[d]);
			bytes[d] += atomic_load_explicit(&j->bytes[d],
							 memory_order_relaxed);
		}
		if (j->budget != UINT64_MAX) {
			done += idx < j->budget ? idx : j->budget;
			budget += j->budget;
		}
	}
	human(r, sizeof(r),
	      (double)(bytes[DIR_READ] - b->progress.last_bytes[DIR_READ]) / dt,
	      "B/s");
	human(w, sizeof(w),
	      (double)(bytes[DIR_WRITE] - b->progress.last_bytes[DIR_WRITE]) /
		      dt,
	      "B/s");
	human(io, sizeof(io),
	      (double)(ops[0] + ops[1] + ops[2] - b->progress.last_ops[0] -
		       b->progress.last_ops[1] - b->progress.last_ops[2]) /
		      dt,
	      "");
	len = snprintf(line, sizeof(line),
		       "%sJobs: %u (%s): [r=%s,w=%s][%s IOPS]",
		       bench_nranks(b) > 1 ? "rank 0: " : "", running,
		       ph->label, r, w, io);
	if (ph->t_end != UINT64_MAX && ph->t_end > now) {
		uint64_t s = (ph->t_end - now + 999999999ull) / 1000000000ull;

		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"[eta %02" PRIu64 "m:%02" PRIu64 "s]", s / 60,
				s % 60);
	} else if (budget && ph->t_end == UINT64_MAX) {
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"[%.1f%% done]", 100.0 * (double)done / budget);
	}
	if (!b->progress.tty) {
		fprintf(b->progress.f, "%s\n", line);
	} else {
		fprintf(b->progress.f, "\r%-*s", (int)b->progress.width, line);
		if ((size_t)len > b->progress.width)
			b->progress.width = (size_t)len;
		if (b->o.eta_newline_ns &&
		    now - b->progress.nl_last >= b->o.eta_newline_ns) {
			fputc('\n', b->progress.f);
			b->progress.nl_last = now;
			b->progress.width = 0;
		}
	}
	fflush(b->progress.f);
	memcpy(b->progress.last_ops, ops, sizeof(ops));
	memcpy(b->progress.last_bytes, bytes, sizeof(bytes));
	b->progress.last_t = now;
}

/** bench_progress_end() - erase the line before the report */
void bench_progress_end(struct bench *b)
{
	if (!b->progress.on || !b->progress.width || !b->progress.tty)
		return;
	fprintf(b->progress.f, "\r%*s\r", (int)b->progress.width, "");
	fflush(b->progress.f);
}
