/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reports: fio-like text and fio-like JSON.
 *
 * Both formats are built from one "view" per job and one for all jobs
 * together.  The all-jobs view merges the jobs' histograms bucket by
 * bucket (never averaging percentiles), sums bytes and takes the longest
 * job's elapsed time per direction, as fio's group reporting does; it has
 * exactly the shape of a job, so a tool reading "jobs[0]" of a
 * --group_reporting run or "aggregate" of any run needs no special case,
 * and a later MPI reduction of the same histograms produces the same
 * shape again.
 *
 * Units follow fio: JSON "bw" in KiB/s, "bw_bytes" in B/s, "runtime" in
 * ms, latencies in ns, percentile keys printed "%f"; text lines pick nsec,
 * usec or msec by magnitude.  CPU figures are for the whole process
 * (completions run on back-end threads, not on job threads), over the
 * measured time only.
 *
 * After an MPI run rank 0's report lists every rank's jobs (b->rep, with
 * "rank" and "host"), a job's CPU figures are its rank's, and the
 * aggregate's are the sum over ranks divided by the longest measured time
 * (percent of one CPU, as for a multi-threaded process).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

static const double pcts[] = {1,  5,  10, 20, 30,   40,	  50,	 60,   70,
			      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

static const char *const dir_names[DIR_NR] = {"read", "write", "other"};

const char *bench_dir_name(enum bench_dir d)
{
	return d < DIR_NR ? dir_names[d] : "?";
}

struct view {
	const char *name;
	int jobid; /* -1: all jobs */
	int rank;  /* -1: all ranks */
	unsigned int njobs;
	uint64_t owner;
	const char *filename;
	const struct bench_hist *h[DIR_NR];
	uint64_t bytes[DIR_NR];
	uint64_t elapsed[DIR_NR];
	uint64_t handoffs, nerrors, verify_errors;
	const struct bench_job_err *err;
	/* CPU of the process(es) that ran it, and their operations */
	uint64_t usr_ns, sys_ns, wall_ns, cpu_ops;
	const char *host;
};

static uint64_t all_ops(const struct bench *b);

static void view_job(struct bench *b, struct bench_job *j, struct view *v)
{
	unsigned int d;

	memset(v, 0, sizeof(*v));
	v->name = j->name;
	v->jobid = (int)j->gid;
	v->rank = (int)j->rank;
	v->njobs = 1;
	if (b->ranks) {
		const struct bench_rankinfo *ri = &b->ranks[j->rank];

		v->usr_ns = ri->usr_ns;
		v->sys_ns = ri->sys_ns;
		v->wall_ns = ri->wall_ns;
		v->cpu_ops = ri->ops;
		v->host = ri->host;
	} else {
		v->usr_ns = b->usr_ns;
		v->sys_ns = b->sys_ns;
		v->wall_ns = b->wall_ns;
		v->cpu_ops = all_ops(b);
	}
	v->owner = j->info.owner;
	v->filename = j->info.filename;
	for (d = 0; d < DIR_NR; d++) {
		v->h[d] = j->hist[d];
		v->bytes[d] = atomic_load(&j->bytes[d]);
		v->elapsed[d] = j->elapsed_ns[d];
	}
	v->handoffs = atomic_load(&j->handoffs);
	v->nerrors = atomic_load(&j->nerrors);
	v->verify_errors = atomic_load(&j->verify_errors);
	if (atomic_load(&j->err_claimed))
		v->err = &j->err;
}

/* Merge every job into @v; @agg provides the merged histograms. */
static void view_all(struct bench *b, struct bench_hist *agg[DIR_NR],
		     struct view *v)
{
	unsigned int i, d;

	memset(v, 0, sizeof(*v));
	v->name = "all";
	v->jobid = -1;
	v->rank = -1;
	v->njobs = b->nrep;
	if (b->o.filename)
		v->filename = b->files[0].name;
	v->usr_ns = b->usr_ns;
	v->sys_ns = b->sys_ns;
	v->wall_ns = b->wall_ns;
	v->cpu_ops = all_ops(b);
	for (d = 0; d < DIR_NR; d++) {
		bench_hist_init(agg[d]);
		v->h[d] = agg[d];
	}
	for (i = 0; i < b->nrep; i++) {
		struct view jv;

		view_job(b, b->rep[i], &jv);
		for (d = 0; d < DIR_NR; d++) {
			bench_hist_merge(agg[d], jv.h[d]);
			v->bytes[d] += jv.bytes[d];
			if (jv.elapsed[d] > v->elapsed[d])
				v->elapsed[d] = jv.elapsed[d];
		}
		v->handoffs += jv.handoffs;
		v->nerrors += jv.nerrors;
		v->verify_errors += jv.verify_errors;
		if (!v->err)
			v->err = jv.err;
	}
}

static int alloc_agg(struct bench_hist *agg[DIR_NR])
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++) {
		agg[d] = malloc(sizeof(struct bench_hist));
		if (!agg[d]) {
			while (d--)
				free(agg[d]);
			return -ENOMEM;
		}
	}
	return 0;
}

