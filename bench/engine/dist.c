/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's collective steps, in its own terms: "did any rank fail",
 * "meet before the clock starts", "hand every result to rank 0".  Alone
 * (b->di.dist NULL: no MPI in the build, or not started by mpirun) each is
 * the identity, so the single-process code path is the distributed one
 * with one rank and no communication.
 *
 * The transport is struct bench_dist (dist.h, implemented by mpi.c); the
 * meaning of the bytes exchanged is reduce.c's.  Collective failures (a
 * rank vanished) are fatal in MPI's default error mode, so the errors
 * handled here are local ones: out of memory, a result that does not
 * unpack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

/**
 * bench_dist_join() - run as one rank of @d, or alone (@d NULL: rank 0
 * of 1)
 * Context: the main thread, before the command line is parsed.
 */
void bench_dist_join(struct bench *b, struct bench_dist *d)
{
	b->di.dist = d;
	b->di.rank = d ? (unsigned int)d->rank : 0;
	b->di.nranks = d ? (unsigned int)d->size : 1;
}

/**
 * bench_dist_max() - the largest @v of all ranks (@v alone)
 * Context: collective; main thread.
 */
int bench_dist_max(struct bench *b, int v)
{
	int64_t x = v;

	if (!b->di.dist || b->di.dist->allmax(b->di.dist, &x, 1))
		return v;
	return (int)x;
}

/**
 * bench_dist_any() - true when @local is true on any rank
 * Context: collective; main thread.
 */
bool bench_dist_any(struct bench *b, bool local)
{
	return bench_dist_max(b, local ? 1 : 0) != 0;
}

/**
 * bench_dist_barrier() - wait for every rank
 * Return: 0 or the transport's negative errno.  Context: collective.
 */
int bench_dist_barrier(struct bench *b)
{
	return b->di.dist ? b->di.dist->barrier(b->di.dist) : 0;
}

/**
 * bench_dist_agree() - go on only if every rank can
 * @status: this rank's result so far (0 or a negative errno)
 *
 * A usage error on any rank (b->usage_error: the same command line fails
 * the same way everywhere) marks every rank, so every rank exits 2.
 * Return: @status when it is an error; -ECANCELED when this rank is fine
 * but another is not (rank 0 says so once); else 0.
 * Context: collective; main thread.
 */
int bench_dist_agree(struct bench *b, int status)
{
	int64_t v[2] = {status != 0, b->usage_error};

	if (!b->di.dist)
		return status;
	if (b->di.dist->allmax(b->di.dist, v, 2))
		return status ? status : -EIO;
	b->usage_error = v[1] != 0;
	if (status || !v[0])
		return status;
	if (!b->di.rank)
		bench_error("stopped: another rank failed (its message is "
			    "above)");
	return -ECANCELED;
}

/*
 * Rank 0: merge every other rank's packed result.  A result that does not
 * unpack fails the run (the report would be silently short otherwise).
 */
static int merge_all(struct bench *b, const char *all, const size_t *lens)
{
	size_t off = lens[0];
	unsigned int r;
	int ret, status = 0;

	for (r = 1; r < b->di.nranks; r++) {
		ret = bench_result_merge(b, all + off, lens[r]);
		if (ret) {
			bench_error("the result of rank %u does not unpack: "
				    "%s",
				    r, strerror(-ret));
			status = ret;
		}
		off += lens[r];
	}
	return status;
}

/**
 * bench_dist_collect() - rank 0 gathers and merges every rank's results
 * @rc: this rank's exit status so far (0, 1, 2)
 *
 * Afterwards rank 0's report shows every rank's jobs and their merged
 * aggregate (b->rpt.jobs, b->rpt.ranks); the other ranks report nothing.
 * Return: @rc, or 1 when a result could not be packed or merged.
 * Context: collective; main thread; after bench_run().
 */
int bench_dist_collect(struct bench *b, int rc)
{
	struct bench_dist *d = b->di.dist;
	size_t *lens = NULL;
	void *buf = NULL, *all = NULL;
	long len;
	int ret;

	if (!d)
		return rc;
	len = bench_result_pack(b, NULL, 0);
	buf = len > 0 ? malloc((size_t)len) : NULL;
	if (!buf || bench_result_pack(b, buf, (size_t)len) != len) {
		bench_error("cannot pack this rank's results");
		/* still take part: the others are waiting in the gather */
		len = 0;
		rc = rc ? rc : 1;
	}
	ret = d->gather(d, buf, (size_t)len, &all, &lens);
	if (ret) {
		bench_error("gathering the results failed: %s", strerror(-ret));
		rc = rc ? rc : 1;
	} else if (!b->di.rank &&
		   (bench_ranks_init(b) || merge_all(b, all, lens))) {
		rc = rc ? rc : 1;
	}
	free(all);
	free(lens);
	free(buf);
	return rc;
}
