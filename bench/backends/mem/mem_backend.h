/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-memory back-end: I/O simulated by a pool of completion threads,
 * with configurable latency and fault injection.  It is what mem-bench runs
 * and what the engine's tests drive; it is also the reference for writing a
 * real back-end (see mem_backend.c).
 */
#ifndef BENCH_MEM_BACKEND_H
#define BENCH_MEM_BACKEND_H

#include <stdint.h>

#include "engine/engine.h"

extern const struct bench_backend_ops bench_mem_backend;

/*
 * Observations for tests, valid after bench_run() until bench_destroy()
 * (pass bench_backend_priv()).  Owners are the jobs' owner ids.
 */

/** bench_mem_owner_max_inflight() - most I/Os of @owner in flight at once */
uint32_t bench_mem_owner_max_inflight(const void *priv, uint64_t owner);

/** bench_mem_owner_ops() - I/Os submitted under @owner */
uint64_t bench_mem_owner_ops(const void *priv, uint64_t owner);

/** bench_mem_max_inflight() - most I/Os in flight at once, all owners */
uint64_t bench_mem_max_inflight(const void *priv);

/** bench_mem_owner_slots() - owner ids tracked (numjobs + 1; 0 unused) */
unsigned int bench_mem_owner_slots(const void *priv);

/*
 * A server restart that drops data, for tests of a job_sync()/job_end()
 * hook (nothing in flight): bench_mem_job_drop() zeroes @job's file;
 * bench_mem_job_pwrite() writes into it as the back-end's own resend
 * would (0, %-ENODATA when the run stores no data, %-EFBIG past its end).
 */
void bench_mem_job_drop(struct bench_job_info *job);
int bench_mem_job_pwrite(struct bench_job_info *job, const void *buf,
			 size_t len, uint64_t off);

#endif /* BENCH_MEM_BACKEND_H */
