// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_call_cancel() racing completion, for RPC and 9P calls, against the
 * in-process servers (fakesrv, test_p9_fake.h), with few request slots so
 * that every slot is reused thousands of times while the cancels run.
 *
 *   - Strangers: calls nobody cancels keep the slots busy, restarted from
 *     their own done() callbacks.  Victims: call objects whose calls have
 *     completed before, their slots since reused by strangers.  Threads
 *     cancel the victims over and over: every cancel must say -EALREADY
 *     and no stranger may ever end -ECANCELED (9P: and no Tflush may go
 *     out) - a cancel of a finished call never reaches the slot's new
 *     call.
 *   - Targets: calls restarted from their done() callbacks while threads
 *     cancel them at random: each start completes exactly once, with 0 or
 *     -ECANCELED, cancel says 0 or -EALREADY, and every -ECANCELED has a
 *     successful cancel behind it (RPC: exactly one each).
 *   - Direct restarts (RPC): the same, with a cancelled target restarted
 *     from its own done() at once.  A cancelled call that was sent keeps
 *     its credit and slot until the server answers it (an orphan, see
 *     lx_xprt_req_fail()), so the requests the server has been sent and
 *     has not answered never exceed the window and the strangers behind
 *     them stay live; without that, the loop queues thousands of calls in
 *     the socket ahead of theirs.
 *
 * Run in the TSan build too (make BUILD=tsan unit): the call object's
 * private words are written by the starter and read by cancellers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/call.h>
#include <libxprt/p9.h>
#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"
#include "test_p9_fake.h"

#define TPROG	  0x20000078u
#define TVERS	  1u
#define NSTRANGER 6u
#define NVICTIM	  64u
#define NTARGET	  6u
#define NCANCEL	  2u
#define RUN_MS	  1500u
#define SLOTS	  16u /* request slots: one per call object, reused all the time */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------ harness */

enum role { STRANGER, VICTIM, TARGET };

struct obj;

/* A protocol under test: start one call on @o. */
struct proto {
	int (*start)(struct obj *o, unsigned int flags);
};

struct run;

struct obj {
	struct lx_call call;
	struct run *run;
	enum role role;
	atomic_bool inflight; /* set at start, cleared in done() */
	atomic_uint starts, dones, ok, canceled, other;
	uint8_t buf[512];
};

struct run {
	const struct proto *p;
	atomic_bool stop;
	atomic_uint active; /* calls in flight */
	atomic_uint twice;  /* done() of a call not in flight */
	atomic_uint cancel_ok, cancel_already;
	atomic_uint victim_not_already;
	atomic_uint refused; /* restarts refused (-EBUSY): restarted below */
	bool direct;	     /* cancelled targets restart from their done() */
	struct obj s[NSTRANGER], v[NVICTIM], t[NTARGET];
	pthread_mutex_t lock;
	struct obj *redo[NSTRANGER + NTARGET];
	unsigned int nredo;
};

static void obj_start(struct obj *o, unsigned int flags);
static struct fakesrv *rpc_srv;
static struct lx_rpc_clnt *rpc_cl;
static struct lx_p9_clnt *p9c;

static void obj_done(struct lx_call *call, int status, void *arg)
{
	struct obj *o = arg;
	struct run *r = o->run;

	if (!atomic_exchange(&o->inflight, false))
		atomic_fetch_add(&r->twice, 1);
	if (!status)
		atomic_fetch_add(&o->ok, 1);
	else if (status == -ECANCELED)
		atomic_fetch_add(&o->canceled, 1);
	else
		atomic_fetch_add(&o->other, 1);
	atomic_fetch_add(&o->dones, 1); /* last: a waiter reads the status */
	(void)call;
	if (o->role == TARGET && status == -ECANCELED && !r->direct &&
	    !atomic_load(&r->stop)) {
		/* restarted by the driver a millisecond later, not here
		 * (r->direct: here, test_rpc_cancel_restart_from_done).
		 * A call cancelled on the wire is still answered by the
		 * server; before orphans (xprt.c) its credit returned at
		 * done(), and a restart loop with no pause queued tens of
		 * thousands of calls ahead of the strangers' */
		pthread_mutex_lock(&r->lock);
		r->redo[r->nredo++] = o;
		pthread_mutex_unlock(&r->lock);
	} else if (o->role != VICTIM && !atomic_load(&r->stop)) {
		obj_start(o, LX_CALL_NOWAIT);
	}
	atomic_fetch_sub(&r->active, 1);
}

