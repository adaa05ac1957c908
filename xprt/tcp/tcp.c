// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TCP transport.
 *
 * Sending: the transmit engine hands over a batch of requests; they go out
 * in one sendmsg() (marker, header buffer and payload segments of each, as
 * one gather list), non-blocking.  What the socket did not take is resumed
 * by the transmit worker when poll() reports space.
 *
 * Receiving: one thread per transport sleeps in epoll on the socket, an
 * eventfd (new connection, earlier timer, stop) and the earliest request
 * deadline, and runs the receive state machine of tcp_rx.c on what the
 * socket has: markers, reply keys, header bytes into the request's
 * receive buffer, bulk data straight into the caller's memory.
 *
 * Synchronous callers receive their own replies.  A thread waiting for
 * its reply (lx_xprt_req_done_wait() on a request marked will_wait) takes
 * the receiver role if it is free, takes the socket out of the receive
 * thread's epoll set and reads replies itself - its own and any other -
 * until its reply is in.  Each call then costs send, poll and recv on
 * one thread, as with a blocking client, instead of waking the receive
 * thread and then the caller (two context switches).  The socket goes
 * back to the receive thread as soon as other requests are in flight, or
 * an asynchronous submit asks for it; purely synchronous traffic never
 * touches epoll again.
 *
 * MSG_ZEROCOPY (opts.zerocopy, tcp_zc.h): a large send may leave the
 * caller's pages to the kernel until it reports the send on the error
 * queue; its request is held until then.  The reports are read by the
 * receive thread (EPOLLERR), a synchronous caller whose reply is in, the
 * worker waiting for room, and the reaper of a dead connection.
 *
 * Connection changes: the transmit worker connects a socket and publishes
 * it; the receive thread adopts it.  When a connection fails the receive
 * thread detaches from it (unpinning a half-received request) and only
 * then does the worker close the descriptor, so a descriptor number is
 * never reused under a reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "xprt/tcp/tcp_rx.h"
#include "xprt/tcp/tcp_zc.h"

#define TCP_IOV_PER_REQ	 (2 + LX_XPRT_REQ_MAX_TX_SEGS)
#define TCP_REAP_WAIT_NS 2000000000ull

/* A reply whose request has given up on it, and whose next byte has not
 * come for this long, means the peer is gone: drop the connection. */
#define TCP_RX_STALL_NS	 1000000000ull

/* How often a synchronous caller receiving its own reply looks up from
 * its blocking recv() (SO_RCVTIMEO): for a cancel, a stall */
#define TCP_WAIT_POLL_MS 10

struct tcp_tp {
	struct sockaddr_storage addr;
	socklen_t addrlen;

	pthread_mutex_t lock; /* fd, fd_cookie, rx_fd, rx_cookie */
	pthread_cond_t cond;
	int fd;		    /* current connection, -1 if none */
	uint32_t fd_cookie; /* its connect cookie */
	int rx_fd;	    /* what the receive thread watches, -1 if none */
	uint32_t rx_cookie; /* last connection the receive thread adopted */
	bool rx_detached;   /* it let go of rx_cookie's connection */

	int epfd, evfd;
	pthread_t rx_thread;
	bool rx_started;
	atomic_bool stop;

	/* The receiver role: whoever holds rx_mtx runs the receive state
	 * machine (rx, rx_fd's epoll registration): the receive thread, or a
	 * synchronous caller waiting for its own reply (tcp_wait). */
	struct lx_xprt_lock rx_mtx;
	atomic_bool fd_armed;	 /* rx_fd is in the epoll set (under rx_mtx) */
	atomic_bool arm_wanted;	 /* someone needs the receive thread to
				  * read: arm rx_fd (see role_release) */
	atomic_bool rx_deferred; /* the receive thread found the role taken */
	struct lx_xprt_tcp_rx rx;

	struct lx_xprt_tcp_zc zc; /* MSG_ZEROCOPY (opts.zerocopy) */

	/* caller-driven mode (x->loop): epfd is the loop descriptor, with
	 * this timerfd in it; the owner thread's alone */
	int tfd;
	uint64_t tfd_at; /* what it is armed to, 0: nothing (or fired) */
	bool out_armed;	 /* rx_fd is watched for EPOLLOUT too */
};

static struct tcp_tp *tp_of(struct lx_xprt *x)
{
	return x->tp;
}

/* ------------------------------------------------------------ helpers */

