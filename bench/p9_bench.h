/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench internals, shared by its two files:
 *   p9_bench.c  options, sessions, job files, counters, main()
 *   p9_io.c     the I/O path: messages per I/O, --alloc malloc, the
 *               helper thread
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

#include "engine/engine.h"

/* Messages one I/O may take: 512 KiB at the 8 KiB msize of old kernels */
#define P9B_MAX_PARTS  128u
#define P9B_RREAD_HDR  11u /* size[4] type[1] tag[2] count[4] */
#define P9B_TWRITE_HDR 23u

enum p9b_alloc {
	P9B_ALLOC_POOL,
	P9B_ALLOC_MALLOC,
};

struct p9b_io;

/* One message of an I/O; its address is the callback's argument. */
struct p9b_part {
	struct p9b_io *pio;
	void *mtx, *mrx; /* --alloc malloc: this message's two buffers */
};

struct p9b_job {
	struct p9_clnt *c;
	uint32_t fid;
	uint32_t chunk; /* bytes per message: min(iosize, iounit) */
};

/* Per-I/O state, in the engine slot's private area. */
struct p9b_io {
	struct bench_io *io;
	struct p9b *p;
	_Atomic unsigned int pending; /* parts in flight + the hold */
	_Atomic uint32_t bytes;
	_Atomic int status;
	unsigned int nparts;
	unsigned int next; /* first part not sent yet */
	struct p9b_io *dnext;
	struct p9b_part part[P9B_MAX_PARTS];
};

struct p9b {
	/* options */
	char *host;
	uint16_t port;
	const char *aname;
	uint32_t msize;
	enum p9b_alloc alloc;
	unsigned int max_reqs_opt;

	/* run */
	const struct bench_config *cfg;
	struct p9_clnt **c;
	unsigned int nc;
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
 * on another thread; -EAGAIN/-ENOBUFS when not even the first message
 * could go out (NOWAIT); another negative errno, nothing in flight.
 */
int p9b_submit(void *priv, struct bench_io *io, unsigned int flags);

/**
 * p9b_helper_start() - start the thread that sends what NOWAIT could not
 * Context: setup(), main thread.  Return: 0 or a negative errno.
 */
int p9b_helper_start(struct p9b *p);

/**
 * p9b_helper_stop() - stop and join it (nothing may be in flight); safe to
 * call when it never started
 */
void p9b_helper_stop(struct p9b *p);

#endif /* BENCH_P9_BENCH_H */