static void obj_start(struct obj *o, unsigned int flags)
{
	struct run *r = o->run;
	int err;

	/* the fields, not the whole object: a concurrent cancel reads its
	 * private words */
	o->call.done = obj_done;
	o->call.arg = o;
	o->call.flags = flags;
	atomic_store(&o->inflight, true);
	atomic_fetch_add(&r->active, 1);
	atomic_fetch_add(&o->starts, 1);
	err = r->p->start(o, flags);
	if (!err)
		return;
	atomic_store(&o->inflight, false);
	atomic_fetch_sub(&o->starts, 1);
	atomic_fetch_sub(&r->active, 1);
	assert_int_equal(err, -EBUSY); /* only NOWAIT may be refused */
	atomic_fetch_add(&r->refused, 1);
	pthread_mutex_lock(&r->lock);
	r->redo[r->nredo++] = o;
	pthread_mutex_unlock(&r->lock);
}

static void *canceller(void *arg)
{
	struct run *r = arg;
	unsigned int seed = (unsigned int)(uintptr_t)&seed;

	while (!atomic_load(&r->stop)) {
		unsigned int k = (unsigned int)rand_r(&seed);
		struct obj *o;
		int ret;

		if (k & 1) {
			o = &r->v[(k >> 1) % NVICTIM];
			ret = lx_call_cancel(&o->call);
			if (ret != -EALREADY)
				atomic_fetch_add(&r->victim_not_already, 1);
			continue;
		}
		o = &r->t[(k >> 1) % NTARGET];
		ret = lx_call_cancel(&o->call);
		if (ret == 0) {
			atomic_fetch_add(&r->cancel_ok, 1);
		} else {
			if (ret == -EALREADY)
				atomic_fetch_add(&r->cancel_already, 1);
			else if (ret != -EBUSY) /* 9P: four flushes pending */
				atomic_fetch_add(&r->victim_not_already, 1);
		}
		if (!(k & 0x30))
			sched_yield();
	}
	return NULL;
}

/*
 * Drive the run for RUN_MS, and on a loaded machine on until both races
 * have happened (a cancel that decided a call, one that came late) or
 * ten times that; then drain.
 */
static void run_race(struct run *r)
{
	pthread_t th[NCANCEL];
	unsigned int i, n;
	uint64_t end;

	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < NVICTIM; i++) {
		r->v[i].run = r;
		r->v[i].role = VICTIM;
		obj_start(&r->v[i], 0);
		/* dones, not inflight: done() clears inflight before it
		 * counts the status, and dones after */
		while (!atomic_load(&r->v[i].dones))
			usleep(100);
		assert_int_equal(atomic_load(&r->v[i].ok), 1);
	}
	for (i = 0; i < NSTRANGER; i++) {
		r->s[i].run = r;
		r->s[i].role = STRANGER;
		obj_start(&r->s[i], 0);
	}
	for (i = 0; i < NTARGET; i++) {
		r->t[i].run = r;
		r->t[i].role = TARGET;
		obj_start(&r->t[i], 0);
	}
	for (i = 0; i < NCANCEL; i++)
		assert_int_equal(pthread_create(&th[i], NULL, canceller, r), 0);
	end = now_ms() + RUN_MS;
	while (now_ms() < end || (now_ms() < end + 9 * RUN_MS &&
				  (!atomic_load(&r->cancel_ok) ||
				   !atomic_load(&r->cancel_already)))) {
		struct obj *redo[NSTRANGER + NTARGET];

		pthread_mutex_lock(&r->lock);
		n = r->nredo;
		memcpy(redo, r->redo, n * sizeof(redo[0]));
		r->nredo = 0;
		pthread_mutex_unlock(&r->lock);
		for (i = 0; i < n; i++)
			obj_start(redo[i], 0); /* may wait for a slot */
		usleep(1000);
	}
	atomic_store(&r->stop, true);
	for (i = 0; i < NCANCEL; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 5000 && atomic_load(&r->active); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&r->active), 0);
	pthread_mutex_destroy(&r->lock);
}

