/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bench engine: one engine, several protocol back-ends.
 *
 * nfs3-bench, p9-bench and mem-bench are the same program: a main() of
 * three lines hands a back-end ops table to bench_main().  The engine owns
 * everything a storage engineer compares between runs - the fio-style
 * command line, jobs and workloads (fio rw modes, ior-style repetitions,
 * layout and verification passes), the execution model, latency
 * histograms, the normal and JSON reports, the progress line, interval
 * logs (log.c), multi-process runs under MPI (dist.h) - so that a number
 * printed by nfs3-bench means the same as one printed by p9-bench.  A
 * back-end only knows how to open a file and start one asynchronous I/O;
 * under MPI each rank runs it as it would alone (job_info.index stays
 * 0 .. numjobs-1; file names carry the global job number).
 *
 * Execution model.  Each job owns iodepth I/O slots (struct bench_io plus
 * the back-end's per-I/O private area, and one buffer each), allocated
 * before the run: nothing is allocated per operation.  The job's thread
 * primes the slots; from then on every completion, on whatever thread the
 * back-end delivers it (a transport receive thread; with
 * --libxprt-mode=caller the job's own thread, inside job_service(),
 * which the job thread calls instead of sleeping), records the latency
 * into the job's histogram with atomic increments, draws the slot's next
 * operation and resubmits it with %BENCH_SUBMIT_NOWAIT.  Only when the
 * back-end answers -EBUSY (no request slot or buffer) is the slot handed to
 * the job's own
 * thread (a lock-free list and a futex wake), which may block in submit.
 * The job thread also ends the run (runtime), and drains: it waits until
 * no slot is in flight before the report is made.
 *
 * Adding a back-end (see mem_backend.c for a complete one):
 *   1. Define a struct bench_backend_ops with your options table and the
 *      hooks below; priv_size and io_priv_size reserve your per-run and
 *      per-I/O state, which the engine allocates (zeroed) for you.
 *   2. parse_option() stores the protocol flags (--server, --export...);
 *      check() rejects impossible combinations before anything connects.
 *   3. setup() connects (nconnect connections, mount/attach) and says how
 *      large one transfer may be; job_open() creates or opens the job's
 *      file; submit() starts one I/O and, on success, arranges exactly one
 *      bench_io_done() call for it; job_end() flushes what a job wrote;
 *      stats() prints transport counters; where() names the server-side
 *      place of the files for the engine's error hints.
 *   4. A main: int main(int c, char **v) { return bench_main(&ops, c, v); }
 *      and a Makefile line; the engine gives --help, the report and the
 *      exit status.
 */
#ifndef BENCH_ENGINE_H
#define BENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lx_url; /* libxprt/url.h */

/** enum bench_op - what one I/O does */
enum bench_op {
	BENCH_OP_READ,	  /* read len bytes at offset into buf */
	BENCH_OP_WRITE,	  /* write len bytes from buf at offset */
	BENCH_OP_NULL,	  /* a no-op round trip (NFS NULL procedure) */
	BENCH_OP_GETATTR, /* fetch the attributes of the job's file */
	BENCH_OP_FSYNC,	  /* make the job file's writes durable (fio's
			   * fsync=N; the NFS COMMIT) */
	BENCH_OP_NR,
};

#define BENCH_OP_BIT(op) (1u << (op))

enum bench_transport {
	BENCH_TRANSPORT_TCP,
	BENCH_TRANSPORT_RDMA,
};

/**
 * enum bench_xprt_mode - --libxprt-mode: who runs the back-end's clients
 * @BENCH_XPRT_THREADED: setup() makes clients shared by all jobs, run by
 *	libxprt's own threads; completions arrive on them
 * @BENCH_XPRT_CALLER: each job has clients of its own in libxprt's
 *	caller-driven mode (LX_XPRT_MODE_CALLER): no library thread; the
 *	job's thread services them (bench_backend_ops.job_service) and its
 *	completions run there
 */
enum bench_xprt_mode {
	BENCH_XPRT_THREADED,
	BENCH_XPRT_CALLER,
};

/**
 * struct bench_config - the common settings a back-end may need
 * @prog: program name, for messages
 * @transport: --transport
 * @nconnect: --nconnect, connections to open (>= 1)
 * @uid, @gid: --uid/--gid (default: the caller's)
 * @xprt_mode: --libxprt-mode; %BENCH_XPRT_CALLER only for a back-end
 *	with job_service (the engine refuses it otherwise)
 * @numjobs: jobs (each an owner of the fair transmit queue)
 * @job_inflight: the most I/Os one job will ever have in flight (size a
 *	job's own client from it in %BENCH_XPRT_CALLER mode)
 * @iodepth: I/Os in flight per job in the measured workload
 * @max_inflight: the most I/Os the engine will ever have in flight at once,
 *	over all jobs (size request slots and credits from it)
 * @bs: transfer size of the measured workload
 * @max_len: the largest single I/O the engine will submit (layout passes
 *	use larger writes than @bs, up to setup()'s @max_io)
 * @size: bytes per job file
 * @verify: data is checked: reads must return exactly what was written
 * @end_fsync: --end_fsync=1: a back-end whose writes are durable without a
 *	sync (9P) syncs each file in job_sync()/job_end() only then
 * @ops_used: BENCH_OP_BIT() mask of the operations the run will submit
 * @seed: --seed, for back-ends that randomise anything
 *
 * Read-only for the back-end; valid from check() until teardown().
 */
struct bench_config {
	const char *prog;
	enum bench_transport transport;
	unsigned int nconnect;
	unsigned int timeo_ds; /* --timeo, deciseconds; 0: the back-end's */
	int retrans;	       /* --retrans; -1: the back-end's */
	bool hard;	       /* --hard: retry for ever; default soft */
	bool zerocopy;	       /* --zerocopy: MSG_ZEROCOPY for large sends */
	enum bench_xprt_mode xprt_mode; /* --libxprt-mode */
	uint32_t uid, gid;
	unsigned int numjobs;
	unsigned int job_inflight; /* the most I/Os one job has in flight */
	unsigned int iodepth;
	unsigned int max_inflight;
	size_t bs;
	size_t max_len;
	uint64_t size;
	bool verify;
	bool end_fsync;
	unsigned int ops_used;
	uint64_t seed;
};

/**
 * struct bench_limits - what setup() reports back
 * @max_io: the largest transfer one I/O may carry (0 = no limit); the
 *	engine rejects a --bs above it with a clear message, and sizes its
 *	layout writes to it
 */
struct bench_limits {
	size_t max_io;
};

/* bench_job_info.open_flags */
#define BENCH_OPEN_CREATE 0x1u /* create the file when it does not exist */
#define BENCH_OPEN_WRITE  0x2u /* the job will write to it */
#define BENCH_OPEN_EXTEND 0x4u /* make it at least @size bytes (sparse) */
/* with WRITE: the only writes would lay the file out (a reading workload
 * that finds it short, or --verify); where writing is refused (a
 * read-only export) the back-end may open it for reading and set
 * bench_job_info.read_only */
#define BENCH_OPEN_LAYOUT 0x8u

/**
 * struct bench_job_info - one job as the back-end sees it
 * @index: 0 .. numjobs-1
 * @owner: fairness owner to pass to the transport (distinct per job,
 *	never 0, which the transport reads as "the calling thread")
 * @filename: the file's path relative to the back-end's root (export,
 *	aname), or NULL for workloads that need no file (--rw null)
 * @size: bytes of the file the job uses
 * @open_flags: %BENCH_OPEN_* flags
 * @shared: other jobs open the same @filename (--filename)
 * @buf_base, @buf_len: every buffer the job's I/Os will ever use lies in
 *	this page-aligned region, fixed for the whole run: register it once
 *	(RDMA) in job_open()
 * @file_size: set by job_open(): the file's size once opened; the engine
 *	lays the file out (writes it whole) when a reading workload finds it
 *	shorter than @size
 * @read_only: set by job_open() when it opened the file for reading only
 *	(%BENCH_OPEN_LAYOUT); the run then fails if the file needs a layout
 * @priv: the back-end's, e.g. the file handle or fid
 * @filenum: which of the job's files (fio's nrfiles, or a ':'-separated
 *	--filename): 0 .. files - 1; each file of a job has its own
 *	bench_job_info (same @index and @owner), and bench_io.job says
 *	which one an I/O goes to
 */
struct bench_job_info {
	unsigned int index;
	uint64_t owner;
	const char *filename;
	uint64_t size;
	unsigned int open_flags;
	bool shared;
	void *buf_base;
	size_t buf_len;
	uint64_t file_size;
	bool read_only;
	void *priv;
	unsigned int filenum;
};

/**
 * struct bench_io - one I/O slot; reused for the whole run
 * @op: what to do
 * @len: bytes to transfer (READ, WRITE)
 * @offset: file offset (READ, WRITE)
 * @buf: @len bytes inside the job's buffer region
 * @owner: the job's fairness owner (same as @job->owner)
 * @job: the job
 * @t_submit: CLOCK_MONOTONIC ns when the engine submitted it (read-only)
 * @priv: the back-end's per-I/O area (io_priv_size bytes, cache-line
 *	aligned, zeroed once before the run; it survives resubmission)
 *
 * The back-end may read every field between submit() and its
 * bench_io_done() call, and must not touch the slot afterwards: the
 * engine may already be resubmitting it on another thread.
 */
struct bench_io {
	enum bench_op op;
	uint32_t len;
	uint64_t offset;
	void *buf;
	uint64_t owner;
	struct bench_job_info *job;
	uint64_t t_submit;
	void *priv;
};

/* submit() flags */
#define BENCH_SUBMIT_NOWAIT 0x1u /* called from a completion: never block */

/**
 * struct bench_option - one back-end command-line option
 * @name: long name without the dashes ("server")
 * @arg: the argument's placeholder for --help ("HOST[:PORT]"), or NULL
 *	for a flag that takes none
 * @help: one line for --help
 * @id: passed back to parse_option()
 */
struct bench_option {
	const char *name;
	const char *arg;
	const char *help;
	int id;
};

/* stats() hands its counters one at a time to this function. */
typedef void (*bench_stat_fn)(void *arg, const char *name, uint64_t value);

/**
 * struct bench_backend_ops - a protocol back-end
 * @name: "nfs3", "p9", "mem" (reports, messages)
 * @summary: one line under the usage line of --help
 * @priv_size: bytes of per-run private state (zeroed), passed as @priv
 * @io_priv_size: bytes of private state per I/O slot (bench_io.priv)
 * @ops_supported: BENCH_OP_BIT() mask; the engine refuses other --rw
 * @options: back-end options, terminated by an entry with a NULL name;
 *	their names must not clash with the engine's
 * @usage_extra: optional text printed after the back-end options (notes,
 *	examples), or NULL
 *
 * @init: optional; set defaults in @priv before the command line is
 *	parsed.  Return 0 or a negative errno (the program exits 1).
 * @parse_option: store option @id with argument @arg (NULL for flags).
 *	Return 0, or -EINVAL after printing why with bench_error() (the
 *	program exits 2).  Helpers: bench_parse_size(), bench_parse_u64(),
 *	bench_parse_time().
 * @check: optional; reject missing or contradictory back-end options
 *	(and engine settings this back-end cannot honour) before setup().
 *	Return 0 or -EINVAL after bench_error() (exit 2).
 * @setup: connect, mount or attach; open @cfg->nconnect connections
 *	shared by all jobs (in %BENCH_XPRT_CALLER mode: a client for the
 *	main thread's own calls, stat() and job_open(), made caller-driven
 *	too); fill @lim.  Called once, from the main thread, may block.
 *	Return 0 or a negative errno after bench_error() (exit 1); on
 *	failure nothing else is called but @destroy.
 * @stat: optional; the size of @filename (relative to the root, as
 *	job_open() gets it) in @size, without creating or opening it: fio's
 *	--size=P% and --offset=P% are percentages of a file's real size.
 *	Called from the main thread after setup() and before any job_open(),
 *	once per file, may block.  Return 0; -ENOENT when it does not exist
 *	(the engine then says what fio says); another negative errno.
 *	Without it the engine refuses percentages of a file's size.
 * @job_open: create/open @job->filename according to @job->open_flags,
 *	set @job->file_size and @job->priv.  Called from the main thread
 *	once per job, in index order, may block; jobs with @shared set open
 *	the same file.  Return 0 or a negative errno after bench_error().
 *	In %BENCH_XPRT_CALLER mode job_open() of a job's first file
 *	(@filenum 0; called for --rw null too, with no file) also makes
 *	the job's own caller-driven clients, with @cfg->nconnect
 *	connections each; the job's I/O goes through them only.  They are
 *	made on the main thread and handed over: each phase's job thread
 *	becomes their owner by servicing them (job_service()); the main
 *	thread may call on them again between phases (job_sync(),
 *	job_end(), job_close()), never while a job thread runs.
 * @job_service: %BENCH_XPRT_CALLER mode only (required for it): service
 *	the clients of @job (its first file's bench_job_info) on the
 *	calling thread, the job's thread, until at least one I/O completed
 *	or the CLOCK_MONOTONIC time @deadline_ns; bench_io_done() runs
 *	inside this call, on this thread.  I/Os submitted by the job's
 *	thread outside it go out in it.  It may return earlier, with no
 *	completion (a timer or a queued call woke it): the engine calls
 *	it again.  Return the completions (0 or more), -ETIMEDOUT at the
 *	deadline, or another negative errno (the job fails).
 * @submit: start @io.  With %BENCH_SUBMIT_NOWAIT (completion context) it
 *	must not block.  Return 0, and then bench_io_done() will be called
 *	exactly once for @io, on any thread but never from inside this
 *	submit() call; or -EBUSY when out of request slots or buffers (the
 *	engine retries from the job's thread without NOWAIT; -EAGAIN is an
 *	error like any other: NFS3ERR_JUKEBOX);
 *	or another negative errno for a hard failure (the job stops; no
 *	completion).  Called concurrently from many threads; in
 *	%BENCH_XPRT_CALLER mode only from the I/O's job thread (its
 *	completions included).
 * @run_sync: optional; do @io to its end on the calling thread and put
 *	its outcome in @status (0 or a negative errno) and @bytes, the way
 *	a completion reports it.  The engine uses it instead of @submit
 *	when a job runs one I/O at a time (--iodepth 1, not paced), from
 *	the job's thread, which may block: a synchronous call costs the
 *	transport fewer system calls than a completion on another thread
 *	(a 9P Tread: sendmsg + recv instead of sendmsg + epoll_wait +
 *	recv).  Return 0 when @io is done, or -EAGAIN when this I/O needs
 *	@submit (split, a lost session...): the engine then submits it and
 *	leaves the synchronous loop for the job.
 * @job_end: optional; the job's I/O for the run is over (every phase
 *	done, nothing in flight): make what it wrote durable, e.g. the NFS
 *	COMMIT of unstable writes, outside the measured time.  Called from
 *	the main thread once per opened job, in index order, before
 *	stats(); not after an I/O error or an interrupt.  May block.
 *	Return 0 or a negative errno after bench_error() (the run fails,
 *	exit 1; the report is still printed).
 * @job_sync: optional; a phase that wrote is over and its data may be
 *	read back next (by the verify pass, an ior read phase or the next
 *	run): make it durable, and when the server lost some of it (an NFS
 *	write-verifier change after a restart) write it again, e.g. from
 *	bench_job_known_blocks().  Same context and return as @job_end;
 *	called after every phase that wrote, before the next phase starts.
 * @job_close: optional; release what job_open() took.  Nothing is in
 *	flight.  Called even when the run failed.
 * @stats: optional; report counters (transport stats) for the report:
 *	call @fn once per counter.  Called after the last I/O, before
 *	job_close().
 * @where: optional; where the jobs' files live on the server, e.g.
 *	"host:/export", named in the hint the engine prints after an I/O
 *	error whose cause is on the server's side (full, read-only, refused,
 *	removed).  Called from the main thread after the run.
 * @explain: optional; after the engine reported a failed I/O (@err its
 *	errno), the back-end's word about it: what the transports saw, the
 *	option to change (--timeo, --hard...).  Main thread, after the run.
 * @url_scheme: optional; "nfs", "9p": the URL scheme this back-end reads
 *	(with @url)
 * @url: store the server of @u (parsed and checked by lx_url_parse(),
 *	libxprt/url.h), a --server URL (@file NULL) or a --filename URL:
 *	then also write into @file (@len bytes) the file's path relative to
 *	the back-end's root (export, aname; lx_url_split()).  The engine has
 *	applied the arguments that are its own options (uid, gid, transport,
 *	nconnect, timeo, retrans, hard, soft, zerocopy); take the others
 *	you can, refuse by name those you cannot.  Return 0 or -EINVAL after
 *	bench_error().
 * @teardown: optional; disconnect; undo setup().  Nothing is in flight.
 * @destroy: optional; free what init()/parse_option() allocated.  Always
 *	called last, also after a parse error.
 */
struct bench_backend_ops {
	const char *name;
	const char *summary;
	size_t priv_size;
	size_t io_priv_size;
	unsigned int ops_supported;
	const struct bench_option *options;
	const char *usage_extra;

	int (*init)(void *priv);
	int (*parse_option)(void *priv, int id, const char *arg);
	int (*check)(void *priv, const struct bench_config *cfg);
	int (*setup)(void *priv, const struct bench_config *cfg,
		     struct bench_limits *lim);
	int (*stat)(void *priv, const char *filename, uint64_t *size);
	int (*job_open)(void *priv, struct bench_job_info *job);
	int (*submit)(void *priv, struct bench_io *io, unsigned int flags);
	int (*job_service)(void *priv, struct bench_job_info *job,
			   uint64_t deadline_ns);
	int (*run_sync)(void *priv, struct bench_io *io, int *status,
			size_t *bytes);
	int (*job_end)(void *priv, struct bench_job_info *job);
	int (*job_sync)(void *priv, struct bench_job_info *job);
	void (*job_close)(void *priv, struct bench_job_info *job);
	void (*stats)(void *priv, bench_stat_fn fn, void *arg);
	const char *(*where)(void *priv);
	void (*explain)(void *priv, int err);
	const char *url_scheme;
	int (*url)(void *priv, struct lx_url *u, char *file, size_t len);
	void (*teardown)(void *priv);
	void (*destroy)(void *priv);
};

/**
 * bench_block_fn - one block of a verified file with known contents
 * @offset, @len: where it lies in the file
 * @tag: the tag of the write that left it: bench_pattern_fill(buf,
 *	@offset, @len, @tag) gives its bytes again
 * Return: 0 to go on, or a value that stops the walk and is returned.
 */
typedef int (*bench_block_fn)(void *arg, uint64_t offset, uint32_t len,
			      uint32_t tag);

/**
 * bench_job_known_blocks() - walk the blocks of @job's file whose
 * contents the run knows (--verify), in file order
 *
 * A back-end uses it to write again what a restarted server lost.  For a
 * file shared by several jobs every job walks the whole file.
 * Context: the main thread, from job_sync()/job_end() (nothing in flight).
 * Return: 0; %-ENODATA when the run does not verify (contents unknown);
 * the first non-zero value of @fn.
 */
int bench_job_known_blocks(struct bench_job_info *job, bench_block_fn fn,
			   void *arg);

/**
 * bench_pattern_fill() - the bytes [@off, @off + @len) of a verified file
 * as the write tagged @tag left them, into @buf
 * Context: any thread; never fails.
 */
void bench_pattern_fill(void *buf, uint64_t off, size_t len, uint32_t tag);

/**
 * bench_io_done() - a back-end reports the outcome of an I/O
 * @io: the I/O passed to submit()
 * @status: 0, or a negative errno (the job stops and the run fails)
 * @bytes: bytes transferred; anything but io->len for a READ or WRITE
 *	counts as a short transfer (an error)
 *
 * Records the latency, verifies read data when --verify is on, and starts
 * the slot's next I/O with %BENCH_SUBMIT_NOWAIT.  Never blocks, never
 * allocates.  Context: any thread, typically the transport's receive
 * thread; not from inside submit() for the same I/O.
 */
void bench_io_done(struct bench_io *io, int status, size_t bytes);

/**
 * bench_io_done_at() - bench_io_done() with the completion time given
 * @t_done_ns: CLOCK_MONOTONIC ns when the I/O completed, e.g. when its
 *	reply was received before being processed (not before t_submit)
 */
void bench_io_done_at(struct bench_io *io, int status, size_t bytes,
		      uint64_t t_done_ns);

/**
 * bench_main() - the whole program: parse, run, report
 * @ops: the back-end
 *
 * Return: the process exit status: 0 on success (and for --help), 1 when
 * the run failed (connection, I/O error, verification mismatch,
 * interrupted), 2 for a command-line error.
 */
int bench_main(const struct bench_backend_ops *ops, int argc, char **argv);

/**
 * bench_error() - print "prog: message" on stderr (no newline needed)
 *
 * Context: the main thread (parse_option, check, setup, job_open...);
 * never from a completion, which must not block on a terminal.
 */
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * bench_interrupted() - has the run been interrupted (SIGINT, SIGTERM)?
 *
 * For a back-end's own waits (a backoff before re-establishing a
 * session): they end early when this turns true.  Any thread.
 */
