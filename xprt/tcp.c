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
 * deadline.  Bytes are read in large chunks into a staging buffer and fed
 * through a small state machine:
 *
 *   MARK    collect a fragment marker (framing ops: RPC record mark, or the
 *           9P size field that is also the first word of the message)
 *   KEY     collect the first bytes of the message, enough for its key;
 *           look the request up in the reply index and pin it
 *   HEAD    copy bytes into the request's receive buffer until the
 *           protocol's place() hook knows where the bulk data starts
 *   DATA    bulk data goes straight into the caller's memory (rx_data):
 *           from the staging buffer while it has bytes, then with readv()
 *           directly into place, so large READ payloads are read once
 *   PAD     the data's XDR padding is dropped (the decoder sees the same
 *           reduced stream as over RDMA)
 *   TAIL    whatever follows goes into the receive buffer
 *   DISCARD a message nobody waits for (unknown key, late or oversize
 *           reply) is consumed and dropped, keeping the stream in step
 *
 * Small replies therefore cost one recv() for many messages and one copy
 * of their header; large ones one copy of the first staged chunk at most.
 *
 * Synchronous callers receive their own replies.  A thread waiting for
 * its reply (xprt_req_done_wait() on a request marked will_wait) takes
 * the receiver role if it is free, takes the socket out of the receive
 * thread's epoll set and reads replies itself - its own and any other -
 * until its reply is in.  Each call then costs send, poll and recv on
 * one thread, as with a blocking client, instead of waking the receive
 * thread and then the caller (two context switches).  The socket goes
 * back to the receive thread as soon as other requests are in flight, or
 * an asynchronous submit asks for it; purely synchronous traffic never
 * touches epoll again.
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
#include <unistd.h>

#include "xprt_int.h"

#define TCP_STAGE_SIZE	 (64u * 1024)
#define TCP_DIRECT_MIN	 4096u /* read bulk data in place from this size */
#define TCP_MAX_KEY	 16u
#define TCP_IOV_PER_REQ	 (2 + XPRT_REQ_MAX_TX_SEGS)
#define TCP_REAP_WAIT_NS 2000000000ull

enum rx_phase {
	RX_MARK,
	RX_KEY,
	RX_HEAD,
	RX_DATA,
	RX_PAD,
	RX_TAIL,
	RX_DISCARD,
};

struct tcp_rx {
	uint8_t *stage;
	size_t head, tail;
	uint8_t mark[8];
	size_t mark_have;
	size_t frag_left;
	bool frag_last;
	bool in_msg;
	enum rx_phase phase, resume;
	size_t msg_have;  /* message bytes consumed */
	size_t msg_known; /* message bytes announced so far */
	uint8_t key[TCP_MAX_KEY];
	size_t key_have;
	struct xprt_rqst *rq; /* pinned target, NULL while discarding */
	size_t want;	      /* HEAD: bytes wanted in rbuf */
	size_t data_left;     /* DATA: bytes left for rx_data */
	size_t pad_left;      /* PAD: bytes left to drop */
	int err;	      /* outcome to report at the end of the message */
};

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
	pthread_mutex_t rx_mtx;
	atomic_bool fd_armed;	 /* rx_fd is in the epoll set (under rx_mtx) */
	atomic_bool arm_wanted;	 /* someone needs the receive thread to
				  * read: arm rx_fd (see role_release) */
	atomic_bool rx_deferred; /* the receive thread found the role taken */
	struct tcp_rx rx;
};

static struct tcp_tp *tp_of(struct xprt *x)
{
	return x->tp;
}

/* ------------------------------------------------------------ helpers */

