// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdma_null - our SunRPC client's NULL calls over RPC-over-RDMA v1 to the
 * kernel nfsd in the test guest.
 *
 * Checks, each a PASS/FAIL line:
 *   sync      one lx_rpc_null() round trip
 *   credits   the server's credit grant reached the congestion window
 *             (the window starts at 1 on a new connection and must grow)
 *   pipeline  COUNT async NULL calls with DEPTH in flight all succeed; the
 *             rate, receive doorbells per receive and signalled Sends per
 *             Send are printed (batching must show: fewer doorbells than
 *             receives, fewer signalled Sends than Sends)
 *   reconnect calls in flight across a dropped connection are resent on
 *             the new one and all succeed
 *   timeout   (with -T) calls timed out by the client drop the connection
 *             instead of being resent on it, and complete after the
 *             reconnect
 *   refused   (with -r PORT) a closed port fails lx_rpc_create with
 *             -ECONNREFUSED, promptly
 *   nowait    (with -W EXTRA) LX_CALL_NOWAIT at the limits: a client with
 *             EXTRA slots more than the server's credit grant takes every
 *             slot with NOWAIT calls while its receive thread is held in
 *             the first done(); the calls past the credits are queued at
 *             once (0), the next NOWAIT call is refused with -EBUSY at
 *             once, and every held call completes when released
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxprt/rdma.h>
#include <libxprt/rpc.h>
#include <libxprt/proto/xprt.h>

#include "tool.h"

static const char *host = "10.0.2.15";
static unsigned int port = LX_XPRT_RDMA_NFS_PORT;
static unsigned int count = 2000, depth = 32, nconnect = 1, max_reqs = 64;
/* the guest may stall for seconds on a busy host: a long ACK timeout
 * keeps rxe from declaring the peer dead (see lx_xprt_rdma_opts) */
#define TOOL_ACK_TIMEOUT 20
static const struct lx_xprt_rdma_opts stall_ro = {.ack_timeout =
							  TOOL_ACK_TIMEOUT};

/* A stall prints the counters of the connection: enough to tell a lost
 * wake-up from a lost message. */
static void dump_stats(struct lx_xprt *x, const char *why)
{
	struct lx_xprt_rdma_stats r;
	struct lx_xprt_stats s;

	lx_xprt_stats(x, &s);
	lx_xprt_rdma_stats(x, &r);
	printf("STALL %s: submitted %llu completed %llu replies %llu "
	       "bad_keys %llu dup %llu sends %llu direct %llu worker %llu "
	       "retrans %llu connects %llu disconnects %llu state %d | rdma: "
	       "credits %u recvs %llu/%llu doorbells, sends %llu (%llu "
	       "signalled) sq_full %llu cq_events %llu polls %llu bad_hdr "
	       "%llu connect attempts %llu failed %llu (last %d, %llu us)\n",
	       why, (unsigned long long)s.submitted,
	       (unsigned long long)s.completed, (unsigned long long)s.replies,
	       (unsigned long long)s.bad_keys,
	       (unsigned long long)s.dup_replies, (unsigned long long)s.sends,
	       (unsigned long long)s.direct_sends,
	       (unsigned long long)s.worker_sends,
	       (unsigned long long)s.retransmits,
	       (unsigned long long)s.connects,
	       (unsigned long long)s.disconnects, (int)lx_xprt_state(x),
	       r.credits, (unsigned long long)r.recvs_posted,
	       (unsigned long long)r.recv_doorbells,
	       (unsigned long long)r.sends,
	       (unsigned long long)r.sends_signaled,
	       (unsigned long long)r.sq_full, (unsigned long long)r.cq_events,
	       (unsigned long long)r.polls, (unsigned long long)r.bad_headers,
	       (unsigned long long)r.connect_attempts,
	       (unsigned long long)r.connect_failures, r.last_connect_error,
	       (unsigned long long)r.last_connect_us);
}

#define PIPE_MAX 1024u /* calls in flight at most (-d) */

struct pipe_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int inflight, done, errors;
	int first_err;
	struct lx_call calls[PIPE_MAX];
	struct lx_call *freel[PIPE_MAX]; /* call objects not in flight */
	unsigned int nfree;
	double last, max_gap; /* the longest wait between completions */
};

