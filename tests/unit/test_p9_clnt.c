// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P client against an in-process 9P server (test_p9_fake.h): version
 * negotiation and the pool following the server's msize, attach errors,
 * option checks, tags as slots, the fid ceiling, reads placed straight in
 * the caller's buffer, every malformed-reply errno, the path helpers
 * (walks of more than 16 components, create, readdir and the offsets
 * and names a server may send it, remove with the
 * Tunlinkat fallback), every per-message call, async chains from
 * callbacks, and close with calls in flight.  Flush has its own file
 * (test_p9_flush.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/p9.h>
#include <libxprt/proto/rdma.h>

#include "p9/p9_int.h" /* lx_p9__dir_max_entries */
#include "test_p9_fake.h"

static struct p9f srv;
static char errbuf[512];

static void setup_srv(void)
{
	pthread_mutex_lock(&srv.lock);
	p9f_reset(&srv);
	pthread_mutex_unlock(&srv.lock);
}

static struct lx_p9_opts opts(void)
{
	struct lx_p9_opts o = {
		.host = "127.0.0.1",
		.port = fakesrv_port(srv.srv),
		.aname = "/fake",
		.uname = "tester",
		.timeout_ms = 5000,
		.errbuf = errbuf,
		.errbuf_len = sizeof(errbuf),
	};

	errbuf[0] = '\0';
	return o;
}

static struct lx_p9_clnt *conn(const struct lx_p9_opts *o)
{
	struct lx_p9_clnt *c = NULL;
	int r = lx_p9_create(&c, o);

	if (r)
		fail_msg("lx_p9_create: %d (%s)", r, errbuf);
	return c;
}

static unsigned int nlog(void)
{
	unsigned int n;

	pthread_mutex_lock(&srv.lock);
	n = srv.nlog;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

static uint64_t fids_in_use(struct lx_p9_clnt *c)
{
	struct lx_p9_stats st;

	lx_p9_stats(c, &st);
	return st.fids_in_use;
}

static uint32_t open_file(struct lx_p9_clnt *c, const char *path)
{
	uint32_t fid;

	assert_int_equal(lx_p9_open_path(c, path, O_RDWR, 0, &fid, NULL), 0);
	return fid;
}

/* --------------------------------------------------------- connecting */

static void test_connect_versions_with_notag_and_attaches(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_msize(c), 65536);
	assert_int_equal(lx_p9_iosize(c), 65536 - 24);
	assert_int_equal(srv.version_tag, LX_P9_NOTAG);
	assert_int_equal(p9f_count(&srv, LX_P9_TATTACH), 1);
	assert_int_equal(lx_p9_root_qid(c).type, LX_P9_QTDIR);
	assert_true(lx_p9_root_fid(c) < 1024);
	lx_p9_destroy(c);
	/* close clunks the root fid */
	assert_int_equal(p9f_count(&srv, LX_P9_TCLUNK), 1);
}

static void test_server_msize_wins_and_pool_follows(void **state)
{
	static uint8_t buf[P9F_FILE_SIZE];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	uint32_t fid, n;
	size_t got, i;

	(void)state;
	setup_srv();
	srv.msize = 8192;
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_msize(c), 8192);
	assert_int_equal(lx_p9_iosize(c), 8192 - 24);
	fid = open_file(c, "file");
	/* one read asking for more gets msize - 24 on the wire */
	assert_int_equal(lx_p9_read(c, fid, 0, 60000, buf, &n), 0);
	assert_int_equal(n, 8192 - 24);
	assert_int_equal(srv.max_count_seen, 8192 - 24);
	/* a pread splits at the iounit, all in msize buffers */
	assert_int_equal(lx_p9_pread(c, fid, buf, sizeof(buf), 0, &got), 0);
	assert_int_equal(got, P9F_FILE_SIZE);
	for (i = 0; i < got; i++)
		if (buf[i] != (uint8_t)(i * 31 + 7))
			fail_msg("byte %zu", i);
	assert_int_equal(lx_xprt_pool_buf_size(lx_xprt_pool(lx_p9_xprt(c))),
			 8192);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	lx_p9_destroy(c);
}

static void test_unknown_version_is_eprotonosupport(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;

	(void)state;
	setup_srv();
	srv.version = "unknown";
	o = opts();
	assert_int_equal(lx_p9_create(&c, &o), -EPROTONOSUPPORT);
	assert_null(c);
	assert_non_null(strstr(errbuf, "unknown"));

	setup_srv();
	srv.version = "9P2000.u";
	assert_int_equal(lx_p9_create(&c, &o), -EPROTONOSUPPORT);

	/* what follows a NUL is shown, escaped: not "9P2000.L" */
	setup_srv();
	srv.version = "9P2000.L\0junk\"\n";
	srv.version_len = 15;
	assert_int_equal(lx_p9_create(&c, &o), -EPROTONOSUPPORT);
	assert_non_null(strstr(errbuf,
			       "with version \"9P2000.L\\000junk"
			       "\\\"\\012\": it does not speak 9P2000.L"));

	setup_srv();
	srv.version_err = EIO; /* diod's answer to a version it lacks */
	assert_int_equal(lx_p9_create(&c, &o), -EPROTONOSUPPORT);
	assert_non_null(strstr(errbuf, "refused Tversion"));
}