static void tcp_kick_rx(struct lx_xprt *x)
{
	struct tcp_tp *tp = tp_of(x);
	uint64_t one = 1;

	if (write(tp->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		lx_xprt_log(x, LX_XPRT_LOG_ERR,
			    "libxprt: %s: eventfd write: %s", x->peer,
			    strerror(errno));
}

/* ----------------------------------------------------------- zerocopy */

/*
 * Read @fd's zerocopy reports and complete the requests they free; @fd
 * stays open meanwhile (the caller holds the receiver role, or is the
 * worker).  No lock held.  Return: reports read.
 */
static int zc_reap(struct lx_xprt *x, int fd)
{
	struct tcp_tp *tp = tp_of(x);
	int got = lx_xprt_tcp_zc_read(x, &tp->zc, fd);

	if (got)
		lx_xprt_tcp_zc_release(&tp->zc, false);
	return got;
}

/*
 * The receive thread saw EPOLLERR on @fd: zerocopy reports, most likely,
 * or reports another thread read meanwhile.  It may not hold the receiver
 * role (a synchronous caller may), so the descriptor is checked under
 * tp->lock, which the reaper closes it under.  Return: true when it is a
 * socket error after all (or not the current connection's descriptor:
 * the caller's checks decide then).
 */
static bool zc_event_is_error(struct lx_xprt *x, int fd)
{
	struct tcp_tp *tp = tp_of(x);
	socklen_t sl = sizeof(int);
	int got = 0, soerr = 0;
	bool error = true;

	pthread_mutex_lock(&tp->lock);
	if (fd == tp->fd) {
		got = lx_xprt_tcp_zc_read(x, &tp->zc, fd);
		/* nothing queued: a real error pending (sk_err), or none */
		error = !got &&
			(getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) ||
			 soerr);
	}
	pthread_mutex_unlock(&tp->lock);
	if (got)
		lx_xprt_tcp_zc_release(&tp->zc, false);
	return error;
}

/* ------------------------------------------------------------ connect */

static int tcp_connect_fd(struct lx_xprt *x, int *fdp)
{
	struct tcp_tp *tp = tp_of(x);
	struct pollfd pfd;
	socklen_t sl = sizeof(int);
	int fd, one = 1, soerr = 0, r;

	fd = socket(tp->addr.ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!x->opts.no_nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&tp->addr, tp->addrlen) < 0) {
		if (errno == ECONNRESET)
			goto connected; /* see below */
		if (errno != EINPROGRESS) {
			r = -errno;
			goto out_close;
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			r = poll(&pfd, 1, (int)x->opts.connect_timeout_ms);
		} while (r < 0 && errno == EINTR);
		if (r == 0) {
			r = -ETIMEDOUT;
			goto out_close;
		}
		if (r < 0) {
			r = -errno;
			goto out_close;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		/* ECONNRESET: the handshake completed (a refused SYN is
		 * ECONNREFUSED) and the server reset the connection since,
		 * before or after we looked, depending on the scheduler.
		 * The connect succeeded either way: the receive thread
		 * finds the socket closed and the reconnect machinery, which
		 * counts it as an early disconnect and backs off, takes
		 * over.  Creating the transport thus succeeds whenever the
		 * server accepted, whatever the timing. */
		if (soerr && soerr != ECONNRESET) {
			r = -soerr;
			goto out_close;
		}
	}
connected:
	/* Blocking from here on, with a receive timeout: every read and
	 * send of the receive thread, the transmitter and the caller-driven
	 * service says MSG_DONTWAIT, and a synchronous caller's recv()
	 * blocks for its reply, ending every TCP_WAIT_POLL_MS (tcp_wait(),
	 * in caller-driven mode when its call is alone: loop.c). */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
		       &(struct timeval){.tv_usec = TCP_WAIT_POLL_MS * 1000},
		       sizeof(struct timeval)) < 0) {
		r = -errno;
		goto out_close;
	}
	*fdp = fd;
	return 0;

out_close:
	close(fd);
	return r;
}

static int tcp_connect(struct lx_xprt *x, uint32_t cookie)
{
	struct tcp_tp *tp = tp_of(x);
	int fd = -1, err;

	err = tcp_connect_fd(x, &fd);
	if (err)
		return err;
	pthread_mutex_lock(&tp->lock);
	if (x->opts.zerocopy)
		lx_xprt_tcp_zc_connected(x, &tp->zc, fd);
	tp->fd = fd;
	tp->fd_cookie = cookie;
	tp->rx_detached = false;
	pthread_mutex_unlock(&tp->lock);
	tcp_kick_rx(x);
	return 0;
}

static void tcp_shutdown(struct lx_xprt *x)
{
	struct tcp_tp *tp = tp_of(x);

	pthread_mutex_lock(&tp->lock);
	if (tp->fd >= 0)
		shutdown(tp->fd, SHUT_RDWR);
	pthread_mutex_unlock(&tp->lock);
	tcp_kick_rx(x);
}

/* Worker, no lock held: close the dead socket once the receive thread
 * has let go of it. */
