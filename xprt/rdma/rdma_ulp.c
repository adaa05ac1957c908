// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RDMA transport: the services its upper-layer bindings use (xprt/rdma/rdma.h):
 * the options and connection parameters in force, a request's slot state
 * and its chunk memory (a window over registered memory, or a
 * registration: lx_xprt_rdma_chunk()), counters, a send buffer's local
 * key, the gather list of a whole message.  The bindings (rdma_msg.c for whole 9P
 * messages, rpc/rpc_rdma_ulp.c for RPC-over-RDMA) call these; rdma.c,
 * which picks a binding, does not have to be called back by one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xprt/rdma/rdma_int.h"
#include "xprt/rdma/rdma_verbs.h"

const struct lx_xprt_rdma_opts *lx_xprt_rdma_opts_of(const struct lx_xprt *x)
{
	return &lx_xr_tp_of(x)->o;
}

const struct lx_xprt_rdma_params *
lx_xprt_rdma_params_of(const struct lx_xprt *x)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	return tp->conn ? &tp->conn->params : NULL;
}

struct lx_xprt_rdma_slot *lx_xprt_rdma_slot_of(struct lx_xprt *x,
					       unsigned int slot)
{
	return &lx_xr_tp_of(x)->slots[slot];
}

void lx_xprt_rdma_stat_inc(struct lx_xprt *x, enum lx_xprt_rdma_stat which)
{
	if ((unsigned int)which < LX_XPRT_RDMA_ST_NR)
		atomic_fetch_add_explicit(&lx_xr_tp_of(x)->ulp_ctr[which], 1,
					  memory_order_relaxed);
}

int lx_xprt_rdma_buf_lkey(const struct lx_xprt *x, const struct lx_xprt_buf *b,
			  uint32_t *lkey)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	int r;

	r = lx_xprt_rdma_slab_lkey(lx_xprt_buf_reg_handle(b),
				   (unsigned int)tp->conn->dev, lkey);
	if (r && !atomic_exchange(&tp->pool_warned, true))
		lx_xprt_log(
			x, LX_XPRT_LOG_ERR,
			"libxprt: %s: pool buffers are not registered for "
			"RDMA (create the pool with lx_xprt_rdma_pool_reg())",
			x->peer);
	return r;
}

int lx_xprt_rdma_slot_reg(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
			  void *addr, size_t len, int access, uint32_t *rkey,
			  uint64_t *iova, uint32_t *lkey)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	const struct lx_xprt_rdma_dev *d;
	struct lx_xprt_rdma_mr *mr;
	int r;

	if (s->nmrs >= LX_XPRT_RDMA_SLOT_MRS)
		return -E2BIG;
	d = lx_xprt_rdma_dev_get((unsigned int)tp->conn->dev);
	r = lx_xprt_rdma_mr_get(&tp->mrc, d->pd, addr, len, access, &mr, lkey,
				rkey);
	if (r)
		return r;
	s->mrs[s->nmrs++] = mr;
	if (iova)
		*iova = (uint64_t)(uintptr_t)addr;
	return 0;
}

void lx_xprt_rdma__slot_unreg(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
			      bool invalidate)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);

	/* windows over a registration go before it (rxe refuses to drop a
	 * registration with windows bound) */
	lx_xr_win_release(x, s);
	while (s->nmrs)
		lx_xprt_rdma_mr_put(&tp->mrc, s->mrs[--s->nmrs], invalidate);
}

