// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9_rdma - raw 9P2000.L over RDMA through the transport API (xprt_*),
 * against p9relay + diod in the test guest.  The 9P client library is
 * written elsewhere; this builds the messages by hand to check the
 * transport side: framing, tags as keys, per-request receives, Rread data
 * placed into the caller's memory, Twrite payload from the caller's
 * memory, several requests in flight.
 *
 *   version   Tversion (NOTAG), msize negotiated
 *   attach    Tattach to the export
 *   no-reply  a message marked no_reply is refused (-EOPNOTSUPP)
 *   create    Twalk (clone) + Tlcreate of a test file
 *   write     Twrite of SIZE bytes in chunks, DEPTH in flight
 *   read      Tread of it back into a caller buffer, DEPTH in flight;
 *             the data must match
 *   rate      Tread of 4 KiB, one and DEPTH in flight: operations/s
 *   error     a Twalk to a missing name answers Rlerror (ENOENT)
 *   clunk     Tclunk of both fids
 *   excess    (-x, through a relay started with -X 117) the first Tread's
 *             reply is swallowed: it times out, its receive stays posted
 *             and the next request uses it instead of posting one; the
 *             reads after it must all succeed
 *
 * usage: p9_rdma [-a IP] [-p PORT] [-A ANAME] [-s SIZE] [-d DEPTH]
 *                [-n RATE_OPS] [-m MSIZE] [-x]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxprt/rdma.h>
#include <libxprt/proto/xprt.h>

#include "tool.h"

#define NOTAG	 0xffffu
#define NOFID	 0xffffffffu
#define TVERSION 100
#define RVERSION 101
#define TATTACH	 104
#define RATTACH	 105
#define TWALK	 110
#define RWALK	 111
#define TLCREATE 14
#define RLCREATE 15
#define TREAD	 116
#define RREAD	 117
#define TWRITE	 118
#define RWRITE	 119
#define TCLUNK	 120
#define RCLUNK	 121
#define RLERROR	 7
#define P9_RHDR	 11 /* size type tag count */
#define IOHDR	 24 /* Twrite/Tread header: diod caps counts at msize-24 */

static const char *host = "10.0.2.15";
static unsigned int port = LX_XPRT_RDMA_9P_PORT;
static const char *aname = "/p9export";
static size_t total = 1 << 20, msize = 65536;
static unsigned int depth = 8, rate_ops = 2000;
static bool excess_mode;

/* ------------------------------------------------------ message building */

struct mb {
	uint8_t *p;
	size_t n, cap;
};

static void b8(struct mb *m, uint8_t v)
{
	m->p[m->n++] = v;
}

static void b16(struct mb *m, uint16_t v)
{
	b8(m, (uint8_t)v);
	b8(m, (uint8_t)(v >> 8));
}

static void b32(struct mb *m, uint32_t v)
{
	b16(m, (uint16_t)v);
	b16(m, (uint16_t)(v >> 16));
}

static void b64(struct mb *m, uint64_t v)
{
	b32(m, (uint32_t)v);
	b32(m, (uint32_t)(v >> 32));
}

static void bstr(struct mb *m, const char *s)
{
	size_t l = strlen(s);

	b16(m, (uint16_t)l);
	memcpy(m->p + m->n, s, l);
	m->n += l;
}

static uint32_t g32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Start a message in the request's send buffer: size is patched later. */
static struct mb msg_begin(struct lx_xprt_req *req, uint8_t type, uint16_t tag)
{
	struct mb m = {.p = req->sbuf->data, .n = 0, .cap = req->sbuf->cap};

	b32(&m, 0);
	b8(&m, type);
	b16(&m, tag);
	return m;
}

/* Patch the size: header bytes plus @extra bytes of payload segments. */
static void msg_end(struct lx_xprt_req *req, struct mb *m, size_t extra)
{
	uint8_t *p = m->p;
	uint32_t size = (uint32_t)(m->n + extra);

	p[0] = (uint8_t)size;
	p[1] = (uint8_t)(size >> 8);
	p[2] = (uint8_t)(size >> 16);
	p[3] = (uint8_t)(size >> 24);
	req->sbuf->len = (uint32_t)m->n;
}

/* ------------------------------------------------------------ requests */

