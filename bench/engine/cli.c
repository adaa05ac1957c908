/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command line: fio's option names and units, presets, the back-end's
 * own options, and the checks that turn impossible combinations into one
 * clear sentence and exit status 2 before anything connects.
 *
 * Parsing order: presets first (wherever --preset appears), then every
 * other option in command-line order, so an explicit flag always overrides
 * a preset.  The engine's and the back-end's long options go into one
 * getopt_long() table; both "--bs 4k" and "--bs=4k" work, and fio's
 * underscore spellings (--ramp_time) are accepted beside dashed ones.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

#define BENCH_VERSION "0.1.0"

const char *bench_prog_name = "bench";

enum {
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_NAME = 256,
	OPT_RW,
	OPT_BS,
	OPT_IODEPTH,
	OPT_NUMJOBS,
	OPT_SIZE,
	OPT_RUNTIME,
	OPT_RAMP,
	OPT_TIME_BASED,
	OPT_NUMBER_IOS,
	OPT_RWMIXREAD,
	OPT_RWMIXWRITE,
	OPT_FILENAME,
	OPT_FILE_PER_JOB,
	OPT_DIRECTORY,
	OPT_NCONNECT,
	OPT_VERIFY,
	OPT_OUTPUT_FORMAT,
	OPT_OUTPUT,
	OPT_TRANSPORT,
	OPT_UID,
	OPT_GID,
	OPT_SEED,
	OPT_ETA,
	OPT_GROUP_REPORTING,
	OPT_WORKLOAD,
	OPT_REPETITIONS,
	OPT_PRESET,
	OPT_WRITE_LOG,
	OPT_LOG_INTERVAL,
	OPT_LOG_PER_JOB,
	OPT_WRITE_HIST,
	OPT_BACKEND_BASE = 1000,
};

static const struct option engine_opts[] = {
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"name", required_argument, NULL, OPT_NAME},
	{"rw", required_argument, NULL, OPT_RW},
	{"readwrite", required_argument, NULL, OPT_RW},
	{"bs", required_argument, NULL, OPT_BS},
	{"blocksize", required_argument, NULL, OPT_BS},
	{"iodepth", required_argument, NULL, OPT_IODEPTH},
	{"numjobs", required_argument, NULL, OPT_NUMJOBS},
	{"size", required_argument, NULL, OPT_SIZE},
	{"runtime", required_argument, NULL, OPT_RUNTIME},
	{"ramp_time", required_argument, NULL, OPT_RAMP},
	{"ramp-time", required_argument, NULL, OPT_RAMP},
	{"time_based", no_argument, NULL, OPT_TIME_BASED},
	{"time-based", no_argument, NULL, OPT_TIME_BASED},
	{"number_ios", required_argument, NULL, OPT_NUMBER_IOS},
	{"number-ios", required_argument, NULL, OPT_NUMBER_IOS},
	{"rwmixread", required_argument, NULL, OPT_RWMIXREAD},
	{"rwmixwrite", required_argument, NULL, OPT_RWMIXWRITE},
	{"filename", required_argument, NULL, OPT_FILENAME},
	{"file-per-job", no_argument, NULL, OPT_FILE_PER_JOB},
	{"file_per_job", no_argument, NULL, OPT_FILE_PER_JOB},
	{"directory", required_argument, NULL, OPT_DIRECTORY},
	{"nconnect", required_argument, NULL, OPT_NCONNECT},
	{"verify", optional_argument, NULL, OPT_VERIFY},
	{"output-format", required_argument, NULL, OPT_OUTPUT_FORMAT},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"transport", required_argument, NULL, OPT_TRANSPORT},
	{"uid", required_argument, NULL, OPT_UID},
	{"gid", required_argument, NULL, OPT_GID},
	{"seed", required_argument, NULL, OPT_SEED},
	{"randseed", required_argument, NULL, OPT_SEED},
	{"eta", required_argument, NULL, OPT_ETA},
	{"group_reporting", no_argument, NULL, OPT_GROUP_REPORTING},
	{"group-reporting", no_argument, NULL, OPT_GROUP_REPORTING},
	{"workload", required_argument, NULL, OPT_WORKLOAD},
	{"repetitions", required_argument, NULL, OPT_REPETITIONS},
	{"preset", required_argument, NULL, OPT_PRESET},
	{"write_log", required_argument, NULL, OPT_WRITE_LOG},
	{"write-log", required_argument, NULL, OPT_WRITE_LOG},
	{"log_interval", required_argument, NULL, OPT_LOG_INTERVAL},
	{"log-interval", required_argument, NULL, OPT_LOG_INTERVAL},
	{"log_per_job", no_argument, NULL, OPT_LOG_PER_JOB},
	{"log-per-job", no_argument, NULL, OPT_LOG_PER_JOB},
	{"write_hist", required_argument, NULL, OPT_WRITE_HIST},
	{"write-hist", required_argument, NULL, OPT_WRITE_HIST},
};

