// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9relay - a 9P-over-RDMA server that forwards to a 9P server over TCP.
 *
 * No Debian package serves 9P over RDMA, so the test guest puts this relay
 * in front of diod: RDMA-CM listener on port 5640 (Linux's P9_PORT), one
 * TCP connection to diod per RDMA connection, whole 9P messages forwarded
 * both ways.  The RDMA side speaks what Linux's net/9p/trans_rdma.c
 * speaks: no connection private data, no RDMA Read or Write, every 9P
 * message in one Send, received into a buffer of the full message size.
 * It is written independently of libxprt's transport, so mounting it with
 * the kernel's own 9P client checks our understanding of the framing, and
 * our client through it checks the library.
 *
 * Framing is checked, not trusted: a received message whose 9P size field
 * differs from the bytes received is counted and ends the connection.
 * Tversion's msize is capped to the relay's buffer size (the client then
 * never sends, nor expects, more than the buffers hold).
 *
 * One thread, one poll() loop over the CM channel, each connection's
 * completion channel and its TCP socket.  Receives are reposted as soon as
 * their message is written to TCP; messages from TCP wait for a free send
 * buffer (the socket is not read meanwhile: back-pressure).  Counters are
 * printed per connection when it ends and on SIGTERM/SIGINT.
 *
 * Fault injection for the client's tests: -X TYPE swallows the first
 * server message of that 9P type on each connection (the client's request
 * then never gets its reply, and the receive it posted for it stays
 * posted: the case trans_rdma's excess accounting is for).  -C TYPE
 * drops the whole connection when the client sends a message of that 9P
 * type (a server that fails every session at its first I/O: the case
 * the client's reconnect backoff is for).
 *
 * usage: p9relay [-a IP] [-p PORT] [-t TCPHOST:PORT] [-m MSIZE] [-q DEPTH]
 *                [-X TYPE] [-C TYPE] [-K ACK_TIMEOUT]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MAX_CONNS 16
#define P9_HDR	  7
#define TVERSION  100

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *mem; /* depth receive buffers, then depth send buffers */
	unsigned int *sfree, nsfree;
	int tcp;
	uint8_t *tin; /* bytes read from TCP, not yet sent */
	size_t tin_len;
	bool established, closing, dropped;
	unsigned long long to_server, to_client, bad_framing, bytes_in,
		bytes_out;
	unsigned int n;
};

static size_t msize = 65536 + 4096;
static unsigned int depth = 64;
static const char *tcp_host = "127.0.0.1";
static const char *tcp_port = "5641";
static struct conn *conns[MAX_CONNS];
static volatile sig_atomic_t stop;
static unsigned int nconn_total;
static int drop_type = -1;
static int close_type = -1; /* -C: a client message that ends the session */
static uint8_t ack_timeout = 22; /* 4.096 us * 2^22: about 17 s */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint8_t *rbuf(struct conn *c, unsigned int i)
{
	return c->mem + (size_t)i * msize;
}

static uint8_t *sbuf(struct conn *c, unsigned int i)
{
	return c->mem + (size_t)(depth + i) * msize;
}

static int post_recv(struct conn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf(c, i),
		.length = (uint32_t)msize,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;
	int r = ibv_post_recv(c->id->qp, &wr, &bad);

	if (r)
		fprintf(stderr, "p9relay: conn %u: ibv_post_recv: %s\n", c->n,
			strerror(r > 0 ? r : errno));
	return r ? -1 : 0;
}

static int tcp_connect(void)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
	int fd, one = 1;

	if (getaddrinfo(tcp_host, tcp_port, &hints, &res))
		return -1;
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void conn_free(struct conn *c)
{
	unsigned int i;

	printf("p9relay: conn %u closed: %llu messages to the server (%llu "
	       "bytes), %llu to the client (%llu bytes), %llu framing "
	       "errors\n",
	       c->n, c->to_server, c->bytes_in, c->to_client, c->bytes_out,
	       c->bad_framing);
	fflush(stdout);
	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i] == c)
			conns[i] = NULL;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->tcp >= 0)
		close(c->tcp);
	free(c->mem);
	free(c->tin);
	free(c->sfree);
	free(c);
}

