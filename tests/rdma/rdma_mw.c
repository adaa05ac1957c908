// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdma_mw - what a server can do with the keys our client hands out, seen
 * from a server of our own.
 *
 * One process, two sides over Soft-RoCE: the library's SunRPC client
 * (RPC-over-RDMA v1, memory windows), and a scripted RPC-over-RDMA server
 * written with raw verbs on the same device.  A type 2 window is tied to
 * the queue pair that bound it, so the attacker must be the peer of that
 * very connection: this server is.  It keeps every chunk's key, answers
 * (or not) as the scenario says, and then uses the key again.  Each
 * scenario is one call of a test program (prog 0x20000099): proc 1 reads
 * LEN bytes (a Write chunk: the server RDMA-Writes into our memory), proc
 * 2 writes them (a Read chunk: the server RDMA-Reads our memory).
 *
 *   write-win  READ into a registered buffer: the server's RDMA Write
 *              through the window works before its reply (the positive
 *              control); it replies with a plain Send, so the client must
 *              invalidate locally and wait; from inside done() the server
 *              writes through the key again: remote access error
 *   read-win   WRITE from unregistered memory (a registration of the call
 *              with bind rights, a window on top): RDMA Read before the
 *              reply works and reads the right bytes; after done(): error
 *   remote-inv READ, the server replies With Invalidate naming the key:
 *              counted as a remote invalidation, no local one; after
 *              done(): error
 *   access     READ: an RDMA Read through the Write chunk's key fails
 *              before the reply (only the access the chunk needs); the
 *              connection dies, the call is resent on a new one with a
 *              fresh window and another key; the old key on the new
 *              connection fails too (windows are tied to their queue
 *              pair); the third connection answers and the READ succeeds
 *   timeout    READ the server never answers: the call times out; from
 *              inside done() no window is live, one was deallocated, and
 *              the server's RDMA Write through the key fails
 *   cancel     READ the server writes into and never answers: the caller
 *              cancels it; inside done() (-ECANCELED) nothing is live
 *              and the key is refused
 *   malformed  READ answered with a Write chunk longer than offered: the
 *              reply is refused (-EBADMSG, nothing placed); inside done()
 *              nothing is live and the key is refused
 *   lost       READ, then the server drops the connection and refuses to
 *              accept for a while: the call times out while disconnected;
 *              inside done() no window is live and the dead connection's
 *              window was deallocated
 *   reply-big  a call whose reply may be large (reply_hint 64 KiB, eight
 *              times buf_size): its Reply chunk is one window over a reply
 *              buffer of that size; the server RDMA-Writes a 16 KiB reply
 *              into it before its RDMA_NOMSG Send, the client decodes it
 *              from there (every byte checked), invalidates locally and
 *              from inside done() the key is refused
 *   reply-big-timeout  the same call, never answered after the server
 *              wrote through the key: -ETIMEDOUT, nothing live inside
 *              done(), the key refused
 *   bounds     (INFO) a Write one byte past the window, inside the
 *              registration: hardware refuses it; Soft-RoCE 6.1 checks only
 *              the registration's bounds
 *   after      a plain call still works; nothing is live; the registered
 *              buffer can be unregistered
 *   control    the same READ as write-win through a client with the
 *              registration cache (LX_XPRT_RDMA_REG_CACHE_UNSAFE): the
 *              server's RDMA Write after done() succeeds - the standing
 *              access the default no longer leaves, and proof that the
 *              checks above can fail
 *
 * Every check prints PASS/FAIL (tool.h); the last line summarises what the
 * server could do with the keys before and after each call ended.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include <libxprt/rdma.h>
#include <libxprt/rpc.h>
#include <libxprt/proto/xprt.h>

#include "rpc/rpc_rdma.h"
#include "tool.h"

#define PROG	    0x20000099u
#define VERS	    1u
#define P_READ	    1u
#define P_WRITE	    2u
#define P_LIST	    3u /* results: count, count bytes of 0xa5 (Reply chunk) */
#define LIST_HINT   65536u
#define LEN	    16384u
#define SRV_BUF	    8192u
#define SRV_RECVS   8
#define SRV_DATA    (LEN + 4096)
#define ACK_TIMEOUT 20

static const char *host = "10.0.2.15";
static unsigned int port = 20060;

/* --------------------------------------------------------- the server */

enum scen {
	S_WRITE_WIN = 1,
	S_READ_WIN,
	S_REMOTE_INV,
	S_ACCESS,
	S_TIMEOUT,
	S_LOST,
	S_BOUNDS,
	S_AFTER,
	S_REPLY_BIG,
	S_REPLY_TIMEOUT,
	S_CANCEL,
	S_MALFORMED,
};

/* what a scenario asks the server to do after the client's done() */
enum after_op { AFTER_NONE, AFTER_WRITE, AFTER_READ };

struct seg {
	uint32_t handle, length;
	uint64_t offset;
};

