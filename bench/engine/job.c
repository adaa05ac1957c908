/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O loop: completions and the job thread.
 *
 * A slot is always in exactly one of four places: in the back-end (between
 * a successful submit and its bench_io_done()), in the hand-off list, in
 * the hands of the thread that is drawing or submitting it, or idle.
 * j->active counts the slots that are not idle; only the job thread raises
 * it (while priming), so once priming is over and active drops to zero the
 * job has drained for good.
 *
 * Completion path (bench_io_done_at(), on back-end threads, or on the job
 * thread inside job_service() with --libxprt-mode=caller; never blocks):
 *   1. latency = t_done - t_submit goes into the job's histogram for the
 *      direction when the phase is measured and the I/O completed after
 *      the ramp and before the end (atomic adds, no lock) - whenever it
 *      was submitted, as fio counts: at a queue deeper than the run is
 *      long (16 jobs x 1,024 at 1,700 I/Os per second is 10 s of
 *      latency) an I/O submitted after the ramp never completes inside a
 *      5 s window, and counting only those reported about 1% of the
 *      rate;
 *   2. --verify: a read is checked against the block's expected tag; the
 *      block's claim is released (a write publishes its new tag);
 *   3. unless the job is stopping, the slot draws its next operation and
 *      is resubmitted with BENCH_SUBMIT_NOWAIT; -EBUSY pushes it
 *      on the job's lock-free hand-off list and wake the job thread, which
 *      submits it again allowed to block;
 *   4. otherwise the slot goes idle; the last one wakes the job thread.
 *
 * Wake-ups use a futex on a sequence word: the job thread reads the word,
 * looks for work, and sleeps only if the word is unchanged, so a wake
 * between its check and its sleep is never lost.  Wakes happen only on a
 * hand-off and at the end, not per operation.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_int.h"

void bench_futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
		NULL, 0);
}

void bench_futex_wait(_Atomic uint32_t *w, uint32_t val, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ull),
		.tv_nsec = (long)(timeout_ns % 1000000000ull),
	};

	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, &ts, NULL,
		0);
}

static void job_wake(struct bench_job *j)
{
	atomic_fetch_add_explicit(&j->wake, 1, memory_order_release);
	bench_futex_wake(&j->wake);
}

static bool job_stopping(const struct bench_job *j)
{
	return atomic_load_explicit(&j->stop, memory_order_relaxed) ||
	       atomic_load_explicit(&j->b->abort, memory_order_relaxed);
}

/* Record the first error of the job; every error stops the whole run. */
static bool claim_err(struct bench_job *j)
{
	bool expected = false;

	atomic_fetch_add_explicit(&j->nerrors, 1, memory_order_relaxed);
	atomic_store_explicit(&j->b->abort, true, memory_order_relaxed);
	/* acq_rel: the winner's err fields are read after thread join */
	return atomic_compare_exchange_strong_explicit(
		&j->err_claimed, &expected, true, memory_order_acq_rel,
		memory_order_relaxed);
}

/**
 * bench_job_fail() - note a failed I/O of @j and stop the run
 * Context: any thread; never blocks (the message is printed after the run).
 */
void bench_job_fail(struct bench_job *j, struct bench_slot *s, int status,
		    const char *what)
{
	if (!claim_err(j))
		return;
	j->err.status = status;
	j->err.op = s->io.op;
	j->err.offset = s->io.offset;
	j->err.len = s->io.len;
	j->err.what = what;
}

/**
 * bench_job_fail_rate() - @j missed --rate_min or --rate_iops_min in the
 * direction of @op (fio: the job exits with EIO, "check_min_rate"); the
 * caller has said so
 * Context: the main thread.
 */
void bench_job_fail_rate(struct bench_job *j, enum bench_op op)
{
	if (!claim_err(j))
		return;
	j->err.status = -EIO;
	j->err.op = op;
	j->err.offset = 0;
	j->err.len = 0;
	j->err.what = "check_min_rate";
}

static void job_mismatch(struct bench_job *j, struct bench_slot *s, long at,
			 uint8_t expected, uint8_t got)
{
	atomic_fetch_add_explicit(&j->verify_errors, 1, memory_order_relaxed);
	if (!claim_err(j))
		return;
	j->err.status = -EILSEQ;
	j->err.op = s->io.op;
	j->err.offset = s->io.offset;
	j->err.len = s->io.len;
	j->err.what = "verify";
	j->err.bad_off = s->io.offset + (uint64_t)at;
	j->err.expected = expected;
	j->err.got = got;
	j->err.tag = s->old_state;
}

