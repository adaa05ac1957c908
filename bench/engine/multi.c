/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio job files: "nfs3-bench job.fio" runs the file's job sections as
 * fio does.
 *
 * Every job section becomes a run of its own (struct bench, with its own
 * connections to the server), whose command line is, in this order:
 *   1. the options given before the first job file (fio reads those as
 *      defaults, which the file overrides),
 *   2. --name=SECTION, the [global] options above the section, the
 *      section's own,
 *   3. the options given after the last job file: ours, an override of
 *      every section (fio has none; tests use it to shorten runtimes).
 * Sections run in groups as fio's do: a section with "stonewall" waits
 * for everything before it to finish; "new_group" (and stonewall) starts
 * a new reporting group (groupid).  The sections between two stonewalls
 * run at the same time, each on a thread of its own.  The report is one
 * document: every section's jobs in "jobs" (with their groupid), the
 * [global] options as fio's "global options", and per section our own
 * figures under xprt.sections[].
 *
 * Under MPI a job file is refused: the ranks would have to agree on every
 * section's phases, which the engine does per run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "jobfile.h"

#define MAX_FILES 16

struct section_run {
	struct bench *b;
	char **argv;
	int argc;
	int rc; /* exit status of the section: 0, 1, 2 */
	pthread_t thread;
	bool threaded;
};

static int build_argv(struct section_run *r, char **argv, int first, int last,
		      const int *pos, unsigned int npos,
		      const struct bench_jobsec *s, int argc)
{
	int n = 0, i;
	unsigned int k;
	bool is_file;

	r->argv = calloc((size_t)argc + s->nargs + 3, sizeof(char *));
	if (!r->argv)
		return -ENOMEM;
	r->argv[n++] = argv[0];
	for (i = 1; i < first; i++)
		r->argv[n++] = argv[i];
	if (asprintf(&r->argv[n], "--name=%s", s->name) < 0)
		return -ENOMEM;
	n++;
	for (k = 0; k < s->nargs; k++)
		r->argv[n++] = s->args[k];
	for (i = last + 1; i < argc; i++) {
		is_file = false;
		for (k = 0; k < npos; k++)
			is_file |= pos[k] == i;
		if (!is_file)
			r->argv[n++] = argv[i];
	}
	r->argc = n;
	return 0;
}

static void *section_thread(void *arg)
{
	struct section_run *r = arg;
	int ret = bench_run(r->b);

	r->rc = ret ? (r->b->usage_error ? 2 : 1) : 0;
	return NULL;
}

/* the sections [lo, hi) together, the first on this thread */
static void run_wave(struct section_run *runs, unsigned int lo, unsigned int hi)
{
	unsigned int i;

	for (i = lo + 1; i < hi; i++)
		runs[i].threaded = !pthread_create(&runs[i].thread, NULL,
						   section_thread, &runs[i]);
	section_thread(&runs[lo]);
	for (i = lo + 1; i < hi; i++) {
		if (runs[i].threaded)
			pthread_join(runs[i].thread, NULL);
		else
			section_thread(&runs[i]); /* could not start one */
	}
}