bool bench_interrupted(void);

/**
 * bench_xprt_log() - a libxprt log hook (lx_xprt_log_fn, @arg unused):
 * "prog: server HOST:PORT not responding, still trying" on stderr, one
 * write per line
 *
 * Context: library threads (receive threads, transmit workers); the lines
 * are rare (one per episode) and written whole with one write().
 */
void bench_xprt_log(void *arg, int level, const char *msg);

/**
 * bench_url_file() - the file a --filename URL names, below the back-end's
 * root
 * @u: the URL given to bench_backend_ops.url
 * @root: the export or aname when known (--export, --aname, a --server
 *	URL), else NULL: the root is the path up to its last '/'
 * @file: receives the file's path below the root (@len bytes)
 *
 * Calls lx_url_split(): afterwards lx_url_nfs3_opts() and lx_url_p9_opts()
 * give the root as the export or aname.
 * Return: 0; -EINVAL after bench_error() (not under @root, no file, too
 * long); -ENOMEM.
 */
int bench_url_file(struct lx_url *u, const char *root, char *file, size_t len);

/**
 * bench_parse_size() - parse a size the fio way
 * @s: digits with an optional suffix k, m, g, t, p (case-insensitive,
 *	optionally followed by "b" or "ib"), all powers of 1024: "4k" = 4096
 * @out: the value
 *
 * Return: 0; -EINVAL for an empty string, a sign, trailing garbage or an
 * unknown suffix; -ERANGE when it does not fit in 64 bits.
 */