static void tcp_reap(struct lx_xprt *x)
{
	struct tcp_tp *tp = tp_of(x);
	uint64_t deadline = lx_xprt_now_ns() + TCP_REAP_WAIT_NS;
	struct timespec ts = lx_xprt_ns_to_timespec(deadline);
	bool closed = false;

	pthread_mutex_lock(&tp->lock);
	if (tp->fd >= 0) {
		shutdown(tp->fd, SHUT_RDWR);
		while (tp->rx_fd == tp->fd && tp->rx_started &&
		       !atomic_load(&tp->stop)) {
			if (pthread_cond_timedwait(&tp->cond, &tp->lock, &ts) ==
			    ETIMEDOUT)
				break;
		}
		if (tp->rx_fd != tp->fd) {
			if (tp->zc.on)
				lx_xprt_tcp_zc_drain(x, &tp->zc, tp->fd);
			close(tp->fd);
			tp->fd = -1;
			closed = true;
		}
	}
	pthread_mutex_unlock(&tp->lock);
	if (closed && tp->zc.on)
		lx_xprt_tcp_zc_release(&tp->zc, true);
}

/* --------------------------------------------------------------- send */

/* The whole message: marker, header buffer, payload. */
static inline unsigned int tcp_whole_iov(struct lx_xprt_rqst *rq,
					 struct iovec *iov)
{
	unsigned int n = 0, i;

	if (rq->marker_len) {
		iov[n].iov_base = rq->marker;
		iov[n++].iov_len = rq->marker_len;
	}
	iov[n].iov_base = rq->pub.sbuf->data;
	iov[n++].iov_len = rq->pub.sbuf->len;
	for (i = 0; i < rq->pub.nr_tx_segs; i++)
		iov[n++] = rq->pub.tx_segs[i];
	return n;
}

static unsigned int tcp_fill_iov(struct lx_xprt_rqst *rq, struct iovec *iov)
{
	struct iovec seg[TCP_IOV_PER_REQ];
	unsigned int nseg, n = 0, i;
	size_t skip = rq->tx_done;

	if (lx_xprt_likely(!skip))
		return tcp_whole_iov(rq, iov);
	nseg = tcp_whole_iov(rq, seg);
	for (i = 0; i < nseg; i++) {
		if (skip >= seg[i].iov_len) {
			skip -= seg[i].iov_len;
			continue;
		}
		iov[n].iov_base = (char *)seg[i].iov_base + skip;
		iov[n++].iov_len = seg[i].iov_len - skip;
		skip = 0;
	}
	return n;
}

/* One whole request (the direct send of an idle connection): the same
 * gathered sendmsg() as tcp_send()'s, without its batch bookkeeping. */
