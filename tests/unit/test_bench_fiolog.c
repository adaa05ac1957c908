// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of fio's logs (bench/engine/fiolog.c) on the in-memory
 * back-end: one line per I/O without --log_avg_msec (as many as the
 * report's I/Os), windows with it, fio's file names with and without
 * --per_job_logs, and histogram lines of fio's 1856 bins whose counts
 * add up to the I/Os.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "backends/mem/mem_backend.h"

static char dir[] = "/tmp/bench-fiolog-XXXXXX";

static int run(const char *const *args)
{
	char *argv[40];
	int argc = 0, rc, save, fd;

	argv[argc++] = (char *)"mem-bench";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	save = dup(STDOUT_FILENO);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, STDOUT_FILENO);
	rc = bench_main(&bench_mem_backend, argc, argv);
	fflush(stdout);
	dup2(save, STDOUT_FILENO);
	close(save);
	close(fd);
	return rc;
}

#define RUN(...) run((const char *const[]){__VA_ARGS__, NULL})

/* lines of @name in the test directory; the sum of field @col (-1: of
 * every field from the 4th on, a histogram's bins), and the fields of
 * the first line */
static unsigned long lines(const char *name, int col, unsigned long *sum,
			   unsigned int *fields)
{
	char path[256], *line = NULL, *p;
	unsigned long n = 0;
	size_t cap = 0;
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("no %s", path);
	*sum = 0;
	while (getline(&line, &cap, f) > 0) {
		for (c = 0, p = line; p; c++, p = strchr(p, ',')) {
			if (*p == ',')
				p++;
			if (c == col || (col < 0 && c >= 3))
				*sum += strtoul(p, NULL, 10);
		}
		if (!n && fields)
			*fields = (unsigned int)c;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

static void test_per_io_logs_have_a_line_per_io(void **st)
{
	unsigned long sum, n;
	unsigned int fields = 0;
	char prefix[128];

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/a", dir);
	assert_int_equal(RUN("--rw=randrw", "--size=1m", "--numjobs=2",
			     "--mem-lat=20us", "--eta=never", "--write_lat_log",
			     prefix, "--write_iops_log", prefix),
			 0);
	/* 256 blocks once per job: 256 lines, iops 1 each */
	n = lines("a_lat.1.log", 1, &sum, &fields);
	assert_int_equal(n, 256);
	assert_int_equal(fields, 5);   /* time, value, ddir, bs, prio */
	assert_true(sum / n >= 20000); /* ns */
	assert_int_equal(lines("a_clat.2.log", 3, &sum, NULL), 256);
	assert_int_equal(sum, 256 * 4096); /* bs column */
	assert_int_equal(lines("a_iops.1.log", 1, &sum, NULL), 256);
	assert_int_equal(sum, 256);
	assert_int_equal(lines("a_slat.1.log", 1, &sum, NULL), 0);
}

static void test_windows_and_shared_files(void **st)
{
	unsigned long sum, n;
	char prefix[128];

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/w", dir);
	assert_int_equal(RUN("--rw=read", "--size=1m", "--numjobs=2",
			     "--mem-lat=50us", "--time_based",
			     "--runtime=1100ms", "--eta=never",
			     "--write_bw_log", prefix, "--log_avg_msec=250",
			     "--per_job_logs=0"),
			 0);
	/* one file for both jobs, a line per job every 250 ms: 4 windows */
	n = lines("w_bw.log", 0, &sum, NULL);
	assert_true(n >= 6 && n <= 10);
	assert_int_equal(lines("w_bw.log", 3, &sum, NULL), n);
	assert_int_equal(sum, 0); /* windows carry bs 0, as fio's */
}

static void test_hist_log_bins_add_up(void **st)
{
	unsigned long sum, n;
	unsigned int fields = 0;
	char prefix[128];

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/h", dir);
	assert_int_equal(RUN("--rw=read", "--size=1m", "--mem-lat=100us",
			     "--mem-virtual", "--eta=never", "--time_based",
			     "--number_ios=500", "--write_hist_log", prefix,
			     "--log_hist_msec=10"),
			 0);
	n = lines("h_clat_hist.1.log", -1, &sum, &fields);
	assert_true(n >= 1);
	assert_int_equal(fields, 3 + 1856);
	assert_int_equal(sum, 500);
}

/* the offsets column (--log_offset=1, the 5th field) of @name, in order */
static unsigned int offsets(const char *name, uint64_t *out, unsigned int max)
{
	char path[256], *line = NULL, *p;
	unsigned int n = 0, c;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("no %s", path);
	while (getline(&line, &cap, f) > 0 && n < max) {
		for (c = 0, p = line; p && c < 4; c++)
			p = strchr(p + 1, ',');
		if (!p)
			fail_msg("%s: no offset column: %s", path, line);
		out[n++] = strtoull(p + 1, NULL, 10);
	}
	free(line);
	fclose(f);
	return n;
}

/*
 * fio's rw=read:SIZE holes: SIZE bytes skipped after each I/O.  The
 * offsets expected are those real fio 3.33 wrote with --write_iolog (psync
 * on a local file): read:4k over a new 64k file (fio moves 64k: the 8
 * positions twice, since the last hole reaches the file's end); write:8k
 * (the last write ends at the file's end: one walk, 6); read:8k over 60k
 * from --offset 4k of an existing 1 MiB file, twice (--loops 2).  One
 * I/O in flight, so the log's order is the submission order.
 * test_bench_fio.sh compares against a live fio run too.
 */
static void test_sequential_holes_at_fios_offsets(void **st)
{
	static const uint64_t r4[] = {0,     8192,  16384, 24576, 32768, 40960,
				      49152, 57344, 0,	   8192,  16384, 24576,
				      32768, 40960, 49152, 57344};
	static const uint64_t w8[] = {0, 12288, 24576, 36864, 49152, 61440};
	static const uint64_t l2[] = {4096, 16384, 28672, 40960, 53248,
				      4096, 16384, 28672, 40960, 53248};
	uint64_t got[32];
	char prefix[128];
	unsigned int i, n;

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/o", dir);
	assert_int_equal(RUN("--rw=read:4k", "--bs=4k", "--size=64k",
			     "--eta=never", "--write_lat_log", prefix,
			     "--log_offset=1"),
			 0);
	n = offsets("o_lat.1.log", got, 32);
	assert_int_equal(n, 16);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], r4[i]);

	snprintf(prefix, sizeof(prefix), "%s/w", dir);
	assert_int_equal(RUN("--rw=write:8k", "--bs=4k", "--size=64k",
			     "--eta=never", "--write_lat_log", prefix,
			     "--log_offset=1"),
			 0);
	n = offsets("w_lat.1.log", got, 32);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], w8[i]);

	snprintf(prefix, sizeof(prefix), "%s/l", dir);
	assert_int_equal(RUN("--rw=read:8k", "--bs=4k", "--size=60k",
			     "--offset=4k", "--loops=2", "--mem-file",
			     "job.0.0:1m", "--eta=never", "--write_lat_log",
			     prefix, "--log_offset=1"),
			 0);
	n = offsets("l_lat.1.log", got, 32);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], l2[i]);

	/* fio's negative holes walk back (fio 3.33 on a 64k file):
	 * read:-8k 0, 56k, 52k ... 4k, 0; read:-12k 0, 52k, 44k ... 4k and
	 * around again from 52k */
	{
		static const uint64_t b8[] = {0,  56, 52, 48, 44, 40, 36, 32,
					      28, 24, 20, 16, 12, 8,  4,  0};
		static const uint64_t b12[] = {0,  52, 44, 36, 28, 20, 12, 4,
					       52, 44, 36, 28, 20, 12, 4,  52};

		snprintf(prefix, sizeof(prefix), "%s/b", dir);
		assert_int_equal(RUN("--rw=read:-8k", "--bs=4k", "--size=64k",
				     "--eta=never", "--write_lat_log", prefix,
				     "--log_offset=1"),
				 0);
		n = offsets("b_lat.1.log", got, 32);
		assert_int_equal(n, 16);
		for (i = 0; i < n; i++)
			assert_int_equal(got[i], b8[i] * 1024);
		snprintf(prefix, sizeof(prefix), "%s/c", dir);
		assert_int_equal(RUN("--rw=read:-12k", "--bs=4k", "--size=64k",
				     "--eta=never", "--write_lat_log", prefix,
				     "--log_offset=1"),
				 0);
		n = offsets("c_lat.1.log", got, 32);
		assert_int_equal(n, 16);
		for (i = 0; i < n; i++)
			assert_int_equal(got[i], b12[i] * 1024);
		/* a step back of a block or less would reread in place */
		assert_int_equal(RUN("--rw=read:-4k", "--bs=4k", "--eta=never"),
				 2);
		/* nor a step back past the start of a file (64k over two
		 * files is 32k each) */
		assert_int_equal(RUN("--rw=read:-64k", "--size=64k",
				     "--nrfiles=2", "--eta=never"),
				 2);
	}

	/* verified: the blocks between the holes are checked (mem-bench
	 * keeps the data) */
	assert_int_equal(RUN("--rw=write:12k", "--bs=4k", "--size=1m",
			     "--iodepth=4", "--verify", "--eta=never"),
			 0);
	/* one block size only */
	assert_int_equal(RUN("--rw=read:4k", "--bsrange=4k-8k", "--eta=never"),
			 2);
}

