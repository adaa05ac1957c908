// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the bench engine's command line (bench/engine/cli.c):
 * size/time/number parsing, exit statuses, impossible combinations,
 * presets, back-end options and --help.
 */
#include <errno.h>
#include <fcntl.h>
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

static char out_text[65536], err_text[65536];

static void slurp(int fd, char *buf, size_t len)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* bench_main() on "mem-bench ARGS...", capturing stdout and stderr. */
static int run_main(const char *const *args)
{
	char *argv[MAX_ARGS];
	char of[] = "/tmp/bench-cli-out-XXXXXX",
	     ef[] = "/tmp/bench-cli-err-XXXXXX";
	int argc = 0, ofd, efd, save_out, save_err, rc;

	argv[argc++] = (char *)"mem-bench";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	ofd = mkstemp(of);
	efd = mkstemp(ef);
	assert_true(ofd >= 0 && efd >= 0);
	fflush(stdout);
	fflush(stderr);
	save_out = dup(STDOUT_FILENO);
	save_err = dup(STDERR_FILENO);
	dup2(ofd, STDOUT_FILENO);
	dup2(efd, STDERR_FILENO);
	rc = bench_main(&bench_mem_backend, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, STDOUT_FILENO);
	dup2(save_err, STDERR_FILENO);
	close(save_out);
	close(save_err);
	slurp(ofd, out_text, sizeof(out_text));
	slurp(efd, err_text, sizeof(err_text));
	close(ofd);
	close(efd);
	unlink(of);
	unlink(ef);
	return rc;
}

#define RUN(...) run_main((const char *const[]){__VA_ARGS__, NULL})

static void expect_usage_error(int rc, const char *msg_part)
{
	if (rc != 2)
		fail_msg("exit %d, want 2; stderr: %s", rc, err_text);
	if (msg_part && !strstr(err_text, msg_part))
		fail_msg("stderr lacks '%s': %s", msg_part, err_text);
}

/* ------------------------------------------------------------ values */

