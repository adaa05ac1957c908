/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench's I/O path.
 *
 * Transfers larger than one message.  Tread and Twrite carry at most
 * msize - 24 bytes (or the fid's smaller iounit), and both test servers
 * cap msize at 64 KiB, so ior's 512 KiB transfers would not fit one
 * message.  As a kernel mount does, one I/O of the engine becomes
 * ceil(len / chunk) messages sent back to back and completed together:
 * the I/O's latency is that of its slowest message, its bytes the sum.
 * The parts of an I/O share a count of what is pending; the last part
 * inherits the submitter's hold instead of adding its own, so after the
 * last send the submitter never touches the I/O again and the completion
 * always runs on a completion thread, never inside submit().  If a later
 * part finds no free slot in NOWAIT context (only when blocking callers
 * are queued in front of it), the rest of the I/O goes to a helper thread
 * that sends it allowed to block; a part 0 that cannot go out is the
 * engine's -EBUSY.
 *
 * A lost session (p9_sess.c).  A part that fails because the session is
 * gone (-ECONNRESET in flight, -ENOTCONN when started, -ESHUTDOWN when
 * recovery closed its client) marks the I/O lost instead of failing it.
 * Whoever ends the I/O's last part - a receive thread of the dying
 * session, or the submitter - never resends from there: the I/O goes to
 * the helper thread, which re-establishes the session (p9b_sess_recover(),
 * blocking, outside every lock a callback takes) and sends the whole I/O
 * again, up to P9B_MAX_RESENDS times.  Its parts that had succeeded are
 * sent again too: the same data at the same offsets.  An I/O thus
 * completes once, with the outcome of its last sending; a flag set in
 * submit() and cleared by the completion counts any second completion
 * (completed_twice, 0 unless this file has a bug).
 *
 * --alloc malloc replays the 9P request-slab experiment (the 2018 kernel
 * patch that allocated both fcall buffers, msize bytes each, for every
 * request, before a per-client cache brought the cost back): every 9P
 * message of the run mallocs a request buffer and a reply buffer of the
 * negotiated msize, the request is built in the first (its header encoded
 * with lx_p9_msg_encode(), Twrite data copied behind it) and sent from it,
 * Rread data lands in the second and is copied out to the engine's
 * buffer, and both are freed when the reply has been handled.  The
 * client's request slots keep their own two pool buffers from one call
 * to the next (no pool operation a call), and in both modes an I/O on a
 * shared session is submitted and completes on the receive thread
 * (p9b_run_sync()), so the difference between the two modes is what
 * per-request allocation of msize buffers, and the copies it implies,
 * adds to a pooled client.
 *
 * --libxprt-mode caller: no helper thread.  A job's session is its own
 * and caller-driven, its completions run on the job's thread inside
 * p9b_job_service(), and so does what the helper would do: p9b_defer()
 * puts the I/O on the session's own list (no lock: submit() and the
 * completions of that session run on that thread only), and the next
 * p9b_job_service() sends the rest of it allowed to block (the library
 * then services the session until a slot is free), completes it, or
 * re-establishes the session and sends it again, before it services the
 * session.  The --hard watch looks at the job's session from there too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "p9_bench.h"

/* Sendings of one I/O, the first included, before it fails for good */
#define P9B_MAX_RESENDS	     16u
/* soft: sessions lost early with the I/O in flight before it fails */
#define P9B_EARLY_LOSS_LIMIT 3u

static void p9b_complete(struct p9b_io *pio)
{
	int status = atomic_load_explicit(&pio->status, memory_order_relaxed);
	uint32_t bytes =
		atomic_load_explicit(&pio->bytes, memory_order_relaxed);

	if (!atomic_exchange_explicit(&pio->inflight, false,
				      memory_order_relaxed)) {
		atomic_fetch_add_explicit(&pio->p->completed_twice, 1,
					  memory_order_relaxed);
		return;
	}
	/* the bench's job info is the pio's until bench_io_done() */
	if (!status && pio->io->job)
		p9b_sess_answered(pio->p,
				  ((struct p9b_job *)pio->io->job->priv)->s);
	bench_io_done(pio->io, status, status ? 0 : bytes);
}

