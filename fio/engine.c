/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt's fio engine: NFSv3 and 9P2000.L, over TCP or RDMA, from fio's
 * job thread or process.
 *
 *	fio --ioengine=external:/usr/lib/.../libxprt-fio.so \
 *	    --nfs_url=nfs://server/export --rw=randrw ...
 *
 * The URL's scheme chooses the protocol (nfs:// or 9p://); its path is
 * the directory files are named in (the export, or the 9P aname).  Each
 * job makes its own client in .init, on its own thread or process (fio's
 * .setup runs in the parent before it forks: a client made there would
 * be inherited half-alive).  Over TCP the client is caller-driven: the
 * library starts no thread, the job's thread runs it.  queue() only
 * collects; commit() sends the batch; getevents() services the client
 * until enough completions or fio's timeout (complete.c: the one place
 * that knows the mode; over RDMA the client is threaded).
 *
 * Files: fio lays out a missing or short file itself, by open(2) and
 * write(2) on the local path of the same name, unless the engine's files
 * are created on open.  So .get_file_size asks the server and turns on
 * create_on_open, fio then takes the size the job needs as the file's,
 * and .open_file creates the file on the server and grows it to that
 * size (the new part reads as zeros, as a sparse local file would).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include <libxprt/rdma.h>
#include <libxprt/url.h>

#include "lxfio.h"

/*
 * Debian's fio links libaio: its struct io_u ends in a union with
 * libaio's struct iocb (64 bytes, the kernel's ABI).  Built without
 * libaio's header, the union still holds glibc's struct aiocb, larger:
 * the structure keeps its size and every offset.
 */
#if !defined(CONFIG_LIBAIO)
_Static_assert(sizeof(((struct io_u *)0)->aiocb) >= 64,
	       "struct io_u as large as with libaio's struct iocb");
#endif

struct lxfio_options {
	void *pad; /* fio stores its thread_data pointer here */
	char *url;
	unsigned int mode;  /* enum lxfio_mode */
	unsigned int stats; /* libxprt_stats */
};

struct lxfio_data {
	struct lxfio_conn conn;
	struct lxfio_cq cq;
	struct io_u **events;
	struct io_u **pending;
	unsigned int npending, depth;
	unsigned int npieces; /* per io_u */
	struct lx_xprt_rdma_mem *mem;
};

static struct fio_option options[] = {
	{
		.name = "nfs_url",
		.lname = "libxprt server URL",
		.alias = "url",
		.type = FIO_OPT_STR_STORE,
		.help = "nfs://host[:port]/export[?arg=val&...] (NFSv3) or "
			"9p://host[:port]/aname[?arg=val&...] (9P2000.L); "
			"transport=rdma for RDMA",
		.off1 = offsetof(struct lxfio_options, url),
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "libxprt_mode",
		.lname = "libxprt client mode",
		.type = FIO_OPT_STR,
		.help = "who runs the job's client",
		.off1 = offsetof(struct lxfio_options, mode),
		.def = "auto",
		.posval =
			{
				{
					.ival = "auto",
					.oval = LXFIO_MODE_AUTO,
					.help = "caller-driven over TCP, else threaded",
				},
				{
					.ival = "caller",
					.oval = LXFIO_MODE_CALLER,
					.help = "the job's thread runs the client",
				},
				{
					.ival = "threaded",
					.oval = LXFIO_MODE_THREADED,
					.help = "the library's threads run the client",
				},
			},
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "libxprt_stats",
		.lname = "libxprt transport counters",
		.type = FIO_OPT_BOOL,
		.help = "print the job's transport counters when it ends",
		.off1 = offsetof(struct lxfio_options, stats),
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};

/* the message, then the error as fio records it (td->error, verror) */
static void lxfio_fail(struct thread_data *td, int err, const char *func,
		       const char *what, const char *detail)
{
	log_err("fio: libxprt engine: %s: %s\n", what,
		detail && *detail ? detail : lx_strerror(-err));
	td_verror(td, err, func);
}

/* the job's client, made from its URL; blocks */
static int lxfio_connect(struct thread_data *td, struct lxfio_conn *c)
{
	struct lxfio_options *o = td->eo;
	struct lx_url u = {0};
	char err[256] = "";
	int ret;

	memset(c, 0, sizeof(*c));
	if (!o || !o->url || !*o->url) {
		log_err("fio: libxprt engine: nfs_url= is missing "
			"(nfs://host/export or 9p://host/aname)\n");
		td_verror(td, EINVAL, "nfs_url");
		return -EINVAL;
	}
	ret = lx_url_parse(o->url, &u);
	if (ret) {
		lxfio_fail(td, -ret, "nfs_url", "nfs_url", u.error);
		return ret;
	}
	c->proto = u.scheme == LX_URL_9P ? &lxfio_p9 : &lxfio_nfs3;
	c->want = (enum lxfio_mode)o->mode;
	ret = c->proto->connect(c, &u, err, sizeof(err));
	lx_url_free(&u);
	if (ret) {
		char what[1300];

		snprintf(what, sizeof(what), "%s %s", c->proto->name, o->url);
		lxfio_fail(td, -ret, "connect", what, err);
	}
	return ret;
}

/*
 * A client for a call fio makes outside the job's life (in the parent,
 * before .init, or after .cleanup): the job's when it has one, else a
 * short-lived one that lxfio_put() destroys.
 */
static struct lxfio_conn *lxfio_get(struct thread_data *td,
				    struct lxfio_conn *tmp)
{
	struct lxfio_data *d = td->io_ops_data;

