/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Latency histograms: the read side (percentiles, moments), merging and
 * the portable serialised form.  The layout and the error bound are
 * explained in hist.h; recording is inline there because it runs on every
 * completion.
 *
 * Why midpoints: fio reports a percentile as a representative value of
 * the bucket that holds the ranked sample.  Taking the bucket's midpoint
 * halves the worst-case error of taking its lower edge (0.39% instead of
 * 0.78%), and clamping to the exact min and max makes a distribution of
 * identical samples report that exact value at every percentile.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hist.h"

#define HIST_MAGIC   0x54534842u /* "BHST" little-endian */
#define HIST_VERSION 1u
#define HIST_HDR_LEN (4 + 2 + 2 + 4 + 4 + 5 * 8)
#define HIST_PAIR    (4 + 8)

static uint64_t ld(const _Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static double u2d(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t d2u(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

void bench_hist_init(struct bench_hist *h)
{
	unsigned int i;

	atomic_store_explicit(&h->count, 0, memory_order_relaxed);
	atomic_store_explicit(&h->sum, 0, memory_order_relaxed);
	atomic_store_explicit(&h->sumsq, d2u(0.0), memory_order_relaxed);
	atomic_store_explicit(&h->min, UINT64_MAX, memory_order_relaxed);
	atomic_store_explicit(&h->max, 0, memory_order_relaxed);
	for (i = 0; i < BENCH_HIST_NBUCKETS; i++)
		atomic_store_explicit(&h->b[i], 0, memory_order_relaxed);
}

void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
	unsigned int i;
	uint64_t v;

	for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
		v = ld(&src->b[i]);
		if (v)
			atomic_fetch_add_explicit(&dst->b[i], v,
						  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&dst->count, ld(&src->count),
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&dst->sum, ld(&src->sum),
				  memory_order_relaxed);
	atomic_store_explicit(&dst->sumsq,
			      d2u(u2d(ld(&dst->sumsq)) + u2d(ld(&src->sumsq))),
			      memory_order_relaxed);
	if (ld(&src->min) < ld(&dst->min))
		atomic_store_explicit(&dst->min, ld(&src->min),
				      memory_order_relaxed);
	if (ld(&src->max) > ld(&dst->max))
		atomic_store_explicit(&dst->max, ld(&src->max),
				      memory_order_relaxed);
}

void bench_hist_copy(struct bench_hist *dst, const struct bench_hist *src)
{
	unsigned int i;

	for (i = 0; i < BENCH_HIST_NBUCKETS; i++)
		atomic_store_explicit(&dst->b[i], ld(&src->b[i]),
				      memory_order_relaxed);
	atomic_store_explicit(&dst->count, ld(&src->count),
			      memory_order_relaxed);
	atomic_store_explicit(&dst->sum, ld(&src->sum), memory_order_relaxed);
	atomic_store_explicit(&dst->sumsq, ld(&src->sumsq),
			      memory_order_relaxed);
	atomic_store_explicit(&dst->min, ld(&src->min), memory_order_relaxed);
	atomic_store_explicit(&dst->max, ld(&src->max), memory_order_relaxed);
}

void bench_hist_delta(struct bench_hist *dst, const struct bench_hist *now,
		      const struct bench_hist *then)
{
	uint64_t n = 0, a, c, s;
	unsigned int i;

	for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
		a = ld(&now->b[i]);
		c = ld(&then->b[i]);
		c = a > c ? a - c : 0;
		n += c;
		atomic_store_explicit(&dst->b[i], c, memory_order_relaxed);
	}
	a = ld(&now->sum);
	s = ld(&then->sum);
	atomic_store_explicit(&dst->count, n, memory_order_relaxed);
	atomic_store_explicit(&dst->sum, a > s ? a - s : 0,
			      memory_order_relaxed);
	atomic_store_explicit(&dst->sumsq,
			      d2u(u2d(ld(&now->sumsq)) - u2d(ld(&then->sumsq))),
			      memory_order_relaxed);
	atomic_store_explicit(&dst->min, 0, memory_order_relaxed);
	atomic_store_explicit(&dst->max, UINT64_MAX, memory_order_relaxed);
}

uint64_t bench_hist_count(const struct bench_hist *h)
{
	return ld(&h->count);
}

uint64_t bench_hist_min(const struct bench_hist *h)
{
	return ld(&h->count) ? ld(&h->min) : 0;
}

uint64_t bench_hist_max(const struct bench_hist *h)
{
	return ld(&h->max);
}

double bench_hist_mean(const struct bench_hist *h)
{
	uint64_t n = ld(&h->count);

	return n ? (double)ld(&h->sum) / (double)n : 0.0;
}

double bench_hist_stddev(const struct bench_hist *h)
{
	uint64_t n = ld(&h->count);
	double mean, var;

	if (n < 2)
		return 0.0;
	mean = (double)ld(&h->sum) / (double)n;
	var = (u2d(ld(&h->sumsq)) - (double)n * mean * mean) / (double)(n - 1);
	/* rounding can push the variance of identical samples below 0 */
	return var > 0 ? sqrt(var) : 0.0;
}

uint64_t bench_hist_bucket_low(unsigned int idx)
{
	unsigned int g, sub;

	if (idx < 2 * BENCH_HIST_SUB)
		return idx;
	g = idx >> BENCH_HIST_SUB_BITS;
	sub = idx & (BENCH_HIST_SUB - 1);
	return (uint64_t)(BENCH_HIST_SUB + sub) << (g - 1);
}

uint64_t bench_hist_bucket_width(unsigned int idx)
{
	if (idx < 2 * BENCH_HIST_SUB)
		return 1;
	return 1ull << ((idx >> BENCH_HIST_SUB_BITS) - 1);
}

uint64_t bench_hist_percentile(const struct bench_hist *h, double pct)
{
	uint64_t n = ld(&h->count), rank, cum = 0, v, lo, hi;
	unsigned int i;

	if (!n || !(pct > 0))
		return 0;
	if (pct >= 100)
		return ld(&h->max);
	rank = (uint64_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	lo = ld(&h->min);
	hi = ld(&h->max);
	for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
		cum += ld(&h->b[i]);
		if (cum >= rank)
			break;
	}
	if (i == BENCH_HIST_NBUCKETS) /* counts raced ahead of count */
		return hi;
	v = bench_hist_bucket_low(i) + (bench_hist_bucket_width(i) - 1) / 2;
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	return v;
}

static void put16(uint8_t **p, uint16_t v)
{
	(*p)[0] = (uint8_t)v;
	(*p)[1] = (uint8_t)(v >> 8);
	*p += 2;
}

static void put32(uint8_t **p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p, (uint16_t)(v >> 16));
}

