// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TCP receive state machine.
 *
 * Bytes are read in large chunks into a staging buffer and fed through a
 * small state machine:
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
 * of their header.  Large ones (LX_XPRT_TCP_LARGE_MIN of data or more)
 * switch the stream to reads sized to the message (rx_large_want()): the
 * header up to where the data starts, then the data by readv() straight
 * into place, so that after the first large reply of a run every payload
 * byte is copied once, from the socket into the caller's memory
 * (stats.direct_rx_bytes); a reply that places no data returns the
 * stream to batched reads.  The first large reply of a run is not
 * staged either when its request said it expects large data
 * (req->rx_hint, lx_xprt_tcp_rx_hint()): the stream is in large mode
 * before its first byte is read (rx_hint_take()).  Without the hint it
 * stages one chunk at most.
 *
 * Every length comes from the peer and is checked before it is used: a
 * fragment or message longer than max_msg, or of more than
 * LX_XPRT_MAX_FRAGS fragments, ends the stream (no honest reply is that
 * large and the stream cannot be resynchronised), and so does a message
 * that cannot be a reply: shorter than its key (an RPC record without an
 * XID and a message type) or refused by the framing's check (a message
 * type other than REPLY) - a port that does not speak our protocol, or a
 * server gone mad; counted in stats.garbage and said once.  Header
 * and tail bytes never go past the receive buffer's capacity, and bulk
 * data never past the caller's iterator (the message is then discarded
 * and the request fails).  The state machine only needs a descriptor to
 * read and a transport's reply index, which is why it lives apart from
 * the socket handling of tcp.c: tests/fuzz drives it on a socketpair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "xprt/blocks/framing.h"
#include "xprt/tcp/tcp_rx.h"

int lx_xprt_tcp_rx_init(struct lx_xprt_tcp_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	rx->stage = malloc(LX_XPRT_TCP_STAGE_SIZE);
	return rx->stage ? 0 : -ENOMEM;
}

void lx_xprt_tcp_rx_fini(struct lx_xprt_tcp_rx *rx)
{
	free(rx->stage);
	rx->stage = NULL;
}

void lx_xprt_tcp_rx_reset(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	if (rx->rq) {
		lx_xprt_rx_unpin(x, rx->rq);
		rx->rq = NULL;
	}
	rx->in_msg = false;
	rx->phase = RX_MARK;
	rx->mark_have = 0;
	rx->head = rx->tail = 0;
	rx->fatal = 0;
	rx->stall_since = 0;
	rx->large = false;
	rx->hint_grace = 0;
}

/* The stream cannot be what we think it is: end it with @err. */
static void rx_garbage(struct lx_xprt_tcp_rx *rx, int err, const char *why)
{
	if (!rx->fatal) {
		rx->fatal = err;
		rx->fatal_why = why;
	}
	rx->phase = RX_DISCARD;
}

static void rx_end_message(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	struct lx_xprt_rqst *rq = rx->rq;

	if (rq) {
		/* shorter than it announced: the data place() was promised
		 * (or the header bytes before it) never came */
		if ((rx->phase == RX_DATA || rx->phase == RX_PAD ||
		     (rx->phase == RX_HEAD && rx->data_due)) &&
		    !rx->err)
			rx->err = -EBADMSG;
		rq->pub.rx_msg_len = rx->msg_have;
		rx->rq = NULL;
		lx_xprt_rx_complete(x, rq, rx->err);
	} else if (rx->phase == RX_KEY) {
		rx_garbage(rx, -EBADMSG, "record too short to be a reply");
	}
	rx->in_msg = false;
	rx->phase = RX_MARK;
}

/* The request failed to take its reply: drop the rest of the message,
 * report @err at its end. */
static void rx_fail(struct lx_xprt_tcp_rx *rx, int err)
{
	if (!rx->err)
		rx->err = err;
	rx->phase = RX_DISCARD;
}

/* Data placed (or some of it): next, its padding, then the tail. */
static void rx_after_data(struct lx_xprt_tcp_rx *rx)
{
	if (rx->data_left)
		rx->phase = RX_DATA;
	else if (rx->pad_left)
		rx->phase = RX_PAD;
	else
		rx->phase = RX_TAIL;
}

