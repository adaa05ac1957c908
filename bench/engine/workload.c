/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload generation: which operation, offset and length a slot does next.
 *
 * Every job numbers its operations 0, 1, 2... with one atomic counter
 * (next_idx), and everything about operation i is a pure function of i:
 *   - its block: sequential workloads take i mod nblocks; random ones take
 *     a pseudo-random permutation of the blocks, a fresh one per pass
 *     (pass = i / nblocks), so every block is touched exactly once per
 *     pass the way fio's random map does, and "--runtime 0" means one
 *     pass, i.e. --size done once;
 *   - its direction in mixed workloads: hash(i) mod 100 < rwmixread.
 * Because of that, completions on any number of threads draw the next
 * operation with one fetch-and-add and no lock, and a run is repeatable
 * for a given seed.
 *
 * The permutation is a bijection on k-bit integers (2^k >= nblocks) built
 * from odd multiplications and xor-shifts, keyed by seed, job and pass,
 * restricted to [0, nblocks) by cycle walking (apply it again while the
 * result is out of range: fewer than two steps on average).
 *
 * With --verify each block of a verified file has a state word (see
 * BLK_BUSY): a draw claims the block with a compare-and-swap, so no two
 * I/Os overlap on it and the expected contents are always known; a block
 * that is busy when its turn comes (possible only across a pass boundary
 * or between jobs sharing a file) is skipped for this pass.
 */
#include <math.h>

#include "engine_int.h"

/**
 * bench_perm_init() - derive the constants of the keyed permutation of
 * [0, @n) for @key (what bench_perm() does per call)
 */
void bench_perm_init(struct bench_perm *p, uint64_t n, uint64_t key)
{
	unsigned int k = n > 1 ? 64u - (unsigned int)__builtin_clzll(n - 1) : 0;

	p->n = n;
	p->key = key;
	p->mask = k == 64 ? ~0ull : (1ull << k) - 1;
	p->m1 = bench_mix64(key) | 1;
	p->a1 = bench_mix64(key + 1);
	p->m2 = bench_mix64(key + 2) | 1;
	p->a2 = bench_mix64(key + 3);
	p->s1 = k / 2 + 1;
	p->s2 = (k + 1) / 3 + 1;
}

/**
 * bench_perm_walk() - bench_perm_at()'s cycle walk from @x (>= p->n)
 * Return: the first value of the cycle after @x that is below p->n.
 */
uint64_t bench_perm_walk(const struct bench_perm *p, uint64_t x)
{
	do
		x = bench_perm_round(p, x);
	while (x >= p->n);
	return x;
}

/**
 * bench_perm() - position @i of a keyed pseudo-random permutation of
 * [0, @n)
 * Return: a value in [0, n); distinct i in [0, n) give distinct values.
 */
uint64_t bench_perm(uint64_t i, uint64_t n, uint64_t key)
{
	struct bench_perm p;

	bench_perm_init(&p, n, key);
	return bench_perm_at(&p, i);
}

static uint32_t next_tag(uint32_t state, unsigned int writer)
{
	uint32_t gen = state & 0xffffu;

	gen = gen % 0xffffu + 1; /* 1..65535, never 0 (= unknown) */
	return (uint32_t)writer << 16 | gen;
}

static bool draw_meta(struct bench_job *j, struct bench_slot *s,
		      enum bench_rw rw)
{
	bench_set_meta(s, bench_meta_op(rw));
	return true;
}

static void draw_layout(struct bench_job *j, struct bench_slot *s, uint64_t idx)
{
	struct bench_file *f = j->file;
	uint64_t off, left, n;
	unsigned int k;

	/* the idx-th layout write among the files the job lays out */
	for (k = 0; k < j->nfiles; k++) {
		f = j->jfiles[k];
		if (!f->need_layout || f->layout_job != j->info.index)
			continue;
		n = (f->size + j->io_len - 1) / j->io_len;
		if (idx < n)
			break;
		idx -= n;
	}
	s->io.job = bench_job_finfo(j, k < j->nfiles ? k : 0);
	off = idx * j->io_len;
	left = f->size - off;
	s->io.op = BENCH_OP_WRITE;
	s->io.offset = off;
	s->io.len = left < j->io_len ? (uint32_t)left : j->io_len;
	s->io.buf = s->lbuf;
	if (f->state)
		bench_pattern_fill(s->lbuf, off, s->io.len,
				   next_tag(0, j->info.index));
}

