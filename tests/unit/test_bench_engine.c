// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * End-to-end tests of the bench engine with the in-memory back-end: whole
 * runs through bench_main(), checked through their JSON report (parsed
 * back here, and by python3 -m json.tool when present) and the back-end's
 * counters.  Latency distributions use --mem-virtual, which stamps exact
 * latencies, so percentile assertions do not depend on the scheduler.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "backends/mem/mem_backend.h"

/* ------------------------------------------------------------ tiny JSON */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	double num;
	char *str;
	size_t n;
	char **keys;
	struct jv **items;
};

static void jfree(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		jfree(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->str);
	free(v);
}

static void jws(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
		(*p)++;
}

static char *jstring(const char **p)
{
	const char *s = ++(*p);
	char *out, *o;

	while (**p && **p != '"') {
		if (**p == '\\')
			(*p)++;
		(*p)++;
	}
	if (**p != '"')
		return NULL;
	out = o = malloc((size_t)(*p - s) + 1);
	for (; s < *p; s++) {
		if (*s == '\\') {
			s++;
			if (*s == 'u') { /* only \u00XX is ever produced */
				*o++ = (char)strtol((char[]){s[3], s[4], 0},
						    NULL, 16);
				s += 4;
				continue;
			}
		}
		*o++ = *s;
	}
	*o = '\0';
	(*p)++;
	return out;
}

static struct jv *jparse(const char **p);

static bool jadd(struct jv *v, char *key, struct jv *item)
{
	if (!item)
		return false;
	v->items = realloc(v->items, (v->n + 1) * sizeof(*v->items));
	if (v->t == J_OBJ)
		v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
	v->items[v->n] = item;
	if (v->t == J_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return true;
}

static struct jv *jparse(const char **p)
{
	struct jv *v = calloc(1, sizeof(*v));
	char *end;

	jws(p);
	if (**p == '{' || **p == '[') {
		char close = **p == '{' ? '}' : ']';

		v->t = **p == '{' ? J_OBJ : J_ARR;
		(*p)++;
		jws(p);
		if (**p == close) {
			(*p)++;
			return v;
		}
		for (;;) {
			char *key = NULL;

			jws(p);
			if (v->t == J_OBJ) {
				if (**p != '"' || !(key = jstring(p)))
					goto bad;
				jws(p);
				if (*(*p)++ != ':') {
					free(key);
					goto bad;
				}
			}
			if (!jadd(v, key, jparse(p))) {
				free(key);
				goto bad;
			}
			jws(p);
			if (**p == ',') {
				(*p)++;
				continue;
			}
			if (**p == close) {
				(*p)++;
				return v;
			}
			goto bad;
		}
	}
	if (**p == '"') {
		v->t = J_STR;
		v->str = jstring(p);
		if (!v->str)
			goto bad;
		return v;
	}
	if (!strncmp(*p, "true", 4) || !strncmp(*p, "false", 5)) {
		v->t = J_BOOL;
		v->num = **p == 't';
		*p += **p == 't' ? 4 : 5;
		return v;
	}
	if (!strncmp(*p, "null", 4)) {
		*p += 4;
		return v;
	}
	v->t = J_NUM;
	v->num = strtod(*p, &end);
	if (end == *p)
		goto bad;
	*p = end;
	return v;
bad:
	jfree(v);
	return NULL;
}

/* Look a value up by a '/'-separated path ("jobs/0/read/iops"). */
static struct jv *jget(struct jv *v, const char *path)
{
	char buf[256], *tok, *save = NULL;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok && v;
	     tok = strtok_r(NULL, "/", &save)) {
		struct jv *next = NULL;

		if (v->t == J_ARR) {
			i = strtoul(tok, NULL, 10);
			next = i < v->n ? v->items[i] : NULL;
		} else if (v->t == J_OBJ) {
			for (i = 0; i < v->n; i++)
				if (!strcmp(v->keys[i], tok))
					next = v->items[i];
		}
		v = next;
	}
	return v;
}

static struct jv *J;

static double jnum(const char *path)
{
	struct jv *v = jget(J, path);

	if (!v || (v->t != J_NUM && v->t != J_BOOL))
		fail_msg("JSON has no number at %s", path);
	return v->num;
}

static const char *jstr(const char *path)
{
	struct jv *v = jget(J, path);

	if (!v || v->t != J_STR)
		fail_msg("JSON has no string at %s", path);
	return v->str;
}

/* ------------------------------------------------------------ running */

#define MAX_ARGS 48

static char json_path[] = "/tmp/bench-engine-json-XXXXXX";
static char text[1 << 16], err_text[1 << 16];
static double wall_s;

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/*
 * bench_main() on "mem-bench ARGS... --output FILE --eta never" (plus
 * --output-format json unless @normal), with stderr captured; the JSON is
 * parsed into J.
 */
