/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Phases: what every job does together, one step of a run at a time.
 *
 *   layout   (when a reading workload finds its file missing or short, or
 *            --verify needs known contents) sequential writes of the whole
 *            file in large transfers, not measured;
 *   main     the fio workload; or, for --workload ior, one write and/or
 *            one read phase per repetition, each measured on its own;
 *   verify   (--verify with writes and no later read phase) every block
 *            written is read back and checked, not measured; jobs sharing
 *            a file split its blocks.
 *
 * For each phase the main thread sets the phase and the jobs' budgets,
 * starts one thread per job with work, and waits on a futex for the last
 * one to finish, waking at least every 100 ms to print progress, notice
 * ^C and sample CPU usage when the ramp ends.  Measured time per job and
 * direction runs from the end of the ramp to the job's last completion or
 * the end of the runtime, whichever is first; ior phases also record
 * their own bytes, operations and duration (first submission of any job
 * to the last completion of all, as ior times a phase between barriers).
 *
 * Under MPI every rank runs the same sequence of phases: whether to lay
 * out is agreed first (a rank without a file to lay out still takes part,
 * with no work), after each phase all ranks agree whether any failed, and
 * each phase starts right after a barrier, so that the ranks' ramps and
 * runtimes start together (to within the barrier's release skew).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "engine_int.h"

/* set by the SIGINT/SIGTERM handler, read by every thread (the back-ends'
 * helpers waiting out a reconnect backoff too): an atomic, which a
 * handler may store to (lock-free), not a volatile sig_atomic_t, which
 * is only for the thread the signal interrupted (TSan: a data race) */
atomic_int bench_sigint;

/*
 * The I/Os of one pass over @j's file.  Without holes, its blocks.  With
 * fio's rw=read:HOLE, fio (io_u.c, get_next_seq_offset()) moves the
 * region's size in bytes, but goes back to the start only when the last
 * I/O ends short of the file's end and the hole reaches it (read:4k over
 * a 64k file: the 8 positions twice); otherwise a pass is one walk over
 * the positions (write:8k: 6 I/Os).  A region that starts past 0 never
 * wraps here: fio's wrap lands at twice the offset there, which we do not
 * copy.
 */
static uint64_t pass_ios(const struct bench *b, const struct bench_job *j)
{
	const struct bench_opts *o = &b->o;
	const struct bench_file *f = j->file;
	uint64_t real =
		j->info.file_size > f->size ? j->info.file_size : f->size;
	uint64_t end;

	if (!o->rw_hole || f->base || !f->nblocks)
		return f->nblocks;
	end = (f->nblocks - 1) * (o->bs + o->rw_hole) + o->bs;
	if (end < real && end + o->rw_hole >= real)
		return (f->size - f->base) / o->bs;
	return f->nblocks;
}

static uint64_t job_budget(struct bench *b, struct bench_job *j,
			   enum bench_phase_kind kind)
{
	const struct bench_opts *o = &b->o;
	struct bench_file *f = j->file;
	uint64_t n;

	switch (kind) {
	case PH_LAYOUT: {
		/* every file of the job it lays out, one after the other */
		unsigned int k;

		for (k = 0, n = 0; k < j->nfiles; k++) {
			f = j->jfiles[k];
			if (f->need_layout && f->layout_job == j->info.index)
				n += (f->size + b->layout_bs - 1) /
				     b->layout_bs;
		}
		return n;
	}
	case PH_VERIFY:
		return j->blk_hi - j->blk_lo;
	case PH_MAIN:
		if (o->workload == WL_IOR)
			return o->size / o->bs;
		/* fio: --runtime caps the time; only --time_based loops
		 * until it (a metadata workload has no size to finish), and
		 * --number_ios stops a job early, never extends it */
		if (o->time_based || bench_rw_meta(o->rw))
			return o->number_ios ? o->number_ios : UINT64_MAX;
		n = (f ? pass_ios(b, j) * j->nfiles : o->size / o->bs) *
		    o->loops;
		/* fio's io_size: this many bytes per pass, over the region
		 * (wrapping when it is larger) */
		if (o->io_size)
			n = o->io_size / o->bs * o->loops;
		return o->number_ios && o->number_ios < n ? o->number_ios : n;
	}
	return 0;
}

static void phase_prepare_job(struct bench *b, struct bench_job *j)
{
	const struct bench_phase *ph = &b->phase;
	struct bench_file *f = j->file;
	uint64_t nb = f ? f->nblocks : 1;

	j->blk_lo = 0;
	j->blk_hi = nb;
	j->io_len = (uint32_t)b->o.bs;
	if (ph->kind == PH_LAYOUT)
		j->io_len = (uint32_t)b->layout_bs;
	if (ph->kind == PH_VERIFY && f) {
		j->blk_lo = nb * j->file_rank / f->nusers;
		j->blk_hi = nb * (j->file_rank + 1) / f->nusers;
	}
	j->budget = job_budget(b, j, ph->kind);
	/* variable block sizes: a size-bound run ends after its bytes */
	j->byte_budget = 0;
	if (b->o.varbs && ph->kind == PH_MAIN && !b->o.time_based &&
	    !bench_rw_meta(ph->rw) && f) {
		j->byte_budget =
			(b->o.io_size ? b->o.io_size :
					(f->size - f->base) * j->nfiles) *
			b->o.loops;
		if (!b->o.number_ios)
			j->budget = UINT64_MAX;
	}
	j->rm_t = 0;
	atomic_store_explicit(&j->seq_pos, 0, memory_order_relaxed);
	atomic_store_explicit(&j->dir_pos[0], 0, memory_order_relaxed);
	atomic_store_explicit(&j->dir_pos[1], 0, memory_order_relaxed);
	atomic_store_explicit(&j->issued, 0, memory_order_relaxed);
	atomic_store_explicit(&j->wcount, 0, memory_order_relaxed);
	atomic_store_explicit(&j->sync_due, 0, memory_order_relaxed);
	atomic_store_explicit(&j->rate_next[0], 0, memory_order_relaxed);
	atomic_store_explicit(&j->rate_next[1], 0, memory_order_relaxed);
	atomic_store_explicit(&j->delayed, NULL, memory_order_relaxed);
	j->paced = ph->kind == PH_MAIN &&
		   (b->o.rate_iops[0] || b->o.rate_iops[1] ||
		    b->o.rate_bps[0] || b->o.rate_bps[1] || b->o.thinktime_ns);
	atomic_store_explicit(&j->next_idx, 0, memory_order_relaxed);
	atomic_store_explicit(&j->active, 0, memory_order_relaxed);
	atomic_store_explicit(&j->stop, false, memory_order_relaxed);
	atomic_store_explicit(&j->deferred, NULL, memory_order_relaxed);
	atomic_store_explicit(&j->t_drained, 0, memory_order_relaxed);
	bench_draw_plain_setup(b, j);
}

void bench_stop_all(struct bench *b)
{
	unsigned int i;

	atomic_store_explicit(&b->abort, true, memory_order_relaxed);
	for (i = 0; i < b->njobs; i++) {
		atomic_store_explicit(&b->jobs[i].stop, true,
				      memory_order_relaxed);
		atomic_fetch_add_explicit(&b->jobs[i].wake, 1,
					  memory_order_release);
		bench_futex_wake(&b->jobs[i].wake);
	}
}

/*
 * fio's rate_min and rate_iops_min (backend.c, check_min_rate()): after
 * a 2 s settle, every ratecycle a job's rate in each direction it moves
 * must reach the minimum, else it exits with EIO and fio's message
 * ("job0: rate_min=1048576B/s not met, got 405504B/s"); here the run
 * stops, as on any job's error.  Main thread, measured phases.
 */
#define RATE_MIN_SETTLE_NS 2000000000ull

static void check_min_rate(struct bench *b, uint64_t now)
{
	const struct bench_opts *o = &b->o;
	const struct bench_phase *ph = &b->phase;
	bool dirs[DIR_NR];
	unsigned int i, d;

	if (!ph->measured || !o->ratecycle_ns ||
	    !(o->rate_min_bps[0] | o->rate_min_bps[1] | o->rate_iops_min[0] |
	      o->rate_iops_min[1]) ||
	    now < ph->t_measure + RATE_MIN_SETTLE_NS)
		return;
	bench_rw_dirs(ph->rw, dirs);
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];
		uint64_t spent = now - j->rm_t, by[2], ops[2];
		bool missed = false;

		if (!j->budget || !atomic_load(&j->active))
			continue;
		if (j->rm_t && spent < o->ratecycle_ns)
			continue;
		for (d = 0; d < 2; d++) {
			by[d] = atomic_load_explicit(&j->bytes[d],
						     memory_order_relaxed);
			ops[d] = bench_hist_count(j->hist[d]);
		}
		for (d = 0; j->rm_t && d < 2 && !missed; d++) {
			uint64_t r;

			if (!dirs[d])
				continue;
			if (o->rate_min_bps[d]) {
				r = (uint64_t)((double)(by[d] -
							j->rm_bytes[d]) *
					       1e9 / (double)spent);
				if (r < o->rate_min_bps[d]) {
					bench_error("%s: rate_min=%" PRIu64
						    "B/s not met, got %" PRIu64
						    "B/s",
						    j->name, o->rate_min_bps[d],
						    r);
					missed = true;
				}
			} else if (o->rate_iops_min[d]) {
				r = (uint64_t)((double)(ops[d] - j->rm_ops[d]) *
					       1e9 / (double)spent);
				if (r < o->rate_iops_min[d]) {
					bench_error("%s: rate_iops_min=%" PRIu64
						    " not met, got %" PRIu64
						    " IOPS",
						    j->name,
						    o->rate_iops_min[d], r);
					missed = true;
				}
			}
			if (missed) {
				bench_job_fail_rate(j, d ? BENCH_OP_WRITE :
							   BENCH_OP_READ);
				bench_stop_all(b);
			}
		}
		j->rm_t = now;
		memcpy(j->rm_bytes, by, sizeof(by));
		memcpy(j->rm_ops, ops, sizeof(ops));
	}
}