static void p9b_defer(struct p9b *p, struct p9b_io *pio, enum p9b_dkind kind)
{
	if (kind != P9B_D_RESEND) /* counted as resubmitted when sent */
		atomic_fetch_add_explicit(&p->deferred, 1,
					  memory_order_relaxed);
	pio->dkind = kind;
	if (p->caller) {
		/* the job's thread: the only one on its session */
		struct p9b_sess *s = ((struct p9b_job *)pio->io->job->priv)->s;

		pio->dnext = s->own_dq;
		s->own_dq = pio;
		return;
	}
	pthread_mutex_lock(&p->dlock);
	pio->dnext = p->dq;
	p->dq = pio;
	pthread_cond_signal(&p->dcond);
	pthread_mutex_unlock(&p->dlock);
}

/*
 * Drop one count of @pio's pending parts.  The last one completes the
 * I/O, through the helper thread when we are inside submit(), or hands it
 * to the helper to be sent again when its session was lost (and nothing
 * else failed).
 */
static inline __attribute__((always_inline)) void p9b_put(struct p9b_io *pio,
							  bool in_submit)
{
	if (atomic_fetch_sub_explicit(&pio->pending, 1, memory_order_acq_rel) !=
	    1)
		return;
	if (atomic_load_explicit(&pio->lost, memory_order_relaxed) &&
	    !atomic_load_explicit(&pio->status, memory_order_relaxed)) {
		p9b_defer(pio->p, pio, P9B_D_RESEND);
		return;
	}
	if (in_submit) {
		p9b_defer(pio->p, pio, P9B_D_COMPLETE);
		return;
	}
	p9b_complete(pio);
}

static void p9b_set_status(struct p9b_io *pio, int status)
{
	int zero = 0;

	atomic_compare_exchange_strong_explicit(&pio->status, &zero, status,
						memory_order_relaxed,
						memory_order_relaxed);
}

/* Part @pt ended with @status: a lost session is not an error (yet). */
static void p9b_part_status(struct p9b_part *pt, int status)
{
	struct p9b_io *pio = pt->pio;

	if (p9b_sess_lost(pio->p, status)) {
		atomic_store_explicit(&pio->lost_gen, pt->gen,
				      memory_order_relaxed);
		atomic_store_explicit(&pio->lost_err, status,
				      memory_order_relaxed);
		atomic_store_explicit(&pio->lost, true, memory_order_relaxed);
	} else {
		p9b_set_status(pio, status);
	}
}

static void p9b_free_bufs(struct p9b_part *pt)
{
	free(pt->mtx);
	free(pt->mrx);
	pt->mtx = pt->mrx = NULL;
}

static void p9b_part_done(struct lx_call *call, int status, void *arg)
{
	uint32_t count = call->count;
	struct p9b_part *pt = arg;
	struct p9b_io *pio = pt->pio;

	if (pt->mrx) {
		if (!status && pio->io->op == BENCH_OP_READ) {
			uint32_t chunk =
				((struct p9b_job *)pio->io->job->priv)->chunk;
			size_t off = (size_t)(pt - pio->part) * chunk;

			memcpy((char *)pio->io->buf + off,
			       (char *)pt->mrx + P9B_RREAD_HDR, count);
		}
		p9b_free_bufs(pt);
	}
	if (status)
		p9b_part_status(pt, status);
	else
		atomic_fetch_add_explicit(&pio->bytes, count,
					  memory_order_relaxed);
	p9b_put(pio, false);
}

/* The one message of a Tgetattr or Tfsync I/O: its status only. */
static void p9b_meta_done(struct lx_call *call, int status, void *arg)
{
	const struct lx_p9_fcall *rx = call->res;
	struct p9b_part *pt = arg;

	if (pt->mrx) {
		/* the reply as the slab client had it: in its own buffer */
		size_t n = 0;

		if (!status)
			lx_p9_msg_encode(rx, pt->mrx, pt->pio->p->msize_got, 0,
					 &n);
		p9b_free_bufs(pt);
	}
	if (status)
		p9b_part_status(pt, status);
	p9b_put(pt->pio, false);
}

