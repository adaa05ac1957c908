// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tflush on the transport core, against the in-process 9P server: a call
 * that times out or is cancelled is flushed after it (never before it on
 * the wire), its tag stays reserved until the Rflush, a reply that beats
 * the Rflush is the call's outcome (a walk's fid then exists), an Rflush
 * to a later Tflush answers the earlier ones, a missing Rflush completes
 * the call at the flush deadline but keeps the tags, an error answer to a
 * Tflush ends the session, a walk whose fate is unknown loses its fid,
 * no free slot for the Tflush ends the session, and cancels racing
 * replies leave no slot behind.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/p9.h>

#include "test_p9_fake.h"
#include "xprt/core/call_int.h" /* the tag a call went out under */

static struct p9f srv;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void setup_srv(void)
{
	pthread_mutex_lock(&srv.lock);
	p9f_reset(&srv);
	pthread_mutex_unlock(&srv.lock);
}

static void srv_set(uint8_t hold, enum p9f_flush flush)
{
	pthread_mutex_lock(&srv.lock);
	srv.hold_type = hold;
	srv.flush = flush;
	pthread_mutex_unlock(&srv.lock);
}

/*
 * The timeout of tests in which the server answers the Tflush at once and
 * that answer must beat the flush's grace (the call's timeout again):
 * 100 ms was lost to a loaded two-core machine under AddressSanitizer.
 */
#define GRACE_MS 500

static struct lx_p9_clnt *conn(unsigned int timeout_ms, unsigned int max_reqs)
{
	static char err[256];
	struct lx_p9_opts o = {
		.host = "127.0.0.1",
		.port = fakesrv_port(srv.srv),
		.aname = "/fake",
		.timeout_ms = timeout_ms,
		.max_reqs = max_reqs,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	struct lx_p9_clnt *c = NULL;
	int r = lx_p9_create(&c, &o);

	if (r)
		fail_msg("lx_p9_create: %d (%s)", r, err);
	return c;
}

static struct lx_p9_stats stats(struct lx_p9_clnt *c)
{
	struct lx_p9_stats st;

	lx_p9_stats(c, &st);
	return st;
}

/* Index of the first logged message of @type (with @oldtag for Tflush). */
static int log_find(uint8_t type, int oldtag, uint16_t *tag)
{
	unsigned int i;
	int found = -1;

	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < srv.nlog; i++) {
		if (srv.log[i].type != type)
			continue;
		if (oldtag >= 0 && srv.log[i].oldtag != oldtag)
			continue;
		found = (int)i;
		if (tag)
			*tag = srv.log[i].tag;
		break;
	}
	pthread_mutex_unlock(&srv.lock);
	return found;
}

static uint32_t open_file(struct lx_p9_clnt *c)
{
	uint32_t fid;

	assert_int_equal(lx_p9_open_path(c, "file", O_RDWR, 0, &fid, NULL), 0);
	return fid;
}

/* Completion of generic async calls. */
struct done {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int n;
	int status;
	int statuses[2];
};

static void done_init(struct done *d)
{
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
}

static void done_cb(struct lx_call *call, int status, void *arg)
{
	struct done *d = arg;

	(void)call;
	pthread_mutex_lock(&d->lock);
	d->status = status;
	if (status == 0)
		d->statuses[0]++;
	else if (status == -ECANCELED)
		d->statuses[1]++;
	d->n++;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

static void done_wait(struct done *d, unsigned int n)
{
	pthread_mutex_lock(&d->lock);
	while (d->n < n)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
}

static void done_fini(struct done *d)
{
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
}

/* A call object for @fn(@arg): enough that none is reused while in
 * flight or while its tag is looked at. */
static struct lx_call *mkcall(lx_done_fn fn, void *arg, unsigned int flags)
{
	static struct lx_call calls[1024];
	static unsigned int next;
	struct lx_call *call = &calls[next++ % 1024];

	*call = (struct lx_call){.done = fn, .arg = arg, .flags = flags};
	return call;
}

/* The tag @call went out under (its request slot). */
static uint16_t tag_of(struct lx_call *call)
{
	return (uint16_t)lx_xprt_call_req(call)->slot;
}

/* An async Tread of 512 bytes with a timeout of its own (@ms; 0: the
 * session's). */
static struct lx_call *read_async_to(struct lx_p9_clnt *c, uint32_t fid,
				     void *buf, struct done *d, unsigned int ms)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TREAD};
	struct lx_p9_call_opts o = {.rdata = buf, .timeout_ms = ms};
	struct lx_call *h = mkcall(done_cb, d, 0);

	tx.u.tread.fid = fid;
	tx.u.tread.count = 512;
	assert_int_equal(lx_p9_call_async(c, h, &tx, &o), 0);
	return h;
}