int bench_parse_size(const char *s, uint64_t *out);

/**
 * bench_parse_u64() - parse a decimal (or 0x hex) integer in [0, @max]
 * Return: 0; -EINVAL for a malformed number; -ERANGE above @max.
 */
int bench_parse_u64(const char *s, uint64_t max, uint64_t *out);

/**
 * bench_parse_time() - parse a duration into nanoseconds
 * @s: a number with an optional unit: ns, us, ms, s (the default), m, h
 *
 * Return: 0; -EINVAL; -ERANGE.
 */
int bench_parse_time(const char *s, uint64_t *out_ns);

/**
 * bench_now_ns() - CLOCK_MONOTONIC in nanoseconds
 * Inline: every completion reads the clock once.
 * Context: any thread.
 * Return: the time in ns since an arbitrary start.
 */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The pieces of bench_main(), for tests and for tools that drive the engine
 * themselves.  (bench_main() alone joins an MPI job when started by
 * mpirun; these pieces always run alone.)
 */
struct bench;

/**
 * bench_create() - a run with back-end @ops, not parsed yet
 * Return: the run, or NULL (out of memory, or @ops incomplete: name,
 * parse_option when options exist, job_open and submit are required).
 */
struct bench *bench_create(const struct bench_backend_ops *ops);

