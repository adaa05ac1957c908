/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report in every format --output-format asks for (bench_report(),
 * at the end of a run) and fio's --status-interval (the same report, as
 * if the run ended now, from the main thread during a measured phase).
 * Above report.c and report_json.c, below engine.c and phase.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine_int.h"

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
	if (!ret && (b->o.fmts & BENCH_FMT_BIT(FMT_NORMAL)))
		ret = bench_report_normal(b, out);
	return ret;
}

/**
 * bench_status_dump() - fio's --status-interval: the report so far, as if
 * the run ended @now (main thread, during a measured phase)
 */
void bench_status_dump(struct bench *b, uint64_t now)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t(*saved)[DIR_NR], usr = b->usr_ns, sys = b->sys_ns;
	uint64_t wall = b->wall_ns, dt;
	FILE *out = b->out ? b->out : stdout;
	struct rusage ru;
	unsigned int i, d;

	if (!ph->measured || now <= ph->t_measure || b->rank)
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
	if (b->ru_marked && !getrusage(RUSAGE_SELF, &ru)) {
		b->usr_ns += (uint64_t)(ru.ru_utime.tv_sec -
					b->ru_mark.ru_utime.tv_sec) *
				     1000000000ull +
			     (uint64_t)(ru.ru_utime.tv_usec -
					b->ru_mark.ru_utime.tv_usec) *
				     1000ull;
		b->sys_ns += (uint64_t)(ru.ru_stime.tv_sec -
					b->ru_mark.ru_stime.tv_sec) *
				     1000000000ull +
			     (uint64_t)(ru.ru_stime.tv_usec -
					b->ru_mark.ru_stime.tv_usec) *
				     1000ull;
		b->wall_ns += dt;
	}
	bench_report_formats(b, out);
	fflush(out);
	for (i = 0; i < b->njobs; i++)
		for (d = 0; d < DIR_NR; d++)
			b->jobs[i].elapsed_ns[d] = saved[i][d];
	b->usr_ns = usr;
	b->sys_ns = sys;
	b->wall_ns = wall;
	free(saved);
}

int bench_report(struct bench *b, FILE *f)
{
	FILE *out = f ? f : b && b->out ? b->out : stdout;
	int ret;

	if (!b || !b->started)
		return -EINVAL;
	ret = bench_report_formats(b, out);
	if (fflush(out) && !ret)
		ret = -errno;
	if (ferror(out) && !ret)
		ret = -EIO;
	if (b->hist_out && !ret) {
		ret = bench_report_hist(b, b->hist_out);
		if (fflush(b->hist_out) && !ret)
			ret = -errno;
		if (ferror(b->hist_out) && !ret)
			ret = -EIO;
	}
	return ret;
}