/* A connection request: QP, buffers, TCP to the server, accept. */
static void on_connect_request(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {0};
	struct rdma_conn_param cp = {0};
	struct conn *c = calloc(1, sizeof(*c));
	unsigned int i, slot = MAX_CONNS;

	for (i = 0; i < MAX_CONNS; i++)
		if (!conns[i]) {
			slot = i;
			break;
		}
	if (!c || slot == MAX_CONNS)
		goto out_reject;
	c->id = id;
	c->tcp = -1;
	c->n = ++nconn_total;
	id->context = c;
	c->pd = ibv_alloc_pd(id->verbs);
	c->cc = c->pd ? ibv_create_comp_channel(id->verbs) : NULL;
	if (!c->cc)
		goto out_free;
	fcntl(c->cc->fd, F_SETFL, fcntl(c->cc->fd, F_GETFL) | O_NONBLOCK);
	c->cq = ibv_create_cq(id->verbs, (int)(2 * depth + 1), c, c->cc, 0);
	if (!c->cq)
		goto out_free;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = depth;
	qa.cap.max_recv_wr = depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qa))
		goto out_free;
	c->mem = malloc(2 * depth * msize);
	c->tin = malloc(2 * msize);
	c->sfree = calloc(depth, sizeof(*c->sfree));
	if (!c->mem || !c->tin || !c->sfree)
		goto out_free;
	c->mr = ibv_reg_mr(c->pd, c->mem, 2 * depth * msize,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		goto out_free;
	for (i = 0; i < depth; i++) {
		if (post_recv(c, i))
			goto out_free;
		c->sfree[c->nsfree++] = i;
	}
	c->tcp = tcp_connect();
	if (c->tcp < 0) {
		fprintf(stderr, "p9relay: cannot reach %s:%s: %s\n", tcp_host,
			tcp_port, strerror(errno));
		goto out_free;
	}
	if (ibv_req_notify_cq(c->cq, 0))
		goto out_free;
	/* an emulated guest on a busy host can stall for seconds: a Send
	 * unacknowledged for the default half second times 7 would break
	 * the connection, and the kernel client does not recover */
	if (ack_timeout)
		rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
				&ack_timeout, sizeof(ack_timeout));
	/* trans_rdma: no RDMA Read/Write, retry Sends on RNR forever */
	cp.responder_resources = 0;
	cp.initiator_depth = 0;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp)) {
		fprintf(stderr, "p9relay: rdma_accept: %s\n", strerror(errno));
		goto out_free;
	}
	conns[slot] = c;
	return;

out_free:
	if (c) {
		c->id = NULL; /* rejected and destroyed below */
		if (id->qp)
			rdma_destroy_qp(id);
		conn_free(c);
	}
out_reject:
	rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
}

static void conn_close(struct conn *c)
{
	if (!c->closing) {
		c->closing = true;
		rdma_disconnect(c->id);
	}
}

/* Send what complete messages TCP gave us while send buffers are free. */
static void pump_to_client(struct conn *c)
{
	struct ibv_send_wr wr = {0}, *bad;
	struct ibv_sge sge;
	uint32_t size;
	unsigned int s;

	while (c->tin_len >= 4 && c->nsfree && !c->closing) {
		size = le32(c->tin);
		if (size < P9_HDR || size > msize) {
			fprintf(stderr,
				"p9relay: conn %u: server message of %u "
				"bytes\n",
				c->n, size);
			conn_close(c);
			return;
		}
		if (c->tin_len < size)
			return;
		if (!c->dropped && c->tin[4] == drop_type) {
			c->dropped = true;
			printf("p9relay: conn %u: dropped a type %d reply (tag "
			       "%u)\n",
			       c->n, drop_type, c->tin[5] | c->tin[6] << 8);
			memmove(c->tin, c->tin + size, c->tin_len - size);
			c->tin_len -= size;
			continue;
		}
		s = c->sfree[--c->nsfree];
		memcpy(sbuf(c, s), c->tin, size);
		sge = (struct ibv_sge){(uintptr_t)sbuf(c, s), size,
				       c->mr->lkey};
		wr.wr_id = depth + s;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(c->id->qp, &wr, &bad)) {
			fprintf(stderr, "p9relay: conn %u: ibv_post_send\n",
				c->n);
			conn_close(c);
			return;
		}
		c->to_client++;
		c->bytes_out += size;
		memmove(c->tin, c->tin + size, c->tin_len - size);
		c->tin_len -= size;
	}
}

static void on_tcp(struct conn *c)
{
	ssize_t n = read(c->tcp, c->tin + c->tin_len, 2 * msize - c->tin_len);

	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->tin_len += (size_t)n;
	pump_to_client(c);
}

