/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SunRPC client internals shared by the files of rpc/.  Not installed.
 */
#ifndef RPC_RPC_INT_H
#define RPC_RPC_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include <rpc/rpc.h>

#include <libxprt/rpc.h>

#define RPC_MAX_CONN	  16u
#define RPC_HDR_MAX	  512u /* call header: 40 + cred (<= 400) + verf */
#define RPC_CALL_PROC_OFF 20u

/**
 * struct rpc_clnt - a client
 * @x: one transport per connection
 * @next_conn: round-robin cursor
 * @xid: next XID (random start, then sequential)
 * @hdr: pre-encoded call header template (XID and procedure patched per
 *	call), through libtirpc's xdr_callmsg
 * @hdr_len: its length
 */
struct rpc_clnt {
	struct rpc_clnt_opts opts;
	struct xprt *x[RPC_MAX_CONN];
	unsigned int nconn;
	struct xprt_pool *pool;
	atomic_uint next_conn;
	atomic_uint xid;
	uint8_t hdr[RPC_HDR_MAX];
	size_t hdr_len;
	char machine[256];
};

/**
 * struct rpc_task - per-call state, in the request's private area
 */
struct rpc_task {
	struct rpc_clnt *cl;
	uint32_t xid;
	xdrproc_t dec;
	void *res;
	rpc_done_fn done;
	void *arg;
	rpc_body_place_fn place;
	void *place_arg;
	struct xprt_iter rx_dst;
	bool has_rx_dst;
	bool sync;
	unsigned int retries;
	uint64_t timeo_ns;
	int status;
	struct rpc_reply_info info;
};

/* rpc_auth.c */
int rpc_build_header(struct rpc_clnt *cl);

/* rpc_rpcb.c */
int rpcbind_getport_tcp(const char *host, uint32_t prog, uint32_t vers,
			uint16_t *port);

#endif /* RPC_RPC_INT_H */
