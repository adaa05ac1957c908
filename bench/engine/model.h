/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bench engine's model: what a run is asked to do (struct bench_opts,
 * the parsed command line) and the predicates every part of the engine
 * asks of it (does this workload read, write, lay files out first...).
 *
 * The bottom of the engine: model.c calls no other file of bench/, and
 * every other file may use it (with the predicates in cli.c, the
 * command-line parser would be a hub that the report, the units and the
 * usage text call back into).
 */
#ifndef BENCH_MODEL_H
#define BENCH_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

enum bench_rw {
	RW_READ,
	RW_WRITE,
	RW_RANDREAD,
	RW_RANDWRITE,
	RW_RANDRW,
	RW_RW, /* sequential, mixed by rwmixread */
	RW_NULL,
	RW_GETATTR,
	RW_NR,
};

enum bench_workload {
	WL_FIO,
	WL_IOR,
};

/* Report directions, as fio groups them (metadata ops go to "other"). */
enum bench_dir {
	DIR_READ,
	DIR_WRITE,
	DIR_OTHER,
	DIR_NR,
};

enum bench_fmt {
	FMT_NORMAL,
	FMT_JSON,
	FMT_JSON_PLUS, /* json with the histograms' bins */
	FMT_TERSE,     /* fio's semicolon-separated line, version 3 */
	FMT_NR,
};

#define BENCH_FMT_BIT(f) (1u << (f))
#define BENCH_MAX_PCT	 20 /* fio's FIO_IO_U_LIST_MAX_LEN */

enum bench_eta {
	ETA_AUTO,
	ETA_ALWAYS,
	ETA_NEVER,
};

/* Options whose explicit presence matters (presets, combination checks). */
enum {
	SET_RW = 1u << 0,
	SET_BS = 1u << 1,
	SET_SIZE = 1u << 2,
	SET_RUNTIME = 1u << 3,
	SET_RWMIX = 1u << 4,
	SET_FILENAME = 1u << 5,
	SET_FILE_PER_JOB = 1u << 6,
	SET_REPS = 1u << 7,
	SET_RAMP = 1u << 8,
	SET_NUMBER_IOS = 1u << 9,
	SET_IODEPTH = 1u << 10,
	SET_LOG_INTERVAL = 1u << 11,
	SET_LOOPS = 1u << 12,
	SET_OFFSET = 1u << 13,
	SET_SEED = 1u << 14,
};

#define BENCH_LOG_MIN_NS   100000000ull /* the main thread's tick */
#define BENCH_LOG_MAX_JOBS 1024u

/*
 * Block sizes of one direction (fio's bs=R,W, bsrange, bssplit): fixed
 * (n = 1, lo = hi), a range (lo..hi in multiples of the smallest size of
 * the run), or a split (len[i] with weight pct[i], cumulative in cum[]).
 */
#define BENCH_MAX_SPLIT	   64
#define BENCH_MAX_FILES	   64 /* files per job */
struct bench_bsdist {
	uint32_t lo, hi;
	unsigned int n;
	uint32_t len[BENCH_MAX_SPLIT];
	uint32_t cum[BENCH_MAX_SPLIT]; /* cumulative percent, last = 100 */
};

/* fio's random_distribution */
enum bench_dist_kind {
	DIST_RANDOM,
	DIST_ZIPF,
	DIST_PARETO,
	DIST_NORMAL,
	DIST_ZONED,	/* zoned:A/S%:...: S percent of the region */
	DIST_ZONED_ABS, /* zoned_abs:A/S:...: S bytes */
};

/*
 * fio's zoned distribution of one direction: zone i takes access[i]
 * percent of the I/Os (they sum to 100), spread evenly over its span:
 * end[i] is where it ends, cumulative, in percent of the job's region
 * (zoned, at most 100) or in bytes from its start (zoned_abs).
 */
#define BENCH_MAX_ZONES 64
struct bench_zones {
	unsigned int n;
	uint8_t access[BENCH_MAX_ZONES];
	uint64_t end[BENCH_MAX_ZONES];
};

/**
 * struct bench_opts - the parsed command line (strings point into argv
 * or into static tables, never allocated)
 */
