/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bench engine internals shared by its .c files (not for back-ends).
 *
 * Who touches what:
 *   main thread   parses, sets up, opens jobs, then for each phase fills
 *                 the phase and per-job parameters, starts one thread per
 *                 job, prints progress, joins; reports at the end
 *   job thread    primes its slots, resubmits handed-off slots (may
 *                 block in submit), stops at the end time, drains; with
 *                 --libxprt-mode=caller it services its clients instead
 *                 of sleeping, and its completions run on it
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

#include "dist.h"
#include "engine.h"
#include "hist.h"
#include "logs.h"
#include "model.h"
#include "progress.h"
#include "reduce.h"
#include "status.h"

#define BENCH_CACHELINE 64
#define bench_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

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
	/* bench_draw()'s plain random draw: perm is the pass of the draws
	 * pass_lo .. pass_lo + nblocks - 1 of phase draw_gen */
	uint64_t pass_lo;
	uint32_t pass_gen;
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
	/* the plain random draw (bench_draw_plain_ok()): this phase's
	 * constants, and a number no earlier phase had (slots' pass_gen) */
	bool draw_plain;
	enum bench_op plain_op;
	uint32_t draw_gen;
	uint64_t plain_nblk;   /* blk_hi - blk_lo */
	uint64_t plain_base;   /* the offset of block blk_lo */
	uint64_t plain_stride; /* bytes from a block to the next */
	/* the plain completion (bench_io_done()): the plain draw or a
	 * metadata workload's (draw_meta), no pacing, no per-I/O log (and
	 * so no verify); plain_op's direction */
	bool draw_meta;
	bool plain;
	enum bench_dir plain_dir;

	/* hot */
	_Atomic uint64_t next_idx __attribute__((aligned(BENCH_CACHELINE)));
	_Atomic uint64_t seq_pos;      /* varbs sequential: next offset */
	_Atomic uint64_t dir_pos[2];   /* rw=rw: each direction's next block */
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
	/* --rate_min, --rate_iops_min (main thread): the last check */
	uint64_t rm_t, rm_bytes[DIR_NR], rm_ops[DIR_NR];
	struct bench_flog_ring *flog; /* fio's per-I/O logs, or NULL */
};

struct bench_log;
struct bench_fiolog;
struct bench_flog_ring;

/*
 * A run.  The engine's own state (engine.c, phase.c, cli.c) is here; each
 * part below it belongs to one module, declared in that module's header,
 * and the other files reach it only through that module's functions.
 */
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

	double zipf_zetan, zipf_eta, zipf_alpha; /* --random_distribution */
	bool no_outputs;	/* a job file section: the driver writes */
	bool parse_only;	/* --parse-only */
	char url_file[4096];	/* --filename\'s path from a URL */
	char fname_store[4096]; /* --filename a:b:c, split */

	struct bench_distinfo di;	/* dist.c (dist.h) */
	struct bench_report rpt;	/* reduce.c (reduce.h) */
	struct bench_progress progress; /* progress.c (progress.h) */
	struct bench_outputs outs;	/* status.c (status.h) */
	struct bench_logs logs;		/* log.c, fiolog.c, samp.c (logs.h) */
};

/* dist.c's part, read-only after bench_dist_join() */
static inline unsigned int bench_rank(const struct bench *b)
{
	return b->di.rank;
}

static inline unsigned int bench_nranks(const struct bench *b)
{
	return b->di.nranks;
}

/* a distributed run (rather than one process, alone) */
static inline bool bench_distributed(const struct bench *b)
{
	return b->di.dist != NULL;
}

/* cli.c */
int bench_cli_parse(struct bench *b, int argc, char **argv);
unsigned int bench_cli_positionals(const struct bench_backend_ops *ops,
				   int argc, char **argv, int *pos,
				   unsigned int max);

/* options.c: --server, --nfs_url and --filename URLs */
bool bench_url_is(const struct bench *b, const char *s);
int bench_url_apply(struct bench *b, const char *s, char *file, size_t len);

/* multi.c: a run of fio job files (their sections); 0 when argv names
 * none (then *handled is false) */
int bench_main_jobfiles(const struct bench_backend_ops *ops, int argc,
			char **argv, bool *handled);

/* options.c: a fio option accepted with a note on how it is read; cli.c:
 * each note once */
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

/* job.c: a back-end hook (job_end, job_sync) for every opened job */
int bench_jobs_call(struct bench *b,
		    int (*hook)(void *priv, struct bench_job_info *job));

/* phase.c */
extern atomic_int bench_sigint;
int bench_run_phases(struct bench *b);
void bench_stop_all(struct bench *b);

