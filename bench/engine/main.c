/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_main(): a bench program's whole life - join the other ranks (MPI),
 * or run the fio job files on the command line (multi.c), or create,
 * parse, run and report one bench (engine.c).  The top of the engine:
 * nothing calls into it but the programs' main().
 */
#include <stdio.h>

#include "engine_int.h"

int bench_main(const struct bench_backend_ops *ops, int argc, char **argv)
{
	struct bench_dist *d = NULL;
	struct bench *b;
	int ret, rc;

	/* a build with MPI, started by mpirun: join the other ranks */
	if (bench_dist_mpi_init)
		d = bench_dist_mpi_init(&argc, &argv);
	if (!d) { /* fio job files on the command line (multi.c) */
		bool handled;

		rc = bench_main_jobfiles(ops, argc, argv, &handled);
		if (handled)
			return rc;
	}
	b = bench_create(ops);
	if (!b) {
		fprintf(stderr, "%s: cannot initialise the %s back-end\n",
			argc > 0 ? argv[0] : "bench",
			ops && ops->name ? ops->name : "?");
		if (d)
			d->finalize(d);
		return 1;
	}
	if (d) {
		bench_dist_join(b, d);
		bench_msg_rank = d->rank;
		/* every rank parses the same line: rank 0 speaks for all */
		bench_mute = d->rank != 0;
	}
	ret = bench_parse(b, argc, argv);
	bench_mute = false;
	/* 2: usage error, 1: --help, 0: run (rank 0 alone opens files) */
	rc = bench_dist_max(b, ret == BENCH_PARSE_EXIT ? 1 : ret ? 2 : 0);
	if (rc) {
		rc = rc == 2 ? 2 : 0;
		goto out;
	}
	if (b->parse_only)
		goto out;
	ret = bench_run(b);
	rc = ret ? (b->usage_error ? 2 : 1) : 0;
	if (b->started)
		rc = bench_dist_collect(b, rc);
	if (b->started && rc != 2 && !bench_rank(b) && bench_report(b, NULL))
		rc = 1;
	/* every rank exits with the status of the whole run */
	rc = bench_dist_max(b, rc);
out:
	bench_destroy(b);
	if (d)
		d->finalize(d);
	return rc;
}