struct srv {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* set by the client side */
	enum scen scen;
	enum after_op after; /* requested from done() */
	bool refuse;	     /* reject connection requests */
	bool stop;
	/* results */
	int pre_status;	  /* the RDMA op before the reply (wc status) */
	int pre2_status;  /* a second one (old key on a new QP) */
	int after_status; /* the RDMA op after done(), -1 none yet */
	bool after_done;
	unsigned int attempts;		/* calls of this scenario received */
	uint32_t keys[4];		/* the chunk key of each attempt */
	uint32_t reply_segs, reply_len; /* the Reply chunk offered */
	bool pre_data_ok;
	/* verbs */
	struct rdma_event_channel *ech;
	struct rdma_cm_id *lid, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;	 /* SRV_RECVS receive buffers, a send buffer, data */
	struct seg seg;	 /* the kept chunk segment */
	uint8_t *expect; /* what an RDMA Read must find (read-win) */
};

static struct srv S = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static uint8_t *rbuf_of(int i)
{
	return S.buf + (size_t)i * SRV_BUF;
}

static uint8_t *sbuf(void)
{
	return S.buf + (size_t)SRV_RECVS * SRV_BUF;
}

static uint8_t *dbuf(void)
{
	return S.buf + (size_t)(SRV_RECVS + 1) * SRV_BUF;
}

static void srv_post_recv(int i)
{
	struct ibv_sge sge = {.addr = (uintptr_t)rbuf_of(i),
			      .length = SRV_BUF,
			      .lkey = S.mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = (uint64_t)i,
				 .sg_list = &sge,
				 .num_sge = 1},
			   *bad;

	ibv_post_recv(S.qp, &wr, &bad);
}

static void srv_drop(void)
{
	if (S.id) {
		rdma_disconnect(S.id);
		if (S.qp)
			rdma_destroy_qp(S.id);
		rdma_destroy_id(S.id);
	}
	if (S.cq)
		ibv_destroy_cq(S.cq);
	S.id = NULL;
	S.qp = NULL;
	S.cq = NULL;
}

static int srv_accept(struct rdma_cm_id *id, const struct rdma_conn_param *req)
{
	struct ibv_qp_init_attr qa = {0};
	struct rdma_conn_param cp = {0};
	uint8_t pdata[LX_RPCRDMA_CM_PDATA_LEN];
	int i;

	if (!S.pd) {
		S.pd = ibv_alloc_pd(id->verbs);
		S.buf = aligned_alloc(4096, (size_t)(SRV_RECVS + 1) * SRV_BUF +
						    SRV_DATA);
		if (!S.pd || !S.buf)
			return -1;
		S.mr = ibv_reg_mr(S.pd, S.buf,
				  (size_t)(SRV_RECVS + 1) * SRV_BUF + SRV_DATA,
				  IBV_ACCESS_LOCAL_WRITE);
		if (!S.mr)
			return -1;
	}
	S.cq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
	if (!S.cq)
		return -1;
	qa.send_cq = qa.recv_cq = S.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = SRV_RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, S.pd, &qa))
		return -1;
	S.id = id;
	S.qp = id->qp;
	for (i = 0; i < SRV_RECVS; i++)
		srv_post_recv(i);
	lx_rpcrdma_cm_encode(pdata, 4096, 4096, 0);
	cp.private_data = pdata;
	cp.private_data_len = sizeof(pdata);
	/* we RDMA-Read the client's Read chunks */
	cp.initiator_depth = req->responder_resources ?
				     (req->responder_resources < 16 ?
					      req->responder_resources :
					      16) :
				     1;
	cp.responder_resources = 0;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	return rdma_accept(id, &cp);
}

/* Wait for one send completion; return its status (or -1). */
static int srv_wait_send(void)
{
	struct ibv_wc wc;
	double t0 = now_s();

	while (now_s() - t0 < 10) {
		int n = ibv_poll_cq(S.cq, 1, &wc);

		if (n < 0)
			return -1;
		if (n && !(wc.opcode & IBV_WC_RECV))
			return wc.status;
		if (n) /* a receive (flushed): give it back later */
			continue;
		usleep(200);
	}
	return -1;
}

static int srv_rdma(enum ibv_wr_opcode op, const struct seg *sg, uint32_t off,
		    uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)dbuf(), .length = len, .lkey = S.mr->lkey};
	struct ibv_send_wr wr = {0}, *bad;

	if (!S.qp)
		return -1;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = sg->offset + off;
	wr.wr.rdma.rkey = sg->handle;
	if (ibv_post_send(S.qp, &wr, &bad))
		return -1;
	return srv_wait_send();
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint8_t *wr32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
	return p + 4;
}

/* Reply to @xid; @write_len: bytes of the Write chunk used (READ);
 * @inv: Send With Invalidate of the kept key. */