#define N_ENGINE_OPTS (sizeof(engine_opts) / sizeof(engine_opts[0]))

static const char *const rw_names[RW_NR] = {
	[RW_READ] = "read",	    [RW_WRITE] = "write",
	[RW_RANDREAD] = "randread", [RW_RANDWRITE] = "randwrite",
	[RW_RANDRW] = "randrw",	    [RW_RW] = "rw",
	[RW_NULL] = "null",	    [RW_GETATTR] = "getattr",
};

const char *bench_rw_name(enum bench_rw rw)
{
	return rw < RW_NR ? rw_names[rw] : "?";
}

bool bench_rw_reads(enum bench_rw rw)
{
	return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RANDRW ||
	       rw == RW_RW;
}

bool bench_rw_writes(enum bench_rw rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RANDRW ||
	       rw == RW_RW;
}

bool bench_rw_random(enum bench_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

bool bench_rw_meta(enum bench_rw rw)
{
	return rw == RW_NULL || rw == RW_GETATTR;
}

void bench_opts_defaults(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->name = "job";
	o->workload = WL_FIO;
	o->rw = RW_READ;
	o->bs = 4096;
	o->size = 64ull << 20;
	o->iodepth = 1;
	o->numjobs = 1;
	o->nconnect = 1;
	o->rwmixread = 50;
	o->fmt = FMT_NORMAL;
	o->transport = BENCH_TRANSPORT_TCP;
	o->uid = (uint32_t)getuid();
	o->gid = (uint32_t)getgid();
	o->seed = 0x89; /* fio's default randseed: runs repeat by default */
	o->eta = ETA_AUTO;
	o->repetitions = 1;
	o->log_interval_ns = 1000000000ull;
}

static int bad_value(const char *opt, const char *arg, const char *want)
{
	bench_error("--%s: '%s' is not %s", opt, arg ? arg : "", want);
	return -EINVAL;
}

static int parse_count(const char *opt, const char *arg, uint64_t lo,
		       uint64_t hi, uint64_t *out)
{
	int ret = bench_parse_u64(arg, hi, out);

	if (ret == -ERANGE || (!ret && *out < lo)) {
		bench_error("--%s: %s is out of range (%" PRIu64 "..%" PRIu64
			    ")",
			    opt, arg, lo, hi);
		return -EINVAL;
	}
	if (ret)
		return bad_value(opt, arg, "a number");
	return 0;
}

static int parse_size_opt(const char *opt, const char *arg, uint64_t lo,
			  uint64_t hi, uint64_t *out)
{
	int ret = bench_parse_size(arg, out);

	if (ret == -ERANGE || (!ret && (*out < lo || *out > hi))) {
		bench_error("--%s: %s is out of range (%" PRIu64 "..%" PRIu64
			    " bytes)",
			    opt, arg, lo, hi);
		return -EINVAL;
	}
	if (ret)
		return bad_value(opt, arg,
				 "a size (examples: 4096, 4k, 1m, 2g; "
				 "1k = 1024)");
	return 0;
}

static int parse_time_opt(const char *opt, const char *arg, uint64_t *out)
{
	int ret = bench_parse_time(arg, out);

	if (ret == -ERANGE)
		return bad_value(opt, arg, "a duration that fits (too large)");
	if (ret)
		return bad_value(opt, arg,
				 "a duration (seconds, or with a unit: 500ms, "
				 "10s, 2m)");
	return 0;
}

static int pick(const char *opt, const char *arg, const char *const *names,
		unsigned int n, const char *list)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && arg && !strcmp(arg, names[i]))
			return (int)i;
	bench_error("--%s: '%s' is not one of %s", opt, arg ? arg : "", list);
	return -EINVAL;
}

