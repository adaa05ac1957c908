/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The completion source: how a finished I/O reaches fio's job thread.
 *
 * libxprt runs in its threaded mode here: done() runs on a receive
 * thread of the client.  lxfio_piece_done() counts the I/O's pieces down
 * and the last one puts the io_u on a ring under a mutex; getevents()
 * waits on the condition variable with fio's timeout.
 *
 * This file is the seam for the caller-driven mode, where the job's
 * thread runs the client itself: lxfio_cq_wait() then becomes "service
 * the client until @min I/Os are on the ring or the deadline" (the
 * library's run-until call) and the ring needs no lock, done() running on
 * the same thread; lxfio_cq_push() and the callers stay as they are.
 */
#include <errno.h>
#include <stdlib.h>

#include "lxfio.h"

int lxfio_cq_init(struct lxfio_cq *q, unsigned int cap)
{
	pthread_condattr_t ca;
	int ret;

	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = cap;
	q->head = q->count = 0;
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
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q->ring);
	q->ring = NULL;
}

/*
 * Any thread.  The ring holds one entry per io_u fio has, so it never
 * overflows: an io_u is on it at most once.
 */
void lxfio_cq_push(struct lxfio_cq *q, void *io_u)
{
	pthread_mutex_lock(&q->lock);
	q->ring[(q->head + q->count) % q->cap] = io_u;
	q->count++;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/*
 * The job's thread: wait until @min I/Os finished or @t (relative, NULL:
 * no limit) passed, then take up to @max of them into @out.
 * Return: how many were taken.
 */
int lxfio_cq_wait(struct lxfio_cq *q, void **out, unsigned int min,
		  unsigned int max, const struct timespec *t)
{
	struct timespec end;
	unsigned int n = 0;

	if (t) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += t->tv_sec;
		end.tv_nsec += t->tv_nsec;
		if (end.tv_nsec >= 1000000000L) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&q->lock);
	while (q->count < min) {
		if (!t)
			pthread_cond_wait(&q->cond, &q->lock);
		else if (pthread_cond_timedwait(&q->cond, &q->lock, &end) ==
			 ETIMEDOUT)
			break;
	}
	while (n < max && q->count) {
		out[n++] = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
	pthread_mutex_unlock(&q->lock);
	return (int)n;
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