static void phase_wait(struct bench *b)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t now, wait;
	uint32_t n;

	for (;;) {
		n = atomic_load_explicit(&b->jobs_running,
					 memory_order_acquire);
		if (!n)
			break;
		now = bench_now_ns();
		if (ph->measured && !bench_cpu_marked(b) &&
		    now >= ph->t_measure)
			bench_cpu_mark(b);
		if (bench_sigint && !b->interrupted) {
			b->interrupted = true;
			bench_stop_all(b);
		}
		bench_progress_tick(b, now);
		bench_log_tick(b, now);
		bench_samp_tick(b, now);
		bench_fiolog_tick(b, now);
		bench_status_tick(b, now);
		check_min_rate(b, now);
		/* short sleeps: notice ^C and the ramp's end promptly */
		wait = 100000000ull;
		if (bench_samp_next(b) > now && bench_samp_next(b) - now < wait)
			wait = bench_samp_next(b) - now;
		if (bench_fiolog_next(b) > now &&
		    bench_fiolog_next(b) - now < wait)
			wait = bench_fiolog_next(b) - now;
		if (bench_status_next(b) > now &&
		    bench_status_next(b) - now < wait)
			wait = bench_status_next(b) - now;
		if (ph->measured && !bench_cpu_marked(b) &&
		    ph->t_measure > now && ph->t_measure - now < wait)
			wait = ph->t_measure - now;
		if (bench_log_next(b) > now && bench_log_next(b) - now < wait)
			wait = bench_log_next(b) - now;
		bench_futex_wait(&b->jobs_running, n, wait);
	}
}

