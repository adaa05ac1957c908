// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The caller-driven mode (LX_XPRT_MODE_CALLER): NFSv3, 9P and RPC clients
 * driven from a poll() loop of the test's own thread.  The library starts
 * no thread: the fake servers run in a child process, so the test
 * process has its main thread only, before and after; done() runs on the
 * owner thread, exactly once; timeouts and retransmissions fire against
 * a silent server with the loop descriptor as the only clock; cancels
 * from another thread are queued to the owner.
 */
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>
#include <libxprt/p9.h>
#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"
#include "test_nfs3_fakesrv.h"
#include "test_p9_fake.h"

static struct p9f p9srv;
static uint16_t nfs_port, p9_port; /* the child's fake servers */
static int ctl_fd, ack_fd;	   /* commands to the child, its acks */

/* Have the child's NFS server answer the next @n NFS calls JUKEBOX. */
static void srv_jukebox(uint8_t n)
{
	uint8_t ack;

	assert_int_equal(write(ctl_fd, &n, 1), 1);
	assert_int_equal(read(ack_fd, &ack, 1), 1);
}

/* an NFSv3 client's options for the child's fake server */
static void nfs_opts(struct lx_nfs3_opts *o, char *msg, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->export_path = "/export";
	o->nfs_port = o->mount_port = nfs_port;
	o->set_ids = true;
	o->timeo_ms = 2000;
	o->errmsg = msg;
	o->errmsg_len = len;
	o->mode = LX_XPRT_MODE_CALLER;
}

static unsigned int nthreads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* one call's record: done() runs once, on the owner */
struct rec {
	struct lx_call call;
	pthread_t owner;
	int status;
	unsigned int dones;
	bool wrong_thread;
};

static void rec_done(struct lx_call *call, int status, void *arg)
{
	struct rec *r = arg;

	(void)call;
	r->status = status;
	r->dones++;
	if (!pthread_equal(pthread_self(), r->owner))
		r->wrong_thread = true;
}

static void rec_init(struct rec *r, unsigned int n)
{
	unsigned int i;

	memset(r, 0, n * sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i].call.done = rec_done;
		r[i].call.arg = &r[i];
		r[i].owner = pthread_self();
		r[i].status = 1;
	}
}

static unsigned int rec_dones(const struct rec *r, unsigned int n)
{
	unsigned int i, d = 0;

	for (i = 0; i < n; i++)
		d += r[i].dones;
	return d;
}

/* The owner's loop: poll the descriptor, service, until @n done() ran;
 * return how many times poll() said it was readable. */
static unsigned int loop_until(int fd, unsigned int events,
			       int (*service)(void *c, unsigned int revents),
			       void *c, struct rec *r, unsigned int n,
			       unsigned int max_ms)
{
	uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u;
	unsigned int wakes = 0;

	while (rec_dones(r, n) < n && now_ns() < end) {
		struct pollfd p = {.fd = fd, .events = (short)events};

		if (poll(&p, 1, 50) > 0) {
			wakes++;
			assert_true(service(c, (unsigned int)p.revents) >= 0);
		}
	}
	return wakes;
}

static int nfs3_service(void *c, unsigned int revents)
{
	return lx_nfs3_loop_service(c, revents);
}

static int p9_service(void *c, unsigned int revents)
{
	return lx_p9_loop_service(c, revents);
}

static int rpc_service(void *c, unsigned int revents)
{
	return lx_rpc_loop_service(c, revents);
}