static void test_sizes_parse_with_binary_suffixes(void **st)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{"0", 0},
		{"512", 512},
		{"4k", 4096},
		{"4K", 4096},
		{"4kb", 4096},
		{"4ki", 4096},
		{"1m", 1048576},
		{"64M", 64ull << 20},
		{"1g", 1ull << 30},
		{"2t", 2ull << 40},
		{"1p", 1ull << 50},
		{"32b", 32},
		{"0x1000", 4096},
		{"2mi", 2ull << 20},
		/* fio 3.33's compatibility mode: the full IEC spelling is
		 * the other base (what Debian's fio computes) */
		{"4KiB", 4000},
		{"2mib", 2000000},
		{"1GiB", 1000000000},
	};
	uint64_t v;
	unsigned int i;

	(void)st;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 7;
		assert_int_equal(bench_parse_size(ok[i].s, &v), 0);
		if (v != ok[i].v)
			fail_msg("'%s' = %llu, want %llu", ok[i].s,
				 (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	/* kb_base=1000: the other way round */
	bench_kb_base = 1000;
	assert_int_equal(bench_parse_size("4k", &v), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(bench_parse_size("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(bench_parse_size("1m", &v), 0);
	assert_int_equal(v, 1000000);
	bench_kb_base = 1024;
}

static void test_bad_sizes_are_rejected(void **st)
{
	static const char *const bad[] = {"",	 "-1", "+4",   " 4",
					  "4x",	 "k",  "4kk",  "1.5m",
					  "4 k", "m4", "4kib2"};
	uint64_t v = 99;
	unsigned int i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (bench_parse_size(bad[i], &v) != -EINVAL)
			fail_msg("'%s' accepted as a size", bad[i]);
	}
	assert_int_equal(v, 99); /* untouched on error */
	assert_int_equal(bench_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(bench_parse_size("16777216t", &v), -ERANGE);
	assert_int_equal(bench_parse_size(NULL, &v), -EINVAL);
	assert_int_equal(bench_parse_size("4k", NULL), -EINVAL);
}

static void test_times_parse_with_units(void **st)
{
	uint64_t v;

	(void)st;
	assert_int_equal(bench_parse_time("10", &v), 0);
	assert_int_equal(v, 10000000000ull);
	assert_int_equal(bench_parse_time("500ms", &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(bench_parse_time("20us", &v), 0);
	assert_int_equal(v, 20000ull);
	assert_int_equal(bench_parse_time("7ns", &v), 0);
	assert_int_equal(v, 7ull);
	assert_int_equal(bench_parse_time("2m", &v), 0);
	assert_int_equal(v, 120000000000ull);
	assert_int_equal(bench_parse_time("1h", &v), 0);
	assert_int_equal(v, 3600000000000ull);
	assert_int_equal(bench_parse_time("10x", &v), -EINVAL);
	assert_int_equal(bench_parse_time("-1", &v), -EINVAL);
	assert_int_equal(bench_parse_time("", &v), -EINVAL);
	assert_int_equal(bench_parse_time("99999999999h", &v), -ERANGE);
}

static void test_numbers_parse_strictly(void **st)
{
	uint64_t v;

	(void)st;
	assert_int_equal(bench_parse_u64("16", 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(bench_parse_u64("0x10", 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(bench_parse_u64("101", 100, &v), -ERANGE);
	assert_int_equal(bench_parse_u64("-1", 100, &v), -EINVAL);
	assert_int_equal(bench_parse_u64("1 ", 100, &v), -EINVAL);
	assert_int_equal(bench_parse_u64("", 100, &v), -EINVAL);
}

/* ------------------------------------------------------------ exits */

static void test_help_exits_0_and_lists_common_backend_and_presets(void **st)
{
	(void)st;
	assert_int_equal(RUN("--help"), 0);
	assert_non_null(strstr(out_text, "Usage: mem-bench"));
	assert_non_null(strstr(out_text, "--rw MODE"));
	assert_non_null(strstr(out_text, "--iodepth"));
	assert_non_null(strstr(out_text, "--output-format"));
	assert_non_null(strstr(out_text, "mem options:"));
	assert_non_null(strstr(out_text, "--mem-lat"));
	assert_non_null(strstr(out_text, "nfs-randread"));
	assert_non_null(strstr(out_text, "ior-32b"));
	assert_int_equal(RUN("-h"), 0);
	assert_int_equal(RUN("--version"), 0);
	assert_non_null(strstr(out_text, "mem-bench"));
}

static void test_unknown_flag_exits_2(void **st)
{
	(void)st;
	expect_usage_error(RUN("--bogus"), "unknown option '--bogus'");
	expect_usage_error(RUN("-z"), "unknown option -z");
	expect_usage_error(RUN("--bs"), "needs a value");
	assert_non_null(strstr(err_text, "Try 'mem-bench --help'"));
	/* a word that is no option is a job file */
	expect_usage_error(RUN("--rw", "read", "stray"),
			   "job file stray: No such file");
}

static void test_bad_values_exit_2_naming_the_option(void **st)
{
	(void)st;
	expect_usage_error(RUN("--bs", "4x"), "--bs: '4x' is not a size");
	expect_usage_error(RUN("--bs", "0"), "a size from 1 to 1g");
	expect_usage_error(RUN("--size", "lots"), "--size");
	expect_usage_error(RUN("--rw", "sideways"), "--rw: 'sideways'");
	expect_usage_error(RUN("--iodepth", "0"), "--iodepth");
	expect_usage_error(RUN("--iodepth", "70000"), "out of range");
	expect_usage_error(RUN("--numjobs", "-3"), "--numjobs");
	expect_usage_error(RUN("--runtime", "5y"), "--runtime");
	expect_usage_error(RUN("--rwmixread", "101"), "--rwmixread");
	expect_usage_error(RUN("--output-format", "xml"), "normal, json");
	expect_usage_error(RUN("--transport", "ib"), "tcp, rdma");
	expect_usage_error(RUN("--verify=sha7"), "--verify");
	expect_usage_error(RUN("--nconnect", "17"), "--nconnect");
	/* fio's libnfs engine's option is known, and names what it wants */
	expect_usage_error(RUN("--nfs_url", "nfs://host/export"),
			   "--nfs_url: 'nfs://host/export' is not an "
			   "nfs://SERVER/EXPORT URL of an NFS back-end");
	expect_usage_error(RUN("--mem-lat", "fast"), "--mem-lat");
	expect_usage_error(RUN("--preset", "nope"), "not a preset");
	expect_usage_error(RUN("--output", "/nonexistent-dir/report"),
			   "--output /nonexistent-dir/report: No such file");
}

static void test_impossible_combinations_exit_2(void **st)
{
	(void)st;
	expect_usage_error(RUN("--filename", "f", "--file-per-job"),
			   "exclude each other");
	expect_usage_error(RUN("--rw", "null"), "--runtime or --number_ios");
	expect_usage_error(RUN("--rw", "getattr", "--verify", "--runtime", "1"),
			   "--verify needs a data workload");
	expect_usage_error(RUN("--bs", "1m", "--size", "64k"), "larger than");
	expect_usage_error(RUN("--bs", "4k", "--size", "10000"),
			   "not a multiple");
	expect_usage_error(RUN("--repetitions", "3"), "--workload ior");
	expect_usage_error(RUN("--workload", "ior", "--runtime", "5"),
			   "whole blocks");
	expect_usage_error(RUN("--workload", "ior", "--rw", "randread"),
			   "sequential phases");
	expect_usage_error(RUN("--workload", "ior", "--filename", "x"),
			   "file per job");
	expect_usage_error(RUN("--verify", "--size", "64k", "--iodepth", "16"),
			   "2 x iodepth");
	expect_usage_error(RUN("--numjobs", "4096", "--iodepth", "65536"),
			   "in flight");
	expect_usage_error(RUN("--mem-corrupt", "3:0"), "job 3 does not exist");
}

static void test_bs_above_backend_max_io_exits_2(void **st)
{
	(void)st;
	expect_usage_error(RUN("--mem-max-io", "64k", "--bs", "128k", "--size",
			       "1m", "--eta", "never"),
			   "largest transfer");
}

static void test_status_interval_and_eta_off_a_terminal(void **st)
{
	const char *p;
	unsigned int n = 0;

	(void)st;
	/* the report every second, then the final one: terse lines.  The
	 * 2 s one is due 700 ms before the end: a main thread stalled past
	 * the end skips it (a 200 ms margin failed at a load average of
	 * 15-24) */
	assert_int_equal(RUN("--rw", "randread", "--size", "256k",
			     "--time_based", "--runtime", "2700ms", "--mem-lat",
			     "50us", "--status-interval", "1",
			     "--output-format", "terse", "--eta", "always"),
			 0);
	for (p = out_text; (p = strstr(p, "3;fio-3.33;")); p++)
		n++;
	assert_int_equal(n, 3);
	/* the progress line into a file: lines, no carriage return */
	assert_non_null(strstr(err_text, "Jobs: 1 (run)"));
	assert_null(strchr(err_text, '\r'));
	/* text: each report's blocks and group status, fio's opening lines
	 * (version, "Starting N threads") once, before the first */
	assert_int_equal(RUN("--rw", "randread", "--size", "256k",
			     "--time_based", "--runtime", "1700ms", "--mem-lat",
			     "50us", "--status-interval", "1", "--eta",
			     "never"),
			 0);
	for (n = 0, p = out_text; (p = strstr(p, "\nRun status group 0")); p++)
		n++;
	assert_int_equal(n, 2);
	for (n = 0, p = out_text;
	     (p = strstr(p, "fio-3.33\nStarting 1 thread")); p++)
		n++;
	assert_int_equal(n, 1);
	assert_true(strstr(out_text, "fio-3.33") <
		    strstr(out_text, "\nRun status group 0"));
	expect_usage_error(RUN("--status-interval", "100ms"), "at least 1s");
}

/* ------------------------------------------------------------ presets */

static struct bench *parse(const char *const *args, int *ret)
{
	char *argv[MAX_ARGS];
	int argc = 0;
	struct bench *b = bench_create(&bench_mem_backend);

	assert_non_null(b);
	argv[argc++] = (char *)"mem-bench";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	*ret = bench_parse(b, argc, argv);
	return b;
}

#define PARSE(ret, ...) parse((const char *const[]){__VA_ARGS__, NULL}, ret)

/* ------------------------------------------------- fio's option rules */

static void test_fio_prefix_rules(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	/* --direct is fio's own option: never --directory */
	assert_int_equal(RUN("--direct=1", "--number_ios", "1", "--size", "64k",
			     "--eta", "never"),
			 0);
	assert_non_null(strstr(err_text, "note: --direct=1"));
	expect_usage_error(RUN("--dire=1"), "'--dire' is ambiguous");
	assert_non_null(strstr(err_text, "'--directory' '--direct'"));
	/* ambiguous in fio's table, not only in ours */
	expect_usage_error(RUN("--write", "1"), "'--write' is ambiguous");
	assert_non_null(strstr(err_text, "'--write_lat_log'"));
	expect_usage_error(RUN("--nr=1"), "'--nr' is ambiguous");
	/* unknown: the closest real name */
	expect_usage_error(RUN("--iodepht=4"), "did you mean '--iodepth'");
	expect_usage_error(RUN("--bogus"), "unknown option '--bogus'");
	/* a fio option without meaning here is refused by name */
	expect_usage_error(RUN("--cpus_allowed=0"),
			   "--cpus_allowed is a fio option");
	/* unique prefixes, one dash, fio switches with =0 */
	b = PARSE(&ret, "--directo=d", "-rw=randread", "--numj", "8",
		  "--time_based=0", "--group_reporting=1", "--timeout=3");
	assert_int_equal(ret, 0);
	assert_string_equal(b->o.directory, "d");
	assert_int_equal(b->o.rw, RW_RANDREAD);
	assert_int_equal(b->o.numjobs, 8);
	assert_false(b->o.time_based);
	assert_true(b->o.group_reporting);
	assert_int_equal(b->o.runtime_ns, 3000000000ull);
	bench_destroy(b);
}

static void test_fio_values(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	b = PARSE(&ret, "--kb_base=1000", "--size=8m", "--bs=4k",
		  "--offset=40k", "--loops=3", "--percentile_list=50:99.9",
		  "--output-format=json,normal", "--verify=crc32c",
		  "--rw=write");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.size, 8000000);
	assert_int_equal(b->o.bs, 4000);
	assert_int_equal(b->o.offset, 40000);
	assert_int_equal(b->o.loops, 3);
	assert_int_equal(b->o.npcts, 2);
	assert_true(b->o.pcts[1] == 99.9);
	assert_int_equal(b->o.fmts,
			 BENCH_FMT_BIT(FMT_JSON) | BENCH_FMT_BIT(FMT_NORMAL));
	assert_true(b->o.verify);
	bench_destroy(b);
	bench_kb_base = 1024;
	b = PARSE(&ret, "--offset=50%", "--size=1m", "--randrepeat=0");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.offset_pct, 50);
	assert_false(b->o.randrepeat);
	bench_destroy(b);
	expect_usage_error(RUN("--percentile_list=50:101"), "percentile");
	expect_usage_error(RUN("--output-format=json,xml"), "normal");
	expect_usage_error(RUN("--offset=3k", "--bs=4k"), "not a multiple");
	expect_usage_error(RUN("--kb_base=1012"), "1000 or 1024");
}

static void test_time_based_semantics(void **st)
{
	(void)st;
	/* without --time_based, --runtime only caps the time: one pass */
	assert_int_equal(RUN("--rw", "randread", "--size", "256k", "--runtime",
			     "5", "--mem-lat", "20us", "--output-format",
			     "json", "--eta", "never"),
			 0);
	assert_non_null(strstr(out_text, "\"total_ios\" : 64,"));
	/* --loops passes */
	assert_int_equal(RUN("--rw", "read", "--size", "256k", "--loops", "3",
			     "--output-format", "json", "--eta", "never"),
			 0);
	assert_non_null(strstr(out_text, "\"total_ios\" : 192,"));
}

/* the fio workload options: sizes, syncs, rates, distributions */
static double jnum_in(const char *text, const char *after, const char *key)
{
	const char *p = strstr(text, after);
	char k[64];

	if (!p)
		fail_msg("no %s in %s", after, text);
	snprintf(k, sizeof(k), "\"%s\" : ", key);
	p = strstr(p, k);
	if (!p)
		fail_msg("no %s after %s", key, after);
	return strtod(p + strlen(k), NULL);
}

static void test_fio_workload_options(void **st)
{
	struct bench *b;
	double n, by;
	int ret;

	(void)st;
	/* bs=R,W and bssplit: per direction, fio's blank weights */
	b = PARSE(&ret, "--bs=4k,16k", "--rw=randrw");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.bs, 4096);
	assert_int_equal(b->o.bs_max, 16384);
	assert_true(b->o.varbs);
	bench_destroy(b);
	b = PARSE(&ret, "--bssplit=4k/50:1k/:32k/", "--size=1m");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.bsd[0].n, 3);
	assert_int_equal(b->o.bsd[0].cum[0], 50);
	assert_int_equal(b->o.bsd[0].cum[1], 75);
	assert_int_equal(b->o.bs, 1024);
	assert_int_equal(b->o.bs_max, 32768);
	bench_destroy(b);
	expect_usage_error(RUN("--bssplit=4k/60:8k/60"), "adding up to 100");
	expect_usage_error(RUN("--bsrange=4k-8k", "--verify"),
			   "one block size");
	/* a size-bound run moves --size bytes whatever the sizes */
	assert_int_equal(RUN("--rw=read", "--bsrange=4k-64k", "--size=1m",
			     "--mem-lat=10us", "--output-format=json",
			     "--eta=never"),
			 0);
	by = jnum_in(out_text, "\"read\" : {", "io_bytes");
	n = jnum_in(out_text, "\"read\" : {", "total_ios");
	assert_true(by == 1048576 && n > 16 && n < 256);
	/* fsync=4: a sync after every 4 writes, under "sync" too */
	assert_int_equal(RUN("--rw=write", "--fsync=4", "--size=256k",
			     "--mem-lat=10us", "--output-format=json",
			     "--eta=never"),
			 0);
	assert_int_equal(jnum_in(out_text, "\"sync\" : {", "total_ios"), 16);
	/* rate_iops paces each job.  The cap is exact: a job never runs
	 * ahead of its schedule (301 I/Os at most in the 1.5 s).  It
	 * catches up after a stall (below), so only a stall in the run's
	 * last moments can leave it short: the lower bounds are loose, for
	 * a loaded machine that stops the job's threads for a few hundred
	 * ms (seen at a load average of 24 under ASan) */
	assert_int_equal(RUN("--rw=randread", "--rate_iops=200", "--iodepth=8",
			     "--size=1m", "--time_based", "--runtime=1500ms",
			     "--mem-lat=10us", "--output-format=json",
			     "--eta=never"),
			 0);
	n = jnum_in(out_text, "\"read\" : {", "iops");
	assert_true(n > 100 && n < 210);
	/* rate: 800 KiB/s of 4 KiB reads is 200 IOPS; 16 KiB I/Os 50 */
	assert_int_equal(RUN("--rw=randread", "--rate=800k", "--iodepth=8",
			     "--size=1m", "--time_based", "--runtime=1500ms",
			     "--mem-lat=10us", "--output-format=json",
			     "--eta=never"),
			 0);
	n = jnum_in(out_text, "\"read\" : {", "iops");
	assert_true(n > 100 && n < 210);
	assert_int_equal(RUN("--rw=randread", "--rate=800k", "--bs=16k",
			     "--rate_iops=1000", "--size=1m", "--time_based",
			     "--runtime=1500ms", "--mem-lat=10us",
			     "--output-format=json", "--eta=never"),
			 0);
	n = jnum_in(out_text, "\"read\" : {", "iops");
	assert_true(n > 25 && n < 53);
	/* a stall is made up for, as fio does: the first 8 I/Os (of a
	 * file that exists, so no layout phase takes them) last 1 s, all 8
	 * slots at once, and the ~90 whose times passed meanwhile go at
	 * once after them, 8 at a time: 100 IOPS over the 2 s.  The slots
	 * used to restart after a late I/O (54 IOPS here), and on a loaded
	 * machine every late wake-up of the job thread was lost, which
	 * failed the rate checks above now and then */
	assert_int_equal(RUN("--rw=randread", "--rate_iops=100", "--iodepth=8",
			     "--size=1m", "--mem-file=f:1m", "--filename=f",
			     "--time_based", "--runtime=2s", "--mem-slow=8:1s",
			     "--output-format=json", "--eta=never"),
			 0);
	n = jnum_in(out_text, "\"read\" : {", "iops");
	if (!(n > 75 && n < 105))
		fail_msg("a 100 IOPS job stalled 1 s ran at %.0f IOPS",
			 (double)n);
	expect_usage_error(RUN("--rate=fast"), "bytes per second");
	/* fio's rw=randread:N: a random block, then N - 1 after it */
	b = PARSE(&ret, "--rw=randread:8");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.rw, RW_RANDREAD);
	assert_int_equal(b->o.rw_seq, 8);
	bench_destroy(b);
	assert_int_equal(RUN("--rw=randread:4", "--size=1m", "--mem-lat=10us",
			     "--output-format=json", "--eta=never"),
			 0);
	assert_int_equal(jnum_in(out_text, "\"read\" : {", "total_ios"), 256);
	/* fio's rw=read:SIZE holes (offsets: test_bench_fiolog) */
	b = PARSE(&ret, "--rw=read:4k");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.rw_hole, 4096);
	bench_destroy(b);
	expect_usage_error(RUN("--rw=null:4k"), "an rw mode with data");
	expect_usage_error(RUN("--rw=read:4k", "--bssplit=4k/50:8k/50"),
			   "one block size");
	expect_usage_error(RUN("--rw=randwrite:4", "--verify"),
			   "needs each block once");
	/* the distributions fio has */
	b = PARSE(&ret, "--random_distribution=zipf:1.2:0.25", "--rw=randread");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.dist, DIST_ZIPF);
	assert_true(b->o.dist_center == 0.25);
	bench_destroy(b);
	expect_usage_error(RUN("--random_distribution=zipf:1"), "not 1");
	/* zoned: one list for both directions, or reads,writes */
	b = PARSE(&ret, "--random_distribution=zoned:60/10:30/20:10/70",
		  "--rw=randread");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.dist, DIST_ZONED);
	assert_int_equal(b->o.zones[0].n, 3);
	assert_int_equal(b->o.zones[0].access[1], 30);
	assert_int_equal(b->o.zones[0].end[1], 30);
	assert_int_equal(b->o.zones[1].n, 3);
	assert_int_equal(b->o.zones[1].end[2], 100);
	bench_destroy(b);
	/* fio's rand-zones.fio: a zone without a size takes the rest */
	b = PARSE(&ret, "--random_distribution=zoned:50/5:30/15:20/,50/10:50/",
		  "--rw=randrw");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.zones[0].n, 3);
	assert_int_equal(b->o.zones[0].end[1], 20);
	assert_int_equal(b->o.zones[0].end[2], 100);
	assert_int_equal(b->o.zones[1].end[0], 10);
	assert_int_equal(b->o.zones[1].end[1], 100);
	bench_destroy(b);
	expect_usage_error(RUN("--random_distribution=zoned:50/100:50/"),
			   "zoned:A/S");
	b = PARSE(&ret, "--random_distribution=zoned_abs:90/16k:10/1m,100/4k",
		  "--rw=randrw");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.dist, DIST_ZONED_ABS);
	assert_int_equal(b->o.zones[0].n, 2);
	assert_int_equal(b->o.zones[0].end[0], 16384);
	assert_int_equal(b->o.zones[0].end[1], 16384 + 1048576);
	assert_int_equal(b->o.zones[1].n, 1);
	assert_int_equal(b->o.zones[1].end[0], 4096);
	bench_destroy(b);
	expect_usage_error(RUN("--random_distribution=zoned:60/10:30/90"),
			   "summing to 100");
	expect_usage_error(RUN("--random_distribution=zoned:50/60:50/60"),
			   "at most 100");
	expect_usage_error(RUN("--random_distribution=zoned:100"), "zoned:A/S");
	expect_usage_error(RUN("--random_distribution=zoned_abs:100/0"),
			   "zoned_abs:A/SIZE");
	expect_usage_error(
		RUN("--random_distribution=zoned:100/10", "--verify"),
		"zoned draws blocks with repeats");
	/* writes all in the first 4 KiB of the 1 MiB file, reads in the
	 * first half: mem-bench runs it */
	assert_int_equal(RUN("--rw=randrw",
			     "--random_distribution=zoned:100/50,100/1",
			     "--size=1m", "--mem-lat=10us",
			     "--output-format=json", "--eta=never"),
			 0);
	assert_int_equal(jnum_in(out_text, "\"write\" : {", "io_bytes") +
				 jnum_in(out_text, "\"read\" : {", "io_bytes"),
			 1048576);
	/* several files per job: nrfiles, or fio's a:b (\\: a colon) */
	b = PARSE(&ret, "--filename=a:b\\:c:d", "--size=3m");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.nfilenames, 3);
	assert_string_equal(b->o.filenames[1], "b:c");
	assert_int_equal(b->o.nrfiles, 3);
	assert_int_equal(b->o.file_bytes, 1 << 20);
	bench_destroy(b);
	assert_int_equal(RUN("--rw=randread", "--nrfiles=4", "--numjobs=2",
			     "--size=1m", "--mem-lat=10us",
			     "--output-format=json", "--eta=never"),
			 0);
	/* 4 files of 256k per job, each block once: 256 I/Os a job */
	assert_int_equal(jnum_in(out_text, "\"read\" : {", "total_ios"), 256);
	expect_usage_error(RUN("--nrfiles=2", "--verify"), "several files");
	assert_int_equal(RUN("--rw=randread",
			     "--random_distribution=pareto:0.3", "--size=1m",
			     "--number_ios=500", "--time_based",
			     "--mem-lat=10us", "--eta=never"),
			 0);
}

