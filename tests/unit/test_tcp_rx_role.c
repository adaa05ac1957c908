// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The TCP transport's receiver role under a mix of synchronous and
 * asynchronous calls on one client: the pattern of a tool that makes a
 * few blocking calls, then a batch of async ones, and waits for them
 * (nfs3-bench's set-up, test_nfs3_alloc's rounds).
 *
 * A synchronous caller reads its own reply, taking the socket out of the
 * receive thread's epoll set; when it lets go, the socket must be armed
 * again for whoever still waits.  An asynchronous submit that finds the
 * role held leaves the arming to the holder (arm_wanted, role_release()):
 * the hand-off.  A reply left in the socket with nobody reading it shows
 * up as a call that only completes when its timer fires: with a 300 ms
 * timeout and no retransmission, as -ETIMEDOUT here, against a server
 * that answers at once.
 *
 * One thread alone rarely meets the role held (the receive thread holds
 * it only for moments: in three runs of 2,000 to 3,600 rounds, none did), so
 * each round here has a second thread make one synchronous call while
 * the first submits its batch, at a delay that sweeps the call's length;
 * nobody else calls until the batch is in, so a hand-off the holder
 * missed strands the batch.  Who arms the socket is seen by wrapping
 * epoll_ctl(): a submit that found the socket disarmed and did not arm
 * it itself found the role held, and the run goes on until MIN_HANDOFFS
 * such submits happened (at least RUN_NS, at most MAX_NS): a run without
 * them tested nothing and fails.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"

#define TPROG	     0x20000078u
#define TVERS	     1u
#define SYNC_CALLS   6
#define ASYNC_CALLS  8
#define RUN_NS	     (2ull * 1000000000ull)
#define MAX_NS	     (30ull * 1000000000ull)
#define MIN_HANDOFFS 200

static struct fakesrv *fs;

/*
 * The socket's arming, as the library asks epoll for it: every
 * epoll_ctl() of this program, the library's included (it is linked in
 * statically), comes here first; the real one (a sanitizer's interceptor
 * in front of glibc's) is the next definition.  armed mirrors the
 * client's socket (the only descriptor ever modified); arms_by_submitter
 * counts the arms of the thread submitting the batches.
 */
static pid_t submitter;
static atomic_bool armed;
static atomic_ulong arms_by_submitter;

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev);
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	static int (*real)(int, int, int, struct epoll_event *);
	int r;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "epoll_ctl");
	r = real(epfd, op, fd, ev);
	if (!r && op == EPOLL_CTL_MOD) {
		atomic_store(&armed, ev->events & EPOLLIN);
		if ((ev->events & EPOLLIN) && gettid() == submitter)
			atomic_fetch_add(&arms_by_submitter, 1);
	}
	return r;
}

/* every call: MSG_ACCEPTED, SUCCESS, no results */
static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	(void)arg;
	(void)len;
	(void)nth;
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	return FAKESRV_REPLY;
}

struct batch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int left, failed;
};

static void async_done(struct lx_call *call, int status, void *arg)
{
	struct batch *b = arg;

	(void)call;
	pthread_mutex_lock(&b->lock);
	b->failed += status != 0;
	if (!--b->left)
		pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* both threads' synchronous calls and their outcomes */
struct role_run {
	struct lx_rpc_clnt *cl;
	pthread_barrier_t go, done;
	atomic_bool stop;
	atomic_int timeouts, other;
};

static void sync_calls(struct role_run *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct lx_rpc_call_args a = {.proc = 0};
		int err = lx_rpc_call_sync(r->cl, &a, NULL);

		atomic_fetch_add(&r->timeouts, err == -ETIMEDOUT);
		atomic_fetch_add(&r->other, err && err != -ETIMEDOUT);
	}
}

/* the second thread: one synchronous call per round, alongside the batch */
static void *holder(void *arg)
{
	struct role_run *r = arg;

	for (;;) {
		pthread_barrier_wait(&r->go);
		if (atomic_load(&r->stop))
			return NULL;
		sync_calls(r, 1);
		pthread_barrier_wait(&r->done);
	}
}

/* about @ns of busy waiting (no system call: the holder keeps the CPU
 * it has) */
static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void test_sync_then_async_rounds_never_strand_a_reply(void **state)
{
	struct lx_rpc_opts o = {0};
	struct batch b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0, 0};
	static struct lx_call calls[ASYNC_CALLS];
	struct role_run r = {0};
	uint64_t t0, now, rounds = 0, handoffs = 0;
	pthread_t th;
	int i;

	(void)state;
	submitter = gettid();
	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.prog = TPROG;
	o.vers = TVERS;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	o.timeo_ms = 300;
	o.retrans = LX_RPC_NO_RETRANS;
	assert_int_equal(lx_rpc_create(&r.cl, &o), 0);
	assert_int_equal(pthread_barrier_init(&r.go, NULL, 2), 0);
	assert_int_equal(pthread_barrier_init(&r.done, NULL, 2), 0);
	assert_int_equal(pthread_create(&th, NULL, holder, &r), 0);
	t0 = now_ns();
	do {
		/* the pattern alone: sync calls, then a batch */
		sync_calls(&r, SYNC_CALLS);
		pthread_barrier_wait(&r.go);
		/* 0 to 60 us into the holder's call */
		spin_ns(rounds * 7919 % 60000);
		b.left = ASYNC_CALLS;
		for (i = 0; i < ASYNC_CALLS; i++) {
			struct lx_rpc_call_args a = {.proc = 0};
			bool was_armed = atomic_load(&armed);
			unsigned long mine = atomic_load(&arms_by_submitter);

			calls[i] = (struct lx_call){.done = async_done,
						    .arg = &b,
						    .owner = (uint64_t)i + 1};
			assert_int_equal(lx_rpc_call_async(r.cl, &calls[i], &a),
					 0);
			/* disarmed, and not armed by this submit: the
			 * role was held, the holder must arm */
			handoffs += !was_armed &&
				    atomic_load(&arms_by_submitter) == mine;
		}
		pthread_mutex_lock(&b.lock);
		while (b.left)
			pthread_cond_wait(&b.cond, &b.lock);
		pthread_mutex_unlock(&b.lock);
		pthread_barrier_wait(&r.done);
		rounds++;
		now = now_ns();
	} while (!atomic_load(&r.timeouts) && !atomic_load(&r.other) &&
		 !b.failed && now - t0 < MAX_NS &&
		 (now - t0 < RUN_NS || handoffs < MIN_HANDOFFS));
	atomic_store(&r.stop, true);
	pthread_barrier_wait(&r.go);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&r.go);
	pthread_barrier_destroy(&r.done);
	lx_rpc_destroy(r.cl);
	print_message("%llu rounds of %d sync + %d async calls (and one sync "
		      "call alongside) in %.1f s: %llu submits found the "
		      "socket disarmed and the receiver role held\n",
		      (unsigned long long)rounds, SYNC_CALLS, ASYNC_CALLS,
		      (double)(now - t0) / 1e9, (unsigned long long)handoffs);
	/* a stranded reply completes only by its 300 ms timer */
	assert_int_equal(atomic_load(&r.timeouts), 0);
	assert_int_equal(atomic_load(&r.other), 0);
	assert_int_equal(b.failed, 0);
	/* the hand-off happened, often: else this tested nothing */
	assert_true(handoffs >= MIN_HANDOFFS);
}

static int setup(void **state)
{
	(void)state;
	return fakesrv_start(&fs, true, srv_fn, NULL);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_sync_then_async_rounds_never_strand_a_reply, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
