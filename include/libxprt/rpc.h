/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt SunRPC client (RFC 5531) on the transport core.
 *
 * One client talks to one program/version on one server over one or more
 * connections (nconnect), any number of calls in flight on each.  Call and
 * reply headers and arguments go through libtirpc's XDR routines over the
 * transport's pool buffers (xdrmem, no extra copy); bulk payloads (NFS
 * WRITE data) are sent from the caller's memory and bulk results (NFS READ
 * data) land in it.  XIDs start at a random value and increase; a call
 * keeps its XID across retransmissions, including after a reconnect, as the
 * Linux client does, so the server's duplicate request cache recognises it.
 *
 * Errors (negative errno, in the return of sync calls and the status of
 * async completions):
 *   %-EPFNOSUPPORT      PROG_UNAVAIL: the server does not run the program
 *   %-EPROTONOSUPPORT   PROG_MISMATCH: program version not served; the
 *                       server's range is in lx_rpc_reply_info.low/high
 *   %-EOPNOTSUPP        PROC_UNAVAIL: no such procedure
 *   %-EINVAL            GARBAGE_ARGS: the server could not decode the call
 *                       (from a call: bad arguments, nothing sent)
 *   %-EREMOTEIO         SYSTEM_ERR: the server failed (memory, ...)
 *   %-EPROTO            MSG_DENIED/RPC_MISMATCH: RPC version not served
 *                       (range in low/high); over RDMA also ERR_VERS: the
 *                       server does not speak RPC-over-RDMA version 1
 *                       (its range in low/high)
 *   %-EACCES            MSG_DENIED/AUTH_ERROR: credentials refused; the
 *                       reason (auth_stat, e.g. 5 AUTH_TOOWEAK) in
 *                       lx_rpc_reply_info.auth_stat
 *   %-EBADMSG           the reply could not be decoded (header or results)
 *   %-EMSGSIZE          the reply does not fit the call's buffers; over
 *                       RDMA also ERR_CHUNK: the server could not use the
 *                       chunks offered (a reply larger than reply_hint)
 *   %-ETIMEDOUT         no reply after the retransmissions (major timeout),
 *                       or by the call's deadline_ms
 *   %-ECONNRESET        (soft clients) the server closed the connection
 *                       retrans + 1 times with the call sent and before
 *                       any reply: not this service on that port?
 *   %-ECANCELED         lx_call_cancel()
 *   %-ENOTCONN          the connection could not be re-established within
 *                       reconnect_give_up_ms
 *   %-ESHUTDOWN         the client is being destroyed
 *   %-ECHILD            the client was made in another process, the
 *                       parent of this one across fork(): nothing sent
 *                       (docs/api.md, "Across fork()")
 * Any of these may be retried by the caller except %-EINVAL from a call
 * (fix the arguments), %-ESHUTDOWN and %-ECHILD.
 */
#ifndef LIBXPRT_RPC_H
#define LIBXPRT_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rpc/types.h>
#include <rpc/xdr.h>

#include "call.h"
#include "pool.h"
#include "xprt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lx_rpc_clnt;

enum lx_rpc_auth_flavor {
	LX_RPC_AUTH_NONE = 0,
	LX_RPC_AUTH_SYS = 1,
};

#define LX_RPC_AUTH_SYS_MAX_GIDS 16
#define LX_RPC_NO_RETRANS	 (~0u)

/**
 * struct lx_rpc_auth_opts - credentials
 * @flavor: AUTH_NONE or AUTH_SYS
 * @machine: AUTH_SYS machine name (default: this host's name)
 * @uid, @gid: AUTH_SYS ids (default: 0, 0 when not set: see @set_ids)
 * @set_ids: use @uid/@gid instead of the process's own ids
 * @ngids, @gids: supplementary groups (at most 16)
 */