/* workload.c: op generation */
bool bench_draw_any(struct bench_job *j, struct bench_slot *s);
bool bench_draw_plain_ok(const struct bench *b, const struct bench_job *j);
void bench_draw_plain_setup(struct bench *b, struct bench_job *j);
uint64_t bench_draw_plain_pass(struct bench_slot *s, uint64_t idx);
enum { BLK_DONE, BLK_FAILED, BLK_UNSENT };
void bench_release_block(struct bench_job *j, struct bench_slot *s, int how);
uint64_t bench_perm(uint64_t i, uint64_t n, uint64_t key);
void bench_perm_init(struct bench_perm *p, uint64_t n, uint64_t key);

/**
 * bench_perm_at() - position @i (< p->n) of the permutation @p
 * Return: a value in [0, n); distinct i in [0, n) give distinct values.
 * Inline: the plain random draw asks it per I/O.
 */
static inline uint64_t bench_perm_round(const struct bench_perm *p, uint64_t x)
{
	x = (x * p->m1 + p->a1) & p->mask;
	x ^= x >> p->s1;
	x = (x * p->m2 + p->a2) & p->mask;
	x ^= x >> p->s2;
	return (x * p->m1 + p->a2) & p->mask;
}

uint64_t bench_perm_walk(const struct bench_perm *p, uint64_t x);

static inline uint64_t bench_perm_at(const struct bench_perm *p, uint64_t i)
{
	uint64_t x;

	if (p->n <= 1)
		return 0;
	/* a bijection of [0, mask]; walking the cycle until x < n makes it
	 * one of [0, n).  The first round inline, the walk out of line: no
	 * constants held in registers for a loop that a power-of-two n
	 * never runs, and that others run for fewer than half the draws */
	x = bench_perm_round(p, i);
	if (x >= p->n)
		x = bench_perm_walk(p, x);
	return x;
}

/* a metadata operation: nothing moved, no offset (draws of --rw null,
 * getattr and --fsync) */
static inline void bench_set_meta(struct bench_slot *s, enum bench_op op)
{
	s->io.op = op;
	s->io.offset = 0;
	s->io.len = 0;
	s->io.buf = NULL;
}

/* --rw null's operation, or getattr's */
static inline enum bench_op bench_meta_op(enum bench_rw rw)
{
	return rw == RW_NULL ? BENCH_OP_NULL : BENCH_OP_GETATTR;
}

/**
 * bench_draw_plain() - the plain random draw for slot @s of a job with
 * draw_plain set: the next index, its block from the slot's permutation
 * of the pass, the offset from constants of the phase; the same
 * operation bench_draw_any() would give for that index.  With draw_meta
 * instead (--rw null or getattr, no --fsync), the next index and the
 * metadata operation, as bench_draw_any() would give too.
 *
 * The job is read from @s again after a new pass: nothing but @s lives
 * across that call (a caller that keeps nothing else needs one
 * callee-saved register).
 * Context: as bench_draw().
 * Return: false when the phase's budget is used up.
 */
static inline bool bench_draw_plain(struct bench_slot *s)
{
	struct bench_job *j = s->job;
	uint64_t idx, r;

	idx = atomic_fetch_add_explicit(&j->next_idx, 1, memory_order_relaxed);
	if (idx >= j->budget)
		return false;
	if (j->draw_meta) {
		bench_set_meta(s, j->plain_op);
		return true;
	}
	r = idx - s->pass_lo;
	if (__builtin_expect(s->pass_gen != j->draw_gen || r >= j->plain_nblk,
			     0)) {
		r = bench_draw_plain_pass(s, idx);
		j = s->job;
	}
	s->io.op = j->plain_op;
	s->io.offset =
		j->plain_base + bench_perm_at(&s->perm, r) * j->plain_stride;
	s->io.len = j->io_len;
	s->io.buf = s->buf;
	return true;
}

/**
 * bench_draw() - give slot @s its next operation
 *
 * A job whose phase uses none of the options that shape a draw
 * (bench_draw_plain_ok(), decided once per phase) takes the plain random
 * draw, bench_draw_plain(); everything else goes to bench_draw_any().
 *
 * Context: any thread (completion or job thread), concurrently for other
 * slots of the same job.  Lock-free.
 * Return: false when the phase's budget is used up (the slot goes idle).
 */
static inline bool bench_draw(struct bench_job *j, struct bench_slot *s)
{
	if (!j->draw_plain)
		return bench_draw_any(j, s);
	return bench_draw_plain(s);
}

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
void bench_job_fail_rate(struct bench_job *j, enum bench_op op);
void bench_job_fail(struct bench_job *j, struct bench_slot *s, int status,
		    const char *what);
void bench_futex_wake(_Atomic uint32_t *w);
void bench_futex_wait(_Atomic uint32_t *w, uint32_t val, uint64_t timeout_ns);

/* verify.c: data patterns */
uint64_t bench_pattern_word(uint64_t off8, uint32_t tag);
long bench_pattern_check(const void *buf, uint64_t off, size_t len,
			 uint32_t tag, uint8_t *expected, uint8_t *got);

/* report.c */
int bench_report_normal(struct bench *b, FILE *f, bool head);
int bench_report_normal_multi(struct bench **bs, unsigned int n, FILE *f);
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