static void null_done(struct lx_call *call, int status, void *arg);

/* A call object for the next call; ps->lock held, one is free. */
static struct lx_call *ps_call(struct pipe_state *ps)
{
	struct lx_call *call;

	if (!ps->nfree && !ps->inflight) /* first use */
		for (; ps->nfree < PIPE_MAX; ps->nfree++)
			ps->freel[ps->nfree] = &ps->calls[ps->nfree];
	call = ps->freel[--ps->nfree];
	*call = (struct lx_call){.done = null_done, .arg = ps};
	return call;
}

static void null_done(struct lx_call *call, int status, void *arg)
{
	struct pipe_state *ps = arg;

	pthread_mutex_lock(&ps->lock);
	ps->freel[ps->nfree++] = call;
	ps->inflight--;
	ps->done++;
	if (ps->last) {
		double t = now_s();

		if (t - ps->last > ps->max_gap)
			ps->max_gap = t - ps->last;
		ps->last = t;
	} else {
		ps->last = now_s();
	}
	if (status) {
		ps->errors++;
		if (!ps->first_err)
			ps->first_err = status;
	}
	pthread_cond_signal(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
}

/* Wait for a completion (one must be owed: something is in flight);
 * report a stall of 3 s once.  Called with ps->lock held. */
static void wait_progress(struct pipe_state *ps, struct lx_xprt *x,
			  const char *what)
{
	struct timespec ts;
	unsigned int before = ps->done;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3;
	while (ps->done == before) {
		if (pthread_cond_timedwait(&ps->cond, &ps->lock, &ts)) {
			dump_stats(x, what);
			pthread_cond_wait(&ps->cond, &ps->lock);
		}
	}
}

static int make_client(struct lx_rpc_clnt **cl, uint16_t p, unsigned int timeo,
		       const struct lx_xprt_rdma_opts *ro)
{
	struct lx_rpc_opts o = {0};

	o.host = host;
	o.port = p;
	o.prog = 100003;
	o.vers = 3;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.max_reqs = max_reqs;
	o.nconnect = nconnect; /* connections share one registered pool */
	o.timeo_ms = timeo;
	o.rdma = ro ? ro : &stall_ro;
	o.reconnect_give_up_ms = 20000;
	return lx_rpc_create(cl, &o);
}

/* counters of all connections of @cl */
static void sum_stats(struct lx_rpc_clnt *cl, struct lx_xprt_rdma_stats *sum)
{
	struct lx_xprt_rdma_stats s;
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < lx_rpc_nconnect(cl); i++) {
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, i), &s);
		sum->recvs_posted += s.recvs_posted;
		sum->recv_doorbells += s.recv_doorbells;
		sum->sends += s.sends;
		sum->sends_signaled += s.sends_signaled;
	}
}

