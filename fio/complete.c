/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The completion source: how a finished I/O reaches fio's job thread, in
 * either of libxprt's modes.  lxfio_piece_done() counts the I/O's pieces
 * down and the last one puts the io_u on a ring; getevents() takes them
 * off with lxfio_cq_wait().  The rest of the engine does not know which
 * mode runs.
 *
 * Caller-driven (TCP): the library starts no thread.  The job's thread
 * runs the client: commit() services it once so the batch leaves
 * (lxfio_cq_sent()), and lxfio_cq_wait() services it until @min I/Os are
 * on the ring or fio's deadline (the library's run-until call).  done()
 * runs inside those calls, or inside a synchronous call of the job's, on
 * the same thread: the ring needs no lock.
 *
 * Threaded (RDMA, zerocopy, or libxprt_mode=threaded): done() runs on a
 * receive thread of the client; the last piece pushes under a mutex and
 * signals the condition variable lxfio_cq_wait() waits on with fio's
 * timeout.
 */
#include <errno.h>
#include <stdlib.h>

#include "lxfio.h"

/* the mode @c is created in: what the job asked, auto as said above */
enum lx_xprt_mode lxfio_xprt_mode(const struct lxfio_conn *c, bool rdma,
				  bool zerocopy)
{
	switch (c->want) {
	case LXFIO_MODE_CALLER:
		return LX_XPRT_MODE_CALLER;
	case LXFIO_MODE_THREADED:
		return LX_XPRT_MODE_THREADED;
	case LXFIO_MODE_AUTO:
		break;
	}
	return rdma || zerocopy ? LX_XPRT_MODE_THREADED : LX_XPRT_MODE_CALLER;
}

/* @c: the job's client, made already; its mode chooses the ring's */
int lxfio_cq_init(struct lxfio_cq *q, unsigned int cap, struct lxfio_conn *c)
{
	pthread_condattr_t ca;
	int ret;

	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = cap;
	q->head = q->count = 0;
	q->conn = c->caller ? c : NULL;
	if (q->conn)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	ret = pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (ret)
		goto out_free;
	ret = pthread_mutex_init(&q->lock, NULL);
	if (ret)
		goto out_cond;
	return 0;
out_cond:
	pthread_cond_destroy(&q->cond);
out_free:
	free(q->ring);
	q->ring = NULL;
	return -ret;
}

void lxfio_cq_destroy(struct lxfio_cq *q)
{
	if (!q->ring)
		return;
	if (!q->conn) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
	}
	free(q->ring);
	q->ring = NULL;
}

static void cq_add(struct lxfio_cq *q, void *io_u)
{
	q->ring[(q->head + q->count) % q->cap] = io_u;
	q->count++;
}

/*
 * The job's thread (caller-driven) or a receive thread (threaded).  The
 * ring holds one entry per io_u fio has, so it never overflows: an io_u
 * is on it at most once.
 */
void lxfio_cq_push(struct lxfio_cq *q, void *io_u)
{
	if (q->conn) {
		cq_add(q, io_u);
		return;
	}
	pthread_mutex_lock(&q->lock);
	cq_add(q, io_u);
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/*
 * The job's thread, once commit() started a batch: caller-driven, one
 * service without waiting sends it (a call started outside the service
 * only queues); threaded, the client's own threads send it.
 */
void lxfio_cq_sent(struct lxfio_cq *q)
{
	if (q->conn)
		q->conn->proto->run(q->conn, 1, 1); /* a deadline passed */
}

/* the absolute CLOCK_MONOTONIC time @t from now */
static struct timespec cq_deadline(const struct timespec *t)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += t->tv_sec;
	end.tv_nsec += t->tv_nsec;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	return end;
}

/*
 * Caller-driven: run the client until @min I/Os are on the ring or @t
 * passed; with @min 0, one service without waiting.  Each I/O is one
 * request or more, so asking the library for as many requests as I/Os
 * are missing never waits past the I/O that makes @min.
 * Return: 0, or the library's error when it failed.
 */
static int cq_run(struct lxfio_cq *q, unsigned int min,
		  const struct timespec *t)
{
	uint64_t deadline = 1; /* passed: a single service */
	int ret;

	if (min && t) {
		struct timespec end = cq_deadline(t);

		deadline = (uint64_t)end.tv_sec * 1000000000u +
			   (uint64_t)end.tv_nsec;
	} else if (min) {
		deadline = 0; /* none */
	}
	do {
		ret = q->conn->proto->run(
			q->conn, min > q->count ? min - q->count : 1, deadline);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret < 0)
			return ret;
	} while (q->count < min);
	return 0;
}

/* threaded: wait on the condition until @min I/Os are on the ring or @t */
static void cq_sleep(struct lxfio_cq *q, unsigned int min,
		     const struct timespec *t)
{
	struct timespec end;

	if (t)
		end = cq_deadline(t);
	while (q->count < min) {
		if (!t)
			pthread_cond_wait(&q->cond, &q->lock);
		else if (pthread_cond_timedwait(&q->cond, &q->lock, &end) ==
			 ETIMEDOUT)
			break;
	}
}

/*
 * The job's thread: until @min I/Os finished or @t (relative, NULL: no
 * limit) passed, then take up to @max of them into @out.
 * Return: how many were taken; a negative errno when the caller-driven
 * client failed and none were.
 */
int lxfio_cq_wait(struct lxfio_cq *q, void **out, unsigned int min,
		  unsigned int max, const struct timespec *t)
{
	unsigned int n = 0;
	int ret = 0;

	if (q->conn) {
		if (q->count < min || !min)
			ret = cq_run(q, min, t);
	} else {
		pthread_mutex_lock(&q->lock);
		cq_sleep(q, min, t);
	}
	while (n < max && q->count) {
		out[n++] = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
	if (!q->conn)
		pthread_mutex_unlock(&q->lock);
	return n || ret >= 0 ? (int)n : ret;
}

/* done() of every piece: the last one hands the io_u over */
void lxfio_piece_done(struct lx_call *call, int status, void *arg)
{
	struct lxfio_piece *p = arg;
	struct lxfio_io *io = p->io;
	int zero = 0;

	p->status = status;
	if (status < 0)
		__atomic_compare_exchange_n(&io->error, &zero, -status, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&io->done, call->count, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&io->left, 1, __ATOMIC_ACQ_REL) == 0)
		lxfio_cq_push(io->cq, io->io_u);
}
