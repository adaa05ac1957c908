/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A set of 64-bit directory cookies (NFSv3 READDIRPLUS cookies, 9P
 * Treaddir offsets) an iterator has been handed, to notice a server
 * that hands one back again and would make the listing loop.
 *
 * Open addressing with linear probing in a table kept at most half full,
 * grown by doubling.  0 marks an empty slot: cookie 0 (the start of a
 * listing) is never stored, the iterators refuse it as a next cookie.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_COOKIES_H
#define LX_XPRT_COOKIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* zero-initialised: empty */
struct lx_xprt_cookies {
	uint64_t *slot;
	size_t cap, n;
};

/* Is @v (not 0) in @s? */
bool lx_xprt__cookies_has(const struct lx_xprt_cookies *s, uint64_t v);

/* Add @v (not 0, not in @s yet).  Return 0 or -ENOMEM (@s unchanged). */
int lx_xprt__cookies_add(struct lx_xprt_cookies *s, uint64_t v);

/* Free the table; @s is empty again. */
void lx_xprt__cookies_free(struct lx_xprt_cookies *s);

#endif /* LX_XPRT_COOKIES_H */
