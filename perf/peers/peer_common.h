/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * peer_common: what the peer benchmark programs share.
 *
 * The peers (peer_tirpc_null, peer_libnfs, peer_p9) drive real servers with
 * other people's client code (libtirpc, libnfs) or a deliberately plain C
 * client (9P), so that nfs3-bench and p9-bench numbers can be read side by
 * side with a known client on the same machine and the same server. Each
 * prints exactly one machine-readable line at the end:
 *
 *   RESULT peer=NAME op=OP depth=D bs=B ops=N seconds=S ops_per_s=R
 *          mib_per_s=M cpu_us_per_op=C usr_s=U sys_s=Y p50_us=.. p90_us=..
 *          p99_us=.. p999_us=.. max_us=.. errors=E [peer-specific keys]
 *
 * (one line; key=value pairs separated by single spaces). cpu_us_per_op is
 * the client process's user+system CPU (getrusage) over the measured window
 * divided by the operations completed in it: the server shares the CPUs, so
 * ops/s alone says little about the client's cost.
 */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Latency histogram: log-linear buckets, 32 sub-buckets per power of two, so
 * any recorded value is off by at most 1/32 (3 %) of itself. Fixed size
 * (no allocation while measuring) and O(1) to record.
 */
#define PEER_HIST_SUB_BITS 5
#define PEER_HIST_SUB	   (1u << PEER_HIST_SUB_BITS)
#define PEER_HIST_BUCKETS  ((64 - PEER_HIST_SUB_BITS + 1) * PEER_HIST_SUB)

struct peer_hist {
	uint64_t count;
	uint64_t max_ns;
	uint64_t bucket[PEER_HIST_BUCKETS];
};

/** peer_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
uint64_t peer_now_ns(void);

/** peer_hist_add() - record one latency sample of @ns nanoseconds. */
void peer_hist_add(struct peer_hist *h, uint64_t ns);

/**
 * peer_hist_pct() - latency at percentile @pct (0 < pct <= 100)
 *
 * Return: the upper edge of the bucket holding that sample, in ns; 0 when
 * the histogram is empty.
 */
uint64_t peer_hist_pct(const struct peer_hist *h, double pct);

/*
 * A measured window: warm-up first (not counted), then peer_window_start(),
 * then peer_window_stop() once the run time is over. Operations completed
 * in between are counted by the caller in @ops.
 */
struct peer_window {
	uint64_t t0_ns, t1_ns;
	uint64_t cpu0_ns, cpu1_ns;
	uint64_t usr0_ns, usr1_ns;
	uint64_t ops;
	uint64_t errors;
	struct peer_hist hist;
	bool running;
};

/** peer_window_start() - start measuring: reset counters, sample clocks. */
void peer_window_start(struct peer_window *w);

/** peer_window_stop() - stop measuring: sample clocks; idempotent. */
void peer_window_stop(struct peer_window *w);

/**
 * peer_print_result() - print the RESULT line for a finished window
 * @peer: program name without the "peer_" prefix
 * @op: operation measured (null, read, write, ...)
 * @depth: requests kept outstanding
 * @bs: payload bytes per operation (0 for NULL)
 * @extra: more " key=value" pairs to append (may be NULL), e.g. "auth=sys"
 */
void peer_print_result(const struct peer_window *w, const char *peer,
		       const char *op, unsigned int depth, uint64_t bs,
		       const char *extra);

/**
 * peer_parse_size() - parse "4096", "4k", "1m", "2g" (powers of 1024)
 *
 * Return: 0 and *out set, or -EINVAL (out untouched).
 */
int peer_parse_size(const char *s, uint64_t *out);

/**
 * peer_parse_seconds() - parse a number of seconds ("5", "0.5")
 * @allow_zero: accept 0 (a warm-up may be skipped, a run may not)
 *
 * Return: 0 and *out set, or -EINVAL (out untouched).
 */
int peer_parse_seconds(const char *s, bool allow_zero, double *out);

/**
 * peer_parse_uint() - parse a decimal or 0x-hex integer no larger than @max
 *
 * Return: 0 and *out set, or -EINVAL (out untouched).
 */
int peer_parse_uint(const char *s, uint64_t max, uint64_t *out);

/**
 * peer_uint_opt() - option @opt's value @s as peer_parse_uint() reads it,
 * or exit(1) with "PROG: bad value for OPT: 'S' (0..MAX)"
 */
uint64_t peer_uint_opt(const char *prog, const char *opt, const char *s,
		       uint64_t max);

/*
 * How long a peer measures, the same options in every peer: --seconds
 * after --warmup seconds, or --count operations after --warmup-count.
 * Their getopt codes are above every character, so a program's own
 * one-letter codes never meet them.
 */
struct peer_run_opts {
	double secs, warm;
	uint64_t count, warm_count; /* count 0: --seconds */
};

enum {
	PEER_OPT_SECONDS = 0x100,
	PEER_OPT_WARMUP,
	PEER_OPT_COUNT,
	PEER_OPT_WARMUP_COUNT,
};

/* the struct option entries of struct peer_run_opts */
/* clang-format off */
#define PEER_RUN_LONGOPTS						\
	{"seconds", required_argument, NULL, PEER_OPT_SECONDS},		\
	{"warmup", required_argument, NULL, PEER_OPT_WARMUP},		\
	{"count", required_argument, NULL, PEER_OPT_COUNT},		\
	{"warmup-count", required_argument, NULL, PEER_OPT_WARMUP_COUNT}
/* clang-format on */

/**
 * peer_run_opt() - read getopt_long()'s @c into @ro if it is one of
 * PEER_RUN_LONGOPTS (a bad value exits as peer_die() does)
 *
 * Return: true when @c was one of them.
 */
bool peer_run_opt(const char *prog, int c, const char *arg,
		  struct peer_run_opts *ro);

/**
 * peer_rng_next() - next value of a 64-bit PCG-style LCG (cheap, seeded
 * per run so every peer draws the same offset sequence)
 */
uint64_t peer_rng_next(uint64_t *state);

/** peer_die() - print "PROG: message" to stderr and exit(1). */
void peer_die(const char *prog, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif /* PEER_COMMON_H */
