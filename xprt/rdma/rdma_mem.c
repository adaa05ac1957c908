// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Caller memory registered once for RDMA: lx_xprt_rdma_mem_register().
 *
 * A long-lived buffer (a benchmark's I/O buffers, an application's cache)
 * is registered once on every device, in the device's process-wide
 * protection domain, with local access and the right to bind memory
 * windows - never with remote rights.  A call whose chunk lies inside
 * such a region then costs no registration: the transport binds a window
 * over exactly the chunk, with exactly the access it needs, by a work
 * request in the same doorbell as the Send, and invalidates it before the
 * call's done() (rdma_win.c).
 *
 * The registry is a sorted array of non-overlapping regions under one
 * small lock (lock.h): a lookup (marshal, under a transport's transmit
 * lock) holds it for a binary search and a count, less than what a
 * shared pthread_rwlock costs to take and drop (~60 instructions per
 * window READ); registering and unregistering are rare.  A region counts
 * the windows bound over it (@busy): unregistering one that still has
 * windows fails with -EBUSY rather than pull pages from under a server
 * access (and rxe refuses to deregister a memory region with bound
 * windows anyway).
 *
 * Memory that cannot take local write access (a read-only mapping) is
 * registered with bind rights only: windows for Read chunks (the server
 * reads it) still work, Write chunks into it fall back to a per-call
 * registration, which fails the way writing read-only memory should.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xprt/blocks/lock.h"
#include "xprt/rdma/rdma.h"
#include "xprt/rdma/rdma_verbs.h"

#define RDMA_MEM_MAGIC 0x786d656du /* "xmem" */

struct lx_xprt_rdma_mem {
	uint32_t magic;
	uintptr_t start, end;
	bool writable;
	atomic_uint busy;
	unsigned int n;
	struct ibv_mr *mr[];
};

static struct lx_xprt_lock mem_lock; /* (zero: free) */
static struct lx_xprt_rdma_mem **mems;
static unsigned int nmems, capmems;
/* nmems for a lock-free "nothing registered" test */
static atomic_uint nmems_pub;

/* First region whose end is above @a (lock held). */
static unsigned int mem_search(uintptr_t a)
{
	unsigned int lo = 0, hi = nmems;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (mems[mid]->end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lx_xprt_rdma_mem_register(void *addr, size_t len,
			      struct lx_xprt_rdma_mem **memp)
{
	unsigned int ndev = lx_xprt_rdma_ndevs(), i, pos;
	struct lx_xprt_rdma_mem *m;
	int r = 0;

	if (!addr || !len || !memp || (uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	if (!ndev) {
		r = lx_xprt_rdma_dev_ready(); /* -ECHILD in a child */
		return r ? r : -ENODEV;
	}
	m = calloc(1, sizeof(*m) + ndev * sizeof(m->mr[0]));
	if (!m)
		return -ENOMEM;
	m->magic = RDMA_MEM_MAGIC;
	m->start = (uintptr_t)addr;
	m->end = (uintptr_t)addr + len;
	m->writable = true;
	for (i = 0; i < ndev; i++) {
		const struct lx_xprt_rdma_dev *d = lx_xprt_rdma_dev_get(i);
		int acc = d->mw_type ? IBV_ACCESS_MW_BIND : 0;

		r = xv_reg_mr(d->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | acc,
			      &m->mr[i]);
		if (r && (r == -EFAULT || r == -EACCES || r == -EPERM)) {
			/* read-only memory: no local write, so no windows
			 * a server could write through either */
			r = xv_reg_mr(d->pd, addr, len, acc, &m->mr[i]);
			m->writable = false;
		}
		if (r)
			goto out_dereg;
		m->n++;
	}
	lx_xprt_lock(&mem_lock);
	pos = mem_search(m->start);
	if (pos < nmems && mems[pos]->start < m->end) {
		r = -EEXIST; /* overlaps a registered region */
		goto out_unlock;
	}
	if (nmems == capmems) {
		unsigned int cap = capmems ? capmems * 2 : 16;
		void *p = realloc(mems, cap * sizeof(*mems));

		if (!p) {
			r = -ENOMEM;
			goto out_unlock;
		}
		mems = p;
		capmems = cap;
	}
	memmove(&mems[pos + 1], &mems[pos], (nmems - pos) * sizeof(*mems));
	mems[pos] = m;
	nmems++;
	atomic_store(&nmems_pub, nmems);
	lx_xprt_unlock(&mem_lock);
	*memp = m;
	return 0;

out_unlock:
	lx_xprt_unlock(&mem_lock);
out_dereg:
	for (i = 0; i < m->n; i++)
		xv_dereg_mr(m->mr[i]);
	free(m);
	return r;
}

int lx_xprt_rdma_mem_unregister(struct lx_xprt_rdma_mem *m)
{
	unsigned int pos, i;

	if (!m)
		return 0;
	if (m->magic != RDMA_MEM_MAGIC)
		return -EINVAL;
	/* in a child, every registration is the parent's: its memory
	 * regions are destroyed by a deregistration from any process */
	if (lx_xprt_rdma_dev_ready() == -ECHILD)
		return -ECHILD;
	lx_xprt_lock(&mem_lock);
	pos = mem_search(m->start);
	if (pos >= nmems || mems[pos] != m) {
		lx_xprt_unlock(&mem_lock);
		return -EINVAL;
	}
	if (atomic_load(&m->busy)) {
		lx_xprt_unlock(&mem_lock);
		return -EBUSY;
	}
	memmove(&mems[pos], &mems[pos + 1], (nmems - pos - 1) * sizeof(*mems));
	nmems--;
	atomic_store(&nmems_pub, nmems);
	lx_xprt_unlock(&mem_lock);
	m->magic = 0;
	for (i = 0; i < m->n; i++)
		xv_dereg_mr(m->mr[i]);
	free(m);
	return 0;
}

struct ibv_mr *lx_xprt_rdma_mem_find(const void *addr, size_t len,
				     unsigned int dev, bool write,
				     struct lx_xprt_rdma_mem **memp)
{
	uintptr_t a = (uintptr_t)addr;
	struct lx_xprt_rdma_mem *m;
	struct ibv_mr *mr = NULL;
	unsigned int pos;

	/* a region being registered is not in use yet */
	if (!atomic_load_explicit(&nmems_pub, memory_order_relaxed))
		return NULL;
	lx_xprt_lock(&mem_lock);
	pos = mem_search(a);
	if (pos < nmems) {
		m = mems[pos];
		if (m->start <= a && a + len <= m->end && dev < m->n &&
		    (!write || m->writable)) {
			mr = m->mr[dev];
			/* under the lock: unregister cannot miss it */
			atomic_fetch_add(&m->busy, 1);
			*memp = m;
		}
	}
	lx_xprt_unlock(&mem_lock);
	return mr;
}

void lx_xprt_rdma_mem_put(struct lx_xprt_rdma_mem *m)
{
	if (m)
		atomic_fetch_sub(&m->busy, 1);
}