static int apply_engine_opt(struct bench *b, int id, const char *name,
			    const char *arg)
{
	struct bench_opts *o = &b->o;
	uint64_t v;
	int ret = 0;

	switch (id) {
	case OPT_NAME:
		if (!arg || !*arg || strlen(arg) > 32 || strchr(arg, '/'))
			return bad_value(name, arg,
					 "a job name (1..32 characters, no "
					 "'/')");
		o->name = arg;
		break;
	case OPT_RW: {
		/* fio's spelling of sequential mixed I/O */
		if (arg && !strcmp(arg, "readwrite"))
			arg = rw_names[RW_RW];
		ret = pick(name, arg, rw_names, RW_NR,
			   "read, write, randread, randwrite, randrw, rw, "
			   "null, getattr");
		if (ret < 0)
			return ret;
		o->rw = (enum bench_rw)ret;
		o->set |= SET_RW;
		return 0;
	}
	case OPT_BS:
		ret = parse_size_opt(name, arg, 1, 1ull << 30, &o->bs);
		o->set |= SET_BS;
		break;
	case OPT_IODEPTH:
		ret = parse_count(name, arg, 1, 65536, &v);
		o->iodepth = (unsigned int)v;
		o->set |= SET_IODEPTH;
		break;
	case OPT_NUMJOBS:
		ret = parse_count(name, arg, 1, 4096, &v);
		o->numjobs = (unsigned int)v;
		break;
	case OPT_SIZE:
		ret = parse_size_opt(name, arg, 1, 1ull << 62, &o->size);
		o->set |= SET_SIZE;
		break;
	case OPT_RUNTIME:
		ret = parse_time_opt(name, arg, &o->runtime_ns);
		o->set |= SET_RUNTIME;
		break;
	case OPT_RAMP:
		ret = parse_time_opt(name, arg, &o->ramp_ns);
		o->set |= SET_RAMP;
		break;
	case OPT_TIME_BASED:
		/* --runtime > 0 is always time based here; accepted for fio
		 * command lines */
		break;
	case OPT_NUMBER_IOS:
		ret = parse_count(name, arg, 1, UINT64_MAX / 2, &o->number_ios);
		o->set |= SET_NUMBER_IOS;
		break;
	case OPT_RWMIXREAD:
	case OPT_RWMIXWRITE:
		ret = parse_count(name, arg, 0, 100, &v);
		o->rwmixread =
			(unsigned int)(id == OPT_RWMIXREAD ? v : 100 - v);
		o->set |= SET_RWMIX;
		break;
	case OPT_FILENAME:
		if (!arg || !*arg)
			return bad_value(name, arg, "a file name");
		o->filename = arg;
		o->set |= SET_FILENAME;
		break;
	case OPT_FILE_PER_JOB:
		o->set |= SET_FILE_PER_JOB;
		break;
	case OPT_DIRECTORY:
		if (!arg || !*arg)
			return bad_value(name, arg, "a directory");
		o->directory = arg;
		break;
	case OPT_NCONNECT:
		ret = parse_count(name, arg, 1, 16, &v);
		o->nconnect = (unsigned int)v;
		break;
	case OPT_VERIFY:
		if (!arg || !strcmp(arg, "1") || !strcmp(arg, "pattern") ||
		    !strcmp(arg, "meta") || !strcmp(arg, "yes"))
			o->verify = true;
		else if (!strcmp(arg, "0") || !strcmp(arg, "no"))
			o->verify = false;
		else
			return bad_value(name, arg,
					 "a supported verify mode (the engine "
					 "checks its own offset/job/generation "
					 "pattern: use --verify or "
					 "--verify=0)");
		break;
	case OPT_OUTPUT_FORMAT: {
		static const char *const fmts[] = {"normal", "json"};

		if (arg && !strcmp(arg, "json+"))
			arg = "json";
		ret = pick(name, arg, fmts, 2, "normal, json");
		if (ret < 0)
			return ret;
		o->fmt = (enum bench_fmt)ret;
		return 0;
	}
	case OPT_OUTPUT:
		if (!arg || !*arg)
			return bad_value(name, arg, "a file name");
		o->output = arg;
		break;
	case OPT_TRANSPORT: {
		static const char *const tps[] = {"tcp", "rdma"};

		ret = pick(name, arg, tps, 2, "tcp, rdma");
		if (ret < 0)
			return ret;
		o->transport = ret ? BENCH_TRANSPORT_RDMA : BENCH_TRANSPORT_TCP;
		return 0;
	}
	case OPT_UID:
	case OPT_GID:
		ret = parse_count(name, arg, 0, UINT32_MAX, &v);
		if (id == OPT_UID)
			o->uid = (uint32_t)v;
		else
			o->gid = (uint32_t)v;
		break;
	case OPT_SEED:
		ret = parse_count(name, arg, 0, UINT64_MAX, &o->seed);
		break;
	case OPT_ETA: {
		static const char *const etas[] = {"auto", "always", "never"};

		ret = pick(name, arg, etas, 3, "auto, always, never");
		if (ret < 0)
			return ret;
		o->eta = (enum bench_eta)ret;
		return 0;
	}
	case OPT_GROUP_REPORTING:
		o->group_reporting = true;
		break;
	case OPT_WORKLOAD: {
		static const char *const wls[] = {"fio", "ior"};

		ret = pick(name, arg, wls, 2, "fio, ior");
		if (ret < 0)
			return ret;
		o->workload = (enum bench_workload)ret;
		return 0;
	}
	case OPT_REPETITIONS:
		ret = parse_count(name, arg, 1, 100000, &v);
		o->repetitions = (unsigned int)v;
		o->set |= SET_REPS;
		break;
	case OPT_PRESET:
		break; /* applied before everything else */
	case OPT_WRITE_LOG:
	case OPT_WRITE_HIST:
		if (!arg || !*arg)
			return bad_value(name, arg, "a file name");
		if (id == OPT_WRITE_LOG)
			o->log_file = arg;
		else
			o->hist_file = arg;
		break;
	case OPT_LOG_INTERVAL:
		ret = parse_time_opt(name, arg, &o->log_interval_ns);
		if (!ret && (o->log_interval_ns < BENCH_LOG_MIN_NS ||
			     o->log_interval_ns > 3600000000000ull))
			return bad_value(name, arg,
					 "an interval from 100ms to 1h");
		o->set |= SET_LOG_INTERVAL;
		break;
	case OPT_LOG_PER_JOB:
		o->log_per_job = true;
		break;
	default:
		return -EINVAL;
	}
	return ret;
}

