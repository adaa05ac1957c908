/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bench engine internals shared by its .c files (not for back-ends).
 *
 * Who touches what:
 *   main thread   parses, sets up, opens jobs, then for each phase fills
 *                 the phase and per-job parameters, starts one thread per
 *                 job, prints progress, joins; reports at the end
 *   job thread    primes its slots, resubmits handed-off slots (may
 *                 block in submit), stops at the end time, drains
 *   completions   (back-end threads) bench_io_done(): record, verify,
 *                 draw, resubmit NOWAIT, or hand off / go idle
 * Per-phase fields are written by the main thread before the job threads
 * are created and read-only until they are joined (thread creation and
 * joining order them).  Fields marked "hot" are shared atomics.
 */
#ifndef BENCH_ENGINE_INT_H
#define BENCH_ENGINE_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

#include "dist.h"
#include "engine.h"
#include "hist.h"

#define BENCH_CACHELINE 64
#define bench_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

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
	unsigned int numjobs;
	unsigned int nconnect;
	unsigned int timeo_ds; /* --timeo (deciseconds), 0: the back-end's */
	int retrans;	       /* --retrans, -1: the back-end's */
	bool hard;	       /* --hard (--soft: the default) */
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
	bool norandommap; /* --norandommap: offsets drawn with repeats */
	const char *lat_log, *bw_log, *iops_log, *hist_log; /* fio's logs */
	uint64_t log_avg_ns, log_hist_ns; /* --log_avg_msec, --log_hist_msec */
	bool per_job_logs;		  /* --per_job_logs (default 1) */
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
	uint64_t thinktime_ns;	     /* --thinktime */
	bool no_create;	      /* --allow_file_create=0: files must exist */
	unsigned int nrfiles; /* files per job (nrfiles, --filename a:b) */
	char *filenames[BENCH_MAX_FILES]; /* --filename's list (a:b:c) */
	unsigned int nfilenames;
	uint64_t file_bytes;	    /* --size divided among a job's files */
	unsigned int loops;	    /* --loops: passes over the file */
	uint64_t offset;	    /* --offset: the jobs' region starts here */
	unsigned int offset_pct;    /* --offset=P%: P (0: absolute) */
	bool randrepeat;	    /* --randrepeat (default 1) */
	unsigned int kb_base;	    /* --kb_base */
	double pcts[BENCH_MAX_PCT]; /* --percentile_list */
	unsigned int npcts;
	unsigned int fmts;	     /* BENCH_FMT_BIT() of --output-format */
	uint64_t eta_newline_ns;     /* --eta-newline */
	uint64_t status_interval_ns; /* --status-interval */
	const char *description;
	bool stonewall, new_group; /* job files */
	unsigned int set;
};

enum bench_phase_kind {
	PH_LAYOUT, /* write files whole before a reading workload */
	PH_MAIN,   /* the measured workload (fio) or one ior access */
	PH_VERIFY, /* read back everything written and check it */
};

/**
 * struct bench_phase - what the jobs do now
 * @rw: the generator (layout: sequential write, verify: sequential read)
 * @measured: completions count in the report
 * @depth: slots primed per job
 * @t_start: when the phase started
 * @t_measure: completions before this are ramp (not counted)
 * @t_end: completions after this are not counted and jobs stop
 *	(UINT64_MAX for a phase bounded by size or op count)
 * @ior_rep: repetition number of an ior phase, or -1
 */
struct bench_phase {
	enum bench_phase_kind kind;
	const char *label;
	enum bench_rw rw;
	bool measured;
	unsigned int depth;
	uint64_t t_start, t_measure, t_end;
	int ior_rep;
};

/*
 * Per-block state of a verified file: 0 = contents unknown; otherwise the
 * tag of the last completed write (writer job << 16 | generation, gen >=
 * 1).  BLK_BUSY marks a block with an I/O in flight, so no two I/Os ever
 * overlap on a verified block and the expected contents are always known.
 */
#define BLK_BUSY 0x80000000u