	if (d)
		return &d->conn;
	return lxfio_connect(td, tmp) ? NULL : tmp;
}

static void lxfio_put(struct thread_data *td, struct lxfio_conn *c)
{
	struct lxfio_data *d = td->io_ops_data;

	if (c && (!d || c != &d->conn))
		c->proto->disconnect(c);
}

static void lxfio_free(struct lxfio_data *d)
{
	if (d->conn.clnt)
		d->conn.proto->disconnect(&d->conn);
	lxfio_cq_destroy(&d->cq);
	free(d->events);
	free(d->pending);
	free(d);
}

static int lxfio_init(struct thread_data *td)
{
	struct lxfio_data *d;

	if (td_trim(td)) {
		log_err("fio: libxprt engine: NFSv3 and 9P2000.L have no trim "
			"(deallocate) operation: rw=trim, randtrim and "
			"trimwrite are refused\n");
		td_verror(td, EOPNOTSUPP, "trim");
		return 1;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto nomem;
	d->depth = td->o.iodepth ? td->o.iodepth : 1;
	d->events = calloc(d->depth, sizeof(*d->events));
	d->pending = calloc(d->depth, sizeof(*d->pending));
	if (!d->events || !d->pending)
		goto nomem_free;
	if (lxfio_connect(td, &d->conn)) {
		lxfio_free(d);
		return 1;
	}
	if (lxfio_cq_init(&d->cq, d->depth, &d->conn))
		goto nomem_free;
	td->io_ops_data = d;
	return 0;
nomem_free:
	lxfio_free(d);
nomem:
	td_verror(td, ENOMEM, "init");
	return 1;
}

static const char *const lxfio_reg_modes[] = {
	[LX_XPRT_RDMA_REG_DEFAULT] = "default",
	[LX_XPRT_RDMA_REG_WINDOW] = "window",
	[LX_XPRT_RDMA_REG_PER_IO] = "per_io",
	[LX_XPRT_RDMA_REG_CACHE_UNSAFE] = "cache_unsafe",
};

/*
 * libxprt_stats=1: the job's transport counters, summed over its
 * connections, on one line (the format libxprt-fio(7) gives); over RDMA
 * with the chunk and memory window counters.
 */
static void lxfio_stats(struct thread_data *td, struct lxfio_conn *c)
{
	struct lx_xprt_rdma_stats r, rs = {0};
	struct lx_xprt_stats x, xs = {0};
	struct lx_xprt *xp;
	char line[768];
	unsigned int i;
	int n;

	for (i = 0; (xp = c->proto->xprt(c, i)); i++) {
		lx_xprt_stats(xp, &x);
		xs.submitted += x.submitted;
		xs.replies += x.replies;
		xs.retransmits += x.retransmits;
		xs.timeouts += x.timeouts;
		xs.connects += x.connects;
		xs.disconnects += x.disconnects;
		if (!c->rdma || lx_xprt_rdma_stats(xp, &r))
			continue;
		rs.reg_mode = r.reg_mode;
		rs.read_chunks += r.read_chunks;
		rs.write_chunks += r.write_chunks;
		rs.reply_chunks += r.reply_chunks;
		rs.regs += r.regs;
		rs.win_binds += r.win_binds;
		rs.win_remote_inv += r.win_remote_inv;
		rs.win_local_inv += r.win_local_inv;
		rs.win_deallocs += r.win_deallocs;
		rs.win_live += r.win_live;
		rs.win_bad_inv += r.win_bad_inv;
	}
	n = snprintf(line, sizeof(line),
		     "libxprt-stats: job=%s transport=%s conns=%u calls=%llu "
		     "replies=%llu retransmits=%llu timeouts=%llu "
		     "connects=%llu disconnects=%llu",
		     td->o.name, c->rdma ? "rdma" : "tcp", i,
		     (unsigned long long)xs.submitted,
		     (unsigned long long)xs.replies,
		     (unsigned long long)xs.retransmits,
		     (unsigned long long)xs.timeouts,
		     (unsigned long long)xs.connects,
		     (unsigned long long)xs.disconnects);
	if (c->rdma && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n,
			 " reg_mode=%s read_chunks=%llu write_chunks=%llu "
			 "reply_chunks=%llu regs=%llu win_binds=%llu "
			 "win_remote_inv=%llu win_local_inv=%llu "
			 "win_deallocs=%llu win_live=%llu win_bad_inv=%llu",
			 lxfio_reg_modes[rs.reg_mode],
			 (unsigned long long)rs.read_chunks,
			 (unsigned long long)rs.write_chunks,
			 (unsigned long long)rs.reply_chunks,
			 (unsigned long long)rs.regs,
			 (unsigned long long)rs.win_binds,
			 (unsigned long long)rs.win_remote_inv,
			 (unsigned long long)rs.win_local_inv,
			 (unsigned long long)rs.win_deallocs,
			 (unsigned long long)rs.win_live,
			 (unsigned long long)rs.win_bad_inv);
	/* one write: the line is whole among other jobs' output */
	log_info("%s\n", line);
}

static void lxfio_cleanup(struct thread_data *td)
{
	struct lxfio_data *d = td->io_ops_data;
	struct lxfio_options *o = td->eo;

	if (!d)
		return;
	if (o && o->stats && d->conn.clnt)
		lxfio_stats(td, &d->conn);
	td->io_ops_data = NULL;
	lxfio_free(d);
}

/*
 * Over RDMA fio's I/O buffers are registered once, here (after fio
 * allocated them, before the first I/O): each call then binds a memory
 * window over its own bytes only, with no registration of its own.
 */
static int lxfio_post_init(struct thread_data *td)
{
	struct lxfio_data *d = td->io_ops_data;
	int ret;

	if (!d->conn.rdma || !td->orig_buffer)
		return 0;
	ret = lx_xprt_rdma_mem_register(td->orig_buffer, td->orig_buffer_size,
					&d->mem);
	if (ret)
		log_info("fio: libxprt engine: I/O buffers not registered "
			 "(%s): each call registers its own\n",
			 lx_strerror(ret));
	return 0;
}

/* the largest transfer of the job, in calls of the server's size */
static unsigned int lxfio_pieces(struct thread_data *td, uint32_t iosize)
{
	unsigned long long bs = td->o.max_bs[DDIR_READ];

	if (td->o.max_bs[DDIR_WRITE] > bs)
		bs = td->o.max_bs[DDIR_WRITE];
	if (!bs || !iosize)
		return 1;
	return (unsigned int)((bs + iosize - 1) / iosize);
}

static int lxfio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct lxfio_data *d = td->io_ops_data;
	struct lxfio_io *io;
	unsigned int i, n = lxfio_pieces(td, d->conn.iosize);

	io = calloc(1, sizeof(*io) + n * sizeof(io->piece[0]));
	if (!io)
		return 1;
	io->io_u = io_u;
	io->cq = &d->cq;
	io->npieces = n;
	for (i = 0; i < n; i++)
		io->piece[i].io = io;
	io_u->engine_data = io;
	return 0;
}

/*
 * fio frees its I/O buffers right after the io_us: the RDMA registration
 * goes first, no call being in flight any more.
 */
static void lxfio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	struct lxfio_data *d = td->io_ops_data;