static void test_tiny_server_msize_is_eproto(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;

	(void)state;
	setup_srv();
	srv.msize = 1000;
	o = opts();
	assert_int_equal(lx_p9_create(&c, &o), -EPROTO);
	assert_non_null(strstr(errbuf, "msize"));
}

static void test_bad_options_are_einval_and_send_nothing(void **state)
{
	static const struct lx_xprt_rdma_opts bad_rdma = {.inline_send = 1000};
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;
	unsigned int before;

	(void)state;
	setup_srv();
	before = nlog();
	o = opts();
	o.msize = 4095;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.msize = LX_P9_MAX_MSIZE + 1;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.max_reqs = 1; /* a flush needs a second slot */
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.max_reqs = 65536;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.max_fids = 1;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.host = NULL;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.transport = LX_XPRT_TRANSPORT_RDMA + 1;
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	o = opts();
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.rdma = &bad_rdma; /* checked by the transport, before any connect */
	assert_int_equal(lx_p9_create(&c, &o), -EINVAL);
	assert_non_null(strstr(errbuf, "(RDMA)"));
	assert_int_equal(lx_p9_create(NULL, &o), -EINVAL);
	assert_int_equal(lx_p9_create(&c, NULL), -EINVAL);
	assert_null(c);
	assert_int_equal(nlog(), before);
}

/*
 * 9P over RDMA is real code now: without an RDMA device (the build host
 * has none) lx_p9_create() must fail with the transport's errno and a
 * message, leak nothing and send nothing over TCP.  The guest tests
 * (tests/rdma) run it for real.
 */
static void test_rdma_without_device_fails_with_errno(void **state)
{
	struct lx_xprt_rdma_opts ro = {.ack_timeout = 14};
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;
	unsigned int before;
	int r;

	(void)state;
	setup_srv();
	before = nlog();
	o = opts();
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.rdma = &ro;
	o.connect_timeout_ms = 1000;
	r = lx_p9_create(&c, &o);
	if (!r) {
		/* a host with a device and a 9P RDMA server there: fine */
		lx_p9_destroy(c);
		print_message("SKIP(rdma-device): a 9P RDMA server answered: "
			      "the no-device path cannot be tested here\n");
		skip();
	}
	assert_true(r < 0);
	assert_int_not_equal(r, -EPROTONOSUPPORT);
	assert_int_not_equal(r, -EINVAL);
	assert_null(c);
	assert_non_null(strstr(errbuf, "(RDMA)"));
	assert_int_equal(nlog(), before);
}

static void test_connection_refused(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;
	int fd;

	(void)state;
	/* a port that was just free */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &al);
	close(fd);
	o = opts();
	o.port = ntohs(a.sin_port);
	assert_int_equal(lx_p9_create(&c, &o), -ECONNREFUSED);
	assert_non_null(strstr(errbuf, "connect to"));
}

static void test_attach_refused_carries_errno(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c = NULL;

	(void)state;
	setup_srv();
	srv.attach_err = EPERM; /* diod's answer to a wrong aname */
	o = opts();
	assert_int_equal(lx_p9_create(&c, &o), -EPERM);
	assert_non_null(strstr(errbuf, "/fake"));
	setup_srv();
	srv.attach_err = ENOENT; /* ganesha's */
	assert_int_equal(lx_p9_create(&c, &o), -ENOENT);
}

/* ------------------------------------------------------------- calls */

