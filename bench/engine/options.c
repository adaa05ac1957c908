/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's options as one table: each name with how it takes its
 * value and the one callback that parses it into struct bench_opts.
 * cli.c resolves the names (fio's prefix rules, optparse.c) and calls the
 * callbacks in command-line order; presets call them the same way.
 *
 * A callback gets the option's name as the user's table spells it (for
 * messages) and its value (NULL when none was given); it returns 0, a
 * negative errno after a message, or, for --help and --version, the
 * positive BENCH_EO_HELP / BENCH_EO_VERSION.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxprt/url.h>

#include "engine_int.h"
#include "options.h"

static int bad_value(const char *opt, const char *arg, const char *want)
{
	bench_error("--%s: '%s' is not %s", opt, arg ? arg : "", want);
	return -EINVAL;
}

static int parse_count(const char *opt, const char *arg, uint64_t lo,
		       uint64_t hi, uint64_t *out)
{
	int ret = bench_parse_u64(arg, hi, out);

	if (ret == -ERANGE || (!ret && *out < lo)) {
		bench_error("--%s: %s is out of range (%" PRIu64 "..%" PRIu64
			    ")",
			    opt, arg, lo, hi);
		return -EINVAL;
	}
	if (ret)
		return bad_value(opt, arg, "a number");
	return 0;
}

static int parse_size_opt(const char *opt, const char *arg, uint64_t lo,
			  uint64_t hi, uint64_t *out)
{
	int ret = bench_parse_size(arg, out);

	if (ret == -ERANGE || (!ret && (*out < lo || *out > hi))) {
		bench_error("--%s: %s is out of range (%" PRIu64 "..%" PRIu64
			    " bytes)",
			    opt, arg, lo, hi);
		return -EINVAL;
	}
	if (ret)
		return bad_value(opt, arg,
				 "a size (examples: 4096, 4k, 1m, 2g; "
				 "1k = 1024)");
	return 0;
}

static int parse_time_opt(const char *opt, const char *arg, uint64_t *out)
{
	int ret = bench_parse_time(arg, out);

	if (ret == -ERANGE)
		return bad_value(opt, arg, "a duration that fits (too large)");
	if (ret)
		return bad_value(opt, arg,
				 "a duration (seconds, or with a unit: 500ms, "
				 "10s, 2m)");
	return 0;
}

/* fio's booleans: 1/0 (and yes/no, true/false, on/off); bare = 1 */
static int parse_bool(const char *opt, const char *arg, bool *out)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off"};
	unsigned int i;

	if (!arg || !*arg) {
		*out = true;
		return 0;
	}
	for (i = 0; i < 4; i++) {
		if (!strcasecmp(arg, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(arg, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad_value(opt, arg, "0 or 1");
}

/* --percentile_list: up to 20 values in (0, 100], ':'-separated (fio) */
static int parse_pct_list(struct bench_opts *o, const char *opt,
			  const char *arg)
{
	const char *p = arg, *dot;
	char *end;
	double v;

	o->npcts = 0;
	o->pct_prec = 0;
	while (p && *p) {
		if (o->npcts == BENCH_MAX_PCT)
			return bad_value(opt, arg,
					 "a list of at most 20 percentiles");
		v = strtod(p, &end);
		if (end == p || !(v > 0 && v <= 100) || (*end && *end != ':'))
			return bad_value(opt, arg,
					 "a ':'-separated list of percentiles "
					 "in (0, 100], e.g. 50:99:99.9");
		o->pcts[o->npcts++] = v;
		/* fio prints them with the most decimals one was given */
		dot = memchr(p, '.', (size_t)(end - p));
		if (dot && strspn(dot + 1, "0123456789") > o->pct_prec)
			o->pct_prec =
				(unsigned int)strspn(dot + 1, "0123456789");
		p = *end ? end + 1 : end;
	}
	if (!o->npcts)
		return bad_value(opt, arg, "a list of percentiles");
	return 0;
}

/* --output-format: fio's comma-separated list of formats */
static int parse_formats(struct bench_opts *o, const char *opt, const char *arg)
{
	static const char *const names[FMT_NR] = {
		[FMT_NORMAL] = "normal",
		[FMT_JSON] = "json",
		[FMT_JSON_PLUS] = "json+",
		[FMT_TERSE] = "terse",
	};
	const char *p = arg, *comma;
	unsigned int f, fmts = 0;
	size_t len;

	if (!arg || !*arg)
		return bad_value(opt, arg, "normal, json, json+ or terse");
	for (; *p; p = comma ? comma + 1 : p + len) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (f = 0; f < FMT_NR; f++)
			if (strlen(names[f]) == len &&
			    !strncmp(p, names[f], len))
				break;
		if (f == FMT_NR)
			return bad_value(opt, arg,
					 "a comma-separated list of normal, "
					 "json, json+, terse");
		fmts |= BENCH_FMT_BIT(f);
		if (!comma)
			break;
	}
	o->fmts = fmts;
	/* the format the progress line and single-format callers look at */
	o->fmt = fmts & BENCH_FMT_BIT(FMT_NORMAL)    ? FMT_NORMAL :
		 fmts & BENCH_FMT_BIT(FMT_JSON_PLUS) ? FMT_JSON_PLUS :
		 fmts & BENCH_FMT_BIT(FMT_JSON)	     ? FMT_JSON :
						       FMT_TERSE;
	return 0;
}

/* one size of a bs list; an empty one keeps the default */
static int one_size(const char *opt, const char *s, size_t n, uint32_t *out)
{
	char buf[40];
	uint64_t v;

	if (n >= sizeof(buf))
		return bad_value(opt, s, "a size");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (bench_parse_size(buf, &v) || !v || v > (1u << 30))
		return bad_value(opt, buf, "a size from 1 to 1g");
	*out = (uint32_t)v;
	return 0;
}

/* "lo-hi" or "lo:hi" (fio swaps them when lo > hi) */
static int one_range(const char *opt, const char *s, size_t n,
		     struct bench_bsdist *d)
{
	size_t k = strcspn(s, "-:");
	uint32_t a, b2;

	if (k >= n)
		return bad_value(opt, s, "a range lo-hi (4k-64k)");
	if (one_size(opt, s, k, &a) || one_size(opt, s + k + 1, n - k - 1, &b2))
		return -EINVAL;
	d->lo = a < b2 ? a : b2;
	d->hi = a < b2 ? b2 : a;
	d->n = 0;
	return 0;
}

/* "4k/50:8k/30:16k/" (fio: blank weights share what is left) */
static int one_split(const char *opt, const char *s, size_t n,
		     struct bench_bsdist *d)
{
	unsigned int pct[BENCH_MAX_SPLIT], blank = 0, sum = 0, i;
	const char *p = s, *end = s + n, *colon, *slash;

	d->n = 0;
	while (p < end) {
		colon = memchr(p, ':', (size_t)(end - p));
		if (!colon)
			colon = end;
		slash = memchr(p, '/', (size_t)(colon - p));
		if (d->n == BENCH_MAX_SPLIT)
			return bad_value(opt, s, "at most 64 sizes");
		if (one_size(opt, p,
			     slash ? (size_t)(slash - p) : (size_t)(colon - p),
			     &d->len[d->n]))
			return -EINVAL;
		if (slash && slash + 1 < colon) {
			char w[8];
			size_t wl = (size_t)(colon - slash - 1);

			if (wl >= sizeof(w))
				return bad_value(opt, s, "size/percent pairs");
			memcpy(w, slash + 1, wl);
			w[wl] = '\0';
			pct[d->n] = (unsigned int)atoi(w);
			if (pct[d->n] > 100 || strspn(w, "0123456789") != wl)
				return bad_value(opt, s, "size/percent pairs");
			sum += pct[d->n];
		} else {
			pct[d->n] = UINT32_MAX;
			blank++;
		}
		d->n++;
		p = colon + 1;
	}
	if (!d->n || sum > 100 || (!blank && sum != 100))
		return bad_value(opt, s,
				 "sizes and weights adding up to 100 "
				 "(4k/50:8k/50)");
	for (i = 0, sum = 0; i < d->n; i++) {
		if (pct[i] == UINT32_MAX)
			pct[i] = 0; /* shared below */
		sum += pct[i];
	}
	for (i = 0; blank && i < d->n; i++)
		if (!pct[i])
			pct[i] = (100 - sum) / blank;
	for (i = 0, sum = 0; i < d->n; i++) {
		sum += pct[i];
		d->cum[i] = sum;
	}
	d->cum[d->n - 1] = 100; /* rounding of blank shares */
	d->lo = d->hi = 0;
	return 0;
}

/*
 * --bs R[,W[,T]], --bsrange R[,W], --bssplit R[,W]: fio's per-direction
 * lists; a single value sets both directions, an empty one keeps the
 * read default (fio: "bs=,8k"), trim's is ignored (no trim here).
 */
enum bs_kind { BS_FIXED, BS_RANGE, BS_SPLIT };

static int parse_bs_list(struct bench_opts *o, enum bs_kind kind,
			 const char *opt, const char *arg)
{
	const char *p = arg, *comma;
	unsigned int d;
	size_t n;
	int ret = 0;

	if (!arg || !*arg)
		return bad_value(opt, arg, "a size");
	for (d = 0; d < 2; d++) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n) {
			struct bench_bsdist *bd = &o->bsd[d];

			if (kind == BS_FIXED) {
				ret = one_size(opt, p, n, &bd->lo);
				bd->hi = bd->lo;
				bd->n = 0;
			} else if (kind == BS_RANGE) {
				ret = one_range(opt, p, n, bd);
			} else {
				ret = one_split(opt, p, n, bd);
			}
			if (ret)
				return ret;
		}
		if (!comma) {
			/* one value: both directions (fio) */
			if (d == 0)
				o->bsd[1] = o->bsd[0];
			break;
		}
		p = comma + 1;
	}
	return 0;
}

/* fio's random_distribution: random, zipf:THETA, pareto:H, normal:DEV,
 * each with an optional :CENTER in [0, 1] */
/*
 * One direction's list of fio's zoned[_abs] distribution, @p..@e:
 * A/S[:A/S...], A the access percent (the list's sum 100), S the zone's
 * size in percent of the region (zoned, the sum at most 100; an empty S
 * shares the rest, as fio's) or in bytes with units (zoned_abs).
 */
static int parse_zone_list(struct bench_zones *z, bool abs, const char *p,
			   const char *e)
{
	uint64_t size[BENCH_MAX_ZONES], end = 0, sum = 0;
	unsigned int acc = 0, blank = 0, i;
	char buf[64], *slash, *x;
	unsigned long a;
	size_t n;

	z->n = 0;
	while (p < e) {
		const char *c = memchr(p, ':', (size_t)(e - p));

		n = (size_t)((c ? c : e) - p);
		if (!n || n >= sizeof(buf) || z->n == BENCH_MAX_ZONES)
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		slash = strchr(buf, '/');
		if (!slash)
			return -EINVAL;
		*slash = '\0';
		a = strtoul(buf, &x, 10);
		if (x == buf || *x || a > 100)
			return -EINVAL;
		if (abs) {
			if (bench_parse_size(slash + 1, &size[z->n]) ||
			    !size[z->n])
				return -EINVAL;
		} else if (!slash[1]) {
			/* fio: a zone without a size shares what the others
			 * leave (rand-zones.fio's 20/) */
			size[z->n] = 0;
			blank++;
		} else {
			size[z->n] = strtoul(slash + 1, &x, 10);
			if (*x || !size[z->n] || size[z->n] > 100)
				return -EINVAL;
		}
		acc += (unsigned int)a;
		sum += size[z->n];
		z->access[z->n++] = (uint8_t)a;
		p = c ? c + 1 : e;
	}
	if (!z->n || acc != 100 || (!abs && sum > 100) ||
	    (blank && sum + blank > 100))
		return -EINVAL;
	for (i = 0; i < z->n; i++) {
		end += size[i] ? size[i] : (100 - sum) / blank;
		z->end[i] = end;
	}
	return 0;
}

/* fio's zoned:R[,W] and zoned_abs:R[,W]; one list serves both directions */
static int parse_zoned(struct bench_opts *o, const char *opt, const char *arg,
		       const char *list, bool abs)
{
	const char *comma = strchr(list, ',');
	const char *e = list + strlen(list);

	o->dist = abs ? DIST_ZONED_ABS : DIST_ZONED;
	if (parse_zone_list(&o->zones[0], abs, list, comma ? comma : e) ||
	    (comma && strchr(comma + 1, ',')) ||
	    (comma && parse_zone_list(&o->zones[1], abs, comma + 1, e)))
		return bad_value(opt, arg,
				 abs ? "zoned_abs:A/SIZE[:A/SIZE...][,writes' "
				       "list]: access percents summing to 100, "
				       "zone sizes in bytes" :
				       "zoned:A/S[:A/S...][,writes' list]: "
				       "access percents summing to 100, zone "
				       "sizes in percent summing to at most "
				       "100");
	if (!comma)
		o->zones[1] = o->zones[0];
	return 0;
}

static int parse_dist(struct bench_opts *o, const char *opt, const char *arg)
{
	static const char *const kinds[] = {"random", "zipf", "pareto",
					    "normal"};
	const char *colon = arg ? strchr(arg, ':') : NULL;
	size_t n = colon ? (size_t)(colon - arg) : (arg ? strlen(arg) : 0);
	unsigned int k;
	char *end;

	o->dist_center = -1;
	if (colon && n == 5 && !strncmp(arg, "zoned", 5))
		return parse_zoned(o, opt, arg, colon + 1, false);
	if (colon && n == 9 && !strncmp(arg, "zoned_abs", 9))
		return parse_zoned(o, opt, arg, colon + 1, true);
	for (k = 0; k < 4; k++)
		if (strlen(kinds[k]) == n && !strncmp(arg, kinds[k], n))
			break;
	if (k == 4)
		return bad_value(opt, arg,
				 "random, zipf:THETA, pareto:H, normal:DEV, "
				 "zoned:A/S:... or zoned_abs:A/SIZE:...");
	o->dist = (enum bench_dist_kind)k;
	if (k == DIST_RANDOM)
		return 0;
	if (!colon)
		return bad_value(opt, arg,
				 "the distribution with its value "
				 "(zipf:1.2)");
	o->dist_arg = strtod(colon + 1, &end);
	if (end == colon + 1 || (*end && *end != ':'))
		return bad_value(opt, arg, "a number after ':'");
	if (*end == ':') {
		o->dist_center = strtod(end + 1, &end);
		if (*end || o->dist_center < 0 || o->dist_center > 1)
			return bad_value(opt, arg, "a center from 0 to 1");
	}
	if ((k == DIST_ZIPF && (o->dist_arg <= 0 || o->dist_arg == 1)) ||
	    (k == DIST_PARETO && (o->dist_arg <= 0 || o->dist_arg >= 1)) ||
	    (k == DIST_NORMAL && (o->dist_arg <= 0 || o->dist_arg > 100)))
		return bad_value(opt, arg,
				 "zipf theta > 0 and not 1, pareto power in "
				 "(0, 1), normal deviation in (0, 100]");
	return 0;
}

/* --rate_iops R[,W] (@bw false) or --rate R[,W] bytes/s, per job (fio) */
static int parse_rate(const char *opt, const char *arg, bool bw,
		      uint64_t out[2])
{
	uint64_t max = bw ? 1ull << 50 : 100000000;
	const char *comma = arg ? strchr(arg, ',') : NULL;
	char buf[32];
	uint64_t v;
	size_t n;
	unsigned int d;

	for (d = 0; d < 2; d++) {
		const char *p = d ? (comma ? comma + 1 : NULL) : arg;

		if (!p) {
			out[1] = out[0];
			break;
		}
		n = d || !comma ? strlen(p) : (size_t)(comma - p);
		if (!n)
			continue;
		if (n >= sizeof(buf))
			return bad_value(opt, arg, bw ? "a rate" : "IOPS");
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (bench_parse_size(buf, &v) || v > max)
			return bad_value(
				opt, arg,
				bw ? "bytes per second per job, R[,W]" :
				     "IOPS per job, R[,W]");
		out[d] = v;
	}
	return 0;
}

static int pick(const char *opt, const char *arg, const char *const *names,
		unsigned int n, const char *list)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && arg && !strcmp(arg, names[i]))
			return (int)i;
	bench_error("--%s: '%s' is not one of %s", opt, arg ? arg : "", list);
	return -EINVAL;
}

