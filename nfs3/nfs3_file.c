// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Open files: split pread/pwrite and UNSTABLE writes that survive a
 * server restart.
 *
 * An UNSTABLE write is acknowledged before the server has it on stable
 * storage; the server proves it kept it by answering COMMIT with the same
 * write verifier it gave the WRITE.  A different verifier means it
 * restarted in between and may have lost the data, which the client must
 * then send again (RFC 1813 section 3.3.7 and 3.3.21).  So each file keeps
 * the ranges written UNSTABLE and not yet committed, each with the
 * verifier of the WRITE that acknowledged it, in a red-black tree of
 * non-overlapping ranges sorted by offset.  A newer write (stable or not)
 * cuts the part it overwrites out of older ranges: resending an old range
 * must never put stale bytes over newer ones.
 *
 * Where the bytes for a resend come from is the caller's choice, and the
 * memory cost with it:
 *   - a resupply callback (struct lx_nfs3_file_opts.resupply): the file keeps
 *     only the ranges, ~80 bytes per non-contiguous range (sequential
 *     writes with one verifier merge into one range);
 *   - by default, a copy of each unstable write, made after the server
 *     acknowledged it: memory = the uncommitted bytes (plus a range each),
 *     bounded by max_uncommitted, past which pwrite commits by itself.
 *
 * lx_nfs3_file_fsync(): COMMIT; drop the ranges whose verifier matches; if
 * any is left, the server lost them: write them again (UNSTABLE, as the
 * file writes) and COMMIT again, until a COMMIT matches everything (at
 * most 5 rounds, then -EIO).  A range whose resend saw two verifiers
 * (another restart during the resend) is marked to be sent again whatever
 * the next COMMIT says.
 *
 * Locking: pwrite calls share a read lock, fsync takes it for writing, so
 * no write races with a resend; the tree and counters have a mutex of
 * their own, held only for tree operations.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/sys/tree.h>

#include "nfs3_int.h"
#include "xprt/blocks/util.h"

#define FSYNC_ROUNDS	    5
#define DEF_MAX_UNCOMMITTED (64u << 20)

/* copy-mode data, shared by the pieces of a range that was cut in two */
struct lx_nfs3_blk {
	unsigned int ref;
	uint8_t data[];
};

struct lx_nfs3_range {
	RB_ENTRY(lx_nfs3_range) rb;
	uint64_t off, len;
	struct lx_nfs3_blk *blk;
	uint8_t *data; /* within blk->data, or NULL (resupply mode) */
	uint8_t verf[LX_NFS3_VERFSIZE];
	bool verf_ok; /* false: resend whatever COMMIT says */
	bool stable;  /* a resend made it stable: drop it */
};

static int range_cmp(const struct lx_nfs3_range *a,
		     const struct lx_nfs3_range *b)
{
	return a->off < b->off ? -1 : a->off > b->off;
}

RB_HEAD(lx_nfs3_rtree, lx_nfs3_range);
#define __unused __attribute__((__unused__))
RB_GENERATE_STATIC(lx_nfs3_rtree, lx_nfs3_range, rb, range_cmp)
#undef __unused

struct lx_nfs3_file {
	struct lx_nfs3_clnt *c;
	struct lx_nfs3_fh fh;
	struct lx_nfs3_file_opts o;
	pthread_rwlock_t sync_lock;
	pthread_mutex_t lock;
	struct lx_nfs3_rtree ranges;
	struct lx_nfs3_file_stats st;
};

/* ------------------------------------------------------------- ranges */

static void blk_put(struct lx_nfs3_blk *b)
{
	if (b && !--b->ref)
		free(b);
}

static void range_free(struct lx_nfs3_file *f, struct lx_nfs3_range *r)
{
	RB_REMOVE(lx_nfs3_rtree, &f->ranges, r);
	f->st.uncommitted -= r->len;
	blk_put(r->blk);
	free(r);
}