static void test_read_lands_in_caller_buffer_within_bounds(void **state)
{
	static uint8_t buf[20000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_xprt_stats xs;
	uint32_t fid, n, i;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	memset(buf, 0x11, sizeof(buf));
	assert_int_equal(lx_p9_read(c, fid, 100, 16000, buf + 8, &n), 0);
	assert_int_equal(n, 16000);
	for (i = 0; i < n; i++)
		if (buf[8 + i] != (uint8_t)((100 + i) * 31 + 7))
			fail_msg("byte %u", i);
	for (i = 0; i < 8; i++)
		assert_int_equal(buf[i], 0x11);
	for (i = 8 + n; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x11);
	lx_xprt_stats(lx_p9_xprt(c), &xs);
	assert_true(xs.bytes_received > n);
	/* at the end of the file: a short read, then 0 */
	assert_int_equal(lx_p9_read(c, fid, P9F_FILE_SIZE - 5, 100, buf, &n),
			 0);
	assert_int_equal(n, 5);
	assert_int_equal(lx_p9_read(c, fid, P9F_FILE_SIZE, 100, buf, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	lx_p9_destroy(c);
}

static void test_rread_count_over_request_is_eproto_untouched(void **state)
{
	uint8_t buf[300];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t fid, n = 77;
	size_t i;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	srv.bad_type = LX_P9_TREAD;
	srv.bad = P9F_BAD_COUNT_OVER;
	memset(buf, 0x11, sizeof(buf));
	assert_int_equal(lx_p9_read(c, fid, 0, 100, buf, &n), -EPROTO);
	for (i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x11);
	assert_int_equal(n, 77);
	/* the stream stayed in step */
	assert_int_equal(lx_p9_getattr(c, fid, LX_P9_GETATTR_BASIC, &a), 0);
	assert_int_equal(a.size, P9F_FILE_SIZE);
	lx_p9_destroy(c);
}

static void test_malformed_replies_map_to_their_errno(void **state)
{
	static const struct {
		uint8_t type;
		enum p9f_bad bad;
		int err;
	} cases[] = {
		{LX_P9_TGETATTR, P9F_BAD_WRONG_TYPE,
		 0}, /* Rgetattr to Tgetattr */
		{LX_P9_TREAD, P9F_BAD_WRONG_TYPE, -EPROTO},
		{LX_P9_TREAD, P9F_BAD_OVERSIZE, -EMSGSIZE},
		{LX_P9_TREAD, P9F_BAD_RERROR, -EACCES},
		{LX_P9_TREAD, P9F_BAD_RFLUSH, -EPROTO},
		{LX_P9_TREAD, P9F_BAD_UNUSED_TAG, 0},
		{LX_P9_TGETATTR, P9F_BAD_TRUNCATED, -EBADMSG},
	};
	static uint8_t buf[70000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_xprt_stats xs;
	struct lx_p9_attr a;
	uint32_t fid, n;
	unsigned int i;
	int r;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pthread_mutex_lock(&srv.lock);
		srv.bad_type = cases[i].type;
		srv.bad = cases[i].bad;
		pthread_mutex_unlock(&srv.lock);
		if (cases[i].type == LX_P9_TREAD)
			r = lx_p9_read(c, fid, 0, 100, buf, &n);
		else
			r = lx_p9_getattr(c, fid, 0, &a);
		if (r != cases[i].err)
			fail_msg("case %u: %d, want %d", i, r, cases[i].err);
		pthread_mutex_lock(&srv.lock);
		srv.bad = P9F_BAD_NONE;
		pthread_mutex_unlock(&srv.lock);
		/* every one leaves the session usable */
		assert_int_equal(lx_p9_getattr(c, fid, 0, &a), 0);
	}
	lx_xprt_stats(lx_p9_xprt(c), &xs);
	assert_true(xs.bad_keys >= 1); /* the reply to tag 0x7777 */
	lx_p9_destroy(c);
}

static void test_connection_close_is_econnreset_then_enotconn(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t fid;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	srv.bad_type = LX_P9_TGETATTR;
	srv.bad = P9F_BAD_CLOSE;
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ECONNRESET);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ENOTCONN);
	assert_int_equal(lx_p9_fid_free(c, fid), 0);
	lx_p9_destroy(c);
}

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int done, want;
	int status[64];
	uint32_t count[64];
};

static void waiter_init(struct waiter *w, unsigned int want)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->want = want;
}

static void waiter_wait(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->done < w->want)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

static void io_note(void *arg, int status, uint32_t count)
{
	struct waiter *w = arg;

	pthread_mutex_lock(&w->lock);
	w->status[w->done] = status;
	w->count[w->done] = count;
	w->done++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void io_cb(struct lx_call *call, int status, void *arg)
{
	io_note(arg, status, call->count);
}

/* A call object for @fn(@arg) (the tests keep a few dozen in flight). */
static struct lx_call *mkcall(lx_done_fn fn, void *arg, unsigned int flags)
{
	static struct lx_call calls[64];
	static unsigned int next;
	struct lx_call *call = &calls[next++ % 64];

	*call = (struct lx_call){.done = fn, .arg = arg, .flags = flags};
	return call;
}

/*
 * The first Rread of a connection with a large count, after only small
 * replies (Rversion, Rattach, Rwalk, Rlopen), lands straight in the
 * caller's buffer: the Tread's size hint (req->rx_hint) puts the TCP
 * receiver in reads sized to the message before its first byte, so not
 * one data byte goes through the staging buffer.  Both
 * ways a Tread is started: lx_p9_read() and lx_p9_read_async().
 */
static void test_first_large_rread_lands_in_place(void **state)
{
	static uint8_t buf[65536];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_xprt_stats x0, x1;
	struct waiter w;
	uint32_t fid, n, i, want;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		setup_srv();
		o = opts();
		c = conn(&o);
		want = lx_p9_iosize(c);
		assert_true(want >= 32 * 1024 && want <= sizeof(buf));
		fid = open_file(c, "file");
		memset(buf, 0, sizeof(buf));
		lx_xprt_stats(lx_p9_xprt(c), &x0);
		if (!pass) {
			assert_int_equal(lx_p9_read(c, fid, 3, want, buf, &n),
					 0);
		} else {
			waiter_init(&w, 1);
			assert_int_equal(
				lx_p9_read_async(
					c, mkcall(io_cb, &w, LX_CALL_NOWAIT),
					fid, 3, want, buf),
				0);
			waiter_wait(&w);
			assert_int_equal(w.status[0], 0);
			n = w.count[0];
		}
		assert_int_equal(n, want);
		for (i = 0; i < n; i++)
			if (buf[i] != (uint8_t)((3 + i) * 31 + 7))
				fail_msg("pass %d byte %u", pass, i);
		lx_xprt_stats(lx_p9_xprt(c), &x1);
		/* every data byte read into @buf, none through the stage */
		assert_int_equal(x1.direct_rx_bytes - x0.direct_rx_bytes, want);
		assert_int_equal(lx_p9_clunk(c, fid), 0);
		lx_p9_destroy(c);
	}
}

