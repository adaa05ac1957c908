/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rate samples (struct bench_samp): the main thread adds one per job and
 * direction every BENCH_SAMPLE_NS (phase.c); the reports print their
 * mean and deviation (report.c, report_json.c).  Calls nothing of bench/.
 */
#include <math.h>

#include "engine_int.h"

void bench_samp_add(struct bench_samp *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	s->sumsq += v * v;
}

double bench_samp_mean(const struct bench_samp *s)
{
	return s->n ? s->sum / (double)s->n : 0.0;
}

/* the sample standard deviation, as fio's (n - 1) */
double bench_samp_dev(const struct bench_samp *s)
{
	double m, var;

	if (s->n < 2)
		return 0.0;
	m = s->sum / (double)s->n;
	var = (s->sumsq - (double)s->n * m * m) / (double)(s->n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}