/* a uniform double in [0, 1) from @h */
static double unit01(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* the length of an I/O of direction @dir (varbs), from hash @h */
static uint32_t draw_len(const struct bench_opts *o, unsigned int dir,
			 uint64_t h)
{
	const struct bench_bsdist *d = &o->bsd[dir];
	unsigned int i, p;
	uint64_t units;

	if (d->n) {
		p = (unsigned int)(h % 100);
		for (i = 0; i + 1 < d->n && p >= d->cum[i]; i++)
			;
		return d->len[i];
	}
	if (d->lo == d->hi)
		return d->lo;
	/* fio's bsrange: multiples of the smallest size, lo..hi */
	units = (d->hi - d->lo) / o->bs + 1;
	return d->lo + (uint32_t)((h / 100) % units) * (uint32_t)o->bs;
}

uint64_t bench_zoned_block(const struct bench_zones *z, bool abs, double u1,
			   double u2, uint64_t nblk, uint64_t bs)
{
	unsigned int pct = (unsigned int)(u1 * 100.0), acc = 0, i;
	uint64_t lo, hi, from = 0;

	for (i = 0; i + 1 < z->n; i++) {
		acc += z->access[i];
		if (pct < acc)
			break;
		from = z->end[i];
	}
	if (abs) {
		lo = from / bs;
		hi = (z->end[i] + bs - 1) / bs;
	} else {
		lo = from * nblk / 100;
		hi = z->end[i] * nblk / 100;
	}
	if (lo >= nblk)
		lo = nblk - 1;
	if (hi > nblk)
		hi = nblk;
	if (hi <= lo)
		hi = lo + 1;
	return lo + (uint64_t)(u2 * (double)(hi - lo));
}

/*
 * fio's random_distribution for draw @idx over @n blocks: the rank drawn
 * from zipf, pareto or normal, scattered by a hash (as fio does, so the
 * hot blocks are not all at the front) or, with a center, around it.
 */
static uint64_t dist_block(const struct bench *b, const struct bench_job *j,
			   uint64_t idx, uint64_t n, enum bench_op op)
{
	const struct bench_opts *o = &b->o;
	double u =
		unit01(bench_mix64(j->key ^ (idx + 1) * 0xa0761d6478bd642full));
	double v;
	uint64_t r;

	switch (o->dist) {
	case DIST_ZONED:
	case DIST_ZONED_ABS:
		/* fio's zones are where they are: no scattering */
		return bench_zoned_block(
			&o->zones[op == BENCH_OP_WRITE],
			o->dist == DIST_ZONED_ABS, u,
			unit01(bench_mix64(j->key +
					   idx * 0x9e3779b97f4a7c15ull)),
			n, j->io_len);
	case DIST_ZIPF: {
		/* Gray et al., "Quickly generating billion-record synthetic
		 * databases" (SIGMOD 1994), as fio's zipf */
		double uz = u * b->zipf_zetan;

		if (uz < 1.0)
			r = 0;
		else if (uz < 1.0 + pow(0.5, o->dist_arg))
			r = 1;
		else
			r = (uint64_t)((double)n *
				       pow(b->zipf_eta * u - b->zipf_eta + 1.0,
					   b->zipf_alpha));
		break;
	}
	case DIST_PARETO:
		/* fio's pareto: n * u^(log h / log(1 - h)) */
		r = (uint64_t)((double)(n - 1) *
			       pow(u,
				   log(o->dist_arg) / log(1.0 - o->dist_arg)));
		break;
	case DIST_NORMAL: {
		/* Box-Muller; the deviation is a percentage of the range */
		double u2 = unit01(
			bench_mix64(j->key + idx * 0x9e3779b97f4a7c15ull));
		double c = o->dist_center >= 0 ? o->dist_center : 0.5;

		v = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * u2);
		v = c * (double)n + v * (double)n * o->dist_arg / 100.0;
		if (v < 0)
			v = 0;
		r = (uint64_t)v;
		return r >= n ? n - 1 : r;
	}
	default:
		return (uint64_t)(u * (double)n);
	}
	if (r >= n)
		r = n - 1;
	if (o->dist_center >= 0) /* the hot end moved to the center */
		return (r + (uint64_t)(o->dist_center * (double)n)) % n;
	return bench_mix64(r ^ j->key) % n;
}

