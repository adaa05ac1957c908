/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs spread over several processes (MPI ranks), as ior runs: the
 * contract between the engine and the optional MPI glue (mpi.c).
 *
 * The engine never calls MPI itself.  It sees a struct bench_dist: a rank,
 * a size and four collective operations.  mpi.c implements them with Open
 * MPI and is compiled, and linked into the bench programs, only when the
 * build finds Open MPI; the engine reaches it through a weak reference to
 * bench_dist_mpi_init(), which is NULL in a build without MPI, so the
 * engine's code is the same in both builds and no MPI symbol appears in
 * libbench.a.
 *
 * Semantics of a distributed run (see docs/benchmarks.md):
 *   - rank r runs the command line's --numjobs jobs as jobs r*numjobs ..
 *     r*numjobs+numjobs-1 (names, files and random streams are global);
 *   - before every phase all ranks agree (stop when any rank failed) and
 *     meet at a barrier, then start their clocks: ramp and runtime are
 *     aligned to the barrier's release;
 *   - at the end every rank packs its results (reduce.c) and rank 0
 *     merges them and reports, so the report has the shape of one run
 *     with size*numjobs jobs.
 */
#ifndef BENCH_DIST_H
#define BENCH_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct bench_dist - a group of processes running one benchmark together
 * @rank: this process's rank, 0 .. @size-1 (rank 0 reports)
 * @size: number of ranks (>= 1)
 * @barrier: wait until every rank has called it.  Return 0 or a negative
 *	errno.
 * @allmax: element-wise maximum over all ranks of @v[0..@n-1], left in @v
 *	on every rank (n <= 8).  Return 0 or a negative errno.
 * @gather: rank 0 receives every rank's @len bytes at @buf: *@all (one
 *	malloc'd block, ranks in order) and *@lens (malloc'd, @size entries);
 *	other ranks get NULLs.  Return 0 or a negative errno.
 * @finalize: leave the group (after the last collective); frees @d.
 *
 * Every operation but @finalize is collective: every rank must call it,
 * in the same order.  They are called from the main thread only.
 */
struct bench_dist {
	int rank;
	int size;
	int (*barrier)(struct bench_dist *d);
	int (*allmax)(struct bench_dist *d, int64_t *v, unsigned int n);
	int (*gather)(struct bench_dist *d, const void *buf, size_t len,
		      void **all, size_t **lens);
	void (*finalize)(struct bench_dist *d);
};

/**
 * bench_dist_mpi_init() - join the MPI job this process was started in
 * @argc, @argv: main()'s, for MPI_Init
 *
 * Defined by mpi.c, which only MPI builds link in; a weak reference here,
 * so callers must test it for NULL first.
 * Return: the group; NULL when the process was not started by an MPI
 * launcher (mpirun, srun: no rank in the environment), which runs alone
 * exactly as without MPI.  Exits the program when MPI_Init fails (it
 * cannot be retried).
 */
struct bench_dist *bench_dist_mpi_init(int *argc, char ***argv)
	__attribute__((weak));

struct bench;

/**
 * struct bench_distinfo - the engine's side of a distributed run (dist.c)
 * @dist: the group, or NULL when alone (no MPI, or not under mpirun)
 * @rank, @nranks: this process's rank and the group's size (0 and 1
 *	when alone)
 *
 * Written once by bench_dist_join() before the command line is parsed,
 * read-only afterwards: the other files read it with bench_rank(),
 * bench_nranks() and bench_distributed() (engine_int.h).
 */
struct bench_distinfo {
	struct bench_dist *dist;
	unsigned int rank, nranks;
};

/* dist.c: join @d (NULL: alone); collectives with the engine's meaning
 * (no-ops when alone) */
void bench_dist_join(struct bench *b, struct bench_dist *d);
int bench_dist_agree(struct bench *b, int status);
bool bench_dist_any(struct bench *b, bool local);
int bench_dist_barrier(struct bench *b);
int bench_dist_collect(struct bench *b, int rc);
int bench_dist_max(struct bench *b, int v);

#endif /* BENCH_DIST_H */
