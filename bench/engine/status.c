/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report in every format --output-format asks for (bench_report(),
 * at the end of a run), the files it goes to (--output, --write_hist:
 * struct bench_outputs, status.h) and fio's --status-interval (the same
 * report, as if the run ended now, from the main thread during a
 * measured phase).  Above report.c, report_json.c and reduce.c, below
 * engine.c and phase.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

/**
 * bench_outputs_open() - open --output and --write_hist now: a long run
 * must not end unable to report; only rank 0 reports, and a job file's
 * sections leave them to the driver (multi.c)
 * Return: 0, or -EINVAL (said) when one cannot be opened.
 */
int bench_outputs_open(struct bench *b)
{
	if (b->o.output && !bench_rank(b) && !b->no_outputs) {
		b->outs.out = fopen(b->o.output, "w");
		if (!b->outs.out) {
			bench_error("--output %s: %s", b->o.output,
				    strerror(errno));
			return -EINVAL;
		}
	}
	if (b->o.hist_file && !bench_rank(b) && !b->no_outputs) {
		b->outs.hist = fopen(b->o.hist_file, "w");
		if (!b->outs.hist) {
			bench_error("--write_hist %s: %s", b->o.hist_file,
				    strerror(errno));
			return -EINVAL;
		}
	}
	return 0;
}

/** bench_outputs_close() - close what bench_outputs_open() opened */
void bench_outputs_close(struct bench *b)
{
	if (b->outs.out)
		fclose(b->outs.out);
	if (b->outs.hist)
		fclose(b->outs.hist);
}

/* the report in every format asked for, in fio's order: terse, JSON,
 * text */
int bench_report_formats(struct bench *b, FILE *out)
{
	int ret = 0;

	if (b->o.fmts & BENCH_FMT_BIT(FMT_TERSE))
		ret = bench_report_terse(b, out);
	if (!ret && (b->o.fmts &
		     (BENCH_FMT_BIT(FMT_JSON) | BENCH_FMT_BIT(FMT_JSON_PLUS))))
		ret = bench_report_json(
			b, out, b->o.fmts & BENCH_FMT_BIT(FMT_JSON_PLUS));
	if (!ret && (b->o.fmts & BENCH_FMT_BIT(FMT_NORMAL))) {
		/* fio's opening lines once, before its first report */
		ret = bench_report_normal(b, out, !b->outs.head_said);
		b->outs.head_said = true;
	}
	return ret;
}

/*
 * fio's --status-interval: the report so far, as if the run ended @now
 * (main thread, during a measured phase)
 */
static void status_dump(struct bench *b, uint64_t now)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t(*saved)[DIR_NR], cpu[3], dt;
	FILE *out = b->outs.out ? b->outs.out : stdout;
	unsigned int i, d;

	if (!ph->measured || now <= ph->t_measure || bench_rank(b))
		return;
	saved = malloc(b->njobs * sizeof(*saved));
	if (!saved)
		return;
	dt = now - ph->t_measure;
	for (i = 0; i < b->njobs; i++)
		for (d = 0; d < DIR_NR; d++) {
			saved[i][d] = b->jobs[i].elapsed_ns[d];
			if (b->jobs[i].budget &&
			    (bench_hist_count(b->jobs[i].hist[d]) ||
			     (d == DIR_READ && bench_rw_reads(ph->rw)) ||
			     (d == DIR_WRITE && bench_rw_writes(ph->rw))))
				b->jobs[i].elapsed_ns[d] += dt;
		}
	bench_cpu_peek(b, dt, cpu);
	bench_report_formats(b, out);
	fflush(out);
	for (i = 0; i < b->njobs; i++)
		for (d = 0; d < DIR_NR; d++)
			b->jobs[i].elapsed_ns[d] = saved[i][d];
	bench_cpu_restore(b, cpu);
	free(saved);
}

/** bench_status_phase_start() - a phase starts: the first report is due
 * one interval after its ramp */
void bench_status_phase_start(struct bench *b)
{
	b->outs.status_next = 0;
}

/** bench_status_tick() - fio's --status-interval: the whole report every
 * interval (main thread) */
void bench_status_tick(struct bench *b, uint64_t now)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t iv = b->o.status_interval_ns;

	if (!iv || !ph->measured || now < ph->t_measure)
		return;
	if (!b->outs.status_next)
		b->outs.status_next = ph->t_measure + iv;
	if (now < b->outs.status_next || now > ph->t_end)
		return;
	status_dump(b, now);
	while (b->outs.status_next <= now)
		b->outs.status_next += iv;
}

/** bench_status_next() - when the next report is due (0: none yet) */
uint64_t bench_status_next(const struct bench *b)
{
	return b->outs.status_next;
}

int bench_report(struct bench *b, FILE *f)
{
	FILE *out = f ? f : b && b->outs.out ? b->outs.out : stdout;
	int ret;

	if (!b || !b->started)
		return -EINVAL;
	ret = bench_report_formats(b, out);
	if (fflush(out) && !ret)
		ret = -errno;
	if (ferror(out) && !ret)
		ret = -EIO;
	if (b->outs.hist && !ret) {
		ret = bench_report_hist(b, b->outs.hist);
		if (fflush(b->outs.hist) && !ret)
			ret = -errno;
		if (ferror(b->outs.hist) && !ret)
			ret = -EIO;
	}
	return ret;
}
