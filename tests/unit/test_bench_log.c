// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-interval log (--write_log), the histogram dump (--write_hist)
 * and the pieces under them: per-rank file names and interval histograms.
 * Runs go through bench_main() with the in-memory back-end; the files are
 * read back and checked against the run's own JSON report (the intervals
 * must add up to the totals).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine_int.h"
#include "backends/mem/mem_backend.h"

#define MAX_ARGS 40
#define MAX_ROWS 4096
#define NCOLS	 19

static char dir[] = "/tmp/bench-log-XXXXXX";
static char log_path[256], hist_path[256], json_path[256];

struct row {
	double t;
	char job[32], phase[32];
	double v[NCOLS - 3];
};

/* column index of direction @d's field @k (0 iops, 1 bw, 2 mean, 3 p50,
 * 4 p99) in struct row's v[]; the interval's length is the last one */
#define COL(d, k) ((d)*5 + (k))
#define IVL	  (NCOLS - 4)

static struct row rows[MAX_ROWS];
static unsigned int nrows;
static char header[1024];

static int run_v(const char *const *args)
{
	char *argv[MAX_ARGS];
	int argc = 0, save, fd, rc;

	argv[argc++] = (char *)"mem-bench";
	for (; *args && argc < MAX_ARGS - 8; args++)
		argv[argc++] = (char *)*args;
	argv[argc++] = (char *)"--output-format";
	argv[argc++] = (char *)"json";
	argv[argc++] = (char *)"--output";
	argv[argc++] = json_path;
	argv[argc++] = (char *)"--eta";
	argv[argc++] = (char *)"never";
	argv[argc] = NULL;
	unlink(log_path);
	unlink(hist_path);
	/* usage errors are expected in some tests: keep stderr quiet */
	fflush(stderr);
	save = dup(STDERR_FILENO);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = bench_main(&bench_mem_backend, argc, argv);
	fflush(stderr);
	dup2(save, STDERR_FILENO);
	close(save);
	return rc;
}

#define RUN(...) run_v((const char *const[]){__VA_ARGS__, NULL})

static void read_log(void)
{
	FILE *f = fopen(log_path, "r");
	char line[2048];

	assert_non_null(f);
	nrows = 0;
	assert_non_null(fgets(header, sizeof(header), f));
	while (fgets(line, sizeof(line), f) && nrows < MAX_ROWS) {
		struct row *r = &rows[nrows];
		char *save = NULL, *tok;
		unsigned int c = 0;

		for (tok = strtok_r(line, "\t\n", &save); tok;
		     tok = strtok_r(NULL, "\t\n", &save), c++) {
			if (c == 0)
				r->t = strtod(tok, NULL);
			else if (c == 1)
				snprintf(r->job, sizeof(r->job), "%s", tok);
			else if (c == 2)
				snprintf(r->phase, sizeof(r->phase), "%s", tok);
			else if (c < NCOLS)
				r->v[c - 3] = strtod(tok, NULL);
		}
		if (c != NCOLS)
			fail_msg("log line %u has %u fields, not %u", nrows + 2,
				 c, NCOLS);
		nrows++;
	}
	fclose(f);
}

/* a number from the JSON report: keys searched one after the other */
static double jnum_v(const char *const *keys)
{
	static char js[1 << 16];
	FILE *f = fopen(json_path, "r");
	size_t n;
	const char *p = js;
	char k[64];

	assert_non_null(f);
	n = fread(js, 1, sizeof(js) - 1, f);
	js[n] = '\0';
	fclose(f);
	for (; *keys; keys++) {
		snprintf(k, sizeof(k), "\"%s\"", *keys);
		p = strstr(p, k);
		if (!p)
			fail_msg("no key %s in the report", *keys);
		p += strlen(k);
	}
	while (*p == ' ' || *p == ':')
		p++;
	return strtod(p, NULL);
}

#define JNUM(...) jnum_v((const char *const[]){__VA_ARGS__, NULL})

/*
 * Operations in the "all" lines: the sum of IOPS x interval length.  Each
 * interval ends at its time and is no longer than the time since the
 * line before (less when a phase began in between).
 */
