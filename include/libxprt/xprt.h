/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt transports, as the clients' users see them (tool tier).
 *
 * A struct lx_xprt is one connection-oriented transport instance (one TCP
 * socket or one RDMA queue pair, re-established on failure).  The clients
 * of rpc.h, nfs3.h and p9.h run on one or more of them and hand them out
 * (lx_rpc_xprt(), lx_p9_xprt()) for their counters, their peer's name,
 * fault injection; this header has what that takes, the transport choice
 * of the clients' options and the log hook.  Writing a protocol on the
 * transport core - requests, framing, buffers - is the protocol-author
 * tier: <libxprt/proto/xprt.h>.
 */
#ifndef LIBXPRT_XPRT_H
#define LIBXPRT_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lx_xprt;
struct lx_xprt_pool;

enum lx_xprt_transport {
	LX_XPRT_TRANSPORT_TCP,
	LX_XPRT_TRANSPORT_RDMA,
};

enum lx_xprt_state {
	LX_XPRT_CONNECTING,
	LX_XPRT_CONNECTED,
	LX_XPRT_DISCONNECTED, /* waiting to reconnect */
	LX_XPRT_CLOSING,
	LX_XPRT_CLOSED,
};

/**
 * struct lx_xprt_stats - counters of one transport
 * @early_disconnects: connections lost before any reply came back on them
 *	or within %LX_XPRT_EARLY_MS of being made; each one delays the next
 *	connection attempt as a failed connect does (see lx_xprt_opts)
 * @not_responding: episodes of "server HOST:PORT not responding" (each
 *	ends with "server HOST:PORT OK" at the next reply)
 * @resubmits: requests sent again under a new key after their outcome
 *	(lx_xprt_req_resubmit(): NFS3ERR_JUKEBOX retries)
 * @garbage: connections dropped because the server sent what cannot be
 *	a reply: a message shorter than its key (RPC: XID and message type),
 *	one that is not a reply (framing check), a fragment chain past
 *	max_msg or past %LX_XPRT_MAX_FRAGS fragments, a bad 9P size
 * @zerocopy_sends: sendmsg() calls made with MSG_ZEROCOPY (opts.zerocopy)
 * @zerocopy_completions: of those, the ones the kernel reported complete
 *	(its error queue); the requests they carried complete only then
 * @zerocopy_copied: of the completions, those where the kernel copied
 *	the data after all (SO_EE_CODE_ZEROCOPY_COPIED: loopback, a device
 *	without scatter-gather): zerocopy buys nothing on that path
 * @orphans: requests that ended (cancel, soft timeout) after they were
 *	sent and before their reply: each kept its congestion credit, its
 *	slot and its key (an "orphan") until its reply, its deadline or the
 *	end of the connection, since the server still works on it
 * @orphan_replies: replies that came for orphans: consumed and discarded
 *	(not in @bad_keys or @dup_replies), the credit returned with them
 * @orphans_expired: orphans whose deadline passed without a reply: their
 *	credits returned as timeouts
 */
struct lx_xprt_stats {
	uint64_t submitted, completed, replies, bad_keys, dup_replies;
	uint64_t sends, send_calls, direct_sends, worker_sends;
	uint64_t retransmits, timeouts, cancels, connects, disconnects;
	uint64_t bytes_sent, bytes_received, direct_rx_bytes;
	uint64_t early_disconnects, not_responding, garbage, resubmits;
	uint64_t zerocopy_sends, zerocopy_completions, zerocopy_copied;
	uint64_t orphans, orphan_replies, orphans_expired;
};

/* Fragments one record may have (RFC 5531 sets no limit; servers send one,
 * or a few of their send size): endless one-byte fragments end here. */
#define LX_XPRT_MAX_FRAGS   8192u

/*
 * A connection lost within this long of being made (or before any reply
 * came back on it) is an early disconnect: the server accepted and then
 * dropped us, which must slow us down as a refused connect does.
 */
#define LX_XPRT_EARLY_MS    5000u

/* Severities of library messages: syslog(3)'s levels, so that a hook can
 * hand them to syslog() as they are. */
#define LX_XPRT_LOG_ERR	    3
#define LX_XPRT_LOG_WARNING 4
#define LX_XPRT_LOG_NOTICE  5
#define LX_XPRT_LOG_INFO    6
#define LX_XPRT_LOG_DEBUG   7

