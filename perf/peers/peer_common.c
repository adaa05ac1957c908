// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * peer_common: clocks, CPU accounting, latency histogram and the RESULT
 * line shared by the peer benchmark programs.
 *
 * The histogram is log-linear (an HDR histogram in miniature): values below
 * 2^5 ns get one bucket each; above, each power of two is split into 32
 * equal buckets. Recording is a count-leading-zeros and an increment, so it
 * costs nothing next to a network round trip, and percentiles are good to
 * about 3 % with a fixed 15 KiB table.
 */
#include "peer_common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t peer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u +
	       (uint64_t)tv->tv_usec * 1000u;
}

static void cpu_sample(uint64_t *total_ns, uint64_t *usr_ns)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*usr_ns = tv_ns(&ru.ru_utime);
	*total_ns = *usr_ns + tv_ns(&ru.ru_stime);
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < PEER_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - PEER_HIST_SUB_BITS;
	/* v >> shift lies in [SUB, 2*SUB): continuous with the linear part */
	return (shift + 1) * PEER_HIST_SUB +
	       (unsigned int)((v >> shift) - PEER_HIST_SUB);
}

static uint64_t hist_upper(unsigned int idx)
{
	unsigned int shift;
	uint64_t mant;

	if (idx < 2 * PEER_HIST_SUB)
		return idx;
	shift = idx / PEER_HIST_SUB - 1;
	mant = idx % PEER_HIST_SUB + PEER_HIST_SUB;
	return ((mant + 1) << shift) - 1;
}

void peer_hist_add(struct peer_hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
	h->count++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

uint64_t peer_hist_pct(const struct peer_hist *h, double pct)
{
	uint64_t want, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil((double)h->count * pct / 100.0);
	if (want < 1)
		want = 1;
	for (i = 0; i < PEER_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want) {
			uint64_t up = hist_upper(i);

			return up < h->max_ns ? up : h->max_ns;
		}
	}
	return h->max_ns;
}

void peer_window_start(struct peer_window *w)
{
	memset(w, 0, sizeof(*w));
	cpu_sample(&w->cpu0_ns, &w->usr0_ns);
	w->t0_ns = peer_now_ns();
	w->running = true;
}

void peer_window_stop(struct peer_window *w)
{
	if (!w->running)
		return;
	w->t1_ns = peer_now_ns();
	cpu_sample(&w->cpu1_ns, &w->usr1_ns);
	w->running = false;
}

void peer_print_result(const struct peer_window *w, const char *peer,
		       const char *op, unsigned int depth, uint64_t bs,
		       const char *extra)
{
	double secs = (double)(w->t1_ns - w->t0_ns) / 1e9;
	double cpu = (double)(w->cpu1_ns - w->cpu0_ns) / 1e3;
	double usr = (double)(w->usr1_ns - w->usr0_ns) / 1e9;
	double ops = (double)w->ops;

	if (secs <= 0)
		secs = 1e-9;
	printf("RESULT peer=%s op=%s depth=%u bs=%llu ops=%llu seconds=%.3f "
	       "ops_per_s=%.0f mib_per_s=%.1f cpu_us_per_op=%.2f usr_s=%.3f "
	       "sys_s=%.3f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f "
	       "max_us=%.1f errors=%llu%s%s\n",
	       peer, op, depth, (unsigned long long)bs,
	       (unsigned long long)w->ops, secs, ops / secs,
	       ops * (double)bs / secs / 1048576.0, ops ? cpu / ops : 0.0, usr,
	       cpu / 1e6 - usr, peer_hist_pct(&w->hist, 50) / 1e3,
	       peer_hist_pct(&w->hist, 90) / 1e3,
	       peer_hist_pct(&w->hist, 99) / 1e3,
	       peer_hist_pct(&w->hist, 99.9) / 1e3, w->hist.max_ns / 1e3,
	       (unsigned long long)w->errors, extra ? " " : "",
	       extra ? extra : "");
	fflush(stdout);
}

int peer_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	unsigned int shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (shift && v > (~0ull >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int peer_parse_seconds(const char *s, bool allow_zero, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0) || v > 86400 || (!allow_zero && !v))
		return -EINVAL;
	*out = v;
	return 0;
}

int peer_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

uint64_t peer_rng_next(uint64_t *state)
{
	/* Knuth's MMIX LCG; the high bits are the good ones */
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 33;
}

void peer_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

uint64_t peer_uint_opt(const char *prog, const char *opt, const char *s,
		       uint64_t max)
{
	uint64_t v;

	if (peer_parse_uint(s, max, &v))
		peer_die(prog, "bad value for %s: '%s' (0..%llu)", opt, s,
			 (unsigned long long)max);
	return v;
}

bool peer_run_opt(const char *prog, int c, const char *arg,
		  struct peer_run_opts *ro)
{
	switch (c) {
	case PEER_OPT_SECONDS:
		if (peer_parse_seconds(arg, false, &ro->secs))
			peer_die(prog, "bad --seconds '%s'", arg);
		return true;
	case PEER_OPT_WARMUP:
		if (peer_parse_seconds(arg, true, &ro->warm))
			peer_die(prog, "bad --warmup '%s'", arg);
		return true;
	case PEER_OPT_COUNT:
		ro->count = peer_uint_opt(prog, "--count", arg, 1ull << 40);
		return true;
	case PEER_OPT_WARMUP_COUNT:
		ro->warm_count =
			peer_uint_opt(prog, "--warmup-count", arg, 1ull << 40);
		return true;
	default:
		return false;
	}
}
