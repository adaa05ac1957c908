// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Path helpers over the per-message calls.
 *
 * Paths are walked without copying them: components are (pointer, length)
 * slices of the caller's string put straight into a Twalk, 16 per message
 * (LX_P9_MAXWELEM), the first walk cloning into a new fid and the next ones
 * walking that fid in place.  A walk that stops short is -ENOENT and
 * leaves nothing allocated.
 *
 * pread/pwrite split the range at the fid's iounit (msize - 24 when the
 * server said 0, which both test servers do; diod refuses larger counts)
 * and keep up to 16 chunks in flight through the async data path, so a
 * large transfer is as fast as the pipe rather than a sequence of round
 * trips.  The result is the prefix that completed without a gap: the
 * first short chunk (end of file) or failed chunk ends it.
 *
 * Creating: 9P2000.L has no "open or create" message, so O_CREAT walks
 * first and creates with Tlcreate in the parent only when the name is
 * missing.  O_EXCL is checked by that walk (ganesha's Tlcreate ignores
 * O_EXCL), which is not atomic against other clients.
 *
 * Removing: Tunlinkat from the parent, or, where the server refuses it
 * (diod: EOPNOTSUPP), Twalk to the file and Tremove.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "p9_int.h"
#include "xprt/blocks/cookies.h"
#include "xprt/blocks/util.h"

#define LX_P9_PIO_DEPTH 16u

/* Next component of path[0..len) from *pos: return its length (0 at the
 * end) and its start in *s. */
static size_t lx_p9_next_comp(const char *path, size_t len, size_t *pos,
			      const char **s)
{
	size_t start;

	while (*pos < len && path[*pos] == '/')
		(*pos)++;
	start = *pos;
	while (*pos < len && path[*pos] != '/')
		(*pos)++;
	*s = path + start;
	return *pos - start;
}

/* Split @path into its parent (the first *dirlen bytes) and last
 * component.  Return -EINVAL for a path naming the root. */
static int lx_p9_split_last(const char *path, size_t *dirlen, const char **base,
			    size_t *baselen)
{
	size_t end = strlen(path), start;

	while (end && path[end - 1] == '/')
		end--;
	start = end;
	while (start && path[start - 1] != '/')
		start--;
	if (start == end)
		return -EINVAL;
	if (end - start > 0xFFFF)
		return -ENAMETOOLONG;
	*dirlen = start;
	*base = path + start;
	*baselen = end - start;
	return 0;
}

/* One Twalk of @n slices. */
static int lx_p9_walk_strs(struct lx_p9_clnt *c, uint32_t fid, uint32_t newfid,
			   unsigned int n, const struct lx_p9_str *names,
			   struct lx_p9_result *res)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TWALK};

	tx.u.twalk.fid = fid;
	tx.u.twalk.newfid = newfid;
	tx.u.twalk.nwname = (uint16_t)n;
	memcpy(tx.u.twalk.wname, names, n * sizeof(*names));
	return lx_p9_rpc(c, &tx, NULL, res);
}