static int tcp_send_one(int fd, struct lx_xprt_rqst *rq, unsigned int *nsent)
{
	struct iovec iov[TCP_IOV_PER_REQ];
	struct msghdr msg = {.msg_iov = iov};
	ssize_t w;

	msg.msg_iovlen = tcp_whole_iov(rq, iov);
	do {
		w = lx_xprt_sys_sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (w < 0 && errno == EINTR);
	if (w < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	if (lx_xprt_unlikely((size_t)w < rq->tx_total)) {
		rq->tx_done = (size_t)w;
		return -EAGAIN;
	}
	rq->tx_done = rq->tx_total;
	*nsent = 1;
	return 0;
}

/*
 * tcp_send()'s sendmsg() on a connection with SO_ZEROCOPY: MSG_ZEROCOPY
 * when the batch is worth it (tcp_zc.h), its requests then held.  Return
 * as sendmsg().
 */
__attribute__((noinline)) static ssize_t
tcp_sendmsg_zc(struct lx_xprt *x, struct lx_xprt_rqst **reqs, unsigned int n,
	       const struct msghdr *msg)
{
	struct tcp_tp *tp = tp_of(x);
	int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
	bool zc = lx_xprt_tcp_zc_wanted(x, &tp->zc, reqs, n);
	ssize_t w;

	if (zc)
		flags |= MSG_ZEROCOPY;
	for (;;) {
		w = lx_xprt_sys_sendmsg(tp->fd, msg, flags);
		if (w >= 0 || errno != EINTR) {
			if (w >= 0 || errno != ENOBUFS || !zc)
				break;
			/* no socket option memory for the report: copy */
			zc = false;
			flags &= ~MSG_ZEROCOPY;
		}
	}
	if (zc && w > 0)
		lx_xprt_tcp_zc_sent(x, &tp->zc, reqs, n, (size_t)w);
	return w;
}

static int tcp_send_batch(struct lx_xprt *x, struct tcp_tp *tp,
			  struct lx_xprt_rqst **reqs, unsigned int n,
			  unsigned int *nsent)
{
	struct iovec iov[LX_XPRT_XMIT_BATCH * TCP_IOV_PER_REQ];
	struct msghdr msg = {0};
	unsigned int i, niov = 0;
	ssize_t w;
	size_t left;

	for (i = 0; i < n; i++)
		niov += tcp_fill_iov(reqs[i], iov + niov);
	msg.msg_iov = iov;
	msg.msg_iovlen = niov;
	if (lx_xprt_unlikely(tp->zc.on)) {
		w = tcp_sendmsg_zc(x, reqs, n, &msg);
	} else {
		do {
			w = lx_xprt_sys_sendmsg(tp->fd, &msg,
						MSG_DONTWAIT | MSG_NOSIGNAL);
		} while (w < 0 && errno == EINTR);
	}
	if (w < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;

	for (i = 0; i < n; i++) {
		left = reqs[i]->tx_total - reqs[i]->tx_done;
		if ((size_t)w < left) {
			reqs[i]->tx_done += (size_t)w;
			break;
		}
		w -= (ssize_t)left;
		reqs[i]->tx_done = reqs[i]->tx_total;
		(*nsent)++;
	}
	return *nsent == n ? 0 : -EAGAIN;
}

static int tcp_send(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		    unsigned int n, unsigned int *nsent, bool more)
{
	struct tcp_tp *tp = tp_of(x);

	(void)more; /* one gathered send replaces corking */
	*nsent = 0;
	if (tp->fd < 0)
		return -ENOTCONN;
	if (n == 1 && !reqs[0]->tx_done && lx_xprt_likely(!tp->zc.on))
		return tcp_send_one(tp->fd, reqs[0], nsent);
	return tcp_send_batch(x, tp, reqs, n, nsent);
}

static void tcp_wait_writable(struct lx_xprt *x, int timeout_ms)
{
	struct tcp_tp *tp = tp_of(x);
	struct pollfd pfd = {.fd = tp->fd, .events = POLLOUT};

	if (pfd.fd < 0)
		return;
	/* zerocopy reports make the socket POLLERR until read: read them
	 * (the worker owns the descriptor), or this would not sleep */
	if (poll(&pfd, 1, timeout_ms) > 0 && (pfd.revents & POLLERR) &&
	    tp->zc.on)
		zc_reap(x, pfd.fd);
}

/* ------------------------------------------------------------ receive */

/*
 * A reply stopped half-way while its request has already been failed (a
 * timeout, a cancel): the request stays pinned, and the stream cannot move
 * past the message, until the rest arrives.  If nothing arrives for
 * TCP_RX_STALL_NS the peer is taken as gone.  Receiver role held.
 * Return: true when the connection should be dropped.
 */
static bool rx_stalled(struct lx_xprt_tcp_rx *rx)
{
	return lx_xprt_tcp_rx_stalled(rx, TCP_RX_STALL_NS);
}

/* Adopt a newly published connection, if any. */
static void rx_adopt(struct lx_xprt *x, struct tcp_tp *tp, uint32_t *cookie)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};

	pthread_mutex_lock(&tp->lock);
	if (tp->fd >= 0 && tp->rx_fd < 0 && tp->fd_cookie != tp->rx_cookie) {
		ev.data.fd = tp->fd;
		if (epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->fd, &ev) == 0) {
			tp->rx_fd = tp->fd;
			tp->rx_cookie = tp->fd_cookie;
			atomic_store(&tp->fd_armed, true);
			*cookie = tp->fd_cookie;
		}
	}
	pthread_mutex_unlock(&tp->lock);
}

static void rx_arm_set(struct tcp_tp *tp, bool on)
{
	struct epoll_event ev = {.events = on ? EPOLLIN | EPOLLRDHUP : 0};

	ev.data.fd = tp->rx_fd;
	if (epoll_ctl(tp->epfd, EPOLL_CTL_MOD, tp->rx_fd, &ev) == 0) {
		atomic_store(&tp->fd_armed, on);
		tp->out_armed = false; /* caller-driven: EPOLLOUT went too */
	}
}

/* Receiver role held: (dis)arm rx_fd in the receive thread's epoll set
 * (the look inline: a synchronous caller finds it as it wants it). */
static inline void rx_arm(struct tcp_tp *tp, bool on)
{
	if (tp->rx_fd >= 0 && atomic_load(&tp->fd_armed) != on)
		rx_arm_set(tp, on);
}

