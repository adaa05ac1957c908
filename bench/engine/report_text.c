/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text report: fio 3.33's normal output, line for line, in its layout
 * and units (fio's stat.c: show_thread_status_normal(), show_ddir_status(),
 * show_clat_percentiles(), show_latencies(), show_group_stats(); numbers
 * through fio's num2str()), so that a script that parses fio's text
 * parses ours.  Then, after a line of their own, the benches' figures fio
 * has not: CPU per operation, handoffs, metadata operations, errors, the
 * ior table and the back-end's counters.
 *
 * Where fio has a figure the engine does not measure apart, the line
 * keeps fio's shape with what the engine knows: completion and total
 * latency are one measurement (clat = lat, no slat: submission is not
 * timed on its own, as fio's synchronous engines), the engine keeps
 * iodepth I/Os in flight (IO depths at --iodepth, one I/O per submission
 * and completion), and there is no zone, no short or dropped I/O and no
 * latency target.  A job's error is told in fio's words, the back-end
 * standing for fio's source file ("err= 5 (file:nfs3, func=I/O,
 * error=Input/output error)").
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#define SIG_FIGS 4 /* fio's significant_figures default */

/* fio prints binary units unless kb_base=1000 */
static bool bin_units(const struct bench *b)
{
	return b->o.kb_base != 1000;
}

/*
 * fio's num2str(@num, @maxlen, 1, @pow2, unit): at most @maxlen digits,
 * divided by 1000 or 1024 with a prefix until it fits, the decimals
 * that are left room for, rounded as fio rounds.
 */
static const char *num2str(char *out, size_t len, uint64_t num,
			   unsigned int maxlen, bool pow2, const char *unit)
{
	static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
	static const char *const iec[] = {"",	"Ki", "Mi", "Gi",
					  "Ti", "Pi", "Ei"};
	const char *const *pre = pow2 ? iec : si;
	unsigned int k = pow2 ? 1024 : 1000, post = 0, modulo = UINT_MAX;
	bool carry = false;
	char tmp[32];
	size_t digits;

	for (; post < 7; post++) {
		snprintf(tmp, sizeof(tmp), "%" PRIu64, num);
		if (strlen(tmp) <= maxlen)
			break;
		modulo = (unsigned int)(num % k);
		num /= k;
		carry = modulo >= k / 2;
	}
	if (post >= 7)
		post = 0;
	if (modulo != UINT_MAX) {
		snprintf(tmp, sizeof(tmp), "%" PRIu64, num);
		digits = strlen(tmp);
		if (maxlen > digits + 1) {
			snprintf(tmp, sizeof(tmp), "%.*f",
				 (int)(maxlen - digits - 1),
				 (double)modulo / (double)k);
			if (tmp[0] == '1')
				num++;
			snprintf(out, len, "%" PRIu64 ".%s%s%s", num, tmp + 2,
				 pre[post], unit);
			return out;
		}
		if (carry)
			num++;
	}
	snprintf(out, len, "%" PRIu64 "%s%s", num, pre[post], unit);
	return out;
}

/* fio's display_lat(): "clat (usec): min=..., max=..., avg=, stdev=" */
static void text_lat(FILE *f, const char *name, const struct bench_hist *h)
{
	uint64_t mn = bench_hist_min(h), mx = bench_hist_max(h);
	double mean = bench_hist_mean(h), dev = bench_hist_stddev(h);
	const char *base = "(nsec)";
	char a[32], z[32];

	if (mn > 2000000 && mx > 99999999ull && dev > 1000000.0) {
		mn /= 1000000;
		mx /= 1000000;
		mean /= 1e6;
		dev /= 1e6;
		base = "(msec)";
	} else if (mn > 2000 && mx > 99999 && dev > 1000.0) {
		mn /= 1000;
		mx /= 1000;
		mean /= 1e3;
		dev /= 1e3;
		base = "(usec)";
	}
	fprintf(f, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n",
		name, base, num2str(a, sizeof(a), mn, 6, false, ""),
		num2str(z, sizeof(z), mx, 6, false, ""), mean, dev);
}

/* fio's show_clat_percentiles(): the unit from the values' range */
static void text_pcts(FILE *f, struct bench *b, const struct bench_hist *h,
		      const char *pre)
{
	uint64_t val[BENCH_MAX_PCT > BENCH_NPCT ? BENCH_MAX_PCT : BENCH_NPCT];
	uint64_t minv = UINT64_MAX, maxv = 0, div = 1;
	unsigned int i, s, np, scale = 0, per_line;
	const char *unit = "nsec";
	const double *p;
	int width = 5, prec;

	np = bench_report_pcts(b, &p);
	if (!bench_hist_count(h) || !np)
		return;
	for (i = 0; i < np; i++) {
		val[i] = bench_hist_percentile(h, p[i]);
		minv = val[i] < minv ? val[i] : minv;
		maxv = val[i] > maxv ? val[i] : maxv;
	}
	if (minv > 2000000 && maxv > 99999999ull) {
		scale = 2;
		div = 1000000;
		unit = "msec";
	} else if (minv > 2000 && maxv > 99999) {
		scale = 1;
		div = 1000;
		unit = "usec";
	}
	if (maxv / div && (int)(log10((double)(maxv / div)) + 1) > width)
		width = (int)(log10((double)(maxv / div)) + 1);
	prec = (int)b->o.pct_prec;
	per_line = (80 - 7) / (unsigned int)(prec + 10 + width);
	fprintf(f, "    %s percentiles (%s):\n     |", pre, unit);
	for (i = 0; i < np; i++) {
		if (i && i % per_line == 0)
			fputs("     |", f);
		for (s = 0; s < scale; s++)
			val[i] = (val[i] + 999) / 1000;
		fprintf(f, " %*.*fth=[%*" PRIu64 "]%c", prec + 3, prec, p[i],
			width, val[i], i == np - 1 ? '\n' : ',');
		if (i != np - 1 && i % per_line == per_line - 1)
			fputc('\n', f);
	}
}

/* fio's "bw (  KiB/s)" and "iops" lines, from the rate samples */
static void text_samples(FILE *f, struct bench *b, const struct view *v,
			 enum bench_dir d, uint64_t agg_bps)
{
	const struct bench_samp *s;
	double kb = (double)b->o.kb_base, mean, dev, per = 100.0;
	uint64_t mn, mx;
	const char *unit = bin_units(b) ? "KiB" : "kB";

	s = v->sbw ? &v->sbw[d] : NULL;
	if (s && s->n) {
		mean = bench_samp_mean(s);
		dev = bench_samp_dev(s);
		mn = (uint64_t)s->min;
		mx = (uint64_t)s->max;
		/* fio: the job's mean (as an int) against the group's */
		if (agg_bps > 1024) {
			per = (double)(int)mean * 100.0 /
			      ((double)agg_bps / 1024.0);
			per = per > 100.0 ? 100.0 : per;
		}
		if (mean > kb * kb) {
			mn = (uint64_t)((double)mn / kb);
			mx = (uint64_t)((double)mx / kb);
			mean /= kb;
			dev /= kb;
			unit = "MiB";
		}
		fprintf(f,
			"   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64
			", per=%3.2f%%, avg=%5.02f, stdev=%5.02f, "
			"samples=%" PRIu64 "\n",
			unit, mn, mx, per, mean, dev, s->n);
	}
	s = v->siops ? &v->siops[d] : NULL;
	if (s && s->n)
		fprintf(f,
			"   iops        : min=%5" PRIu64 ", max=%5" PRIu64
			", avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
			(uint64_t)s->min, (uint64_t)s->max, bench_samp_mean(s),
			bench_samp_dev(s), s->n);
}

/* fio's runtime of a direction: whole milliseconds, at least one when
 * anything was done (fio measures its runs in ms) */
static uint64_t run_ms(const struct view *v, enum bench_dir d)
{
	uint64_t ms = v->elapsed[d] / 1000000;

	if (!v->bytes[d] && !bench_hist_count(v->h[d]))
		return 0;
	return ms ? ms : 1;
}

/* fio's show_ddir_status() for reads and writes */
static void text_dir(FILE *f, struct bench *b, const struct view *v,
		     enum bench_dir d, uint64_t agg_bps)
{
	const struct bench_hist *h = v->h[d];
	uint64_t runt = run_ms(v, d), bw, iops;
	bool p2 = bin_units(b);
	char a[32], c[32], e[32], g[32];

	if (!runt)
		return;
	bw = 1000 * v->bytes[d] / runt;
	iops = 1000 * bench_hist_count(h) / runt;
	fprintf(f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)%s\n",
		bench_dir_names[d],
		num2str(a, sizeof(a), iops, SIG_FIGS, false, ""),
		num2str(c, sizeof(c), bw, SIG_FIGS, p2, "B/s"),
		num2str(e, sizeof(e), bw, SIG_FIGS, !p2, "B/s"),
		num2str(g, sizeof(g), v->bytes[d], SIG_FIGS, p2, "B"), runt,
		d == DIR_WRITE ? "; 0 zone resets" : "");
	if (bench_hist_count(h)) {
		text_lat(f, "clat", h);
		text_lat(f, " lat", h);
	}
	text_pcts(f, b, h, "clat");
	text_samples(f, b, v, d, agg_bps);
}