struct bench_opts {
	const char *name;
	enum bench_workload workload;
	enum bench_rw rw;
	uint64_t bs;
	uint64_t size;
	unsigned int iodepth;
	unsigned int iodepth_first; /* job 0's depth when not 0 */
	unsigned int numjobs;
	unsigned int nconnect;
	unsigned int timeo_ds; /* --timeo (deciseconds), 0: the back-end's */
	int retrans;	       /* --retrans, -1: the back-end's */
	bool hard;	       /* --hard (--soft: the default) */
	bool zerocopy;	       /* --zerocopy: MSG_ZEROCOPY for large sends */
	enum bench_xprt_mode xprt_mode; /* --libxprt-mode */
	uint64_t runtime_ns;
	uint64_t ramp_ns;
	uint64_t number_ios;
	unsigned int rwmixread;
	const char *filename;
	const char *directory;
	bool verify;
	enum bench_fmt fmt;
	const char *output;
	enum bench_transport transport;
	uint32_t uid, gid;
	uint64_t seed;
	enum bench_eta eta;
	bool group_reporting;
	unsigned int repetitions;
	const char *preset;
	const char *log_file;	  /* --write_log */
	uint64_t log_interval_ns; /* --log_interval */
	bool log_per_job;	  /* --log_per_job */
	const char *hist_file;	  /* --write_hist */
	bool time_based;	  /* --time_based: loop until --runtime */
	bool norandommap;    /* --norandommap: offsets drawn with repeats */
	unsigned int rw_seq; /* rw=randX:N: a random offset every N I/Os */
	uint64_t rw_hole;    /* rw=read:SIZE: bytes skipped after each I/O */
	uint64_t rw_back;    /* rw=read:-SIZE: backwards, SIZE from each end */
	const char *lat_log, *bw_log, *iops_log, *hist_log; /* fio's logs */
	uint64_t log_avg_ns, log_hist_ns; /* --log_avg_msec, --log_hist_msec */
	bool per_job_logs;		  /* --per_job_logs (default 1) */
	bool log_offset;		  /* --log_offset: offsets in logs */
	struct bench_bsdist bsd[2];	  /* block sizes of reads, writes */
	bool varbs;		   /* not one fixed size: bsd[] is drawn */
	uint64_t bs_max;	   /* the largest I/O (bs is the smallest) */
	enum bench_dist_kind dist; /* --random_distribution */
	double dist_arg, dist_center;
	struct bench_zones zones[2]; /* zoned: reads, writes */
	unsigned int fsync_every;    /* --fsync: a sync every N writes */
	bool end_fsync;		     /* --end_fsync=1 */
	uint64_t rate_iops[2];	     /* --rate_iops: per job, reads, writes */
	uint64_t rate_bps[2];	     /* --rate: bytes/s, per job, R, W */
	uint64_t rate_min_bps[2];    /* --rate_min: bytes/s, R, W */
	uint64_t rate_iops_min[2];   /* --rate_iops_min */
	uint64_t ratecycle_ns;	     /* --ratecycle: their window */
	bool rate_poisson;	     /* --rate_process=poisson */
	uint64_t thinktime_ns;	     /* --thinktime */
	uint64_t startdelay_ns;	     /* --startdelay: wait before it all */
	bool no_create;	      /* --allow_file_create=0: files must exist */
	unsigned int nrfiles; /* files per job (nrfiles, --filename a:b) */
	char *filenames[BENCH_MAX_FILES]; /* --filename's list (a:b:c) */
	unsigned int nfilenames;
	uint64_t file_bytes;	    /* --size divided among a job's files */
	unsigned int loops;	    /* --loops: passes over the file */
	uint64_t offset;	    /* --offset: the jobs' region starts here */
	unsigned int offset_pct;    /* --offset=P%: P (0: absolute) */
	unsigned int size_pct;	    /* --size=P%: P of the file's size */
	uint64_t io_size;	    /* --io_size: bytes to move (0: size) */
	uint64_t filesize;	    /* --filesize: each file's size */
	uint64_t offset_inc;	    /* --offset_increment: per job */
	bool randrepeat;	    /* --randrepeat (default 1) */
	unsigned int kb_base;	    /* --kb_base */
	double pcts[BENCH_MAX_PCT]; /* --percentile_list */
	unsigned int npcts;
	unsigned int pct_prec;	     /* their decimals in the text report */
	unsigned int fmts;	     /* BENCH_FMT_BIT() of --output-format */
	uint64_t eta_newline_ns;     /* --eta-newline */
	uint64_t status_interval_ns; /* --status-interval */
	const char *description;
	bool stonewall, new_group; /* job files */
	unsigned int set;
};

/* the program's name in messages ("nfs3-bench"), set by bench_main() */
extern const char *bench_prog_name;

/* --rw's names, by enum bench_rw */
extern const char *const bench_rw_names[RW_NR];

/* bench_opts_defaults() - fio's defaults, and ours where fio has none */
void bench_opts_defaults(struct bench_opts *o);

const char *bench_rw_name(enum bench_rw rw);

/* inline: bench_draw() asks them per I/O */
static inline bool bench_rw_reads(enum bench_rw rw)
{
	return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RANDRW ||
	       rw == RW_RW;
}

static inline bool bench_rw_writes(enum bench_rw rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RANDRW ||
	       rw == RW_RW;
}

static inline bool bench_rw_random(enum bench_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

static inline bool bench_rw_meta(enum bench_rw rw)
{
	return rw == RW_NULL || rw == RW_GETATTR;
}

/* the directions a workload moves */
static inline void bench_rw_dirs(enum bench_rw rw, bool dirs[DIR_NR])
{
	dirs[DIR_OTHER] = bench_rw_meta(rw);
	dirs[DIR_READ] = bench_rw_reads(rw);
	dirs[DIR_WRITE] = bench_rw_writes(rw);
}

/* slots a job primes in a layout phase */
#define BENCH_LAYOUT_DEPTH 4u
bool bench_may_layout(const struct bench_opts *o);
bool bench_writes_data(const struct bench_opts *o);
bool bench_reads_after_write(const struct bench_opts *o);
void bench_region(const struct bench_opts *o, uint64_t real,
		  uint64_t *file_size, uint64_t *base);

uint64_t bench_region_blocks(const struct bench_opts *o, uint64_t len);
uint64_t bench_back_offset(const struct bench_opts *o, uint64_t len,
			   uint64_t i);

#endif /* BENCH_MODEL_H */