/*
 * fio's --filename=a:b:c: the job's files, ':' separated ("\\:" is a
 * colon of a name).  A single name stays in o->filename.
 */
static int split_filenames(struct bench *b, const char *opt, const char *arg)
{
	struct bench_opts *o = &b->o;
	char *w = b->fname_store, *start = w;
	const char *p;

	if (strlen(arg) >= sizeof(b->fname_store))
		return bad_value(opt, arg, "a shorter list of files");
	o->nfilenames = 0;
	for (p = arg;; p++) {
		if (*p == '\\' && p[1] == ':') {
			*w++ = ':';
			p++;
			continue;
		}
		if (*p == ':' || !*p) {
			*w++ = '\0';
			if (!*start)
				return bad_value(opt, arg,
						 "file names separated by ':'");
			if (o->nfilenames == BENCH_MAX_FILES)
				return bad_value(opt, arg, "at most 64 files");
			o->filenames[o->nfilenames++] = start;
			start = w;
			if (!*p)
				break;
			continue;
		}
		*w++ = *p;
	}
	o->filename = o->filenames[0];
	if (o->nfilenames == 1)
		o->nfilenames = 0;
	return 0;
}

/* fio's verify= methods (fio 3.33, HOWTO "verify") */
static bool bench_fio_verify_method(const char *m)
{
	static const char *const methods[] = {
		"md5",	   "crc64",    "crc32c",   "crc32c-intel", "crc32",
		"crc16",   "crc7",     "xxhash",   "sha512",	   "sha256",
		"sha1",	   "sha3-224", "sha3-256", "sha3-384",	   "sha3-512",
		"pattern", "meta",     "null",
	};
	unsigned int i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(m, methods[i]))
			return true;
	return false;
}