struct lx_rpc_auth_opts {
	enum lx_rpc_auth_flavor flavor;
	const char *machine;
	bool set_ids;
	uint32_t uid, gid;
	unsigned int ngids;
	uint32_t gids[LX_RPC_AUTH_SYS_MAX_GIDS];
};

/**
 * struct lx_rpc_opts - client parameters
 * @host: server address or name
 * @port: server port; 0 asks the server's rpcbind (GETPORT, TCP); RDMA
 *	needs it given (NFS: LX_XPRT_RDMA_NFS_PORT, 20049)
 * @prog, @vers: program and version
 * @auth: credentials
 * @transport: TCP (default) or RDMA
 * @nconnect: connections, 1 .. 16 (default 1); calls are spread across
 *	them round-robin
 * @max_reqs: calls in flight per connection (default 64)
 * @max_in_flight: calls sent and not yet answered per connection, at
 *	most this many (0: @max_reqs); the others wait in the transmit
 *	queue, in its order (@xmit_fifo), as behind RDMA's credits
 * @buf_size: call and reply buffer size per call; bounds arguments and
 *	non-bulk results (default 8192)
 * @timeo_ms: time before the first retransmission (default 60000, the
 *	Linux NFS/TCP timeo)
 * @retrans: retransmissions before a major timeout (0 means the default,
 *	2; %LX_RPC_NO_RETRANS for none); each one doubles the wait, up to
 *	@timeo_max_ms (default 10 * timeo)
 * @reconnect_give_up_ms: see struct lx_xprt_opts (0 = keep trying)
 * @pool: a pool to share with other clients (lx_xprt_pool_create() with
 *	buf_size 0, libxprt/pool.h), or NULL for one of the client's own;
 *	it must outlive the client
 * @hard: as NFS's hard mount: a call is retransmitted for ever (its wait
 *	doubling up to @timeo_max_ms, "not responding, still trying" said
 *	once per episode) instead of failing -ETIMEDOUT after @retrans, and
 *	a server that drops every connection is tried again and again.
 *	Default (false): soft, bounded: -ETIMEDOUT at the major timeout,
 *	and -ECONNRESET for a call sent on @retrans + 1 connections that the
 *	server closed before any reply came back on them (a port that is
 *	not this RPC service fails in a second, not at the timeout).  A
 *	call's deadline_ms bounds it either way.
 * @xmit_fifo: calls waiting for a connection go out in arrival order
 *	instead of round robin over the submitting threads (see
 *	lx_xprt_opts.xmit_fifo): an ablation of fair queueing
 * @deadline_ms: every call's deadline_ms when it gives none (0: none)
 * @log, @log_arg: where messages go ("server HOST:PORT not responding,
 *	still trying" when a call times out or the server drops connections
 *	without replying, "server HOST:PORT OK" at the next reply); see
 *	lx_xprt_log_fn.  NULL: dropped.
 * @rdma: RDMA transport options (struct lx_xprt_rdma_opts, libxprt/rdma.h),
 *	NULL for defaults; the client installs the RPC-over-RDMA binding and
 *	the server's credit grants as congestion window
 * @zerocopy: TCP: large calls (WRITE payloads of 32 KiB or more) go out
 *	with MSG_ZEROCOPY; see lx_xprt_opts.zerocopy
 * @mode: %LX_XPRT_MODE_THREADED (default) or %LX_XPRT_MODE_CALLER: no
 *	thread of the library's, the creating thread drives the client
 *	(lx_rpc_loop_service(); libxprt/xprt.h, enum lx_xprt_mode).  The
 *	rpcbind query of a zero @port, and synchronous calls, then run the
 *	loop themselves (a synchronous call services the connection it
 *	went out on).  With @nconnect > 1 the client's descriptor is an
 *	epoll set of its connections'.  TCP only, without @zerocopy
 *	(%-EOPNOTSUPP).
 */