static struct lx_call *read_async(struct lx_p9_clnt *c, uint32_t fid, void *buf,
				  struct done *d)
{
	return read_async_to(c, fid, buf, d, 0);
}

/*
 * A Tread of @count bytes into @buf with a timeout of its own, @ms: the
 * session's calls around it keep the session's timeout.  The tests give
 * the session 30 s and only the calls meant to time out 100 ms, so that a
 * loaded machine (ASan, TSan, load average > 10) answering a call that
 * must succeed late cannot turn it into one more flushed call.
 */
static int read_timeout(struct lx_p9_clnt *c, uint32_t fid, void *buf,
			uint32_t count, unsigned int ms)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TREAD}, rx;
	struct lx_p9_call_opts o = {.rdata = buf, .timeout_ms = ms};

	tx.u.tread.fid = fid;
	tx.u.tread.count = count;
	return lx_p9_call(c, &tx, &o, &rx, NULL, 0);
}

/* Start @n Tstatfs calls the server holds and that never time out: they
 * occupy @n slots until close.  Return how many got a slot. */
static unsigned int occupy(struct lx_p9_clnt *c, unsigned int n, struct done *d)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TSTATFS};
	struct lx_p9_call_opts o = {.timeout_ms = LX_P9_NO_TIMEOUT};
	unsigned int i, got = 0;

	tx.u.tfid.fid = lx_p9_root_fid(c);
	for (i = 0; i < n; i++)
		if (!lx_p9_call_async(c, mkcall(done_cb, d, LX_CALL_NOWAIT),
				      &tx, &o))
			got++;
	return got;
}

/* ------------------------------------------------------------- tests */

static void test_timeout_flushes_after_the_call_then_rflush(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	struct lx_p9_stats st;
	uint16_t tag = 0, ftag = 0;
	uint32_t fid;
	uint64_t t0, dt;
	int ir, ifl;

	(void)state;
	setup_srv();
	c = conn(30000, 0); /* only the read times out: read_timeout() */
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_RFLUSH);
	t0 = now_ms();
	assert_int_equal(read_timeout(c, fid, buf, 512, 100), -ETIMEDOUT);
	dt = now_ms() - t0;
	assert_true(dt >= 90 && dt < 2000);
	ir = log_find(LX_P9_TREAD, -1, &tag);
	ifl = log_find(LX_P9_TFLUSH, tag, &ftag);
	assert_true(ir >= 0 && ifl > ir); /* the Tflush came after the call */
	assert_int_not_equal(ftag, tag);
	st = stats(c);
	assert_int_equal(st.flushes, 1);
	assert_int_equal(st.flush_replies, 1);
	assert_int_equal(st.flush_expired, 0);
	assert_int_equal(st.late_replies, 0);
	srv_set(0, P9F_FLUSH_RFLUSH);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), 0);
	lx_p9_destroy(c);
}

/*
 * A slot whose call was flushed carries no flush state into its next call
 * (it is reset only for such slots): a call reusing the tag of a flushed
 * call times out and is flushed on its own (with the old state it would
 * wait forever), and the replies to later ones are not counted as late.
 * Only the reads that are meant to time out have the short timeout, and
 * three slots keep the session going if a loaded machine delays an Rflush
 * past its call's (the flush's expiry is not what is tested here).
 */