static void test_preset_sets_the_kernel_workload(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	b = PARSE(&ret, "--preset", "nfs-randrw");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.rw, RW_RANDRW);
	assert_int_equal(b->o.bs, 8192);
	assert_int_equal(b->o.rwmixread, 70);
	assert_int_equal(b->o.iodepth, 16);
	assert_int_equal(b->o.numjobs, 16);
	bench_destroy(b);

	b = PARSE(&ret, "--preset=nfs-randread");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.rw, RW_RANDREAD);
	assert_int_equal(b->o.bs, 4096);
	assert_int_equal(b->o.iodepth, 1024);
	assert_int_equal(b->o.numjobs, 16);
	assert_int_equal(b->cfg.max_inflight, 16 * 1024);
	bench_destroy(b);

	b = PARSE(&ret, "--preset", "ior-32b");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.workload, WL_IOR);
	assert_int_equal(b->o.bs, 32);
	assert_int_equal(b->o.numjobs, 32);
	bench_destroy(b);
}

static void test_explicit_flags_override_a_preset_anywhere(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	b = PARSE(&ret, "--bs", "4k", "--preset", "nfs-randrw", "--numjobs",
		  "2");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.bs, 4096);
	assert_int_equal(b->o.numjobs, 2);
	assert_int_equal(b->o.iodepth, 16);
	bench_destroy(b);
	/* a preset's rwmixread does not make --rw randread "impossible" */
	b = PARSE(&ret, "--preset", "nfs-randrw", "--rw", "randread");
	assert_int_equal(ret, 0);
	bench_destroy(b);
}

