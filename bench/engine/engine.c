/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The run: set-up, jobs, phases, tear-down.
 *
 * A run is a sequence of phases that every job goes through together:
 *   layout   (when a reading workload finds its file missing or short, or
 *            --verify needs known contents) sequential writes of the whole
 *            file in large transfers, not measured;
 *   main     the fio workload; or, for --workload ior, one write and/or
 *            one read phase per repetition, each measured on its own;
 *   verify   (--verify with writes and no later read phase) every block
 *            written is read back and checked, not measured.
 * The main thread starts one thread per job for each phase, watches the
 * clock (CPU usage is sampled when the ramp ends and after the drain),
 * prints progress, and joins them.  Every per-run allocation happens here,
 * before the first I/O: slots with the back-end's private areas, one
 * buffer region per job (handed to job_open() so RDMA can register it
 * once), histograms, verify state.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

#define LAYOUT_DEPTH  4u
#define LAYOUT_TARGET (1u << 20)
#define PAGE	      4096u

static volatile sig_atomic_t bench_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	bench_sigint = 1;
}

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

struct bench *bench_create(const struct bench_backend_ops *ops)
{
	struct bench *b;

	if (!ops || !ops->name || !ops->job_open || !ops->submit)
		return NULL;
	if (ops->options && ops->options[0].name && !ops->parse_option)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ops = ops;
	b->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!b->priv)
		goto out_free_b;
	bench_opts_defaults(&b->o);
	if (ops->init && ops->init(b->priv))
		goto out_free_priv;
	return b;

out_free_priv:
	free(b->priv);
out_free_b:
	free(b);
	return NULL;
}

void *bench_backend_priv(struct bench *b)
{
	return b ? b->priv : NULL;
}

/* The workload may read a file before writing it: it may need a layout. */
static bool may_layout(const struct bench_opts *o)
{
	if (bench_rw_meta(o->rw))
		return false;
	if (o->workload == WL_IOR)
		return o->rw == RW_READ;
	return bench_rw_reads(o->rw);
}

static bool writes_data(const struct bench_opts *o)
{
	if (o->workload == WL_IOR)
		return o->rw != RW_READ;
	return bench_rw_writes(o->rw);
}

static bool reads_after_write(const struct bench_opts *o)
{
	if (o->workload == WL_IOR)
		return o->rw == RW_RW;
	return bench_rw_reads(o->rw);
}

static unsigned int slots_per_job(const struct bench_opts *o)
{
	if (may_layout(o) && o->iodepth < LAYOUT_DEPTH)
		return LAYOUT_DEPTH;
	return o->iodepth;
}

static void fill_config(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	struct bench_config *c = &b->cfg;
	uint64_t lt;

	c->prog = bench_prog_name;
	c->transport = o->transport;
	c->nconnect = o->nconnect;
	c->uid = o->uid;
	c->gid = o->gid;
	c->numjobs = o->numjobs;
	c->iodepth = o->iodepth;
	c->max_inflight = o->numjobs * slots_per_job(o);
	c->bs = o->rw == RW_NULL || o->rw == RW_GETATTR ? 0 : o->bs;
	c->size = o->size;
	c->verify = o->verify;
	c->seed = o->seed;
	if (o->rw == RW_NULL) {
		c->ops_used = BENCH_OP_BIT(BENCH_OP_NULL);
	} else if (o->rw == RW_GETATTR) {
		c->ops_used = BENCH_OP_BIT(BENCH_OP_GETATTR);
	} else {
		bool reads = o->workload == WL_IOR ? o->rw != RW_WRITE :
						     bench_rw_reads(o->rw);

		c->ops_used = 0;
		if (reads || o->verify)
			c->ops_used |= BENCH_OP_BIT(BENCH_OP_READ);
		if (writes_data(o) || may_layout(o))
			c->ops_used |= BENCH_OP_BIT(BENCH_OP_WRITE);
	}
	c->max_len = c->bs;
	if (may_layout(o)) {
		lt = o->size < LAYOUT_TARGET ? o->size : LAYOUT_TARGET;
		lt = lt / o->bs * o->bs;
		if (lt > c->max_len)
			c->max_len = lt;
	}
}

