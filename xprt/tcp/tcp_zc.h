/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MSG_ZEROCOPY sends of the TCP transport (tcp_zc.c, lx_xprt_opts.zerocopy).
 *
 * A send carrying a large payload lets the kernel take the caller's pages
 * instead of copying them.  The kernel then reads them after sendmsg()
 * returned, until the data is acknowledged, and says so on the socket's
 * error queue: each zerocopy sendmsg() that took bytes gets the next
 * number of a per-socket counter (sk_zckey), and a notification reports a
 * range of them done (SO_EE_CODE_ZEROCOPY_COPIED: it copied after all, as
 * loopback always does).  Every request with bytes in such a send is held
 * (RQ_ZC and a reference) until its last send is reported: done() - which
 * hands the memory back to the caller - waits for it as it waits for the
 * transmitter (lx_xprt_try_complete()).
 *
 * Who reads the error queue is tcp.c's business: the receive thread
 * (EPOLLERR, which epoll reports even while the socket is disarmed), a
 * synchronous caller whose reply is in, the worker waiting for room, and
 * the reaper of a dead connection, which gives the kernel a moment and
 * then aborts the connection (RST: the unacknowledged data is dropped,
 * never sent from memory the caller gets back) before the requests go.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_TCP_ZC_H
#define LX_XPRT_TCP_ZC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "xprt/core/xprt_int.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* Zerocopy sends a connection may have unreported at once (the window of
 * lx_xprt_tcp_zc.bits); past it a large send is copied, as without the
 * option */
#define LX_XPRT_TCP_ZC_WINDOW	64u

/* How long a dying connection waits for its reports before it is aborted
 * instead (its requests must not wait for a dead peer) */
#define LX_XPRT_TCP_ZC_DRAIN_MS 200

/**
 * struct lx_xprt_tcp_zc - MSG_ZEROCOPY bookkeeping of the current connection
 * @lock: protects the rest; taken after tp->lock and the transmit lock,
 *	never held while done() may run
 * @on: SO_ZEROCOPY is set on it (written by the worker at connect, before
 *	the connection is published)
 * @next: the number the next zerocopy sendmsg() gets (the kernel's
 *	sk_zckey: 0 on a new socket, one per call that took bytes)
 * @done_below: every send numbered below it is reported
 * @bits: sends done_below .. done_below + 63 reported (bit 0 is
 *	done_below itself: clear until it is)
 * @held: the requests waiting for a report (RQ_ZC, a reference each),
 *	@nheld of them, room for max_reqs (each is held once)
 */
struct lx_xprt_tcp_zc {
	pthread_mutex_t lock;
	bool on;
	uint32_t next;
	uint32_t done_below;
	uint64_t bits;
	struct lx_xprt_rqst **held;
	unsigned int nheld;
};

/**
 * lx_xprt_tcp_zc_init() - set up @zc for @x (its held list only when
 * x->opts.zerocopy asks for zerocopy)
 * Return: %0 or %-ENOMEM, or a pthread error.
 */
int lx_xprt_tcp_zc_init(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc);

/** lx_xprt_tcp_zc_fini() - free it; nothing may be held any more */
void lx_xprt_tcp_zc_fini(struct lx_xprt_tcp_zc *zc);

/**
 * lx_xprt_tcp_zc_connected() - a new connection on @fd: ask for
 * SO_ZEROCOPY and number its sends from 0.  Worker, before publishing
 * @fd; nothing is held (the last connection's reaper released it all).
 */
void lx_xprt_tcp_zc_connected(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			      int fd);

/**
 * lx_xprt_tcp_zc_wanted() - whether the send of @reqs[0..n) should be
 * zerocopy: one of them carries zerocopy_min bytes of payload, and the
 * window of unreported sends has room.  Transmit lock held, @zc->on.
 */
bool lx_xprt_tcp_zc_wanted(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			   struct lx_xprt_rqst **reqs, unsigned int n);

/**
 * lx_xprt_tcp_zc_sent() - a zerocopy sendmsg() took @w bytes (> 0) of
 * @reqs[0..n): it got the next number; hold every request it took bytes
 * of until that is reported.  Transmit lock held, before the transmitter
 * lets go of them (RQ_XMIT).
 */
void lx_xprt_tcp_zc_sent(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			 struct lx_xprt_rqst **reqs, unsigned int n, size_t w);

/**
 * lx_xprt_tcp_zc_read() - read the reports on @fd's error queue
 * @fd: the connection, which must stay open meanwhile (the caller's
 *	business: the receiver role, tp->lock, or the worker's own socket)
 * No lock held.  Return: reports read (0: none queued).
 */
int lx_xprt_tcp_zc_read(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc, int fd);

/**
 * lx_xprt_tcp_zc_release() - complete what the kernel let go of: clear
 * RQ_ZC of every held request whose sends are all reported (@all: every
 * one, the connection is closed) and deliver done() where the outcome is
 * in.  No lock held: done() may submit, cancel, disconnect.
 */
void lx_xprt_tcp_zc_release(struct lx_xprt_tcp_zc *zc, bool all);

/**
 * lx_xprt_tcp_zc_drain() - the connection on @fd is going: give the kernel
 * %LX_XPRT_TCP_ZC_DRAIN_MS to report the sends still out, and abort the
 * connection (SO_LINGER 0) if it has not, so that nothing is sent from
 * memory the caller gets back.  The caller then closes @fd and, with no
 * lock held, calls lx_xprt_tcp_zc_release(@zc, true).  Nobody else reads
 * @fd meanwhile (tp->lock held).
 */
void lx_xprt_tcp_zc_drain(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc, int fd);

#endif /* LX_XPRT_TCP_ZC_H */
