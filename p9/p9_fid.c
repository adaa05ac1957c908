// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fid allocator and per-fid iounit.
 *
 * Fids are small integers below a ceiling (ganesha refuses fids >= 1024),
 * handed out and taken back from any thread without blocking: exactly what
 * the transport's tag allocator already does for request slots, so it is
 * reused as is (one map of max_fids "tags").  Its non-blocking get is the
 * only one used: running out of fids is an error (-ENFILE), not a wait.
 *
 * A fid goes back to the map only when the server's view of it is known:
 * after its Rclunk or Rremove (or their Rlerror, which still frees it on
 * the server), or when a walk that would have created it failed with a
 * server error or was never sent.  After a local failure (timeout without
 * an Rflush, connection loss, garbage reply) the server may or may not
 * hold it, so the number is kept out of use for the rest of the session
 * and counted in fids_lost: reusing it could walk onto a live fid.
 *
 * The iounit an open returned is remembered per fid (an atomic word per
 * fid number) so reads and writes split at it without a lookup structure.
 */
#include <errno.h>
#include <stdlib.h>

#include "p9_int.h"

int lx_p9_fids_init(struct lx_p9_clnt *c)
{
	unsigned int i;
	int err;

	err = lx_xprt_tags_create(&c->fids, c->opts.max_fids);
	if (err)
		return err;
	c->iounit = calloc(c->opts.max_fids, sizeof(*c->iounit));
	if (!c->iounit) {
		lx_xprt_tags_destroy(c->fids);
		c->fids = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < c->opts.max_fids; i++)
		atomic_init(&c->iounit[i], 0);
	return 0;
}

void lx_p9_fids_destroy(struct lx_p9_clnt *c)
{
	lx_xprt_tags_destroy(c->fids);
	c->fids = NULL;
	free((void *)c->iounit);
	c->iounit = NULL;
}

int lx_p9_fid_alloc(struct lx_p9_clnt *c, uint32_t *fid)
{
	int t;

	if (!c || !fid || !c->fids)
		return -EINVAL;
	t = lx_xprt_tags_get(c->fids);
	if (t == -EAGAIN)
		return -ENFILE;
	if (t < 0)
		return t;
	atomic_store_explicit(&c->iounit[t], 0, memory_order_relaxed);
	*fid = (uint32_t)t;
	return 0;
}

int lx_p9_fid_free(struct lx_p9_clnt *c, uint32_t fid)
{
	if (!c || !lx_p9_fid_valid(c, fid))
		return -EINVAL;
	atomic_store_explicit(&c->iounit[fid], 0, memory_order_relaxed);
	return lx_xprt_tags_put(c->fids, fid);
}

void lx_p9_fid_lose(struct lx_p9_clnt *c, uint32_t fid)
{
	if (lx_p9_fid_valid(c, fid))
		atomic_fetch_add_explicit(&c->st.fids_lost, 1,
					  memory_order_relaxed);
}

void lx_p9_fid_set_iounit(struct lx_p9_clnt *c, uint32_t fid, uint32_t iounit)
{
	if (lx_p9_fid_valid(c, fid))
		atomic_store_explicit(&c->iounit[fid], iounit,
				      memory_order_relaxed);
}