struct bench_file {
	char *name;
	uint64_t size;	  /* the file's size: --offset + the region */
	uint64_t base;	  /* where the jobs' region starts (--offset) */
	uint32_t bs;	  /* block size of the region */
	uint64_t nblocks; /* blocks of the region */
	_Atomic uint32_t *state;
	unsigned int nusers;
	unsigned int layout_job;
	bool need_layout;
};

struct bench_job;

/*
 * Samples of a rate (fio's bw and iops logs' statistics): the main thread
 * takes one per job and direction every BENCH_SAMPLE_NS of measured time.
 */
#define BENCH_SAMPLE_NS 500000000ull /* fio's bwavgtime/iopsavgtime */

struct bench_samp {
	uint64_t n;
	double sum, sumsq, min, max;
};

/**
 * struct bench_slot - an I/O slot: the back-end's bench_io plus engine
 * state; the back-end's private area follows at io.priv
 */
/*
 * One pass's permutation (bench_perm()), its constants derived from the
 * key once: a slot keeps the one of its last draw, and only a new pass
 * (or file) derives them again.
 */
struct bench_perm {
	uint64_t n, key; /* what the constants are for (n = 0: none) */
	uint64_t mask, m1, a1, m2, a2;
	unsigned int s1, s2;
};

struct bench_slot {
	struct bench_io io;
	struct bench_job *job;
	struct bench_slot *next; /* hand-off list */
	uint64_t blk;		 /* verify: claimed block, or UINT64_MAX */
	uint64_t not_before;	 /* rate_iops/thinktime: submit at (ns) */
	uint32_t old_state;	 /* verify: the block's state when claimed */
	uint32_t new_state;	 /* verify: what a successful write leaves */
	void *buf;		 /* bs-sized buffer of the measured workload */
	void *lbuf;		 /* layout-sized buffer (layout phase) */
	struct bench_perm perm;	 /* random workloads: the current pass's */
};

struct bench_job_err {
	int status;
	enum bench_op op;
	uint64_t offset;
	uint32_t len;
	const char *what;
	/* verify mismatches */
	uint64_t bad_off;
	uint8_t expected, got;
	uint32_t tag;
};

struct bench_job {
	struct bench_job_info info;
	struct bench *b;
	struct bench_file *file;
	/* several files (nrfiles, --filename a:b): file k is jfiles[k] with
	 * bench_job_info k (0: info, else xinfo[k - 1]) */
	unsigned int nfiles;
	struct bench_file **jfiles;
	struct bench_job_info *xinfo;
	unsigned int file_rank; /* among the jobs sharing the file */
	char name[64];
	unsigned int gid;  /* global job number: rank * numjobs + index */
	unsigned int rank; /* the rank that ran it */
	bool remote;	   /* merged from another rank: report fields only */

	char *slots_mem;
	size_t slot_stride;
	unsigned int nslots;
	void *bufs;
	size_t bufs_len;
	pthread_t thread;
	bool thread_started;
	bool opened;
	unsigned int nopened; /* files opened, in order */

	/* per phase, set before the job thread starts */
	uint64_t budget;
	uint64_t blk_lo, blk_hi;
	uint32_t io_len;
	uint64_t key;

	/* hot */
	_Atomic uint64_t next_idx __attribute__((aligned(BENCH_CACHELINE)));
	_Atomic uint64_t seq_pos;      /* varbs sequential: next offset */
	_Atomic uint64_t issued;       /* varbs: bytes drawn this phase */
	uint64_t byte_budget;	       /* varbs: 0 = none */
	_Atomic uint64_t wcount;       /* --fsync: writes drawn */
	_Atomic uint64_t sync_due;     /* --fsync: syncs to issue */
	_Atomic uint64_t rate_next[2]; /* --rate_iops: next I/O's time */
	_Atomic(struct bench_slot *) delayed; /* waiting for their time */
	bool paced; /* rate_iops or thinktime in this phase */
	_Atomic int active;
	_Atomic bool stop;
	_Atomic(struct bench_slot *) deferred;
	_Atomic uint32_t wake;
	_Atomic uint64_t t_drained;
	_Atomic uint64_t handoffs;
	_Atomic uint64_t bytes[DIR_NR];
	_Atomic uint64_t nerrors;
	_Atomic uint64_t verify_errors;
	_Atomic bool err_claimed;
	struct bench_job_err err;

