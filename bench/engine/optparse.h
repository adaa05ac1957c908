/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Long options resolved the way fio resolves them (fio hands its whole
 * option table to getopt_long_only()):
 *
 *   - "--name=value", "--name value" (for options that need a value),
 *     and the same with one dash ("-rw=read");
 *   - an exact name wins; otherwise a prefix of exactly one name is that
 *     name; a prefix of several is ambiguous, and the message lists them
 *     (fio: "option '--dire' is ambiguous; possibilities: ...");
 *   - an unknown name is refused naming the closest real one (fio: "Did
 *     you mean ...?").
 *
 * The table is the engine's options, the back-end's and fio's own names
 * (fio_names.c), so an abbreviation means in our benches what it means
 * in fio.  Spellings of our own that fio does not have (--ramp-time beside
 * --ramp_time) are matched in full only: they must not make a fio
 * abbreviation ambiguous.
 */
#ifndef BENCH_OPTPARSE_H
#define BENCH_OPTPARSE_H

#include <stdbool.h>
#include <stddef.h>

/* how an option takes its value */
enum bench_optarg {
	FA_REQ,	 /* always: --opt=V or --opt V */
	FA_OPT,	 /* only as --opt=V; a bare --opt means "1" */
	FA_NONE, /* never */
	FA_BARE, /* --opt=V, --opt V, or a bare --opt when the next word
		  * is an option (or absent): our --verify, fio's --direct */
};

struct bench_fio_name {
	const char *name;
	unsigned char arg; /* FA_REQ or FA_OPT, as fio 3.33 takes it */
};

extern const struct bench_fio_name bench_fio_names[];
extern const unsigned int bench_fio_nnames;

/**
 * struct bench_optdef - one entry of the table options are resolved in
 * @name: without dashes
 * @id: the caller's
 * @arg: enum bench_optarg
 * @exact: matched only when spelled out in full
 */
struct bench_optdef {
	const char *name;
	int id;
	unsigned char arg;
	bool exact;
};

/**
 * struct bench_optscan - the state of a scan over argv
 * @argc, @argv: the words, argv[0] is the program
 * @i: the next word
 * @defs, @ndefs: the table (names unique)
 */
struct bench_optscan {
	int argc;
	char **argv;
	int i;
	const struct bench_optdef *defs;
	unsigned int ndefs;
};

/* bench_optscan_next() results besides 0 */
#define BENCH_OPT_END	     1 /* no more words */
#define BENCH_OPT_POSITIONAL 2 /* a word that is no option: @value */

/**
 * bench_optscan_next() - the next option of the scan
 * @def: the option found
 * @value: its value (NULL when none was given), or the positional word
 * @given: the word as written, for messages ("--dire=1")
 *
 * "--" ends the options: every word after it is positional.  The short
 * options -h and -V resolve to "help" and "version".
 * Return: 0, %BENCH_OPT_END, %BENCH_OPT_POSITIONAL, or -EINVAL after a
 * message (unknown, ambiguous, a missing or unwanted value).
 */
int bench_optscan_next(struct bench_optscan *s, const struct bench_optdef **def,
		       const char **value, const char **given);

/**
 * bench_opt_resolve() - find @name (@len bytes, no dashes) in @defs
 * Return: the entry; NULL after printing why (unknown: with the closest
 * name; ambiguous: with the candidates).
 */
const struct bench_optdef *bench_opt_resolve(const struct bench_optdef *defs,
					     unsigned int ndefs,
					     const char *name, size_t len);

/** bench_opt_closest() - the name of @defs nearest to @name (edit distance) */
const char *bench_opt_closest(const struct bench_optdef *defs,
			      unsigned int ndefs, const char *name, size_t len);

#endif /* BENCH_OPTPARSE_H */
