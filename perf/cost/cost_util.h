/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cost_util.h - what every perf/cost program does the same way: the
 * command line's common options (cost_parse()), a monotonic clock, the
 * block mixer, and the async programs' run loop (struct cost_run: N calls,
 * DEPTH in flight, each completion starting the next), in either of the
 * library's execution modes (--mode threaded|caller).
 * Header-only, so each program still builds from its one .c file
 * (`cc -o nfs3-null nfs3_null.c $(pkg-config --cflags --libs libxprt)`)
 * and the Makefile's one-program-per-file rule holds; the per-call helpers
 * are inline, so the measured path is the code each program had before.
 */
#ifndef PERF_COST_UTIL_H
#define PERF_COST_UTIL_H

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/**
 * cost_rate() - @n per second between @t0 and @t1 (0 when no time passed)
 */
static inline double cost_rate(unsigned long n, double t0, double t1)
{
	return t1 > t0 ? (double)n / (t1 - t0) : 0.0;
}

/**
 * struct cost_opts - the options the cost programs share
 * @port: -p, the server's port (0: ask rpcbind, or the protocol's)
 * @mount_port: -m, MOUNT's port (0: ask rpcbind)
 * @export_path: -e, the export to mount
 * @rdma: -t rdma rather than tcp
 * @file: -f, the file to read
 * @bs: -b, bytes per call, 1..@bs_max
 * @depth: -d, calls in flight, 1..32
 * @count: -n, calls measured; @warmup: -w, calls made first
 * @caller: --mode caller: the client is created with %LX_XPRT_MODE_CALLER
 *	and the main thread drives it (TCP only)
 * @host: the one positional argument
 * @bs_max: set by the program: the largest -b it takes
 *
 * Each field holds the program's default before cost_parse(); an option
 * the program does not list in its getopt strings never reaches it.
 */
struct cost_opts {
	unsigned long port, mount_port;
	const char *export_path;
	bool rdma;
	const char *file;
	unsigned long bs, depth, count, warmup;
	bool caller;
	const char *host;
	unsigned long bs_max;
};

/* the long options of struct cost_opts, for a program's option table */
#define COST_OPT_PORT                                \
	{                                            \
		"port", required_argument, NULL, 'p' \
	}
#define COST_OPT_MOUNTPORT                                 \
	{                                                  \
		"mount-port", required_argument, NULL, 'm' \
	}
#define COST_OPT_EXPORT                                \
	{                                              \
		"export", required_argument, NULL, 'e' \
	}
#define COST_OPT_TRANSPORT                                \
	{                                                 \
		"transport", required_argument, NULL, 't' \
	}
#define COST_OPT_FILE                                \
	{                                            \
		"file", required_argument, NULL, 'f' \
	}
#define COST_OPT_BS                                \
	{                                          \
		"bs", required_argument, NULL, 'b' \
	}
#define COST_OPT_DEPTH                                \
	{                                             \
		"depth", required_argument, NULL, 'd' \
	}
#define COST_OPT_COUNT                                \
	{                                             \
		"count", required_argument, NULL, 'n' \
	}
#define COST_OPT_WARMUP                                \
	{                                              \
		"warmup", required_argument, NULL, 'w' \
	}
/* --mode has no short form: its getopt value is past every character */
#define COST_MODE 0x100
#define COST_OPT_MODE                                      \
	{                                                  \
		"mode", required_argument, NULL, COST_MODE \
	}
/* its line in every program's --help */
#define COST_HELP_MODE                                                    \
	"      --mode M        threaded (default: the library's threads " \
	"receive and\n"                                                   \
	"                      run the callbacks) or caller "             \
	"(LX_XPRT_MODE_CALLER: no\n"                                      \
	"                      thread of the library's, the main thread " \
	"drives the\n"                                                    \
	"                      client; TCP only)\n"
#define COST_OPT_HELP                          \
	{                                      \
		"help", no_argument, NULL, 'h' \
	}

/* one of struct cost_opts's options; -ENOENT when @opt is not one */
static inline int cost_opt(struct cost_opts *c, int opt, const char *arg)
{
	int ret = 0;

	switch (opt) {
	case 'p':
		return parse_num(arg, 65535, &c->port);
	case 'm':
		return parse_num(arg, 65535, &c->mount_port);
	case 'e':
		c->export_path = arg;
		return 0;
	case 't':
		if (!strcmp(arg, "rdma"))
			c->rdma = true;
		else if (strcmp(arg, "tcp"))
			ret = -EINVAL;
		return ret;
	case 'f':
		c->file = arg;
		return 0;
	case 'b':
		ret = parse_num(arg, c->bs_max, &c->bs);
		return ret ? ret : c->bs ? 0 : -EINVAL;
	case 'd':
		ret = parse_num(arg, 32, &c->depth);
		return ret ? ret : c->depth ? 0 : -EINVAL;
	case 'n':
		return parse_num(arg, 1ul << 40, &c->count);
	case 'w':
		return parse_num(arg, 1ul << 40, &c->warmup);
	case COST_MODE:
		if (!strcmp(arg, "caller"))
			c->caller = true;
		else if (strcmp(arg, "threaded"))
			ret = -EINVAL;
		return ret;
	default:
		return -ENOENT;
	}
}

