/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rdma-core at our boundary: every call returns 0 or a negative errno.
 *
 * rdma-core reports failure three ways: -1 with errno set (the librdmacm
 * calls, ibv_get_cq_event), NULL with errno set (object creation), or a
 * positive errno as the return value (ibv_post_send/recv,
 * ibv_req_notify_cq, ibv_query_*, ibv_dereg_mr; some providers return -1
 * there too).  The library never lets either convention past these
 * wrappers, so the rest of the code has one rule: negative is an error.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_RDMA_VERBS_H
#define LX_XPRT_RDMA_VERBS_H

#include <errno.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* errno of a failed call, never 0 */
static inline int xv_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* a return value that is 0, a positive errno, or -1 with errno */
static inline int xv_ret(int ret)
{
	if (ret > 0)
		return -ret;
	return ret < 0 ? xv_errno() : 0;
}

/* a librdmacm call: 0 or -1 with errno */
static inline int xv_cm(int ret)
{
	return ret ? xv_errno() : 0;
}

static inline int xv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			       struct ibv_send_wr **bad)
{
	return xv_ret(ibv_post_send(qp, wr, bad));
}

static inline int xv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad)
{
	return xv_ret(ibv_post_recv(qp, wr, bad));
}

static inline int xv_req_notify(struct ibv_cq *cq)
{
	return xv_ret(ibv_req_notify_cq(cq, 0));
}

static inline int xv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			    int access, struct ibv_mr **mrp)
{
	*mrp = ibv_reg_mr(pd, addr, len, access);
	return *mrp ? 0 : xv_errno();
}

static inline int xv_dereg_mr(struct ibv_mr *mr)
{
	return mr ? xv_ret(ibv_dereg_mr(mr)) : 0;
}

#endif /* LX_XPRT_RDMA_VERBS_H */
