/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's model (model.h): the options' defaults, the rw names and
 * the predicates on a parsed command line.  Calls no other file of bench/.
 */
#include <string.h>
#include <unistd.h>

#include "model.h"

const char *bench_prog_name = "bench";

const char *const bench_rw_names[RW_NR] = {
	[RW_READ] = "read",	    [RW_WRITE] = "write",
	[RW_RANDREAD] = "randread", [RW_RANDWRITE] = "randwrite",
	[RW_RANDRW] = "randrw",	    [RW_RW] = "rw",
	[RW_NULL] = "null",	    [RW_GETATTR] = "getattr",
};

const char *bench_rw_name(enum bench_rw rw)
{
	return rw < RW_NR ? bench_rw_names[rw] : "?";
}

void bench_opts_defaults(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->name = "job";
	o->workload = WL_FIO;
	o->rw = RW_READ;
	o->bs = 4096;
	o->bsd[0].lo = o->bsd[0].hi = 4096;
	o->bsd[1] = o->bsd[0];
	o->size = 64ull << 20;
	o->ratecycle_ns = 1000000000ull; /* fio's ratecycle=1000 (ms) */
	o->iodepth = 1;
	o->numjobs = 1;
	o->retrans = -1; /* the back-end's */
	o->nconnect = 1;
	o->rwmixread = 50;
	o->fmt = FMT_NORMAL;
	o->transport = BENCH_TRANSPORT_TCP;
	o->uid = (uint32_t)getuid();
	o->gid = (uint32_t)getgid();
	o->seed = 0x89; /* fio's default randseed: runs repeat by default */
	o->eta = ETA_AUTO;
	o->repetitions = 1;
	o->log_interval_ns = 1000000000ull;
	o->loops = 1;
	o->randrepeat = true;
	o->per_job_logs = true;
	o->nrfiles = 1;
	o->kb_base = 1024;
	o->pct_prec = 2; /* fio's default list: 99.99th */
	o->fmts = BENCH_FMT_BIT(FMT_NORMAL);
}

/**
 * bench_may_layout() - the workload may read a file before writing it, so
 * a missing or short file (or any file under --verify) is laid out first
 */
bool bench_may_layout(const struct bench_opts *o)
{
	if (bench_rw_meta(o->rw))
		return false;
	if (o->workload == WL_IOR)
		return o->rw == RW_READ;
	return bench_rw_reads(o->rw);
}

/** bench_writes_data() - the workload writes (its files are sized) */
bool bench_writes_data(const struct bench_opts *o)
{
	if (o->workload == WL_IOR)
		return o->rw != RW_READ;
	return bench_rw_writes(o->rw);
}

/**
 * bench_reads_after_write() - a measured read phase follows the writes
 * (then it verifies them and no separate verify pass is needed)
 */
bool bench_reads_after_write(const struct bench_opts *o)
{
	if (o->workload == WL_IOR)
		return o->rw == RW_RW;
	return bench_rw_reads(o->rw);
}

/* @pct percent of @n, without overflow */
static uint64_t pct_of(uint64_t n, unsigned int pct)
{
	return n / 100 * pct + n % 100 * pct / 100;
}

/**
 * bench_region() - the size of a job's file and where its I/O region
 * starts, fio's way
 * @real: the file's real size before the run (0 when it does not exist);
 *	read only with --size=P% or --offset=P%
 *
 * --offset N puts the --size bytes of I/O after N bytes (the file is
 * N + size long, as fio extends a file it creates); --offset P% starts
 * the I/O P% into the file's real size, aligned up to a block (0 for a
 * new file); --size P% is P% of the real size, capped where the file
 * ends, in whole blocks (may be 0: the caller refuses it).
 */
void bench_region(const struct bench_opts *o, uint64_t real,
		  uint64_t *file_size, uint64_t *base)
{
	uint64_t size = o->file_bytes ? o->file_bytes : o->size;

	*base = o->offset;
	if (o->offset_pct)
		*base = (pct_of(real, o->offset_pct) + o->bs - 1) / o->bs *
			o->bs;
	if (o->size_pct) {
		size = pct_of(real, o->size_pct);
		if (*base >= real)
			size = 0;
		else if (size > real - *base)
			size = real - *base;
		size = size / o->bs * o->bs;
	}
	*file_size = *base + size;
}

/**
 * bench_region_blocks() - the I/Os of one pass over a region of @len
 * bytes (fio's): @len / bs, or with rw=read:HOLE one every bs + HOLE
 * bytes, the last one ending at most at the region's end (with
 * rw=read:-BACK, len / bs: fio's backwards walk moves the region's size)
 */
uint64_t bench_region_blocks(const struct bench_opts *o, uint64_t len)
{
	if (!o->rw_hole || o->rw_back)
		return len / o->bs;
	return len < o->bs ? 0 : (len - o->bs) / (o->bs + o->rw_hole) + 1;
}

/**
 * bench_back_offset() - the offset of the @i-th I/O of a pass over a
 * region of @len bytes with fio's rw=read:-BACK (io_u.c,
 * get_next_seq_offset()): the first at 0, each next one BACK before the
 * end of the one before; from below 0 it wraps to BACK before the
 * region's end.  (read:-8k, bs 4k, 64k: 0, 56k, 52k ... 4k, 0.)
 * Needs BACK > bs.
 */
uint64_t bench_back_offset(const struct bench_opts *o, uint64_t len, uint64_t i)
{
	uint64_t top = len - o->rw_back, step = o->rw_back - o->bs;

	if (!i)
		return 0;
	return top - (i - 1) % (top / step + 1) * step;
}