struct call {
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	unsigned int *inflight;
	int status;
	uint8_t type;
	uint32_t count; /* Rread/Rwrite count, Rlerror ecode */
	struct iovec dst;
	bool done;
};

static void call_done(struct lx_xprt_req *req, int status)
{
	struct call *c = req->user;
	const uint8_t *r = req->rbuf->data;
	bool async = c->lock != NULL; /* c may be gone once unlocked */

	if (!status && req->rlen >= 7) {
		c->type = r[4];
		if (req->rlen >= 11)
			c->count = g32(r + 7);
		if (c->type == RLERROR)
			status = -(int)c->count;
	} else if (!status) {
		status = -EBADMSG;
	}
	if (!async) {
		c->status = status;
		return; /* the waiter reads it and puts the request */
	}
	pthread_mutex_lock(c->lock);
	c->status = status;
	c->done = true;
	(*c->inflight)--;
	pthread_cond_broadcast(c->cond);
	pthread_mutex_unlock(c->lock);
	lx_xprt_req_put(req); /* async: nobody waits on the request */
}

/* Rread: data after size[4] type[1] tag[2] count[4] goes to the caller */
static int rread_place(struct lx_xprt_req *req, size_t have, size_t msg_len)
{
	struct call *c = req->user;
	const uint8_t *r = req->rbuf->data;
	uint32_t count;

	if (have < P9_RHDR)
		return msg_len >= P9_RHDR ? P9_RHDR : 0;
	if (r[4] != RREAD)
		return 0; /* Rlerror: all in the receive buffer */
	count = g32(r + 7);
	if (count > msg_len - P9_RHDR)
		return -EBADMSG;
	if (count > c->dst.iov_len)
		return -EOVERFLOW;
	lx_xprt_iter_iovec(&req->rx_data, &c->dst, 1, count);
	req->rx_data_off = P9_RHDR;
	req->rx_data_len = count;
	req->rx_data_pad = 0;
	return 0;
}

static const struct lx_xprt_req_ops ops_plain = {.done = call_done};
static const struct lx_xprt_req_ops ops_read = {
	.done = call_done,
	.place = rread_place,
};

/* Synchronous: build with @fill, submit under the slot's tag (or NOTAG),
 * wait.  Return the status; the reply stays in *@rep. */
typedef void (*fill_fn)(struct lx_xprt_req *req, uint16_t tag, void *arg);

static int rpc9(struct lx_xprt *x, uint8_t type, bool notag, fill_fn fill,
		void *arg, struct call *c, uint8_t *rep, size_t repcap)
{
	struct lx_xprt_req *req;
	uint16_t tag;
	int r;

	r = lx_xprt_req_alloc(x, 0, &req);
	if (r)
		return r;
	tag = notag ? NOTAG : (uint16_t)req->slot;
	memset(c, 0, sizeof(*c));
	req->user = c;
	req->ops = &ops_plain;
	fill(req, tag, arg);
	r = lx_xprt_req_submit(req, tag);
	if (r) {
		lx_xprt_req_put(req);
		return r;
	}
	lx_xprt_req_done_wait(req, -1);
	if (rep)
		memcpy(rep, req->rbuf->data,
		       req->rlen < repcap ? req->rlen : repcap);
	lx_xprt_req_put(req);
	return c->status;
}

static void fill_version(struct lx_xprt_req *req, uint16_t tag, void *arg)
{
	struct mb m = msg_begin(req, TVERSION, tag);

	(void)arg;
	b32(&m, (uint32_t)msize);
	bstr(&m, "9P2000.L");
	msg_end(req, &m, 0);
}

static void fill_attach(struct lx_xprt_req *req, uint16_t tag, void *arg)
{
	struct mb m = msg_begin(req, TATTACH, tag);

	(void)arg;
	b32(&m, 0);	/* fid */
	b32(&m, NOFID); /* afid */
	bstr(&m, "root");
	bstr(&m, aname);
	b32(&m, 0); /* n_uname */
	msg_end(req, &m, 0);
}

struct walk_arg {
	uint32_t fid, newfid;
	const char *name; /* NULL: clone */
};

static void fill_walk(struct lx_xprt_req *req, uint16_t tag, void *arg)
{
	struct walk_arg *w = arg;
	struct mb m = msg_begin(req, TWALK, tag);

	b32(&m, w->fid);
	b32(&m, w->newfid);
	b16(&m, w->name ? 1 : 0);
	if (w->name)
		bstr(&m, w->name);
	msg_end(req, &m, 0);
}