struct lx_rpc_opts {
	const char *host;
	uint16_t port;
	uint32_t prog, vers;
	struct lx_rpc_auth_opts auth;
	enum lx_xprt_transport transport;
	unsigned int nconnect;
	unsigned int max_reqs;
	unsigned int max_in_flight;
	size_t buf_size;
	unsigned int timeo_ms;
	unsigned int timeo_max_ms;
	unsigned int retrans;
	unsigned int reconnect_give_up_ms;
	bool hard;
	bool xmit_fifo;
	unsigned int deadline_ms;
	const void *rdma;
	struct lx_xprt_pool *pool;
	lx_xprt_log_fn log;
	void *log_arg;
	bool zerocopy;
	enum lx_xprt_mode mode;
};

/**
 * struct lx_rpc_reply_info - what the server said, beyond the status
 * @reply_stat: 0 MSG_ACCEPTED, 1 MSG_DENIED, -1 no reply
 * @accept_stat: for MSG_ACCEPTED (0 SUCCESS .. 5 SYSTEM_ERR)
 * @reject_stat: for MSG_DENIED (0 RPC_MISMATCH, 1 AUTH_ERROR)
 * @auth_stat: for AUTH_ERROR
 * @low, @high: the supported range for PROG_MISMATCH and RPC_MISMATCH
 * @xid: the call's XID (the last one, after @again)
 * @retransmits: how many times the call was sent again (its last XID)
 * @again: how many times it went out again under a new XID because its
 *	again() hook asked (NFS3ERR_JUKEBOX)
 */
struct lx_rpc_reply_info {
	int reply_stat;
	int accept_stat;
	int reject_stat;
	int auth_stat;
	uint32_t low, high;
	uint32_t xid;
	unsigned int retransmits;
	unsigned int again;
};

/**
 * lx_rpc_body_place_fn - where bulk result data starts (see lx_xprt_req_ops.place)
 * @arg: lx_rpc_call_args.place_arg
 * @body: the first @have bytes of the results (after the RPC header)
 * @have: bytes available
 * @data_off: set to the offset of the bulk data in the results
 * @data_len: set to its length (0: no bulk data in this reply)
 *
 * Return: 0 when decided; a number > @have: that many result bytes are
 * needed first; a negative errno to fail the call (a reply announcing more
 * data than the caller asked for, say).
 */
typedef int (*lx_rpc_body_place_fn)(void *arg, const uint8_t *body, size_t have,
				    size_t *data_off, size_t *data_len);

/**
 * lx_rpc_again_fn - send a call again after this reply?  (NFS3ERR_JUKEBOX)
 * @arg: lx_rpc_call_args.again_arg
 * @res: lx_rpc_call_args.res, the reply's results just decoded into it
 * @tries: how many times the call already went out again this way
 *
 * Runs on a receive thread after a successful decode; must not block.
 * Return: 0 to complete the call with this reply; otherwise a delay in
 * milliseconds, after which the call goes out again under a NEW XID (the
 * old one would get the server's cached answer back from its duplicate
 * request cache) with a fresh timeout.  Meanwhile the call stays in
 * flight: an async call's done() is not called (lx_call_cancel() ends the
 * wait at once; the client's retry thread sends it when due), a sync
 * caller keeps waiting; the next reply is decoded into @res again.
 * Counted in the transport's stats.resubmits and in
 * lx_rpc_reply_info.again.
 */
typedef unsigned int (*lx_rpc_again_fn)(void *arg, const void *res,
					unsigned int tries);