/* fio's show_lat(): the shares of one unit's buckets, five a line */
static void text_lat_dist(FILE *f, const double *share, unsigned int n,
			  const char *unit)
{
	static const char *const ranges[] = {
		"2=",	"4=",	"10=",	"20=",	 "50=",	  "100=",
		"250=", "500=", "750=", "1000=", "2000=", ">=2000="};
	unsigned int i, line = 0;
	bool shown = false;

	for (i = 0; i < n; i++) {
		if (share[i] <= 0.0)
			continue;
		if (!line)
			fprintf(f, "%s  lat (%s)   : ", shown ? "\n" : "",
				unit);
		shown = true;
		fprintf(f, "%s%s%3.2f%%", line ? ", " : "", ranges[i],
			share[i]);
		line = line == 4 ? 0 : line + 1;
	}
	if (shown)
		fputc('\n', f);
}

/* fio's IO depths, submit and complete lines (stat_calc_dist()) */
static void text_depths(FILE *f, const struct bench *b)
{
	static const char *const dl[] = {"1",  "2",  "4",   "8",
					 "16", "32", ">=64"};
	static const char *const sl[] = {"0",  "4",  "8",   "16",
					 "32", "64", ">=64"};
	static const char *const head[] = {
		"  IO depths    : ", "     submit    : ", "     complete  : "};
	unsigned int k, i, hot;

	for (k = 0; k < 3; k++) {
		hot = k ? 1 : bench_depth_level(b->o.iodepth);
		fputs(head[k], f);
		for (i = 0; i < 7; i++)
			fprintf(f, "%s%s=%3.1f%%", i ? ", " : "",
				k ? sl[i] : dl[i], i == hot ? 100.0 : 0.0);
		fputc('\n', f);
	}
}