static void free_agg(struct bench_hist *agg[DIR_NR])
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++)
		free(agg[d]);
}

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static double cpu_pct(uint64_t cpu_ns, uint64_t wall_ns)
{
	return wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : 0.0;
}

static double cpu_us_per_op(const struct view *v)
{
	return v->cpu_ops ? (double)(v->usr_ns + v->sys_ns) / 1000.0 /
				    (double)v->cpu_ops :
			    0.0;
}

/* every measured operation the report covers (all ranks) */
static uint64_t all_ops(const struct bench *b)
{
	uint64_t n = 0;
	unsigned int i, d;

	for (i = 0; i < b->nrep; i++)
		for (d = 0; d < DIR_NR; d++)
			n += bench_hist_count(b->rep[i]->hist[d]);
	return n;
}

/* ------------------------------------------------------------ text */

/* 3-4 significant digits with k/M/G, as fio prints IOPS */
static void fmt_count(char *out, size_t n, double v)
{
	if (v < 10000)
		snprintf(out, n, "%.0f", v);
	else if (v < 1e6)
		snprintf(out, n, v < 1e5 ? "%.1fk" : "%.0fk", v / 1e3);
	else if (v < 1e9)
		snprintf(out, n, v < 1e7 ? "%.2fM" : "%.1fM", v / 1e6);
	else
		snprintf(out, n, "%.2fG", v / 1e9);
}