/* the field of b->o an entry of the table names */
#define OPT_FIELD(b, e, type) ((type *)((char *)&(b)->o + (e)->off))
#define OFF(field)	      offsetof(struct bench_opts, field)

/*
 * One of @names (NULL-ended; @list says them in a message) into the enum
 * field at @e->off, as its index
 */
_Static_assert(sizeof(enum bench_eta) == sizeof(int) &&
		       sizeof(enum bench_workload) == sizeof(int) &&
		       sizeof(enum bench_transport) == sizeof(int) &&
		       sizeof(enum bench_xprt_mode) == sizeof(int),
	       "pick_into() stores an enum as an int");
static int pick_into(struct bench *b, const struct bench_engine_opt *e,
		     const char *arg, const char *const *names,
		     const char *list)
{
	unsigned int n = 0;
	int ret;

	while (names[n])
		n++;
	ret = pick(e->name, arg, names, n, list);
	if (ret < 0)
		return ret;
	*OPT_FIELD(b, e, int) = ret;
	return 0;
}

/* a bench_bool-like option: fio's 1/0, a bare one meaning 1 */
static int opt_bool(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	return parse_bool(e->name, arg, OPT_FIELD(b, e, bool));
}

/* a string kept as given (fio's log names, --description) */
static int opt_string(struct bench *b, const struct bench_engine_opt *e,
		      const char *arg)
{
	*OPT_FIELD(b, e, const char *) = arg;
	return 0;
}

