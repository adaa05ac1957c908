// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reduction of a distributed (MPI) run without MPI: each "rank" is a
 * whole mem-bench run in this process with its rank and group size set,
 * rank 1's results are packed (bench_result_pack) and merged into rank
 * 0's (bench_result_merge), and rank 0's JSON report is read back.  The
 * collective glue (bench_dist_collect, bench_dist_agree) is driven with a
 * fake struct bench_dist whose "other ranks" are canned answers.
 * Latencies use --mem-virtual, so histograms are exact.
 */
#include <errno.h>
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

/* Parse and run mem-bench ARGS as rank @rank of @nranks. */
static struct bench *run_rank_v(unsigned int rank, unsigned int nranks,
				const char *const *args)
{
	char *argv[MAX_ARGS];
	struct bench *b;
	int argc = 0;

	argv[argc++] = (char *)"mem-bench";
	for (; *args && argc < MAX_ARGS - 6; args++)
		argv[argc++] = (char *)*args;
	argv[argc++] = (char *)"--output-format";
	argv[argc++] = (char *)"json";
	argv[argc++] = (char *)"--eta";
	argv[argc++] = (char *)"never";
	argv[argc] = NULL;
	b = bench_create(&bench_mem_backend);
	assert_non_null(b);
	b->di.rank = rank;
	b->di.nranks = nranks;
	assert_int_equal(bench_parse(b, argc, argv), 0);
	bench_run(b); /* failures are in b->status, as on a real rank */
	return b;
}

#define RUN_RANK(r, n, ...) \
	run_rank_v(r, n, (const char *const[]){__VA_ARGS__, NULL})

static void *pack(struct bench *b, size_t *len)
{
	long n = bench_result_pack(b, NULL, 0);
	void *buf;

	assert_true(n > 0);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(bench_result_pack(b, buf, (size_t)n), n);
	*len = (size_t)n;
	return buf;
}

static char *report(struct bench *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(bench_report(b, f), 0);
	fclose(f);
	return text;
}

/*
 * The number after a sequence of keys, each searched after the previous
 * one: ("aggregate", "read", "total_ios").
 */
static double jnum_v(const char *js, const char *const *keys)
{
	const char *p = js;
	char k[64];

	for (; *keys; keys++) {
		snprintf(k, sizeof(k), "\"%s\"", *keys);
		p = strstr(p, k);
		if (!p)
			fail_msg("no key %s in report", *keys);
		p += strlen(k);
	}
	while (*p == ' ' || *p == ':')
		p++;
	return strtod(p, NULL);
}

#define JNUM(js, ...) jnum_v(js, (const char *const[]){__VA_ARGS__, NULL})

static unsigned int count_str(const char *s, const char *needle)
{
	unsigned int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static uint64_t kv(const struct bench *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->rpt.nkv; i++)
		if (!strcmp(b->rpt.kv[i].name, name))
			return b->rpt.kv[i].value;
	fail_msg("no back-end counter %s", name);
	return 0;
}

/* ------------------------------------------------------------ tests */