static int run_fmt(bool normal, const char *const *args)
{
	char *argv[MAX_ARGS], ef[] = "/tmp/bench-engine-err-XXXXXX";
	struct timespec t0, t1;
	int argc = 0, efd, save_err, rc;
	bool eta = false;
	const char *p;

	jfree(J);
	J = NULL;
	argv[argc++] = (char *)"mem-bench";
	for (; *args && argc < MAX_ARGS - 8; args++) {
		eta |= !strncmp(*args, "--eta", 5);
		argv[argc++] = (char *)*args;
	}
	if (!normal) {
		argv[argc++] = (char *)"--output-format";
		argv[argc++] = (char *)"json";
	}
	argv[argc++] = (char *)"--output";
	argv[argc++] = json_path;
	if (!eta) {
		argv[argc++] = (char *)"--eta";
		argv[argc++] = (char *)"never";
	}
	argv[argc] = NULL;
	unlink(json_path);
	efd = mkstemp(ef);
	assert_true(efd >= 0);
	fflush(stderr);
	save_err = dup(STDERR_FILENO);
	dup2(efd, STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = bench_main(&bench_mem_backend, argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fflush(stderr);
	dup2(save_err, STDERR_FILENO);
	close(save_err);
	close(efd);
	slurp(ef, err_text, sizeof(err_text));
	unlink(ef);
	wall_s = (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	slurp(json_path, text, sizeof(text));
	if (!normal && text[0]) {
		p = text;
		J = jparse(&p);
		if (!J)
			fail_msg("report is not JSON: %.400s", text);
	}
	return rc;
}

#define RUN(...)      run_fmt(false, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_TEXT(...) run_fmt(true, (const char *const[]){__VA_ARGS__, NULL})

static void expect_ok(int rc)
{
	if (rc)
		fail_msg("exit %d; stderr: %s", rc, err_text);
}

/* a line of the report and the next one, as fio prints them */
static void expect_text(const char *want)
{
	if (!strstr(text, want))
		fail_msg("the report lacks \"%s\":\n%s", want, text);
}

static int teardown(void **st)
{
	(void)st;
	jfree(J);
	J = NULL;
	unlink(json_path);
	return 0;
}

static int group_setup(void **st)
{
	int fd = mkstemp(json_path);

	(void)st;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* ------------------------------------------------------------ tests */

static const char *const pct_keys[] = {
	"1.000000",  "5.000000",  "10.000000", "20.000000", "30.000000",
	"40.000000", "50.000000", "60.000000", "70.000000", "80.000000",
	"90.000000", "95.000000", "99.000000", "99.500000", "99.900000",
	"99.950000", "99.990000"};
#define NPCT (sizeof(pct_keys) / sizeof(pct_keys[0]))

static void test_percentiles_of_uniform_latency_within_error(void **st)
{
	char path[128];
	unsigned int i;

	(void)st;
	expect_ok(RUN("--rw", "randread", "--bs", "4k", "--size", "1m",
		      "--iodepth", "8", "--numjobs", "2", "--time_based",
		      "--number_ios", "25000", "--mem-virtual", "--mem-lat",
		      "100us:200us"));
	assert_int_equal(jnum("xprt/aggregate/read/lat_ns/N"), 50000);
	assert_true(jnum("xprt/aggregate/read/lat_ns/min") >= 100000);
	assert_true(jnum("xprt/aggregate/read/lat_ns/max") <= 200000);
	assert_true(fabs(jnum("xprt/aggregate/read/lat_ns/mean") - 150000) <
		    1500);
	/* uniform on [100, 200] us: sd = 100 / sqrt(12) us */
	assert_true(fabs(jnum("xprt/aggregate/read/lat_ns/stddev") - 28867.5) <
		    28867.5 * 0.02);
	for (i = 0; i < NPCT; i++) {
		double p = strtod(pct_keys[i], NULL);
		double want = 100000 + p * 1000, got;

		snprintf(path, sizeof(path),
			 "xprt/aggregate/read/clat_ns/percentile/%s",
			 pct_keys[i]);
		got = jnum(path);
		/* bucket error <= 0.39%, sampling error of 50k samples
		 * well below 0.5% */
		if (fabs(got - want) > want * 0.01)
			fail_msg("p%s = %.0f ns, want %.0f +- 1%%", pct_keys[i],
				 got, want);
	}
}

static void test_fixed_latency_is_reported_exactly(void **st)
{
	char path[128];
	unsigned int i;

	(void)st;
	expect_ok(RUN("--rw", "randwrite", "--size", "1m", "--iodepth", "4",
		      "--mem-virtual", "--mem-lat", "37us"));
	assert_int_equal(jnum("xprt/aggregate/write/lat_ns/N"), 256);
	assert_int_equal(jnum("xprt/aggregate/write/lat_ns/min"), 37000);
	assert_int_equal(jnum("xprt/aggregate/write/lat_ns/max"), 37000);
	assert_true(jnum("xprt/aggregate/write/lat_ns/stddev") == 0);
	for (i = 0; i < NPCT; i++) {
		snprintf(path, sizeof(path),
			 "xprt/aggregate/write/clat_ns/percentile/%s",
			 pct_keys[i]);
		assert_int_equal(jnum(path), 37000);
	}
}

static void check_dir_shape(const char *base)
{
	static const char *const keys[] = {"io_bytes", "io_kbytes", "bw_bytes",
					   "bw",       "iops",	    "runtime",
					   "total_ios"};
	static const char *const lat[] = {"min", "max", "mean", "stddev", "N"};
	static const char *const dirs[] = {"read", "write", "xprt/other"};
	char path[160];
	unsigned int d, i;

	for (d = 0; d < 3; d++) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s/%s", base, dirs[d],
				 keys[i]);
			jnum(path);
		}
		for (i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s/lat_ns/%s", base,
				 dirs[d], lat[i]);
			jnum(path);
		}
		/* as fio: no percentiles for a direction without I/O */
		snprintf(path, sizeof(path), "%s/%s/total_ios", base, dirs[d]);
		for (i = 0; d < 2 && jnum(path) > 0 && i < NPCT; i++) {
			snprintf(path, sizeof(path),
				 "%s/%s/clat_ns/percentile/%s", base, dirs[d],
				 pct_keys[i]);
			jnum(path);
		}
	}
	snprintf(path, sizeof(path), "%s/usr_cpu", base);
	jnum(path);
	snprintf(path, sizeof(path), "%s/sys_cpu", base);
	jnum(path);
	snprintf(path, sizeof(path), "%s/xprt/cpu_us_per_op", base);
	jnum(path);
	snprintf(path, sizeof(path), "%s/jobname", base);
	jstr(path);
}