static void slot_idle(struct bench_job *j, uint64_t t)
{
	uint64_t cur =
		atomic_load_explicit(&j->t_drained, memory_order_relaxed);

	/* the latest completion time, not the last writer's */
	while (t > cur && !atomic_compare_exchange_weak_explicit(
				  &j->t_drained, &cur, t, memory_order_relaxed,
				  memory_order_relaxed))
		;
	if (atomic_fetch_sub_explicit(&j->active, 1, memory_order_acq_rel) == 1)
		job_wake(j);
}

static void hand_off(struct bench_job *j, struct bench_slot *s)
{
	struct bench_slot *head =
		atomic_load_explicit(&j->deferred, memory_order_relaxed);

	do {
		s->next = head;
	} while (!atomic_compare_exchange_weak_explicit(&j->deferred, &head, s,
							memory_order_release,
							memory_order_relaxed));
	atomic_fetch_add_explicit(&j->handoffs, 1, memory_order_relaxed);
	job_wake(j);
}

/*
 * fio's rate_iops, rate and thinktime: when the slot's next I/O may go.
 * A job at its rate takes the next slot of time per direction, as long
 * as the stricter of the two rates asks for this I/O's size.  The slots
 * follow each other from the direction's first I/O of the phase, as
 * fio's do from the job's start: an I/O whose slot is already past goes
 * at once, and so do the ones after it until the job is back on its
 * schedule - a stall (a slow I/O, a job thread scheduled late on a busy
 * machine) is made up for by a burst rather than lost, so the rate holds
 * over the run.  (Each slot used to start at the later of the previous
 * one's end and now: every late wake-up was lost for good, and a loaded
 * machine ran below the rate.)  thinktime waits after every completion.
 * Return: 0 (now) or the CLOCK_MONOTONIC time to wait for.
 */
static uint64_t pace(struct bench_job *j, struct bench_slot *s, uint64_t now)
{
	const struct bench_opts *o = &j->b->o;
	uint64_t due = 0, cur, next, iv;
	unsigned int d;

	if (j->b->phase.kind != PH_MAIN)
		return 0;
	if (o->thinktime_ns)
		due = now + o->thinktime_ns;
	d = s->io.op == BENCH_OP_WRITE;
	if ((o->rate_iops[d] || o->rate_bps[d]) && s->io.op <= BENCH_OP_WRITE) {
		iv = o->rate_iops[d] ? 1000000000ull / o->rate_iops[d] : 0;
		if (o->rate_bps[d]) {
			uint64_t bw = (uint64_t)((double)s->io.len * 1e9 /
						 (double)o->rate_bps[d]);

			if (bw > iv)
				iv = bw;
		}
		cur = atomic_load_explicit(&j->rate_next[d],
					   memory_order_relaxed);
		do {
			uint64_t gap = iv;

			/* fio's rate_process=poisson: exponential gaps of
			 * that mean (a hash of the previous slot of time,
			 * so every I/O draws its own) */
			if (o->rate_poisson && iv) {
				double u = (double)(bench_mix64(j->key ^ cur) >>
						    11) *
					   0x1p-53;

				gap = (uint64_t)(-log(u > 0 ? u : 0x1p-53) *
						 (double)iv);
			}
			next = (cur ? cur : now) + gap; /* 0: the first */
		} while (!atomic_compare_exchange_weak_explicit(
			&j->rate_next[d], &cur, next, memory_order_relaxed,
			memory_order_relaxed));
		if (cur > now && cur > due)
			due = cur;
	}
	return due > now ? due : 0;
}

/* hand @s to the job thread until its time (never blocks) */
static void delay(struct bench_job *j, struct bench_slot *s, uint64_t due)
{
	struct bench_slot *head =
		atomic_load_explicit(&j->delayed, memory_order_relaxed);

	s->not_before = due;
	do {
		s->next = head;
	} while (!atomic_compare_exchange_weak_explicit(&j->delayed, &head, s,
							memory_order_release,
							memory_order_relaxed));
	job_wake(j);
}

/*
 * @s's resubmission from a completion failed with @ret: -EBUSY hands it
 * to the job thread (which may block), anything else fails the job; @t:
 * the completion time.  Out of line: see bench_io_done().
 */
static __attribute__((noinline)) void resubmit_failed(struct bench_slot *s,
						      int ret, uint64_t t)
{
	struct bench_job *j = s->job;

	if (ret == -EBUSY) {
		hand_off(j, s);
		return;
	}
	bench_job_fail(j, s, ret, "submit");
	bench_release_block(j, s, BLK_UNSENT);
	slot_idle(j, t);
}