static void test_pipeline(struct lx_rpc_clnt *cl)
{
	static struct pipe_state ps;

	memset(&ps, 0, sizeof(ps));
	struct lx_rpc_call_args a = {.proc = 0};
	struct lx_xprt_rdma_stats st0, st;
	struct lx_xprt *x = lx_rpc_xprt(cl, 0);
	unsigned int sent = 0;
	double t0, dt;
	int r;

	pthread_mutex_init(&ps.lock, NULL);
	pthread_cond_init(&ps.cond, NULL);
	sum_stats(cl, &st0);
	t0 = now_s();
	pthread_mutex_lock(&ps.lock);
	while (ps.done < count) {
		while (sent < count && ps.inflight < depth) {
			struct lx_call *call = ps_call(&ps);

			ps.inflight++;
			sent++;
			pthread_mutex_unlock(&ps.lock);
			r = lx_rpc_call_async(cl, call, &a);
			pthread_mutex_lock(&ps.lock);
			if (r) {
				ps.freel[ps.nfree++] = call;
				ps.inflight--;
				ps.done++;
				ps.errors++;
				if (!ps.first_err)
					ps.first_err = r;
			}
		}
		if (ps.inflight)
			wait_progress(&ps, x, "pipeline");
	}
	pthread_mutex_unlock(&ps.lock);
	dt = now_s() - t0;
	sum_stats(cl, &st);
	report("pipeline", !ps.errors,
	       "%u NULL calls, %u in flight on %u connection(s): %.0f "
	       "calls/s (%.0f us/call, longest wait %.0f ms), "
	       "%u errors (first %s); receives %llu in %llu doorbells, "
	       "sends %llu of which %llu signalled",
	       count, depth, lx_rpc_nconnect(cl), count / dt, dt * 1e6 / count,
	       ps.max_gap * 1e3, ps.errors,
	       ps.first_err ? lx_strerror(ps.first_err) : "none",
	       (unsigned long long)(st.recvs_posted - st0.recvs_posted),
	       (unsigned long long)(st.recv_doorbells - st0.recv_doorbells),
	       (unsigned long long)(st.sends - st0.sends),
	       (unsigned long long)(st.sends_signaled - st0.sends_signaled));
	if (st.recv_doorbells - st0.recv_doorbells >=
		    st.recvs_posted - st0.recvs_posted ||
	    st.sends_signaled - st0.sends_signaled >= st.sends - st0.sends)
		report("batching", 0, "no receive or send batching seen");
	else
		report("batching", 1,
		       "%.1f receives per doorbell, %.1f Sends per completion",
		       (double)(st.recvs_posted - st0.recvs_posted) /
			       (double)(st.recv_doorbells - st0.recv_doorbells),
		       (double)(st.sends - st0.sends) /
			       (double)(st.sends_signaled -
					st0.sends_signaled));
	pthread_cond_destroy(&ps.cond);
	pthread_mutex_destroy(&ps.lock);
}

/*
 * Connection loss with calls in flight: lx_xprt_disconnect() in the middle of
 * a pipeline; the calls already sent are resent on the new connection
 * (same XIDs) and every call succeeds.
 */