static void fmt_bytes(char *out, size_t n, double v, bool binary,
		      const char *per)
{
	static const char *const bu[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	static const char *const du[] = {"B", "kB", "MB", "GB", "TB"};
	double base = binary ? 1024.0 : 1000.0;
	unsigned int u = 0;

	while (v >= base && u < 4) {
		v /= base;
		u++;
	}
	if (!u)
		snprintf(out, n, "%.0f%s%s", v, binary ? bu[u] : du[u], per);
	else
		snprintf(out, n,
			 v < 10	 ? "%.2f%s%s" :
			 v < 100 ? "%.1f%s%s" :
				   "%.0f%s%s",
			 v, binary ? bu[u] : du[u], per);
}

/* fio's choice: the unit follows the smallest latency, so that it keeps
 * its digits */
static const char *lat_unit(uint64_t min_ns, double *div)
{
	if (min_ns < 10000) {
		*div = 1;
		return "nsec";
	}
	if (min_ns < 10000000) {
		*div = 1e3;
		return "usec";
	}
	*div = 1e6;
	return "msec";
}

static void text_dir(FILE *f, const struct view *v, enum bench_dir d)
{
	const struct bench_hist *h = v->h[d];
	uint64_t n = bench_hist_count(h), el = v->elapsed[d];
	char iops[32], bw[32], bwd[32], io[32];
	double div;
	const char *unit;
	unsigned int i;
	int width;

	fmt_count(iops, sizeof(iops), per_sec(n, el));
	fmt_bytes(bw, sizeof(bw), per_sec(v->bytes[d], el), true, "/s");
	fmt_bytes(bwd, sizeof(bwd), per_sec(v->bytes[d], el), false, "/s");
	fmt_bytes(io, sizeof(io), (double)v->bytes[d], true, "");
	if (d == DIR_OTHER)
		fprintf(f, "  %5s: IOPS=%s (%" PRIu64 " ops/%" PRIu64 "msec)\n",
			dir_names[d], iops, n, el / 1000000);
	else
		fprintf(f, "  %5s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)\n",
			dir_names[d], iops, bw, bwd, io, el / 1000000);
	unit = lat_unit(bench_hist_min(h), &div);
	fprintf(f,
		"    lat (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, "
		"N=%" PRIu64 "\n",
		unit, (double)bench_hist_min(h) / div,
		(double)bench_hist_max(h) / div, bench_hist_mean(h) / div,
		bench_hist_stddev(h) / div, n);
	width = snprintf(NULL, 0, "%.0f", (double)bench_hist_max(h) / div);
	if (width < 5)
		width = 5;
	fprintf(f, "    lat percentiles (%s):\n", unit);
	for (i = 0; i < NPCT; i++) {
		double val = (double)bench_hist_percentile(h, pcts[i]) / div;

		fprintf(f, "%s %5.2fth=[%*.0f]%s", i % 4 ? "" : "     |",
			pcts[i], width, val,
			i == NPCT - 1 ? "\n" :
			i % 4 == 3    ? ",\n" :
					",");
	}
}

static void text_view(FILE *f, struct bench *b, const struct view *v)
{
	unsigned int d;

	if (v->jobid >= 0 && b->nranks > 1)
		fprintf(f,
			"%s: (groupid=0, jobs=1): err=%3d: rank=%d%s%s, "
			"owner=%" PRIu64 "%s%s\n",
			v->name, v->err ? -v->err->status : 0, v->rank,
			v->host ? ", host=" : "", v->host ? v->host : "",
			v->owner, v->filename ? ", file=" : "",
			v->filename ? v->filename : "");
	else if (v->jobid >= 0)
		fprintf(f,
			"%s: (groupid=0, jobs=1): err=%3d: owner=%" PRIu64
			"%s%s\n",
			v->name, v->err ? -v->err->status : 0, v->owner,
			v->filename ? ", file=" : "",
			v->filename ? v->filename : "");
	else
		fprintf(f, "All jobs: (groupid=0, jobs=%u): err=%3d\n",
			v->njobs, v->err ? -v->err->status : 0);
	for (d = 0; d < DIR_NR; d++)
		if (bench_hist_count(v->h[d]) || v->elapsed[d])
			text_dir(f, v, d);
	fprintf(f,
		"  cpu          : usr=%.2f%%, sys=%.2f%%, cpu/op=%.3fus "
		"(%s)\n",
		cpu_pct(v->usr_ns, v->wall_ns), cpu_pct(v->sys_ns, v->wall_ns),
		cpu_us_per_op(v),
		b->nranks <= 1 ? "process" :
		v->rank < 0    ? "all ranks" :
				 "rank");
	fprintf(f, "  handoffs     : %" PRIu64 "\n", v->handoffs);
	if (v->nerrors || v->verify_errors)
		fprintf(f,
			"  errors       : %" PRIu64
			" (verify mismatches %" PRIu64 ")\n",
			v->nerrors, v->verify_errors);
}

static void text_header(FILE *f, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	char size[32], bs[32];

	fmt_bytes(size, sizeof(size), (double)o->size, true, "");
	snprintf(bs, sizeof(bs), "%" PRIu64, o->bs);
	fprintf(f, "%s: %s rw=%s, bs=%sB, size=%s, iodepth=%u, numjobs=%u",
		bench_prog_name, o->workload == WL_IOR ? "ior" : "fio",
		bench_rw_name(o->rw), bs, size, o->iodepth, o->numjobs);
	if (b->nranks > 1)
		fprintf(f, " x %u MPI ranks", b->nranks);
	if (o->workload == WL_FIO)
		fprintf(f, ", runtime=%.3gs, ramp_time=%.3gs",
			(double)o->runtime_ns / 1e9, (double)o->ramp_ns / 1e9);
	else
		fprintf(f, ", repetitions=%u", o->repetitions);
	fprintf(f, "\n  back-end=%s, transport=%s, nconnect=%u%s%s%s\n",
		b->ops->name,
		o->transport == BENCH_TRANSPORT_RDMA ? "rdma" : "tcp",
		o->nconnect, o->verify ? ", verify" : "",
		o->preset ? ", preset=" : "", o->preset ? o->preset : "");
}

static void text_ior(FILE *f, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	unsigned int r, d;

	fprintf(f, "\n%-7s %11s %11s %11s %11s %10s %9s %5s\n", "access",
		"bw(MiB/s)", "IOPS", "Latency(s)", "block(KiB)", "xfer(KiB)",
		"time(s)", "iter");
	for (r = 0; r < o->repetitions; r++)
		for (d = DIR_NR; d-- > 0;) {
			const struct bench_ior_result *x;

			if (d == DIR_OTHER)
				continue;
			x = &b->ior[r][d];
			if (!x->done)
				continue;
			fprintf(f,
				"%-7s %11.2f %11.1f %11.6f %11.2f %10.2f "
				"%9.4f %5u\n",
				d == DIR_READ ? "read" : "write",
				per_sec(x->bytes, x->elapsed_ns) / 1048576.0,
				per_sec(x->ops, x->elapsed_ns),
				x->lat_mean_ns / 1e9, (double)o->size / 1024.0,
				(double)o->bs / 1024.0,
				(double)x->elapsed_ns / 1e9, r);
		}
	for (d = DIR_NR; d-- > 0;) {
		double best = 0;
		bool any = false;

		if (d == DIR_OTHER)
			continue;
		for (r = 0; r < o->repetitions; r++) {
			const struct bench_ior_result *x = &b->ior[r][d];
			double bw = per_sec(x->bytes, x->elapsed_ns);

			if (!x->done)
				continue;
			any = true;
			if (bw > best)
				best = bw;
		}
		if (any)
			fprintf(f, "Max %-6s %.2f MiB/sec (%.2f MB/sec)\n",
				d == DIR_READ ? "Read:" : "Write:",
				best / 1048576.0, best / 1e6);
	}
	fputc('\n', f);
}

static void text_status(FILE *f, struct bench *b, const struct view *all)
{
	static const char *const up[DIR_NR] = {"READ", "WRITE", "OTHER"};
	unsigned int d, i;

	fprintf(f, "\nRun status (all jobs):\n");
	for (d = 0; d < DIR_NR; d++) {
		uint64_t mn = UINT64_MAX, mx = 0;
		char bw[32], bwd[32], io[32], iod[32];

		if (!bench_hist_count(all->h[d]) && !all->elapsed[d])
			continue;
		for (i = 0; i < b->nrep; i++) {
			uint64_t e = b->rep[i]->elapsed_ns[d];

			if (e < mn)
				mn = e;
			if (e > mx)
				mx = e;
		}
		fmt_bytes(bw, sizeof(bw),
			  per_sec(all->bytes[d], all->elapsed[d]), true, "/s");
		fmt_bytes(bwd, sizeof(bwd),
			  per_sec(all->bytes[d], all->elapsed[d]), false, "/s");
		fmt_bytes(io, sizeof(io), (double)all->bytes[d], true, "");
		fmt_bytes(iod, sizeof(iod), (double)all->bytes[d], false, "");
		fprintf(f,
			"  %5s: bw=%s (%s), io=%s (%s), ops=%" PRIu64
			", run=%" PRIu64 "-%" PRIu64 "msec\n",
			up[d], bw, bwd, io, iod, bench_hist_count(all->h[d]),
			mn / 1000000, mx / 1000000);
	}
	if (b->nkv) {
		fprintf(f, "\nBack-end %s:", b->ops->name);
		for (i = 0; i < b->nkv; i++)
			fprintf(f, "%s%s=%" PRIu64, i % 4 ? ", " : "\n  ",
				b->kv[i].name, b->kv[i].value);
		fputc('\n', f);
	}
}

int bench_report_normal(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR];
	struct view all, v;
	unsigned int i;

	if (alloc_agg(agg))
		return -ENOMEM;
	view_all(b, agg, &all);
	text_header(f, b);
	if (b->o.workload == WL_IOR)
		text_ior(f, b);
	if (!b->o.group_reporting)
		for (i = 0; i < b->nrep; i++) {
			view_job(b, b->rep[i], &v);
			text_view(f, b, &v);
		}
	if (b->o.group_reporting || b->nrep > 1)
		text_view(f, b, &all);
	text_status(f, b, &all);
	free_agg(agg);
	return 0;
}

