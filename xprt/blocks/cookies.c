// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The directory iterators' set of cookies seen: see cookies.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "xprt/blocks/cookies.h"

static size_t lx_xprt_cookies_hash(uint64_t v, size_t cap)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (size_t)v & (cap - 1);
}

bool lx_xprt__cookies_has(const struct lx_xprt_cookies *s, uint64_t v)
{
	size_t i;

	if (!s->cap)
		return false;
	for (i = lx_xprt_cookies_hash(v, s->cap); s->slot[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == v)
			return true;
	return false;
}

int lx_xprt__cookies_add(struct lx_xprt_cookies *s, uint64_t v)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct lx_xprt_cookies g = {0};

		g.cap = s->cap ? s->cap * 2 : 64;
		g.slot = calloc(g.cap, sizeof(*g.slot));
		if (!g.slot)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i])
				lx_xprt__cookies_add(&g, s->slot[i]);
		free(s->slot);
		*s = g;
	}
	for (i = lx_xprt_cookies_hash(v, s->cap); s->slot[i];
	     i = (i + 1) & (s->cap - 1))
		;
	s->slot[i] = v;
	s->n++;
	return 0;
}

void lx_xprt__cookies_free(struct lx_xprt_cookies *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = 0;
	s->n = 0;
}
