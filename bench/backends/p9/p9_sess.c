/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench's sessions, and their recovery when a connection is lost.
 *
 * Sessions.  --nconnect N opens N 9P sessions (one connection, one
 * Tversion and one Tattach each); job i uses session i mod N, walks and
 * opens (or creates) its own fid there, and passes its owner to every
 * call, so each job is a separate owner in that session's fair transmit
 * queue.
 *
 * Request slots.  A completion callback resubmits while its own call
 * still holds its slot (the slot is released after the callback
 * returns), so a session gets more slots than it can ever have calls in
 * flight: its jobs x the engine's slots per job x the messages one I/O
 * takes, plus headroom for Tflush.  In the steady state a NOWAIT submit
 * therefore never finds the slots exhausted.
 *
 * Recovery.  A 9P session does not survive its connection (the library's
 * LX_XPRT_FAIL policy): calls in flight fail with -ECONNRESET, later ones
 * with -ENOTCONN.  Unless --reconnect-timeout is 0, p9_io.c hands every
 * I/O that failed so to the helper thread, which calls
 * p9b_sess_recover() with the generation the I/O was lost on, then sends
 * the whole I/O again.  The first I/O lost on a generation connects a new
 * client with the same options (same msize, slots, fid ceiling), opens
 * every job's file on it, and only then publishes it: a write lock held
 * for a few stores swaps client, generation and fids, so a reader either
 * starts its call on the old client (and loses it again, to be resent)
 * or on the new one with fids that exist there.  The old client is then
 * closed outside the lock; its calls still in flight fail with
 * -ESHUTDOWN and come back the same way.  I/Os lost on an older
 * generation find a newer session up and are just sent again.
 *
 * What makes resending safe: 9P has no unstable writes, an Rwrite means
 * the server wrote the data, and the engine never has two I/Os on one
 * verified block at once, so sending an unacknowledged Twrite or a Tread
 * again cannot overwrite anything newer - as long as the old connection's
 * calls are dead.  They are when the server process died (the soak
 * kills it); when only the connection dropped (a Tflush the server
 * refused breaks the session), a server still executing an old Twrite
 * could apply it after the resend: the same data, harmful only if the
 * block were rewritten in between.
 *
 * When the server does not come back within --reconnect-timeout, the
 * session is marked dead: every I/O on it fails with the last connect
 * error, and the run fails with a message saying so.
 *
 * --libxprt-mode caller.  Every session is caller-driven (libxprt's
 * LX_XPRT_MODE_CALLER: no thread of the library's).  Set-up's one session
 * serves the main thread's stat() and is closed at the first job_open();
 * job_open() of a job's first file makes a session of the job's own,
 * opens the job's files there, and the job's I/O goes through it alone,
 * its thread servicing it (p9b_job_service()).  A session is one
 * connection, so --nconnect stays 1.  Recovery is the same, run by the
 * job's thread where the helper thread would run it: a new client made
 * there, the old one closed there, its calls' callbacks run there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "p9_bench.h"

/* Slots beyond the calls in flight: Tflush (two slots each) and clunks */
#define P9B_SLOT_SPARE	      16u
#define P9B_RDMA_PORT	      5640u
#define P9B_BACKOFF_MIN_NS    50000000ull   /* first retry after 50 ms, */
#define P9B_BACKOFF_MAX_NS    1000000000ull /* doubling up to 1 s */
/* A session lost within this long of being made is an early loss (the
 * library's LX_XPRT_EARLY_MS): before the next one we wait, from 100 ms
 * doubling to 30 s, as the library's reconnects do, so a server that
 * drops every session at its first I/O is not hammered */
#define P9B_EARLY_NS	      5000000000ull
#define P9B_EARLY_BACKOFF_MIN 100000000ull
#define P9B_EARLY_BACKOFF_MAX 30000000000ull
/* --hard: the early losses in a row after which it says it keeps on */
#define P9B_EARLY_SAY_HARD    3u

/* ------------------------------------------------------------ connect */

/* jobs one session carries: spread over --nconnect, or one (caller) */
static unsigned int p9b_jobs_per_sess(const struct p9b *p)
{
	return p->caller ? 1 : (p->cfg->numjobs + p->nc - 1) / p->nc;
}

/*
 * Slots one session needs: its jobs' slots, each with the messages of
 * its largest I/O in flight, and the spare.  The largest I/O is the
 * larger of --bs and one message (layout writes are at most max_io).
 */
static unsigned int slots_needed(const struct p9b *p, uint32_t iosize)
{
	const struct bench_config *cfg = p->cfg;
	unsigned int per_conn = p9b_jobs_per_sess(p);
	unsigned int per_job = cfg->max_inflight / cfg->numjobs;
	uint64_t n = (uint64_t)per_conn * per_job *
		     p9b_parts_for(cfg->bs ? cfg->bs : 1, iosize);

	if (p->max_reqs_opt)
		return p->max_reqs_opt;
	n += P9B_SLOT_SPARE;
	return n > 0xFFFF ? 0xFFFF : (unsigned int)n;
}

/* One session; on failure @err says why (a sentence, no hint). */
/* replies its transport has had, to tell a session that answered I/O */
static uint64_t p9b_replies(struct lx_p9_clnt *c)
{
	struct lx_xprt_stats st;

	lx_xprt_stats(lx_p9_xprt(c), &st);
	return st.replies;
}

static int p9b_connect_one(struct p9b *p, uint32_t msize, unsigned int max_reqs,
			   struct lx_p9_clnt **cp, char *err, size_t errlen)
{
	const struct bench_config *cfg = p->cfg;
	unsigned int per_conn = p9b_jobs_per_sess(p);
	struct lx_p9_opts o = {
		.host = p->host,
		.port = p->port,
		.aname = p->aname,
		.n_uname = cfg->uid,
		.n_gid = cfg->gid,
		.msize = msize,
		.max_reqs = max_reqs,
		/* ganesha refuses fids >= 1024: stay below unless the jobs
		 * need more */
		.max_fids = per_conn + 16 > 1024 ? per_conn + 16 : 1024,
		.transport = cfg->transport == BENCH_TRANSPORT_RDMA ?
				     LX_XPRT_TRANSPORT_RDMA :
				     LX_XPRT_TRANSPORT_TCP,
		.errbuf = err,
		.errbuf_len = errlen,
		.log = bench_xprt_log,
		.zerocopy = cfg->zerocopy,
		/* made by the thread that will drive it (recovery on a job's
		 * thread), or handed over by servicing it (job_open()) */
		.mode = p->caller ? LX_XPRT_MODE_CALLER : LX_XPRT_MODE_THREADED,
	};
	int ret;

	err[0] = '\0';
	if (!o.port)
		o.port = cfg->transport == BENCH_TRANSPORT_RDMA ?
				 P9B_RDMA_PORT :
				 LX_P9_DEF_PORT;
	if (o.max_fids > 0xFFFF)
		o.max_fids = 0xFFFF;
	/* mount-style: a call is flushed and fails after timeo x (retrans
	 * + 1) (9P never sends a call twice on a session); hard: never */
	if (cfg->hard)
		o.timeout_ms = LX_P9_NO_TIMEOUT;
	else if (cfg->timeo_ds)
		o.timeout_ms = cfg->timeo_ds * 100 *
			       (cfg->retrans > 0 ? cfg->retrans + 1 : 1);
	/* the set-up steps (Tversion, Tattach): --timeo, within 30 s */
	if (cfg->timeo_ds)
		o.connect_timeout_ms = cfg->timeo_ds * 100 < 30000 ?
					       cfg->timeo_ds * 100 :
					       30000;
	ret = lx_p9_create(cp, &o);
	if (ret && !err[0])
		snprintf(err, errlen, "%s:%u: %s", p->host, o.port,
			 lx_strerror(ret));
	return ret;
}

static bool p9b_permanent(int err);
static bool p9b_sleep_ns(uint64_t ns);
static void p9b_counters_of(struct lx_p9_clnt *c, struct p9b_counters *sum);
static void p9b_say(struct p9b *p, struct p9b_sess *s, bool ok);

/*
 * A session's set-up (Tversion, Tattach) on @s.  Soft, the first failure
 * is the answer.  --hard, as a hard mount: a server that is down, resets
 * or drops us is tried again, waiting from P9B_EARLY_BACKOFF_MIN doubling
 * to P9B_EARLY_BACKOFF_MAX between attempts (at most 7 in 10 s), saying
 * "not responding, still trying" once and "OK" when it answers; what a
 * server says (Tattach refused, not 9P, no such name) is final.  The
 * failure comes with a hint at the likely mistake.
 */
static int p9b_connect_setup(struct p9b *p, struct p9b_sess *s, uint32_t msize,
			     unsigned int max_reqs)
{
	uint64_t backoff = 0;
	char err[512];
	const char *hint = "";
	int ret;

	for (;;) {
		ret = p9b_connect_one(p, msize, max_reqs, &s->c, err,
				      sizeof(err));
		if (!ret) {
			if (atomic_load(&s->said))
				p9b_say(p, s, true);
			return 0;
		}
		if (!p->cfg->hard || p9b_permanent(ret) || ret == -EACCES ||
		    ret == -EPERM || strstr(err, "refused Tattach"))
			break;
		p9b_say(p, s, false);
		backoff = backoff < P9B_EARLY_BACKOFF_MIN ?
				  P9B_EARLY_BACKOFF_MIN :
			  backoff >= P9B_EARLY_BACKOFF_MAX / 2 ?
				  P9B_EARLY_BACKOFF_MAX :
				  backoff * 2;
		if (!p9b_sleep_ns(backoff)) {
			bench_error("%s (interrupted while trying again: "
				    "--hard)",
				    err);
			return -EINTR;
		}
	}
	if (strstr(err, "refused Tattach"))
		hint = "\n  (--aname: diod wants the exported directory's "
		       "absolute path, ganesha the\n  export's pseudo path)";
	else if ((strstr(err, "Tversion") &&
		  !strstr(err, "9P2000.L server?")) ||
		 ret == -EPROTONOSUPPORT)
		hint = "\n  (is that port a 9P2000.L server's?)";
	bench_error("%s%s", err, hint);
	return ret;
}

/* Session @s made after the first: its msize must be the first's. */
static int p9b_sess_make(struct p9b *p, struct p9b_sess *s)
{
	int ret = p9b_connect_setup(p, s, p->msize_got, p->max_reqs);

	if (ret)
		return ret;
	s->since = bench_now_ns();
	s->replies0 = p9b_replies(s->c);
	if (lx_p9_msize(s->c) != p->msize_got) {
		bench_error("%s negotiated msize %u, the first %u", s->name,
			    lx_p9_msize(s->c), p->msize_got);
		return -EPROTO;
	}
	return 0;
}

int p9b_sess_setup(struct p9b *p)
{
	struct p9b_sess *s;
	unsigned int i, need;
	int ret;

	p->nsess = p->nc + (p->caller ? p->cfg->numjobs : 0);
	p->sess = calloc(p->nsess, sizeof(*p->sess));
	if (!p->sess)
		return -ENOMEM;
	for (i = 0; i < p->nsess; i++) {
		s = &p->sess[i];
		s->index = i;
		if (i < p->nc)
			snprintf(s->name, sizeof(s->name), "session %u", i);
		else
			snprintf(s->name, sizeof(s->name), "job %u's session",
				 i - p->nc);
		ret = -pthread_rwlock_init(&s->lock, NULL);
		if (ret)
			return ret;
		ret = -pthread_mutex_init(&s->rlock, NULL);
		if (ret) {
			pthread_rwlock_destroy(&s->lock);
			return ret;
		}
		s->locks_init = true;
	}

	/* the slots depend on msize, which the first session negotiates */
	p->max_reqs = slots_needed(p, p->msize - LX_P9_IOHDRSZ);
	if (p->cfg->hard && !p->reconnect_set)
		p->reconnect_ns = UINT64_MAX; /* --hard: for ever */
	ret = p9b_connect_setup(p, &p->sess[0], p->msize, p->max_reqs);
	if (ret)
		return ret;
	p->msize_got = lx_p9_msize(p->sess[0].c);
	p->iosize = lx_p9_iosize(p->sess[0].c);
	need = slots_needed(p, p->iosize);
	if (need > p->max_reqs) {
		lx_p9_destroy(p->sess[0].c);
		p->sess[0].c = NULL;
		p->max_reqs = need;
		ret = p9b_connect_setup(p, &p->sess[0], p->msize_got, need);
		if (ret)
			return ret;
	}
	p->sess[0].since = bench_now_ns();
	p->sess[0].replies0 = p9b_replies(p->sess[0].c);
	for (i = 1; i < p->nc; i++) {
		ret = p9b_sess_make(p, &p->sess[i]);
		if (ret)
			return ret;
	}
	/* release: the watch (the helper thread) reads the sessions */
	atomic_store(&p->sess_ready, true);
	return 0;
}

int p9b_sess_open_job(struct p9b *p, unsigned int index)
{
	struct p9b_sess *s0 = &p->sess[0];

	/* set-up's session served stat(), which comes before any
	 * job_open(), and nothing calls on it any more: it does not stay
	 * connected for the run (nor, at its end, make a server that
	 * stopped answering wait for its root's Tclunk) */
	if (s0->c) {
		pthread_mutex_lock(&s0->rlock);
		p9b_counters_of(s0->c, &s0->retired);
		lx_p9_destroy(s0->c);
		s0->c = NULL;
		pthread_mutex_unlock(&s0->rlock);
	}
	return p9b_sess_make(p, &p->sess[p->nc + index]);
}

void p9b_sess_get(struct p9b_sess *s, struct lx_p9_clnt **c, unsigned int *gen)
{
	pthread_rwlock_rdlock(&s->lock);
	*c = s->c;
	*gen = s->gen;
	pthread_rwlock_unlock(&s->lock);
}

bool p9b_sess_lost(const struct p9b *p, int err)
{
	if (!p->reconnect_ns)
		return false;
	switch (err) {
	case -ECONNRESET: /* in flight when the connection broke */
	case -ENOTCONN:	  /* started on a session already gone */
	case -ESHUTDOWN:  /* in flight on a client recovery closed */
	case -EPIPE:
		return true;
	default:
		return false;
	}
}

/* ----------------------------------------------------------- recovery */

/*
 * Errors after which trying again cannot help: the server answers but
 * not as before (msize, iounit, a job's file gone), or we are out of
 * memory.  Everything else - refused, reset, timed out while the server
 * starts - is retried until the deadline.
 */
static bool p9b_permanent(int err)
{
	return err == -EPROTO || err == -EPROTONOSUPPORT || err == -ENOENT ||
	       err == -ENOMEM || err == -EINVAL;
}

/* Open every job's file on @nc (into pj->newfid). */
static int p9b_reopen_jobs(struct p9b *p, struct p9b_sess *s,
			   struct lx_p9_clnt *nc, char *err, size_t errlen)
{
	struct p9b_job *pj;
	uint32_t iounit;
	int ret;

	if (lx_p9_msize(nc) != p->msize_got) {
		snprintf(err, errlen, "the new session has msize %u, not %u",
			 lx_p9_msize(nc), p->msize_got);
		return -EPROTO;
	}
	for (pj = s->jobs; pj; pj = pj->snext) {
		iounit = 0;
		ret = lx_p9_open_path(nc, pj->path, pj->oflags, 0644,
				      &pj->newfid, &iounit);
		if (ret) {
			snprintf(err, errlen, "%s: open: %s", pj->path,
				 lx_strerror(ret));
			return ret;
		}
		if (iounit && iounit < pj->chunk) {
			/* the I/Os in flight were split for the old one */
			snprintf(err, errlen, "%s: iounit %u, below %u now",
				 pj->path, iounit, pj->chunk);
			return -EPROTO;
		}
	}
	return 0;
}

static void p9b_counters_of(struct lx_p9_clnt *c, struct p9b_counters *sum)
{
	struct lx_xprt_stats xs;
	struct lx_xprt_pool_stats ps;
	struct lx_p9_stats st;

	lx_xprt_stats(lx_p9_xprt(c), &xs);
	sum->messages += xs.submitted;
	sum->direct_sends += xs.direct_sends;
	sum->worker_sends += xs.worker_sends;
	sum->send_syscalls += xs.send_calls;
	sum->bytes_sent += xs.bytes_sent;
	sum->bytes_received += xs.bytes_received;
	sum->bytes_received_direct += xs.direct_rx_bytes;
	sum->zerocopy_sends += xs.zerocopy_sends;
	sum->zerocopy_completions += xs.zerocopy_completions;
	sum->zerocopy_copied += xs.zerocopy_copied;
	lx_xprt_pool_stats(lx_xprt_pool(lx_p9_xprt(c)), &ps);
	sum->pool_gets += ps.gets;
	sum->pool_misses += ps.misses;
	sum->pool_high_water += ps.high_water;
	lx_p9_stats(c, &st);
	sum->flushes += st.flushes;
	sum->late_replies += st.late_replies;
}

static void p9b_counters_add(struct p9b_counters *sum,
			     const struct p9b_counters *c)
{
	sum->messages += c->messages;
	sum->direct_sends += c->direct_sends;
	sum->worker_sends += c->worker_sends;
	sum->send_syscalls += c->send_syscalls;
	sum->bytes_sent += c->bytes_sent;
	sum->bytes_received += c->bytes_received;
	sum->bytes_received_direct += c->bytes_received_direct;
	sum->zerocopy_sends += c->zerocopy_sends;
	sum->zerocopy_completions += c->zerocopy_completions;
	sum->zerocopy_copied += c->zerocopy_copied;
	sum->pool_gets += c->pool_gets;
	sum->pool_misses += c->pool_misses;
	/* a replaced pool's mark is not added to its successor's */
	sum->flushes += c->flushes;
	sum->late_replies += c->late_replies;
}

/* Sleep @ns in slices short enough to notice ^C; false if interrupted. */
static bool p9b_sleep_ns(uint64_t ns)
{
	uint64_t end = bench_now_ns() + ns, now, left;
	struct timespec ts;

	while (!bench_interrupted()) {
		now = bench_now_ns();
		if (now >= end)
			return true;
		left = end - now < 100000000ull ? end - now : 100000000ull;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return false;
}

/* Publish @nc with the jobs' new fids; return the client it replaces. */
static struct lx_p9_clnt *p9b_swap(struct p9b_sess *s, struct lx_p9_clnt *nc)
{
	struct lx_p9_clnt *old;
	struct p9b_job *pj;

	pthread_rwlock_wrlock(&s->lock);
	old = s->c;
	s->c = nc;
	s->gen++;
	for (pj = s->jobs; pj; pj = pj->snext)
		pj->fid = pj->newfid;
	pthread_rwlock_unlock(&s->lock);
	return old;
}

/* "server HOST:PORT not responding, still trying" once per episode */
static void p9b_say(struct p9b *p, struct p9b_sess *s, bool ok)
{
	char line[512];
	unsigned int port = p->port ? p->port :
			    p->cfg->transport == BENCH_TRANSPORT_RDMA ?
				      P9B_RDMA_PORT :
				      LX_P9_DEF_PORT;

	if (atomic_exchange(&s->said, !ok) == !ok)
		return;
	snprintf(line, sizeof(line), "server %s:%u %s", p->host, port,
		 ok ? "OK" : "not responding, still trying");
	bench_xprt_log(NULL, 0, line);
}

/*
 * A session lost early (within P9B_EARLY_NS of being made) is not
 * replaced at once: the wait doubles with each such loss, counted from
 * when the lost session was made, and a session that lived longer
 * resets it (the library's reconnect rule, applied to whole sessions).
 *
 * An episode starts with the first loss after a session that worked
 * (lived P9B_EARLY_NS or answered a call) and lasts while the sessions
 * that replace it are lost early; --reconnect-timeout is measured from
 * its start, so a server that accepts every new session and drops it at
 * its first call ends a soft run within that time whatever the backoff.
 * --hard keeps trying and says so once per episode.
 * Return 0, -ECONNRESET when the next try would pass the episode's
 * deadline (said here), -EINTR when the run was interrupted during it.
 */
static int p9b_early_wait(struct p9b *p, struct p9b_sess *s, const char *call)
{
	uint64_t now = bench_now_ns(), at;

	/* I/Os answered on it: a server that works and went away (the
	 * soak's kills), not one that drops us */
	if (now - s->since >= P9B_EARLY_NS || p9b_replies(s->c) > s->replies0) {
		s->backoff_ns = 0;
		s->episode_t0 = now;
		s->episode_early = 0;
		return 0;
	}
	if (!s->episode_t0)
		s->episode_t0 = now;
	s->episode_early++;
	atomic_fetch_add(&p->early_losses, 1);
	s->early_gen = s->gen + 1;
	p9b_say(p, s, false);
	s->backoff_ns = s->backoff_ns < P9B_EARLY_BACKOFF_MIN ?
				P9B_EARLY_BACKOFF_MIN :
			s->backoff_ns >= P9B_EARLY_BACKOFF_MAX / 2 ?
				P9B_EARLY_BACKOFF_MAX :
				s->backoff_ns * 2;
	at = s->since + s->backoff_ns;
	if (at < now)
		at = now;
	if (p->reconnect_ns != UINT64_MAX &&
	    at - s->episode_t0 > p->reconnect_ns) {
		bench_error("%s: the server dropped each of %u new "
			    "sessions at its first %s (%.1f s since the first "
			    "loss; --reconnect-timeout %.1f s%s)",
			    s->name, s->episode_early, call,
			    (now - s->episode_t0) / 1e9,
			    (double)p->reconnect_ns / 1e9,
			    p->cfg->hard ? "" : ", --hard keeps trying");
		return -ECONNRESET;
	}
	if (p->cfg->hard && s->episode_early == P9B_EARLY_SAY_HARD) {
		char line[256];

		snprintf(line, sizeof(line),
			 "%s: the server dropped each of %u new "
			 "sessions at its first %s; still trying (--hard)",
			 s->name, s->episode_early, call);
		bench_xprt_log(NULL, 0, line);
	}
	return p9b_sleep_ns(at - now) ? 0 : -EINTR;
}

bool p9b_sess_was_early(struct p9b_sess *s, unsigned int gen)
{
	bool early;

	pthread_mutex_lock(&s->rlock);
	early = s->early_gen == gen + 1;
	pthread_mutex_unlock(&s->rlock);
	return early;
}

void p9b_sess_answered(struct p9b *p, struct p9b_sess *s)
{
	/* a load, and only after an episode the exchange */
	if (atomic_load_explicit(&s->said, memory_order_relaxed))
		p9b_say(p, s, true);
}

/* See p9_bench.h.  Under s->lock (read): a recovery swaps and closes
 * the client only under the write lock. */
void p9b_sess_watch_one(struct p9b *p, struct p9b_sess *s, uint64_t now,
			uint64_t window_ns)
{
	struct lx_xprt_stats st;

	pthread_rwlock_rdlock(&s->lock);
	if (!s->c) {
		pthread_rwlock_unlock(&s->lock);
		return;
	}
	lx_xprt_stats(lx_p9_xprt(s->c), &st);
	pthread_rwlock_unlock(&s->lock);
	if (st.replies != s->watch_replies || st.submitted <= st.completed) {
		/* answering, or nothing to answer */
		s->watch_replies = st.replies;
		s->watch_since = now;
	} else if (now - s->watch_since >= window_ns) {
		p9b_say(p, s, false);
	}
}

void p9b_sess_watch(struct p9b *p, uint64_t window_ns)
{
	uint64_t now = bench_now_ns();
	unsigned int i;

	if (!atomic_load(&p->sess_ready))
		return; /* set-up runs: nothing to watch, nor safe to read */
	for (i = 0; i < p->nsess; i++)
		p9b_sess_watch_one(p, &p->sess[i], now, window_ns);
}

uint64_t p9b_watch_window(const struct p9b *p)
{
	return (uint64_t)(p->cfg->timeo_ds ? p->cfg->timeo_ds : 300u) *
	       100000000ull;
}

int p9b_sess_recover(struct p9b *p, struct p9b_sess *s, unsigned int gen,
		     const char *call)
{
	uint64_t t0, backoff = P9B_BACKOFF_MIN_NS, now;
	struct lx_p9_clnt *nc = NULL, *old;
	char err[256] = "";
	int ret;

	pthread_mutex_lock(&s->rlock);
	ret = s->dead;
	if (ret || s->gen != gen)
		goto out_unlock; /* gave up before, or recovered since */
	ret = p9b_early_wait(p, s, call);
	if (ret) {
		s->dead = ret; /* said, or interrupted */
		goto out_unlock;
	}
	t0 = s->episode_t0; /* the deadline is the episode's */
	for (;;) {
		ret = p9b_connect_one(p, p->msize_got, p->max_reqs, &nc, err,
				      sizeof(err));
		if (!ret) {
			ret = p9b_reopen_jobs(p, s, nc, err, sizeof(err));
			if (!ret)
				break;
			lx_p9_destroy(
				nc); /* the fids opened on it go with it */
			nc = NULL;
		}
		now = bench_now_ns();
		if (p9b_permanent(ret)) {
			s->dead = ret;
			bench_error("%s: lost, and the server's new "
				    "session cannot replace it: %s",
				    s->name, err);
			goto out_unlock;
		}
		if (now - t0 >= p->reconnect_ns) {
			s->dead = ret;
			bench_error("%s: lost, and not re-established "
				    "within %.1f s (--reconnect-timeout): %s",
				    s->name, (double)p->reconnect_ns / 1e9,
				    err);
			goto out_unlock;
		}
		p9b_say(p, s, false); /* the server is not coming back yet */
		/* the last attempt at the deadline */
		if (backoff > p->reconnect_ns - (now - t0))
			backoff = p->reconnect_ns - (now - t0);
		if (!p9b_sleep_ns(backoff)) {
			s->dead = ret = -EINTR;
			goto out_unlock;
		}
		backoff *= 2;
		if (backoff > P9B_BACKOFF_MAX_NS)
			backoff = P9B_BACKOFF_MAX_NS;
	}
	old = p9b_swap(s, nc);
	s->since = bench_now_ns();
	s->replies0 = p9b_replies(nc);
	/* nobody starts a call on @old any more: close it; its calls in
	 * flight come back to the helper with -ESHUTDOWN */
	p9b_counters_of(old, &s->retired);
	lx_p9_destroy(old);
	if (!atomic_fetch_add(&p->reconnects, 1))
		atomic_store(&p->rss_kib_first_reconnect, p9b_rss_kib());
out_unlock:
	pthread_mutex_unlock(&s->rlock);
	return ret;
}

/* ----------------------------------------------------------- the rest */

void p9b_sess_add_job(struct p9b_job *pj)
{
	struct p9b_sess *s = pj->s;

	pthread_mutex_lock(&s->rlock);
	pj->snext = s->jobs;
	s->jobs = pj;
	pthread_mutex_unlock(&s->rlock);
}

void p9b_sess_del_job(struct p9b_job *pj)
{
	struct p9b_sess *s = pj->s;
	struct p9b_job **pp;

	pthread_mutex_lock(&s->rlock);
	for (pp = &s->jobs; *pp; pp = &(*pp)->snext) {
		if (*pp == pj) {
			*pp = pj->snext;
			break;
		}
	}
	pthread_mutex_unlock(&s->rlock);
}

void p9b_sess_counters(struct p9b *p, struct p9b_counters *sum)
{
	struct p9b_sess *s;
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; p->sess && i < p->nsess; i++) {
		s = &p->sess[i];
		pthread_mutex_lock(&s->rlock);
		if (s->c)
			p9b_counters_of(s->c, sum);
		p9b_counters_add(sum, &s->retired);
		pthread_mutex_unlock(&s->rlock);
	}
}

void p9b_sess_teardown(struct p9b *p)
{
	struct p9b_sess *s;
	unsigned int i;

	for (i = 0; p->sess && i < p->nsess; i++) {
		s = &p->sess[i];
		lx_p9_destroy(s->c);
		s->c = NULL;
		if (s->locks_init) {
			pthread_mutex_destroy(&s->rlock);
			pthread_rwlock_destroy(&s->lock);
			s->locks_init = false;
		}
	}
	free(p->sess);
	p->sess = NULL;
}

uint64_t p9b_rss_kib(void)
{
	unsigned long size, resident;
	uint64_t kib = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) == 2)
		kib = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) /
		      1024u;
	fclose(f);
	return kib;
}
