/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt RDMA transport: options, counters, memory registration.
 *
 * An RDMA xprt (struct lx_xprt_opts.transport = LX_XPRT_TRANSPORT_RDMA) is one
 * reliable-connected queue pair set up with librdmacm, re-established on
 * failure like a TCP connection.  What travels in its Sends is decided by
 * an upper-layer binding:
 *   - RPC-over-RDMA version 1 (RFC 8166, RFC 8797 connection parameters):
 *     the SunRPC client (lx_rpc_create() with transport RDMA) installs
 *     it; large payloads move by RDMA Read/Write chunks, the server's
 *     credit grants drive the congestion window.  Default port 20049.
 *   - whole messages, as Linux's 9P trans_rdma frames 9P (the default when
 *     the framing is lx_xprt_framing_9p): one message per Send, a receive of
 *     the full buffer size posted for every request before its Send, no
 *     connection private data.  Default port 5640.
 *
 * Chunks: see enum lx_xprt_rdma_reg_mode.  By default the server reaches
 * caller memory only through a memory window per chunk segment, for one
 * call; lx_xprt_rdma_mem_register() makes long-lived caller buffers cost
 * no registration per call.
 *
 * Buffers: every request buffer a Send gathers from must be registered
 * with the device.  Pools an RDMA xprt creates itself are; a pool handed
 * in (struct lx_xprt_opts.pool, or shared between connections) must be
 * created with the hook of lx_xprt_rdma_pool_reg() (protocol-author tier,
 * <libxprt/proto/rdma.h>), which registers each slab once, on every RDMA
 * device, when the slab is carved.
 *
 * Tool tier: the options and counters of the clients' RDMA transports.
 */
#ifndef LIBXPRT_RDMA_H
#define LIBXPRT_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lx_xprt;

/* IANA-registered NFS/RDMA port (RFC 5666 / RFC 8267) */
#define LX_XPRT_RDMA_NFS_PORT 20049
/* Linux 9P over RDMA (net/9p/trans_rdma.c P9_PORT) */
#define LX_XPRT_RDMA_9P_PORT  5640

/**
 * enum lx_xprt_rdma_reg_mode - how chunk memory is exposed to the server
 *
 * A chunk (a READ's destination the server RDMA-Writes, a WRITE's payload
 * it RDMA-Reads, a Reply chunk) needs a key the server can use.  What the
 * key opens, to whom, and for how long:
 *
 * @LX_XPRT_RDMA_REG_DEFAULT: memory windows where the device has type 2
 *	windows (mlx5, Soft-RoCE), per-I/O registration where it has not.
 * @LX_XPRT_RDMA_REG_WINDOW: memory windows, or the connection fails with
 *	-EOPNOTSUPP.  Per chunk segment a type 2 window is bound by a work
 *	request in the same doorbell as the Send: over exactly the segment,
 *	with only the access it needs (REMOTE_READ for a Read chunk,
 *	REMOTE_WRITE for Write and Reply chunks), its key's low byte rotated
 *	on every bind, usable only on this connection's queue pair.  It is
 *	invalidated before done() runs: by the server's Send With Invalidate
 *	(offered in the connection's private data, RFC 8797) or by a local
 *	invalidation work request whose completion done() waits for; a call
 *	that ends without a reply (timeout, cancel, lost connection)
 *	deallocates its windows before done().  The memory under a window
 *	must be registered with bind rights: pool buffers are, regions of
 *	lx_xprt_rdma_mem_register() are; other caller memory is registered
 *	for the call (bind rights only) with a window on top.  No system
 *	call on the data path for registered memory; on Soft-RoCE each post
 *	is a write(2) doorbell.
 * @LX_XPRT_RDMA_REG_PER_IO: register each segment with remote access
 *	before the call is sent, deregister it before done().  The server
 *	can reach exactly the pages of the segment while the call is in
 *	flight; two system calls per segment.
 * @LX_XPRT_RDMA_REG_CACHE_UNSAFE: keep registrations of page ranges with
 *	all remote rights (LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE) in a
 *	small per-connection cache after calls end.  UNSAFE: after a normal
 *	reply the server, or anything on the fabric that learned a key, can
 *	still read and write that memory for as long as the entry lives (any
 *	queue pair of the process's protection domain), and a cached entry
 *	pins the old pages if the caller unmaps the memory
 *	(lx_xprt_rdma_reg_flush() first).  Only registrations of calls that
 *	end without a reply are dropped at once.  For measurements against a
 *	trusted server only.
 */
