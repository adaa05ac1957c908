/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One rank's results in a portable byte form, and rank 0's merge of them:
 * the reduction of a distributed run, kept free of MPI so that it is
 * tested by packing one run and merging it into another in one process.
 *
 * What travels is what the report reads - per job the three latency
 * histograms (hist.c's sparse serialised form, a few hundred bytes for a
 * typical run), bytes, measured time, counters and first error; per rank
 * its CPU time, back-end counters, ior phase results and status - never
 * derived numbers.  Rank 0 appends the remote jobs to the jobs it reports
 * and the report then computes everything as for one run: the aggregate
 * merges histograms bucket by bucket (percentiles are never averaged),
 * sums bytes and takes the longest measured time per direction.  Back-end
 * counters are summed by name (minima and maxima excepted, see
 * kv_combine()); an ior phase's bytes and operations are
 * summed and its time is the slowest rank's (the ranks started together
 * at a barrier, so that is the phase's time from the first start to the
 * last finish, as ior measures it).
 *
 * The form (little-endian, versioned):
 *   "BRES" u16 version u16 DIR_NR u32 rank u32 njobs u64 fingerprint
 *   i32 status u8 interrupted u8 reserved[3] u64 usr_ns sys_ns wall_ns
 *   str host, u32 nkv {str name u64 value}, u32 nrep {2 x ior result},
 *   njobs x job
 * where str is u16 length + bytes (0xffff = absent) and a job is
 *   u32 gid, u64 owner, str name, str filename, u64 bytes[3] elapsed[3]
 *   handoffs nerrors verify_errors verified_bytes, u8 has_err [error],
 *   3 x (u32 length + serialised histogram).
 * The fingerprint hashes the workload options: a rank started with a
 * different command line (MPMD launch) is refused rather than averaged in.
 *
 * Merging validates the whole buffer before it changes anything: a
 * truncated or foreign buffer is -EINVAL with the report untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"

#define RES_MAGIC   0x53455242u /* "BRES" little-endian */
#define RES_VERSION 1u
#define STR_NONE    0xffffu

struct wbuf {
	uint8_t *p;
	size_t len, off;
};

static void put(struct wbuf *w, const void *src, size_t n)
{
	if (w->p && w->off + n <= w->len)
		memcpy(w->p + w->off, src, n);
	w->off += n;
}

static void put_le(struct wbuf *w, uint64_t v, unsigned int n)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, n);
}

static void put_str(struct wbuf *w, const char *s)
{
	size_t n;

	if (!s) {
		put_le(w, STR_NONE, 2);
		return;
	}
	n = strnlen(s, STR_NONE - 1);
	put_le(w, n, 2);
	put(w, s, n);
}