static void tcp_kick_rx(struct xprt *x)
{
	struct tcp_tp *tp = tp_of(x);
	uint64_t one = 1;

	if (write(tp->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("libxprt: eventfd write");
}

static int tcp_resolve(struct xprt *x)
{
	struct tcp_tp *tp = tp_of(x);
	struct addrinfo hints = {0}, *res;
	char port[16];
	int r;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", x->opts.port);
	r = getaddrinfo(x->opts.host, port, &hints, &res);
	if (r)
		return r == EAI_SYSTEM ? -errno : -ENOENT;
	memcpy(&tp->addr, res->ai_addr, res->ai_addrlen);
	tp->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* ------------------------------------------------------------ connect */

static int tcp_connect_fd(struct xprt *x, int *fdp)
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
		if (soerr) {
			r = -soerr;
			goto out_close;
		}
	}
	*fdp = fd;
	return 0;

out_close:
	close(fd);
	return r;
}

static int tcp_connect(struct xprt *x, uint32_t cookie)
{
	struct tcp_tp *tp = tp_of(x);
	int fd = -1, err;

	err = tcp_connect_fd(x, &fd);
	if (err)
		return err;
	pthread_mutex_lock(&tp->lock);
	tp->fd = fd;
	tp->fd_cookie = cookie;
	tp->rx_detached = false;
	pthread_mutex_unlock(&tp->lock);
	tcp_kick_rx(x);
	return 0;
}

static void tcp_shutdown(struct xprt *x)
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
static void tcp_reap(struct xprt *x)
{
	struct tcp_tp *tp = tp_of(x);
	uint64_t deadline = xprt_now_ns() + TCP_REAP_WAIT_NS;
	struct timespec ts = xprt_ns_to_timespec(deadline);

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
			close(tp->fd);
			tp->fd = -1;
		}
	}
	pthread_mutex_unlock(&tp->lock);
}

/* --------------------------------------------------------------- send */