/* Remove [off, off + len) from the ranges.  Caller holds f->lock. */
static int range_cut(struct lx_nfs3_file *f, uint64_t off, uint64_t len)
{
	struct lx_nfs3_range key = {.off = off}, *r, *next;
	uint64_t end = off + len;

	r = RB_NFIND(lx_nfs3_rtree, &f->ranges, &key);
	next = r ? RB_PREV(lx_nfs3_rtree, &f->ranges, r) :
		   RB_MAX(lx_nfs3_rtree, &f->ranges);
	if (next)
		r = next; /* may start before @off and reach into it */
	for (; r && r->off < end; r = next) {
		uint64_t rend = r->off + r->len;

		next = RB_NEXT(lx_nfs3_rtree, &f->ranges, r);
		if (rend <= off)
			continue;
		if (r->off < off && rend > end) {
			/* the cut is inside: keep both sides */
			struct lx_nfs3_range *right = malloc(sizeof(*right));

			if (!right)
				return -ENOMEM;
			*right = *r;
			right->off = end;
			right->len = rend - end;
			if (right->data)
				right->data += end - r->off;
			if (right->blk)
				right->blk->ref++;
			r->len = off - r->off;
			f->st.uncommitted -= len;
			RB_INSERT(lx_nfs3_rtree, &f->ranges, right);
			return 0;
		}
		if (r->off < off) {
			f->st.uncommitted -= rend - off;
			r->len = off - r->off;
		} else if (rend > end) {
			/* the new start stays between its neighbours */
			f->st.uncommitted -= end - r->off;
			if (r->data)
				r->data += end - r->off;
			r->len = rend - end;
			r->off = end;
		} else {
			range_free(f, r);
		}
	}
	return 0;
}

/* Remember [off, off + len) as written unstable under @verf; @src is the
 * data (copied unless the file has a resupply callback). */