static void fill_lcreate(struct lx_xprt_req *req, uint16_t tag, void *arg)
{
	struct mb m = msg_begin(req, TLCREATE, tag);

	b32(&m, 1);
	bstr(&m, (const char *)arg);
	b32(&m, O_RDWR | O_CREAT | O_TRUNC);
	b32(&m, 0644);
	b32(&m, 0); /* gid */
	msg_end(req, &m, 0);
}

static void fill_clunk(struct lx_xprt_req *req, uint16_t tag, void *arg)
{
	struct mb m = msg_begin(req, TCLUNK, tag);

	b32(&m, *(uint32_t *)arg);
	msg_end(req, &m, 0);
}

/* ------------------------------------------------------- pipelined I/O */

/* Move [0, len) of @buf with Twrite or Tread of @chunk bytes, @depth in
 * flight.  Return 0 or the first error; *bad counts short transfers. */
static int io_pipe(struct lx_xprt *x, bool write, uint8_t *buf, size_t len,
		   size_t chunk, unsigned int d, unsigned int *bad)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct call *calls = calloc(d, sizeof(*calls));
	unsigned int inflight = 0, i;
	size_t off = 0;
	int err = 0, r;

	*bad = 0;
	pthread_mutex_lock(&lock);
	for (i = 0; i < d; i++)
		calls[i].done = true;
	while ((off < len && !err) || inflight) {
		for (i = 0; i < d && off < len && !err; i++) {
			struct call *c = &calls[i];
			struct lx_xprt_req *req;
			size_t n = len - off < chunk ? len - off : chunk;
			struct mb m;

			if (!c->done)
				continue;
			if (c->status && !err)
				err = c->status;
			if (c->type && c->count != c->dst.iov_len)
				(*bad)++;
			memset(c, 0, sizeof(*c));
			c->lock = &lock;
			c->cond = &cond;
			c->inflight = &inflight;
			c->dst.iov_base = buf + off;
			c->dst.iov_len = n;
			pthread_mutex_unlock(&lock);
			r = lx_xprt_req_alloc(x, 0, &req);
			if (r) {
				pthread_mutex_lock(&lock);
				err = r;
				c->done = true;
				break;
			}
			req->user = c;
			m = msg_begin(req, write ? TWRITE : TREAD,
				      (uint16_t)req->slot);
			b32(&m, 1);
			b64(&m, off);
			b32(&m, (uint32_t)n);
			if (write) {
				lx_xprt_req_add_seg(req, buf + off, n);
				msg_end(req, &m, n);
				req->ops = &ops_plain;
			} else {
				msg_end(req, &m, 0);
				req->ops = &ops_read;
			}
			pthread_mutex_lock(&lock);
			inflight++;
			pthread_mutex_unlock(&lock);
			r = lx_xprt_req_submit(req, (uint16_t)req->slot);
			pthread_mutex_lock(&lock);
			if (r) {
				inflight--;
				c->done = true;
				err = r;
				pthread_mutex_unlock(&lock);
				lx_xprt_req_put(req);
				pthread_mutex_lock(&lock);
				break;
			}
			off += n;
		}
		if (inflight)
			pthread_cond_wait(&cond, &lock);
	}
	for (i = 0; i < d; i++) {
		if (calls[i].status && !err)
			err = calls[i].status;
		if (calls[i].type && calls[i].count != calls[i].dst.iov_len)
			(*bad)++;
	}
	pthread_mutex_unlock(&lock);
	free(calls);
	return err;
}

/* One Tread that gets no reply (the relay drops it): it must time out,
 * and the receive it left posted must serve the next requests. */
