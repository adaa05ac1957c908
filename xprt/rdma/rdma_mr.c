// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Registration of caller memory for chunks: per I/O, or a small cache.
 *
 * Chunks expose caller memory to the server (a READ's destination for its
 * RDMA Writes, a WRITE's payload for its RDMA Reads), so that memory needs
 * a registration with remote access.  Two strategies:
 *
 *   per I/O   ibv_reg_mr() when the call is marshalled, ibv_dereg_mr()
 *             before its completion is delivered.  Exact: the server can
 *             touch the memory only while the call is in flight, and the
 *             caller may free it the moment done() runs.  Cost: one
 *             registration and one deregistration per chunk segment, each
 *             a system call that pins (or unpins) and maps every page.
 *   cache     registrations of page ranges, all three access rights, kept
 *             after use (at most @cap, least recently used evicted when
 *             nobody holds it); a buffer used again costs a short search.
 *             The price is the classic registration-cache hazard: if the
 *             caller unmaps the memory and the same addresses are mapped
 *             again, the cached registration still pins the *old* pages.
 *             So the cache is opt-in, callers flush it before unmapping,
 *             and the registrations of a call that ended without a reply
 *             are dropped at once (a late RDMA Write from the server must
 *             find no valid key).
 *
 * Measured in the test guest (Soft-RoCE under TCG, a busy 2-core host):
 * ibv_reg_mr 50..170 us and ibv_dereg_mr 20..90 us for 4 KiB .. 1 MiB,
 * dominated by the system call rather than the page count.  Against the
 * kernel nfsd (tests/rdma/guest-tests/60-*, 4 calls in flight): 256 KiB
 * WRITE/READ ran at the same 40-45 MiB/s either way (registration is a
 * few percent of an I/O that size), 4 KiB ones about 35% faster with the
 * cache.  The default is per I/O because it is always correct; a
 * benchmark with long-lived buffers (nfs3-bench) should take the cache.
 * On hardware the ratio is worse for per-I/O (a registration costs as
 * much as several small round trips), which is why Linux registers with
 * FRWR work requests on the queue pair instead; that is the next step if
 * small-I/O rate matters.
 *
 * A lookup scans a small array under one mutex: with at most a few dozen
 * entries a linear scan is a few cache lines, cheaper than any tree, and
 * the callers (marshal under the transmit lock, release on completion)
 * are few.  Registration itself happens under the mutex too: it only
 * serialises registrations, which the transmit lock serialises already.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xprt/rdma/rdma.h"
#include "xprt/rdma/rdma_verbs.h"

#define MRC_ALL_ACCESS                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_READ)

/**
 * struct lx_xprt_rdma_mr - one registration
 * @mr: the verbs registration (NULL: a free cache entry)
 * @pd: its protection domain
 * @start, @end: the range it covers
 * @access: its rights
 * @refs: calls holding it
 * @used: LRU tick of the last get
 * @cached: an entry of the cache array (else allocated per I/O)
 * @dead: dropped from the cache while held: deregister at the last put
 */
struct lx_xprt_rdma_mr {
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	uintptr_t start, end;
	int access;
	unsigned int refs;
	uint64_t used;
	bool cached;
	bool dead;
};

int lx_xprt_rdma_mrc_init(struct lx_xprt_rdma_mrc *c, bool cache,
			  unsigned int entries)
{
	int err;

	memset(c, 0, sizeof(*c));
	err = -pthread_mutex_init(&c->lock, NULL);
	if (err)
		return err;
	c->cache = cache;
	if (cache) {
		c->cap = entries ? entries : 64;
		c->ents = calloc(c->cap, sizeof(*c->ents));
		if (!c->ents) {
			pthread_mutex_destroy(&c->lock);
			return -ENOMEM;
		}
		c->nents = c->cap;
	}
	return 0;
}

/* Register [start, end) in @pd, timing it.  Called with the lock held
 * (cache) or without (per I/O). */
static int mrc_reg(struct lx_xprt_rdma_mrc *c, struct ibv_pd *pd,
		   uintptr_t start, uintptr_t end, int access,
		   struct ibv_mr **mrp)
{
	uint64_t t0 = lx_xprt_now_ns();
	int r = xv_reg_mr(pd, (void *)start, end - start, access, mrp);

	atomic_fetch_add_explicit(&c->reg_ns, lx_xprt_now_ns() - t0,
				  memory_order_relaxed);
	if (!r)
		atomic_fetch_add_explicit(&c->regs, 1, memory_order_relaxed);
	return r;
}

static void mrc_dereg(struct lx_xprt_rdma_mrc *c, struct ibv_mr *mr)
{
	uint64_t t0 = lx_xprt_now_ns();

	xv_dereg_mr(mr);
	atomic_fetch_add_explicit(&c->reg_ns, lx_xprt_now_ns() - t0,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->deregs, 1, memory_order_relaxed);
}

/* A registration of exactly the range, owned by one call. */
static int mr_get_uncached(struct lx_xprt_rdma_mrc *c, struct ibv_pd *pd,
			   uintptr_t a, size_t len, int access,
			   struct lx_xprt_rdma_mr **mrp)
{
	struct lx_xprt_rdma_mr *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	r = mrc_reg(c, pd, a, a + len, access, &m->mr);
	if (r) {
		free(m);
		return r;
	}
	m->pd = pd;
	m->start = a;
	m->end = a + len;
	m->access = access;
	m->refs = 1;
	*mrp = m;
	return 0;
}

/* Cache, lock held: a live entry covering the range with the rights. */
static struct lx_xprt_rdma_mr *mrc_find(struct lx_xprt_rdma_mrc *c,
					struct ibv_pd *pd, uintptr_t a,
					uintptr_t e, int access)
{
	unsigned int i;

	for (i = 0; i < c->nents; i++) {
		struct lx_xprt_rdma_mr *m = &c->ents[i];

		if (m->mr && !m->dead && m->pd == pd && m->start <= a &&
		    e <= m->end && (m->access & access) == access)
			return m;
	}
	return NULL;
}

/* Cache, lock held: a free entry, or the least recently used idle one
 * (deregistered).  NULL when every entry is held. */
static struct lx_xprt_rdma_mr *mrc_victim(struct lx_xprt_rdma_mrc *c)
{
	struct lx_xprt_rdma_mr *best = NULL;
	unsigned int i;

	for (i = 0; i < c->nents; i++) {
		struct lx_xprt_rdma_mr *m = &c->ents[i];

		if (!m->mr)
			return m;
		if (!m->refs && (!best || m->used < best->used))
			best = m;
	}
	if (best) {
		mrc_dereg(c, best->mr);
		best->mr = NULL;
	}
	return best;
}

int lx_xprt_rdma_mr_get(struct lx_xprt_rdma_mrc *c, struct ibv_pd *pd,
			void *addr, size_t len, int access,
			struct lx_xprt_rdma_mr **mrp, uint32_t *lkey,
			uint32_t *rkey)
{
	uintptr_t a = (uintptr_t)addr, page, s, e;
	struct lx_xprt_rdma_mr *m;
	int r;

	if (!c || !pd || !addr || !len || !mrp)
		return -EINVAL;
	if (!c->cache) {
		r = mr_get_uncached(c, pd, a, len, access, &m);
		if (r)
			return r;
		goto out;
	}
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	s = a & ~(page - 1);
	e = (a + len + page - 1) & ~(page - 1);
	pthread_mutex_lock(&c->lock);
	m = mrc_find(c, pd, a, a + len, access);
	if (m) {
		atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
		goto hit;
	}
	m = mrc_victim(c);
	if (!m) {
		/* every entry is in use: this one lives for the call only */
		pthread_mutex_unlock(&c->lock);
		r = mr_get_uncached(c, pd, a, len, access, &m);
		if (r)
			return r;
		goto out;
	}
	/* all rights, so the entry serves Read and Write chunks alike;
	 * read-only memory cannot take write rights: then what was asked */
	r = mrc_reg(c, pd, s, e, MRC_ALL_ACCESS, &m->mr);
	if (r && !(access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
		r = mrc_reg(c, pd, s, e, access, &m->mr);
	else if (!r)
		access = MRC_ALL_ACCESS;
	if (r) {
		m->mr = NULL;
		pthread_mutex_unlock(&c->lock);
		return r;
	}
	m->pd = pd;
	m->start = s;
	m->end = e;
	m->access = access;
	m->refs = 0;
	m->dead = false;
	m->cached = true;
hit:
	m->refs++;
	m->used = ++c->tick;
	pthread_mutex_unlock(&c->lock);
out:
	*mrp = m;
	if (lkey)
		*lkey = m->mr->lkey;
	if (rkey)
		*rkey = m->mr->rkey;
	return 0;
}

void lx_xprt_rdma_mr_put(struct lx_xprt_rdma_mrc *c, struct lx_xprt_rdma_mr *m,
			 bool invalidate)
{
	if (!c || !m)
		return;
	if (!m->cached) {
		mrc_dereg(c, m->mr);
		free(m);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (invalidate)
		m->dead = true;
	if (m->refs)
		m->refs--;
	if (!m->refs && m->dead) {
		mrc_dereg(c, m->mr);
		m->mr = NULL;
		m->dead = false;
	}
	pthread_mutex_unlock(&c->lock);
}

void lx_xprt_rdma_mrc_flush(struct lx_xprt_rdma_mrc *c)
{
	unsigned int i;

	if (!c || !c->cache)
		return;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nents; i++) {
		struct lx_xprt_rdma_mr *m = &c->ents[i];

		if (m->mr && !m->refs) {
			mrc_dereg(c, m->mr);
			m->mr = NULL;
		} else if (m->mr) {
			m->dead = true; /* goes at its last put */
		}
	}
	pthread_mutex_unlock(&c->lock);
}

void lx_xprt_rdma_mrc_destroy(struct lx_xprt_rdma_mrc *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->nents; i++)
		if (c->ents[i].mr)
			mrc_dereg(c, c->ents[i].mr);
	free(c->ents);
	c->ents = NULL;
	c->nents = 0;
	pthread_mutex_destroy(&c->lock);
}

struct ibv_mr *lx_xprt_rdma_mr_ibv(const struct lx_xprt_rdma_mr *m)
{
	return m ? m->mr : NULL;
}