/* the job's (or group's) block: fio's show_thread_status_normal() */
static void text_view(FILE *f, struct bench *b, const struct view *v,
		      const struct view *all)
{
	static const char *const units[3] = {"nsec", "usec", "msec"};
	bool meta = bench_rw_meta(b->o.rw);
	struct bench_hist *tmp = NULL;
	double shares[3][12];
	char when[32];
	time_t now = time(NULL);
	unsigned int d, u;
	uint64_t sync = meta ? 0 : bench_hist_count(v->h[DIR_OTHER]);

	if (!ctime_r(&now, when))
		snprintf(when, sizeof(when), "?\n");
	if (v->err)
		fprintf(f,
			"%s: (groupid=%u, jobs=%u): err=%2d (file:%s, func=%s, "
			"error=%s): pid=%d: %s",
			b->o.name, b->rpt.groupid, v->njobs, -v->err->status,
			b->ops->name, v->err->what, strerror(-v->err->status),
			(int)getpid(), when);
	else
		fprintf(f, "%s: (groupid=%u, jobs=%u): err=%2d: pid=%d: %s",
			b->o.name, b->rpt.groupid, v->njobs, 0, (int)getpid(),
			when);
	if (b->o.description && *b->o.description)
		fprintf(f, "  Description  : [%s]\n", b->o.description);
	for (d = 0; d < DIR_OTHER; d++)
		if (v->bytes[d])
			text_dir(f, b, v, d,
				 (uint64_t)bench_per_sec(all->bytes[d],
							 run_ms(all, d) *
								 1000000));
	tmp = malloc(sizeof(*tmp));
	if (tmp) {
		bench_lat_shares(v, tmp, shares);
		for (u = 0; u < 3; u++)
			text_lat_dist(f, shares[u], u == 2 ? 12 : 10, units[u]);
		free(tmp);
	}
	if (sync) {
		fputs("  fsync/fdatasync/sync_file_range:\n", f);
		text_lat(f, "sync", v->h[DIR_OTHER]);
		text_pcts(f, b, v->h[DIR_OTHER], "sync");
	}
	fprintf(f,
		"  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64
		", majf=%" PRIu64 ", minf=%" PRIu64 "\n",
		bench_cpu_pct(v->usr_ns, v->wall_ns),
		bench_cpu_pct(v->sys_ns, v->wall_ns), b->rpt.ctx, b->rpt.majf,
		b->rpt.minf);
	text_depths(f, b);
	fprintf(f,
		"     issued rwts: total=%" PRIu64 ",%" PRIu64 ",0,%" PRIu64
		" short=0,0,0,0 dropped=0,0,0,0\n",
		bench_hist_count(v->h[DIR_READ]),
		bench_hist_count(v->h[DIR_WRITE]), sync);
	fprintf(f,
		"     latency   : target=0, window=0, percentile=100.00%%, "
		"depth=%u\n",
		b->o.iodepth);
}

