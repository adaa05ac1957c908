/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command line: fio's option names and units, presets, the back-end's
 * own options, and the checks that turn impossible combinations into one
 * clear sentence and exit status 2 before anything connects.
 *
 * Parsing order: presets first (wherever --preset appears), then every
 * other option in command-line order, so an explicit flag always overrides
 * a preset.  The engine's options (options.c, one parse callback each),
 * the back-end's and fio's other names go into one table resolved as fio
 * resolves its own (optparse.h); both "--bs 4k" and "--bs=4k" work, and
 * fio's underscore spellings (--ramp_time) are accepted beside dashed
 * ones.
 */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxprt/url.h>
#include <libxprt/version.h>

#include "engine_int.h"
#include "optparse.h"
#include "options.h"

/*
 * The ids of the resolver's table (optparse.h): an engine option's is its
 * index in bench_engine_opts[], a back-end option's OPT_BACKEND_BASE plus
 * its index; fio's names the engine does not implement are noted or
 * refused.
 */
enum {
	OPT_NOTE = -1,	   /* a fio option accepted with a note */
	OPT_FIO_ONLY = -2, /* a fio option with no meaning here */
	OPT_BACKEND_BASE = 1000,
};

/*
 * fio options that mean nothing different for a network client: accepted,
 * with one line saying how they are read.  Every other fio option this
 * engine does not implement is refused by name (exit 2).
 */
static const struct {
	const char *name;
	const char *note;
} fio_notes[] = {
	{"ioengine", "the %s back-end does every I/O (asynchronous calls over "
		     "libxprt, iodepth of them in flight per job)"},
	{"direct", "there is no client page cache: every I/O is a call to the "
		   "server, with or without O_DIRECT"},
	{"buffered", "there is no client page cache: every I/O is a call to "
		     "the server"},
	{"thread", "jobs are always threads of this one process"},
	{"invalidate", "there is no client cache to invalidate"},
	{"fadvise_hint", "there is no client cache to advise"},
	{"disk_util", "there is no local disk to watch"},
	{"iomem", "I/O buffers are the engine's own page-aligned memory"},
	{"mem", "I/O buffers are the engine's own page-aligned memory"},
	{"exitall", "the first error of any job stops every job anyway"},
	{"exitall_on_error", "the first error of any job stops every job"},
	{"refill_buffers", "write buffers hold random bytes, filled once (or "
			   "the verify pattern)"},
	{"scramble_buffers", "write buffers hold random bytes, filled once"},
	{"gtod_reduce", "latencies are always taken from CLOCK_MONOTONIC"},
	{"clocksource", "latencies are always taken from CLOCK_MONOTONIC"},
	{"create_on_open", "files are opened (and created) before the run"},
	{"unified_rw_reporting", "reads and writes are reported apart"},
	{"create_serialize", "files are created one after the other anyway"},
	{"create_fsync", "a layout's writes are made durable (the NFS COMMIT) "
			 "before the run"},
	{"disable_lat", "latencies are always recorded (lock-free histograms)"},
	{"disable_clat",
	 "latencies are always recorded (lock-free histograms)"},
	{"disable_slat", "submission is not timed apart from completion"},
	{"disable_bw_measurement", "bandwidth is always sampled, by the main "
				   "thread"},
	{"disable_bw", "bandwidth is always sampled, by the main thread"},
	{"log_prio", "the logs' priority column is always 0"},
	{"io_submit_mode", "completions resubmit inline, as fio's inline mode"},
	{"fill_device", "the file is --size long, the server's file system "
			"is not filled"},
	{"stats", "every job's figures are reported"},
	{"clat_percentiles", "completion latency percentiles are always "
			     "reported (clat_ns, fio's default)"},
};

#define N_FIO_NOTES (sizeof(fio_notes) / sizeof(fio_notes[0]))

static const struct bench_engine_opt *find_engine_opt(const char *name)
{
	return bench_engine_opt_find(name);
}

static int apply_preset(struct bench *b, const char *name)
{
	const struct bench_preset *p = bench_find_preset(name);
	unsigned int set = b->o.set;
	unsigned int i;
	int ret;

	if (!p) {
		bench_error("--preset: '%s' is not a preset (see --help)",
			    name);
		return -EINVAL;
	}
	for (i = 0; p->args[i]; i++) {
		const char *eq = strchr(p->args[i], '=');
		char oname[32];
		const struct bench_engine_opt *eo;

		snprintf(oname, sizeof(oname), "%.*s",
			 (int)(eq - p->args[i] - 2), p->args[i] + 2);
		eo = find_engine_opt(oname);
		if (!eo)
			return -EINVAL;
		ret = bench_engine_opt_apply(b, eo, eq + 1);
		if (ret)
			return ret;
	}
	/* a preset's values are defaults: only explicit flags take part in
	 * the combination checks */
	b->o.set = set;
	b->o.preset = p->name;
	return 0;
}