	if (d && d->mem) {
		lx_xprt_rdma_mem_unregister(d->mem);
		d->mem = NULL;
	}
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

static int lxfio_prep(struct thread_data *td, struct io_u *io_u)
{
	if (io_u->ddir == DDIR_TRIM) {
		io_u->error = EOPNOTSUPP;
		return 1;
	}
	return 0;
}

static enum fio_q_status lxfio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct lxfio_data *d = td->io_ops_data;

	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_TRIM) {
		io_u->error = EOPNOTSUPP;
		return FIO_Q_COMPLETED;
	}
	if (d->npending == d->depth)
		return FIO_Q_BUSY;
	d->pending[d->npending++] = io_u;
	return FIO_Q_QUEUED;
}

/* send @io_u's calls: the pieces of a read or write, or a flush */
static void lxfio_start(struct lxfio_data *d, struct thread_data *td,
			struct io_u *io_u)
{
	struct lxfio_file *lf = FILE_ENG_DATA(io_u->file);
	struct lxfio_io *io = io_u->engine_data;
	uint32_t iosize = d->conn.iosize;
	unsigned long long len = io_u->xfer_buflen;
	enum lxfio_op op;
	unsigned int i, n = 1;
	int ret = 0, zero = 0;

	switch (io_u->ddir) {
	case DDIR_READ:
		op = LXFIO_READ;
		break;
	case DDIR_WRITE:
		op = LXFIO_WRITE;
		break;
	case DDIR_DATASYNC:
		op = LXFIO_DATASYNC;
		break;
	default: /* fsync, sync_file_range */
		op = LXFIO_SYNC;
		break;
	}
	if (op == LXFIO_READ || op == LXFIO_WRITE)
		n = len ? (unsigned int)((len + iosize - 1) / iosize) : 1;
	io->op = op;
	io->error = 0;
	io->done = 0;
	if (!lf || n > io->npieces) {
		/* a file fio did not open through us; an iounit lowered */
		io->left = 1;
		io->error = lf ? E2BIG : EBADF;
		lxfio_cq_push(io->cq, io_u);
		return;
	}
	io->left = n;
	io->nsent = n;
	for (i = 0; i < n; i++) {
		struct lxfio_piece *p = &io->piece[i];
		uint64_t off = (uint64_t)i * iosize;
		uint32_t plen = 0;

		if (op == LXFIO_READ || op == LXFIO_WRITE)
			plen = (uint32_t)(len - off < iosize ? len - off :
							       iosize);
		p->call.done = lxfio_piece_done;
		p->call.arg = p;
		p->call.flags = 0;
		ret = d->conn.proto->start(
			&d->conn, lf, p, op, (char *)io_u->xfer_buf + off, plen,
			io_u->offset + off, td->o.sync_io != 0);
		if (ret)
			break;
	}
	if (!ret)
		return;
	/* the pieces from @i on never started: count them done */
	io->nsent = i;
	__atomic_compare_exchange_n(&io->error, &zero, -ret, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&io->left, n - i, __ATOMIC_ACQ_REL) == 0)
		lxfio_cq_push(io->cq, io_u);
}

