// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the bench engine's workload pieces: the random block
 * permutation and the draw (bench/engine/workload.c) and the verification
 * pattern (bench/engine/verify.c).
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

/*
 * The permutation's values are part of a run's identity: the same key
 * draws the same offsets from one version to the next (a job's blocks,
 * the layout a randread reads).  Pinned here, cycle-walking (n not a
 * power of two) included.
 */
static void test_perm_values_are_stable(void **st)
{
	static const struct {
		uint64_t n, i, v;
	} pin[] = {
		{7, 0, 2},
		{7, 1, 6},
		{7, 5, 3},
		{7, 6, 1},
		{4096, 0, 2453},
		{4096, 997, 2976},
		{4096, 889, 1507},
		{4096, 1886, 1704},
		{100003, 0, 2183},
		{100003, 997, 21135},
		{100003, 4985, 68311},
		{100003, 5982, 13022},
	};
	unsigned int k;

	(void)st;
	for (k = 0; k < sizeof(pin) / sizeof(pin[0]); k++)
		if (bench_perm(pin[k].i, pin[k].n, 0x1234) != pin[k].v)
			fail_msg("perm(%llu) of %llu: %llu, was %llu",
				 (unsigned long long)pin[k].i,
				 (unsigned long long)pin[k].n,
				 (unsigned long long)bench_perm(
					 pin[k].i, pin[k].n, 0x1234),
				 (unsigned long long)pin[k].v);
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

/* one job over one file, in the measured phase of @rw */
struct draw_env {
	struct bench b;
	struct bench_file f, *fp;
	struct bench_job j;
	struct bench_slot s[3];
	char buf[3][8];
};

static void draw_env_init(struct draw_env *e, enum bench_rw rw,
			  uint64_t nblocks)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	bench_opts_defaults(&e->b.o);
	e->b.o.rw = rw;
	e->b.o.bs = 4096;
	e->b.phase.kind = PH_MAIN;
	e->b.phase.rw = rw;
	e->b.phase.measured = true;
	e->f.nblocks = nblocks;
	e->f.bs = 4096;
	e->f.size = nblocks * 4096;
	e->fp = &e->f;
	e->j.b = &e->b;
	e->j.file = &e->f;
	e->j.jfiles = &e->fp;
	e->j.nfiles = 1;
	e->j.gid = 3;
	e->j.key = bench_mix64(0x5eed);
	e->j.blk_lo = 0;
	e->j.blk_hi = nblocks;
	e->j.io_len = 4096;
	e->j.budget = 3 * nblocks + 5; /* passes, and one cut short */
	for (i = 0; i < 3; i++) {
		e->s[i].job = &e->j;
		e->s[i].blk = UINT64_MAX;
		e->s[i].buf = e->buf[i];
	}
}

/* the slot of draw @n: uneven, the way completions come back */
static unsigned int draw_slot(uint64_t n)
{
	return (unsigned int)(bench_mix64(n) % 3);
}

/*
 * The plain random draw gives, draw for draw, the operation the general
 * draw gives for the same job and options; @e is drawn twice from the
 * start, once each way.  Return: the number of draws.
 */
static uint64_t check_plain_draw_is_the_general_one(struct draw_env *e)
{
	struct bench_io want[512];
	uint64_t n = 0, i;
	bool more;

	bench_draw_plain_setup(&e->b, &e->j);
	assert_true(e->j.draw_plain);
	atomic_store(&e->j.next_idx, 0);
	do {
		struct bench_slot *s = &e->s[draw_slot(n)];

		assert_true(n < 512);
		more = bench_draw_any(&e->j, s);
		want[n++] = s->io;
	} while (more);
	atomic_store(&e->j.next_idx, 0);
	for (i = 0; i < n; i++) {
		struct bench_slot *s = &e->s[draw_slot(i)];

		more = bench_draw(&e->j, s);
		assert_int_equal(more, i + 1 < n);
		if (!more)
			break;
		if (s->io.op != want[i].op || s->io.offset != want[i].offset ||
		    s->io.len != want[i].len || s->io.buf != want[i].buf)
			fail_msg("draw %llu: plain op %d offset %llu len %u, "
				 "general op %d offset %llu len %u",
				 (unsigned long long)i, s->io.op,
				 (unsigned long long)s->io.offset, s->io.len,
				 want[i].op, (unsigned long long)want[i].offset,
				 want[i].len);
	}
	return n;
}