/* a file name, which must not be empty */
static int opt_file(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	if (!arg || !*arg)
		return bad_value(e->name, arg, "a file name");
	*OPT_FIELD(b, e, const char *) = arg;
	return 0;
}

/* a duration into a uint64_t of nanoseconds */
static int opt_time(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	return parse_time_opt(e->name, arg, OPT_FIELD(b, e, uint64_t));
}

/* a size of at least one byte into a uint64_t */
static int opt_size(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	return parse_size_opt(e->name, arg, 1, 1ull << 62,
			      OPT_FIELD(b, e, uint64_t));
}

/* --rate_iops R[,W] and friends: per-direction rates into a uint64_t[2] */
static int opt_rate_bw(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	return parse_rate(e->name, arg, true, OPT_FIELD(b, e, uint64_t));
}

static int opt_rate_iops(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	return parse_rate(e->name, arg, false, OPT_FIELD(b, e, uint64_t));
}

/* a count in [@e->lo, @e->hi] into an unsigned int (or an int, a uint32_t) */
static int opt_uint(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	uint64_t v = 0;
	int ret = parse_count(e->name, arg, e->lo, e->hi, &v);

	*OPT_FIELD(b, e, unsigned int) = (unsigned int)v;
	return ret;
}

/* a count in [@e->lo, @e->hi] into a uint64_t */
static int opt_u64(struct bench *b, const struct bench_engine_opt *e,
		   const char *arg)
{
	return parse_count(e->name, arg, e->lo, e->hi,
			   OPT_FIELD(b, e, uint64_t));
}

/* a count of milliseconds into a uint64_t of nanoseconds */
static int opt_msec(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	int ret = opt_u64(b, e, arg);

	if (!ret)
		*OPT_FIELD(b, e, uint64_t) *= 1000000ull;
	return ret;
}

/* --eta-newline, --status-interval: off (0) or at least a second */
static int opt_interval(struct bench *b, const struct bench_engine_opt *e,
			const char *arg)
{
	uint64_t *ns = OPT_FIELD(b, e, uint64_t);
	int ret = parse_time_opt(e->name, arg, ns);

	if (!ret && *ns && *ns < 1000000000ull)
		return bad_value(e->name, arg, "at least 1s");
	return ret;
}

static int opt_help(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	(void)b, (void)e, (void)arg;
	return BENCH_EO_HELP;
}

static int opt_version(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	(void)b, (void)e, (void)arg;
	return BENCH_EO_VERSION;
}

/*
 * An option whose @set bit is all it says (--file-per-job), or that is
 * applied before everything else (--preset, cli.c)
 */
static int opt_nothing(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	(void)b, (void)e, (void)arg;
	return 0;
}

static int opt_name(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	if (!arg || !*arg || strlen(arg) > 32 || strchr(arg, '/'))
		return bad_value(e->name, arg,
				 "a job name (1..32 characters, no '/')");
	b->o.name = arg;
	return 0;
}

/* fio's rw=read:SIZE (holes) and rw=read:-SIZE (backwards) */
static int rw_seq_modifier(struct bench_opts *o, const char *name,
			   const char *colon)
{
	o->rw_back = 0;
	if (colon[1] == '-')
		return parse_size_opt(name, colon + 2, 1, 1ull << 40,
				      &o->rw_back);
	return parse_size_opt(name, colon + 1, 0, 1ull << 40, &o->rw_hole);
}

static int opt_rw(struct bench *b, const struct bench_engine_opt *e,
		  const char *arg)
{
	struct bench_opts *o = &b->o;
	const char *colon = arg ? strchr(arg, ':') : NULL;
	const char *given = arg;
	const char *name = e->name;
	char mode[16];
	uint64_t v;
	int ret;

	/* fio's rw=MODE:N modifier */
	if (colon) {
		if ((size_t)(colon - arg) >= sizeof(mode))
			return bad_value(name, arg, "an rw mode");
		snprintf(mode, sizeof(mode), "%.*s", (int)(colon - arg), arg);
		arg = mode;
	}
	/* fio's spelling of sequential mixed I/O */
	if (arg && !strcmp(arg, "readwrite"))
		arg = bench_rw_name(RW_RW);
	ret = pick(name, arg, bench_rw_names, RW_NR,
		   "read, write, randread, randwrite, randrw, rw, null, "
		   "getattr");
	if (ret < 0)
		return ret;
	o->rw = (enum bench_rw)ret;
	o->rw_seq = 0;
	o->rw_hole = 0;
	o->rw_back = 0;
	if (colon && bench_rw_meta(o->rw))
		return bad_value(name, given, "an rw mode with data for ':'");
	if (colon && !bench_rw_random(o->rw))
		return rw_seq_modifier(o, name, colon);
	if (colon) {
		ret = parse_count(name, colon + 1, 1, UINT32_MAX, &v);
		if (ret)
			return ret;
		o->rw_seq = (unsigned int)v;
	}
	return 0;
}