/* the smallest and largest I/O of the run: bs is the block unit */
static void finalize_bs(struct bench_opts *o)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int d, i;

	o->varbs = false;
	for (d = 0; d < 2; d++) {
		const struct bench_bsdist *bd = &o->bsd[d];

		if (bd->n) {
			for (i = 0; i < bd->n; i++) {
				lo = bd->len[i] < lo ? bd->len[i] : lo;
				hi = bd->len[i] > hi ? bd->len[i] : hi;
			}
			o->varbs = true;
		} else {
			lo = bd->lo < lo ? bd->lo : lo;
			hi = bd->hi > hi ? bd->hi : hi;
		}
	}
	if (lo != hi)
		o->varbs = true;
	o->bs = lo;
	o->bs_max = hi;
}

static int check_combinations(struct bench *b)
{
	struct bench_opts *o = &b->o;
	bool meta = bench_rw_meta(o->rw);

	finalize_bs(o);
	/* fio: --size is the job's total over its files */
	if (o->nfilenames > 1)
		o->nrfiles = o->nfilenames;
	o->file_bytes = o->size / o->nrfiles / o->bs * o->bs;
	/* fio's filesize: each file that long; a --size then only says how
	 * much to move, at most the files' sizes (fio 3.33: filesize=64k
	 * nrfiles=2 moves 128k with size=512k, 32k with size=32k) */
	if (o->filesize) {
		if (o->filesize < o->bs || o->size_pct ||
		    o->workload == WL_IOR) {
			bench_error("--filesize %" PRIu64 " takes a block "
				    "(--bs %" PRIu64 ") or more, a --size in "
				    "bytes and the fio workload",
				    o->filesize, o->bs);
			return -EINVAL;
		}
		o->file_bytes = o->filesize / o->bs * o->bs;
		if ((o->set & SET_SIZE) && !o->io_size)
			o->io_size = o->size < o->file_bytes * o->nrfiles ?
					     o->size :
					     o->file_bytes * o->nrfiles;
		if (!(o->set & SET_SIZE))
			o->size = o->file_bytes * o->nrfiles;
	}
	if (o->nrfiles > 1 && !o->file_bytes) {
		bench_error("--size %" PRIu64 " divided among %u files is less "
			    "than a block",
			    o->size, o->nrfiles);
		return -EINVAL;
	}
	if (o->nrfiles > 1 &&
	    (o->verify || o->workload == WL_IOR || bench_rw_meta(o->rw))) {
		bench_error("several files per job (--nrfiles, --filename "
			    "a:b) do not go with --verify, ior or --rw %s",
			    bench_rw_name(o->rw));
		return -EINVAL;
	}
	if (o->varbs && (o->verify || o->workload == WL_IOR)) {
		bench_error("--verify and --workload ior need one block size "
			    "(not --bs R,W, --bsrange or --bssplit)");
		return -EINVAL;
	}
	if (o->fsync_every &&
	    !(b->ops->ops_supported & BENCH_OP_BIT(BENCH_OP_FSYNC))) {
		bench_error("--fsync: the %s back-end has no sync operation",
			    b->ops->name);
		return -EINVAL;
	}
	if (o->xprt_mode == BENCH_XPRT_CALLER && !b->ops->job_service) {
		bench_error("--libxprt-mode caller: the %s back-end has no "
			    "caller-driven mode",
			    b->ops->name);
		return -EINVAL;
	}
	if (o->dist != DIST_RANDOM && o->verify) {
		bench_error("--random_distribution %s draws blocks with "
			    "repeats: --verify needs the random map",
			    o->dist == DIST_ZIPF      ? "zipf" :
			    o->dist == DIST_PARETO    ? "pareto" :
			    o->dist == DIST_ZONED     ? "zoned" :
			    o->dist == DIST_ZONED_ABS ? "zoned_abs" :
							"normal");
		return -EINVAL;
	}

	if ((o->set & SET_FILENAME) && (o->set & SET_FILE_PER_JOB)) {
		bench_error("--filename and --file-per-job exclude each other");
		return -EINVAL;
	}
	/* fio ignores --rwmixread where nothing is mixed (the seed thread's
	 * randread command line has rwmixread=100): so does the engine */
	if (!(b->ops->ops_supported & BENCH_OP_BIT(BENCH_OP_NULL)) &&
	    o->rw == RW_NULL) {
		bench_error("the %s back-end has no null operation",
			    b->ops->name);
		return -EINVAL;
	}
	if (!(b->ops->ops_supported & BENCH_OP_BIT(BENCH_OP_GETATTR)) &&
	    o->rw == RW_GETATTR) {
		bench_error("the %s back-end has no getattr operation",
			    b->ops->name);
		return -EINVAL;
	}
	if (o->rw_seq > 1 && o->verify) {
		bench_error("rw=%s:%u overlaps its sequential runs: --verify "
			    "needs each block once per pass",
			    bench_rw_name(o->rw), o->rw_seq);
		return -EINVAL;
	}
	if (o->norandommap && o->verify) {
		bench_error("--verify keeps one I/O per block: it needs the "
			    "random map (drop --norandommap)");
		return -EINVAL;
	}
	if (meta && o->verify) {
		bench_error("--verify needs a data workload, not --rw %s",
			    bench_rw_name(o->rw));
		return -EINVAL;
	}
	if (meta && !o->runtime_ns && !o->number_ios) {
		bench_error("--rw %s has no size to finish: give --runtime or "
			    "--number_ios",
			    bench_rw_name(o->rw));
		return -EINVAL;
	}
	if (o->workload == WL_IOR) {
		if (o->rw != RW_READ && o->rw != RW_WRITE && o->rw != RW_RW) {
			bench_error("--workload ior runs sequential phases: "
				    "--rw write, read or rw (both), not %s",
				    bench_rw_name(o->rw));
			return -EINVAL;
		}
		if (o->set & SET_FILENAME) {
			bench_error("--workload ior is file per job; drop "
				    "--filename");
			return -EINVAL;
		}
		if (o->runtime_ns || o->ramp_ns || o->number_ios) {
			bench_error("--workload ior moves whole blocks: "
				    "--runtime, --ramp_time and --number_ios "
				    "do not apply");
			return -EINVAL;
		}
		if (o->set & SET_RWMIX) {
			bench_error("--workload ior runs its phases one after "
				    "the other; --rwmixread does not apply");
			return -EINVAL;
		}
	} else if (o->set & SET_REPS) {
		bench_error("--repetitions applies to --workload ior");
		return -EINVAL;
	}
	for (unsigned int d = 0; d < 2; d++) {
		/* fio refuses these: "minimum rate exceeds rate" */
		if (o->rate_bps[d] && o->rate_min_bps[d] > o->rate_bps[d]) {
			bench_error("--rate_min %" PRIu64
				    " exceeds --rate %" PRIu64
				    " (%s): it could never be met",
				    o->rate_min_bps[d], o->rate_bps[d],
				    d ? "writes" : "reads");
			return -EINVAL;
		}
		if (o->rate_iops[d] && o->rate_iops_min[d] > o->rate_iops[d]) {
			bench_error("--rate_iops_min %" PRIu64
				    " exceeds --rate_iops %" PRIu64
				    " (%s): it could never be met",
				    o->rate_iops_min[d], o->rate_iops[d],
				    d ? "writes" : "reads");
			return -EINVAL;
		}
	}
	if ((o->rate_min_bps[0] || o->rate_min_bps[1] || o->rate_iops_min[0] ||
	     o->rate_iops_min[1]) &&
	    (meta || o->workload == WL_IOR)) {
		bench_error("--rate_min and --rate_iops_min apply to a fio "
			    "workload that moves data");
		return -EINVAL;
	}
	if (o->rw_back &&
	    (o->varbs || o->workload == WL_IOR || o->verify || o->offset ||
	     o->offset_pct || o->size_pct || o->rw_back <= o->bs ||
	     o->rw_back > (o->file_bytes ? o->file_bytes : o->size))) {
		bench_error("--rw %s:-%" PRIu64 " walks back %" PRIu64
			    " bytes from the end of each I/O: it takes one "
			    "--bs smaller than that, files (--size, "
			    "--filesize) at least that large, no --offset, no "
			    "--verify, and "
			    "the fio workload",
			    bench_rw_name(o->rw), o->rw_back, o->rw_back);
		return -EINVAL;
	}
	if (o->offset_inc &&
	    (meta || o->workload == WL_IOR || o->rw_back || o->rw_hole ||
	     o->size_pct || o->offset_pct || (o->verify && o->filename) ||
	     o->offset_inc % o->bs)) {
		bench_error("--offset_increment %" PRIu64
			    " takes whole blocks, "
			    "sizes and offsets in bytes, the fio workload, no "
			    "holes, and no --verify of a shared --filename",
			    o->offset_inc);
		return -EINVAL;
	}
	if (o->rw_hole && (o->varbs || o->workload == WL_IOR)) {
		bench_error("--rw %s:%" PRIu64 " (holes after each I/O) takes "
			    "one block size (--bs) and the fio workload",
			    bench_rw_name(o->rw), o->rw_hole);
		return -EINVAL;
	}
	if (o->size_pct && (meta || o->workload == WL_IOR || o->verify)) {
		bench_error("--size %u%% (of the file's size) does not go with "
			    "%s: give --size in bytes",
			    o->size_pct,
			    meta ? "a workload without data" :
			    o->workload == WL_IOR ?
				   "--workload ior" :
				   "--verify (it lays the file "
				   "out first)");
		return -EINVAL;
	}
	if (o->io_size && (meta || o->workload == WL_IOR)) {
		bench_error("--io_size applies to a fio workload that moves "
			    "data");
		return -EINVAL;
	}
	if (o->io_size && o->io_size < o->bs) {
		bench_error("--io_size %" PRIu64 " is less than a block (--bs "
			    "%" PRIu64 ")",
			    o->io_size, o->bs);
		return -EINVAL;
	}
	if (!meta && !o->size_pct) {
		if (o->bs > o->size) {
			bench_error("--bs %" PRIu64 " is larger than --size "
				    "%" PRIu64,
				    o->bs, o->size);
			return -EINVAL;
		}
		if (o->offset % o->bs) {
			bench_error("--offset %" PRIu64 " is not a multiple of "
				    "--bs %" PRIu64,
				    o->offset, o->bs);
			return -EINVAL;
		}
		if (o->size % o->bs) {
			bench_error("--size %" PRIu64 " is not a multiple of "
				    "--bs %" PRIu64,
				    o->size, o->bs);
			return -EINVAL;
		}
	}
	if ((uint64_t)o->numjobs * o->iodepth > (1u << 20)) {
		bench_error("--numjobs x --iodepth = %" PRIu64 " I/Os in "
			    "flight; at most %u",
			    (uint64_t)o->numjobs * o->iodepth, 1u << 20);
		return -EINVAL;
	}
	if ((o->log_per_job || (o->set & SET_LOG_INTERVAL)) && !o->log_file) {
		bench_error("--log_per_job and --log_interval shape the "
			    "--write_log file: give --write_log FILE too");
		return -EINVAL;
	}
	if (o->log_per_job && o->numjobs > BENCH_LOG_MAX_JOBS) {
		bench_error("--log_per_job keeps a histogram copy per job: at "
			    "most %u jobs (log the aggregate instead)",
			    BENCH_LOG_MAX_JOBS);
		return -EINVAL;
	}
	if (bench_nranks(b) > 1 && o->verify && o->filename) {
		bench_error("--verify tracks a shared --filename's blocks in "
			    "one process: it cannot with %u MPI ranks (use "
			    "file per job)",
			    bench_nranks(b));
		return -EINVAL;
	}
	if (o->verify) {
		uint64_t nblk = bench_region_blocks(o, o->size);
		uint64_t sharers = o->filename ? o->numjobs : 1;

		if (nblk > (1ull << 28)) {
			bench_error("--verify tracks every block: %" PRIu64
				    " blocks per file is too many (at most "
				    "2^28; raise --bs or lower --size)",
				    nblk);
			return -EINVAL;
		}
		if (nblk < 2ull * o->iodepth * sharers) {
			bench_error("--verify keeps I/Os on distinct blocks: "
				    "a file needs at least 2 x iodepth x jobs "
				    "sharing it = %" PRIu64 " blocks, it has "
				    "%" PRIu64,
				    (uint64_t)(2ull * o->iodepth * sharers),
				    nblk);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The table options are resolved in: the back-end's options first (its
 * --server is not fio's), then the engine's, then every other fio name.
 */
static struct bench_optdef *build_table(struct bench *b, unsigned int *n)
{
	const struct bench_option *bo;
	struct bench_optdef *t;
	unsigned int nb = 0, i, k = 0, j;

	for (bo = b->ops->options; bo && bo->name; bo++)
		nb++;
	if (bench_engine_nopts > OPT_BACKEND_BASE)
		return NULL; /* the ids would overlap */
	t = calloc(nb + bench_engine_nopts + bench_fio_nnames, sizeof(*t));
	if (!t)
		return NULL;
	for (i = 0; i < nb; i++) {
		bo = &b->ops->options[i];
		if (find_engine_opt(bo->name)) {
			bench_error("back-end option --%s clashes with an "
				    "engine option",
				    bo->name);
			free(t);
			return NULL;
		}
		t[k].name = bo->name;
		t[k].id = OPT_BACKEND_BASE + (int)i;
		t[k].arg = bo->arg ? FA_REQ : FA_NONE;
		k++;
	}
	for (i = 0; i < bench_engine_nopts; i++, k++) {
		t[k].name = bench_engine_opts[i].name;
		t[k].id = (int)i;
		t[k].arg = bench_engine_opts[i].arg;
		t[k].exact = bench_engine_opts[i].flags & BENCH_EO_EXACT;
	}
	for (i = 0; i < bench_fio_nnames; i++) {
		const struct bench_fio_name *fn = &bench_fio_names[i];

		for (j = 0; j < k; j++)
			if (!strcmp(t[j].name, fn->name))
				break;
		if (j < k)
			continue; /* implemented (or the back-end's) */
		t[k].name = fn->name;
		t[k].id = OPT_FIO_ONLY;
		t[k].arg = fn->arg;
		for (j = 0; j < N_FIO_NOTES; j++)
			if (!strcmp(fio_notes[j].name, fn->name))
				t[k].id = OPT_NOTE;
		k++;
	}
	*n = k;
	return t;
}

/* fio's "job options" list the options of the job, not those of the
 * program's run (output, eta...) */
static bool job_option(int id)
{
	if (id == OPT_NOTE)
		return true;
	if (id < 0)
		return false;
	if (id >= OPT_BACKEND_BASE)
		return true;
	return !(bench_engine_opts[id].flags & BENCH_EO_RUN);
}

/* the engine option a resolved entry is, or NULL */
static const struct bench_engine_opt *engine_opt_of(int id)
{
	if (id < 0 || id >= OPT_BACKEND_BASE)
		return NULL;
	return &bench_engine_opts[id];
}

/* notes already printed, so that a job file's sections say each once */
static char notes_said[N_FIO_NOTES];

/** bench_notes_reset() - every note may be printed again (once) */
void bench_notes_reset(void)
{
	memset(notes_said, 0, sizeof(notes_said));
}

static void fio_note(struct bench *b, const char *opt, const char *value)
{
	char how[256];
	unsigned int i;

	for (i = 0; i < N_FIO_NOTES; i++) {
		if (strcmp(fio_notes[i].name, opt))
			continue;
		if (notes_said[i])
			return;
		notes_said[i] = 1;
		/* the formats take the back-end's name at most */
		snprintf(how, sizeof(how), fio_notes[i].note, b->ops->name);
		bench_note(opt, value, how);
		return;
	}
}

static int usage_err(struct bench *b)
{
	if (!bench_mute)
		fprintf(stderr, "Try '%s --help' for more information.\n",
			bench_prog_name);
	return -EINVAL;
}

/* --preset, wherever it is, before everything else */
static int apply_presets(struct bench *b, const struct bench_optdef *t,
			 unsigned int n, int argc, char **argv)
{
	struct bench_optscan sc = {
		.argc = argc, .argv = argv, .i = 1, .defs = t, .ndefs = n};
	const struct bench_optdef *d;
	const char *val, *given;
	int ret;

	bench_mute_push();
	while ((ret = bench_optscan_next(&sc, &d, &val, &given)) !=
	       BENCH_OPT_END) {
		if (ret < 0)
			break; /* the real pass reports it */
		if (ret == 0 && engine_opt_of(d->id) &&
		    (engine_opt_of(d->id)->flags & BENCH_EO_PRESET) && val) {
			bench_mute_pop();
			ret = apply_preset(b, val);
			if (ret)
				return ret;
			bench_mute_push();
		}
	}
	bench_mute_pop();
	return 0;
}

/**
 * bench_cli_parse() - parse argv into b->o and the back-end
 * Return: 0, %BENCH_PARSE_EXIT, or -EINVAL (message printed).
 */
int bench_cli_parse(struct bench *b, int argc, char **argv)
{
	struct bench_optscan sc = {.argc = argc, .argv = argv, .i = 1};
	const struct bench_optdef *d;
	const char *val, *given;
	struct bench_optdef *all;
	unsigned int n = 0;
	int ret, help = 0;

	bench_kb_base = 1024;
	if (!b->no_outputs) /* a job file's sections share one set */
		bench_notes_reset();
	all = build_table(b, &n);
	if (!all)
		return -EINVAL;
	sc.defs = all;
	sc.ndefs = n;
	ret = apply_presets(b, all, n, argc, argv);
	if (ret)
		goto out_usage;
	for (;;) {
		ret = bench_optscan_next(&sc, &d, &val, &given);
		if (ret == BENCH_OPT_END)
			break;
		if (ret < 0)
			goto out_usage;
		if (ret == BENCH_OPT_POSITIONAL) {
			bench_error("unexpected argument '%s' (options start "
				    "with --; a job file comes alone)",
				    val);
			goto out_usage;
		}
		if (job_option(d->id))
			bench_report_given(b, d->name, val);
		if (d->id == OPT_NOTE) {
			fio_note(b, d->name, val);
			continue;
		}
		if (d->id == OPT_FIO_ONLY) {
			bench_error("--%s is a fio option %s does not "
				    "implement (see FIO COMPATIBILITY in "
				    "%s(1))",
				    d->name, bench_prog_name, bench_prog_name);
			goto out_usage;
		}
		if (d->id >= OPT_BACKEND_BASE) {
			const struct bench_option *bo =
				&b->ops->options[d->id - OPT_BACKEND_BASE];

			if (!strcmp(bo->name, "server") && bench_url_is(b, val))
				ret = bench_url_apply(b, val, NULL, 0);
			else
				ret = b->ops->parse_option(b->priv, bo->id,
							   val);
		} else if (d->arg == FA_REQ && !val) {
			bench_error("option '--%s' needs a value", d->name);
			ret = -EINVAL;
		} else {
			ret = bench_engine_opt_apply(b, engine_opt_of(d->id),
						     val);
			if (ret == BENCH_EO_HELP || ret == BENCH_EO_VERSION) {
				help = ret;
				continue;
			}
		}
		if (ret)
			goto out_usage;
	}
	free(all);
	if (help && bench_mute)
		return BENCH_PARSE_EXIT; /* rank 0 prints it */
	if (help == BENCH_EO_HELP) {
		bench_usage(b, stdout);
		return BENCH_PARSE_EXIT;
	}
	if (help == BENCH_EO_VERSION) {
		printf("%s (libxprt bench engine %s, back-end %s)\n",
		       bench_prog_name, lx_xprt_version(), b->ops->name);
		return BENCH_PARSE_EXIT;
	}
	ret = check_combinations(b);
	if (ret)
		return usage_err(b);
	/* fio's randrepeat=0: other offsets every run (unless seeded) */
	if (!b->o.randrepeat && !(b->o.set & SET_SEED))
		b->o.seed = bench_mix64((uint64_t)time(NULL) ^
					((uint64_t)getpid() << 32) ^
					bench_now_ns());
	return 0;

out_usage:
	free(all);
	return usage_err(b);
}

/**
 * bench_cli_positionals() - the words of argv that are no option nor an
 * option's value (fio's job files), resolved as bench_cli_parse() does
 * @pos: receives their indexes (at most @max)
 * Return: how many there are; messages about bad options are left to the
 * real parse.
 */
unsigned int bench_cli_positionals(const struct bench_backend_ops *ops,
				   int argc, char **argv, int *pos,
				   unsigned int max)
{
	struct bench tmp = {.ops = ops};
	struct bench_optscan sc = {.argc = argc, .argv = argv, .i = 1};
	const struct bench_optdef *d;
	const char *val, *given;
	struct bench_optdef *all;
	unsigned int n = 0, nd = 0;
	int ret;

	bench_mute_push();
	all = build_table(&tmp, &nd);
	sc.defs = all;
	sc.ndefs = nd;
	while (all && (ret = bench_optscan_next(&sc, &d, &val, &given)) !=
			      BENCH_OPT_END) {
		if (ret < 0) { /* the command line's parse says why */
			n = 0;
			break;
		}
		if (ret == BENCH_OPT_POSITIONAL && n < max)
			pos[n++] = sc.i - 1;
	}
	bench_mute_pop();
	free(all);
	return n;
}
