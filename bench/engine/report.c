/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reports: the views (this file), fio-like text (this file), fio-like
 * JSON (report_json.c), the histogram dump (this file).
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
 * After an MPI run rank 0's report lists every rank's jobs (b->rpt.jobs, with
 * "rank" and "host"), a job's CPU figures are its rank's, and the
 * aggregate's are the sum over ranks divided by the longest measured time
 * (percent of one CPU, as for a multi-threaded process).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const double bench_pcts[BENCH_NPCT] = {1,  5,	 10,   20,    30,   40,
				       50, 60,	 70,   80,    90,   95,
				       99, 99.5, 99.9, 99.95, 99.99};

const char *const bench_dir_names[DIR_NR] = {"read", "write", "other"};

const char *bench_dir_name(enum bench_dir d)
{
	return d < DIR_NR ? bench_dir_names[d] : "?";
}

void bench_view_job(struct bench *b, struct bench_job *j, struct view *v)
{
	unsigned int d;

	memset(v, 0, sizeof(*v));
	v->name = j->name;
	v->jobid = (int)j->gid;
	v->rank = (int)j->rank;
	v->njobs = 1;
	if (b->rpt.ranks) {
		const struct bench_rankinfo *ri = &b->rpt.ranks[j->rank];

		v->usr_ns = ri->usr_ns;
		v->sys_ns = ri->sys_ns;
		v->wall_ns = ri->wall_ns;
		v->cpu_ops = ri->ops;
		v->host = ri->host;
	} else {
		v->usr_ns = b->rpt.usr_ns;
		v->sys_ns = b->rpt.sys_ns;
		v->wall_ns = b->rpt.wall_ns;
		v->cpu_ops = bench_all_ops(b);
	}
	v->owner = j->info.owner;
	v->filename = j->info.filename;
	v->sbw = j->sbw;
	v->siops = j->siops;
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
void bench_view_all(struct bench *b, struct bench_hist *agg[DIR_NR],
		    struct view *v)
{
	unsigned int i, d;

	memset(v, 0, sizeof(*v));
	v->name = "all";
	v->jobid = -1;
	v->rank = -1;
	v->njobs = b->rpt.njobs;
	if (b->o.filename)
		v->filename = b->files[0].name;
	v->usr_ns = b->rpt.usr_ns;
	v->sys_ns = b->rpt.sys_ns;
	v->wall_ns = b->rpt.wall_ns;
	v->cpu_ops = bench_all_ops(b);
	bench_samp_all(b, &v->sbw, &v->siops);
	for (d = 0; d < DIR_NR; d++) {
		bench_hist_init(agg[d]);
		v->h[d] = agg[d];
	}
	for (i = 0; i < b->rpt.njobs; i++) {
		struct view jv;

		bench_view_job(b, b->rpt.jobs[i], &jv);
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

int bench_agg_alloc(struct bench_hist *agg[DIR_NR])
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

void bench_agg_free(struct bench_hist *agg[DIR_NR])
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++)
		free(agg[d]);
}

double bench_per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

double bench_cpu_pct(uint64_t cpu_ns, uint64_t wall_ns)
{
	return wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : 0.0;
}

double bench_cpu_us_per_op(const struct view *v)
{
	return v->cpu_ops ? (double)(v->usr_ns + v->sys_ns) / 1000.0 /
				    (double)v->cpu_ops :
			    0.0;
}

/* every measured operation the report covers (all ranks) */
uint64_t bench_all_ops(const struct bench *b)
{
	uint64_t n = 0;
	unsigned int i, d;

	for (i = 0; i < b->rpt.njobs; i++)
		for (d = 0; d < DIR_NR; d++)
			n += bench_hist_count(b->rpt.jobs[i]->hist[d]);
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

	fmt_count(iops, sizeof(iops), bench_per_sec(n, el));
	fmt_bytes(bw, sizeof(bw), bench_per_sec(v->bytes[d], el), true, "/s");
	fmt_bytes(bwd, sizeof(bwd), bench_per_sec(v->bytes[d], el), false,
		  "/s");
	fmt_bytes(io, sizeof(io), (double)v->bytes[d], true, "");
	if (d == DIR_OTHER)
		fprintf(f, "  %5s: IOPS=%s (%" PRIu64 " ops/%" PRIu64 "msec)\n",
			bench_dir_names[d], iops, n, el / 1000000);
	else
		fprintf(f, "  %5s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)\n",
			bench_dir_names[d], iops, bw, bwd, io, el / 1000000);
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
	for (i = 0; i < BENCH_NPCT; i++) {
		double val =
			(double)bench_hist_percentile(h, bench_pcts[i]) / div;

		fprintf(f, "%s %5.2fth=[%*.0f]%s", i % 4 ? "" : "     |",
			bench_pcts[i], width, val,
			i == BENCH_NPCT - 1 ? "\n" :
			i % 4 == 3	    ? ",\n" :
					      ",");
	}
}

static void text_view(FILE *f, struct bench *b, const struct view *v)
{
	unsigned int d;

	if (v->jobid >= 0 && bench_nranks(b) > 1)
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
		bench_cpu_pct(v->usr_ns, v->wall_ns),
		bench_cpu_pct(v->sys_ns, v->wall_ns), bench_cpu_us_per_op(v),
		bench_nranks(b) <= 1 ? "process" :
		v->rank < 0	     ? "all ranks" :
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
	if (bench_nranks(b) > 1)
		fprintf(f, " x %u MPI ranks", bench_nranks(b));
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
			x = &b->rpt.ior[r][d];
			if (!x->done)
				continue;
			fprintf(f,
				"%-7s %11.2f %11.1f %11.6f %11.2f %10.2f "
				"%9.4f %5u\n",
				d == DIR_READ ? "read" : "write",
				bench_per_sec(x->bytes, x->elapsed_ns) /
					1048576.0,
				bench_per_sec(x->ops, x->elapsed_ns),
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
			const struct bench_ior_result *x = &b->rpt.ior[r][d];
			double bw = bench_per_sec(x->bytes, x->elapsed_ns);

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
		for (i = 0; i < b->rpt.njobs; i++) {
			uint64_t e = b->rpt.jobs[i]->elapsed_ns[d];

			if (e < mn)
				mn = e;
			if (e > mx)
				mx = e;
		}
		fmt_bytes(bw, sizeof(bw),
			  bench_per_sec(all->bytes[d], all->elapsed[d]), true,
			  "/s");
		fmt_bytes(bwd, sizeof(bwd),
			  bench_per_sec(all->bytes[d], all->elapsed[d]), false,
			  "/s");
		fmt_bytes(io, sizeof(io), (double)all->bytes[d], true, "");
		fmt_bytes(iod, sizeof(iod), (double)all->bytes[d], false, "");
		fprintf(f,
			"  %5s: bw=%s (%s), io=%s (%s), ops=%" PRIu64
			", run=%" PRIu64 "-%" PRIu64 "msec\n",
			up[d], bw, bwd, io, iod, bench_hist_count(all->h[d]),
			mn / 1000000, mx / 1000000);
	}
	if (b->rpt.nkv) {
		fprintf(f, "\nBack-end %s:", b->ops->name);
		for (i = 0; i < b->rpt.nkv; i++)
			fprintf(f, "%s%s=%" PRIu64, i % 4 ? ", " : "\n  ",
				b->rpt.kv[i].name, b->rpt.kv[i].value);
		fputc('\n', f);
	}
}

int bench_report_normal(struct bench *b, FILE *f)
{
	struct bench_hist *agg[DIR_NR];
	struct view all, v;
	unsigned int i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	bench_view_all(b, agg, &all);
	text_header(f, b);
	if (b->o.workload == WL_IOR)
		text_ior(f, b);
	if (!b->o.group_reporting)
		for (i = 0; i < b->rpt.njobs; i++) {
			bench_view_job(b, b->rpt.jobs[i], &v);
			text_view(f, b, &v);
		}
	if (b->o.group_reporting || b->rpt.njobs > 1)
		text_view(f, b, &all);
	text_status(f, b, &all);
	bench_agg_free(agg);
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

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	bench_view_all(b, agg, &all);
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
				bench_dir_names[d], lo,
				lo + bench_hist_bucket_width(i) - 1, c,
				(double)cum / (double)n);
		}
	}
	bench_agg_free(agg);
	return 0;
}
