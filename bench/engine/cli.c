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

enum {
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_NAME = 256,
	OPT_RW,
	OPT_BS,
	OPT_IODEPTH,
	OPT_IODEPTH_FIRST,
	OPT_NUMJOBS,
	OPT_SIZE,
	OPT_RUNTIME,
	OPT_RAMP,
	OPT_TIME_BASED,
	OPT_NUMBER_IOS,
	OPT_IO_SIZE,
	OPT_LOG_OFFSET,
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
	OPT_LOOPS,
	OPT_OFFSET,
	OPT_RANDREPEAT,
	OPT_KB_BASE,
	OPT_PERCENTILE_LIST,
	OPT_ETA_NEWLINE,
	OPT_STATUS_INTERVAL,
	OPT_MINIMAL,
	OPT_DESCRIPTION,
	OPT_STONEWALL,
	OPT_NEW_GROUP,
	OPT_PARSE_ONLY,
	OPT_NORANDOMMAP,
	OPT_BSRANGE,
	OPT_BSSPLIT,
	OPT_RANDOM_DIST,
	OPT_FSYNC,
	OPT_END_FSYNC,
	OPT_RATE_IOPS,
	OPT_RATE_MIN,
	OPT_RATE_IOPS_MIN,
	OPT_RATECYCLE,
	OPT_RATE_PROCESS,
	OPT_RATE,
	OPT_THINKTIME,
	OPT_STARTDELAY,
	OPT_FILESIZE,
	OPT_OFFSET_INC,
	OPT_ALLOW_CREATE,
	OPT_NRFILES,
	OPT_LAT_LOG,
	OPT_BW_LOG,
	OPT_IOPS_LOG,
	OPT_HIST_LOG,
	OPT_LOG_AVG_MSEC,
	OPT_LOG_HIST_MSEC,
	OPT_PER_JOB_LOGS,
	OPT_TIMEO,
	OPT_RETRANS,
	OPT_HARD,
	OPT_SOFT,
	OPT_ZEROCOPY,
	OPT_NOTE,     /* a fio option accepted with a note */
	OPT_FIO_ONLY, /* a fio option with no meaning here */
	OPT_BACKEND_BASE = 1000,
};

/*
 * The engine's options.  Names that are fio's are resolved with fio's
 * prefix rules; the dashed spellings (ramp-time...) are ours and must be
 * spelled out in full (see optparse.h).
 */
