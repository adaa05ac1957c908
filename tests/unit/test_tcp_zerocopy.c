// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MSG_ZEROCOPY sends (lx_xprt_opts.zerocopy) on loopback: large payloads
 * go out zerocopy, the kernel's reports are read (loopback copies:
 * SO_EE_CODE_ZEROCOPY_COPIED), and a request is not completed - done()
 * does not run, the caller's memory is not handed back - before the
 * kernel has reported its send, even when the reply comes first.
 *
 * The server of this file answers a call (marker, key[4] cmd[4] arg[4],
 * payload) with its first 12 bytes.  CMD_EARLY answers as soon as it has
 * read those, then waits HOLD_MS before it reads the payload: with a
 * small receive buffer, most of a 1 MiB payload is still in the client's
 * send queue - pinned user pages, with zerocopy - when the reply is in.
 * The server checks every payload byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/proto/xprt.h>

enum {
	CMD_NORMAL = 1, /* read it all, then answer */
	CMD_EARLY = 2,	/* answer after the header, read the payload later */
	CMD_QUIT = 3,
};

#define HOLD_MS		300
#define BIG		(1024u * 1024)
#define PATTERN(key, i) ((uint8_t)((key)*31u + (i)*7u + 1u))

struct srv {
	int lfd;
	uint16_t port;
	pthread_t thr;
	atomic_bool released; /* CMD_EARLY: the server reads the payload now */
	atomic_uint bad_bytes;
	atomic_uint calls;
	atomic_int conn; /* the connection served now, -1 between */
};

static struct srv S;

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* One connection's calls, until it closes */
static void srv_conn(struct srv *s, int fd)
{
	static uint8_t payload[BIG];
	uint8_t hdr[16], out[16];

	for (;;) {
		uint32_t len, key, cmd, i;

		if (read_full(fd, hdr, 16))
			break;
		len = be32(hdr) & 0x7fffffffu;
		key = be32(hdr + 4);
		cmd = be32(hdr + 8);
		if (cmd == CMD_QUIT || len < 12 || len - 12 > BIG)
			break;
		memcpy(out, hdr, 16);
		out[0] = 0x80;
		out[1] = out[2] = 0;
		out[3] = 12;
		if (cmd == CMD_EARLY) {
			if (write(fd, out, 16) != 16)
				break;
			usleep(HOLD_MS * 1000);
			atomic_store(&s->released, true);
		}
		if (read_full(fd, payload, len - 12))
			break;
		for (i = 0; i < len - 12; i++)
			if (payload[i] != PATTERN(key, i))
				atomic_fetch_add(&s->bad_bytes, 1);
		atomic_fetch_add(&s->calls, 1);
		if (cmd == CMD_NORMAL && write(fd, out, 16) != 16)
			break;
	}
	close(fd);
}

/* Connections one after another: a test that loses its connection sees
 * it in the counters (disconnects), instead of hanging on a resend */
static void *srv_main(void *arg)
{
	struct srv *s = arg;
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		atomic_store(&s->conn, fd);
		srv_conn(s, fd);
		atomic_store(&s->conn, -1);
	}
	return NULL;
}

static int setup(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	int small = 65536;

	(void)state;
	memset(&S, 0, sizeof(S));
	atomic_store(&S.conn, -1);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	S.lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (S.lfd < 0)
		return -1;
	/* inherited by the accepted socket: a small window keeps the
	 * payload the server has not read in the client's send queue */
	setsockopt(S.lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(S.lfd, (struct sockaddr *)&a, sizeof(a)) || listen(S.lfd, 1) ||
	    getsockname(S.lfd, (struct sockaddr *)&a, &al))
		return -1;
	S.port = ntohs(a.sin_port);
	return pthread_create(&S.thr, NULL, srv_main, &S) ? -1 : 0;
}

static int teardown(void **state)
{
	int fd = atomic_load(&S.conn);

	(void)state;
	/* a failed test leaves its transport, and so a connection, open */
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
	shutdown(S.lfd, SHUT_RDWR);
	close(S.lfd);
	pthread_join(S.thr, NULL);
	return 0;
}

struct call {
	atomic_int done_count;
	int status;
	bool released_at_done; /* the server had started reading by then */
};

static void t_done(struct lx_xprt_req *req, int status)
{
	struct call *c = req->user;

	c->status = status;
	c->released_at_done = atomic_load(&S.released);
	atomic_fetch_add(&c->done_count, 1);
}

static const struct lx_xprt_req_ops t_ops = {.done = t_done};

static struct lx_xprt_framing_ops toy_framing;

static struct lx_xprt *mk_xprt(bool zerocopy)
{
	struct lx_xprt_opts o = {0};
	struct lx_xprt *x = NULL;

	toy_framing = lx_xprt_framing_rpc;
	toy_framing.name = "toy";
	toy_framing.key_len = 4;
	toy_framing.check = NULL;
	o.transport = LX_XPRT_TRANSPORT_TCP;
	o.host = "127.0.0.1";
	o.port = S.port;
	o.framing = &toy_framing;
	o.max_reqs = 8;
	o.buf_size = 4096;
	o.policy = LX_XPRT_RESEND;
	o.zerocopy = zerocopy;
	assert_int_equal(lx_xprt_create(&x, &o), 0);
	return x;
}