enum lx_xprt_rdma_reg_mode {
	LX_XPRT_RDMA_REG_DEFAULT = 0,
	LX_XPRT_RDMA_REG_WINDOW = 1,
	LX_XPRT_RDMA_REG_PER_IO = 2,
	LX_XPRT_RDMA_REG_CACHE_UNSAFE = 3,
};

struct lx_xprt_rdma_ulp;

/**
 * struct lx_xprt_rdma_opts - RDMA transport options (struct lx_xprt_opts.rdma,
 * struct lx_rpc_opts.rdma); zeroed fields take the defaults
 * @ulp: upper-layer binding; NULL picks it from the framing (9P framing:
 *	whole messages).  The SunRPC client sets its own.
 * @inline_send: largest RPC-over-RDMA message we offer to Send, bytes,
 *	1024 .. 65536 in steps of 1024 (default 4096); the server's receive
 *	size caps it (RFC 8797), 1024 when the server sends no parameters
 * @inline_recv: size of our receive buffers for RPC-over-RDMA (same range
 *	and default), capped by the server's send size
 * @signal_every: request a Send completion every this many Sends (default
 *	max_reqs / 8, at least 1); more means fewer completions to poll,
 *	fewer means send queue slots come back sooner
 * @recv_batch: receives posted beyond the need, in the same doorbell
 *	(default 8)
 * @busy_poll_us: poll the completion queues for this long before sleeping
 *	on the completion channel (default 0: sleep at once; spinning only
 *	pays with a core to spare)
 * @reg_mode: see enum lx_xprt_rdma_reg_mode
 * @reg_cache_entries: cache size for %LX_XPRT_RDMA_REG_CACHE_UNSAFE
 *	(default 64)
 * @no_remote_inv: do not offer Send With Invalidate (RFC 8797
 *	SND_W_INV_OK) with windows: every window is invalidated locally
 * @rnr_retry: RNR retry count for our Sends, 0 .. 7 (7 = forever); default
 *	0 for RPC-over-RDMA (the credit protocol guarantees a receive; a
 *	missing one is a bug to surface), 7 for whole messages
 * @rnr_retry_set: use @rnr_retry even when it is 0
 * @ack_timeout: local ACK timeout of our Sends, as the exponent n of
 *	4.096 us * 2^n (1 .. 31); 0 keeps rdma_cm's default (about half a
 *	second on RoCE, retried 6 times).  Raise it where the peer may stall
 *	for seconds (an emulated guest on a busy host): a Send not
 *	acknowledged in time breaks the connection.
 * @max_seg_size: largest segment (one window or registration) of the
 *	chunks the server writes - Write and Reply chunks - bytes, at least
 *	4096 (default 0: the device's largest registration).  Memory longer
 *	than that is offered as several segments, each its own window, up
 *	to 16 per chunk (Linux's RPCRDMA_MAX_HDR_SEGS; a call needing more
 *	fails with -E2BIG): lower it for a device whose windows or
 *	registrations are small, or to test multi-segment chunks.  Read
 *	chunk segments follow the caller's buffers.
 */
struct lx_xprt_rdma_opts {
	const struct lx_xprt_rdma_ulp *ulp;
	unsigned int inline_send;
	unsigned int inline_recv;
	unsigned int signal_every;
	unsigned int recv_batch;
	unsigned int busy_poll_us;
	enum lx_xprt_rdma_reg_mode reg_mode;
	unsigned int reg_cache_entries;
	unsigned int rnr_retry;
	bool rnr_retry_set;
	unsigned int ack_timeout;
	bool no_remote_inv;
	unsigned int max_seg_size;
};

/**
 * struct lx_xprt_rdma_stats - counters of one RDMA transport
 * @credits: congestion window in force (the server's last grant)
 * @max_credits: largest grant seen
 * @inline_send, @inline_recv: thresholds in force on this connection
 * @recv_doorbells: ibv_post_recv calls; @recvs_posted: receives posted
 * @send_doorbells: ibv_post_send calls; @sends: Send work requests;
 *	@sends_signaled: those asking for a completion
 * @sq_full: times a send waited for send queue slots
 * @cq_events: completion channel wake-ups; @polls: CQ polls that found
 *	work
 * @read_chunks, @pos0_chunks, @write_chunks, @reply_chunks: calls
 *	marshalled with each chunk type
 * @regs, @deregs: ibv_reg_mr / ibv_dereg_mr calls for chunks (window
 *	mode: unregistered caller memory under a window);
 *	@reg_ns: time spent in them; @reg_hits: cache hits
 * @bad_headers: replies whose transport header could not be decoded
 * @rdma_errors: RDMA_ERROR replies (ERR_VERS, ERR_CHUNK)
 * @excess_recvs: (whole messages) receives left posted by requests that
 *	ended without a reply, reused by the next requests
 * @connect_attempts, @connect_failures: connection attempts and failed ones
 * @last_connect_error: errno of the last failed attempt (negative), 0
 * @last_connect_us: duration of the last attempt
 * @reg_mode: the mode in force on this connection (never DEFAULT:
 *	WINDOW, PER_IO or CACHE_UNSAFE)
 * @mw_type: memory window type the device binds (2), 0 for none
 * @remote_inv_offered: this connection offered Send With Invalidate
 * @win_binds: windows bound (one per chunk segment)
 * @win_remote_inv: windows the server invalidated (Send With Invalidate
 *	naming the call's window)
 * @win_local_inv: windows invalidated by our local invalidation
 * @win_deallocs: windows deallocated instead (a call that ended without a
 *	reply, a lost connection)
 * @win_allocs: windows allocated (ibv_alloc_mw: warm-up, after a lost
 *	connection)
 * @win_live: windows bound now
 * @win_bad_inv: Sends With Invalidate naming no window of their call
 *	(each dropped the connection)
 * @inv_waits: replies whose done() waited for local invalidation
 */