static int opt_bs(struct bench *b, const struct bench_engine_opt *e,
		  const char *arg)
{
	return parse_bs_list(&b->o, BS_FIXED, e->name, arg);
}

static int opt_bsrange(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	return parse_bs_list(&b->o, BS_RANGE, e->name, arg);
}

static int opt_bssplit(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	return parse_bs_list(&b->o, BS_SPLIT, e->name, arg);
}

static int opt_dist(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	return parse_dist(&b->o, e->name, arg);
}

static int opt_end_fsync(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	bool on;
	int ret = parse_bool(e->name, arg, &on);

	if (ret || !on)
		return ret;
	if (!b->ops->job_sync) {
		bench_error("--end_fsync: the %s back-end has no sync of a "
			    "file",
			    b->ops->name);
		return -EINVAL;
	}
	b->o.end_fsync = true;
	bench_note(e->name, arg,
		   "every phase that writes ends with the back-end's sync of "
		   "each file (NFS COMMIT, 9P Tfsync), outside the measured "
		   "time");
	return 0;
}

static int opt_rate_process(struct bench *b, const struct bench_engine_opt *e,
			    const char *arg)
{
	if (arg && !strcmp(arg, "linear"))
		b->o.rate_poisson = false;
	else if (arg && !strcmp(arg, "poisson"))
		b->o.rate_poisson = true;
	else
		return bad_value(e->name, arg, "linear or poisson");
	return 0;
}

static int opt_allow_create(struct bench *b, const struct bench_engine_opt *e,
			    const char *arg)
{
	bool on = true;
	int ret = parse_bool(e->name, arg, &on);

	b->o.no_create = !on;
	return ret;
}

static int opt_thinktime(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	/* fio: a bare number is microseconds */
	char us[40];

	if (arg && arg[0] && strspn(arg, "0123456789") == strlen(arg)) {
		snprintf(us, sizeof(us), "%sus", arg);
		arg = us;
	}
	return parse_time_opt(e->name, arg, &b->o.thinktime_ns);
}

static int opt_offset_inc(struct bench *b, const struct bench_engine_opt *e,
			  const char *arg)
{
	return parse_size_opt(e->name, arg, 0, 1ull << 50, &b->o.offset_inc);
}

/*
 * fio's size=P% and offset=P%: P% of the file's real size, known only
 * once the back-end is set up (bench_region()); else a size in bytes
 * from @lo.  *@pct is P, or 0 for bytes.
 */
static int size_or_pct(const char *name, const char *arg, uint64_t lo,
		       uint64_t pct_max, uint64_t *bytes, unsigned int *pct)
{
	size_t n = arg ? strlen(arg) : 0;
	uint64_t v = 0;
	int ret;

	*pct = 0;
	if (n > 1 && arg[n - 1] == '%') {
		char p[16];

		snprintf(p, sizeof(p), "%.*s", (int)(n - 1), arg);
		ret = parse_count(name, p, lo, pct_max, &v);
		*pct = (unsigned int)v;
		return ret;
	}
	return parse_size_opt(name, arg, lo, 1ull << 62, bytes);
}

static int opt_size_total(struct bench *b, const struct bench_engine_opt *e,
			  const char *arg)
{
	return size_or_pct(e->name, arg, 1, 100, &b->o.size, &b->o.size_pct);
}

static int opt_offset(struct bench *b, const struct bench_engine_opt *e,
		      const char *arg)
{
	b->o.offset = 0;
	return size_or_pct(e->name, arg, 0, 99, &b->o.offset, &b->o.offset_pct);
}

static int opt_rwmix(struct bench *b, const struct bench_engine_opt *e,
		     const char *arg)
{
	uint64_t v = 0;
	int ret = parse_count(e->name, arg, 0, 100, &v);

	b->o.rwmixread = (unsigned int)(e->off ? 100 - v : v);
	return ret;
}

static int opt_filename(struct bench *b, const struct bench_engine_opt *e,
			const char *arg)
{
	struct bench_opts *o = &b->o;

	if (!arg || !*arg)
		return bad_value(e->name, arg, "a file name");
	o->filename = arg;
	o->nfilenames = 0;
	if (bench_url_is(b, arg)) {
		int ret = bench_url_apply(b, arg, b->url_file,
					  sizeof(b->url_file));

		o->filename = b->url_file;
		return ret;
	}
	if (strchr(arg, ':'))
		return split_filenames(b, e->name, arg);
	return 0;
}

/*
 * fio's libnfs engine's nfs_url=nfs://SERVER/EXPORT[?...]: the server and
 * export, as the nfs3 back-end's --server URL (the job's files are named
 * inside the export, by --filename or --directory, as fio's)
 */
static int opt_nfs_url(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	if (!b->ops->url_scheme || strcmp(b->ops->url_scheme, "nfs") ||
	    !bench_url_is(b, arg))
		return bad_value(e->name, arg,
				 "an nfs://SERVER/EXPORT URL of an NFS "
				 "back-end (fio's libnfs engine's option)");
	return bench_url_apply(b, arg, NULL, 0);
}

/* --file-per-job, --zerocopy, --parse-only...: a flag without a value */
static int opt_flag(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	(void)arg;
	*OPT_FIELD(b, e, bool) = true;
	return 0;
}

static int opt_directory(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	if (!arg || !*arg)
		return bad_value(e->name, arg, "a directory");
	b->o.directory = arg;
	return 0;
}