static void put_dbl(struct wbuf *w, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	put_le(w, u, 8);
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static const uint8_t *take(struct rbuf *r, size_t n)
{
	const uint8_t *at;

	if (r->bad || n > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	at = r->p + r->off;
	r->off += n;
	return at;
}

static uint64_t get_le(struct rbuf *r, unsigned int n)
{
	const uint8_t *b = take(r, n);
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; b && i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* A string into @out (NUL-terminated); *@absent for the NULL marker. */
static void get_str(struct rbuf *r, char *out, size_t size, bool *absent)
{
	uint64_t n = get_le(r, 2);
	const uint8_t *s;

	if (absent)
		*absent = n == STR_NONE;
	if (n == STR_NONE) {
		if (!absent)
			r->bad = true;
		out[0] = '\0';
		return;
	}
	s = take(r, (size_t)n);
	if (!s || n >= size) {
		r->bad = true;
		out[0] = '\0';
		return;
	}
	memcpy(out, s, (size_t)n);
	out[n] = '\0';
}

static double get_dbl(struct rbuf *r)
{
	uint64_t u = get_le(r, 8);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/**
 * bench_fingerprint() - a hash of the options every rank must share
 * (what is measured and how; not file names or output options)
 */
uint64_t bench_fingerprint(const struct bench_opts *o)
{
	const uint64_t v[] = {
		o->workload,	    o->rw,	  o->bs,	  o->size,
		o->iodepth,	    o->numjobs,	  o->runtime_ns,  o->ramp_ns,
		o->number_ios,	    o->rwmixread, o->repetitions, o->verify,
		o->filename != NULL};
	uint64_t h = 0x6c69627870727462ull;
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = bench_mix64(h ^ v[i]);
	return h;
}

static uint64_t ld(const _Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static uint64_t job_ops(const struct bench_job *j)
{
	return bench_hist_count(j->hist[DIR_READ]) +
	       bench_hist_count(j->hist[DIR_WRITE]) +
	       bench_hist_count(j->hist[DIR_OTHER]);
}

/**
 * bench_rankinfo_local() - this process's line of the rank table
 */
void bench_rankinfo_local(struct bench *b, struct bench_rankinfo *ri)
{
	unsigned int i;

	memset(ri, 0, sizeof(*ri));
	if (gethostname(ri->host, sizeof(ri->host) - 1))
		snprintf(ri->host, sizeof(ri->host), "?");
	ri->usr_ns = b->rpt.usr_ns;
	ri->sys_ns = b->rpt.sys_ns;
	ri->wall_ns = b->rpt.wall_ns;
	for (i = 0; i < b->njobs; i++)
		ri->ops += job_ops(&b->jobs[i]);
	ri->status = b->status;
	ri->interrupted = b->interrupted;
	ri->merged = true;
}

/**
 * bench_ranks_init() - start the rank table of a merged report with this
 * rank's own line (the others are filled as they are merged)
 * Return: 0 (also when it exists already); -ENOMEM.
 */
int bench_ranks_init(struct bench *b)
{
	if (b->rpt.ranks)
		return 0;
	b->rpt.ranks = calloc(bench_nranks(b), sizeof(*b->rpt.ranks));
	if (!b->rpt.ranks)
		return -ENOMEM;
	bench_rankinfo_local(b, &b->rpt.ranks[bench_rank(b)]);
	return 0;
}

static void pack_job(struct wbuf *w, const struct bench_job *j)
{
	const struct bench_job_err *e = &j->err;
	bool has_err = atomic_load(&j->err_claimed);
	unsigned int d;
	long n;

	put_le(w, j->gid, 4);
	put_le(w, j->info.owner, 8);
	put_str(w, j->name);
	put_str(w, j->info.filename);
	for (d = 0; d < DIR_NR; d++)
		put_le(w, ld(&j->bytes[d]), 8);
	for (d = 0; d < DIR_NR; d++)
		put_le(w, j->elapsed_ns[d], 8);
	put_le(w, ld(&j->handoffs), 8);
	put_le(w, ld(&j->nerrors), 8);
	put_le(w, ld(&j->verify_errors), 8);
	put_le(w, j->verified_bytes, 8);
	put_le(w, has_err, 1);
	if (has_err) {
		put_le(w, (uint32_t)e->status, 4);
		put_le(w, e->op, 1);
		put_le(w, e->offset, 8);
		put_le(w, e->len, 4);
		put_str(w, e->what);
		put_le(w, e->bad_off, 8);
		put_le(w, e->expected, 1);
		put_le(w, e->got, 1);
		put_le(w, e->tag, 4);
	}
	for (d = 0; d < DIR_NR; d++) {
		n = bench_hist_serialize(j->hist[d], NULL, 0);
		put_le(w, (uint64_t)n, 4);
		if (w->p && w->off + (size_t)n <= w->len)
			bench_hist_serialize(j->hist[d], w->p + w->off,
					     (size_t)n);
		w->off += (size_t)n;
	}
}

/**
 * bench_result_pack() - this rank's results in the portable form
 * @buf: destination, or NULL to learn the size
 * @len: bytes at @buf
 *
 * Context: the main thread, after bench_run() (nothing in flight).
 * Return: bytes written (or needed when @buf is NULL); -ENOSPC when @len
 * is too small; -EINVAL before a run.
 */
long bench_result_pack(struct bench *b, void *buf, size_t len)
{
	struct bench_rankinfo ri;
	struct wbuf w = {.p = buf, .len = len};
	unsigned int i, r, d, nrep;

	if (!b || !b->ran)
		return -EINVAL;
	bench_rankinfo_local(b, &ri);
	put_le(&w, RES_MAGIC, 4);
	put_le(&w, RES_VERSION, 2);
	put_le(&w, DIR_NR, 2);
	put_le(&w, bench_rank(b), 4);
	put_le(&w, b->njobs, 4);
	put_le(&w, bench_fingerprint(&b->o), 8);
	put_le(&w, (uint32_t)b->status, 4);
	put_le(&w, b->interrupted, 1);
	put_le(&w, 0, 3);
	put_le(&w, b->rpt.usr_ns, 8);
	put_le(&w, b->rpt.sys_ns, 8);
	put_le(&w, b->rpt.wall_ns, 8);
	put_str(&w, ri.host);
	put_le(&w, b->rpt.nkv, 4);
	for (i = 0; i < b->rpt.nkv; i++) {
		put_str(&w, b->rpt.kv[i].name);
		put_le(&w, b->rpt.kv[i].value, 8);
	}
	nrep = b->rpt.ior ? b->o.repetitions : 0;
	put_le(&w, nrep, 4);
	for (r = 0; r < nrep; r++)
		for (d = 0; d < 2; d++) {
			const struct bench_ior_result *x = &b->rpt.ior[r][d];

			put_le(&w, x->done, 1);
			put_le(&w, x->bytes, 8);
			put_le(&w, x->ops, 8);
			put_le(&w, x->elapsed_ns, 8);
			put_dbl(&w, x->lat_mean_ns);
		}
	for (i = 0; i < b->njobs; i++)
		pack_job(&w, &b->jobs[i]);
	if (buf && w.off > len)
		return -ENOSPC;
	return (long)w.off;
}

/* what a remote job needs beyond struct bench_job */
struct rjob {
	struct bench_job j;
	char what[48];
};

static void rjob_free(struct rjob *rj)
{
	if (!rj)
		return;
	bench_job_free(&rj->j);
	free(rj);
}

static struct rjob *unpack_job(struct rbuf *r, unsigned int rank)
{
	struct rjob *rj = calloc(1, sizeof(*rj));
	struct bench_job *j;
	struct bench_job_err *e;
	char fname[4096];
	bool absent;
	unsigned int d;

	if (!rj)
		return NULL;
	j = &rj->j;
	e = &j->err;
	j->remote = true;
	j->rank = rank;
	j->gid = (unsigned int)get_le(r, 4);
	j->info.index = j->gid;
	j->info.owner = get_le(r, 8);
	get_str(r, j->name, sizeof(j->name), NULL);
	get_str(r, fname, sizeof(fname), &absent);
	if (!absent && !r->bad) {
		j->info.filename = strdup(fname);
		if (!j->info.filename)
			goto out_free;
	}
	for (d = 0; d < DIR_NR; d++)
		atomic_store(&j->bytes[d], get_le(r, 8));
	for (d = 0; d < DIR_NR; d++)
		j->elapsed_ns[d] = get_le(r, 8);
	atomic_store(&j->handoffs, get_le(r, 8));
	atomic_store(&j->nerrors, get_le(r, 8));
	atomic_store(&j->verify_errors, get_le(r, 8));
	j->verified_bytes = get_le(r, 8);
	if (get_le(r, 1)) {
		atomic_store(&j->err_claimed, true);
		e->status = (int32_t)(uint32_t)get_le(r, 4);
		e->op = (enum bench_op)get_le(r, 1);
		e->offset = get_le(r, 8);
		e->len = (uint32_t)get_le(r, 4);
		get_str(r, rj->what, sizeof(rj->what), NULL);
		e->what = rj->what;
		e->bad_off = get_le(r, 8);
		e->expected = (uint8_t)get_le(r, 1);
		e->got = (uint8_t)get_le(r, 1);
		e->tag = (uint32_t)get_le(r, 4);
		if (e->op >= BENCH_OP_NR || e->status >= 0)
			r->bad = true;
	}
	for (d = 0; d < DIR_NR && !r->bad; d++) {
		size_t n = (size_t)get_le(r, 4);
		const uint8_t *h = take(r, n);

		j->hist[d] = malloc(sizeof(struct bench_hist));
		if (!j->hist[d])
			goto out_free;
		if (!h || bench_hist_deserialize(j->hist[d], h, n))
			r->bad = true;
	}
	if (r->bad)
		goto out_free;
	return rj;

out_free:
	r->bad = true;
	rjob_free(rj);
	return NULL;
}

/*
 * Back-end counters of several ranks: totals add up; a name ending in
 * "_min" keeps the smallest and one containing "max" the largest (a
 * high-water mark of one process does not add to another's).
 */
static uint64_t kv_combine(const char *name, uint64_t a, uint64_t b)
{
	size_t n = strlen(name);

	if (n >= 4 && !strcmp(name + n - 4, "_min"))
		return a < b ? a : b;
	if (strstr(name, "max"))
		return a > b ? a : b;
	return a + b;
}

static int kv_merge(struct bench *b, const struct bench_kv *kv, unsigned int n)
{
	unsigned int i, k, add = 0;

	/* first count the new names: all or nothing */
	for (i = 0; i < n; i++) {
		for (k = 0; k < b->rpt.nkv; k++)
			if (!strcmp(b->rpt.kv[k].name, kv[i].name))
				break;
		add += k == b->rpt.nkv;
	}
	if (b->rpt.nkv + add > BENCH_MAX_KV)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		for (k = 0; k < b->rpt.nkv; k++)
			if (!strcmp(b->rpt.kv[k].name, kv[i].name))
				break;
		if (k == b->rpt.nkv)
			b->rpt.kv[b->rpt.nkv++] = kv[i];
		else
			b->rpt.kv[k].value = kv_combine(
				kv[i].name, b->rpt.kv[k].value, kv[i].value);
	}
	return 0;
}

/**
 * bench_result_merge() - add another rank's packed results to @b's report
 * @buf, @len: what bench_result_pack() produced on that rank
 *
 * The rank's jobs join the report after those already there; its CPU
 * time, back-end counters, ior results and status are combined with
 * @b's (see the top of this file).
 * Context: the main thread of rank 0, after bench_run().
 * Return: 0; -EINVAL for a malformed or foreign buffer, a rank outside
 * 1..nranks-1 or already merged, or different workload options
 * (nothing changed then); -ENOMEM.
 */
int bench_result_merge(struct bench *b, const void *buf, size_t len)
{
	struct rbuf r = {.p = buf, .len = buf ? len : 0};
	struct bench_kv *kv = NULL;
	struct bench_ior_result(*ior)[2] = NULL;
	struct bench_rankinfo ri;
	struct rjob **jobs = NULL;
	unsigned int rank, njobs, nkv, nrep, i, d;
	int ret = -EINVAL;

	if (!b || !b->ran || !buf)
		return -EINVAL;
	memset(&ri, 0, sizeof(ri));
	if (get_le(&r, 4) != RES_MAGIC || get_le(&r, 2) != RES_VERSION ||
	    get_le(&r, 2) != DIR_NR)
		return -EINVAL;
	rank = (unsigned int)get_le(&r, 4);
	njobs = (unsigned int)get_le(&r, 4);
	if (r.bad || rank >= bench_nranks(b) || rank == bench_rank(b) ||
	    (b->rpt.ranks && b->rpt.ranks[rank].merged) ||
	    njobs != b->o.numjobs || get_le(&r, 8) != bench_fingerprint(&b->o))
		return -EINVAL;
	ri.status = (int32_t)(uint32_t)get_le(&r, 4);
	ri.interrupted = get_le(&r, 1) != 0;
	get_le(&r, 3);
	ri.usr_ns = get_le(&r, 8);
	ri.sys_ns = get_le(&r, 8);
	ri.wall_ns = get_le(&r, 8);
	get_str(&r, ri.host, sizeof(ri.host), NULL);
	nkv = (unsigned int)get_le(&r, 4);
	if (r.bad || ri.status > 0 || nkv > BENCH_MAX_KV)
		return -EINVAL;
	kv = calloc(nkv ? nkv : 1, sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (i = 0; i < nkv; i++) {
		get_str(&r, kv[i].name, sizeof(kv[i].name), NULL);
		kv[i].value = get_le(&r, 8);
	}
	nrep = (unsigned int)get_le(&r, 4);
	if (r.bad || nrep != (b->rpt.ior ? b->o.repetitions : 0))
		goto out_free;
	ior = calloc(nrep ? nrep : 1, sizeof(*ior));
	jobs = calloc(njobs ? njobs : 1, sizeof(*jobs));
	if (!ior || !jobs) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < nrep; i++)
		for (d = 0; d < 2; d++) {
			ior[i][d].done = get_le(&r, 1) != 0;
			ior[i][d].bytes = get_le(&r, 8);
			ior[i][d].ops = get_le(&r, 8);
			ior[i][d].elapsed_ns = get_le(&r, 8);
			ior[i][d].lat_mean_ns = get_dbl(&r);
		}
	for (i = 0; i < njobs && !r.bad; i++) {
		jobs[i] = unpack_job(&r, rank);
		if (jobs[i])
			ri.ops += job_ops(&jobs[i]->j);
	}
	if (r.bad || r.off != r.len)
		goto out_free;
	ret = bench_ranks_init(b);
	if (ret)
		goto out_free;
	/* everything is valid: commit */
	ret = kv_merge(b, kv, nkv);
	if (ret)
		goto out_free;
	for (i = 0; i < njobs; i++) {
		ret = bench_rep_add(b, &jobs[i]->j);
		if (ret) { /* the earlier ones are the report's now */
			for (; i < njobs; i++)
				rjob_free(jobs[i]);
			free(jobs);
			jobs = NULL;
			goto out_free;
		}
	}
	for (i = 0; i < nrep; i++)
		for (d = 0; d < 2; d++) {
			struct bench_ior_result *x = &b->rpt.ior[i][d];
			const struct bench_ior_result *y = &ior[i][d];
			uint64_t ops = x->ops + y->ops;

			if (!y->done)
				continue;
			x->lat_mean_ns =
				ops ? (x->lat_mean_ns * (double)x->ops +
				       y->lat_mean_ns * (double)y->ops) /
						(double)ops :
				      0;
			x->bytes += y->bytes;
			x->ops = ops;
			if (y->elapsed_ns > x->elapsed_ns)
				x->elapsed_ns = y->elapsed_ns;
			x->done = true;
		}
	b->rpt.usr_ns += ri.usr_ns;
	b->rpt.sys_ns += ri.sys_ns;
	if (ri.wall_ns > b->rpt.wall_ns)
		b->rpt.wall_ns = ri.wall_ns;
	if (!b->status && ri.status)
		b->status = ri.status;
	b->interrupted |= ri.interrupted;
	ri.merged = true;
	b->rpt.ranks[rank] = ri;
	free(jobs);
	free(ior);
	free(kv);
	return 0;

out_free:
	for (i = 0; jobs && i < njobs; i++)
		rjob_free(jobs[i]);
	free(jobs);
	free(ior);
	free(kv);
	return ret;
}

/**
 * bench_rep_add() - append @j to the jobs the report shows
 * Return: 0 or -ENOMEM.
 */
int bench_rep_add(struct bench *b, struct bench_job *j)
{
	struct bench_job **r;
	unsigned int cap;

	if (b->rpt.njobs == b->rpt.cap) {
		cap = b->rpt.cap ? 2 * b->rpt.cap : 16;
		r = realloc(b->rpt.jobs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		b->rpt.jobs = r;
		b->rpt.cap = cap;
	}
	b->rpt.jobs[b->rpt.njobs++] = j;
	return 0;
}

/** bench_job_free() - free what a job allocated (not the job itself) */
void bench_job_free(struct bench_job *j)
{
	unsigned int d;

	for (d = 0; d < DIR_NR; d++)
		free(j->hist[d]);
	free(j->bufs);
	free(j->slots_mem);
	free(j->jfiles);
	free(j->xinfo);
	if (j->remote)
		free((char *)j->info.filename);
}

/**
 * bench_report_free() - free the report's jobs merged from other ranks,
 * its tables and ior's results (the local jobs are the engine's)
 */
void bench_report_free(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < b->rpt.njobs; i++)
		if (b->rpt.jobs[i]->remote) {
			bench_job_free(b->rpt.jobs[i]);
			free(b->rpt.jobs[i]);
		}
	free(b->rpt.jobs);
	free(b->rpt.ranks);
	free(b->rpt.ior);
}

/** bench_report_begin() - the run starts now (fio's "timestamp") */
void bench_report_begin(struct bench *b)
{
	b->rpt.start_time = time(NULL);
}

/** bench_ior_alloc() - room for ior's results; 0 or -ENOMEM */
int bench_ior_alloc(struct bench *b)
{
	b->rpt.ior = calloc(b->o.repetitions, sizeof(*b->rpt.ior));
	return b->rpt.ior ? 0 : -ENOMEM;
}

/** bench_ior_record() - the result of repetition @rep's phase @d */
void bench_ior_record(struct bench *b, int rep, enum bench_dir d,
		      const struct bench_ior_result *r)
{
	b->rpt.ior[rep][d] = *r;
}

/**
 * bench_kv_add() - a counter for the report (the back-end's stats hook's
 * callback, @arg the struct bench); beyond BENCH_MAX_KV they are dropped
 */
void bench_kv_add(void *arg, const char *name, uint64_t value)
{
	struct bench *b = arg;

	if (b->rpt.nkv >= BENCH_MAX_KV || !name)
		return;
	snprintf(b->rpt.kv[b->rpt.nkv].name, sizeof(b->rpt.kv[b->rpt.nkv].name),
		 "%s", name);
	b->rpt.kv[b->rpt.nkv].value = value;
	b->rpt.nkv++;
}

/*
 * bench_report_given() - an option for fio's "job options": a later
 * value replaces one given before (a job file's [global] by its section,
 * by the command line); @name and @val must outlive the report
 */
void bench_report_given(struct bench *b, const char *name, const char *val)
{
	unsigned int i;

	for (i = 0; i < b->rpt.ngiven; i++)
		if (!strcmp(b->rpt.given[i].name, name))
			break;
	if (i == b->rpt.ngiven) {
		if (b->rpt.ngiven == BENCH_MAX_GIVEN)
			return;
		b->rpt.ngiven++;
	}
	b->rpt.given[i].name = name;
	b->rpt.given[i].value = val ? val : "";
}

/** bench_report_group() - fio's group of the run (job file sections) */
void bench_report_group(struct bench *b, unsigned int groupid)
{
	b->rpt.groupid = groupid;
}

unsigned int bench_report_groupid(const struct bench *b)
{
	return b->rpt.groupid;
}

/** bench_cpu_marked() - the measured time has started (and not ended) */
bool bench_cpu_marked(const struct bench *b)
{
	return b->rpt.ru_marked;
}

/** bench_cpu_mark() - the measured time starts: take getrusage() */
void bench_cpu_mark(struct bench *b)
{
	getrusage(RUSAGE_SELF, &b->rpt.ru_mark);
	b->rpt.ru_marked = true;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000ull;
}

/**
 * bench_cpu_account() - the measured time ends: add its CPU time,
 * context switches and faults, and @wall_ns of wall time (nothing when
 * it never started)
 */
void bench_cpu_account(struct bench *b, uint64_t wall_ns)
{
	struct rusage now;
	const struct rusage *m = &b->rpt.ru_mark;

	if (!b->rpt.ru_marked)
		return;
	b->rpt.wall_ns += wall_ns;
	getrusage(RUSAGE_SELF, &now);
	b->rpt.ctx += (uint64_t)(now.ru_nvcsw - m->ru_nvcsw) +
		      (uint64_t)(now.ru_nivcsw - m->ru_nivcsw);
	b->rpt.majf += (uint64_t)(now.ru_majflt - m->ru_majflt);
	b->rpt.minf += (uint64_t)(now.ru_minflt - m->ru_minflt);
	b->rpt.usr_ns += tv_ns(&now.ru_utime) - tv_ns(&m->ru_utime);
	b->rpt.sys_ns += tv_ns(&now.ru_stime) - tv_ns(&m->ru_stime);
	b->rpt.ru_marked = false;
}

/**
 * bench_cpu_peek() - the CPU and wall times as if the measured time
 * ended now, @wall_ns after it started (--status-interval); the times
 * before go to @saved for bench_cpu_restore()
 */
void bench_cpu_peek(struct bench *b, uint64_t wall_ns, uint64_t saved[3])
{
	const struct rusage *m = &b->rpt.ru_mark;
	struct rusage ru;

	saved[0] = b->rpt.usr_ns;
	saved[1] = b->rpt.sys_ns;
	saved[2] = b->rpt.wall_ns;
	if (b->rpt.ru_marked && !getrusage(RUSAGE_SELF, &ru)) {
		b->rpt.usr_ns += tv_ns(&ru.ru_utime) - tv_ns(&m->ru_utime);
		b->rpt.sys_ns += tv_ns(&ru.ru_stime) - tv_ns(&m->ru_stime);
		b->rpt.wall_ns += wall_ns;
	}
}

/** bench_cpu_restore() - undo bench_cpu_peek() */
void bench_cpu_restore(struct bench *b, const uint64_t saved[3])
{
	b->rpt.usr_ns = saved[0];
	b->rpt.sys_ns = saved[1];
	b->rpt.wall_ns = saved[2];
}