	/* statistics, kept across phases */
	struct bench_hist *hist[DIR_NR]
		__attribute__((aligned(BENCH_CACHELINE)));
	uint64_t elapsed_ns[DIR_NR];
	uint64_t verified_bytes;
	/* rate samples (main thread): bandwidth in KiB/s, IOPS */
	struct bench_samp sbw[DIR_NR], siops[DIR_NR];
	uint64_t s_bytes[DIR_NR], s_ops[DIR_NR];
	struct bench_flog_ring *flog; /* fio's per-I/O logs, or NULL */
};

struct bench_ior_result {
	uint64_t bytes;
	uint64_t ops;
	uint64_t elapsed_ns;
	double lat_mean_ns;
	bool done;
};

#define BENCH_MAX_KV	64
#define BENCH_MAX_GIVEN 128

struct bench_kv {
	char name[48];
	uint64_t value;
};

/**
 * struct bench_rankinfo - what the report says about one rank (rank 0's
 * table after a distributed run is merged)
 * @ops: measured operations of the rank's jobs (for CPU per operation)
 */
struct bench_rankinfo {
	char host[64];
	uint64_t usr_ns, sys_ns, wall_ns;
	uint64_t ops;
	int status;
	bool interrupted;
	bool merged;
};

struct bench_log;
struct bench_fiolog;
struct bench_flog_ring;

struct bench {
	const struct bench_backend_ops *ops;
	void *priv;
	const char *prog;
	struct bench_opts o;
	struct bench_config cfg;
	struct bench_limits lim;
	bool parsed;
	bool set_up;

	struct bench_file *files;
	unsigned int nfiles;
	struct bench_job *jobs;
	unsigned int njobs;
	size_t layout_bs;
	unsigned int layout_depth;

	struct bench_phase phase;
	_Atomic bool abort;
	_Atomic uint32_t jobs_running;
	int status;
	bool usage_error;
	bool interrupted;
	bool ran;
	bool started; /* a phase ran: there is something to report */

	/* distributed runs (dist.h): rank and size, 0 and 1 when alone */
	struct bench_dist *dist;
	unsigned int rank, nranks;
	struct bench_rankinfo *ranks; /* rank 0 after a merge, else NULL */

	/* the jobs reports show: the local ones, then merged remote ones */
	struct bench_job **rep;
	unsigned int nrep, rep_cap;

	/* measured CPU and wall time over all measured phases */
	bool measured_any;
	uint64_t usr_ns, sys_ns, wall_ns;
	struct rusage ru_mark;
	bool ru_marked;
	time_t start_time;

	struct bench_ior_result (*ior)[2]; /* [rep][read=0,write=1] */

	struct bench_kv kv[BENCH_MAX_KV];
	unsigned int nkv;

	/* fio's report: rate samples of all jobs together, the process's
	 * context switches and faults over the measured time, the options
	 * as given (fio's "job options") */
	struct bench_samp all_sbw[DIR_NR], all_siops[DIR_NR];
	uint64_t all_s_bytes[DIR_NR], all_s_ops[DIR_NR];
	uint64_t samp_last, samp_next;
	uint64_t ctx, majf, minf;
	struct {
		const char *name, *value;
	} given[BENCH_MAX_GIVEN];
	unsigned int ngiven;
	unsigned int groupid; /* fio's group (job files: stonewall...) */
	double zipf_zetan, zipf_eta, zipf_alpha; /* --random_distribution */
	bool no_outputs;	/* a job file section: the driver writes */
	bool parse_only;	/* --parse-only */
	char url_file[4096];	/* --filename\'s path from a URL */
	char fname_store[4096]; /* --filename a:b:c, split */

