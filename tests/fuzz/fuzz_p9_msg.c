// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the 9P2000.L codec (p9/p9_dec.c, p9/p9_enc.c) - every T-
 * and R-message decoded from raw bytes, and Rreaddir's directory entries.
 *
 * Input: the message, from its size field.
 *
 * Checks: a decoded message re-encodes to exactly the same bytes (the
 * decoder is strict: one wire form per message; type 107, whose body is
 * read two ways for ganesha's sake, is only required to re-encode) and
 * lx_p9_msg_size() is its length, strings and data point inside the input,
 * and walking Rreaddir entries stays inside the data and always moves
 * forward.
 */
#include <stdlib.h>
#include <string.h>

#include <libxprt/p9.h>

#include "harness.h"

static uint8_t out[1u << 17];

static bool inside(const void *p, size_t n, const uint8_t *buf, size_t len)
{
	const uint8_t *q = p;

	return !n || (q >= buf && n <= len && q - buf <= (ptrdiff_t)(len - n));
}

static void check_dirents(const uint8_t *data, uint32_t count,
			  const uint8_t *buf, size_t len)
{
	struct lx_p9_dirent d;
	size_t pos = 0, before;
	int r;

	FZ_ASSERT(inside(data, count, buf, len));
	for (;;) {
		before = pos;
		r = lx_p9_dirent_next(data, count, &pos, &d);
		if (r <= 0) {
			FZ_ASSERT(pos == before);
			break;
		}
		FZ_ASSERT(pos > before && pos <= count);
		FZ_ASSERT(inside(d.name.s, d.name.len, data, count));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lx_p9_fcall f;
	size_t n = 0;
	int err;

	memset(&f, 0, sizeof(f));
	if (lx_p9_msg_decode(data, size, 0, &f))
		return 0;
	/* type 107 has two wire forms (see p9_dec.c): no canonical size */
	FZ_ASSERT(f.type == 107 || lx_p9_msg_size(&f) == size);
	if (f.type == LX_P9_RREAD || f.type == LX_P9_RREADDIR) {
		FZ_ASSERT(inside(f.u.rread.data, f.u.rread.count, data, size));
		if (f.type == LX_P9_RREADDIR)
			check_dirents(f.u.rread.data, f.u.rread.count, data,
				      size);
	}
	if (size > sizeof(out))
		return 0;
	err = lx_p9_msg_encode(&f, out, sizeof(out), 0, &n);
	FZ_ASSERT(err == 0);
	if (f.type != 107)
		FZ_ASSERT(n == size && !memcmp(out, data, size));
	return 0;
}