static void put64(uint8_t **p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p, (uint32_t)(v >> 32));
}

static uint16_t get16(const uint8_t **p)
{
	uint16_t v = (uint16_t)((*p)[0] | (*p)[1] << 8);

	*p += 2;
	return v;
}

static uint32_t get32(const uint8_t **p)
{
	uint32_t lo = get16(p);

	return lo | (uint32_t)get16(p) << 16;
}

static uint64_t get64(const uint8_t **p)
{
	uint64_t lo = get32(p);

	return lo | (uint64_t)get32(p) << 32;
}

long bench_hist_serialize(const struct bench_hist *h, void *buf, size_t len)
{
	uint32_t nz = 0;
	unsigned int i;
	size_t need;
	uint8_t *p = buf;

	for (i = 0; i < BENCH_HIST_NBUCKETS; i++)
		nz += ld(&h->b[i]) != 0;
	need = HIST_HDR_LEN + (size_t)nz * HIST_PAIR;
	if (!buf)
		return (long)need;
	if (len < need)
		return -ENOSPC;
	put32(&p, HIST_MAGIC);
	put16(&p, HIST_VERSION);
	put16(&p, BENCH_HIST_SUB_BITS);
	put32(&p, BENCH_HIST_NBUCKETS);
	put32(&p, nz);
	put64(&p, ld(&h->count));
	put64(&p, ld(&h->sum));
	put64(&p, ld(&h->sumsq));
	put64(&p, ld(&h->min));
	put64(&p, ld(&h->max));
	for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
		uint64_t c = ld(&h->b[i]);

		if (!c)
			continue;
		put32(&p, i);
		put64(&p, c);
	}
	return (long)need;
}

int bench_hist_deserialize(struct bench_hist *h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t count, total = 0;
	uint32_t nz, i, idx;
	long prev = -1;

	bench_hist_init(h);
	if (!buf || len < HIST_HDR_LEN)
		return -EINVAL;
	if (get32(&p) != HIST_MAGIC || get16(&p) != HIST_VERSION ||
	    get16(&p) != BENCH_HIST_SUB_BITS ||
	    get32(&p) != BENCH_HIST_NBUCKETS)
		return -EINVAL;
	nz = get32(&p);
	if (nz > BENCH_HIST_NBUCKETS ||
	    len != HIST_HDR_LEN + (size_t)nz * HIST_PAIR)
		return -EINVAL;
	count = get64(&p);
	atomic_store_explicit(&h->sum, get64(&p), memory_order_relaxed);
	atomic_store_explicit(&h->sumsq, get64(&p), memory_order_relaxed);
	atomic_store_explicit(&h->min, get64(&p), memory_order_relaxed);
	atomic_store_explicit(&h->max, get64(&p), memory_order_relaxed);
	for (i = 0; i < nz; i++) {
		uint64_t c;

		idx = get32(&p);
		c = get64(&p);
		if (idx >= BENCH_HIST_NBUCKETS || (long)idx <= prev || !c ||
		    total + c < total)
			goto out_bad;
		prev = idx;
		total += c;
		atomic_store_explicit(&h->b[idx], c, memory_order_relaxed);
	}
	if (total != count)
		goto out_bad;
	atomic_store_explicit(&h->count, count, memory_order_relaxed);
	return 0;

out_bad:
	bench_hist_init(h);
	return -EINVAL;
}