static const struct bench_optdef engine_opts[] = {
	{"help", OPT_HELP, FA_OPT, false},
	{"version", OPT_VERSION, FA_OPT, false},
	{"name", OPT_NAME, FA_REQ, false},
	{"description", OPT_DESCRIPTION, FA_REQ, false},
	{"rw", OPT_RW, FA_REQ, false},
	{"readwrite", OPT_RW, FA_REQ, false},
	{"bs", OPT_BS, FA_REQ, false},
	{"blocksize", OPT_BS, FA_REQ, false},
	{"iodepth", OPT_IODEPTH, FA_REQ, false},
	{"iodepth_first", OPT_IODEPTH_FIRST, FA_REQ, false},
	{"numjobs", OPT_NUMJOBS, FA_REQ, false},
	{"size", OPT_SIZE, FA_REQ, false},
	{"runtime", OPT_RUNTIME, FA_REQ, false},
	{"timeout", OPT_RUNTIME, FA_REQ, false},
	{"ramp_time", OPT_RAMP, FA_REQ, false},
	{"ramp-time", OPT_RAMP, FA_REQ, true},
	{"time_based", OPT_TIME_BASED, FA_OPT, false},
	{"time-based", OPT_TIME_BASED, FA_OPT, true},
	{"number_ios", OPT_NUMBER_IOS, FA_REQ, false},
	{"number-ios", OPT_NUMBER_IOS, FA_REQ, true},
	{"io_size", OPT_IO_SIZE, FA_REQ, false},
	{"io_limit", OPT_IO_SIZE, FA_REQ, false},
	{"rwmixread", OPT_RWMIXREAD, FA_REQ, false},
	{"rwmixwrite", OPT_RWMIXWRITE, FA_REQ, false},
	{"filename", OPT_FILENAME, FA_REQ, false},
	{"file-per-job", OPT_FILE_PER_JOB, FA_NONE, false},
	{"file_per_job", OPT_FILE_PER_JOB, FA_NONE, true},
	{"directory", OPT_DIRECTORY, FA_REQ, false},
	{"nconnect", OPT_NCONNECT, FA_REQ, false},
	/* mount-style (nfs(5)), ours: spelled out in full */
	{"timeo", OPT_TIMEO, FA_REQ, true},
	{"retrans", OPT_RETRANS, FA_REQ, true},
	{"hard", OPT_HARD, FA_NONE, true},
	{"soft", OPT_SOFT, FA_NONE, true},
	{"zerocopy", OPT_ZEROCOPY, FA_NONE, true},
	{"verify", OPT_VERIFY, FA_BARE, false},
	{"output-format", OPT_OUTPUT_FORMAT, FA_REQ, false},
	{"minimal", OPT_MINIMAL, FA_NONE, false},
	{"output", OPT_OUTPUT, FA_REQ, false},
	{"transport", OPT_TRANSPORT, FA_REQ, false},
	{"uid", OPT_UID, FA_REQ, false},
	{"gid", OPT_GID, FA_REQ, false},
	{"seed", OPT_SEED, FA_REQ, false},
	{"randseed", OPT_SEED, FA_REQ, false},
	{"randrepeat", OPT_RANDREPEAT, FA_REQ, false},
	{"eta", OPT_ETA, FA_REQ, false},
	{"eta-newline", OPT_ETA_NEWLINE, FA_REQ, false},
	{"status-interval", OPT_STATUS_INTERVAL, FA_REQ, false},
	{"group_reporting", OPT_GROUP_REPORTING, FA_OPT, false},
	{"group-reporting", OPT_GROUP_REPORTING, FA_OPT, true},
	{"stonewall", OPT_STONEWALL, FA_OPT, false},
	{"new_group", OPT_NEW_GROUP, FA_OPT, false},
	{"workload", OPT_WORKLOAD, FA_REQ, false},
	{"repetitions", OPT_REPETITIONS, FA_REQ, false},
	{"preset", OPT_PRESET, FA_REQ, false},
	{"write_log", OPT_WRITE_LOG, FA_REQ, false},
	{"write-log", OPT_WRITE_LOG, FA_REQ, true},
	{"log_interval", OPT_LOG_INTERVAL, FA_REQ, false},
	{"log-interval", OPT_LOG_INTERVAL, FA_REQ, true},
	{"log_per_job", OPT_LOG_PER_JOB, FA_NONE, false},
	{"log-per-job", OPT_LOG_PER_JOB, FA_NONE, true},
	{"write_hist", OPT_WRITE_HIST, FA_REQ, false},
	{"write-hist", OPT_WRITE_HIST, FA_REQ, true},
	{"loops", OPT_LOOPS, FA_REQ, false},
	{"offset", OPT_OFFSET, FA_REQ, false},
	{"fileoffset", OPT_OFFSET, FA_REQ, false},
	{"kb_base", OPT_KB_BASE, FA_REQ, false},
	{"percentile_list", OPT_PERCENTILE_LIST, FA_REQ, false},
	{"parse-only", OPT_PARSE_ONLY, FA_NONE, false},
	{"norandommap", OPT_NORANDOMMAP, FA_OPT, false},
	{"bsrange", OPT_BSRANGE, FA_REQ, false},
	{"blocksize_range", OPT_BSRANGE, FA_REQ, false},
	{"bssplit", OPT_BSSPLIT, FA_REQ, false},
	{"random_distribution", OPT_RANDOM_DIST, FA_REQ, false},
	{"fsync", OPT_FSYNC, FA_REQ, false},
	{"end_fsync", OPT_END_FSYNC, FA_REQ, false},
	{"rate_iops", OPT_RATE_IOPS, FA_REQ, false},
	{"rate_min", OPT_RATE_MIN, FA_REQ, false},
	{"ratemin", OPT_RATE_MIN, FA_REQ, false},
	{"rate_iops_min", OPT_RATE_IOPS_MIN, FA_REQ, false},
	{"rate_cycle", OPT_RATECYCLE, FA_REQ, false},
	{"ratecycle", OPT_RATECYCLE, FA_REQ, false},
	{"rate_process", OPT_RATE_PROCESS, FA_REQ, false},
	{"rate", OPT_RATE, FA_REQ, false},
	{"thinktime", OPT_THINKTIME, FA_REQ, false},
	{"startdelay", OPT_STARTDELAY, FA_REQ, false},
	{"filesize", OPT_FILESIZE, FA_REQ, false},
	{"offset_increment", OPT_OFFSET_INC, FA_REQ, false},
	{"allow_file_create", OPT_ALLOW_CREATE, FA_REQ, false},
	{"nrfiles", OPT_NRFILES, FA_REQ, false},
	{"nr_files", OPT_NRFILES, FA_REQ, false},
	{"write_lat_log", OPT_LAT_LOG, FA_REQ, false},
	{"write_bw_log", OPT_BW_LOG, FA_REQ, false},
	{"write_iops_log", OPT_IOPS_LOG, FA_REQ, false},
	{"write_hist_log", OPT_HIST_LOG, FA_REQ, false},
	{"log_avg_msec", OPT_LOG_AVG_MSEC, FA_REQ, false},
	{"log_hist_msec", OPT_LOG_HIST_MSEC, FA_REQ, false},
	{"per_job_logs", OPT_PER_JOB_LOGS, FA_REQ, false},
	{"log_offset", OPT_LOG_OFFSET, FA_REQ, false},
};

#define N_ENGINE_OPTS (sizeof(engine_opts) / sizeof(engine_opts[0]))

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

