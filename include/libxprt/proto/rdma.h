/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt RDMA transport for protocol authors (protocol-author tier): the
 * pool registration hook a pool shared by RDMA transports needs.  The
 * options and counters are in <libxprt/rdma.h>, included here.
 */
#ifndef LIBXPRT_PROTO_RDMA_H
#define LIBXPRT_PROTO_RDMA_H

#include "../rdma.h"
#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * lx_xprt_rdma_pool_reg() - the pool registration hook for RDMA
 *
 * Give it to lx_xprt_pool_create() (struct lx_xprt_pool_opts.reg) for a pool an
 * RDMA xprt will use.  Each slab is registered for local access once on
 * every RDMA device of the host, and deregistered when the pool is
 * destroyed.  A slab carved when no device exists fails with %-ENODEV.
 * Return: the hook (static storage).
 */
const struct lx_xprt_pool_reg *lx_xprt_rdma_pool_reg(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_PROTO_RDMA_H */