static void test_flushed_slot_starts_clean(void **state)
{
	uint16_t tags[4], t;
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_p9_stats st;
	unsigned int i, k = 0;
	bool reused = false;
	uint32_t fid, n;

	(void)state;
	setup_srv();
	c = conn(30000, 3);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_RFLUSH);
	for (i = 0; i < 4; i++) {
		assert_int_equal(read_timeout(c, fid, buf, 512, 100),
				 -ETIMEDOUT);
		assert_int_equal(stats(c).flushes, i + 1);
	}
	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < srv.nlog && k < 4; i++)
		if (srv.log[i].type == LX_P9_TREAD)
			tags[k++] = srv.log[i].tag;
	pthread_mutex_unlock(&srv.lock);
	assert_int_equal(k, 4);
	/* four flushed calls in three slots: a flushed call's tag came back
	 * for a call (the tag hint is per thread: in practice at once) */
	for (i = 1; i < 4; i++)
		for (t = 0; t < i; t++)
			reused |= tags[i] == tags[t];
	assert_true(reused);
	srv_set(0, P9F_FLUSH_RFLUSH);
	for (i = 0; i < 4; i++)
		assert_int_equal(lx_p9_read(c, fid, 0, 512, buf, &n), 0);
	st = stats(c);
	assert_int_equal(st.flushes, 4);
	assert_int_equal(st.late_replies, 0);
	lx_p9_destroy(c);
}

static void test_reply_before_rflush_is_the_outcome(void **state)
{
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	struct lx_p9_stats st;
	uint32_t fid;
	unsigned int i;

	(void)state;
	setup_srv();
	c = conn(GRACE_MS, 0);
	srv_set(LX_P9_TWALK, P9F_FLUSH_REPLY_FIRST);
	/* the Rwalk arrives between Tflush and Rflush: the walk happened */
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "dir", &fid, NULL), 0);
	/* the walk returns with its reply; the Rflush is right behind */
	for (i = 0; i < 2000 && stats(c).flush_replies < 1; i++)
		usleep(1000);
	st = stats(c);
	assert_int_equal(st.late_replies, 1);
	assert_int_equal(st.flush_replies, 1);
	srv_set(0, P9F_FLUSH_RFLUSH);
	/* and its fid is live on the server */
	assert_int_equal(lx_p9_getattr(c, fid, LX_P9_GETATTR_BASIC, &a), 0);
	assert_int_equal(a.qid.type, LX_P9_QTDIR);
	assert_int_equal(lx_p9_clunk(c, fid), 0);
	assert_int_equal(stats(c).fids_in_use, 1);
	lx_p9_destroy(c);
}

static void test_cancel_async_call(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d;
	uint32_t fid;

	(void)state;
	setup_srv();
	c = conn(5000, 0);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_RFLUSH);
	done_init(&d);
	h = read_async(c, fid, buf, &d);
	assert_int_equal(lx_call_cancel(h), 0);
	done_wait(&d, 1);
	assert_int_equal(d.status, -ECANCELED);
	assert_true(log_find(LX_P9_TFLUSH, tag_of(h), NULL) >= 0);
	assert_int_equal(lx_call_cancel(h), -EALREADY);
	done_fini(&d);
	lx_p9_destroy(c);
}

static void test_rflush_to_a_later_tflush_answers_the_earlier(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d, occ;
	unsigned int i, got = 0, nfl = 0;
	uint32_t fid;

	(void)state;
	setup_srv();
	c = conn(5000, 4);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_SECOND_ONLY);
	done_init(&d);
	done_init(&occ);
	h = read_async(c, fid, buf, &d);
	assert_int_equal(lx_call_cancel(h), 0);
	while (log_find(LX_P9_TFLUSH, tag_of(h), NULL) < 0)
		usleep(1000);
	assert_int_equal(lx_call_cancel(h),
			 0); /* a second Tflush, same oldtag */
	done_wait(&d, 1);
	assert_int_equal(d.status, -ECANCELED);
	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < srv.nlog; i++)
		nfl += srv.log[i].type == LX_P9_TFLUSH &&
		       srv.log[i].oldtag == tag_of(h);
	pthread_mutex_unlock(&srv.lock);
	assert_int_equal(nfl, 2);
	assert_int_equal(stats(c).flush_replies, 1);
	/* the first Tflush, never answered, gave its slot back too: all
	 * four slots can be taken again (their last puts may lag a little) */
	srv_set(LX_P9_TSTATFS, P9F_FLUSH_RFLUSH);
	for (i = 0; i < 200 && got < 4; i++) {
		got += occupy(c, 4 - got, &occ);
		if (got < 4)
			usleep(1000);
	}
	assert_int_equal(got, 4);
	lx_p9_destroy(c);
	done_wait(&occ, 4);
	assert_int_equal(occ.status, -ESHUTDOWN);
	done_fini(&d);
	done_fini(&occ);
}