static const struct option *find_engine_opt(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_ENGINE_OPTS; i++)
		if (!strcmp(engine_opts[i].name, name))
			return &engine_opts[i];
	return NULL;
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
		const struct option *eo;

		snprintf(oname, sizeof(oname), "%.*s",
			 (int)(eq - p->args[i] - 2), p->args[i] + 2);
		eo = find_engine_opt(oname);
		if (!eo)
			return -EINVAL;
		ret = apply_engine_opt(b, eo->val, oname, eq + 1);
		if (ret)
			return ret;
	}
	/* a preset's values are defaults: only explicit flags take part in
	 * the combination checks */
	b->o.set = set;
	b->o.preset = p->name;
	return 0;
}

static int apply_presets(struct bench *b, int argc, char **argv)
{
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--preset")) {
			if (i + 1 >= argc)
				return 0; /* getopt reports it */
			ret = apply_preset(b, argv[++i]);
		} else if (!strncmp(a, "--preset=", 9)) {
			ret = apply_preset(b, a + 9);
		} else {
			continue;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int check_combinations(struct bench *b)
{
	struct bench_opts *o = &b->o;
	bool meta = bench_rw_meta(o->rw);

	if ((o->set & SET_FILENAME) && (o->set & SET_FILE_PER_JOB)) {
		bench_error("--filename and --file-per-job exclude each other");
		return -EINVAL;
	}
	if ((o->set & SET_RWMIX) && o->rw != RW_RANDRW && o->rw != RW_RW) {
		bench_error("--rwmixread/--rwmixwrite apply to --rw randrw or "
			    "rw, not %s",
			    bench_rw_name(o->rw));
		return -EINVAL;
	}
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
	if (!meta) {
		if (o->bs > o->size) {
			bench_error("--bs %" PRIu64 " is larger than --size "
				    "%" PRIu64,
				    o->bs, o->size);
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
	if (b->nranks > 1 && o->verify && o->filename) {
		bench_error("--verify tracks a shared --filename's blocks in "
			    "one process: it cannot with %u MPI ranks (use "
			    "file per job)",
			    b->nranks);
		return -EINVAL;
	}
	if (o->verify) {
		uint64_t nblk = o->size / o->bs;
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

static int add_backend_opts(struct bench *b, struct option *all,
			    unsigned int *n)
{
	const struct bench_option *bo;
	int i = 0;

	if (!b->ops->options)
		return 0;
	for (bo = b->ops->options; bo->name; bo++, i++) {
		if (find_engine_opt(bo->name)) {
			bench_error("back-end option --%s clashes with an "
				    "engine option",
				    bo->name);
			return -EINVAL;
		}
		all[*n].name = bo->name;
		all[*n].has_arg = bo->arg ? required_argument : no_argument;
		all[*n].flag = NULL;
		all[*n].val = OPT_BACKEND_BASE + i;
		(*n)++;
	}
	return 0;
}

static unsigned int count_backend_opts(const struct bench *b)
{
	const struct bench_option *bo;
	unsigned int n = 0;

	for (bo = b->ops->options; bo && bo->name; bo++)
		n++;
	return n;
}

static int usage_err(struct bench *b)
{
	if (!bench_mute)
		fprintf(stderr, "Try '%s --help' for more information.\n",
			bench_prog_name);
	return -EINVAL;
}

/**
 * bench_cli_parse() - parse argv into b->o and the back-end
 * Return: 0, %BENCH_PARSE_EXIT, or -EINVAL (message printed).
 */
int bench_cli_parse(struct bench *b, int argc, char **argv)
{
	unsigned int nb = count_backend_opts(b), n = 0, i;
	struct option *all;
	int c, ret, help = 0;

	all = calloc(N_ENGINE_OPTS + nb + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < N_ENGINE_OPTS; i++)
		all[n++] = engine_opts[i];
	ret = add_backend_opts(b, all, &n);
	if (ret)
		goto out_free;
	ret = apply_presets(b, argc, argv);
	if (ret)
		goto out_usage;

	optind = 0; /* full re-initialisation: tests parse many times */
	opterr = 0;
	for (;;) {
		int li = -1;

		c = getopt_long(argc, argv, ":hV", all, &li);
		if (c == -1)
			break;
		if (c == '?') {
			if (optopt && optopt < 256)
				bench_error("unknown option -%c", optopt);
			else
				bench_error("unknown option '%s'",
					    argv[optind - 1]);
			goto out_usage;
		}
		if (c == ':') {
			bench_error("option '%s' needs a value",
				    argv[optind - 1]);
			goto out_usage;
		}
		if (c == OPT_HELP) {
			help = 1;
			continue;
		}
		if (c == OPT_VERSION) {
			help = 2;
			continue;
		}
		if (c >= OPT_BACKEND_BASE) {
			const struct bench_option *bo =
				&b->ops->options[c - OPT_BACKEND_BASE];

			ret = b->ops->parse_option(b->priv, bo->id, optarg);
		} else {
			ret = apply_engine_opt(
				b, c, li >= 0 ? all[li].name : "?", optarg);
		}
		if (ret)
			goto out_usage;
	}
	if (optind < argc) {
		bench_error("unexpected argument '%s' (options start with --)",
			    argv[optind]);
		goto out_usage;
	}
	free(all);
	if (help && bench_mute)
		return BENCH_PARSE_EXIT; /* rank 0 prints it */
	if (help == 1) {
		bench_usage(b, stdout);
		return BENCH_PARSE_EXIT;
	}
	if (help == 2) {
		printf("%s (libxprt bench engine %s, back-end %s)\n",
		       bench_prog_name, BENCH_VERSION, b->ops->name);
		return BENCH_PARSE_EXIT;
	}
	ret = check_combinations(b);
	if (ret)
		return usage_err(b);
	return 0;

out_usage:
	ret = usage_err(b);
out_free:
	free(all);
	return ret;
}
