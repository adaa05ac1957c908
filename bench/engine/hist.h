/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Latency histograms: log-linear buckets over 0 .. 2^36 ns (68.7 s; values
 * are clamped at 60 s), relative bucket width at most 2^-7, recorded with
 * relaxed atomic increments from any number of completion threads without
 * a lock or an allocation.
 *
 * Bucket layout (the HdrHistogram idea with one fixed precision): values
 * below 256 ns have a bucket each.  Above, a value v with its highest set
 * bit at position e (e >= 8) lands in group g = e - 6 and sub-bucket
 * (v >> (e - 7)) - 128: each power-of-two range is cut into 128 equal
 * buckets of width 2^(e-7).  The width is at most 1/128 of any value in the
 * bucket (0.78%); reporting the bucket's midpoint is within 0.39% of every
 * value that fell into it, and exact below 256 ns.
 *
 * Histograms merge by adding counts (bucket for bucket) and serialise to a
 * small sparse little-endian form, so runs on several machines (MPI ranks)
 * can be reduced to one before percentiles are taken: percentiles are
 * never averaged.  The dense bucket array is also directly reducible with
 * an element-wise sum (MPI_Reduce with MPI_SUM over uint64 counts).
 */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_HIST_SUB_BITS 7
#define BENCH_HIST_SUB	    (1u << BENCH_HIST_SUB_BITS)
/* groups 0..29 cover every value below 2^36 ns */
#define BENCH_HIST_NBUCKETS (30u << BENCH_HIST_SUB_BITS)
#define BENCH_HIST_MAX_NS   60000000000ull

/**
 * struct bench_hist - one latency distribution
 * @count: samples
 * @sum: sum of the samples (ns), for the exact mean
 * @sumsq: sum of their squares, a double held in a 64-bit word (an exact
 *	integer would overflow after ~18 million 1 ms samples)
 * @min, @max: exact extremes (@min is UINT64_MAX while empty)
 * @b: bucket counts
 */
struct bench_hist {
	_Atomic uint64_t count;
	_Atomic uint64_t sum;
	_Atomic uint64_t sumsq;
	_Atomic uint64_t min;
	_Atomic uint64_t max;
	_Atomic uint64_t b[BENCH_HIST_NBUCKETS];
};

/** bench_hist_index() - bucket of value @v (ns), @v already clamped */
static inline unsigned int bench_hist_index(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * BENCH_HIST_SUB)
		return (unsigned int)v;
	/* group g = shift + 1 starts at index g << SUB_BITS; v >> shift is
	 * SUB + the sub-bucket: the two SUBs cancel */
	shift = 63u - (unsigned int)__builtin_clzll(v) - BENCH_HIST_SUB_BITS;
	return (shift << BENCH_HIST_SUB_BITS) + (unsigned int)(v >> shift);
}

/**
 * bench_hist_record() - add one sample
 * @h: the histogram
 * @v: the value in ns; values above 60 s count in the last bucket (min,
 *	max, mean and stddev stay exact)
 *
 * Context: any thread, concurrently with other recorders; lock-free and
 * allocation-free.
 */
static inline void bench_hist_record(struct bench_hist *h, uint64_t v)
{
	uint64_t c = v > BENCH_HIST_MAX_NS ? BENCH_HIST_MAX_NS : v;
	uint64_t old, cur;
	union {
		double d;
		uint64_t u;
	} a, n;

	atomic_fetch_add_explicit(&h->b[bench_hist_index(c)], 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->sum, v, memory_order_relaxed);
	old = atomic_load_explicit(&h->sumsq, memory_order_relaxed);
	do {
		a.u = old;
		n.d = a.d + (double)v * (double)v;
	} while (!atomic_compare_exchange_weak_explicit(&h->sumsq, &old, n.u,
							memory_order_relaxed,
							memory_order_relaxed));
	cur = atomic_load_explicit(&h->min, memory_order_relaxed);
	while (v < cur && !atomic_compare_exchange_weak_explicit(
				  &h->min, &cur, v, memory_order_relaxed,
				  memory_order_relaxed))
		;
	cur = atomic_load_explicit(&h->max, memory_order_relaxed);
	while (v > cur && !atomic_compare_exchange_weak_explicit(
				  &h->max, &cur, v, memory_order_relaxed,
				  memory_order_relaxed))
		;
}