static int srv_reply(uint32_t xid, uint32_t proc, uint32_t write_len, bool inv)
{
	struct lx_rpcrdma_hdr h;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {0}, *bad;
	uint8_t *p;
	long hl;

	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.vers = LX_RPCRDMA_VERSION;
	h.credits = 8;
	h.proc = RDMA_MSG;
	if (proc == P_READ) {
		h.nr_writes = 1;
		h.writes[0].nsegs = 1;
		h.writes[0].segs[0].handle = S.seg.handle;
		h.writes[0].segs[0].length = write_len;
		h.writes[0].segs[0].offset = S.seg.offset;
	}
	hl = lx_rpcrdma_encode(sbuf(), 512, &h);
	if (hl < 0)
		return -1;
	p = sbuf() + hl;
	p = wr32(p, xid);
	p = wr32(p, 1); /* REPLY */
	p = wr32(p, 0); /* MSG_ACCEPTED */
	p = wr32(p, 0); /* verifier AUTH_NONE */
	p = wr32(p, 0);
	p = wr32(p, 0);		/* SUCCESS */
	p = wr32(p, write_len); /* results: the count (data reduced) */
	sge.addr = (uintptr_t)sbuf();
	sge.length = (uint32_t)(p - sbuf());
	sge.lkey = S.mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	if (inv)
		wr.invalidate_rkey = S.seg.handle;
	if (ibv_post_send(S.qp, &wr, &bad))
		return -1;
	return srv_wait_send();
}

/* P_LIST: the RPC reply (count, count bytes of 0xa5) RDMA-Written into
 * the call's Reply chunk, then an RDMA_NOMSG Send naming its length.
 * @send false: written, never answered (the call times out). */
static int srv_reply_chunk(uint32_t xid, const struct seg *sg, bool send)
{
	uint32_t len = 28 + LEN;
	struct lx_rpcrdma_hdr h;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {0}, *bad;
	uint8_t *p = dbuf();
	int st;
	long hl;

	p = wr32(p, xid);
	p = wr32(p, 1); /* REPLY */
	p = wr32(p, 0); /* MSG_ACCEPTED */
	p = wr32(p, 0); /* verifier AUTH_NONE */
	p = wr32(p, 0);
	p = wr32(p, 0); /* SUCCESS */
	p = wr32(p, LEN);
	memset(p, 0xa5, LEN);
	if (sg->length < len)
		return -1;
	st = srv_rdma(IBV_WR_RDMA_WRITE, sg, 0, len);
	pthread_mutex_lock(&S.lock);
	S.pre_status = st;
	pthread_mutex_unlock(&S.lock);
	if (st || !send)
		return st;
	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.vers = LX_RPCRDMA_VERSION;
	h.credits = 8;
	h.proc = RDMA_NOMSG;
	h.has_reply = true;
	h.reply.nsegs = 1;
	h.reply.segs[0].handle = sg->handle;
	h.reply.segs[0].length = len;
	h.reply.segs[0].offset = sg->offset;
	hl = lx_rpcrdma_encode(sbuf(), 512, &h);
	if (hl < 0)
		return -1;
	sge.addr = (uintptr_t)sbuf();
	sge.length = (uint32_t)hl;
	sge.lkey = S.mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_SEND;
	if (ibv_post_send(S.qp, &wr, &bad))
		return -1;
	return srv_wait_send();
}