static int lxfio_commit(struct thread_data *td)
{
	struct lxfio_data *d = td->io_ops_data;
	unsigned int i, n = d->npending;

	if (!n)
		return 0;
	/*
	 * The batch is fio's to account before any of it can complete; its
	 * issue time is now (fio's own would be the queue() call's).
	 */
	d->npending = 0;
	if (fio_fill_issue_time(td)) {
		struct timespec now;

		fio_gettime(&now, NULL);
		for (i = 0; i < n; i++) {
			d->pending[i]->issue_time = now;
			io_u_queued(td, d->pending[i]);
		}
	}
	io_u_mark_submit(td, n);
	for (i = 0; i < n; i++)
		lxfio_start(d, td, d->pending[i]);
	lxfio_cq_sent(&d->cq);
	return 0;
}

static int lxfio_getevents(struct thread_data *td, unsigned int min,
			   unsigned int max, const struct timespec *t)
{
	struct lxfio_data *d = td->io_ops_data;
	int i, n;

	n = lxfio_cq_wait(&d->cq, (void **)d->events, min, max, t);
	for (i = 0; i < n; i++) {
		struct io_u *io_u = d->events[i];
		struct lxfio_io *io = io_u->engine_data;
		struct lxfio_file *lf = FILE_ENG_DATA(io_u->file);
		char err[256] = "";
		int ret;

		if (io->error) {
			io_u->error = io->error;
		} else {
			if (io->op == LXFIO_READ || io->op == LXFIO_WRITE)
				io_u->resid = io_u->xfer_buflen - io->done;
			ret = d->conn.proto->finish && lf ?
				      d->conn.proto->finish(&d->conn, lf, io,
							    err, sizeof(err)) :
				      0;
			if (ret) {
				log_err("fio: libxprt engine: %s: %s\n",
					io_u->file->file_name, err);
				io_u->error = -ret;
			}
		}
		/*
		 * fio drops the error of a completed fsync (io_completed()
		 * returns before looking at it): the job's error it is
		 */
		if (io_u->error && ddir_sync(io_u->ddir))
			td_verror(td, io_u->error, "fsync");
	}
	return n;
}

