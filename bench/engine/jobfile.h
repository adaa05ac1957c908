/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio job files: the INI dialect fio reads, turned into one option list
 * per job section.
 *
 *   [global]              options for the sections that follow it (there
 *                         may be several [global] sections; each adds to
 *                         what the earlier ones set)
 *   [name]                a job section: its name is the job's name
 *   key=value, key        "key = value" with spaces is the same; a bare
 *                         key is a switch (time_based, stonewall)
 *   ; comment, # comment  comments, whole lines or after a value
 *   include FILE          the lines of FILE, relative to the including
 *                         file's directory (at most 8 deep)
 *   ${NAME}               the environment variable NAME; fio's own
 *                         $ncpus, $pagesize and $mb_memory too
 *
 * Debian's libinih and iniparser both reject bare keys, which fio job
 * files are full of, hence this small parser.  Nothing here knows the
 * options: a section is a list of "--key=value" words for the command
 * line parser, which resolves them exactly as it resolves argv.
 */
#ifndef BENCH_JOBFILE_H
#define BENCH_JOBFILE_H

#include <stdbool.h>

/**
 * struct bench_jobsec - one job section
 * @name: the section's name (the job's name)
 * @file: the job file it came from, and @line the line of its header
 * @args: "--key=value" words: those of every [global] before it, then
 *	its own, in file order
 * @nargs: the number of @args
 * @nglobal: how many of @args came from [global] sections
 */
struct bench_jobsec {
	char *name;
	const char *file;
	unsigned int line;
	char **args;
	unsigned int nargs, cap;
	unsigned int nglobal;
};

/**
 * struct bench_jobfile - the sections of one or more job files
 * @globals: the "--key=value" words of all [global] sections (fio's
 *	"global options" in the JSON report)
 */
struct bench_jobfile {
	struct bench_jobsec *sec;
	unsigned int nsec, cap;
	char **globals;
	unsigned int nglobals, gcap;
	char *files[16];
	unsigned int nfiles;
};

/**
 * bench_jobfile_load() - read job file @path into @jf (appending, so
 * several files may be loaded, as fio runs them one after the other)
 * Return: 0; -errno after a message naming the file and line (a file
 * that cannot be read, a line that is no section, option or include, a
 * section without a name, an include loop).
 */
int bench_jobfile_load(struct bench_jobfile *jf, const char *path);

/** bench_jobfile_free() - free what bench_jobfile_load() allocated */
void bench_jobfile_free(struct bench_jobfile *jf);

/**
 * bench_jobfile_expand() - fio's ${VAR} expansion of @in into a new string
 * Return: the string (the caller frees it), or NULL when out of memory.
 * An unset variable is left as it is written, so the option that holds
 * it fails to parse and names it.
 */
char *bench_jobfile_expand(const char *in);

#endif /* BENCH_JOBFILE_H */