static void test_json_has_fio_shape_per_job_and_aggregate(void **st)
{
	int rc;

	(void)st;
	expect_ok(RUN("--rw", "randrw", "--rwmixread", "70", "--size", "1m",
		      "--iodepth", "4", "--numjobs", "3", "--time_based",
		      "--number_ios", "2000"));
	assert_int_equal(jget(J, "jobs")->n, 3);
	check_dir_shape("jobs/0");
	check_dir_shape("jobs/2");
	check_dir_shape("xprt/aggregate");
	/* fio's jobname: the section's, for each clone; ours is xprt.job */
	assert_string_equal(jstr("jobs/1/jobname"), "job");
	assert_string_equal(jstr("jobs/1/xprt/job"), "job1");
	assert_string_equal(jstr("xprt/options/rw"), "randrw");
	assert_int_equal(jnum("xprt/options/iodepth"), 4);
	assert_string_equal(jstr("xprt/backend_stats/name"), "mem");
	assert_true(jnum("xprt/status/ok") == 1);
	/* merged, not averaged: counts add up */
	assert_int_equal(jnum("xprt/aggregate/read/total_ios") +
				 jnum("xprt/aggregate/write/total_ios"),
			 6000);
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"),
			 jnum("jobs/0/read/total_ios") +
				 jnum("jobs/1/read/total_ios") +
				 jnum("jobs/2/read/total_ios"));
	/* rwmixread 70 */
	assert_true(fabs(jnum("xprt/aggregate/read/total_ios") / 6000 - 0.7) <
		    0.05);

	/* python agrees it is JSON (skipped when python3 is missing) */
	rc = system("python3 -c 'import sys' >/dev/null 2>&1");
	if (rc == 0) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd),
			 "python3 -m json.tool %s >/dev/null 2>&1", json_path);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_group_reporting_keeps_the_job_shape(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "read", "--size", "1m", "--numjobs", "2",
		      "--group_reporting"));
	assert_int_equal(jget(J, "jobs")->n, 1);
	check_dir_shape("jobs/0");
	assert_string_equal(jstr("jobs/0/jobname"), "job");
	assert_string_equal(jstr("xprt/aggregate/jobname"), "all");
	assert_int_equal(jnum("jobs/0/read/total_ios"), 512);
	assert_int_equal(jnum("jobs/0/read/io_bytes"), 2 << 20);
}

/*
 * A job name that is not UTF-8 still makes JSON: the stray byte is
 * U+FFFD, a well-formed sequence is kept, and Python's json reads it.
 */
static void test_json_strings_are_utf8_whatever_the_name(void **st)
{
	char cmd[256];

	(void)st;
	expect_ok(RUN("--name", "caf\xe9-\xc3\xa9\xed\xa0\x80", "--rw", "read",
		      "--size", "64k"));
	assert_non_null(
		strstr(text, "\"caf\\ufffd-\xc3\xa9\\ufffd\\ufffd\\ufffd"));
	assert_null(strstr(text, "caf\xe9"));
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; "
		 "n=json.load(open(sys.argv[1],encoding=\"utf-8\"))"
		 "[\"jobs\"][0][\"job options\"][\"name\"]; "
		 "sys.exit(n != \"caf\\ufffd-\\xe9\\ufffd\\ufffd\\ufffd\")' %s",
		 json_path);
	assert_int_equal(system(cmd), 0);
}

static void test_size_done_once_reads_every_block_after_layout(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--bs", "4k",
		      "--iodepth", "4"));
	/* 256 blocks, each once; the layout's write is not reported */
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"), 256);
	assert_int_equal(jnum("xprt/aggregate/write/total_ios"), 0);
	assert_int_equal(jnum("xprt/backend_stats/submitted"), 256 + 1);
	assert_int_equal(jnum("xprt/backend_stats/completed"), 256 + 1);
}

static void test_verify_catches_a_corrupted_byte_at_its_offset(void **st)
{
	(void)st;
	assert_int_equal(RUN("--rw", "randread", "--size", "1m", "--bs", "4k",
			     "--iodepth", "4", "--verify", "--mem-corrupt",
			     "0:12345"),
			 1);
	assert_true(jnum("xprt/aggregate/xprt/verify_errors") >= 1);
	assert_int_equal(jnum("jobs/0/xprt/first_error/bad_offset"), 12345);
	assert_int_equal(jnum("jobs/0/xprt/first_error/offset"), 12288);
	assert_int_equal(jnum("jobs/0/xprt/first_error/errno"), EILSEQ);
	assert_true(jnum("xprt/status/ok") == 0);
	assert_non_null(strstr(err_text, "mismatch at offset 12345"));

	/* another job's file, an odd offset in a later block */
	assert_int_equal(RUN("--rw", "read", "--size", "1m", "--bs", "4k",
			     "--iodepth", "2", "--numjobs", "2", "--verify",
			     "--mem-corrupt", "1:777777"),
			 1);
	assert_int_equal(jnum("jobs/1/xprt/first_error/bad_offset"), 777777);
	assert_int_equal(jnum("jobs/0/xprt/verify_errors"), 0);
}

static void test_verify_after_writes_checks_what_was_written(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randwrite", "--size", "1m", "--iodepth", "8",
		      "--verify"));
	assert_int_equal(jnum("xprt/aggregate/write/total_ios"), 256);
	assert_int_equal(jnum("xprt/backend_stats/submitted"), 256 + 256);
	/* the verify pass finds a byte flipped on the way back */
	assert_int_equal(RUN("--rw", "randwrite", "--size", "1m", "--iodepth",
			     "8", "--verify", "--mem-corrupt", "0:4096"),
			 1);
	assert_int_equal(jnum("jobs/0/xprt/first_error/bad_offset"), 4096);
}