/* fio's booleans: 1/0 (and yes/no, true/false, on/off); bare = 1 */
static int parse_bool(const char *opt, const char *arg, bool *out)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off"};
	unsigned int i;

	if (!arg || !*arg) {
		*out = true;
		return 0;
	}
	for (i = 0; i < 4; i++) {
		if (!strcasecmp(arg, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(arg, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad_value(opt, arg, "0 or 1");
}

/* --percentile_list: up to 20 values in (0, 100], ':'-separated (fio) */
static int parse_pct_list(struct bench_opts *o, const char *opt,
			  const char *arg)
{
	const char *p = arg;
	char *end;
	double v;

	o->npcts = 0;
	while (p && *p) {
		if (o->npcts == BENCH_MAX_PCT)
			return bad_value(opt, arg,
					 "a list of at most 20 percentiles");
		v = strtod(p, &end);
		if (end == p || !(v > 0 && v <= 100) || (*end && *end != ':'))
			return bad_value(opt, arg,
					 "a ':'-separated list of percentiles "
					 "in (0, 100], e.g. 50:99:99.9");
		o->pcts[o->npcts++] = v;
		p = *end ? end + 1 : end;
	}
	if (!o->npcts)
		return bad_value(opt, arg, "a list of percentiles");
	return 0;
}

/* --output-format: fio's comma-separated list of formats */
static int parse_formats(struct bench_opts *o, const char *opt, const char *arg)
{
	static const char *const names[FMT_NR] = {
		[FMT_NORMAL] = "normal",
		[FMT_JSON] = "json",
		[FMT_JSON_PLUS] = "json+",
		[FMT_TERSE] = "terse",
	};
	const char *p = arg, *comma;
	unsigned int f, fmts = 0;
	size_t len;

	if (!arg || !*arg)
		return bad_value(opt, arg, "normal, json, json+ or terse");
	for (; *p; p = comma ? comma + 1 : p + len) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (f = 0; f < FMT_NR; f++)
			if (strlen(names[f]) == len &&
			    !strncmp(p, names[f], len))
				break;
		if (f == FMT_NR)
			return bad_value(opt, arg,
					 "a comma-separated list of normal, "
					 "json, json+, terse");
		fmts |= BENCH_FMT_BIT(f);
		if (!comma)
			break;
	}
	o->fmts = fmts;
	/* the format the progress line and single-format callers look at */
	o->fmt = fmts & BENCH_FMT_BIT(FMT_NORMAL)    ? FMT_NORMAL :
		 fmts & BENCH_FMT_BIT(FMT_JSON_PLUS) ? FMT_JSON_PLUS :
		 fmts & BENCH_FMT_BIT(FMT_JSON)	     ? FMT_JSON :
						       FMT_TERSE;
	return 0;
}

/* one size of a bs list; an empty one keeps the default */
static int one_size(const char *opt, const char *s, size_t n, uint32_t *out)
{
	char buf[40];
	uint64_t v;

	if (n >= sizeof(buf))
		return bad_value(opt, s, "a size");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (bench_parse_size(buf, &v) || !v || v > (1u << 30))
		return bad_value(opt, buf, "a size from 1 to 1g");
	*out = (uint32_t)v;
	return 0;
}

/* "lo-hi" or "lo:hi" (fio swaps them when lo > hi) */
static int one_range(const char *opt, const char *s, size_t n,
		     struct bench_bsdist *d)
{
	size_t k = strcspn(s, "-:");
	uint32_t a, b2;

	if (k >= n)
		return bad_value(opt, s, "a range lo-hi (4k-64k)");
	if (one_size(opt, s, k, &a) || one_size(opt, s + k + 1, n - k - 1, &b2))
		return -EINVAL;
	d->lo = a < b2 ? a : b2;
	d->hi = a < b2 ? b2 : a;
	d->n = 0;
	return 0;
}

/* "4k/50:8k/30:16k/" (fio: blank weights share what is left) */
static int one_split(const char *opt, const char *s, size_t n,
		     struct bench_bsdist *d)
{
	unsigned int pct[BENCH_MAX_SPLIT], blank = 0, sum = 0, i;
	const char *p = s, *end = s + n, *colon, *slash;

	d->n = 0;
	while (p < end) {
		colon = memchr(p, ':', (size_t)(end - p));
		if (!colon)
			colon = end;
		slash = memchr(p, '/', (size_t)(colon - p));
		if (d->n == BENCH_MAX_SPLIT)
			return bad_value(opt, s, "at most 64 sizes");
		if (one_size(opt, p,
			     slash ? (size_t)(slash - p) : (size_t)(colon - p),
			     &d->len[d->n]))
			return -EINVAL;
		if (slash && slash + 1 < colon) {
			char w[8];
			size_t wl = (size_t)(colon - slash - 1);

			if (wl >= sizeof(w))
				return bad_value(opt, s, "size/percent pairs");
			memcpy(w, slash + 1, wl);
			w[wl] = '\0';
			pct[d->n] = (unsigned int)atoi(w);
			if (pct[d->n] > 100 || strspn(w, "0123456789") != wl)
				return bad_value(opt, s, "size/percent pairs");
			sum += pct[d->n];
		} else {
			pct[d->n] = UINT32_MAX;
			blank++;
		}
		d->n++;
		p = colon + 1;
	}
	if (!d->n || sum > 100 || (!blank && sum != 100))
		return bad_value(opt, s,
				 "sizes and weights adding up to 100 "
				 "(4k/50:8k/50)");
	for (i = 0, sum = 0; i < d->n; i++) {
		if (pct[i] == UINT32_MAX)
			pct[i] = 0; /* shared below */
		sum += pct[i];
	}
	for (i = 0; blank && i < d->n; i++)
		if (!pct[i])
			pct[i] = (100 - sum) / blank;
	for (i = 0, sum = 0; i < d->n; i++) {
		sum += pct[i];
		d->cum[i] = sum;
	}
	d->cum[d->n - 1] = 100; /* rounding of blank shares */
	d->lo = d->hi = 0;
	return 0;
}

/*
 * --bs R[,W[,T]], --bsrange R[,W], --bssplit R[,W]: fio's per-direction
 * lists; a single value sets both directions, an empty one keeps the
 * read default (fio: "bs=,8k"), trim's is ignored (no trim here).
 */
static int parse_bs_list(struct bench_opts *o, int id, const char *opt,
			 const char *arg)
{
	const char *p = arg, *comma;
	unsigned int d;
	size_t n;
	int ret = 0;

	if (!arg || !*arg)
		return bad_value(opt, arg, "a size");
	for (d = 0; d < 2; d++) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n) {
			struct bench_bsdist *bd = &o->bsd[d];

			if (id == OPT_BS) {
				ret = one_size(opt, p, n, &bd->lo);
				bd->hi = bd->lo;
				bd->n = 0;
			} else if (id == OPT_BSRANGE) {
				ret = one_range(opt, p, n, bd);
			} else {
				ret = one_split(opt, p, n, bd);
			}
			if (ret)
				return ret;
		}
		if (!comma) {
			/* one value: both directions (fio) */
			if (d == 0)
				o->bsd[1] = o->bsd[0];
			break;
		}
		p = comma + 1;
	}
	return 0;
}