struct dir_snap {
	uint64_t ops, bytes, sum;
};

static void snap_dir(struct bench *b, enum bench_dir d, struct dir_snap *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		s->ops += bench_hist_count(j->hist[d]);
		s->sum += atomic_load_explicit(&j->hist[d]->sum,
					       memory_order_relaxed);
		s->bytes += atomic_load_explicit(&j->bytes[d],
						 memory_order_relaxed);
	}
}

static void phase_account(struct bench *b, const struct dir_snap *before)
{
	const struct bench_phase *ph = &b->phase;
	uint64_t last = ph->t_start;
	bool dirs[DIR_NR] = {false};
	unsigned int i, d;

	bench_rw_dirs(ph->rw, dirs);
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];
		uint64_t end = atomic_load_explicit(&j->t_drained,
						    memory_order_relaxed);

		if (!j->budget)
			continue;
		if (end > last)
			last = end;
		if (end > ph->t_end)
			end = ph->t_end;
		for (d = 0; d < DIR_NR; d++)
			if (dirs[d] && end > ph->t_measure)
				j->elapsed_ns[d] += end - ph->t_measure;
	}
	if (ph->ior_rep >= 0) {
		enum bench_dir id = ph->rw == RW_READ ? DIR_READ : DIR_WRITE;
		struct bench_ior_result r;
		struct dir_snap after;

		snap_dir(b, id, &after);
		r.bytes = after.bytes - before[id].bytes;
		r.ops = after.ops - before[id].ops;
		r.lat_mean_ns = r.ops ? (double)(after.sum - before[id].sum) /
						(double)r.ops :
					0;
		r.elapsed_ns = last - ph->t_start;
		r.done = true;
		bench_ior_record(b, ph->ior_rep, id, &r);
	}
}