static void rx_detach(struct lx_xprt *x, struct tcp_tp *tp, int err)
{
	lx_xprt_conn_lost(x, tp->rx_cookie, err);
	lx_xprt_tcp_rx_reset(x, &tp->rx);
	pthread_mutex_lock(&tp->lock);
	epoll_ctl(tp->epfd, EPOLL_CTL_DEL, tp->rx_fd, NULL);
	tp->rx_fd = -1;
	atomic_store(&tp->fd_armed, false);
	tp->rx_detached = true;
	pthread_cond_broadcast(&tp->cond);
	pthread_mutex_unlock(&tp->lock);
}

/*
 * Let go of the receiver role.  Whoever needs the socket armed for the
 * receive thread (an async submit, a synchronous caller that could not
 * take the role) sets arm_wanted and then tries the role; when that try
 * fails, the holder must act on the flag, and it may have been set after
 * the holder last looked.  So every holder looks again after unlocking,
 * and takes the role once more to arm: of the holders that let go after
 * the flag was set, the last one sees it.  Without this, a reply could
 * sit in the socket with nobody reading it until the next timer (the
 * request's retransmission, 60 s by default).
 */
static inline void role_release(struct tcp_tp *tp)
{
	lx_xprt_unlock(&tp->rx_mtx);
	while (atomic_load(&tp->arm_wanted) && lx_xprt_lock_try(&tp->rx_mtx)) {
		if (atomic_exchange(&tp->arm_wanted, false))
			rx_arm(tp, true);
		lx_xprt_unlock(&tp->rx_mtx);
	}
}

static void *tcp_rx_main(void *arg)
{
	struct lx_xprt *x = arg;
	struct tcp_tp *tp = tp_of(x);
	struct epoll_event evs[4];
	uint32_t cookie = 0;
	bool mid_msg;
	int i, n, err;

	while (!atomic_load(&tp->stop)) {
		uint64_t next, now;
		int timeout = -1;

		/* Never block on the receiver role: a caller holding it may be
		 * waiting for a retransmission only our timers will make.  It
		 * kicks us when it lets go (rx_deferred). */
		mid_msg = false;
		if (lx_xprt_lock_try(&tp->rx_mtx)) {
			atomic_store(&tp->rx_deferred, false);
			rx_adopt(x, tp, &cookie);
			if (atomic_exchange(&tp->arm_wanted, false))
				rx_arm(tp, true);
			if (tp->rx_fd >= 0 && rx_stalled(&tp->rx))
				rx_detach(x, tp, -ETIMEDOUT);
			mid_msg = tp->rx.in_msg;
			role_release(tp);
		} else {
			atomic_store(&tp->rx_deferred, true);
		}
		next = lx_xprt_timer_next(x);
		if (next) {
			now = lx_xprt_now_ns();
			timeout =
				next <= now ?
					0 :
					(int)((next - now + 999999) / 1000000);
		}
		if (mid_msg && (timeout < 0 || timeout > 100))
			timeout = 100; /* watch a half-received reply */
		n = epoll_wait(tp->epfd, evs, 4, timeout);
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == tp->evfd) {
				uint64_t v;

				if (read(tp->evfd, &v, sizeof(v)) < 0)
					continue;
				continue;
			}
			/* zerocopy reports (EPOLLERR, even while disarmed):
			 * read whoever holds the role; a real socket error
			 * leaves nothing to read and goes on as one */
			if (lx_xprt_unlikely(evs[i].events & EPOLLERR) &&
			    x->opts.zerocopy &&
			    !zc_event_is_error(x, evs[i].data.fd)) {
				evs[i].events &= ~(uint32_t)EPOLLERR;
				if (!(evs[i].events &
				      (EPOLLIN | EPOLLRDHUP | EPOLLHUP)))
					continue;
			}
			if (!lx_xprt_lock_try(&tp->rx_mtx)) {
				atomic_store(&tp->rx_deferred, true);
				continue; /* a caller receives (and disarms) */
			}
			if (evs[i].data.fd != tp->rx_fd) {
				role_release(tp);
				continue;
			}
			lx_xprt_rx_batch_begin(x);
			err = lx_xprt_tcp_rx_read(x, &tp->rx, tp->rx_fd);
			lx_xprt_rx_batch_end(x);
			if (!err && (evs[i].events & (EPOLLHUP | EPOLLERR)))
				err = -ECONNRESET;
			if (err)
				rx_detach(x, tp, err);
			role_release(tp);
		}
		lx_xprt_timer_run(x);
	}
	lx_xprt_lock(&tp->rx_mtx);
	if (tp->rx_fd >= 0)
		rx_detach(x, tp, -ESHUTDOWN);
	lx_xprt_unlock(&tp->rx_mtx);
	return NULL;
}

/* An asynchronous request went out and rx_fd is not armed: someone must
 * be receiving.  Out of line, so that tcp_submitted()'s common return
 * saves no registers. */