int bench_parse(struct bench *b, int argc, char **argv)
{
	const char *slash;
	int ret;

	if (!b || argc < 1 || !argv || b->parsed)
		return -EINVAL;
	slash = strrchr(argv[0], '/');
	bench_prog_name = slash ? slash + 1 : argv[0];
	ret = bench_cli_parse(b, argc, argv);
	if (ret)
		return ret;
	fill_config(b);
	if (b->ops->check) {
		ret = b->ops->check(b->priv, &b->cfg);
		if (ret) {
			fprintf(stderr,
				"Try '%s --help' for more information.\n",
				bench_prog_name);
			return ret < 0 ? ret : -EINVAL;
		}
	}
	b->parsed = true;
	return 0;
}

static struct bench_slot *slot_at(struct bench_job *j, unsigned int i)
{
	return (struct bench_slot *)(void *)(j->slots_mem +
					     (size_t)i * j->slot_stride);
}

static void fill_random(void *p, size_t len, uint64_t seed)
{
	uint64_t *w = p, x = seed | 1;
	size_t i;

	/* incompressible write data, generated once per run */
	for (i = 0; i < len / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

static int files_create(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	const char *dir = o->directory, *sep = dir ? "/" : "";
	unsigned int i;
	int n;

	if (o->rw == RW_NULL)
		return 0;
	b->nfiles = o->filename ? 1 : o->numjobs;
	b->files = calloc(b->nfiles, sizeof(*b->files));
	if (!b->files)
		return -ENOMEM;
	for (i = 0; i < b->nfiles; i++) {
		struct bench_file *f = &b->files[i];

		if (o->filename)
			n = asprintf(&f->name, "%s%s%s", dir ? dir : "", sep,
				     o->filename);
		else
			n = asprintf(&f->name, "%s%s%s.%u.0", dir ? dir : "",
				     sep, o->name, i);
		if (n < 0) {
			f->name = NULL;
			return -ENOMEM;
		}
		f->size = o->size;
		f->nblocks = o->size / o->bs;
		f->layout_job = i;
		if (o->verify) {
			f->state = calloc(f->nblocks, sizeof(*f->state));
			if (!f->state)
				return -ENOMEM;
		}
	}
	return 0;
}

static int job_create(struct bench *b, struct bench_job *j, unsigned int i)
{
	const struct bench_opts *o = &b->o;
	size_t hdr = round_up(sizeof(struct bench_slot), BENCH_CACHELINE);
	unsigned int k, d;
	size_t blen = 0;

	j->b = b;
	j->info.index = i;
	j->info.owner = (uint64_t)i + 1;
	j->info.size = o->size;
	snprintf(j->name, sizeof(j->name), "%s%u", o->name, i);
	j->key = bench_mix64(o->seed ^
			     ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull);
	if (b->files) {
		j->file = &b->files[o->filename ? 0 : i];
		j->file_rank = j->file->nusers++;
		j->info.filename = j->file->name;
		j->info.shared = o->filename != NULL && o->numjobs > 1;
		j->info.open_flags = BENCH_OPEN_CREATE;
		if (writes_data(o) || may_layout(o))
			j->info.open_flags |= BENCH_OPEN_WRITE;
		if (writes_data(o))
			j->info.open_flags |= BENCH_OPEN_EXTEND;
	}
	j->nslots = slots_per_job(o);
	j->slot_stride = hdr + round_up(b->ops->io_priv_size, BENCH_CACHELINE);
	j->slots_mem =
		aligned_alloc(BENCH_CACHELINE, j->slot_stride * j->nslots);
	if (!j->slots_mem)
		return -ENOMEM;
	memset(j->slots_mem, 0, j->slot_stride * j->nslots);

	if (!bench_rw_meta(o->rw)) {
		blen = (size_t)o->iodepth * o->bs;
		if (may_layout(o) && LAYOUT_DEPTH * b->layout_bs > blen)
			blen = LAYOUT_DEPTH * b->layout_bs;
		blen = round_up(blen, PAGE);
		if (posix_memalign(&j->bufs, PAGE, blen))
			return -ENOMEM;
		j->bufs_len = blen;
		fill_random(j->bufs, blen, j->key);
		j->info.buf_base = j->bufs;
		j->info.buf_len = blen;
	}
	for (k = 0; k < j->nslots; k++) {
		struct bench_slot *s = slot_at(j, k);

		s->job = j;
		s->blk = UINT64_MAX;
		s->io.owner = j->info.owner;
		s->io.job = &j->info;
		s->io.priv = (char *)s + hdr;
		if (j->bufs) {
			if (k < o->iodepth)
				s->buf = (char *)j->bufs + (size_t)k * o->bs;
			if (k < LAYOUT_DEPTH && may_layout(o))
				s->lbuf = (char *)j->bufs +
					  (size_t)k * b->layout_bs;
		}
	}
	for (d = 0; d < DIR_NR; d++) {
		j->hist[d] = aligned_alloc(
			BENCH_CACHELINE,
			round_up(sizeof(struct bench_hist), BENCH_CACHELINE));
		if (!j->hist[d])
			return -ENOMEM;
		bench_hist_init(j->hist[d]);
	}
	return 0;
}

static int jobs_create(struct bench *b)
{
	unsigned int i;
	int ret;

	ret = files_create(b);
	if (ret)
		return ret;
	if (b->o.workload == WL_IOR) {
		b->ior = calloc(b->o.repetitions, sizeof(*b->ior));
		if (!b->ior)
			return -ENOMEM;
	}
	b->jobs = calloc(b->o.numjobs, sizeof(*b->jobs));
	if (!b->jobs)
		return -ENOMEM;
	b->njobs = b->o.numjobs;
	for (i = 0; i < b->njobs; i++) {
		ret = job_create(b, &b->jobs[i], i);
		if (ret)
			return ret;
	}
	return 0;
}

static int jobs_open(struct bench *b)
{
	unsigned int i;
	int ret;

	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		ret = b->ops->job_open(b->priv, &j->info);
		if (ret) {
			bench_error("%s: cannot open %s: %s", j->name,
				    j->info.filename ? j->info.filename :
						       "(no file)",
				    strerror(ret < 0 ? -ret : ret));
			return ret < 0 ? ret : -EIO;
		}
		j->opened = true;
		if (j->file && j->file->layout_job == i && may_layout(&b->o) &&
		    (j->info.file_size < j->file->size || b->o.verify))
			j->file->need_layout = true;
	}
	return 0;
}

static void jobs_close(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < b->njobs; i++) {
		if (!b->jobs[i].opened)
			continue;
		if (b->ops->job_close)
			b->ops->job_close(b->priv, &b->jobs[i].info);
		b->jobs[i].opened = false;
	}
}