static void test_plain_random_draw_matches_the_general_draw(void **st)
{
	struct draw_env e;

	(void)st;
	draw_env_init(&e, RW_RANDREAD, 37);
	assert_int_equal(check_plain_draw_is_the_general_one(&e), 3 * 37 + 6);
	/* writes; a region after --offset, a hole after each block, the
	 * job's region of a shared file */
	draw_env_init(&e, RW_RANDWRITE, 100);
	e.f.base = 1 << 20;
	e.b.o.rw_hole = 512;
	e.b.o.offset_inc = 1 << 24;
	e.b.o.filename = "shared";
	check_plain_draw_is_the_general_one(&e);
	/* one block: every draw is block 0 */
	draw_env_init(&e, RW_RANDREAD, 1);
	check_plain_draw_is_the_general_one(&e);
	/* a second phase on the same slots starts its passes again */
	draw_env_init(&e, RW_RANDREAD, 64);
	check_plain_draw_is_the_general_one(&e);
	e.j.key = bench_mix64(0x5eed + 1);
	e.j.budget = 40;
	check_plain_draw_is_the_general_one(&e);
}

/* every option that shapes a draw keeps the general draw */
static void test_plain_draw_only_without_draw_options(void **st)
{
	static _Atomic uint32_t state[8];
	struct draw_env e;
	unsigned int c;

	(void)st;
	for (c = 0; c < 13; c++) {
		draw_env_init(&e, RW_RANDREAD, 8);
		switch (c) {
		case 0:
			break; /* the plain case itself */
		case 1:
			e.b.o.norandommap = true;
			break;
		case 2:
			e.b.o.dist = DIST_ZIPF;
			break;
		case 3:
			e.b.o.rw_seq = 4;
			break;
		case 4:
			e.b.o.varbs = true;
			break;
		case 5:
			e.b.o.fsync_every = 2;
			break;
		case 6:
			e.b.o.rw_back = 4096;
			break;
		case 7:
			e.f.state = state; /* --verify */
			break;
		case 8:
			e.j.nfiles = 2;
			break;
		case 9:
			e.b.phase.rw = RW_RANDRW;
			break;
		case 10:
			e.b.phase.rw = RW_READ;
			break;
		case 11:
			e.b.phase.kind = PH_LAYOUT;
			e.b.phase.rw = RW_WRITE;
			break;
		case 12:
			e.b.phase.kind = PH_VERIFY;
			e.b.phase.rw = RW_READ;
			break;
		}
		bench_draw_plain_setup(&e.b, &e.j);
		if (e.j.draw_plain != (c == 0))
			fail_msg("case %u: draw_plain %d", c, e.j.draw_plain);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perm_is_a_bijection_for_every_size),
		cmocka_unit_test(test_zoned_blocks_fall_in_their_zones),
		cmocka_unit_test(test_perm_differs_between_keys),
		cmocka_unit_test(test_perm_values_are_stable),
		cmocka_unit_test(
			test_plain_random_draw_matches_the_general_draw),
		cmocka_unit_test(test_plain_draw_only_without_draw_options),
		cmocka_unit_test(test_pattern_roundtrip_any_alignment),
		cmocka_unit_test(test_pattern_is_a_function_of_the_byte_offset),
		cmocka_unit_test(test_pattern_check_reports_first_bad_byte),
		cmocka_unit_test(
			test_pattern_detects_wrong_tag_and_wrong_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