static __attribute__((noinline)) void tcp_submitted_arm(struct tcp_tp *tp)
{
	atomic_store(&tp->arm_wanted, true);
	if (lx_xprt_lock_try(&tp->rx_mtx)) {
		if (atomic_exchange(&tp->arm_wanted, false))
			rx_arm(tp, true);
		role_release(tp);
	}
	/* else the role's holder arms it when it lets go */
}

/* A request was submitted (before it is sent): its reply's size hint;
 * for an asynchronous one, someone must be receiving. */
static void tcp_submitted(struct lx_xprt *x, struct lx_xprt_rqst *rq)
{
	struct tcp_tp *tp = tp_of(x);

	lx_xprt_tcp_rx_hint(&tp->rx, rq->pub.rx_hint);
	if (rq->pub.will_wait || atomic_load(&tp->fd_armed))
		return;
	tcp_submitted_arm(tp);
}

static bool rq_done(struct lx_xprt_rqst *rq)
{
	return atomic_load(&rq->done_futex) == LX_XPRT_DONE;
}

/*
 * A synchronous caller waits for @rq: receive ourselves if nobody else
 * does (see the top of this file).  Return 0 once done() has run,
 * -ETIMEDOUT at @deadline (0: none), or -EAGAIN to fall back to sleeping
 * until someone else completes it.
 */
static int tcp_wait(struct lx_xprt *x, struct lx_xprt_rqst *rq,
		    uint64_t deadline)
{
	struct tcp_tp *tp = tp_of(x);
	struct pollfd pfd = {.events = POLLIN};
	int err = 0, r, fd;

	if (!lx_xprt_lock_try(&tp->rx_mtx)) {
		/* someone holds the role; make sure the socket is watched
		 * once they let go, since we will only sleep */
		atomic_store(&tp->arm_wanted, true);
		if (!lx_xprt_lock_try(&tp->rx_mtx))
			return -EAGAIN;
	}
	if (tp->rx_fd < 0) {
		atomic_store(&tp->arm_wanted, true);
		role_release(tp);
		return -EAGAIN;
	}
	rx_arm(tp, false);
	fd = pfd.fd = tp->rx_fd;
	/*
	 * One blocking recv() per round: it returns with the reply, or
	 * after the socket's receive timeout (TCP_WAIT_POLL_MS), when we
	 * look for a cancel, a deadline and a stalled reply.  Only a
	 * deadline closer than that polls, to end on time.
	 */
	while (!rq_done(rq)) {
		if (lx_xprt_unlikely(deadline)) {
			uint64_t now = lx_xprt_now_ns();
			int ms;

			if (now >= deadline) {
				err = -ETIMEDOUT;
				break;
			}
			if (deadline - now < TCP_WAIT_POLL_MS * 1000000ull) {
				ms = (int)((deadline - now + 999999) / 1000000);
				if (poll(&pfd, 1, ms) <= 0)
					continue;
			}
		}
		if (atomic_load(&tp->stop))
			break;
		if (lx_xprt_unlikely(x->opts.zerocopy) &&
		    (rq_flags(atomic_load(&rq->st)) & (RQ_ZC | RQ_OUTCOME)) ==
			    (RQ_ZC | RQ_OUTCOME)) {
			/* the reply is in, the kernel still holds the
			 * call's memory (MSG_ZEROCOPY): read its report if
			 * it is there, else sleep until the receive thread
			 * reads it (EPOLLERR, which it sees disarmed too) */
			zc_reap(x, fd);
			if (rq_done(rq))
				break;
			err = -EAGAIN;
			break;
		}
		lx_xprt_rx_batch_begin(x);
		r = lx_xprt_tcp_rx_read_wait(x, &tp->rx, fd);
		lx_xprt_rx_batch_end(x);
		if (!r && rx_stalled(&tp->rx)) {
			rx_detach(x, tp, -ETIMEDOUT);
			err = -EAGAIN;
			break;
		}
		if (r) {
			rx_detach(x, tp, r);
			err = -EAGAIN; /* resent after the reconnect */
			break;
		}
	}
	/* hand the socket back if anything else may wait for a reply: more
	 * requests were submitted than completed (ours is counted complete
	 * before done() runs; one submitted after this look arms the socket
	 * itself, tcp_submitted()) */
	if (atomic_load_explicit(&x->stats.submitted, memory_order_relaxed) !=
		    atomic_load_explicit(&x->stats.completed,
					 memory_order_relaxed) ||
	    atomic_load(&tp->arm_wanted)) {
		atomic_store(&tp->arm_wanted, false);
		rx_arm(tp, true);
	}
	role_release(tp);
	if (atomic_exchange(&tp->rx_deferred, false))
		tcp_kick_rx(x);
	return rq_done(rq) ? 0 : err;
}

/* ------------------------------------------------ caller-driven mode */

