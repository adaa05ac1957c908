// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the scatter/gather iterator (xprt/blocks/iter.c).
 *
 * Boundary cases first, each named for the rule it checks; then a
 * property test: random segmentations of a random buffer walked with
 * random operations, every result compared with a flat reference model.
 * Segments are separate allocations so ASan catches any overrun.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libxprt/proto/iter.h>

/* --------------------------------------------------------------- helpers */

#define XPRT_TEST_MIN(a, b) ((a) < (b) ? (a) : (b))

static const char alpha[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* Segments of lengths @lens over consecutive bytes of @src. */
struct layout {
	unsigned int nr;
	struct iovec iov[16];
	struct lx_xprt_buf bufs[16];
	char *mem[16];
};

static void layout_init(struct layout *l, const size_t *lens, unsigned int nr,
			const char *src)
{
	unsigned int i;
	size_t pos = 0;

	assert_true(nr <= 16);
	memset(l, 0, sizeof(*l));
	l->nr = nr;
	for (i = 0; i < nr; i++) {
		l->mem[i] = lens[i] ? malloc(lens[i]) : NULL;
		if (lens[i]) {
			assert_non_null(l->mem[i]);
			if (src)
				memcpy(l->mem[i], src + pos, lens[i]);
			else
				memset(l->mem[i], 0, lens[i]);
		}
		pos += lens[i];
		l->iov[i].iov_base = l->mem[i];
		l->iov[i].iov_len = lens[i];
		l->bufs[i].data = l->mem[i];
		l->bufs[i].len = (uint32_t)lens[i];
		l->bufs[i].cap = (uint32_t)lens[i];
		l->bufs[i].next = i + 1 < nr ? &l->bufs[i + 1] : NULL;
	}
}

static void layout_free(struct layout *l)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		free(l->mem[i]);
}

/* Concatenate the segments' bytes into @out (which holds their sum). */
static size_t layout_flatten(const struct layout *l, char *out)
{
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < l->nr; i++) {
		if (l->iov[i].iov_len)
			memcpy(out + pos, l->iov[i].iov_base,
			       l->iov[i].iov_len);
		pos += l->iov[i].iov_len;
	}
	return pos;
}

/* The three kinds that walk real memory, over one layout. */
static const enum lx_xprt_iter_type mem_kinds[] = {
	LX_XPRT_ITER_KVEC,
	LX_XPRT_ITER_IOVEC,
	LX_XPRT_ITER_BUFCHAIN,
};

static void iter_over(struct lx_xprt_iter *it, enum lx_xprt_iter_type type,
		      struct layout *l, size_t count)
{
	int rc;

	switch (type) {
	case LX_XPRT_ITER_KVEC:
		rc = lx_xprt_iter_kvec(it, l->iov, l->nr, count);
		break;
	case LX_XPRT_ITER_IOVEC:
		rc = lx_xprt_iter_iovec(it, l->iov, l->nr, count);
		break;
	case LX_XPRT_ITER_BUFCHAIN:
		rc = lx_xprt_iter_bufchain(it, l->nr ? &l->bufs[0] : NULL,
					   count);
		break;
	default:
		rc = lx_xprt_iter_discard(it, count);
		break;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(it->type, type);
}

/* ------------------------------------------------------- boundary cases */

static void test_copy_from_stops_exactly_at_segment_ends(void **state)
{
	static const size_t lens[] = {3, 5, 4};
	struct lx_xprt_iter it;
	struct layout l;
	char out[16];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 3, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_count(&it), 12);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 3), 3);
		assert_memory_equal(out, "ABC", 3);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 5), 5);
		assert_memory_equal(out, "DEFGH", 5);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 4), 4);
		assert_memory_equal(out, "IJKL", 4);
		assert_int_equal(lx_xprt_iter_count(&it), 0);
		assert_int_equal(it.done, 12);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 1), 0);
		assert_int_equal(lx_xprt_iter_advance(&it, 1), 0);
		layout_free(&l);
	}
}