/* --hard and --soft: @e->off says which */
static int opt_hard(struct bench *b, const struct bench_engine_opt *e,
		    const char *arg)
{
	(void)arg;
	b->o.hard = e->off != 0;
	return 0;
}

static int opt_verify(struct bench *b, const struct bench_engine_opt *e,
		      const char *arg)
{
	struct bench_opts *o = &b->o;

	if (!arg || !strcmp(arg, "1") || !strcmp(arg, "yes")) {
		o->verify = true;
	} else if (!strcmp(arg, "0") || !strcmp(arg, "no") ||
		   !strcmp(arg, "null")) {
		o->verify = false;
	} else if (bench_fio_verify_method(arg)) {
		o->verify = true;
		bench_note(e->name, arg,
			   "every block is checked against the engine's own "
			   "pattern of offset, job and write generation (no "
			   "checksum header)");
	} else {
		return bad_value(e->name, arg,
				 "a verify mode (fio's methods are read as "
				 "the engine's own pattern; 0 turns it off)");
	}
	return 0;
}

static int opt_output_format(struct bench *b, const struct bench_engine_opt *e,
			     const char *arg)
{
	return parse_formats(&b->o, e->name, arg);
}

static int opt_minimal(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	(void)arg;
	return parse_formats(&b->o, e->name, "terse");
}

static int opt_transport(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	/* in enum bench_transport's order */
	static const char *const tps[] = {"tcp", "rdma", NULL};

	return pick_into(b, e, arg, tps, "tcp, rdma");
}

static int opt_xprt_mode(struct bench *b, const struct bench_engine_opt *e,
			 const char *arg)
{
	/* in enum bench_xprt_mode's order */
	static const char *const modes[] = {"threaded", "caller", NULL};

	return pick_into(b, e, arg, modes, "threaded, caller");
}

static int opt_eta(struct bench *b, const struct bench_engine_opt *e,
		   const char *arg)
{
	static const char *const etas[] = {"auto", "always", "never", NULL};

	return pick_into(b, e, arg, etas, "auto, always, never");
}

static int opt_kb_base(struct bench *b, const struct bench_engine_opt *e,
		       const char *arg)
{
	uint64_t v = 0;
	int ret = parse_count(e->name, arg, 1000, 1024, &v);

	if (!ret && v != 1000 && v != 1024)
		return bad_value(e->name, arg, "1000 or 1024");
	b->o.kb_base = (unsigned int)v;
	bench_kb_base = b->o.kb_base;
	return ret;
}

static int opt_pct_list(struct bench *b, const struct bench_engine_opt *e,
			const char *arg)
{
	return parse_pct_list(&b->o, e->name, arg);
}

static int opt_workload(struct bench *b, const struct bench_engine_opt *e,
			const char *arg)
{
	static const char *const wls[] = {"fio", "ior", NULL};

	return pick_into(b, e, arg, wls, "fio, ior");
}

static int opt_log_interval(struct bench *b, const struct bench_engine_opt *e,
			    const char *arg)
{
	uint64_t *ns = &b->o.log_interval_ns;
	int ret = parse_time_opt(e->name, arg, ns);

	if (!ret && (*ns < BENCH_LOG_MIN_NS || *ns > 3600000000000ull))
		return bad_value(e->name, arg, "an interval from 100ms to 1h");
	return ret;
}

static int opt_parse_only(struct bench *b, const struct bench_engine_opt *e,
			  const char *arg)
{
	(void)e, (void)arg;
	b->parse_only = true;
	return 0;
}

/* shorthands of the table's columns */
#define REQ  FA_REQ
#define OPTV FA_OPT
#define NONE FA_NONE
#define EX   BENCH_EO_EXACT /* ours: matched only when spelled out */
#define RUN  BENCH_EO_RUN   /* of the program's run, not of a job */

/*
 * The engine's options.  Names that are fio's are resolved with fio's
 * prefix rules; the dashed spellings (ramp-time...) are ours and must be
 * spelled out in full (see optparse.h).  @off names the field of struct
 * bench_opts a shared callback fills (or, for --rwmixwrite and --hard,
 * is 1 to tell them from their twins); @set is the SET_ bit an option
 * given explicitly records; @lo, @hi bound a count.
 */
