// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verbs_smoke - real-verbs smoke test, run inside the RDMA test guest.
 *
 * Two parts, each printing one PASS or FAIL line:
 *
 * loopback: an RDMA-CM server (one thread) and client (the main thread) in
 *   one process connect an RC QP over the guest's own address.  The server
 *   advertises a registered target buffer (address, rkey, length) in its
 *   accept private data.  The client SENDs "ping", the server answers
 *   "pong", then the client posts an RDMA WRITE of a pattern into the
 *   target followed by a SEND "done" in one chain.  RC executes a QP's
 *   requests in order, so when the server sees "done" the WRITE has been
 *   placed and it can check every byte.
 *
 * rpcrdma: connect to the kernel nfsd's RDMA listener (default port 20049)
 *   with RPC-over-RDMA v1 connection private data (RFC 8797), send NFSv3
 *   NULL calls as RDMA_MSG with empty chunk lists (RFC 8166) and check each
 *   reply: both XIDs, the transport header, MSG_ACCEPTED/SUCCESS.  The
 *   server's credit grant is printed, because our client's flow control
 *   will live on it.
 *
 * Why this exists: it proves the guest's verbs stack (rxe, ib_uverbs,
 * rdma_ucm, the librxe provider) and the nfsd RDMA listener work before any
 * test of our own transport runs, so a failure there is not blamed on us.
 *
 * Everything waits through file descriptors (CM event channel, CQ
 * completion channel) with poll() and a deadline: under TCG a busy-polling
 * thread would steal the vCPU the soft-RoCE kernel threads need, and a
 * lost message must end in a FAIL line, not a hang.  rdma-core reports
 * errors as -1/NULL + errno (CM and object calls) or as a positive errno
 * (post, notify); both become a negative errno here, once, at the call.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define SMOKE_SLOT	    4096 /* one message slot (recv or send) */
#define SMOKE_NR_RECV	    4
#define SMOKE_WRITE_LEN	    (64 * 1024)
#define SMOKE_LOOP_PORT	    7471 /* fallback when port 0 is not reported */
#define SMOKE_CREDITS	    32
#define SMOKE_INLINE_SND    1024 /* our RPC-over-RDMA inline send size */
#define SMOKE_INLINE_RCV    4096 /* = SMOKE_SLOT, our receive buffers */

/* RFC 8797 connection private data */
#define RPCRDMA_CMP_MAGIC   0xf6ab0e18u
#define RPCRDMA_CMP_VERSION 1
/* RFC 8166 */
#define RPCRDMA_VERSION	    1
#define RDMA_MSG	    0
#define RDMA_ERROR	    4
#define RPCRDMA_HDRLEN	    28 /* xid vers credit proc + 3 empty lists */
/* RFC 5531 / RFC 1813 */
#define RPC_CALL	    0
#define RPC_REPLY	    1
#define MSG_ACCEPTED	    0
#define ACCEPT_SUCCESS	    0
#define NFS_PROGRAM	    100003
#define NFS_V3		    3
#define NFSPROC3_NULL	    0

struct smoke_cmp { /* RFC 8797 section 4.1, on the wire */
	uint32_t magic;
	uint8_t version;
	uint8_t flags;
	uint8_t send_size; /* size / 1024 - 1 */
	uint8_t recv_size;
};