/**
 * lx_xprt_log_fn - where the library's messages go
 * @arg: the options' log_arg
 * @level: %LX_XPRT_LOG_WARNING ("server 192.0.2.1:2049 not responding,
 *	still trying"), %LX_XPRT_LOG_NOTICE ("server 192.0.2.1:2049 OK")...
 * @msg: one line without its newline; valid during the call only
 *
 * The library prints nothing itself: without a hook its messages are
 * dropped.  Runs on a library thread (a receive thread, a transmit
 * worker) or on the caller's, possibly on several at once; messages are
 * rare (one per episode), but the hook must not block for long and must
 * not call back into the library.
 */
typedef void (*lx_xprt_log_fn)(void *arg, int level, const char *msg);

/**
 * enum lx_xprt_mode - who runs a client's I/O, fixed when it is created
 * @LX_XPRT_MODE_THREADED: the default (zeroed options): each connection
 *	has a receive thread and a transmit worker; done() runs on them;
 *	any thread may call
 * @LX_XPRT_MODE_CALLER: caller-driven: the library starts no thread.
 *	The client belongs to one owner thread, which waits on
 *	lx_xprt_loop_fd() (or the client's lx_rpc_loop_fd(),
 *	lx_nfs3_loop_fd(), lx_p9_loop_fd()) and calls the service function
 *	when it is readable; sends, receives, timers, retransmissions and
 *	reconnection happen inside that call, and done() runs there.  See
 *	docs/api.md, "Driving libxprt from your own loop".  TCP only for
 *	now: an RDMA client in this mode fails to create with %-EOPNOTSUPP.
 *
 * Across fork(), in either mode: a client belongs to the process that
 * created it.  In a child, one inherited from the parent refuses every
 * call (the loop calls included) with %-ECHILD, without touching the
 * parent's connection, and its destroy only frees the child's copy of
 * its memory and closes its descriptors (no shutdown(2), no thread
 * joined, no verbs call, no byte sent); a client made in the child
 * works.  See docs/api.md, "Across fork()".
 */
enum lx_xprt_mode {
	LX_XPRT_MODE_THREADED = 0,
	LX_XPRT_MODE_CALLER = 1,
};

/**
 * lx_xprt_loop_fd() - the descriptor a caller-driven transport's owner
 * waits on
 * @x: a transport created with %LX_XPRT_MODE_CALLER
 *
 * One descriptor for everything the transport waits for: an epoll set
 * holding its socket, an eventfd (cancels queued from other threads,
 * work a call left to the loop) and a timerfd armed at the next deadline
 * (a retransmission, a call's timeout, a reconnection's backoff, a
 * JUKEBOX retry), so it becomes readable at that deadline with no I/O
 * at all.  Put it in poll(), epoll or any event loop, for
 * lx_xprt_loop_events(), and call lx_xprt_loop_service() when it is
 * ready.  It stays the same for the transport's life, across
 * reconnections; the library closes it at lx_xprt_destroy().
 * Context: any thread; no locks.
 * Return: the descriptor (>= 0); %-EINVAL for a threaded transport;
 * %-ECHILD in a child of the process that created @x (the descriptor
 * it inherited is the parent's epoll set).
 */
int lx_xprt_loop_fd(const struct lx_xprt *x);

/**
 * lx_xprt_loop_events() - the poll(2) events to wait for on
 * lx_xprt_loop_fd()
 * @x: a caller-driven transport
 *
 * Always %POLLIN for now (the descriptor is an epoll set: the socket's
 * writability is watched inside it); call it before each wait all the
 * same, as libnfs's nfs_which_events(), so that a later transport may
 * ask for more.
 * Context: the owner thread.
 * Return: a mask of POLLIN/POLLOUT; 0 for a threaded transport, and in
 * a child of the process that created @x.
 */
unsigned int lx_xprt_loop_events(const struct lx_xprt *x);