/* Walk path[0..plen) from @fid to a new fid. */
static int lx_p9_walk_n(struct lx_p9_clnt *c, uint32_t fid, const char *path,
			size_t plen, uint32_t *newfidp, struct lx_p9_qid *qid)
{
	struct lx_p9_str names[LX_P9_MAXWELEM];
	struct lx_p9_result res;
	struct lx_p9_qid last = c->root_qid;
	struct lx_p9_attr attr;
	size_t pos = 0, l;
	const char *s;
	unsigned int n;
	uint32_t nf;
	bool first = true, any = false;
	int err;

	if (fid == LX_P9_NOFID)
		fid = c->root_fid;
	err = lx_p9_fid_alloc(c, &nf);
	if (err)
		return err;
	do {
		for (n = 0; n < LX_P9_MAXWELEM; n++) {
			l = lx_p9_next_comp(path, plen, &pos, &s);
			if (!l)
				break;
			if (l > 0xFFFF) {
				err = -ENAMETOOLONG;
				goto out_fail;
			}
			names[n].s = s;
			names[n].len = (uint16_t)l;
		}
		if (!n && !first)
			break;
		err = lx_p9_walk_strs(c, first ? fid : nf, nf, n, names, &res);
		if (err)
			goto out_fail_res;
		if (res.rx.u.rwalk.nwqid < n) {
			lx_p9_result_put(&res);
			err = -ENOENT;
			goto out_fail;
		}
		if (n) {
			last = res.rx.u.rwalk.wqid[n - 1];
			any = true;
		}
		lx_p9_result_put(&res);
		first = false;
	} while (n == LX_P9_MAXWELEM);

	if (qid) {
		if (!any && fid != c->root_fid) {
			err = lx_p9_getattr(c, nf, LX_P9_GETATTR_MODE, &attr);
			if (err) {
				lx_p9_clunk(c, nf);
				return err;
			}
			last = attr.qid;
		}
		*qid = last;
	}
	*newfidp = nf;
	return 0;

out_fail_res:
	if (first) {
		if (res.unknown)
			lx_p9_fid_lose(c, nf);
		else
			lx_p9_fid_free(c, nf);
		return err;
	}
out_fail:
	/* once created, the new fid exists on the server: clunk it */
	if (first)
		lx_p9_fid_free(c, nf);
	else
		lx_p9_clunk(c, nf);
	return err;
}

int lx_p9_walk_path(struct lx_p9_clnt *c, uint32_t fid, const char *path,
		    uint32_t *newfid, struct lx_p9_qid *qid)
{
	if (!c || !path || !newfid)
		return -EINVAL;
	return lx_p9_walk_n(c, fid, path, strlen(path), newfid, qid);
}

int lx_p9_open_path(struct lx_p9_clnt *c, const char *path, uint32_t flags,
		    uint32_t mode, uint32_t *fidp, uint32_t *iounit)
{
	const char *base;
	size_t dirlen, baselen;
	char name[256], *big = NULL;
	uint32_t fid;
	int err;

	if (!c || !path || !fidp)
		return -EINVAL;
	err = lx_p9_walk_path(c, LX_P9_NOFID, path, &fid, NULL);
	if (!err) {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			lx_p9_clunk(c, fid);
			return -EEXIST;
		}
		err = lx_p9_lopen(c, fid, flags & ~(uint32_t)(O_CREAT | O_EXCL),
				  NULL, iounit);
		if (err) {
			lx_p9_clunk(c, fid);
			return err;
		}
		*fidp = fid;
		return 0;
	}
	if (err != -ENOENT || !(flags & O_CREAT))
		return err;

	err = lx_p9_split_last(path, &dirlen, &base, &baselen);
	if (err)
		return err;
	err = lx_p9_walk_n(c, LX_P9_NOFID, path, dirlen, &fid, NULL);
	if (err)
		return err;
	/* Tlcreate wants a C string: the last component, copied */
	if (baselen >= sizeof(name)) {
		big = malloc(baselen + 1);
		if (!big) {
			lx_p9_clunk(c, fid);
			return -ENOMEM;
		}
	}
	memcpy(big ? big : name, base, baselen);
	(big ? big : name)[baselen] = '\0';
	err = lx_p9_lcreate(c, fid, big ? big : name, flags, mode,
			    c->opts.n_gid, NULL, iounit);
	free(big);
	if (err) {
		lx_p9_clunk(c, fid);
		return err;
	}
	*fidp = fid;
	return 0;
}

/* ------------------------------------------------------- pread/pwrite */

/**
 * struct lx_p9_pio - one pipelined pread/pwrite
 * @stop: the lowest offset (relative to the start) where a chunk came
 *	back short or failed; what is before it is complete
 * @err_at: the lowest offset of a failed chunk, @err its error
 */
struct lx_p9_pio {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int inflight;
	size_t stop;
	size_t err_at;
	int err;
};

struct lx_p9_chunk {
	struct lx_call call; /* first: done() casts it back */
	struct lx_p9_pio *io;
	size_t off; /* relative to the start */
	uint32_t len;
	bool busy; /* in flight (under io->lock) */
};