static void test_copy_to_fills_exactly_at_segment_ends(void **state)
{
	static const size_t lens[] = {2, 3};
	struct lx_xprt_iter it;
	struct layout l;
	char flat[5];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 2, NULL);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_copy_to(&it, "ab", 2), 2);
		assert_memory_equal(l.mem[0], "ab", 2);
		assert_int_equal(lx_xprt_iter_copy_to(&it, "cde", 3), 3);
		assert_memory_equal(l.mem[1], "cde", 3);
		assert_int_equal(lx_xprt_iter_copy_to(&it, "f", 1), 0);
		layout_flatten(&l, flat);
		assert_memory_equal(flat, "abcde", 5);
		layout_free(&l);
	}
}

static void test_zero_length_segments_are_skipped(void **state)
{
	static const size_t lens[] = {0, 3, 0, 0, 2, 0};
	struct iovec v[4];
	struct lx_xprt_iter it;
	struct layout l;
	char out[8];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 6, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_count(&it), 5);
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, SIZE_MAX), 2);
		assert_ptr_equal(v[0].iov_base, l.mem[1]);
		assert_int_equal(v[0].iov_len, 3);
		assert_ptr_equal(v[1].iov_base, l.mem[4]);
		assert_int_equal(v[1].iov_len, 2);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 3), 3);
		/* Cursor moved over the empty segments onto the next byte. */
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, SIZE_MAX), 1);
		assert_ptr_equal(v[0].iov_base, l.mem[4]);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out + 3, 8), 2);
		assert_memory_equal(out, "ABCDE", 5);
		layout_free(&l);
	}
}

static void test_all_segments_empty_gives_empty_iterator(void **state)
{
	static const size_t lens[] = {0, 0, 0};
	struct lx_xprt_iter it;
	struct iovec v[2];
	struct layout l;
	char out[4];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 3, NULL);
		iter_over(&it, mem_kinds[k], &l, 100);
		assert_int_equal(lx_xprt_iter_count(&it), 0);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 4), 0);
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 2, 10), 0);
		assert_int_equal(lx_xprt_iter_revert(&it, 4), 0);
		layout_free(&l);
	}
	assert_int_equal(lx_xprt_iter_kvec(&it, NULL, 0, 10), 0);
	assert_int_equal(lx_xprt_iter_count(&it), 0);
	assert_int_equal(lx_xprt_iter_bufchain(&it, NULL, 10), 0);
	assert_int_equal(lx_xprt_iter_count(&it), 0);
	assert_int_equal(lx_xprt_iter_copy_from(&it, out, 4), 0);
}

static void test_count_smaller_than_segments_limits_everything(void **state)
{
	static const size_t lens[] = {3, 5, 4};
	struct lx_xprt_iter it;
	struct iovec v[4];
	struct layout l;
	char out[16];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 3, alpha);
		iter_over(&it, mem_kinds[k], &l, 5);
		assert_int_equal(lx_xprt_iter_count(&it), 5);
		assert_int_equal(it.total, 5);
		/* to_iovec cuts the last segment at the count. */
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, SIZE_MAX), 2);
		assert_int_equal(v[0].iov_len, 3);
		assert_int_equal(v[1].iov_len, 2);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, sizeof(out)),
				 5);
		assert_memory_equal(out, "ABCDE", 5);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 1), 0);
		/* Revert within the limited range and read again. */
		assert_int_equal(lx_xprt_iter_revert(&it, 4), 4);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 16), 4);
		assert_memory_equal(out, "BCDE", 4);
		layout_free(&l);
	}
}

static void test_count_larger_than_segments_is_clamped(void **state)
{
	static const size_t lens[] = {3, 5};
	struct lx_xprt_iter it;
	struct layout l;
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 2, alpha);
		iter_over(&it, mem_kinds[k], &l, 1000);
		assert_int_equal(lx_xprt_iter_count(&it), 8);
		assert_int_equal(it.total, 8);
		assert_int_equal(lx_xprt_iter_advance(&it, 1000), 8);
		layout_free(&l);
	}
}