static double logged_ops(enum bench_dir d)
{
	double prev = 0, ops = 0, len;
	unsigned int i;

	for (i = 0; i < nrows; i++) {
		if (strcmp(rows[i].job, "all"))
			continue;
		len = rows[i].v[IVL];
		/* times are printed to the ms */
		assert_true(len > 0 && len <= rows[i].t - prev + 0.0011);
		ops += rows[i].v[COL(d, 0)] * len;
		prev = rows[i].t;
	}
	return ops;
}

static unsigned int count_job(const char *job)
{
	unsigned int i, n = 0;

	for (i = 0; i < nrows; i++)
		n += !strcmp(rows[i].job, job);
	return n;
}

/* ------------------------------------------------------------ tests */

static void test_rank_path_puts_the_rank_before_the_extension(void **st)
{
	char out[64];

	(void)st;
	assert_int_equal(bench_rank_path(out, sizeof(out), "a/run.tsv", 3, 4),
			 0);
	assert_string_equal(out, "a/run.3.tsv");
	assert_int_equal(bench_rank_path(out, sizeof(out), "run", 0, 2), 0);
	assert_string_equal(out, "run.0");
	assert_int_equal(bench_rank_path(out, sizeof(out), "d.x/run", 1, 2), 0);
	assert_string_equal(out, "d.x/run.1");
	assert_int_equal(bench_rank_path(out, sizeof(out), ".log", 1, 2), 0);
	assert_string_equal(out, ".log.1");
	/* alone: the name as given */
	assert_int_equal(bench_rank_path(out, sizeof(out), "run.tsv", 0, 1), 0);
	assert_string_equal(out, "run.tsv");
}

static void test_rank_path_refuses_what_does_not_fit(void **st)
{
	char out[8];

	(void)st;
	assert_int_equal(bench_rank_path(out, sizeof(out), "12345.tsv", 1, 2),
			 -ENAMETOOLONG);
	assert_int_equal(bench_rank_path(out, sizeof(out), "1234567", 0, 1), 0);
	assert_int_equal(bench_rank_path(out, sizeof(out), "12345678", 0, 1),
			 -ENAMETOOLONG);
}

static void test_hist_delta_holds_only_the_interval_samples(void **st)
{
	struct bench_hist *live = malloc(sizeof(*live));
	struct bench_hist *then = malloc(sizeof(*then));
	struct bench_hist *now = malloc(sizeof(*now));
	struct bench_hist *d = malloc(sizeof(*d));
	unsigned int i;

	(void)st;
	bench_hist_init(live);
	for (i = 0; i < 1000; i++)
		bench_hist_record(live, 5000000); /* 5 ms, the past */
	bench_hist_copy(then, live);
	assert_int_equal(bench_hist_count(then), 1000);
	assert_int_equal(bench_hist_max(then), 5000000);
	for (i = 0; i < 100; i++)
		bench_hist_record(live, 1000 + i); /* 1.0 .. 1.1 us */
	bench_hist_copy(now, live);
	bench_hist_delta(d, now, then);
	assert_int_equal(bench_hist_count(d), 100);
	assert_true(fabs(bench_hist_mean(d) - 1049.5) < 0.01);
	/* the interval's p99 knows nothing of the old 5 ms samples */
	assert_true(bench_hist_percentile(d, 99) >= 1090 &&
		    bench_hist_percentile(d, 99) <= 1100);
	assert_true(bench_hist_percentile(d, 50) >= 1045 &&
		    bench_hist_percentile(d, 50) <= 1055);
	/* an empty interval */
	bench_hist_delta(d, now, now);
	assert_int_equal(bench_hist_count(d), 0);
	assert_int_equal(bench_hist_percentile(d, 50), 0);
	free(live);
	free(then);
	free(now);
	free(d);
}

