/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cost_util.h - the few helpers every perf/cost program uses: a strict
 * number parser for the options, a monotonic clock and the block mixer.
 * Header-only, so each program still builds from its one .c file
 * (`cc -o nfs3-null nfs3_null.c $(pkg-config --cflags --libs libxprt)`).
 */
#ifndef PERF_COST_UTIL_H
#define PERF_COST_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/**
 * parse_num() - a decimal option value, whole string, at most @max
 * @s: the text
 * @max: the largest value accepted
 * @out: set to the value on success
 *
 * Return: 0, or -EINVAL when @s is empty, not a number, has trailing
 * characters or is above @max.
 */
static inline int parse_num(const char *s, unsigned long max,
			    unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * now_s() - CLOCK_MONOTONIC in seconds
 *
 * Return: the time, for the programs' calls/s line.
 */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * cost_mix64() - splitmix64's finaliser: the @n-th pseudo-random word
 * @n: a counter value (the callers use an atomic counter, so any thread
 *     may draw)
 *
 * Return: a well-mixed 64-bit word.
 */
static inline uint64_t cost_mix64(uint64_t n)
{
	uint64_t z = n * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* PERF_COST_UTIL_H */
