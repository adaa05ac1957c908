/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's options: one table, one parse callback per option
 * (options.c).  cli.c builds the resolver's table from it (optparse.h)
 * and calls bench_engine_opt_apply() for each option given.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "optparse.h"

struct bench;
struct bench_engine_opt;

/* what a parse callback returns besides 0 and -errno */
#define BENCH_EO_HELP	 1 /* --help */
#define BENCH_EO_VERSION 2 /* --version */

/* struct bench_engine_opt.flags */
#define BENCH_EO_EXACT	 0x1 /* matched only when spelled out in full */
#define BENCH_EO_RUN	 0x2 /* of the program's run, not a job option */
#define BENCH_EO_PRESET	 0x4 /* --preset: applied before the others */

/**
 * typedef bench_opt_parse_fn - parse one option's value into @b->o
 * @e: the option's entry (its name for messages, @off for shared
 *     callbacks)
 * @arg: the value, NULL when none was given
 * Return: 0, %BENCH_EO_HELP, %BENCH_EO_VERSION, or -EINVAL after a
 * message naming the option.
 */
typedef int (*bench_opt_parse_fn)(struct bench *b,
				  const struct bench_engine_opt *e,
				  const char *arg);

/**
 * struct bench_engine_opt - one option of the engine
 * @name: without dashes
 * @arg: how it takes its value (enum bench_optarg)
 * @flags: BENCH_EO_*
 * @parse: reads the value
 * @off: for a callback shared by several options, the offset of the
 *       field of struct bench_opts it fills (or a flag telling twins apart)
 * @set: the SET_* bit recorded when the option is given
 * @lo, @hi: the range of a count (shared count callbacks)
 */
struct bench_engine_opt {
	const char *name;
	unsigned char arg;
	unsigned char flags;
	bench_opt_parse_fn parse;
	size_t off;
	unsigned int set;
	uint64_t lo, hi;
};

extern const struct bench_engine_opt bench_engine_opts[];
extern const unsigned int bench_engine_nopts;

const struct bench_engine_opt *bench_engine_opt_find(const char *name);
int bench_engine_opt_apply(struct bench *b, const struct bench_engine_opt *e,
			   const char *arg);

#endif /* BENCH_OPTIONS_H */