static void lx_p9_pio_done(struct lx_call *call, int status, void *arg)
{
	struct lx_p9_chunk *ch = arg;
	struct lx_p9_pio *io = ch->io;
	uint32_t count = call->count;

	pthread_mutex_lock(&io->lock);
	if (status) {
		if (ch->off < io->err_at) {
			io->err_at = ch->off;
			io->err = status;
		}
		if (ch->off < io->stop)
			io->stop = ch->off;
	} else if (count < ch->len && ch->off + count < io->stop) {
		io->stop = ch->off + count;
	}
	ch->busy = false;
	io->inflight--;
	pthread_cond_signal(&io->cond);
	pthread_mutex_unlock(&io->lock);
}

/* Wait for a piece of @io to complete (@io->lock held): on the condition
 * variable, or, caller-driven, by servicing the session (unlocked: the
 * completions run here and take the lock). */
static void lx_p9_pio_wait(struct lx_p9_clnt *c, struct lx_p9_pio *io)
{
	if (c->opts.mode == LX_XPRT_MODE_CALLER) {
		pthread_mutex_unlock(&io->lock);
		lx_p9_loop_run(c, NULL, 1, 0);
		pthread_mutex_lock(&io->lock);
	} else {
		pthread_cond_wait(&io->cond, &io->lock);
	}
}

static int lx_p9_pio(struct lx_p9_clnt *c, uint8_t type, uint32_t fid,
		     void *buf, size_t len, uint64_t offset, size_t *done)
{
	struct lx_p9_chunk ch[LX_P9_PIO_DEPTH];
	struct lx_p9_pio io = {.stop = SIZE_MAX, .err_at = SIZE_MAX};
	uint32_t step = lx_p9_fid_iosize(c, fid);
	struct lx_p9_chunk *k = NULL;
	size_t pos = 0;
	unsigned int i;
	int err = 0;

	pthread_mutex_init(&io.lock, NULL);
	pthread_cond_init(&io.cond, NULL);
	for (i = 0; i < LX_P9_PIO_DEPTH; i++) {
		ch[i].io = &io;
		ch[i].busy = false;
	}
	pthread_mutex_lock(&io.lock);
	while (pos < len && io.stop == SIZE_MAX) {
		while (io.inflight == LX_P9_PIO_DEPTH)
			lx_p9_pio_wait(c, &io);
		for (i = 0; i < LX_P9_PIO_DEPTH; i++) {
			k = &ch[i];
			if (!k->busy)
				break;
		}
		k->off = pos;
		k->len = (uint32_t)LX_XPRT_MIN((size_t)step, len - pos);
		k->busy = true;
		io.inflight++;
		pthread_mutex_unlock(&io.lock);
		k->call.done = lx_p9_pio_done;
		k->call.arg = k;
		k->call.owner = 0;
		k->call.flags = 0;
		if (type == LX_P9_TREAD)
			err = lx_p9_read_async(c, &k->call, fid, offset + pos,
					       k->len, (char *)buf + pos);
		else
			err = lx_p9_write_async(c, &k->call, fid, offset + pos,
						k->len, (char *)buf + pos);
		pthread_mutex_lock(&io.lock);
		if (err) {
			k->busy = false;
			io.inflight--;
			if (pos < io.err_at) {
				io.err_at = pos;
				io.err = err;
			}
			if (pos < io.stop)
				io.stop = pos;
			break;
		}
		pos += k->len;
	}
	while (io.inflight)
		lx_p9_pio_wait(c, &io);
	pthread_mutex_unlock(&io.lock);
	pthread_cond_destroy(&io.cond);
	pthread_mutex_destroy(&io.lock);

	*done = LX_XPRT_MIN(io.stop, len);
	if (io.err && io.err_at <= *done)
		return io.err;
	return 0;
}

int lx_p9_pread(struct lx_p9_clnt *c, uint32_t fid, void *buf, size_t len,
		uint64_t offset, size_t *nread)
{
	if (!c || !nread || (!buf && len))
		return -EINVAL;
	return lx_p9_pio(c, LX_P9_TREAD, fid, buf, len, offset, nread);
}