const struct bench_engine_opt bench_engine_opts[] = {
	{"help", OPTV, RUN, opt_help, 0, 0, 0, 0},
	{"version", OPTV, RUN, opt_version, 0, 0, 0, 0},
	{"name", REQ, 0, opt_name, 0, 0, 0, 0},
	{"description", REQ, 0, opt_string, OFF(description), 0, 0, 0},
	{"rw", REQ, 0, opt_rw, 0, SET_RW, 0, 0},
	{"readwrite", REQ, 0, opt_rw, 0, SET_RW, 0, 0},
	{"bs", REQ, 0, opt_bs, 0, SET_BS, 0, 0},
	{"blocksize", REQ, 0, opt_bs, 0, SET_BS, 0, 0},
	{"iodepth", REQ, 0, opt_uint, OFF(iodepth), SET_IODEPTH, 1, 65536},
	{"iodepth_first", REQ, EX, opt_uint, OFF(iodepth_first), 0, 1, 65536},
	{"numjobs", REQ, 0, opt_uint, OFF(numjobs), 0, 1, 4096},
	{"size", REQ, 0, opt_size_total, 0, SET_SIZE, 0, 0},
	{"runtime", REQ, 0, opt_time, OFF(runtime_ns), SET_RUNTIME, 0, 0},
	{"timeout", REQ, 0, opt_time, OFF(runtime_ns), SET_RUNTIME, 0, 0},
	{"ramp_time", REQ, 0, opt_time, OFF(ramp_ns), SET_RAMP, 0, 0},
	{"ramp-time", REQ, EX, opt_time, OFF(ramp_ns), SET_RAMP, 0, 0},
	{"time_based", OPTV, 0, opt_bool, OFF(time_based), 0, 0, 0},
	{"time-based", OPTV, EX, opt_bool, OFF(time_based), 0, 0, 0},
	{"number_ios", REQ, 0, opt_u64, OFF(number_ios), SET_NUMBER_IOS, 1,
	 UINT64_MAX / 2},
	{"number-ios", REQ, EX, opt_u64, OFF(number_ios), SET_NUMBER_IOS, 1,
	 UINT64_MAX / 2},
	{"io_size", REQ, 0, opt_size, OFF(io_size), 0, 0, 0},
	{"io_limit", REQ, 0, opt_size, OFF(io_size), 0, 0, 0},
	{"rwmixread", REQ, 0, opt_rwmix, 0, SET_RWMIX, 0, 0},
	{"rwmixwrite", REQ, 0, opt_rwmix, 1, SET_RWMIX, 0, 0},
	{"filename", REQ, 0, opt_filename, 0, SET_FILENAME, 0, 0},
	{"file-per-job", NONE, 0, opt_nothing, 0, SET_FILE_PER_JOB, 0, 0},
	{"file_per_job", NONE, EX, opt_nothing, 0, SET_FILE_PER_JOB, 0, 0},
	{"directory", REQ, 0, opt_directory, 0, 0, 0, 0},
	{"nconnect", REQ, 0, opt_uint, OFF(nconnect), 0, 1, 16},
	{"nfs_url", REQ, 0, opt_nfs_url, 0, 0, 0, 0},
	/* mount-style (nfs(5)), ours: spelled out in full */
	{"timeo", REQ, EX, opt_uint, OFF(timeo_ds), 0, 1, 36000},
	{"retrans", REQ, EX, opt_uint, OFF(retrans), 0, 0, 100},
	{"hard", NONE, EX, opt_hard, 1, 0, 0, 0},
	{"soft", NONE, EX, opt_hard, 0, 0, 0, 0},
	{"zerocopy", NONE, EX, opt_flag, OFF(zerocopy), 0, 0, 0},
	{"libxprt-mode", REQ, EX, opt_xprt_mode, OFF(xprt_mode), 0, 0, 0},
	{"verify", FA_BARE, 0, opt_verify, 0, 0, 0, 0},
	{"output-format", REQ, RUN, opt_output_format, 0, 0, 0, 0},
	{"minimal", NONE, RUN, opt_minimal, 0, 0, 0, 0},
	{"output", REQ, RUN, opt_file, OFF(output), 0, 0, 0},
	{"transport", REQ, 0, opt_transport, OFF(transport), 0, 0, 0},
	{"uid", REQ, 0, opt_uint, OFF(uid), 0, 0, UINT32_MAX},
	{"gid", REQ, 0, opt_uint, OFF(gid), 0, 0, UINT32_MAX},
	{"seed", REQ, 0, opt_u64, OFF(seed), SET_SEED, 0, UINT64_MAX},
	{"randseed", REQ, 0, opt_u64, OFF(seed), SET_SEED, 0, UINT64_MAX},
	{"randrepeat", REQ, 0, opt_bool, OFF(randrepeat), 0, 0, 0},
	{"eta", REQ, RUN, opt_eta, OFF(eta), 0, 0, 0},
	{"eta-newline", REQ, RUN, opt_interval, OFF(eta_newline_ns), 0, 0, 0},
	{"status-interval", REQ, RUN, opt_interval, OFF(status_interval_ns), 0,
	 0, 0},
	{"group_reporting", OPTV, 0, opt_bool, OFF(group_reporting), 0, 0, 0},
	{"group-reporting", OPTV, EX, opt_bool, OFF(group_reporting), 0, 0, 0},
	{"stonewall", OPTV, 0, opt_bool, OFF(stonewall), 0, 0, 0},
	{"new_group", OPTV, 0, opt_bool, OFF(new_group), 0, 0, 0},
	{"workload", REQ, 0, opt_workload, OFF(workload), 0, 0, 0},
	{"repetitions", REQ, 0, opt_uint, OFF(repetitions), SET_REPS, 1,
	 100000},
	{"preset", REQ, RUN | BENCH_EO_PRESET, opt_nothing, 0, 0, 0, 0},
	{"write_log", REQ, 0, opt_file, OFF(log_file), 0, 0, 0},
	{"write-log", REQ, EX, opt_file, OFF(log_file), 0, 0, 0},
	{"log_interval", REQ, 0, opt_log_interval, 0, SET_LOG_INTERVAL, 0, 0},
	{"log-interval", REQ, EX, opt_log_interval, 0, SET_LOG_INTERVAL, 0, 0},
	{"log_per_job", NONE, 0, opt_flag, OFF(log_per_job), 0, 0, 0},
	{"log-per-job", NONE, EX, opt_flag, OFF(log_per_job), 0, 0, 0},
	{"write_hist", REQ, 0, opt_file, OFF(hist_file), 0, 0, 0},
	{"write-hist", REQ, EX, opt_file, OFF(hist_file), 0, 0, 0},
	{"loops", REQ, 0, opt_uint, OFF(loops), SET_LOOPS, 1, 1000000},
	{"offset", REQ, 0, opt_offset, 0, SET_OFFSET, 0, 0},
	{"fileoffset", REQ, 0, opt_offset, 0, SET_OFFSET, 0, 0},
	{"kb_base", REQ, 0, opt_kb_base, 0, 0, 0, 0},
	{"percentile_list", REQ, 0, opt_pct_list, 0, 0, 0, 0},
	{"parse-only", NONE, RUN, opt_parse_only, 0, 0, 0, 0},
	{"norandommap", OPTV, 0, opt_bool, OFF(norandommap), 0, 0, 0},
	{"bsrange", REQ, 0, opt_bsrange, 0, SET_BS, 0, 0},
	{"blocksize_range", REQ, 0, opt_bsrange, 0, SET_BS, 0, 0},
	{"bssplit", REQ, 0, opt_bssplit, 0, SET_BS, 0, 0},
	{"random_distribution", REQ, 0, opt_dist, 0, 0, 0, 0},
	{"fsync", REQ, 0, opt_uint, OFF(fsync_every), 0, 0, UINT32_MAX},
	{"end_fsync", REQ, 0, opt_end_fsync, 0, 0, 0, 0},
	{"rate_iops", REQ, 0, opt_rate_iops, OFF(rate_iops), 0, 0, 0},
	{"rate_min", REQ, 0, opt_rate_bw, OFF(rate_min_bps), 0, 0, 0},
	{"ratemin", REQ, 0, opt_rate_bw, OFF(rate_min_bps), 0, 0, 0},
	{"rate_iops_min", REQ, 0, opt_rate_iops, OFF(rate_iops_min), 0, 0, 0},
	{"rate_cycle", REQ, 0, opt_msec, OFF(ratecycle_ns), 0, 0, 3600000},
	{"ratecycle", REQ, 0, opt_msec, OFF(ratecycle_ns), 0, 0, 3600000},
	{"rate_process", REQ, 0, opt_rate_process, 0, 0, 0, 0},
	{"rate", REQ, 0, opt_rate_bw, OFF(rate_bps), 0, 0, 0},
	{"thinktime", REQ, 0, opt_thinktime, 0, 0, 0, 0},
	{"startdelay", REQ, 0, opt_time, OFF(startdelay_ns), 0, 0, 0},
	{"filesize", REQ, 0, opt_size, OFF(filesize), 0, 0, 0},
	{"offset_increment", REQ, 0, opt_offset_inc, 0, 0, 0, 0},
	{"allow_file_create", REQ, 0, opt_allow_create, 0, 0, 0, 0},
	{"nrfiles", REQ, 0, opt_uint, OFF(nrfiles), 0, 1, BENCH_MAX_FILES},
	{"nr_files", REQ, 0, opt_uint, OFF(nrfiles), 0, 1, BENCH_MAX_FILES},
	{"write_lat_log", REQ, 0, opt_string, OFF(lat_log), 0, 0, 0},
	{"write_bw_log", REQ, 0, opt_string, OFF(bw_log), 0, 0, 0},
	{"write_iops_log", REQ, 0, opt_string, OFF(iops_log), 0, 0, 0},
	{"write_hist_log", REQ, 0, opt_string, OFF(hist_log), 0, 0, 0},
	{"log_avg_msec", REQ, 0, opt_msec, OFF(log_avg_ns), 0, 0, 3600000},
	{"log_hist_msec", REQ, 0, opt_msec, OFF(log_hist_ns), 0, 0, 3600000},
	{"per_job_logs", REQ, 0, opt_bool, OFF(per_job_logs), 0, 0, 0},
	{"log_offset", REQ, 0, opt_bool, OFF(log_offset), 0, 0, 0},
};