/**
 * struct lx_rpc_call_args - one call
 * @proc: procedure number
 * @enc, @args: XDR encoder of the arguments and their value (xdr_void/NULL
 *	for none)
 * @dec, @res: XDR decoder of the results and where they go (xdr_void/NULL)
 * @payload, @npayload: bulk data sent after the encoded arguments, from
 *	the caller's memory (kept valid until completion); XDR padding to a
 *	multiple of 4 is added
 * @place, @place_arg: bulk result placement: @place finds the bulk data
 *	in the results, which lands in @rx_iov instead of the reply buffer;
 *	@dec then sees the results with the bulk bytes and their XDR padding
 *	left out, the opaque length still present (RFC 8166's reduced
 *	stream, over every transport)
 * @rx_iov, @rx_iovcnt: where bulk result data lands (the caller's memory,
 *	valid until completion); never written past @rx_len bytes
 * @rx_len: at most this many bytes land in @rx_iov, which must hold as
 *	many (-EINVAL otherwise); 0: their total
 * @reply_hint: the largest reply expected, bulk data excluded, when it
 *	may exceed about 200 bytes (READDIR, READLINK: their count plus
 *	headers); over RDMA a reply that may not fit the inline threshold is
 *	given a Reply chunk: the call's reply buffer, taken as large as the
 *	hint (up to 8 MiB; above, the call fails -EMSGSIZE) when it is
 *	larger than buf_size.  0 = small.  Ignored over TCP (where the reply
 *	must fit buf_size).
 * @timeo_ms: overrides the client's timeo for this call (0 = default)
 * @deadline_ms: the call fails -ETIMEDOUT when no reply came within this
 *	long of its start, whatever retransmissions are left, hard client or
 *	soft (0 = none): set-up steps bounded whatever the timeo
 * @again, @again_arg: optional; see lx_rpc_again_fn
 *
 * Fairness owner and the non-blocking flag are the call object's
 * (struct lx_call.owner, .flags) for asynchronous calls; synchronous ones
 * count as the calling thread's and may wait for a slot.
 */
struct lx_rpc_call_args {
	uint32_t proc;
	xdrproc_t enc;
	const void *args;
	xdrproc_t dec;
	void *res;
	const struct iovec *payload;
	unsigned int npayload;
	lx_rpc_body_place_fn place;
	void *place_arg;
	const struct iovec *rx_iov;
	unsigned int rx_iovcnt;
	size_t rx_len;
	size_t reply_hint;
	unsigned int timeo_ms;
	unsigned int deadline_ms;
	lx_rpc_again_fn again;
	void *again_arg;
};

/**
 * lx_rpc_create() - create a client and connect
 * Return: %0; %-EINVAL for bad options; a negative errno from rpcbind
 * (%-EPFNOSUPPORT when the program is not registered) or from connecting.
 */
int lx_rpc_create(struct lx_rpc_clnt **clp, const struct lx_rpc_opts *opts);

/**
 * lx_rpc_destroy() - fail calls in flight with -ESHUTDOWN, close, free
 * Must not be called from a completion callback.  NULL is a no-op.
 */
void lx_rpc_destroy(struct lx_rpc_clnt *cl);

/**
 * lx_rpc_call_async() - start a call
 * @cl: the client
 * @call: the call object (struct lx_call, libxprt/call.h): @call->done,
 *	->arg, ->owner and ->flags (%LX_CALL_NOWAIT) set by the caller; the
 *	library sets ->res to @a->res.  done() gets 0 (the results decoded
 *	into @a->res) or a negative errno from the table at the top;
 *	lx_rpc_call_info() tells the details while it runs.
 * @a: the call; copied except the memory it points to (args and payload
 *	until completion, res and rx_iov until completion)
 *
 * Cancel with lx_call_cancel(): done() then gets -ECANCELED once the
 * receive thread no longer places the reply.
 * Context: may block while all slots are in use (FIFO), never on the
 * network; with %LX_CALL_NOWAIT it never blocks.
 * Return: %0, and @call->done runs exactly once; %-EINVAL (no done, or
 * arguments that failed to encode or do not fit the buffer); %-EBUSY
 * (%LX_CALL_NOWAIT and no slot or buffer free: retry after a completion,
 * from a thread that may block); %-ESHUTDOWN.  done() never runs after an
 * error.
 */
int lx_rpc_call_async(struct lx_rpc_clnt *cl, struct lx_call *call,
		      const struct lx_rpc_call_args *a);