static void test_copy_larger_than_left_returns_short_count(void **state)
{
	static const size_t lens[] = {4, 4};
	struct lx_xprt_iter it;
	struct layout l;
	char out[32];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 2, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_advance(&it, 3), 3);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 32), 5);
		assert_memory_equal(out, "DEFGH", 5);
		assert_int_equal(lx_xprt_iter_revert(&it, 2), 2);
		assert_int_equal(lx_xprt_iter_copy_to(&it, "xyzw", 4), 2);
		assert_memory_equal(l.mem[1], "EFxy", 4);
		layout_free(&l);
	}
}

static void test_revert_across_segments_recopies_same_bytes(void **state)
{
	static const size_t lens[] = {2, 0, 3, 1, 0, 4, 2};
	struct lx_xprt_iter it;
	struct layout l;
	char a[12], b[12];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 7, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_advance(&it, 1), 1);
		assert_int_equal(lx_xprt_iter_copy_from(&it, a, 9), 9);
		assert_memory_equal(a, "BCDEFGHIJ", 9);
		/* Back over five segments (two of them empty). */
		assert_int_equal(lx_xprt_iter_revert(&it, 9), 9);
		assert_int_equal(lx_xprt_iter_count(&it), 11);
		assert_int_equal(it.done, 1);
		assert_int_equal(lx_xprt_iter_copy_from(&it, b, 9), 9);
		assert_memory_equal(a, b, 9);
		/* Back to the very start, then everything again. */
		assert_int_equal(lx_xprt_iter_revert(&it, 100), 10);
		assert_int_equal(it.done, 0);
		assert_int_equal(lx_xprt_iter_count(&it), 12);
		assert_int_equal(lx_xprt_iter_copy_from(&it, b, 12), 12);
		assert_memory_equal(b, "ABCDEFGHIJKL", 12);
		layout_free(&l);
	}
}

static void test_revert_exactly_to_segment_start(void **state)
{
	static const size_t lens[] = {3, 3, 3};
	struct lx_xprt_iter it;
	struct iovec v[3];
	struct layout l;
	char out[3];
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 3, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_advance(&it, 9), 9);
		assert_int_equal(lx_xprt_iter_revert(&it, 6), 6);
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 3, SIZE_MAX), 2);
		assert_ptr_equal(v[0].iov_base, l.mem[1]);
		assert_int_equal(v[0].iov_len, 3);
		assert_int_equal(lx_xprt_iter_copy_from(&it, out, 3), 3);
		assert_memory_equal(out, "DEF", 3);
		layout_free(&l);
	}
}

static void test_iovec_array_is_never_modified(void **state)
{
	static const size_t lens[] = {2, 0, 5, 3};
	struct iovec saved[4], v[4];
	struct lx_xprt_iter it;
	struct layout l;
	char out[10];

	layout_init(&l, lens, 4, alpha);
	memcpy(saved, l.iov, sizeof(saved));
	assert_int_equal(lx_xprt_iter_iovec(&it, l.iov, 4, SIZE_MAX), 0);
	lx_xprt_iter_copy_from(&it, out, 6);
	lx_xprt_iter_revert(&it, 5);
	lx_xprt_iter_copy_to(&it, "0123456789", 10);
	lx_xprt_iter_to_iovec(&it, v, 4, SIZE_MAX);
	assert_memory_equal(saved, l.iov, sizeof(saved));
	layout_free(&l);
}

static void test_to_iovec_respects_max_entries(void **state)
{
	static const size_t lens[] = {1, 2, 3, 4};
	struct lx_xprt_iter it;
	struct iovec v[4];
	struct layout l;
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 4, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		memset(v, 0xa5, sizeof(v));
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 2, SIZE_MAX), 2);
		assert_int_equal(v[0].iov_len, 1);
		assert_int_equal(v[1].iov_len, 2);
		/* Entries past @max untouched. */
		assert_int_equal(v[2].iov_len, (size_t)0xa5a5a5a5a5a5a5a5ull);
		/* No advance. */
		assert_int_equal(lx_xprt_iter_count(&it), 10);
		assert_int_equal(it.done, 0);
		layout_free(&l);
	}
}