/*
 * fio's rw (sequential, mixed) keeps a position per direction: real fio
 * 3.33 over a new 64k file (--write_iolog) read 0 4096 8192, wrote 0,
 * read 12288 16384, wrote 4096 8192 12288...: 16 I/Os, each direction's
 * offsets 0, bs, 2 bs... in its own order.
 */
static void test_mixed_sequential_walks_per_direction(void **st)
{
	char prefix[128], path[256], *line = NULL;
	uint64_t next[2] = {0, 0}, off;
	unsigned int n = 0, d;
	size_t cap = 0;
	FILE *f;

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/m", dir);
	assert_int_equal(RUN("--rw=rw", "--bs=4k", "--size=64k", "--eta=never",
			     "--write_lat_log", prefix, "--log_offset=1"),
			 0);
	snprintf(path, sizeof(path), "%s/m_lat.1.log", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		assert_int_equal(
			sscanf(line, "%*u, %*u, %u, %*u, %" SCNu64, &d, &off),
			2);
		assert_true(d < 2);
		assert_int_equal(off, next[d]);
		next[d] += 4096;
		n++;
	}
	free(line);
	fclose(f);
	assert_int_equal(n, 16);
	assert_true(next[0] && next[1]); /* both directions moved */
}

/*
 * fio's rate_process=poisson: the I/Os of a paced job arrive as a
 * Poisson process (exponential gaps of mean 1/rate_iops).  Counted per
 * 10 ms window of the latency log, 500 IOPS give about 5 I/Os a window;
 * Poisson counts vary about as much as their mean (linear pacing: well
 * under 1).  Load only adds variance, so the bound is one-sided.
 */