int lx_xprt_rdma_chunk(struct lx_xprt *x, struct lx_xprt_rdma_slot *s,
		       struct lx_xprt_rdma_send *snd,
		       const struct lx_xprt_buf *buf, void *addr, size_t len,
		       int access, uint32_t *handle, uint64_t *offset)
{
	struct lx_xr_tp *tp = lx_xr_tp_of(x);
	const struct lx_xprt_rdma_params *p = &tp->conn->params;
	bool write = (access & IBV_ACCESS_REMOTE_WRITE) != 0;
	struct lx_xprt_rdma_mem *mem = NULL;
	struct ibv_mr *mr = NULL;
	int r;

	if (!p->windows)
		/* a registration with the remote rights themselves */
		return lx_xprt_rdma_slot_reg(
			x, s, addr, len,
			write ? IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE :
				IBV_ACCESS_REMOTE_READ,
			handle, offset, NULL);
	if (len > UINT32_MAX)
		return -E2BIG;
	lx_xr_win_dev(x, p->dev);
	/* what the window is bound over: a pool slab, a caller region */
	if (buf)
		mr = lx_xprt_rdma_slab_mr(lx_xprt_buf_reg_handle(buf), p->dev);
	if (!mr)
		mr = lx_xprt_rdma_mem_find(addr, len, p->dev, write, &mem);
	if (!mr) {
		/* unregistered caller memory: a registration of this call
		 * with bind rights only, the window on top of it */
		struct lx_xprt_rdma_mr *m;
		const struct lx_xprt_rdma_dev *d = lx_xprt_rdma_dev_get(p->dev);

		if (s->nmrs >= LX_XPRT_RDMA_SLOT_MRS)
			return -E2BIG;
		r = lx_xprt_rdma_mr_get(
			&tp->mrc, d->pd, addr, len,
			IBV_ACCESS_MW_BIND |
				(write ? IBV_ACCESS_LOCAL_WRITE : 0),
			&m, NULL, NULL);
		if (r)
			return r;
		s->mrs[s->nmrs++] = m;
		mr = lx_xprt_rdma_mr_ibv(m);
	}
	r = lx_xr_win_bind(x, s, snd, mr, mem, addr, len, write, handle);
	if (!r)
		*offset = (uint64_t)(uintptr_t)addr;
	return r;
}

int lx_xprt_rdma_add_msg(struct lx_xprt *x, struct lx_xprt_rqst *rq,
			 struct lx_xprt_rdma_slot *s,
			 struct lx_xprt_rdma_send *snd, unsigned int nsegs)
{
	const struct lx_xprt_rdma_params *p = lx_xprt_rdma_params_of(x);
	struct lx_xprt_buf *b = rq->pub.sbuf;
	size_t room = b->cap - b->len, extra = 0;
	unsigned int i;
	uint32_t lkey;
	int r;

	for (i = 0; i < nsegs; i++)
		extra += rq->pub.tx_segs[i].iov_len;
	r = lx_xprt_rdma_buf_lkey(x, b, &lkey);
	if (r)
		return r;
	if (snd->nsge >= p->max_send_sge)
		return -E2BIG;
	if (extra <= room) {
		/* pull-up: a copy of a few KiB is cheaper than a
		 * registration, and the send buffer is ours until done() */
		char *dst = (char *)b->data + b->len;

		for (i = 0; i < nsegs; i++) {
			memcpy(dst, rq->pub.tx_segs[i].iov_base,
			       rq->pub.tx_segs[i].iov_len);
			dst += rq->pub.tx_segs[i].iov_len;
		}
		snd->sge[snd->nsge++] = (struct ibv_sge){
			.addr = (uintptr_t)b->data,
			.length = (uint32_t)(b->len + extra),
			.lkey = lkey,
		};
		snd->bytes += b->len + extra;
		return 0;
	}
	snd->sge[snd->nsge++] = (struct ibv_sge){
		.addr = (uintptr_t)b->data,
		.length = b->len,
		.lkey = lkey,
	};
	snd->bytes += b->len;
	for (i = 0; i < nsegs; i++) {
		struct iovec *v = &rq->pub.tx_segs[i];

		if (snd->nsge >= p->max_send_sge)
			return -E2BIG;
		r = lx_xprt_rdma_slot_reg(x, s, v->iov_base, v->iov_len, 0,
					  NULL, NULL, &lkey);
		if (r)
			return r;
		snd->sge[snd->nsge++] = (struct ibv_sge){
			.addr = (uintptr_t)v->iov_base,
			.length = (uint32_t)v->iov_len,
			.lkey = lkey,
		};
		snd->bytes += v->iov_len;
	}
	return 0;
}