static void test_to_iovec_respects_maxbytes_mid_segment(void **state)
{
	static const size_t lens[] = {4, 4, 4};
	struct lx_xprt_iter it;
	struct iovec v[4];
	struct layout l;
	size_t k;

	for (k = 0; k < 3; k++) {
		layout_init(&l, lens, 3, alpha);
		iter_over(&it, mem_kinds[k], &l, SIZE_MAX);
		assert_int_equal(lx_xprt_iter_advance(&it, 2), 2);
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, 5), 2);
		assert_ptr_equal(v[0].iov_base, l.mem[0] + 2);
		assert_int_equal(v[0].iov_len, 2);
		assert_ptr_equal(v[1].iov_base, l.mem[1]);
		assert_int_equal(v[1].iov_len, 3);
		/* maxbytes ending exactly at a segment end. */
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, 6), 2);
		assert_int_equal(v[1].iov_len, 4);
		assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 4, 1), 1);
		assert_int_equal(v[0].iov_len, 1);
		layout_free(&l);
	}
}

static void test_discard_accepts_drops_and_yields_nothing(void **state)
{
	struct lx_xprt_iter it;
	struct iovec v[2];
	char buf[16] = "untouched";

	assert_int_equal(lx_xprt_iter_discard(&it, 10), 0);
	assert_int_equal(it.type, LX_XPRT_ITER_DISCARD);
	assert_int_equal(lx_xprt_iter_count(&it), 10);
	assert_int_equal(lx_xprt_iter_copy_to(&it, "abcdef", 6), 6);
	assert_int_equal(lx_xprt_iter_count(&it), 4);
	/* Copying out of a sink yields nothing and does not move it. */
	assert_int_equal(lx_xprt_iter_copy_from(&it, buf, 4), 0);
	assert_string_equal(buf, "untouched");
	assert_int_equal(lx_xprt_iter_count(&it), 4);
	assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 2, 100), 0);
	assert_int_equal(lx_xprt_iter_copy_to(&it, "abcdef", 6), 4);
	assert_int_equal(lx_xprt_iter_count(&it), 0);
	assert_int_equal(lx_xprt_iter_revert(&it, 20), 10);
	assert_int_equal(lx_xprt_iter_count(&it), 10);
	assert_int_equal(lx_xprt_iter_advance(&it, 3), 3);
	assert_int_equal(it.done, 3);
}

static void test_init_rejects_bad_arguments_without_side_effect(void **state)
{
	struct iovec bad[2] = {{.iov_base = (void *)alpha, .iov_len = 2},
			       {.iov_base = NULL, .iov_len = 3}};
	struct lx_xprt_buf b2 = {.data = NULL, .len = 3};
	struct lx_xprt_buf b1 = {.data = (void *)alpha, .len = 2, .next = &b2};
	struct lx_xprt_iter it, pristine;

	memset(&pristine, 0x5a, sizeof(pristine));
	memcpy(&it, &pristine, sizeof(it));

	assert_int_equal(lx_xprt_iter_kvec(NULL, bad, 1, 2), -EINVAL);
	assert_int_equal(lx_xprt_iter_iovec(NULL, bad, 1, 2), -EINVAL);
	assert_int_equal(lx_xprt_iter_bufchain(NULL, &b1, 2), -EINVAL);
	assert_int_equal(lx_xprt_iter_discard(NULL, 2), -EINVAL);

	assert_int_equal(lx_xprt_iter_kvec(&it, NULL, 1, 2), -EINVAL);
	assert_int_equal(lx_xprt_iter_iovec(&it, NULL, 3, 2), -EINVAL);
	/* A NULL base with bytes to cover is refused... */
	assert_int_equal(lx_xprt_iter_kvec(&it, bad, 2, 5), -EINVAL);
	assert_int_equal(lx_xprt_iter_iovec(&it, bad, 2, SIZE_MAX), -EINVAL);
	assert_int_equal(lx_xprt_iter_bufchain(&it, &b1, 5), -EINVAL);
	assert_memory_equal(&it, &pristine, sizeof(it));

	/* ...but segments past the count are never looked at. */
	assert_int_equal(lx_xprt_iter_kvec(&it, bad, 2, 2), 0);
	assert_int_equal(lx_xprt_iter_count(&it), 2);
	assert_int_equal(lx_xprt_iter_bufchain(&it, &b1, 2), 0);
	assert_int_equal(lx_xprt_iter_count(&it), 2);
}

