/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The run: parse, set up, allocate, open, run the phases (phase.c), tear
 * down, report.
 *
 * Every per-run allocation happens here, before the first I/O: the slots
 * with the back-end's private areas behind them, one page-aligned buffer
 * region per job (handed to job_open() so an RDMA back-end can register
 * it once), three histograms per job, the verify state of each file.
 * Slots are cache-line aligned and sized for the larger of the workload's
 * iodepth and the layout's depth; a job's buffers are the workload's bs
 * buffers, overlaid by the layout's larger ones (the phases never run at
 * the same time).
 *
 * Errors found on completion threads are only recorded there (they must
 * not block on a terminal); they are printed here once the run is over.
 *
 * Under MPI (dist.h) every step that can fail on one rank only - opening
 * the output files, setting up, opening the jobs - ends with an agreement
 * of all ranks, so that either every rank goes on to the next collective
 * step or none does: a rank that stopped alone would leave the others
 * waiting forever at the next barrier.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxprt/call.h>

#include "engine_int.h"

#define LAYOUT_TARGET (1u << 20)
#define PAGE	      4096u

static void on_sigint(int sig)
{
	(void)sig;
	atomic_store_explicit(&bench_sigint, 1, memory_order_relaxed);
}

bool bench_interrupted(void)
{
	return atomic_load_explicit(&bench_sigint, memory_order_relaxed) != 0;
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
	bench_dist_join(b, NULL);
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

static unsigned int slots_per_job(const struct bench_opts *o)
{
	if (bench_may_layout(o) && o->iodepth < BENCH_LAYOUT_DEPTH)
		return BENCH_LAYOUT_DEPTH;
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
	c->timeo_ds = o->timeo_ds;
	c->retrans = o->retrans;
	c->hard = o->hard;
	c->zerocopy = o->zerocopy;
	c->xprt_mode = o->xprt_mode;
	c->uid = o->uid;
	c->gid = o->gid;
	c->numjobs = o->numjobs;
	c->iodepth = o->iodepth;
	c->job_inflight = slots_per_job(o);
	c->max_inflight = o->numjobs * c->job_inflight;
	/* the largest I/O: a back-end checks it against its transfer size */
	c->bs = o->rw == RW_NULL || o->rw == RW_GETATTR ? 0 : o->bs_max;
	c->size = o->size;
	c->verify = o->verify;
	c->end_fsync = o->end_fsync;
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
		if (bench_writes_data(o) || bench_may_layout(o))
			c->ops_used |= BENCH_OP_BIT(BENCH_OP_WRITE);
		if (o->fsync_every && bench_writes_data(o))
			c->ops_used |= BENCH_OP_BIT(BENCH_OP_FSYNC);
	}
	c->max_len = c->bs;
	if (bench_may_layout(o)) {
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
	ret = bench_outputs_open(b);
	if (ret)
		return ret;
	ret = bench_log_open(b);
	if (ret)
		return ret;
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

/*
 * fio's percentages of a file's real size (--size=P%, --offset=P%): ask
 * the back-end (after setup(), before any job_open()).  fio refuses a
 * size percentage of a file that does not exist ("you need to specify
 * size="); an offset percentage of one is 0.
 */
static int file_real_size(struct bench *b, const char *name, uint64_t *real)
{
	const struct bench_opts *o = &b->o;
	const char *what = o->size_pct ? "--size" : "--offset";
	unsigned int pct = o->size_pct ? o->size_pct : o->offset_pct;
	int ret;

	*real = 0;
	if (!o->size_pct && !o->offset_pct)
		return 0;
	if (!b->ops->stat) {
		bench_error(
			"%s %u%%: the %s back-end cannot tell a file's size",
			what, pct, b->ops->name);
		return -EINVAL;
	}
	ret = b->ops->stat(b->priv, name, real);
	if (ret == -ENOENT && !o->size_pct)
		return 0;
	if (ret == -ENOENT) {
		bench_error("%s: --size %u%% is a percentage of the file's "
			    "size, and it does not exist: you need to specify "
			    "size= in bytes (as fio says)",
			    name, o->size_pct);
		return -EINVAL;
	}
	if (ret) {
		bench_error("%s: cannot tell its size for %s %u%%: %s", name,
			    what, pct, strerror(ret < 0 ? -ret : ret));
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

static int files_create(struct bench *b)
{
	const struct bench_opts *o = &b->o;
	const char *dir = o->directory, *sep = dir ? "/" : "";
	unsigned int i;
	uint64_t real;
	int n, ret;

	if (o->rw == RW_NULL)
		return 0;
	/* shared files (--filename): nrfiles of them for all jobs; else
	 * nrfiles per job, fio's $jobname.$jobnum.$filenum */
	b->nfiles = o->nrfiles * (o->filename ? 1 : o->numjobs);
	b->files = calloc(b->nfiles, sizeof(*b->files));
	if (!b->files)
		return -ENOMEM;
	for (i = 0; i < b->nfiles; i++) {
		struct bench_file *f = &b->files[i];
		unsigned int k = i % o->nrfiles;

		if (o->filename && o->nfilenames)
			n = asprintf(&f->name, "%s%s%s", dir ? dir : "", sep,
				     o->filenames[k]);
		else if (o->filename && o->nrfiles > 1)
			n = asprintf(&f->name, "%s%s%s.%u", dir ? dir : "", sep,
				     o->filename, k);
		else if (o->filename)
			n = asprintf(&f->name, "%s%s%s", dir ? dir : "", sep,
				     o->filename);
		else /* the job's global number: ranks' files differ */
			n = asprintf(
				&f->name, "%s%s%s.%u.%u", dir ? dir : "", sep,
				o->name,
				bench_rank(b) * o->numjobs + i / o->nrfiles, k);
		if (n < 0) {
			f->name = NULL;
			return -ENOMEM;
		}
		ret = file_real_size(b, f->name, &real);
		if (ret)
			return ret;
		bench_region(o, real, &f->size, &f->base);
		if (o->size_pct && f->size - f->base < o->bs) {
			bench_error(
				"%s: --size %u%% of its %" PRIu64
				" bytes%s is less than a block (--bs %" PRIu64
				")",
				f->name, o->size_pct, real,
				o->offset_pct ? " after --offset" : "", o->bs);
			return -EINVAL;
		}
		f->bs = (uint32_t)o->bs;
		f->nblocks = bench_region_blocks(o, f->size - f->base);
		f->layout_job = o->filename ? 0 : i / o->nrfiles;
		/* fio's offset_increment: job k's region starts k increments
		 * further (k the global job number): a job's own file is
		 * that much longer, a shared one holds every job's region */
		if (o->offset_inc && o->filename) {
			f->size += o->offset_inc *
				   ((uint64_t)bench_nranks(b) * o->numjobs - 1);
		} else if (o->offset_inc) {
			uint64_t job = (uint64_t)bench_rank(b) * o->numjobs +
				       i / o->nrfiles;

			f->base += o->offset_inc * job;
			f->size += o->offset_inc * job;
		}
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
	uint64_t base;

	j->b = b;
	j->info.index = i;
	j->info.owner = (uint64_t)i + 1;
	/* no file (--rw null): the size the options say */
	bench_region(o, 0, &j->info.size, &base);
	j->rank = bench_rank(b);
	j->gid = bench_rank(b) * o->numjobs + i;
	snprintf(j->name, sizeof(j->name), "%s%u", o->name, j->gid);
	/* the global number: every rank's jobs draw their own offsets */
	j->key = bench_mix64(o->seed ^
			     ((uint64_t)j->gid + 1) * 0x9e3779b97f4a7c15ull);
	if (b->files) {
		unsigned int f0 = o->filename ? 0 : i * o->nrfiles;

		j->nfiles = o->nrfiles;
		j->jfiles = calloc(j->nfiles, sizeof(*j->jfiles));
		if (j->nfiles > 1)
			j->xinfo = calloc(j->nfiles - 1, sizeof(*j->xinfo));
		if (!j->jfiles || (j->nfiles > 1 && !j->xinfo))
			return -ENOMEM;
		j->file = &b->files[f0];
		j->file_rank = j->file->nusers;
		j->info.shared = o->filename != NULL && o->numjobs > 1;
		j->info.open_flags = o->no_create ? 0 : BENCH_OPEN_CREATE;
		if (bench_writes_data(o))
			j->info.open_flags |=
				BENCH_OPEN_WRITE | BENCH_OPEN_EXTEND;
		else if (bench_may_layout(o))
			j->info.open_flags |=
				BENCH_OPEN_WRITE | BENCH_OPEN_LAYOUT;
		for (k = 0; k < j->nfiles; k++) {
			struct bench_job_info *fi = bench_job_finfo(j, k);

			j->jfiles[k] = &b->files[f0 + k];
			j->jfiles[k]->nusers++;
			if (k)
				*fi = j->info;
			fi->filename = j->jfiles[k]->name;
			fi->size = j->jfiles[k]->size;
			fi->filenum = k;
		}
	}
	j->nslots = slots_per_job(o);
	j->slot_stride = hdr + round_up(b->ops->io_priv_size, BENCH_CACHELINE);
	j->slots_mem =
		aligned_alloc(BENCH_CACHELINE, j->slot_stride * j->nslots);
	if (!j->slots_mem)
		return -ENOMEM;
	memset(j->slots_mem, 0, j->slot_stride * j->nslots);

	if (!bench_rw_meta(o->rw)) {
		blen = (size_t)o->iodepth * o->bs_max;
		if (bench_may_layout(o) &&
		    BENCH_LAYOUT_DEPTH * b->layout_bs > blen)
			blen = BENCH_LAYOUT_DEPTH * b->layout_bs;
		blen = round_up(blen, PAGE);
		if (posix_memalign(&j->bufs, PAGE, blen))
			return -ENOMEM;
		j->bufs_len = blen;
		fill_random(j->bufs, blen, j->key);
		j->info.buf_base = j->bufs;
		j->info.buf_len = blen;
		for (k = 1; k < j->nfiles; k++) {
			j->xinfo[k - 1].buf_base = j->bufs;
			j->xinfo[k - 1].buf_len = blen;
		}
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
				s->buf =
					(char *)j->bufs + (size_t)k * o->bs_max;
			if (k < BENCH_LAYOUT_DEPTH && bench_may_layout(o))
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

/* Gray et al.'s zipf constants for the region's blocks (fio sums at most
 * 10 million terms of zeta too) */
static void zipf_setup(struct bench *b)
{
	double theta = b->o.dist_arg, zeta2, n;
	uint64_t i, nn;

	n = (double)(b->nfiles ? b->files[0].nblocks : b->o.size / b->o.bs);
	if (n < 2)
		n = 2;
	nn = n > 1e7 ? 10000000 : (uint64_t)n;
	b->zipf_zetan = 0;
	for (i = 1; i <= nn; i++)
		b->zipf_zetan += pow((double)i, -theta);
	zeta2 = 1.0 + pow(0.5, theta);
	b->zipf_alpha = 1.0 / (1.0 - theta);
	b->zipf_eta = (1.0 - pow(2.0 / n, 1.0 - theta)) /
		      (1.0 - zeta2 / b->zipf_zetan);
}

static int jobs_create(struct bench *b)
{
	unsigned int i;
	int ret;

	ret = files_create(b);
	if (ret)
		return ret;
	/* --size P%: the reports give the first file's region in bytes */
	if (b->o.size_pct && b->nfiles) {
		b->o.size = b->files[0].size - b->files[0].base;
		b->cfg.size = b->o.size;
	}
	if (b->o.dist == DIST_ZIPF)
		zipf_setup(b);
	if (b->o.workload == WL_IOR) {
		ret = bench_ior_alloc(b);
		if (ret)
			return ret;
	}
	b->jobs = calloc(b->o.numjobs, sizeof(*b->jobs));
	if (!b->jobs)
		return -ENOMEM;
	b->njobs = b->o.numjobs;
	for (i = 0; i < b->njobs; i++) {
		ret = job_create(b, &b->jobs[i], i);
		if (ret)
			return ret;
		ret = bench_rep_add(b, &b->jobs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int jobs_open(struct bench *b)
{
	unsigned int i, k, n;
	int ret;

	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		n = j->nfiles ? j->nfiles : 1; /* --rw null: no file, once */
		for (k = 0; k < n; k++) {
			struct bench_job_info *fi = bench_job_finfo(j, k);
			struct bench_file *f = j->nfiles ? j->jfiles[k] : NULL;

			ret = b->ops->job_open(b->priv, fi);
			if (ret) {
				bench_error("%s: cannot open %s: %s", j->name,
					    fi->filename ? fi->filename :
							   "(no file)",
					    strerror(ret < 0 ? -ret : ret));
				return ret < 0 ? ret : -EIO;
			}
			j->opened = true;
			j->nopened = k + 1;
			/* a file all ranks share is laid out by rank 0
			 * alone */
			if (f && f->layout_job == i &&
			    bench_may_layout(&b->o) &&
			    !(b->o.filename && bench_rank(b)) &&
			    (fi->file_size < f->size || b->o.verify))
				f->need_layout = true;
			if (f && f->need_layout && fi->read_only) {
				bench_error(
					"%s: %s must be written first (%s) "
					"but the server lets it be opened "
					"for reading only",
					j->name, fi->filename,
					b->o.verify ?
						"--verify lays it out" :
						"it is shorter than --size");
				return -EROFS;
			}
		}
	}
	return 0;
}

static void jobs_close(struct bench *b)
{
	unsigned int i, k;

	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];

		if (!j->opened)
			continue;
		for (k = 0; b->ops->job_close && k < j->nopened; k++)
			b->ops->job_close(b->priv, bench_job_finfo(j, k));
		j->opened = false;
	}
}

static const char *op_name(enum bench_op op)
{
	static const char *const n[] = {"read", "write", "null", "getattr",
					"fsync"};

	return op < BENCH_OP_NR ? n[op] : "?";
}

/*
 * A word about an I/O error whose cause is on the server's side, once,
 * after the jobs' own messages: what to change to make the run pass.
 */
static void explain_io_error(struct bench *b, int err)
{
	const char *w = b->ops->where ? b->ops->where(b->priv) : NULL;

	if (!w || !*w)
		w = "the server";
	switch (err) {
	case -ENOSPC:
	case -EDQUOT:
		bench_error(
			"the file system behind %s is full (or over quota): "
			"free space there or use a smaller --size",
			w);
		break;
	case -EROFS:
		bench_error("%s is read-only: only reading workloads (--rw "
			    "read, randread, getattr, null) run there, on "
			    "files at least --size long, without --verify",
			    w);
		break;
	case -EACCES:
	case -EPERM:
		bench_error("%s refused the operation for uid %u gid %u "
			    "(--uid/--gid)",
			    w, b->cfg.uid, b->cfg.gid);
		break;
	case -ESTALE:
		bench_error("a job's file was removed from %s during the run",
			    w);
		break;
	default:
		break;
	}
}

static int report_errors(struct bench *b)
{
	int status = 0, first_io = 0;
	unsigned int i;

	for (i = 0; i < b->njobs; i++) {
		struct bench_job *j = &b->jobs[i];
		struct bench_job_err *e = &j->err;

		if (!atomic_load_explicit(&j->err_claimed,
					  memory_order_acquire))
			continue;
		if (e->what && !strcmp(e->what, "check_min_rate")) {
			/* said when it was found (phase.c) */
			if (!status)
				status = -EIO;
		} else if (e->status == -EILSEQ) {
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
			if (!first_io)
				first_io = e->status;
			if (!status)
				status = -EIO;
		}
	}
	explain_io_error(b, first_io);
	if (first_io && b->ops->explain)
		b->ops->explain(b->priv, first_io);
	return status;
}

/* Set up, size, allocate and open the jobs: the steps before the run. */
static int run_prepare(struct bench *b)
{
	int ret;

	ret = b->ops->setup ? b->ops->setup(b->priv, &b->cfg, &b->lim) : 0;
	if (ret) {
		/* the back-ends return libxprt's errnos: its texts, not
		 * libc's ("program unavailable", not "Protocol family not
		 * supported") */
		bench_error("%s set-up failed: %s", b->ops->name,
			    lx_strerror(ret));
		return ret < 0 ? ret : -EIO;
	}
	b->set_up = true;
	if (b->lim.max_io && b->cfg.bs > b->lim.max_io) {
		bench_error("--bs %zu is larger than the %s back-end's largest "
			    "transfer, %zu bytes",
			    b->cfg.bs, b->ops->name, b->lim.max_io);
		b->usage_error = true;
		return -EINVAL;
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
		/* other errors (a file's size) are reported already */
		if (ret == -ENOMEM)
			bench_error("cannot allocate the jobs: %s",
				    strerror(-ret));
		return ret;
	}
	ret = bench_fiolog_open(b);
	if (ret) {
		if (ret == -ENOMEM)
			bench_error("fio logs: out of memory");
		return ret;
	}
	return jobs_open(b);
}

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int sig_users;
static struct sigaction old_int, old_term;

int bench_run(struct bench *b)
{
	struct sigaction sa;
	int ret;

	if (!b || !b->parsed || b->ran)
		return -EINVAL;
	b->ran = true;
	/* fio's startdelay: this job (a job file's section) starts that
	 * much after the others, files and all; ^C (seen while another
	 * section runs) ends the wait */
	if (b->o.startdelay_ns) {
		uint64_t until = bench_now_ns() + b->o.startdelay_ns, now;

		while (!bench_sigint && (now = bench_now_ns()) < until) {
			uint64_t left = until - now < 100000000ull ?
						until - now :
						100000000ull;
			struct timespec ts = {.tv_sec = 0,
					      .tv_nsec = (long)left};

			nanosleep(&ts, NULL);
		}
	}
	bench_report_begin(b);
	ret = run_prepare(b);
	/* every rank runs the phases, or none */
	ret = bench_dist_agree(b, ret);
	if (ret)
		goto out_close;

	/* the first of the runs going on (a job file's sections may run
	 * together) installs the handlers, the last restores them */
	pthread_mutex_lock(&sig_lock);
	if (!sig_users++) {
		bench_sigint = 0;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	}
	pthread_mutex_unlock(&sig_lock);
	bench_progress_start(b);
	ret = bench_run_phases(b);
	bench_progress_end(b);
	pthread_mutex_lock(&sig_lock);
	if (!--sig_users) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	pthread_mutex_unlock(&sig_lock);

	if (!ret && b->ops->job_end && !atomic_load(&b->abort))
		ret = bench_jobs_call(b, b->ops->job_end);
	if (b->ops->stats)
		b->ops->stats(b->priv, bench_kv_add, b);
	if (bench_fiolog_on(b))
		bench_kv_add(b, "log_dropped", bench_fiolog_dropped(b));
	if (!ret)
		ret = report_errors(b);
	else
		explain_io_error(b, ret); /* a failed COMMIT or sync, say */
	if (!ret && b->interrupted) {
		bench_error("interrupted");
		ret = -EINTR;
	}
out_close:
	jobs_close(b);
	if (b->set_up && b->ops->teardown)
		b->ops->teardown(b->priv);
	b->set_up = false;
	b->status = ret;
	return ret;
}

void bench_destroy(struct bench *b)
{
	unsigned int i;

	if (!b)
		return;
	bench_fiolog_close(b); /* it clears the jobs' ring pointers */
	for (i = 0; i < b->njobs; i++)
		bench_job_free(&b->jobs[i]);
	bench_report_free(b);
	free(b->jobs);
	for (i = 0; i < b->nfiles; i++) {
		free(b->files[i].name);
		free(b->files[i].state);
	}
	free(b->files);
	bench_outputs_close(b);
	bench_log_close(b);
	if (b->ops->destroy)
		b->ops->destroy(b->priv);
	free(b->priv);
	free(b);
}