struct lx_xprt_rdma_stats {
	uint32_t credits, max_credits;
	uint32_t inline_send, inline_recv;
	uint64_t recv_doorbells, recvs_posted;
	uint64_t send_doorbells, sends, sends_signaled, sq_full;
	uint64_t cq_events, polls;
	uint64_t read_chunks, pos0_chunks, write_chunks, reply_chunks;
	uint64_t regs, deregs, reg_ns, reg_hits;
	uint64_t bad_headers, rdma_errors;
	uint64_t excess_recvs;
	uint64_t connect_attempts, connect_failures;
	int last_connect_error;
	uint64_t last_connect_us;
	enum lx_xprt_rdma_reg_mode reg_mode;
	int mw_type;
	bool remote_inv_offered;
	uint64_t win_binds, win_remote_inv, win_local_inv, win_deallocs;
	uint64_t win_allocs, win_live, win_bad_inv, inv_waits;
};

/**
 * lx_xprt_rdma_stats() - snapshot the RDMA counters of @x
 * Return: %0; %-EINVAL when @x or @st is NULL or @x is not an RDMA xprt.
 */
int lx_xprt_rdma_stats(const struct lx_xprt *x, struct lx_xprt_rdma_stats *st);

struct lx_xprt_rdma_mem;

/**
 * lx_xprt_rdma_mem_register() - register long-lived caller memory for RDMA
 * @addr, @len: the memory (any alignment)
 * @memp: the registration, for lx_xprt_rdma_mem_unregister()
 *
 * Registers the memory once on every RDMA device of the process with
 * local access and the right to bind memory windows, never with remote
 * access: in window mode a call whose chunk lies in it then costs no
 * registration (a window per chunk segment, per call, is all the server
 * ever gets).  Read-only memory is registered for windows the server may
 * only read through.  Regions must not overlap.  Keep the memory mapped
 * until it is unregistered.  Without memory windows on the device the
 * registration is not used for chunks (per-I/O registration applies).
 * Context: any thread; system calls (one registration per device).
 * Return: %0; %-EINVAL for NULL or empty arguments; %-EEXIST when the range
 * overlaps a registered region; %-ENODEV without RDMA devices; %-ECHILD
 * in a child of a process that used RDMA (docs/api.md, "Across fork()");
 * %-ENOMEM or the device's error.
 */
int lx_xprt_rdma_mem_register(void *addr, size_t len,
			      struct lx_xprt_rdma_mem **memp);

/**
 * lx_xprt_rdma_mem_unregister() - undo lx_xprt_rdma_mem_register()
 *
 * Context: any thread, once no call using the memory is in flight.
 * Return: %0 (NULL is a no-op); %-EBUSY while a window is bound over it
 * (a call is in flight: try again after its done()); %-EINVAL for
 * something that is not a registration; %-ECHILD in a child of the
 * process that registered it (deregistering there would take the
 * parent's memory regions away: the registration is left alone).
 */
int lx_xprt_rdma_mem_unregister(struct lx_xprt_rdma_mem *mem);

/**
 * lx_xprt_rdma_reg_flush() - drop every cached registration no call uses
 *
 * For %LX_XPRT_RDMA_REG_CACHE_UNSAFE users about to unmap or free memory they did
 * I/O with.  Context: any thread; takes the cache lock.
 * Return: %0; %-EINVAL when @x is NULL or not an RDMA xprt; %-ECHILD in a
 * child of the process that created @x.
 */
int lx_xprt_rdma_reg_flush(struct lx_xprt *x);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_RDMA_H */