struct smoke_target { /* our loopback accept private data */
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* One connected (or connecting) endpoint and its verbs resources. */
struct smoke_ep {
	const char *who;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf; /* NR_RECV recv slots, one send slot, write area */
	size_t len;
	int cq_armed;
};

static int timeout_ms = 10000;

static int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* post/notify/modify return a positive errno (some providers -1) */
static int neg_ret(int ret)
{
	if (ret > 0)
		return -ret;
	return ret < 0 ? -EIO : 0;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void say(const struct smoke_ep *ep, const char *what, int err)
{
	fprintf(stderr, "verbs_smoke: %s: %s: %s\n", ep->who, what,
		strerror(-err));
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return neg_errno();
	return 0;
}

/* Wait up to timeout_ms for fd to become readable. */
static int wait_fd(int fd, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int64_t left = (deadline - now_us()) / 1000;
	int ret;

	if (left <= 0)
		return -ETIMEDOUT;
	ret = poll(&p, 1, (int)left);
	if (ret < 0)
		return neg_errno();
	return ret ? 0 : -ETIMEDOUT;
}

/*
 * cm_wait - take the next CM event, which must be @want.
 * On success *evp holds the event; the caller acks it.  Any other event is
 * acked here and reported as -ECONNREFUSED (reject, unreachable) or -EPROTO.
 */
static int cm_wait(const struct smoke_ep *ep, struct rdma_event_channel *ch,
		   enum rdma_cm_event_type want, struct rdma_cm_event **evp)
{
	int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
	struct rdma_cm_event *ev;
	int ret;

	for (;;) {
		if (rdma_get_cm_event(ch, &ev) == 0)
			break;
		if (errno != EAGAIN)
			return neg_errno();
		ret = wait_fd(ch->fd, deadline);
		if (ret) {
			fprintf(stderr, "verbs_smoke: %s: no %s within %d ms\n",
				ep->who, rdma_event_str(want), timeout_ms);
			return ret;
		}
	}
	if (ev->event == want) {
		*evp = ev;
		return 0;
	}
	fprintf(stderr, "verbs_smoke: %s: got %s (status %d), wanted %s\n",
		ep->who, rdma_event_str(ev->event), ev->status,
		rdma_event_str(want));
	ret = (ev->event == RDMA_CM_EVENT_REJECTED ||
	       ev->event == RDMA_CM_EVENT_UNREACHABLE ||
	       ev->event == RDMA_CM_EVENT_ADDR_ERROR ||
	       ev->event == RDMA_CM_EVENT_ROUTE_ERROR) ?
		      -ECONNREFUSED :
		      -EPROTO;
	rdma_ack_cm_event(ev);
	return ret;
}

static int cm_expect(const struct smoke_ep *ep, struct rdma_event_channel *ch,
		     enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret = cm_wait(ep, ch, want, &ev);

	if (!ret)
		rdma_ack_cm_event(ev);
	return ret;
}

/* PD, completion channel, CQ, RC QP and one registered buffer on @id. */
static int ep_setup(struct smoke_ep *ep, struct rdma_cm_id *id, size_t len,
		    int access)
{
	struct ibv_qp_init_attr qa = {0};
	int ret;

	ep->id = id;
	ep->len = len;
	ep->pd = ibv_alloc_pd(id->verbs);
	if (!ep->pd) {
		ret = neg_errno();
		say(ep, "ibv_alloc_pd", ret);
		goto out;
	}
	ep->cc = ibv_create_comp_channel(id->verbs);
	if (!ep->cc) {
		ret = neg_errno();
		say(ep, "ibv_create_comp_channel", ret);
		goto out_dealloc_pd;
	}
	ret = set_nonblock(ep->cc->fd);
	if (ret)
		goto out_destroy_cc;
	ep->cq = ibv_create_cq(id->verbs, 32, NULL, ep->cc, 0);
	if (!ep->cq) {
		ret = neg_errno();
		say(ep, "ibv_create_cq", ret);
		goto out_destroy_cc;
	}
	qa.send_cq = ep->cq;
	qa.recv_cq = ep->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = SMOKE_NR_RECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, ep->pd, &qa)) {
		ret = neg_errno();
		say(ep, "rdma_create_qp", ret);
		goto out_destroy_cq;
	}
	ret = posix_memalign((void **)&ep->buf, 4096, len);
	if (ret) {
		ret = -ret;
		goto out_destroy_qp;
	}
	memset(ep->buf, 0, len);
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, len, access);
	if (!ep->mr) {
		ret = neg_errno();
		say(ep, "ibv_reg_mr", ret);
		goto out_free_buf;
	}
	return 0;

out_free_buf:
	free(ep->buf);
	ep->buf = NULL;
out_destroy_qp:
	rdma_destroy_qp(id);
out_destroy_cq:
	ibv_destroy_cq(ep->cq);
	ep->cq = NULL;
out_destroy_cc:
	ibv_destroy_comp_channel(ep->cc);
	ep->cc = NULL;
out_dealloc_pd:
	ibv_dealloc_pd(ep->pd);
	ep->pd = NULL;
out:
	return ret;
}

