/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the library's own protocol layers (rpc/, p9/) may ask of the
 * transport core beyond its public API (libxprt/xprt.h).
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_PROTO_H
#define LX_XPRT_PROTO_H

#include <stddef.h>

struct xprt;

/**
 * lx_xprt__keep_bufs() - let request slots keep their buffers
 * @x: a transport no request was allocated on yet
 *
 * A slot then holds on to its send and receive buffer when it is freed
 * and finds them again at its next allocation: no pool operation per
 * call.  Only for a pool whose budget holds two buffers for every slot of
 * every transport on it, i.e. a pool the caller made for its own
 * transports: buffers idle in slots are not available to anyone else
 * (they go back at lx_xprt_set_pool() and lx_xprt_destroy()).  A pool
 * the transport made itself is used this way without asking.
 */
void lx_xprt__keep_bufs(struct xprt *x);

struct lx_xprt_req;

/* Where a request's private area (lx_xprt_opts.req_priv) starts: the
 * protocols' lx_xprt_req_priv() without a call on every hook. */
extern const size_t lx_xprt__req_priv_off;

static inline void *lx_xprt__req_priv(struct lx_xprt_req *req)
{
	return (char *)req + lx_xprt__req_priv_off;
}

#endif /* LX_XPRT_PROTO_H */