static void test_fio_spellings_and_equals_form(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	b = PARSE(&ret, "--readwrite=randwrite", "--blocksize=16k",
		  "--ramp_time=2", "--runtime=10s", "--time_based",
		  "--rwmixwrite=30", "--rw=randrw", "--randseed=5",
		  "--group_reporting", "--number-ios=77");
	assert_int_equal(ret, 0);
	assert_int_equal(b->o.rw, RW_RANDRW);
	assert_int_equal(b->o.bs, 16384);
	assert_int_equal(b->o.ramp_ns, 2000000000ull);
	assert_int_equal(b->o.runtime_ns, 10000000000ull);
	assert_int_equal(b->o.rwmixread, 70);
	assert_int_equal(b->o.seed, 5);
	assert_int_equal(b->o.number_ios, 77);
	assert_true(b->o.group_reporting);
	bench_destroy(b);
}

static void test_config_handed_to_the_backend(void **st)
{
	struct bench *b;
	int ret;

	(void)st;
	b = PARSE(&ret, "--rw", "randread", "--bs", "4k", "--size", "8m",
		  "--iodepth", "2", "--numjobs", "3", "--nconnect", "4",
		  "--transport", "rdma", "--uid", "1000", "--gid", "100",
		  "--verify");
	assert_int_equal(ret, 0);
	assert_int_equal(b->cfg.numjobs, 3);
	assert_int_equal(b->cfg.nconnect, 4);
	assert_int_equal(b->cfg.transport, BENCH_TRANSPORT_RDMA);
	assert_int_equal(b->cfg.uid, 1000);
	assert_int_equal(b->cfg.gid, 100);
	assert_true(b->cfg.verify);
	/* reads, plus the layout's writes, in 1 MiB layout transfers and
	 * slots enough for the layout's depth */
	assert_int_equal(b->cfg.ops_used, BENCH_OP_BIT(BENCH_OP_READ) |
						  BENCH_OP_BIT(BENCH_OP_WRITE));
	assert_int_equal(b->cfg.max_len, 1u << 20);
	assert_int_equal(b->cfg.max_inflight, 3 * 4);
	bench_destroy(b);
}