static void test_verify_randrw_many_passes_and_shared_file_pass(void **st)
{
	(void)st;
	/* 64 blocks, 20000 ops: every block rewritten ~200 times while
	 * being read back; generations must stay in step */
	expect_ok(RUN("--rw", "randrw", "--size", "256k", "--bs", "4k",
		      "--iodepth", "8", "--numjobs", "2", "--time_based",
		      "--number_ios", "20000", "--verify", "--mem-threads",
		      "3"));
	assert_true(jnum("xprt/aggregate/read/total_ios") > 10000);
	assert_int_equal(jnum("xprt/aggregate/xprt/verify_errors"), 0);
	/* four jobs on one file with real latency */
	expect_ok(RUN("--rw", "randrw", "--filename", "shared", "--numjobs",
		      "4", "--size", "512k", "--bs", "4k", "--iodepth", "4",
		      "--time_based", "--runtime", "300ms", "--verify",
		      "--mem-lat", "0:20us"));
	assert_true(jnum("xprt/aggregate/write/total_ios") > 0);
	assert_int_equal(jnum("xprt/aggregate/xprt/verify_errors"), 0);
	assert_string_equal(jstr("jobs/3/xprt/filename"), "shared");
}

static void test_ramp_time_is_excluded_from_stats(void **st)
{
	(void)st;
	/* The first 8 I/Os of each job take 60 ms, the rest 50 us, as
	 * virtual latencies stamped on completion: a loaded machine's
	 * scheduling delays cannot be mistaken for the slow I/Os.  They are
	 * the job's first two rounds, stamped 60 ms after their submission,
	 * so they complete inside the ramp as long as the job thread starts
	 * and submits them within 940 ms of the phase's start (the clock
	 * starts before the job threads are created: with a 200 ms ramp, a
	 * thread scheduled 50 ms late on a loaded machine got its slow
	 * I/Os counted). */
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "4",
		      "--mem-slow", "8:60ms", "--mem-lat", "50us",
		      "--mem-virtual", "--time_based", "--runtime", "300ms"));
	assert_true(jnum("xprt/aggregate/read/lat_ns/max") >= 60e6);
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "4",
		      "--mem-slow", "8:60ms", "--mem-lat", "50us",
		      "--mem-virtual", "--ramp_time", "1s", "--time_based",
		      "--runtime", "300ms"));
	assert_true(jnum("xprt/aggregate/read/lat_ns/max") < 30e6);
	assert_true(jnum("xprt/aggregate/read/total_ios") > 0);
	/* the runtime itself is test_runtime_is_respected's business; here
	 * only that the measured window is the runtime, not the ramp too
	 * (1,300 ms).  It ends at the job's last completion: a machine
	 * that stalls the job's threads for the last 100 ms of the window
	 * (seen at a load average of 24 under ASan) ends it early, so the
	 * lower bound is loose */
	assert_true(jnum("xprt/aggregate/read/runtime") >= 50 &&
		    jnum("xprt/aggregate/read/runtime") <= 400);
}

static void test_runtime_is_respected(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "4",
		      "--mem-lat", "100us", "--time_based", "--runtime",
		      "500ms"));
	/* a loaded machine may wake the job thread late */
	assert_true(jnum("xprt/aggregate/read/runtime") >= 500 - 50 &&
		    jnum("xprt/aggregate/read/runtime") <= 500 + 50);
	assert_true(jnum("xprt/aggregate/read/total_ios") > 256); /* looped */
	if (wall_s < 0.5 || wall_s > 2.0)
		fail_msg("a 500 ms run took %.3f s", wall_s);
}

/*
 * The mem back-end wakes a sleeping completion thread at most once per
 * nap: the first submitter to see it asleep takes the flag down, the
 * others (job threads priming, completions resubmitting) make no futex
 * call while it is not yet running.  Where a woken thread is slow to run
 * (a loaded machine, sanitizers, valgrind's one thread at a time) the
 * flag used to stay up and every submit woke it again; on an idle
 * machine a woken thread runs before the next submit, so this checks
 * the bound, which the exchange guarantees whatever the scheduling.
 */
static void test_mem_one_wake_per_nap(void **st)
{
	uint64_t naps, wakes;

	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "16",
		      "--numjobs", "2", "--mem-lat", "20us", "--number_ios",
		      "3000"));
	naps = (uint64_t)jnum("xprt/backend_stats/naps");
	wakes = (uint64_t)jnum("xprt/backend_stats/wakes");
	assert_true(naps > 0); /* 20 us apart: they do sleep */
	if (wakes > naps)
		fail_msg("%" PRIu64 " wakes for %" PRIu64 " naps", wakes, naps);
}

static void test_iodepth_and_owners_per_job(void **st)
{
	unsigned int i;

	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "7",
		      "--numjobs", "3", "--mem-lat", "5ms", "--time_based",
		      "--runtime", "300ms"));
	/* never more than iodepth per job, and all of them at once */
	assert_int_equal(jnum("xprt/backend_stats/owner_max_inflight_max"), 7);
	assert_int_equal(jnum("xprt/backend_stats/owner_max_inflight_min"), 7);
	assert_int_equal(jnum("xprt/backend_stats/owners"), 3);
	assert_int_equal(jnum("xprt/backend_stats/max_inflight"), 21);
	for (i = 0; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), "jobs/%u/xprt/owner", i);
		assert_int_equal(jnum(path), i + 1); /* distinct, never 0 */
	}
}

static void test_eagain_hands_off_to_the_job_thread(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "8",
		      "--numjobs", "2", "--time_based", "--number_ios", "3000",
		      "--mem-eagain", "3"));
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"), 6000);
	assert_true(jnum("xprt/aggregate/xprt/handoffs") > 0);
	assert_true(jnum("xprt/backend_stats/eagain") > 0);
}

static void test_backend_slot_limit_blocks_but_completes(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "8",
		      "--numjobs", "4", "--time_based", "--number_ios", "2000",
		      "--mem-slots", "4", "--mem-lat", "0:20us"));
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"), 8000);
	assert_true(jnum("xprt/backend_stats/max_inflight") <= 4);
}