/* fio's random_distribution: random, zipf:THETA, pareto:H, normal:DEV,
 * each with an optional :CENTER in [0, 1] */
/*
 * One direction's list of fio's zoned[_abs] distribution, @p..@e:
 * A/S[:A/S...], A the access percent (the list's sum 100), S the zone's
 * size in percent of the region (zoned, the sum at most 100; an empty S
 * shares the rest, as fio's) or in bytes with units (zoned_abs).
 */
static int parse_zone_list(struct bench_zones *z, bool abs, const char *p,
			   const char *e)
{
	uint64_t size[BENCH_MAX_ZONES], end = 0, sum = 0;
	unsigned int acc = 0, blank = 0, i;
	char buf[64], *slash, *x;
	unsigned long a;
	size_t n;

	z->n = 0;
	while (p < e) {
		const char *c = memchr(p, ':', (size_t)(e - p));

		n = (size_t)((c ? c : e) - p);
		if (!n || n >= sizeof(buf) || z->n == BENCH_MAX_ZONES)
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		slash = strchr(buf, '/');
		if (!slash)
			return -EINVAL;
		*slash = '\0';
		a = strtoul(buf, &x, 10);
		if (x == buf || *x || a > 100)
			return -EINVAL;
		if (abs) {
			if (bench_parse_size(slash + 1, &size[z->n]) ||
			    !size[z->n])
				return -EINVAL;
		} else if (!slash[1]) {
			/* fio: a zone without a size shares what the others
			 * leave (rand-zones.fio's 20/) */
			size[z->n] = 0;
			blank++;
		} else {
			size[z->n] = strtoul(slash + 1, &x, 10);
			if (*x || !size[z->n] || size[z->n] > 100)
				return -EINVAL;
		}
		acc += (unsigned int)a;
		sum += size[z->n];
		z->access[z->n++] = (uint8_t)a;
		p = c ? c + 1 : e;
	}
	if (!z->n || acc != 100 || (!abs && sum > 100) ||
	    (blank && sum + blank > 100))
		return -EINVAL;
	for (i = 0; i < z->n; i++) {
		end += size[i] ? size[i] : (100 - sum) / blank;
		z->end[i] = end;
	}
	return 0;
}

/* fio's zoned:R[,W] and zoned_abs:R[,W]; one list serves both directions */
static int parse_zoned(struct bench_opts *o, const char *opt, const char *arg,
		       const char *list, bool abs)
{
	const char *comma = strchr(list, ',');
	const char *e = list + strlen(list);

	o->dist = abs ? DIST_ZONED_ABS : DIST_ZONED;
	if (parse_zone_list(&o->zones[0], abs, list, comma ? comma : e) ||
	    (comma && strchr(comma + 1, ',')) ||
	    (comma && parse_zone_list(&o->zones[1], abs, comma + 1, e)))
		return bad_value(opt, arg,
				 abs ? "zoned_abs:A/SIZE[:A/SIZE...][,writes' "
				       "list]: access percents summing to 100, "
				       "zone sizes in bytes" :
				       "zoned:A/S[:A/S...][,writes' list]: "
				       "access percents summing to 100, zone "
				       "sizes in percent summing to at most "
				       "100");
	if (!comma)
		o->zones[1] = o->zones[0];
	return 0;
}