/* bench_parse() results besides 0 (run) and negative errors */
#define BENCH_PARSE_EXIT 1 /* --help or --version printed: exit 0 */

/**
 * bench_parse() - parse the command line (engine and back-end options)
 * Also opens (truncates) the --output file, so a run cannot end unable to
 * write its report.
 * Return: 0 (ready to run); %BENCH_PARSE_EXIT; -EINVAL for a usage error
 * (reported on stderr already), including an --output that cannot be
 * opened.
 */
int bench_parse(struct bench *b, int argc, char **argv);

/**
 * bench_run() - set the back-end up, run every phase, tear down
 * Return: 0; -EINVAL for a combination found impossible only now (bs
 * above the back-end's max_io...), -EIO (I/O errors), -EILSEQ (verify
 * mismatch), -EINTR (interrupted), or the back-end's setup error.  The
 * report is still available after I/O and verify errors.
 */
int bench_run(struct bench *b);

/**
 * bench_report() - print the report in the format chosen (--output-format)
 * to @f (or, when @f is NULL, to the --output file opened by bench_parse(),
 * or to stdout)
 * Return: 0; -EINVAL before a run started; -EIO or another negative errno
 * when writing failed.
 */
int bench_report(struct bench *b, FILE *f);

/** bench_backend_priv() - the back-end's private state of @b */
void *bench_backend_priv(struct bench *b);

/** bench_destroy() - free @b (calls the back-end's destroy()); NULL ok */
void bench_destroy(struct bench *b);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_ENGINE_H */