static unsigned int tcp_fill_iov(struct xprt_rqst *rq, struct iovec *iov)
{
	struct iovec seg[TCP_IOV_PER_REQ];
	unsigned int nseg = 0, n = 0, i;
	size_t skip = rq->tx_done;

	if (rq->marker_len) {
		seg[nseg].iov_base = rq->marker;
		seg[nseg++].iov_len = rq->marker_len;
	}
	seg[nseg].iov_base = rq->pub.sbuf->data;
	seg[nseg++].iov_len = rq->pub.sbuf->len;
	for (i = 0; i < rq->pub.nr_tx_segs; i++)
		seg[nseg++] = rq->pub.tx_segs[i];
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

static int tcp_send(struct xprt *x, struct xprt_rqst **reqs, unsigned int n,
		    unsigned int *nsent, bool more)
{
	struct iovec iov[XPRT_XMIT_BATCH * TCP_IOV_PER_REQ];
	struct tcp_tp *tp = tp_of(x);
	struct msghdr msg = {0};
	unsigned int i, niov = 0;
	ssize_t w;
	size_t left;

	(void)more; /* one gathered send replaces corking */
	*nsent = 0;
	if (tp->fd < 0)
		return -ENOTCONN;
	for (i = 0; i < n; i++)
		niov += tcp_fill_iov(reqs[i], iov + niov);
	msg.msg_iov = iov;
	msg.msg_iovlen = niov;
	do {
		w = sendmsg(tp->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (w < 0 && errno == EINTR);
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

static void tcp_wait_writable(struct xprt *x, int timeout_ms)
{
	struct tcp_tp *tp = tp_of(x);
	struct pollfd pfd = {.fd = tp->fd, .events = POLLOUT};

	if (pfd.fd >= 0)
		poll(&pfd, 1, timeout_ms);
}

/* ------------------------------------------------------------ receive */

static void rx_reset(struct xprt *x, struct tcp_rx *rx)
{
	if (rx->rq) {
		xprt_rx_unpin(x, rx->rq);
		rx->rq = NULL;
	}
	rx->in_msg = false;
	rx->phase = RX_MARK;
	rx->mark_have = 0;
	rx->head = rx->tail = 0;
}

static void rx_end_message(struct xprt *x, struct tcp_rx *rx)
{
	struct xprt_rqst *rq = rx->rq;

	if (rq) {
		if ((rx->phase == RX_DATA || rx->phase == RX_PAD) && !rx->err)
			rx->err = -EBADMSG; /* shorter than it announced */
		rq->pub.rx_msg_len = rx->msg_have;
		rx->rq = NULL;
		xprt_rx_complete(x, rq, rx->err);
	}
	rx->in_msg = false;
	rx->phase = RX_MARK;
}

/* The request failed to take its reply: drop the rest of the message,
 * report @err at its end. */
static void rx_fail(struct tcp_rx *rx, int err)
{
	if (!rx->err)
		rx->err = err;
	rx->phase = RX_DISCARD;
}

/* Data placed (or some of it): next, its padding, then the tail. */
static void rx_after_data(struct tcp_rx *rx)
{
	if (rx->data_left)
		rx->phase = RX_DATA;
	else if (rx->pad_left)
		rx->phase = RX_PAD;
	else
		rx->phase = RX_TAIL;
}

/* Ask the protocol where the rest goes, now that rlen bytes are in rbuf. */
static void rx_place(struct xprt *x, struct tcp_rx *rx)
{
	struct xprt_req *req = &rx->rq->pub;
	size_t have = req->rlen, cap = req->rbuf->cap, over, off, len;
	int r;

	if (!req->ops->place) {
		rx->phase = RX_TAIL;
		return;
	}
	req->rx_data_len = 0;
	r = req->ops->place(req, have, rx->msg_known);
	if (r < 0) {
		rx_fail(rx, r);
		return;
	}
	if (r > 0) {
		if ((size_t)r <= have || (size_t)r > cap) {
			rx_fail(rx, (size_t)r > cap ? -EMSGSIZE : -EPROTO);
			return;
		}
		rx->want = (size_t)r;
		rx->phase = RX_HEAD;
		return;
	}
	off = req->rx_data_off;
	len = req->rx_data_len;
	rx->pad_left = req->rx_data_pad;
	if (!len) {
		rx->phase = RX_TAIL;
		return;
	}
	if (xprt_iter_count(&req->rx_data) < len) {
		rx_fail(rx,
			-EOVERFLOW); /* never write past the caller's buffer */
		return;
	}
	if (off > have) {
		if (off > cap) {
			rx_fail(rx, -EMSGSIZE);
			return;
		}
		rx->want = off;
		rx->phase = RX_HEAD;
		return;
	}
	/* bytes of the data (and its pad) already staged in rbuf move to
	 * their place */
	over = have - off;
	if (over > len) {
		size_t pad = XPRT_MIN(over - len, rx->pad_left);

		xprt_iter_copy_to(&req->rx_data, (char *)req->rbuf->data + off,
				  len);
		rx->pad_left -= pad;
		memmove((char *)req->rbuf->data + off,
			(char *)req->rbuf->data + off + len + pad,
			over - len - pad);
		req->rlen = off + over - len - pad;
		rx->data_left = 0;
	} else {
		xprt_iter_copy_to(&req->rx_data, (char *)req->rbuf->data + off,
				  over);
		req->rlen = off;
		rx->data_left = len - over;
	}
	rx_after_data(rx);
}

/* KEY complete: find the request and start placing. */
static void rx_got_key(struct xprt *x, struct tcp_rx *rx)
{
	struct xprt_rqst *rq;
	struct xprt_req *req;

	rq = xprt_rx_lookup(x, x->framing->key(rx->key));
	if (!rq) {
		rx->phase = RX_DISCARD;
		return;
	}
	rx->rq = rq;
	req = &rq->pub;
	if (rx->key_have > req->rbuf->cap) {
		rx_fail(rx, -EMSGSIZE);
		return;
	}
	memcpy(req->rbuf->data, rx->key, rx->key_have);
	req->rlen = rx->key_have;
	rx_place(x, rx);
}

/* Account @n message bytes consumed in the current fragment. */
static void rx_consumed(struct xprt *x, struct tcp_rx *rx, size_t n)
{
	rx->frag_left -= n;
	rx->msg_have += n;
	if (rx->frag_left || rx->phase == RX_MARK)
		return;
	if (rx->frag_last) {
		rx_end_message(x, rx);
	} else {
		rx->resume = rx->phase;
		rx->phase = RX_MARK;
	}
}

/* A complete marker: start a message or continue one. */
static int rx_marker(struct xprt *x, struct tcp_rx *rx)
{
	const struct xprt_framing_ops *f = x->framing;
	size_t flen;
	bool last;
	int r;

	r = f->decode(rx->mark, &flen, &last);
	rx->mark_have = 0;
	if (r)
		return r;
	if (!rx->in_msg) {
		rx->in_msg = true;
		rx->msg_have = 0;
		rx->msg_known = 0;
		rx->key_have = 0;
		rx->err = 0;
		rx->rq = NULL;
		rx->resume = RX_KEY;
		if (f->keep_hdr) {
			memcpy(rx->key, rx->mark, f->hdr_len);
			rx->key_have = f->hdr_len;
			rx->msg_have = f->hdr_len;
			rx->msg_known = f->hdr_len;
		}
	}
	if (flen > x->opts.max_msg || rx->msg_known + flen > x->opts.max_msg)
		return -EMSGSIZE; /* no reply is that large: the peer is lying */
	rx->msg_known += flen;
	rx->frag_left = flen;
	rx->frag_last = last;
	rx->phase = rx->resume;
	if (rx->phase == RX_KEY && rx->key_have >= f->key_len)
		rx_got_key(x, rx);
	if (!flen) {
		rx->frag_left = 0;
		if (rx->frag_last)
			rx_end_message(x, rx);
		else
			rx->phase = RX_MARK;
	}
	return 0;
}

/* Feed staged bytes through the state machine.  Return 0 or a fatal
 * stream error. */
static int rx_process(struct xprt *x, struct tcp_rx *rx)
{
	const struct xprt_framing_ops *f = x->framing;
	size_t avail, take;
	int r;

	while ((avail = rx->tail - rx->head) > 0) {
		uint8_t *src = rx->stage + rx->head;
		struct xprt_req *req = rx->rq ? &rx->rq->pub : NULL;

		if (rx->phase == RX_MARK) {
			take = XPRT_MIN(f->hdr_len - rx->mark_have, avail);
			memcpy(rx->mark + rx->mark_have, src, take);
			rx->mark_have += take;
			rx->head += take;
			if (rx->mark_have == f->hdr_len) {
				r = rx_marker(x, rx);
				if (r)
					return r;
			}
			continue;
		}
		take = XPRT_MIN(avail, rx->frag_left);
		switch (rx->phase) {
		case RX_KEY:
			take = XPRT_MIN(take, f->key_len - rx->key_have);
			memcpy(rx->key + rx->key_have, src, take);
			rx->key_have += take;
			break;
		case RX_HEAD:
			take = XPRT_MIN(take, rx->want - req->rlen);
			memcpy((char *)req->rbuf->data + req->rlen, src, take);
			req->rlen += take;
			break;
		case RX_DATA:
			take = XPRT_MIN(take, rx->data_left);
			xprt_iter_copy_to(&req->rx_data, src, take);
			rx->data_left -= take;
			break;
		case RX_PAD:
			take = XPRT_MIN(take, rx->pad_left);
			rx->pad_left -= take;
			break;
		case RX_TAIL:
			if (req->rlen + take > req->rbuf->cap) {
				rx_fail(rx, -EMSGSIZE);
				take = 0;
				break;
			}
			memcpy((char *)req->rbuf->data + req->rlen, src, take);
			req->rlen += take;
			break;
		default: /* RX_DISCARD */
			break;
		}
		rx->head += take;
		/* phase transitions that complete before the fragment ends */
		if (rx->phase == RX_KEY && rx->key_have == f->key_len)
			rx_got_key(x, rx);
		else if (rx->phase == RX_HEAD && req->rlen == rx->want)
			rx_place(x, rx);
		else if ((rx->phase == RX_DATA && !rx->data_left) ||
			 (rx->phase == RX_PAD && !rx->pad_left))
			rx_after_data(rx);
		rx_consumed(x, rx, take);
	}
	rx->head = rx->tail = 0;
	return 0;
}

/* Bulk data with nothing staged: read it straight into the caller's
 * memory.  Return bytes read, 0 for EOF, or a negative errno. */
static ssize_t rx_direct(struct xprt *x, int fd, struct tcp_rx *rx)
{
	struct xprt_req *req = &rx->rq->pub;
	struct iovec iov[16];
	unsigned int n;
	ssize_t r;

	n = xprt_iter_to_iovec(&req->rx_data, iov, 16,
			       XPRT_MIN(rx->data_left, rx->frag_left));
	if (!n)
		return -EPROTO;
	do {
		r = readv(fd, iov, (int)n);
	} while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -errno : 0;
	xprt_iter_advance(&req->rx_data, (size_t)r);
	rx->data_left -= (size_t)r;
	atomic_fetch_add_explicit(&x->stats.direct_rx_bytes, (size_t)r,
				  memory_order_relaxed);
	rx_after_data(rx);
	rx_consumed(x, rx, (size_t)r);
	return r;
}

/* Socket readable: read and process until it would block.  Return 0, or
 * a negative errno when the connection is finished. */
static int rx_read(struct xprt *x, struct tcp_tp *tp, int fd)
{
	struct tcp_rx *rx = &tp->rx;
	ssize_t r;
	int err;

	for (;;) {
		size_t room;

		if (rx->phase == RX_DATA && rx->rq &&
		    rx->data_left >= TCP_DIRECT_MIN &&
		    rx->frag_left >= TCP_DIRECT_MIN) {
			r = rx_direct(x, fd, rx);
			if (r == -EAGAIN)
				return 0;
			if (r <= 0)
				return r ? (int)r : -ECONNRESET;
			atomic_fetch_add_explicit(&x->stats.bytes_received,
						  (size_t)r,
						  memory_order_relaxed);
			continue;
		}
		room = TCP_STAGE_SIZE - rx->tail;
		do {
			r = recv(fd, rx->stage + rx->tail, room, MSG_DONTWAIT);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (r == 0)
			return -ECONNRESET;
		atomic_fetch_add_explicit(&x->stats.bytes_received, (size_t)r,
					  memory_order_relaxed);
		rx->tail += (size_t)r;
		err = rx_process(x, rx);
		if (err)
			return err;
		if ((size_t)r < room)
			return 0; /* drained: back to epoll */
	}
}

/* Adopt a newly published connection, if any. */
static void rx_adopt(struct xprt *x, struct tcp_tp *tp, uint32_t *cookie)
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

/* Receiver role held: (dis)arm rx_fd in the receive thread's epoll set. */
static void rx_arm(struct tcp_tp *tp, bool on)
{
	struct epoll_event ev = {.events = on ? EPOLLIN | EPOLLRDHUP : 0};

	if (tp->rx_fd < 0 || atomic_load(&tp->fd_armed) == on)
		return;
	ev.data.fd = tp->rx_fd;
	if (epoll_ctl(tp->epfd, EPOLL_CTL_MOD, tp->rx_fd, &ev) == 0)
		atomic_store(&tp->fd_armed, on);
}

static void rx_detach(struct xprt *x, struct tcp_tp *tp, int err)
{
	xprt_conn_lost(x, tp->rx_cookie, err);
	rx_reset(x, &tp->rx);
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
static void role_release(struct tcp_tp *tp)
{
	pthread_mutex_unlock(&tp->rx_mtx);
	while (atomic_load(&tp->arm_wanted) &&
	       pthread_mutex_trylock(&tp->rx_mtx) == 0) {
		if (atomic_exchange(&tp->arm_wanted, false))
			rx_arm(tp, true);
		pthread_mutex_unlock(&tp->rx_mtx);
	}
}

static void *tcp_rx_main(void *arg)
{
	struct xprt *x = arg;
	struct tcp_tp *tp = tp_of(x);
	struct epoll_event evs[4];
	uint32_t cookie = 0;
	int i, n, err;

	while (!atomic_load(&tp->stop)) {
		uint64_t next, now;
		int timeout = -1;

		/* Never block on the receiver role: a caller holding it may be
		 * waiting for a retransmission only our timers will make.  It
		 * kicks us when it lets go (rx_deferred). */
		if (pthread_mutex_trylock(&tp->rx_mtx) == 0) {
			atomic_store(&tp->rx_deferred, false);
			rx_adopt(x, tp, &cookie);
			if (atomic_exchange(&tp->arm_wanted, false))
				rx_arm(tp, true);
			role_release(tp);
		} else {
			atomic_store(&tp->rx_deferred, true);
		}
		next = xprt_timer_next(x);
		if (next) {
			now = xprt_now_ns();
			timeout =
				next <= now ?
					0 :
					(int)((next - now + 999999) / 1000000);
		}
		n = epoll_wait(tp->epfd, evs, 4, timeout);
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == tp->evfd) {
				uint64_t v;

				if (read(tp->evfd, &v, sizeof(v)) < 0)
					continue;
				continue;
			}
			if (pthread_mutex_trylock(&tp->rx_mtx)) {
				atomic_store(&tp->rx_deferred, true);
				continue; /* a caller receives (and disarms) */
			}
			if (evs[i].data.fd != tp->rx_fd) {
				role_release(tp);
				continue;
			}
			xprt_rx_batch_begin(x);
			err = rx_read(x, tp, tp->rx_fd);
			xprt_rx_batch_end(x);
			if (!err && (evs[i].events & (EPOLLHUP | EPOLLERR)))
				err = -ECONNRESET;
			if (err)
				rx_detach(x, tp, err);
			role_release(tp);
		}
		xprt_timer_run(x);
	}
	pthread_mutex_lock(&tp->rx_mtx);
	if (tp->rx_fd >= 0)
		rx_detach(x, tp, -ESHUTDOWN);
	pthread_mutex_unlock(&tp->rx_mtx);
	return NULL;
}

/* An asynchronous request went out: someone must be receiving. */
static void tcp_submitted(struct xprt *x, struct xprt_rqst *rq)
{
	struct tcp_tp *tp = tp_of(x);

	if (rq->pub.will_wait || atomic_load(&tp->fd_armed))
		return;
	atomic_store(&tp->arm_wanted, true);
	if (pthread_mutex_trylock(&tp->rx_mtx) == 0) {
		if (atomic_exchange(&tp->arm_wanted, false))
			rx_arm(tp, true);
		role_release(tp);
	}
	/* else the role's holder arms it when it lets go (role_release) */
}

static bool rq_done(struct xprt_rqst *rq)
{
	return atomic_load(&rq->done_futex) == XPRT_DONE;
}

/*
 * A synchronous caller waits for @rq: receive ourselves if nobody else
 * does (see the top of this file).  Return 0 once done() has run,
 * -ETIMEDOUT at @deadline (0: none), or -EAGAIN to fall back to sleeping
 * until someone else completes it.
 */
static int tcp_wait(struct xprt *x, struct xprt_rqst *rq, uint64_t deadline)
{
	struct tcp_tp *tp = tp_of(x);
	struct pollfd pfd = {.events = POLLIN};
	int err = 0, r;

	if (pthread_mutex_trylock(&tp->rx_mtx)) {
		/* The holder may be done reading and about to let go with the
		 * socket out of the receive thread's epoll set (a caller that
		 * took the role before our request was in the reply index, or
		 * the receive thread between two waits): ask for it to be
		 * armed, then sleep until the receive thread completes us. */
		atomic_store(&tp->arm_wanted, true);
		if (pthread_mutex_trylock(&tp->rx_mtx))
			return -EAGAIN;
		atomic_store(&tp->arm_wanted, false);
	}
	if (tp->rx_fd < 0) {
		role_release(tp);
		return -EAGAIN;
	}
	rx_arm(tp, false);
	pfd.fd = tp->rx_fd;
	while (!rq_done(rq)) {
		int ms = 10; /* notice a cancel or a timer within 10 ms */

		if (deadline) {
			uint64_t now = xprt_now_ns();

			if (now >= deadline) {
				err = -ETIMEDOUT;
				break;
			}
			if (deadline - now < 10000000u)
				ms = (int)((deadline - now + 999999) / 1000000);
		}
		r = poll(&pfd, 1, ms);
		if (r <= 0 || atomic_load(&tp->stop))
			continue;
		xprt_rx_batch_begin(x);
		r = rx_read(x, tp, pfd.fd);
		xprt_rx_batch_end(x);
		if (!r && (pfd.revents & (POLLHUP | POLLERR)))
			r = -ECONNRESET;
		if (r) {
			rx_detach(x, tp, r);
			err = -EAGAIN; /* resent after the reconnect */
			break;
		}
	}
	/* hand the socket back if anything else is waiting for a reply */
	if (xprt_rqtree_count(&x->rqtree) || atomic_load(&tp->arm_wanted)) {
		atomic_store(&tp->arm_wanted, false);
		rx_arm(tp, true);
	}
	/* not tcp_submitted(x, rq): that ignores requests that will_wait,
	 * like ours, and an async submit's request to arm was lost */
	role_release(tp);
	if (atomic_exchange(&tp->rx_deferred, false))
		tcp_kick_rx(x);
	return rq_done(rq) ? 0 : err;
}

/* ----------------------------------------------------------- lifetime */

static int tcp_setup(struct xprt *x)
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
	tp->rx.stage = malloc(TCP_STAGE_SIZE);
	if (!tp->rx.stage) {
		err = -ENOMEM;
		goto out_free;
	}
	err = tcp_resolve(x);
	if (err)
		goto out_stage;
	err = -pthread_mutex_init(&tp->lock, NULL);
	if (err)
		goto out_stage;
	err = -pthread_mutex_init(&tp->rx_mtx, NULL);
	if (err) {
		pthread_mutex_destroy(&tp->lock);
		goto out_stage;
	}
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		err = -pthread_cond_init(&tp->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (err)
		goto out_lock;
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
out_lock:
	pthread_mutex_destroy(&tp->rx_mtx);
	pthread_mutex_destroy(&tp->lock);
out_stage:
	free(tp->rx.stage);
out_free:
	free(tp);
	x->tp = NULL;
	return err;
}

static void tcp_teardown(struct xprt *x)
{
	struct tcp_tp *tp = tp_of(x);

	if (!tp)
		return;
	atomic_store(&tp->stop, true);
	tcp_kick_rx(x);
	if (tp->rx_started)
		pthread_join(tp->rx_thread, NULL);
	if (tp->fd >= 0)
		close(tp->fd);
	close(tp->evfd);
	close(tp->epfd);
	pthread_cond_destroy(&tp->cond);
	pthread_mutex_destroy(&tp->rx_mtx);
	pthread_mutex_destroy(&tp->lock);
	free(tp->rx.stage);
	free(tp);
	x->tp = NULL;
}

const struct xprt_transport_ops xprt_tcp_ops = {
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
};