static uint64_t job_budget(struct bench *b, struct bench_job *j,
			   enum bench_phase_kind kind)
{
	const struct bench_opts *o = &b->o;
	struct bench_file *f = j->file;

	switch (kind) {
	case PH_LAYOUT:
		if (!f || !f->need_layout || f->layout_job != j->info.index)
			return 0;
		return (f->size + b->layout_bs - 1) / b->layout_bs;
	case PH_VERIFY:
		return j->blk_hi - j->blk_lo;
	case PH_MAIN:
		if (o->workload == WL_IOR)
			return o->size / o->bs;
		if (o->number_ios)
			return o->number_ios;
		return o->runtime_ns ? UINT64_MAX : o->size / o->bs;
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
	atomic_store_explicit(&j->next_idx, 0, memory_order_relaxed);
	atomic_store_explicit(&j->active, 0, memory_order_relaxed);
	atomic_store_explicit(&j->stop, false, memory_order_relaxed);
	atomic_store_explicit(&j->deferred, NULL, memory_order_relaxed);
	atomic_store_explicit(&j->t_drained, 0, memory_order_relaxed);
}

static void ru_mark(struct bench *b)
{
	getrusage(RUSAGE_SELF, &b->ru_mark);
	b->ru_marked = true;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000ull;
}

static void ru_account(struct bench *b)
{
	struct rusage now;

	if (!b->ru_marked)
		return;
	getrusage(RUSAGE_SELF, &now);
	b->usr_ns += tv_ns(&now.ru_utime) - tv_ns(&b->ru_mark.ru_utime);
	b->sys_ns += tv_ns(&now.ru_stime) - tv_ns(&b->ru_mark.ru_stime);
	b->ru_marked = false;
}

static void stop_all(struct bench *b)
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
		if (ph->measured && !b->ru_marked && now >= ph->t_measure)
			ru_mark(b);
		if (bench_sigint && !b->interrupted) {
			b->interrupted = true;
			stop_all(b);
		}
		if (b->progress)
			bench_progress_tick(b, now);
		/* short sleeps: notice ^C and the ramp's end promptly */
		wait = 100000000ull;
		if (ph->measured && !b->ru_marked && ph->t_measure > now &&
		    ph->t_measure - now < wait)
			wait = ph->t_measure - now;
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