int lx_p9_pwrite(struct lx_p9_clnt *c, uint32_t fid, const void *buf,
		 size_t len, uint64_t offset, size_t *nwritten)
{
	if (!c || !nwritten || (!buf && len))
		return -EINVAL;
	return lx_p9_pio(c, LX_P9_TWRITE, fid, (void *)buf, len, offset,
			 nwritten);
}

/* ---------------------------------------------------------- directories */

/*
 * A server can make a naive reader ask for ever: by handing back, as the
 * next offset, the one asked for or one it handed out before.  Offsets
 * are opaque cookies (ext4's are hashes, in no order), so "must grow"
 * would be wrong; instead each reply's last offset is remembered (one per
 * reply, xprt/blocks/cookies.h), and a reply whose last offset equals the one
 * asked for, is 0 (the start) or was seen before ends the listing with
 * -ELOOP before any of its entries is delivered.  A bound on the entries
 * stops a server that keeps inventing new offsets, as the NFSv3 iterator
 * does.
 */
uint64_t lx_p9__dir_max_entries = LX_P9_DIR_MAX_ENTRIES;

struct lx_p9_dir {
	struct lx_p9_clnt *c;
	uint32_t fid;
	uint64_t offset;
	uint8_t *buf;
	uint32_t cap, len;
	size_t pos;
	bool eof;
	uint64_t total; /* entries received in this listing */
	struct lx_xprt_cookies seen;
};

int lx_p9_opendir(struct lx_p9_clnt *c, const char *path, struct lx_p9_dir **dp)
{
	struct lx_p9_dir *d;
	struct lx_p9_qid qid;
	uint32_t fid;
	int err;

	if (!c || !path || !dp)
		return -EINVAL;
	err = lx_p9_walk_path(c, LX_P9_NOFID, path, &fid, &qid);
	if (err)
		return err;
	if (!(qid.type & LX_P9_QTDIR)) {
		err = -ENOTDIR;
		goto out_clunk;
	}
	err = lx_p9_lopen(c, fid, O_RDONLY | O_DIRECTORY, NULL, NULL);
	if (err)
		goto out_clunk;
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		goto out_clunk;
	}
	d->cap = lx_p9_fid_iosize(c, fid);
	d->buf = malloc(d->cap);
	if (!d->buf) {
		free(d);
		err = -ENOMEM;
		goto out_clunk;
	}
	d->c = c;
	d->fid = fid;
	*dp = d;
	return 0;

out_clunk:
	lx_p9_clunk(c, fid);
	return err;
}

/*
 * A new reply in d->buf: refuse it when its last offset loops back or
 * the listing grows past its bound (see above), else remember that
 * offset.  Entries past one that does not parse are not counted: the
 * reader reports that one when it gets there.
 */
static int lx_p9_dir_check(struct lx_p9_dir *d)
{
	struct lx_p9_dirent e;
	uint64_t n = 0, last = d->offset;
	size_t pos = 0;

	while (lx_p9_dirent_next(d->buf, d->len, &pos, &e) == 1) {
		last = e.offset;
		n++;
	}
	if (!n)
		return 0;
	if (last == d->offset || !last || lx_xprt__cookies_has(&d->seen, last))
		return -ELOOP;
	if (d->total + n > lx_p9__dir_max_entries)
		return -E2BIG;
	d->total += n;
	return lx_xprt__cookies_add(&d->seen, last);
}

int lx_p9_readdir_next(struct lx_p9_dir *d, struct lx_p9_dirent *ent)
{
	int r;

	if (!d || !ent)
		return -EINVAL;
	if (d->pos >= d->len) {
		if (d->eof)
			return 0;
		r = lx_p9_readdir(d->c, d->fid, d->offset, d->cap, d->buf,
				  &d->len);
		if (r)
			return r;
		d->pos = 0;
		if (!d->len) {
			d->eof = true;
			return 0;
		}
		r = lx_p9_dir_check(d);
		if (r) {
			d->len = 0; /* nothing of this reply is delivered */
			return r;
		}
	}
	r = lx_p9_dirent_next(d->buf, d->len, &d->pos, ent);
	if (r < 0)
		return r;
	if (r == 0)
		return -EBADMSG; /* pos < len yet no entry */
	d->offset = ent->offset;
	return 1;
}