/* a pending --fsync, claimed by this slot */
static bool take_sync(struct bench_job *j, struct bench_slot *s)
{
	uint64_t due = atomic_load_explicit(&j->sync_due, memory_order_relaxed);

	while (due) {
		if (atomic_compare_exchange_weak_explicit(
			    &j->sync_due, &due, due - 1, memory_order_relaxed,
			    memory_order_relaxed)) {
			bench_set_meta(s, BENCH_OP_FSYNC);
			return true;
		}
	}
	return false;
}

/**
 * bench_draw_plain_ok() - may @j's draws in the current phase take the
 * plain random draw of bench_draw()?
 *
 * Yes for the measured phase of randread or randwrite over at most one
 * file with a uniform distribution, the random map, one block size and
 * no option that changes a draw's offset or adds operations (fsync,
 * randread:N, rw_back, verify's block states): then bench_draw_any()
 * takes none of its branches but the permutation, and the plain draw
 * computes the same operation from the same index.  Every option tested
 * by bench_draw_any() is either tested here or folded into the phase's
 * constants (--offset, offset_increment, the hole of rw=...:HOLE).
 * Context: the main thread, the phase and the job's fields set.
 */
bool bench_draw_plain_ok(const struct bench *b, const struct bench_job *j)
{
	const struct bench_phase *ph = &b->phase;
	const struct bench_opts *o = &b->o;
	const struct bench_file *f = j->file;

	return ph->kind == PH_MAIN && bench_rw_random(ph->rw) &&
	       ph->rw != RW_RANDRW && j->nfiles <= 1 &&
	       o->dist == DIST_RANDOM && !o->norandommap && o->rw_seq <= 1 &&
	       !o->varbs && !o->fsync_every && !(o->rw_back && f) &&
	       !(f && f->state) && j->blk_hi > j->blk_lo;
}

/**
 * bench_draw_plain_setup() - decide how @j draws in the phase about to
 * start, and derive the plain draw's constants
 * Context: the main thread, after the phase's job fields are set and
 * before the job's thread starts.
 */
void bench_draw_plain_setup(struct bench *b, struct bench_job *j)
{
	const struct bench_opts *o = &b->o;
	const struct bench_file *f = j->file;

	/* a slot's pass from an earlier phase never matches (0: none yet) */
	if (!++j->draw_gen)
		j->draw_gen = 1;
	j->draw_plain = bench_draw_plain_ok(b, j);
	/* bench_draw_any()'s first steps for a metadata workload */
	j->draw_meta = b->phase.kind == PH_MAIN && bench_rw_meta(b->phase.rw) &&
		       !o->fsync_every;
	/* the per-I/O log records in io_done() only; pacing is decided
	 * before (phase_prepare_job()) */
	j->plain = (j->draw_plain || j->draw_meta) && !j->paced && !j->flog;
	if (j->draw_meta) {
		j->plain_op = bench_meta_op(b->phase.rw);
		j->plain_dir = DIR_OTHER;
	}
	if (!j->draw_plain)
		return;
	j->plain_op =
		bench_rw_reads(b->phase.rw) ? BENCH_OP_READ : BENCH_OP_WRITE;
	j->plain_dir = bench_op_dir(j->plain_op);
	j->plain_nblk = j->blk_hi - j->blk_lo;
	j->plain_stride = j->io_len + o->rw_hole;
	j->plain_base = (f ? f->base : 0) + j->blk_lo * j->plain_stride;
	if (o->offset_inc && o->filename)
		j->plain_base += o->offset_inc * j->gid;
}