static void test_ops_reject_null_without_side_effect(void **state)
{
	static const size_t lens[] = {4, 4};
	struct lx_xprt_iter it, before, zero;
	struct iovec v[2];
	struct layout l;
	char out[8];

	assert_int_equal(lx_xprt_iter_copy_to(NULL, "ab", 2), 0);
	assert_int_equal(lx_xprt_iter_copy_from(NULL, out, 2), 0);
	assert_int_equal(lx_xprt_iter_advance(NULL, 2), 0);
	assert_int_equal(lx_xprt_iter_revert(NULL, 2), 0);
	assert_int_equal(lx_xprt_iter_to_iovec(NULL, v, 2, 2), 0);

	/* An iterator never initialised (zeroed) is refused too. */
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(lx_xprt_iter_copy_from(&zero, out, 2), 0);
	assert_int_equal(lx_xprt_iter_advance(&zero, 2), 0);
	assert_int_equal(lx_xprt_iter_to_iovec(&zero, v, 2, 2), 0);

	layout_init(&l, lens, 2, alpha);
	assert_int_equal(lx_xprt_iter_kvec(&it, l.iov, 2, SIZE_MAX), 0);
	lx_xprt_iter_advance(&it, 1);
	before = it;
	assert_int_equal(lx_xprt_iter_copy_to(&it, NULL, 2), 0);
	assert_int_equal(lx_xprt_iter_copy_from(&it, NULL, 2), 0);
	assert_int_equal(lx_xprt_iter_to_iovec(&it, NULL, 2, 2), 0);
	assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 0, 2), 0);
	assert_int_equal(lx_xprt_iter_to_iovec(&it, v, 2, 0), 0);
	assert_int_equal(lx_xprt_iter_copy_from(&it, out, 0), 0);
	assert_int_equal(lx_xprt_iter_advance(&it, 0), 0);
	assert_int_equal(lx_xprt_iter_revert(&it, 0), 0);
	assert_memory_equal(&it, &before, sizeof(it));
	assert_memory_equal(l.mem[0], "ABCD", 4);
	layout_free(&l);
}

/* ------------------------------------------------------ property test */