static void check_race(struct run *r, bool need_cancelled)
{
	unsigned int i, starts = 0, dones = 0, canceled = 0;

	assert_int_equal(atomic_load(&r->twice), 0);
	assert_int_equal(atomic_load(&r->victim_not_already), 0);
	for (i = 0; i < NSTRANGER; i++) {
		/* nobody cancelled a stranger: none ends -ECANCELED */
		assert_int_equal(atomic_load(&r->s[i].canceled), 0);
		assert_int_equal(atomic_load(&r->s[i].other), 0);
		assert_int_equal(atomic_load(&r->s[i].starts),
				 atomic_load(&r->s[i].dones));
		assert_true(atomic_load(&r->s[i].dones) > 10);
	}
	for (i = 0; i < NTARGET; i++) {
		starts += atomic_load(&r->t[i].starts);
		dones += atomic_load(&r->t[i].dones);
		canceled += atomic_load(&r->t[i].canceled);
		assert_int_equal(atomic_load(&r->t[i].other), 0);
	}
	assert_int_equal(starts, dones);
	/* each cancel that said 0 decided at most one call */
	assert_true(canceled <= atomic_load(&r->cancel_ok));
	/* the races happened: cancels decided calls, others came late (9P:
	 * the server answers a Tread before the Tflush behind it, so a
	 * cancel rarely wins there: flushes are what is checked) */
	if (need_cancelled)
		assert_true(canceled > 0);
	assert_true(atomic_load(&r->cancel_ok) > 0);
	assert_true(atomic_load(&r->cancel_already) > 0);
	print_message("    %u target calls, %u cancelled (%u cancels said 0, "
		      "%u -EALREADY), %u refused restarts\n",
		      starts, canceled, atomic_load(&r->cancel_ok),
		      atomic_load(&r->cancel_already),
		      atomic_load(&r->refused));
}

/* ---------------------------------------------------------------- RPC */

/* replies the fake server has sent (its callback runs before it sends) */
static atomic_uint rpc_answered;

static enum fakesrv_action rpc_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	(void)arg;
	(void)len;
	/* now and then a little late, so that cancels find calls in flight */
	if (nth % 7 == 0)
		usleep(200);
	*outlen = fs_rpc_accepted(out, fs_get_be32(msg), 0);
	atomic_fetch_add(&rpc_answered, 1);
	return FAKESRV_REPLY;
}

/*
 * Requests sent and not answered yet, sampled while a run goes on: the
 * client's sends, read first, minus the server's replies, read after
 * (each was counted before it went out), can only under-count.  With no
 * retransmission (timeo far beyond the run) every such request holds a
 * credit or was sent after a credit came back with a reply the server
 * had counted already, so the figure is bounded by the window.
 */
struct sampler {
	struct lx_xprt *x;
	atomic_bool stop;
	long max;
};

static void *sample_unanswered(void *arg)
{
	struct sampler *sm = arg;
	struct lx_xprt_stats st;

	while (!atomic_load(&sm->stop)) {
		long d;

		lx_xprt_stats(sm->x, &st);
		d = (long)st.sends - (long)atomic_load(&rpc_answered);
		if (d > sm->max)
			sm->max = d;
		usleep(200);
	}
	return NULL;
}

static int rpc_start(struct obj *o, unsigned int flags)
{
	struct lx_rpc_call_args a = {.proc = 0};

	(void)flags;
	return lx_rpc_call_async(rpc_cl, &o->call, &a);
}

static const struct proto rpc_proto = {.start = rpc_start};

