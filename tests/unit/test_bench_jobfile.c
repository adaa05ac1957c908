// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the fio job-file parser (bench/engine/jobfile.c) and of a
 * job file's run through bench_main() on the in-memory back-end: sections,
 * [global], bare keys, comments, includes, ${ENV}, stonewall groups, the
 * command line around the file, and the errors that name file and line.
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
#include "engine/jobfile.h"
#include "backends/mem/mem_backend.h"

static char dir[] = "/tmp/bench-jobfile-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void expect_args(const struct bench_jobsec *s, const char *const *want)
{
	unsigned int i;

	for (i = 0; want[i]; i++) {
		if (i >= s->nargs)
			fail_msg("[%s] has %u args, want more ('%s')", s->name,
				 s->nargs, want[i]);
		if (strcmp(s->args[i], want[i]))
			fail_msg("[%s] arg %u is '%s', want '%s'", s->name, i,
				 s->args[i], want[i]);
	}
	assert_int_equal(s->nargs, i);
}

#define ARGS(s, ...) expect_args(s, (const char *const[]){__VA_ARGS__, NULL})

static void test_sections_globals_bare_keys_comments(void **st)
{
	struct bench_jobfile jf = {0};
	const char *p;

	(void)st;
	p = write_file("a.fio", "; fio job\n"
				"[global]\n"
				"  bs = 8k  \n"
				"# a comment\n"
				"time_based\n"
				"\n"
				"[one]\n"
				"rw=randread\n"
				"[global]\n"
				"iodepth=4\n"
				"[two]\n"
				"stonewall\n");
	assert_int_equal(bench_jobfile_load(&jf, p), 0);
	assert_int_equal(jf.nsec, 2);
	assert_string_equal(jf.sec[0].name, "one");
	ARGS(&jf.sec[0], "--bs=8k", "--time_based", "--rw=randread");
	assert_int_equal(jf.sec[0].nglobal, 2);
	/* a later [global] adds to the earlier for the sections after it */
	ARGS(&jf.sec[1], "--bs=8k", "--time_based", "--iodepth=4",
	     "--stonewall");
	assert_int_equal(jf.nglobals, 3);
	assert_int_equal(jf.sec[1].line, 11);
	bench_jobfile_free(&jf);
}

static void test_include_and_env(void **st)
{
	struct bench_jobfile jf = {0};
	const char *p;
	char *s;

	(void)st;
	write_file("common.inc", "[global]\nsize=${JF_SIZE}\n");
	setenv("JF_SIZE", "2m", 1);
	p = write_file("b.fio", "include common.inc\n[x]\nnumjobs=$ncpus\n"
				"name=${JF_UNSET_VARIABLE}\n");
	assert_int_equal(bench_jobfile_load(&jf, p), 0);
	assert_int_equal(jf.nsec, 1);
	assert_string_equal(jf.sec[0].args[0], "--size=2m");
	assert_true(strncmp(jf.sec[0].args[1], "--numjobs=", 10) == 0 &&
		    atoi(jf.sec[0].args[1] + 10) >= 1);
	/* unset: left as written, for the option parser to refuse */
	assert_string_equal(jf.sec[0].args[2], "--name=${JF_UNSET_VARIABLE}");
	bench_jobfile_free(&jf);
	s = bench_jobfile_expand("a${JF_SIZE}b$pagesize");
	assert_non_null(s);
	assert_true(!strncmp(s, "a2mb", 4) && atoi(s + 4) >= 4096);
	free(s);
}

static void test_errors_name_file_and_line(void **st)
{
	struct bench_jobfile jf = {0};
	const char *p;

	(void)st;
	p = write_file("c.fio", "bs=4k\n[x]\n");
	assert_int_equal(bench_jobfile_load(&jf, p), -EINVAL);
	bench_jobfile_free(&jf);
	p = write_file("d.fio", "[x]\n[broken\n");
	assert_int_equal(bench_jobfile_load(&jf, p), -EINVAL);
	bench_jobfile_free(&jf);
	p = write_file("loop.fio", "include loop.fio\n");
	assert_int_equal(bench_jobfile_load(&jf, p), -ELOOP);
	bench_jobfile_free(&jf);
	assert_int_equal(bench_jobfile_load(&jf, "/nonexistent/x.fio"),
			 -ENOENT);
	bench_jobfile_free(&jf);
}

/* ------------------------------------------------ a run of a job file */

static char out_text[1 << 18];

static int run_main(const char *const *args)
{
	char *argv[32], of[] = "/tmp/bench-jf-out-XXXXXX";
	int argc = 0, fd, save, rc;
	ssize_t n;

	argv[argc++] = (char *)"mem-bench";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fd = mkstemp(of);
	assert_true(fd >= 0);
	fflush(stdout);
	save = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	rc = bench_main(&bench_mem_backend, argc, argv);
	fflush(stdout);
	dup2(save, STDOUT_FILENO);
	close(save);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, out_text, sizeof(out_text) - 1);
	out_text[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(of);
	return rc;
}

#define RUN(...) run_main((const char *const[]){__VA_ARGS__, NULL})

static void test_job_file_runs_sections_in_groups(void **st)
{
	const char *p;
	char *q;

	(void)st;
	p = write_file("run.fio", "[global]\nsize=256k\nbs=4k\n"
				  "[r]\nrw=randread\n"
				  "[w]\nrw=write\nnumjobs=2\n"
				  "[later]\nstonewall\nrw=read\n");
	/* before the file: defaults (the file wins); after: overrides */
	assert_int_equal(RUN("--bs=64k", "--eta=never", p,
			     "--output-format=json", "--size=128k"),
			 0);
	assert_non_null(strstr(out_text, "\"global options\""));
	/* 4 jobs: r, w x 2, later; groups 0, 0, 0, 1 */
	q = strstr(out_text, "\"jobname\" : \"later\"");
	assert_non_null(q);
	assert_non_null(strstr(q, "\"groupid\" : 1"));
	/* fio's jobname is the section's, ours says which clone */
	q = strstr(out_text, "\"jobname\" : \"w\"");
	assert_non_null(q);
	assert_non_null(strstr(q, "\"job\" : \"w0\""));
	/* 128k in 4k blocks, once: 32 I/Os per job */
	assert_non_null(strstr(out_text, "\"total_ios\" : 32,"));
	assert_non_null(strstr(out_text, "\"sections\""));
	/* a bad option anywhere refuses the whole file */
	p = write_file("bad.fio", "[ok]\nrw=read\n[bad]\nrw=sideways\n");
	assert_int_equal(RUN(p), 2);
	/* --parse-only checks without running */
	assert_int_equal(RUN("--parse-only", write_file("ok.fio", "[a]\n")), 0);
	assert_string_equal(out_text, "");
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
		cmocka_unit_test(test_sections_globals_bare_keys_comments),
		cmocka_unit_test(test_include_and_env),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_job_file_runs_sections_in_groups),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
