/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON report: fio's document shape and key names, written by a tiny
 * streaming writer (no tree in memory, nothing to free), from the views
 * of report.c.  See report.c for the units and what a view is.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/version.h>

#include "report.h"

struct js {
	FILE *f;
	int depth;
	bool first[16];
};

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * A JSON string whatever the bytes: a job name or option value that is
 * not UTF-8 (--name $'caf\xe9') has each byte that starts no well-formed
 * sequence written as U+FFFD, so that any JSON reader takes the document
 * (fio 3.33 writes the byte as it is, which Python's json refuses).
 */
static void js_str_raw(struct js *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', j->f);
	while (s && *s) {
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", j->f);
			s++;
		} else if (*s == '"' || *s == '\\') {
			fprintf(j->f, "\\%c", *s++);
		} else if (*s < 0x20) {
			fprintf(j->f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, j->f);
			s += n;
		}
	}
	fputc('"', j->f);
}

static void js_key(struct js *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		js_str_raw(j, key);
		fputs(" : ", j->f);
	}
}

static void js_open(struct js *j, const char *key, char c)
{
	js_key(j, key);
	fputc(c, j->f);
	j->depth++;
	j->first[j->depth] = true;
}

static void js_close(struct js *j, char c)
{
	bool empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

static void js_u64(struct js *j, const char *key, uint64_t v)
{
	js_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

static void js_i64(struct js *j, const char *key, int64_t v)
{
	js_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

static void js_dbl(struct js *j, const char *key, double v)
{
	js_key(j, key);
	if (!isfinite(v))
		v = 0;
	fprintf(j->f, "%.6f", v);
}

static void js_str(struct js *j, const char *key, const char *s)
{
	js_key(j, key);
	js_str_raw(j, s ? s : "");
}

static void js_bool(struct js *j, const char *key, bool v)
{
	js_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* the percentiles a report prints: --percentile_list, or fio's 17 */
unsigned int bench_report_pcts(const struct bench *b, const double **pcts)
{
	if (b->o.npcts) {
		*pcts = b->o.pcts;
		return b->o.npcts;
	}
	*pcts = bench_pcts;
	return BENCH_NPCT;
}

/* fio's latency object: @pct adds the percentiles, @bins (json+) every
 * non-empty bucket as "value" : count, the value its middle in ns */
static void js_lat(struct js *j, struct bench *b, const char *key,
		   const struct bench_hist *h, bool pct, bool bins)
{
	const double *pcts;
	unsigned int i, np = bench_report_pcts(b, &pcts);

	js_open(j, key, '{');
	js_u64(j, "min", bench_hist_min(h));
	js_u64(j, "max", bench_hist_max(h));
	js_dbl(j, "mean", bench_hist_mean(h));
	js_dbl(j, "stddev", bench_hist_stddev(h));
	js_u64(j, "N", bench_hist_count(h));
	if (pct && bench_hist_count(h)) {
		js_open(j, "percentile", '{');
		for (i = 0; i < np; i++) {
			char k[32];

			snprintf(k, sizeof(k), "%f", pcts[i]);
			js_u64(j, k, bench_hist_percentile(h, pcts[i]));
		}
		js_close(j, '}');
	}
	if (bins && bench_hist_count(h)) {
		js_open(j, "bins", '{');
		for (i = 0; i < BENCH_HIST_NBUCKETS; i++) {
			uint64_t c = atomic_load_explicit(&h->b[i],
							  memory_order_relaxed);
			char k[32];

			if (!c)
				continue;
			snprintf(k, sizeof(k), "%" PRIu64,
				 bench_hist_bucket_low(i) +
					 bench_hist_bucket_width(i) / 2);
			js_u64(j, k, c);
		}
		js_close(j, '}');
	}
	js_close(j, '}');
}

/* fio's slat_ns: the engine does not split submission from completion
 * (lat = clat = submission to completion), so it has no samples */
static void js_nolat(struct js *j, const char *key)
{
	js_open(j, key, '{');
	js_u64(j, "min", 0);
	js_u64(j, "max", 0);
	js_dbl(j, "mean", 0);
	js_dbl(j, "stddev", 0);
	js_u64(j, "N", 0);
	js_close(j, '}');
}

static const struct bench_samp no_samp;

static void js_samp(struct js *j, const char *pfx, const char *dev,
		    const struct bench_samp *s)
{
	char k[32];

	snprintf(k, sizeof(k), "%s_min", pfx);
	js_u64(j, k, (uint64_t)s->min);
	snprintf(k, sizeof(k), "%s_max", pfx);
	js_u64(j, k, (uint64_t)s->max);
	if (!strcmp(pfx, "bw"))
		return;
	snprintf(k, sizeof(k), "%s_mean", pfx);
	js_dbl(j, k, bench_samp_mean(s));
	snprintf(k, sizeof(k), "%s_%s", pfx, dev);
	js_dbl(j, k, bench_samp_dev(s));
	snprintf(k, sizeof(k), "%s_samples", pfx);
	js_u64(j, k, s->n);
}

/* one direction in fio's keys; @agg_bw: the group's bandwidth (KiB/s)
 * for bw_agg, fio's share of the job in percent */
static void js_dir(struct js *j, struct bench *b, const struct view *v,
		   enum bench_dir d, const char *key, bool plus, double agg_bw)
{
	const struct bench_hist *h = v->h[d];
	uint64_t n = bench_hist_count(h), el = v->elapsed[d];
	const struct bench_samp *sb = v->sbw ? &v->sbw[d] : &no_samp;
	const struct bench_samp *si = v->siops ? &v->siops[d] : &no_samp;

	js_open(j, key, '{');
	js_u64(j, "io_bytes", v->bytes[d]);
	js_u64(j, "io_kbytes", v->bytes[d] / 1024);
	js_u64(j, "bw_bytes", (uint64_t)bench_per_sec(v->bytes[d], el));
	js_u64(j, "bw", (uint64_t)(bench_per_sec(v->bytes[d], el) / 1024));
	js_dbl(j, "iops", bench_per_sec(n, el));
	js_u64(j, "runtime", el / 1000000);
	js_u64(j, "total_ios", n);
	js_u64(j, "short_ios", 0);
	js_u64(j, "drop_ios", 0);
	js_nolat(j, "slat_ns");
	js_lat(j, b, "clat_ns", h, true, plus);
	js_lat(j, b, "lat_ns", h, false, false);
	js_samp(j, "bw", "dev", sb);
	js_dbl(j, "bw_agg",
	       agg_bw > 0 ? 100.0 * bench_samp_mean(sb) / agg_bw : 0.0);
	js_dbl(j, "bw_mean", bench_samp_mean(sb));
	js_dbl(j, "bw_dev", bench_samp_dev(sb));
	js_u64(j, "bw_samples", sb->n);
	js_samp(j, "iops", "stddev", si);
	js_close(j, '}');
}

/* an empty direction: fio's trim (there is none over NFS or 9P here) */
static void js_dir_none(struct js *j, const char *key)
{
	static const char *const z[] = {"io_bytes",  "io_kbytes", "bw_bytes",
					"bw",	     "iops",	  "runtime",
					"total_ios", "short_ios", "drop_ios"};
	unsigned int i;

	js_open(j, key, '{');
	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		if (!strcmp(z[i], "iops"))
			js_dbl(j, z[i], 0);
		else
			js_u64(j, z[i], 0);
	js_nolat(j, "slat_ns");
	js_nolat(j, "clat_ns");
	js_nolat(j, "lat_ns");
	js_samp(j, "bw", "dev", &no_samp);
	js_dbl(j, "bw_agg", 0);
	js_dbl(j, "bw_mean", 0);
	js_dbl(j, "bw_dev", 0);
	js_u64(j, "bw_samples", 0);
	js_samp(j, "iops", "stddev", &no_samp);
	js_close(j, '}');
}

static const char *op_str(enum bench_op op)
{
	static const char *const n[] = {"read", "write", "null", "getattr",
					"fsync"};

	return op < BENCH_OP_NR ? n[op] : "?";
}

static void js_levels(struct js *j, const char *key, const char *const *names,
		      unsigned int n, unsigned int hot)
{
	unsigned int i;

	js_open(j, key, '{');
	for (i = 0; i < n; i++)
		js_dbl(j, names[i], i == hot ? 100.0 : 0.0);
	js_close(j, '}');
}

static void js_job_options(struct js *j, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	bool rw = false, bs = false, iod = false;
	char buf[32];
	unsigned int i;

	js_open(j, "job options", '{');
	for (i = 0; i < b->rpt.ngiven; i++) {
		const char *n = b->rpt.given[i].name;

		if (!strcmp(n, "readwrite"))
			n = "rw";
		else if (!strcmp(n, "blocksize"))
			n = "bs";
		rw |= !strcmp(n, "rw");
		bs |= !strcmp(n, "bs");
		iod |= !strcmp(n, "iodepth");
		js_str(j, n, b->rpt.given[i].value);
	}
	/* what fio-plot and others look up even when left at its default */
	if (!rw)
		js_str(j, "rw", bench_rw_name(o->rw));
	if (!bs) {
		snprintf(buf, sizeof(buf), "%" PRIu64, o->bs);
		js_str(j, "bs", buf);
	}
	if (!iod) {
		snprintf(buf, sizeof(buf), "%u", o->iodepth);
		js_str(j, "iodepth", buf);
	}
	js_close(j, '}');
}

/* what fio has not: ours, under one key */
static void js_view_xprt(struct js *j, struct bench *b, const struct view *v)
{
	js_open(j, "xprt", '{');
	if (v->jobid >= 0) {
		js_str(j, "job", v->name);
		js_i64(j, "jobid", v->jobid);
		js_u64(j, "owner", v->owner);
		if (bench_distributed(b)) {
			js_i64(j, "rank", v->rank);
			if (v->host)
				js_str(j, "host", v->host);
		}
	}
	js_u64(j, "jobs", v->njobs);
	if (v->filename)
		js_str(j, "filename", v->filename);
	js_dir(j, b, v, DIR_OTHER, "other", false, 0);
	js_dbl(j, "cpu_us_per_op", bench_cpu_us_per_op(v));
	js_u64(j, "handoffs", v->handoffs);
	js_u64(j, "io_errors", v->nerrors - v->verify_errors);
	js_u64(j, "verify_errors", v->verify_errors);
	if (v->err) {
		const struct bench_job_err *e = v->err;

		js_open(j, "first_error", '{');
		js_str(j, "op", op_str(e->op));
		js_u64(j, "offset", e->offset);
		js_u64(j, "len", e->len);
		js_i64(j, "errno", -e->status);
		js_str(j, "error", strerror(-e->status));
		js_str(j, "what", e->what);
		if (e->status == -EILSEQ) {
			js_u64(j, "bad_offset", e->bad_off);
			js_u64(j, "expected", e->expected);
			js_u64(j, "got", e->got);
			js_u64(j, "writer_job", (e->tag >> 16) & 0x7fff);
			js_u64(j, "generation", e->tag & 0xffff);
		}
		js_close(j, '}');
	}
	js_close(j, '}');
}

static void js_view(struct js *j, struct bench *b, const struct view *v,
		    const char *key, bool plus, struct bench_hist *tmp,
		    const struct view *all)
{
	static const char *const dl[] = {"1",  "2",  "4",   "8",
					 "16", "32", ">=64"};
	static const char *const sl[] = {"0",  "4",  "8",   "16",
					 "32", "64", ">=64"};
	static const char *const ln[] = {"2",	"4",	"10",	"20",
					 "50",	"100",	"250",	"500",
					 "750", "1000", "2000", ">=2000"};
	double shares[3][12];
	uint64_t rt = 0;
	unsigned int d, k;

	js_open(j, key, '{');
	/* fio: the job section's name, the same for each of its clones
	 * (ours, unique per job, is xprt.job); "all" for our aggregate */
	js_str(j, "jobname", key ? v->name : b->o.name);
	js_u64(j, "groupid", b->rpt.groupid);
	js_i64(j, "error", v->err ? -v->err->status : 0);
	js_u64(j, "eta", 0);
	for (d = 0; d < DIR_NR; d++)
		if (v->elapsed[d] > rt)
			rt = v->elapsed[d];
	js_u64(j, "elapsed", (rt + 999999999ull) / 1000000000ull);
	js_job_options(j, b);
	for (d = 0; d < DIR_OTHER; d++)
		js_dir(j, b, v, d, bench_dir_names[d], plus,
		       bench_per_sec(all->bytes[d], all->elapsed[d]) / 1024.0);
	js_dir_none(j, "trim");
	/* fio's fsync=N syncs: a data workload's only "other" operations */
	js_open(j, "sync", '{');
	if (bench_rw_meta(b->o.rw)) {
		js_u64(j, "total_ios", 0);
		js_nolat(j, "lat_ns");
	} else {
		js_u64(j, "total_ios", bench_hist_count(v->h[DIR_OTHER]));
		js_lat(j, b, "lat_ns", v->h[DIR_OTHER], false, false);
	}
	js_close(j, '}');
	js_u64(j, "job_runtime", rt / 1000000);
	js_dbl(j, "usr_cpu", bench_cpu_pct(v->usr_ns, v->wall_ns));
	js_dbl(j, "sys_cpu", bench_cpu_pct(v->sys_ns, v->wall_ns));
	js_u64(j, "ctx", b->rpt.ctx);
	js_u64(j, "majf", b->rpt.majf);
	js_u64(j, "minf", b->rpt.minf);
	/* the engine keeps every slot in flight: the whole run at iodepth,
	 * one I/O per submission and per completion */
	js_levels(j, "iodepth_level", dl, 7, bench_depth_level(b->o.iodepth));
	js_levels(j, "iodepth_submit", sl, 7, 1);
	js_levels(j, "iodepth_complete", sl, 7, 1);
	bench_lat_shares(v, tmp, shares);
	js_open(j, "latency_ns", '{');
	for (k = 0; k < 10; k++)
		js_dbl(j, ln[k], shares[0][k]);
	js_close(j, '}');
	js_open(j, "latency_us", '{');
	for (k = 0; k < 10; k++)
		js_dbl(j, ln[k], shares[1][k]);
	js_close(j, '}');
	js_open(j, "latency_ms", '{');
	for (k = 0; k < 12; k++)
		js_dbl(j, ln[k], shares[2][k]);
	js_close(j, '}');
	js_u64(j, "latency_depth", b->o.iodepth);
	js_u64(j, "latency_target", 0);
	js_dbl(j, "latency_percentile", 100.0);
	js_u64(j, "latency_window", 0);
	js_view_xprt(j, b, v);
	js_close(j, '}');
}

static void js_options(struct js *j, struct bench *b)
{
	const struct bench_opts *o = &b->o;

	js_open(j, "options", '{');
	js_str(j, "workload", o->workload == WL_IOR ? "ior" : "fio");
	js_str(j, "rw", bench_rw_name(o->rw));
	js_u64(j, "bs", o->bs);
	js_u64(j, "size", o->size);
	js_u64(j, "iodepth", o->iodepth);
	js_u64(j, "numjobs", o->numjobs);
	js_dbl(j, "runtime", (double)o->runtime_ns / 1e9);
	js_bool(j, "time_based", o->time_based);
	js_dbl(j, "ramp_time", (double)o->ramp_ns / 1e9);
	js_u64(j, "number_ios", o->number_ios);
	js_u64(j, "loops", o->loops);
	js_u64(j, "offset", o->offset);
	js_u64(j, "rwmixread", o->rwmixread);
	if (o->filename)
		js_str(j, "filename", o->filename);
	else
		js_bool(j, "file_per_job", true);
	if (o->directory)
		js_str(j, "directory", o->directory);
	js_bool(j, "verify", o->verify);
	js_str(j, "transport",
	       o->transport == BENCH_TRANSPORT_RDMA ? "rdma" : "tcp");
	js_u64(j, "nconnect", o->nconnect);
	js_u64(j, "uid", o->uid);
	js_u64(j, "gid", o->gid);
	js_u64(j, "seed", o->seed);
	js_u64(j, "repetitions", o->repetitions);
	if (o->preset)
		js_str(j, "preset", o->preset);
	js_close(j, '}');
}

static void js_ior(struct js *j, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	const struct bench_ior_result *res;
	unsigned int r, d, pos = 0;
	enum bench_dir dir;

	js_open(j, "ior", '{');
	js_u64(j, "block_size", o->size);
	js_u64(j, "transfer_size", o->bs);
	js_u64(j, "repetitions", o->repetitions);
	js_u64(j, "tasks", b->rpt.njobs);
	js_open(j, "results", '[');
	while ((res = bench_ior_next(b, &pos, &r, &dir))) {
		js_open(j, NULL, '{');
		js_u64(j, "iteration", r);
		js_str(j, "access", bench_dir_names[dir]);
		js_u64(j, "bytes", res->bytes);
		js_u64(j, "ops", res->ops);
		js_dbl(j, "bw_bytes",
		       bench_per_sec(res->bytes, res->elapsed_ns));
		js_dbl(j, "bw_mib",
		       bench_per_sec(res->bytes, res->elapsed_ns) / 1048576.0);
		js_dbl(j, "iops", bench_per_sec(res->ops, res->elapsed_ns));
		js_dbl(j, "time_s", (double)res->elapsed_ns / 1e9);
		js_dbl(j, "lat_mean_s", res->lat_mean_ns / 1e9);
		js_close(j, '}');
	}
	js_close(j, ']');
	js_open(j, "summary", '{');
	for (d = DIR_NR; d-- > 0;) {
		double mx = 0, mn = INFINITY, sum = 0, sq = 0;
		unsigned int n = 0;

		if (d == DIR_OTHER)
			continue;
		for (r = 0; r < o->repetitions; r++) {
			const struct bench_ior_result *x = &b->rpt.ior[r][d];
			double bw = bench_per_sec(x->bytes, x->elapsed_ns) /
				    1048576.0;

			if (!x->done)
				continue;
			n++;
			sum += bw;
			sq += bw * bw;
			if (bw > mx)
				mx = bw;
			if (bw < mn)
				mn = bw;
		}
		if (!n)
			continue;
		js_open(j, bench_dir_names[d], '{');
		js_dbl(j, "max_mib", mx);
		js_dbl(j, "min_mib", mn);
		js_dbl(j, "mean_mib", sum / n);
		js_dbl(j, "stddev_mib",
		       n > 1 ? sqrt(fmax(0, (sq - sum * sum / n) / (n - 1))) :
			       0);
		js_u64(j, "iterations", n);
		js_close(j, '}');
	}
	js_close(j, '}');
	js_close(j, '}');
}

/* Under MPI: the ranks, their hosts and what each contributed. */
static void js_mpi(struct js *j, struct bench *b)
{
	unsigned int r;

	js_open(j, "mpi", '{');
	js_u64(j, "ranks", bench_nranks(b));
	js_u64(j, "jobs_per_rank", b->o.numjobs);
	js_u64(j, "jobs", b->rpt.njobs);
	js_open(j, "rank_info", '[');
	for (r = 0; b->rpt.ranks && r < bench_nranks(b); r++) {
		const struct bench_rankinfo *ri = &b->rpt.ranks[r];

		js_open(j, NULL, '{');
		js_u64(j, "rank", r);
		js_str(j, "host", ri->host);
		js_bool(j, "merged", ri->merged);
		js_u64(j, "ops", ri->ops);
		js_dbl(j, "usr_cpu", bench_cpu_pct(ri->usr_ns, ri->wall_ns));
		js_dbl(j, "sys_cpu", bench_cpu_pct(ri->sys_ns, ri->wall_ns));
		js_i64(j, "errno", ri->status < 0 ? -ri->status : 0);
		js_close(j, '}');
	}
	js_close(j, ']');
	js_close(j, '}');
}

/* the jobs of @b, as elements of the "jobs" array */
static void js_jobs(struct js *j, struct bench *b, bool plus,
		    struct bench_hist *tmp, const struct view *all)
{
	struct view v;
	unsigned int i;

	if (b->o.group_reporting) {
		js_view(j, b, all, NULL, plus, tmp, all);
		return;
	}
	for (i = 0; i < b->rpt.njobs; i++) {
		bench_view_job(b, b->rpt.jobs[i], &v);
		js_view(j, b, &v, NULL, plus, tmp, all);
	}
}

/* the members of an "xprt" object of a run: ours, beside fio's keys */
static void js_xprt(struct js *j, struct bench *b, bool plus,
		    struct bench_hist *tmp, const struct view *all)
{
	unsigned int i;

	js_u64(j, "start", (uint64_t)b->rpt.start_time);
	js_options(j, b);
	if (bench_distributed(b))
		js_mpi(j, b);
	js_view(j, b, all, "aggregate", plus, tmp, all);
	if (b->o.workload == WL_IOR)
		js_ior(j, b);
	js_open(j, "backend_stats", '{');
	js_str(j, "name", b->ops->name);
	for (i = 0; i < b->rpt.nkv; i++)
		js_u64(j, b->rpt.kv[i].name, b->rpt.kv[i].value);
	js_close(j, '}');
	js_open(j, "status", '{');
	js_bool(j, "ok", b->status == 0);
	js_i64(j, "errno", b->status < 0 ? -b->status : 0);
	js_str(j, "error", b->status ? strerror(-b->status) : "");
	js_bool(j, "interrupted", b->interrupted);
	js_close(j, '}');
}

/* "--key=value" words as fio's "global options" strings */
static void js_globals(struct js *j, char *const *globals, unsigned int n)
{
	unsigned int i;

	js_open(j, "global options", '{');
	for (i = 0; i < n; i++) {
		const char *w = globals[i] + 2, *eq = strchr(w, '=');
		char key[64];

		snprintf(key, sizeof(key), "%.*s",
			 (int)(eq ? (size_t)(eq - w) : strlen(w)), w);
		js_str(j, key, eq ? eq + 1 : "");
	}
	js_close(j, '}');
}

/**
 * bench_report_json_multi() - one JSON document for the runs @bs (a job
 * file's sections, in order); @globals are the job file's [global]
 * options.  With one run and no globals, the single-run document.
 * Return: 0 or -ENOMEM.
 */
int bench_report_json_multi(struct bench **bs, unsigned int n,
			    char *const *globals, unsigned int nglobals,
			    FILE *f, bool plus)
{
	struct bench_hist *agg[DIR_NR], *tmp;
	struct js j = {.f = f, .depth = 0, .first = {true}};
	struct view all;
	struct timespec ts;
	char tbuf[64], vbuf[64];
	unsigned int i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		bench_agg_free(agg);
		return -ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y",
		 localtime(&ts.tv_sec));
	fputc('{', f);
	j.depth = 1;
	j.first[1] = true;
	/* fio's: consumers check it exists; ours says which program wrote
	 * it in xprt.program */
	js_str(&j, "fio version", "fio-3.33");
	js_u64(&j, "timestamp", (uint64_t)ts.tv_sec);
	js_u64(&j, "timestamp_ms",
	       (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
	js_str(&j, "time", tbuf);
	if (nglobals)
		js_globals(&j, globals, nglobals);
	js_open(&j, "jobs", '[');
	for (i = 0; i < n; i++) {
		if (!bs[i]->started)
			continue;
		bench_view_all(bs[i], agg, &all);
		js_jobs(&j, bs[i], plus, tmp, &all);
	}
	js_close(&j, ']');
	js_open(&j, "xprt", '{');
	snprintf(vbuf, sizeof(vbuf), "libxprt-bench-%s", lx_xprt_version());
	js_str(&j, "bench version", vbuf);
	js_str(&j, "program", bench_prog_name);
	js_str(&j, "backend", bs[0]->ops->name);
	if (n == 1) {
		bench_view_all(bs[0], agg, &all);
		js_xprt(&j, bs[0], plus, tmp, &all);
	} else {
		js_open(&j, "sections", '[');
		for (i = 0; i < n; i++) {
			js_open(&j, NULL, '{');
			js_str(&j, "name", bs[i]->o.name);
			js_u64(&j, "groupid", bs[i]->rpt.groupid);
			js_bool(&j, "ran", bs[i]->started);
			if (bs[i]->started) {
				bench_view_all(bs[i], agg, &all);
				js_xprt(&j, bs[i], plus, tmp, &all);
			}
			js_close(&j, '}');
		}
		js_close(&j, ']');
	}
	js_close(&j, '}');
	fputs("\n}\n", f);
	free(tmp);
	bench_agg_free(agg);
	return 0;
}

int bench_report_json(struct bench *b, FILE *f, bool plus)
{
	return bench_report_json_multi(&b, 1, NULL, 0, f, plus);
}

/* ------------------------------------------------------------ terse */

static void terse_lat_us(FILE *f, const struct bench_hist *h)
{
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f", bench_hist_min(h) / 1000,
		bench_hist_max(h) / 1000, bench_hist_mean(h) / 1000.0,
		bench_hist_stddev(h) / 1000.0);
}

/* fio's terse v3 fields of one direction (41 of them) */
static void terse_dir(FILE *f, struct bench *b, const struct view *v,
		      enum bench_dir d, double agg_bw)
{
	const struct bench_hist *h = v->h[d];
	uint64_t n = bench_hist_count(h), el = v->elapsed[d];
	const struct bench_samp *sb = v->sbw ? &v->sbw[d] : &no_samp;
	const double *pcts;
	unsigned int i, np = bench_report_pcts(b, &pcts);

	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64,
		v->bytes[d] / 1024,
		(uint64_t)(bench_per_sec(v->bytes[d], el) / 1024),
		(uint64_t)bench_per_sec(n, el), el / 1000000);
	fputs(";0;0;0.000000;0.000000", f); /* slat: not split */
	terse_lat_us(f, h);
	for (i = 0; i < 20; i++) {
		if (i < np && n)
			fprintf(f, ";%f%%=%" PRIu64, pcts[i],
				bench_hist_percentile(h, pcts[i]) / 1000);
		else
			fputs(";0%=0", f);
	}
	terse_lat_us(f, h);
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", (uint64_t)sb->min,
		(uint64_t)sb->max,
		agg_bw > 0 ? 100.0 * bench_samp_mean(sb) / agg_bw : 0.0,
		bench_samp_mean(sb), bench_samp_dev(sb));
}

static void terse_view(FILE *f, struct bench *b, const struct view *v,
		       const struct view *all, struct bench_hist *tmp)
{
	double shares[3][12];
	unsigned int d, k, hot = bench_depth_level(b->o.iodepth);

	fprintf(f, "3;fio-3.33;%s;0;%d", v->name, v->err ? -v->err->status : 0);
	for (d = 0; d < DIR_OTHER; d++)
		terse_dir(f, b, v, d,
			  bench_per_sec(all->bytes[d], all->elapsed[d]) /
				  1024.0);
	fprintf(f, ";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64,
		bench_cpu_pct(v->usr_ns, v->wall_ns),
		bench_cpu_pct(v->sys_ns, v->wall_ns), b->rpt.ctx, b->rpt.majf,
		b->rpt.minf);
	for (k = 0; k < 7; k++)
		fprintf(f, ";%s", k == hot ? "100.0%" : "0.0%");
	bench_lat_shares(v, tmp, shares);
	for (k = 0; k < 10; k++)
		fprintf(f, ";%.2f%%", shares[1][k]);
	for (k = 0; k < 12; k++)
		fprintf(f, ";%.2f%%", shares[2][k]);
	if (b->o.description)
		fprintf(f, ";%s", b->o.description);
	fputc('\n', f);
}

/**
 * bench_report_terse() - fio's terse (minimal) output, version 3: one
 * line per job (or one for all with --group_reporting)
 * Return: 0 or -ENOMEM.
 */
int bench_report_terse(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR], *tmp;
	struct view all, v;
	unsigned int i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		bench_agg_free(agg);
		return -ENOMEM;
	}
	bench_view_all(b, agg, &all);
	if (b->o.group_reporting) {
		terse_view(f, b, &all, &all, tmp);
	} else {
		for (i = 0; i < b->rpt.njobs; i++) {
			bench_view_job(b, b->rpt.jobs[i], &v);
			terse_view(f, b, &v, &all, tmp);
		}
	}
	free(tmp);
	bench_agg_free(agg);
	return 0;
}