static int range_add(struct lx_nfs3_file *f, uint64_t off, uint64_t len,
		     const void *src, const uint8_t *verf)
{
	struct lx_nfs3_range key = {.off = off}, *r, *prev;
	int err;

	pthread_mutex_lock(&f->lock);
	err = range_cut(f, off, len);
	if (err)
		goto out_unlock;
	if (f->o.resupply) {
		r = RB_NFIND(lx_nfs3_rtree, &f->ranges, &key);
		prev = r ? RB_PREV(lx_nfs3_rtree, &f->ranges, r) :
			   RB_MAX(lx_nfs3_rtree, &f->ranges);
		if (prev && prev->off + prev->len == off && prev->verf_ok &&
		    !memcmp(prev->verf, verf, LX_NFS3_VERFSIZE)) {
			prev->len += len; /* sequential: grow the last range */
			f->st.uncommitted += len;
			goto out_unlock;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (!f->o.resupply) {
		r->blk = malloc(sizeof(*r->blk) + len);
		if (!r->blk) {
			free(r);
			err = -ENOMEM;
			goto out_unlock;
		}
		r->blk->ref = 1;
		r->data = r->blk->data;
		memcpy(r->data, src, len);
	}
	r->off = off;
	r->len = len;
	memcpy(r->verf, verf, LX_NFS3_VERFSIZE);
	r->verf_ok = true;
	RB_INSERT(lx_nfs3_rtree, &f->ranges, r);
	f->st.uncommitted += len;
out_unlock:
	pthread_mutex_unlock(&f->lock);
	return err;
}

/* Account the acknowledged pieces of a finished split write of @buf at
 * @off: unstable ones are remembered, stable ones supersede older ranges.
 * Every acknowledged piece counts, also those after a short or failed one. */
static int track_pieces(struct lx_nfs3_file *f, const struct lx_nfs3_pio *io,
			const uint8_t *buf, uint64_t off)
{
	unsigned int i;
	int err = 0, e;

	for (i = 0; i < io->npieces_; i++) {
		const struct lx_nfs3_pio_piece *p = &io->piece_[i];
		uint32_t got;

		if (p->status || !p->res.wr.count)
			continue;
		got = LX_XPRT_MIN(p->res.wr.count, p->count);
		if (p->res.wr.committed == LX_NFS3_UNSTABLE) {
			e = range_add(f, p->offset, got,
				      buf + (p->offset - off), p->res.wr.verf);
		} else {
			pthread_mutex_lock(&f->lock);
			e = range_cut(f, p->offset, got);
			pthread_mutex_unlock(&f->lock);
		}
		if (e && !err)
			err = e;
	}
	return err;
}

/* ---------------------------------------------------------------- I/O */

int lx_nfs3_file_pread(struct lx_nfs3_file *f, void *buf, size_t count,
		       uint64_t offset, size_t *nread)
{
	if (!f || (!buf && count) || !nread)
		return -EINVAL;
	return lx_nfs3_io_sync_read(f->c, &f->fh, buf, count, offset, nread);
}

static int write_all(struct lx_nfs3_file *f, const uint8_t *buf, size_t count,
		     uint64_t offset, uint32_t stable, bool track)
{
	struct lx_nfs3_pio io;
	size_t pos = 0, n;
	bool eof;
	int err = 0, terr;

	while (pos < count) {
		err = lx_nfs3_io_once(f->c, &io, &f->fh, (void *)(buf + pos),
				      count - pos, offset + pos, true, stable,
				      &n, &eof);
		/* pieces acknowledged before an error count too */
		if (track && io.npieces_) {
			terr = track_pieces(f, &io, buf + pos, offset + pos);
			if (!err)
				err = terr;
		}
		if (err)
			break;
		if (!n) {
			err = -EIO; /* the server took nothing */
			break;
		}
		pos += n;
	}
	return err;
}

int lx_nfs3_file_pwrite(struct lx_nfs3_file *f, const void *buf, size_t count,
			uint64_t offset)
{
	uint64_t unc;
	int err;

	if (!f || !buf)
		return -EINVAL;
	if (!count)
		return 0;
	pthread_rwlock_rdlock(&f->sync_lock);
	err = write_all(f, buf, count, offset, f->o.stable, true);
	pthread_rwlock_unlock(&f->sync_lock);
	if (err)
		return err;
	pthread_mutex_lock(&f->lock);
	unc = f->st.uncommitted;
	pthread_mutex_unlock(&f->lock);
	return unc > f->o.max_uncommitted ? lx_nfs3_file_fsync(f) : 0;
}

/* ---------------------------------------------------------------- fsync */

/* Write range @r again; note the verifier(s) its pieces came back with. */
static int resend(struct lx_nfs3_file *f, struct lx_nfs3_range *r, uint8_t *tmp,
		  size_t tmp_size)
{
	uint8_t verf[LX_NFS3_VERFSIZE];
	bool have = false, same = true, all_stable = true;
	uint64_t pos = 0;
	struct lx_nfs3_pio io;
	int err;

	while (pos < r->len) {
		size_t want =
			(size_t)LX_XPRT_MIN(r->len - pos, (uint64_t)tmp_size);
		const uint8_t *src = r->data ? r->data + pos : tmp;
		size_t n, done = 0;
		unsigned int i;
		bool eof;

		if (!r->data) {
			err = f->o.resupply(f->o.resupply_arg, r->off + pos,
					    tmp, want);
			if (err)
				return err < 0 ? err : -EIO;
		}
		while (done < want) {
			err = lx_nfs3_io_once(f->c, &io, &f->fh,
					      (void *)(src + done), want - done,
					      r->off + pos + done, true,
					      f->o.stable, &n, &eof);
			if (err)
				return err;
			if (!n)
				return -EIO;
			for (i = 0; i < io.npieces_; i++) {
				const struct lx_nfs3_write_res *w =
					&io.piece_[i].res.wr;

				if (io.piece_[i].status)
					continue;
				if (w->committed != LX_NFS3_UNSTABLE)
					continue;
				all_stable = false;
				if (have &&
				    memcmp(verf, w->verf, LX_NFS3_VERFSIZE))
					same = false;
				memcpy(verf, w->verf, LX_NFS3_VERFSIZE);
				have = true;
			}
			done += n;
		}
		pos += want;
	}
	pthread_mutex_lock(&f->lock);
	f->st.resent_bytes += r->len;
	atomic_fetch_add_explicit(&f->c->ctr.resent_bytes, r->len,
				  memory_order_relaxed);
	r->stable = all_stable;
	r->verf_ok = same;
	if (have)
		memcpy(r->verf, verf, LX_NFS3_VERFSIZE);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* Drop the ranges COMMIT (verifier @cv) proved stable, and those a
 * resend made stable; return how many are left.  Caller holds f->lock. */
static unsigned int drop_committed(struct lx_nfs3_file *f, const uint8_t *cv)
{
	struct lx_nfs3_range *r, *next;
	unsigned int left = 0;

	for (r = RB_MIN(lx_nfs3_rtree, &f->ranges); r; r = next) {
		next = RB_NEXT(lx_nfs3_rtree, &f->ranges, r);
		if (r->stable || (cv && r->verf_ok &&
				  !memcmp(r->verf, cv, LX_NFS3_VERFSIZE)))
			range_free(f, r);
		else
			left++;
	}
	return left;
}

int lx_nfs3_file_fsync(struct lx_nfs3_file *f)
{
	struct lx_nfs3_commit_res cr;
	struct lx_nfs3_range *r;
	uint8_t *tmp = NULL;
	size_t tmp_size;
	unsigned int round, left;
	int err = -EIO;

	if (!f)
		return -EINVAL;
	tmp_size = (size_t)f->c->wsize * LX_NFS3_PIO_MAX;
	pthread_rwlock_wrlock(&f->sync_lock);
	for (round = 0; round < FSYNC_ROUNDS; round++) {
		pthread_mutex_lock(&f->lock);
		left = drop_committed(f, NULL);
		pthread_mutex_unlock(&f->lock);
		if (!left) {
			err = 0;
			break;
		}
		err = lx_nfs3_commit(f->c, &f->fh, 0, 0, &cr);
		pthread_mutex_lock(&f->lock);
		f->st.commits++;
		atomic_fetch_add_explicit(&f->c->ctr.commits, 1,
					  memory_order_relaxed);
		left = err ? 1 : drop_committed(f, cr.verf);
		if (!err && left) {
			f->st.verf_changes++;
			atomic_fetch_add_explicit(&f->c->ctr.verf_changes, 1,
						  memory_order_relaxed);
		}
		pthread_mutex_unlock(&f->lock);
		if (err || !left)
			break;
		if (round == FSYNC_ROUNDS - 1) {
			err = -EIO; /* the verifier keeps changing: give up */
			break;
		}
		/* the server lost what it had not committed: send it again
		 * (no pwrite runs now, so the tree is ours to walk) */
		if (f->o.resupply && !tmp) {
			tmp = malloc(tmp_size);
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
		}
		RB_FOREACH (r, lx_nfs3_rtree, &f->ranges) {
			err = resend(f, r, tmp, tmp_size);
			if (err)
				goto out_unlock;
		}
	}
out_unlock:
	pthread_rwlock_unlock(&f->sync_lock);
	free(tmp);
	return err;
}

void lx_nfs3_file_stats(struct lx_nfs3_file *f, struct lx_nfs3_file_stats *st)
{
	if (!f || !st)
		return;
	pthread_mutex_lock(&f->lock);
	*st = f->st;
	pthread_mutex_unlock(&f->lock);
}

/* ----------------------------------------------------------- open/close */

static int split_path(const char *path, char *dir, size_t dsize, char *name)
{
	const char *end = path + strlen(path), *slash;
	size_t n;

	while (end > path && end[-1] == '/')
		end--;
	for (slash = end; slash > path && slash[-1] != '/'; slash--)
		;
	n = (size_t)(end - slash);
	if (!n)
		return -EISDIR; /* the root */
	if (n > LX_NFS3_MAXNAMLEN)
		return -ENAMETOOLONG;
	memcpy(name, slash, n);
	name[n] = '\0';
	if ((size_t)(slash - path) >= dsize)
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return 0;
}

static int open_fh(struct lx_nfs3_clnt *c, const char *path, int flags,
		   uint32_t mode, struct lx_nfs3_fh *fh)
{
	char dir[LX_NFS3_MAXPATHLEN + 1], name[LX_NFS3_MAXNAMLEN + 1];
	struct lx_nfs3_fh dfh;
	struct lx_nfs3_fattr attr;
	union {
		struct lx_nfs3_create_res cr;
		struct lx_nfs3_lookup_res lr;
		struct lx_nfs3_getattr_res gr;
		struct lx_nfs3_wcc_res wr;
	} u;
	bool have_attr, lookup = true;
	int err;

	err = split_path(path, dir, sizeof(dir), name);
	if (err)
		return err;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EISDIR;
	err = lx_nfs3_lookup_path(c, dir, &dfh, NULL);
	if (err)
		return err;
	if (flags & O_CREAT) {
		struct lx_nfs3_sattr sa = {.set_mode = true,
					   .mode = mode & 07777};

		err = lx_nfs3_create_file(c, &dfh, name,
					  (flags & O_EXCL) ?
						  LX_NFS3_CREATE_GUARDED :
						  LX_NFS3_CREATE_UNCHECKED,
					  &sa, NULL, &u.cr);
		if (err)
			return err;
		/* a server may leave the handle out: look the name up */
		lookup = !u.cr.fh_present;
		if (!lookup) {
			*fh = u.cr.fh;
			have_attr = u.cr.attr.present;
			attr = u.cr.attr.attr;
		}
	}
	if (lookup) {
		err = lx_nfs3_lookup(c, &dfh, name, &u.lr);
		if (err)
			return err;
		*fh = u.lr.fh;
		have_attr = u.lr.attr.present;
		attr = u.lr.attr.attr;
	}
	if (!have_attr) {
		err = lx_nfs3_getattr(c, fh, &u.gr);
		if (err)
			return err;
		attr = u.gr.attr;
	}
	if (attr.type == NF3DIR)
		return -EISDIR;
	if ((flags & O_TRUNC) && attr.size) {
		struct lx_nfs3_sattr sa = {.set_size = true, .size = 0};

		err = lx_nfs3_setattr(c, fh, &sa, NULL, &u.wr);
	}
	return err;
}

int lx_nfs3_open(struct lx_nfs3_clnt *c, const char *path, int flags,
		 uint32_t mode, const struct lx_nfs3_file_opts *fo,
		 struct lx_nfs3_file **fp)
{
	struct lx_nfs3_file *f;
	int err;

	if (!c || !path || !fp || (fo && fo->stable > LX_NFS3_FILE_SYNC))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	err = open_fh(c, path, flags, mode, &f->fh);
	if (err)
		goto out_free;
	f->c = c;
	if (fo)
		f->o = *fo;
	if (!f->o.max_uncommitted)
		f->o.max_uncommitted = DEF_MAX_UNCOMMITTED;
	RB_INIT(&f->ranges);
	pthread_mutex_init(&f->lock, NULL);
	pthread_rwlock_init(&f->sync_lock, NULL);
	*fp = f;
	return 0;

out_free:
	free(f);
	return err;
}

const struct lx_nfs3_fh *lx_nfs3_file_fh(const struct lx_nfs3_file *f)
{
	return &f->fh;
}

int lx_nfs3_file_close(struct lx_nfs3_file *f)
{
	struct lx_nfs3_range *r;
	int err;

	if (!f)
		return -EINVAL;
	err = lx_nfs3_file_fsync(f);
	while ((r = RB_MIN(lx_nfs3_rtree, &f->ranges)))
		range_free(f, r);
	pthread_rwlock_destroy(&f->sync_lock);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return err;
}
