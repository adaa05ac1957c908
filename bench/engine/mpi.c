/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct bench_dist over Open MPI: the only file of the engine that calls
 * MPI.  The Makefile compiles it, and links it into the bench programs,
 * only when pkg-config finds Open MPI (ompi-c); the engine finds it
 * through the weak bench_dist_mpi_init() (dist.h).
 *
 * MPI is initialised only when a launcher started the process (mpirun
 * sets OMPI_COMM_WORLD_SIZE, PMIx launchers such as srun set PMIX_RANK):
 * a bench started by hand runs alone exactly as a build without MPI,
 * without MPI_Init's start-up cost or its need for a launcher.
 *
 * Waiting: the engine's collectives are rare (a few per phase) but a rank
 * may wait long in one - a fast rank at the end of an ior phase waits for
 * the slowest.  MPI's blocking collectives spin at 100% CPU while they
 * wait, which on a shared machine takes a core from the ranks still
 * measuring.  So every collective is started non-blocking and completed
 * by polling MPI_Test with short sleeps (50 us growing to 1 ms): the
 * barrier's release skew grows by at most that sleep, which is far below
 * the runtimes it aligns.
 *
 * Only the main thread calls MPI (MPI_THREAD_FUNNELED is enough; the
 * completion threads never do).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "dist.h"

/* Complete @req without spinning: MPI_Test, then sleep a little. */
static int wait_gently(MPI_Request *req)
{
	struct timespec ts = {0, 50000};
	int done = 0;

	for (;;) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 1000000)
			ts.tv_nsec *= 2;
	}
}

static int mpi_barrier(struct bench_dist *d)
{
	MPI_Request req;

	(void)d;
	if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return -EIO;
	return wait_gently(&req);
}

static int mpi_allmax(struct bench_dist *d, int64_t *v, unsigned int n)
{
	int64_t in[8];
	MPI_Request req;

	(void)d;
	if (n > 8)
		return -EINVAL;
	memcpy(in, v, n * sizeof(*v));
	if (MPI_Iallreduce(in, v, (int)n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD,
			   &req) != MPI_SUCCESS)
		return -EIO;
	return wait_gently(&req);
}

static int mpi_gather(struct bench_dist *d, const void *buf, size_t len,
		      void **all, size_t **lens)
{
	long long mine = (long long)len, *sizes = NULL;
	int *counts = NULL, *displs = NULL, r, ret = -ENOMEM;
	size_t total = 0;
	char *out = NULL;
	MPI_Request req;

	*all = NULL;
	*lens = NULL;
	if (len > (size_t)0x7fffffff)
		return -EMSGSIZE;
	if (!d->rank) {
		sizes = calloc((size_t)d->size, sizeof(*sizes));
		counts = calloc((size_t)d->size, sizeof(*counts));
		displs = calloc((size_t)d->size, sizeof(*displs));
		*lens = calloc((size_t)d->size, sizeof(**lens));
		/* the others would wait in the gather forever */
		if (!sizes || !counts || !displs || !*lens)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (MPI_Igather(&mine, 1, MPI_LONG_LONG, sizes, 1, MPI_LONG_LONG, 0,
			MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    wait_gently(&req)) {
		ret = -EIO;
		goto out_free;
	}
	if (!d->rank) {
		for (r = 0; r < d->size; r++) {
			if (sizes[r] < 0 ||
			    total + (size_t)sizes[r] > (size_t)0x7fffffff)
				MPI_Abort(MPI_COMM_WORLD, 1);
			counts[r] = (int)sizes[r];
			displs[r] = (int)total;
			(*lens)[r] = (size_t)sizes[r];
			total += (size_t)sizes[r];
		}
		out = malloc(total ? total : 1);
		if (!out)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (MPI_Igatherv(buf, (int)len, MPI_BYTE, out, counts, displs, MPI_BYTE,
			 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    wait_gently(&req)) {
		ret = -EIO;
		goto out_free;
	}
	*all = out;
	out = NULL;
	ret = 0;
out_free:
	if (ret) {
		free(*lens);
		*lens = NULL;
	}
	free(out);
	free(sizes);
	free(counts);
	free(displs);
	return ret;
}

static void mpi_finalize(struct bench_dist *d)
{
	MPI_Finalize();
	free(d);
}

struct bench_dist *bench_dist_mpi_init(int *argc, char ***argv)
{
	struct bench_dist *d;
	int provided;

	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK"))
		return NULL;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
	    MPI_SUCCESS) {
		fprintf(stderr, "%s: MPI_Init failed\n",
			*argc > 0 ? (*argv)[0] : "bench");
		exit(1);
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "%s: out of memory\n",
			*argc > 0 ? (*argv)[0] : "bench");
		MPI_Abort(MPI_COMM_WORLD, 1);
		return NULL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &d->size);
	d->barrier = mpi_barrier;
	d->allmax = mpi_allmax;
	d->gather = mpi_gather;
	d->finalize = mpi_finalize;
	return d;
}