static void test_rflushes_answered_in_order(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d;
	uint32_t fid;

	(void)state;
	setup_srv();
	c = conn(5000, 0);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_SECOND_BOTH);
	done_init(&d);
	h = read_async(c, fid, buf, &d);
	assert_int_equal(lx_call_cancel(h), 0);
	while (log_find(LX_P9_TFLUSH, tag_of(h), NULL) < 0)
		usleep(1000);
	assert_int_equal(lx_call_cancel(h), 0);
	done_wait(&d, 1);
	assert_int_equal(d.status, -ECANCELED);
	/* the second Rflush follows the first on the stream */
	while (stats(c).flush_replies < 2)
		usleep(1000);
	done_fini(&d);
	lx_p9_destroy(c);
}

static void test_flushes_per_call_are_bounded(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d;
	uint32_t fid;
	unsigned int i;

	(void)state;
	setup_srv();
	c = conn(200, 0);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_SILENT);
	done_init(&d);
	h = read_async(c, fid, buf, &d);
	for (i = 0; i < 4; i++)
		assert_int_equal(lx_call_cancel(h), 0);
	assert_int_equal(lx_call_cancel(h), -EBUSY);
	/* no Rflush ever: the call ends at the first flush's deadline */
	done_wait(&d, 1);
	assert_int_equal(d.status, -ECANCELED);
	assert_true(stats(c).flush_expired >= 1);
	done_fini(&d);
	lx_p9_destroy(c); /* the Tflushes still in flight end here */
}

static void test_cancel_without_timeout_is_still_bounded(void **state)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TREAD};
	struct lx_p9_call_opts o = {.timeout_ms = LX_P9_NO_TIMEOUT};
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d;
	uint64_t t0, dt;

	(void)state;
	setup_srv();
	c = conn(150, 0);
	tx.u.tread.fid = open_file(c);
	tx.u.tread.count = 512;
	o.rdata = buf;
	srv_set(LX_P9_TREAD, P9F_FLUSH_SILENT);
	done_init(&d);
	h = mkcall(done_cb, &d, 0);
	assert_int_equal(lx_p9_call_async(c, h, &tx, &o), 0);
	usleep(300000); /* longer than the client's timeout: no timer */
	pthread_mutex_lock(&d.lock);
	assert_int_equal(d.n, 0);
	pthread_mutex_unlock(&d.lock);
	t0 = now_ms();
	assert_int_equal(lx_call_cancel(h), 0);
	done_wait(&d, 1);
	dt = now_ms() - t0;
	/* the Tflush waits the client's timeout, not forever */
	assert_int_equal(d.status, -ECANCELED);
	assert_true(dt >= 140 && dt < 3000);
	done_fini(&d);
	lx_p9_destroy(c);
}

struct canceller {
	struct lx_call *h;
	pthread_barrier_t *go;
	int ok;
};

static void *cancel_thread(void *arg)
{
	struct canceller *k = arg;
	int i, r;

	pthread_barrier_wait(k->go);
	for (i = 0; i < 3; i++) {
		r = lx_call_cancel(k->h);
		assert_true(r == 0 || r == -EBUSY || r == -EALREADY);
		k->ok += r == 0;
	}
	return NULL;
}

