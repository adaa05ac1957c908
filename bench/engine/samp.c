/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rate samples (struct bench_samp): the main thread takes one per job and
 * direction, and one of all jobs together (struct bench_rates, logs.h),
 * every BENCH_SAMPLE_NS of measured time (bench_samp_tick() from
 * phase.c); the reports print their mean and deviation (report.c,
 * report_json.c).  Calls nothing of bench/ but the model's predicates.
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

/*
 * One rate sample per job and direction, and one of all jobs together,
 * over the time since the last: what fio's bw_* and iops_* statistics
 * are made of.  Main thread, every BENCH_SAMPLE_NS of measured time.
 */
static void sample_rates(struct bench *b, uint64_t now, bool take)
{
	bool dirs[DIR_NR];
	double dt = (double)(now - b->logs.rates.last) / 1e9;
	uint64_t ab[DIR_NR] = {0}, ao[DIR_NR] = {0};
	unsigned int i, d;

	bench_rw_dirs(b->phase.rw, dirs);
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		for (d = 0; d < DIR_NR; d++) {
			uint64_t by = atomic_load_explicit(
				&j->bytes[d], memory_order_relaxed);
			uint64_t op = bench_hist_count(j->hist[d]);

			if (take && dirs[d] && j->budget) {
				bench_samp_add(&j->sbw[d],
					       (double)(by - j->s_bytes[d]) /
						       1024.0 / dt);
				bench_samp_add(&j->siops[d],
					       (double)(op - j->s_ops[d]) / dt);
			}
			j->s_bytes[d] = by;
			j->s_ops[d] = op;
			ab[d] += by;
			ao[d] += op;
		}
	}
	for (d = 0; d < DIR_NR; d++) {
		if (take && dirs[d]) {
			bench_samp_add(
				&b->logs.rates.sbw[d],
				(double)(ab[d] - b->logs.rates.s_bytes[d]) /
					1024.0 / dt);
			bench_samp_add(
				&b->logs.rates.siops[d],
				(double)(ao[d] - b->logs.rates.s_ops[d]) / dt);
		}
		b->logs.rates.s_bytes[d] = ab[d];
		b->logs.rates.s_ops[d] = ao[d];
	}
	b->logs.rates.last = now;
}

/** bench_samp_tick() - a sample when one is due (main thread) */
void bench_samp_tick(struct bench *b, uint64_t now)
{
	const struct bench_phase *ph = &b->phase;

	if (!ph->measured || now < ph->t_measure)
		return;
	if (!b->logs.rates.next) { /* the end of the ramp: the starting point */
		sample_rates(b, now, false);
		b->logs.rates.next = now + BENCH_SAMPLE_NS;
		return;
	}
	if (now < b->logs.rates.next || now > ph->t_end)
		return;
	sample_rates(b, now, true);
	while (b->logs.rates.next <= now)
		b->logs.rates.next += BENCH_SAMPLE_NS;
}

/** bench_samp_phase_start() - a phase starts: the first sample is at the
 * end of its ramp */
void bench_samp_phase_start(struct bench *b)
{
	b->logs.rates.next = 0;
}

/** bench_samp_next() - when the next sample is due (0: none yet) */
uint64_t bench_samp_next(const struct bench *b)
{
	return b->logs.rates.next;
}

/** bench_samp_all() - the samples of all jobs together, [DIR_NR] each */
void bench_samp_all(const struct bench *b, const struct bench_samp **sbw,
		    const struct bench_samp **siops)
{
	*sbw = b->logs.rates.sbw;
	*siops = b->logs.rates.siops;
}