/**
 * bench_draw_plain_pass() - make @s's permutation the one of draw @idx's
 * pass (the plain draw, when @idx is past the slot's pass)
 * Context: the thread drawing for @s.
 * Return: @idx's position in the pass.
 */
uint64_t bench_draw_plain_pass(struct bench_slot *s, uint64_t idx)
{
	struct bench_job *j = s->job;
	uint64_t n = j->plain_nblk, pass = idx / n;
	/* bench_draw_any()'s key for the pass, with one file */
	uint64_t key = j->key ^ pass * 0x9e3779b97f4a7c15ull;

	if (s->perm.n != n || s->perm.key != key)
		bench_perm_init(&s->perm, n, key);
	s->pass_lo = pass * n;
	s->pass_gen = j->draw_gen;
	return idx - s->pass_lo;
}

/**
 * bench_draw_any() - give slot @s its next operation, whatever the
 * options (bench_draw() calls it for the draws that are not plain)
 *
 * Context: any thread (completion or job thread), concurrently for other
 * slots of the same job.  Lock-free.
 * Return: false when the phase's budget is used up (the slot goes idle).
 */
bool bench_draw_any(struct bench_job *j, struct bench_slot *s)
{
	const struct bench_phase *ph = &j->b->phase;
	struct bench_file *f = j->file;
	uint64_t nblk = j->blk_hi - j->blk_lo, idx, blk, r, tries = 0;
	enum bench_op op;
	uint32_t st;

	const struct bench_opts *o = &j->b->o;
	uint64_t key_mix = 0, fidx;
	uint32_t len;

	for (;;) {
		if (o->fsync_every && ph->kind == PH_MAIN && take_sync(j, s))
			return true;
		idx = atomic_fetch_add_explicit(&j->next_idx, 1,
						memory_order_relaxed);
		if (idx >= j->budget)
			return false;
		if (bench_rw_meta(ph->rw))
			return draw_meta(j, s, ph->rw);
		if (ph->kind == PH_LAYOUT) {
			draw_layout(j, s, idx);
			return true;
		}
		fidx = idx;
		if (j->nfiles > 1 && ph->kind == PH_MAIN) {
			/* fio's default file_service_type, roundrobin: the
			 * next file for every I/O; each file its own pass */
			unsigned int k = (unsigned int)(idx % j->nfiles);

			f = j->jfiles[k];
			s->io.job = bench_job_finfo(j, k);
			fidx = idx / j->nfiles;
			key_mix = k;
		}
		if (ph->rw == RW_RANDRW || ph->rw == RW_RW)
			op = bench_mix64(j->key + idx) % 100 <
					     j->b->o.rwmixread ?
				     BENCH_OP_READ :
				     BENCH_OP_WRITE;
		else
			op = bench_rw_reads(ph->rw) ? BENCH_OP_READ :
						      BENCH_OP_WRITE;
		r = fidx % nblk;
		/* fio's rw (sequential, mixed): reads and writes each walk
		 * the file on their own (fio keeps a position per
		 * direction), so both go 0, bs, 2 bs... */
		if (ph->rw == RW_RW && ph->kind == PH_MAIN && j->nfiles <= 1)
			r = atomic_fetch_add_explicit(
				    &j->dir_pos[op == BENCH_OP_WRITE], 1,
				    memory_order_relaxed) %
			    nblk;
		if (bench_rw_random(ph->rw) && o->dist != DIST_RANDOM &&
		    ph->kind == PH_MAIN)
			r = dist_block(j->b, j, idx, nblk, op);
		else if (bench_rw_random(ph->rw) && o->norandommap)
			/* fio's norandommap: every draw independent, blocks
			 * may repeat within a pass */
			r = bench_mix64(j->key ^
					(idx + 1) * 0xd1342543de82ef95ull) %
			    nblk;
		else if (bench_rw_random(ph->rw)) {
			uint64_t key =
				j->key ^ (fidx / nblk + key_mix * 0x10000) *
						 0x9e3779b97f4a7c15ull;

			if (s->perm.n != nblk || s->perm.key != key)
				bench_perm_init(&s->perm, nblk, key);
			if (o->rw_seq > 1) /* fio's randread:N: a random
					    * block, then N - 1 after it */
				r = (bench_perm_at(&s->perm, r / o->rw_seq) +
				     r % o->rw_seq) %
				    nblk;
			else
				r = bench_perm_at(&s->perm, r);
		}
		blk = j->blk_lo + r;
		s->io.op = op;
		len = j->io_len;
		if (o->varbs && ph->kind == PH_MAIN) {
			uint64_t h = bench_mix64(j->key ^ ~idx), end;

			len = draw_len(o, op == BENCH_OP_WRITE, h);
			if (!bench_rw_random(ph->rw))
				blk = j->blk_lo +
				      atomic_fetch_add_explicit(
					      &j->seq_pos, len,
					      memory_order_relaxed) /
					      j->io_len % nblk;
			/* an I/O ends at the region's end, as fio's */
			end = (j->blk_hi - blk) * j->io_len;
			if (len > end)
				len = (uint32_t)end;
			if (j->byte_budget &&
			    atomic_fetch_add_explicit(&j->issued, len,
						      memory_order_relaxed) >=
				    j->byte_budget)
				return false;
		}
		if (o->fsync_every && op == BENCH_OP_WRITE &&
		    ph->kind == PH_MAIN &&
		    (atomic_fetch_add_explicit(&j->wcount, 1,
					       memory_order_relaxed) +
		     1) % o->fsync_every ==
			    0)
			atomic_fetch_add_explicit(&j->sync_due, 1,
						  memory_order_relaxed);
		/* fio's rw=read:HOLE: every I/O HOLE bytes after the end
		 * of the one before */
		s->io.offset =
			(f ? f->base : 0) + blk * (j->io_len + o->rw_hole);
		/* a shared file's job regions (fio's offset_increment) */
		if (o->offset_inc && o->filename && ph->kind == PH_MAIN)
			s->io.offset += o->offset_inc * j->gid;
		if (o->rw_back && f && ph->kind == PH_MAIN)
			s->io.offset = bench_back_offset(o, f->size - f->base,
							 blk - j->blk_lo);
		s->io.len = len;
		s->io.buf = s->buf;
		if (!f || !f->state)
			return true;

		st = atomic_load_explicit(&f->state[blk], memory_order_acquire);
		if ((st & BLK_BUSY) || (ph->kind == PH_VERIFY && !st) ||
		    !atomic_compare_exchange_strong_explicit(
			    &f->state[blk], &st, st | BLK_BUSY,
			    memory_order_acquire, memory_order_relaxed)) {
			/* Out of blocks to claim: let the slot go idle rather
			 * than spin (only when more I/Os than blocks race). */
			if (++tries > nblk)
				return false;
			continue;
		}
		s->blk = blk;
		s->old_state = st;
		if (op == BENCH_OP_WRITE) {
			s->new_state = next_tag(st, j->info.index);
			bench_pattern_fill(s->buf, s->io.offset, s->io.len,
					   s->new_state);
		}
		return true;
	}
}

/**
 * bench_release_block() - end the slot's claim on its verified block
 * @how: %BLK_DONE (the I/O succeeded: a write leaves its new tag),
 *	%BLK_FAILED (it failed: a write leaves the contents unknown) or
 *	%BLK_UNSENT (it was never submitted: the state is restored)
 */
void bench_release_block(struct bench_job *j, struct bench_slot *s, int how)
{
	uint32_t v;

	if (s->blk == UINT64_MAX)
		return;
	v = s->old_state;
	if (s->io.op == BENCH_OP_WRITE && how == BLK_DONE)
		v = s->new_state;
	else if (s->io.op == BENCH_OP_WRITE && how == BLK_FAILED)
		v = 0;
	/* release: the data the write left (and the read's check) happen
	 * before the next claimer's I/O */
	atomic_store_explicit(&j->file->state[s->blk], v, memory_order_release);
	s->blk = UINT64_MAX;
}