/**
 * lx_rpc_call_sync() - make a call and wait for its outcome
 * @info: optional; filled with the reply details
 * Context: blocks; not from a completion callback.
 * Return: 0 or a negative errno (see the top of this header).
 */
int lx_rpc_call_sync(struct lx_rpc_clnt *cl, const struct lx_rpc_call_args *a,
		     struct lx_rpc_reply_info *info);

/**
 * lx_rpc_call_simple() - sync call without bulk data, the common case
 */
int lx_rpc_call_simple(struct lx_rpc_clnt *cl, uint32_t proc, xdrproc_t enc,
		       const void *args, xdrproc_t dec, void *res);

/**
 * lx_rpc_null() - call procedure 0 (a ping)
 */
int lx_rpc_null(struct lx_rpc_clnt *cl);

/**
 * lx_rpc_call_info() - reply details of an asynchronous call
 * @call: the call, inside its done() callback: the details live in the
 *	call's request slot, which is another call's once done() returns
 */
const struct lx_rpc_reply_info *lx_rpc_call_info(const struct lx_call *call);

/**
 * struct lx_rpc_stats - counters of a client
 * @nconnect: its connections
 * @xprt: the counters of its transports (struct lx_xprt_stats), summed
 *	over the connections: calls submitted and completed, replies,
 *	retransmissions, timeouts, cancels, connections...
 */
struct lx_rpc_stats {
	unsigned int nconnect;
	struct lx_xprt_stats xprt;
};

/**
 * lx_rpc_stats() - snapshot of @cl's counters
 * Context: any thread; reads atomics only (not a consistent snapshot
 * while calls run).
 */
void lx_rpc_stats(const struct lx_rpc_clnt *cl, struct lx_rpc_stats *st);

/**
 * lx_rpc_loop_fd() - the descriptor a caller-driven RPC client waits on
 * @c: a client created with mode %LX_XPRT_MODE_CALLER
 *
 * Its transport's lx_xprt_loop_fd() (libxprt/xprt.h has the contracts of
 * the four lx_rpc_loop_*() functions: events, threads, return values).
 * Context: any thread; no locks.
 * Return: the descriptor; %-EINVAL for a threaded client.
 */
int lx_rpc_loop_fd(const struct lx_rpc_clnt *c);

/**
 * lx_rpc_loop_events() - lx_xprt_loop_events() of @c's transport
 * Context: the owner thread.
 * Return: the poll(2) events to wait for; 0 for a threaded client.
 */
unsigned int lx_rpc_loop_events(const struct lx_rpc_clnt *c);

/**
 * lx_rpc_loop_service() - do what is due; done() callbacks run inside
 * (lx_xprt_loop_service() of @c's transport)
 * Context: the owner thread only; not from a done() callback.
 * Return: the requests it completed, as lx_xprt_loop_service();
 * %-EINVAL for a threaded client.
 */
int lx_rpc_loop_service(struct lx_rpc_clnt *c, unsigned int revents);

/**
 * lx_rpc_loop_run() - wait and service @c until @until is done,
 * @min_done callbacks ran, or @deadline_ns (CLOCK_MONOTONIC); with
 * neither a call nor a count until nothing is in flight
 * (lx_xprt_loop_run() of @c's transport)
 * Context: the owner thread; not from a done() callback; blocks.
 * Return: the requests completed meanwhile; %-ETIMEDOUT at
 * @deadline_ns; %-EINVAL for a threaded client.
 */
int lx_rpc_loop_run(struct lx_rpc_clnt *c, struct lx_call *until,
		    unsigned int min_done, uint64_t deadline_ns);

/** lx_rpc_xprt() - the transport of connection @i (0 .. nconnect-1) */
struct lx_xprt *lx_rpc_xprt(const struct lx_rpc_clnt *cl, unsigned int i);

/** lx_rpc_nconnect() - number of connections */
unsigned int lx_rpc_nconnect(const struct lx_rpc_clnt *cl);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_RPC_H */