static void layout_done(struct bench *b)
{
	unsigned int i;
	uint64_t k;

	for (i = 0; i < b->nfiles; i++) {
		struct bench_file *f = &b->files[i];
		uint32_t tag = (uint32_t)f->layout_job << 16 | 1;

		if (!f->need_layout || !f->state)
			continue;
		for (k = 0; k < f->nblocks; k++)
			atomic_store_explicit(&f->state[k], tag,
					      memory_order_relaxed);
	}
}

static const char *phase_label(enum bench_phase_kind kind, enum bench_rw rw,
			       int rep)
{
	if (kind == PH_LAYOUT)
		return "layout";
	if (kind == PH_VERIFY)
		return "verify";
	if (rep >= 0)
		return rw == RW_READ ? "ior read" : "ior write";
	return "run";
}

static int run_phase(struct bench *b, enum bench_phase_kind kind,
		     enum bench_rw rw, int rep)
{
	struct bench_phase *ph = &b->phase;
	struct dir_snap before[DIR_NR];
	unsigned int i, n = 0;
	int ret = 0;

	memset(ph, 0, sizeof(*ph));
	ph->kind = kind;
	ph->rw = rw;
	ph->label = phase_label(kind, rw, rep);
	ph->measured = kind == PH_MAIN;
	ph->ior_rep = rep;
	ph->depth = kind == PH_LAYOUT ? BENCH_LAYOUT_DEPTH : b->o.iodepth;
	for (i = 0; i < DIR_NR; i++)
		snap_dir(b, i, &before[i]);
	for (i = 0; i < b->njobs; i++) {
		phase_prepare_job(b, &b->jobs[i]);
		n += b->jobs[i].budget != 0;
	}
	/* all ranks start the clock together */
	ret = bench_dist_barrier(b);
	if (ret)
		return ret;
	ph->t_start = bench_now_ns();
	ph->t_measure = ph->t_start;
	ph->t_end = UINT64_MAX;
	if (kind == PH_MAIN && b->o.workload == WL_FIO) {
		ph->t_measure += b->o.ramp_ns;
		if (b->o.runtime_ns)
			ph->t_end = ph->t_measure + b->o.runtime_ns;
	}
	bench_samp_phase_start(b);
	bench_status_phase_start(b);
	if (ph->measured) {
		if (ph->t_measure == ph->t_start)
			bench_cpu_mark(b);
		bench_log_phase_start(b);
		bench_fiolog_phase_start(b);
	}
	atomic_store_explicit(&b->jobs_running, n, memory_order_relaxed);
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		if (!j->budget)
			continue;
		ret = -pthread_create(&j->thread, NULL, bench_job_thread, j);
		if (ret) {
			bench_error("cannot start a job thread: %s",
				    strerror(-ret));
			bench_stop_all(b);
			/* the threads never started count as finished */
			for (; i < b->njobs; i++)
				if (b->jobs[i].budget)
					atomic_fetch_sub(&b->jobs_running, 1);
			break;
		}
		j->thread_started = true;
	}
	phase_wait(b);
	for (i = 0; i < b->njobs; i++) {
		if (!b->jobs[i].thread_started)
			continue;
		pthread_join(b->jobs[i].thread, NULL);
		b->jobs[i].thread_started = false;
	}
	if (ph->measured) {
		uint64_t now = bench_now_ns();

		bench_cpu_account(b, now > ph->t_measure ? now - ph->t_measure :
							   0);
		phase_account(b, before);
		bench_log_phase_end(b, now);
		bench_fiolog_phase_end(b, now);
	}
	if (kind == PH_LAYOUT)
		layout_done(b);
	return ret;
}

