// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's job_end() hook (nfs3-bench sends its COMMITs from it): the
 * in-memory back-end with a job_end() added, driven through the engine's
 * API.  The hook must run once per job, in index order, after the last
 * I/O of every phase; its failure must fail the run; it must not run
 * after an I/O error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/mem_backend.h"

#define MAX_JOBS 8

static struct {
	unsigned int calls;
	unsigned int order[MAX_JOBS];
	uint64_t ops_seen; /* I/Os the back-end had taken at the last call */
	int fail_with;
	struct bench *b;
} end_log;

static int end_hook(void *priv, struct bench_job_info *job)
{
	(void)priv;
	if (end_log.calls < MAX_JOBS)
		end_log.order[end_log.calls] = job->index;
	end_log.calls++;
	end_log.ops_seen = bench_mem_owner_ops(priv, job->owner);
	return end_log.fail_with;
}

/* static: the run keeps a pointer to its ops until bench_destroy() */
static struct bench_backend_ops end_ops;

static const struct bench_backend_ops *ops_with_end(void)
{
	end_ops = bench_mem_backend;
	end_ops.job_end = end_hook;
	return &end_ops;
}

static int run_args(const struct bench_backend_ops *ops, int *run_ret,
		    const char *first, ...)
{
	char *argv[32];
	int argc = 0, ret;
	const char *a;
	va_list ap;

	argv[argc++] = (char *)"mem-bench";
	va_start(ap, first);
	for (a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	end_log.b = bench_create(ops);
	assert_non_null(end_log.b);
	ret = bench_parse(end_log.b, argc, argv);
	if (ret)
		return ret;
	*run_ret = bench_run(end_log.b);
	return 0;
}

static int report_to_null(void)
{
	FILE *f = fopen("/dev/null", "w");
	int ret;

	assert_non_null(f);
	ret = bench_report(end_log.b, f);
	fclose(f);
	return ret;
}

static int reset(void **state)
{
	(void)state;
	memset(&end_log, 0, sizeof(end_log));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bench_destroy(end_log.b);
	end_log.b = NULL;
	return 0;
}

static void test_job_end_runs_once_per_job_in_order(void **state)
{
	const struct bench_backend_ops *o = ops_with_end();
	int ret = -1;
	unsigned int i;

	(void)state;
	assert_int_equal(run_args(o, &ret, "--rw", "randwrite", "--bs", "4k",
				  "--size", "64k", "--iodepth", "4",
				  "--numjobs", "3", "--verify", "--eta",
				  "never", NULL),
			 0);
	assert_int_equal(ret, 0);
	assert_int_equal(end_log.calls, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(end_log.order[i], i);
}

static void test_job_end_after_last_io_of_every_phase(void **state)
{
	const struct bench_backend_ops *o = ops_with_end();
	int ret = -1;

	(void)state;
	/* write, then the verify pass reads back: job_end comes after it,
	 * and the report can already count every I/O */
	assert_int_equal(run_args(o, &ret, "--rw", "write", "--bs", "4k",
				  "--size", "32k", "--iodepth", "2", "--verify",
				  "--eta", "never", NULL),
			 0);
	assert_int_equal(ret, 0);
	assert_int_equal(end_log.calls, 1);
	assert_int_equal(end_log.ops_seen, 8 + 8); /* writes + verify reads */
	assert_int_equal(report_to_null(), 0);
}

static void test_job_end_failure_fails_the_run(void **state)
{
	const struct bench_backend_ops *o = ops_with_end();
	int ret = 0;

	(void)state;
	end_log.fail_with = -EIO;
	assert_int_equal(run_args(o, &ret, "--rw", "write", "--bs", "4k",
				  "--size", "16k", "--eta", "never", NULL),
			 0);
	assert_int_equal(ret, -EIO);
	/* the first failure stops the others: nothing is left half-done
	 * silently, and the report of the I/O done is still there */
	assert_int_equal(end_log.calls, 1);
	assert_int_equal(report_to_null(), 0);
}

static void test_job_end_skipped_after_io_error(void **state)
{
	const struct bench_backend_ops *o = ops_with_end();
	int ret = 0;

	(void)state;
	assert_int_equal(run_args(o, &ret, "--rw", "write", "--bs", "4k",
				  "--size", "64k", "--mem-fail-at", "3",
				  "--eta", "never", NULL),
			 0);
	assert_int_equal(ret, -EIO);
	assert_int_equal(end_log.calls, 0);
}

static void test_backend_without_job_end_still_runs(void **state)
{
	int ret = -1;

	(void)state;
	assert_int_equal(run_args(&bench_mem_backend, &ret, "--rw", "write",
				  "--bs", "4k", "--size", "16k", "--eta",
				  "never", NULL),
			 0);
	assert_int_equal(ret, 0);
	assert_int_equal(end_log.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_job_end_runs_once_per_job_in_order, reset,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_job_end_after_last_io_of_every_phase, reset,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_job_end_failure_fails_the_run, reset, teardown),
		cmocka_unit_test_setup_teardown(
			test_job_end_skipped_after_io_error, reset, teardown),
		cmocka_unit_test_setup_teardown(
			test_backend_without_job_end_still_runs, reset,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