	if (bench_rw_meta(ph->rw))
		dirs[DIR_OTHER] = true;
	dirs[DIR_READ] = bench_rw_reads(ph->rw);
	dirs[DIR_WRITE] = bench_rw_writes(ph->rw);
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
		struct bench_ior_result *r = &b->ior[ph->ior_rep][id];
		struct dir_snap after;

		snap_dir(b, id, &after);
		r->bytes = after.bytes - before[id].bytes;
		r->ops = after.ops - before[id].ops;
		r->lat_mean_ns = r->ops ? (double)(after.sum - before[id].sum) /
						  (double)r->ops :
					  0;
		r->elapsed_ns = last - ph->t_start;
		r->done = true;
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
	ph->depth = kind == PH_LAYOUT ? LAYOUT_DEPTH : b->o.iodepth;
	for (i = 0; i < DIR_NR; i++)
		snap_dir(b, i, &before[i]);
	for (i = 0; i < b->njobs; i++) {
		phase_prepare_job(b, &b->jobs[i]);
		n += b->jobs[i].budget != 0;
	}
	ph->t_start = bench_now_ns();
	ph->t_measure = ph->t_start;
	ph->t_end = UINT64_MAX;
	if (kind == PH_MAIN && b->o.workload == WL_FIO) {
		ph->t_measure += b->o.ramp_ns;
		if (b->o.runtime_ns)
			ph->t_end = ph->t_measure + b->o.runtime_ns;
	}
	if (ph->measured) {
		b->measured_any = true;
		if (ph->t_measure == ph->t_start)
			ru_mark(b);
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
			stop_all(b);
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

		if (b->ru_marked && now > ph->t_measure)
			b->wall_ns += now - ph->t_measure;
		ru_account(b);
		phase_account(b, before);
	}
	if (kind == PH_LAYOUT)
		layout_done(b);
	return ret;
}

static int run_phases(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	unsigned int i, r;
	bool layout = false;
	int ret;

	b->started = true;
	for (i = 0; i < b->nfiles; i++)
		layout |= b->files[i].need_layout;
	if (layout) {
		ret = run_phase(b, PH_LAYOUT, RW_WRITE, -1);
		if (ret || atomic_load(&b->abort))
			return ret;
	}
	if (o->workload == WL_FIO) {
		ret = run_phase(b, PH_MAIN, o->rw, -1);
		if (ret || atomic_load(&b->abort))
			return ret;
	} else {
		for (r = 0; r < o->repetitions; r++) {
			if (o->rw != RW_READ) {
				ret = run_phase(b, PH_MAIN, RW_WRITE, (int)r);
				if (ret || atomic_load(&b->abort))
					return ret;
			}
			if (o->rw != RW_WRITE) {
				ret = run_phase(b, PH_MAIN, RW_READ, (int)r);
				if (ret || atomic_load(&b->abort))
					return ret;
			}
		}
	}
	if (o->verify && writes_data(o) &&
	    !(o->workload == WL_IOR && reads_after_write(o)))
		return run_phase(b, PH_VERIFY, RW_READ, -1);
	return 0;
}

static void kv_add(void *arg, const char *name, uint64_t value)
{
	struct bench *b = arg;

	if (b->nkv >= BENCH_MAX_KV || !name)
		return;
	snprintf(b->kv[b->nkv].name, sizeof(b->kv[b->nkv].name), "%s", name);
	b->kv[b->nkv].value = value;
	b->nkv++;
}

static const char *op_name(enum bench_op op)
{
	static const char *const n[] = {"read", "write", "null", "getattr"};

	return op < BENCH_OP_NR ? n[op] : "?";
}

static int report_errors(struct bench *b)
{
	int status = 0;
	unsigned int i;

	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];
		struct bench_job_err *e = &j->err;

		if (!atomic_load_explicit(&j->err_claimed,
					  memory_order_acquire))
			continue;
		if (e->status == -EILSEQ) {
			bench_error("%s: verify: mismatch at offset %" PRIu64
				    " of %s (read of %u bytes at %" PRIu64
				    "): expected 0x%02x, got 0x%02x (block "
				    "last written by job %u, generation %u)",
				    j->name, e->bad_off,
				    j->info.filename ? j->info.filename : "?",
				    e->len, e->offset, e->expected, e->got,
				    (e->tag >> 16) & 0x7fff, e->tag & 0xffff);
			status = -EILSEQ;
		} else {
			bench_error("%s: %s of %u bytes at offset %" PRIu64
				    " failed: %s (%s)",
				    j->name, op_name(e->op), e->len, e->offset,
				    strerror(-e->status), e->what);
			if (!status)
				status = -EIO;
		}
	}
	return status;
}

