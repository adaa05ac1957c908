/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio's long-option rules over an option table (see optparse.h): exact
 * names, unique prefixes, ambiguity, the closest name of an unknown one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "optparse.h"

#define MAX_LISTED 12 /* candidates named in an "ambiguous" message */

/* Levenshtein distance of @a (@la bytes) and @b, capped work: names are
 * short (< 64); longer ones compare as far apart */
static unsigned int edit_distance(const char *a, size_t la, const char *b)
{
	unsigned int row[64], i, j, diag, up;
	size_t lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return UINT32_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *bench_opt_closest(const struct bench_optdef *defs,
			      unsigned int ndefs, const char *name, size_t len)
{
	unsigned int i, d, best = UINT32_MAX;
	const char *pick = NULL;

	for (i = 0; i < ndefs; i++) {
		d = edit_distance(name, len, defs[i].name);
		if (d < best) {
			best = d;
			pick = defs[i].name;
		}
	}
	return pick;
}

const struct bench_optdef *bench_opt_resolve(const struct bench_optdef *defs,
					     unsigned int ndefs,
					     const char *name, size_t len)
{
	const struct bench_optdef *found = NULL;
	unsigned int i, n = 0;
	char list[MAX_LISTED * 40];
	size_t used = 0;

	for (i = 0; i < ndefs; i++)
		if (strlen(defs[i].name) == len &&
		    !strncmp(defs[i].name, name, len))
			return &defs[i];
	list[0] = '\0';
	for (i = 0; i < ndefs; i++) {
		if (defs[i].exact || strncmp(defs[i].name, name, len))
			continue;
		if (!n++)
			found = &defs[i];
		if (n <= MAX_LISTED && used < sizeof(list))
			used += (size_t)snprintf(list + used,
						 sizeof(list) - used, " '--%s'",
						 defs[i].name);
	}
	if (n == 1)
		return found;
	if (n > 1) {
		bench_error("option '--%.*s' is ambiguous; possibilities:%s%s",
			    (int)len, name, list, n > MAX_LISTED ? " ..." : "");
		return NULL;
	}
	bench_error("unknown option '--%.*s'; did you mean '--%s'?", (int)len,
		    name, bench_opt_closest(defs, ndefs, name, len));
	return NULL;
}

static int short_opt(struct bench_optscan *s, const char *w,
		     const struct bench_optdef **def)
{
	const char *name = w[1] == 'h' ? "help" : "version";
	unsigned int i;

	for (i = 0; i < s->ndefs; i++)
		if (!strcmp(s->defs[i].name, name)) {
			*def = &s->defs[i];
			return 0;
		}
	bench_error("unknown option -%c", w[1]);
	return -EINVAL;
}

int bench_optscan_next(struct bench_optscan *s, const struct bench_optdef **def,
		       const char **value, const char **given)
{
	const struct bench_optdef *d;
	const char *w, *name, *eq;
	size_t len;

	*value = NULL;
	if (s->i >= s->argc)
		return BENCH_OPT_END;
	w = s->argv[s->i++];
	*given = w;
	if (!strcmp(w, "--")) {
		/* the rest is positional: mark the scan so */
		s->defs = NULL;
		return bench_optscan_next(s, def, value, given);
	}
	if (!s->defs || w[0] != '-' || !w[1]) {
		*value = w;
		return BENCH_OPT_POSITIONAL;
	}
	if (w[1] != '-' && w[2] == '\0') {
		if (w[1] == 'h' || w[1] == 'V')
			return short_opt(s, w, def);
		bench_error("unknown option -%c", w[1]);
		return -EINVAL;
	}
	name = w + (w[1] == '-' ? 2 : 1);
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	if (!len) {
		bench_error("unknown option '%s'", w);
		return -EINVAL;
	}
	d = bench_opt_resolve(s->defs, s->ndefs, name, len);
	if (!d)
		return -EINVAL;
	*def = d;
	if (eq) {
		if (d->arg == FA_NONE) {
			bench_error("option '--%s' takes no value", d->name);
			return -EINVAL;
		}
		*value = eq + 1;
		return 0;
	}
	if (d->arg == FA_REQ) {
		if (s->i >= s->argc) {
			bench_error("option '--%s' needs a value", d->name);
			return -EINVAL;
		}
		*value = s->argv[s->i++];
	} else if (d->arg == FA_BARE && s->i < s->argc &&
		   s->argv[s->i][0] != '-') {
		*value = s->argv[s->i++];
	}
	return 0;
}
