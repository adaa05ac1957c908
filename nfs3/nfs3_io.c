// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Split I/O: one pread/pwrite larger than the server's rtmax/wtmax becomes
 * several READ/WRITE calls in flight together.
 *
 * An async split I/O (struct lx_nfs3_pio, owned by the caller) holds up to
 * LX_NFS3_PIO_MAX pieces, each with its own struct lx_call and result, so
 * nothing is allocated.  A counter starts at the number of pieces plus
 * one (the submitter's guard, dropped once every piece was started or
 * refused); the completion that takes it to zero assembles the outcome:
 * bytes done contiguously from the start up to the first short or failed
 * piece, like pread(2)/pwrite(2), and an error only when nothing was done.
 * The sync helpers (nfs3_io_sync()) wait for such an I/O with a condition
 * variable and loop over chunks of LX_NFS3_PIO_MAX pieces, re-issuing the
 * rest after a short piece.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "nfs3_int.h"
#include "xprt/blocks/util.h"

_Static_assert(offsetof(struct lx_nfs3_pio, call) == 0,
	       "a done() callback casts the call to its pio");

static void pio_complete(struct lx_nfs3_pio *io)
{
	size_t done = 0;
	unsigned int i;
	bool eof = false;
	int status = 0;
	uint32_t pstat = 0;

	for (i = 0; i < io->npieces_; i++) {
		struct lx_nfs3_pio_piece *p = &io->piece_[i];
		uint32_t got;

		if (p->status) {
			if (!done) {
				status = p->status;
				pstat = p->call.proto_status;
			}
			break;
		}
		got = io->write_ ? LX_XPRT_MIN(p->res.wr.count, p->count) :
				   LX_XPRT_MIN(p->res.rd.count, p->count);
		done += got;
		if (!io->write_ && p->res.rd.eof) {
			eof = true;
			break;
		}
		if (got < p->count)
			break;
	}
	io->eof = eof;
	io->call.count = (uint32_t)done;
	io->call.proto_status = pstat;
	io->call.res = NULL;
	lx_call_done(&io->call, status);
}

/* lx_call_cancel() of a split I/O: every piece still in flight. */
static int pio_cancel(struct lx_call *call)
{
	struct lx_nfs3_pio *io = (struct lx_nfs3_pio *)call;
	unsigned int i, n = io->npieces_;
	int ret = -EALREADY;

	for (i = 0; i < n && i < LX_NFS3_PIO_MAX; i++)
		if (!lx_call_cancel(&io->piece_[i].call))
			ret = 0;
	return ret;
}

static void pio_put(struct lx_nfs3_pio *io, unsigned int n)
{
	if (__atomic_sub_fetch(&io->left_, n, __ATOMIC_ACQ_REL) == 0)
		pio_complete(io);
}

static void piece_done(struct lx_call *call, int status, void *arg)
{
	struct lx_nfs3_pio *io = arg;
	struct lx_nfs3_pio_piece *p =
		lx_xprt_container_of(call, struct lx_nfs3_pio_piece, call);

	p->status = status;
	pio_put(io, 1);
}