static int parse_dist(struct bench_opts *o, const char *opt, const char *arg)
{
	static const char *const kinds[] = {"random", "zipf", "pareto",
					    "normal"};
	const char *colon = arg ? strchr(arg, ':') : NULL;
	size_t n = colon ? (size_t)(colon - arg) : (arg ? strlen(arg) : 0);
	unsigned int k;
	char *end;

	o->dist_center = -1;
	if (colon && n == 5 && !strncmp(arg, "zoned", 5))
		return parse_zoned(o, opt, arg, colon + 1, false);
	if (colon && n == 9 && !strncmp(arg, "zoned_abs", 9))
		return parse_zoned(o, opt, arg, colon + 1, true);
	for (k = 0; k < 4; k++)
		if (strlen(kinds[k]) == n && !strncmp(arg, kinds[k], n))
			break;
	if (k == 4)
		return bad_value(opt, arg,
				 "random, zipf:THETA, pareto:H, normal:DEV, "
				 "zoned:A/S:... or zoned_abs:A/SIZE:...");
	o->dist = (enum bench_dist_kind)k;
	if (k == DIST_RANDOM)
		return 0;
	if (!colon)
		return bad_value(opt, arg,
				 "the distribution with its value "
				 "(zipf:1.2)");
	o->dist_arg = strtod(colon + 1, &end);
	if (end == colon + 1 || (*end && *end != ':'))
		return bad_value(opt, arg, "a number after ':'");
	if (*end == ':') {
		o->dist_center = strtod(end + 1, &end);
		if (*end || o->dist_center < 0 || o->dist_center > 1)
			return bad_value(opt, arg, "a center from 0 to 1");
	}
	if ((k == DIST_ZIPF && (o->dist_arg <= 0 || o->dist_arg == 1)) ||
	    (k == DIST_PARETO && (o->dist_arg <= 0 || o->dist_arg >= 1)) ||
	    (k == DIST_NORMAL && (o->dist_arg <= 0 || o->dist_arg > 100)))
		return bad_value(opt, arg,
				 "zipf theta > 0 and not 1, pareto power in "
				 "(0, 1), normal deviation in (0, 100]");
	return 0;
}