/* xorshift64*: reproducible from the printed seed. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

#define PROP_MAX 200

/* One random walk: @kind over a random layout, compared with @ref. */
static void prop_one(enum lx_xprt_iter_type kind, unsigned long trial)
{
	char ref[PROP_MAX], flat[PROP_MAX] = {0}, tmp[PROP_MAX + 8];
	size_t lens[16], sum = 0, count, limit, pos = 0, i;
	unsigned int nr = 1 + (unsigned int)rnd_below(16), op;
	struct iovec v[8];
	struct lx_xprt_iter it;
	struct layout l;

	for (i = 0; i < PROP_MAX; i++)
		ref[i] = (char)rnd();
	for (i = 0; i < nr; i++) {
		/* About one segment in four is empty. */
		lens[i] = rnd_below(4) ? rnd_below(PROP_MAX / nr + 1) : 0;
		sum += lens[i];
	}
	layout_init(&l, lens, nr, ref);
	count = rnd_below(3) ? rnd_below(sum + 10) : SIZE_MAX;
	limit = XPRT_TEST_MIN(count, sum);
	iter_over(&it, kind, &l, count);

	for (op = 0; op < 40; op++) {
		size_t n = rnd_below(limit + 4), got, want;
		unsigned int max, nv, j;

		switch (rnd_below(5)) {
		case 0:
			want = XPRT_TEST_MIN(n, limit - pos);
			got = lx_xprt_iter_advance(&it, n);
			pos += want;
			break;
		case 1:
			want = XPRT_TEST_MIN(n, pos);
			got = lx_xprt_iter_revert(&it, n);
			pos -= want;
			break;
		case 2:
			want = XPRT_TEST_MIN(n, limit - pos);
			got = lx_xprt_iter_copy_from(&it, tmp, n);
			if (got == want && memcmp(tmp, ref + pos, want))
				fail_msg("trial %lu op %u: copy_from bytes",
					 trial, op);
			pos += want;
			break;
		case 3:
			want = XPRT_TEST_MIN(n, limit - pos);
			for (j = 0; j < n; j++)
				tmp[j] = (char)rnd();
			got = lx_xprt_iter_copy_to(&it, tmp, n);
			memcpy(ref + pos, tmp, want);
			pos += want;
			break;
		default:
			max = 1 + (unsigned int)rnd_below(8);
			want = XPRT_TEST_MIN(n, limit - pos);
			nv = lx_xprt_iter_to_iovec(&it, v, max, n);
			got = 0;
			for (j = 0; j < nv; j++) {
				if (!v[j].iov_len)
					fail_msg("trial %lu: empty iovec",
						 trial);
				if (memcmp(v[j].iov_base, ref + pos + got,
					   v[j].iov_len))
					fail_msg("trial %lu op %u: iovec %u "
						 "bytes",
						 trial, op, j);
				got += v[j].iov_len;
			}
			/* Fewer bytes than asked only when out of entries. */
			if (got != want && !(got < want && nv == max))
				fail_msg("trial %lu op %u: to_iovec %zu of "
					 "%zu in %u/%u",
					 trial, op, got, want, nv, max);
			got = want;
			break;
		}
		if (got != want)
			fail_msg("trial %lu op %u: got %zu want %zu", trial, op,
				 got, want);
		if (lx_xprt_iter_count(&it) != limit - pos || it.done != pos)
			fail_msg("trial %lu op %u: count %zu done %zu, model "
				 "%zu/%zu",
				 trial, op, lx_xprt_iter_count(&it), it.done,
				 limit - pos, pos);
		/* Cursor invariant of iter.h: with bytes left it sits on one. */
		if (lx_xprt_iter_count(&it) &&
		    (kind == LX_XPRT_ITER_BUFCHAIN ? it.off >= it.buf->len :
						     it.off >= it.iov->iov_len))
			fail_msg("trial %lu op %u: cursor off %zu past its "
				 "segment",
				 trial, op, it.off);
	}
	/* Writes landed where the model put them, and nowhere else. */
	layout_flatten(&l, flat);
	if (memcmp(flat, ref, sum))
		fail_msg("trial %lu: memory differs from model", trial);
	layout_free(&l);
}

static void test_random_walks_match_flat_model(void **state)
{
	const char *env = getenv("XPRT_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ull;
	unsigned long trial;

	print_message("seed 0x%llx (XPRT_TEST_SEED to replay)\n",
		      (unsigned long long)seed);
	rng_state = seed | 1;
	for (trial = 0; trial < 20000; trial++)
		prop_one(mem_kinds[trial % 3], trial);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_from_stops_exactly_at_segment_ends),
		cmocka_unit_test(test_copy_to_fills_exactly_at_segment_ends),
		cmocka_unit_test(test_zero_length_segments_are_skipped),
		cmocka_unit_test(test_all_segments_empty_gives_empty_iterator),
		cmocka_unit_test(
			test_count_smaller_than_segments_limits_everything),
		cmocka_unit_test(test_count_larger_than_segments_is_clamped),
		cmocka_unit_test(
			test_copy_larger_than_left_returns_short_count),
		cmocka_unit_test(
			test_revert_across_segments_recopies_same_bytes),
		cmocka_unit_test(test_revert_exactly_to_segment_start),
		cmocka_unit_test(test_iovec_array_is_never_modified),
		cmocka_unit_test(test_to_iovec_respects_max_entries),
		cmocka_unit_test(test_to_iovec_respects_maxbytes_mid_segment),
		cmocka_unit_test(test_discard_accepts_drops_and_yields_nothing),
		cmocka_unit_test(
			test_init_rejects_bad_arguments_without_side_effect),
		cmocka_unit_test(test_ops_reject_null_without_side_effect),
		cmocka_unit_test(test_random_walks_match_flat_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