static void test_tags_are_slots_below_max_reqs(void **state)
{
	static uint8_t bufs[5][1000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct waiter w;
	uint32_t fid;
	unsigned int i, got = 0;
	int r;

	(void)state;
	setup_srv();
	o = opts();
	o.max_reqs = 4;
	c = conn(&o);
	fid = open_file(c, "file");
	srv.hold_type = 0;
	waiter_init(&w, 0);
	for (i = 0; i < 5; i++) {
		pthread_mutex_lock(&w.lock);
		w.want++;
		pthread_mutex_unlock(&w.lock);
		r = lx_p9_read_async(c, mkcall(io_cb, &w, LX_CALL_NOWAIT), fid,
				     i * 1000, 1000, bufs[i]);
		if (r) {
			assert_true(r == -EBUSY);
			pthread_mutex_lock(&w.lock);
			w.want--;
			pthread_mutex_unlock(&w.lock);
		} else {
			got++;
		}
	}
	assert_true(got >= 1);
	waiter_wait(&w);
	for (i = 0; i < got; i++) {
		assert_int_equal(w.status[i], 0);
		assert_int_equal(w.count[i], 1000);
	}
	assert_true(srv.max_tag < 4);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	lx_p9_destroy(c);
}

static void test_fid_ceiling_is_enfile(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	uint32_t a, b, x;

	(void)state;
	setup_srv();
	o = opts();
	o.max_fids = 3; /* the root takes one */
	c = conn(&o);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "file", &a, NULL), 0);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "dir", &b, NULL), 0);
	assert_true(a < 3 && b < 3 && a != b);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "file", &x, NULL),
			 -ENFILE);
	assert_int_equal(lx_p9_fid_alloc(c, &x), -ENFILE);
	assert_int_equal(lx_p9_clunk(c, a), 0);
	assert_int_equal(lx_p9_fid_free(c, a), -EINVAL); /* clunk freed it */
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "file", &a, NULL), 0);
	assert_int_equal(lx_p9_fid_free(c, 999), -EINVAL);
	assert_int_equal(lx_p9_fid_free(NULL, 0), -EINVAL);
	assert_int_equal(lx_p9_fid_alloc(c, NULL), -EINVAL);
	assert_int_equal(lx_p9_clunk(c, a), 0);
	assert_int_equal(lx_p9_clunk(c, b), 0);
	assert_int_equal(fids_in_use(c), 1);
	lx_p9_destroy(c);
}

static void test_walks_missing_and_long_paths(void **state)
{
	char path[256] = "";
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_qid q;
	unsigned int i, walks;
	uint32_t fid;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "missing", &fid, NULL),
			 -ENOENT);
	/* partial: dir exists, the rest does not */
	assert_int_equal(
		lx_p9_walk_path(c, LX_P9_NOFID, "dir/nope/x", &fid, NULL),
		-ENOENT);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "file/x", &fid, NULL),
			 -ENOENT);
	assert_int_equal(fids_in_use(c), 1);
	/* 21 components: two Twalks, the second in place */
	for (i = 0; i < 10; i++)
		strcat(path, "dir/../");
	strcat(path, "//dir/inner/");
	walks = p9f_count(&srv, LX_P9_TWALK);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, path, &fid, &q), 0);
	assert_int_equal(p9f_count(&srv, LX_P9_TWALK) - walks, 2);
	assert_int_equal(q.path, 1003);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	/* "" and "/" clone the root */
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "/", &fid, &q), 0);
	assert_int_equal(q.type, LX_P9_QTDIR);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(fids_in_use(c), 1);
	lx_p9_destroy(c);
}

static void test_create_write_read_back(void **state)
{
	static uint8_t out[30000], in[30000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	uint32_t fid, fid2;
	size_t n, i;

	(void)state;
	setup_srv();
	o = opts();
	o.msize = 8192; /* several chunks each way */
	c = conn(&o);
	for (i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i ^ 0x5a);
	assert_int_equal(lx_p9_open_path(c, "dir/new.txt",
					 O_RDWR | O_CREAT | O_EXCL, 0644, &fid,
					 NULL),
			 0);
	assert_int_equal(p9f_count(&srv, LX_P9_TLCREATE), 1);
	assert_int_equal(lx_p9_pwrite(c, fid, out, sizeof(out), 0, &n), 0);
	assert_int_equal(n, sizeof(out));
	assert_int_equal(
		lx_p9_open_path(c, "dir/new.txt", O_RDONLY, 0, &fid2, NULL), 0);
	assert_int_equal(lx_p9_pread(c, fid2, in, sizeof(in) + 0, 0, &n), 0);
	assert_int_equal(n, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	/* reading past the end stops at it */
	assert_int_equal(lx_p9_pread(c, fid2, in, sizeof(in), 100, &n), 0);
	assert_int_equal(n, sizeof(out) - 100);
	assert_int_equal(lx_p9_open_path(c, "dir/new.txt",
					 O_RDWR | O_CREAT | O_EXCL, 0644, &fid,
					 NULL),
			 -EEXIST);
	assert_int_equal(lx_p9_open_path(c, "nodir/x", O_RDWR | O_CREAT, 0644,
					 &fid, NULL),
			 -ENOENT);
	assert_int_equal(lx_p9_clunk(c, fid2), 0);
	assert_int_equal(fids_in_use(c), 2);
	lx_p9_destroy(c);
}

static void test_readdir_mkdir_remove(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_dir *d;
	struct lx_p9_dirent e;
	struct lx_p9_attr a;
	struct lx_p9_statfs sf;
	bool file = false, dir = false;
	int r, n = 0;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_opendir(c, "", &d), 0);
	while ((r = lx_p9_readdir_next(d, &e)) == 1) {
		n++;
		file |= e.name.len == 4 && !memcmp(e.name.s, "file", 4);
		dir |= e.name.len == 3 && !memcmp(e.name.s, "dir", 3);
	}
	assert_int_equal(r, 0);
	assert_true(file && dir);
	assert_int_equal(n, 2);
	lx_p9_closedir(d);
	assert_int_equal(lx_p9_opendir(c, "file", &d), -ENOTDIR);
	assert_int_equal(lx_p9_mkdir_path(c, "dir/sub", 0755), 0);
	assert_int_equal(lx_p9_stat_path(c, "dir/sub", LX_P9_GETATTR_BASIC, &a),
			 0);
	assert_int_equal(a.qid.type, LX_P9_QTDIR);
	assert_int_equal(lx_p9_statfs_path(c, "dir", &sf), 0);
	assert_int_equal(sf.bsize, 4096);
	assert_int_equal(lx_p9_remove_path(c, "dir/sub"), 0);
	assert_int_equal(lx_p9_stat_path(c, "dir/sub", 0, &a), -ENOENT);
	/* diod refuses Tunlinkat: Twalk + Tremove */
	srv.unlinkat_unsupported = true;
	assert_int_equal(lx_p9_remove_path(c, "file"), 0);
	assert_true(p9f_count(&srv, LX_P9_TREMOVE) == 1);
	assert_int_equal(lx_p9_stat_path(c, "file", 0, &a), -ENOENT);
	assert_int_equal(lx_p9_remove_path(c, "/"), -EINVAL);
	assert_int_equal(fids_in_use(c), 1);
	lx_p9_destroy(c);
}

/* Read the root's listing in @mode; return the end status, *@n entries */
static int list_root(enum p9f_dir mode, unsigned int *n)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_dir *d;
	struct lx_p9_dirent e;
	int r;

	setup_srv();
	srv.dir = mode;
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_opendir(c, "", &d), 0);
	*n = 0;
	while ((r = lx_p9_readdir_next(d, &e)) == 1)
		++*n;
	lx_p9_closedir(d);
	assert_int_equal(fids_in_use(c), 1);
	lx_p9_destroy(c);
	return r;
}