static struct io_u *lxfio_event(struct thread_data *td, int event)
{
	struct lxfio_data *d = td->io_ops_data;

	return d->events[event];
}

/*
 * The file's size on the server (0 when it does not exist yet), and
 * create_on_open: see the top of this file.  fio asks in its parent,
 * before the job has a client: when the job says its size, 0 will do
 * (.open_file grows a shorter file), and no connection is made outside
 * the job's own process or thread; else a short-lived client asks.
 */
static int lxfio_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct lxfio_conn tmp, *c;
	uint64_t size = 0;
	int ret;

	if (fio_file_size_known(f))
		return 0;
	td->o.create_on_open = 1;
	if (!td->io_ops_data && (td->o.size || td->o.file_size_low)) {
		f->real_file_size = 0;
		fio_file_set_size_known(f);
		return 0;
	}
	c = lxfio_get(td, &tmp);
	if (!c)
		return 1;
	ret = c->proto->size(c, f->file_name, &size);
	lxfio_put(td, c);
	if (ret && ret != -ENOENT) {
		lxfio_fail(td, -ret, "get_file_size", f->file_name, NULL);
		return 1;
	}
	f->real_file_size = size;
	fio_file_set_size_known(f);
	return 0;
}

static int lxfio_open_file(struct thread_data *td, struct fio_file *f)
{
	struct lxfio_data *d = td->io_ops_data;
	uint64_t size = f->real_file_size == -1ULL ? 0 : f->real_file_size;
	struct lxfio_file *lf;
	int ret;

	lf = calloc(1, sizeof(*lf));
	if (!lf) {
		td_verror(td, ENOMEM, "open_file");
		return 1;
	}
	ret = d->conn.proto->open(&d->conn, f->file_name,
				  td->o.allow_create != 0, size, lf);
	if (ret) {
		free(lf);
		lxfio_fail(td, -ret, "open_file", f->file_name, NULL);
		return 1;
	}
	FILE_SET_ENG_DATA(f, lf);
	return 0;
}

static int lxfio_close_file(struct thread_data *td, struct fio_file *f)
{
	struct lxfio_data *d = td->io_ops_data;
	struct lxfio_file *lf = FILE_ENG_DATA(f);
	char err[256] = "";
	int ret = 0;

	if (!lf)
		return 0;
	if (d)
		ret = d->conn.proto->close(&d->conn, lf, err, sizeof(err));
	FILE_SET_ENG_DATA(f, NULL);
	free(lf);
	if (ret)
		lxfio_fail(td, -ret, "close_file", f->file_name, err);
	return ret ? 1 : 0;
}

static int lxfio_unlink_file(struct thread_data *td, struct fio_file *f)
{
	struct lxfio_conn tmp, *c;
	int ret;

	c = lxfio_get(td, &tmp);
	if (!c)
		return 1;
	ret = c->proto->unlink(c, f->file_name);
	lxfio_put(td, c);
	if (ret == -ENOENT)
		ret = 0;
	return -ret;
}

/* nothing is cached on this side: the server is asked every time */
static int lxfio_invalidate(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

struct ioengine_ops ioengine = {
	.name = "libxprt",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.init = lxfio_init,
	.post_init = lxfio_post_init,
	.prep = lxfio_prep,
	.queue = lxfio_queue,
	.commit = lxfio_commit,
	.getevents = lxfio_getevents,
	.event = lxfio_event,
	.cleanup = lxfio_cleanup,
	.open_file = lxfio_open_file,
	.close_file = lxfio_close_file,
	.unlink_file = lxfio_unlink_file,
	.get_file_size = lxfio_get_file_size,
	.invalidate = lxfio_invalidate,
	.io_u_init = lxfio_io_u_init,
	.io_u_free = lxfio_io_u_free,
	.option_struct_size = sizeof(struct lxfio_options),
	.options = options,
};
