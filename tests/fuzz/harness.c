// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fuzz harness's transport and stream feeder (see harness.h).
 *
 * Why a socketpair rather than calling the state machine on a buffer: the
 * receive path reads with recv() into its staging buffer and, for bulk
 * data of 4 KiB and more, with readv() straight into the caller's memory;
 * a socket lets both run exactly as against a server.  Writing the input
 * in pieces and reading after each one cuts the stream wherever the
 * fuzzer likes - the boundaries a real network makes.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "rpc/rpc_int.h"

#define FZ_MAX_PIECES 64u

void fz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
	abort();
}

uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v = 0;

	if (in->left) {
		v = *in->p++;
		in->left--;
	}
	return v;
}

uint16_t fz_u16(struct fz_in *in)
{
	return (uint16_t)(fz_u8(in) << 8 | fz_u8(in));
}

size_t fz_chunk(uint8_t sel)
{
	static const size_t sizes[8] = {0, 1, 3, 4, 7, 64, 1000, 4099};

	return sizes[sel & 7];
}

static void fz_spin(uint64_t *start)
{
	if (!*start)
		*start = lx_xprt_now_ns();
	else if (lx_xprt_now_ns() - *start > 10000000000ull)
		fz_fail(__FILE__, __LINE__, "request never became idle");
	sched_yield();
}

void fz_wait_sent(struct lx_xprt_req *req)
{
	struct lx_xprt_rqst *rq = rq_of(req);
	const uint32_t busy = RQ_QUEUED | RQ_XMIT;
	uint64_t start = 0;

	while ((rq_flags(atomic_load(&rq->st)) & busy) ||
	       atomic_load(&rq->refs) > 2)
		fz_spin(&start);
}

void fz_wait_xprt_sent(struct lx_xprt *x)
{
	unsigned int i;

	for (i = 0; i < x->max_reqs; i++) {
		struct lx_xprt_rqst *rq = lx_xprt_slot(x, i);

		if (rq_flags(atomic_load(&rq->st)) & RQ_SUBMITTED)
			fz_wait_sent(&rq->pub);
	}
}

void fz_wait_idle(struct lx_xprt *x)
{
	uint64_t start = 0;

	/* the input's stream is over, as a connection would be: a sent
	 * call cancelled after its reply went missing is an orphan until
	 * then (cc146f2), and a reconnect ends orphans: so here */
	lx_xprt_orphans_end(x);
	while (lx_xprt_tags_in_use(x->tags))
		fz_spin(&start);
}

/* ------------------------------------------------ the null transport */

static int fz_setup(struct lx_xprt *x)
{
	(void)x;
	return 0;
}

static int fz_connect(struct lx_xprt *x, uint32_t cookie)
{
	(void)x;
	(void)cookie;
	return 0;
}

static void fz_noop(struct lx_xprt *x)
{
	(void)x;
}

/* Every request goes out whole, at once: nothing is partial or queued
 * after the submit, so completions run on the fuzzing thread. */
static int fz_send(struct lx_xprt *x, struct lx_xprt_rqst **reqs,
		   unsigned int n, unsigned int *nsent, bool more)
{
	unsigned int i;

	(void)x;
	(void)more;
	for (i = 0; i < n; i++)
		reqs[i]->tx_done = reqs[i]->tx_total;
	*nsent = n;
	return 0;
}

static void fz_wait_writable(struct lx_xprt *x, int timeout_ms)
{
	(void)x;
	(void)timeout_ms;
}

/* Replaces xprt/tcp/tcp.c's, which the fuzz build does not link. */
const struct lx_xprt_transport_ops lx_xprt_tcp_ops = {
	.name = "fuzz",
	.setup = fz_setup,
	.connect = fz_connect,
	.shutdown = fz_noop,
	.reap = fz_noop,
	.send = fz_send,
	.wait_writable = fz_wait_writable,
	.kick_rx = fz_noop,
	.teardown = fz_noop,
};

/* ------------------------------------------------------------ stream */

void fz_stream_open(struct fz_stream *s)
{
	int sv[2], sz = 1 << 20;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv) < 0 ||
	    lx_xprt_tcp_rx_init(&s->rx)) {
		perror("fuzz harness: socketpair");
		abort();
	}
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	s->wfd = sv[0];
	s->rfd = sv[1];
}

/* Write all of @len (the reader drains after every piece, so a piece of
 * at most a stage always fits). */
static void put_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0) {
			perror("fuzz harness: write");
			abort();
		}
		p += w;
		len -= (size_t)w;
	}
}

int fz_stream_feed(struct fz_stream *s, struct lx_xprt *x, const uint8_t *data,
		   size_t len, size_t chunk)
{
	size_t n;
	int err;

	if (!chunk || chunk > LX_XPRT_TCP_STAGE_SIZE)
		chunk = LX_XPRT_TCP_STAGE_SIZE;
	/* at most FZ_MAX_PIECES reads per input: tiny pieces of a long
	 * input cost a system call each and find nothing the first few
	 * dozen boundaries did not */
	if (len / chunk > FZ_MAX_PIECES)
		chunk = len / FZ_MAX_PIECES + 1;
	while (len) {
		n = len < chunk ? len : chunk;
		put_all(s->wfd, data, n);
		data += n;
		len -= n;
		err = lx_xprt_tcp_rx_read(x, &s->rx, s->rfd);
		if (err)
			return err;
	}
	return 0;
}

void fz_stream_reset(struct fz_stream *s, struct lx_xprt *x)
{
	uint8_t junk[4096];

	while (read(s->rfd, junk, sizeof(junk)) > 0)
		;
	lx_xprt_tcp_rx_reset(x, &s->rx);
}

/* --------------------------------------------------------------- rpc */

struct lx_rpc_clnt *fz_rpc_clnt(size_t buf_size, unsigned int max_reqs)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl;

	o.host = "127.0.0.1";
	o.port = 9; /* never connected: the null transport */
	o.prog = 100003;
	o.vers = 3;
	o.buf_size = buf_size;
	o.max_reqs = max_reqs;
	if (lx_rpc_create(&cl, &o))
		fz_fail(__FILE__, __LINE__, "lx_rpc_create");
	return cl;
}

void fz_rpc_next_xid(struct lx_rpc_clnt *cl, uint32_t xid)
{
	cl->xid_pinned = true;
	atomic_store(&cl->xid, xid);
}

struct lx_xprt *fz_rpc_xprt(struct lx_rpc_clnt *cl)
{
	return lx_rpc_xprt(cl, 0);
}