static void test_readdir_offset_loops_are_eloop(void **state)
{
	unsigned int n, asked;

	(void)state;
	/* the next offset is the one asked for: the entry once, then -ELOOP
	 * at the second Treaddir, not a third */
	assert_int_equal(list_root(P9F_DIR_SELF, &n), -ELOOP);
	assert_int_equal(n, 1);
	assert_int_equal(p9f_count(&srv, LX_P9_TREADDIR), 2);
	/* one handed out before, after going down (hash order) */
	assert_int_equal(list_root(P9F_DIR_CYCLE, &n), -ELOOP);
	assert_int_equal(n, 2);
	asked = p9f_count(&srv, LX_P9_TREADDIR);
	assert_int_equal(asked, 3);
	/* going down is not a loop */
	assert_int_equal(list_root(P9F_DIR_DOWN, &n), 0);
	assert_int_equal(n, 2);
}

static void test_readdir_entries_are_bounded(void **state)
{
	unsigned int n;

	(void)state;
	/* 16 Mi, as the NFSv3 iterator; lowered here so that a sanitizer
	 * build does not spend minutes on 16 Mi entries */
	assert_int_equal(lx_p9__dir_max_entries, 16u << 20);
	lx_p9__dir_max_entries = 100000;
	/* new offsets for ever: stopped at the bound, the reply that would
	 * pass it not delivered */
	assert_int_equal(list_root(P9F_DIR_INVENT, &n), -E2BIG);
	lx_p9__dir_max_entries = 16u << 20;
	assert_true(n <= 100000);
	assert_true(n > 100000 - 8192);
}

static void test_readdir_names_are_passed_as_sent(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_dir *d;
	struct lx_p9_dirent e;

	(void)state;
	setup_srv();
	srv.dir = P9F_DIR_ODDNAME;
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_opendir(c, "", &d), 0);
	/* the length says where a name ends, not a NUL */
	assert_int_equal(lx_p9_readdir_next(d, &e), 1);
	assert_int_equal(e.name.len, 3);
	assert_memory_equal(e.name.s, "a\0b", 3);
	assert_int_equal(lx_p9_readdir_next(d, &e), 1);
	assert_int_equal(e.name.len, 4);
	assert_memory_equal(e.name.s, "../x", 4);
	assert_int_equal(lx_p9_readdir_next(d, &e), 1);
	assert_int_equal(lx_p9_readdir_next(d, &e), 0);
	lx_p9_closedir(d);
	lx_p9_destroy(c);
}

static void test_clunk_frees_the_fid_even_on_error(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	uint32_t fid;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "file", &fid, NULL),
			 0);
	assert_int_equal(fids_in_use(c), 2);
	srv.fail_type = LX_P9_TCLUNK;
	srv.fail_errno = EIO;
	assert_int_equal(lx_p9_clunk(c, fid), -EIO);
	assert_int_equal(fids_in_use(c), 1);
	srv.fail_type = 0;
	lx_p9_destroy(c);
}