static int pio_start(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
		     const struct lx_nfs3_fh *fh, void *buf, size_t count,
		     uint64_t offset, bool write, uint32_t stable)
{
	uint32_t piece_max;
	unsigned int n, i;
	int err = 0;

	if (!c || !io || !io->call.done || lx_nfs3_fh_ok(fh) ||
	    (!buf && count) || !count || stable > LX_NFS3_FILE_SYNC)
		return -EINVAL;
	piece_max = write ? c->wsize : c->rsize;
	n = (unsigned int)((count + piece_max - 1) / piece_max);
	if (count > (size_t)piece_max * LX_NFS3_PIO_MAX)
		return -EINVAL;
	io->clnt_ = c;
	io->buf_ = buf;
	io->offset_ = offset;
	io->count_ = count;
	io->write_ = write;
	io->npieces_ = n;
	__atomic_store_n(&io->left_, n + 1, __ATOMIC_RELAXED);
	lx_xprt_call_set_multi(&io->call, pio_cancel);
	for (i = 0; i < n; i++) {
		struct lx_nfs3_pio_piece *p = &io->piece_[i];
		size_t at = (size_t)i * piece_max;

		memset(&p->call, 0, sizeof(p->call));
		p->call.done = piece_done;
		p->call.arg = io;
		p->call.owner = io->call.owner;
		p->call.flags = io->call.flags;
		p->offset = offset + at;
		p->count = (uint32_t)LX_XPRT_MIN(count - at, piece_max);
		p->iov.iov_base = (char *)buf + at;
		p->iov.iov_len = p->count;
		p->status = 0;
		if (write)
			err = lx_nfs3_write_async(c, &p->call, fh, p->offset,
						  &p->iov, 1, stable,
						  &p->res.wr);
		else
			err = lx_nfs3_read_async(c, &p->call, fh, p->offset,
						 p->count, &p->iov, 1,
						 &p->res.rd);
		if (err)
			break;
	}
	if (err && i == 0)
		return err; /* nothing started: no callback */
	/* pieces that could not start end the I/O there */
	for (unsigned int k = i; k < n; k++)
		io->piece_[k].status = err;
	pio_put(io, n - i + 1);
	return 0;
}

int lx_nfs3_pread_async(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
			const struct lx_nfs3_fh *fh, void *buf, size_t count,
			uint64_t offset)
{
	return pio_start(c, io, fh, buf, count, offset, false, 0);
}

int lx_nfs3_pwrite_async(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
			 const struct lx_nfs3_fh *fh, const void *buf,
			 size_t count, uint64_t offset, uint32_t stable)
{
	return pio_start(c, io, fh, (void *)buf, count, offset, true, stable);
}

/* ---------------------------------------------------------------- sync */

struct io_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int status;
	size_t n;
	bool eof;
};

static void io_wait_done(struct lx_call *call, int status, void *arg)
{
	struct lx_nfs3_pio *io = (struct lx_nfs3_pio *)call;
	struct io_wait *w = arg;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->n = call->count;
	w->eof = io->eof;
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

int lx_nfs3_io_once(struct lx_nfs3_clnt *c, struct lx_nfs3_pio *io,
		    const struct lx_nfs3_fh *fh, void *buf, size_t count,
		    uint64_t offset, bool write, uint32_t stable, size_t *n,
		    bool *eof)
{
	struct io_wait w = {.done = false};
	size_t max = (size_t)(write ? c->wsize : c->rsize) * LX_NFS3_PIO_MAX;
	int err;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	memset(io, 0, offsetof(struct lx_nfs3_pio, piece_));
	io->call.done = io_wait_done;
	io->call.arg = &w;
	err = pio_start(c, io, fh, buf, LX_XPRT_MIN(count, max), offset, write,
			stable);
	if (!err) {
		/* caller-driven: the completion comes from servicing the
		 * client on this thread, the owner */
		if (lx_nfs3_loop_fd(c) >= 0)
			while (!w.done)
				lx_nfs3_loop_run(c, NULL, 1, 0);
		pthread_mutex_lock(&w.lock);
		while (!w.done)
			pthread_cond_wait(&w.cond, &w.lock);
		pthread_mutex_unlock(&w.lock);
		err = w.status;
		*n = w.n;
		*eof = w.eof;
	}
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return err;
}

int lx_nfs3_io_sync_read(struct lx_nfs3_clnt *c, const struct lx_nfs3_fh *fh,
			 void *buf, size_t count, uint64_t offset,
			 size_t *nread)
{
	struct lx_nfs3_pio io;
	size_t pos = 0, n;
	bool eof = false;
	int err = 0;

	while (pos < count && !eof) {
		err = lx_nfs3_io_once(c, &io, fh, (char *)buf + pos,
				      count - pos, offset + pos, false, 0, &n,
				      &eof);
		if (err)
			break;
		pos += n;
		if (!n)
			break; /* nothing more, eof flag or not */
	}
	*nread = pos;
	return err;
}