static unsigned int ops_used(const char *const *args)
{
	struct bench *b;
	unsigned int ops;
	int ret;

	b = parse(args, &ret);
	assert_int_equal(ret, 0);
	ops = b->cfg.ops_used;
	bench_destroy(b);
	return ops;
}

#define OPS(...) ops_used((const char *const[]){__VA_ARGS__, NULL})
#define R	 BENCH_OP_BIT(BENCH_OP_READ)
#define W	 BENCH_OP_BIT(BENCH_OP_WRITE)

static void test_ops_used_lists_exactly_what_will_be_sent(void **st)
{
	(void)st;
	assert_int_equal(OPS("--rw", "write"), W);
	assert_int_equal(OPS("--rw", "write", "--verify"), W | R);
	assert_int_equal(OPS("--rw", "read"), R | W); /* layout */
	assert_int_equal(OPS("--rw", "randrw"), R | W);
	assert_int_equal(OPS("--workload", "ior", "--rw", "write"), W);
	assert_int_equal(OPS("--workload", "ior", "--rw", "read"), R | W);
	assert_int_equal(OPS("--workload", "ior", "--rw", "rw"), R | W);
	assert_int_equal(OPS("--rw", "null", "--runtime", "1"),
			 BENCH_OP_BIT(BENCH_OP_NULL));
	assert_int_equal(OPS("--rw", "getattr", "--runtime", "1"),
			 BENCH_OP_BIT(BENCH_OP_GETATTR));
}