/*
 * @t: the completion time; @now: the time now when the caller just read
 * the clock (t itself), or 0 to read it before resubmitting.  One clock
 * read per I/O instead of two: the next I/O's submission time is then its
 * predecessor's completion, so its latency includes drawing it (tens of
 * nanoseconds), the way fio's start time precedes its io_u's preparation.
 * @sync: the job thread's synchronous loop (run_sync()): the next I/O is
 * drawn and stamped but not submitted.  Return: true when it is ready
 * (sync only); false when the slot went idle (or was submitted).
 *
 * Inlined into each of its three callers (constant @now and @sync fold
 * away; no call and no second prologue per completion).
 */
static inline __attribute__((always_inline)) bool
io_done(struct bench_io *io, int status, size_t bytes, uint64_t t, uint64_t now,
	bool sync)
{
	struct bench_slot *s = bench_container_of(io, struct bench_slot, io);
	struct bench_job *j = s->job;
	struct bench *b = j->b;
	const struct bench_phase *ph = &b->phase;
	int ret;

	if (status >= 0 && io->op <= BENCH_OP_WRITE && bytes != io->len) {
		bench_job_fail(j, s, -EIO,
			       bytes < io->len ? "short transfer" :
						 "transfer longer than asked");
		status = -EIO;
	} else if (status < 0) {
		bench_job_fail(j, s, status, "I/O");
	}
	if (status < 0) {
		bench_release_block(j, s, BLK_FAILED);
		goto idle;
	}
	if (ph->measured && t >= ph->t_measure && t <= ph->t_end) {
		enum bench_dir d = bench_op_dir(io->op);

		bench_hist_record(j->hist[d],
				  t > io->t_submit ? t - io->t_submit : 0);
		if (j->flog) /* fio's per-I/O logs */
			bench_flog_record(j->flog, t,
					  t > io->t_submit ? t - io->t_submit :
							     0,
					  d, io->len, io->offset);
		if (io->len && d != DIR_OTHER)
			atomic_fetch_add_explicit(&j->bytes[d], io->len,
						  memory_order_relaxed);
	}
	if (s->blk != UINT64_MAX) {
		if (io->op == BENCH_OP_READ && s->old_state) {
			uint8_t e = 0, g = 0;
			long at = bench_pattern_check(io->buf, io->offset,
						      io->len, s->old_state, &e,
						      &g);

			if (at >= 0) {
				job_mismatch(j, s, at, e, g);
				bench_release_block(j, s, BLK_DONE);
				goto idle;
			}
		}
		bench_release_block(j, s, BLK_DONE);
	}
	if (job_stopping(j) || !bench_draw(j, s))
		goto idle;
	if (!now)
		now = bench_now_ns();
	if (now >= ph->t_end) {
		atomic_store_explicit(&j->stop, true, memory_order_relaxed);
		bench_release_block(j, s, BLK_UNSENT);
		goto idle;
	}
	if (j->paced) {
		uint64_t due = pace(j, s, now);

		if (due) {
			delay(j, s, due);
			return false;
		}
	}
	io->t_submit = now;
	if (sync)
		return true;
	ret = b->ops->submit(b->priv, io, BENCH_SUBMIT_NOWAIT);
	if (ret)
		resubmit_failed(s, ret, t);
	return false;
idle:
	slot_idle(j, t);
	return false;
}

/* io_done() for the completions bench_io_done() does not take plainly,
 * completed at @t; io_done_any() reads the clock for it */
static __attribute__((noinline)) void io_done_t(struct bench_io *io, int status,
						size_t bytes, uint64_t t)
{
	io_done(io, status, bytes, t, t, false);
}

static __attribute__((noinline)) void io_done_any(struct bench_io *io,
						  int status, size_t bytes)
{
	io_done_t(io, status, bytes, bench_now_ns());
}

/*
 * A completion of a plain job (j->plain: the plain draw, no pacing, no
 * per-I/O log, hence no verify either) that moved its whole transfer
 * before the end time takes io_done()'s steps less the options the job
 * does not use: the latency and bytes when measured, the draw, the
 * resubmission; the rest goes to io_done().  Nothing but @s lives across
 * a call (the clock, a new pass of the draw, submit()), and every other
 * call is in tail position: two callee-saved registers instead of six.
 */