static void ep_teardown(struct smoke_ep *ep)
{
	if (!ep->pd)
		return;
	rdma_destroy_qp(ep->id);
	ibv_dereg_mr(ep->mr);
	free(ep->buf);
	ibv_destroy_cq(ep->cq);
	ibv_destroy_comp_channel(ep->cc);
	ibv_dealloc_pd(ep->pd);
	ep->pd = NULL;
}

static uint8_t *slot(struct smoke_ep *ep, int i)
{
	return ep->buf + (size_t)i * SMOKE_SLOT;
}

/* the send slot sits after the receive slots */
#define SEND_SLOT SMOKE_NR_RECV

static int post_recv(struct smoke_ep *ep, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(ep, i),
		.length = SMOKE_SLOT,
		.lkey = ep->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;
	int ret = neg_ret(ibv_post_recv(ep->id->qp, &wr, &bad));

	if (ret)
		say(ep, "ibv_post_recv", ret);
	return ret;
}

static int post_send(struct smoke_ep *ep, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(ep, SEND_SLOT),
		.length = (uint32_t)len,
		.lkey = ep->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = SEND_SLOT,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int ret = neg_ret(ibv_post_send(ep->id->qp, &wr, &bad));

	if (ret)
		say(ep, "ibv_post_send", ret);
	return ret;
}

/*
 * reap - collect @nsend send-side and @nrecv receive completions, in any
 * order (one CQ serves both queues).  The last receive completion is
 * copied to @rwc.  A completion in error fails the wait.
 */
static int reap(struct smoke_ep *ep, int nsend, int nrecv, struct ibv_wc *rwc)
{
	int64_t deadline = now_us() + (int64_t)timeout_ms * 1000;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	void *ctx;
	int n, ret;

	while (nsend > 0 || nrecv > 0) {
		n = ibv_poll_cq(ep->cq, 1, &wc);
		if (n < 0) {
			say(ep, "ibv_poll_cq", -EIO);
			return -EIO;
		}
		if (n == 1) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr,
					"verbs_smoke: %s: completion wr_id %llu "
					"opcode %d: %s\n",
					ep->who, (unsigned long long)wc.wr_id,
					wc.opcode,
					ibv_wc_status_str(wc.status));
				return -EIO;
			}
			if (wc.opcode & IBV_WC_RECV) {
				nrecv--;
				if (rwc)
					*rwc = wc;
			} else {
				nsend--;
			}
			continue;
		}
		/* arm, then poll once more: a completion that arrived
		 * before arming would otherwise never raise an event */
		if (!ep->cq_armed) {
			ret = neg_ret(ibv_req_notify_cq(ep->cq, 0));
			if (ret) {
				say(ep, "ibv_req_notify_cq", ret);
				return ret;
			}
			ep->cq_armed = 1;
			continue;
		}
		ret = wait_fd(ep->cc->fd, deadline);
		if (ret) {
			fprintf(stderr,
				"verbs_smoke: %s: completions missing after "
				"%d ms (%d send, %d recv)\n",
				ep->who, timeout_ms, nsend, nrecv);
			return ret;
		}
		if (ibv_get_cq_event(ep->cc, &cq, &ctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			ep->cq_armed = 0;
		} else if (errno != EAGAIN) {
			ret = neg_errno();
			say(ep, "ibv_get_cq_event", ret);
			return ret;
		}
	}
	return 0;
}

static int resolve(struct smoke_ep *ep, struct rdma_event_channel *ch,
		   struct sockaddr_in *dst)
{
	int ret;

	if (rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)dst,
			      timeout_ms)) {
		ret = neg_errno();
		say(ep, "rdma_resolve_addr", ret);
		return ret;
	}
	ret = cm_expect(ep, ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (ret)
		return ret;
	if (rdma_resolve_route(ep->id, timeout_ms)) {
		ret = neg_errno();
		say(ep, "rdma_resolve_route", ret);
		return ret;
	}
	return cm_expect(ep, ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + 13 + (i >> 8));
}

/* ---------------------------------------------------------- loopback */

struct loop_server {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct smoke_ep ep;
	int result;
	char detail[128];
};