static void test_excess(struct lx_xprt *x, size_t chunk)
{
	struct lx_xprt_rdma_stats st;
	struct lx_xprt_req *req;
	struct call c = {0};
	uint8_t *buf = calloc(40, 4096);
	unsigned int bad;
	struct mb m;
	int r;

	(void)chunk;
	r = lx_xprt_req_alloc(x, 0, &req);
	if (r) {
		report("excess", false, "alloc: %s", strerror(-r));
		free(buf);
		return;
	}
	req->user = &c;
	c.dst.iov_base = buf;
	c.dst.iov_len = 4096;
	req->ops = &ops_read;
	m = msg_begin(req, TREAD, (uint16_t)req->slot);
	b32(&m, 1);
	b64(&m, 0);
	b32(&m, 4096);
	msg_end(req, &m, 0);
	r = lx_xprt_req_submit(req, (uint16_t)req->slot);
	if (!r) {
		lx_xprt_req_set_timer(req, 1000000000ull);
		lx_xprt_req_done_wait(req, -1);
		r = c.status;
	}
	lx_xprt_req_put(req);
	report("excess-timeout", r == -ETIMEDOUT,
	       "Tread whose reply the relay dropped: %s", strerror(-r));
	r = io_pipe(x, false, buf, 4096 * 40, 4096, 4, &bad);
	lx_xprt_rdma_stats(x, &st);
	report("excess", !r && !bad && st.excess_recvs >= 1,
	       "40 Treads after it: %s, %u short; %llu excess receive(s) "
	       "reused",
	       strerror(-r), bad, (unsigned long long)st.excess_recvs);
	free(buf);
}

/* ------------------------------------------------------------ main */

static uint8_t pat(size_t i)
{
	return (uint8_t)(i * 31 + (i >> 11) + 7);
}