static void test_every_message_has_a_call(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_qid q;
	struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_MODE, .mode = 0600};
	struct lx_p9_flock fl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				 .client_id = lx_p9_str_c("me")};
	struct lx_p9_getlock gl = {.type = LX_P9_LOCK_TYPE_WRLCK,
				   .client_id = lx_p9_str_c("me")};
	const char *names[] = {"dir", "inner"};
	char id[32], link[64];
	uint8_t st;
	uint32_t fid, nf, dfid;
	unsigned int nq;
	uint64_t sz;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	dfid = lx_p9_root_fid(c);
	assert_int_equal(lx_p9_auth(c, 5, "u", "/fake", 0, &q), -EOPNOTSUPP);
	assert_int_equal(lx_p9_fid_alloc(c, &fid), 0);
	assert_int_equal(lx_p9_attach(c, fid, LX_P9_NOFID, "u", "/fake", 0, &q),
			 0);
	assert_int_equal(lx_p9_fid_alloc(c, &nf), 0);
	assert_int_equal(lx_p9_walk(c, fid, nf, 2, names, &nq, NULL), 0);
	assert_int_equal(nq, 2);
	assert_int_equal(lx_p9_lopen(c, nf, O_RDONLY, &q, NULL), 0);
	assert_int_equal(lx_p9_fsync(c, nf, true), 0);
	assert_int_equal(lx_p9_setattr(c, nf, &ia), 0);
	assert_int_equal(lx_p9_lock(c, nf, &fl, &st), 0);
	assert_int_equal(st, LX_P9_LOCK_SUCCESS);
	assert_int_equal(lx_p9_getlock(c, nf, &gl, id, sizeof(id)), 0);
	assert_string_equal(id, "fake-owner");
	assert_int_equal(gl.type, LX_P9_LOCK_TYPE_UNLCK);
	assert_int_equal(lx_p9_getlock(c, nf, &gl, id, 4), -ENAMETOOLONG);
	assert_int_equal(lx_p9_readlink(c, nf, link, sizeof(link)), 0);
	assert_string_equal(link, "target/of/link");
	assert_int_equal(lx_p9_readlink(c, nf, link, 5), -ENAMETOOLONG);
	assert_int_equal(lx_p9_symlink(c, dfid, "ln", "file", 0, &q), 0);
	assert_int_equal(lx_p9_mknod(c, dfid, "nod", 010644, 0, 0, 0, &q), 0);
	assert_int_equal(lx_p9_rename(c, nf, dfid, "renamed"), 0);
	assert_int_equal(lx_p9_renameat(c, dfid, "a", dfid, "b"), 0);
	assert_int_equal(lx_p9_link(c, dfid, nf, "hard"), 0);
	assert_int_equal(lx_p9_mkdir(c, dfid, "m", 0755, 0, &q), 0);
	assert_int_equal(lx_p9_unlinkat(c, dfid, "m", LX_P9_AT_REMOVEDIR), 0);
	assert_int_equal(lx_p9_xattrcreate(c, nf, "user.x", 3, 0), 0);
	assert_int_equal(lx_p9_clunk(c, nf), 0);
	assert_int_equal(lx_p9_fid_alloc(c, &nf), 0);
	assert_int_equal(lx_p9_xattrwalk(c, fid, nf, "user.x", &sz), 0);
	assert_int_equal(sz, 5);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(lx_p9_fid_free(c, nf), 0);
	{
		static const uint8_t seen[] = {
			LX_P9_TAUTH,	    LX_P9_TATTACH,  LX_P9_TWALK,
			LX_P9_TLOPEN,	    LX_P9_TFSYNC,   LX_P9_TSETATTR,
			LX_P9_TLOCK,	    LX_P9_TGETLOCK, LX_P9_TREADLINK,
			LX_P9_TSYMLINK,	    LX_P9_TMKNOD,   LX_P9_TRENAME,
			LX_P9_TRENAMEAT,    LX_P9_TLINK,    LX_P9_TMKDIR,
			LX_P9_TUNLINKAT,    LX_P9_TCLUNK,   LX_P9_TXATTRWALK,
			LX_P9_TXATTRCREATE,
		};
		unsigned int i;

		for (i = 0; i < sizeof(seen); i++)
			if (!p9f_count(&srv, seen[i]))
				fail_msg("%s not sent",
					 lx_p9_msg_name(seen[i]));
	}
	lx_p9_destroy(c);
}

static void test_arguments_are_checked_before_sending(void **state)
{
	static char huge[70000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_fcall tx = {.type = LX_P9_TFLUSH};
	struct lx_p9_fcall rx;
	struct lx_p9_attr a;
	const char *names[17] = {0};
	unsigned int before, nq;
	uint32_t n;
	uint8_t buf[8];

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	memset(huge, 'x', sizeof(huge) - 1);
	before = nlog();
	assert_int_equal(lx_p9_walk(c, 0, 1, 17, names, &nq, NULL), -EINVAL);
	assert_int_equal(lx_p9_walk(c, 0, 1, 1, NULL, &nq, NULL), -EINVAL);
	assert_int_equal(lx_p9_getattr(c, 0, 0, NULL), -EINVAL);
	assert_int_equal(lx_p9_getattr(NULL, 0, 0, &a), -EINVAL);
	assert_int_equal(lx_p9_read(c, 0, 0, 8, NULL, &n), -EINVAL);
	assert_int_equal(lx_p9_write(c, 0, 0, 8, buf, NULL), -EINVAL);
	assert_int_equal(lx_p9_mkdir(c, 0, huge, 0, 0, NULL), -ENAMETOOLONG);
	assert_int_equal(lx_p9_mkdir(c, 0, NULL, 0, 0, NULL), -EINVAL);
	assert_int_equal(lx_p9_lcreate(c, 0, huge, 0, 0, 0, NULL, NULL),
			 -ENAMETOOLONG);
	assert_int_equal(
		lx_p9_read_async(c, mkcall(NULL, NULL, 0), 0, 0, 8, buf),
		-EINVAL);
	assert_int_equal(lx_p9_read_async(c, NULL, 0, 0, 8, buf), -EINVAL);
	assert_int_equal(
		lx_p9_read_async(c, mkcall(io_cb, NULL, 0x80), 0, 0, 8, buf),
		-EINVAL);
	/* Tversion and Tflush are the client's own */
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, NULL, 0), -EINVAL);
	tx.type = LX_P9_TVERSION;
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, NULL, 0), -EINVAL);
	tx.type = LX_P9_RGETATTR;
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, NULL, 0), -EINVAL);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, NULL, &n, NULL),
			 -EINVAL);
	assert_int_equal(lx_call_cancel(NULL), -EINVAL);
	assert_int_equal(nlog(), before);
	/* a message larger than msize is refused before it is sent */
	assert_int_equal(lx_p9_symlink(c, 0, huge + 5000, huge + 5000, 0, NULL),
			 -EMSGSIZE);
	assert_int_equal(nlog(), before);
	lx_p9_destroy(c);
	lx_p9_destroy(NULL);
}

