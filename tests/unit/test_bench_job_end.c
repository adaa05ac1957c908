// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's job_end() and job_sync() hooks (nfs3-bench sends its
 * COMMITs from them): the in-memory back-end with the hooks added, driven
 * through the engine's API.  job_end must run once per job, in index
 * order, after the last I/O of every phase; its failure must fail the
 * run; it must not run after an I/O error.  job_sync must run after a
 * phase that wrote and before the verify pass reads, and what it writes
 * again from bench_job_known_blocks() must be exactly what was written.
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
#include "backends/mem/mem_backend.h"

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

/*
 * job_sync(): record when it runs; optionally drop the file's data (a
 * server restart) and optionally write the known blocks again.
 */
static struct {
	unsigned int calls;
	uint64_t ops_seen;
	bool drop, resend;
	unsigned int blocks;
	uint64_t next_off; /* blocks come in file order */
	bool out_of_order, zero_tag;
} sync_log;

static int resend_block(void *arg, uint64_t off, uint32_t len, uint32_t tag)
{
	struct bench_job_info *job = arg;
	uint8_t buf[4096];

	if (off < sync_log.next_off)
		sync_log.out_of_order = true;
	sync_log.next_off = off + len;
	sync_log.zero_tag |= !tag;
	sync_log.blocks++;
	if (!sync_log.resend)
		return 0;
	assert_true(len <= sizeof(buf));
	bench_pattern_fill(buf, off, len, tag);
	return bench_mem_job_pwrite(job, buf, len, off);
}

static int sync_hook(void *priv, struct bench_job_info *job)
{
	sync_log.calls++;
	sync_log.ops_seen = bench_mem_owner_ops(priv, job->owner);
	if (sync_log.drop)
		bench_mem_job_drop(job);
	return bench_job_known_blocks(job, resend_block, job);
}

/* static: the run keeps a pointer to its ops until bench_destroy() */
static struct bench_backend_ops end_ops;

static const struct bench_backend_ops *ops_with_end(void)
{
	end_ops = bench_mem_backend;
	end_ops.job_end = end_hook;
	return &end_ops;
}

static const struct bench_backend_ops *ops_with_sync(void)
{
	end_ops = bench_mem_backend;
	end_ops.job_end = end_hook;
	end_ops.job_sync = sync_hook;
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
	memset(&sync_log, 0, sizeof(sync_log));
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

/* 8 writes of 4 KiB, 2 in flight, then the verify pass reads them back;
 * the run's own result */
static int run_write_verify(const struct bench_backend_ops *o)
{
	int ret = -1;

	assert_int_equal(run_args(o, &ret, "--rw", "write", "--bs", "4k",
				  "--size", "32k", "--iodepth", "2", "--verify",
				  "--eta", "never", NULL),
			 0);
	return ret;
}

static void test_job_end_after_last_io_of_every_phase(void **state)
{
	const struct bench_backend_ops *o = ops_with_end();

	(void)state;
	/* write, then the verify pass reads back: job_end comes after it,
	 * and the report can already count every I/O */
	assert_int_equal(run_write_verify(o), 0);
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

static void test_job_sync_between_writes_and_verify_pass(void **state)
{
	const struct bench_backend_ops *o = ops_with_sync();

	(void)state;
	assert_int_equal(run_write_verify(o), 0);
	/* once, after the 8 writes and before the 8 verify reads */
	assert_int_equal(sync_log.calls, 1);
	assert_int_equal(sync_log.ops_seen, 8);
	/* every written block is known, in file order, with its tag */
	assert_int_equal(sync_log.blocks, 8);
	assert_false(sync_log.out_of_order);
	assert_false(sync_log.zero_tag);
	assert_int_equal(end_log.calls, 1);
	assert_int_equal(end_log.ops_seen, 16);
}

static void test_job_sync_resend_of_known_blocks_passes_verify(void **state)
{
	const struct bench_backend_ops *o = ops_with_sync();
	int ret = -1;

	(void)state;
	/* the "server" drops everything; the hook writes the known blocks
	 * again from their tags: the verify pass finds every byte */
	sync_log.drop = true;
	sync_log.resend = true;
	assert_int_equal(run_args(o, &ret, "--rw", "randwrite", "--bs", "4k",
				  "--size", "64k", "--iodepth", "4",
				  "--numjobs", "2", "--verify", "--eta",
				  "never", NULL),
			 0);
	assert_int_equal(ret, 0);
	assert_int_equal(sync_log.calls, 2);
	assert_int_equal(sync_log.blocks, 2 * 16);
}

static void test_job_sync_dropped_data_fails_verify(void **state)
{
	const struct bench_backend_ops *o = ops_with_sync();
	int ret = 0;

	(void)state;
	/* the same loss without the resend: the verify pass must see it,
	 * so the test above proves the resend, not a blind verify */
	sync_log.drop = true;
	assert_int_equal(run_args(o, &ret, "--rw", "randwrite", "--bs", "4k",
				  "--size", "64k", "--iodepth", "4", "--verify",
				  "--eta", "never", NULL),
			 0);
	assert_int_not_equal(ret, 0);
	assert_int_equal(sync_log.calls, 1);
}

static void test_job_known_blocks_without_verify(void **state)
{
	const struct bench_backend_ops *o = ops_with_sync();
	int ret = 0;

	(void)state;
	/* contents unknown: the walk says so, and that fails the hook */
	assert_int_equal(run_args(o, &ret, "--rw", "write", "--bs", "4k",
				  "--size", "16k", "--eta", "never", NULL),
			 0);
	assert_int_equal(ret, -ENODATA);
	assert_int_equal(sync_log.calls, 1);
	assert_int_equal(sync_log.blocks, 0);
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
		cmocka_unit_test_setup_teardown(
			test_job_sync_between_writes_and_verify_pass, reset,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_job_sync_resend_of_known_blocks_passes_verify,
			reset, teardown),
		cmocka_unit_test_setup_teardown(
			test_job_sync_dropped_data_fails_verify, reset,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_job_known_blocks_without_verify, reset, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