void bench_io_done(struct bench_io *io, int status, size_t bytes)
{
	struct bench_slot *s = bench_container_of(io, struct bench_slot, io);
	const struct bench_phase *ph;
	struct bench_job *j;
	uint64_t t;
	int ret;

	if (!s->job->plain || status < 0 || bytes != io->len) {
		io_done_any(io, status, bytes);
		return;
	}
	t = bench_now_ns();
	j = s->job;
	ph = &j->b->phase;
	if (t >= ph->t_end) { /* io_done() stops the job */
		io_done_t(io, 0, io->len, t);
		return;
	}
	if (t >= ph->t_measure) {
		bench_hist_record(j->hist[j->plain_dir],
				  t > io->t_submit ? t - io->t_submit : 0);
		atomic_fetch_add_explicit(&j->bytes[j->plain_dir], io->len,
					  memory_order_relaxed);
	}
	/* the next I/O's submission time (see io_done()); it also keeps t
	 * for slot_idle() in memory rather than in a register */
	io->t_submit = t;
	if (job_stopping(j) || !bench_draw_plain(s)) {
		slot_idle(s->job, io->t_submit);
		return;
	}
	j = s->job;
	ret = j->b->ops->submit(j->b->priv, io, BENCH_SUBMIT_NOWAIT);
	if (ret)
		resubmit_failed(s, ret, io->t_submit);
}

void bench_io_done_at(struct bench_io *io, int status, size_t bytes, uint64_t t)
{
	io_done(io, status, bytes, t, 0, false);
}

/* Submit from the job thread, where blocking is allowed. */
static void submit_blocking(struct bench_job *j, struct bench_slot *s)
{
	struct bench *b = j->b;
	int ret;

	for (;;) {
		s->io.t_submit = bench_now_ns();
		ret = b->ops->submit(b->priv, &s->io, 0);
		if (!ret)
			return;
		if (ret != -EBUSY || job_stopping(j))
			break;
		/* a back-end that cannot wait: poll gently */
		usleep(50);
	}
	if (ret != -EBUSY)
		bench_job_fail(j, s, ret, "submit");
	bench_release_block(j, s, BLK_UNSENT);
	slot_idle(j, bench_now_ns());
}

static struct bench_slot *job_slot(struct bench_job *j, unsigned int i)
{
	return (struct bench_slot *)(void *)(j->slots_mem +
					     (size_t)i * j->slot_stride);
}

/*
 * One I/O at a time, each done on this thread by the back-end's
 * run_sync() (see struct bench_backend_ops): the completion path of
 * io_done() without a resubmission, the next I/O drawn by it.  An I/O
 * the back-end cannot do that way is submitted, and the job goes on the
 * usual way (completions resubmitting).
 */
static void run_sync_loop(struct bench_job *j)
{
	struct bench *b = j->b;
	struct bench_slot *s = job_slot(j, 0);
	size_t bytes;
	int status;

	if (!bench_draw(j, s))
		return;
	atomic_fetch_add_explicit(&j->active, 1, memory_order_relaxed);
	s->io.t_submit = bench_now_ns();
	for (;;) {
		uint64_t t;

		if (b->ops->run_sync(b->priv, &s->io, &status, &bytes)) {
			submit_blocking(j, s);
			return;
		}
		t = bench_now_ns();
		if (!io_done(&s->io, status, bytes, t, t, true))
			return;
	}
}

/*
 * The slots waiting for their time (rate_iops, thinktime): those due go
 * now, the others stay on the job thread's own list.  Return: the
 * earliest time still waited for, or UINT64_MAX.
 */
static uint64_t run_delayed(struct bench_job *j, struct bench_slot **waiting)
{
	struct bench_slot *list, *s, *keep = NULL;
	uint64_t now = bench_now_ns(), first = UINT64_MAX;

	list = atomic_exchange_explicit(&j->delayed, NULL,
					memory_order_acquire);
	while (*waiting) { /* the ones kept from before */
		s = *waiting;
		*waiting = s->next;
		s->next = list;
		list = s;
	}
	while (list) {
		s = list;
		list = s->next;
		if (job_stopping(j) || now >= j->b->phase.t_end) {
			bench_release_block(j, s, BLK_UNSENT);
			slot_idle(j, now);
		} else if (s->not_before <= now) {
			submit_blocking(j, s);
		} else {
			s->next = keep;
			keep = s;
			if (s->not_before < first)
				first = s->not_before;
		}
	}
	*waiting = keep;
	return first;
}