/* --alloc malloc: both buffers of the message, the request built in one */
static int p9b_build(struct p9b *p, struct p9b_part *pt,
		     const struct lx_p9_fcall *tx, const void *data,
		     uint32_t len)
{
	size_t n;

	pt->mtx = malloc(p->msize_got);
	pt->mrx = malloc(p->msize_got);
	if (!pt->mtx || !pt->mrx) {
		p9b_free_bufs(pt);
		return -ENOMEM;
	}
	lx_p9_msg_encode(tx, pt->mtx, p->msize_got, LX_P9_ENC_NODATA, &n);
	if (data)
		memcpy((char *)pt->mtx + n, data, len);
	return 0;
}

/*
 * Tgetattr (--rw getattr) or Tfsync (fio's --fsync=N: fsync(2), not
 * fdatasync) of the job's file, the only message of its I/O.
 */
static int p9b_send_meta(struct p9b *p, struct p9b_io *pio,
			 struct lx_p9_clnt *c, uint32_t fid, unsigned int pf)
{
	struct p9b_part *pt = &pio->part[0];
	bool sync = pio->io->op == BENCH_OP_FSYNC;
	struct lx_p9_fcall tx = {.type = sync ? LX_P9_TFSYNC : LX_P9_TGETATTR};
	int ret;

	if (sync) {
		tx.u.tfsync.fid = fid;
	} else {
		tx.u.tgetattr.fid = fid;
		tx.u.tgetattr.request_mask = LX_P9_GETATTR_BASIC;
	}
	if (p->alloc == P9B_ALLOC_MALLOC) {
		ret = p9b_build(p, pt, &tx, NULL, 0);
		if (ret)
			return ret;
	}
	pt->call.done = p9b_meta_done;
	pt->call.arg = pt;
	pt->call.owner = pio->io->owner;
	pt->call.flags = pf;
	ret = sync ? lx_p9_fsync_async(c, &pt->call, fid, false) :
		     lx_p9_call_async(c, &pt->call, &tx, NULL);
	if (ret)
		p9b_free_bufs(pt);
	return ret;
}

/*
 * Message @k of @pio, on the session's current client and with the fid
 * the job has there; the session cannot be swapped meanwhile.  Inline,
 * as p9b_start() and p9b_put() are: one prologue per I/O on each side,
 * not three (~25 Ir an I/O at 16 in flight).
 */
static inline __attribute__((always_inline)) int
p9b_send_one(struct p9b *p, struct p9b_io *pio, unsigned int k,
	     unsigned int flags)
{
	struct bench_io *io = pio->io;
	struct p9b_job *pj = io->job->priv;
	struct p9b_sess *s = pj->s;
	struct p9b_part *pt = &pio->part[k];
	size_t off = (size_t)k * pj->chunk;
	uint32_t len = io->len - (uint32_t)off;
	unsigned int pf = flags & BENCH_SUBMIT_NOWAIT ? LX_CALL_NOWAIT : 0;
	void *buf = (char *)io->buf + off;
	int ret;

	if (len > pj->chunk)
		len = pj->chunk;
	pt->pio = pio;
	pthread_rwlock_rdlock(&s->lock);
	pt->gen = s->gen;
	if (io->op == BENCH_OP_GETATTR || io->op == BENCH_OP_FSYNC) {
		ret = p9b_send_meta(p, pio, s->c, pj->fid, pf);
		goto out_unlock;
	}
	if (p->alloc == P9B_ALLOC_MALLOC) {
		/* zeroed here only: the fcall is ~300 bytes, ~40 Ir a part */
		struct lx_p9_fcall tx = {0};

		tx.type = io->op == BENCH_OP_WRITE ? LX_P9_TWRITE : LX_P9_TREAD;
		tx.u.twrite.fid = pj->fid; /* tread shares the layout */
		tx.u.twrite.offset = io->offset + off;
		tx.u.twrite.count = len;
		tx.u.twrite.data = buf;
		ret = p9b_build(p, pt, &tx,
				io->op == BENCH_OP_WRITE ? buf : NULL, len);
		if (ret)
			goto out_unlock;
		buf = io->op == BENCH_OP_WRITE ?
			      (char *)pt->mtx + P9B_TWRITE_HDR :
			      (char *)pt->mrx + P9B_RREAD_HDR;
	}
	pt->call.done = p9b_part_done;
	pt->call.arg = pt;
	pt->call.owner = io->owner;
	pt->call.flags = pf;
	if (io->op == BENCH_OP_WRITE)
		ret = lx_p9_write_async(s->c, &pt->call, pj->fid,
					io->offset + off, len, buf);
	else
		ret = lx_p9_read_async(s->c, &pt->call, pj->fid,
				       io->offset + off, len, buf);
	if (ret)
		p9b_free_bufs(pt);
out_unlock:
	pthread_rwlock_unlock(&s->lock);
	return ret;
}

