// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the bench engine's latency histogram (bench/engine/hist.c):
 * bucket layout and error bound, percentiles of known distributions,
 * moments, merging, serialisation, concurrent recording.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/hist.h"

static struct bench_hist *mk(void)
{
	struct bench_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	bench_hist_init(h);
	return h;
}

static void check_bucket_of(uint64_t v)
{
	unsigned int i = bench_hist_index(v);
	uint64_t lo = bench_hist_bucket_low(i), w = bench_hist_bucket_width(i);

	assert_true(i < BENCH_HIST_NBUCKETS);
	if (v < lo || v >= lo + w)
		fail_msg("value %llu outside its bucket %u [%llu, +%llu)",
			 (unsigned long long)v, i, (unsigned long long)lo,
			 (unsigned long long)w);
	/* the error bound: a bucket is at most 1/128 of its values */
	if (v >= 256 && (double)w / (double)lo > 1.0 / 128 + 1e-12)
		fail_msg("bucket %u too wide: %llu at %llu", i,
			 (unsigned long long)w, (unsigned long long)lo);
}

static void test_every_value_lands_in_a_bucket_within_error_bound(void **st)
{
	uint64_t v, prev = 0;
	unsigned int e;

	(void)st;
	for (v = 0; v < (1u << 16); v++) {
		check_bucket_of(v);
		assert_true(bench_hist_index(v) >= prev); /* monotonic */
		prev = bench_hist_index(v);
	}
	for (e = 16; e < 36; e++) {
		uint64_t base = 1ull << e;

		check_bucket_of(base - 1);
		check_bucket_of(base);
		check_bucket_of(base + 1);
		check_bucket_of(base + base / 3);
		check_bucket_of(2 * base - 1);
	}
	check_bucket_of(BENCH_HIST_MAX_NS);
	/* buckets tile the range without gaps */
	for (e = 1; e < BENCH_HIST_NBUCKETS; e++)
		assert_int_equal(bench_hist_bucket_low(e),
				 bench_hist_bucket_low(e - 1) +
					 bench_hist_bucket_width(e - 1));
}

static void test_empty_histogram_reports_zeroes(void **st)
{
	struct bench_hist *h = mk();

	(void)st;
	assert_int_equal(bench_hist_count(h), 0);
	assert_int_equal(bench_hist_min(h), 0);
	assert_int_equal(bench_hist_max(h), 0);
	assert_true(bench_hist_mean(h) == 0);
	assert_true(bench_hist_stddev(h) == 0);
	assert_int_equal(bench_hist_percentile(h, 50), 0);
	free(h);
}

static void
test_identical_samples_give_that_value_at_every_percentile(void **st)
{
	static const double p[] = {1, 50, 90, 99, 99.99, 100};
	struct bench_hist *h = mk();
	unsigned int i;

	(void)st;
	for (i = 0; i < 1000; i++)
		bench_hist_record(h, 123457);
	for (i = 0; i < 6; i++)
		assert_int_equal(bench_hist_percentile(h, p[i]), 123457);
	assert_int_equal(bench_hist_min(h), 123457);
	assert_int_equal(bench_hist_max(h), 123457);
	assert_true(bench_hist_stddev(h) == 0);
	free(h);
}

static void test_uniform_percentiles_within_half_percent(void **st)
{
	static const double p[] = {1,  5,  10, 20, 30,	 40,   50,    60,   70,
				   80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
	struct bench_hist *h = mk();
	uint64_t v;
	unsigned int i;

	(void)st;
	/* every value 1 us .. 1 s (step 1 us): the p-th percentile is known */
	for (v = 1; v <= 1000000; v++)
		bench_hist_record(h, v * 1000);
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		double want = p[i] / 100 * 1e9;
		double got = (double)bench_hist_percentile(h, p[i]);

		if (fabs(got - want) / want > 0.004 + 1e-6)
			fail_msg("p%.2f: got %.0f want %.0f", p[i], got, want);
	}
	assert_true(fabs(bench_hist_mean(h) - 500000.5 * 1000) < 1e-3);
	free(h);
}

static void test_mean_and_stddev_are_exact(void **st)
{
	struct bench_hist *h = mk();
	double sum = 0, sq = 0, mean, sd;
	uint64_t v;
	unsigned int i;

	(void)st;
	for (i = 0; i < 10000; i++) {
		v = 1000 + (uint64_t)(i * 7919) % 5000;
		bench_hist_record(h, v);
		sum += (double)v;
		sq += (double)v * (double)v;
	}
	mean = sum / 10000;
	sd = sqrt((sq - 10000 * mean * mean) / 9999);
	assert_true(fabs(bench_hist_mean(h) - mean) < 1e-9);
	assert_true(fabs(bench_hist_stddev(h) - sd) < 1e-6 * sd);
	free(h);
}

static void test_values_beyond_60s_clamp_but_keep_exact_max(void **st)
{
	struct bench_hist *h = mk();

	(void)st;
	bench_hist_record(h, 100000000000ull); /* 100 s */
	assert_int_equal(bench_hist_count(h), 1);
	assert_int_equal(bench_hist_max(h), 100000000000ull);
	assert_int_equal(
		atomic_load(&h->b[bench_hist_index(BENCH_HIST_MAX_NS)]), 1);
	assert_int_equal(bench_hist_percentile(h, 100), 100000000000ull);
	free(h);
}