/**
 * cost_parse() - a cost program's command line
 * @argc, @argv: main()'s
 * @prog: the program's name, for messages
 * @shortopts, @longopts: its getopt_long() tables (COST_OPT_*, its own)
 * @c: the shared options, holding their defaults
 * @own: the program's own options (NULL: none): 0, or a negative errno
 *	for a bad value, -ENOENT for an option it does not know
 * @ctx: @own's
 * @usage: prints the program's help to the FILE given
 *
 * Return: -1 when the program goes on (@c->host is the positional
 * argument), else the exit status main() returns: 0 after --help, 2 for
 * a usage error (said).
 */
static inline int cost_parse(int argc, char **argv, const char *prog,
			     const char *shortopts,
			     const struct option *longopts, struct cost_opts *c,
			     int (*own)(void *ctx, int opt, const char *arg),
			     void *ctx, void (*usage)(FILE *f))
{
	int opt, ret;

	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		ret = cost_opt(c, opt, optarg);
		if (ret == -ENOENT && own)
			ret = own(ctx, opt, optarg);
		if (ret == -ENOENT) {
			usage(stderr);
			return 2;
		}
		if (ret) {
			fprintf(stderr, "%s: bad value '%s'\n", prog, optarg);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c->host = argv[optind];
	return -1;
}

/*
 * The async programs' run loop: @to_issue calls, at most DEPTH in
 * flight; each completion starts the next from its done() with
 * LX_CALL_NOWAIT.  Threaded, done() runs on the library's receive thread
 * and the main thread sleeps until the last one has completed; caller
 * mode, the main thread runs the client's loop (@drive: the protocol's
 * lx_*_loop_run() until nothing is in flight) and done() runs inside it.
 * A program's start():
 *
 *	if (!cost_claim(r))
 *		return false;
 *	ret = lx_..._async(...);
 *	if (ret)
 *		cost_unclaim(r, ret);
 *	return !ret;
 *
 * and its done(): start the next on the same call when @status is 0,
 * then cost_done(r, status).
 */
struct cost_run {
	atomic_ulong to_issue; /* calls not started yet */
	atomic_ulong active;   /* calls started and not completed */
	atomic_int err;	       /* first failure */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when active drops to 0 */
	/* caller mode: services the client until no call is in flight;
	 * 0, or a negative errno; NULL: threaded, wait on @idle */
	int (*drive)(void *ctx);
};

#define COST_RUN_INIT                              \
	{                                          \
		.lock = PTHREAD_MUTEX_INITIALIZER, \
		.idle = PTHREAD_COND_INITIALIZER   \
	}

/* take one of the calls left to start: false when none is left, or one
 * failed; true counts it active (so the run cannot end under it) */
static inline bool cost_claim(struct cost_run *r)
{
	unsigned long left = atomic_load(&r->to_issue);

	do {
		if (!left || atomic_load(&r->err))
			return false;
	} while (!atomic_compare_exchange_weak(&r->to_issue, &left, left - 1));
	atomic_fetch_add(&r->active, 1);
	return true;
}

/* the claimed call did not start: @ret is the run's failure (with DEPTH
 * below the client's max_reqs a slot is always free, so it is real) */
static inline void cost_unclaim(struct cost_run *r, int ret)
{
	atomic_store(&r->err, ret);
	atomic_fetch_sub(&r->active, 1);
}

/* a call completed with @status, after its done() started the next one */
static inline void cost_done(struct cost_run *r, int status)
{
	if (status)
		atomic_store(&r->err, status);
	if (atomic_fetch_sub(&r->active, 1) == 1) {
		pthread_mutex_lock(&r->lock);
		pthread_cond_signal(&r->idle);
		pthread_mutex_unlock(&r->lock);
	}
}

/**
 * cost_run_calls() - @n calls, @depth in flight
 * @prime: starts the run's call @i of the @depth (flags 0); false when
 *	none was started
 * @ctx: @prime's and @r->drive's
 *
 * Return: 0 once all have completed, or the first failure (the calls
 * already started have completed by then too).
 */
static inline int cost_run_calls(struct cost_run *r, unsigned long n,
				 unsigned long depth,
				 bool (*prime)(void *ctx, unsigned long i),
				 void *ctx)
{
	unsigned long i;

	atomic_store(&r->to_issue, n);
	for (i = 0; i < depth; i++)
		if (!prime(ctx, i))
			break;
	if (r->drive) {
		int ret = r->drive(ctx);

		if (ret < 0)
			atomic_store(&r->err, ret);
		return atomic_load(&r->err);
	}
	pthread_mutex_lock(&r->lock);
	while (atomic_load(&r->active))
		pthread_cond_wait(&r->idle, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return atomic_load(&r->err);
}

#endif /* PERF_COST_UTIL_H */