/* --rate_iops R[,W] (@bw false) or --rate R[,W] bytes/s, per job (fio) */
static int parse_rate(const char *opt, const char *arg, bool bw,
		      uint64_t out[2])
{
	uint64_t max = bw ? 1ull << 50 : 100000000;
	const char *comma = arg ? strchr(arg, ',') : NULL;
	char buf[32];
	uint64_t v;
	size_t n;
	unsigned int d;

	for (d = 0; d < 2; d++) {
		const char *p = d ? (comma ? comma + 1 : NULL) : arg;

		if (!p) {
			out[1] = out[0];
			break;
		}
		n = d || !comma ? strlen(p) : (size_t)(comma - p);
		if (!n)
			continue;
		if (n >= sizeof(buf))
			return bad_value(opt, arg, bw ? "a rate" : "IOPS");
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (bench_parse_size(buf, &v) || v > max)
			return bad_value(
				opt, arg,
				bw ? "bytes per second per job, R[,W]" :
				     "IOPS per job, R[,W]");
		out[d] = v;
	}
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

/*
 * fio's --filename=a:b:c: the job's files, ':' separated ("\\:" is a
 * colon of a name).  A single name stays in o->filename.
 */
static int split_filenames(struct bench *b, const char *opt, const char *arg)
{
	struct bench_opts *o = &b->o;
	char *w = b->fname_store, *start = w;
	const char *p;

	if (strlen(arg) >= sizeof(b->fname_store))
		return bad_value(opt, arg, "a shorter list of files");
	o->nfilenames = 0;
	for (p = arg;; p++) {
		if (*p == '\\' && p[1] == ':') {
			*w++ = ':';
			p++;
			continue;
		}
		if (*p == ':' || !*p) {
			*w++ = '\0';
			if (!*start)
				return bad_value(opt, arg,
						 "file names separated by ':'");
			if (o->nfilenames == BENCH_MAX_FILES)
				return bad_value(opt, arg, "at most 64 files");
			o->filenames[o->nfilenames++] = start;
			start = w;
			if (!*p)
				break;
			continue;
		}
		*w++ = *p;
	}
	o->filename = o->filenames[0];
	if (o->nfilenames == 1)
		o->nfilenames = 0;
	return 0;
}

/* fio's verify= methods (fio 3.33, HOWTO "verify") */
static bool bench_fio_verify_method(const char *m)
{
	static const char *const methods[] = {
		"md5",	   "crc64",    "crc32c",   "crc32c-intel", "crc32",
		"crc16",   "crc7",     "xxhash",   "sha512",	   "sha256",
		"sha1",	   "sha3-224", "sha3-256", "sha3-384",	   "sha3-512",
		"pattern", "meta",     "null",
	};
	unsigned int i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(m, methods[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------ URLs */

static int apply_engine_opt(struct bench *b, int id, const char *name,
			    const char *arg);
static const struct bench_optdef *find_engine_opt(const char *name);

/* @s is a URL of the back-end's scheme */
static bool url_is(const struct bench *b, const char *s)
{
	size_t n;

	if (!b->ops->url || !b->ops->url_scheme || !s)
		return false;
	n = strlen(b->ops->url_scheme);
	return !strncasecmp(s, b->ops->url_scheme, n) &&
	       !strncmp(s + n, "://", 3);
}

int bench_url_file(struct lx_url *u, const char *root, char *file, size_t len)
{
	int ret = lx_url_split(u, root);

	if (ret) {
		bench_error("--filename: %s", u->error);
		return ret;
	}
	if (strlen(u->file) >= len) {
		bench_error("--filename: the file's path is too long");
		return -EINVAL;
	}
	strcpy(file, u->file);
	return 0;
}

/*
 * A --server (@file NULL) or --filename URL, parsed by libxprt
 * (lx_url_parse(), libxprt/url.h: libnfs's nfs:// syntax and 9p://).  The
 * arguments that are engine options of the same name and meaning go
 * through them as if given on the command line; the back-end takes the
 * server, the path and the rest (bench_backend_ops.url).
 * Return: 0 or -EINVAL after a message.
 */
static int url_apply(struct bench *b, const char *s, char *file, size_t len)
{
	static const char *const engine_args[] = {
		"uid",	   "gid",  "transport", "nconnect", "timeo",
		"retrans", "hard", "soft",	"zerocopy",
	};
	const struct bench_optdef *d;
	struct lx_url u;
	unsigned int i, k;
	int ret;

	ret = lx_url_parse(s, &u);
	if (ret) {
		bench_error("%s", u.error);
		return -EINVAL;
	}
	for (i = 0; i < u.nargs && !ret; i++) {
		const struct lx_url_arg *a = &u.args[i];

		for (k = 0; k < sizeof(engine_args) / sizeof(engine_args[0]);
		     k++)
			if (!strcmp(a->key, engine_args[k]))
				break;
		if (k == sizeof(engine_args) / sizeof(engine_args[0]))
			continue;
		d = find_engine_opt(a->key);
		ret = apply_engine_opt(b, d->id, d->name,
				       *a->value ? a->value : NULL);
	}
	if (!ret)
		ret = b->ops->url(b->priv, &u, file, len);
	lx_url_free(&u);
	return ret;
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
		const char *colon = arg ? strchr(arg, ':') : NULL;
		const char *given = arg;
		char mode[16];

		/* fio's rw=MODE:N modifier */
		if (colon) {
			if ((size_t)(colon - arg) >= sizeof(mode))
				return bad_value(name, arg, "an rw mode");
			snprintf(mode, sizeof(mode), "%.*s", (int)(colon - arg),
				 arg);
			arg = mode;
		}
		/* fio's spelling of sequential mixed I/O */
		if (arg && !strcmp(arg, "readwrite"))
			arg = bench_rw_name(RW_RW);
		ret = pick(name, arg, bench_rw_names, RW_NR,
			   "read, write, randread, randwrite, randrw, rw, "
			   "null, getattr");
		if (ret < 0)
			return ret;
		o->rw = (enum bench_rw)ret;
		o->rw_seq = 0;
		o->rw_hole = 0;
		o->rw_back = 0;
		if (colon && bench_rw_meta(o->rw))
			return bad_value(name, given,
					 "an rw mode with data for ':'");
		if (colon && !bench_rw_random(o->rw)) {
			/* fio's rw=read:SIZE: skip SIZE bytes after each
			 * I/O (holes in sequential I/O) */
			o->rw_back = 0;
			if (colon[1] == '-') {
				/* fio's rw=read:-SIZE: backwards */
				ret = parse_size_opt(name, colon + 2, 1,
						     1ull << 40, &o->rw_back);
				if (ret)
					return ret;
				o->set |= SET_RW;
				return 0;
			}
			ret = parse_size_opt(name, colon + 1, 0, 1ull << 40,
					     &o->rw_hole);
			if (ret)
				return ret;
			o->set |= SET_RW;
			return 0;
		}
		if (colon) {
			ret = parse_count(name, colon + 1, 1, UINT32_MAX, &v);
			if (ret)
				return ret;
			o->rw_seq = (unsigned int)v;
		}
		o->set |= SET_RW;
		return 0;
	}
	case OPT_BS:
	case OPT_BSRANGE:
	case OPT_BSSPLIT:
		ret = parse_bs_list(o, id, name, arg);
		o->set |= SET_BS;
		break;
	case OPT_RANDOM_DIST:
		ret = parse_dist(o, name, arg);
		break;
	case OPT_FSYNC:
		ret = parse_count(name, arg, 0, UINT32_MAX, &v);
		o->fsync_every = (unsigned int)v;
		break;
	case OPT_END_FSYNC: {
		bool on;

		ret = parse_bool(name, arg, &on);
		if (ret || !on)
			break;
		if (!b->ops->job_sync) {
			bench_error("--end_fsync: the %s back-end has no sync "
				    "of a file",
				    b->ops->name);
			return -EINVAL;
		}
		o->end_fsync = true;
		bench_note(name, arg,
			   "every phase that writes ends with the back-end's "
			   "sync of each file (NFS COMMIT, 9P Tfsync), outside "
			   "the measured time");
		break;
	}
	case OPT_RATE_IOPS:
		ret = parse_rate(name, arg, false, o->rate_iops);
		break;
	case OPT_RATE:
		ret = parse_rate(name, arg, true, o->rate_bps);
		break;
	case OPT_RATE_MIN:
		ret = parse_rate(name, arg, true, o->rate_min_bps);
		break;
	case OPT_RATE_IOPS_MIN:
		ret = parse_rate(name, arg, false, o->rate_iops_min);
		break;
	case OPT_RATE_PROCESS:
		if (arg && !strcmp(arg, "linear"))
			o->rate_poisson = false;
		else if (arg && !strcmp(arg, "poisson"))
			o->rate_poisson = true;
		else
			return bad_value(name, arg, "linear or poisson");
		break;
	case OPT_RATECYCLE:
		ret = parse_count(name, arg, 0, 3600000, &v);
		o->ratecycle_ns = v * 1000000ull;
		break;
	case OPT_NRFILES:
		ret = parse_count(name, arg, 1, BENCH_MAX_FILES, &v);
		o->nrfiles = (unsigned int)v;
		break;
	case OPT_ALLOW_CREATE: {
		bool on;

		ret = parse_bool(name, arg, &on);
		o->no_create = !on;
		break;
	}
	case OPT_THINKTIME: {
		/* fio: a bare number is microseconds */
		char us[40];

		if (arg && arg[0] && strspn(arg, "0123456789") == strlen(arg)) {
			snprintf(us, sizeof(us), "%sus", arg);
			arg = us;
		}
		ret = parse_time_opt(name, arg, &o->thinktime_ns);
		break;
	}
	case OPT_OFFSET_INC:
		ret = parse_size_opt(name, arg, 0, 1ull << 50, &o->offset_inc);
		break;
	case OPT_FILESIZE:
		ret = parse_size_opt(name, arg, 1, 1ull << 62, &o->filesize);
		break;
	case OPT_STARTDELAY:
		/* fio's: a bare number is seconds, as our durations */
		ret = parse_time_opt(name, arg, &o->startdelay_ns);
		break;
	case OPT_IODEPTH:
		ret = parse_count(name, arg, 1, 65536, &v);
		o->iodepth = (unsigned int)v;
		o->set |= SET_IODEPTH;
		break;
	case OPT_IODEPTH_FIRST:
		ret = parse_count(name, arg, 1, 65536, &v);
		o->iodepth_first = (unsigned int)v;
		break;
	case OPT_NUMJOBS:
		ret = parse_count(name, arg, 1, 4096, &v);
		o->numjobs = (unsigned int)v;
		break;
	case OPT_SIZE: {
		size_t n = arg ? strlen(arg) : 0;

		/* fio's size=P%: P% of the file's real size, known only
		 * once the back-end is set up (bench_region()) */
		o->size_pct = 0;
		if (n > 1 && arg[n - 1] == '%') {
			char pct[16];

			snprintf(pct, sizeof(pct), "%.*s", (int)(n - 1), arg);
			ret = parse_count(name, pct, 1, 100, &v);
			o->size_pct = (unsigned int)v;
		} else {
			ret = parse_size_opt(name, arg, 1, 1ull << 62,
					     &o->size);
		}
		o->set |= SET_SIZE;
		break;
	}
	case OPT_IO_SIZE:
		ret = parse_size_opt(name, arg, 1, 1ull << 62, &o->io_size);
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
		ret = parse_bool(name, arg, &o->time_based);
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
		o->nfilenames = 0;
		if (url_is(b, arg)) {
			ret = url_apply(b, arg, b->url_file,
					sizeof(b->url_file));
			o->filename = b->url_file;
		} else if (strchr(arg, ':')) {
			ret = split_filenames(b, name, arg);
		}
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
	case OPT_TIMEO: /* deciseconds, as nfs(5) */
		ret = parse_count(name, arg, 1, 36000, &v);
		o->timeo_ds = (unsigned int)v;
		break;
	case OPT_RETRANS:
		ret = parse_count(name, arg, 0, 100, &v);
		o->retrans = (int)v;
		break;
	case OPT_HARD:
	case OPT_SOFT:
		o->hard = id == OPT_HARD;
		break;
	case OPT_ZEROCOPY:
		o->zerocopy = true;
		break;
	case OPT_VERIFY:
		if (!arg || !strcmp(arg, "1") || !strcmp(arg, "yes"))
			o->verify = true;
		else if (!strcmp(arg, "0") || !strcmp(arg, "no") ||
			 !strcmp(arg, "null"))
			o->verify = false;
		else if (bench_fio_verify_method(arg)) {
			o->verify = true;
			bench_note(name, arg,
				   "every block is checked against the "
				   "engine's own pattern of offset, job and "
				   "write generation (no checksum header)");
		} else
			return bad_value(name, arg,
					 "a verify mode (fio's methods are "
					 "read as the engine's own pattern; "
					 "0 turns it off)");
		break;
	case OPT_OUTPUT_FORMAT:
		return parse_formats(o, name, arg);
	case OPT_MINIMAL:
		return parse_formats(o, name, "terse");
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
		o->set |= SET_SEED;
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
		ret = parse_bool(name, arg, &o->group_reporting);
		break;
	case OPT_STONEWALL:
		ret = parse_bool(name, arg, &o->stonewall);
		break;
	case OPT_NEW_GROUP:
		ret = parse_bool(name, arg, &o->new_group);
		break;
	case OPT_RANDREPEAT:
		ret = parse_bool(name, arg, &o->randrepeat);
		break;
	case OPT_LAT_LOG:
		o->lat_log = arg;
		break;
	case OPT_BW_LOG:
		o->bw_log = arg;
		break;
	case OPT_IOPS_LOG:
		o->iops_log = arg;
		break;
	case OPT_HIST_LOG:
		o->hist_log = arg;
		break;
	case OPT_LOG_AVG_MSEC:
	case OPT_LOG_HIST_MSEC:
		ret = parse_count(name, arg, 0, 3600000, &v);
		if (id == OPT_LOG_AVG_MSEC)
			o->log_avg_ns = v * 1000000ull;
		else
			o->log_hist_ns = v * 1000000ull;
		break;
	case OPT_PER_JOB_LOGS:
		ret = parse_bool(name, arg, &o->per_job_logs);
		break;
	case OPT_LOG_OFFSET:
		ret = parse_bool(name, arg, &o->log_offset);
		break;
	case OPT_NORANDOMMAP:
		ret = parse_bool(name, arg, &o->norandommap);
		break;
	case OPT_PARSE_ONLY:
		b->parse_only = true;
		break;
	case OPT_DESCRIPTION:
		o->description = arg;
		break;
	case OPT_LOOPS:
		ret = parse_count(name, arg, 1, 1000000, &v);
		o->loops = (unsigned int)v;
		o->set |= SET_LOOPS;
		break;
	case OPT_OFFSET: {
		size_t n = arg ? strlen(arg) : 0;

		o->offset = 0;
		o->offset_pct = 0;
		if (n > 1 && arg[n - 1] == '%') {
			char pct[16];

			snprintf(pct, sizeof(pct), "%.*s", (int)(n - 1), arg);
			ret = parse_count(name, pct, 0, 99, &v);
			o->offset_pct = (unsigned int)v;
		} else {
			ret = parse_size_opt(name, arg, 0, 1ull << 62,
					     &o->offset);
		}
		o->set |= SET_OFFSET;
		break;
	}
	case OPT_KB_BASE:
		ret = parse_count(name, arg, 1000, 1024, &v);
		if (!ret && v != 1000 && v != 1024)
			return bad_value(name, arg, "1000 or 1024");
		o->kb_base = (unsigned int)v;
		bench_kb_base = o->kb_base;
		break;
	case OPT_PERCENTILE_LIST:
		ret = parse_pct_list(o, name, arg);
		break;
	case OPT_ETA_NEWLINE:
	case OPT_STATUS_INTERVAL:
		ret = parse_time_opt(name, arg,
				     id == OPT_ETA_NEWLINE ?
					     &o->eta_newline_ns :
					     &o->status_interval_ns);
		if (!ret && id == OPT_STATUS_INTERVAL &&
		    o->status_interval_ns &&
		    o->status_interval_ns < 1000000000ull)
			return bad_value(name, arg, "at least 1s");
		if (!ret && id == OPT_ETA_NEWLINE && o->eta_newline_ns &&
		    o->eta_newline_ns < 1000000000ull)
			return bad_value(name, arg, "at least 1s");
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

static const struct bench_optdef *find_engine_opt(const char *name)
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
		const struct bench_optdef *eo;

		snprintf(oname, sizeof(oname), "%.*s",
			 (int)(eq - p->args[i] - 2), p->args[i] + 2);
		eo = find_engine_opt(oname);
		if (!eo)
			return -EINVAL;
		ret = apply_engine_opt(b, eo->id, oname, eq + 1);
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
	t = calloc(nb + N_ENGINE_OPTS + bench_fio_nnames, sizeof(*t));
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
	for (i = 0; i < N_ENGINE_OPTS; i++)
		t[k++] = engine_opts[i];
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
	switch (id) {
	case OPT_HELP:
	case OPT_VERSION:
	case OPT_OUTPUT:
	case OPT_OUTPUT_FORMAT:
	case OPT_MINIMAL:
	case OPT_ETA:
	case OPT_ETA_NEWLINE:
	case OPT_STATUS_INTERVAL:
	case OPT_PRESET:
	case OPT_PARSE_ONLY:
	case OPT_FIO_ONLY:
		return false;
	default:
		return true;
	}
}

/* notes already printed, so that a job file's sections say each once */
static char notes_said[N_FIO_NOTES];

/** bench_notes_reset() - every note may be printed again (once) */
void bench_notes_reset(void)
{
	memset(notes_said, 0, sizeof(notes_said));
}

void bench_note(const char *opt, const char *value, const char *how)
{
	if (bench_mute)
		return;
	fprintf(stderr, "%s: note: --%s%s%s: %s\n", bench_prog_name, opt,
		value ? "=" : "", value ? value : "", how);
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
		if (ret == 0 && d->id == OPT_PRESET && val) {
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
		if (d->id == OPT_HELP) {
			help = 1;
			continue;
		}
		if (d->id == OPT_VERSION) {
			help = 2;
			continue;
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

			if (!strcmp(bo->name, "server") && url_is(b, val))
				ret = url_apply(b, val, NULL, 0);
			else
				ret = b->ops->parse_option(b->priv, bo->id,
							   val);
		} else if (d->arg == FA_REQ && !val) {
			bench_error("option '--%s' needs a value", d->name);
			ret = -EINVAL;
		} else {
			ret = apply_engine_opt(b, d->id, d->name, val);
		}
		if (ret)
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
