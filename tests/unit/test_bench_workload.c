// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the bench engine's workload pieces: the random block
 * permutation (bench/engine/workload.c) and the verification pattern
 * (bench/engine/verify.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine_int.h"

static void check_perm(uint64_t n, uint64_t key)
{
	uint8_t *seen = calloc(n, 1);
	uint64_t i, v, fixed = 0;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		v = bench_perm(i, n, key);
		if (v >= n)
			fail_msg("perm(%llu) = %llu out of [0, %llu)",
				 (unsigned long long)i, (unsigned long long)v,
				 (unsigned long long)n);
		if (seen[v])
			fail_msg("perm of %llu hits %llu twice (key %llx)",
				 (unsigned long long)n, (unsigned long long)v,
				 (unsigned long long)key);
		seen[v] = 1;
		fixed += v == i;
	}
	/* a random-looking order, not the identity */
	if (n >= 64 && fixed > n / 8)
		fail_msg("perm of %llu leaves %llu of them in place",
			 (unsigned long long)n, (unsigned long long)fixed);
	free(seen);
}

static void test_perm_is_a_bijection_for_every_size(void **st)
{
	static const uint64_t sizes[] = {1,    2,    3,	   7,	 64,	100,
					 1000, 4095, 4096, 4097, 65536, 100003};
	unsigned int i, k;

	(void)st;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (k = 0; k < 3; k++)
			check_perm(sizes[i],
				   0x1234 + k * 0x9e3779b97f4a7c15ull);
}

static void test_perm_differs_between_keys(void **st)
{
	unsigned int i, same = 0;

	(void)st;
	for (i = 0; i < 1000; i++)
		same += bench_perm(i, 1000, 1) == bench_perm(i, 1000, 2);
	assert_true(same < 100);
}

/* fio's zoned: 60% of the draws in the first 10% of the region... */
static void test_zoned_blocks_fall_in_their_zones(void **st)
{
	struct bench_zones z = {
		.n = 3, .access = {60, 30, 10}, .end = {10, 30, 100}};
	struct bench_zones za = {
		.n = 2, .access = {90, 10}, .end = {8192, 1u << 30}};
	uint64_t hits[3] = {0}, b, i, n = 10000;

	(void)st;
	for (i = 0; i < n; i++) {
		double u1 = (double)i / (double)n;
		double u2 = (double)((i * 7919) % n) / (double)n;

		b = bench_zoned_block(&z, false, u1, u2, 1000, 4096);
		assert_true(b < 1000);
		hits[b < 100 ? 0 : b < 300 ? 1 : 2]++;
		/* zoned_abs: 8 KiB = 2 blocks, then the rest, cut at 1000 */
		b = bench_zoned_block(&za, true, u1, u2, 1000, 4096);
		assert_true(b < 1000);
		if (u1 < 0.9)
			assert_true(b < 2);
		else
			assert_true(b >= 2);
	}
	assert_int_equal(hits[0], 6000);
	assert_int_equal(hits[1], 3000);
	assert_int_equal(hits[2], 1000);
	/* a zone thinner than a block still has one; u -> 1 stays inside */
	z = (struct bench_zones){.n = 2, .access = {50, 50}, .end = {1, 2}};
	assert_int_equal(bench_zoned_block(&z, false, 0.2, 0.99, 10, 4096), 0);
	assert_int_equal(bench_zoned_block(&z, false, 0.99, 0.99, 10, 4096), 0);
	assert_true(bench_zoned_block(&z, false, 0.999999, 0.999999, 1000,
				      4096) < 20);
}

static void test_pattern_roundtrip_any_alignment(void **st)
{
	uint8_t buf[200];
	uint8_t e, g;
	unsigned int off, len;

	(void)st;
	for (off = 0; off < 17; off++)
		for (len = 1; len < 70; len += 3) {
			bench_pattern_fill(buf, 4096 + off, len, 0x30007);
			assert_int_equal(bench_pattern_check(buf, 4096 + off,
							     len, 0x30007, &e,
							     &g),
					 -1);
		}
}

static void test_pattern_is_a_function_of_the_byte_offset(void **st)
{
	uint8_t a[64], b[64];

	(void)st;
	/* a 32-byte write at 16 and a 64-byte write at 0 agree on the
	 * overlap: layout and ior's small transfers see the same bytes */
	bench_pattern_fill(a, 0, 64, 0x10001);
	bench_pattern_fill(b, 16, 32, 0x10001);
	assert_memory_equal(a + 16, b, 32);
}

static void test_pattern_check_reports_first_bad_byte(void **st)
{
	uint8_t buf[4096], e = 0, g = 0;

	(void)st;
	bench_pattern_fill(buf, 8192, sizeof(buf), 0x20003);
	buf[1234] ^= 0x40;
	assert_int_equal(
		bench_pattern_check(buf, 8192, sizeof(buf), 0x20003, &e, &g),
		1234);
	assert_int_equal(e ^ g, 0x40);
	buf[1234] ^= 0x40;
	buf[3] ^= 1;
	assert_int_equal(
		bench_pattern_check(buf, 8192, sizeof(buf), 0x20003, &e, &g),
		3);
}

static void test_pattern_detects_wrong_tag_and_wrong_offset(void **st)
{
	uint8_t buf[512], e, g;

	(void)st;
	bench_pattern_fill(buf, 0, sizeof(buf), 0x00001); /* job 0, gen 1 */
	/* an older generation, another job, another place */
	assert_int_equal(
		bench_pattern_check(buf, 0, sizeof(buf), 0x00002, &e, &g) >= 0,
		1);
	assert_int_equal(
		bench_pattern_check(buf, 0, sizeof(buf), 0x10001, &e, &g) >= 0,
		1);
	assert_int_equal(bench_pattern_check(buf, 512, sizeof(buf), 0x00001, &e,
					     &g) >= 0,
			 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perm_is_a_bijection_for_every_size),
		cmocka_unit_test(test_zoned_blocks_fall_in_their_zones),
		cmocka_unit_test(test_perm_differs_between_keys),
		cmocka_unit_test(test_pattern_roundtrip_any_alignment),
		cmocka_unit_test(test_pattern_is_a_function_of_the_byte_offset),
		cmocka_unit_test(test_pattern_check_reports_first_bad_byte),
		cmocka_unit_test(
			test_pattern_detects_wrong_tag_and_wrong_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