static void test_merge_equals_recording_everything_in_one(void **st)
{
	struct bench_hist *a = mk(), *b = mk(), *all = mk();
	unsigned int i;

	(void)st;
	for (i = 0; i < 5000; i++) {
		uint64_t v = 50 + (uint64_t)i * i;

		bench_hist_record(i % 3 ? a : b, v);
		bench_hist_record(all, v);
	}
	bench_hist_merge(a, b);
	assert_int_equal(bench_hist_count(a), bench_hist_count(all));
	assert_int_equal(bench_hist_min(a), bench_hist_min(all));
	assert_int_equal(bench_hist_max(a), bench_hist_max(all));
	assert_int_equal(atomic_load(&a->sum), atomic_load(&all->sum));
	assert_memory_equal(a->b, all->b, sizeof(a->b));
	assert_int_equal(bench_hist_percentile(a, 99.9),
			 bench_hist_percentile(all, 99.9));
	assert_true(fabs(bench_hist_stddev(a) - bench_hist_stddev(all)) <
		    1e-6 * bench_hist_stddev(all));
	free(a);
	free(b);
	free(all);
}

static void test_serialize_roundtrip_is_identical(void **st)
{
	struct bench_hist *h = mk(), *g = mk();
	long need, n;
	void *buf;
	unsigned int i;

	(void)st;
	for (i = 0; i < 3000; i++)
		bench_hist_record(h, 1 + (uint64_t)i * 104729);
	need = bench_hist_serialize(h, NULL, 0);
	assert_true(need > 0);
	buf = malloc((size_t)need);
	assert_non_null(buf);
	assert_int_equal(bench_hist_serialize(h, buf, (size_t)need - 1),
			 -ENOSPC);
	n = bench_hist_serialize(h, buf, (size_t)need);
	assert_int_equal(n, need);
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n), 0);
	assert_int_equal(bench_hist_count(g), bench_hist_count(h));
	assert_int_equal(bench_hist_min(g), bench_hist_min(h));
	assert_int_equal(bench_hist_max(g), bench_hist_max(h));
	assert_int_equal(atomic_load(&g->sum), atomic_load(&h->sum));
	assert_int_equal(atomic_load(&g->sumsq), atomic_load(&h->sumsq));
	assert_memory_equal(g->b, h->b, sizeof(h->b));
	free(buf);
	free(h);
	free(g);
}

static void test_deserialize_rejects_damaged_input(void **st)
{
	struct bench_hist *h = mk(), *g = mk();
	uint8_t *buf;
	long n;

	(void)st;
	bench_hist_record(h, 10);
	bench_hist_record(h, 5000);
	n = bench_hist_serialize(h, NULL, 0);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(bench_hist_serialize(h, buf, (size_t)n), n);

	assert_int_equal(bench_hist_deserialize(g, NULL, (size_t)n), -EINVAL);
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n - 1),
			 -EINVAL); /* truncated */
	buf[0] ^= 1;		   /* magic */
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n), -EINVAL);
	buf[0] ^= 1;
	buf[6] = 9; /* sub-bucket bits of another layout */
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n), -EINVAL);
	buf[6] = BENCH_HIST_SUB_BITS;
	buf[16] ^= 1; /* count no longer matches the buckets */
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n), -EINVAL);
	assert_int_equal(bench_hist_count(g), 0); /* left empty */
	buf[16] ^= 1;
	/* swap the two bucket indices: out of order */
	{
		uint8_t t[4];
		size_t p1 = (size_t)n - 24, p2 = (size_t)n - 12;

		memcpy(t, buf + p1, 4);
		memcpy(buf + p1, buf + p2, 4);
		memcpy(buf + p2, t, 4);
	}
	assert_int_equal(bench_hist_deserialize(g, buf, (size_t)n), -EINVAL);
	free(buf);
	free(h);
	free(g);
}

#define REC_THREADS 4
#define REC_PER	    20000

static void *recorder(void *arg)
{
	struct bench_hist *h = arg;
	unsigned int i;

	for (i = 0; i < REC_PER; i++)
		bench_hist_record(h, 100 + i % 1000);
	return NULL;
}

static void test_concurrent_recorders_lose_no_sample(void **st)
{
	struct bench_hist *h = mk();
	pthread_t t[REC_THREADS];
	uint64_t total = 0;
	unsigned int i;

	(void)st;
	for (i = 0; i < REC_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, recorder, h), 0);
	for (i = 0; i < REC_THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < BENCH_HIST_NBUCKETS; i++)
		total += atomic_load(&h->b[i]);
	assert_int_equal(bench_hist_count(h), REC_THREADS * REC_PER);
	assert_int_equal(total, REC_THREADS * REC_PER);
	assert_int_equal(bench_hist_min(h), 100);
	assert_int_equal(bench_hist_max(h), 1099);
	assert_true(fabs(bench_hist_mean(h) - 599.5) < 1e-9);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_every_value_lands_in_a_bucket_within_error_bound),
		cmocka_unit_test(test_empty_histogram_reports_zeroes),
		cmocka_unit_test(
			test_identical_samples_give_that_value_at_every_percentile),
		cmocka_unit_test(test_uniform_percentiles_within_half_percent),
		cmocka_unit_test(test_mean_and_stddev_are_exact),
		cmocka_unit_test(
			test_values_beyond_60s_clamp_but_keep_exact_max),
		cmocka_unit_test(test_merge_equals_recording_everything_in_one),
		cmocka_unit_test(test_serialize_roundtrip_is_identical),
		cmocka_unit_test(test_deserialize_rejects_damaged_input),
		cmocka_unit_test(test_concurrent_recorders_lose_no_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