static void test_generic_call_copies_reply(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct lx_p9_fcall tx = {.type = LX_P9_TREADLINK}, rx;
	char rbuf[256], small[8];

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	tx.u.tfid.fid = lx_p9_root_fid(c);
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, rbuf, sizeof(rbuf)), 0);
	assert_int_equal(rx.type, LX_P9_RREADLINK);
	assert_int_equal(rx.u.rreadlink.target.len, 14);
	/* the strings point into the caller's copy of the reply */
	assert_true(rx.u.rreadlink.target.s >= rbuf &&
		    rx.u.rreadlink.target.s < rbuf + sizeof(rbuf));
	assert_memory_equal(rx.u.rreadlink.target.s, "target/of/link", 14);
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, small, sizeof(small)),
			 -EMSGSIZE);
	assert_int_equal(lx_p9_call(c, &tx, NULL, &rx, NULL, 0), 0);
	assert_int_equal(rx.u.rreadlink.target.len, 14);
	lx_p9_destroy(c);
}

/* A chain: each completion starts the next read from the callback. */
struct chain {
	struct lx_call call;
	struct lx_p9_clnt *c;
	uint32_t fid;
	uint8_t buf[4096];
	unsigned int left, eagain;
	struct waiter *w;
	int status;
};

static void chain_cb(struct lx_call *call, int status, void *arg)
{
	struct chain *ch = arg;
	uint32_t count = call->count;
	int r;

	if (status || count != sizeof(ch->buf) || !--ch->left) {
		ch->status = status;
		io_note(ch->w, status, count);
		return;
	}
	/* the same call object, restarted from its own callback */
	call->flags = LX_CALL_NOWAIT;
	r = lx_p9_read_async(ch->c, call, ch->fid, ch->left * 10,
			     sizeof(ch->buf), ch->buf);
	if (r) {
		ch->eagain++;
		ch->status = r;
		io_note(ch->w, r, 0);
	}
}

static void test_async_chain_from_callback_with_nowait(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct waiter w;
	struct chain ch;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	memset(&ch, 0, sizeof(ch));
	ch.c = c;
	ch.fid = open_file(c, "file");
	ch.left = 200;
	ch.w = &w;
	waiter_init(&w, 1);
	ch.call = (struct lx_call){.done = chain_cb, .arg = &ch, .owner = 7};
	assert_int_equal(lx_p9_read_async(c, &ch.call, ch.fid, 0,
					  sizeof(ch.buf), ch.buf),
			 0);
	waiter_wait(&w);
	assert_int_equal(ch.status, 0);
	assert_int_equal(ch.left, 0);
	assert_int_equal(lx_p9_clunk(c, ch.fid), 0);
	lx_p9_destroy(c);
}

static void test_writes_async_then_close_with_calls_in_flight(void **state)
{
	static uint8_t data[3000];
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct waiter w;
	uint32_t fid;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	memset(data, 0xab, sizeof(data));
	waiter_init(&w, 1);
	assert_int_equal(lx_p9_write_async(c, mkcall(io_cb, &w, 0), fid, 10,
					   sizeof(data), data),
			 0);
	waiter_wait(&w);
	assert_int_equal(w.status[0], 0);
	assert_int_equal(w.count[0], sizeof(data));
	assert_int_equal(srv.nodes[1].data[10], 0xab);
	/* a read the server never answers: close fails it */
	srv.hold_type = LX_P9_TREAD;
	waiter_init(&w, 1);
	assert_int_equal(lx_p9_read_async(c, mkcall(io_cb, &w, 0), fid, 0,
					  sizeof(data), data),
			 0);
	usleep(20000);
	lx_p9_destroy(c);
	waiter_wait(&w);
	assert_int_equal(w.status[0], -ESHUTDOWN);
}

/* Wait (up to 1 s) for the server to hold a message of srv.hold_type. */
static void held_wait(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < 500 && !n; i++) {
		pthread_mutex_lock(&srv.lock);
		n = srv.held_len;
		pthread_mutex_unlock(&srv.lock);
		if (!n)
			usleep(2000);
	}
}