static void test_merge_appends_rank_jobs_with_global_names(void **st)
{
	struct bench *b0 = RUN_RANK(0, 2, "--numjobs", "3", "--size", "64k",
				    "--rw", "write", "--mem-virtual");
	struct bench *b1 = RUN_RANK(1, 2, "--numjobs", "3", "--size", "64k",
				    "--rw", "write", "--mem-virtual");
	size_t len;
	void *buf = pack(b1, &len);
	unsigned int i;

	(void)st;
	assert_int_equal(b0->rpt.njobs, 3);
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	assert_int_equal(b0->rpt.njobs, 6);
	for (i = 0; i < 6; i++) {
		char name[16], file[32];

		snprintf(name, sizeof(name), "job%u", i);
		snprintf(file, sizeof(file), "job.%u.0", i);
		assert_int_equal(b0->rpt.jobs[i]->gid, i);
		assert_int_equal(b0->rpt.jobs[i]->rank, i / 3);
		assert_string_equal(b0->rpt.jobs[i]->name, name);
		/* rank 1's files are its own, not rank 0's again */
		assert_string_equal(b0->rpt.jobs[i]->info.filename, file);
	}
	assert_non_null(b0->rpt.ranks);
	assert_true(b0->rpt.ranks[0].merged && b0->rpt.ranks[1].merged);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merged_percentiles_come_from_merged_histograms(void **st)
{
	/* rank 0: 1000 reads of 100 us; rank 1: 1000 reads of 300 us */
	struct bench *b0 =
		RUN_RANK(0, 2, "--number_ios", "1000", "--rw", "randread",
			 "--mem-lat", "100us", "--mem-virtual");
	struct bench *b1 =
		RUN_RANK(1, 2, "--number_ios", "1000", "--rw", "randread",
			 "--mem-lat", "300us", "--mem-virtual");
	double p40, p60, mean;
	size_t len;
	void *buf = pack(b1, &len);
	char *js;

	(void)st;
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	js = report(b0);
	assert_int_equal((int)JNUM(js, "aggregate", "read", "total_ios"), 2000);
	p40 = JNUM(js, "aggregate", "read", "clat_ns", "40.000000");
	p60 = JNUM(js, "aggregate", "read", "clat_ns", "60.000000");
	mean = JNUM(js, "aggregate", "read", "clat_ns", "mean");
	/* the merged distribution is bimodal: averaging the ranks'
	 * percentiles would have said 200 us everywhere */
	assert_true(p40 > 99000 && p40 < 101000);
	assert_true(p60 > 299000 && p60 < 301000);
	assert_true(mean > 199999 && mean < 200001);
	/* each job keeps its own rank's distribution (the second job is
	 * rank 1's) */
	assert_true(JNUM(js, "jobs", "jobname", "jobname", "clat_ns",
			 "50.000000") > 299000);
	free(js);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_sums_bytes_and_rates_and_backend_counters(void **st)
{
	struct bench *b0 =
		RUN_RANK(0, 2, "--numjobs", "2", "--size", "1m", "--bs", "4k",
			 "--rw", "read", "--mem-virtual");
	struct bench *b1 =
		RUN_RANK(1, 2, "--numjobs", "2", "--size", "1m", "--bs", "4k",
			 "--rw", "read", "--mem-virtual");
	uint64_t sub0 = kv(b0, "submitted"), sub1 = kv(b1, "submitted");
	uint64_t max0 = kv(b0, "max_inflight"), max1 = kv(b1, "max_inflight");
	size_t len;
	void *buf = pack(b1, &len);
	char *js;

	(void)st;
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	js = report(b0);
	/* 4 jobs x 1 MiB read once */
	assert_int_equal((uint64_t)JNUM(js, "aggregate", "read", "io_bytes"),
			 4u << 20);
	assert_int_equal((int)JNUM(js, "aggregate", "read", "total_ios"), 1024);
	assert_int_equal((int)JNUM(js, "aggregate", "jobs"), 4);
	assert_int_equal(count_str(js, "\"jobname\""), 5); /* 4 + all */
	/* totals add up, high-water marks do not */
	assert_int_equal(kv(b0, "submitted"), sub0 + sub1);
	assert_int_equal(kv(b0, "max_inflight"), max0 > max1 ? max0 : max1);
	free(js);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_carries_a_remote_error_into_the_status(void **st)
{
	struct bench *b0 = RUN_RANK(0, 2, "--size", "256k", "--rw", "write",
				    "--mem-virtual");
	struct bench *b1 = RUN_RANK(1, 2, "--size", "256k", "--rw", "write",
				    "--mem-virtual", "--mem-fail-at", "5");
	size_t len;
	void *buf;
	char *js;

	(void)st;
	assert_int_equal(b0->status, 0);
	assert_int_equal(b1->status, -EIO);
	buf = pack(b1, &len);
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	assert_int_equal(b0->status, -EIO);
	assert_int_equal(b0->rpt.ranks[1].status, -EIO);
	js = report(b0);
	assert_non_null(strstr(js, "\"ok\" : false"));
	/* the failing job's own first error travelled with it */
	assert_non_null(strstr(js, "\"first_error\""));
	assert_non_null(strstr(js, "\"what\" : \"I/O\""));
	assert_int_equal((int)JNUM(js, "jobs", "jobname", "jobname", "error"),
			 EIO);
	free(js);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_ior_sums_bytes_and_takes_the_slowest_time(void **st)
{
	struct bench *b0 =
		RUN_RANK(0, 2, "--workload", "ior", "--size", "1m", "--bs",
			 "64k", "--repetitions", "2", "--rw", "rw", "--mem-lat",
			 "100us", "--mem-virtual");
	struct bench *b1 =
		RUN_RANK(1, 2, "--workload", "ior", "--size", "1m", "--bs",
			 "64k", "--repetitions", "2", "--rw", "rw", "--mem-lat",
			 "100us", "--mem-virtual");
	struct bench_ior_result before[2][2];
	unsigned int r, d;
	size_t len;
	void *buf = pack(b1, &len);

	(void)st;
	memcpy(before, b0->rpt.ior, sizeof(before));
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	for (r = 0; r < 2; r++)
		for (d = 0; d < 2; d++) {
			const struct bench_ior_result *x = &b0->rpt.ior[r][d];
			const struct bench_ior_result *y = &b1->rpt.ior[r][d];

			assert_true(x->done);
			assert_int_equal(x->bytes, 2u << 20);
			assert_int_equal(x->ops, before[r][d].ops + y->ops);
			assert_int_equal(x->elapsed_ns,
					 before[r][d].elapsed_ns >
							 y->elapsed_ns ?
						 before[r][d].elapsed_ns :
						 y->elapsed_ns);
			/* equal latencies stay the same mean */
			assert_true(x->lat_mean_ns > 99999 &&
				    x->lat_mean_ns < 100001);
		}
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_refuses_every_truncation_without_side_effect(void **st)
{
	struct bench *b0 = RUN_RANK(0, 2, "--numjobs", "2", "--size", "64k",
				    "--rw", "randread", "--mem-virtual");
	struct bench *b1 = RUN_RANK(1, 2, "--numjobs", "2", "--size", "64k",
				    "--rw", "randread", "--mem-virtual");
	uint64_t sub = kv(b0, "submitted"), usr = b0->rpt.usr_ns;
	size_t len, n;
	uint8_t *buf = pack(b1, &len), *big;

	(void)st;
	for (n = 0; n < len; n++) {
		if (bench_result_merge(b0, buf, n) != -EINVAL)
			fail_msg("a %zu-byte prefix of %zu was accepted", n,
				 len);
		assert_int_equal(b0->rpt.njobs, 2);
	}
	/* trailing garbage, a foreign magic, a flipped histogram count */
	big = calloc(1, len + 1);
	memcpy(big, buf, len);
	assert_int_equal(bench_result_merge(b0, big, len + 1), -EINVAL);
	big[0] ^= 1;
	assert_int_equal(bench_result_merge(b0, big, len), -EINVAL);
	big[0] ^= 1;
	big[len - 40] ^= 0x40; /* the empty "other" histogram's count */
	assert_int_equal(bench_result_merge(b0, big, len), -EINVAL);
	assert_int_equal(b0->rpt.njobs, 2);
	assert_int_equal(kv(b0, "submitted"), sub);
	assert_int_equal(b0->rpt.usr_ns, usr);
	assert_null(b0->rpt.ranks);
	/* and the intact buffer still merges */
	assert_int_equal(bench_result_merge(b0, buf, len), 0);
	assert_int_equal(b0->rpt.njobs, 4);
	free(big);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_refuses_a_different_workload(void **st)
{
	struct bench *b0 = RUN_RANK(0, 2, "--size", "64k", "--mem-virtual");
	struct bench *b1 =
		RUN_RANK(1, 2, "--size", "64k", "--bs", "8k", "--mem-virtual");
	size_t len;
	void *buf = pack(b1, &len);

	(void)st;
	assert_int_equal(bench_result_merge(b0, buf, len), -EINVAL);
	assert_int_equal(b0->rpt.njobs, 1);
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_merge_refuses_own_duplicate_and_unknown_ranks(void **st)
{
	struct bench *b0 = RUN_RANK(0, 2, "--size", "64k", "--mem-virtual");
	struct bench *b1 = RUN_RANK(1, 2, "--size", "64k", "--mem-virtual");
	struct bench *b2 = RUN_RANK(2, 3, "--size", "64k", "--mem-virtual");
	size_t l0, l1, l2;
	void *p0 = pack(b0, &l0), *p1 = pack(b1, &l1), *p2 = pack(b2, &l2);

	(void)st;
	assert_int_equal(bench_result_merge(b0, p0, l0), -EINVAL);
	assert_int_equal(bench_result_merge(b0, p2, l2), -EINVAL);
	assert_int_equal(bench_result_merge(b0, p1, l1), 0);
	assert_int_equal(bench_result_merge(b0, p1, l1), -EINVAL);
	assert_int_equal(b0->rpt.njobs, 2);
	free(p0);
	free(p1);
	free(p2);
	bench_destroy(b2);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_pack_and_merge_validate_arguments(void **st)
{
	struct bench *b = bench_create(&bench_mem_backend);
	uint8_t byte = 0;
	size_t len;
	void *buf;

	(void)st;
	assert_int_equal(bench_result_pack(NULL, NULL, 0), -EINVAL);
	assert_int_equal(bench_result_pack(b, NULL, 0), -EINVAL); /* no run */
	assert_int_equal(bench_result_merge(b, &byte, 1), -EINVAL);
	bench_destroy(b);
	b = RUN_RANK(0, 2, "--size", "64k", "--mem-virtual");
	buf = pack(b, &len);
	assert_int_equal(bench_result_pack(b, buf, len - 1), -ENOSPC);
	assert_int_equal(bench_result_merge(NULL, buf, len), -EINVAL);
	assert_int_equal(bench_result_merge(b, NULL, len), -EINVAL);
	free(buf);
	bench_destroy(b);
}

static void test_fingerprint_covers_the_workload_not_the_outputs(void **st)
{
	struct bench_opts a, c;

	(void)st;
	bench_opts_defaults(&a);
	c = a;
	c.output = "elsewhere.json";
	c.log_file = "log.tsv";
	c.fmt = FMT_JSON;
	assert_true(bench_fingerprint(&a) == bench_fingerprint(&c));
	c.bs = 8192;
	assert_true(bench_fingerprint(&a) != bench_fingerprint(&c));
	c = a;
	c.numjobs = 2;
	assert_true(bench_fingerprint(&a) != bench_fingerprint(&c));
	c = a;
	c.runtime_ns = 1;
	assert_true(bench_fingerprint(&a) != bench_fingerprint(&c));
}

/* ------------------------------------------------ a fake group of ranks */

struct fake {
	struct bench_dist d;
	int64_t others[2]; /* what the other ranks bring to allmax */
	const void *remote;
	size_t remote_len;
	unsigned int barriers, allmaxes, gathers;
};

static int fake_barrier(struct bench_dist *d)
{
	((struct fake *)d)->barriers++;
	return 0;
}

static int fake_allmax(struct bench_dist *d, int64_t *v, unsigned int n)
{
	struct fake *f = (struct fake *)d;
	unsigned int i;

	f->allmaxes++;
	for (i = 0; i < n && i < 2; i++)
		if (f->others[i] > v[i])
			v[i] = f->others[i];
	return 0;
}

/* rank 0 of two: its own buffer, then the canned one of rank 1 */
static int fake_gather(struct bench_dist *d, const void *buf, size_t len,
		       void **all, size_t **lens)
{
	struct fake *f = (struct fake *)d;
	char *out = malloc(len + f->remote_len);

	f->gathers++;
	*lens = calloc(2, sizeof(**lens));
	memcpy(out, buf, len);
	memcpy(out + len, f->remote, f->remote_len);
	(*lens)[0] = len;
	(*lens)[1] = f->remote_len;
	*all = out;
	return 0;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->d.rank = 0;
	f->d.size = 2;
	f->d.barrier = fake_barrier;
	f->d.allmax = fake_allmax;
	f->d.gather = fake_gather;
}

static void test_collect_merges_the_gathered_ranks(void **st)
{
	struct bench *b1 = RUN_RANK(1, 2, "--size", "64k", "--mem-virtual");
	struct bench *b0;
	struct fake f;
	size_t len;
	void *buf = pack(b1, &len);

	(void)st;
	fake_init(&f);
	f.remote = buf;
	f.remote_len = len;
	b0 = bench_create(&bench_mem_backend);
	b0->di.dist = &f.d;
	b0->di.rank = 0;
	b0->di.nranks = 2;
	{
		char *argv[] = {(char *)"mem-bench",
				(char *)"--size",
				(char *)"64k",
				(char *)"--mem-virtual",
				(char *)"--eta",
				(char *)"never",
				NULL};

		assert_int_equal(bench_parse(b0, 6, argv), 0);
	}
	assert_int_equal(bench_run(b0), 0);
	/* one barrier per phase (layout, run), agreements around them */
	assert_int_equal(f.barriers, 2);
	assert_true(f.allmaxes >= 3);
	assert_int_equal(bench_dist_collect(b0, 0), 0);
	assert_int_equal(f.gathers, 1);
	assert_int_equal(b0->rpt.njobs, 2);
	/* a corrupt result from rank 1 fails the run */
	((uint8_t *)buf)[0] ^= 1;
	b0->rpt.ranks[1].merged = false;
	assert_int_equal(bench_dist_collect(b0, 0), 1);
	assert_int_equal(b0->rpt.njobs, 2);
	b0->di.dist = NULL;
	free(buf);
	bench_destroy(b1);
	bench_destroy(b0);
}

static void test_agree_stops_every_rank_when_one_fails(void **st)
{
	struct bench *b = bench_create(&bench_mem_backend);
	struct fake f;

	(void)st;
	fake_init(&f);
	/* alone: the identity */
	assert_int_equal(bench_dist_agree(b, 0), 0);
	assert_int_equal(bench_dist_agree(b, -EIO), -EIO);
	assert_int_equal(bench_dist_max(b, 7), 7);
	assert_false(bench_dist_any(b, false));
	assert_int_equal(bench_dist_barrier(b), 0);
	b->di.dist = &f.d;
	b->di.nranks = 2;
	bench_mute = true; /* the "another rank failed" line */
	assert_int_equal(bench_dist_agree(b, 0), 0);
	f.others[0] = 1;
	assert_int_equal(bench_dist_agree(b, 0), -ECANCELED);
	assert_int_equal(bench_dist_agree(b, -ENOENT), -ENOENT);
	assert_false(b->usage_error);
	f.others[1] = 1; /* a usage error elsewhere: exit 2 here too */
	assert_int_equal(bench_dist_agree(b, 0), -ECANCELED);
	assert_true(b->usage_error);
	assert_true(bench_dist_any(b, false)); /* others[0] is set */
	bench_mute = false;
	b->di.dist = NULL;
	bench_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_merge_appends_rank_jobs_with_global_names),
		cmocka_unit_test(
			test_merged_percentiles_come_from_merged_histograms),
		cmocka_unit_test(
			test_merge_sums_bytes_and_rates_and_backend_counters),
		cmocka_unit_test(
			test_merge_carries_a_remote_error_into_the_status),
		cmocka_unit_test(
			test_merge_ior_sums_bytes_and_takes_the_slowest_time),
		cmocka_unit_test(
			test_merge_refuses_every_truncation_without_side_effect),
		cmocka_unit_test(test_merge_refuses_a_different_workload),
		cmocka_unit_test(
			test_merge_refuses_own_duplicate_and_unknown_ranks),
		cmocka_unit_test(test_pack_and_merge_validate_arguments),
		cmocka_unit_test(
			test_fingerprint_covers_the_workload_not_the_outputs),
		cmocka_unit_test(test_collect_merges_the_gathered_ranks),
		cmocka_unit_test(test_agree_stops_every_rank_when_one_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