static void test_reconnect(struct lx_rpc_clnt *cl)
{
	static struct pipe_state ps;

	memset(&ps, 0, sizeof(ps));
	struct lx_rpc_call_args a = {.proc = 0};
	struct lx_xprt *x = lx_rpc_xprt(cl, 0);
	struct lx_xprt_stats st0, st;
	unsigned int n = 400, sent = 0, i;
	/*
	 * Few calls in flight at the cut: the kernel nfsd keeps a thread
	 * busy per reply it was sending on the dead connection until its
	 * retries run out (seconds under emulation); with all its threads
	 * busy it accepts the new connection only then.
	 */
	unsigned int rdepth = depth < 4 ? depth : 4;
	bool cut = false;
	int r;

	pthread_mutex_init(&ps.lock, NULL);
	pthread_cond_init(&ps.cond, NULL);
	lx_xprt_stats(x, &st0);
	pthread_mutex_lock(&ps.lock);
	while (ps.done < n) {
		while (sent < n && ps.inflight < rdepth) {
			struct lx_call *call = ps_call(&ps);

			ps.inflight++;
			sent++;
			pthread_mutex_unlock(&ps.lock);
			r = lx_rpc_call_async(cl, call, &a);
			pthread_mutex_lock(&ps.lock);
			if (r) {
				ps.freel[ps.nfree++] = call;
				ps.inflight--;
				ps.done++;
				ps.errors++;
				if (!ps.first_err)
					ps.first_err = r;
			}
		}
		if (!cut && sent >= n / 2) {
			cut = true;
			pthread_mutex_unlock(&ps.lock);
			lx_xprt_disconnect(x);
			pthread_mutex_lock(&ps.lock);
			continue; /* completions may have come meanwhile */
		}
		if (ps.inflight)
			wait_progress(&ps, x, "reconnect");
	}
	pthread_mutex_unlock(&ps.lock);
	/* the worker counts a connection just after publishing it: calls can
	 * finish first; give the counter a moment */
	for (i = 0; i < 200; i++) {
		lx_xprt_stats(x, &st);
		if (st.connects > st0.connects)
			break;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	report("reconnect", !ps.errors && st.connects > st0.connects,
	       "%u calls across a dropped connection: %u errors (first %s), "
	       "%llu reconnect(s), %llu disconnect(s), %llu resent",
	       n, ps.errors, ps.first_err ? lx_strerror(ps.first_err) : "none",
	       (unsigned long long)(st.connects - st0.connects),
	       (unsigned long long)(st.disconnects - st0.disconnects),
	       (unsigned long long)(st.retransmits - st0.retransmits));
	pthread_cond_destroy(&ps.cond);
	pthread_mutex_destroy(&ps.lock);
}

/*
 * A call that times out on a live connection must not be sent again on
 * it: the client drops the connection and the reconnect resends it.  The
 * kernel nfsd answers NULL in well under a millisecond natively, but the
 * round trip under emulation is about that long, so a 1 ms timeo makes
 * some calls time out; each must still succeed, through a reconnect.
 */
static void test_timeout(void)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_reply_info info;
	struct lx_rpc_call_args a = {.proc = 0};
	struct lx_xprt_stats st;
	unsigned int i, errs = 0, retrans = 0;
	struct lx_rpc_clnt *cl;
	int r, first = 0;

	o.host = host;
	o.port = (uint16_t)port;
	o.prog = 100003;
	o.vers = 3;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.timeo_ms = 1;
	o.timeo_max_ms = 2000;
	o.retrans = 12;
	o.rdma = &stall_ro;
	r = lx_rpc_create(&cl, &o);
	if (r) {
		report("timeout", 0, "client: %s", lx_strerror(r));
		return;
	}
	for (i = 0; i < 20; i++) {
		r = lx_rpc_call_sync(cl, &a, &info);
		retrans += info.retransmits;
		if (r) {
			errs++;
			if (!first)
				first = r;
		}
	}
	lx_xprt_stats(lx_rpc_xprt(cl, 0), &st);
	/* a timer may also fire before the call was sent (nothing to
	 * resend): only a resend of a sent call must drop the connection */
	if (!st.retransmits)
		printf("note timeout: no sent call timed out (server faster "
		       "than 1 ms): path not exercised\n");
	report("timeout",
	       !errs && (!st.retransmits ||
			 (st.disconnects >= 1 && st.connects >= 2)),
	       "20 calls with a 1 ms timeo: %u errors (first %s), %u "
	       "timer expiries, %llu resend(s), %llu disconnect(s), %llu "
	       "connect(s)",
	       errs, first ? lx_strerror(first) : "none", retrans,
	       (unsigned long long)st.retransmits,
	       (unsigned long long)st.disconnects,
	       (unsigned long long)st.connects);
	lx_rpc_destroy(cl);
}

/*
 * The first completion delivered on the receive thread holds it until
 * released: no slot is given back meanwhile (a slot is freed after its
 * done() returns) and no reply is processed.  done() may also run on the
 * submitting thread (a reply that came in before the sender marked the
 * call sent: the sender delivers it); that one must not wait, or the
 * submitter would wait for itself.
 */
struct hold_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool held, release;
	unsigned int done, errors;
	int first_err;
};

static _Thread_local bool in_submit;

static void hold_done(struct lx_call *call, int status, void *arg)
{
	struct hold_state *hs = arg;

	(void)call;
	pthread_mutex_lock(&hs->lock);
	if (!hs->held && !in_submit) {
		hs->held = true;
		pthread_cond_broadcast(&hs->cond);
		while (!hs->release)
			pthread_cond_wait(&hs->cond, &hs->lock);
	}
	if (status) {
		hs->errors++;
		if (!hs->first_err)
			hs->first_err = status;
	}
	hs->done++; /* last: the waiter reads the counts after it */
	pthread_cond_broadcast(&hs->cond);
	pthread_mutex_unlock(&hs->lock);
}

/* Wait (hs->lock held) until the receive thread is held or @ndone calls
 * are done (@held_too: either), @secs at most; false on timeout. */
static bool hold_wait(struct hold_state *hs, unsigned int ndone, bool held_too,
		      int secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	while (!(hs->done >= ndone || (held_too && hs->held)))
		if (pthread_cond_timedwait(&hs->cond, &hs->lock, &ts))
			return hs->done >= ndone || (held_too && hs->held);
	return true;
}