static void run_handed_off(struct bench_job *j)
{
	struct bench_slot *list, *fifo = NULL, *s;

	list = atomic_exchange_explicit(&j->deferred, NULL,
					memory_order_acquire);
	while (list) { /* the stack is newest first: restore FIFO order */
		s = list;
		list = s->next;
		s->next = fifo;
		fifo = s;
	}
	while (fifo) {
		s = fifo;
		fifo = s->next;
		if (job_stopping(j)) {
			bench_release_block(j, s, BLK_UNSENT);
			slot_idle(j, bench_now_ns());
		} else {
			submit_blocking(j, s);
		}
	}
}

/*
 * --libxprt-mode=caller: the job thread services its clients instead of
 * sleeping, until a completion (which ran here) or @deadline.  Return:
 * false when the service failed (the job fails; what is still in flight
 * completes at the back-end's teardown).
 */
static bool job_service(struct bench_job *j, uint64_t deadline)
{
	struct bench *b = j->b;
	int ret = b->ops->job_service(b->priv, &j->info, deadline);

	if (ret >= 0 || ret == -ETIMEDOUT)
		return true;
	bench_job_fail(j, job_slot(j, 0), ret, "service");
	return false;
}

/**
 * bench_job_thread() - one job's thread for one phase
 *
 * Primes the phase's depth of slots, then sleeps until a hand-off, the
 * phase's end time or the drain - or, with --libxprt-mode=caller,
 * services the job's clients for that long, its completions running on
 * this thread; returns once no slot is in flight.
 */
void *bench_job_thread(void *arg)
{
	struct bench_job *j = arg;
	struct bench *b = j->b;
	const struct bench_phase *ph = &b->phase;
	unsigned int i, depth = ph->depth;
	struct bench_slot *waiting = NULL;
	uint64_t now, wait, due, first = UINT64_MAX;
	uint32_t seq;

	if (ph->kind == PH_MAIN && j->info.index == 0 && b->o.iodepth_first)
		depth = b->o.iodepth_first;
	if (depth > j->nslots)
		depth = j->nslots;
	if (depth == 1 && !j->paced && b->ops->run_sync && !job_stopping(j)) {
		run_sync_loop(j);
		depth = 0;
	}
	for (i = 0; i < depth && !job_stopping(j); i++) {
		struct bench_slot *s = job_slot(j, i);

		if (!bench_draw(j, s))
			break;
		atomic_fetch_add_explicit(&j->active, 1, memory_order_relaxed);
		due = j->paced && !j->b->o.thinktime_ns ?
			      pace(j, s, bench_now_ns()) :
			      0;
		if (due) {
			s->not_before = due;
			s->next = waiting;
			waiting = s;
			continue;
		}
		submit_blocking(j, s);
	}
	for (;;) {
		seq = atomic_load_explicit(&j->wake, memory_order_acquire);
		run_handed_off(j);
		if (j->paced)
			first = run_delayed(j, &waiting);
		now = bench_now_ns();
		if (now >= ph->t_end)
			atomic_store_explicit(&j->stop, true,
					      memory_order_relaxed);
		if (!atomic_load_explicit(&j->active, memory_order_acquire))
			break;
		wait = 1000000000ull;
		if (ph->t_end > now && ph->t_end - now < wait)
			wait = ph->t_end - now;
		if (first != UINT64_MAX)
			wait = first > now ? (first - now < wait ? first - now :
								   wait) :
					     0;
		if (b->cfg.xprt_mode != BENCH_XPRT_CALLER)
			bench_futex_wait(&j->wake, seq, wait);
		else if (!job_service(j, now + wait))
			break;
	}
	if (atomic_fetch_sub_explicit(&b->jobs_running, 1,
				      memory_order_acq_rel) == 1)
		bench_futex_wake(&b->jobs_running);
	return NULL;
}

/**
 * bench_jobs_call() - call a back-end hook (job_end, job_sync) for every
 * opened job, in index order
 * Context: the main thread, nothing in flight.
 * Return: 0, or the first hook's error (negative; later jobs are skipped).
 */
int bench_jobs_call(struct bench *b,
		    int (*hook)(void *priv, struct bench_job_info *job))
{
	unsigned int i;
	int ret;

	unsigned int k;

	for (i = 0; i < b->njobs; i++) {
		if (!b->jobs[i].opened)
			continue;
		for (k = 0; k < b->jobs[i].nopened; k++) {
			ret = hook(b->priv, bench_job_finfo(&b->jobs[i], k));
			if (ret)
				return ret < 0 ? ret : -EIO;
		}
	}
	return 0;
}