const unsigned int bench_engine_nopts =
	sizeof(bench_engine_opts) / sizeof(bench_engine_opts[0]);

/* The engine option called @name (without dashes), or NULL. */
const struct bench_engine_opt *bench_engine_opt_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < bench_engine_nopts; i++)
		if (!strcmp(bench_engine_opts[i].name, name))
			return &bench_engine_opts[i];
	return NULL;
}

/**
 * bench_engine_opt_apply() - parse @arg for the option @e into @b
 *
 * Records @e->set when the value was read.
 * Return: 0; %BENCH_EO_HELP or %BENCH_EO_VERSION for --help, --version;
 * -EINVAL after a message.
 */
int bench_engine_opt_apply(struct bench *b, const struct bench_engine_opt *e,
			   const char *arg)
{
	int ret = e->parse(b, e, arg);

	if (!ret)
		b->o.set |= e->set;
	return ret;
}

/* ------------------------------------------------------------ URLs */

/* @s is a URL of the back-end's scheme */
bool bench_url_is(const struct bench *b, const char *s)
{
	size_t n;

	if (!b->ops->url || !b->ops->url_scheme || !s)
		return false;
	n = strlen(b->ops->url_scheme);
	return !strncasecmp(s, b->ops->url_scheme, n) &&
	       !strncmp(s + n, "://", 3);
}

int bench_url_file(struct lx_url *u, const char *root, char *file, size_t len)
{
	int ret = lx_url_split(u, root);

	if (ret) {
		bench_error("--filename: %s", u->error);
		return ret;
	}
	if (strlen(u->file) >= len) {
		bench_error("--filename: the file's path is too long");
		return -EINVAL;
	}
	strcpy(file, u->file);
	return 0;
}

/*
 * A --server (@file NULL), --nfs_url or --filename URL, parsed by libxprt
 * (lx_url_parse(), libxprt/url.h: libnfs's nfs:// syntax and 9p://).  The
 * arguments that are engine options of the same name and meaning go
 * through them as if given on the command line; the back-end takes the
 * server, the path and the rest (bench_backend_ops.url).
 * Return: 0 or -EINVAL after a message.
 */
int bench_url_apply(struct bench *b, const char *s, char *file, size_t len)
{
	static const char *const engine_args[] = {
		"uid",	   "gid",  "transport", "nconnect", "timeo",
		"retrans", "hard", "soft",	"zerocopy",
	};
	const struct bench_engine_opt *e;
	struct lx_url u;
	unsigned int i, k;
	int ret;

	ret = lx_url_parse(s, &u);
	if (ret) {
		bench_error("%s", u.error);
		return -EINVAL;
	}
	for (i = 0; i < u.nargs && !ret; i++) {
		const struct lx_url_arg *a = &u.args[i];

		for (k = 0; k < sizeof(engine_args) / sizeof(engine_args[0]);
		     k++)
			if (!strcmp(a->key, engine_args[k]))
				break;
		if (k == sizeof(engine_args) / sizeof(engine_args[0]))
			continue;
		e = bench_engine_opt_find(a->key);
		ret = bench_engine_opt_apply(b, e, *a->value ? a->value : NULL);
	}
	if (!ret)
		ret = b->ops->url(b->priv, &u, file, len);
	lx_url_free(&u);
	return ret;
}

void bench_note(const char *opt, const char *value, const char *how)
{
	if (bench_mute)
		return;
	fprintf(stderr, "%s: note: --%s%s%s: %s\n", bench_prog_name, opt,
		value ? "=" : "", value ? value : "", how);
}