static void test_concurrent_cancels_stay_bounded(void **state)
{
	pthread_barrier_t go;
	struct canceller k[2];
	pthread_t th[2];
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_call *h;
	struct done d;
	unsigned int it, i, nfl = 0;
	uint32_t fid;

	(void)state;
	setup_srv();
	c = conn(5000, 16);
	fid = open_file(c);
	for (it = 0; it < 30; it++) {
		/* every Tflush answered: all slots must come back */
		srv_set(LX_P9_TREAD, P9F_FLUSH_RFLUSH);
		done_init(&d);
		h = read_async(c, fid, buf, &d);
		pthread_barrier_init(&go, NULL, 2);
		for (i = 0; i < 2; i++) {
			k[i] = (struct canceller){.h = h, .go = &go};
			pthread_create(&th[i], NULL, cancel_thread, &k[i]);
		}
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&go);
		done_wait(&d, 1);
		assert_int_equal(d.status, -ECANCELED);
		/* each successful cancel sent exactly one Tflush (never more
		 * than four in flight: the array bound, which ASan watches) */
		assert_true(k[0].ok + k[1].ok >= 1);
		assert_int_equal(stats(c).flushes - nfl,
				 (unsigned int)(k[0].ok + k[1].ok));
		nfl = (unsigned int)stats(c).flushes;
		done_fini(&d);
	}
	/* and every slot came back */
	done_init(&d);
	srv_set(LX_P9_TSTATFS, P9F_FLUSH_RFLUSH);
	for (i = 0, it = 0; i < 500 && it < 16; i++) {
		it += occupy(c, 16 - it, &d);
		if (it < 16)
			usleep(1000);
	}
	assert_int_equal(it, 16);
	lx_p9_destroy(c);
	done_wait(&d, 16);
	done_fini(&d);
}

static void test_tags_stay_reserved_until_the_rflush(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	struct done occ;
	uint16_t tag = 0, ftag = 0;
	uint32_t fid;
	unsigned int i, got = 0;
	uint64_t t0, dt;

	(void)state;
	setup_srv();
	c = conn(30000, 3); /* only the read times out */
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_SILENT_RELEASE);
	t0 = now_ms();
	assert_int_equal(read_timeout(c, fid, buf, 512, 100), -ETIMEDOUT);
	dt = now_ms() - t0;
	/* timeout, then the flush's own timeout */
	assert_true(dt >= 180 && dt < 3000);
	assert_int_equal(stats(c).flush_expired, 1);
	log_find(LX_P9_TREAD, -1, &tag);
	log_find(LX_P9_TFLUSH, tag, &ftag);
	/* one slot is left: every call now uses it, never the two tags */
	srv_set(0, P9F_FLUSH_SILENT_RELEASE);
	for (i = 0; i < 10; i++)
		assert_int_equal(lx_p9_getattr(c, fid, 0, &a), 0);
	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < srv.nlog; i++)
		if (srv.log[i].type == LX_P9_TGETATTR)
			assert_true(srv.log[i].tag != tag &&
				    srv.log[i].tag != ftag);
	pthread_mutex_unlock(&srv.lock);
	/* the server pays the Rflush it owes: both tags come back */
	assert_int_equal(lx_p9_getattr(c, 4000, 0, &a), -EBADF);
	assert_int_equal(stats(c).flush_replies, 1);
	done_init(&occ);
	srv_set(LX_P9_TSTATFS, P9F_FLUSH_RFLUSH);
	for (i = 0; i < 200 && got < 3; i++) {
		got += occupy(c, 3 - got, &occ);
		if (got < 3)
			usleep(1000);
	}
	assert_int_equal(got, 3);
	lx_p9_destroy(c);
	done_wait(&occ, 3);
	done_fini(&occ);
}

/*
 * Only the two reads are meant to time out (100 ms, their Tflushes' grace
 * the same): the session's other calls have 30 s, so that a loaded
 * machine (ASan, TSan, load average > 10) answering the open or the
 * Tgetattr in between late cannot turn them into a stuck pair too.
 */