static void test_io_error_fails_the_run_with_details(void **st)
{
	(void)st;
	assert_int_equal(RUN("--rw", "randread", "--size", "1m", "--iodepth",
			     "4", "--mem-fail-at", "100"),
			 1);
	assert_true(jnum("xprt/aggregate/xprt/io_errors") >= 1);
	assert_int_equal(jnum("xprt/aggregate/xprt/first_error/errno"), EIO);
	assert_true(jnum("xprt/status/ok") == 0);
	assert_non_null(strstr(err_text, "Input/output error"));
	/* the text report's job line says it as fio's does */
	assert_int_equal(RUN_TEXT("--rw", "randread", "--size", "1m",
				  "--iodepth", "4", "--mem-fail-at", "100"),
			 1);
	expect_text("job: (groupid=0, jobs=1): err= 5 (file:mem, func=I/O, "
		    "error=Input/output error): pid=");
}

static void test_metadata_ops_count_as_other(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "null", "--numjobs", "2", "--iodepth", "4",
		      "--time_based", "--number_ios", "1000"));
	assert_int_equal(jnum("xprt/aggregate/xprt/other/total_ios"), 2000);
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"), 0);
	assert_true(jnum("xprt/aggregate/xprt/other/iops") > 0);
	/* the back-end's counts, derived from its owners' */
	assert_int_equal(jnum("xprt/backend_stats/submitted"), 2000);
	assert_int_equal(jnum("xprt/backend_stats/completed"), 2000);
	assert_int_equal(jnum("xprt/backend_stats/owners"), 2);
	/* three completion threads: no mask picks the thread */
	expect_ok(RUN("--rw", "null", "--iodepth", "4", "--mem-threads", "3",
		      "--time_based", "--number_ios", "500"));
	assert_int_equal(jnum("xprt/aggregate/xprt/other/total_ios"), 500);
	assert_int_equal(jnum("xprt/backend_stats/completed"), 500);
	expect_ok(
		RUN("--rw", "getattr", "--time_based", "--number_ios", "100"));
	assert_int_equal(jnum("xprt/aggregate/xprt/other/total_ios"), 100);
}

static void test_ior_workload_runs_phases_per_repetition(void **st)
{
	(void)st;
	expect_ok(RUN("--workload", "ior", "--rw", "rw", "--size", "1m", "--bs",
		      "64k", "--numjobs", "3", "--repetitions", "2",
		      "--verify"));
	assert_int_equal(jget(J, "xprt/ior/results")->n, 4);
	assert_string_equal(jstr("xprt/ior/results/0/access"), "write");
	assert_string_equal(jstr("xprt/ior/results/1/access"), "read");
	assert_int_equal(jnum("xprt/ior/results/2/iteration"), 1);
	assert_int_equal(jnum("xprt/ior/results/0/bytes"), 3 << 20);
	assert_int_equal(jnum("xprt/ior/results/3/ops"), 3 * 16);
	assert_int_equal(jnum("xprt/aggregate/write/io_bytes"), 6 << 20);
	assert_int_equal(jnum("xprt/aggregate/read/io_bytes"), 6 << 20);
	assert_true(jnum("xprt/ior/summary/read/max_mib") > 0);
	assert_int_equal(jnum("xprt/ior/summary/write/iterations"), 2);
	assert_int_equal(jnum("xprt/aggregate/xprt/verify_errors"), 0);
	/* 32-byte transfers */
	expect_ok(RUN("--workload", "ior", "--rw", "write", "--size", "64k",
		      "--bs", "32", "--numjobs", "2"));
	assert_int_equal(jnum("xprt/aggregate/write/total_ios"), 2 * 2048);
}

/* in fio 3.33's layout: its stat.c's lines, their order and units */
static void test_text_report_reads_like_fio(void **st)
{
	const char *ours, *group;

	(void)st;
	expect_ok(RUN_TEXT("--rw", "randrw", "--size", "1m", "--iodepth", "4",
			   "--numjobs", "2", "--mem-virtual", "--mem-lat",
			   "20us", "--description", "fixed"));
	expect_text("job: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) "
		    "4096B-4096B, (T) 4096B-4096B, ioengine=mem, iodepth=4\n"
		    "...\nfio-3.33\nStarting 2 threads\n\n"
		    "job: (groupid=0, jobs=1): err= 0: pid=");
	expect_text("  Description  : [fixed]\n  read: IOPS=");
	expect_text("B/s)(");
	expect_text("msec); 0 zone resets\n");
	expect_text("    clat (nsec): min=20000, max=20000, avg=20000.00, "
		    "stdev= 0.00\n"
		    "     lat (nsec): min=20000, max=20000, avg=20000.00, "
		    "stdev= 0.00\n"
		    "    clat percentiles (nsec):\n"
		    "     |  1.00th=[20000],  5.00th=[20000], 10.00th=[20000], "
		    "20.00th=[20000],\n");
	expect_text("| 99.99th=[20000]\n");
	/* fio's buckets: 20 us is in 20..49 */
	expect_text("  lat (usec)   : 50=100.00%\n  cpu          : usr=");
	expect_text(", majf=0, minf=");
	expect_text("  IO depths    : 1=0.0%, 2=0.0%, 4=100.0%, 8=0.0%, "
		    "16=0.0%, 32=0.0%, >=64=0.0%\n"
		    "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, "
		    "32=0.0%, 64=0.0%, >=64=0.0%\n"
		    "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, "
		    "32=0.0%, 64=0.0%, >=64=0.0%\n"
		    "     issued rwts: total=");
	expect_text(" short=0,0,0,0 dropped=0,0,0,0\n"
		    "     latency   : target=0, window=0, percentile=100.00%, "
		    "depth=4\n");
	expect_text("\nRun status group 0 (all jobs):\n   READ: bw=");
	expect_text("  WRITE: bw=");
	assert_null(strstr(text, "(groupid=0, jobs=2)"));
	/* the benches' own lines come after fio's, under their heading */
	group = strstr(text, "Run status group 0");
	ours = strstr(text, "\nmem-bench (libxprt fio): back-end=mem");
	assert_non_null(ours);
	assert_true(group < ours);
	expect_text("  job0: cpu/op=");
	expect_text("  all: cpu/op=");
	expect_text("Back-end mem:");

	/* group_reporting: one block for the jobs, named as the section */
	expect_ok(RUN_TEXT("--name", "grp", "--rw", "read", "--size", "1m",
			   "--numjobs", "2", "--group_reporting",
			   "--mem-virtual", "--mem-lat", "3ms", "--iodepth",
			   "8"));
	expect_text("\n\ngrp: (groupid=0, jobs=2): err= 0: pid=");
	assert_null(strstr(text, "(groupid=0, jobs=1)"));
	/* fio's num2str() and its unit rules: a latency without spread
	 * stays in nsec, its percentiles go to usec */
	expect_text("    clat (nsec): min=3000.0k, max=3000.0k, "
		    "avg=3000000.00, stdev= 0.00\n");
	expect_text("    clat percentiles (usec):\n     |  1.00th=[ 3000],");
	expect_text("  lat (msec)   : 4=100.00%\n");
	expect_text("   READ: bw=");
	expect_text(", io=2048KiB (2097kB), run=");

	/* --percentile_list: with as many decimals as the most given */
	expect_ok(RUN_TEXT("--rw", "read", "--size", "256k", "--mem-virtual",
			   "--mem-lat", "20us", "--percentile_list",
			   "50:99.9:99.995"));
	expect_text("    clat percentiles (nsec):\n     | 50.000th=[20000], "
		    "99.900th=[20000], 99.995th=[20000]\n");
	expect_ok(RUN_TEXT("--rw", "read", "--size", "256k", "--mem-virtual",
			   "--mem-lat", "20us", "--percentile_list", "50:99"));
	expect_text("     |  50th=[20000],  99th=[20000]\n");

	/* per-direction sizes: trim's is the last given (fio 3.33) */
	expect_ok(RUN_TEXT("--rw", "randrw", "--size", "256k", "--bs", "4k,64k",
			   "--mem-virtual"));
	expect_text("bs=(R) 4096B-4096B, (W) 64.0KiB-64.0KiB, (T) "
		    "64.0KiB-64.0KiB, ioengine=mem");
}