static int report(struct section_run *runs, unsigned int n,
		  const struct bench_jobfile *jf, FILE *out)
{
	const struct bench_opts *o = &runs[0].b->o;
	struct bench **bs;
	unsigned int i;
	int ret = 0;

	bs = calloc(n, sizeof(*bs));
	if (!bs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		bs[i] = runs[i].b;
	if (o->fmts & BENCH_FMT_BIT(FMT_TERSE))
		for (i = 0; !ret && i < n; i++)
			if (bs[i]->started)
				ret = bench_report_terse(bs[i], out);
	if (!ret && (o->fmts &
		     (BENCH_FMT_BIT(FMT_JSON) | BENCH_FMT_BIT(FMT_JSON_PLUS))))
		ret = bench_report_json_multi(
			bs, n, jf->globals, jf->nglobals, out,
			o->fmts & BENCH_FMT_BIT(FMT_JSON_PLUS));
	if (!ret && (o->fmts & BENCH_FMT_BIT(FMT_NORMAL)))
		ret = bench_report_normal_multi(bs, n, out);
	free(bs);
	if (!ret && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}

int bench_main_jobfiles(const struct bench_backend_ops *ops, int argc,
			char **argv, bool *handled)
{
	struct bench_jobfile jf = {0};
	struct section_run *runs = NULL;
	int pos[MAX_FILES], rc = 0, ret;
	unsigned int npos, i, k, group = 0, wave;
	FILE *out = stdout;
	const char *slash = strrchr(argv[0], '/');

	*handled = false;
	npos = bench_cli_positionals(ops, argc, argv, pos, MAX_FILES);
	if (!npos)
		return 0;
	*handled = true;
	bench_prog_name = slash ? slash + 1 : argv[0];
	for (i = 0; i < npos; i++) {
		if (bench_jobfile_load(&jf, argv[pos[i]])) {
			rc = 2;
			goto out;
		}
	}
	if (!jf.nsec) {
		bench_error("%s: no job section (only [global]?)",
			    argv[pos[0]]);
		rc = 2;
		goto out;
	}
	bench_notes_reset();
	runs = calloc(jf.nsec, sizeof(*runs));
	if (!runs) {
		rc = 1;
		goto out;
	}
	/* parse every section before anything runs: one bad option in the
	 * file refuses the whole file, like fio */
	for (i = 0; i < jf.nsec; i++) {
		struct section_run *r = &runs[i];
		const struct bench_jobsec *s = &jf.sec[i];

		r->b = bench_create(ops);
		if (!r->b || build_argv(r, argv, pos[0], pos[npos - 1], pos,
					npos, s, argc)) {
			rc = 1;
			goto out;
		}
		r->b->no_outputs = true;
		ret = bench_parse(r->b, r->argc, r->argv);
		if (ret) {
			if (ret != BENCH_PARSE_EXIT)
				bench_error("in section [%s] of %s (line %u)",
					    s->name, s->file, s->line);
			rc = ret == BENCH_PARSE_EXIT ? 0 : 2;
			goto out;
		}
		if (i && (r->b->o.stonewall || r->b->o.new_group))
			group++;
		bench_report_group(r->b, group);
		/* one progress line: the first section's of each wave */
		if (i && !r->b->o.stonewall)
			r->b->o.eta = ETA_NEVER;
	}
	if (runs[0].b->parse_only)
		goto out;
	if (runs[0].b->o.output) {
		out = fopen(runs[0].b->o.output, "w");
		if (!out) {
			bench_error("--output %s: %s", runs[0].b->o.output,
				    strerror(errno));
			out = stdout;
			rc = 2;
			goto out;
		}
	}
	for (i = 0; i < jf.nsec; i = wave) {
		for (wave = i + 1; wave < jf.nsec; wave++)
			if (runs[wave].b->o.stonewall)
				break;
		run_wave(runs, i, wave);
	}
	for (i = 0; i < jf.nsec; i++)
		if (runs[i].rc > rc)
			rc = runs[i].rc;
	if (rc != 2 && report(runs, jf.nsec, &jf, out))
		rc = 1;
out:
	for (i = 0; runs && i < jf.nsec; i++) {
		bench_destroy(runs[i].b);
		if (runs[i].argv) {
			/* argv[1 + words before the file] is the --name */
			for (k = 0; k < (unsigned int)runs[i].argc; k++)
				if (!strncmp(runs[i].argv[k], "--name=", 7) &&
				    k == (unsigned int)pos[0]) {
					free(runs[i].argv[k]);
					break;
				}
			free(runs[i].argv);
		}
	}
	free(runs);
	if (out != stdout)
		fclose(out);
	bench_jobfile_free(&jf);
	return rc;
}