/* NFSv3: set-up, sync and async calls from one thread, no thread of ours */
static void test_nfs3_caller(void **state)
{
	struct lx_nfs3_getattr_res res[16];
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	struct rec r[16];
	unsigned int before = nthreads(), i;
	char msg[256];

	(void)state;
	nfs_opts(&o, msg, sizeof(msg));
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	assert_int_equal(nthreads(), before);
	assert_true(lx_nfs3_loop_fd(c) >= 0);
	assert_int_equal(lx_nfs3_loop_events(c), POLLIN);
	assert_int_equal(lx_nfs3_null(c), 0); /* runs the loop itself */

	rec_init(r, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(
			lx_nfs3_getattr_async(c, &r[i].call, &fh, &res[i]), 0);
	loop_until(lx_nfs3_loop_fd(c), lx_nfs3_loop_events(c), nfs3_service, c,
		   r, 16, 5000);
	for (i = 0; i < 16; i++) {
		assert_int_equal(r[i].dones, 1);
		assert_int_equal(r[i].status, 0);
		assert_false(r[i].wrong_thread);
	}
	/* lx_nfs3_loop_run(): until one call, then until a count */
	rec_init(r, 2);
	assert_int_equal(lx_nfs3_getattr_async(c, &r[0].call, &fh, &res[0]), 0);
	assert_int_equal(lx_nfs3_getattr_async(c, &r[1].call, &fh, &res[1]), 0);
	assert_true(lx_nfs3_loop_run(c, &r[1].call, 0, 0) >= 1);
	assert_int_equal(r[1].dones, 1);
	lx_nfs3_loop_run(c, NULL, 0, now_ns() + 2000000000ull);
	assert_int_equal(rec_dones(r, 2), 2);
	assert_int_equal(nthreads(), before);
	lx_nfs3_destroy(c);
}

/* A caller-driven session on the child's fake 9P server, "/file" open
 * as *@fid, and @n reads of 4 KiB started into @buf (@r their records). */
static struct lx_p9_clnt *p9_reading(uint32_t *fid, struct rec *r,
				     unsigned int n, char (*buf)[4096])
{
	struct lx_p9_opts o = {
		.host = "127.0.0.1",
		.port = p9_port,
		.aname = "/fake",
		.uname = "tester",
		.timeout_ms = 5000,
		.mode = LX_XPRT_MODE_CALLER,
	};
	struct lx_p9_clnt *c = NULL;
	uint32_t iounit;
	unsigned int i;

	assert_int_equal(lx_p9_create(&c, &o), 0);
	assert_int_equal(lx_p9_open_path(c, "/file", 0, 0, fid, &iounit), 0);
	rec_init(r, n);
	for (i = 0; i < n; i++)
		assert_int_equal(lx_p9_read_async(c, &r[i].call, *fid, i * 4096,
						  4096, buf[i]),
				 0);
	return c;
}

/* nconnect 4: one descriptor, every connection serviced, no thread */
static void test_nfs3_nconnect(void **state)
{
	struct lx_nfs3_getattr_res res[32];
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	struct lx_rpc_stats st;
	unsigned int before = nthreads(), i;
	struct rec r[32];
	char msg[256];

	(void)state;
	nfs_opts(&o, msg, sizeof(msg));
	o.nconnect = 4;
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	assert_int_equal(lx_rpc_nconnect(lx_nfs3_rpc(c)), 4);
	assert_true(lx_nfs3_loop_fd(c) !=
		    lx_xprt_loop_fd(lx_rpc_xprt(lx_nfs3_rpc(c), 0)));
	rec_init(r, 32);
	for (i = 0; i < 32; i++)
		assert_int_equal(
			lx_nfs3_getattr_async(c, &r[i].call, &fh, &res[i]), 0);
	loop_until(lx_nfs3_loop_fd(c), lx_nfs3_loop_events(c), nfs3_service, c,
		   r, 32, 5000);
	for (i = 0; i < 32; i++) {
		assert_int_equal(r[i].dones, 1);
		assert_int_equal(r[i].status, 0);
		assert_false(r[i].wrong_thread);
	}
	lx_rpc_stats(lx_nfs3_rpc(c), &st);
	assert_int_equal(st.xprt.connects, 4);
	/* lx_nfs3_loop_run() over the four, until nothing is in flight */
	rec_init(r, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(
			lx_nfs3_getattr_async(c, &r[i].call, &fh, &res[i]), 0);
	assert_true(lx_nfs3_loop_run(c, NULL, 0, now_ns() + 5000000000ull) >=
		    8);
	assert_int_equal(rec_dones(r, 8), 8);
	assert_int_equal(lx_nfs3_null(c), 0);
	assert_int_equal(nthreads(), before);
	lx_nfs3_destroy(c);
}

/* 9P: attach, open, async reads and a split sync read, one thread */
static void test_p9_caller(void **state)
{
	static char buf[8][4096], big[P9F_FILE_SIZE];
	unsigned int before = nthreads(), i;
	struct lx_p9_clnt *c;
	struct rec r[8];
	uint32_t fid;
	size_t n = 0;

	(void)state;
	c = p9_reading(&fid, r, 8, buf);
	assert_int_equal(nthreads(), before);
	loop_until(lx_p9_loop_fd(c), lx_p9_loop_events(c), p9_service, c, r, 8,
		   5000);
	for (i = 0; i < 8; i++) {
		assert_int_equal(r[i].dones, 1);
		assert_int_equal(r[i].status, 0);
		assert_int_equal(r[i].call.count, 4096);
		assert_false(r[i].wrong_thread);
	}
	/* several Treads in flight at once, waited for on the loop */
	assert_int_equal(lx_p9_pread(c, fid, big, sizeof(big), 0, &n), 0);
	assert_int_equal(n, sizeof(big));
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(nthreads(), before);
	lx_p9_destroy(c);
}

/* A 9P session dies with its connection: the calls in flight fail once,
 * on the owner, and later ones are refused */
static void test_p9_conn_lost(void **state)
{
	static char buf[4][4096];
	unsigned int before = nthreads(), i;
	struct lx_p9_clnt *c;
	struct rec r[4];
	uint32_t fid;

	(void)state;
	c = p9_reading(&fid, r, 4, buf);
	lx_xprt_disconnect(lx_p9_xprt(c));
	loop_until(lx_p9_loop_fd(c), lx_p9_loop_events(c), p9_service, c, r, 4,
		   5000);
	for (i = 0; i < 4; i++) {
		assert_int_equal(r[i].dones, 1);
		assert_int_equal(r[i].status, -ECONNRESET);
		assert_false(r[i].wrong_thread);
	}
	assert_int_equal(lx_xprt_state(lx_p9_xprt(c)), LX_XPRT_CLOSED);
	rec_init(r, 1);
	assert_true(lx_p9_read_async(c, &r[0].call, fid, 0, 4096, buf[0]) < 0);
	assert_int_equal(r[0].dones, 0);
	assert_int_equal(nthreads(), before);
	lx_p9_destroy(c);
}

/* A server that accepts (the kernel's backlog does) and never answers. */
static int silent_listen(uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static struct lx_rpc_clnt *silent_client(uint16_t port, unsigned int timeo_ms,
					 unsigned int retrans)
{
	struct lx_rpc_opts o = {
		.host = "127.0.0.1",
		.port = port,
		.prog = LX_NFS3_PROGRAM,
		.vers = 3,
		.timeo_ms = timeo_ms,
		.retrans = retrans,
		.mode = LX_XPRT_MODE_CALLER,
	};
	struct lx_rpc_clnt *cl = NULL;

	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	return cl;
}

static int null_async(struct lx_rpc_clnt *cl, struct rec *r)
{
	struct lx_rpc_call_args a = {.proc = 0};

	return lx_rpc_call_async(cl, &r->call, &a);
}

/* Timeout and retransmissions with no I/O: the descriptor is the clock */
static void test_silent_timeout(void **state)
{
	struct lx_rpc_stats st;
	struct lx_rpc_clnt *cl;
	unsigned int before = nthreads(), wakes;
	uint16_t port;
	uint64_t t0;
	struct rec r;
	int lfd;

	(void)state;
	lfd = silent_listen(&port);
	cl = silent_client(port, 200, 2);
	assert_int_equal(nthreads(), before);
	rec_init(&r, 1);
	t0 = now_ns();
	assert_int_equal(null_async(cl, &r), 0);
	wakes = loop_until(lx_rpc_loop_fd(cl), lx_rpc_loop_events(cl),
			   rpc_service, cl, &r, 1, 10000);
	/* 200 + 400 + 800 ms: three deadlines, each a wake-up */
	assert_int_equal(r.dones, 1);
	assert_int_equal(r.status, -ETIMEDOUT);
	assert_false(r.wrong_thread);
	assert_true(now_ns() - t0 >= 1300000000ull);
	assert_true(wakes >= 3);
	lx_rpc_stats(cl, &st);
	assert_int_equal(st.xprt.retransmits, 2);
	assert_int_equal(nthreads(), before);
	lx_rpc_destroy(cl);
	close(lfd);
}

/*
 * lx_rpc_loop_run() waits before its first service: the call's
 * deadlines (200 + 400 + 800 ms) still end those waits, the run's own
 * deadline (10 s) does not decide.
 */
static void test_silent_run_until(void **state)
{
	struct lx_rpc_clnt *cl;
	uint16_t port;
	uint64_t t0, took;
	struct rec r;
	int lfd, n;

	(void)state;
	lfd = silent_listen(&port);
	cl = silent_client(port, 200, 2);
	rec_init(&r, 1);
	t0 = now_ns();
	assert_int_equal(null_async(cl, &r), 0);
	n = lx_rpc_loop_run(cl, &r.call, 0, t0 + 10000000000ull);
	took = now_ns() - t0;
	assert_int_equal(n, 1);
	assert_int_equal(r.dones, 1);
	assert_int_equal(r.status, -ETIMEDOUT);
	assert_false(r.wrong_thread);
	assert_true(took >= 1300000000ull);
	assert_true(took < 3000000000ull);
	lx_rpc_destroy(cl);
	close(lfd);
}

/*
 * A synchronous call alone in flight receives its reply on the socket
 * itself (loop_wait()'s direct wait): its retransmissions and its
 * timeout still come on time, from the timers a service runs between
 * those waits, with no thread of ours.
 */
static void test_silent_sync(void **state)
{
	unsigned int before = nthreads();
	struct lx_rpc_stats st;
	struct lx_rpc_clnt *cl;
	uint16_t port;
	uint64_t t0, took;
	int lfd;

	(void)state;
	lfd = silent_listen(&port);
	cl = silent_client(port, 200, 2);
	t0 = now_ns();
	assert_int_equal(lx_rpc_null(cl), -ETIMEDOUT);
	took = now_ns() - t0;
	assert_true(took >= 1300000000ull);
	assert_true(took < 3000000000ull);
	lx_rpc_stats(cl, &st);
	assert_int_equal(st.xprt.retransmits, 2);
	assert_int_equal(nthreads(), before);
	lx_rpc_destroy(cl);
	close(lfd);
}

struct canceller {
	struct rec *r;
	unsigned int n;
	int rc[64];
};

static void *cancel_main(void *arg)
{
	struct canceller *k = arg;
	unsigned int i;

	for (i = 0; i < k->n; i++)
		k->rc[i] = lx_call_cancel(&k->r[i].call);
	return NULL;
}

/* Cancels from another thread are queued: done() runs on the owner */
static void test_cancel_other_thread(void **state)
{
	struct canceller k = {.n = 8};
	struct lx_rpc_clnt *cl;
	struct rec r[8];
	pthread_t th;
	uint16_t port;
	unsigned int i;
	int lfd;

	(void)state;
	lfd = silent_listen(&port);
	cl = silent_client(port, 60000, 0);
	rec_init(r, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(null_async(cl, &r[i]), 0);
	lx_rpc_loop_service(cl, 0); /* sent */
	k.r = r;
	assert_int_equal(pthread_create(&th, NULL, cancel_main, &k), 0);
	pthread_join(th, NULL);
	/* queued, not decided: nothing ran on the other thread */
	for (i = 0; i < 8; i++) {
		assert_int_equal(k.rc[i], 0);
		assert_int_equal(r[i].dones, 0);
	}
	loop_until(lx_rpc_loop_fd(cl), lx_rpc_loop_events(cl), rpc_service, cl,
		   r, 8, 5000);
	for (i = 0; i < 8; i++) {
		assert_int_equal(r[i].dones, 1);
		assert_int_equal(r[i].status, -ECANCELED);
		assert_false(r[i].wrong_thread);
	}
	lx_rpc_destroy(cl);
	close(lfd);
}

struct racer {
	struct rec *r;
	unsigned int n;
	atomic_bool stop;
};

static void *race_main(void *arg)
{
	struct racer *k = arg;
	unsigned int i = 0;

	while (!atomic_load(&k->stop)) {
		lx_call_cancel(&k->r[i % k->n].call);
		i++;
	}
	return NULL;
}

/* Cancels racing replies while the owner services: every call ends once,
 * on the owner, with its reply or -ECANCELED */
static void test_cancel_race(void **state)
{
	struct lx_nfs3_getattr_res res[16];
	struct lx_nfs3_fh fh = file_fh();
	struct racer k = {.n = 16};
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	unsigned int round, i, ok = 0, cancelled = 0;
	struct rec r[16];
	pthread_t th;
	char msg[256];

	(void)state;
	nfs_opts(&o, msg, sizeof(msg));
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	rec_init(r, 16);
	k.r = r;
	assert_int_equal(pthread_create(&th, NULL, race_main, &k), 0);
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 16; i++) {
			r[i].dones = 0;
			r[i].status = 1;
			assert_int_equal(lx_nfs3_getattr_async(c, &r[i].call,
							       &fh, &res[i]),
					 0);
		}
		loop_until(lx_nfs3_loop_fd(c), lx_nfs3_loop_events(c),
			   nfs3_service, c, r, 16, 5000);
		for (i = 0; i < 16; i++) {
			assert_int_equal(r[i].dones, 1);
			assert_false(r[i].wrong_thread);
			assert_true(r[i].status == 0 ||
				    r[i].status == -ECANCELED);
			ok += r[i].status == 0;
			cancelled += r[i].status == -ECANCELED;
		}
	}
	atomic_store(&k.stop, true);
	pthread_join(th, NULL);
	assert_int_equal(ok + cancelled, 50 * 16);
	/* nothing completes twice after the rounds either */
	lx_nfs3_loop_service(c, 0);
	assert_int_equal(rec_dones(r, 16), 16);
	lx_nfs3_destroy(c);
}

/* A lost connection is replaced from the service, and the call resent */
static void test_reconnect(void **state)
{
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	struct lx_rpc_stats st;
	unsigned int before = nthreads();
	char msg[256];
	uint64_t t0;

	(void)state;
	nfs_opts(&o, msg, sizeof(msg));
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	assert_int_equal(lx_nfs3_null(c), 0);
	lx_xprt_disconnect(lx_rpc_xprt(lx_nfs3_rpc(c), 0));
	t0 = now_ns();
	assert_int_equal(lx_nfs3_null(c), 0);
	/* the new connection is watched while the call waits: its reply
	 * wakes the wait, not the call's 2 s timer */
	assert_true(now_ns() - t0 < 1000000000ull);
	lx_rpc_stats(lx_nfs3_rpc(c), &st);
	assert_int_equal(st.xprt.connects, 2);
	assert_int_equal(nthreads(), before);
	lx_nfs3_destroy(c);
}

/* A server gone for good: reconnection attempts back off on the loop's
 * timer (refused at once, 100, 200, 400 ms apart...) until
 * reconnect_give_up_ms fails the call, exactly once, with no thread */
static void test_reconnect_backoff(void **state)
{
	struct lx_rpc_opts o = {
		.host = "127.0.0.1",
		.prog = LX_NFS3_PROGRAM,
		.vers = 3,
		.timeo_ms = 60000,
		.hard = true, /* not the early-loss rule: the give-up */
		.reconnect_give_up_ms = 700,
		.mode = LX_XPRT_MODE_CALLER,
	};
	struct lx_rpc_clnt *cl = NULL;
	struct lx_rpc_stats st;
	unsigned int wakes;
	uint64_t t0;
	struct rec r;
	unsigned int before = nthreads();
	int lfd;

	(void)state;
	lfd = silent_listen(&o.port);
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	close(lfd); /* connections are refused from now on */
	rec_init(&r, 1);
	t0 = now_ns();
	lx_xprt_disconnect(lx_rpc_xprt(cl, 0));
	assert_int_equal(null_async(cl, &r), 0);
	wakes = loop_until(lx_rpc_loop_fd(cl), lx_rpc_loop_events(cl),
			   rpc_service, cl, &r, 1, 10000);
	assert_int_equal(r.dones, 1);
	assert_int_equal(r.status, -ENOTCONN);
	assert_false(r.wrong_thread);
	assert_true(now_ns() - t0 >= 700000000ull);
	assert_true(now_ns() - t0 < 5000000000ull);
	assert_true(wakes >= 3); /* each attempt at its backoff's end */
	lx_rpc_stats(cl, &st);
	assert_int_equal(st.xprt.connects, 1);
	assert_int_equal(nthreads(), before);
	lx_rpc_destroy(cl);
}

/* NFS3ERR_JUKEBOX: the call goes out again after the delay, which the
 * loop descriptor's timer keeps (no retry thread), and completes once */
static void test_jukebox(void **state)
{
	struct lx_nfs3_getattr_res res;
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_stats st;
	struct lx_nfs3_opts o;
	struct lx_nfs3_clnt *c = NULL;
	unsigned int wakes;
	uint64_t t0;
	struct rec r;
	unsigned int before = nthreads();
	char msg[256];

	(void)state;
	nfs_opts(&o, msg, sizeof(msg));
	o.jukebox_delay_ms = 150;
	assert_int_equal(lx_nfs3_create(&c, &o), 0);
	srv_jukebox(2);
	rec_init(&r, 1);
	t0 = now_ns();
	assert_int_equal(lx_nfs3_getattr_async(c, &r.call, &fh, &res), 0);
	wakes = loop_until(lx_nfs3_loop_fd(c), lx_nfs3_loop_events(c),
			   nfs3_service, c, &r, 1, 5000);
	assert_int_equal(r.dones, 1);
	assert_int_equal(r.status, 0);
	assert_false(r.wrong_thread);
	assert_true(now_ns() - t0 >= 300000000ull); /* two delays */
	assert_true(wakes >= 4); /* two replies, two timers */
	lx_nfs3_stats(c, &st);	 /* sent again under new XIDs */
	assert_int_equal(st.rpc.xprt.resubmits, 2);
	/* a synchronous call waits its delay on the loop too */
	srv_jukebox(1);
	assert_int_equal(lx_nfs3_getattr(c, &fh, &res), 0);
	lx_nfs3_stats(c, &st);
	assert_int_equal(st.rpc.xprt.resubmits, 3);
	assert_int_equal(nthreads(), before);
	lx_nfs3_destroy(c);
}

/* What the mode refuses, and a threaded client has no loop */
static void test_refusals(void **state)
{
	struct lx_rpc_opts o = {
		.host = "127.0.0.1",
		.port = nfs_port,
		.prog = LX_NFS3_PROGRAM,
		.vers = 3,
	};
	struct lx_rpc_clnt *cl = NULL;

	(void)state;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	assert_int_equal(lx_rpc_loop_fd(cl), -EINVAL);
	assert_int_equal(lx_rpc_loop_events(cl), 0);
	assert_int_equal(lx_rpc_loop_service(cl, 0), -EINVAL);
	assert_int_equal(lx_rpc_loop_run(cl, NULL, 1, 0), -EINVAL);
	lx_rpc_destroy(cl);
	o.mode = LX_XPRT_MODE_CALLER;
	o.zerocopy = true;
	assert_int_equal(lx_rpc_create(&cl, &o), -EOPNOTSUPP);
	o.zerocopy = false;
	o.mode = (enum lx_xprt_mode)7;
	assert_int_equal(lx_rpc_create(&cl, &o), -EINVAL);
}

/* The front-ends say the mode refused the options, not the server */
static void test_refusals_say_why(void **state)
{
	struct lx_p9_opts po = {
		.host = "127.0.0.1",
		.port = p9_port,
		.aname = "/fake",
		.mode = LX_XPRT_MODE_CALLER,
		.zerocopy = true,
	};
	struct lx_nfs3_opts no;
	struct lx_nfs3_clnt *nc = NULL;
	struct lx_p9_clnt *pc = NULL;
	char msg[256] = "", pmsg[256] = "";

	(void)state;
	nfs_opts(&no, msg, sizeof(msg));
	no.zerocopy = true;
	assert_int_equal(lx_nfs3_create(&nc, &no), -EOPNOTSUPP);
	assert_non_null(strstr(msg, "caller-driven mode runs over TCP only"));
	assert_null(strstr(msg, "PROC_UNAVAIL"));
	po.errbuf = pmsg;
	po.errbuf_len = sizeof(pmsg);
	assert_int_equal(lx_p9_create(&pc, &po), -EOPNOTSUPP);
	assert_non_null(strstr(pmsg, "caller-driven mode runs over TCP only"));
}

/* The fake servers, in a child: their threads are not the test's.  It
 * serves until the test process ends (its command pipe closes). */
static pid_t serve(void)
{
	int up[2], ctl[2];
	uint16_t ports[2];
	uint8_t cmd;
	pid_t pid;

	if (pipe(up) || pipe(ctl))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(ctl[1]);
		if (setup(NULL) || p9f_start(&p9srv))
			_exit(1);
		ports[0] = fakesrv_port(fs);
		ports[1] = fakesrv_port(p9srv.srv);
		if (write(up[1], ports, sizeof(ports)) != sizeof(ports))
			_exit(1);
		/* (SIGKILL at the end: the servers' threads are never
		 * joined, and a sanitizer would report them) */
		while (read(ctl[0], &cmd, 1) == 1) {
			pthread_mutex_lock(&S->lock);
			S->jukebox = cmd;
			pthread_mutex_unlock(&S->lock);
			if (write(up[1], &cmd, 1) != 1)
				_exit(1);
		}
		kill(getpid(), SIGKILL);
	}
	close(up[1]);
	close(ctl[0]);
	if (pid < 0 || read(up[0], ports, sizeof(ports)) != sizeof(ports))
		return -1;
	nfs_port = ports[0];
	p9_port = ports[1];
	ctl_fd = ctl[1];
	ack_fd = up[0];
	return pid;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nfs3_caller),
		cmocka_unit_test(test_nfs3_nconnect),
		cmocka_unit_test(test_p9_caller),
		cmocka_unit_test(test_p9_conn_lost),
		cmocka_unit_test(test_silent_timeout),
		cmocka_unit_test(test_silent_run_until),
		cmocka_unit_test(test_silent_sync),
		cmocka_unit_test(test_cancel_other_thread),
		cmocka_unit_test(test_cancel_race),
		cmocka_unit_test(test_reconnect),
		cmocka_unit_test(test_reconnect_backoff),
		cmocka_unit_test(test_jukebox),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refusals_say_why),
	};

	if (serve() < 0)
		return 1;
	/* the test process has no thread but this one (a sanitizer may add
	 * one of its own later: the tests compare with their start) */
	if (nthreads() != 1)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