/* Ask the protocol where the rest goes, now that rlen bytes are in rbuf. */
static void rx_place(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	struct lx_xprt_req *req = &rx->rq->pub;
	size_t have = req->rlen, cap = req->rbuf->cap, over, off, len;
	int r;

	if (!req->ops->place) {
		rx->phase = RX_TAIL;
		return;
	}
	rx->data_due = false;
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
	if (lx_xprt_iter_count(&req->rx_data) < len) {
		rx_fail(rx,
			-EOVERFLOW); /* never write past the caller's buffer */
		return;
	}
	if (len >= LX_XPRT_TCP_LARGE_MIN || rx->large) {
		/* the next reply is likely shaped the same: read its header
		 * up to here, not into its data (rx_large_want()).  Any
		 * placed data keeps the mode: the short last piece of a
		 * large transfer (192 bytes after eight 65,512-byte 9P
		 * Rreads make 512 KiB) must not send the next transfer's
		 * first reply through the stage. */
		rx->large = rx->large_seen = true;
		rx->large_hdr =
			off + (x->framing->keep_hdr ? 0 : x->framing->hdr_len);
	}
	if (off > have) {
		if (off > cap) {
			rx_fail(rx, -EMSGSIZE);
			return;
		}
		rx->want = off;
		rx->phase = RX_HEAD;
		rx->data_due = true;
		return;
	}
	/* bytes of the data (and its pad) already staged in rbuf move to
	 * their place */
	over = have - off;
	if (over > len) {
		size_t pad = LX_XPRT_MIN(over - len, rx->pad_left);

		lx_xprt_iter_copy_to(&req->rx_data,
				     (char *)req->rbuf->data + off, len);
		rx->pad_left -= pad;
		memmove((char *)req->rbuf->data + off,
			(char *)req->rbuf->data + off + len + pad,
			over - len - pad);
		req->rlen = off + over - len - pad;
		rx->data_left = 0;
	} else {
		lx_xprt_iter_copy_to(&req->rx_data,
				     (char *)req->rbuf->data + off, over);
		req->rlen = off;
		rx->data_left = len - over;
	}
	rx_after_data(rx);
}