static void rpc_cancel_race(bool direct)
{
	struct lx_rpc_opts o = {0};
	struct run *r = calloc(1, sizeof(*r));
	struct sampler sm = {0};
	struct lx_xprt_stats st;
	pthread_t sth;

	atomic_store(&rpc_answered, 0);
	assert_int_equal(fakesrv_start(&rpc_srv, true, rpc_fn, NULL), 0);
	o.host = "127.0.0.1";
	o.port = fakesrv_port(rpc_srv);
	o.prog = TPROG;
	o.vers = TVERS;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	o.max_reqs = SLOTS;
	assert_int_equal(lx_rpc_create(&rpc_cl, &o), 0);
	r->p = &rpc_proto;
	r->direct = direct;
	sm.x = lx_rpc_xprt(rpc_cl, 0);
	assert_int_equal(pthread_create(&sth, NULL, sample_unanswered, &sm), 0);
	run_race(r);
	atomic_store(&sm.stop, true);
	pthread_join(sth, NULL);
	/* the strangers stayed live (check_race), and the server never
	 * had more calls to answer than the window */
	check_race(r, true);
	print_message("    at most %ld requests sent and unanswered (window "
		      "%u)\n",
		      sm.max, SLOTS);
	assert_true(sm.max <= (long)SLOTS);
	/* the transport counted exactly the cancels that decided a call */
	lx_xprt_stats(lx_rpc_xprt(rpc_cl, 0), &st);
	{
		unsigned int i, c = 0;

		for (i = 0; i < NTARGET; i++)
			c += atomic_load(&r->t[i].canceled);
		assert_int_equal(st.cancels, c);
		/* a cancel that said 0 and found no reply yet decided it;
		 * only one racing a submit may lose to a quick reply */
		assert_true(c <= atomic_load(&r->cancel_ok));
	}
	/* late replies to cancelled calls were expected ones, not errors
	 * (but for a send racing its cancel: see lx_xprt_req_fail()) */
	print_message("    %llu orphans, %llu late replies to them, %llu "
		      "unknown keys\n",
		      (unsigned long long)st.orphans,
		      (unsigned long long)st.orphan_replies,
		      (unsigned long long)st.bad_keys);
	assert_true(st.orphan_replies > 0);
	assert_true(st.bad_keys * 100 <= st.orphan_replies);
	lx_rpc_destroy(rpc_cl);
	fakesrv_stop(rpc_srv);
	free(r);
}

static void test_rpc_cancel_races_completion(void **state)
{
	(void)state;
	rpc_cancel_race(false);
}

/* Cancelled targets restart from their own done(), with no pause. */
static void test_rpc_cancel_restart_from_done(void **state)
{
	(void)state;
	rpc_cancel_race(true);
}

/* A call not started yet, or never: cancel says -EALREADY. */
static void test_cancel_of_a_fresh_object(void **state)
{
	struct lx_call call = {0};

	(void)state;
	assert_int_equal(lx_call_cancel(&call), -EALREADY);
	assert_int_equal(lx_call_cancel(NULL), -EINVAL);
}

/* ----------------------------------------------------------------- 9P */

static struct p9f srv;
static uint32_t p9fid;

static int p9_start(struct obj *o, unsigned int flags)
{
	(void)flags;
	return lx_p9_read_async(p9c, &o->call, p9fid, 0, sizeof(o->buf),
				o->buf);
}

static const struct proto p9_proto = {.start = p9_start};

static void test_p9_cancel_races_completion(void **state)
{
	static char err[256];
	struct lx_p9_opts o = {
		.host = "127.0.0.1",
		.aname = "/fake",
		.timeout_ms = 5000,
		.max_reqs = 6 * SLOTS, /* room for the Tflushes */
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	struct run *r = calloc(1, sizeof(*r));
	struct lx_p9_stats st0, st;
	unsigned int i;

	(void)state;
	assert_int_equal(p9f_start(&srv), 0);
	pthread_mutex_lock(&srv.lock);
	p9f_reset(&srv);
	pthread_mutex_unlock(&srv.lock);
	o.port = fakesrv_port(srv.srv);
	if (lx_p9_create(&p9c, &o))
		fail_msg("lx_p9_create: %s", err);
	assert_int_equal(
		lx_p9_open_path(p9c, "file", O_RDONLY, 0, &p9fid, NULL), 0);
	r->p = &p9_proto;
	/* victims first, then measure: no victim cancel may send a Tflush */
	for (i = 0; i < NVICTIM; i++) {
		r->v[i].run = r;
		r->v[i].role = VICTIM;
	}
	lx_p9_stats(p9c, &st0);
	run_race(r);
	check_race(r, false);
	lx_p9_stats(p9c, &st);
	/* every Tflush sent was for a target: at most one per cancel that
	 * said 0 */
	assert_true(st.flushes - st0.flushes <= atomic_load(&r->cancel_ok));
	assert_int_equal(lx_p9_clunk(p9c, p9fid), 0);
	lx_p9_destroy(p9c);
	p9f_stop(&srv);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cancel_of_a_fresh_object),
		cmocka_unit_test(test_rpc_cancel_races_completion),
		cmocka_unit_test(test_rpc_cancel_restart_from_done),
		cmocka_unit_test(test_p9_cancel_races_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