static void test_progress_line_only_on_request_when_piped(void **st)
{
	(void)st;
	/* stderr is a file here: "auto" prints nothing */
	expect_ok(RUN("--rw", "read", "--size", "1m", "--time_based",
		      "--runtime", "1200ms", "--mem-lat", "200us", "--eta",
		      "auto"));
	assert_null(strstr(err_text, "Jobs:"));
	/* the line is due once a second, from the main thread: 2.5 s leaves
	 * room for a loaded machine to be late for the first one */
	expect_ok(RUN("--rw", "read", "--size", "1m", "--time_based",
		      "--runtime", "2500ms", "--mem-lat", "200us", "--eta",
		      "always"));
	assert_non_null(strstr(err_text, "Jobs: 1 (run)"));
	assert_non_null(strstr(err_text, "IOPS]"));
}

static void test_api_run_exposes_backend_observations(void **st)
{
	char *argv[] = {
		(char *)"mem-bench", (char *)"--rw",	  (char *)"randwrite",
		(char *)"--size",    (char *)"1m",	  (char *)"--iodepth",
		(char *)"3",	     (char *)"--numjobs", (char *)"2",
		(char *)"--mem-lat", (char *)"2ms",	  NULL};
	struct bench *b = bench_create(&bench_mem_backend);
	void *priv;

	(void)st;
	assert_non_null(b);
	assert_int_equal(bench_parse(b, 11, argv), 0);
	assert_int_equal(bench_run(b), 0);
	assert_int_equal(bench_run(b), -EINVAL); /* once only */
	priv = bench_backend_priv(b);
	assert_int_equal(bench_mem_owner_slots(priv), 3);
	assert_int_equal(bench_mem_owner_ops(priv, 0), 0);
	assert_int_equal(bench_mem_owner_ops(priv, 1), 256);
	assert_int_equal(bench_mem_owner_ops(priv, 2), 256);
	assert_int_equal(bench_mem_owner_max_inflight(priv, 1), 3);
	assert_int_equal(bench_mem_owner_max_inflight(priv, 2), 3);
	assert_int_equal(bench_mem_max_inflight(priv), 6);
	bench_destroy(b);
}

/*
 * --iodepth 1 with a back-end's run_sync() (mem-bench --mem-sync): the job
 * thread does every I/O (run_sync_loop()), nothing goes through submit()
 * and the completion threads; the counts, verification, real latency and
 * an injected error come out as through submit().
 */
static void test_run_sync_loop_at_iodepth_1(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randwrite", "--size", "1m", "--bs", "4k",
		      "--iodepth", "1", "--numjobs", "2", "--verify",
		      "--mem-sync"));
	assert_int_equal(jnum("xprt/aggregate/write/total_ios"), 512);
	assert_int_equal(jnum("xprt/aggregate/xprt/verify_errors"), 0);
	/* the writes and the verify pass's reads: all on the job threads */
	assert_int_equal(jnum("xprt/backend_stats/submitted"), 512 + 512);
	assert_int_equal(jnum("xprt/backend_stats/sync_ios"), 512 + 512);
	assert_true(jnum("xprt/backend_stats/max_inflight") <= 2);

	/* the same run without it: submit(), none done synchronously */
	expect_ok(RUN("--rw", "randwrite", "--size", "1m", "--bs", "4k",
		      "--iodepth", "1", "--numjobs", "2", "--verify"));
	assert_int_equal(jnum("xprt/backend_stats/sync_ios"), 0);

	/* real latency, slept on the job thread */
	expect_ok(RUN("--rw", "read", "--size", "64k", "--bs", "4k",
		      "--iodepth", "1", "--mem-lat", "200us", "--mem-sync"));
	assert_int_equal(jnum("xprt/backend_stats/sync_ios"), 16);
	assert_true(jnum("jobs/0/read/clat_ns/min") >= 200000);

	/* an error from run_sync() ends the job as a completion's would */
	assert_int_equal(RUN("--rw", "randread", "--size", "1m", "--iodepth",
			     "1", "--mem-fail-at", "100", "--mem-sync"),
			 1);
	assert_int_equal(jnum("xprt/aggregate/xprt/first_error/errno"), EIO);
	/* the 100th I/O failed; the first was the layout's write, which
	 * the engine submits (256 + 1 in the layout test) */
	assert_int_equal(jnum("xprt/backend_stats/submitted"), 100);
	assert_int_equal(jnum("xprt/backend_stats/sync_ios"), 99);

	/* --mem-virtual with a latency has no stamp to give: submitted */
	expect_ok(RUN("--rw", "read", "--size", "64k", "--bs", "4k",
		      "--iodepth", "1", "--mem-virtual", "--mem-lat", "37us",
		      "--mem-sync"));
	assert_int_equal(jnum("xprt/backend_stats/sync_ios"), 0);
	assert_int_equal(jnum("jobs/0/read/clat_ns/min"), 37000);
}