/* KEY complete: find the request and start placing. */
static void rx_got_key(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	struct lx_xprt_rqst *rq;
	struct lx_xprt_req *req;

	if (x->framing->check && x->framing->check(rx->key)) {
		rx_garbage(rx, -EBADMSG, "message that is not a reply");
		return;
	}
	rq = lx_xprt_rx_lookup(x, x->framing->key(rx->key));
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
static void rx_consumed(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, size_t n)
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
static int rx_marker(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	const struct lx_xprt_framing_ops *f = x->framing;
	size_t flen;
	bool last;
	int r;

	r = f->decode(rx->mark, &flen, &last);
	rx->mark_have = 0;
	if (r) {
		rx_garbage(rx, r, "message with an impossible size");
		return r;
	}
	if (!rx->in_msg) {
		rx->frags = 0;
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
	if (flen > x->opts.max_msg || rx->msg_known + flen > x->opts.max_msg ||
	    ++rx->frags > LX_XPRT_MAX_FRAGS) {
		/* no reply is that large: the peer is lying */
		rx_garbage(rx, -EMSGSIZE, "fragment chain past the size limit");
		return -EMSGSIZE;
	}
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
	return rx->fatal;
}

/* How much of a whole staged message is copied into rbuf before the
 * first place() call, unless the request says (req->rx_first): the
 * headers of every reply we parse fit. */
#define RX_WHOLE_FIRST 128u

/*
 * Place the whole message @m (@len bytes, framing marker included when
 * the framing keeps it) into pinned @rq, with the placement rules of the
 * state machine (the same results, byte for byte, and the same status
 * for each way a message can be wrong): header bytes into rbuf as
 * place() asks for them, bulk data from the stage straight into the
 * caller's memory, its pad dropped, the tail after the header.  Return
 * the status the request completes with.
 */
static int rx_whole_place(struct lx_xprt_req *req, const uint8_t *m, size_t len)
{
	size_t cap = req->rbuf->cap, have, off, dlen, pad, tail;
	uint8_t *rb = req->rbuf->data;
	int r;

	have = LX_XPRT_MIN(LX_XPRT_MIN(len, cap),
			   req->rx_first ? req->rx_first : RX_WHOLE_FIRST);
	memcpy(rb, m, have);
	req->rlen = have;
	req->rx_data_len = 0;
	if (!req->ops->place)
		goto all;
	for (;;) {
		req->rx_data_len = 0;
		r = req->ops->place(req, have, len);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		if ((size_t)r <= have)
			return -EPROTO;
		if ((size_t)r > cap)
			return -EMSGSIZE;
		if ((size_t)r >= len) {
			/* the message ends first: what there is */
			memcpy(rb + have, m + have, len - have);
			req->rlen = len;
			req->rx_data_len = 0;
			return 0;
		}
		memcpy(rb + have, m + have, (size_t)r - have);
		have = (size_t)r;
		req->rlen = have;
	}
	dlen = req->rx_data_len;
	if (!dlen)
		goto all;
	off = req->rx_data_off;
	pad = req->rx_data_pad;
	if (lx_xprt_iter_count(&req->rx_data) < dlen)
		return -EOVERFLOW; /* never past the caller's buffer */
	if (off > have) {
		if (off > cap)
			return -EMSGSIZE;
		if (off > len)
			return -EBADMSG;
		memcpy(rb + have, m + have, off - have);
	}
	if (dlen > len - off || pad > len - off - dlen)
		return -EBADMSG; /* shorter than place() announced */
	tail = len - off - dlen - pad;
	if (tail > cap - off)
		return -EMSGSIZE;
	lx_xprt_iter_copy_to(&req->rx_data, m + off, dlen);
	if (tail) /* (a Rread has none) */
		memcpy(rb + off, m + off + dlen + pad, tail);
	req->rlen = off + tail;
	return 0;
all:
	if (len > cap)
		return -EMSGSIZE;
	if (len > have) /* a small reply came whole in the first copy */
		memcpy(rb + have, m + have, len - have);
	req->rlen = len;
	return 0;
}

/* After a whole staged message: large mode if it placed large data. */
__attribute__((noinline, cold)) static void
rx_whole_large(const struct lx_xprt_framing_ops *f, struct lx_xprt_tcp_rx *rx,
	       const struct lx_xprt_req *req)
{
	rx->large = rx->large_seen = true;
	rx->large_hdr = req->rx_data_off + (f->keep_hdr ? 0 : f->hdr_len);
}

/*
 * The framing's three questions about a whole staged message, inline for
 * the two framings of the library (framing.h), through the ops for any
 * other: its marker, whether it can be a reply at all, its key.
 */
static inline int rx_whole_mark(const struct lx_xprt_framing_ops *f,
				const uint8_t *src, size_t *flen, bool *last)
{
	if (lx_xprt_likely(f == &lx_xprt_framing_rpc)) {
		lx_rpc_mark(src, flen, last);
		return 0;
	}
	if (f == &lx_xprt_framing_9p)
		return lx_p9_mark(src, flen, last);
	return f->decode(src, flen, last);
}

static inline int rx_whole_check(const struct lx_xprt_framing_ops *f,
				 const uint8_t *m)
{
	if (lx_xprt_likely(f == &lx_xprt_framing_rpc))
		return lx_rpc_msg_check(m);
	if (f == &lx_xprt_framing_9p)
		return lx_p9_msg_check(m);
	return f->check ? f->check(m) : 0;
}

static inline uint32_t rx_whole_key(const struct lx_xprt_framing_ops *f,
				    const uint8_t *m)
{
	if (lx_xprt_likely(f == &lx_xprt_framing_rpc))
		return lx_rpc_msg_key(m);
	if (f == &lx_xprt_framing_9p)
		return lx_p9_msg_key(m);
	return f->key(m);
}

/*
 * The common case, at a message boundary: the whole message (one last
 * fragment) is staged.  Look it up, place it and complete its request
 * in one go, without the byte-wise state machine.  Return the bytes
 * consumed, or 0 to leave the message to the state machine (not whole,
 * several fragments, or a marker it must judge).
 */
static size_t rx_whole(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx,
		       const uint8_t *src, size_t avail)
{
	const struct lx_xprt_framing_ops *f = x->framing;
	struct lx_xprt_rqst *rq;
	const uint8_t *m;
	size_t flen, len, total;
	bool last;

	if (rx_whole_mark(f, src, &flen, &last) || !last ||
	    flen > x->opts.max_msg)
		return 0;
	total = f->hdr_len + flen;
	if (total > avail)
		return 0;
	m = f->keep_hdr ? src : src + f->hdr_len;
	len = f->keep_hdr ? total : flen;
	if (len < f->key_len || rx_whole_check(f, m))
		return 0; /* garbage: the state machine says so */
	rq = lx_xprt_rx_lookup(x, rx_whole_key(f, m));
	if (rq) {
		int err = f->key_len > rq->pub.rbuf->cap ?
				  -EMSGSIZE :
				  rx_whole_place(&rq->pub, m, len);

		rq->pub.rx_msg_len = len;
		/* a whole message in the stage that placed large data (a
		 * 64 KiB 9P Rread read in one go): large mode */
		if (lx_xprt_unlikely(rq->pub.rx_data_len >=
				     LX_XPRT_TCP_LARGE_MIN) &&
		    !err)
			rx_whole_large(f, rx, &rq->pub);
		lx_xprt_rx_complete(x, rq, err);
	}
	return total;
}

/* Feed staged bytes through the state machine.  Return 0 or a fatal
 * stream error. */
static int rx_process(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	const struct lx_xprt_framing_ops *f = x->framing;
	size_t avail, take;
	int r;

	while ((avail = rx->tail - rx->head) > 0) {
		uint8_t *src = rx->stage + rx->head;
		struct lx_xprt_req *req = rx->rq ? &rx->rq->pub : NULL;

		if (rx->phase == RX_MARK && !rx->in_msg && !rx->mark_have &&
		    avail >= f->hdr_len) {
			take = rx_whole(x, rx, src, avail);
			if (take) {
				rx->head += take;
				continue;
			}
		}

		if (rx->phase == RX_MARK) {
			take = LX_XPRT_MIN(f->hdr_len - rx->mark_have, avail);
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
		take = LX_XPRT_MIN(avail, rx->frag_left);
		switch (rx->phase) {
		case RX_KEY:
			take = LX_XPRT_MIN(take, f->key_len - rx->key_have);
			memcpy(rx->key + rx->key_have, src, take);
			rx->key_have += take;
			break;
		case RX_HEAD:
			take = LX_XPRT_MIN(take, rx->want - req->rlen);
			memcpy((char *)req->rbuf->data + req->rlen, src, take);
			req->rlen += take;
			break;
		case RX_DATA:
			take = LX_XPRT_MIN(take, rx->data_left);
			lx_xprt_iter_copy_to(&req->rx_data, src, take);
			rx->data_left -= take;
			break;
		case RX_PAD:
			take = LX_XPRT_MIN(take, rx->pad_left);
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
		if (rx->fatal)
			return rx->fatal;
	}
	rx->head = rx->tail = 0;
	return 0;
}

#define RX_DIRECT_IOV 16

/*
 * Large mode, a read that can take the rest of the data: how many bytes
 * after it to read into the stage in the same system call - its pad and
 * the header of the next message as far as its data, when that is shaped
 * like this one (large_hdr) - or 0 when something else follows the data
 * in the record (a tail, another fragment) or the data does not fit the
 * iovecs.  A 9P Rread then costs one read, its data with the next one's
 * header, where it cost two (header, then data); an NFS READ one read
 * less.  A reply of another shape behind it has its first bytes staged,
 * which the state machine takes as it takes any.
 */
static size_t rx_direct_tail(const struct lx_xprt_tcp_rx *rx,
			     const struct iovec *iov, unsigned int n)
{
	size_t covered = 0;
	unsigned int i;

	if (!rx->large || !rx->frag_last || n == RX_DIRECT_IOV ||
	    rx->frag_left != rx->data_left + rx->pad_left)
		return 0;
	for (i = 0; i < n; i++)
		covered += iov[i].iov_len;
	if (covered != rx->data_left)
		return 0;
	return rx->pad_left + rx->large_hdr;
}

/* Bulk data with nothing staged: read it straight into the caller's
 * memory (with rx_direct_tail() bytes after it into the stage, which the
 * caller then processes); @flags: of the recvmsg() (0: it may block).
 * Return 1 when it read all it asked for, 0 when the socket is drained,
 * or a negative errno (%-ECONNRESET at EOF). */
static int rx_direct(struct lx_xprt *x, int fd, struct lx_xprt_tcp_rx *rx,
		     int flags)
{
	struct lx_xprt_req *req = &rx->rq->pub;
	struct msghdr msg = {0};
	struct iovec iov[RX_DIRECT_IOV];
	size_t data, tail, asked;
	unsigned int n, i;
	ssize_t r;

	n = lx_xprt_iter_to_iovec(&req->rx_data, iov, RX_DIRECT_IOV,
				  LX_XPRT_MIN(rx->data_left, rx->frag_left));
	if (!n)
		return -EPROTO;
	for (data = 0, i = 0; i < n; i++)
		data += iov[i].iov_len;
	tail = rx_direct_tail(rx, iov, n);
	if (tail) {
		/* the stage is empty here: rx_process() consumed it */
		rx->head = rx->tail = 0;
		iov[n].iov_base = rx->stage;
		iov[n++].iov_len = tail;
	}
	asked = data + tail;
	msg.msg_iov = iov;
	msg.msg_iovlen = n;
	do {
		r = lx_xprt_sys_recvmsg(fd, &msg, flags);
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		if (!r)
			return -ECONNRESET;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	}
	rx->nread += (size_t)r;
	if ((size_t)r > data) {
		rx->tail = (size_t)r - data; /* the pad, the next header */
		r = (ssize_t)data;
	}
	lx_xprt_iter_advance(&req->rx_data, (size_t)r);
	rx->data_left -= (size_t)r;
	/* count before rx_consumed() may complete the request: whoever
	 * waits for the last reply reads the counters right after it */
	atomic_fetch_add_explicit(&x->stats.direct_rx_bytes, (size_t)r,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&x->stats.bytes_received,
				  (size_t)r + rx->tail, memory_order_relaxed);
	rx_after_data(rx);
	rx_consumed(x, rx, (size_t)r);
	return (size_t)r + rx->tail == asked;
}

/* Count and say (the first time) why the stream is dropped. */
static int rx_dropped(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, int err)
{
	if (!atomic_fetch_add_explicit(&x->stats.garbage, 1,
				       memory_order_relaxed))
		lx_xprt_log(x, LX_XPRT_LOG_WARNING,
			    "server %s sent a %s (%s framing): connection "
			    "dropped",
			    x->peer,
			    rx->fatal_why ? rx->fatal_why : "bad record",
			    x->framing->name);
	return err;
}

bool lx_xprt_tcp_rx_stalled(struct lx_xprt_tcp_rx *rx, uint64_t stall_ns)
{
	uint64_t now;

	if (!rx->in_msg || !rx->rq ||
	    !(rq_flags(atomic_load(&rx->rq->st)) & RQ_OUTCOME))
		return false;
	now = lx_xprt_now_ns();
	if (rx->stall_nread != rx->nread || !rx->stall_since) {
		rx->stall_nread = rx->nread;
		rx->stall_since = now;
		return false;
	}
	return now - rx->stall_since >= stall_ns;
}

/*
 * Large mode: how many bytes to read into the stage next, so that the
 * read stops where the data of the message being received starts (or,
 * at a message boundary, where the data of the next one starts if it is
 * shaped like the last large reply).  A reply of another shape costs a
 * read more (its header is longer) or a few data bytes through the stage
 * (shorter); its bytes go through the state machine either way.  Return
 * 0 for "no bound".
 */
static size_t rx_large_want(const struct lx_xprt *x,
			    const struct lx_xprt_tcp_rx *rx)
{
	const struct lx_xprt_framing_ops *f = x->framing;
	size_t done;

	switch (rx->phase) {
	case RX_MARK:
		if (rx->in_msg || rx->large_hdr <= rx->mark_have)
			return f->hdr_len - rx->mark_have;
		return rx->large_hdr - rx->mark_have;
	case RX_KEY:
	case RX_HEAD:
		if (rx->phase == RX_HEAD && rx->data_due)
			return rx->want - rx->rq->pub.rlen;
		done = rx->msg_have + (f->keep_hdr ? 0 : f->hdr_len);
		if (rx->large_hdr > done)
			return rx->large_hdr - done;
		if (rx->phase == RX_KEY)
			return f->key_len - rx->key_have;
		return rx->want - rx->rq->pub.rlen;
	case RX_PAD:
	case RX_TAIL:
		/* the rest of the fragment, then the next header */
		return rx->frag_left +
		       (rx->frag_last ? rx->large_hdr : f->hdr_len);
	default:
		return 0;
	}
}

/*
 * Large mode: the size of the next stage read (at most @room), or 0 when
 * the next read is data straight into place (rx_direct()), whatever its
 * size: the same system call, one copy fewer.  At a message boundary the
 * mode ends if nothing since the last one placed large data (a small
 * reply came): batched reads again.  Ending it here rather than where
 * small replies complete keeps the small-reply path as it was.
 */
__attribute__((noinline)) static size_t
rx_large_ask(const struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, size_t room)
{
	size_t w;

	if (rx->phase == RX_DATA && rx->rq && rx->data_left && rx->frag_left)
		return 0;
	if (rx->phase == RX_MARK && !rx->in_msg && !rx->mark_have) {
		/* (a read that found nothing, @nread unchanged, ends
		 * nothing: the next reply has not come yet) */
		if (rx->large_seen) {
			rx->large_seen = false;
			rx->large_nread = rx->nread;
			rx->hint_grace = 0;
		} else if (rx->nread != rx->large_nread) {
			if (!rx->hint_grace) {
				rx->large = false;
				return room;
			}
			/* hinted: a reply sent before the large one */
			rx->hint_grace--;
			rx->large_nread = rx->nread;
		}
	}
	w = rx_large_want(x, rx);
	return w && w < room ? w : room;
}

/* The least stream bytes before the bulk data of a reply (framing.h). */
static size_t rx_bulk_hdr_min(const struct lx_xprt_framing_ops *f)
{
	if (f == &lx_xprt_framing_rpc)
		return LX_RPC_BULK_HDR_MIN;
	if (f == &lx_xprt_framing_9p)
		return LX_P9_BULK_HDR_MIN;
	return f->hdr_len + f->key_len;
}

/*
 * A large reply is coming (lx_xprt_tcp_rx_hint()), and the stream is in
 * batched mode: large mode now, before its first byte is read.  Its
 * header is then read up to where the last large reply's data started,
 * or for the first of the stream up to the least header a reply with
 * bulk data has, and on in the steps place() asks for: no read reaches
 * into its data.  The mode outlives LX_XPRT_TCP_HINT_GRACE small replies
 * (to calls sent before) and otherwise ends as large mode does.  Return
 * false when the hint was taken meanwhile.
 */
__attribute__((noinline, cold)) static bool
rx_hint_take(const struct lx_xprt *x, struct lx_xprt_tcp_rx *rx)
{
	if (!atomic_exchange_explicit(&rx->hint, false, memory_order_acquire))
		return false;
	rx->large = true;
	rx->large_seen = false;
	rx->large_nread = rx->nread;
	rx->hint_grace = LX_XPRT_TCP_HINT_GRACE;
	if (!rx->large_hdr)
		rx->large_hdr = rx_bulk_hdr_min(x->framing);
	return true;
}

/* Socket readable: read and process until it would block (see tcp_rx.h);
 * @flags: of the first recv() (0: it may block) */
static int rx_read(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, int fd,
		   int flags)
{
	bool drained;
	ssize_t r;
	int err;

	for (;;) {
		size_t room = LX_XPRT_TCP_STAGE_SIZE - rx->tail, ask = room;

		if (lx_xprt_unlikely(rx->large))
			ask = rx_large_ask(x, rx, room);
		else if (rx->phase == RX_DATA && rx->rq &&
			 rx->data_left >= LX_XPRT_TCP_DIRECT_MIN &&
			 rx->frag_left >= LX_XPRT_TCP_DIRECT_MIN)
			ask = 0;
		else if (lx_xprt_unlikely(atomic_load_explicit(
				 &rx->hint, memory_order_relaxed)) &&
			 rx_hint_take(x, rx))
			ask = rx_large_ask(x, rx, room);
		if (!ask) {
			err = rx_direct(x, fd, rx, flags);
			flags = MSG_DONTWAIT;
			if (err < 0)
				return err;
			drained = !err;
			if (!rx->tail) {
				if (drained)
					return 0; /* back to epoll */
				continue;
			}
			/* the next header came with the data: process it */
		} else {
			do {
				r = lx_xprt_sys_recv(fd, rx->stage + rx->tail,
						     ask, flags);
			} while (r < 0 && errno == EINTR);
			flags = MSG_DONTWAIT;
			if (r < 0)
				return errno == EAGAIN || errno == EWOULDBLOCK ?
					       0 :
					       -errno;
			if (r == 0)
				return -ECONNRESET;
			atomic_fetch_add_explicit(&x->stats.bytes_received,
						  (size_t)r,
						  memory_order_relaxed);
			rx->tail += (size_t)r;
			rx->nread += (size_t)r;
			drained = (size_t)r < ask;
		}
		err = rx_process(x, rx);
		if (err)
			return rx_dropped(x, rx, err);
		if (drained)
			return 0; /* back to epoll */
	}
}

int lx_xprt_tcp_rx_read(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, int fd)
{
	return rx_read(x, rx, fd, MSG_DONTWAIT);
}

int lx_xprt_tcp_rx_read_wait(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx,
			     int fd)
{
	return rx_read(x, rx, fd, 0);
}