/*
 * After a phase: stop when it failed here or, under MPI, on any rank (all
 * ranks must take the same path to the next phase's barrier).
 */
static bool phase_stop(struct bench *b, int ret)
{
	return bench_dist_any(b, ret || atomic_load(&b->abort));
}

/*
 * After a phase that wrote, before anything reads it back (or the run
 * ends): the back-end's job_sync() makes the data durable, and after a
 * server restart writes again what the server lost (nfs3-bench: COMMIT,
 * write-verifier check, resend).  All ranks agree on stopping.
 */
static int phase_sync(struct bench *b, enum bench_rw rw)
{
	int ret = 0;

	if (b->ops->job_sync && bench_rw_writes(rw) && !atomic_load(&b->abort))
		ret = bench_jobs_call(b, b->ops->job_sync);
	return ret;
}

/**
 * bench_run_phases() - layout, the workload's phases, the verify pass
 * Context: the main thread, after every job is open.
 * Return: 0 (I/O errors are recorded in the jobs, see b->abort), or a
 * negative errno when a job thread cannot be started.
 */
int bench_run_phases(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	unsigned int i, r;
	bool layout = false;
	int ret;

	b->started = true;
	for (i = 0; i < b->nfiles; i++)
		layout |= b->files[i].need_layout;
	if (bench_dist_any(b, layout)) {
		ret = run_phase(b, PH_LAYOUT, RW_WRITE, -1);
		if (!ret)
			ret = phase_sync(b, RW_WRITE);
		if (phase_stop(b, ret))
			return ret;
	}
	if (o->workload == WL_FIO) {
		ret = run_phase(b, PH_MAIN, o->rw, -1);
		if (!ret)
			ret = phase_sync(b, o->rw);
		if (phase_stop(b, ret))
			return ret;
	} else {
		for (r = 0; r < o->repetitions; r++) {
			if (o->rw != RW_READ) {
				ret = run_phase(b, PH_MAIN, RW_WRITE, (int)r);
				if (!ret)
					ret = phase_sync(b, RW_WRITE);
				if (phase_stop(b, ret))
					return ret;
			}
			if (o->rw != RW_WRITE) {
				ret = run_phase(b, PH_MAIN, RW_READ, (int)r);
				if (phase_stop(b, ret))
					return ret;
			}
		}
	}
	if (o->verify && bench_writes_data(o) &&
	    !(o->workload == WL_IOR && bench_reads_after_write(o)))
		return run_phase(b, PH_VERIFY, RW_READ, -1);
	return 0;
}