static void *loop_server_run(void *arg)
{
	struct loop_server *s = arg;
	struct smoke_ep *ep = &s->ep;
	struct rdma_conn_param cp = {0};
	struct smoke_target tgt;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;
	uint8_t *area;
	size_t i;
	int ret;

	ret = cm_wait(ep, s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	if (ret)
		goto out;
	ret = ep_setup(ep, ev->id,
		       (SMOKE_NR_RECV + 1) * SMOKE_SLOT + SMOKE_WRITE_LEN,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (ret) {
		rdma_reject(ev->id, NULL, 0);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(ep->id);
		goto out;
	}
	rdma_ack_cm_event(ev);
	area = slot(ep, SMOKE_NR_RECV + 1);
	/* one receive for "ping", one for "done" */
	ret = post_recv(ep, 0);
	if (!ret)
		ret = post_recv(ep, 1);
	if (ret)
		goto out_reject;
	tgt.addr = htobe64((uintptr_t)area);
	tgt.rkey = htonl(ep->mr->rkey);
	tgt.len = htonl(SMOKE_WRITE_LEN);
	cp.private_data = &tgt;
	cp.private_data_len = sizeof(tgt);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.rnr_retry_count = 7;
	if (rdma_accept(ep->id, &cp)) {
		ret = neg_errno();
		say(ep, "rdma_accept", ret);
		goto out_reject;
	}
	ret = cm_expect(ep, s->ch, RDMA_CM_EVENT_ESTABLISHED);
	if (ret)
		goto out_teardown;
	ret = reap(ep, 0, 1, &wc);
	if (ret)
		goto out_disconnect;
	if (wc.byte_len != 5 || memcmp(slot(ep, wc.wr_id), "ping", 5)) {
		snprintf(s->detail, sizeof(s->detail),
			 "server: bad ping (%u bytes)", wc.byte_len);
		ret = -EBADMSG;
		goto out_disconnect;
	}
	memcpy(slot(ep, SEND_SLOT), "pong", 5);
	ret = post_send(ep, 5);
	if (ret)
		goto out_disconnect;
	ret = reap(ep, 1, 1, &wc);
	if (ret)
		goto out_disconnect;
	if (wc.byte_len != 5 || memcmp(slot(ep, wc.wr_id), "done", 5)) {
		snprintf(s->detail, sizeof(s->detail),
			 "server: bad done (%u bytes)", wc.byte_len);
		ret = -EBADMSG;
		goto out_disconnect;
	}
	for (i = 0; i < SMOKE_WRITE_LEN; i++) {
		if (area[i] != pattern(i)) {
			snprintf(s->detail, sizeof(s->detail),
				 "server: RDMA WRITE byte %zu is 0x%02x, "
				 "want 0x%02x",
				 i, area[i], pattern(i));
			ret = -EBADMSG;
			goto out_disconnect;
		}
	}
	/* the client disconnects once it has seen its sends complete */
	ret = cm_expect(ep, s->ch, RDMA_CM_EVENT_DISCONNECTED);
	goto out_teardown;

out_disconnect:
	rdma_disconnect(ep->id);
	cm_expect(ep, s->ch, RDMA_CM_EVENT_DISCONNECTED);
	goto out_teardown;
out_reject:
	rdma_reject(ep->id, NULL, 0);
out_teardown:
	ep_teardown(ep);
	rdma_destroy_id(ep->id);
out:
	s->result = ret;
	return NULL;
}

static int loopback(const char *ip, char *detail, size_t dlen)
{
	struct loop_server srv = {.ep.who = "loopback server"};
	struct smoke_ep ep = {.who = "loopback client"};
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct rdma_conn_param cp = {0};
	struct rdma_event_channel *ch;
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sge[2];
	struct smoke_target tgt;
	struct rdma_cm_event *ev;
	int64_t t0, t_rtt, t_write;
	struct ibv_wc wc;
	pthread_t thr;
	uint8_t *src;
	size_t i;
	int ret;

	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return -EINVAL;
	/* server: listen on an ephemeral port of the guest's address */
	srv.ch = rdma_create_event_channel();
	if (!srv.ch) {
		ret = neg_errno();
		say(&srv.ep, "rdma_create_event_channel", ret);
		goto out;
	}
	ret = set_nonblock(srv.ch->fd);
	if (ret)
		goto out_destroy_srv_ch;
	if (rdma_create_id(srv.ch, &srv.listen, NULL, RDMA_PS_TCP)) {
		ret = neg_errno();
		say(&srv.ep, "rdma_create_id", ret);
		goto out_destroy_srv_ch;
	}
	if (rdma_bind_addr(srv.listen, (struct sockaddr *)&sin)) {
		sin.sin_port = htons(SMOKE_LOOP_PORT);
		if (rdma_bind_addr(srv.listen, (struct sockaddr *)&sin)) {
			ret = neg_errno();
			say(&srv.ep, "rdma_bind_addr", ret);
			goto out_destroy_listen;
		}
	}
	if (rdma_listen(srv.listen, 4)) {
		ret = neg_errno();
		say(&srv.ep, "rdma_listen", ret);
		goto out_destroy_listen;
	}
	sin.sin_port = rdma_get_src_port(srv.listen);
	if (!sin.sin_port) {
		ret = -EADDRNOTAVAIL;
		say(&srv.ep, "rdma_get_src_port", ret);
		goto out_destroy_listen;
	}
	ret = -pthread_create(&thr, NULL, loop_server_run, &srv);
	if (ret)
		goto out_destroy_listen;

	/* client */
	ch = rdma_create_event_channel();
	if (!ch) {
		ret = neg_errno();
		say(&ep, "rdma_create_event_channel", ret);
		goto out_join;
	}
	ret = set_nonblock(ch->fd);
	if (ret)
		goto out_destroy_ch;
	if (rdma_create_id(ch, &ep.id, NULL, RDMA_PS_TCP)) {
		ret = neg_errno();
		say(&ep, "rdma_create_id", ret);
		goto out_destroy_ch;
	}
	ret = resolve(&ep, ch, &sin);
	if (ret)
		goto out_destroy_id;
	ret = ep_setup(&ep, ep.id,
		       (SMOKE_NR_RECV + 1) * SMOKE_SLOT + SMOKE_WRITE_LEN,
		       IBV_ACCESS_LOCAL_WRITE);
	if (ret)
		goto out_destroy_id;
	ret = post_recv(&ep, 0);
	if (ret)
		goto out_teardown;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(ep.id, &cp)) {
		ret = neg_errno();
		say(&ep, "rdma_connect", ret);
		goto out_teardown;
	}
	ret = cm_wait(&ep, ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret)
		goto out_teardown;
	if (!ev->param.conn.private_data ||
	    ev->param.conn.private_data_len < sizeof(tgt)) {
		rdma_ack_cm_event(ev);
		snprintf(detail, dlen, "client: no target in accept data");
		ret = -EPROTO;
		goto out_disconnect;
	}
	memcpy(&tgt, ev->param.conn.private_data, sizeof(tgt));
	rdma_ack_cm_event(ev);
	if (ntohl(tgt.len) < SMOKE_WRITE_LEN) {
		snprintf(detail, dlen, "client: target too small (%u)",
			 ntohl(tgt.len));
		ret = -EPROTO;
		goto out_disconnect;
	}

	t0 = now_us();
	memcpy(slot(&ep, SEND_SLOT), "ping", 5);
	ret = post_send(&ep, 5);
	if (ret)
		goto out_disconnect;
	ret = reap(&ep, 1, 1, &wc);
	if (ret)
		goto out_disconnect;
	if (wc.byte_len != 5 || memcmp(slot(&ep, 0), "pong", 5)) {
		snprintf(detail, dlen, "client: bad pong (%u bytes)",
			 wc.byte_len);
		ret = -EBADMSG;
		goto out_disconnect;
	}
	t_rtt = now_us() - t0;

	/* WRITE the pattern, then SEND "done" behind it in one post */
	src = slot(&ep, SMOKE_NR_RECV + 1);

	for (i = 0; i < SMOKE_WRITE_LEN; i++)
		src[i] = pattern(i);
	memcpy(slot(&ep, SEND_SLOT), "done", 5);
	memset(wr, 0, sizeof(wr));
	sge[0] = (struct ibv_sge){(uintptr_t)src, SMOKE_WRITE_LEN, ep.mr->lkey};
	sge[1] = (struct ibv_sge){(uintptr_t)slot(&ep, SEND_SLOT), 5,
				  ep.mr->lkey};
	wr[0].wr_id = 100;
	wr[0].sg_list = &sge[0];
	wr[0].num_sge = 1;
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = be64toh(tgt.addr);
	wr[0].wr.rdma.rkey = ntohl(tgt.rkey);
	wr[0].next = &wr[1];
	wr[1].wr_id = SEND_SLOT;
	wr[1].sg_list = &sge[1];
	wr[1].num_sge = 1;
	wr[1].opcode = IBV_WR_SEND;
	wr[1].send_flags = IBV_SEND_SIGNALED;
	t0 = now_us();
	ret = neg_ret(ibv_post_send(ep.id->qp, wr, &bad));
	if (ret) {
		say(&ep, "ibv_post_send (write+send)", ret);
		goto out_disconnect;
	}
	ret = reap(&ep, 2, 0, NULL);
	if (ret)
		goto out_disconnect;
	t_write = now_us() - t0;
	snprintf(detail, dlen,
		 "SEND/RECV round trip %lld us, %d KiB RDMA WRITE + SEND "
		 "%lld us",
		 (long long)t_rtt, SMOKE_WRITE_LEN / 1024, (long long)t_write);

out_disconnect:
	rdma_disconnect(ep.id);
	cm_expect(&ep, ch, RDMA_CM_EVENT_DISCONNECTED);
out_teardown:
	ep_teardown(&ep);
out_destroy_id:
	rdma_destroy_id(ep.id);
out_destroy_ch:
	rdma_destroy_event_channel(ch);
out_join:
	pthread_join(thr, NULL);
	if (!ret && srv.result) {
		ret = srv.result;
		if (srv.detail[0])
			snprintf(detail, dlen, "%s", srv.detail);
	} else if (ret && srv.detail[0]) {
		fprintf(stderr, "verbs_smoke: %s\n", srv.detail);
	}
out_destroy_listen:
	rdma_destroy_id(srv.listen);
out_destroy_srv_ch:
	rdma_destroy_event_channel(srv.ch);
out:
	return ret;
}

/* ---------------------------------------------------------- rpcrdma */

static uint32_t *put32(uint32_t *p, uint32_t v)
{
	*p = htonl(v);
	return p + 1;
}

/* Build one NFSv3 NULL call as RDMA_MSG; returns its length in bytes. */
static size_t build_null_call(uint8_t *buf, uint32_t xid)
{
	uint32_t *p = (uint32_t *)buf;

	/* RPC-over-RDMA v1 transport header, RFC 8166 section 4.2 */
	p = put32(p, xid);
	p = put32(p, RPCRDMA_VERSION);
	p = put32(p, SMOKE_CREDITS); /* credits we ask for */
	p = put32(p, RDMA_MSG);
	p = put32(p, 0); /* read list: empty */
	p = put32(p, 0); /* write list: empty */
	p = put32(p, 0); /* reply chunk: absent */
	/* RPC call, RFC 5531 section 9 */
	p = put32(p, xid);
	p = put32(p, RPC_CALL);
	p = put32(p, 2); /* rpcvers */
	p = put32(p, NFS_PROGRAM);
	p = put32(p, NFS_V3);
	p = put32(p, NFSPROC3_NULL);
	p = put32(p, 0); /* cred: AUTH_NONE, */
	p = put32(p, 0); /* empty body */
	p = put32(p, 0); /* verf: AUTH_NONE, */
	p = put32(p, 0); /* empty body */
	return (size_t)((uint8_t *)p - buf);
}

static uint32_t get32(const uint8_t *buf, size_t off)
{
	uint32_t v;

	memcpy(&v, buf + off, 4);
	return ntohl(v);
}

/*
 * check_null_reply - validate one reply; on success *credits is the
 * server's grant.  Returns -EBADMSG with @detail filled on any mismatch.
 */
static int check_null_reply(const uint8_t *b, uint32_t len, uint32_t xid,
			    uint32_t *credits, char *detail, size_t dlen)
{
	uint32_t proc, verf_len;
	size_t off;

	if (len < RPCRDMA_HDRLEN) {
		snprintf(detail, dlen, "reply of %u bytes", len);
		return -EBADMSG;
	}
	proc = get32(b, 12);
	if (get32(b, 0) != xid || get32(b, 4) != RPCRDMA_VERSION) {
		snprintf(detail, dlen, "transport header xid 0x%08x vers %u",
			 get32(b, 0), get32(b, 4));
		return -EBADMSG;
	}
	*credits = get32(b, 8);
	if (proc == RDMA_ERROR) {
		snprintf(detail, dlen, "RDMA_ERROR, err %u",
			 len >= 20 ? get32(b, 16) : 0);
		return -EBADMSG;
	}
	if (proc != RDMA_MSG || get32(b, 16) || get32(b, 20) || get32(b, 24)) {
		snprintf(detail, dlen, "proc %u or chunk lists not empty",
			 proc);
		return -EBADMSG;
	}
	off = RPCRDMA_HDRLEN;
	/* xid, REPLY, MSG_ACCEPTED, verf flavor, verf len, [verf], stat */
	if (len < off + 24) {
		snprintf(detail, dlen, "RPC reply of %zu bytes", len - off);
		return -EBADMSG;
	}
	if (get32(b, off) != xid || get32(b, off + 4) != RPC_REPLY ||
	    get32(b, off + 8) != MSG_ACCEPTED) {
		snprintf(detail, dlen, "RPC xid 0x%08x mtype %u stat %u",
			 get32(b, off), get32(b, off + 4), get32(b, off + 8));
		return -EBADMSG;
	}
	verf_len = get32(b, off + 16);
	if (verf_len > 400 || len < off + 24 + ((verf_len + 3) & ~3u)) {
		snprintf(detail, dlen, "verifier length %u", verf_len);
		return -EBADMSG;
	}
	off += 20 + ((verf_len + 3) & ~3u);
	if (get32(b, off) != ACCEPT_SUCCESS) {
		snprintf(detail, dlen, "accept_stat %u", get32(b, off));
		return -EBADMSG;
	}
	return 0;
}

static int rpcrdma(const char *ip, int port, int count, char *detail,
		   size_t dlen)
{
	struct smoke_ep ep = {.who = "rpcrdma"};
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct rdma_conn_param cp = {0};
	struct smoke_cmp cmp, srv_cmp;
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	char srv_desc[64] = "no private data";
	uint32_t xid, credits = 0;
	int64_t t0, t_total = 0;
	struct ibv_wc wc;
	size_t len;
	int i, ret;

	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return -EINVAL;
	sin.sin_port = htons((uint16_t)port);
	ch = rdma_create_event_channel();
	if (!ch) {
		ret = neg_errno();
		say(&ep, "rdma_create_event_channel", ret);
		goto out;
	}
	ret = set_nonblock(ch->fd);
	if (ret)
		goto out_destroy_ch;
	if (rdma_create_id(ch, &ep.id, NULL, RDMA_PS_TCP)) {
		ret = neg_errno();
		say(&ep, "rdma_create_id", ret);
		goto out_destroy_ch;
	}
	ret = resolve(&ep, ch, &sin);
	if (ret)
		goto out_destroy_id;
	ret = ep_setup(&ep, ep.id, (SMOKE_NR_RECV + 1) * SMOKE_SLOT,
		       IBV_ACCESS_LOCAL_WRITE);
	if (ret)
		goto out_destroy_id;
	/* receives first: the server may Send as soon as it accepts */
	for (i = 0; i < 2 && !ret; i++)
		ret = post_recv(&ep, i);
	if (ret)
		goto out_teardown;

	cmp.magic = htonl(RPCRDMA_CMP_MAGIC);
	cmp.version = RPCRDMA_CMP_VERSION;
	cmp.flags = 0; /* we hold no MRs a Send With Invalidate could hit */
	cmp.send_size = SMOKE_INLINE_SND / 1024 - 1;
	cmp.recv_size = SMOKE_INLINE_RCV / 1024 - 1;
	cp.private_data = &cmp;
	cp.private_data_len = sizeof(cmp);
	cp.initiator_depth = 0; /* a client never issues RDMA Read */
	cp.responder_resources = 1;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	if (rdma_connect(ep.id, &cp)) {
		ret = neg_errno();
		say(&ep, "rdma_connect", ret);
		goto out_teardown;
	}
	ret = cm_wait(&ep, ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret) {
		snprintf(detail, dlen, "connect to %s:%d failed", ip, port);
		goto out_teardown;
	}
	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(srv_cmp)) {
		memcpy(&srv_cmp, ev->param.conn.private_data, sizeof(srv_cmp));
		if (ntohl(srv_cmp.magic) == RPCRDMA_CMP_MAGIC)
			snprintf(srv_desc, sizeof(srv_desc),
				 "server inline send %u recv %u flags 0x%x",
				 (srv_cmp.send_size + 1) * 1024,
				 (srv_cmp.recv_size + 1) * 1024, srv_cmp.flags);
	}
	rdma_ack_cm_event(ev);

	xid = (uint32_t)now_us() ^ ((uint32_t)getpid() << 16);
	for (i = 0; i < count; i++) {
		xid++;
		len = build_null_call(slot(&ep, SEND_SLOT), xid);
		t0 = now_us();
		ret = post_send(&ep, len);
		if (ret)
			goto out_disconnect;
		ret = reap(&ep, 1, 1, &wc);
		if (ret) {
			snprintf(detail, dlen, "call %d (xid 0x%08x): no reply",
				 i + 1, xid);
			goto out_disconnect;
		}
		t_total += now_us() - t0;
		ret = check_null_reply(slot(&ep, wc.wr_id), wc.byte_len, xid,
				       &credits, detail, dlen);
		if (ret)
			goto out_disconnect;
		ret = post_recv(&ep, (int)wc.wr_id);
		if (ret)
			goto out_disconnect;
	}
	snprintf(detail, dlen,
		 "%d NFSv3 NULL call(s) to %s:%d accepted, last xid 0x%08x, "
		 "server credit grant %u, %lld us/call; %s",
		 count, ip, port, xid, credits,
		 (long long)(t_total / (count ? count : 1)), srv_desc);

out_disconnect:
	rdma_disconnect(ep.id);
	cm_expect(&ep, ch, RDMA_CM_EVENT_DISCONNECTED);
out_teardown:
	ep_teardown(&ep);
out_destroy_id:
	rdma_destroy_id(ep.id);
out_destroy_ch:
	rdma_destroy_event_channel(ch);
out:
	return ret;
}

