// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mbench: shared harness of the micro benchmarks (see mbench.h).
 */
#include "mbench.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct mb_opts mb_opts = {.seconds = 1.0, .max_threads = 16};

struct mb_row {
	char *label;
	double *vals;
};

struct mb_table {
	char *title;
	int ncols;
	char **cols;
	struct mb_row *rows;
	int nrows, cap;
	struct mb_table *next;
};

struct mb_tgt {
	char *what;
	double value, target;
	bool higher, met;
	struct mb_tgt *next;
};

static const char *mb_name;
static struct mb_table *tables, **tables_tail = &tables;
static struct mb_tgt *targets, **targets_tail = &targets;

static void mb_usage(FILE *f, const char *what)
{
	fprintf(f,
		"usage: %s [--seconds S] [--quick] [--threads N] [--json FILE]\n"
		"  %s\n"
		"  --seconds S   measuring time per data point (default 1)\n"
		"  --quick       fewer, shorter data points (also MB_QUICK=1)\n"
		"  --threads N   largest thread count in sweeps (default 16)\n"
		"  --json FILE   write all results as one JSON document\n",
		mb_name, what);
}

void mb_init(int argc, char **argv, const char *name, const char *what)
{
	static const struct option lo[] = {
		{"seconds", required_argument, NULL, 's'},
		{"quick", no_argument, NULL, 'q'},
		{"json", required_argument, NULL, 'j'},
		{"threads", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *env = getenv("MB_QUICK");
	int c;

	mb_name = name;
	if (env && *env && strcmp(env, "0"))
		mb_opts.quick = true;
	while ((c = getopt_long(argc, argv, "s:qj:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			mb_opts.seconds = atof(optarg);
			break;
		case 'q':
			mb_opts.quick = true;
			break;
		case 'j':
			mb_opts.json = optarg;
			break;
		case 't':
			mb_opts.max_threads = atoi(optarg);
			break;
		case 'h':
			mb_usage(stdout, what);
			exit(0);
		default:
			mb_usage(stderr, what);
			exit(2);
		}
	}
	if (mb_opts.seconds <= 0 || mb_opts.max_threads < 1) {
		fprintf(stderr,
			"%s: --seconds and --threads must be positive\n", name);
		exit(2);
	}
	if (mb_opts.quick && mb_opts.seconds > 0.25)
		mb_opts.seconds = 0.25;
	printf("== %s: %s\n", name, what);
	fflush(stdout);
}

uint64_t mb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mb_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000u;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

struct mb_table *mb_table_new(const char *title, int ncols,
			      const char *const *cols)
{
	struct mb_table *t = calloc(1, sizeof(*t));
	int i;

	if (!t || ncols < 1)
		abort();
	t->title = xstrdup(title);
	t->ncols = ncols;
	t->cols = calloc(ncols, sizeof(*t->cols));
	if (!t->cols)
		abort();
	for (i = 0; i < ncols; i++)
		t->cols[i] = xstrdup(cols[i]);
	*tables_tail = t;
	tables_tail = &t->next;
	return t;
}

static void mb_fmt(char *buf, size_t len, double v)
{
	double a = v < 0 ? -v : v;

	if (a != 0 && (a >= 1e6 || a < 0.01))
		snprintf(buf, len, "%.4g", v);
	else if (a >= 100 || v == (long long)v)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

static void mb_print_row(const struct mb_table *t, const struct mb_row *r)
{
	char buf[32];
	int i;

	printf("  %-26s", r->label);
	for (i = 1; i < t->ncols; i++) {
		mb_fmt(buf, sizeof(buf), r->vals[i - 1]);
		printf(" %14s", buf);
	}
	printf("\n");
	fflush(stdout);
}

void mb_table_row(struct mb_table *t, const char *label, const double *vals)
{
	struct mb_row *r;
	int i;

	if (t->nrows == 0) {
		printf("\n%s\n  %-26s", t->title, t->cols[0]);
		for (i = 1; i < t->ncols; i++)
			printf(" %14s", t->cols[i]);
		printf("\n");
	}
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->rows = realloc(t->rows, t->cap * sizeof(*t->rows));
		if (!t->rows)
			abort();
	}
	r = &t->rows[t->nrows++];
	r->label = xstrdup(label);
	r->vals = calloc(t->ncols, sizeof(double));
	if (!r->vals)
		abort();
	memcpy(r->vals, vals, (t->ncols - 1) * sizeof(double));
	mb_print_row(t, r);
}

bool mb_target(const char *what, double value, double target,
	       bool higher_is_better)
{
	struct mb_tgt *g = calloc(1, sizeof(*g));

	if (!g)
		abort();
	g->what = xstrdup(what);
	g->value = value;
	g->target = target;
	g->higher = higher_is_better;
	g->met = higher_is_better ? value >= target : value <= target;
	*targets_tail = g;
	targets_tail = &g->next;
	printf("  target: %-52s %8.3f %s %.3f  %s\n", what, value,
	       higher_is_better ? ">=" : "<=", target,
	       g->met ? "met" : "MISSED");
	fflush(stdout);
	return g->met;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void mb_write_json(FILE *f)
{
	struct mb_table *t;
	struct mb_tgt *g;
	int r, c;

	fprintf(f, "{\"bench\": ");
	json_str(f, mb_name);
	fprintf(f, ", \"seconds\": %g, \"quick\": %s, \"tables\": [",
		mb_opts.seconds, mb_opts.quick ? "true" : "false");
	for (t = tables; t; t = t->next) {
		fprintf(f, "%s\n  {\"title\": ", t == tables ? "" : ",");
		json_str(f, t->title);
		fprintf(f, ", \"rows\": [");
		for (r = 0; r < t->nrows; r++) {
			fprintf(f, "%s\n    {", r ? "," : "");
			json_str(f, t->cols[0]);
			fprintf(f, ": ");
			json_str(f, t->rows[r].label);
			for (c = 1; c < t->ncols; c++) {
				fprintf(f, ", ");
				json_str(f, t->cols[c]);
				fprintf(f, ": %.6g", t->rows[r].vals[c - 1]);
			}
			fprintf(f, "}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\n \"targets\": [");
	for (g = targets; g; g = g->next) {
		fprintf(f, "%s\n  {\"what\": ", g == targets ? "" : ",");
		json_str(f, g->what);
		fprintf(f,
			", \"value\": %.6g, \"target\": %.6g, \"op\": \"%s\", "
			"\"met\": %s}",
			g->value, g->target,
			g->higher ? ">=" : "<=", g->met ? "true" : "false");
	}
	fprintf(f, "]}\n");
}

int mb_finish(void)
{
	struct mb_table *t, *tn;
	struct mb_tgt *g, *gn;
	int r, c;

	if (mb_opts.json) {
		FILE *f = fopen(mb_opts.json, "w");

		if (!f) {
			perror(mb_opts.json);
		} else {
			mb_write_json(f);
			fclose(f);
		}
	}
	for (t = tables; t; t = tn) {
		tn = t->next;
		for (r = 0; r < t->nrows; r++) {
			free(t->rows[r].label);
			free(t->rows[r].vals);
		}
		for (c = 0; c < t->ncols; c++)
			free(t->cols[c]);
		free(t->cols);
		free(t->rows);
		free(t->title);
		free(t);
	}
	for (g = targets; g; g = gn) {
		gn = g->next;
		free(g->what);
		free(g);
	}
	tables = NULL;
	targets = NULL;
	return 0;
}