/*
 * fio's size=P% and offset=P% are percentages of the file's real size
 * (the back-end's stat hook; --mem-file makes a file before the run).
 * The figures are real fio 3.33's on a 1 MiB file (--write_iolog):
 * size=30% offset=33% is 76 reads from 348160, size=80% offset=33%
 * stops at the file's end after 171.  A file that does not exist has no
 * size to take a percentage of: fio says "you need to specify size=".
 */
static void test_size_percent_of_the_file_fio_way(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "50%",
		      "--mem-file", "f:1m", "--filename", "f"));
	assert_int_equal(jnum("jobs/0/read/io_bytes"), 512 << 10);
	assert_int_equal(jnum("xprt/options/size"), 512 << 10);
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "30%", "--offset",
		      "33%", "--mem-file", "f:1m", "--filename", "f"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 76);
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "80%", "--offset",
		      "33%", "--mem-file", "f:1m", "--filename", "f"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 171);
	/* offset=P% of a byte-sized region: P% of the real size, the
	 * region after it (fio: 16 reads from 348160) */
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "64k", "--offset",
		      "33%", "--mem-file", "f:1m", "--filename", "f"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 16);
	/* two jobs' own files, each its own size */
	expect_ok(RUN("--rw", "randread", "--bs", "4k", "--size", "25%",
		      "--numjobs", "2", "--mem-file", "job.0.0:1m",
		      "--mem-file", "job.1.0:2m"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 64);
	assert_int_equal(jnum("jobs/1/read/total_ios"), 128);

	assert_int_equal(
		RUN("--rw", "read", "--size", "50%", "--filename", "nosuch"),
		1);
	assert_non_null(strstr(err_text, "you need to specify size="));
	assert_int_equal(RUN("--rw", "read", "--size", "1%", "--bs", "64k",
			     "--mem-file", "f:1m", "--filename", "f"),
			 1);
	assert_non_null(strstr(err_text, "less than a block"));
	assert_int_equal(RUN("--rw", "read", "--size", "101%"), 2);
	assert_int_equal(RUN("--rw", "read", "--size", "50%", "--verify"), 2);
}

/* fio's io_size: that many bytes over the --size region, wrapping */
static void test_io_size_moves_its_bytes_over_the_region(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "64k",
		      "--io_size", "1m"));
	assert_int_equal(jnum("jobs/0/read/io_bytes"), 1 << 20);
	expect_ok(RUN("--rw", "randwrite", "--bs", "4k", "--size", "1m",
		      "--io_limit", "64k", "--loops", "2"));
	assert_int_equal(jnum("jobs/0/write/total_ios"), 32);
	expect_ok(RUN("--rw", "read", "--bsrange", "4k-16k", "--size", "1m",
		      "--io_size", "256k"));
	assert_true(jnum("jobs/0/read/io_bytes") >= 256 << 10);
	assert_true(jnum("jobs/0/read/io_bytes") < (256 + 16) << 10);
	assert_int_equal(RUN("--rw", "read", "--bs", "4k", "--io_size", "1k"),
			 2);

	/* fio's filesize: each file's size; --size at most what they hold
	 * (fio 3.33: 32, 32, 8 and 4 reads) */
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--filesize", "64k",
		      "--nrfiles", "2"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 32);
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--filesize", "64k",
		      "--nrfiles", "2", "--size", "512k"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 32);
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--filesize", "64k",
		      "--size", "32k"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 8);
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--filesize", "64k",
		      "--nrfiles", "2", "--io_size", "16k"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 4);
}

/*
 * fio's rate_min / rate_iops_min: after a 2 s settle, a job below the
 * minimum over a ratecycle exits with EIO and fio's message (real fio
 * 3.33: "rm: rate_min=1048576B/s not met, got 405504B/s", err=5,
 * func=check_min_rate).  A thinktime of 10 ms holds a job under 100 IOPS
 * (400 KB/s at 4k); a minimum far below its rate is met.
 */
static void test_rate_min_fails_a_slow_job_like_fio(void **st)
{
	(void)st;
	assert_int_equal(RUN("--rw", "read", "--bs", "4k", "--size", "1m",
			     "--time_based", "--runtime", "10", "--thinktime",
			     "10ms", "--rate_min", "1m", "--ratecycle", "200"),
			 1);
	assert_non_null(strstr(err_text, "job0: rate_min=1048576B/s not met, "
					 "got "));
	assert_string_equal(jstr("jobs/0/xprt/first_error/what"),
			    "check_min_rate");
	assert_int_equal(jnum("jobs/0/error"), EIO);
	/* well before --runtime: the 2 s settle, then a cycle */
	assert_true(wall_s < 6);

	assert_int_equal(RUN("--rw", "randwrite", "--bs", "4k", "--size", "1m",
			     "--time_based", "--runtime", "10", "--thinktime",
			     "10ms", "--rate_iops_min", "1000", "--ratecycle",
			     "200"),
			 1);
	assert_non_null(strstr(err_text, "job0: rate_iops_min=1000 not met"));

	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "1m",
		      "--time_based", "--runtime", "2500ms", "--mem-lat",
		      "100us", "--rate_iops_min", "50", "--ratecycle", "200"));
	/* fio refuses a minimum above the cap */
	assert_int_equal(
		RUN("--rw", "read", "--rate", "100k", "--rate_min", "1m"), 2);
}