int bench_run(struct bench *b)
{
	struct sigaction sa, old_int, old_term;
	int ret;

	if (!b || !b->parsed || b->ran)
		return -EINVAL;
	b->ran = true;
	b->start_time = time(NULL);
	ret = b->ops->setup ? b->ops->setup(b->priv, &b->cfg, &b->lim) : 0;
	if (ret) {
		bench_error("%s set-up failed: %s", b->ops->name,
			    strerror(ret < 0 ? -ret : ret));
		b->status = ret < 0 ? ret : -EIO;
		return b->status;
	}
	b->set_up = true;
	if (b->lim.max_io && b->cfg.bs > b->lim.max_io) {
		bench_error("--bs %zu is larger than the %s back-end's largest "
			    "transfer, %zu bytes",
			    b->cfg.bs, b->ops->name, b->lim.max_io);
		b->usage_error = true;
		ret = -EINVAL;
		goto out_teardown;
	}
	if (!bench_rw_meta(b->o.rw)) {
		size_t lt = b->cfg.max_len;

		if (b->lim.max_io && lt > b->lim.max_io)
			lt = b->lim.max_io;
		b->layout_bs = lt / b->o.bs * b->o.bs;
		if (b->layout_bs < b->o.bs)
			b->layout_bs = b->o.bs;
	}
	ret = jobs_create(b);
	if (ret) {
		bench_error("cannot allocate the jobs: %s", strerror(-ret));
		goto out_teardown;
	}
	ret = jobs_open(b);
	if (ret)
		goto out_close;

	bench_sigint = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	bench_progress_start(b);
	ret = run_phases(b);
	bench_progress_end(b);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (b->ops->stats)
		b->ops->stats(b->priv, kv_add, b);
	if (!ret)
		ret = report_errors(b);
	if (!ret && b->interrupted) {
		bench_error("interrupted");
		ret = -EINTR;
	}
out_close:
	jobs_close(b);
out_teardown:
	if (b->ops->teardown)
		b->ops->teardown(b->priv);
	b->set_up = false;
	b->status = ret;
	return ret;
}

int bench_report(struct bench *b, FILE *f)
{
	FILE *out = f;
	int ret;

	if (!b || !b->started)
		return -EINVAL;
	if (!out && b->o.output) {
		out = fopen(b->o.output, "w");
		if (!out) {
			ret = -errno;
			bench_error("--output %s: %s", b->o.output,
				    strerror(-ret));
			return ret;
		}
	} else if (!out) {
		out = stdout;
	}
	if (b->o.fmt == FMT_JSON)
		ret = bench_report_json(b, out);
	else
		ret = bench_report_normal(b, out);
	if (fflush(out) && !ret)
		ret = -errno;
	if (out != f && out != stdout && fclose(out) && !ret)
		ret = -errno;
	return ret;
}

void bench_destroy(struct bench *b)
{
	unsigned int i, d;

	if (!b)
		return;
	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		for (d = 0; d < DIR_NR; d++)
			free(j->hist[d]);
		free(j->bufs);
		free(j->slots_mem);
	}
	free(b->jobs);
	for (i = 0; i < b->nfiles; i++) {
		free(b->files[i].name);
		free(b->files[i].state);
	}
	free(b->files);
	free(b->ior);
	if (b->ops->destroy)
		b->ops->destroy(b->priv);
	free(b->priv);
	free(b);
}

int bench_main(const struct bench_backend_ops *ops, int argc, char **argv)
{
	struct bench *b = bench_create(ops);
	int ret, rc;

	if (!b) {
		fprintf(stderr, "%s: cannot initialise the %s back-end\n",
			argc > 0 ? argv[0] : "bench",
			ops && ops->name ? ops->name : "?");
		return 1;
	}
	ret = bench_parse(b, argc, argv);
	if (ret) {
		bench_destroy(b);
		return ret == BENCH_PARSE_EXIT ? 0 : 2;
	}
	ret = bench_run(b);
	rc = ret ? (b->usage_error ? 2 : 1) : 0;
	if (b->started && rc != 2 && bench_report(b, NULL))
		rc = 1;
	bench_destroy(b);
	return rc;
}
