/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Verification data patterns.
 *
 * Every byte a verified run writes is a function of its absolute file
 * offset and of the write's tag (writer job and generation, see BLK_BUSY in
 * engine_int.h): the file is a sequence of little-endian 64-bit words, the
 * word at offset o (a multiple of 8) holding o/8 in its low 32 bits and a
 * hash of (o, tag) in its high 32 bits.  So
 *   - data written at the wrong offset, by the wrong job or by an older
 *     generation (a lost or reordered write) differs from what is
 *     expected, almost surely in every word;
 *   - the check needs no per-block header and works for any transfer size
 *     and alignment, down to ior's 32-byte transfers: a byte's expected
 *     value is computed from its own offset;
 *   - a mismatch is reported at the first wrong byte's exact offset.
 * Generating a word costs two multiply-xorshift rounds, so filling or
 * checking runs at several GB/s, off the network's critical path.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "engine_int.h"

static inline uint64_t pat_word(uint64_t off8, uint64_t tkey)
{
	uint64_t h = bench_mix64(off8 ^ tkey);

	return (h & 0xffffffff00000000ull) | (uint32_t)(off8 >> 3);
}

static inline uint64_t pat_tkey(uint32_t tag)
{
	return bench_mix64((uint64_t)tag + 0x51ed2701u);
}

uint64_t bench_pattern_word(uint64_t off8, uint32_t tag)
{
	return pat_word(off8 & ~7ull, pat_tkey(tag));
}

/* engine.h */
void bench_pattern_fill(void *buf, uint64_t off, size_t len, uint32_t tag)
{
	uint64_t tkey = pat_tkey(tag), w;
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		uint64_t o = off + done;
		unsigned int sh = (unsigned int)(o & 7);
		size_t n;

		w = htole64(pat_word(o - sh, tkey));
		if (!sh && len - done >= 8) {
			memcpy(p + done, &w, 8);
			done += 8;
			continue;
		}
		n = 8 - sh;
		if (n > len - done)
			n = len - done;
		memcpy(p + done, (uint8_t *)&w + sh, n);
		done += n;
	}
}

/**
 * bench_pattern_check() - compare @buf with the pattern of [off, off+len)
 * @expected, @got: set to the first differing byte's values
 *
 * Return: -1 when all match, otherwise the index in @buf of the first
 * byte that differs.
 */
long bench_pattern_check(const void *buf, uint64_t off, size_t len,
			 uint32_t tag, uint8_t *expected, uint8_t *got)
{
	uint64_t tkey = pat_tkey(tag), w, have;
	const uint8_t *p = buf;
	size_t done = 0, k;

	while (done < len) {
		uint64_t o = off + done;
		unsigned int sh = (unsigned int)(o & 7);
		size_t n = 8 - sh;

		if (n > len - done)
			n = len - done;
		w = htole64(pat_word(o - sh, tkey));
		if (n == 8) {
			memcpy(&have, p + done, 8);
			if (have == w) {
				done += 8;
				continue;
			}
		}
		for (k = 0; k < n; k++) {
			uint8_t e = ((uint8_t *)&w)[sh + k];

			if (p[done + k] != e) {
				*expected = e;
				*got = p[done + k];
				return (long)(done + k);
			}
		}
		done += n;
	}
	return -1;
}

/* engine.h */
int bench_job_known_blocks(struct bench_job_info *job, bench_block_fn fn,
			   void *arg)
{
	struct bench_job *j = bench_container_of(job, struct bench_job, info);
	const struct bench_file *f = j->file;
	uint32_t blen, st;
	uint64_t k;
	int ret;

	if (!f || !f->state)
		return -ENODATA;
	if (!f->nblocks)
		return 0;
	blen = f->bs;
	for (k = 0; k < f->nblocks; k++) {
		st = atomic_load_explicit(&f->state[k], memory_order_acquire);
		if (!st || (st & BLK_BUSY))
			continue;
		ret = fn(arg, f->base + k * (blen + j->b->o.rw_hole), blen, st);
		if (ret)
			return ret;
	}
	return 0;
}