/* fio's "x: (g=0): rw=..." line of a job section ("..." for its clones);
 * trims have no size of their own here: fio shows the last one given */
static void text_header(FILE *f, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	const struct bench_bsdist *r = &o->bsd[0], *w = &o->bsd[1];
	uint64_t lo[2], hi[2];
	unsigned int d, i, n = b->rpt.njobs;
	char s[6][32];

	/* a bssplit's sizes as fio shows them: the smallest-largest */
	for (d = 0; d < 2; d++) {
		const struct bench_bsdist *bd = d ? w : r;

		lo[d] = bd->lo;
		hi[d] = bd->hi;
		for (i = 0; i < bd->n; i++) {
			if (!i || bd->len[i] < lo[d])
				lo[d] = bd->len[i];
			if (!i || bd->len[i] > hi[d])
				hi[d] = bd->len[i];
		}
	}
	for (d = 0; d < 2; d++) {
		num2str(s[2 * d], sizeof(s[0]), lo[d], SIG_FIGS, bin_units(b),
			"B");
		num2str(s[2 * d + 1], sizeof(s[0]), hi[d], SIG_FIGS,
			bin_units(b), "B");
	}
	fprintf(f,
		"%s: (g=%u): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, "
		"ioengine=%s, iodepth=%u\n",
		o->name, b->rpt.groupid, bench_rw_name(o->rw), s[0], s[1], s[2],
		s[3], s[2], s[3], b->ops->name, o->iodepth);
	if (n > 1)
		fputs("...\n", f);
}

/* fio's version and "Starting N threads" after the sections' lines */
static void text_start(FILE *f, unsigned int n)
{
	fprintf(f, "fio-3.33\nStarting %u thread%s\n\n", n, n > 1 ? "s" : "");
}

/* a reporting group's figures of one direction (fio's group_run_stats) */
struct grp {
	uint64_t min_run, max_run, min_bw, max_bw, bytes;
};

/* one job of the group, or a section's jobs together (group_reporting) */
static void grp_add(struct grp *g, uint64_t runt, uint64_t bytes)
{
	uint64_t bw;

	if (!runt)
		return;
	if (!g->min_run || runt < g->min_run)
		g->min_run = runt;
	g->max_run = runt > g->max_run ? runt : g->max_run;
	bw = 1000 * bytes / runt;
	g->min_bw = bw < g->min_bw ? bw : g->min_bw;
	g->max_bw = bw > g->max_bw ? bw : g->max_bw;
}

static void grp_section(struct grp *g, struct bench *b, enum bench_dir d)
{
	uint64_t runt, bytes = 0, longest = 0;
	struct view jv;
	unsigned int i;

	for (i = 0; i < b->rpt.njobs; i++) {
		bench_view_job(b, b->rpt.jobs[i], &jv);
		runt = run_ms(&jv, d);
		g->bytes += jv.bytes[d];
		bytes += jv.bytes[d];
		longest = runt > longest ? runt : longest;
		if (!b->o.group_reporting)
			grp_add(g, runt, jv.bytes[d]);
	}
	if (b->o.group_reporting) /* fio: the jobs merged into one */
		grp_add(g, longest, bytes);
}

/*
 * fio's show_group_stats() for each reporting group of @bs (the sections
 * of a job file between stonewalls share one): the group's bandwidth,
 * its jobs' range, bytes and run times
 */