	/* progress */
	bool progress;
	FILE *progress_f;
	FILE *out;		     /* --output, opened at parse time */
	FILE *hist_out;		     /* --write_hist, opened at parse time */
	struct bench_log *log;	     /* --write_log */
	struct bench_fiolog *fiolog; /* fio's logs (fiolog.c) */
	unsigned int log_job_base;   /* job files: jobs of earlier sections */
	uint64_t prog_last_t;
	uint64_t prog_last_ops[DIR_NR], prog_last_bytes[DIR_NR];
	size_t prog_width;
	bool prog_tty;	       /* \r only on a terminal */
	uint64_t prog_nl_last; /* --eta-newline */
	uint64_t status_next;  /* --status-interval */
};

/* cli.c */
void bench_opts_defaults(struct bench_opts *o);
int bench_cli_parse(struct bench *b, int argc, char **argv);
unsigned int bench_cli_positionals(const struct bench_backend_ops *ops,
				   int argc, char **argv, int *pos,
				   unsigned int max);

/* url.c: --server and --filename URLs */
bool bench_url_is(const struct bench *b, const char *s);
int bench_url_apply(struct bench *b, const char *s, char *file, size_t len);

/* multi.c: a run of fio job files (their sections); 0 when argv names
 * none (then *handled is false) */
int bench_main_jobfiles(const struct bench_backend_ops *ops, int argc,
			char **argv, bool *handled);

/* cli.c: a fio option accepted with a note on how it is read (once) */
void bench_note(const char *opt, const char *value, const char *how);
void bench_notes_reset(void);

/* usage.c */
struct bench_preset {
	const char *name;
	const char *what;
	const char *args[8]; /* engine options, "--name=value", NULL-ended */
};

void bench_usage(struct bench *b, FILE *f);
const struct bench_preset *bench_find_preset(const char *name);
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
extern const char *bench_prog_name;

/* engine.c */
#define BENCH_LAYOUT_DEPTH 4u
bool bench_may_layout(const struct bench_opts *o);
void bench_region(const struct bench_opts *o, uint64_t *file_size,
		  uint64_t *base);
int bench_jobs_call(struct bench *b,
		    int (*hook)(void *priv, struct bench_job_info *job));
bool bench_writes_data(const struct bench_opts *o);
bool bench_reads_after_write(const struct bench_opts *o);

/* engine.c: --status-interval */
void bench_status_dump(struct bench *b, uint64_t now);

/* phase.c */
extern volatile sig_atomic_t bench_sigint;
void bench_samp_add(struct bench_samp *s, double v);
double bench_samp_mean(const struct bench_samp *s);
double bench_samp_dev(const struct bench_samp *s);
int bench_run_phases(struct bench *b);
void bench_stop_all(struct bench *b);

/* workload.c: op generation */
bool bench_draw(struct bench_job *j, struct bench_slot *s);
enum { BLK_DONE, BLK_FAILED, BLK_UNSENT };
void bench_release_block(struct bench_job *j, struct bench_slot *s, int how);
uint64_t bench_perm(uint64_t i, uint64_t n, uint64_t key);
void bench_perm_init(struct bench_perm *p, uint64_t n, uint64_t key);
uint64_t bench_perm_at(const struct bench_perm *p, uint64_t i);

/**
 * bench_zoned_block() - the block of a zoned draw
 * @z: the direction's zones
 * @abs: zoned_abs (ends in bytes) rather than zoned (in percent)
 * @u1, @u2: two uniform draws in [0, 1): the zone, the block within it
 * @nblk: blocks of the region; @bs: bytes per block (zoned_abs)
 *
 * As fio: the zone of the (u1 * 100)th access percent, then a block
 * uniformly inside it; a zone past the region's end is cut there, one
 * that would be empty gets one block.
 * Return: a block below @nblk.
 */
uint64_t bench_zoned_block(const struct bench_zones *z, bool abs, double u1,
			   double u2, uint64_t nblk, uint64_t bs);

/* a splitmix64-style finaliser: every input bit affects every output bit */
static inline uint64_t bench_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* job.c: the job thread and its helpers */
void *bench_job_thread(void *arg);
void bench_job_fail(struct bench_job *j, struct bench_slot *s, int status,
		    const char *what);