/** bench_hist_init() - make @h empty (not concurrently with recorders) */
void bench_hist_init(struct bench_hist *h);

/**
 * bench_hist_merge() - add @src's samples into @dst
 * Context: @src must not be recorded into concurrently for an exact
 * result (a racing sample may be seen in some fields and not others).
 */
void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);

/**
 * bench_hist_copy() - make @dst a copy of @src
 * Context: @src may be recorded into concurrently (each field is read
 * once, atomically; @dst is then a consistent-enough snapshot for
 * interval statistics, see bench_hist_delta()).  @dst must not be.
 */
void bench_hist_copy(struct bench_hist *dst, const struct bench_hist *src);

/**
 * bench_hist_delta() - the samples recorded between two snapshots
 * @dst: receives @now minus @then, bucket by bucket
 * @now, @then: copies of one histogram, @then taken first
 *
 * @dst's count is the sum of its buckets (a snapshot taken while samples
 * arrive may have counted a sample in one field and not yet in another);
 * its min is 0 and its max UINT64_MAX (unknown for an interval), so its
 * percentiles are bucket midpoints, unclamped.
 */
void bench_hist_delta(struct bench_hist *dst, const struct bench_hist *now,
		      const struct bench_hist *then);

/** bench_hist_count() - number of samples */
uint64_t bench_hist_count(const struct bench_hist *h);

/** bench_hist_min() / bench_hist_max() - exact extremes, 0 when empty */
uint64_t bench_hist_min(const struct bench_hist *h);
uint64_t bench_hist_max(const struct bench_hist *h);

/** bench_hist_mean() - exact mean (ns), 0 when empty */
double bench_hist_mean(const struct bench_hist *h);

/** bench_hist_stddev() - sample standard deviation (n-1), 0 below 2 */
double bench_hist_stddev(const struct bench_hist *h);

/**
 * bench_hist_percentile() - the value below which @pct percent of samples
 * fall
 * @pct: 0 < pct <= 100
 *
 * Return: the midpoint of the bucket holding the sample of rank
 * ceil(pct/100 * count), clamped to [min, max]; 0 when empty.
 */
uint64_t bench_hist_percentile(const struct bench_hist *h, double pct);

/** bench_hist_bucket_low() - smallest value of bucket @idx */
uint64_t bench_hist_bucket_low(unsigned int idx);

/** bench_hist_bucket_width() - number of values in bucket @idx */
uint64_t bench_hist_bucket_width(unsigned int idx);

/**
 * bench_hist_serialize() - write @h in the portable sparse form
 * @buf: destination, or NULL to learn the size needed
 * @len: bytes available at @buf
 *
 * Format (little-endian): "BHST" magic, u16 version 1, u16 sub-bucket
 * bits, u32 buckets, u32 non-empty buckets n, u64 count, sum, sumsq (IEEE
 * double bits), min, max, then n pairs of u32 bucket index and u64 count
 * in increasing index order.
 * Return: bytes written (or needed when @buf is NULL); -ENOSPC when @len
 * is too small (nothing meaningful written).
 */
long bench_hist_serialize(const struct bench_hist *h, void *buf, size_t len);

/**
 * bench_hist_deserialize() - replace @h with a serialised histogram
 * Return: 0; -EINVAL for a malformed, truncated or foreign buffer
 * (wrong magic, version or bucket layout, unordered indices, counts that
 * do not add up); @h is left empty then.
 */
int bench_hist_deserialize(struct bench_hist *h, const void *buf, size_t len);

#endif /* BENCH_HIST_H */