static void test_poisson_rate_process(void **st)
{
	char prefix[128], path[256], *line = NULL;
	unsigned long cnt[400] = {0}, total = 0, w, last = 0, k;
	double mean, var = 0;
	size_t cap = 0;
	FILE *f;

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/p", dir);
	assert_int_equal(RUN("--rw=randread", "--size=4m", "--iodepth=8",
			     "--rate_iops=500", "--rate_process=poisson",
			     "--time_based", "--runtime=2", "--eta=never",
			     "--write_lat_log", prefix),
			 0);
	snprintf(path, sizeof(path), "%s/p_lat.1.log", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		w = strtoul(line, NULL, 10) / 10;
		if (w < 400) {
			cnt[w]++;
			last = w > last ? w : last;
		}
		total++;
	}
	free(line);
	fclose(f);
	assert_true(total > 500 && total < 1300);
	assert_true(last > 20);
	/* skip the first windows (start-up) and the last (cut short) */
	mean = 0;
	for (k = 5; k < last; k++)
		mean += (double)cnt[k];
	mean /= (double)(last - 5);
	for (k = 5; k < last; k++)
		var += ((double)cnt[k] - mean) * ((double)cnt[k] - mean);
	var /= (double)(last - 5);
	assert_true(var > 0.5 * mean);
	assert_int_equal(RUN("--rate_process=bursty", "--eta=never"), 2);
}

/*
 * fio's offset_increment: job k's region starts k increments further.
 * fio 3.33, bs 16k, size 64k, 2 jobs, increment 64k: a shared file from
 * --offset 16k: job 0 at 16k..64k, job 1 at 80k..128k; files per job:
 * job 0 at 0..48k, job 1 at 64k..112k of its own file.
 */
static void test_offset_increment_per_job(void **st)
{
	static const uint64_t sh[2][4] = {{16, 32, 48, 64}, {80, 96, 112, 128}};
	static const uint64_t pj[2][4] = {{0, 16, 32, 48}, {64, 80, 96, 112}};
	char prefix[128], name[64];
	uint64_t got[8];
	unsigned int k, i;

	(void)st;
	snprintf(prefix, sizeof(prefix), "%s/s", dir);
	assert_int_equal(
		RUN("--filename=sh", "--rw=read", "--bs=16k", "--size=64k",
		    "--numjobs=2", "--offset_increment=64k", "--offset=16k",
		    "--eta=never", "--write_lat_log", prefix, "--log_offset=1"),
		0);
	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "s_lat.%u.log", k + 1);
		assert_int_equal(offsets(name, got, 8), 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(got[i], sh[k][i] * 1024);
	}
	snprintf(prefix, sizeof(prefix), "%s/q", dir);
	assert_int_equal(RUN("--rw=read", "--bs=16k", "--size=64k",
			     "--numjobs=2", "--offset_increment=64k",
			     "--eta=never", "--write_lat_log", prefix,
			     "--log_offset=1"),
			 0);
	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "q_lat.%u.log", k + 1);
		assert_int_equal(offsets(name, got, 8), 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(got[i], pj[k][i] * 1024);
	}
	assert_int_equal(RUN("--filename=sh", "--numjobs=2", "--verify",
			     "--offset_increment=64k", "--eta=never"),
			 2);
}

static int setup(void **st)
{
	(void)st;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	char cmd[300];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_io_logs_have_a_line_per_io),
		cmocka_unit_test(test_windows_and_shared_files),
		cmocka_unit_test(test_hist_log_bins_add_up),
		cmocka_unit_test(test_sequential_holes_at_fios_offsets),
		cmocka_unit_test(test_mixed_sequential_walks_per_direction),
		cmocka_unit_test(test_poisson_rate_process),
		cmocka_unit_test(test_offset_increment_per_job),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