void bench_futex_wake(_Atomic uint32_t *w);
void bench_futex_wait(_Atomic uint32_t *w, uint32_t val, uint64_t timeout_ns);

/* verify.c: data patterns */
uint64_t bench_pattern_word(uint64_t off8, uint32_t tag);
long bench_pattern_check(const void *buf, uint64_t off, size_t len,
			 uint32_t tag, uint8_t *expected, uint8_t *got);

/* report.c */
int bench_report_normal(struct bench *b, FILE *f);
int bench_report_json(struct bench *b, FILE *f, bool plus);
int bench_report_json_multi(struct bench **bs, unsigned int n,
			    char *const *globals, unsigned int nglobals,
			    FILE *f, bool plus);
int bench_report_terse(struct bench *b, FILE *f);
unsigned int bench_report_pcts(const struct bench *b, const double **pcts);
int bench_report_hist(struct bench *b, FILE *f);
const char *bench_dir_name(enum bench_dir d);

/* units.c: fio's kb_base for bench_parse_size() (1024 or 1000) */
extern unsigned int bench_kb_base;

/* units.c: messages of ranks other than 0 */
extern int bench_msg_rank;  /* -1: alone; else prefixed "[rank N]" */
extern bool bench_mute;	    /* drop bench_error() (identical on rank 0) */
void bench_mute_push(void); /* mute messages for a while (nestable) */
void bench_mute_pop(void);

/* engine.c */
int bench_rep_add(struct bench *b, struct bench_job *j);
void bench_job_free(struct bench_job *j);

/* reduce.c: one rank's results, packed for rank 0 */
uint64_t bench_fingerprint(const struct bench_opts *o);
long bench_result_pack(struct bench *b, void *buf, size_t len);
int bench_result_merge(struct bench *b, const void *buf, size_t len);
void bench_rankinfo_local(struct bench *b, struct bench_rankinfo *ri);
int bench_ranks_init(struct bench *b);

/* dist.c: collectives with the engine's meaning (no-ops when alone) */
int bench_dist_agree(struct bench *b, int status);
bool bench_dist_any(struct bench *b, bool local);
int bench_dist_barrier(struct bench *b);
int bench_dist_collect(struct bench *b, int rc);
int bench_dist_max(struct bench *b, int v);

/* log.c: per-interval logs (--write_log) */
int bench_log_open(struct bench *b);
void bench_log_phase_start(struct bench *b);
void bench_log_tick(struct bench *b, uint64_t now);
void bench_log_phase_end(struct bench *b, uint64_t now);
uint64_t bench_log_next(const struct bench *b);
void bench_log_close(struct bench *b);
int bench_rank_path(char *out, size_t len, const char *path, unsigned int rank,
		    unsigned int nranks);

/* fiolog.c: fio's lat/bw/iops/hist logs */
int bench_fiolog_open(struct bench *b);
void bench_flog_record(struct bench_flog_ring *r, uint64_t t, uint64_t lat,
		       unsigned int dir, uint32_t len);
void bench_fiolog_phase_start(struct bench *b);
uint64_t bench_fiolog_next(const struct bench *b);
void bench_fiolog_tick(struct bench *b, uint64_t now);
void bench_fiolog_phase_end(struct bench *b, uint64_t now);
uint64_t bench_fiolog_dropped(const struct bench *b);
void bench_fiolog_close(struct bench *b);

/* progress.c */
void bench_progress_start(struct bench *b);
void bench_progress_tick(struct bench *b, uint64_t now);
void bench_progress_end(struct bench *b);

/** bench_job_finfo() - the bench_job_info of file @k of @j */
static inline struct bench_job_info *bench_job_finfo(struct bench_job *j,
						     unsigned int k)
{
	return k ? &j->xinfo[k - 1] : &j->info;
}

static inline enum bench_dir bench_op_dir(enum bench_op op)
{
	return op == BENCH_OP_READ  ? DIR_READ :
	       op == BENCH_OP_WRITE ? DIR_WRITE :
				      DIR_OTHER;
}

#endif /* BENCH_ENGINE_INT_H */
