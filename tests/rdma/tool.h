/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the RDMA guest tools share: a clock, the PASS/FAIL lines
 * check-rdma.sh reads, and test data with its comparison.  Each tool is a single translation unit, so the
 * failure count below is that tool's own; main() returns non-zero when it
 * is not zero.
 */
#ifndef XPRT_RDMA_TOOL_H
#define XPRT_RDMA_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static int fails;

/* CLOCK_MONOTONIC in seconds */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * report() - print "PASS what: ..." or "FAIL what: ..." (flushed: the
 * guest's console may be all that is left of a hung tool) and count a
 * failure.  Return: @ok.
 */
static inline bool report(const char *what, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool report(const char *what, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "PASS" : "FAIL", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		fails++;
	return ok;
}

/* fill_random() - @n pseudo-random bytes determined by @seed (xorshift64) */
static inline void fill_random(uint8_t *b, size_t n, unsigned int seed)
{
	uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
	size_t i;

	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		b[i] = (uint8_t)s;
	}
}

/* first_diff() - offset of the first byte where @a and @b differ, or
 * (size_t)-1 when their @n bytes are equal */
static inline size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return (size_t)-1;
}

#endif /* XPRT_RDMA_TOOL_H */