static void test_log_intervals_add_up_to_the_report(void **st)
{
	double total, ops, prev = 0;
	unsigned int i, n_all;

	(void)st;
	assert_int_equal(RUN("--rw", "randread", "--time_based", "--runtime",
			     "1", "--iodepth", "4", "--numjobs", "2",
			     "--mem-lat", "500us", "--write_log", log_path,
			     "--log_interval", "200ms", "--log_per_job"),
			 0);
	read_log();
	assert_non_null(strstr(header, "time_s\tjob\tphase\tread_iops\t"));
	assert_non_null(strstr(header, "\tother_lat_p99_ns\tinterval_s\n"));
	n_all = count_job("all");
	assert_true(n_all >= 2 && n_all <= 6);
	assert_int_equal(count_job("job0"), n_all);
	assert_int_equal(count_job("job1"), n_all);
	for (i = 0; i < nrows; i++) {
		assert_string_equal(rows[i].phase, "run");
		assert_true(rows[i].t >= prev);
		assert_true(rows[i].t <= 1.0005);
		if (!strcmp(rows[i].job, "all")) {
			/* the jobs' lines come first and add up to it */
			double sum = rows[i - 1].v[COL(0, 0)] +
				     rows[i - 2].v[COL(0, 0)];

			assert_true(fabs(sum - rows[i].v[COL(0, 0)]) <= 1.0);
			/* ... over the same interval */
			assert_true(rows[i - 1].v[IVL] == rows[i].v[IVL] &&
				    rows[i - 2].v[IVL] == rows[i].v[IVL]);
			/* 4 KiB reads; bytes and counts are read a moment
			 * apart: within the 8 I/Os in flight */
			assert_true(fabs(rows[i].v[COL(0, 1)] -
					 4096 * rows[i].v[COL(0, 0)]) <=
				    4096 * 8 / rows[i].v[IVL]);
			assert_true(rows[i].v[COL(0, 2)] >= 500000);
			assert_int_equal(rows[i].v[COL(1, 0)], 0); /* write */
			prev = rows[i].t;
		}
	}
	total = JNUM("aggregate", "read", "total_ios");
	ops = logged_ops(DIR_READ);
	if (fabs(ops - total) > 0.01 * total + 5)
		fail_msg("the log's intervals hold %.0f reads, the report %.0f",
			 ops, total);
}

static void test_log_latency_follows_virtual_latency(void **st)
{
	unsigned int i, n = 0;

	(void)st;
	assert_int_equal(RUN("--rw", "randwrite", "--time_based", "--runtime",
			     "400ms", "--mem-lat", "100us", "--mem-virtual",
			     "--write_log", log_path, "--log_interval",
			     "100ms"),
			 0);
	read_log();
	for (i = 0; i < nrows; i++) {
		const double *w = &rows[i].v[COL(1, 0)];

		if (!w[0])
			continue; /* a last sliver of an interval */
		n++;
		/* the mean's sum and count are read a moment apart while
		 * completions go on: exact to a few samples per interval */
		assert_true(fabs(w[2] - 100000) < 500);
		assert_true(w[3] >= 99600 && w[3] <= 100400);
		assert_true(w[4] >= 99600 && w[4] <= 100400);
	}
	assert_true(n >= 1);
}

static void test_log_leaves_out_the_ramp(void **st)
{
	double total;

	(void)st;
	assert_int_equal(RUN("--rw", "read", "--ramp_time", "300ms",
			     "--time_based", "--runtime", "500ms", "--mem-lat",
			     "200us", "--write_log", log_path, "--log_interval",
			     "100ms"),
			 0);
	read_log();
	/* 5 intervals, fewer when a starved main thread skipped a tick */
	assert_true(nrows >= 2 && nrows <= 6);
	/* times count from the end of the ramp */
	assert_true(rows[0].t > 0.09 && rows[0].t < 0.35);
	assert_true(rows[nrows - 1].t <= 0.5005);
	total = JNUM("aggregate", "read", "total_ios");
	assert_true(fabs(logged_ops(DIR_READ) - total) <= 0.01 * total + 5);
}

static void test_log_ior_phases_share_one_time_axis(void **st)
{
	bool wr = false, rd = false;
	double prev = 0;
	unsigned int i;

	(void)st;
	assert_int_equal(RUN("--workload", "ior", "--rw", "rw", "--size", "4m",
			     "--bs", "64k", "--repetitions", "2", "--mem-lat",
			     "2ms", "--iodepth", "2", "--write_log", log_path,
			     "--log_interval", "100ms"),
			 0);
	read_log();
	for (i = 0; i < nrows; i++) {
		wr |= !strcmp(rows[i].phase, "ior-write");
		rd |= !strcmp(rows[i].phase, "ior-read");
		assert_true(rows[i].t >= prev);
		prev = rows[i].t;
	}
	assert_true(wr && rd);
	/* 2 reps x 64 writes of 64 KiB */
	assert_true(fabs(logged_ops(DIR_WRITE) - 128) <= 2);
}