static void text_groups(FILE *f, struct bench **bs, unsigned int n)
{
	static const char *const up[2] = {"   READ", "  WRITE"};
	unsigned int i, k, d, gid;
	char s[8][32];
	bool p2;

	for (i = 0; i < n; i++) {
		gid = bench_report_groupid(bs[i]);
		for (k = 0; k < i; k++)
			if (bs[k]->started &&
			    bench_report_groupid(bs[k]) == gid)
				break;
		if (!bs[i]->started || k < i)
			continue; /* not run, or its group is printed */
		p2 = bin_units(bs[i]);
		fprintf(f, "\nRun status group %u (all jobs):\n", gid);
		for (d = 0; d < DIR_OTHER; d++) {
			struct grp g = {0, 0, UINT64_MAX, 0, 0};
			uint64_t agg;

			for (k = i; k < n; k++)
				if (bs[k]->started &&
				    bench_report_groupid(bs[k]) == gid)
					grp_section(&g, bs[k], d);
			if (!g.max_run)
				continue;
			agg = 1000 * g.bytes / g.max_run;
			fprintf(f,
				"%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), "
				"run=%" PRIu64 "-%" PRIu64 "msec\n",
				up[d],
				num2str(s[0], 32, agg, SIG_FIGS, p2, "B/s"),
				num2str(s[1], 32, agg, SIG_FIGS, !p2, "B/s"),
				num2str(s[2], 32, g.min_bw, SIG_FIGS, p2,
					"B/s"),
				num2str(s[3], 32, g.max_bw, SIG_FIGS, p2,
					"B/s"),
				num2str(s[4], 32, g.min_bw, SIG_FIGS, !p2,
					"B/s"),
				num2str(s[5], 32, g.max_bw, SIG_FIGS, !p2,
					"B/s"),
				num2str(s[6], 32, g.bytes, SIG_FIGS, p2, "B"),
				num2str(s[7], 32, g.bytes, SIG_FIGS, !p2, "B"),
				g.min_run, g.max_run);
		}
	}
}

/* ------------------------------------------------------ the benches' own */

static void ours_view(FILE *f, struct bench *b, const struct view *v)
{
	const struct bench_hist *h = v->h[DIR_OTHER];

	fprintf(f, "  %s: cpu/op=%.3fus (%s), handoffs=%" PRIu64, v->name,
		bench_cpu_us_per_op(v),
		bench_nranks(b) <= 1 ? "process" :
		v->rank < 0	     ? "all ranks" :
				       "rank",
		v->handoffs);
	if (v->jobid >= 0)
		fprintf(f, ", owner=%" PRIu64, v->owner);
	if (v->jobid >= 0 && bench_nranks(b) > 1)
		fprintf(f, ", rank=%d%s%s", v->rank, v->host ? ", host=" : "",
			v->host ? v->host : "");
	if (v->filename)
		fprintf(f, ", file=%s", v->filename);
	fputc('\n', f);
	if (bench_rw_meta(b->o.rw) && bench_hist_count(h)) {
		uint64_t el = v->elapsed[DIR_OTHER];

		fprintf(f,
			"    %s: IOPS=%.0f (%" PRIu64 " ops/%" PRIu64
			"msec), lat (nsec): min=%" PRIu64 ", max=%" PRIu64
			", avg=%.2f, stdev=%.2f\n",
			bench_rw_name(b->o.rw),
			bench_per_sec(bench_hist_count(h), el),
			bench_hist_count(h), el / 1000000, bench_hist_min(h),
			bench_hist_max(h), bench_hist_mean(h),
			bench_hist_stddev(h));
	}
	if (v->nerrors || v->verify_errors)
		fprintf(f,
			"    errors: %" PRIu64 " (verify mismatches %" PRIu64
			")\n",
			v->nerrors, v->verify_errors);
}

static void text_ior(FILE *f, struct bench *b)
{
	const struct bench_opts *o = &b->o;
	const struct bench_ior_result *res;
	unsigned int r, d, pos = 0;
	enum bench_dir dir;

	fprintf(f, "\n%-7s %11s %11s %11s %11s %10s %9s %5s\n", "access",
		"bw(MiB/s)", "IOPS", "Latency(s)", "block(KiB)", "xfer(KiB)",
		"time(s)", "iter");
	while ((res = bench_ior_next(b, &pos, &r, &dir)))
		fprintf(f,
			"%-7s %11.2f %11.1f %11.6f %11.2f %10.2f %9.4f %5u\n",
			bench_dir_names[dir],
			bench_per_sec(res->bytes, res->elapsed_ns) / 1048576.0,
			bench_per_sec(res->ops, res->elapsed_ns),
			res->lat_mean_ns / 1e9, (double)o->size / 1024.0,
			(double)o->bs / 1024.0, (double)res->elapsed_ns / 1e9,
			r);
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
}