/**
 * lx_xprt_loop_service() - do whatever is due on a caller-driven transport
 * @x: a caller-driven transport
 * @revents: what poll() reported for lx_xprt_loop_fd() (0 is fine: the
 *	transport looks for itself, without blocking)
 *
 * Runs queued cancels, reads and places every reply the socket holds,
 * sends what is queued (as far as the socket and the credits allow),
 * fires due timers (timeouts, retransmissions), replaces a lost
 * connection once its backoff has passed, and re-arms the descriptor's
 * timer for the next deadline.  done() callbacks run inside this call,
 * on the calling thread.  Never waits for the network, except a
 * reconnection attempt: its connect() waits up to the options'
 * connect_timeout_ms (a server that is down refuses at once; one that
 * does not answer the handshake holds the loop that long).
 * Context: the owner thread only (the thread that created @x or last
 * serviced it); not from a done() callback.
 * Return: the number of requests it completed (0 or more): the calls
 * whose done() it ran, and the library's own (a 9P Tflush, the pieces of
 * a split NFSv3 I/O, which complete their call with the last); %-EINVAL
 * for a threaded transport; %-ECHILD in a child of the process that
 * created @x.
 */
int lx_xprt_loop_service(struct lx_xprt *x, unsigned int revents);

struct lx_call;

/**
 * lx_xprt_loop_run() - wait and service a caller-driven transport until
 * a condition holds, for programs without an event loop
 * @x: a caller-driven transport
 * @until: when not NULL, return once this call's done() has run (a call
 *	started on @x that has not completed yet)
 * @min_done: when not 0, return once this many requests completed (as
 *	lx_xprt_loop_service() counts them)
 * @deadline_ns: when not 0, return -ETIMEDOUT at this CLOCK_MONOTONIC
 *	time (nanoseconds) if nothing else ended the wait
 *
 * Waits on lx_xprt_loop_fd() and calls lx_xprt_loop_service() until the
 * first of the conditions given holds.  With neither @until nor
 * @min_done it returns once no call is in flight.
 * Context: the owner thread; not from a done() callback; blocks.
 * Return: the number of requests completed; %-ETIMEDOUT at
 * @deadline_ns; %-EINVAL for a threaded transport; %-ECHILD in a child
 * of the process that created @x.
 */
int lx_xprt_loop_run(struct lx_xprt *x, struct lx_call *until,
		     unsigned int min_done, uint64_t deadline_ns);

/** lx_xprt_state() - the connection state now */
enum lx_xprt_state lx_xprt_state(const struct lx_xprt *x);

/** lx_xprt_pool() - the transport's buffer pool */
struct lx_xprt_pool *lx_xprt_pool(const struct lx_xprt *x);

/** lx_xprt_max_reqs() - request slots of @x */
unsigned int lx_xprt_max_reqs(const struct lx_xprt *x);

/** lx_xprt_stats() - snapshot of the counters */
void lx_xprt_stats(const struct lx_xprt *x, struct lx_xprt_stats *st);

/**
 * lx_xprt_disconnect() - drop the connection now (tests, fault injection);
 * the worker reconnects with backoff once a call is waiting (TCP; RDMA
 * reconnects whether or not one is).  Does nothing in a child of the
 * process that created @x (the connection is the parent's).
 */
void lx_xprt_disconnect(struct lx_xprt *x);

/** lx_xprt_peer() - "host:port" of the peer, for messages */
const char *lx_xprt_peer(const struct lx_xprt *x);

/**
 * lx_xprt_stats_explain() - what a transport saw, in words, for messages
 * @st: its counters (or several transports' added up)
 * @buf, @len: where the text goes (NUL-terminated, truncated)
 *
 * "3 connections, 3 closed by the server before any reply; 12 records
 * that were not replies; 0 replies": what a user needs to tell a dead
 * server from one that is not what they think.
 * Return: @buf.
 */
char *lx_xprt_stats_explain(const struct lx_xprt_stats *st, char *buf,
			    size_t len);

/**
 * lx_xprt_memlock_explain() - why an RDMA registration failed, if it is
 * the locked-memory limit
 * @err: the negative errno the registration (or creating an RDMA
 *	transport, or lx_xprt_rdma_mem_register()) returned
 * @need: bytes the caller was registering, 0 if unknown
 * @buf, @len: where the sentence goes (NUL-terminated, truncated)
 *
 * A user without CAP_IPC_LOCK may pin only RLIMIT_MEMLOCK bytes; past it
 * ibv_reg_mr() fails -ENOMEM (or -EPERM, -EAGAIN).  For those errors and
 * a finite limit, writes "RDMA memory registration failed (...):
 * RLIMIT_MEMLOCK (ulimit -l) is N KiB, M KiB locked already; this
 * transport registers about K KiB: raise it (...)".  Any thread.
 * Return: the sentence's length; 0 (and @buf "") when the limit cannot
 * be the cause.
 */
size_t lx_xprt_memlock_explain(int err, size_t need, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_XPRT_H */