/* A call arrived in receive buffer @i (@len bytes): play the scenario. */
static void srv_call(int i, uint32_t len)
{
	const uint8_t *b = rbuf_of(i);
	struct lx_rpcrdma_hdr h;
	uint32_t xid, proc, off, clen, vlen;
	struct seg kept = {0};
	enum scen sc;
	unsigned int att;
	int st = 0;
	long hl;

	hl = lx_rpcrdma_decode(b, len, &h);
	if (hl < 0 || len < (uint32_t)hl + 24)
		return;
	xid = rd32(b + hl);
	proc = rd32(b + hl + 20);
	off = (uint32_t)hl + 24;
	clen = rd32(b + off + 4); /* credential */
	off += 8 + ((clen + 3) & ~3u);
	vlen = rd32(b + off + 4); /* verifier */
	off += 8 + ((vlen + 3) & ~3u);
	(void)off;
	if (proc == P_READ && h.nr_writes == 1 && h.writes[0].nsegs == 1) {
		kept.handle = h.writes[0].segs[0].handle;
		kept.length = h.writes[0].segs[0].length;
		kept.offset = h.writes[0].segs[0].offset;
	} else if (proc == P_WRITE && h.nr_reads >= 1) {
		kept.handle = h.reads[0].seg.handle;
		kept.length = h.reads[0].seg.length;
		kept.offset = h.reads[0].seg.offset;
	} else if (proc == P_LIST && h.has_reply && h.reply.nsegs >= 1) {
		kept.handle = h.reply.segs[0].handle;
		kept.length = h.reply.segs[0].length;
		kept.offset = h.reply.segs[0].offset;
	} else if (proc != 0) {
		fprintf(stderr, "rdma_mw: server: proc %u without its chunk\n",
			proc);
		return;
	}
	pthread_mutex_lock(&S.lock);
	sc = S.scen;
	att = S.attempts++;
	if (att < 4)
		S.keys[att] = kept.handle;
	if (proc == P_LIST) {
		S.reply_segs = h.reply.nsegs;
		S.reply_len = 0;
		for (unsigned int k = 0; k < h.reply.nsegs; k++)
			S.reply_len += h.reply.segs[k].length;
	}
	pthread_mutex_unlock(&S.lock);
	if (proc == 0) { /* NULL */
		srv_reply(xid, 0, 0, false);
		return;
	}
	if (proc == P_LIST) {
		S.seg = kept;
		srv_reply_chunk(xid, &kept, sc != S_REPLY_TIMEOUT);
		return;
	}
	/* the data the server writes (READ) */
	memset(dbuf(), 0xa5, LEN);
	switch (sc) {
	case S_WRITE_WIN:
	case S_REMOTE_INV:
	case S_TIMEOUT:
	case S_CANCEL:
	case S_MALFORMED:
		S.seg = kept;
		st = srv_rdma(IBV_WR_RDMA_WRITE, &kept, 0, kept.length);
		break;
	case S_READ_WIN:
		S.seg = kept;
		memset(dbuf(), 0, LEN);
		st = srv_rdma(IBV_WR_RDMA_READ, &kept, 0, kept.length);
		S.pre_data_ok = !st && S.expect &&
				!memcmp(dbuf(), S.expect, kept.length);
		break;
	case S_ACCESS:
		if (att == 0) {
			/* read through a write-only window: refused, the
			 * connection dies, the call is resent */
			S.seg = kept;
			st = srv_rdma(IBV_WR_RDMA_READ, &kept, 0, 64);
			S.pre_status = st;
			srv_drop();
			return;
		}
		if (att == 1) {
			/* the old key, on the new connection */
			st = srv_rdma(IBV_WR_RDMA_WRITE, &S.seg, 0, 64);
			S.pre2_status = st;
			srv_drop();
			return;
		}
		S.seg = kept;
		st = srv_rdma(IBV_WR_RDMA_WRITE, &kept, 0, kept.length);
		break;
	case S_LOST:
		S.seg = kept;
		st = srv_rdma(IBV_WR_RDMA_WRITE, &kept, 0, kept.length);
		pthread_mutex_lock(&S.lock);
		S.pre_status = st;
		S.refuse = true;
		pthread_mutex_unlock(&S.lock);
		srv_drop();
		return;
	case S_BOUNDS:
		if (att == 0) {
			S.seg = kept;
			st = srv_rdma(IBV_WR_RDMA_WRITE, &kept, kept.length, 1);
			S.pre_status = st;
			if (st) {
				srv_drop(); /* hardware: the call is resent */
				return;
			}
		} else {
			S.seg = kept;
		}
		st = srv_rdma(IBV_WR_RDMA_WRITE, &S.seg, 0, S.seg.length);
		break;
	default:
		S.seg = kept;
		if (proc == P_READ)
			st = srv_rdma(IBV_WR_RDMA_WRITE, &kept, 0, kept.length);
		break;
	}
	pthread_mutex_lock(&S.lock);
	if (sc != S_ACCESS && sc != S_BOUNDS)
		S.pre_status = st;
	pthread_mutex_unlock(&S.lock);
	if (sc == S_TIMEOUT || sc == S_CANCEL)
		return; /* no reply: the client times out or cancels */
	if (sc == S_MALFORMED) {
		/* more bytes than the segment offered */
		srv_reply(xid, proc, kept.length + 4096, false);
		return;
	}
	srv_reply(xid, proc, proc == P_READ ? kept.length : LEN,
		  sc == S_REMOTE_INV);
}

static void srv_cm(void)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(S.ech, &ev)) {
		struct rdma_cm_id *id = ev->id;
		struct rdma_conn_param req = ev->param.conn;
		enum rdma_cm_event_type t = ev->event;

		rdma_ack_cm_event(ev);
		switch (t) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			bool refuse;

			pthread_mutex_lock(&S.lock);
			refuse = S.refuse;
			pthread_mutex_unlock(&S.lock);
			if (refuse || S.id) {
				rdma_reject(id, NULL, 0);
				rdma_destroy_id(id);
				break;
			}
			if (srv_accept(id, &req)) {
				fprintf(stderr, "rdma_mw: server: accept: %s\n",
					strerror(errno));
				rdma_reject(id, NULL, 0);
				srv_drop();
			}
			break;
		}
		case RDMA_CM_EVENT_DISCONNECTED:
			if (id == S.id)
				srv_drop();
			break;
		default:
			break;
		}
	}
}

static void *srv_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct ibv_wc wc;
		enum after_op after;
		int n;

		pthread_mutex_lock(&S.lock);
		if (S.stop) {
			pthread_mutex_unlock(&S.lock);
			break;
		}
		after = S.after;
		S.after = AFTER_NONE;
		pthread_mutex_unlock(&S.lock);
		if (after != AFTER_NONE) {
			int st = srv_rdma(after == AFTER_WRITE ?
						  IBV_WR_RDMA_WRITE :
						  IBV_WR_RDMA_READ,
					  &S.seg, 0, 64);

			pthread_mutex_lock(&S.lock);
			S.after_status = st;
			S.after_done = true;
			pthread_cond_broadcast(&S.cond);
			pthread_mutex_unlock(&S.lock);
			if (st)
				srv_drop(); /* the QP is in error now */
		}
		srv_cm();
		if (S.cq && (n = ibv_poll_cq(S.cq, 1, &wc)) > 0) {
			if (wc.status == IBV_WC_SUCCESS &&
			    wc.opcode == IBV_WC_RECV) {
				srv_call((int)wc.wr_id, wc.byte_len);
				if (S.qp)
					srv_post_recv((int)wc.wr_id);
			} else if (wc.status != IBV_WC_SUCCESS) {
				srv_drop();
			}
			continue;
		}
		usleep(500);
	}
	srv_drop();
	return NULL;
}