/* fio's startdelay: the job starts that much later */
static void test_startdelay_waits_before_the_job(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "read", "--bs", "4k", "--size", "64k",
		      "--startdelay", "400ms"));
	assert_true(wall_s >= 0.4);
	assert_int_equal(jnum("jobs/0/read/total_ios"), 16);
}

/*
 * --libxprt-mode caller: the mem back-end starts no completion thread;
 * each job's thread completes its own I/Os in job_service(), which the
 * engine calls instead of sleeping.  Every completion must have run
 * there (serviced == submitted), through verification, the hand-off of
 * a refused NOWAIT resubmission and a real latency; threaded runs
 * complete none there.
 */
static void test_caller_mode_completes_on_the_job_threads(void **st)
{
	(void)st;
	expect_ok(RUN("--rw", "randrw", "--size", "1m", "--iodepth", "8",
		      "--numjobs", "2", "--verify", "--mem-lat", "0:20us",
		      "--time_based", "--number_ios", "3000", "--libxprt-mode",
		      "caller"));
	assert_int_equal(jnum("xprt/backend_stats/threads"), 0);
	assert_true(jnum("xprt/backend_stats/submitted") > 6000);
	assert_int_equal(jnum("xprt/backend_stats/serviced"),
			 jnum("xprt/backend_stats/submitted"));
	assert_int_equal(jnum("xprt/aggregate/xprt/verify_errors"), 0);

	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "8",
		      "--numjobs", "2", "--time_based", "--number_ios", "3000",
		      "--mem-eagain", "3", "--libxprt-mode", "caller"));
	assert_int_equal(jnum("xprt/aggregate/read/total_ios"), 6000);
	assert_true(jnum("xprt/aggregate/xprt/handoffs") > 0);
	assert_int_equal(jnum("xprt/backend_stats/serviced"),
			 jnum("xprt/backend_stats/submitted"));

	expect_ok(RUN("--rw", "read", "--size", "64k", "--bs", "4k",
		      "--iodepth", "4", "--mem-lat", "300us", "--libxprt-mode",
		      "caller"));
	assert_int_equal(jnum("jobs/0/read/total_ios"), 16);
	assert_true(jnum("jobs/0/read/clat_ns/min") >= 300000);

	/* the threaded mode: completion threads, none serviced */
	expect_ok(RUN("--rw", "randread", "--size", "1m", "--iodepth", "8",
		      "--numjobs", "2", "--time_based", "--number_ios",
		      "3000"));
	assert_int_equal(jnum("xprt/backend_stats/threads"), 2);
	assert_int_equal(jnum("xprt/backend_stats/serviced"), 0);

	assert_int_equal(RUN("--libxprt-mode", "caller", "--mem-slots", "4",
			     "--size", "1m"),
			 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			test_percentiles_of_uniform_latency_within_error,
			teardown),
		cmocka_unit_test_teardown(
			test_fixed_latency_is_reported_exactly, teardown),
		cmocka_unit_test_teardown(
			test_json_has_fio_shape_per_job_and_aggregate,
			teardown),
		cmocka_unit_test_teardown(
			test_json_strings_are_utf8_whatever_the_name, teardown),
		cmocka_unit_test_teardown(
			test_group_reporting_keeps_the_job_shape, teardown),
		cmocka_unit_test_teardown(
			test_size_done_once_reads_every_block_after_layout,
			teardown),
		cmocka_unit_test_teardown(
			test_verify_catches_a_corrupted_byte_at_its_offset,
			teardown),
		cmocka_unit_test_teardown(
			test_verify_after_writes_checks_what_was_written,
			teardown),
		cmocka_unit_test_teardown(
			test_verify_randrw_many_passes_and_shared_file_pass,
			teardown),
		cmocka_unit_test_teardown(test_ramp_time_is_excluded_from_stats,
					  teardown),
		cmocka_unit_test_teardown(test_runtime_is_respected, teardown),
		cmocka_unit_test_teardown(test_iodepth_and_owners_per_job,
					  teardown),
		cmocka_unit_test_teardown(test_mem_one_wake_per_nap, teardown),
		cmocka_unit_test_teardown(
			test_eagain_hands_off_to_the_job_thread, teardown),
		cmocka_unit_test_teardown(
			test_backend_slot_limit_blocks_but_completes, teardown),
		cmocka_unit_test_teardown(
			test_io_error_fails_the_run_with_details, teardown),
		cmocka_unit_test_teardown(test_size_percent_of_the_file_fio_way,
					  teardown),
		cmocka_unit_test_teardown(
			test_io_size_moves_its_bytes_over_the_region, teardown),
		cmocka_unit_test_teardown(
			test_rate_min_fails_a_slow_job_like_fio, teardown),
		cmocka_unit_test_teardown(test_startdelay_waits_before_the_job,
					  teardown),
		cmocka_unit_test_teardown(test_run_sync_loop_at_iodepth_1,
					  teardown),
		cmocka_unit_test_teardown(test_metadata_ops_count_as_other,
					  teardown),
		cmocka_unit_test_teardown(
			test_ior_workload_runs_phases_per_repetition, teardown),
		cmocka_unit_test_teardown(test_text_report_reads_like_fio,
					  teardown),
		cmocka_unit_test_teardown(
			test_progress_line_only_on_request_when_piped,
			teardown),
		cmocka_unit_test_teardown(
			test_api_run_exposes_backend_observations, teardown),
		cmocka_unit_test_teardown(
			test_caller_mode_completes_on_the_job_threads,
			teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
