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

#include "report.h"

struct js {
	FILE *f;
	int depth;
	bool first[16];
};

static void js_str_raw(struct js *j, const char *s)
{
	fputc('"', j->f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c < 0x20)
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
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

static void js_lat(struct js *j, const char *key, const struct bench_hist *h)
{
	unsigned int i;

	js_open(j, key, '{');
	js_u64(j, "min", bench_hist_min(h));
	js_u64(j, "max", bench_hist_max(h));
	js_dbl(j, "mean", bench_hist_mean(h));
	js_dbl(j, "stddev", bench_hist_stddev(h));
	js_u64(j, "N", bench_hist_count(h));
	js_open(j, "percentile", '{');
	for (i = 0; i < BENCH_NPCT; i++) {
		char k[32];

		snprintf(k, sizeof(k), "%f", bench_pcts[i]);
		js_u64(j, k, bench_hist_percentile(h, bench_pcts[i]));
	}
	js_close(j, '}');
	js_close(j, '}');
}

static void js_dir(struct js *j, const struct view *v, enum bench_dir d)
{
	const struct bench_hist *h = v->h[d];
	uint64_t n = bench_hist_count(h), el = v->elapsed[d];

	js_open(j, bench_dir_names[d], '{');
	js_u64(j, "io_bytes", v->bytes[d]);
	js_u64(j, "io_kbytes", v->bytes[d] / 1024);
	js_u64(j, "bw_bytes", (uint64_t)bench_per_sec(v->bytes[d], el));
	js_u64(j, "bw", (uint64_t)(bench_per_sec(v->bytes[d], el) / 1024));
	js_dbl(j, "iops", bench_per_sec(n, el));
	js_u64(j, "runtime", el / 1000000);
	js_u64(j, "total_ios", n);
	/* one latency: submission to completion.  fio splits it into slat
	 * and clat; tools read clat_ns percentiles, so both carry them. */
	js_lat(j, "lat_ns", h);
	js_lat(j, "clat_ns", h);
	js_close(j, '}');
}

static const char *op_str(enum bench_op op)
{
	static const char *const n[] = {"read", "write", "null", "getattr"};

	return op < BENCH_OP_NR ? n[op] : "?";
}

static void js_view(struct js *j, struct bench *b, const struct view *v,
		    const char *key)
{
	uint64_t rt = 0;
	unsigned int d;

	js_open(j, key, '{');
	js_str(j, "jobname", v->name);
	js_u64(j, "groupid", 0);
	if (v->jobid >= 0) {
		js_i64(j, "jobid", v->jobid);
		js_u64(j, "owner", v->owner);
		if (b->dist) {
			js_i64(j, "rank", v->rank);
			if (v->host)
				js_str(j, "host", v->host);
		}
	}
	js_u64(j, "jobs", v->njobs);
	if (v->filename)
		js_str(j, "filename", v->filename);
	js_i64(j, "error", v->err ? -v->err->status : 0);
	for (d = 0; d < DIR_NR; d++)
		if (v->elapsed[d] > rt)
			rt = v->elapsed[d];
	js_u64(j, "job_runtime", rt / 1000000);
	for (d = 0; d < DIR_NR; d++)
		js_dir(j, v, d);
	js_dbl(j, "usr_cpu", bench_cpu_pct(v->usr_ns, v->wall_ns));
	js_dbl(j, "sys_cpu", bench_cpu_pct(v->sys_ns, v->wall_ns));
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

static void js_options(struct js *j, struct bench *b)
{
	const struct bench_opts *o = &b->o;

	js_open(j, "global options", '{');
	js_str(j, "workload", o->workload == WL_IOR ? "ior" : "fio");
	js_str(j, "rw", bench_rw_name(o->rw));
	js_u64(j, "bs", o->bs);
	js_u64(j, "size", o->size);
	js_u64(j, "iodepth", o->iodepth);
	js_u64(j, "numjobs", o->numjobs);
	js_dbl(j, "runtime", (double)o->runtime_ns / 1e9);
	js_dbl(j, "ramp_time", (double)o->ramp_ns / 1e9);
	js_u64(j, "number_ios", o->number_ios);
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
	unsigned int r, d;

	js_open(j, "ior", '{');
	js_u64(j, "block_size", o->size);
	js_u64(j, "transfer_size", o->bs);
	js_u64(j, "repetitions", o->repetitions);
	js_u64(j, "tasks", b->nrep);
	js_open(j, "results", '[');
	for (r = 0; r < o->repetitions; r++)
		for (d = DIR_NR; d-- > 0;) {
			const struct bench_ior_result *x;

			if (d == DIR_OTHER)
				continue;
			x = &b->ior[r][d];
			if (!x->done)
				continue;
			js_open(j, NULL, '{');
			js_u64(j, "iteration", r);
			js_str(j, "access", bench_dir_names[d]);
			js_u64(j, "bytes", x->bytes);
			js_u64(j, "ops", x->ops);
			js_dbl(j, "bw_bytes",
			       bench_per_sec(x->bytes, x->elapsed_ns));
			js_dbl(j, "bw_mib",
			       bench_per_sec(x->bytes, x->elapsed_ns) /
				       1048576.0);
			js_dbl(j, "iops", bench_per_sec(x->ops, x->elapsed_ns));
			js_dbl(j, "time_s", (double)x->elapsed_ns / 1e9);
			js_dbl(j, "lat_mean_s", x->lat_mean_ns / 1e9);
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
			const struct bench_ior_result *x = &b->ior[r][d];
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
	js_u64(j, "ranks", b->nranks);
	js_u64(j, "jobs_per_rank", b->o.numjobs);
	js_u64(j, "jobs", b->nrep);
	js_open(j, "rank_info", '[');
	for (r = 0; b->ranks && r < b->nranks; r++) {
		const struct bench_rankinfo *ri = &b->ranks[r];

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

int bench_report_json(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR];
	struct js j = {.f = f, .depth = 0, .first = {true}};
	struct view all, v;
	char tbuf[64];
	unsigned int i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	bench_view_all(b, agg, &all);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y",
		 localtime(&b->start_time));
	fputc('{', f);
	j.depth = 1;
	j.first[1] = true;
	js_str(&j, "bench version", "libxprt-bench-0.1.0");
	js_str(&j, "program", bench_prog_name);
	js_str(&j, "backend", b->ops->name);
	js_u64(&j, "timestamp", (uint64_t)b->start_time);
	js_str(&j, "time", tbuf);
	js_options(&j, b);
	if (b->dist)
		js_mpi(&j, b);
	js_open(&j, "jobs", '[');
	if (b->o.group_reporting) {
		js_view(&j, b, &all, NULL);
	} else {
		for (i = 0; i < b->nrep; i++) {
			bench_view_job(b, b->rep[i], &v);
			js_view(&j, b, &v, NULL);
		}
	}
	js_close(&j, ']');
	js_view(&j, b, &all, "aggregate");
	if (b->o.workload == WL_IOR)
		js_ior(&j, b);
	js_open(&j, "backend_stats", '{');
	js_str(&j, "name", b->ops->name);
	for (i = 0; i < b->nkv; i++)
		js_u64(&j, b->kv[i].name, b->kv[i].value);
	js_close(&j, '}');
	js_open(&j, "status", '{');
	js_bool(&j, "ok", b->status == 0);
	js_i64(&j, "errno", b->status < 0 ? -b->status : 0);
	js_str(&j, "error", b->status ? strerror(-b->status) : "");
	js_bool(&j, "interrupted", b->interrupted);
	js_close(&j, '}');
	fputs("\n}\n", f);
	bench_agg_free(agg);
	return 0;
}
