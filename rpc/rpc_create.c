// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_rpc_create(): a client, its port found through the server's
 * rpcbind when not given.
 *
 * The top of rpc/: it calls the rpcbind client (rpc_rpcb.c), which builds
 * its own short-lived clients on port 111 with lx_rpc__create()
 * (rpc_clnt.c), and then builds the caller's the same way, with the
 * RPC-over-RDMA binding (rpc_rdma_ulp.c) for an RDMA transport.  Kept
 * apart so that none of those files calls back into another.
 */
#include <errno.h>

#include "rpc_int.h"

int lx_rpc_create(struct lx_rpc_clnt **clp, const struct lx_rpc_opts *opts)
{
	struct lx_rpc_opts o;
	bool rdma;
	int err;

	if (!clp || !opts || !opts->host || opts->nconnect > LX_RPC_MAX_CONN)
		return -EINVAL;
	o = *opts;
	rdma = o.transport == LX_XPRT_TRANSPORT_RDMA;
	if (!o.port) {
		/* rpcbind maps TCP ports: RDMA needs an explicit one */
		if (rdma)
			return -EINVAL;
		err = lx_rpcbind_getport_tcp(o.host, o.prog, o.vers, o.mode,
					     &o.port);
		if (err)
			return err;
	}
	return lx_rpc__create(clp, &o, rdma ? &lx_rpc_rdma_ulp : NULL);
}