static void test_log_options_are_checked_before_the_run(void **st)
{
	(void)st;
	assert_int_equal(RUN("--log_per_job", "--mem-virtual"), 2);
	assert_int_equal(RUN("--log_interval", "1s", "--mem-virtual"), 2);
	assert_int_equal(RUN("--write_log", log_path, "--log_interval", "50ms",
			     "--mem-virtual"),
			 2);
	assert_int_equal(
		RUN("--write_log", "/nonexistent/dir/log.tsv", "--mem-virtual"),
		2);
	assert_int_equal(
		RUN("--write_hist", "/nonexistent/dir/h.tsv", "--mem-virtual"),
		2);
	assert_int_equal(RUN("--write_log", log_path, "--log_per_job",
			     "--numjobs", "1025", "--iodepth", "1", "--size",
			     "4k", "--mem-virtual"),
			 2);
	assert_int_equal(access(log_path, F_OK), -1);
}

static void test_hist_dump_adds_up_to_the_report(void **st)
{
	FILE *f;
	char line[256], d[16];
	unsigned long long lo, hi, c, sum[2] = {0}, plo[2] = {0};
	double cum, last[2] = {0};
	bool any[2] = {false};
	int k;

	(void)st;
	assert_int_equal(RUN("--rw", "randrw", "--number_ios", "3000",
			     "--mem-lat", "10us:2ms", "--mem-virtual",
			     "--write_hist", hist_path),
			 0);
	f = fopen(hist_path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line,
			    "dir\tlow_ns\thigh_ns\tcount\tcum_fraction\n");
	while (fgets(line, sizeof(line), f)) {
		assert_int_equal(sscanf(line, "%15s %llu %llu %llu %lf", d, &lo,
					&hi, &c, &cum),
				 5);
		k = !strcmp(d, "write");
		assert_true(k || !strcmp(d, "read"));
		assert_true(lo <= hi && c > 0);
		assert_true(!any[k] || lo > plo[k]); /* increasing */
		assert_true(cum >= last[k]);
		any[k] = true;
		plo[k] = lo;
		last[k] = cum;
		sum[k] += c;
	}
	fclose(f);
	assert_int_equal(sum[0], (unsigned long long)JNUM("aggregate", "read",
							  "total_ios"));
	assert_int_equal(sum[1], (unsigned long long)JNUM("aggregate", "write",
							  "total_ios"));
	assert_int_equal(sum[0] + sum[1], 3000);
	assert_true(fabs(last[0] - 1) < 1e-9 && fabs(last[1] - 1) < 1e-9);
}

static int group_setup(void **st)
{
	(void)st;
	if (!mkdtemp(dir))
		return -1;
	snprintf(log_path, sizeof(log_path), "%s/log.tsv", dir);
	snprintf(hist_path, sizeof(hist_path), "%s/hist.tsv", dir);
	snprintf(json_path, sizeof(json_path), "%s/out.json", dir);
	return 0;
}

static int group_teardown(void **st)
{
	(void)st;
	unlink(log_path);
	unlink(hist_path);
	unlink(json_path);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_rank_path_puts_the_rank_before_the_extension),
		cmocka_unit_test(test_rank_path_refuses_what_does_not_fit),
		cmocka_unit_test(
			test_hist_delta_holds_only_the_interval_samples),
		cmocka_unit_test(test_log_intervals_add_up_to_the_report),
		cmocka_unit_test(test_log_latency_follows_virtual_latency),
		cmocka_unit_test(test_log_leaves_out_the_ramp),
		cmocka_unit_test(test_log_ior_phases_share_one_time_axis),
		cmocka_unit_test(test_log_options_are_checked_before_the_run),
		cmocka_unit_test(test_hist_dump_adds_up_to_the_report),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