/* ------------------------------------------------------------ JSON */

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
	for (i = 0; i < NPCT; i++) {
		char k[32];

		snprintf(k, sizeof(k), "%f", pcts[i]);
		js_u64(j, k, bench_hist_percentile(h, pcts[i]));
	}
	js_close(j, '}');
	js_close(j, '}');
}

static void js_dir(struct js *j, const struct view *v, enum bench_dir d)
{
	const struct bench_hist *h = v->h[d];
	uint64_t n = bench_hist_count(h), el = v->elapsed[d];

	js_open(j, dir_names[d], '{');
	js_u64(j, "io_bytes", v->bytes[d]);
	js_u64(j, "io_kbytes", v->bytes[d] / 1024);
	js_u64(j, "bw_bytes", (uint64_t)per_sec(v->bytes[d], el));
	js_u64(j, "bw", (uint64_t)(per_sec(v->bytes[d], el) / 1024));
	js_dbl(j, "iops", per_sec(n, el));
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
	js_dbl(j, "usr_cpu", cpu_pct(v->usr_ns, v->wall_ns));
	js_dbl(j, "sys_cpu", cpu_pct(v->sys_ns, v->wall_ns));
	js_dbl(j, "cpu_us_per_op", cpu_us_per_op(v));
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
			js_str(j, "access", dir_names[d]);
			js_u64(j, "bytes", x->bytes);
			js_u64(j, "ops", x->ops);
			js_dbl(j, "bw_bytes", per_sec(x->bytes, x->elapsed_ns));
			js_dbl(j, "bw_mib",
			       per_sec(x->bytes, x->elapsed_ns) / 1048576.0);
			js_dbl(j, "iops", per_sec(x->ops, x->elapsed_ns));
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
			double bw =
				per_sec(x->bytes, x->elapsed_ns) / 1048576.0;

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
		js_open(j, dir_names[d], '{');
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
		js_dbl(j, "usr_cpu", cpu_pct(ri->usr_ns, ri->wall_ns));
		js_dbl(j, "sys_cpu", cpu_pct(ri->sys_ns, ri->wall_ns));
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

	if (alloc_agg(agg))
		return -ENOMEM;
	view_all(b, agg, &all);
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
			view_job(b, b->rep[i], &v);
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
	free_agg(agg);
	return 0;
}