static void test_stuck_flushes_holding_every_slot_end_the_session(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t fid;
	int r;

	(void)state;
	setup_srv();
	c = conn(30000, 4);
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_SILENT);
	/* the first pair leaves two slots: the session goes on */
	assert_int_equal(read_timeout(c, fid, buf, 512, 100), -ETIMEDOUT);
	assert_int_equal(stats(c).flush_expired, 1);
	srv_set(0, P9F_FLUSH_SILENT);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), 0);
	/* the second takes the last two: nothing could run any more.  The
	 * read ends with its own timeout or, if the session is shut down
	 * first (a loaded machine can order them either way), with it */
	srv_set(LX_P9_TREAD, P9F_FLUSH_SILENT);
	r = read_timeout(c, fid, buf, 512, 100);
	if (r != -ETIMEDOUT && r != -ECONNRESET)
		fail_msg("second stuck read: %d", r);
	assert_int_equal(stats(c).flush_expired, 2);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ENOTCONN);
	lx_p9_destroy(c);
}

static void test_reply_stalled_after_the_flush_is_bounded(void **state)
{
	uint8_t buf[4096];
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t fid;
	uint64_t t0, dt;
	int r;

	(void)state;
	setup_srv();
	c = conn(30000, 0); /* only the read times out */
	fid = open_file(c);
	/* the Tread times out, its Tflush gets half of the Tread's reply
	 * and then nothing: the call's reply is pinned half-way when the
	 * flush expires */
	srv_set(LX_P9_TREAD, P9F_FLUSH_PARTIAL);
	t0 = now_ms();
	r = read_timeout(c, fid, buf, sizeof(buf), 100);
	dt = now_ms() - t0;
	assert_true(r == -ECONNRESET || r == -ETIMEDOUT);
	assert_true(dt < 5000);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ENOTCONN);
	lx_p9_destroy(c);
}

static void test_rlerror_to_tflush_ends_the_session(void **state)
{
	uint8_t buf[600];
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t fid;

	(void)state;
	setup_srv();
	c = conn(30000, 0); /* only the read times out (see above) */
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_RLERROR);
	/* the call keeps its own reason */
	assert_int_equal(read_timeout(c, fid, buf, 512, 100), -ETIMEDOUT);
	assert_int_equal(stats(c).flush_replies, 0);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ENOTCONN);
	lx_p9_destroy(c);
}

static void test_walk_fate_unknown_loses_its_fid(void **state)
{
	struct lx_p9_clnt *c;
	uint32_t fid;
	uint64_t before;

	(void)state;
	setup_srv();
	c = conn(GRACE_MS, 0);
	before = stats(c).fids_in_use;
	/* Rflush: the server confirms the walk did not happen */
	srv_set(LX_P9_TWALK, P9F_FLUSH_RFLUSH);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "dir", &fid, NULL),
			 -ETIMEDOUT);
	assert_int_equal(stats(c).fids_in_use, before);
	assert_int_equal(stats(c).fids_lost, 0);
	/* no Rflush: the fid may exist on the server, never reuse it */
	srv_set(LX_P9_TWALK, P9F_FLUSH_SILENT);
	assert_int_equal(lx_p9_walk_path(c, LX_P9_NOFID, "dir", &fid, NULL),
			 -ETIMEDOUT);
	assert_int_equal(stats(c).fids_lost, 1);
	assert_int_equal(stats(c).fids_in_use, before + 1);
	lx_p9_destroy(c);
}

/* As a walk: Txattrwalk makes a new fid too. */
static void test_xattrwalk_fate_unknown_loses_its_fid(void **state)
{
	struct lx_p9_clnt *c;
	uint32_t nf;
	uint64_t size = 0;

	(void)state;
	setup_srv();
	c = conn(GRACE_MS, 0);
	assert_int_equal(lx_p9_fid_alloc(c, &nf), 0);
	srv_set(LX_P9_TXATTRWALK, P9F_FLUSH_RFLUSH);
	assert_int_equal(
		lx_p9_xattrwalk(c, lx_p9_root_fid(c), nf, "user.a", &size),
		-ETIMEDOUT);
	assert_int_equal(stats(c).fids_lost, 0);
	srv_set(LX_P9_TXATTRWALK, P9F_FLUSH_SILENT);
	assert_int_equal(
		lx_p9_xattrwalk(c, lx_p9_root_fid(c), nf, "user.a", &size),
		-ETIMEDOUT);
	assert_int_equal(stats(c).fids_lost, 1);
	lx_p9_destroy(c);
}