void lx_p9_closedir(struct lx_p9_dir *d)
{
	if (!d)
		return;
	lx_p9_clunk(d->c, d->fid);
	lx_xprt__cookies_free(&d->seen);
	free(d->buf);
	free(d);
}

/* ---------------------------------------------------------- the rest */

/* Walk to the parent of @path; the last component is copied into a C
 * string (*namep, to free() when it is not @small). */
static int lx_p9_parent(struct lx_p9_clnt *c, const char *path, uint32_t *dfid,
			char *small, size_t smalllen, char **namep)
{
	const char *base;
	size_t dirlen, baselen;
	char *name = small;
	int err;

	if (!c || !path)
		return -EINVAL;
	err = lx_p9_split_last(path, &dirlen, &base, &baselen);
	if (err)
		return err;
	if (baselen >= smalllen) {
		name = malloc(baselen + 1);
		if (!name)
			return -ENOMEM;
	}
	memcpy(name, base, baselen);
	name[baselen] = '\0';
	err = lx_p9_walk_n(c, LX_P9_NOFID, path, dirlen, dfid, NULL);
	if (err) {
		if (name != small)
			free(name);
		return err;
	}
	*namep = name;
	return 0;
}

int lx_p9_mkdir_path(struct lx_p9_clnt *c, const char *path, uint32_t mode)
{
	char small[256], *name;
	uint32_t dfid;
	int err;

	err = lx_p9_parent(c, path, &dfid, small, sizeof(small), &name);
	if (err)
		return err;
	err = lx_p9_mkdir(c, dfid, name, mode, c->opts.n_gid, NULL);
	lx_p9_clunk(c, dfid);
	if (name != small)
		free(name);
	return err;
}

int lx_p9_remove_path(struct lx_p9_clnt *c, const char *path)
{
	char small[256], *name;
	struct lx_p9_qid qid;
	uint32_t dfid, fid;
	int err;

	err = lx_p9_parent(c, path, &dfid, small, sizeof(small), &name);
	if (err)
		return err;
	/* the type decides AT_REMOVEDIR; the fid serves the fallback */
	err = lx_p9_walk_path(c, dfid, name, &fid, &qid);
	if (err)
		goto out_dfid;
	err = lx_p9_unlinkat(c, dfid, name,
			     (qid.type & LX_P9_QTDIR) ? LX_P9_AT_REMOVEDIR : 0);
	if (err == -EOPNOTSUPP)
		err = lx_p9_remove(c, fid); /* frees the fid either way */
	else
		lx_p9_clunk(c, fid);
out_dfid:
	lx_p9_clunk(c, dfid);
	if (name != small)
		free(name);
	return err;
}

/* A fid of @path from the root for a one-call look at it (@out: where
 * that call's result goes, checked here with the rest). */
static int path_fid(struct lx_p9_clnt *c, const char *path, const void *out,
		    uint32_t *fid)
{
	if (!c || !path || !out)
		return -EINVAL;
	return lx_p9_walk_path(c, LX_P9_NOFID, path, fid, NULL);
}

int lx_p9_stat_path(struct lx_p9_clnt *c, const char *path, uint64_t mask,
		    struct lx_p9_attr *attr)
{
	uint32_t fid;
	int err = path_fid(c, path, attr, &fid);

	if (err)
		return err;
	err = lx_p9_getattr(c, fid, mask, attr);
	lx_p9_clunk(c, fid);
	return err;
}

int lx_p9_statfs_path(struct lx_p9_clnt *c, const char *path,
		      struct lx_p9_statfs *st)
{
	uint32_t fid;
	int err = path_fid(c, path, st, &fid);

	if (err)
		return err;
	err = lx_p9_statfs(c, fid, st);
	lx_p9_clunk(c, fid);
	return err;
}