static void test_parse_rejects_bad_arguments(void **st)
{
	struct bench *b = bench_create(&bench_mem_backend);
	char *argv[] = {(char *)"x", NULL};

	(void)st;
	assert_null(bench_create(NULL));
	assert_int_equal(bench_parse(NULL, 1, argv), -EINVAL);
	assert_int_equal(bench_parse(b, 0, argv), -EINVAL);
	assert_int_equal(bench_run(b), -EINVAL); /* not parsed */
	assert_int_equal(bench_report(b, stdout), -EINVAL);
	bench_destroy(b);
	bench_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_parse_with_binary_suffixes),
		cmocka_unit_test(test_bad_sizes_are_rejected),
		cmocka_unit_test(test_times_parse_with_units),
		cmocka_unit_test(test_numbers_parse_strictly),
		cmocka_unit_test(
			test_help_exits_0_and_lists_common_backend_and_presets),
		cmocka_unit_test(test_unknown_flag_exits_2),
		cmocka_unit_test(test_bad_values_exit_2_naming_the_option),
		cmocka_unit_test(test_impossible_combinations_exit_2),
		cmocka_unit_test(test_bs_above_backend_max_io_exits_2),
		cmocka_unit_test(test_preset_sets_the_kernel_workload),
		cmocka_unit_test(
			test_explicit_flags_override_a_preset_anywhere),
		cmocka_unit_test(test_fio_spellings_and_equals_form),
		cmocka_unit_test(test_config_handed_to_the_backend),
		cmocka_unit_test(test_ops_used_lists_exactly_what_will_be_sent),
		cmocka_unit_test(test_parse_rejects_bad_arguments),
		cmocka_unit_test(test_fio_prefix_rules),
		cmocka_unit_test(test_fio_values),
		cmocka_unit_test(test_time_based_semantics),
		cmocka_unit_test(test_status_interval_and_eta_off_a_terminal),
		cmocka_unit_test(test_fio_workload_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