int main(int argc, char **argv)
{
	struct lx_xprt_opts o = {0};
	struct lx_xprt_rdma_opts ro = {.ack_timeout = 20};
	struct lx_xprt_rdma_stats st;
	struct lx_xprt *x;
	struct call c;
	uint8_t rep[64], *wbuf, *rbuf;
	uint32_t fid0 = 0, fid1 = 1;
	unsigned int bad, nmsize;
	size_t chunk, i, diff;
	double t0, dt;
	int opt, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:p:A:s:d:n:m:x")) != -1) {
		switch (opt) {
		case 'a':
			host = optarg;
			break;
		case 'p':
			port = (unsigned int)atoi(optarg);
			break;
		case 'A':
			aname = optarg;
			break;
		case 's':
			total = (size_t)atol(optarg);
			break;
		case 'd':
			depth = (unsigned int)atoi(optarg);
			break;
		case 'n':
			rate_ops = (unsigned int)atoi(optarg);
			break;
		case 'm':
			msize = (size_t)atol(optarg);
			break;
		case 'x':
			excess_mode = true;
			break;
		default:
			fprintf(stderr, "usage: p9_rdma [-a IP] [-p PORT] [-A "
					"ANAME] [-s SIZE] [-d DEPTH] [-n "
					"RATE_OPS] [-m MSIZE] [-x]\n");
			return 2;
		}
	}

	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.host = host;
	o.port = (uint16_t)port;
	o.framing = &lx_xprt_framing_9p;
	o.max_reqs = 32;
	o.buf_size = msize; /* receive buffers are msize, as trans_rdma */
	o.policy = LX_XPRT_FAIL;
	/* the guest may stall for seconds on a busy host: a long ACK
	 * timeout keeps rxe from declaring the relay dead */
	o.rdma = &ro;
	t0 = now_s();
	r = lx_xprt_create(&x, &o);
	report("connect", !r, "9P over RDMA to %s:%u: %s (%.1f ms)", host, port,
	       strerror(-r), (now_s() - t0) * 1e3);
	if (r)
		return 1;

	r = rpc9(x, TVERSION, true, fill_version, NULL, &c, rep, sizeof(rep));
	nmsize = g32(rep + 7);
	report("version",
	       !r && c.type == RVERSION && nmsize >= 8192 && nmsize <= msize,
	       "Rversion type %u, msize %u: %s", c.type, nmsize, strerror(-r));
	if (r)
		goto out;
	chunk = nmsize - IOHDR;
	r = rpc9(x, TATTACH, false, fill_attach, NULL, &c, NULL, 0);
	report("attach", !r && c.type == RATTACH, "%s: type %u, %s", aname,
	       c.type, strerror(-r));
	if (r)
		goto out;
	{
		/* over RDMA every message must be answered (its receive and
		 * credit come back with the reply): no_reply is refused */
		struct lx_xprt_req *req;

		r = lx_xprt_req_alloc(x, 0, &req);
		if (!r) {
			struct mb m =
				msg_begin(req, TCLUNK, (uint16_t)req->slot);

			b32(&m, 99);
			msg_end(req, &m, 0);
			req->ops = &ops_plain;
			req->no_reply = true;
			r = lx_xprt_req_submit(req, (uint16_t)req->slot);
			lx_xprt_req_put(req);
		}
		report("no-reply", r == -EOPNOTSUPP,
		       "a message expecting no reply: %s", strerror(-r));
	}
	{
		struct walk_arg w = {0, 1, NULL};

		r = rpc9(x, TWALK, false, fill_walk, &w, &c, NULL, 0);
		if (!r)
			r = rpc9(x, TLCREATE, false, fill_lcreate, "p9rdma.bin",
				 &c, NULL, 0);
		report("create", !r && c.type == RLCREATE,
		       "walk + lcreate p9rdma.bin: type %u, %s", c.type,
		       strerror(-r));
		if (r)
			goto out;
	}

	if (excess_mode) {
		/* a file to read from first: 40 pages */
		uint8_t *pages = malloc(4096 * 40);
		unsigned int b2;

		memset(pages, 7, 4096 * 40);
		r = io_pipe(x, true, pages, 4096 * 40, 4096, 4, &b2);
		free(pages);
		if (!r)
			test_excess(x, chunk);
		else
			report("excess", false, "write: %s", strerror(-r));
		goto clunk;
	}
	wbuf = malloc(total);
	rbuf = calloc(1, total);
	for (i = 0; i < total; i++)
		wbuf[i] = pat(i);
	t0 = now_s();
	r = io_pipe(x, true, wbuf, total, chunk, depth, &bad);
	dt = now_s() - t0;
	report("write", !r && !bad,
	       "%zu bytes in %zu-byte Twrites, %u in flight: %.1f MiB/s, "
	       "%u short, %s",
	       total, chunk, depth, total / dt / (1 << 20), bad, strerror(-r));
	t0 = now_s();
	r = io_pipe(x, false, rbuf, total, chunk, depth, &bad);
	dt = now_s() - t0;
	for (diff = 0, i = 0; i < total; i++)
		diff += rbuf[i] != wbuf[i];
	report("read", !r && !bad && !diff,
	       "%zu bytes in %zu-byte Treads, %u in flight: %.1f MiB/s, %u "
	       "short, %zu bytes differ, %s",
	       total, chunk, depth, total / dt / (1 << 20), bad, diff,
	       strerror(-r));

	/* small reads: latency and pipelining */
	if (rate_ops) {
		unsigned int d;

		for (d = 1; d <= depth; d *= depth) {
			t0 = now_s();
			r = io_pipe(x, false, rbuf,
				    (size_t)rate_ops * 4096 < total ?
					    (size_t)rate_ops * 4096 :
					    total,
				    4096, d, &bad);
			dt = now_s() - t0;
			report("rate", !r && !bad,
			       "4 KiB Tread, %u in flight: %.0f ops/s", d,
			       (double)((size_t)rate_ops * 4096 < total ?
						rate_ops :
						total / 4096) /
				       dt);
			if (d == depth)
				break;
		}
	}
	free(wbuf);
	free(rbuf);

	{
		struct walk_arg w = {0, 2, "no-such-file"};

		r = rpc9(x, TWALK, false, fill_walk, &w, &c, NULL, 0);
		report("error", r == -ENOENT && c.type == RLERROR,
		       "walk to a missing name: type %u, %s", c.type,
		       strerror(-r));
	}
clunk:
	r = rpc9(x, TCLUNK, false, fill_clunk, &fid1, &c, NULL, 0);
	if (!r)
		r = rpc9(x, TCLUNK, false, fill_clunk, &fid0, &c, NULL, 0);
	report("clunk", !r && c.type == RCLUNK, "fids 1 and 0: %s",
	       strerror(-r));
	lx_xprt_rdma_stats(x, &st);
	printf("rdma: receives %llu in %llu doorbells, sends %llu (%llu "
	       "signalled), excess receives %llu, bad headers %llu\n",
	       (unsigned long long)st.recvs_posted,
	       (unsigned long long)st.recv_doorbells,
	       (unsigned long long)st.sends,
	       (unsigned long long)st.sends_signaled,
	       (unsigned long long)st.excess_recvs,
	       (unsigned long long)st.bad_headers);
out:
	lx_xprt_destroy(x);
	return fails ? 1 : 0;
}