/* Tfsync as sent: size[4] type[1] tag[2] fid[4] datasync[4]; its replies */
static void test_fsync_async_encoding_and_replies(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	struct waiter w;
	uint32_t fid;
	const uint8_t *m;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	/* Rfsync: status 0 */
	waiter_init(&w, 2);
	assert_int_equal(lx_p9_fsync_async(c, mkcall(io_cb, &w, 0), fid, true),
			 0);
	assert_int_equal(lx_p9_fsync_async(c, mkcall(io_cb, &w, LX_CALL_NOWAIT),
					   fid, false),
			 0);
	waiter_wait(&w);
	assert_int_equal(w.status[0], 0);
	assert_int_equal(w.status[1], 0);
	assert_int_equal(p9f_count(&srv, LX_P9_TFSYNC), 2);
	/* Rlerror: minus its errno */
	srv.fail_type = LX_P9_TFSYNC;
	srv.fail_errno = ENOSPC;
	waiter_init(&w, 1);
	assert_int_equal(lx_p9_fsync_async(c, mkcall(io_cb, &w, 0), fid, false),
			 0);
	waiter_wait(&w);
	assert_int_equal(w.status[0], -ENOSPC);
	srv.fail_type = 0;
	/* the bytes on the wire (held by the server, never answered) */
	srv.hold_type = LX_P9_TFSYNC;
	waiter_init(&w, 1);
	assert_int_equal(lx_p9_fsync_async(c, mkcall(io_cb, &w, 0), fid, true),
			 0);
	held_wait();
	pthread_mutex_lock(&srv.lock);
	m = srv.held;
	assert_int_equal(srv.held_len, 15);
	assert_int_equal(m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24,
			 15);
	assert_int_equal(m[4], LX_P9_TFSYNC);
	assert_int_equal(m[7] | m[8] << 8 | m[9] << 16 | (uint32_t)m[10] << 24,
			 fid);
	assert_int_equal(m[11], 1);
	assert_int_equal(m[12] | m[13] | m[14], 0);
	pthread_mutex_unlock(&srv.lock);
	lx_p9_destroy(c);
	waiter_wait(&w);
	assert_int_equal(w.status[0], -ESHUTDOWN);
	srv.hold_type = 0;
}

static void test_fsync_async_checks_its_arguments(void **state)
{
	struct lx_p9_opts o;
	struct lx_p9_clnt *c;
	uint32_t fid;

	(void)state;
	setup_srv();
	o = opts();
	c = conn(&o);
	fid = open_file(c, "file");
	assert_int_equal(
		lx_p9_fsync_async(NULL, mkcall(io_cb, NULL, 0), fid, false),
		-EINVAL);
	assert_int_equal(lx_p9_fsync_async(c, NULL, fid, false), -EINVAL);
	assert_int_equal(
		lx_p9_fsync_async(c, mkcall(NULL, NULL, 0), fid, false),
		-EINVAL);
	assert_int_equal(
		lx_p9_fsync_async(c, mkcall(io_cb, NULL, 0x80), fid, false),
		-EINVAL);
	assert_int_equal(p9f_count(&srv, LX_P9_TFSYNC), 0);
	lx_p9_destroy(c);
}

static int group_setup(void **state)
{
	(void)state;
	return p9f_start(&srv);
}

static int group_teardown(void **state)
{
	(void)state;
	p9f_stop(&srv);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_versions_with_notag_and_attaches),
		cmocka_unit_test(test_server_msize_wins_and_pool_follows),
		cmocka_unit_test(test_unknown_version_is_eprotonosupport),
		cmocka_unit_test(test_tiny_server_msize_is_eproto),
		cmocka_unit_test(test_bad_options_are_einval_and_send_nothing),
		cmocka_unit_test(test_rdma_without_device_fails_with_errno),
		cmocka_unit_test(test_connection_refused),
		cmocka_unit_test(test_attach_refused_carries_errno),
		cmocka_unit_test(
			test_read_lands_in_caller_buffer_within_bounds),
		cmocka_unit_test(
			test_rread_count_over_request_is_eproto_untouched),
		cmocka_unit_test(test_first_large_rread_lands_in_place),
		cmocka_unit_test(test_malformed_replies_map_to_their_errno),
		cmocka_unit_test(
			test_connection_close_is_econnreset_then_enotconn),
		cmocka_unit_test(test_tags_are_slots_below_max_reqs),
		cmocka_unit_test(test_fid_ceiling_is_enfile),
		cmocka_unit_test(test_walks_missing_and_long_paths),
		cmocka_unit_test(test_create_write_read_back),
		cmocka_unit_test(test_readdir_mkdir_remove),
		cmocka_unit_test(test_readdir_offset_loops_are_eloop),
		cmocka_unit_test(test_readdir_entries_are_bounded),
		cmocka_unit_test(test_readdir_names_are_passed_as_sent),
		cmocka_unit_test(test_clunk_frees_the_fid_even_on_error),
		cmocka_unit_test(test_every_message_has_a_call),
		cmocka_unit_test(test_arguments_are_checked_before_sending),
		cmocka_unit_test(test_generic_call_copies_reply),
		cmocka_unit_test(test_async_chain_from_callback_with_nowait),
		cmocka_unit_test(
			test_writes_async_then_close_with_calls_in_flight),
		cmocka_unit_test(test_fsync_async_encoding_and_replies),
		cmocka_unit_test(test_fsync_async_checks_its_arguments),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