/*
 * Send parts pio->next.. of @pio.  The caller holds the I/O's hold; the
 * last part inherits it, so once that part is out @pio may complete (and
 * be resubmitted) at any moment and is not touched again.  A part that
 * cannot start because the session is gone ends the sending: the parts
 * out come back, and then the whole I/O goes to the helper to be sent
 * again.
 * Return: 0; or, only when no part had been sent (part 0 failed, not for
 * a lost session), the error, and nothing is in flight.
 */
static int p9b_send_parts(struct p9b *p, struct p9b_io *pio, unsigned int flags,
			  bool in_submit)
{
	unsigned int k = pio->next, n = pio->nparts;
	int ret;

	for (; k < n; k++) {
		bool last = k + 1 == n;

		if (!last)
			atomic_fetch_add_explicit(&pio->pending, 1,
						  memory_order_relaxed);
		ret = p9b_send_one(p, pio, k, flags);
		if (!ret)
			continue;
		if (!last)
			atomic_fetch_sub_explicit(&pio->pending, 1,
						  memory_order_relaxed);
		if (p9b_sess_lost(p, ret)) {
			p9b_part_status(&pio->part[k], ret);
			p9b_put(pio, in_submit);
			return 0;
		}
		if (k == 0)
			return ret;
		if (ret == -EBUSY && (flags & BENCH_SUBMIT_NOWAIT)) {
			pio->next = k; /* the helper sends the rest */
			p9b_defer(p, pio, P9B_D_SEND);
			return 0;
		}
		/* the parts that are out complete; the I/O fails */
		p9b_set_status(pio, ret);
		p9b_put(pio, in_submit);
		return 0;
	}
	return 0;
}

/* Start sending @pio from its first part, nothing of it in flight. */
static inline __attribute__((always_inline)) int
p9b_start(struct p9b *p, struct p9b_io *pio, unsigned int flags, bool in_submit)
{
	pio->next = 0;
	atomic_store_explicit(&pio->status, 0, memory_order_relaxed);
	atomic_store_explicit(&pio->bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&pio->lost, false, memory_order_relaxed);
	atomic_store_explicit(&pio->pending, 1, memory_order_relaxed);
	return p9b_send_parts(p, pio, flags, in_submit);
}

int p9b_submit(void *priv, struct bench_io *io, unsigned int flags)
{
	struct p9b *p = priv;
	struct p9b_io *pio = io->priv;
	struct p9b_job *pj = io->job->priv;
	unsigned int n = 1;
	int ret;

	pio->io = io;
	pio->p = p;
	if (io->op == BENCH_OP_READ || io->op == BENCH_OP_WRITE)
		n = p9b_parts_for(io->len, pj->chunk);
	else if (io->op != BENCH_OP_GETATTR && io->op != BENCH_OP_FSYNC)
		return -EOPNOTSUPP;
	if (n > P9B_MAX_PARTS)
		return -EFBIG; /* job_open() rules this out */
	if (n > 1)
		atomic_fetch_add_explicit(&p->split_ios, 1,
					  memory_order_relaxed);
	pio->nparts = n;
	pio->resends = 0;
	pio->early_losses = 0;
	atomic_store_explicit(&pio->inflight, true, memory_order_relaxed);
	ret = p9b_start(p, pio, flags, true);
	if (ret)
		atomic_store_explicit(&pio->inflight, false,
				      memory_order_relaxed);
	return ret;
}