/* A message from the client: check its framing, forward it. */
static void on_recv(struct conn *c, const struct ibv_wc *wc)
{
	uint8_t *m = rbuf(c, (unsigned int)wc->wr_id);
	uint32_t len = wc->byte_len;
	size_t off = 0;

	if (len < P9_HDR || le32(m) != len) {
		c->bad_framing++;
		fprintf(stderr,
			"p9relay: conn %u: %u bytes received, 9P size field "
			"says %u\n",
			c->n, len, len >= 4 ? le32(m) : 0);
		conn_close(c);
		return;
	}
	if (m[4] == close_type) {
		printf("p9relay: conn %u: closing at a type %d message\n", c->n,
		       close_type);
		conn_close(c);
		return;
	}
	if (m[4] == TVERSION && len >= 11 && le32(m + 7) > msize)
		put_le32(m + 7, (uint32_t)msize); /* what we can carry */
	c->to_server++;
	c->bytes_in += len;
	while (off < len) {
		ssize_t n = send(c->tcp, m + off, len - off, MSG_NOSIGNAL);

		if (n <= 0) {
			conn_close(c);
			return;
		}
		off += (size_t)n;
	}
	if (post_recv(c, (unsigned int)wc->wr_id))
		conn_close(c);
}

static void on_cq(struct conn *c)
{
	struct ibv_wc wc[16];
	struct ibv_cq *cq;
	void *ctx;
	int n, i;

	if (!ibv_get_cq_event(c->cc, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(c->cq, 0))
		conn_close(c);
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					fprintf(stderr,
						"p9relay: conn %u: %s\n", c->n,
						ibv_wc_status_str(
							wc[i].status));
				conn_close(c);
				continue;
			}
			if (wc[i].opcode & IBV_WC_RECV)
				on_recv(c, &wc[i]);
			else
				c->sfree[c->nsfree++] =
					(unsigned int)(wc[i].wr_id - depth);
		}
	}
	pump_to_client(c);
}

static void on_cm(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;
	struct conn *c;

	while (!rdma_get_cm_event(ch, &ev)) {
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type t = ev->event;

		c = id->context;
		rdma_ack_cm_event(ev);
		switch (t) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			on_connect_request(id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (c) {
				c->established = true;
				printf("p9relay: conn %u established\n", c->n);
				fflush(stdout);
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			if (c && t == RDMA_CM_EVENT_DISCONNECTED) {
				if (!c->closing)
					rdma_disconnect(id);
				c->closing = true;
				conn_free(c);
			}
			break;
		default:
			if (c && t != RDMA_CM_EVENT_CONNECT_RESPONSE) {
				fprintf(stderr, "p9relay: conn %u: %s\n", c->n,
					rdma_event_str(t));
				conn_free(c);
			}
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(5640)};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct pollfd pfd[1 + 2 * MAX_CONNS];
	struct conn *pc[1 + 2 * MAX_CONNS];
	char *colon;
	int c, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "a:p:t:m:q:X:C:K:")) != -1) {
		switch (c) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &sin.sin_addr) != 1)
				return 2;
			break;
		case 'p':
			sin.sin_port = htons((uint16_t)atoi(optarg));
			break;
		case 't':
			tcp_host = strdup(optarg);
			colon = strrchr((char *)tcp_host, ':');
			if (!colon)
				return 2;
			*colon = '\0';
			tcp_port = colon + 1;
			break;
		case 'm':
			msize = (size_t)atol(optarg);
			break;
		case 'q':
			depth = (unsigned int)atoi(optarg);
			break;
		case 'X':
			drop_type = atoi(optarg);
			break;
		case 'C':
			close_type = atoi(optarg);
			break;
		case 'K':
			ack_timeout = (uint8_t)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: p9relay [-a IP] [-p PORT] [-t "
					"HOST:PORT] [-m MSIZE] [-q DEPTH] [-X "
					"TYPE] [-C TYPE]\n");
			return 2;
		}
	}
	if (msize < 4096 || !depth)
		return 2;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(listen_id, 8)) {
		perror("p9relay: listen");
		return 1;
	}
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	printf("p9relay: listening on port %u, forwarding to %s:%s, msize "
	       "%zu, depth %u\n",
	       ntohs(sin.sin_port), tcp_host, tcp_port, msize, depth);
	while (!stop) {
		int n = 0;

		pfd[n] = (struct pollfd){.fd = ch->fd, .events = POLLIN};
		pc[n++] = NULL;
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *k = conns[i];

			if (!k)
				continue;
			pfd[n] = (struct pollfd){.fd = k->cc->fd,
						 .events = POLLIN};
			pc[n++] = k;
			/* read the server only with a send buffer free */
			if (k->nsfree && !k->closing) {
				pfd[n] = (struct pollfd){.fd = k->tcp,
							 .events = POLLIN};
				pc[n++] = k;
			}
		}
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!pc[i]) {
				on_cm(ch);
				break; /* the connection table changed */
			}
			if (pfd[i].fd == pc[i]->tcp)
				on_tcp(pc[i]);
			else
				on_cq(pc[i]);
		}
	}
	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i])
			conn_free(conns[i]);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	printf("p9relay: stopped after %u connection(s)\n", nconn_total);
	return 0;
}