static int nowait_submit(struct lx_rpc_clnt *cl, struct lx_call *call,
			 struct hold_state *hs, double *took)
{
	struct lx_rpc_call_args a = {.proc = 0};
	double t0 = now_s();
	int r;

	*call = (struct lx_call){
		.done = hold_done, .arg = hs, .flags = LX_CALL_NOWAIT};
	in_submit = true;
	r = lx_rpc_call_async(cl, call, &a);
	in_submit = false;
	*took = now_s() - t0;
	return r;
}

/*
 * LX_CALL_NOWAIT past the credits: NOWAIT refuses only
 * when no slot is free, never because the server's credits are all in
 * use.  Calls past the credit window wait in the transmit queue, holding
 * their slots; with every slot taken the next NOWAIT call gets -EBUSY
 * without waiting, and the calls already accepted must still complete.
 *
 * First NULL calls one at a time until one's completion holds the
 * receive thread (usually the first); then the rest of the slots.
 */
static void test_nowait(unsigned int grant, unsigned int extra)
{
	static struct lx_call calls[PIPE_MAX + 64];
	static struct hold_state hs;
	struct lx_xprt_rdma_stats rst;
	unsigned int slots = grant + extra, n = 0, queued = 0, window, i;
	double took, t_submit = 0, t_busy = 0;
	struct lx_rpc_clnt *cl;
	unsigned int saved = max_reqs;
	bool held = false, all;
	int r = 0, busy;

	if (slots > PIPE_MAX) {
		report("nowait", 0, "%u slots: more than %u", slots, PIPE_MAX);
		return;
	}
	memset(&hs, 0, sizeof(hs));
	pthread_mutex_init(&hs.lock, NULL);
	pthread_cond_init(&hs.cond, NULL);
	max_reqs = slots;
	r = make_client(&cl, (uint16_t)port, 30000, NULL);
	max_reqs = saved;
	if (r) {
		report("nowait", 0, "client with %u slots: %s", slots,
		       lx_strerror(r));
		return;
	}
	printf("note nowait: client with %u slots\n", slots);
	/* a round trip first: the window opens to the server's grant */
	r = lx_rpc_null(cl);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &rst);
	window = rst.credits;
	if (r || window >= slots) {
		report("nowait", 0,
		       "NULL %s; window %u with %u slots: cannot go past "
		       "the credits",
		       lx_strerror(r), window, slots);
		goto out;
	}
	/* 1. hold the receive thread in a completion */
	for (i = 0; i < 64 && !held; i++) {
		r = nowait_submit(cl, &calls[n], &hs, &took);
		if (r)
			break;
		n++;
		pthread_mutex_lock(&hs.lock);
		held = hold_wait(&hs, n, true, 20) && hs.held;
		pthread_mutex_unlock(&hs.lock);
	}
	printf("note nowait: receive thread held after %u call(s): %s\n", n,
	       held ? "yes" : "no");
	/* 2. every other slot: past the window, queued for a credit */
	for (i = 0; held && i < slots - 1; i++) {
		r = nowait_submit(cl, &calls[n], &hs, &took);
		if (took > t_submit)
			t_submit = took;
		if (r)
			break;
		n++;
		queued++;
	}
	printf("note nowait: %u of %u NOWAIT calls accepted, longest %.2f "
	       "ms\n",
	       queued, slots - 1, t_submit * 1e3);
	/* 3. one more */
	busy = held ? nowait_submit(cl, &calls[n], &hs, &t_busy) : 0;
	if (held && !busy)
		n++; /* accepted: it completes too */
	printf("note nowait: one more: %s in %.3f ms\n", lx_strerror(busy),
	       t_busy * 1e3);
	pthread_mutex_lock(&hs.lock);
	hs.release = true;
	pthread_cond_broadcast(&hs.cond);
	all = hold_wait(&hs, n, false, 60);
	pthread_mutex_unlock(&hs.lock);
	report("nowait",
	       held && queued == slots - 1 && busy == -EBUSY && t_busy < 0.05 &&
		       all && !hs.errors,
	       "%u slots, window %u (grant %u): with one call held in "
	       "done(), %u more NOWAIT calls accepted (longest submit %.2f "
	       "ms; first refusal %s), one more: %s in %.3f ms; %u of %u "
	       "completed after the release, %u errors (first %s)",
	       slots, window, grant, queued, t_submit * 1e3,
	       queued < slots - 1 ? lx_strerror(r) : "none", lx_strerror(busy),
	       t_busy * 1e3, hs.done, n, hs.errors,
	       hs.first_err ? lx_strerror(hs.first_err) : "none");
	/* the refusal was for that moment: a slot is free again now */
	r = lx_rpc_null(cl);
	report("nowait-after", !r, "NULL after the held calls: %s",
	       lx_strerror(r));