/*
 * The loop descriptor is the receive thread's epoll set (the socket, the
 * eventfd) plus a timerfd; the owner's service reads what it reports
 * here, as tcp_rx_main() would (see xprt/core/loop.c).
 */
static uint64_t tcp_loop_poll(struct lx_xprt *x, int wait_ms)
{
	struct tcp_tp *tp = tp_of(x);
	struct epoll_event evs[4];
	uint32_t cookie, sock = 0;
	uint64_t v, next = 0;
	int i, n, err;

	/* a connection the owner made since the last look (only the owner
	 * connects): watched from now, so that a wait below wakes for its
	 * replies */
	if (tp->rx_fd < 0) {
		lx_xprt_lock(&tp->rx_mtx);
		rx_adopt(x, tp, &cookie);
		tp->out_armed = false; /* a new socket, EPOLLIN only */
		lx_xprt_unlock(&tp->rx_mtx);
	} else if (!atomic_load_explicit(&tp->fd_armed, memory_order_relaxed)) {
		/* a synchronous call's own wait left it unwatched */
		lx_xprt_lock(&tp->rx_mtx);
		rx_arm(tp, true);
		lx_xprt_unlock(&tp->rx_mtx);
	}
	n = epoll_wait(tp->epfd, evs, 4, wait_ms);
	for (i = 0; i < n; i++) {
		if (evs[i].data.fd == tp->evfd) {
			if (read(tp->evfd, &v, sizeof(v)) < 0)
				continue;
		} else if (evs[i].data.fd == tp->tfd) {
			tp->tfd_at = 0; /* fired: arm again */
			if (read(tp->tfd, &v, sizeof(v)) < 0)
				continue;
		} else if (evs[i].data.fd == tp->rx_fd) {
			sock |= evs[i].events;
		}
	}
	lx_xprt_lock(&tp->rx_mtx); /* never contended: one thread */
	/* a connection the core declared lost (a send failed, a
	 * disconnect): let go of it, so that it can be reaped */
	if (tp->rx_fd >= 0 && atomic_load(&x->state) != LX_XPRT_CONNECTED)
		rx_detach(x, tp, -ECONNRESET);
	if (tp->rx_fd >= 0 &&
	    (sock & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
		lx_xprt_rx_batch_begin(x);
		err = lx_xprt_tcp_rx_read(x, &tp->rx, tp->rx_fd);
		lx_xprt_rx_batch_end(x);
		if (!err && (sock & (EPOLLHUP | EPOLLERR)))
			err = -ECONNRESET;
		if (err)
			rx_detach(x, tp, err);
	}
	if (tp->rx_fd >= 0 && rx_stalled(&tp->rx))
		rx_detach(x, tp, -ETIMEDOUT);
	if (tp->rx_fd >= 0 && tp->rx.in_msg)
		next = lx_xprt_now_ns() + 100000000ull; /* watch it */
	lx_xprt_unlock(&tp->rx_mtx);
	return next;
}

static void tcp_loop_arm(struct lx_xprt *x, uint64_t deadline, bool want_out)
{
	struct tcp_tp *tp = tp_of(x);
	struct itimerspec its = {0};
	struct epoll_event ev;

	/* a later deadline keeps the earlier one armed: a wake-up that
	 * finds nothing due costs less than a system call per service */
	if (deadline && (!tp->tfd_at || deadline < tp->tfd_at)) {
		its.it_value = lx_xprt_ns_to_timespec(deadline);
		if (timerfd_settime(tp->tfd, TFD_TIMER_ABSTIME, &its, NULL) ==
		    0)
			tp->tfd_at = deadline;
	}
	if (tp->rx_fd >= 0 && want_out != tp->out_armed) {
		ev.events = EPOLLIN | EPOLLRDHUP | (want_out ? EPOLLOUT : 0);
		ev.data.fd = tp->rx_fd;
		if (epoll_ctl(tp->epfd, EPOLL_CTL_MOD, tp->rx_fd, &ev) == 0) {
			tp->out_armed = want_out;
			atomic_store_explicit(&tp->fd_armed, true,
					      memory_order_relaxed);
		}
	}
}

static int tcp_loop_fd(const struct lx_xprt *x)
{
	return ((const struct tcp_tp *)x->tp)->epfd;
}

/* Caller-driven: the timerfd in the loop descriptor, no thread. */
static int tcp_loop_setup(struct tcp_tp *tp)
{
	struct epoll_event ev = {.events = EPOLLIN};

	tp->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tp->tfd < 0)
		return -errno;
	ev.data.fd = tp->tfd;
	if (epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->tfd, &ev) < 0) {
		close(tp->tfd);
		tp->tfd = -1;
		return -errno;
	}
	return 0;
}