/* A call of @cmd carrying @len bytes of @payload (as tx_segs) */
static struct lx_xprt_req *mk_req(struct lx_xprt *x, struct call *c,
				  uint32_t key, uint32_t cmd, uint8_t *payload,
				  size_t len, bool will_wait)
{
	struct lx_xprt_req *req;
	uint8_t *p;
	size_t i;

	assert_int_equal(lx_xprt_req_alloc(x, 0, &req), 0);
	p = req->sbuf->data;
	memset(p, 0, 12);
	p[0] = (uint8_t)(key >> 24);
	p[1] = (uint8_t)(key >> 16);
	p[2] = (uint8_t)(key >> 8);
	p[3] = (uint8_t)key;
	p[7] = (uint8_t)cmd;
	req->sbuf->len = 12;
	for (i = 0; i < len; i++)
		payload[i] = PATTERN(key, i);
	/* two segments: the iovec split must not matter */
	req->tx_segs[0].iov_base = payload;
	req->tx_segs[0].iov_len = len / 3;
	req->tx_segs[1].iov_base = payload + len / 3;
	req->tx_segs[1].iov_len = len - len / 3;
	req->nr_tx_segs = len ? 2 : 0;
	req->ops = &t_ops;
	req->user = c;
	req->will_wait = will_wait;
	memset(c, 0, sizeof(*c));
	return req;
}

static void run_early(bool zerocopy, bool will_wait)
{
	static uint8_t payload[BIG];
	struct lx_xprt *x = mk_xprt(zerocopy);
	struct lx_xprt_stats st;
	struct lx_xprt_req *req;
	struct call c;

	atomic_store(&S.released, false);
	req = mk_req(x, &c, 0x77, CMD_EARLY, payload, BIG, will_wait);
	assert_int_equal(lx_xprt_req_submit(req, 0x77), 0);
	assert_int_equal(lx_xprt_req_done_wait(req, 10000000000ll), 0);
	assert_int_equal(atomic_load(&c.done_count), 1);
	assert_int_equal(c.status, 0);
	lx_xprt_stats(x, &st);
	assert_int_equal(st.disconnects, 0); /* reports are no errors */
	if (zerocopy) {
		/* the reply came long before the server read the payload,
		 * but the request completed only once the kernel let go */
		assert_true(c.released_at_done);
		assert_true(st.zerocopy_sends >= 1);
		assert_int_equal(st.zerocopy_completions, st.zerocopy_sends);
		/* loopback copies, and says so */
		assert_int_equal(st.zerocopy_copied, st.zerocopy_completions);
	} else {
		/* the control: a copied send completes at the reply */
		assert_false(c.released_at_done);
		assert_int_equal(st.zerocopy_sends, 0);
	}
	assert_int_equal(lx_xprt_req_put(req), 0);
	lx_xprt_destroy(x);
	assert_int_equal(atomic_load(&S.bad_bytes), 0);
}

static void test_copied_send_completes_at_reply(void **state)
{
	(void)state;
	run_early(false, false);
}

static void test_zerocopy_holds_until_report_async(void **state)
{
	(void)state;
	run_early(true, false);
}

static void test_zerocopy_holds_until_report_sync(void **state)
{
	(void)state;
	run_early(true, true);
}

/* Many calls in flight, large and small, sync and async: every payload
 * arrives intact, every zerocopy send is reported, small calls never go
 * zerocopy. */
static void test_zerocopy_pipeline(void **state)
{
	enum { N = 6, ROUNDS = 20 };
	static uint8_t payload[N][256 * 1024];
	struct lx_xprt *x = mk_xprt(true);
	struct lx_xprt_req *req[N];
	struct lx_xprt_stats st;
	struct call c[N];
	unsigned int r, i, calls0 = atomic_load(&S.calls);

	(void)state;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < N; i++) {
			/* odd ones small: copied whatever the option */
			size_t len = i & 1 ? 1000 : sizeof(payload[i]) - i;
			uint32_t key = r * N + i + 1;

			req[i] = mk_req(x, &c[i], key, CMD_NORMAL, payload[i],
					len, i == 0);
			assert_int_equal(lx_xprt_req_submit(req[i], key), 0);
		}
		for (i = 0; i < N; i++) {
			assert_int_equal(
				lx_xprt_req_done_wait(req[i], 10000000000ll),
				0);
			assert_int_equal(c[i].status, 0);
			assert_int_equal(lx_xprt_req_put(req[i]), 0);
		}
	}
	lx_xprt_stats(x, &st);
	assert_int_equal(st.disconnects, 0); /* reports are no errors */
	assert_true(st.zerocopy_sends >= ROUNDS * N / 2);
	assert_int_equal(st.zerocopy_completions, st.zerocopy_sends);
	assert_int_equal(st.zerocopy_copied, st.zerocopy_completions);
	lx_xprt_destroy(x);
	assert_int_equal(atomic_load(&S.calls) - calls0, ROUNDS * N);
	assert_int_equal(atomic_load(&S.bad_bytes), 0);
}

int main(void)
{
	/* one server connection per group run: each test makes its own
	 * transport, the server serves the connections one after another */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_copied_send_completes_at_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_zerocopy_holds_until_report_async, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_zerocopy_holds_until_report_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zerocopy_pipeline, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