static void test_no_slot_for_the_flush_ends_the_session(void **state)
{
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	struct done d;
	uint8_t b1[600], b2[600];
	uint32_t fid;
	uint64_t t0, dt;

	(void)state;
	setup_srv();
	c = conn(30000, 2); /* only the reads time out */
	fid = open_file(c);
	srv_set(LX_P9_TREAD, P9F_FLUSH_RFLUSH);
	done_init(&d);
	t0 = now_ms();
	read_async_to(c, fid, b1, &d, 100);
	read_async_to(c, fid, b2, &d, 100);
	done_wait(&d, 2);
	dt = now_ms() - t0;
	assert_true(dt >= 150 && dt < 3000);
	assert_true(d.status == -ETIMEDOUT || d.status == -ECONNRESET);
	assert_int_equal(stats(c).flushes, 0);
	assert_int_equal(lx_p9_getattr(c, fid, 0, &a), -ENOTCONN);
	done_fini(&d);
	lx_p9_destroy(c);
}

static void test_cancels_racing_replies_leave_no_slot(void **state)
{
	static uint8_t bufs[300][600];
	struct lx_call *h[300];
	struct lx_p9_clnt *c;
	struct done d, occ;
	uint32_t fid;
	unsigned int i, j, got = 0;

	(void)state;
	setup_srv();
	c = conn(5000, 8);
	fid = open_file(c);
	done_init(&d);
	/* rounds of 4 calls in 8 slots, so the Tflushes always find a
	 * slot too */
	for (i = 0; i < 300; i++) {
		h[i] = read_async(c, fid, bufs[i], &d);
		if (i % 3 != 2)
			lx_call_cancel(h[i]); /* 0 or -EALREADY: both fine */
		if (i % 4 == 3)
			done_wait(&d, i + 1);
	}
	/* every call is over: cancelling them again touches nobody */
	for (j = 0; j < 300; j++)
		assert_int_equal(lx_call_cancel(h[j]), -EALREADY);
	done_wait(&d, 300);
	/* every outcome is a reply or a cancel */
	assert_int_equal(d.statuses[0] + d.statuses[1], 300);
	done_init(&occ);
	srv_set(LX_P9_TSTATFS, P9F_FLUSH_RFLUSH);
	for (i = 0; i < 500 && got < 8; i++) {
		got += occupy(c, 8 - got, &occ);
		if (got < 8)
			usleep(1000);
	}
	assert_int_equal(got, 8);
	lx_p9_destroy(c);
	done_wait(&occ, 8);
	done_fini(&occ);
	done_fini(&d);
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
		cmocka_unit_test(
			test_timeout_flushes_after_the_call_then_rflush),
		cmocka_unit_test(test_flushed_slot_starts_clean),
		cmocka_unit_test(test_reply_before_rflush_is_the_outcome),
		cmocka_unit_test(test_cancel_async_call),
		cmocka_unit_test(
			test_rflush_to_a_later_tflush_answers_the_earlier),
		cmocka_unit_test(test_rflushes_answered_in_order),
		cmocka_unit_test(test_flushes_per_call_are_bounded),
		cmocka_unit_test(test_cancel_without_timeout_is_still_bounded),
		cmocka_unit_test(test_concurrent_cancels_stay_bounded),
		cmocka_unit_test(test_tags_stay_reserved_until_the_rflush),
		cmocka_unit_test(test_reply_stalled_after_the_flush_is_bounded),
		cmocka_unit_test(test_rlerror_to_tflush_ends_the_session),
		cmocka_unit_test(
			test_stuck_flushes_holding_every_slot_end_the_session),
		cmocka_unit_test(test_walk_fate_unknown_loses_its_fid),
		cmocka_unit_test(test_xattrwalk_fate_unknown_loses_its_fid),
		cmocka_unit_test(test_no_slot_for_the_flush_ends_the_session),
		cmocka_unit_test(test_cancels_racing_replies_leave_no_slot),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