/* ------------------------------------------------------------ histograms */

/**
 * bench_report_hist() - the aggregate latency histograms (all jobs, all
 * ranks), for CDF plots: a TSV header line, then one line per non-empty
 * bucket: direction, lowest and highest value of the bucket (ns), its
 * count and the fraction of the direction's samples at or below it.
 * Return: 0 or -ENOMEM.
 */
int bench_report_hist(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR];
	struct view all;
	unsigned int d, i;

	if (alloc_agg(agg))
		return -ENOMEM;
	view_all(b, agg, &all);
	fputs("dir\tlow_ns\thigh_ns\tcount\tcum_fraction\n", f);
	for (d = 0; d < DIR_NR; d++) {
		uint64_t n = bench_hist_count(agg[d]), cum = 0;

		for (i = 0; n && i < BENCH_HIST_NBUCKETS; i++) {
			uint64_t c = atomic_load_explicit(&agg[d]->b[i],
							  memory_order_relaxed);
			uint64_t lo = bench_hist_bucket_low(i);

			if (!c)
				continue;
			cum += c;
			fprintf(f,
				"%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				"\t%.9f\n",
				dir_names[d], lo,
				lo + bench_hist_bucket_width(i) - 1, c,
				(double)cum / (double)n);
		}
	}
	free_agg(agg);
	return 0;
}
