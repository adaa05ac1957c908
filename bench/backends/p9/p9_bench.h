/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench internals, shared by its three files:
 *   p9_bench.c  options, job files, counters, main()
 *   p9_sess.c   sessions: connect, and re-establish after a lost
 *               connection (new connection, Tversion, Tattach, every
 *               job's fid walked and opened again)
 *   p9_io.c     the I/O path: messages per I/O, --alloc malloc, the
 *               helper thread (its work done by each job's thread in
 *               --libxprt-mode caller), resubmission after a lost session
 */
#ifndef BENCH_P9_BENCH_H
#define BENCH_P9_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <libxprt/p9.h>
#include <libxprt/pool.h>
#include <libxprt/url.h>

#include "engine/engine.h"

/* Messages one I/O may take: 512 KiB at the 8 KiB msize of old kernels */
#define P9B_MAX_PARTS  128u
#define P9B_RREAD_HDR  11u /* size[4] type[1] tag[2] count[4] */
#define P9B_TWRITE_HDR 23u

enum p9b_alloc {
	P9B_ALLOC_POOL,
	P9B_ALLOC_MALLOC,
};

/* What the helper thread (caller mode: the job's thread) does with an
 * I/O it is handed */
enum p9b_dkind {
	P9B_D_SEND,	/* send parts next.. (allowed to block) */
	P9B_D_COMPLETE, /* complete it (its last part ended inside submit) */
	P9B_D_RESEND,	/* its session was lost: re-establish, send again */
};

struct p9b_io;
struct p9b_job;

/* One message of an I/O; its address is the callback's argument. */
struct p9b_part {
	struct lx_call call; /* the library's state of its call */
	struct p9b_io *pio;
	void *mtx, *mrx;  /* --alloc malloc: this message's two buffers */
	unsigned int gen; /* the session generation it was sent on */
};

/* Transport, pool and 9P counters of one or several clients */
struct p9b_counters {
	uint64_t messages, direct_sends, worker_sends, send_syscalls;
	uint64_t bytes_sent, bytes_received, bytes_received_direct;
	uint64_t zerocopy_sends, zerocopy_completions, zerocopy_copied;
	uint64_t pool_gets, pool_misses, pool_high_water;
	uint64_t flushes, late_replies;
};

/**
 * struct p9b_sess - one of the --nconnect sessions, and what replaced it
 * @lock: read-held while a call is started on @c (a few instructions,
 *	never across a wait for the network); write-held only to swap in a
 *	new client, generation and job fids.  Readers are preferred (the
 *	default), so a completion callback starting the next I/O never
 *	waits for a writer that is itself waiting.
 * @c: the current client
 * @gen: how many times the session was re-established
 * @index: its number, for messages
 * @rlock: one recovery at a time; protects @jobs, @dead and @retired
 * @jobs: the jobs whose fids live on this session (p9b_job.snext)
 * @dead: 0, or the error recovery gave up with: every later recovery
 *	fails with it at once
 * @retired: counters of the clients it replaced
 * @name: "session N", or "job N's session" (caller mode), for messages
 * @own_dq: --libxprt-mode caller, a job's session: the I/Os its thread
 *	completes, sends or sends again in p9b_job_service() (that thread
 *	only: no lock)
 */
struct p9b_sess {
	pthread_rwlock_t lock;
	struct lx_p9_clnt *c;
	unsigned int gen;
	unsigned int index;
	pthread_mutex_t rlock;
	struct p9b_job *jobs;
	int dead;
	struct p9b_counters retired;
	char name[32];
	struct p9b_io *own_dq;
	bool locks_init;
	/* recovery backoff (s->rlock): a session lost within
	 * P9B_EARLY_NS of being made waits before the next, doubling */
	uint64_t since;		    /* monotonic ns the session was made */
	uint64_t backoff_ns;	    /* 0: none due */
	uint64_t replies0;	    /* its transport's replies once set up */
	_Atomic bool said;	    /* "not responding" said for this episode */
	unsigned int early_gen;	    /* last generation lost early, + 1 */
	uint64_t episode_t0;	    /* first loss of this episode (ns), or 0 */
	unsigned int episode_early; /* sessions lost early in it */
	/* --hard watch (the helper thread only; caller mode: the job's
	 * thread): replies last seen, the next look (caller mode) */
	uint64_t watch_replies, watch_since, watch_next;
};

/**
 * struct p9b_job - a job's file on its session
 * @s: the session
 * @fid: the open fid on s->c (under s->lock)
 * @newfid: the fid on the client being set up by a recovery (s->rlock)
 * @chunk: bytes per message: min(iosize, iounit)
 * @oflags: O_RDONLY or O_RDWR, to open the file again after a recovery
 * @path: the file, relative to the aname
 * @snext: next job of the session (s->rlock)
 */
struct p9b_job {
	struct p9b_sess *s;
	uint32_t fid;
	uint32_t newfid;
	uint32_t chunk;
	uint32_t oflags;
	char *path;
	struct p9b_job *snext;
};

/*
 * Per-I/O state, in the engine slot's private area.  @lost, @lost_gen and
 * @lost_err are written by the parts that ended with the session lost,
 * before their decrement of @pending, and read by whoever takes it to 0.
 */
struct p9b_io {
	struct bench_io *io;
	struct p9b *p;
	_Atomic unsigned int pending; /* parts in flight + the hold */
	_Atomic uint32_t bytes;
	_Atomic int status;
	_Atomic bool lost;	       /* a part ended with the session lost */
	_Atomic unsigned int lost_gen; /* the generation it was lost on */
	_Atomic int lost_err;
	unsigned int early_losses; /* sessions lost early under it */
	_Atomic bool inflight;	   /* between submit() and bench_io_done() */
	unsigned int nparts;
	unsigned int next; /* first part not sent yet */
	unsigned int resends;
	enum p9b_dkind dkind;
	struct p9b_io *dnext;
	struct p9b_part part[P9B_MAX_PARTS];
};

struct p9b {
	/* options */
	char *host;
	uint16_t port;
	const char *aname;
	char aname_buf[1024]; /* an aname from a 9p:// URL */
	uint32_t msize;
	enum p9b_alloc alloc;
	unsigned int max_reqs_opt;
	uint64_t reconnect_ns;	 /* --reconnect-timeout; 0: never */
	bool reconnect_set;	 /* given: --hard does not lift it */
	char where[1024];	 /* "host aname", for the engine's messages */
	_Atomic bool sess_ready; /* every session set up: p9b_sess_watch() */

	/* run */
	const struct bench_config *cfg;
	bool caller; /* --libxprt-mode caller: a session per job, no thread */
	/* sess[0 .. nc-1]: the --nconnect sessions set-up makes (caller
	 * mode: the main thread's one, for stat(), closed at the first
	 * job_open()); in caller mode sess[nc + i] is job i's, made by its
	 * job_open(); nsess in all */
	struct p9b_sess *sess;
	unsigned int nc, nsess;
	uint32_t msize_got, iosize;
	size_t max_io;
	unsigned int max_reqs;
	struct rusage ru0;

	/* the helper thread: rest of I/Os whose later parts found no slot,
	 * and completions that must not run inside submit() */
	pthread_mutex_t dlock;
	pthread_cond_t dcond;
	struct p9b_io *dq;
	bool dinit, dstop, dstarted;
	pthread_t dthread;
	_Atomic uint64_t deferred;
	_Atomic uint64_t split_ios;
	uint64_t end_fsyncs; /* --end_fsync: Tfsync of job_sync/job_end */

	/* recovery (p9_sess.c) */
	_Atomic uint64_t reconnects;
	_Atomic uint64_t early_losses; /* sessions lost within 5 s */
	_Atomic uint64_t resubmitted;
	_Atomic uint64_t completed_twice;
	_Atomic uint64_t rss_kib_first_reconnect;
};

/* messages an I/O of @len bytes takes at @chunk bytes per message */
static inline unsigned int p9b_parts_for(size_t len, size_t chunk)
{
	return len <= chunk ? 1u : (unsigned int)((len + chunk - 1) / chunk);
}

/**
 * p9b_submit() - the back-end's submit(): start @io as one message, or as
 * several when it is larger than the job's chunk
 * Return: see bench_backend_ops.submit: 0, then bench_io_done() runs once
 * on another thread; -EBUSY when not even the first message
 * could go out (NOWAIT); another negative errno, nothing in flight.
 */
int p9b_submit(void *priv, struct bench_io *io, unsigned int flags);
int p9b_run_sync(void *priv, struct bench_io *io, int *status, size_t *bytes);

/**
 * p9b_job_service() - the back-end's job_service() (caller mode): the
 * job's deferred I/Os, then its session's loop until a completion or
 * @deadline_ns
 * Context: the job's thread.  Return: see bench_backend_ops.job_service.
 */
int p9b_job_service(void *priv, struct bench_job_info *job,
		    uint64_t deadline_ns);

/**
 * p9b_helper_start() - start the thread that sends what NOWAIT could not
 * (none in caller mode: each job's thread does that work)
 * Context: setup(), main thread.  Return: 0 or a negative errno.
 */
int p9b_helper_start(struct p9b *p);

/**
 * p9b_helper_stop() - stop and join it (nothing may be in flight); safe to
 * call when it never started
 */
void p9b_helper_stop(struct p9b *p);

/* ------------------------------------------------------ p9_sess.c */

/**
 * p9b_sess_setup() - open the --nconnect sessions (no recovery: a server
 * that cannot be reached at the start is a usage problem, said at once)
 * Context: setup(), main thread.  Return: 0, or a negative errno after
 * bench_error().
 */
int p9b_sess_setup(struct p9b *p);

/**
 * p9b_sess_open_job() - caller mode: make job @index's own session,
 * caller-driven, with the first session's msize and slots; the first
 * call closes set-up's session (stat() is over)
 * Context: job_open() of the job's first file, main thread.  Return: 0,
 * or a negative errno after bench_error().
 */
int p9b_sess_open_job(struct p9b *p, unsigned int index);

/**
 * p9b_sess_get() - the session's current client and generation
 * For sync calls of the main thread (job_open, job_close), while no I/O
 * is in flight; the I/O path reads them under s->lock itself.
 */
void p9b_sess_get(struct p9b_sess *s, struct lx_p9_clnt **c, unsigned int *gen);

/**
 * p9b_sess_lost() - does @err mean that the session is gone, so that
 * the call is worth sending again on a new one?
 * Return: false when --reconnect-timeout is 0 (recovery off).
 */
bool p9b_sess_lost(const struct p9b *p, int err);

/**
 * p9b_sess_recover() - make sure @s has a session newer than @gen
 * @gen: the generation a call was lost on
 * @call: the message that call started with ("Twalk", "Tread"), for
 *	the message when the server drops every new session at it
 *
 * When @s is still at @gen, connects again (Tversion, Tattach), walks and
 * opens every job's file on the new session, and only then swaps it in
 * and closes the old one, whose calls still in flight fail (their
 * callbacks hand them to the helper thread).  Attempts are spaced 50 ms,
 * doubling to 1 s; a session lost early (within 5 s of being made, no
 * call answered) waits from 100 ms doubling to 30 s before the next.
 * All of it within --reconnect-timeout of the first loss of the episode
 * (the losses since a session last worked), for ever under --hard.
 * Context: the helper thread or the main thread (caller mode: the job's
 * thread, outside its session's loop, or the main thread between
 * phases), never a completion callback, and not with s->lock held;
 * blocks.
 * Return: 0 (a newer session is up: send again); or the error recovery
 * gave up with (said once with bench_error()); every later call returns
 * it too.
 */
int p9b_sess_recover(struct p9b *p, struct p9b_sess *s, unsigned int gen,
		     const char *call);

/**
 * p9b_sess_was_early() - was generation @gen of @s lost early (within 5 s
 * of being made, no I/O answered on it)?
 */
bool p9b_sess_was_early(struct p9b_sess *s, unsigned int gen);

/** p9b_sess_answered() - an I/O was answered: "server ... OK" if said */
void p9b_sess_answered(struct p9b *p, struct p9b_sess *s);

/**
 * p9b_sess_watch() - --hard: say "not responding" when calls wait
 * @p: the bench back-end
 * @window_ns: how long calls may wait without any reply
 *
 * Hard calls have no timeout, so a server that stops answering (and
 * keeps the connection) would leave the run silent for ever.  Called
 * periodically by the helper thread: a session with calls outstanding
 * and no reply for @window_ns says "server HOST:PORT not responding,
 * still trying" once; the next answered I/O says "OK".
 */
void p9b_sess_watch(struct p9b *p, uint64_t window_ns);

/**
 * p9b_sess_watch_one() - p9b_sess_watch() of one session at @now
 * Context: the helper thread; caller mode: the job's thread, for its own
 * session.
 */
void p9b_sess_watch_one(struct p9b *p, struct p9b_sess *s, uint64_t now,
			uint64_t window_ns);

/** p9b_watch_window() - how long --hard calls wait unanswered before the
 * watch says so: --timeo (default 30 s) */
uint64_t p9b_watch_window(const struct p9b *p);

/** p9b_sess_add_job() - @pj's fid lives on its session from now on */
void p9b_sess_add_job(struct p9b_job *pj);

/** p9b_sess_del_job() - no longer (job_close) */
void p9b_sess_del_job(struct p9b_job *pj);

/** p9b_sess_counters() - counters of every client the sessions had */
void p9b_sess_counters(struct p9b *p, struct p9b_counters *sum);

/** p9b_sess_teardown() - close every session; nothing may be in flight */
void p9b_sess_teardown(struct p9b *p);

/** p9b_rss_kib() - VmRSS of the process, KiB (0 when unknown) */
uint64_t p9b_rss_kib(void);

#endif /* BENCH_P9_BENCH_H */