/*
 * --iodepth 1: a read or write of one message as a synchronous call on
 * the job's thread (sendmsg and one blocking recv, the library's
 * own-reply path), where submit() would have the receive thread wake on
 * epoll for the reply.  Only the plain case: the pooled buffers, one
 * message, a session in place, and a job alone on its session; anything
 * else, and a session lost during the call, goes through submit()
 * (-EAGAIN), which knows how to split, recover and resend.
 *
 * Alone, because on a session several jobs share (ior-32b: 32 jobs, one
 * connection) synchronous callers cost more than they save: one thread
 * reads the socket and every other caller sleeps on its request's futex
 * until woken with its reply (about 2.4 futex calls a Twrite), and each
 * thread sends its own message, so sends do not batch (0.8 sendmsg a
 * Twrite).  Submitted, the same I/Os complete on the receive thread,
 * which resubmits the next and flushes them in batches (under 0.01
 * futex and about 0.09 sendmsg a Twrite), as --alloc malloc always did.
 * Job i is on session i mod nconnect, so session k has more than one
 * job when k + nconnect < numjobs; in caller mode every job has its own.
 */
int p9b_run_sync(void *priv, struct bench_io *io, int *status, size_t *bytes)
{
	struct p9b *p = priv;
	struct p9b_job *pj = io->job->priv;
	struct p9b_sess *s = pj->s;
	uint32_t n = 0;
	int ret;

	if ((io->op != BENCH_OP_READ && io->op != BENCH_OP_WRITE) ||
	    p->alloc != P9B_ALLOC_POOL || io->len > pj->chunk ||
	    (!p->caller && s->index + p->nc < p->cfg->numjobs))
		return -EAGAIN;
	pthread_rwlock_rdlock(&s->lock);
	if (io->op == BENCH_OP_WRITE)
		ret = lx_p9_write(s->c, pj->fid, io->offset, io->len, io->buf,
				  &n);
	else
		ret = lx_p9_read(s->c, pj->fid, io->offset, io->len, io->buf,
				 &n);
	pthread_rwlock_unlock(&s->lock);
	if (ret && p9b_sess_lost(p, ret))
		return -EAGAIN;
	if (!ret)
		p9b_sess_answered(p, s);
	*status = ret;
	*bytes = ret ? 0 : n;
	return 0;
}

/* the message an I/O of @io's kind starts with */
static const char *p9b_call_name(const struct bench_io *io)
{
	switch (io->op) {
	case BENCH_OP_WRITE:
		return "Twrite";
	case BENCH_OP_GETATTR:
		return "Tgetattr";
	case BENCH_OP_FSYNC:
		return "Tfsync";
	default:
		return "Tread";
	}
}

/*
 * The session @pio was lost on is re-established (or was already) and
 * the whole I/O is sent again, allowed to block; or it fails with the
 * error recovery gave up with.  Helper thread (caller mode: the job's).
 */
static void p9b_resend(struct p9b *p, struct p9b_io *pio)
{
	struct p9b_job *pj = pio->io->job->priv;
	int ret = atomic_load_explicit(&pio->lost_err, memory_order_relaxed);

	unsigned int gen =
		atomic_load_explicit(&pio->lost_gen, memory_order_relaxed);

	/* --hard: as many sendings as it takes (the session's backoff
	 * keeps them apart) */
	if (++pio->resends < P9B_MAX_RESENDS || p->cfg->hard)
		ret = p9b_sess_recover(p, pj->s, gen, p9b_call_name(pio->io));
	/* soft: an I/O whose sessions the server keeps dropping early is
	 * not going to be answered (the RPC layer's early-loss rule) */
	if (!ret && !p->cfg->hard && p9b_sess_was_early(pj->s, gen) &&
	    ++pio->early_losses >= P9B_EARLY_LOSS_LIMIT)
		ret = -ECONNRESET;
	if (ret) {
		p9b_set_status(pio, ret);
		p9b_complete(pio);
		return;
	}
	atomic_fetch_add_explicit(&p->resubmitted, 1, memory_order_relaxed);
	ret = p9b_start(p, pio, 0, false);
	if (ret) {
		/* nothing went out: not a lost session, a hard error */
		p9b_set_status(pio, ret);
		p9b_complete(pio);
	}
}

