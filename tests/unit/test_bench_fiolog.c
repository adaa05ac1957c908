// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of fio's logs (bench/engine/fiolog.c) on the in-memory
 * back-end: one line per I/O without --log_avg_msec (as many as the
 * report's I/Os), windows with it, fio's file names with and without
 * --per_job_logs, and histogram lines of fio's 1856 bins whose counts
 * add up to the I/Os.
 */
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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
