/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio job files (see jobfile.h): lines, sections, includes, ${VAR}.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "jobfile.h"

#define MAX_INCLUDE_DEPTH 8

static int push(char ***v, unsigned int *n, unsigned int *cap, char *s)
{
	char **nv;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		nv = realloc(*v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = s;
	return 0;
}

/* fio's built-in variables, then the environment */
static const char *lookup(const char *name, char *buf, size_t len)
{
	long v;

	if (!strcmp(name, "ncpus")) {
		v = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(buf, len, "%ld", v > 0 ? v : 1);
		return buf;
	}
	if (!strcmp(name, "pagesize")) {
		snprintf(buf, len, "%ld", sysconf(_SC_PAGESIZE));
		return buf;
	}
	if (!strcmp(name, "mb_memory")) {
		v = sysconf(_SC_PHYS_PAGES) / (1048576 / sysconf(_SC_PAGESIZE));
		snprintf(buf, len, "%ld", v);
		return buf;
	}
	return getenv(name);
}

char *bench_jobfile_expand(const char *in)
{
	size_t cap = strlen(in) + 64, n = 0, add;
	char *out = malloc(cap), *t, name[128], num[32];
	const char *p = in, *end, *val;

	if (!out)
		return NULL;
	while (*p) {
		val = NULL;
		end = NULL;
		if (p[0] == '$' && p[1] == '{' && (end = strchr(p, '}')) &&
		    (size_t)(end - p - 2) < sizeof(name)) {
			memcpy(name, p + 2, (size_t)(end - p - 2));
			name[end - p - 2] = '\0';
			val = lookup(name, num, sizeof(num));
		} else if (p[0] == '$') {
			static const char *const builtins[] = {
				"ncpus", "pagesize", "mb_memory"};
			unsigned int i;

			for (i = 0; i < 3; i++)
				if (!strncmp(p + 1, builtins[i],
					     strlen(builtins[i]))) {
					val = lookup(builtins[i], num,
						     sizeof(num));
					end = p + strlen(builtins[i]);
					break;
				}
		}
		if (!val) {
			val = p;
			add = 1;
			end = p;
		} else {
			add = strlen(val);
		}
		if (n + add + 1 > cap) {
			cap = 2 * (n + add + 1);
			t = realloc(out, cap);
			if (!t) {
				free(out);
				return NULL;
			}
			out = t;
		}
		memcpy(out + n, val, add);
		n += add;
		p = end + 1;
	}
	out[n] = '\0';
	return out;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "key = value" -> "--key=value"; "key" -> "--key" */
static char *as_option(char *line)
{
	char *eq = strchr(line, '='), *key = line, *val = NULL, *out;

	if (eq) {
		*eq = '\0';
		val = trim(eq + 1);
	}
	key = trim(key);
	if (!*key)
		return NULL;
	if (asprintf(&out, "--%s%s%s", key, val ? "=" : "", val ? val : "") < 0)
		return NULL;
	return out;
}

struct ctx {
	struct bench_jobfile *jf;
	struct bench_jobsec *cur; /* the section lines go to; NULL: global */
	bool in_global;
	bool seen_section;
};

static int load(struct ctx *c, const char *path, unsigned int depth);

static int sec_add(struct ctx *c, const char *name, const char *file,
		   unsigned int line)
{
	struct bench_jobfile *jf = c->jf;
	struct bench_jobsec *s;
	unsigned int i;

	if (jf->nsec == jf->cap) {
		unsigned int cap = jf->cap ? 2 * jf->cap : 8;
		struct bench_jobsec *ns = realloc(jf->sec, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		jf->sec = ns;
		jf->cap = cap;
	}
	s = &jf->sec[jf->nsec];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->file = file;
	s->line = line;
	if (!s->name)
		return -ENOMEM;
	jf->nsec++;
	/* the globals so far come first: the section's own lines win */
	for (i = 0; i < jf->nglobals; i++) {
		char *g = strdup(jf->globals[i]);

		if (!g || push(&s->args, &s->nargs, &s->cap, g)) {
			free(g);
			return -ENOMEM;
		}
	}
	s->nglobal = s->nargs;
	c->cur = s;
	return 0;
}

/* fio drops a comment after a value too: "size=1m ; 100 MiB" */
static void strip_comment(char *line)
{
	char *p;

	for (p = line + 1; *p; p++)
		if ((*p == ';' || *p == '#') && isspace((unsigned char)p[-1])) {
			*p = '\0';
			return;
		}
}

static int do_line(struct ctx *c, char *raw, const char *file,
		   unsigned int lineno, unsigned int depth)
{
	char *line = trim(raw), *opt, *dir, *inc, *slash;
	int ret;

	if (!*line || *line == ';' || *line == '#')
		return 0;
	strip_comment(line);
	line = trim(line);
	if (*line == '[') {
		char *end = strchr(line, ']');

		if (!end || end == line + 1 || *trim(end + 1)) {
			bench_error("%s:%u: '%s' is not a section header "
				    "([name])",
				    file, lineno, line);
			return -EINVAL;
		}
		*end = '\0';
		c->seen_section = true;
		c->in_global = !strcmp(line + 1, "global");
		if (c->in_global) {
			c->cur = NULL;
			return 0;
		}
		return sec_add(c, line + 1, file, lineno);
	}
	if (!strncmp(line, "include", 7) && isspace((unsigned char)line[7])) {
		inc = trim(line + 8);
		if (*inc == '/') {
			dir = strdup(inc);
		} else {
			slash = strrchr(file, '/');
			if (asprintf(&dir, "%.*s%s",
				     slash ? (int)(slash - file + 1) : 0, file,
				     inc) < 0)
				dir = NULL;
		}
		if (!dir)
			return -ENOMEM;
		ret = load(c, dir, depth + 1);
		free(dir);
		return ret;
	}
	if (!c->seen_section) {
		bench_error("%s:%u: '%s' comes before any [section]", file,
			    lineno, line);
		return -EINVAL;
	}
	opt = as_option(line);
	if (!opt) {
		bench_error("%s:%u: '%s' is not an option", file, lineno, line);
		return -EINVAL;
	}
	if (c->in_global)
		ret = push(&c->jf->globals, &c->jf->nglobals, &c->jf->gcap,
			   opt);
	else
		ret = push(&c->cur->args, &c->cur->nargs, &c->cur->cap, opt);
	if (ret)
		free(opt);
	return ret;
}

static int load(struct ctx *c, const char *path, unsigned int depth)
{
	struct bench_jobfile *jf = c->jf;
	char *raw = NULL, *line, *keep;
	unsigned int lineno = 0;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	if (depth > MAX_INCLUDE_DEPTH) {
		bench_error("%s: includes nest deeper than %u (a loop?)", path,
			    MAX_INCLUDE_DEPTH);
		return -ELOOP;
	}
	if (jf->nfiles == sizeof(jf->files) / sizeof(jf->files[0])) {
		bench_error("%s: too many job files and includes", path);
		return -E2BIG;
	}
	keep = strdup(path);
	if (!keep)
		return -ENOMEM;
	jf->files[jf->nfiles++] = keep;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		bench_error("job file %s: %s", path, strerror(-ret));
		return ret;
	}
	while (!ret && getline(&raw, &cap, f) >= 0) {
		lineno++;
		line = bench_jobfile_expand(raw);
		if (!line) {
			ret = -ENOMEM;
			break;
		}
		ret = do_line(c, line, keep, lineno, depth);
		free(line);
	}
	free(raw);
	fclose(f);
	return ret;
}

int bench_jobfile_load(struct bench_jobfile *jf, const char *path)
{
	struct ctx c = {.jf = jf};

	return load(&c, path, 0);
}

void bench_jobfile_free(struct bench_jobfile *jf)
{
	unsigned int i, k;

	for (i = 0; i < jf->nsec; i++) {
		for (k = 0; k < jf->sec[i].nargs; k++)
			free(jf->sec[i].args[k]);
		free(jf->sec[i].args);
		free(jf->sec[i].name);
	}
	free(jf->sec);
	for (i = 0; i < jf->nglobals; i++)
		free(jf->globals[i]);
	free(jf->globals);
	for (i = 0; i < jf->nfiles; i++)
		free(jf->files[i]);
	memset(jf, 0, sizeof(*jf));
}