/* Send the rest of a deferred I/O (allowed to block), complete one whose
 * last part finished while submit() still held it, or send again one
 * whose session was lost. */
static void p9b_run_deferred(struct p9b *p, struct p9b_io *pio)
{
	switch (pio->dkind) {
	case P9B_D_SEND:
		p9b_send_parts(p, pio, 0, false);
		break;
	case P9B_D_COMPLETE:
		p9b_complete(pio);
		break;
	case P9B_D_RESEND:
		p9b_resend(p, pio);
		break;
	}
}

/* The helper thread: runs the deferred I/Os, and under --hard watches
 * the sessions. */
static void *p9b_helper_main(void *arg)
{
	struct p9b *p = arg;
	/* --hard: every timeo (default 30 s), a look for sessions whose
	 * calls wait without any reply (p9b_sess_watch()) */
	uint64_t window = p9b_watch_window(p);
	struct p9b_io *pio;
	struct timespec ts;

	pthread_mutex_lock(&p->dlock);
	for (;;) {
		while (!p->dq && !p->dstop) {
			if (!p->cfg->hard) {
				pthread_cond_wait(&p->dcond, &p->dlock);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000; /* a tenth of a second */
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&p->dcond, &p->dlock, &ts) ==
			    ETIMEDOUT) {
				pthread_mutex_unlock(&p->dlock);
				p9b_sess_watch(p, window);
				pthread_mutex_lock(&p->dlock);
			}
		}
		pio = p->dq;
		if (!pio)
			break;
		p->dq = pio->dnext;
		pthread_mutex_unlock(&p->dlock);
		p9b_run_deferred(p, pio);
		pthread_mutex_lock(&p->dlock);
	}
	pthread_mutex_unlock(&p->dlock);
	return NULL;
}

int p9b_job_service(void *priv, struct bench_job_info *job,
		    uint64_t deadline_ns)
{
	struct p9b *p = priv;
	struct p9b_sess *s = &p->sess[p->nc + job->index];
	struct p9b_io *pio = s->own_dq, *next;
	uint64_t now;
	int n = 0;

	/* what this thread's submits and completions left: taken whole,
	 * so what running it defers again waits for the next call */
	s->own_dq = NULL;
	for (; pio; pio = next, n++) {
		next = pio->dnext;
		p9b_run_deferred(p, pio);
	}
	if (n)
		return n; /* the engine looks at its slots before waiting */
	if (p->cfg->hard) {
		now = bench_now_ns();
		if (now >= s->watch_next) {
			p9b_sess_watch_one(p, s, now, p9b_watch_window(p));
			s->watch_next = now + 100000000ull;
		}
	}
	/* s->c read now: a recovery replaces it */
	return lx_p9_loop_run(s->c, NULL, 1, deadline_ns);
}

int p9b_helper_start(struct p9b *p)
{
	int ret;

	if (p->caller)
		return 0; /* each job's thread does its work */
	pthread_mutex_init(&p->dlock, NULL);
	pthread_cond_init(&p->dcond, NULL);
	p->dinit = true;
	ret = -pthread_create(&p->dthread, NULL, p9b_helper_main, p);
	if (ret)
		return ret;
	p->dstarted = true;
	return 0;
}

void p9b_helper_stop(struct p9b *p)
{
	if (p->dstarted) {
		pthread_mutex_lock(&p->dlock);
		p->dstop = true;
		pthread_cond_signal(&p->dcond);
		pthread_mutex_unlock(&p->dlock);
		pthread_join(p->dthread, NULL);
		p->dstarted = false;
	}
	if (p->dinit) {
		pthread_cond_destroy(&p->dcond);
		pthread_mutex_destroy(&p->dlock);
		p->dinit = false;
	}
}