out:
	lx_rpc_destroy(cl);
	pthread_cond_destroy(&hs.cond);
	pthread_mutex_destroy(&hs.lock);
}

int main(int argc, char **argv)
{
	struct lx_xprt_rdma_opts ro = {.ack_timeout = TOOL_ACK_TIMEOUT};
	bool timeout = false;
	struct lx_xprt_rdma_stats st;
	struct lx_rpc_clnt *cl;
	unsigned int refused = 0, nowait = 0, grant;
	double t0;
	int c, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "a:p:n:d:m:r:Tb:c:W:")) != -1) {
		switch (c) {
		case 'a':
			host = optarg;
			break;
		case 'p':
			port = (unsigned int)atoi(optarg);
			break;
		case 'n':
			count = (unsigned int)atoi(optarg);
			break;
		case 'd':
			depth = (unsigned int)atoi(optarg);
			if (depth > PIPE_MAX)
				depth = PIPE_MAX;
			break;
		case 'm':
			max_reqs = (unsigned int)atoi(optarg);
			break;
		case 'r':
			refused = (unsigned int)atoi(optarg);
			break;
		case 'T':
			timeout = true;
			break;
		case 'c':
			nconnect = (unsigned int)atoi(optarg);
			break;
		case 'b':
			ro.busy_poll_us = (unsigned int)atoi(optarg);
			break;
		case 'W':
			nowait = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: rdma_null [-a IP] [-p PORT] [-n COUNT] "
				"[-d DEPTH] [-m MAX_REQS] [-c NCONNECT] "
				"[-b BUSY_US] "
				"[-r CLOSED_PORT] "
				"[-T] [-W EXTRA_SLOTS]\n");
			return 2;
		}
	}

	t0 = now_s();
	r = make_client(&cl, (uint16_t)port, 10000, &ro);
	if (r) {
		report("connect", 0, "%s:%u: %s", host, port, lx_strerror(r));
		return 1;
	}
	report("connect", 1, "%s:%u in %.1f ms", host, port,
	       (now_s() - t0) * 1e3);
	t0 = now_s();
	r = lx_rpc_null(cl);
	report("sync", !r, "NULL: %s, %.0f us", lx_strerror(r),
	       (now_s() - t0) * 1e6);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &st);
	report("credits", st.credits > 1 && st.max_credits > 1,
	       "server granted %u credits (window now %u); inline send %u, "
	       "receive %u",
	       st.max_credits, st.credits, st.inline_send, st.inline_recv);
	grant = st.max_credits;
	if (nowait) { /* only that: the other checks have their own runs */
		lx_rpc_destroy(cl);
		printf("note nowait: first client destroyed\n");
		test_nowait(grant, nowait);
		return fails ? 1 : 0;
	}
	test_pipeline(cl);
	test_reconnect(cl);
	lx_rpc_destroy(cl);

	if (timeout)
		test_timeout();
	if (refused) {
		t0 = now_s();
		r = make_client(&cl, (uint16_t)refused, 10000, NULL);
		report("refused", r == -ECONNREFUSED,
		       "closed port %u: %s after %.1f ms", refused,
		       lx_strerror(r), (now_s() - t0) * 1e3);
		if (!r)
			lx_rpc_destroy(cl);
	}
	return fails ? 1 : 0;
}