static int srv_start(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};
	pthread_t t;

	inet_pton(AF_INET, host, &a.sin_addr);
	S.ech = rdma_create_event_channel();
	if (!S.ech)
		return -1;
	fcntl(S.ech->fd, F_SETFL, fcntl(S.ech->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(S.ech, &S.lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(S.lid, (struct sockaddr *)&a) ||
	    rdma_listen(S.lid, 4))
		return -1;
	return pthread_create(&t, NULL, srv_main, NULL) ? -1 : 0;
}

/* --------------------------------------------------------- the client */

struct ccall {
	struct lx_call call;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int status;
	enum after_op after; /* ask the server from inside done() */
	int after_status;    /* its result (-1: none) */
	struct lx_xprt_rdma_stats in_done; /* counters inside done() */
	uint32_t count;			   /* results */
	int cancel_ret;			   /* lx_call_cancel() (S_CANCEL) */
};

static struct lx_rpc_clnt *cl;

static bool_t x_u32(XDR *x, u_int *p)
{
	return xdr_u_int(x, p);
}

/* P_LIST results: the count and as many bytes of 0xa5, all checked */
static bool_t x_list(XDR *x, u_int *p)
{
	u_int i, w;

	if (!xdr_u_int(x, p) || *p != LEN)
		return FALSE;
	for (i = 0; i < LEN / 4; i++)
		if (!xdr_u_int(x, &w) || w != 0xa5a5a5a5u)
			return FALSE;
	return TRUE;
}

static int place_count(void *arg, const uint8_t *body, size_t have, size_t *off,
		       size_t *len)
{
	(void)arg;
	if (have < 4)
		return 4;
	*off = 4;
	*len = rd32(body);
	return 0;
}

static void ccall_done(struct lx_call *call, int status, void *arg)
{
	struct ccall *c = arg;

	(void)call;
	/* before done() returns: what is live, and what the server can
	 * still do with the key */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &c->in_done);
	c->after_status = -1;
	if (c->after != AFTER_NONE) {
		struct timespec ts;

		pthread_mutex_lock(&S.lock);
		S.after_done = false;
		S.after = c->after;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 10;
		while (!S.after_done)
			if (pthread_cond_timedwait(&S.cond, &S.lock, &ts))
				break;
		c->after_status = S.after_done ? S.after_status : -1;
		pthread_mutex_unlock(&S.lock);
	}
	pthread_mutex_lock(&c->lock);
	c->status = status;
	c->done = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* One call of scenario @sc; returns its status. */
static int run(enum scen sc, uint32_t proc, uint8_t *mem, enum after_op after,
	       unsigned int deadline_ms, struct ccall *c)
{
	struct iovec iov = {.iov_base = mem, .iov_len = LEN};
	uint32_t arg = LEN;
	struct lx_rpc_call_args a = {
		.proc = proc,
		.enc = (xdrproc_t)x_u32,
		.args = &arg,
		.dec = (xdrproc_t)x_u32,
		.deadline_ms = deadline_ms,
	};
	int r;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->after = after;
	a.res = &c->count;
	pthread_mutex_lock(&S.lock);
	S.scen = sc;
	S.attempts = 0;
	S.pre_status = S.pre2_status = -1;
	S.pre_data_ok = false;
	memset(S.keys, 0, sizeof(S.keys));
	pthread_mutex_unlock(&S.lock);
	if (proc == P_LIST) {
		a.dec = (xdrproc_t)x_list;
		a.reply_hint = LIST_HINT;
	} else if (proc == P_READ) {
		a.place = place_count;
		a.rx_iov = &iov;
		a.rx_iovcnt = 1;
		a.rx_len = LEN;
	} else {
		a.payload = &iov;
		a.npayload = 1;
	}
	c->call.done = ccall_done;
	c->call.arg = c;
	r = lx_rpc_call_async(cl, &c->call, &a);
	if (r)
		return r;
	if (sc == S_CANCEL) {
		/* once the server wrote through the key, with the window
		 * still bound: the caller gives up */
		double t0 = now_s();
		bool wrote = false;

		while (!wrote && now_s() - t0 < 10) {
			pthread_mutex_lock(&S.lock);
			wrote = S.pre_status != -1;
			pthread_mutex_unlock(&S.lock);
			if (!wrote)
				usleep(2000);
		}
		c->cancel_ret = lx_call_cancel(&c->call);
	}
	pthread_mutex_lock(&c->lock);
	while (!c->done)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	return c->status;
}

static const char *wcs(int st)
{
	return st < 0 ? "no completion" :
			ibv_wc_status_str((enum ibv_wc_status)st);
}

static bool all_bytes(const uint8_t *b, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/* The last scenario broke the connection the call used: wait until the
 * client is on a new one, so the next call is not sent on the dying one. */
static uint32_t cookie;

static bool wait_connected(unsigned int ms)
{
	struct lx_xprt *x = lx_rpc_xprt(cl, 0);
	double t0 = now_s();

	while (now_s() - t0 < ms / 1000.0) {
		if (lx_xprt_state(x) == LX_XPRT_CONNECTED &&
		    lx_xprt_connect_cookie(x) != cookie) {
			cookie = lx_xprt_connect_cookie(x);
			return true;
		}
		usleep(20000);
	}
	return false;
}

int main(int argc, char **argv)
{
	struct lx_rpc_opts o = {0};
	struct lx_xprt_rdma_opts ro = {.ack_timeout = ACK_TIMEOUT,
				       .reg_mode = LX_XPRT_RDMA_REG_WINDOW};
	struct lx_xprt_rdma_stats s0, s1;
	struct lx_xprt_rdma_mem *mem = NULL;
	unsigned int protected_after = 0, open_before = 0, ncheck = 0;
	uint8_t *reg, *unreg;
	struct ccall c;
	int r, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:p:")) != -1) {
		if (opt == 'a')
			host = optarg;
		else if (opt == 'p')
			port = (unsigned int)atoi(optarg);
		else
			return 2;
	}
	if (srv_start()) {
		report("server", false, "listen on %s:%u: %s", host, port,
		       strerror(errno));
		return 1;
	}
	/* registered memory with a guard page behind the buffer (bounds) */
	reg = aligned_alloc(4096, LEN + 4096);
	unreg = aligned_alloc(4096, LEN);
	if (!reg || !unreg)
		return 1;
	memset(reg, 0, LEN + 4096);
	fill_random(unreg, LEN, 7);
	r = lx_xprt_rdma_mem_register(reg, LEN + 4096, &mem);
	report("register", !r,
	       "lx_xprt_rdma_mem_register of %u bytes (local + bind "
	       "rights): %s",
	       LEN + 4096, lx_strerror(r));

	o.host = host;
	o.port = (uint16_t)port;
	o.prog = PROG;
	o.vers = VERS;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.max_reqs = 8;
	o.timeo_ms = 5000;
	/* calls survive the connections the scenarios break; the ones that
	 * must end do so at their deadline */
	o.hard = true;
	o.rdma = &ro;
	r = lx_rpc_create(&cl, &o);
	if (r) {
		report("connect", false, "%s:%u: %s", host, port,
		       lx_strerror(r));
		return 1;
	}
	cookie = lx_xprt_connect_cookie(lx_rpc_xprt(cl, 0));
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	report("connect", s0.reg_mode == LX_XPRT_RDMA_REG_WINDOW,
	       "to our scripted server: memory windows (type %d)%s", s0.mw_type,
	       s0.remote_inv_offered ? ", Send With Invalidate offered" : "");

	/* write-win */
	memset(reg, 0, LEN);
	s0 = s1 = s0;
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_WRITE_WIN, P_READ, reg, AFTER_WRITE, 0, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("write-win",
	       !r && S.pre_status == IBV_WC_SUCCESS &&
		       all_bytes(reg, LEN, 0xa5) &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR &&
		       c.in_done.win_live == 0 &&
		       s1.win_local_inv - s0.win_local_inv == 1 &&
		       s1.inv_waits - s0.inv_waits == 1,
	       "READ %u bytes: the server's RDMA Write before its reply: %s; "
	       "data %s; reply without invalidation: %llu local "
	       "invalidation(s), done() waited for it; inside done(): %llu "
	       "window(s) live, the server's RDMA Write through key %#x: %s",
	       LEN, wcs(S.pre_status),
	       all_bytes(reg, LEN, 0xa5) ? "arrived" : "WRONG",
	       (unsigned long long)(s1.win_local_inv - s0.win_local_inv),
	       (unsigned long long)c.in_done.win_live, S.seg.handle,
	       wcs(c.after_status));
	wait_connected(20000);

	/* read-win */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	S.expect = unreg;
	r = run(S_READ_WIN, P_WRITE, unreg, AFTER_READ, 0, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("read-win",
	       !r && S.pre_status == IBV_WC_SUCCESS && S.pre_data_ok &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR &&
		       c.in_done.win_live == 0 && s1.regs - s0.regs == 1 &&
		       s1.win_local_inv - s0.win_local_inv == 1 &&
		       S.attempts == 1,
	       "WRITE %u bytes from unregistered memory (%llu registration "
	       "with bind rights, a window on top): the server's RDMA Read "
	       "before its reply: %s, bytes %s; inside done(): %llu live, "
	       "its RDMA Read through key %#x: %s (%u attempt(s), %llu read "
	       "chunk(s))",
	       LEN, (unsigned long long)(s1.regs - s0.regs), wcs(S.pre_status),
	       S.pre_data_ok ? "right" : "WRONG",
	       (unsigned long long)c.in_done.win_live, S.seg.handle,
	       wcs(c.after_status), S.attempts,
	       (unsigned long long)(s1.read_chunks - s0.read_chunks));
	wait_connected(20000);

	/* remote-inv */
	memset(reg, 0, LEN);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_REMOTE_INV, P_READ, reg, AFTER_WRITE, 0, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("remote-inv",
	       !r && S.pre_status == IBV_WC_SUCCESS &&
		       all_bytes(reg, LEN, 0xa5) &&
		       s1.win_remote_inv - s0.win_remote_inv == 1 &&
		       s1.win_local_inv == s0.win_local_inv &&
		       s1.inv_waits == s0.inv_waits &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "READ answered With Invalidate of key %#x: %llu remote, %llu "
	       "local invalidation(s); before the reply the server's Write: "
	       "%s; after done(): %s",
	       S.seg.handle,
	       (unsigned long long)(s1.win_remote_inv - s0.win_remote_inv),
	       (unsigned long long)(s1.win_local_inv - s0.win_local_inv),
	       wcs(S.pre_status), wcs(c.after_status));
	wait_connected(20000);

	/* access */
	memset(reg, 0, LEN);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_ACCESS, P_READ, reg, AFTER_NONE, 30000, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	report("access",
	       !r && S.pre_status == IBV_WC_REM_ACCESS_ERR &&
		       S.pre2_status == IBV_WC_REM_ACCESS_ERR &&
		       S.attempts == 3 && S.keys[0] != S.keys[1] &&
		       S.keys[1] != S.keys[2] && S.keys[0] != S.keys[2] &&
		       all_bytes(reg, LEN, 0xa5) &&
		       s1.win_deallocs - s0.win_deallocs == 2 &&
		       s1.win_live == 0,
	       "RDMA Read through a Write chunk's key: %s; resent on a new "
	       "connection with a fresh window (keys %#x, %#x, %#x), the "
	       "old key there: %s; %llu dead connection window(s) "
	       "deallocated; the READ: %s after %u attempts",
	       wcs(S.pre_status), S.keys[0], S.keys[1], S.keys[2],
	       wcs(S.pre2_status),
	       (unsigned long long)(s1.win_deallocs - s0.win_deallocs),
	       lx_strerror(r), S.attempts);
	cookie = lx_xprt_connect_cookie(lx_rpc_xprt(cl, 0));

	/* timeout */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_TIMEOUT, P_READ, reg, AFTER_WRITE, 1500, &c);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("timeout",
	       r == -ETIMEDOUT && S.pre_status == IBV_WC_SUCCESS &&
		       c.in_done.win_live == 0 &&
		       c.in_done.win_deallocs - s0.win_deallocs == 1 &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "a READ never answered: %s; inside done(): %llu window(s) "
	       "live, %llu deallocated, the server's RDMA Write through key "
	       "%#x: %s",
	       lx_strerror(r), (unsigned long long)c.in_done.win_live,
	       (unsigned long long)(c.in_done.win_deallocs - s0.win_deallocs),
	       S.seg.handle, wcs(c.after_status));
	wait_connected(20000);

	/* cancel */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_CANCEL, P_READ, reg, AFTER_WRITE, 0, &c);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("cancel",
	       r == -ECANCELED && c.cancel_ret == 0 &&
		       S.pre_status == IBV_WC_SUCCESS &&
		       c.in_done.win_live == 0 &&
		       c.in_done.win_deallocs - s0.win_deallocs == 1 &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "a READ cancelled after the server wrote through its key (%s): "
	       "%s; inside done(): %llu window(s) live, %llu deallocated, the "
	       "server's RDMA Write through key %#x: %s",
	       wcs(S.pre_status), lx_strerror(r),
	       (unsigned long long)c.in_done.win_live,
	       (unsigned long long)(c.in_done.win_deallocs - s0.win_deallocs),
	       S.seg.handle, wcs(c.after_status));
	wait_connected(20000);

	/* malformed */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_MALFORMED, P_READ, reg, AFTER_WRITE, 0, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("malformed",
	       r == -EBADMSG && S.pre_status == IBV_WC_SUCCESS &&
		       s1.bad_headers - s0.bad_headers == 1 &&
		       c.in_done.win_live == 0 &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "a READ answered with a Write chunk %u bytes longer than "
	       "offered: %s (%llu refused reply); inside done(): %llu "
	       "window(s) live (%llu invalidated locally, %llu deallocated), "
	       "the server's RDMA Write through key %#x: %s",
	       4096, lx_strerror(r),
	       (unsigned long long)(s1.bad_headers - s0.bad_headers),
	       (unsigned long long)c.in_done.win_live,
	       (unsigned long long)(c.in_done.win_local_inv - s0.win_local_inv),
	       (unsigned long long)(c.in_done.win_deallocs - s0.win_deallocs),
	       S.seg.handle, wcs(c.after_status));
	wait_connected(20000);

	/* lost */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_LOST, P_READ, reg, AFTER_NONE, 3000, &c);
	pthread_mutex_lock(&S.lock);
	S.refuse = false;
	pthread_mutex_unlock(&S.lock);
	report("lost",
	       r == -ETIMEDOUT && S.pre_status == IBV_WC_SUCCESS &&
		       c.in_done.win_live == 0 &&
		       c.in_done.win_deallocs - s0.win_deallocs == 1,
	       "a READ whose connection the server dropped, reconnection "
	       "refused: %s; inside done(): %llu window(s) live, %llu "
	       "deallocated with the dead queue pair",
	       lx_strerror(r), (unsigned long long)c.in_done.win_live,
	       (unsigned long long)(c.in_done.win_deallocs - s0.win_deallocs));
	wait_connected(30000);

	/* reply-big: a Reply chunk over a reply buffer larger than buf_size */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_REPLY_BIG, P_LIST, reg, AFTER_WRITE, 0, &c);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("reply-big",
	       !r && c.count == LEN && S.pre_status == IBV_WC_SUCCESS &&
		       S.reply_segs == 1 && S.reply_len >= LIST_HINT &&
		       s1.reply_chunks - s0.reply_chunks == 1 &&
		       s1.win_local_inv - s0.win_local_inv == 1 &&
		       c.in_done.win_live == 0 &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "a call with reply_hint %u (buf_size 8192): a Reply chunk of "
	       "%u segment(s), %u bytes; the server's RDMA Write of a %u-byte "
	       "reply into it: %s; decoded from there: %s, %u bytes checked; "
	       "%llu local invalidation(s); inside done(): %llu live, the "
	       "server's RDMA Write through key %#x: %s",
	       LIST_HINT, S.reply_segs, S.reply_len, 28 + LEN,
	       wcs(S.pre_status), lx_strerror(r), c.count,
	       (unsigned long long)(s1.win_local_inv - s0.win_local_inv),
	       (unsigned long long)c.in_done.win_live, S.seg.handle,
	       wcs(c.after_status));
	wait_connected(20000);

	/* reply-big-timeout: the same, never answered */
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	r = run(S_REPLY_TIMEOUT, P_LIST, reg, AFTER_WRITE, 1500, &c);
	ncheck++;
	open_before += S.pre_status == IBV_WC_SUCCESS;
	protected_after += c.after_status == IBV_WC_REM_ACCESS_ERR;
	report("reply-big-timeout",
	       r == -ETIMEDOUT && S.pre_status == IBV_WC_SUCCESS &&
		       c.in_done.win_live == 0 &&
		       c.in_done.win_deallocs - s0.win_deallocs == 1 &&
		       c.after_status == IBV_WC_REM_ACCESS_ERR,
	       "a large-reply call never answered after the server wrote "
	       "into its Reply chunk (%s): %s; inside done(): %llu window(s) "
	       "live, %llu deallocated, the server's RDMA Write through key "
	       "%#x: %s",
	       wcs(S.pre_status), lx_strerror(r),
	       (unsigned long long)c.in_done.win_live,
	       (unsigned long long)(c.in_done.win_deallocs - s0.win_deallocs),
	       S.seg.handle, wcs(c.after_status));
	wait_connected(20000);

	/* bounds (information: what the device enforces) */
	memset(reg, 0, LEN + 4096);
	r = run(S_BOUNDS, P_READ, reg, AFTER_NONE, 30000, &c);
	printf("INFO bounds: an RDMA Write one byte past the window, inside "
	       "its registration: %s (%s)\n",
	       wcs(S.pre_status),
	       S.pre_status == IBV_WC_SUCCESS ?
		       "this device checks only the registration's bounds, as "
		       "Soft-RoCE 6.1 does" :
		       "the device enforces the window's bounds");
	report("bounds", !r, "the READ after it: %s", lx_strerror(r));

	/* after */
	r = lx_rpc_null(cl);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	report("after", !r && s1.win_live == 0 && s1.win_bad_inv == 0,
	       "NULL: %s; windows bound %llu, invalidated remotely %llu, "
	       "locally %llu, deallocated %llu, live %llu",
	       lx_strerror(r), (unsigned long long)s1.win_binds,
	       (unsigned long long)s1.win_remote_inv,
	       (unsigned long long)s1.win_local_inv,
	       (unsigned long long)s1.win_deallocs,
	       (unsigned long long)s1.win_live);
	lx_rpc_destroy(cl);
	r = lx_xprt_rdma_mem_unregister(mem);
	report("unregister", !r, "the registered buffer: %s", lx_strerror(r));

	/* control: the unsafe cache leaves the key open */
	ro.reg_mode = LX_XPRT_RDMA_REG_CACHE_UNSAFE;
	r = lx_rpc_create(&cl, &o);
	if (!r) {
		memset(reg, 0, LEN);
		r = run(S_WRITE_WIN, P_READ, reg, AFTER_WRITE, 0, &c);
		report("control",
		       !r && S.pre_status == IBV_WC_SUCCESS &&
			       c.after_status == IBV_WC_SUCCESS,
		       "the same READ with the registration cache: the "
		       "server's RDMA Write through key %#x after done(): %s "
		       "(standing remote access)",
		       S.seg.handle, wcs(c.after_status));
		lx_rpc_destroy(cl);
	} else {
		report("control", false, "client with the cache: %s",
		       lx_strerror(r));
	}
	printf("SUMMARY: the server reached our memory through %u of %u "
	       "chunk keys before the call ended and through %u of %u after "
	       "(%u refused with a remote access error)\n",
	       open_before, ncheck, ncheck - protected_after, ncheck,
	       protected_after);
	pthread_mutex_lock(&S.lock);
	S.stop = true;
	pthread_mutex_unlock(&S.lock);
	free(reg);
	free(unreg);
	return fails ? 1 : 0;
}
