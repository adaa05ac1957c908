/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Values on the command line: sizes, durations and numbers the way fio
 * spells them, and the one error-message format, for the engine and for
 * the back-ends' own options alike.
 *
 * Sizes follow fio's unit rules (bench_parse_size(), kb_base); a bare
 * number is bytes, 0x is hexadecimal.  Parsing is strict: no sign, no spaces, no fractions,
 * no trailing characters, and overflow is an error rather than a wrap.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "engine_int.h"

int bench_msg_rank = -1;
bool bench_mute;

static unsigned int mute_depth;
static bool mute_saved;

void bench_mute_push(void)
{
	if (!mute_depth++) {
		mute_saved = bench_mute;
		bench_mute = true;
	}
}

void bench_mute_pop(void)
{
	if (mute_depth && !--mute_depth)
		bench_mute = mute_saved;
}

void bench_error(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(fmt);

	if (bench_mute)
		return;
	if (bench_msg_rank >= 0)
		fprintf(stderr, "%s[rank %d]: ", bench_prog_name,
			bench_msg_rank);
	else
		fprintf(stderr, "%s: ", bench_prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (!n || fmt[n - 1] != '\n')
		fputc('\n', stderr);
}

int bench_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !out || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Split "123suffix" into its number and suffix. */
static int split_num(const char *s, uint64_t *num, const char **suffix)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*num = v;
	*suffix = end;
	return 0;
}

static int mul_check(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return -ERANGE;
	*out = a * b;
	return 0;
}

/*
 * fio's unit rules, as fio 3.33 applies them (measured against it, and
 * what its HOWTO calls "compatibility mode"): a prefix k, m, g, t or p,
 * optionally followed by "i" and/or "b", is a power of kb_base (1024 by
 * default); the full IEC spelling "KiB" (prefix, "i" and "b" together)
 * is the other base.  So with kb_base=1024, 4k = 4kb = 4ki = 4096 and
 * 4KiB = 4000; with kb_base=1000, 4k = 4000 and 4KiB = 4096.
 */
unsigned int bench_kb_base = 1024;

int bench_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "kmgtp";
	const char *suf, *u;
	uint64_t v, mul = 1, base;
	unsigned int i, k;
	bool has_i = false;
	int ret;

	if (!out)
		return -EINVAL;
	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return bench_parse_u64(s, UINT64_MAX, out);
	ret = split_num(s, &v, &suf);
	if (ret)
		return ret;
	if (*suf) {
		u = strchr(units, (char)(*suf | 0x20));
		if (u) {
			k = (unsigned int)(u - units + 1);
			suf++;
			if ((*suf | 0x20) == 'i') {
				has_i = true;
				suf++;
			}
			base = bench_kb_base;
			if ((*suf | 0x20) == 'b') {
				suf++;
				if (has_i) /* the full IEC spelling: the other base */
					base = base == 1024 ? 1000 : 1024;
			}
			for (i = 0; i < k; i++)
				mul *= base;
		} else if ((*suf | 0x20) == 'b') {
			suf++;
		}
		if (*suf)
			return -EINVAL;
	}
	return mul_check(v, mul, out);
}

int bench_parse_time(const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{"", 1000000000ull},
		{"s", 1000000000ull},
		{"sec", 1000000000ull},
		{"ns", 1},
		{"us", 1000},
		{"usec", 1000},
		{"ms", 1000000},
		{"msec", 1000000},
		{"m", 60000000000ull},
		{"min", 60000000000ull},
		{"h", 3600000000000ull},
		{"d", 86400000000000ull},
	};
	const char *suf;
	uint64_t v;
	unsigned int i;
	int ret;

	if (!out_ns)
		return -EINVAL;
	ret = split_num(s, &v, &suf);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(suf, units[i].unit))
			return mul_check(v, units[i].ns, out_ns);
	return -EINVAL;
}

void bench_xprt_log(void *arg, int level, const char *msg)
{
	char line[512];
	int n;

	(void)arg;
	(void)level;
	if (bench_mute)
		return;
	if (bench_msg_rank >= 0)
		n = snprintf(line, sizeof(line), "%s[rank %d]: %s\n",
			     bench_prog_name, bench_msg_rank, msg);
	else
		n = snprintf(line, sizeof(line), "%s: %s\n", bench_prog_name,
			     msg);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	/* one write: whole lines even from several threads */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