/* ----------------------------------------------------------- lifetime */

static int tcp_setup(struct lx_xprt *x)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct tcp_tp *tp;
	int err;

	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	x->tp = tp;
	tp->fd = -1;
	tp->rx_fd = -1;
	tp->tfd = -1;
	err = lx_xprt_tcp_rx_init(&tp->rx);
	if (err)
		goto out_free;
	err = lx_xprt_resolve(x, &tp->addr, &tp->addrlen);
	if (err)
		goto out_stage;
	err = -pthread_mutex_init(&tp->lock, NULL);
	if (err)
		goto out_stage;
	lx_xprt_lock_init(&tp->rx_mtx);
	err = lx_xprt_tcp_zc_init(x, &tp->zc);
	if (err)
		goto out_lock;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		err = -pthread_cond_init(&tp->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (err)
		goto out_zc_lock;
	tp->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tp->epfd < 0) {
		err = -errno;
		goto out_cond;
	}
	tp->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tp->evfd < 0) {
		err = -errno;
		goto out_epoll;
	}
	ev.data.fd = tp->evfd;
	if (epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->evfd, &ev) < 0) {
		err = -errno;
		goto out_evfd;
	}
	if (x->loop) {
		err = tcp_loop_setup(tp);
		if (err)
			goto out_evfd;
		return 0;
	}
	err = -pthread_create(&tp->rx_thread, NULL, tcp_rx_main, x);
	if (err)
		goto out_evfd;
	tp->rx_started = true;
	return 0;

out_evfd:
	close(tp->evfd);
out_epoll:
	close(tp->epfd);
out_cond:
	pthread_cond_destroy(&tp->cond);
out_zc_lock:
	lx_xprt_tcp_zc_fini(&tp->zc);
out_lock:
	pthread_mutex_destroy(&tp->lock);
out_stage:
	lx_xprt_tcp_rx_fini(&tp->rx);
out_free:
	free(tp);
	x->tp = NULL;
	return err;
}

static void tcp_teardown(struct lx_xprt *x)
{
	struct tcp_tp *tp = tp_of(x);

	if (!tp)
		return;
	atomic_store(&tp->stop, true);
	tcp_kick_rx(x);
	if (tp->rx_started) {
		pthread_join(tp->rx_thread, NULL);
	} else if (tp->rx_fd >= 0) {
		/* caller-driven: the owner detaches (a half-received reply
		 * unpinned, its request delivered) */
		lx_xprt_lock(&tp->rx_mtx);
		rx_detach(x, tp, -ESHUTDOWN);
		lx_xprt_unlock(&tp->rx_mtx);
	}
	if (tp->tfd >= 0)
		close(tp->tfd);
	if (tp->fd >= 0) {
		if (tp->zc.on)
			lx_xprt_tcp_zc_drain(x, &tp->zc, tp->fd);
		close(tp->fd);
	}
	/* nothing reads reports any more */
	lx_xprt_tcp_zc_release(&tp->zc, true);
	close(tp->evfd);
	close(tp->epfd);
	pthread_cond_destroy(&tp->cond);
	lx_xprt_tcp_zc_fini(&tp->zc);
	pthread_mutex_destroy(&tp->lock);
	lx_xprt_tcp_rx_fini(&tp->rx);
	free(tp);
	x->tp = NULL;
}

/* See lx_xprt_transport_ops.forget: the parent's socket, epoll set,
 * eventfd and timerfd are closed here only (the epoll set is the
 * parent's too: nothing is removed from it), nothing is drained. */
static void tcp_forget(struct lx_xprt *x)
{
	struct tcp_tp *tp = tp_of(x);

	if (!tp)
		return;
	if (tp->fd >= 0)
		close(tp->fd);
	if (tp->tfd >= 0)
		close(tp->tfd);
	close(tp->evfd);
	close(tp->epfd);
	lx_xprt_tcp_zc_fini(&tp->zc); /* (a mutex destroy never waits) */
	lx_xprt_tcp_rx_fini(&tp->rx);
	free(tp);
	x->tp = NULL;
}

const struct lx_xprt_transport_ops lx_xprt_tcp_ops = {
	.name = "tcp",
	.setup = tcp_setup,
	.connect = tcp_connect,
	.shutdown = tcp_shutdown,
	.reap = tcp_reap,
	.send = tcp_send,
	.wait_writable = tcp_wait_writable,
	.kick_rx = tcp_kick_rx,
	.submitted = tcp_submitted,
	.wait = tcp_wait,
	.teardown = tcp_teardown,
	.forget = tcp_forget,
	.loop_poll = tcp_loop_poll,
	.loop_arm = tcp_loop_arm,
	.loop_fd = tcp_loop_fd,
};