/* the benches' lines, after fio's and headed as theirs */
static void text_ours(FILE *f, struct bench *b, const struct view *all,
		      bool section)
{
	const struct bench_opts *o = &b->o;
	struct view v;
	unsigned int i;

	fprintf(f,
		"\n%s (libxprt %s): back-end=%s, transport=%s, nconnect=%u%s"
		"%s%s",
		bench_prog_name, o->workload == WL_IOR ? "ior" : "fio",
		b->ops->name,
		o->transport == BENCH_TRANSPORT_RDMA ? "rdma" : "tcp",
		o->nconnect, o->verify ? ", verify" : "",
		o->preset ? ", preset=" : "", o->preset ? o->preset : "");
	if (bench_nranks(b) > 1)
		fprintf(f, ", %u MPI ranks", bench_nranks(b));
	if (section)
		fprintf(f, ", section=%s, group=%u", o->name,
			bench_report_groupid(b));
	fputc('\n', f);
	if (!o->group_reporting)
		for (i = 0; i < b->rpt.njobs; i++) {
			bench_view_job(b, b->rpt.jobs[i], &v);
			ours_view(f, b, &v);
		}
	if (o->group_reporting || b->rpt.njobs > 1)
		ours_view(f, b, all);
	if (o->workload == WL_IOR)
		text_ior(f, b);
	if (b->rpt.nkv) {
		fprintf(f, "Back-end %s:", b->ops->name);
		for (i = 0; i < b->rpt.nkv; i++)
			fprintf(f, "%s%s=%" PRIu64, i % 4 ? ", " : "\n  ",
				b->rpt.kv[i].name, b->rpt.kv[i].value);
		fputc('\n', f);
	}
}

/* the job blocks of one section; with @ours, its own lines (after all
 * the sections' fio lines in a job file) */
static int text_section(FILE *f, struct bench *b, bool ours, bool section)
{
	struct bench_hist *agg[DIR_NR];
	struct view all, v;
	unsigned int i;

	if (bench_agg_alloc(agg))
		return -ENOMEM;
	bench_view_all(b, agg, &all);
	if (ours) {
		text_ours(f, b, &all, section);
	} else if (b->o.group_reporting) {
		text_view(f, b, &all, &all);
	} else {
		for (i = 0; i < b->rpt.njobs; i++) {
			bench_view_job(b, b->rpt.jobs[i], &v);
			text_view(f, b, &v, &all);
		}
	}
	bench_agg_free(agg);
	return 0;
}

/*
 * fio's text report of the sections @bs (those that ran): with @head the
 * opening lines (every section's job line, the version, "Starting N
 * threads"), the jobs' blocks in order, each reporting group's status;
 * then each section's own lines
 */
static int text_report(struct bench **bs, unsigned int n, FILE *f, bool head)
{
	unsigned int i, threads = 0;
	int ret = 0;

	if (head) {
		for (i = 0; i < n; i++)
			if (bs[i]->started) {
				text_header(f, bs[i]);
				threads += bs[i]->rpt.njobs;
			}
		text_start(f, threads);
	} else {
		fputc('\n', f); /* after the previous report */
	}
	for (i = 0; !ret && i < n; i++)
		if (bs[i]->started)
			ret = text_section(f, bs[i], false, n > 1);
	if (ret)
		return ret;
	text_groups(f, bs, n);
	for (i = 0; !ret && i < n; i++)
		if (bs[i]->started)
			ret = text_section(f, bs[i], true, n > 1);
	return ret;
}

/**
 * bench_report_normal_multi() - fio's text report of a job file's
 * sections @bs: as fio prints a job file's, the opening lines included
 * Return: 0 or -ENOMEM.
 */
int bench_report_normal_multi(struct bench **bs, unsigned int n, FILE *f)
{
	return text_report(bs, n, f, true);
}

/**
 * bench_report_normal() - fio's text report of the run @b; @head: with
 * fio's opening lines (its first report; a later --status-interval
 * report goes without them, after a blank line)
 * Return: 0 or -ENOMEM.
 */
int bench_report_normal(struct bench *b, FILE *f, bool head)
{
	return text_report(&b, 1, f, head);
}