/* ---------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f, "usage: verbs_smoke [-a IP] [-p PORT] [-n COUNT] [-t MS] "
		   "[loopback|rpcrdma|all]\n"
		   "  -a IP     address of the RDMA device's netdev "
		   "(default $RDMAVM_IP or 10.0.2.15)\n"
		   "  -p PORT   NFS/RDMA port for rpcrdma (default 20049)\n"
		   "  -n COUNT  NULL calls for rpcrdma (default 1)\n"
		   "  -t MS     timeout per wait (default 10000)\n");
}

static int report(const char *part, int ret, const char *detail)
{
	if (ret)
		printf("FAIL %s: %s%s%s\n", part, strerror(-ret),
		       detail[0] ? ": " : "", detail);
	else
		printf("PASS %s: %s\n", part, detail);
	fflush(stdout);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *ip = getenv("RDMAVM_IP");
	const char *what = "all";
	int port = 20049, count = 1, fails = 0, c;
	char detail[256];

	if (!ip || !*ip)
		ip = "10.0.2.15";
	while ((c = getopt(argc, argv, "a:p:n:t:h")) != -1) {
		switch (c) {
		case 'a':
			ip = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 't':
			timeout_ms = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		what = argv[optind++];
	if (optind < argc || port <= 0 || port > 65535 || count < 1 ||
	    timeout_ms < 1 ||
	    (strcmp(what, "all") && strcmp(what, "loopback") &&
	     strcmp(what, "rpcrdma"))) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "all") || !strcmp(what, "loopback")) {
		detail[0] = '\0';
		fails += report("loopback",
				loopback(ip, detail, sizeof(detail)), detail);
	}
	if (!strcmp(what, "all") || !strcmp(what, "rpcrdma")) {
		detail[0] = '\0';
		fails +=
			report("rpcrdma",
			       rpcrdma(ip, port, count, detail, sizeof(detail)),
			       detail);
	}
	return fails ? 1 : 0;
}
